/* SPDX-License-Identifier: MIT */
/*
 * Bulk data from the socket straight into a file: the loop's side of
 * struct rpc_bulk (program.h).
 *
 * DESIGN
 * A large WRITE copied its data twice on the server: socket into the
 * receive buffer, buffer into the page cache. When a record of at least
 * RPC_BULK_MIN_REST more bytes has its header in the buffer, the
 * procedure is asked (rpc_dispatch_bulk_begin) whether it takes the rest
 * from the socket; if so the record leaves the receive buffer and the
 * loop moves its data with splice(2): socket -> the loop's pipe (page
 * references, no copy) -> file (the one copy, into the page cache), as
 * the data arrives, EPOLLIN by EPOLLIN, never waiting. The pipe is empty
 * between steps, so one per loop serves all its connections. Only the
 * procedure decides what may be written this way (NFSv3: memory-backed
 * exports, where writing never waits for a device).
 * Where the procedure offers a mapping of the file (rpc_bulk.dst: NFSv3,
 * a WRITE within the file's size), the data is received straight into it
 * instead: still one copy, without the page-cache lookup and page lock
 * that write and splice pay per page; its last byte takes the pipe, a
 * real write that does to the inode what write(2) does. A receive that
 * faults (the file was truncated under the mapping) leaves its bytes in
 * the socket and the rest takes the pipe.
 * After a bulk call the next read is small (RPC_BULK_PEEK), so that the
 * header of a following large WRITE is found before its data has been
 * read into the buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rpc/svc_internal.h"
#include "util/log.h"

#define BULK_PIPE_SIZE (1u << 20)
#define BULK_LOWAT_MIN (64u << 10)
#define BULK_LOWAT_MAX (1u << 20)

static void pipe_close(struct rpc_loop *loop)
{
	if (loop->bulk_pipe[0] >= 0)
		close(loop->bulk_pipe[0]);
	if (loop->bulk_pipe[1] >= 0)
		close(loop->bulk_pipe[1]);
	loop->bulk_pipe[0] = loop->bulk_pipe[1] = -1;
}

void rpc__bulk_fini(struct rpc_loop *loop)
{
	pipe_close(loop);
}

static bool pipe_ready(struct rpc_loop *loop)
{
	int sz;

	if (loop->bulk_pipe[0] >= 0)
		return true;
	if (pipe2(loop->bulk_pipe, O_NONBLOCK | O_CLOEXEC) < 0) {
		loop->bulk_pipe[0] = loop->bulk_pipe[1] = -1;
		return false;
	}
	/* Larger than the default 64 KiB where allowed (pipe-max-size). */
	(void)fcntl(loop->bulk_pipe[1], F_SETPIPE_SZ, (int)BULK_PIPE_SIZE);
	sz = fcntl(loop->bulk_pipe[1], F_GETPIPE_SZ);
	loop->bulk_pipe_cap = sz > 0 ? (size_t)sz : 4096;
	return true;
}

bool rpc__bulk_try(struct rpc_conn *c)
{
	struct rpc_loop *loop = c->loop;
	struct rpc_record *r = &c->rec;
	struct rpc_req *req;
	size_t rest;

	/* The last fragment in progress, everything buffered taken in. */
	if (c->bulk_tried || c->bulk || !r->started || !r->in_frag || !r->last ||
	    r->rd != c->rlen || r->frag_left < RPC_BULK_MIN_REST)
		return false;
	c->bulk_tried = true;
	if (!pipe_ready(loop))
		return false;
	rest = r->frag_left;
	req = rpc__req_get(loop);
	if (!req)
		return false;
	/* The header is read where it lies; begin copies what it keeps. */
	req->rec = c->rbuf + r->rec_start;
	req->rec_len = r->wr - r->rec_start;
	rpc_req_reset(req);
	req->conn = c;
	req->peer = &c->peer;
	req->t_rx = c->rx_ns;
	req->stat_in = (uint32_t)(req->rec_len + rest + 4);
	if (!rpc_dispatch_bulk_begin(loop->srv->reg, loop->srv->drc, req, rest)) {
		req->rec = req->rec_inline;
		rpc__req_put(loop, req);
		return false;
	}
	req->rec = req->rec_inline;
	req->rec_len = 0;
	xdr_dec_init(&req->args, req->rec, 0, &req->arena);
	req->call.cred.machine.data = NULL; /* pointed into the buffer */
	req->call.cred.machine.len = 0;
	/* Every byte buffered was this record's (parse took them all in)
	 * or an earlier, consumed one's. */
	c->rlen = 0;
	rpc_record_restart(r, 0);
	c->bulk = req;
	c->inflight++;
	rpc__budget_add(c, req, sizeof(*req)); /* its data goes to the file */
	return true;
}

