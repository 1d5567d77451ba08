/* SPDX-License-Identifier: MIT */
/*
 * nfsx stats' parser of the Prometheus text format and its gathering of
 * nfsxd's series: values (+Inf, -Inf, NaN, hex), label escapes,
 * timestamps, errors naming their line, the caps on labels, label length
 * and series; rows, p99 from log2 buckets, absent figures (NaN), the
 * restart test of the live view, and the JSON writer's compact mode.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "stats_parse.h"
#include "stats_report.h"
#include "stats_snap.h"
#include "tap.h"

static int parse(const char *text, struct prom_set *set, char *err)
{
	return prom_parse(text, strlen(text), set, err, 256);
}

static void features(void)
{
	static const char text[] =
		"# HELP x doc \\ with \"quotes\"\n"
		"# TYPE x counter\n"
		"x{a=\"q\\\\u\\\"o\\nte\",b=\"\"} 1.5e3 1700000000000\n"
		"y +Inf\n"
		"z -Inf\n"
		"w NaN\n"
		"v 0x1p4\n"
		"u{a=\"1\",} -3 -12\n"
		"\n"
		"  # an indented comment\n"
		"t\t{ a = \"x\" }\t7";   /* no final newline */
	struct prom_set s;
	char err[256];

	ok(parse(text, &s, err) == 0, "well-formed text parses (%s)", err);
	ok(s.n == 7, "7 samples (%zu)", s.n);
	if (s.n == 7) {
		ok(!strcmp(s.s[0].name, "x") && s.s[0].nlabels == 2 && s.s[0].value == 1500 &&
		   s.s[0].has_ts && s.s[0].ts == 1700000000000LL && s.s[0].line == 3,
		   "name, labels, value, timestamp and line of the first");
		ok(!strcmp(prom_label(&s.s[0], "a"), "q\\u\"o\nte"),
		   "label escapes \\\\, \\\" and \\n undone");
		ok(!strcmp(prom_label(&s.s[0], "b"), "") && !prom_label(&s.s[0], "c"),
		   "an empty label value; an absent label is NULL");
		ok(isinf(s.s[1].value) && s.s[1].value > 0 && isinf(s.s[2].value) &&
		   s.s[2].value < 0 && isnan(s.s[3].value), "+Inf, -Inf, NaN");
		ok(s.s[4].value == 16, "a hexadecimal float");
		ok(s.s[5].nlabels == 1 && s.s[5].value == -3 && s.s[5].ts == -12,
		   "a trailing comma in the labels; a negative timestamp");
		ok(!strcmp(s.s[6].name, "t") && !strcmp(prom_label(&s.s[6], "a"), "x") &&
		   s.s[6].value == 7 && s.s[6].line == 11,
		   "blanks and tabs around labels; the last line without a newline");
	}
	prom_free(&s);
}

static void errors(void)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "a 1\nb{c=\"\\x\"} 1\n", "line 2: bad escape" },
		{ "a 1\n\nb{c=\"open} 1\n", "line 3: unterminated" },
		{ "a 1\r\n", "line 1: carriage return" },
		{ "a{b=\"1\",b=\"2\"} 1\n", "line 1: label b given twice" },
		{ "# TYPE a nonsense\n", "line 1: unknown type" },
		{ "a 1 2 3\n", "line 1: text after the timestamp" },
		{ "a 1 2x\n", "line 1: bad timestamp" },
		{ "a infinity\n", "line 1: bad value" },
		{ "a nan\n", "line 1: bad value" },
		{ "a 1.2.3\n", "line 1: bad value" },
		{ "a\n", "line 1: blank and value expected" },
		{ "a{b=\"1\"}\n", "line 1: blank and value expected" },
		{ "a{b=\"1\"}2\n", "line 1: blank and value expected" },
		{ "9a 1\n", "line 1: metric name expected" },
		{ "a{9=\"1\"} 1\n", "line 1: label name expected" },
		{ "a{b=1} 1\n", "line 1: label value must be quoted" },
		{ "a{b\"1\"} 1\n", "line 1: '=' expected" },
		{ "a{b=\"1\" c=\"2\"} 1\n", "line 1: ',' or '}' expected" },
		{ "a 99999999999999999999999999999999999999999999999999999999999999999\n",
		  "line 1: value too long" },
		{ "a 1 99999999999999999999\n", "line 1: timestamp out of range" },
		{ "a{b=\"1\"", "line 1: ',' or '}' expected" },
		{ "a{b=\"1", "line 1: unterminated" },
	};
	struct prom_set s;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = parse(bad[i].text, &s, err);

		ok(r < 0 && strstr(err, bad[i].want), "refused: %s (%s)", bad[i].want, err);
		prom_free(&s);
	}
	{
		static const char nul[] = "a 1\nb\0 1\n";

		ok(prom_parse(nul, sizeof(nul) - 1, &s, err, sizeof(err)) < 0 &&
		   strstr(err, "line 2: NUL"), "a NUL byte refused (%s)", err);
		prom_free(&s);
	}
}

