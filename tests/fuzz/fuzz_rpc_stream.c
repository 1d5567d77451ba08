/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: a TCP byte stream as nfsxd receives it. The input
 * goes through record marking in chunks whose sizes come from the
 * input itself (so every split point is reached), and every record
 * through the whole call path: RPC header, credentials, program /
 * version / procedure dispatch, the duplicate request cache and the
 * argument decoders of every registered program (NFS 3 and 4, MOUNT,
 * rpcbind), NFSv4 COMPOUNDs run operation by operation.
 * The reply must always be well formed: a reply header for the xid,
 * and an accepted one carries the verifier its call's check chose. A
 * credential flavour of the target's own (FUZZ_FLAVOR) goes the way
 * RPCSEC_GSS will (struct rpc_flavor): its check sets a reply verifier
 * of up to 401 bytes taken from the credential, so accepted replies of
 * every verifier size, DRC replays among them, are checked too.
 * A record whose message type is REPLY goes where a server connection
 * sends it (the back channel, rpc/backchan.h): to a table of calls of
 * the server's waiting for replies (four per input, xids 1 to 4), never
 * to dispatch; a reply's results must lie inside its record.
 * The NFS procedures run against a small export made in a temporary
 * directory (a file, a subdirectory, a symlink), so that handles the
 * fuzzer finds lead to real file system calls.
 */
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "nfs3/nfs3.h"
#include "nfs4/clients.h"
#include "nfs4/nfs4.h"
#include "server/programs.h"
#include "rpc/callmsg.h"
#include "rpc/drc.h"
#include "rpc/program.h"
#include "rpc/record.h"
#include "rpc/req.h"
#include "rpcbind/map.h"
#include "rpcbind/service.h"

#define MAX_RECORD (64u << 10)
/* Credential body: a 2-byte verifier length (mod 402: 401 is refused by
 * rpc_req_set_verf), then bytes repeated to fill the verifier. */
#define FUZZ_FLAVOR 0x7e570001u

static struct rpc_registry reg;
static struct rpc_drc *drc;
static struct rpc_req req;
static struct sockaddr_storage peer;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[] = "/tmp/nfsx-fuzz-XXXXXX";

/* Leave no temporary export behind when libFuzzer exits. */
static void remove_export(void)
{
	static const char *const paths[] = {
		"export/file", "export/link", "export/sub", "export",
		"state/fh.key", "state", "",
	};
	char p[256];
	unsigned int i;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, paths[i]);
		if (remove(p) < 0)
			continue;
	}
}

static void make_export(void)
{
	char p[256], err[256];
	struct nfsx_exports *ex;
	FILE *f;

	if (!mkdtemp(dir))
		abort();
	atexit(remove_export);
	snprintf(p, sizeof(p), "%s/export", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/export/file", dir);
	f = fopen(p, "w");
	if (f) {
		fputs("some data", f);
		fclose(f);
	}
	snprintf(p, sizeof(p), "%s/export/sub", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/export/link", dir);
	if (symlink("file", p) < 0)
		abort();
	ex = exports_new();
	snprintf(p, sizeof(p), "%s/export:rw,insecure,no_root_squash", dir);
	if (!ex || exports_add_quick(ex, p, err, sizeof(err)) < 0)
		abort();
	snprintf(p, sizeof(p), "%s/state", dir);
	mkdir(p, 0700);
	if (nfs3_init(ex, p, err, sizeof(err)) < 0)
		abort();
	/* the client records of SETCLIENTID: one table for the whole run,
	 * bounded and expiring as the server's (no restart record) */
	if (nfs4_init(NFS4_LEASE_TIME, NULL, err, sizeof(err)) < 0)
		abort();
}

static enum rpc_auth_stat fuzz_check(struct rpc_req *r)
{
	const struct xdr_bytes *b = &r->call.raw_cred.body;
	uint8_t verf[RPC_AUTH_MAX + 1];
	uint32_t len, i;

	if (b->len < 3)
		return RPC_AUTH_BADCRED;
	len = ((uint32_t)b->data[0] << 8 | b->data[1]) % (RPC_AUTH_MAX + 2);
	for (i = 0; i < len; i++)
		verf[i] = b->data[2 + i % (b->len - 2)];
	if (rpc_req_set_verf(r, FUZZ_FLAVOR, verf, len) < 0)
		return len > RPC_AUTH_MAX ? RPC_AUTH_TOOWEAK : RPC_AUTH_BADCRED;
	return RPC_AUTH_OK;
}

static const struct rpc_flavor fuzz_flavor = { FUZZ_FLAVOR, fuzz_check };

static void setup(void)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)&peer;

	make_export();

	if (server_programs_add(&reg) < 0 ||
	    rpc_registry_add_flavor(&reg, &fuzz_flavor) < 0)
		abort();
	rpc_registry_add(&reg, &rpcb_program);
	drc = rpc_drc_create(1u << 20);
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin->sin_port = htons(700);
	req.rec = req.rec_inline;
	req.reply = req.reply_inline;
	req.reply_cap = sizeof(req.reply_inline);
}

