/* SPDX-License-Identifier: MIT */
/* Directory listing and its cache: see dir.h. */
#include "vfs/dir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "vfs/vfs.h"

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

enum {
	E_FH = 1,      /* fh holds the entry's handle */
	E_ST = 2,      /* st holds its attributes, taken at st_at */
	E_KEEP_ST = 4, /* ... and they may be served again (see dir.h) */
};

/* What fattr3 and fattr4 need of a stat, in 96 bytes instead of 144. */
struct dc_attr {
	uint64_t dev, rdev, size, blocks;
	int64_t atime, mtime, ctime;
	uint32_t atime_ns, mtime_ns, ctime_ns;
	uint32_t mode, nlink, uid, gid;
};

struct dc_entry {
	uint64_t cookie;
	uint64_t ino;
	uint32_t name_off;    /* in names */
	uint32_t fh_off;      /* in names too, when E_FH */
	uint32_t st_at;       /* coarse monotonic seconds */
	uint16_t namelen;
	uint8_t fhlen;
	uint8_t flags;
	struct dc_attr a;
};

#define PENDING_NAMES 32
#define HINTS 8
/* Entries a worker reads past its reply into a listing being read, so
 * that the next calls are answered from the cache on an event loop: on
 * the test VM (about 5 us an entry) at most ~2.5 ms more for this call,
 * and one worker call instead of about 12 for libnfs's 8 KiB replies. */
#define READ_AHEAD 512u

struct dc_dir {
	/* key */
	uint32_t export_id;
	dev_t dev;
	ino_t ino;
	struct dc_dir *hnext, *wnext, *lru_prev, *lru_next;
	int wd;                     /* inotify watch, -1: none */
	bool rm_wd;                 /* freed: its watch is to be removed */
	unsigned int refs;          /* calls using it (g.lock) */
	uint32_t used;              /* last use, coarse seconds (g.lock) */
	size_t bytes;               /* accounted in g.bytes (g.lock) */
	/* What events said since the last call (g.lock). */
	bool p_drop, p_attrs;
	unsigned int p_n;
	char *p_names[PENDING_NAMES];

	/* The listing (lock). */
	pthread_mutex_t lock;
	struct timespec mtime, ctime; /* the directory's, when it was read */
	uint64_t attr_epoch;        /* g.epoch its attributes were taken in */
	bool complete;              /* read to its end */
	bool building;              /* read from the start up to next_cookie */
	int bfd;                    /* ... through this descriptor, or -1 */
	bool too_big;               /* did not fit: not again until it changes */
	uint64_t next_cookie;
	/* Where recent replies ended: a listing being read has no cookie
	 * table yet, and a client reading on sends the last cookie it got. */
	struct { uint64_t cookie; uint32_t next; } hint[HINTS];
	unsigned int nhints;
	struct dc_entry *ent;
	uint32_t n, cap;
	char *names;                /* names and handles */
	uint32_t names_len, names_cap;
	uint32_t *ctab, *ntab;      /* cookie and name hash tables: index + 1 */
	uint32_t tcap;              /* their size, a power of two, >= 2 n */
	size_t size;                /* bytes held, updated under lock */
};

#define HASH_BUCKETS 1024u
#define WD_BUCKETS 256u

static struct {
	pthread_mutex_t lock;
	int ifd;
	size_t budget, bytes;
	struct dc_dir *hash[HASH_BUCKETS];
	struct dc_dir *wds[WD_BUCKETS];
	struct dc_dir *lru_head, *lru_tail;   /* head: most recently used */
	unsigned int dirs;
	uint64_t hits, misses, stats;
	/* Bumped after every change made through nfsxd (vfs_dir_changed):
	 * inotify misses some of them (a file opened by handle through a
	 * disconnected dentry notifies no parent, a link made elsewhere
	 * notifies only the file's own watchers). */
	uint64_t epoch;
} g = { .lock = PTHREAD_MUTEX_INITIALIZER, .ifd = -1 };

static uint32_t now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &t);   /* vDSO: no system call */
	return (uint32_t)t.tv_sec;
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

static uint64_t name_hash(const char *s, uint32_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	uint32_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
	return mix64(h);
}

static unsigned int key_bucket(uint32_t id, dev_t dev, ino_t ino)
{
	return (unsigned int)(mix64((uint64_t)ino ^ mix64((uint64_t)dev ^ id)) % HASH_BUCKETS);
}

/* ---- one directory's listing (its lock held) ---- */

static void set_complete(struct dc_dir *d, bool v)
{
	d->complete = v;
}

/* The directory's descriptor a build reads on with: kept from call to
 * call, it spares each an open through /proc/self/fd and a close. */
static void build_end(struct dc_dir *d)
{
	d->building = false;
	if (d->bfd >= 0)
		close(d->bfd);
	d->bfd = -1;
}

static void listing_reset(struct dc_dir *d)
{
	set_complete(d, false);
	build_end(d);
	d->nhints = 0;
	d->n = 0;
	d->names_len = 0;
}

