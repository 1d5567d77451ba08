/* SPDX-License-Identifier: MIT */
/* The exports in use, client matching and the caller's identity: see export.h. */
#include "export/export.h"
#include "rpc/workers.h"
#include "util/log.h"
#include "vfs/hmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

uint8_t export_fh_key[FH_KEY_LEN];

/* ---- the exports in use: snapshots, swapped on reload ---------------
 *
 * Taking the snapshot in use is one atomic read-modify-write, with no
 * window in which a reload could free it between reading the pointer
 * and counting the hold (a split reference count):
 * - Live snapshots sit in slots[]. `current` packs the slot of the one
 *   in use (low 8 bits) with the number of holds taken on it since it
 *   was published (the upper 56 bits), so export_snap_get() adding
 *   1 << 8 learns in the same instruction which snapshot it now holds.
 * - A hold is given back by decrementing the snapshot's own `released`
 *   (negative until the snapshot is retired: minus the releases).
 * - A reload exchanges `current` for the new slot (no holds yet) and
 *   adds the holds the old snapshot got to its `released`, which then
 *   counts the holds still out; whoever brings it to 0 (the reload when
 *   no call holds it, else the last call to let it go) frees it and its
 *   slot. Before retirement no release can bring it to 0 (one release
 *   leaves -1). 2^56 holds do not wrap.
 * At most SNAP_SLOTS snapshots live at once: a reload that finds no
 * free slot (old sets pinned by calls that do not end) fails and keeps
 * the exports in use. Nested holds on one thread reuse the thread's
 * snapshot (held, below), so the two handles of RENAME or LINK are
 * looked up in the same set.
 */
#define SNAP_SLOTS 64
#define SNAP_SLOT_MASK 0xffu
#define SNAP_HOLD (1u << 8)

static _Atomic(struct export_snap *) slots[SNAP_SLOTS];
static _Atomic uint64_t current;
static bool published;          /* main thread only */

static _Thread_local struct {
	struct export_snap *x;
	unsigned int depth;
} held;

static export_peer_name_fn *peer_name_fn;

static void root_put(struct export_root *r)
{
	if (r && atomic_fetch_sub_explicit(&r->refs, 1, memory_order_acq_rel) == 1) {
		vfs_export_close(&r->v);
		free(r);
	}
}

/* Free a snapshot no call holds any more (on whichever thread let it go). */
static void snap_free(struct export_snap *x)
{
	unsigned int i, slot = x->slot;

	export_crossings_free(x);
	export_pseudo_free(&x->pseudo);
	for (i = 0; i < x->n; i++)
		root_put(x->roots[i]);
	free(x->roots);
	exports_free(x->set);
	free(x);
	atomic_store_explicit(&slots[slot], NULL, memory_order_release);
}

const struct export_snap *export_snap_get(void)
{
	uint64_t w;

	if (held.depth++)
		return held.x;
	w = atomic_fetch_add_explicit(&current, SNAP_HOLD, memory_order_acquire);
	held.x = atomic_load_explicit(&slots[w & SNAP_SLOT_MASK],
				      memory_order_acquire);
	return held.x;
}

void export_snap_release(struct export_snap *x)
{
	if (atomic_fetch_sub_explicit(&x->released, 1, memory_order_acq_rel) == 1)
		snap_free(x);
}

void export_snap_put(const struct export_snap *cx)
{
	struct export_snap *x = held.x;

	(void)cx; /* the thread's snapshot: nested holds share it */
	if (!x || --held.depth)
		return;
	held.x = NULL;
	export_snap_release(x);
}

bool export_obj_detach(struct export_obj *o)
{
	if (!o->node || o->detached || held.depth != 1 || held.x != o->snap)
		return false;
	held.x = NULL;
	held.depth = 0;
	o->detached = true;
	return true;
}

