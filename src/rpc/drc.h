/* SPDX-License-Identifier: MIT */
/*
 * Duplicate request cache for non-idempotent procedures (RFC 5531
 * leaves it to servers; see "Improving the Reliability of NFS" and
 * Linux's nfscache.c).
 *
 * DESIGN
 * Entries are keyed like Linux's: xid, program, version, procedure,
 * client address and port, argument length and a checksum of the first
 * 256 argument bytes (xids repeat across clients and reboots). An entry
 * is IN_PROGRESS while the original executes (a retransmission is then
 * dropped: the original will answer) and holds a copy of the reply once
 * done. Memory is bounded: entry + reply bytes are accounted, and the
 * least recently used completed entries are evicted past the bound.
 * The cache is shared by all event loops (a client that reconnects may
 * land on another loop), split into shards each with its own mutex;
 * no other lock is ever held with a shard lock. Shard and bucket come
 * from a hash keyed at random per cache (rpc_drc_hash), so chosen xids
 * cannot pile into one chain.
 */
#ifndef NFSX_RPC_DRC_H
#define NFSX_RPC_DRC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct rpc_drc;

/* The key sums this many bytes at the start of the arguments. */
#define RPC_DRC_SUM_BYTES 256u

struct rpc_drc_key {
	uint32_t xid, prog, vers, proc;
	uint32_t args_len, args_sum;
	uint16_t family, port;
	uint8_t addr[16];
};

enum rpc_drc_result {
	RPC_DRC_MISS,        /* new: entry now IN_PROGRESS, run the call */
	RPC_DRC_IN_PROGRESS, /* the original is still running: drop */
	RPC_DRC_HIT,         /* the cached reply has been copied out */
};

/*
 * rpc_drc_create - a cache holding at most about @max_bytes, whose hash
 * is keyed with a fresh random key (initialises libsodium).
 * Return values: the cache, or NULL when memory is short or libsodium
 * cannot start.
 */
struct rpc_drc *rpc_drc_create(size_t max_bytes);
void rpc_drc_destroy(struct rpc_drc *drc);

void rpc_drc_make_key(struct rpc_drc_key *k, uint32_t xid, uint32_t prog,
		      uint32_t vers, uint32_t proc,
		      const struct sockaddr_storage *peer, const uint8_t *args,
		      size_t args_len);

/*
 * rpc_drc_hash - the hash that places @k in @drc's shards and buckets:
 * SipHash-2-4 of the key under @drc's random key, so a client cannot
 * choose xids that collide. Exposed for the tests.
 * Return values: the hash (differs between two caches for the same @k).
 */
uint32_t rpc_drc_hash(const struct rpc_drc *drc, const struct rpc_drc_key *k);

/*
 * rpc_drc_lookup - find @k, or enter it as in progress.
 * On %RPC_DRC_HIT the cached reply is passed to @copy (under the shard
 * lock; @copy must not call back into the cache).
 * Return values: see enum rpc_drc_result.
 */
enum rpc_drc_result rpc_drc_lookup(struct rpc_drc *drc,
				   const struct rpc_drc_key *k,
				   void (*copy)(void *arg, const uint8_t *reply,
						size_t len),
				   void *arg);

/* The call of @k completed with @reply: keep it for retransmissions. */
void rpc_drc_store(struct rpc_drc *drc, const struct rpc_drc_key *k,
		   const uint8_t *reply, size_t len);

/* The call of @k produced no reply: forget it. */
void rpc_drc_abandon(struct rpc_drc *drc, const struct rpc_drc_key *k);

struct rpc_drc_stats {
	uint64_t hits, misses, in_progress_drops, evictions;
	size_t bytes, entries;
};
void rpc_drc_get_stats(struct rpc_drc *drc, struct rpc_drc_stats *st);

#endif
