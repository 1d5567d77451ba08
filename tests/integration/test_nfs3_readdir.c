// SPDX-License-Identifier: MIT
/*
 * TAP integration test of nfsxd's READDIR and READDIRPLUS with the raw RPC
 * client, which controls every cookie, cookie verifier and count:
 *
 *  - a directory of 100,000 entries lists completely with READDIR and
 *    READDIRPLUS, following the cookies and sending back the cookie
 *    verifier of each reply: every name once, "." and ".." once, eof;
 *  - every reply fits the client's bound: READDIR's whole result within
 *    count; READDIRPLUS's whole result within maxcount and its directory
 *    information (fileid, name, cookie of each entry) within dircount
 *    (RFC 1813, 3.3.16 and 3.3.17), also with small counts; a count too
 *    small for one entry gets NFS3ERR_TOOSMALL, and one just big enough
 *    for one entry gets it;
 *  - listing takes time linear in the directory's size (see test_linear);
 *  - cookies and verifiers stay valid while the directory changes: entries
 *    created and removed (listed and not yet listed) between the calls of
 *    a listing, the entry a cookie points at removed, a cookie reused after
 *    changes with the verifier the server gave.
 *
 * Usage: test_nfs3_readdir PORT EXPORT... Each EXPORT is a directory
 * exported read-only to 127.0.0.1 (insecure) by nfsxd on PORT; the test
 * makes its directories inside with the file system calls (it runs as
 * root, like the server), so the suite runs once per file system given
 * (run-nfs3-readdir.sh passes its scratch directory and, when there is
 * one, a directory on tmpfs: their directory offsets differ).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "nfs3_raw.h"
#include "rpc_client.h"
#include "tap.h"

#define TMO 20000

#define MNTPROC_MNT 1
#define MNT3_OK 0

#define NFSPROC_READDIR 16
#define NFSPROC_READDIRPLUS 17
#define NFS3_OK 0
#define NFS3ERR_BAD_COOKIE 10003
#define NFS3ERR_TOOSMALL 10005

#define BIG_N 100000
#define SMALL_N 12500   /* BIG_N / 8 */
#define CHG_N 5000
#define NEW_N 2000
#define NAME_LEN 7      /* every name made here: a prefix letter, 6 digits */

static uint16_t port;

/* ---- calls ------------------------------------------------------------- */

/* post_op_attr: true if attributes followed (84 bytes of fattr3). */
static bool post_op(struct rpc_cur *c)
{
	if (!rpc_cur_u32(c))
		return false;
	rpc_cur_skip(c, 84);
	return !c->bad;
}

/* ---- one READDIR / READDIRPLUS call ------------------------------------ */

typedef void each_fn(const char *name, uint32_t nl, uint64_t cookie, void *arg);

struct page {
	long status;            /* nfsstat3, or -1 for a bad reply */
	bool eof;
	uint8_t verf[8];
	uint64_t cookie;        /* of the last entry */
	int nent;
	size_t body_len;        /* the whole result: status and resok */
	size_t dirinfo;         /* fileid, name and cookie of every entry */
	int noattr, nofh;       /* READDIRPLUS entries (not . ..) without them */
	uint32_t fh_len;        /* of the last handle seen */
};

static inline uint32_t pad4(uint32_t n)
{
	return (n + 3) & ~3u;
}

/*
 * READDIR (plus false: count = maxcount) or READDIRPLUS (dircount,
 * maxcount) of dir from cookie with verifier verf. Every entry goes to
 * each; the page sums up the reply.
 */
static void rd(int fd, const struct raw_fh *dir, bool plus, uint64_t cookie,
	       const uint8_t verf[8], uint32_t dircount, uint32_t maxcount,
	       each_fn *each, void *arg, struct page *pg)
{
	static const uint8_t zero[8];
	struct rpc_buf b;
	struct raw_res s = { 0 };
	struct rpc_cur c;

	memset(pg, 0, sizeof(*pg));
	rpc_buf_init(&b);
	rpc_buf_init(&s.store);
	rpc_buf_put_opaque(&b, dir->d, dir->len);
	rpc_buf_put_u32(&b, (uint32_t)(cookie >> 32));
	rpc_buf_put_u32(&b, (uint32_t)cookie);
	rpc_buf_put_bytes(&b, verf ? verf : zero, 8);
	if (plus)
		rpc_buf_put_u32(&b, dircount);
	rpc_buf_put_u32(&b, maxcount);
	raw_call(fd, PROG_NFS, plus ? NFSPROC_READDIRPLUS : NFSPROC_READDIR, &b, &s);
	c = raw_cur(&s);
	pg->body_len = s.r.body_len;
	pg->status = rpc_cur_u32(&c);
	post_op(&c); /* the directory's; all a failure result holds */
	if (!c.bad && pg->status == NFS3_OK) {
		memcpy(pg->verf, c.p, c.n >= 8 ? 8 : 0);
		rpc_cur_skip(&c, 8);
		while (rpc_cur_u32(&c) && !c.bad) {
			uint32_t nl;
			const uint8_t *nm;
			char name[256];

			rpc_cur_u64(&c);
			nm = rpc_cur_opaque(&c, &nl, 255);
			pg->cookie = rpc_cur_u64(&c);
			if (c.bad)
				break;
			memcpy(name, nm, nl);
			name[nl] = 0;
			if (plus) {
				bool dot = !strcmp(name, ".") || !strcmp(name, "..");
				bool attr = post_op(&c);

				if (!attr && !dot)
					pg->noattr++;
				if (rpc_cur_u32(&c)) {
					rpc_cur_opaque(&c, &pg->fh_len, 64);
				} else if (!dot) {
					pg->nofh++;
				}
				if (c.bad)
					break;
			}
			pg->nent++;
			pg->dirinfo += 8 + 4 + pad4(nl) + 8;
			if (each)
				each(name, nl, pg->cookie, arg);
		}
		pg->eof = rpc_cur_u32(&c) != 0;
	}
	if (c.bad || c.n) {
		raw_diag(&s);
		pg->status = -1;
	}
	rpc_buf_free(&b);
	rpc_buf_free(&s.store);
}

