/* SPDX-License-Identifier: MIT */
/*
 * File handles: what a client holds for a file, at most 64 bytes
 * (NFSv3's limit), stable across server restarts, and authenticated so
 * that a client cannot forge a handle for a file it was never given.
 *
 * Layout (all in one opaque, version first so it can change):
 *   0     version (2)
 *   1     kernel handle type (name_to_handle_at)
 *   2     kernel handle length, at most FH_KERNEL_MAX
 *   3     flags, 0
 *   4..7  export id, big-endian
 *   8..   the kernel handle
 *   last 16 bytes: SipHash-2-4 with a 128-bit tag (libsodium
 *   crypto_shorthash_siphashx24) of everything before it, keyed with the
 *   first 16 bytes of the server's 32-byte secret, kept in the state
 *   directory so handles survive restarts. SipHash because every NFS
 *   call checks a tag; handles of an earlier layout (version 1) are
 *   refused as stale (fh_old_version).
 */
#ifndef NFSX_VFS_FH_H
#define NFSX_VFS_FH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FH_MAX 64u
#define FH_MAC_LEN 16u
#define FH_HDR_LEN 8u
#define FH_KERNEL_MAX (FH_MAX - FH_HDR_LEN - FH_MAC_LEN)
#define FH_KEY_LEN 32u
#define FH_VERSION 2u

struct nfsx_fh {
	uint32_t len;
	uint8_t data[FH_MAX];
};

/* What a handle names, once authenticated. */
struct fh_parts {
	uint32_t export_id;
	int kernel_type;
	uint32_t kernel_len;
	uint8_t kernel[FH_KERNEL_MAX];
};

/*
 * fh_key_load - read the server secret from @state_dir/fh.key, creating
 * it (random, mode 0600, through a synced temporary file and rename,
 * then the directory synced) on first start. @state_dir must belong to
 * the effective uid and not be writable by group or others; an existing
 * key must be a regular file of the effective uid with no group or
 * other permission bits.
 * Return values: 0, or -1 with a message in @err naming the file and
 * the fix.
 */
int fh_key_load(const char *state_dir, uint8_t key[FH_KEY_LEN], char *err,
		size_t errlen);

/* Return values: 0, or -1 when the kernel handle is too long for FH_MAX. */
int fh_encode(const uint8_t key[FH_KEY_LEN], const struct fh_parts *p,
	      struct nfsx_fh *fh);

/*
 * fh_old_version - a handle an earlier nfsxd made, in a layout of an
 * earlier version: refused as stale rather than bad, so that a client
 * mounted across an upgrade looks its paths up again (ESTALE) instead
 * of failing with an error it does not handle. Nothing of it is trusted.
 */
bool fh_old_version(const uint8_t *data, uint32_t len);

/*
 * fh_decode - check and split a handle a client sent.
 * Return values: true when it is well formed and its MAC verifies;
 * false for anything else (the caller answers NFS3ERR_BADHANDLE, or
 * NFS3ERR_STALE for fh_old_version's).
 */
bool fh_decode(const uint8_t key[FH_KEY_LEN], const uint8_t *data,
	       uint32_t len, struct fh_parts *p);

#endif
