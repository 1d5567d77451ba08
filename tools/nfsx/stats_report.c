/* SPDX-License-Identifier: MIT */
/*
 * nfsx stats' report and live view: see stats_report.h.
 *
 * DESIGN
 * - Rows with no calls are left out; so are sections whose figures
 *   nfsxd did not write (an older server, statistics off).
 * - Times are microseconds, the unit of nfsxd's histogram buckets;
 *   sizes MiB. Columns are right-aligned under headers that name the
 *   unit; the first column is as wide as its longest name.
 * - The JSON holds the same figures, unrounded, under names that say
 *   their unit, so that a script needs no parsing of the text.
 */
#include "stats_report.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "json.h"

#define MIB (1024.0 * 1024.0)

/* "nfs3 READ", "op READ": a row's name in the first column. */
static void row_label(const struct snap_row *r, bool op, char *buf, size_t len)
{
	if (op)
		snprintf(buf, len, "op %s", r->name);
	else
		snprintf(buf, len, "%s%s %s", r->program, r->version, r->name);
}

/* A time in microseconds in @w columns: "-" when unknown. */
static void put_us(FILE *f, int w, double us)
{
	if (isnan(us))
		fprintf(f, " %*s", w, "-");
	else if (isinf(us))
		fprintf(f, " %*s", w, "inf");
	else if (us < 100)
		fprintf(f, " %*.1f", w, us);
	else
		fprintf(f, " %*.0f", w, us);
}

/* A bucket's bound: whole microseconds ("inf" for the last). */
static void put_bound(FILE *f, int w, double us)
{
	if (isnan(us))
		fprintf(f, " %*s", w, "-");
	else if (isinf(us))
		fprintf(f, " %*s", w, "inf");
	else
		fprintf(f, " %*.0f", w, us);
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0;
}

static int name_width(const struct snap_row *rows, size_t n, bool op, const char *title)
{
	int w = (int)strlen(title);
	char buf[128];
	size_t i;

	for (i = 0; i < n; i++) {
		row_label(&rows[i], op, buf, sizeof(buf));
		if ((int)strlen(buf) > w)
			w = (int)strlen(buf);
	}
	return w;
}

static size_t active(const struct snap_row *rows, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += rows[i].calls > 0;
	return k;
}

static void uptime(char *buf, size_t len, double secs)
{
	/* what the server says is not trusted to fit: 1e11 s is 3000 years */
	unsigned long s = secs > 0 ? (unsigned long)fmin(secs, 1e11) : 0;

	if (s >= 86400)
		snprintf(buf, len, "%lud %02lu:%02lu:%02lu", s / 86400, s / 3600 % 24,
			 s / 60 % 60, s % 60);
	else
		snprintf(buf, len, "%lu:%02lu:%02lu", s / 3600, s / 60 % 60, s % 60);
}

static void header(FILE *f, const struct snap *s, double now)
{
	char up[48];
	size_t i;

	fprintf(f, "nfsxd %s", s->version);
	if (s->sc[S_START_TIME] >= 0 && s->sc[S_START_TIME] < 1e11) {
		time_t st = (time_t)s->sc[S_START_TIME];
		struct tm tm;
		char when[32];

		uptime(up, sizeof(up), now - s->sc[S_START_TIME]);
		gmtime_r(&st, &tm);
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
		fprintf(f, ", up %s (since %s)", up, when);
	}
	fprintf(f, "\n%zu client%s", s->nclients, s->nclients == 1 ? "" : "s");
	if (!isnan(s->sc[S_CONNECTIONS]))
		fprintf(f, ", %.0f connections", s->sc[S_CONNECTIONS]);
	if (!isnan(s->sc[S_MEM_HELD]))
		fprintf(f, ", %.2f MiB held for calls", s->sc[S_MEM_HELD] / MIB);
	fprintf(f, "\n");
	if (s->nlisten) {
		fprintf(f, "listening on");
		for (i = 0; i < s->nlisten; i++)
			fprintf(f, " %s", s->listen[i].name);
		fprintf(f, "\n");
	}
}

