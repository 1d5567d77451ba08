/* SPDX-License-Identifier: MIT */
/* The table of listings: lookup, LRU and budget, inotify watches and
 * their events. See dir.h and dir_internal.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vfs/dir_internal.h"

struct dc_table dc_g = { .lock = PTHREAD_MUTEX_INITIALIZER, .ifd = -1 };

/* ---- the table and inotify (dc_g.lock held, unless said) ---- */

static void dc_lru_unlink(struct dc_dir *d)
{
	if (d->lru_prev)
		d->lru_prev->lru_next = d->lru_next;
	else
		dc_g.lru_head = d->lru_next;
	if (d->lru_next)
		d->lru_next->lru_prev = d->lru_prev;
	else
		dc_g.lru_tail = d->lru_prev;
	d->lru_prev = d->lru_next = NULL;
}

void dc_lru_front(struct dc_dir *d)
{
	dc_lru_unlink(d);
	d->lru_next = dc_g.lru_head;
	if (dc_g.lru_head)
		dc_g.lru_head->lru_prev = d;
	dc_g.lru_head = d;
	if (!dc_g.lru_tail)
		dc_g.lru_tail = d;
}

static struct dc_dir **dc_wd_slot(int wd)
{
	return &dc_g.wds[(unsigned int)wd % WD_BUCKETS];
}

static void dc_wd_unlink(struct dc_dir *d)
{
	struct dc_dir **pp;
	bool shared = false;

	if (d->wd < 0)
		return;
	for (pp = dc_wd_slot(d->wd); *pp; pp = &(*pp)->wnext)
		if (*pp == d) {
			*pp = d->wnext;
			break;
		}
	for (struct dc_dir *o = *dc_wd_slot(d->wd); o; o = o->wnext)
		shared |= o->wd == d->wd;
	d->rm_wd = !shared;   /* removed by dir_destroy, out of dc_g.lock */
	if (shared)
		d->wd = -1;
	d->wnext = NULL;
}

static void dc_pending_clear(struct dc_dir *d)
{
	unsigned int i;

	for (i = 0; i < d->p_n; i++)
		free(d->p_names[i]);
	d->p_n = 0;
}

/* Take @d out of the table (dc_g.lock held); dir_destroy frees it after
 * dc_g.lock is let go: closing its descriptor or removing its watch may
 * take a while, and an event loop may be waiting for dc_g.lock. */
static void dc_dir_unlink(struct dc_dir *d)
{
	struct dc_dir **pp;

	for (pp = &dc_g.hash[dc_key_bucket(d->export_id, d->dev, d->ino)]; *pp; pp = &(*pp)->hnext)
		if (*pp == d) {
			*pp = d->hnext;
			break;
		}
	dc_wd_unlink(d);
	dc_lru_unlink(d);
	dc_pending_clear(d);
	dc_g.bytes -= d->bytes;
	__atomic_sub_fetch(&dc_g.dirs, 1, __ATOMIC_SEQ_CST);
}

/* Free the directories dir_unlink chained on hnext. */
void dc_dir_destroy(struct dc_dir *d)
{
	struct dc_dir *next;

	for (; d; d = next) {
		next = d->hnext;
		if (d->rm_wd && d->wd >= 0)
			inotify_rm_watch(dc_g.ifd, d->wd);
		dc_listing_free(d);
		pthread_mutex_destroy(&d->lock);
		free(d);
	}
}

/* Drop unused listings: idle ones, then the least recently used while
 * over the budget. */
struct dc_dir *dc_evict(uint32_t now)
{
	struct dc_dir *d = dc_g.lru_tail, *prev, *gone = NULL;

	for (; d; d = prev) {
		prev = d->lru_prev;
		if (d->refs)
			continue;
		if (dc_g.bytes > dc_g.budget || now - d->used >= VFS_DIR_IDLE) {
			dc_dir_unlink(d);
			d->hnext = gone;
			gone = d;
		} else {
			break;   /* the rest were used more recently */
		}
	}
	return gone;   /* for dir_destroy, once dc_g.lock is let go */
}

static void dc_note_event(const struct inotify_event *ev)
{
	struct dc_dir *d, *next;
	unsigned int i;

	if (ev->mask & IN_Q_OVERFLOW) {
		for (d = dc_g.lru_head; d; d = d->lru_next)
			d->p_drop = true;
		return;
	}
	for (d = *dc_wd_slot(ev->wd); d; d = next) {
		next = d->wnext;
		if (d->wd != ev->wd)
			continue;
		if (ev->mask & IN_IGNORED) {
			/* the watch is gone (directory removed, file system
			 * unmounted): a listing cannot be trusted any more */
			struct dc_dir **pp;

			for (pp = dc_wd_slot(d->wd); *pp; pp = &(*pp)->wnext)
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

void dc_drain_events(void)
{
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));

	for (;;) {
		ssize_t n = read(dc_g.ifd, buf, sizeof(buf)), pos = 0;

		if (n <= 0)
			return;   /* EAGAIN: no more */
		while (pos < n) {
			const struct inotify_event *ev = (const void *)(buf + pos);

			dc_note_event(ev);
			pos += (ssize_t)(sizeof(*ev) + ev->len);
		}
		if (n < (ssize_t)(sizeof(buf) - sizeof(struct inotify_event) - NAME_MAX - 1))
			return;
	}
}

struct dc_dir *dc_dir_get(uint32_t id, const struct stat *dst, uint32_t now)
{
	unsigned int b = dc_key_bucket(id, dst->st_dev, dst->st_ino);
	struct dc_dir *d;

	for (d = dc_g.hash[b]; d; d = d->hnext)
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
		d->hnext = dc_g.hash[b];
		dc_g.hash[b] = d;
		d->bytes = sizeof(*d);
		dc_g.bytes += d->bytes;
		__atomic_add_fetch(&dc_g.dirs, 1, __ATOMIC_SEQ_CST);
	}
	d->refs++;
	d->used = now;
	dc_lru_front(d);
	return d;
}

