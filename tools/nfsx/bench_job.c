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
 *           nfsx3_read/nfsx3_write/nfsx3_commit (NFSv4.1: nfsx4_*, each
 *           file opened once in setup and closed at the end, its open
 *           stateid on every READ and WRITE), until runtime has passed
 *           or io_size bytes were issued (time_based: runtime only)
 *   verify  with verify=crc32c, after a job that wrote: all its files
 *           read back and every block checked (verify_only: only this,
 *           on the files as an earlier run left them)
 * The hot path allocates nothing: slots (one per call in flight) own
 * their argument structs and, with verify, a block buffer; without
 * verify all writes send one shared buffer of random bytes.
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

/* Bytes per call of layout and verify: the server's size, at most 1 MiB,
 * whole blocks. */
static unsigned chunk_of(const struct bench_job *j, uint32_t max)
{
	uint32_t c = max < (1u << 20) ? max : (1u << 20);

	c = c / j->o->bs * j->o->bs;
	return c ? c : j->o->bs;
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
	j->minor = j->vers == 4 ? nfsx4_minor(j->ctx) : 0;
	if (o->read_plus) {
		/* READ_PLUS puts data and zeros for holes in the caller's
		 * buffer: one per slot, as large as any READ of the job */
		uint32_t need = chunk_of(j, j->rtmax);

		if (j->minor < 2) {
			job_fail(j, EOPNOTSUPP, "read_plus=1 needs NFSv4.2; the session is %s",
				 j->vers == 4 ? "NFSv4.1" : "NFSv3");
			return -1;
		}
		if (need < o->bs)
			need = o->bs;
		for (unsigned i = 0; i < j->nslots; i++) {
			uint8_t *b = realloc(j->slots[i].buf, need);

			if (!b) {
				job_fail(j, ENOMEM, "out of memory for READ_PLUS buffers");
				return -1;
			}
			j->slots[i].buf = b;
		}
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
	/* NFSv4.1: every file open for the whole job, as an application's. */
	for (unsigned i = 0; j->vers == 4 && !j->err && i < o->nrfiles; i++) {
		struct bench_file *f = &j->files[i];

		rc = bench_open4(j->ctx, &f->fh, &f->sid);
		if (rc) {
			job_fail(j, rc, "OPEN %s: %s", f->name, nfsx_strerror(rc));
			break;
		}
		f->opened = true;
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
		for (unsigned i = 0; j->files && i < o->nrfiles; i++) {
			struct bench_file *f = &j->files[i];
			int rc;

			if (!f->opened)
				continue;
			f->opened = false;
			rc = bench_close4(j->ctx, &f->fh, &f->sid);
			if (rc && !j->err)
				job_fail(j, rc, "CLOSE %s: %s", f->name, nfsx_strerror(rc));
		}
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
		/* nfs_version= over the URL's version= */
		if (o->nfs_version) {
			j->url.version = j->url.opts.version = o->nfs_version;
			j->url.opts.minor = o->nfs_minor;
		}
		j->vers = j->url.opts.version == 4 ? 4 : 3;
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
