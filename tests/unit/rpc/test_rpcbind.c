/* SPDX-License-Identifier: MIT */
/*
 * The embedded rpcbind (src/rpcbind, RFC 1833; universal addresses per
 * RFC 5665 section 5.2.3): the registration table (duplicates refused,
 * UNSET of every netid, owner filter, any-version lookup, capacity,
 * snapshots), universal address conversions and rejections, and the
 * program itself through rpc_dispatch with loopback and non-loopback
 * peers (192.0.2.1 and 2001:db8::5 are only sockaddr values, nothing is
 * sent): PMAP v2 SET/UNSET/GETPORT/DUMP, RPCBIND v3 SET/GETADDR/UNSET/
 * DUMP, v4 GETVERSADDR versus GETADDR, GETADDRLIST entries, GETTIME,
 * and malformed arguments answered with GARBAGE_ARGS and no side
 * effect; SET and UNSET from local non-root peers (loopback, port >=
 * 1024) refused, root's UNSET of any owner's mapping. req->conn is NULL, so wildcard registrations are reported as
 * registered ("0.0.0.0.p1.p2").
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/un.h>
#include <time.h>

#include "rpcbind/map.h"
#include "rpcbind/service.h"
#include "rpcbind/uaddr.h"
#include "tap.h"
#include "testutil.h"

#define P 0x20000100u
#define Q 0x20000200u

/* ------------------------------------------------------------------ */
/* Table                                                                */

static struct rpcb_mapping mk(uint32_t prog, uint32_t vers, const char *netid,
			      const char *uaddr, const char *owner)
{
	struct rpcb_mapping m;

	memset(&m, 0, sizeof(m));
	m.prog = prog;
	m.vers = vers;
	snprintf(m.netid, sizeof(m.netid), "%s", netid);
	snprintf(m.uaddr, sizeof(m.uaddr), "%s", uaddr);
	snprintf(m.owner, sizeof(m.owner), "%s", owner);
	return m;
}

static struct rpcb_mapping snapbuf[RPCB_MAP_MAX + 1];

static void test_map(void)
{
	struct rpcb_mapping m, out;
	size_t i;
	int fails = 0;

	rpcb_map_clear();
	ok(rpcb_map_snapshot(snapbuf, RPCB_MAP_MAX) == 0, "map: empty");
	m = mk(100003, 3, "tcp", "0.0.0.0.8.1", "alice");
	ok(rpcb_map_set(&m), "map: set 100003/3/tcp");
	m = mk(100003, 3, "tcp", "127.0.0.1.8.2", "bob");
	ok(!rpcb_map_set(&m), "map: same prog/vers/netid refused");
	m = mk(100003, 3, "udp", "0.0.0.0.8.1", "alice");
	ok(rpcb_map_set(&m), "map: same prog/vers, netid udp: added");
	m = mk(100003, 4, "tcp", "0.0.0.0.8.4", "alice");
	ok(rpcb_map_set(&m), "map: version 4 tcp: added");
	ok(rpcb_map_snapshot(snapbuf, RPCB_MAP_MAX) == 3, "map: 3 entries");
	ok(rpcb_map_snapshot(snapbuf, 2) == 2, "map: snapshot bounded by max");

	memset(&out, 0, sizeof(out));
	ok(rpcb_map_find(100003, 3, "tcp", false, &out) && out.prog == 100003 &&
	   out.vers == 3 && strcmp(out.netid, "tcp") == 0 &&
	   strcmp(out.uaddr, "0.0.0.0.8.1") == 0 &&
	   strcmp(out.owner, "alice") == 0,
	   "map: find exact copies the first registration (%s)", out.uaddr);
	ok(!rpcb_map_find(100003, 2, "tcp", false, &out),
	   "map: version 2 not found without any_vers");
	memset(&out, 0, sizeof(out));
	ok(rpcb_map_find(100003, 2, "tcp", true, &out) && out.prog == 100003 &&
	   (out.vers == 3 || out.vers == 4) && strcmp(out.netid, "tcp") == 0,
	   "map: version 2 with any_vers finds another version (%u)", out.vers);
	ok(rpcb_map_find(100003, 4, "tcp", true, &out) && out.vers == 4 &&
	   strcmp(out.uaddr, "0.0.0.0.8.4") == 0,
	   "map: any_vers still prefers the exact version");
	ok(!rpcb_map_find(100003, 3, "tcp6", true, &out),
	   "map: other netid not found");
	ok(!rpcb_map_find(100005, 3, "tcp", true, &out),
	   "map: other program not found");

	ok(rpcb_map_unset(100003, 3, NULL, NULL), "map: unset 100003/3 all netids");
	ok(!rpcb_map_find(100003, 3, "tcp", false, &out) &&
	   !rpcb_map_find(100003, 3, "udp", false, &out) &&
	   rpcb_map_find(100003, 4, "tcp", false, &out),
	   "map: tcp and udp of version 3 gone, version 4 kept");
	ok(!rpcb_map_unset(100003, 3, NULL, NULL), "map: unset again: false");

	m = mk(100005, 1, "tcp", "0.0.0.0.3.1", "alice");
	rpcb_map_set(&m);
	m = mk(100005, 1, "udp", "0.0.0.0.3.1", "alice");
	rpcb_map_set(&m);
	ok(rpcb_map_unset(100005, 1, "", NULL) &&
	   !rpcb_map_find(100005, 1, "tcp", false, &out) &&
	   !rpcb_map_find(100005, 1, "udp", false, &out),
	   "map: unset with an empty netid removes every netid");

	m = mk(100005, 1, "tcp", "0.0.0.0.3.1", "alice");
	rpcb_map_set(&m);
	m = mk(100005, 1, "udp", "0.0.0.0.3.1", "carol");
	rpcb_map_set(&m);
	ok(!rpcb_map_unset(100005, 1, "tcp", "bob") &&
	   rpcb_map_find(100005, 1, "tcp", false, &out),
	   "map: unset with another owner removes nothing");
	ok(rpcb_map_unset(100005, 1, NULL, "alice") &&
	   !rpcb_map_find(100005, 1, "tcp", false, &out) &&
	   rpcb_map_find(100005, 1, "udp", false, &out),
	   "map: unset of every netid by owner alice keeps carol's");
	ok(rpcb_map_unset(100005, 1, "udp", "") &&
	   !rpcb_map_find(100005, 1, "udp", false, &out),
	   "map: an empty owner matches any owner");
	ok(!rpcb_map_unset(100003, 4, "udp", NULL) &&
	   rpcb_map_find(100003, 4, "tcp", false, &out),
	   "map: unset of a netid not registered: false, others kept");

	rpcb_map_clear();
	ok(rpcb_map_snapshot(snapbuf, RPCB_MAP_MAX) == 0, "map: cleared");
	for (i = 0; i < RPCB_MAP_MAX; i++) {
		m = mk(0x30000000u + (uint32_t)i, 1, "tcp", "0.0.0.0.0.1", "x");
		if (!rpcb_map_set(&m))
			fails++;
	}
	m = mk(0x3fffffffu, 1, "tcp", "0.0.0.0.0.1", "x");
	ok(fails == 0 && !rpcb_map_set(&m),
	   "map: %d entries fit, one more is refused", RPCB_MAP_MAX);
	ok(rpcb_map_snapshot(snapbuf, RPCB_MAP_MAX + 1) == RPCB_MAP_MAX &&
	   snapbuf[RPCB_MAP_MAX - 1].prog == 0x30000000u + RPCB_MAP_MAX - 1,
	   "map: snapshot of a full table");
	rpcb_map_clear();
}

