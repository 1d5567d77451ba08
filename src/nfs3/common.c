/* SPDX-License-Identifier: MIT */
/* Shared NFSv3/MOUNT helpers: see nfs3.h. */
#include "nfs3/nfs3.h"
#include "rpc/workers.h"
#include "util/log.h"
#include "vfs/hmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <sodium.h>

struct nfs3_state *nfs3;

/* ---- the exports in use: snapshots, swapped on reload ---------------
 *
 * Taking the snapshot in use is one atomic read-modify-write, with no
 * window in which a reload could free it between reading the pointer
 * and counting the hold (a split reference count):
 * - Live snapshots sit in slots[]. `current` packs the slot of the one
 *   in use (low 8 bits) with the number of holds taken on it since it
 *   was published (the upper 56 bits), so nfs3_exports_get() adding
 *   1 << 8 learns in the same instruction which snapshot it now holds.
 * - A hold is given back by decrementing the snapshot's own `released`
 *   (negative until the snapshot is retired: minus the releases).
 * - A reload exchanges `current` for the new slot (no holds yet) and
 *   adds the holds the old snapshot got to its `released`, which then
 *   counts the holds still out; whoever brings it to 0 (the reload when
 *   no call holds it, else the last call to let it go) frees it and its
 *   slot. Before retirement no release can bring it to 0 (one release
 *   leaves -1). 2^56 holds do not wrap.
 * At most SNAP_SLOTS snapshots live at once: a reload that finds no
 * free slot (old sets pinned by calls that do not end) fails and keeps
 * the exports in use. Nested holds on one thread reuse the thread's
 * snapshot (held, below), so the two handles of RENAME or LINK are
 * looked up in the same set.
 */
#define SNAP_SLOTS 64
#define SNAP_SLOT_MASK 0xffu
#define SNAP_HOLD (1u << 8)

static _Atomic(struct nfs3_exports *) slots[SNAP_SLOTS];
static _Atomic uint64_t current;
static bool published;          /* main thread only */

static _Thread_local struct {
	struct nfs3_exports *x;
	unsigned int depth;
} held;

static nfs3_peer_name_fn *peer_name_fn;

static void root_put(struct nfs3_root *r)
{
	if (r && atomic_fetch_sub_explicit(&r->refs, 1, memory_order_acq_rel) == 1) {
		vfs_export_close(&r->v);
		free(r);
	}
}

/* Free a snapshot no call holds any more (on whichever thread let it go). */
static void snap_free(struct nfs3_exports *x)
{
	unsigned int i, slot = x->slot;

	nfs3_crossings_free(x);
	for (i = 0; i < x->n; i++)
		root_put(x->roots[i]);
	free(x->roots);
	exports_free(x->set);
	free(x);
	atomic_store_explicit(&slots[slot], NULL, memory_order_release);
}

const struct nfs3_exports *nfs3_exports_get(void)
{
	uint64_t w;

	if (held.depth++)
		return held.x;
	w = atomic_fetch_add_explicit(&current, SNAP_HOLD, memory_order_acquire);
	held.x = atomic_load_explicit(&slots[w & SNAP_SLOT_MASK],
				      memory_order_acquire);
	return held.x;
}

static void snap_release(struct nfs3_exports *x)
{
	if (atomic_fetch_sub_explicit(&x->released, 1, memory_order_acq_rel) == 1)
		snap_free(x);
}

void nfs3_exports_put(const struct nfs3_exports *cx)
{
	struct nfs3_exports *x = held.x;

	(void)cx; /* the thread's snapshot: nested holds share it */
	if (!x || --held.depth)
		return;
	held.x = NULL;
	snap_release(x);
}

bool nfs3_obj_detach(struct nfs3_obj *o)
{
	if (!o->node || o->detached || held.depth != 1 || held.x != o->snap)
		return false;
	held.x = NULL;
	held.depth = 0;
	o->detached = true;
	return true;
}

