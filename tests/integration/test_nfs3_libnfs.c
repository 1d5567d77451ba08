// SPDX-License-Identifier: MIT
/*
 * TAP integration test of nfsxd's MOUNT v3 and read-only NFSv3 service
 * against an independent client, libnfs (its synchronous API): mounting,
 * attributes compared with the local lstat(2), complete directory
 * listings (5,000 entries, 1- and 255-byte names, spaces, UTF-8),
 * byte-for-byte reads (chunk sizes 1 MiB, 131071, 4097; past EOF; a 3 GiB
 * sparse file; offsets beyond 4 GiB), READLINK, ACCESS, FSSTAT, error
 * paths, AUTH_SYS identities with root_squash, no_root_squash,
 * all_squash/anonuid, a ro export, and a client rule that does not admit
 * 127.0.0.1.
 *
 * Usage: test_nfs3_libnfs PORT PORT2 BASE. Must run as root (libnfs then
 * uses a privileged source port, and the tree has files of several
 * owners). run-nfs3-libnfs.sh builds BASE and starts two servers:
 *   PORT:  --export BASE/main              (defaults: ro,root_squash,secure)
 *          --export BASE/nrs:rw,no_root_squash
 *          --export BASE/as:all_squash,anonuid=1000,anongid=1000
 *          --export BASE/ro:ro,no_root_squash
 *   PORT2: --exports-file:  BASE/denied 10.0.0.0/8(ro)
 *                           BASE/allowed 127.0.0.1(ro)
 * The tree's content is described in run-nfs3-libnfs.sh; this test
 * compares what it reads over NFS with the local files.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <nfsc/libnfs.h>

#include "tap.h"

#define GIB (1024ull * 1024 * 1024)
#define MIB (1024ull * 1024)
#define LISTING_MAX_S 15.0	/* "finishes in seconds", loosely */

static unsigned int port, port2;
static const char *base;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void lpath(char *out, size_t len, const char *exp, const char *rel)
{
	snprintf(out, len, "%s/%s%s", base, exp, rel);
}

/*
 * Mount BASE/EXP on server port P as uid/gid (uid < 0: libnfs's default,
 * the process's own). Returns the context, or NULL with *err set.
 */
static struct nfs_context *mount_as(unsigned int p, const char *exp, int uid, int gid,
				    int *err)
{
	struct nfs_context *nfs = nfs_init_context();
	struct nfs_url *u;
	char url[8192], ids[64] = "";
	int r;

	*err = -ENOMEM;
	if (!nfs)
		return NULL;
	if (uid >= 0)
		snprintf(ids, sizeof(ids), "&uid=%d&gid=%d", uid, gid);
	snprintf(url, sizeof(url),
		 "nfs://127.0.0.1%s/%s?nfsport=%u&mountport=%u&version=3%s", base, exp, p,
		 p, ids);
	u = nfs_parse_url_dir(nfs, url);
	if (!u) {
		printf("#   bad url %s: %s\n", url, nfs_get_error(nfs));
		nfs_destroy_context(nfs);
		*err = -EINVAL;
		return NULL;
	}
	if (uid >= 0) {
		nfs_set_uid(nfs, uid);
		nfs_set_gid(nfs, gid);
	}
	nfs_set_timeout(nfs, 20000);
	nfs_set_dircache(nfs, 0);
	r = nfs_mount(nfs, u->server, u->path);
	nfs_destroy_url(u);
	if (r < 0) {
		printf("#   mount %s/%s (uid %d): %d %s\n", base, exp, uid, r,
		       nfs_get_error(nfs));
		nfs_destroy_context(nfs);
		*err = r;
		return NULL;
	}
	*err = 0;
	return nfs;
}

static void bail(const char *what)
{
	printf("Bail out! %s\n", what);
	exit(1);
}

/* ---- attributes ---------------------------------------------------------- */