static void listing_free(struct dc_dir *d)
{
	free(d->ent);
	free(d->names);
	free(d->ctab);
	free(d->ntab);
	d->ent = NULL;
	d->names = NULL;
	d->ctab = d->ntab = NULL;
	d->n = d->cap = d->names_len = d->names_cap = d->tcap = 0;
	set_complete(d, false);
	build_end(d);
	d->nhints = 0;
	d->size = 0;
}

static void tab_put(uint32_t *tab, uint32_t cap, uint64_t h, uint32_t idx)
{
	uint32_t i = (uint32_t)h & (cap - 1);

	while (tab[i])
		i = (i + 1) & (cap - 1);
	tab[i] = idx + 1;
}

/* The cookie and name tables of the whole listing. */
static int tabs_build(struct dc_dir *d)
{
	uint32_t cap = 256, i;

	while (cap < 2 * d->n)
		cap *= 2;
	if (cap != d->tcap) {
		uint32_t *ct = calloc(cap, sizeof(*ct)), *nt = calloc(cap, sizeof(*nt));

		if (!ct || !nt) {
			free(ct);
			free(nt);
			return -ENOMEM;
		}
		free(d->ctab);
		free(d->ntab);
		d->ctab = ct;
		d->ntab = nt;
		d->tcap = cap;
	} else {
		memset(d->ctab, 0, cap * sizeof(*d->ctab));
		memset(d->ntab, 0, cap * sizeof(*d->ntab));
	}
	for (i = 0; i < d->n; i++) {
		tab_put(d->ctab, cap, mix64(d->ent[i].cookie), i);
		tab_put(d->ntab, cap, name_hash(d->names + d->ent[i].name_off, d->ent[i].namelen), i);
	}
	return 0;
}

static size_t listing_size(const struct dc_dir *d)
{
	return sizeof(*d) + (size_t)d->cap * sizeof(*d->ent) + d->names_cap +
	       2 * (size_t)d->tcap * sizeof(uint32_t);
}

/* Index of the entry whose cookie is @c, or -1. */
static long by_cookie(const struct dc_dir *d, uint64_t c)
{
	uint32_t i, v;

	if (!d->tcap)
		return -1;
	for (i = (uint32_t)mix64(c) & (d->tcap - 1); (v = d->ctab[i]); i = (i + 1) & (d->tcap - 1))
		if (d->ent[v - 1].cookie == c)
			return (long)v - 1;
	return -1;
}

static void hint_set(struct dc_dir *d, uint64_t cookie, uint32_t next)
{
	d->hint[d->nhints % HINTS].cookie = cookie;
	d->hint[d->nhints % HINTS].next = next;
	d->nhints++;
}

/* Index of the first entry after @cookie in the listing (whole or being
 * read), or -1 when it is not known. */
static long position(const struct dc_dir *d, uint64_t cookie)
{
	unsigned int i;
	long at;

	if (!d->complete && !d->building)
		return -1;
	if (cookie == 0)
		return 0;
	if (d->complete && (at = by_cookie(d, cookie)) >= 0)
		return at + 1;
	for (i = 0; i < HINTS && i < d->nhints; i++)
		if (d->hint[i].cookie == cookie && d->hint[i].next <= d->n)
			return d->hint[i].next;
	return -1;
}

static long by_name(const struct dc_dir *d, const char *name)
{
	uint32_t len = (uint32_t)strlen(name), i, v;

	if (!d->tcap)
		return -1;
	for (i = (uint32_t)name_hash(name, len) & (d->tcap - 1); (v = d->ntab[i]); i = (i + 1) & (d->tcap - 1)) {
		const struct dc_entry *x = &d->ent[v - 1];

		if (x->namelen == len && memcmp(d->names + x->name_off, name, len) == 0)
			return (long)v - 1;
	}
	return -1;
}

static void attr_pack(const struct stat *st, struct dc_attr *a)
{
	a->dev = st->st_dev;
	a->rdev = st->st_rdev;
	a->size = (uint64_t)st->st_size;
	a->blocks = (uint64_t)st->st_blocks;
	a->atime = st->st_atim.tv_sec;
	a->mtime = st->st_mtim.tv_sec;
	a->ctime = st->st_ctim.tv_sec;
	a->atime_ns = (uint32_t)st->st_atim.tv_nsec;
	a->mtime_ns = (uint32_t)st->st_mtim.tv_nsec;
	a->ctime_ns = (uint32_t)st->st_ctim.tv_nsec;
	a->mode = st->st_mode;
	a->nlink = (uint32_t)st->st_nlink;
	a->uid = st->st_uid;
	a->gid = st->st_gid;
}

