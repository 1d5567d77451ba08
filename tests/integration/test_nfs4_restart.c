/* SPDX-License-Identifier: MIT */
/*
 * NFSv4.0 restart recovery on the wire (RFC 7530 sections 9.6.2, 9.6.3,
 * 16.16.5, 16.10.5): the record of clients in STATE_DIR/nfs4-clients,
 * the grace period after nfsxd is killed with SIGKILL and started again,
 * and what may be done in it: OPEN CLAIM_PREVIOUS and LOCK reclaims by a
 * client of the previous run; GRACE for other OPENs, LOCKs, LOCKT, I/O
 * with the anonymous stateid and REMOVE; RECLAIM_BAD for a client the
 * previous run did not know; NO_GRACE after it, and no grace at all when
 * no client was ever confirmed (src/nfs4/recovery.c); a reclaimed lock
 * held again as an OFD lock that local processes meet (lock_ops.c).
 * Where RFC 7530 leaves a choice the test expects what knfsd does.
 *
 * The wrapper (run-nfs4-restart.sh) starts two servers, both with
 * --lease-time 10: server 1 (PORT1, state directory STATE1) and server 2
 * (PORT2, a fresh STATE2). The test asks it to kill one with SIGKILL and
 * start it again on the same port and state directory by writing
 * "restart 1" or "restart 2" to the FIFO CTL; the wrapper answers "ok"
 * on the FIFO ACK once the new server accepts connections.
 *
 * Run as:   test_nfs4_restart PORT1 PORT2 BASE STATE1 STATE2 CTL ACK
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "local_lock.h"
#include "nfs4_state_raw.h"
#include "tap.h"

static const char *base, *state1, *state2, *ctl, *ack;
static uint16_t port1, port2;
static int fd;
static struct v4_fh fh_rw;

static char *path_of(const char *rel)
{
	return v4_path(base, rel);
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void nap(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

/* Ask the wrapper for @cmd: true when it answered "ok". */
static bool ask(const char *cmd)
{
	char line[64] = "";
	FILE *f;
	int w;

	w = open(ctl, O_WRONLY);
	if (w < 0)
		return false;
	dprintf(w, "%s\n", cmd);
	close(w);
	f = fopen(ack, "r");
	if (!f)
		return false;
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	fclose(f);
	return strcmp(line, "ok\n") == 0;
}

/* Connect to @port and walk to the export: false on failure. */
static bool connect_to(uint16_t port)
{
	if (fd >= 0)
		close(fd);
	fd = rpc_connect(port, 5000);
	return fd >= 0 && v4_walk(fd, path_of("rw"), &fh_rw) == NFS4_OK;
}

/* ---- calls ------------------------------------------------------------ */

/* OPEN CLAIM_NULL of @name in rw by @o, confirmed when asked. */
static long open_null(struct v4_owner *o, const char *name, struct v4_opened *r)
{
	struct nfs_argop4 op;

	v4op_open(&op, o->seqid, OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_NONE, o->cid,
		  o->name, name);
	return v4_open_conf(fd, o, 0, &fh_rw, &op, r);
}

/* OPEN CLAIM_PREVIOUS of the file @fh by @o (not confirmed here). */
static long open_prev(struct v4_owner *o, const struct v4_fh *fh, struct v4_opened *r)
{
	struct nfs_argop4 op;

	v4op_open_previous(&op, o->seqid, OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_NONE,
			   o->cid, o->name);
	return v4_open_in(fd, o, 0, fh, &op, r);
}

static long simple_on(const struct v4_fh *fh, const struct nfs_argop4 *op)
{
	struct v4_res s;
	long st;

	v4_res_init(&s);
	st = v4_on_fh(fd, 0, fh, op, &s);
	v4_res_free(&s);
	return st;
}

/* A new lock-owner's LOCK on @r's file; the lock stateid into @out. */
static long lock_new(struct v4_owner *o, const struct v4_opened *r, const char *lowner,
		     bool reclaim, uint64_t off, uint64_t len, struct stateid4 *out)
{
	struct nfs_argop4 op;
	struct v4_res s;
	long st;

	v4op_lock_new(&op, WRITE_LT, reclaim, off, len, o->seqid, &r->sid, 1, o->cid, lowner);
	v4_res_init(&s);
	st = v4_on_fh(fd, 0, &r->fh, &op, &s);
	if (st == NFS4_OK && out)
		*out = s.ops[1].u.oplock.u.resok4.lock_stateid;
	v4_res_free(&s);
	if (v4_seqid_counted(st))
		o->seqid++;
	return st;
}

