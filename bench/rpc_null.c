/*
 * rpc_null.c - rpc-null-load: ONC RPC NULL-call throughput/latency load
 * generator, plus a minimal "echo" server used as the ceiling to compare
 * the real RPC server against.
 *
 * Client mode keeps `depth` NULL calls (NFS v3, procedure 0, AUTH_NONE) in
 * flight on each of `conns` TCP connections.  All connections are driven
 * by a small number of epoll loops (one by default) so that the client
 * costs as little CPU as possible: new calls are batched into one send(),
 * replies are read in large chunks and parsed from the buffer.
 *
 * Echo mode is a plain TCP server that answers every request record with a
 * 28-byte record shaped like an accepted/SUCCESS NULL reply (xid copied),
 * i.e. the same message sizes as the RPC server with the least possible
 * work: T threads, each with its own epoll, connections handed out
 * round-robin by an accept thread.
 */
#include "benchutil.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_EVENTS 64

/* ======================================================================= */
/*                               client mode                               */
/* ======================================================================= */

struct cconn {
	struct bu_pipe p;
	unsigned id;
	bool out_armed;
	bool dead;
};

struct cthread {
	pthread_t tid;
	int ep;
	struct cconn **conns;
	unsigned nconns;
	uint64_t win_start, win_end;
	struct bu_stats st;
	struct bu_hist hist;
	unsigned dead;
};

static void cconn_kill(struct cthread *t, struct cconn *c, const char *why)
{
	if (c->dead)
		return;
	fprintf(stderr, "rpc-null-load: connection %u: %s\n", c->id, why);
	epoll_ctl(t->ep, EPOLL_CTL_DEL, c->p.fd, NULL);
	c->dead = true;
	t->dead++;
}

/* Flush output and keep EPOLLOUT interest in sync with pending data. */
static void cconn_flush(struct cthread *t, struct cconn *c)
{
	int r = bu_pipe_flush(&c->p);
	bool want_out;

	if (r < 0) {
		cconn_kill(t, c, strerror(errno));
		return;
	}
	want_out = r == 0;
	if (want_out != c->out_armed) {
		struct epoll_event ev = { .events = EPOLLIN | (want_out ? EPOLLOUT : 0u),
					  .data.ptr = c };

		epoll_ctl(t->ep, EPOLL_CTL_MOD, c->p.fd, &ev);
		c->out_armed = want_out;
	}
}

static void *client_thread(void *arg)
{
	struct cthread *t = arg;
	struct epoll_event evs[MAX_EVENTS];
	uint64_t now = bu_now_ns();

	for (unsigned i = 0; i < t->nconns; i++) {
		struct cconn *c = t->conns[i];
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };

		if (epoll_ctl(t->ep, EPOLL_CTL_ADD, c->p.fd, &ev) < 0) {
			cconn_kill(t, c, strerror(errno));
			continue;
		}
		bu_pipe_fill(&c->p, now);
		cconn_flush(t, c);
	}

	while (t->dead < t->nconns && (now = bu_now_ns()) < t->win_end) {
		uint64_t left_ms = (t->win_end - now) / 1000000u + 1u;
		int n = epoll_wait(t->ep, evs, MAX_EVENTS, left_ms > 100 ? 100 : (int)left_ms);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("epoll_wait");
			break;
		}
		for (int i = 0; i < n; i++) {
			struct cconn *c = evs[i].data.ptr;
			bool refill = false;

			if (c->dead)
				continue;
			if (evs[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
				long r = bu_pipe_read(&c->p, &t->st, t->win_start, t->win_end);

				if (r < 0) {
					cconn_kill(t, c, errno == 0 ? "closed by server" :
						   errno == EPROTO ? "bad record framing" :
						   strerror(errno));
					continue;
				}
				refill = r > 0;
			}
			if (refill) {
				now = bu_now_ns();
				if (now < t->win_end)
					bu_pipe_fill(&c->p, now);
			}
			if (refill || (evs[i].events & EPOLLOUT))
				cconn_flush(t, c);
		}
	}
	return NULL;
}

struct client_opts {
	const char *host;
	int port;
	unsigned conns, depth, threads;
	double seconds, warmup, connect_timeout;
	uint32_t prog, vers;
};

