// SPDX-License-Identifier: MIT
/*
 * NFSv4 read delegations on the wire (RFC 7530 10.2, 10.4, 16.16;
 * RFC 8881 10.2, 18.16, 20.2), knfsd's behaviour the reference where
 * the RFCs leave a choice. Fake clients on 127.0.0.1:
 * - A, an NFSv4.0 client that plays its callback service on a socket it
 *   listens on (the CB_NULL probe answered, the log read until nfsxd
 *   says the path is up), gets delegations on OPEN and answers the
 *   CB_RECALLs nfsxd sends on connections of its own;
 * - B, an NFSv4.0 client without a callback, whose conflicting OPEN,
 *   SETATTR, REMOVE, RENAME, LINK and WRITE get DELAY while a recall
 *   runs, and an NFSv3 WRITE (JUKEBOX) on the same server;
 * - C, whose callback address nobody listens on: no delegation;
 * - S, an NFSv4.1 client with a back channel on its one connection: the
 *   CB_COMPOUND(CB_SEQUENCE, CB_RECALL) arrives there amid replies and
 *   is answered there.
 * A delegation that is recalled and not returned is revoked about one
 * lease later (--lease-time 10): in 4.0 it is gone (BAD_STATEID), in
 * 4.1 SEQUENCE flags it until FREE_STATEID. The two lease waits make
 * most of the run's ~25 s.
 *
 * The callback messages are read and written by hand here (not with the
 * generated codec the server uses), so that a mistake in the server's
 * encoding is not mirrored by the test.
 *
 * Usage: test_nfs4_deleg PORT BASE LOGFILE
 * (run-nfs4-deleg.sh: BASE/rw is exported rw to 127.0.0.1 and holds the
 * files named below, each holding its name and a newline.)
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nfs3_raw.h"
#include "nfs4_state_raw.h"
#include "tap.h"

#define CB_PROG40 0x40000001u
#define CB_PROG41 0x40000002u
#define CB_IDENT 0x00c0ffeeu
#define OP_CB_RECALL_NUM 4
#define OP_CB_SEQUENCE_NUM 11
#define NFS3_GETATTR_PROC 1
#define NFS3_READ_PROC 6
#define NFS3_WRITE_PROC 7
#define NFS3ERR_JUKEBOX 10008
#define LEASE_MS 10000

static uint16_t port;
static const char *base, *logfile;
static int fd_a = -1, fd_b = -1, lfd_a = -1;
static struct v4_fh fh_rw;
static clientid4 cid_a, cid_b;
static struct v4_owner own_a = { 0, "deleg-a-owner", 0 };
static struct v4_owner own_b = { 0, "deleg-b-owner", 0 };

/* ---- the callback side, by hand ----------------------------------------- */

/* Wait up to @ms for nfsxd's log to say "callback path of client @cid: @what". */
static bool log_says(uint64_t cid, const char *what, int ms)
{
	char want[128], line[512];
	long long end = rpc_now_ms() + ms;

	snprintf(want, sizeof(want), "callback path of client %016" PRIx64 ": %s", cid, what);
	do {
		FILE *f = fopen(logfile, "r");

		while (f && fgets(line, sizeof(line), f))
			if (strstr(line, want)) {
				fclose(f);
				return true;
			}
		if (f)
			fclose(f);
		usleep(50000);
	} while (rpc_now_ms() < end);
	return false;
}

/* A call from nfsxd: CB_NULL, or CB_COMPOUND of CB_SEQUENCE and CB_RECALL. */
struct cb_call {
	bool ok;                /* a call, parsed whole, of operations we know */
	uint32_t xid, prog, vers, proc;
	uint8_t tag[64];
	uint32_t taglen, minor, ident, nops;
	uint32_t op[4];
	/* CB_SEQUENCE */
	bool has_seq;
	uint8_t sess[NFS4_SESSIONID_SIZE];
	uint32_t seq, slot, hslot, cachethis, nrcl;
	/* CB_RECALL */
	bool has_recall;
	struct stateid4 sid;
	uint32_t truncate;
	struct v4_fh fh;
};

static bool cb_parse(const struct rpc_buf *rec, struct cb_call *k)
{
	struct rpc_cur c = { rec->data, rec->len, false };
	const uint8_t *p;
	uint32_t len, i;

	memset(k, 0, sizeof(*k));
	k->xid = rpc_cur_u32(&c);
	if (rpc_cur_u32(&c) != RPC_CALL || rpc_cur_u32(&c) != 2)
		return false;
	k->prog = rpc_cur_u32(&c);
	k->vers = rpc_cur_u32(&c);
	k->proc = rpc_cur_u32(&c);
	rpc_cur_u32(&c);                        /* credential */
	rpc_cur_opaque(&c, &len, 400);
	rpc_cur_u32(&c);                        /* verifier */
	rpc_cur_opaque(&c, &len, 400);
	if (c.bad)
		return false;
	if (k->proc == 0)
		return (k->ok = c.n == 0);
	p = rpc_cur_opaque(&c, &k->taglen, sizeof(k->tag));
	if (p)
		memcpy(k->tag, p, k->taglen);
	k->minor = rpc_cur_u32(&c);
	k->ident = rpc_cur_u32(&c);
	k->nops = rpc_cur_u32(&c);
	if (c.bad || k->nops > 4)
		return false;
	for (i = 0; i < k->nops; i++) {
		k->op[i] = rpc_cur_u32(&c);
		if (k->op[i] == OP_CB_SEQUENCE_NUM) {
			k->has_seq = true;
			if (c.n >= sizeof(k->sess))
				memcpy(k->sess, c.p, sizeof(k->sess));
			rpc_cur_skip(&c, sizeof(k->sess));
			k->seq = rpc_cur_u32(&c);
			k->slot = rpc_cur_u32(&c);
			k->hslot = rpc_cur_u32(&c);
			k->cachethis = rpc_cur_u32(&c);
			k->nrcl = rpc_cur_u32(&c);
			if (k->nrcl)            /* none expected: not read further */
				return false;
		} else if (k->op[i] == OP_CB_RECALL_NUM) {
			k->has_recall = true;
			k->sid.seqid = rpc_cur_u32(&c);
			if (c.n >= sizeof(k->sid.other))
				memcpy(k->sid.other, c.p, sizeof(k->sid.other));
			rpc_cur_skip(&c, sizeof(k->sid.other));
			k->truncate = rpc_cur_u32(&c);
			p = rpc_cur_opaque(&c, &k->fh.len, NFS4_FHSIZE);
			if (p)
				memcpy(k->fh.d, p, k->fh.len);
		} else {
			return false;
		}
	}
	return (k->ok = !c.bad && c.n == 0);
}

/* The reply to @k: every operation answers @st (CB_SEQUENCE echoes its
 * arguments, highest and target slot 0). */
static void cb_reply(int fd, const struct cb_call *k, uint32_t st)
{
	struct rpc_buf b;
	uint32_t i;

	rpc_buf_init(&b);
	rpc_buf_put_u32(&b, k->xid);
	rpc_buf_put_u32(&b, RPC_REPLY);
	rpc_buf_put_u32(&b, RPC_MSG_ACCEPTED);
	rpc_buf_put_u32(&b, AUTH_NONE);
	rpc_buf_put_u32(&b, 0);
	rpc_buf_put_u32(&b, RPC_SUCCESS);
	if (k->proc != 0) {
		rpc_buf_put_u32(&b, st);
		rpc_buf_put_opaque(&b, k->tag, k->taglen);
		rpc_buf_put_u32(&b, k->nops);
		for (i = 0; i < k->nops; i++) {
			rpc_buf_put_u32(&b, k->op[i]);
			rpc_buf_put_u32(&b, st);
			if (k->op[i] == OP_CB_SEQUENCE_NUM && st == NFS4_OK) {
				rpc_buf_put_bytes(&b, k->sess, sizeof(k->sess));
				rpc_buf_put_u32(&b, k->seq);
				rpc_buf_put_u32(&b, k->slot);
				rpc_buf_put_u32(&b, 0);
				rpc_buf_put_u32(&b, 0);
			}
		}
	}
	rpc_send_record(fd, b.data, b.len);
	rpc_buf_free(&b);
}

static void cb_diag(const char *who, const struct cb_call *k)
{
	printf("#   %s: ok %d xid %#x prog %#x vers %u proc %u minor %u ident %#x nops %u "
	       "(ops %u %u) seq %d [%u slot %u hi %u rcl %u] recall %d [sid %u/%02x%02x%02x%02x.. "
	       "trunc %u fh %u bytes]\n", who, k->ok, k->xid, k->prog, k->vers, k->proc, k->minor,
	       k->ident, k->nops, k->op[0], k->op[1], k->has_seq, k->seq, k->slot, k->hslot,
	       k->nrcl, k->has_recall, k->sid.seqid, k->sid.other[0], k->sid.other[1],
	       k->sid.other[2], k->sid.other[3], k->truncate, k->fh.len);
}

/*
 * A's callback service: the next CB_COMPOUND nfsxd sends to A's listener
 * within @ms (a CB_NULL probe meanwhile is answered), answered with @st
 * (every operation's status) on the connection nfsxd opened for it.
 * Return values: true with *@k parsed; false when no call came.
 */
static bool a_call(int ms, struct cb_call *k, uint32_t st)
{
	long long end = rpc_now_ms() + ms;
	struct rpc_buf rec;
	bool got = false;
	int fd;

	rpc_buf_init(&rec);
	memset(k, 0, sizeof(*k));
	while (!got) {
		long long left = end - rpc_now_ms();

		fd = rpc_accept_ms(lfd_a, left > 0 ? (int)left : 0);
		if (fd < 0)
			break;
		rpc_buf_reset(&rec);
		if (rpc_recv_record(fd, &rec, 3000, 65536) == 1) {
			cb_parse(&rec, k);
			if (k->ok && k->proc == 0) {
				cb_reply(fd, k, 0);
			} else {
				got = true;
				cb_reply(fd, k, st);
			}
		}
		close(fd);
	}
	rpc_buf_free(&rec);
	return got;
}