/* Swap @x in (NULL: none, at the end); the old snapshot is retired. */
static void publish(struct export_snap *x)
{
	struct export_snap *old;
	int_least64_t holds;
	uint64_t w;

	if (x)
		atomic_store_explicit(&slots[x->slot], x, memory_order_release);
	w = atomic_exchange_explicit(&current, x ? x->slot : 0,
				     memory_order_acq_rel);
	if (!published) {
		published = x != NULL;
		return;
	}
	published = x != NULL;
	old = atomic_load_explicit(&slots[w & SNAP_SLOT_MASK], memory_order_acquire);
	holds = (int_least64_t)(w >> 8);
	if (atomic_fetch_add_explicit(&old->released, holds,
				      memory_order_acq_rel) == -holds)
		snap_free(old);
}

/* The snapshot in use, seen from the main thread (the only publisher). */
static struct export_snap *in_use(void)
{
	if (!published)
		return NULL;
	return atomic_load_explicit(&slots[atomic_load(&current) & SNAP_SLOT_MASK],
				    memory_order_acquire);
}

static int free_slot(const struct export_snap *cur)
{
	int i;

	for (i = 0; i < SNAP_SLOTS; i++)
		if (!atomic_load_explicit(&slots[i], memory_order_acquire) &&
		    (!cur || cur->slot != (unsigned int)i))
			return i;
	return -1;
}

/* Is @path still the directory @r opened? */
static bool same_dir(const struct export_root *r, const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
	       st.st_dev == r->v.root_dev && st.st_ino == r->v.root_ino;
}

int export_replace(struct nfsx_exports *ex, struct export_reload_stats *st,
		   char *err, size_t errlen)
{
	struct export_snap *old = in_use(), *x;
	const struct nfsx_export *e = NULL;
	unsigned int i, n = exports_count(ex), ngone = 0;
	int slot = free_slot(old);
	uint32_t *gone;

	memset(st, 0, sizeof(*st));
	if (slot < 0) {
		snprintf(err, errlen,
			 "%d sets of exports are still in use by calls in progress; try again later",
			 SNAP_SLOTS - 1);
		exports_free(ex);
		return -1;
	}
	x = calloc(1, sizeof(*x));
	if (x)
		x->roots = calloc(n ? n : 1, sizeof(*x->roots));
	if (!x || !x->roots) {
		snprintf(err, errlen, "out of memory");
		free(x);
		exports_free(ex);
		return -1;
	}
	x->set = ex;
	x->slot = (unsigned int)slot;
	while ((e = exports_next(ex, e))) {
		const struct nfsx_export *oe = old ? exports_find_path(old->set, e->path) : NULL;
		struct export_root *r = oe ? old->roots[oe->index] : NULL;
		int rc;

		if (r && oe->id == e->id && same_dir(r, e->path)) {
			atomic_fetch_add_explicit(&r->refs, 1, memory_order_relaxed);
			x->roots[x->n++] = r;
			continue;
		}
		r = calloc(1, sizeof(*r));
		if (!r) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		rc = vfs_export_open(&r->v, e->id, e->path);
		if (rc < 0) {
			snprintf(err, errlen, "export %s: %s", e->path, strerror(-rc));
			free(r);
			goto fail;
		}
		if (r->v.view_err)
			log_warn("export %s: no private view of its mount (open_tree: %s): "
				 "mount points under it are refused rather than shown as "
				 "the directories they cover, and a directory moved out of "
				 "it keeps \"..\" to its new parent",
				 e->path, strerror(r->v.view_err));
		atomic_init(&r->refs, 1);
		x->roots[x->n++] = r;
		if (oe)
			st->reopened++;
		else
			st->added++;
	}
	if (export_pseudo_build(ex, &x->pseudo) < 0) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (x->pseudo.unreachable)
		log_warn("%u export(s) outside the fsid=0 export %s: not reachable over NFSv4",
			 x->pseudo.unreachable, x->pseudo.root_exp->path);
	e = NULL;
	while (old && (e = exports_next(old->set, e)))
		if (!exports_find_path(ex, e->path))
			st->removed++;
	st->exports = n;
	/* Cached objects of a removed or reopened export go (nodes are
	 * keyed by export id; a reopened root may be another directory).
	 * Listed now: publishing may free the old set. */
	gone = old ? calloc(exports_count(old->set) + old->ncross + 1, sizeof(*gone)) : NULL;
	e = NULL;
	while (gone && (e = exports_next(old->set, e))) {
		const struct nfsx_export *ne = exports_find_path(ex, e->path);

		if (!ne || x->roots[ne->index] != old->roots[e->index])
			gone[ngone++] = e->id;
	}
	/* Mounts crossed under crossmnt get views of their own each time. */
	for (i = 0; gone && i < old->ncross; i++)
		if (old->cross[i].own)
			gone[ngone++] = old->cross[i].id;
	export_crossings_build(x);
	atomic_init(&x->released, 0);
	publish(x);
	for (i = 0; i < ngone; i++)
		vfs_nodes_forget_export(gone[i]);
	free(gone);
	return 0;
fail:
	export_pseudo_free(&x->pseudo);
	for (i = 0; i < x->n; i++)
		root_put(x->roots[i]);
	free(x->roots);
	free(x);
	exports_free(ex);
	return -1;
}

