/* SPDX-License-Identifier: MIT */
/* Strict numbers in text: see num.h. */
#include "util/num.h"

int util_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

bool util_parse_u32(const char *s, size_t n, uint32_t lo, uint32_t hi, uint32_t *out)
{
	uint64_t v = 0;   /* ten digits fit: no wrap to check */
	size_t i;

	if (n == 0 || n > 10)
		return false;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v < lo || v > hi)
		return false;
	*out = (uint32_t)v;
	return true;
}
