/* SPDX-License-Identifier: MIT */
/*
 * nfsx4_read_plus_fill without a server: READ_PLUS contents put into the
 * caller's buffer (data at its place, holes as zeros over what the
 * buffer held), the hole bytes counted, a first hole that starts before
 * the range and a last one that runs past it cut to the range, and the
 * lists a server must not send refused with -EPROTO (a gap, an overlap,
 * data past the range, a hole whose end wraps, an unknown content); a
 * status other than NFS4_OK returned as it is.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client/nfs4.h"
#include "tap.h"

static struct read_plus_content seg[8];
static struct READ_PLUS4res res;
static uint8_t buf[16384], want[16384];

static void start(bool eof)
{
	memset(&res, 0, sizeof(res));
	memset(seg, 0, sizeof(seg));
	res.rp_status = NFS4_OK;
	res.u.rp_resok4.rpr_eof = eof;
	res.u.rp_resok4.rpr_contents.val = seg;
	memset(buf, 0x5a, sizeof(buf));
}

static void data(uint64_t off, const void *p, uint32_t len)
{
	struct read_plus_content *c = &seg[res.u.rp_resok4.rpr_contents.len++];

	c->rpc_content = NFS4_CONTENT_DATA;
	c->u.rpc_data.d_offset = off;
	c->u.rpc_data.d_data.data = p;
	c->u.rpc_data.d_data.len = len;
}

static void hole(uint64_t off, uint64_t len)
{
	struct read_plus_content *c = &seg[res.u.rp_resok4.rpr_contents.len++];

	c->rpc_content = NFS4_CONTENT_HOLE;
	c->u.rpc_hole.di_offset = off;
	c->u.rpc_hole.di_length = len;
}

int main(void)
{
	static uint8_t a[100], b[100];
	struct nfsx4_read_plus_out o;
	int r;

	for (unsigned i = 0; i < sizeof(a); i++) {
		a[i] = (uint8_t)(i * 7 + 1);
		b[i] = (uint8_t)(255 - i);
	}

	/* data, hole, data: the file's bytes, holes as zeros */
	start(true);
	data(1000, a, 100);
	hole(1100, 8092);
	data(9192, b, 100);
	r = nfsx4_read_plus_fill(&res, 1000, 8292, buf, &o);
	memset(want, 0, sizeof(want));
	memcpy(want, a, 100);
	memcpy(want + 8192, b, 100);
	ok(r == 0 && o.count == 8292 && o.hole_bytes == 8092 && o.segments == 3 && o.eof &&
	   memcmp(buf, want, 8292) == 0 && buf[8292] == 0x5a,
	   "data, hole, data: the bytes, 8092 hole bytes as zeros, nothing past (r %d, count %u, "
	   "holes %u)", r, o.count, o.hole_bytes);

	/* the same without a buffer: checked and counted, nothing written */
	{
		struct nfsx4_read_plus_out o2;

		memset(buf, 0x5a, 8293);
		r = nfsx4_read_plus_fill(&res, 1000, 8292, NULL, &o2);
		ok(r == 0 && o2.count == 8292 && o2.hole_bytes == 8092 && o2.segments == 3 &&
		   o2.eof && buf[0] == 0x5a && buf[8292] == 0x5a,
		   "the same with no buffer: the same counts, nothing written (r %d)", r);
		res.u.rp_resok4.rpr_contents.val[1].u.rpc_hole.di_offset = 1101;
		r = nfsx4_read_plus_fill(&res, 1000, 8292, NULL, &o2);
		ok(r == -EPROTO, "with no buffer, a gap still -EPROTO (r %d)", r);
	}

	/* a hole as the server found it: from before the range to past it */
	start(false);
	hole(0, 1u << 20);
	r = nfsx4_read_plus_fill(&res, 4096, 4096, buf, &o);
	memset(want, 0, 4096);
	ok(r == 0 && o.count == 4096 && o.hole_bytes == 4096 && !o.eof &&
	   memcmp(buf, want, 4096) == 0 && buf[4096] == 0x5a,
	   "a hole over the whole range is cut to it: 4096 zeros (r %d, count %u, holes %u)", r,
	   o.count, o.hole_bytes);

	/* a short answer: data then nothing, eof */
	start(true);
	data(0, a, 10);
	r = nfsx4_read_plus_fill(&res, 0, 4096, buf, &o);
	ok(r == 0 && o.count == 10 && o.hole_bytes == 0 && o.eof && memcmp(buf, a, 10) == 0 &&
	   buf[10] == 0x5a, "data short of the range, eof: count 10 (%u)", o.count);

	start(true);
	r = nfsx4_read_plus_fill(&res, 0, 4096, buf, &o);
	ok(r == 0 && o.count == 0 && o.segments == 0 && o.eof, "no contents at eof: count 0");

	/* what a server must not send */
	start(false);
	data(0, a, 10);
	data(20, b, 10);
	ok(nfsx4_read_plus_fill(&res, 0, 4096, buf, &o) == -EPROTO, "a gap between data: -EPROTO");
	start(false);
	data(0, a, 10);
	data(5, b, 10);
	ok(nfsx4_read_plus_fill(&res, 0, 4096, buf, &o) == -EPROTO, "overlapping data: -EPROTO");
	start(false);
	data(0, a, 100);
	hole(50, 100);
	ok(nfsx4_read_plus_fill(&res, 0, 4096, buf, &o) == -EPROTO,
	   "a hole that starts inside the data before it: -EPROTO");
	start(false);
	data(4090, a, 10);
	ok(nfsx4_read_plus_fill(&res, 4090, 6, buf, &o) == -EPROTO,
	   "data past the range asked: -EPROTO");
	start(false);
	data(8, a, 10);
	ok(nfsx4_read_plus_fill(&res, 0, 4096, buf, &o) == -EPROTO,
	   "data that starts after the offset asked: -EPROTO");
	start(false);
	hole(100, UINT64_MAX - 10);
	ok(nfsx4_read_plus_fill(&res, 100, 4096, buf, &o) == -EPROTO, "a hole whose end wraps: -EPROTO");
	start(false);
	hole(100, 0);
	ok(nfsx4_read_plus_fill(&res, 100, 4096, buf, &o) == -EPROTO, "an empty hole: -EPROTO");
	start(false);
	hole(0, 100);
	hole(100, 100);
	data(200, a, 10);
	r = nfsx4_read_plus_fill(&res, 0, 4096, buf, &o);
	ok(r == 0 && o.count == 210 && o.hole_bytes == 200, "two holes in a row, then data: fine");
	start(false);
	data(0, a, 10);
	seg[0].rpc_content = (enum data_content4)7;
	ok(nfsx4_read_plus_fill(&res, 0, 4096, buf, &o) == -EPROTO, "an unknown content: -EPROTO");

	/* the server's status */
	start(false);
	res.rp_status = NFS4ERR_NOTSUPP;
	r = nfsx4_read_plus_fill(&res, 0, 4096, buf, &o);
	ok(r == NFS4ERR_NOTSUPP && o.count == 0 && buf[0] == 0x5a,
	   "NFS4ERR_NOTSUPP is returned, the buffer untouched (%d)", r);
	return tap_done();
}
