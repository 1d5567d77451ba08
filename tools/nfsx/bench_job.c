/* SPDX-License-Identifier: MIT */
/*
 * nfsx bench jobs. A job is a thread with its own libnfsx context (its
 * own TCP connection) and its own files DIR/NAME.JOB.FILE. It runs:
 *   setup   mount, FSINFO, look up or create its files
 *   layout  write files that are missing or short (all of them with
 *           verify, so that their content is known), then COMMIT
 *   (all jobs wait for each other here)
 *   ramp    the workload, not counted
 *   run     the workload, counted: iodepth calls kept in flight with
 *           nfsx3_read/nfsx3_write/nfsx3_commit, until runtime has passed
 *           or io_size bytes were issued (time_based: runtime only)
 *   verify  with verify=crc32c, after a job that wrote: all its files
 *           read back and every block checked (verify_only: only this,
 *           on the files as an earlier run left them)
 * The hot path allocates nothing: slots (one per call in flight) own
 * their argument structs and, with verify, a block buffer; without
 * verify all writes send one shared buffer of random bytes.
 */
#include "bench.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_verify.h"

struct bench_file {
	char name[96];
	struct nfsx_fh fh;
	uint64_t seq_off;           /* next sequential offset */
	uint32_t *gen;              /* verify: generation of each block */
	unsigned writes;            /* writes completed since the last COMMIT */
	bool commit_want, dirty, wrote;
};

enum slot_kind { K_READ, K_WRITE, K_COMMIT };

struct bench_slot {
	struct bench_job *job;
	enum slot_kind kind;
	bool busy;
	unsigned file;
	uint64_t off;
	uint32_t len, gen;
	uint64_t t0;
	uint8_t *buf;               /* verify: this slot's write data */
	union {
		struct READ3args r;
		struct WRITE3args w;
		struct COMMIT3args c;
	} a;
};

/* What the pump is doing; decides how slots are filled. */
enum pump_mode { M_LAYOUT, M_MAIN, M_END_COMMIT, M_VERIFY };

