/* SPDX-License-Identifier: MIT */
/*
 * Host name rules never hold a worker: nfsxd runs with one worker and a
 * name service (hang_resolver.c, preloaded) that never answers for
 * 127.0.0.2 and 127.0.0.6. While calls from those two wait for their
 * names, calls from other addresses (127.0.0.3, .4, .5, .7) that need
 * no name, or a name the service gives at once, are answered at once;
 * the two waiting calls get their answer at the time bound (5 s: no
 * name, so the address rule decides), and a second call from a hanging
 * address is answered at once from the cached "no name".
 * A RENAME from a third hanging address (127.0.0.8) does nothing while
 * its name is looked up (no rule applies yet: the address rule after the
 * name rule must not act for it meanwhile), then runs once, by the
 * address rule, at the bound: NFS3_OK, not NOENT from a second run.
 *
 * Usage: test_hostwait PORT BASE   (exports: see run-hostwait.sh)
 *        test_hostwait mnt PORT PATH OCTET: exit 0 if MNT PATH from
 *        127.0.0.OCTET is answered OK (within the raw client's timeout)
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nfs3_raw.h"
#include "tap.h"

#define NFS3ERR_NOENT 2
#define NFSPROC3_RENAME 14
#define PROMPT_MS 2500		/* "at once": half the bound, room for a loaded machine */
#define BOUND_MS 5000		/* hostnames' timeout_ms */

static uint16_t port;
static char slow[4096], fast[4096];
static const char *base;

/* A connection to 127.0.0.1:port from 127.0.0.@octet. */
static int connect_from(unsigned int octet)
{
	struct sockaddr_in src = { .sin_family = AF_INET }, dst = src;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	src.sin_addr.s_addr = htonl(0x7f000000u | octet);
	dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	dst.sin_port = htons(port);
	if (bind(fd, (struct sockaddr *)&src, sizeof(src)) < 0 ||
	    connect(fd, (struct sockaddr *)&dst, sizeof(dst)) < 0) {
		close(fd);
		return -1;
	}
	rpc_set_nodelay(fd);
	return fd;
}

struct slow_call {
	unsigned int octet;
	const struct raw_fh *dir;	/* LOOKUP in it; NULL: MNT slow */
	pthread_t t;
	long status;
	long long ms;
};

static void *slow_main(void *arg)
{
	struct slow_call *c = arg;
	long long t0 = rpc_now_ms();
	int fd = connect_from(c->octet);
	struct raw_fh fh;

	c->status = -2;
	if (fd >= 0) {
		c->status = c->dir ? raw_lookup(fd, c->dir, "nosuch", &fh) :
				     raw_mnt(fd, slow, &fh);
		close(fd);
	}
	c->ms = rpc_now_ms() - t0;
	return NULL;
}

struct rename_call {
	const struct raw_fh *dir;
	pthread_t t;
	atomic_int done;
	long status;
	long long ms;
};

/* RENAME r1 to r2 in @dir, from 127.0.0.8 (whose lookup hangs). */
static void *rename_main(void *arg)
{
	struct rename_call *c = arg;
	long long t0 = rpc_now_ms();
	int fd = connect_from(8);
	struct raw_res s = { 0 };
	struct rpc_buf b;

	c->status = -2;
	rpc_buf_init(&b);
	rpc_buf_init(&s.store);
	rpc_buf_put_opaque(&b, c->dir->d, c->dir->len);
	rpc_buf_put_string(&b, "r1");
	rpc_buf_put_opaque(&b, c->dir->d, c->dir->len);
	rpc_buf_put_string(&b, "r2");
	if (fd >= 0) {
		struct rpc_cur cur;

		raw_call(fd, PROG_NFS, NFSPROC3_RENAME, &b, &s);
		cur = raw_cur(&s);
		c->status = rpc_cur_u32(&cur);
		if (cur.bad)
			c->status = -1;
		close(fd);
	}
	rpc_buf_free(&b);
	rpc_buf_free(&s.store);
	c->ms = rpc_now_ms() - t0;
	atomic_store(&c->done, 1);
	return NULL;
}

static bool lexists(const char *name)
{
	char p[4200];
	struct stat st;

	snprintf(p, sizeof(p), "%s/slow/%s", base, name);
	return lstat(p, &st) == 0;
}

/* The RENAME waits for 127.0.0.8's name with no effect, then runs once. */
static void rename_waits(const struct raw_fh *dir)
{
	struct rename_call c = { .dir = dir };
	long long t0, seen_ms = 0;
	char p[4200];
	bool early = false;
	FILE *f;

	snprintf(p, sizeof(p), "%s/slow/r1", base);
	f = fopen(p, "w");
	if (f)
		fclose(f);
	if (pthread_create(&c.t, NULL, rename_main, &c)) {
		ok(0, "pthread_create");
		return;
	}
	/* Until its reply: r1 must still be there at every look before the
	 * bound (at the bound the server renames, a moment before the reply
	 * reaches this thread). */
	t0 = rpc_now_ms();
	while (!atomic_load(&c.done)) {
		if ((!lexists("r1") || lexists("r2")) && !early) {
			early = true;
			seen_ms = rpc_now_ms() - t0;
		}
		usleep(20 * 1000);
	}
	pthread_join(c.t, NULL);
	ok(!early || seen_ms >= BOUND_MS - 1000,
	   "RENAME from 127.0.0.8 (lookup hangs): nothing renamed while it waits (renamed %s%lld ms)",
	   early ? "seen at " : "after the reply, ", early ? seen_ms : c.ms);
	ok(c.status == 0 && !lexists("r1") && lexists("r2") && c.ms >= BOUND_MS - 1000,
	   "then renamed once, by the address rule, at the bound: NFS3_OK (%ld, %lld ms)",
	   c.status, c.ms);
}

