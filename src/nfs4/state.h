/* SPDX-License-Identifier: MIT */
/*
 * Open and lock state (RFC 7530 section 9, RFC 8881 sections 8-9):
 * open- and lock-owners, their seqids and replay cache, the open
 * stateids and share reservations, lock stateids and byte ranges.
 * No RPC and no file system in sight, so that a unit test drives it
 * alone; open_ops.c and io_ops.c put it on the wire.
 *
 * DESIGN
 * - A file is named by its (st_dev, st_ino): every export reaching it
 *   shares its reservations. The table holds the file only through an
 *   object its caller gives it (nfs4_state_file_pin: the server's open
 *   file, as knfsd's nfs4_file holds an nfsd_file), let go of when the
 *   file's last stateid goes; it never looks inside. Without one, an
 *   inode number reused after a file with open state was removed would
 *   meet that state (nfs4_state_forget_file).
 * - An open stateid is (open-owner, file): a second OPEN by the same
 *   owner upgrades it (access and deny are or-ed, the stateid's seqid
 *   goes up), as RFC 7530 9.1.4.2 asks. Which modes were asked is kept
 *   as a bitmap per stateid for OPEN_DOWNGRADE's check (knfsd's
 *   st_access_bmap).
 * - A stateid's "other" is the table's tag (a 32-bit value new at every
 *   start: a stateid of an earlier instance is STALE_STATEID, even one
 *   started within the same second), the low half of the client's
 *   clientid, and a 32-bit id (4 billion stateids before one comes
 *   back), as knfsd's: a stateid no longer known whose client lost its
 *   lease is EXPIRED.
 * - Seqid-bearing operations of minor version 0 (OPEN, OPEN_CONFIRM,
 *   OPEN_DOWNGRADE, CLOSE) are bracketed: a begin call checks the owner's
 *   seqid and holds the owner; the operation runs; the end call bumps
 *   the seqid (unless the status is one RFC 7530 9.1.7 exempts) and keeps
 *   the encoded result for a replay. A request with the last seqid gets
 *   that result back, byte for byte. Minor version 1 has no owner seqids
 *   (sessions replay whole COMPOUNDs): begin and end skip both checks.
 * - Open-owners are kept after their last CLOSE (the CLOSE may be
 *   replayed); a client's owners without stateids are dropped, oldest
 *   first, when the client reaches its bound of owners.
 * - Bounds: NFS4_STATE_MAX stateids and owners in all, and per client
 *   NFS4_STATE_CLIENT_MAX of each; past them, RESOURCE (once the state
 *   of clients whose lease ran out is dropped, see nfs4_state_set_live).
 * - One mutex over the table; every call is short (no file system
 *   work under it).
 */
#ifndef NFSX_NFS4_STATE_H
#define NFSX_NFS4_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "xdr/gen/nfs4.h"

#define NFS4_STATE_MAX (1u << 20)
#define NFS4_STATE_CLIENT_MAX 16384u
/* The longest result kept for a replay (a LOCK's denial carries an
 * owner of up to NFS4_OPAQUE_LIMIT bytes). */
#define NFS4_REPLAY_MAX (NFS4_OPAQUE_LIMIT + 128u)

struct nfs4_state;
struct nfs4_owner;

struct nfs4_file_id {
	dev_t dev;
	ino_t ino;
};

/*
 * What a seqid-bearing operation holds between nfs4_state_*_begin and
 * nfs4_state_seq_end. @replay: the call is a retransmission whose
 * result is in @reply (@reply_len bytes), to be sent as it is.
 */
struct nfs4_seq {
	struct nfs4_owner *ow;
	bool check;                /* minor version 0: a seqid to keep */
	uint32_t seqid;
	bool replay;
	uint32_t reply_len;
	/* The current filehandle the operation left (OPEN's file): kept
	 * with the result, given back with a replay (the next operation
	 * of the COMPOUND works on it); @fh_len bytes of @fh. */
	uint32_t fh_len;
	/* The buffers last: read only as far as the lengths above say, so
	 * a holder need not zero them (compound.c zeroes the rest). */
	uint8_t reply[NFS4_REPLAY_MAX];
	uint8_t fh[NFS4_FHSIZE];
};

