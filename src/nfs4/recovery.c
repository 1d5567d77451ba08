/* SPDX-License-Identifier: MIT */
/*
 * The record of clients with state, and the grace period (recovery.h).
 *
 * A note changes the set in memory and queues its line; the line is
 * written and flushed by nfs4_recov_sync(), which the caller runs once
 * it holds none of its tables' locks (the client table notes under its
 * own lock, itself taken under the sessions' lock: a flush there would
 * stall every SEQUENCE, event loops' included, for a disk write). One
 * writer at a time, in the order the lines were noted, so the log
 * replays to the set.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nfs4/recovery.h"
#include "util/num.h"
#include "xdr/gen/nfs4.h"

#define BUCKETS 4096u

struct rec {
	struct rec *next;
	bool seen;                  /* confirmed in this run */
	bool prev;                  /* in the previous run's record */
	bool complete;              /* ... and said RECLAIM_COMPLETE */
	uint32_t len;
	uint8_t id[];
};

static struct {
	pthread_mutex_t lock;
	struct rec *set[BUCKETS];
	uint32_t live, logged;      /* entries, and lines in the log */
	uint32_t nprev, ncomplete;
	atomic_bool grace;
	uint64_t grace_end;
	int fd;                     /* the log, appended; -1: none */
	char *pend;                 /* lines noted, not yet written */
	size_t npend, cap;
	atomic_bool dirty;          /* npend > 0 */
	pthread_mutex_t wlock;      /* the writer's, taken before lock */
	char file[PATH_MAX], tmp[PATH_MAX + 8];
} R = { .lock = PTHREAD_MUTEX_INITIALIZER, .wlock = PTHREAD_MUTEX_INITIALIZER, .fd = -1 };

/* Lines queued at most between two syncs: past it a line is lost, which
 * only means a client may reclaim, or not, wrongly after a restart. */
#define PEND_MAX (1u << 20)

static uint32_t hash(const uint8_t *d, uint32_t len)
{
	uint32_t h = 2166136261u;   /* FNV-1a */
	uint32_t i;

	for (i = 0; i < len; i++)
		h = (h ^ d[i]) * 16777619u;
	return h & (BUCKETS - 1);
}

static struct rec **find(const uint8_t *id, uint32_t len)
{
	struct rec **pp;

	for (pp = &R.set[hash(id, len)]; *pp; pp = &(*pp)->next)
		if ((*pp)->len == len && memcmp((*pp)->id, id, len) == 0)
			break;
	return pp;
}

static bool insert(const uint8_t *id, uint32_t len)
{
	struct rec **pp = find(id, len), *r;

	if (*pp)
		return true;
	r = calloc(1, sizeof(*r) + len);
	if (!r)
		return false;
	r->len = len;
	memcpy(r->id, id, len);
	*pp = r;
	R.live++;
	return true;
}

static void erase(struct rec **pp)
{
	struct rec *r = *pp;

	*pp = r->next;
	if (r->prev && !r->complete)
		R.nprev--;
	else if (r->prev)
		R.ncomplete--, R.nprev--;
	free(r);
	R.live--;
}

/* "+HEX\n" or "-HEX\n" of @id into @buf (room 2 * NFS4_OPAQUE_LIMIT + 3). */
static size_t line_of(char *buf, char sign, const uint8_t *id, uint32_t len)
{
	static const char hx[] = "0123456789abcdef";
	size_t n = 0;
	uint32_t i;

	buf[n++] = sign;
	for (i = 0; i < len; i++) {
		buf[n++] = hx[id[i] >> 4];
		buf[n++] = hx[id[i] & 15];
	}
	buf[n++] = '\n';
	return n;
}

static bool write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

