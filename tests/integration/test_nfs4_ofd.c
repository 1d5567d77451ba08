/* SPDX-License-Identifier: MIT */
/*
 * NFSv4 byte-range locks as local processes on the server see them
 * (src/nfs4/lock_ops.c, state_lock.c, src/vfs/posix_lock.c): what a
 * client locks is held as an open file description (OFD) lock, so a
 * process on the server cannot take a conflicting lock, and what a local
 * process holds makes LOCK and LOCKT answer DENIED. Every path that
 * drops lock state lets the file system's lock go (LOCKU, CLOSE,
 * RELEASE_LOCKOWNER, a client whose lease ran out losing its state to
 * another client's conflict, a rebooted client's old state), and nfsxd's
 * descriptors come back to what they were. Run against a server with
 * --lease-time 10 (its lease part waits 12.5 s). Last, nfsxd's
 * RLIMIT_NOFILE is lowered for a moment (prlimit) so that it can open
 * nothing: LOCK is RESOURCE in 4.0 and DELAY in 4.1, nothing held.
 *
 * This process is the "local process": it runs on the server's host
 * and locks the exported files through their paths, with OFD locks of
 * its own and, for a holder the server can name, a child holding a
 * classic POSIX lock. nfsxd's lock holders are found in /proc/PID/fd:
 * descriptors of the locked file opened O_NONBLOCK (the open-object
 * cache's are O_PATH or blocking).
 *
 * Run by run-nfs4-ofd.sh:   test_nfs4_ofd PORT BASE NFSXD_PID
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "local_lock.h"
#include "nfs4_state_raw.h"
#include "tap.h"

#define U64MAX NFS4_UINT64_MAX

static const char *base;
static int fd;
static pid_t server;
static struct v4_fh fh_rw;

/* ---- the local process's side ---------------------------------------- */

static char *local_path(const char *name)
{
	static char p[4][1024];
	static unsigned int i;
	char *b = p[i++ % 4];

	snprintf(b, sizeof(p[0]), "%s/rw/%s", base, name);
	return b;
}

/* Could a local process lock the range of file @name now? Return
 * values: as local_lock_try's (0 free, -EAGAIN held, other -errno). */
static int local(const char *name, short type, off_t start, off_t len)
{
	return local_lock_try(local_path(name), type, start, len);
}

/* What F_OFD_GETLK tells a local process about [@start, @start + @len). */
static struct flock local_getlk(const char *name, short type, off_t start, off_t len)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len };
	int lfd = open(local_path(name), O_RDONLY | O_CLOEXEC);

	if (lfd < 0 || fcntl(lfd, F_OFD_GETLK, &fl) < 0)
		fl.l_type = -1;
	if (lfd >= 0)
		close(lfd);
	return fl;
}

/* A child process holding a classic POSIX lock (which has a pid, unlike
 * an OFD lock) until posix_holder_end. */
struct posix_holder {
	pid_t pid;
	int ctl;                /* closed: the child lets go and exits */
};

