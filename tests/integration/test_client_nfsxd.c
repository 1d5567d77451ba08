/* SPDX-License-Identifier: MIT */
/*
 * libnfsx against nfsxd (started by run-client-nfsxd.sh, except for the
 * restart test, which runs its own): every MOUNT and NFSv3 procedure
 * through the raw asynchronous API, the synchronous and path API with
 * their main error paths, byte-exact data (pipelined zero-copy WRITEs,
 * offsets past 4 GiB), READDIR(PLUS) of 3000 entries, mkdir -p, walk,
 * mount_path, nconnect=4 seen from the server's side, rpcbind lookup,
 * a reserved source port for a secure export, reconnection after nfsxd
 * restarts, and four threads with a context each.
 *
 * Usage: test_client_nfsxd NFSXD PORT RPCB_PORT RPCB_NFS_PORT RESTART_PORT BASE WORK
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/internal.h"
#include "tap.h"

static const char *nfsxd, *base, *work;
static uint16_t port, rpcb_port, rpcb_nfs_port, restart_port;
static char rw[4096], secure[4096];

static struct nfsx_ctx *mk(uint16_t p, uint32_t uid, unsigned nconnect)
{
	struct nfsx_opts o;
	char err[256];
	struct nfsx_ctx *c;

	nfsx_opts_init(&o);
	o.host = "127.0.0.1";
	o.port = p;
	o.uid = uid;
	o.gid = uid;
	o.ngids = 0;
	o.nconnect = nconnect;
	o.timeo_ms = 10000;
	c = nfsx_ctx_new(&o, err, sizeof(err));
	if (!c)
		printf("# nfsx_ctx_new: %s\n", err);
	return c;
}

/* ------------------------------------------------------------------ */
/* The raw asynchronous API: one helper runs a call and copies results */

struct ares {
	int done, err;
	uint32_t proc, prog;
	uint32_t status;
	struct nfsx_fh fh;
	bool has_attr;
	struct fattr3 attr;
	uint32_t count, access, u32;
	bool eof, flag;
	char data[4096];
	uint32_t datalen;
	unsigned nentries;
	uint64_t last_cookie;
	bool found_name;
	const char *want_name;
};

static void copy_fh(struct ares *r, const struct nfs_fh3 *fh)
{
	r->fh.len = fh->data.len <= NFSX_FH_MAX ? fh->data.len : 0;
	memcpy(r->fh.data, fh->data.data, r->fh.len);
}

static void post_attr(struct ares *r, const struct post_op_attr *a)
{
	r->has_attr = a->attributes_follow;
	if (a->attributes_follow)
		r->attr = a->u.attributes;
}

static void cb_any(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct ares *r = priv;

	(void)ctx;
	r->done = 1;
	r->err = err;
	if (err || !res)
		return;
	r->status = *(uint32_t *)res; /* every NFSv3 result and mountres3 start with it */
	if (r->prog == MOUNT3_PROGRAM) {
		if (r->proc == MOUNTPROC3_MNT && r->status == MNT3_OK) {
			struct mountres3 *m = res;

			r->fh.len = m->u.mountinfo.fhandle.len;
			memcpy(r->fh.data, m->u.mountinfo.fhandle.data, r->fh.len);
			r->count = m->u.mountinfo.auth_flavors.len;
		} else if (r->proc == MOUNTPROC3_EXPORT) {
			const struct exportnode *e;

			r->status = 0;
			for (e = *(exports3 *)res; e; e = e->ex_next) {
				r->nentries++;
				if (r->want_name && e->ex_dir.len == strlen(r->want_name) &&
				    !memcmp(e->ex_dir.data, r->want_name, e->ex_dir.len))
					r->found_name = true;
			}
		} else if (r->proc == MOUNTPROC3_DUMP) {
			const struct mountbody *m;

			r->status = 0;
			for (m = *(mountlist3 *)res; m; m = m->ml_next) {
				r->nentries++;
				if (r->want_name && m->ml_directory.len == strlen(r->want_name) &&
				    !memcmp(m->ml_directory.data, r->want_name, m->ml_directory.len))
					r->found_name = true;
			}
		}
		return;
	}
	if (r->status != NFS3_OK)
		return;
	switch (r->proc) {
	case NFSPROC3_GETATTR:
		r->has_attr = true;
		r->attr = ((struct GETATTR3res *)res)->u.resok.obj_attributes;
		break;
	case NFSPROC3_SETATTR:
		post_attr(r, &((struct SETATTR3res *)res)->u.resok.obj_wcc.after);
		break;
	case NFSPROC3_LOOKUP:
		copy_fh(r, &((struct LOOKUP3res *)res)->u.resok.object);
		post_attr(r, &((struct LOOKUP3res *)res)->u.resok.obj_attributes);
		break;
	case NFSPROC3_ACCESS:
		r->access = ((struct ACCESS3res *)res)->u.resok.access;
		break;
	case NFSPROC3_READLINK: {
		struct READLINK3resok *ok = &((struct READLINK3res *)res)->u.resok;

		r->datalen = ok->data.len < sizeof(r->data) ? ok->data.len : 0;
		memcpy(r->data, ok->data.data, r->datalen);
		break;
	}
	case NFSPROC3_READ: {
		struct READ3resok *ok = &((struct READ3res *)res)->u.resok;

		r->count = ok->count;
		r->eof = ok->eof;
		r->datalen = ok->data.len < sizeof(r->data) ? ok->data.len : 0;
		memcpy(r->data, ok->data.data, r->datalen);
		break;
	}
	case NFSPROC3_WRITE:
		r->count = ((struct WRITE3res *)res)->u.resok.count;
		r->u32 = ((struct WRITE3res *)res)->u.resok.committed;
		break;
	case NFSPROC3_CREATE:
	case NFSPROC3_MKDIR:
	case NFSPROC3_SYMLINK:
	case NFSPROC3_MKNOD: {
		/* The four resok structs share their layout up to obj_attributes. */
		struct CREATE3resok *ok = &((struct CREATE3res *)res)->u.resok;

		if (ok->obj.handle_follows)
			copy_fh(r, &ok->obj.u.handle);
		post_attr(r, &ok->obj_attributes);
		break;
	}
	case NFSPROC3_LINK:
		post_attr(r, &((struct LINK3res *)res)->u.resok.file_attributes);
		break;
	case NFSPROC3_READDIR: {
		const struct entry3 *e;

		for (e = ((struct READDIR3res *)res)->u.resok.reply.entries; e; e = e->nextentry) {
			r->nentries++;
			r->last_cookie = e->cookie;
			if (r->want_name && e->name.len == strlen(r->want_name) &&
			    !memcmp(e->name.data, r->want_name, e->name.len))
				r->found_name = true;
		}
		r->eof = ((struct READDIR3res *)res)->u.resok.reply.eof;
		break;
	}
	case NFSPROC3_READDIRPLUS: {
		const struct entryplus3 *e;

		for (e = ((struct READDIRPLUS3res *)res)->u.resok.reply.entries; e;
		     e = e->nextentry) {
			r->nentries++;
			if (r->want_name && e->name.len == strlen(r->want_name) &&
			    !memcmp(e->name.data, r->want_name, e->name.len)) {
				r->found_name = true;
				post_attr(r, &e->name_attributes);
				if (e->name_handle.handle_follows)
					copy_fh(r, &e->name_handle.u.handle);
			}
		}
		r->eof = ((struct READDIRPLUS3res *)res)->u.resok.reply.eof;
		break;
	}
	case NFSPROC3_FSSTAT:
		r->u32 = ((struct FSSTAT3res *)res)->u.resok.tbytes > 0;
		break;
	case NFSPROC3_FSINFO:
		r->count = ((struct FSINFO3res *)res)->u.resok.rtmax;
		r->u32 = ((struct FSINFO3res *)res)->u.resok.wtmax;
		break;
	case NFSPROC3_PATHCONF:
		r->u32 = ((struct PATHCONF3res *)res)->u.resok.name_max;
		r->flag = ((struct PATHCONF3res *)res)->u.resok.no_trunc;
		break;
	case NFSPROC3_COMMIT:
		r->count = 1;
		break;
	default:
		break;
	}
}