/* ---- a whole listing ----------------------------------------------------- */

struct listing {
	long status;            /* of the last reply */
	bool eof;
	int calls, entries;
	int min_nent, max_nent; /* over the replies before the last */
	size_t max_body, max_dirinfo;
	int over;               /* replies beyond maxcount or dircount */
	int noattr, nofh;
	bool stuck;             /* a reply without entries or eof */
	double secs;
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/*
 * Hook called after each reply of a listing (for changing the directory
 * in the middle): reply is the number of replies so far.
 */
typedef void after_fn(int reply, uint64_t cookie, void *arg);

static void list_dir(int fd, const struct raw_fh *dir, bool plus, uint32_t dircount,
		     uint32_t maxcount, each_fn *each, after_fn *after, void *arg,
		     struct listing *L)
{
	uint8_t verf[8] = { 0 };
	uint64_t cookie = 0;
	struct page pg;
	double t0 = now();

	memset(L, 0, sizeof(*L));
	L->min_nent = 1 << 30;
	do {
		rd(fd, dir, plus, cookie, verf, dircount, maxcount, each, arg, &pg);
		L->calls++;
		L->status = pg.status;
		if (pg.status != NFS3_OK)
			break;
		L->entries += pg.nent;
		L->noattr += pg.noattr;
		L->nofh += pg.nofh;
		if (pg.body_len > L->max_body)
			L->max_body = pg.body_len;
		if (pg.dirinfo > L->max_dirinfo)
			L->max_dirinfo = pg.dirinfo;
		if (pg.body_len > maxcount || (plus && pg.dirinfo > dircount)) {
			if (L->over++ < 3)
				printf("#   reply %d: %zu bytes, %zu of directory information "
				       "(dircount %u, maxcount %u)\n", L->calls, pg.body_len,
				       pg.dirinfo, dircount, maxcount);
		}
		if (pg.nent == 0 && !pg.eof) {
			L->stuck = true;
			break;
		}
		if (!pg.eof) {
			if (pg.nent < L->min_nent)
				L->min_nent = pg.nent;
			if (pg.nent > L->max_nent)
				L->max_nent = pg.nent;
		}
		if (pg.nent)
			cookie = pg.cookie;
		memcpy(verf, pg.verf, 8);
		if (after)
			after(L->calls, cookie, arg);
	} while (!pg.eof && L->calls < 1000000);
	L->eof = pg.status == NFS3_OK && pg.eof;
	L->secs = now() - t0;
	if (L->min_nent == 1 << 30)
		L->min_nent = 0;
}

/* ---- names --------------------------------------------------------------- */

/*
 * Names are a prefix letter and six digits. seen counts each name of
 * the prefixes it tracks, and . and .., and everything else.
 */
struct seen {
	const char *prefixes;
	uint32_t n;             /* names per prefix */
	uint16_t *cnt;          /* [prefix index * n + number] */
	int dot, dotdot, other, dup;
};

static void seen_init(struct seen *s, const char *prefixes, uint32_t n)
{
	memset(s, 0, sizeof(*s));
	s->prefixes = prefixes;
	s->n = n;
	s->cnt = calloc(strlen(prefixes) * n, sizeof(*s->cnt));
	if (!s->cnt)
		abort();
}

static void seen_reset(struct seen *s)
{
	memset(s->cnt, 0, strlen(s->prefixes) * s->n * sizeof(*s->cnt));
	s->dot = s->dotdot = s->other = s->dup = 0;
}

static void seen_free(struct seen *s)
{
	free(s->cnt);
}

/* Index of a name in s->cnt, or -1. */
static long seen_index(const struct seen *s, const char *name, uint32_t nl)
{
	const char *p = name[0] ? strchr(s->prefixes, name[0]) : NULL;
	char *end;
	unsigned long i;

	if (!p || nl != NAME_LEN)
		return -1;
	i = strtoul(name + 1, &end, 10);
	if (*end || i >= s->n)
		return -1;
	return (long)(p - s->prefixes) * s->n + (long)i;
}

static void seen_each(const char *name, uint32_t nl, uint64_t cookie, void *arg)
{
	struct seen *s = arg;
	long i;

	(void)cookie;
	if (!strcmp(name, ".")) {
		s->dot++;
		return;
	}
	if (!strcmp(name, "..")) {
		s->dotdot++;
		return;
	}
	i = seen_index(s, name, nl);
	if (i < 0) {
		if (s->other++ < 5)
			printf("#   unexpected name '%s'\n", name);
		return;
	}
	if (s->cnt[i]++ == 1 && s->dup++ < 5)
		printf("#   '%s' listed twice\n", name);
}

static uint16_t seen_of(const struct seen *s, char prefix, uint32_t i)
{
	return s->cnt[(strchr(s->prefixes, prefix) - s->prefixes) * s->n + i];
}

static void name_of(char *buf, char prefix, uint32_t i)
{
	snprintf(buf, NAME_LEN + 1, "%c%06u", prefix, i);
}

/* Make files prefix+[from, to) in dir. */
static int make_files(int dfd, char prefix, uint32_t from, uint32_t to)
{
	char nm[16];
	uint32_t i;

	for (i = from; i < to; i++) {
		int f;

		name_of(nm, prefix, i);
		f = openat(dfd, nm, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
		if (f < 0) {
			printf("#   create %s: %s\n", nm, strerror(errno));
			return -1;
		}
		close(f);
	}
	return 0;
}

static int remove_file(int dfd, char prefix, uint32_t i)
{
	char nm[16];

	name_of(nm, prefix, i);
	return unlinkat(dfd, nm, 0);
}

/* mkdir base/name, fill it with n files of the prefix; an O_PATH fd. */
static int make_dir(const char *base, const char *name, char prefix, uint32_t n)
{
	char p[4096];
	int dfd;

	snprintf(p, sizeof(p), "%s/%s", base, name);
	if (mkdir(p, 0755) < 0) {
		printf("#   mkdir %s: %s\n", p, strerror(errno));
		return -1;
	}
	dfd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || make_files(dfd, prefix, 0, n) < 0) {
		if (dfd >= 0)
			close(dfd);
		return -1;
	}
	return dfd;
}

/* ---- the export under test ---------------------------------------------- */

struct ctx {
	int fd;                 /* connection */
	const char *path;       /* export */
	const char *fs;         /* its file system, for the messages */
	struct raw_fh root;
};

static bool get_dir(struct ctx *x, const char *name, struct raw_fh *out)
{
	long r = raw_lookup(x->fd, &x->root, name, out);

	if (r != NFS3_OK)
		printf("#   LOOKUP %s: %ld\n", name, r);
	return r == NFS3_OK;
}

/* Every one of the n names of prefix once, . and .. once, nothing else. */
static bool all_once(const struct seen *s, char prefix, uint32_t n, const char *what)
{
	uint32_t i, missing = 0, twice = 0;

	for (i = 0; i < n; i++) {
		uint16_t c = seen_of(s, prefix, i);

		missing += c == 0;
		twice += c > 1;
	}
	return ok(missing == 0 && twice == 0 && s->other == 0 && s->dot == 1 &&
		  s->dotdot == 1,
		  "%s: each of the %u names once, . and .. once (%u missing, %u more "
		  "than once, %d unexpected, . %d, .. %d)", what, n, missing, twice,
		  s->other, s->dot, s->dotdot);
}

/* ---- (a) 100,000 entries: complete listings within the counts ---------- */

static void check_listing(const struct listing *L, bool plus, uint32_t dircount,
			  uint32_t maxcount, const char *what)
{
	ok(L->status == NFS3_OK && L->eof && !L->stuck,
	   "%s: every reply NFS3_OK, ends with eof (status %ld, eof %d, stuck %d, "
	   "%d calls)", what, L->status, L->eof, L->stuck, L->calls);
	if (plus)
		ok(L->over == 0,
		   "%s: no reply beyond maxcount %u or its directory information beyond "
		   "dircount %u (largest %zu and %zu bytes)", what, maxcount, dircount,
		   L->max_body, L->max_dirinfo);
	else
		ok(L->over == 0, "%s: no reply beyond count %u (largest %zu bytes)", what,
		   maxcount, L->max_body);
}

struct run {
	bool plus;
	uint32_t dircount, maxcount;
};

/* List @dir (@n entries 'fNNNNN') as @r says; check the replies' sizes
 * and that each name came once. @what is filled for the caller's checks. */
static void list_and_check(struct ctx *x, const struct raw_fh *dir, struct seen *s,
			   const struct run *r, int n, struct listing *L, char *what,
			   size_t wlen)
{
	if (r->plus)
		snprintf(what, wlen, "%s, %d entries, READDIRPLUS dircount %u maxcount %u",
			 x->fs, n, r->dircount, r->maxcount);
	else
		snprintf(what, wlen, "%s, %d entries, READDIR count %u", x->fs, n, r->maxcount);
	seen_reset(s);
	list_dir(x->fd, dir, r->plus, r->dircount, r->maxcount, seen_each, NULL, s, L);
	printf("# %s: %d calls, %.3f s, %d to %d entries per reply before the last\n",
	       what, L->calls, L->secs, L->min_nent, L->max_nent);
	check_listing(L, r->plus, r->dircount, r->maxcount, what);
	all_once(s, 'f', n, what);
}

static void test_big(struct ctx *x, const struct raw_fh *big, struct seen *s)
{
	static const struct run runs[] = {
		{ false, 0, 8192 },
		{ false, 0, 65536 },
		{ false, 0, 512 },
		{ true, 8192, 32768 },
		{ true, 4096, 65536 },   /* dircount the tighter bound */
	};
	struct listing L;
	char what[160];
	size_t i;

	for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		bool plus = runs[i].plus;

		list_and_check(x, big, s, &runs[i], BIG_N, &L, what, sizeof(what));
		if (plus)
			ok(L.noattr == 0 && L.nofh == 0,
			   "%s: every entry but . and .. with attributes and a handle "
			   "(%d without attributes, %d without a handle)", what, L.noattr,
			   L.nofh);
		/*
		 * All the names have the same length, so every reply but the
		 * last should hold about as many entries as the bound allows: a
		 * server that stopped filling its replies (or slowed to a crawl
		 * deep in the directory) would show up here as a reply much
		 * smaller than the others.
		 */
		ok(L.min_nent * 10 >= L.max_nent * 9,
		   "%s: every reply before the last nearly full (%d to %d entries)", what,
		   L.min_nent, L.max_nent);
	}
}