/* Swap @x in (NULL: none, at the end); the old snapshot is retired. */
static void publish(struct nfs3_exports *x)
{
	struct nfs3_exports *old;
	int_least64_t holds;
	uint64_t w;

	if (x)
		atomic_store_explicit(&slots[x->slot], x, memory_order_release);
	w = atomic_exchange_explicit(&current, x ? x->slot : 0,
				     memory_order_acq_rel);
	if (!published) {
		published = x != NULL;
		return;
	}
	published = x != NULL;
	old = atomic_load_explicit(&slots[w & SNAP_SLOT_MASK], memory_order_acquire);
	holds = (int_least64_t)(w >> 8);
	if (atomic_fetch_add_explicit(&old->released, holds,
				      memory_order_acq_rel) == -holds)
		snap_free(old);
}

/* The snapshot in use, seen from the main thread (the only publisher). */
static struct nfs3_exports *in_use(void)
{
	if (!published)
		return NULL;
	return atomic_load_explicit(&slots[atomic_load(&current) & SNAP_SLOT_MASK],
				    memory_order_acquire);
}

static int free_slot(const struct nfs3_exports *cur)
{
	int i;

	for (i = 0; i < SNAP_SLOTS; i++)
		if (!atomic_load_explicit(&slots[i], memory_order_acquire) &&
		    (!cur || cur->slot != (unsigned int)i))
			return i;
	return -1;
}

/* Is @path still the directory @r opened? */
static bool same_dir(const struct nfs3_root *r, const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
	       st.st_dev == r->v.root_dev && st.st_ino == r->v.root_ino;
}

int nfs3_exports_replace(struct nfsx_exports *ex, struct nfs3_reload_stats *st,
			 char *err, size_t errlen)
{
	struct nfs3_exports *old = in_use(), *x;
	const struct nfsx_export *e = NULL;
	unsigned int i, n = exports_count(ex), ngone = 0;
	int slot = free_slot(old);
	uint32_t *gone;

	memset(st, 0, sizeof(*st));
	if (slot < 0) {
		snprintf(err, errlen,
			 "%d sets of exports are still in use by calls in progress; try again later",
			 SNAP_SLOTS - 1);
		exports_free(ex);
		return -1;
	}
	x = calloc(1, sizeof(*x));
	if (x)
		x->roots = calloc(n ? n : 1, sizeof(*x->roots));
	if (!x || !x->roots) {
		snprintf(err, errlen, "out of memory");
		free(x);
		exports_free(ex);
		return -1;
	}
	x->set = ex;
	x->slot = (unsigned int)slot;
	while ((e = exports_next(ex, e))) {
		const struct nfsx_export *oe = old ? exports_find_path(old->set, e->path) : NULL;
		struct nfs3_root *r = oe ? old->roots[oe->index] : NULL;
		int rc;

		if (r && oe->id == e->id && same_dir(r, e->path)) {
			atomic_fetch_add_explicit(&r->refs, 1, memory_order_relaxed);
			x->roots[x->n++] = r;
			continue;
		}
		r = calloc(1, sizeof(*r));
		if (!r) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		rc = vfs_export_open(&r->v, e->id, e->path);
		if (rc < 0) {
			snprintf(err, errlen, "export %s: %s", e->path, strerror(-rc));
			free(r);
			goto fail;
		}
		if (r->v.view_err)
			log_warn("export %s: no private view of its mount (open_tree: %s): "
				 "mount points under it are refused rather than shown as "
				 "the directories they cover, and a directory moved out of "
				 "it keeps \"..\" to its new parent",
				 e->path, strerror(r->v.view_err));
		atomic_init(&r->refs, 1);
		x->roots[x->n++] = r;
		if (oe)
			st->reopened++;
		else
			st->added++;
	}
	e = NULL;
	while (old && (e = exports_next(old->set, e)))
		if (!exports_find_path(ex, e->path))
			st->removed++;
	st->exports = n;
	/* Cached objects of a removed or reopened export go (nodes are
	 * keyed by export id; a reopened root may be another directory).
	 * Listed now: publishing may free the old set. */
	gone = old ? calloc(exports_count(old->set) + old->ncross + 1, sizeof(*gone)) : NULL;
	e = NULL;
	while (gone && (e = exports_next(old->set, e))) {
		const struct nfsx_export *ne = exports_find_path(ex, e->path);

		if (!ne || x->roots[ne->index] != old->roots[e->index])
			gone[ngone++] = e->id;
	}
	/* Mounts crossed under crossmnt get views of their own each time. */
	for (i = 0; gone && i < old->ncross; i++)
		if (old->cross[i].own)
			gone[ngone++] = old->cross[i].id;
	nfs3_crossings_build(x);
	atomic_init(&x->released, 0);
	publish(x);
	for (i = 0; i < ngone; i++)
		vfs_nodes_forget_export(gone[i]);
	free(gone);
	if (old)
		mount3_prune(ex);
	return 0;
fail:
	for (i = 0; i < x->n; i++)
		root_put(x->roots[i]);
	free(x->roots);
	free(x);
	exports_free(ex);
	return -1;
}

