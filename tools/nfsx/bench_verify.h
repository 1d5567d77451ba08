/* SPDX-License-Identifier: MIT */
/*
 * Data verification for nfsx bench (verify=crc32c).
 *
 * A file is a sequence of blocks of the job's block size, each written
 * whole. Every block starts with a 48-byte header, all little-endian:
 *
 *    0  magic "NFXV"          24  generation (u32)
 *    4  crc32c (u32)          28  job number (u32)
 *    8  file offset (u64)     32  file number (u32)
 *   16  seed (u64)            36  block length (u32)
 *                             40  reserved, zero (u64)
 *
 * followed by pseudo-random bytes derived from (seed, job, file, offset,
 * generation). The crc32c covers the whole block with its crc field read
 * as zero. A check therefore tells a corrupted block (crc mismatch: the
 * first wrong byte is found by regenerating what should be there), a
 * misplaced one (right crc, wrong offset/file/job) and a stale one (right
 * crc, older generation: a lost write) apart, with the file offset.
 * Generation 0 is what the layout phase writes.
 */
#ifndef NFSX_TOOL_BENCH_VERIFY_H
#define NFSX_TOOL_BENCH_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BV_HDR_SIZE 48u
#define BV_MIN_BLOCK 64u
#define BV_MAGIC 0x5658464eu   /* "NFXV" read as little-endian u32 */
#define BV_GEN_ANY UINT32_MAX  /* want.gen: accept any generation (verify_only) */

struct bv_id {
	uint64_t seed;
	uint32_t job, file;
	uint64_t offset;          /* file offset of the block */
	uint32_t gen;
};

enum bv_fault {
	BV_OK = 0,
	BV_BAD_MAGIC,      /* no header at all: never written, or overwritten */
	BV_BAD_CRC,        /* content corrupted */
	BV_BAD_LENGTH,     /* header says another block size */
	BV_MISPLACED,      /* intact block of another offset/file/job/seed */
	BV_STALE,          /* intact block, but an older (or newer) generation */
};

struct bv_report {
	enum bv_fault fault;
	uint64_t block_offset;    /* file offset of the bad block */
	uint64_t bad_offset;      /* file offset of the first wrong byte (BV_BAD_CRC/MAGIC) */
	uint8_t expected, got;    /* that byte */
	uint32_t crc_stored, crc_computed;
	struct bv_id found;       /* header fields read from the block */
	uint32_t found_len;
	uint32_t want_gen;         /* the generation expected */
};

/* Fill @len bytes (one block, len >= BV_MIN_BLOCK) for @id. */
void bv_fill(void *buf, uint32_t len, const struct bv_id *id);

/*
 * Check one block of @len bytes against what @want describes (with
 * want->gen == BV_GEN_ANY, any generation is accepted: the block is then
 * only checked for corruption and misplacement).
 * Return values: true if it is exactly that block; false with @r filled.
 */
bool bv_check(const void *buf, uint32_t len, const struct bv_id *want, struct bv_report *r);

/* A one-line description of @r ("crc32c mismatch in block at offset ..."). */
void bv_describe(const struct bv_report *r, char *out, size_t outlen);

#endif