/* ---- too small, just big enough ----------------------------------------- */

static void test_toosmall(struct ctx *x, const struct raw_fh *dir)
{
	struct page pg, first, pg2;
	uint32_t one;
	uint64_t c;

	rd(x->fd, dir, false, 0, NULL, 0, 0, NULL, NULL, &pg);
	ok(pg.status == NFS3ERR_TOOSMALL, "%s: READDIR count 0: NFS3ERR_TOOSMALL (got %ld)",
	   x->fs, pg.status);
	rd(x->fd, dir, false, 0, NULL, 0, 100, NULL, NULL, &pg);
	ok(pg.status == NFS3ERR_TOOSMALL, "%s: READDIR count 100: NFS3ERR_TOOSMALL (got %ld)",
	   x->fs, pg.status);
	rd(x->fd, dir, true, 0, NULL, 100, 100, NULL, NULL, &pg);
	ok(pg.status == NFS3ERR_TOOSMALL,
	   "%s: READDIRPLUS dircount 100 maxcount 100: NFS3ERR_TOOSMALL (got %ld)", x->fs,
	   pg.status);
	rd(x->fd, dir, true, 0, NULL, 20, 65536, NULL, NULL, &pg);
	ok(pg.status == NFS3ERR_TOOSMALL,
	   "%s: READDIRPLUS dircount 20 (less than one entry's fileid, name, cookie), "
	   "maxcount 65536: NFS3ERR_TOOSMALL (got %ld)", x->fs, pg.status);

	/*
	 * In the middle of the directory (past . and ..), the smallest
	 * count that holds one entry: status, the directory's attributes
	 * (4 + 84), the verifier (8), the entry (4 + 8 + 4 + 8 for the
	 * 7-byte name + 8) and the list's end and eof (8). One byte less
	 * cannot hold it.
	 */
	rd(x->fd, dir, false, 0, NULL, 0, 4096, NULL, NULL, &first);
	c = first.cookie;
	one = 4 + 88 + 8 + (4 + 8 + 4 + 8 + 8) + 8;
	rd(x->fd, dir, false, c, first.verf, 0, one, NULL, NULL, &pg);
	ok(pg.status == NFS3_OK && pg.nent == 1 && pg.body_len <= one,
	   "%s: READDIR count %u (one entry exactly): OK, 1 entry, %zu bytes "
	   "(status %ld, %d entries)", x->fs, one, pg.body_len, pg.status, pg.nent);
	rd(x->fd, dir, false, c, first.verf, 0, one - 1, NULL, NULL, &pg2);
	ok(pg2.status == NFS3ERR_TOOSMALL,
	   "%s: READDIR count %u (one byte short of one entry): NFS3ERR_TOOSMALL (got %ld)",
	   x->fs, one - 1, pg2.status);

	/*
	 * READDIRPLUS: one entry with its attributes and a handle of at
	 * most 64 bytes must fit in that much; the server may reserve the
	 * largest handle, so no exact threshold.
	 */
	one += 88 + 4 + 4 + 64;
	rd(x->fd, dir, true, c, first.verf, one, one, NULL, NULL, &pg);
	ok(pg.status == NFS3_OK && pg.nent == 1 && pg.body_len <= one,
	   "%s: READDIRPLUS maxcount %u (one entry, the largest handle): OK, 1 entry, "
	   "%zu bytes (status %ld, %d entries)", x->fs, one, pg.body_len, pg.status,
	   pg.nent);

	/* At the end of the directory, a count too small for an empty list. */
	{
		struct page last;
		uint64_t end = 0;
		uint8_t verf[8] = { 0 };

		/* the cookie of the last entry */
		memset(&last, 0, sizeof(last));
		do {
			rd(x->fd, dir, false, end, verf, 0, 65536, NULL, NULL, &last);
			if (last.status != NFS3_OK || !last.nent)
				break;
			end = last.cookie;
			memcpy(verf, last.verf, 8);
		} while (!last.eof);
		rd(x->fd, dir, false, end, verf, 0, 4096, NULL, NULL, &pg);
		ok(pg.status == NFS3_OK && pg.eof && pg.nent == 0,
		   "%s: READDIR from the last entry's cookie: OK, no entries, eof "
		   "(status %ld, %d entries, eof %d)", x->fs, pg.status, pg.nent, pg.eof);
		/*
		 * count bounds READDIR3resok: an empty list with eof takes 108
		 * bytes, so 64 cannot hold even that; the answer is TOOSMALL
		 * (whose result, status and attributes, count does not bound).
		 */
		rd(x->fd, dir, false, end, verf, 0, 64, NULL, NULL, &pg);
		ok(pg.status == NFS3ERR_TOOSMALL || (pg.status == NFS3_OK && pg.body_len <= 64),
		   "%s: ... with count 64 (less than an empty list): NFS3ERR_TOOSMALL, not "
		   "a bigger result (status %ld, %zu bytes)", x->fs, pg.status, pg.body_len);
	}
}

