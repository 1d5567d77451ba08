/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the NFSv4.1 session table (src/nfs4/sessions.c over
 * src/nfs4/clients.c) driven by a script of calls, as a client that
 * gets every sequence id, slot, session and order wrong could drive it,
 * with a clock the input moves. Each step is an operation byte (modulo
 * 10) and its argument bytes (missing ones read as 0):
 *   0 EXCHANGE_ID      a: owner a&3, verifier a>>2&1, principal a>>3&1,
 *                         update a>>4&1 (the clientid is kept, 8 at most)
 *   1 CREATE_SESSION   a: clientid a&7, seqid next-1..next+2 (a>>3&3),
 *                         back channel a>>5&1, principal a>>6&1;
 *                      b: slots b&127; c: cached c*64; d: replies d*16
 *   2 SEQUENCE         a: session a&7, slot a>>3&7, seqid last+0..+3
 *                         (a>>6); b: cache this b&1, a reply of
 *                         80 + (b>>1)*40 bytes with its result (kept
 *                         running, 4 at most; a replay's cached bytes
 *                         are read)
 *   3 done             a: which running one; b: reply of b*40 bytes
 *   4 DESTROY_SESSION  a: session a&7, within the first running one's
 *                         COMPOUND a>>3&1
 *   5 BIND_CONN        a: session a&7, direction a>>3&7
 *   6 DESTROY_CLIENTID a: clientid a&7
 *   7 RECLAIM_COMPLETE a: clientid a&7
 *   8 the clock        a: seconds forward
 *   9 back channel     a: clientid a&7; b: session b&7 gets a handle on
 *                         connection 1 + (b>>3&3) if b>>5&1, then a
 *                         callback slot is taken and given back
 *                         (answered b>>6&1)
 * The table's bound must hold after every step; at the end every
 * running COMPOUND ends and the tables are freed (LeakSanitizer checks
 * that nothing stays, and every back channel handle is let go). Seeds: make-seeds.py.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nfs4/sessions.h"

#define MAX_SESSIONS 6u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct script {
	const uint8_t *p, *end;
};

static uint8_t next(struct script *s)
{
	return s->p < s->end ? *s->p++ : 0;
}

/* References held on the back channel handles. */
static int handles;

static void ref_get(void *ref)
{
	(void)ref;
	handles++;
}

static void ref_put(void *ref)
{
	(void)ref;
	handles--;
}

struct known_client {
	clientid4 cid;
	sequenceid4 next_seq;
};

struct known_session {
	sessionid4 sid;
	sequenceid4 slot_seq[8];
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *owners[4] = { "a", "b", "c", "" };
	static uint8_t reply[256 * 40];
	struct script s = { data, data + size };
	struct nfs4_clients *ct = nfs4_clients_new(1700000000u, 8);
	struct nfs4_sessions *st = ct ? nfs4_sessions_new(ct, MAX_SESSIONS) : NULL;
	struct known_client cl[8];
	struct known_session ss[8];
	struct nfs4_slot_use run[4];
	uint32_t nrun = 0, ncl = 0, nss = 0, i;
	uint64_t now = 1000;
	volatile uint32_t sum = 0;