struct pump {
	enum pump_mode mode;
	unsigned depth;
	uint32_t chunk;             /* layout/verify: bytes per call */
	unsigned file;              /* layout/verify: position */
	uint64_t off;
	unsigned *todo;             /* layout: files to write; end commit: files */
	unsigned ntodo, itodo;
	uint64_t deadline;          /* ramp end or run end (ns), 0: none */
};

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void job_fail(struct bench_job *j, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void job_fail(struct bench_job *j, int err, const char *fmt, ...)
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

static uint64_t rng_next(uint64_t *s)
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

static const char *kind_name(enum slot_kind k)
{
	return k == K_READ ? "READ" : k == K_WRITE ? "WRITE" : "COMMIT";
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

	(void)ctx;
	slot_release(j, s);
	if (err < 0) {
		job_fail(j, err, "%s of %s at offset %" PRIu64 ": %s", kind_name(s->kind), f->name,
			 s->off, nfsx_strerror(err));
		return;
	}
	if (s->kind == K_READ) {
		const struct READ3res *r = res;

		if (r->status != NFS3_OK) {
			job_fail(j, (int)r->status, "READ of %s at offset %" PRIu64 ": %s", f->name,
				 s->off, nfsx_strerror((int)r->status));
			return;
		}
		if (r->u.resok.count != s->len || r->u.resok.data.len != s->len) {
			job_fail(j, EIO, "short READ of %s at offset %" PRIu64 ": %u of %u bytes%s",
				 f->name, s->off, r->u.resok.data.len, s->len,
				 r->u.resok.eof ? " (end of file)" : "");
			return;
		}
		if (j->o->verify)
			verify_data(j, s, r->u.resok.data.data);
	} else if (s->kind == K_WRITE) {
		const struct WRITE3res *r = res;

		if (r->status != NFS3_OK) {
			job_fail(j, (int)r->status, "WRITE of %s at offset %" PRIu64 ": %s", f->name,
				 s->off, nfsx_strerror((int)r->status));
			return;
		}
		if (r->u.resok.count != s->len) {
			job_fail(j, EIO, "short WRITE of %s at offset %" PRIu64 ": %u of %u bytes",
				 f->name, s->off, r->u.resok.count, s->len);
			return;
		}
		check_verf(j, r->u.resok.verf.val, "WRITE");
		if (j->o->verify && j->mode == M_MAIN)
			f->gen[s->off / j->o->bs] = s->gen;
		f->dirty = f->wrote = true;
		if (j->mode == M_MAIN && j->o->fsync && ++f->writes >= j->o->fsync) {
			f->writes = 0;
			f->commit_want = true;
		}
	} else {
		const struct COMMIT3res *r = res;

		if (r->status != NFS3_OK) {
			job_fail(j, (int)r->status, "COMMIT of %s: %s", f->name,
				 nfsx_strerror((int)r->status));
			return;
		}
		check_verf(j, r->u.resok.verf.val, "COMMIT");
	}
	account(j, s, now);
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
	int rc;

	s->busy = true;
	j->inflight++;
	s->t0 = bench_now_ns();
	switch (s->kind) {
	case K_READ:
		s->a.r.file = fh3(&f->fh);
		s->a.r.offset = s->off;
		s->a.r.count = s->len;
		rc = nfsx3_read(j->ctx, &s->a.r, on_done, s);
		break;
	case K_WRITE:
		s->a.w.file = fh3(&f->fh);
		s->a.w.offset = s->off;
		s->a.w.count = s->len;
		s->a.w.stable = mode == M_MAIN ? (enum stable_how)j->o->stable : UNSTABLE;
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
			s->a.w.data.data = s->buf;
		} else {
			s->a.w.data.data = j->shared_buf;
		}
		s->a.w.data.len = s->len;
		rc = nfsx3_write(j->ctx, &s->a.w, on_done, s);
		break;
	default:
		s->a.c.file = fh3(&f->fh);
		s->a.c.offset = 0;
		s->a.c.count = 0;
		f->dirty = false;
		rc = nfsx3_commit(j->ctx, &s->a.c, on_done, s);
		break;
	}
	if (rc < 0) {
		s->busy = false;
		j->inflight--;
		job_fail(j, rc, "cannot queue %s of %s: %s", kind_name(s->kind), f->name,
			 nfsx_strerror(rc));
	}
	return rc;
}

static void snapshot_ops(struct bench_job *j, struct nfsx_op_stats *dst)
{
	for (unsigned i = 0; i < BENCH_NPROCS; i++) {
		const struct nfsx_op_stats *st = nfsx_stats_get(j->ctx, &nfsx_nfs3_procs[i]);

		if (st)
			dst[i] = *st;
		else
			memset(&dst[i], 0, sizeof(dst[i]));
		dst[i].name = nfsx_nfs3_procs[i].name;
	}
}

static void start_measuring(struct bench_job *j, uint64_t now)
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

/* Keep up to p->depth calls in flight until there is nothing to issue. */
static void pump_run(struct bench_job *j, struct pump *p)
{
	const struct bench_opts *o = j->o;

	j->mode = p->mode;
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
}