/* Small counts: READDIR 512, READDIRPLUS 1024/512, over 12,500 entries. */
static void test_small_counts(struct ctx *x, const struct raw_fh *dir, struct seen *s)
{
	static const struct run runs[] = {
		{ false, 0, 512 },
		{ false, 0, 200 },
		{ true, 512, 1024 },
		{ true, 256, 65536 },
	};
	struct listing L;
	char what[160];
	size_t i;

	for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++)
		list_and_check(x, dir, s, &runs[i], SMALL_N, &L, what, sizeof(what));
}

/* ---- (b) linear time ----------------------------------------------------- */

/*
 * Listing must cost time linear in the directory's size. A wall-clock
 * bound is noisy on a shared machine, so the test compares the server
 * with itself, measured the same way a moment apart: the directory of
 * 100,000 entries against one of 12,500 (8 times fewer), each listed
 * several times in alternation, keeping the fastest of each (noise only
 * ever adds time). Linear cost takes 8 times as long for the big one;
 * quadratic cost (each call re-reading the directory from its start to
 * find the cookie, say) 64 times as long. The bound is 3 times the
 * linear figure per entry (24 times in all), far from both: it leaves
 * room for caches and noise and still fails anything quadratic (and a
 * per-call cost growing as n log n would have to be absurd to reach it).
 * Independently of time, the number of calls must be proportional to
 * the size (each call carries as many entries as the count allows).
 * Both ways the server lists are measured, each against itself: from
 * the file system (the directories are changed before every listing,
 * which drops a cached listing) and from its listing cache (each listed
 * once before; run-nfs3-readdir.sh gives the server a budget that holds
 * the big one).
 */
