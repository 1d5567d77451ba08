/* SPDX-License-Identifier: MIT */
/*
 * Security flavours over NFSv4 (RFC 8881 2.6.3.1, RFC 7530 3.3.1):
 * where NFS4ERR_WRONGSEC is answered, and the lists SECINFO and
 * SECINFO_NO_NAME give.
 *
 * DESIGN
 * - A filehandle's flavours: an export object's are the sec= of the
 *   rule that admitted the caller (exports.h); a pseudo directory's,
 *   every flavour some export allows (pseudo.h).
 * - WRONGSEC is answered where knfsd answers it, its reading of RFC
 *   8881 2.6.3.1.1 (need_wrongsec_check, OP_HANDLES_WRONGSEC), from the
 *   COMPOUND's loop (nfs4_sec_after):
 *   - a put-filehandle operation (PUTFH, PUTROOTFH, PUTPUBFH,
 *     RESTOREFH) checks the filehandle it put, unless it is the last
 *     operation or the next one checks for itself or needs no check:
 *     LOOKUP, LOOKUPP, OPEN, SAVEFH, SECINFO, SECINFO_NO_NAME. So a
 *     client with the wrong flavour still learns the right ones with
 *     PUTFH+SECINFO_NO_NAME, or PUTFH+SECINFO of the name;
 *   - LOOKUP and LOOKUPP check the object they reach: crossing from the
 *     pseudo file system into an export (or into a nested export) with
 *     a flavour it does not allow is WRONGSEC there;
 *   - OPEN checks the current filehandle itself, after its seqid step
 *     (open_ops.c), so a 4.0 open-owner's seqid advances as for other
 *     errors;
 *   - SAVEFH does not: the RESTOREFH that brings the filehandle back
 *     checks it.
 * - SECINFO and SECINFO_NO_NAME never answer WRONGSEC. In 4.1 both
 *   consume the current filehandle (RFC 8881 2.6.3.1.1.8); 4.0's SECINFO
 *   keeps it, as knfsd.
 * - RPCSEC_GSS will add the rpcsec_gss_info arm (OID, QOP, service) of
 *   an entry from its pseudo-flavour here, and its calls' flavour to
 *   export_req_flavor(); the checks stay as they are.
 */
#include <string.h>

#include "nfs4/internal.h"

enum nfsstat4 nfs4_sec_check(const struct nfs4_compound *c, const struct nfs4_fh *f)
{
	switch (f->kind) {
	case NFS4_FH_OBJ:
		return export_sec_ok(c->req, f->o.client) ? NFS4_OK : NFS4ERR_WRONGSEC;
	case NFS4_FH_PSEUDO:
		return export_pseudo_sec_ok(c->snap, c->req) ? NFS4_OK : NFS4ERR_WRONGSEC;
	default:
		return NFS4_OK;
	}
}

enum nfsstat4 nfs4_sec_list(struct nfs4_compound *c, const struct nfs4_fh *f,
			    SECINFO4resok *out)
{
	uint32_t l[EXPORTS_MAX_SEC];
	const uint32_t *from = l;
	unsigned int n = 0, i;
	struct secinfo4 *v;

	if (f->kind == NFS4_FH_OBJ) {
		n = exports_sec_list(f->o.client, l);
	} else if (f->kind == NFS4_FH_PSEUDO) {
		n = c->snap->pseudo.nsec;
		from = c->snap->pseudo.sec;
	}
	/* the request's arena: given back only after the result is encoded */
	v = n ? xdr_arena_array(&c->req->arena, n, sizeof(*v)) : NULL;
	if (n && !v)
		return NFS4ERR_RESOURCE;
	for (i = 0; i < n; i++)
		v[i].flavor = from[i];
	out->len = n;
	out->val = v;
	return NFS4_OK;
}

/* May the operation numbered @next, after a put-filehandle operation,
 * leave the check of the filehandle put to itself (or not need it)? */
static bool handles_wrongsec(const struct nfs4_compound *c, uint32_t next)
{
	uint32_t last = c->minorversion ? OP_RECLAIM_COMPLETE : OP_RELEASE_LOCKOWNER;

	/* an operation the minor version does not have is OP_ILLEGAL,
	 * which ends the COMPOUND anyway (knfsd skips the check too) */
	if (next < OP_ACCESS || next > last)
		return true;
	switch (next) {
	case OP_LOOKUP:
	case OP_LOOKUPP:
	case OP_OPEN:
	case OP_SAVEFH:
	case OP_SECINFO:
	case OP_SECINFO_NO_NAME:
		return true;
	default:
		return false;
	}
}

enum nfsstat4 nfs4_sec_after(struct nfs4_compound *c, enum nfs_opnum4 op)
{
	struct xdr_dec *d = &c->req->args;

	switch (op) {
	case OP_LOOKUP:
	case OP_LOOKUPP:
		return nfs4_sec_check(c, &c->cur);
	case OP_PUTFH:
	case OP_PUTROOTFH:
	case OP_PUTPUBFH:
	case OP_RESTOREFH:
		/* a filehandle put last is not used: no check (RFC 8881
		 * 2.6.3.1.1.1); the next operation's number is where the
		 * arguments stand now */
		if (c->op_index + 1 >= c->nops || xdr_dec_left(d) < 4 ||
		    handles_wrongsec(c, xdr__get32(d->p)))
			return NFS4_OK;
		return nfs4_sec_check(c, &c->cur);
	default:
		return NFS4_OK;
	}
}

enum nfsstat4 nfs4_secinfo_no_name(struct nfs4_compound *c, const struct nfs_argop4 *a,
				   struct nfs_resop4 *r)
{
	SECINFO_NO_NAME4res *res = &r->u.opsecinfo_no_name;
	struct nfs_resop4 up;
	enum nfsstat4 st;

	switch (a->u.opsecinfo_no_name) {
	case SECINFO_STYLE4_CURRENT_FH:
		st = c->cur.kind == NFS4_FH_NONE ? NFS4ERR_NOFILEHANDLE : NFS4_OK;
		break;
	case SECINFO_STYLE4_PARENT:
		/* LOOKUPP's answer: NOENT at the root, NOTDIR on a file
		 * (not its flavour check: that is the compound's, after a
		 * LOOKUPP operation) */
		memset(&up, 0, sizeof(up));
		st = nfs4_lookupp(c, a, &up);
		break;
	default:
		st = NFS4ERR_INVAL;
		break;
	}
	if (st == NFS4_OK)
		st = nfs4_sec_list(c, &c->cur, &res->u.resok4);
	if (st != NFS4_OK)
		return res->status = st;
	/* the current filehandle is consumed (RFC 8881 18.45.3) */
	nfs4_fh_clear(&c->cur);
	return res->status = NFS4_OK;
}
