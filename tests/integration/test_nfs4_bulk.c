// SPDX-License-Identifier: MIT
/*
 * NFSv4.1 WRITEs received straight into the file (src/nfs4/write_bulk.c):
 * a COMPOUND of SEQUENCE, PUTFH and a large WRITE whose data ends the
 * record, on a memory-backed export. Each call here is sent in two
 * parts, the first 4 KiB, then after a pause the rest, so that nfsxd
 * sees the header with more than 64 KiB still to come (what makes it try
 * the bulk path) whatever the socket's timing.
 * Checked: the file holds the data (read directly), count, committed and
 * the verifier as asked; a replay of the same slot and seqid gets the
 * cached reply and writes nothing again; a bad stateid is BAD_STATEID
 * after SEQUENCE and PUTFH, the file untouched; a read-only export is
 * ROFS; a session whose requests may not be that large answers
 * REQ_TOO_BIG (the bytes still in the socket count); a long tag, a
 * fourth operation, and NFSv4.0 go the ordinary way and work too; a
 * call whose connection closed halfway through its data is as if it
 * never came: sent again whole with the same seqid, it runs as new.
 * The test prints how many WRITEs it expects received into the file;
 * the wrapper compares that with the count nfsxd logs when it stops.
 *
 * Usage: test_nfs4_bulk PORT RW_DIR RO_DIR
 * (run-nfs4-bulk.sh: RW_DIR on tmpfs exported rw,no_root_squash, with
 * an empty file "f" (0666); RO_DIR on tmpfs exported ro, with "g".)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nfs4_raw.h"
#include "rpc_client.h"
#include "../tap.h"

#define BIG (256u * 1024u)

static int fd = -1;
static uint16_t port;
static unsigned int bulk;        /* WRITEs expected received into the file */
static const char *rw_dir;
static uint8_t data[BIG];

/*
 * Send @rec on @f: its first 4 KiB, a pause, then the rest (or only
 * @cut bytes of it, then nothing: a client gone mid-call); the reply
 * into @out.
 * Return values: as v4_compound() (false after a cut).
 */
static bool send_split(int f, const struct rpc_buf *rec, size_t cut, struct v4_res *out)
{
	struct rpc_buf reply;
	size_t first = rec->len < 4096 ? rec->len : 4096;
	size_t last = cut ? cut : rec->len;
	bool good;

	v4_res_free(out);
	if (rpc_send_raw(f, rec->data, first, 5000) < 0)
		return false;
	usleep(100 * 1000);
	if (last > first && rpc_send_raw(f, rec->data + first, last - first, 5000) < 0)
		return false;
	if (cut)
		return false;
	rpc_buf_init(&reply);
	good = rpc_recv_record(f, &reply, 10000, 1u << 20) == 1 && v4_res_take(out, &reply);
	if (!good)
		v4_diag(out);
	rpc_buf_free(&reply);
	return good;
}

/* COMPOUND @ops, sent split, with a fresh xid. */
static bool call_split(int f, const char *tag, uint32_t minor, const struct nfs_argop4 *ops,
		       uint32_t nops, struct v4_res *out)
{
	struct rpc_buf rec;
	bool good;

	rpc_buf_init(&rec);
	good = v4_call_record(&rec, rpc_next_xid(), tag, minor, 0, ops, nops) &&
	       send_split(f, &rec, 0, out);
	rpc_buf_free(&rec);
	return good;
}

/* "f" of RW_DIR as the file system holds it: [@off, @off + @len) equal
 * to @want? */
static bool file_has(const char *name, uint64_t off, const uint8_t *want, uint32_t len)
{
	char path[4096];
	uint8_t *got = malloc(len ? len : 1);
	bool same;
	int f;

	snprintf(path, sizeof(path), "%s/%s", rw_dir, name);
	f = open(path, O_RDONLY);
	same = f >= 0 && got && pread(f, got, len, (off_t)off) == (ssize_t)len &&
	       memcmp(got, want, len) == 0;
	if (f >= 0)
		close(f);
	free(got);
	return same;
}

