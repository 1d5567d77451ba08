/* SPDX-License-Identifier: MIT */
/* Open-object cache: see node.h. */
#include "vfs/node.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/num.h"
#include "vfs/vfs.h"

#define MAX_SHARDS 64u  /* a power of two */
/* An LRU per shard is only an approximation of one LRU over the whole
 * cache, and a good one only when each shard holds many nodes: with two
 * a shard, three busy objects hashed together evict one another while
 * the rest of the cache stays empty, and an object alone in its shard is
 * never evicted however long it goes unused. So small caches have fewer
 * shards, each holding at least this many (one below twice as many). */
#define SHARD_MIN 32u
#define NBUCKETS 1024u   /* per shard; chains stay short at the default size */

struct vfs_node {
	struct vfs_node *hnext;                  /* hash chain */
	struct vfs_node *prev, *next;            /* LRU, most recent first */
	uint64_t hash;
	uint32_t refs;                           /* guarded by the shard lock */
	uint32_t pins;                           /* the same; atomic to read */
	bool cached;                             /* in the shard's table */
	int path_fd;
	int io_fd[2];                            /* O_RDONLY, O_WRONLY; atomic, -1 until opened */
	struct fmap *map[2];                     /* read, write; atomic, NULL until mapped */
	bool map_failed[2];                      /* atomic: do not try again */
	bool removed;                            /* the sweep's finding, under its hold */
	struct vfs_node *sweep_next;             /* vfs_nodes_sweep_removed's list */
	uint32_t export_id;
	int kernel_type;
	uint32_t kernel_len;
	uint8_t kernel[FH_KERNEL_MAX];
};

struct fmap {
	uint8_t *base;
	size_t len;
	/* Write mappings: a bit per page already populated through this
	 * mapping (vfs_node_map_populate). A hint: a page whose PTE went
	 * since (truncation, reclaim) is faulted in again by the copy. */
	uint64_t *present;
};

/* Bytes mapped by every node's mappings: bounds the page tables they can
 * fill (2 MiB per GiB of file, populated); and their number, which counts
 * against vm.max_map_count. */
static size_t map_bytes;
static unsigned int map_count;

struct shard {
	pthread_mutex_t lock;
	struct vfs_node *lru_head, *lru_tail;
	/* Pinned nodes of the table: off the LRU list, which eviction walks
	 * from its tail and would step past them on every miss; not counted
	 * against the shard's capacity (they have a budget of their own). */
	struct vfs_node *pinned_head;
	unsigned int count;
	unsigned int npinned;        /* on pinned_head */
	/* For vfs_node_stats_get, which reads them without the lock:
	 * written under it (relaxed stores, no locked instruction). */
	uint64_t hits, misses, evictions;
	/* Unpinned out of the table with no user left: closed by the next
	 * sweep, since vfs_node_unpin never closes (linked by hnext). */
	struct vfs_node *closing;
	struct vfs_node *bucket[NBUCKETS];
};

static struct shard *shards;
static unsigned int nshards;     /* a power of two, at most MAX_SHARDS */
static unsigned int per_shard_cap;
/* Nodes pinned (atomic), and at most how many: half the capacity, so
 * that open files cannot take the cache from everything else. */
static unsigned int pinned, pin_cap;