static void attr_unpack(const struct dc_entry *x, struct stat *st)
{
	const struct dc_attr *a = &x->a;

	memset(st, 0, sizeof(*st));
	st->st_dev = (dev_t)a->dev;
	st->st_ino = (ino_t)x->ino;
	st->st_rdev = (dev_t)a->rdev;
	st->st_size = (off_t)a->size;
	st->st_blocks = (blkcnt_t)a->blocks;
	st->st_atim.tv_sec = a->atime;
	st->st_mtim.tv_sec = a->mtime;
	st->st_ctim.tv_sec = a->ctime;
	st->st_atim.tv_nsec = a->atime_ns;
	st->st_mtim.tv_nsec = a->mtime_ns;
	st->st_ctim.tv_nsec = a->ctime_ns;
	st->st_mode = a->mode;
	st->st_nlink = a->nlink;
	st->st_uid = a->uid;
	st->st_gid = a->gid;
}

/* Append @len bytes to the names; false when out of memory. */
static bool arena_put(struct dc_dir *d, const void *p, uint32_t len, uint32_t *off)
{
	if (d->names_len + len > d->names_cap) {
		uint32_t cap = d->names_cap ? d->names_cap : 1024;
		char *nn;

		while (cap < d->names_len + len) {
			if (cap > UINT32_MAX / 2)
				return false;
			cap *= 2;
		}
		nn = realloc(d->names, cap);
		if (!nn)
			return false;
		d->names = nn;
		d->names_cap = cap;
	}
	memcpy(d->names + d->names_len, p, len);
	*off = d->names_len;
	d->names_len += len;
	return true;
}

/* Append an entry; false when it does not fit the budget (or memory). */
static bool listing_add(struct dc_dir *d, size_t limit, const struct linux_dirent64 *de,
			uint32_t nl, const struct stat *st, const struct nfsx_fh *fh,
			bool keep_st, uint32_t now)
{
	struct dc_entry *x;

	if (d->n == d->cap) {
		size_t room = limit > sizeof(*d) + d->names_cap ?
			      (limit - sizeof(*d) - d->names_cap) / sizeof(struct dc_entry) : 0;
		uint32_t cap = d->cap ? d->cap * 2 : 16;
		struct dc_entry *ne;

		/* doubling past the limit: take what is left of it */
		if (cap > room)
			cap = (uint32_t)(room < UINT32_MAX ? room : UINT32_MAX);
		if (cap <= d->cap)
			return false;
		ne = realloc(d->ent, (size_t)cap * sizeof(*ne));
		if (!ne)
			return false;
		d->ent = ne;
		d->cap = cap;
	}
	x = &d->ent[d->n];
	x->cookie = (uint64_t)de->d_off;
	x->ino = de->d_ino;
	x->namelen = (uint16_t)nl;
	x->flags = 0;
	if (!arena_put(d, de->d_name, nl, &x->name_off))
		return false;
	if (fh && arena_put(d, fh->data, fh->len, &x->fh_off)) {
		x->fhlen = (uint8_t)fh->len;
		x->flags |= E_FH;
	}
	if (st) {
		attr_pack(st, &x->a);
		x->st_at = now;
		x->flags |= E_ST | (keep_st ? E_KEEP_ST : 0);
	}
	d->size = listing_size(d);
	if (d->size > limit)
		return false;
	d->n++;
	return true;
}

/* ---- the directory table and inotify (g.lock held) ---- */

static void lru_unlink(struct dc_dir *d)
{
	if (d->lru_prev)
		d->lru_prev->lru_next = d->lru_next;
	else
		g.lru_head = d->lru_next;
	if (d->lru_next)
		d->lru_next->lru_prev = d->lru_prev;
	else
		g.lru_tail = d->lru_prev;
	d->lru_prev = d->lru_next = NULL;
}

static void lru_front(struct dc_dir *d)
{
	lru_unlink(d);
	d->lru_next = g.lru_head;
	if (g.lru_head)
		g.lru_head->lru_prev = d;
	g.lru_head = d;
	if (!g.lru_tail)
		g.lru_tail = d;
}

static struct dc_dir **wd_slot(int wd)
{
	return &g.wds[(unsigned int)wd % WD_BUCKETS];
}

static void wd_unlink(struct dc_dir *d)
{
	struct dc_dir **pp;
	bool shared = false;

	if (d->wd < 0)
		return;
	for (pp = wd_slot(d->wd); *pp; pp = &(*pp)->wnext)
		if (*pp == d) {
			*pp = d->wnext;
			break;
		}
	for (struct dc_dir *o = *wd_slot(d->wd); o; o = o->wnext)
		shared |= o->wd == d->wd;
	d->rm_wd = !shared;   /* removed by dir_destroy, out of g.lock */
	if (shared)
		d->wd = -1;
	d->wnext = NULL;
}

static void pending_clear(struct dc_dir *d)
{
	unsigned int i;

	for (i = 0; i < d->p_n; i++)
		free(d->p_names[i]);
	d->p_n = 0;
}

/* Take @d out of the table (g.lock held); dir_destroy frees it after
 * g.lock is let go: closing its descriptor or removing its watch may
 * take a while, and an event loop may be waiting for g.lock. */
