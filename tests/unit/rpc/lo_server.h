/* SPDX-License-Identifier: MIT */
/*
 * Helpers for the unit tests that run the RPC core's server in their own
 * process and play its client over TCP on 127.0.0.1 (rpc-backchan,
 * nfs4-cb-conn): starting the server on a port the kernel picks, and
 * sending and receiving single-fragment records.
 */
#ifndef NFSX_TEST_RPC_LO_SERVER_H
#define NFSX_TEST_RPC_LO_SERVER_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rpc/drc.h"
#include "rpc/svc.h"
#include "xdr/xdr.h"

/*
 * lo_server_start - start an RPC server of @reg with @threads loop
 * threads and as many workers on 127.0.0.1, a free port; prints "Bail
 * out!" when it cannot.
 * Return values: the server, its port in @port and its reply cache in
 * @drc; NULL on failure.
 */
static inline struct rpc_server *lo_server_start(const struct rpc_registry *reg,
						 unsigned int threads, struct rpc_drc **drc,
						 uint16_t *port)
{
	struct rpc_server_config cfg;
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);
	struct rpc_server *srv;
	int lfd;

	*drc = rpc_drc_create(1u << 20);
	rpc_server_config_defaults(&cfg);
	cfg.threads = threads;
	cfg.workers = threads;
	lfd = rpc_listen_tcp("127.0.0.1", 0);
	if (lfd < 0 || getsockname(lfd, (struct sockaddr *)&sin, &sl) < 0 || !*drc) {
		printf("Bail out! cannot listen on 127.0.0.1\n");
		return NULL;
	}
	*port = ntohs(sin.sin_port);
	srv = rpc_server_create(&cfg, reg, *drc);
	if (!srv || rpc_server_add_listener(srv, lfd) < 0 || rpc_server_start(srv) < 0) {
		printf("Bail out! cannot start the server\n");
		return NULL;
	}
	return srv;
}

/* Send @p as one record (last fragment); aborts the test on failure. */
static inline void lo_send_rec(int fd, const uint8_t *p, size_t len)
{
	uint8_t m[4];

	xdr__put32(m, 0x80000000u | (uint32_t)len);
	if (write(fd, m, 4) != 4 || write(fd, p, len) != (ssize_t)len)
		abort();
}

/* Read exactly @n bytes, waiting at most @ms for each read. Return
 * values: true when they came. */
static inline bool lo_read_full(int fd, uint8_t *p, size_t n, int ms)
{
	while (n) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		ssize_t r;

		if (poll(&pf, 1, ms) != 1)
			return false;
		r = read(fd, p, n);
		if (r <= 0)
			return false;
		p += r;
		n -= (size_t)r;
	}
	return true;
}

/* One single-fragment record of at most @cap bytes. Return values: its
 * length; -1 when none came in time or it was too long. */
static inline ssize_t lo_recv_rec(int fd, uint8_t *buf, size_t cap, int ms)
{
	uint8_t m[4];
	uint32_t len;

	if (!lo_read_full(fd, m, 4, ms))
		return -1;
	len = xdr__get32(m) & 0x7fffffffu;
	if (len > cap || !lo_read_full(fd, buf, len, ms))
		return -1;
	return len;
}

#endif