/* A's callback service: the CB_NULL probe after CONFIRM, answered. */
static bool a_probe(int ms)
{
	struct rpc_buf rec;
	struct cb_call k = { 0 };
	int fd = rpc_accept_ms(lfd_a, ms);

	rpc_buf_init(&rec);
	if (fd >= 0 && rpc_recv_record(fd, &rec, 3000, 65536) == 1 && cb_parse(&rec, &k) &&
	    k.proc == 0 && k.prog == CB_PROG40 && k.vers == 1)
		cb_reply(fd, &k, 0);
	if (fd >= 0)
		close(fd);
	rpc_buf_free(&rec);
	return k.ok && k.proc == 0;
}

/* ---- NFSv4.0 clients ----------------------------------------------------- */

/* SETCLIENTID of @id with its callback at @ua (program CB_PROG40,
 * callback_ident CB_IDENT), then SETCLIENTID_CONFIRM. */
static long client40(int fd, const char *id, const char *ua, clientid4 *cid)
{
	static const uint8_t verf[8] = { 'd', 'e', 'l', 'e', 'g', 0, 0, 1 };
	struct nfs_argop4 op;
	struct v4_res s;
	uint8_t cfm[8];
	long st = -1;

	v4_res_init(&s);
	v4op_setclientid(&op, id, verf);
	op.u.opsetclientid.callback.cb_program = CB_PROG40;
	op.u.opsetclientid.callback.cb_location.na_r_addr.data = (const uint8_t *)ua;
	op.u.opsetclientid.callback.cb_location.na_r_addr.len = (uint32_t)strlen(ua);
	op.u.opsetclientid.callback_ident = CB_IDENT;
	if (v4_call_as(fd, 0, &op, 1, &s) != NFS4_OK || s.nops != 1)
		goto out;
	*cid = s.ops[0].u.opsetclientid.u.resok4.clientid;
	memcpy(cfm, s.ops[0].u.opsetclientid.u.resok4.setclientid_confirm.val, sizeof(cfm));
	v4op_setclientid_confirm(&op, *cid, cfm);
	st = v4_call_as(fd, 0, &op, 1, &s);
out:
	v4_res_free(&s);
	return st;
}

/* An OPEN's answer, with its delegation. */
struct opened {
	long st;
	struct stateid4 sid;
	uint32_t rflags;
	struct v4_fh fh;
	uint32_t dtype;
	struct stateid4 dsid;
	bool recall;
	uint32_t why;
	uint32_t limitby;       /* a write delegation's space_limit */
	uint64_t filesize;
};

static void take_open(const struct v4_res *s, uint32_t i, struct opened *r)
{
	const struct OPEN4resok *k;

	r->st = v4_op_status(s, i);
	if (r->st != NFS4_OK || s->ops[i].resop != OP_OPEN)
		return;
	k = &s->ops[i].u.opopen.u.resok4;
	r->sid = k->stateid;
	r->rflags = k->rflags;
	r->dtype = k->delegation.delegation_type;
	if (r->dtype == OPEN_DELEGATE_READ) {
		r->dsid = k->delegation.u.read.stateid;
		r->recall = k->delegation.u.read.recall;
	} else if (r->dtype == OPEN_DELEGATE_WRITE) {
		r->dsid = k->delegation.u.write.stateid;
		r->recall = k->delegation.u.write.recall;
		r->limitby = k->delegation.u.write.space_limit.limitby;
		r->filesize = k->delegation.u.write.space_limit.u.filesize;
	} else if (r->dtype == OPEN_DELEGATE_NONE_EXT) {
		r->why = k->delegation.u.od_whynone.ond_why;
	}
	v4_fh_of_res(s, i + 1, &r->fh);
}

/*
 * open40 - PUTFH rw, OPEN of @name by @o (CLAIM_NULL, deny none; an
 * UNCHECKED4 create when @create), GETFH on @fd, then OPEN_CONFIRM when
 * asked and @confirm. Return values: the first failing status.
 */
static long open40(int fd, struct v4_owner *o, uint32_t access, const char *name, bool create,
		   bool confirm, struct opened *r)
{
	struct nfs_argop4 ops[3], op;
	struct v4_fattr f;
	struct v4_res s;

	memset(r, 0, sizeof(*r));
	r->st = -1;
	v4op_putfh(&ops[0], &fh_rw);
	v4op_open(&ops[1], o->seqid, access, OPEN4_SHARE_DENY_NONE, o->cid, o->name, name);
	if (create) {
		v4f_init(&f);
		v4f_u32(&f, FATTR4_MODE, 0644);
		v4op_open_create(&ops[1], UNCHECKED4, &f, NULL);
	}
	v4op_simple(&ops[2], OP_GETFH);
	v4_res_init(&s);
	if (v4_call_as(fd, 0, ops, 3, &s) >= 0)
		take_open(&s, 1, r);
	v4_res_free(&s);
	if (v4_seqid_counted(r->st))
		o->seqid++;
	if (r->st == NFS4_OK && confirm && (r->rflags & OPEN4_RESULT_CONFIRM)) {
		v4op_open_confirm(&op, &r->sid, o->seqid);
		return v4_seq_op(fd, o, &r->fh, &op, &r->sid);
	}
	return r->st;
}

static long delegreturn(int fd, const struct v4_fh *fh, const struct stateid4 *d)
{
	struct nfs_argop4 op;
	struct v4_res s;
	long st;

	v4op_simple(&op, OP_DELEGRETURN);
	op.u.opdelegreturn.deleg_stateid = *d;
	v4_res_init(&s);
	st = v4_on_fh(fd, 0, fh, &op, &s);
	v4_res_free(&s);
	return st;
}

static bool same_sid(const struct stateid4 *a, const struct stateid4 *b)
{
	return a->seqid == b->seqid && v4_same_other(a, b);
}

static bool same_fh(const struct v4_fh *a, const struct v4_fh *b)
{
	return a->len && a->len == b->len && memcmp(a->d, b->d, a->len) == 0;
}

/* The CB_RECALL of 4.0 for the delegation @d of @fh, as RFC 7530 16.2 / 20.2 have it. */
static bool recall40_ok(const struct cb_call *k, const struct stateid4 *d, const struct v4_fh *fh)
{
	return k->ok && k->prog == CB_PROG40 && k->vers == 1 && k->proc == 1 && k->minor == 0 &&
	       k->ident == CB_IDENT && k->nops == 1 && k->op[0] == OP_CB_RECALL_NUM &&
	       same_sid(&k->sid, d) && k->truncate == 0 && same_fh(&k->fh, fh);
}

/* A holds a read delegation on @name: OPEN read-only by A's (confirmed) owner. */
static bool a_deleg(const char *name, struct opened *r)
{
	long st = open40(fd_a, &own_a, OPEN4_SHARE_ACCESS_READ, name, false, true, r);

	if (st != NFS4_OK || r->dtype != OPEN_DELEGATE_READ)
		printf("#   A's OPEN of %s: %ld, delegation type %u\n", name, st, r->dtype);
	return st == NFS4_OK && r->dtype == OPEN_DELEGATE_READ;
}

/* ---- 1-5: grant, use, recall, return --------------------------------------- */

static void test_basic(void)
{
	struct opened r1, r2, b;
	struct cb_call k;
	struct nfs_argop4 op;
	struct v4_res s;
	char buf[64];
	long st;
	bool delay, got, returned;

	st = open40(fd_a, &own_a, OPEN4_SHARE_ACCESS_READ, "f1", false, false, &r1);
	ok(st == NFS4_OK && (r1.rflags & OPEN4_RESULT_CONFIRM) && r1.dtype == OPEN_DELEGATE_NONE,
	   "1: A's first OPEN (new open-owner) read-only of f1: OK, CONFIRM asked, no delegation "
	   "(%ld, rflags %#x, type %u)", st, r1.rflags, r1.dtype);
	v4op_open_confirm(&op, &r1.sid, own_a.seqid);
	st = v4_seq_op(fd_a, &own_a, &r1.fh, &op, &r1.sid);
	ok(st == NFS4_OK, "1: OPEN_CONFIRM: OK (%ld)", st);
	st = open40(fd_a, &own_a, OPEN4_SHARE_ACCESS_READ, "f1", false, false, &r2);
	ok(st == NFS4_OK && r2.dtype == OPEN_DELEGATE_READ && !r2.recall &&
	   !v4_same_other(&r2.dsid, &r2.sid) && !(r2.rflags & OPEN4_RESULT_CONFIRM),
	   "1: A's OPEN again read-only: OPEN_DELEGATE_READ, its own stateid, recall false "
	   "(%ld, type %u, recall %d)", st, r2.dtype, r2.recall);

	st = v4_read_str(fd_a, &r2.fh, &r2.dsid, 0, 64, buf, sizeof(buf));
	ok(r2.dtype == OPEN_DELEGATE_READ && st == NFS4_OK && !strcmp(buf, "f1\n"),
	   "2: READ with the delegation stateid: OK, the data (%ld, \"%.*s\")", st,
	   (int)strcspn(buf, "\n"), buf);
	v4op_write(&op, &r2.dsid, 0, FILE_SYNC4, "xx", 2);
	v4_res_init(&s);
	st = v4_on_fh(fd_a, 0, &r2.fh, &op, &s);
	ok(r2.dtype == OPEN_DELEGATE_READ && st == NFS4ERR_OPENMODE,
	   "2: WRITE with it: OPENMODE (%ld)", st);

	st = open40(fd_b, &own_b, OPEN4_SHARE_ACCESS_BOTH, "f1", false, true, &b);
	delay = st == NFS4ERR_DELAY;
	ok(delay, "3: B's OPEN of f1 for read and write: DELAY (%ld)", st);
	got = delay && a_call(5000, &k, NFS4_OK);
	ok(got && recall40_ok(&k, &r2.dsid, &r2.fh),
	   "3: A's callback gets CB_COMPOUND (program %#x v1, minor 0, its callback_ident) of "
	   "one CB_RECALL: the delegation's stateid, truncate false, f1's handle; answered OK",
	   CB_PROG40);
	if (got && !recall40_ok(&k, &r2.dsid, &r2.fh))
		cb_diag("CB call", &k);

	st = open40(fd_b, &own_b, OPEN4_SHARE_ACCESS_BOTH, "f1", false, true, &b);
	ok(st == NFS4ERR_DELAY, "4: B's OPEN again before the delegation is returned: DELAY (%ld)",
	   st);
	st = delegreturn(fd_a, &r2.fh, &r2.dsid);
	returned = st == NFS4_OK;
	ok(returned, "4: A's DELEGRETURN: OK (%ld)", st);
	st = open40(fd_b, &own_b, OPEN4_SHARE_ACCESS_BOTH, "f1", false, true, &b);
	ok(delay && st == NFS4_OK && b.dtype == OPEN_DELEGATE_NONE,
	   "4: B's OPEN after it: OK, no delegation (%ld, type %u)", st, b.dtype);
	st = delegreturn(fd_a, &r2.fh, &r2.dsid);
	ok(returned && st == NFS4ERR_BAD_STATEID, "5: DELEGRETURN again: BAD_STATEID (%ld)", st);
	v4_res_free(&s);
}

