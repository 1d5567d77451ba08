/* SPDX-License-Identifier: MIT */
/* Registration with an external rpcbind: see client.h. */
#include "rpcbind/client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rpc/msg.h"
#include "rpc/record.h"
#include "rpcbind/service.h"
#include "rpcbind/uaddr.h"
#include "xdr/gen/rpcbind.h"
#include "xdr/xdr.h"

#define TIMEOUT_MS 3000

/*
 * As root, call from a privileged port, as libtirpc's clients do
 * (bindresvport): an rpcbind then knows the caller is root on its host
 * ("superuser"), may take the registration at all (nfsxd's embedded one
 * takes changes from root only), and no unprivileged local process can
 * remove it. When every such port is taken, the call goes out from an
 * ordinary port and the rpcbind decides.
 */
static void bind_reserved(int fd, int family)
{
	struct sockaddr_storage la = { .ss_family = (sa_family_t)family };
	socklen_t ll = family == AF_INET ? sizeof(struct sockaddr_in)
					 : sizeof(struct sockaddr_in6);
	int p;

	if (geteuid() != 0)
		return;
	for (p = 1023; p >= 600; p--) {
		if (family == AF_INET)
			((struct sockaddr_in *)&la)->sin_port = htons((uint16_t)p);
		else
			((struct sockaddr_in6 *)&la)->sin6_port = htons((uint16_t)p);
		if (bind(fd, (struct sockaddr *)&la, ll) == 0 ||
		    errno != EADDRINUSE)
			return;
	}
}

