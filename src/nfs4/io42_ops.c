/* SPDX-License-Identifier: MIT */
/*
 * The I/O operations of NFSv4.2 (RFC 7862): SEEK (15.11), ALLOCATE
 * (15.1), DEALLOCATE (15.4), READ_PLUS (15.10) and IO_ADVISE (15.5).
 *
 * DESIGN
 * - ALLOCATE and DEALLOCATE change the file as WRITE does and check what
 *   WRITE checks, with WRITE's code (nfs4_change_open): a stateid for
 *   writing, the file marked changing and other clients' delegations
 *   recalled first (DELAY meanwhile), ROFS on a read-only export. Their
 *   errors are the file system's as knfsd maps them (nfs4_errno: an
 *   fallocate mode the file system lacks is EOPNOTSUPP, NOTSUPP; a zero
 *   length or an offset past what an off_t holds INVAL; a range ending
 *   past it FBIG). A backend without the call answers NOTSUPP.
 * - SEEK reads with READ's checks (nfs4_check_read): the stateid for
 *   reading, and another client's write delegation recalled, since its
 *   holder may have written where the server still sees a hole. As
 *   knfsd: NXIO when there is no data (or hole) at or after the offset,
 *   sr_eof when the answer is at or past the end of the file.
 * - READ_PLUS answers as READ would where nothing is to be gained: a
 *   file whose allocated size covers its length has no hole worth a
 *   seek and goes out as one data segment, its data sent as READ's are:
 *   from the file's mapping on a memory-backed export (rp_mapped,
 *   nfs4_map_range), else read straight into the reply. Only a
 *   sparse file is mapped (rp_map.c: a bounded number of SEEK_DATA /
 *   SEEK_HOLE, holes shorter than 4 KiB sent as zeros). rpa_count bounds
 *   the bytes of the file a reply describes (as READ's count, at most
 *   NFS4_IO_MAX), holes included, each segment cut to the range; the
 *   reply is also kept within the session's ca_maxresponsesize, its last
 *   segment cut, since the client cannot know how many segments there
 *   will be. rpr_eof is true exactly when the last segment reaches the
 *   end of the file as the COMPOUND's PUTFH found it (READ's eof does the
 *   same), or as a getattr finds it after the COMPOUND changed a file,
 *   or where a short read ends the data. What the seeks found is
 *   remembered per file while the file does not change (rp_cache.h: 64
 *   extents for each of 256 files, valid for the file's size, st_blocks,
 *   ctime and nfsxd's count of its changes, vfs_change_seq, all checked
 *   against the stat this READ_PLUS has anyway: no system call more), so
 *   a sequential reader does not ask again what the seeks of an earlier
 *   call answered. The map made is the same as without it.
 * - READ_PLUS may run on an event loop as READ does (compound.c's inline
 *   plan, memory-backed exports only, 128 KiB in all): there its seeks
 *   and getattr do not wait, and a small READ_PLUS is not sent to a
 *   worker where a READ of the same bytes would not be.
 * - IO_ADVISE applies the hints posix_fadvise has (NORMAL, SEQUENTIAL,
 *   RANDOM, WILLNEED, DONTNEED, NOREUSE) and answers the ones applied;
 *   of hints that contradict each other (two access patterns, WILLNEED
 *   and DONTNEED) none is applied. Advice is a hint: a failure to apply
 *   one leaves it out of the answer rather than failing the operation.
 * - Not here, NOTSUPP (missing from compound.c's ops[]): WRITE_SAME
 *   (application data blocks have no file system call to map to; knfsd
 *   does the same), LAYOUTSTATS and LAYOUTERROR. The last two report on
 *   a layout (their stateid is a layout stateid, RFC 7862 15.6, 15.7);
 *   nfsxd serves no pNFS (EXCHANGE_ID sets no USE_PNFS_MDS) and never
 *   grants a layout, so, being OPTIONAL operations of a feature not
 *   offered, NOTSUPP is their answer, as knfsd built without pNFS gives.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "nfs4/internal.h"
#include "nfs4/rp_cache.h"
#include "nfs4/rp_map.h"
#include "util/log.h"

/* ---- SEEK ---- */