/* ---- 6: the holder's own OPEN for write ------------------------------------- */

static void test_own(void)
{
	struct v4_owner a2 = { cid_a, "deleg-a-owner-2", 0 };
	struct nfs_argop4 ops[3];
	struct v4_fattr f;
	struct v4_res s;
	struct opened d, w;
	struct cb_call k;
	long st;
	bool got;

	got = a_deleg("f6", &d);
	ok(got, "6: A holds a delegation on f6");
	st = open40(fd_a, &a2, OPEN4_SHARE_ACCESS_BOTH, "f6", false, true, &w);
	ok(got && st == NFS4_OK, "6: A's other open-owner opens f6 for write: OK at once (%ld)", st);
	ok(got && !a_call(1000, &k, NFS4_OK), "6: and no recall comes within 1 s");
	/* a 4.0 SETATTR names no client: the READ before it in the same
	 * COMPOUND does (knfsd's cstate->clp) */
	v4op_putfh(&ops[0], &d.fh);
	v4op_read(&ops[1], &d.dsid, 0, 4);
	v4f_init(&f);
	v4f_u32(&f, FATTR4_MODE, 0666);
	v4op_setattr(&ops[2], 0, NULL, &f);
	v4_res_init(&s);
	st = v4_call_as(fd_a, 0, ops, 3, &s);
	v4_res_free(&s);
	ok(got && st == NFS4_OK && !a_call(1000, &k, NFS4_OK),
	   "6: A's PUTFH, READ with its delegation, SETATTR (mode): OK, its own delegation not "
	   "recalled (%ld)", st);
	if (got)
		delegreturn(fd_a, &d.fh, &d.dsid);
}

/* ---- 7: what else recalls ----------------------------------------------- */

enum conflict {
	C_SETATTR, C_REMOVE, C_RENAME, C_LINK, C_WRITE,
	/* reads: only a write delegation conflicts */
	C_OPEN_READ, C_READ, C_GETATTR_SIZE, C_GETATTR_CHANGE, C_GETATTR_MODE,
};

/* B's @what on @name (handle @fh). Return values: its status. */
static long b_conflict(enum conflict what, const char *name, const struct v4_fh *fh)
{
	char to[64];
	struct nfs_argop4 ops[4];
	struct v4_fattr f;
	struct v4_res s;
	long st = -1;

	v4_res_init(&s);
	snprintf(to, sizeof(to), "%s.new", name);
	switch (what) {
	case C_SETATTR:
		v4f_init(&f);
		v4f_u32(&f, FATTR4_MODE, 0640);
		v4op_setattr(&ops[0], 0, NULL, &f);
		st = v4_on_fh(fd_b, 0, fh, &ops[0], &s);
		break;
	case C_REMOVE:
		v4op_remove(&ops[0], name);
		st = v4_on_fh(fd_b, 0, &fh_rw, &ops[0], &s);
		break;
	case C_RENAME:
		v4op_putfh(&ops[0], &fh_rw);
		v4op_simple(&ops[1], OP_SAVEFH);
		v4op_putfh(&ops[2], &fh_rw);
		v4op_rename(&ops[3], name, to);
		st = v4_call_as(fd_b, 0, ops, 4, &s);
		break;
	case C_LINK:
		v4op_putfh(&ops[0], fh);
		v4op_simple(&ops[1], OP_SAVEFH);
		v4op_putfh(&ops[2], &fh_rw);
		v4op_link(&ops[3], to);
		st = v4_call_as(fd_b, 0, ops, 4, &s);
		break;
	case C_WRITE:
		v4op_write(&ops[0], NULL, 0, FILE_SYNC4, "b", 1);
		st = v4_on_fh(fd_b, 0, fh, &ops[0], &s);
		break;
	case C_OPEN_READ: {
		static struct v4_owner rd = { 0, "deleg-b-reader", 0 };
		struct opened r;

		rd.cid = cid_b;
		st = open40(fd_b, &rd, OPEN4_SHARE_ACCESS_READ, name, false, true, &r);
		break;
	}
	case C_READ:
		v4op_read(&ops[0], NULL, 0, 64);
		st = v4_on_fh(fd_b, 0, fh, &ops[0], &s);
		break;
	case C_GETATTR_SIZE:
	case C_GETATTR_CHANGE:
	case C_GETATTR_MODE: {
		uint32_t w[2] = { 0, 0 };

		if (what == C_GETATTR_SIZE)
			w[0] = 1u << FATTR4_SIZE;
		else if (what == C_GETATTR_CHANGE)
			w[0] = 1u << FATTR4_CHANGE;
		else
			w[1] = 1u << (FATTR4_MODE - 32);
		v4op_getattr(&ops[0], w, 2);
		st = v4_on_fh(fd_b, 0, fh, &ops[0], &s);
		break;
	}
	}
	v4_res_free(&s);
	return st;
}

static void test_conflicts(void)
{
	static const struct {
		enum conflict what;
		const char *name, *desc;
	} cs[] = {
		{ C_SETATTR, "c-setattr", "SETATTR (mode) with the anonymous stateid" },
		{ C_REMOVE, "c-remove", "REMOVE of its name" },
		{ C_RENAME, "c-rename", "RENAME of it" },
		{ C_LINK, "c-link", "LINK to it" },
		{ C_WRITE, "c-write", "WRITE with the anonymous stateid" },
	};
	struct opened d, b;
	struct cb_call k;
	size_t i;
	long st;
	bool got, delay;

	for (i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
		got = a_deleg(cs[i].name, &d);
		st = b_conflict(cs[i].what, cs[i].name, &d.fh);
		delay = st == NFS4ERR_DELAY;
		ok(got && delay, "7: A holds a delegation on %s; B's %s: DELAY (%ld)", cs[i].name,
		   cs[i].desc, st);
		got = delay && a_call(5000, &k, NFS4_OK);
		ok(got && recall40_ok(&k, &d.dsid, &d.fh), "7: %s: the CB_RECALL of that delegation "
		   "reaches A", cs[i].name);
		if (got && !recall40_ok(&k, &d.dsid, &d.fh))
			cb_diag("CB call", &k);
		st = delegreturn(fd_a, &d.fh, &d.dsid);
		ok(delay && st == NFS4_OK && b_conflict(cs[i].what, cs[i].name, &d.fh) == NFS4_OK,
		   "7: %s: after A's DELEGRETURN (%ld), B's %s: OK", cs[i].name, st, cs[i].desc);
	}

	got = a_deleg("c-read", &d);
	st = open40(fd_b, &own_b, OPEN4_SHARE_ACCESS_READ, "c-read", false, true, &b);
	ok(got && st == NFS4_OK, "7: A holds a delegation on c-read; B's read-only OPEN: OK (%ld)",
	   st);
	ok(got && b_conflict(C_READ, "c-read", &d.fh) == NFS4_OK &&
	   b_conflict(C_GETATTR_SIZE, "c-read", &d.fh) == NFS4_OK &&
	   b_conflict(C_GETATTR_CHANGE, "c-read", &d.fh) == NFS4_OK,
	   "7: B's anonymous READ, GETATTR of size, of change: OK");
	ok(got && !a_call(1000, &k, NFS4_OK), "7: no recall for them within 1 s");
	ok(got && delegreturn(fd_a, &d.fh, &d.dsid) == NFS4_OK,
	   "7: A's delegation on c-read still held (DELEGRETURN OK)");
}

/* ---- 9, 10: no delegation ------------------------------------------------ */

