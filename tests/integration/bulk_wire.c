/* SPDX-License-Identifier: MIT */
/* The nfs3-bulk test's shared calls and checks: see bulk_wire.h. */
#include "bulk_wire.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>


uint16_t port;
const char *base, *base_top, *base_exp;
uint32_t cred_uid, cred_gid;

void fill(uint8_t *p, size_t n, uint32_t seed)
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
void write_msg(struct rpc_buf *out, uint32_t xid, const struct raw_fh *f,
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

void null_msg(struct rpc_buf *out, uint32_t xid)
{
	struct rpc_call c;

	rpc_call_init(&c, xid, PROG_NFS, 3, NFSPROC_NULL);
	rpc_call_encode(out, &c);
}

/* Receive one reply and read it as a WRITE3res (if accepted). */
void recv_reply(int fd, struct wr *w)
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
bool in_step(int fd)
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

bool local_same(const char *rel, uint64_t off, const uint8_t *want, size_t n)
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

void local_poke(const char *rel, uint64_t off, const void *p, size_t n)
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

int connect_or_bail(void)
{
	int fd = rpc_connect(port, 5000);

	if (fd < 0) {
		printf("Bail out! cannot connect\n");
		exit(1);
	}
	rpc_set_nodelay(fd);
	return fd;
}

bool local_stat(const char *rel, struct stat *st)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", base, rel);
	return stat(path, st) == 0;
}

/* A 1-byte UNSTABLE WRITE on @fd: its nfsstat3, or -1. Also puts @f's
 * node in the cache, so that the next WRITE stays on the loop (a handle
 * not seen yet goes to a worker). */
long write1(int fd, const struct raw_fh *f)
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
