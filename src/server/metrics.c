/* SPDX-License-Identifier: MIT */
/* Statistics as Prometheus text: see metrics.h. */
#include "server/metrics.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpc/drc.h"
#include "rpc/svc.h"
#include "util/stats.h"
#include "nfs4/nfs4.h"
#include "vfs/dir.h"
#include "vfs/node.h"

/* Connections rendered at most (the control socket's per-connection
 * series; the per-address sums count every connection). */
#define MAX_CONNS 65536u

void mbuf_printf(struct mbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->failed)
		return;
	for (;;) {
		size_t room = b->cap - b->len;
		char *np;

		va_start(ap, fmt);
		n = vsnprintf(b->p ? b->p + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->failed = true;
			return;
		}
		if ((size_t)n < room) {
			b->len += (size_t)n;
			return;
		}
		np = realloc(b->p, b->cap * 2 + (size_t)n + 4096);
		if (!np) {
			b->failed = true;
			return;
		}
		b->p = np;
		b->cap = b->cap * 2 + (size_t)n + 4096;
	}
}

void mbuf_free(struct mbuf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

static void head(struct mbuf *b, const char *name, const char *type, const char *help)
{
	mbuf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* What a row's series are called: RPC procedures, NFSv4 operations, or
 * calls answered without a procedure. */
enum kind { K_PROC, K_OP, K_REJECT };

static enum kind kind_of(const struct stats_row_info *i)
{
	if (!strcmp(i->group, "nfs4_op"))
		return K_OP;
	if (!strcmp(i->group, "rpc"))
		return K_REJECT;
	return K_PROC;
}

static void labels(struct mbuf *b, const struct stats_row_info *i)
{
	if (kind_of(i) == K_OP)
		mbuf_printf(b, "operation=\"%s\"",
			    strncmp(i->name, "OP_", 3) ? i->name : i->name + 3);
	else
		mbuf_printf(b, "program=\"%s\",version=\"%u\",procedure=\"%s\"", i->group,
			    i->vers, i->name);
}

struct rows {
	uint32_t n;
	struct stats_row *sum;   /* [n] */
};

static int rows_get(struct rows *r)
{
	uint32_t i;

	r->n = stats_rows();
	r->sum = calloc(r->n ? r->n : 1, sizeof(*r->sum));
	if (!r->sum)
		return -1;
	for (i = 0; i < r->n; i++)
		stats_sum(i, &r->sum[i]);
	return 0;
}

static uint64_t ld(const _Atomic uint64_t *c)
{
	return atomic_load_explicit(c, memory_order_relaxed);
}

/* A counter per row of kind @k with a non-zero call count. */
static void counter(struct mbuf *b, const struct rows *r, enum kind k, const char *name,
		    const char *help, size_t field)
{
	uint32_t i;

	head(b, name, "counter", help);
	for (i = 0; i < r->n; i++) {
		const struct stats_row_info *info = stats_row_info(i);
		const struct stats_row *s = &r->sum[i];

		if (kind_of(info) != k || !info->name || !ld(&s->calls))
			continue;
		mbuf_printf(b, "%s{", name);
		labels(b, info);
		mbuf_printf(b, "} %" PRIu64 "\n",
			    ld((const _Atomic uint64_t *)((const char *)s + field)));
	}
}

static void status_label(struct mbuf *b, const struct stats_row_info *info, unsigned int slot)
{
	uint32_t st = stats_slot_status(slot);
	const char *nm = NULL;

	if (slot == STATS_STATUS_OTHER) {
		mbuf_printf(b, "status=\"other\"");
		return;
	}
	if (st > STATS_STATUS_RPC_BASE && st <= STATS_STATUS_RPC_BASE + 5) {
		static const char *const rpc[] = { "", "RPC_PROG_UNAVAIL", "RPC_PROG_MISMATCH",
						   "RPC_PROC_UNAVAIL", "RPC_GARBAGE_ARGS",
						   "RPC_SYSTEM_ERR" };

		mbuf_printf(b, "status=\"%s\"", rpc[st - STATS_STATUS_RPC_BASE]);
		return;
	}
	if (info->status_name)
		nm = info->status_name(info->vers, (int32_t)st);
	if (nm)
		mbuf_printf(b, "status=\"%s\"", nm);
	else
		mbuf_printf(b, "status=\"%" PRIu32 "\"", st);
}

static void errors(struct mbuf *b, const struct rows *r, enum kind k, const char *name,
		   const char *help)
{
	uint32_t i;
	unsigned int slot;

	head(b, name, "counter", help);
	for (i = 0; i < r->n; i++) {
		const struct stats_row_info *info = stats_row_info(i);

		if (kind_of(info) != k || !info->name || !ld(&r->sum[i].errors))
			continue;
		for (slot = 1; slot < STATS_NSTATUS; slot++) {
			uint64_t n = stats_status_count(i, slot);

			if (!n)
				continue;
			mbuf_printf(b, "%s{", name);
			labels(b, info);
			mbuf_printf(b, ",");
			status_label(b, info, slot);
			mbuf_printf(b, "} %" PRIu64 "\n", n);
		}
	}
}

static void histogram(struct mbuf *b, const struct rows *r, enum kind k, const char *name,
		      const char *help, enum stats_time t)
{
	uint32_t i;
	unsigned int bk;

	head(b, name, "histogram", help);
	for (i = 0; i < r->n; i++) {
		const struct stats_row_info *info = stats_row_info(i);
		const struct stats_row *s = &r->sum[i];
		uint64_t cum = 0;

		if (kind_of(info) != k || !info->name || !ld(&s->timed[t]))
			continue;
		for (bk = 0; bk < STATS_NBUCKETS; bk++) {
			uint64_t lim = stats_bucket_limit_ns(bk);

			cum += ld(&s->hist[t][bk]);
			mbuf_printf(b, "%s_bucket{", name);
			labels(b, info);
			if (lim == UINT64_MAX)
				mbuf_printf(b, ",le=\"+Inf\"} %" PRIu64 "\n", cum);
			else
				mbuf_printf(b, ",le=\"%.9g\"} %" PRIu64 "\n", (double)lim / 1e9, cum);
		}
		mbuf_printf(b, "%s_sum{", name);
		labels(b, info);
		mbuf_printf(b, "} %.9g\n%s_count{", (double)ld(&s->ns_sum[t]) / 1e9, name);
		labels(b, info);
		mbuf_printf(b, "} %" PRIu64 "\n", ld(&s->timed[t]));
	}
}

#define F(field) offsetof(struct stats_row, field)

static void render_rows(struct mbuf *b, const struct rows *r)
{
	uint32_t i;

	counter(b, r, K_PROC, "nfsxd_rpc_calls_total",
		"Calls answered, by RPC program, version and procedure.", F(calls));
	errors(b, r, K_PROC, "nfsxd_rpc_errors_total",
	       "Replies whose status was not success, by status (RPC_* for an accept_stat).");
	counter(b, r, K_PROC, "nfsxd_rpc_received_bytes_total",
		"Bytes of calls, record markers included.", F(bytes_in));
	counter(b, r, K_PROC, "nfsxd_rpc_sent_bytes_total",
		"Bytes of replies, record markers included.", F(bytes_out));
	histogram(b, r, K_PROC, "nfsxd_rpc_queue_seconds",
		  "Time from a call's last byte read to its handler's start.", STATS_QUEUE);
	histogram(b, r, K_PROC, "nfsxd_rpc_execute_seconds",
		  "Time the handler ran (encoding its reply included).", STATS_EXEC);
	histogram(b, r, K_PROC, "nfsxd_rpc_send_seconds",
		  "Time from the reply encoded to its last byte given to the socket.",
		  STATS_SEND);
	counter(b, r, K_OP, "nfsxd_nfs4_operations_total",
		"NFSv4 operations run inside COMPOUNDs.", F(calls));
	errors(b, r, K_OP, "nfsxd_nfs4_operation_errors_total",
	       "NFSv4 operations whose status was not NFS4_OK, by status.");
	counter(b, r, K_OP, "nfsxd_nfs4_operation_received_bytes_total",
		"Bytes of the operations' arguments.", F(bytes_in));
	counter(b, r, K_OP, "nfsxd_nfs4_operation_sent_bytes_total",
		"Bytes of the operations' results.", F(bytes_out));
	histogram(b, r, K_OP, "nfsxd_nfs4_operation_execute_seconds",
		  "Time an operation ran, its decoding and its result's encoding included.",
		  STATS_EXEC);
	head(b, "nfsxd_rpc_rejected_total", "counter",
	     "Calls answered without running a procedure, or dropped, by reason.");
	for (i = 0; i < r->n; i++) {
		const struct stats_row_info *info = stats_row_info(i);

		if (kind_of(info) == K_REJECT)
			mbuf_printf(b, "nfsxd_rpc_rejected_total{reason=\"%s\"} %" PRIu64 "\n",
				    info->name, ld(&r->sum[i].calls));
	}
}

/* @ss's address, without the port. */
static void addr_str(const struct sockaddr_storage *ss, char *out, size_t len, unsigned int *port)
{
	*port = 0;
	snprintf(out, len, "?");
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &s->sin_addr, out, (socklen_t)len);
		*port = ntohs(s->sin_port);
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)ss;

		inet_ntop(AF_INET6, &s->sin6_addr, out, (socklen_t)len);
		*port = ntohs(s->sin6_port);
	}
}