static void test_none(void)
{
	struct v4_owner own_c = { 0, "deleg-c-owner", 0 };
	struct opened c, a, w, n;
	clientid4 cid_c = 0;
	char ua[64];
	uint16_t p;
	long st;
	bool got, created;
	int lfd = rpc_listen_lo(&p);

	close(lfd);                     /* a loopback port nobody listens on */
	rpc_uaddr_lo(ua, sizeof(ua), p);
	st = client40(fd_b, "deleg-client-c", ua, &cid_c);
	own_c.cid = cid_c;
	ok(st == NFS4_OK && log_says(cid_c, "down", 5000),
	   "9: client C's callback goes nowhere: the path is down (%ld)", st);
	open40(fd_b, &own_c, OPEN4_SHARE_ACCESS_READ, "f9", false, true, &c);
	st = open40(fd_b, &own_c, OPEN4_SHARE_ACCESS_READ, "f9", false, true, &c);
	got = a_deleg("f9", &a);
	ok(st == NFS4_OK && c.dtype == OPEN_DELEGATE_NONE && got,
	   "9: C's read-only OPEN after OPEN_CONFIRM: OK, OPEN_DELEGATE_NONE (%ld, type %u), "
	   "while A's, the same OPEN of the same file, gets a read delegation", st, c.dtype);
	if (got)
		delegreturn(fd_a, &a.fh, &a.dsid);

	st = open40(fd_a, &own_a, OPEN4_SHARE_ACCESS_BOTH, "f10w", false, true, &w);
	ok(st == NFS4_OK && w.dtype == OPEN_DELEGATE_NONE,
	   "10: A's OPEN for read and write: no delegation, a 4.0 client gets no write "
	   "delegation (knfsd's rule) (%ld, type %u)", st, w.dtype);
	st = open40(fd_a, &own_a, OPEN4_SHARE_ACCESS_READ, "f10new", true, true, &n);
	created = st == NFS4_OK && n.dtype == OPEN_DELEGATE_NONE;
	got = a_deleg("f10new", &n);
	ok(created && got, "10: A's read-only OPEN that creates f10new: no delegation (%ld, "
	   "type %u); the same OPEN again, the file there: a delegation", st, n.dtype);
	if (got)
		delegreturn(fd_a, &n.fh, &n.dsid);
}

/* ---- D1: OPEN by a delegation (CLAIM_DELEGATE_CUR) while it is recalled ---- */

/* A's OPEN of @name by @o with CLAIM_DELEGATE_CUR naming delegation @d. */
static long open_deleg_cur(struct v4_owner *o, const char *name, const struct stateid4 *d,
			   struct opened *r)
{
	struct nfs_argop4 ops[3], op;
	struct v4_res s;
	component4 file;

	memset(r, 0, sizeof(*r));
	r->st = -1;
	v4op_putfh(&ops[0], &fh_rw);
	v4op_open(&ops[1], o->seqid, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, o->cid,
		  o->name, name);
	file = ops[1].u.opopen.claim.u.file;
	ops[1].u.opopen.claim.claim = CLAIM_DELEGATE_CUR;
	ops[1].u.opopen.claim.u.delegate_cur_info.delegate_stateid = *d;
	ops[1].u.opopen.claim.u.delegate_cur_info.file = file;
	v4op_simple(&ops[2], OP_GETFH);
	v4_res_init(&s);
	if (v4_call_as(fd_a, 0, ops, 3, &s) >= 0)
		take_open(&s, 1, r);
	v4_res_free(&s);
	if (v4_seqid_counted(r->st))
		o->seqid++;
	if (r->st == NFS4_OK && (r->rflags & OPEN4_RESULT_CONFIRM)) {
		v4op_open_confirm(&op, &r->sid, o->seqid);
		return v4_seq_op(fd_a, o, &r->fh, &op, &r->sid);
	}
	return r->st;
}

static void test_claim_cur(void)
{
	struct v4_owner a4 = { 0, "deleg-a-owner-4", 0 };
	struct stateid4 bad;
	struct opened d, b, r;
	struct cb_call k;
	long st;
	bool got, delay;

	a4.cid = cid_a;
	got = a_deleg("dcur", &d);
	st = open40(fd_b, &own_b, OPEN4_SHARE_ACCESS_BOTH, "dcur", false, true, &b);
	delay = st == NFS4ERR_DELAY;
	got = got && delay && a_call(5000, &k, NFS4_OK) && recall40_ok(&k, &d.dsid, &d.fh);
	ok(got, "D1: A holds a delegation on dcur; B's OPEN for write: DELAY (%ld), the recall "
	   "reaches A", st);
	bad = d.dsid;
	bad.other[11] ^= 0x5a;
	st = open_deleg_cur(&a4, "dcur", &bad, &r);
	ok(got && st == NFS4ERR_BAD_STATEID,
	   "D1: A's OPEN CLAIM_DELEGATE_CUR with a stateid that is no delegation: BAD_STATEID "
	   "(%ld)", st);
	st = open_deleg_cur(&a4, "dcur", &d.dsid, &r);
	ok(got && st == NFS4_OK && r.dtype == OPEN_DELEGATE_NONE && same_fh(&r.fh, &d.fh),
	   "D1: with the recalled delegation: OK at once (no DELAY), no new delegation, dcur "
	   "current (%ld, type %u)", st, r.dtype);
	st = delegreturn(fd_a, &d.fh, &d.dsid);
	ok(got && st == NFS4_OK &&
	   open40(fd_b, &own_b, OPEN4_SHARE_ACCESS_BOTH, "dcur", false, true, &b) == NFS4_OK,
	   "D1: DELEGRETURN (%ld); B's OPEN then: OK", st);
}

/* ---- D2: RENEW of a 4.0 client whose delegation cannot be recalled --------- */

static void test_renew_down(void)
{
	struct v4_owner own_d = { 0, "deleg-d-owner", 0 };
	struct opened d, b;
	clientid4 cid_d = 0;
	char ua[64];
	uint16_t p;
	long st, rn;
	bool got;
	int lfd = rpc_listen_lo(&p);

	rpc_uaddr_lo(ua, sizeof(ua), p);
	st = client40(fd_b, "deleg-client-d", ua, &cid_d);
	own_d.cid = cid_d;
	{
		/* D's callback service answers the probe, then goes away */
		int save = lfd_a;

		lfd_a = lfd;
		got = st == NFS4_OK && a_probe(5000) && log_says(cid_d, "up", 5000);
		lfd_a = save;
	}
	open40(fd_b, &own_d, OPEN4_SHARE_ACCESS_READ, "rdown", false, true, &d);
	st = open40(fd_b, &own_d, OPEN4_SHARE_ACCESS_READ, "rdown", false, true, &d);
	got = got && st == NFS4_OK && d.dtype == OPEN_DELEGATE_READ;
	rn = v4_renew(fd_b, cid_d);
	ok(got && rn == NFS4_OK, "D2: client D (callback path up) holds a delegation on rdown; "
	   "its RENEW: OK (%ld)", rn);
	close(lfd);
	st = open40(fd_b, &own_b, OPEN4_SHARE_ACCESS_BOTH, "rdown", false, true, &b);
	ok(got && st == NFS4ERR_DELAY && log_says(cid_d, "down", 5000),
	   "D2: D's callback service gone, B's OPEN for write: DELAY (%ld); the recall fails, "
	   "the path is down", st);
	rn = v4_renew(fd_b, cid_d);
	ok(got && rn == NFS4ERR_CB_PATH_DOWN,
	   "D2: D's RENEW: CB_PATH_DOWN (a delegation it holds cannot be recalled) (%ld)", rn);
	st = delegreturn(fd_b, &d.fh, &d.dsid);
	rn = v4_renew(fd_b, cid_d);
	ok(got && st == NFS4_OK && rn == NFS4_OK,
	   "D2: after its DELEGRETURN (%ld), RENEW: OK (%ld)", st, rn);
}

/* ---- NFSv3 WRITE against a delegation -------------------------------------- */

static long v3_write(const struct raw_fh *fh)
{
	struct rpc_buf a;
	struct raw_res s = { 0 };
	struct rpc_cur c;
	long st = -1;

	rpc_buf_init(&a);
	rpc_buf_init(&s.store);
	rpc_buf_put_opaque(&a, fh->d, fh->len);
	rpc_buf_put_u32(&a, 0);                 /* offset */
	rpc_buf_put_u32(&a, 0);
	rpc_buf_put_u32(&a, 3);                 /* count */
	rpc_buf_put_u32(&a, 2);                 /* FILE_SYNC */
	rpc_buf_put_opaque(&a, "v3\n", 3);
	raw_call(fd_b, PROG_NFS, NFS3_WRITE_PROC, &a, &s);
	c = raw_cur(&s);
	st = rpc_cur_u32(&c);
	if (c.bad) {
		raw_diag(&s);
		st = -1;
	}
	rpc_buf_free(&a);
	rpc_buf_free(&s.store);
	return st;
}

static void test_v3(void)
{
	struct raw_fh root3, f3;
	struct opened d;
	struct cb_call k;
	long st, m, l;
	bool got, juke;

	m = raw_mnt(fd_b, v4_path(base, "rw"), &root3);
	l = m == 0 ? raw_lookup(fd_b, &root3, "v3f", &f3) : -1;
	if (!ok(m == 0 && l == 0, "v3: MNT rw, LOOKUP v3f (%ld, %ld)", m, l))
		return;
	got = a_deleg("v3f", &d);
	st = v3_write(&f3);
	juke = st == NFS3ERR_JUKEBOX;
	ok(got && juke, "v3: A holds a delegation on v3f; an NFSv3 WRITE of it: JUKEBOX (%ld)",
	   st);
	got = juke && a_call(5000, &k, NFS4_OK);
	ok(got && recall40_ok(&k, &d.dsid, &d.fh), "v3: the CB_RECALL reaches A");
	if (got && !recall40_ok(&k, &d.dsid, &d.fh))
		cb_diag("CB call", &k);
	st = delegreturn(fd_a, &d.fh, &d.dsid);
	l = juke ? v3_write(&f3) : -1;
	ok(juke && st == NFS4_OK && l == 0,
	   "v3: after A's DELEGRETURN (%ld), the WRITE: NFS3_OK (%ld)", st, l);
}