static void caps(void)
{
	struct prom_set s;
	char err[256], *big;
	size_t i, n;
	int r;

	ok(parse("a{a=\"1\",b=\"2\",c=\"3\",d=\"4\",e=\"5\",f=\"6\",g=\"7\",h=\"8\",i=\"9\","
		 "j=\"10\",k=\"11\",l=\"12\",m=\"13\",n=\"14\",o=\"15\",p=\"16\"} 1\n", &s,
		 err) == 0 && s.s[0].nlabels == 16, "16 labels taken");
	prom_free(&s);
	ok(parse("a{a=\"1\",b=\"2\",c=\"3\",d=\"4\",e=\"5\",f=\"6\",g=\"7\",h=\"8\",i=\"9\","
		 "j=\"10\",k=\"11\",l=\"12\",m=\"13\",n=\"14\",o=\"15\",p=\"16\",q=\"17\"} 1\n",
		 &s, err) < 0 && strstr(err, "more than 16 labels"), "17 labels refused (%s)", err);
	prom_free(&s);

	big = malloc(4096);
	n = (size_t)snprintf(big, 4096, "a{b=\"");
	for (i = 0; i < STATS_PARSE_MAX_VALUE; i++)
		big[n++] = 'x';
	strcpy(big + n, "\"} 1\n");
	ok(parse(big, &s, err) == 0 && strlen(prom_label(&s.s[0], "b")) == STATS_PARSE_MAX_VALUE,
	   "a label value of %u bytes taken", STATS_PARSE_MAX_VALUE);
	prom_free(&s);
	n = (size_t)snprintf(big, 4096, "a{b=\"");
	for (i = 0; i <= STATS_PARSE_MAX_VALUE; i++)
		big[n++] = 'x';
	strcpy(big + n, "\"} 1\n");
	ok(parse(big, &s, err) < 0 && strstr(err, "label value longer"),
	   "a label value of %u bytes refused (%s)", STATS_PARSE_MAX_VALUE + 1, err);
	prom_free(&s);
	for (i = 0; i <= STATS_PARSE_MAX_NAME; i++)
		big[i] = 'n';
	strcpy(big + i, " 1\n");
	ok(parse(big, &s, err) < 0 && strstr(err, "longer than"), "a name of %u bytes refused",
	   STATS_PARSE_MAX_NAME + 1);
	prom_free(&s);
	free(big);

	/* one series more than the cap: refused at its line */
	n = (size_t)STATS_PARSE_MAX_SERIES + 1;
	big = malloc(n * 4 + 1);
	for (i = 0; i < n; i++)
		memcpy(big + i * 4, "a 1\n", 4);
	r = prom_parse(big, n * 4, &s, err, sizeof(err));
	ok(r < 0 && strstr(err, "more than") && strstr(err, "line 1000001:"),
	   "%zu series refused at the last (%s)", n, err);
	prom_free(&s);
	r = prom_parse(big, (n - 1) * 4, &s, err, sizeof(err));
	ok(r == 0 && s.n == STATS_PARSE_MAX_SERIES, "%u series taken", STATS_PARSE_MAX_SERIES);
	prom_free(&s);
	free(big);
}

#define P "program=\"nfs\",version=\"3\",procedure=\"READ\""

