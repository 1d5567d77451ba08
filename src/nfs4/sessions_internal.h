/* SPDX-License-Identifier: MIT */
/*
 * The NFSv4.1 session table's insides, shared by sessions.c (the table,
 * CREATE_SESSION, DESTROY_*, the back channel) and sessions_seq.c (the
 * fore channel's slots: SEQUENCE and the end of each COMPOUND). Every
 * field is under the table's lock, except a busy slot's reply, which
 * only the thread holding the slot touches.
 */
#ifndef NFSX_NFS4_SESSIONS_INTERNAL_H
#define NFSX_NFS4_SESSIONS_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "nfs4/sessions.h"

#define BUCKETS 1024u

struct slot {
	sequenceid4 seqid;
	bool used;                  /* a request ran on it: seqid is its */
	bool busy;
	bool cached;                /* reply holds that request's reply */
	uint32_t len;
	uint8_t *reply;             /* room of the session's cached max, once used */
};

struct nfs4_session {
	struct nfs4_session *hnext;         /* chain of the id's hash */
	struct nfs4_session *older, *newer; /* order of last use */
	sessionid4 id;
	clientid4 clientid;
	uint32_t refs;              /* the table's while linked, and each busy slot's */
	bool linked;
	uint64_t used;
	/* the last renewal of the client's lease by a SEQUENCE on it, and
	 * nfs4_clients_drops() then: a renewal in the same second of a
	 * client no record has gone from since would change nothing */
	uint64_t renewed, drops;
	uint32_t flags;
	uint32_t cb_program;
	uint32_t cb_minor;                  /* its CREATE_SESSION's minor version */
	uint64_t back_conn;         /* 0: no back channel */
	uint64_t back_seq;          /* when it was bound: the latest one wins */
	void *back_ref;             /* its handle (nfs4_sessions_set_back_ref), or NULL */
	void (*back_put)(void *ref);
	bool back_down;             /* a callback on it failed: until the next bind */
	uint32_t cb_flavor, cb_uid, cb_gid;   /* cb_sec_parms, as nfs4_cb_slot gives them */
	uint32_t back_seqid[NFS4_BACK_SLOTS];
	bool back_busy[NFS4_BACK_SLOTS];
	struct channel_attrs4 fore, back;
	uint32_t nslots;
	struct slot slots[];
};

struct nfs4_sessions {
	pthread_mutex_t lock;
	struct nfs4_clients *clients;
	uint32_t max, count;
	uint32_t counter;           /* part of the next session id */
	/* SEQUENCEs that were retransmissions, answered from the slot's
	 * cached reply or with RETRY_UNCACHED_REP (nfs4_sessions_get_counts) */
	uint64_t replays, uncached;
	uint64_t back_seq;
	struct nfs4_session *oldest, *newest;
	struct nfs4_session *by_id[BUCKETS];
};

/* The helpers both files use; all with the table's lock held. */
void ss_lru_unlink(struct nfs4_sessions *t, struct nfs4_session *s);
void ss_lru_append(struct nfs4_sessions *t, struct nfs4_session *s);
/* Drop a reference: the last frees the session. */
void ss_put(struct nfs4_session *s);
/* Take @s out of the table; it is freed once no slot of it is busy. */
void ss_unlink(struct nfs4_sessions *t, struct nfs4_session *s);
struct nfs4_session *ss_find(struct nfs4_sessions *t, const sessionid4 *id);
/* A live session @id, or NULL; a session whose client is gone is freed. */
struct nfs4_session *ss_find_live(struct nfs4_sessions *t, const sessionid4 *id, uint64_t now);
/* Has client @cid a session whose back channel works? */
bool ss_cb_up(struct nfs4_sessions *t, clientid4 cid);

#endif
