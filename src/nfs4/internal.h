/* SPDX-License-Identifier: MIT */
/*
 * What the NFSv4 operations share: the state of one COMPOUND (current
 * and saved filehandles, minor version), the operation handler type,
 * errno to nfsstat4. See nfs4.h.
 */
#ifndef NFSX_NFS4_INTERNAL_H
#define NFSX_NFS4_INTERNAL_H

#include <stdbool.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "export/export.h"
#include "nfs4/clients.h"
#include "nfs4/sessions.h"
#include "nfs4/state.h"
#include "rpc/req.h"
#include "vfs/fh.h"
#include "vfs/lease.h"
#include "xdr/gen/nfs4.h"

/*
 * A filehandle of the COMPOUND: none, a pseudo directory (a node of the
 * snapshot's pseudo file system), or an object of an export (resolved
 * and held: export_release).
 */
enum nfs4_fh_kind { NFS4_FH_NONE, NFS4_FH_PSEUDO, NFS4_FH_OBJ };

struct nfs4_fh {
	enum nfs4_fh_kind kind;
	uint32_t node;             /* NFS4_FH_PSEUDO */
	struct export_obj o;       /* NFS4_FH_OBJ */
	/* Minor version 1's current stateid (RFC 8881 16.2.3.1.2): set by
	 * the operations that return one, gone with the filehandle, saved
	 * and restored with it. */
	bool have_sid;
	struct stateid4 sid;
};

/* An operation nfs4_inline_plan decoded, and where its arguments ended: the
 * COMPOUND then runs it without decoding it again (compound.c). */
struct nfs4_planned {
	struct nfs_argop4 a;
	const uint8_t *end;
};

struct nfs4_compound {
	struct rpc_req *req;
	const struct export_snap *snap;  /* held for the whole COMPOUND */
	uint32_t minorversion;
	struct nfs4_fh cur, saved;
	struct nfsx_fh fhbuf;            /* GETFH's handle, until encoded */
	/* The operation encoded its result itself (GETATTR's attributes
	 * go straight into the reply). */
	bool encoded;
	uint32_t attrset[3];             /* SETATTR's / CREATE's attrsset, until encoded */
	uint32_t nops;                   /* the COMPOUND's count of operations */
	uint32_t op_index;               /* the running one's, from 0 */
	/* Minor version 1: set by SEQUENCE, the session's client, whose
	 * state the stateful operations use (4.0 names its clientid in
	 * its operations instead). */
	clientid4 clientid;
	bool sequenced;
	struct nfs4_slot_use slot;       /* SEQUENCE's busy slot (session_ops.c) */
	/* Minor version 0: the client the last stateid or open-owner of
	 * the COMPOUND named (knfsd's cstate->clp), so that a later
	 * operation that names none (SETATTR, REMOVE) is known as that
	 * client's and does not recall its own delegation. */
	clientid4 named;
	/* On an event loop (compound_plan.c): the filehandles of the PUTFHs,
	 * resolved before anything ran, by operation index (NULL on a
	 * worker); set by SEQUENCE when it would have to wait. */
	struct nfs4_fh *pre;
	/* On an event loop: the operations as nfs4_inline_plan decoded them. */
	struct nfs4_planned *planned;
	bool would_block;
	/* On an event loop: the data bytes READ_PLUSes may still send
	 * (nfs4_inline_plan's budget less READs and WRITEs; nfs4_read_plus). */
	uint32_t loop_rp_left;
	/* The running operation's changes in flight (vfs/lease.h), marked
	 * before it asks for recalls, ended when it returns. */
	struct vfs_change changes;
	/* Bytes of the call's record still in the socket (a bulk WRITE,
	 * write_bulk.c), which SEQUENCE counts with req->rec_len. */
	size_t rec_rest;
	/* An operation changed a file's data or size (nfs4_check_change):
	 * a stat taken by an earlier PUTFH may be stale (READ_PLUS then
	 * takes its own). */
	bool changed_data;
	/* Last, so that a COMPOUND zeroes all but their buffers
	 * (nfs4_compound_init): */
	/* A seqid-bearing operation's owner (minor version 0), let go
	 * with its encoded result once that is encoded (state.h). */
	struct nfs4_seq seq;
	char linkbuf[4096];              /* READLINK's target, until encoded */
};