static int setup(struct bench_job *j)
{
	const struct bench_opts *o = j->o;
	struct nfsx_fh root;
	const char *rest = "";
	char err[256];
	uint32_t dtpref;
	int rc;

	j->ctx = nfsx_ctx_new(&j->url.opts, err, sizeof(err));
	if (!j->ctx) {
		job_fail(j, EINVAL, "%s", err);
		return -1;
	}
	rc = nfsx_mount_path(j->ctx, j->url.path, &root, &rest);
	if (rc) {
		job_fail(j, rc, "mount of %s on %s: %s", j->url.path, j->url.host, nfsx_strerror(rc));
		return -1;
	}
	while (*rest == '/')
		rest++;
	if (*rest) {
		rc = nfsx_mkdir_p(j->ctx, rest, 0755, &j->dir);
		if (rc) {
			job_fail(j, rc, "directory %s: %s", rest, nfsx_strerror(rc));
			return -1;
		}
	} else {
		j->dir = root;
	}
	rc = nfsx_fsinfo(j->ctx, &root, &j->rtmax, &j->wtmax, &dtpref);
	if (rc) {
		job_fail(j, rc, "FSINFO: %s", nfsx_strerror(rc));
		return -1;
	}
	if (bench_rw_reads(o->rw) && o->bs > j->rtmax) {
		job_fail(j, EINVAL, "bs=%" PRIu32 " is larger than the server's largest READ "
			 "(FSINFO rtmax %" PRIu32 " bytes)", o->bs, j->rtmax);
		return -1;
	}
	if (o->bs > j->wtmax) {
		job_fail(j, EINVAL, "bs=%" PRIu32 " is larger than the server's largest WRITE "
			 "(FSINFO wtmax %" PRIu32 " bytes)", o->bs, j->wtmax);
		return -1;
	}
	return 0;
}

static unsigned chunk_of(const struct bench_job *j, uint32_t max)
{
	uint32_t c = max < (1u << 20) ? max : (1u << 20);

	c = c / j->o->bs * j->o->bs;
	return c ? c : j->o->bs;
}

/* Look up or create the files; lay out those that need it. */
static int layout(struct bench_job *j, struct pump *p)
{
	const struct bench_opts *o = j->o;
	unsigned *todo = calloc(o->nrfiles, sizeof(*todo)), n = 0;
	int rc;

	if (!todo) {
		job_fail(j, ENOMEM, "out of memory");
		return -1;
	}
	for (unsigned i = 0; i < o->nrfiles; i++) {
		struct bench_file *f = &j->files[i];
		struct nfsx_attr at;

		rc = nfsx_lookup(j->ctx, &j->dir, f->name, &f->fh, &at);
		if (rc == 0 && at.type != NF3REG) {
			job_fail(j, EEXIST, "%s exists and is not a regular file", f->name);
			break;
		}
		if (o->verify_only) {
			if (rc)
				job_fail(j, rc, "verify_only: LOOKUP %s: %s", f->name, nfsx_strerror(rc));
			else if (at.size < j->file_size)
				job_fail(j, EINVAL, "verify_only: %s has %" PRIu64 " bytes, not %" PRIu64,
					 f->name, at.size, j->file_size);
			if (rc || at.size < j->file_size)
				break;
			continue;
		}
		if (rc == 0 && at.size >= j->file_size && !o->verify)
			continue;
		if (rc != 0 && rc != NFS3ERR_NOENT) {
			job_fail(j, rc, "LOOKUP %s: %s", f->name, nfsx_strerror(rc));
			break;
		}
		if (rc) {
			rc = nfsx_create(j->ctx, &j->dir, f->name, 0644, false, &f->fh);
			if (rc) {
				job_fail(j, rc, "CREATE %s: %s", f->name, nfsx_strerror(rc));
				break;
			}
		}
		todo[n++] = i;
	}
	if (!j->err && n) {
		atomic_store(&j->p_phase, PH_LAYOUT);
		p->mode = M_LAYOUT;
		p->depth = j->nslots;
		p->chunk = o->verify ? o->bs : chunk_of(j, j->wtmax);
		p->todo = todo;
		p->ntodo = n;
		p->itodo = 0;
		p->off = 0;
		pump_run(j, p);
		if (!j->err) {
			p->mode = M_END_COMMIT;
			p->itodo = 0;
			pump_run(j, p);
		}
	}
	for (unsigned i = 0; i < o->nrfiles; i++)
		j->files[i].dirty = j->files[i].wrote = false;
	free(todo);
	return j->err ? -1 : 0;
}

