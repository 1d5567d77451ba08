/* SPDX-License-Identifier: MIT */
/*
 * ONC RPC reply header (RFC 5531 section 9), decoded by hand.
 *
 * DESIGN
 * Every word is read through the bounded xdr_dec cursor; the verifier
 * body is skipped (at most 400 bytes, any flavor: AUTH_SYS servers may
 * answer AUTH_SHORT). RPC-level failures map to negative errnos, so a
 * caller sees one error space: PROG_UNAVAIL/PROG_MISMATCH/RPC_MISMATCH
 * -EPROTONOSUPPORT, PROC_UNAVAIL -EOPNOTSUPP, GARBAGE_ARGS -EINVAL,
 * SYSTEM_ERR -EREMOTEIO, AUTH_ERROR -EACCES, anything malformed or
 * unknown -EPROTO.
 */
#ifndef NFSX_CLIENT_REPLY_H
#define NFSX_CLIENT_REPLY_H

#include <stddef.h>
#include <stdint.h>

#include "xdr/xdr.h"

enum nc_reply_result {
	NC_REPLY_OK = 0,    /* accepted, SUCCESS: @d is at the results */
	NC_REPLY_ERR,       /* a reply to r->xid, failed: r->err < 0 */
	NC_REPLY_DROP,      /* not a reply (too short for xid and type, or a call) */
};

struct nc_reply {
	uint32_t xid;
	int err;            /* 0 or a negative errno (NC_REPLY_ERR) */
	uint32_t reply_stat;   /* MSG_ACCEPTED / MSG_DENIED */
	uint32_t stat;      /* accept_stat, or reject_stat when denied */
	uint32_t auth_stat; /* AUTH_ERROR detail */
	uint32_t low, high; /* PROG_MISMATCH / RPC_MISMATCH versions */
	uint32_t verf_flavor;
};

enum nc_reply_result nc_reply_decode(struct xdr_dec *d, struct nc_reply *r);

/*
 * Decode arena per byte of reply: the densest list element is NFSv3's
 * entryplus3, 160 bytes in memory for at least 32 on the wire (5x);
 * MOUNT's lists are at most 3.4x. tests/unit/client/test_reply.c checks
 * the densest replies decode within this bound.
 */
#define NC_ARENA_RATIO 5u
#define NC_ARENA_EXTRA 256u

/* Decode arena for a reply record of @len bytes. */
static inline size_t nc_arena_size(size_t len)
{
	return len * NC_ARENA_RATIO + NC_ARENA_EXTRA;
}

#endif
