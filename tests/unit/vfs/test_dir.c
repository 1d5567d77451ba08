/* SPDX-License-Identifier: MIT */
/*
 * Directory listing and its cache (src/vfs/dir*.c), without a server:
 * a listing in pieces by cookie gives every entry once, from the file
 * system and from the cache alike; a repeated listing comes from the
 * cache with no statx; what changes the directory or an entry is seen by
 * the very next listing: a name created, removed or renamed, a mode,
 * owner or time set, data written, a file truncated; attributes of
 * directories and of files with several links are always read afresh; a
 * listing that does not fit the budget is not kept and the budget holds;
 * an event loop's call (nonblock) is served only from the cache; a
 * caller who may not read the directory is refused, and one who may not
 * search it gets names without attributes (needs root for that part).
 */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "tap.h"
#include "vfs/dir.h"
#include "vfs/hmap.h"
#include "vfs/vfs.h"

#define N 1200   /* more than a worker reads ahead (dir_internal.h, READ_AHEAD) */
#define MAXE 4096

static char base[] = "/tmp/nfsx-dir-XXXXXX";
static uint8_t key[FH_KEY_LEN];
static struct vfs_export exp_;
static int dfd = -1;
static char dpath[256];

struct got {
	char name[64];
	uint64_t cookie;
	bool st, fh;
	struct stat s;
	struct nfsx_fh h;
};

struct coll {
	unsigned int limit;   /* entries per call */
	unsigned int in_call;
	unsigned int n;
	struct got e[MAXE];
};

static bool room(void *arg, const struct vfs_dirent *d)
{
	struct coll *c = arg;

	return c->in_call < c->limit && c->n < MAXE;
}

static void put(void *arg, const struct vfs_dirent *d)
{
	struct coll *c = arg;
	struct got *g = &c->e[c->n++];

	snprintf(g->name, sizeof(g->name), "%.*s", (int)d->namelen, d->name);
	g->cookie = d->cookie;
	g->st = d->st != NULL;
	g->fh = d->fh != NULL;
	if (d->st)
		g->s = *d->st;
	if (d->fh) {
		g->h.len = d->fhlen;
		memcpy(g->h.data, d->fh, d->fhlen);
	}
	c->in_call++;
}

/* A whole listing in calls of @limit entries. Return values: calls made,
 * or -errno of the first failed call. */
static int list(struct coll *c, unsigned int limit, bool plus, bool nonblock)
{
	struct vfs_dir_sink s = { .plus = plus, .nonblock = nonblock, .room = room,
				  .put = put, .arg = c, .want = 4096 };
	uint64_t cookie = 0;
	int calls = 0;

	c->n = 0;
	c->limit = limit;
	for (;;) {
		struct stat dst;
		bool eof = false;
		int r;

		if (fstat(dfd, &dst) < 0)
			return -errno;
		c->in_call = 0;
		r = vfs_readdir(key, &exp_, dfd, &dst, cookie, &s, &eof);
		calls++;
		if (r < 0)
			return r;
		if (eof)
			return calls;
		if (!c->in_call)
			return -EIO;
		cookie = c->e[c->n - 1].cookie;
	}
}

static const struct got *find(const struct coll *c, const char *name)
{
	unsigned int i;

	for (i = 0; i < c->n; i++)
		if (strcmp(c->e[i].name, name) == 0)
			return &c->e[i];
	return NULL;
}

/* Every name f0..f(n-1) once, "." and "..", nothing else unless @extra. */
static bool exactly(const struct coll *c, unsigned int n, const char *extra)
{
	unsigned int i, seen[N + 1] = { 0 }, others = 0;

	for (i = 0; i < c->n; i++) {
		const char *nm = c->e[i].name;

		if (nm[0] == 'f' && atoi(nm + 1) < (int)n)
			seen[atoi(nm + 1)]++;
		else if (strcmp(nm, ".") && strcmp(nm, "..") && !(extra && !strcmp(nm, extra)))
			others++;
	}
	for (i = 0; i < n; i++)
		if (seen[i] != 1)
			return false;
	return others == 0 && c->n == n + 2 + (extra ? 1 : 0);
}

static void file_path(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", dpath, name);
}