static long remove_name(const char *name)
{
	struct nfs_argop4 op;

	v4op_remove(&op, name);
	return simple_on(&fh_rw, &op);
}

/* Does the file @state/nfs4-clients hold the line "+HEX" of @id? */
static bool recorded(const char *state, const char *id)
{
	char want[600], line[1200], path[1024];
	size_t i, n = 0;
	bool found = false;
	FILE *f;

	want[n++] = '+';
	for (i = 0; id[i] && n < sizeof(want) - 3; i++)
		n += (size_t)snprintf(want + n, sizeof(want) - n, "%02x", (unsigned char)id[i]);
	want[n++] = '\n';
	want[n] = 0;
	snprintf(path, sizeof(path), "%s/nfs4-clients", state);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (strcmp(line, want) == 0)
			found = true;
	fclose(f);
	return found;
}

static bool exists(const char *rel)
{
	struct stat st;

	return stat(path_of(rel), &st) == 0;
}

/* Could a local process take an OFD write lock of [@start, @start + @len)
 * of @rel now? Return values: as local_lock_try's (0 free, -EAGAIN
 * held, other -errno), so that neither "held" nor "free" can pass when
 * the file cannot be opened. */
static int local_write(const char *rel, off_t start, off_t len)
{
	return local_lock_try(path_of(rel), F_WRLCK, start, len);
}

/* ---- the checks ------------------------------------------------------- */

#define ID_A "nfsx-restart-client-a"
#define ID_C "nfsx-restart-client-c"
#define TEXT "written before the crash\n"

