/* SPDX-License-Identifier: MIT */
#include "bench_opts.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char bench_usage[] =
"usage: nfsx bench [OPTION=VALUE | --OPTION=VALUE]... nfs://HOST[:PORT]/EXPORT/DIR[?OPTS]\n"
"\n"
"An fio-like load generator over NFSv3, NFSv4.1 or NFSv4.2. Each job is a thread with\n"
"its own connection and its own files DIR/NAME.JOB.FILE, laid out (written in\n"
"full) before the measured run when they are missing or too short, or always\n"
"when verify is on. URL options: uid, gid, version, mountport, timeo, retrans.\n"
"\n"
"  rw=MODE           read|write|randread|randwrite|randrw|rw (readwrite) [read]\n"
"  bs=SIZE           block size of every I/O, random offsets aligned to it [4k]\n"
"  rwmixread=PCT     reads in percent for rw/randrw (rwmixwrite=PCT also) [50]\n"
"  iodepth=N         calls in flight per job [1]\n"
"  numjobs=N         jobs, each a thread with its own connection [1]\n"
"  size=SIZE         bytes of files per job, split over nrfiles [64m]\n"
"  io_size=SIZE      bytes of I/O per job before it stops [size]\n"
"  nrfiles=N         files per job, used round-robin [1]\n"
"  runtime=TIME      stop after this long (after ramp_time) [no limit]\n"
"  time_based        run for the whole runtime, wrapping around the files\n"
"  ramp_time=TIME    run this long before measuring; excluded from results [0]\n"
"  fsync=N           COMMIT a file after every N writes to it [0: never]\n"
"  end_fsync=BOOL    COMMIT every written file at the end of the job [0]\n"
"  sync=MODE         0|none: UNSTABLE writes, 1|sync: FILE_SYNC, dsync: DATA_SYNC [0]\n"
"  verify=crc32c     write blocks with a crc32c header and check every block\n"
"                    read; after a job that wrote, read all its files back [none]\n"
"  verify_only       no layout and no workload: read the files of an earlier run\n"
"                    with the same name, numjobs, nrfiles, size, bs and randseed\n"
"                    and check every block (any generation: corruption and\n"
"                    misplaced blocks are found, lost writes are not)\n"
"  randseed=N        seed of offsets and data [0x6e667378]\n"
"  name=NAME         job name, used in file names [nfsx]\n"
"  nfs_version=V     3, 4.1, 4.2, or 4 (the highest minor version both sides\n"
"                    speak: 4.2, else 4.1); vers=V also. Over NFSv4 each file\n"
"                    is opened once and its stateid used by every READ and\n"
"                    WRITE [the URL's version, 3]\n"
"  read_plus=BOOL    NFSv4.2: READ_PLUS instead of READ (holes come as zeros);\n"
"                    the report counts the hole bytes received [0]\n"
"  output-format=F   normal|json [normal]\n"
"  output=FILE       write the report to FILE\n"
"  eta=WHEN          progress line: auto (stderr is a terminal)|always|never [auto]\n"
"  verbose, -v       per-job lines in the report\n"
"  latency           iozone -N-like mode: sequential writes of bs (default 512k)\n"
"                    at queue depth 1 over a fresh file of size bytes, repeated\n"
"                    runs=N times [5]; per-call latency, mean and standard\n"
"                    deviation over the runs\n"
"\n"
"SIZE: bytes with k/m/g/t suffix (1024-based). TIME: number with us/ms/s/m/h\n"
"(default s). Exit status: 0 done, 1 I/O, NFS or verify error, 2 bad options.\n";

