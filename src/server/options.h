/* SPDX-License-Identifier: MIT */
/* nfsxd command line. */
#ifndef NFSX_SERVER_OPTIONS_H
#define NFSX_SERVER_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/log.h"

#define NFSXD_MAX_EXPORTS 64
#define NFSXD_MAX_BINDS 8

struct nfsxd_opts {
	uint16_t port;
	const char *bind[NFSXD_MAX_BINDS]; /* --bind, in order given */
	unsigned int nbind;
	bool no_rpcbind;
	uint16_t rpcbind_port;
	const char *exports[NFSXD_MAX_EXPORTS]; /* DIR[:OPTIONS] as given */
	unsigned int nexports;
	const char *exports_file;
	const char *state_dir;
	bool foreground;
	enum nfsx_log_level log_level;
	unsigned int threads;
	uint32_t max_record;
	unsigned int max_inflight;
	size_t max_unsent;
	size_t drc_size;
	size_t dir_cache_bytes;   /* vfs/dir.h budget, 0: none */
	unsigned int max_conns;
	unsigned int workers;
	unsigned int slice_us;
	unsigned int busy_poll_us;
	size_t max_conn_bytes;
	size_t max_total_bytes;
	unsigned int idle_timeout_s;
	unsigned int max_conns_per_client;
	bool nfs4;                /* serve version 4 too (the default; --nfs-vers 3: not) */
	unsigned int lease_time;  /* NFSv4 lease, seconds */
	bool delegations;         /* offer NFSv4 delegations (--delegations) */
	bool stats;               /* per-procedure statistics (--stats) */
	char metrics_addr[46];    /* --metrics ADDR (INET6_ADDRSTRLEN), or "" */
	uint16_t metrics_port;    /* 0: no HTTP endpoint */
};

/*
 * nfsxd_parse_options - fill @o from argv.
 * Return values: 0 to run; 1 when --help or --version was answered
 * (exit 0); -1 on a bad option, already reported on stderr (exit 2).
 */
int nfsxd_parse_options(int argc, char **argv, struct nfsxd_opts *o);

#endif
