/* SPDX-License-Identifier: MIT */
/*
 * Tests of the committed codecs generated from proto/rpc.x and
 * proto/rpcbind.x, against byte arrays computed by hand from RFC 5531
 * and RFC 1833: a CALL header with an AUTH_SYS credential carrying a
 * PMAP GETPORT mapping, accepted and rejected replies, port mapper and
 * rpcbind lists. Inputs sit against a guard page; every strict prefix
 * of every good message must fail to decode.
 */
#include <stdint.h>

#include "../../tap.h"
#include "xdrtest.h"
#include "xdr/gen/rpc.h"
#include "xdr/gen/rpcbind.h"

static struct guard g;

#define BYTES(s) ((struct xdr_bytes){ (const uint8_t *)(s), sizeof(s) - 1 })
#define N(a) (sizeof(a) / sizeof((a)[0]))

DEC_FN(rpc_msg, struct rpc_msg)
DEC_FN(authsys_parms, struct authsys_parms)
DEC_FN(mapping, struct mapping)
DEC_FN(pmaplist_ptr, pmaplist_ptr)
DEC_FN(rpcb, struct rpcb)
DEC_FN(rpcblist_ptr, rpcblist_ptr)
DEC_FN(rpcb_entry_list_ptr, rpcb_entry_list_ptr)
DEC_FN(rpcb_stat_byvers, rpcb_stat_byvers)
DEC_FN(rpcb_rmtcallargs, struct rpcb_rmtcallargs)
DEC_FN(call_args, struct call_args)
DEC_FN(netbuf, struct netbuf)

typedef bool (*enc_fn)(struct xdr_enc *e, const void *v);

#define ENC_FN(name, ctype)						\
	static bool enc_##name(struct xdr_enc *e, const void *v)	\
	{								\
		return xdr_enc_##name(e, (const ctype *)v);		\
	}

ENC_FN(rpc_msg, struct rpc_msg)
ENC_FN(mapping, struct mapping)
ENC_FN(pmaplist_ptr, pmaplist_ptr)
ENC_FN(rpcb, struct rpcb)
ENC_FN(rpcblist_ptr, rpcblist_ptr)
ENC_FN(rpcb_entry_list_ptr, rpcb_entry_list_ptr)
ENC_FN(rpcb_stat_byvers, rpcb_stat_byvers)
ENC_FN(rpcb_rmtcallargs, struct rpcb_rmtcallargs)
ENC_FN(call_args, struct call_args)
ENC_FN(netbuf, struct netbuf)

/*
 * Encode @v (and compare with @want when given), check every prefix,
 * then re-encode what was decoded: it must give the same bytes.
 */
static void round_trip(const char *what, enc_fn enc, dec_fn dec,
		       const void *v, const uint8_t *want, size_t want_len)
{
	static uint8_t a[4096], b[4096];
	struct xdr_enc e;
	size_t len;

	xdr_enc_init(&e, a, sizeof(a));
	ok(enc(&e, v), "%s: encodes", what);
	len = xdr_enc_len(&e);
	if (want)
		ok(bytes_eq(a, len, want, want_len), "%s: bytes as computed by hand",
		   what);
	ok(check_prefixes(&g, a, len, dec) == 0,
	   "%s: decodes, all %zu strict prefixes fail", what, len);
	/* check_obj holds the whole decode, its views still valid */
	xdr_enc_init(&e, b, sizeof(b));
	ok(enc(&e, check_obj) && bytes_eq(b, xdr_enc_len(&e), a, len),
	   "%s: decoded value re-encodes to the same bytes", what);
}

/* ---------------------------------------------------------------- */
/* RPC call header                                                   */

static const uint8_t authsys_body[] = {
	0x01, 0x02, 0x03, 0x04,		/* stamp */
	0, 0, 0, 4, 'h', 'o', 's', 't',	/* machinename */
	0, 0, 0x03, 0xe8,		/* uid 1000 */
	0, 0, 0, 100,			/* gid 100 */
	0, 0, 0, 2, 0, 0, 0, 100, 0, 0, 0, 10,	/* gids <100, 10> */
};

