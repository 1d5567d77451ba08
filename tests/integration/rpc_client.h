/* SPDX-License-Identifier: MIT */
/*
 * Raw ONC RPC (RFC 5531) test client for the integration tests. It speaks
 * TCP record marking by hand so that tests can send anything, including
 * malformed headers, odd fragmentations and absurd record markers, and
 * then look at exactly what came back. It never talks to anything but
 * 127.0.0.1 and it shares no code with the server on purpose: a bug in
 * the server's XDR or record layer must not be mirrored here.
 */
#ifndef NFSX_TEST_RPC_CLIENT_H
#define NFSX_TEST_RPC_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RPC_CALL		0
#define RPC_REPLY		1
#define RPC_MSG_ACCEPTED	0
#define RPC_MSG_DENIED		1

#define RPC_SUCCESS		0
#define RPC_PROG_UNAVAIL	1
#define RPC_PROG_MISMATCH	2
#define RPC_PROC_UNAVAIL	3
#define RPC_GARBAGE_ARGS	4
#define RPC_SYSTEM_ERR		5

#define RPC_MISMATCH		0
#define RPC_AUTH_ERROR		1

#define RPC_AUTH_BADCRED	1
#define RPC_AUTH_REJECTEDCRED	2
#define RPC_AUTH_BADVERF	3
#define RPC_AUTH_REJECTEDVERF	4
#define RPC_AUTH_TOOWEAK	5

#define AUTH_NONE		0
#define AUTH_SYS		1
#define RPCSEC_GSS		6

#define PROG_PMAP		100000
#define PROG_NFS		100003
#define PROG_MOUNT		100005

#define RM_LAST			0x80000000u

/* Growable byte buffer holding XDR-encoded data. */
struct rpc_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
};

void rpc_buf_init(struct rpc_buf *b);
void rpc_buf_free(struct rpc_buf *b);
void rpc_buf_reset(struct rpc_buf *b);
void rpc_buf_put_bytes(struct rpc_buf *b, const void *p, size_t n);
void rpc_buf_put_u32(struct rpc_buf *b, uint32_t v);
/* Length word, bytes, zero padding to 4. */
void rpc_buf_put_opaque(struct rpc_buf *b, const void *p, size_t n);
void rpc_buf_put_string(struct rpc_buf *b, const char *s);

/*
 * Everything needed to encode a call header. cred_body/verf_body are raw
 * opaque contents; *_len_override, when set, is written as the length word
 * instead of the real length (for lying about sizes). args are appended
 * verbatim after the verifier.
 */
struct rpc_call {
	uint32_t xid;
	uint32_t msg_type;
	uint32_t rpcvers;
	uint32_t prog;
	uint32_t vers;
	uint32_t proc;
	uint32_t cred_flavor;
	const void *cred_body;
	size_t cred_len;
	bool cred_len_override;
	uint32_t cred_len_word;
	uint32_t verf_flavor;
	const void *verf_body;
	size_t verf_len;
	bool verf_len_override;
	uint32_t verf_len_word;
	const void *args;
	size_t args_len;
};

/* A NULL-style call: CALL, rpcvers 2, AUTH_NONE cred and verifier, no args. */
void rpc_call_init(struct rpc_call *c, uint32_t xid, uint32_t prog,
		   uint32_t vers, uint32_t proc);
/* Encode the call message (no record marker) into out (appends). */
void rpc_call_encode(struct rpc_buf *out, const struct rpc_call *c);

/*
 * Encode an AUTH_SYS credential body (authsys_parms). ngids may exceed
 * 16 and machinename may exceed 255: the encoder does not judge.
 */
void rpc_authsys_encode(struct rpc_buf *out, uint32_t stamp,
			const char *machinename, uint32_t uid, uint32_t gid,
			const uint32_t *gids, uint32_t ngids);

/* Fresh xid, unique within this process. */
uint32_t rpc_next_xid(void);

/* ---- sockets ---------------------------------------------------------- */

/* Connect to 127.0.0.1:port, retrying until timeout_ms. Returns fd or -1. */
int rpc_connect(uint16_t port, int timeout_ms);
/* One attempt, bounded by timeout_ms (for listen-backlog pressure). */
int rpc_connect_once(uint16_t port, int timeout_ms);
void rpc_set_nodelay(int fd);
void rpc_set_nonblock(int fd, bool on);

/* The server calling back (NFSv4 callbacks): a listener on 127.0.0.1 at a
 * port the kernel picks (*@port); a bail-out when none can be made. */
