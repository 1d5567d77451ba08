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
 * Then, on tmpfs, the kept mappings, and on both a file removed behind
 * the server's back (test_nfs3_bulk_mapped.c).
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
#include <unistd.h>

#include "bulk_wire.h"
#include "tap.h"

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
