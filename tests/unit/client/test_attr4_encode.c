/* SPDX-License-Identifier: MIT */
/*
 * nfsx4_sattr_encode without a server: the bitmap of what is set, the
 * values in ascending attribute order byte for byte (size, mode, numeric
 * owner and group, times from the client or the server's clock, a time
 * before the epoch with its nanoseconds counted up from the second
 * below), and what it refuses.
 */
#include <errno.h>
#include <string.h>

#include "client/nfsx.h"
#include "tap.h"
#include "xdr/xdr.h"

static uint32_t word(const struct fattr4 *f, size_t i)
{
	return xdr__get32(f->attr_vals.data + 4 * i);
}

int main(void)
{
	struct nfsx4_sattr_buf b;
	struct fattr4 f;
	struct nfsx_sattr s;
	int r;

	memset(&s, 0, sizeof(s));
	s.set = NFSX_SET_MTIME | NFSX_SET_GID | NFSX_SET_SIZE | NFSX_SET_ATIME_NOW | NFSX_SET_MODE |
		NFSX_SET_UID;
	s.size = 0x123456789aULL;
	s.mode = 04755;
	s.uid = 7;
	s.gid = 123456;
	s.mtime_ns = -1;          /* one ns before the epoch */
	r = nfsx4_sattr_encode(&s, &b, &f);
	ok(r == 0 && f.attrmask.len == 2 && f.attrmask.val[0] == 1u << FATTR4_SIZE &&
	   f.attrmask.val[1] == (1u << (FATTR4_MODE - 32) | 1u << (FATTR4_OWNER - 32) |
				 1u << (FATTR4_OWNER_GROUP - 32) |
				 1u << (FATTR4_TIME_ACCESS_SET - 32) |
				 1u << (FATTR4_TIME_MODIFY_SET - 32)),
	   "the bitmap names the six attributes set (%d)", r);
	ok(f.attr_vals.len == 8 + 4 + 8 + 12 + 4 + 16, "%u bytes of values", f.attr_vals.len);
	ok(word(&f, 0) == 0x12 && word(&f, 1) == 0x3456789a, "size first (bit 4)");
	ok(word(&f, 2) == 04755, "then mode (33)");
	ok(word(&f, 3) == 1 && !memcmp(f.attr_vals.data + 16, "7\0\0\0", 4),
	   "then owner (36) as the numeric string \"7\", padded");
	ok(word(&f, 5) == 6 && !memcmp(f.attr_vals.data + 24, "123456\0\0", 8),
	   "then owner_group (37), \"123456\"");
	ok(word(&f, 8) == SET_TO_SERVER_TIME4, "time_access_set (48): the server's time alone");
	ok(word(&f, 9) == SET_TO_CLIENT_TIME4 && word(&f, 10) == 0xffffffffu &&
	   word(&f, 11) == 0xffffffffu && word(&f, 12) == 999999999,
	   "time_modify_set (54): -1 ns is second -1 and 999999999 ns");

	s.set = NFSX_SET_SIZE;
	s.size = 5;
	r = nfsx4_sattr_encode(&s, &b, &f);
	ok(r == 0 && f.attrmask.len == 1 && f.attr_vals.len == 8 && word(&f, 1) == 5,
	   "the size alone: one bitmap word, eight bytes");
	s.set = 0;
	r = nfsx4_sattr_encode(&s, &b, &f);
	ok(r == 0 && f.attrmask.len == 1 && f.attrmask.val[0] == 0 && f.attr_vals.len == 0,
	   "nothing set: an empty fattr4");
	s.set = NFSX_SET_MODE;
	s.mode = 010000;
	ok(nfsx4_sattr_encode(&s, &b, &f) == -EINVAL, "a mode over 07777: -EINVAL");
	s.set = 0x100;
	ok(nfsx4_sattr_encode(&s, &b, &f) == -EINVAL, "an unknown NFSX_SET_ bit: -EINVAL");
	return tap_done();
}
