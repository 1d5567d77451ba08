/* SPDX-License-Identifier: MIT */
/*
 * Raw NFSv4 COMPOUND calls for the wire-level tests, on top of
 * rpc_client.h. A COMPOUND is built from struct nfs_argop4 values with
 * the generated encoders (xdr/gen/nfs4.h, xdr/nfs4_compound.h) and sent
 * as AUTH_SYS with the caller's uid and gid (or AUTH_NONE: v4_flavor); the reply head and every
 * nfs_resop4 are decoded with the generated decoders, and the decode
 * must use the whole reply, so that a test checks the reply's XDR as
 * well as its statuses. Sharing the generated codec with the server is
 * deliberate here: the codec has its own unit tests, and these tests are
 * about what the operations answer.
 */
#ifndef NFSX_TEST_NFS4_RAW_H
#define NFSX_TEST_NFS4_RAW_H

#include <stdbool.h>
#include <stdint.h>

#include "rpc_client.h"
#include "xdr/gen/nfs4.h"

struct v4_fh {
	uint32_t len;
	uint8_t d[NFS4_FHSIZE];
};

/* A COMPOUND's reply, decoded. ops (and every view in them) live until
 * v4_res_free(). */
struct v4_res {
	int rc;                 /* rpc_call_simple's result */
	struct rpc_reply r;
	struct rpc_buf store;
	bool xdr_ok;            /* head and all results decoded, nothing left */
	uint32_t status;
	struct xdr_bytes tag;
	uint32_t nops;
	struct nfs_resop4 *ops;
	struct xdr_arena arena;
};

/* Reply timeout, milliseconds (default 10000). */
extern int v4_timeout_ms;
/* The credential of the calls: AUTH_SYS (the default, with the uid and
 * gid given), or AUTH_NONE (for the tests of sec=). */
extern uint32_t v4_flavor;

void v4_res_init(struct v4_res *s);
void v4_res_free(struct v4_res *s);

/*
 * v4_compound - send COMPOUND(@tag, @minor, @ops) as AUTH_SYS @uid/@gid
 * and decode its reply into @out (freed and refilled).
 * Return values: true when an accepted, SUCCESS reply came back and
 * decoded as a whole (out->xdr_ok); else false, with out->rc and out->r
 * telling what came back.
 */
bool v4_compound(int fd, uint32_t uid, uint32_t gid, const void *tag,
		 uint32_t taglen, uint32_t minor, const struct nfs_argop4 *ops,
		 uint32_t nops, struct v4_res *out);

/* Shorthand: uid 0, gid 0, tag "t", minor version 0. */
bool v4_call(int fd, const struct nfs_argop4 *ops, uint32_t nops,
	     struct v4_res *out);

/* v4_call with the xid @xid (a retransmission, as a client that lost
 * the reply sends it), not a fresh one. Return values: as v4_call(). */
bool v4_call_xid(int fd, uint32_t xid, const struct nfs_argop4 *ops, uint32_t nops,
		 struct v4_res *out);

/*
 * v4_twice - COMPOUND @ops (minor version 0, AUTH_SYS uid 0) twice on
 * @fd, the replies into @s1 and @s2: with one xid when @same_xid (a
 * retransmission: the duplicate request cache answers the second), else
 * with a fresh xid each (a client's replay: an owner's seqid replay
 * cache answers it).
 * Return values: true when both replies decoded and the second's body
 * (the results after accept_stat) is the first's, byte for byte; a reply
 * that did not decode is reported with v4_diag().
 */
bool v4_twice(int fd, bool same_xid, const struct nfs_argop4 *ops, uint32_t nops,
	      struct v4_res *s1, struct v4_res *s2);

/*
 * v4_compound_raw - send @args as the COMPOUND's arguments, verbatim
 * (for malformed requests), as uid 0; the reply is decoded like
 * v4_compound's when it is accepted.
 * Return values: as v4_compound().
 */
