/* SPDX-License-Identifier: MIT */
/*
 * nfsxd's memory with many NFSv4 clients holding state (src/nfs4/
 * clients.c, state.c, sessions.c): the server's RSS after start; after
 * 1000 NFSv4.0 clients (SETCLIENTID and its CONFIRM each, over a few TCP
 * connections: a client is its id string, not its connection) each
 * holding a confirmed OPEN of a file of its own and a lock on it; after
 * 200 NFSv4.1 clients more, each with a session of the channel a Linux
 * client asks (64 slots, 1 MiB records) and an OPEN made through
 * SEQUENCE. The growth per client must stay under the bounds below, and
 * a client past NFS4_STATE_CLIENT_MAX open stateids gets RESOURCE
 * instead of more memory.
 *
 * The figures are printed as TAP comments; docs/architecture.md quotes
 * them.
 *
 * Run by run-nfs4-memory.sh:   test_nfs4_memory PORT EXPORT_DIR SERVER_PID
 * (EXPORT_DIR is exported rw,no_root_squash to 127.0.0.1; the environment's
 * NFSX_TEST_SANITIZED set means the RSS bounds are not checked.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nfs4_state_raw.h"
#include "rpc_client.h"
#include "tap.h"

#include "nfs4/sessions.h"
#include "nfs4/state.h"

#define CONNS 4u
#define CLIENTS40 1000u
#define CLIENTS41 200u

/*
 * The bounds, a little over twice what was measured (2.7 KB per 4.0
 * client, 9 KB per 4.1 client: docs/architecture.md has the figures):
 * room for another malloc's arena layout and page rounding, while a leak
 * of a few KiB per client (a request or reply buffer kept) fails. A 4.0
 * client with an open file and a lock holds a client record, an
 * open-owner and a lock-owner (each with a replay buffer of up to
 * NFS4_REPLAY_MAX bytes), two stateids and a lock.
 */
#define PER_CLIENT40_MAX (6u << 10)
/* A 4.1 client with a session: its slot table and the replies cached in
 * it (one here: the OPEN's; sessions.h bounds them at NFS4_SESSION_CACHE_MAX). */
#define PER_CLIENT41_MAX (20u << 10)

static int fds[CONNS];
static struct v4_fh dir_fh;
static int server_pid;
static const char *sanitized;

static long rss_kib(void)
{
	return rpc_proc_rss_kib(server_pid);
}

/* Client @i of 4.0 on its connection: SETCLIENTID, CONFIRM, OPEN (create)
 * of "c@i", OPEN_CONFIRM, LOCK of its first 100 bytes. Return values: the
 * first failure's status, -1 on no or odd reply. */
static long client40(unsigned int i)
{
	int fd = fds[i % CONNS];
	char id[32], name[32];
	struct v4_owner o = { .name = "open-owner", .seqid = 1 };
	struct v4_opened r;
	struct v4_fattr f;
	struct nfs_argop4 ops[2];
	struct v4_res s;
	long st;

	snprintf(id, sizeof(id), "memory-40-%u", i);
	snprintf(name, sizeof(name), "c%u", i);
	st = v4_client(fd, 0, id, true, &o.cid);
	if (st != NFS4_OK)
		return st;
	v4f_init(&f);
	v4f_u32(&f, FATTR4_MODE, 0644);
	v4op_open(&ops[0], o.seqid, OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_NONE, o.cid,
		  o.name, name);
	v4op_open_create(&ops[0], UNCHECKED4, &f, NULL);
	st = v4_open_conf(fd, &o, 0, &dir_fh, &ops[0], &r);
	if (st != NFS4_OK)
		return st;
	v4_res_init(&s);
	v4op_putfh(&ops[0], &r.fh);
	v4op_lock_new(&ops[1], WRITE_LT, false, 0, 100, o.seqid, &r.sid, 0, o.cid, "lock-owner");
	st = v4_compound(fd, 0, 0, "t", 1, 0, ops, 2, &s) ? (long)s.status : -1;
	if (st < 0)
		v4_diag(&s);
	v4_res_free(&s);
	return st;
}

