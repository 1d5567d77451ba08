// SPDX-License-Identifier: MIT
/*
 * TAP integration test of exports reload (SIGHUP) and host name client
 * rules, with the raw RPC client on connections kept open across the
 * reloads.
 *
 *   test_reload init FILE BASE      write the first exports file
 *   test_reload run PORT BASE FILE PID LOG
 *
 * run-reload.sh creates BASE/{keep,toro,gone,new,named,wild,lwild},
 * writes the first exports file with "init", starts nfsxd (PID, log in
 * LOG) and runs "run", which:
 * 1. checks the first set (rw everywhere; "localhost" and "local*" admit
 *    127.0.0.1, "*.invalid" does not), keeping handles;
 * 2. rewrites the file (toro becomes ro, gone goes, new comes, named's
 *    client becomes another host, wild's becomes localhost), sends
 *    SIGHUP and checks, on the connection opened before: it still
 *    works, old handles of kept exports still work, EXPORT lists the new
 *    set, new mounts, toro refuses MKDIR with ROFS, gone's handle is
 *    STALE, named's handle is refused, and nfsxd holds no descriptor of
 *    gone any more while keep's are the same ones;
 * 3. writes a malformed file, SIGHUP: the log names FILE:LINE and the
 *    previous set still serves;
 * 4. reloads 20 times, alternating two sets, while two threads keep
 *    calling GETATTR on their own connections: no call may fail.
 * Host name checks run only when /etc/hosts names 127.0.0.1 "localhost"
 * first (then no lookup ever leaves the machine); otherwise the host
 * name exports are left out and those checks are skipped.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rpc_client.h"
#include "tap.h"

#define TMO 10000

#define MNTPROC_MNT 1
#define MNTPROC_DUMP 2
#define MNTPROC_EXPORT 5
#define MNT3_OK 0
#define MNT3ERR_ACCES 13

#define NFSPROC_NULL 0
#define NFSPROC_GETATTR 1
#define NFSPROC_MKDIR 9
#define NFS3_OK 0
#define NFS3ERR_ACCES 13
#define NFS3ERR_ROFS 30
#define NFS3ERR_STALE 70

static uint16_t port;
static const char *base, *file, *logpath;
static pid_t pid;
static bool names;

struct fh {
	uint32_t len;
	uint8_t d[64];
};

/* ---- calls ------------------------------------------------------------- */

/* Xids from several threads (rpc_next_xid() is for one thread). */
static atomic_uint next_xid;

/* One call as root (AUTH_SYS 0/0); results in *body (valid until the next
 * call with the same store). Returns false on no reply or a non-SUCCESS
 * accept. */
static bool call(int fd, uint32_t prog, uint32_t proc, const struct rpc_buf *args,
		 struct rpc_buf *store, struct rpc_cur *body)
{
	struct rpc_buf cred;
	struct rpc_reply r;
	struct rpc_call c;
	int rc;

	rpc_buf_init(&cred);
	rpc_authsys_encode(&cred, 0, "nfsx-reload", 0, 0, NULL, 0);
	rpc_call_init(&c, atomic_fetch_add(&next_xid, 1), prog, 3, proc);
	c.cred_flavor = AUTH_SYS;
	c.cred_body = cred.data;
	c.cred_len = cred.len;
	c.args = args ? args->data : NULL;
	c.args_len = args ? args->len : 0;
	rpc_buf_reset(store);
	memset(&r, 0, sizeof(r));
	rc = rpc_call_simple(fd, &c, &r, store, TMO);
	rpc_buf_free(&cred);
	body->p = r.body;
	body->n = r.body_len;
	body->bad = false;
	if (rc != 1 || r.reply_stat != RPC_MSG_ACCEPTED || r.accept_stat != RPC_SUCCESS) {
		char b[200];

		printf("#   call %u/%u: %s\n", prog, proc,
		       rc == 1 ? rpc_reply_str(&r, b, sizeof(b)) : "no reply");
		body->bad = true;
		return false;
	}
	return true;
}