static int run_client(const struct client_opts *o)
{
	struct cconn *conns = calloc(o->conns, sizeof(*conns));
	struct cconn **cptr = calloc(o->conns, sizeof(*cptr));
	struct cthread *th = calloc(o->threads, sizeof(*th));
	struct bu_stats total = { 0 };
	struct bu_hist *hist = calloc(1, sizeof(*hist));
	uint64_t win_start, win_end;
	unsigned dead = 0, started = 0;
	double secs, rate;
	int rc = 0;

	if (!conns || !cptr || !th || !hist) {
		fprintf(stderr, "rpc-null-load: out of memory\n");
		return 2;
	}
	total.hist = hist;

	for (unsigned i = 0; i < o->conns; i++) {
		int fd = bu_connect(o->host, o->port, o->connect_timeout);

		if (fd < 0)
			return 2;
		if (bu_pipe_init(&conns[i].p, fd, o->depth, (uint32_t)(i * 0x9e3779b9u) ^
				 (uint32_t)getpid()) < 0) {
			fprintf(stderr, "rpc-null-load: cannot set up connection\n");
			return 2;
		}
		conns[i].p.prog = o->prog;
		conns[i].p.vers = o->vers;
		conns[i].id = i;
	}

	win_start = bu_now_ns() + (uint64_t)(o->warmup * 1e9);
	win_end = win_start + (uint64_t)(o->seconds * 1e9);
	for (unsigned i = 0; i < o->threads; i++) {
		struct cthread *t = &th[i];

		t->ep = epoll_create1(EPOLL_CLOEXEC);
		if (t->ep < 0) {
			perror("epoll_create1");
			return 2;
		}
		t->st.hist = &t->hist;
		t->win_start = win_start;
		t->win_end = win_end;
	}
	/* Connections i, i+T, i+2T... belong to thread i (contiguous in cptr). */
	for (unsigned i = 0, k = 0; i < o->threads; i++) {
		th[i].conns = cptr + k;
		for (unsigned j = i; j < o->conns; j += o->threads)
			cptr[k++] = &conns[j];
		th[i].nconns = (unsigned)(cptr + k - th[i].conns);
	}
	for (unsigned i = 0; i < o->threads; i++) {
		int e = pthread_create(&th[i].tid, NULL, client_thread, &th[i]);

		if (e) {
			fprintf(stderr, "pthread_create: %s\n", strerror(e));
			break;
		}
		started++;
	}
	for (unsigned i = 0; i < started; i++) {
		pthread_join(th[i].tid, NULL);
		bu_stats_merge(&total, &th[i].st);
		dead += th[i].dead;
		close(th[i].ep);
	}
	for (unsigned i = 0; i < o->conns; i++) {
		close(conns[i].p.fd);
		bu_pipe_destroy(&conns[i].p);
	}

	secs = o->seconds;
	rate = secs > 0 ? (double)total.calls / secs : 0.0;
	printf("rpc-null-load: %s:%d prog %u v%u NULL, %u conn(s) x %u in flight, "
	       "%u client thread(s), %.1f s (+%.1f s warmup)\n",
	       o->host, o->port, o->prog, o->vers, o->conns, o->depth, o->threads,
	       o->seconds, o->warmup);
	printf("  calls/s  %.0f  (%llu calls, %llu errors)\n", rate,
	       (unsigned long long)total.calls, (unsigned long long)bu_stats_errors(&total));
	printf("  latency  p50 %.1f us  p99 %.1f us  (per call, send to reply)\n",
	       bu_hist_quantile_us(hist, 0.50), bu_hist_quantile_us(hist, 0.99));
	bu_stats_print_errors(&total, "  ");
	if (dead) {
		printf("  %u connection(s) failed during the run\n", dead);
		rc = 1;
	}
	if (started < o->threads)
		rc = 2;
	/* One machine-readable line for the runner scripts. */
	printf("RESULT calls_per_s=%.0f p50_us=%.1f p99_us=%.1f errors=%llu calls=%llu "
	       "dead_conns=%u\n",
	       rate, bu_hist_quantile_us(hist, 0.50), bu_hist_quantile_us(hist, 0.99),
	       (unsigned long long)bu_stats_errors(&total), (unsigned long long)total.calls,
	       dead);
	fflush(stdout);
	free(conns);
	free(cptr);
	free(th);
	free(hist);
	return rc;
}

