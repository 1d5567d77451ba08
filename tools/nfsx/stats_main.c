/* SPDX-License-Identifier: MIT */
/*
 * nfsx stats: nfsxd's statistics read from its control socket, as an
 * nfsstat-like report, a live view of rates (-i) or JSON.
 *
 * DESIGN
 * - Only the local control socket (STATE_DIR/control.sock, mode 0600):
 *   never the NFS port, so the figures are the server's user's (and
 *   root's) alone, as nfsxd means them to be. --server ADDR:PORT finds
 *   the socket through the link nfsxd makes in its run directory.
 * - One request per read ("metrics\n", the text to EOF), bounded in
 *   size and in time: a stalled or runaway server cannot hang nor
 *   exhaust the tool.
 * - Errors name the path and the likely cause; exit status 1, and 2 for
 *   a usage error, as the other commands.
 */
#include "stats.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "stats_parse.h"
#include "stats_report.h"
#include "stats_snap.h"

#define DEFAULT_STATE_DIR "/var/lib/nfsx"
#define SOCKET_NAME "control.sock"
/* Per-connection series for nfsxd's 65536 connections at most fit. */
#define READ_MAX (256u << 20)
#define READ_TIMEOUT_S 10

const char stats_usage[] =
"usage: nfsx stats [--socket PATH | --state-dir DIR | --server ADDR:PORT]\n"
"                  [-i SECONDS [-c COUNT]] [--json]\n"
"\n"
"nfsxd's statistics, read from its control socket (never the NFS port):\n"
"calls, errors and times per RPC procedure and NFSv4 operation, clients,\n"
"caches and NFSv4 state.\n"
"\n"
"  --socket PATH       the control socket to read\n"
"  --state-dir DIR     that of the nfsxd run with --state-dir DIR\n"
"                      (default: " DEFAULT_STATE_DIR "/" SOCKET_NAME ")\n"
"  --server ADDR:PORT  that of the nfsxd serving ADDR:PORT on this machine\n"
"                      (its link in $NFSX_RUN_DIR, else /run/nfsx for root,\n"
"                      else $XDG_RUNTIME_DIR/nfsx; IPv6: [ADDR]:PORT; a server\n"
"                      bound to 0.0.0.0 or [::] is found too)\n"
"  --interval, -i SECONDS  live view: every SECONDS the rates of the interval\n"
"  --count, -c COUNT   stop after COUNT blocks (default: until interrupted)\n"
"  --json              JSON: one object; with -i one object per line\n"
"  --help, -h          this text\n"
"\n"
"Exit status: 0 success, 1 the socket could not be read, 2 usage error.\n";

struct stats_opts {
	const char *socket, *state_dir, *server;
	double interval;       /* 0: one report */
	unsigned long count;   /* 0: no limit */
	bool json;
	char path[1024];
	char why[1200];        /* what to say when the socket is not there */
};

static int usage_err(const char *fmt, const char *arg)
{
	fprintf(stderr, "nfsx stats: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (nfsx stats --help)\n");
	return 2;
}

/* The run directory of --server's links: as nfsxd chooses it. */
static int run_dir(char *buf, size_t len)
{
	const char *e = getenv("NFSX_RUN_DIR");

	if (e && *e)
		return snprintf(buf, len, "%s", e) < (int)len ? 0 : -1;
	if (geteuid() == 0)
		return snprintf(buf, len, "/run/nfsx") < (int)len ? 0 : -1;
	e = getenv("XDG_RUNTIME_DIR");
	if (e && *e)
		return snprintf(buf, len, "%s/nfsx", e) < (int)len ? 0 : -1;
	return -1;
}

/* The names nfsxd's link may have for --server @arg (ADDR:PORT or
 * [ADDR6]:PORT), in the order they are tried: the address as inet_ntop
 * writes it (so that ::0:1 finds [::1]), as the user wrote it (nfsxd
 * names the link by its --bind argument), and the wildcard address of
 * the family (a server bound to all addresses serves this one too).
 * Return values: how many names were put in @names, 0 when @arg is not
 * such an address. */