static char *path_of(const char *name)
{
	static char p[8][4096];
	static int i;

	i = (i + 1) % 8;
	snprintf(p[i], sizeof(p[i]), "%s/%s", base, name);
	return p[i];
}

/* MNT: the status (-1: no or bad reply); the handle on MNT3_OK. */
static long mnt(int fd, const char *name, struct fh *fh)
{
	struct rpc_buf a, s;
	struct rpc_cur c;
	long st = -1;

	rpc_buf_init(&a);
	rpc_buf_init(&s);
	rpc_buf_put_string(&a, path_of(name));
	if (call(fd, PROG_MOUNT, MNTPROC_MNT, &a, &s, &c)) {
		st = rpc_cur_u32(&c);
		if (st == MNT3_OK) {
			uint32_t l;
			const uint8_t *p = rpc_cur_opaque(&c, &l, 64);

			if (p && fh) {
				fh->len = l;
				memcpy(fh->d, p, l);
			}
		}
		if (c.bad)
			st = -1;
	}
	rpc_buf_free(&a);
	rpc_buf_free(&s);
	return st;
}

static long getattr(int fd, const struct fh *fh)
{
	struct rpc_buf a, s;
	struct rpc_cur c;
	long st = -1;

	rpc_buf_init(&a);
	rpc_buf_init(&s);
	rpc_buf_put_opaque(&a, fh->d, fh->len);
	if (call(fd, PROG_NFS, NFSPROC_GETATTR, &a, &s, &c)) {
		st = rpc_cur_u32(&c);
		if (st == NFS3_OK)
			rpc_cur_skip(&c, 84);
		if (c.bad || c.n)
			st = -1;
	}
	rpc_buf_free(&a);
	rpc_buf_free(&s);
	return st;
}

/* MKDIR dir/name with no attributes set: the status. */
static long mkdir_in(int fd, const struct fh *dir, const char *name)
{
	struct rpc_buf a, s;
	struct rpc_cur c;
	long st = -1;
	int i;

	rpc_buf_init(&a);
	rpc_buf_init(&s);
	rpc_buf_put_opaque(&a, dir->d, dir->len);
	rpc_buf_put_string(&a, name);
	for (i = 0; i < 6; i++)	/* sattr3: nothing set */
		rpc_buf_put_u32(&a, 0);
	if (call(fd, PROG_NFS, NFSPROC_MKDIR, &a, &s, &c))
		st = rpc_cur_u32(&c);
	if (c.bad)
		st = -1;
	rpc_buf_free(&a);
	rpc_buf_free(&s);
	return st;
}

static bool null_call(int fd)
{
	struct rpc_buf s;
	struct rpc_cur c;
	bool r;

	rpc_buf_init(&s);
	r = call(fd, PROG_NFS, NFSPROC_NULL, NULL, &s, &c) && c.n == 0;
	rpc_buf_free(&s);
	return r;
}

/* EXPORT as "name1,name2,..." (names relative to BASE, in the server's
 * order); "?" when the reply does not parse. */
static void export_list(int fd, char *out, size_t len)
{
	struct rpc_buf s;
	struct rpc_cur c;
	size_t o = 0, bl = strlen(base);

	out[0] = 0;
	rpc_buf_init(&s);
	if (!call(fd, PROG_MOUNT, MNTPROC_EXPORT, NULL, &s, &c)) {
		snprintf(out, len, "?");
		goto done;
	}
	while (rpc_cur_u32(&c) && !c.bad) {
		uint32_t dl, gl;
		const uint8_t *d = rpc_cur_opaque(&c, &dl, 1024);

		while (rpc_cur_u32(&c) && !c.bad)
			rpc_cur_opaque(&c, &gl, 255);
		if (c.bad)
			break;
		if (dl > bl + 1 && !memcmp(d, base, bl))
			o += (size_t)snprintf(out + o, len - o, "%s%.*s", o ? "," : "",
					      (int)(dl - bl - 1), (const char *)d + bl + 1);
		else
			o += (size_t)snprintf(out + o, len - o, "%s!", o ? "," : "");
		if (o >= len)
			break;
	}
	if (c.bad || c.n)
		snprintf(out, len, "?");
done:
	rpc_buf_free(&s);
}

