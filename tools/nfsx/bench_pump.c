/* SPDX-License-Identifier: MIT */
/*
 * The I/O pump of an nfsx bench job: slots (one per call in flight) are
 * filled by the current mode (layout, main workload, end COMMIT,
 * verify), completions are checked and accounted, and the loop keeps
 * iodepth calls in flight on the job's libnfsx context. The hot path
 * allocates nothing. See bench_job.c for the phases.
 */
#include "bench_job_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_io4.h"
#include "bench_verify.h"

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void job_fail(struct bench_job *j, int err, const char *fmt, ...)
{
	va_list ap;

	j->stopping = true;
	if (j->err)
		return;         /* keep the first */
	j->err = err ? err : 1;
	va_start(ap, fmt);
	vsnprintf(j->errmsg, sizeof(j->errmsg), fmt, ap);
	va_end(ap);
}

uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

static struct nfs_fh3 fh3(const struct nfsx_fh *fh)
{
	struct nfs_fh3 f = { .data = { .data = fh->data, .len = fh->len } };

	return f;
}

static nfs_fh4 fh4(const struct nfsx_fh *fh)
{
	nfs_fh4 f = { .data = fh->data, .len = fh->len };

	return f;
}

/* A READ, WRITE or COMMIT result, of either version. */
struct io_res {
	int status;                 /* nfsstat3 or nfsstat4 */
	uint32_t count;             /* READ: count (v3) or data length, WRITE: count */
	const uint8_t *data;        /* READ */
	uint32_t data_len;
	bool eof;
	const uint8_t *verf;        /* WRITE, COMMIT */
	bool file_sync;             /* WRITE: on stable storage (no COMMIT owed) */
};

static void io_res_of(struct bench_job *j, const struct bench_slot *s, enum slot_kind k,
		      const void *res, struct io_res *x)
{
	memset(x, 0, sizeof(*x));
	if (k == K_READ && j->o->read_plus) {
		/* Checked and counted; for verify, the data and zeros for
		 * the holes put in the slot's buffer. Otherwise the data stay
		 * in the reply, as READ's do: the two compare the calls, not
		 * a copy one of them makes. */
		struct nfsx4_read_plus_out out;
		int rc = nfsx4_read_plus_fill(res, s->off, s->len, j->o->verify ? s->buf : NULL,
					      &out);

		x->status = rc;
		if (rc)
			return;
		x->count = x->data_len = out.count;
		x->data = s->buf;
		x->eof = out.eof;
		j->rp_hole_bytes += out.hole_bytes;
		return;
	}
	if (j->vers == 4) {
		const struct READ4res *r = res;
		const struct WRITE4res *w = res;
		const struct COMMIT4res *c = res;

		/* every result starts with its status */
		x->status = (int)r->status;
		if (x->status != NFS4_OK)
			return;
		if (k == K_READ) {
			x->count = x->data_len = r->u.resok4.data.len;
			x->data = r->u.resok4.data.data;
			x->eof = r->u.resok4.eof;
		} else if (k == K_WRITE) {
			x->count = w->u.resok4.count;
			x->verf = w->u.resok4.writeverf.val;
			x->file_sync = w->u.resok4.committed == FILE_SYNC4;
		} else {
			x->verf = c->u.resok4.writeverf.val;
		}
		return;
	}
	if (k == K_READ) {
		const struct READ3res *r = res;

		x->status = (int)r->status;
		if (x->status != NFS3_OK)
			return;
		x->count = r->u.resok.count;
		x->data = r->u.resok.data.data;
		x->data_len = r->u.resok.data.len;
		x->eof = r->u.resok.eof;
	} else if (k == K_WRITE) {
		const struct WRITE3res *w = res;

		x->status = (int)w->status;
		if (x->status == NFS3_OK) {
			x->count = w->u.resok.count;
			x->verf = w->u.resok.verf.val;
			x->file_sync = w->u.resok.committed == FILE_SYNC;
		}
	} else {
		const struct COMMIT3res *c = res;

		x->status = (int)c->status;
		if (x->status == NFS3_OK)
			x->verf = c->u.resok.verf.val;
	}
}

