// SPDX-License-Identifier: MIT
/*
 * NFSv4.0 callback probes on the wire: fake clients on 127.0.0.1 do
 * SETCLIENTID with a callback address of a socket they listen on, then
 * SETCLIENTID_CONFIRM, and play their callback service: the CB_NULL that
 * nfsxd sends (program, version 1, procedure 0, credential as knfsd's)
 * answered, refused, never answered (meanwhile another client's
 * COMPOUNDs complete: nfsxd runs with one worker), or answered with a
 * record too large. What nfsxd concluded is read from its log (debug
 * level: "callback path of client ...: up / down (why)").
 *
 * Usage: test_nfs4_callback PORT LOGFILE
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

#include "rpc_client.h"
#include "tap.h"

#define OP_SETCLIENTID 35
#define OP_SETCLIENTID_CONFIRM 36
#define NFS4_OK 0
#define CB_PROG 0x40000001u

static uint16_t port;
static const char *logfile;

struct clid {
	int ok;
	uint64_t id;
	uint8_t confirm[8];
};

/* A COMPOUND of the ops in @ops as @flavor (uid @uid); its status, or -1. */
static int compound(int fd, uint32_t flavor, uint32_t uid, uint32_t nops,
		    const struct rpc_buf *ops, struct clid *out)
{
	struct rpc_buf args, cred, store;
	struct rpc_call c;
	struct rpc_reply r;
	struct rpc_cur cur;
	int st = -1;

	rpc_buf_init(&args);
	rpc_buf_init(&cred);
	rpc_buf_init(&store);
	rpc_buf_put_opaque(&args, "", 0);
	rpc_buf_put_u32(&args, 0);
	rpc_buf_put_u32(&args, nops);
	rpc_buf_put_bytes(&args, ops->data, ops->len);
	rpc_call_init(&c, rpc_next_xid(), PROG_NFS, 4, 1);
	if (flavor == AUTH_SYS) {
		rpc_authsys_encode(&cred, 1, "client", uid, uid, NULL, 0);
		c.cred_flavor = AUTH_SYS;
		c.cred_body = cred.data;
		c.cred_len = cred.len;
	}
	c.args = args.data;
	c.args_len = args.len;
	if (rpc_call_simple(fd, &c, &r, &store, 5000) == 1 && r.reply_stat == RPC_MSG_ACCEPTED &&
	    r.accept_stat == RPC_SUCCESS) {
		uint32_t n, len;

		cur = (struct rpc_cur){ r.body, r.body_len, false };
		st = (int)rpc_cur_u32(&cur);
		rpc_cur_opaque(&cur, &len, 1024);
		n = rpc_cur_u32(&cur);
		if (out && n >= 1 && rpc_cur_u32(&cur) == OP_SETCLIENTID &&
		    rpc_cur_u32(&cur) == NFS4_OK) {
			out->id = rpc_cur_u64(&cur);
			if (cur.n >= 8) {
				memcpy(out->confirm, cur.p, 8);
				rpc_cur_skip(&cur, 8);
			}
			out->ok = !cur.bad;
		}
		if (cur.bad)
			st = -1;
	}
	rpc_buf_free(&args);
	rpc_buf_free(&cred);
	rpc_buf_free(&store);
	return st;
}

/* SETCLIENTID of @name with callback netid @netid at @uaddr, then CONFIRM.
 * Return values: the clientid, 0 when either failed. *@ms: the CONFIRM's time. */
