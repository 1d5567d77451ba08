/* SPDX-License-Identifier: MIT */
/*
 * The COMPOUND procedure (RFC 7530 section 15.2, RFC 8881 section 16.2)
 * and version 4's procedure table.
 *
 * DESIGN
 * - Decoded and run one operation at a time (xdr/nfs4_compound.h): an
 *   operation the minor version does not know is answered OP_ILLEGAL
 *   after the ones before it ran, and a malformed one BADXDR, both
 *   ending the COMPOUND. Memory does not grow with the number of
 *   operations: each one's decoded arrays come from the request's arena,
 *   given back before the next (nothing of an operation's arguments
 *   outlives it), and its result is encoded before the next runs.
 * - The result head (status, tag, count) is known last: its room is
 *   reserved first and written at the end. The tag is echoed as sent.
 * - An operation may encode its own result (c->encoded: GETATTR's
 *   attributes, READ's data, a replayed result), whatever its status.
 * - A result that does not fit the reply buffer, or makes the reply
 *   longer than the record limit, ends the COMPOUND with
 *   NFS4ERR_RESOURCE in its place (NFSv4.0's answer; NFS4ERR_REP_TOO_BIG
 *   in 4.1), so a long COMPOUND of small requests cannot build a reply
 *   of any size.
 * - The whole COMPOUND holds one exports snapshot, so a reload never
 *   changes the exports between two of its operations.
 * - Minor versions 0, 1 and 2; 3 and above answer MINOR_VERS_MISMATCH
 *   with no result (RFC 8881 16.2.3). An operation of 4.2 not written
 *   yet is NOTSUPP, as every known one missing from ops[].
 * - Minor versions 1 and 2 (RFC 8881 2.10.6; RFC 7862 changes none of
 *   it, "4.1" below means both): a COMPOUND starts with SEQUENCE,
 *   or is one of the operations that may come alone (sessionless());
 *   SEQUENCE elsewhere is SEQUENCE_POS; the operations of 4.0 alone are
 *   NOTSUPP. After SEQUENCE the reply is held to the session's sizes: the
 *   result that makes it longer than ca_maxresponsesize (or than
 *   ca_maxresponsesize_cached when the client wants it cached) is
 *   replaced by REP_TOO_BIG (REP_TOO_BIG_TO_CACHE) and ends the COMPOUND.
 *   At the end the reply after the RPC header goes to the slot
 *   (nfs4_sessions_done()), which keeps it if asked; a retransmission
 *   gets those bytes back as they were sent.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <string.h>

#include "nfs4/internal.h"
#include "nfs4/nfs4.h"
#include "nfs4/recovery.h"
#include "util/log.h"
#include "util/stats.h"
#include "xdr/nfs4_compound.h"

/* COMPOUNDs run on event loops and on workers, for the debug log at the
 * end: counted only at the debug level, as two counters shared by every
 * thread would cost each call a contended cache line. */
static atomic_uint_fast64_t ran_on_loop, ran_on_worker;

void nfs4_compound_log_counts(void)
{
	log_debug("NFSv4: %" PRIu64 " COMPOUND(s) ran on event loops, %" PRIu64 " on workers",
		  (uint64_t)atomic_load(&ran_on_loop), (uint64_t)atomic_load(&ran_on_worker));
}

