/* SPDX-License-Identifier: MIT */
/*
 * rpcbind procedures. Arguments are flat (a mapping of four words, an
 * rpcb of two words and three strings) and are decoded with the XDR
 * primitives; lists are encoded straight from a snapshot of the table,
 * one entry at a time, never as a linked structure.
 */
#include "rpcbind/service.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "rpc/req.h"
#include "rpcbind/map.h"
#include "xdr/gen/rpcbind.h"

#define IPPROTO_TCP_NUM PMAP_IPPROTO_TCP
#define IPPROTO_UDP_NUM PMAP_IPPROTO_UDP
#define RPCB_STRING_MAX 255u

/* A consistent copy of the table for the list procedures. */
static __thread struct rpcb_mapping snap[RPCB_MAP_MAX];

struct rpcb_args {
	uint32_t prog, vers;
	char netid[RPCB_NETID_MAX];
	char addr[UADDR_MAX];
	char owner[RPCB_OWNER_MAX];
};

static bool peer_is_loopback(const struct rpc_req *req)
{
	const struct sockaddr_storage *ss = req->peer;

	if (!ss)
		return false;
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s = (const void *)ss;

		return (ntohl(s->sin_addr.s_addr) >> 24) == 127;
	}
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const void *)ss;
		const uint8_t *a = s->sin6_addr.s6_addr;

		if (IN6_IS_ADDR_LOOPBACK(&s->sin6_addr))
			return true;
		return IN6_IS_ADDR_V4MAPPED(&s->sin6_addr) && a[12] == 127;
	}
	return false;
}

static uint16_t peer_port(const struct rpc_req *req)
{
	const struct sockaddr_storage *ss = req->peer;

	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)(const void *)ss)->sin_port);
	return ntohs(((const struct sockaddr_in6 *)(const void *)ss)->sin6_port);
}

/*
 * May this caller change the table? Only root on this host: a loopback
 * peer whose source port is privileged (< 1024), which only root (or
 * CAP_NET_BIND_SERVICE) can bind. rpcbind calls such a caller
 * "superuser" (is_localroot) and records that as the owner; it also
 * takes SET from other local callers, as owner "unknown" (or their uid
 * over its AF_UNIX socket), but "unknown" is every unprivileged process
 * on the host, so any of them could replace or remove what another
 * registered. nfsxd serves rpcbind over TCP only, so it has no
 * SO_PEERCRED to tell users apart and takes changes from root only.
 * The owner a client writes in an RPCBIND SET is ignored, as rpcbind
 * does: it is the caller's claim, not its identity.
 */
static bool caller_is_local_root(const struct rpc_req *req)
{
	return peer_is_loopback(req) && peer_port(req) < 1024;
}

static const char *transport_netid(const struct rpc_req *req)
{
	return req->peer && req->peer->ss_family == AF_INET6 ? "tcp6" : "tcp";
}

static const char *prot_netid(uint32_t prot)
{
	switch (prot) {
	case IPPROTO_TCP_NUM:
		return "tcp";
	case IPPROTO_UDP_NUM:
		return "udp";
	}
	return NULL;
}

/* A string<> view into a C string; too long or holding NUL fails. */
static bool cstr(const struct xdr_bytes *b, char *out, size_t size)
{
	if (b->len >= size || memchr(b->data, 0, b->len))
		return false;
	memcpy(out, b->data, b->len);
	out[b->len] = 0;
	return true;
}

/* Arguments decode with the generated codecs and must be consumed exactly. */
static bool dec_mapping(struct xdr_dec *d, uint32_t m[4])
{
	struct mapping map;

	if (!xdr_dec_mapping(d, &map) || xdr_dec_left(d) != 0)
		return false;
	m[0] = map.prog;
	m[1] = map.vers;
	m[2] = map.prot;
	m[3] = map.port;
	return true;
}

static bool dec_rpcb(struct xdr_dec *d, struct rpcb_args *a)
{
	struct rpcb r;

	if (!xdr_dec_rpcb(d, &r) || xdr_dec_left(d) != 0)
		return false;
	a->prog = r.r_prog;
	a->vers = r.r_vers;
	return cstr(&r.r_netid, a->netid, sizeof(a->netid)) &&
	       cstr(&r.r_addr, a->addr, sizeof(a->addr)) &&
	       cstr(&r.r_owner, a->owner, sizeof(a->owner));
}

static bool enc_str(struct xdr_enc *e, const char *s)
{
	return xdr_enc_bytes(e, s, (uint32_t)strlen(s), RPCB_STRING_MAX);
}

