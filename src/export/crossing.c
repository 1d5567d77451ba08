/* SPDX-License-Identifier: MIT */
/*
 * Mount points inside exports that clients may cross: the file systems
 * mounted below an export whose client rule says `crossmnt`, and child
 * exports whose rule says `nohide`, as in Linux's nfsd.
 *
 * Every export is served from a private view of its own mount, which
 * holds none of the mounts below it (vfs.h), so a mount point shows the
 * directory it covers unless this file substitutes the mounted file
 * system. When a snapshot of the exports is built, the mounts below each
 * export are read from /proc/self/mountinfo and each one a client could
 * cross becomes a "crossing":
 * - the mount point is a child export's path: that export (its own
 *   rules, id and handles), crossed when the parent's rule for the
 *   client says crossmnt or the child's says nohide;
 * - else, under an export with a crossmnt rule: an implicit child with
 *   the parent's rules and a handle id of its own (derived from the
 *   parent's id and the mount's path, so handles survive restarts), its
 *   own view of the mounted file system, and an fsid of its own.
 * A crossing is keyed by the covered directory (device, inode) as seen
 * in the enclosing view, so LOOKUP recognises it from the stat it needs
 * anyway. ".." from a crossing's root goes back to the mount point's
 * parent, in the enclosing export, when the client may cross there;
 * otherwise it stays at the root. Mounts made after the snapshot are
 * crossed from the next reload (SIGHUP) on.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "export/export.h"
#include "util/log.h"

/* Mount points below exports that are crossed, per snapshot at most. */
#define CROSSINGS_MAX 1024

/* Undo mountinfo's octal escapes (\040 and the like) in place. */
static void unescape(char *s)
{
	char *o = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 4;
		} else {
			*o++ = *s++;
		}
	}
	*o = 0;
}

/* Is @path strictly below directory @dir (both canonical)? */
static bool below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return path[0] == '/' && path[1] != 0;
	return strncmp(path, dir, n) == 0 && path[n] == '/' && path[n + 1] != 0;
}

/* The mount points of this mount namespace, in mount order (a later
 * mount on the same path covers the earlier one). */
static char **mount_points(unsigned int *n)
{
	char line[8192], **v = NULL;
	unsigned int cap = 0;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	*n = 0;
	while (f && fgets(line, sizeof(line), f)) {
		char *save = NULL, *tok = strtok_r(line, " ", &save);
		int field;

		for (field = 0; tok && field < 4; field++)
			tok = strtok_r(NULL, " ", &save);
		if (!tok)
			continue;
		unescape(tok);
		if (*n == cap) {
			char **nv = realloc(v, (cap ? cap * 2 : 64) * sizeof(*v));

			if (!nv)
				break;
			v = nv;
			cap = cap ? cap * 2 : 64;
		}
		if (!(v[*n] = strdup(tok)))
			break;
		(*n)++;
	}
	if (f)
		fclose(f);
	return v;
}

/* 32-bit FNV-1a of @id's bytes then @rel: an implicit child's id. */
static uint32_t kid_id(uint32_t id, const char *rel)
{
	uint32_t h = 2166136261u;
	int i;

	for (i = 0; i < 4; i++) {
		h ^= (id >> (8 * i)) & 0xffu;
		h *= 16777619u;
	}
	for (; *rel; rel++) {
		h ^= (uint8_t)*rel;
		h *= 16777619u;
	}
	return 0x80000000u | (h & 0x7fffffffu);
}

static bool any_rule(const struct nfsx_export *e, bool crossmnt)
{
	unsigned int i;

	for (i = 0; i < e->nclients; i++)
		if (crossmnt ? e->clients[i].opts.crossmnt : e->clients[i].opts.nohide)
			return true;
	return false;
}

static bool id_taken(const struct export_snap *x, uint32_t id)
{
	unsigned int i;

	if (exports_find_id(x->set, id))
		return true;
	for (i = 0; i < x->ncross; i++)
		if (x->cross[i].id == id)
			return true;
	return false;
}

/*
 * Add the crossing at mount point @mp (canonical) if a client could
 * cross it: @e is the nearest export above it, @mps/@n every mount point.
 */