	if (!st) {
		nfs4_clients_free(ct);
		return 0;
	}
	memset(cl, 0, sizeof(cl));
	memset(ss, 0, sizeof(ss));
	memset(run, 0, sizeof(run));
	while (s.p < s.end) {
		uint8_t op = next(&s) % 10, a = next(&s);
		struct nfs4_principal who = { 1, 1000u + (a >> 3 & 1) };

		switch (op) {
		case 0: {
			verifier4 v;
			struct nfs4_exid x;

			memset(v.val, a >> 2 & 1, sizeof(v.val));
			if (nfs4_sessions_exchange_id(st, (const uint8_t *)owners[a & 3],
						      (uint32_t)strlen(owners[a & 3]), &v, &who,
						      a >> 4 & 1, now, &x) == NFS4_OK) {
				cl[ncl % 8].cid = x.clientid;
				cl[ncl % 8].next_seq = x.seqid;
				ncl++;
			}
			break;
		}
		case 1: {
			struct known_client *k = &cl[a & 7];
			struct CREATE_SESSION4args ca;
			struct CREATE_SESSION4res cr;
			struct nfs4_principal w2 = { 1, 1000u + (a >> 6 & 1) };

			memset(&ca, 0, sizeof(ca));
			ca.csa_clientid = k->cid;
			ca.csa_sequence = k->next_seq + (a >> 3 & 3) - 1;
			ca.csa_flags = a >> 5 & 1 ? CREATE_SESSION4_FLAG_CONN_BACK_CHAN : 0;
			ca.csa_fore_chan_attrs.ca_maxrequests = next(&s) & 127;
			ca.csa_fore_chan_attrs.ca_maxresponsesize_cached = next(&s) * 64u;
			ca.csa_fore_chan_attrs.ca_maxresponsesize = next(&s) * 16u;
			ca.csa_fore_chan_attrs.ca_maxrequestsize = 65536;
			ca.csa_fore_chan_attrs.ca_maxoperations = 8;
			ca.csa_back_chan_attrs = ca.csa_fore_chan_attrs;
			if (nfs4_sessions_create(st, &ca, &w2, 1 + (a & 1), 1u << 20, now, &cr) ==
			    NFS4_OK) {
				if (ca.csa_sequence == k->next_seq)
					k->next_seq++;
				memset(&ss[nss % 8], 0, sizeof(ss[0]));
				ss[nss % 8].sid = cr.u.csr_resok4.csr_sessionid;
				nss++;
			}
			break;
		}
		case 2: {
			struct known_session *k = &ss[a & 7];
			uint32_t slot = a >> 3 & 7;
			struct SEQUENCE4args sa;
			struct SEQUENCE4resok sr;
			struct nfs4_slot_use q;
			uint8_t b;

			memset(&sa, 0, sizeof(sa));
			sa.sa_sessionid = k->sid;
			sa.sa_slotid = slot;
			sa.sa_sequenceid = k->slot_seq[slot] + (a >> 6);
			b = next(&s);
			sa.sa_cachethis = b & 1;
			if (nfs4_sessions_sequence(st, &sa, 300, 3, 80u + (b >> 1) * 40u, now, &sr,
						   &q) != NFS4_OK)
				break;
			if (q.replay == NFS4_SEQ_NEW)
				k->slot_seq[slot] = sa.sa_sequenceid;
			if (q.replay == NFS4_SEQ_CACHED) {
				uint32_t len;
				const uint8_t *cached = nfs4_seq_cached(&q, &len);

				for (i = 0; i < len; i++)
					sum += cached[i];
			}
			if (nrun < 4)
				run[nrun++] = q;
			else
				nfs4_sessions_done(st, &q, NULL, 0);
			break;
		}
		case 3: {
			struct iovec iov = { reply, next(&s) * 40u };

			if (!nrun)
				break;
			i = a % nrun;
			nfs4_sessions_done(st, &run[i], &iov, 1);
			run[i] = run[--nrun];
			break;
		}
		case 4:
			nfs4_sessions_destroy(st, &ss[a & 7].sid, (a >> 3 & 1) && nrun ? &run[0] : NULL,
					      now);
			break;
		case 5: {
			enum channel_dir_from_server4 dir;

			nfs4_sessions_bind_conn(st, &ss[a & 7].sid,
						(enum channel_dir_from_client4)(a >> 3 & 7), 3, now,
						&dir);
			break;
		}
		case 6:
			nfs4_sessions_destroy_client(st, cl[a & 7].cid, now);
			break;
		case 7:
			nfs4_sessions_reclaim_complete(st, cl[a & 7].cid, now);
			break;
		case 8:
			now += a;
			break;
		default: {
			struct nfs4_cb_slot q;
			uint8_t b = next(&s);

			if (b >> 5 & 1) {
				handles++;
				nfs4_sessions_set_back_ref(st, &ss[b & 7].sid, 1 + (b >> 3 & 3),
							   &handles, ref_put);
			}
			if (nfs4_sessions_cb_begin(st, cl[a & 7].cid, now, ref_get, &q)) {
				nfs4_sessions_cb_end(st, &q, b >> 6 & 1);
				ref_put(q.ref);
			}
			break;
		}
		}
		if (nfs4_sessions_count(st) > MAX_SESSIONS)
			abort();
	}
	while (nrun)
		nfs4_sessions_done(st, &run[--nrun], NULL, 0);
	nfs4_sessions_free(st);
	nfs4_clients_free(ct);
	if (handles)
		abort();
	(void)sum;
	return 0;
}