static bool same_attrs(const char *rel, const struct nfs_stat_64 *n, const struct stat *l)
{
	bool good = n->nfs_size == (uint64_t)l->st_size &&
		    n->nfs_mode == (uint64_t)l->st_mode &&
		    n->nfs_uid == l->st_uid && n->nfs_gid == l->st_gid &&
		    n->nfs_nlink == l->st_nlink && n->nfs_ino == l->st_ino &&
		    n->nfs_mtime == (uint64_t)l->st_mtim.tv_sec &&
		    n->nfs_mtime_nsec == (uint64_t)l->st_mtim.tv_nsec;

	if (!good)
		printf("#   %s: nfs size %llu mode %llo uid %llu gid %llu nlink %llu ino %llu "
		       "mtime %llu.%09llu\n#   %s: local size %llu mode %o uid %u gid %u "
		       "nlink %llu ino %llu mtime %lld.%09ld\n",
		       rel, (unsigned long long)n->nfs_size, (unsigned long long)n->nfs_mode,
		       (unsigned long long)n->nfs_uid, (unsigned long long)n->nfs_gid,
		       (unsigned long long)n->nfs_nlink, (unsigned long long)n->nfs_ino,
		       (unsigned long long)n->nfs_mtime, (unsigned long long)n->nfs_mtime_nsec,
		       rel, (unsigned long long)l->st_size, l->st_mode, l->st_uid, l->st_gid,
		       (unsigned long long)l->st_nlink, (unsigned long long)l->st_ino,
		       (long long)l->st_mtim.tv_sec, l->st_mtim.tv_nsec);
	return good;
}

static void test_stat(struct nfs_context *nfs)
{
	static const char *const files[] = {
		"/small.txt", "/rand5m", "/dir", "/dir/inner.txt", "/exec755",
		"/sparse3g", "/big5g", "/secret600", "/public644", "/many", "/names", "/",
	};
	static const char *const links[] = { "/link", "/dangling" };
	struct nfs_stat_64 ns;
	struct stat ls, ts;
	char lp[4096];
	int r;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		lpath(lp, sizeof(lp), "main", files[i]);
		r = nfs_stat64(nfs, files[i], &ns);
		ok(r == 0 && lstat(lp, &ls) == 0 && same_attrs(files[i], &ns, &ls),
		   "stat %s: size, mode and type, uid/gid, nlink, fileid, mtime (s and ns) "
		   "as the local lstat (r %d)", files[i], r);
	}
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		lpath(lp, sizeof(lp), "main", links[i]);
		r = nfs_lstat64(nfs, links[i], &ns);
		ok(r == 0 && lstat(lp, &ls) == 0 && S_ISLNK(ls.st_mode) &&
		   same_attrs(links[i], &ns, &ls),
		   "lstat %s: a symlink, attributes as the local lstat (r %d)", links[i], r);
	}
	lpath(lp, sizeof(lp), "main", "/small.txt");
	r = nfs_stat64(nfs, "/link", &ns);
	ok(r == 0 && stat(lp, &ts) == 0 && same_attrs("/link -> small.txt", &ns, &ts),
	   "stat /link follows it to small.txt (r %d)", r);
	lpath(lp, sizeof(lp), "main", "/sparse3g");
	r = nfs_stat64(nfs, "/sparse3g", &ns);
	ok(r == 0 && lstat(lp, &ls) == 0 && ns.nfs_used < 64 * MIB &&
	   ns.nfs_used == (uint64_t)ls.st_blocks * 512,
	   "stat /sparse3g: space used is the local st_blocks*512 (%llu), far below 3 GiB",
	   (unsigned long long)ns.nfs_used);
}

/* ---- directory listings --------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct names {
	char **v;
	size_t n, cap;
};

static void names_add(struct names *s, const char *name)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		if (!s->v)
			bail("out of memory");
	}
	s->v[s->n++] = strdup(name);
}

static void names_free(struct names *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static void local_names(const char *dir, struct names *s)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		bail("opendir of a local directory failed");
	while ((e = readdir(d)))
		names_add(s, e->d_name);
	closedir(d);
	qsort(s->v, s->n, sizeof(*s->v), cmp_str);
}

/*
 * List REL over NFS and compare with the local directory: every name
 * once, none missing or extra; and each entry's READDIRPLUS attributes
 * (inode, size, mode) as the local lstat. Returns the seconds taken.
 */
