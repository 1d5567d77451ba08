/* SPDX-License-Identifier: MIT */
/*
 * What state.c (owners, stateids, seqids), state_open.c (opens),
 * state_lock.c (lock stateids and byte ranges) and state_deleg.c
 * (delegations) share: the table's structures and the helpers they call
 * with the table's lock held.
 */
#ifndef NFSX_NFS4_STATE_INTERNAL_H
#define NFSX_NFS4_STATE_INTERNAL_H

#include <pthread.h>

#include "nfs4/state.h"

#define BUCKETS (1u << 16)
#define REAPED_MAX 1024u
#define RECALLED_SLOTS 1024u   /* files recalled lately (state_deleg.c) */

struct stid;

/* A client's share of the table: its owners, and the counts bounded per client. */
struct client {
	struct client *hnext;
	clientid4 id;
	struct nfs4_owner *owners;
	uint32_t nowners, nstids;
};

/* OWNER_DELEG: one per client, with no name, holding its delegations
 * (a delegation belongs to the client, not to an open-owner). */
enum { OWNER_OPEN, OWNER_LOCK, OWNER_DELEG };

struct nfs4_owner {
	struct nfs4_owner *hnext;   /* chain of the (clientid, kind, owner) hash */
	struct nfs4_owner *cnext;   /* the client's owners, newest first */
	struct client *cl;
	struct stid *stids;         /* its stateids (snext) */
	uint32_t refs;              /* seqid-bearing calls holding it */
	uint8_t kind;               /* OWNER_OPEN or OWNER_LOCK */
	uint32_t seqid;             /* the last one accepted */
	bool confirmed;
	bool fresh;                 /* no seqid accepted yet */
	struct stid *closed;        /* its last CLOSE's stateid, for a replay */
	uint32_t reply_len;         /* 0: no result kept */
	uint32_t fh_len;
	uint8_t *reply;             /* NFS4_REPLAY_MAX, then the handle */
	uint32_t len;
	uint8_t data[];
};

struct file {
	struct file *hnext;
	struct nfs4_file_id id;
	struct stid *opens;         /* (fnext) */
	struct stid *locks;         /* lock stateids (fnext) */
	struct stid *delegs;        /* delegations held or being recalled (fnext) */
	void *pin;                  /* nfs4_state_file_pin's object, or NULL */
};

/* A byte range locked, @end inclusive (a lock to the end of the file
 * ends at UINT64_MAX). */
struct range {
	struct range *next;         /* in order of start */
	uint64_t start, end;
	uint32_t type;              /* READ_LT or WRITE_LT */
};

struct stid {
	struct stid *hnext;         /* chain of the id hash */
	struct stid *snext;         /* the owner's stateids */
	struct stid *fnext;         /* the file's opens, or its locks */
	uint64_t id;
	uint32_t seqid;
	uint8_t access, deny;       /* OPEN4_SHARE_* in force */
	uint8_t access_bmap, deny_bmap;  /* 1 << each mode asked */
	bool closed;                /* only its owner's closed one (f NULL) */
	bool lock;                  /* a lock stateid (else an open one) */
	struct nfs4_owner *ow;
	struct file *f;
	struct stid *open;          /* a lock stateid's open */
	struct range *ranges;       /* a lock stateid's ranges */
	/* their holder on the file system (nfs4_fslocks): there exactly
	 * while ranges are, when the table has hooks */
	struct nfs4_fslock *fsl;
	struct deleg *deleg;        /* a delegation's (else NULL) */
};

enum deleg_state { DELEG_HELD, DELEG_RECALLING, DELEG_REVOKED };

/* What a delegation stateid has besides a stateid's. A revoked one (4.1)
 * is off its file (f NULL) and stays until FREE_STATEID. */
struct deleg {
	enum deleg_state state;
	bool minor1;                /* granted to a 4.1 client (revoked, not dropped) */
	bool write;                 /* a write delegation (else a read one) */
	bool recall_sent;           /* a CB_RECALL is out, or was answered */
	uint64_t recall_at;         /* when it was first recalled (the caller's clock) */
	uint32_t fh_len;
	uint8_t fh[NFS4_FHSIZE];    /* the file's handle, for CB_RECALL */
};

