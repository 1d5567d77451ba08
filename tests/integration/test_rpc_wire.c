// SPDX-License-Identifier: MIT
/*
 * TAP integration test of nfsxd's ONC RPC wire layer: record marking
 * (fragments, empty fragments, oversize markers), call header validation
 * (rpcvers, credentials, verifiers), dispatch outcomes (PROG_UNAVAIL,
 * PROG_MISMATCH, PROC_UNAVAIL, GARBAGE_ARGS), silently dropped records,
 * pipelining, byte-by-byte delivery, a client that never reads its
 * replies, and 500 simultaneous connections. After every bad input a
 * fresh connection must still get a good NULL reply.
 *
 * Usage: test_rpc_wire PORT [PID]. The server must run with --no-rpcbind
 * (program 100000 must then be unknown on the main port) and the default
 * --max-record / --max-inflight / --max-unsent. PID enables the memory
 * checks (VmRSS from /proc/PID/status).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rpc_client.h"
#include "tap.h"

#define TMO		2000		/* ms to wait for an expected reply */
#define QUIET_MS	300		/* ms of silence that means "no reply" */
#define MAX_RECORD	1052672u	/* nfsxd default --max-record */
#define NULL_REPLY_LEN	24u		/* xid,REPLY,ACCEPTED,verf(0,0),SUCCESS */

static uint16_t port;
static int server_pid;

static int conn(void)
{
	int fd = rpc_connect(port, 5000);

	if (fd < 0)
		printf("# connect to 127.0.0.1:%u failed: %s\n", port,
		       strerror(errno));
	return fd;
}

/* Print the parsed reply after a failed assertion. */
static void diag_reply(const struct rpc_reply *r)
{
	char s[256];

	printf("#   reply: %s\n", rpc_reply_str(r, s, sizeof(s)));
}

static void encode(struct rpc_buf *b, const struct rpc_call *c)
{
	rpc_buf_reset(b);
	rpc_call_encode(b, c);
}

/*
 * Wait for one reply on fd and parse it. Returns true if a parsable reply
 * arrived; says why not in a diagnostic.
 */
static bool get_reply(int fd, struct rpc_reply *r, int tmo)
{
	static struct rpc_buf in;
	int rc = rpc_recv_record(fd, &in, tmo, 1u << 20);

	memset(r, 0, sizeof(*r));
	if (rc != 1) {
		printf("#   no reply: %s\n", rc == 0 ? "timeout" :
		       rc == -1 ? "connection closed" : "reply too large");
		return false;
	}
	if (!rpc_parse_reply(in.data, in.len, r)) {
		printf("#   unparsable reply of %zu bytes\n", in.len);
		diag_reply(r);
		return false;
	}
	return true;
}

static bool is_null_success(const struct rpc_reply *r, uint32_t xid)
{
	return r->xid == xid && r->reply_stat == RPC_MSG_ACCEPTED &&
	       r->verf_flavor == AUTH_NONE && r->verf_len == 0 &&
	       r->accept_stat == RPC_SUCCESS && r->body_len == 0 &&
	       r->total_len == NULL_REPLY_LEN;
}

/* Good NULL call on an existing connection; true on exact SUCCESS. */
static bool null_ok_on(int fd, uint32_t prog)
{
	struct rpc_call c;
	struct rpc_buf b;
	struct rpc_reply r = { 0 };
	bool good;

	rpc_buf_init(&b);
	rpc_call_init(&c, rpc_next_xid(), prog, 3, 0);
	encode(&b, &c);
	good = rpc_send_record(fd, b.data, b.len) == 0 &&
	       get_reply(fd, &r, TMO) && is_null_success(&r, c.xid);
	if (!good && r.msg_type)
		diag_reply(&r);
	rpc_buf_free(&b);
	return good;
}

/* The server still serves: a fresh connection gets a good NULL reply. */
static void server_alive(const char *after)
{
	int fd = conn();

	ok(fd >= 0 && null_ok_on(fd, PROG_NFS),
	   "server still answers NULL on a fresh connection after %s", after);
	if (fd >= 0)
		close(fd);
}

/* ---- expected-outcome helpers ------------------------------------------- */

/* Send msg as one record; expect the reply to pass check(); then reuse. */
static void expect_reply_raw(const char *what, const uint8_t *msg, size_t len,
			     uint32_t xid, bool (*check)(const struct rpc_reply *,
							 const void *),
			     const void *arg)
{
	struct rpc_reply r = { 0 };
	int fd = conn();
	bool got;

	if (fd < 0) {
		ok(0, "%s: connect", what);
		return;
	}
	got = rpc_send_record(fd, msg, len) == 0 && get_reply(fd, &r, TMO);
	if (!ok(got && r.xid == xid && check(&r, arg), "%s", what) && got)
		diag_reply(&r);
	ok(null_ok_on(fd, PROG_NFS), "%s: same connection still usable", what);
	close(fd);
	server_alive(what);
}

struct accept_exp {
	uint32_t stat;
	uint32_t lo, hi;
};

static bool check_accepted(const struct rpc_reply *r, const void *arg)
{
	const struct accept_exp *e = arg;

	if (r->reply_stat != RPC_MSG_ACCEPTED || r->verf_flavor != AUTH_NONE ||
	    r->verf_len != 0 || r->accept_stat != e->stat)
		return false;
	switch (e->stat) {
	case RPC_SUCCESS:
		return r->body_len == 0 && r->total_len == 24;
	case RPC_PROG_MISMATCH:
		return r->mismatch_low == e->lo && r->mismatch_high == e->hi &&
		       r->total_len == 32;
	default:
		return r->total_len == 24;
	}
}

static bool check_auth_err(const struct rpc_reply *r, const void *arg)
{
	uint32_t want = *(const uint32_t *)arg;

	return r->reply_stat == RPC_MSG_DENIED &&
	       r->reject_stat == RPC_AUTH_ERROR && r->auth_stat == want &&
	       r->total_len == 20;
}

