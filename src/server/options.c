/* SPDX-License-Identifier: MIT */
/* nfsxd command-line parsing: strict numbers, clear messages. */
#include "server/options.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nfs4/clients.h"
#include "rpc/svc.h"
#include "server/control.h"

#define DEFAULT_STATE_DIR "/var/lib/nfsx"
#define DEFAULT_DRC_SIZE (32u << 20)
#define DEFAULT_DIR_CACHE (64u << 20)

static const char usage[] =
"Usage: nfsxd [OPTION]...\n"
"A user-space NFS server: NFSv3, MOUNT v3 and NFSv4.0/4.1/4.2 over TCP on one\n"
"port, with an embedded rpcbind. NLM (NFSv3 locking) is not implemented.\n"
"\n"
"  -p, --port N            TCP port for NFS and MOUNT (default 2049)\n"
"  -b, --bind ADDR         address to listen on (default 127.0.0.1); may be\n"
"                          given up to 8 times, e.g. an IPv4 and an IPv6\n"
"                          address; the embedded rpcbind listens on each\n"
"      --no-rpcbind        run no portmapper and register with none; clients\n"
"                          must name the port (libnfs ?nfsport=N&mountport=N,\n"
"                          the kernel's port=N,mountport=N)\n"
"      --rpcbind-port N    rpcbind port (default 111): served by nfsxd when\n"
"                          free, else nfsxd registers with the rpcbind there\n"
"  -e, --export DIR[:OPTS] export DIR (may be repeated); OPTS as in\n"
"                          /etc/exports, e.g. /srv/nfs:rw,no_root_squash\n"
"      --exports-file FILE exports in /etc/exports syntax; a host name client\n"
"                          (host.example.com, *.example.com) matches the\n"
"                          peer's reverse lookup when its forward lookup gives\n"
"                          the address back (cached 5 min, 30 s when none)\n"
"      --state-dir DIR     server state (default " DEFAULT_STATE_DIR "),\n"
"                          created with mode 0700\n"
"  -f, --foreground        stay in the foreground, log to stderr (default:\n"
"                          detach and log to syslog)\n"
"      --log-level L       error, warn, info (default) or debug\n"
"      --threads N         event loops (default: one per online CPU)\n"
"      --max-record BYTES  largest call record accepted (default 1052672)\n"
"      --max-inflight N    calls in flight per connection before nfsxd stops\n"
"                          reading it (default 256)\n"
"      --max-unsent BYTES  unsent reply bytes per connection before nfsxd\n"
"                          stops reading it (default 4194304)\n"
"      --max-conns N       connections at once (default 4096)\n"
"      --max-conns-per-client N\n"
"                          connections at once from one client address;\n"
"                          more are closed when accepted (default 0: no limit)\n"
"      --max-conn-bytes BYTES\n"
"                          bytes received and not yet answered that one\n"
"                          connection may hold before nfsxd stops reading it\n"
"                          (default 8388608; at least two large records)\n"
"      --max-total-bytes BYTES\n"
"                          the same for all connections together: past it\n"
"                          nfsxd reads no more (TCP pushes back) except whole\n"
"                          small calls of connections with none in flight\n"
"                          (default 268435456)\n"
"      --idle-timeout SECONDS\n"
"                          close connections with no traffic and no call in\n"
"                          flight for this long (default 360; 0: never)\n"
"      --drc-size BYTES    duplicate request cache bound (default 33554432)\n"
"      --dir-cache-bytes BYTES\n"
"                          memory for cached directory listings (names,\n"
"                          cookies, handles, attributes), kept correct by\n"
"                          inotify; one directory takes at most half of it\n"
"                          (default 67108864; 0: no cache)\n"
"      --workers N         threads for calls that may block on the file\n"
"                          system (default 8)\n"
"      --loop-slice-us N   scheduler slice asked for the event-loop threads\n"
"                          (Linux 6.12+), so a loop woken by a call preempts\n"
"                          busy threads sooner; 0 keeps the kernel's\n"
"                          (default 100)\n"
"      --nfs-vers LIST     NFS versions to serve, comma-separated: 3 and 4\n"
"                          (default: both; 3 alone turns NFSv4 off). Version\n"
"                          4 is minor versions 0, 1 and 2 (opens, I/O, locks,\n"
"                          delegations, sessions, reclaim after a restart;\n"
"                          4.2's SEEK, ALLOCATE, DEALLOCATE, READ_PLUS, COPY,\n"
"                          CLONE and xattrs)\n"
"      --lease-time S      NFSv4 lease in seconds, 10 to 3600 (default 90):\n"
"                          how long a silent client keeps its state for sure\n"
"      --delegations on|off\n"
"                          offer NFSv4 delegations (default on). Processes\n"
"                          on the server do not recall them: turn them off\n"
"                          when files are changed there, not only over NFS\n"
"      --busy-poll-us N    after a turn with work, an event loop polls its\n"
"                          sockets this long before it sleeps: lower latency\n"
"                          at low queue depth (no wake-up per call) for up to\n"
"                          a CPU per loop while calls keep coming (default 0)\n"
"      --metrics [ADDR:]PORT\n"
"                          serve the statistics as Prometheus text over HTTP\n"
"                          at http://ADDR:PORT/metrics (default: off; ADDR\n"
"                          127.0.0.1 unless given; IPv6 as [::1]:PORT). They\n"
"                          are always on the control socket, STATE_DIR/\n"
"                          control.sock (mode 0600), which `nfsx stats` reads\n"
"      --stats on|off      count calls, statuses, bytes and times per\n"
"                          procedure and NFSv4 operation (default on; off\n"
"                          leaves connection, cache and state figures only)\n"
"  -h, --help              this text\n"
"  -V, --version           version\n"
"\n"
"Signals: SIGTERM/SIGINT finish the calls already received and exit.\n"
"SIGHUP reloads the exports file (the --export options are kept): a valid\n"
"file replaces the exports for the next call, without closing connections;\n"
"a bad one is logged (FILE:LINE) and the exports in use stay. Handles of\n"
"exports kept stay valid; those of removed exports become stale.\n";

