/* SPDX-License-Identifier: MIT */
/*
 * MOUNT version 3 (RFC 1813 section 5): MNT gives the handle of an export,
 * or of a directory inside one, to a client the export's rules admit; DUMP/UMNT/UMNTALL keep the
 * advisory list of who mounted what; EXPORT lists the exports with their
 * client specifications.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <unistd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "nfs3/nfs3.h"
#include "nfs3/procs.h"
#include "xdr/gen/mount3.h"

#define MOUNTLIST_MAX 1024

/* The mount list is advisory (clients may never UMNT): bounded, oldest out. */
struct mount_entry {
	char host[INET6_ADDRSTRLEN];
	char dir[MNTPATHLEN + 1];
};

static pthread_mutex_t mounts_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mount_entry mounts[MOUNTLIST_MAX];
static unsigned int nmounts;

static void peer_name(const struct rpc_req *req, char *out, size_t len)
{
	const struct sockaddr_storage *ss = req->peer;

	out[0] = 0;
	if (!ss)
		return;
	if (ss->ss_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr, out,
			  (socklen_t)len);
	else if (ss->ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)ss)->sin6_addr,
			  out, (socklen_t)len);
}

/* A path argument as a C string, without trailing slashes. */
static bool dirpath(const dirpath3 *p, char *out)
{
	uint32_t n = p->len;

	if (n == 0 || n > MNTPATHLEN || memchr(p->data, 0, n))
		return false;
	memcpy(out, p->data, n);
	while (n > 1 && out[n - 1] == '/')
		n--;
	out[n] = 0;
	return true;
}

static void mounts_add(const char *host, const char *dir)
{
	unsigned int i;

	pthread_mutex_lock(&mounts_lock);
	for (i = 0; i < nmounts; i++)
		if (!strcmp(mounts[i].host, host) && !strcmp(mounts[i].dir, dir))
			goto out;
	if (nmounts == MOUNTLIST_MAX) {
		memmove(mounts, mounts + 1, (MOUNTLIST_MAX - 1) * sizeof(mounts[0]));
		nmounts--;
	}
	snprintf(mounts[nmounts].host, sizeof(mounts[0].host), "%s", host);
	snprintf(mounts[nmounts].dir, sizeof(mounts[0].dir), "%s", dir);
	nmounts++;
out:
	pthread_mutex_unlock(&mounts_lock);
}

static void mounts_remove(const char *host, const char *dir)
{
	unsigned int i = 0;

	pthread_mutex_lock(&mounts_lock);
	while (i < nmounts) {
		if (!strcmp(mounts[i].host, host) &&
		    (!dir || !strcmp(mounts[i].dir, dir))) {
			memmove(mounts + i, mounts + i + 1,
				(nmounts - i - 1) * sizeof(mounts[0]));
			nmounts--;
		} else {
			i++;
		}
	}
	pthread_mutex_unlock(&mounts_lock);
}

/*
 * The export holding @dir: the one whose path is the longest whole-
 * component prefix of it. *rest points at what follows ("" or "a/b").
 */
static const struct nfsx_export *export_of(const struct nfsx_exports *set,
					   const char *dir, const char **rest)
{
	const struct nfsx_export *e = NULL, *best = NULL;
	size_t best_len = 0;

	while ((e = exports_next(set, e))) {
		size_t n = strlen(e->path);

		if (n == 1 && e->path[0] == '/')
			n = 0; /* "/" is a prefix of everything */
		if (strncmp(dir, e->path, n) || (dir[n] != '/' && dir[n] != 0))
			continue;
		if (!best || n >= best_len) {
			best = e;
			best_len = n;
		}
	}
	if (best)
		*rest = dir[best_len] == '/' ? dir + best_len + 1 : dir + best_len;
	return best;
}

void mount3_prune(const struct nfsx_exports *set)
{
	unsigned int i = 0;
	const char *rest;

	pthread_mutex_lock(&mounts_lock);
	while (i < nmounts) {
		if (!export_of(set, mounts[i].dir, &rest)) {
			memmove(mounts + i, mounts + i + 1,
				(nmounts - i - 1) * sizeof(mounts[0]));
			nmounts--;
		} else {
			i++;
		}
	}
	pthread_mutex_unlock(&mounts_lock);
}