static struct vfs_dir_stats stats(void)
{
	struct vfs_dir_stats s;

	vfs_dir_stats(&s);
	return s;
}

static struct coll c;

static int open_fds(void)
{
	char p[64];
	int fd, n = 0;

	for (fd = 0; fd < 1024; fd++) {
		snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
		n += access(p, F_OK) == 0;
	}
	return n;
}

static void test_listing(void)
{
	struct vfs_dir_stats a, b;
	unsigned int i;
	int calls;
	bool all;

	a = stats();
	calls = list(&c, 7, true, false);
	b = stats();
	ok(calls > 150 && exactly(&c, N, NULL),
	   "a first listing in calls of 7 gives each of %d names once (%d calls)", N, calls);
	for (all = true, i = 0; i < c.n; i++)
		if (c.e[i].name[0] == 'f')
			all &= c.e[i].st && c.e[i].fh && (c.e[i].s.st_mode & 0777) == 0644;
	ok(all, "with attributes and handles");
	/* a worker reads ahead into the listing: most calls come from it */
	ok(b.stats - a.stats == N && b.misses > a.misses && b.misses - a.misses < (uint64_t)calls / 10,
	   "read from the file system once: one statx per entry (%llu), most calls "
	   "answered from what was read ahead (%llu of %d read the directory)",
	   (unsigned long long)(b.stats - a.stats), (unsigned long long)(b.misses - a.misses),
	   calls);

	a = stats();
	calls = list(&c, 7, true, false);
	b = stats();
	ok(exactly(&c, N, NULL) && b.stats == a.stats && b.hits - a.hits == (uint64_t)calls &&
	   b.misses == a.misses,
	   "a repeated listing comes whole from the cache, no statx (%d calls, %llu hits, %llu statx)",
	   calls, (unsigned long long)(b.hits - a.hits), (unsigned long long)(b.stats - a.stats));
	{
		struct vfs_dir_sink sk = { .plus = true, .room = room, .put = put, .arg = &c,
					   .want = 4096 };
		struct stat dst;
		int fds = open_fds(), mid;
		bool eof;

		/* a listing stopped midway keeps the directory open for the
		 * next call, and gives it back when the cache lets it go */
		vfs_dir_fini();
		vfs_dir_init(64 << 20);
		c.n = c.in_call = 0;
		c.limit = 10;
		fstat(dfd, &dst);
		vfs_readdir(key, &exp_, dfd, &dst, 0, &sk, &eof);
		mid = open_fds();
		{
			struct vfs_dir_sink nb = sk;
			uint64_t at = c.e[9].cookie;
			int r;

			nb.nonblock = true;
			c.in_call = 0;
			c.limit = 100;
			r = vfs_readdir(key, &exp_, dfd, &dst, at, &nb, &eof);
			ok(r == 0 && c.in_call == 100 && !eof && strcmp(c.e[10].name, c.e[9].name),
			   "the next call is answered on an event loop from what was read ahead (%d, %u)",
			   r, c.in_call);
			c.in_call = 0;
			c.limit = 5000;
			at = c.e[c.n - 1].cookie;
			r = vfs_readdir(key, &exp_, dfd, &dst, at, &nb, &eof);
			ok(r == -EWOULDBLOCK,
			   "a reply that what was read ahead cannot fill goes to a worker (%d)", r);
			c.n = 110;
			c.in_call = 0;
			r = vfs_readdir(key, &exp_, dfd, &dst, at, &sk, &eof);
			ok(r == 0 && eof && c.n == N + 2, "which gives it whole (%u entries)", c.n);
		}
		vfs_dir_fini();
		vfs_dir_init(64 << 20);
		ok(mid == fds + 1 && open_fds() == fds,
		   "a listing being read holds one descriptor, freed with it (%d, %d, %d)",
		   fds, mid, open_fds());
		list(&c, 7, true, false);
		ok(open_fds() == fds, "a whole listing holds none (%d)", open_fds());
	}
	a = stats();
	calls = list(&c, 5000, true, true);
	b = stats();
	ok(calls == 1 && exactly(&c, N, NULL) && b.hits - a.hits == 1,
	   "and may be served on an event loop (nonblock)");
}

