/* SPDX-License-Identifier: MIT */
/*
 * A large NFSv4.1/4.2 WRITE received straight into the file: COMPOUND's
 * bulk hooks (rpc/program.h, struct rpc_bulk; rpc/bulk.c moves the data).
 *
 * DESIGN
 * - A 1 MiB WRITE COMPOUND copied its data twice on the server: socket
 *   into the receive buffer, then pwrite into the page cache (each about
 *   a third of nfsxd's CPU in a 1 MiB sequential write over NFSv4.1 on
 *   tmpfs, measured with perf: 34 % and 24 % + 6 % page-cache lookups).
 *   NFSv3's WRITE has been received into the file since bulk.c exists
 *   (nfs3/nfs3_write.c); this is the same for the COMPOUND every client
 *   sends for it: SEQUENCE, PUTFH, WRITE, the WRITE's data ending the
 *   record. Anything else (another operation after WRITE, 4.0, a file
 *   on a disk) is received whole and run by nfs4_compound() as before.
 * - begin runs on the event loop with the record's first bytes. It first
 *   checks, changing nothing, what it can: the shape, the handle
 *   resolving from memory to an object of a memory-backed export (as
 *   the loop's own COMPOUNDs, compound_plan.c nfs4_inline_plan), the
 *   flavour, no special stateid (those wait for grace), no delegation
 *   anywhere (its recall is a worker's). Any of these failing declines:
 *   the record is received whole and runs the ordinary way, which
 *   answers every error. Then SEQUENCE runs (the non-waiting variant:
 *   a slot that would wait, a replay or an error also declines, with
 *   the slot left as it was). From there the call is ours: WRITE's own checks
 *   (stateid, read-only export, offsets) failing make its result that
 *   error and the data is discarded as it arrives, as the ordinary
 *   COMPOUND would have answered after SEQUENCE and PUTFH.
 * - The data that came with the header is written at once as the
 *   caller; the rest is spliced, or received into the file's kept
 *   mapping when the range lies within the file (export_map_write), its
 *   last byte a real write, as NFSv3's.
 * - end encodes the three results as nfs4_compound() would (the
 *   session's reply sizes included) and hands the reply to the slot; a
 *   connection closed in the data ends the slot's use as if the call had
 *   never come: the client sends it again with the same seqid, which
 *   then runs as new (nfs4_sessions_abandon); the data that came is in
 *   the file, as any part of a WRITE whose reply was lost.
 * - The file's change mark (vfs/lease.h) lasts from WRITE's check until
 *   the data is written.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "nfs4/internal.h"
#include "nfs4/nfs4.h"
#include "util/log.h"
#include "util/stats.h"
#include "xdr/nfs4_compound.h"

/* The longest tag a bulk WRITE echoes (a longer one: the ordinary way). */
#define WB_TAG_MAX 64u

struct write_bulk {
	struct nfs4_compound c;
	struct nfs_resop4 seq;          /* SEQUENCE's result */
	enum nfsstat4 st;               /* WRITE's status before the data */
	uint64_t off;
	uint32_t len;
	enum stable_how4 stable;
	struct vfs_obj io;
	uint32_t taglen;
	uint8_t tag[WB_TAG_MAX];
};

/* COMPOUNDs taken by the bulk path, for the debug log at the end
 * (counted only at the debug level). */
static atomic_uint_fast64_t bulk_writes;

void nfs4_write_bulk_log_counts(void)
{
	log_debug("NFSv4: %" PRIu64 " WRITE(s) received straight into the file",
		  (uint64_t)atomic_load(&bulk_writes));
}

/* WRITE4args up to its data's length (the data follows). */
static bool dec_write_head(struct xdr_dec *d, struct stateid4 *sid, uint64_t *off,
			   enum stable_how4 *stable, uint32_t *len)
{
	uint32_t op, how;

	if (!xdr_dec_u32(d, &op) || op != OP_WRITE || !xdr_dec_u32(d, &sid->seqid) ||
	    !xdr_dec_opaque_fixed(d, sid->other, sizeof(sid->other)) || !xdr_dec_u64(d, off) ||
	    !xdr_dec_u32(d, &how) || how > FILE_SYNC4 || !xdr_dec_u32(d, len))
		return false;
	*stable = (enum stable_how4)how;
	return true;
}

/* Let go of what begin took before SEQUENCE ran. */
static void release(struct write_bulk *w)
{
	nfs4_fh_clear(&w->c.cur);
	if (w->c.snap)
		export_snap_put(w->c.snap);
	free(w);
}

/* Before each write of spliced data: as the caller, as pwrite would. */
static int write_bulk_enter(struct rpc_bulk *b)
{
	struct write_bulk *w = b->priv;

	return vfs_become(&w->c.cur.o.cred);
}

/* WRITE's own checks, after SEQUENCE and PUTFH: its status, and the file
 * opened for it into w->io. */
static enum nfsstat4 write_check(struct write_bulk *w, const struct stateid4 *sid)
{
	struct nfs4_compound *c = &w->c;
	struct export_obj *o = &c->cur.o;
	struct nfs4_file_id f;
	enum nfsstat4 st = nfs4_cur_file(c, &f);
	int e;

