/* SPDX-License-Identifier: MIT */
/*
 * State shared by the MOUNT and NFSv3 procedures, and the helpers every
 * procedure uses: handle resolution (export/export.h) with its errno
 * mapped to nfsstat3, errno to nfsstat3, stat to fattr3.
 *
 * Procedures run on worker threads (RPC_PROC_BLOCKING), and some are
 * first tried on the event loop (RPC_PROC_TRY_INLINE, see
 * nfs3_resolve_mem).
 */
#ifndef NFSX_NFS3_NFS3_H
#define NFSX_NFS3_NFS3_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "export/export.h"
#include "rpc/req.h"
#include "vfs/fh.h"
#include "vfs/lease.h"
#include "vfs/node.h"
#include "vfs/vfs.h"
#include "xdr/gen/nfs3.h"

struct nfs3_state {
	uint8_t write_verf[NFS3_WRITEVERFSIZE]; /* new at every start */
};

/*
 * nfs3_init - export_init(), and a new write verifier.
 * Return values: 0, or -1 with a message in @err.
 */
int nfs3_init(struct nfsx_exports *ex, const char *state_dir, char *err,
	      size_t errlen);
/* After the server has stopped: no call may hold a snapshot. */
void nfs3_fini(void);

/* After a reload: drop the mount list's entries no export holds any more (DUMP). */
void mount3_prune(const struct nfsx_exports *set);

extern struct nfs3_state *nfs3;

/*
 * nfs3_exports_replace - export_replace(), then the mount list (DUMP)
 * loses the paths no longer exported. Main thread only.
 * Return values: 0, or -1 with a message in @err.
 */
int nfs3_exports_replace(struct nfsx_exports *ex, struct export_reload_stats *st,
			 char *err, size_t errlen);

/* In a handler: decode the arguments, which must be consumed exactly. */
#define ARGS_OK(dec, out) (dec(&req->args, (out)) && xdr_dec_left(&req->args) == 0)
/* In a handler: encode the result. */
#define REPLY(encf, res) (encf(&req->enc, (res)) ? RPC_SUCCESS : RPC_SYSTEM_ERR)

/*
 * nfs3_resolve - decode @fh, find its export, check the client may use
 * it, open the object, and become the caller (squashed).
 * Return values: NFS3_OK, NFS3ERR_BADHANDLE (forged, altered, malformed),
 * NFS3ERR_STALE (unknown export or object gone), NFS3ERR_ACCES (client
 * not allowed, or its flavour not in the rule's sec=), NFS3ERR_PERM (insecure port on a secure export). After
 * NFS3_OK the caller must export_release(@o); after an error @o->obj is none
 * and nothing is held.
 */
enum nfsstat3 nfs3_resolve(struct rpc_req *req, const struct nfs_fh3 *fh,
			   struct export_obj *o);
/*
 * nfs3_resolve_mem - nfs3_resolve for a call that may run on an event
 * loop (RPC_PROC_TRY_INLINE) only when its export is memory-backed
 * (tmpfs, ramfs: nothing waits for a device). Otherwise, on a loop, it
 * sets o->would_block as soon as the export is known. READ and GETATTR
 * decide for themselves (RWF_NOWAIT, cached objects) and use nfs3_resolve.
 */
enum nfsstat3 nfs3_resolve_mem(struct rpc_req *req, const struct nfs_fh3 *fh,
			       struct export_obj *o);

enum nfsstat3 nfs3_errno(int err);

struct export_obj;
void nfs3_fattr(const struct export_obj *o, const struct stat *st,
		struct fattr3 *a);

/* post_op_attr of @obj, of @o's export (false when it cannot be read:
 * attributes omitted). */
void nfs3_post_op(const struct export_obj *o, const struct vfs_obj *obj,
		  struct post_op_attr *pa);

/* pre_op_attr of @o (from nfs3_resolve's stat): size, mtime, ctime before a change. */
void nfs3_pre_op(const struct export_obj *o, struct pre_op_attr *pa);

/* wcc_data of @obj: @pre taken before the change, attributes now after it. */
void nfs3_wcc(const struct export_obj *o, const struct vfs_obj *obj,
	      const struct pre_op_attr *pre,
	      struct wcc_data *w);

/* NFS3_OK when the export admits changes for this client, else NFS3ERR_ROFS. */
enum nfsstat3 nfs3_writable(const struct export_obj *o);

/*
 * nfs3_lease_break - before changing the file whose attributes are @st
 * (its st_dev and st_ino, the pair NFSv4 names it by), or reading its
 * data or attributes (@why VFS_BREAK_READ, VFS_BREAK_GETATTR):
 * vfs_lease_break as a caller that holds no delegation (breaker 0). One
 * atomic load while no delegation that @why conflicts with exists; never
 * blocks (event-loop WRITEs, READs and GETATTRs call it).
 * Return values: NFS3_OK: go on; NFS3ERR_JUKEBOX: a delegation is being
 * recalled, change nothing (the client retries later).
 */
enum nfsstat3 nfs3_lease_break(const struct stat *st, enum vfs_break_why why);

/*
 * A change asked about with nfs3_lease_break is marked in flight
 * (vfs_change_mark) on the calling thread until the call ends: the
 * handlers of the procedures that change files run inside a wrapper
 * (programs.c) that calls nfs3_changes_end after them, so that a grant
 * racing the change sees it. nfs3_changes_mark_names: before a change by
 * name asks vfs_leases_held() whether to look the name up.
 * nfs3_changes_take: a bulk WRITE, whose data arrives after its begin
 * returned, moves the marks into its own context and ends them with
 * vfs_change_end in its bulk end.
 */
void nfs3_changes_mark_names(void);
void nfs3_changes_end(void);
void nfs3_changes_take(struct vfs_change *to);

/* Encode a handle for @obj of @o's export into @out, backed by @buf. */
enum nfsstat3 nfs3_handle(const struct export_obj *o, const struct vfs_obj *obj,
			  struct nfsx_fh *buf, struct nfs_fh3 *out);

#endif
