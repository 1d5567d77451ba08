/* SPDX-License-Identifier: MIT */
/*
 * NFSv4.1 client records: EXCHANGE_ID, CREATE_SESSION's client part,
 * RECLAIM_COMPLETE and DESTROY_CLIENTID (see clients.h), following RFC
 * 8881 18.35.5 and 18.36.4 case by case, with knfsd's
 * nfsd4_exchange_id() and nfsd4_create_session() as the reference where
 * the RFC leaves a choice. The table itself is clients.c's.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "nfs4/clients.h"
#include "nfs4/clients_internal.h"

/* A new unconfirmed 4.1 record, not yet in the table, or NULL. */
static struct client *new41(const uint8_t *id, uint32_t id_len, const verifier4 *verf,
			    const struct nfs4_principal *who, uint64_t now)
{
	struct client *c = calloc(1, sizeof(*c) + id_len);

	if (!c)
		return NULL;
	if (id_len)
		memcpy(c->id, id, id_len);
	c->id_len = id_len;
	c->verf = *verf;
	c->who = *who;
	c->renewed = now;
	c->v41 = true;
	/* the first CREATE_SESSION's seqid is 1 (as knfsd's) */
	c->cs_seqid = 0;
	return c;
}

enum nfsstat4 nfs4_clients_exchange_id(struct nfs4_clients *t, const uint8_t *id,
				       uint32_t id_len, const verifier4 *verf,
				       const struct nfs4_principal *who, bool update,
				       uint64_t now, struct nfs4_exid *out)
{
	struct client *conf, *unconf, *c = NULL;
	enum nfsstat4 st = NFS4_OK;

	if (id_len > NFS4_OPAQUE_LIMIT)
		return NFS4ERR_INVAL;
	pthread_mutex_lock(&t->lock);
	cl_sweep(t, now);
	conf = cl_find_name(t, id, id_len, true, true, now);
	if (update) {
		/* cases 6 to 9: an update of the confirmed record only */
		if (!conf)
			st = NFS4ERR_NOENT;
		else if (!cl_same_principal(&conf->who, who))
			st = NFS4ERR_PERM;
		else if (!cl_same_verf(&conf->verf, verf))
			st = NFS4ERR_NOT_SAME;
		else
			c = conf;
		goto out;
	}
	if (conf && !cl_same_principal(&conf->who, who)) {
		/* case 3: another principal's live client of that owner:
		 * INUSE while it has state or a session, else it is
		 * replaced at once (knfsd; pynfs EID5e, EID5g) */
		if (cl_in_use(conf)) {
			st = NFS4ERR_CLID_INUSE;
			goto out;
		}
		cl_drop(t, conf);
		conf = NULL;
	}
	if (conf && cl_same_verf(&conf->verf, verf)) {
		/* case 2: the client asks again, its record stays */
		c = conf;
		goto out;
	}
	/* Cases 1, 4 and 5: a new unconfirmed record with a new clientid
	 * replaces any unconfirmed one; a confirmed record of an earlier
	 * verifier (the client rebooted) stays until the new one is
	 * confirmed by CREATE_SESSION. */
	unconf = cl_find_name(t, id, id_len, false, true, now);
	if (unconf)
		cl_drop(t, unconf);
	/* 4.1 has no RESOURCE: DELAY, as knfsd, until leases run out */
	if (cl_full(t, now)) {
		st = NFS4ERR_DELAY;
		goto out;
	}
	c = new41(id, id_len, verf, who, now);
	if (!c) {
		st = NFS4ERR_DELAY;
		goto out;
	}
	c->clientid = cl_new_clientid(t);
	cl_insert(t, c);
out:
	if (c) {
		out->clientid = c->clientid;
		out->seqid = c->cs_seqid + 1;
		out->confirmed = c->confirmed;
	}
	pthread_mutex_unlock(&t->lock);
	return st;
}

enum nfsstat4 nfs4_clients_cs_check(struct nfs4_clients *t, clientid4 clientid,
				    sequenceid4 seqid, const struct nfs4_principal *who,
				    uint64_t now, bool *replay,
				    struct CREATE_SESSION4res *cached)
{
	struct client *c;
	enum nfsstat4 st = NFS4_OK;