/*
 * @c for a COMPOUND of @req: zeroed but for the buffers at its end
 * (seq's reply and handle, READLINK's target), which are read only as
 * far as lengths set with them say: 5.4 KiB of the 6.2 KiB, which every
 * COMPOUND would otherwise write before its first operation.
 */
static inline void nfs4_compound_init(struct nfs4_compound *c, struct rpc_req *req)
{
	_Static_assert(offsetof(struct nfs4_compound, linkbuf) ==
		       offsetof(struct nfs4_compound, seq) + sizeof(struct nfs4_seq) &&
		       sizeof(struct nfs4_compound) ==
		       offsetof(struct nfs4_compound, linkbuf) + sizeof(c->linkbuf),
		       "seq and linkbuf end struct nfs4_compound");
	_Static_assert(offsetof(struct nfs4_seq, fh) > offsetof(struct nfs4_seq, reply) &&
		       offsetof(struct nfs4_seq, fh_len) < offsetof(struct nfs4_seq, reply) &&
		       offsetof(struct nfs4_seq, reply_len) < offsetof(struct nfs4_seq, reply),
		       "struct nfs4_seq's buffers come last");
	memset(c, 0, offsetof(struct nfs4_compound, seq) + offsetof(struct nfs4_seq, reply));
	c->req = req;
}

/* How many COMPOUNDs ran on event loops and on workers, to the log at
 * debug level (nfs4_fini). */
void nfs4_compound_log_counts(void);

/* compound.c, for write_bulk.c: */
/* Encode @r; a result that cannot fit even after growing the reply
 * becomes @toobig. Return values: false when not even that fits. */
bool nfs4_put_result(struct rpc_req *req, struct nfs_resop4 *r, enum nfsstat4 toobig);
/* Hand the reply of a sequenced COMPOUND (from @head_at on) to its
 * slot; @ok false: there is none. */
void nfs4_seq_done(struct nfs4_compound *c, size_t head_at, bool ok);

/* compound_plan.c, for compound.c and write_bulk.c: */
/* PUTFH's handle @fh, resolved into @f as it would be, from memory only:
 * a pseudo directory, or a cached object (of a memory-backed export when
 * @mem_only). Return values: false when that is not so (or the handle is
 * bad: a worker answers the error). */
bool nfs4_pre_putfh(struct nfs4_compound *c, const nfs_fh4 *fh, struct nfs4_fh *f, bool mem_only);
struct nfs4_args_head;
/* May the COMPOUND whose head is @h run on this event loop? (See the
 * function.) Return values: true, its operations decoded into
 * c->planned and its handles resolved into c->pre; false with nothing
 * held. */
bool nfs4_inline_plan(struct nfs4_compound *c, const struct nfs4_args_head *h);
/* Let go of the handles resolved for a COMPOUND on a loop (c->pre). */
void nfs4_pre_clear(struct nfs4_compound *c);

/* The highest minor version served (compound.c). */
#define NFS4_MINOR_MAX 2u

/* The most operations, and the most bytes its READs ask for, of a
 * COMPOUND that may run on an event loop (compound_plan.c). */
#define NFS4_INLINE_OPS 8u
#define NFS4_INLINE_IO_MAX (128u * 1024u)

/*
 * An operation: reads @a, fills @r's arm for its operation whole (the
 * caller zeroed @r and set r->resop), status included.
 * Return values: the status, which stops the COMPOUND unless NFS4_OK.
 */
typedef enum nfsstat4 nfs4_op_fn(struct nfs4_compound *c, const struct nfs_argop4 *a,
				 struct nfs_resop4 *r);

/* fh_ops.c */
nfs4_op_fn nfs4_putfh, nfs4_putrootfh, nfs4_putpubfh, nfs4_getfh, nfs4_savefh,
	nfs4_restorefh, nfs4_lookup, nfs4_lookupp, nfs4_secinfo;

/* attr_ops.c */
nfs4_op_fn nfs4_getattr, nfs4_verify, nfs4_nverify, nfs4_access, nfs4_readlink;
struct nfs4_attr_src;
struct vfs_statfs;
/* What every object's attributes share (lease, sizes, minor version). */
void nfs4_src_base(const struct nfs4_compound *c, struct nfs4_attr_src *s);
/* @s for object @o of an export, whose stat is @st. */
void nfs4_src_obj(const struct nfs4_compound *c, const struct export_obj *o,
		  const struct stat *st, struct nfs4_attr_src *s);