static void test_changes(void)
{
	char p[512], q[512];
	const struct got *g;
	struct vfs_dir_stats a, b;
	struct timeval tv[2] = { { 1000000, 0 }, { 1000000, 0 } };
	int fd;

	list(&c, 50, true, false);   /* cached */
	file_path(p, sizeof(p), "new");
	fd = open(p, O_CREAT | O_WRONLY, 0600);
	close(fd);
	list(&c, 50, true, false);
	ok(exactly(&c, N, "new"), "a name created is listed at once");
	unlink(p);
	list(&c, 50, true, false);
	ok(exactly(&c, N, NULL), "a name removed is gone at once");
	file_path(p, sizeof(p), "f5");
	file_path(q, sizeof(q), "moved");
	ok(rename(p, q) == 0, "rename f5");
	list(&c, 50, true, false);
	ok(find(&c, "moved") && !find(&c, "f5"), "a rename is seen at once");
	rename(q, p);
	list(&c, 50, true, false);   /* cached again */
	list(&c, 50, true, false);

	file_path(p, sizeof(p), "f7");
	chmod(p, 0600);
	list(&c, 50, true, false);
	g = find(&c, "f7");
	ok(g && g->st && (g->s.st_mode & 0777) == 0600, "a mode set is seen at once");
	fd = open(p, O_WRONLY);
	ok(fd >= 0 && write(fd, "hello", 5) == 5, "write 5 bytes to f7");
	close(fd);
	list(&c, 50, true, false);
	g = find(&c, "f7");
	ok(g && g->st && g->s.st_size == 5, "data written is seen at once (size %lld)",
	   g ? (long long)g->s.st_size : -1LL);
	ok(truncate(p, 2) == 0, "truncate f7");
	list(&c, 50, true, false);
	g = find(&c, "f7");
	ok(g && g->s.st_size == 2, "a truncate is seen at once");
	ok(utimes(p, tv) == 0, "set f7's times");
	list(&c, 50, true, false);
	g = find(&c, "f7");
	ok(g && g->s.st_mtim.tv_sec == 1000000, "times set are seen at once");
	if (geteuid() == 0) {
		ok(chown(p, 4242, 4243) == 0, "chown f7");
		list(&c, 50, true, false);
		g = find(&c, "f7");
		ok(g && g->s.st_uid == 4242 && g->s.st_gid == 4243, "an owner set is seen at once");
	}
	g = find(&c, "f8");
	ok(g && g->st && g->s.st_size == 0, "other entries untouched");

	/* several links, and directories: never served from the cache */
	file_path(p, sizeof(p), "f9");
	file_path(q, sizeof(q), "sub");
	ok(mkdir(q, 0755) == 0, "a subdirectory");
	snprintf(q, sizeof(q), "%s/link-to-f9", base);
	ok(link(p, q) == 0, "a second link to f9, outside the directory");
	list(&c, 50, true, false);
	list(&c, 50, true, false);
	a = stats();
	list(&c, 5000, true, false);
	b = stats();
	ok(b.stats - a.stats == 2, "f9 (2 links) and sub are read afresh, nothing else (%llu)",
	   (unsigned long long)(b.stats - a.stats));
	fd = open(q, O_WRONLY);
	ok(fd >= 0 && write(fd, "abc", 3) == 3, "write through the other link");
	close(fd);
	list(&c, 50, true, false);
	g = find(&c, "f9");
	ok(g && g->s.st_size == 3, "is seen through this directory at once");
	file_path(p, sizeof(p), "sub");
	ok(utimes(p, tv) == 0, "set sub's times");
	list(&c, 50, true, false);
	g = find(&c, "sub");
	ok(g && g->st && g->s.st_mtim.tv_sec == 1000000, "listed with them");
	snprintf(p, sizeof(p), "%s/sub/inner", dpath);
	fd = open(p, O_CREAT | O_WRONLY, 0644);
	close(fd);
	list(&c, 50, true, false);
	g = find(&c, "sub");
	ok(g && g->st && g->s.st_nlink == 2 && g->s.st_mtim.tv_sec > 1000000,
	   "a name created inside the subdirectory: its new mtime is listed at once");
	unlink(p);
	file_path(p, sizeof(p), "sub");
	rmdir(p);
	unlink(q);
	list(&c, 50, true, false);
	ok(exactly(&c, N, NULL), "back to %d names", N);
}

