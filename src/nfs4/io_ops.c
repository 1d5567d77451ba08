/* SPDX-License-Identifier: MIT */
/*
 * READ, WRITE, COMMIT (RFC 7530 sections 16.23, 16.36, 16.3).
 *
 * DESIGN
 * - The stateid is checked against the open state (state.h): an open
 *   of the file by a confirmed owner, for writing to WRITE; the special
 *   stateids as knfsd takes them (check_special_stateids). The file is
 *   then opened for I/O as NFSv3 opens it (export_open_io: the caller's
 *   permission, or the owner's override), so a stateid never gives more
 *   than the file system allows the caller. Another client's write
 *   delegation of the file is recalled first (DELAY meanwhile): by
 *   WRITE as any change, by READ since its holder may have written what
 *   the server has not seen.
 * - READ's data goes from the backend's read straight into the reply
 *   buffer at its place in the encoded result (copied once before the
 *   socket); eof is a short read or the end of the file as the COMPOUND
 *   found it. A large READ of a memory-backed file is not copied by the
 *   server at all: the reply sends from the node's kept mapping, as
 *   NFSv3's READ does (read_mapped below).
 * - WRITE's data is a view into the request record; UNSTABLE4 is not
 *   synced, DATA_SYNC4 ends with fdatasync, FILE_SYNC4 with fsync, and
 *   the reply says what was done. Offsets past what a file can hold are
 *   FBIG for WRITE and INVAL for READ and COMMIT, as knfsd answers.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>

#include "nfs4/internal.h"
#include "util/log.h"

verifier4 nfs4_write_verf;

/* READ and READ_PLUS data sent from a mapping, for the debug log at the
 * end: counted only at the debug level, as compound.c counts where
 * COMPOUNDs ran. */
static atomic_uint_fast64_t mapped_reads;

void nfs4_io_log_counts(void)
{
	log_debug("NFSv4: %" PRIu64 " READ or READ_PLUS data range(s) sent from a file's mapping",
		  (uint64_t)atomic_load(&mapped_reads));
}

enum nfsstat4 nfs4_cur_file(const struct nfs4_compound *c, struct nfs4_file_id *f)
{
	const struct export_obj *o = &c->cur.o;

	if (c->cur.kind == NFS4_FH_NONE)
		return NFS4ERR_NOFILEHANDLE;
	if (c->cur.kind == NFS4_FH_PSEUDO)
		return NFS4ERR_ISDIR;
	if (!o->have_st)
		return NFS4ERR_IO;
	if (!S_ISREG(o->st.st_mode))
		return S_ISDIR(o->st.st_mode) ? NFS4ERR_ISDIR : NFS4ERR_INVAL;
	if (f)
		nfs4_file_id_of(o, f);
	return NFS4_OK;
}

/* The node held for a reply that sends from its mapping. */
static void ext_node_put(void *node, size_t len)
{
	(void)len;
	vfs_node_put(node);
}

const uint8_t *nfs4_map_range(struct nfs4_compound *c, struct vfs_obj *io, uint64_t off,
			      uint32_t *count, uint64_t *size)
{
	struct export_obj *o = &c->cur.o;
	struct rpc_req *rq = c->req;
	const uint8_t *data;
	struct stat st;
	uint32_t n = *count;

	if (!o->vexp->mem_backed || !o->node || rq->ext || rq->drc_keyed || !o->have_st ||
	    n < NFS4_MAP_READ_MIN || off >= (uint64_t)o->st.st_size)
		return NULL;
	if (n > (uint64_t)o->st.st_size - off)
		n = (uint32_t)((uint64_t)o->st.st_size - off);
	if (n < NFS4_MAP_READ_MIN)
		return NULL;
	data = export_map_read(o, off, n);
	if (!data || o->vexp->ops->getattr(o->vexp, io, &st) < 0)
		return NULL;
	if (off + n > (uint64_t)st.st_size) {
		if (off >= (uint64_t)st.st_size)
			return NULL;
		n = (uint32_t)((uint64_t)st.st_size - off);
	}
	*count = n;
	*size = (uint64_t)st.st_size;
	return data;
}