/* ------------------------------------------------------------------ */
/* Universal addresses                                                  */

static void test_uaddr(void)
{
	/*
	 * Not universal addresses (RFC 5665 5.2.3.3/4: an IPv4 or IPv6
	 * address, then exactly two port octets). "1.2.3.4.5" and
	 * "host.1.2" have a valid port part but no valid host.
	 */
	static const char *const bad[] = {
		"1.2.3.4.5", "host.1.2", "a.b", "1.2.3.4.256.1", "1.2.3.4.1.256",
		"",
		".", "..", "1.2", ".1.2", "1.2.3.4..2", "1.2.3.4.1.",
		"1.2.3.4.+1.2", "1.2.3.4.1.-2", "1.2.3.4.0001.2", "1.2.3.4.1.2a",
		"1.2.3.4.1 .2", "localhost", "::1", "1.2.3.4.1.2.",
	};
	struct sockaddr_storage ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	char out[UADDR_MAX], host[UADDR_MAX];
	uint16_t port;
	size_t i;

	ok(uaddr_make("127.0.0.1", 2049, out, sizeof(out)) == 0 &&
	   strcmp(out, "127.0.0.1.8.1") == 0, "uaddr_make 127.0.0.1:2049 (%s)",
	   out);
	ok(uaddr_make("::", 65535, out, sizeof(out)) == 0 &&
	   strcmp(out, "::.255.255") == 0, "uaddr_make :: 65535 (%s)", out);
	ok(uaddr_make("0.0.0.0", 0, out, sizeof(out)) == 0 &&
	   strcmp(out, "0.0.0.0.0.0") == 0, "uaddr_make port 0 (%s)", out);
	ok(uaddr_make("127.0.0.1", 2049, out, 14) == 0 &&
	   strcmp(out, "127.0.0.1.8.1") == 0, "uaddr_make: exact room (14)");
	ok(uaddr_make("127.0.0.1", 2049, out, 13) == -1,
	   "uaddr_make: one byte short fails");

	port = 0;
	ok(uaddr_split("1.2.3.4.1.2", host, sizeof(host), &port) == 0 &&
	   strcmp(host, "1.2.3.4") == 0 && port == 258,
	   "uaddr_split 1.2.3.4.1.2: host 1.2.3.4 port 258 (%s %u)", host,
	   port);
	ok(uaddr_split("::1.8.1", host, sizeof(host), &port) == 0 &&
	   strcmp(host, "::1") == 0 && port == 2049,
	   "uaddr_split ::1.8.1: host ::1 port 2049 (%s %u)", host, port);
	ok(uaddr_split("fe80::1:2.255.255", host, sizeof(host), &port) == 0 &&
	   strcmp(host, "fe80::1:2") == 0 && port == 65535,
	   "uaddr_split fe80::1:2.255.255 (%s %u)", host, port);
	ok(uaddr_split("0.0.0.0.0.0", host, sizeof(host), &port) == 0 &&
	   strcmp(host, "0.0.0.0") == 0 && port == 0, "uaddr_split port 0");
	ok(uaddr_split("1.2.3.4.1.2", host, 8, &port) == 0 &&
	   strcmp(host, "1.2.3.4") == 0, "uaddr_split: exact host room (8)");
	ok(uaddr_split("1.2.3.4.1.2", host, 7, &port) == -1,
	   "uaddr_split: host room one short fails");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r;

		strcpy(host, "untouched");
		port = 4321;
		r = uaddr_split(bad[i], host, sizeof(host), &port);
		ok(r == -1, "uaddr_split rejects \"%s\" (ret %d host \"%s\" "
		   "port %u)", bad[i], r, host, port);
	}

	memset(&ss, 0, sizeof(ss));
	s4->sin_family = AF_INET;
	s4->sin_port = htons(2049);
	inet_pton(AF_INET, "192.0.2.1", &s4->sin_addr);
	ok(uaddr_from_sockaddr(&ss, out, sizeof(out)) == 0 &&
	   strcmp(out, "192.0.2.1.8.1") == 0, "uaddr_from_sockaddr IPv4 (%s)",
	   out);
	ok(uaddr_split(out, host, sizeof(host), &port) == 0 && port == 2049 &&
	   inet_pton(AF_INET, host, &s4->sin_addr) == 1 &&
	   ntohl(s4->sin_addr.s_addr) == 0xc0000201u,
	   "IPv4 round trip through uaddr_split");
	ok(uaddr_from_sockaddr(&ss, out, 13) == -1,
	   "uaddr_from_sockaddr: buffer too small fails");

	memset(&ss, 0, sizeof(ss));
	s6->sin6_family = AF_INET6;
	s6->sin6_port = htons(111);
	inet_pton(AF_INET6, "2001:db8::5", &s6->sin6_addr);
	ok(uaddr_from_sockaddr(&ss, out, sizeof(out)) == 0 &&
	   strcmp(out, "2001:db8::5.0.111") == 0,
	   "uaddr_from_sockaddr IPv6 (%s)", out);
	ok(uaddr_split(out, host, sizeof(host), &port) == 0 && port == 111 &&
	   strcmp(host, "2001:db8::5") == 0, "IPv6 round trip");

	memset(&ss, 0, sizeof(ss));
	ss.ss_family = AF_UNIX;
	ok(uaddr_from_sockaddr(&ss, out, sizeof(out)) == -1,
	   "uaddr_from_sockaddr AF_UNIX: -1");
}

