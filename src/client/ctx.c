/* SPDX-License-Identifier: MIT */
/*
 * Context: options, the epoll set handed to the application, and the
 * service loop (socket events, timers, then transmission).
 *
 * The application polls one descriptor, an epoll set holding every
 * socket, a timerfd (retransmission and back-off timers) and an eventfd
 * (calls queued outside nfsx_service). Calls are transmitted only from
 * nfsx_service, so everything queued in one turn leaves in one sendmsg.
 */
#include "client/internal.h"
#include "client/nfs4.h"

#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "xdr/gen/mount3.h"
#include "xdr/gen/rpc.h"

uint64_t nc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void nc_set_error(struct nfsx_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx->err, sizeof(ctx->err), fmt, ap);
	va_end(ap);
}

const char *nfsx_ctx_error(const struct nfsx_ctx *ctx)
{
	return ctx->err;
}

void nc_epoll_mod(struct nfsx_ctx *ctx, struct nc_conn *c, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = &c->src };

	if (c->fd < 0 || c->events == events)
		return;
	if (epoll_ctl(ctx->epfd, c->events ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, c->fd, &ev) == 0)
		c->events = events;
	else
		c->broken = true;
}

/* The call header from the xid on, with prog/vers/proc left zero. */
static int build_header(struct nfsx_ctx *ctx)
{
	uint8_t cred[MAX_AUTH_BYTES];
	struct authsys_parms ap = {
		.stamp = (uint32_t)time(NULL),
		.machinename = { (const uint8_t *)ctx->machine, (uint32_t)strlen(ctx->machine) },
		.uid = ctx->o.uid,
		.gid = ctx->o.gid,
		.gids = { ctx->o.ngids, ctx->o.gids },
	};
	struct rpc_msg msg = { 0 };
	struct xdr_enc e;

	xdr_enc_init(&e, cred, sizeof(cred));
	if (!xdr_enc_authsys_parms(&e, &ap))
		return -EINVAL;
	msg.body.mtype = CALL;
	msg.body.u.cbody.rpcvers = RPC_MSG_VERSION;
	msg.body.u.cbody.cred.flavor = AUTH_SYS;
	msg.body.u.cbody.cred.body.data = cred;
	msg.body.u.cbody.cred.body.len = (uint32_t)xdr_enc_len(&e);
	msg.body.u.cbody.verf.flavor = AUTH_NONE;
	xdr_enc_init(&e, ctx->hdr, sizeof(ctx->hdr));
	if (!xdr_enc_rpc_msg(&e, &msg))
		return -EINVAL;
	ctx->hdr_len = (uint32_t)xdr_enc_len(&e);
	return 0;
}

static int resolve_host(struct nfsx_ctx *ctx, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_family = AF_UNSPEC };
	struct addrinfo *res = NULL;
	int r = getaddrinfo(ctx->host, NULL, &hints, &res);

	if (r != 0 || !res) {
		snprintf(err, errlen, "cannot resolve %s: %s", ctx->host,
			 r ? gai_strerror(r) : "no address");
		return -EHOSTUNREACH;
	}
	memcpy(&ctx->addr, res->ai_addr, res->ai_addrlen);
	ctx->addrlen = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

static int validate(struct nfsx_opts *o, char *err, size_t errlen)
{
	struct nfsx_opts d;

	nfsx_opts_init(&d);
	if (!o->host || !*o->host) {
		snprintf(err, errlen, "no host given");
		return -EINVAL;
	}
	if (!o->nconnect)
		o->nconnect = d.nconnect;
	if (!o->slots)
		o->slots = d.slots;
	if (!o->timeo_ms)
		o->timeo_ms = d.timeo_ms;
	if (!o->max_backoff_ms)
		o->max_backoff_ms = d.max_backoff_ms;
	if (!o->rpcbind_port)
		o->rpcbind_port = d.rpcbind_port;
	if (!o->max_reply)
		o->max_reply = d.max_reply;
	if (!o->version)
		o->version = d.version;
	if (o->version != 3 && o->version != 4) {
		snprintf(err, errlen, "NFS version %u: 3 or 4 (NFSv4.1 or 4.2)", o->version);
		return -EINVAL;
	}
	if (o->minor != 0 && (o->minor < NC4_MINOR_MIN || o->minor > NC4_MINOR_MAX)) {
		snprintf(err, errlen, "NFSv4 minor version %u: 1, 2, or 0 for the highest "
			 "(NFSv4.0 is not spoken by libnfsx)", o->minor);
		return -EINVAL;
	}
	if (o->nconnect > NC_MAX_NCONNECT) {
		snprintf(err, errlen, "nconnect %u: at most %u", o->nconnect, NC_MAX_NCONNECT);
		return -EINVAL;
	}
	if (o->slots > NC_SLOTS_MAX) {
		snprintf(err, errlen, "slots %u: at most %u", o->slots, NC_SLOTS_MAX);
		return -EINVAL;
	}
	if (o->ngids > NFSX_MAX_GIDS) {
		snprintf(err, errlen, "%u groups: AUTH_SYS carries at most %u", o->ngids,
			 NFSX_MAX_GIDS);
		return -EINVAL;
	}
	if (o->max_reply < 4096 || o->max_reply > (64u << 20)) {
		snprintf(err, errlen, "max_reply %u: between 4096 and 64 MiB", o->max_reply);
		return -EINVAL;
	}
	return 0;
}

