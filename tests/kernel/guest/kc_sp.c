// SPDX-License-Identifier: MIT
/*
 * kc-sp write|seek|read FILE: NFSv4.2's sparse-file operations through
 * the kernel NFS client, run in the guest by test.sh's "v42sp" step
 * (built statically by run.sh, as kc-xc is: busybox has no fallocate
 * with a punch and no SEEK_DATA). The step runs the three phases in turn
 * and drops the client's caches between them, so that what the client
 * wrote has reached the server and the answers come from it.
 *
 *   write  FILE of 2 MiB: data [0, 64K), a hole to 1M, data [1M, 1M+64K),
 *          a hole to eof (ftruncate); fsync.
 *   seek   SEEK_DATA/SEEK_HOLE from offsets in each part of that layout
 *          (ENXIO past the last data and at eof); fallocate(0) of
 *          [256K, 512K) (st_blocks grows by at least its size, the size
 *          stays); FALLOC_FL_PUNCH_HOLE|KEEP_SIZE of [1M+16K, 1M+48K),
 *          which SEEK_HOLE and SEEK_DATA then find; then both ranges read
 *          back as zeros. The seeks come before those reads: a read may
 *          fill a hole in some file systems (tmpfs through a mapping).
 *          Prints the number of lseek calls made, which test.sh compares
 *          with the SEEKs counted in /proc/self/mountstats: the kernel
 *          answers by itself (the whole file data) once the server said
 *          NOTSUPP.
 *   read   the whole file, compared with the layout after "seek": the
 *          read that goes out as READ_PLUS where the client uses it; then
 *          the holes are still found where they were (the server's read
 *          filled none). The allocated range is not sought: whether
 *          SEEK_DATA sees unwritten blocks as data differs between file
 *          systems and with what their page cache holds.
 *
 * Exit status 0 when every check held; messages on stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kc_util.h"

#define K 1024L
#define M (1024L * 1024L)
#define SIZE (2 * M)

static unsigned char want[SIZE], got[SIZE];
static int nseek;

static unsigned char pat(long i)
{
	return (unsigned char)(i * 131 + i / 4096 + 1);
}

/* want[] as the file is after "write" (punched false) or "seek" (true) */
static void layout(int punched)
{
	long i;

	memset(want, 0, sizeof(want));
	for (i = 0; i < 64 * K; i++) {
		want[i] = pat(i);
		want[M + i] = pat(M + i);
	}
	if (punched)
		memset(want + M + 16 * K, 0, 32 * K);
}

/* lseek(@whence) from @from must give @to, or ENXIO when @to is -1 */
static int seek_is(int fd, int whence, long from, long to)
{
	const char *w = whence == SEEK_DATA ? "SEEK_DATA" : "SEEK_HOLE";
	off_t r;

	nseek++;
	errno = 0;
	r = lseek(fd, from, whence);
	if (to < 0 && r < 0 && errno == ENXIO)
		return 0;
	if (r == to)
		return 0;
	fprintf(stderr, "kc-sp: lseek(%ld, %s) = %ld (errno %d %s), want %ld%s\n", from, w,
		(long)r, errno, strerror(errno), to, to < 0 ? " (ENXIO)" : "");
	return 1;
}

static int zeros(int fd, long off, long len)
{
	long i;

	if (pread(fd, got, (size_t)len, off) != len)
		return 0;
	for (i = 0; i < len; i++)
		if (got[i])
			return 0;
	return 1;
}

static int do_write(const char *f)
{
	int fd = open(f, O_RDWR | O_CREAT | O_TRUNC, 0644);

	layout(0);
	if (fd < 0)
		return kc_fail("create", fd);
	if (pwrite(fd, want, 64 * K, 0) != 64 * K ||
	    pwrite(fd, want + M, 64 * K, M) != 64 * K)
		return kc_fail("write the data", -1);
	if (ftruncate(fd, SIZE) < 0 || fsync(fd) < 0)
		return kc_fail("ftruncate to 2 MiB, fsync", -1);
	return close(fd) < 0 ? kc_fail("close", -1) : 0;
}