/* ------------------------------------------------------------------ */
/* The program through rpc_dispatch                                     */

static struct rpc_registry reg;
static struct test_req t;
static struct wbuf w;
static struct sockaddr_storage lo, remote, lo6, remote6, mapped_lo;
/* Loopback peers on unprivileged source ports: a local non-root user. */
static struct sockaddr_storage lo_user, lo6_user, mapped_user;
static uint32_t xid = 1000;

/* A peer at @ip, source port 900 (privileged) unless @port is given. */
static void mkpeer_port(struct sockaddr_storage *ss, int af, const char *ip,
			uint16_t port)
{
	memset(ss, 0, sizeof(*ss));
	if (af == AF_INET) {
		struct sockaddr_in *s = (struct sockaddr_in *)ss;

		s->sin_family = AF_INET;
		s->sin_port = htons(port);
		inet_pton(AF_INET, ip, &s->sin_addr);
	} else {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)ss;

		s->sin6_family = AF_INET6;
		s->sin6_port = htons(port);
		inet_pton(AF_INET6, ip, &s->sin6_addr);
	}
}

static void mkpeer(struct sockaddr_storage *ss, int af, const char *ip)
{
	mkpeer_port(ss, af, ip, 900);
}

/* Reader over the results that follow the 24-byte accepted header. */
struct rd {
	const uint8_t *p, *end;
	bool bad;
};

static void rd_init(struct rd *r)
{
	r->p = t.rep + 24;
	r->end = t.rep + t.rep_len;
	r->bad = t.rep_len < 24;
}

static uint32_t r32(struct rd *r)
{
	uint32_t v;

	if (r->bad || r->end - r->p < 4) {
		r->bad = true;
		return 0xdeadbeef;
	}
	v = get32(r->p);
	r->p += 4;
	return v;
}

static void rstr(struct rd *r, char *out, size_t size)
{
	uint32_t n = r32(r);
	size_t padded = ((size_t)n + 3) & ~(size_t)3;

	out[0] = 0;
	if (r->bad || n >= size || (size_t)(r->end - r->p) < padded) {
		r->bad = true;
		return;
	}
	memcpy(out, r->p, n);
	out[n] = 0;
	r->p += padded;
}

static bool rd_done(const struct rd *r)
{
	return !r->bad && r->p == r->end;
}

/* Dispatch w (built by the caller); true when SUCCESS came back. */
static bool run(const struct sockaddr_storage *peer)
{
	uint32_t x = get32(w.b);

	treq_run(&t, &reg, NULL, &w, peer);
	return rep_accepted(&t, x, RPC_SUCCESS);
}

/* A PMAP call; returns the one-word result, or 0xdeadbeef on failure. */
static uint32_t pmap(uint32_t proc, uint32_t prog, uint32_t vers,
		     uint32_t prot, uint32_t port,
		     const struct sockaddr_storage *peer)
{
	struct rd r;
	uint32_t v;

	w_call(&w, ++xid, RPCB_PROG, 2, proc);
	w_u32(&w, prog);
	w_u32(&w, vers);
	w_u32(&w, prot);
	w_u32(&w, port);
	if (!run(peer))
		return 0xdeadbeef;
	rd_init(&r);
	v = r32(&r);
	return rd_done(&r) ? v : 0xdeadbeef;
}

