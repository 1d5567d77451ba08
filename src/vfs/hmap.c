/* SPDX-License-Identifier: MIT */
/* Handle map for unprivileged servers: see hmap.h. */
#include "vfs/hmap.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vfs/fh.h"

struct entry {
	struct entry *next;          /* hash chain */
	uint32_t id;
	int type;
	uint32_t len;
	uint8_t h[FH_KERNEL_MAX];
	char *path;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry **table;
static size_t nbuckets, count;
static int logfd = -1;

static size_t hash(uint32_t id, int type, const uint8_t *h, uint32_t len)
{
	uint64_t x = 0xcbf29ce484222325ull ^ id ^ ((uint64_t)(uint32_t)type << 32);
	uint32_t i;

	for (i = 0; i < len; i++)
		x = (x ^ h[i]) * 0x100000001b3ull;
	return (size_t)(x ^ (x >> 31));
}

static struct entry **slot(uint32_t id, int type, const uint8_t *h, uint32_t len)
{
	struct entry **pp = &table[hash(id, type, h, len) & (nbuckets - 1)];

	while (*pp && !((*pp)->id == id && (*pp)->type == type && (*pp)->len == len &&
			memcmp((*pp)->h, h, len) == 0))
		pp = &(*pp)->next;
	return pp;
}

static int grow(void)
{
	size_t n = nbuckets ? nbuckets * 2 : 1024, i;
	struct entry **t = calloc(n, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (i = 0; i < nbuckets; i++) {
		struct entry *e = table[i];

		while (e) {
			struct entry *next = e->next;
			size_t b = hash(e->id, e->type, e->h, e->len) & (n - 1);

			e->next = t[b];
			t[b] = e;
			e = next;
		}
	}
	free(table);
	table = t;
	nbuckets = n;
	return 0;
}

static void hex(char *out, const uint8_t *p, size_t n)
{
	static const char d[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = d[p[i] >> 4];
		out[2 * i + 1] = d[p[i] & 15];
	}
	out[2 * n] = 0;
}

static int unhex(uint8_t *out, size_t cap, const char *s, size_t n)
{
	size_t i;

	if (n % 2 || n / 2 > cap)
		return -1;
	for (i = 0; i < n / 2; i++) {
		unsigned int v;

		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		out[i] = (uint8_t)v;
	}
	return (int)(n / 2);
}

/* One log line for @e (no lock needed: @e is the caller's). */
static int record(const struct entry *e)
{
	size_t pl = strlen(e->path);
	char *line = malloc(64 + 2 * FH_KERNEL_MAX + 2 * pl);
	int n, r = 0;

	if (!line)
		return -ENOMEM;
	n = sprintf(line, "P %u %d ", e->id, e->type);
	hex(line + n, e->h, e->len);
	n += (int)(2 * e->len);
	line[n++] = ' ';
	hex(line + n, (const uint8_t *)e->path, pl);
	n += (int)(2 * pl);
	line[n++] = '\n';
	if (logfd >= 0 && write(logfd, line, (size_t)n) != n)
		r = -EIO;
	free(line);
	return r;
}

/* Insert or update; with the lock held. */
static int set(uint32_t id, int type, const uint8_t *h, uint32_t len, const char *path,
	       bool log)
{
	struct entry **pp, *e;
	char *p;

	if (len > FH_KERNEL_MAX)
		return -EINVAL;
	if (count >= nbuckets && grow() < 0)
		return -ENOMEM;
	pp = slot(id, type, h, len);
	if (*pp && strcmp((*pp)->path, path) == 0)
		return 0;
	p = strdup(path);
	if (!p)
		return -ENOMEM;
	e = *pp;
	if (!e) {
		e = calloc(1, sizeof(*e));
		if (!e) {
			free(p);
			return -ENOMEM;
		}
		e->id = id;
		e->type = type;
		e->len = len;
		memcpy(e->h, h, len);
		*pp = e;
		count++;
	} else {
		free(e->path);
	}
	e->path = p;
	return log ? record(e) : 0;
}

/* Replay one log line. Return values: 0, or -1 when it is malformed. */
static int replay(char *line)
{
	char hh[2 * FH_KERNEL_MAX + 2], *ph;
	uint8_t h[FH_KERNEL_MAX];
	char path[PATH_MAX + 1];
	unsigned int id;
	int type, hl, pl, off = 0;

	/* Every complete line ends in a newline: a line cut by a crash does not. */
	if (!strchr(line, '\n'))
		return -1;
	if (sscanf(line, "P %u %d %81s %n", &id, &type, hh, &off) != 3 || !off)
		return -1;
	ph = line + off;
	ph[strcspn(ph, "\n")] = 0;
	hl = unhex(h, sizeof(h), hh, strlen(hh));
	pl = unhex((uint8_t *)path, PATH_MAX, ph, strlen(ph));
	if (hl < 0 || pl < 0)
		return -1;
	path[pl] = 0;
	return set(id, type, h, (uint32_t)hl, path, false) < 0 ? -1 : 0;
}

int vfs_hmap_open(const char *state_dir, char *err, size_t errlen)
{
	char file[PATH_MAX], tmp[PATH_MAX + 8];
	char *line = NULL;
	size_t cap = 0, i;
	unsigned int lineno = 0, bad = 0;
	FILE *f;

	if (snprintf(file, sizeof(file), "%s/handles.map", state_dir) >= (int)sizeof(file)) {
		snprintf(err, errlen, "state directory path too long");
		return -1;
	}
	pthread_mutex_lock(&lock);
	if (!table && grow() < 0) {
		pthread_mutex_unlock(&lock);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	f = fopen(file, "re");
	while (f && getline(&line, &cap, f) > 0) {
		lineno++;
		if (replay(line) < 0)
			bad++;  /* a line cut short by a crash: skip it */
	}
	free(line);
	if (f)
		fclose(f);
	/* Compact: the current entries, once each, then append from there. */
	snprintf(tmp, sizeof(tmp), "%s.new", file);
	logfd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	for (i = 0; logfd >= 0 && i < nbuckets; i++) {
		const struct entry *e;

		for (e = table[i]; e; e = e->next)
			if (record(e) < 0)
				break;
	}
	if (logfd < 0 || fsync(logfd) < 0 || rename(tmp, file) < 0) {
		snprintf(err, errlen, "%s: %s", file, strerror(errno));
		if (logfd >= 0)
			close(logfd);
		logfd = -1;
		pthread_mutex_unlock(&lock);
		return -1;
	}
	pthread_mutex_unlock(&lock);
	if (bad)
		fprintf(stderr, "nfsxd: %s: %u of %u lines unreadable, skipped\n", file, bad,
			lineno);
	return 0;
}

void vfs_hmap_close(void)
{
	size_t i;

	pthread_mutex_lock(&lock);
	for (i = 0; i < nbuckets; i++) {
		while (table[i]) {
			struct entry *e = table[i];

			table[i] = e->next;
			free(e->path);
			free(e);
		}
	}
	free(table);
	table = NULL;
	nbuckets = count = 0;
	if (logfd >= 0)
		close(logfd);
	logfd = -1;
	pthread_mutex_unlock(&lock);
}

int vfs_hmap_put(uint32_t id, int type, const uint8_t *h, uint32_t len, const char *path)
{
	int r;

	pthread_mutex_lock(&lock);
	r = table ? set(id, type, h, len, path, true) : -EINVAL;
	pthread_mutex_unlock(&lock);
	return r;
}

int vfs_hmap_get(uint32_t id, int type, const uint8_t *h, uint32_t len, char *path,
		 size_t cap)
{
	struct entry *e;
	int r = -ENOENT;

	pthread_mutex_lock(&lock);
	e = table && len <= FH_KERNEL_MAX ? *slot(id, type, h, len) : NULL;
	if (e)
		r = strlen(e->path) < cap ? 0 : -ENAMETOOLONG;
	if (r == 0)
		strcpy(path, e->path);
	pthread_mutex_unlock(&lock);
	return r;
}

void vfs_hmap_rename(uint32_t id, const char *from, const char *to)
{
	size_t fl = strlen(from), tl = strlen(to), i;

	pthread_mutex_lock(&lock);
	for (i = 0; i < nbuckets; i++) {
		struct entry *e;

		for (e = table[i]; e; e = e->next) {
			char *np;

			if (e->id != id || strncmp(e->path, from, fl) != 0 ||
			    (e->path[fl] != 0 && e->path[fl] != '/'))
				continue;
			np = malloc(tl + strlen(e->path + fl) + 1);
			if (!np)
				continue;
			strcpy(np, to);
			strcat(np, e->path + fl);
			free(e->path);
			e->path = np;
			record(e);
		}
	}
	pthread_mutex_unlock(&lock);
}

size_t vfs_hmap_count(void)
{
	size_t n;

	pthread_mutex_lock(&lock);
	n = count;
	pthread_mutex_unlock(&lock);
	return n;
}
