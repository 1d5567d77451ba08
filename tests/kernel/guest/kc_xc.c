// SPDX-License-Identifier: MIT
/*
 * kc-xc DIR: NFSv4.2's user xattrs and server-side copy through the
 * kernel NFS client, run in the guest by test.sh's "v42xc" step (built
 * statically by run.sh: busybox has neither setfattr nor
 * copy_file_range). On DIR/xc-src: setxattr of user.kc, getxattr of
 * it, XATTR_CREATE of it again (EEXIST), XATTR_REPLACE of an absent
 * name (ENODATA), listxattr holding it, removexattr, getxattr then
 * ENODATA; then copy_file_range of the whole 300000-byte file into
 * DIR/xc-dst and of a range into its middle, each compared by reading
 * both files. test.sh checks in /proc/self/mountstats that the calls
 * went to the server (COPY, SETXATTR, ... counted), not the client's
 * fallback. Exit status 0 when every step did what it should; messages
 * on stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "kc_util.h"

#define LEN 300000

static unsigned char a[LEN], b[LEN];

static int same(const char *dst, const unsigned char *want, size_t len)
{
	int fd = open(dst, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = pread(fd, b, sizeof(b), 0);
	close(fd);
	return n == (ssize_t)len && !memcmp(b, want, len);
}

int main(int argc, char **argv)
{
	char src[512], dst[512], list[4096], v[64];
	int fs, fd, i;
	ssize_t n;
	loff_t so, d;
	size_t done;

	kc_name = "kc-xc";
	if (argc != 2)
		return kc_fail("usage: kc-xc DIR", 0);
	snprintf(src, sizeof(src), "%s/xc-src", argv[1]);
	snprintf(dst, sizeof(dst), "%s/xc-dst", argv[1]);
	for (i = 0; i < LEN; i++)
		a[i] = (unsigned char)(i * 131 + i / 256);
	fs = open(src, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fs < 0 || write(fs, a, LEN) != LEN || fsync(fs) < 0)
		return kc_fail("write xc-src", fs);
	if (setxattr(src, "user.kc", "value1", 6, 0) < 0)
		return kc_fail("setxattr user.kc", -1);
	memset(v, 0, sizeof(v));
	n = getxattr(src, "user.kc", v, sizeof(v));
	if (n != 6 || memcmp(v, "value1", 6))
		return kc_fail("getxattr user.kc is not value1", n);
	if (setxattr(src, "user.kc", "x", 1, XATTR_CREATE) == 0 || errno != EEXIST)
		return kc_fail("XATTR_CREATE of an existing name: not EEXIST", -1);
	if (setxattr(src, "user.none", "x", 1, XATTR_REPLACE) == 0 || errno != ENODATA)
		return kc_fail("XATTR_REPLACE of an absent name: not ENODATA", -1);
	n = listxattr(src, list, sizeof(list));
	if (n <= 0 || !memmem(list, (size_t)n, "user.kc", 8))
		return kc_fail("listxattr lacks user.kc", n);
	if (removexattr(src, "user.kc") < 0)
		return kc_fail("removexattr user.kc", -1);
	if (getxattr(src, "user.kc", v, sizeof(v)) >= 0 || errno != ENODATA)
		return kc_fail("getxattr after removexattr: not ENODATA", -1);
	fd = open(dst, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return kc_fail("create xc-dst", fd);
	for (done = 0; done < LEN; done += (size_t)n) {
		so = (loff_t)done;
		d = (loff_t)done;
		n = copy_file_range(fs, &so, fd, &d, LEN - done, 0);
		if (n <= 0)
			return kc_fail("copy_file_range of the whole file", n);
	}
	if (fsync(fd) < 0 || !same(dst, a, LEN))
		return kc_fail("xc-dst differs from xc-src after the whole copy", 0);
	/* [1000, 4000) of the source over [5000, 8000) of the copy */
	so = 1000;
	d = 5000;
	n = copy_file_range(fs, &so, fd, &d, 3000, 0);
	if (n != 3000)
		return kc_fail("copy_file_range of a range", n);
	memcpy(a + 5000, a + 1000, 3000);
	for (i = 1000; i < 4000; i++)
		a[i] = (unsigned char)(i * 131 + i / 256);
	if (fsync(fd) < 0 || !same(dst, a, LEN))
		return kc_fail("xc-dst differs after the range copy", 0);
	close(fd);
	close(fs);
	return 0;
}