int rpc_listen_lo(uint16_t *port);
/* The universal address (RFC 5665) of 127.0.0.1:@port into @buf. */
void rpc_uaddr_lo(char *buf, size_t len, uint16_t port);
/* A connection accepted on @lfd within @ms, or -1. */
int rpc_accept_ms(int lfd, int ms);

/*
 * Write all n bytes (poll-waits on EAGAIN up to timeout_ms in total).
 * Returns 0, or -1 on error/timeout (errno kept: EPIPE, ECONNRESET...).
 */
int rpc_send_raw(int fd, const void *p, size_t n, int timeout_ms);
/* One fragment: marker (with RM_LAST if last) plus data, in one write. */
int rpc_send_fragment(int fd, const void *p, size_t n, bool last);
/* A whole record as one final fragment. */
int rpc_send_record(int fd, const void *p, size_t n);
/* Append a record marker + data to buf (for batching many records). */
void rpc_buf_put_record(struct rpc_buf *b, const void *p, size_t n);

/*
 * Read one complete record (all fragments) into out, waiting at most
 * timeout_ms overall. Returns 1 on success, 0 on timeout (nothing or only
 * part of a record arrived), -1 if the peer closed or reset the
 * connection, -2 if the record exceeds max_len.
 */
int rpc_recv_record(int fd, struct rpc_buf *out, int timeout_ms,
		    size_t max_len);

/*
 * True if the peer closes (EOF or reset) within timeout_ms. Data that
 * arrives meanwhile is read and thrown away.
 */
bool rpc_peer_closed(int fd, int timeout_ms);

/* True if no byte at all arrives within timeout_ms (and no close). */
bool rpc_nothing_arrives(int fd, int timeout_ms);

/* ---- replies ---------------------------------------------------------- */

struct rpc_reply {
	uint32_t xid;
	uint32_t msg_type;
	uint32_t reply_stat;
	/* MSG_ACCEPTED */
	uint32_t verf_flavor;
	uint32_t verf_len;
	uint32_t accept_stat;
	uint32_t mismatch_low;	/* PROG_MISMATCH or RPC_MISMATCH */
	uint32_t mismatch_high;
	const uint8_t *body;	/* results after accept_stat (SUCCESS) */
	size_t body_len;
	/* MSG_DENIED */
	uint32_t reject_stat;
	uint32_t auth_stat;
	size_t total_len;	/* whole record length */
};

/*
 * Parse a reply record. Returns true if it is a structurally complete
 * reply; the fields read so far are filled even when it returns false.
 * For SUCCESS the results are left in body/body_len; for every other
 * outcome the record must end exactly where the reply ends.
 */
bool rpc_parse_reply(const uint8_t *p, size_t n, struct rpc_reply *r);

/* Short human description of a parsed reply, for TAP diagnostics. */
const char *rpc_reply_str(const struct rpc_reply *r, char *buf, size_t len);

/* Big-endian load for reading results. */
uint32_t rpc_get_u32(const uint8_t *p);

/*
 * Convenience: send call c as one record on fd, wait for one reply,
 * parse it. Returns 1 on a parsed reply, 0 on timeout, <0 on close/error
 * (-3: reply did not parse).
 */
int rpc_call_simple(int fd, const struct rpc_call *c, struct rpc_reply *r,
		    struct rpc_buf *store, int timeout_ms);

/* Resident set size of a process in KiB from /proc/PID/status, or -1. */
long rpc_proc_rss_kib(int pid);

/* Monotonic milliseconds. */
long long rpc_now_ms(void);

/*
 * Like rpc_connect_once, but bound first to a local port below 1024 (a
 * "privileged" or "reserved" port, as root's NFS clients use): tries
 * ports 1023 down to 600 until bind() succeeds. Returns fd, or -1 with
 * errno (EACCES when not allowed to bind such a port).
 */
int rpc_connect_privileged(uint16_t port, int timeout_ms);

/* Local port of a connected socket (0 if unknown). */
uint16_t rpc_local_port(int fd);

/*
 * A bounded reading cursor over a reply's results. Every read checks
 * what is left; a short read sets bad (and returns 0 / NULL), so a test
 * can read a whole result and check bad once.
 */
struct rpc_cur {
	const uint8_t *p;
	size_t n;
	bool bad;
};

uint32_t rpc_cur_u32(struct rpc_cur *c);
uint64_t rpc_cur_u64(struct rpc_cur *c);
void rpc_cur_skip(struct rpc_cur *c, size_t n);
/* opaque<max>: pointer to the bytes, *len their length (padding skipped). */
const uint8_t *rpc_cur_opaque(struct rpc_cur *c, uint32_t *len, uint32_t max);

#endif