/* Client @i of 4.1: EXCHANGE_ID, CREATE_SESSION as a Linux client asks,
 * SEQUENCE + PUTFH + OPEN (create) of "s@i"; the granted fore channel in
 * @fore. Return values: the first failure's status, -1 on no or odd reply. */
static long client41(unsigned int i, struct channel_attrs4 *fore)
{
	int fd = fds[i % CONNS];
	char id[32], name[32];
	struct v4_session sess;
	struct v4_fattr f;
	struct nfs_argop4 ops[3];
	struct v4_res s;
	long st;

	snprintf(id, sizeof(id), "memory-41-%u", i);
	snprintf(name, sizeof(name), "s%u", i);
	memset(&sess, 0, sizeof(sess));
	/* Linux 6.1 asks 1 MiB + headers both ways, 64 slots, and a cached
	 * reply of a few KiB (enough for an OPEN's). */
	st = v4_session_open(fd, id, 1, 1049620, 1049480, 7584, 64, &sess);
	if (st != NFS4_OK)
		return st;
	*fore = sess.fore;
	/* a 4.1 client makes no new state before RECLAIM_COMPLETE */
	v4_res_init(&s);
	v4op_seq_next(&ops[0], &sess, 0, false);
	v4op_reclaim_complete(&ops[1], false);
	st = v4_call41(fd, ops, 2, &s) ? (long)s.status : -1;
	v4_res_free(&s);
	if (st != NFS4_OK)
		return st;
	v4f_init(&f);
	v4f_u32(&f, FATTR4_MODE, 0644);
	v4op_seq_next(&ops[0], &sess, 0, true);
	v4op_putfh(&ops[1], &dir_fh);
	v4op_open(&ops[2], 0, OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_NONE, sess.clientid,
		  "open-owner", name);
	v4op_open_create(&ops[2], UNCHECKED4, &f, NULL);
	v4_res_init(&s);
	st = v4_call41(fd, ops, 3, &s) ? (long)s.status : -1;
	if (st < 0)
		v4_diag(&s);
	v4_res_free(&s);
	return st;
}

/* One 4.0 client opening files "b<n>" with one owner until refused:
 * the number of OPENs that succeeded into @opened, the refusal's status
 * returned (-1 on no or odd reply; 0 when never refused). */
