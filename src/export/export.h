/* SPDX-License-Identifier: MIT */
/*
 * The exports in use and the objects calls name, for every protocol
 * (NFSv3, MOUNT, NFSv4): snapshots of the exports with their open roots
 * and crossings, which client rule admits a caller, the caller's identity
 * after squashing, and handle resolution. Results are errno values; each
 * protocol maps them to its own statuses.
 *
 * DESIGN
 * A handle resolves to a cached open object (vfs/node.h; opened as root
 * on a miss), then the thread takes the caller's identity for the
 * operation itself, so the kernel's permission checks decide.
 *
 * The exports in use are an immutable snapshot (struct export_snap: the
 * parsed set and the open root of each export) that a reload (SIGHUP)
 * replaces as a whole. A call holds the snapshot it started with until
 * it ends, so a reload never changes the exports under a call in flight;
 * the next call sees the new set. Holding costs one atomic increment and
 * one atomic decrement per call, on no lock (see snapshot.c). A root
 * whose path and id are unchanged is shared by the old and the new
 * snapshot, so its descriptors stay open; the descriptors of a removed
 * export are closed when the last call holding an old snapshot ends.
 */
#ifndef NFSX_EXPORT_EXPORT_H
#define NFSX_EXPORT_EXPORT_H

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "export/exports.h"
#include "export/pseudo.h"
#include "rpc/req.h"
#include "vfs/fh.h"
#include "vfs/node.h"
#include "vfs/vfs.h"

/* A handle that is not one of ours (forged, altered, malformed): Linux's
 * own errno for it, which no system call returns. */
#ifndef EBADHANDLE
#define EBADHANDLE 521
#endif

/* The secret handles are made and checked with (fh.h), loaded by export_init. */
extern uint8_t export_fh_key[FH_KEY_LEN];

/* An export's open root, shared by the snapshots that hold its path. */
struct export_root {
	atomic_uint refs;
	struct vfs_export v;
};