/* Write the set anew as the log (temporary file, fsync, rename). */
static int compact(void)
{
	char line[2 * NFS4_OPAQUE_LIMIT + 3];
	struct rec *r;
	uint32_t i;
	int fd;

	fd = open(R.tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	for (i = 0; i < BUCKETS; i++)
		for (r = R.set[i]; r; r = r->next)
			if (!write_all(fd, line, line_of(line, '+', r->id, r->len)))
				goto fail;
	if (fsync(fd) < 0 || rename(R.tmp, R.file) < 0)
		goto fail;
	if (R.fd >= 0)
		close(R.fd);
	close(fd);
	R.fd = open(R.file, O_WRONLY | O_APPEND | O_CLOEXEC);
	R.logged = R.live;
	return R.fd < 0 ? -1 : 0;
fail:
	close(fd);
	unlink(R.tmp);
	return -1;
}

/* Apply one line of the log; a malformed one is skipped. */
static void replay_line(const char *s, size_t n)
{
	uint8_t id[NFS4_OPAQUE_LIMIT];
	struct rec **pp;
	uint32_t len, i;
	int hi, lo;

	if (n < 1 || (s[0] != '+' && s[0] != '-') || (n - 1) % 2 ||
	    (n - 1) / 2 > NFS4_OPAQUE_LIMIT)
		return;
	len = (uint32_t)(n - 1) / 2;
	for (i = 0; i < len; i++) {
		hi = util_hexval(s[1 + 2 * i]);
		lo = util_hexval(s[2 + 2 * i]);
		if (hi < 0 || lo < 0)
			return;
		id[i] = (uint8_t)(hi << 4 | lo);
	}
	if (s[0] == '+') {
		insert(id, len);
		return;
	}
	pp = find(id, len);
	if (*pp)
		erase(pp);
}

int nfs4_recov_open(const char *state_dir, uint64_t now, uint32_t lease, char *err,
		    size_t errlen)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	struct rec *r;
	uint32_t i;
	FILE *f;

	if (!state_dir)
		return 0;
	snprintf(R.file, sizeof(R.file), "%s/nfs4-clients", state_dir);
	snprintf(R.tmp, sizeof(R.tmp), "%s.tmp", R.file);
	f = fopen(R.file, "re");
	if (!f && errno != ENOENT) {
		snprintf(err, errlen, "%s: %s", R.file, strerror(errno));
		return -1;
	}
	while (f && (n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			n--;
		replay_line(line, (size_t)n);
	}
	free(line);
	if (f)
		fclose(f);
	for (i = 0; i < BUCKETS; i++)
		for (r = R.set[i]; r; r = r->next) {
			r->prev = true;
			R.nprev++;
		}
	if (compact() < 0) {
		snprintf(err, errlen, "%s: %s", R.file, strerror(errno));
		return -1;
	}
	R.grace_end = now + lease;
	atomic_store(&R.grace, R.nprev > 0);
	return 0;
}

void nfs4_recov_close(void)
{
	uint32_t i;

	nfs4_recov_sync();
	pthread_mutex_lock(&R.lock);
	for (i = 0; i < BUCKETS; i++)
		while (R.set[i])
			erase(&R.set[i]);
	if (R.fd >= 0)
		close(R.fd);
	R.fd = -1;
	R.nprev = R.ncomplete = R.live = R.logged = 0;
	free(R.pend);
	R.pend = NULL;
	R.npend = R.cap = 0;
	atomic_store(&R.dirty, false);
	atomic_store(&R.grace, false);
	pthread_mutex_unlock(&R.lock);
}

/* Queue @sign @id for the log (the lock held): nfs4_recov_sync() writes it. */
static void log_line(char sign, const uint8_t *id, uint32_t len)
{
	size_t need = 2 * NFS4_OPAQUE_LIMIT + 3;

	if (R.fd < 0)
		return;
	if (R.cap - R.npend < need) {
		size_t cap = R.cap ? 2 * R.cap : 4096;
		char *p = cap <= PEND_MAX ? realloc(R.pend, cap) : NULL;

		if (!p)
			return;
		R.pend = p;
		R.cap = cap;
	}
	R.npend += line_of(R.pend + R.npend, sign, id, len);
	R.logged++;
	atomic_store(&R.dirty, true);
}

void nfs4_recov_sync(void)
{
	char *buf;
	size_t n;
	bool big;
	int fd;

	if (!atomic_load(&R.dirty))
		return;
	pthread_mutex_lock(&R.wlock);
	pthread_mutex_lock(&R.lock);
	buf = R.pend;
	n = R.npend;
	R.pend = NULL;
	R.npend = R.cap = 0;
	atomic_store(&R.dirty, false);
	fd = R.fd;
	big = R.logged > 4 * R.live + 64;
	pthread_mutex_unlock(&R.lock);
	/* compaction swaps R.fd, under wlock too: fd stays this one */
	if (n && fd >= 0 && write_all(fd, buf, n))
		(void)fdatasync(fd);
	free(buf);
	if (big) {
		pthread_mutex_lock(&R.lock);
		(void)compact();
		pthread_mutex_unlock(&R.lock);
	}
	pthread_mutex_unlock(&R.wlock);
}

void nfs4_recov_note(const uint8_t *id, uint32_t len, bool add)
{
	struct rec **pp;

	if (len > NFS4_OPAQUE_LIMIT)
		return;
	pthread_mutex_lock(&R.lock);
	pp = find(id, len);
	if (add) {
		if (!*pp && insert(id, len)) {
			pp = find(id, len);
			log_line('+', id, len);
		}
		if (*pp)
			(*pp)->seen = true;
	} else if (*pp) {
		erase(pp);
		log_line('-', id, len);
	}
	pthread_mutex_unlock(&R.lock);
}

/* Grace is over: the previous run's clients that did not come back
 * leave the record (the lock held). */
static void grace_end(void)
{
	struct rec **pp;
	uint32_t i;

	atomic_store(&R.grace, false);
	for (i = 0; i < BUCKETS; i++)
		for (pp = &R.set[i]; *pp;) {
			if ((*pp)->prev && !(*pp)->seen) {
				uint8_t id[NFS4_OPAQUE_LIMIT];
				uint32_t len = (*pp)->len;

				memcpy(id, (*pp)->id, len);
				erase(pp);
				log_line('-', id, len);
				continue;
			}
			(*pp)->prev = false;
			pp = &(*pp)->next;
		}
	R.nprev = R.ncomplete = 0;
}

bool nfs4_recov_in_grace(uint64_t now)
{
	bool in;

	if (!atomic_load(&R.grace))
		return false;
	pthread_mutex_lock(&R.lock);
	if (atomic_load(&R.grace) && (now >= R.grace_end || R.ncomplete == R.nprev))
		grace_end();
	in = atomic_load(&R.grace);
	pthread_mutex_unlock(&R.lock);
	return in;
}

bool nfs4_recov_may_reclaim(const uint8_t *id, uint32_t len)
{
	struct rec **pp;
	bool may;

	pthread_mutex_lock(&R.lock);
	pp = find(id, len);
	may = atomic_load(&R.grace) && *pp && (*pp)->prev && !(*pp)->complete;
	pthread_mutex_unlock(&R.lock);
	return may;
}

void nfs4_recov_reclaim_complete(const uint8_t *id, uint32_t len)
{
	struct rec **pp;

	pthread_mutex_lock(&R.lock);
	pp = find(id, len);
	if (*pp && (*pp)->prev && !(*pp)->complete) {
		(*pp)->complete = true;
		R.ncomplete++;
	}
	pthread_mutex_unlock(&R.lock);
}

uint32_t nfs4_recov_previous(void)
{
	uint32_t n;

	pthread_mutex_lock(&R.lock);
	n = R.nprev;
	pthread_mutex_unlock(&R.lock);
	return n;
}
