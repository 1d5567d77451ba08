/* SPDX-License-Identifier: MIT */
/*
 * Server-side copies of NFSv4.2 (RFC 7862 sections 15.2, 15.13): COPY
 * and CLONE; asynchronous copies and OFFLOAD_* are copy_async.c's.
 *
 * DESIGN
 * - The saved filehandle is the source, the current one the
 *   destination; both regular files (ISDIR, INVAL otherwise, as READ
 *   and WRITE answer). The source's stateid is checked for reading as
 *   READ checks it (other clients' write delegations recalled), the
 *   destination's for writing as WRITE's (the file marked changing and
 *   every other client's delegation recalled: DELAY meanwhile), the
 *   source's with the source as current filehandle so that 4.1's
 *   "current stateid" means the one the source was saved with. Both
 *   are opened for I/O as READ and WRITE open them (the caller's
 *   permission, the owner's override), through the backend's copy and
 *   clone (vfs/ops.h), never a system call of this layer.
 * - A source range past the source's end is INVAL (RFC 7862 15.2.3,
 *   15.13.3; knfsd copies short instead); a count of 0 means to the end
 *   of the source; overlapping ranges of one file are the backend's
 *   INVAL.
 * - CLONE is FICLONERANGE (the POSIX backend's clone): a file system
 *   that cannot share blocks (tmpfs) answers NOTSUPP, ranges not
 *   aligned to its block INVAL, two file systems XDEV, all the kernel's
 *   answers. clone_blksize is the file system's block (attr.c), as
 *   knfsd tells it; the kernel checks the alignment all the same.
 * - COPY is within this server only: a source server named
 *   (ca_source_server) is NOTSUPP. Synchronous when the client asks
 *   (ca_synchronous) or an asynchronous copy cannot start here
 *   (copy_async.c): wr_callback_id empty, cr_consecutive and
 *   cr_synchronous true. Like knfsd, one synchronous COPY copies at
 *   most COPY_SYNC_MAX bytes, so that a worker is never held for long;
 *   the client goes on from wr_count (a short copy is allowed). Its data
 *   is not synced: UNSTABLE4 with WRITE's verifier, for COMMIT.
 */
#include <fcntl.h>
#include <string.h>

#include "nfs4/internal.h"
#include "vfs/dir.h"

/* The most one synchronous COPY copies (knfsd's limit: 4 MiB). */
#define COPY_SYNC_MAX (4u * 1024 * 1024)

/* The saved filehandle becomes the current one and back. */
static void swap_fh(struct nfs4_compound *c)
{
	struct nfs4_fh t = c->cur;

	c->cur = c->saved;
	c->saved = t;
}

/*
 * The source (saved) and destination (current) of a COPY or CLONE with
 * stateids @ssid and @dsid checked, opened for I/O into @sio and @dio,
 * the source's size into *@ssize.
 * Return values: NFS4_OK, or the status that answers the operation.
 */
static enum nfsstat4 two_files(struct nfs4_compound *c, const struct stateid4 *ssid,
			       const struct stateid4 *dsid, struct vfs_obj *sio,
			       struct vfs_obj *dio, uint64_t *ssize)
{
	struct stat st;
	enum nfsstat4 s;
	int e;

	if (c->cur.kind == NFS4_FH_NONE || c->saved.kind == NFS4_FH_NONE)
		return NFS4ERR_NOFILEHANDLE;
	swap_fh(c);
	s = nfs4_cur_file(c, NULL);
	if (s == NFS4_OK)
		s = nfs4_check_read(c, nfs4_sid(c, ssid));
	swap_fh(c);
	if (s != NFS4_OK)
		return s;
	s = nfs4_cur_file(c, NULL);
	if (s == NFS4_OK && !c->cur.o.client->opts.rw)
		s = NFS4ERR_ROFS;
	if (s == NFS4_OK)
		s = nfs4_check_change(c, nfs4_sid(c, dsid));
	if (s != NFS4_OK)
		return s;
	if ((e = export_open_io(&c->saved.o, O_RDONLY, sio)) < 0 ||
	    (e = export_open_io(&c->cur.o, O_WRONLY, dio)) < 0)
		return nfs4_errno(e);
	e = c->saved.o.vexp->ops->getattr(c->saved.o.vexp, &c->saved.o.obj, &st);
	if (e < 0)
		return nfs4_errno(e);
	*ssize = (uint64_t)st.st_size;
	return NFS4_OK;
}