enum nfsstat4 nfs4_seek(struct nfs4_compound *c, const struct nfs_argop4 *a,
			struct nfs_resop4 *r)
{
	const struct SEEK4args *sa = &a->u.opseek;
	struct SEEK4res *res = &r->u.opseek;
	struct export_obj *o = &c->cur.o;
	struct vfs_obj io;
	struct stat st;
	uint64_t at;
	int e;

	enum nfsstat4 s = nfs4_cur_file(c, NULL);

	if (s == NFS4_OK)
		s = nfs4_check_read(c, nfs4_sid(c, &sa->sa_stateid));
	if (s == NFS4_OK && sa->sa_what != NFS4_CONTENT_DATA && sa->sa_what != NFS4_CONTENT_HOLE)
		s = NFS4ERR_UNION_NOTSUPP;
	if (s == NFS4_OK && !o->vexp->ops->seek)
		s = NFS4ERR_NOTSUPP;
	if (s == NFS4_OK && (e = export_open_io(o, O_RDONLY, &io)) < 0)
		s = nfs4_errno(e);
	if (s == NFS4_OK &&
	    (e = o->vexp->ops->seek(o->vexp, &io, sa->sa_offset,
				    sa->sa_what == NFS4_CONTENT_DATA ? VFS_SEEK_DATA :
								       VFS_SEEK_HOLE,
				    &at)) < 0)
		s = nfs4_errno(e);
	/* the size after the seek: the answer is never past it but at it */
	if (s == NFS4_OK && (e = o->vexp->ops->getattr(o->vexp, &io, &st)) < 0)
		s = nfs4_errno(e);
	if (s != NFS4_OK)
		return res->sa_status = s;
	res->u.resok4.sr_offset = at;
	res->u.resok4.sr_eof = at >= (uint64_t)st.st_size;
	return res->sa_status = NFS4_OK;
}

/* ---- ALLOCATE, DEALLOCATE ---- */

/* ALLOCATE (@punch false) or DEALLOCATE of [@off, @off + @len) with @sid. */
static enum nfsstat4 fallocate_op(struct nfs4_compound *c, const struct stateid4 *sid,
				  uint64_t off, uint64_t len, bool punch)
{
	struct export_obj *o = &c->cur.o;
	const struct vfs_ops *ops = o->vexp->ops;
	struct vfs_obj io;
	enum nfsstat4 s;
	int e;

	/* as vfs_fallocate answers knfsd: a negative offset or no length is
	 * EINVAL, an end past what the file system holds EFBIG */
	if (off > (uint64_t)INT64_MAX || len == 0)
		s = NFS4ERR_INVAL;
	else if (len > (uint64_t)INT64_MAX - off)
		s = NFS4ERR_FBIG;
	else
		s = NFS4_OK;
	if (s == NFS4_OK && !(punch ? ops->deallocate : ops->allocate))
		s = NFS4ERR_NOTSUPP;
	s = nfs4_change_open(c, sid, s, &io);
	if (s != NFS4_OK)
		return s;
	e = punch ? ops->deallocate(o->vexp, &io, off, len) : ops->allocate(o->vexp, &io, off, len);
	return nfs4_errno(e);
}

enum nfsstat4 nfs4_allocate(struct nfs4_compound *c, const struct nfs_argop4 *a,
			    struct nfs_resop4 *r)
{
	const struct ALLOCATE4args *aa = &a->u.opallocate;

	return r->u.opallocate.ar_status =
		       fallocate_op(c, &aa->aa_stateid, aa->aa_offset, aa->aa_length, false);
}

enum nfsstat4 nfs4_deallocate(struct nfs4_compound *c, const struct nfs_argop4 *a,
			      struct nfs_resop4 *r)
{
	const struct DEALLOCATE4args *da = &a->u.opdeallocate;

	return r->u.opdeallocate.dr_status =
		       fallocate_op(c, &da->da_stateid, da->da_offset, da->da_length, true);
}

/* ---- IO_ADVISE ---- */