bool v4_compound_raw(int fd, const struct rpc_buf *args, struct v4_res *out);

/*
 * v4_encode - the arguments of a COMPOUND into @out (appended).
 * Return values: true, or false when an operation does not encode.
 */
bool v4_encode(struct rpc_buf *out, const void *tag, uint32_t taglen,
	       uint32_t minor, const struct nfs_argop4 *ops, uint32_t nops);

/* TAP diagnostic of what came back. */
void v4_diag(const struct v4_res *s);

/*
 * v4_call_record - the whole record (marker included) of COMPOUND @ops
 * (tag @tag, minor version @minor) as AUTH_SYS @uid/@uid with xid @xid,
 * appended to @rec: for a test that sends it its own way (in parts, or
 * twice). Return values: false when an operation does not encode.
 */
bool v4_call_record(struct rpc_buf *rec, uint32_t xid, const char *tag, uint32_t minor,
		    uint32_t uid, const struct nfs_argop4 *ops, uint32_t nops);

/*
 * v4_call_cb - COMPOUND @ops (tag @tag, minor version @minor, AUTH_SYS
 * @uid) on @fd, a connection that also carries nfsxd's callbacks (a 4.1
 * session's back channel): each CALL record that comes before the reply
 * is handed to @on_call with @arg (NULL: dropped). The reply is decoded
 * into @out as v4_compound() decodes it.
 * Return values: as v4_compound(); what came back is told with v4_diag()
 * when it is not a decodable reply.
 */
bool v4_call_cb(int fd, const char *tag, uint32_t minor, uint32_t uid,
		const struct nfs_argop4 *ops, uint32_t nops, struct v4_res *out,
		void (*on_call)(void *arg, const struct rpc_buf *rec), void *arg);

/*
 * v4_res_take - decode @rec, a whole COMPOUND reply record the caller
 * read itself (a test that reads the server's callbacks and its replies
 * on one connection), into @out (freed and refilled, @rec copied).
 * Return values: as v4_compound().
 */
bool v4_res_take(struct v4_res *out, const struct rpc_buf *rec);

/* The status of result @i, or -1 when there is no such result. */
long v4_op_status(const struct v4_res *s, uint32_t i);

/* ---- operations ------------------------------------------------------ */

void v4op_simple(struct nfs_argop4 *a, enum nfs_opnum4 op);
void v4op_putfh(struct nfs_argop4 *a, const struct v4_fh *fh);
void v4op_lookup(struct nfs_argop4 *a, const char *name);
void v4op_lookup_bytes(struct nfs_argop4 *a, const void *name, uint32_t len);
void v4op_access(struct nfs_argop4 *a, uint32_t access);
/* GETATTR of the bits in @words[0..nw-1] (the words are not copied). */
void v4op_getattr(struct nfs_argop4 *a, uint32_t *words, uint32_t nw);
void v4op_readdir(struct nfs_argop4 *a, uint64_t cookie, uint32_t maxcount,
		  uint32_t *words, uint32_t nw);
/* VERIFY or NVERIFY of the attributes @vals (encoded) under @words. */
void v4op_verify(struct nfs_argop4 *a, enum nfs_opnum4 op, uint32_t *words,
		 uint32_t nw, const void *vals, uint32_t vlen);

/*
 * An fattr4 to send (CREATE's createattrs, SETATTR's attributes): the
 * values are added in ascending attribute order, as the list carries them
 * (an attribute added out of order sets bad, and v4_fattr() then yields
 * an empty mask so that the test fails visibly).
 */
struct v4_fattr {
	uint32_t w[3];
	uint8_t v[1024];
	uint32_t len;
	int last;
	bool bad;
};

