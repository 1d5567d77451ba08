/* SPDX-License-Identifier: MIT */
/*
 * Whether a COMPOUND may run on an event loop (nfs4_inline_plan), decided
 * before any of it runs, and the file handles it resolves for that.
 *
 * DESIGN
 * - A loop runs a COMPOUND only when none of its operations can wait:
 *   the plan decodes every operation once (the COMPOUND then runs them
 *   as decoded, c->planned) and resolves each PUTFH's handle from memory
 *   (c->pre). A COMPOUND the plan refuses leaves nothing held and goes
 *   to a worker whole (compound.c).
 * - The loop's other connections wait while it runs one: the READs and
 *   WRITEs it may hold are bounded (NFS4_INLINE_IO_MAX bytes in all), a
 *   READ_PLUS counted by the data it can send (rp_data_bound).
 */
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "nfs4/internal.h"
#include "xdr/nfs4_compound.h"

/* Let go of the handles resolved for a COMPOUND on a loop. */
void nfs4_pre_clear(struct nfs4_compound *c)
{
	uint32_t i;

	if (!c->pre)
		return;
	for (i = 0; i < c->nops && i < NFS4_INLINE_OPS; i++)
		nfs4_fh_clear(&c->pre[i]);
}

bool nfs4_pre_putfh(struct nfs4_compound *c, const nfs_fh4 *fh, struct nfs4_fh *f, bool mem_only)
{
	struct export_obj o;
	uint32_t node;
	int k;

	if (fh->len > NFS4_FHSIZE)
		return false;
	k = export_pseudo_resolve(c->snap, fh->data, fh->len, &node);
	if (k < 0)
		return false;
	if (k == 1) {
		f->kind = NFS4_FH_PSEUDO;
		f->node = node;
		return true;
	}
	if (export_resolve(c->req, fh->data, fh->len, mem_only, &o) < 0)
		return false;
	f->kind = NFS4_FH_OBJ;
	f->o = o;
	return true;
}

/*
 * The data bytes a READ_PLUS of @count bytes of file @f is expected to
 * send: no more than the file has allocated, as its holes go as hole
 * segments (the stat is PUTFH's, the one the operation uses). A mostly
 * hole file then runs on the loop at any count: its reply is a few
 * segment heads, where a worker's wake-up and hand-back would cost more
 * than the call itself. An expectation only (the file
 * may gain data, the map may give up on fine stripes and send holes as
 * data): nfs4_read_plus holds a call on the loop to the budget left
 * (c->loop_rp_left).
 */
static uint64_t rp_data_bound(const struct nfs4_fh *f, uint32_t count)
{
	uint64_t alloc;

	if (!f || f->kind != NFS4_FH_OBJ || !f->o.have_st || !S_ISREG(f->o.st.st_mode) ||
	    f->o.st.st_blocks < 0 || !f->o.vexp->blocks_counted)
		return count;
	alloc = (uint64_t)f->o.st.st_blocks * 512u;
	return alloc < count ? alloc : count;
}

/* Is @f an object of an export on a disk (where a cache miss or a read
 * may wait)? */
static bool on_disk(const struct nfs4_fh *f)
{
	return f && f->kind == NFS4_FH_OBJ && !f->o.vexp->mem_backed;
}

/*
 * May the COMPOUND whose head is @h run here, on an event loop? Its
 * operations are decoded once without running any (SEQUENCE takes a
 * slot, and nothing after it may find it has to wait): it may when it
 * is of minor version 1 or 2, starts with SEQUENCE and holds only PUTFH,
 * GETFH, SAVEFH, RESTOREFH, GETATTR, READs (and READ_PLUSes, counted by
 * the data they can send: rp_data_bound) and WRITEs of NFS4_INLINE_IO_MAX
 * bytes in all (the loop's other connections wait meanwhile) with
 * ordinary stateids, a WRITE only while no delegation
 * exists, and each PUTFH's handle resolves from memory
 * (nfs4_pre_putfh, into c->pre): every object it can reach is then in the
 * open-object cache. On a memory-backed export these operations do not
 * wait; on a disk only a READ_PLUS of a range its file's remembered map
 * says is all hole runs here (nfs4_read_plus_no_io: a hole-only reply,
 * no seek or read), as the worker's hand-off would be most of such a
 * call. SEQUENCE itself may still find it would wait, before it changes
 * anything (nfs4_sessions_sequence_nowait).
 * Return values: true, or false with nothing held.
 */