int export_init(struct nfsx_exports *ex, const char *state_dir, char *err,
		size_t errlen)
{
	struct export_reload_stats st;

	if (!vfs_nodes_init(0)) {
		snprintf(err, errlen, "out of memory");
		exports_free(ex);
		return -1;
	}
	if (fh_key_load(state_dir, export_fh_key, err, errlen) < 0) {
		exports_free(ex);
		return -1;
	}
	/* Not root: no open_by_handle_at, no identity switches (vfs.h). */
	if (geteuid() != 0) {
		vfs_set_unprivileged();
		if (vfs_hmap_open(state_dir, err, errlen) < 0) {
			exports_free(ex);
			return -1;
		}
		log_warn("not running as root: every client acts as uid %u gid %u "
			 "(all_squash), handles are kept in %s/handles.map",
			 (unsigned int)geteuid(), (unsigned int)getegid(), state_dir);
	}
	return export_replace(ex, &st, err, errlen);
}

void export_fini(void)
{
	if (!published)
		return;
	vfs_nodes_fini();
	publish(NULL);
	vfs_hmap_close();
}

void export_set_peer_name_fn(export_peer_name_fn *fn)
{
	peer_name_fn = fn;
}

const struct nfsx_export_client *export_match(struct rpc_req *req,
					    const struct nfsx_export *e)
{
	char name[256];
	const char *known = NULL;

	if (peer_name_fn && exports_match_needs_name(e, req->peer)) {
		if (peer_name_fn(req, name, sizeof(name)))
			known = name;
		else if (req->workers && rpc_workers_parked(req))
			/* Waiting for the name: no rule applies yet. Matching
			 * without it would pick a later rule and let the
			 * handler act under it; refused now, the call runs
			 * again once the name is known. */
			return NULL;
	}
	return exports_match(e, req->peer, known);
}

void export_cred(const struct rpc_req *req, const struct nfsx_export_client *c,
	       struct vfs_cred *out)
{
	const struct rpc_cred *rc = &req->call.cred;
	uint32_t i;

	if (!vfs_privileged()) {
		/* Unprivileged: the server's own identity is the only one. */
		out->uid = (uint32_t)geteuid();
		out->gid = (uint32_t)getegid();
		out->ngids = 0;
		return;
	}
	if (rc->flavor == RPC_AUTH_SYS) {
		out->uid = rc->uid;
		out->gid = rc->gid;
		out->ngids = rc->ngids;
		for (i = 0; i < rc->ngids; i++)
			out->gids[i] = rc->gids[i];
	} else {
		/* AUTH_NONE: the anonymous identity of the export. */
		out->uid = c->opts.anonuid;
		out->gid = c->opts.anongid;
		out->ngids = 0;
		return;
	}
	exports_squash(c, &out->uid, &out->gid, out->gids, &out->ngids);
}