static int connect_to(const char *ip, uint16_t port, char *err, size_t errlen)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t sl;
	int fd;

	if (inet_pton(AF_INET, ip, &((struct sockaddr_in *)&ss)->sin_addr) == 1) {
		((struct sockaddr_in *)&ss)->sin_family = AF_INET;
		((struct sockaddr_in *)&ss)->sin_port = htons(port);
		sl = sizeof(struct sockaddr_in);
	} else if (inet_pton(AF_INET6, ip,
			     &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1) {
		((struct sockaddr_in6 *)&ss)->sin6_family = AF_INET6;
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(port);
		sl = sizeof(struct sockaddr_in6);
	} else {
		snprintf(err, errlen, "bad address %s", ip);
		return -1;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0)
		bind_reserved(fd, ss.ss_family);
	if (fd < 0 || connect(fd, (struct sockaddr *)&ss, sl) < 0) {
		snprintf(err, errlen, "connect to %s port %u: %s", ip, port,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static bool io_all(int fd, void *buf, size_t len, bool wr)
{
	uint8_t *p = buf;

	while (len) {
		struct pollfd pfd = { .fd = fd, .events = wr ? POLLOUT : POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, TIMEOUT_MS) <= 0)
			return false;
		n = wr ? send(fd, p, len, MSG_NOSIGNAL) : recv(fd, p, len, 0);
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			return false;
		}
		p += n;
		len -= (size_t)n;
	}
	return true;
}

/*
 * One call and its reply on @fd. Return values: the accept status, or
 * -1 when there was no usable reply. *result gets the boolean result.
 */
static int call(int fd, uint32_t vers, uint32_t proc, const uint8_t *args,
		size_t alen, bool *result)
{
	static uint32_t xid_seq;
	uint8_t buf[512], rep[256];
	struct xdr_enc e;
	struct xdr_dec d;
	uint32_t xid = (uint32_t)time(NULL) ^ ++xid_seq, mark, w[6], len;
	bool ok;

	xdr_enc_init(&e, buf, sizeof(buf));
	ok = xdr_enc_u32(&e, 0) && xdr_enc_u32(&e, xid) &&
	     xdr_enc_u32(&e, RPC_MSG_CALL) && xdr_enc_u32(&e, RPC_VERSION) &&
	     xdr_enc_u32(&e, RPCB_PROG) && xdr_enc_u32(&e, vers) &&
	     xdr_enc_u32(&e, proc) && xdr_enc_u32(&e, RPC_AUTH_NONE) &&
	     xdr_enc_u32(&e, 0) && xdr_enc_u32(&e, RPC_AUTH_NONE) &&
	     xdr_enc_u32(&e, 0) && xdr_enc_opaque_fixed(&e, args, (uint32_t)alen);
	if (!ok)
		return -1;
	xdr__put32(buf, RPC_RM_LAST | (uint32_t)(xdr_enc_len(&e) - 4));
	if (!io_all(fd, buf, xdr_enc_len(&e), true) ||
	    !io_all(fd, &mark, 4, false))
		return -1;
	len = ntohl(mark);
	if (!(len & RPC_RM_LAST) || (len & RPC_RM_LEN) > sizeof(rep))
		return -1;
	len &= RPC_RM_LEN;
	if (!io_all(fd, rep, len, false))
		return -1;
	xdr_dec_init(&d, rep, len, NULL);
	for (int i = 0; i < 3; i++)
		if (!xdr_dec_u32(&d, &w[i]))
			return -1;
	if (w[0] != xid || w[1] != RPC_MSG_REPLY || w[2] != RPC_REPLY_ACCEPTED)
		return -1;
	/* verifier, then the accept status */
	if (!xdr_dec_u32(&d, &w[3]) ||
	    !xdr_dec_u32(&d, &w[4]) || !xdr_dec_skip(&d, w[4]) ||
	    !xdr_dec_u32(&d, &w[5]))
		return -1;
	if (w[5] == RPC_SUCCESS && !xdr_dec_bool(&d, result))
		return -1;
	return (int)w[5];
}

int rpcb_client_set(const char *rpcb_ip, uint16_t rpcb_port, uint32_t prog,
		    uint32_t vers, const char *ip, uint16_t port, bool unset,
		    char *err, size_t errlen)
{
	char uaddr[UADDR_MAX], owner[32];
	struct rpcb r = { .r_prog = prog, .r_vers = vers };
	uint8_t args[256];
	struct xdr_enc e;
	bool result = false;
	int fd, st;

	if (geteuid() == 0)
		snprintf(owner, sizeof(owner), "superuser");
	else
		snprintf(owner, sizeof(owner), "%u", (unsigned int)geteuid());
	if (uaddr_make(ip, port, uaddr, sizeof(uaddr)) < 0) {
		snprintf(err, errlen, "bad address %s", ip);
		return -1;
	}
	r.r_netid = (struct xdr_bytes){ (const uint8_t *)"tcp", 3 };
	r.r_addr = (struct xdr_bytes){ (const uint8_t *)uaddr, (uint32_t)strlen(uaddr) };
	r.r_owner = (struct xdr_bytes){ (const uint8_t *)owner, (uint32_t)strlen(owner) };
	xdr_enc_init(&e, args, sizeof(args));
	if (!xdr_enc_rpcb(&e, &r)) {
		snprintf(err, errlen, "cannot encode the registration");
		return -1;
	}
	fd = connect_to(rpcb_ip, rpcb_port, err, errlen);
	if (fd < 0)
		return -1;
	st = call(fd, RPCBVERS4, unset ? RPCBPROC4_UNSET : RPCBPROC4_SET, args,
		  xdr_enc_len(&e), &result);
	if (st == RPC_PROG_MISMATCH || st == RPC_PROG_UNAVAIL ||
	    st == RPC_PROC_UNAVAIL) {
		/* A version 2 portmapper: mapping = prog, vers, prot, port. */
		struct mapping m = { prog, vers, PMAP_IPPROTO_TCP, port };

		xdr_enc_init(&e, args, sizeof(args));
		xdr_enc_mapping(&e, &m);
		st = call(fd, PMAP_VERS, unset ? PMAPPROC_UNSET : PMAPPROC_SET,
			  args, xdr_enc_len(&e), &result);
	}
	close(fd);
	if (st != RPC_SUCCESS) {
		snprintf(err, errlen, st < 0 ? "no valid reply from rpcbind"
					     : "rpcbind answered status %d", st);
		return -1;
	}
	return result ? 1 : 0;
}