/* Run one call of @p to completion through the raw API. */
static struct ares *acall(struct nfsx_ctx *c, const struct nfsx_proc *p, const void *args,
			  const char *want)
{
	static struct ares r;
	int e;

	memset(&r, 0, sizeof(r));
	r.proc = p->proc;
	r.prog = p->prog;
	r.want_name = want;
	e = nfsx_call(c, p, args, cb_any, &r);
	if (e < 0) {
		r.done = 1;
		r.err = e;
	}
	while (!r.done)
		nfsx_run_once(c, 1000);
	return &r;
}

#define NFS(n) (&nfsx_nfs3_procs[NFSPROC3_##n])
#define MNT(n) (&nfsx_mnt3_procs[MOUNTPROC3_##n])

static struct xdr_bytes str(const char *s)
{
	struct xdr_bytes b = { (const uint8_t *)s, (uint32_t)strlen(s) };

	return b;
}

static struct nfs_fh3 fh3(const struct nfsx_fh *fh)
{
	struct nfs_fh3 f = { { fh->data, fh->len } };

	return f;
}

static void test_raw(void)
{
	struct nfsx_ctx *c = mk(port, 0, 1);
	struct nfsx_fh root, file, dir, lnk;
	dirpath3 dp = str(rw);
	struct ares *r;
	uint64_t fileid;
	char path[4200];

	r = acall(c, MNT(NULL), NULL, NULL);
	ok(r->err == 0, "MOUNT NULL");
	r = acall(c, MNT(MNT), &dp, NULL);
	ok(r->err == 0 && r->status == MNT3_OK && r->fh.len > 0 && r->count == 1,
	   "MOUNT MNT: handle of %u bytes, one auth flavor", r->fh.len);
	root = r->fh;
	r = acall(c, MNT(DUMP), NULL, rw);
	ok(r->err == 0 && r->found_name, "MOUNT DUMP lists the mount (%u entries)", r->nentries);
	r = acall(c, MNT(EXPORT), NULL, rw);
	ok(r->err == 0 && r->found_name && r->nentries == 2, "MOUNT EXPORT lists both exports");
	{
		dirpath3 bad = str("/no/such/export/here");

		const struct nfsx_op_stats *st = nfsx_stats_get(c, MNT(MNT));
		uint64_t errs = st ? st->errors : 0;

		r = acall(c, MNT(MNT), &bad, NULL);
		ok(r->err == 0 && r->status == MNT3ERR_NOENT, "MOUNT MNT of no export: MNT3ERR_NOENT");
		st = nfsx_stats_get(c, MNT(MNT));
		ok(st && st->errors == errs + 1, "  counted in MNT's errors (%" PRIu64 " -> %" PRIu64 ")",
		   errs, st ? st->errors : 0);
	}
	r = acall(c, MNT(UMNT), &dp, NULL);
	ok(r->err == 0, "MOUNT UMNT");
	r = acall(c, MNT(DUMP), NULL, rw);
	ok(r->err == 0 && !r->found_name, "DUMP no longer lists it");
	r = acall(c, MNT(UMNTALL), NULL, NULL);
	ok(r->err == 0, "MOUNT UMNTALL");

	r = acall(c, NFS(NULL), NULL, NULL);
	ok(r->err == 0, "NFS NULL");
	{
		struct GETATTR3args a = { fh3(&root) };

		r = acall(c, NFS(GETATTR), &a, NULL);
		ok(r->err == 0 && r->status == NFS3_OK && r->attr.type == NF3DIR,
		   "GETATTR of the root: a directory");
	}
	{
		struct CREATE3args a = { .where = { fh3(&root), str("raw.txt") } };

		a.how.mode = GUARDED;

		a.how.u.obj_attributes.mode.set_it = true;
		a.how.u.obj_attributes.mode.u.mode = 0640;
		r = acall(c, NFS(CREATE), &a, NULL);
		ok(r->status == NFS3_OK && r->fh.len && r->has_attr && (r->attr.mode & 07777) == 0640,
		   "CREATE (GUARDED, mode 0640)");
		file = r->fh;
		fileid = r->attr.fileid;
		r = acall(c, NFS(CREATE), &a, NULL);
		ok(r->err == 0 && r->status == NFS3ERR_EXIST, "CREATE GUARDED again: NFS3ERR_EXIST");
	}
	{
		struct LOOKUP3args a = { { fh3(&root), str("raw.txt") } };

		r = acall(c, NFS(LOOKUP), &a, NULL);
		ok(r->status == NFS3_OK && r->fh.len == file.len &&
		   !memcmp(r->fh.data, file.data, file.len) && r->attr.fileid == fileid,
		   "LOOKUP finds the same handle and fileid");
		const struct nfsx_op_stats *st = nfsx_stats_get(c, NFS(LOOKUP));
		uint64_t ops = st ? st->ops : 0, errs = st ? st->errors : 0;

		a.what.name = str("no-such-name");
		r = acall(c, NFS(LOOKUP), &a, NULL);
		ok(r->err == 0 && r->status == NFS3ERR_NOENT, "LOOKUP of a missing name: NOENT");
		st = nfsx_stats_get(c, NFS(LOOKUP));
		ok(st && st->ops == ops + 1 && st->errors == errs + 1,
		   "  counted as a LOOKUP and as an error, as mountstats counts one");
		r = acall(c, NFS(LOOKUP), &(struct LOOKUP3args){ { fh3(&root), str("raw.txt") } }, NULL);
		st = nfsx_stats_get(c, NFS(LOOKUP));
		ok(r->status == NFS3_OK && st && st->errors == errs + 1, "  a LOOKUP that finds: no error");
	}
	{
		static const char text[] = "written through the raw async API\n";
		struct WRITE3args a = { fh3(&file), 0, sizeof(text) - 1, FILE_SYNC,
					{ (const uint8_t *)text, sizeof(text) - 1 } };
		struct READ3args ra = { fh3(&file), 0, 4096 };

		r = acall(c, NFS(WRITE), &a, NULL);
		ok(r->status == NFS3_OK && r->count == sizeof(text) - 1 && r->u32 == FILE_SYNC,
		   "WRITE FILE_SYNC of %zu bytes", sizeof(text) - 1);
		r = acall(c, NFS(READ), &ra, NULL);
		ok(r->status == NFS3_OK && r->eof && r->datalen == sizeof(text) - 1 &&
		   !memcmp(r->data, text, r->datalen), "READ returns them byte for byte, eof");
	}
	{
		struct COMMIT3args a = { fh3(&file), 0, 0 };

		r = acall(c, NFS(COMMIT), &a, NULL);
		ok(r->status == NFS3_OK && r->count == 1, "COMMIT");
	}
	{
		struct SETATTR3args a = { .object = fh3(&file) };

		a.new_attributes.mode.set_it = true;
		a.new_attributes.mode.u.mode = 0600;
		r = acall(c, NFS(SETATTR), &a, NULL);
		ok(r->status == NFS3_OK && r->has_attr && (r->attr.mode & 07777) == 0600,
		   "SETATTR mode 0600");
	}
	{
		struct ACCESS3args a = { fh3(&file), ACCESS3_READ | ACCESS3_MODIFY };

		r = acall(c, NFS(ACCESS), &a, NULL);
		ok(r->status == NFS3_OK && (r->access & ACCESS3_READ) && (r->access & ACCESS3_MODIFY),
		   "ACCESS as root: read and modify");
	}
	{
		struct MKDIR3args a = { .where = { fh3(&root), str("rawdir") } };

		a.attributes.mode.set_it = true;
		a.attributes.mode.u.mode = 0755;
		r = acall(c, NFS(MKDIR), &a, NULL);
		ok(r->status == NFS3_OK && r->fh.len && r->attr.type == NF3DIR, "MKDIR");
		dir = r->fh;
	}
	{
		struct SYMLINK3args a = { .where = { fh3(&dir), str("lnk") },
					  .symlink = { .symlink_data = str("../raw.txt") } };
		struct READLINK3args ra;

		r = acall(c, NFS(SYMLINK), &a, NULL);
		ok(r->status == NFS3_OK && r->fh.len, "SYMLINK");
		lnk = r->fh;
		ra.symlink = fh3(&lnk);
		r = acall(c, NFS(READLINK), &ra, NULL);
		ok(r->status == NFS3_OK && r->datalen == 10 && !memcmp(r->data, "../raw.txt", 10),
		   "READLINK returns the target");
	}
	{
		struct MKNOD3args a = { .where = { fh3(&dir), str("fifo") },
					.what = { .type = NF3FIFO } };

		r = acall(c, NFS(MKNOD), &a, NULL);
		ok(r->status == NFS3_OK && r->attr.type == NF3FIFO, "MKNOD of a FIFO");
		snprintf(path, sizeof(path), "%s/rawdir/fifo", rw);
		{
			struct stat sb;

			ok(lstat(path, &sb) == 0 && S_ISFIFO(sb.st_mode), "it is a FIFO on the server");
		}
	}
	{
		struct LINK3args a = { fh3(&file), { fh3(&dir), str("hard") } };

		r = acall(c, NFS(LINK), &a, NULL);
		ok(r->status == NFS3_OK && r->has_attr && r->attr.nlink == 2, "LINK: nlink 2");
	}
	{
		struct RENAME3args a = { { fh3(&dir), str("hard") }, { fh3(&root), str("hard2") } };

		r = acall(c, NFS(RENAME), &a, NULL);
		ok(r->status == NFS3_OK, "RENAME across directories");
		snprintf(path, sizeof(path), "%s/hard2", rw);
		ok(access(path, F_OK) == 0, "renamed on the server");
	}
	{
		struct READDIR3args a = { fh3(&dir), 0, { { 0 } }, 8192 };
		struct READDIRPLUS3args p = { fh3(&root), 0, { { 0 } }, 8192, 65536 };

		r = acall(c, NFS(READDIR), &a, "lnk");
		ok(r->status == NFS3_OK && r->eof && r->found_name && r->nentries == 4,
		   "READDIR: ., .., lnk, fifo (%u)", r->nentries);
		r = acall(c, NFS(READDIRPLUS), &p, "raw.txt");
		ok(r->status == NFS3_OK && r->found_name && r->has_attr && r->attr.fileid == fileid &&
		   r->fh.len == file.len, "READDIRPLUS: raw.txt with attributes and handle");
	}
	{
		struct REMOVE3args a = { { fh3(&dir), str("lnk") } };
		struct RMDIR3args d = { { fh3(&root), str("rawdir") } };

		r = acall(c, NFS(REMOVE), &a, NULL);
		ok(r->status == NFS3_OK, "REMOVE");
		r = acall(c, NFS(RMDIR), &d, NULL);
		ok(r->err == 0 && r->status == NFS3ERR_NOTEMPTY, "RMDIR of a non-empty dir: NOTEMPTY");
		a.object.name = str("fifo");
		r = acall(c, NFS(REMOVE), &a, NULL);
		r = acall(c, NFS(RMDIR), &d, NULL);
		ok(r->status == NFS3_OK, "RMDIR once empty");
	}
	{
		struct FSSTAT3args a = { fh3(&root) };
		struct FSINFO3args i = { fh3(&root) };
		struct PATHCONF3args p = { fh3(&root) };

		r = acall(c, NFS(FSSTAT), &a, NULL);
		ok(r->status == NFS3_OK && r->u32, "FSSTAT: total bytes > 0");
		r = acall(c, NFS(FSINFO), &i, NULL);
		ok(r->status == NFS3_OK && r->count >= 4096 && r->u32 >= 4096,
		   "FSINFO: rtmax %u, wtmax %u", r->count, r->u32);
		r = acall(c, NFS(PATHCONF), &p, NULL);
		ok(r->status == NFS3_OK && r->u32 == 255, "PATHCONF: name_max 255");
	}
	{
		struct GETATTR3args a = { { { (const uint8_t *)"not a real handle", 17 } } };

		r = acall(c, NFS(GETATTR), &a, NULL);
		ok(r->err == 0 && (r->status == NFS3ERR_BADHANDLE || r->status == NFS3ERR_STALE),
		   "GETATTR of a forged handle: BADHANDLE/STALE (%u)", r->status);
	}
	{
		unsigned i, all = 1;

		for (i = 0; i <= NFSPROC3_COMMIT; i++)
			if (!nfsx_stats_get(c, &nfsx_nfs3_procs[i]) ||
			    nfsx_stats_get(c, &nfsx_nfs3_procs[i])->ops == 0)
				all = 0;
		for (i = 0; i <= MOUNTPROC3_EXPORT; i++)
			if (!nfsx_stats_get(c, &nfsx_mnt3_procs[i]))
				all = 0;
		ok(all, "stats show every NFSv3 and MOUNT procedure called");
	}
	nfsx_ctx_free(c);
}