/* FNV-1a over what identifies an object: export, handle type and bytes. */
static uint64_t key_hash(uint32_t export_id, int type, const uint8_t *k, uint32_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	uint32_t i;

	h = (h ^ export_id) * 0x100000001b3ull;
	h = (h ^ (uint32_t)type) * 0x100000001b3ull;
	for (i = 0; i < len; i++)
		h = (h ^ k[i]) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

static struct shard *shard_of(uint64_t h)
{
	return &shards[h & (nshards - 1)];
}

static struct vfs_node **slot_of(struct shard *s, uint64_t h)
{
	/* bits above any shard index's */
	return &s->bucket[(h / MAX_SHARDS) % NBUCKETS];
}

unsigned int vfs_nodes_init(unsigned int capacity)
{
	struct rlimit rl;
	unsigned int i;

	if (shards)
		return per_shard_cap * nshards;
	/* Each node may hold three descriptors: make room for them. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (capacity == 0) {
		rlim_t fds = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? rl.rlim_cur : 1024;

		/* A third of the descriptors, the rest for connections;
		 * pinned nodes (at most half as many again) may take up to
		 * half of them (node.h). */
		capacity = fds / 3 / 3 > 16384 ? 16384 : (unsigned int)(fds / 3 / 3);
		if (capacity < SHARD_MIN)
			capacity = SHARD_MIN;
	}
	nshards = 1;
	while (nshards < MAX_SHARDS && capacity / (nshards * 2) >= SHARD_MIN)
		nshards *= 2;
	shards = calloc(nshards, sizeof(*shards));
	if (!shards)
		return 0;
	for (i = 0; i < nshards; i++)
		pthread_mutex_init(&shards[i].lock, NULL);
	per_shard_cap = (capacity + nshards - 1) / nshards;
	pin_cap = per_shard_cap * nshards / 2;
	return per_shard_cap * nshards;
}

static void map_free(struct fmap *m)
{
	if (m->base && m->base != MAP_FAILED)
		munmap(m->base, m->len);
	free(m->present);
	if (m->len) {
		util_give_size(&map_bytes, m->len);
		util_give(&map_count, 1);
	}
	free(m);
}

static void node_close(struct vfs_node *n)
{
	int i;

	for (i = 0; i < 2; i++)
		if (n->io_fd[i] >= 0)
			close(n->io_fd[i]);
	for (i = 0; i < 2; i++)
		if (n->map[i])
			map_free(n->map[i]);
	if (n->path_fd >= 0)
		close(n->path_fd);
	free(n);
}

/* Close a list of dropped nodes linked by hnext. Return values: how many. */
static unsigned int close_list(struct vfs_node *list)
{
	unsigned int closed = 0;

	while (list) {
		struct vfs_node *next = list->hnext;

		node_close(list);
		closed++;
		list = next;
	}
	return closed;
}

void vfs_nodes_fini(void)
{
	unsigned int i;

	if (!shards)
		return;
	for (i = 0; i < nshards; i++) {
		struct vfs_node *n = shards[i].lru_head;

		while (n) {
			struct vfs_node *next = n->next;

			node_close(n);
			n = next;
		}
		for (n = shards[i].pinned_head; n;) {
			struct vfs_node *next = n->next;

			node_close(n);
			n = next;
		}
		close_list(shards[i].closing);
		pthread_mutex_destroy(&shards[i].lock);
	}
	free(shards);
	shards = NULL;
	pinned = 0;
}

static bool same(const struct vfs_node *n, uint64_t h, uint32_t export_id,
		 int type, const uint8_t *k, uint32_t len)
{
	return n->hash == h && n->export_id == export_id && n->kernel_type == type &&
	       n->kernel_len == len && memcmp(n->kernel, k, len) == 0;
}

static struct vfs_node *find(struct shard *s, uint64_t h, uint32_t export_id,
			     int type, const uint8_t *k, uint32_t len)
{
	struct vfs_node *n;

	for (n = *slot_of(s, h); n; n = n->hnext)
		if (same(n, h, export_id, type, k, len))
			return n;
	return NULL;
}

static void lru_unlink(struct shard *s, struct vfs_node *n)
{
	if (n->prev)
		n->prev->next = n->next;
	else
		s->lru_head = n->next;
	if (n->next)
		n->next->prev = n->prev;
	else
		s->lru_tail = n->prev;
	n->prev = n->next = NULL;
}

static void lru_push(struct shard *s, struct vfs_node *n)
{
	n->prev = NULL;
	n->next = s->lru_head;
	if (s->lru_head)
		s->lru_head->prev = n;
	else
		s->lru_tail = n;
	s->lru_head = n;
}

static void pinned_unlink(struct shard *s, struct vfs_node *n)
{
	if (n->prev)
		n->prev->next = n->next;
	else
		s->pinned_head = n->next;
	if (n->next)
		n->next->prev = n->prev;
	n->prev = n->next = NULL;
	s->npinned--;
}