static double check_listing(struct nfs_context *nfs, const char *rel, size_t expect_min)
{
	struct names got = { 0 }, want = { 0 };
	struct nfsdir *d;
	struct nfsdirent *e;
	char lp[4096], fp[8192];
	size_t dups = 0, missing = 0, extra = 0, badattr = 0, i, j;
	double t0 = now_s(), dt;
	int r;

	r = nfs_opendir(nfs, rel, &d);
	if (r == 0) {
		while ((e = nfs_readdir(nfs, d))) {
			struct stat st;

			names_add(&got, e->name);
			if (!strcmp(e->name, ".") || !strcmp(e->name, ".."))
				continue;
			lpath(fp, sizeof(fp), "main", rel);
			strcat(fp, "/");
			strcat(fp, e->name);
			if (lstat(fp, &st) != 0 || e->inode != st.st_ino ||
			    e->size != (uint64_t)st.st_size ||
			    (e->mode & 07777) != (st.st_mode & 07777)) {
				if (badattr++ < 3)
					printf("#   %s/%s: nfs ino %llu size %llu mode %o\n", rel,
					       e->name, (unsigned long long)e->inode,
					       (unsigned long long)e->size, e->mode);
			}
		}
		nfs_closedir(nfs, d);
	}
	dt = now_s() - t0;
	ok(r == 0, "opendir %s (r %d)", rel, r);
	lpath(lp, sizeof(lp), "main", rel);
	local_names(lp, &want);
	qsort(got.v, got.n, sizeof(*got.v), cmp_str);
	for (i = 1; i < got.n; i++)
		if (!strcmp(got.v[i - 1], got.v[i])) {
			if (dups++ < 3)
				printf("#   duplicate: '%s'\n", got.v[i]);
		}
	for (i = 0, j = 0; i < want.n || j < got.n;) {
		int c = i == want.n ? 1 : j == got.n ? -1 : strcmp(want.v[i], got.v[j]);

		if (c == 0) {
			i++;
			j++;
		} else if (c < 0) {
			if (missing++ < 3)
				printf("#   missing: '%s'\n", want.v[i]);
			i++;
		} else {
			if (extra++ < 3 && (j == 0 || strcmp(got.v[j - 1], got.v[j])))
				printf("#   not in the directory: '%s'\n", got.v[j]);
			j++;
		}
	}
	extra -= dups < extra ? dups : extra;
	ok(want.n >= expect_min && got.n == want.n && !dups && !missing && !extra,
	   "listing of %s is complete, each name once (%zu names, %zu local; %zu missing, "
	   "%zu duplicates, %zu extra)", rel, got.n, want.n, missing, dups, extra);
	ok(badattr == 0, "listing of %s: each entry's fileid, size and mode as lstat (%zu differ)",
	   rel, badattr);
	names_free(&got);
	names_free(&want);
	return dt;
}

static void test_listings(struct nfs_context *nfs)
{
	double dt;

	dt = check_listing(nfs, "/many", 5002);
	printf("# listing 5,000 entries took %.3f s\n", dt);
	ok(dt < LISTING_MAX_S, "listing 5,000 entries takes seconds, not more (%.2f s < %.0f)",
	   dt, LISTING_MAX_S);
	check_listing(nfs, "/names", 8);
	check_listing(nfs, "/", 10);
	check_listing(nfs, "/dir", 3);
}

/* Names of odd forms: stat and read each (its content is its name). */
static void test_odd_names(struct nfs_context *nfs)
{
	char l255[256], u255[256], p[600], buf[600];
	const char *names[8];
	struct nfsfh *fh;
	size_t n = 0, i;
	int r;

	memset(l255, 'L', 255);
	l255[255] = 0;
	/* 127 two-byte characters and one byte: 255 bytes of UTF-8. */
	for (i = 0; i < 127; i++)
		memcpy(u255 + 2 * i, "\xc3\xa9", 2);
	u255[254] = 'x';
	u255[255] = 0;
	names[n++] = "a";
	names[n++] = l255;
	names[n++] = u255;
	names[n++] = "with space";
	names[n++] = " leading and trailing ";
	names[n++] = "\xc3\xbcmlaut-\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e-\xc3\xb1";
	for (i = 0; i < n; i++) {
		size_t len = strlen(names[i]);

		snprintf(p, sizeof(p), "/names/%s", names[i]);
		r = nfs_open(nfs, p, O_RDONLY, &fh);
		if (r == 0) {
			r = nfs_pread(nfs, fh, 0, sizeof(buf), buf);
			nfs_close(nfs, fh);
		}
		ok(r == (int)len && !memcmp(buf, names[i], len),
		   "name of %zu bytes '%.40s%s' opens and reads its own name (r %d)", len,
		   names[i], len > 40 ? "..." : "", r);
	}
}