enum nfsstat4 nfs4_io_advise(struct nfs4_compound *c, const struct nfs_argop4 *a,
			     struct nfs_resop4 *r)
{
	/* the hints posix_fadvise has, by IO_ADVISE4_* bit */
	static const struct {
		enum IO_ADVISE_type4 hint;
		enum vfs_advice adv;
	} map[] = {
		{ IO_ADVISE4_NORMAL, VFS_ADV_NORMAL },
		{ IO_ADVISE4_SEQUENTIAL, VFS_ADV_SEQUENTIAL },
		{ IO_ADVISE4_RANDOM, VFS_ADV_RANDOM },
		{ IO_ADVISE4_WILLNEED, VFS_ADV_WILLNEED },
		{ IO_ADVISE4_DONTNEED, VFS_ADV_DONTNEED },
		{ IO_ADVISE4_NOREUSE, VFS_ADV_NOREUSE },
	};
	const uint32_t pattern = 1u << IO_ADVISE4_NORMAL | 1u << IO_ADVISE4_SEQUENTIAL |
				 1u << IO_ADVISE4_SEQUENTIAL_BACKWARDS | 1u << IO_ADVISE4_RANDOM;
	const uint32_t need = 1u << IO_ADVISE4_WILLNEED | 1u << IO_ADVISE4_DONTNEED;
	const struct IO_ADVISE4args *ia = &a->u.opio_advise;
	struct IO_ADVISE4res *res = &r->u.opio_advise;
	struct export_obj *o = &c->cur.o;
	uint32_t want = ia->iaa_hints.len ? ia->iaa_hints.val[0] : 0, done = 0, *w;
	struct vfs_obj io;
	size_t i;
	int e;

	enum nfsstat4 s = nfs4_cur_file(c, NULL);

	if (s == NFS4_OK)
		s = nfs4_check_stateid(c, nfs4_sid(c, &ia->iaa_stateid), false);
	if (s == NFS4_OK && (e = export_open_io(o, O_RDONLY, &io)) < 0)
		s = nfs4_errno(e);
	if (s == NFS4_OK && !(w = xdr_arena_alloc(&c->req->arena, sizeof(*w))))
		s = NFS4ERR_RESOURCE;
	if (s != NFS4_OK)
		return res->ior_status = s;
	/* contradictions: none of them */
	if ((want & pattern) & ((want & pattern) - 1))
		want &= ~pattern;
	if ((want & need) == need)
		want &= ~need;
	for (i = 0; o->vexp->ops->advise && i < sizeof(map) / sizeof(map[0]); i++) {
		if (!(want & 1u << map[i].hint))
			continue;
		if (o->vexp->ops->advise(o->vexp, &io, ia->iaa_offset, ia->iaa_count,
					 map[i].adv) == 0)
			done |= 1u << map[i].hint;
	}
	*w = done;
	res->u.resok4.ior_hints.len = 1;
	res->u.resok4.ior_hints.val = w;
	return res->ior_status = NFS4_OK;
}

/* ---- READ_PLUS ---- */

struct rp_file {
	struct export_obj *o;
	struct vfs_obj *io;
	bool no_io;              /* on a loop, a file on a disk: no real seek */
	bool wanted_io;          /* ... and one was needed */
};

static int rp_seek(void *ctx, uint64_t off, bool data, uint64_t *out)
{
	struct rp_file *f = ctx;

	if (f->no_io) {
		f->wanted_io = true;
		return -EWOULDBLOCK;
	}
	return f->o->vexp->ops->seek(f->o->vexp, f->io, off, data ? VFS_SEEK_DATA : VFS_SEEK_HOLE,
				     out);
}

/* The file whose stat is @st as a map is valid for, into @v. Return
 * values: may a remembered map be used for it? (see rp_cache.h) */