static long one_client_many(unsigned int *opened)
{
	int fd = fds[0];
	struct v4_owner o = { .name = "greedy-owner", .seqid = 1 };
	struct v4_opened r;
	struct nfs_argop4 op;
	struct v4_fattr f;
	char name[32];
	unsigned int n;
	long st;

	*opened = 0;
	st = v4_client(fd, 0, "memory-greedy", true, &o.cid);
	if (st != NFS4_OK)
		return st;
	v4f_init(&f);
	for (n = 0; n < NFS4_STATE_CLIENT_MAX + 16u; n++) {
		snprintf(name, sizeof(name), "b%u", n);
		v4op_open(&op, o.seqid, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, o.cid,
			  o.name, name);
		v4op_open_create(&op, UNCHECKED4, &f, NULL);
		st = v4_open_conf(fd, &o, 0, &dir_fh, &op, &r);
		if (st != NFS4_OK)
			return st;
		(*opened)++;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct channel_attrs4 fore;
	long rss0, rss40, rss41, rss_greedy, st = NFS4_OK;
	unsigned int i, n, bad = 0;
	double per40, per41;

	if (argc != 4) {
		fprintf(stderr, "usage: %s PORT EXPORT_DIR SERVER_PID\n", argv[0]);
		return 2;
	}
	server_pid = atoi(argv[3]);
	sanitized = getenv("NFSX_TEST_SANITIZED");
	if (sanitized && !*sanitized)
		sanitized = NULL;
	for (i = 0; i < CONNS; i++) {
		fds[i] = rpc_connect((uint16_t)atoi(argv[1]), 5000);
		if (fds[i] < 0) {
			printf("Bail out! cannot connect to 127.0.0.1:%s\n", argv[1]);
			return 1;
		}
	}
	if (v4_walk(fds[0], argv[2], &dir_fh) != NFS4_OK) {
		printf("Bail out! cannot walk to %s\n", argv[2]);
		return 1;
	}

	rss0 = rss_kib();
	printf("# RSS after start %ld KiB\n", rss0);

	for (i = 0; i < CLIENTS40; i++) {
		st = client40(i);
		if (st != NFS4_OK && bad++ == 0)
			printf("# 4.0 client %u: status %ld\n", i, st);
	}
	ok(bad == 0, "%u NFSv4.0 clients: SETCLIENTID, CONFIRM, OPEN, OPEN_CONFIRM, LOCK all OK",
	   CLIENTS40);
	rss40 = rss_kib();
	per40 = (double)(rss40 - rss0) * 1024.0 / CLIENTS40;
	printf("# RSS after %u 4.0 clients %ld KiB (+%ld KiB), per client %.0f bytes\n", CLIENTS40,
	     rss40, rss40 - rss0, per40);
	if (sanitized)
		ok(1, "4.0 per-client RSS bound # SKIP %s", sanitized);
	else
		ok(rss0 > 0 && per40 < PER_CLIENT40_MAX,
		   "RSS growth per 4.0 client with an open file and a lock under %u bytes",
		   PER_CLIENT40_MAX);

	bad = 0;
	memset(&fore, 0, sizeof(fore));
	for (i = 0; i < CLIENTS41; i++) {
		st = client41(i, &fore);
		if (st != NFS4_OK && bad++ == 0)
			printf("# 4.1 client %u: status %ld\n", i, st);
	}
	ok(bad == 0, "%u NFSv4.1 clients: EXCHANGE_ID, CREATE_SESSION, SEQUENCE + OPEN all OK",
	   CLIENTS41);
	printf("# a session asked 64 slots, 7584 cached bytes: granted %u slots, %u cached bytes\n",
	     fore.ca_maxrequests, fore.ca_maxresponsesize_cached);
	ok(fore.ca_maxrequests >= 1 && fore.ca_maxrequests <= NFS4_SESSION_SLOTS &&
	   fore.ca_maxresponsesize_cached <= NFS4_SLOT_CACHE_MAX &&
	   (uint64_t)fore.ca_maxrequests * fore.ca_maxresponsesize_cached <=
	   NFS4_SESSION_CACHE_MAX,
	   "granted slots and cache within sessions.h's bounds (%u slots, %u KiB cached at most)",
	   NFS4_SESSION_SLOTS, NFS4_SESSION_CACHE_MAX >> 10);
	rss41 = rss_kib();
	per41 = (double)(rss41 - rss40) * 1024.0 / CLIENTS41;
	printf("# RSS after %u 4.1 clients with a session %ld KiB (+%ld KiB), per client %.0f bytes\n",
	     CLIENTS41, rss41, rss41 - rss40, per41);
	if (sanitized)
		ok(1, "4.1 per-client RSS bound # SKIP %s", sanitized);
	else
		ok(per41 < PER_CLIENT41_MAX,
		   "RSS growth per 4.1 client with a session and an open file under %u bytes",
		   PER_CLIENT41_MAX);

	st = one_client_many(&n);
	printf("# one client: %u OPENs before status %ld\n", n, st);
	ok(st == NFS4ERR_RESOURCE,
	   "one client opening file after file is refused with RESOURCE (%ld)", st);
	/* Its owner holds no other stateid: the bound is reached at
	 * NFS4_STATE_CLIENT_MAX of its opens, not before nor after. */
	ok(n == NFS4_STATE_CLIENT_MAX, "... after exactly NFS4_STATE_CLIENT_MAX (%u) opens (%u)",
	   NFS4_STATE_CLIENT_MAX, n);
	rss_greedy = rss_kib();
	printf("# RSS after one client's %u opens %ld KiB (+%ld KiB), per open %.0f bytes\n", n,
	     rss_greedy, rss_greedy - rss41,
	     n ? (double)(rss_greedy - rss41) * 1024.0 / n : 0.0);
	for (i = 0; i < CONNS; i++)
		close(fds[i]);
	return tap_done();
}