int nfs3_init(struct nfsx_exports *ex, const char *state_dir, char *err,
	      size_t errlen)
{
	struct nfs3_state *s = calloc(1, sizeof(*s));
	struct nfs3_reload_stats st;

	if (!s || !vfs_nodes_init(0)) {
		snprintf(err, errlen, "out of memory");
		free(s);
		exports_free(ex);
		return -1;
	}
	if (fh_key_load(state_dir, s->key, err, errlen) < 0) {
		free(s);
		exports_free(ex);
		return -1;
	}
	/* Not root: no open_by_handle_at, no identity switches (vfs.h). */
	if (geteuid() != 0) {
		vfs_set_unprivileged();
		if (vfs_hmap_open(state_dir, err, errlen) < 0) {
			free(s);
			exports_free(ex);
			return -1;
		}
		log_warn("not running as root: every client acts as uid %u gid %u "
			 "(all_squash), handles are kept in %s/handles.map",
			 (unsigned int)geteuid(), (unsigned int)getegid(), state_dir);
	}
	if (nfs3_exports_replace(ex, &st, err, errlen) < 0) {
		free(s);
		return -1;
	}
	/* A new write verifier at every start, so clients resend
	 * unstable writes a crash may have lost. */
	randombytes_buf(s->write_verf, sizeof(s->write_verf));
	nfs3 = s;
	return 0;
}

void nfs3_fini(void)
{
	if (!nfs3)
		return;
	vfs_nodes_fini();
	publish(NULL);
	vfs_hmap_close();
	free(nfs3);
	nfs3 = NULL;
}

void nfs3_set_peer_name_fn(nfs3_peer_name_fn *fn)
{
	peer_name_fn = fn;
}

const struct nfsx_export_client *nfs3_match(struct rpc_req *req,
					    const struct nfsx_export *e)
{
	char name[256];
	const char *known = NULL;

	if (peer_name_fn && exports_match_needs_name(e, req->peer)) {
		if (peer_name_fn(req, name, sizeof(name)))
			known = name;
		else if (req->workers && rpc_workers_parked(req))
			/* Waiting for the name: no rule applies yet. Matching
			 * without it would pick a later rule and let the
			 * handler act under it; refused now, the call runs
			 * again once the name is known. */
			return NULL;
	}
	return exports_match(e, req->peer, known);
}

void nfs3_cred(const struct rpc_req *req, const struct nfsx_export_client *c,
	       struct vfs_cred *out)
{
	const struct rpc_cred *rc = &req->call.cred;
	uint32_t i;

	if (!vfs_privileged()) {
		/* Unprivileged: the server's own identity is the only one. */
		out->uid = (uint32_t)geteuid();
		out->gid = (uint32_t)getegid();
		out->ngids = 0;
		return;
	}
	if (rc->flavor == RPC_AUTH_SYS) {
		out->uid = rc->uid;
		out->gid = rc->gid;
		out->ngids = rc->ngids;
		for (i = 0; i < rc->ngids; i++)
			out->gids[i] = rc->gids[i];
	} else {
		/* AUTH_NONE: the anonymous identity of the export. */
		out->uid = c->opts.anonuid;
		out->gid = c->opts.anongid;
		out->ngids = 0;
		return;
	}
	exports_squash(c, &out->uid, &out->gid, out->gids, &out->ngids);
}

