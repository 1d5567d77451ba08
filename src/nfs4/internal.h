/* SPDX-License-Identifier: MIT */
/*
 * What the NFSv4 operations share: the state of one COMPOUND (current
 * and saved filehandles, minor version), the operation handler type,
 * errno to nfsstat4. See nfs4.h.
 */
#ifndef NFSX_NFS4_INTERNAL_H
#define NFSX_NFS4_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "export/export.h"
#include "nfs4/clients.h"
#include "rpc/req.h"
#include "vfs/fh.h"
#include "xdr/gen/nfs4.h"

/*
 * A filehandle of the COMPOUND: none, a pseudo directory (a node of the
 * snapshot's pseudo file system), or an object of an export (resolved
 * and held: export_release).
 */
enum nfs4_fh_kind { NFS4_FH_NONE, NFS4_FH_PSEUDO, NFS4_FH_OBJ };

struct nfs4_fh {
	enum nfs4_fh_kind kind;
	uint32_t node;             /* NFS4_FH_PSEUDO */
	struct export_obj o;       /* NFS4_FH_OBJ */
};

struct nfs4_compound {
	struct rpc_req *req;
	const struct export_snap *snap;  /* held for the whole COMPOUND */
	uint32_t minorversion;
	struct nfs4_fh cur, saved;
	struct nfsx_fh fhbuf;            /* GETFH's handle, until encoded */
	char linkbuf[4096];              /* READLINK's target, until encoded */
	/* The operation encoded its result itself (GETATTR's attributes
	 * go straight into the reply). */
	bool encoded;
	uint32_t attrset[3];             /* SETATTR's / CREATE's attrsset, until encoded */
};

/*
 * An operation: reads @a, fills @r's arm for its operation whole (the
 * caller zeroed @r and set r->resop), status included.
 * Return values: the status, which stops the COMPOUND unless NFS4_OK.
 */
typedef enum nfsstat4 nfs4_op_fn(struct nfs4_compound *c, const struct nfs_argop4 *a,
				 struct nfs_resop4 *r);

/* fh_ops.c */
nfs4_op_fn nfs4_putfh, nfs4_putrootfh, nfs4_putpubfh, nfs4_getfh, nfs4_savefh,
	nfs4_restorefh, nfs4_lookup, nfs4_lookupp, nfs4_secinfo;

/* attr_ops.c */
nfs4_op_fn nfs4_getattr, nfs4_verify, nfs4_nverify, nfs4_access, nfs4_readlink;
struct nfs4_attr_src;
struct vfs_statfs;
/* What every object's attributes share (lease, sizes, minor version). */
void nfs4_src_base(const struct nfs4_compound *c, struct nfs4_attr_src *s);
/* @s for object @o of an export, whose stat is @st. */
void nfs4_src_obj(const struct nfs4_compound *c, const struct export_obj *o,
		  const struct stat *st, struct nfs4_attr_src *s);
/* @s for pseudo directory @node (@st and @sf made up here). */
void nfs4_src_pseudo(const struct nfs4_compound *c, uint32_t node, struct stat *st,
		     struct vfs_statfs *sf, struct nfs4_attr_src *s);
void nfs4_pseudo_stat(const struct export_pseudo *p, uint32_t i, struct stat *st);

/* ns_ops.c */
nfs4_op_fn nfs4_create, nfs4_remove, nfs4_rename, nfs4_link, nfs4_setattr;

/* A name as LOOKUP checks it (fh_ops.c): INVAL, NAMETOOLONG, BADNAME. */
enum nfsstat4 nfs4_check_name(const component4 *n);

/* client_ops.c */
struct nfs4_cb;
/* The server's callbacks (nfs4/callback.h), or NULL when not started. */
struct nfs4_cb *nfs4_callbacks(void);
/* Return values: whether confirmed client @clientid's callback path was
 * found up by its last probe or call (what a delegation needs). */
bool nfs4_cb_path_up(clientid4 clientid);
nfs4_op_fn nfs4_setclientid, nfs4_setclientid_confirm, nfs4_renew;
/* Renew the lease of confirmed client @clientid, as every stateful
 * operation of minor version 0 does. Return values: nfs4_clients_renew's. */
enum nfsstat4 nfs4_client_renew(clientid4 clientid);

/* readdir.c */
nfs4_op_fn nfs4_readdir;

/* Let go of what @f holds; it becomes none. */
void nfs4_fh_clear(struct nfs4_fh *f);

/* The nfsstat4 of an errno (as from export_resolve and vfs/ops.h). */
enum nfsstat4 nfs4_errno(int err);

#endif