static void fill(uint8_t seed)
{
	uint32_t i;

	for (i = 0; i < BIG; i++)
		data[i] = (uint8_t)(i * 13 + seed + (i >> 12));
}

/* OPEN @name in @dir for read and write (created when missing). */
static bool open_rw(struct v4_session *s, const struct v4_fh *dir, const char *name,
		    struct v4_fh *fh, struct stateid4 *sid)
{
	struct nfs_argop4 ops[4];
	struct v4_res r;
	bool good;

	v4_res_init(&r);
	v4op_seq_next(&ops[0], s, 0, false);
	v4op_putfh(&ops[1], dir);
	v4op_open(&ops[2], 0, OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_NONE, s->clientid,
		  "bulk-owner", name);
	v4op_simple(&ops[3], OP_GETFH);
	good = v4_call41(fd, ops, 4, &r) && r.status == NFS4_OK && r.nops == 4 &&
	       v4_fh_of_res(&r, 3, fh);
	if (good)
		*sid = r.ops[2].u.opopen.u.resok4.stateid;
	else
		v4_diag(&r);
	v4_res_free(&r);
	return good;
}

static bool write_ok(const struct v4_res *r, uint32_t count, enum stable_how4 committed)
{
	const struct WRITE4res *w;

	if (r->status != NFS4_OK || r->nops != 3) {
		printf("# status %d, %u results\n", (int)r->status, r->nops);
		return false;
	}
	w = &r->ops[2].u.opwrite;
	if (w->u.resok4.count != count || w->u.resok4.committed != committed)
		printf("# WRITE: count %u, committed %d\n", w->u.resok4.count, (int)w->u.resok4.committed);
	return w->status == NFS4_OK && w->u.resok4.count == count &&
	       w->u.resok4.committed == committed;
}

static void test_writes(struct v4_session *s, const struct v4_fh *fh, const struct stateid4 *sid)
{
	struct nfs_argop4 ops[4];
	struct v4_res r;

	v4_res_init(&r);
	fill(1);
	v4op_seq_next(&ops[0], s, 0, false);
	v4op_putfh(&ops[1], fh);
	v4op_write(&ops[2], sid, 0, UNSTABLE4, data, BIG);
	ok(call_split(fd, "t", 1, ops, 3, &r) && write_ok(&r, BIG, UNSTABLE4) &&
	   file_has("f", 0, data, BIG),
	   "SEQUENCE, PUTFH, WRITE 256 KiB UNSTABLE: OK, 256 KiB, the file holds them");
	bulk++;
	fill(2);
	v4op_seq_next(&ops[0], s, 0, false);
	v4op_write(&ops[2], sid, 4096 + 3, FILE_SYNC4, data, BIG - 5);
	ok(call_split(fd, "t", 1, ops, 3, &r) && write_ok(&r, BIG - 5, FILE_SYNC4) &&
	   file_has("f", 4096 + 3, data, BIG - 5),
	   "WRITE of an odd length at an odd offset, FILE_SYNC: committed FILE_SYNC, the bytes");
	bulk++;
	/* past the end: the file grows, nothing to map */
	fill(3);
	v4op_seq_next(&ops[0], s, 0, false);
	v4op_write(&ops[2], sid, 3u * BIG, DATA_SYNC4, data, BIG);
	ok(call_split(fd, "a-tag-of-thirty-two-bytes-length", 1, ops, 3, &r) &&
	   write_ok(&r, BIG, DATA_SYNC4) && file_has("f", 3u * BIG, data, BIG) &&
	   r.tag.len == 32 && memcmp(r.tag.data, "a-tag-of-thirty-two-bytes-length", 32) == 0,
	   "WRITE past the end, DATA_SYNC, a 32-byte tag: the bytes, the tag echoed");
	bulk++;
	/* minor version 2 */
	fill(4);
	v4op_seq_next(&ops[0], s, 0, false);
	v4op_write(&ops[2], sid, 0, UNSTABLE4, data, BIG);
	ok(call_split(fd, "t", 2, ops, 3, &r) && write_ok(&r, BIG, UNSTABLE4) &&
	   file_has("f", 0, data, BIG), "the same in a COMPOUND of minor version 2");
	bulk++;
	v4_res_free(&r);
}