/*
 * Walk @rest, one component at a time, from the export's root (@at),
 * never following a symlink nor climbing out, and crossing mount points
 * as LOOKUP does, so that a client may mount a directory inside an
 * export, as Linux's mountd allows. @at ends as the place of the result,
 * *@out the directory (to release through at->vexp->ops).
 * Return values: 0, or -errno.
 */
static int walk(struct rpc_req *req, struct export_obj *at, const char *rest,
		struct vfs_obj *out)
{
	struct vfs_obj cur;
	struct stat st;
	int r = at->vexp->ops->root(at->vexp, &cur);

	if (r < 0)
		return r;
	while (*rest) {
		const char *slash = strchr(rest, '/');
		size_t n = slash ? (size_t)(slash - rest) : strlen(rest);
		struct export_obj to = *at;
		struct vfs_obj next;

		if (n) {
			at->obj = cur;
			r = export_lookup_in(req, at, (const uint8_t *)rest, (uint32_t)n, &to,
					     &next);
			at->obj = VFS_OBJ_NONE;
			at->vexp->ops->release(&cur);
			if (r < 0)
				return r;
			cur = next;
			*at = to;
		}
		rest += n + (slash ? 1 : 0);
	}
	if (at->vexp->ops->getattr(at->vexp, &cur, &st) < 0 || !S_ISDIR(st.st_mode)) {
		at->vexp->ops->release(&cur);
		return -ENOTDIR;
	}
	*out = cur;
	return 0;
}

/*
 * The flavours MNT lists for rule @c into @out, as mountd's
 * set_authflavors(): the sec= list in its order without AUTH_NONE
 * (older Linux clients read the list from its end and would pick it),
 * AUTH_SYS without sec=. For sec=none alone mountd's fallback says
 * AUTH_SYS, which the export then refuses on every call; nfsxd says
 * AUTH_NONE, which a client can mount with.
 * Return values: how many.
 */
static uint32_t mnt_flavors(const struct nfsx_export_client *c, int32_t out[EXPORTS_MAX_SEC])
{
	uint32_t l[EXPORTS_MAX_SEC];
	unsigned int n, i;
	uint32_t k = 0;

	if (c->opts.nsec == 0) {
		out[0] = (int32_t)EXPORTS_SEC_SYS;
		return 1;
	}
	n = exports_sec_list(c, l);
	for (i = 0; i < n; i++)
		if (l[i] != EXPORTS_SEC_NONE)
			out[k++] = (int32_t)l[i];
	if (k == 0)
		out[k++] = (int32_t)EXPORTS_SEC_NONE;
	return k;
}

enum rpc_accept_stat mount3_mnt(struct rpc_req *req)
{
	int32_t flavors[EXPORTS_MAX_SEC];
	struct mountres3 r = { 0 };
	const struct export_snap *x = NULL;
	const struct nfsx_export *exp;
	const struct nfsx_export_client *c;
	char dir[MNTPATHLEN + 1], host[INET6_ADDRSTRLEN];
	const char *rest = "";
	struct export_obj at = { .obj = VFS_OBJ_NONE };
	struct vfs_obj dobj;
	struct nfsx_fh fh;
	dirpath3 p;
	int err;