static void dir_unlink(struct dc_dir *d)
{
	struct dc_dir **pp;

	for (pp = &g.hash[key_bucket(d->export_id, d->dev, d->ino)]; *pp; pp = &(*pp)->hnext)
		if (*pp == d) {
			*pp = d->hnext;
			break;
		}
	wd_unlink(d);
	lru_unlink(d);
	pending_clear(d);
	g.bytes -= d->bytes;
	g.dirs--;
}

/* Free the directories dir_unlink chained on hnext. */
static void dir_destroy(struct dc_dir *d)
{
	struct dc_dir *next;

	for (; d; d = next) {
		next = d->hnext;
		if (d->rm_wd && d->wd >= 0)
			inotify_rm_watch(g.ifd, d->wd);
		listing_free(d);
		pthread_mutex_destroy(&d->lock);
		free(d);
	}
}

/* Drop unused listings: idle ones, then the least recently used while
 * over the budget. */
static struct dc_dir *evict(uint32_t now)
{
	struct dc_dir *d = g.lru_tail, *prev, *gone = NULL;

	for (; d; d = prev) {
		prev = d->lru_prev;
		if (d->refs)
			continue;
		if (g.bytes > g.budget || now - d->used >= VFS_DIR_IDLE) {
			dir_unlink(d);
			d->hnext = gone;
			gone = d;
		} else {
			break;   /* the rest were used more recently */
		}
	}
	return gone;   /* for dir_destroy, once g.lock is let go */
}

static void note_event(const struct inotify_event *ev)
{
	struct dc_dir *d, *next;
	unsigned int i;

	if (ev->mask & IN_Q_OVERFLOW) {
		for (d = g.lru_head; d; d = d->lru_next)
			d->p_drop = true;
		return;
	}
	for (d = *wd_slot(ev->wd); d; d = next) {
		next = d->wnext;
		if (d->wd != ev->wd)
			continue;
		if (ev->mask & IN_IGNORED) {
			/* the watch is gone (directory removed, file system
			 * unmounted): a listing cannot be trusted any more */
			struct dc_dir **pp;

			for (pp = wd_slot(d->wd); *pp; pp = &(*pp)->wnext)
				if (*pp == d) {
					*pp = d->wnext;
					break;
				}
			d->wd = -1;
			d->wnext = NULL;
			d->p_drop = true;
			continue;
		}
		if (ev->mask & (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |
				IN_DELETE_SELF))
			d->p_drop = true;
		if ((ev->mask & (IN_ATTRIB | IN_MODIFY)) && ev->len && !d->p_attrs) {
			char *s = d->p_n < PENDING_NAMES ? strdup(ev->name) : NULL;

			if (s)
				d->p_names[d->p_n++] = s;
			else
				d->p_attrs = true;   /* too many: all of them */
			for (i = 0; d->p_attrs && i < d->p_n; i++)
				free(d->p_names[i]);
			if (d->p_attrs)
				d->p_n = 0;
		}
	}
}

static void drain_events(void)
{
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));

	for (;;) {
		ssize_t n = read(g.ifd, buf, sizeof(buf)), pos = 0;

		if (n <= 0)
			return;   /* EAGAIN: no more */
		while (pos < n) {
			const struct inotify_event *ev = (const void *)(buf + pos);

			note_event(ev);
			pos += (ssize_t)(sizeof(*ev) + ev->len);
		}
		if (n < (ssize_t)(sizeof(buf) - sizeof(struct inotify_event) - NAME_MAX - 1))
			return;
	}
}

static struct dc_dir *dir_get(uint32_t id, const struct stat *dst, uint32_t now)
{
	unsigned int b = key_bucket(id, dst->st_dev, dst->st_ino);
	struct dc_dir *d;

	for (d = g.hash[b]; d; d = d->hnext)
		if (d->export_id == id && d->dev == dst->st_dev && d->ino == dst->st_ino)
			break;
	if (!d) {
		d = calloc(1, sizeof(*d));
		if (!d)
			return NULL;
		d->export_id = id;
		d->dev = dst->st_dev;
		d->ino = dst->st_ino;
		d->wd = -1;
		d->bfd = -1;
		pthread_mutex_init(&d->lock, NULL);
		d->hnext = g.hash[b];
		g.hash[b] = d;
		d->bytes = sizeof(*d);
		g.bytes += d->bytes;
		g.dirs++;
	}
	d->refs++;
	d->used = now;
	lru_front(d);
	return d;
}

/* Watch @d's directory (@fd names it) unless it already is. d->lock held,
 * not g.lock: adding a watch walks the directory's cached entries. */
static int dir_watch(struct dc_dir *d, int fd)
{
	char p[64];
	bool have;
	int wd;

	pthread_mutex_lock(&g.lock);
	have = d->wd >= 0;
	pthread_mutex_unlock(&g.lock);
	if (have)
		return 0;
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	wd = inotify_add_watch(g.ifd, p, IN_ATTRIB | IN_MODIFY | IN_CREATE | IN_DELETE |
				   IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF |
				   IN_ONLYDIR | IN_EXCL_UNLINK);
	if (wd < 0)
		return -errno;
	pthread_mutex_lock(&g.lock);
	if (d->wd < 0) {
		d->wd = wd;
		d->wnext = *wd_slot(wd);
		*wd_slot(wd) = d;
	}
	pthread_mutex_unlock(&g.lock);
	return 0;
}