static void test_epoch(void)
{
	char p[512], q[512];
	const struct got *g;
	struct vfs_dir_stats a, b;
	int fd;

	/* A change inotify does not report to this directory: a link made
	 * from another one, and data written through it. nfsxd's own
	 * changes say so (vfs_dir_changed), and only attributes are taken
	 * again. */
	list(&c, 5000, true, false);
	list(&c, 5000, true, false);
	file_path(p, sizeof(p), "f11");
	snprintf(q, sizeof(q), "%s/elsewhere", base);
	ok(link(p, q) == 0, "f11 linked from outside the directory");
	fd = open(q, O_WRONLY);
	ok(fd >= 0 && write(fd, "12345678", 8) == 8, "8 bytes written through that link");
	close(fd);
	vfs_dir_changed();
	a = stats();
	list(&c, 5000, true, false);
	b = stats();
	g = find(&c, "f11");
	ok(g && g->st && g->s.st_size == 8 && g->s.st_nlink == 2,
	   "after a change through the server, the next listing has current attributes (size %lld, %u links)",
	   g ? (long long)g->s.st_size : -1LL, g ? (unsigned int)g->s.st_nlink : 0);
	ok(b.misses == a.misses && b.stats - a.stats == N,
	   "names and handles still from the cache, every attribute taken again (%llu statx)",
	   (unsigned long long)(b.stats - a.stats));
	unlink(q);
	file_path(p, sizeof(p), "f11");
	truncate(p, 0);
	vfs_dir_changed();
}

static void test_accounting(void)
{
	struct vfs_dir_stats a, b;

	/* names only first (READDIR), then handles added (READDIRPLUS):
	 * what they take is counted */
	vfs_dir_fini();
	vfs_dir_init(64 << 20);
	list(&c, 5000, false, false);
	a = stats();
	list(&c, 5000, true, false);
	b = stats();
	ok(b.bytes > a.bytes + N * 20,
	   "handles added to a listing are counted (%zu then %zu bytes)", a.bytes, b.bytes);
}

static int racing;   /* __atomic: the renamer thread reads it */

static void *renamer(void *arg)
{
	const char *d = arg;
	char t[512], n[512];

	snprintf(t, sizeof(t), "%s/t", d);
	snprintf(n, sizeof(n), "%s/n", d);
	while (__atomic_load_n(&racing, __ATOMIC_RELAXED)) {
		int fd = open(t, O_CREAT | O_WRONLY, 0644);

		if (fd >= 0)
			close(fd);
		rename(t, n);
	}
	return NULL;
}

/* Entries renamed over while they are listed: an entry never carries
 * one file's handle and another's attributes. */
