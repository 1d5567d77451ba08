/* SPDX-License-Identifier: MIT */
/* Server object: listeners, start and orderly stop. See svc.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rpc/svc_internal.h"
#include "rpc/workers.h"

void rpc_server_config_defaults(struct rpc_server_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->max_record = RPC_DEFAULT_MAX_RECORD;
	cfg->max_inflight = RPC_DEFAULT_MAX_INFLIGHT;
	cfg->max_unsent = RPC_DEFAULT_MAX_UNSENT;
	cfg->max_requests = RPC_DEFAULT_MAX_REQUESTS;
	cfg->max_conns = RPC_DEFAULT_MAX_CONNS;
	cfg->workers = RPC_DEFAULT_WORKERS;
	cfg->slice_us = RPC_DEFAULT_SLICE_US;
	cfg->max_conn_bytes = RPC_DEFAULT_MAX_CONN_BYTES;
	cfg->max_total_bytes = RPC_DEFAULT_MAX_TOTAL_BYTES;
	cfg->idle_timeout_s = RPC_DEFAULT_IDLE_TIMEOUT_S;
}

struct rpc_server *rpc_server_create(const struct rpc_server_config *cfg,
				     const struct rpc_registry *reg,
				     struct rpc_drc *drc)
{
	struct rpc_server *srv = calloc(1, sizeof(*srv));

	if (!srv)
		return NULL;
	rpc_stats_rows_add();
	pthread_mutex_init(&srv->snap_lock, NULL);
	srv->cfg = *cfg;
	if (!srv->cfg.threads) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		srv->cfg.threads = n > 0 ? (unsigned int)n : 1;
	}
	srv->reg = reg;
	srv->drc = drc;
	/* The largest record plus a read of the next, or a 1 MiB READ reply. */
	rpc_bigpool_init(&srv->bigpool,
			 (size_t)srv->cfg.max_record + RPC_RBUF_SIZE > RPC_BIG_MIN ?
			 (size_t)srv->cfg.max_record + RPC_RBUF_SIZE : RPC_BIG_MIN,
			 2 * (srv->cfg.threads + srv->cfg.workers));
	rpc__budget_init(srv);
	if (srv->cfg.max_conns_per_client) {
		srv->clients = rpc__clients_new(srv->cfg.max_conns_per_client);
		if (!srv->clients) {
			rpc_bigpool_fini(&srv->bigpool);
			free(srv);
			return NULL;
		}
	}
	return srv;
}

int rpc_listen_tcp(const char *addr, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd, one = 1, family;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, addr, &((struct sockaddr_in *)&ss)->sin_addr) == 1) {
		struct sockaddr_in *s = (struct sockaddr_in *)&ss;

		family = s->sin_family = AF_INET;
		s->sin_port = htons(port);
		sl = sizeof(*s);
	} else if (inet_pton(AF_INET6, addr,
			     &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1) {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)&ss;

		family = s->sin6_family = AF_INET6;
		s->sin6_port = htons(port);
		sl = sizeof(*s);
	} else {
		errno = EINVAL;
		return -1;
	}
	fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, sl) < 0 || listen(fd, 1024) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int rpc_server_add_listener(struct rpc_server *srv, int fd)
{
	if (srv->nlisteners >= RPC_MAX_LISTENERS) {
		errno = ENOSPC;
		return -1;
	}
	srv->listeners[srv->nlisteners++] = fd;
	return 0;
}

int rpc_server_start(struct rpc_server *srv)
{
	unsigned int i;

	srv->workers = rpc_workers_start(srv->cfg.workers, srv->drc,
					 rpc__work_done);
	srv->loops = calloc(srv->cfg.threads, sizeof(*srv->loops));
	if (!srv->workers || !srv->loops)
		return -1;
	for (i = 0; i < srv->cfg.threads; i++) {
		srv->nloops = i + 1; /* so that destroy finishes it */
		if (rpc__loop_init(&srv->loops[i], srv) < 0)
			return -1;
	}
	for (i = 0; i < srv->nloops; i++) {
		if (rpc__loop_start(&srv->loops[i]) < 0)
			return -1; /* rpc_server_stop() joins those running */
		srv->nstarted = i + 1;
	}
	return 0;
}

void rpc_server_stop(struct rpc_server *srv, int grace_ms)
{
	uint64_t one = 1;
	unsigned int i;

	srv->grace_ms = grace_ms;
	atomic_store(&srv->stop, true);
	for (i = 0; i < srv->nstarted; i++)
		if (write(srv->loops[i].wakefd, &one, sizeof(one)) < 0)
			continue;
	for (i = 0; i < srv->nstarted; i++)
		pthread_join(srv->loops[i].thread, NULL);
	/* After the loops: a worker may still be posting to one. */
	rpc_workers_stop(srv->workers);
	srv->workers = NULL;
}

void rpc_server_destroy(struct rpc_server *srv)
{
	unsigned int i;

	if (!srv)
		return;
	rpc_workers_stop(srv->workers);
	for (i = 0; i < srv->nloops; i++)
		rpc__loop_fini(&srv->loops[i]);
	free(srv->loops);
	for (i = 0; i < srv->nlisteners; i++)
		close(srv->listeners[i]);
	rpc_bigpool_fini(&srv->bigpool);
	rpc__clients_free(srv->clients);
	pthread_mutex_destroy(&srv->snap_lock);
	free(srv);
}