static void touch_dir(struct ctx *x, const char *name)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof(p), "%s/%s/touch", x->path, name);
	fd = open(p, O_CREAT | O_WRONLY, 0644);
	if (fd >= 0)
		close(fd);
	unlink(p);
}

static void test_linear(struct ctx *x, const struct raw_fh *small, const struct raw_fh *big,
			bool plus, bool cached)
{
	const uint32_t dircount = 8192, maxcount = plus ? 32768 : 8192;
	double best_s = 1e9, best_b = 1e9, per_s, per_b;
	int calls_s = 0, calls_b = 0, round, errors = 0;
	const char *proc = plus ? "READDIRPLUS" : "READDIR";
	const char *how = cached ? "cached" : "uncached";
	struct listing L;

	if (cached) {
		list_dir(x->fd, small, plus, dircount, maxcount, NULL, NULL, NULL, &L);
		list_dir(x->fd, big, plus, dircount, maxcount, NULL, NULL, NULL, &L);
	}
	for (round = 0; round < 4; round++) {
		if (!cached)
			touch_dir(x, "small");
		list_dir(x->fd, small, plus, dircount, maxcount, NULL, NULL, NULL, &L);
		errors += !L.eof;
		calls_s = L.calls;
		if (L.secs < best_s)
			best_s = L.secs;
		if (!cached)
			touch_dir(x, "big");
		list_dir(x->fd, big, plus, dircount, maxcount, NULL, NULL, NULL, &L);
		errors += !L.eof;
		calls_b = L.calls;
		if (L.secs < best_b)
			best_b = L.secs;
	}
	per_s = best_s / SMALL_N * 1e6;
	per_b = best_b / BIG_N * 1e6;
	printf("# %s %s %s: %d entries in %.1f ms (%d calls), %d entries in %.1f ms "
	       "(%d calls): %.2f and %.2f us per entry\n", x->fs, proc, how, SMALL_N,
	       best_s * 1e3, calls_s, BIG_N, best_b * 1e3, calls_b, per_s, per_b);
	ok(errors == 0, "%s %s %s: the timed listings all complete (%d failed)", x->fs, proc,
	   how, errors);
	ok(calls_b * 10 >= calls_s * 8 * 9 && calls_b * 10 <= calls_s * 8 * 11,
	   "%s %s %s: 8 times the entries take 8 times the calls, within 10%% (%d and %d)",
	   x->fs, proc, how, calls_s, calls_b);
	ok(per_b <= 3 * per_s,
	   "%s %s %s: cost per entry at %d entries at most 3 times that at %d "
	   "(%.2f and %.2f us; quadratic would be 8 times)", x->fs, proc, how, BIG_N, SMALL_N,
	   per_b, per_s);
}