/* Operations written so far; every other known one is NOTSUPP. */
static nfs4_op_fn *const ops[OP_REMOVEXATTR + 1] = {
	[OP_ACCESS] = nfs4_access,
	[OP_BACKCHANNEL_CTL] = nfs4_backchannel_ctl,
	[OP_BIND_CONN_TO_SESSION] = nfs4_bind_conn_to_session,
	[OP_CLOSE] = nfs4_close,
	[OP_COMMIT] = nfs4_commit,
	[OP_CREATE] = nfs4_create,
	[OP_CREATE_SESSION] = nfs4_create_session,
	[OP_DELEGRETURN] = nfs4_delegreturn,
	[OP_DESTROY_CLIENTID] = nfs4_destroy_clientid,
	[OP_DESTROY_SESSION] = nfs4_destroy_session,
	[OP_EXCHANGE_ID] = nfs4_exchange_id,
	[OP_LINK] = nfs4_link,
	[OP_LOCK] = nfs4_lock,
	[OP_LOCKT] = nfs4_lockt,
	[OP_LOCKU] = nfs4_locku,
	[OP_REMOVE] = nfs4_remove,
	[OP_RENAME] = nfs4_rename,
	[OP_SETATTR] = nfs4_setattr,
	[OP_FREE_STATEID] = nfs4_free_stateid,
	[OP_GETATTR] = nfs4_getattr,
	[OP_GETFH] = nfs4_getfh,
	[OP_LOOKUP] = nfs4_lookup,
	[OP_LOOKUPP] = nfs4_lookupp,
	[OP_OPEN] = nfs4_open,
	[OP_OPEN_CONFIRM] = nfs4_open_confirm,
	[OP_OPEN_DOWNGRADE] = nfs4_open_downgrade,
	[OP_PUTFH] = nfs4_putfh,
	[OP_PUTPUBFH] = nfs4_putpubfh,
	[OP_PUTROOTFH] = nfs4_putrootfh,
	[OP_RELEASE_LOCKOWNER] = nfs4_release_lockowner,
	[OP_RENEW] = nfs4_renew,
	[OP_RESTOREFH] = nfs4_restorefh,
	[OP_NVERIFY] = nfs4_nverify,
	[OP_READ] = nfs4_read,
	[OP_READDIR] = nfs4_readdir,
	[OP_READLINK] = nfs4_readlink,
	[OP_RECLAIM_COMPLETE] = nfs4_reclaim_complete,
	[OP_SAVEFH] = nfs4_savefh,
	[OP_SECINFO] = nfs4_secinfo,
	[OP_SECINFO_NO_NAME] = nfs4_secinfo_no_name,
	[OP_SEQUENCE] = nfs4_sequence,
	[OP_SETCLIENTID] = nfs4_setclientid,
	[OP_SETCLIENTID_CONFIRM] = nfs4_setclientid_confirm,
	[OP_TEST_STATEID] = nfs4_test_stateid,
	[OP_VERIFY] = nfs4_verify,
	[OP_WRITE] = nfs4_write,
	/* NFSv4.2's I/O (io42_ops.c); WRITE_SAME, LAYOUTSTATS and
	 * LAYOUTERROR stay NOTSUPP (why there) */
	[OP_ALLOCATE] = nfs4_allocate,
	[OP_DEALLOCATE] = nfs4_deallocate,
	[OP_IO_ADVISE] = nfs4_io_advise,
	[OP_READ_PLUS] = nfs4_read_plus,
	[OP_SEEK] = nfs4_seek,
	/* 4.2: xattrs (RFC 8276), COPY and CLONE (RFC 7862) */
	[OP_CLONE] = nfs4_clone,
	[OP_COPY] = nfs4_copy,
	[OP_GETXATTR] = nfs4_getxattr,
	[OP_LISTXATTRS] = nfs4_listxattrs,
	[OP_OFFLOAD_CANCEL] = nfs4_offload_cancel,
	[OP_OFFLOAD_STATUS] = nfs4_offload_status,
	[OP_REMOVEXATTR] = nfs4_removexattr,
	[OP_SETXATTR] = nfs4_setxattr,
};

/*
 * errno to nfsstat4, as knfsd's nfserrno() maps it; the handle errors of
 * export_resolve() included.
 */