void v4f_init(struct v4_fattr *f);
void v4f_u32(struct v4_fattr *f, unsigned int attr, uint32_t val);
void v4f_u64(struct v4_fattr *f, unsigned int attr, uint64_t val);
void v4f_str(struct v4_fattr *f, unsigned int attr, const char *s);
/* A settime4: SET_TO_SERVER_TIME4, or SET_TO_CLIENT_TIME4 @sec.@nsec. */
void v4f_time(struct v4_fattr *f, unsigned int attr, bool server, int64_t sec,
	      uint32_t nsec);
/* @f as an fattr4 (a view of @f, which must outlive it). */
void v4_fattr(const struct v4_fattr *f, struct fattr4 *out);

/* CREATE of @type @name; @link is NF4LNK's target, @maj/@min a device's. */
void v4op_create(struct nfs_argop4 *a, enum nfs_ftype4 type, const char *name,
		 const char *link, uint32_t maj, uint32_t min, const struct v4_fattr *f);
void v4op_remove(struct nfs_argop4 *a, const char *name);
void v4op_rename(struct nfs_argop4 *a, const char *from, const char *to);
void v4op_link(struct nfs_argop4 *a, const char *name);
/* SETATTR of @f with the stateid @seqid/@other (NULL: all zeros). */
void v4op_setattr(struct nfs_argop4 *a, uint32_t seqid, const uint8_t *other,
		  const struct v4_fattr *f);

/* A bitmap4 of the attributes listed (ends with -1) into @w[3]. */
uint32_t v4_bits(uint32_t w[3], ...);

/*
 * v4_walk - PUTROOTFH, LOOKUP of each component of @path ("/a/b" or
 * "a/b"; "" or "/" is the root), GETFH.
 * Return values: the COMPOUND's nfsstat4, or -1 on no or odd reply;
 * @fh is filled on NFS4_OK.
 */
long v4_walk(int fd, const char *path, struct v4_fh *fh);

/* ---- attributes ------------------------------------------------------ */

struct v4_attrs {
	uint32_t mask[3];       /* what the reply holds */
	uint32_t supp[3];
	uint32_t type;
	uint64_t change, size, fileid, mounted_on_fileid;
	struct fsid4 fsid;
	uint32_t mode, numlinks, rdattr_error;
	char owner[64], owner_group[64];
	struct nfstime4 mtime;
	struct v4_fh fh;
};

/*
 * v4_attrs_decode - the values of @f (a GETATTR's or an entry's fattr4)
 * with the generated xdr_dec_fattr4_* of each attribute, in bit order.
 * Return values: true when every value decoded and nothing was left;
 * false on a malformed list or an attribute this client cannot decode.
 */
bool v4_attrs_decode(const struct fattr4 *f, struct v4_attrs *a);

static inline bool v4_has(const uint32_t w[3], unsigned int n)
{
	return n < 96 && (w[n / 32] >> (n % 32) & 1);
}

/* ---- results ---------------------------------------------------------- */

/*
 * v4_fh_of_res - the handle GETFH returned as result @i of @s.
 * Return values: true with @fh filled; false when result @i is not a
 * GETFH that succeeded.
 */
bool v4_fh_of_res(const struct v4_res *s, uint32_t i, struct v4_fh *fh);

/*
 * v4_attrs_of_res - the attributes GETATTR returned as result @i of @s,
 * decoded by v4_attrs_decode().
 * Return values: true with @a filled; false when result @i is not a
 * GETATTR that succeeded or its attributes do not decode.
 */
bool v4_attrs_of_res(const struct v4_res *s, uint32_t i, struct v4_attrs *a);

/*
 * v4_readdir_find - one READDIR (maxcount 32768) of the small directory
 * @dir from its start, as root, asking for the attributes @words[0..nw-1],
 * into @s; *@e the entry named @name. The listing must end in this one
 * reply (eof).
 * Return values: 1 with *@e set (a view into @s, until v4_res_free());
 * 0 when @name is not listed; -1 on an error or an odd reply (with a
 * diagnostic).
 */
int v4_readdir_find(int fd, const struct v4_fh *dir, uint32_t *words, uint32_t nw,
		    const char *name, struct v4_res *s, const struct entry4 **e);