static void add(struct export_snap *x, const struct nfsx_export *e, const char *mp,
		char **mps, unsigned int n)
{
	const struct nfsx_export *child = exports_find_path(x->set, mp);
	struct export_crossing *c = &x->cross[x->ncross], *encl = NULL;
	struct vfs_export *ev = export_root_of(x, e);
	const struct nfsx_export *eexp = e;
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	struct stat st;
	const char *rel;
	unsigned int i;
	int r;

	if (x->ncross == x->cap)
		return;
	/* The enclosing view: the deepest crossing above @mp, else @e. */
	for (i = 0; i < x->ncross; i++)
		if (below(mp, x->cross[i].path) &&
		    (!encl || strlen(x->cross[i].path) > strlen(encl->path)))
			encl = &x->cross[i];
	if (encl) {
		ev = encl->root;
		eexp = encl->exp;
	}
	/* A mount between that view and @mp that is not crossed hides @mp:
	 * the view shows what that mount covers. */
	for (i = 0; i < n; i++)
		if (below(mp, mps[i]) && below(mps[i], encl ? encl->path : ev->canon))
			return;
	/* A child export is crossed by its own rules; any other mount only
	 * under a crossmnt rule of the export it is in. */
	if (!child && !any_rule(eexp, true))
		return;
	if (child && !any_rule(eexp, true) && !any_rule(child, false))
		return;
	memset(c, 0, sizeof(*c));
	c->covered_fd = -1;
	c->path = strdup(mp);
	if (!c->path)
		return;
	rel = mp + strlen(ev->canon) + (strcmp(ev->canon, "/") ? 1 : 0);
	/* The covered directory, in the enclosing view: not there (a mount
	 * below another that is not crossed) means unreachable. */
	c->covered_fd = (int)syscall(SYS_openat2, ev->root_fd, rel, &how, sizeof(how));
	if (c->covered_fd < 0 || fstat(c->covered_fd, &st) < 0)
		goto skip;
	c->cov_dev = st.st_dev;
	c->cov_ino = st.st_ino;
	c->encl = ev;
	c->encl_exp = eexp;
	if (child) {
		c->exp = child;
		c->id = child->id;
		c->root = export_root_of(x, child);
	} else {
		c->exp = eexp;
		c->id = kid_id(eexp->id, rel);
		if (id_taken(x, c->id)) {
			log_warn("export %s: mount %s not crossed: its handle id collides", e->path, mp);
			goto skip;
		}
		c->own = calloc(1, sizeof(*c->own));
		if (!c->own)
			goto skip;
		r = vfs_export_open(c->own, c->id, mp);
		if (r < 0) {
			log_warn("export %s: mount %s not crossed: %s", e->path, mp, strerror(-r));
			free(c->own);
			c->own = NULL;
			goto skip;
		}
		/* An fsid of its own: another file system, or at least another
		 * tree of the same one (a bind mount). */
		c->own->fsid_fixed = true;
		c->own->fsid = 1ull << 63 | (uint64_t)c->id << 16 | (c->own->root_dev & 0xffffu);
		c->root = c->own;
	}
	x->ncross++;
	return;
skip:
	if (c->covered_fd >= 0)
		close(c->covered_fd);
	c->covered_fd = -1;
	free(c->path);
	c->path = NULL;
}

void export_crossings_build(struct export_snap *x)
{
	const struct nfsx_export *e = NULL;
	unsigned int n, i, j;
	char **mps;

	x->ncross = x->cap = 0;
	x->cross = NULL;
	if (!vfs_privileged())
		return;   /* no views: mount points are refused (vfs.h) */
	mps = mount_points(&n);
	/* Shallowest first, so that an enclosing crossing exists before the
	 * mounts below it; for one path the last mount (the visible one). */
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (strlen(mps[j]) < strlen(mps[i])) {
				char *t = mps[i];

				mps[i] = mps[j];
				mps[j] = t;
			}
	x->cap = n < CROSSINGS_MAX ? n : CROSSINGS_MAX;
	x->cross = x->cap ? calloc(x->cap, sizeof(*x->cross)) : NULL;
	for (i = 0; x->cross && i < n; i++) {
		const struct nfsx_export *near = NULL;
		bool dup = false;

		for (j = i + 1; j < n; j++)
			dup |= strcmp(mps[i], mps[j]) == 0;
		/* The nearest export above: its view holds the mount point. */
		e = NULL;
		while ((e = exports_next(x->set, e)))
			if (below(mps[i], export_root_of(x, e)->canon) &&
			    (!near || strlen(export_root_of(x, e)->canon) >
					      strlen(export_root_of(x, near)->canon)))
				near = e;
		if (near && !dup)
			add(x, near, mps[i], mps, n);
	}
	for (i = 0; i < n; i++)
		free(mps[i]);
	free(mps);
}

void export_crossings_free(struct export_snap *x)
{
	unsigned int i;

	for (i = 0; i < x->ncross; i++) {
		struct export_crossing *c = &x->cross[i];

		if (c->covered_fd >= 0)
			close(c->covered_fd);
		if (c->own) {
			vfs_export_close(c->own);
			free(c->own);
		}
		free(c->path);
	}
	free(x->cross);
	x->cross = NULL;
	x->ncross = 0;
}