/* ---- reads -------------------------------------------------------------- */

static uint8_t *slurp(const char *rel, size_t *len)
{
	char lp[4096];
	struct stat st;
	uint8_t *b;
	int fd;

	lpath(lp, sizeof(lp), "main", rel);
	fd = open(lp, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0)
		bail("cannot read a local file");
	b = malloc((size_t)st.st_size + 1);
	if (!b || read(fd, b, (size_t)st.st_size) != st.st_size)
		bail("cannot read a local file");
	close(fd);
	*len = (size_t)st.st_size;
	return b;
}

/*
 * Read [off, off+len) in calls of at most chunk bytes into out; a short
 * read continues where it stopped. Returns bytes read, or a -errno.
 */
static long long read_range(struct nfs_context *nfs, struct nfsfh *fh, uint64_t off,
			    size_t len, size_t chunk, uint8_t *out, int *shorts)
{
	size_t done = 0;

	*shorts = 0;
	while (done < len) {
		size_t want = len - done < chunk ? len - done : chunk;
		int r = nfs_pread(nfs, fh, off + done, want, out + done);

		if (r < 0)
			return r;
		if (r == 0)
			break;
		if ((size_t)r < want)
			(*shorts)++;
		done += (size_t)r;
	}
	return (long long)done;
}

static void test_reads(struct nfs_context *nfs)
{
	static const size_t chunks[] = { 1024 * 1024, 131071, 4097, 65536 * 3 + 1 };
	struct nfsfh *fh;
	uint8_t *local, *got, buf[8192];
	size_t len;
	int r, shorts;
	long long n;

	/* small file */
	local = slurp("/small.txt", &len);
	r = nfs_open(nfs, "/small.txt", O_RDONLY, &fh);
	ok(r == 0, "open /small.txt (r %d)", r);
	if (r == 0) {
		r = nfs_pread(nfs, fh, 0, sizeof(buf), buf);
		ok(r == (int)len && !memcmp(buf, local, len),
		   "read /small.txt: all %zu bytes, as the local file (r %d)", len, r);
		r = nfs_pread(nfs, fh, 3, 4, buf);
		ok(r == 4 && !memcmp(buf, local + 3, 4), "read 4 bytes at offset 3 (r %d)", r);
		r = nfs_pread(nfs, fh, len, 100, buf);
		ok(r == 0, "read at EOF: 0 bytes (r %d)", r);
		r = nfs_pread(nfs, fh, len + 1000, 100, buf);
		ok(r == 0, "read 1000 bytes past EOF: 0 bytes (r %d)", r);
		r = nfs_pread(nfs, fh, 1ull << 40, 100, buf);
		ok(r == 0, "read at 1 TiB: 0 bytes (r %d)", r);
		nfs_close(nfs, fh);
	}
	free(local);

	/* 5 MiB of random bytes, in several chunk sizes */
	local = slurp("/rand5m", &len);
	got = malloc(len + 1);
	r = nfs_open(nfs, "/rand5m", O_RDONLY, &fh);
	ok(r == 0 && len == 5 * MIB, "open /rand5m (r %d, %zu bytes)", r, len);
	if (r == 0) {
		for (size_t i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
			memset(got, 0xa5, len);
			n = read_range(nfs, fh, 0, len, chunks[i], got, &shorts);
			ok(n == (long long)len && !memcmp(got, local, len),
			   "read 5 MiB in chunks of %zu: byte for byte (%lld bytes, %d short reads)",
			   chunks[i], n, shorts);
		}
		/* unaligned ranges inside the file */
		n = read_range(nfs, fh, 1234567, 3 * 131071, 131071, got, &shorts);
		ok(n == 3 * 131071 && !memcmp(got, local + 1234567, 3 * 131071),
		   "read 3*131071 bytes at offset 1234567 (%lld)", n);
		n = read_range(nfs, fh, len - 100, 4097, 4097, got, &shorts);
		ok(n == 100 && !memcmp(got, local + len - 100, 100),
		   "read of 4097 bytes 100 before EOF: the last 100 bytes (%lld)", n);
		r = nfs_pread(nfs, fh, len, 4097, got);
		ok(r == 0, "read at EOF of /rand5m: 0 bytes (r %d)", r);
		nfs_close(nfs, fh);
	}
	free(got);
	free(local);
}