static void test_rename_race(void)
{
	struct vfs_dir_sink sk = { .plus = true, .room = room, .put = put, .arg = &c,
				   .want = 4096 };
	char rp[512];
	pthread_t th;
	int rfd, i, checked = 0, wrong = 0;

	if (geteuid() != 0) {
		ok(1, "rename race # SKIP needs root (open_by_handle_at)");
		return;
	}
	snprintf(rp, sizeof(rp), "%s/race", dpath);
	mkdir(rp, 0755);
	rfd = open(rp, O_PATH | O_DIRECTORY);
	__atomic_store_n(&racing, 1, __ATOMIC_RELAXED);
	pthread_create(&th, NULL, renamer, rp);
	for (i = 0; i < 50000; i++) {
		struct stat dst;
		bool eof;
		unsigned int j;

		fstat(rfd, &dst);
		c.n = c.in_call = 0;
		c.limit = 100;
		if (vfs_readdir(key, &exp_, rfd, &dst, 0, &sk, &eof) < 0)
			continue;
		for (j = 0; j < c.n; j++) {
			struct fh_parts fp;
			struct stat hs;
			int hfd;

			if (!c.e[j].st || !c.e[j].fh ||
			    !fh_decode(key, c.e[j].h.data, c.e[j].h.len, &fp))
				continue;
			hfd = vfs_open_handle(&exp_, &fp);
			if (hfd < 0)
				continue;   /* gone since: nothing to compare */
			if (fstat(hfd, &hs) == 0) {
				checked++;
				wrong += hs.st_ino != c.e[j].s.st_ino;
			}
			close(hfd);
		}
	}
	__atomic_store_n(&racing, 0, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	ok(checked > 1000 && wrong == 0,
	   "50000 listings while a name is renamed over: every handle is the inode of its "
	   "attributes (%d checked, %d wrong)", checked, wrong);
	close(rfd);
	snprintf(rp, sizeof(rp), "rm -rf %s/race", dpath);
	if (system(rp) != 0)
		printf("# could not remove the race directory\n");
}

static void test_budget(void)
{
	struct vfs_dir_stats a, b;

	vfs_dir_fini();
	ok(vfs_dir_init(16384) == 0, "a 16 KiB budget");
	list(&c, 5000, true, false);
	a = stats();
	list(&c, 5000, true, false);
	b = stats();
	ok(b.hits == a.hits && b.stats - a.stats == N && exactly(&c, N, NULL),
	   "a listing over half the budget is not kept, and still complete");
	ok(b.bytes <= b.budget, "the budget holds (%zu of %zu bytes)", b.bytes, b.budget);
	a = stats();
	ok(list(&c, 50, true, true) == -EWOULDBLOCK && stats().stats == a.stats,
	   "an event loop's call is refused (-EWOULDBLOCK) without a statx");
	vfs_dir_fini();
	ok(vfs_dir_init(0) == 0, "no cache at all");
	list(&c, 50, true, false);
	a = stats();
	list(&c, 50, true, false);
	b = stats();
	ok(exactly(&c, N, NULL) && b.hits == a.hits, "lists without it");
	vfs_dir_fini();
	vfs_dir_init(64 << 20);
}

static void test_permission(void)
{
	struct vfs_cred user = { .uid = 4242, .gid = 4242 };
	unsigned int i;
	bool bare = true;
	int r;

	if (geteuid() != 0) {
		ok(1, "permission # SKIP needs root");
		return;
	}
	list(&c, 50, true, false);   /* cached, as root */
	chmod(dpath, 0700);
	ok(vfs_become(&user) == 0, "become uid 4242");
	r = list(&c, 50, false, false);
	ok(r == -EACCES, "a directory it may not read is refused, cached or not (%d)", r);
	vfs_become(NULL);
	chmod(dpath, 0744);
	vfs_become(&user);
	r = list(&c, 50, true, false);
	for (i = 0; i < c.n; i++)
		bare &= !c.e[i].st && !c.e[i].fh;
	ok(r > 0 && exactly(&c, N, NULL) && bare,
	   "one it may read but not search gets the names only (%d)", r);
	vfs_become(NULL);
	chmod(dpath, 0755);
}

int main(void)
{
	char state[300], p[512];
	char err[256];
	int i, fd;

	if (!mkdtemp(base)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	snprintf(state, sizeof(state), "%s/state", base);
	mkdir(state, 0700);
	snprintf(dpath, sizeof(dpath), "%s/exp", base);
	mkdir(dpath, 0755);
	if (fh_key_load(state, key, err, sizeof(err)) < 0) {
		printf("Bail out! %s\n", err);
		return 1;
	}
	if (geteuid() != 0) {
		vfs_set_unprivileged();
		if (vfs_hmap_open(state, err, sizeof(err)) < 0) {
			printf("Bail out! %s\n", err);
			return 1;
		}
	}
	for (i = 0; i < N; i++) {
		snprintf(p, sizeof(p), "%s/f%d", dpath, i);
		fd = open(p, O_CREAT | O_WRONLY, 0644);
		close(fd);
	}
	ok(vfs_export_open(&exp_, 3, dpath) == 0, "export opened");
	dfd = open(dpath, O_PATH | O_DIRECTORY);
	ok(vfs_dir_init(64 << 20) == 0, "cache with inotify");
	test_listing();
	test_changes();
	test_epoch();
	test_accounting();
	test_budget();
	test_permission();
	test_rename_race();
	vfs_dir_fini();
	close(dfd);
	vfs_export_close(&exp_);
	snprintf(p, sizeof(p), "rm -rf %s", base);
	if (system(p) != 0)
		printf("# could not remove %s\n", base);
	return tap_done();
}
