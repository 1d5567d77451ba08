/* SPDX-License-Identifier: MIT */
/*
 * NFSv4.0 open state on the wire for the tests (nfs4-open, nfs4-lock,
 * nfs4-restart): open-owners whose next seqid the test keeps itself,
 * by RFC 7530 9.1.7, so that a server counting differently fails a
 * later call visibly; OPEN, OPEN_CONFIRM, CLOSE and one-operation
 * calls on a filehandle. Built on nfs4_raw.h; nothing here comes from
 * the server's code, so the two count seqids independently.
 */
#ifndef NFSX_TEST_NFS4_STATE_RAW_H
#define NFSX_TEST_NFS4_STATE_RAW_H

#include <string.h>

#include "nfs4_raw.h"

/*
 * v4_path - @base "/" @rel, in one of 8 rotating static buffers (so a
 * few may be used in one expression).
 * Return values: the path.
 */
char *v4_path(const char *base, const char *rel);

/*
 * v4_seqid_counted - does a seqid-bearing operation that ended with
 * @st (-1: no reply) count its owner's seqid? RFC 7530 9.1.7 lists the
 * statuses after which it does not.
 * Return values: true when the owner's next seqid is one more.
 */
bool v4_seqid_counted(long st);

/* An open-owner (or a lock-owner used like one). */
struct v4_owner {
	clientid4 cid;
	const char *name;
	uint32_t seqid;         /* the next one to send */
};

/* An OPEN's answer. */
struct v4_opened {
	long st;                /* OPEN's status, -1 on no or odd reply */
	struct stateid4 sid;    /* the open stateid, confirmed when asked */
	uint32_t rflags;
	uint32_t attrset[3];
	struct v4_fh fh;        /* GETFH after it */
};

static inline bool v4_same_other(const struct stateid4 *a, const struct stateid4 *b)
{
	return memcmp(a->other, b->other, sizeof(a->other)) == 0;
}

/*
 * v4_call_flavor - COMPOUND @ops (minor version 0) with credential
 * @flavor: AUTH_SYS @uid/@uid, or AUTH_NONE (@uid unused).
 * Return values: the COMPOUND's status; -1 when no decodable reply came
 * (reported with v4_diag()).
 */
long v4_call_flavor(int fd, uint32_t flavor, uint32_t uid, const struct nfs_argop4 *ops,
		    uint32_t n, struct v4_res *s);

/* v4_call_as - v4_call_flavor() as AUTH_SYS @uid/@uid. */
long v4_call_as(int fd, uint32_t uid, const struct nfs_argop4 *ops, uint32_t n,
		struct v4_res *s);

/* v4_walk_flavor - v4_walk() with credential @flavor (AUTH_SYS: uid 0).
 * Return values: as v4_walk(). */
long v4_walk_flavor(int fd, uint32_t flavor, const char *path, struct v4_fh *fh);

/*
 * v4_on_fh - PUTFH @fh, @op as AUTH_SYS @uid on @fd; the reply in @s
 * (initialised by the caller, freed by it).
 * Return values: @op's status; the COMPOUND's when it stopped before
 * @op; -1 when no decodable reply came (reported with v4_diag()).
 */
long v4_on_fh(int fd, uint32_t uid, const struct v4_fh *fh, const struct nfs_argop4 *op,
	      struct v4_res *s);

/*
 * v4_open_in - PUTFH @dir, @op (an OPEN by @o), GETFH as @uid; the
 * answer in @r and @o's seqid counted.
 * Return values: OPEN's status, -1 on no or odd reply.
 */
long v4_open_in(int fd, struct v4_owner *o, uint32_t uid, const struct v4_fh *dir,
		const struct nfs_argop4 *op, struct v4_opened *r);

/*
 * v4_seq_op - PUTFH @fh, @op (seqid-bearing, of @o) as uid 0; @o's
 * seqid counted; the stateid an OPEN_CONFIRM, OPEN_DOWNGRADE or CLOSE
 * returns into @out (may be NULL) when OK.
 * Return values: @op's status, -1 on no or odd reply.
 */
long v4_seq_op(int fd, struct v4_owner *o, const struct v4_fh *fh, const struct nfs_argop4 *op,
	       struct stateid4 *out);

/*
 * v4_confirm - OPEN_CONFIRM of @r's open by @o; r->sid updated.
 * Return values: as v4_seq_op().
 */
long v4_confirm(int fd, struct v4_owner *o, struct v4_opened *r);

/*
 * v4_open_conf - v4_open_in(), then OPEN_CONFIRM when the server asks.
 * Return values: the status of the first of them that failed.
 */