/* ---- (c) listing while the directory changes ---------------------------- */

struct churn {
	int dfd;
	struct seen *s;
	uint8_t *removed;       /* 1: before it was listed, 2: after */
	uint32_t created;       /* 'n' names made so far */
	int errors;
};

static void churn_wave(struct churn *ch, uint32_t wave)
{
	uint32_t i, late = 0, early = 0;

	/* new entries */
	if (make_files(ch->dfd, 'n', ch->created, ch->created + NEW_N / 2) < 0)
		ch->errors++;
	ch->created += NEW_N / 2;
	for (i = 0; i < CHG_N; i++) {
		if (ch->removed[i])
			continue;
		if (!seen_of(ch->s, 'c', i) && i % 5 == wave) {
			/* not listed yet: gone before the listing gets there */
			if (remove_file(ch->dfd, 'c', i) < 0)
				ch->errors++;
			ch->removed[i] = 1;
			late++;
		} else if (seen_of(ch->s, 'c', i) && i % 3 == wave && early < 100) {
			if (remove_file(ch->dfd, 'c', i) < 0)
				ch->errors++;
			ch->removed[i] = 2;
			early++;
		}
	}
	printf("#   wave %u: %u created, %u not yet listed and %u listed removed\n", wave,
	       NEW_N / 2, late, early);
}

static void churn_after(int reply, uint64_t cookie, void *arg)
{
	(void)cookie;
	if (reply == 3)
		churn_wave(arg, 0);
	else if (reply == 12)
		churn_wave(arg, 1);
}

static void churn_each(const char *name, uint32_t nl, uint64_t cookie, void *arg)
{
	struct churn *ch = arg;

	seen_each(name, nl, cookie, ch->s);
}

static void test_changing(struct ctx *x, bool plus)
{
	const char *proc = plus ? "READDIRPLUS" : "READDIR";
	const char *dname = plus ? "chg-plus" : "chg";
	struct churn ch = { 0 };
	struct seen s;
	struct listing L;
	struct raw_fh dir;
	uint32_t i, stayed = 0, stayed_bad = 0, listed_removed_bad = 0, gone_seen = 0;
	uint32_t new_seen = 0, new_twice = 0;

	seen_init(&s, "cn", CHG_N);
	ch.s = &s;
	ch.removed = calloc(CHG_N, 1);
	ch.dfd = make_dir(x->path, dname, 'c', CHG_N);
	if (ch.dfd < 0 || !ch.removed || !get_dir(x, dname, &dir)) {
		ok(0, "%s: set up %s", x->fs, dname);
		goto out;
	}
	list_dir(x->fd, &dir, plus, 2048, 4096, churn_each, churn_after, &ch, &L);
	printf("# %s %s of a changing directory: %d calls, %d entries\n", x->fs, proc,
	       L.calls, L.entries);
	ok(ch.errors == 0, "%s %s: the directory changed twice during the listing "
	   "(%d errors)", x->fs, proc, ch.errors);
	ok(L.status == NFS3_OK && L.eof && !L.stuck,
	   "%s %s: the old cookies still work: every reply NFS3_OK (no BAD_COOKIE), "
	   "eof (status %ld, eof %d, %d calls)", x->fs, proc, L.status, L.eof, L.calls);
	for (i = 0; i < CHG_N; i++) {
		uint16_t c = seen_of(&s, 'c', i);

		if (!ch.removed[i]) {
			stayed++;
			stayed_bad += c != 1;
		} else if (ch.removed[i] == 2) {
			listed_removed_bad += c != 1;
		} else {
			gone_seen += c != 0;
		}
		if (i < NEW_N) {
			uint16_t n = seen_of(&s, 'n', i);

			new_seen += n > 0;
			new_twice += n > 1;
		}
	}
	ok(stayed_bad == 0 && s.dot == 1 && s.dotdot == 1 && s.other == 0,
	   "%s %s: each of the %u entries there all along listed exactly once, . and .. "
	   "once (%u not, . %d, .. %d, %d unexpected)", x->fs, proc, stayed, stayed_bad,
	   s.dot, s.dotdot, s.other);
	ok(listed_removed_bad == 0,
	   "%s %s: entries removed after they were listed: listed once (%u not)", x->fs,
	   proc, listed_removed_bad);
	ok(new_twice == 0 && s.dup == 0,
	   "%s %s: no name listed twice, new ones included (%d duplicates; %u of %u "
	   "new entries listed)", x->fs, proc, s.dup, new_seen, ch.created);
	printf("# %s %s: %u of the entries removed before they were reached were listed\n",
	       x->fs, proc, gone_seen);
out:
	if (ch.dfd >= 0)
		close(ch.dfd);
	free(ch.removed);
	seen_free(&s);
}