struct client_sum {
	char addr[INET6_ADDRSTRLEN];
	uint64_t conns, calls, bytes_in, bytes_out, inflight, held, unsent;
};

static int by_addr(const void *a, const void *b)
{
	return strcmp(((const struct client_sum *)a)->addr, ((const struct client_sum *)b)->addr);
}

static void render_conns(struct mbuf *b, const struct metrics_src *src, bool per_conn)
{
	struct rpc_conn_info *ci = calloc(MAX_CONNS, sizeof(*ci));
	struct client_sum *cs = NULL;
	size_t total = 0, ncs = 0, i, j;
	ssize_t n = ci ? rpc_server_conns(src->srv, ci, MAX_CONNS, &total) : -1;
	unsigned int port;

	head(b, "nfsxd_stats_connections_complete", "gauge",
	     "1 when every connection answered for the per-client figures below, else 0.");
	mbuf_printf(b, "nfsxd_stats_connections_complete %d\n", n >= 0 && (size_t)n == total);
	if (n <= 0)
		goto out;
	cs = calloc((size_t)n, sizeof(*cs));
	if (!cs)
		goto out;
	for (i = 0; i < (size_t)n; i++) {
		char a[INET6_ADDRSTRLEN];

		addr_str(&ci[i].peer, a, sizeof(a), &port);
		for (j = 0; j < ncs && strcmp(cs[j].addr, a); j++)
			;
		if (j == ncs)
			snprintf(cs[ncs++].addr, sizeof(cs[0].addr), "%s", a);
		cs[j].conns++;
		cs[j].calls += ci[i].calls;
		cs[j].bytes_in += ci[i].bytes_in;
		cs[j].bytes_out += ci[i].bytes_out;
		cs[j].inflight += ci[i].inflight;
		cs[j].held += ci[i].held;
		cs[j].unsent += ci[i].unsent;
	}
	qsort(cs, ncs, sizeof(*cs), by_addr);
#define CLIENT(name, type, help, field)                                                   \
	do {                                                                              \
		head(b, name, type, help);                                                \
		for (j = 0; j < ncs; j++)                                                 \
			mbuf_printf(b, name "{client=\"%s\"} %" PRIu64 "\n", cs[j].addr,    \
				    cs[j].field);                                         \
	} while (0)
	CLIENT("nfsxd_client_connections", "gauge", "Connections open now, per client address.",
	       conns);
	CLIENT("nfsxd_client_calls_total", "counter",
	       "Calls answered on the connections open now, per client address.", calls);
	CLIENT("nfsxd_client_received_bytes_total", "counter",
	       "Bytes of those calls, per client address.", bytes_in);
	CLIENT("nfsxd_client_sent_bytes_total", "counter",
	       "Bytes of their replies, per client address.", bytes_out);
	CLIENT("nfsxd_client_calls_in_flight", "gauge",
	       "Calls received and not yet answered, per client address.", inflight);
	CLIENT("nfsxd_client_memory_bytes", "gauge",
	       "Bytes held for the client's calls and replies (the budgets of --max-conn-bytes).",
	       held);
	CLIENT("nfsxd_client_unsent_bytes", "gauge", "Reply bytes queued, not yet sent.", unsent);
#undef CLIENT
	if (!per_conn)
		goto out;
#define CONN(name, type, help, expr)                                                      \
	do {                                                                              \
		head(b, name, type, help);                                                \
		for (i = 0; i < (size_t)n; i++) {                                         \
			char a[INET6_ADDRSTRLEN];                                         \
			addr_str(&ci[i].peer, a, sizeof(a), &port);                       \
			mbuf_printf(b, name "{id=\"%" PRIu64 "\",client=\"%s\",port=\"%u\"} %" \
				    PRIu64 "\n", ci[i].id, a, port, (uint64_t)(expr));    \
		}                                                                         \
	} while (0)
	CONN("nfsxd_connection_calls_total", "counter", "Calls answered, per connection.",
	     ci[i].calls);
	CONN("nfsxd_connection_received_bytes_total", "counter", "Call bytes, per connection.",
	     ci[i].bytes_in);
	CONN("nfsxd_connection_sent_bytes_total", "counter", "Reply bytes, per connection.",
	     ci[i].bytes_out);
	CONN("nfsxd_connection_calls_in_flight", "gauge", "Calls not yet answered.",
	     ci[i].inflight);
	CONN("nfsxd_connection_memory_bytes", "gauge", "Bytes held for the connection.",
	     ci[i].held);
	CONN("nfsxd_connection_age_seconds", "gauge", "Seconds since it was accepted.",
	     ci[i].age_ns / 1000000000u);
	CONN("nfsxd_connection_idle_seconds", "gauge", "Seconds since its last traffic.",
	     ci[i].idle_ns / 1000000000u);
#undef CONN
out:
	free(cs);
	free(ci);
}

