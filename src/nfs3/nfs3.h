/* SPDX-License-Identifier: MIT */
/*
 * State shared by the MOUNT and NFSv3 procedures, and the helpers every
 * procedure uses: handle resolution with the export and client checks,
 * the caller's identity after squashing, errno to nfsstat3, stat to
 * fattr3.
 *
 * DESIGN
 * Procedures run on worker threads (RPC_PROC_BLOCKING), and some are
 * first tried on the event loop (RPC_PROC_TRY_INLINE, see
 * nfs3_resolve_mem). A handle resolves to a cached open object (vfs/node.h;
 * opened as root on a miss), then the thread takes the caller's identity
 * for the operation itself, so the kernel's permission checks decide.
 *
 * The exports in use are an immutable snapshot (struct nfs3_exports: the
 * parsed set and the open root of each export) that a reload (SIGHUP)
 * replaces as a whole. A call holds the snapshot it started with until
 * it ends, so a reload never changes the exports under a call in flight;
 * the next call sees the new set. Holding costs one atomic increment and
 * one atomic decrement per call, on no lock (see common.c). A root whose
 * path and id are unchanged is shared by the old and the new snapshot,
 * so its descriptors stay open; the descriptors of a removed export are
 * closed when the last call holding an old snapshot ends.
 */
#ifndef NFSX_NFS3_NFS3_H
#define NFSX_NFS3_NFS3_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "rpc/req.h"
#include "export/exports.h"
#include "vfs/fh.h"
#include "vfs/node.h"
#include "vfs/vfs.h"
#include "xdr/gen/nfs3.h"

struct nfs3_state {
	uint8_t key[FH_KEY_LEN];
	uint8_t write_verf[NFS3_WRITEVERFSIZE]; /* new at every start */
};

/* An export's open root, shared by the snapshots that hold its path. */
struct nfs3_root {
	atomic_uint refs;
	struct vfs_export v;
};

/* A mount point inside an export that clients may cross (crossing.c). */
struct nfs3_crossing {
	char *path;                          /* the mount point, canonical */
	uint32_t id;                         /* handle id of the far side */
	const struct nfsx_export *exp;       /* whose rules apply there */
	const struct nfsx_export *encl_exp;  /* ... and on the near side */
	struct vfs_export *root;             /* the far side's view */
	struct vfs_export *encl;             /* the near side's view */
	struct vfs_export *own;              /* root, when opened for it (implicit) */
	dev_t cov_dev;                       /* the covered directory, near side */
	ino_t cov_ino;
	int covered_fd;                      /* its O_PATH descriptor, for ".." */
};

/* One snapshot of the exports: read-only once published. */
struct nfs3_exports {
	struct nfsx_exports *set;
	struct nfs3_root **roots;       /* by nfsx_export.index */
	unsigned int n;
	struct nfs3_crossing *cross;    /* crossing.c */
	unsigned int ncross, cap;
	/* common.c's bookkeeping */
	atomic_int_least64_t released;  /* see nfs3_exports_put() */
	unsigned int slot;
};

/*
 * nfs3_init - open every export of @ex (taking ownership of it), publish
 * them as the first snapshot, and load the handle key from @state_dir.
 * Return values: 0, or -1 with a message in @err.
 */
int nfs3_init(struct nfsx_exports *ex, const char *state_dir, char *err,
	      size_t errlen);
/* After the server has stopped: no call may hold a snapshot. */
void nfs3_fini(void);

/* After a reload: drop the mount list's entries no export holds any more (DUMP). */
void mount3_prune(const struct nfsx_exports *set);

extern struct nfs3_state *nfs3;

struct nfs3_reload_stats {
	unsigned int exports;   /* in the new set */
	unsigned int added;     /* paths not exported before */
	unsigned int removed;   /* paths no longer exported */
	unsigned int reopened;  /* kept paths whose root was opened again */
};

/*
 * nfs3_exports_replace - make @ex the exports in use (SIGHUP). Each
 * export whose path and id are unchanged keeps its open root (unless the
 * directory at that path is no longer the one opened); the others are
 * opened now. Only when all of them open is the new snapshot published;
 * calls in flight finish with the old one. Main thread only (one reload
 * at a time).
 * Return values: 0 (@ex now belongs to nfs3; @st filled), or -1 with a
 * message in @err (@ex freed, the exports in use unchanged).
 */
