/* SPDX-License-Identifier: MIT */
/*
 * The decode → encode → decode check shared by the codec fuzz targets.
 * CODEC(T, CT) defines roundtrip_T(): decode a T from the input with an
 * arena, re-encode it, and require that the encoding is exactly as long
 * as what the decoder consumed. roundtrip_run() picks a codec with the
 * first input byte, decodes an exact-size heap copy of the rest (so ASan
 * sees any over-read), and requires the second round to give the same
 * bytes as the first.
 */
#ifndef NFSX_FUZZ_ROUNDTRIP_H
#define NFSX_FUZZ_ROUNDTRIP_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xdr/xdr.h"

#ifndef ROUNDTRIP_ARENA
#define ROUNDTRIP_ARENA (1u << 20)
#endif
#define ROUNDTRIP_OUT (512u << 10)

static uint64_t roundtrip_arena[2][ROUNDTRIP_ARENA / 8];
static uint8_t roundtrip_out[2][ROUNDTRIP_OUT];

typedef size_t roundtrip_fn(const uint8_t *in, size_t len, int n);

#define CODEC(T, CT)                                                    \
	static size_t roundtrip_##T(const uint8_t *in, size_t len, int n) \
	{                                                               \
		struct xdr_arena a;                                     \
		struct xdr_dec d;                                       \
		struct xdr_enc e;                                       \
		CT v;                                                   \
                                                                        \
		memset(&v, 0, sizeof(v));                               \
		xdr_arena_init(&a, roundtrip_arena[n], ROUNDTRIP_ARENA); \
		xdr_dec_init(&d, in, len, &a);                          \
		if (!xdr_dec_##T(&d, &v))                               \
			return 0;                                       \
		xdr_enc_init(&e, roundtrip_out[n], ROUNDTRIP_OUT);      \
		if (!xdr_enc_##T(&e, &v))                               \
			abort(); /* decoded values must encode */       \
		if (xdr_enc_len(&e) != len - xdr_dec_left(&d))          \
			abort();                                        \
		return xdr_enc_len(&e);                                 \
	}

static inline int roundtrip_run(roundtrip_fn *const *codecs, size_t ncodecs,
				const uint8_t *data, size_t size)
{
	roundtrip_fn *fn;
	uint8_t *copy;
	size_t n1, n2;

	if (size < 1)
		return 0;
	fn = codecs[data[0] % ncodecs];
	copy = malloc(size - 1 ? size - 1 : 1);
	memcpy(copy, data + 1, size - 1);
	n1 = fn(copy, size - 1, 0);
	if (n1) {
		n2 = fn(roundtrip_out[0], n1, 1);
		if (n2 != n1 || memcmp(roundtrip_out[0], roundtrip_out[1], n1) != 0)
			abort();
	}
	free(copy);
	return 0;
}

#endif
