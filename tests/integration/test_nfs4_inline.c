// SPDX-License-Identifier: MIT
/*
 * NFSv4.1 COMPOUNDs run on nfsxd's event loop (compound.c, inline_plan):
 * SEQUENCE + PUTFH + READ, GETATTR, GETFH, SAVEFH and RESTOREFH on a
 * memory-backed export are answered there, and NFSv4.2's READ_PLUS as
 * READ; OPEN, a READ larger than
 * the loop takes, a READ with the anonymous stateid and a READ of a file
 * on a disk go to a worker, and since nothing of theirs ran on the loop
 * (not even SEQUENCE) each is answered as new on its slot with the
 * seqid it was sent with, and the next seqid on that slot works.
 * A WRITE of 4 KiB by a 4.1 client runs on the loop too while no
 * delegation exists; one with the anonymous stateid goes to a worker.
 * While another 4.1 client (B, with a back channel) holds a write
 * delegation of a file in W_DIR, a READ of any file goes to a worker
 * (where a conflicting one would recall it) and works; once B returns
 * it, the loop takes READs again.
 * A READ of 64 KiB or more of a file on tmpfs, and a READ_PLUS's data
 * segment as large, is sent from the file's mapping (io_ops.c,
 * nfs4_map_range), on the loop or on a worker; a second
 * one in the same COMPOUND, a shorter one and one of a file on a disk
 * are read into the reply: the bytes are the file's either way.
 * A READ_PLUS counts only the file's allocated bytes against the loop's
 * limit: 1 MiB of a file all hole, or of 8 KiB of data and a hole, runs
 * on the loop, as the handle RESTOREFH makes current says. On a disk, a
 * READ_PLUS runs on the loop only where the file's remembered hole map
 * says its range is all hole: the first of a file all hole goes to a
 * worker (which maps it), the second runs on the loop; a file with data
 * stays a worker's.
 * The test prints how many COMPOUNDs it expects on the loop and on
 * workers and how many READs from a mapping; the wrapper compares them
 * with the counts nfsxd logs when it stops.
 *
 * Usage: test_nfs4_inline PORT MEM_DIR DISK_DIR|- W_DIR
 * (run-nfs4-inline.sh: MEM_DIR on tmpfs and DISK_DIR, when there is a
 * disk, exported read-only to 127.0.0.1; each holds a file "f" of
 * FILE_LEN bytes, byte i being i * 7 % 251. W_DIR, on tmpfs, exported
 * rw,no_root_squash, holds "w", mode 0666.)
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nfs4_raw.h"
#include "rpc_client.h"
#include "../tap.h"

#define FILE_LEN 262144u

static int fd = -1;
static unsigned int on_loop;     /* COMPOUNDs this test expects on the loop */
static unsigned int on_worker;   /* and on workers */
static unsigned int mapped;      /* READ/READ_PLUS data it expects sent from a mapping */
static int fd_b = -1;            /* client B's connection */
static uint16_t port_of_a;

static bool data_ok(const struct xdr_bytes *b, uint64_t off, uint32_t len)
{
	uint32_t i;

	if (b->len != len)
		return false;
	for (i = 0; i < len; i++)
		if (b->data[i] != (uint8_t)((off + i) * 7 % 251))
			return false;
	return true;
}

/* SEQUENCE on slot 0, PUTFH @fh, READ @off/@count with @sid (NULL: the
 * anonymous stateid): OK, with the file's bytes and eof. */
static bool read_ok(struct v4_session *s, const struct v4_fh *fh, const struct stateid4 *sid,
		    uint64_t off, uint32_t count, const char *what)
{
	struct nfs_argop4 ops[3];
	uint32_t len = off + count > FILE_LEN ? (uint32_t)(FILE_LEN - off) : count;
	struct v4_res r;
	bool good;

	v4_res_init(&r);
	v4op_seq_next(&ops[0], s, 0, false);
	v4op_putfh(&ops[1], fh);
	v4op_read(&ops[2], sid, off, count);
	good = v4_call41(fd, ops, 3, &r) && r.status == NFS4_OK && r.nops == 3 &&
	       data_ok(&r.ops[2].u.opread.u.resok4.data, off, len) &&
	       r.ops[2].u.opread.u.resok4.eof == (off + count >= FILE_LEN);
	ok(good, "%s: OK, the file's bytes, eof as it is", what);
	if (!good)
		v4_diag(&r);
	v4_res_free(&r);
	return good;
}