/* ------------------------------------------------------------------ */
/* The synchronous API                                                 */

static struct nfsx_ctx *mounted(uint32_t uid, struct nfsx_fh *root)
{
	struct nfsx_ctx *c = mk(port, uid, 1);

	if (c && nfsx_mount(c, rw, root) != 0) {
		nfsx_ctx_free(c);
		return NULL;
	}
	return c;
}

static void test_sync_errors(void)
{
	struct nfsx_fh root, fh, fh2;
	struct nfsx_ctx *c = mounted(0, &root), *u;
	struct nfsx_attr a;
	char buf[64];
	uint32_t got;
	bool eof;
	int r;

	ok(c != NULL, "nfsx_mount of %s", rw);
	if (!c)
		return;
	ok(nfsx_getattr(c, &root, &a) == 0 && a.type == NF3DIR, "nfsx_getattr of the root");
	r = nfsx_lookup(c, &root, "absent", &fh, NULL);
	ok(r == NFS3ERR_NOENT, "lookup of a missing name: NFS3ERR_NOENT (%d: %s)", r,
	   nfsx_strerror(r));
	ok(nfsx_mkdir(c, &root, "d1", 0755, &fh) == 0, "mkdir d1");
	r = nfsx_mkdir(c, &root, "d1", 0755, &fh2);
	ok(r == NFS3ERR_EXIST, "mkdir d1 again: NFS3ERR_EXIST (%d)", r);
	ok(nfsx_create(c, &fh, "f", 0644, true, &fh2) == 0, "exclusive create d1/f");
	ok(nfsx_getattr(c, &fh2, &a) == 0 && (a.mode & 07777) == 0644 && a.type == NF3REG,
	   "its mode was set after the exclusive create (0%o)", a.mode & 07777);
	r = nfsx_create(c, &fh, "f", 0644, true, &fh2);
	ok(r == NFS3ERR_EXIST, "exclusive create of an existing file: NFS3ERR_EXIST (%d)", r);
	ok(nfsx_create(c, &fh, "f", 0644, false, &fh2) == 0, "unchecked create of it succeeds");
	r = nfsx_lookup(c, &fh2, "x", &root, NULL);
	ok(r == NFS3ERR_NOTDIR, "lookup under a file: NFS3ERR_NOTDIR (%d)", r);
	r = nfsx_rmdir(c, &root, "d1");
	ok(r == NFS3ERR_NOTEMPTY, "rmdir of a non-empty dir: NFS3ERR_NOTEMPTY (%d)", r);
	ok(nfsx_remove(c, &fh, "f") == 0 && nfsx_rmdir(c, &root, "d1") == 0,
	   "remove d1/f, rmdir d1");
	r = nfsx_remove(c, &root, "d1");
	ok(r == NFS3ERR_NOENT, "remove of what is gone: NFS3ERR_NOENT");
	ok(strstr(nfsx_strerror(NFS3ERR_NOTEMPTY), "NOTEMPTY") &&
	   strstr(nfsx_strerror(-ETIMEDOUT), "timed out"), "nfsx_strerror names both kinds");

	/* A caller with uid 1000 (AUTH_SYS): the server's checks apply. */
	u = mounted(1000, &root);
	ok(u != NULL, "uid 1000 mounts too");
	if (u) {
		ok(nfsx_resolve(u, "secret600", &fh, &a) == 0 && a.uid == 0,
		   "uid 1000 finds root's secret600");
		r = nfsx_read(u, &fh, 0, buf, sizeof(buf), &got, &eof);
		ok(r == NFS3ERR_ACCES, "and may not read it: NFS3ERR_ACCES (%d)", r);
		r = nfsx_create(u, &root, "by1000", 0644, false, &fh);
		ok(r == NFS3ERR_ACCES, "nor create in root's 0755 directory: NFS3ERR_ACCES (%d)", r);
		ok(nfsx_resolve(u, "u1000", &fh, NULL) == 0 &&
		   nfsx_create(u, &fh, "mine", 0600, false, &fh2) == 0 &&
		   nfsx_getattr(c, &fh2, &a) == 0 && a.uid == 1000 && a.gid == 1000,
		   "but creates in its own directory, owned by 1000:1000");
		r = nfsx_resolve(u, "group2000", &fh, NULL);
		ok(r == 0 && nfsx_read(u, &fh, 0, buf, sizeof(buf), &got, &eof) == NFS3ERR_ACCES,
		   "uid 1000 without group 2000 may not read group2000 (root:2000 0640)");
		nfsx_ctx_free(u);
	}
	{
		/* The same uid with 2000 among its AUTH_SYS groups. */
		struct nfsx_opts o;
		char err[256];

		nfsx_opts_init(&o);
		o.host = "127.0.0.1";
		o.port = port;
		o.uid = o.gid = 1000;
		o.ngids = 3;
		o.gids[0] = 1000;
		o.gids[1] = 1999;
		o.gids[2] = 2000;
		u = nfsx_ctx_new(&o, err, sizeof(err));
		ok(u && nfsx_mount(u, rw, &root) == 0 && nfsx_resolve(u, "group2000", &fh, NULL) == 0 &&
		   nfsx_read(u, &fh, 0, buf, sizeof(buf), &got, &eof) == 0 && got == 6 &&
		   !memcmp(buf, "group\n", 6), "with groups {1000, 1999, 2000} it reads it");
		nfsx_ctx_free(u);
	}
	ok(nfsx_umount(c) == 0 && nfsx_umount(c) == -ENOTCONN, "umount, then not mounted");
	nfsx_ctx_free(c);
}

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (uint8_t)(seed >> 16);
	}
}