static void pinned_push(struct shard *s, struct vfs_node *n)
{
	n->prev = NULL;
	n->next = s->pinned_head;
	if (s->pinned_head)
		s->pinned_head->prev = n;
	s->pinned_head = n;
	s->npinned++;
}

/* One more of the statistic @c (the shard's lock held). */
static void stat_inc(uint64_t *c)
{
	__atomic_store_n(c, *c + 1, __ATOMIC_RELAXED);
}

/* Take @n out of the table. Return values: true when the caller must close it. */
static bool drop(struct shard *s, struct vfs_node *n)
{
	struct vfs_node **pp = slot_of(s, n->hash);

	while (*pp != n)
		pp = &(*pp)->hnext;
	*pp = n->hnext;
	if (n->pins) {
		pinned_unlink(s, n);
	} else {
		lru_unlink(s, n);
		s->count--;
	}
	n->cached = false;
	return n->refs == 0;
}

/* Evict unused nodes past the shard's capacity; they are closed by the caller. */
static struct vfs_node *evict(struct shard *s)
{
	struct vfs_node *out = NULL, *n = s->lru_tail;

	while (s->count > per_shard_cap && n) {
		struct vfs_node *prev = n->prev;

		if (n->refs == 0) {
			drop(s, n);
			stat_inc(&s->evictions);
			n->hnext = out;
			out = n;
		}
		n = prev;
	}
	return out;
}

int vfs_node_get(const struct vfs_export *e, const struct fh_parts *p,
		 bool may_block, struct vfs_node **out)
{
	uint64_t h = key_hash(p->export_id, p->kernel_type, p->kernel, p->kernel_len);
	struct shard *s = shard_of(h);
	struct vfs_node *n, *old, *victims;
	int fd;

	pthread_mutex_lock(&s->lock);
	n = find(s, h, p->export_id, p->kernel_type, p->kernel, p->kernel_len);
	if (n) {
		n->refs++;
		if (!n->pins && s->lru_head != n) {
			lru_unlink(s, n);
			lru_push(s, n);
		}
		stat_inc(&s->hits);
		pthread_mutex_unlock(&s->lock);
		*out = n;
		return 0;
	}
	/* a miss is a call that opens the object: one told to come back
	 * on a worker is counted there, once */
	if (may_block)
		stat_inc(&s->misses);
	pthread_mutex_unlock(&s->lock);
	if (!may_block)
		return -EWOULDBLOCK;

	fd = vfs_open_handle(e, p);
	if (fd < 0)
		return fd;
	n = calloc(1, sizeof(*n));
	if (!n) {
		close(fd);
		return -ENOMEM;
	}
	n->hash = h;
	n->refs = 1;
	n->path_fd = fd;
	n->io_fd[0] = n->io_fd[1] = -1;
	n->map[0] = n->map[1] = NULL;
	n->map_failed[0] = n->map_failed[1] = false;
	n->export_id = p->export_id;
	n->kernel_type = p->kernel_type;
	n->kernel_len = p->kernel_len;
	memcpy(n->kernel, p->kernel, p->kernel_len);

	pthread_mutex_lock(&s->lock);
	old = find(s, h, p->export_id, p->kernel_type, p->kernel, p->kernel_len);
	if (old) {
		/* Another thread opened it meanwhile: use theirs. */
		old->refs++;
		pthread_mutex_unlock(&s->lock);
		node_close(n);
		*out = old;
		return 0;
	}
	n->cached = true;
	n->hnext = *slot_of(s, h);
	*slot_of(s, h) = n;
	lru_push(s, n);
	s->count++;
	victims = evict(s);
	pthread_mutex_unlock(&s->lock);
	close_list(victims);
	*out = n;
	return 0;
}

void vfs_node_put(struct vfs_node *n)
{
	struct shard *s;
	bool last;

	if (!n)
		return;
	s = shard_of(n->hash);
	pthread_mutex_lock(&s->lock);
	last = --n->refs == 0 && !n->cached;
	pthread_mutex_unlock(&s->lock);
	if (last)
		node_close(n);
}

int vfs_node_fd(const struct vfs_node *n)
{
	return n->path_fd;
}