static const uint8_t *reply_rec;
static size_t reply_len;

/* A call of ours ended: its results, if any, lie inside the record. */
static void reply_done(void *arg, enum rpc_call_status st, const uint8_t *res, size_t len)
{
	if (st == RPC_CALL_OK ? (res < reply_rec || res + len > reply_rec + reply_len) :
				(res || len))
		abort();
	(void)arg;
}

static void run_reply(struct rpc_pending *p, const uint8_t *rec, size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);

	memcpy(copy, rec, len);
	reply_rec = copy;
	reply_len = len;
	rpc_pending_reply(p, copy, len);
	free(copy);
}

static void run_record(const uint8_t *rec, size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);
	uint32_t xid;

	/* An exact-size heap copy: ASan catches any read past the record. */
	memcpy(copy, rec, len);
	req.rec = copy;
	req.rec_len = len;
	rpc_req_reset(&req);
	req.peer = &peer;
	req.conn = NULL;
	if (rpc_dispatch(&reg, drc, &req)) {
		/* Every reply starts with the call's xid and REPLY. */
		if (xdr_enc_len(&req.enc) < 12)
			abort();
		xid = xdr__get32(req.enc.start);
		if (len < 4 || xid != xdr__get32(copy) ||
		    xdr__get32(req.enc.start + 4) != RPC_MSG_REPLY)
			abort();
		/* Accepted: the verifier chosen, whole, before the stat. */
		if (xdr__get32(req.enc.start + 8) == RPC_REPLY_ACCEPTED &&
		    (xdr_enc_len(&req.enc) < rpc_req_hdr_len(&req) ||
		     xdr__get32(req.enc.start + 12) != req.verf.flavor ||
		     xdr__get32(req.enc.start + 16) != req.verf.len ||
		     (req.verf.len &&
		      memcmp(req.enc.start + 20, req.verf.body, req.verf.len))))
			abort();
	}
	req.rec = req.rec_inline; /* copy is ours, not the request's */
	rpc_req_release(&req);
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rpc_record r;
	struct rpc_pending calls;
	uint8_t *buf;
	size_t have = 0, pos, off, len, step;
	uint32_t x;

	if (!reg.n)
		setup();
	if (size < 1)
		return 0;
	step = (size_t)data[0] % 64 + 1;
	data++;
	size--;
	buf = malloc(size ? size : 1);
	rpc_record_init(&r, MAX_RECORD);
	rpc_pending_init(&calls, 4);
	for (x = 1; x <= 4; x++) {
		struct rpc_pcall *pc = calloc(1, sizeof(*pc));

		pc->xid = x;
		pc->deadline_ns = x;
		pc->max_reply = x * 64;
		pc->done = reply_done;
		rpc_pending_add(&calls, pc);
	}
	for (pos = 0; pos < size;) {
		size_t n = size - pos < step ? size - pos : step;
		int st;

		memcpy(buf + have, data + pos, n);
		have += n;
		pos += n;
		while ((st = rpc_record_parse(&r, buf, have, &off, &len)) ==
		       RPC_RECORD_DONE) {
			if (off + len > have)
				abort();
			if (rpc_record_is_reply(buf + off, len))
				run_reply(&calls, buf + off, len);
			else
				run_record(buf + off, len);
			rpc_record_consumed(&r);
		}
		if (st == RPC_RECORD_TOOBIG)
			break;
		/* Compact as the connection code does. */
		off = rpc_record_dead(&r);
		memmove(buf, buf + off, have - off);
		have -= off;
		rpc_record_shift(&r, off);
	}
	free(buf);
	rpc_pending_expire(&calls, 2);
	rpc_pending_fail_all(&calls, RPC_CALL_CLOSED);
	rpcb_map_clear();
	return 0;
}