/* ======================================================================= */
/*                                echo mode                                */
/* ======================================================================= */

#define ECHO_RBUF (64u * 1024u)
/* Stop reading a connection while this much reply data is unsent. */
#define ECHO_WMAX (4u * 1024u * 1024u)

struct econn {
	int fd;
	bool out_armed;
	bool in_paused;
	size_t rlen;
	uint8_t *wbuf;
	size_t woff, wlen, wcap;
	uint8_t rbuf[ECHO_RBUF];
};

struct ethread {
	pthread_t tid;
	int ep;
};

struct echo_server {
	int lfd;
	unsigned nthreads;
	struct ethread *th;
};

static void econn_close(struct econn *c)
{
	close(c->fd); /* also removes it from the epoll set */
	free(c->wbuf);
	free(c);
}

static void econn_update_events(int ep, struct econn *c)
{
	bool want_out = c->woff < c->wlen;
	bool pause_in = c->wlen - c->woff >= ECHO_WMAX;

	if (want_out != c->out_armed || pause_in != c->in_paused) {
		struct epoll_event ev = {
			.events = (pause_in ? 0u : EPOLLIN) | (want_out ? EPOLLOUT : 0u),
			.data.ptr = c,
		};

		epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
		c->out_armed = want_out;
		c->in_paused = pause_in;
	}
}

/* Returns -1 if the connection must be closed. */
static int econn_flush(struct econn *c)
{
	while (c->woff < c->wlen) {
		ssize_t r = send(c->fd, c->wbuf + c->woff, c->wlen - c->woff, MSG_NOSIGNAL);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return -1;
		}
		c->woff += (size_t)r;
	}
	c->woff = c->wlen = 0;
	return 0;
}

static int econn_reserve(struct econn *c, size_t more)
{
	uint8_t *nb;
	size_t ncap;

	if (c->wlen + more <= c->wcap)
		return 0;
	if (c->woff > 0) {
		memmove(c->wbuf, c->wbuf + c->woff, c->wlen - c->woff);
		c->wlen -= c->woff;
		c->woff = 0;
		if (c->wlen + more <= c->wcap)
			return 0;
	}
	ncap = c->wcap ? c->wcap * 2 : 4096;
	while (ncap < c->wlen + more)
		ncap *= 2;
	nb = realloc(c->wbuf, ncap);
	if (!nb)
		return -1;
	c->wbuf = nb;
	c->wcap = ncap;
	return 0;
}

/* Read once; answer every complete record.  Returns -1 to close. */
static int econn_read(struct econn *c)
{
	static const uint32_t tail[6] = { 0 };
	size_t off = 0;
	ssize_t r;

	do
		r = recv(c->fd, c->rbuf + c->rlen, sizeof(c->rbuf) - c->rlen, 0);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return -1;
	if (r < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
	c->rlen += (size_t)r;

	while (c->rlen - off >= 4) {
		uint32_t mark, len, xid;
		uint8_t *out;

		memcpy(&mark, c->rbuf + off, 4);
		len = ntohl(mark) & 0x7fffffffu;
		if (len + 4u > sizeof(c->rbuf) || len < 4)
			return -1; /* not something the benchmark sends */
		if (c->rlen - off < 4u + len)
			break;
		memcpy(&xid, c->rbuf + off + 4, 4); /* stays in network order */
		off += 4u + len;
		if (econn_reserve(c, BU_REPLY_LEN) < 0)
			return -1;
		out = c->wbuf + c->wlen;
		/* marker, xid, REPLY, MSG_ACCEPTED, verf AUTH_NONE/0, SUCCESS */
		mark = htonl(0x80000000u | (BU_REPLY_LEN - 4u));
		memcpy(out, &mark, 4);
		memcpy(out + 4, &xid, 4);
		memcpy(out + 8, tail, 20);
		out[11] = 1; /* msg_type REPLY (big-endian 1) */
		c->wlen += BU_REPLY_LEN;
	}
	if (off > 0) {
		memmove(c->rbuf, c->rbuf + off, c->rlen - off);
		c->rlen -= off;
	}
	return econn_flush(c);
}

static void *echo_worker(void *arg)
{
	struct ethread *t = arg;
	struct epoll_event evs[MAX_EVENTS];

	for (;;) {
		int n = epoll_wait(t->ep, evs, MAX_EVENTS, -1);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("epoll_wait");
			return NULL;
		}
		for (int i = 0; i < n; i++) {
			struct econn *c = evs[i].data.ptr;
			int r = 0;

			if (evs[i].events & EPOLLOUT)
				r = econn_flush(c);
			if (r == 0 && (evs[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)))
				r = econn_read(c);
			if (r < 0) {
				econn_close(c);
				continue;
			}
			econn_update_events(t->ep, c);
		}
	}
}