/* The same slot and seqid again: the cached reply, no second write. */
static void test_replay(struct v4_session *s, const struct v4_fh *fh, const struct stateid4 *sid)
{
	struct nfs_argop4 ops[3];
	struct rpc_buf rec;
	struct v4_res r1, r2;
	uint8_t zero[4096] = { 0 };
	char path[4096];
	int f;

	v4_res_init(&r1);
	v4_res_init(&r2);
	rpc_buf_init(&rec);
	fill(5);
	v4op_seq_next(&ops[0], s, 1, true);
	v4op_putfh(&ops[1], fh);
	v4op_write(&ops[2], sid, 0, UNSTABLE4, data, BIG);
	ok(v4_call_record(&rec, rpc_next_xid(), "t", 1, 0, ops, 3) && send_split(fd, &rec, 0, &r1) &&
	   write_ok(&r1, BIG, UNSTABLE4) && file_has("f", 0, data, BIG),
	   "WRITE with sa_cachethis on slot 1: OK, the bytes");
	bulk++;
	/* the file changed meanwhile: a replay must not write it again */
	snprintf(path, sizeof(path), "%s/f", rw_dir);
	f = open(path, O_WRONLY);
	ok(f >= 0 && pwrite(f, zero, sizeof(zero), 0) == (ssize_t)sizeof(zero),
	   "the file's first 4 KiB zeroed on the server");
	if (f >= 0)
		close(f);
	ok(send_split(fd, &rec, 0, &r2) && write_ok(&r2, BIG, UNSTABLE4) &&
	   r2.store.len == r1.store.len && file_has("f", 0, zero, sizeof(zero)) &&
	   file_has("f", 4096, data + 4096, BIG - 4096),
	   "the same call again: the cached reply, nothing written again");
	rpc_buf_free(&rec);
	v4_res_free(&r1);
	v4_res_free(&r2);
}

static void test_errors(struct v4_session *s, const struct v4_fh *fh, const struct stateid4 *sid,
			const struct v4_fh *ro_fh)
{
	struct nfs_argop4 ops[4];
	struct stateid4 bad = *sid;
	struct v4_res r;
	uint8_t before[4096];
	uint32_t w[3], nw;
	char path[4096];
	int f;

	v4_res_init(&r);
	snprintf(path, sizeof(path), "%s/f", rw_dir);
	f = open(path, O_RDONLY);
	if (f < 0 || pread(f, before, sizeof(before), 0) != (ssize_t)sizeof(before))
		memset(before, 0xee, sizeof(before));
	if (f >= 0)
		close(f);
	bad.other[0] ^= 0x5a;
	bad.other[11] ^= 0xa5;
	fill(6);
	v4op_seq_next(&ops[0], s, 0, false);
	v4op_putfh(&ops[1], fh);
	v4op_write(&ops[2], &bad, 0, UNSTABLE4, data, BIG);
	ok(call_split(fd, "t", 1, ops, 3, &r) &&
	   (r.status == NFS4ERR_BAD_STATEID || r.status == NFS4ERR_STALE_STATEID) &&
	   r.nops == 3 && v4_op_status(&r, 0) == NFS4_OK && v4_op_status(&r, 1) == NFS4_OK &&
	   file_has("f", 0, before, sizeof(before)),
	   "a WRITE with an unknown stateid: BAD_STATEID (STALE_STATEID) after SEQUENCE and PUTFH, the file untouched");
	bulk++;
	/* the slot was let go: its next seqid works */
	v4op_seq_next(&ops[0], s, 0, false);
	v4op_simple(&ops[1], OP_PUTROOTFH);
	ok(v4_call41(fd, ops, 2, &r) && r.status == NFS4_OK, "the slot's next seqid: OK");
	v4op_seq_next(&ops[0], s, 0, false);
	v4op_putfh(&ops[1], ro_fh);
	v4op_write(&ops[2], NULL, 0, UNSTABLE4, data, BIG);
	ok(call_split(fd, "t", 1, ops, 3, &r) && r.status == NFS4ERR_ROFS && r.nops == 3,
	   "a WRITE (the anonymous stateid: the ordinary way) on a read-only export: ROFS");
	/* a fourth operation: the ordinary way */
	nw = v4_bits(w, FATTR4_SIZE, -1);
	fill(7);
	v4op_seq_next(&ops[0], s, 0, false);
	v4op_putfh(&ops[1], fh);
	v4op_write(&ops[2], sid, 0, UNSTABLE4, data, BIG);
	v4op_getattr(&ops[3], w, nw);
	ok(call_split(fd, "t", 1, ops, 4, &r) && r.status == NFS4_OK && r.nops == 4 &&
	   r.ops[2].u.opwrite.u.resok4.count == BIG && file_has("f", 0, data, BIG),
	   "SEQUENCE, PUTFH, WRITE, GETATTR: OK, the bytes (received whole)");
	/* a tag too long for the bulk path */
	fill(8);
	v4op_seq_next(&ops[0], s, 0, false);
	ok(call_split(fd, "a-tag-longer-than-sixty-four-bytes-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
		      1, ops, 3, &r) && write_ok(&r, BIG, UNSTABLE4) && r.tag.len == 70 &&
	   file_has("f", 0, data, BIG),
	   "a 70-byte tag: OK, the bytes, the tag echoed (received whole)");
	v4_res_free(&r);
}

