/* SPDX-License-Identifier: MIT */
/* Calls over connections the server opens: see callout.h. */
#include "rpc/callout.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "rpc/record.h"
#include "util/clock.h"
#include "util/log.h"

#define EVENTS_MAX 32
#define TAG_WAKE ((void *)1)
/* Room for the reply's record markers besides its payload: a reply cut
 * into more fragments than this allows is refused (BADREPLY). */
#define MARKER_ROOM 256u

enum state { CONNECTING, SENDING, WAITING };

struct job {
	struct job *next;           /* queue, then the active list */
	int fd;
	enum state state;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	uint8_t *out;               /* marker + call */
	size_t out_len, out_done;
	uint8_t *in;                /* raw reply bytes */
	size_t in_len, in_cap;
	struct rpc_record rec;
	struct rpc_pending pend;    /* the one call, until it ends */
	uint64_t deadline;
	unsigned int reply_ms;
	rpc_call_done_fn *done;
	void *arg;
};

struct rpc_callout {
	pthread_t thread;
	int epfd, wakefd;
	pthread_mutex_t lock;       /* queue and stopping */
	struct job *queue;
	bool stopping;
	struct job *active;         /* the thread's own */
	unsigned int nactive, max;
};

/* the rpc layer's clock: pending calls' deadlines are compared with it */
static uint64_t now_ns(void)
{
	return clock_now_ns();
}

static void job_free(struct job *j)
{
	if (j->fd >= 0)
		close(j->fd);
	free(j->out);
	free(j->in);
	free(j);
}

/* End the call (if it has not ended) with @st; the connection goes. */
static void job_end(struct rpc_callout *co, struct job *j, enum rpc_call_status st)
{
	struct job **pp;

	for (pp = &co->active; *pp && *pp != j; pp = &(*pp)->next)
		;
	if (*pp) {
		*pp = j->next;
		co->nactive--;
	}
	if (j->fd >= 0)
		epoll_ctl(co->epfd, EPOLL_CTL_DEL, j->fd, NULL);
	rpc_pending_fail_all(&j->pend, st);
	job_free(j);
}

static void set_events(struct rpc_callout *co, struct job *j, uint32_t ev)
{
	struct epoll_event e = { .events = ev, .data.ptr = j };

	epoll_ctl(co->epfd, EPOLL_CTL_MOD, j->fd, &e);
}