/*
 * nfs4_state_new - an empty table whose stateids carry @tag.
 * Return values: the table, or NULL when memory is short.
 */
struct nfs4_state *nfs4_state_new(uint32_t tag);
void nfs4_state_free(struct nfs4_state *t);

/*
 * nfs4_state_open_begin - OPEN's first step: find or make the open-owner
 * (@clientid, @owner of @len bytes) and check @seqid against it (minor
 * version 0, @minor0). On NFS4_OK @q holds the owner (nfs4_state_seq_end
 * lets go) and q->replay says the call is a retransmission.
 * Return values: NFS4_OK; NFS4ERR_BAD_SEQID; NFS4ERR_RESOURCE (bounds);
 * NFS4ERR_SERVERFAULT (memory).
 */
enum nfsstat4 nfs4_state_open_begin(struct nfs4_state *t, clientid4 clientid,
				    const uint8_t *owner, uint32_t len, uint32_t seqid,
				    bool minor0, struct nfs4_seq *q);

/*
 * nfs4_state_open - OPEN's share reservation on @f for the owner @q
 * holds: @access and @deny (OPEN4_SHARE_*, both two bits) checked against
 * every other owner's open of @f, then the owner's stateid of @f made or
 * upgraded into @sid. @confirm: the owner still needs OPEN_CONFIRM
 * (minor version 0, first open of a new owner). @reclaim: a CLAIM_PREVIOUS
 * open, whose owner is confirmed at once (knfsd).
 * Return values: NFS4_OK; NFS4ERR_SHARE_DENIED; NFS4ERR_RESOURCE.
 */
enum nfsstat4 nfs4_state_open(struct nfs4_state *t, struct nfs4_seq *q,
			      const struct nfs4_file_id *f, uint32_t access, uint32_t deny,
			      bool reclaim, struct stateid4 *sid, bool *confirm);

/*
 * nfs4_state_seqid_begin - first step of OPEN_CONFIRM, OPEN_DOWNGRADE
 * and CLOSE: find open stateid @sid of file @f and check the owner's
 * @seqid (minor version 0), as knfsd's nfs4_preprocess_seqid_op: stateid
 * known, then seqid (replay or BAD_SEQID), then the stateid's own seqid,
 * then (but for @confirming) that the owner is confirmed.
 * Return values: NFS4_OK (@q holds the owner; see q->replay);
 * NFS4ERR_BAD_STATEID, NFS4ERR_STALE_STATEID, NFS4ERR_OLD_STATEID,
 * NFS4ERR_BAD_SEQID.
 */
enum nfsstat4 nfs4_state_seqid_begin(struct nfs4_state *t, const struct stateid4 *sid,
				     const struct nfs4_file_id *f, uint32_t seqid, bool minor0,
				     bool confirming, struct nfs4_seq *q);

/* OPEN_CONFIRM of @sid (after nfs4_state_seqid_begin): the owner is
 * confirmed, the stateid's seqid goes up into @out.
 * Return values: NFS4_OK; NFS4ERR_BAD_STATEID when already confirmed. */
enum nfsstat4 nfs4_state_confirm(struct nfs4_state *t, const struct stateid4 *sid, struct stateid4 *out);

/* OPEN_DOWNGRADE of @sid to @access/@deny (RFC 7530 16.19.4: each must
 * be a mode the owner opened with); the new stateid in @out.
 * Return values: NFS4_OK; NFS4ERR_INVAL. */
enum nfsstat4 nfs4_state_downgrade(struct nfs4_state *t, const struct stateid4 *sid,
				   uint32_t access, uint32_t deny, struct stateid4 *out);

/* CLOSE of @sid: its reservation ends; @out is it with its seqid up
 * (as minor version 0 answers). In minor version 0 the stateid stays
 * known for a replay of the CLOSE until its owner's next seqid-bearing
 * call (anything else with it is BAD_STATEID), as knfsd keeps it.
 * Return values: NFS4_OK; NFS4ERR_BAD_STATEID. */