/* DUMP: how many entries name BASE/@name, or -1 when the reply does not parse. */
static int dump_count(int fd, const char *name)
{
	char want[4200];
	struct rpc_buf s;
	struct rpc_cur c;
	int n = 0;

	snprintf(want, sizeof(want), "%s/%s", base, name);
	rpc_buf_init(&s);
	if (!call(fd, PROG_MOUNT, MNTPROC_DUMP, NULL, &s, &c)) {
		rpc_buf_free(&s);
		return -1;
	}
	while (rpc_cur_u32(&c) && !c.bad) {
		uint32_t hl, dl;
		const uint8_t *d;

		rpc_cur_opaque(&c, &hl, 255);
		d = rpc_cur_opaque(&c, &dl, 1024);
		if (c.bad)
			break;
		if (dl == strlen(want) && memcmp(d, want, dl) == 0)
			n++;
	}
	if (c.bad || c.n)
		n = -1;
	rpc_buf_free(&s);
	return n;
}

/* ---- the server's side ------------------------------------------------- */

static void write_file(const char *text)
{
	char tmp[4200];
	FILE *f;

	/* Written whole then renamed, as an editor would: nfsxd never
	 * reads half a file. */
	snprintf(tmp, sizeof(tmp), "%s.tmp", file);
	f = fopen(tmp, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0 || rename(tmp, file) != 0) {
		printf("Bail out! cannot write %s: %s\n", file, strerror(errno));
		exit(1);
	}
}

/* How many lines of the log contain @needle. */
static int log_count(const char *needle)
{
	FILE *f = fopen(logpath, "r");
	char line[4096];
	int n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, needle))
			n++;
	fclose(f);
	return n;
}

/* SIGHUP, then wait for the reload's outcome in the log.
 * Return values: 1 reloaded, 0 refused, -1 nothing within 20 s. */