/*
 * A mapping registered on a wildcard address is reported with the
 * address the client reached us on, as rpcbind does.
 */
static void public_uaddr(const struct rpc_req *req, const char *uaddr,
			 char *out, size_t len)
{
	struct sockaddr_storage ss;
	char host[UADDR_MAX];
	uint16_t port;

	if (uaddr_split(uaddr, host, sizeof(host), &port) == 0 &&
	    (strcmp(host, "0.0.0.0") == 0 || strcmp(host, "::") == 0) &&
	    rpc_req_local_addr(req, &ss) == 0) {
		if (ss.ss_family == AF_INET)
			((struct sockaddr_in *)&ss)->sin_port = htons(port);
		else
			((struct sockaddr_in6 *)&ss)->sin6_port = htons(port);
		if (uaddr_from_sockaddr(&ss, out, len) == 0)
			return;
	}
	snprintf(out, len, "%s", uaddr);
}

/* PMAP version 2 --------------------------------------------------- */

static enum rpc_accept_stat pmap_set(struct rpc_req *req)
{
	struct rpcb_mapping m = { 0 };
	const char *netid;
	uint32_t a[4];
	bool ok = false;

	if (!dec_mapping(&req->args, a))
		return RPC_GARBAGE_ARGS;
	netid = prot_netid(a[2]);
	if (caller_is_local_root(req) && netid && a[3] && a[3] <= 65535) {
		m.prog = a[0];
		m.vers = a[1];
		snprintf(m.netid, sizeof(m.netid), "%s", netid);
		uaddr_make("0.0.0.0", (uint16_t)a[3], m.uaddr, sizeof(m.uaddr));
		snprintf(m.owner, sizeof(m.owner), RPCB_OWNER_ROOT);
		ok = rpcb_map_set(&m);
	}
	return xdr_enc_bool(&req->enc, ok) ? RPC_SUCCESS : RPC_SYSTEM_ERR;
}

static enum rpc_accept_stat pmap_unset(struct rpc_req *req)
{
	uint32_t a[4];
	bool ok = false;

	if (!dec_mapping(&req->args, a))
		return RPC_GARBAGE_ARGS;
	/*
	 * RFC 1833: the protocol and port fields are ignored. Root removes
	 * any owner's registration, nfsxd's own included, as rpcbind lets
	 * its "superuser" do.
	 */
	if (caller_is_local_root(req))
		ok = rpcb_map_unset(a[0], a[1], NULL, NULL);
	return xdr_enc_bool(&req->enc, ok) ? RPC_SUCCESS : RPC_SYSTEM_ERR;
}

static enum rpc_accept_stat pmap_getport(struct rpc_req *req)
{
	struct rpcb_mapping m;
	char host[UADDR_MAX];
	const char *netid;
	uint16_t port = 0;
	uint32_t a[4];

	if (!dec_mapping(&req->args, a))
		return RPC_GARBAGE_ARGS;
	netid = prot_netid(a[2]);
	if (netid && rpcb_map_find(a[0], a[1], netid, true, &m))
		if (uaddr_split(m.uaddr, host, sizeof(host), &port) < 0)
			port = 0;
	return xdr_enc_u32(&req->enc, port) ? RPC_SUCCESS : RPC_SYSTEM_ERR;
}

static enum rpc_accept_stat pmap_dump(struct rpc_req *req)
{
	struct xdr_enc *e = &req->enc;
	size_t i, n;

	if (xdr_dec_left(&req->args))
		return RPC_GARBAGE_ARGS;
	n = rpcb_map_snapshot(snap, RPCB_MAP_MAX);
	for (i = 0; i < n; i++) {
		char host[UADDR_MAX];
		uint16_t port;
		uint32_t prot;

		if (strcmp(snap[i].netid, "tcp") == 0)
			prot = IPPROTO_TCP_NUM;
		else if (strcmp(snap[i].netid, "udp") == 0)
			prot = IPPROTO_UDP_NUM;
		else
			continue;
		if (uaddr_split(snap[i].uaddr, host, sizeof(host), &port) < 0)
			continue;
		if (!xdr_enc_bool(e, true) || !xdr_enc_u32(e, snap[i].prog) ||
		    !xdr_enc_u32(e, snap[i].vers) || !xdr_enc_u32(e, prot) ||
		    !xdr_enc_u32(e, port))
			return RPC_SYSTEM_ERR;
	}
	return xdr_enc_bool(e, false) ? RPC_SUCCESS : RPC_SYSTEM_ERR;
}