static const char *kind_name(const struct bench_job *j, enum slot_kind k)
{
	if (k == K_READ)
		return j->o->read_plus ? "READ_PLUS" : "READ";
	return k == K_WRITE ? "WRITE" : "COMMIT";
}

static void check_verf(struct bench_job *j, const uint8_t *verf, const char *what)
{
	if (!j->have_verf) {
		memcpy(j->verf, verf, NFS3_WRITEVERFSIZE);
		j->have_verf = true;
	} else if (memcmp(j->verf, verf, NFS3_WRITEVERFSIZE)) {
		job_fail(j, EIO, "%s: the server's write verifier changed (server restarted?):"
			 " unstable writes may have been lost", what);
	}
}

/* Check every block of a READ reply against what the file should hold. */
static void verify_data(struct bench_job *j, struct bench_slot *s, const uint8_t *data)
{
	struct bench_file *f = &j->files[s->file];
	uint32_t bs = j->o->bs;

	for (uint32_t done = 0; done < s->len; done += bs) {
		uint64_t off = s->off + done;
		struct bv_id want = {
			.seed = j->o->randseed, .job = j->id, .file = s->file,
			.offset = off, .gen = f->gen[off / bs],
		};
		struct bv_report r;
		char msg[384];

		j->verify_blocks++;
		if (bv_check(data + done, bs, &want, &r))
			continue;
		j->verify_bad++;
		bv_describe(&r, msg, sizeof(msg));
		job_fail(j, EILSEQ, "verify failed: file %s: %s", f->name, msg);
		return;
	}
}

static void on_done(struct nfsx_ctx *ctx, int err, void *res, void *priv);
static void pump_fill(struct bench_job *j, struct pump *p, uint64_t now);

static void slot_release(struct bench_job *j, struct bench_slot *s)
{
	s->busy = false;
	j->inflight--;
	j->free_slots[j->nfree++] = (unsigned)(s - j->slots);
}

static void account(struct bench_job *j, struct bench_slot *s, uint64_t now)
{
	struct bench_dir *d;

	if (j->mode == M_LAYOUT || j->mode == M_VERIFY) {
		if (s->kind == K_WRITE)
			j->layout_bytes += s->len;
		return;
	}
	if (s->kind == K_READ) {
		atomic_fetch_add_explicit(&j->p_rd_ios, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&j->p_rd_bytes, s->len, memory_order_relaxed);
	} else if (s->kind == K_WRITE) {
		atomic_fetch_add_explicit(&j->p_wr_ios, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&j->p_wr_bytes, s->len, memory_order_relaxed);
	}
	if (!j->measuring)
		return;
	d = s->kind == K_READ ? &j->rd : s->kind == K_WRITE ? &j->wr : &j->sync;
	d->ios++;
	d->bytes += s->kind == K_COMMIT ? 0 : s->len;
	hist_add(&d->clat, now - s->t0);
}