static bool check_rpc_mismatch(const struct rpc_reply *r, const void *arg)
{
	(void)arg;
	return r->reply_stat == RPC_MSG_DENIED &&
	       r->reject_stat == RPC_MISMATCH && r->mismatch_low == 2 &&
	       r->mismatch_high == 2 && r->total_len == 24;
}

static void expect_call(const char *what, const struct rpc_call *c,
			uint32_t stat, uint32_t lo, uint32_t hi)
{
	struct accept_exp e = { stat, lo, hi };
	struct rpc_buf b;

	rpc_buf_init(&b);
	encode(&b, c);
	expect_reply_raw(what, b.data, b.len, c->xid, check_accepted, &e);
	rpc_buf_free(&b);
}

static void expect_auth_raw(const char *what, const uint8_t *msg, size_t len,
			    uint32_t xid, uint32_t auth_stat)
{
	expect_reply_raw(what, msg, len, xid, check_auth_err, &auth_stat);
}

static void expect_auth(const char *what, const struct rpc_call *c,
			uint32_t auth_stat)
{
	struct rpc_buf b;

	rpc_buf_init(&b);
	encode(&b, c);
	expect_auth_raw(what, b.data, b.len, c->xid, auth_stat);
	rpc_buf_free(&b);
}

/*
 * Send msg as one record: no reply may come, the connection must stay
 * open and answer a good call next (whose reply must be the first thing
 * to arrive, proving nothing was sent for the dropped record).
 */
static void expect_dropped(const char *what, const uint8_t *msg, size_t len)
{
	int fd = conn();

	if (fd < 0) {
		ok(0, "%s: connect", what);
		return;
	}
	ok(rpc_send_record(fd, msg, len) == 0 &&
	   rpc_nothing_arrives(fd, QUIET_MS), "%s: dropped without reply", what);
	ok(null_ok_on(fd, PROG_NFS),
	   "%s: connection still open, next call answered first", what);
	close(fd);
	server_alive(what);
}

/* ---- credentials ------------------------------------------------------- */

static char machine255[256];

static void authsys_std(struct rpc_buf *cred, const char *name, uint32_t ngids)
{
	uint32_t gids[32];

	for (uint32_t i = 0; i < 32; i++)
		gids[i] = 100 + i;
	rpc_buf_reset(cred);
	rpc_authsys_encode(cred, 0x12345678, name, 1000, 1000, gids, ngids);
}

/* ---- tests ------------------------------------------------------------- */

static void test_good_null(void)
{
	struct rpc_buf cred;
	struct rpc_call c;
	char what[128];
	static const uint32_t progs[] = { PROG_NFS, PROG_MOUNT };

	rpc_buf_init(&cred);
	memset(machine255, 'm', 255);
	for (size_t i = 0; i < 2; i++) {
		snprintf(what, sizeof(what), "NULL prog %u v3 AUTH_NONE -> SUCCESS, 24-byte reply",
			 progs[i]);
		rpc_call_init(&c, rpc_next_xid(), progs[i], 3, 0);
		expect_call(what, &c, RPC_SUCCESS, 0, 0);

		authsys_std(&cred, machine255, 16);
		rpc_call_init(&c, rpc_next_xid(), progs[i], 3, 0);
		c.cred_flavor = AUTH_SYS;
		c.cred_body = cred.data;
		c.cred_len = cred.len;
		snprintf(what, sizeof(what),
			 "NULL prog %u v3 AUTH_SYS uid 1000, 16 gids, 255-char machinename -> SUCCESS",
			 progs[i]);
		expect_call(what, &c, RPC_SUCCESS, 0, 0);

		authsys_std(&cred, "", 0);
		rpc_call_init(&c, rpc_next_xid(), progs[i], 3, 0);
		c.cred_flavor = AUTH_SYS;
		c.cred_body = cred.data;
		c.cred_len = cred.len;
		snprintf(what, sizeof(what),
			 "NULL prog %u v3 AUTH_SYS empty machinename, 0 gids -> SUCCESS",
			 progs[i]);
		expect_call(what, &c, RPC_SUCCESS, 0, 0);
	}
	/* A machinename whose length needs XDR padding. */
	authsys_std(&cred, "host5", 3);
	rpc_call_init(&c, rpc_next_xid(), PROG_NFS, 3, 0);
	c.cred_flavor = AUTH_SYS;
	c.cred_body = cred.data;
	c.cred_len = cred.len;
	expect_call("NULL AUTH_SYS padded 5-char machinename -> SUCCESS", &c,
		    RPC_SUCCESS, 0, 0);
	rpc_buf_free(&cred);
}

/* Send frags[] (each a slice of msg) with pauses; expect a good reply. */
struct frag {
	size_t off, len;
	bool last;
};

static void send_fragmented(const char *what, const struct frag *f, size_t nf,
			    bool one_write)
{
	struct rpc_buf msg, wire;
	struct rpc_call c;
	struct rpc_reply r = { 0 };
	int fd = conn();
	bool sent = true;

	if (fd < 0) {
		ok(0, "%s: connect", what);
		return;
	}
	rpc_set_nodelay(fd);
	rpc_buf_init(&msg);
	rpc_buf_init(&wire);
	rpc_call_init(&c, rpc_next_xid(), PROG_NFS, 3, 0);
	encode(&msg, &c);
	for (size_t i = 0; i < nf; i++) {
		size_t len = f[i].len == (size_t)-1 ? msg.len - f[i].off :
						     f[i].len;

		if (one_write) {
			rpc_buf_put_u32(&wire, (f[i].last ? RM_LAST : 0) |
					       (uint32_t)len);
			rpc_buf_put_bytes(&wire, msg.data + f[i].off, len);
			continue;
		}
		sent &= rpc_send_fragment(fd, msg.data + f[i].off, len,
					  f[i].last) == 0;
		usleep(20000);
	}
	if (one_write)
		sent = rpc_send_raw(fd, wire.data, wire.len, 5000) == 0;
	if (!ok(sent && get_reply(fd, &r, TMO) && is_null_success(&r, c.xid),
		"%s: answered", what))
		diag_reply(&r);
	ok(null_ok_on(fd, PROG_NFS), "%s: connection still usable", what);
	close(fd);
	rpc_buf_free(&msg);
	rpc_buf_free(&wire);
}

