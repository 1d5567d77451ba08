/* SPDX-License-Identifier: MIT */
/*
 * Raw NFSv3/MOUNT v3 calls for the wire-level tests, on top of
 * rpc_client.h: one call as a root AUTH_SYS client, its reply checked
 * and read through an rpc_cur, and MNT. Shared by test_nfs3_wire.c and
 * test_nfs3_readdir.c so that each does not carry its own copy.
 */
#ifndef NFSX_TEST_NFS3_RAW_H
#define NFSX_TEST_NFS3_RAW_H

#include <stdbool.h>
#include <stdint.h>

#include "rpc_client.h"

struct raw_fh {
	uint32_t len;
	uint8_t d[128];
};

struct raw_res {
	int rc;                  /* rpc_call_simple's result */
	struct rpc_reply r;
	struct rpc_buf store;
};

/* Reply timeout of raw_call, milliseconds (default 5000). */
extern int raw_timeout_ms;

/* The credential of raw_call: AUTH_SYS (default) or AUTH_NONE. */
extern uint32_t raw_flavor;

/* Call version 3 of @prog as AUTH_SYS uid 0 gid 0, like a root client
 * (or AUTH_NONE: raw_flavor). */
void raw_call(int fd, uint32_t prog, uint32_t proc, const struct rpc_buf *args,
	      struct raw_res *out);
/* A reply, MSG_ACCEPTED and SUCCESS? */
bool raw_accepted(const struct raw_res *s);
/* TAP diagnostic of what came back. */
void raw_diag(const struct raw_res *s);
/* Cursor over the result body (bad when the call was not accepted). */
struct rpc_cur raw_cur(const struct raw_res *s);
/* MNT @path: the mountstat3 (or -1 on no or odd reply); fills @fh if OK. */
long raw_mnt(int fd, const char *path, struct raw_fh *fh);
/* MNT @path: the mountstat3 (or -1 on no or odd reply); on MNT3_OK fills
 * @fh and the auth_flavors list (*@n of them, the first @max into @fl). */
long raw_mnt_flavors(int fd, const char *path, struct raw_fh *fh, uint32_t *fl,
		     uint32_t max, uint32_t *n);
/* LOOKUP @name in @dir: the nfsstat3 (or -1 on no or odd reply); fills @out if OK. */
long raw_lookup(int fd, const struct raw_fh *dir, const char *name, struct raw_fh *out);

/* The fattr3 fields the tests look at (RFC 1813 2.6). */
struct raw_fattr {
	bool have;               /* the entry came with attributes */
	uint32_t type, mode, nlink, uid, gid;
	uint64_t size, fileid;
	uint32_t mtime_s, mtime_ns, ctime_s, ctime_ns;
};

/*
 * raw_plus_find - one READDIRPLUS (dircount 8192, maxcount 32768) of the
 * small directory @dir from its start, as root, and the entry @name in
 * it. A listing the server's cache holds answers it, so a test sees what
 * the cache gives.
 * Return values: 1 when @name is listed (*@a its attributes, a->have
 * false and the rest 0 when none came), 0 when it is not, -1 on an error
 * status or an odd reply (with a diagnostic).
 */
int raw_plus_find(int fd, const struct raw_fh *dir, const char *name, struct raw_fattr *a);

#endif