static int link_names(const char *arg, char names[3][INET6_ADDRSTRLEN + 16])
{
	char addr[INET6_ADDRSTRLEN + 2], canon[INET6_ADDRSTRLEN];
	unsigned char bin[16];
	const char *colon, *a = arg, *fmt;
	size_t alen;
	bool v6;
	char *end;
	unsigned long port;
	int n = 0;

	if (*a == '[') {
		const char *rb = strchr(a, ']');

		if (!rb || rb[1] != ':')
			return 0;
		a++;
		alen = (size_t)(rb - a);
		colon = rb + 1;
		v6 = true;
	} else {
		colon = strrchr(a, ':');
		if (!colon)
			return 0;
		alen = (size_t)(colon - a);
		v6 = false;
	}
	if (!alen || alen >= sizeof(addr))
		return 0;
	memcpy(addr, a, alen);
	addr[alen] = '\0';
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (!colon[1] || *end || errno || port < 1 || port > 65535 || colon[1] == '+' ||
	    colon[1] == '-')
		return 0;
	if (inet_pton(v6 ? AF_INET6 : AF_INET, addr, bin) != 1 ||
	    !inet_ntop(v6 ? AF_INET6 : AF_INET, bin, canon, sizeof(canon)))
		return 0;
	fmt = v6 ? "[%s]:%lu" : "%s:%lu";
	snprintf(names[n++], sizeof(names[0]), fmt, canon, port);
	if (strcmp(addr, canon))
		snprintf(names[n++], sizeof(names[0]), fmt, addr, port);
	if (strcmp(canon, v6 ? "::" : "0.0.0.0"))
		snprintf(names[n++], sizeof(names[0]), fmt, v6 ? "::" : "0.0.0.0", port);
	return n;
}

/* Set o->path (and o->why) from the options. Return values: 0, 1 (an
 * error said), 2 (usage). */
static int resolve(struct stats_opts *o)
{
	char dir[256], names[3][INET6_ADDRSTRLEN + 16], lpath[512], looked[1600];
	struct stat st;
	int i, n;

	if (o->socket) {
		snprintf(o->path, sizeof(o->path), "%s", o->socket);
		snprintf(o->why, sizeof(o->why), "is nfsxd running with that socket?");
		return 0;
	}
	if (!o->server) {
		const char *d = o->state_dir ? o->state_dir : DEFAULT_STATE_DIR;

		snprintf(o->path, sizeof(o->path), "%s/%s", d, SOCKET_NAME);
		snprintf(o->why, sizeof(o->why), "is nfsxd running with --state-dir %s?%s", d,
			 o->state_dir ? "" : " (another: --state-dir, --socket or --server)");
		return 0;
	}
	n = link_names(o->server, names);
	if (!n)
		return usage_err("--server %s: not ADDR:PORT or [ADDR6]:PORT with a numeric "
				 "address", o->server);
	if (run_dir(dir, sizeof(dir)) < 0) {
		fprintf(stderr, "nfsx stats: --server: no run directory to look in "
			"(NFSX_RUN_DIR and XDG_RUNTIME_DIR are not set, and /run/nfsx is "
			"root's); use --state-dir or --socket\n");
		return 1;
	}
	looked[0] = '\0';
	for (i = 0; i < n; i++) {
		snprintf(lpath, sizeof(lpath), "%s/%s", dir, names[i]);
		if (lstat(lpath, &st) == 0) {
			snprintf(o->path, sizeof(o->path), "%s", lpath);
			snprintf(o->why, sizeof(o->why), "the link %s is left, its target gone: "
				 "nfsxd stopped without removing it?", lpath);
			return 0;
		}
		snprintf(looked + strlen(looked), sizeof(looked) - strlen(looked), "%s%s",
			 i ? ", " : "", lpath);
	}
	fprintf(stderr, "nfsx stats: --server %s: no control socket link (looked for %s): is "
		"an nfsxd serving %s on this machine with this run directory? Else use "
		"--state-dir or --socket\n", o->server, looked, names[0]);
	return 1;
}

