/* SPDX-License-Identifier: MIT */
/*
 * Large WRITEs on the wire, the way the server's bulk path sees them
 * (src/rpc/bulk.c: on a memory-backed export the data of a large WRITE
 * is spliced from the socket into the file as it arrives). The same
 * checks run on a disk export, where the ordinary path answers; the
 * answers must not differ:
 *   - data arriving in small pieces with pauses, FILE_SYNC;
 *   - WRITEs (one with XDR padding) and a NULL sent back to back;
 *   - a WRITE in two fragments;
 *   - a retransmission (same xid, same connection) gets the first reply
 *     byte for byte and is not executed again;
 *   - a client that closes in the middle of the data; another is served;
 *   - count larger than the data (GARBAGE_ARGS), a data length past the
 *     end of the record (GARBAGE_ARGS), bytes after the data; the
 *     connection stays in step after each;
 *   - a file system that fills up in the middle of the data (a small
 *     tmpfs export, when the wrapper could mount one): a short count or
 *     NOSPC, and the connection stays in step.
 * The local files are read directly to check the data.
 *
 *   - a reload (SIGHUP) while a WRITE waits for its data: the other
 *     calls follow the new exports at once;
 *   - SIGTERM in the middle of a WRITE's data (the last test).
 * On tmpfs also: a WRITE within the file's size goes through a mapping
 * the server keeps (seen in /proc/PID/maps), which must still update the
 * times, strip set-id bits, survive a truncation and go with a REMOVE;
 * large READs go out from a kept read-only mapping. On both: a file the
 * server holds, removed on its file system by someone else, is let go
 * within seconds.
 *
 * Usage: test_nfs3_bulk PORT BASE PID EXPORTS
 *   (nfsxd PID exports BASE/exp and maybe BASE/small, from the file EXPORTS)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "nfs3_raw.h"
#include "tap.h"

#define NFSPROC_NULL 0
#define NFSPROC_WRITE 7
#define NFS3_OK 0
#define NFS3ERR_NOSPC 28
#define NFS3ERR_ROFS 30
#define FILE_SYNC 2
#define UNSTABLE 0
#define TMO 10000
#define MIB (1u << 20)

static uint16_t port;
static const char *base, *base_top, *base_exp;
static uint32_t cred_uid, cred_gid; /* AUTH_SYS of the WRITEs sent */

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;
	size_t i;

	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (uint8_t)x;
	}
}

/* The WRITE call message (no record marker), count and data length given
 * separately so that a test can make them disagree. */
static void write_msg(struct rpc_buf *out, uint32_t xid, const struct raw_fh *f,
		      uint64_t off, uint32_t count, uint32_t stable, const uint8_t *data,
		      uint32_t len)
{
	struct rpc_buf cred, args;
	struct rpc_call c;

	rpc_buf_init(&cred);
	rpc_buf_init(&args);
	rpc_authsys_encode(&cred, 0, "nfsx-test", cred_uid, cred_gid, NULL, 0);
	rpc_buf_put_opaque(&args, f->d, f->len);
	rpc_buf_put_u32(&args, (uint32_t)(off >> 32));
	rpc_buf_put_u32(&args, (uint32_t)off);
	rpc_buf_put_u32(&args, count);
	rpc_buf_put_u32(&args, stable);
	rpc_buf_put_opaque(&args, data, len);
	rpc_call_init(&c, xid, PROG_NFS, 3, NFSPROC_WRITE);
	c.cred_flavor = AUTH_SYS;
	c.cred_body = cred.data;
	c.cred_len = cred.len;
	c.args = args.data;
	c.args_len = args.len;
	rpc_call_encode(out, &c);
	rpc_buf_free(&cred);
	rpc_buf_free(&args);
}

static void null_msg(struct rpc_buf *out, uint32_t xid)
{
	struct rpc_call c;

	rpc_call_init(&c, xid, PROG_NFS, 3, NFSPROC_NULL);
	rpc_call_encode(out, &c);
}