enum nfsstat4 nfs4_errno(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case 0: return NFS4_OK;
	case EPERM: return NFS4ERR_PERM;
	case ENOENT: return NFS4ERR_NOENT;
	case EIO: return NFS4ERR_IO;
	case ENXIO: return NFS4ERR_NXIO;
	case EACCES: return NFS4ERR_ACCESS;
	case EBUSY: return NFS4ERR_ACCESS;   /* a mount point gone: as NFSv3 */
	case EEXIST: return NFS4ERR_EXIST;
	case EXDEV: return NFS4ERR_XDEV;
	case ENOTDIR: return NFS4ERR_NOTDIR;
	case EISDIR: return NFS4ERR_ISDIR;
	case EINVAL: return NFS4ERR_INVAL;
	case ELOOP: return NFS4ERR_SYMLINK;
	case EFBIG: return NFS4ERR_FBIG;
	case ENOSPC: return NFS4ERR_NOSPC;
	case EROFS: return NFS4ERR_ROFS;
	case EMLINK: return NFS4ERR_MLINK;
	case ENAMETOOLONG: return NFS4ERR_NAMETOOLONG;
	case ENOTEMPTY: return NFS4ERR_NOTEMPTY;
	case EDQUOT: return NFS4ERR_DQUOT;
	case ESTALE: return NFS4ERR_STALE;
	case EBADF: return NFS4ERR_STALE;
	case EBADHANDLE: return NFS4ERR_BADHANDLE;
	case EOPNOTSUPP: return NFS4ERR_NOTSUPP;
	case ETIMEDOUT:
	case EAGAIN:
	case ENOMEM:
	case EINTR: return NFS4ERR_DELAY;
	case EFAULT: return NFS4ERR_SERVERFAULT;  /* export_resolve: no identity */
	case ENFILE:
	case EMFILE:
	case EOVERFLOW: return NFS4ERR_SERVERFAULT;
	default: return NFS4ERR_IO;
	}
}

/* Statistics rows (util/stats.h): one per operation from OP_ACCESS to
 * OP_REMOVEXATTR, then OP_ILLEGAL's; -1 when there are none. */
static int op_row0 = -1;
#define OP_ROWS ((int)OP_REMOVEXATTR - (int)OP_ACCESS + 2)

static const char *nfs4_status_name(uint32_t vers, int32_t st)
{
	(void)vers;
	return xdr_name_nfsstat4(st);
}

void nfs4_stats_rows_add(void)
{
	int i, row;

	if (op_row0 >= 0)
		return;
	for (i = 0; i < OP_ROWS; i++) {
		int32_t op = i == OP_ROWS - 1 ? OP_ILLEGAL : (int32_t)OP_ACCESS + i;

		row = stats_row_add("nfs4_op", 4, xdr_name_nfs_opnum4(op), nfs4_status_name);
		if (row < 0)
			return;
		if (!i)
			op_row0 = row;
	}
}

void nfs4_stats_op(int32_t op, uint32_t status, uint64_t ns, size_t in, size_t out)
{
	int i;

	if (op_row0 < 0 || !stats_on)
		return;
	if (op >= (int32_t)OP_ACCESS && op <= (int32_t)OP_REMOVEXATTR)
		i = op - (int32_t)OP_ACCESS;
	else
		i = OP_ROWS - 1;
	stats_record_exec(op_row0 + i, status, ns, in, out);
}

/* Run operation @a into @r. */
static enum nfsstat4 run_op(struct nfs4_compound *c, const struct nfs_argop4 *a,
			    struct nfs_resop4 *r)
{
	nfs4_op_fn *fn = (uint32_t)a->argop < sizeof(ops) / sizeof(ops[0]) ? ops[a->argop] : NULL;

	if (fn)
		return fn(c, a, r);
	/* every result starts with its status (the common initial
	 * sequence of the union's arms) */
	return r->u.opillegal.status = NFS4ERR_NOTSUPP;
}

/* @r with status @st and nothing else (the arm's status first). */
static void just_status(struct nfs_resop4 *r, enum nfsstat4 st)
{
	r->u.opillegal.status = st;
	memset((uint8_t *)&r->u + sizeof(enum nfsstat4), 0,
	       sizeof(r->u) - sizeof(enum nfsstat4));
}