/* ---- 8: a recalled delegation not returned (4.0) --------------------------- */

static void test_revoke40(void)
{
	struct opened d, b;
	struct cb_call k;
	long long t0 = 0, ms = -1, last_renew = 0;
	long st;
	int more = 0;
	bool got;

	got = a_deleg("g", &d);
	st = open40(fd_b, &own_b, OPEN4_SHARE_ACCESS_BOTH, "g", false, true, &b);
	ok(got && st == NFS4ERR_DELAY, "8: A holds a delegation on g; B's OPEN for write: DELAY "
	   "(%ld)", st);
	got = st == NFS4ERR_DELAY && a_call(5000, &k, NFS4_OK);
	ok(got && recall40_ok(&k, &d.dsid, &d.fh), "8: the CB_RECALL reaches A, answered OK; "
	   "A keeps the delegation (and renews its lease)");
	if (got) {
		t0 = rpc_now_ms();
		while (rpc_now_ms() - t0 < LEASE_MS + 7000) {
			if (rpc_now_ms() - last_renew >= 2000) {
				v4_renew(fd_a, cid_a);
				last_renew = rpc_now_ms();
			}
			if (a_call(0, &k, NFS4_OK))
				more++;
			st = open40(fd_b, &own_b, OPEN4_SHARE_ACCESS_BOTH, "g", false, true, &b);
			if (st != NFS4ERR_DELAY)
				break;
			usleep(500000);
		}
		ms = rpc_now_ms() - t0;
	}
	ok(got && st == NFS4_OK && ms >= LEASE_MS - 2000 && ms <= LEASE_MS + 5000,
	   "8: B's OPEN keeps getting DELAY, then OK about a lease after the recall (%lld ms, "
	   "%ld; %d more callbacks)", ms, st, more);
	st = delegreturn(fd_a, &d.fh, &d.dsid);
	ok(got && st == NFS4ERR_BAD_STATEID,
	   "8: A's DELEGRETURN of the revoked delegation: BAD_STATEID (%ld)", st);
}

/* ---- NFSv4.1: a back channel on the client's own connection ----------------- */

/* A 4.1 client on its own connection, which is its back channel too. */
struct s41 {
	int fd;
	struct v4_session ses;
	struct rpc_buf cbq[4];  /* calls that came on its connection amid replies */
	int ncbq;
};

static struct s41 s_main = { .fd = -1 }, s_down = { .fd = -1 }, s_w = { .fd = -1 };
static uint32_t w_seq = 1;         /* the next CB_SEQUENCE seqid to SW */
static struct s41 *sc = &s_main;   /* the client the s_* helpers speak for */

/* COMPOUND (minor version 1) @ops on S's connection; calls nfsxd sends
 * before the reply are kept in sc->cbq. Return values: as v4_compound(). */
static void s_keep(void *arg, const struct rpc_buf *rec)
{
	struct s41 *k = arg;

	if (k->ncbq < 4) {
		rpc_buf_init(&k->cbq[k->ncbq]);
		rpc_buf_put_bytes(&k->cbq[k->ncbq++], rec->data, rec->len);
	}
}

static bool s_call(const struct nfs_argop4 *ops, uint32_t n, struct v4_res *out)
{
	return v4_call_cb(sc->fd, "t", 1, 0, ops, n, out, s_keep, sc);
}

/* The next call nfsxd sends on S's connection, within @ms, parsed. */
static bool s_next_call(int ms, struct cb_call *k)
{
	struct rpc_buf rec;
	bool got = false;
	int i;

	memset(k, 0, sizeof(*k));
	rpc_buf_init(&rec);
	if (sc->ncbq > 0) {
		rpc_buf_put_bytes(&rec, sc->cbq[0].data, sc->cbq[0].len);
		rpc_buf_free(&sc->cbq[0]);
		for (i = 1; i < sc->ncbq; i++)
			sc->cbq[i - 1] = sc->cbq[i];
		sc->ncbq--;
		got = true;
	} else {
		got = rpc_recv_record(sc->fd, &rec, ms, 1u << 20) == 1 && rec.len >= 8 &&
		      rpc_get_u32(rec.data + 4) == RPC_CALL;
	}
	if (got)
		cb_parse(&rec, k);
	rpc_buf_free(&rec);
	return got;
}

/* The CB_COMPOUND of 4.1 recalling @d of @fh: CB_SEQUENCE on slot 0 with @seq, then CB_RECALL. */
static bool recall41_ok(const struct cb_call *k, uint32_t seq, const struct stateid4 *d,
			const struct v4_fh *fh)
{
	return k->ok && k->prog == CB_PROG41 && k->vers == 1 && k->proc == 1 && k->minor == 1 &&
	       k->nops == 2 && k->op[0] == OP_CB_SEQUENCE_NUM &&
	       !memcmp(k->sess, sc->ses.sid.val, sizeof(k->sess)) && k->slot == 0 &&
	       k->seq == seq &&
	       k->hslot == 0 && k->nrcl == 0 && k->op[1] == OP_CB_RECALL_NUM &&
	       same_sid(&k->sid, d) && k->truncate == 0 && same_fh(&k->fh, fh);
}

/* SEQUENCE alone on S's slot 0: its status flags, or -1. */
static long s_seq_flags(void)
{
	struct nfs_argop4 op;
	struct v4_res s;
	long fl = -1;

	v4_res_init(&s);
	v4op_seq_next(&op, &sc->ses, 0, false);
	if (s_call(&op, 1, &s) && s.status == NFS4_OK)
		fl = s.ops[0].u.opsequence.u.sr_resok4.sr_status_flags;
	v4_res_free(&s);
	return fl;
}

static long s_open(uint32_t access, const char *name, struct opened *r)
{
	struct nfs_argop4 ops[4];
	struct v4_res s;

	memset(r, 0, sizeof(*r));
	r->st = -1;
	v4op_seq_next(&ops[0], &sc->ses, 0, false);
	v4op_putfh(&ops[1], &fh_rw);
	v4op_open(&ops[2], 0, access, OPEN4_SHARE_DENY_NONE, sc->ses.clientid, "deleg-s-owner",
		  name);
	v4op_simple(&ops[3], OP_GETFH);
	v4_res_init(&s);
	if (s_call(ops, 4, &s))
		take_open(&s, 2, r);
	v4_res_free(&s);
	return r->st;
}

/* SEQUENCE, PUTFH, @op on S's connection: @op's status (or the COMPOUND's). */
static long s_on_fh(const struct v4_fh *fh, const struct nfs_argop4 *op, struct v4_res *s)
{
	struct nfs_argop4 ops[3];

	v4op_seq_next(&ops[0], &sc->ses, 0, false);
	v4op_putfh(&ops[1], fh);
	ops[2] = *op;
	if (!s_call(ops, 3, s))
		return -1;
	return s->nops == 3 ? v4_op_status(s, 2) : (long)s->status;
}

static long s_delegreturn(const struct v4_fh *fh, const struct stateid4 *d)
{
	struct nfs_argop4 op;
	struct v4_res s;
	long st;

	v4op_simple(&op, OP_DELEGRETURN);
	op.u.opdelegreturn.deleg_stateid = *d;
	v4_res_init(&s);
	st = s_on_fh(fh, &op, &s);
	v4_res_free(&s);
	return st;
}

static bool session41(const char *who, const char *owner)
{
	struct callback_sec_parms4 none = { .cb_secflavor = AUTH_NONE };
	struct nfs_argop4 ops[2];
	struct v4_res s;
	long st = -1;
	uint32_t flags = 0;

	v4_res_init(&s);
	v4op_exchange_id(&ops[0], owner, 7, 0);
	if (s_call(ops, 1, &s) && s.status == NFS4_OK) {
		sc->ses.clientid = s.ops[0].u.opexchange_id.u.eir_resok4.eir_clientid;
		sc->ses.cs_seq = s.ops[0].u.opexchange_id.u.eir_resok4.eir_sequenceid;
		v4op_create_session(&ops[0], sc->ses.clientid, sc->ses.cs_seq,
				    CREATE_SESSION4_FLAG_CONN_BACK_CHAN, 65536, 65536, 4096, 8);
		ops[0].u.opcreate_session.csa_back_chan_attrs.ca_maxrequests = 1;
		ops[0].u.opcreate_session.csa_cb_program = CB_PROG41;
		ops[0].u.opcreate_session.csa_sec_parms.len = 1;
		ops[0].u.opcreate_session.csa_sec_parms.val = &none;
		if (s_call(ops, 1, &s) && (st = s.status) == NFS4_OK) {
			const struct CREATE_SESSION4resok *k = &s.ops[0].u.opcreate_session.u.csr_resok4;

			sc->ses.sid = k->csr_sessionid;
			flags = k->csr_flags;
			v4op_seq_next(&ops[0], &sc->ses, 0, false);
			v4op_reclaim_complete(&ops[1], false);
			st = s_call(ops, 2, &s) ? (long)s.status : -1;
		}
	}
	v4_res_free(&s);
	return ok(st == NFS4_OK && (flags & CREATE_SESSION4_FLAG_CONN_BACK_CHAN),
		  "4.1: client %s: EXCHANGE_ID, CREATE_SESSION with a back channel on its "
		  "connection (granted), RECLAIM_COMPLETE (%ld, flags %#x)", who, st, flags);
}

/* B's conflicting OPEN of @name, S's recall on its connection with
 * CB_SEQUENCE @seq; S answers it, and returns the delegation when @give. */