	if (!xdr_dec_dirpath3(&req->args, &p) || xdr_dec_left(&req->args))
		return RPC_GARBAGE_ARGS;
	if (!dirpath(&p, dir)) {
		r.fhs_status = MNT3ERR_INVAL;
		goto out;
	}
	x = export_snap_get();
	exp = exports_find_path(x->set, dir);
	if (!exp)
		exp = export_of(x->set, dir, &rest);
	if (!exp) {
		r.fhs_status = MNT3ERR_NOENT;
		goto out;
	}
	/* MNT runs on a worker: a host name rule may look the peer up. */
	c = export_match(req, exp);
	if (!c || !exports_port_ok(c, req->peer)) {
		r.fhs_status = MNT3ERR_ACCES;
		goto out;
	}
	vfs_become(NULL);
	at.exp = exp;
	at.client = c;
	at.vexp = export_root_of(x, exp);
	at.snap = x;
	err = walk(req, &at, rest, &dobj);
	if (err < 0) {
		r.fhs_status = err == -ENOTDIR ? MNT3ERR_NOTDIR :
			       err == -ENAMETOOLONG ? MNT3ERR_NAMETOOLONG :
			       err == -EACCES ? MNT3ERR_ACCES : MNT3ERR_NOENT;
		goto out;
	}
	err = at.vexp->ops->handle(export_fh_key, at.vexp, &dobj, &fh);
	at.vexp->ops->release(&dobj);
	if (err < 0) {
		r.fhs_status = MNT3ERR_SERVERFAULT;
		goto out;
	}
	r.fhs_status = MNT3_OK;
	r.u.mountinfo.fhandle.data = fh.data;
	r.u.mountinfo.fhandle.len = fh.len;
	/* the rule of the directory mounted (a walk may cross into
	 * another export) */
	r.u.mountinfo.auth_flavors.len = mnt_flavors(at.client, flavors);
	r.u.mountinfo.auth_flavors.val = flavors;
	peer_name(req, host, sizeof(host));
	mounts_add(host, dir);
out:
	if (x)
		export_snap_put(x);
	return xdr_enc_mountres3(&req->enc, &r) ? RPC_SUCCESS : RPC_SYSTEM_ERR;
}

enum rpc_accept_stat mount3_dump(struct rpc_req *req)
{
	struct xdr_enc *e = &req->enc;
	unsigned int i;
	bool ok = true;

	if (xdr_dec_left(&req->args))
		return RPC_GARBAGE_ARGS;
	pthread_mutex_lock(&mounts_lock);
	for (i = 0; i < nmounts && ok; i++)
		ok = xdr_enc_bool(e, true) &&
		     xdr_enc_bytes(e, mounts[i].host, (uint32_t)strlen(mounts[i].host),
				   MNTNAMLEN) &&
		     xdr_enc_bytes(e, mounts[i].dir, (uint32_t)strlen(mounts[i].dir),
				   MNTPATHLEN);
	pthread_mutex_unlock(&mounts_lock);
	return ok && xdr_enc_bool(e, false) ? RPC_SUCCESS : RPC_SYSTEM_ERR;
}

enum rpc_accept_stat mount3_umnt(struct rpc_req *req)
{
	char dir[MNTPATHLEN + 1], host[INET6_ADDRSTRLEN];
	dirpath3 p;

	if (!xdr_dec_dirpath3(&req->args, &p) || xdr_dec_left(&req->args))
		return RPC_GARBAGE_ARGS;
	if (dirpath(&p, dir)) {
		peer_name(req, host, sizeof(host));
		mounts_remove(host, dir);
	}
	return RPC_SUCCESS;
}

enum rpc_accept_stat mount3_umntall(struct rpc_req *req)
{
	char host[INET6_ADDRSTRLEN];

	if (xdr_dec_left(&req->args))
		return RPC_GARBAGE_ARGS;
	peer_name(req, host, sizeof(host));
	mounts_remove(host, NULL);
	return RPC_SUCCESS;
}

enum rpc_accept_stat mount3_export(struct rpc_req *req)
{
	const struct nfsx_export *exp = NULL;
	const struct export_snap *x;
	struct xdr_enc *e = &req->enc;
	unsigned int i;
	bool ok = true;

	if (xdr_dec_left(&req->args))
		return RPC_GARBAGE_ARGS;
	x = export_snap_get();
	while (ok && (exp = exports_next(x->set, exp))) {
		ok = xdr_enc_bool(e, true) &&
		     xdr_enc_bytes(e, exp->path, (uint32_t)strlen(exp->path),
				   MNTPATHLEN);
		for (i = 0; ok && i < exp->nclients; i++) {
			const char *spec = exp->clients[i].spec;

			ok = xdr_enc_bool(e, true) &&
			     xdr_enc_bytes(e, spec, (uint32_t)strlen(spec), MNTNAMLEN);
		}
		ok = ok && xdr_enc_bool(e, false);
	}
	export_snap_put(x);
	return ok && xdr_enc_bool(e, false) ? RPC_SUCCESS : RPC_SYSTEM_ERR;
}