enum nfsstat4 nfs4_state_close(struct nfs4_state *t, const struct stateid4 *sid, bool minor0,
			       struct stateid4 *out);

/*
 * nfs4_state_seq_end - the end of a seqid-bearing operation begun on
 * @q: @status and its encoded result (@res, @len bytes; NULL when it was
 * not encoded) kept for a replay with q->fh, the owner's seqid counted, the owner
 * let go. Calls without an owner (q->ow NULL) do nothing.
 */
void nfs4_state_seq_end(struct nfs4_state *t, struct nfs4_seq *q, enum nfsstat4 status,
			const uint8_t *res, uint32_t len);

/*
 * nfs4_state_check_io - may a READ (@write false) or WRITE of file @f
 * go on with stateid @sid? The special stateids: all zeros (anonymous)
 * unless another open denies that access, all ones for READ (bypass).
 * An open stateid: of @f, current (minor version 1: seqid 0 means the
 * current one), of a confirmed owner, opened for writing for a WRITE.
 * @clientid: the stateid's client, for its lease (0 for special ones).
 * Return values: NFS4_OK; NFS4ERR_LOCKED (a deny); NFS4ERR_OPENMODE;
 * NFS4ERR_BAD_STATEID; NFS4ERR_STALE_STATEID; NFS4ERR_OLD_STATEID.
 */
enum nfsstat4 nfs4_state_check_io(struct nfs4_state *t, const struct stateid4 *sid,
				  const struct nfs4_file_id *f, bool write, bool minor0,
				  clientid4 *clientid);

/* ---- byte-range locks (state_lock.c) ----
 * Conflicts are decided here, between lock-owners of every client: a
 * write lock conflicts with any other owner's lock on an overlapping
 * range, a read lock with another owner's write lock. An owner's own
 * ranges merge and split as POSIX locks do. Blocking lock types are
 * taken as their non-blocking ones (the client polls on DENIED). What
 * the table grants is then held on the file system too, through the
 * hooks of nfs4_state_set_fslocks (lock_ops.c: the backend's OFD
 * locks), so that local processes on the server see it; without them
 * (or for a file whose backend has no locks) locks live only here. */

/* A conflicting lock, as LOCK4denied tells it. */
struct nfs4_lock_denied {
	uint64_t offset, length;
	uint32_t type;              /* READ_LT or WRITE_LT */
	clientid4 clientid;
	uint32_t owner_len;
	uint8_t owner[NFS4_OPAQUE_LIMIT];
};

/*
 * Locks held on the file system (lock_ops.c, through the backend's lock
 * operations, vfs/ops.h). A lock stateid that holds ranges has one
 * holder (struct nfs4_fslock, the caller's: one open file description)
 * holding exactly its ranges; the holder goes as soon as the stateid
 * holds none, or goes itself, whichever path drops it (LOCKU, CLOSE,
 * RELEASE_LOCKOWNER, FREE_STATEID, a purged or reaped client). The
 * table calls the hooks with its lock held, after it has decided
 * between its own clients, so that what it holds and what the file
 * system holds never disagree; none of them may wait. @ctx is the
 * call's (its file, its caller); NULL means the file's backend has no
 * locks. @end inclusive, NFS4_UINT64_MAX: to the end. A conflict with
 * a local process is NFS4ERR_DENIED with @d describing it (clientid 0,
 * a synthetic owner); other failures are the status to answer.
 */
struct nfs4_fslock;

struct nfs4_fslocks {
	/* A new holder on @ctx's file, for read locks and (@write) write
	 * locks too. */
	enum nfsstat4 (*open)(void *ctx, bool write, struct nfs4_fslock **out);
	/* May @h hold write locks? */
	bool (*writable)(const struct nfs4_fslock *h);
	/* Hold [@start, @end] as @type (READ_LT, WRITE_LT) in @h, or
	 * release it (@type 0); @ctx gives the status of a failure (its
	 * minor version), may be NULL for a release. */
	enum nfsstat4 (*set)(void *ctx, struct nfs4_fslock *h, uint32_t type, uint64_t start,
			     uint64_t end, struct nfs4_lock_denied *d);
	/* Would holder @h (NULL: one without locks) get the range? */
	enum nfsstat4 (*test)(void *ctx, const struct nfs4_fslock *h, uint32_t type,
			      uint64_t start, uint64_t end, struct nfs4_lock_denied *d);
	/* Release everything @h holds and free it. */
	void (*drop)(struct nfs4_fslock *h);
};