bool nfs4_put_result(struct rpc_req *req, struct nfs_resop4 *r, enum nfsstat4 toobig)
{
	uint8_t *mark = req->enc.p;
	size_t at = xdr_enc_len(&req->enc);

	if (xdr_enc_nfs_resop4(&req->enc, r))
		return true;
	req->enc.p = mark;
	if (rpc_req_reply_reserve(req, at + 64u * 1024) == 0) {
		if (xdr_enc_nfs_resop4(&req->enc, r))
			return true;
		req->enc.p = req->enc.start + at;
	}
	just_status(r, toobig);
	return xdr_enc_nfs_resop4(&req->enc, r);
}

/* The operations a COMPOUND of minor version 1 may hold without
 * SEQUENCE, alone (RFC 8881 2.10.6, 18.46.3). */
static bool sessionless(enum nfs_opnum4 op)
{
	return op == OP_EXCHANGE_ID || op == OP_CREATE_SESSION || op == OP_DESTROY_SESSION ||
	       op == OP_DESTROY_CLIENTID || op == OP_BIND_CONN_TO_SESSION;
}

/* The operations of 4.0 that 4.1 removed (RFC 8881 section 19). */
static bool only_v40(enum nfs_opnum4 op)
{
	return op == OP_SETCLIENTID || op == OP_SETCLIENTID_CONFIRM || op == OP_RENEW ||
	       op == OP_OPEN_CONFIRM || op == OP_RELEASE_LOCKOWNER;
}

/*
 * Where operation @op, the @i-th of @nops, may stand in a COMPOUND of
 * minor version 1.
 * Return values: NFS4_OK to run it, or the status that answers it.
 */
static enum nfsstat4 v41_position(enum nfs_opnum4 op, uint32_t i, uint32_t nops)
{
	if (i == 0) {
		if (op == OP_SEQUENCE)
			return NFS4_OK;
		if (!sessionless(op))
			return NFS4ERR_OP_NOT_IN_SESSION;
		return nops == 1 ? NFS4_OK : NFS4ERR_NOT_ONLY_OP;
	}
	if (op == OP_SEQUENCE)
		return NFS4ERR_SEQUENCE_POS;
	return only_v40(op) ? NFS4ERR_NOTSUPP : NFS4_OK;
}

/* Bytes of the reply so far, RPC header included (what a session's
 * sizes count), data sent from outside the buffer too. */
static size_t reply_len(const struct rpc_req *req)
{
	return xdr_enc_len(&req->enc) + req->ext_len;
}

/*
 * The result just encoded at @at made the reply longer than the
 * session allows: encode @r with @st there instead (a READ's data sent
 * from outside the buffer goes too; its hold is still given back when
 * the request is released).
 */
static void too_big(struct rpc_req *req, size_t at, struct nfs_resop4 *r, enum nfsstat4 st)
{
	if (req->ext_len && req->ext_at >= 4 + at) {
		req->ext = NULL;
		req->ext_len = 0;
	}
	req->enc.p = req->enc.start + at;
	just_status(r, st);
	/* a status alone is smaller than what was there */
	xdr_enc_nfs_resop4(&req->enc, r);
}

void nfs4_seq_done(struct nfs4_compound *c, size_t head_at, bool ok)
{
	struct rpc_req *req = c->req;
	struct iovec iov[3];
	size_t end = xdr_enc_len(&req->enc);
	int n = 0;

	if (!c->slot.s)
		return;
	if (!ok) {
		nfs4_sessions_done(nfs4_sessions_table(), &c->slot, NULL, 0);
		return;
	}
	if (req->ext_len && req->ext_at >= 4 + head_at) {
		size_t cut = req->ext_at - 4;

		iov[n++] = (struct iovec){ req->enc.start + head_at, cut - head_at };
		iov[n++] = (struct iovec){ (void *)req->ext, req->ext_len };
		iov[n++] = (struct iovec){ req->enc.start + cut, end - cut };
	} else {
		iov[n++] = (struct iovec){ req->enc.start + head_at, end - head_at };
	}
	nfs4_sessions_done(nfs4_sessions_table(), &c->slot, iov, n);
}