static void verify_pass(struct bench_job *j, struct pump *p)
{
	unsigned *todo = calloc(j->o->nrfiles, sizeof(*todo));

	if (!todo) {
		job_fail(j, ENOMEM, "out of memory");
		return;
	}
	for (unsigned i = 0; i < j->o->nrfiles; i++)
		todo[i] = i;
	atomic_store(&j->p_phase, PH_VERIFY);
	j->stopping = false;
	p->mode = M_VERIFY;
	p->chunk = chunk_of(j, j->rtmax);
	p->todo = todo;
	p->ntodo = j->o->nrfiles;
	p->itodo = 0;
	p->off = 0;
	pump_run(j, p);
	free(todo);
}

static int alloc_job(struct bench_job *j, struct pump *p)
{
	const struct bench_opts *o = j->o;
	uint64_t nblocks;
	size_t shared;

	j->file_size = o->size / o->nrfiles / o->bs * o->bs;
	nblocks = j->file_size / o->bs;
	j->io_limit = o->io_size ? o->io_size : j->file_size * o->nrfiles;
	j->rng = 0x9e3779b97f4a7c15ull ^ (o->randseed * 0xbf58476d1ce4e5b9ull) ^
		 ((uint64_t)(j->id + 1) << 32);
	if (!j->rng)
		j->rng = 1;
	/* layout and verify keep at least 16 calls in flight (within 64 MiB) */
	j->nslots = o->iodepth;
	if (j->nslots < 16 && (uint64_t)o->bs * 16 <= (64u << 20))
		j->nslots = 16;
	j->files = calloc(o->nrfiles, sizeof(*j->files));
	j->slots = calloc(j->nslots, sizeof(*j->slots));
	j->free_slots = calloc(j->nslots, sizeof(*j->free_slots));
	if (!j->files || !j->slots || !j->free_slots)
		return -1;
	for (unsigned i = 0; i < o->nrfiles; i++) {
		snprintf(j->files[i].name, sizeof(j->files[i].name), "%s.%u.%u", o->name, j->id, i);
		if (o->verify) {
			j->files[i].gen = calloc(nblocks, sizeof(uint32_t));
			if (!j->files[i].gen)
				return -1;
			if (o->verify_only)
				memset(j->files[i].gen, 0xff, nblocks * sizeof(uint32_t)); /* BV_GEN_ANY */
		}
	}
	for (unsigned i = 0; i < j->nslots; i++) {
		j->slots[i].job = j;
		if (o->verify) {
			j->slots[i].buf = malloc(o->bs);
			if (!j->slots[i].buf)
				return -1;
		}
		j->free_slots[i] = j->nslots - 1 - i;
	}
	j->nfree = j->nslots;
	if (!o->verify) {
		shared = o->bs > (1u << 20) ? o->bs : (1u << 20);
		j->shared_buf = malloc(shared);
		if (!j->shared_buf)
			return -1;
		for (size_t i = 0; i + 8 <= shared; i += 8) {
			uint64_t v = rng_next(&j->rng);

			memcpy(j->shared_buf + i, &v, 8);
		}
	}
	return 0;
}

