/* SPDX-License-Identifier: MIT */
/*
 * Numbers in text people write (exports(5) options, nfs:// URLs): read
 * strictly, from exactly the characters given, so that what strtoul(3)
 * would also take (a sign, spaces, "0x", trailing junk, a value that
 * wraps) is an error the caller can name instead of a surprise.
 * Shared by the exports parser and libnfsx, which both sit above util.
 */
#ifndef NFSX_UTIL_NUM_H
#define NFSX_UTIL_NUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* util_hexval - the value of the hexadecimal digit @c (either case).
 * Return values: 0 to 15, or -1 when @c is not one. */
int util_hexval(char c);

/*
 * util_parse_u32 - the decimal number written in exactly the @n
 * characters at @s (not NUL-terminated): 1 to 10 digits, nothing else,
 * leading zeros allowed, its value in [@lo, @hi].
 * Return values: true with *@out set; false (*@out unchanged).
 */
bool util_parse_u32(const char *s, size_t n, uint32_t lo, uint32_t hi, uint32_t *out);

/*
 * Budgets shared by threads: take @n of what *@used may reach, @cap, or
 * nothing. An add, then a subtract when it went past: no lock, and a
 * failed take never leaves the count changed.
 * Return values: true when taken (give it back with util_give*()).
 */
static inline bool util_take(unsigned int *used, unsigned int n, unsigned int cap)
{
	if (__atomic_add_fetch(used, n, __ATOMIC_RELAXED) <= cap)
		return true;
	__atomic_sub_fetch(used, n, __ATOMIC_RELAXED);
	return false;
}

static inline void util_give(unsigned int *used, unsigned int n)
{
	__atomic_sub_fetch(used, n, __ATOMIC_RELAXED);
}

static inline bool util_take_size(size_t *used, size_t n, size_t cap)
{
	if (__atomic_add_fetch(used, n, __ATOMIC_RELAXED) <= cap)
		return true;
	__atomic_sub_fetch(used, n, __ATOMIC_RELAXED);
	return false;
}

static inline void util_give_size(size_t *used, size_t n)
{
	__atomic_sub_fetch(used, n, __ATOMIC_RELAXED);
}

#endif
