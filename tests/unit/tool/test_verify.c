/* SPDX-License-Identifier: MIT */
/* crc32c (known vectors, hardware = software), and the verify block
 * pattern: intact blocks pass; a corrupted byte is reported with its
 * block and file offset; misplaced and stale blocks are told apart. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_verify.h"
#include "crc32c.h"
#include "tap.h"

int main(void)
{
	static uint8_t buf[1 << 20], big[3 * 4096];
	struct bv_id id = { .seed = 42, .job = 3, .file = 7, .offset = 1u << 20, .gen = 5 }, w;
	struct bv_report r;
	char msg[512];
	uint32_t x = 1;
	int same = 1;

	/* crc32c vectors (RFC 3720 B.4 and the usual check value) */
	ok(crc32c(0, "123456789", 9) == 0xE3069283u, "crc32c(\"123456789\") = 0xE3069283");
	ok(crc32c_sw(0, "123456789", 9) == 0xE3069283u, "software crc32c check value");
	memset(buf, 0, 32);
	ok(crc32c(0, buf, 32) == 0x8A9136AAu, "32 zero bytes = 0x8A9136AA (RFC 3720)");
	memset(buf, 0xff, 32);
	ok(crc32c(0, buf, 32) == 0x62A8AB43u, "32 0xff bytes = 0x62A8AB43 (RFC 3720)");
	for (int i = 0; i < 32; i++)
		buf[i] = (uint8_t)i;
	ok(crc32c(0, buf, 32) == 0x46DD794Eu, "32 incrementing bytes = 0x46DD794E (RFC 3720)");
	ok(crc32c(crc32c(0, "1234", 4), "56789", 5) == 0xE3069283u, "crc32c continues across calls");
	for (size_t i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t)(x >> 16);
	}
	for (size_t off = 0; off < 9; off++)
		for (size_t len = 0; len < 300; len += 7)
			if (crc32c(0, buf + off, len) != crc32c_sw(0, buf + off, len))
				same = 0;
	ok(same && crc32c(0, buf, sizeof(buf)) == crc32c_sw(0, buf, sizeof(buf)),
	   "dispatching crc32c equals software at every alignment (hw: %s)",
	   crc32c_hw_available() ? "sse4.2" : "none");

	/* round trip */
	bv_fill(buf, 4096, &id);
	ok(bv_check(buf, 4096, &id, &r) && r.fault == BV_OK, "a filled 4 KiB block checks");
	bv_fill(buf, 64, &id);
	ok(bv_check(buf, 64, &id, &r), "a 64-byte block checks");
	bv_fill(buf, 1000, &id);
	ok(bv_check(buf, 1000, &id, &r), "a 1000-byte block (not a multiple of 8) checks");
	bv_fill(buf, sizeof(buf), &id);
	ok(bv_check(buf, sizeof(buf), &id, &r), "a 1 MiB block checks");
	w = id;
	w.gen = 6;
	bv_fill(big, 4096, &w);
	ok(memcmp(big + 48, buf + 48, 4096 - 48), "another generation gives other data");

	/* one corrupted byte, at the head, in the body, at the very end */
	{
		const uint32_t where[] = { 3, 4, 8, 30, 48, 1000, 4095, 777777, sizeof(buf) - 1 };

		for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
			uint32_t len = where[i] < 4096 ? 4096 : sizeof(buf), p = where[i];
			uint8_t orig;
			bool bad;

			bv_fill(buf, len, &id);
			orig = buf[p];
			buf[p] ^= 0x10;
			bad = !bv_check(buf, len, &id, &r);
			bv_describe(&r, msg, sizeof(msg));
			ok(bad && r.block_offset == id.offset && r.bad_offset == id.offset + p &&
			   r.expected == orig && r.got == (uint8_t)(orig ^ 0x10) &&
			   (p < 4 ? r.fault == BV_BAD_MAGIC : r.fault == BV_BAD_CRC),
			   "byte %u of a %u-byte block flipped: found at file offset %llu (%s)", p, len,
			   (unsigned long long)r.bad_offset, msg);
		}
	}

	/* one block wrong among three in a region, checked block by block */
	{
		uint64_t base = 8192;
		int first_bad = -1;

		for (int b = 0; b < 3; b++) {
			w = id;
			w.offset = base + (uint64_t)b * 4096;
			bv_fill(big + b * 4096, 4096, &w);
		}
		big[4096 + 2000] ^= 1;
		for (int b = 0; b < 3; b++) {
			w = id;
			w.offset = base + (uint64_t)b * 4096;
			if (!bv_check(big + b * 4096, 4096, &w, &r) && first_bad < 0)
				first_bad = b;
		}
		ok(first_bad == 1, "the corrupted block of three is the second");
		w.offset = base + 4096;
		bv_check(big + 4096, 4096, &w, &r);
		ok(r.block_offset == base + 4096 && r.bad_offset == base + 4096 + 2000,
		   "reported at block 12288, byte 14288 (%llu, %llu)",
		   (unsigned long long)r.block_offset, (unsigned long long)r.bad_offset);
	}

	/* misplaced: an intact block of another offset */
	w = id;
	w.offset = id.offset + 4096;
	bv_fill(buf, 4096, &w);
	ok(!bv_check(buf, 4096, &id, &r) && r.fault == BV_MISPLACED &&
	   r.found.offset == id.offset + 4096, "block of another offset: misplaced");
	bv_describe(&r, msg, sizeof(msg));
	ok(strstr(msg, "misplaced") && strstr(msg, "1052672"), "described: %s", msg);
	w = id;
	w.file = 8;
	bv_fill(buf, 4096, &w);
	ok(!bv_check(buf, 4096, &id, &r) && r.fault == BV_MISPLACED && r.found.file == 8,
	   "block of another file: misplaced");
	w = id;
	w.job = 1;
	bv_fill(buf, 4096, &w);
	ok(!bv_check(buf, 4096, &id, &r) && r.fault == BV_MISPLACED, "block of another job: misplaced");

	/* stale: an older generation (a lost write) */
	w = id;
	w.gen = 4;
	bv_fill(buf, 4096, &w);
	ok(!bv_check(buf, 4096, &id, &r) && r.fault == BV_STALE && r.found.gen == 4,
	   "older generation: stale");
	bv_describe(&r, msg, sizeof(msg));
	ok(strstr(msg, "generation 4, expected 5"), "described: %s", msg);

	/* any generation (verify_only): intact blocks of any generation pass,
	 * corruption and misplacement are still found */
	w = id;
	w.gen = BV_GEN_ANY;
	{
		struct bv_id g9 = id;

		g9.gen = 9;
		bv_fill(buf, 4096, &g9);
		ok(bv_check(buf, 4096, &w, &r), "BV_GEN_ANY: generation 9 accepted");
		buf[2222] ^= 0x80;
		ok(!bv_check(buf, 4096, &w, &r) && r.fault == BV_BAD_CRC &&
		   r.bad_offset == id.offset + 2222 && r.got == (uint8_t)(r.expected ^ 0x80),
		   "BV_GEN_ANY: corrupted byte found at its offset");
		g9.offset += 4096;
		bv_fill(buf, 4096, &g9);
		ok(!bv_check(buf, 4096, &w, &r) && r.fault == BV_MISPLACED,
		   "BV_GEN_ANY: misplaced block found");
	}

	/* a hole (zeros) where data should be */
	memset(buf, 0, 4096);
	ok(!bv_check(buf, 4096, &id, &r) && r.fault == BV_BAD_MAGIC &&
	   r.bad_offset == id.offset, "zeros: no header, first wrong byte at the block start");

	/* written with another block size */
	bv_fill(buf, 8192, &id);
	ok(!bv_check(buf, 4096, &id, &r) && (r.fault == BV_BAD_CRC || r.fault == BV_BAD_LENGTH),
	   "half of an 8 KiB block read as 4 KiB: refused");

	return tap_done();
}
