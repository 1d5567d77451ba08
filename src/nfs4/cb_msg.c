/* SPDX-License-Identifier: MIT */
/* Callback addresses and CB_COMPOUND messages: see cb_msg.h. */
#include "nfs4/cb_msg.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "xdr/nfs4_compound.h"

/* "n" of 1-3 decimal digits, 0..255, from @s of @len bytes. */
static int octet(const char *s, size_t len)
{
	int v = 0;
	size_t i;

	if (len == 0 || len > 3)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v <= 255 ? v : -1;
}

int nfs4_cb_addr_parse(const char *netid, const char *uaddr, struct sockaddr_storage *ss,
		       socklen_t *len)
{
	char host[INET6_ADDRSTRLEN + 1];
	const char *p2, *p1;
	size_t hlen;
	int hi, lo, port;
	bool v6;

	if (strcmp(netid, "tcp") == 0)
		v6 = false;
	else if (strcmp(netid, "tcp6") == 0)
		v6 = true;
	else
		return -1;
	p2 = strrchr(uaddr, '.');
	if (!p2 || p2 == uaddr)
		return -1;
	for (p1 = p2 - 1; p1 > uaddr && *p1 != '.'; p1--)
		;
	if (*p1 != '.' || p1 == uaddr)
		return -1;
	hi = octet(p1 + 1, (size_t)(p2 - p1 - 1));
	lo = octet(p2 + 1, strlen(p2 + 1));
	if (hi < 0 || lo < 0)
		return -1;
	port = hi << 8 | lo;
	hlen = (size_t)(p1 - uaddr);
	if (port == 0 || hlen >= sizeof(host))
		return -1;
	memcpy(host, uaddr, hlen);
	host[hlen] = '\0';
	memset(ss, 0, sizeof(*ss));
	if (v6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		if (inet_pton(AF_INET6, host, &s6->sin6_addr) != 1)
			return -1;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		/* inet_pton's AF_INET takes exactly four decimal parts */
		if (inet_pton(AF_INET, host, &s4->sin_addr) != 1)
			return -1;
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		*len = sizeof(*s4);
	}
	return 0;
}

bool nfs4_cb_enc_compound(struct xdr_enc *e, uint32_t minorversion, uint32_t ident,
			  const struct nfs_cb_argop4 *ops, uint32_t n)
{
	struct nfs4_args_head h = {
		.minorversion = minorversion,
		.callback_ident = ident,
		.nops = n,
	};
	uint32_t i;

	if (!nfs4_enc_cb_compound_args_head(e, &h))
		return false;
	for (i = 0; i < n; i++)
		if (!xdr_enc_nfs_cb_argop4(e, &ops[i]))
			return false;
	return true;
}

bool nfs4_cb_dec_compound_res(const uint8_t *res, size_t len, const uint32_t *ops, uint32_t n,
			      struct nfs4_cb_res *out)
{
	uint64_t mem[512];        /* one result's decoded arrays (CB_GETATTR's attributes) */
	struct xdr_arena arena;
	struct nfs4_res_head h;
	struct xdr_dec d;
	uint32_t i;

	memset(out, 0, sizeof(*out));
	xdr_arena_init(&arena, mem, sizeof(mem));
	xdr_dec_init(&d, res, len, &arena);
	if (!nfs4_dec_cb_compound_res_head(&d, &h) || h.nops > n || n > NFS4_CB_OPS_MAX)
		return false;
	out->status = h.status;
	out->nops = h.nops;
	for (i = 0; i < h.nops; i++) {
		struct nfs_cb_resop4 r;

		xdr_arena_reset(&arena);
		if (!xdr_dec_nfs_cb_resop4(&d, &r) || r.resop != ops[i])
			return false;
		if (r.resop == OP_CB_SEQUENCE) {
			out->opstatus[i] = r.u.opcbsequence.csr_status;
			if (i == 0 && r.u.opcbsequence.csr_status == NFS4_OK)
				out->seq = r.u.opcbsequence.u.csr_resok4;
		} else {
			/* Every other result starts with its status, and
			 * the union's members all start at its start. */
			out->opstatus[i] = r.u.opcbillegal.status;
		}
	}
	/* A failed operation is the last one with a result. */
	for (i = 0; i + 1 < h.nops; i++)
		if (out->opstatus[i] != NFS4_OK)
			return false;
	return xdr_dec_left(&d) == 0;
}
