/* SPDX-License-Identifier: MIT */
/*
 * NFSv4 callback messages as the server writes and reads them, with no
 * socket in sight (the fuzz target and the unit test drive them alone):
 * the client's callback address, CB_COMPOUND arguments, and the results
 * of a CB_COMPOUND the server sent.
 *
 * DESIGN
 * - Universal addresses (RFC 5665 section 5.2.3.3): "h1.h2.h3.h4.p1.p2"
 *   for netid "tcp", an IPv6 address and ".p1.p2" for "tcp6". The port
 *   is the last two dot-separated numbers, each 0-255, decimal digits
 *   only; the rest must be an address of the netid's family
 *   (inet_pton). Other netids (udp, rdma, local...) are refused: nfsxd
 *   calls back over TCP only, as knfsd does for 4.0. Port 0 is refused.
 * - A CB_COMPOUND reply is decoded whole and bounded: the head, at most
 *   as many results as operations were sent, each for the operation
 *   sent at its place, nothing left over; each result decodes into a
 *   fixed arena, so a client's reply cannot make the server allocate.
 */
#ifndef NFSX_NFS4_CB_MSG_H
#define NFSX_NFS4_CB_MSG_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "xdr/gen/nfs4.h"

/* Operations of one CB_COMPOUND the server sends at most. */
#define NFS4_CB_OPS_MAX 4u

/*
 * nfs4_cb_addr_parse - the socket address of callback netid @netid and
 * universal address @uaddr (NUL-terminated strings).
 * Return values: 0 with @ss and *@len set; -1 for a netid other than
 * "tcp" or "tcp6", or an address that is not exactly of its form.
 */
int nfs4_cb_addr_parse(const char *netid, const char *uaddr, struct sockaddr_storage *ss,
		       socklen_t *len);

/*
 * nfs4_cb_enc_compound - CB_COMPOUND4args: an empty tag, @minorversion,
 * @ident (callback_ident: SETCLIENTID's in 4.0, 0 in 4.1) and the @n
 * operations @ops.
 * Return values: false when @e lacks room or an operation does not
 * encode.
 */
bool nfs4_cb_enc_compound(struct xdr_enc *e, uint32_t minorversion, uint32_t ident,
			  const struct nfs_cb_argop4 *ops, uint32_t n);

/* What a CB_COMPOUND's reply said. */
struct nfs4_cb_res {
	enum nfsstat4 status;                  /* the CB_COMPOUND's */
	uint32_t nops;                         /* results (<= operations sent) */
	enum nfsstat4 opstatus[NFS4_CB_OPS_MAX];
	/* CB_SEQUENCE's result, when the first operation was one and
	 * succeeded (4.1). */
	struct CB_SEQUENCE4resok seq;
};

/*
 * nfs4_cb_dec_compound_res - the results @res (@len bytes, after the RPC
 * reply header) of a CB_COMPOUND whose operations were @ops[0..@n).
 * Return values: true with @out filled; false when the results do not
 * decode exactly (a result for another operation, more results than
 * operations, a status that is not an nfsstat4, bytes left over).
 */
bool nfs4_cb_dec_compound_res(const uint8_t *res, size_t len, const uint32_t *ops, uint32_t n,
			      struct nfs4_cb_res *out);

#endif