static void w_rpcb(uint32_t vers, uint32_t proc, uint32_t prog,
		   uint32_t pvers, const char *netid, const char *addr,
		   const char *owner)
{
	w_call(&w, ++xid, RPCB_PROG, vers, proc);
	w_u32(&w, prog);
	w_u32(&w, pvers);
	w_str(&w, netid);
	w_str(&w, addr);
	w_str(&w, owner);
}

/* RPCBIND SET/UNSET; returns the bool, or 0xdeadbeef on failure. */
static uint32_t rpcb_bool(uint32_t vers, uint32_t proc, uint32_t prog,
			  uint32_t pvers, const char *netid, const char *addr,
			  const char *owner, const struct sockaddr_storage *peer)
{
	struct rd r;
	uint32_t v;

	w_rpcb(vers, proc, prog, pvers, netid, addr, owner);
	if (!run(peer))
		return 0xdeadbeef;
	rd_init(&r);
	v = r32(&r);
	return rd_done(&r) ? v : 0xdeadbeef;
}

/* GETADDR (proc 3) or GETVERSADDR (9); the address, or "FAIL". */
static const char *getaddr(uint32_t vers, uint32_t proc, uint32_t prog,
			   uint32_t pvers, const struct sockaddr_storage *peer)
{
	static char out[300];
	struct rd r;

	w_rpcb(vers, proc, prog, pvers, "tcp", "", "");
	if (!run(peer))
		return "FAIL";
	rd_init(&r);
	rstr(&r, out, sizeof(out));
	return rd_done(&r) ? out : "FAIL";
}

static bool garbage(const struct sockaddr_storage *peer)
{
	treq_run(&t, &reg, NULL, &w, peer);
	return rep_accepted(&t, get32(w.b), RPC_GARBAGE_ARGS) &&
	       t.rep_len == 24;
}

struct pmap_ent {
	uint32_t prog, vers, prot, port;
};

/* PMAP DUMP into @e; returns the count, or -1 when malformed. */
static int pmap_dump(struct pmap_ent *e, int max,
		     const struct sockaddr_storage *peer)
{
	struct rd r;
	int n = 0;

	w_call(&w, ++xid, RPCB_PROG, 2, 4);
	if (!run(peer))
		return -1;
	rd_init(&r);
	for (;;) {
		uint32_t more = r32(&r);

		if (r.bad || more > 1 || n > max)
			return -1;
		if (!more)
			break;
		e[n].prog = r32(&r);
		e[n].vers = r32(&r);
		e[n].prot = r32(&r);
		e[n].port = r32(&r);
		n++;
	}
	return rd_done(&r) ? n : -1;
}

static int pmap_has(const struct pmap_ent *e, int n, uint32_t prog,
		    uint32_t vers, uint32_t prot, uint32_t port)
{
	int i, c = 0;

	for (i = 0; i < n; i++)
		if (e[i].prog == prog && e[i].vers == vers &&
		    e[i].prot == prot && e[i].port == port)
			c++;
	return c;
}

static void test_pmap(void)
{
	struct pmap_ent e[16];
	int n;

	rpcb_map_clear();
	ok(pmap(1, P, 1, 6, 2049, &remote) == 0,
	   "PMAP SET from 192.0.2.1: FALSE");
	ok(pmap(3, P, 1, 6, 0, &lo) == 0, "GETPORT: not registered: 0");
	ok(pmap(1, P, 1, 6, 2049, &remote6) == 0,
	   "PMAP SET from 2001:db8::5: FALSE");
	ok(pmap(1, P, 1, 6, 2049, &lo) == 1, "PMAP SET from 127.0.0.1: TRUE");
	ok(pmap(3, P, 1, 6, 0, &remote) == 2049,
	   "GETPORT (any peer) finds port 2049");
	ok(pmap(3, P, 1, 17, 0, &lo) == 0, "GETPORT udp: 0");
	ok(pmap(3, P, 1, 99, 0, &lo) == 0, "GETPORT protocol 99: 0");
	ok(pmap(1, P, 1, 6, 2049, &lo) == 0, "second SET of the same: FALSE");
	ok(pmap(1, P, 1, 6, 3000, &lo) == 0,
	   "SET of the same with another port: FALSE");
	ok(pmap(1, P, 1, 17, 2050, &lo) == 1, "SET udp 2050: TRUE");
	ok(pmap(3, P, 1, 17, 0, &lo) == 2050, "GETPORT udp: 2050");
	ok(pmap(1, P, 2, 6, 0, &lo) == 0, "SET port 0: FALSE");
	ok(pmap(1, P, 2, 6, 65536, &lo) == 0, "SET port 65536: FALSE");
	ok(pmap(1, P, 2, 99, 2049, &lo) == 0, "SET protocol 99: FALSE");
	ok(pmap(3, P, 2, 6, 0, &lo) != 0xdeadbeef,
	   "GETPORT after refused SETs answers");

	n = pmap_dump(e, 16, &remote);
	ok(n == 2 && pmap_has(e, n, P, 1, 6, 2049) == 1 &&
	   pmap_has(e, n, P, 1, 17, 2050) == 1,
	   "DUMP lists exactly tcp 2049 and udp 2050 (%d entries)", n);

	ok(pmap(2, P, 1, 6, 2049, &remote) == 0, "UNSET from 192.0.2.1: FALSE");
	ok(pmap(3, P, 1, 6, 0, &lo) == 2049, "... and it is still there");
	ok(pmap(2, P, 1, 0, 0, &lo) == 1,
	   "UNSET from 127.0.0.1 (protocol and port ignored): TRUE");
	ok(pmap(3, P, 1, 6, 0, &lo) == 0 && pmap(3, P, 1, 17, 0, &lo) == 0,
	   "UNSET removed tcp and udp");
	n = pmap_dump(e, 16, &lo);
	ok(n == 0, "DUMP is empty (%d)", n);
	ok(pmap(2, P, 1, 6, 2049, &lo) == 0, "UNSET again: FALSE");

	ok(pmap(1, Q, 1, 6, 111, &lo6) == 1, "PMAP SET from ::1: TRUE");
	ok(pmap(1, Q, 2, 6, 111, &mapped_lo) == 1,
	   "PMAP SET from ::ffff:127.0.0.1: TRUE");
	ok(pmap(2, Q, 1, 6, 111, &lo6) == 1 && pmap(2, Q, 2, 6, 111, &lo) == 1,
	   "UNSET both");

	/* Malformed mappings. */
	w_call(&w, ++xid, RPCB_PROG, 2, 1);
	w_u32(&w, P);
	w_u32(&w, 1);
	w_u32(&w, 6);
	ok(garbage(&lo), "SET with a 3-word mapping: GARBAGE_ARGS");
	w_u32(&w, 2049);
	w_u32(&w, 0);
	ok(garbage(&lo), "SET with a 5-word mapping: GARBAGE_ARGS");
	ok(pmap(3, P, 1, 6, 0, &lo) == 0, "... and nothing was registered");
	w_call(&w, ++xid, RPCB_PROG, 2, 3);
	w_u32(&w, P);
	w.b[w.n++] = 0;
	ok(garbage(&lo), "GETPORT with 5 bytes: GARBAGE_ARGS");
	w_call(&w, ++xid, RPCB_PROG, 2, 2);
	ok(garbage(&lo), "UNSET without arguments: GARBAGE_ARGS");
	w_call(&w, ++xid, RPCB_PROG, 2, 4);
	w_u32(&w, 0);
	ok(garbage(&lo), "DUMP with an argument: GARBAGE_ARGS");
}