struct wr {
	int rc;                 /* rpc_recv_record */
	struct rpc_reply r;
	long status;            /* -1: not an accepted reply */
	uint32_t count, committed;
	struct rpc_buf raw;     /* the reply record */
};

/* Receive one reply and read it as a WRITE3res (if accepted). */
static void recv_reply(int fd, struct wr *w)
{
	struct rpc_cur c;

	rpc_buf_init(&w->raw);
	w->status = -1;
	w->count = w->committed = 0;
	memset(&w->r, 0, sizeof(w->r));
	w->rc = rpc_recv_record(fd, &w->raw, TMO, 1 << 20);
	if (w->rc != 1 || !rpc_parse_reply(w->raw.data, w->raw.len, &w->r))
		return;
	if (w->r.reply_stat != RPC_MSG_ACCEPTED || w->r.accept_stat != RPC_SUCCESS)
		return;
	c = (struct rpc_cur){ w->r.body, w->r.body_len, false };
	w->status = rpc_cur_u32(&c);
	if (w->r.body_len == 0) /* NULL */
		return;
	/* wcc_data: pre_op_attr, post_op_attr */
	if (rpc_cur_u32(&c))
		rpc_cur_skip(&c, 24);
	if (rpc_cur_u32(&c))
		rpc_cur_skip(&c, 84);
	if (!c.bad && w->status == NFS3_OK) {
		w->count = rpc_cur_u32(&c);
		w->committed = rpc_cur_u32(&c);
	}
	if (c.bad)
		w->status = -1;
}

/* One NULL round trip: the connection is still in step. */
static bool in_step(int fd)
{
	struct rpc_buf m;
	struct wr w;
	uint32_t xid = rpc_next_xid();
	bool good;

	rpc_buf_init(&m);
	null_msg(&m, xid);
	good = rpc_send_record(fd, m.data, m.len) == 0;
	recv_reply(fd, &w);
	good = good && w.rc == 1 && w.r.xid == xid && w.status == 0 && w.r.body_len == 0;
	rpc_buf_free(&m);
	rpc_buf_free(&w.raw);
	return good;
}

static bool local_same(const char *rel, uint64_t off, const uint8_t *want, size_t n)
{
	char path[4200];
	uint8_t *got = malloc(n);
	ssize_t r;
	int fd;
	bool same;

	snprintf(path, sizeof(path), "%s/%s", base, rel);
	fd = open(path, O_RDONLY);
	r = fd >= 0 ? pread(fd, got, n, (off_t)off) : -1;
	same = r == (ssize_t)n && !memcmp(got, want, n);
	if (fd >= 0)
		close(fd);
	free(got);
	return same;
}

static void local_poke(const char *rel, uint64_t off, const void *p, size_t n)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", base, rel);
	fd = open(path, O_WRONLY);
	if (fd >= 0) {
		if (pwrite(fd, p, n, (off_t)off) != (ssize_t)n)
			printf("# local write to %s failed\n", path);
		close(fd);
	}
}

static int connect_or_bail(void)
{
	int fd = rpc_connect(port, 5000);

	if (fd < 0) {
		printf("Bail out! cannot connect\n");
		exit(1);
	}
	rpc_set_nodelay(fd);
	return fd;
}

/*
 * The server has started the WRITE whose first bytes are @data: on a
 * memory-backed export it writes them as they come, so wait (up to 5 s)
 * for them to be in the file. Elsewhere nothing shows before the record
 * is whole: give it 50 ms.
 */
static bool write_started(bool mem, const uint8_t *data)
{
	long long until = rpc_now_ms() + 5000;

	if (!mem) {
		usleep(50000);
		return true;
	}
	while (!local_same("f", 0, data, 1000)) {
		if (rpc_now_ms() > until)
			return false;
		usleep(2000);
	}
	return true;
}