static void rows_text(FILE *f, const struct snap_row *rows, size_t n, bool op)
{
	const char *title = op ? "NFSv4 operations" : "RPC procedures";
	int w = name_width(rows, n, op, title);
	char buf[128];
	size_t i;
	int t;

	if (!active(rows, n))
		return;
	fprintf(f, "\n%-*s %10s %6s", w, title, "calls", "err%");
	if (op)
		fprintf(f, " %15s", "execute us");
	else
		fprintf(f, " %15s %15s %15s", "queue us", "execute us", "send us");
	fprintf(f, " %9s %9s\n%-*s %10s %6s", "MiB in", "MiB out", w, "", "", "");
	for (t = 0; t < (op ? 1 : SNAP_NTIMES); t++)
		fprintf(f, " %7s %7s", "mean", "p99");
	fprintf(f, "\n");
	for (i = 0; i < n; i++) {
		const struct snap_row *r = &rows[i];

		if (!(r->calls > 0))
			continue;
		row_label(r, op, buf, sizeof(buf));
		fprintf(f, "%-*s %10.0f %6.2f", w, buf, r->calls, pct(r->errors, r->calls));
		for (t = op ? SNAP_EXEC : 0; t < (op ? SNAP_EXEC + 1 : SNAP_NTIMES); t++) {
			put_us(f, 7, snap_mean_us(&r->t[t]));
			put_bound(f, 7, snap_p99_us(&r->t[t]));
		}
		fprintf(f, " %9.2f %9.2f\n", r->bytes_in / MIB, r->bytes_out / MIB);
	}
}

static void errors_text(FILE *f, const struct snap *s)
{
	size_t i, k = 0;
	int w = 16;
	char buf[128];

	for (i = 0; i < s->nerrs; i++) {
		const struct snap_err *e = &s->errs[i];

		if (!(e->count > 0))
			continue;
		k++;
		if (e->op)
			snprintf(buf, sizeof(buf), "op %s", e->name);
		else
			snprintf(buf, sizeof(buf), "%s%s %s", e->program, e->version, e->name);
		if ((int)strlen(buf) > w)
			w = (int)strlen(buf);
	}
	for (i = 0; i < s->nrejected; i++)
		k += s->rejected[i].value > 0;
	if (!k)
		return;
	fprintf(f, "\n%-*s %-24s %10s\n", w, "Errors", "status", "count");
	for (i = 0; i < s->nerrs; i++) {
		const struct snap_err *e = &s->errs[i];

		if (!(e->count > 0))
			continue;
		if (e->op)
			snprintf(buf, sizeof(buf), "op %s", e->name);
		else
			snprintf(buf, sizeof(buf), "%s%s %s", e->program, e->version, e->name);
		fprintf(f, "%-*s %-24s %10.0f\n", w, buf, e->status, e->count);
	}
	for (i = 0; i < s->nrejected; i++)
		if (s->rejected[i].value > 0)
			fprintf(f, "%-*s %-24s %10.0f\n", w, "rejected", s->rejected[i].name,
				s->rejected[i].value);
}

static void clients_text(FILE *f, const struct snap *s)
{
	int w = 15;
	size_t i;

	if (!s->nclients)
		return;
	for (i = 0; i < s->nclients; i++)
		if ((int)strlen(s->clients[i].addr) > w)
			w = (int)strlen(s->clients[i].addr);
	fprintf(f, "\n%-*s %6s %10s %9s %9s %9s %9s\n", w, "Clients", "conns", "calls",
		"in-flight", "KiB held", "MiB in", "MiB out");
	for (i = 0; i < s->nclients; i++) {
		const struct snap_client *c = &s->clients[i];

		fprintf(f, "%-*s %6.0f %10.0f %9.0f %9.1f %9.2f %9.2f\n", w, c->addr, c->conns,
			c->calls, c->inflight, c->memory / 1024.0, c->bytes_in / MIB,
			c->bytes_out / MIB);
	}
}