struct rpcb_ent {
	uint32_t prog, vers;
	char netid[300], addr[300], owner[300];
};

static int rpcb_dump(uint32_t vers, struct rpcb_ent *e, int max,
		     const struct sockaddr_storage *peer)
{
	struct rd r;
	int n = 0;

	w_call(&w, ++xid, RPCB_PROG, vers, 4);
	if (!run(peer))
		return -1;
	rd_init(&r);
	for (;;) {
		uint32_t more = r32(&r);

		if (r.bad || more > 1 || n >= max)
			return -1;
		if (!more)
			break;
		e[n].prog = r32(&r);
		e[n].vers = r32(&r);
		rstr(&r, e[n].netid, sizeof(e[n].netid));
		rstr(&r, e[n].addr, sizeof(e[n].addr));
		rstr(&r, e[n].owner, sizeof(e[n].owner));
		n++;
	}
	return rd_done(&r) ? n : -1;
}

static void test_rpcb3(void)
{
	static struct rpcb_ent e[8];
	int n;

	rpcb_map_clear();
	ok(rpcb_bool(3, 1, P, 1, "tcp", "127.0.0.1.8.1", "test", &remote) == 0,
	   "v3 SET from 192.0.2.1: FALSE");
	ok(rpcb_bool(3, 1, P, 1, "tcp", "127.0.0.1.8.1", "test", &lo) == 1,
	   "v3 SET tcp 127.0.0.1.8.1 from loopback: TRUE");
	ok(rpcb_bool(3, 1, P, 1, "tcp", "127.0.0.1.8.2", "test", &lo) == 0,
	   "v3 SET of the same prog/vers/netid: FALSE");
	ok(strcmp(getaddr(3, 3, P, 1, &remote), "127.0.0.1.8.1") == 0,
	   "v3 GETADDR: 127.0.0.1.8.1");
	ok(strcmp(getaddr(3, 3, P, 7, &remote), "127.0.0.1.8.1") == 0,
	   "v3 GETADDR of an unregistered version: any version's address");
	ok(strcmp(getaddr(3, 3, P + 1, 1, &remote), "") == 0,
	   "v3 GETADDR of an unknown program: empty string");
	ok(pmap(3, P, 1, 6, 0, &remote) == 2049,
	   "PMAP GETPORT sees the v3 registration: 2049");

	n = rpcb_dump(3, e, 8, &remote);
	ok(n == 1 && e[0].prog == P && e[0].vers == 1 &&
	   strcmp(e[0].netid, "tcp") == 0 &&
	   strcmp(e[0].addr, "127.0.0.1.8.1") == 0 &&
	   strcmp(e[0].owner, "superuser") == 0,
	   "v3 DUMP: one entry with every field, owner \"superuser\" "
	   "(the caller's, not the \"test\" it wrote) (%d)", n);

	ok(rpcb_bool(3, 1, P, 2, "tcp", "junk", "test", &lo) == 0,
	   "v3 SET with a bad universal address: FALSE");
	ok(rpcb_bool(3, 1, P, 2, "", "127.0.0.1.8.1", "test", &lo) == 0,
	   "v3 SET with an empty netid: FALSE");
	ok(rpcb_bool(3, 1, P, 2, "tcp", "127.0.0.1.8.3", "", &lo) == 1,
	   "v3 SET with an empty owner: TRUE");
	n = rpcb_dump(3, e, 8, &lo);
	ok(n == 2 && ((e[0].vers == 2 && strcmp(e[0].owner, "superuser") == 0) ||
		      (e[1].vers == 2 && strcmp(e[1].owner, "superuser") == 0)),
	   "... recorded with owner \"superuser\"");

	ok(rpcb_bool(3, 2, P, 1, "tcp", "", "", &remote) == 0,
	   "v3 UNSET from 192.0.2.1: FALSE");
	ok(strcmp(getaddr(3, 3, P, 1, &lo), "127.0.0.1.8.1") == 0,
	   "... still registered");
	ok(rpcb_bool(3, 2, P, 1, "udp", "", "", &lo) == 0,
	   "v3 UNSET of netid udp (not registered): FALSE");
	ok(rpcb_bool(3, 2, P, 1, "tcp", "", "", &lo) == 1,
	   "v3 UNSET from loopback: TRUE");
	ok(strcmp(getaddr(3, 3, P, 1, &lo), "127.0.0.1.8.3") == 0,
	   "GETADDR now finds only version 2");
	ok(rpcb_bool(3, 2, P, 2, "", "", "", &lo) == 1 &&
	   strcmp(getaddr(3, 3, P, 1, &lo), "") == 0,
	   "v3 UNSET with an empty netid removes the rest");

	/* A PMAP registration is on the wildcard address. */
	ok(pmap(1, Q, 1, 6, 2049, &lo) == 1, "PMAP SET Q tcp 2049");
	ok(strcmp(getaddr(3, 3, Q, 1, &lo), "0.0.0.0.8.1") == 0,
	   "v3 GETADDR of a wildcard registration without a connection: "
	   "0.0.0.0.8.1");
	pmap(2, Q, 1, 6, 2049, &lo);

	/* IPv6 peers ask for tcp6. */
	ok(rpcb_bool(3, 1, P, 1, "tcp6", "::1.8.1", "test", &lo6) == 1,
	   "v3 SET tcp6 ::1.8.1 from ::1: TRUE");
	ok(strcmp(getaddr(3, 3, P, 1, &lo6), "::1.8.1") == 0,
	   "v3 GETADDR from ::1: the tcp6 address");
	ok(strcmp(getaddr(3, 3, P, 1, &lo), "") == 0,
	   "v3 GETADDR from 127.0.0.1 (tcp): not registered");
	ok(rpcb_bool(3, 2, P, 1, "tcp6", "", "", &lo) == 1, "UNSET tcp6");
}