static void test_restart(void)
{
	static const uint8_t v1[8] = "verf-one", v2[8] = "verf-two";
	struct v4_owner oa = { 0, "restart-open-a", 1 }, on = { 0, "restart-open-n", 1 },
		     oc = { 0, "restart-open-c", 1 };
	struct v4_opened a, r, x;
	struct stateid4 old_sid, lsid;
	struct v4_fh fh_data;
	struct nfs_argop4 op;
	clientid4 cid, old_cid, cid_c;
	double t0, end;
	char buf[128];
	long n;

	/* before: client A opens, writes and locks */
	n = v4_client_verf(fd, 0, ID_A, v1, true, &cid);
	ok(n == NFS4_OK, "server 1: client A confirmed (%ld)", n);
	oa.cid = cid;
	n = open_null(&oa, "data", &a);
	ok(n == NFS4_OK, "A opens 'data' (%ld)", n);
	fh_data = a.fh;
	v4op_write(&op, &a.sid, 0, FILE_SYNC4, TEXT, (uint32_t)strlen(TEXT));
	n = simple_on(&a.fh, &op);
	ok(n == NFS4_OK, "A writes to it (%ld)", n);
	n = lock_new(&oa, &a, "restart-lock-a", false, 0, 10, NULL);
	ok(n == NFS4_OK, "A: LOCK WRITE [0,10) (%ld)", n);
	ok(local_write("rw/data", 0, 10) == -EAGAIN, "a local process cannot lock [0,10)");
	ok(recorded(state1, ID_A), "STATE1/nfs4-clients lists A: the hex of its id string");
	old_sid = a.sid;
	old_cid = cid;

	/* kill -9, start again on the same port and state directory */
	ok(ask("restart 1") && connect_to(port1),
	   "server 1 killed with SIGKILL and started again; connected");
	ok(local_write("rw/data", 0, 10) == 0, "the killed server's lock went with it: free locally");
	t0 = mono();
	n = v4_renew(fd, old_cid);
	ok(n == NFS4ERR_STALE_CLIENTID, "A's clientid of the previous run: RENEW is "
	   "STALE_CLIENTID (%ld)", n);
	n = v4_read_str(fd, &fh_data, &old_sid, 0, sizeof(buf) - 1, buf, sizeof(buf));
	ok(n == NFS4ERR_STALE_STATEID, "A's open stateid of the previous run: READ is "
	   "STALE_STATEID (%ld)", n);
	n = v4_client_verf(fd, 0, ID_A, v2, true, &cid);
	ok(n == NFS4_OK && cid != old_cid,
	   "A's SETCLIENTID with the same id, a new verifier, and CONFIRM: OK, a new "
	   "clientid (%ld)", n);
	oa = (struct v4_owner){ cid, "restart-open-a", 1 };
	on.cid = cid;

	/* in grace: only reclaims */
	n = open_null(&on, "data", &x);
	ok(n == NFS4ERR_GRACE, "in grace: OPEN CLAIM_NULL is GRACE (%ld)", n);
	n = v4_read_str(fd, &fh_data, NULL, 0, sizeof(buf) - 1, buf, sizeof(buf));
	ok(n == NFS4ERR_GRACE, "in grace: READ with the anonymous stateid is GRACE (%ld)", n);
	n = remove_name("victim");
	ok(n == NFS4ERR_GRACE && exists("rw/victim"),
	   "in grace: REMOVE is GRACE, the file stays (%ld)", n);

	n = open_prev(&oa, &fh_data, &r);
	ok(n == NFS4_OK, "in grace: A's OPEN CLAIM_PREVIOUS (PUTFH of the file, delegate_type "
	   "NONE): OK (%ld)", n);
	ok(n == NFS4_OK && !(r.rflags & OPEN4_RESULT_CONFIRM),
	   "its rflags ask no OPEN_CONFIRM: a reclaim confirms the owner (knfsd) (0x%x)",
	   r.rflags);
	n = v4_read_str(fd, &fh_data, &r.sid, 0, sizeof(buf) - 1, buf, sizeof(buf));
	ok(n == NFS4_OK && strcmp(buf, TEXT) == 0,
	   "READ with the reclaimed open's stateid: OK, the data (%ld)", n);
	n = lock_new(&oa, &r, "restart-lock-a", true, 0, 10, &lsid);
	ok(n == NFS4_OK, "in grace: A's LOCK with reclaim set: OK (%ld)", n);
	ok(local_write("rw/data", 0, 10) == -EAGAIN && local_write("rw/data", 10, 10) == 0,
	   "the reclaimed lock is held again: a local process cannot lock [0,10)");
	n = lock_new(&oa, &r, "restart-lock-a2", false, 20, 10, NULL);
	ok(n == NFS4ERR_GRACE, "in grace: a LOCK without reclaim is GRACE (%ld)", n);
	/* GRACE is no exempt status, and knfsd decides it after the
	 * open-owner's seqid is checked, so it counts */
	n = open_prev(&oa, &fh_data, &x);
	ok(n == NFS4_OK, "A's next OPEN CLAIM_PREVIOUS with the open-owner's seqid after that "
	   "LOCK's: OK, GRACE was counted (RFC 7530 9.1.7, knfsd) (%ld)", n);
	/* that OPEN upgraded A's open stateid: its seqid is x's now */
	r.sid = x.sid;
	v4op_lockt(&op, WRITE_LT, 0, 100, cid, "restart-lock-a");
	n = simple_on(&fh_data, &op);
	ok(n == NFS4ERR_GRACE, "in grace: LOCKT is GRACE (%ld)", n);

	/* a client the previous run did not know */
	n = v4_client_verf(fd, 0, ID_C, v1, true, &cid_c);
	ok(n == NFS4_OK, "in grace: a new client C confirmed (%ld)", n);
	oc.cid = cid_c;
	n = open_prev(&oc, &fh_data, &x);
	ok(n == NFS4ERR_RECLAIM_BAD, "in grace: C's OPEN CLAIM_PREVIOUS is RECLAIM_BAD, C was "
	   "not a client of the previous run (knfsd's nfs4_check_open_reclaim) (%ld)", n);
	printf("# the checks in grace took %.1f s of the 10 s lease\n", mono() - t0);

	/* grace ends one lease after the start; A renews meanwhile */
	end = t0 + 14;
	while ((n = v4_read_str(fd, &fh_data, NULL, 0, sizeof(buf) - 1, buf, sizeof(buf))) ==
	       NFS4ERR_GRACE && mono() < end) {
		v4_renew(fd, cid);
		v4_renew(fd, cid_c);
		nap(0.5);
	}
	/* the bounds are loose: the server started a moment before t0, and
	 * the polls are 0.5 s apart */
	ok(n == NFS4_OK && mono() - t0 >= 6,
	   "the grace period lasts about a lease (10 s) after the restart: an anonymous READ "
	   "is OK after %.1f s (%ld)", mono() - t0, n);
	n = open_null(&on, "data", &x);
	ok(n == NFS4_OK, "after grace: OPEN CLAIM_NULL is OK (%ld)", n);
	n = open_prev(&oa, &fh_data, &x);
	ok(n == NFS4ERR_NO_GRACE, "after grace: OPEN CLAIM_PREVIOUS is NO_GRACE (%ld)", n);
	n = lock_new(&oa, &r, "restart-lock-a3", true, 40, 10, NULL);
	ok(n == NFS4ERR_NO_GRACE, "after grace: a LOCK reclaim is NO_GRACE (%ld)", n);
	v4op_lockt(&op, WRITE_LT, 0, 10, cid_c, "c-lock");
	n = simple_on(&fh_data, &op);
	ok(n == NFS4ERR_DENIED, "the lock A reclaimed holds: C's LOCKT of [0,10) is DENIED "
	   "(%ld)", n);
	n = remove_name("victim");
	ok(n == NFS4_OK && !exists("rw/victim"), "after grace: REMOVE is OK (%ld)", n);
	ok(recorded(state1, ID_A) && recorded(state1, ID_C),
	   "STATE1/nfs4-clients lists A and C now");
}