/* A retransmission answered from the slot's cache: its bytes replace
 * the reply from @head_at on. Return values: false when memory is short. */
static bool put_cached(struct nfs4_compound *c, size_t head_at)
{
	struct rpc_req *req = c->req;
	uint32_t len;
	const uint8_t *b = nfs4_seq_cached(&c->slot, &len);

	req->enc.p = req->enc.start + head_at;
	if (rpc_req_reply_reserve(req, head_at + len) < 0)
		return false;
	req->enc.p = req->enc.start + head_at;
	if (len && !xdr_enc_reserve(&req->enc, len))
		return false;
	if (len)
		memcpy(req->enc.start + head_at, b, len);
	return true;
}

static enum rpc_accept_stat nfs4_compound(struct rpc_req *req)
{
	struct nfs4_fh pre[NFS4_INLINE_OPS];
	struct nfs4_planned planned[NFS4_INLINE_OPS];
	struct nfs4_compound c;
	struct nfs4_args_head h;
	struct nfs4_res_head rh = { .status = NFS4_OK };
	size_t head_len, arena_at;
	size_t head_at;
	uint32_t max_record;
	enum nfsstat4 toobig;
	bool cached = false;
	uint64_t t_op;
	uint32_t i;

	nfs4_compound_init(&c, req);
	if (!nfs4_dec_compound_args_head(&req->args, &h))
		return RPC_GARBAGE_ARGS;
	/* what nfs4_inline_plan() would refuse anyway, before any work */
	if (req->on_loop && (h.minorversion == 0 || h.minorversion > NFS4_MINOR_MAX ||
			     h.nops == 0 || h.nops > NFS4_INLINE_OPS))
		return RPC_WOULD_BLOCK;
	head_len = nfs4_compound_res_head_size(h.tag.len);
	if (rpc_req_reply_reserve(req, xdr_enc_len(&req->enc) + head_len + 4096) < 0)
		return RPC_SYSTEM_ERR;
	head_at = xdr_enc_len(&req->enc);
	if (!xdr_enc_reserve(&req->enc, head_len))
		return RPC_SYSTEM_ERR;
	rh.tag = h.tag;
	if (h.minorversion > NFS4_MINOR_MAX) {
		rh.status = NFS4ERR_MINOR_VERS_MISMATCH;
		goto head;
	}
	c.minorversion = h.minorversion;
	c.nops = h.nops;
	toobig = c.minorversion ? NFS4ERR_REP_TOO_BIG : NFS4ERR_RESOURCE;
	c.snap = export_snap_get();
	if (!c.snap) {
		/* no exports were ever loaded (a test harness) */
		export_snap_put(c.snap);
		rh.status = NFS4ERR_SERVERFAULT;
		goto head;
	}
	if (req->on_loop) {
		/* what nfs4_fh_clear and the PUTFHs read of an entry the
		 * plan does not fill: the rest of an entry is read only once
		 * its kind says a PUTFH filled it */
		for (i = 0; i < h.nops; i++) {
			pre[i].kind = NFS4_FH_NONE;
			pre[i].have_sid = false;
		}
		c.pre = pre;
		c.planned = planned;
		if (!nfs4_inline_plan(&c, &h)) {
			export_snap_put(c.snap);
			return RPC_WOULD_BLOCK;
		}
	}
	arena_at = req->arena.used;
	max_record = rpc_req_max_record(req);
	/* the first operation's time from the handler's start */
	t_op = !stats_on ? 0 : req->t_start ? req->t_start : stats_now_ns();
	for (i = 0; i < h.nops; i++) {
		uint32_t num = xdr_dec_left(&req->args) >= 4 ? xdr__get32(req->args.p) : OP_ILLEGAL;
		size_t at = xdr_enc_len(&req->enc);
		const uint8_t *arg_at = req->args.p;
		struct nfs_argop4 dec;
		const struct nfs_argop4 *a = &dec;
		struct nfs_resop4 r;
		enum nfs4_op_dec k;
		bool put_ok;

		memset(&r, 0, sizeof(r));
		req->arena.used = arena_at;
		if (c.planned) {
			/* decoded once, by nfs4_inline_plan (whose arena stays
			 * below arena_at) */
			a = &c.planned[i].a;
			req->args.p = c.planned[i].end;
			k = NFS4_OP_DECODED;
		} else {
			k = nfs4_dec_argop(&req->args, c.minorversion, &dec);
		}
		if (k == NFS4_OP_ILLEGAL) {
			r.resop = OP_ILLEGAL;
			rh.status = r.u.opillegal.status = NFS4ERR_OP_ILLEGAL;
		} else if (k == NFS4_OP_BADXDR) {
			/* RFC 7530 15.2: a malformed operation ends the
			 * COMPOUND with BADXDR as its result */
			r.resop = (enum nfs_opnum4)num;
			rh.status = r.u.opillegal.status = NFS4ERR_BADXDR;
		} else if (c.minorversion >= 1 &&
			   (rh.status = v41_position(a->argop, i, h.nops)) != NFS4_OK) {
			r.resop = a->argop;
			r.u.opillegal.status = rh.status;
		} else {
			r.resop = a->argop;
			c.encoded = false;
			c.op_index = i;
			rh.status = run_op(&c, a, &r);
			/* its changes are made: a grant may look again */
			vfs_change_end(&c.changes);
			/* only SEQUENCE, the first, finds it would wait,
			 * before it changed anything (nfs4_inline_plan); any later
			 * operation holds the slot: it answers DELAY */
			if (c.would_block && i == 0) {
				nfs4_pre_clear(&c);
				nfs4_fh_clear(&c.cur);
				export_snap_put(c.snap);
				return RPC_WOULD_BLOCK;
			}
			if (c.would_block) {
				c.would_block = false;
				rh.status = r.u.opillegal.status = NFS4ERR_DELAY;
			}
			/* the flavour's check after a filehandle is set (sec.c) */
			if (rh.status == NFS4_OK)
				rh.status = r.u.opillegal.status = nfs4_sec_after(&c, a->argop);
		}
		rh.nops++;
		if (c.slot.s && c.slot.replay == NFS4_SEQ_CACHED) {
			cached = true;
			break;
		}
		put_ok = c.encoded || nfs4_put_result(req, &r, toobig);
		if (!put_ok) {
			rh.nops--;
			rh.status = toobig;
		} else if (!c.encoded) {
			/* a result too big for the reply went out as toobig */
			rh.status = r.u.opillegal.status;
		}
		/* the reply never outgrows the record limit: the result that
		 * would make it do so is RESOURCE (REP_TOO_BIG) instead */
		if (put_ok && rh.status == NFS4_OK &&
		    reply_len(req) > max_record) {
			rh.status = toobig;
			too_big(req, at, &r, toobig);
		}
		/* a seqid-bearing operation's result, kept for a replay */
		if (c.seq.ow)
			nfs4_state_seq_end(nfs4_states, &c.seq, rh.status, req->enc.start + at,
					   (uint32_t)(xdr_enc_len(&req->enc) - at));
		if (stats_on) {
			/* this thread's interval (and, on a loop, the
			 * COMPOUND's end, which this thread sends) */
			uint64_t now = stats_lap_ns();

			nfs4_stats_op((int32_t)r.resop, rh.status, now - t_op,
				      (size_t)(req->args.p - arg_at), xdr_enc_len(&req->enc) - at);
			t_op = now;
		}
		if (!put_ok)
			break;
		/* (SEQUENCE checked its own result's room before it took
		 * the slot) */
		if (c.slot.s && rh.status == NFS4_OK && i > 0) {
			size_t len = reply_len(req);

			if (len > c.slot.max_resp)
				rh.status = NFS4ERR_REP_TOO_BIG;
			else if (c.slot.cachethis && len > c.slot.max_resp_cached)
				rh.status = NFS4ERR_REP_TOO_BIG_TO_CACHE;
			if (rh.status != NFS4_OK)
				too_big(req, at, &r, rh.status);
		}
		if (rh.status != NFS4_OK)
			break;
		if (c.slot.s && c.slot.replay == NFS4_SEQ_UNCACHED && i + 1 < h.nops) {
			/* RFC 8881 2.10.6.1.3: the retransmission of a
			 * reply not kept; the next operation tells it */
			memset(&r, 0, sizeof(r));
			req->arena.used = arena_at;
			k = nfs4_dec_argop(&req->args, c.minorversion, &dec);
			r.resop = k == NFS4_OP_DECODED ? dec.argop : OP_ILLEGAL;
			rh.status = r.u.opillegal.status = NFS4ERR_RETRY_UNCACHED_REP;
			rh.nops++;
			if (!nfs4_put_result(req, &r, toobig))
				rh.nops--;
			break;
		}
	}
	/* the last operation's end: the COMPOUND's, for the RPC layer (on
	 * a worker it reads the clock after nfs4_recov_sync, below) */
	if (req->on_loop)
		req->t_done = t_op;
	nfs4_pre_clear(&c);
	nfs4_fh_clear(&c.cur);
	nfs4_fh_clear(&c.saved);
	export_snap_put(c.snap);
	/* a client confirmed or dropped: on disk before the reply goes, and
	 * written with no table's lock held (recovery.c) */
	if (!req->on_loop)
		nfs4_recov_sync();
	if (nfsx_log_threshold >= NFSX_LOG_DEBUG)
		atomic_fetch_add_explicit(req->on_loop ? &ran_on_loop : &ran_on_worker, 1,
					  memory_order_relaxed);
	if (cached) {
		bool ok = put_cached(&c, head_at);

		nfs4_seq_done(&c, head_at, false);
		return ok ? RPC_SUCCESS : RPC_SYSTEM_ERR;
	}
head:
	{
		struct xdr_enc e;

		xdr_enc_init(&e, req->enc.start + head_at, head_len);
		if (!nfs4_enc_compound_res_head(&e, &rh)) {
			nfs4_seq_done(&c, head_at, false);
			return RPC_SYSTEM_ERR;
		}
	}
	nfs4_seq_done(&c, head_at, true);
	return RPC_SUCCESS;
}