static void test_rpcb4(void)
{
	const char *a;
	struct rd r;
	int n = 0, tcp = 0, udp = 0, tcp6 = 0, other = 0;
	time_t now;

	rpcb_map_clear();
	ok(rpcb_bool(4, 1, P, 1, "tcp", "127.0.0.1.8.1", "t", &lo) == 1 &&
	   rpcb_bool(4, 1, P, 2, "tcp", "127.0.0.1.8.2", "t", &lo) == 1 &&
	   rpcb_bool(4, 1, P, 1, "udp", "127.0.0.1.8.1", "t", &lo) == 1 &&
	   rpcb_bool(4, 1, P, 1, "tcp6", "::1.8.1", "t", &lo) == 1,
	   "v4 SET: P v1 tcp/udp/tcp6, P v2 tcp");
	ok(strcmp(getaddr(4, 9, P, 1, &remote), "127.0.0.1.8.1") == 0,
	   "v4 GETVERSADDR v1: 127.0.0.1.8.1");
	ok(strcmp(getaddr(4, 9, P, 2, &remote), "127.0.0.1.8.2") == 0,
	   "v4 GETVERSADDR v2: 127.0.0.1.8.2");
	ok(strcmp(getaddr(4, 9, P, 3, &remote), "") == 0,
	   "v4 GETVERSADDR v3 (not registered): empty");
	a = getaddr(4, 3, P, 3, &remote);
	ok(strcmp(a, "127.0.0.1.8.1") == 0 || strcmp(a, "127.0.0.1.8.2") == 0,
	   "v4 GETADDR v3: any version's address (%s)", a);
	ok(strcmp(getaddr(4, 3, P, 2, &remote), "127.0.0.1.8.2") == 0,
	   "v4 GETADDR v2: the exact version first");

	/* GETADDRLIST P v1. */
	w_rpcb(4, 11, P, 1, "tcp", "", "");
	ok(run(&remote), "v4 GETADDRLIST: SUCCESS");
	rd_init(&r);
	for (;;) {
		char maddr[300], netid[300], fam[300], proto[300];
		uint32_t more = r32(&r), sem;

		if (r.bad || more != 1)
			break;
		rstr(&r, maddr, sizeof(maddr));
		rstr(&r, netid, sizeof(netid));
		sem = r32(&r);
		rstr(&r, fam, sizeof(fam));
		rstr(&r, proto, sizeof(proto));
		n++;
		if (strcmp(netid, "tcp") == 0 &&
		    strcmp(maddr, "127.0.0.1.8.1") == 0 && sem == 3 &&
		    strcmp(fam, "inet") == 0 && strcmp(proto, "tcp") == 0)
			tcp++;
		else if (strcmp(netid, "udp") == 0 &&
			 strcmp(maddr, "127.0.0.1.8.1") == 0 && sem == 1 &&
			 strcmp(fam, "inet") == 0 && strcmp(proto, "udp") == 0)
			udp++;
		else if (strcmp(netid, "tcp6") == 0 &&
			 strcmp(maddr, "::1.8.1") == 0 && sem == 3 &&
			 strcmp(fam, "inet6") == 0 && strcmp(proto, "tcp") == 0)
			tcp6++;
		else
			other++;
	}
	ok(rd_done(&r) && n == 3 && tcp == 1 && udp == 1 && tcp6 == 1 &&
	   other == 0, "GETADDRLIST: tcp (COTS_ORD, inet), udp (CLTS, inet), "
	   "tcp6 (COTS_ORD, inet6) (n %d, bad %d)", n, other);

	w_call(&w, ++xid, RPCB_PROG, 4, 6);
	now = time(NULL);
	ok(run(&remote), "v4 GETTIME: SUCCESS");
	rd_init(&r);
	{
		uint32_t tv = r32(&r);

		ok(rd_done(&r) && tv + 5 >= (uint32_t)now &&
		   tv <= (uint32_t)now + 5, "GETTIME is now (%u vs %ld)", tv,
		   (long)now);
	}
	w_call(&w, ++xid, RPCB_PROG, 4, 6);
	w_u32(&w, 0);
	ok(garbage(&lo), "GETTIME with an argument: GARBAGE_ARGS");

	ok(rpcb_bool(4, 2, P, 1, "", "", "", &lo) == 1 &&
	   rpcb_bool(4, 2, P, 2, "tcp", "", "", &lo) == 1,
	   "v4 UNSET all");
	ok(rpcb_map_snapshot(snapbuf, RPCB_MAP_MAX) == 0, "table empty");
}

