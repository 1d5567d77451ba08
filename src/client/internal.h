/* SPDX-License-Identifier: MIT */
/*
 * libnfsx internals shared by the files of src/client (not installed).
 *
 * Objects:
 *   nfsx_ctx  one server: an epoll set (the descriptor the application
 *             polls), a timerfd, an eventfd, three channels, the xid
 *             table, the pool of call structs, statistics.
 *   nc_chan   the connections to one port: NFS (nconnect of them),
 *             MOUNT and rpcbind (one each), each with its own fair
 *             transmit queue. Programs are routed to channels by number
 *             only, so another NFS version is just another procedure
 *             table.
 *   nc_conn   one TCP connection: slot table, send list (head may be
 *             partly written), in-flight list, receive buffer.
 *   nc_call   one RPC: encoded once (marker + header + arguments) into
 *             a buffer kept for retransmission; a WRITE's data is sent
 *             from the caller's buffer.
 * A call is in exactly one of: its channel's queue (QUEUED), a
 * connection's send list (SENDING) or in-flight list (SENT); it is in
 * the xid table and the timer list from submission to completion.
 */
#ifndef NFSX_CLIENT_INTERNAL_H
#define NFSX_CLIENT_INTERNAL_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "client/list.h"
#include "client/nfsx.h"
#include "client/slots.h"
#include "client/stats.h"
#include "client/xprt_queue.h"
#include "rpc/record.h"
#include "xdr/gen/rpcbind.h"
#include "xdr/xdr.h"

#define NC_CALL_INLINE 1024u      /* marker + header + small arguments */
#define NC_CALL_MAX (1u << 20)    /* largest encoded call without payload */
#define NC_MAX_NCONNECT 16u
#define NC_MACHINE_MAX 255u       /* AUTH_SYS machine name (rpc.x) */
#define NC_RBUF_MIN (64u << 10)
#define NC_RBUF_SLACK (64u << 10) /* receive buffer cap: max_reply + this */
#define NC_READ_BUDGET (4u << 20) /* bytes read per connection per service */
#define NC_SEND_IOV 256u
#define NC_SEND_BYTES (4u << 20)
#define NC_BACKOFF_BASE_MS 100u

enum nc_chan_id { NC_CH_NFS = 0, NC_CH_MOUNT, NC_CH_RPCB, NC_NCHAN };

enum nc_src_kind { NC_SRC_EVENT, NC_SRC_TIMER, NC_SRC_CONN };

struct nc_src {
	enum nc_src_kind kind;
};

enum nc_call_state { NC_QUEUED = 1, NC_SENDING, NC_SENT };

/* What a procedure's encode function receives (first member: xdr_enc). */
struct nc_enc {
	struct xdr_enc x;
	const uint8_t *payload;   /* trailing opaque sent zero-copy, or NULL */
	uint32_t payload_len;
};

struct nc_chan;
struct nc_conn;

struct nc_call {
	struct nc_xq_item qi;        /* QUEUED */
	struct nc_list link;         /* conn->sendq or conn->inflight */
	struct nc_list tlink;        /* ctx->timers */
	struct nc_call *hnext;       /* xid table chain */
	struct nc_call *free_next;   /* pool */
	const struct nfsx_proc *proc;
	struct nfsx_op_stats *st;
	nfsx_cb cb;
	void *priv;
	struct nc_chan *ch;
	struct nc_conn *conn;        /* SENDING/SENT */
	unsigned owner;
	uint32_t xid;
	int32_t slot;
	uint8_t state;
	bool tx_started;             /* queue time recorded */
	unsigned retries;            /* timer expiries left before failing */
	int last_err;                /* reported instead of -ETIMEDOUT */
	uint64_t t_submit, t_tx, deadline;
	const uint8_t *payload;
	uint32_t payload_len;
	uint8_t *buf;                /* marker + header + args */
	uint32_t len;
	uint8_t inline_buf[NC_CALL_INLINE];
};

enum nc_conn_state { NC_IDLE = 0, NC_CONNECTING, NC_UP, NC_BACKOFF };

struct nc_conn {
	struct nc_src src;
	struct nfsx_ctx *ctx;
	struct nc_chan *ch;
	unsigned idx;
	int fd;
	enum nc_conn_state state;
	uint32_t events;             /* epoll interest */
	struct nc_slots slots;
	struct nc_list sendq;        /* SENDING, head possibly partly written */
	struct nc_list inflight;     /* SENT */
	size_t send_off;             /* bytes of the sendq head written */
	uint8_t *rem;                /* unsent tail of a completed call */
	size_t rem_len, rem_off;
	uint8_t *rbuf;
	size_t rlen, rcap;
	int rcvlowat;                  /* SO_RCVLOWAT last set (0: default) */
	struct rpc_record rec;
	uint64_t deadline;           /* connect timeout or back-off end; 0 none */
	unsigned backoff_n;          /* failures since the last good reply */
	uint64_t ncalls;             /* transmissions on this connection */
	uint64_t nconnects;          /* successful connects */
	uint64_t nattempts;          /* connects started */
	bool broken;                 /* fail at the next safe point (ENOMEM) */
	struct nc_list oob;          /* nc_oob: replies to the server's calls */
};