static void on_done(struct nfsx_ctx *ctx, int err, void *res, void *priv)
{
	struct bench_slot *s = priv;
	struct bench_job *j = s->job;
	struct bench_file *f = &j->files[s->file];
	uint64_t now = bench_now_ns();
	struct io_res r;

	(void)ctx;
	slot_release(j, s);
	if (err < 0) {
		job_fail(j, err, "%s of %s at offset %" PRIu64 ": %s", kind_name(j, s->kind), f->name,
			 s->off, nfsx_strerror(err));
		return;
	}
	io_res_of(j, s, s->kind, res, &r);
	if (s->kind == K_READ) {
		if (r.status != 0) {
			job_fail(j, r.status, "%s of %s at offset %" PRIu64 ": %s",
				 kind_name(j, K_READ), f->name, s->off, nfsx_strerror(r.status));
			return;
		}
		if (r.count != s->len || r.data_len != s->len) {
			job_fail(j, EIO, "short %s of %s at offset %" PRIu64 ": %u of %u bytes%s",
				 kind_name(j, K_READ), f->name, s->off, r.data_len, s->len,
				 r.eof ? " (end of file)" : "");
			return;
		}
		if (j->o->verify)
			verify_data(j, s, r.data);
	} else if (s->kind == K_WRITE) {
		if (r.status != 0) {
			job_fail(j, r.status, "WRITE of %s at offset %" PRIu64 ": %s", f->name,
				 s->off, nfsx_strerror(r.status));
			return;
		}
		if (r.count != s->len) {
			job_fail(j, EIO, "short WRITE of %s at offset %" PRIu64 ": %u of %u bytes",
				 f->name, s->off, r.count, s->len);
			return;
		}
		/* a FILE_SYNC WRITE owes no COMMIT: a restart cannot lose it */
		if (!r.file_sync)
			check_verf(j, r.verf, "WRITE");
		if (j->o->verify && j->mode == M_MAIN)
			f->gen[s->off / j->o->bs] = s->gen;
		f->dirty = f->wrote = true;
		if (j->mode == M_MAIN && j->o->fsync && ++f->writes >= j->o->fsync) {
			f->writes = 0;
			f->commit_want = true;
		}
	} else {
		if (r.status != 0) {
			job_fail(j, r.status, "COMMIT of %s: %s", f->name, nfsx_strerror(r.status));
			return;
		}
		check_verf(j, r.verf, "COMMIT");
	}
	account(j, s, now);
	/* The next call from here: queued inside nfsx_run_once, it leaves
	 * with the turn's others in one send, and the context's descriptor
	 * needs no wake-up for it (nfsx.h). */
	if (j->pump)
		pump_fill(j, j->pump, now);
}

/* Is a call on block @blk of file @fi in flight? (verify with writes) */
static bool block_busy(const struct bench_job *j, unsigned fi, uint64_t off)
{
	for (unsigned i = 0; i < j->nslots; i++) {
		const struct bench_slot *s = &j->slots[i];

		if (s->busy && s->kind != K_COMMIT && s->file == fi &&
		    off < s->off + s->len && s->off < off + j->o->bs)
			return true;
	}
	return false;
}

/* Choose the next call of the main phase into @s; false if none now. */
static bool next_main(struct bench_job *j, struct pump *p, struct bench_slot *s)
{
	const struct bench_opts *o = j->o;
	uint64_t nblocks = j->file_size / o->bs, blk;
	bool rd;
	unsigned fi;
	struct bench_file *f;

	(void)p;
	if (j->stopping)
		return false;
	if (o->fsync) {
		for (unsigned i = 0; i < o->nrfiles; i++) {
			if (j->files[i].commit_want) {
				j->files[i].commit_want = false;
				s->kind = K_COMMIT;
				s->file = i;
				s->off = 0;
				s->len = 0;
				return true;
			}
		}
	}
	if (!o->time_based && j->issued >= j->io_limit)
		return false;
	switch (o->rw) {
	case RW_READ:
	case RW_RANDREAD:
		rd = true;
		break;
	case RW_WRITE:
	case RW_RANDWRITE:
		rd = false;
		break;
	default:
		rd = rng_next(&j->rng) % 100 < o->rwmixread;
		break;
	}
	fi = j->next_file;
	f = &j->files[fi];
	if (bench_rw_random(o->rw)) {
		int tries = 0;

		do {
			blk = rng_next(&j->rng) % nblocks;
		} while (o->verify && bench_rw_writes(o->rw) && block_busy(j, fi, blk * o->bs) &&
			 ++tries < 8);
		if (tries == 8)
			return false;
	} else {
		if (f->seq_off >= j->file_size)
			f->seq_off = 0;
		blk = f->seq_off / o->bs;
		if (o->verify && bench_rw_writes(o->rw) && block_busy(j, fi, blk * o->bs))
			return false;
		f->seq_off += o->bs;
	}
	j->next_file = (fi + 1) % o->nrfiles;
	s->kind = rd ? K_READ : K_WRITE;
	s->file = fi;
	s->off = blk * o->bs;
	s->len = o->bs;
	j->issued += o->bs;
	return true;
}

