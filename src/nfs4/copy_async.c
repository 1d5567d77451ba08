/* SPDX-License-Identifier: MIT */
/*
 * Asynchronous COPY (RFC 7862 15.2.3, 4.8): a copy stateid, a thread that
 * copies, CB_OFFLOAD on the client's back channel at the end,
 * OFFLOAD_STATUS and OFFLOAD_CANCEL.
 *
 * DESIGN
 * - Only for NFSv4.1 and later clients (CB_OFFLOAD goes on a session's
 *   back channel) whose COPY allows it (ca_synchronous false), and only
 *   where the backend keeps I/O objects past a call (copy_keep): the
 *   thread holds its own claims on both files, never the COMPOUND's
 *   export objects, so an exports reload or the open-object cache
 *   letting go meanwhile changes nothing. Otherwise COPY is answered
 *   synchronously (copy_ops.c).
 * - At most ASYNC_MAX copies run at once on the server (one thread
 *   each); one more is done synchronously instead.
 * - The thread copies in CHUNK pieces and looks at the cancel flag
 *   between two: OFFLOAD_CANCEL and the server's stop end a copy
 *   midway (what was copied stays; no CB_OFFLOAD then, as knfsd). The
 *   bytes done so far are what OFFLOAD_STATUS reports.
 * - The copy stateid is new for each copy (its "other" a counter no
 *   state of state.h has: a distinct first word), known to its client
 *   only: another client's OFFLOAD_* with it is BAD_STATEID, as an
 *   unknown one. It lives until the client answered CB_OFFLOAD (or it
 *   could not be sent: the back channel down or busy for ~5 s, when
 *   the client learns the result with OFFLOAD_STATUS until the record
 *   goes at the server's stop or the next copy's sweep a lease later).
 * - The stop (nfs4_copies_stop, first in nfs4_fini) cancels every copy
 *   and waits for the threads; records whose CB_OFFLOAD is still out
 *   are freed by its end.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nfs4/callback.h"
#include "nfs4/internal.h"
#include "rpc/backchan.h"
#include "util/log.h"

#define ASYNC_MAX 16u
#define CHUNK (1024u * 1024u)
#define COPY_MAGIC 0xc0b1e5a7u

struct acopy {
	struct acopy *next;
	struct stateid4 sid;
	clientid4 clientid;
	uint8_t fh[NFS4_FHSIZE];       /* the destination's, for CB_OFFLOAD */
	uint32_t fh_len;
	const struct vfs_ops *ops;
	struct vfs_ioh src, dst;
	uint64_t soff, doff, count;
	_Atomic uint64_t done;
	atomic_bool cancel;
	/* under lock: */
	bool finished;
	bool cb_out;                   /* CB_OFFLOAD sent, its end not seen */
	bool thread_done;              /* its thread no longer looks at it */
	enum nfsstat4 status;
	uint64_t finished_at;
	struct nfs4_cb_slot slot;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t idle = PTHREAD_COND_INITIALIZER;
static struct acopy *copies;
static unsigned int running;
static bool stopping;
static uint64_t next_id;

/* Unlink @k (lock held). */
static void unlink_copy(struct acopy *k)
{
	struct acopy **p;

	for (p = &copies; *p; p = &(*p)->next)
		if (*p == k) {
			*p = k->next;
			return;
		}
}

static void free_copy(struct acopy *k)
{
	k->ops->copy_drop(&k->src);
	k->ops->copy_drop(&k->dst);
	free(k);
}

static void bc_get(void *ref)
{
	rpc_backchan_get(ref);
}

static void offload_done(void *arg, enum rpc_call_status st, const struct nfs4_cb_res *res)
{
	struct acopy *k = arg;

	(void)res;
	nfs4_sessions_cb_end(nfs4_sessions_table(), &k->slot, st == RPC_CALL_OK);
	rpc_backchan_put(k->slot.ref);
	pthread_mutex_lock(&lock);
	unlink_copy(k);
	pthread_mutex_unlock(&lock);
	free_copy(k);
}

/* CB_SEQUENCE, CB_OFFLOAD of @k's end on its client's back channel.
 * Return values: true when sent (offload_done will free @k). */