/*
 * A cookie kept with the verifier it came with, used again after the
 * directory changed: the entry it points after is removed, so is the
 * entry it points at (the next one), entries are created and others
 * removed. The continuation must be NFS3_OK, list nothing that came
 * before the cookie, and list everything after it that is still there.
 */
struct keep {
	struct seen *s;
	int replies;
	uint64_t cookie;
	uint8_t verf[8];
	char last[16], next[16];   /* the entry the cookie follows, the one after */
	uint16_t *before;          /* names listed up to the cookie */
};

static void keep_each(const char *name, uint32_t nl, uint64_t cookie, void *arg)
{
	struct keep *k = arg;
	long i = seen_index(k->s, name, nl);

	(void)cookie;
	if (k->replies < 2) {
		snprintf(k->last, sizeof(k->last), "%s", name);
		if (i >= 0)
			k->before[i]++;
	} else if (k->replies == 2 && !k->next[0]) {
		snprintf(k->next, sizeof(k->next), "%s", name);
	}
	seen_each(name, nl, cookie, k->s);
}

static void test_cookie_reuse(struct ctx *x, bool plus)
{
	const char *proc = plus ? "READDIRPLUS" : "READDIR";
	const char *dname = plus ? "verf-plus" : "verf";
	struct seen s, again;
	struct keep k = { 0 };
	struct page pg, pg2;
	struct raw_fh dir;
	uint8_t verf[8];
	uint64_t cookie;
	uint32_t i, after_bad = 0, before_again = 0, n = 3000;
	int dfd, calls = 0, removed = 0;
	bool all_ok = true, eof = false;

	seen_init(&s, "c", n);
	seen_init(&again, "cn", n);
	k.s = &s;
	k.before = calloc(n, sizeof(*k.before));
	dfd = make_dir(x->path, dname, 'c', n);
	if (dfd < 0 || !k.before || !get_dir(x, dname, &dir)) {
		ok(0, "%s: set up %s", x->fs, dname);
		goto out;
	}
	/* two replies; keep the cookie and verifier after them */
	memset(verf, 0, sizeof(verf));
	cookie = 0;
	for (k.replies = 0; k.replies < 2; k.replies++) {
		rd(x->fd, &dir, plus, cookie, verf, 1024, 2048, keep_each, &k, &pg);
		if (pg.status != NFS3_OK || pg.eof)
			break;
		cookie = pg.cookie;
		memcpy(verf, pg.verf, 8);
	}
	k.cookie = cookie;
	memcpy(k.verf, verf, 8);
	/* the third reply, twice: the same cookie gives the same entries */
	rd(x->fd, &dir, plus, k.cookie, k.verf, 1024, 2048, keep_each, &k, &pg);
	rd(x->fd, &dir, plus, k.cookie, k.verf, 1024, 2048, NULL, NULL, &pg2);
	ok(pg.status == NFS3_OK && pg2.status == NFS3_OK && pg.nent == pg2.nent &&
	   pg.cookie == pg2.cookie && pg.nent > 0,
	   "%s %s: a cookie used twice gives the same reply (%d and %d entries)", x->fs,
	   proc, pg.nent, pg2.nent);

	/* change: the entries around the cookie go, others come and go */
	removed += unlinkat(dfd, k.last, 0) == 0;
	removed += unlinkat(dfd, k.next, 0) == 0;
	if (make_files(dfd, 'n', 0, 500) < 0)
		all_ok = false;
	for (i = 0; i < n; i += 7) {
		char nm[16];

		name_of(nm, 'c', i);
		if (strcmp(nm, k.last) && strcmp(nm, k.next) && unlinkat(dfd, nm, 0) == 0)
			removed++;
	}
	printf("# %s %s: the cookie follows %s, points at %s; both removed with %d "
	       "others, 500 created\n", x->fs, proc, k.last, k.next, removed - 2);

	/* continue from the kept cookie with the kept verifier */
	memcpy(verf, k.verf, 8);
	cookie = k.cookie;
	do {
		rd(x->fd, &dir, plus, cookie, verf, 1024, 2048, seen_each, &again, &pg);
		calls++;
		if (pg.status != NFS3_OK) {
			all_ok = false;
			break;
		}
		if (!pg.nent && !pg.eof) {
			all_ok = false;
			break;
		}
		cookie = pg.cookie;
		memcpy(verf, pg.verf, 8);
		eof = pg.eof;
	} while (!eof && calls < 100000);
	ok(all_ok && eof,
	   "%s %s: the kept cookie and verifier after the changes: NFS3_OK to eof, no "
	   "BAD_COOKIE (status %ld, %d calls)", x->fs, proc, pg.status, calls);
	for (i = 0; i < n; i++) {
		char nm[16];
		struct stat st;
		bool there;

		name_of(nm, 'c', i);
		there = fstatat(dfd, nm, &st, AT_SYMLINK_NOFOLLOW) == 0;
		if (k.before[i])
			before_again += again.cnt[i] != 0;
		else if (there)
			after_bad += again.cnt[i] != 1;
	}
	ok(before_again == 0 && again.dot == 0 && again.dotdot == 0,
	   "%s %s: nothing listed before the cookie comes again (%u names, . %d, .. %d)",
	   x->fs, proc, before_again, again.dot, again.dotdot);
	ok(after_bad == 0 && again.dup == 0,
	   "%s %s: every remaining entry after the cookie listed exactly once (%u not, "
	   "%d duplicates)", x->fs, proc, after_bad, again.dup);

	/* cookie 0 with a verifier the server never gave: a fresh listing */
	memset(verf, 0xa5, sizeof(verf));
	rd(x->fd, &dir, plus, 0, verf, 1024, 2048, NULL, NULL, &pg);
	ok(pg.status == NFS3_OK && pg.nent > 0,
	   "%s %s: cookie 0 with any verifier starts a listing (status %ld)", x->fs, proc,
	   pg.status);
out:
	if (dfd >= 0)
		close(dfd);
	free(k.before);
	seen_free(&s);
	seen_free(&again);
}