static int hup(void)
{
	int ok0 = log_count("exports reloaded:"), bad0 = log_count("exports not reloaded");
	int i;

	if (kill(pid, SIGHUP) < 0) {
		printf("# kill -HUP %d: %s\n", (int)pid, strerror(errno));
		return -1;
	}
	for (i = 0; i < 2000; i++) {
		if (log_count("exports reloaded:") > ok0)
			return 1;
		if (log_count("exports not reloaded") > bad0)
			return 0;
		usleep(10000);
	}
	return -1;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/*
 * Open descriptors of nfsxd whose target is BASE/@name exactly: their
 * number, and in @list (when not NULL) the descriptor numbers, sorted.
 */
/* Is every number of the list @a in the list @b ("3,4" in "3,4,7")? */
static bool fds_subset(const char *a, const char *b)
{
	char bb[512];

	if (strlen(b) + 3 > sizeof(bb))
		return false;
	bb[0] = ',';
	strcpy(bb + 1, b);
	strcat(bb, ",");
	while (*a) {
		char one[32];
		size_t n = strcspn(a, ",");

		if (n + 3 > sizeof(one))
			return false;
		snprintf(one, sizeof(one), ",%.*s,", (int)n, a);
		if (!strstr(bb, one))
			return false;
		a += n;
		if (*a == ',')
			a++;
	}
	return true;
}

static int fds_list(const char *name, char *list, size_t len)
{
	char dir[64], p[320], target[4200];
	const char *want = path_of(name);
	struct dirent *d;
	int n = 0, nums[64], i;
	size_t o = 0;
	DIR *dd;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	dd = opendir(dir);
	if (!dd)
		return -1;
	while ((d = readdir(dd))) {
		ssize_t l;

		if (d->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, d->d_name);
		l = readlink(p, target, sizeof(target) - 1);
		if (l < 0)
			continue;
		target[l] = 0;
		if (strcmp(target, want) == 0 && n < 64)
			nums[n++] = atoi(d->d_name);
	}
	closedir(dd);
	qsort(nums, (size_t)n, sizeof(nums[0]), cmp_int);
	for (i = 0; list && i < n && o < len; i++)
		o += (size_t)snprintf(list + o, len - o, "%s%d", i ? "," : "", nums[i]);
	if (list && !n && len)
		list[0] = 0;
	return n;
}

static int fds_on(const char *name)
{
	return fds_list(name, NULL, 0);
}

/* ---- exports files ----------------------------------------------------- */

#define RW "(rw,insecure,no_root_squash)"

static void first_set(char *out, size_t len)
{
	int n = snprintf(out, len,
			 "# first set\n"
			 "%s 127.0.0.1" RW "\n"
			 "%s 127.0.0.1" RW "\n"
			 "%s 127.0.0.1" RW "\n",
			 path_of("keep"), path_of("toro"), path_of("gone"));

	if (names)
		snprintf(out + n, len - (size_t)n,
			 "%s localhost" RW "\n"
			 "%s *.invalid" RW "\n"
			 "%s local*" RW "\n",
			 path_of("named"), path_of("wild"), path_of("lwild"));
}

static void second_set(char *out, size_t len)
{
	int n = snprintf(out, len,
			 "# second set: toro ro, gone removed, new added\n"
			 "%s 127.0.0.1" RW "\n"
			 "%s 127.0.0.1(ro,insecure,no_root_squash)\n"
			 "%s 127.0.0.1" RW "\n",
			 path_of("keep"), path_of("toro"), path_of("new"));

	if (names)
		snprintf(out + n, len - (size_t)n,
			 "%s otherhost.invalid" RW "\n"
			 "%s localhost" RW "\n"
			 "%s local*" RW "\n",
			 path_of("named"), path_of("wild"), path_of("lwild"));
}

/* The first name /etc/hosts gives 127.0.0.1, or "". */
static bool loopback_is_localhost(void)
{
	FILE *f = fopen("/etc/hosts", "r");
	char line[512], a[64], n[256];
	bool r = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %255s", a, n) == 2 && strcmp(a, "127.0.0.1") == 0) {
			r = strcmp(n, "localhost") == 0;
			break;
		}
	}
	fclose(f);
	return r;
}

/* ---- the stress part --------------------------------------------------- */

struct hammer {
	struct fh fh;
	atomic_bool stop;
	unsigned long calls, failed;
	int fd;
};

static void *hammer_run(void *arg)
{
	struct hammer *h = arg;

	while (!atomic_load(&h->stop)) {
		long st = getattr(h->fd, &h->fh);

		h->calls++;
		if (st != NFS3_OK) {
			h->failed++;
			printf("#   GETATTR during reloads: %ld\n", st);
		}
	}
	return NULL;
}

/* ---- main -------------------------------------------------------------- */

