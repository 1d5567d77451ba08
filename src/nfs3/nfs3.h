/* SPDX-License-Identifier: MIT */
/*
 * State shared by the MOUNT and NFSv3 procedures, and the helpers every
 * procedure uses: handle resolution with the export and client checks,
 * the caller's identity after squashing, errno to nfsstat3, stat to
 * fattr3.
 *
 * DESIGN
 * The state is built once at start-up and read-only afterwards (SIGHUP
 * reload will swap a whole new state in). Procedures run on worker
 * threads (RPC_PROC_BLOCKING): a handle is resolved to an O_PATH
 * descriptor as root, then the thread takes the caller's identity for
 * the operation itself, so the kernel's permission checks decide.
 */
#ifndef NFSX_NFS3_NFS3_H
#define NFSX_NFS3_NFS3_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "rpc/req.h"
#include "server/exports.h"
#include "vfs/fh.h"
#include "vfs/node.h"
#include "vfs/vfs.h"
#include "xdr/gen/nfs3.h"

struct nfs3_state {
	struct nfsx_exports *exports;
	struct vfs_export *vexp;        /* by nfsx_export.index */
	unsigned int nexp;
	uint8_t key[FH_KEY_LEN];
	uint8_t write_verf[NFS3_WRITEVERFSIZE]; /* new at every start */
};

/*
 * nfs3_init - open every export of @ex (taking ownership of it) and load
 * the handle key from @state_dir.
 * Return values: 0, or -1 with a message in @err.
 */
int nfs3_init(struct nfsx_exports *ex, const char *state_dir, char *err,
	      size_t errlen);
void nfs3_fini(void);

extern struct nfs3_state *nfs3;

/* In a handler: decode the arguments, which must be consumed exactly. */
#define ARGS_OK(dec, out) (dec(&req->args, (out)) && xdr_dec_left(&req->args) == 0)
/* In a handler: encode the result. */
#define REPLY(encf, res) (encf(&req->enc, (res)) ? RPC_SUCCESS : RPC_SYSTEM_ERR)

/* An object a call names, resolved and checked. */
struct nfs3_obj {
	const struct nfsx_export *exp;
	const struct nfsx_export_client *client;
	struct vfs_export *vexp;
	struct vfs_node *node;   /* cached open object, or NULL */
	int fd;                  /* its O_PATH descriptor, or -1 (not ours to close) */
	struct vfs_cred cred;    /* the caller, squashed */
	struct stat st;
	bool have_st;
	bool would_block;        /* on a loop: resolving needs a worker */
};

/*
 * nfs3_resolve - decode @fh, find its export, check the client may use
 * it, open the object, and become the caller (squashed).
 * Return values: NFS3_OK, NFS3ERR_BADHANDLE (forged, altered, malformed),
 * NFS3ERR_STALE (unknown export or object gone), NFS3ERR_ACCES (client
 * not allowed), NFS3ERR_PERM (insecure port on a secure export).
 */
enum nfsstat3 nfs3_resolve(struct rpc_req *req, const struct nfs_fh3 *fh,
			   struct nfs3_obj *o);
void nfs3_release(struct nfs3_obj *o);

/*
 * nfs3_open_io - a descriptor of the regular file @o for O_RDONLY or
 * O_WRONLY I/O (cached in its node: do not close it), after checking
 * that the caller may read or write it, with the owner override of
 * Linux's nfsd (NFSD_MAY_OWNER_OVERRIDE: the owner may do I/O whatever
 * the mode, so a file created read-only can still be written).
 * Return values: fd, or -errno.
 */
int nfs3_open_io(struct nfs3_obj *o, int acc);

/*
 * On an event loop (RPC_PROC_TRY_INLINE), may this call's file system
 * work run here? Only on a memory-backed export, where nothing waits for
 * a device; elsewhere handlers that can (READ with RWF_NOWAIT) decide
 * for themselves.
 */
static inline bool nfs3_inline_ok(const struct rpc_req *req, const struct nfs3_obj *o)
{
	return !req->on_loop || o->vexp->mem_backed;
}

/* The caller's identity after the export's squashing rules. */
void nfs3_cred(const struct rpc_req *req, const struct nfsx_export_client *c,
	       struct vfs_cred *out);

enum nfsstat3 nfs3_errno(int err);

void nfs3_fattr(const struct nfsx_export *exp, const struct stat *st,
		struct fattr3 *a);

/* post_op_attr of @fd (false when it cannot be read: attributes omitted). */
void nfs3_post_op(const struct nfs3_obj *o, int fd, struct post_op_attr *pa);

/* pre_op_attr of @fd: size, mtime, ctime before a change (weak cache consistency). */
void nfs3_pre_op(int fd, struct pre_op_attr *pa);

/* wcc_data of @fd: @pre taken before the change, attributes now after it. */
void nfs3_wcc(const struct nfs3_obj *o, int fd, const struct pre_op_attr *pre,
	      struct wcc_data *w);

/* NFS3_OK when the export admits changes for this client, else NFS3ERR_ROFS. */
enum nfsstat3 nfs3_writable(const struct nfs3_obj *o);

/* Encode a handle for @fd of @o's export into @out, backed by @buf. */
enum nfsstat3 nfs3_handle(const struct nfs3_obj *o, int fd,
			  struct nfsx_fh *buf, struct nfs_fh3 *out);

#endif