/*
 * v4_attrs_u64s - the values of @f when every attribute it holds is a
 * uint64 (files_*, space_*, fileid, size, ...): @n of them, in attribute
 * order, into @vals. The mask is the caller's to check.
 * Return values: true when @f holds exactly @n values of 8 bytes.
 */
bool v4_attrs_u64s(const struct fattr4 *f, uint64_t *vals, uint32_t n);

/* ---- client records and open state (minor version 0) ------------------ */

/* SETCLIENTID of @id with verifier @verf (8 bytes; the callback is a
 * loopback address no server calls: nfsxd offers no delegations). */
void v4op_setclientid(struct nfs_argop4 *a, const char *id, const uint8_t *verf);
void v4op_setclientid_confirm(struct nfs_argop4 *a, clientid4 cid, const uint8_t *confirm);

/*
 * v4_client - SETCLIENTID of @id as @uid, then its SETCLIENTID_CONFIRM
 * when @confirm: the clientid into @cid.
 * Return values: the status of the last COMPOUND, or -1 on no or odd reply.
 */
long v4_client(int fd, uint32_t uid, const char *id, bool confirm, clientid4 *cid);

/* OPEN4_NOCREATE, CLAIM_NULL of @name by the owner (@cid, @owner), with
 * @seqid, @access and @deny (OPEN4_SHARE_*); the strings must outlive @a. */
void v4op_open(struct nfs_argop4 *a, uint32_t seqid, uint32_t access, uint32_t deny,
	       clientid4 cid, const char *owner, const char *name);
/* ... made an OPEN4_CREATE of @mode: @f its createattrs (UNCHECKED4,
 * GUARDED4; NULL: none), @verf its 8-byte verifier (EXCLUSIVE4); both
 * must outlive @a. */
void v4op_open_create(struct nfs_argop4 *a, enum createmode4 mode, const struct v4_fattr *f,
		      const uint8_t *verf);
void v4op_open_confirm(struct nfs_argop4 *a, const struct stateid4 *sid, uint32_t seqid);
void v4op_open_downgrade(struct nfs_argop4 *a, const struct stateid4 *sid, uint32_t seqid,
			 uint32_t access, uint32_t deny);
void v4op_close(struct nfs_argop4 *a, uint32_t seqid, const struct stateid4 *sid);
/* READ and WRITE with @sid (NULL: the anonymous stateid, all zeros);
 * WRITE's @data (not copied) must outlive @a. */
void v4op_read(struct nfs_argop4 *a, const struct stateid4 *sid, uint64_t off, uint32_t count);
/* NFSv4.2's READ_PLUS, likewise */
void v4op_read_plus(struct nfs_argop4 *a, const struct stateid4 *sid, uint64_t off,
		    uint32_t count);
void v4op_write(struct nfs_argop4 *a, const struct stateid4 *sid, uint64_t off,
		enum stable_how4 stable, const void *data, uint32_t len);
void v4op_commit(struct nfs_argop4 *a, uint64_t off, uint32_t count);

/* ---- locks, leases and reclaims (minor version 0) --------------------- */

/* SETCLIENTID of @id with verifier @verf, then its CONFIRM when
 * @confirm (v4_client with a verifier of the caller's: a client that
 * rebooted sends a new one). Return values: as v4_client(). */
long v4_client_verf(int fd, uint32_t uid, const char *id, const uint8_t *verf, bool confirm,
		    clientid4 *cid);
/* LOCK by a new lock-owner (@cid, @owner; the string must outlive @a)
 * from the open stateid @open_sid with the open-owner's @open_seqid,
 * @lock_seqid the new owner's first seqid. */
void v4op_lock_new(struct nfs_argop4 *a, enum nfs_lock_type4 type, bool reclaim,
		   uint64_t off, uint64_t len, uint32_t open_seqid,
		   const struct stateid4 *open_sid, uint32_t lock_seqid, clientid4 cid,
		   const char *owner);