static bool posix_holder_start(struct posix_holder *h, const char *name, short type,
			       off_t start, off_t len)
{
	int ready[2], ctl[2];
	char c = 0;

	h->pid = -1;
	if (pipe2(ready, O_CLOEXEC) < 0)
		return false;
	if (pipe2(ctl, O_CLOEXEC) < 0) {
		close(ready[0]);
		close(ready[1]);
		return false;
	}
	h->pid = fork();
	if (h->pid == 0) {
		struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = start,
				    .l_len = len };
		int lfd = open(local_path(name), type == F_WRLCK ? O_RDWR : O_RDONLY);

		close(ready[0]);
		close(ctl[1]);
		if (lfd < 0 || fcntl(lfd, F_SETLK, &fl) < 0)
			_exit(1);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		while (read(ctl[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(ready[1]);
	close(ctl[0]);
	h->ctl = ctl[1];
	if (h->pid < 0 || read(ready[0], &c, 1) != 1) {
		close(ready[0]);
		close(h->ctl);
		if (h->pid > 0)
			waitpid(h->pid, NULL, 0);
		h->pid = -1;
		return false;
	}
	close(ready[0]);
	return true;
}

static void posix_holder_end(struct posix_holder *h)
{
	if (h->pid <= 0)
		return;
	close(h->ctl);
	waitpid(h->pid, NULL, 0);
	h->pid = -1;
}

/* ---- nfsxd's descriptors --------------------------------------------- */

/* nfsxd's descriptors open now, and of them the lock holders of file
 * @name (NULL: none counted): O_NONBLOCK descriptors whose path ends in
 * "/name"; *@acc gets the access mode of the last one (-1: none).
 * Return values: the number of descriptors, or -1 when /proc/PID/fd
 * cannot be read (*@holders is -1 then too, so that no "none left"
 * check can pass on a listing it never saw). */
static int server_fds(const char *name, int *holders, int *acc)
{
	char dir[64], p[384], link[1024], info[512];
	struct dirent *d;
	int n = 0;
	DIR *dp;

	if (holders)
		*holders = -1;
	if (acc)
		*acc = -1;
	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)server);
	dp = opendir(dir);
	if (!dp) {
		printf("#   %s: %s\n", dir, strerror(errno));
		return -1;
	}
	if (holders)
		*holders = 0;
	while ((d = readdir(dp))) {
		unsigned int flags = 0;
		size_t nl = name ? strlen(name) : 0;
		ssize_t ll;
		FILE *f;

		if (d->d_name[0] == '.')
			continue;
		n++;
		if (!name)
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, d->d_name);
		ll = readlink(p, link, sizeof(link) - 1);
		if (ll <= (ssize_t)nl)
			continue;
		link[ll] = 0;
		if (link[ll - nl - 1] != '/' || strcmp(link + ll - nl, name) != 0)
			continue;
		snprintf(p, sizeof(p), "/proc/%d/fdinfo/%s", (int)server, d->d_name);
		f = fopen(p, "r");
		while (f && fgets(info, sizeof(info), f))
			if (sscanf(info, "flags: %o", &flags) == 1)
				break;
		if (f)
			fclose(f);
		if ((flags & O_NONBLOCK) && !(flags & O_PATH)) {
			(*holders)++;
			if (acc)
				*acc = (int)(flags & O_ACCMODE);
		}
	}
	closedir(dp);
	return n;
}

static int holders_of(const char *name)
{
	int h = -1;

	server_fds(name, &h, NULL);
	return h;
}

/* ---- LOCK, LOCKT, LOCKU ---------------------------------------------- */

/* Is @r a denial by a local process of [@off, @off + @len) as @type,
 * whose owner is @owner? */
static bool denied_local(const struct v4_lk *r, uint64_t off, uint64_t len,
			 enum nfs_lock_type4 type, const char *owner)
{
	size_t n = strlen(owner);

	if (r->st != NFS4ERR_DENIED) {
		printf("#   status %ld, not DENIED\n", r->st);
		return false;
	}
	if (r->den.offset == off && r->den.length == len && r->den.locktype == type &&
	    r->den.owner.clientid == 0 && r->den.owner.owner.len == n &&
	    memcmp(r->downer, owner, n) == 0)
		return true;
	printf("#   denied: offset %llu length %llu type %u clientid %llx owner '%.*s'\n",
	       (unsigned long long)r->den.offset, (unsigned long long)r->den.length,
	       r->den.locktype, (unsigned long long)r->den.owner.clientid,
	       (int)(r->den.owner.owner.len < 200 ? r->den.owner.owner.len : 200), r->downer);
	printf("#   expected: offset %llu length %llu type %u clientid 0 owner '%s'\n",
	       (unsigned long long)off, (unsigned long long)len, type, owner);
	return false;
}

/* ---- the checks ------------------------------------------------------ */

static clientid4 cid_a, cid_b;
static struct v4_owner oa, ob;
static int baseline;

