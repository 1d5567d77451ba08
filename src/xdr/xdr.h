/* SPDX-License-Identifier: MIT */
/*
 * XDR (RFC 4506) runtime: a bounded decode cursor, a bounded encode
 * buffer and a bump arena.
 *
 * DESIGN
 * - Every decode primitive checks the bytes left before it moves the
 *   cursor and returns false on shortage; callers turn false into
 *   GARBAGE_ARGS (server) or a decode error (client). Nothing reads
 *   past d->end.
 * - Strings and variable opaques decode as (pointer, length) into the
 *   message buffer: zero copy, nothing allocated.
 * - Arrays and optional data (only in the generated codecs) take their
 *   memory from an arena owned by the request, and only after the
 *   length has been checked against the bytes actually present, so a
 *   peer can never make us allocate more than it has sent.
 * - Primitives are static inline: generated code is as fast as
 *   hand-written code, with no function pointer per field.
 */
#ifndef NFSX_XDR_H
#define NFSX_XDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define XDR_UNIT 4u

/* Round a byte length up to the 4-byte XDR unit. */
static inline uint32_t xdr_pad(uint32_t len)
{
	return (len + 3u) & ~3u;
}

/* ------------------------------------------------------------------ */
/* Arena                                                                */

struct xdr_arena {
	uint8_t *base;
	size_t used;
	size_t cap;
};

static inline void xdr_arena_init(struct xdr_arena *a, void *mem, size_t cap)
{
	a->base = (uint8_t *)mem;
	a->used = 0;
	a->cap = cap;
}

static inline void xdr_arena_reset(struct xdr_arena *a)
{
	a->used = 0;
}

/*
 * xdr_arena_alloc - take @size bytes, 8-byte aligned, zeroed.
 * Return values: pointer, or NULL when the arena is exhausted (or
 * there is no arena).
 */
static inline void *xdr_arena_alloc(struct xdr_arena *a, size_t size)
{
	size_t off;

	if (!a)
		return NULL;
	off = (a->used + 7u) & ~(size_t)7u;
	if (off > a->cap || size > a->cap - off)
		return NULL;
	a->used = off + size;
	memset(a->base + off, 0, size);
	return a->base + off;
}

/*
 * xdr_arena_array - take room for @count elements of @size bytes, zeroed.
 * Callers bound @count with xdr_dec_count_ok() first.
 * Return values: pointer, or NULL when the arena is exhausted or
 * count * size overflows.
 */
static inline void *xdr_arena_array(struct xdr_arena *a, size_t count,
				    size_t size)
{
	if (size && count > SIZE_MAX / size)
		return NULL;
	return xdr_arena_alloc(a, count * size);
}

/* ------------------------------------------------------------------ */
/* Decoding                                                             */

struct xdr_dec {
	const uint8_t *p;
	const uint8_t *end;
	struct xdr_arena *arena; /* may be NULL: arrays/optionals then fail */
};

/* Zero-copy view of a string or opaque<> inside the decoded message. */
struct xdr_bytes {
	const uint8_t *data;
	uint32_t len;
};

static inline void xdr_dec_init(struct xdr_dec *d, const void *buf, size_t len,
				struct xdr_arena *arena)
{
	d->p = (const uint8_t *)buf;
	d->end = d->p + len;
	d->arena = arena;
}

static inline size_t xdr_dec_left(const struct xdr_dec *d)
{
	return (size_t)(d->end - d->p);
}

static inline uint32_t xdr__get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static inline void xdr__put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline bool xdr_dec_u32(struct xdr_dec *d, uint32_t *v)
{
	if (xdr_dec_left(d) < 4)
		return false;
	*v = xdr__get32(d->p);
	d->p += 4;
	return true;
}

static inline bool xdr_dec_i32(struct xdr_dec *d, int32_t *v)
{
	uint32_t u;

	if (!xdr_dec_u32(d, &u))
		return false;
	*v = (int32_t)u;
	return true;
}

static inline bool xdr_dec_u64(struct xdr_dec *d, uint64_t *v)
{
	if (xdr_dec_left(d) < 8)
		return false;
	*v = (uint64_t)xdr__get32(d->p) << 32 | xdr__get32(d->p + 4);
	d->p += 8;
	return true;
}

static inline bool xdr_dec_i64(struct xdr_dec *d, int64_t *v)
{
	uint64_t u;

	if (!xdr_dec_u64(d, &u))
		return false;
	*v = (int64_t)u;
	return true;
}

/* XDR bool is exactly 0 or 1; anything else is malformed. */
static inline bool xdr_dec_bool(struct xdr_dec *d, bool *v)
{
	uint32_t u;

	if (!xdr_dec_u32(d, &u) || u > 1)
		return false;
	*v = u != 0;
	return true;
}

/* Skip @len bytes plus padding. */
static inline bool xdr_dec_skip(struct xdr_dec *d, uint32_t len)
{
	size_t padded = ((size_t)len + 3u) & ~(size_t)3u;

	if (xdr_dec_left(d) < padded)
		return false;
	d->p += padded;
	return true;
}