/* Layout: the files in p->todo, front to back, p->chunk bytes per WRITE. */
static bool next_seq(struct bench_job *j, struct pump *p, struct bench_slot *s, bool write)
{
	while (p->itodo < p->ntodo && p->off >= j->file_size) {
		p->itodo++;
		p->off = 0;
	}
	if (p->itodo >= p->ntodo || j->stopping)
		return false;
	s->kind = write ? K_WRITE : K_READ;
	s->file = p->todo[p->itodo];
	s->off = p->off;
	s->len = p->chunk;
	if (s->off + s->len > j->file_size)
		s->len = (uint32_t)(j->file_size - s->off);
	p->off += s->len;
	return true;
}

static bool next_commit(struct bench_job *j, struct pump *p, struct bench_slot *s)
{
	if (p->itodo >= p->ntodo || j->stopping)
		return false;
	s->kind = K_COMMIT;
	s->file = p->todo[p->itodo++];
	s->off = 0;
	s->len = 0;
	return true;
}

static int submit(struct bench_job *j, struct bench_slot *s, enum pump_mode mode)
{
	struct bench_file *f = &j->files[s->file];
	enum stable_how stable;
	const uint8_t *data;
	int rc;

	s->busy = true;
	j->inflight++;
	s->t0 = bench_now_ns();
	switch (s->kind) {
	case K_READ:
		if (j->o->read_plus) {
			s->a.rp4.fh = fh4(&f->fh);
			s->a.rp4.args.rpa_stateid = f->sid;
			s->a.rp4.args.rpa_offset = s->off;
			s->a.rp4.args.rpa_count = s->len;
			rc = nfsx4_read_plus(j->ctx, &s->a.rp4, on_done, s);
			break;
		}
		if (j->vers == 4) {
			s->a.r4.fh = fh4(&f->fh);
			s->a.r4.args.stateid = f->sid;
			s->a.r4.args.offset = s->off;
			s->a.r4.args.count = s->len;
			rc = nfsx4_read(j->ctx, &s->a.r4, on_done, s);
			break;
		}
		s->a.r.file = fh3(&f->fh);
		s->a.r.offset = s->off;
		s->a.r.count = s->len;
		rc = nfsx3_read(j->ctx, &s->a.r, on_done, s);
		break;
	case K_WRITE:
		stable = mode == M_MAIN ? (enum stable_how)j->o->stable : UNSTABLE;
		if (j->o->verify) {
			uint32_t bs = j->o->bs;

			s->gen = mode == M_MAIN ? ++j->gen_next : 0;
			for (uint32_t done = 0; done < s->len; done += bs) {
				struct bv_id id = {
					.seed = j->o->randseed, .job = j->id, .file = s->file,
					.offset = s->off + done, .gen = s->gen,
				};

				bv_fill(s->buf + done, bs, &id);
			}
		}
		data = j->o->verify ? s->buf : j->shared_buf;
		if (j->vers == 4) {
			s->a.w4.fh = fh4(&f->fh);
			s->a.w4.args.stateid = f->sid;
			s->a.w4.args.offset = s->off;
			/* stable_how and stable_how4 have the same values */
			s->a.w4.args.stable = (enum stable_how4)stable;
			s->a.w4.args.data.data = data;
			s->a.w4.args.data.len = s->len;
			rc = nfsx4_write(j->ctx, &s->a.w4, on_done, s);
			break;
		}
		s->a.w.file = fh3(&f->fh);
		s->a.w.offset = s->off;
		s->a.w.count = s->len;
		s->a.w.stable = stable;
		s->a.w.data.data = data;
		s->a.w.data.len = s->len;
		rc = nfsx3_write(j->ctx, &s->a.w, on_done, s);
		break;
	default:
		f->dirty = false;
		if (j->vers == 4) {
			s->a.c4.fh = fh4(&f->fh);
			s->a.c4.args.offset = 0;
			s->a.c4.args.count = 0;
			rc = nfsx4_commit(j->ctx, &s->a.c4, on_done, s);
			break;
		}
		s->a.c.file = fh3(&f->fh);
		s->a.c.offset = 0;
		s->a.c.count = 0;
		rc = nfsx3_commit(j->ctx, &s->a.c, on_done, s);
		break;
	}
	if (rc < 0) {
		s->busy = false;
		j->inflight--;
		job_fail(j, rc, "cannot queue %s of %s: %s", kind_name(j, s->kind), f->name,
			 nfsx_strerror(rc));
	}
	return rc;
}