static void *echo_acceptor(void *arg)
{
	struct echo_server *s = arg;
	unsigned next = 0;
	int one = 1;

	for (;;) {
		int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct econn *c;
		struct epoll_event ev;

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE ||
			    errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
				if (errno != EINTR && errno != ECONNABORTED)
					usleep(10000);
				continue;
			}
			perror("accept4");
			return NULL;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c = calloc(1, sizeof(*c));
		if (!c) {
			close(fd);
			continue;
		}
		c->fd = fd;
		ev.events = EPOLLIN;
		ev.data.ptr = c;
		if (epoll_ctl(s->th[next].ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
			perror("epoll_ctl");
			econn_close(c);
			continue;
		}
		next = (next + 1) % s->nthreads;
	}
}

static int run_echo(int port, unsigned nthreads)
{
	struct echo_server s = { .lfd = -1, .nthreads = nthreads };
	struct sockaddr_in sa;
	socklen_t salen = sizeof(sa);
	pthread_t acceptor;
	sigset_t set;
	int one = 1, sig, e;

	s.th = calloc(nthreads, sizeof(*s.th));
	if (!s.th)
		goto fail;
	s.lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s.lfd < 0) {
		perror("socket");
		goto fail;
	}
	setsockopt(s.lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(s.lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(s.lfd, 1024) < 0) {
		fprintf(stderr, "rpc-null-load: echo server: 127.0.0.1:%d: %s\n", port,
			strerror(errno));
		goto fail;
	}
	getsockname(s.lfd, (struct sockaddr *)&sa, &salen);
	for (unsigned i = 0; i < nthreads; i++) {
		s.th[i].ep = epoll_create1(EPOLL_CLOEXEC);
		if (s.th[i].ep < 0) {
			perror("epoll_create1");
			goto fail;
		}
	}

	/* SIGINT/SIGTERM are taken synchronously by the main thread only. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);

	/*
	 * From here on the threads use s; on any exit the process ends with
	 * them, so nothing is torn down explicitly.
	 */
	for (unsigned i = 0; i < nthreads; i++) {
		e = pthread_create(&s.th[i].tid, NULL, echo_worker, &s.th[i]);
		if (e) {
			fprintf(stderr, "pthread_create: %s\n", strerror(e));
			return 2;
		}
	}
	e = pthread_create(&acceptor, NULL, echo_acceptor, &s);
	if (e) {
		fprintf(stderr, "pthread_create: %s\n", strerror(e));
		return 2;
	}
	fprintf(stderr, "rpc-null-load: echo server on 127.0.0.1:%u, %u thread(s)\n",
		ntohs(sa.sin_port), nthreads);

	while (sigwait(&set, &sig) != 0)
		;
	return 0;

fail:
	if (s.th)
		for (unsigned i = 0; i < nthreads; i++)
			if (s.th[i].ep > 0)
				close(s.th[i].ep);
	if (s.lfd >= 0)
		close(s.lfd);
	free(s.th);
	return 2;
}

/* CPUs this process may run on (so a taskset-pinned echo server sizes itself
 * to its CPUs); falls back to the number of online CPUs. */
static unsigned usable_cpus(void)
{
	cpu_set_t set;
	long n;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return (unsigned)CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1u;
}

