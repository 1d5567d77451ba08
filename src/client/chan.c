/* SPDX-License-Identifier: MIT */
/*
 * Channels and the pump: which connection a program uses, starting
 * connections when calls wait, and moving queued calls into free slots.
 *
 * The core knows programs only by number: MOUNT and rpcbind get their
 * own channel (they may live on other ports), every other program goes
 * to the NFS channel. A new version of NFS is a new procedure table;
 * nothing here changes.
 */
#include "client/internal.h"

#include <errno.h>
#include <sys/epoll.h>

#include "xdr/gen/mount3.h"

struct nc_chan *nc_chan_for(struct nfsx_ctx *ctx, uint32_t prog)
{
	if (prog == MOUNT3_PROGRAM)
		return &ctx->chan[NC_CH_MOUNT];
	if (prog == PMAP_PROG)
		return &ctx->chan[NC_CH_RPCB];
	return &ctx->chan[NC_CH_NFS];
}

void nc_chan_fail_queued(struct nc_chan *ch, int err)
{
	struct nc_xq_item *it;

	while ((it = nc_xq_peek(&ch->queue)))
		nc_call_complete(ch->ctx, nc_container_of(it, struct nc_call, qi), err, NULL, 0);
}

/* Calls go to connections with free slots, one each in turn (nconnect). */
static void assign(struct nc_chan *ch)
{
	unsigned misses = 0;

	while (nc_xq_len(&ch->queue) && misses < ch->nconn) {
		struct nc_conn *c = &ch->conns[ch->rr];

		ch->rr = (ch->rr + 1) % ch->nconn;
		if (c->state != NC_UP || c->broken || nc_slots_full(&c->slots)) {
			misses++;
			continue;
		}
		misses = 0;
		nc_conn_assign(c, nc_container_of(nc_xq_pop(&ch->queue), struct nc_call, qi));
	}
}

void nc_pump(struct nfsx_ctx *ctx)
{
	unsigned i, j;

	for (i = 0; i < NC_NCHAN; i++) {
		struct nc_chan *ch = &ctx->chan[i];

		for (j = 0; j < ch->nconn; j++)
			nc_conn_check_broken(&ch->conns[j]);
		if (nc_xq_len(&ch->queue)) {
			if (ch->state == NC_CH_NOPORT)
				nc_chan_resolve(ch);
			if (ch->state == NC_CH_READY)
				for (j = 0; j < ch->nconn; j++)
					if (ch->conns[j].state == NC_IDLE)
						nc_conn_start(&ch->conns[j]);
			assign(ch);
		}
		for (j = 0; j < ch->nconn; j++) {
			struct nc_conn *c = &ch->conns[j];

			/* Blocked connections are flushed by their EPOLLOUT event. */
			if (c->state == NC_UP && !(c->events & EPOLLOUT) &&
			    (c->rem || !nc_list_empty(&c->sendq) || !nc_list_empty(&c->oob)))
				nc_conn_flush(c);
		}
	}
}
