/* SPDX-License-Identifier: MIT */
/* File handle encoding and authentication: see fh.h. */
#include "vfs/fh.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int read_all(int fd, uint8_t *buf, size_t len)
{
	while (len) {
		ssize_t n = read(fd, buf, len);

		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int fh_key_load(const char *state_dir, uint8_t key[FH_KEY_LEN], char *err,
		size_t errlen)
{
	char path[4096], tmp[4096 + 8];
	struct stat st;
	int fd;

	if (sodium_init() < 0) {
		snprintf(err, errlen, "libsodium failed to initialise");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/fh.key", state_dir);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd >= 0) {
		if (fstat(fd, &st) < 0 || st.st_size != FH_KEY_LEN ||
		    read_all(fd, key, FH_KEY_LEN) < 0) {
			snprintf(err, errlen, "%s: not a %u-byte key; remove it to make a new one (clients then lose their file handles)",
				 path, FH_KEY_LEN);
			close(fd);
			return -1;
		}
		close(fd);
		return 0;
	}
	if (errno != ENOENT) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	/* First start: write a new key atomically, readable by root only. */
	randombytes_buf(key, FH_KEY_LEN);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || write(fd, key, FH_KEY_LEN) != FH_KEY_LEN || fsync(fd) < 0 ||
	    close(fd) < 0 || rename(tmp, path) < 0) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		if (fd >= 0)
			unlink(tmp);
		return -1;
	}
	return 0;
}

static void mac(const uint8_t key[FH_KEY_LEN], const uint8_t *in, size_t len,
		uint8_t out[FH_MAC_LEN])
{
	crypto_generichash(out, FH_MAC_LEN, in, len, key, FH_KEY_LEN);
}

int fh_encode(const uint8_t key[FH_KEY_LEN], const struct fh_parts *p,
	      struct nfsx_fh *fh)
{
	uint32_t body;

	if (p->kernel_len > FH_KERNEL_MAX || p->kernel_type < 0 ||
	    p->kernel_type > 255)
		return -1;
	body = FH_HDR_LEN + p->kernel_len;
	fh->data[0] = FH_VERSION;
	fh->data[1] = (uint8_t)p->kernel_type;
	fh->data[2] = (uint8_t)p->kernel_len;
	fh->data[3] = 0;
	fh->data[4] = (uint8_t)(p->export_id >> 24);
	fh->data[5] = (uint8_t)(p->export_id >> 16);
	fh->data[6] = (uint8_t)(p->export_id >> 8);
	fh->data[7] = (uint8_t)p->export_id;
	memcpy(fh->data + FH_HDR_LEN, p->kernel, p->kernel_len);
	mac(key, fh->data, body, fh->data + body);
	fh->len = body + FH_MAC_LEN;
	return 0;
}

bool fh_decode(const uint8_t key[FH_KEY_LEN], const uint8_t *data,
	       uint32_t len, struct fh_parts *p)
{
	uint8_t want[FH_MAC_LEN];
	uint32_t klen;

	if (len < FH_HDR_LEN + FH_MAC_LEN || len > FH_MAX ||
	    data[0] != FH_VERSION || data[3] != 0)
		return false;
	klen = data[2];
	/* The length the handle claims must be the length it has. */
	if (FH_HDR_LEN + klen + FH_MAC_LEN != len)
		return false;
	mac(key, data, FH_HDR_LEN + klen, want);
	if (sodium_memcmp(want, data + FH_HDR_LEN + klen, FH_MAC_LEN) != 0)
		return false;
	p->kernel_type = data[1];
	p->kernel_len = klen;
	p->export_id = (uint32_t)data[4] << 24 | (uint32_t)data[5] << 16 |
		       (uint32_t)data[6] << 8 | data[7];
	memcpy(p->kernel, data + FH_HDR_LEN, klen);
	return true;
}