static const uint8_t call_getport[] = {
	0x12, 0x34, 0x56, 0x78,		/* xid */
	0, 0, 0, 0,			/* CALL */
	0, 0, 0, 2,			/* rpcvers */
	0, 0x01, 0x86, 0xa0,		/* prog 100000 */
	0, 0, 0, 2,			/* vers 2 */
	0, 0, 0, 3,			/* PMAPPROC_GETPORT */
	0, 0, 0, 1,			/* cred: AUTH_SYS */
	0, 0, 0, 32,			/* body length */
	0x01, 0x02, 0x03, 0x04,
	0, 0, 0, 4, 'h', 'o', 's', 't',
	0, 0, 0x03, 0xe8,
	0, 0, 0, 100,
	0, 0, 0, 2, 0, 0, 0, 100, 0, 0, 0, 10,
	0, 0, 0, 0, 0, 0, 0, 0,		/* verf: AUTH_NONE, empty */
	0, 0x01, 0x86, 0xa3,		/* mapping: prog 100003 */
	0, 0, 0, 3,			/* vers 3 */
	0, 0, 0, 6,			/* PMAP_IPPROTO_TCP */
	0, 0, 0, 0,			/* port */
};
enum { CALL_HEADER_LEN = sizeof(call_getport) - 16 };

/* A whole GETPORT call: the RPC header, then the procedure's arguments. */
struct getport_call {
	struct rpc_msg msg;
	struct mapping args;
};

static bool dec_getport_call(struct xdr_dec *d, void *out)
{
	struct getport_call *c = out;

	return xdr_dec_rpc_msg(d, &c->msg) && xdr_dec_mapping(d, &c->args);
}

static void test_call(void)
{
	static uint8_t body[64], buf[256];
	uint32_t gids[2] = { 100, 10 };
	struct authsys_parms ap = {
		.stamp = 0x01020304, .machinename = BYTES("host"),
		.uid = 1000, .gid = 100, .gids = { 2, gids },
	};
	struct getport_call c = { 0 };
	struct authsys_parms got;
	struct xdr_arena a;
	struct xdr_dec d;
	struct xdr_enc e;
	const struct call_body *cb;

	/* encode from structures */
	xdr_enc_init(&e, body, sizeof(body));
	ok(xdr_enc_authsys_parms(&e, &ap) &&
	   bytes_eq(body, xdr_enc_len(&e), authsys_body, sizeof(authsys_body)),
	   "authsys_parms encodes as computed by hand");
	c.msg.xid = 0x12345678;
	c.msg.body.mtype = CALL;
	cb = &c.msg.body.u.cbody;
	c.msg.body.u.cbody = (struct call_body){
		.rpcvers = RPC_MSG_VERSION, .prog = PMAP_PROG, .vers = PMAP_VERS,
		.proc = PMAPPROC_GETPORT,
		.cred = { AUTH_SYS, { body, (uint32_t)xdr_enc_len(&e) } },
		.verf = { AUTH_NONE, { NULL, 0 } },
	};
	c.args = (struct mapping){ 100003, 3, PMAP_IPPROTO_TCP, 0 };
	xdr_enc_init(&e, buf, sizeof(buf));
	ok(xdr_enc_rpc_msg(&e, &c.msg) && xdr_enc_len(&e) == CALL_HEADER_LEN &&
	   xdr_enc_mapping(&e, &c.args) &&
	   bytes_eq(buf, xdr_enc_len(&e), call_getport, sizeof(call_getport)),
	   "CALL header + GETPORT mapping encode as computed by hand");

	/* decode and look at every field */
	memset(&c, 0x5a, sizeof(c));
	xdr_arena_init(&a, check_arena_mem, sizeof(check_arena_mem));
	xdr_dec_init(&d, guard_put(&g, call_getport, sizeof(call_getport)),
		     sizeof(call_getport), &a);
	ok(dec_getport_call(&d, &c) && !xdr_dec_left(&d), "GETPORT call decodes");
	ok(c.msg.xid == 0x12345678 && c.msg.body.mtype == CALL, "xid, CALL");
	ok(cb->rpcvers == 2 && cb->prog == 100000 && cb->vers == 2 && cb->proc == 3,
	   "rpcvers 2, PMAP_PROG, PMAP_VERS, PMAPPROC_GETPORT");
	ok(cb->cred.flavor == AUTH_SYS && cb->cred.body.len == 32 &&
	   cb->verf.flavor == AUTH_NONE && cb->verf.body.len == 0,
	   "cred AUTH_SYS of 32 bytes, verf AUTH_NONE");
	ok(c.args.prog == 100003 && c.args.vers == 3 && c.args.prot == 6 &&
	   c.args.port == 0, "GETPORT mapping");
	xdr_dec_init(&d, cb->cred.body.data, cb->cred.body.len, &a);
	ok(xdr_dec_authsys_parms(&d, &got) && !xdr_dec_left(&d) &&
	   got.stamp == 0x01020304 && got.machinename.len == 4 &&
	   !memcmp(got.machinename.data, "host", 4) && got.uid == 1000 &&
	   got.gid == 100 && got.gids.len == 2 && got.gids.val[0] == 100 &&
	   got.gids.val[1] == 10, "AUTH_SYS body: stamp, host, uid, gid, gids");
	ok(check_prefixes(&g, call_getport, sizeof(call_getport),
			  dec_getport_call) == 0,
	   "GETPORT call: all %zu strict prefixes fail", sizeof(call_getport));
	ok(check_prefixes(&g, authsys_body, sizeof(authsys_body),
			  dec_authsys_parms) == 0,
	   "authsys_parms: all strict prefixes fail");
}