void snapshot_ops(struct bench_job *j, struct nfsx_op_stats *dst)
{
	for (unsigned i = 0; i < BENCH_NPROCS; i++) {
		const struct nfsx_proc *p = bench_proc(j->vers, j->o->read_plus, i);
		const struct nfsx_op_stats *st = p ? nfsx_stats_get(j->ctx, p) : NULL;

		if (st)
			dst[i] = *st;
		else
			memset(&dst[i], 0, sizeof(dst[i]));
		dst[i].name = p ? p->name : NULL;
	}
}

void start_measuring(struct bench_job *j, uint64_t now)
{
	hist_init(&j->rd.clat);
	hist_init(&j->wr.clat);
	hist_init(&j->sync.clat);
	j->rd.ios = j->rd.bytes = j->wr.ios = j->wr.bytes = j->sync.ios = j->sync.bytes = 0;
	j->measuring = true;
	j->t_measure = now;
	snapshot_ops(j, j->ops_snap);
	atomic_store(&j->p_phase, PH_RUN);
}

/* Issue calls until @p->depth are in flight or there is nothing to issue
 * now (from pump_run, and from each completion). */
static void pump_fill(struct bench_job *j, struct pump *p, uint64_t now)
{
	/* the run's end, seen by a completion as pump_run would see it */
	if (p->mode == M_MAIN && j->measuring && p->deadline && now >= p->deadline)
		j->stopping = true;
	while (j->inflight < p->depth && j->nfree && !j->stopping) {
		struct bench_slot *s = &j->slots[j->free_slots[j->nfree - 1]];
		bool more;

		switch (p->mode) {
		case M_MAIN:
			more = next_main(j, p, s);
			break;
		case M_LAYOUT:
			more = next_seq(j, p, s, true);
			break;
		case M_VERIFY:
			more = next_seq(j, p, s, false);
			break;
		default:
			more = next_commit(j, p, s);
			break;
		}
		if (!more)
			break;
		j->nfree--;
		if (submit(j, s, p->mode) < 0) {
			j->nfree++;
			break;
		}
	}
}

/* Keep up to p->depth calls in flight until there is nothing to issue. */
void pump_run(struct bench_job *j, struct pump *p)
{
	const struct bench_opts *o = j->o;

	j->mode = p->mode;
	j->pump = p;
	for (;;) {
		uint64_t now = bench_now_ns();
		int rc, tmo = 200;

		if (p->mode == M_MAIN && !j->stopping) {
			if (!j->measuring && now >= p->deadline) {
				start_measuring(j, now);
				p->deadline = o->runtime_ns ? now + o->runtime_ns : 0;
			} else if (j->measuring && p->deadline && now >= p->deadline) {
				j->stopping = true;
			}
			if (p->deadline) {
				uint64_t left = p->deadline > now ? p->deadline - now : 0;

				if (left / 1000000 < (uint64_t)tmo)
					tmo = (int)(left / 1000000) + 1;
			}
		}
		pump_fill(j, p, now);
		if (!j->inflight) {
			/* nothing in flight and nothing issued: done, unless the
			 * main phase waits for its ramp or runtime deadline */
			if (j->stopping || p->mode != M_MAIN || !o->time_based)
				break;
		}
		rc = nfsx_run_once(j->ctx, tmo);
		if (rc < 0) {
			job_fail(j, rc, "connection to %s failed: %s (%s)", j->url.host,
				 nfsx_strerror(rc), nfsx_ctx_error(j->ctx));
			break;
		}
	}
	j->pump = NULL;
}