	/* nfs4_check_change() but for the recall: the file marked first,
	 * then a delegation granted since begin looked is a worker's to
	 * recall, and SEQUENCE has run, so the client is asked to send the
	 * call again (the ordinary way, as a delegation is held) */
	if (st == NFS4_OK)
		st = nfs4_check_stateid(c, sid, true);
	if (st == NFS4_OK) {
		vfs_change_mark(&c->changes, f.dev, f.ino);
		if (vfs_leases_held())
			st = NFS4ERR_DELAY;
	}
	if (st == NFS4_OK && !o->client->opts.rw)
		st = NFS4ERR_ROFS;
	if (st == NFS4_OK && (w->off > (uint64_t)INT64_MAX ||
			      w->off + w->len > (uint64_t)INT64_MAX))
		st = NFS4ERR_FBIG;
	if (st == NFS4_OK && (e = export_open_io(o, O_WRONLY, &w->io)) < 0)
		st = nfs4_errno(e);
	return st;
}

bool nfs4_write_bulk_begin(struct rpc_req *req, size_t rest, struct rpc_bulk *b)
{
	struct xdr_dec d = req->args;
	struct nfs4_args_head h;
	struct nfs_argop4 a0, a1;
	struct stateid4 sid;
	struct write_bulk *w;
	size_t arena_at = req->arena.used;
	uint32_t avail;
	bool busy = false;
	int fd;

	if (!nfs4_dec_compound_args_head(&d, &h) || h.minorversion < 1 ||
	    h.minorversion > NFS4_MINOR_MAX || h.nops != 3 || h.tag.len > WB_TAG_MAX ||
	    nfs4_dec_argop(&d, h.minorversion, &a0) != NFS4_OP_DECODED ||
	    a0.argop != OP_SEQUENCE ||
	    nfs4_dec_argop(&d, h.minorversion, &a1) != NFS4_OP_DECODED ||
	    a1.argop != OP_PUTFH)
		goto no;
	w = calloc(1, sizeof(*w));
	if (!w)
		goto no;
	if (!dec_write_head(&d, &sid, &w->off, &w->stable, &w->len))
		goto no_free;
	avail = (uint32_t)xdr_dec_left(&d);
	if (w->len > NFS4_IO_MAX || avail > w->len ||
	    (uint64_t)avail + rest != xdr_pad(w->len) ||
	    nfs4_stateid_anonymous(&sid) || nfs4_stateid_bypass(&sid) || vfs_leases_held())
		goto no_free;
	w->c.req = req;
	w->c.minorversion = h.minorversion;
	w->c.nops = h.nops;
	w->c.snap = export_snap_get();
	if (!w->c.snap)
		goto no_release;
	if (!nfs4_pre_putfh(&w->c, &a1.u.opputfh.object, &w->c.cur, true) ||
	    w->c.cur.kind != NFS4_FH_OBJ || !w->c.cur.o.vexp->mem_backed ||
	    nfs4_sec_check(&w->c, &w->c.cur) != NFS4_OK)
		goto no_release;
	/* the object outlives this turn of the loop: its own hold of the
	 * snapshot, not the thread's */
	export_snap_put(w->c.snap);
	w->c.snap = NULL;
	if (!export_obj_detach(&w->c.cur.o))
		goto no_release;
	/* SEQUENCE counts the whole record against the session's size */
	w->c.rec_rest = rest;
	w->seq.resop = OP_SEQUENCE;
	w->c.op_index = 0;
	nfs4_sequence(&w->c, &a0, &w->seq);
	busy = w->c.would_block;
	if (busy || w->seq.u.opsequence.sr_status != NFS4_OK ||
	    w->c.slot.replay != NFS4_SEQ_NEW) {
		/* a replay's slot is let go as nfs4_compound() lets it go,
		 * which will find the replay again */
		if (!busy && w->c.slot.s)
			nfs4_seq_done(&w->c, 0, false);
		goto no_release;
	}
	/* the call is ours from here */
	if (nfsx_log_threshold >= NFSX_LOG_DEBUG)
		atomic_fetch_add_explicit(&bulk_writes, 1, memory_order_relaxed);
	w->c.op_index = 2;
	w->st = write_check(w, &sid);
	memcpy(w->tag, h.tag.data, h.tag.len);
	w->taglen = h.tag.len;
	b->priv = w;
	b->enter = write_bulk_enter;
	b->off = w->off;
	b->left = w->len - avail;
	b->pad = xdr_pad(w->len) - w->len;
	if (w->st != NFS4_OK) {
		b->err = EIO; /* the data is discarded as it comes */
		req->arena.used = arena_at;
		return true;
	}
	fd = w->c.cur.o.vexp->ops->splice_fd ?
		w->c.cur.o.vexp->ops->splice_fd(w->c.cur.o.vexp, &w->io) : -1;
	if (fd < 0) {
		w->st = fd == -1 ? NFS4ERR_IO : nfs4_errno(fd);
		b->err = EIO;
		req->arena.used = arena_at;
		return true;
	}
	b->fd = fd;
	export_bulk_head(&w->c.cur.o, &w->io, d.p, avail, w->off, b);
	req->arena.used = arena_at;
	return true;

no_release:
	req->arena.used = arena_at;
	release(w);
	return false;
no_free:
	free(w);
no:
	req->arena.used = arena_at;
	return false;
}