static const char nfsxd_text[] =
	"nfsxd_build_info{version=\"1.2\"} 1\n"
	"nfsxd_start_time_seconds 1000.5\n"
	"nfsxd_rpc_calls_total{" P "} 100\n"
	"nfsxd_rpc_errors_total{" P ",status=\"NFS3ERR_IO\"} 3\n"
	"nfsxd_rpc_errors_total{" P ",status=\"NFS3ERR_STALE\"} 2\n"
	"nfsxd_rpc_received_bytes_total{" P "} 1000\n"
	"nfsxd_rpc_sent_bytes_total{" P "} 1048576\n"
	"nfsxd_rpc_execute_seconds_bucket{" P ",le=\"1e-06\"} 0\n"
	"nfsxd_rpc_execute_seconds_bucket{" P ",le=\"2e-06\"} 50\n"
	"nfsxd_rpc_execute_seconds_bucket{" P ",le=\"4e-06\"} 99\n"
	"nfsxd_rpc_execute_seconds_bucket{" P ",le=\"8e-06\"} 100\n"
	"nfsxd_rpc_execute_seconds_bucket{" P ",le=\"+Inf\"} 100\n"
	"nfsxd_rpc_execute_seconds_sum{" P "} 0.0003\n"
	"nfsxd_rpc_execute_seconds_count{" P "} 100\n"
	"nfsxd_rpc_queue_seconds_bucket{" P ",le=\"1e-06\"} 0\n"
	"nfsxd_rpc_queue_seconds_bucket{" P ",le=\"+Inf\"} 100\n"
	"nfsxd_rpc_queue_seconds_sum{" P "} 30\n"
	"nfsxd_rpc_queue_seconds_count{" P "} 100\n"
	"nfsxd_nfs4_operations_total{operation=\"READ\"} 7\n"
	"nfsxd_nfs4_operation_errors_total{operation=\"READ\",status=\"NFS4ERR_IO\"} 1\n"
	"nfsxd_rpc_rejected_total{reason=\"auth\"} 4\n"
	"nfsxd_connections 2\n"
	"nfsxd_client_connections{client=\"127.0.0.1\"} 2\n"
	"nfsxd_client_calls_total{client=\"127.0.0.1\"} 107\n"
	"nfsxd_client_connections{client=\"::1\"} 0\n"
	"nfsxd_drc_hits_total 5\n"
	"nfsxd_some_future_series{x=\"y\"} 1\n";

static void snapshot(void)
{
	struct prom_set set;
	struct snap s, s2;
	char err[256], *text, *p;
	const struct snap_row *r;
	struct snap_row key = { .program = "nfs", .version = "3", .name = "READ" };

	ok(parse(nfsxd_text, &set, err) == 0 && snap_build(&set, &s, err, sizeof(err)) == 0,
	   "nfsxd's series gathered (%s)", err);
	prom_free(&set);
	r = snap_find(s.procs, s.nprocs, &key);
	ok(!strcmp(s.version, "1.2") && s.sc[S_START_TIME] == 1000.5, "version and start time");
	ok(r && r->calls == 100 && r->errors == 5 && r->bytes_in == 1000 &&
	   r->bytes_out == 1048576, "READ: calls, errors summed over statuses, bytes");
	ok(r && fabs(snap_mean_us(&r->t[SNAP_EXEC]) - 3.0) < 1e-9,
	   "mean execute time 3 us (%g)", r ? snap_mean_us(&r->t[SNAP_EXEC]) : 0);
	ok(r && snap_p99_us(&r->t[SNAP_EXEC]) == 4,
	   "p99: the bound of the bucket holding the 99th of 100 (%g)",
	   r ? snap_p99_us(&r->t[SNAP_EXEC]) : 0);
	ok(r && isinf(snap_p99_us(&r->t[SNAP_QUEUE])), "p99 in the last bucket: +Inf");
	ok(r && isnan(snap_mean_us(&r->t[SNAP_SEND])) && isnan(snap_p99_us(&r->t[SNAP_SEND])),
	   "no send times: NaN");
	ok(s.nops == 1 && s.ops[0].calls == 7 && s.ops[0].errors == 1 && s.nerrs == 3,
	   "an NFSv4 operation and 3 error series");
	ok(s.nclients == 2 && s.clients[0].calls == 107 && s.clients[0].conns == 2,
	   "clients by address");
	ok(s.nrejected == 1 && s.rejected[0].value == 4, "rejected by reason");
	ok(s.sc[S_DRC_HITS] == 5 && isnan(s.sc[S_OC_HITS]) && isnan(s.sc[S_V4_SESSIONS]),
	   "a scalar written, absent ones NaN");

	/* the restart test */
	text = strdup(nfsxd_text);
	p = strstr(text, "} 100\n");   /* READ's calls */
	memcpy(p, "} 099\n", 6);
	ok(parse(text, &set, err) == 0 && snap_build(&set, &s2, err, sizeof(err)) == 0,
	   "a second snapshot");
	prom_free(&set);
	ok(stats_restarted(&s, &s2), "fewer calls: a restart");
	ok(!stats_restarted(&s2, &s), "more calls: no restart");
	s2.sc[S_START_TIME] = 2000;
	ok(stats_restarted(&s2, &s), "another start time: a restart");
	snap_free(&s2);
	free(text);
	snap_free(&s);

	ok(parse("nfsxd_rpc_calls_total{program=\"nfs\"} 1\n", &set, err) == 0 &&
	   snap_build(&set, &s, err, sizeof(err)) < 0 && strstr(err, "line 1:"),
	   "a series without nfsxd's labels refused (%s)", err);
	prom_free(&set);
	snap_free(&s);
	ok(parse("a 1\n", &set, err) == 0 && snap_build(&set, &s, err, sizeof(err)) < 0 &&
	   strstr(err, "nfsxd_build_info"), "text without nfsxd_build_info refused (%s)", err);
	prom_free(&set);
	snap_free(&s);
}