/* Move @n bytes from the pipe into the file, or discard them after an error.
 * Return values: false when the pipe could not be emptied. */
static bool drain(struct rpc_loop *loop, struct rpc_bulk *b, size_t n)
{
	while (n) {
		ssize_t w;

		if (!b->err && b->enter && b->enter(b) < 0)
			b->err = EPERM;
		if (!b->err) {
			loff_t off = (loff_t)b->off;

			w = splice(loop->bulk_pipe[0], NULL, b->fd, &off, n, SPLICE_F_MOVE);
			if (w > 0) {
				b->off += (uint64_t)w;
				b->done += (uint32_t)w;
				n -= (size_t)w;
				continue;
			}
			if (w < 0 && errno == EINTR)
				continue;
			b->err = w < 0 ? errno : EIO;
		}
		w = read(loop->bulk_pipe[0], loop->stage,
			 n < RPC_STAGE_SIZE ? n : RPC_STAGE_SIZE);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		n -= (size_t)w;
	}
	return true;
}

/*
 * Wake for bulk data only when much of it is there: SO_RCVLOWAT is what
 * the call still lacks (up to BULK_LOWAT_MAX), back to 1 when it ends.
 * Over loopback the sender pays for each wakeup of the reader.
 */
static void set_lowat(struct rpc_conn *c, size_t want)
{
	int v = want > BULK_LOWAT_MAX ? (int)BULK_LOWAT_MAX :
		want < BULK_LOWAT_MIN ? 0 : (int)want;

	if (v == c->rcvlowat || c->fd < 0)
		return;
	if (setsockopt(c->fd, SOL_SOCKET, SO_RCVLOWAT, &(int){ v ? v : 1 },
		       sizeof(int)) == 0)
		c->rcvlowat = v;
}

bool rpc__bulk_pump(struct rpc_conn *c)
{
	struct rpc_loop *loop = c->loop;
	struct rpc_req *req = c->bulk;
	struct rpc_bulk *b = &req->bulk;
	const char *why = NULL;

	/* Another connection's failure may have closed the pipe. */
	if (b->left && !pipe_ready(loop)) {
		why = "no pipe for bulk data";
		goto fail;
	}
	while (b->left > 1 && b->dst && !b->err) {
		ssize_t n = recv(c->fd, b->dst, b->left - 1, MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			set_lowat(c, (size_t)b->left + b->pad);
			return false;
		}
		if (n < 0 && errno == EFAULT) {
			/* Truncated under the mapping: what did not land
			 * stays in the socket, for the splice below. */
			b->dst = NULL;
			break;
		}
		if (n <= 0) {
			why = n == 0 ? "closed by peer in bulk data" : strerror(errno);
			goto fail;
		}
		b->dst += n;
		b->off += (uint64_t)n;
		b->done += (uint32_t)n;
		b->left -= (uint32_t)n;
	}
	while (b->left) {
		size_t want = b->left < loop->bulk_pipe_cap ? b->left : loop->bulk_pipe_cap;
		ssize_t n = splice(c->fd, NULL, loop->bulk_pipe[1], NULL, want,
				   SPLICE_F_NONBLOCK | SPLICE_F_MOVE);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			set_lowat(c, (size_t)b->left + b->pad);
			return false;
		}
		if (n <= 0) {
			why = n == 0 ? "closed by peer in bulk data" : strerror(errno);
			goto fail;
		}
		b->left -= (uint32_t)n;
		if (!drain(loop, b, (size_t)n)) {
			/* bytes may be left in the pipe: never reuse it */
			pipe_close(loop);
			why = "bulk pipe";
			goto fail;
		}
	}
	while (b->pad) {
		uint8_t pad[4];
		ssize_t n = recv(c->fd, pad, b->pad, MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			set_lowat(c, 0); /* wake for the last bytes */
			return false;
		}
		if (n <= 0) {
			why = n == 0 ? "closed by peer in bulk data" : strerror(errno);
			goto fail;
		}
		b->pad -= (uint32_t)n;
	}
	set_lowat(c, 0);
	c->bulk = NULL;
	c->bulk_tried = false;
	c->bulk_peek = true;
	rpc_dispatch_bulk_end(loop->srv->drc, req);
	rpc__queue_reply(c, req);
	return true;
fail:
	rpc__conn_close(c, why); /* aborts the call (rpc__bulk_abort) */
	return false;
}

void rpc__bulk_abort(struct rpc_conn *c)
{
	struct rpc_req *req = c->bulk;

	if (!req)
		return;
	c->bulk = NULL;
	req->bulk.aborted = true;
	rpc_dispatch_bulk_end(c->loop->srv->drc, req);
	rpc__req_put(c->loop, req);
}