/* Send a record's marker and bytes as @pieces of @step bytes, after a first
 * piece of @first bytes, sleeping @pause_us between them. */
static int send_slowly(int fd, const struct rpc_buf *msg, size_t first, size_t step,
		       unsigned pause_us)
{
	struct rpc_buf rec;
	size_t at = 0;
	int r = 0;

	rpc_buf_init(&rec);
	rpc_buf_put_record(&rec, msg->data, msg->len);
	while (at < rec.len && r == 0) {
		size_t n = at == 0 ? first : step;

		if (n > rec.len - at)
			n = rec.len - at;
		r = rpc_send_raw(fd, rec.data + at, n, TMO);
		at += n;
		usleep(pause_us);
	}
	rpc_buf_free(&rec);
	return r;
}

static void test_pieces(int fd, const struct raw_fh *f, uint8_t *data)
{
	struct rpc_buf m;
	struct wr w;
	uint32_t xid = rpc_next_xid();

	rpc_buf_init(&m);
	fill(data, MIB, 1);
	write_msg(&m, xid, f, 0, MIB, FILE_SYNC, data, MIB);
	ok(send_slowly(fd, &m, 2000, 100000, 5000) == 0, "1 MiB WRITE sent in pieces of 100 KB, 5 ms apart");
	recv_reply(fd, &w);
	ok(w.rc == 1 && w.r.xid == xid && w.status == NFS3_OK && w.count == MIB &&
	   w.committed == FILE_SYNC, "reply: OK, count 1 MiB, FILE_SYNC (status %ld count %u)",
	   w.status, w.count);
	ok(local_same("f", 0, data, MIB), "the file holds the 1 MiB");
	ok(in_step(fd), "the connection is in step (NULL)");
	rpc_buf_free(&m);
	rpc_buf_free(&w.raw);
}

static void test_back_to_back(int fd, const struct raw_fh *f, uint8_t *data)
{
	enum { A = 512 << 10, B = 300001 };
	struct rpc_buf all, m;
	uint32_t x[4] = { rpc_next_xid(), rpc_next_xid(), rpc_next_xid(), rpc_next_xid() };
	bool seen[4] = { false }, good = true;
	int i, k;

	rpc_buf_init(&all);
	rpc_buf_init(&m);
	fill(data, MIB, 2);
	write_msg(&m, x[0], f, 0, A, UNSTABLE, data, A);
	rpc_buf_put_record(&all, m.data, m.len);
	rpc_buf_reset(&m);
	write_msg(&m, x[1], f, A, A, UNSTABLE, data + A, A);
	rpc_buf_put_record(&all, m.data, m.len);
	rpc_buf_reset(&m);
	null_msg(&m, x[2]);
	rpc_buf_put_record(&all, m.data, m.len);
	rpc_buf_reset(&m);
	/* odd length: three bytes of padding follow the data */
	write_msg(&m, x[3], f, 2 * A, B, UNSTABLE, data + 1000, B);
	rpc_buf_put_record(&all, m.data, m.len);
	ok(rpc_send_raw(fd, all.data, all.len, TMO) == 0,
	   "two 512 KiB WRITEs, a NULL and a 300001-byte WRITE sent at once");
	for (i = 0; i < 4; i++) {
		struct wr w;

		recv_reply(fd, &w);
		for (k = 0; k < 4; k++)
			if (w.rc == 1 && w.r.xid == x[k])
				break;
		if (k == 4 || seen[k] || w.status != 0 ||
		    (k != 2 && w.count != (k == 3 ? (uint32_t)B : (uint32_t)A)))
			good = false;
		else
			seen[k] = true;
		rpc_buf_free(&w.raw);
	}
	ok(good && seen[0] && seen[1] && seen[2] && seen[3], "four replies, each right");
	ok(local_same("f", 0, data, 2 * A) && local_same("f", 2 * A, data + 1000, B),
	   "the file holds the three writes");
	ok(in_step(fd), "the connection is in step (NULL)");
	rpc_buf_free(&all);
	rpc_buf_free(&m);
}

