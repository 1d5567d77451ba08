/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: a client's fattr4 (SETATTR, CREATE and OPEN's
 * createattrs, VERIFY and NVERIFY) through src/nfs4/attr.c.
 * Input: one byte of flags, then a fattr4 as XDR (bitmap4, attrlist4).
 *   flags bits 0-1  the minor version (3: taken as 2)
 *         bit 2     owner strings as numbers
 *         bit 3     no statfs given, bit 4 no handle given
 * Checked, beyond staying inside the input and not crashing:
 * - nfs4_attr_decode_set only sets what is settable, a mode within
 *   07777, nseconds below a second or UTIME_NOW, and an attrsset that is
 *   the bitmap asked for; nothing at all on error;
 * - decode_set and nfs4_attr_verify agree on what is not supported;
 * - when VERIFY says "same", encoding the server's attributes for that
 *   bitmap gives exactly the client's bytes (the walk of the client's
 *   values and the encoder agree), and whatever nfs4_attr_encode writes
 *   decodes as a fattr4 again.
 * Seeds (corpus/nfs4-attr) were written by hand: a mode, all six
 * settable attributes, an owner by name, a VERIFY that matches, an
 * fs_locations with a location, bits past the known words.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "nfs4/attr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) abort(); } while (0)

static uint8_t arena_mem[1u << 16];
static uint8_t out[1u << 16];
static uint8_t arena2_mem[1u << 16];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stat st = { 0 };
	struct vfs_statfs sf = { .bsize = 4096, .blocks = 100, .bfree = 50, .bavail = 40,
				 .files = 1000, .ffree = 900, .favail = 800, .link_max = 0,
				 .name_max = 255 };
	struct nfsx_fh fh = { .len = 8, .data = { 1, 2, 3, 4, 5, 6, 7, 8 } };
	struct nfs4_attr_src s;
	struct xdr_arena a, a2;
	struct xdr_dec d;
	struct xdr_enc e;
	struct fattr4 f, g;
	struct vfs_sattr sa;
	uint32_t as[3], set_st, ver_st, i;
	bool same = false;
	uint8_t flags;

	if (size < 1)
		return 0;
	flags = data[0];
	xdr_arena_init(&a, arena_mem, sizeof(arena_mem));
	xdr_dec_init(&d, data + 1, size - 1, &a);
	if (!xdr_dec_fattr4(&d, &f))
		return 0;

	st.st_mode = S_IFREG | 0644;
	st.st_ino = 1234;
	st.st_size = 4096;
	st.st_nlink = 1;
	st.st_uid = 0;
	st.st_gid = 0;
	st.st_mtim.tv_sec = 1700000000;
	s = (struct nfs4_attr_src){
		.st = &st, .sf = (flags & 8) ? NULL : &sf, .fsid_major = 1, .fsid_minor = 2,
		.change = 99, .mounted_on_fileid = 1234, .fh = (flags & 16) ? NULL : &fh,
		.lease_time = 90, .minorversion = flags & 3u, .maxread = 1u << 20,
		.maxwrite = 1u << 20, .time_delta_ns = 1, .numeric_ids = (flags & 4) != 0,
		.id_domain = "example.org",
	};

	set_st = nfs4_attr_decode_set(&f, s.minorversion, s.id_domain, &sa, as);
	if (set_st == NFS4_OK) {
		uint32_t want[3] = { 0 };

		for (i = 0; i < 3 && i < f.attrmask.len; i++)
			want[i] = f.attrmask.val[i];
		CHECK(memcmp(as, want, sizeof(want)) == 0);
		CHECK(!(sa.mask & ~(uint32_t)(VFS_SET_MODE | VFS_SET_UID | VFS_SET_GID |
					      VFS_SET_SIZE | VFS_SET_ATIME | VFS_SET_MTIME)));
		CHECK(sa.mode <= 07777);
		CHECK(sa.atime.tv_nsec == UTIME_NOW || (sa.atime.tv_nsec >= 0 &&
							sa.atime.tv_nsec < 1000000000));
		CHECK(sa.mtime.tv_nsec == UTIME_NOW || (sa.mtime.tv_nsec >= 0 &&
							sa.mtime.tv_nsec < 1000000000));
	} else {
		CHECK(sa.mask == 0 && as[0] == 0 && as[1] == 0 && as[2] == 0);
	}

	ver_st = nfs4_attr_verify(&f, &s, &same);
	CHECK((set_st == NFS4ERR_ATTRNOTSUPP) == (ver_st == NFS4ERR_ATTRNOTSUPP));
	CHECK(ver_st == NFS4_OK || !same);

	xdr_enc_init(&e, out, sizeof(out));
	CHECK(nfs4_attr_encode(&e, &f.attrmask, &s));
	xdr_arena_init(&a2, arena2_mem, sizeof(arena2_mem));
	xdr_dec_init(&d, out, xdr_enc_len(&e), &a2);
	CHECK(xdr_dec_fattr4(&d, &g) && xdr_dec_left(&d) == 0);
	if (ver_st == NFS4_OK && same)
		CHECK(g.attr_vals.len == f.attr_vals.len &&
		      memcmp(g.attr_vals.data, f.attr_vals.data, f.attr_vals.len) == 0);
	return 0;
}
