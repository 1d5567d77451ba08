// SPDX-License-Identifier: MIT
/*
 * Tiny portmapper/rpcbind client for test_rpcbind.sh, built on the raw
 * test client. It calls PMAP v2 (RFC 1833 section 3) and RPCBIND v3/v4
 * procedures on 127.0.0.1:PORT over TCP and prints the results in a
 * line-oriented form that shell tests can grep:
 *
 *   rpcbind_query PORT null PROG VERS              -> "SUCCESS"
 *   rpcbind_query PORT getport PROG VERS [PROT]    -> port number
 *   rpcbind_query PORT dump                        -> "prog vers prot port"...
 *   rpcbind_query PORT set PROG VERS PROT PORT     -> "true" / "false"
 *   rpcbind_query PORT unset PROG VERS PROT PORT   -> "true" / "false"
 *   rpcbind_query PORT getaddr RBVERS PROG VERS NETID -> universal address
 *   rpcbind_query PORT rpcbdump RBVERS             -> "prog vers netid addr owner"...
 *   rpcbind_query PORT rbset RBVERS PROG VERS NETID ADDR -> "true" / "false"
 *   rpcbind_query PORT rbunset RBVERS PROG VERS NETID    -> "true" / "false"
 *
 * With -r first, the call leaves from a privileged (reserved) source
 * port, as root's libtirpc clients do (bindresvport); without it, from
 * an ephemeral port (>= 1024), whoever runs it. -r fails (exit 1) when
 * the caller may not bind such a port.
 *
 * Exit status: 0 on a successful call, 1 when the call failed (no reply,
 * denied, not SUCCESS, undecodable results; reason on stderr), 2 on usage.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rpc_client.h"

#define PMAP_PROG 100000

struct rd {
	const uint8_t *p;
	size_t left;
	bool bad;
};

static uint32_t rd_u32(struct rd *r)
{
	uint32_t v;

	if (r->left < 4) {
		r->bad = true;
		return 0;
	}
	v = rpc_get_u32(r->p);
	r->p += 4;
	r->left -= 4;
	return v;
}

/* Decode an XDR string into buf (NUL-terminated, at most cap-1 chars). */
static void rd_string(struct rd *r, char *buf, size_t cap)
{
	uint32_t len = rd_u32(r), padded;

	buf[0] = 0;
	if (r->bad)
		return;
	padded = (len + 3) & ~3u;
	if (len >= cap || padded > r->left) {
		r->bad = true;
		return;
	}
	memcpy(buf, r->p, len);
	buf[len] = 0;
	r->p += padded;
	r->left -= padded;
}

/* XDR optional-data list link: 1 = another entry, 0 = end. */
static bool more(struct rd *r)
{
	uint32_t v = rd_u32(r);

	if (v > 1)
		r->bad = true;
	return v == 1 && !r->bad;
}

static uint32_t num(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (!*s || *end) {
		fprintf(stderr, "rpcbind_query: bad number '%s'\n", s);
		exit(2);
	}
	return (uint32_t)v;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: rpcbind_query PORT null PROG VERS\n"
		"       rpcbind_query PORT getport PROG VERS [PROT]\n"
		"       rpcbind_query PORT dump\n"
		"       rpcbind_query PORT set|unset PROG VERS PROT PORT\n"
		"       rpcbind_query PORT getaddr RBVERS PROG VERS NETID\n"
		"       rpcbind_query PORT rpcbdump RBVERS\n"
		"       rpcbind_query PORT rbset RBVERS PROG VERS NETID ADDR\n"
		"       rpcbind_query PORT rbunset RBVERS PROG VERS NETID\n"
		"       (-r before PORT: call from a reserved source port)\n");
	return 2;
}

static bool reserved;

/*
 * Make the call and leave the SUCCESS results in *res. Exits 1 with a
 * message if anything but SUCCESS comes back.
 */
static void call(uint16_t port, uint32_t prog, uint32_t vers, uint32_t proc,
		 const struct rpc_buf *a, struct rpc_buf *st, struct rd *res)
{
	struct rpc_call c;
	struct rpc_reply r;
	char s[256];
	int fd, rc;

	fd = reserved ? rpc_connect_privileged(port, 3000)
		      : rpc_connect(port, 3000);
	if (fd < 0) {
		fprintf(stderr, "rpcbind_query: cannot connect to 127.0.0.1:%u%s: %s\n",
			port, reserved ? " from a reserved port" : "",
			strerror(errno));
		exit(1);
	}
	rpc_call_init(&c, rpc_next_xid() ^ (uint32_t)getpid(), prog, vers,
		      proc);
	c.args = a->data;
	c.args_len = a->len;
	rc = rpc_call_simple(fd, &c, &r, st, 3000);
	close(fd);
	if (rc != 1) {
		fprintf(stderr, "rpcbind_query: %s\n",
			rc == 0 ? "no reply (timeout)" :
			rc == -3 ? "unparsable reply" : "connection closed");
		exit(1);
	}
	if (r.xid != c.xid || r.reply_stat != RPC_MSG_ACCEPTED ||
	    r.accept_stat != RPC_SUCCESS) {
		fprintf(stderr, "rpcbind_query: call failed: %s\n",
			rpc_reply_str(&r, s, sizeof(s)));
		exit(1);
	}
	res->p = r.body;
	res->left = r.body_len;
	res->bad = false;
}