static void test_call_limits(void)
{
	static uint8_t m[600];
	struct xdr_arena a;
	struct xdr_dec d;
	struct rpc_msg msg;
	struct opaque_auth oa;
	struct authsys_parms ap;
	size_t n;

#define DEC(fn, buf, len, out) \
	(xdr_arena_init(&a, check_arena_mem, sizeof(check_arena_mem)), \
	 xdr_dec_init(&d, guard_put(&g, buf, len), len, &a), \
	 fn(&d, out) && !xdr_dec_left(&d))

	memcpy(m, call_getport, CALL_HEADER_LEN);
	m[27] = 7;		/* cred flavor 7 (AUTH_TLS, not in the enum) */
	ok(DEC(xdr_dec_rpc_msg, m, CALL_HEADER_LEN, &msg) &&
	   msg.body.u.cbody.cred.flavor == 7,
	   "unknown flavor still decodes (answered with AUTH_ERROR, not garbage)");
	m[24] = 0x00; m[25] = 0x05; m[26] = 0xf3; m[27] = 0x93;	/* 390035 */
	ok(DEC(xdr_dec_rpc_msg, m, CALL_HEADER_LEN, &msg) &&
	   msg.body.u.cbody.cred.flavor == 390035, "flavor 390035 decodes");
	memcpy(m, call_getport, CALL_HEADER_LEN);
	m[7] = 2;
	ok(!DEC(xdr_dec_rpc_msg, m, CALL_HEADER_LEN, &msg), "msg_type 2 rejected");
	memcpy(m, call_getport, CALL_HEADER_LEN);
	m[11] = 3;
	ok(DEC(xdr_dec_rpc_msg, m, CALL_HEADER_LEN, &msg) &&
	   msg.body.u.cbody.rpcvers == 3,
	   "rpcvers 3 decodes (the RPC layer answers RPC_MISMATCH)");

	/* opaque_auth body<400> */
	memset(m, 0, sizeof(m));
	m[3] = 1;
	m[6] = 400 >> 8;
	m[7] = 400 & 0xff;
	ok(DEC(xdr_dec_opaque_auth, m, 8 + 400, &oa) && oa.body.len == 400,
	   "opaque_auth body of 400 decodes");
	m[7] = 401 & 0xff;
	ok(!DEC(xdr_dec_opaque_auth, m, 8 + 404, &oa),
	   "opaque_auth body of 401 rejected");

	/* authsys_parms machinename<255>, gids<16> */
	memset(m, 0, sizeof(m));
	m[7] = 255;		/* machinename length 255 */
	n = 8 + 256 + 8;	/* name, uid, gid */
	m[n + 3] = 16;		/* 16 gids */
	ok(DEC(xdr_dec_authsys_parms, m, n + 4 + 64, &ap) && ap.gids.len == 16 &&
	   ap.machinename.len == 255, "authsys: 255-byte name, 16 gids decode");
	m[n + 3] = 17;
	ok(!DEC(xdr_dec_authsys_parms, m, n + 4 + 68, &ap), "authsys: 17 gids rejected");
	m[n + 3] = 16;
	m[6] = 1;
	m[7] = 0;		/* machinename length 256 */
	ok(!DEC(xdr_dec_authsys_parms, m, n + 4 + 64, &ap),
	   "authsys: 256-byte machinename rejected");
#undef DEC
}