/* MNT @path from 127.0.0.@octet: its status, and how long it took. */
static long mnt_from(unsigned int octet, const char *path, struct raw_fh *fh,
		     long long *ms)
{
	long long t0 = rpc_now_ms();
	int fd = connect_from(octet);
	long st = -2;

	if (fd >= 0) {
		st = raw_mnt(fd, path, fh);
		close(fd);
	}
	*ms = rpc_now_ms() - t0;
	return st;
}

int main(int argc, char **argv)
{
	struct slow_call a = { .octet = 2 }, b = { .octet = 6 };
	struct raw_fh fh, slow_root;
	unsigned int i;
	long long ms;
	long st;

	if (argc == 5 && strcmp(argv[1], "mnt") == 0) {
		port = (uint16_t)atoi(argv[2]);
		raw_timeout_ms = 3 * BOUND_MS;
		st = mnt_from((unsigned int)atoi(argv[4]), argv[3], &fh, &ms);
		printf("# MNT %s from 127.0.0.%s: %ld in %lld ms\n", argv[3], argv[4], st, ms);
		return st == 0 ? 0 : 1;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: test_hostwait PORT BASE | mnt PORT PATH OCTET\n");
		return 2;
	}
	port = (uint16_t)atoi(argv[1]);
	base = argv[2];
	snprintf(slow, sizeof(slow), "%s/slow", argv[2]);
	snprintf(fast, sizeof(fast), "%s/fast", argv[2]);
	raw_timeout_ms = 3 * BOUND_MS;

	/* A handle of slow, from an address whose name lookup is quick. */
	st = mnt_from(3, slow, &slow_root, &ms);
	ok(st == 0 && ms < PROMPT_MS,
	   "MNT slow from 127.0.0.3 (no name, address rule): OK at once (%ld, %lld ms)",
	   st, ms);

	b.dir = &slow_root;
	if (pthread_create(&a.t, NULL, slow_main, &a) ||
	    pthread_create(&b.t, NULL, slow_main, &b)) {
		printf("Bail out! pthread_create\n");
		return 1;
	}
	usleep(300 * 1000);	/* both are waiting for their names now */

	st = mnt_from(3, fast, &fh, &ms);
	ok(st == 0 && ms < PROMPT_MS,
	   "meanwhile MNT fast (address rule only) from 127.0.0.3: OK at once (%ld, %lld ms)",
	   st, ms);
	{
		int fd = connect_from(3);
		long long t0 = rpc_now_ms();
		struct raw_fh out;

		st = fd >= 0 ? raw_lookup(fd, &fh, "nosuch", &out) : -2;
		ms = rpc_now_ms() - t0;
		if (fd >= 0)
			close(fd);
		ok(st == NFS3ERR_NOENT && ms < PROMPT_MS,
		   "meanwhile LOOKUP in fast from 127.0.0.3: NOENT at once (%ld, %lld ms)",
		   st, ms);
	}
	for (i = 4; i <= 7; i++) {
		if (i == 6)
			continue;
		st = mnt_from(i, slow, &fh, &ms);
		ok(st == 0 && ms < PROMPT_MS,
		   "meanwhile MNT slow from 127.0.0.%u (name looked up, %s): OK at once (%ld, %lld ms)",
		   i, i == 5 ? "five.test" : "none", st, ms);
	}

	pthread_join(a.t, NULL);
	pthread_join(b.t, NULL);
	ok(a.status == 0 && a.ms >= BOUND_MS - 1000 && a.ms < BOUND_MS + 2500,
	   "MNT slow from 127.0.0.2 (lookup hangs): OK by the address rule at the bound (%ld, %lld ms)",
	   a.status, a.ms);
	ok(b.status == NFS3ERR_NOENT && b.ms >= BOUND_MS - 1000 &&
	   b.ms < BOUND_MS + 2500,
	   "LOOKUP in slow from 127.0.0.6 (lookup hangs): answered at the bound (%ld, %lld ms)",
	   b.status, b.ms);
	st = mnt_from(2, slow, &fh, &ms);
	ok(st == 0 && ms < PROMPT_MS,
	   "MNT slow from 127.0.0.2 again: \"no name\" is cached, OK at once (%ld, %lld ms)",
	   st, ms);
	rename_waits(&slow_root);
	return tap_done();
}
