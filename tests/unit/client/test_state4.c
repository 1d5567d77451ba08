/* SPDX-License-Identifier: MIT */
/*
 * The open and lock state table of libnfsx (state4.c) without a server:
 * replies noted (OPEN by handle and by name, a second OPEN adding its
 * modes, OPEN_DOWNGRADE, LOCK with a new and an existing lock-owner,
 * LOCKU cutting a range in two, CLOSE of the current stateid inside the
 * COMPOUND that opened), and stateids mapped when sent: nothing changed
 * before a reclaim, the caller's stateids to the server's new ones
 * after it (seqid 0), special stateids left alone, lost state -EIO (a
 * CLOSE of it forgetting the entry).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client/internal.h"
#include "client/state4.h"
#include "tap.h"

static struct nfsx_ctx ctx;
static struct nc4_session sess;
static uint8_t fh1_b[] = { 1, 2, 3, 4 }, fh2_b[] = { 9, 9, 9, 9, 9, 9 };
static const nfs_fh4 fh1 = { fh1_b, sizeof(fh1_b) }, fh2 = { fh2_b, sizeof(fh2_b) };

static struct stateid4 sid(uint32_t seq, uint8_t tag)
{
	struct stateid4 s;

	s.seqid = seq;
	memset(s.other, tag, sizeof(s.other));
	return s;
}

/* A COMPOUND of @n operations (after SEQUENCE) and its reply, all NFS4_OK. */
struct cmp {
	struct nfs_argop4 a[8];
	struct nfsx4_res res;
	uint32_t n;
};

static struct nfs_argop4 *op(struct cmp *c, enum nfs_opnum4 num)
{
	uint32_t i = ++c->n;

	memset(&c->a[i], 0, sizeof(c->a[i]));
	memset(&c->res.ops[i], 0, sizeof(c->res.ops[i]));
	c->a[i].argop = num;
	c->res.ops[i].resop = num;
	return &c->a[i];
}

static void note(struct cmp *c)
{
	c->a[0].argop = OP_SEQUENCE;
	c->res.ops[0].resop = OP_SEQUENCE;
	c->res.ops[0].u.opsequence.sr_status = NFS4_OK;
	c->res.nops = c->n + 1;
	c->res.status = NFS4_OK;
	nc4_state_note(&ctx, c->a, c->n + 1, &c->res);
	memset(c, 0, sizeof(*c));
}

static void open_fh(const nfs_fh4 *fh, uint32_t access, struct stateid4 got)
{
	struct cmp c = { 0 };

	op(&c, OP_PUTFH)->u.opputfh.object = *fh;
	op(&c, OP_OPEN)->u.opopen.share_access = access;
	c.a[2].u.opopen.claim.claim = CLAIM_FH;
	c.res.ops[2].u.opopen.u.resok4.stateid = got;
	note(&c);
}

static void lock(struct stateid4 by, bool new_owner, uint64_t off, uint64_t len, uint32_t type,
		 struct stateid4 got)
{
	struct cmp c = { 0 };
	struct LOCK4args *l;

	op(&c, OP_PUTFH)->u.opputfh.object = fh1;
	l = &op(&c, OP_LOCK)->u.oplock;
	l->locktype = type;
	l->offset = off;
	l->length = len;
	l->locker.new_lock_owner = new_owner;
	if (new_owner)
		l->locker.u.open_owner.open_stateid = by;
	else
		l->locker.u.lock_owner.lock_stateid = by;
	c.res.ops[2].u.oplock.u.resok4.lock_stateid = got;
	note(&c);
}

static void unlock(struct stateid4 by, uint64_t off, uint64_t len)
{
	struct cmp c = { 0 };
	struct LOCKU4args *u;

	op(&c, OP_PUTFH)->u.opputfh.object = fh1;
	u = &op(&c, OP_LOCKU)->u.oplocku;
	u->lock_stateid = by;
	u->offset = off;
	u->length = len;
	note(&c);
}

static bool has_range(const struct nc4_open *o, uint64_t s, uint64_t e, uint32_t t)
{
	uint32_t i;

	for (i = 0; i < o->nranges; i++)
		if (o->ranges[i].start == s && o->ranges[i].end == e && o->ranges[i].type == t)
			return true;
	return false;
}

/* A WRITE with @s as it would be sent. Return values: as nc4_state_map. */
static int send_write(struct stateid4 *s)
{
	struct nfs_argop4 a[3];
	int r;

	memset(a, 0, sizeof(a));
	a[0].argop = OP_SEQUENCE;
	nc4_op_putfh(&a[1], &fh1);
	a[2].argop = OP_WRITE;
	a[2].u.opwrite.stateid = *s;
	r = nc4_state_map(&sess, a, 3);
	*s = a[2].u.opwrite.stateid;
	return r;
}