static void *job_main(void *arg)
{
	struct bench_job *j = arg;
	const struct bench_opts *o = j->o;
	struct pump p;
	bool ok = true;

	memset(&p, 0, sizeof(p));
	hist_init(&j->rd.clat);
	hist_init(&j->wr.clat);
	hist_init(&j->sync.clat);
	if (alloc_job(j, &p) < 0) {
		job_fail(j, ENOMEM, "out of memory for %u slots of %" PRIu32 " bytes", j->nslots, o->bs);
		ok = false;
	}
	if (ok && setup(j) < 0)
		ok = false;
	if (ok && layout(j, &p) < 0)
		ok = false;
	pthread_barrier_wait(j->start);
	if (ok && o->verify_only) {
		j->t_measure = j->t_end = bench_now_ns();
		p.depth = j->nslots;
		verify_pass(j, &p);
	} else if (ok) {
		uint64_t now = bench_now_ns();

		j->stopping = false;
		p.mode = M_MAIN;
		p.depth = o->iodepth;
		if (o->ramp_ns) {
			atomic_store(&j->p_phase, PH_RAMP);
			p.deadline = now + o->ramp_ns;
		} else {
			start_measuring(j, now);
			p.deadline = o->runtime_ns ? now + o->runtime_ns : 0;
		}
		pump_run(j, &p);
		if (!j->err && o->end_fsync) {
			unsigned n = 0;

			p.todo = calloc(o->nrfiles, sizeof(*p.todo));
			for (unsigned i = 0; p.todo && i < o->nrfiles; i++)
				if (j->files[i].dirty)
					p.todo[n++] = i;
			j->stopping = false;
			p.mode = M_END_COMMIT;
			p.depth = j->nslots;
			p.ntodo = n;
			p.itodo = 0;
			pump_run(j, &p);
			free(p.todo);
			p.todo = NULL;
		}
		j->t_end = bench_now_ns();
		if (!j->measuring)
			j->t_measure = j->t_end;   /* ended during the ramp: nothing measured */
		if (j->ctx && j->t_end > j->t_measure) {
			struct nfsx_op_stats now_ops[BENCH_NPROCS];

			snapshot_ops(j, now_ops);
			for (unsigned i = 0; i < BENCH_NPROCS; i++)
				bench_ops_sub(&j->ops[i], &now_ops[i], &j->ops_snap[i]);
		}
		j->measuring = false;
		if (!j->err && o->verify) {
			bool wrote = false;

			for (unsigned i = 0; i < o->nrfiles; i++)
				wrote |= j->files[i].wrote;
			if (wrote) {
				p.depth = j->nslots;
				verify_pass(j, &p);
			}
		}
	}
	if (j->ctx) {
		nfsx_ctx_free(j->ctx);
		j->ctx = NULL;
	}
	atomic_store(&j->p_phase, PH_DONE);
	return NULL;
}

/* The live line on stderr, once a second: phases, rates of the last
 * second, elapsed time (of ramp + runtime when there is one). */
static void progress(const struct bench_opts *o, struct bench_job *jobs, unsigned n,
		     uint64_t t0, uint64_t *last_t, uint64_t last[4])
{
	static const char *const names[] = { "setup", "layout", "ramp", "run", "verify", "done" };
	uint64_t now = bench_now_ns(), cur[4] = { 0, 0, 0, 0 };
	unsigned ph[PH_DONE + 1] = { 0 };
	double dt = (double)(now - *last_t) / 1e9, el = (double)(now - t0) / 1e9;
	char rbw[32], wbw[32], riops[32], wiops[32], state[128];
	size_t len = 0;

	for (unsigned i = 0; i < n; i++) {
		cur[0] += atomic_load_explicit(&jobs[i].p_rd_ios, memory_order_relaxed);
		cur[1] += atomic_load_explicit(&jobs[i].p_wr_ios, memory_order_relaxed);
		cur[2] += atomic_load_explicit(&jobs[i].p_rd_bytes, memory_order_relaxed);
		cur[3] += atomic_load_explicit(&jobs[i].p_wr_bytes, memory_order_relaxed);
		ph[atomic_load(&jobs[i].p_phase)]++;
	}
	state[0] = 0;
	for (int p = 0; p <= PH_DONE; p++)
		if (ph[p] && len < sizeof(state))
			len += (size_t)snprintf(state + len, sizeof(state) - len, "%s%s %u",
						len ? ", " : "", names[p], ph[p]);
	if (dt <= 0)
		dt = 1e-9;
	fmt_bytes_iec(rbw, sizeof(rbw), (double)(cur[2] - last[2]) / dt);
	fmt_bytes_iec(wbw, sizeof(wbw), (double)(cur[3] - last[3]) / dt);
	fmt_count(riops, sizeof(riops), (double)(cur[0] - last[0]) / dt);
	fmt_count(wiops, sizeof(wiops), (double)(cur[1] - last[1]) / dt);
	fprintf(stderr, "\r\033[KJobs: %u (%s): [r=%s/s,w=%s/s][r=%s,w=%s IOPS][%.0fs", n, state,
		rbw, wbw, riops, wiops, el);
	if (o->runtime_ns)
		fprintf(stderr, "/%.0fs", (double)(o->runtime_ns + o->ramp_ns) / 1e9);
	fputs("]", stderr);
	fflush(stderr);
	*last_t = now;
	memcpy(last, cur, sizeof(cur));
}