enum {
	OPT_NO_RPCBIND = 256,
	OPT_RPCBIND_PORT,
	OPT_EXPORTS_FILE,
	OPT_STATE_DIR,
	OPT_LOG_LEVEL,
	OPT_THREADS,
	OPT_MAX_RECORD,
	OPT_MAX_INFLIGHT,
	OPT_MAX_UNSENT,
	OPT_MAX_CONNS,
	OPT_DRC_SIZE,
	OPT_DIR_CACHE,
	OPT_WORKERS,
	OPT_LOOP_SLICE,
	OPT_BUSY_POLL,
	OPT_MAX_CONN_BYTES,
	OPT_MAX_TOTAL_BYTES,
	OPT_IDLE_TIMEOUT,
	OPT_MAX_CONNS_PER_CLIENT,
	OPT_NFS_VERS,
	OPT_LEASE_TIME,
	OPT_DELEGATIONS,
	OPT_METRICS,
	OPT_STATS,
};

static const struct option longopts[] = {
	{ "port", required_argument, NULL, 'p' },
	{ "bind", required_argument, NULL, 'b' },
	{ "no-rpcbind", no_argument, NULL, OPT_NO_RPCBIND },
	{ "rpcbind-port", required_argument, NULL, OPT_RPCBIND_PORT },
	{ "export", required_argument, NULL, 'e' },
	{ "exports-file", required_argument, NULL, OPT_EXPORTS_FILE },
	{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
	{ "foreground", no_argument, NULL, 'f' },
	{ "log-level", required_argument, NULL, OPT_LOG_LEVEL },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "max-record", required_argument, NULL, OPT_MAX_RECORD },
	{ "max-inflight", required_argument, NULL, OPT_MAX_INFLIGHT },
	{ "max-unsent", required_argument, NULL, OPT_MAX_UNSENT },
	{ "max-conns", required_argument, NULL, OPT_MAX_CONNS },
	{ "drc-size", required_argument, NULL, OPT_DRC_SIZE },
	{ "dir-cache-bytes", required_argument, NULL, OPT_DIR_CACHE },
	{ "workers", required_argument, NULL, OPT_WORKERS },
	{ "loop-slice-us", required_argument, NULL, OPT_LOOP_SLICE },
	{ "busy-poll-us", required_argument, NULL, OPT_BUSY_POLL },
	{ "max-conn-bytes", required_argument, NULL, OPT_MAX_CONN_BYTES },
	{ "max-total-bytes", required_argument, NULL, OPT_MAX_TOTAL_BYTES },
	{ "idle-timeout", required_argument, NULL, OPT_IDLE_TIMEOUT },
	{ "max-conns-per-client", required_argument, NULL, OPT_MAX_CONNS_PER_CLIENT },
	{ "nfs-vers", required_argument, NULL, OPT_NFS_VERS },
	{ "lease-time", required_argument, NULL, OPT_LEASE_TIME },
	{ "delegations", required_argument, NULL, OPT_DELEGATIONS },
	{ "metrics", required_argument, NULL, OPT_METRICS },
	{ "stats", required_argument, NULL, OPT_STATS },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* Whole-string decimal in [lo, hi]; anything else is an error. */
static int number(const char *opt, const char *s, unsigned long long lo,
		  unsigned long long hi, unsigned long long *out)
{
	char *end;

	errno = 0;
	if (*s < '0' || *s > '9')
		goto bad;
	*out = strtoull(s, &end, 10);
	if (errno || *end || *out < lo || *out > hi)
		goto bad;
	return 0;
bad:
	fprintf(stderr, "nfsxd: --%s: '%s' is not a number from %llu to %llu\n",
		opt, s, lo, hi);
	return -1;
}

/* "3", "4", "3,4": version 3 is always served (MOUNT and NFSv3 share
 * the port; there is no NFSv4-only mode yet). */
static int nfs_vers(const char *arg, struct nfsxd_opts *o)
{
	const char *p = arg;

	o->nfs4 = false;
	while (*p) {
		if (p[0] == '4' && (p[1] == ',' || !p[1]))
			o->nfs4 = true;
		else if (!(p[0] == '3' && (p[1] == ',' || !p[1])))
			break;
		p += p[1] ? 2 : 1;
	}
	if (*p || !*arg || arg[strlen(arg) - 1] == ',') {
		fprintf(stderr, "nfsxd: --nfs-vers %s: a comma-separated list of 3 and 4\n", arg);
		return -1;
	}
	return 0;
}

int nfsxd_parse_options(int argc, char **argv, struct nfsxd_opts *o)
{
	unsigned long long v;
	int c;

	memset(o, 0, sizeof(*o));
	o->port = 2049;
	o->rpcbind_port = 111;
	o->state_dir = DEFAULT_STATE_DIR;
	o->log_level = NFSX_LOG_INFO;
	o->max_record = RPC_DEFAULT_MAX_RECORD;
	o->max_inflight = RPC_DEFAULT_MAX_INFLIGHT;
	o->max_unsent = RPC_DEFAULT_MAX_UNSENT;
	o->max_conns = RPC_DEFAULT_MAX_CONNS;
	o->drc_size = DEFAULT_DRC_SIZE;
	o->dir_cache_bytes = DEFAULT_DIR_CACHE;
	o->workers = RPC_DEFAULT_WORKERS;
	o->slice_us = RPC_DEFAULT_SLICE_US;
	o->max_conn_bytes = RPC_DEFAULT_MAX_CONN_BYTES;
	o->max_total_bytes = RPC_DEFAULT_MAX_TOTAL_BYTES;
	o->idle_timeout_s = RPC_DEFAULT_IDLE_TIMEOUT_S;
	o->lease_time = NFS4_LEASE_TIME;
	o->nfs4 = true;
	o->delegations = true;
	o->stats = true;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:b:e:fhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (number("port", optarg, 1, 65535, &v))
				return -1;
			o->port = (uint16_t)v;
			break;
		case 'b': {
			struct in6_addr a;

			if (inet_pton(AF_INET, optarg, &a) != 1 &&
			    inet_pton(AF_INET6, optarg, &a) != 1) {
				fprintf(stderr, "nfsxd: --bind: '%s' is not an IPv4 or IPv6 address\n",
					optarg);
				return -1;
			}
			if (o->nbind >= NFSXD_MAX_BINDS) {
				fprintf(stderr, "nfsxd: at most %d --bind options\n",
					NFSXD_MAX_BINDS);
				return -1;
			}
			o->bind[o->nbind++] = optarg;
			break;
		}
		case OPT_NO_RPCBIND:
			o->no_rpcbind = true;
			break;
		case OPT_RPCBIND_PORT:
			if (number("rpcbind-port", optarg, 1, 65535, &v))
				return -1;
			o->rpcbind_port = (uint16_t)v;
			break;
		case 'e':
			if (o->nexports >= NFSXD_MAX_EXPORTS) {
				fprintf(stderr, "nfsxd: at most %d --export options\n",
					NFSXD_MAX_EXPORTS);
				return -1;
			}
			o->exports[o->nexports++] = optarg;
			break;
		case OPT_EXPORTS_FILE:
			o->exports_file = optarg;
			break;
		case OPT_STATE_DIR:
			o->state_dir = optarg;
			break;
		case 'f':
			o->foreground = true;
			break;
		case OPT_LOG_LEVEL:
			if (nfsx_log_parse_level(optarg, &o->log_level)) {
				fprintf(stderr, "nfsxd: --log-level: '%s' is not one of error, warn, info, debug\n",
					optarg);
				return -1;
			}
			break;
		case OPT_THREADS:
			if (number("threads", optarg, 1, 256, &v))
				return -1;
			o->threads = (unsigned int)v;
			break;
		case OPT_MAX_RECORD:
			if (number("max-record", optarg, 1024, 64u << 20, &v))
				return -1;
			o->max_record = (uint32_t)v;
			break;
		case OPT_MAX_INFLIGHT:
			if (number("max-inflight", optarg, 1, 65536, &v))
				return -1;
			o->max_inflight = (unsigned int)v;
			break;
		case OPT_MAX_UNSENT:
			if (number("max-unsent", optarg, 4096, 1ull << 30, &v))
				return -1;
			o->max_unsent = (size_t)v;
			break;
		case OPT_MAX_CONNS:
			if (number("max-conns", optarg, 1, 1000000, &v))
				return -1;
			o->max_conns = (unsigned int)v;
			break;
		case OPT_DRC_SIZE:
			if (number("drc-size", optarg, 0, 1ull << 34, &v))
				return -1;
			o->drc_size = (size_t)v;
			break;
		case OPT_DIR_CACHE:
			if (number("dir-cache-bytes", optarg, 0, 1ull << 40, &v))
				return -1;
			o->dir_cache_bytes = (size_t)v;
			break;
		case OPT_NFS_VERS:
			if (nfs_vers(optarg, o) < 0)
				return -1;
			break;
		case OPT_LEASE_TIME:
			if (number("lease-time", optarg, NFS4_LEASE_MIN, NFS4_LEASE_MAX, &v))
				return -1;
			o->lease_time = (unsigned int)v;
			break;
		case OPT_DELEGATIONS:
			if (strcmp(optarg, "on") != 0 && strcmp(optarg, "off") != 0) {
				fprintf(stderr, "nfsxd: --delegations: '%s' is neither on nor off\n",
					optarg);
				return -1;
			}
			o->delegations = strcmp(optarg, "on") == 0;
			break;
		case OPT_STATS:
			if (strcmp(optarg, "on") != 0 && strcmp(optarg, "off") != 0) {
				fprintf(stderr, "nfsxd: --stats: '%s' is neither on nor off\n",
					optarg);
				return -1;
			}
			o->stats = strcmp(optarg, "on") == 0;
			break;
		case OPT_METRICS:
			if (control_parse_metrics(optarg, o->metrics_addr, &o->metrics_port) < 0) {
				fprintf(stderr, "nfsxd: --metrics: '%s' is not [ADDR:]PORT "
					"(ADDR an IPv4 address or [IPv6])\n", optarg);
				return -1;
			}
			break;
		case OPT_BUSY_POLL:
			if (number("busy-poll-us", optarg, 0, 100000, &v))
				return -1;
			o->busy_poll_us = (unsigned int)v;
			break;
		case OPT_LOOP_SLICE:
			if (number("loop-slice-us", optarg, 0, 100000, &v))
				return -1;
			o->slice_us = (unsigned int)v;
			break;
		case OPT_WORKERS:
			if (number("workers", optarg, 1, 1024, &v))
				return -1;
			o->workers = (unsigned int)v;
			break;
		case OPT_MAX_CONN_BYTES:
			if (number("max-conn-bytes", optarg, 65536, 1ull << 40, &v))
				return -1;
			o->max_conn_bytes = (size_t)v;
			break;
		case OPT_MAX_TOTAL_BYTES:
			if (number("max-total-bytes", optarg, 65536, 1ull << 44, &v))
				return -1;
			o->max_total_bytes = (size_t)v;
			break;
		case OPT_IDLE_TIMEOUT:
			if (number("idle-timeout", optarg, 0, 86400u * 365, &v))
				return -1;
			o->idle_timeout_s = (unsigned int)v;
			break;
		case OPT_MAX_CONNS_PER_CLIENT:
			if (number("max-conns-per-client", optarg, 0, 1000000, &v))
				return -1;
			o->max_conns_per_client = (unsigned int)v;
			break;
		case 'h':
			fputs(usage, stdout);
			return 1;
		case 'V':
			printf("nfsxd %s\n", NFSX_VERSION);
			return 1;
		case ':':
			fprintf(stderr, "nfsxd: option '%s' needs a value\n",
				argv[optind - 1]);
			fprintf(stderr, "Try 'nfsxd --help'.\n");
			return -1;
		default:
			fprintf(stderr, "nfsxd: unknown option '%s'\n", argv[optind - 1]);
			fprintf(stderr, "Try 'nfsxd --help'.\n");
			return -1;
		}
	}
	if (!o->nbind)
		o->bind[o->nbind++] = "127.0.0.1";
	if (optind < argc) {
		fprintf(stderr, "nfsxd: unexpected argument '%s'\nTry 'nfsxd --help'.\n",
			argv[optind]);
		return -1;
	}
	return 0;
}
