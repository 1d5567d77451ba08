/* SPDX-License-Identifier: MIT */
#include "bench_verify.h"

#include <stdio.h>
#include <string.h>

#include "crc32c.h"

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static uint64_t mix64(uint64_t x)
{
	/* splitmix64 finaliser */
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t body_seed(const struct bv_id *id)
{
	uint64_t s = mix64(id->seed);

	s = mix64(s ^ ((uint64_t)id->job << 32 | id->file));
	s = mix64(s ^ id->offset);
	s = mix64(s ^ id->gen);
	return s ? s : 1;
}

/* xorshift64* stream, 8 bytes at a time, little-endian. */
static void body_fill(uint8_t *p, uint32_t len, uint64_t s)
{
	uint8_t tmp[8];

	while (len >= 8) {
		s ^= s >> 12;
		s ^= s << 25;
		s ^= s >> 27;
		put64(p, s * 0x2545f4914f6cdd1dull);
		p += 8;
		len -= 8;
	}
	if (len) {
		s ^= s >> 12;
		s ^= s << 25;
		s ^= s >> 27;
		put64(tmp, s * 0x2545f4914f6cdd1dull);
		memcpy(p, tmp, len);
	}
}

static void hdr_fill(uint8_t *p, uint32_t len, const struct bv_id *id)
{
	put32(p, BV_MAGIC);
	put32(p + 4, 0);
	put64(p + 8, id->offset);
	put64(p + 16, id->seed);
	put32(p + 24, id->gen);
	put32(p + 28, id->job);
	put32(p + 32, id->file);
	put32(p + 36, len);
	put64(p + 40, 0);
}

static uint32_t block_crc(const uint8_t *p, uint32_t len)
{
	static const uint8_t zero[4];
	uint32_t c = crc32c(0, p, 4);

	c = crc32c(c, zero, 4);
	return crc32c(c, p + 8, len - 8);
}

void bv_fill(void *buf, uint32_t len, const struct bv_id *id)
{
	uint8_t *p = buf;

	hdr_fill(p, len, id);
	body_fill(p + BV_HDR_SIZE, len - BV_HDR_SIZE, body_seed(id));
	put32(p + 4, block_crc(p, len));
}

/* First byte where @p differs from the block @id would be, or -1. */
static long first_diff(const uint8_t *p, uint32_t len, const struct bv_id *id,
		       uint8_t *exp)
{
	uint8_t hdr[BV_HDR_SIZE], chunk[4096];
	uint64_t s = body_seed(id);
	uint32_t done;

	hdr_fill(hdr, len, id);
	/* the crc field of the expected block */
	for (uint32_t i = 0; i < BV_HDR_SIZE; i++) {
		if (i >= 4 && i < 8)
			continue;
		if (p[i] != hdr[i]) {
			*exp = hdr[i];
			return i;
		}
	}
	/* regenerate the body in chunks; the generator state carries over
	 * only at 8-byte boundaries, so chunks are multiples of 8 */
	for (done = 0; done < len - BV_HDR_SIZE;) {
		uint32_t n = len - BV_HDR_SIZE - done;

		if (n > sizeof(chunk))
			n = sizeof(chunk);
		body_fill(chunk, n, s);
		for (uint32_t i = 0; i < n; i++) {
			if (p[BV_HDR_SIZE + done + i] != chunk[i]) {
				*exp = chunk[i];
				return BV_HDR_SIZE + done + i;
			}
		}
		/* advance the generator by n/8 steps */
		for (uint32_t k = 0; k < n / 8; k++) {
			s ^= s >> 12;
			s ^= s << 25;
			s ^= s >> 27;
		}
		done += n;
	}
	return -1;
}

bool bv_check(const void *buf, uint32_t len, const struct bv_id *want, struct bv_report *r)
{
	const uint8_t *p = buf;
	struct bv_id any;
	long d;

	memset(r, 0, sizeof(*r));
	r->block_offset = want->offset;
	r->bad_offset = want->offset;
	r->want_gen = want->gen;
	if (len < BV_MIN_BLOCK || get32(p) != BV_MAGIC) {
		r->fault = BV_BAD_MAGIC;
		if (want->gen == BV_GEN_ANY) {
			any = *want;
			any.gen = 0;
			want = &any;
		}
		d = len >= BV_MIN_BLOCK ? first_diff(p, len, want, &r->expected) : 0;
		r->bad_offset = want->offset + (uint64_t)(d < 0 ? 0 : d);
		r->got = len ? p[d < 0 ? 0 : d] : 0;
		return false;
	}
	r->crc_stored = get32(p + 4);
	r->found.offset = get64(p + 8);
	r->found.seed = get64(p + 16);
	r->found.gen = get32(p + 24);
	r->found.job = get32(p + 28);
	r->found.file = get32(p + 32);
	r->found_len = get32(p + 36);
	r->crc_computed = block_crc(p, len);
	if (want->gen == BV_GEN_ANY) {
		/* compare with the generation the block claims to be */
		any = *want;
		any.gen = r->found.gen;
		want = &any;
	}
	if (r->crc_computed != r->crc_stored) {
		r->fault = BV_BAD_CRC;
		d = first_diff(p, len, want, &r->expected);
		if (d < 0) {
			/* only the crc field itself is wrong: find the byte */
			for (d = 4; d < 7; d++)
				if (p[d] != (uint8_t)(r->crc_computed >> (8 * (d - 4))))
					break;
			r->expected = (uint8_t)(r->crc_computed >> (8 * (d - 4)));
		}
		r->bad_offset = want->offset + (uint64_t)d;
		r->got = p[d];
		return false;
	}
	if (r->found_len != len) {
		r->fault = BV_BAD_LENGTH;
		return false;
	}
	if (r->found.offset != want->offset || r->found.file != want->file ||
	    r->found.job != want->job || r->found.seed != want->seed) {
		r->fault = BV_MISPLACED;
		return false;
	}
	if (r->found.gen != want->gen) {
		r->fault = BV_STALE;
		return false;
	}
	r->fault = BV_OK;
	return true;
}

void bv_describe(const struct bv_report *r, char *out, size_t outlen)
{
	switch (r->fault) {
	case BV_OK:
		snprintf(out, outlen, "block at offset %llu is good",
			 (unsigned long long)r->block_offset);
		break;
	case BV_BAD_MAGIC:
		snprintf(out, outlen,
			 "block at offset %llu has no verify header (never written or overwritten);"
			 " first wrong byte at offset %llu: expected 0x%02x, got 0x%02x",
			 (unsigned long long)r->block_offset, (unsigned long long)r->bad_offset,
			 r->expected, r->got);
		break;
	case BV_BAD_CRC:
		snprintf(out, outlen,
			 "crc32c mismatch in block at offset %llu (stored 0x%08x, computed 0x%08x);"
			 " first wrong byte at offset %llu: expected 0x%02x, got 0x%02x",
			 (unsigned long long)r->block_offset, r->crc_stored, r->crc_computed,
			 (unsigned long long)r->bad_offset, r->expected, r->got);
		break;
	case BV_BAD_LENGTH:
		snprintf(out, outlen, "block at offset %llu was written with block size %u",
			 (unsigned long long)r->block_offset, r->found_len);
		break;
	case BV_MISPLACED:
		snprintf(out, outlen,
			 "block at offset %llu holds the block of offset %llu, file %u, job %u,"
			 " seed %llu (misplaced data)",
			 (unsigned long long)r->block_offset, (unsigned long long)r->found.offset,
			 r->found.file, r->found.job, (unsigned long long)r->found.seed);
		break;
	case BV_STALE:
		snprintf(out, outlen,
			 "block at offset %llu is generation %u, expected %u"
			 " (a lost or misordered write)",
			 (unsigned long long)r->block_offset, r->found.gen, r->want_gen);
		break;
	}
}
