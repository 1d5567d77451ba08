/* SPDX-License-Identifier: MIT */
/*
 * The WRITE calls, replies and local checks shared by the two halves of
 * the nfs3-bulk test (test_nfs3_bulk.c, test_nfs3_bulk_mapped.c).
 */
#ifndef NFSX_TEST_BULK_WIRE_H
#define NFSX_TEST_BULK_WIRE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "nfs3_raw.h"

#define NFSPROC_NULL 0
#define NFSPROC_WRITE 7
#define NFS3_OK 0
#define NFS3ERR_NOSPC 28
#define NFS3ERR_ROFS 30
#define FILE_SYNC 2
#define UNSTABLE 0
#define TMO 10000
#define MIB (1u << 20)

extern uint16_t port;
extern const char *base, *base_top, *base_exp;
extern uint32_t cred_uid, cred_gid; /* AUTH_SYS of the WRITEs sent */

struct wr {
	int rc;                 /* rpc_recv_record */
	struct rpc_reply r;
	long status;            /* -1: not an accepted reply */
	uint32_t count, committed;
	struct rpc_buf raw;     /* the reply record */
};

void fill(uint8_t *p, size_t n, uint32_t seed);

/* The WRITE call message (no record marker), count and data length given
 * separately so that a test can make them disagree. */
void write_msg(struct rpc_buf *out, uint32_t xid, const struct raw_fh *f,
	       uint64_t off, uint32_t count, uint32_t stable, const uint8_t *data,
	       uint32_t len);

void null_msg(struct rpc_buf *out, uint32_t xid);

/* Receive one reply and read it as a WRITE3res (if accepted). */
void recv_reply(int fd, struct wr *w);

/* One NULL round trip: the connection is still in step. */
bool in_step(int fd);

bool local_same(const char *rel, uint64_t off, const uint8_t *want, size_t n);

void local_poke(const char *rel, uint64_t off, const void *p, size_t n);

int connect_or_bail(void);

bool local_stat(const char *rel, struct stat *st);

/* A 1-byte UNSTABLE WRITE on @fd: its nfsstat3, or -1. Also puts @f's
 * node in the cache, so that the next WRITE stays on the loop (a handle
 * not seen yet goes to a worker). */
long write1(int fd, const struct raw_fh *f);

/* test_nfs3_bulk_mapped.c, each described there: on tmpfs, the kept
 * mappings; on both kinds of export, a file removed behind the server's
 * back. */
void test_mapped(int fd, pid_t pid, uint8_t *data);
void test_mapped_remove(int fd, pid_t pid, uint8_t *data);
void test_read_mapped(int fd, pid_t pid, uint8_t *data);
void test_removed_locally(int fd, pid_t pid, uint8_t *data, bool mem);

#endif