/* ---------------------------------------------------------------- */
/* Replies                                                           */

#define REPLY_HEAD 0x12, 0x34, 0x56, 0x78, 0, 0, 0, 1	/* xid, REPLY */
#define ACCEPTED 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0	/* + verf AUTH_NONE */

static const uint8_t r_success[] = { REPLY_HEAD, ACCEPTED, 0, 0, 0, 0 };
static const uint8_t r_prog_mismatch[] = {
	REPLY_HEAD, ACCEPTED, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 4,
};
static const uint8_t r_proc_unavail[] = { REPLY_HEAD, ACCEPTED, 0, 0, 0, 3 };
static const uint8_t r_garbage[] = { REPLY_HEAD, ACCEPTED, 0, 0, 0, 4 };
static const uint8_t r_rpc_mismatch[] = {
	REPLY_HEAD, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 2,
};
static const uint8_t r_auth_badcred[] = {
	REPLY_HEAD, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1,
};
static const uint8_t r_bad_accept[] = { REPLY_HEAD, ACCEPTED, 0, 0, 0, 6 };
static const uint8_t r_bad_auth_stat[] = {
	REPLY_HEAD, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 15,
};
static const uint8_t r_bad_reject[] = { REPLY_HEAD, 0, 0, 0, 1, 0, 0, 0, 2 };
static const uint8_t r_bad_reply_stat[] = { REPLY_HEAD, 0, 0, 0, 2 };

static struct rpc_msg reply(void)
{
	struct rpc_msg m = { 0 };

	m.xid = 0x12345678;
	m.body.mtype = REPLY;
	return m;
}

static void test_replies(void)
{
	static const uint8_t port[] = { 0, 0, 0x08, 0x01 };
	struct rpc_msg m, got;
	struct accepted_reply *ar = &m.body.u.rbody.u.areply;
	struct rejected_reply *rr = &m.body.u.rbody.u.rreply;
	struct xdr_arena a;
	struct xdr_dec d;
	uint32_t p = 0;

	m = reply();
	m.body.u.rbody.stat = MSG_ACCEPTED;
	ar->verf.flavor = AUTH_NONE;
	ar->reply_data.stat = SUCCESS;
	round_trip("accepted SUCCESS", enc_rpc_msg, dec_rpc_msg, &m, r_success,
		   sizeof(r_success));

	/* SUCCESS is void: the results follow at the same cursor. */
	{
		uint8_t both[sizeof(r_success) + 4];

		memcpy(both, r_success, sizeof(r_success));
		memcpy(both + sizeof(r_success), port, 4);
		xdr_arena_init(&a, check_arena_mem, sizeof(check_arena_mem));
		xdr_dec_init(&d, guard_put(&g, both, sizeof(both)), sizeof(both), &a);
		ok(xdr_dec_rpc_msg(&d, &got) && xdr_dec_left(&d) == 4 &&
		   xdr_dec_u32(&d, &p) && p == 2049,
		   "SUCCESS header, then the GETPORT result (port 2049)");
	}

	ar->reply_data.stat = PROG_MISMATCH;
	ar->reply_data.u.mismatch_info = (struct mismatch_info){ 2, 4 };
	round_trip("accepted PROG_MISMATCH 2..4", enc_rpc_msg, dec_rpc_msg, &m,
		   r_prog_mismatch, sizeof(r_prog_mismatch));
	ar->reply_data.stat = PROC_UNAVAIL;
	round_trip("accepted PROC_UNAVAIL (default arm)", enc_rpc_msg, dec_rpc_msg,
		   &m, r_proc_unavail, sizeof(r_proc_unavail));
	ar->reply_data.stat = GARBAGE_ARGS;
	round_trip("accepted GARBAGE_ARGS", enc_rpc_msg, dec_rpc_msg, &m, r_garbage,
		   sizeof(r_garbage));

	m = reply();
	m.body.u.rbody.stat = MSG_DENIED;
	rr->stat = RPC_MISMATCH;
	rr->u.mismatch_info = (struct mismatch_info){ 2, 2 };
	round_trip("rejected RPC_MISMATCH 2..2", enc_rpc_msg, dec_rpc_msg, &m,
		   r_rpc_mismatch, sizeof(r_rpc_mismatch));
	rr->stat = AUTH_ERROR;
	rr->u.stat = AUTH_BADCRED;
	round_trip("rejected AUTH_ERROR/AUTH_BADCRED", enc_rpc_msg, dec_rpc_msg, &m,
		   r_auth_badcred, sizeof(r_auth_badcred));

	xdr_arena_init(&a, check_arena_mem, sizeof(check_arena_mem));
#define BAD(buf, what) \
	xdr_dec_init(&d, guard_put(&g, buf, sizeof(buf)), sizeof(buf), &a); \
	ok(!xdr_dec_rpc_msg(&d, &got), what)
	BAD(r_bad_accept, "accept_stat 6 rejected");
	BAD(r_bad_auth_stat, "auth_stat 15 rejected");
	BAD(r_bad_reject, "reject_stat 2 rejected");
	BAD(r_bad_reply_stat, "reply_stat 2 rejected");
#undef BAD
}

