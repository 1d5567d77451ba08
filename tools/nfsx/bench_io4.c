/* SPDX-License-Identifier: MIT */
/* nfsx bench over NFSv4.1 and 4.2: see bench_io4.h. */
#include "bench_io4.h"

#include <errno.h>
#include <string.h>

#include "bench.h"

struct wait4 {
	bool done;
	int rc;
	struct stateid4 sid;       /* OPEN */
	uint32_t count;            /* WRITE */
	uint8_t verf[NFS4_VERIFIER_SIZE];
};

static void open_done(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct wait4 *w = priv;
	const struct OPEN4res *r = res;

	(void)ctx;
	w->done = true;
	w->rc = err ? err : (int)r->status;
	if (!w->rc)
		w->sid = r->u.resok4.stateid;
}

/* CLOSE: its status only (every result starts with its status). */
static void status_done(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct wait4 *w = priv;

	(void)ctx;
	w->done = true;
	w->rc = err ? err : (int)((const struct CLOSE4res *)res)->status;
}

static void write_done(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct wait4 *w = priv;
	const struct WRITE4res *r = res;

	(void)ctx;
	w->done = true;
	w->rc = err ? err : (int)r->status;
	if (w->rc)
		return;
	w->count = r->u.resok4.count;
	memcpy(w->verf, r->u.resok4.writeverf.val, NFS4_VERIFIER_SIZE);
}

static void commit_done(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct wait4 *w = priv;
	const struct COMMIT4res *r = res;

	(void)ctx;
	w->done = true;
	w->rc = err ? err : (int)r->status;
	if (!w->rc)
		memcpy(w->verf, r->u.resok4.writeverf.val, NFS4_VERIFIER_SIZE);
}

/* Run the loop until @w is done (a call queued with rc 0). */
static int run_until_done(struct nfsx_ctx *c, struct wait4 *w, int rc)
{
	if (rc < 0)
		return rc;
	while (!w->done) {
		rc = nfsx_run_once(c, -1);
		if (rc < 0)
			return rc;
	}
	return w->rc;
}

static nfs_fh4 fh4(const struct nfsx_fh *fh)
{
	nfs_fh4 f = { .data = fh->data, .len = fh->len };

	return f;
}

int bench_open4(struct nfsx_ctx *c, const struct nfsx_fh *fh, struct stateid4 *sid)
{
	struct nfsx4_open_args a = { .fh = fh4(fh), .share_access = OPEN4_SHARE_ACCESS_BOTH,
				     .share_deny = OPEN4_SHARE_DENY_NONE };
	struct wait4 w = { 0 };
	int rc;

	/* The wrappers need the session the sync calls made. */
	rc = run_until_done(c, &w, nfsx4_open(c, &a, open_done, &w));
	if (rc == 0)
		*sid = w.sid;
	return rc;
}

int bench_close4(struct nfsx_ctx *c, const struct nfsx_fh *fh, const struct stateid4 *sid)
{
	struct nfsx4_close_args a = { .fh = fh4(fh), .stateid = *sid };
	struct wait4 w = { 0 };

	return run_until_done(c, &w, nfsx4_close(c, &a, status_done, &w));
}

int bench_write4(struct nfsx_ctx *c, const struct nfsx_fh *fh, const struct stateid4 *sid,
		 uint64_t off, const void *buf, uint32_t len, enum stable_how how,
		 uint32_t *written, uint8_t verf[NFS3_WRITEVERFSIZE])
{
	struct nfsx4_write_args a = { .fh = fh4(fh) };
	struct wait4 w = { 0 };
	int rc;

	a.args.stateid = *sid;
	a.args.offset = off;
	a.args.stable = (enum stable_how4)how;   /* the same values */
	a.args.data.data = buf;
	a.args.data.len = len;
	rc = run_until_done(c, &w, nfsx4_write(c, &a, write_done, &w));
	*written = rc == 0 ? w.count : 0;
	if (rc == 0)
		memcpy(verf, w.verf, NFS3_WRITEVERFSIZE);
	return rc;
}

int bench_commit4(struct nfsx_ctx *c, const struct nfsx_fh *fh, uint8_t verf[NFS3_WRITEVERFSIZE])
{
	struct nfsx4_commit_args a = { .fh = fh4(fh) };
	struct wait4 w = { 0 };
	int rc;

	rc = run_until_done(c, &w, nfsx4_commit(c, &a, commit_done, &w));
	if (rc == 0)
		memcpy(verf, w.verf, NFS3_WRITEVERFSIZE);
	return rc;
}

const struct nfsx_proc *bench_proc(unsigned vers, bool read_plus, unsigned i)
{
	static const enum nfs_opnum4 v4[] = {
		OP_READ, OP_WRITE, OP_COMMIT, OP_OPEN, OP_CLOSE, OP_GETATTR,
	};
	const unsigned n4 = sizeof(v4) / sizeof(v4[0]);

	if (vers != 4)
		return i < BENCH_NPROCS ? &nfsx_nfs3_procs[i] : NULL;
	if (i == 0 && read_plus)
		return &nfsx_nfs4_ops[OP_READ_PLUS];
	if (i < n4)
		return &nfsx_nfs4_ops[v4[i]];
	return i == n4 ? &nfsx_nfs4_compound : NULL;
}