static int add_src(struct nfsx_ctx *ctx, int fd, struct nc_src *src)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = src };

	return epoll_ctl(ctx->epfd, EPOLL_CTL_ADD, fd, &ev);
}

static int init_chans(struct nfsx_ctx *ctx)
{
	uint16_t ports[NC_NCHAN] = {
		[NC_CH_NFS] = ctx->o.port,
		[NC_CH_MOUNT] = ctx->o.mount_port ? ctx->o.mount_port : ctx->o.port,
		[NC_CH_RPCB] = ctx->o.rpcbind_port,
	};
	unsigned i, j;

	for (i = 0; i < NC_NCHAN; i++) {
		struct nc_chan *ch = &ctx->chan[i];

		ch->ctx = ctx;
		ch->id = (enum nc_chan_id)i;
		ch->port = ports[i];
		ch->state = ch->port ? NC_CH_READY : NC_CH_NOPORT;
		nc_xq_init(&ch->queue);
		ch->nconn = i == NC_CH_NFS ? ctx->o.nconnect : 1;
		ch->conns = calloc(ch->nconn, sizeof(*ch->conns));
		if (!ch->conns)
			return -ENOMEM;
		for (j = 0; j < ch->nconn; j++)
			if (nc_conn_init(&ch->conns[j], ctx, ch, j, ctx->o.slots) < 0)
				return -ENOMEM;
	}
	return 0;
}

struct nfsx_ctx *nfsx_ctx_new(const struct nfsx_opts *o, char *err, size_t errlen)
{
	struct nfsx_ctx *ctx = calloc(1, sizeof(*ctx));

	if (!ctx) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ctx->epfd = ctx->tfd = ctx->efd = -1;
	ctx->o = *o;
	if (validate(&ctx->o, err, errlen) < 0)
		goto fail;
	snprintf(ctx->host, sizeof(ctx->host), "%s", o->host);
	ctx->o.host = ctx->host;
	if (o->machine)
		snprintf(ctx->machine, sizeof(ctx->machine), "%s", o->machine);
	else if (gethostname(ctx->machine, sizeof(ctx->machine)) < 0)
		snprintf(ctx->machine, sizeof(ctx->machine), "localhost");
	ctx->machine[NC_MACHINE_MAX] = '\0';
	ctx->o.machine = ctx->machine;
	if (resolve_host(ctx, err, errlen) < 0)
		goto fail;
	if (build_header(ctx) < 0) {
		snprintf(err, errlen, "cannot encode the AUTH_SYS credential");
		goto fail;
	}
	if (getrandom(&ctx->next_xid, sizeof(ctx->next_xid), 0) != sizeof(ctx->next_xid))
		ctx->next_xid = (uint32_t)nc_now() ^ (uint32_t)getpid();
	nc_list_init(&ctx->timers);
	nc_stats_init(&ctx->stats);
	ctx->tsrc.kind = NC_SRC_TIMER;
	ctx->esrc.kind = NC_SRC_EVENT;
	ctx->epfd = epoll_create1(EPOLL_CLOEXEC);
	ctx->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	ctx->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (ctx->epfd < 0 || ctx->tfd < 0 || ctx->efd < 0 ||
	    add_src(ctx, ctx->tfd, &ctx->tsrc) < 0 || add_src(ctx, ctx->efd, &ctx->esrc) < 0) {
		snprintf(err, errlen, "epoll/timerfd/eventfd: %s", strerror(errno));
		goto fail;
	}
	ctx->res_cap = 1024;
	ctx->res = malloc(ctx->res_cap);
	if (!ctx->res || init_chans(ctx) < 0) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	snprintf(ctx->err, sizeof(ctx->err), "no error");
	return ctx;
fail:
	nfsx_ctx_free(ctx);
	return NULL;
}