/* ---------------------------------------------------------------- */
/* Port mapper and rpcbind                                           */

static const uint8_t w_mapping[] = {
	0, 0x01, 0x86, 0xa3, 0, 0, 0, 3, 0, 0, 0, 6, 0, 0, 0x08, 0x01,
};

static const uint8_t w_pmaplist[] = {
	0, 0, 0, 1,
	0, 0x01, 0x86, 0xa0, 0, 0, 0, 2, 0, 0, 0, 6, 0, 0, 0, 111,
	0, 0, 0, 1,
	0, 0x01, 0x86, 0xa0, 0, 0, 0, 2, 0, 0, 0, 17, 0, 0, 0, 111,
	0, 0, 0, 1,
	0, 0x01, 0x86, 0xa3, 0, 0, 0, 3, 0, 0, 0, 6, 0, 0, 0x08, 0x01,
	0, 0, 0, 0,
};

static const uint8_t w_rpcb[] = {
	0, 0x01, 0x86, 0xa3,
	0, 0, 0, 3,
	0, 0, 0, 3, 't', 'c', 'p', 0,
	0, 0, 0, 11, '0', '.', '0', '.', '0', '.', '0', '.', '8', '.', '1', 0,
	0, 0, 0, 9, 's', 'u', 'p', 'e', 'r', 'u', 's', 'e', 'r', 0, 0, 0,
};

static void test_pmap(void)
{
	static const uint8_t empty[] = { 0, 0, 0, 0 };
	struct mapping mp = { 100003, 3, PMAP_IPPROTO_TCP, 2049 };
	struct pmaplist l3 = { { 100003, 3, 6, 2049 }, NULL };
	struct pmaplist l2 = { { 100000, 2, PMAP_IPPROTO_UDP, PMAP_PORT }, &l3 };
	struct pmaplist l1 = { { PMAP_PROG, PMAP_VERS, 6, 111 }, &l2 };
	pmaplist_ptr head = &l1, none = NULL, got;
	struct call_args ca = { 100003, 3, 0, BYTES("args") };
	struct xdr_arena a;
	struct xdr_dec d;
	int n = 0;

	round_trip("mapping", enc_mapping, dec_mapping, &mp, w_mapping,
		   sizeof(w_mapping));
	round_trip("pmaplist of 3", enc_pmaplist_ptr, dec_pmaplist_ptr, &head,
		   w_pmaplist, sizeof(w_pmaplist));
	round_trip("pmaplist empty", enc_pmaplist_ptr, dec_pmaplist_ptr, &none,
		   empty, sizeof(empty));
	xdr_arena_init(&a, check_arena_mem, sizeof(check_arena_mem));
	xdr_dec_init(&d, guard_put(&g, w_pmaplist, sizeof(w_pmaplist)),
		     sizeof(w_pmaplist), &a);
	ok(xdr_dec_pmaplist_ptr(&d, &got), "pmaplist decodes");
	for (; got; got = got->next, n++)
		if ((n == 1 && got->map.prot != 17) ||
		    (n == 2 && got->map.port != 2049))
			break;
	ok(n == 3, "pmaplist: 3 entries in order");
	round_trip("call_args", enc_call_args, dec_call_args, &ca, NULL, 0);
}