void bench_opts_defaults(struct bench_opts *o)
{
	memset(o, 0, sizeof(*o));
	snprintf(o->name, sizeof(o->name), "nfsx");
	o->rw = RW_READ;
	o->bs = 4096;
	o->rwmixread = 50;
	o->iodepth = 1;
	o->numjobs = 1;
	o->size = 64ull << 20;
	o->nrfiles = 1;
	o->randseed = 0x6e667378;
	o->fmt = FMT_NORMAL;
	o->eta = ETA_AUTO;
	o->runs = 5;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static bool mul_ok(uint64_t a, uint64_t m, uint64_t *out)
{
	if (m && a > UINT64_MAX / m)
		return false;
	*out = a * m;
	return true;
}

bool bench_parse_size(const char *s, uint64_t *out)
{
	static const struct { const char *suf; unsigned shift; } sufs[] = {
		{ "", 0 }, { "b", 0 },
		{ "k", 10 }, { "kb", 10 }, { "kib", 10 },
		{ "m", 20 }, { "mb", 20 }, { "mib", 20 },
		{ "g", 30 }, { "gb", 30 }, { "gib", 30 },
		{ "t", 40 }, { "tb", 40 }, { "tib", 40 },
	};
	char *end;
	uint64_t v;

	if (!s || !isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return false;
	for (size_t i = 0; i < sizeof(sufs) / sizeof(sufs[0]); i++)
		if (!strcasecmp(end, sufs[i].suf))
			return mul_ok(v, 1ull << sufs[i].shift, out);
	return false;
}

bool bench_parse_time(const char *s, uint64_t *out_ns)
{
	static const struct { const char *suf; uint64_t ns; } sufs[] = {
		{ "", 1000000000ull }, { "s", 1000000000ull }, { "sec", 1000000000ull },
		{ "us", 1000ull }, { "usec", 1000ull },
		{ "ms", 1000000ull }, { "msec", 1000000ull },
		{ "m", 60000000000ull }, { "min", 60000000000ull },
		{ "h", 3600000000000ull }, { "d", 86400000000000ull },
	};
	char *end;
	uint64_t v;

	if (!s || !isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return false;
	for (size_t i = 0; i < sizeof(sufs) / sizeof(sufs[0]); i++)
		if (!strcasecmp(end, sufs[i].suf))
			return mul_ok(v, sufs[i].ns, out_ns);
	return false;
}

static bool parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	uint64_t v;

	if (!s || !isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > max)
		return false;
	*out = v;
	return true;
}

static bool parse_bool(const char *s, bool *out)
{
	if (!s || !strcmp(s, "1") || !strcasecmp(s, "true") || !strcasecmp(s, "yes") ||
	    !strcasecmp(s, "on")) {
		*out = true;
		return true;
	}
	if (!strcmp(s, "0") || !strcasecmp(s, "false") || !strcasecmp(s, "no") ||
	    !strcasecmp(s, "off")) {
		*out = false;
		return true;
	}
	return false;
}

/* The values an option takes by name; a table ends with a NULL name. */
struct choice {
	const char *name;
	int value;
};

/* @val's value in @c. Return values: true and *out set, or false. */
static bool choose(const struct choice *c, const char *val, int *out)
{
	for (; c->name; c++) {
		if (!strcmp(val, c->name)) {
			*out = c->value;
			return true;
		}
	}
	return false;
}

static const struct choice rw_names[] = {
	{ "read", RW_READ }, { "write", RW_WRITE }, { "randread", RW_RANDREAD },
	{ "randwrite", RW_RANDWRITE }, { "randrw", RW_RANDRW }, { "rw", RW_RW },
	{ "readwrite", RW_RW }, { NULL, 0 },
};
static const struct choice sync_names[] = {
	{ "0", STABLE_UNSTABLE }, { "none", STABLE_UNSTABLE }, { "1", STABLE_FILE_SYNC },
	{ "sync", STABLE_FILE_SYNC }, { "dsync", STABLE_DATA_SYNC }, { NULL, 0 },
};
static const struct choice verify_names[] = {
	{ "0", 0 }, { "none", 0 }, { "crc32c", 1 }, { "crc32c-intel", 1 }, { NULL, 0 },
};
static const struct choice fmt_names[] = {
	{ "normal", FMT_NORMAL }, { "json", FMT_JSON }, { NULL, 0 },
};
static const struct choice eta_names[] = {
	{ "auto", ETA_AUTO }, { "always", ETA_ALWAYS }, { "never", ETA_NEVER }, { NULL, 0 },
};

const char *bench_rw_name(enum bench_rw rw)
{
	const struct choice *c;

	for (c = rw_names; c->name; c++)
		if (c->value == (int)rw)
			return c->name;
	return "?";
}

bool bench_rw_reads(enum bench_rw rw)
{
	return rw == RW_READ || rw == RW_RANDREAD || rw == RW_RANDRW || rw == RW_RW;
}

bool bench_rw_writes(enum bench_rw rw)
{
	return rw == RW_WRITE || rw == RW_RANDWRITE || rw == RW_RANDRW || rw == RW_RW;
}

bool bench_rw_random(enum bench_rw rw)
{
	return rw == RW_RANDREAD || rw == RW_RANDWRITE || rw == RW_RANDRW;
}

/* Option names with '-' turned into '_'. */
static void norm_name(char *dst, size_t n, const char *src, size_t len)
{
	size_t i;

	for (i = 0; i < len && i + 1 < n; i++)
		dst[i] = src[i] == '-' ? '_' : src[i];
	dst[i] = 0;
}

static int set_opt(struct bench_opts *o, const char *key, const char *val, const char *arg,
		   char *err, size_t errlen)
{
	uint64_t v;
	bool b;
	int c;

#define NEED_VAL() do { \
	if (!val) \
		return fail(err, errlen, "option '%s' needs a value (%s=...)", key, key); \
} while (0)
#define BAD(what) fail(err, errlen, "bad value '%s' for %s: %s", val, key, what)

	if (!strcmp(key, "rw") || !strcmp(key, "readwrite")) {
		NEED_VAL();
		if (!choose(rw_names, val, &c))
			return BAD("expected read, write, randread, randwrite, randrw or rw");
		o->rw = (enum bench_rw)c;
		return 0;
	}
	if (!strcmp(key, "bs") || !strcmp(key, "blocksize")) {
		NEED_VAL();
		if (!bench_parse_size(val, &v) || v == 0 || v > BENCH_MAX_BS)
			return BAD("expected a size from 1 to 16m (e.g. 4k, 1m)");
		o->bs = (uint32_t)v;
		o->bs_set = true;
		return 0;
	}
	if (!strcmp(key, "rwmixread") || !strcmp(key, "rwmixwrite")) {
		NEED_VAL();
		if (!parse_uint(val, 100, &v))
			return BAD("expected a percentage from 0 to 100");
		o->rwmixread = key[5] == 'r' ? (unsigned)v : 100 - (unsigned)v;
		return 0;
	}
	if (!strcmp(key, "iodepth")) {
		NEED_VAL();
		if (!parse_uint(val, BENCH_MAX_IODEPTH, &v) || v == 0)
			return BAD("expected 1 to 1024");
		o->iodepth = (unsigned)v;
		o->iodepth_set = true;
		return 0;
	}
	if (!strcmp(key, "numjobs")) {
		NEED_VAL();
		if (!parse_uint(val, BENCH_MAX_JOBS, &v) || v == 0)
			return BAD("expected 1 to 256");
		o->numjobs = (unsigned)v;
		return 0;
	}
	if (!strcmp(key, "size") || !strcmp(key, "io_size") || !strcmp(key, "io_limit")) {
		NEED_VAL();
		if (!bench_parse_size(val, &v) || v == 0)
			return BAD("expected a size such as 64m or 1g");
		if (key[0] == 's') {
			o->size = v;
			o->size_set = true;
		} else {
			o->io_size = v;
		}
		return 0;
	}
	if (!strcmp(key, "runtime") || !strcmp(key, "ramp_time")) {
		NEED_VAL();
		if (!bench_parse_time(val, &v))
			return BAD("expected a time such as 10, 10s, 500ms or 2m");
		if (key[1] == 'u')
			o->runtime_ns = v;
		else
			o->ramp_ns = v;
		return 0;
	}
	if (!strcmp(key, "nrfiles")) {
		NEED_VAL();
		if (!parse_uint(val, BENCH_MAX_NRFILES, &v) || v == 0)
			return BAD("expected 1 to 4096");
		o->nrfiles = (unsigned)v;
		return 0;
	}
	if (!strcmp(key, "fsync")) {
		NEED_VAL();
		if (!parse_uint(val, UINT32_MAX, &v))
			return BAD("expected a number of writes (0: never)");
		o->fsync = (unsigned)v;
		return 0;
	}
	if (!strcmp(key, "time_based") || !strcmp(key, "end_fsync") || !strcmp(key, "verbose") ||
	    !strcmp(key, "latency") || !strcmp(key, "verify_only") || !strcmp(key, "read_plus")) {
		if (!parse_bool(val, &b))
			return BAD("expected 0 or 1");
		if (!strcmp(key, "verify_only"))
			o->verify_only = b;
		else if (!strcmp(key, "read_plus"))
			o->read_plus = b;
		else if (key[0] == 't')
			o->time_based = b;
		else if (key[0] == 'e')
			o->end_fsync = b;
		else if (key[0] == 'v')
			o->verbose = b;
		else
			o->latency = b;
		return 0;
	}
	if (!strcmp(key, "sync")) {
		NEED_VAL();
		if (!choose(sync_names, val, &c))
			return BAD("expected 0, 1, none, sync or dsync");
		o->stable = (enum bench_stable)c;
		return 0;
	}
	if (!strcmp(key, "verify")) {
		NEED_VAL();
		if (!choose(verify_names, val, &c))
			return BAD("expected crc32c or none");
		o->verify = c != 0;
		return 0;
	}
	if (!strcmp(key, "randseed")) {
		NEED_VAL();
		if (!parse_uint(val, UINT64_MAX, &v))
			return BAD("expected a number");
		o->randseed = v;
		return 0;
	}
	if (!strcmp(key, "name")) {
		NEED_VAL();
		if (!*val || strlen(val) >= sizeof(o->name) || strchr(val, '/'))
			return BAD("expected 1 to 63 characters, no '/'");
		snprintf(o->name, sizeof(o->name), "%s", val);
		return 0;
	}
	if (!strcmp(key, "nfs_version") || !strcmp(key, "vers")) {
		NEED_VAL();
		/* "4": the highest minor version both sides speak (4.2, else
		 * 4.1; a server of 4.0 only fails the session). */
		o->nfs_minor = 0;
		if (!strcmp(val, "3")) {
			o->nfs_version = 3;
		} else if (!strcmp(val, "4")) {
			o->nfs_version = 4;
		} else if (!strcmp(val, "4.1") || !strcmp(val, "4.2")) {
			o->nfs_version = 4;
			o->nfs_minor = val[2] - '0';
		} else {
			return fail(err, errlen, "NFS version %s is not supported: nfs_version=3, 4.1,"
				    " 4.2 or 4", val);
		}
		return 0;
	}
	if (!strcmp(key, "output_format")) {
		NEED_VAL();
		if (!choose(fmt_names, val, &c))
			return BAD("expected normal or json");
		o->fmt = (enum bench_fmt)c;
		return 0;
	}
	if (!strcmp(key, "output")) {
		NEED_VAL();
		if (!*val)
			return BAD("expected a file name");
		o->output = val;
		return 0;
	}
	if (!strcmp(key, "eta")) {
		NEED_VAL();
		if (!choose(eta_names, val, &c))
			return BAD("expected auto, always or never");
		o->eta = (enum bench_eta)c;
		return 0;
	}
	if (!strcmp(key, "runs")) {
		NEED_VAL();
		if (!parse_uint(val, 100000, &v) || v == 0)
			return BAD("expected 1 to 100000");
		o->runs = (unsigned)v;
		return 0;
	}
	if (!strcmp(key, "url") || !strcmp(key, "directory")) {
		NEED_VAL();
		o->url = val;
		return 0;
	}
	return fail(err, errlen, "unknown option '%s' (nfsx bench --help lists them)", arg);
#undef NEED_VAL
#undef BAD
}

int bench_opts_parse(struct bench_opts *o, int argc, char **argv, char *err, size_t errlen)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *eq, *val = NULL;
		char key[64];
		size_t klen;
		int rc;

		if (!strcmp(a, "-h") || !strcmp(a, "--help") || !strcmp(a, "help"))
			return 1;
		if (!strcmp(a, "-v")) {
			o->verbose = true;
			continue;
		}
		if (!strncmp(a, "nfs://", 6)) {
			if (o->url)
				return fail(err, errlen, "two URLs given: '%s' and '%s'", o->url, a);
			o->url = a;
			continue;
		}
		if (!strncmp(a, "--", 2))
			a += 2;
		else if (a[0] == '-')
			return fail(err, errlen, "unknown option '%s' (nfsx bench --help lists them)",
				    argv[i]);
		eq = strchr(a, '=');
		klen = eq ? (size_t)(eq - a) : strlen(a);
		if (!klen || klen >= sizeof(key))
			return fail(err, errlen, "cannot parse '%s': expected NAME=VALUE or an nfs:// URL",
				    argv[i]);
		norm_name(key, sizeof(key), a, klen);
		if (eq)
			val = eq + 1;
		rc = set_opt(o, key, val, argv[i], err, errlen);
		if (rc)
			return rc;
	}
	return bench_opts_check(o, err, errlen);
}