static int do_seek(const char *f)
{
	int fd = open(f, O_RDWR), bad = 0;
	struct stat a, b;

	if (fd < 0)
		return kc_fail("open", fd);
	/* the layout "write" made */
	bad |= seek_is(fd, SEEK_DATA, 0, 0);
	bad |= seek_is(fd, SEEK_DATA, 32 * K, 32 * K);
	bad |= seek_is(fd, SEEK_HOLE, 0, 64 * K);
	bad |= seek_is(fd, SEEK_DATA, 64 * K, M);
	bad |= seek_is(fd, SEEK_HOLE, 512 * K, 512 * K);
	bad |= seek_is(fd, SEEK_HOLE, M, M + 64 * K);
	bad |= seek_is(fd, SEEK_DATA, M + 64 * K, -1);
	bad |= seek_is(fd, SEEK_HOLE, SIZE - 1, SIZE - 1);
	bad |= seek_is(fd, SEEK_HOLE, SIZE, -1);
	if (bad)
		return kc_fail("SEEK_DATA/SEEK_HOLE disagree with the layout written", 0);

	/* allocate a range of the first hole */
	if (fstat(fd, &a) < 0)
		return kc_fail("fstat", -1);
	if (fallocate(fd, 0, 256 * K, 256 * K) < 0)
		return kc_fail("fallocate(0) of [256K, 512K)", -1);
	if (fstat(fd, &b) < 0)
		return kc_fail("fstat", -1);
	fprintf(stderr, "kc-sp: st_blocks %ld -> %ld after fallocate(0) of 256 KiB\n",
		(long)a.st_blocks, (long)b.st_blocks);
	if (b.st_blocks - a.st_blocks < 256 * K / 512)
		return kc_fail("st_blocks grew by less than the range allocated",
			    (long)(b.st_blocks - a.st_blocks));
	if (b.st_size != SIZE)
		return kc_fail("fallocate(0) inside the file changed its size", (long)b.st_size);

	/* punch the middle of the second data range */
	if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, M + 16 * K, 32 * K) < 0)
		return kc_fail("fallocate(PUNCH_HOLE|KEEP_SIZE) of [1M+16K, 1M+48K)", -1);
	bad |= seek_is(fd, SEEK_HOLE, M, M + 16 * K);
	bad |= seek_is(fd, SEEK_DATA, M + 16 * K, M + 48 * K);
	bad |= seek_is(fd, SEEK_HOLE, M + 48 * K, M + 64 * K);
	if (bad)
		return kc_fail("SEEK_DATA/SEEK_HOLE do not find the punched hole", 0);
	if (fstat(fd, &b) < 0 || b.st_size != SIZE)
		return kc_fail("the punch with KEEP_SIZE changed the size", (long)b.st_size);

	if (!zeros(fd, 256 * K, 256 * K))
		return kc_fail("the allocated range does not read as zeros", 0);
	if (!zeros(fd, M + 16 * K, 32 * K))
		return kc_fail("the punched range does not read as zeros", 0);
	if (close(fd) < 0)
		return kc_fail("close", -1);
	printf("%d\n", nseek);
	return 0;
}

static int do_read(const char *f)
{
	int fd = open(f, O_RDONLY);
	long n = 0, r, i;

	layout(1);
	if (fd < 0)
		return kc_fail("open", fd);
	/* short reads are legal: read until eof */
	while ((r = read(fd, got + n, (size_t)(SIZE - n))) > 0)
		n += r;
	if (r < 0)
		return kc_fail("read", r);
	if (n != SIZE)
		return kc_fail("read back a length other than 2 MiB", n);
	for (i = 0; i < SIZE; i++)
		if (got[i] != want[i]) {
			fprintf(stderr, "kc-sp: byte %ld is %u, want %u\n", i, got[i], want[i]);
			return kc_fail("the file read back differs from its layout", i);
		}
	/* the read filled no hole on the server */
	if (seek_is(fd, SEEK_HOLE, 0, 64 * K) || seek_is(fd, SEEK_HOLE, 128 * K, 128 * K) ||
	    seek_is(fd, SEEK_HOLE, M, M + 16 * K) || seek_is(fd, SEEK_DATA, M + 16 * K, M + 48 * K))
		return kc_fail("holes gone after the file was read", 0);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	kc_name = "kc-sp";
	if (argc == 3 && !strcmp(argv[1], "write"))
		return do_write(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "seek"))
		return do_seek(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "read"))
		return do_read(argv[2]);
	return kc_fail("usage: kc-sp write|seek|read FILE", 0);
}
