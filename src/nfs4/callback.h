/* SPDX-License-Identifier: MIT */
/*
 * NFSv4 callbacks: the server calls its clients' callback service
 * (RFC 7530 section 10.2, 16.33; RFC 8881 2.10.3.1 and section 20).
 *
 * DESIGN
 * - NFSv4.0: the callback SETCLIENTID named (program, netid, universal
 *   address, callback_ident) is called over a TCP connection the server
 *   opens (rpc/callout.h: a thread of its own, so that a client whose
 *   callback never answers holds no worker and no event loop). Only
 *   "tcp" and "tcp6" netids, only the address the client gave
 *   (cb_msg.h); 5 s to connect, lease/10 for the reply (as knfsd's
 *   max_cb_time), replies bounded (NFS4_CB_REPLY_MAX).
 * - At each SETCLIENTID_CONFIRM that sets a callback the server probes
 *   it with CB_NULL (knfsd's nfsd4_probe_callback): the client's path
 *   is unknown until the probe ends, then up (a SUCCESS reply) or down
 *   (no connection, no reply in time, a malformed or rejected reply).
 *   A CB_COMPOUND that fails on the transport marks it down too.
 * - Credentials as knfsd sends them on 4.0 callbacks: the flavour of
 *   the client's SETCLIENTID with the machine credential, that is
 *   AUTH_SYS with uid 0, gid 0 and the server's host name for an
 *   AUTH_SYS client (knfsd: rpc_machine_cred() under the client's
 *   cr_flavor), AUTH_NONE for an AUTH_NONE one.
 * - CB_RECALL goes in a CB_COMPOUND of minor version 0 carrying the
 *   client's callback_ident; the reply is decoded whole (cb_msg.h) and
 *   its status handed to the caller.
 * - NFSv4.1: calls go on the session's back channel, a connection the
 *   client opened (rpc/backchan.h); nfs4_cb_send_on_conn() sends a
 *   CB_COMPOUND of the session's minor version there (1 or 2, as its
 *   CREATE_SESSION; CB_SEQUENCE first, built by the session code).
 * - Every done function runs on the thread that saw the reply (the
 *   callout thread, or the connection's event loop) and must not block.
 */
#ifndef NFSX_NFS4_CALLBACK_H
#define NFSX_NFS4_CALLBACK_H

#include <stdbool.h>
#include <stdint.h>

#include "nfs4/cb_msg.h"
#include "nfs4/clients.h"
#include "rpc/callmsg.h"

#define NFS4_CB_CONNECT_MS 5000u
#define NFS4_CB_REPLY_MAX 8192u     /* a CB_COMPOUND's reply record, bytes */
#define NFS4_CB_NULL_REPLY_MAX 512u

struct nfs4_cb;
struct rpc_backchan;

/*
 * nfs4_cb_new - callbacks to the clients of @t, whose lease is @lease_s
 * seconds (replies are waited for lease/10, at least a second); starts
 * the callout thread.
 * Return values: the context, or NULL (errno set).
 */
struct nfs4_cb *nfs4_cb_new(struct nfs4_clients *t, unsigned int lease_s);

/* The host name 4.0 callbacks carry in AUTH_SYS (4.1's use it too);
 * "nfsxd" without callbacks. */
const char *nfs4_cb_machine(const struct nfs4_cb *cb);

/* Stop: calls still running end (their done functions run), then free. */
void nfs4_cb_free(struct nfs4_cb *cb);

/*
 * nfs4_cb_probe - send CB_NULL to confirmed client @clientid's callback
 * and record the path's state when it ends; returns at once. A callback
 * address that does not parse marks the path down at once.
 */
void nfs4_cb_probe(struct nfs4_cb *cb, clientid4 clientid);

/*
 * The end of a CB_COMPOUND: @st is the RPC outcome; on %RPC_CALL_OK @res
 * holds the decoded results (else NULL; a reply that did not decode
 * is %RPC_CALL_BADREPLY).
 */
typedef void nfs4_cb_done_fn(void *arg, enum rpc_call_status st, const struct nfs4_cb_res *res);

/*
 * nfs4_cb_recall - CB_RECALL of delegation @stateid on file @fh (with
 * @truncate) to confirmed NFSv4.0 client @clientid; returns at once.
 * Return values: 0, and @done runs once later; -1 (no such client, an
 * unusable callback address, memory short), and @done never runs.
 */
int nfs4_cb_recall(struct nfs4_cb *cb, clientid4 clientid, const struct stateid4 *stateid,
		   bool truncate, const nfs_fh4 *fh, nfs4_cb_done_fn *done, void *arg);

/*
 * nfs4_cb_send_on_conn - a CB_COMPOUND of minor version @minor (the
 * session's, nfs4_cb_slot.minor) with the @n
 * operations @ops (CB_SEQUENCE first, then CB_RECALL...) to program
 * @cb_program over the back channel @bc, with @cred (the session's
 * cb_sec_parms; NULL: AUTH_NONE), waiting @timeout_ms for the reply.
 * Return values: 0, and @done runs once on the connection's loop; -1
 * (errno: as rpc_conn_call(), E2BIG for more than NFS4_CB_OPS_MAX
 * operations), and @done never runs.
 */
int nfs4_cb_send_on_conn(struct rpc_backchan *bc, uint32_t cb_program, uint32_t minor,
			 const struct rpc_out_cred *cred, const struct nfs_cb_argop4 *ops,
			 uint32_t n, unsigned int timeout_ms, nfs4_cb_done_fn *done, void *arg);

#endif