/* (1) a client's locks, as local processes meet them */
static void test_nfs_holds(void)
{
	struct v4_lowner la = { .name = "ofd-la", .seqid = 1 };
	struct v4_opened f, fr;
	struct v4_owner orr;
	struct flock fl;
	struct v4_lk r;
	int acc = -1;
	long n;

	la.cid = cid_a;
	n = v4_open_name(fd, &oa, &fh_rw, "f1", OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_NONE, &f);
	ok(n == NFS4_OK, "A opens 'f1' for BOTH (%ld)", n);
	ok(holders_of("f1") == 0, "nfsxd holds no lock descriptor of 'f1' before a LOCK");

	n = v4_lock_new(fd, &oa, &f, &la, WRITE_LT, 0, 100, &r);
	ok(n == NFS4_OK, "A: LOCK WRITE [0,100) (%ld)", n);
	ok(holders_of("f1") == 1, "nfsxd holds one descriptor for the lock stateid (%d)",
	   holders_of("f1"));
	server_fds("f1", &(int){ 0 }, &acc);
	ok(acc == O_RDWR, "opened for writing, as a write lock needs (O_RDWR, %d)", acc);
	ok(local("f1", F_WRLCK, 50, 10) == -EAGAIN,
	   "a local process's F_OFD_SETLK WRITE [50,60): EAGAIN");
	ok(local("f1", F_RDLCK, 99, 1) == -EAGAIN, "... READ [99,100): EAGAIN");
	fl = local_getlk("f1", F_RDLCK, 0, 0);
	ok(fl.l_type == F_WRLCK && fl.l_start == 0 && fl.l_len == 100,
	   "F_OFD_GETLK shows a write lock of [0,100) (type %d, %lld+%lld)", fl.l_type,
	   (long long)fl.l_start, (long long)fl.l_len);
	ok(local("f1", F_WRLCK, 100, 50) == 0, "a local WRITE lock of [100,150): free");

	n = v4_unlock(fd, &la, &f.fh, WRITE_LT, 40, 20, NULL);
	ok(n == NFS4_OK, "A: LOCKU [40,60), the middle (%ld)", n);
	ok(local("f1", F_WRLCK, 40, 20) == 0, "the hole [40,60) is free locally");
	ok(local("f1", F_WRLCK, 39, 1) == -EAGAIN && local("f1", F_WRLCK, 60, 1) == -EAGAIN,
	   "[0,40) and [60,100) still held: split as the client asked");
	n = v4_unlock(fd, &la, &f.fh, WRITE_LT, 0, 100, NULL);
	ok(n == NFS4_OK, "A: LOCKU [0,100) (%ld)", n);
	ok(local("f1", F_WRLCK, 0, 0) == 0, "then a local WRITE lock of the whole file: free");
	ok(holders_of("f1") == 0, "and the lock stateid's descriptor is closed (%d)",
	   holders_of("f1"));

	/* read locks, an upgrade to write */
	n = v4_lock_ex(fd, &la, &f.fh, READ_LT, 0, 10, &r);
	server_fds("f1", &(int){ 0 }, &acc);
	ok(n == NFS4_OK && acc == O_RDONLY,
	   "A: LOCK READ [0,10): a descriptor opened for reading only (%ld, %d)", n, acc);
	ok(local("f1", F_RDLCK, 0, 10) == 0 && local("f1", F_WRLCK, 5, 1) == -EAGAIN,
	   "a local READ lock shares it, a local WRITE lock does not");
	n = v4_lock_ex(fd, &la, &f.fh, WRITE_LT, 20, 10, &r);
	server_fds("f1", &(int){ 0 }, &acc);
	ok(n == NFS4_OK && holders_of("f1") == 1 && acc == O_RDWR,
	   "A: LOCK WRITE [20,30): one descriptor still, reopened for writing (%ld, %d, %d)", n,
	   holders_of("f1"), acc);
	ok(local("f1", F_RDLCK, 0, 10) == 0 && local("f1", F_WRLCK, 0, 10) == -EAGAIN &&
	   local("f1", F_RDLCK, 25, 1) == -EAGAIN,
	   "the read lock moved with it, the write lock is held");
	n = v4_lock_ex(fd, &la, &f.fh, WRITE_LT, 1000, U64MAX, &r);
	ok(n == NFS4_OK && local("f1", F_RDLCK, 1ll << 40, 1) == -EAGAIN,
	   "A: LOCK WRITE [1000,end): held to the end of any file (%ld)", n);
	n = v4_lock_ex(fd, &la, &f.fh, WRITE_LT, (1ull << 63) + 10, 10, &r);
	ok(n == NFS4_OK, "A: LOCK WRITE past 2^63, which no local process can name: OK (%ld)",
	   n);
	n = v4_unlock(fd, &la, &f.fh, WRITE_LT, 0, U64MAX, NULL);
	ok(n == NFS4_OK && local("f1", F_WRLCK, 0, 0) == 0 && holders_of("f1") == 0,
	   "A: LOCKU [0,end): all free locally, no descriptor left (%ld)", n);

	/* a read open takes read locks only; the holder is read-only */
	orr = (struct v4_owner){ cid_a, "ofd-open-ro", 1 };
	{
		struct v4_lowner lr = { .cid = cid_a, .name = "ofd-lr", .seqid = 1 };

		n = v4_open_name(fd, &orr, &fh_rw, "f1",
				 OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, &fr);
		n = n == NFS4_OK ? v4_lock_new(fd, &orr, &fr, &lr, READ_LT, 0, 5, &r) : n;
		server_fds("f1", &(int){ 0 }, &acc);
		ok(n == NFS4_OK && acc == O_RDONLY && local("f1", F_WRLCK, 0, 1) == -EAGAIN,
		   "a READ open's READ lock: held on a read-only descriptor (%ld, %d)", n, acc);
		v4_close(fd, &orr, &fr);
		ok(local("f1", F_WRLCK, 0, 0) == 0 && holders_of("f1") == 0,
		   "CLOSE of that open releases it locally, closes its descriptor");
	}
	n = v4_release(fd, cid_a, "ofd-la");
	ok(n == NFS4_OK && holders_of("f1") == 0, "RELEASE_LOCKOWNER: OK, nothing held (%ld)", n);
	v4_close(fd, &oa, &f);
}