static void put_num(FILE *f, int w, double v)
{
	if (isnan(v))
		fprintf(f, " %*s", w, "-");
	else
		fprintf(f, " %*.0f", w, v);
}

static void cache_row(FILE *f, const char *name, double hits, double misses, double evict,
		      double entries, double bytes)
{
	fprintf(f, "%-12s", name);
	put_num(f, 12, hits);
	put_num(f, 12, misses);
	if (hits + misses > 0)
		fprintf(f, " %6.1f", pct(hits, hits + misses));
	else
		fprintf(f, " %6s", "-");
	put_num(f, 10, evict);
	put_num(f, 9, entries);
	if (isnan(bytes))
		fprintf(f, " %9s\n", "-");
	else
		fprintf(f, " %9.2f\n", bytes / MIB);
}

static void caches_text(FILE *f, const struct snap *s)
{
	const double *c = s->sc;
	bool drc = !isnan(c[S_DRC_HITS]), dir = !isnan(c[S_DIR_HITS]);
	bool oc = !isnan(c[S_OC_HITS]);

	if (drc || dir || oc)
		fprintf(f, "\n%-12s %12s %12s %6s %10s %9s %9s\n", "Caches", "hits", "misses",
			"hit%", "evictions", "entries", "MiB");
	if (drc)
		cache_row(f, "DRC", c[S_DRC_HITS], c[S_DRC_MISSES], c[S_DRC_EVICT],
			  c[S_DRC_ENTRIES], c[S_DRC_BYTES]);
	if (dir)
		cache_row(f, "dir cache", c[S_DIR_HITS], c[S_DIR_MISSES], NAN, c[S_DIR_DIRS],
			  c[S_DIR_BYTES]);
	if (oc)
		cache_row(f, "open cache", c[S_OC_HITS], c[S_OC_MISSES], c[S_OC_EVICT],
			  c[S_OC_OBJECTS], c[S_OC_MAPPED]);
	if (drc && c[S_DRC_INPROG] > 0)
		fprintf(f, "DRC: %.0f retransmissions dropped while the call ran\n",
			c[S_DRC_INPROG]);
	if (oc && !isnan(c[S_OC_PINNED]))
		fprintf(f, "open cache: %.0f objects pinned by NFSv4 opens; MiB: file bytes "
			"mapped\n", c[S_OC_PINNED]);
}

static void state_text(FILE *f, const struct snap *s)
{
	static const struct {
		enum snap_scalar i;
		const char *name;
	} st[] = {
		{ S_V4_CLIENTS, "clients" }, { S_V4_SESSIONS, "sessions" },
		{ S_V4_OPENS, "opens" }, { S_V4_LOCKS, "locks" },
		{ S_V4_DELEGS, "delegations" }, { S_V4_SLOT_REPLAYS, "slot replays" },
		{ S_V4_SLOT_UNCACHED, "uncached retries" },
		{ S_V4_SEQID_REPLAYS, "seqid replays" },
	};
	size_t i, k = 0;

	for (i = 0; i < sizeof(st) / sizeof(st[0]); i++)
		k += !isnan(s->sc[st[i].i]);
	if (!k)
		return;
	fprintf(f, "\nNFSv4 state\n");
	for (i = 0; i < sizeof(st) / sizeof(st[0]); i++)
		if (!isnan(s->sc[st[i].i]))
			fprintf(f, "%-18s %12.0f\n", st[i].name, s->sc[st[i].i]);
}

void stats_report_text(FILE *f, const struct snap *s, double now)
{
	header(f, s, now);
	if (!active(s->procs, s->nprocs) && !active(s->ops, s->nops))
		fprintf(f, "\nno calls answered yet\n");
	rows_text(f, s->procs, s->nprocs, false);
	rows_text(f, s->ops, s->nops, true);
	errors_text(f, s);
	clients_text(f, s);
	caches_text(f, s);
	state_text(f, s);
}