static bool rp_ver(const struct stat *st, struct nfs4_rp_ver *v)
{
	struct timespec now;

	*v = (struct nfs4_rp_ver){
		.dev = (uint64_t)st->st_dev,
		.ino = (uint64_t)st->st_ino,
		.size = (uint64_t)st->st_size,
		.blocks = (uint64_t)st->st_blocks,
		.ctime_ns = (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec,
	};
	/* no change of it by nfsxd in flight, and its ctime old enough that
	 * a change after this map would have a later one */
	return vfs_change_seq(st->st_dev, st->st_ino, &v->seq) &&
	       clock_gettime(CLOCK_REALTIME, &now) == 0 &&
	       nfs4_rp_cache_settled(v->ctime_ns, (int64_t)now.tv_sec * 1000000000 + now.tv_nsec);
}

bool nfs4_read_plus_no_io(const struct export_obj *o, uint64_t off, uint32_t count)
{
	struct nfs4_rp_ver v;
	uint64_t end;

	if (!o->have_st || !S_ISREG(o->st.st_mode) || o->st.st_size < 0 ||
	    vfs_node_io_fd(o->node, O_RDONLY) < 0 || !rp_ver(&o->st, &v))
		return false;
	count = count < NFS4_IO_MAX ? count : NFS4_IO_MAX;
	end = off > UINT64_MAX - count ? UINT64_MAX : off + count;
	return nfs4_rp_cache_hole(&v, off, end);
}

/* Map [@off, @end) of the file @f whose stat is @st into @segs, the
 * seeks answered from its remembered map where it has one (rp_cache.h). */
static unsigned int rp_map_cached(struct rp_file *f, const struct stat *st, uint64_t off,
				  uint64_t end, struct nfs4_rp_seg *segs)
{
	struct nfs4_rp_known k;
	struct nfs4_rp_ver v;
	bool trusted = rp_ver(st, &v);
	unsigned int n;

	nfs4_rp_cache_begin(&k, &v, trusted, off, rp_seek, f);
	n = nfs4_rp_map(off, end, nfs4_rp_cache_seek, &k, segs);
	nfs4_rp_cache_end(&k);
	return n;
}

void nfs4_rp_log_counts(void)
{
	uint64_t seeks, answered;

	nfs4_rp_cache_counts(&seeks, &answered);
	log_debug("NFSv4: %" PRIu64 " READ_PLUS seek(s) made, %" PRIu64
		  " answered from the hole map", seeks, answered);
}

/* The reply's room left for this result under the session's limit
 * (SIZE_MAX: none), as compound.c counts it. */
static size_t rp_room(const struct nfs4_compound *c)
{
	const struct rpc_req *rq = c->req;
	size_t used = xdr_enc_len(&rq->enc) + rq->ext_len;
	size_t limit;

	if (!c->slot.s)
		return SIZE_MAX;
	limit = c->slot.cachethis ? c->slot.max_resp_cached : c->slot.max_resp;
	return limit > used ? limit - used : 0;
}

/*
 * Cut @segs (@n) so that their encoding fits @room bytes with the
 * result's 16 bytes of head (one segment is always kept: when not even
 * its head fits, compound.c answers REP_TOO_BIG, as for a READ).
 * Return values: the segments kept.
 */
static unsigned int rp_fit(struct nfs4_rp_seg *segs, unsigned int n, size_t room)
{
	size_t used = 16;
	unsigned int i;

	for (i = 0; i < n; i++) {
		size_t need = segs[i].hole ? 20 : 16 + xdr_pad((uint32_t)segs[i].len);

		if (used + need <= room) {
			used += need;
			continue;
		}
		if (!segs[i].hole && used + 16 + 4 <= room) {
			/* the data that fits, whole XDR units */
			segs[i].len = (room - used - 16) & ~(size_t)3;
			return i + 1;
		}
		return i ? i : 1;
	}
	return n;
}

/*
 * On an event loop: the segments cut so that their data stays within
 * @left bytes, less what they take (*left), the last data segment cut
 * short, what follows it dropped: a short reply, eof false, from which
 * the client asks for the rest (RFC 7862 15.10.3). nfs4_inline_plan let the
 * call run here expecting the file's allocation to bound its data; a
 * file that gained data since, or stripes too fine for the map's seeks
 * (sent as data), would otherwise copy up to a whole reply on the loop.
 * At least 4 KiB of data is kept, so that a reader always moves on.
 * Return values: the segments kept.
 */
static unsigned int rp_trim(struct nfs4_rp_seg *segs, unsigned int n, uint32_t *left)
{
	uint64_t room = *left > 4096 ? *left : 4096, start = room;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (segs[i].hole)
			continue;
		if (segs[i].len >= room) {
			segs[i].len = room;
			room = 0;
			i++;
			break;
		}
		room -= segs[i].len;
	}
	*left = start - room >= *left ? 0 : *left - (uint32_t)(start - room);
	return i;
}

/* A READ_PLUS on a loop that finds it would wait (the file changed since
 * the COMPOUND was planned): SEQUENCE holds the slot, so the call is
 * answered DELAY (nfs4_compound) and the client sends it again. */
static enum nfsstat4 rp_would_block(struct nfs4_compound *c)
{
	c->would_block = true;
	return NFS4ERR_DELAY;
}

