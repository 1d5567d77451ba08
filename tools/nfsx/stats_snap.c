/* SPDX-License-Identifier: MIT */
/* nfsxd's series gathered into rows: see stats_snap.h. */
#include "stats_snap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const scalar_names[S_NSCALARS] = {
	[S_START_TIME] = "nfsxd_start_time_seconds",
	[S_CONNECTIONS] = "nfsxd_connections",
	[S_CONN_LIMIT] = "nfsxd_connections_limit",
	[S_MEM_HELD] = "nfsxd_memory_held_bytes",
	[S_MEM_LIMIT] = "nfsxd_memory_held_limit_bytes",
	[S_DRC_HITS] = "nfsxd_drc_hits_total",
	[S_DRC_MISSES] = "nfsxd_drc_misses_total",
	[S_DRC_INPROG] = "nfsxd_drc_in_progress_drops_total",
	[S_DRC_EVICT] = "nfsxd_drc_evictions_total",
	[S_DRC_ENTRIES] = "nfsxd_drc_entries",
	[S_DRC_BYTES] = "nfsxd_drc_bytes",
	[S_DIR_HITS] = "nfsxd_dir_cache_hits_total",
	[S_DIR_MISSES] = "nfsxd_dir_cache_misses_total",
	[S_DIR_DIRS] = "nfsxd_dir_cache_directories",
	[S_DIR_BYTES] = "nfsxd_dir_cache_bytes",
	[S_OC_HITS] = "nfsxd_open_cache_hits_total",
	[S_OC_MISSES] = "nfsxd_open_cache_misses_total",
	[S_OC_EVICT] = "nfsxd_open_cache_evictions_total",
	[S_OC_OBJECTS] = "nfsxd_open_cache_objects",
	[S_OC_PINNED] = "nfsxd_open_cache_pinned_objects",
	[S_OC_MAPPED] = "nfsxd_open_cache_mapped_bytes",
	[S_V4_CLIENTS] = "nfsxd_nfs4_clients",
	[S_V4_SESSIONS] = "nfsxd_nfs4_sessions",
	[S_V4_OPENS] = "nfsxd_nfs4_opens",
	[S_V4_LOCKS] = "nfsxd_nfs4_locks",
	[S_V4_DELEGS] = "nfsxd_nfs4_delegations",
	[S_V4_SLOT_REPLAYS] = "nfsxd_nfs4_slot_replays_total",
	[S_V4_SLOT_UNCACHED] = "nfsxd_nfs4_slot_uncached_retries_total",
	[S_V4_SEQID_REPLAYS] = "nfsxd_nfs4_seqid_replays_total",
};

const char *snap_scalar_metric(enum snap_scalar i)
{
	return i < S_NSCALARS ? scalar_names[i] : NULL;
}

/* A growable array with a cursor: nfsxd writes a metric's series in the
 * same order as the previous metric's, so the next match is most often
 * just after the last one. Rows are a few hundred at most; clients, which
 * may be thousands, are found through a hash table instead. */
struct vec {
	void *p;
	size_t n, cap, last, size;
};

static void *vec_add(struct vec *v)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 16;
		void *np = realloc(v->p, cap * v->size);

		if (!np)
			return NULL;
		v->p = np;
		v->cap = cap;
	}
	memset((char *)v->p + v->n * v->size, 0, v->size);
	v->last = v->n;
	return (char *)v->p + v->n++ * v->size;
}

typedef bool (*match_fn)(const void *elem, const void *key);

static void *vec_find(struct vec *v, const void *key, match_fn m)
{
	size_t i, k;

	for (k = 0; k < v->n; k++) {
		i = (v->last + 1 + k) % v->n;   /* the one after the last first */
		if (m((const char *)v->p + i * v->size, key)) {
			v->last = i;
			return (char *)v->p + i * v->size;
		}
	}
	return NULL;
}

static bool row_match(const void *e, const void *k)
{
	const struct snap_row *a = e, *b = k;

	return !strcmp(a->name, b->name) && !strcmp(a->program, b->program) &&
	       !strcmp(a->version, b->version);
}