struct pio {
	int done, err;
	uint32_t status, count;
	const uint8_t *want;     /* READ: the bytes expected */
	void *args;              /* WRITE: its arguments, freed after */
	bool same;
};

static void cb_pio(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct pio *p = priv;

	(void)ctx;
	p->done = 1;
	p->err = err;
	if (err)
		return;
	p->status = *(uint32_t *)res;
	if (p->want) { /* READ: compare where the data lies, in the receive buffer */
		struct READ3resok *ok = &((struct READ3res *)res)->u.resok;

		p->count = ok->data.len;
		p->same = p->status == NFS3_OK && !memcmp(ok->data.data, p->want, ok->data.len);
	} else if (p->status == NFS3_OK) {
		p->count = ((struct WRITE3res *)res)->u.resok.count;
	}
}

static void test_data(void)
{
	enum { CH = 1 << 20, N = 8 };
	struct nfsx_fh root, fh, big;
	struct nfsx_ctx *c = mounted(0, &root);
	static uint8_t out[N * CH], in[CH];
	struct pio w[N], rd[N];
	struct nfsx_attr a;
	uint8_t v1[NFS3_WRITEVERFSIZE], v2[NFS3_WRITEVERFSIZE];
	uint32_t got, written;
	bool eof, all = true, same = true;
	int i, pend;

	if (!c)
		return;
	fill(out, sizeof(out), 42);
	ok(nfsx_create(c, &root, "data.bin", 0644, false, &fh) == 0, "create data.bin");
	/* Eight 1 MiB WRITEs in flight at once, sent from this buffer. */
	memset(w, 0, sizeof(w));
	for (i = 0; i < N; i++) {
		struct WRITE3args *wa = malloc(sizeof(*wa));

		*wa = (struct WRITE3args){ fh3(&fh), (uint64_t)i * CH, CH, UNSTABLE,
					   { out + (size_t)i * CH, CH } };
		nfsx3_write(c, wa, cb_pio, &w[i]);
		/* args must live until the callback: freed below */
		w[i].args = wa;
	}
	for (pend = N; pend;) {
		nfsx_run_once(c, 1000);
		for (pend = 0, i = 0; i < N; i++)
			pend += !w[i].done;
	}
	for (i = 0; i < N; i++) {
		if (w[i].err || w[i].status != NFS3_OK || w[i].count != CH)
			all = false;
		free(w[i].args);
	}
	ok(all, "8 pipelined 1 MiB UNSTABLE WRITEs");
	ok(nfsx_commit(c, &fh, v1) == 0, "COMMIT");
	ok(nfsx_getattr(c, &fh, &a) == 0 && a.size == (uint64_t)N * CH, "size is 8 MiB");
	memset(rd, 0, sizeof(rd));
	for (i = 0; i < N; i++) {
		struct READ3args ra = { fh3(&fh), (uint64_t)i * CH, CH };

		rd[i].want = out + (size_t)i * CH;
		nfsx3_read(c, &ra, cb_pio, &rd[i]); /* READ3args copied when encoded */
	}
	for (pend = N; pend;) {
		nfsx_run_once(c, 1000);
		for (pend = 0, i = 0; i < N; i++)
			pend += !rd[i].done;
	}
	for (i = 0; i < N; i++)
		if (rd[i].err || !rd[i].same || rd[i].count != CH)
			same = false;
	ok(same, "8 pipelined 1 MiB READs return the bytes written, compared in place");
	ok(nfsx_read(c, &fh, 3 * CH + 5, in, 1000, &got, &eof) == 0 && got == 1000 && !eof &&
	   !memcmp(in, out + 3 * CH + 5, 1000), "sync read at an odd offset");
	ok(nfsx_read(c, &fh, (uint64_t)N * CH - 10, in, 100, &got, &eof) == 0 && got == 10 && eof,
	   "short read at the end: 10 bytes and eof");
	/* Large READs, sent from a mapping of the file on a tmpfs export. */
	ok(nfsx_read(c, &fh, 3 * CH + 5, in, 300000, &got, &eof) == 0 && got == 300000 && !eof &&
	   !memcmp(in, out + 3 * CH + 5, 300000), "300000 bytes at an offset off the page grid");
	ok(nfsx_read(c, &fh, (uint64_t)N * CH - 100000, in, CH, &got, &eof) == 0 &&
	   got == 100000 && eof && !memcmp(in, out + (size_t)N * CH - 100000, 100000),
	   "1 MiB asked 100000 bytes before the end: 100000 bytes and eof");
	ok(nfsx_write(c, &fh, 7, "XYZ", 3, FILE_SYNC, &written, v2) == 0 && written == 3,
	   "sync write of 3 bytes");
	ok(nfsx_read(c, &fh, 0, in, 16, &got, &eof) == 0 && !memcmp(in + 7, "XYZ", 3) &&
	   !memcmp(in, out, 7), "read back around them");

	/* Past 4 GiB, sparse. */
	ok(nfsx_create(c, &root, "sparse.bin", 0644, false, &big) == 0, "create sparse.bin");
	ok(nfsx_write(c, &big, (5ull << 30) + 123, "BEYOND-4GIB", 11, FILE_SYNC, &written, NULL) ==
	   0 && written == 11, "write 11 bytes at 5 GiB + 123");
	ok(nfsx_getattr(c, &big, &a) == 0 && a.size == (5ull << 30) + 134,
	   "size 5 GiB + 134 (%llu)", (unsigned long long)a.size);
	ok(nfsx_read(c, &big, (5ull << 30) + 120, in, 64, &got, &eof) == 0 && got == 14 && eof &&
	   !memcmp(in, "\0\0\0BEYOND-4GIB", 14), "read across the data: hole then bytes, eof");
	ok(nfsx_read(c, &big, 1ull << 32, in, 64, &got, &eof) == 0 && got == 64 &&
	   !memcmp(in, (char[64]){ 0 }, 64), "a hole at exactly 4 GiB reads as zeros");
	{
		/* Reading a hole must not fill it (a tmpfs page faulted in
		 * through a mapping would be allocated). */
		char path[4200];
		struct stat s0, s1;
		size_t k, nz = 0;

		snprintf(path, sizeof(path), "%s/sparse.bin", rw);
		memset(in, 0xee, CH);
		ok(stat(path, &s0) == 0 &&
		   nfsx_read(c, &big, 1ull << 30, in, CH, &got, &eof) == 0 && got == CH &&
		   stat(path, &s1) == 0, "1 MiB READ of the hole at 1 GiB");
		for (k = 0; k < CH; k++)
			nz += in[k] != 0;
		ok(nz == 0, "all zeros (%zu bytes not)", nz);
		ok(s1.st_blocks == s0.st_blocks, "the hole stays a hole: %lld blocks before, %lld after",
		   (long long)s0.st_blocks, (long long)s1.st_blocks);
	}
	ok(nfsx_truncate(c, &big, 1ull << 32) == 0 && nfsx_getattr(c, &big, &a) == 0 &&
	   a.size == 1ull << 32, "truncate to 4 GiB");
	{
		/* The same file on the server's side. */
		char path[4200];
		struct stat sb;

		snprintf(path, sizeof(path), "%s/sparse.bin", rw);
		ok(stat(path, &sb) == 0 && sb.st_size == (off_t)(1ull << 32), "server sees 4 GiB");
	}
	nfsx_ctx_free(c);
}

