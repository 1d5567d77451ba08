/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the RPC unit tests: guard-page buffers (data placed
 * so that it ends exactly where a PROT_NONE page begins, so that any
 * read or write past it faults), a tiny big-endian writer for building
 * calls by hand, and a struct rpc_req driver for rpc_dispatch().
 */
#ifndef NFSX_TEST_RPC_TESTUTIL_H
#define NFSX_TEST_RPC_TESTUTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rpc/msg.h"
#include "rpc/program.h"
#include "rpc/req.h"

/* ------------------------------------------------------------------ */
/* Guard pages                                                          */

struct guard {
	uint8_t *map;
	size_t maplen;
	uint8_t *end; /* first byte of the PROT_NONE page */
};

static inline void guard_init(struct guard *g, size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t data = (size + page - 1) / page * page;

	if (!data)
		data = page;
	g->maplen = data + page;
	g->map = mmap(NULL, g->maplen, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g->map == MAP_FAILED) {
		perror("mmap");
		exit(99);
	}
	if (mprotect(g->map + data, page, PROT_NONE) < 0) {
		perror("mprotect");
		exit(99);
	}
	g->end = g->map + data;
}

static inline void guard_free(struct guard *g)
{
	munmap(g->map, g->maplen);
}

/* Copy @n bytes so that they end right at the guard page. */
static inline uint8_t *guard_place(struct guard *g, const void *src, size_t n)
{
	uint8_t *p = g->end - n;

	if (n)
		memmove(p, src, n);
	return p;
}

/* ------------------------------------------------------------------ */
/* Big-endian writer                                                    */

#define WBUF_MAX 200000u

struct wbuf {
	size_t n;
	uint8_t b[WBUF_MAX];
};

static inline void w_u32(struct wbuf *w, uint32_t v)
{
	if (w->n + 4 > WBUF_MAX)
		abort();
	w->b[w->n++] = (uint8_t)(v >> 24);
	w->b[w->n++] = (uint8_t)(v >> 16);
	w->b[w->n++] = (uint8_t)(v >> 8);
	w->b[w->n++] = (uint8_t)v;
}

static inline void w_raw(struct wbuf *w, const void *p, size_t n)
{
	if (w->n + n > WBUF_MAX)
		abort();
	if (n)
		memcpy(w->b + w->n, p, n);
	w->n += n;
}

/* Bytes plus zero padding to the XDR unit (no length). */
static inline void w_fixed(struct wbuf *w, const void *p, size_t n)
{
	static const uint8_t zero[4];

	w_raw(w, p, n);
	w_raw(w, zero, (4 - n % 4) % 4);
}

/* string<> / opaque<>: length, bytes, padding. */
static inline void w_bytes(struct wbuf *w, const void *p, size_t n)
{
	w_u32(w, (uint32_t)n);
	w_fixed(w, p, n);
}

static inline void w_str(struct wbuf *w, const char *s)
{
	w_bytes(w, s, strlen(s));
}

static inline uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* Call header with AUTH_NONE credential and verifier. */
static inline void w_call(struct wbuf *w, uint32_t xid, uint32_t prog,
			  uint32_t vers, uint32_t proc)
{
	w->n = 0;
	w_u32(w, xid);
	w_u32(w, RPC_MSG_CALL);
	w_u32(w, RPC_VERSION);
	w_u32(w, prog);
	w_u32(w, vers);
	w_u32(w, proc);
	w_u32(w, RPC_AUTH_NONE);
	w_u32(w, 0);
	w_u32(w, RPC_AUTH_NONE);
	w_u32(w, 0);
}

/* Compare @n words of @p with the expected values. */
static inline int words_eq(const uint8_t *p, size_t len, const uint32_t *want,
			   size_t n)
{
	size_t i;

	if (len != n * 4)
		return 0;
	for (i = 0; i < n; i++)
		if (get32(p + 4 * i) != want[i])
			return 0;
	return 1;
}

/* ------------------------------------------------------------------ */
/* Driving rpc_dispatch                                                 */

/*
 * A request around a call record kept against a guard page, so a
 * handler or the header decoder reading past the record faults.
 */
struct test_req {
	struct rpc_req *req;
	struct guard g;
	int have_guard;
	bool sent;    /* rpc_dispatch's return value */
	const uint8_t *rep;
	size_t rep_len;
};

static inline void treq_init(struct test_req *t)
{
	memset(t, 0, sizeof(*t));
	t->req = calloc(1, sizeof(*t->req));
	if (!t->req)
		abort();
	t->req->rec = t->req->rec_inline;
	t->req->reply = t->req->reply_inline;
	t->req->reply_cap = sizeof(t->req->reply_inline);
	guard_init(&t->g, WBUF_MAX);
	t->have_guard = 1;
}

static inline void treq_fini(struct test_req *t)
{
	t->req->rec = t->req->rec_inline;
	rpc_req_release(t->req);
	free(t->req);
	guard_free(&t->g);
}

/*
 * Dispatch the record in @w from @peer; the reply (without the record
 * marker) is then at t->rep, t->rep_len. The previous request's
 * buffers are released first, as the server's free list does.
 */
static inline bool treq_run(struct test_req *t, const struct rpc_registry *reg,
			    struct rpc_drc *drc, const struct wbuf *w,
			    const struct sockaddr_storage *peer)
{
	struct rpc_req *req = t->req;

	req->rec = req->rec_inline;
	rpc_req_release(req);
	req->rec = guard_place(&t->g, w->b, w->n);
	req->rec_len = w->n;
	rpc_req_reset(req);
	req->peer = peer;
	req->conn = NULL;
	t->sent = rpc_dispatch(reg, drc, req);
	t->rep = req->enc.start;
	t->rep_len = xdr_enc_len(&req->enc);
	return t->sent;
}

/* Accepted reply header check: xid, REPLY, ACCEPTED, AUTH_NONE verf, stat. */
static inline int rep_accepted(const struct test_req *t, uint32_t xid,
			       uint32_t stat)
{
	return t->sent && t->rep_len >= 24 && get32(t->rep) == xid &&
	       get32(t->rep + 4) == RPC_MSG_REPLY &&
	       get32(t->rep + 8) == RPC_REPLY_ACCEPTED &&
	       get32(t->rep + 12) == RPC_AUTH_NONE &&
	       get32(t->rep + 16) == 0 && get32(t->rep + 20) == stat;
}

#endif