static uint64_t set_and_confirm(int fd, const char *name, uint32_t flavor, uint32_t uid,
				const char *netid, const char *uaddr, long long *ms)
{
	struct rpc_buf ops;
	struct clid cl = { 0 };
	uint8_t verf[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	long long t0;
	int st;

	rpc_buf_init(&ops);
	rpc_buf_put_u32(&ops, OP_SETCLIENTID);
	rpc_buf_put_bytes(&ops, verf, 8);
	rpc_buf_put_opaque(&ops, name, strlen(name));
	rpc_buf_put_u32(&ops, CB_PROG);
	rpc_buf_put_string(&ops, netid);
	rpc_buf_put_string(&ops, uaddr);
	rpc_buf_put_u32(&ops, 7);                /* callback_ident */
	st = compound(fd, flavor, uid, 1, &ops, &cl);
	rpc_buf_reset(&ops);
	if (st != NFS4_OK || !cl.ok) {
		rpc_buf_free(&ops);
		return 0;
	}
	rpc_buf_put_u32(&ops, OP_SETCLIENTID_CONFIRM);
	rpc_buf_put_u32(&ops, (uint32_t)(cl.id >> 32));
	rpc_buf_put_u32(&ops, (uint32_t)cl.id);
	rpc_buf_put_bytes(&ops, cl.confirm, 8);
	t0 = rpc_now_ms();
	st = compound(fd, flavor, uid, 1, &ops, NULL);
	if (ms)
		*ms = rpc_now_ms() - t0;
	rpc_buf_free(&ops);
	return st == NFS4_OK ? cl.id : 0;
}

/* Wait up to @ms for the log to say "@cid: @what". */
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

/* Read the CB_NULL on @fd: checks its header; its xid in *@xid. */
static bool cb_null_ok(int fd, uint32_t flavor, uint32_t *xid)
{
	struct rpc_buf rec;
	struct rpc_cur c;
	bool good = false;
	uint32_t len;

	rpc_buf_init(&rec);
	if (rpc_recv_record(fd, &rec, 5000, 4096) == 1) {
		c = (struct rpc_cur){ rec.data, rec.len, false };
		*xid = rpc_cur_u32(&c);
		good = rpc_cur_u32(&c) == RPC_CALL && rpc_cur_u32(&c) == 2 &&
		       rpc_cur_u32(&c) == CB_PROG && rpc_cur_u32(&c) == 1 && rpc_cur_u32(&c) == 0;
		good = good && rpc_cur_u32(&c) == flavor;
		if (flavor == AUTH_SYS) {
			/* body length, stamp, machine, uid 0, gid 0, no gids */
			rpc_cur_u32(&c);
			rpc_cur_u32(&c);
			rpc_cur_opaque(&c, &len, 255);
			good = good && rpc_cur_u32(&c) == 0 && rpc_cur_u32(&c) == 0 &&
			       rpc_cur_u32(&c) == 0;
		} else {
			good = good && rpc_cur_u32(&c) == 0;
		}
		good = good && rpc_cur_u32(&c) == AUTH_NONE && rpc_cur_u32(&c) == 0 && !c.bad &&
		       c.n == 0;
	}
	rpc_buf_free(&rec);
	return good;
}

static void answer_null(int fd, uint32_t xid)
{
	struct rpc_buf b;

	rpc_buf_init(&b);
	rpc_buf_put_u32(&b, xid);
	rpc_buf_put_u32(&b, RPC_REPLY);
	rpc_buf_put_u32(&b, RPC_MSG_ACCEPTED);
	rpc_buf_put_u32(&b, AUTH_NONE);
	rpc_buf_put_u32(&b, 0);
	rpc_buf_put_u32(&b, RPC_SUCCESS);
	rpc_send_record(fd, b.data, b.len);
	rpc_buf_free(&b);
}

static void test_up(int fd, uint32_t flavor, const char *name)
{
	char ua[64];
	uint16_t p;
	int lfd = rpc_listen_lo(&p), cfd;
	uint32_t xid = 0;
	uint64_t cid;
	bool good;

	rpc_uaddr_lo(ua, sizeof(ua), p);
	cid = set_and_confirm(fd, name, flavor, 1000, "tcp", ua, NULL);
	ok(cid != 0, "%s: SETCLIENTID and CONFIRM with a callback at %s", name, ua);
	cfd = rpc_accept_ms(lfd, 5000);
	good = cfd >= 0 && cb_null_ok(cfd, flavor, &xid);
	ok(good, "%s: CB_NULL arrives: program %#x, version 1, procedure 0, %s", name, CB_PROG,
	   flavor == AUTH_SYS ? "AUTH_SYS uid 0 gid 0 (as knfsd)" : "AUTH_NONE");
	if (good)
		answer_null(cfd, xid);
	ok(log_says(cid, "up", 5000), "%s: nfsxd reports the callback path up", name);
	ok(cfd >= 0 && rpc_peer_closed(cfd, 3000), "%s: nfsxd closes the callback connection",
	   name);
	if (cfd >= 0)
		close(cfd);
	close(lfd);
}

static void test_refused(int fd)
{
	char ua[64];
	uint16_t p;
	int lfd = rpc_listen_lo(&p);
	uint64_t cid;

	close(lfd);
	rpc_uaddr_lo(ua, sizeof(ua), p);
	cid = set_and_confirm(fd, "refused", AUTH_SYS, 1000, "tcp", ua, NULL);
	ok(cid && log_says(cid, "down (no connection)", 5000),
	   "nothing listens at the callback address: path down");
}

static void test_silent(int fd)
{
	char ua[64];
	uint16_t p;
	int lfd = rpc_listen_lo(&p), cfd, fd2;
	uint32_t xid;
	uint64_t cid, cid2;
	long long ms, t0;
	bool got;

	rpc_uaddr_lo(ua, sizeof(ua), p);
	cid = set_and_confirm(fd, "silent", AUTH_SYS, 1000, "tcp", ua, &ms);
	ok(cid && ms < 1000, "silent client: CONFIRM answered at once (%lld ms)", ms);
	cfd = rpc_accept_ms(lfd, 5000);
	got = cfd >= 0 && cb_null_ok(cfd, AUTH_SYS, &xid);
	ok(got, "silent client: its CB_NULL arrives, and is not answered");
	/* Another client meanwhile, on its own connection, one worker. */
	fd2 = rpc_connect(port, 5000);
	t0 = rpc_now_ms();
	cid2 = fd2 >= 0 ? set_and_confirm(fd2, "other", AUTH_SYS, 2000, "tcp", "127.0.0.1.0.0",
					  NULL) : 0;
	ms = rpc_now_ms() - t0;
	ok(cid2 && ms < 1000 && !log_says(cid, "down", 0),
	   "another client's two COMPOUNDs complete meanwhile (%lld ms)", ms);
	ok(log_says(cid2, "down", 3000), "its callback (port 0) refused: path down");
	t0 = rpc_now_ms();
	got = log_says(cid, "down (timed out)", 15000);
	ms = rpc_now_ms() - t0;
	ok(got, "silent client: down once the reply timeout (lease/10) passed (%lld ms more)", ms);
	ok(cfd >= 0 && rpc_peer_closed(cfd, 2000), "silent client: its connection closed");
	if (fd2 >= 0)
		close(fd2);
	if (cfd >= 0)
		close(cfd);
	close(lfd);
}

static void test_oversized(int fd)
{
	static const uint8_t mark[4] = { 0x80, 0x10, 0x00, 0x00 }; /* a 1 MiB record */
	char ua[64];
	uint16_t p;
	int lfd = rpc_listen_lo(&p), cfd;
	uint32_t xid;
	uint64_t cid;
	bool got;

	rpc_uaddr_lo(ua, sizeof(ua), p);
	cid = set_and_confirm(fd, "oversized", AUTH_SYS, 1000, "tcp", ua, NULL);
	cfd = rpc_accept_ms(lfd, 5000);
	got = cfd >= 0 && cb_null_ok(cfd, AUTH_SYS, &xid);
	ok(got, "oversized: CB_NULL arrives");
	if (got && rpc_send_raw(cfd, mark, sizeof(mark), 1000) < 0)
		got = false;
	ok(got && rpc_peer_closed(cfd, 2000),
	   "a reply announcing 1 MiB: nfsxd closes the connection at once");
	ok(cid && log_says(cid, "down (reply too large)", 3000), "oversized: path down");
	if (cfd >= 0)
		close(cfd);
	close(lfd);
}

static void test_udp(int fd)
{
	char ua[64];
	uint16_t p;
	int lfd = rpc_listen_lo(&p), cfd;
	uint64_t cid;

	rpc_uaddr_lo(ua, sizeof(ua), p);
	cid = set_and_confirm(fd, "udp", AUTH_SYS, 1000, "udp", ua, NULL);
	ok(cid && log_says(cid, "down (netid \"udp\"", 3000), "netid udp: refused, path down");
	cfd = rpc_accept_ms(lfd, 500);
	ok(cfd < 0, "netid udp: nfsxd connects nowhere");
	if (cfd >= 0)
		close(cfd);
	close(lfd);
}

int main(int argc, char **argv)
{
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: %s PORT LOGFILE\n", argv[0]);
		return 2;
	}
	port = (uint16_t)atoi(argv[1]);
	logfile = argv[2];
	fd = rpc_connect(port, 5000);
	if (fd < 0) {
		printf("Bail out! cannot connect to nfsxd\n");
		return 1;
	}
	test_up(fd, AUTH_SYS, "sys-client");
	test_up(fd, AUTH_NONE, "none-client");
	test_refused(fd);
	test_silent(fd);
	test_oversized(fd);
	test_udp(fd);
	close(fd);
	return tap_done();
}