static enum nfsstat3 resolve(struct rpc_req *req, const struct nfs_fh3 *fh,
			     struct nfs3_obj *o, bool mem_only)
{
	const struct nfs3_exports *x;
	bool implicit = false;
	struct fh_parts p;
	enum nfsstat3 st;
	int r;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	if (!fh_decode(nfs3->key, fh->data.data, fh->data.len, &p))
		return NFS3ERR_BADHANDLE;
	/* Held from here while o->node is, until nfs3_release(). */
	x = nfs3_exports_get();
	o->snap = x;
	o->exp = exports_find_id(x->set, p.export_id);
	if (o->exp) {
		o->vexp = nfs3_root_of(x, o->exp);
	} else {
		/* A file system mounted under a crossmnt export. */
		const struct nfs3_crossing *c = nfs3_crossing_by_id(x, p.export_id);

		if (!c) {
			st = NFS3ERR_STALE;
			goto fail;
		}
		o->exp = c->exp;
		o->vexp = c->root;
		implicit = true;
	}
	/* A host-name rule may need a DNS lookup, and @mem_only calls only
	 * run on a loop for a memory-backed export: else to a worker, before
	 * any system call is spent here. */
	if (req->on_loop && (exports_match_needs_name(o->exp, req->peer) ||
			     (mem_only && !o->vexp->mem_backed))) {
		o->would_block = true;
		st = NFS3ERR_JUKEBOX;
		goto fail;
	}
	o->client = nfs3_match(req, o->exp);
	if (!o->client) {
		st = NFS3ERR_ACCES;
		goto fail;
	}
	/* Only a client that may cross into it has it (nfsd: no implicit
	 * export without crossmnt). */
	if (implicit && !o->client->opts.crossmnt) {
		st = NFS3ERR_STALE;
		goto fail;
	}
	if (!exports_port_ok(o->client, req->peer)) {
		st = NFS3ERR_PERM;
		goto fail;
	}
	r = vfs_node_get(o->vexp, &p, false, &o->node);
	if (r == -EWOULDBLOCK) {
		/* A miss may read an inode from disk: not on a loop. */
		if (req->on_loop) {
			o->would_block = true;
			st = NFS3ERR_JUKEBOX;
			goto fail;
		}
		if (vfs_become(NULL) < 0) {
			st = NFS3ERR_SERVERFAULT;
			goto fail;
		}
		r = vfs_node_get(o->vexp, &p, true, &o->node);
	}
	if (r < 0) {
		st = nfs3_errno(-r);
		goto fail;
	}
	o->fd = vfs_node_fd(o->node);
	nfs3_cred(req, o->client, &o->cred);
	if (vfs_become(&o->cred) < 0) {
		nfs3_release(o);
		return NFS3ERR_SERVERFAULT;
	}
	if (vfs_stat(o->fd, &o->st) == 0) {
		o->have_st = true;
		/* Removed since it was cached: as gone as a failed open. */
		if (o->st.st_nlink == 0) {
			o->have_st = false;
			vfs_node_forget(o->node);
			nfs3_release(o);
			return NFS3ERR_STALE;
		}
	}
	return NFS3_OK;
fail:
	nfs3_exports_put(x);
	o->exp = NULL;
	o->client = NULL;
	o->vexp = NULL;
	o->snap = NULL;
	return st;
}

enum nfsstat3 nfs3_resolve(struct rpc_req *req, const struct nfs_fh3 *fh,
			   struct nfs3_obj *o)
{
	return resolve(req, fh, o, false);
}

enum nfsstat3 nfs3_resolve_mem(struct rpc_req *req, const struct nfs_fh3 *fh,
			       struct nfs3_obj *o)
{
	return resolve(req, fh, o, true);
}

void nfs3_release(struct nfs3_obj *o)
{
	if (o->node) {
		vfs_node_put(o->node);
		if (o->detached)
			snap_release((struct nfs3_exports *)o->snap);
		else
			nfs3_exports_put(o->snap);
	}
	o->node = NULL;
	o->fd = -1;
	o->detached = false;
}