static int run(void)
{
	struct fh keep, toro, gone, nw, named, lwild, x;
	char text[8192], list[4096], want[4096];
	uint16_t lport;
	char keep_fds[256], now_fds[256];
	int fd, r, i;

	fd = rpc_connect(port, 5000);
	if (fd < 0) {
		printf("Bail out! cannot connect to 127.0.0.1:%u\n", port);
		return 1;
	}
	lport = rpc_local_port(fd);

	/* 1. the first set */
	ok(mnt(fd, "keep", &keep) == MNT3_OK && mnt(fd, "toro", &toro) == MNT3_OK &&
	   mnt(fd, "gone", &gone) == MNT3_OK, "first set: keep, toro, gone mount");
	ok(mkdir_in(fd, &toro, "d1") == NFS3_OK, "toro is rw: MKDIR works");
	ok(mnt(fd, "new", NULL) != MNT3_OK, "new is not exported yet");
	ok(getattr(fd, &gone) == NFS3_OK, "gone's handle works");
	ok(dump_count(fd, "gone") == 1, "DUMP lists the mount of gone");
	ok(fds_list("keep", keep_fds, sizeof(keep_fds)) >= 1 && fds_on("gone") >= 1,
	   "nfsxd holds descriptors of keep (%s) and gone (%d)", keep_fds, fds_on("gone"));
	if (names) {
		ok(mnt(fd, "named", &named) == MNT3_OK && getattr(fd, &named) == NFS3_OK,
		   "localhost(rw): 127.0.0.1 mounts it and uses the handle");
		ok(mnt(fd, "wild", NULL) == MNT3ERR_ACCES,
		   "*.invalid: 127.0.0.1 (localhost) is refused with MNT3ERR_ACCES");
		ok(mnt(fd, "lwild", &lwild) == MNT3_OK && mkdir_in(fd, &lwild, "w1") == NFS3_OK,
		   "local*: matches localhost, rw");
	}

	/* 2. reload to the second set */
	second_set(text, sizeof(text));
	write_file(text);
	r = hup();
	ok(r == 1, "SIGHUP: the second set is loaded");
	snprintf(want, sizeof(want), "exports reloaded: %d exports (+1 -1)", names ? 6 : 3);
	ok(log_count(want) == 1, "the log says \"%s\"", want);
	ok(rpc_local_port(fd) == lport && null_call(fd),
	   "the connection opened before the reload still works (local port %u)", lport);
	ok(getattr(fd, &keep) == NFS3_OK, "an unchanged export's old handle works");
	export_list(fd, list, sizeof(list));
	snprintf(want, sizeof(want), "keep,toro,new%s", names ? ",named,wild,lwild" : "");
	ok(strcmp(list, want) == 0, "EXPORT lists the new set: %s", list);
	ok(mnt(fd, "new", &nw) == MNT3_OK && getattr(fd, &nw) == NFS3_OK &&
	   mkdir_in(fd, &nw, "d") == NFS3_OK, "the new export mounts and is rw");
	ok(mkdir_in(fd, &toro, "d2") == NFS3ERR_ROFS,
	   "toro is ro now: MKDIR with a handle from before gets NFS3ERR_ROFS");
	ok(getattr(fd, &toro) == NFS3_OK, "toro still reads");
	ok(getattr(fd, &gone) == NFS3ERR_STALE, "the removed export's handle: NFS3ERR_STALE");
	ok(dump_count(fd, "gone") == 0 && dump_count(fd, "keep") == 1,
	   "DUMP no longer lists the removed export's mount; keep's stays");
	ok(mnt(fd, "gone", NULL) != MNT3_OK, "the removed export no longer mounts");
	ok(mkdir_in(fd, &keep, "k1") == NFS3_OK, "keep is still rw");
	ok(fds_on("gone") == 0, "nfsxd closed the removed export's descriptors");
	fds_list("keep", now_fds, sizeof(now_fds));
	/* A subset: the open-object cache (vfs/node.c) may have added a
	 * descriptor of keep's root since; a reopened root would have
	 * closed the old ones. */
	ok(fds_subset(keep_fds, now_fds),
	   "an unchanged export keeps its open descriptors (%s, were %s)", now_fds, keep_fds);
	if (names) {
		ok(getattr(fd, &named) == NFS3ERR_ACCES && mnt(fd, "named", NULL) == MNT3ERR_ACCES,
		   "named's client is another host now: its handle and MNT are refused");
		ok(mnt(fd, "wild", &x) == MNT3_OK && getattr(fd, &x) == NFS3_OK,
		   "wild's client is localhost now: it mounts");
		ok(getattr(fd, &lwild) == NFS3_OK, "lwild unchanged: its handle works");
	}

	/* 3. a malformed file: the second set stays */
	snprintf(text, sizeof(text),
		 "%s 127.0.0.1" RW "\n"
		 "# the next line is wrong\n"
		 "%s 127.0.0.1(rw,no_such_option)\n", path_of("keep"), path_of("gone"));
	write_file(text);
	r = hup();
	ok(r == 0, "SIGHUP with a malformed file: not reloaded");
	snprintf(want, sizeof(want), "%s:3: unknown option \"no_such_option\"", file);
	ok(log_count(want) == 1, "the log names the file and line: %s", want);
	export_list(fd, list, sizeof(list));
	snprintf(want, sizeof(want), "keep,toro,new%s", names ? ",named,wild,lwild" : "");
	ok(strcmp(list, want) == 0, "EXPORT still lists the second set: %s", list);
	ok(getattr(fd, &keep) == NFS3_OK && getattr(fd, &nw) == NFS3_OK &&
	   mkdir_in(fd, &toro, "d3") == NFS3ERR_ROFS && getattr(fd, &gone) == NFS3ERR_STALE,
	   "the second set still serves (keep, new ok; toro ro; gone stale)");

	/* A directory that vanished: refused whole, the set stays. */
	snprintf(text, sizeof(text), "%s 127.0.0.1" RW "\n%s *(rw)\n", path_of("keep"),
		 path_of("no-such-dir"));
	write_file(text);
	ok(hup() == 0 && log_count("no-such-dir: not a directory") == 1 &&
	   getattr(fd, &nw) == NFS3_OK, "an export of a missing directory: not reloaded");

	/* 4. 20 reloads while two connections keep calling GETATTR */
	{
		struct hammer h[2];
		pthread_t t[2];
		char a[8192], b[8192];
		int good = 0;

		first_set(a, sizeof(a));
		second_set(b, sizeof(b));
		for (i = 0; i < 2; i++) {
			h[i].fh = i ? toro : keep;
			atomic_init(&h[i].stop, false);
			h[i].calls = h[i].failed = 0;
			h[i].fd = rpc_connect(port, 5000);
			pthread_create(&t[i], NULL, hammer_run, &h[i]);
		}
		for (i = 0; i < 20; i++) {
			write_file(i % 2 ? b : a);
			good += hup() == 1;
			if (i % 2 == 0)
				usleep(20000);
		}
		for (i = 0; i < 2; i++) {
			atomic_store(&h[i].stop, true);
			pthread_join(t[i], NULL);
		}
		ok(good == 20, "20 reloads done (%d)", good);
		ok(h[0].calls > 20 && h[1].calls > 20 && h[0].failed == 0 && h[1].failed == 0,
		   "GETATTR during the reloads: %lu + %lu calls, %lu + %lu failed",
		   h[0].calls, h[1].calls, h[0].failed, h[1].failed);
		for (i = 0; i < 2; i++)
			close(h[i].fd);
		/* The last one loaded the second set: gone is out again. */
		ok(getattr(fd, &gone) == NFS3ERR_STALE && getattr(fd, &keep) == NFS3_OK &&
		   fds_on("gone") == 0, "after them: the second set, gone's descriptors closed");
	}
	close(fd);
	return tap_done();
}

int main(int argc, char **argv)
{
	char text[8192];

	if (argc == 4 && strcmp(argv[1], "init") == 0) {
		file = argv[2];
		base = argv[3];
		names = loopback_is_localhost();
		first_set(text, sizeof(text));
		write_file(text);
		return 0;
	}
	if (argc != 7 || strcmp(argv[1], "run") != 0) {
		fprintf(stderr, "usage: test_reload init FILE BASE | run PORT BASE FILE PID LOG\n");
		return 2;
	}
	port = (uint16_t)atoi(argv[2]);
	base = argv[3];
	file = argv[4];
	pid = (pid_t)atoi(argv[5]);
	logpath = argv[6];
	names = loopback_is_localhost();
	if (!names)
		printf("# /etc/hosts does not name 127.0.0.1 \"localhost\" first: host name checks skipped\n");
	setvbuf(stdout, NULL, _IOLBF, 0);
	atomic_init(&next_xid, (unsigned int)getpid() << 16);
	return run();
}