/* ======================================================================= */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rpc-null-load --port P [--host 127.0.0.1] --conns C --depth D\n"
		"                     --seconds S [--warmup W] [--threads T]\n"
		"                     [--prog N --vers N] [--connect-timeout S]\n"
		"       rpc-null-load --echo-server --port P [--threads T]\n"
		"\n"
		"Client mode keeps D ONC RPC NULL calls (AUTH_NONE; NFS v3 unless --prog/--vers)\n"
		"in flight on each of C TCP connections for S seconds after W seconds of warmup\n"
		"(default 1), driven by T epoll loops (default 1), and prints calls/s and the\n"
		"per-call latency p50/p99.  The connection is retried for --connect-timeout\n"
		"seconds (default 5).\n"
		"\n"
		"Echo mode answers every request record with a 28-byte accepted/SUCCESS reply\n"
		"(xid copied) on 127.0.0.1:P with T threads (default: number of CPUs it may run\n"
		"on); it is the ceiling an RPC server is compared with.  SIGTERM/SIGINT stop it.\n");
}

int main(int argc, char **argv)
{
	enum { OPT_PROG = 256, OPT_VERS, OPT_CTIMEOUT };
	static const struct option longopts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "host", required_argument, NULL, 'H' },
		{ "conns", required_argument, NULL, 'c' },
		{ "depth", required_argument, NULL, 'd' },
		{ "seconds", required_argument, NULL, 's' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "threads", required_argument, NULL, 't' },
		{ "echo-server", no_argument, NULL, 'e' },
		{ "prog", required_argument, NULL, OPT_PROG },
		{ "vers", required_argument, NULL, OPT_VERS },
		{ "connect-timeout", required_argument, NULL, OPT_CTIMEOUT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct client_opts o = {
		.host = "127.0.0.1",
		.port = -1,
		.conns = 1,
		.depth = 1,
		.threads = 0,
		.seconds = 5.0,
		.warmup = 1.0,
		.connect_timeout = 5.0,
		.prog = BU_NFS_PROG,
		.vers = BU_NFS_VERS,
	};
	bool echo = false;
	long v;
	int ch;

	while ((ch = getopt_long(argc, argv, "p:H:c:d:s:w:t:eh", longopts, NULL)) != -1) {
		bool ok = true;

		switch (ch) {
		case 'p':
			ok = bu_parse_int(optarg, 0, 65535, &v);
			o.port = (int)v;
			break;
		case 'H':
			o.host = optarg;
			break;
		case 'c':
			ok = bu_parse_int(optarg, 1, 100000, &v);
			o.conns = (unsigned)v;
			break;
		case 'd':
			ok = bu_parse_int(optarg, 1, 1 << 20, &v);
			o.depth = (unsigned)v;
			break;
		case 's':
			ok = bu_parse_double(optarg, &o.seconds) && o.seconds > 0;
			break;
		case 'w':
			ok = bu_parse_double(optarg, &o.warmup);
			break;
		case 't':
			ok = bu_parse_int(optarg, 1, 1024, &v);
			o.threads = (unsigned)v;
			break;
		case 'e':
			echo = true;
			break;
		case OPT_PROG:
			ok = bu_parse_int(optarg, 0, 0xffffffffL, &v);
			o.prog = (uint32_t)v;
			break;
		case OPT_VERS:
			ok = bu_parse_int(optarg, 0, 0xffffffffL, &v);
			o.vers = (uint32_t)v;
			break;
		case OPT_CTIMEOUT:
			ok = bu_parse_double(optarg, &o.connect_timeout);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
		if (!ok) {
			fprintf(stderr, "rpc-null-load: bad value for option: '%s'\n", optarg);
			return 2;
		}
	}
	if (optind != argc || o.port < 0 || (!echo && o.port == 0)) {
		usage(stderr);
		return 2;
	}
	if (echo)
		return run_echo(o.port, o.threads ? o.threads : usable_cpus());
	signal(SIGPIPE, SIG_IGN);
	if (o.threads == 0)
		o.threads = 1;
	if (o.threads > o.conns)
		o.threads = o.conns;
	return run_client(&o);
}
