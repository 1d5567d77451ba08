/* SPDX-License-Identifier: MIT */
/*
 * The nfs3-bulk test, its tmpfs half (called from test_nfs3_bulk.c's
 * main): a WRITE within the file's size goes through a mapping the
 * server keeps (seen in /proc/PID/maps), which must still update the
 * times, strip set-id bits, survive a truncation and go with a REMOVE;
 * large READs go out from a kept read-only mapping. On both kinds of
 * export: a file the server holds, removed on its file system by someone
 * else, is let go within seconds.
 */
#include "bulk_wire.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"

/* Is @shown (a /proc maps or fd path) the export's file @rel, maybe
 * removed since? nfsxd reaches the export through a private view of its
 * mount, so the kernel shows the path from the export root ("/rel");
 * without a view (no CAP_SYS_ADMIN, or under valgrind, which lacks
 * open_tree) the whole path. */
static bool shows(const char *shown, const char *rel)
{
	char want[2][4300];
	int i;

	snprintf(want[0], sizeof(want[0]), "/%s", rel);
	snprintf(want[1], sizeof(want[1]), "%s/%s", base, rel);
	for (i = 0; i < 2; i++) {
		size_t n = strlen(want[i]);

		if (!strncmp(shown, want[i], n) &&
		    (!shown[n] || !strcmp(shown + n, " (deleted)")))
			return true;
	}
	return false;
}

/* How many times nfsxd @pid maps the file at @rel (maybe removed since)
 * with permissions @perms ("rw-s"), or any when @perms is NULL. */
static int server_maps_n(pid_t pid, const char *rel, const char *perms)
{
	char path[4200], line[4600];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/'), *sp = strchr(line, ' ');

		line[strcspn(line, "\n")] = 0;
		if (p && shows(p, rel) && (!perms || (sp && !strncmp(sp + 1, perms, 4))))
			found++;
	}
	fclose(f);
	return found;
}

static bool server_maps(pid_t pid, const char *rel)
{
	return server_maps_n(pid, rel, NULL) > 0;
}

/*
 * Whether a removed file is gone, blocks and all, asked of the file
 * itself: a handle taken before the removal opens the unlinked inode while
 * anything holds it (a descriptor, a mapping), and is stale once the inode
 * is freed (ext4 and tmpfs). The file system's free block count said the
 * same only when nothing else wrote there meanwhile, and the tests share
 * /tmp and /dev/shm with every other process on the machine.
 */
struct handle {
	union {
		struct file_handle h;
		char buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} u;
};

static bool handle_of(const char *rel, struct handle *h)
{
	char path[4200];
	int mnt;

	snprintf(path, sizeof(path), "%s/%s", base, rel);
	h->u.h.handle_bytes = MAX_HANDLE_SZ;
	return name_to_handle_at(AT_FDCWD, path, &h->u.h, &mnt, 0) == 0;
}

/* Return values: 1 freed, 0 still there, -errno when it cannot be told
 * (open_by_handle_at needs CAP_DAC_READ_SEARCH). */
static int freed(struct handle *h)
{
	int mfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd, err;

	if (mfd < 0)
		return -errno;
	fd = open_by_handle_at(mfd, &h->u.h, O_PATH | O_CLOEXEC);
	err = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	close(mfd);
	return fd >= 0 ? 0 : err == ESTALE ? 1 : -err;
}

static void ok_freed(struct handle *h, int r)
{
	if (r == -EPERM)
		printf("ok %d - # SKIP whether its inode and blocks are freed: not root\n", ++tap__n);
	else
		ok(r == 1, "its inode is freed, and its blocks (handle: %s)",
		   r == 1 ? "stale" : r == 0 ? "still opens" : strerror(-r));
}

static void local_file(const char *rel, off_t size, uid_t uid, mode_t mode)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", base, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, size) < 0 || fchown(fd, uid, uid) < 0 ||
	    fchmod(fd, mode) < 0)
		printf("# cannot make %s\n", path);
	if (fd >= 0)
		close(fd);
}

static long long ns_of(struct timespec t)
{
	return (long long)t.tv_sec * 1000000000ll + t.tv_nsec;
}

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return ns_of(t);
}