/* As read_ok() with READ_PLUS in a COMPOUND of minor version 2: one
 * data segment (the file is dense) with the file's bytes, eof as it is. */
static bool read_plus_ok(struct v4_session *s, const struct v4_fh *fh, const struct stateid4 *sid,
			 uint64_t off, uint32_t count, const char *what)
{
	const struct read_plus_res4 *k;
	struct nfs_argop4 ops[3];
	uint32_t len = off + count > FILE_LEN ? (uint32_t)(FILE_LEN - off) : count;
	struct v4_res r;
	bool good;

	v4_res_init(&r);
	v4op_seq_next(&ops[0], s, 0, false);
	v4op_putfh(&ops[1], fh);
	v4op_read_plus(&ops[2], sid, off, count);
	good = v4_compound(fd, 0, 0, "t", 1, 2, ops, 3, &r) && r.status == NFS4_OK && r.nops == 3;
	k = good ? &r.ops[2].u.opread_plus.u.rp_resok4 : NULL;
	good = good && k->rpr_contents.len == 1 &&
	       k->rpr_contents.val[0].rpc_content == NFS4_CONTENT_DATA &&
	       k->rpr_contents.val[0].u.rpc_data.d_offset == off &&
	       data_ok(&k->rpr_contents.val[0].u.rpc_data.d_data, off, len) &&
	       k->rpr_eof == (off + count >= FILE_LEN);
	ok(good, "%s: OK, one data segment of the file's bytes, eof as it is", what);
	if (!good)
		v4_diag(&r);
	v4_res_free(&r);
	return good;
}

/* Two READs of 64 KiB in one COMPOUND: the first is sent from the
 * mapping, the second (one range per reply) read into the reply. */
static void test_two_reads(struct v4_session *s, const struct v4_fh *fh,
			   const struct stateid4 *sid)
{
	struct nfs_argop4 ops[4];
	struct v4_res r;
	bool good;

	v4_res_init(&r);
	v4op_seq_next(&ops[0], s, 0, false);
	v4op_putfh(&ops[1], fh);
	v4op_read(&ops[2], sid, 4096, 65536);
	v4op_read(&ops[3], sid, 131072 + 3, 65536);
	good = v4_call41(fd, ops, 4, &r) && r.status == NFS4_OK && r.nops == 4 &&
	       data_ok(&r.ops[2].u.opread.u.resok4.data, 4096, 65536) &&
	       !r.ops[2].u.opread.u.resok4.eof &&
	       data_ok(&r.ops[3].u.opread.u.resok4.data, 131072 + 3, 65536) &&
	       !r.ops[3].u.opread.u.resok4.eof;
	ok(good, "SEQUENCE, PUTFH, READ 64 KiB, READ 64 KiB: both the file's bytes, in order");
	if (!good)
		v4_diag(&r);
	v4_res_free(&r);
}

/*
 * A's WRITEs of "w" in @w_dir (@w_path on the server), no delegation
 * existing: one of 4 KiB on the loop, its bytes in the file; one with
 * the anonymous stateid on a worker (it waits for grace's end).
 */