static void job_begin(struct rpc_callout *co, struct job *j)
{
	struct epoll_event e = { .events = EPOLLOUT, .data.ptr = j };
	int one = 1;

	if (co->nactive >= co->max) {
		j->fd = -1;
		rpc_pending_fail_all(&j->pend, RPC_CALL_BUSY);
		job_free(j);
		return;
	}
	j->next = co->active;
	co->active = j;
	co->nactive++;
	j->fd = socket(j->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (j->fd < 0) {
		job_end(co, j, RPC_CALL_REFUSED);
		return;
	}
	setsockopt(j->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(j->fd, (struct sockaddr *)&j->addr, j->addrlen) < 0 &&
	    errno != EINPROGRESS) {
		log_debug("callout: connect: %s", strerror(errno));
		job_end(co, j, RPC_CALL_REFUSED);
		return;
	}
	if (epoll_ctl(co->epfd, EPOLL_CTL_ADD, j->fd, &e) < 0)
		job_end(co, j, RPC_CALL_REFUSED);
}

static void job_send(struct rpc_callout *co, struct job *j)
{
	while (j->out_done < j->out_len) {
		ssize_t n = send(j->fd, j->out + j->out_done, j->out_len - j->out_done,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			job_end(co, j, RPC_CALL_CLOSED);
			return;
		}
		j->out_done += (size_t)n;
	}
	j->state = WAITING;
	set_events(co, j, EPOLLIN);
}

static void job_connected(struct rpc_callout *co, struct job *j)
{
	int err = 0;
	socklen_t sl = sizeof(err);

	if (getsockopt(j->fd, SOL_SOCKET, SO_ERROR, &err, &sl) < 0 || err) {
		log_debug("callout: connect: %s", strerror(err ? err : errno));
		job_end(co, j, RPC_CALL_REFUSED);
		return;
	}
	j->state = SENDING;
	j->deadline = now_ns() + (uint64_t)j->reply_ms * 1000000u;
	j->pend.head->deadline_ns = j->deadline;
	job_send(co, j);
}

static void job_read(struct rpc_callout *co, struct job *j)
{
	for (;;) {
		size_t off, len, dead;
		ssize_t n;
		int st;

		if (j->in_len == j->in_cap) {
			dead = rpc_record_dead(&j->rec);
			if (!dead) {
				/* markers and payload fill the buffer */
				job_end(co, j, RPC_CALL_BADREPLY);
				return;
			}
			memmove(j->in, j->in + dead, j->in_len - dead);
			j->in_len -= dead;
			rpc_record_shift(&j->rec, dead);
		}
		n = read(j->fd, j->in + j->in_len, j->in_cap - j->in_len);
		if (n == 0) {
			job_end(co, j, RPC_CALL_CLOSED);
			return;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				job_end(co, j, RPC_CALL_CLOSED);
			return;
		}
		j->in_len += (size_t)n;
		while ((st = rpc_record_parse(&j->rec, j->in, j->in_len, &off, &len)) ==
		       RPC_RECORD_DONE) {
			/* Another xid, or not a reply: dropped. */
			if (rpc_record_is_reply(j->in + off, len))
				rpc_pending_reply(&j->pend, j->in + off, len);
			rpc_record_consumed(&j->rec);
			if (!j->pend.n) {
				job_end(co, j, RPC_CALL_OK); /* ended already */
				return;
			}
		}
		if (st == RPC_RECORD_TOOBIG) {
			job_end(co, j, RPC_CALL_TOOBIG);
			return;
		}
	}
}

static void job_event(struct rpc_callout *co, struct job *j, uint32_t ev)
{
	switch (j->state) {
	case CONNECTING:
		job_connected(co, j);
		return;
	case SENDING:
		if (ev & (EPOLLERR | EPOLLHUP))
			job_end(co, j, RPC_CALL_CLOSED);
		else
			job_send(co, j);
		return;
	case WAITING:
		job_read(co, j);
		return;
	}
}

static void expire(struct rpc_callout *co, uint64_t now)
{
	struct job *j, *next;

	for (j = co->active; j; j = next) {
		next = j->next;
		if (now >= j->deadline)
			job_end(co, j, j->state == CONNECTING ? RPC_CALL_REFUSED :
								 RPC_CALL_TIMEDOUT);
	}
}

static int next_timeout(const struct rpc_callout *co, uint64_t now)
{
	uint64_t t = UINT64_MAX, ms;
	const struct job *j;

	for (j = co->active; j; j = j->next)
		if (j->deadline < t)
			t = j->deadline;
	if (t == UINT64_MAX)
		return -1;
	if (t <= now)
		return 0;
	ms = (t - now + 999999u) / 1000000u;
	return ms > 60000 ? 60000 : (int)ms;
}

static struct job *take_queue(struct rpc_callout *co, bool *stop)
{
	struct job *q, *rev = NULL;

	pthread_mutex_lock(&co->lock);
	q = co->queue;
	co->queue = NULL;
	*stop = co->stopping;
	pthread_mutex_unlock(&co->lock);
	while (q) {                 /* oldest first */
		struct job *n = q->next;

		q->next = rev;
		rev = q;
		q = n;
	}
	return rev;
}

static void *callout_main(void *arg)
{
	struct rpc_callout *co = arg;
	struct epoll_event evs[EVENTS_MAX];
	bool stop = false;
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	while (!stop) {
		int i, n = epoll_wait(co->epfd, evs, EVENTS_MAX, next_timeout(co, now_ns()));

		for (i = 0; i < n; i++) {
			if (evs[i].data.ptr == TAG_WAKE) {
				uint64_t v;
				struct job *q;

				if (read(co->wakefd, &v, sizeof(v)) < 0)
					v = 0;
				for (q = take_queue(co, &stop); q;) {
					struct job *next = q->next;

					if (stop) {
						q->fd = -1;
						rpc_pending_fail_all(&q->pend, RPC_CALL_SHUTDOWN);
						job_free(q);
					} else {
						job_begin(co, q);
					}
					q = next;
				}
				continue;
			}
		}
		/* A job may end while its events wait in evs: handle events
		 * only for jobs still active (looked up by pointer). */
		for (i = 0; i < n; i++) {
			struct job *j;

			if (evs[i].data.ptr == TAG_WAKE)
				continue;
			for (j = co->active; j && j != evs[i].data.ptr; j = j->next)
				;
			if (j)
				job_event(co, j, evs[i].events);
		}
		expire(co, now_ns());
	}
	while (co->active)
		job_end(co, co->active, RPC_CALL_SHUTDOWN);
	return NULL;
}

struct rpc_callout *rpc_callout_start(unsigned int max_calls)
{
	struct rpc_callout *co = calloc(1, sizeof(*co));
	struct epoll_event e = { .events = EPOLLIN, .data.ptr = TAG_WAKE };

	if (!co)
		return NULL;
	co->max = max_calls ? max_calls : 1;
	co->epfd = epoll_create1(EPOLL_CLOEXEC);
	co->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	pthread_mutex_init(&co->lock, NULL);
	if (co->epfd < 0 || co->wakefd < 0 ||
	    epoll_ctl(co->epfd, EPOLL_CTL_ADD, co->wakefd, &e) < 0)
		goto fail;
	errno = pthread_create(&co->thread, NULL, callout_main, co);
	if (errno)
		goto fail;
	return co;
fail:
	if (co->epfd >= 0)
		close(co->epfd);
	if (co->wakefd >= 0)
		close(co->wakefd);
	pthread_mutex_destroy(&co->lock);
	free(co);
	return NULL;
}

int rpc_callout_call(struct rpc_callout *co, const struct rpc_callout_req *r)
{
	struct job *j;
	struct rpc_pcall *pc;
	uint64_t one = 1;
	size_t cap;

	if ((r->addr->sa_family != AF_INET || r->addrlen != sizeof(struct sockaddr_in)) &&
	    (r->addr->sa_family != AF_INET6 || r->addrlen != sizeof(struct sockaddr_in6))) {
		errno = EINVAL;
		return -1;
	}
	if (r->len > RPC_RM_LEN || r->max_reply > RPC_RM_LEN - MARKER_ROOM) {
		errno = EINVAL;
		return -1;
	}
	cap = r->max_reply + MARKER_ROOM;
	j = calloc(1, sizeof(*j));
	pc = calloc(1, sizeof(*pc));
	if (j) {
		j->out = malloc(r->len + 4);
		j->in = malloc(cap);
	}
	if (!j || !pc || !j->out || !j->in) {
		if (j) {
			free(j->out);
			free(j->in);
		}
		free(j);
		free(pc);
		errno = ENOMEM;
		return -1;
	}
	j->fd = -1;
	memcpy(&j->addr, r->addr, r->addrlen);
	j->addrlen = r->addrlen;
	xdr__put32(j->out, RPC_RM_LAST | (uint32_t)r->len);
	memcpy(j->out + 4, r->msg, r->len);
	j->out_len = r->len + 4;
	j->in_cap = cap;
	rpc_record_init(&j->rec, (uint32_t)r->max_reply);
	j->reply_ms = r->reply_ms;
	j->deadline = now_ns() + (uint64_t)r->connect_ms * 1000000u;
	pc->xid = r->xid;
	pc->deadline_ns = UINT64_MAX;
	pc->max_reply = r->max_reply;
	pc->done = r->done;
	pc->arg = r->arg;
	rpc_pending_init(&j->pend, 1);
	rpc_pending_add(&j->pend, pc);

	pthread_mutex_lock(&co->lock);
	if (co->stopping) {
		pthread_mutex_unlock(&co->lock);
		free(pc);
		j->pend.head = NULL;
		job_free(j);
		errno = ESHUTDOWN;
		return -1;
	}
	j->next = co->queue;
	co->queue = j;
	pthread_mutex_unlock(&co->lock);
	if (write(co->wakefd, &one, sizeof(one)) < 0)
		log_warn("cannot wake the callout thread: %s", strerror(errno));
	return 0;
}

void rpc_callout_stop(struct rpc_callout *co)
{
	uint64_t one = 1;

	if (!co)
		return;
	pthread_mutex_lock(&co->lock);
	co->stopping = true;
	pthread_mutex_unlock(&co->lock);
	if (write(co->wakefd, &one, sizeof(one)) < 0)
		log_warn("cannot wake the callout thread: %s", strerror(errno));
	pthread_join(co->thread, NULL);
	close(co->epfd);
	close(co->wakefd);
	pthread_mutex_destroy(&co->lock);
	free(co);
}