/* A result of one data segment @seg sent from the file's mapping, as a
 * large READ's (nfs4_map_range). Return values: true when encoded
 * (c->encoded set); false with nothing encoded. */
static bool rp_mapped(struct nfs4_compound *c, struct vfs_obj *io, const struct nfs4_rp_seg *seg)
{
	struct rpc_req *rq = c->req;
	uint32_t len = (uint32_t)seg->len;
	const uint8_t *data;
	uint8_t *start;
	uint64_t size;

	/* resop, status, eof, count; the segment's head; the padding */
	if (rpc_req_reply_reserve(rq, xdr_enc_len(&rq->enc) + 16 + 16 + 4) < 0 ||
	    !(data = nfs4_map_range(c, io, seg->off, &len, &size)))
		return false;
	start = rq->enc.p;
	xdr_enc_u32(&rq->enc, OP_READ_PLUS);
	xdr_enc_u32(&rq->enc, NFS4_OK);
	xdr_enc_bool(&rq->enc, seg->off + len >= size);
	xdr_enc_u32(&rq->enc, 1);
	xdr_enc_u32(&rq->enc, NFS4_CONTENT_DATA);
	xdr_enc_u64(&rq->enc, seg->off);
	xdr_enc_u32(&rq->enc, len);
	if (!nfs4_map_attach(c, data, len)) {
		rq->enc.p = start;
		return false;
	}
	c->encoded = true;
	return true;
}

enum nfsstat4 nfs4_read_plus(struct nfs4_compound *c, const struct nfs_argop4 *a,
			     struct nfs_resop4 *r)
{
	const struct READ_PLUS4args *ra = &a->u.opread_plus;
	struct export_obj *o = &c->cur.o;
	struct rpc_req *rq = c->req;
	struct nfs4_rp_seg segs[NFS4_RP_SEGS_MAX];
	struct rp_file f = { .o = o };
	unsigned int n = 0, i, done = 0;
	uint64_t size, end, reached;
	uint32_t count, data = 0;
	struct vfs_obj io;
	struct stat st;
	uint8_t *head, *tail;
	bool eof;
	size_t at;
	int e;

	enum nfsstat4 s = nfs4_cur_file(c, NULL);

