/* SPDX-License-Identifier: MIT */
/*
 * ONC RPC message header (RFC 5531): decoding of the call header with
 * its credential, encoding of the reply headers.
 *
 * DESIGN
 * The call header is decoded by hand, in wire order, because the order
 * decides the answer: a wrong RPC version is reported before a bad
 * credential, and a bad credential before a bad verifier (as Linux's
 * svc_process does). The AUTH_SYS body is decoded into fixed storage so
 * no arena is needed before the caller is authenticated.
 */
#ifndef NFSX_RPC_MSG_H
#define NFSX_RPC_MSG_H

#include <stdbool.h>
#include <stdint.h>

#include "xdr/xdr.h"

#define RPC_VERSION 2u
#define RPC_AUTH_MAX 400u      /* opaque_auth body<400> */
#define RPC_AUTHSYS_MACHINE_MAX 255u
#define RPC_AUTHSYS_NGROUPS 16u

/* Wire values, RFC 5531 section 9 (also in the generated xdr/gen/rpc.h). */
enum {
	RPC_MSG_CALL = 0,
	RPC_MSG_REPLY = 1,
	RPC_REPLY_ACCEPTED = 0,
	RPC_REPLY_DENIED = 1,
	RPC_DENIED_MISMATCH = 0,
	RPC_DENIED_AUTH = 1,
};

enum rpc_accept_stat {
	RPC_SUCCESS = 0,
	RPC_PROG_UNAVAIL = 1,
	RPC_PROG_MISMATCH = 2,
	RPC_PROC_UNAVAIL = 3,
	RPC_GARBAGE_ARGS = 4,
	RPC_SYSTEM_ERR = 5,
	/* Never on the wire: a handler tried on an event loop (see
	 * RPC_PROC_TRY_INLINE) would have to block; run it on a worker. */
	RPC_WOULD_BLOCK = 0x7fff,
};

enum rpc_auth_flavor {
	RPC_AUTH_NONE = 0,
	RPC_AUTH_SYS = 1,
};

enum rpc_auth_stat {
	RPC_AUTH_OK = 0,
	RPC_AUTH_BADCRED = 1,
	RPC_AUTH_REJECTEDCRED = 2,
	RPC_AUTH_BADVERF = 3,
	RPC_AUTH_REJECTEDVERF = 4,
	RPC_AUTH_TOOWEAK = 5,
};

struct rpc_cred {
	uint32_t flavor;
	uint32_t stamp;
	uint32_t uid;
	uint32_t gid;
	uint32_t ngids;
	uint32_t gids[RPC_AUTHSYS_NGROUPS];
	struct xdr_bytes machine; /* view into the record */
};

/* An opaque_auth as it came: flavour and a view of its body. */
struct rpc_opaque_auth {
	uint32_t flavor;
	struct xdr_bytes body;
};

struct rpc_call {
	uint32_t xid;
	uint32_t prog;
	uint32_t vers;
	uint32_t proc;
	struct rpc_cred cred;
	/* Set only for a flavour the caller checks (%RPC_HDR_FLAVOR). */
	struct rpc_opaque_auth raw_cred;
	struct rpc_opaque_auth raw_verf;
};

enum rpc_hdr_result {
	RPC_HDR_OK = 0,      /* decoded; @d now points at the arguments */
	RPC_HDR_DROP,        /* not a call we can answer: send nothing */
	RPC_HDR_MISMATCH,    /* reply RPC_MISMATCH */
	RPC_HDR_AUTHERR,     /* reply AUTH_ERROR with *auth_stat */
	/* A credential of one of the caller's flavours: decoded as far as
	 * raw_cred and raw_verf, @d at the arguments; the caller checks
	 * them (call->cred is the flavour with nobody's identity). */
	RPC_HDR_FLAVOR,
};

/*
 * rpc_decode_call - decode a call header up to and including the verifier.
 * Return values: see enum rpc_hdr_result. call->xid is valid for every
 * result but %RPC_HDR_DROP.
 */
enum rpc_hdr_result rpc_decode_call(struct xdr_dec *d, struct rpc_call *call,
				    enum rpc_auth_stat *auth_stat);

/*
 * rpc_decode_call_flavors - rpc_decode_call(), except that a credential
 * whose flavour is one of the @n in @flavors (never AUTH_NONE or
 * AUTH_SYS, which are checked here) is left to the caller.
 * Return values: as rpc_decode_call(), and %RPC_HDR_FLAVOR for those
 * (the verifier must still be a well-formed opaque_auth: else
 * %RPC_HDR_AUTHERR with AUTH_BADVERF).
 */
enum rpc_hdr_result rpc_decode_call_flavors(struct xdr_dec *d, struct rpc_call *call,
					    enum rpc_auth_stat *auth_stat,
					    const uint32_t *flavors, unsigned int n);

/* AUTH_SYS body (authsys_parms) from exactly @len bytes. */
bool rpc_decode_authsys(const uint8_t *body, uint32_t len,
			struct rpc_cred *cred);

/*
 * The verifier of an accepted reply. Chosen per call by the check of its
 * credential (an RPCSEC_GSS reply carries a checksum of the call's
 * sequence number, RFC 2203 section 5.3.3.2), so the accepted header's
 * size varies with the call: code that needs it asks
 * rpc_accepted_hdr_len(), never a constant. @body must stay valid until
 * the reply is encoded (rpc_req_set_verf() copies it into the request).
 */
struct rpc_verf {
	uint32_t flavor;
	uint32_t len;          /* at most RPC_AUTH_MAX */
	const uint8_t *body;
};

/* AUTH_NONE with an empty body: every reply's verifier but RPCSEC_GSS's. */
extern const struct rpc_verf rpc_verf_none;

/* Accepted reply header with an empty verifier: xid, REPLY, ACCEPTED,
 * verifier flavour and length, accept_stat. */
#define RPC_ACCEPTED_HDR_MIN 24u

/* Return values: bytes of an accepted reply header with verifier @v, up
 * to and including the accept_stat; results start there. */
static inline uint32_t rpc_accepted_hdr_len(const struct rpc_verf *v)
{
	return RPC_ACCEPTED_HDR_MIN + xdr_pad(v->len);
}

/* Reply headers. Each returns false when @e has no room. */
bool rpc_encode_accepted(struct xdr_enc *e, uint32_t xid,
			 const struct rpc_verf *v, enum rpc_accept_stat stat);
bool rpc_encode_prog_mismatch(struct xdr_enc *e, uint32_t xid,
			      const struct rpc_verf *v, uint32_t low,
			      uint32_t high);
bool rpc_encode_rpc_mismatch(struct xdr_enc *e, uint32_t xid);
bool rpc_encode_auth_error(struct xdr_enc *e, uint32_t xid,
			   enum rpc_auth_stat stat);

#endif