static void test_fragments(void)
{
	/* NULL call message is 40 bytes. (size_t)-1 means "to the end". */
	static const struct frag three[] = {
		{ 0, 5, false }, { 5, 13, false }, { 18, (size_t)-1, true },
	};
	static const struct frag empty_mid[] = {
		{ 0, 12, false }, { 12, 0, false }, { 12, (size_t)-1, true },
	};
	static const struct frag empty_last[] = {
		{ 0, 20, false }, { 20, (size_t)-1, false }, { 40, 0, true },
	};
	static const struct frag mixed[] = {
		{ 0, 1, false }, { 1, 0, false }, { 1, 0, false },
		{ 1, 30, false }, { 31, (size_t)-1, false }, { 40, 0, true },
	};

	send_fragmented("3 fragments split at 5/18", three, 3, false);
	send_fragmented("3 fragments, empty non-final in the middle",
			empty_mid, 3, false);
	send_fragmented("data fragments then empty final fragment",
			empty_last, 3, false);
	send_fragmented("6 fragments with empties, one write", mixed, 6, true);
	send_fragmented("3 fragments split at 5/18, one write", three, 3, true);
	server_alive("fragmented records");
}

static void test_dropped(void)
{
	struct rpc_buf b;
	struct rpc_call c;
	char what[96];
	static const size_t cuts[] = { 0, 2, 4, 7, 8, 12, 16, 20, 22 };

	rpc_buf_init(&b);
	rpc_call_init(&c, rpc_next_xid(), PROG_NFS, 3, 0);
	encode(&b, &c);
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		snprintf(what, sizeof(what), "header truncated to %zu bytes",
			 cuts[i]);
		expect_dropped(what, b.data, cuts[i]);
	}

	rpc_call_init(&c, rpc_next_xid(), PROG_NFS, 3, 0);
	c.msg_type = RPC_REPLY;
	encode(&b, &c);
	expect_dropped("call-shaped record with msg type REPLY", b.data, b.len);

	/* A real reply: xid, REPLY, MSG_ACCEPTED, verf none, SUCCESS. */
	rpc_buf_reset(&b);
	rpc_buf_put_u32(&b, rpc_next_xid());
	rpc_buf_put_u32(&b, RPC_REPLY);
	rpc_buf_put_u32(&b, RPC_MSG_ACCEPTED);
	rpc_buf_put_u32(&b, AUTH_NONE);
	rpc_buf_put_u32(&b, 0);
	rpc_buf_put_u32(&b, RPC_SUCCESS);
	expect_dropped("well-formed REPLY message sent to server", b.data,
		       b.len);

	rpc_call_init(&c, rpc_next_xid(), PROG_NFS, 3, 0);
	c.msg_type = 2;
	encode(&b, &c);
	expect_dropped("msg type 2", b.data, b.len);
	rpc_call_init(&c, rpc_next_xid(), PROG_NFS, 3, 0);
	c.msg_type = 0xffffffffu;
	encode(&b, &c);
	expect_dropped("msg type 0xffffffff", b.data, b.len);
	rpc_buf_free(&b);
}

static void test_rpcvers(void)
{
	static const uint32_t bad[] = { 3, 1, 0, 0xffffffffu };
	struct rpc_buf b;
	struct rpc_call c;
	char what[96];

	rpc_buf_init(&b);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		rpc_call_init(&c, rpc_next_xid(), PROG_NFS, 3, 0);
		c.rpcvers = bad[i];
		encode(&b, &c);
		snprintf(what, sizeof(what),
			 "rpcvers %u -> MSG_DENIED RPC_MISMATCH 2..2", bad[i]);
		expect_reply_raw(what, b.data, b.len, c.xid,
				 check_rpc_mismatch, NULL);
	}
	rpc_buf_free(&b);
}