/* What events said, applied to the listing. Both locks held. */
static void apply_pending(struct dc_dir *d, const struct stat *dst)
{
	unsigned int i;

	if (d->p_drop || (d->n && (d->mtime.tv_sec != dst->st_mtim.tv_sec ||
				   d->mtime.tv_nsec != dst->st_mtim.tv_nsec ||
				   d->ctime.tv_sec != dst->st_ctim.tv_sec ||
				   d->ctime.tv_nsec != dst->st_ctim.tv_nsec))) {
		listing_reset(d);
		d->too_big = false;
	} else if (d->p_attrs) {
		for (i = 0; i < d->n; i++)
			d->ent[i].flags &= (uint8_t)~E_ST;
	} else if (d->p_n && !d->complete) {
		/* still being read: no name table yet */
		for (i = 0; i < d->n; i++)
			d->ent[i].flags &= (uint8_t)~E_ST;
	} else {
		for (i = 0; i < d->p_n; i++) {
			long x = by_name(d, d->p_names[i]);

			if (x >= 0)
				d->ent[x].flags &= (uint8_t)~E_ST;
		}
	}
	d->p_drop = d->p_attrs = false;
	pending_clear(d);
}

/* ---- attributes and handles of one entry ---- */

struct lister {
	const uint8_t *key;
	const struct vfs_export *e;
	const struct vfs_dir_sink *s;
	int dfd;                    /* a descriptor of the directory */
	bool search;                /* the caller may search it */
	bool have_mnt;
	uint64_t mnt;               /* its mount id (no private view) */
	uint32_t now;
};

static bool is_dot(const char *n, uint32_t nl)
{
	return n[0] == '.' && (nl == 1 || (nl == 2 && n[1] == '.'));
}

/*
 * Attributes of @name: a mount point outside a private view (another
 * mount id) has none here; LOOKUP decides whether it may be crossed, as
 * nfsd's READDIRPLUS leaves it.
 */
static bool entry_stat(struct lister *l, const char *name, struct stat *st)
{
	struct statx x;
	unsigned int mask = STATX_BASIC_STATS;

	if (!l->e->private_view) {
		mask |= STATX_MNT_ID;
		if (!l->have_mnt) {
			if (statx(l->dfd, "", AT_EMPTY_PATH, STATX_MNT_ID, &x) < 0 ||
			    !(x.stx_mask & STATX_MNT_ID))
				return false;
			l->mnt = x.stx_mnt_id;
			l->have_mnt = true;
		}
	}
	__atomic_add_fetch(&g.stats, 1, __ATOMIC_RELAXED);
	if (statx(l->dfd, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, mask, &x) < 0)
		return false;
	if (!l->e->private_view && (!(x.stx_mask & STATX_MNT_ID) || x.stx_mnt_id != l->mnt))
		return false;
	memset(st, 0, sizeof(*st));
	st->st_dev = makedev(x.stx_dev_major, x.stx_dev_minor);
	st->st_ino = x.stx_ino;
	st->st_mode = x.stx_mode;
	st->st_nlink = x.stx_nlink;
	st->st_uid = x.stx_uid;
	st->st_gid = x.stx_gid;
	st->st_rdev = makedev(x.stx_rdev_major, x.stx_rdev_minor);
	st->st_size = (off_t)x.stx_size;
	st->st_blksize = x.stx_blksize;
	st->st_blocks = (blkcnt_t)x.stx_blocks;
	st->st_atim.tv_sec = x.stx_atime.tv_sec;
	st->st_atim.tv_nsec = x.stx_atime.tv_nsec;
	st->st_mtim.tv_sec = x.stx_mtime.tv_sec;
	st->st_mtim.tv_nsec = x.stx_mtime.tv_nsec;
	st->st_ctim.tv_sec = x.stx_ctime.tv_sec;
	st->st_ctim.tv_nsec = x.stx_ctime.tv_nsec;
	return true;
}

static bool keep_st(const struct stat *st)
{
	return !S_ISDIR(st->st_mode) && st->st_nlink == 1;
}

/*
 * Do an entry's attributes @st belong with the handle taken just before
 * them, of the inode @hino names (0: the layout does not say) and the
 * directory listed as @d_ino? A rename over the name between the two
 * calls makes them differ, and the entry goes bare rather than with one
 * file's handle and another's attributes. The handle's own inode number
 * catches what d_ino alone does not: the name renamed over again by a
 * new file that got the old inode number back (ext4 reuses them at once).
 */
static bool same_inode(const struct stat *st, uint64_t d_ino, uint64_t hino)
{
	return st->st_ino == d_ino && (hino == 0 || hino == st->st_ino);
}

/* ---- listing by getdents64, building the cache on the way ---- */

/* A failed read: the listing being read (@build) ends with its
 * descriptor, else the call's own descriptor is closed. Returns @err. */