/* A session whose fore channel takes requests of 128 KiB: a 256 KiB
 * WRITE is REQ_TOO_BIG, though only 4 KiB of it came first. */
static void test_req_too_big(const struct v4_fh *fh)
{
	struct v4_session s = { 0 };
	struct nfs_argop4 ops[3];
	struct stateid4 sid;
	struct v4_fh f2;
	struct v4_res r;
	int keep = fd;
	long st;

	fd = rpc_connect(port, 5000);
	st = v4_session_open(fd, "bulk-small", 1, 128u * 1024, 1u << 20, 4096, 4, &s);
	ok(st == NFS4_OK && s.fore.ca_maxrequestsize <= 128u * 1024,
	   "a session with requests of 128 KiB at most (%u)", s.fore.ca_maxrequestsize);
	v4_res_init(&r);
	v4op_seq_next(&ops[0], &s, 0, false);
	v4op_reclaim_complete(&ops[1], false);
	ok(v4_call41(fd, ops, 2, &r) && r.status == NFS4_OK, "its RECLAIM_COMPLETE: OK");
	ok(open_rw(&s, fh, "f", &f2, &sid), "its OPEN of f: OK");
	v4op_seq_next(&ops[0], &s, 0, false);
	v4op_putfh(&ops[1], &f2);
	v4op_write(&ops[2], &sid, 0, UNSTABLE4, data, BIG);
	ok(call_split(fd, "t", 1, ops, 3, &r) && r.status == NFS4ERR_REQ_TOO_BIG,
	   "a 256 KiB WRITE in it: REQ_TOO_BIG");
	v4_res_free(&r);
	close(fd);
	fd = keep;
}

/* Gone halfway through the data: the call is as if it never came, and
 * its retransmission, whole on the first connection with the same
 * seqid, runs as new. */