/* Send the first 300000 bytes of a 1 MiB WRITE of @data (filled from
 * @seed) at @off into @rec, and give the server 100 ms to take them.
 * Return values: its xid; 0 when the send failed. */
static uint32_t start_write(int fd, const struct raw_fh *f, uint64_t off, uint8_t *data,
			    uint32_t seed, struct rpc_buf *rec)
{
	struct rpc_buf m;
	uint32_t xid = rpc_next_xid();

	rpc_buf_init(&m);
	fill(data, MIB, seed);
	write_msg(&m, xid, f, off, MIB, UNSTABLE, data, MIB);
	rpc_buf_reset(rec);
	rpc_buf_put_record(rec, m.data, m.len);
	rpc_buf_free(&m);
	if (rpc_send_raw(fd, rec->data, 300000, TMO) != 0)
		return 0;
	usleep(100000);
	return xid;
}

/*
 * Within the file's size, on a memory-backed export, the data goes into
 * a mapping of the file that the server keeps: what write(2) does to the
 * inode must still happen, once the data is in: mtime and ctime move to
 * the time of the last data, and a set-id bit set while the data was on
 * its way is stripped (the caller is not root). And a truncation while
 * the data is on its way must cost neither the server nor the stream.
 */
void test_mapped(int fd, pid_t pid, uint8_t *data)
{
	struct raw_fh root, s;
	struct rpc_buf rec;
	struct stat st;
	struct wr w;
	char path[4200];
	long long t1;
	uint32_t xid;

	rpc_buf_init(&rec);
	ok(server_maps(pid, "f"), "an overwrite on tmpfs went through a mapping of the file");

	local_file("s", 2 * MIB, 1000, 0644);
	cred_uid = cred_gid = 1000;
	ok(raw_mnt(fd, base, &root) == 0 && raw_lookup(fd, &root, "s", &s) == 0 &&
	   write1(fd, &s) == NFS3_OK, "file s (uid 1000, 2 MiB): a 1-byte WRITE as uid 1000");
	xid = start_write(fd, &s, MIB, data, 8, &rec);
	ok(xid != 0, "300 KB of a 1 MiB WRITE at 1 MiB");
	snprintf(path, sizeof(path), "%s/s", base);
	ok(chmod(path, 06755) == 0, "meanwhile: chmod 6755");
	usleep(50000);
	t1 = now_ns();
	ok(rpc_send_raw(fd, rec.data + 300000, rec.len - 300000, TMO) == 0, "the rest");
	recv_reply(fd, &w);
	ok(w.rc == 1 && w.r.xid == xid && w.status == NFS3_OK && w.count == MIB,
	   "reply: OK, count 1 MiB (status %ld count %u)", w.status, w.count);
	rpc_buf_free(&w.raw);
	ok(local_same("s", MIB, data, MIB), "the file holds the data");
	ok(server_maps(pid, "s"), "through a mapping");
	/* 10 ms of slack: the kernel's timestamps may come from a coarser
	 * clock (the data before it went 150 ms earlier) */
	if (!local_stat("s", &st))
		memset(&st, 0, sizeof(st));
	ok(ns_of(st.st_mtim) >= t1 - 10000000 && ns_of(st.st_ctim) >= t1 - 10000000,
	   "mtime and ctime from after the last data was sent (%lld and %lld ns after)",
	   ns_of(st.st_mtim) - t1, ns_of(st.st_ctim) - t1);
	ok((st.st_mode & 07777) == 0755, "the set-id bits are stripped (mode %o)",
	   (unsigned)(st.st_mode & 07777));
	cred_uid = cred_gid = 0;

	/* Truncated to nothing in the middle of the data. */
	xid = start_write(fd, &s, 0, data, 9, &rec);
	ok(xid != 0, "300 KB of a 1 MiB WRITE at 0");
	ok(truncate(path, 0) == 0, "meanwhile: the file truncated to 0");
	ok(rpc_send_raw(fd, rec.data + 300000, rec.len - 300000, TMO) == 0, "the rest");
	recv_reply(fd, &w);
	ok(w.rc == 1 && w.r.xid == xid && w.status == NFS3_OK && w.count == MIB,
	   "reply: OK, count 1 MiB (status %ld count %u)", w.status, w.count);
	rpc_buf_free(&w.raw);
	if (!local_stat("s", &st))
		memset(&st, 0, sizeof(st));
	ok(st.st_size == (off_t)MIB && local_same("s", 400000, data + 400000, MIB - 400000),
	   "what came after the truncation is in the file, which is 1 MiB again (size %lld)",
	   (long long)st.st_size);
	ok(in_step(fd), "in step after it");
	rpc_buf_free(&rec);
}