/*
 * The reply room a COMPOUND starts with (the dispatcher's one allocation
 * before the handler): the result head, SEQUENCE's and PUTFH's results
 * and an 8 KiB READ or READ_PLUS with room to spare, so that the common
 * COMPOUNDs never grow it (each growth is a malloc and a copy of the
 * reply so far).
 */
#define NFS4_REPLY_START (9u * 1024u)

/* Tried on the event loop first (nfs4_inline_plan, RPC_PROC_TRY_INLINE). */
#define I (RPC_PROC_BLOCKING | RPC_PROC_TRY_INLINE | RPC_PROC_STATUS)

static const struct rpc_proc nfs4_procs[2] = {
	[NFSPROC4_NULL] = RPC_PROC("NULL", rpc_proc_null, 0, 0),
	/* In the duplicate request cache when a 4.0 COMPOUND holds a
	 * non-idempotent operation (cacheme.c); 4.1's replays are the
	 * session slots'. Tried on the event loop
	 * first (nfs4_inline_plan). A 4.1 WRITE's data may go straight into
	 * its file (write_bulk.c; never a 4.0 COMPOUND, which the cache
	 * could want). */
	[NFSPROC4_COMPOUND] = { .name = "COMPOUND", .handler = nfs4_compound, .flags = I,
				.max_reply = NFS4_REPLY_START,
				.cache_this = nfs4_compound_cache_this,
				.bulk_begin = nfs4_write_bulk_begin,
				.bulk_end = nfs4_write_bulk_end },
};

const struct rpc_version nfs4_version = { 4, 2, nfs4_procs };