static void recall41(const char *name, const struct opened *d, uint32_t seq, bool give)
{
	struct opened b;
	struct cb_call k;
	long st;
	bool got, delay;

	st = open40(fd_b, &own_b, OPEN4_SHARE_ACCESS_BOTH, name, false, true, &b);
	delay = st == NFS4ERR_DELAY;
	ok(delay, "4.1: B's OPEN of %s for write: DELAY (%ld)", name, st);
	got = delay && s_next_call(5000, &k);
	ok(got && recall41_ok(&k, seq, &d->dsid, &d->fh),
	   "4.1: on S's own connection, a call: program %#x v1 CB_COMPOUND minor 1, "
	   "CB_SEQUENCE (S's session, slot 0, seqid %u, highest 0), CB_RECALL (the "
	   "delegation, truncate false, %s's handle)", CB_PROG41, seq, name);
	if (got && !recall41_ok(&k, seq, &d->dsid, &d->fh))
		cb_diag("CB call", &k);
	if (got)
		cb_reply(sc->fd, &k, NFS4_OK);
	if (!give)
		return;
	st = s_delegreturn(&d->fh, &d->dsid);
	ok(st == NFS4_OK, "4.1: S's SEQUENCE, PUTFH, DELEGRETURN: OK (%ld)", st);
	st = open40(fd_b, &own_b, OPEN4_SHARE_ACCESS_BOTH, name, false, true, &b);
	ok(delay && st == NFS4_OK, "4.1: B's OPEN of %s after it: OK (%ld)", name, st);
}

static void test_41(void)
{
	struct opened d, n;
	long st;

	sc->fd = rpc_connect(port, 5000);
	if (sc->fd < 0 || !session41("S", "deleg-client-s"))
		return;
	st = s_open(OPEN4_SHARE_ACCESS_READ, "h1", &d);
	ok(st == NFS4_OK && d.dtype == OPEN_DELEGATE_READ && !d.recall &&
	   !v4_same_other(&d.dsid, &d.sid),
	   "11: S's read-only OPEN of h1 (no WANT bits): OPEN_DELEGATE_READ (%ld, type %u)", st,
	   d.dtype);
	st = s_open(OPEN4_SHARE_ACCESS_READ | OPEN4_SHARE_ACCESS_WANT_NO_DELEG, "h11n", &n);
	ok(st == NFS4_OK && n.dtype == OPEN_DELEGATE_NONE_EXT && n.why == WND4_NOT_WANTED,
	   "11: with WANT_NO_DELEG: OPEN_DELEGATE_NONE_EXT, WND4_NOT_WANTED (%ld, type %u, "
	   "why %u)", st, n.dtype, n.why);
	if (d.dtype == OPEN_DELEGATE_READ)
		recall41("h1", &d, 1, true);
	else
		ok(0, "12: no delegation to recall");
	st = s_open(OPEN4_SHARE_ACCESS_READ, "h2", &d);
	if (ok(st == NFS4_OK && d.dtype == OPEN_DELEGATE_READ,
	       "12: S gets a delegation on h2 (%ld, type %u)", st, d.dtype))
		recall41("h2", &d, 2, true);
}

/* ---- 11off: a server started with --delegations off -------------------------- */

static struct s41 s_off = { .fd = -1 };

/* The same 4.1 client, back channel and OPENs as 11's, against a second
 * nfsxd on @port_off exporting the same directory with --delegations off:
 * no delegation, and WND4_RESOURCE to an OPEN that asked for one. */
static void test_off(uint16_t port_off)
{
	struct v4_fh keep = fh_rw, fh_off;
	struct opened d;
	int fd;
	long st;

	fd = rpc_connect(port_off, 5000);
	st = fd < 0 ? -1 : v4_walk(fd, v4_path(base, "rw"), &fh_off);
	if (fd >= 0)
		close(fd);
	if (!ok(st == NFS4_OK, "11off: the server with --delegations off: a handle of rw (%ld)",
		st))
		return;
	sc = &s_off;
	sc->fd = rpc_connect(port_off, 5000);
	if (sc->fd >= 0 && session41("OFF", "deleg-client-off")) {
		fh_rw = fh_off;
		st = s_open(OPEN4_SHARE_ACCESS_READ, "off1", &d);
		ok(st == NFS4_OK && d.dtype == OPEN_DELEGATE_NONE,
		   "11off: a read-only OPEN (no WANT bits), back channel up: OPEN_DELEGATE_NONE "
		   "(%ld, type %u)", st, d.dtype);
		st = s_open(OPEN4_SHARE_ACCESS_READ | OPEN4_SHARE_ACCESS_WANT_READ_DELEG, "off2", &d);
		ok(st == NFS4_OK && d.dtype == OPEN_DELEGATE_NONE_EXT && d.why == WND4_RESOURCE,
		   "11off: with WANT_READ_DELEG: OPEN_DELEGATE_NONE_EXT, WND4_RESOURCE (%ld, type "
		   "%u, why %u)", st, d.dtype, d.why);
		st = s_open(OPEN4_SHARE_ACCESS_BOTH, "off3", &d);
		ok(st == NFS4_OK && d.dtype == OPEN_DELEGATE_NONE,
		   "11off: an OPEN for read and write: no write delegation either (%ld, type %u)",
		   st, d.dtype);
		fh_rw = keep;
	}
	sc = &s_main;
}

/* ---- 13: a recalled delegation not returned (4.1) --------------------------- */

static void test_revoke41(void)
{
	struct opened d, b;
	struct cb_call k;
	struct nfs_argop4 op;
	struct v4_res s;
	long long t0, ms = -1, last_seq = 0;
	long st, fl, early = 0;
	uint32_t code = 0;

	if (sc->fd < 0)
		return;
	st = s_open(OPEN4_SHARE_ACCESS_READ, "h3", &d);
	if (!ok(st == NFS4_OK && d.dtype == OPEN_DELEGATE_READ,
		"13: S gets a delegation on h3 (%ld, type %u)", st, d.dtype))
		return;
	recall41("h3", &d, 3, false);
	t0 = rpc_now_ms();
	st = -1;
	while (rpc_now_ms() - t0 < LEASE_MS + 7000) {
		if (rpc_now_ms() - last_seq >= 2000) {
			fl = s_seq_flags();
			if (fl < 0 || (fl & SEQ4_STATUS_RECALLABLE_STATE_REVOKED))
				early = fl < 0 ? -1 : fl;
			last_seq = rpc_now_ms();
			while (sc->ncbq > 0 && s_next_call(0, &k))
				cb_reply(sc->fd, &k, NFS4_OK);
		}
		st = open40(fd_b, &own_b, OPEN4_SHARE_ACCESS_BOTH, "h3", false, true, &b);
		if (st != NFS4ERR_DELAY)
			break;
		usleep(500000);
	}
	ms = rpc_now_ms() - t0;
	ok(st == NFS4_OK && ms >= LEASE_MS - 2000 && ms <= LEASE_MS + 5000 && early == 0,
	   "13: B's OPEN keeps getting DELAY (S renewing, no REVOKED flag meanwhile: %#lx), then "
	   "OK about a lease after the recall (%lld ms, %ld)", early, ms, st);
	fl = s_seq_flags();
	ok(fl >= 0 && (fl & SEQ4_STATUS_RECALLABLE_STATE_REVOKED),
	   "13: S's next SEQUENCE: SEQ4_STATUS_RECALLABLE_STATE_REVOKED (flags %#lx)", fl);

	v4_res_init(&s);
	v4op_simple(&op, OP_TEST_STATEID);
	op.u.optest_stateid.ts_stateids.len = 1;
	op.u.optest_stateid.ts_stateids.val = &d.dsid;
	st = s_on_fh(&d.fh, &op, &s);
	if (st == NFS4_OK && s.ops[2].u.optest_stateid.u.tsr_resok4.tsr_status_codes.len == 1)
		code = s.ops[2].u.optest_stateid.u.tsr_resok4.tsr_status_codes.val[0];
	ok(st == NFS4_OK && code == NFS4ERR_DELEG_REVOKED,
	   "13: TEST_STATEID of it: DELEG_REVOKED (%ld, %u)", st, code);
	v4op_simple(&op, OP_FREE_STATEID);
	op.u.opfree_stateid.fsa_stateid = d.dsid;
	st = s_on_fh(&d.fh, &op, &s);
	ok(st == NFS4_OK, "13: FREE_STATEID of it: OK (%ld)", st);
	fl = s_seq_flags();
	ok(fl >= 0 && !(fl & SEQ4_STATUS_RECALLABLE_STATE_REVOKED),
	   "13: the next SEQUENCE: the flag is gone (flags %#lx)", fl);
	v4_res_free(&s);
}

/* ---- 14: 4.1's WANT flags for write delegations, CLAIM_DELEG_CUR_FH -------- */

/* SEQUENCE, PUTFH @fh, OPEN CLAIM_DELEG_CUR_FH by delegation @d, read-only. */
static long s_open_cur(const struct v4_fh *fh, const struct stateid4 *d, struct opened *r)
{
	struct nfs_argop4 ops[4];
	struct v4_res s;

	memset(r, 0, sizeof(*r));
	r->st = -1;
	v4op_seq_next(&ops[0], &sc->ses, 0, false);
	v4op_putfh(&ops[1], fh);
	v4op_open(&ops[2], 0, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, sc->ses.clientid,
		  "deleg-s-owner-2", "unused");
	ops[2].u.opopen.claim.claim = CLAIM_DELEG_CUR_FH;
	ops[2].u.opopen.claim.u.oc_delegate_stateid = *d;
	v4op_simple(&ops[3], OP_GETFH);
	v4_res_init(&s);
	if (s_call(ops, 4, &s))
		take_open(&s, 2, r);
	v4_res_free(&s);
	return r->st;
}