static int acc_index(int acc)
{
	return (acc & O_ACCMODE) == O_RDONLY ? 0 : 1;
}

int vfs_node_io_fd(const struct vfs_node *n, int acc)
{
	return __atomic_load_n(&n->io_fd[acc_index(acc)], __ATOMIC_ACQUIRE);
}

int vfs_node_open_io(struct vfs_node *n, int acc)
{
	int i = acc_index(acc), expect = -1;
	int fd = vfs_node_io_fd(n, acc);

	if (fd >= 0)
		return fd;
	fd = vfs_reopen(n->path_fd, i == 0 ? O_RDONLY : O_WRONLY);
	if (fd < 0)
		return fd;
	if (!__atomic_compare_exchange_n(&n->io_fd[i], &expect, fd, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		close(fd);       /* lost a race: @expect holds the winner's */
		fd = expect;
	}
	return fd;
}

/* Return values: the mapping; NULL, with *@retry true when a later call
 * may succeed (the caller may not open the file so, or it is smaller
 * than @end). */
static struct fmap *map_make(struct vfs_node *n, int i, uint64_t end, bool *retry)
{
	long pg = sysconf(_SC_PAGESIZE);
	struct fmap *m;
	struct stat st;
	size_t len;
	int fd;

	*retry = false;
	/* Before opening anything: the size, and the bounds. */
	if (fstat(n->path_fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size > VFS_MAP_MAX)
		return NULL;
	if ((uint64_t)st.st_size < end) {
		*retry = true;
		return NULL;
	}
	len = ((size_t)st.st_size + (size_t)pg - 1) & ~((size_t)pg - 1);
	if (!util_take(&map_count, 1, VFS_MAP_COUNT))
		return NULL;
	if (!util_take_size(&map_bytes, len, VFS_MAP_BUDGET)) {
		/* Full: not for this node while it is cached. */
		util_give(&map_count, 1);
		return NULL;
	}
	/* PROT_WRITE with MAP_SHARED needs a descriptor open for reading
	 * too; the mapping keeps the file, not the descriptor. */
	fd = vfs_reopen(n->path_fd, i == 0 ? O_RDONLY : O_RDWR);
	m = fd >= 0 ? calloc(1, sizeof(*m)) : NULL;
	if (m) {
		m->len = len;
		m->base = mmap(NULL, len, i == 0 ? PROT_READ : PROT_READ | PROT_WRITE,
			       MAP_SHARED, fd, 0);
		/* 1 bit a page: at most VFS_MAP_BUDGET / 32 Ki bytes in all */
		if (i == 1 && m->base != MAP_FAILED &&
		    !(m->present = calloc(len / (size_t)pg / 64 + 1, sizeof(uint64_t)))) {
			munmap(m->base, len);
			m->base = MAP_FAILED;
		}
	}
	if (fd >= 0)
		close(fd);
	if (m && m->base != MAP_FAILED)
		return m;
	*retry = fd < 0 && (fd == -EACCES || fd == -EPERM); /* another caller may */
	if (m)
		map_free(m);
	else {
		util_give(&map_count, 1);
		util_give_size(&map_bytes, len);
	}
	return NULL;
}

bool vfs_map_resident(const uint8_t *p, size_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)p & ~(page - 1), end = (uintptr_t)p + len;
	unsigned char v[256];

	while (a < end) {
		size_t n = (end - a + page - 1) / page, i;

		if (n > sizeof(v))
			n = sizeof(v);
		if (mincore((void *)a, n * page, v) < 0)
			return false;
		for (i = 0; i < n; i++)
			if (!(v[i] & 1))
				return false;
		a += n * page;
	}
	return true;
}

uint8_t *vfs_node_map(struct vfs_node *n, int acc, uint64_t end, size_t *len)
{
	int i = acc_index(acc);
	struct fmap *m = __atomic_load_n(&n->map[i], __ATOMIC_ACQUIRE), *expect = NULL;

	if (!m) {
		bool retry;

		if (__atomic_load_n(&n->map_failed[i], __ATOMIC_RELAXED))
			return NULL;
		m = map_make(n, i, end, &retry);
		if (!m) {
			if (!retry)
				__atomic_store_n(&n->map_failed[i], true, __ATOMIC_RELAXED);
			return NULL;
		}
		if (!__atomic_compare_exchange_n(&n->map[i], &expect, m, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			map_free(m);     /* lost a race: use the winner's */
			m = expect;
		}
	}
	if (m->len < end)
		return NULL;
	*len = m->len;
	return m->base;
}

unsigned int vfs_nodes_sweep_removed(void)
{
	unsigned int i, closed = 0;

	if (!shards)
		return 0;
	for (i = 0; i < nshards; i++) {
		struct shard *s = &shards[i];
		struct vfs_node *n, *list = NULL, *out = NULL;

		/* fstat outside the lock (it may wait on a remote or FUSE file
		 * system): the unused nodes are held meanwhile. */
		pthread_mutex_lock(&s->lock);
		out = s->closing;
		s->closing = NULL;
		for (n = s->lru_head; n; n = n->next)
			if (n->refs == 0) {
				n->refs++;
				n->sweep_next = list;
				list = n;
			}
		pthread_mutex_unlock(&s->lock);
		for (n = list; n; n = n->sweep_next) {
			struct stat st;

			n->removed = fstat(n->path_fd, &st) == 0 && st.st_nlink == 0;
		}
		pthread_mutex_lock(&s->lock);
		for (n = list; n; n = n->sweep_next) {
			bool last = --n->refs == 0;

			if (last && n->cached && n->removed)
				drop(s, n);
			if (last && !n->cached) {
				n->hnext = out;
				out = n;
			}
		}
		pthread_mutex_unlock(&s->lock);
		closed += close_list(out);
	}
	return closed;
}

/* Are pages [@first, @last] all marked in @bits? Mark them. */
static bool pages_marked(const uint64_t *bits, size_t first, size_t last)
{
	size_t p;

	for (p = first; p <= last; p++)
		if (!(__atomic_load_n(&bits[p / 64], __ATOMIC_RELAXED) & (1ull << (p % 64))))
			return false;
	return true;
}

static void pages_mark(uint64_t *bits, size_t first, size_t last)
{
	size_t p;

	for (p = first; p <= last; p++)
		__atomic_fetch_or(&bits[p / 64], 1ull << (p % 64), __ATOMIC_RELAXED);
}

int vfs_node_map_populate(struct vfs_node *n, uint64_t off, size_t len)
{
	struct fmap *m = __atomic_load_n(&n->map[1], __ATOMIC_ACQUIRE);
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), first, last;

	if (!m || !len || off > m->len || len > m->len - off)
		return -EINVAL;
	first = (size_t)off / pg;
	last = ((size_t)off + len - 1) / pg;
	if (pages_marked(m->present, first, last))
		return 0;
	if (madvise(m->base + first * pg, (last - first + 1) * pg, MADV_POPULATE_WRITE) < 0) {
		/* EINVAL: before Linux 5.14; the copy faults the pages in */
		return errno == EINVAL ? 0 : -errno;
	}
	pages_mark(m->present, first, last);
	return 0;
}

void vfs_node_hold(struct vfs_node *n)
{
	struct shard *s = shard_of(n->hash);

	pthread_mutex_lock(&s->lock);
	n->refs++;
	pthread_mutex_unlock(&s->lock);
}

bool vfs_node_pin(struct vfs_node *n)
{
	struct shard *s = shard_of(n->hash);
	bool ok = true;

	pthread_mutex_lock(&s->lock);
	if (n->pins == 0) {
		/* a node out of the table is not what the handle finds */
		ok = n->cached && util_take(&pinned, 1, pin_cap);
	}
	if (ok) {
		if (n->pins == 0) {
			lru_unlink(s, n);
			s->count--;
			pinned_push(s, n);
		}
		__atomic_store_n(&n->pins, n->pins + 1, __ATOMIC_RELAXED);
		n->refs++;
	}
	pthread_mutex_unlock(&s->lock);
	return ok;
}

void vfs_node_unpin(struct vfs_node *n)
{
	struct shard *s = shard_of(n->hash);

	pthread_mutex_lock(&s->lock);
	if (n->pins == 0 || n->refs == 0) {
		/* a caller's bug: never let the counts wrap */
		pthread_mutex_unlock(&s->lock);
		return;
	}
	__atomic_store_n(&n->pins, n->pins - 1, __ATOMIC_RELAXED);
	if (n->pins == 0) {
		util_give(&pinned, 1);
		if (n->cached) {
			/* back on the LRU list, the most recent */
			pinned_unlink(s, n);
			lru_push(s, n);
			s->count++;
		}
	}
	if (--n->refs == 0 && !n->cached) {
		n->hnext = s->closing;
		s->closing = n;
	}
	pthread_mutex_unlock(&s->lock);
}

bool vfs_node_pinned(const struct vfs_node *n)
{
	return __atomic_load_n(&n->pins, __ATOMIC_RELAXED) != 0;
}

unsigned int vfs_nodes_pinned(void)
{
	return __atomic_load_n(&pinned, __ATOMIC_RELAXED);
}

void vfs_node_forget(struct vfs_node *n)
{
	struct shard *s = shard_of(n->hash);

	pthread_mutex_lock(&s->lock);
	/* in use by the caller: closed at its put; pinned: kept */
	if (n->cached && !n->pins)
		drop(s, n);
	pthread_mutex_unlock(&s->lock);
}

void vfs_node_forget_name(const struct vfs_export *e, int dirfd, const char *name)
{
	union {
		struct file_handle h;
		uint8_t buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} u;
	struct vfs_node *n, *victim = NULL;
	struct shard *s;
	uint64_t h;
	int mnt;

	u.h.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(dirfd, name, &u.h, &mnt, 0) < 0 ||
	    u.h.handle_bytes > FH_KERNEL_MAX)
		return;
	h = key_hash(e->id, u.h.handle_type, u.h.f_handle, u.h.handle_bytes);
	s = shard_of(h);
	pthread_mutex_lock(&s->lock);
	n = find(s, h, e->id, u.h.handle_type, u.h.f_handle, u.h.handle_bytes);
	if (n && !n->pins && drop(s, n))
		victim = n;
	pthread_mutex_unlock(&s->lock);
	if (victim)
		node_close(victim);
}