/* LOCK by the lock-owner of the lock stateid @sid, with @lock_seqid. */
void v4op_lock(struct nfs_argop4 *a, enum nfs_lock_type4 type, bool reclaim, uint64_t off,
	       uint64_t len, const struct stateid4 *sid, uint32_t lock_seqid);
void v4op_lockt(struct nfs_argop4 *a, enum nfs_lock_type4 type, uint64_t off, uint64_t len,
		clientid4 cid, const char *owner);
void v4op_locku(struct nfs_argop4 *a, enum nfs_lock_type4 type, uint32_t seqid,
		const struct stateid4 *sid, uint64_t off, uint64_t len);
void v4op_release_lockowner(struct nfs_argop4 *a, clientid4 cid, const char *owner);
void v4op_renew(struct nfs_argop4 *a, clientid4 cid);
/* OPEN CLAIM_PREVIOUS (delegate_type NONE) of the current file by the
 * owner (@cid, @owner): a reclaim after a server restart. */
void v4op_open_previous(struct nfs_argop4 *a, uint32_t seqid, uint32_t access, uint32_t deny,
			clientid4 cid, const char *owner);

#endif

/* ---- NFSv4.1 sessions ------------------------------------------------- */

/* COMPOUND of minor version 1, tag "t", uid 0. */
bool v4_call41(int fd, const struct nfs_argop4 *ops, uint32_t nops, struct v4_res *out);

/* EXCHANGE_ID of owner @owner with a verifier of 8 bytes @verf, SP4_NONE. */
void v4op_exchange_id(struct nfs_argop4 *a, const char *owner, uint8_t verf, uint32_t flags);
/*
 * CREATE_SESSION of @cid with @seq and @flags; the fore channel asks for
 * @maxreq, @maxresp, @maxcached bytes and @slots slots (16 operations),
 * the back channel for 4 KiB and 2 slots.
 */
void v4op_create_session(struct nfs_argop4 *a, clientid4 cid, sequenceid4 seq, uint32_t flags,
			 uint32_t maxreq, uint32_t maxresp, uint32_t maxcached, uint32_t slots);
void v4op_sequence(struct nfs_argop4 *a, const sessionid4 *sid, sequenceid4 seq,
		   uint32_t slot, bool cachethis);
void v4op_destroy_session(struct nfs_argop4 *a, const sessionid4 *sid);
void v4op_destroy_clientid(struct nfs_argop4 *a, clientid4 cid);
void v4op_bind_conn(struct nfs_argop4 *a, const sessionid4 *sid,
		    enum channel_dir_from_client4 dir);
void v4op_reclaim_complete(struct nfs_argop4 *a, bool one_fs);
void v4op_secinfo_no_name(struct nfs_argop4 *a, enum secinfo_style4 style);

/* A client's session as v4_session_open() made it. */
struct v4_session {
	clientid4 clientid;
	sequenceid4 cs_seq;             /* the next CREATE_SESSION's */
	sessionid4 sid;
	struct channel_attrs4 fore;     /* as granted (no rdma_ird) */
	sequenceid4 slot_seq[64];       /* the last seqid used on each slot */
};

/*
 * v4_session_open - EXCHANGE_ID of @owner (verifier @verf) unless
 * s->clientid is set already, then CREATE_SESSION with the fore
 * channel sizes given (see v4op_create_session).
 * Return values: the status of the first operation that failed, or
 * NFS4_OK; -1 on no or odd reply.
 */
long v4_session_open(int fd, const char *owner, uint8_t verf, uint32_t maxreq,
		     uint32_t maxresp, uint32_t maxcached, uint32_t slots,
		     struct v4_session *s);

/* SEQUENCE on slot @slot of @s with its next seqid (counted as used). */
void v4op_seq_next(struct nfs_argop4 *a, struct v4_session *s, uint32_t slot, bool cachethis);