/* JSON */

static void json_scalar(struct json_w *w, const char *key, double v)
{
	if (!isnan(v))
		json_dbl(w, key, v);
}

static void json_time(struct json_w *w, const char *key, const struct snap_hist *h)
{
	json_obj(w, key);
	json_dbl(w, "count", h->count);
	json_dbl(w, "sum_seconds", h->sum);
	json_dbl(w, "mean_us", snap_mean_us(h));
	json_dbl(w, "p99_us", snap_p99_us(h));  /* null in the last bucket */
	json_end(w);
}

static void json_rows(struct json_w *w, const char *key, const struct snap_row *rows,
		      size_t n, bool op)
{
	static const char *const tn[SNAP_NTIMES] = { "queue", "execute", "send" };
	size_t i;
	int t;

	json_arr(w, key);
	for (i = 0; i < n; i++) {
		const struct snap_row *r = &rows[i];

		if (!(r->calls > 0))
			continue;
		json_obj(w, NULL);
		if (op) {
			json_str(w, "operation", r->name);
		} else {
			json_str(w, "program", r->program);
			json_str(w, "version", r->version);
			json_str(w, "procedure", r->name);
		}
		json_dbl(w, "calls", r->calls);
		json_dbl(w, "errors", r->errors);
		json_dbl(w, "error_pct", pct(r->errors, r->calls));
		json_dbl(w, "received_bytes", r->bytes_in);
		json_dbl(w, "sent_bytes", r->bytes_out);
		for (t = 0; t < SNAP_NTIMES; t++)
			if (!op || t == SNAP_EXEC)
				json_time(w, tn[t], &r->t[t]);
		json_end(w);
	}
	json_end(w);
}

void stats_report_json(FILE *f, const struct snap *s, double now, const char *socket)
{
	const double *c = s->sc;
	struct json_w w;
	size_t i;

	json_init(&w, f);
	json_obj(&w, NULL);
	json_str(&w, "socket", socket);
	json_str(&w, "version", s->version);
	json_dbl(&w, "time", now);
	if (!isnan(c[S_START_TIME])) {
		json_dbl(&w, "start_time", c[S_START_TIME]);
		json_dbl(&w, "uptime_seconds", now - c[S_START_TIME]);
	}
	json_scalar(&w, "connections", c[S_CONNECTIONS]);
	json_scalar(&w, "connections_limit", c[S_CONN_LIMIT]);
	json_u64(&w, "clients_count", s->nclients);
	json_scalar(&w, "memory_held_bytes", c[S_MEM_HELD]);
	json_scalar(&w, "memory_held_limit_bytes", c[S_MEM_LIMIT]);
	json_arr(&w, "listen");
	for (i = 0; i < s->nlisten; i++)
		json_str(&w, NULL, s->listen[i].name);
	json_end(&w);
	json_rows(&w, "rpc", s->procs, s->nprocs, false);
	json_rows(&w, "nfs4_operations", s->ops, s->nops, true);
	json_arr(&w, "errors");
	for (i = 0; i < s->nerrs; i++) {
		const struct snap_err *e = &s->errs[i];

		if (!(e->count > 0))
			continue;
		json_obj(&w, NULL);
		if (e->op) {
			json_str(&w, "operation", e->name);
		} else {
			json_str(&w, "program", e->program);
			json_str(&w, "version", e->version);
			json_str(&w, "procedure", e->name);
		}
		json_str(&w, "status", e->status);
		json_dbl(&w, "count", e->count);
		json_end(&w);
	}
	json_end(&w);
	json_obj(&w, "rejected");
	for (i = 0; i < s->nrejected; i++)
		json_dbl(&w, s->rejected[i].name, s->rejected[i].value);
	json_end(&w);
	json_arr(&w, "clients");
	for (i = 0; i < s->nclients; i++) {
		const struct snap_client *cl = &s->clients[i];

		json_obj(&w, NULL);
		json_str(&w, "address", cl->addr);
		json_dbl(&w, "connections", cl->conns);
		json_dbl(&w, "calls", cl->calls);
		json_dbl(&w, "calls_in_flight", cl->inflight);
		json_dbl(&w, "memory_bytes", cl->memory);
		json_dbl(&w, "received_bytes", cl->bytes_in);
		json_dbl(&w, "sent_bytes", cl->bytes_out);
		json_end(&w);
	}
	json_end(&w);
	/* the caches and the NFSv4 state under nfsxd's own names, without
	 * the prefix: what this nfsxd writes, nothing else */
	json_obj(&w, "server");
	for (i = S_DRC_HITS; i < S_NSCALARS; i++)
		json_scalar(&w, snap_scalar_metric((enum snap_scalar)i) + strlen("nfsxd_"), c[i]);
	json_end(&w);
	json_end(&w);
	json_finish(&w);
}

