/*
 * benchutil.h - small helpers shared by the nfsx benchmarks.
 *
 * The benchmarks are deliberately standalone: they do not link any server
 * code.  The handful of ONC RPC words they need (RFC 5531, record marking
 * over TCP) are encoded and decoded here by hand.
 */
#ifndef NFSX_BENCHUTIL_H
#define NFSX_BENCHUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* NULL call to NFS v3: 4-byte record marker + 10 words of header. */
#define BU_CALL_LEN 44u
/* Reply to it with an AUTH_NONE verifier: marker + 6 words. */
#define BU_REPLY_LEN 28u

#define BU_NFS_PROG 100003u
#define BU_NFS_VERS 3u

/* ---- time -------------------------------------------------------------- */

uint64_t bu_now_ns(void);

/* ---- latency histogram (log-linear, ~1.6 % resolution) ------------------ */

#define BU_HIST_SUB_BITS 6u
#define BU_HIST_SUB (1u << BU_HIST_SUB_BITS)
#define BU_HIST_BUCKETS (2u * BU_HIST_SUB + (64u - BU_HIST_SUB_BITS - 1u) * BU_HIST_SUB)

struct bu_hist {
	uint64_t count;
	uint64_t bucket[BU_HIST_BUCKETS];
};

void bu_hist_add(struct bu_hist *h, uint64_t ns);
void bu_hist_merge(struct bu_hist *dst, const struct bu_hist *src);
/* Value at quantile q (0..1), in microseconds; 0 if the histogram is empty. */
double bu_hist_quantile_us(const struct bu_hist *h, double q);

/* ---- sockets ------------------------------------------------------------ */

/*
 * Connect to host:port (numeric IPv4 only), retrying until timeout_s
 * seconds have passed.  Sets TCP_NODELAY.  Returns a blocking fd or -1
 * (with a message on stderr).
 */
int bu_connect(const char *host, int port, double timeout_s);
int bu_set_nonblock(int fd);
/* Write all of buf to a blocking fd; 0 on success, -1 on error. */
int bu_write_all(int fd, const void *buf, size_t len);

/* ---- RPC encoding ------------------------------------------------------- */

/* Encode a complete NULL call record (BU_CALL_LEN bytes) with AUTH_NONE. */
void bu_encode_null_call(uint8_t *p, uint32_t xid, uint32_t prog, uint32_t vers);

enum bu_reply_status {
	BU_REPLY_OK = 0,
	BU_REPLY_NOT_REPLY,   /* msg_type != REPLY */
	BU_REPLY_DENIED,      /* reply_stat != MSG_ACCEPTED */
	BU_REPLY_NOT_SUCCESS, /* accept_stat != SUCCESS */
	BU_REPLY_MALFORMED,   /* body too short for what it claims */
	BU_REPLY_NSTATUS
};

/*
 * Parse one reply record from p[0..n).  Returns the number of bytes the
 * record occupies (> 0), 0 if more data is needed, or -1 on a framing error
 * (fragmented record or absurd length: the stream cannot be resynchronised).
 * On > 0, *xid and *st are set (*xid is 0 if the body is shorter than 4).
 */
long bu_parse_reply(const uint8_t *p, size_t n, uint32_t *xid, enum bu_reply_status *st);

const char *bu_reply_status_name(enum bu_reply_status st);

/* ---- pipelined connection ------------------------------------------------ */

/* Counters gathered by a pipelined connection (per thread, merged later). */
struct bu_stats {
	uint64_t calls;                      /* good replies inside the window */
	uint64_t replies;                    /* all replies, any time */
	uint64_t err[BU_REPLY_NSTATUS];      /* by status (err[BU_REPLY_OK] unused) */
	uint64_t bad_xid;                    /* reply to an xid not outstanding */
	struct bu_hist *hist;                /* latency of good replies in window; may be NULL */
};

uint64_t bu_stats_errors(const struct bu_stats *s);
void bu_stats_merge(struct bu_stats *dst, const struct bu_stats *src);
void bu_stats_print_errors(const struct bu_stats *s, const char *prefix);

struct bu_slot {
	uint64_t t_send;
	uint32_t xid;
	bool busy;
};

/*
 * A non-blocking TCP connection that keeps `depth` NULL calls in flight.
 * Calls are generated into an output buffer and written with one send();
 * replies are read in large chunks and parsed from the buffer.
 */
struct bu_pipe {
	int fd;
	unsigned depth;
	unsigned slot_bits;
	uint32_t gen;
	uint32_t prog, vers;
	struct bu_slot *slots;
	uint32_t *free_slots;
	unsigned nfree;
	uint8_t *rbuf;
	size_t rlen, rcap;
	uint8_t *wbuf;
	size_t woff, wlen, wcap;
	uint64_t queued;        /* calls generated (written or still in wbuf) */
	uint64_t written_bytes; /* bytes of calls handed to the kernel */
	uint64_t answered;      /* replies matched to an outstanding call */
	const uint8_t *call;    /* NULL, or the record each call copies */
	size_t call_len;
};

int bu_pipe_init(struct bu_pipe *c, int fd, unsigned depth, uint32_t seed);
void bu_pipe_destroy(struct bu_pipe *c);
/*
 * Send copies of @rec (a whole record, marker included, the xid at bytes
 * 4..7, patched per call) instead of NULL calls; @rec must outlive the
 * pipe. Before the first fill. Returns 0, or -1 when memory is short.
 */
int bu_pipe_set_call(struct bu_pipe *c, const uint8_t *rec, size_t len);
/* Generate a call for every free slot, stamped with `now`. Returns how many. */
unsigned bu_pipe_fill(struct bu_pipe *c, uint64_t now);
/* Write pending output: 1 all written, 0 some left (EAGAIN), -1 error. */
int bu_pipe_flush(struct bu_pipe *c);
static inline bool bu_pipe_pending(const struct bu_pipe *c) { return c->woff < c->wlen; }
/* Calls written to the socket whose reply has not been seen yet. */
unsigned bu_pipe_inflight(const struct bu_pipe *c);
/*
 * Read once and process every complete reply.  Replies received at a time
 * in [win_start, win_end) count as calls and have their latency recorded.
 * Returns the number of replies processed (>= 0), -1 on EOF (errno = 0) or
 * error (errno set; EPROTO for a framing error).  EAGAIN returns 0.
 */
long bu_pipe_read(struct bu_pipe *c, struct bu_stats *st, uint64_t win_start, uint64_t win_end);

/* ---- misc --------------------------------------------------------------- */

double bu_median(double *v, size_t n); /* sorts v */
bool bu_parse_double(const char *s, double *out);
bool bu_parse_int(const char *s, long min, long max, long *out);

#endif