static unsigned seen_mask[3000 / 32 + 1];
static unsigned n_entries, n_attrs, n_dups;

static int count_entry(const struct nfsx_dirent *e, void *priv)
{
	unsigned i;

	(void)priv;
	n_entries++;
	if (e->has_attr && e->fh.len)
		n_attrs++;
	if (sscanf(e->name, "f%05u", &i) == 1 && i < 3000) {
		if (seen_mask[i / 32] & (1u << (i % 32)))
			n_dups++;
		seen_mask[i / 32] |= 1u << (i % 32);
	}
	return 0;
}

static int stop_at_10(const struct nfsx_dirent *e, void *priv)
{
	(void)e;
	return ++*(int *)priv == 10 ? 42 : 0;
}

struct walked {
	char paths[16][64];
	unsigned n;
	bool order_ok;
};

static int walk_fn(const char *rel, const struct nfsx_dirent *e, void *priv)
{
	struct walked *w = priv;

	(void)e;
	if (w->n < 16)
		snprintf(w->paths[w->n], sizeof(w->paths[0]), "%s%s", rel,
			 e->attr.type == NF3DIR ? "/" : "");
	w->n++;
	return 0;
}

static bool walked_has(const struct walked *w, const char *p)
{
	unsigned i;

	for (i = 0; i < w->n && i < 16; i++)
		if (!strcmp(w->paths[i], p))
			return true;
	return false;
}

