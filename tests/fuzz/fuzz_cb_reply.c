/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: what a client sends back to the server's callbacks.
 * The first byte picks what the rest is:
 *   0  a byte stream on a callout connection (rpc/callout.c): record
 *      marking bounded as there (the second byte picks the bound), each
 *      REPLY record to a table of one call (xid 1), its results, if
 *      the call ended well, through the CB_COMPOUND result decoder
 *      (nfs4/cb_msg.c) as a CB_RECALL's, or CB_SEQUENCE + CB_RECALL's;
 *   1  one reply record, its header through rpc_decode_reply and its
 *      results through the CB_COMPOUND decoder for 1 to 4 operations;
 *   2  a netid and universal address (NUL between them) through
 *      nfs4_cb_addr_parse, whose result must be of the netid's family.
 * Nothing may read outside its input, allocate from it, or accept a
 * result that lies outside the record.
 */
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "nfs4/cb_msg.h"
#include "rpc/callmsg.h"
#include "rpc/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint32_t recall[] = { OP_CB_RECALL };
static const uint32_t seq_recall[] = { OP_CB_SEQUENCE, OP_CB_RECALL, OP_CB_RECALL,
				       OP_CB_GETATTR };
static const uint8_t *cur_rec;
static size_t cur_len;

static void check_res(const uint8_t *res, size_t len)
{
	struct nfs4_cb_res out;
	uint32_t n;

	if (res < cur_rec || res + len > cur_rec + cur_len)
		abort();
	nfs4_cb_dec_compound_res(res, len, recall, 1, &out);
	for (n = 1; n <= 4; n++)
		if (nfs4_cb_dec_compound_res(res, len, seq_recall, n, &out) && out.nops > n)
			abort();
}

static void done(void *arg, enum rpc_call_status st, const uint8_t *res, size_t len)
{
	if (st == RPC_CALL_OK)
		check_res(res, len);
	else if (res || len)
		abort();
	(void)arg;
}

static void stream(const uint8_t *data, size_t size)
{
	struct rpc_pending p;
	struct rpc_pcall *pc;
	struct rpc_record r;
	uint8_t *buf;
	size_t off, len, max;
	int st;

	if (size < 1)
		return;
	max = 32u + (size_t)data[0] * 16u;
	data++;
	size--;
	buf = malloc(size ? size : 1);
	memcpy(buf, data, size);
	rpc_pending_init(&p, 1);
	pc = calloc(1, sizeof(*pc));
	pc->xid = 1;
	pc->max_reply = max;
	pc->done = done;
	rpc_pending_add(&p, pc);
	rpc_record_init(&r, (uint32_t)max);
	while ((st = rpc_record_parse(&r, buf, size, &off, &len)) == RPC_RECORD_DONE) {
		if (off + len > size || len > max)
			abort();
		cur_rec = buf + off;
		cur_len = len;
		if (rpc_record_is_reply(buf + off, len))
			rpc_pending_reply(&p, buf + off, len);
		rpc_record_consumed(&r);
	}
	rpc_pending_fail_all(&p, RPC_CALL_CLOSED);
	free(buf);
}

static void one_reply(const uint8_t *data, size_t size)
{
	uint8_t *rec = malloc(size ? size : 1);
	const uint8_t *res;
	size_t res_len;
	uint32_t xid;

	memcpy(rec, data, size);
	cur_rec = rec;
	cur_len = size;
	if (rpc_decode_reply(rec, size, &xid, &res, &res_len) == RPC_CALL_OK)
		check_res(res, res_len);
	else if (res || res_len)
		abort();
	free(rec);
}

static void addr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 2);
	struct sockaddr_storage ss;
	const char *uaddr;
	socklen_t sl;

	memcpy(s, data, size);
	s[size] = s[size + 1] = '\0';
	uaddr = s + strlen(s) + 1;
	if (uaddr > s + size)
		uaddr = s + size + 1;
	if (nfs4_cb_addr_parse(s, uaddr, &ss, &sl) == 0) {
		if (strcmp(s, "tcp") == 0 ? ss.ss_family != AF_INET || sl != sizeof(struct sockaddr_in) :
		    strcmp(s, "tcp6") == 0 ? ss.ss_family != AF_INET6 ||
					     sl != sizeof(struct sockaddr_in6) : 1)
			abort();
		if (ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port == 0 :
		    ((struct sockaddr_in6 *)&ss)->sin6_port == 0)
			abort();
	}
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	switch (data[0] % 3) {
	case 0:
		stream(data + 1, size - 1);
		break;
	case 1:
		one_reply(data + 1, size - 1);
		break;
	default:
		addr(data + 1, size - 1);
		break;
	}
	return 0;
}
