/* SPDX-License-Identifier: MIT */
/* Strict numbers in text (src/util/num.c): every digit, the bounds, and
 * what strtoul would take but these must not. */
#include <string.h>

#include "tap.h"
#include "util/num.h"

/* util_parse_u32 of the C string @s. */
static bool u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
	return util_parse_u32(s, strlen(s), lo, hi, out);
}

int main(void)
{
	static const char *const bad[] = {
		"", "-1", "+1", " 1", "1 ", "0x10", "1a", "a", "1.0", "12345678901",
		"00000000001",
	};
	const char digits[] = "0123456789abcdefABCDEF";
	uint32_t v, i;
	bool all = true;

	for (i = 0; i < sizeof(digits) - 1; i++)
		if (util_hexval(digits[i]) != (int)(i < 16 ? i : i - 6))
			all = false;
	ok(all, "util_hexval: 0-9, a-f and A-F");
	ok(util_hexval('g') < 0 && util_hexval('G') < 0 && util_hexval('/') < 0 &&
	   util_hexval(':') < 0 && util_hexval('@') < 0 && util_hexval('`') < 0 &&
	   util_hexval(' ') < 0 && util_hexval('\0') < 0 && util_hexval('x') < 0,
	   "util_hexval: anything else is -1 (the characters around the ranges too)");

	ok(u32("0", 0, 10, &v) && v == 0, "0");
	ok(u32("4294967295", 0, UINT32_MAX, &v) && v == UINT32_MAX, "4294967295, the largest");
	ok(!u32("4294967296", 0, UINT32_MAX, &v), "4294967296: out of range, not wrapped to 0");
	ok(!u32("9999999999", 0, UINT32_MAX, &v), "9999999999, ten digits: out of range");
	ok(u32("0000000042", 0, 100, &v) && v == 42, "leading zeros, ten characters: 42");
	v = 7;
	ok(!u32("33", 0, 32, &v) && v == 7, "above @hi: refused, the output untouched");
	ok(!u32("0", 1, 16, &v) && u32("1", 1, 16, &v) && v == 1 && u32("16", 1, 16, &v) &&
	   v == 16 && !u32("17", 1, 16, &v), "the bounds [1, 16]: 0 and 17 refused, 1 and 16 taken");
	ok(util_parse_u32("1234", 2, 0, 100, &v) && v == 12,
	   "only the @n characters given are read (\"1234\", 2: 12)");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok(!u32(bad[i], 0, UINT32_MAX, &v), "\"%s\": refused", bad[i]);
	return tap_done();
}
