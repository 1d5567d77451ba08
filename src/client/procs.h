/* SPDX-License-Identifier: MIT */
/*
 * Helpers for procedure tables: typed adapters from the generated
 * codecs to the core's untyped encode/decode pointers (calling a codec
 * through a mismatched function pointer type would be undefined), and
 * one entry per procedure.
 */
#ifndef NFSX_CLIENT_PROCS_H
#define NFSX_CLIENT_PROCS_H

#include "client/internal.h"

#define NC_ENC(T, argtype) \
	static bool enc_##T(void *e, const void *a) \
	{ \
		return xdr_enc_##T((struct xdr_enc *)e, (const argtype *)a); \
	}

#define NC_DEC(T, restype) \
	static bool dec_##T(void *d, void *r) \
	{ \
		return xdr_dec_##T((struct xdr_dec *)d, (restype *)r); \
	}

static inline bool nc_enc_void(void *e, const void *a)
{
	(void)e;
	(void)a;
	return true;
}

/* STATUS: the result starts with its status (nfsx_proc.res_status) */
#define NC_PROC(PROG, VERS, NUM, NAME, ENC, DEC, RES, IDEM, STATUS) \
	[NUM] = { .prog = (PROG), .vers = (VERS), .proc = (NUM), .name = (NAME), \
		  .encode = (ENC), .decode = (DEC), .res_size = (RES), \
		  .idempotent = (IDEM), .res_status = (STATUS) }

#endif