/* The live view */

bool stats_restarted(const struct snap *prev, const struct snap *cur)
{
	size_t i;

	if (!isnan(prev->sc[S_START_TIME]) && !isnan(cur->sc[S_START_TIME]) &&
	    prev->sc[S_START_TIME] != cur->sc[S_START_TIME])
		return true;
	for (i = 0; i < prev->nprocs; i++) {
		const struct snap_row *r = snap_find(cur->procs, cur->nprocs, &prev->procs[i]);

		if (!r || r->calls < prev->procs[i].calls)
			return true;
	}
	for (i = 0; i < prev->nops; i++) {
		const struct snap_row *r = snap_find(cur->ops, cur->nops, &prev->ops[i]);

		if (!r || r->calls < prev->ops[i].calls)
			return true;
	}
	return false;
}

/* What a row did between two snapshots. */
struct delta {
	double calls, errors, in, out, exec_sum, exec_count;
};

static struct delta delta_of(const struct snap_row *prev, const struct snap_row *cur)
{
	struct delta d = { 0 };

	d.calls = cur->calls - (prev ? prev->calls : 0);
	d.errors = cur->errors - (prev ? prev->errors : 0);
	d.in = cur->bytes_in - (prev ? prev->bytes_in : 0);
	d.out = cur->bytes_out - (prev ? prev->bytes_out : 0);
	d.exec_sum = cur->t[SNAP_EXEC].sum - (prev ? prev->t[SNAP_EXEC].sum : 0);
	d.exec_count = cur->t[SNAP_EXEC].count - (prev ? prev->t[SNAP_EXEC].count : 0);
	return d;
}

static double delta_mean_us(const struct delta *d)
{
	return d->exec_count > 0 ? d->exec_sum / d->exec_count * 1e6 : NAN;
}

static void clock_str(char *buf, size_t len, double now)
{
	time_t t = (time_t)now;
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(buf, len, "%H:%M:%S", &tm);
}

/* Totals of the procedures (calls are RPC calls, bytes are on the wire). */
static struct delta totals(const struct snap *prev, const struct snap *cur)
{
	struct delta t = { 0 };
	size_t i;

	for (i = 0; i < cur->nprocs; i++) {
		struct delta d = delta_of(snap_find(prev->procs, prev->nprocs, &cur->procs[i]),
					  &cur->procs[i]);

		t.calls += d.calls;
		t.errors += d.errors;
		t.in += d.in;
		t.out += d.out;
	}
	return t;
}