/* A mount point inside an export that clients may cross (crossing.c). */
struct export_crossing {
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
struct export_snap {
	struct nfsx_exports *set;
	struct export_root **roots;       /* by nfsx_export.index */
	unsigned int n;
	struct export_crossing *cross;    /* crossing.c */
	unsigned int ncross, cap;
	struct export_pseudo pseudo;      /* NFSv4's name space (pseudo.h) */
	/* common.c's bookkeeping */
	atomic_int_least64_t released;  /* see export_snap_put() */
	unsigned int slot;
};

struct export_reload_stats {
	unsigned int exports;   /* in the new set */
	unsigned int added;     /* paths not exported before */
	unsigned int removed;   /* paths no longer exported */
	unsigned int reopened;  /* kept paths whose root was opened again */
};

/*
 * export_replace - make @ex the exports in use (SIGHUP). Each
 * export whose path and id are unchanged keeps its open root (unless the
 * directory at that path is no longer the one opened); the others are
 * opened now. Only when all of them open is the new snapshot published;
 * calls in flight finish with the old one. Main thread only (one reload
 * at a time).
 * Return values: 0 (@ex now belongs to this module; @st filled), or -1 with a
 * message in @err (@ex freed, the exports in use unchanged).
 */
int export_replace(struct nfsx_exports *ex, struct export_reload_stats *st,
		   char *err, size_t errlen);

/*
 * export_init - open every export of @ex (taking ownership of it), publish
 * them as the first snapshot, and load the handle key from @state_dir.
 * Return values: 0, or -1 with a message in @err.
 */
int export_init(struct nfsx_exports *ex, const char *state_dir, char *err,
		size_t errlen);
/* After the server has stopped: no call may hold a snapshot. */
void export_fini(void);

/*
 * export_snap_get - the snapshot in use, held until export_snap_put().
 * Nested holds on one thread (RENAME's second handle) get the snapshot
 * the first one got, so two handles of one call see one set of exports.
 */
const struct export_snap *export_snap_get(void);
void export_snap_put(const struct export_snap *x);

/* The open root of export @e of snapshot @x. */
static inline struct vfs_export *export_root_of(const struct export_snap *x,
					      const struct nfsx_export *e)
{
	return &x->roots[e->index]->v;
}

/* crossing.c: the mount points of snapshot @x that clients may cross
 * (built once its roots are open; freed with it). */
void export_crossings_build(struct export_snap *x);
void export_crossings_free(struct export_snap *x);
/* The implicit crossing (crossmnt) whose handle id is @id, or NULL. */
const struct export_crossing *export_crossing_by_id(const struct export_snap *x, uint32_t id);

/*
 * The verified host name of @req's peer, for host name client rules.
 * Never blocks: when the name is not known yet it may park the call
 * (rpc_workers_park(): the handler's answer is then discarded and the
 * call runs again once the name, or the time bound, has come) and
 * answer false meanwhile.
 * Return values: true with the name in @name; false: no name (now).
 */
typedef bool export_peer_name_fn(struct rpc_req *req, char *name, size_t len);

/* Set before the server starts; NULL (the default): no peer has a name. */
void export_set_peer_name_fn(export_peer_name_fn *fn);

/*
 * export_match - the client rule of @e that applies to the caller of @req.
 * The peer's name is looked up only when a host name rule comes before
 * any rule its address matches; only on a worker (MNT and every NFS
 * procedure with a handle run there; the event loops never match:
 * EXPORT, DUMP and UMNT do not), where a name not known yet parks the
 * call (see export_peer_name_fn).
 * Return values: the rule, or NULL: no rule admits the peer, or the call
 * is parked waiting for its name (the handler must then stop before any
 * side effect; its answer is discarded and it runs again).
 */
const struct nfsx_export_client *export_match(struct rpc_req *req,
					    const struct nfsx_export *e);

/*
 * An object a call names, resolved and checked. While obj is one
 * (vfs_obj_ok) the call holds the exports snapshot that exp, client and
 * vexp point into; export_release() lets it go. Protocols act on obj
 * through vexp->ops (vfs/ops.h).
 */
struct export_obj {
	const struct nfsx_export *exp;
	const struct nfsx_export_client *client;
	struct vfs_export *vexp;
	const struct export_snap *snap; /* held while node is */
	struct vfs_node *node;   /* cached open object, or NULL */
	struct vfs_obj obj;      /* the node's object, or none (not ours to release) */
	struct vfs_cred cred;    /* the caller, squashed */
	struct stat st;
	bool have_st;
	bool would_block;        /* on a loop: resolving needs a worker */
	bool detached;           /* snap held by this object, not the thread */
};

/*
 * export_resolve - decode the handle @fh (@len bytes), find its export,
 * check the client may use it, open the object, and become the caller
 * (squashed). @mem_only: a call that may run on an event loop only when
 * its export is memory-backed (tmpfs, ramfs: nothing waits for a device);
 * otherwise, on a loop, it sets o->would_block as soon as the export is
 * known.
 * Return values: 0; -EBADHANDLE (forged, altered, malformed); -ESTALE
 * (unknown export or object gone); -EACCES (client not allowed); -EPERM
 * (insecure port on a secure export); -EWOULDBLOCK with o->would_block
 * (on a loop: needs a worker); -EFAULT (the thread could not take the
 * caller's identity); another -errno from opening the object. After 0
 * the caller must export_release(@o); after an error @o->obj is none and
 * nothing is held.
 */
int export_resolve(struct rpc_req *req, const uint8_t *fh, uint32_t len, bool mem_only,
		   struct export_obj *o);
void export_release(struct export_obj *o);

/*
 * export_obj_dup - a second hold of the resolved object @src, into @dst
 * (NFSv4's saved filehandle): the node and the thread's snapshot held
 * once more. Each is released on its own. Not for a detached object.
 */
void export_obj_dup(struct export_obj *dst, const struct export_obj *src);

/*
 * export_resolve_root - the root of export @e of the thread's snapshot,
 * resolved as export_resolve() resolves its handle (client rules,
 * identity). For NFSv4, stepping from the pseudo file system into an
 * export. Return values: as export_resolve().
 */
int export_resolve_root(struct rpc_req *req, const struct nfsx_export *e, struct export_obj *o);

/*
 * export_pseudo_resolve - is @fh (@len bytes) the handle of a pseudo
 * directory of snapshot @x (pseudo.h)?
 * Return values: 1 with *@node set; 0: not a pseudo handle (resolve it
 * with export_resolve, which checks what this did not: a handle of
 * another type is not verified here); -EBADHANDLE (not one of ours);
 * -ESTALE (a pseudo directory that is no longer there).
 */
int export_pseudo_resolve(const struct export_snap *x, const uint8_t *fh, uint32_t len,
			  uint32_t *node);

/*
 * export_node_map - @o's node's kept mapping for reading (@acc O_RDONLY) or
 * writing (O_WRONLY) covering @end bytes (vfs_node_map), made now if it
 * is not yet. Call after export_open_io has said the caller may do @acc.
 * Return values: the base, *@len its length; NULL: no mapping.
 */
uint8_t *export_node_map(struct export_obj *o, int acc, uint64_t end, size_t *len);

/*
 * export_map_read - [@off, @off + @len) of regular file @o in its node's
 * kept read mapping, when the mapping covers it and every page of it is
 * in memory (vfs_map_resident); after export_open_io(O_RDONLY). The
 * data stays valid while the node is held (vfs_node_hold); a truncation
 * meanwhile makes a read of it fault.
 * Return values: the data, or NULL: read it the ordinary way.
 */
const uint8_t *export_map_read(struct export_obj *o, uint64_t off, size_t len);

/*
 * export_map_write - where [@off, @off + @len) of regular file @o, within
 * its size as resolved, lies in its node's kept write mapping, its pages
 * mapped (vfs_node_map_populate), for a bulk WRITE to receive its data
 * into (rpc/program.h, struct rpc_bulk dst); after export_open_io
 * (O_WRONLY) and a first write as the caller. @len of 2 at least (the
 * last byte is a real write).
 * Return values: the address of @off, or NULL: splice the data.
 */
uint8_t *export_map_write(struct export_obj *o, uint64_t off, uint32_t len);

/*
 * export_bulk_head - the start of a bulk WRITE (rpc/program.h, struct
 * rpc_bulk): the @len bytes @p that came with the call's header written
 * at @off into regular file @o (opened for writing as @io) as the caller,
 * b->done, b->err and b->off set; then, after that write, b->dst where
 * the next b->left bytes (set by the caller) go in the file's kept
 * mapping, when they lie within the file (export_map_write).
 */
void export_bulk_head(struct export_obj *o, const struct vfs_obj *io, const uint8_t *p,
		      uint32_t len, uint64_t off, struct rpc_bulk *b);

/*
 * export_obj_detach - let @o outlive the call that resolved it (a bulk WRITE
 * held across turns of its loop): its hold of the exports snapshot becomes
 * its own instead of the thread's, so the thread's later calls take the
 * snapshot in use, not this one. Only for an object that is the thread's
 * only hold. Return values: true, or false (nothing changed).
 */
bool export_obj_detach(struct export_obj *o);

/*
 * export_open_io - the regular file @o opened for O_RDONLY or O_WRONLY
 * I/O, into *@io (cached in its node: not to be released), after checking
 * that the caller may read or write it, with the owner override of
 * Linux's nfsd (NFSD_MAY_OWNER_OVERRIDE: the owner may do I/O whatever
 * the mode, so a file created read-only can still be written).
 * Return values: 0, or -errno.
 */
int export_open_io(struct export_obj *o, int acc, struct vfs_obj *io);


/* ACCESS bits, the values NFSv3's ACCESS3_* (RFC 1813 3.3.4) and NFSv4's
 * ACCESS4_* (RFC 7530 16.1) share. */
#define EXPORT_ACCESS_READ    0x01u
#define EXPORT_ACCESS_LOOKUP  0x02u
#define EXPORT_ACCESS_MODIFY  0x04u
#define EXPORT_ACCESS_EXTEND  0x08u
#define EXPORT_ACCESS_DELETE  0x10u
#define EXPORT_ACCESS_EXECUTE 0x20u

/*
 * export_access - which of the EXPORT_ACCESS_* bits in @want the caller
 * of @o has (a resolved object, its stat taken), each asked of the
 * backend as the caller, so the file system's permissions and ACLs
 * decide: LOOKUP only of a directory, EXECUTE only of anything else,
 * MODIFY, EXTEND and DELETE only on a writable export, DELETE only of a
 * directory (removing from it), as knfsd answers. Bits outside the six
 * are ignored.
 * Return values: the bits granted.
 */
uint32_t export_access(const struct export_obj *o, uint32_t want);

/* The caller's identity after the export's squashing rules. */
void export_cred(const struct rpc_req *req, const struct nfsx_export_client *c,
	       struct vfs_cred *out);

/*
 * export_lookup_in - @name in the directory @at names (at->obj), crossing a
 * mount point where the exports let the caller (crossing.c): *@to gets
 * @at's place, or the far side's (export, rule and view) when crossed,
 * for the handle and attributes of the result, and *@out the object, to
 * release through to->vexp->ops.
 * Return values: 0; -EWOULDBLOCK on an event loop
 * when a host name rule must be checked (nothing done yet); -errno.
 */
int export_lookup_in(struct rpc_req *req, const struct export_obj *at, const uint8_t *name,
		   uint32_t len, struct export_obj *to, struct vfs_obj *out);

/* Is @st, an entry of the directory @at names, a mount point a client may
 * cross? (READDIRPLUS then leaves its handle to LOOKUP, as nfsd does.) */
bool export_crossing_point(const struct export_obj *at, const struct stat *st);

/*
 * The security flavour of @req's call, as sec= numbers them
 * (EXPORTS_SEC_*): its RPC flavour now; RPCSEC_GSS's calls will give
 * the pseudo-flavour of their mechanism and service.
 */
uint32_t export_req_flavor(const struct rpc_req *req);

/*
 * export_sec_ok - may @req's caller, whom rule @c admits, use its flavour
 * there (exports_sec_allows)? Handle resolution does not ask: each
 * protocol does, where its rules say (NFSv3 on every handle, NFSv4 as
 * RFC 8881 2.6.3.1.1 says). Return values: true when allowed.
 */
bool export_sec_ok(const struct rpc_req *req, const struct nfsx_export_client *c);

/* May @req's flavour be used in the pseudo file system of @x? */
bool export_pseudo_sec_ok(const struct export_snap *x, const struct rpc_req *req);

/* snapshot.c, for resolve.c: a hold given back (see export_snap_put). */
void export_snap_release(struct export_snap *x);

#endif