/* Compare NFS reads of REL with local preads at the given ranges. */
struct range {
	uint64_t off;
	size_t len;
	const char *what;
};

static void compare_ranges(struct nfs_context *nfs, const char *rel, const struct range *rg,
			   size_t nr)
{
	struct nfsfh *fh;
	char lp[4096];
	uint8_t *a, *b;
	int fd, r, shorts;

	lpath(lp, sizeof(lp), "main", rel);
	fd = open(lp, O_RDONLY);
	r = nfs_open(nfs, rel, O_RDONLY, &fh);
	ok(fd >= 0 && r == 0, "open %s (r %d)", rel, r);
	if (fd < 0 || r != 0)
		return;
	for (size_t i = 0; i < nr; i++) {
		ssize_t ln;
		long long n;
		bool zeros = true;

		a = calloc(1, rg[i].len + 1);
		b = calloc(1, rg[i].len + 1);
		ln = pread(fd, a, rg[i].len, (off_t)rg[i].off);
		memset(b, 0x5a, rg[i].len);
		n = read_range(nfs, fh, rg[i].off, rg[i].len, 1024 * 1024, b, &shorts);
		for (ssize_t k = 0; k < ln; k++)
			if (a[k]) {
				zeros = false;
				break;
			}
		ok(ln >= 0 && n == ln && !memcmp(a, b, (size_t)ln),
		   "%s: %s (offset %llu, %zu bytes): %lld bytes as the local file%s", rel,
		   rg[i].what, (unsigned long long)rg[i].off, rg[i].len, n,
		   zeros ? " (all zeros)" : "");
		free(a);
		free(b);
	}
	nfs_close(nfs, fh);
	close(fd);
}

static void test_sparse(struct nfs_context *nfs)
{
	const uint64_t mid = 5 * GIB / 2, big = 4 * GIB + 123;
	const struct range sp[] = {
		{ 0, 65536, "head data then zeros" },
		{ 1 * GIB, 1024 * 1024, "1 MiB inside the hole" },
		{ 2 * GIB - 4096, 8192, "the 2 GiB boundary (31-bit offsets)" },
		{ mid - 100, 4096, "zeros, the middle data, zeros" },
		{ 3 * GIB - 10, 100, "the last 10 bytes (short read at EOF)" },
		{ 3 * GIB, 100, "at EOF" },
	};
	const struct range bg[] = {
		{ big - 100, 200, "zeros then the data beyond 4 GiB" },
		{ big, 16, "the data at 4 GiB + 123" },
		{ 123, 16, "offset 123 (4 GiB + 123 truncated to 32 bits): zeros" },
		{ 4 * GIB - 8, 16, "across the 4 GiB boundary" },
		{ big + 16, 10, "at EOF" },
	};
	struct nfsfh *fh;
	char buf[64];
	int r;

	compare_ranges(nfs, "/sparse3g", sp, sizeof(sp) / sizeof(sp[0]));
	compare_ranges(nfs, "/big5g", bg, sizeof(bg) / sizeof(bg[0]));
	/* And the known content, independently of the local reads. */
	r = nfs_open(nfs, "/sparse3g", O_RDONLY, &fh);
	if (r == 0) {
		r = nfs_pread(nfs, fh, mid, 13, buf);
		ok(r == 13 && !memcmp(buf, "SPARSE-MIDDLE", 13),
		   "/sparse3g: 'SPARSE-MIDDLE' at 2.5 GiB (r %d)", r);
		r = nfs_pread(nfs, fh, 0, 11, buf);
		ok(r == 11 && !memcmp(buf, "SPARSE-HEAD", 11), "/sparse3g: 'SPARSE-HEAD' at 0");
		nfs_close(nfs, fh);
	} else {
		ok(0, "open /sparse3g (r %d)", r);
		ok(0, "open /sparse3g (r %d)", r);
	}
	r = nfs_open(nfs, "/big5g", O_RDONLY, &fh);
	if (r == 0) {
		r = nfs_pread(nfs, fh, big, 64, buf);
		ok(r == 16 && !memcmp(buf, "BEYOND-4GIB-DATA", 16),
		   "/big5g: 'BEYOND-4GIB-DATA' at 4 GiB + 123, then EOF (r %d)", r);
		nfs_close(nfs, fh);
	} else {
		ok(0, "open /big5g (r %d)", r);
	}
}