	*replay = false;
	pthread_mutex_lock(&t->lock);
	cl_sweep(t, now);
	c = cl_find_cid(t, clientid, false, V41, now);
	if (!c)
		c = cl_find_cid(t, clientid, true, V41, now);
	if (!c)
		st = NFS4ERR_STALE_CLIENTID;
	/* another principal: refused before the confirmation only, as
	 * knfsd checks a confirmed client's machine credential alone
	 * (pynfs CSESS9, CSESS10) */
	else if (!c->confirmed && !cl_same_principal(&c->who, who))
		st = NFS4ERR_CLID_INUSE;
	else if (seqid == (sequenceid4)(c->cs_seqid + 1))
		st = NFS4_OK;
	else if (c->confirmed && c->cs_cached && seqid == c->cs_seqid)
		*replay = true;
	else
		/* an unconfirmed record has no reply to replay: as knfsd */
		st = NFS4ERR_SEQ_MISORDERED;
	if (*replay)
		*cached = c->cs_res;
	pthread_mutex_unlock(&t->lock);
	return st;
}

enum nfsstat4 nfs4_clients_cs_done(struct nfs4_clients *t, clientid4 clientid,
				   sequenceid4 seqid, const struct CREATE_SESSION4res *res,
				   uint64_t now)
{
	struct client *c, *old;
	enum nfsstat4 st = NFS4_OK;

	pthread_mutex_lock(&t->lock);
	c = cl_find_cid(t, clientid, true, V41, now);
	if (!c) {
		c = cl_find_cid(t, clientid, false, V41, now);
		if (c) {
			/* the earlier incarnation goes, with its state
			 * (its sessions die when next used) */
			old = cl_find_name(t, c->id, c->id_len, true, true, now);
			if (old)
				cl_drop(t, old);
			c->confirmed = true;
			if (t->record)
				t->record(c->id, c->id_len, true);
		}
	}
	if (c) {
		c->cs_seqid = seqid;
		c->cs_res = *res;
		c->cs_res.u.csr_resok4.csr_fore_chan_attrs.ca_rdma_ird.len = 0;
		c->cs_res.u.csr_resok4.csr_fore_chan_attrs.ca_rdma_ird.val = NULL;
		c->cs_res.u.csr_resok4.csr_back_chan_attrs.ca_rdma_ird.len = 0;
		c->cs_res.u.csr_resok4.csr_back_chan_attrs.ca_rdma_ird.val = NULL;
		c->cs_cached = true;
		cl_touch(t, c, now);
	} else {
		st = NFS4ERR_STALE_CLIENTID;
	}
	pthread_mutex_unlock(&t->lock);
	return st;
}

bool nfs4_clients_alive(struct nfs4_clients *t, clientid4 clientid, uint64_t now)
{
	bool alive;

	pthread_mutex_lock(&t->lock);
	alive = cl_find_cid(t, clientid, true, V41, now) != NULL;
	pthread_mutex_unlock(&t->lock);
	return alive;
}

enum nfsstat4 nfs4_clients_reclaim_complete(struct nfs4_clients *t, clientid4 clientid,
					    uint64_t now)
{
	struct client *c;
	enum nfsstat4 st = NFS4_OK;

	pthread_mutex_lock(&t->lock);
	c = cl_find_cid(t, clientid, true, V41, now);
	if (!c)
		st = NFS4ERR_STALE_CLIENTID;
	else if (c->reclaimed)
		st = NFS4ERR_COMPLETE_ALREADY;
	else
		c->reclaimed = true;
	pthread_mutex_unlock(&t->lock);
	return st;
}

enum nfsstat4 nfs4_clients_destroy(struct nfs4_clients *t, clientid4 clientid, uint64_t now)
{
	struct client *c;
	enum nfsstat4 st = NFS4ERR_STALE_CLIENTID;

	pthread_mutex_lock(&t->lock);
	cl_sweep(t, now);
	while ((c = cl_find_cid(t, clientid, true, V41, now)) ||
	       (c = cl_find_cid(t, clientid, false, V41, now))) {
		cl_drop(t, c);
		st = NFS4_OK;
	}
	pthread_mutex_unlock(&t->lock);
	return st;
}