/* A state directory in which no client was ever confirmed: no grace. */
static void test_fresh(void)
{
	static const uint8_t v[8] = "verf-new";
	struct v4_owner oe = { 0, "fresh-open-e", 1 };
	struct v4_opened x;
	struct v4_fh fh;
	clientid4 cid;
	char buf[64];
	long n;

	ok(connect_to(port2), "server 2 (a fresh state directory): connected");
	n = v4_client_verf(fd, 0, "nfsx-restart-client-unconfirmed", v, false, &cid);
	ok(n == NFS4_OK, "server 2: a SETCLIENTID never confirmed (%ld)", n);
	ok(!recorded(state2, "nfsx-restart-client-unconfirmed"),
	   "STATE2/nfs4-clients does not list the unconfirmed client");
	ok(ask("restart 2") && connect_to(port2),
	   "server 2 killed with SIGKILL and started again; connected");
	n = v4_client_verf(fd, 0, "nfsx-restart-client-e", v, true, &cid);
	ok(n == NFS4_OK, "client E confirmed (%ld)", n);
	oe.cid = cid;
	n = open_null(&oe, "data2", &x);
	ok(n == NFS4_OK, "at once: OPEN CLAIM_NULL is OK, no grace period (%ld)", n);
	n = v4_read_str(fd, &x.fh, NULL, 0, sizeof(buf) - 1, buf, sizeof(buf));
	ok(n == NFS4_OK, "at once: READ with the anonymous stateid is OK (%ld)", n);
	fh = x.fh;
	n = open_prev(&oe, &fh, &x);
	ok(n == NFS4ERR_NO_GRACE, "OPEN CLAIM_PREVIOUS is NO_GRACE (%ld)", n);
	n = open_null(&oe, "data2", &x);
	ok(n == NFS4_OK, "the owner's next OPEN with the seqid after it: OK (%ld)", n);
}

int main(int argc, char **argv)
{
	if (argc != 8) {
		fprintf(stderr, "usage: %s PORT1 PORT2 BASE STATE1 STATE2 CTL ACK\n", argv[0]);
		return 2;
	}
	port1 = (uint16_t)atoi(argv[1]);
	port2 = (uint16_t)atoi(argv[2]);
	base = argv[3];
	state1 = argv[4];
	state2 = argv[5];
	ctl = argv[6];
	ack = argv[7];
	fd = -1;
	if (!connect_to(port1)) {
		printf("Bail out! cannot connect to server 1\n");
		return 1;
	}
	test_restart();
	test_fresh();
	close(fd);
	return tap_done();
}
