/* SPDX-License-Identifier: MIT */
/* nfsx bench option parsing: fio names, both spellings, sizes, times,
 * and the errors for bad values and bad combinations. */
#include <stdio.h>
#include <string.h>

#include "bench_opts.h"
#include "tap.h"

static char err[256];

/* Parse a NULL-terminated list of arguments into @o. */
#define PARSE(o, ...) parse_list((o), (const char *[]){ __VA_ARGS__, NULL })

static int parse_list(struct bench_opts *o, const char **args)
{
	char *argv[64];
	int argc = 0;

	while (args[argc]) {
		argv[argc] = (char *)args[argc];
		argc++;
	}
	bench_opts_defaults(o);
	err[0] = 0;
	return bench_opts_parse(o, argc, argv, err, sizeof(err));
}

#define URL "nfs://127.0.0.1:2049/export/dir"

int main(void)
{
	struct bench_opts o;
	uint64_t v;

	/* sizes */
	ok(bench_parse_size("4k", &v) && v == 4096, "4k = 4096");
	ok(bench_parse_size("4K", &v) && v == 4096, "4K = 4096");
	ok(bench_parse_size("1m", &v) && v == 1048576, "1m = 1 MiB");
	ok(bench_parse_size("1MiB", &v) && v == 1048576, "1MiB = 1 MiB");
	ok(bench_parse_size("2g", &v) && v == 2ull << 30, "2g = 2 GiB");
	ok(bench_parse_size("3t", &v) && v == 3ull << 40, "3t = 3 TiB");
	ok(bench_parse_size("512", &v) && v == 512, "512 = 512 bytes");
	ok(!bench_parse_size("", &v), "empty size refused");
	ok(!bench_parse_size("k", &v), "suffix without number refused");
	ok(!bench_parse_size("-4k", &v), "negative size refused");
	ok(!bench_parse_size("4q", &v), "unknown suffix refused");
	ok(!bench_parse_size("4k4", &v), "trailing garbage refused");
	ok(!bench_parse_size("99999999999999999999", &v), "overflowing number refused");
	ok(!bench_parse_size("20000000t", &v), "overflow through the suffix refused");

	/* times */
	ok(bench_parse_time("10", &v) && v == 10000000000ull, "bare 10 = 10 s (fio)");
	ok(bench_parse_time("10s", &v) && v == 10000000000ull, "10s");
	ok(bench_parse_time("500ms", &v) && v == 500000000ull, "500ms");
	ok(bench_parse_time("2m", &v) && v == 120000000000ull, "2m = 2 minutes");
	ok(bench_parse_time("1h", &v) && v == 3600000000000ull, "1h");
	ok(bench_parse_time("250us", &v) && v == 250000ull, "250us");
	ok(!bench_parse_time("10x", &v), "unknown time unit refused");
	ok(!bench_parse_time("s", &v), "unit without number refused");

	/* defaults */
	ok(PARSE(&o, URL) == 0, "URL alone parses: %s", err);
	ok(o.rw == RW_READ && o.bs == 4096 && o.iodepth == 1 && o.numjobs == 1 &&
	   o.nrfiles == 1 && o.rwmixread == 50 && o.size == 64ull << 20 && !o.verify &&
	   o.stable == STABLE_UNSTABLE && o.fmt == FMT_NORMAL, "defaults as documented");

	/* fio names, both spellings */
	ok(PARSE(&o, "--rw=randread", URL) == 0 && o.rw == RW_RANDREAD, "--rw=randread");
	ok(PARSE(&o, "rw=randwrite", URL) == 0 && o.rw == RW_RANDWRITE, "rw=randwrite");
	ok(PARSE(&o, URL, "readwrite=randrw") == 0 && o.rw == RW_RANDRW,
	   "readwrite=randrw, URL first");
	ok(PARSE(&o, "rw=rw", URL) == 0 && o.rw == RW_RW && bench_rw_reads(o.rw) &&
	   bench_rw_writes(o.rw) && !bench_rw_random(o.rw), "rw=rw is sequential mixed");
	ok(PARSE(&o, "rw=write", URL) == 0 && !bench_rw_reads(o.rw) && bench_rw_writes(o.rw),
	   "rw=write only writes");
	ok(PARSE(&o, "--bs=64k", "--iodepth=32", "--numjobs=4", "--size=1g", "--nrfiles=8", URL)
	   == 0 && o.bs == 65536 && o.iodepth == 32 && o.numjobs == 4 && o.size == 1ull << 30 &&
	   o.nrfiles == 8, "bs, iodepth, numjobs, size, nrfiles");
	ok(PARSE(&o, "blocksize=8k", URL) == 0 && o.bs == 8192, "blocksize= alias");
	ok(PARSE(&o, "rw=randrw", "rwmixread=70", URL) == 0 && o.rwmixread == 70, "rwmixread=70");
	ok(PARSE(&o, "rw=randrw", "--rwmixwrite=30", URL) == 0 && o.rwmixread == 70,
	   "rwmixwrite=30 means 70%% reads");
	ok(PARSE(&o, "runtime=3", "--ramp_time=500ms", "time_based", URL) == 0 &&
	   o.runtime_ns == 3000000000ull && o.ramp_ns == 500000000ull && o.time_based,
	   "runtime, ramp_time, bare time_based");
	ok(PARSE(&o, "--ramp-time=1s", "--time-based", "runtime=2", URL) == 0 &&
	   o.ramp_ns == 1000000000ull && o.time_based, "dashes for underscores");
	ok(PARSE(&o, "time_based=0", URL) == 0 && !o.time_based, "time_based=0");
	ok(PARSE(&o, "fsync=16", "end_fsync=1", URL) == 0 && o.fsync == 16 && o.end_fsync,
	   "fsync=16 end_fsync=1");
	ok(PARSE(&o, "sync=1", URL) == 0 && o.stable == STABLE_FILE_SYNC, "sync=1 -> FILE_SYNC");
	ok(PARSE(&o, "sync=dsync", URL) == 0 && o.stable == STABLE_DATA_SYNC,
	   "sync=dsync -> DATA_SYNC");
	ok(PARSE(&o, "sync=none", URL) == 0 && o.stable == STABLE_UNSTABLE, "sync=none -> UNSTABLE");
	ok(PARSE(&o, "verify=crc32c", URL) == 0 && o.verify, "verify=crc32c");
	ok(PARSE(&o, "verify=crc32c-intel", URL) == 0 && o.verify, "verify=crc32c-intel (fio alias)");
	ok(PARSE(&o, "--output-format=json", URL) == 0 && o.fmt == FMT_JSON, "--output-format=json");
	ok(PARSE(&o, "output_format=normal", URL) == 0 && o.fmt == FMT_NORMAL,
	   "output_format=normal");
	ok(PARSE(&o, "-v", URL) == 0 && o.verbose, "-v");
	ok(PARSE(&o, "--verbose", URL) == 0 && o.verbose, "--verbose");
	ok(PARSE(&o, "nfs_version=3", URL) == 0 && o.nfs_version == 3, "nfs_version=3");
	ok(PARSE(&o, "nfs_version=4.1", URL) == 0 && o.nfs_version == 4 && o.nfs_minor == 1,
	   "nfs_version=4.1");
	ok(PARSE(&o, "vers=4", URL) == 0 && o.nfs_version == 4 && o.nfs_minor == 0,
	   "vers=4: NFSv4, the highest minor version both sides speak");
	ok(PARSE(&o, "nfs_version=4.2", URL) == 0 && o.nfs_version == 4 && o.nfs_minor == 2,
	   "nfs_version=4.2");
	ok(PARSE(&o, "nfs_version=4.2", "read_plus=1", URL) == 0 && o.read_plus, "read_plus=1");
	ok(PARSE(&o, "nfs_version=4.1", "read_plus=1", URL) < 0 && strstr(err, "needs NFSv4.2"),
	   "read_plus=1 with nfs_version=4.1 refused: %s", err);
	ok(PARSE(&o, "nfs_version=3", "read_plus=1", URL) < 0 && strstr(err, "needs NFSv4.2"),
	   "read_plus=1 with nfs_version=3 refused: %s", err);
	ok(PARSE(&o, "read_plus=1", "latency", URL) < 0 && strstr(err, "latency"),
	   "read_plus=1 in the latency mode refused: %s", err);
	ok(PARSE(&o, "read_plus=2", URL) < 0, "read_plus=2 refused: %s", err);
	ok(PARSE(&o, "--eta=never", URL) == 0 && o.eta == ETA_NEVER, "eta=never");
	ok(PARSE(&o, "randseed=0x1234", URL) == 0 && o.randseed == 0x1234, "randseed in hex");
	ok(PARSE(&o, "name=job1", URL) == 0 && !strcmp(o.name, "job1"), "name=job1");
	ok(PARSE(&o, "directory=" URL) == 0 && o.url && !strcmp(o.url, URL), "directory=URL");
	ok(PARSE(&o, "--help") == 1, "--help returns 1");
	ok(PARSE(&o, "-h", "rw=bogus") == 1, "-h returns 1 before later errors");

	ok(PARSE(&o, "verify_only", URL) == 0 && o.verify_only && o.verify,
	   "verify_only implies verify");
	ok(PARSE(&o, "latency", "verify_only", URL) < 0, "verify_only with latency refused");

	/* latency mode */
	ok(PARSE(&o, "latency", "runs=3", URL) == 0 && o.latency && o.runs == 3 &&
	   o.bs == 512u << 10 && o.rw == RW_WRITE && o.iodepth == 1,
	   "latency mode defaults to 512k writes at depth 1");
	ok(PARSE(&o, "--latency", "bs=1m", URL) == 0 && o.bs == 1u << 20, "latency with bs=1m");
	ok(PARSE(&o, "latency", "iodepth=4", URL) < 0 && strstr(err, "queue depth 1"),
	   "latency with iodepth=4 refused: %s", err);
	ok(PARSE(&o, "latency", "rw=randread", URL) < 0 && strstr(err, "rw=randread"),
	   "latency with rw=randread refused: %s", err);
	ok(PARSE(&o, "latency", "numjobs=2", URL) < 0, "latency with numjobs=2 refused");

	/* bad values name the option and the value */
	ok(PARSE(&o, "rw=bogus", URL) < 0 && strstr(err, "bogus") && strstr(err, "rw"),
	   "rw=bogus refused: %s", err);
	ok(PARSE(&o, "bs=0", URL) < 0 && strstr(err, "bs"), "bs=0 refused: %s", err);
	ok(PARSE(&o, "bs=32m", URL) < 0, "bs=32m (over 16m) refused");
	ok(PARSE(&o, "bs=4x", URL) < 0, "bs=4x refused");
	ok(PARSE(&o, "iodepth=0", URL) < 0, "iodepth=0 refused");
	ok(PARSE(&o, "iodepth=2000", URL) < 0, "iodepth=2000 refused");
	ok(PARSE(&o, "numjobs=-1", URL) < 0, "numjobs=-1 refused");
	ok(PARSE(&o, "rwmixread=101", URL) < 0 && strstr(err, "rwmixread"),
	   "rwmixread=101 refused: %s", err);
	ok(PARSE(&o, "runtime=ten", URL) < 0 && strstr(err, "runtime"),
	   "runtime=ten refused: %s", err);
	ok(PARSE(&o, "sync=maybe", URL) < 0, "sync=maybe refused");
	ok(PARSE(&o, "verify=md5", URL) < 0 && strstr(err, "md5"), "verify=md5 refused: %s", err);
	ok(PARSE(&o, "nfs_version=4.0", URL) < 0 && strstr(err, "version 4.0"),
	   "nfs_version=4.0 refused: %s", err);
	ok(PARSE(&o, "nfs_version=2", URL) < 0, "nfs_version=2 refused");
	ok(PARSE(&o, "--output-format=xml", URL) < 0, "output-format=xml refused");
	ok(PARSE(&o, "--bogus=1", URL) < 0 && strstr(err, "unknown option '--bogus=1'"),
	   "unknown option refused: %s", err);
	ok(PARSE(&o, "-x", URL) < 0 && strstr(err, "-x"), "unknown short option refused");
	ok(PARSE(&o, "bs", URL) < 0 && strstr(err, "needs a value"), "bs without value: %s", err);
	ok(PARSE(&o, "time_based=maybe", URL) < 0, "time_based=maybe refused");
	ok(PARSE(&o, "name=a/b", URL) < 0, "name with '/' refused");
	ok(PARSE(&o, "=4k", URL) < 0, "'=4k' refused");

	/* combinations */
	ok(PARSE(&o, "rw=read") < 0 && strstr(err, "no target"), "no URL: %s", err);
	ok(PARSE(&o, URL, "nfs://h/e") < 0 && strstr(err, "two URLs"), "two URLs refused");
	ok(PARSE(&o, "url=http://x/y") < 0 && strstr(err, "not an nfs:// URL"),
	   "non-nfs URL refused: %s", err);
	ok(PARSE(&o, "time_based", URL) < 0 && strstr(err, "runtime"),
	   "time_based without runtime refused: %s", err);
	ok(PARSE(&o, "size=8k", "nrfiles=4", "bs=4k", URL) < 0 && strstr(err, "nrfiles"),
	   "files smaller than bs refused: %s", err);
	ok(PARSE(&o, "size=16k", "nrfiles=4", "bs=4k", URL) == 0, "files exactly bs accepted");
	ok(PARSE(&o, "verify=crc32c", "bs=32", URL) < 0 && strstr(err, "64"),
	   "verify with bs=32 refused: %s", err);

	return tap_done();
}