/* @s for pseudo directory @node (@st and @sf made up here). */
void nfs4_src_pseudo(const struct nfs4_compound *c, uint32_t node, struct stat *st,
		     struct vfs_statfs *sf, struct nfs4_attr_src *s);
void nfs4_pseudo_stat(const struct export_pseudo *p, uint32_t i, struct stat *st);

/* ns_ops.c */
nfs4_op_fn nfs4_create, nfs4_remove, nfs4_rename, nfs4_link, nfs4_setattr;

/* The delegations of other clients on file @o (a regular file at hand:
 * LINK's source, SETATTR's, an xattr's) recalled before it changes by
 * the client @named (4.0; 0: none named), after the change is marked
 * (vfs_change_mark into c->changes). Anything but a regular file has
 * none. Return values: nfs4_deleg_break's. */
enum nfsstat4 nfs4_break_obj(struct nfs4_compound *c, const struct export_obj *o,
			     clientid4 named);

/* A name as LOOKUP checks it (fh_ops.c): INVAL, NAMETOOLONG, BADNAME. */
enum nfsstat4 nfs4_check_name(const component4 *n);

/* client_ops.c */
struct nfs4_cb;
/* The server's callbacks (nfs4/callback.h), or NULL when not started. */
struct nfs4_cb *nfs4_callbacks(void);
/* Return values: whether confirmed client @clientid's callback path was
 * found up by its last probe or call (what a delegation needs). */
bool nfs4_cb_path_up(clientid4 clientid);
/* The lease, seconds (nfs4_init's). */
extern uint32_t nfs4_lease_time;
/* Return values: true during the grace period after a restart (recovery.h). */
bool nfs4_in_grace(void);
/* May @clientid reclaim state now? Return values: NFS4_OK; NO_GRACE
 * (no grace period); RECLAIM_BAD (not a client of the previous run, or
 * done reclaiming); STALE_CLIENTID. */
enum nfsstat4 nfs4_may_reclaim(clientid4 clientid);
/* 4.1 client @clientid sent RECLAIM_COMPLETE: the restart record learns it. */
void nfs4_client_reclaimed(clientid4 clientid);
/* Return values: has 4.1 client @clientid sent RECLAIM_COMPLETE? */
bool nfs4_client_reclaim_done(clientid4 clientid);
nfs4_op_fn nfs4_setclientid, nfs4_setclientid_confirm, nfs4_renew;
/* Renew the lease of confirmed client @clientid, as every stateful
 * operation of minor version 0 does. Return values: nfs4_clients_renew's,
 * but EXPIRED (its state dropped) for a client gone while it held state. */
enum nfsstat4 nfs4_client_renew(clientid4 clientid);

/* open_ops.c */
nfs4_op_fn nfs4_open, nfs4_open_confirm, nfs4_open_downgrade, nfs4_close, nfs4_delegreturn,
	nfs4_test_stateid, nfs4_free_stateid;
/* The server's open state (made by nfs4_init). */
extern struct nfs4_state *nfs4_states;
/* The file id of state on @o (its device and inode). */
void nfs4_file_id_of(const struct export_obj *o, struct nfs4_file_id *f);
/* Let go of the node an open file's state held (nfs4_state_set_unpin's
 * function, set by nfs4_init). */
void nfs4_unpin_file(void *node);
/*
 * nfs4_check_stateid - may the current file be read (@write false) or
 * written with @sid? Renews the lease of the stateid's client (minor
 * version 0). Return values: nfs4_state_check_io's.
 */
enum nfsstat4 nfs4_check_stateid(struct nfs4_compound *c, const struct stateid4 *sid, bool write);
/* A WRITE or a SETATTR of the size: nfs4_check_stateid for writing,
 * then the delegations of other clients on the current file recalled
 * (nfs4_deleg_break: DELAY meanwhile). */
enum nfsstat4 nfs4_check_change(struct nfs4_compound *c, const struct stateid4 *sid);
/* A READ: nfs4_check_stateid for reading, then the write delegations of
 * other clients on the current file recalled (nfs4_deleg_break_read). */