static void test_paths(void)
{
	struct nfsx_fh root, fh, fh2;
	struct nfsx_ctx *c = mounted(0, &root);
	struct nfsx_attr a;
	struct walked w = { 0 };
	const char *rest = NULL;
	unsigned i, all = 1;
	int r, n = 0;
	char path[4200];

	if (!c)
		return;
	r = nfsx_resolve(c, "many", &fh, &a);
	ok(r == 0 && a.type == NF3DIR, "resolve many/");
	memset(seen_mask, 0, sizeof(seen_mask));
	n_entries = n_attrs = n_dups = 0;
	ok(nfsx_readdir(c, &fh, true, count_entry, NULL) == 0, "READDIRPLUS of 3000 entries");
	for (i = 0; i < 3000; i++)
		if (!(seen_mask[i / 32] & (1u << (i % 32))))
			all = 0;
	ok(n_entries == 3002 && all && !n_dups, "every f00000-f02999 once, plus . and .. (%u)",
	   n_entries);
	ok(n_attrs >= 3000, "with attributes and handles (%u)", n_attrs);
	ok(nfsx_stats_get(c, &nfsx_nfs3_procs[NFSPROC3_READDIRPLUS])->ops > 1,
	   "in several pages (%llu)",
	   (unsigned long long)nfsx_stats_get(c, &nfsx_nfs3_procs[NFSPROC3_READDIRPLUS])->ops);
	memset(seen_mask, 0, sizeof(seen_mask));
	n_entries = n_dups = 0;
	all = 1;
	ok(nfsx_readdir(c, &fh, false, count_entry, NULL) == 0, "READDIR of 3000 entries");
	for (i = 0; i < 3000; i++)
		if (!(seen_mask[i / 32] & (1u << (i % 32))))
			all = 0;
	ok(n_entries == 3002 && all && !n_dups, "all of them again (%u)", n_entries);
	r = nfsx_readdir(c, &fh, false, stop_at_10, &n);
	ok(r == 42 && n == 10, "a callback's non-zero return stops the listing and is returned");

	r = nfsx_resolve(c, "dir/inner.txt", &fh, &a);
	ok(r == 0 && a.type == NF3REG && a.size == 6, "resolve dir/inner.txt");
	ok(nfsx_resolve(c, "./dir//inner.txt", &fh2, NULL) == 0 && fh2.len == fh.len &&
	   !memcmp(fh.data, fh2.data, fh.len), "'.' and '//' are skipped");
	r = nfsx_resolve(c, "dir/inner.txt/x", &fh, NULL);
	ok(r == NFS3ERR_NOTDIR, "resolve through a file: NFS3ERR_NOTDIR (%d)", r);
	r = nfsx_resolve(c, "dir/nothing", &fh, NULL);
	ok(r == NFS3ERR_NOENT, "resolve of a missing path: NFS3ERR_NOENT");

	ok(nfsx_mkdir_p(c, "p/q/r/s", 0750, &fh) == 0, "mkdir -p p/q/r/s");
	snprintf(path, sizeof(path), "%s/p/q/r/s", rw);
	{
		struct stat sb;

		ok(stat(path, &sb) == 0 && S_ISDIR(sb.st_mode) && (sb.st_mode & 07777) == 0750,
		   "exists on the server, mode 0750");
	}
	ok(nfsx_mkdir_p(c, "p/q/r/s", 0750, &fh2) == 0 && fh2.len == fh.len &&
	   !memcmp(fh.data, fh2.data, fh.len), "mkdir -p again: same directory, no error");
	r = nfsx_mkdir_p(c, "dir/inner.txt/sub", 0755, &fh);
	ok(r == NFS3ERR_NOTDIR, "mkdir -p through a file: NFS3ERR_NOTDIR (%d)", r);

	ok(nfsx_mkdir_p(c, "walk/a/b", 0755, &fh) == 0 &&
	   nfsx_create(c, &fh, "leaf", 0644, false, NULL) == 0 &&
	   nfsx_resolve(c, "walk", &fh, NULL) == 0 &&
	   nfsx_create(c, &fh, "top", 0644, false, NULL) == 0 &&
	   nfsx_mkdir(c, &fh, "c", 0755, NULL) == 0, "build walk/{a/b/leaf,top,c/}");
	r = nfsx_walk(c, "walk", walk_fn, &w);
	ok(r == 0 && w.n == 5, "walk visits 5 entries (%u)", w.n);
	ok(walked_has(&w, "a/") && walked_has(&w, "a/b/") && walked_has(&w, "a/b/leaf") &&
	   walked_has(&w, "top") && walked_has(&w, "c/"), "with paths relative to walk/");
	{
		int ia = -1, ib = -1, il = -1;

		for (i = 0; i < w.n && i < 16; i++) {
			if (!strcmp(w.paths[i], "a/"))
				ia = (int)i;
			if (!strcmp(w.paths[i], "a/b/"))
				ib = (int)i;
			if (!strcmp(w.paths[i], "a/b/leaf"))
				il = (int)i;
		}
		ok(ia >= 0 && ia < ib && ib < il, "depth-first: a/ before a/b/ before a/b/leaf");
	}
	r = nfsx_walk(c, "dir/inner.txt", walk_fn, &w);
	ok(r == NFS3ERR_NOTDIR, "walk of a file: NFS3ERR_NOTDIR");

	nfsx_ctx_free(c);
	c = mk(port, 0, 1);
	snprintf(path, sizeof(path), "%s/dir/", rw);
	r = nfsx_mount_path(c, path, &root, &rest);
	ok(r == 0 && rest && !strcmp(rest, "dir/"), "mount_path of export/dir/: rest '%s'",
	   rest ? rest : "(null)");
	ok(nfsx_resolve(c, rest, &fh, &a) == 0 && a.type == NF3DIR, "which resolves to dir/");
	snprintf(path, sizeof(path), "%s", rw);
	r = nfsx_mount_path(c, path, &root, &rest);
	ok(r == 0 && !strcmp(rest, ""), "mount_path of the export itself: rest ''");
	snprintf(path, sizeof(path), "%s/walk/a/b", rw);
	r = nfsx_mount_path(c, path, &root, &rest);
	ok(r == 0 && !strcmp(rest, "walk/a/b") && nfsx_resolve(c, rest, &fh, &a) == 0 &&
	   a.type == NF3DIR, "mount_path of a deeper path: rest '%s'", rest);
	r = nfsx_mount_path(c, "/definitely/not/exported", &root, &rest);
	ok(r == NFSX_MNT3ERR(MNT3ERR_NOENT) && strncmp(nfsx_strerror(r), "MNT3ERR_NOENT", 13) == 0,
	   "mount_path outside every export: MNT3ERR_NOENT (%d: %s)", r, nfsx_strerror(r));
	nfsx_ctx_free(c);
}