/*
 * Only root on this host changes the table: a loopback peer on a port
 * >= 1024 is a local user, refused with FALSE whatever it asks; root
 * removes anyone's registration, as rpcbind's "superuser" does.
 */
static void test_ownership(void)
{
	struct rpcb_mapping m;
	static struct rpcb_ent e[8];
	struct pmap_ent pe[8];
	int n;

	rpcb_map_clear();
	/* As nfsxd registers itself at start. */
	m = mk(P, 3, "tcp", "0.0.0.0.8.1", "superuser");
	rpcb_map_set(&m);

	ok(pmap(1, Q, 1, 6, 2049, &lo_user) == 0,
	   "PMAP SET from 127.0.0.1 port 40000: FALSE");
	ok(pmap(1, Q, 1, 6, 2049, &lo6_user) == 0,
	   "PMAP SET from ::1 port 1024: FALSE");
	ok(pmap(1, Q, 1, 6, 2049, &mapped_user) == 0,
	   "PMAP SET from ::ffff:127.0.0.1 port 40000: FALSE");
	ok(rpcb_bool(3, 1, Q, 1, "tcp", "127.0.0.1.8.1", "superuser",
		     &lo_user) == 0,
	   "v3 SET from a local user claiming owner superuser: FALSE");
	ok(rpcb_bool(4, 1, Q, 1, "tcp", "127.0.0.1.8.1", "", &lo6_user) == 0,
	   "v4 SET from ::1 port 1024: FALSE");
	n = pmap_dump(pe, 8, &lo);
	ok(n == 1 && pmap_has(pe, n, P, 3, 6, 2049) == 1,
	   "... nothing was registered (%d entries)", n);

	ok(pmap(2, P, 3, 6, 0, &lo_user) == 0,
	   "PMAP UNSET of nfsxd's program from a local user: FALSE");
	ok(rpcb_bool(3, 2, P, 3, "tcp", "", "superuser", &lo_user) == 0,
	   "v3 UNSET from a local user: FALSE");
	ok(rpcb_bool(4, 2, P, 3, "", "", "", &mapped_user) == 0,
	   "v4 UNSET from a local user: FALSE");
	ok(pmap(3, P, 3, 6, 0, &remote) == 2049,
	   "... the mapping is still there");

	mkpeer_port(&lo_user, AF_INET, "127.0.0.1", 1023);
	ok(pmap(1, Q, 1, 6, 2049, &lo_user) == 1,
	   "PMAP SET from 127.0.0.1 port 1023: TRUE");
	mkpeer_port(&lo_user, AF_INET, "127.0.0.1", 40000);
	ok(rpcb_bool(3, 1, Q, 2, "tcp", "127.0.0.1.8.1", "alice", &lo) == 1,
	   "v3 SET from root writing owner alice: TRUE");
	n = rpcb_dump(3, e, 8, &lo);
	ok(n == 3 && strcmp(e[0].owner, "superuser") == 0 &&
	   strcmp(e[1].owner, "superuser") == 0 &&
	   strcmp(e[2].owner, "superuser") == 0,
	   "... every entry is owned by superuser (%d)", n);

	m = mk(Q, 7, "tcp", "0.0.0.0.8.1", "1000");
	rpcb_map_set(&m);
	ok(rpcb_bool(3, 2, Q, 7, "tcp", "", "", &lo) == 1 &&
	   !rpcb_map_find(Q, 7, "tcp", false, &m),
	   "root UNSET removes another owner's registration");
	ok(pmap(2, P, 3, 6, 0, &lo) == 1 && pmap(3, P, 3, 6, 0, &lo) == 0,
	   "root UNSET removes nfsxd's own registration (as rpcbind)");
	rpcb_map_clear();
}