/* (2) a local process's locks, as clients meet them */
static void test_local_holds(void)
{
	struct v4_lowner la = { .name = "ofd-la2", .seqid = 1 };
	struct posix_holder ph;
	struct v4_opened f;
	char owner[64];
	struct v4_lk r;
	long n;
	int l;

	la.cid = cid_a;
	n = v4_open_name(fd, &oa, &fh_rw, "f2", OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_NONE, &f);
	ok(n == NFS4_OK, "A opens 'f2' for BOTH (%ld)", n);
	ok(posix_holder_start(&ph, "f2", F_WRLCK, 200, 100),
	   "a local process takes a POSIX WRITE lock of [200,300)");
	snprintf(owner, sizeof(owner), "local process %d", (int)ph.pid);

	n = v4_lock_new(fd, &oa, &f, &la, WRITE_LT, 250, 10, &r);
	ok(denied_local(&r, 200, 100, WRITE_LT, owner),
	   "A: LOCK WRITE [250,260): DENIED, naming the local lock: offset 200, length 100, "
	   "WRITE_LT, clientid 0, owner \"%s\"", owner);
	ok(holders_of("f2") == 0, "no descriptor left behind by the denied LOCK (%d)",
	   holders_of("f2"));
	n = v4_lock_new(fd, &oa, &f, &la, READ_LT, 299, 1, &r);
	ok(denied_local(&r, 200, 100, WRITE_LT, owner),
	   "A: LOCK READ [299,300) (the denied owner sent as new again): DENIED too");
	n = v4_lock_new(fd, &oa, &f, &la, WRITE_LT, 0, 200, &r);
	ok(n == NFS4_OK, "A: LOCK WRITE [0,200), next to it: OK (%ld)", n);
	n = v4_lockt(fd, &f.fh, cid_b, "ofd-lb", WRITE_LT, 250, 1, &r);
	ok(denied_local(&r, 200, 100, WRITE_LT, owner),
	   "B: LOCKT WRITE [250,251): DENIED by the local lock");
	n = v4_lockt(fd, &f.fh, cid_a, "ofd-la2", WRITE_LT, 0, 200, &r);
	ok(n == NFS4_OK, "A: LOCKT of its own range: OK, its own lock is no conflict (%ld)", n);
	n = v4_lockt(fd, &f.fh, cid_b, "ofd-lb", READ_LT, 300, U64MAX, &r);
	ok(n == NFS4_OK, "B: LOCKT READ [300,end): OK (%ld)", n);
	n = v4_lock_ex(fd, &la, &f.fh, WRITE_LT, 250, 10, &r);
	ok(denied_local(&r, 200, 100, WRITE_LT, owner),
	   "A's existing owner: LOCK WRITE [250,260): DENIED");
	ok(local("f2", F_WRLCK, 100, 1) == -EAGAIN, "A's [0,200) is held against the local side");

	posix_holder_end(&ph);
	n = v4_lock_ex(fd, &la, &f.fh, WRITE_LT, 250, 10, &r);
	ok(n == NFS4_OK, "the local process lets go: A's LOCK WRITE [250,260) OK (%ld)", n);
	ok(local("f2", F_RDLCK, 255, 1) == -EAGAIN, "and held locally now");

	/* an OFD lock has no process: the owner says so */
	l = local_lock_hold(local_path("f2"), F_RDLCK, 400, 0);
	ok(l >= 0, "a local process takes an OFD READ lock of [400,end) (%d)", l);
	n = v4_lock_ex(fd, &la, &f.fh, WRITE_LT, 500, 1, &r);
	ok(denied_local(&r, 400, U64MAX, READ_LT, "local process"),
	   "A: LOCK WRITE [500,501): DENIED, READ_LT [400,end), owner \"local process\"");
	n = v4_lock_ex(fd, &la, &f.fh, READ_LT, 500, 1, &r);
	ok(n == NFS4_OK, "A: LOCK READ [500,501): OK, read locks share (%ld)", n);
	if (l >= 0)
		close(l);
	n = v4_unlock(fd, &la, &f.fh, WRITE_LT, 0, U64MAX, NULL);
	ok(n == NFS4_OK && local("f2", F_WRLCK, 0, 0) == 0 && holders_of("f2") == 0,
	   "A: LOCKU [0,end): free locally, no descriptor left (%ld)", n);
	v4_close(fd, &oa, &f);
}