void nfsx_ctx_free(struct nfsx_ctx *ctx)
{
	unsigned i, j;

	if (!ctx)
		return;
	/* While the context still works: DESTROY_SESSION, DESTROY_CLIENTID. */
	nc4_session_close(ctx);
	ctx->dying = true;
	nc_call_release_all(ctx);
	for (i = 0; i < NC_NCHAN; i++) {
		struct nc_chan *ch = &ctx->chan[i];

		for (j = 0; ch->conns && j < ch->nconn; j++)
			nc_conn_fini(&ch->conns[j]);
		free(ch->conns);
		nc_xq_fini(&ch->queue);
	}
	for (i = 0; i < ctx->nchunks; i++)
		free(ctx->chunks[i]);
	free(ctx->chunks);
	free(ctx->xtab);
	free(ctx->arena);
	free(ctx->res);
	nc_stats_fini(&ctx->stats);
	if (ctx->epfd >= 0)
		close(ctx->epfd);
	if (ctx->tfd >= 0)
		close(ctx->tfd);
	if (ctx->efd >= 0)
		close(ctx->efd);
	free(ctx);
}

int nfsx_get_fd(const struct nfsx_ctx *ctx)
{
	return ctx->epfd;
}

unsigned nfsx_pending(const struct nfsx_ctx *ctx)
{
	return ctx->pending;
}

/* An eventfd's or a timerfd's count: one read takes all of it. */
static void drain(int fd)
{
	uint64_t v;

	(void)!read(fd, &v, sizeof(v));
}

/* Wake the application's poll: calls were queued outside nfsx_service. */
static void kick(struct nfsx_ctx *ctx)
{
	uint64_t one = 1;

	if (ctx->kicked)
		return;
	if (write(ctx->efd, &one, sizeof(one)) == sizeof(one))
		ctx->kicked = true;
}

void nc_queued(struct nfsx_ctx *ctx)
{
	ctx->dirty = true;
	if (!ctx->in_service)
		kick(ctx);
}

/* nfsx_service, after waiting up to @timeout_ms for the first event:
 * one epoll_wait either way. */
static int service(struct nfsx_ctx *ctx, int timeout_ms)
{
	struct epoll_event ev[64];
	int n, i, err;

	if (ctx->dying)
		return -ESHUTDOWN;
	if (ctx->in_service || ctx->in_cb)
		return -EDEADLK;
	ctx->in_service = true;
	/* calls queued outside a turn leave now, whether or not the
	 * eventfd's wake-up was written */
	n = epoll_wait(ctx->epfd, ev, 64, ctx->dirty ? 0 : timeout_ms);
	err = n < 0 && errno != EINTR ? -errno : 0;
	for (i = 0; i < n; i++) {
		struct nc_src *s = ev[i].data.ptr;

		switch (s->kind) {
		case NC_SRC_EVENT:
			drain(ctx->efd);
			ctx->kicked = false;
			break;
		case NC_SRC_TIMER:
			drain(ctx->tfd);
			ctx->armed = 0;
			break;
		case NC_SRC_CONN:
			nc_conn_event(nc_container_of(s, struct nc_conn, src), ev[i].events);
			break;
		}
	}
	nc_timers_run(ctx, nc_now());
	if (ctx->v4)
		nc4_tick(ctx, nc_now());
	/* Callbacks run by the pump (failed connects) may queue more calls. */
	for (i = 0; i < 4; i++) {
		ctx->dirty = false;
		nc_pump(ctx);
		if (!ctx->dirty)
			break;
	}
	ctx->in_service = false;
	if (ctx->dirty)
		kick(ctx);
	nc_timer_arm(ctx);
	return err;
}

int nfsx_service(struct nfsx_ctx *ctx)
{
	return service(ctx, 0);
}

int nfsx_run_once(struct nfsx_ctx *ctx, int timeout_ms)
{
	return service(ctx, timeout_ms);
}

const struct nfsx_op_stats *nfsx_stats_get(const struct nfsx_ctx *c, const struct nfsx_proc *p)
{
	return nc_stats_find(&c->stats, p);
}