bool nfs4_map_attach(struct nfs4_compound *c, const uint8_t *data, uint32_t count)
{
	struct export_obj *o = &c->cur.o;
	struct rpc_req *rq = c->req;

	vfs_node_hold(o->node);
	if (rpc_req_set_ext(rq, data, count, ext_node_put, o->node, 0)) {
		vfs_node_put(o->node);
		return false;
	}
	memset(rq->enc.p, 0, xdr_pad(count) - count);
	rq->enc.p += xdr_pad(count) - count;
	if (nfsx_log_threshold >= NFSX_LOG_DEBUG)
		atomic_fetch_add_explicit(&mapped_reads, 1, memory_order_relaxed);
	return true;
}

/* READ from the mapping (nfs4_map_range). Return values: true when
 * encoded (c->encoded set); false with nothing encoded. */
static bool read_mapped(struct nfs4_compound *c, struct vfs_obj *io, uint64_t off,
			uint32_t count)
{
	struct rpc_req *rq = c->req;
	const uint8_t *data;
	uint8_t *start;
	uint64_t size;

	if (rpc_req_reply_reserve(rq, xdr_enc_len(&rq->enc) + 16 + 4) < 0 ||
	    !(data = nfs4_map_range(c, io, off, &count, &size)))
		return false;
	start = rq->enc.p;
	xdr_enc_u32(&rq->enc, OP_READ);
	xdr_enc_u32(&rq->enc, NFS4_OK);
	xdr_enc_bool(&rq->enc, off + count >= size);
	xdr_enc_u32(&rq->enc, count);
	if (!nfs4_map_attach(c, data, count)) {
		rq->enc.p = start;
		return false;
	}
	c->encoded = true;
	return true;
}

enum nfsstat4 nfs4_read(struct nfs4_compound *c, const struct nfs_argop4 *a,
			struct nfs_resop4 *r)
{
	const struct READ4args *ra = &a->u.opread;
	struct export_obj *o = &c->cur.o;
	struct rpc_req *rq = c->req;
	struct vfs_obj io;
	uint32_t count;
	uint8_t *head;
	size_t at;
	ssize_t n;
	bool eof;
	int e;

	enum nfsstat4 st = nfs4_cur_file(c, NULL);

	if (st == NFS4_OK)
		st = nfs4_check_read(c, nfs4_sid(c, &ra->stateid));
	if (st == NFS4_OK && ra->offset > (uint64_t)INT64_MAX)
		st = NFS4ERR_INVAL;
	if (st == NFS4_OK && (e = export_open_io(o, O_RDONLY, &io)) < 0)
		st = nfs4_errno(e);
	if (st != NFS4_OK)
		return r->u.opread.status = st;
	count = ra->count < NFS4_IO_MAX ? ra->count : NFS4_IO_MAX;
	/* nothing lies past what a file can hold: a short read there */
	if ((uint64_t)count > (uint64_t)INT64_MAX - ra->offset)
		count = (uint32_t)((uint64_t)INT64_MAX - ra->offset);
	if (read_mapped(c, &io, ra->offset, count))
		return r->u.opread.status = NFS4_OK;
	at = xdr_enc_len(&rq->enc);
	/* resop, status, eof, length, then the data and its padding */
	if (rpc_req_reply_reserve(rq, at + 16 + count + 4) < 0 ||
	    !(head = xdr_enc_reserve(&rq->enc, 16)))
		return r->u.opread.status = NFS4ERR_RESOURCE;
	n = count ? o->vexp->ops->read(o->vexp, &io, head + 16, count, ra->offset, 0) : 0;
	if (n < 0) {
		rq->enc.p = rq->enc.start + at;
		return r->u.opread.status = nfs4_errno((int)n);
	}
	eof = (uint32_t)n < count || ra->offset + (uint64_t)n >= (uint64_t)o->st.st_size;
	rq->enc.p = head;
	xdr_enc_u32(&rq->enc, OP_READ);
	xdr_enc_u32(&rq->enc, NFS4_OK);
	xdr_enc_bool(&rq->enc, eof);
	xdr_enc_u32(&rq->enc, (uint32_t)n);
	rq->enc.p += n;
	memset(rq->enc.p, 0, xdr_pad((size_t)n) - (size_t)n);
	rq->enc.p += xdr_pad((size_t)n) - (size_t)n;
	c->encoded = true;
	return r->u.opread.status = NFS4_OK;
}