/* Clients are many (65536 connections at most, each its own address):
 * found by address whatever their order, a long address cut once. */
static void many_clients(void)
{
	enum { N = 70000 };
	size_t cap = (size_t)N * 2 * 64 + 4096, len = 0, i, bad = 0;
	char *text = malloc(cap), err[256], lng[201];
	struct prom_set set;
	struct snap s;
	int m;

	len += (size_t)snprintf(text + len, cap - len, "nfsxd_build_info{version=\"x\"} 1\n");
	for (m = 0; m < 2; m++)
		for (i = 0; i < N; i++) {
			/* the second metric in the reverse order */
			size_t k = m ? N - 1 - i : i;

			len += (size_t)snprintf(text + len, cap - len,
						"nfsxd_client_%s{client=\"10.%zu.%zu.%zu\"} %zu\n",
						m ? "calls_total" : "connections", k >> 16,
						(k >> 8) & 255, k & 255, m ? k * 3 : k % 7);
		}
	memset(lng, 'a', 200);
	lng[200] = '\0';
	len += (size_t)snprintf(text + len, cap - len, "nfsxd_client_connections{client=\"%s\"} 1\n"
				"nfsxd_client_calls_total{client=\"%s\"} 2\n", lng, lng);
	ok(prom_parse(text, len, &set, err, sizeof(err)) == 0 &&
	   snap_build(&set, &s, err, sizeof(err)) == 0, "%d clients' series gathered (%s)", N, err);
	ok(s.nclients == N + 1, "%d clients, the long address once (%zu)", N + 1, s.nclients);
	for (i = 0; i < N && i < s.nclients; i++) {
		char want[32];

		snprintf(want, sizeof(want), "10.%zu.%zu.%zu", i >> 16, (i >> 8) & 255, i & 255);
		bad += strcmp(s.clients[i].addr, want) || s.clients[i].conns != (double)(i % 7) ||
		       s.clients[i].calls != (double)(i * 3);
	}
	ok(!bad, "every client's connections and calls, in the order first seen (%zu wrong)", bad);
	ok(s.nclients == N + 1 && s.clients[N].calls == 2 && s.clients[N].conns == 1,
	   "the long address's two series in one client");
	prom_free(&set);
	snap_free(&s);
	free(text);
}

static void compact(void)
{
	char buf[256];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	struct json_w w;

	json_init(&w, f);
	w.compact = true;
	json_obj(&w, NULL);
	json_u64(&w, "a", 1);
	json_arr(&w, "b");
	json_str(&w, NULL, "x");
	json_end(&w);
	json_end(&w);
	ok(json_finish(&w), "compact JSON finished");
	fclose(f);
	ok(!strcmp(buf, "{\"a\":1,\"b\":[\"x\"]}\n"), "compact JSON on one line: %s", buf);
}

int main(void)
{
	features();
	errors();
	caps();
	snapshot();
	many_clients();
	compact();
	return tap_done();
}