int nfs3_open_io(struct nfs3_obj *o, int acc)
{
	int fd = vfs_node_io_fd(o->node, acc);

	if (fd < 0) {
		/* Opened once as root, shared by every caller: the
		 * permission check below is per call. */
		if (vfs_become(NULL) < 0)
			return -EPERM;
		fd = vfs_node_open_io(o->node, acc);
		if (vfs_become(&o->cred) < 0)
			return -EPERM;   /* never go on as root */
		if (fd < 0)
			return fd;
	}
	/* uid 0 not squashed has CAP_DAC_OVERRIDE: nothing to check. */
	if (o->cred.uid != 0 &&
	    faccessat(o->fd, "", (acc & O_ACCMODE) == O_RDONLY ? R_OK : W_OK,
		      AT_EACCESS | AT_EMPTY_PATH) < 0) {
		int err = errno;

		if (err != EACCES || !o->have_st || o->st.st_uid != o->cred.uid)
			return -err;
	}
	return fd;
}

uint8_t *nfs3_node_map(struct nfs3_obj *o, int acc, uint64_t end, size_t *len)
{
	/* Made with the caller's identity (and shared with every later
	 * caller, whose own permission nfs3_open_io checks): a caller who
	 * may not open the file for it gets no mapping, and the ordinary
	 * path. */
	return o->node ? vfs_node_map(o->node, acc, end, len) : NULL;
}

/*
 * errno to nfsstat3: RFC 1813's meaning of each status, and where they
 * differ in detail, what Linux's nfsd answers (nfserrno(), and
 * nfsd3_map_status() for NFSv3), so that clients see what they see from
 * the kernel server. tests/unit/nfs3/test_errno.c holds the same table
 * as its expectation.
 */
enum nfsstat3 nfs3_errno(int err)
{
	switch (err) {
	case 0: return NFS3_OK;
	case EPERM: return NFS3ERR_PERM;
	case ENOKEY: return NFS3ERR_PERM;    /* fscrypt: no key (as nfsd) */
	case ENOENT: return NFS3ERR_NOENT;
	case EIO: return NFS3ERR_IO;
	case ETXTBSY: return NFS3ERR_IO;     /* as nfsd */
	case EUCLEAN: return NFS3ERR_IO;     /* corrupted file system (as nfsd) */
	case EBADMSG: return NFS3ERR_IO;     /* bad checksum on disk */
	case EREMOTEIO: return NFS3ERR_IO;
	case ENXIO: return NFS3ERR_NXIO;
	case EACCES: return NFS3ERR_ACCES;
	/* A mount point removed or renamed over: nfsd answers v3 ACCES. */
	case EBUSY: return NFS3ERR_ACCES;
	case EEXIST: return NFS3ERR_EXIST;
	case EXDEV: return NFS3ERR_XDEV;
	case ENODEV: return NFS3ERR_NODEV;
	case ENOTDIR: return NFS3ERR_NOTDIR;
	case EISDIR: return NFS3ERR_ISDIR;
	case EINVAL: return NFS3ERR_INVAL;
	/* A symlink where a file was asked (open without O_PATH of an
	 * O_NOFOLLOW-resolved object): nfsd answers v3 INVAL. */
	case ELOOP: return NFS3ERR_INVAL;
	case EFBIG: return NFS3ERR_FBIG;
	case E2BIG: return NFS3ERR_FBIG;     /* as nfsd */
	case ENOSPC: return NFS3ERR_NOSPC;
	case EROFS: return NFS3ERR_ROFS;
	case EMLINK: return NFS3ERR_MLINK;
	case ENAMETOOLONG: return NFS3ERR_NAMETOOLONG;
	case ENOTEMPTY: return NFS3ERR_NOTEMPTY;
	case EDQUOT: return NFS3ERR_DQUOT;
	case ESTALE: return NFS3ERR_STALE;
	case EBADF: return NFS3ERR_STALE;    /* as nfsd */
	case EOPNOTSUPP: return NFS3ERR_NOTSUPP; /* = ENOTSUP on Linux */
	/* Transient: the client waits and retries (nfsd: JUKEBOX for
	 * ETIMEDOUT, EAGAIN, ENOMEM, and ERESTARTSYS, which user space
	 * sees as EINTR). */
	case ETIMEDOUT: return NFS3ERR_JUKEBOX;
	case EAGAIN: return NFS3ERR_JUKEBOX; /* = EWOULDBLOCK on Linux */
	case ENOMEM: return NFS3ERR_JUKEBOX;
	case EINTR: return NFS3ERR_JUKEBOX;
	/* Out of descriptors (nfsd: ENFILE); a handle too large for NFSv3. */
	case ENFILE: return NFS3ERR_SERVERFAULT;
	case EMFILE: return NFS3ERR_SERVERFAULT;
	case EOVERFLOW: return NFS3ERR_SERVERFAULT;
	/* Anything else: a hard error, as nfsd (clients map it to EIO). */
	default: return NFS3ERR_IO;
	}
}

