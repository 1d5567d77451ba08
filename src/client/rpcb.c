/* SPDX-License-Identifier: MIT */
/*
 * Port lookup through rpcbind: PMAP v2 GETPORT (RFC 1833) on the host's
 * port 111 (opts.rpcbind_port), for a channel whose port was not given.
 * The lookup is an ordinary call on the rpcbind channel; the calls that
 * wait for the port stay queued on their channel meanwhile.
 */
#include "client/internal.h"

#include <errno.h>
#include <string.h>

static bool enc_mapping(void *e, const void *a)
{
	return xdr_enc_mapping(e, a);
}

static bool dec_port(void *d, void *r)
{
	return xdr_dec_u32(d, r);
}

const struct nfsx_proc nc_pmap_getport = {
	.prog = PMAP_PROG, .vers = PMAP_VERS, .proc = PMAPPROC_GETPORT,
	.name = "GETPORT", .encode = enc_mapping, .decode = dec_port,
	.res_size = sizeof(uint32_t), .idempotent = true,
};

static void getport_done(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct nc_chan *ch = priv;
	uint32_t port = res ? *(uint32_t *)res : 0;

	if (err < 0 || port == 0 || port > 65535) {
		if (err < 0)
			nc_set_error(ctx, "rpcbind on %s port %u: %s", ctx->host,
				     ctx->o.rpcbind_port, strerror(-err));
		else
			nc_set_error(ctx, "program %u version %u is not registered on %s",
				     ch->getport_args.prog, ch->getport_args.vers, ctx->host);
		ch->state = NC_CH_NOPORT; /* the next call asks again */
		nc_chan_fail_queued(ch, err < 0 ? err : -EPROTONOSUPPORT);
		return;
	}
	ch->port = (uint16_t)port;
	ch->state = NC_CH_READY;
}

void nc_chan_resolve(struct nc_chan *ch)
{
	struct nc_call *first = nc_container_of(nc_xq_peek(&ch->queue), struct nc_call, qi);
	int r;

	ch->getport_args.prog = first->proc->prog;
	ch->getport_args.vers = first->proc->vers;
	ch->getport_args.prot = PMAP_IPPROTO_TCP;
	ch->getport_args.port = 0;
	ch->state = NC_CH_RESOLVING;
	r = nc_call_submit(ch->ctx, 0, &nc_pmap_getport, &ch->getport_args, getport_done, ch);
	if (r < 0) {
		ch->state = NC_CH_NOPORT;
		nc_chan_fail_queued(ch, r);
	}
}