static bool send_offload(struct acopy *k)
{
	struct nfs_cb_argop4 ops[2];
	struct CB_SEQUENCE4args *sq = &ops[0].u.opcbsequence;
	struct CB_OFFLOAD4args *oa = &ops[1].u.opcboffload;
	struct rpc_out_cred cred = { 0 };
	uint64_t done = atomic_load(&k->done);

	if (!nfs4_sessions_table() ||
	    !nfs4_sessions_cb_begin(nfs4_sessions_table(), k->clientid, nfs4_now_sec(), bc_get,
				    &k->slot))
		return false;
	memset(ops, 0, sizeof(ops));
	ops[0].argop = OP_CB_SEQUENCE;
	sq->csa_sessionid = k->slot.session;
	sq->csa_sequenceid = k->slot.seqid;
	sq->csa_slotid = k->slot.slot;
	sq->csa_highest_slotid = k->slot.highest;
	ops[1].argop = OP_CB_OFFLOAD;
	oa->coa_fh.data = k->fh;
	oa->coa_fh.len = k->fh_len;
	oa->coa_stateid = k->sid;
	oa->coa_offload_info.coa_status = k->status;
	if (k->status == NFS4_OK) {
		oa->coa_offload_info.u.coa_resok4.wr_count = done;
		oa->coa_offload_info.u.coa_resok4.wr_committed = UNSTABLE4;
		oa->coa_offload_info.u.coa_resok4.wr_writeverf = nfs4_write_verf;
	} else {
		oa->coa_offload_info.u.coa_bytes_copied = done;
	}
	cred.flavor = k->slot.flavor;
	cred.uid = k->slot.uid;
	cred.gid = k->slot.gid;
	cred.machine = nfs4_cb_machine(nfs4_callbacks());
	pthread_mutex_lock(&lock);
	k->cb_out = true;
	pthread_mutex_unlock(&lock);
	if (nfs4_cb_send_on_conn(k->slot.ref, k->slot.cb_program, k->slot.minor, &cred, ops, 2,
				 nfs4_lease_time >= 10 ? nfs4_lease_time * 100u : 1000u, offload_done,
				 k) < 0) {
		nfs4_sessions_cb_end(nfs4_sessions_table(), &k->slot, false);
		rpc_backchan_put(k->slot.ref);
		pthread_mutex_lock(&lock);
		k->cb_out = false;
		pthread_mutex_unlock(&lock);
		return false;
	}
	return true;
}

static void *copy_thread(void *arg)
{
	struct acopy *k = arg;
	enum nfsstat4 st = NFS4_OK;
	uint64_t done = 0;
	bool sent = false, cancelled;
	int i;

	while (done < k->count && !atomic_load(&k->cancel)) {
		uint64_t want = k->count - done < CHUNK ? k->count - done : CHUNK;
		int64_t n = k->ops->copy_kept(&k->src, k->soff + done, &k->dst, k->doff + done,
					      want);

		if (n < 0 && done == 0)
			st = nfs4_errno((int)n);
		if (n <= 0)
			break;
		done += (uint64_t)n;
		atomic_store(&k->done, done);
		if ((uint64_t)n < want)
			break;   /* the source's end */
	}
	pthread_mutex_lock(&lock);
	k->finished = true;
	k->status = st;
	k->finished_at = nfs4_now_sec();
	cancelled = atomic_load(&k->cancel) || stopping;
	if (cancelled)
		unlink_copy(k);
	pthread_mutex_unlock(&lock);
	/* the back channel may be busy with another call: a few tries */
	for (i = 0; !cancelled && !sent && i < 50; i++) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };

		pthread_mutex_lock(&lock);
		cancelled = stopping || atomic_load(&k->cancel);
		if (cancelled)
			unlink_copy(k);
		pthread_mutex_unlock(&lock);
		if (cancelled || (sent = send_offload(k)))
			break;
		nanosleep(&ts, NULL);
	}
	if (cancelled)
		free_copy(k);
	else if (!sent)
		log_debug("NFSv4 COPY of client %016" PRIx64 ": CB_OFFLOAD not sent", k->clientid);
	pthread_mutex_lock(&lock);
	/* not sent: kept for OFFLOAD_STATUS, swept a lease from now */
	if (!cancelled && !sent) {
		k->finished_at = nfs4_now_sec();
		k->thread_done = true;
	}
	running--;
	pthread_cond_broadcast(&idle);
	pthread_mutex_unlock(&lock);
	return NULL;
}

/* Drop the finished copies whose CB_OFFLOAD could not go, a lease after
 * (lock held). */
static void sweep(uint64_t now)
{
	struct acopy **p = &copies, *k;

	while ((k = *p)) {
		if (k->thread_done && !k->cb_out && now >= k->finished_at + nfs4_lease_time) {
			*p = k->next;
			free_copy(k);
			continue;
		}
		p = &k->next;
	}
}

