/* SPDX-License-Identifier: MIT */
/*
 * nfsxd's statistics as Prometheus text (exposition format 0.0.4): what
 * the control socket answers (`nfsx stats` reads it) and the --metrics
 * endpoint serves. docs/architecture.md lists the metrics.
 *
 * DESIGN
 * One rendering for both readers, so the tool and a Prometheus server
 * see the same figures under the same names; the tool parses the text
 * (a line format simpler than any JSON) and makes its report and rates
 * from it. Per-connection series are rendered for the control socket
 * only: a Prometheus server would keep a time series per connection
 * ever made (ids are never reused), the cardinality its documentation
 * warns against; it gets them summed per client address.
 */
#ifndef NFSX_SERVER_METRICS_H
#define NFSX_SERVER_METRICS_H

#include <stdbool.h>
#include <stddef.h>

struct rpc_server;
struct rpc_drc;

/* A growing text buffer; on allocation failure it stops growing and
 * marks itself failed. */
struct mbuf {
	char *p;
	size_t len, cap;
	bool failed;
};

void mbuf_printf(struct mbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void mbuf_free(struct mbuf *b);

struct metrics_src {
	struct rpc_server *srv;
	struct rpc_drc *drc;
	double start_time;          /* Unix time the server started */
	bool nfs4;                  /* NFSv4 served: its state counts */
	const char *const *binds;   /* NFS listening addresses */
	unsigned int nbinds;
	unsigned int port;
};

/*
 * metrics_render - every metric into @b; @per_conn adds a series per
 * connection (the control socket's answer).
 * Return values: 0, or -1 when memory ran short (@b failed).
 */
int metrics_render(const struct metrics_src *src, bool per_conn, struct mbuf *b);

#endif
