/* SPDX-License-Identifier: MIT */
/* The statistics' control socket and HTTP endpoint: see control.h. */
#include "server/control.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "server/http.h"
#include "util/log.h"
#include "util/num.h"

#define REQ_MAX 8192u
#define IO_TIMEOUT_S 2

#define MAX_LINKS 8

struct control {
	pthread_t thread;
	int unix_fd, http_fd, stop_fd;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct metrics_src src;
	char *links[MAX_LINKS];        /* control_link's, removed at the end */
	unsigned int nlinks;
};

static void set_timeouts(int fd)
{
	struct timeval tv = { .tv_sec = IO_TIMEOUT_S };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

static void write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return; /* the reader went, or stalled past the timeout */
		p += n;
		len -= (size_t)n;
	}
}

/* Read until @end is seen or REQ_MAX bytes. Return values: bytes read,
 * or -1 when the peer sent nothing usable in time. */
static ssize_t read_req(int fd, char *buf, const char *end)
{
	size_t len = 0;

	while (len < REQ_MAX - 1) {
		ssize_t n = recv(fd, buf + len, REQ_MAX - 1 - len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		buf[len] = '\0';
		if (strstr(buf, end))
			return (ssize_t)len;
	}
	buf[len] = '\0';
	return len ? (ssize_t)len : -1;
}

/* The Unix socket: one line, "metrics", answered with the text (every
 * connection's series too); anything else with an error line. */
static void serve_unix(struct control *ctl, int fd)
{
	char buf[REQ_MAX];
	struct mbuf b = { 0 };

	if (read_req(fd, buf, "\n") < 0)
		return;
	buf[strcspn(buf, "\r\n")] = '\0';
	if (strcmp(buf, "metrics") != 0) {
		static const char msg[] = "error: unknown request (known: metrics)\n";

		write_all(fd, msg, sizeof(msg) - 1);
		return;
	}
	if (metrics_render(&ctl->src, true, &b) < 0) {
		static const char msg[] = "error: out of memory\n";

		write_all(fd, msg, sizeof(msg) - 1);
	} else {
		write_all(fd, b.p, b.len);
	}
	mbuf_free(&b);
}

static void http_reply(int fd, const char *status, const char *type, const char *body,
		       size_t len)
{
	char head[256];
	int n = snprintf(head, sizeof(head),
			 "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			 "Connection: close\r\n\r\n", status, type, len);

	write_all(fd, head, (size_t)n);
	write_all(fd, body, len);
}

/* HTTP: GET (or HEAD) /metrics, one request per connection. */
static void serve_http(struct control *ctl, int fd)
{
	static const char text[] = "text/plain; version=0.0.4; charset=utf-8";
	char buf[REQ_MAX];
	struct mbuf b = { 0 };
	struct http_req req;
	ssize_t len;
	bool headonly;

	len = read_req(fd, buf, "\r\n\r\n");
	if (len < 0)
		return;
	if (http_parse_request(buf, (size_t)len, &req) < 0) {
		http_reply(fd, "400 Bad Request", "text/plain", "bad request\n", 12);
		return;
	}
	headonly = !strcmp(req.method, "HEAD");
	if (strcmp(req.method, "GET") != 0 && !headonly) {
		http_reply(fd, "405 Method Not Allowed", "text/plain", "GET only\n", 9);
		return;
	}
	if (strcmp(req.path, "/metrics") != 0) {
		http_reply(fd, "404 Not Found", "text/plain", "see /metrics\n", 13);
		return;
	}
	if (metrics_render(&ctl->src, false, &b) < 0) {
		http_reply(fd, "500 Internal Server Error", "text/plain", "out of memory\n", 14);
	} else if (headonly) {
		char head[256];
		int n = snprintf(head, sizeof(head),
				 "HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
				 "Connection: close\r\n\r\n", text, b.len);

		write_all(fd, head, (size_t)n);
	} else {
		http_reply(fd, "200 OK", text, b.p, b.len);
	}
	mbuf_free(&b);
}

static void *control_main(void *arg)
{
	struct control *ctl = arg;

	for (;;) {
		struct pollfd p[3] = {
			{ .fd = ctl->stop_fd, .events = POLLIN },
			{ .fd = ctl->unix_fd, .events = POLLIN },
			{ .fd = ctl->http_fd, .events = POLLIN },
		};
		int i, fd;

		if (poll(p, ctl->http_fd >= 0 ? 3 : 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			log_error("control socket: poll: %s", strerror(errno));
			return NULL;
		}
		if (p[0].revents)
			return NULL;
		for (i = 1; i < 3; i++) {
			if (!(p[i].revents & POLLIN))
				continue;
			fd = accept4(p[i].fd, NULL, NULL, SOCK_CLOEXEC);
			if (fd < 0)
				continue;
			set_timeouts(fd);
			if (i == 1)
				serve_unix(ctl, fd);
			else
				serve_http(ctl, fd);
			close(fd);
		}
	}
}

struct control *control_start(const char *state_dir, int metrics_fd,
			      const struct metrics_src *src)
{
	struct control *ctl = calloc(1, sizeof(*ctl));
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char abs[PATH_MAX];
	int e;

	if (!ctl)
		return NULL;
	ctl->unix_fd = ctl->stop_fd = -1;
	ctl->http_fd = metrics_fd;
	ctl->src = *src;
	/* absolute: the links of control_link point to it */
	if (realpath(state_dir, abs))
		state_dir = abs;
	if ((size_t)snprintf(ctl->path, sizeof(ctl->path), "%s/%s", state_dir,
			     CONTROL_SOCKET_NAME) >= sizeof(ctl->path)) {
		errno = ENAMETOOLONG;
		goto fail;
	}
	memcpy(sa.sun_path, ctl->path, sizeof(sa.sun_path));
	ctl->unix_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ctl->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (ctl->unix_fd < 0 || ctl->stop_fd < 0)
		goto fail;
	/* A socket left by a server that died: the state directory is this
	 * server's alone (its NFSv4 client records are). */
	unlink(ctl->path);
	if (bind(ctl->unix_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    chmod(ctl->path, 0600) < 0 || listen(ctl->unix_fd, 16) < 0)
		goto fail;
	errno = pthread_create(&ctl->thread, NULL, control_main, ctl);
	if (errno)
		goto fail;
	return ctl;
fail:
	e = errno;
	if (ctl->unix_fd >= 0)
		close(ctl->unix_fd);
	if (ctl->stop_fd >= 0)
		close(ctl->stop_fd);
	free(ctl);
	errno = e;
	return NULL;
}

void control_stop(struct control *ctl)
{
	uint64_t one = 1;

	if (!ctl)
		return;
	if (write(ctl->stop_fd, &one, sizeof(one)) == sizeof(one))
		pthread_join(ctl->thread, NULL);
	close(ctl->stop_fd);
	close(ctl->unix_fd);
	if (ctl->http_fd >= 0)
		close(ctl->http_fd);
	unlink(ctl->path);
	while (ctl->nlinks) {
		char *l = ctl->links[--ctl->nlinks];
		char target[sizeof(ctl->path)];
		ssize_t n = readlink(l, target, sizeof(target) - 1);

		/* only ours: another server may have taken the name since */
		if (n > 0 && (size_t)n == strlen(ctl->path) && !memcmp(target, ctl->path, (size_t)n))
			unlink(l);
		free(l);
	}
	free(ctl);
}

/* The directory of the links: see control_link. */
static int run_dir(char *out, size_t len)
{
	const char *env = getenv("NFSX_RUN_DIR"), *xdg = getenv("XDG_RUNTIME_DIR");
	int n;

	if (env && *env)
		n = snprintf(out, len, "%s", env);
	else if (geteuid() == 0)
		n = snprintf(out, len, "/run/nfsx");
	else if (xdg && *xdg)
		n = snprintf(out, len, "%s/nfsx", xdg);
	else
		return -1;
	return n > 0 && (size_t)n < len ? 0 : -1;
}

void control_link(struct control *ctl, const char *addr, uint16_t port)
{
	char dir[4096], link[4096 + 64], canon[INET6_ADDRSTRLEN];
	unsigned char bin[sizeof(struct in6_addr)];
	int n;

	if (ctl->nlinks >= MAX_LINKS || run_dir(dir, sizeof(dir)) < 0)
		return;
	/* the address as inet_ntop writes it (::1, not 0::1): one name */
	if ((inet_pton(AF_INET, addr, bin) == 1 &&
	     inet_ntop(AF_INET, bin, canon, sizeof(canon))) ||
	    (inet_pton(AF_INET6, addr, bin) == 1 &&
	     inet_ntop(AF_INET6, bin, canon, sizeof(canon))))
		addr = canon;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		log_warn("control socket: cannot make %s: %s (nfsx stats --server will not "
			 "find this server; --socket %s will)", dir, strerror(errno), ctl->path);
		return;
	}
	n = snprintf(link, sizeof(link), strchr(addr, ':') ? "%s/[%s]:%u" : "%s/%s:%u", dir,
		     addr, port);
	if (n < 0 || (size_t)n >= sizeof(link))
		return;
	unlink(link); /* a server that died left it */
	if (symlink(ctl->path, link) < 0) {
		log_warn("control socket: cannot link %s: %s", link, strerror(errno));
		return;
	}
	ctl->links[ctl->nlinks] = strdup(link);
	if (ctl->links[ctl->nlinks])
		ctl->nlinks++;
}

int control_parse_metrics(const char *arg, char *addr, uint16_t *port)
{
	const char *colon, *p = arg;
	size_t alen;
	uint32_t v;

	if (*p == '[') {
		const char *end = strchr(p, ']');

		if (!end || end[1] != ':')
			return -1;
		alen = (size_t)(end - p - 1);
		p++;
		colon = end + 1;
	} else {
		colon = strrchr(p, ':');
		alen = colon ? (size_t)(colon - p) : 0;
	}
	if (!colon) {
		snprintf(addr, INET6_ADDRSTRLEN, "127.0.0.1");
		colon = arg - 1;
	} else {
		if (!alen || alen >= INET6_ADDRSTRLEN)
			return -1;
		memcpy(addr, p, alen);
		addr[alen] = '\0';
		if (strchr(addr, ':') && arg[0] != '[')
			return -1; /* an IPv6 address is written in brackets */
	}
	if (!util_parse_u32(colon + 1, strlen(colon + 1), 1, 65535, &v))
		return -1;
	*port = (uint16_t)v;
	return 0;
}
