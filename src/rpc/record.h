/* SPDX-License-Identifier: MIT */
/*
 * TCP record marking (RFC 5531 section 11): reassembles records from
 * fragments inside one receive buffer.
 *
 * DESIGN
 * The buffer holds raw bytes [rd, len). Fragment payloads are gathered
 * in place into [rec_start, wr) by moving each later fragment down over
 * the markers before it; a record of one fragment (what every client
 * sends) is never moved. Fragment and record sizes are checked against
 * a limit as soon as a marker is read, so a peer announcing 2 GiB is cut
 * off before anything of that size exists.
 */
#ifndef NFSX_RPC_RECORD_H
#define NFSX_RPC_RECORD_H

#include <stddef.h>
#include <stdint.h>

#define RPC_RM_LAST 0x80000000u
#define RPC_RM_LEN 0x7fffffffu

struct rpc_record {
	size_t rd;        /* next raw byte not yet parsed */
	size_t wr;        /* end of the gathered payload of the record */
	size_t rec_start; /* start of the current record's payload */
	uint32_t frag_left;
	uint32_t max;     /* maximum record size, payload bytes */
	uint8_t in_frag;  /* reading a fragment's payload */
	uint8_t last;     /* current fragment is the record's last */
	uint8_t started;  /* at least one marker of this record read */
};

enum rpc_record_status {
	RPC_RECORD_MORE = 0,  /* need more bytes */
	RPC_RECORD_DONE = 1,  /* a full record is at buf[*off, *off + *len) */
	RPC_RECORD_TOOBIG = -1,
};

void rpc_record_init(struct rpc_record *r, uint32_t max);

/*
 * rpc_record_parse - advance over @buf[0, @len) (the raw bytes received
 * so far) and report the next complete record.
 * Return values:
 *   %RPC_RECORD_DONE:  *off and *len give the record's payload, contiguous;
 *                      call rpc_record_consumed() once it has been used.
 *   %RPC_RECORD_MORE:  every byte has been taken in; read more.
 *   %RPC_RECORD_TOOBIG: a fragment or the record exceeds the limit; the
 *                      connection must be closed.
 */
int rpc_record_parse(struct rpc_record *r, uint8_t *buf, size_t len,
		     size_t *off, size_t *rec_len);

/* Forget the record just returned; the next one starts at r->rd. */
void rpc_record_consumed(struct rpc_record *r);

/*
 * Bytes at the front of the buffer no longer needed (before the
 * current record). The owner may memmove the rest down and then call
 * rpc_record_shift() with this amount.
 */
static inline size_t rpc_record_dead(const struct rpc_record *r)
{
	return r->started ? r->rec_start : r->rd;
}

void rpc_record_shift(struct rpc_record *r, size_t n);

/*
 * Drop the record in progress, whose bytes another reader takes from the
 * stream (bulk.c): the next record's marker will be at buffer offset @at.
 */
void rpc_record_restart(struct rpc_record *r, size_t at);

/* Payload bytes still to come before the current fragment is complete. */
static inline uint32_t rpc_record_need(const struct rpc_record *r)
{
	return r->in_frag ? r->frag_left : 4;
}

#endif