/* RPCBIND versions 3 and 4 ------------------------------------------ */

static enum rpc_accept_stat rpcb_set(struct rpc_req *req)
{
	struct rpcb_mapping m = { 0 };
	struct rpcb_args a;
	char host[UADDR_MAX];
	uint16_t port;
	bool ok = false;

	if (!dec_rpcb(&req->args, &a))
		return RPC_GARBAGE_ARGS;
	if (caller_is_local_root(req) && a.netid[0] &&
	    uaddr_split(a.addr, host, sizeof(host), &port) == 0) {
		m.prog = a.prog;
		m.vers = a.vers;
		memcpy(m.netid, a.netid, sizeof(m.netid));
		memcpy(m.uaddr, a.addr, sizeof(m.uaddr));
		snprintf(m.owner, sizeof(m.owner), RPCB_OWNER_ROOT);
		ok = rpcb_map_set(&m);
	}
	return xdr_enc_bool(&req->enc, ok) ? RPC_SUCCESS : RPC_SYSTEM_ERR;
}

static enum rpc_accept_stat rpcb_unset(struct rpc_req *req)
{
	struct rpcb_args a;
	bool ok = false;

	if (!dec_rpcb(&req->args, &a))
		return RPC_GARBAGE_ARGS;
	if (caller_is_local_root(req))
		ok = rpcb_map_unset(a.prog, a.vers, a.netid, NULL);
	return xdr_enc_bool(&req->enc, ok) ? RPC_SUCCESS : RPC_SYSTEM_ERR;
}

static enum rpc_accept_stat getaddr_common(struct rpc_req *req, bool any_vers)
{
	struct rpcb_mapping m;
	struct rpcb_args a;
	char out[UADDR_MAX] = "";

	if (!dec_rpcb(&req->args, &a))
		return RPC_GARBAGE_ARGS;
	/* Like rpcbind: the netid of the transport asked on, not r_netid. */
	if (rpcb_map_find(a.prog, a.vers, transport_netid(req), any_vers, &m))
		public_uaddr(req, m.uaddr, out, sizeof(out));
	return enc_str(&req->enc, out) ? RPC_SUCCESS : RPC_SYSTEM_ERR;
}

static enum rpc_accept_stat rpcb_getaddr(struct rpc_req *req)
{
	return getaddr_common(req, true);
}

static enum rpc_accept_stat rpcb_getversaddr(struct rpc_req *req)
{
	return getaddr_common(req, false);
}

static enum rpc_accept_stat rpcb_dump(struct rpc_req *req)
{
	struct xdr_enc *e = &req->enc;
	size_t i, n;

	if (xdr_dec_left(&req->args))
		return RPC_GARBAGE_ARGS;
	n = rpcb_map_snapshot(snap, RPCB_MAP_MAX);
	for (i = 0; i < n; i++) {
		char addr[UADDR_MAX];

		public_uaddr(req, snap[i].uaddr, addr, sizeof(addr));
		if (!xdr_enc_bool(e, true) || !xdr_enc_u32(e, snap[i].prog) ||
		    !xdr_enc_u32(e, snap[i].vers) || !enc_str(e, snap[i].netid) ||
		    !enc_str(e, addr) || !enc_str(e, snap[i].owner))
			return RPC_SYSTEM_ERR;
	}
	return xdr_enc_bool(e, false) ? RPC_SUCCESS : RPC_SYSTEM_ERR;
}

static enum rpc_accept_stat rpcb_gettime(struct rpc_req *req)
{
	if (xdr_dec_left(&req->args))
		return RPC_GARBAGE_ARGS;
	return xdr_enc_u32(&req->enc, (uint32_t)time(NULL)) ? RPC_SUCCESS
							     : RPC_SYSTEM_ERR;
}

static enum rpc_accept_stat rpcb_getaddrlist(struct rpc_req *req)
{
	struct xdr_enc *e = &req->enc;
	struct rpcb_args a;
	size_t i, n;