static void test_writes(struct v4_session *s, const struct v4_fh *w_dir, const char *w_path)
{
	struct nfs_argop4 ops[4];
	struct stateid4 sid;
	struct v4_fh fh;
	struct v4_res r;
	uint8_t buf[4096], back[4096];
	uint32_t i;
	bool good;
	int f;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 31 + 7);
	v4_res_init(&r);
	v4op_seq_next(&ops[0], s, 0, false);
	v4op_putfh(&ops[1], w_dir);
	v4op_open(&ops[2], 0, OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_NONE, s->clientid,
		  "owner-w", "w");
	v4op_simple(&ops[3], OP_GETFH);
	good = v4_call41(fd, ops, 4, &r) && r.status == NFS4_OK && r.nops == 4 &&
	       v4_fh_of_res(&r, 3, &fh);
	if (good)
		sid = r.ops[2].u.opopen.u.resok4.stateid;
	ok(good, "SEQUENCE, PUTFH, OPEN w for writing, GETFH (a worker's): OK");
	on_worker++;
	if (!good) {
		v4_res_free(&r);
		return;
	}
	v4op_seq_next(&ops[0], s, 0, false);
	v4op_putfh(&ops[1], &fh);
	v4op_write(&ops[2], &sid, 10, UNSTABLE4, buf, sizeof(buf));
	f = open(w_path, O_RDONLY);
	good = v4_call41(fd, ops, 3, &r) && r.status == NFS4_OK && r.nops == 3 &&
	       r.ops[2].u.opwrite.u.resok4.count == sizeof(buf) && f >= 0 &&
	       pread(f, back, sizeof(back), 10) == (ssize_t)sizeof(back) &&
	       memcmp(back, buf, sizeof(buf)) == 0;
	ok(good, "SEQUENCE, PUTFH, WRITE 4096 (on the loop): OK, the bytes in the file");
	on_loop++;
	v4op_seq_next(&ops[0], s, 0, false);
	v4op_write(&ops[2], NULL, 8192, UNSTABLE4, buf, sizeof(buf));
	ok(v4_call41(fd, ops, 3, &r) && r.status == NFS4_OK && r.nops == 3 &&
	   f >= 0 && pread(f, back, sizeof(back), 8192) == (ssize_t)sizeof(back) &&
	   memcmp(back, buf, sizeof(buf)) == 0,
	   "SEQUENCE, PUTFH, WRITE with the anonymous stateid (a worker's): OK, the bytes");
	on_worker++;
	if (f >= 0)
		close(f);
	v4_res_free(&r);
}