/* Hold granted locks through @ops from now on (NULL: no longer). */
void nfs4_state_set_fslocks(struct nfs4_state *t, const struct nfs4_fslocks *ops);

struct nfs4_lock_args {
	uint32_t type;              /* READ_LT, WRITE_LT, READW_LT, WRITEW_LT */
	uint64_t offset, length;    /* length NFS4_UINT64_MAX: to the end */
	bool new_owner;             /* open_to_lock_owner4 */
	const struct stateid4 *sid; /* the open stateid (new owner) or the lock stateid */
	uint32_t seqid;             /* open_seqid (new owner) or lock_seqid */
	uint32_t lock_seqid;        /* new owner: its first seqid */
	clientid4 clientid;         /* new owner: its client */
	const uint8_t *owner;       /* new owner: its name */
	uint32_t owner_len;
	/* Not NFS4_OK: the answer once the seqid is checked (and counted),
	 * with nothing locked: a grace period's GRACE, NO_GRACE or
	 * RECLAIM_BAD, as knfsd decides them after the seqid. */
	enum nfsstat4 refuse;
	void *fs;                   /* the hooks' @ctx (nfs4_fslocks) */
};

/* Most ranges one lock stateid holds (each LOCK may split one in two). */
#define NFS4_LOCK_RANGES_MAX 4096u

/*
 * nfs4_state_lock - LOCK on file @f: the seqid of the owner it names
 * checked (minor version 0; q->replay as for the others), the lock
 * stateid found or made, the range locked unless another owner's lock
 * conflicts (@denied says which), then held on the file system unless a
 * local process holds a conflicting lock (DENIED too). @q holds the owner whose seqid was
 * checked, for nfs4_state_seq_end, whatever the status.
 * Return values: NFS4_OK (@out the lock stateid); NFS4ERR_DENIED;
 * NFS4ERR_INVAL (a length of 0, or a range past 2^64 - 1); the stateid and
 * seqid errors of nfs4_state_seqid_begin; NFS4ERR_OPENMODE (a write
 * lock from an open without write access); a->refuse; NFS4ERR_RESOURCE.
 */
enum nfsstat4 nfs4_state_lock(struct nfs4_state *t, const struct nfs4_file_id *f,
			      const struct nfs4_lock_args *a, bool minor0, struct nfs4_seq *q,
			      struct stateid4 *out, struct nfs4_lock_denied *denied);

/*
 * nfs4_state_locku - LOCKU of the range on file @f with lock stateid
 * @sid and the lock-owner's @seqid; unlocking what is not locked is no
 * error. @fs: the hooks' context. Return values: as nfs4_state_lock's,
 * DENIED aside.
 */
enum nfsstat4 nfs4_state_locku(struct nfs4_state *t, const struct nfs4_file_id *f,
			       const struct stateid4 *sid, uint32_t seqid, uint64_t offset,
			       uint64_t length, bool minor0, struct nfs4_seq *q,
			       struct stateid4 *out, void *fs);

/*
 * nfs4_state_lockt - LOCKT: would lock-owner (@clientid, @owner) get the
 * range on @f, from the table's clients, then (@fs, the hooks' context)
 * from local processes? Return values: NFS4_OK; NFS4ERR_DENIED
 * (@denied); NFS4ERR_INVAL; a hook's failure.
 */
enum nfsstat4 nfs4_state_lockt(struct nfs4_state *t, const struct nfs4_file_id *f,
			       clientid4 clientid, const uint8_t *owner, uint32_t len,
			       uint32_t type, uint64_t offset, uint64_t length,
			       struct nfs4_lock_denied *denied, void *fs);