int main(void)
{
	struct nc4_state *st;
	struct nc4_open *o;
	struct stateid4 s, a1 = sid(1, 0xa1), l1 = sid(1, 0x11), b1 = sid(1, 0xb1);
	struct cmp c = { 0 };
	int r;

	nc_list_init(&sess.delegs);
	ctx.v4 = &sess;

	open_fh(&fh1, OPEN4_SHARE_ACCESS_READ, a1);
	st = sess.state;
	ok(st && st->nopens == 1 && st->opens[0].access == OPEN4_SHARE_ACCESS_READ &&
	   st->opens[0].fh_len == 4, "OPEN by handle: one entry, its modes and handle");
	open_fh(&fh1, OPEN4_SHARE_ACCESS_WRITE | OPEN4_SHARE_ACCESS_WANT_NO_DELEG, sid(2, 0xa1));
	o = &st->opens[0];
	ok(st->nopens == 1 && o->access == OPEN4_SHARE_ACCESS_BOTH && o->orig.seqid == 2,
	   "a second OPEN of the file adds its access to the same entry");
	op(&c, OP_PUTFH)->u.opputfh.object = fh1;
	op(&c, OP_OPEN_DOWNGRADE)->u.opopen_downgrade.open_stateid = a1;
	c.a[2].u.opopen_downgrade.share_access = OPEN4_SHARE_ACCESS_READ;
	note(&c);
	ok(o->access == OPEN4_SHARE_ACCESS_READ, "OPEN_DOWNGRADE sets the modes");

	lock(a1, true, 0, 100, WRITEW_LT, l1);
	ok(o->have_lk && o->nranges == 1 && has_range(o, 0, 100, WRITE_LT),
	   "LOCK with a new lock-owner: the lock stateid and [0, 100) WRITE");
	lock(l1, false, 200, UINT64_MAX, READ_LT, sid(2, 0x11));
	ok(o->nranges == 2 && has_range(o, 200, UINT64_MAX, READ_LT),
	   "LOCK with the lock stateid: [200, end) READ");
	lock(l1, false, 90, 20, READ_LT, sid(3, 0x11));
	ok(o->nranges == 3 && has_range(o, 0, 90, WRITE_LT) && has_range(o, 90, 110, READ_LT),
	   "a LOCK over part of a range replaces that part");
	unlock(l1, 40, 10);
	ok(o->nranges == 4 && has_range(o, 0, 40, WRITE_LT) && has_range(o, 50, 90, WRITE_LT),
	   "LOCKU inside a range cuts it in two");
	unlock(l1, 0, UINT64_MAX);
	ok(o->nranges == 0, "LOCKU of everything leaves no range");
	lock(a1, true, 0, 10, WRITE_LT, l1);

	/* by name, opened and closed in one COMPOUND (the sync API's I/O) */
	op(&c, OP_PUTFH)->u.opputfh.object = fh1;
	op(&c, OP_OPEN)->u.opopen.claim.claim = CLAIM_NULL;
	c.res.ops[2].u.opopen.u.resok4.stateid = b1;
	op(&c, OP_GETFH);
	c.res.ops[3].u.opgetfh.u.resok4.object = fh2;
	op(&c, OP_CLOSE)->u.opclose.open_stateid = sid(1, 0);
	note(&c);
	ok(st->nopens == 1, "OPEN by name and CLOSE of the current stateid: nothing kept");
	op(&c, OP_PUTFH)->u.opputfh.object = fh1;
	op(&c, OP_OPEN)->u.opopen.claim.claim = CLAIM_NULL;
	c.res.ops[2].u.opopen.u.resok4.stateid = b1;
	op(&c, OP_GETFH);
	c.res.ops[3].u.opgetfh.u.resok4.object = fh2;
	note(&c);
	ok(st->nopens == 2 && st->opens[1].fh_len == 6, "OPEN by name kept with GETFH's handle");

	s = a1;
	r = send_write(&s);
	ok(r == 0 && s.seqid == 1 && s.other[0] == 0xa1, "before a reclaim nothing is mapped");
	ok(nc4_state_reclaim_prepare(&sess) == 2 && st->opens[0].todo && st->opens[1].todo,
	   "a reclaim marks both entries");
	o = &st->opens[0];
	o->cur = sid(1, 0xc1);
	o->lk_cur = sid(1, 0xc2);
	o->todo = false;
	r = send_write(&s);
	ok(r == 0 && s.seqid == 0 && s.other[0] == 0xc1,
	   "the caller's open stateid is sent as the reclaimed one, seqid 0");
	s = sid(0, 0);
	r = send_write(&s);
	ok(r == 0 && s.other[0] == 0, "the anonymous stateid is left alone");
	{
		struct nfs_argop4 a[2];

		memset(a, 0, sizeof(a));
		a[1].argop = OP_LOCKU;
		a[1].u.oplocku.lock_stateid = l1;
		r = nc4_state_map(&sess, a, 2);
		ok(r == 0 && a[1].u.oplocku.lock_stateid.other[0] == 0xc2,
		   "LOCKU with the caller's lock stateid: the reclaimed one");
	}
	o->lk_lost = true;
	s = a1;
	r = send_write(&s);
	ok(r == -EIO && st->eio == 1, "a WRITE on a file whose lock was lost: -EIO");
	st->opens[1].lost = true;
	op(&c, OP_CLOSE)->u.opclose.open_stateid = b1;
	r = nc4_state_map(&sess, c.a, 2);
	ok(r == -EIO && st->nopens == 1, "CLOSE of a lost open: -EIO, and the entry forgotten");
	memset(&c, 0, sizeof(c));

	nc4_state_free(&sess);
	ok(sess.state == NULL, "freed");
	return tap_done();
}