static void test_fragments(int fd, const struct raw_fh *f, uint8_t *data)
{
	enum { N = 256 << 10 };
	struct rpc_buf m;
	struct wr w;
	uint32_t xid = rpc_next_xid();

	rpc_buf_init(&m);
	fill(data, N, 3);
	write_msg(&m, xid, f, 4096, N, UNSTABLE, data, N);
	ok(rpc_send_fragment(fd, m.data, 1000, false) == 0 &&
	   rpc_send_fragment(fd, m.data + 1000, m.len - 1000, true) == 0,
	   "256 KiB WRITE in two fragments (1000 bytes, then the rest)");
	recv_reply(fd, &w);
	ok(w.rc == 1 && w.r.xid == xid && w.status == NFS3_OK && w.count == N,
	   "reply: OK, count 256 KiB");
	ok(local_same("f", 4096, data, N), "the file holds them");
	rpc_buf_free(&m);
	rpc_buf_free(&w.raw);
}

static void test_retransmit(int fd, const struct raw_fh *f, uint8_t *data)
{
	struct rpc_buf m;
	struct wr w1, w2;
	uint32_t xid = rpc_next_xid();

	rpc_buf_init(&m);
	fill(data, MIB, 4);
	write_msg(&m, xid, f, 0, MIB, UNSTABLE, data, MIB);
	rpc_send_record(fd, m.data, m.len);
	recv_reply(fd, &w1);
	ok(w1.rc == 1 && w1.status == NFS3_OK && w1.count == MIB, "1 MiB WRITE: OK");
	local_poke("f", 0, "Z", 1);
	rpc_send_record(fd, m.data, m.len);
	recv_reply(fd, &w2);
	ok(w2.rc == 1 && w2.raw.len == w1.raw.len && !memcmp(w2.raw.data, w1.raw.data, w1.raw.len),
	   "the same xid again: the first reply, byte for byte");
	ok(local_same("f", 0, (const uint8_t *)"Z", 1) && local_same("f", 1, data + 1, MIB - 1),
	   "and not written again (a byte changed since stays changed)");
	rpc_buf_free(&m);
	rpc_buf_free(&w1.raw);
	rpc_buf_free(&w2.raw);
}

static void test_disconnect(const struct raw_fh *f, uint8_t *data)
{
	struct rpc_buf m, rec;
	struct wr w;
	int fd = connect_or_bail(), fd2;
	uint32_t xid = rpc_next_xid();

	rpc_buf_init(&m);
	rpc_buf_init(&rec);
	fill(data, MIB, 5);
	write_msg(&m, xid, f, 0, MIB, UNSTABLE, data, MIB);
	rpc_buf_put_record(&rec, m.data, m.len);
	ok(rpc_send_raw(fd, rec.data, 600 << 10, TMO) == 0, "600 KiB of a 1 MiB WRITE sent");
	usleep(50000);
	close(fd);
	fd2 = connect_or_bail();
	ok(in_step(fd2), "closed there; a new connection is served (NULL)");
	rpc_send_record(fd2, m.data, m.len);
	recv_reply(fd2, &w);
	ok(w.rc == 1 && w.status == NFS3_OK && w.count == MIB && local_same("f", 0, data, MIB),
	   "the whole WRITE again on it: OK, data in place");
	close(fd2);
	rpc_buf_free(&m);
	rpc_buf_free(&rec);
	rpc_buf_free(&w.raw);
}