bool nfs4_inline_plan(struct nfs4_compound *c, const struct nfs4_args_head *h)
{
	struct rpc_req *req = c->req;
	struct xdr_dec d = req->args;
	size_t arena_at = req->arena.used;
	bool ok = h->minorversion >= 1 && h->nops >= 1 && h->nops <= NFS4_INLINE_OPS;
	const struct nfs4_fh *cur = NULL, *saved = NULL;
	bool disk = true, holes = false;
	uint64_t io = 0, io_rw = 0;
	uint32_t i;

	/* The operations first, each decoded once (the arena keeps what
	 * their arguments took: the COMPOUND runs them as decoded here,
	 * c->planned), and whether a file on a disk may be resolved at
	 * all: only for a COMPOUND that reads nothing but READ_PLUS's
	 * holes, so that any other one meant for a worker goes there
	 * before a system call is spent on it here. */
	for (i = 0; ok && i < h->nops; i++) {
		if (nfs4_dec_argop(&d, h->minorversion, &c->planned[i].a) != NFS4_OP_DECODED)
			break;
		c->planned[i].end = d.p;
		switch (c->planned[i].a.argop) {
		case OP_SEQUENCE:
		case OP_PUTFH:
		case OP_SAVEFH:
		case OP_RESTOREFH:
		case OP_GETFH:
			break;
		case OP_READ_PLUS:
			holes = true;
			break;
		case OP_GETATTR:
		case OP_READ:
		case OP_WRITE:
			disk = false;
			break;
		default:
			ok = false;
			break;
		}
	}
	ok = ok && i == h->nops;
	disk = disk && holes;
	for (i = 0; ok && i < h->nops; i++) {
		const struct nfs_argop4 *a = &c->planned[i].a;

		switch (a->argop) {
		case OP_SEQUENCE:
			ok = i == 0;
			break;
		case OP_PUTFH:
			ok = i > 0 && nfs4_pre_putfh(c, &a->u.opputfh.object, &c->pre[i], !disk);
			cur = &c->pre[i];
			break;
		case OP_SAVEFH:
			saved = cur;
			ok = i > 0;
			break;
		case OP_RESTOREFH:
			cur = saved;
			ok = i > 0;
			break;
		case OP_GETFH:
			ok = i > 0;
			break;
		case OP_GETATTR:
			/* another client's GETATTR of size or change recalls a
			 * write delegation: the recall may revoke a courtesy
			 * client's state, which writes the restart record */
			ok = i > 0 && !nfs4_wdelegs_held();
			break;
		case OP_READ:
			/* the special stateid waits for the end of grace,
			 * which writes the restart record; a READ recalls a
			 * write delegation, as GETATTR */
			io += a->u.opread.count;
			io_rw += a->u.opread.count;
			ok = i > 0 && io <= NFS4_INLINE_IO_MAX &&
			     !nfs4_stateid_anonymous(&a->u.opread.stateid) && !nfs4_wdelegs_held();
			break;
		case OP_WRITE:
			/* as NFSv3's WRITE on a memory-backed export: the
			 * copy does not wait; a WRITE recalls any delegation
			 * of its file (a worker's), so none may exist */
			io += a->u.opwrite.data.len;
			io_rw += a->u.opwrite.data.len;
			ok = i > 0 && io <= NFS4_INLINE_IO_MAX &&
			     !nfs4_stateid_anonymous(&a->u.opwrite.stateid) &&
			     !nfs4_stateid_bypass(&a->u.opwrite.stateid) && !vfs_leases_held();
			break;
		case OP_READ_PLUS:
			/* as READ, but only its data counts (rp_data_bound);
			 * a sparse file's seeks and the getattr for its eof do
			 * not wait on a memory-backed export; on a disk, a
			 * range all hole in the file's map only */
			if (on_disk(cur))
				ok = nfs4_read_plus_no_io(&cur->o, a->u.opread_plus.rpa_offset,
							  a->u.opread_plus.rpa_count);
			else
				io += rp_data_bound(cur, a->u.opread_plus.rpa_count);
			ok = ok && i > 0 && io <= NFS4_INLINE_IO_MAX &&
			     !nfs4_stateid_anonymous(&a->u.opread_plus.rpa_stateid) &&
			     !nfs4_wdelegs_held();
			break;
		default:
			ok = false;
			break;
		}
	}
	if (ok && i == h->nops) {
		/* what the READ_PLUSes may send between them */
		c->loop_rp_left = (uint32_t)(NFS4_INLINE_IO_MAX - io_rw);
		return true;
	}
	req->arena.used = arena_at;
	nfs4_pre_clear(c);
	return false;
}