const struct snap_row *snap_find(const struct snap_row *rows, size_t n,
				 const struct snap_row *key)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (row_match(&rows[i], key))
			return &rows[i];
	return NULL;
}

struct build {
	struct vec procs, ops, errs, clients, rejected, listen;
	/* clients by address: open addressing of index + 1 (0: free), as
	 * nfsxd may name 65536 connections' addresses */
	uint32_t *chash;
	size_t hcap;
	char *err;
	size_t errlen;
};

static size_t hash_str(const char *s)
{
	size_t h = 14695981039346656037ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* Return values: the slot of @addr in the table: its entry or a free one. */
static size_t hash_slot(const struct build *b, const char *addr)
{
	const struct snap_client *c = b->clients.p;
	size_t i = hash_str(addr) & (b->hcap - 1);

	while (b->chash[i] && strcmp(c[b->chash[i] - 1].addr, addr))
		i = (i + 1) & (b->hcap - 1);
	return i;
}

/* Make room for one more client: the table at most half full. */
static int hash_grow(struct build *b)
{
	const struct snap_client *c = b->clients.p;
	size_t cap = b->hcap ? b->hcap * 2 : 1024, i;
	uint32_t *old = b->chash;
	size_t oldcap = b->hcap;

	if ((b->clients.n + 1) * 2 <= b->hcap)
		return 0;
	b->chash = calloc(cap, sizeof(*b->chash));
	if (!b->chash) {
		b->chash = old;
		return -1;
	}
	b->hcap = cap;
	for (i = 0; i < oldcap; i++)
		if (old[i])
			b->chash[hash_slot(b, c[old[i] - 1].addr)] = old[i];
	free(old);
	return 0;
}

static int bad(struct build *b, const struct prom_sample *s, const char *what)
{
	snprintf(b->err, b->errlen, "line %u: %s: %s", s->line, s->name, what);
	return -1;
}

static int oom(struct build *b)
{
	snprintf(b->err, b->errlen, "out of memory");
	return -1;
}

static bool has_prefix(const char *s, const char *prefix, const char **rest)
{
	size_t n = strlen(prefix);

	if (strncmp(s, prefix, n))
		return false;
	*rest = s + n;
	return true;
}

/* The row of sample @s (a procedure's when !@op), made when new. */
static struct snap_row *row_of(struct build *b, const struct prom_sample *s, bool op)
{
	struct snap_row key = { 0 }, *r;
	struct vec *v = op ? &b->ops : &b->procs;

	if (op) {
		const char *o = prom_label(s, "operation");

		if (!o) {
			bad(b, s, "no operation label");
			return NULL;
		}
		snprintf(key.name, sizeof(key.name), "%s", o);
	} else {
		const char *p = prom_label(s, "program"), *ve = prom_label(s, "version");
		const char *n = prom_label(s, "procedure");

		if (!p || !ve || !n) {
			bad(b, s, "no program, version or procedure label");
			return NULL;
		}
		snprintf(key.program, sizeof(key.program), "%s", p);
		snprintf(key.version, sizeof(key.version), "%s", ve);
		snprintf(key.name, sizeof(key.name), "%s", n);
	}
	r = vec_find(v, &key, row_match);
	if (r)
		return r;
	r = vec_add(v);
	if (!r) {
		oom(b);
		return NULL;
	}
	*r = key;
	return r;
}

/* A histogram series: _bucket, _sum or _count after @base. */
static int hist_sample(struct build *b, const struct prom_sample *s, struct snap_hist *h,
		       const char *suffix)
{
	if (!strcmp(suffix, "_bucket")) {
		const char *le = prom_label(s, "le");
		char *end;
		double lim;

		if (!le)
			return bad(b, s, "no le label");
		lim = !strcmp(le, "+Inf") ? INFINITY : strtod(le, &end);
		if (!isinf(lim) && (end == le || *end))
			return bad(b, s, "bad le");
		if (h->nb >= SNAP_NBUCKETS)
			return bad(b, s, "too many buckets");
		if (h->nb && !(lim > h->le[h->nb - 1]))
			return bad(b, s, "buckets out of order");
		h->le[h->nb] = lim;
		h->cum[h->nb++] = s->value;
	} else if (!strcmp(suffix, "_sum")) {
		h->sum = s->value;
	} else if (!strcmp(suffix, "_count")) {
		h->count = s->value;
	}
	return 0;
}

static int row_sample(struct build *b, const struct prom_sample *s, bool op, const char *rest)
{
	static const char *const times[SNAP_NTIMES] = { "queue_seconds", "execute_seconds",
							"send_seconds" };
	struct snap_row *r;
	const char *suffix;
	int t;

	if (!strcmp(rest, op ? "operations_total" : "calls_total")) {
		if (!(r = row_of(b, s, op)))
			return -1;
		r->calls = s->value;
		return 0;
	}
	if (!strcmp(rest, op ? "operation_received_bytes_total" : "received_bytes_total")) {
		if (!(r = row_of(b, s, op)))
			return -1;
		r->bytes_in = s->value;
		return 0;
	}
	if (!strcmp(rest, op ? "operation_sent_bytes_total" : "sent_bytes_total")) {
		if (!(r = row_of(b, s, op)))
			return -1;
		r->bytes_out = s->value;
		return 0;
	}
	if (!strcmp(rest, op ? "operation_errors_total" : "errors_total")) {
		const char *st = prom_label(s, "status");
		struct snap_err *e;

		if (!st)
			return bad(b, s, "no status label");
		if (!(r = row_of(b, s, op)))
			return -1;
		r->errors += s->value;
		e = vec_add(&b->errs);
		if (!e)
			return oom(b);
		e->op = op;
		snprintf(e->program, sizeof(e->program), "%s", r->program);
		snprintf(e->version, sizeof(e->version), "%s", r->version);
		snprintf(e->name, sizeof(e->name), "%s", r->name);
		snprintf(e->status, sizeof(e->status), "%s", st);
		e->count = s->value;
		return 0;
	}
	for (t = 0; t < SNAP_NTIMES; t++) {
		const char *tn = times[t];

		if (op && t != SNAP_EXEC)
			continue;
		if (op && !has_prefix(rest, "operation_", &rest))
			return 0;
		if (has_prefix(rest, tn, &suffix) &&
		    (!strcmp(suffix, "_bucket") || !strcmp(suffix, "_sum") ||
		     !strcmp(suffix, "_count"))) {
			if (!(r = row_of(b, s, op)))
				return -1;
			return hist_sample(b, s, &r->t[t], suffix);
		}
	}
	return 0;
}

static int client_sample(struct build *b, const struct prom_sample *s, const char *rest)
{
	static const struct {
		const char *name;
		size_t off;
	} f[] = {
		{ "connections", offsetof(struct snap_client, conns) },
		{ "calls_total", offsetof(struct snap_client, calls) },
		{ "received_bytes_total", offsetof(struct snap_client, bytes_in) },
		{ "sent_bytes_total", offsetof(struct snap_client, bytes_out) },
		{ "calls_in_flight", offsetof(struct snap_client, inflight) },
		{ "memory_bytes", offsetof(struct snap_client, memory) },
	};
	const char *a = prom_label(s, "client");
	struct snap_client *c;
	char key[sizeof(c->addr)];
	size_t i, slot;

	for (i = 0; i < sizeof(f) / sizeof(f[0]) && strcmp(rest, f[i].name); i++)
		;
	if (i == sizeof(f) / sizeof(f[0]))
		return 0;
	if (!a)
		return bad(b, s, "no client label");
	snprintf(key, sizeof(key), "%s", a); /* cut as kept */
	if (hash_grow(b) < 0)
		return oom(b);
	slot = hash_slot(b, key);
	if (b->chash[slot]) {
		c = (struct snap_client *)b->clients.p + b->chash[slot] - 1;
	} else {
		if (b->clients.n >= UINT32_MAX - 1)
			return bad(b, s, "too many clients");
		c = vec_add(&b->clients);
		if (!c)
			return oom(b);
		memcpy(c->addr, key, sizeof(c->addr));
		b->chash[slot] = (uint32_t)b->clients.n;
	}
	*(double *)((char *)c + f[i].off) = s->value;
	return 0;
}

static int named(struct build *b, struct vec *v, const char *name, double value)
{
	struct snap_named *n = vec_add(v);

	if (!n)
		return oom(b);
	snprintf(n->name, sizeof(n->name), "%s", name);
	n->value = value;
	return 0;
}

static int one(struct build *b, struct snap *out, const struct prom_sample *s)
{
	const char *rest;
	int i;

	if (!has_prefix(s->name, "nfsxd_", &rest))
		return 0;
	if (!strcmp(rest, "build_info")) {
		const char *v = prom_label(s, "version");

		snprintf(out->version, sizeof(out->version), "%s", v ? v : "?");
		return 0;
	}
	if (!strcmp(rest, "rpc_rejected_total")) {
		const char *r = prom_label(s, "reason");

		return r ? named(b, &b->rejected, r, s->value) : bad(b, s, "no reason label");
	}
	if (!strcmp(rest, "listen_info")) {
		const char *a = prom_label(s, "address"), *p = prom_label(s, "port");
		char buf[96];

		if (!a || !p)
			return bad(b, s, "no address or port label");
		snprintf(buf, sizeof(buf), strchr(a, ':') ? "[%s]:%s" : "%s:%s", a, p);
		return named(b, &b->listen, buf, s->value);
	}
	for (i = 0; i < S_NSCALARS; i++) {
		if (!strcmp(s->name, scalar_names[i])) {
			out->sc[i] = s->value;
			return 0;
		}
	}
	if (has_prefix(rest, "nfs4_", &rest))
		return row_sample(b, s, true, rest);
	if (has_prefix(rest, "rpc_", &rest))
		return row_sample(b, s, false, rest);
	if (has_prefix(rest, "client_", &rest))
		return client_sample(b, s, rest);
	return 0;
}

int snap_build(const struct prom_set *set, struct snap *out, char *err, size_t errlen)
{
	struct build b = {
		.procs.size = sizeof(struct snap_row), .ops.size = sizeof(struct snap_row),
		.errs.size = sizeof(struct snap_err), .clients.size = sizeof(struct snap_client),
		.rejected.size = sizeof(struct snap_named), .listen.size = sizeof(struct snap_named),
		.err = err, .errlen = errlen,
	};
	size_t i;
	int r = 0;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < S_NSCALARS; i++)
		out->sc[i] = NAN;
	for (i = 0; i < set->n && r == 0; i++)
		r = one(&b, out, &set->s[i]);
	out->procs = b.procs.p, out->nprocs = b.procs.n;
	out->ops = b.ops.p, out->nops = b.ops.n;
	out->errs = b.errs.p, out->nerrs = b.errs.n;
	out->clients = b.clients.p, out->nclients = b.clients.n;
	out->rejected = b.rejected.p, out->nrejected = b.rejected.n;
	out->listen = b.listen.p, out->nlisten = b.listen.n;
	free(b.chash);
	if (r == 0 && !out->version[0]) {
		snprintf(err, errlen, "no nfsxd_build_info: not nfsxd's statistics");
		r = -1;
	}
	return r;
}

void snap_free(struct snap *s)
{
	free(s->procs);
	free(s->ops);
	free(s->errs);
	free(s->clients);
	free(s->rejected);
	free(s->listen);
	memset(s, 0, sizeof(*s));
}

double snap_mean_us(const struct snap_hist *h)
{
	return h->count > 0 ? h->sum / h->count * 1e6 : NAN;
}

double snap_p99_us(const struct snap_hist *h)
{
	double want;
	unsigned int i;

	if (!(h->count > 0) || !h->nb)
		return NAN;
	want = ceil(h->count * 0.99);
	for (i = 0; i < h->nb; i++)
		if (h->cum[i] >= want)
			return h->le[i] * 1e6;
	return INFINITY;
}