int nfs3_exports_replace(struct nfsx_exports *ex, struct nfs3_reload_stats *st,
			 char *err, size_t errlen);

/*
 * nfs3_exports_get - the snapshot in use, held until nfs3_exports_put().
 * Nested holds on one thread (RENAME's second handle) get the snapshot
 * the first one got, so two handles of one call see one set of exports.
 */
const struct nfs3_exports *nfs3_exports_get(void);
void nfs3_exports_put(const struct nfs3_exports *x);

/* The open root of export @e of snapshot @x. */
static inline struct vfs_export *nfs3_root_of(const struct nfs3_exports *x,
					      const struct nfsx_export *e)
{
	return &x->roots[e->index]->v;
}

/* crossing.c: the mount points of snapshot @x that clients may cross
 * (built once its roots are open; freed with it). */
void nfs3_crossings_build(struct nfs3_exports *x);
void nfs3_crossings_free(struct nfs3_exports *x);
/* The implicit crossing (crossmnt) whose handle id is @id, or NULL. */
const struct nfs3_crossing *nfs3_crossing_by_id(const struct nfs3_exports *x, uint32_t id);

/*
 * The verified host name of @req's peer, for host name client rules.
 * Never blocks: when the name is not known yet it may park the call
 * (rpc_workers_park(): the handler's answer is then discarded and the
 * call runs again once the name, or the time bound, has come) and
 * answer false meanwhile.
 * Return values: true with the name in @name; false: no name (now).
 */
typedef bool nfs3_peer_name_fn(struct rpc_req *req, char *name, size_t len);

/* Set before the server starts; NULL (the default): no peer has a name. */
void nfs3_set_peer_name_fn(nfs3_peer_name_fn *fn);

/*
 * nfs3_match - the client rule of @e that applies to the caller of @req.
 * The peer's name is looked up only when a host name rule comes before
 * any rule its address matches; only on a worker (MNT and every NFS
 * procedure with a handle run there; the event loops never match:
 * EXPORT, DUMP and UMNT do not), where a name not known yet parks the
 * call (see nfs3_peer_name_fn).
 * Return values: the rule, or NULL: no rule admits the peer, or the call
 * is parked waiting for its name (the handler must then stop before any
 * side effect; its answer is discarded and it runs again).
 */
const struct nfsx_export_client *nfs3_match(struct rpc_req *req,
					    const struct nfsx_export *e);

/* In a handler: decode the arguments, which must be consumed exactly. */
#define ARGS_OK(dec, out) (dec(&req->args, (out)) && xdr_dec_left(&req->args) == 0)
/* In a handler: encode the result. */
#define REPLY(encf, res) (encf(&req->enc, (res)) ? RPC_SUCCESS : RPC_SYSTEM_ERR)

/*
 * An object a call names, resolved and checked. While fd >= 0 the call
 * holds the exports snapshot that exp, client and vexp point into;
 * nfs3_release() lets it go.
 */
struct nfs3_obj {
	const struct nfsx_export *exp;
	const struct nfsx_export_client *client;
	struct vfs_export *vexp;
	const struct nfs3_exports *snap; /* held while node is */
	struct vfs_node *node;   /* cached open object, or NULL */
	int fd;                  /* its O_PATH descriptor, or -1 (not ours to close) */
	struct vfs_cred cred;    /* the caller, squashed */
	struct stat st;
	bool have_st;
	bool would_block;        /* on a loop: resolving needs a worker */
	bool detached;           /* snap held by this object, not the thread */
};

/*
 * nfs3_resolve - decode @fh, find its export, check the client may use
 * it, open the object, and become the caller (squashed).
 * Return values: NFS3_OK, NFS3ERR_BADHANDLE (forged, altered, malformed),
 * NFS3ERR_STALE (unknown export or object gone), NFS3ERR_ACCES (client
 * not allowed), NFS3ERR_PERM (insecure port on a secure export). After
 * NFS3_OK the caller must nfs3_release(@o); after an error @o->fd is -1
 * and nothing is held.
 */
enum nfsstat3 nfs3_resolve(struct rpc_req *req, const struct nfs_fh3 *fh,
			   struct nfs3_obj *o);