/*
 * nfs4_state_release_lockowner - RELEASE_LOCKOWNER: forget lock-owner
 * (@clientid, @owner) and its stateids.
 * Return values: NFS4_OK (also for an owner never seen);
 * NFS4ERR_LOCKS_HELD while it holds a lock.
 */
enum nfsstat4 nfs4_state_release_lockowner(struct nfs4_state *t, clientid4 clientid,
					   const uint8_t *owner, uint32_t len);

/* ---- delegations (state_deleg.c) ----
 * A delegation is a stateid of the client (not of an open-owner) on a
 * file. A read delegation lets the client open, read and cache the file
 * without asking until the server recalls it because another client (or
 * NFSv3, or the same 4.0 client through an operation that does not name
 * its client) is about to change the file. A write delegation lets it
 * also write and cache its writes (and the file's size and change) with
 * no other client's open beside it: any other client's use of the file,
 * reading its data or its size and change included, recalls it. The
 * table decides grants and conflicts; the caller sends the recalls it is
 * handed (callback.h) and answers the conflicting call DELAY meanwhile
 * (knfsd's behaviour). A delegation not returned within a lease of its
 * recall is revoked: a 4.0 client's goes, a 4.1 client's stays revoked
 * (DELEG_REVOKED) until its FREE_STATEID, as RFC 8881 10.2.1 asks. */

/* Delegations held or being recalled at most, in all. */
#define NFS4_DELEG_MAX 65536u
/* Seconds after a recall of a file's delegation during which the file
 * gets no new one (knfsd blocks recently recalled files 30-60 s): a
 * reader and a writer taking turns would otherwise recall at each turn. */
#define NFS4_DELEG_RECALL_HOLD 30u
/* Recalls one conflict hands out at most (more wait for the next try). */
#define NFS4_RECALLS_MAX 8u

/* Why no delegation was granted (RFC 8881's why_no_delegation4 where
 * one fits). */
enum nfs4_deleg_why {
	NFS4_DELEG_GRANTED = -1,
	NFS4_DELEG_CONTENTION = WND4_CONTENTION,  /* writers, a recall, one held already */
	NFS4_DELEG_RESOURCE = WND4_RESOURCE,      /* a bound */
};

/*
 * nfs4_state_deleg_grant - a delegation for the owner @q holds (just
 * after its nfs4_state_open of @f succeeded): a write delegation when
 * @write, else a read one. None when its owner is not confirmed (minor
 * version 0: knfsd's rule), a delegation of @f is being recalled or was
 * in the NFS4_DELEG_RECALL_HOLD seconds before @now (the clock of
 * nfs4_state_deleg_break), the client has one on @f already, or a bound
 * is reached; a read one also not while any open of @f has write access
 * or another client holds a write one; a write one not while another
 * client has @f open or holds a delegation of it. @minor1: the client's
 * minor version is 1 (revocation keeps the stateid). @fh (@fh_len bytes,
 * at most NFS4_FHSIZE) is kept for the recall.
 * Return values: NFS4_DELEG_GRANTED with @out, or why not.
 */
enum nfs4_deleg_why nfs4_state_deleg_grant(struct nfs4_state *t, const struct nfs4_seq *q,
					   const struct nfs4_file_id *f, uint64_t now, bool minor1,
					   bool write, const uint8_t *fh, uint32_t fh_len,
					   struct stateid4 *out);

/* A recall to send: CB_RECALL of @sid on @fh to @clientid. */
struct nfs4_recall {
	clientid4 clientid;
	bool minor1;
	struct stateid4 sid;
	uint32_t fh_len;
	uint8_t fh[NFS4_FHSIZE];
};