void vfs_nodes_forget_export(uint32_t id)
{
	unsigned int i;

	for (i = 0; shards && i < nshards; i++) {
		struct shard *s = &shards[i];
		struct vfs_node *n, *prev, *next, *victims = NULL;

		pthread_mutex_lock(&s->lock);
		for (n = s->lru_tail; n; n = prev) {
			prev = n->prev;
			if (n->export_id == id && drop(s, n)) {
				n->hnext = victims;
				victims = n;
			}
		}
		/* pinned ones leave the table too; their last unpin leaves
		 * them to the sweep */
		for (n = s->pinned_head; n; n = next) {
			next = n->next;
			if (n->export_id == id)
				drop(s, n);
		}
		pthread_mutex_unlock(&s->lock);
		close_list(victims);
	}
}

unsigned int vfs_nodes_count(void)
{
	unsigned int i, c = 0;

	for (i = 0; shards && i < nshards; i++) {
		pthread_mutex_lock(&shards[i].lock);
		c += shards[i].count;
		pthread_mutex_unlock(&shards[i].lock);
	}
	return c;
}

void vfs_node_stats_get(struct vfs_node_stats *st)
{
	unsigned int i;

	memset(st, 0, sizeof(*st));
	for (i = 0; shards && i < nshards; i++) {
		struct shard *s = &shards[i];

		st->hits += __atomic_load_n(&s->hits, __ATOMIC_RELAXED);
		st->misses += __atomic_load_n(&s->misses, __ATOMIC_RELAXED);
		st->evictions += __atomic_load_n(&s->evictions, __ATOMIC_RELAXED);
		pthread_mutex_lock(&s->lock);
		st->nodes += s->count + s->npinned;
		st->pinned += s->npinned;
		pthread_mutex_unlock(&s->lock);
	}
	st->map_bytes = __atomic_load_n(&map_bytes, __ATOMIC_RELAXED);
}