static void test_41_write(void)
{
	struct opened d, n, r;
	struct cb_call k;
	long st;

	if (s_main.fd < 0)
		return;
	sc = &s_main;
	st = s_open(OPEN4_SHARE_ACCESS_BOTH | OPEN4_SHARE_ACCESS_WANT_WRITE_DELEG, "h6", &d);
	ok(st == NFS4_OK && d.dtype == OPEN_DELEGATE_WRITE && d.limitby == NFS_LIMIT_SIZE,
	   "14: S's OPEN of h6 for read and write with WANT_WRITE_DELEG: OPEN_DELEGATE_WRITE "
	   "(%ld, type %u) (pynfs DELEG2)", st, d.dtype);
	st = s_open_cur(&d.fh, &d.dsid, &r);
	ok(d.dtype == OPEN_DELEGATE_WRITE && st == NFS4_OK && r.dtype == OPEN_DELEGATE_NONE &&
	   same_fh(&r.fh, &d.fh),
	   "14: its OPEN CLAIM_DELEG_CUR_FH by that delegation: OK, h6 current (%ld, type %u)",
	   st, r.dtype);
	ok(d.dtype == OPEN_DELEGATE_WRITE && s_delegreturn(&d.fh, &d.dsid) == NFS4_OK &&
	   !s_next_call(500, &k), "14: DELEGRETURN: OK, nothing recalled");
	st = s_open(OPEN4_SHARE_ACCESS_READ | OPEN4_SHARE_ACCESS_WANT_WRITE_DELEG, "h7", &n);
	ok(st == NFS4_OK && n.dtype == OPEN_DELEGATE_NONE_EXT,
	   "14: a read-only OPEN with WANT_WRITE_DELEG: OPEN_DELEGATE_NONE_EXT (%ld, type %u)",
	   st, n.dtype);
	st = s_open(OPEN4_SHARE_ACCESS_BOTH | OPEN4_SHARE_ACCESS_WANT_READ_DELEG, "h8", &n);
	ok(st == NFS4_OK && n.dtype == OPEN_DELEGATE_NONE_EXT,
	   "14: an OPEN for write with WANT_READ_DELEG: OPEN_DELEGATE_NONE_EXT, not a write "
	   "delegation (%ld, type %u)", st, n.dtype);
}

/* ---- 15: BACKCHANNEL_CTL; a callback with no answer: CB_PATH_DOWN flags ---- */

#define CB_PROG_NEW 0x40000077u

static void test_41_down(void)
{
	struct callback_sec_parms4 none = { .cb_secflavor = AUTH_NONE };
	struct nfs_argop4 ops[2];
	struct opened d, b;
	struct cb_call k;
	struct v4_res s;
	long st, fl, fl2;
	bool got, delay;

	sc = &s_down;
	sc->fd = rpc_connect(port, 5000);
	if (sc->fd < 0 || !session41("SD", "deleg-client-sd"))
		goto out;
	v4_res_init(&s);
	v4op_seq_next(&ops[0], &sc->ses, 0, false);
	v4op_simple(&ops[1], OP_BACKCHANNEL_CTL);
	ops[1].u.opbackchannel_ctl.bca_cb_program = CB_PROG_NEW;
	ops[1].u.opbackchannel_ctl.bca_sec_parms.len = 1;
	ops[1].u.opbackchannel_ctl.bca_sec_parms.val = &none;
	st = s_call(ops, 2, &s) ? (long)s.status : -1;
	v4_res_free(&s);
	ok(st == NFS4_OK, "15: SD's BACKCHANNEL_CTL (program %#x, AUTH_NONE): OK (%ld)",
	   CB_PROG_NEW, st);
	st = s_open(OPEN4_SHARE_ACCESS_READ, "h9", &d);
	got = st == NFS4_OK && d.dtype == OPEN_DELEGATE_READ;
	fl = s_seq_flags();
	ok(got && fl == 0, "15: SD holds a delegation on h9; SEQUENCE's status flags: none "
	   "(%ld, %#lx)", st, fl);
	st = open40(fd_b, &own_b, OPEN4_SHARE_ACCESS_BOTH, "h9", false, true, &b);
	delay = st == NFS4ERR_DELAY;
	got = got && delay && s_next_call(5000, &k);
	ok(got && k.ok && k.prog == CB_PROG_NEW && k.minor == 1 && k.nops == 2 &&
	   k.op[1] == OP_CB_RECALL_NUM && same_sid(&k.sid, &d.dsid),
	   "15: B's OPEN for write: DELAY (%ld); the CB_RECALL comes to SD with the program "
	   "BACKCHANNEL_CTL set (%#x); SD does not answer", st, k.prog);
	usleep(1500 * 1000);    /* the reply wait is a tenth of the 10 s lease */
	fl = s_seq_flags();
	ok(got && fl >= 0 && (fl & SEQ4_STATUS_CB_PATH_DOWN_SESSION) &&
	   (fl & SEQ4_STATUS_CB_PATH_DOWN),
	   "15: then SD's SEQUENCE: SEQ4_STATUS_CB_PATH_DOWN_SESSION and CB_PATH_DOWN "
	   "(flags %#lx)", fl);
	v4_res_init(&s);
	v4op_bind_conn(&ops[0], &sc->ses.sid, CDFC4_BACK_OR_BOTH);
	st = s_call(ops, 1, &s) ? (long)s.status : -1;
	v4_res_free(&s);
	fl2 = s_seq_flags();
	ok(got && st == NFS4_OK && fl2 == 0,
	   "15: BIND_CONN_TO_SESSION of its connection again (%ld): the flags are gone (%#lx)",
	   st, fl2);
	st = s_delegreturn(&d.fh, &d.dsid);
	ok(got && st == NFS4_OK &&
	   open40(fd_b, &own_b, OPEN4_SHARE_ACCESS_BOTH, "h9", false, true, &b) == NFS4_OK,
	   "15: SD's DELEGRETURN (%ld); B's OPEN then: OK", st);
out:
	sc = &s_main;
}

/* ---- W: write delegations (4.1 client SW) --------------------------------- */

/* SW holds a write delegation on @name: OPEN for read and write. */
static bool w_deleg(const char *name, struct opened *r)
{
	long st;

	sc = &s_w;
	st = s_open(OPEN4_SHARE_ACCESS_BOTH, name, r);
	sc = &s_main;
	if (st != NFS4_OK || r->dtype != OPEN_DELEGATE_WRITE)
		printf("#   SW's OPEN of %s for write: %ld, delegation type %u\n", name, st,
		       r->dtype);
	return st == NFS4_OK && r->dtype == OPEN_DELEGATE_WRITE;
}

/* The CB_RECALL of @d on SW's connection within 5 s, answered OK. */
static bool w_recalled(const struct opened *d)
{
	struct cb_call k;
	bool got;

	sc = &s_w;
	got = s_next_call(5000, &k);
	if (got)
		cb_reply(sc->fd, &k, NFS4_OK);
	got = got && recall41_ok(&k, w_seq++, &d->dsid, &d->fh);
	sc = &s_main;
	if (!got && k.ok)
		cb_diag("CB call", &k);
	return got;
}

/* Is a call on SW's connection within @ms? (answered OK) */
static bool w_any_call(int ms)
{
	struct cb_call k;
	bool got;

	sc = &s_w;
	got = s_next_call(ms, &k);
	if (got) {
		cb_reply(sc->fd, &k, NFS4_OK);
		w_seq++;
	}
	sc = &s_main;
	return got;
}

static long w_delegreturn(const struct opened *d)
{
	long st;

	sc = &s_w;
	st = s_delegreturn(&d->fh, &d->dsid);
	sc = &s_main;
	return st;
}

static void test_write(void)
{
	struct nfs_argop4 ops[3], op;
	struct opened d, r;
	struct v4_attrs at;
	struct v4_res s;
	uint32_t w[1] = { 1u << FATTR4_SIZE };
	long st, wst = -1, gst = -1;
	bool got;

	sc = &s_w;
	sc->fd = rpc_connect(port, 5000);
	got = sc->fd >= 0 && session41("SW", "deleg-client-sw");
	sc = &s_main;
	if (!got)
		return;
	got = w_deleg("w1", &d);
	ok(got && !d.recall && !v4_same_other(&d.dsid, &d.sid) && d.dsid.seqid == 1 &&
	   d.limitby == NFS_LIMIT_SIZE && d.filesize == 0,
	   "W1: SW's OPEN of w1 for read and write (no WANT bits): OPEN_DELEGATE_WRITE, its own "
	   "stateid, recall false, space_limit NFS_LIMIT_SIZE 0 as knfsd's (type %u, limit %u %"
	   PRIu64 ")", d.dtype, d.limitby, d.filesize);
	if (!got)
		return;
	sc = &s_w;
	v4_res_init(&s);
	v4op_seq_next(&ops[0], &sc->ses, 0, false);
	v4op_putfh(&ops[1], &d.fh);
	v4op_write(&ops[2], &d.dsid, 0, FILE_SYNC4, "WW", 2);
	st = s_call(ops, 3, &s) ? (long)s.status : -1;
	wst = s.nops == 3 ? v4_op_status(&s, 2) : -1;
	v4op_getattr(&op, w, 1);
	gst = s_on_fh(&d.fh, &op, &s);
	ok(st == NFS4_OK && wst == NFS4_OK && gst == NFS4_OK && v4_attrs_of_res(&s, 2, &at) &&
	   at.size == 3, "W2: SW's WRITE with the delegation stateid, then its GETATTR of size: "
	   "OK, size 3 (%ld, %ld, %ld)", st, wst, gst);
	v4op_read(&op, &d.dsid, 0, 64);
	st = s_on_fh(&d.fh, &op, &s);
	ok(st == NFS4_OK && s.ops[2].u.opread.u.resok4.data.len == 3 &&
	   !memcmp(s.ops[2].u.opread.u.resok4.data.data, "WW\n", 3),
	   "W2: its READ with it: OK, the data (%ld)", st);
	st = s_open(OPEN4_SHARE_ACCESS_READ, "w1", &r);
	v4_res_free(&s);
	sc = &s_main;
	ok(st == NFS4_OK && r.dtype == OPEN_DELEGATE_NONE,
	   "W3: SW's read-only OPEN of w1 again: OK at once, no second delegation (%ld, type %u)",
	   st, r.dtype);
	ok(!w_any_call(1000), "W3: none of SW's own calls recalled it (none within 1 s)");
	st = w_delegreturn(&d);
	ok(st == NFS4_OK, "W3: DELEGRETURN: OK (%ld)", st);
}