/* The mapping of a removed file goes when it is removed: no space pinned. */
void test_mapped_remove(int fd, pid_t pid, uint8_t *data)
{
	struct raw_fh root, r;
	struct rpc_buf m, a;
	struct raw_res res;
	struct handle h;
	struct wr w;

	rpc_buf_init(&m);
	rpc_buf_init(&a);
	local_file("r", 4 * MIB, 0, 0644);
	ok(handle_of("r", &h) && raw_mnt(fd, base, &root) == 0 && raw_lookup(fd, &root, "r", &r) == 0 &&
	   write1(fd, &r) == NFS3_OK, "file r (4 MiB): a 1-byte WRITE");
	fill(data, MIB, 10);
	write_msg(&m, rpc_next_xid(), &r, MIB, MIB, UNSTABLE, data, MIB);
	rpc_send_record(fd, m.data, m.len);
	recv_reply(fd, &w);
	ok(w.rc == 1 && w.status == NFS3_OK && w.count == MIB && local_same("r", MIB, data, MIB) &&
	   server_maps(pid, "r"), "a 1 MiB WRITE into it: OK, through a mapping");
	rpc_buf_free(&w.raw);
	rpc_buf_put_opaque(&a, root.d, root.len);
	rpc_buf_put_string(&a, "r");
	rpc_buf_init(&res.store);
	raw_call(fd, PROG_NFS, 12 /* REMOVE */, &a, &res);
	ok(raw_accepted(&res), "REMOVE r");
	if (!raw_accepted(&res))
		raw_diag(&res);
	rpc_buf_free(&res.store);
	ok(!server_maps(pid, "r"), "the server no longer maps it");
	ok_freed(&h, freed(&h));
	rpc_buf_free(&m);
	rpc_buf_free(&a);
}

static void local_write(const char *rel, const uint8_t *p, size_t n)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", base, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, p, n) != (ssize_t)n)
		printf("# cannot write %s\n", path);
	if (fd >= 0)
		close(fd);
}

/* READ @count at @off of @f as root: the data into @out, its length. */
static long raw_read(int fd, const struct raw_fh *f, uint64_t off, uint32_t count,
		     uint8_t *out)
{
	struct rpc_buf a;
	struct raw_res res;
	struct rpc_cur c;
	const uint8_t *p;
	uint32_t len = 0;
	long got = -1;

	rpc_buf_init(&a);
	rpc_buf_put_opaque(&a, f->d, f->len);
	rpc_buf_put_u32(&a, (uint32_t)(off >> 32));
	rpc_buf_put_u32(&a, (uint32_t)off);
	rpc_buf_put_u32(&a, count);
	rpc_buf_init(&res.store);
	raw_call(fd, PROG_NFS, 6 /* READ */, &a, &res);
	if (raw_accepted(&res)) {
		c = raw_cur(&res);
		if (rpc_cur_u32(&c) == NFS3_OK) {
			if (rpc_cur_u32(&c))
				rpc_cur_skip(&c, 84);
			rpc_cur_u32(&c); /* count */
			rpc_cur_u32(&c); /* eof */
			p = rpc_cur_opaque(&c, &len, count);
			if (p && !c.bad) {
				memcpy(out, p, len);
				got = len;
			}
		}
	}
	rpc_buf_free(&res.store);
	rpc_buf_free(&a);
	return got;
}

/*
 * Large READs on tmpfs go out from a read-only mapping of the file that
 * the server keeps with the file's node, one for every READ; it goes
 * when the file is removed.
 */