static void test_bad_cred(void)
{
	struct rpc_buf b, cred;
	struct rpc_call c;
	uint8_t junk[404];
	char name256[257];

	rpc_buf_init(&b);
	rpc_buf_init(&cred);
	memset(junk, 0xa5, sizeof(junk));
	memset(name256, 'n', 256);
	name256[256] = 0;

	/* Records that end inside the credential. */
	rpc_call_init(&c, rpc_next_xid(), PROG_NFS, 3, 0);
	encode(&b, &c);
	expect_auth_raw("record ends before cred flavor (24 bytes) -> AUTH_BADCRED",
			b.data, 24, c.xid, RPC_AUTH_BADCRED);
	expect_auth_raw("record ends after cred flavor (28 bytes) -> AUTH_BADCRED",
			b.data, 28, c.xid, RPC_AUTH_BADCRED);
	expect_auth_raw("record ends inside cred length word (30 bytes) -> AUTH_BADCRED",
			b.data, 30, c.xid, RPC_AUTH_BADCRED);

	authsys_std(&cred, "client", 4);
	rpc_call_init(&c, rpc_next_xid(), PROG_NFS, 3, 0);
	c.cred_flavor = AUTH_SYS;
	c.cred_body = cred.data;
	c.cred_len = cred.len;
	encode(&b, &c);
	expect_auth_raw("record ends inside AUTH_SYS cred body -> AUTH_BADCRED",
			b.data, 24 + 8 + 12, c.xid, RPC_AUTH_BADCRED);

	rpc_call_init(&c, rpc_next_xid(), PROG_NFS, 3, 0);
	c.cred_flavor = AUTH_SYS;
	c.cred_body = junk;
	c.cred_len = 8;
	c.cred_len_override = true;
	c.cred_len_word = 0xfffffff0u;
	encode(&b, &c);
	expect_auth_raw("cred length 0xfffffff0 with 8 bytes present -> AUTH_BADCRED",
			b.data, b.len, c.xid, RPC_AUTH_BADCRED);

	rpc_call_init(&c, rpc_next_xid(), PROG_NFS, 3, 0);
	c.cred_flavor = AUTH_SYS;
	c.cred_body = junk;
	c.cred_len = 401;
	expect_auth("AUTH_SYS cred body length 401 (all present) -> AUTH_BADCRED",
		    &c, RPC_AUTH_BADCRED);

	rpc_call_init(&c, rpc_next_xid(), PROG_NFS, 3, 0);
	c.cred_flavor = AUTH_NONE;
	c.cred_body = junk;
	c.cred_len = 401;
	expect_auth("AUTH_NONE cred body length 401 -> AUTH_BADCRED", &c,
		    RPC_AUTH_BADCRED);

	authsys_std(&cred, name256, 0);
	rpc_call_init(&c, rpc_next_xid(), PROG_NFS, 3, 0);
	c.cred_flavor = AUTH_SYS;
	c.cred_body = cred.data;
	c.cred_len = cred.len;
	expect_auth("AUTH_SYS machinename 256 chars -> AUTH_BADCRED", &c,
		    RPC_AUTH_BADCRED);

	authsys_std(&cred, "client", 17);
	rpc_call_init(&c, rpc_next_xid(), PROG_NFS, 3, 0);
	c.cred_flavor = AUTH_SYS;
	c.cred_body = cred.data;
	c.cred_len = cred.len;
	expect_auth("AUTH_SYS 17 gids -> AUTH_BADCRED", &c, RPC_AUTH_BADCRED);

	/* Body length one byte longer than the parms: one stray byte. */
	authsys_std(&cred, "client", 2);
	rpc_buf_put_bytes(&cred, "\0", 1);
	rpc_call_init(&c, rpc_next_xid(), PROG_NFS, 3, 0);
	c.cred_flavor = AUTH_SYS;
	c.cred_body = cred.data;
	c.cred_len = cred.len;
	expect_auth("AUTH_SYS body with 1 trailing byte -> AUTH_BADCRED", &c,
		    RPC_AUTH_BADCRED);

	authsys_std(&cred, "client", 2);
	rpc_buf_put_u32(&cred, 0);
	rpc_call_init(&c, rpc_next_xid(), PROG_NFS, 3, 0);
	c.cred_flavor = AUTH_SYS;
	c.cred_body = cred.data;
	c.cred_len = cred.len;
	expect_auth("AUTH_SYS body with 4 trailing bytes -> AUTH_BADCRED", &c,
		    RPC_AUTH_BADCRED);

	/* gids count 3 but the body holds only 2. */
	authsys_std(&cred, "client", 3);
	cred.len -= 4;
	rpc_call_init(&c, rpc_next_xid(), PROG_NFS, 3, 0);
	c.cred_flavor = AUTH_SYS;
	c.cred_body = cred.data;
	c.cred_len = cred.len;
	expect_auth("AUTH_SYS body shorter than its gids count -> AUTH_BADCRED",
		    &c, RPC_AUTH_BADCRED);

	/* machinename length runs past the body. */
	rpc_buf_reset(&cred);
	rpc_buf_put_u32(&cred, 1);
	rpc_buf_put_u32(&cred, 200);
	rpc_buf_put_bytes(&cred, junk, 8);
	rpc_call_init(&c, rpc_next_xid(), PROG_NFS, 3, 0);
	c.cred_flavor = AUTH_SYS;
	c.cred_body = cred.data;
	c.cred_len = cred.len;
	expect_auth("AUTH_SYS machinename longer than body -> AUTH_BADCRED",
		    &c, RPC_AUTH_BADCRED);

	rpc_call_init(&c, rpc_next_xid(), PROG_NFS, 3, 0);
	c.cred_flavor = 7;
	expect_auth("unknown cred flavor 7 -> AUTH_BADCRED", &c,
		    RPC_AUTH_BADCRED);

	rpc_call_init(&c, rpc_next_xid(), PROG_NFS, 3, 0);
	c.cred_flavor = RPCSEC_GSS;
	c.cred_body = junk;
	c.cred_len = 24;
	expect_auth("RPCSEC_GSS cred (unsupported) -> AUTH_BADCRED", &c,
		    RPC_AUTH_BADCRED);

	rpc_buf_free(&b);
	rpc_buf_free(&cred);
}

/*
 * AUTH_BADVERF is 3 in RFC 5531 (auth_stat: BADCRED 1, REJECTEDCRED 2,
 * BADVERF 3). The brief printed "AUTH_BADVERF(2)"; the protocol value is 3.
 */
static void test_bad_verf(void)
{
	struct rpc_buf b, cred;
	struct rpc_call c;
	uint8_t junk[404];
	size_t hdr;

	rpc_buf_init(&b);
	rpc_buf_init(&cred);
	memset(junk, 0x5a, sizeof(junk));

	rpc_call_init(&c, rpc_next_xid(), PROG_NFS, 3, 0);
	c.verf_flavor = AUTH_SYS;
	expect_auth("verifier flavor AUTH_SYS -> AUTH_BADVERF(3)", &c,
		    RPC_AUTH_BADVERF);

	authsys_std(&cred, "client", 1);
	rpc_call_init(&c, rpc_next_xid(), PROG_NFS, 3, 0);
	c.cred_flavor = AUTH_SYS;
	c.cred_body = cred.data;
	c.cred_len = cred.len;
	c.verf_flavor = 7;
	expect_auth("AUTH_SYS cred, verifier flavor 7 -> AUTH_BADVERF(3)", &c,
		    RPC_AUTH_BADVERF);

	rpc_call_init(&c, rpc_next_xid(), PROG_NFS, 3, 0);
	c.verf_body = junk;
	c.verf_len = 4;
	expect_auth("AUTH_NONE verifier with 4-byte body -> AUTH_BADVERF(3)",
		    &c, RPC_AUTH_BADVERF);

	rpc_call_init(&c, rpc_next_xid(), PROG_NFS, 3, 0);
	c.verf_body = junk;
	c.verf_len = 401;
	expect_auth("verifier length 401 -> AUTH_BADVERF(3)", &c,
		    RPC_AUTH_BADVERF);

	rpc_call_init(&c, rpc_next_xid(), PROG_NFS, 3, 0);
	c.verf_body = junk;
	c.verf_len = 4;
	c.verf_len_override = true;
	c.verf_len_word = 64;
	encode(&b, &c);
	expect_auth_raw("verifier length 64 with 4 bytes present -> AUTH_BADVERF(3)",
			b.data, b.len, c.xid, RPC_AUTH_BADVERF);

	rpc_call_init(&c, rpc_next_xid(), PROG_NFS, 3, 0);
	encode(&b, &c);
	hdr = 24 + 8;		/* header + empty AUTH_NONE cred */
	expect_auth_raw("record ends right after cred (no verifier) -> AUTH_BADVERF(3)",
			b.data, hdr, c.xid, RPC_AUTH_BADVERF);
	expect_auth_raw("record ends after verifier flavor -> AUTH_BADVERF(3)",
			b.data, hdr + 4, c.xid, RPC_AUTH_BADVERF);

	rpc_buf_free(&b);
	rpc_buf_free(&cred);
}