/* ---- readlink, access, statvfs, errors ------------------------------------- */

static void test_misc(struct nfs_context *nfs)
{
	struct nfs_statvfs_64 sv;
	struct statvfs lv;
	struct nfs_stat_64 ns;
	struct nfsfh *fh;
	char buf[4096], lp[4096];
	int r, r2;

	memset(buf, 0, sizeof(buf));
	r = nfs_readlink(nfs, "/link", buf, sizeof(buf));
	ok(r == 0 && !strcmp(buf, "small.txt"), "readlink /link: 'small.txt' (r %d, '%s')", r,
	   buf);
	memset(buf, 0, sizeof(buf));
	r = nfs_readlink(nfs, "/dangling", buf, sizeof(buf));
	ok(r == 0 && !strcmp(buf, "no/such/target"),
	   "readlink /dangling: 'no/such/target' (r %d, '%s')", r, buf);
	r = nfs_readlink(nfs, "/small.txt", buf, sizeof(buf));
	ok(r < 0, "readlink of a regular file fails (r %d)", r);

	/* access on this export (ro, root squashed to nobody) */
	r = nfs_access(nfs, "/small.txt", R_OK);
	ok(r == 0, "access /small.txt R_OK (r %d)", r);
	r = nfs_access(nfs, "/small.txt", W_OK);
	ok(r == -EACCES, "access /small.txt W_OK on a ro export: EACCES (r %d)", r);
	r = nfs_access(nfs, "/small.txt", X_OK);
	ok(r == -EACCES, "access /small.txt (0644) X_OK: EACCES (r %d)", r);
	r = nfs_access(nfs, "/exec755", X_OK);
	ok(r == 0, "access /exec755 X_OK (r %d)", r);
	r = nfs_access(nfs, "/dir", R_OK | X_OK);
	ok(r == 0, "access /dir R_OK|X_OK (r %d)", r);
	r = nfs_access2(nfs, "/exec755");
	ok(r == (R_OK | X_OK), "access2 /exec755: R and X, not W (mask %d)", r);

	/* statvfs */
	lpath(lp, sizeof(lp), "main", "");
	r = nfs_statvfs64(nfs, "/", &sv);
	r2 = statvfs(lp, &lv);
	ok(r == 0 && r2 == 0, "statvfs / (r %d)", r);
	if (r == 0 && r2 == 0) {
		double nt = (double)sv.f_blocks * (double)sv.f_bsize;
		double lt = (double)lv.f_blocks * (double)lv.f_frsize;

		printf("# statvfs: bsize %llu blocks %llu bfree %llu bavail %llu files %llu "
		       "ffree %llu favail %llu\n", (unsigned long long)sv.f_bsize,
		       (unsigned long long)sv.f_blocks, (unsigned long long)sv.f_bfree,
		       (unsigned long long)sv.f_bavail, (unsigned long long)sv.f_files,
		       (unsigned long long)sv.f_ffree, (unsigned long long)sv.f_favail);
		ok(sv.f_bsize > 0 && sv.f_blocks > 0 && sv.f_bfree > 0 &&
		   sv.f_bfree <= sv.f_blocks && sv.f_bavail <= sv.f_bfree,
		   "statvfs: blocks > 0, 0 < bavail <= bfree <= blocks");
		ok(nt > lt * 0.99 && nt < lt * 1.01,
		   "statvfs: total bytes as the local file system's (%.0f vs %.0f)", nt, lt);
		ok(sv.f_files > 0 && sv.f_ffree <= sv.f_files && sv.f_favail <= sv.f_files &&
		   (sv.f_files == lv.f_files || lv.f_files == 0),
		   "statvfs: files %llu as local (%llu), ffree <= files",
		   (unsigned long long)sv.f_files, (unsigned long long)lv.f_files);
	}

	/* errors */
	r = nfs_stat64(nfs, "/no-such-name", &ns);
	ok(r == -ENOENT, "stat of a missing name: ENOENT (r %d)", r);
	r = nfs_open(nfs, "/no-such-name", O_RDONLY, &fh);
	ok(r == -ENOENT, "open of a missing name: ENOENT (r %d)", r);
	r = nfs_stat64(nfs, "/small.txt/x", &ns);
	ok(r == -ENOTDIR, "lookup under a regular file: ENOTDIR (r %d)", r);
	r = nfs_stat64(nfs, "/dir/no/deeper", &ns);
	ok(r == -ENOENT, "stat /dir/no/deeper: ENOENT (r %d)", r);
	r = nfs_open(nfs, "/dir", O_RDONLY, &fh);
	if (r == 0) {
		r2 = nfs_pread(nfs, fh, 0, sizeof(buf), buf);
		nfs_close(nfs, fh);
	} else {
		r2 = r;
	}
	ok(r2 < 0, "reading a directory fails (open %d, read %d%s)", r, r2,
	   r2 == -EISDIR ? ": EISDIR" : "");
	if (r2 != -EISDIR)
		printf("#   libnfs: %s\n", nfs_get_error(nfs));
	{
		struct nfsdir *d;

		r = nfs_opendir(nfs, "/small.txt", &d);
		if (r == 0)
			nfs_closedir(nfs, d);
		ok(r == -ENOTDIR, "opendir of a regular file: ENOTDIR (r %d)", r);
	}
}