static int stream_fail(struct dc_dir *d, bool build, int dfd, int err)
{
	if (build)
		build_end(d);
	else
		close(dfd);
	return err;
}

static int stream(struct lister *l, struct dc_dir *d, size_t limit, uint64_t cookie,
		  bool *eof)
{
	const struct vfs_dir_sink *s = l->s;
	uint8_t buf[16384];
	bool build = d && d->building && d->next_cookie == cookie;
	bool full = false, end = false;
	/* What the reply takes, not more: tmpfs's readdir costs the same for
	 * each record read, and a record read past what is used is dropped
	 * (a 16 KiB read for an 8 KiB READDIR doubled its cost on tmpfs).
	 * Reading ahead, as many records as are still to be read ahead, at
	 * the mean record length seen so far. */
	size_t want = s->want && s->want < sizeof(buf) ? s->want : sizeof(buf);
	size_t rec_bytes = 0, recs = 0;
	uint32_t ahead = 0;
	long last = -1;      /* index in the listing of the last entry put */
	uint64_t last_cookie = 0;
	int dfd;

	dfd = build && d->bfd >= 0 ? d->bfd : vfs_reopen(l->dfd, O_RDONLY | O_DIRECTORY);
	if (dfd < 0)
		return dfd;
	if (build)
		d->bfd = dfd;   /* closed by build_end */
	/* also on the kept descriptor: the last call read past its reply */
	if ((cookie || build) && lseek(dfd, (off_t)cookie, SEEK_SET) < 0)
		return stream_fail(d, build, dfd, -errno);
	l->dfd = dfd;
	__atomic_add_fetch(&g.misses, 1, __ATOMIC_RELAXED);
	*eof = false;
	while (!full || (build && ahead < READ_AHEAD)) {
		long n, pos = 0;

		if (full && recs) {
			want = (READ_AHEAD - ahead) * (rec_bytes / recs) + 64;
			if (want > sizeof(buf))
				want = sizeof(buf);
		}
		if (want < sizeof(struct linux_dirent64) + NAME_MAX + 8)
			want = sizeof(struct linux_dirent64) + NAME_MAX + 8;
		n = syscall(SYS_getdents64, dfd, buf, want);

		if (n < 0)
			return stream_fail(d, build, dfd, -errno);
		if (n == 0) {
			end = true;
			break;
		}
		while (pos < n && (!full || (build && ahead < READ_AHEAD))) {
			const struct linux_dirent64 *de = (const void *)(buf + pos);
			uint32_t nl = (uint32_t)strlen(de->d_name);
			struct vfs_dirent out = {
				.name = de->d_name, .namelen = nl, .ino = de->d_ino,
				.cookie = (uint64_t)de->d_off,
			};
			struct stat st;
			struct nfsx_fh fh;
			uint64_t hino;
			bool have_st = false, have_fh = false;

			if (nl > NAME_MAX) {   /* no client could name it */
				pos += de->d_reclen;
				continue;
			}
			if (s->plus && l->search && !is_dot(de->d_name, nl)) {
				have_fh = vfs_handle_at(l->key, l->e, dfd, de->d_name, &fh,
							&hino) == 0;
				have_st = have_fh && entry_stat(l, de->d_name, &st) &&
					  same_inode(&st, de->d_ino, hino);
			}
			if (have_st && have_fh) {
				out.st = &st;
				out.fh = &fh;
			}
			if (!full && !s->room(s->arg, &out))
				full = true;
			if (!full) {
				s->put(s->arg, &out);
				last_cookie = out.cookie;
			} else {
				ahead++;
			}
			if (build && !listing_add(d, limit, de, nl, out.st, out.fh,
						   have_st && keep_st(&st), l->now)) {
				/* dfd stays open for this call */
				d->bfd = -1;
				build = false;
				d->too_big = true;
				listing_free(d);
			}
			if (build) {
				d->next_cookie = (uint64_t)de->d_off;
				if (!full)
					last = (long)d->n - 1;
			} else if (full) {
				break;
			}
			pos += de->d_reclen;
			rec_bytes += de->d_reclen;
			recs++;
		}
		/* records left in the buffer: the kept descriptor is sought
		 * back to next_cookie by the next call */
	}
	*eof = end && !full;
	if (!build)
		close(dfd);
	if (build && last >= 0)
		hint_set(d, last_cookie, (uint32_t)last + 1);
	if (build && end) {
		/* the tables, once: built along, they were rehashed log n times */
		build_end(d);
		set_complete(d, tabs_build(d) == 0);
		d->size = listing_size(d);
		if (!d->complete || d->size > limit) {
			d->too_big = d->size > limit;
			listing_free(d);
		}
	}
	return 0;
}

/* ---- listing from the cache ---- */

/*
 * Entries from index @first of the listing, whole or being read.
 * Return values: true when the reply has room for more than the listing
 * being read holds yet (the caller may read on); false otherwise.
 */