static void test_cut(struct v4_session *s, const struct v4_fh *fh, const struct stateid4 *sid)
{
	struct nfs_argop4 ops[3];
	struct rpc_buf rec;
	struct v4_res r;
	int f2 = rpc_connect(port, 5000);

	v4_res_init(&r);
	rpc_buf_init(&rec);
	fill(9);
	v4op_seq_next(&ops[0], s, 2, false);
	v4op_putfh(&ops[1], fh);
	v4op_write(&ops[2], sid, 0, UNSTABLE4, data, BIG);
	ok(f2 >= 0 && v4_call_record(&rec, rpc_next_xid(), "t", 1, 0, ops, 3) &&
	   !send_split(f2, &rec, rec.len / 2, &r),
	   "half of a WRITE's data sent on a second connection");
	bulk++;
	usleep(100 * 1000);
	if (f2 >= 0)
		close(f2);
	usleep(200 * 1000);
	ok(send_split(fd, &rec, 0, &r) && write_ok(&r, BIG, UNSTABLE4) &&
	   file_has("f", 0, data, BIG),
	   "that connection closed, the same call whole on the first: OK as new, the bytes");
	bulk++;
	v4op_seq_next(&ops[0], s, 2, false);
	v4op_simple(&ops[1], OP_PUTROOTFH);
	ok(v4_call41(fd, ops, 2, &r) && r.status == NFS4_OK, "the slot's next seqid: OK");
	rpc_buf_free(&rec);
	v4_res_free(&r);
}

/* NFSv4.0 goes the ordinary way. */
static void test_v40(const struct v4_fh *fh)
{
	struct nfs_argop4 ops[3];
	struct v4_res r;

	v4_res_init(&r);
	fill(10);
	v4op_putfh(&ops[0], fh);
	v4op_write(&ops[1], NULL, 8192, UNSTABLE4, data, BIG);
	ok(call_split(fd, "t", 0, ops, 2, &r) && r.status == NFS4_OK &&
	   r.ops[1].u.opwrite.u.resok4.count == BIG && file_has("f", 8192, data, BIG),
	   "NFSv4.0 PUTFH, WRITE 256 KiB (the anonymous stateid): OK, the bytes");
	v4_res_free(&r);
}

int main(int argc, char **argv)
{
	struct v4_session s = { 0 };
	struct v4_fh dir = { 0 }, ro_dir = { 0 }, fh, ro_fh;
	struct stateid4 sid, ro_sid;
	struct nfs_argop4 ops[4];
	struct v4_res r;

	if (argc != 4) {
		fprintf(stderr, "usage: %s PORT RW_DIR RO_DIR\n", argv[0]);
		return 2;
	}
	port = (uint16_t)atoi(argv[1]);
	rw_dir = argv[2];
	fd = rpc_connect(port, 5000);
	if (fd < 0 || v4_walk(fd, argv[2], &dir) != NFS4_OK ||
	    v4_walk(fd, argv[3], &ro_dir) != NFS4_OK) {
		printf("Bail out! no handle of the exports on port %s\n", argv[1]);
		return 1;
	}
	ok(v4_session_open(fd, "bulk-a", 1, 1u << 20, 1u << 20, 1u << 20, 4, &s) == NFS4_OK,
	   "EXCHANGE_ID, CREATE_SESSION: OK");
	v4_res_init(&r);
	v4op_seq_next(&ops[0], &s, 0, false);
	v4op_reclaim_complete(&ops[1], false);
	ok(v4_call41(fd, ops, 2, &r) && r.status == NFS4_OK, "RECLAIM_COMPLETE: OK");
	v4_res_free(&r);
	if (!open_rw(&s, &dir, "f", &fh, &sid)) {
		printf("Bail out! no OPEN of f\n");
		return 1;
	}
	/* the read-only export's file: a handle only */
	v4_res_init(&r);
	v4op_seq_next(&ops[0], &s, 0, false);
	v4op_putfh(&ops[1], &ro_dir);
	v4op_lookup(&ops[2], "g");
	v4op_simple(&ops[3], OP_GETFH);
	ok(v4_call41(fd, ops, 4, &r) && r.status == NFS4_OK && v4_fh_of_res(&r, 3, &ro_fh),
	   "LOOKUP g on the read-only export: OK");
	v4_res_free(&r);
	(void)ro_sid;
	test_writes(&s, &fh, &sid);
	test_replay(&s, &fh, &sid);
	test_errors(&s, &fh, &sid, &ro_fh);
	test_req_too_big(&dir);
	test_cut(&s, &fh, &sid);
	test_v40(&fh);
	printf("# writes received into the file: %u\n", bulk);
	close(fd);
	return tap_done();
}