int bench_opts_check(struct bench_opts *o, char *err, size_t errlen)
{
	uint64_t per_file;

	if (!o->url)
		return fail(err, errlen, "no target: give nfs://HOST[:PORT]/EXPORT/DIR");
	if (strncmp(o->url, "nfs://", 6))
		return fail(err, errlen, "target '%s' is not an nfs:// URL", o->url);
	if (o->latency) {
		if (o->rw != RW_READ && o->rw != RW_WRITE)
			return fail(err, errlen, "latency mode writes sequentially: rw=%s does not apply",
				    bench_rw_name(o->rw));
		o->rw = RW_WRITE;
		if (o->iodepth_set && o->iodepth != 1)
			return fail(err, errlen, "latency mode runs at queue depth 1, not iodepth=%u",
				    o->iodepth);
		if (o->numjobs != 1)
			return fail(err, errlen, "latency mode runs one job, not numjobs=%u", o->numjobs);
		if (!o->bs_set)
			o->bs = 512u << 10;
		o->nrfiles = 1;
	}
	if (o->read_plus) {
		if (o->latency)
			return fail(err, errlen, "read_plus does not apply to the latency mode (it "
				    "writes)");
		if (o->nfs_version == 3 || (o->nfs_version == 4 && o->nfs_minor == 1))
			return fail(err, errlen, "read_plus=1 needs NFSv4.2 (nfs_version=4.2)");
	}
	if (o->verify_only) {
		if (o->latency)
			return fail(err, errlen, "verify_only does not apply to the latency mode");
		o->verify = true;
	}
	if (o->verify && o->bs < 64)
		return fail(err, errlen, "verify=crc32c needs bs of at least 64 bytes (a block "
			    "carries a 48-byte header), not %" PRIu32, o->bs);
	per_file = o->size / o->nrfiles / o->bs * o->bs;
	if (per_file < o->bs)
		return fail(err, errlen, "size=%" PRIu64 " over nrfiles=%u leaves files smaller than "
			    "bs=%" PRIu32, o->size, o->nrfiles, o->bs);
	if (o->time_based && !o->runtime_ns)
		return fail(err, errlen, "time_based needs a runtime");
	if (o->latency && o->time_based)
		return fail(err, errlen, "latency mode writes size bytes per run; time_based does "
			    "not apply");
	return 0;
}