/*
 * nfs4_state_deleg_break - @f is about to change (written, its
 * attributes set, a name of it removed or renamed, a new name linked, or
 * an OPEN for writing or denying reads), or when @reading only to be
 * read (its data, its size or change attribute, an OPEN for reading),
 * at @now (seconds, any clock that the caller keeps) by @breaker: an
 * NFSv4 clientid whose own delegations do not conflict, or 0 (NFSv3, or
 * a 4.0 call that names no client). Every delegation of another client
 * conflicts with a change, only write delegations with @reading.
 * Each conflicting delegation: a held one starts its recall (into
 * @out[*@nout], at most NFS4_RECALLS_MAX); one being recalled whose
 * recall was not sent or failed (nfs4_state_deleg_unsent) is handed out
 * again; one recalled @lease seconds ago or more is revoked; one of a
 * client whose lease ran out goes with that client's state (courtesy).
 * Return values: NFS4_OK (no conflict left: go on); NFS4ERR_DELAY.
 */
enum nfsstat4 nfs4_state_deleg_break(struct nfs4_state *t, const struct nfs4_file_id *f,
				     clientid4 breaker, bool reading, uint64_t now,
				     uint32_t lease, struct nfs4_recall *out, uint32_t *nout);

/* The recall of @sid could not be sent or was refused: hand it out
 * again at the next conflict. */
void nfs4_state_deleg_unsent(struct nfs4_state *t, const struct stateid4 *sid);

/*
 * nfs4_state_delegreturn - DELEGRETURN of @sid on file @f by @clientid
 * (0: minor version 0, the stateid names its client).
 * Return values: NFS4_OK; NFS4ERR_BAD_STATEID (not a delegation, another
 * file's, another client's); NFS4ERR_OLD_STATEID; NFS4ERR_STALE_STATEID;
 * NFS4ERR_EXPIRED; NFS4ERR_DELEG_REVOKED (kept for FREE_STATEID).
 */
enum nfsstat4 nfs4_state_delegreturn(struct nfs4_state *t, clientid4 clientid,
				     const struct stateid4 *sid, const struct nfs4_file_id *f,
				     bool minor0);

/*
 * nfs4_state_deleg_check - an OPEN with CLAIM_DELEGATE_CUR or
 * CLAIM_DELEG_CUR_FH: is @sid a delegation of @clientid on @f, held or
 * being recalled (the client opens what it opened locally before it
 * returns it)? Return values: as nfs4_state_delegreturn's.
 */
enum nfsstat4 nfs4_state_deleg_check(struct nfs4_state *t, clientid4 clientid,
				     const struct stateid4 *sid, const struct nfs4_file_id *f,
				     bool minor0);

/* Delegations of @clientid held or being recalled, and revoked ones not
 * yet freed (4.1's SEQ4_STATUS_RECALLABLE_STATE_REVOKED). */
void nfs4_state_client_delegs(struct nfs4_state *t, clientid4 clientid, uint32_t *held,
			      uint32_t *revoked);

/* Return values: delegations held or being recalled, in all. */
uint32_t nfs4_state_delegs(struct nfs4_state *t);

/* The table's counts, for statistics (nfs4_stats_get). */
struct nfs4_state_counts {
	uint64_t opens;             /* open stateids in force */
	uint64_t locks;             /* lock stateids */
	uint64_t delegations;       /* held or being recalled */
	uint64_t seqid_replays;     /* 4.0 calls answered from the owner's kept reply */
};

/* nfs4_state_get_counts - @t's counts into @out: kept as the state
 * changes, read under the table's lock (no walk). */
void nfs4_state_get_counts(struct nfs4_state *t, struct nfs4_state_counts *out);

/* @count(held, revoked, write) with the changes of the three counts:
 * delegations held or being recalled, revoked ones not yet freed, and
 * write delegations held or being recalled. (+1, 0, w) at a grant (w 1
 * for a write delegation, else 0), (-1, 0, -w) when one is returned or
 * dropped, (-1, +1, -w) when a 4.1 client's is revoked, (0, -1, 0) when
 * a revoked one is freed (called with the table's lock held: it must not
 * call back). */
void nfs4_state_set_deleg_count(struct nfs4_state *t,
				void (*count)(int held, int revoked, int write));

