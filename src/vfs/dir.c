/* SPDX-License-Identifier: MIT */
/* Directory listing: reading a directory, answering from its listing.
 * See dir.h. */
#include <sys/syscall.h>
#include <sys/sysmacros.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vfs/dir_internal.h"
#include "vfs/vfs.h"

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
	__atomic_add_fetch(&dc_g.stats, 1, __ATOMIC_RELAXED);
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
		dc_build_end(d);
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
	__atomic_add_fetch(&dc_g.misses, 1, __ATOMIC_RELAXED);
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
				out.fh = fh.data;
				out.fhlen = fh.len;
			}
			if (!full && !s->room(s->arg, &out))
				full = true;
			if (!full) {
				s->put(s->arg, &out);
				last_cookie = out.cookie;
			} else {
				ahead++;
			}
			if (build && !dc_listing_add(d, limit, de, nl, out.st, out.st ? &fh : NULL,
						   have_st && keep_st(&st), l->now)) {
				/* dfd stays open for this call */
				d->bfd = -1;
				build = false;
				d->too_big = true;
				dc_listing_free(d);
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
		dc_hint_set(d, last_cookie, (uint32_t)last + 1);
	if (build && end) {
		/* the tables, once: built along, they were rehashed log n times */
		dc_build_end(d);
		dc_set_complete(d, dc_tabs_build(d) == 0);
		d->size = dc_listing_size(d);
		if (!d->complete || d->size > limit) {
			d->too_big = d->size > limit;
			dc_listing_free(d);
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

	__atomic_add_fetch(&dc_g.hits, 1, __ATOMIC_RELAXED);
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
			    dc_arena_put(d, fh.data, fh.len, &x->fh_off)) {
				x->fhlen = (uint8_t)fh.len;
				x->flags |= E_FH;
				d->size = dc_listing_size(d);
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
						dc_listing_reset(d);
						*eof = false;
						return false;
					}
					dc_attr_store(d, i, &st, keep_st(&st), l->now);
					d->size = dc_listing_size(d);
				}
			}
			if ((x->flags & (E_ST | E_FH)) == (E_ST | E_FH)) {
				dc_attr_load(d, i, &st);
				out.st = &st;
				out.fhlen = x->fhlen;
			}
		}
		/* after any arena_put, which may move the names */
		out.name = d->names + x->name_off;
		if (out.st)
			out.fh = (const uint8_t *)d->names + x->fh_off;
		if (!s->room(s->arg, &out)) {
			full = true;
			break;
		}
		s->put(s->arg, &out);
		last = i;
	}
	if (last >= 0 && !d->complete)
		dc_hint_set(d, d->ent[last].cookie, (uint32_t)last + 1);
	*eof = !full && d->complete;
	return !full && !d->complete;
}

/* ---- the whole call ---- */

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
	uint64_t epoch = __atomic_load_n(&dc_g.epoch, __ATOMIC_ACQUIRE);
	uint32_t i;
	long at;
	int r;

	pthread_mutex_lock(&dc_g.lock);
	if (s->nonblock)
		dc_drain_events();   /* a worker drained before it took the lock */
	dc_apply_pending(d, dst);
	pthread_mutex_unlock(&dc_g.lock);
	/* Changed through nfsxd since the attributes were taken: taken
	 * again (statx only: names and handles stand). Read before any
	 * statx of this call, so that a change made meanwhile is seen by
	 * the next one. */
	if (d->attr_epoch != epoch) {
		for (i = 0; i < d->n; i++)
			d->ent[i].flags &= (uint8_t)~E_ST;
		d->attr_epoch = epoch;
	}
	at = dc_position(d, cookie);
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
		r = dc_dir_watch(d, fd);
		dc_listing_reset(d);
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
	struct lister l = { .key = key, .e = e, .s = s, .dfd = fd, .now = dc_now_s() };
	struct dc_dir *d = NULL, *gone = NULL;
	size_t limit = 0, bytes;
	int r;

	if (dc_g.ifd >= 0 && dc_g.budget && e->local_fs) {
		/* An event loop waits for no worker: not for dc_g.lock either */
		if (s->nonblock) {
			if (pthread_mutex_trylock(&dc_g.lock) != 0)
				return -EWOULDBLOCK;
			/* nothing spent on a directory the cache lacks */
			d = dc_dir_find(e->id, dst);
			if (d) {
				d->refs++;
				d->used = l.now;
				dc_lru_front(d);
			}
		} else {
			pthread_mutex_lock(&dc_g.lock);
			dc_drain_events();
			gone = dc_evict(l.now);
			d = dc_dir_get(e->id, dst, l.now);
		}
		limit = dc_g.budget / 2;
		pthread_mutex_unlock(&dc_g.lock);
		dc_dir_destroy(gone);
	}
	if (!d)
		return s->nonblock ? -EWOULDBLOCK :
		       (r = may_list(&l, fd)) < 0 ? r : stream(&l, NULL, 0, cookie, eof);
	/* An event loop never waits for a worker reading this listing. */
	if (s->nonblock ? pthread_mutex_trylock(&d->lock) != 0 :
			  pthread_mutex_lock(&d->lock) != 0) {
		dc_dir_put(d, l.now, SIZE_MAX, false);
		return -EWOULDBLOCK;
	}
	if (s->nonblock && (dc_position(d, cookie) < 0 || (!d->complete &&
							 dc_position(d, cookie) >= d->n)))
		r = -EWOULDBLOCK;
	else if ((r = may_list(&l, fd)) == 0)
		r = list_locked(&l, d, limit, fd, dst, cookie, eof);
	if (!d->complete && !d->building && d->cap && !d->too_big)
		dc_listing_free(d);   /* nothing worth keeping */
	bytes = dc_dir_bytes(d);
	pthread_mutex_unlock(&d->lock);
	dc_dir_put(d, l.now, bytes, !s->nonblock);
	return r;
}

