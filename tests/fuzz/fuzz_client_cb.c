/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: a call on libnfsx's NFSv4.1 back channel as
 * nc4_cb_serve() answers it (src/client/cb4.c). The input is one RPC
 * call record without its marker; it is served twice, so that a
 * CB_SEQUENCE that used a slot the first time is answered from the
 * slot's cache the second. Every reply must fit NC4_CB_OUT_MAX and
 * carry its own length in its marker. The session id is 16 bytes of
 * 0x5e; a recall of a stateid whose "other" starts with 0xde is of a
 * delegation held. Seeds: make-client-seeds.py.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "client/nfs4.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct nc4_cb cb;
static uint8_t out[NC4_CB_OUT_MAX];

static enum nfsstat4 on_recall(void *priv, const struct CB_RECALL4args *a)
{
	volatile uint8_t sink = 0;
	uint32_t i;

	(void)priv;
	for (i = 0; i < a->fh.len; i++)
		sink ^= a->fh.data[i];
	(void)sink;
	return a->stateid.other[0] == 0xde ? NFS4_OK : NFS4ERR_BAD_STATEID;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sessionid4 sid;
	int i;

	memset(sid.val, 0x5e, sizeof(sid.val));
	nc4_cb_reset(&cb, &sid);
	for (i = 0; i < 2; i++) {
		size_t n = nc4_cb_serve(&cb, data, size, out, on_recall, NULL);

		if (n > NC4_CB_OUT_MAX || (n && (n < 4 || ((out[0] & 0x7fu) << 24 | out[1] << 16 |
							   out[2] << 8 | out[3]) != n - 4)))
			abort();
	}
	return 0;
}