/* Server-side sockets on 127.0.0.1:@p in ESTABLISHED state (/proc/net/tcp). */
static int server_conns(uint16_t p)
{
	FILE *f = fopen("/proc/net/tcp", "r");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned lport, st;

		if (sscanf(line, " %*d: %*8X:%X %*8X:%*X %X", &lport, &st) == 2 && lport == p &&
		    st == 1)
			n++;
	}
	fclose(f);
	return n;
}

static void test_nconnect(void)
{
	struct nfsx_fh root;
	struct nfsx_ctx *m = mounted(0, &root), *c;
	static struct pio r[400];
	struct GETATTR3args ga;
	int before, during, i, pend;
	unsigned j, used = 0;
	uint64_t min = UINT64_MAX;

	if (!m)
		return;
	ga.object = fh3(&root);
	before = server_conns(port);
	c = mk(port, 0, 4);
	memset(r, 0, sizeof(r));
	for (i = 0; i < 400; i++)
		nfsx3_getattr(c, &ga, cb_pio, &r[i]);
	for (pend = 400; pend;) {
		nfsx_run_once(c, 1000);
		for (pend = 0, i = 0; i < 400; i++)
			pend += !r[i].done;
	}
	during = server_conns(port);
	for (pend = 0, i = 0; i < 400; i++)
		pend += r[i].err || r[i].status != NFS3_OK;
	ok(pend == 0, "nconnect=4: 400 GETATTRs succeed");
	ok(during - before == 4, "the server has 4 more connections (%d -> %d)", before, during);
	for (j = 0; j < 4; j++) {
		uint64_t n = c->chan[NC_CH_NFS].conns[j].ncalls;

		used += n > 0;
		if (n < min)
			min = n;
	}
	ok(used == 4 && min >= 50, "calls spread across them (fewest on one: %llu)",
	   (unsigned long long)min);
	nfsx_ctx_free(c);
	nfsx_ctx_free(m);
}