enum nfsstat4 nfs4_check_read(struct nfs4_compound *c, const struct stateid4 *sid);
/* Who changes a file, for nfs4_deleg_break: 4.1's session client, else
 * @named (the client a 4.0 operation names), else the client an earlier
 * operation of the 4.0 COMPOUND named (c->named; 0 when none). */
clientid4 nfs4_breaker(const struct nfs4_compound *c, clientid4 named);

/* A seqid-bearing operation's replay: the result kept in c->seq goes
 * out as it is (open_ops.c). Return values: its status. */
enum nfsstat4 nfs4_replay(struct nfs4_compound *c);

/* lock_ops.c */
nfs4_op_fn nfs4_lock, nfs4_lockt, nfs4_locku, nfs4_release_lockowner;
/* The state table's hooks on the backends' byte-range locks (state.h). */
extern const struct nfs4_fslocks nfs4_fslocks_vfs;

/* write_bulk.c: COMPOUND's bulk hooks (SEQUENCE, PUTFH, WRITE whose data
 * ends the record), and how many WRITEs took them, to the log at debug
 * level (nfs4_fini). */
rpc_bulk_begin_fn nfs4_write_bulk_begin;
rpc_bulk_end_fn nfs4_write_bulk_end;
void nfs4_write_bulk_log_counts(void);

/* Statistics of one operation inside a COMPOUND (compound.c): its
 * status, execute time and argument and result bytes. */
void nfs4_stats_op(int32_t op, uint32_t status, uint64_t ns, size_t in, size_t out);
/* Their rows, made by nfs4_init() before statistics start. */
void nfs4_stats_rows_add(void);

/* io_ops.c */
nfs4_op_fn nfs4_read, nfs4_write, nfs4_commit;
/* How many READs were sent from a file's mapping, to the log at debug
 * level (nfs4_fini). */
void nfs4_io_log_counts(void);
/* READ_PLUS's seeks made and answered from the hole map, at the debug level. */
void nfs4_rp_log_counts(void);
/* The current filehandle as a regular file (ISDIR, INVAL otherwise), its
 * id into @f (may be NULL): what READ, WRITE, COMMIT and the locks take. */
enum nfsstat4 nfs4_cur_file(const struct nfs4_compound *c, struct nfs4_file_id *f);
/*
 * nfs4_change_open - what every change of a file's data checks first
 * (WRITE, ALLOCATE, DEALLOCATE): the current filehandle a regular file,
 * @sid a stateid for writing (nfs4_check_change: the file marked
 * changing, other clients' delegations recalled), the export writable
 * (ROFS), then @range, the caller's verdict on its byte range (NFS4_OK
 * or its error), and the file opened for writing into @io.
 * Return values: the first error, or NFS4_OK.
 */
enum nfsstat4 nfs4_change_open(struct nfs4_compound *c, const struct stateid4 *sid,
			       enum nfsstat4 range, struct vfs_obj *io);
/* The largest READ and WRITE (the maxread and maxwrite attributes). */
#define NFS4_IO_MAX (1024u * 1024u)
/*
 * nfs4_map_range - [@off, @off + *@count) of the current file (opened as
 * @io) in its node's kept mapping (export_map_read), for a reply that
 * sends its data from there (nfs4_map_attach): each byte is then copied
 * once, into the socket, instead of twice (pread into the reply, then
 * the socket). Only on a memory-backed export, for NFS4_MAP_READ_MIN
 * bytes or more, one range per reply (a second READ in the COMPOUND is
 * read the ordinary way), never in a 4.0 COMPOUND the duplicate request
 * cache keeps, never a range not all in memory. The size is taken again
 * once the mapping is found, so a file shrunk since the COMPOUND
 * resolved it is sent as far as it still reaches (*@count cut, *@size
 * the size now; a truncation after that makes the send fill with zeros,
 * rpc_req_ext_lost).
 * Return values: the data, or NULL: read the ordinary way.
 */
const uint8_t *nfs4_map_range(struct nfs4_compound *c, struct vfs_obj *io, uint64_t off,
			      uint32_t *count, uint64_t *size);
/*
 * nfs4_map_attach - @data, @count bytes from nfs4_map_range(), sent at
 * this place of the reply (the node held until it is sent), with its XDR
 * padding encoded after it.
 * Return values: true, or false with nothing changed.
 */