long v4_open_conf(int fd, struct v4_owner *o, uint32_t uid, const struct v4_fh *dir,
		  const struct nfs_argop4 *op, struct v4_opened *r);

/*
 * v4_close - CLOSE of @r's open by @o.
 * Return values: as v4_seq_op().
 */
long v4_close(int fd, struct v4_owner *o, const struct v4_opened *r);

/*
 * v4_read_str - READ of @count bytes at @off of @fh with @sid (NULL:
 * the anonymous stateid) as uid 0, into @buf (@cap > 0 bytes, always
 * NUL-terminated, the data cut to fit).
 * Return values: as v4_on_fh().
 */
long v4_read_str(int fd, const struct v4_fh *fh, const struct stateid4 *sid, uint64_t off,
		 uint32_t count, char *buf, size_t cap);

/*
 * v4_renew - RENEW of @cid, as uid 0.
 * Return values: its status, -1 on no or odd reply.
 */
long v4_renew(int fd, clientid4 cid);

/*
 * v4_open_name - PUTFH @dir, OPEN (no create, CLAIM_NULL) of @name by
 * @o with @access and @deny, GETFH, as uid 0; then OPEN_CONFIRM when the
 * server asks.
 * Return values: as v4_open_conf().
 */
long v4_open_name(int fd, struct v4_owner *o, const struct v4_fh *dir, const char *name,
		  uint32_t access, uint32_t deny, struct v4_opened *r);

/* ---- byte-range locks (as uid 0) --------------------------------------- */

/* A lock-owner and its lock stateid on one file. */
struct v4_lowner {
	clientid4 cid;
	const char *name;
	uint32_t seqid;         /* the next one to send */
	bool have;              /* sid is its lock stateid */
	struct stateid4 sid;
};

/* What a LOCK, LOCKT or LOCKU answered. */
struct v4_lk {
	long st;
	struct stateid4 sid;            /* LOCK, LOCKU: OK */
	struct LOCK4denied den;         /* DENIED; its owner in downer */
	uint8_t downer[NFS4_OPAQUE_LIMIT];
};

/*
 * v4_lock_call - PUTFH @fh, @op (LOCK, LOCKT or LOCKU): its answer in @r;
 * the reply stays in @s (initialised and freed by the caller).
 * Return values: @op's status; -1 on no or odd reply.
 */
long v4_lock_call(int fd, const struct v4_fh *fh, const struct nfs_argop4 *op,
		  struct v4_lk *r, struct v4_res *s);

/*
 * v4_lowner_call - LOCK or LOCKU @a by the lock-owner @lo on @fh: its
 * seqid counted, its lock stateid the new one when OK.
 * Return values: as v4_lock_call().
 */
long v4_lowner_call(int fd, struct v4_lowner *lo, const struct v4_fh *fh,
		    const struct nfs_argop4 *a, struct v4_lk *r);

/*
 * v4_lock_new - LOCK by the new lock-owner @lo from @o's open @op: the
 * seqids counted (the open-owner's, and the lock-owner's from the
 * lock_seqid given).
 * Return values: as v4_lock_call().
 */
long v4_lock_new(int fd, struct v4_owner *o, const struct v4_opened *op, struct v4_lowner *lo,
		 enum nfs_lock_type4 type, uint64_t off, uint64_t len, struct v4_lk *r);

/* v4_lock_ex - LOCK by @lo, which holds a lock stateid on @fh.
 * Return values: as v4_lock_call(). */
long v4_lock_ex(int fd, struct v4_lowner *lo, const struct v4_fh *fh, enum nfs_lock_type4 type,
		uint64_t off, uint64_t len, struct v4_lk *r);

/* v4_unlock - LOCKU by @lo of [@off, @off + @len) on @fh; @r may be NULL.
 * Return values: as v4_lock_call(). */
long v4_unlock(int fd, struct v4_lowner *lo, const struct v4_fh *fh, enum nfs_lock_type4 type,
	       uint64_t off, uint64_t len, struct v4_lk *r);

/* v4_lockt - LOCKT on @fh by the owner @cid/@owner.
 * Return values: as v4_lock_call(). */
long v4_lockt(int fd, const struct v4_fh *fh, clientid4 cid, const char *owner,
	      enum nfs_lock_type4 type, uint64_t off, uint64_t len, struct v4_lk *r);

/* v4_release - RELEASE_LOCKOWNER of @cid/@owner.
 * Return values: its status, -1 on no or odd reply. */
long v4_release(int fd, clientid4 cid, const char *owner);

#endif
