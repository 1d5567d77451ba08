/* SPDX-License-Identifier: MIT */
/* Option defaults (nfsx_opts_init), shared by contexts and URL parsing. */
#include "client/nfsx.h"

#include <string.h>
#include <sys/types.h>
#include <unistd.h>

void nfsx_opts_init(struct nfsx_opts *o)
{
	gid_t groups[NFSX_MAX_GIDS];
	int n, i;

	memset(o, 0, sizeof(*o));
	o->nconnect = 1;
	o->slots = 64;
	o->timeo_ms = 60000;
	o->retrans = 2;
	o->max_backoff_ms = 10000;
	o->uid = geteuid();
	o->gid = getegid();
	/* getgroups fails with EINVAL when there are more than fit. */
	n = getgroups(NFSX_MAX_GIDS, groups);
	for (i = 0; i < n; i++)
		o->gids[i] = groups[i];
	o->ngids = n > 0 ? (uint32_t)n : 0;
	o->rpcbind_port = 111;
	o->max_reply = (4u << 20) + (64u << 10);
	o->version = 3;
}
