/* SPDX-License-Identifier: MIT */
/*
 * Helpers for the XDR unit tests.
 *
 * Guard page (as picohttpparser's test.c): every input is copied so
 * that it ends exactly where a PROT_NONE page begins, and every encode
 * buffer ends there too, so reading or writing even one byte too far
 * faults at once instead of passing silently.
 *
 * check_prefixes() feeds a decoder every strict prefix of an encoding
 * (each must fail) and then the whole (must succeed and consume all).
 */
#ifndef NFSX_TEST_XDRTEST_H
#define NFSX_TEST_XDRTEST_H

#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "xdr/xdr.h"

struct guard {
	uint8_t *map;
	size_t data;	/* bytes usable before the guard page */
	size_t maplen;
};

static inline void guard_init(struct guard *g, size_t cap)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	g->data = (cap + page - 1) / page * page;
	if (!g->data)
		g->data = page;
	g->maplen = g->data + page;
	g->map = mmap(NULL, g->maplen, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g->map == MAP_FAILED || mprotect(g->map + g->data, page, PROT_NONE)) {
		perror("guard_init");
		exit(99);
	}
}

static inline void guard_free(struct guard *g)
{
	munmap(g->map, g->maplen);
}

/* @len writable bytes ending right at the guard page. */
static inline uint8_t *guard_room(struct guard *g, size_t len)
{
	if (len > g->data) {
		fprintf(stderr, "guard_room: %zu > %zu\n", len, g->data);
		exit(99);
	}
	return g->map + g->data - len;
}

/* Copy @len bytes of @src so that they end right at the guard page. */
static inline const uint8_t *guard_put(struct guard *g, const void *src,
				       size_t len)
{
	uint8_t *p = guard_room(g, len);

	if (len)
		memcpy(p, src, len);
	return p;
}

/* Compare an encoding with the expected bytes, showing the first difference. */
static inline bool bytes_eq(const uint8_t *got, size_t got_len,
			    const uint8_t *want, size_t want_len)
{
	size_t i;

	if (got_len == want_len && !memcmp(got, want, want_len))
		return true;
	for (i = 0; i < got_len && i < want_len && got[i] == want[i]; i++)
		;
	printf("# length %zu (want %zu), first difference at byte %zu\n",
	       got_len, want_len, i);
	return false;
}

typedef bool (*dec_fn)(struct xdr_dec *d, void *out);

/* Wrap a typed generated decoder into a dec_fn. */
#define DEC_FN(name, ctype)						\
	static bool dec_##name(struct xdr_dec *d, void *out)		\
	{								\
		return xdr_dec_##name(d, (ctype *)out);			\
	}

__attribute__((unused))
static alignas(max_align_t) uint8_t check_obj[8192];
__attribute__((unused))
static alignas(max_align_t) uint8_t check_arena_mem[1 << 20];

/*
 * Return values: the number of wrong outcomes (0 when every strict
 * prefix failed and the whole decoded, consuming every byte).
 */
static inline int check_prefixes(struct guard *g, const uint8_t *buf,
				  size_t len, dec_fn fn)
{
	struct xdr_arena arena;
	struct xdr_dec d;
	int wrong = 0;
	size_t n;

	for (n = 0; n <= len; n++) {
		bool got;

		xdr_arena_init(&arena, check_arena_mem, sizeof(check_arena_mem));
		xdr_dec_init(&d, guard_put(g, buf, n), n, &arena);
		memset(check_obj, 0x5a, sizeof(check_obj));
		got = fn(&d, check_obj);
		if (n < len && got) {
			printf("# prefix of %zu/%zu bytes decoded\n", n, len);
			wrong++;
		} else if (n == len && (!got || xdr_dec_left(&d))) {
			printf("# whole input: ok=%d, %zu bytes left\n", got,
			       xdr_dec_left(&d));
			wrong++;
		}
	}
	return wrong;
}

#endif /* NFSX_TEST_XDRTEST_H */