bool nfs4_map_attach(struct nfs4_compound *c, const uint8_t *data, uint32_t count);
/* The smallest READ sent from a file's mapping (io_ops.c): below it the
 * mapping's lookup costs about what the copy it saves does, as NFSv3's
 * NFS3_MAP_READ_MIN. */
#define NFS4_MAP_READ_MIN (64u * 1024u)
/* WRITE's and COMMIT's verifier: new at every start (nfs4_init). */
extern verifier4 nfs4_write_verf;

/* io42_ops.c: NFSv4.2's I/O (RFC 7862) */
nfs4_op_fn nfs4_seek, nfs4_allocate, nfs4_deallocate, nfs4_read_plus, nfs4_io_advise;
/* May a READ_PLUS of @count bytes at @off of @o run where nothing may
 * wait, its file on a disk? When its remembered map (rp_cache.h) says the
 * range is all hole: no seek or read is needed, and the descriptor it
 * reads through is open already. */
bool nfs4_read_plus_no_io(const struct export_obj *o, uint64_t off, uint32_t count);

/* The change attribute of directory @o, as change_info4 reports it (ns_ops.c). */
uint64_t nfs4_change_of(const struct export_obj *o);
/* @n as a C string into @buf, checked as LOOKUP checks names (ns_ops.c). */
enum nfsstat4 nfs4_name_of(const component4 *n, char buf[NAME_MAX + 1]);

/* The principal of @req's call (client_ops.c): its flavour and AUTH_SYS uid. */
void nfs4_principal_of(const struct rpc_req *req, struct nfs4_principal *who);
/* Monotonic seconds, the clock of the leases. */
uint64_t nfs4_now_sec(void);

/* xattr_ops.c: NFSv4.2's extended attributes (RFC 8276) */
nfs4_op_fn nfs4_getxattr, nfs4_setxattr, nfs4_listxattrs, nfs4_removexattr;
/* Return values: does the file system of @o hold user xattrs (the
 * xattr_support attribute)? */
bool nfs4_xattr_supported(const struct export_obj *o);

/* copy_ops.c: NFSv4.2's COPY and CLONE */
nfs4_op_fn nfs4_copy, nfs4_clone;
/* copy_async.c: asynchronous COPY, OFFLOAD_STATUS, OFFLOAD_CANCEL */
nfs4_op_fn nfs4_offload_status, nfs4_offload_cancel;
/*
 * nfs4_copy_async - start copying @count bytes from @soff of the saved
 * file (opened as @sio) to @doff of the current one (@dio) on a thread
 * of its own, CB_OFFLOAD to the session's client at the end; its copy
 * stateid into *@sid. Return values: NFS4_OK; NFS4ERR_NOTSUPP: not here
 * (4.0, a backend that cannot keep its objects, too many running): copy
 * synchronously; another status answers the COPY.
 */
enum nfsstat4 nfs4_copy_async(struct nfs4_compound *c, const struct vfs_obj *sio,
			      const struct vfs_obj *dio, uint64_t soff, uint64_t doff,
			      uint64_t count, struct stateid4 *sid);
/* Cancel every asynchronous copy and wait for their threads (nfs4_fini). */
void nfs4_copies_stop(void);

/* session_ops.c */
nfs4_op_fn nfs4_exchange_id, nfs4_create_session, nfs4_sequence, nfs4_destroy_session,
	nfs4_bind_conn_to_session, nfs4_backchannel_ctl, nfs4_destroy_clientid,
	nfs4_reclaim_complete;
/* Make and free the table of sessions over @clients (nfs4_init, nfs4_fini).
 * Return values: 0, or -1 when memory is short. */
int nfs4_sessions_init(struct nfs4_clients *clients);
void nfs4_sessions_fini(void);
/* The table (NULL before nfs4_init), for compound.c's end of a COMPOUND. */
struct nfs4_sessions *nfs4_sessions_table(void);

/* deleg.c: read and write delegations (state.h has the rules) */
/* Count the table's delegations from now on and take NFSv3's changes
 * (vfs/lease.h) (nfs4_init); nfs4_deleg_fini lets go (nfs4_fini). */