enum nc_chan_state { NC_CH_NOPORT = 0, NC_CH_RESOLVING, NC_CH_READY };

struct nc_chan {
	struct nfsx_ctx *ctx;
	enum nc_chan_id id;
	enum nc_chan_state state;
	uint16_t port;
	struct nc_xq queue;
	unsigned nconn;
	struct nc_conn *conns;
	unsigned rr;                 /* next connection to get a call */
	struct mapping getport_args; /* rpcbind lookup in progress */
};

struct nfsx_ctx {
	struct nfsx_opts o;
	char host[256];
	char machine[NC_MACHINE_MAX + 1];
	struct sockaddr_storage addr;
	socklen_t addrlen;
	int epfd, tfd, efd;
	struct nc_src tsrc, esrc;
	struct nc_chan chan[NC_NCHAN];
	uint8_t hdr[512];            /* call header template, from the xid on */
	uint32_t hdr_len;
	struct nc_call **xtab;       /* xid -> call, chained */
	uint32_t xmask, xcount;
	uint32_t next_xid;
	struct nc_call *free_calls;
	void **chunks;
	size_t nchunks;
	struct nc_list timers;       /* by deadline: all deadlines are now + timeo */
	uint64_t armed;              /* timerfd expiry set, 0 none */
	struct nc_stats stats;
	uint8_t *arena;
	size_t arena_cap;
	void *res;
	size_t res_cap;
	unsigned pending;
	int in_cb;
	bool in_service, kicked, dirty, dying;
	bool ever_up;                /* some connection to the server succeeded */
	struct nc4_session *v4;      /* NFSv4.1 session (nfs4.h), NULL before one */
	/* mount state of the sync API */
	bool mounted;
	struct nfsx_fh root;
	char mnt_path[1025];
	char err[256];
	/* counters for tests and diagnostics */
	uint64_t stray_replies;      /* replies nobody waited for */
	size_t rbuf_peak;            /* largest receive buffer allocated */
	uint64_t remnants;           /* partly sent calls completed (tail copied) */
};

/* ctx.c */
uint64_t nc_now(void);
void nc_set_error(struct nfsx_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void nc_epoll_mod(struct nfsx_ctx *ctx, struct nc_conn *c, uint32_t events);
/* A call was queued: transmit at the end of this service, or wake one. */
void nc_queued(struct nfsx_ctx *ctx);

/* call.c */
struct nc_call *nc_xid_find(struct nfsx_ctx *ctx, uint32_t xid);
/* @t_reply: when the reply arrived (RTT sample), 0 if there was none. */
void nc_call_complete(struct nfsx_ctx *ctx, struct nc_call *call, int err, void *res,
		      uint64_t t_reply);
void nc_timers_run(struct nfsx_ctx *ctx, uint64_t now);
void nc_timer_arm(struct nfsx_ctx *ctx);
void nc_call_release_all(struct nfsx_ctx *ctx);
int nc_call_submit(struct nfsx_ctx *ctx, unsigned owner, const struct nfsx_proc *p,
		   const void *args, nfsx_cb cb, void *priv);
void nc_handle_record(struct nc_conn *c, uint8_t *rec, size_t len, uint64_t now);
size_t nc_call_reclen(const struct nc_call *call);

/* conn.c */
int nc_conn_init(struct nc_conn *c, struct nfsx_ctx *ctx, struct nc_chan *ch,
		 unsigned idx, unsigned slots);
void nc_conn_fini(struct nc_conn *c);
void nc_conn_start(struct nc_conn *c);
void nc_conn_event(struct nc_conn *c, uint32_t events);
void nc_conn_flush(struct nc_conn *c);
void nc_conn_fail(struct nc_conn *c, int err, bool proto);
void nc_conn_check_broken(struct nc_conn *c);
void nc_conn_assign(struct nc_conn *c, struct nc_call *call);
void nc_conn_detach(struct nc_conn *c, struct nc_call *call);
void nc_conn_retransmit(struct nc_conn *c, struct nc_call *call);
void nc_conn_timer(struct nc_conn *c, uint64_t now);
void nc_conn_feed(struct nc_conn *c, const uint8_t *data, size_t len, uint64_t now);
/*
 * nc_conn_send_raw - send @len bytes at @buf (a whole record, marker
 * included; malloc'd, freed by the connection) on @c at the next record
 * boundary of its stream: a reply to a call of the server's (the NFSv4.1
 * back channel). Dropped if the connection fails first.
 */
void nc_conn_send_raw(struct nc_conn *c, uint8_t *buf, size_t len);

/* chan.c, rpcb.c */
extern const struct nfsx_proc nc_pmap_getport;
void nc_chan_resolve(struct nc_chan *ch);
void nc_pump(struct nfsx_ctx *ctx);
struct nc_chan *nc_chan_for(struct nfsx_ctx *ctx, uint32_t prog);
void nc_chan_fail_queued(struct nc_chan *ch, int err);

/* path.c: the next component of *@p ('/' and "." skipped, *@p moved to
 * it): its length, 0 at the end (NFSv3's and NFSv4.1's path walks). */
size_t nc_next_component(const char **p);

#endif
