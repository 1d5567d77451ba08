/* SPDX-License-Identifier: MIT */
/*
 * The listing cache's insides, shared by dir.c (reading a directory, and
 * answering from a listing), dir_listing.c (one directory's listing) and
 * dir_table.c (the table of listings, inotify, the budget). See dir.h.
 */
#ifndef NFSX_VFS_DIR_INTERNAL_H
#define NFSX_VFS_DIR_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/inotify.h>
#include <sys/stat.h>

#include "vfs/dir.h"

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

/*
 * An entry is 32 bytes and its attributes live apart (dc_dir.attr, only
 * in a listing that READDIRPLUS read): building a listing writes each
 * entry into memory not touched before, and with the attributes inline
 * (128 bytes an entry) a READDIR of 100,000 tmpfs entries spent 2.3 times
 * as long per entry as one of 12,500, most of it in that first store.
 */
struct dc_entry {
	uint64_t cookie;
	uint64_t ino;
	uint32_t name_off;    /* in names */
	uint32_t fh_off;      /* in names too, when E_FH */
	uint32_t st_at;       /* coarse monotonic seconds, when E_ST */
	uint16_t namelen;
	uint8_t fhlen;
	uint8_t flags;
};
_Static_assert(sizeof(struct dc_entry) == 32, "dc_entry: two to a cache line");

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
	struct dc_attr *attr;       /* acap of them (attributes kept) */
	uint32_t n, cap, acap;
	char *names;                /* names and handles */
	uint32_t names_len, names_cap;
	uint32_t *ctab, *ntab;      /* cookie and name hash tables: index + 1 */
	uint32_t tcap;              /* their size, a power of two, >= 2 n */
	size_t size;                /* bytes held, updated under lock */
};

#define HASH_BUCKETS 1024u
#define WD_BUCKETS 256u

struct dc_table {
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
};
extern struct dc_table dc_g;

/* dir_listing.c: one directory's listing (its lock held) */
uint32_t dc_now_s(void);
unsigned int dc_key_bucket(uint32_t id, dev_t dev, ino_t ino);
void dc_build_end(struct dc_dir *d);
void dc_listing_reset(struct dc_dir *d);
void dc_listing_free(struct dc_dir *d);
int dc_tabs_build(struct dc_dir *d);
size_t dc_listing_size(const struct dc_dir *d);
void dc_hint_set(struct dc_dir *d, uint64_t cookie, uint32_t next);
long dc_position(const struct dc_dir *d, uint64_t cookie);
long dc_by_name(const struct dc_dir *d, const char *name);
bool dc_attr_store(struct dc_dir *d, uint32_t i, const struct stat *st, bool keep_st,
		   uint32_t now);
void dc_attr_load(const struct dc_dir *d, uint32_t i, struct stat *st);
bool dc_arena_put(struct dc_dir *d, const void *p, uint32_t len, uint32_t *off);
bool dc_listing_add(struct dc_dir *d, size_t limit, const struct linux_dirent64 *de,
		    uint32_t nl, const struct stat *st, const struct nfsx_fh *fh,
		    bool keep_st, uint32_t now);
void dc_set_complete(struct dc_dir *d, bool v);

/* dir_table.c: the table of listings (dc_g.lock held unless said) */
void dc_lru_front(struct dc_dir *d);
struct dc_dir *dc_evict(uint32_t now);
void dc_drain_events(void);
struct dc_dir *dc_dir_get(uint32_t id, const struct stat *dst, uint32_t now);
struct dc_dir *dc_dir_find(uint32_t id, const struct stat *dst);
/* d->lock held, not dc_g.lock */
int dc_dir_watch(struct dc_dir *d, int fd);
/* both locks held */
void dc_apply_pending(struct dc_dir *d, const struct stat *dst);
/* d->lock held */
size_t dc_dir_bytes(const struct dc_dir *d);
/* no lock held */
void dc_dir_put(struct dc_dir *d, uint32_t now, size_t bytes, bool may_evict);
void dc_dir_destroy(struct dc_dir *d);

#endif