void nfs4_deleg_init(void);
void nfs4_deleg_fini(void);
/* Return values: is any delegation held or being recalled? (one relaxed
 * atomic load, for RENEW's CB_PATH_DOWN; a change asks vfs_leases_held
 * after its vfs_change_mark instead, the order a racing grant relies on) */
bool nfs4_delegs_held(void);
/* Return values: is any write delegation held or being recalled? (one
 * relaxed atomic load: what a read asks before nfs4_deleg_break_read) */
bool nfs4_wdelegs_held(void);
/* Return values: has 4.1 client @clientid a revoked delegation not yet
 * freed? (a lock taken only while any exists) */
bool nfs4_delegs_revoked(clientid4 clientid);
/*
 * nfs4_deleg_break - file @f is about to change by @breaker (4.1: the
 * session's client; 4.0: the client the operation names; else 0): the
 * conflicting delegations are recalled (asynchronously). The caller has
 * marked @f changing first (vfs_change_mark into c->changes, vfs/lease.h),
 * so that a grant racing the change sees it.
 * Return values: NFS4_OK: go on; NFS4ERR_DELAY: change nothing, the
 * client tries again.
 */
enum nfsstat4 nfs4_deleg_break(const struct nfs4_file_id *f, clientid4 breaker);
/* nfs4_deleg_break for a read of file @f (its data, its size or change,
 * an OPEN for reading): only write delegations conflict. */
enum nfsstat4 nfs4_deleg_break_read(const struct nfs4_file_id *f, clientid4 breaker);
/* OPEN's delegation result for @oa of file @f (handle @fh) by @cid, whose
 * reservation of @access was just taken (c->seq holds its owner). */
void nfs4_deleg_offer(struct nfs4_compound *c, const struct OPEN4args *oa, clientid4 cid,
		      uint32_t access, const struct nfs4_file_id *f, const struct nfsx_fh *fh,
		      struct open_delegation4 *out);
/* CREATE_SESSION or BIND_CONN_TO_SESSION gave session @id the back
 * channel of @c's connection: its handle goes to the session. */
void nfs4_deleg_bind(struct nfs4_compound *c, const sessionid4 *id);

/* sec.c: security flavours (WRONGSEC, SECINFO's lists) */
nfs4_op_fn nfs4_secinfo_no_name;
/* Does the call's flavour fit filehandle @f? Return values: NFS4_OK
 * (also for no filehandle), NFS4ERR_WRONGSEC. */
enum nfsstat4 nfs4_sec_check(const struct nfs4_compound *c, const struct nfs4_fh *f);
/* The flavours of filehandle @f, as SECINFO lists them, into @out (from
 * the request's arena). Return values: NFS4_OK, NFS4ERR_RESOURCE. */
enum nfsstat4 nfs4_sec_list(struct nfs4_compound *c, const struct nfs4_fh *f,
			    SECINFO4resok *out);
/* After operation @op ran with NFS4_OK (the COMPOUND's loop): the
 * status it answers instead, NFS4ERR_WRONGSEC, or NFS4_OK. */
enum nfsstat4 nfs4_sec_after(struct nfs4_compound *c, enum nfs_opnum4 op);

/* readdir.c */
nfs4_op_fn nfs4_readdir;

/*
 * nfs4_sid - the stateid an operation names: @s, or for the special
 * "current stateid" (seqid 1, other all zeros) of minor version 1 the
 * one the COMPOUND's operations last returned (one that no state has,
 * hence BAD_STATEID, when there is none).
 */
const struct stateid4 *nfs4_sid(const struct nfs4_compound *c, const struct stateid4 *s);
/* @sid becomes the current stateid (minor version 1). */
void nfs4_set_sid(struct nfs4_compound *c, const struct stateid4 *sid);

/* cacheme.c: does NFSv4.0 COMPOUND @req go to the duplicate request
 * cache (rpc_proc.cache_this)? Return values: true when it holds an
 * operation knfsd flags OP_CACHEME. */
bool nfs4_compound_cache_this(struct rpc_req *req);

/* Let go of what @f holds; it becomes none. */
void nfs4_fh_clear(struct nfs4_fh *f);

/* The nfsstat4 of an errno (as from export_resolve and vfs/ops.h). */
enum nfsstat4 nfs4_errno(int err);

#endif