/* opaque x[len]: copied out (fixed opaques are small: verifiers, ids). */
static inline bool xdr_dec_opaque_fixed(struct xdr_dec *d, void *out,
					uint32_t len)
{
	const uint8_t *p = d->p;

	if (!xdr_dec_skip(d, len))
		return false;
	memcpy(out, p, len);
	return true;
}

/* opaque x<max> / string x<max>: view into the message. */
static inline bool xdr_dec_bytes(struct xdr_dec *d, struct xdr_bytes *b,
				 uint32_t max)
{
	uint32_t len;

	if (!xdr_dec_u32(d, &len) || len > max)
		return false;
	b->data = d->p;
	if (!xdr_dec_skip(d, len))
		return false;
	b->len = len;
	return true;
}

/*
 * Array element count check before any allocation: @count elements of
 * at least @min_wire bytes each must fit in what is left of the
 * message, so the arena grows only in proportion to received bytes.
 */
static inline bool xdr_dec_count_ok(const struct xdr_dec *d, uint32_t count,
				    uint32_t max, size_t min_wire)
{
	if (count > max)
		return false;
	if (min_wire && (uint64_t)count * min_wire > xdr_dec_left(d))
		return false;
	return true;
}

/*
 * xdr_dec_alloc - arena room for one optional datum (T *x) whose
 * encoding needs at least @min_wire more bytes: refused up front when
 * the message is shorter, so memory only grows with bytes received.
 * Return values: zeroed pointer, or NULL (message too short, arena
 * exhausted or absent).
 */
static inline void *xdr_dec_alloc(struct xdr_dec *d, size_t size,
				  size_t min_wire)
{
	if (xdr_dec_left(d) < min_wire)
		return NULL;
	return xdr_arena_alloc(d->arena, size);
}

/*
 * Nesting bound for generated codecs of recursive types other than
 * linked lists (lists are walked with a loop and have no bound).
 */
#define XDR_MAX_DEPTH 64u

/* ------------------------------------------------------------------ */
/* Encoding                                                             */

struct xdr_enc {
	uint8_t *p;
	uint8_t *end;
	uint8_t *start;
};

static inline void xdr_enc_init(struct xdr_enc *e, void *buf, size_t cap)
{
	e->start = e->p = (uint8_t *)buf;
	e->end = e->p + cap;
}

static inline size_t xdr_enc_len(const struct xdr_enc *e)
{
	return (size_t)(e->p - e->start);
}

static inline size_t xdr_enc_room(const struct xdr_enc *e)
{
	return (size_t)(e->end - e->p);
}

/* Reserve @n bytes (n a multiple of 4), returning where they go. */
static inline uint8_t *xdr_enc_reserve(struct xdr_enc *e, size_t n)
{
	uint8_t *p = e->p;

	if (xdr_enc_room(e) < n)
		return NULL;
	e->p += n;
	return p;
}

static inline bool xdr_enc_u32(struct xdr_enc *e, uint32_t v)
{
	if (xdr_enc_room(e) < 4)
		return false;
	xdr__put32(e->p, v);
	e->p += 4;
	return true;
}

static inline bool xdr_enc_i32(struct xdr_enc *e, int32_t v)
{
	return xdr_enc_u32(e, (uint32_t)v);
}

static inline bool xdr_enc_u64(struct xdr_enc *e, uint64_t v)
{
	if (xdr_enc_room(e) < 8)
		return false;
	xdr__put32(e->p, (uint32_t)(v >> 32));
	xdr__put32(e->p + 4, (uint32_t)v);
	e->p += 8;
	return true;
}

static inline bool xdr_enc_i64(struct xdr_enc *e, int64_t v)
{
	return xdr_enc_u64(e, (uint64_t)v);
}

static inline bool xdr_enc_bool(struct xdr_enc *e, bool v)
{
	return xdr_enc_u32(e, v ? 1u : 0u);
}

/* @len bytes then zero padding to the XDR unit. */
static inline bool xdr_enc_opaque_fixed(struct xdr_enc *e, const void *src,
					uint32_t len)
{
	uint32_t padded = xdr_pad(len);

	if (padded < len || xdr_enc_room(e) < padded)
		return false;
	if (len)
		memcpy(e->p, src, len);
	memset(e->p + len, 0, padded - len);
	e->p += padded;
	return true;
}

/* Length-prefixed opaque<max>/string<max>; refuses to encode len > max. */
static inline bool xdr_enc_bytes(struct xdr_enc *e, const void *src,
				 uint32_t len, uint32_t max)
{
	if (len > max || xdr_enc_room(e) < 4)
		return false;
	uint8_t *save = e->p;
	xdr_enc_u32(e, len);
	if (!xdr_enc_opaque_fixed(e, src, len)) {
		e->p = save;
		return false;
	}
	return true;
}

#endif /* NFSX_XDR_H */