/* Connect to o->path and read the metrics. Return values: 0 with the
 * text in *@buf (NUL-terminated, *@len bytes), or -1 (said). */
static int read_metrics(const struct stats_opts *o, char **buf, size_t *len)
{
	static const char req[] = "metrics\n";
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = READ_TIMEOUT_S };
	size_t cap = 1 << 16, n = 0;
	char *b = NULL;
	int fd, e;

	if (strlen(o->path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "nfsx stats: %s: path too long for a Unix socket\n", o->path);
		return -1;
	}
	memcpy(sa.sun_path, o->path, strlen(o->path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "nfsx stats: socket: %s\n", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		e = errno;
		if (e == ENOENT)
			fprintf(stderr, "nfsx stats: %s: no such socket: %s\n", o->path, o->why);
		else if (e == EACCES || e == EPERM)
			fprintf(stderr, "nfsx stats: %s: permission denied: the control socket "
				"is for nfsxd's user alone; run nfsx stats as that user or root\n",
				o->path);
		else if (e == ECONNREFUSED)
			fprintf(stderr, "nfsx stats: %s: connection refused: nothing listens on "
				"it (nfsxd stopped or died and left the socket?)\n", o->path);
		else if (e == ENOTSOCK || e == ENOTDIR)
			fprintf(stderr, "nfsx stats: %s: not a socket\n", o->path);
		else
			fprintf(stderr, "nfsx stats: %s: %s\n", o->path, strerror(e));
		close(fd);
		return -1;
	}
	if (send(fd, req, sizeof(req) - 1, MSG_NOSIGNAL) != (ssize_t)(sizeof(req) - 1)) {
		fprintf(stderr, "nfsx stats: %s: sending the request: %s\n", o->path,
			strerror(errno));
		close(fd);
		return -1;
	}
	shutdown(fd, SHUT_WR);
	for (;;) {
		ssize_t r;

		if (n + 1 >= cap) {
			char *nb;

			if (cap >= READ_MAX) {
				fprintf(stderr, "nfsx stats: %s: answer larger than %u MiB\n",
					o->path, READ_MAX >> 20);
				goto fail;
			}
			cap *= 2;
			nb = realloc(b, cap);
			if (!nb) {
				fprintf(stderr, "nfsx stats: out of memory\n");
				goto fail;
			}
			b = nb;
		} else if (!b) {
			b = malloc(cap);
			if (!b) {
				fprintf(stderr, "nfsx stats: out of memory\n");
				goto fail;
			}
		}
		r = recv(fd, b + n, cap - 1 - n, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			fprintf(stderr, "nfsx stats: %s: reading: %s\n", o->path,
				errno == EAGAIN ? "no answer in time" : strerror(errno));
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (!b) {
		fprintf(stderr, "nfsx stats: %s: empty answer\n", o->path);
		return -1;
	}
	b[n] = '\0';
	if (!strncmp(b, "error: ", 7)) {
		fprintf(stderr, "nfsx stats: %s: the server says: %.*s\n", o->path,
			(int)strcspn(b, "\n"), b);
		free(b);
		return -1;
	}
	*buf = b;
	*len = n;
	return 0;
fail:
	free(b);
	close(fd);
	return -1;
}

/* Read, parse and gather one snapshot. Return values: 0 or -1 (said). */
static int snapshot(const struct stats_opts *o, struct snap *s)
{
	struct prom_set set;
	char err[256], *text;
	size_t len;
	int r;

	memset(s, 0, sizeof(*s));
	if (read_metrics(o, &text, &len) < 0)
		return -1;
	r = prom_parse(text, len, &set, err, sizeof(err));
	if (r == 0)
		r = snap_build(&set, s, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "nfsx stats: %s: %s\n", o->path, err);
		snap_free(s);
	}
	prom_free(&set);
	free(text);
	return r;
}

static double now_real(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_until(double t)
{
	for (;;) {
		double d = t - now_mono();
		struct timespec ts;

		if (d <= 0)
			return;
		ts.tv_sec = (time_t)d;
		ts.tv_nsec = (long)((d - (double)ts.tv_sec) * 1e9);
		if (nanosleep(&ts, NULL) == 0)
			return;
	}
}

/* The live view: a block per interval, the first after one interval. A
 * read that fails is said and skipped; the next block's rates are then
 * over the time since the last good read (or, when the server restarted
 * meanwhile, its start time changed, the block says so). */
static int live(const struct stats_opts *o)
{
	struct snap prev, cur;
	double t0, tprev;
	unsigned long k;
	int status = 0;

	if (snapshot(o, &prev) < 0)
		return 1;
	t0 = tprev = now_mono();
	for (k = 1; !o->count || k <= o->count; k++) {
		bool restarted;
		double t;

		sleep_until(t0 + (double)k * o->interval);
		if (snapshot(o, &cur) < 0) {
			status = 1;
			continue;
		}
		t = now_mono();
		restarted = stats_restarted(&prev, &cur);
		errno = 0;
		if (o->json)
			stats_interval_json(stdout, &prev, &cur, t - tprev, now_real(), restarted);
		else
			stats_interval_text(stdout, &prev, &cur, t - tprev, now_real(), restarted);
		snap_free(&prev);
		prev = cur;
		tprev = t;
		if (ferror(stdout)) {
			/* SIGPIPE is ignored: a reader gone (nfsx stats -i 1 | head)
			 * ends the view quietly, as the signal would */
			if (errno != EPIPE) {
				fprintf(stderr, "nfsx stats: standard output: %s\n",
					strerror(errno));
				status = 1;
			}
			break;
		}
	}
	snap_free(&prev);
	return status;
}

static int parse_opts(struct stats_opts *o, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "state-dir", required_argument, NULL, 'd' },
		{ "server", required_argument, NULL, 'S' },
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, where = 0;
	char *end;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":i:c:h", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			o->socket = optarg;
			where++;
			break;
		case 'd':
			o->state_dir = optarg;
			where++;
			break;
		case 'S':
			o->server = optarg;
			where++;
			break;
		case 'i':
			errno = 0;
			o->interval = strtod(optarg, &end);
			if (end == optarg || *end || errno || !(o->interval >= 0.01) ||
			    o->interval > 86400)
				return usage_err("-i %s: an interval in seconds (0.01 to 86400)",
						 optarg);
			break;
		case 'c':
			errno = 0;
			o->count = strtoul(optarg, &end, 10);
			if (end == optarg || *end || errno || !o->count || optarg[0] == '-' ||
			    optarg[0] == '+')
				return usage_err("-c %s: a count of blocks, 1 or more", optarg);
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			fputs(stats_usage, stdout);
			return 0;
		case ':':
			return usage_err("%s needs a value", argv[optind - 1]);
		default:
			return usage_err("unknown option %s", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_err("unexpected argument %s", argv[optind]);
	if (where > 1)
		return usage_err("%s", "--socket, --state-dir and --server: one at most");
	if (o->count && !o->interval)
		return usage_err("%s", "-c needs -i");
	return -1;
}

int cmd_stats(int argc, char **argv)
{
	struct stats_opts o = { 0 };
	struct snap s;
	int r;

	r = parse_opts(&o, argc, argv);
	if (r >= 0)
		return r;
	r = resolve(&o);
	if (r)
		return r;
	if (o.interval > 0)
		return live(&o);
	if (snapshot(&o, &s) < 0)
		return 1;
	errno = 0;
	if (o.json)
		stats_report_json(stdout, &s, now_real(), o.path);
	else
		stats_report_text(stdout, &s, now_real());
	snap_free(&s);
	if ((fflush(stdout) || ferror(stdout)) && errno != EPIPE) {
		fprintf(stderr, "nfsx stats: standard output: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