/* (3) the paths that drop lock state with locks held */
static void test_drops(void)
{
	struct v4_lowner la = { .name = "ofd-la3", .seqid = 1 },
			 lb = { .name = "ofd-lb3", .seqid = 1 };
	struct v4_opened fa, fb;
	struct v4_lk r;
	long n;

	la.cid = cid_a;
	lb.cid = cid_b;
	n = v4_open_name(fd, &oa, &fh_rw, "f3",
			 OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_NONE, &fa);
	n = n == NFS4_OK ? v4_open_name(fd, &ob, &fh_rw, "f3",
					OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_NONE, &fb) : n;
	ok(n == NFS4_OK, "A and B open 'f3' (%ld)", n);
	n = v4_lock_new(fd, &oa, &fa, &la, WRITE_LT, 0, 10, &r);
	n = n == NFS4_OK ? v4_lock_new(fd, &ob, &fb, &lb, READ_LT, 20, 10, &r) : n;
	ok(n == NFS4_OK && holders_of("f3") == 2,
	   "A: WRITE [0,10), B: READ [20,30): two descriptors, one a lock stateid (%ld, %d)", n,
	   holders_of("f3"));
	n = v4_release(fd, cid_a, "ofd-la3");
	ok(n == NFS4ERR_LOCKS_HELD && local("f3", F_WRLCK, 5, 1) == -EAGAIN,
	   "RELEASE_LOCKOWNER with a lock held: LOCKS_HELD, the lock stays (%ld)", n);
	n = v4_close(fd, &oa, &fa);
	ok(n == NFS4_OK, "A: CLOSE with its lock held (%ld)", n);
	ok(local("f3", F_WRLCK, 0, 10) == 0 && holders_of("f3") == 1,
	   "the CLOSE released it locally and closed its descriptor (%d left: B's)",
	   holders_of("f3"));
	ok(local("f3", F_WRLCK, 25, 1) == -EAGAIN, "B's lock holds");
	n = v4_unlock(fd, &lb, &fb.fh, WRITE_LT, 0, U64MAX, NULL);
	n = n == NFS4_OK ? v4_release(fd, cid_b, "ofd-lb3") : n;
	ok(n == NFS4_OK && local("f3", F_WRLCK, 0, 0) == 0 && holders_of("f3") == 0,
	   "B: LOCKU, RELEASE_LOCKOWNER: all free, no descriptor (%ld)", n);
	v4_close(fd, &ob, &fb);

	/* a client that reboots (a new verifier): its old state goes */
	{
		uint8_t v1[8] = "ofd-v1", v2[8] = "ofd-v2";
		struct v4_lowner le = { .name = "ofd-le", .seqid = 1 };
		struct v4_owner oe = { 0, "ofd-open-e", 1 };
		struct v4_opened fe;
		clientid4 cid_e = 0, cid_e2 = 0;

		n = v4_client_verf(fd, 0, "nfsx-ofd-client-e", v1, true, &cid_e);
		oe.cid = le.cid = cid_e;
		n = n == NFS4_OK ? v4_open_name(fd, &oe, &fh_rw, "f4",
						OPEN4_SHARE_ACCESS_BOTH,
						OPEN4_SHARE_DENY_NONE, &fe) : n;
		n = n == NFS4_OK ? v4_lock_new(fd, &oe, &fe, &le, WRITE_LT, 0, U64MAX, &r) : n;
		ok(n == NFS4_OK && local("f4", F_RDLCK, 0, 1) == -EAGAIN,
		   "client E: LOCK WRITE [0,end) of 'f4', held locally (%ld)", n);
		n = v4_client_verf(fd, 0, "nfsx-ofd-client-e", v2, true, &cid_e2);
		ok(n == NFS4_OK && cid_e2 != cid_e,
		   "E reboots: a new SETCLIENTID and CONFIRM (%ld)",
		   n);
		/* the old instance's state is kept until it asks or someone
		 * meets it (clients.c): B's LOCKT meets it */
		n = v4_lockt(fd, &fe.fh, cid_b, "ofd-lb4", WRITE_LT, 0, 1, &r);
		ok(n == NFS4_OK, "B's LOCKT of 'f4' meets the old instance's lock, which goes: "
		   "OK (%ld)", n);
		ok(local("f4", F_WRLCK, 0, 0) == 0 && holders_of("f4") == 0,
		   "its old state went with its lock: free locally, no descriptor");
	}
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* (3) a client whose lease ran out loses its lock to another client's
 * conflict: locally too */
static void test_expiry(void)
{
	struct v4_lowner lc = { .name = "ofd-lc", .seqid = 1 };
	struct v4_owner oc = { 0, "ofd-open-c", 1 };
	struct v4_opened fc;
	clientid4 cid_c = 0;
	double t0, t;
	struct v4_lk r;
	long n;

	n = v4_client(fd, 0, "nfsx-ofd-client-c", true, &cid_c);
	oc.cid = lc.cid = cid_c;
	n = n == NFS4_OK ? v4_open_name(fd, &oc, &fh_rw, "f5",
					OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_NONE, &fc) : n;
	n = n == NFS4_OK ? v4_lock_new(fd, &oc, &fc, &lc, WRITE_LT, 0, 100, &r) : n;
	ok(n == NFS4_OK && local("f5", F_WRLCK, 0, 1) == -EAGAIN,
	   "client C: LOCK WRITE [0,100) of 'f5', held locally (%ld)", n);
	/* C says nothing for 12.5 s (the lease is 10 s); A and B renew */
	t0 = mono();
	for (t = t0; t < t0 + 12.5; t = mono()) {
		v4_renew(fd, cid_a);
		v4_renew(fd, cid_b);
		usleep(1500 * 1000);
	}
	n = v4_lockt(fd, &fc.fh, cid_b, "ofd-lb5", WRITE_LT, 50, 1, &r);
	ok(n == NFS4_OK, "after C's lease: B's LOCKT WRITE [50,51) meets C's lock, which goes "
	   "(courtesy): OK (%ld)", n);
	ok(local("f5", F_WRLCK, 0, 0) == 0 && holders_of("f5") == 0,
	   "C's lock is gone locally too, its descriptor closed");
}

/* nfsxd's RLIMIT_NOFILE lowered to its lowest free descriptor number
 * (nothing can be opened), the old one into @old. */
static bool server_nofile_low(struct rlimit *old)
{
	struct rlimit low;
	int i;

	if (prlimit(server, RLIMIT_NOFILE, NULL, old) < 0)
		return false;
	for (i = 0;; i++) {
		char p[64];

		snprintf(p, sizeof(p), "/proc/%d/fd/%d", (int)server, i);
		if (access(p, F_OK) != 0)
			break;
	}
	low = *old;
	low.rlim_cur = (rlim_t)i;
	return prlimit(server, RLIMIT_NOFILE, &low, NULL) == 0;
}

/* Out of descriptors: RESOURCE (4.0), nothing held; then OK. */
static void test_emfile(void)
{
	struct v4_lowner la = { .name = "ofd-la6", .seqid = 1 };
	struct v4_opened f;
	struct rlimit old;
	struct v4_lk r;
	uint32_t seq;
	long n;

	la.cid = cid_a;
	n = v4_open_name(fd, &oa, &fh_rw, "f6", OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_NONE, &f);
	ok(n == NFS4_OK, "A opens 'f6' (%ld)", n);
	if (!server_nofile_low(&old)) {
		ok(false, "prlimit of nfsxd: %s", strerror(errno));
		return;
	}
	ok(true, "nfsxd's RLIMIT_NOFILE lowered to its lowest free descriptor");
	seq = oa.seqid;
	n = v4_lock_new(fd, &oa, &f, &la, WRITE_LT, 0, 10, &r);
	ok(n == NFS4ERR_RESOURCE && oa.seqid == seq,
	   "A: LOCK with no descriptor to open: RESOURCE, the seqid not counted (%ld)", n);
	ok(local("f6", F_WRLCK, 0, 0) == 0, "nothing held locally");
	prlimit(server, RLIMIT_NOFILE, &old, NULL);
	n = v4_lock_new(fd, &oa, &f, &la, WRITE_LT, 0, 10, &r);
	ok(n == NFS4_OK && local("f6", F_WRLCK, 0, 1) == -EAGAIN,
	   "the limit back: the same LOCK again: OK, held locally (%ld)", n);
	n = v4_unlock(fd, &la, &f.fh, WRITE_LT, 0, 10, NULL);
	ok(n == NFS4_OK && holders_of("f6") == 0, "LOCKU: no descriptor left (%ld)", n);
	v4_close(fd, &oa, &f);
}

/* SEQUENCE, PUTFH @fh, @op on session @ses: @op's status, @op's
 * result in @s. */
static long on_fh41(struct v4_session *ses, const struct v4_fh *fh, const struct nfs_argop4 *op,
		    struct v4_res *s)
{
	struct nfs_argop4 ops[3];

	v4op_seq_next(&ops[0], ses, 0, false);
	v4op_putfh(&ops[1], fh);
	ops[2] = *op;
	if (!v4_call41(fd, ops, 3, s))
		return -1;
	return s->nops == 3 ? v4_op_status(s, 2) : (long)s->status;
}

/* The same in minor version 1: DELAY (4.1 has no RESOURCE for it). */
static void test_emfile41(void)
{
	struct v4_session ses = { 0 };
	struct nfs_argop4 ops[4], op;
	struct stateid4 osid = { 0 }, lsid = { 0 };
	struct rlimit old;
	struct v4_fh fh = { 0 };
	struct v4_res s;
	long n;

	n = v4_session_open(fd, "nfsx-ofd-client-41", 1, 65536, 65536, 4096, 4, &ses);
	v4op_seq_next(&ops[0], &ses, 0, false);
	v4op_reclaim_complete(&ops[1], false);
	v4_res_init(&s);
	n = n == NFS4_OK && v4_call41(fd, ops, 2, &s) ? (long)s.status : n;
	v4_res_free(&s);
	ok(n == NFS4_OK, "4.1: a session, RECLAIM_COMPLETE (%ld)", n);
	v4op_seq_next(&ops[0], &ses, 0, false);
	v4op_putfh(&ops[1], &fh_rw);
	v4op_open(&ops[2], 0, OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_NONE, ses.clientid,
		  "ofd-41-open", "f6");
	v4op_simple(&ops[3], OP_GETFH);
	v4_res_init(&s);
	n = v4_call41(fd, ops, 4, &s) ? (s.nops >= 3 ? v4_op_status(&s, 2) : (long)s.status) : -1;
	if (n != NFS4_OK)
		printf("#   OPEN: COMPOUND %u, %u results\n", s.status, s.nops);
	if (n == NFS4_OK) {
		osid = s.ops[2].u.opopen.u.resok4.stateid;
		v4_fh_of_res(&s, 3, &fh);
	}
	v4_res_free(&s);
	ok(n == NFS4_OK, "4.1: OPEN of 'f6' (%ld)", n);
	ok(server_nofile_low(&old), "nfsxd's RLIMIT_NOFILE lowered again");
	v4op_lock_new(&op, WRITE_LT, false, 0, 10, 0, &osid, 0, ses.clientid, "ofd-41-lock");
	v4_res_init(&s);
	n = on_fh41(&ses, &fh, &op, &s);
	v4_res_free(&s);
	ok(n == NFS4ERR_DELAY, "4.1: LOCK with no descriptor to open: DELAY (%ld)", n);
	prlimit(server, RLIMIT_NOFILE, &old, NULL);
	v4_res_init(&s);
	n = on_fh41(&ses, &fh, &op, &s);
	if (n == NFS4_OK)
		lsid = s.ops[2].u.oplock.u.resok4.lock_stateid;
	v4_res_free(&s);
	ok(n == NFS4_OK && local("f6", F_WRLCK, 5, 1) == -EAGAIN,
	   "4.1: the limit back, the same LOCK: OK, held locally (%ld)", n);
	v4op_locku(&op, WRITE_LT, 0, &lsid, 0, U64MAX);
	v4_res_init(&s);
	n = on_fh41(&ses, &fh, &op, &s);
	v4_res_free(&s);
	ok(n == NFS4_OK && local("f6", F_WRLCK, 0, 0) == 0 && holders_of("f6") == 0,
	   "4.1: LOCKU: free locally, no descriptor (%ld)", n);
	v4op_close(&op, 0, &osid);
	v4_res_init(&s);
	on_fh41(&ses, &fh, &op, &s);
	v4_res_free(&s);
}

int main(int argc, char **argv)
{
	int now;
	long n;

	if (argc != 4) {
		fprintf(stderr, "usage: %s PORT BASE NFSXD_PID\n", argv[0]);
		return 2;
	}
	base = argv[2];
	server = (pid_t)atoi(argv[3]);
	signal(SIGPIPE, SIG_IGN);
	fd = rpc_connect((uint16_t)atoi(argv[1]), 5000);
	if (fd < 0) {
		printf("Bail out! cannot connect\n");
		return 1;
	}
	if (v4_walk(fd, v4_path(base, "rw"), &fh_rw) != NFS4_OK) {
		printf("Bail out! cannot walk to the export\n");
		return 1;
	}
	n = v4_client(fd, 0, "nfsx-ofd-client-a", true, &cid_a);
	n = n == NFS4_OK ? v4_client(fd, 0, "nfsx-ofd-client-b", true, &cid_b) : n;
	if (n != NFS4_OK) {
		printf("Bail out! no clients (%ld)\n", n);
		return 1;
	}
	oa = (struct v4_owner){ cid_a, "ofd-open-a", 1 };
	ob = (struct v4_owner){ cid_b, "ofd-open-b", 1 };
	/* every file opened once first: the open-object cache then holds
	 * what it will hold, and nfsxd's descriptors are the baseline */
	{
		static const char *const names[] = { "f1", "f2", "f3", "f4", "f5", "f6" };
		struct v4_opened o;
		size_t i;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (v4_open_name(fd, &oa, &fh_rw, names[i],
					 OPEN4_SHARE_ACCESS_BOTH,
					 OPEN4_SHARE_DENY_NONE, &o) == NFS4_OK)
				v4_close(fd, &oa, &o);
	}
	baseline = server_fds(NULL, NULL, NULL);
	ok(baseline > 0, "nfsxd's descriptors before any lock: %d", baseline);

	test_nfs_holds();
	test_local_holds();
	test_drops();
	test_expiry();
	test_emfile();
	test_emfile41();

	/* the descriptors of the lock stateids are all closed; others
	 * (a callback probe's connection) may come and go for a moment */
	for (n = 0; n < 20 && (now = server_fds(NULL, NULL, NULL)) != baseline; n++)
		usleep(100 * 1000);
	now = server_fds(NULL, NULL, NULL);
	if (now != baseline) {
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "ls -l /proc/%d/fd | sed 's/^/#   /'", (int)server);
		if (system(cmd) != 0)
			printf("#   (no listing)\n");
	}
	ok(now >= 0 && now == baseline,
	   "nfsxd's descriptors after everything: back to %d (%d)", baseline, now);
	close(fd);
	return tap_done();
}