/* Watch @d's directory (@fd names it) unless it already is. d->lock held,
 * not dc_g.lock: adding a watch walks the directory's cached entries. */
int dc_dir_watch(struct dc_dir *d, int fd)
{
	char p[64];
	bool have;
	int wd;

	pthread_mutex_lock(&dc_g.lock);
	have = d->wd >= 0;
	pthread_mutex_unlock(&dc_g.lock);
	if (have)
		return 0;
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	wd = inotify_add_watch(dc_g.ifd, p, IN_ATTRIB | IN_MODIFY | IN_CREATE | IN_DELETE |
				   IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF |
				   IN_ONLYDIR | IN_EXCL_UNLINK);
	if (wd < 0)
		return -errno;
	pthread_mutex_lock(&dc_g.lock);
	if (d->wd < 0) {
		d->wd = wd;
		d->wnext = *dc_wd_slot(wd);
		*dc_wd_slot(wd) = d;
	}
	pthread_mutex_unlock(&dc_g.lock);
	return 0;
}

/* What events said, applied to the listing. Both locks held. */
void dc_apply_pending(struct dc_dir *d, const struct stat *dst)
{
	unsigned int i;

	if (d->p_drop || (d->n && (d->mtime.tv_sec != dst->st_mtim.tv_sec ||
				   d->mtime.tv_nsec != dst->st_mtim.tv_nsec ||
				   d->ctime.tv_sec != dst->st_ctim.tv_sec ||
				   d->ctime.tv_nsec != dst->st_ctim.tv_nsec))) {
		dc_listing_reset(d);
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
			long x = dc_by_name(d, d->p_names[i]);

			if (x >= 0)
				d->ent[x].flags &= (uint8_t)~E_ST;
		}
	}
	d->p_drop = d->p_attrs = false;
	dc_pending_clear(d);
}

struct dc_dir *dc_dir_find(uint32_t id, const struct stat *dst)
{
	struct dc_dir *d;

	for (d = dc_g.hash[dc_key_bucket(id, dst->st_dev, dst->st_ino)]; d; d = d->hnext)
		if (d->export_id == id && d->dev == dst->st_dev && d->ino == dst->st_ino)
			return d;
	return NULL;
}

/* What @d holds, for the budget (d->lock held). */
size_t dc_dir_bytes(const struct dc_dir *d)
{
	return d->size ? d->size : sizeof(*d);
}

/* A call is done with @d: @bytes (SIZE_MAX: unknown) is what it holds
 * now. An event loop (@may_evict false) leaves eviction to workers. */
void dc_dir_put(struct dc_dir *d, uint32_t now, size_t bytes, bool may_evict)
{
	struct dc_dir *gone = NULL;

	pthread_mutex_lock(&dc_g.lock);
	if (bytes != SIZE_MAX) {
		dc_g.bytes -= d->bytes;
		d->bytes = bytes;
		dc_g.bytes += d->bytes;
	}
	d->refs--;
	if (may_evict)
		gone = dc_evict(now);
	pthread_mutex_unlock(&dc_g.lock);
	dc_dir_destroy(gone);
}

void vfs_dir_changed(void)
{
	/* Every WRITE comes here: while no listing is held, a read of a
	 * line nobody writes instead of an add on one all threads share. A
	 * listing counted after this read takes its attributes after the
	 * change. */
	if (__atomic_load_n(&dc_g.dirs, __ATOMIC_SEQ_CST))
		__atomic_add_fetch(&dc_g.epoch, 1, __ATOMIC_RELEASE);
}

int vfs_dir_init(size_t bytes)
{
	pthread_mutex_lock(&dc_g.lock);
	dc_g.budget = bytes;
	if (dc_g.ifd < 0 && bytes)
		dc_g.ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	pthread_mutex_unlock(&dc_g.lock);
	return bytes && dc_g.ifd < 0 ? -errno : 0;
}

void vfs_dir_fini(void)
{
	struct dc_dir *gone = NULL, *d;

	pthread_mutex_lock(&dc_g.lock);
	while ((d = dc_g.lru_head)) {
		dc_dir_unlink(d);
		d->hnext = gone;
		gone = d;
	}
	dc_dir_destroy(gone);
	if (dc_g.ifd >= 0)
		close(dc_g.ifd);
	dc_g.ifd = -1;
	dc_g.budget = 0;
	pthread_mutex_unlock(&dc_g.lock);
}

void vfs_dir_stats(struct vfs_dir_stats *out)
{
	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&dc_g.lock);
	out->bytes = dc_g.bytes;
	out->budget = dc_g.budget;
	out->dirs = dc_g.dirs;
	out->hits = __atomic_load_n(&dc_g.hits, __ATOMIC_RELAXED);
	out->misses = __atomic_load_n(&dc_g.misses, __ATOMIC_RELAXED);
	out->stats = __atomic_load_n(&dc_g.stats, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&dc_g.lock);
}