static void test_rpcbind(void)
{
	struct rpcb r = {
		100003, 3, BYTES("tcp"), BYTES("0.0.0.0.8.1"), BYTES("superuser"),
	};
	struct rp__list rl2 = { { 100000, 4, BYTES("udp"), BYTES("0.0.0.0.0.111"),
				  BYTES("superuser") }, NULL };
	struct rp__list rl1 = { r, &rl2 };
	rpcblist_ptr rlist = &rl1;
	struct rpcb_entry_list el2 = {
		{ BYTES("::.8.1"), BYTES("tcp6"), NC_TPI_COTS_ORD, BYTES("inet6"),
		  BYTES("tcp") }, NULL };
	struct rpcb_entry_list el1 = {
		{ BYTES("127.0.0.1.8.1"), BYTES("tcp"), NC_TPI_COTS_ORD,
		  BYTES("inet"), BYTES("tcp") }, &el2 };
	rpcb_entry_list_ptr elist = &el1;
	struct rpcbs_addrlist al2 = { 100003, 3, 5, 0, BYTES("udp"), NULL };
	struct rpcbs_addrlist al1 = { 100000, 4, 1, 2, BYTES("tcp"), &al2 };
	struct rpcbs_rmtcalllist rc = { 100003, 3, 0, 1, 1, 0, BYTES("udp"), NULL };
	rpcb_stat_byvers st = { 0 };
	struct rpcb_rmtcallargs rca = { 100005, 3, 1, BYTES("\0\0\0\1") };
	struct netbuf nb = { 16, BYTES("\x02\x00\x08\x01\x7f\x00\x00\x01") };
	int i;

	round_trip("rpcb", enc_rpcb, dec_rpcb, &r, w_rpcb, sizeof(w_rpcb));
	round_trip("rpcblist of 2", enc_rpcblist_ptr, dec_rpcblist_ptr, &rlist,
		   NULL, 0);
	round_trip("rpcb_entry_list of 2", enc_rpcb_entry_list_ptr,
		   dec_rpcb_entry_list_ptr, &elist, NULL, 0);
	for (i = 0; i < RPCBSTAT_HIGHPROC; i++)
		st.val[RPCBVERS_4_STAT].info.val[i] = i;
	st.val[RPCBVERS_4_STAT].setinfo = 3;
	st.val[RPCBVERS_4_STAT].addrinfo = &al1;
	st.val[RPCBVERS_3_STAT].rmtinfo = &rc;
	round_trip("rpcb_stat_byvers", enc_rpcb_stat_byvers,
		   dec_rpcb_stat_byvers, &st, NULL, 0);
	round_trip("rpcb_rmtcallargs", enc_rpcb_rmtcallargs,
		   dec_rpcb_rmtcallargs, &rca, NULL, 0);
	round_trip("netbuf", enc_netbuf, dec_netbuf, &nb, NULL, 0);
	ok(RPCBPROG == 100000 && RPCBVERS == 3 && RPCBVERS4 == 4 &&
	   RPCBPROC_GETADDR == 3 && RPCBPROC4_BCAST == 5 &&
	   RPCBPROC4_GETADDRLIST == 11 && PMAPPROC_GETPORT == 3 &&
	   PMAPPROC_DUMP == 4 && rpcb_highproc_4 == 12,
	   "program, version and procedure numbers");
}

int main(void)
{
	guard_init(&g, 4096);
	test_call();
	test_call_limits();
	test_replies();
	test_pmap();
	test_rpcbind();
	guard_free(&g);
	return tap_done();
}