int bench_run(const struct bench_opts *o, struct bench_job **jobs_out)
{
	struct bench_job *jobs = calloc(o->numjobs, sizeof(*jobs));
	pthread_barrier_t start;
	bool show = o->eta == ETA_ALWAYS || (o->eta == ETA_AUTO && isatty(2));
	char err[256];
	unsigned started = 0;
	int rc = 0;

	*jobs_out = jobs;
	if (!jobs)
		return -ENOMEM;
	pthread_barrier_init(&start, NULL, o->numjobs);
	for (unsigned i = 0; i < o->numjobs; i++) {
		struct bench_job *j = &jobs[i];

		j->id = i;
		j->o = o;
		j->start = &start;
		hist_init(&j->rd.clat);
		hist_init(&j->wr.clat);
		hist_init(&j->sync.clat);
		atomic_init(&j->p_phase, PH_SETUP);
		if (nfsx_url_parse(o->url, &j->url, err, sizeof(err))) {
			fprintf(stderr, "nfsx bench: %s: %s\n", o->url, err);
			rc = -EINVAL;
			break;
		}
		/* as root, a source port below 1024 (exports are "secure" by default) */
		if (geteuid() == 0)
			j->url.opts.privileged_port = true;
		if (j->url.version && j->url.version != 3) {
			fprintf(stderr, "nfsx bench: NFS version %u is not supported (NFSv3 only)\n",
				j->url.version);
			rc = -EINVAL;
			break;
		}
	}
	if (rc) {
		pthread_barrier_destroy(&start);
		return rc;
	}
	for (; started < o->numjobs; started++) {
		if (pthread_create(&jobs[started].thread, NULL, job_main, &jobs[started])) {
			fprintf(stderr, "nfsx bench: cannot start thread %u\n", started);
			/* the barrier would wait for it forever */
			abort();
		}
	}
	{
		uint64_t t0 = bench_now_ns(), last_t = t0, last[4] = { 0, 0, 0, 0 };
		uint64_t next = t0 + 1000000000ull;

		for (;;) {
			unsigned done = 0;
			struct timespec ts = { 0, 100 * 1000000L };

			for (unsigned i = 0; i < o->numjobs; i++)
				done += atomic_load(&jobs[i].p_phase) == PH_DONE;
			if (done == o->numjobs)
				break;
			nanosleep(&ts, NULL);
			if (show && bench_now_ns() >= next) {
				progress(o, jobs, o->numjobs, t0, &last_t, last);
				next += 1000000000ull;
			}
		}
		if (show)
			fputs("\r\033[K", stderr);
	}
	for (unsigned i = 0; i < started; i++)
		pthread_join(jobs[i].thread, NULL);
	pthread_barrier_destroy(&start);
	return 0;
}

void bench_free(struct bench_job *jobs, unsigned n)
{
	if (!jobs)
		return;
	for (unsigned i = 0; i < n; i++) {
		struct bench_job *j = &jobs[i];

		if (j->files)
			for (unsigned k = 0; k < j->o->nrfiles; k++)
				free(j->files[k].gen);
		if (j->slots)
			for (unsigned k = 0; k < j->nslots; k++)
				free(j->slots[k].buf);
		free(j->files);
		free(j->slots);
		free(j->shared_buf);
		free(j->free_slots);
	}
	free(jobs);
}