/*
 * nfs4_state_set_live - how the table learns whether a client still
 * holds its lease: @live(clientid) (called with the table's lock held;
 * it must not call back into the table); @boot is the high half of the
 * server's clientids (clients.h), whose low half a stateid carries. A
 * client whose lease ran out
 * keeps its state (a courteous server, as Linux 5.19+) until another
 * client's OPEN or LOCK conflicts with it, or the table reaches a bound:
 * then that client's state is dropped. Without it every client is live.
 */
void nfs4_state_set_live(struct nfs4_state *t, bool (*live)(clientid4 clientid),
			 uint32_t boot);

/* @holds(clientid, true) when a client's first stateid is made,
 * @holds(clientid, false) when its last one goes (the client table's
 * courtesy clients, clients.h; called with the table's lock held). */
void nfs4_state_set_holds(struct nfs4_state *t, void (*holds)(clientid4 clientid, bool holds));

/*
 * nfs4_state_set_unpin - @unpin(obj) lets go of the object
 * nfs4_state_file_pin gave a file, when the file's last stateid goes
 * (called with the table's lock held: it must not block nor call back).
 * NULL: objects are dropped from then on, not let go of (shutdown), and
 * nfs4_state_free never lets go of them.
 */
void nfs4_state_set_unpin(struct nfs4_state *t, void (*unpin)(void *obj));

/*
 * nfs4_state_file_pin - file @f, which has opens, keeps @obj (a
 * reference of the caller's) until its last stateid goes, then hands it
 * to the unpin function. One object a file.
 * Return values: true when the table took @obj; false when @f has no
 * open, already keeps one, or no unpin function is set (the caller lets
 * go of @obj).
 */
bool nfs4_state_file_pin(struct nfs4_state *t, const struct nfs4_file_id *f, void *obj);

/*
 * nfs4_state_forget_file - a file was just created with id @f: state
 * still held under that id belongs to a removed file whose inode number
 * was reused (one whose open was not pinned: nothing held its inode), so
 * it is dropped.
 */
void nfs4_state_forget_file(struct nfs4_state *t, const struct nfs4_file_id *f);

/* Was @clientid's state dropped for its lease (a conflict, or the
 * bound) since it last heard? Return values: true once (it hears now). */
bool nfs4_state_reaped(struct nfs4_state *t, clientid4 clientid);

/* Drop every owner and stateid of @clientid (gone, or replaced by a new
 * instance of the same client). */
void nfs4_state_purge_client(struct nfs4_state *t, clientid4 clientid);

/* Stateids of @clientid, for DESTROY_CLIENTID and tests. */
uint32_t nfs4_state_client_count(struct nfs4_state *t, clientid4 clientid);

/*
 * nfs4_state_test - TEST_STATEID of one stateid of client @clientid
 * (RFC 8881 18.48): is it usable?
 * Return values: NFS4_OK; NFS4ERR_BAD_STATEID (unknown, special, closed,
 * or another client's); NFS4ERR_OLD_STATEID; NFS4ERR_STALE_STATEID;
 * NFS4ERR_EXPIRED.
 */
enum nfsstat4 nfs4_state_test(struct nfs4_state *t, clientid4 clientid,
			      const struct stateid4 *sid);

/*
 * nfs4_state_free_stateid - FREE_STATEID (RFC 8881 18.38) of @sid by
 * client @clientid: a lock stateid without locks goes.
 * Return values: NFS4_OK; NFS4ERR_LOCKS_HELD (an open stateid, or a lock
 * stateid holding locks); the errors of nfs4_state_test.
 */
enum nfsstat4 nfs4_state_free_stateid(struct nfs4_state *t, clientid4 clientid,
				      const struct stateid4 *sid);

/* Does @sid name state of this table? Return values: NFS4_OK;
 * NFS4ERR_STALE_STATEID; NFS4ERR_BAD_STATEID (never given, or special). */
enum nfsstat4 nfs4_state_known(struct nfs4_state *t, const struct stateid4 *sid);

/* Is @sid the anonymous stateid (all zeros)? */
bool nfs4_stateid_anonymous(const struct stateid4 *sid);
/* ... the READ bypass (all ones)? */
bool nfs4_stateid_bypass(const struct stateid4 *sid);

#endif