/* Does [@off, @off + @count) (@count 0: to the end) lie within a source
 * of @size bytes? (RFC 7862 15.2.3) */
static bool in_source(uint64_t off, uint64_t count, uint64_t size)
{
	return off <= size && count <= size - off;
}

enum nfsstat4 nfs4_clone(struct nfs4_compound *c, const struct nfs_argop4 *a,
			 struct nfs_resop4 *r)
{
	const struct CLONE4args *ca = &a->u.opclone;
	const struct vfs_export *v;
	struct vfs_obj sio, dio;
	uint64_t size = 0;
	enum nfsstat4 st;
	int e;

	st = two_files(c, &ca->cl_src_stateid, &ca->cl_dst_stateid, &sio, &dio, &size);
	if (st == NFS4_OK && !in_source(ca->cl_src_offset, ca->cl_count, size))
		st = NFS4ERR_INVAL;
	if (st != NFS4_OK)
		return r->u.opclone.cl_status = st;
	v = c->cur.o.vexp;
	if (!v->ops->clone || c->saved.o.vexp->ops != v->ops)
		return r->u.opclone.cl_status = NFS4ERR_NOTSUPP;
	e = v->ops->clone(v, &sio, ca->cl_src_offset, &dio, ca->cl_dst_offset, ca->cl_count);
	if (e < 0)
		return r->u.opclone.cl_status = nfs4_errno(e);
	vfs_dir_changed();
	return r->u.opclone.cl_status = NFS4_OK;
}

enum nfsstat4 nfs4_copy(struct nfs4_compound *c, const struct nfs_argop4 *a,
			struct nfs_resop4 *r)
{
	const struct COPY4args *ca = &a->u.opcopy;
	struct COPY4res *res = &r->u.opcopy;
	struct write_response4 *w = &res->u.cr_resok4.cr_response;
	const struct vfs_export *v;
	struct vfs_obj sio, dio;
	uint64_t size = 0, count;
	enum nfsstat4 st;
	int64_t n;

	if (ca->ca_source_server.len)
		return res->cr_status = NFS4ERR_NOTSUPP;
	st = two_files(c, &ca->ca_src_stateid, &ca->ca_dst_stateid, &sio, &dio, &size);
	if (st == NFS4_OK && !in_source(ca->ca_src_offset, ca->ca_count, size))
		st = NFS4ERR_INVAL;
	if (st != NFS4_OK)
		return res->cr_status = st;
	v = c->cur.o.vexp;
	if (!v->ops->copy || c->saved.o.vexp->ops != v->ops)
		return res->cr_status = NFS4ERR_NOTSUPP;
	count = ca->ca_count ? ca->ca_count : size - ca->ca_src_offset;
	if (!ca->ca_synchronous && count > 0) {
		struct stateid4 *sid = xdr_arena_alloc(&c->req->arena, sizeof(*sid));

		st = sid ? nfs4_copy_async(c, &sio, &dio, ca->ca_src_offset, ca->ca_dst_offset,
					   count, sid) :
			   NFS4ERR_NOTSUPP;
		if (st == NFS4_OK) {
			w->wr_callback_id.len = 1;
			w->wr_callback_id.val = sid;
			w->wr_count = 0;
			w->wr_committed = UNSTABLE4;
			w->wr_writeverf = nfs4_write_verf;
			res->u.cr_resok4.cr_requirements.cr_consecutive = true;
			res->u.cr_resok4.cr_requirements.cr_synchronous = false;
			return res->cr_status = NFS4_OK;
		}
		/* NOTSUPP: not here, done synchronously instead */
		if (st != NFS4ERR_NOTSUPP)
			return res->cr_status = st;
	}
	if (count > COPY_SYNC_MAX)
		count = COPY_SYNC_MAX;
	n = count ? v->ops->copy(v, &sio, ca->ca_src_offset, &dio, ca->ca_dst_offset, count) : 0;
	if (n < 0)
		return res->cr_status = nfs4_errno((int)n);
	if (n > 0)
		vfs_dir_changed();
	w->wr_callback_id.len = 0;
	w->wr_count = (uint64_t)n;
	w->wr_committed = UNSTABLE4;
	w->wr_writeverf = nfs4_write_verf;
	res->u.cr_resok4.cr_requirements.cr_consecutive = true;
	res->u.cr_resok4.cr_requirements.cr_synchronous = true;
	return res->cr_status = NFS4_OK;
}