void stats_interval_text(FILE *f, const struct snap *prev, const struct snap *cur, double dt,
			 double now, bool restarted)
{
	char clk[16], buf[128];
	struct delta t;
	int w = 24, pass;
	size_t i;

	clock_str(clk, sizeof(clk), now);
	if (restarted) {
		fprintf(f, "%s  nfsxd restarted (another start time, or counters went back): rates "
			"resume at the next interval\n\n", clk);
		fflush(f);
		return;
	}
	t = totals(prev, cur);
	fprintf(f, "%s  %.2f s  %.1f calls/s  %.2f MiB/s in  %.2f MiB/s out", clk, dt,
		t.calls / dt, t.in / MIB / dt, t.out / MIB / dt);
	if (!isnan(cur->sc[S_CONNECTIONS]))
		fprintf(f, "  %.0f connections", cur->sc[S_CONNECTIONS]);
	fprintf(f, "\n");
	for (pass = 0; pass < 2; pass++) {
		const struct snap_row *rows = pass ? cur->ops : cur->procs;
		const struct snap_row *prows = pass ? prev->ops : prev->procs;
		size_t n = pass ? cur->nops : cur->nprocs, pn = pass ? prev->nops : prev->nprocs;
		bool head = false;

		for (i = 0; i < n; i++) {
			struct delta d = delta_of(snap_find(prows, pn, &rows[i]), &rows[i]);

			if (!(d.calls > 0))
				continue;
			if (!head) {
				fprintf(f, "  %-*s %10s %8s %10s %10s %10s\n", w,
					pass ? "NFSv4 operations" : "RPC procedures", "calls/s",
					"errors/s", "execute us", "MiB/s in", "MiB/s out");
				head = true;
			}
			row_label(&rows[i], pass, buf, sizeof(buf));
			fprintf(f, "  %-*s %10.1f %8.1f", w, buf, d.calls / dt, d.errors / dt);
			put_us(f, 10, delta_mean_us(&d));
			fprintf(f, " %10.2f %10.2f\n", d.in / MIB / dt, d.out / MIB / dt);
		}
	}
	fprintf(f, "\n");
	fflush(f);
}

static void json_rates(struct json_w *w, const char *key, const struct snap_row *rows, size_t n,
		       const struct snap_row *prows, size_t pn, bool op, double dt)
{
	size_t i;

	json_arr(w, key);
	for (i = 0; i < n; i++) {
		struct delta d = delta_of(snap_find(prows, pn, &rows[i]), &rows[i]);

		if (!(d.calls > 0))
			continue;
		json_obj(w, NULL);
		if (op) {
			json_str(w, "operation", rows[i].name);
		} else {
			json_str(w, "program", rows[i].program);
			json_str(w, "version", rows[i].version);
			json_str(w, "procedure", rows[i].name);
		}
		json_dbl(w, "calls", d.calls);
		json_dbl(w, "calls_per_second", d.calls / dt);
		json_dbl(w, "errors_per_second", d.errors / dt);
		json_dbl(w, "execute_mean_us", delta_mean_us(&d));
		json_dbl(w, "received_mib_per_second", d.in / MIB / dt);
		json_dbl(w, "sent_mib_per_second", d.out / MIB / dt);
		json_end(w);
	}
	json_end(w);
}

void stats_interval_json(FILE *f, const struct snap *prev, const struct snap *cur, double dt,
			 double now, bool restarted)
{
	struct json_w w;

	json_init(&w, f);
	w.compact = true;
	json_obj(&w, NULL);
	json_dbl(&w, "time", now);
	json_dbl(&w, "interval_seconds", dt);
	json_bool(&w, "restarted", restarted);
	if (!restarted) {
		struct delta t = totals(prev, cur);

		json_dbl(&w, "calls_per_second", t.calls / dt);
		json_dbl(&w, "errors_per_second", t.errors / dt);
		json_dbl(&w, "received_mib_per_second", t.in / MIB / dt);
		json_dbl(&w, "sent_mib_per_second", t.out / MIB / dt);
		json_scalar(&w, "connections", cur->sc[S_CONNECTIONS]);
		json_rates(&w, "rpc", cur->procs, cur->nprocs, prev->procs, prev->nprocs, false,
			   dt);
		json_rates(&w, "nfs4_operations", cur->ops, cur->nops, prev->ops, prev->nops,
			   true, dt);
	}
	json_end(&w);
	json_finish(&w);
	fflush(f);
}