static void test_malformed(void)
{
	char s256[257];
	uint32_t pm[] = { 0, 1, 0, 0, 0, RPC_PROG_MISMATCH, 2, 4 };

	memset(s256, 'n', 256);
	s256[256] = 0;
	rpcb_map_clear();

	w_rpcb(3, 1, P, 1, "tcp", "127.0.0.1.8.1", "o");
	w.n -= 8; /* owner cut: length word only */
	ok(garbage(&lo), "v3 SET with the owner cut: GARBAGE_ARGS");
	w_call(&w, ++xid, RPCB_PROG, 3, 1);
	w_u32(&w, P);
	w_u32(&w, 1);
	w_str(&w, "tcp");
	ok(garbage(&lo), "v3 SET with 2 strings missing: GARBAGE_ARGS");
	w_rpcb(3, 1, P, 1, s256, "127.0.0.1.8.1", "o");
	ok(garbage(&lo), "v3 SET with a 256-byte netid: GARBAGE_ARGS");
	w_rpcb(3, 1, P, 1, "tcp", "127.0.0.1.8.1", s256);
	ok(garbage(&lo), "v3 SET with a 256-byte owner: GARBAGE_ARGS");
	w_rpcb(4, 3, P, 1, "tcp", s256, "");
	ok(garbage(&lo), "v4 GETADDR with a 256-byte address: GARBAGE_ARGS");
	w_call(&w, ++xid, RPCB_PROG, 3, 1);
	w_u32(&w, P);
	w_u32(&w, 1);
	w_bytes(&w, "tc\0p", 4);
	w_str(&w, "127.0.0.1.8.1");
	w_str(&w, "o");
	ok(garbage(&lo), "v3 SET with a NUL in the netid: GARBAGE_ARGS");
	w_call(&w, ++xid, RPCB_PROG, 3, 1);
	w_u32(&w, P);
	w_u32(&w, 1);
	w_str(&w, "tcp");
	w_bytes(&w, "127.0.0.1.8.1\0", 14);
	w_str(&w, "o");
	ok(garbage(&lo), "v3 SET with a NUL in the address: GARBAGE_ARGS");
	w_call(&w, ++xid, RPCB_PROG, 3, 1);
	w_u32(&w, P);
	w_u32(&w, 1);
	w_str(&w, "tcp");
	w_str(&w, "127.0.0.1.8.1");
	w_u32(&w, 0xffffffffu);
	ok(garbage(&lo), "v3 SET with owner length 0xFFFFFFFF: GARBAGE_ARGS");
	w_rpcb(3, 1, P, 1, "tcp", "127.0.0.1.8.1", "o");
	w_u32(&w, 0);
	ok(garbage(&lo), "v3 SET with a trailing word: GARBAGE_ARGS");
	w_rpcb(4, 9, P, 1, "tcp", "", "");
	w.n -= 1;
	ok(garbage(&lo), "v4 GETVERSADDR one byte short: GARBAGE_ARGS");
	w_rpcb(4, 11, P, 1, "tcp", "", "");
	w.n -= 4;
	ok(garbage(&lo), "v4 GETADDRLIST without the owner: GARBAGE_ARGS");
	w_call(&w, ++xid, RPCB_PROG, 3, 4);
	w_u32(&w, 0);
	ok(garbage(&lo), "v3 DUMP with an argument: GARBAGE_ARGS");
	ok(rpcb_map_snapshot(snapbuf, RPCB_MAP_MAX) == 0,
	   "no malformed SET registered anything");

	/* Long but legal strings: the reply is an answer, not an error. */
	ok(rpcb_bool(3, 1, P, 1, "tcp", "127.0.0.1.8.1",
		     "owner-31-bytes-long-xxxxxxxxxxx", &lo) == 1, "v3 SET with a 31-byte owner: TRUE");
	rpcb_map_clear();

	w_call(&w, 77, RPCB_PROG, 5, 0);
	pm[0] = 77;
	treq_run(&t, &reg, NULL, &w, &lo);
	ok(t.sent && words_eq(t.rep, t.rep_len, pm, 8),
	   "rpcbind version 5: PROG_MISMATCH 2..4");
	w_call(&w, 78, RPCB_PROG, 2, 5);
	treq_run(&t, &reg, NULL, &w, &lo);
	ok(rep_accepted(&t, 78, RPC_PROC_UNAVAIL) && t.rep_len == 24,
	   "PMAP CALLIT: PROC_UNAVAIL");
	w_call(&w, 79, RPCB_PROG, 4, 13);
	treq_run(&t, &reg, NULL, &w, &lo);
	ok(rep_accepted(&t, 79, RPC_PROC_UNAVAIL), "v4 proc 13: PROC_UNAVAIL");
	w_call(&w, 80, RPCB_PROG, 4, 0);
	treq_run(&t, &reg, NULL, &w, &remote);
	ok(rep_accepted(&t, 80, RPC_SUCCESS) && t.rep_len == 24, "v4 NULL");
}

int main(void)
{
	mkpeer(&lo, AF_INET, "127.0.0.1");
	mkpeer(&remote, AF_INET, "192.0.2.1");
	mkpeer(&lo6, AF_INET6, "::1");
	mkpeer(&remote6, AF_INET6, "2001:db8::5");
	mkpeer(&mapped_lo, AF_INET6, "::ffff:127.0.0.1");
	mkpeer_port(&lo_user, AF_INET, "127.0.0.1", 40000);
	mkpeer_port(&lo6_user, AF_INET6, "::1", 1024);
	mkpeer_port(&mapped_user, AF_INET6, "::ffff:127.0.0.1", 40000);
	rpc_registry_add(&reg, &rpcb_program);
	treq_init(&t);

	test_map();
	test_uaddr();
	test_pmap();
	test_rpcb3();
	test_rpcb4();
	test_ownership();
	test_malformed();

	treq_fini(&t);
	rpcb_map_clear();
	return tap_done();
}