void nfs3_release(struct nfs3_obj *o);

/*
 * nfs3_node_map - @o's node's kept mapping for reading (@acc O_RDONLY) or
 * writing (O_WRONLY) covering @end bytes (vfs_node_map), made now if it
 * is not yet. Call after nfs3_open_io has said the caller may do @acc.
 * Return values: the base, *@len its length; NULL: no mapping.
 */
uint8_t *nfs3_node_map(struct nfs3_obj *o, int acc, uint64_t end, size_t *len);

/*
 * nfs3_obj_detach - let @o outlive the call that resolved it (a bulk WRITE
 * held across turns of its loop): its hold of the exports snapshot becomes
 * its own instead of the thread's, so the thread's later calls take the
 * snapshot in use, not this one. Only for an object that is the thread's
 * only hold. Return values: true, or false (nothing changed).
 */
bool nfs3_obj_detach(struct nfs3_obj *o);

/*
 * nfs3_resolve_mem - nfs3_resolve for a call that may run on an event
 * loop (RPC_PROC_TRY_INLINE) only when its export is memory-backed
 * (tmpfs, ramfs: nothing waits for a device). Otherwise, on a loop, it
 * sets o->would_block as soon as the export is known. READ and GETATTR
 * decide for themselves (RWF_NOWAIT, cached objects) and use nfs3_resolve.
 */
enum nfsstat3 nfs3_resolve_mem(struct rpc_req *req, const struct nfs_fh3 *fh,
			       struct nfs3_obj *o);

/*
 * nfs3_open_io - a descriptor of the regular file @o for O_RDONLY or
 * O_WRONLY I/O (cached in its node: do not close it), after checking
 * that the caller may read or write it, with the owner override of
 * Linux's nfsd (NFSD_MAY_OWNER_OVERRIDE: the owner may do I/O whatever
 * the mode, so a file created read-only can still be written).
 * Return values: fd, or -errno.
 */
int nfs3_open_io(struct nfs3_obj *o, int acc);


/* The caller's identity after the export's squashing rules. */
void nfs3_cred(const struct rpc_req *req, const struct nfsx_export_client *c,
	       struct vfs_cred *out);

enum nfsstat3 nfs3_errno(int err);

struct nfs3_obj;
void nfs3_fattr(const struct nfs3_obj *o, const struct stat *st,
		struct fattr3 *a);

/* post_op_attr of @fd (false when it cannot be read: attributes omitted). */
void nfs3_post_op(const struct nfs3_obj *o, int fd, struct post_op_attr *pa);

/* pre_op_attr of @o (from nfs3_resolve's stat): size, mtime, ctime before a change. */
void nfs3_pre_op(const struct nfs3_obj *o, struct pre_op_attr *pa);

/* wcc_data of @fd: @pre taken before the change, attributes now after it. */
void nfs3_wcc(const struct nfs3_obj *o, int fd, const struct pre_op_attr *pre,
	      struct wcc_data *w);

/* NFS3_OK when the export admits changes for this client, else NFS3ERR_ROFS. */
enum nfsstat3 nfs3_writable(const struct nfs3_obj *o);

/*
 * nfs3_lookup_in - @name in the directory @at names (at->fd), crossing a
 * mount point where the exports let the caller (crossing.c): *@to gets
 * @at's place, or the far side's (export, rule and view) when crossed,
 * for nfs3_handle and nfs3_post_op of the result.
 * Return values: an O_PATH descriptor; -EWOULDBLOCK on an event loop
 * when a host name rule must be checked (nothing done yet); -errno.
 */
int nfs3_lookup_in(struct rpc_req *req, const struct nfs3_obj *at, const uint8_t *name,
		   uint32_t len, struct nfs3_obj *to);

/* Is @st, an entry of the directory @at names, a mount point a client may
 * cross? (READDIRPLUS then leaves its handle to LOOKUP, as nfsd does.) */
bool nfs3_crossing_point(const struct nfs3_obj *at, const struct stat *st);

/* Encode a handle for @fd of @o's export into @out, backed by @buf. */
enum nfsstat3 nfs3_handle(const struct nfs3_obj *o, int fd,
			  struct nfsx_fh *buf, struct nfs_fh3 *out);

#endif
