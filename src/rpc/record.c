/* SPDX-License-Identifier: MIT */
/* TCP record marking reassembly: see record.h. */
#include "rpc/record.h"

#include <string.h>

#include "xdr/xdr.h"

void rpc_record_init(struct rpc_record *r, uint32_t max)
{
	memset(r, 0, sizeof(*r));
	r->max = max;
}

int rpc_record_parse(struct rpc_record *r, uint8_t *buf, size_t len,
		     size_t *off, size_t *rec_len)
{
	for (;;) {
		if (!r->in_frag) {
			uint32_t mark, flen;

			if (len - r->rd < 4)
				return RPC_RECORD_MORE;
			mark = xdr__get32(buf + r->rd);
			r->rd += 4;
			flen = mark & RPC_RM_LEN;
			if (!r->started) {
				r->started = 1;
				r->rec_start = r->wr = r->rd;
			}
			/* Checked before a byte of it is buffered. */
			if (flen > r->max ||
			    flen > r->max - (r->wr - r->rec_start))
				return RPC_RECORD_TOOBIG;
			r->frag_left = flen;
			r->last = (mark & RPC_RM_LAST) != 0;
			r->in_frag = 1;
		}
		if (r->frag_left) {
			size_t n = len - r->rd;

			if (n == 0)
				return RPC_RECORD_MORE;
			if (n > r->frag_left)
				n = r->frag_left;
			if (r->wr != r->rd)
				memmove(buf + r->wr, buf + r->rd, n);
			r->wr += n;
			r->rd += n;
			r->frag_left -= (uint32_t)n;
			if (r->frag_left)
				return RPC_RECORD_MORE;
		}
		r->in_frag = 0;
		if (r->last) {
			*off = r->rec_start;
			*rec_len = r->wr - r->rec_start;
			return RPC_RECORD_DONE;
		}
	}
}

void rpc_record_consumed(struct rpc_record *r)
{
	r->started = 0;
	r->last = 0;
	r->rec_start = r->wr = r->rd;
}

void rpc_record_shift(struct rpc_record *r, size_t n)
{
	r->rd -= n;
	r->wr -= n;
	r->rec_start -= n;
}

void rpc_record_restart(struct rpc_record *r, size_t at)
{
	r->started = 0;
	r->last = 0;
	r->in_frag = 0;
	r->frag_left = 0;
	r->rd = r->wr = r->rec_start = at;
}