const struct export_crossing *export_crossing_by_id(const struct export_snap *x, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < x->ncross; i++)
		if (x->cross[i].own && x->cross[i].id == id)
			return &x->cross[i];
	return NULL;
}

/* The crossing whose mount point covers (@dev, @ino) in view @v. */
static const struct export_crossing *at_point(const struct export_snap *x,
					    const struct vfs_export *v, dev_t dev, ino_t ino)
{
	unsigned int i;

	for (i = 0; i < x->ncross; i++)
		if (x->cross[i].encl == v && x->cross[i].cov_dev == dev &&
		    x->cross[i].cov_ino == ino)
			return &x->cross[i];
	return NULL;
}

bool export_crossing_point(const struct export_obj *at, const struct stat *st)
{
	return at->snap && S_ISDIR(st->st_mode) &&
	       at_point(at->snap, at->vexp, st->st_dev, st->st_ino) != NULL;
}

/*
 * May the caller cross @c from its enclosing export? Fills @to with the
 * place on the far side. -EWOULDBLOCK: a host name rule to check, not on
 * an event loop.
 */
static int may_cross(struct rpc_req *req, const struct export_crossing *c,
		     const struct nfsx_export_client *encl_rule, struct export_obj *to)
{
	const struct nfsx_export_client *cr = encl_rule;

	if (c->exp != c->encl_exp) {   /* a child export: its own rules */
		if (req->on_loop && exports_match_needs_name(c->exp, req->peer))
			return -EWOULDBLOCK;
		cr = export_match(req, c->exp);
		if (!cr || !exports_port_ok(cr, req->peer))
			return -EACCES;
		if (!encl_rule->opts.crossmnt && !cr->opts.nohide)
			return -EACCES;
	} else if (!encl_rule->opts.crossmnt) {
		return -EACCES;
	}
	to->exp = c->exp;
	to->client = cr;
	to->vexp = c->root;
	return 0;
}

/* Mount points are the POSIX backend's: crossing them works on its
 * descriptors (at->obj.fd). Returns a descriptor or -errno. */
static int lookup_fd(struct rpc_req *req, const struct export_obj *at, const uint8_t *name,
		     uint32_t len, struct export_obj *to)
{
	const struct export_snap *x = at->snap;
	const struct export_crossing *c;
	struct stat st;
	int fd, r;

	*to = *at;
	if (!x || x->ncross == 0)
		return vfs_lookup(at->vexp, at->obj.fd, name, len);
	if (len == 2 && memcmp(name, "..", 2) == 0 && vfs_is_root(at->vexp, at->obj.fd)) {
		unsigned int i;

		/* The root of a crossing: back to the mount point's parent,
		 * if the client may cross there. */
		for (i = 0, c = NULL; i < x->ncross && !c; i++)
			if (x->cross[i].root == at->vexp)
				c = &x->cross[i];
		if (c) {
			const struct nfsx_export_client *er;
			struct export_obj far;

			if (req->on_loop && exports_match_needs_name(c->encl_exp, req->peer))
				return -EWOULDBLOCK;
			er = export_match(req, c->encl_exp);
			if (er && exports_port_ok(er, req->peer) &&
			    may_cross(req, c, er, &far) == 0) {
				fd = openat(c->covered_fd, "..", O_PATH | O_NOFOLLOW | O_CLOEXEC);
				if (fd < 0)
					return -errno;
				to->exp = c->encl_exp;
				to->client = er;
				to->vexp = c->encl;
				return fd;
			}
		}
		return vfs_lookup(at->vexp, at->obj.fd, name, len);
	}
	fd = vfs_lookup(at->vexp, at->obj.fd, name, len);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode))
		return fd;
	c = at_point(x, at->vexp, st.st_dev, st.st_ino);
	if (!c)
		return fd;
	r = may_cross(req, c, at->client, to);
	if (r == -EWOULDBLOCK) {
		close(fd);
		return r;
	}
	if (r < 0) {
		*to = *at;
		return fd;   /* not for this client: the covered directory */
	}
	close(fd);
	fd = fcntl(c->root->root_fd, F_DUPFD_CLOEXEC, 0);
	return fd < 0 ? -errno : fd;
}

int export_lookup_in(struct rpc_req *req, const struct export_obj *at, const uint8_t *name,
		   uint32_t len, struct export_obj *to, struct vfs_obj *out)
{
	int fd = lookup_fd(req, at, name, len, to);

	*out = VFS_OBJ_NONE;
	if (fd < 0)
		return fd;
	out->fd = fd;
	return 0;
}