static void test_wconflicts(void)
{
	static const struct {
		enum conflict what;
		const char *name, *desc;
	} cs[] = {
		{ C_OPEN_READ, "w-openr", "read-only OPEN" },
		{ C_READ, "w-read", "READ with the anonymous stateid" },
		{ C_GETATTR_SIZE, "w-gsize", "GETATTR of size" },
		{ C_GETATTR_CHANGE, "w-gchange", "GETATTR of change" },
		{ C_WRITE, "w-write", "WRITE with the anonymous stateid" },
		{ C_SETATTR, "w-setattr", "SETATTR (mode)" },
		{ C_REMOVE, "w-remove", "REMOVE of its name" },
		{ C_RENAME, "w-rename", "RENAME of it" },
		{ C_LINK, "w-link", "LINK to it" },
	};
	struct opened d;
	size_t i;
	long st;
	bool got, delay;

	if (s_w.fd < 0)
		return;
	for (i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
		got = w_deleg(cs[i].name, &d);
		st = b_conflict(cs[i].what, cs[i].name, &d.fh);
		delay = st == NFS4ERR_DELAY;
		ok(got && delay, "W4: SW holds a write delegation on %s; B's %s: DELAY (%ld)",
		   cs[i].name, cs[i].desc, st);
		ok(delay && w_recalled(&d), "W4: %s: the CB_RECALL of that delegation reaches SW",
		   cs[i].name);
		st = w_delegreturn(&d);
		ok(delay && st == NFS4_OK && b_conflict(cs[i].what, cs[i].name, &d.fh) == NFS4_OK,
		   "W4: %s: after SW's DELEGRETURN (%ld), B's %s: OK", cs[i].name, st, cs[i].desc);
	}
	got = w_deleg("w-gmode", &d);
	st = b_conflict(C_GETATTR_MODE, "w-gmode", &d.fh);
	ok(got && st == NFS4_OK && !w_any_call(1000),
	   "W4: B's GETATTR of mode alone: OK, no recall (%ld)", st);
	if (got)
		w_delegreturn(&d);
}

/* An NFSv3 READ (@read) or GETATTR of @fh: the status. */
static long v3_look(const struct raw_fh *fh, bool read)
{
	struct rpc_buf a;
	struct raw_res s = { 0 };
	struct rpc_cur c;
	long st;

	rpc_buf_init(&a);
	rpc_buf_init(&s.store);
	rpc_buf_put_opaque(&a, fh->d, fh->len);
	if (read) {
		rpc_buf_put_u32(&a, 0);         /* offset */
		rpc_buf_put_u32(&a, 0);
		rpc_buf_put_u32(&a, 64);        /* count */
	}
	raw_call(fd_b, PROG_NFS, read ? NFS3_READ_PROC : NFS3_GETATTR_PROC, &a, &s);
	c = raw_cur(&s);
	st = rpc_cur_u32(&c);
	if (c.bad) {
		raw_diag(&s);
		st = -1;
	}
	rpc_buf_free(&a);
	rpc_buf_free(&s.store);
	return st;
}

/* An NFSv3 READ and GETATTR against a write delegation: JUKEBOX while it
 * is recalled, done once it is returned. */
static void test_wv3(void)
{
	struct raw_fh root3, f3;
	struct opened d;
	long st, g, m, l;
	bool got, juke;

	if (s_w.fd < 0)
		return;
	m = raw_mnt(fd_b, v4_path(base, "rw"), &root3);
	l = m == 0 ? raw_lookup(fd_b, &root3, "wv3", &f3) : -1;
	if (!ok(m == 0 && l == 0, "W5: MNT rw, LOOKUP wv3 (%ld, %ld)", m, l))
		return;
	got = w_deleg("wv3", &d);
	st = v3_look(&f3, true);
	juke = st == NFS3ERR_JUKEBOX;
	ok(got && juke, "W5: SW holds a write delegation on wv3; an NFSv3 READ of it: JUKEBOX "
	   "(%ld)", st);
	ok(juke && w_recalled(&d), "W5: the CB_RECALL reaches SW");
	g = v3_look(&f3, false);
	ok(juke && g == NFS3ERR_JUKEBOX, "W5: an NFSv3 GETATTR while it is recalled: JUKEBOX (%ld)",
	   g);
	st = w_delegreturn(&d);
	l = juke ? v3_look(&f3, true) : -1;
	g = juke ? v3_look(&f3, false) : -1;
	ok(juke && st == NFS4_OK && l == 0 && g == 0,
	   "W5: after SW's DELEGRETURN (%ld), READ and GETATTR: NFS3_OK (%ld, %ld)", st, l, g);
}

/* A write delegation recalled and not returned: revoked about a lease
 * later; SW's WRITE with it then DELEG_REVOKED. */
static void test_wrevoke(void)
{
	struct nfs_argop4 op;
	struct opened d;
	struct v4_res s;
	long long t0, ms = -1, last = 0;
	long st = -1, fl = -1;
	bool got;

	if (s_w.fd < 0)
		return;
	got = w_deleg("gw", &d);
	st = b_conflict(C_READ, "gw", &d.fh);
	got = got && st == NFS4ERR_DELAY && w_recalled(&d);
	ok(got, "W6: SW holds a write delegation on gw; B's READ: DELAY (%ld), the recall "
	   "reaches SW, answered OK, not returned", st);
	if (!got)
		return;
	t0 = rpc_now_ms();
	while (rpc_now_ms() - t0 < LEASE_MS + 7000) {
		if (rpc_now_ms() - last >= 2000) {
			sc = &s_w;
			fl = s_seq_flags();
			sc = &s_main;
			while (w_any_call(0))
				;
			last = rpc_now_ms();
		}
		st = b_conflict(C_READ, "gw", &d.fh);
		if (st != NFS4ERR_DELAY)
			break;
		usleep(500000);
	}
	ms = rpc_now_ms() - t0;
	ok(st == NFS4_OK && ms >= LEASE_MS - 2000 && ms <= LEASE_MS + 5000,
	   "W6: B's READ keeps getting DELAY (SW renewing), then OK about a lease after the "
	   "recall (%lld ms, %ld)", ms, st);
	sc = &s_w;
	fl = s_seq_flags();
	v4_res_init(&s);
	v4op_write(&op, &d.dsid, 0, FILE_SYNC4, "x", 1);
	st = s_on_fh(&d.fh, &op, &s);
	v4_res_free(&s);
	sc = &s_main;
	ok(fl >= 0 && (fl & SEQ4_STATUS_RECALLABLE_STATE_REVOKED) && st == NFS4ERR_DELEG_REVOKED,
	   "W6: SW's SEQUENCE: RECALLABLE_STATE_REVOKED (%#lx); its WRITE with the revoked "
	   "delegation: DELEG_REVOKED (%ld)", fl, st);
}

int main(int argc, char **argv)
{
	char ua[64];
	uint16_t p;
	long st;

	if (argc != 5) {
		fprintf(stderr, "usage: %s PORT BASE LOGFILE PORT_OFF\n", argv[0]);
		return 2;
	}
	port = (uint16_t)atoi(argv[1]);
	base = argv[2];
	logfile = argv[3];
	fd_a = rpc_connect(port, 5000);
	fd_b = rpc_connect(port, 5000);
	if (fd_a < 0 || fd_b < 0 || v4_walk(fd_a, v4_path(base, "rw"), &fh_rw) != NFS4_OK) {
		printf("Bail out! cannot connect to nfsxd or no handle of %s/rw\n", base);
		return 1;
	}
	lfd_a = rpc_listen_lo(&p);
	rpc_uaddr_lo(ua, sizeof(ua), p);
	st = client40(fd_a, "deleg-client-a", ua, &cid_a);
	own_a.cid = cid_a;
	ok(st == NFS4_OK && a_probe(5000) && log_says(cid_a, "up", 5000),
	   "client A: SETCLIENTID with its callback at %s, CONFIRM, CB_NULL answered: "
	   "path up (%ld)", ua, st);
	st = v4_client(fd_b, 0, "deleg-client-b", true, &cid_b);
	own_b.cid = cid_b;
	ok(st == NFS4_OK, "client B: SETCLIENTID, CONFIRM (%ld)", st);

	test_basic();
	test_own();
	test_conflicts();
	test_none();
	test_claim_cur();
	test_renew_down();
	test_v3();
	test_revoke40();
	test_41();
	test_off((uint16_t)atoi(argv[4]));
	test_revoke41();
	test_41_write();
	test_41_down();
	test_write();
	test_wconflicts();
	test_wv3();
	test_wrevoke();
	close(fd_a);
	close(fd_b);
	if (s_main.fd >= 0)
		close(s_main.fd);
	if (s_down.fd >= 0)
		close(s_down.fd);
	if (s_w.fd >= 0)
		close(s_w.fd);
	if (s_off.fd >= 0)
		close(s_off.fd);
	close(lfd_a);
	return tap_done();
}