	if (s == NFS4_OK)
		s = nfs4_check_read(c, nfs4_sid(c, &ra->rpa_stateid));
	if (s == NFS4_OK && ra->rpa_offset > (uint64_t)INT64_MAX)
		s = NFS4ERR_INVAL;
	/* a file on a disk, on a loop (its map said all hole when the
	 * COMPOUND was planned: nfs4_read_plus_no_io): no open, seek or
	 * read may wait here; one that would makes the call DELAY */
	f.no_io = s == NFS4_OK && rq->on_loop && !o->vexp->mem_backed;
	if (s == NFS4_OK && f.no_io && vfs_node_io_fd(o->node, O_RDONLY) < 0)
		return r->u.opread_plus.rp_status = rp_would_block(c);
	if (s == NFS4_OK && (e = export_open_io(o, O_RDONLY, &io)) < 0)
		s = nfs4_errno(e);
	/* the size, for an exact eof, and the allocation, for the map: as
	 * the PUTFH found them (READ's eof uses the same stat), anew when an
	 * operation of this COMPOUND changed a file since (a system call
	 * READ does not make saved on every other call) */
	if (s == NFS4_OK && !c->changed_data && o->have_st)
		st = o->st;
	else if (s == NFS4_OK && (e = o->vexp->ops->getattr(o->vexp, &io, &st)) < 0)
		s = nfs4_errno(e);
	if (s != NFS4_OK)
		return r->u.opread_plus.rp_status = s;
	f.io = &io;
	size = st.st_size > 0 ? (uint64_t)st.st_size : 0;
	count = ra->rpa_count < NFS4_IO_MAX ? ra->rpa_count : NFS4_IO_MAX;
	end = ra->rpa_offset >= size ? ra->rpa_offset :
	      size - ra->rpa_offset > count ? ra->rpa_offset + count : size;
	if (end > ra->rpa_offset) {
		if ((uint64_t)st.st_blocks * 512u >= size || !o->vexp->ops->seek) {
			/* no hole worth a seek */
			segs[0] = (struct nfs4_rp_seg){ ra->rpa_offset, end - ra->rpa_offset, false };
			n = 1;
		} else {
			n = rp_map_cached(&f, &st, ra->rpa_offset, end, segs);
		}
		n = rp_fit(segs, n, rp_room(c));
		if (rq->on_loop)
			n = rp_trim(segs, n, &c->loop_rp_left);
	}
	for (i = 0; i < n; i++)
		if (!segs[i].hole)
			data += (uint32_t)segs[i].len;
	if (f.no_io && (f.wanted_io || data))
		return r->u.opread_plus.rp_status = rp_would_block(c);
	/* one data segment of a memory-backed file: from its mapping */
	if (n == 1 && !segs[0].hole && rp_mapped(c, &io, &segs[0]))
		return r->u.opread_plus.rp_status = NFS4_OK;
	/* Several segments of a file on a disk: a read per data segment
	 * finds no readahead (each read is short and the next skips a
	 * hole), so the range is asked for at once. Reads made as these
	 * are, locally on ext4 with the pages dropped, 256 MiB of 16 KiB
	 * stripes: 0.94-1.00 s, after WILLNEED on each MiB 0.35-0.41 s
	 * (1 MiB preads of the file: 0.43-0.60). The next call's range
	 * too, as readahead would: a reader at queue depth 1 otherwise
	 * waits for the disk on every call, where READ's readahead has
	 * read ahead of it. */
	if (n > 1 && !o->vexp->mem_backed && o->vexp->ops->advise)
		(void)o->vexp->ops->advise(o->vexp, &io, ra->rpa_offset,
					   2 * (end - ra->rpa_offset), VFS_ADV_WILLNEED);
	at = xdr_enc_len(&rq->enc);
	/* resop, status, eof, count; each segment's head and data */
	if (rpc_req_reply_reserve(rq, at + 16 + (size_t)n * 24 + data) < 0 ||
	    !(head = xdr_enc_reserve(&rq->enc, 16)))
		return r->u.opread_plus.rp_status = NFS4ERR_RESOURCE;
	reached = ra->rpa_offset;
	tail = rq->enc.p;
	eof = false;
	for (i = 0; i < n && !eof; i++, done++) {
		uint8_t *p = xdr_enc_reserve(&rq->enc, segs[i].hole ? 20 : 16);
		uint32_t len = (uint32_t)segs[i].len;
		ssize_t got;

		xdr__put32(p, segs[i].hole ? NFS4_CONTENT_HOLE : NFS4_CONTENT_DATA);
		xdr__put32(p + 4, (uint32_t)(segs[i].off >> 32));
		xdr__put32(p + 8, (uint32_t)segs[i].off);
		if (segs[i].hole) {
			xdr__put32(p + 12, (uint32_t)(segs[i].len >> 32));
			xdr__put32(p + 16, (uint32_t)segs[i].len);
			reached = segs[i].off + segs[i].len;
			tail = rq->enc.p;
			continue;
		}
		/* READ's way: straight into the reply, at its place */
		got = o->vexp->ops->read(o->vexp, &io, p + 16, len, segs[i].off, 0);
		if (got < 0 && i == 0) {
			rq->enc.p = rq->enc.start + at;
			return r->u.opread_plus.rp_status = nfs4_errno((int)got);
		}
		if (got <= 0) {
			/* nothing more: an error after a segment ends the
			 * reply short; the end of the file there is eof */
			eof = got == 0;
			break;
		}
		xdr__put32(p + 12, (uint32_t)got);
		rq->enc.p = p + 16 + got;
		memset(rq->enc.p, 0, xdr_pad((uint32_t)got) - (uint32_t)got);
		rq->enc.p += xdr_pad((uint32_t)got) - (uint32_t)got;
		reached = segs[i].off + (uint64_t)got;
		tail = rq->enc.p;
		/* a short read: the file ends there now */
		if ((uint32_t)got < len)
			eof = true;
	}
	if (!eof)
		eof = reached >= size;
	rq->enc.p = head;
	xdr_enc_u32(&rq->enc, OP_READ_PLUS);
	xdr_enc_u32(&rq->enc, NFS4_OK);
	xdr_enc_bool(&rq->enc, eof);
	xdr_enc_u32(&rq->enc, done);
	rq->enc.p = tail;
	c->encoded = true;
	return r->u.opread_plus.rp_status = NFS4_OK;
}
