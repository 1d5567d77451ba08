/* SPDX-License-Identifier: MIT */
/*
 * The open and lock state a context holds on an NFSv4.1 server, kept so
 * that it can be reclaimed after the server restarts (not installed).
 *
 * DESIGN
 * - The caller keeps the stateids nfsx4_open and nfsx4_lock gave it and
 *   passes them to later calls; the library never asks it to swap them.
 *   So the table is keyed by the stateid the caller knows (orig): every
 *   OPEN and LOCK result seen on the session (nc4_check_reply ->
 *   nc4_state_note) makes or updates an entry per file, CLOSE drops it,
 *   OPEN_DOWNGRADE changes its modes, LOCK and LOCKU its byte ranges.
 * - After a reclaim the server's stateids (cur) differ: when a COMPOUND
 *   is sent (nc4_state_map, from nc4_req_send) each stateid naming an
 *   entry by orig is replaced by cur, so queued and later I/O with the
 *   caller's stateids goes on. A stateid of state the reclaim lost makes
 *   the COMPOUND fail with -EIO before it is sent: nothing is written
 *   without state.
 * - One open-owner and one lock-owner per context (nfs4.h): one open
 *   stateid and at most one lock stateid per file, so an entry is a
 *   file. Ranges are kept merged per lock type, as the server holds
 *   them (a LOCK over a range replaces what was there, LOCKU cuts).
 */
#ifndef NFSX_CLIENT_STATE4_H
#define NFSX_CLIENT_STATE4_H

#include "client/nfs4.h"

struct nc4_lrange {
	uint64_t start, end;         /* [start, end); end UINT64_MAX: to the end */
	uint32_t type;               /* READ_LT or WRITE_LT (the _W variants mapped) */
};

struct nc4_open {
	struct stateid4 orig, cur;   /* the caller's, the server's of now */
	uint32_t access, deny;       /* OPEN4_SHARE_* as the server holds them */
	uint32_t deleg;              /* OPEN_DELEGATE_* held at the restart */
	bool lost;                   /* the open could not be reclaimed */
	bool lk_lost;                /* its locks could not be reclaimed */
	bool todo;                   /* the reclaim under way has not done it */
	bool rec_opened;             /* ... but its OPEN CLAIM_PREVIOUS */
	uint32_t rec_range;          /* ... and its ranges below this */
	bool have_lk;
	struct stateid4 lk_orig, lk_cur;
	uint32_t nranges, cap;
	struct nc4_lrange *ranges;
	uint32_t fh_len;
	uint8_t fh[NFS4_FHSIZE];
};

struct nc4_state {
	struct nc4_open *opens;
	uint32_t nopens, cap;
	bool remapped;               /* a reclaim was started: stateids may differ */
	/* the reclaim under way: until its RECLAIM_COMPLETE is done */
	bool reclaiming;
	struct stateid4 rec_sid;     /* the entry its request is for (orig) */
	uint8_t rec_fh[NFS4_FHSIZE]; /* the handle its request carries */
	/* counters for nfsx4_recover_stats_get */
	uint64_t reclaims, opens_reclaimed, locks_reclaimed;
	uint64_t opens_lost, locks_lost, grace_retries, eio;
};

/* The context's table, made on first use. Return values: NULL without memory. */
struct nc4_state *nc4_state_of(struct nc4_session *s);
void nc4_state_free(struct nc4_session *s);

/* A reply's results (as nc4_check_reply sees them) into the table. */
void nc4_state_note(struct nfsx_ctx *ctx, const struct nfs_argop4 *ops, uint32_t nops,
		    const struct nfsx4_res *r);

/*
 * nc4_state_map - the stateids of @ops (a COMPOUND about to be sent)
 * that name a reclaimed entry replaced by the server's of now.
 * Return values: 0, or -EIO when one names state a reclaim lost.
 */
int nc4_state_map(struct nc4_session *s, struct nfs_argop4 *ops, uint32_t nops);

/*
 * nc4_state_reclaim_prepare - a new client id is about to be made
 * after the old one died: every entry is marked to be reclaimed, with
 * the delegation held on its file (from @s's list, before it is
 * forgotten). Return values: the number of opens to reclaim.
 */
uint32_t nc4_state_reclaim_prepare(struct nc4_session *s);

/* The entry whose open stateid (the caller's or the server's) is @sid. */
struct nc4_open *nc4_state_find_open(struct nc4_session *s, const struct stateid4 *sid);

/* The first entry still to reclaim, or NULL. */
struct nc4_open *nc4_state_next_todo(struct nc4_session *s);

/* Add [@start, @end) of @type to @o's ranges (what was there replaced).
 * Return values: 0, or -ENOMEM. */
int nc4_state_lock_add(struct nc4_open *o, uint64_t start, uint64_t end, uint32_t type);

#endif