void test_read_mapped(int fd, pid_t pid, uint8_t *data)
{
	struct raw_fh root, q;
	struct rpc_buf a;
	struct raw_res res;
	uint8_t *got = malloc(MIB);
	bool same = true;
	int i;

	fill(data, 2 * MIB, 11);
	local_write("q", data, 2 * MIB);
	ok(raw_mnt(fd, base, &root) == 0 && raw_lookup(fd, &root, "q", &q) == 0,
	   "file q (2 MiB)");
	for (i = 0; i < 3; i++) {
		uint64_t off = (uint64_t)i * 300001u;

		if (raw_read(fd, &q, off, MIB, got) != (long)MIB || memcmp(got, data + off, MIB))
			same = false;
	}
	ok(same, "three 1 MiB READs at odd offsets: the data");
	ok(server_maps_n(pid, "q", "r--s") == 1, "from one read-only mapping the server keeps (%d)",
	   server_maps_n(pid, "q", "r--s"));
	ok(raw_read(fd, &q, 2 * MIB - 100000, MIB, got) == 100000 &&
	   !memcmp(got, data + 2 * MIB - 100000, 100000), "a READ past the end: the 100000 bytes there");
	{
		char path[4200];
		int qfd;

		snprintf(path, sizeof(path), "%s/q", base);
		qfd = open(path, O_WRONLY | O_APPEND);
		ok(qfd >= 0 && write(qfd, data, MIB) == (ssize_t)MIB, "1 MiB appended to q");
		if (qfd >= 0)
			close(qfd);
	}
	ok(raw_read(fd, &q, 2 * MIB - 4096, MIB, got) == (long)MIB &&
	   !memcmp(got, data + 2 * MIB - 4096, 4096) && !memcmp(got + 4096, data, MIB - 4096),
	   "a READ across the old end (past the kept mapping): the data");
	rpc_buf_init(&a);
	rpc_buf_put_opaque(&a, root.d, root.len);
	rpc_buf_put_string(&a, "q");
	rpc_buf_init(&res.store);
	raw_call(fd, PROG_NFS, 12 /* REMOVE */, &a, &res);
	ok(raw_accepted(&res) && !server_maps(pid, "q"), "REMOVE q: no longer mapped");
	rpc_buf_free(&res.store);
	rpc_buf_free(&a);
	free(got);
}

/* Does nfsxd @pid hold a descriptor of @rel (maybe removed since)? */
static bool server_holds(pid_t pid, const char *rel)
{
	char dir[64], path[4400], link[4400];
	bool found = false;
	int i;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	for (i = 0; i < 4096 && !found; i++) {
		ssize_t n;

		snprintf(path, sizeof(path), "%s/%d", dir, i);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		if (shows(link, rel))
			found = true;
	}
	return found;
}

/*
 * A file the server has cached (descriptors, a mapping), removed by
 * someone else: the server lets it go within a few seconds (its sweep
 * runs every 2 s), so its blocks are freed.
 */
void test_removed_locally(int fd, pid_t pid, uint8_t *data, bool mem)
{
	struct raw_fh root, d;
	struct rpc_buf m;
	struct handle h;
	struct wr w;
	char path[4200];
	long long until;

	rpc_buf_init(&m);
	local_file("d", 4 * MIB, 0, 0644);
	fill(data, MIB, 12);
	ok(handle_of("d", &h) && raw_mnt(fd, base, &root) == 0 && raw_lookup(fd, &root, "d", &d) == 0 &&
	   write1(fd, &d) == NFS3_OK, "file d (4 MiB): a 1-byte WRITE");
	write_msg(&m, rpc_next_xid(), &d, MIB, MIB, UNSTABLE, data, MIB);
	rpc_send_record(fd, m.data, m.len);
	recv_reply(fd, &w);
	ok(w.rc == 1 && w.status == NFS3_OK && server_holds(pid, "d") && (!mem || server_maps(pid, "d")),
	   "a 1 MiB WRITE into it; the server holds%s it", mem ? " and maps" : "");
	rpc_buf_free(&w.raw);
	snprintf(path, sizeof(path), "%s/d", base);
	ok(unlink(path) == 0, "d removed on the server's file system, not through NFS");
	/* The inode goes just after the last close or munmap returns: wait
	 * for that too, in the same 6 s. */
	until = rpc_now_ms() + 6000;
	while ((server_holds(pid, "d") || server_maps(pid, "d") || freed(&h) == 0) &&
	       rpc_now_ms() < until)
		usleep(50000);
	ok(!server_holds(pid, "d") && !server_maps(pid, "d"),
	   "within 6 s the server neither holds nor maps it");
	ok_freed(&h, freed(&h));
	rpc_buf_free(&m);
}