/* WRITE's result into @r: what was written of the data, synced as asked. */
static void write_result(struct write_bulk *w, const struct rpc_bulk *b, struct nfs_resop4 *r)
{
	struct WRITE4res *res = &r->u.opwrite;
	struct export_obj *o = &w->c.cur.o;
	int e;

	r->resop = OP_WRITE;
	if (w->st != NFS4_OK) {
		res->status = w->st;
		return;
	}
	/* a short write that wrote something is a short count */
	if (b->err && b->done == 0) {
		res->status = nfs4_errno(b->err);
		return;
	}
	res->u.resok4.committed = UNSTABLE4;
	if (w->stable != UNSTABLE4) {
		e = o->vexp->ops->commit(o->vexp, &w->io, w->stable == DATA_SYNC4);
		if (e < 0) {
			res->status = nfs4_errno(e);
			return;
		}
		res->u.resok4.committed = w->stable == DATA_SYNC4 ? DATA_SYNC4 : FILE_SYNC4;
	}
	res->u.resok4.count = b->done;
	res->u.resok4.writeverf = nfs4_write_verf;
	res->status = NFS4_OK;
}

enum rpc_accept_stat nfs4_write_bulk_end(struct rpc_req *req, struct rpc_bulk *b)
{
	struct write_bulk *w = b->priv;
	struct nfs4_compound *c = &w->c;
	struct nfs4_res_head rh = { .status = NFS4_OK };
	struct nfs_resop4 r;
	size_t head_len, head_at, at;
	enum rpc_accept_stat ret = RPC_SUCCESS;
	uint32_t i;

	c->req = req;
	if (b->aborted) {
		/* the client will send it again, whole, with the same seqid:
		 * to run as new, as if this part had never come */
		nfs4_sessions_abandon(nfs4_sessions_table(), &c->slot);
		goto out;
	}
	if (write_bulk_enter(b) < 0) {
		/* never go on as someone else */
		nfs4_seq_done(c, 0, false);
		ret = RPC_SYSTEM_ERR;
		goto out;
	}
	rh.tag.data = w->tag;
	rh.tag.len = w->taglen;
	head_len = nfs4_compound_res_head_size(w->taglen);
	head_at = xdr_enc_len(&req->enc);
	if (!xdr_enc_reserve(&req->enc, head_len)) {
		nfs4_seq_done(c, 0, false);
		ret = RPC_SYSTEM_ERR;
		goto out;
	}
	for (i = 0; i < 3 && rh.status == NFS4_OK; i++) {
		at = xdr_enc_len(&req->enc);
		memset(&r, 0, sizeof(r));
		if (i == 0) {
			r = w->seq;
		} else if (i == 1) {
			r.resop = OP_PUTFH;
		} else {
			write_result(w, b, &r);
		}
		rh.nops++;
		/* a status and a few words: the reply reserved room for them */
		if (!xdr_enc_nfs_resop4(&req->enc, &r)) {
			nfs4_seq_done(c, 0, false);
			ret = RPC_SYSTEM_ERR;
			goto out;
		}
		rh.status = r.u.opillegal.status;
		/* counted as nfs4_compound() counts them; the time is the
		 * WRITE's, data received included */
		nfs4_stats_op((int32_t)r.resop, rh.status,
			      i == 2 && req->t_start ? stats_now_ns() - req->t_start : UINT64_MAX,
			      i == 2 ? w->len : 0, xdr_enc_len(&req->enc) - at);
		/* the session's sizes, as nfs4_compound() holds them */
		if (rh.status == NFS4_OK && i > 0) {
			size_t len = xdr_enc_len(&req->enc);

			if (len > c->slot.max_resp)
				rh.status = NFS4ERR_REP_TOO_BIG;
			else if (c->slot.cachethis && len > c->slot.max_resp_cached)
				rh.status = NFS4ERR_REP_TOO_BIG_TO_CACHE;
			if (rh.status != NFS4_OK) {
				req->enc.p = req->enc.start + at;
				memset(&r.u, 0, sizeof(r.u));
				r.u.opillegal.status = rh.status;
				xdr_enc_nfs_resop4(&req->enc, &r);
			}
		}
	}
	{
		struct xdr_enc e;

		xdr_enc_init(&e, req->enc.start + head_at, head_len);
		if (!nfs4_enc_compound_res_head(&e, &rh)) {
			nfs4_seq_done(c, head_at, false);
			ret = RPC_SYSTEM_ERR;
			goto out;
		}
	}
	nfs4_seq_done(c, head_at, true);
out:
	vfs_change_end(&c->changes);
	nfs4_fh_clear(&c->cur);
	free(w);
	return ret;
}