static void scalar(struct mbuf *b, const char *name, const char *type, const char *help,
		  uint64_t v)
{
	head(b, name, type, help);
	mbuf_printf(b, "%s %" PRIu64 "\n", name, v);
}

int metrics_render(const struct metrics_src *src, bool per_conn, struct mbuf *b)
{
	struct rpc_server_totals t;
	struct rpc_drc_stats d = { 0 };
	struct vfs_node_stats ns;
	struct vfs_dir_stats ds;
	struct rows r;
	unsigned int i;

	if (rows_get(&r) < 0)
		return -1;
	head(b, "nfsxd_build_info", "gauge", "The running nfsxd's version.");
	mbuf_printf(b, "nfsxd_build_info{version=\"%s\"} 1\n", NFSX_VERSION);
	head(b, "nfsxd_listen_info", "gauge", "The addresses and port NFS is served on.");
	for (i = 0; i < src->nbinds; i++)
		mbuf_printf(b, "nfsxd_listen_info{address=\"%s\",port=\"%u\"} 1\n", src->binds[i],
			    src->port);
	head(b, "nfsxd_start_time_seconds", "gauge", "When nfsxd started, Unix time.");
	mbuf_printf(b, "nfsxd_start_time_seconds %.3f\n", src->start_time);
	render_rows(b, &r);
	free(r.sum);

	rpc_server_totals(src->srv, &t);
	scalar(b, "nfsxd_connections", "gauge", "Connections open now.", t.connections);
	scalar(b, "nfsxd_connections_limit", "gauge", "--max-conns.", t.max_conns);
	scalar(b, "nfsxd_memory_held_bytes", "gauge",
	       "Bytes received and not yet answered, all connections.", t.held);
	scalar(b, "nfsxd_memory_held_limit_bytes", "gauge", "--max-total-bytes.",
	      t.max_total_bytes);
	render_conns(b, src, per_conn);

	if (src->drc)
		rpc_drc_get_stats(src->drc, &d);
	scalar(b, "nfsxd_drc_hits_total", "counter",
	       "Retransmissions answered from the duplicate request cache.", d.hits);
	scalar(b, "nfsxd_drc_misses_total", "counter",
	       "Calls looked up in the duplicate request cache and not found.", d.misses);
	scalar(b, "nfsxd_drc_in_progress_drops_total", "counter",
	       "Retransmissions dropped because the original was still running.",
	      d.in_progress_drops);
	scalar(b, "nfsxd_drc_evictions_total", "counter", "Entries evicted to stay in bounds.",
	      d.evictions);
	scalar(b, "nfsxd_drc_entries", "gauge", "Entries kept.", d.entries);
	scalar(b, "nfsxd_drc_bytes", "gauge", "Bytes kept (--drc-size bounds them).", d.bytes);

	vfs_node_stats_get(&ns);
	scalar(b, "nfsxd_open_cache_hits_total", "counter",
	       "Files and directories found open in the open-object cache.", ns.hits);
	scalar(b, "nfsxd_open_cache_misses_total", "counter",
	       "Files and directories the cache had to open.", ns.misses);
	scalar(b, "nfsxd_open_cache_evictions_total", "counter",
	       "Objects closed to make room.", ns.evictions);
	scalar(b, "nfsxd_open_cache_objects", "gauge", "Objects open in the cache.", ns.nodes);
	scalar(b, "nfsxd_open_cache_pinned_objects", "gauge",
	       "Of those, pinned by NFSv4 opens.", ns.pinned);
	scalar(b, "nfsxd_open_cache_mapped_bytes", "gauge",
	       "Bytes of the files' mappings kept (READ and WRITE without a copy).",
	       ns.map_bytes);
	if (src->nfs4) {
		struct nfs4_stats st;

		nfs4_stats_get(&st);
		scalar(b, "nfsxd_nfs4_clients", "gauge", "NFSv4 client records.", st.clients);
		scalar(b, "nfsxd_nfs4_sessions", "gauge", "NFSv4.1 and 4.2 sessions.",
		       st.sessions);
		scalar(b, "nfsxd_nfs4_opens", "gauge", "Open stateids in force.", st.opens);
		scalar(b, "nfsxd_nfs4_locks", "gauge", "Lock stateids.", st.locks);
		scalar(b, "nfsxd_nfs4_delegations", "gauge", "Delegations held or being recalled.",
		       st.delegations);
		scalar(b, "nfsxd_nfs4_slot_replays_total", "counter",
		       "Retransmissions answered from a session slot's reply cache.",
		       st.slot_replays);
		scalar(b, "nfsxd_nfs4_slot_uncached_retries_total", "counter",
		       "Retransmissions whose reply was not kept (NFS4ERR_RETRY_UNCACHED_REP).",
		       st.slot_uncached);
		scalar(b, "nfsxd_nfs4_seqid_replays_total", "counter",
		       "NFSv4.0 seqid-bearing operations answered from the owner's last reply.",
		       st.seqid_replays);
	}

	vfs_dir_stats(&ds);
	scalar(b, "nfsxd_dir_cache_hits_total", "counter",
	       "Directory reads served from the listing cache.", ds.hits);
	scalar(b, "nfsxd_dir_cache_misses_total", "counter",
	       "Directory reads that read the directory.", ds.misses);
	scalar(b, "nfsxd_dir_cache_directories", "gauge", "Directories cached.", ds.dirs);
	scalar(b, "nfsxd_dir_cache_bytes", "gauge", "Bytes of the listing cache.", ds.bytes);
	return b->failed ? -1 : 0;
}