static int finish(struct rd *res)
{
	if (res->bad || res->left) {
		fprintf(stderr, "rpcbind_query: bad result encoding (%zu bytes left)\n",
			res->left);
		return 1;
	}
	return 0;
}

/* Globals, so that leak checkers see them as reachable at exit(). */
static struct rpc_buf args, store;

int main(int argc, char **argv)
{
	struct rd res;
	uint32_t port32, rbvers;
	uint16_t port;
	const char *op;

	if (argc > 1 && !strcmp(argv[1], "-r")) {
		reserved = true;
		argc--;
		argv++;
	}
	if (argc < 3)
		return usage();
	port32 = num(argv[1]);
	if (!port32 || port32 > 65535)
		return usage();
	port = (uint16_t)port32;
	op = argv[2];
	rpc_buf_init(&args);
	rpc_buf_init(&store);

	if (!strcmp(op, "null") && argc == 5) {
		call(port, num(argv[3]), num(argv[4]), 0, &args, &store, &res);
		if (finish(&res))
			return 1;
		printf("SUCCESS\n");
		return 0;
	}
	if (!strcmp(op, "getport") && (argc == 5 || argc == 6)) {
		uint32_t v;

		rpc_buf_put_u32(&args, num(argv[3]));
		rpc_buf_put_u32(&args, num(argv[4]));
		rpc_buf_put_u32(&args, argc == 6 ? num(argv[5]) : 6);
		rpc_buf_put_u32(&args, 0);
		call(port, PMAP_PROG, 2, 3, &args, &store, &res);
		v = rd_u32(&res);
		if (finish(&res))
			return 1;
		printf("%u\n", v);
		return 0;
	}
	if (!strcmp(op, "dump") && argc == 3) {
		call(port, PMAP_PROG, 2, 4, &args, &store, &res);
		while (more(&res)) {
			uint32_t pg = rd_u32(&res), vs = rd_u32(&res);
			uint32_t pr = rd_u32(&res), pt = rd_u32(&res);

			if (res.bad)
				break;
			printf("%u %u %u %u\n", pg, vs, pr, pt);
		}
		return finish(&res);
	}
	if ((!strcmp(op, "set") || !strcmp(op, "unset")) && argc == 7) {
		uint32_t v;

		for (int i = 3; i < 7; i++)
			rpc_buf_put_u32(&args, num(argv[i]));
		call(port, PMAP_PROG, 2, !strcmp(op, "set") ? 1 : 2, &args,
		     &store, &res);
		v = rd_u32(&res);
		if (finish(&res))
			return 1;
		printf("%s\n", v == 1 ? "true" : v == 0 ? "false" : "bad-bool");
		return v > 1;
	}
	if ((!strcmp(op, "rbset") && argc == 8) ||
	    (!strcmp(op, "rbunset") && argc == 7)) {
		uint32_t v;

		rbvers = num(argv[3]);
		rpc_buf_put_u32(&args, num(argv[4]));
		rpc_buf_put_u32(&args, num(argv[5]));
		rpc_buf_put_string(&args, argv[6]);
		rpc_buf_put_string(&args, argc == 8 ? argv[7] : "");
		rpc_buf_put_string(&args, "");
		call(port, PMAP_PROG, rbvers, !strcmp(op, "rbset") ? 1 : 2,
		     &args, &store, &res);
		v = rd_u32(&res);
		if (finish(&res))
			return 1;
		printf("%s\n", v == 1 ? "true" : v == 0 ? "false" : "bad-bool");
		return v > 1;
	}
	if (!strcmp(op, "getaddr") && argc == 7) {
		char uaddr[1024];

		rbvers = num(argv[3]);
		rpc_buf_put_u32(&args, num(argv[4]));
		rpc_buf_put_u32(&args, num(argv[5]));
		rpc_buf_put_string(&args, argv[6]);
		rpc_buf_put_string(&args, "");
		rpc_buf_put_string(&args, "");
		call(port, PMAP_PROG, rbvers, 3, &args, &store, &res);
		rd_string(&res, uaddr, sizeof(uaddr));
		if (finish(&res))
			return 1;
		printf("%s\n", uaddr);
		return 0;
	}
	if (!strcmp(op, "rpcbdump") && argc == 4) {
		char netid[256], addr[256], owner[256];

		rbvers = num(argv[3]);
		call(port, PMAP_PROG, rbvers, 4, &args, &store, &res);
		while (more(&res)) {
			uint32_t pg = rd_u32(&res), vs = rd_u32(&res);

			rd_string(&res, netid, sizeof(netid));
			rd_string(&res, addr, sizeof(addr));
			rd_string(&res, owner, sizeof(owner));
			if (res.bad)
				break;
			printf("%u %u %s %s %s\n", pg, vs, netid, addr,
			       owner[0] ? owner : "-");
		}
		return finish(&res);
	}
	return usage();
}