static void test_malformed(int fd, const struct raw_fh *f, uint8_t *data)
{
	struct rpc_buf m;
	struct wr w;
	uint32_t xid;

	rpc_buf_init(&m);
	/* count one more than the data */
	xid = rpc_next_xid();
	write_msg(&m, xid, f, 0, 200000 + 1, UNSTABLE, data, 200000);
	rpc_send_record(fd, m.data, m.len);
	recv_reply(fd, &w);
	ok(w.rc == 1 && w.r.xid == xid && w.r.accept_stat == RPC_GARBAGE_ARGS,
	   "count > data length: GARBAGE_ARGS");
	rpc_buf_free(&w.raw);
	ok(in_step(fd), "in step after it");

	/* the data length says 1 MiB, the record ends after 200000 bytes */
	rpc_buf_reset(&m);
	xid = rpc_next_xid();
	write_msg(&m, xid, f, 0, MIB, UNSTABLE, data, MIB);
	m.len -= MIB - 200000;
	rpc_send_record(fd, m.data, m.len);
	recv_reply(fd, &w);
	ok(w.rc == 1 && w.r.xid == xid && w.r.accept_stat == RPC_GARBAGE_ARGS,
	   "data length past the end of the record: GARBAGE_ARGS");
	rpc_buf_free(&w.raw);
	ok(in_step(fd), "in step after it");

	/* 70000 stray bytes after the data, inside the record */
	rpc_buf_reset(&m);
	xid = rpc_next_xid();
	write_msg(&m, xid, f, 0, 100000, UNSTABLE, data, 100000);
	rpc_buf_put_bytes(&m, data, 70000);
	rpc_send_record(fd, m.data, m.len);
	recv_reply(fd, &w);
	ok(w.rc == 1 && w.r.xid == xid, "bytes after the data: a reply (%s)",
	   w.rc == 1 ? (w.r.accept_stat == 0 ? "accepted" : "not accepted") : "none");
	rpc_buf_free(&w.raw);
	ok(in_step(fd), "in step after it");
	rpc_buf_free(&m);
}

/* How many times nfsxd @pid maps the file at @rel (maybe removed since)
 * with permissions @perms ("rw-s"), or any when @perms is NULL. */
static int server_maps_n(pid_t pid, const char *rel, const char *perms)
{
	char path[4200], line[4600], want[4300];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	snprintf(want, sizeof(want), "%s/%s", base, rel);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/'), *sp = strchr(line, ' ');

		line[strcspn(line, "\n")] = 0;
		if (p && (!strcmp(p, want) ||
			  (!strncmp(p, want, strlen(want)) && !strcmp(p + strlen(want), " (deleted)"))) &&
		    (!perms || (sp && !strncmp(sp + 1, perms, 4))))
			found++;
	}
	fclose(f);
	return found;
}