static void test_dispatch(void)
{
	struct rpc_call c;
	uint8_t junk[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	char what[128];
	static const uint32_t nfs_bad_vers[] = { 2, 5, 0, 1000 };
	static const uint32_t mnt_bad_vers[] = { 1, 2, 4 };
	static const uint32_t progs[] = { PROG_NFS, PROG_MOUNT };

	rpc_call_init(&c, rpc_next_xid(), 200000, 1, 0);
	expect_call("unknown program 200000 -> PROG_UNAVAIL", &c,
		    RPC_PROG_UNAVAIL, 0, 0);
	rpc_call_init(&c, rpc_next_xid(), 0x40000000, 3, 0);
	expect_call("unknown program 0x40000000 -> PROG_UNAVAIL", &c,
		    RPC_PROG_UNAVAIL, 0, 0);
	rpc_call_init(&c, rpc_next_xid(), PROG_PMAP, 2, 0);
	expect_call("program 100000 on main port with --no-rpcbind -> PROG_UNAVAIL",
		    &c, RPC_PROG_UNAVAIL, 0, 0);

	for (size_t i = 0; i < sizeof(nfs_bad_vers) / sizeof(nfs_bad_vers[0]); i++) {
		rpc_call_init(&c, rpc_next_xid(), PROG_NFS, nfs_bad_vers[i], 0);
		snprintf(what, sizeof(what),
			 "NFS version %u -> PROG_MISMATCH 3..4 (NFSv4 served by default)",
			 nfs_bad_vers[i]);
		expect_call(what, &c, RPC_PROG_MISMATCH, 3, 4);
	}
	for (size_t i = 0; i < sizeof(mnt_bad_vers) / sizeof(mnt_bad_vers[0]); i++) {
		rpc_call_init(&c, rpc_next_xid(), PROG_MOUNT, mnt_bad_vers[i], 0);
		snprintf(what, sizeof(what),
			 "MOUNT version %u -> PROG_MISMATCH 3..3", mnt_bad_vers[i]);
		expect_call(what, &c, RPC_PROG_MISMATCH, 3, 3);
	}

	rpc_call_init(&c, rpc_next_xid(), PROG_NFS, 3, 22);
	expect_call("NFS v3 proc 22 -> PROC_UNAVAIL", &c, RPC_PROC_UNAVAIL, 0, 0);
	rpc_call_init(&c, rpc_next_xid(), PROG_NFS, 3, 0xffffffffu);
	expect_call("NFS v3 proc 0xffffffff -> PROC_UNAVAIL", &c,
		    RPC_PROC_UNAVAIL, 0, 0);
	rpc_call_init(&c, rpc_next_xid(), PROG_MOUNT, 3, 99);
	expect_call("MOUNT v3 proc 99 -> PROC_UNAVAIL", &c, RPC_PROC_UNAVAIL,
		    0, 0);

	for (size_t i = 0; i < 2; i++) {
		rpc_call_init(&c, rpc_next_xid(), progs[i], 3, 0);
		c.args = junk;
		c.args_len = 4;
		snprintf(what, sizeof(what),
			 "prog %u NULL with 4 argument bytes -> GARBAGE_ARGS",
			 progs[i]);
		expect_call(what, &c, RPC_GARBAGE_ARGS, 0, 0);
		rpc_call_init(&c, rpc_next_xid(), progs[i], 3, 0);
		c.args = junk;
		c.args_len = 1;
		snprintf(what, sizeof(what),
			 "prog %u NULL with 1 argument byte -> GARBAGE_ARGS",
			 progs[i]);
		expect_call(what, &c, RPC_GARBAGE_ARGS, 0, 0);
	}
}

/* Exactly --max-record bytes is legal: NULL + padding -> GARBAGE_ARGS. */
static void test_max_record_boundary(void)
{
	struct rpc_buf b;
	struct rpc_call c;
	struct rpc_reply r = { 0 };
	struct accept_exp e = { RPC_GARBAGE_ARGS, 0, 0 };
	int fd = conn();
	bool sent;

	if (fd < 0) {
		ok(0, "max-record boundary: connect");
		return;
	}
	rpc_buf_init(&b);
	rpc_call_init(&c, rpc_next_xid(), PROG_NFS, 3, 0);
	encode(&b, &c);
	while (b.len < MAX_RECORD)
		rpc_buf_put_u32(&b, 0);
	/* Two fragments: 1000 bytes, then the rest. */
	sent = rpc_send_fragment(fd, b.data, 1000, false) == 0 &&
	       rpc_send_fragment(fd, b.data + 1000, b.len - 1000, true) == 0;
	if (!ok(sent && get_reply(fd, &r, 5000) && r.xid == c.xid &&
		check_accepted(&r, &e),
		"record of exactly %u bytes (NULL + padding) -> GARBAGE_ARGS",
		MAX_RECORD))
		diag_reply(&r);
	close(fd);
	rpc_buf_free(&b);
	server_alive("record of exactly max-record bytes");
}

static long rss_kib(void)
{
	return server_pid > 0 ? rpc_proc_rss_kib(server_pid) : -1;
}

/* Send raw bytes; the server must close the connection within 2 s. */
static void expect_closed_raw(const char *what, const uint8_t *p, size_t n)
{
	int fd = conn();

	if (fd < 0) {
		ok(0, "%s: connect", what);
		return;
	}
	/* A send error (EPIPE/ECONNRESET) already means it was closed. */
	(void)rpc_send_raw(fd, p, n, 5000);
	ok(rpc_peer_closed(fd, 2000), "%s: connection closed", what);
	close(fd);
	server_alive(what);
}

static void test_oversize(void)
{
	static const uint32_t markers[] = {
		0x7fffffffu, 0xffffffffu, RM_LAST | (MAX_RECORD + 1), MAX_RECORD + 1,
	};
	uint8_t pkt[4 + 64];
	long rss0 = rss_kib(), rss1;
	struct rpc_buf b, msg;
	struct rpc_call c;
	char what[96];
	int fd;

	memset(pkt, 0, sizeof(pkt));
	for (size_t i = 0; i < sizeof(markers) / sizeof(markers[0]); i++) {
		pkt[0] = markers[i] >> 24;
		pkt[1] = markers[i] >> 16;
		pkt[2] = markers[i] >> 8;
		pkt[3] = markers[i];
		snprintf(what, sizeof(what), "record marker %#x", markers[i]);
		expect_closed_raw(what, pkt, sizeof(pkt));
		rss1 = rss_kib();
		if (rss0 > 0 && rss1 > 0)
			ok(rss1 - rss0 < 16 * 1024,
			   "record marker %#x: RSS grew %ld KiB (< 16 MiB)",
			   markers[i], rss1 - rss0);
		else
			ok(1, "record marker %#x: RSS # SKIP no server pid",
			   markers[i]);
	}

	/* Fragments each below the limit, total above it. */
	rpc_buf_init(&b);
	rpc_buf_init(&msg);
	rpc_call_init(&c, rpc_next_xid(), PROG_NFS, 3, 0);
	encode(&msg, &c);
	while (msg.len < 400000)
		rpc_buf_put_u32(&msg, 0);
	for (int i = 0; i < 3; i++) {
		rpc_buf_put_u32(&b, (uint32_t)msg.len);
		rpc_buf_put_bytes(&b, msg.data, msg.len);
	}
	rpc_buf_put_u32(&b, RM_LAST | 4);
	rpc_buf_put_u32(&b, 0);
	expect_closed_raw("3 fragments of 400000 bytes (total > max-record)",
			  b.data, b.len);

	/* Non-final fragment of exactly the limit, then one more byte. */
	rpc_buf_reset(&b);
	rpc_buf_put_u32(&b, MAX_RECORD);
	rpc_buf_put_bytes(&b, msg.data, msg.len);
	while (b.len < 4 + MAX_RECORD)
		rpc_buf_put_u32(&b, 0);
	b.len = 4 + MAX_RECORD;
	rpc_buf_put_u32(&b, RM_LAST | 1);
	rpc_buf_put_bytes(&b, "x", 1);
	expect_closed_raw("fragment of max-record bytes plus 1-byte fragment",
			  b.data, b.len);

	/* Header of a huge fragment sent in pieces, then silence. */
	fd = conn();
	if (fd >= 0) {
		rpc_set_nodelay(fd);
		rpc_send_raw(fd, "\x7f\xff", 2, 1000);
		usleep(50000);
		rpc_send_raw(fd, "\xff\xff", 2, 1000);
		ok(rpc_peer_closed(fd, 2000),
		   "huge marker split over two writes: connection closed");
		close(fd);
	}
	rss1 = rss_kib();
	if (rss0 > 0 && rss1 > 0)
		ok(rss1 - rss0 < 16 * 1024,
		   "after all oversize records RSS grew %ld KiB (< 16 MiB)",
		   rss1 - rss0);
	else
		ok(1, "oversize RSS # SKIP no server pid");
	rpc_buf_free(&b);
	rpc_buf_free(&msg);
	server_alive("oversize records");
}

static void test_dribble(void)
{
	struct rpc_buf b, cred;
	struct rpc_call c;
	struct rpc_reply r = { 0 };
	int fd = conn();
	bool sent = true;
	uint8_t m[4];

	if (fd < 0) {
		ok(0, "dribble: connect");
		return;
	}
	rpc_set_nodelay(fd);
	rpc_buf_init(&b);
	rpc_buf_init(&cred);
	authsys_std(&cred, "dribbler", 5);
	rpc_call_init(&c, rpc_next_xid(), PROG_MOUNT, 3, 0);
	c.cred_flavor = AUTH_SYS;
	c.cred_body = cred.data;
	c.cred_len = cred.len;
	encode(&b, &c);
	m[0] = 0x80 | (uint8_t)(b.len >> 24);
	m[1] = (uint8_t)(b.len >> 16);
	m[2] = (uint8_t)(b.len >> 8);
	m[3] = (uint8_t)b.len;
	for (size_t i = 0; i < 4 + b.len && sent; i++) {
		sent = rpc_send_raw(fd, i < 4 ? &m[i] : &b.data[i - 4], 1,
				    1000) == 0;
		usleep(2000);
	}
	if (!ok(sent && get_reply(fd, &r, TMO) && is_null_success(&r, c.xid),
		"call sent one byte at a time (%zu bytes) answered", 4 + b.len))
		diag_reply(&r);
	close(fd);
	rpc_buf_free(&b);
	rpc_buf_free(&cred);
	server_alive("dribbled call");
}

#define NPIPE 64

static void test_pipeline(void)
{
	struct rpc_buf wire, msg, cred;
	struct rpc_call c;
	struct rpc_reply r = { 0 };
	uint32_t xids[NPIPE], want[NPIPE];
	bool seen[NPIPE] = { false };
	int fd = conn(), good = 0, dup = 0, wrong = 0, got = 0;
	uint8_t junk[4] = { 0 };

	if (fd < 0) {
		ok(0, "pipeline: connect");
		return;
	}
	rpc_buf_init(&wire);
	rpc_buf_init(&msg);
	rpc_buf_init(&cred);
	authsys_std(&cred, "pipeliner", 16);
	for (int i = 0; i < NPIPE; i++) {
		rpc_call_init(&c, rpc_next_xid(), i & 1 ? PROG_MOUNT : PROG_NFS,
			      3, 0);
		want[i] = RPC_SUCCESS;
		if (i % 3 == 0) {
			c.cred_flavor = AUTH_SYS;
			c.cred_body = cred.data;
			c.cred_len = cred.len;
		}
		/* A few error outcomes mixed in, matched by xid too. */
		if (i % 16 == 5) {
			c.proc = 77;
			want[i] = RPC_PROC_UNAVAIL;
		} else if (i % 16 == 11) {
			c.args = junk;
			c.args_len = 4;
			want[i] = RPC_GARBAGE_ARGS;
		}
		xids[i] = c.xid;
		encode(&msg, &c);
		rpc_buf_put_record(&wire, msg.data, msg.len);
	}
	ok(rpc_send_raw(fd, wire.data, wire.len, 5000) == 0,
	   "64 pipelined calls written in one write (%zu bytes)", wire.len);
	while (got < NPIPE && get_reply(fd, &r, 5000)) {
		int k = -1;

		got++;
		for (int i = 0; i < NPIPE; i++)
			if (xids[i] == r.xid)
				k = i;
		if (k < 0) {
			wrong++;
			diag_reply(&r);
		} else if (seen[k]) {
			dup++;
		} else {
			seen[k] = true;
			if (r.reply_stat == RPC_MSG_ACCEPTED &&
			    r.accept_stat == want[k] && r.total_len == 24)
				good++;
			else
				diag_reply(&r);
		}
	}
	ok(got == NPIPE && good == NPIPE && !dup && !wrong,
	   "64 pipelined calls: %d replies, %d correct, %d duplicate, %d unknown xid",
	   got, good, dup, wrong);
	ok(rpc_nothing_arrives(fd, QUIET_MS), "no extra replies after the 64");
	close(fd);
	rpc_buf_free(&wire);
	rpc_buf_free(&msg);
	rpc_buf_free(&cred);
	server_alive("64 pipelined calls");
}

/* A NULL call on a fresh connection answered within limit_ms. */
static bool probe_fast(long long limit_ms, long long *took)
{
	long long t0 = rpc_now_ms();
	int fd = conn();
	bool good;

	if (fd < 0)
		return false;
	good = null_ok_on(fd, PROG_NFS);
	*took = rpc_now_ms() - t0;
	close(fd);
	return good && *took <= limit_ms;
}

/*
 * A client writes NULL calls as fast as it can and never reads. The server
 * must stop reading it (bounded memory) while still serving others.
 */
static void test_hog(void)
{
	struct rpc_buf batch, msg;
	struct rpc_call c;
	long rss0 = rss_kib(), rss, rss_max = rss0;
	long long t_end, last_progress, took = 0, worst = 0;
	size_t off = 0, total = 0;
	int fd = conn(), small = 4096, probes_ok = 0;
	bool stalled = false;

	if (fd < 0) {
		ok(0, "hog: connect");
		return;
	}
	/* Small buffers on our side so the stall shows up sooner. */
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	rpc_set_nonblock(fd, true);
	rpc_buf_init(&batch);
	rpc_buf_init(&msg);
	for (int i = 0; i < 1024; i++) {
		rpc_call_init(&c, rpc_next_xid(), PROG_NFS, 3, 0);
		encode(&msg, &c);
		rpc_buf_put_record(&batch, msg.data, msg.len);
	}
	t_end = rpc_now_ms() + 30000;
	last_progress = rpc_now_ms();
	while (rpc_now_ms() < t_end && total < (512u << 20)) {
		ssize_t w = send(fd, batch.data + off, batch.len - off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w > 0) {
			total += (size_t)w;
			off = (off + (size_t)w) % batch.len;
			last_progress = rpc_now_ms();
			continue;
		}
		if (w < 0 && errno != EAGAIN && errno != EINTR) {
			printf("# hog send failed: %s\n", strerror(errno));
			break;
		}
		rss = rss_kib();
		if (rss > rss_max)
			rss_max = rss;
		/* "Stopped accepting": no byte taken for 3 s. */
		if (rpc_now_ms() - last_progress > 3000) {
			stalled = true;
			break;
		}
		usleep(20000);
	}
	printf("# hog wrote %zu bytes (%zu calls) before %s\n", total,
	       total / 44, stalled ? "the server stopped reading" : "giving up");
	ok(stalled, "server stopped reading a connection that never reads replies");

	for (int i = 0; i < 5; i++) {
		bool fast = probe_fast(1000, &took);

		probes_ok += fast;
		if (took > worst)
			worst = took;
	}
	ok(probes_ok == 5,
	   "while hog is blocked, 5 NULL calls on other connections answered within 1 s (%d ok, worst %lld ms)",
	   probes_ok, worst);
	rss = rss_kib();
	if (rss > rss_max)
		rss_max = rss;
	if (rss0 > 0)
		ok(rss_max < rss0 + 64 * 1024,
		   "server RSS during hog: start %ld KiB, max %ld KiB (< start + 64 MiB)",
		   rss0, rss_max);
	else
		ok(1, "hog RSS # SKIP no server pid");
	close(fd);
	rpc_buf_free(&batch);
	rpc_buf_free(&msg);
	/* The server must drop the hog's backlog; give it a moment. */
	usleep(200000);
	server_alive("closing the hog connection");
}

/*
 * Partial writes resumed: a client writes calls with distinct xids until
 * the server stops reading it (its replies fill our receive buffer and
 * the server's sendmsg meets EAGAIN part-way through a batch), then
 * reads. Every call must be answered exactly once, each reply whole.
 * (Default socket buffers: with a receive buffer shrunk far below the
 * loopback MSS, Linux's TCP itself stalls, with any server.)
 */
#define DRAIN_CALLS 1000000

static void test_drain_after_stall(void)
{
	struct rpc_buf all, msg, rec;
	struct rpc_call c;
	uint32_t base = rpc_next_xid();
	uint8_t *seen = calloc(DRAIN_CALLS, 1);
	size_t off = 0, rec_len = 0, expect, got = 0, dups = 0, bad = 0;
	long long last_progress, t_end;
	int fd = conn(), r;
	bool stalled = false;

	if (fd < 0 || !seen) {
		ok(0, "drain: connect");
		free(seen);
		return;
	}
	rpc_buf_init(&all);
	rpc_buf_init(&msg);
	rpc_buf_init(&rec);
	for (uint32_t i = 0; i < DRAIN_CALLS; i++) {
		/* xids base, base+1, ... (not from rpc_next_xid: must be dense) */
		rpc_call_init(&c, base + i, PROG_NFS, 3, 0);
		encode(&msg, &c);
		rec_len = msg.len + 4;
		rpc_buf_put_record(&all, msg.data, msg.len);
	}
	rpc_set_nonblock(fd, true);
	last_progress = rpc_now_ms();
	while (off < all.len && rpc_now_ms() - last_progress < 1500) {
		ssize_t w = send(fd, all.data + off, all.len - off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w > 0) {
			off += (size_t)w;
			last_progress = rpc_now_ms();
		} else {
			usleep(5000);
		}
	}
	stalled = off < all.len;
	printf("# drain: wrote %zu of %zu bytes before %s\n", off, all.len,
	       stalled ? "the server stopped reading" : "the end");
	/* Finish a record cut in the middle, or the server never answers it. */
	expect = (off + rec_len - 1) / rec_len;
	rpc_set_nonblock(fd, false);
	t_end = rpc_now_ms() + 30000;
	while (got + dups + bad < expect && rpc_now_ms() < t_end) {
		struct rpc_reply rep;

		if (off < expect * rec_len) {
			ssize_t w = send(fd, all.data + off, expect * rec_len - off,
					 MSG_NOSIGNAL | MSG_DONTWAIT);

			if (w > 0)
				off += (size_t)w;
		}
		r = rpc_recv_record(fd, &rec, 2000, 1024);
		if (r == 0)
			continue;
		if (r < 0)
			break;
		if (!rpc_parse_reply(rec.data, rec.len, &rep) ||
		    rep.accept_stat != 0 || rep.xid - base >= DRAIN_CALLS) {
			bad++;
			continue;
		}
		if (seen[rep.xid - base]++)
			dups++;
		else
			got++;
	}
	ok(stalled, "drain: the server stopped reading before all %d calls were sent",
	   DRAIN_CALLS);
	ok(got == expect && dups == 0 && bad == 0,
	   "drain: %zu calls sent, %zu answered once each (%zu duplicates, %zu bad)",
	   expect, got, dups, bad);
	ok(rpc_nothing_arrives(fd, 300), "drain: no reply beyond the calls sent");
	close(fd);
	rpc_buf_free(&all);
	rpc_buf_free(&msg);
	rpc_buf_free(&rec);
	free(seen);
	server_alive("draining a stalled connection");
}

#define NCONN 500

static void test_many_connections(void)
{
	static int fds[NCONN];
	struct rlimit rl;
	struct rpc_buf msg;
	struct rpc_call c;
	struct rpc_reply r = { 0 };
	uint32_t xids[NCONN];
	int opened = 0, sent = 0, good = 0;

	getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur < NCONN + 64) {
		rl.rlim_cur = rl.rlim_max < NCONN + 64 ? rl.rlim_max : NCONN + 64;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	rpc_buf_init(&msg);
	for (int i = 0; i < NCONN; i++) {
		fds[i] = rpc_connect_once(port, 10000);
		if (fds[i] < 0) {
			printf("# connection %d: %s\n", i, strerror(errno));
			break;
		}
		opened++;
	}
	ok(opened == NCONN, "%d of %d connections open at once", opened, NCONN);
	for (int i = 0; i < opened; i++) {
		rpc_call_init(&c, rpc_next_xid(), i & 1 ? PROG_MOUNT : PROG_NFS,
			      3, 0);
		xids[i] = c.xid;
		encode(&msg, &c);
		sent += rpc_send_record(fds[i], msg.data, msg.len) == 0;
	}
	for (int i = 0; i < opened; i++)
		good += get_reply(fds[i], &r, 5000) &&
			is_null_success(&r, xids[i]);
	ok(sent == NCONN && good == NCONN,
	   "%d connections each sent a NULL call: %d sent, %d answered correctly",
	   NCONN, sent, good);
	for (int i = 0; i < opened; i++)
		close(fds[i]);
	rpc_buf_free(&msg);
	server_alive("500 simultaneous connections");
}

int main(int argc, char **argv)
{
	long p;

	if (argc < 2) {
		fprintf(stderr, "usage: %s PORT [SERVER_PID]\n", argv[0]);
		return 2;
	}
	p = strtol(argv[1], NULL, 10);
	if (p <= 0 || p > 65535) {
		fprintf(stderr, "bad port %s\n", argv[1]);
		return 2;
	}
	port = (uint16_t)p;
	if (argc > 2)
		server_pid = atoi(argv[2]);
	setvbuf(stdout, NULL, _IOLBF, 0);

	server_alive("startup");
	test_good_null();
	test_fragments();
	test_dropped();
	test_rpcvers();
	test_bad_cred();
	test_bad_verf();
	test_dispatch();
	test_max_record_boundary();
	test_oversize();
	test_dribble();
	test_pipeline();
	test_hog();
	test_drain_after_stall();
	test_many_connections();
	return tap_done();
}