static enum ftype3 ftype(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFDIR: return NF3DIR;
	case S_IFBLK: return NF3BLK;
	case S_IFCHR: return NF3CHR;
	case S_IFLNK: return NF3LNK;
	case S_IFSOCK: return NF3SOCK;
	case S_IFIFO: return NF3FIFO;
	default: return NF3REG;
	}
}

void nfs3_fattr(const struct nfs3_obj *o, const struct stat *st, struct fattr3 *a)
{
	const struct nfsx_export *exp = o->exp;

	a->type = ftype(st->st_mode);
	a->mode = st->st_mode & 07777;
	a->nlink = (uint32_t)st->st_nlink;
	a->uid = st->st_uid;
	a->gid = st->st_gid;
	a->size = (uint64_t)st->st_size;
	a->used = (uint64_t)st->st_blocks * 512u;
	a->rdev.specdata1 = major(st->st_rdev);
	a->rdev.specdata2 = minor(st->st_rdev);
	/* A crossed mount's own; else fsid= when the admin gave one, else
	 * the device: stable per export. */
	if (o->vexp && o->vexp->fsid_fixed)
		a->fsid = o->vexp->fsid;
	else
		a->fsid = exp->fsid_kind == NFSX_FSID_NUM ? exp->fsid : (uint64_t)st->st_dev;
	a->fileid = st->st_ino;
	a->atime.seconds = (uint32_t)st->st_atim.tv_sec;
	a->atime.nseconds = (uint32_t)st->st_atim.tv_nsec;
	a->mtime.seconds = (uint32_t)st->st_mtim.tv_sec;
	a->mtime.nseconds = (uint32_t)st->st_mtim.tv_nsec;
	a->ctime.seconds = (uint32_t)st->st_ctim.tv_sec;
	a->ctime.nseconds = (uint32_t)st->st_ctim.tv_nsec;
}

void nfs3_post_op(const struct nfs3_obj *o, int fd, struct post_op_attr *pa)
{
	struct stat st;

	pa->attributes_follow = fd >= 0 && vfs_stat(fd, &st) == 0;
	if (pa->attributes_follow)
		nfs3_fattr(o, &st, &pa->u.attributes);
}

enum nfsstat3 nfs3_handle(const struct nfs3_obj *o, int fd,
			  struct nfsx_fh *buf, struct nfs_fh3 *out)
{
	int r = vfs_handle_of(nfs3->key, o->vexp, fd, buf);

	if (r < 0)
		return nfs3_errno(-r);
	out->data.data = buf->data;
	out->data.len = buf->len;
	return NFS3_OK;
}

void nfs3_pre_op(const struct nfs3_obj *o, struct pre_op_attr *pa)
{
	/* nfs3_resolve's stat, taken just before: a second fstat would be
	 * no more exact (nothing is locked between either and the change). */
	pa->attributes_follow = o->have_st;
	if (!pa->attributes_follow)
		return;
	pa->u.attributes.size = (uint64_t)o->st.st_size;
	pa->u.attributes.mtime.seconds = (uint32_t)o->st.st_mtim.tv_sec;
	pa->u.attributes.mtime.nseconds = (uint32_t)o->st.st_mtim.tv_nsec;
	pa->u.attributes.ctime.seconds = (uint32_t)o->st.st_ctim.tv_sec;
	pa->u.attributes.ctime.nseconds = (uint32_t)o->st.st_ctim.tv_nsec;
}

void nfs3_wcc(const struct nfs3_obj *o, int fd, const struct pre_op_attr *pre,
	      struct wcc_data *w)
{
	w->before = *pre;
	nfs3_post_op(o, fd, &w->after);
}

enum nfsstat3 nfs3_writable(const struct nfs3_obj *o)
{
	return o->client && o->client->opts.rw ? NFS3_OK : NFS3ERR_ROFS;
}