static bool server_maps(pid_t pid, const char *rel)
{
	return server_maps_n(pid, rel, NULL) > 0;
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

static bool local_stat(const char *rel, struct stat *st)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", base, rel);
	return stat(path, st) == 0;
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

/* A 1-byte UNSTABLE WRITE on @fd: its nfsstat3, or -1. Also puts @f's
 * node in the cache, so that the next WRITE stays on the loop (a handle
 * not seen yet goes to a worker). */
static long write1(int fd, const struct raw_fh *f)
{
	struct rpc_buf m;
	struct wr w;
	long st;

	rpc_buf_init(&m);
	write_msg(&m, rpc_next_xid(), f, 0, 1, UNSTABLE, (const uint8_t *)"y", 1);
	rpc_send_record(fd, m.data, m.len);
	recv_reply(fd, &w);
	st = w.rc == 1 ? w.status : -1;
	rpc_buf_free(&m);
	rpc_buf_free(&w.raw);
	return st;
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
static void test_mapped(int fd, pid_t pid, uint8_t *data)
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
static void test_mapped_remove(int fd, pid_t pid, uint8_t *data)
{
	struct raw_fh root, r;
	struct rpc_buf m, a;
	struct raw_res res;
	struct statfs before, after;
	struct wr w;

	rpc_buf_init(&m);
	rpc_buf_init(&a);
	statfs(base, &before);
	local_file("r", 4 * MIB, 0, 0644);
	ok(raw_mnt(fd, base, &root) == 0 && raw_lookup(fd, &root, "r", &r) == 0 &&
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
	statfs(base, &after);
	ok(after.f_bfree + 16 >= before.f_bfree, "its blocks are free again (%llu then %llu free)",
	   (unsigned long long)before.f_bfree, (unsigned long long)after.f_bfree);
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
static void test_read_mapped(int fd, pid_t pid, uint8_t *data)
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
	char dir[64], path[4400], link[4400], want[4300];
	bool found = false;
	int i;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	snprintf(want, sizeof(want), "%s/%s", base, rel);
	for (i = 0; i < 4096 && !found; i++) {
		ssize_t n;

		snprintf(path, sizeof(path), "%s/%d", dir, i);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		if (!strncmp(link, want, strlen(want)) &&
		    (link[strlen(want)] == 0 || !strcmp(link + strlen(want), " (deleted)")))
			found = true;
	}
	return found;
}

/*
 * A file the server has cached (descriptors, a mapping), removed by
 * someone else: the server lets it go within a few seconds (its sweep
 * runs every 2 s), so its blocks are freed.
 */
static void test_removed_locally(int fd, pid_t pid, uint8_t *data, bool mem)
{
	struct raw_fh root, d;
	struct rpc_buf m;
	struct statfs before, after;
	struct wr w;
	char path[4200];
	long long until;

	rpc_buf_init(&m);
	statfs(base, &before);
	local_file("d", 4 * MIB, 0, 0644);
	fill(data, MIB, 12);
	ok(raw_mnt(fd, base, &root) == 0 && raw_lookup(fd, &root, "d", &d) == 0 &&
	   write1(fd, &d) == NFS3_OK, "file d (4 MiB): a 1-byte WRITE");
	write_msg(&m, rpc_next_xid(), &d, MIB, MIB, UNSTABLE, data, MIB);
	rpc_send_record(fd, m.data, m.len);
	recv_reply(fd, &w);
	ok(w.rc == 1 && w.status == NFS3_OK && server_holds(pid, "d") && (!mem || server_maps(pid, "d")),
	   "a 1 MiB WRITE into it; the server holds%s it", mem ? " and maps" : "");
	rpc_buf_free(&w.raw);
	snprintf(path, sizeof(path), "%s/d", base);
	ok(unlink(path) == 0, "d removed on the server's file system, not through NFS");
	until = rpc_now_ms() + 6000;
	while ((server_holds(pid, "d") || server_maps(pid, "d")) && rpc_now_ms() < until)
		usleep(50000);
	ok(!server_holds(pid, "d") && !server_maps(pid, "d"),
	   "within 6 s the server neither holds nor maps it");
	statfs(base, &after);
	ok(after.f_bfree + 16 >= before.f_bfree, "its blocks are free again (%llu then %llu free)",
	   (unsigned long long)before.f_bfree, (unsigned long long)after.f_bfree);
	rpc_buf_free(&m);
}

static void test_nospc(int fd, uint8_t *data)
{
	struct raw_fh root, f;
	struct rpc_buf m;
	struct wr w;
	char path[4200];
	struct stat st;
	uint32_t xid = rpc_next_xid();

	snprintf(path, sizeof(path), "%s/small/f", base);
	if (stat(path, &st) < 0) {
		printf("ok %d - # SKIP no small tmpfs export (not root?)\n", ++tap__n);
		return;
	}
	{
		char exp[4200];

		snprintf(exp, sizeof(exp), "%s/small", base);
		ok(raw_mnt(fd, exp, &root) == 0 && raw_lookup(fd, &root, "f", &f) == 0,
		   "MNT %s, LOOKUP f", exp);
	}
	rpc_buf_init(&m);
	fill(data, MIB, 6);
	write_msg(&m, xid, &f, 0, MIB, UNSTABLE, data, MIB);
	rpc_send_record(fd, m.data, m.len);
	recv_reply(fd, &w);
	ok(w.rc == 1 && w.r.xid == xid &&
	   ((w.status == NFS3_OK && w.count < MIB) || w.status == NFS3ERR_NOSPC),
	   "1 MiB WRITE to a 256 KiB tmpfs: a short count or NOSPC (status %ld, count %u)",
	   w.status, w.count);
	ok(in_step(fd), "in step after it");
	memset(&st, 0, sizeof(st));
	stat(path, &st);
	ok(st.st_size <= (off_t)MIB &&
	   (w.status != NFS3_OK || local_same("small/f", 0, data, w.count)),
	   "what it says it wrote is there (file size %lld)", (long long)st.st_size);
	rpc_buf_free(&m);
	rpc_buf_free(&w.raw);
}

static void write_exports(const char *path, const char *exp_opts)
{
	char small[4200];
	struct stat st;
	FILE *fp = fopen(path, "w");

	if (!fp)
		return;
	snprintf(small, sizeof(small), "%s/small/f", base);
	fprintf(fp, "%s/exp 127.0.0.1(%s)\n", base, exp_opts);
	if (stat(small, &st) == 0)
		fprintf(fp, "%s/small 127.0.0.1(rw,no_root_squash,insecure)\n", base);
	fclose(fp);
}

/* Poll with 1-byte WRITEs on @fd until one answers @want (up to 3 s). */
static bool wait_write_status(int fd, const struct raw_fh *f, long want)
{
	long long until = rpc_now_ms() + 3000;

	do {
		if (write1(fd, f) == want)
			return true;
		usleep(20000);
	} while (rpc_now_ms() < until);
	return false;
}

/*
 * A reload while a WRITE waits for its data: the loop's other calls must
 * follow the new exports at once (the waiting call keeps the rules it
 * started under; one loop serves every connection here).
 */
static void test_reload(const struct raw_fh *f, uint8_t *data, pid_t pid, const char *exports,
			bool mem)
{
	struct rpc_buf m, rec;
	struct wr w;
	int a = connect_or_bail(), b = connect_or_bail();

	rpc_buf_init(&m);
	rpc_buf_init(&rec);
	ok(write1(b, f) == NFS3_OK, "reload: a 1-byte WRITE on connection B");
	fill(data, MIB, 7);
	write_msg(&m, rpc_next_xid(), f, 0, MIB, UNSTABLE, data, MIB);
	rpc_buf_put_record(&rec, m.data, m.len);
	ok(rpc_send_raw(a, rec.data, 200000, TMO) == 0 && write_started(mem, data),
	   "200000 bytes of a 1 MiB WRITE on A, taken by the server");
	base = base_top;
	write_exports(exports, "ro,no_root_squash,insecure");
	ok(kill(pid, SIGHUP) == 0, "exports made read-only, SIGHUP");
	ok(wait_write_status(b, f, NFS3ERR_ROFS),
	   "a WRITE on B gets ROFS while A's still waits for its data");
	ok(rpc_send_raw(a, rec.data + 200000, rec.len - 200000, TMO) == 0, "the rest of A's data");
	recv_reply(a, &w);
	ok(w.rc == 1 && (w.status == NFS3_OK || w.status == NFS3ERR_ROFS),
	   "A's WRITE is answered (status %ld)", w.status);
	write_exports(exports, "rw,no_root_squash,insecure");
	kill(pid, SIGHUP);
	ok(wait_write_status(b, f, NFS3_OK), "writable again after the next reload");
	base = base_exp;
	close(a);
	close(b);
	rpc_buf_free(&m);
	rpc_buf_free(&rec);
	rpc_buf_free(&w.raw);
}

/*
 * SIGTERM in the middle of a WRITE's data. Spliced into a memory-backed
 * file, the WRITE is a call in progress: the server reads the rest and
 * answers it before it exits. Elsewhere the record is not a call yet:
 * the connection may just close. Either way nfsxd exits 0 (the wrapper
 * checks).
 */
static void test_stop(const struct raw_fh *f, uint8_t *data, pid_t pid, bool mem)
{
	struct rpc_buf m, rec;
	struct wr w;
	int a = connect_or_bail();

	rpc_buf_init(&m);
	rpc_buf_init(&rec);
	fill(data, MIB, 8);
	write_msg(&m, rpc_next_xid(), f, 0, MIB, UNSTABLE, data, MIB);
	rpc_buf_put_record(&rec, m.data, m.len);
	ok(rpc_send_raw(a, rec.data, 300000, TMO) == 0 && write_started(mem, data),
	   "stop: 300000 bytes of a 1 MiB WRITE, taken by the server");
	ok(kill(pid, SIGTERM) == 0, "SIGTERM");
	usleep(100000);
	rpc_send_raw(a, rec.data + 300000, rec.len - 300000, TMO);
	recv_reply(a, &w);
	if (mem)
		ok(w.rc == 1 && w.status == NFS3_OK && w.count == MIB && local_same("f", 0, data, MIB),
		   "on tmpfs the WRITE is finished and answered (rc %d status %ld)", w.rc, w.status);
	else
		ok(w.rc == -1 || (w.rc == 1 && w.status == NFS3_OK),
		   "on a disk file system: answered or closed (rc %d)", w.rc);
	ok(rpc_peer_closed(a, 10000), "then the connection closes");
	close(a);
	rpc_buf_free(&m);
	rpc_buf_free(&rec);
	rpc_buf_free(&w.raw);
}

int main(int argc, char **argv)
{
	struct raw_fh root, f;
	char exp[4200];
	uint8_t *data;
	int fd;

	struct statfs sf;
	pid_t pid;
	bool mem;

	if (argc != 5) {
		fprintf(stderr, "usage: %s PORT BASE PID EXPORTS\n", argv[0]);
		return 2;
	}
	port = (uint16_t)atoi(argv[1]);
	base = base_top = argv[2];
	pid = (pid_t)atoi(argv[3]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	data = malloc(2 * MIB);
	fd = connect_or_bail();
	snprintf(exp, sizeof(exp), "%s/exp", base);
	if (raw_mnt(fd, exp, &root) != 0 || raw_lookup(fd, &root, "f", &f) != 0) {
		printf("Bail out! cannot MNT %s and LOOKUP f\n", exp);
		return 1;
	}
	base = base_exp = exp;
	mem = statfs(exp, &sf) == 0 && (sf.f_type == TMPFS_MAGIC || sf.f_type == RAMFS_MAGIC);
	printf("# export on %s\n", mem ? "tmpfs: the bulk path" : "a disk file system");
	/* One small WRITE first: a handle the server has not seen yet goes
	 * to a worker whatever the call, and this one puts it in the cache. */
	{
		struct rpc_buf m;
		struct wr w;

		rpc_buf_init(&m);
		write_msg(&m, rpc_next_xid(), &f, 0, 1, UNSTABLE, (const uint8_t *)"x", 1);
		rpc_send_record(fd, m.data, m.len);
		recv_reply(fd, &w);
		ok(w.rc == 1 && w.status == NFS3_OK && w.count == 1, "a 1-byte WRITE");
		rpc_buf_free(&m);
		rpc_buf_free(&w.raw);
	}
	test_pieces(fd, &f, data);
	test_back_to_back(fd, &f, data);
	test_fragments(fd, &f, data);
	test_retransmit(fd, &f, data);
	test_disconnect(&f, data);
	test_malformed(fd, &f, data);
	if (mem) {
		test_mapped(fd, pid, data);
		test_mapped_remove(fd, pid, data);
		test_read_mapped(fd, pid, data);
	}
	test_removed_locally(fd, pid, data, mem);
	base = base_top;
	test_nospc(fd, data);
	close(fd);
	base = base_exp;
	test_reload(&f, data, pid, argv[4], mem);
	test_stop(&f, data, pid, mem);
	free(data);
	return tap_done();
}
