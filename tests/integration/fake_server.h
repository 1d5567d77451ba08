/* SPDX-License-Identifier: MIT */
/*
 * A deliberately misbehaving ONC RPC server for libnfsx's tests, run as
 * a thread of the test on 127.0.0.1 (an ephemeral port). It answers NFS
 * NULL and GETATTR (fileid = the call's xid), PMAP GETPORT (with a set
 * port) and anything else with PROC_UNAVAIL, unless a misbehaviour flag
 * says otherwise. Flags can be changed while it runs. It counts what it
 * sees per connection, so tests can check what went over the wire.
 */
#ifndef NFSX_TEST_FAKE_SERVER_H
#define NFSX_TEST_FAKE_SERVER_H

#include <stdbool.h>
#include <stdint.h>

enum {
	FAKE_DROP_FIRST = 1 << 0,    /* no reply to the first call of each xid */
	FAKE_CLOSE_MID = 1 << 1,     /* on the first connection, at call close_after:
	                                half of its reply, then close (others unanswered) */
	FAKE_GARBAGE_REPLY = 1 << 2, /* the call's xid, SUCCESS, then bytes that decode
	                                as no result */
	FAKE_GARBAGE_STREAM = 1 << 3,/* 64 KiB of 'A' (no record marking) per call */
	FAKE_UNKNOWN_XID = 1 << 4,   /* a reply to an xid nobody sent, before each reply */
	FAKE_HUGE_MARKER = 1 << 5,   /* a record marker announcing 2 GiB, then 64 KiB */
	FAKE_HOLD = 1 << 6,          /* keep replies until fake_release() */
	FAKE_EARLY_REPLY = 1 << 7,   /* answer big calls after their first 4 KiB */
	FAKE_CROSS_REPLY = 1 << 8,   /* answer on another open connection than the call's */
};

#define FAKE_MAX_CONNS 32
#define FAKE_LOG 8192

struct fake_call {
	unsigned conn;
	uint32_t xid, prog, proc;
};

struct fake_stats {
	unsigned conns;                    /* accepted */
	unsigned calls[FAKE_MAX_CONNS];    /* calls received, per connection */
	unsigned held;                     /* replies waiting for fake_release */
	unsigned nlog;
	struct fake_call log[FAKE_LOG];    /* first FAKE_LOG calls, in order */
};

struct fake_server;

/* Start on 127.0.0.1, an ephemeral port (or @port if not 0). NULL on failure. */
struct fake_server *fake_start(unsigned flags, uint16_t port);
uint16_t fake_port(const struct fake_server *fs);
void fake_set_flags(struct fake_server *fs, unsigned flags);
void fake_set_close_after(struct fake_server *fs, unsigned n);
void fake_set_getport(struct fake_server *fs, uint32_t port);
/* Send the replies held so far (FAKE_HOLD). */
void fake_release(struct fake_server *fs);
void fake_get_stats(struct fake_server *fs, struct fake_stats *st);
void fake_stop(struct fake_server *fs);

#endif