	if (!dec_rpcb(&req->args, &a))
		return RPC_GARBAGE_ARGS;
	n = rpcb_map_snapshot(snap, RPCB_MAP_MAX);
	for (i = 0; i < n; i++) {
		const struct rpcb_mapping *m = &snap[i];
		bool tcp = strncmp(m->netid, "tcp", 3) == 0;
		bool six = m->netid[3] == '6';
		char addr[UADDR_MAX];

		if (m->prog != a.prog || m->vers != a.vers ||
		    (strncmp(m->netid, "udp", 3) && !tcp))
			continue;
		public_uaddr(req, m->uaddr, addr, sizeof(addr));
		if (!xdr_enc_bool(e, true) || !enc_str(e, addr) ||
		    !enc_str(e, m->netid) ||
		    !xdr_enc_u32(e, tcp ? NC_TPI_COTS_ORD : NC_TPI_CLTS) ||
		    !enc_str(e, six ? "inet6" : "inet") ||
		    !enc_str(e, tcp ? "tcp" : "udp"))
			return RPC_SYSTEM_ERR;
	}
	return xdr_enc_bool(e, false) ? RPC_SUCCESS : RPC_SYSTEM_ERR;
}

/*
 * CALLIT/INDIRECT/BCAST (indirect calls, meant for UDP broadcast),
 * UADDR2TADDR/TADDR2UADDR and GETSTAT are not implemented: their slots
 * are empty and answer PROC_UNAVAIL.
 */
#define LIST_REPLY_MAX (RPCB_MAP_MAX * 600u + 8u)

static const struct rpc_proc pmap2_procs[] = {
	[0] = RPC_PROC("NULL", rpc_proc_null, 0, 0),
	[1] = RPC_PROC("SET", pmap_set, 0, 4),
	[2] = RPC_PROC("UNSET", pmap_unset, 0, 4),
	[3] = RPC_PROC("GETPORT", pmap_getport, 0, 4),
	[4] = RPC_PROC("DUMP", pmap_dump, 0, RPCB_MAP_MAX * 20u + 4u),
	[5] = RPC_PROC("CALLIT", NULL, 0, 0),
};

static const struct rpc_proc rpcb3_procs[] = {
	[0] = RPC_PROC("NULL", rpc_proc_null, 0, 0),
	[1] = RPC_PROC("SET", rpcb_set, 0, 4),
	[2] = RPC_PROC("UNSET", rpcb_unset, 0, 4),
	[3] = RPC_PROC("GETADDR", rpcb_getaddr, 0, 4 + UADDR_MAX),
	[4] = RPC_PROC("DUMP", rpcb_dump, 0, LIST_REPLY_MAX),
	[5] = RPC_PROC("CALLIT", NULL, 0, 0),
	[6] = RPC_PROC("GETTIME", rpcb_gettime, 0, 4),
	[7] = RPC_PROC("UADDR2TADDR", NULL, 0, 0),
	[8] = RPC_PROC("TADDR2UADDR", NULL, 0, 0),
};

static const struct rpc_proc rpcb4_procs[] = {
	[0] = RPC_PROC("NULL", rpc_proc_null, 0, 0),
	[1] = RPC_PROC("SET", rpcb_set, 0, 4),
	[2] = RPC_PROC("UNSET", rpcb_unset, 0, 4),
	[3] = RPC_PROC("GETADDR", rpcb_getaddr, 0, 4 + UADDR_MAX),
	[4] = RPC_PROC("DUMP", rpcb_dump, 0, LIST_REPLY_MAX),
	[5] = RPC_PROC("BCAST", NULL, 0, 0),
	[6] = RPC_PROC("GETTIME", rpcb_gettime, 0, 4),
	[7] = RPC_PROC("UADDR2TADDR", NULL, 0, 0),
	[8] = RPC_PROC("TADDR2UADDR", NULL, 0, 0),
	[9] = RPC_PROC("GETVERSADDR", rpcb_getversaddr, 0, 4 + UADDR_MAX),
	[10] = RPC_PROC("INDIRECT", NULL, 0, 0),
	[11] = RPC_PROC("GETADDRLIST", rpcb_getaddrlist, 0, LIST_REPLY_MAX),
	[12] = RPC_PROC("GETSTAT", NULL, 0, 0),
};

#define NPROCS(a) (uint32_t)(sizeof(a) / sizeof((a)[0]))

static const struct rpc_version rpcb_versions[] = {
	{ 2, NPROCS(pmap2_procs), pmap2_procs },
	{ 3, NPROCS(rpcb3_procs), rpcb3_procs },
	{ 4, NPROCS(rpcb4_procs), rpcb4_procs },
};

const struct rpc_program rpcb_program = {
	.prog = RPCB_PROG,
	.name = "rpcbind",
	.nvers = NPROCS(rpcb_versions),
	.versions = rpcb_versions,
};