/* ---- main ---------------------------------------------------------------- */

static const char *fs_name(const char *path)
{
	struct statfs sf;

	if (statfs(path, &sf) < 0)
		return "?";
	switch ((unsigned long)sf.f_type) {
	case 0xEF53: return "ext4";
	case 0x01021994: return "tmpfs";
	case 0x58465342: return "xfs";
	case 0x9123683E: return "btrfs";
	case 0x794c7630: return "overlayfs";
	default: return "other fs";
	}
}

static void run_export(int fd, const char *path)
{
	struct ctx x = { .fd = fd, .path = path };
	struct raw_fh big, small;
	struct seen s;
	int dfd;
	double t0;
	long r;

	x.fs = fs_name(path);
	printf("# export %s (%s)\n", path, x.fs);
	r = raw_mnt(fd, path, &x.root);
	ok(r == MNT3_OK, "%s: MNT %s (got %ld)", x.fs, path, r);
	if (r != MNT3_OK)
		return;

	t0 = now();
	dfd = make_dir(path, "big", 'f', BIG_N);
	if (dfd >= 0)
		close(dfd);
	printf("# %s: %d files created in %.2f s\n", x.fs, BIG_N, now() - t0);
	dfd = make_dir(path, "small", 'f', SMALL_N);
	if (dfd >= 0)
		close(dfd);
	if (!ok(get_dir(&x, "big", &big) && get_dir(&x, "small", &small),
		"%s: directories of %d and %d entries made and looked up", x.fs, BIG_N,
		SMALL_N))
		return;

	seen_init(&s, "f", BIG_N);
	test_big(&x, &big, &s);
	test_small_counts(&x, &small, &s);
	test_toosmall(&x, &small);
	test_linear(&x, &small, &big, false, false);
	test_linear(&x, &small, &big, true, false);
	test_linear(&x, &small, &big, false, true);
	test_linear(&x, &small, &big, true, true);
	seen_free(&s);
	test_changing(&x, false);
	test_changing(&x, true);
	test_cookie_reuse(&x, false);
	test_cookie_reuse(&x, true);
}

int main(int argc, char **argv)
{
	int fd, i;

	raw_timeout_ms = TMO;
	if (argc < 3) {
		fprintf(stderr, "usage: test_nfs3_readdir PORT EXPORT...\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	port = (uint16_t)atoi(argv[1]);
	fd = rpc_connect(port, 5000);
	if (fd < 0) {
		printf("Bail out! cannot connect to 127.0.0.1:%u\n", port);
		return 1;
	}
	for (i = 2; i < argc; i++)
		run_export(fd, argv[i]);
	close(fd);
	return tap_done();
}