static bool from_cache(struct lister *l, struct dc_dir *d, uint32_t first, bool *eof)
{
	const struct vfs_dir_sink *s = l->s;
	bool full = false;
	long last = -1;
	uint32_t i;

	__atomic_add_fetch(&g.hits, 1, __ATOMIC_RELAXED);
	for (i = first; i < d->n; i++) {
		struct dc_entry *x = &d->ent[i];
		struct vfs_dirent out = {
			.namelen = x->namelen, .ino = x->ino, .cookie = x->cookie,
		};
		struct stat st;
		struct nfsx_fh fh;
		uint64_t hino;
		char c[NAME_MAX + 1];

		if (s->plus && l->search && !is_dot(d->names + x->name_off, x->namelen)) {
			bool fresh = (x->flags & (E_ST | E_KEEP_ST)) == (E_ST | E_KEEP_ST) &&
				     l->now - x->st_at < VFS_DIR_ATTR_AGE;

			memcpy(c, d->names + x->name_off, x->namelen);
			c[x->namelen] = 0;
			/* listed without attributes before: the handle now,
			 * before the attributes (see stream) */
			hino = 0;
			if (!fresh && !(x->flags & E_FH) &&
			    vfs_handle_at(l->key, l->e, l->dfd, c, &fh, &hino) == 0 &&
			    arena_put(d, fh.data, fh.len, &x->fh_off)) {
				x->fhlen = (uint8_t)fh.len;
				x->flags |= E_FH;
				d->size = listing_size(d);
			}
			if (!fresh) {
				x->flags &= (uint8_t)~(E_ST | E_KEEP_ST);
				if ((x->flags & E_FH) && entry_stat(l, c, &st)) {
					if (!same_inode(&st, x->ino, hino)) {
						/* replaced since it was read: the
						 * listing is stale (the event is on
						 * its way); this entry goes bare */
						out.name = c;
						if (s->room(s->arg, &out))
							s->put(s->arg, &out);
						listing_reset(d);
						*eof = false;
						return false;
					}
					attr_pack(&st, &x->a);
					x->st_at = l->now;
					x->flags |= E_ST | (keep_st(&st) ? E_KEEP_ST : 0);
				}
			}
			if ((x->flags & (E_ST | E_FH)) == (E_ST | E_FH)) {
				attr_unpack(x, &st);
				fh.len = x->fhlen;
				memcpy(fh.data, d->names + x->fh_off, x->fhlen);
				out.st = &st;
				out.fh = &fh;
			}
		}
		out.name = d->names + x->name_off;   /* after any arena_put */
		if (!s->room(s->arg, &out)) {
			full = true;
			break;
		}
		s->put(s->arg, &out);
		last = i;
	}
	if (last >= 0 && !d->complete)
		hint_set(d, d->ent[last].cookie, (uint32_t)last + 1);
	*eof = !full && d->complete;
	return !full && !d->complete;
}

/* ---- the whole call ---- */

static struct dc_dir *dir_find(uint32_t id, const struct stat *dst)
{
	struct dc_dir *d;

	for (d = g.hash[key_bucket(id, dst->st_dev, dst->st_ino)]; d; d = d->hnext)
		if (d->export_id == id && d->dev == dst->st_dev && d->ino == dst->st_ino)
			return d;
	return NULL;
}

/* What @d holds, for the budget (d->lock held). */
static size_t dir_bytes(const struct dc_dir *d)
{
	return d->size ? d->size : sizeof(*d);
}

/* A call is done with @d: @bytes (SIZE_MAX: unknown) is what it holds
 * now. An event loop (@may_evict false) leaves eviction to workers. */
static void dir_put(struct dc_dir *d, uint32_t now, size_t bytes, bool may_evict)
{
	struct dc_dir *gone = NULL;

	pthread_mutex_lock(&g.lock);
	if (bytes != SIZE_MAX) {
		g.bytes -= d->bytes;
		d->bytes = bytes;
		g.bytes += d->bytes;
	}
	d->refs--;
	if (may_evict)
		gone = evict(now);
	pthread_mutex_unlock(&g.lock);
	dir_destroy(gone);
}

/* Permission as the caller: what opening the directory to read it
 * checks, and the search that looking its entries up needs. */
static int may_list(struct lister *l, int fd)
{
	if (l->s->plus && faccessat(fd, "", R_OK | X_OK, AT_EACCESS | AT_EMPTY_PATH) == 0) {
		l->search = true;
		return 0;
	}
	return faccessat(fd, "", R_OK, AT_EACCESS | AT_EMPTY_PATH) < 0 ? -errno : 0;
}