/* OPEN "f" in @dir for reading: its handle and stateid. */
static bool open_name(struct v4_session *s, const struct v4_fh *dir, const char *owner,
		      const char *name, struct v4_fh *fh, struct stateid4 *sid)
{
	struct nfs_argop4 ops[4];
	struct v4_res r;
	bool good;

	v4_res_init(&r);
	v4op_seq_next(&ops[0], s, 0, false);
	v4op_putfh(&ops[1], dir);
	v4op_open(&ops[2], 0, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, s->clientid,
		  owner, name);
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

static bool open_f(struct v4_session *s, const struct v4_fh *dir, const char *owner,
		   struct v4_fh *fh, struct stateid4 *sid)
{
	return open_name(s, dir, owner, "f", fh, sid);
}

/*
 * SEQUENCE, PUTFH @first, SAVEFH, PUTFH @second, RESTOREFH (@restore:
 * else no SAVEFH and RESTOREFH, and only @second is put), READ_PLUS of
 * 1 MiB at 0 with @sid (minor version 2); the current file is then @first
 * or @second. The reply must be @ndata bytes of data at 0 (the pattern of
 * "f": byte i is i * 7 % 251), then, unless @eof (the file ends there),
 * one hole to 1 MiB; eof as @eof.
 */
static void read_plus_sparse(struct v4_session *s, const struct v4_fh *first,
			     const struct v4_fh *second, bool restore, const struct stateid4 *sid,
			     uint32_t ndata, bool eof, const char *what)
{
	const struct read_plus_res4 *k;
	const struct read_plus_content *v;
	struct nfs_argop4 ops[6];
	struct v4_res r;
	uint32_t n = 0, j = 0;
	bool hole = !eof && ndata < (1u << 20), good;

	v4_res_init(&r);
	v4op_seq_next(&ops[n++], s, 0, false);
	if (restore) {
		v4op_putfh(&ops[n++], first);
		v4op_simple(&ops[n++], OP_SAVEFH);
	}
	v4op_putfh(&ops[n++], second);
	if (restore)
		v4op_simple(&ops[n++], OP_RESTOREFH);
	v4op_read_plus(&ops[n++], sid, 0, 1u << 20);
	good = v4_compound(fd, 0, 0, "t", 1, 2, ops, n, &r) && r.status == NFS4_OK && r.nops == n;
	k = good ? &r.ops[n - 1].u.opread_plus.u.rp_resok4 : NULL;
	v = good ? k->rpr_contents.val : NULL;
	good = good && k->rpr_eof == eof &&
	       k->rpr_contents.len == (uint32_t)(ndata > 0) + (uint32_t)hole;
	if (good && ndata > 0) {
		good = v[j].rpc_content == NFS4_CONTENT_DATA && v[j].u.rpc_data.d_offset == 0 &&
		       data_ok(&v[j].u.rpc_data.d_data, 0, ndata);
		j++;
	}
	if (good && hole)
		good = v[j].rpc_content == NFS4_CONTENT_HOLE && v[j].u.rpc_hole.di_offset == ndata &&
		       v[j].u.rpc_hole.di_length == (1u << 20) - ndata;
	ok(good, "%s: OK, %u bytes of data%s, eof %s", what, ndata,
	   hole ? " then a hole to 1 MiB" : "", eof ? "true" : "false");
	if (!good)
		v4_diag(&r);
	v4_res_free(&r);
}

/* Byte @x of "t": f's pattern in the first 4 KiB of every 8 KiB below
 * 128 KiB, zeros (holes) elsewhere. */
static uint8_t t_byte(uint64_t x)
{
	return x < 131072 && x % 8192 < 4096 ? (uint8_t)(x * 7 % 251) : 0;
}

/*
 * READ_PLUS of 1 MiB of "t" (64 KiB allocated, in 16 stripes, then a hole
 * to 1 MiB), which the loop takes on its allocation; its map runs out of
 * seeks after the stripes and would send the rest as data (about 900 KiB
 * of zeros copied on the loop): the reply must stop within the loop's
 * budget (128 KiB of data, 4 KiB more at most), eof false, its segments
 * one after the other from 0, every byte the file's.
 */
static void read_plus_budget(struct v4_session *s, const struct v4_fh *fh,
			     const struct stateid4 *sid)
{
	const struct read_plus_res4 *k;
	struct nfs_argop4 ops[3];
	uint64_t at = 0, data = 0;
	struct v4_res r;
	uint32_t j;
	bool good;

	v4_res_init(&r);
	v4op_seq_next(&ops[0], s, 0, false);
	v4op_putfh(&ops[1], fh);
	v4op_read_plus(&ops[2], sid, 0, 1u << 20);
	good = v4_compound(fd, 0, 0, "t", 1, 2, ops, 3, &r) && r.status == NFS4_OK && r.nops == 3;
	k = good ? &r.ops[2].u.opread_plus.u.rp_resok4 : NULL;
	good = good && !k->rpr_eof && k->rpr_contents.len > 0;
	for (j = 0; good && j < k->rpr_contents.len; j++) {
		const struct read_plus_content *v = &k->rpr_contents.val[j];
		uint64_t i;

		if (v->rpc_content == NFS4_CONTENT_HOLE) {
			good = v->u.rpc_hole.di_offset == at;
			for (i = 0; good && i < v->u.rpc_hole.di_length; i += 512)
				good = t_byte(at + i) == 0;
			at += v->u.rpc_hole.di_length;
			continue;
		}
		good = v->rpc_content == NFS4_CONTENT_DATA && v->u.rpc_data.d_offset == at;
		for (i = 0; good && i < v->u.rpc_data.d_data.len; i++)
			good = v->u.rpc_data.d_data.data[i] == t_byte(at + i);
		at += v->u.rpc_data.d_data.len;
		data += v->u.rpc_data.d_data.len;
	}
	good = good && at < (1u << 20) && data >= 65536 && data <= 131072 + 4096;
	ok(good, "SEQUENCE, PUTFH t, READ_PLUS 1 MiB of fine stripes (4.2, on the loop): "
	   "%" PRIu64 " bytes of data of %" PRIu64 " answered (the loop's 128 KiB), the file's "
	   "bytes, eof false", data, at);
	if (!good)
		v4_diag(&r);
	v4_res_free(&r);
}

/* COMPOUND (minor version 1) @ops on B's connection. Calls nfsxd sends
 * there before the reply (its back channel) are read and dropped: none
 * is expected, as nothing here conflicts with B's delegation. Return
 * values: as v4_compound(). */
static bool b_call(const struct nfs_argop4 *ops, uint32_t n, struct v4_res *out)
{
	return v4_call_cb(fd_b, "b", 1, 0, ops, n, out, NULL, NULL);
}

/* B: EXCHANGE_ID, CREATE_SESSION with a back channel on its connection
 * (a delegation needs one), RECLAIM_COMPLETE: three COMPOUNDs, each a
 * worker's. */
static bool b_session(struct v4_session *s)
{
	struct callback_sec_parms4 none = { .cb_secflavor = AUTH_NONE };
	struct nfs_argop4 ops[2];
	struct v4_res r;
	bool good = false;

	v4_res_init(&r);
	v4op_exchange_id(&ops[0], "inline-b", 1, 0);
	on_worker++;
	if (!b_call(ops, 1, &r) || r.status != NFS4_OK)
		goto out;
	s->clientid = r.ops[0].u.opexchange_id.u.eir_resok4.eir_clientid;
	s->cs_seq = r.ops[0].u.opexchange_id.u.eir_resok4.eir_sequenceid;
	v4op_create_session(&ops[0], s->clientid, s->cs_seq, CREATE_SESSION4_FLAG_CONN_BACK_CHAN,
			    65536, 65536, 4096, 4);
	ops[0].u.opcreate_session.csa_back_chan_attrs.ca_maxrequests = 1;
	ops[0].u.opcreate_session.csa_cb_program = 0x40000002u;
	ops[0].u.opcreate_session.csa_sec_parms.len = 1;
	ops[0].u.opcreate_session.csa_sec_parms.val = &none;
	on_worker++;
	if (!b_call(ops, 1, &r) || r.status != NFS4_OK ||
	    !(r.ops[0].u.opcreate_session.u.csr_resok4.csr_flags &
	      CREATE_SESSION4_FLAG_CONN_BACK_CHAN))
		goto out;
	s->sid = r.ops[0].u.opcreate_session.u.csr_resok4.csr_sessionid;
	v4op_seq_next(&ops[0], s, 0, false);
	v4op_reclaim_complete(&ops[1], false);
	on_worker++;
	good = b_call(ops, 2, &r) && r.status == NFS4_OK;
out:
	v4_res_free(&r);
	return good;
}

/* B opens "w" in @dir for reading and writing and gets a write
 * delegation: its handle and the delegation's stateid. */
static bool b_write_deleg(struct v4_session *s, const struct v4_fh *dir, struct v4_fh *fh,
			  struct stateid4 *dsid)
{
	const struct OPEN4resok *k;
	struct nfs_argop4 ops[4];
	struct v4_res r;
	bool good;

	v4_res_init(&r);
	v4op_seq_next(&ops[0], s, 0, false);
	v4op_putfh(&ops[1], dir);
	v4op_open(&ops[2], 0, OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_NONE, s->clientid,
		  "owner-b", "w");
	v4op_simple(&ops[3], OP_GETFH);
	on_worker++;
	good = b_call(ops, 4, &r) && r.status == NFS4_OK && r.nops == 4 &&
	       v4_fh_of_res(&r, 3, fh);
	k = good ? &r.ops[2].u.opopen.u.resok4 : NULL;
	good = good && k->delegation.delegation_type == OPEN_DELEGATE_WRITE;
	if (good)
		*dsid = k->delegation.u.write.stateid;
	else if (k)
		printf("#   B's OPEN of w: delegation type %u\n", k->delegation.delegation_type);
	v4_res_free(&r);
	return good;
}

static long b_delegreturn(struct v4_session *s, const struct v4_fh *fh,
			  const struct stateid4 *dsid)
{
	struct nfs_argop4 ops[3];
	struct v4_res r;
	long st = -1;

	v4_res_init(&r);
	v4op_seq_next(&ops[0], s, 0, false);
	v4op_putfh(&ops[1], fh);
	v4op_simple(&ops[2], OP_DELEGRETURN);
	ops[2].u.opdelegreturn.deleg_stateid = *dsid;
	on_worker++;
	if (b_call(ops, 3, &r))
		st = r.status;
	v4_res_free(&r);
	return st;
}

/* A's READ while B holds a write delegation of another file: a worker's,
 * and it works; B's delegation returned, the loop's again. */
static void test_write_deleg(struct v4_session *a, const struct v4_fh *mem_f,
			     const struct stateid4 *mem_sid, const struct v4_fh *w_dir)
{
	struct v4_session b = { 0 };
	struct v4_fh w_fh;
	struct stateid4 dsid;
	long st;

	fd_b = rpc_connect(port_of_a, 5000);
	ok(fd_b >= 0 && b_session(&b),
	   "B: EXCHANGE_ID, CREATE_SESSION with a back channel, RECLAIM_COMPLETE: OK");
	ok(b_write_deleg(&b, w_dir, &w_fh, &dsid),
	   "B: SEQUENCE, PUTFH, OPEN of w for read and write: a write delegation");
	read_ok(a, mem_f, mem_sid, 4096, 4096,
		"SEQUENCE, PUTFH, READ while another client holds a write delegation "
		"(a worker's)");
	on_worker++;
	st = b_delegreturn(&b, &w_fh, &dsid);
	ok(st == NFS4_OK, "B: SEQUENCE, PUTFH, DELEGRETURN: OK (%ld)", st);
	if (fd_b >= 0)
		close(fd_b);
}

int main(int argc, char **argv)
{
	struct v4_session s = { 0 };
	struct v4_fh mem_dir = { 0 }, mem_f = { 0 }, disk_dir = { 0 }, disk_f = { 0 }, w_dir = { 0 };
	struct stateid4 mem_sid = { 0 }, disk_sid = { 0 }, mem_hsid = { 0 }, mem_ssid = { 0 };
	struct v4_fh mem_h = { 0 }, mem_s = { 0 }, mem_t = { 0 };
	struct stateid4 mem_tsid = { 0 };
	struct nfs_argop4 ops[6];
	struct v4_attrs at;
	struct v4_res r;
	uint32_t w[3], nw, i;
	char w_path[4096];
	bool disk;

	if (argc != 5) {
		fprintf(stderr, "usage: %s PORT MEM_DIR DISK_DIR|- W_DIR\n", argv[0]);
		return 2;
	}
	disk = strcmp(argv[3], "-") != 0;
	port_of_a = (uint16_t)atoi(argv[1]);
	fd = rpc_connect(port_of_a, 5000);
	if (fd < 0) {
		printf("Bail out! cannot connect to 127.0.0.1:%s\n", argv[1]);
		return 1;
	}
	/* each walk is one NFSv4.0 COMPOUND: a worker's */
	on_worker += disk ? 3 : 2;
	if (v4_walk(fd, argv[2], &mem_dir) != NFS4_OK ||
	    (disk && v4_walk(fd, argv[3], &disk_dir) != NFS4_OK) ||
	    v4_walk(fd, argv[4], &w_dir) != NFS4_OK) {
		printf("Bail out! no handle of the exports\n");
		return 1;
	}
	ok(v4_session_open(fd, "inline-a", 1, 1u << 20, 1u << 20, 4096, 4, &s) == NFS4_OK,
	   "EXCHANGE_ID, CREATE_SESSION: OK");
	on_worker += 2;
	v4_res_init(&r);
	v4op_seq_next(&ops[0], &s, 0, false);
	v4op_reclaim_complete(&ops[1], false);
	ok(v4_call41(fd, ops, 2, &r) && r.status == NFS4_OK, "RECLAIM_COMPLETE: OK");
	v4_res_free(&r);
	ok(open_f(&s, &mem_dir, "owner-mem", &mem_f, &mem_sid),
	   "SEQUENCE, PUTFH, OPEN, GETFH on tmpfs (a worker's): OK");
	on_worker += 2;

	/* on the loop */
	for (i = 0; i < 10; i++) {
		char what[64];

		snprintf(what, sizeof(what), "SEQUENCE, PUTFH, READ 4096 at %u", i * 4096 + 1);
		read_ok(&s, &mem_f, &mem_sid, i * 4096 + 1, 4096, what);
	}
	on_loop += 10;
	read_ok(&s, &mem_f, &mem_sid, FILE_LEN - 65536, 65536 + 100,
		"SEQUENCE, PUTFH, READ 64 KiB + 100 past the end");
	on_loop++;
	mapped++;
	/* 64 KiB from the end asked for, 100 bytes less there: too short
	 * for a mapping once cut to the file's end */
	read_ok(&s, &mem_f, &mem_sid, FILE_LEN - 65436, 65536,
		"SEQUENCE, PUTFH, READ 64 KiB reaching 100 bytes past the end");
	on_loop++;
	test_two_reads(&s, &mem_f, &mem_sid);
	on_loop++;
	mapped++;
	read_plus_ok(&s, &mem_f, &mem_sid, 8193, 4096, "SEQUENCE, PUTFH, READ_PLUS 4096 (4.2)");
	read_plus_ok(&s, &mem_f, &mem_sid, FILE_LEN - 100, 4096,
		     "SEQUENCE, PUTFH, READ_PLUS 4096 at 100 before the end (4.2)");
	on_loop += 2;
	read_plus_ok(&s, &mem_f, &mem_sid, 0, 128u * 1024 + 4096,
		     "SEQUENCE, PUTFH, READ_PLUS 132 KiB (4.2, a worker's)");
	on_worker++;
	mapped++;
	/* A READ_PLUS counts only what the file has allocated against the
	 * loop's budget: 1 MiB of a file all hole ("h", 4 MiB) or of one
	 * with 8 KiB of data ("s", 4 MiB) runs on the loop; of the dense f
	 * (256 KiB allocated) on a worker, by whichever handle is current
	 * after RESTOREFH. */
	ok(open_name(&s, &mem_dir, "owner-mem", "h", &mem_h, &mem_hsid) &&
	   open_name(&s, &mem_dir, "owner-mem", "s", &mem_s, &mem_ssid),
	   "SEQUENCE, PUTFH, OPEN, GETFH of h and s on tmpfs (workers'): OK");
	on_worker += 2;
	read_plus_sparse(&s, NULL, &mem_h, false, &mem_hsid, 0, false,
			 "SEQUENCE, PUTFH h, READ_PLUS 1 MiB of a hole (4.2, on the loop)");
	read_plus_sparse(&s, NULL, &mem_s, false, &mem_ssid, 8192, false,
			 "SEQUENCE, PUTFH s, READ_PLUS 1 MiB of 8 KiB and a hole (4.2, on the loop)");
	read_plus_sparse(&s, &mem_h, &mem_f, true, &mem_hsid, 0, false,
			 "SEQUENCE, PUTFH h, SAVEFH, PUTFH f, RESTOREFH, READ_PLUS 1 MiB of h "
			 "(4.2, on the loop)");
	on_loop += 3;
	read_plus_sparse(&s, &mem_f, &mem_h, true, &mem_sid, FILE_LEN, true,
			 "SEQUENCE, PUTFH f, SAVEFH, PUTFH h, RESTOREFH, READ_PLUS 1 MiB of f "
			 "(4.2, a worker's)");
	on_worker++;
	mapped++;
	ok(open_name(&s, &mem_dir, "owner-mem", "t", &mem_t, &mem_tsid),
	   "SEQUENCE, PUTFH, OPEN, GETFH of t on tmpfs (a worker's): OK");
	on_worker++;
	read_plus_budget(&s, &mem_t, &mem_tsid);
	on_loop++;

	v4_res_init(&r);
	nw = v4_bits(w, FATTR4_SIZE, -1);
	v4op_seq_next(&ops[0], &s, 0, false);
	v4op_putfh(&ops[1], &mem_f);
	v4op_simple(&ops[2], OP_SAVEFH);
	v4op_putfh(&ops[3], &mem_dir);
	v4op_simple(&ops[4], OP_RESTOREFH);
	v4op_getattr(&ops[5], w, nw);
	ok(v4_call41(fd, ops, 6, &r) && r.status == NFS4_OK && r.nops == 6 &&
	   v4_attrs_of_res(&r, 5, &at) && at.size == FILE_LEN,
	   "SEQUENCE, PUTFH f, SAVEFH, PUTFH dir, RESTOREFH, GETATTR size: f's size");
	on_loop++;
	v4op_seq_next(&ops[0], &s, 0, false);
	v4op_putfh(&ops[1], &mem_f);
	v4op_simple(&ops[2], OP_GETFH);
	ok(v4_call41(fd, ops, 3, &r) && r.status == NFS4_OK && r.nops == 3 &&
	   r.ops[2].u.opgetfh.u.resok4.object.len == mem_f.len &&
	   memcmp(r.ops[2].u.opgetfh.u.resok4.object.data, mem_f.d, mem_f.len) == 0,
	   "SEQUENCE, PUTFH, GETFH: the same handle");
	on_loop++;
	/* an error answered on the loop: no current filehandle */
	v4op_seq_next(&ops[0], &s, 0, false);
	v4op_read(&ops[1], &mem_sid, 0, 16);
	ok(v4_call41(fd, ops, 2, &r) && r.status == NFS4ERR_NOFILEHANDLE && r.nops == 2,
	   "SEQUENCE, READ without a filehandle: NOFILEHANDLE");
	on_loop++;
	v4_res_free(&r);

	/* on a worker, each with the seqid it was sent with: SEQUENCE did
	 * not run on the loop first (it would answer RETRY_UNCACHED_REP or
	 * SEQ_MISORDERED here) */
	read_ok(&s, &mem_f, &mem_sid, 0, 128u * 1024 + 4096,
		"SEQUENCE, PUTFH, READ 132 KiB (a worker's)");
	mapped++;
	read_ok(&s, &mem_f, NULL, 8192, 4096,
		"SEQUENCE, PUTFH, READ with the anonymous stateid (a worker's)");
	on_worker += 2;
	if (disk) {
		struct v4_fh disk_h = { 0 }, disk_s = { 0 };
		struct stateid4 disk_hsid = { 0 }, disk_ssid = { 0 };

		ok(open_f(&s, &disk_dir, "owner-disk", &disk_f, &disk_sid),
		   "SEQUENCE, PUTFH, OPEN, GETFH on a disk: OK");
		read_ok(&s, &disk_f, &disk_sid, 4096, 4096,
			"SEQUENCE, PUTFH, READ of a file on a disk (a worker's)");
		on_worker += 2;
		ok(open_name(&s, &disk_dir, "owner-disk", "h", &disk_h, &disk_hsid) &&
		   open_name(&s, &disk_dir, "owner-disk", "s", &disk_s, &disk_ssid),
		   "SEQUENCE, PUTFH, OPEN, GETFH of h and s on a disk (workers'): OK");
		on_worker += 2;
		read_plus_sparse(&s, NULL, &disk_h, false, &disk_hsid, 0, false,
				 "SEQUENCE, PUTFH h, READ_PLUS 1 MiB of a hole on a disk, its map "
				 "not known (4.2, a worker's)");
		on_worker++;
		read_plus_sparse(&s, NULL, &disk_h, false, &disk_hsid, 0, false,
				 "SEQUENCE, PUTFH h, READ_PLUS 1 MiB of a hole on a disk again, its "
				 "map known (4.2, on the loop)");
		on_loop++;
		read_plus_sparse(&s, &disk_f, &disk_h, true, &disk_sid, FILE_LEN, true,
				 "SEQUENCE, PUTFH f, SAVEFH, PUTFH h, RESTOREFH, READ_PLUS 1 MiB of "
				 "f on a disk (4.2, a worker's)");
		on_worker++;
		read_plus_sparse(&s, NULL, &disk_s, false, &disk_ssid, 8192, false,
				 "SEQUENCE, PUTFH s, READ_PLUS 1 MiB of 8 KiB and a hole on a disk "
				 "(4.2, a worker's)");
		read_plus_sparse(&s, NULL, &disk_s, false, &disk_ssid, 8192, false,
				 "SEQUENCE, PUTFH s, READ_PLUS the same again: data to read (4.2, "
				 "a worker's)");
		on_worker += 2;
	} else {
		ok(1, "SEQUENCE, PUTFH, READ of a file on a disk (a worker's) # SKIP the "
		   "scratch directory is on tmpfs: no disk to export");
	}
	v4_res_init(&r);
	v4op_seq_next(&ops[0], &s, 0, false);
	v4op_putfh(&ops[1], &mem_f);
	v4op_read(&ops[2], &mem_sid, 0, 4096);
	v4op_access(&ops[3], ACCESS4_READ);
	ok(v4_call41(fd, ops, 4, &r) && r.status == NFS4_OK && r.nops == 4,
	   "SEQUENCE, PUTFH, READ, ACCESS (a worker's): OK");
	on_worker++;
	v4_res_free(&r);
	test_write_deleg(&s, &mem_f, &mem_sid, &w_dir);
	snprintf(w_path, sizeof(w_path), "%s/w", argv[4]);
	test_writes(&s, &w_dir, w_path);
	/* and the loop again, on the next seqid */
	read_ok(&s, &mem_f, &mem_sid, 100, 1000, "SEQUENCE, PUTFH, READ again on the loop");
	on_loop++;

	printf("# compounds on event loops: %u\n", on_loop);
	printf("# compounds on workers: %u\n", on_worker);
	printf("# reads from a mapping: %u\n", mapped);
	close(fd);
	return tap_done();
}