enum nfsstat4 nfs4_copy_async(struct nfs4_compound *c, const struct vfs_obj *sio,
			      const struct vfs_obj *dio, uint64_t soff, uint64_t doff,
			      uint64_t count, struct stateid4 *sid)
{
	const struct vfs_export *v = c->cur.o.vexp;
	struct nfsx_fh fh;
	pthread_attr_t at;
	pthread_t th;
	struct acopy *k;
	int e;

	if (c->minorversion == 0 || !v->ops->copy_keep || !v->ops->copy_kept ||
	    !v->ops->copy_drop || v->ops->handle(export_fh_key, v, &c->cur.o.obj, &fh) < 0)
		return NFS4ERR_NOTSUPP;
	k = calloc(1, sizeof(*k));
	if (!k)
		return NFS4ERR_DELAY;
	k->ops = v->ops;
	k->src = k->dst = VFS_IOH_NONE;
	if ((e = v->ops->copy_keep(c->saved.o.vexp, sio, &k->src)) < 0 ||
	    (e = v->ops->copy_keep(v, dio, &k->dst)) < 0) {
		free_copy(k);
		return nfs4_errno(e);
	}
	memcpy(k->fh, fh.data, fh.len);
	k->fh_len = fh.len;
	k->clientid = c->clientid;
	k->soff = soff;
	k->doff = doff;
	k->count = count;
	pthread_mutex_lock(&lock);
	sweep(nfs4_now_sec());
	if (stopping || running >= ASYNC_MAX) {
		pthread_mutex_unlock(&lock);
		free_copy(k);
		return NFS4ERR_NOTSUPP;
	}
	k->sid.seqid = 1;
	next_id++;
	k->sid.other[0] = (uint8_t)(COPY_MAGIC >> 24);
	k->sid.other[1] = (uint8_t)(COPY_MAGIC >> 16);
	k->sid.other[2] = (uint8_t)(COPY_MAGIC >> 8);
	k->sid.other[3] = (uint8_t)COPY_MAGIC;
	for (e = 0; e < 8; e++)
		k->sid.other[4 + e] = (uint8_t)(next_id >> (56 - 8 * e));
	*sid = k->sid;
	k->next = copies;
	copies = k;
	running++;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	e = pthread_create(&th, &at, copy_thread, k);
	pthread_attr_destroy(&at);
	if (e != 0) {
		unlink_copy(k);
		running--;
		pthread_mutex_unlock(&lock);
		free_copy(k);
		return NFS4ERR_NOTSUPP;
	}
	pthread_mutex_unlock(&lock);
	return NFS4_OK;
}

/* @sid's copy of the COMPOUND's client (lock held), or NULL. */
static struct acopy *find(const struct nfs4_compound *c, const struct stateid4 *sid)
{
	struct acopy *k;

	if (c->minorversion == 0)
		return NULL;
	for (k = copies; k; k = k->next)
		if (!memcmp(k->sid.other, sid->other, sizeof(sid->other)) &&
		    k->clientid == c->clientid)
			return k;
	return NULL;
}

enum nfsstat4 nfs4_offload_status(struct nfs4_compound *c, const struct nfs_argop4 *a,
				  struct nfs_resop4 *r)
{
	struct OFFLOAD_STATUS4res *res = &r->u.opoffload_status;
	enum nfsstat4 *done_st;
	struct acopy *k;

	if (c->cur.kind == NFS4_FH_NONE)
		return res->osr_status = NFS4ERR_NOFILEHANDLE;
	done_st = xdr_arena_alloc(&c->req->arena, sizeof(*done_st));
	if (!done_st)
		return res->osr_status = NFS4ERR_SERVERFAULT;
	pthread_mutex_lock(&lock);
	k = find(c, &a->u.opoffload_status.osa_stateid);
	if (k) {
		res->u.osr_resok4.osr_count = atomic_load(&k->done);
		if (k->finished) {
			*done_st = k->status;
			res->u.osr_resok4.osr_complete.len = 1;
			res->u.osr_resok4.osr_complete.val = done_st;
		}
	}
	pthread_mutex_unlock(&lock);
	return res->osr_status = k ? NFS4_OK : NFS4ERR_BAD_STATEID;
}

enum nfsstat4 nfs4_offload_cancel(struct nfs4_compound *c, const struct nfs_argop4 *a,
				  struct nfs_resop4 *r)
{
	struct acopy *k;

	if (c->cur.kind == NFS4_FH_NONE)
		return r->u.opoffload_cancel.ocr_status = NFS4ERR_NOFILEHANDLE;
	pthread_mutex_lock(&lock);
	k = find(c, &a->u.opoffload_cancel.oca_stateid);
	if (k)
		atomic_store(&k->cancel, true);
	pthread_mutex_unlock(&lock);
	return r->u.opoffload_cancel.ocr_status = k ? NFS4_OK : NFS4ERR_BAD_STATEID;
}

void nfs4_copies_stop(void)
{
	struct acopy **p, *k;

	pthread_mutex_lock(&lock);
	stopping = true;
	for (k = copies; k; k = k->next)
		atomic_store(&k->cancel, true);
	while (running)
		pthread_cond_wait(&idle, &lock);
	/* the finished ones whose CB_OFFLOAD is not out */
	for (p = &copies; (k = *p);) {
		if (!k->cb_out) {
			*p = k->next;
			free_copy(k);
			continue;
		}
		p = &k->next;
	}
	pthread_mutex_unlock(&lock);
}