static void test_rpcbind_and_secure(void)
{
	struct nfsx_opts o;
	struct nfsx_ctx *c;
	struct nfsx_fh root;
	struct nfsx_attr a;
	char err[256];
	int r;

	nfsx_opts_init(&o);
	o.host = "127.0.0.1";
	o.rpcbind_port = rpcb_port;
	c = nfsx_ctx_new(&o, err, sizeof(err));
	r = c ? nfsx_mount(c, rw, &root) : -1;
	ok(r == 0 && nfsx_getattr(c, &root, &a) == 0 && a.type == NF3DIR,
	   "no ports given: MOUNT and NFS found through nfsxd's rpcbind (%d)", r);
	ok(c && c->chan[NC_CH_NFS].port == rpcb_nfs_port &&
	   c->chan[NC_CH_MOUNT].port == rpcb_nfs_port, "at port %u", rpcb_nfs_port);
	nfsx_ctx_free(c);

	c = mk(port, 0, 1);
	r = nfsx_mount(c, secure, &root);
	ok(r == NFSX_MNT3ERR(MNT3ERR_ACCES) && strncmp(nfsx_strerror(r), "MNT3ERR_ACCES", 13) == 0,
	   "secure export from port >= 1024: MNT3ERR_ACCES (%d: %s)", r, nfsx_strerror(r));
	nfsx_ctx_free(c);
	nfsx_opts_init(&o);
	o.host = "127.0.0.1";
	o.port = port;
	o.privileged_port = true;
	c = nfsx_ctx_new(&o, err, sizeof(err));
	r = nfsx_mount(c, secure, &root);
	ok(r == 0 && nfsx_getattr(c, &root, &a) == 0, "from a reserved port: mounted (%d)", r);
	nfsx_ctx_free(c);
}

static pid_t spawn_nfsxd(void)
{
	char portarg[16], exp[4200], state[4200], log[4200];
	pid_t pid;

	snprintf(portarg, sizeof(portarg), "%u", restart_port);
	snprintf(exp, sizeof(exp), "%s:rw,no_root_squash,insecure", rw);
	snprintf(state, sizeof(state), "%s/restart.state", work);
	snprintf(log, sizeof(log), "%s/restart.log", work);
	pid = fork();
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execl(nfsxd, nfsxd, "--foreground", "--no-rpcbind", "--bind", "127.0.0.1", "--port",
		      portarg, "--state-dir", state, "--log-level", "warn", "--export", exp,
		      (char *)NULL);
		_exit(127);
	}
	return pid;
}

static bool stop_nfsxd(pid_t pid)
{
	int st;

	kill(pid, SIGTERM);
	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void test_restart(void)
{
	pid_t pid = spawn_nfsxd();
	struct nfsx_ctx *c = NULL;
	struct nfsx_fh root;
	struct GETATTR3args ga;
	struct pio r = { 0 };
	int i, rr = -1;
	uint64_t t0;

	for (i = 0; i < 100; i++) {
		usleep(50000);
		c = mk(restart_port, 0, 1);
		rr = nfsx_mount(c, rw, &root);
		if (rr == 0)
			break;
		nfsx_ctx_free(c);
		c = NULL;
	}
	ok(c != NULL, "nfsxd started on port %u and mounted (%d)", restart_port, rr);
	if (!c) {
		stop_nfsxd(pid);
		return;
	}
	ga.object = fh3(&root);
	ok(nfsx_getattr(c, &root, NULL) == 0, "GETATTR before the restart");
	ok(stop_nfsxd(pid), "nfsxd stopped (SIGTERM, exit 0)");
	nfsx3_getattr(c, &ga, cb_pio, &r);
	for (i = 0; i < 30; i++)
		nfsx_run_once(c, 10);
	ok(!r.done, "a GETATTR waits while nfsxd is down");
	pid = spawn_nfsxd();
	/* Bounded in time, not in turns (a turn may end early): the client
	 * backs off 0.1, 0.2, 0.4 ... 6.4 s between attempts, and nfsxd may
	 * start slowly on a busy machine. */
	t0 = nc_now();
	while (!r.done && nc_now() - t0 < 30000000000ull)
		nfsx_run_once(c, 10);
	ok(r.done && r.err == 0 && r.status == NFS3_OK,
	   "and completes after nfsxd restarts on the same port (handles survive): "
	   "done %d, err %d, status %u after %llu ms", r.done, r.err, r.status,
	   (unsigned long long)((nc_now() - t0) / 1000000));
	ok(c->chan[NC_CH_NFS].conns[0].nconnects == 2, "over a second connection (%llu)",
	   (unsigned long long)c->chan[NC_CH_NFS].conns[0].nconnects);
	ok(nfsx_getattr(c, &root, NULL) == 0, "later calls work");
	nfsx_ctx_free(c);
	ok(stop_nfsxd(pid), "nfsxd stopped again");
}

struct thr {
	int failures;
};

static void *thread_main(void *arg)
{
	struct thr *t = arg;
	struct nfsx_fh root, fh;
	struct nfsx_ctx *c = mounted(0, &root);
	static __thread struct pio r[200];
	struct GETATTR3args ga;
	int i, pend;

	if (!c) {
		t->failures = 1000;
		return NULL;
	}
	ga.object = fh3(&root);
	for (i = 0; i < 200; i++)
		nfsx3_getattr(c, &ga, cb_pio, &r[i]);
	for (pend = 200; pend;) {
		nfsx_run_once(c, 1000);
		for (pend = 0, i = 0; i < 200; i++)
			pend += !r[i].done;
	}
	for (i = 0; i < 200; i++)
		t->failures += r[i].err != 0 || r[i].status != NFS3_OK;
	for (i = 0; i < 50; i++)
		t->failures += nfsx_resolve(c, "dir/inner.txt", &fh, NULL) != 0;
	nfsx_ctx_free(c);
	return NULL;
}

static void test_threads(void)
{
	pthread_t th[4];
	struct thr t[4] = { { 0 } };
	int i, fails = 0;

	for (i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, thread_main, &t[i]);
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		fails += t[i].failures;
	}
	ok(fails == 0, "4 threads, a context each: 800 async and 200 sync calls succeed (%d failed)",
	   fails);
}

int main(int argc, char **argv)
{
	if (argc != 8) {
		fprintf(stderr,
			"usage: %s NFSXD PORT RPCB_PORT RPCB_NFS_PORT RESTART_PORT BASE WORK\n",
			argv[0]);
		return 2;
	}
	nfsxd = argv[1];
	port = (uint16_t)atoi(argv[2]);
	rpcb_port = (uint16_t)atoi(argv[3]);
	rpcb_nfs_port = (uint16_t)atoi(argv[4]);
	restart_port = (uint16_t)atoi(argv[5]);
	base = argv[6];
	work = argv[7];
	snprintf(rw, sizeof(rw), "%s/rw", base);
	snprintf(secure, sizeof(secure), "%s/secure", base);
	signal(SIGPIPE, SIG_IGN);

	test_raw();
	test_sync_errors();
	test_data();
	test_paths();
	test_nconnect();
	test_rpcbind_and_secure();
	test_restart();
	test_threads();
	return tap_done();
}
