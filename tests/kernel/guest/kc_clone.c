// SPDX-License-Identifier: MIT
/*
 * kc-clone DIR: NFSv4.2's CLONE through the kernel NFS client, run in the
 * guest by test.sh's "v42clone" step (built statically by run.sh). On
 * DIR/cl-src, 1 MiB and 1000 bytes of a pattern: FICLONE of the whole file
 * into DIR/cl-dst, then FICLONERANGE of [128 KiB, 192 KiB) of the source
 * over [512 KiB, 576 KiB) of the copy, each compared by reading both
 * files back; then a write to the source's first 4 KiB, after which the
 * copy must still hold the old bytes (no aliasing: what a clone must
 * keep, though a copy of the bytes keeps it too; that the blocks are
 * shared is nfs4-clone-xfs's to check, with FIEMAP on the server). The
 * reads are O_DIRECT, so that the bytes come from the server, not from
 * the client's cache of what it was told it cloned.
 * Exit status: 0 when every step did what it should; 3 when the first
 * FICLONE failed with EOPNOTSUPP (the server answered CLONE NOTSUPP: its
 * file system shares no blocks), which test.sh expects on such exports;
 * 1 otherwise. Messages on stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kc_util.h"

#define LEN (1048576 + 1000)
#define BUF (LEN + 4096 * 2)

static unsigned char a[LEN];
static unsigned char *b;

/* @path's bytes are @want's @len, read with O_DIRECT */
static int same(const char *path, const unsigned char *want, size_t len)
{
	int fd = open(path, O_RDONLY | O_DIRECT);
	size_t got = 0;
	ssize_t n;

	if (fd < 0)
		return 0;
	while ((n = pread(fd, b + got, BUF - got, (off_t)got)) > 0)
		got += (size_t)n;
	close(fd);
	return n == 0 && got == len && !memcmp(b, want, len);
}

int main(int argc, char **argv)
{
	static unsigned char old[LEN];
	char src[512], dst[512];
	struct file_clone_range r;
	int fs, fd, i;

	kc_name = "kc-clone";
	if (argc != 2)
		return kc_fail("usage: kc-clone DIR", 0);
	if (posix_memalign((void **)&b, 4096, BUF) != 0)
		return kc_fail("posix_memalign", 0);
	snprintf(src, sizeof(src), "%s/cl-src", argv[1]);
	snprintf(dst, sizeof(dst), "%s/cl-dst", argv[1]);
	for (i = 0; i < LEN; i++)
		a[i] = (unsigned char)(i * 7 + i / 4096);
	fs = open(src, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fs < 0 || write(fs, a, LEN) != LEN || fsync(fs) < 0)
		return kc_fail("write cl-src", fs);
	fd = open(dst, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return kc_fail("create cl-dst", fd);
	if (ioctl(fd, FICLONE, fs) < 0) {
		if (errno == EOPNOTSUPP) {
			fprintf(stderr, "kc-clone: FICLONE: EOPNOTSUPP\n");
			return 3;
		}
		return kc_fail("FICLONE of the whole file", -1);
	}
	if (!same(dst, a, LEN))
		return kc_fail("cl-dst differs from cl-src after FICLONE", 0);
	/* the copy: its [512 KiB, 576 KiB) becomes the source's [128, 192) */
	memcpy(old, a, LEN);
	r = (struct file_clone_range){ .src_fd = fs, .src_offset = 131072,
				       .src_length = 65536, .dest_offset = 524288 };
	if (ioctl(fd, FICLONERANGE, &r) < 0)
		return kc_fail("FICLONERANGE of 64 KiB", -1);
	memcpy(old + 524288, a + 131072, 65536);
	if (!same(dst, old, LEN))
		return kc_fail("cl-dst differs after FICLONERANGE", 0);
	/* copy on write: the source changes, the copy does not */
	memset(a, 0x5a, 4096);
	if (pwrite(fs, a, 4096, 0) != 4096 || fsync(fs) < 0)
		return kc_fail("write to cl-src after the clone", -1);
	if (!same(src, a, LEN))
		return kc_fail("cl-src does not hold the write", 0);
	if (!same(dst, old, LEN))
		return kc_fail("cl-dst changed with its source: blocks not copied on write", 0);
	close(fd);
	close(fs);
	return 0;
}