/* The listing's part of a call, with d->lock held. */
static int list_locked(struct lister *l, struct dc_dir *d, size_t limit, int fd,
		       const struct stat *dst, uint64_t cookie, bool *eof)
{
	const struct vfs_dir_sink *s = l->s;
	uint64_t epoch = __atomic_load_n(&g.epoch, __ATOMIC_ACQUIRE);
	uint32_t i;
	long at;
	int r;

	pthread_mutex_lock(&g.lock);
	if (s->nonblock)
		drain_events();   /* a worker drained before it took the lock */
	apply_pending(d, dst);
	pthread_mutex_unlock(&g.lock);
	/* Changed through nfsxd since the attributes were taken: taken
	 * again (statx only: names and handles stand). Read before any
	 * statx of this call, so that a change made meanwhile is seen by
	 * the next one. */
	if (d->attr_epoch != epoch) {
		for (i = 0; i < d->n; i++)
			d->ent[i].flags &= (uint8_t)~E_ST;
		d->attr_epoch = epoch;
	}
	at = position(d, cookie);
	if (at >= 0 && (at < d->n || d->complete || !s->nonblock)) {
		if (!from_cache(l, d, (uint32_t)at, eof) || !d->building)
			return 0;
		/* The reply has room past what has been read: read on, on a
		 * worker (an event loop's reply is dropped, and made again
		 * there: a short reply would cost the client a call more). */
		if (s->nonblock)
			return -EWOULDBLOCK;
		return stream(l, d, limit, d->next_cookie, eof);
	}
	if (s->nonblock)
		return -EWOULDBLOCK;
	if (cookie == 0 && !d->too_big && !d->building) {
		r = dir_watch(d, fd);
		listing_reset(d);
		if (r == 0) {
			d->building = true;
			d->next_cookie = 0;
			d->mtime = dst->st_mtim;
			d->ctime = dst->st_ctim;
		}
	}
	return stream(l, d, limit, cookie, eof);
}

int vfs_readdir(const uint8_t key[FH_KEY_LEN], const struct vfs_export *e,
		int fd, const struct stat *dst, uint64_t cookie,
		const struct vfs_dir_sink *s, bool *eof)
{
	struct lister l = { .key = key, .e = e, .s = s, .dfd = fd, .now = now_s() };
	struct dc_dir *d = NULL, *gone = NULL;
	size_t limit = 0, bytes;
	int r;

	if (g.ifd >= 0 && g.budget && e->local_fs) {
		/* An event loop waits for no worker: not for g.lock either */
		if (s->nonblock) {
			if (pthread_mutex_trylock(&g.lock) != 0)
				return -EWOULDBLOCK;
			/* nothing spent on a directory the cache lacks */
			d = dir_find(e->id, dst);
			if (d) {
				d->refs++;
				d->used = l.now;
				lru_front(d);
			}
		} else {
			pthread_mutex_lock(&g.lock);
			drain_events();
			gone = evict(l.now);
			d = dir_get(e->id, dst, l.now);
		}
		limit = g.budget / 2;
		pthread_mutex_unlock(&g.lock);
		dir_destroy(gone);
	}
	if (!d)
		return s->nonblock ? -EWOULDBLOCK :
		       (r = may_list(&l, fd)) < 0 ? r : stream(&l, NULL, 0, cookie, eof);
	/* An event loop never waits for a worker reading this listing. */
	if (s->nonblock ? pthread_mutex_trylock(&d->lock) != 0 :
			  pthread_mutex_lock(&d->lock) != 0) {
		dir_put(d, l.now, SIZE_MAX, false);
		return -EWOULDBLOCK;
	}
	if (s->nonblock && (position(d, cookie) < 0 || (!d->complete &&
							 position(d, cookie) >= d->n)))
		r = -EWOULDBLOCK;
	else if ((r = may_list(&l, fd)) == 0)
		r = list_locked(&l, d, limit, fd, dst, cookie, eof);
	if (!d->complete && !d->building && d->cap && !d->too_big)
		listing_free(d);   /* nothing worth keeping */
	bytes = dir_bytes(d);
	pthread_mutex_unlock(&d->lock);
	dir_put(d, l.now, bytes, !s->nonblock);
	return r;
}

void vfs_dir_changed(void)
{
	__atomic_add_fetch(&g.epoch, 1, __ATOMIC_RELEASE);
}

int vfs_dir_init(size_t bytes)
{
	pthread_mutex_lock(&g.lock);
	g.budget = bytes;
	if (g.ifd < 0 && bytes)
		g.ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	pthread_mutex_unlock(&g.lock);
	return bytes && g.ifd < 0 ? -errno : 0;
}

void vfs_dir_fini(void)
{
	struct dc_dir *gone = NULL, *d;

	pthread_mutex_lock(&g.lock);
	while ((d = g.lru_head)) {
		dir_unlink(d);
		d->hnext = gone;
		gone = d;
	}
	dir_destroy(gone);
	if (g.ifd >= 0)
		close(g.ifd);
	g.ifd = -1;
	g.budget = 0;
	pthread_mutex_unlock(&g.lock);
}

void vfs_dir_stats(struct vfs_dir_stats *out)
{
	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&g.lock);
	out->bytes = g.bytes;
	out->budget = g.budget;
	out->dirs = g.dirs;
	out->hits = __atomic_load_n(&g.hits, __ATOMIC_RELAXED);
	out->misses = __atomic_load_n(&g.misses, __ATOMIC_RELAXED);
	out->stats = __atomic_load_n(&g.stats, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&g.lock);
}