struct nfs4_state {
	pthread_mutex_t lock;
	uint32_t tag;
	uint64_t next_id;
	uint32_t nstids, nowners;
	bool (*live)(clientid4 clientid);   /* nfs4_state_set_live */
	void (*holds)(clientid4 clientid, bool holds);   /* nfs4_state_set_holds */
	void (*deleg_count)(int held, int revoked, int write);   /* nfs4_state_set_deleg_count */
	const struct nfs4_fslocks *fs;      /* nfs4_state_set_fslocks */
	void (*unpin)(void *obj);           /* nfs4_state_set_unpin */
	uint32_t ndelegs;                   /* held or being recalled */
	/* for nfs4_state_get_counts: open stateids in force (a 4.0 CLOSE's
	 * kept for its replay is not), lock stateids, and seqid-bearing
	 * calls answered from their owner's kept reply */
	uint64_t nopens, nlocks, seqid_replays;
	/* files whose delegation was recalled lately, by hash: no new one
	 * for NFS4_DELEG_RECALL_HOLD seconds (state_deleg.c) */
	struct recalled {
		struct nfs4_file_id id;
		uint64_t when;
	} recalled[RECALLED_SLOTS];
	uint32_t boot;                      /* the clientids' high half */
	/* clients whose state a conflict dropped, until they hear of it */
	clientid4 reaped[REAPED_MAX];
	uint32_t nreaped;
	struct client *clients[BUCKETS];
	struct nfs4_owner *owners[BUCKETS];
	struct file *files[BUCKETS];
	struct stid *stids[BUCKETS];
};


uint32_t state_hash(uint64_t x);
struct client *state_client_get(struct nfs4_state *t, clientid4 id, bool make);
/* Find or (@make) make the owner (@cid, @kind, @d of @len bytes); *@err
 * says why not. */
struct nfs4_owner *state_owner_get(struct nfs4_state *t, clientid4 cid, uint8_t kind,
				   const uint8_t *d, uint32_t len, bool make,
				   enum nfsstat4 *err);
void state_owner_free(struct nfs4_state *t, struct nfs4_owner *o);
struct file *state_file_get(struct nfs4_state *t, const struct nfs4_file_id *id, bool make);
/* Free @f once no stateid is on it. */
void state_file_put(struct nfs4_state *t, struct file *f);
/* A new stateid of owner @o on file @f, or NULL past the bounds (*@err). */
struct stid *state_stid_new(struct nfs4_state *t, struct nfs4_owner *o, struct file *f,
			    enum nfsstat4 *err);
void state_stid_drop(struct nfs4_state *t, struct stid *s);
/* Take stateid @s off its file (its reservation or locks end). */
void state_stid_unfile(struct nfs4_state *t, struct stid *s);
/* Drop client @c's whole state. */
void state_purge(struct nfs4_state *t, struct client *c);
void state_stid_out(const struct nfs4_state *t, const struct stid *s, struct stateid4 *out);
enum nfsstat4 state_stid_lookup(struct nfs4_state *t, const struct stateid4 *sid,
				struct stid **out);
enum nfsstat4 state_stid_open(struct nfs4_state *t, const struct stateid4 *sid,
			      struct stid **out);
enum nfsstat4 state_stid_seqid(const struct stid *s, const struct stateid4 *sid, bool minor0);
enum nfsstat4 state_seq_check(struct nfs4_owner *o, uint32_t seqid, struct nfs4_seq *q);
void state_hold(struct nfs4_state *t, struct nfs4_owner *o, struct nfs4_seq *q,
		uint32_t seqid, bool minor0);
bool state_busy(const struct nfs4_owner *o, bool minor0);
void state_seq_reset(struct nfs4_seq *q);
/* If @holder's client lost its lease, drop its state. Return values:
 * true when it did (anything of that client may be gone). */
bool state_reap(struct nfs4_state *t, const struct nfs4_owner *holder);
/* Drop the state of every client that lost its lease. Return values:
 * true when there was any. */
bool state_reap_all(struct nfs4_state *t);
/* Drop the lock stateids on @open's file that came from @open (state_lock.c). */
void state_locks_of_open_drop(struct nfs4_state *t, struct stid *open);
/* READ or WRITE with delegation stateid @s (state_deleg.c): WRITE only
 * with a write delegation. */
enum nfsstat4 state_deleg_check_io(struct nfs4_state *t, const struct stid *s,
				   const struct stateid4 *sid, const struct nfs4_file_id *fid,
				   bool write, bool minor0);
/* A delegation stateid @s leaves the count of those held (state_deleg.c). */
void state_deleg_gone(struct nfs4_state *t, struct stid *s);
/* Free a lock stateid's ranges, and let their holder on the file
 * system go (state_lock.c). */
void state_ranges_free(struct nfs4_state *t, struct stid *s);

#endif