enum nfsstat4 nfs4_change_open(struct nfs4_compound *c, const struct stateid4 *sid,
			       enum nfsstat4 range, struct vfs_obj *io)
{
	enum nfsstat4 st = nfs4_cur_file(c, NULL);
	int e;

	if (st == NFS4_OK)
		st = nfs4_check_change(c, nfs4_sid(c, sid));
	if (st == NFS4_OK && !c->cur.o.client->opts.rw)
		st = NFS4ERR_ROFS;
	if (st == NFS4_OK)
		st = range;
	if (st == NFS4_OK && (e = export_open_io(&c->cur.o, O_WRONLY, io)) < 0)
		st = nfs4_errno(e);
	return st;
}

enum nfsstat4 nfs4_write(struct nfs4_compound *c, const struct nfs_argop4 *a,
			 struct nfs_resop4 *r)
{
	const struct WRITE4args *wa = &a->u.opwrite;
	struct WRITE4res *res = &r->u.opwrite;
	struct export_obj *o = &c->cur.o;
	uint32_t len = wa->data.len, done = 0;
	struct vfs_obj io;
	enum nfsstat4 st;
	ssize_t n;
	int e;

	st = wa->offset > (uint64_t)INT64_MAX || wa->offset + len > (uint64_t)INT64_MAX ?
		     NFS4ERR_FBIG : NFS4_OK;
	st = nfs4_change_open(c, &wa->stateid, st, &io);
	if (st != NFS4_OK)
		return res->status = st;
	while (done < len) {
		n = o->vexp->ops->write(o->vexp, &io, wa->data.data + done, len - done,
					wa->offset + done);
		if (n <= 0) {
			/* a short write that wrote something is a short count */
			if (done)
				break;
			return res->status = n < 0 ? nfs4_errno((int)n) : NFS4ERR_IO;
		}
		done += (uint32_t)n;
	}
	res->u.resok4.committed = UNSTABLE4;
	if (wa->stable != UNSTABLE4) {
		e = o->vexp->ops->commit(o->vexp, &io, wa->stable == DATA_SYNC4);
		if (e < 0)
			return res->status = nfs4_errno(e);
		res->u.resok4.committed = wa->stable == DATA_SYNC4 ? DATA_SYNC4 : FILE_SYNC4;
	}
	res->u.resok4.count = done;
	res->u.resok4.writeverf = nfs4_write_verf;
	return res->status = NFS4_OK;
}

enum nfsstat4 nfs4_commit(struct nfs4_compound *c, const struct nfs_argop4 *a,
			  struct nfs_resop4 *r)
{
	const struct COMMIT4args *ca = &a->u.opcommit;
	struct COMMIT4res *res = &r->u.opcommit;
	struct export_obj *o = &c->cur.o;
	struct vfs_obj io;
	enum nfsstat4 st;
	int e;

	st = nfs4_cur_file(c, NULL);
	if (st == NFS4_OK && (ca->offset > (uint64_t)INT64_MAX ||
			      ca->offset + ca->count > (uint64_t)INT64_MAX))
		st = NFS4ERR_INVAL;
	if (st == NFS4_OK && (e = export_open_io(o, O_WRONLY, &io)) < 0)
		st = nfs4_errno(e);
	if (st == NFS4_OK && (e = o->vexp->ops->commit(o->vexp, &io, false)) < 0)
		st = nfs4_errno(e);
	if (st == NFS4_OK)
		res->u.resok4.writeverf = nfs4_write_verf;
	return res->status = st;
}