/* ---- identities and export options ------------------------------------------ */

/* Open and read REL: the bytes read (compared with want), or a -errno. */
static int read_file(struct nfs_context *nfs, const char *rel, const char *want)
{
	struct nfsfh *fh;
	char buf[256];
	int r = nfs_open(nfs, rel, O_RDONLY, &fh);

	if (r < 0)
		return r;
	r = nfs_pread(nfs, fh, 0, sizeof(buf), buf);
	nfs_close(nfs, fh);
	if (r >= 0 && (r != (int)strlen(want) || memcmp(buf, want, (size_t)r)))
		return -1000; /* wrong content */
	return r;
}

static void test_identities(void)
{
	struct nfs_context *nfs;
	int err, r;
	static const int uids[] = { 0, 1000, 2000 };

	/* main: ro, root_squash (default) */
	nfs = mount_as(port, "main", 1000, 1000, &err);
	ok(nfs != NULL, "mount main as uid 1000 (%d)", err);
	if (nfs) {
		r = read_file(nfs, "/secret600", "secret\n");
		ok(r == -EACCES, "uid 1000: root's 0600 file refused, EACCES (r %d)", r);
		r = read_file(nfs, "/public644", "public\n");
		ok(r == 7, "uid 1000: root's 0644 file reads (r %d)", r);
		r = nfs_access(nfs, "/secret600", R_OK);
		ok(r == -EACCES, "uid 1000: access R_OK of the 0600 file: EACCES (r %d)", r);
		nfs_destroy_context(nfs);
	}
	nfs = mount_as(port, "main", 0, 0, &err);
	ok(nfs != NULL, "mount main as uid 0 (%d)", err);
	if (nfs) {
		r = read_file(nfs, "/secret600", "secret\n");
		ok(r == -EACCES, "root_squash (default): uid 0 refused root's 0600 file (r %d)",
		   r);
		r = read_file(nfs, "/public644", "public\n");
		ok(r == 7, "root_squash: uid 0 reads the 0644 file (r %d)", r);
		nfs_destroy_context(nfs);
	}

	/* nrs: rw, no_root_squash */
	nfs = mount_as(port, "nrs", 0, 0, &err);
	ok(nfs != NULL, "mount nrs (rw,no_root_squash) as uid 0 (%d)", err);
	if (nfs) {
		r = read_file(nfs, "/secret600", "secret\n");
		ok(r == 7, "no_root_squash: uid 0 reads root's 0600 file (r %d)", r);
		r = nfs_access(nfs, "/public644", W_OK);
		ok(r == 0, "rw export, no_root_squash: access W_OK of root's 0644 file (r %d)", r);
		nfs_destroy_context(nfs);
	}
	nfs = mount_as(port, "nrs", 1000, 1000, &err);
	if (nfs) {
		r = read_file(nfs, "/secret600", "secret\n");
		ok(r == -EACCES, "no_root_squash, uid 1000: root's 0600 file refused (r %d)", r);
		r = nfs_access(nfs, "/public644", W_OK);
		ok(r == -EACCES, "rw export, uid 1000: no W_OK on root's 0644 file (r %d)", r);
		nfs_destroy_context(nfs);
	} else {
		ok(0, "mount nrs as uid 1000 (%d)", err);
	}

	/* ro: ro, no_root_squash */
	nfs = mount_as(port, "ro", 0, 0, &err);
	ok(nfs != NULL, "mount the second export, ro (%d)", err);
	if (nfs) {
		r = read_file(nfs, "/public644", "public\n");
		ok(r == 7, "ro export: reads (r %d)", r);
		r = nfs_access(nfs, "/public644", W_OK);
		ok(r == -EACCES, "ro export, uid 0 unsquashed: no W_OK on root's 0644 file (r %d)",
		   r);
		r = nfs_access2(nfs, "/public644");
		ok(r >= 0 && (r & R_OK) && !(r & W_OK), "ro export: access2 has R, not W (%d)", r);
		r = nfs_access(nfs, "/", W_OK);
		ok(r == -EACCES, "ro export: no W_OK on the root directory (r %d)", r);
		nfs_destroy_context(nfs);
	}

	/* as: all_squash, anonuid=1000 */
	for (size_t i = 0; i < sizeof(uids) / sizeof(uids[0]); i++) {
		nfs = mount_as(port, "as", uids[i], uids[i], &err);
		if (!nfs) {
			ok(0, "mount as (all_squash) as uid %d (%d)", uids[i], err);
			ok(0, "mount as (all_squash) as uid %d (%d)", uids[i], err);
			continue;
		}
		r = read_file(nfs, "/owned1000", "mine\n");
		ok(r == 5, "all_squash,anonuid=1000: uid %d reads 1000's 0600 file (r %d)",
		   uids[i], r);
		r = read_file(nfs, "/root600", "root\n");
		ok(r == -EACCES, "all_squash: uid %d refused root's 0600 file (r %d)", uids[i], r);
		nfs_destroy_context(nfs);
	}

	/* The second server: an exports file. */
	nfs = mount_as(port2, "denied", -1, -1, &err);
	ok(nfs == NULL, "mount of an export whose only rule is 10.0.0.0/8 fails (%d)", err);
	if (nfs)
		nfs_destroy_context(nfs);
	nfs = mount_as(port2, "allowed", -1, -1, &err);
	ok(nfs != NULL, "mount of an export with rule 127.0.0.1(ro) works (%d)", err);
	if (nfs) {
		r = read_file(nfs, "/public644", "public\n");
		ok(r == 7, "... and reads (r %d)", r);
		nfs_destroy_context(nfs);
	}
	nfs = mount_as(port, "not-exported", -1, -1, &err);
	ok(nfs == NULL, "mount of a path that is not exported fails (%d)", err);
	if (nfs)
		nfs_destroy_context(nfs);
}

int main(int argc, char **argv)
{
	struct nfs_context *nfs;
	int err;

	if (argc < 4) {
		fprintf(stderr, "usage: test_nfs3_libnfs PORT PORT2 BASE\n");
		return 2;
	}
	port = (unsigned int)atoi(argv[1]);
	port2 = (unsigned int)atoi(argv[2]);
	base = argv[3];
	setvbuf(stdout, NULL, _IOLBF, 0);

	nfs = mount_as(port, "main", -1, -1, &err);
	ok(nfs != NULL, "mount main (default options) as root with libnfs (%d)", err);
	if (!nfs)
		bail("cannot mount");
	test_stat(nfs);
	test_listings(nfs);
	test_odd_names(nfs);
	test_reads(nfs);
	test_sparse(nfs);
	test_misc(nfs);
	nfs_umount(nfs);
	nfs_destroy_context(nfs);
	test_identities();
	return tap_done();
}
