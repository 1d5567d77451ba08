/* SPDX-License-Identifier: MIT */
/*
 * nfsx bench options, named as fio names them where fio has the option.
 * Every option is accepted as "--name=value" or "name=value"; a flag
 * (time_based, end_fsync, verbose, latency) also bare ("--time_based",
 * "time_based") or with =0/=1. '-' and '_' are interchangeable in names.
 * Sizes take k/m/g/t suffixes (powers of 1024, also written KiB/kb...),
 * times us/ms/s/m/h (a bare number is seconds, as in fio).
 */
#ifndef NFSX_TOOL_BENCH_OPTS_H
#define NFSX_TOOL_BENCH_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum bench_rw {
	RW_READ,        /* sequential read */
	RW_WRITE,       /* sequential write */
	RW_RANDREAD,
	RW_RANDWRITE,
	RW_RANDRW,      /* random, rwmixread% reads */
	RW_RW,          /* sequential mixed ("rw", "readwrite") */
};

enum bench_stable { STABLE_UNSTABLE = 0, STABLE_DATA_SYNC = 1, STABLE_FILE_SYNC = 2 };
enum bench_fmt { FMT_NORMAL, FMT_JSON };
enum bench_eta { ETA_AUTO, ETA_ALWAYS, ETA_NEVER };

#define BENCH_MAX_JOBS 256
#define BENCH_MAX_IODEPTH 1024
#define BENCH_MAX_BS (16u << 20)
#define BENCH_MAX_NRFILES 4096

struct bench_opts {
	const char *url;           /* nfs://host[:port]/export/dir[?opts]: where the files go */
	char name[64];             /* job name, file names are NAME.JOB.FILE (fio's default) */
	enum bench_rw rw;
	uint32_t bs;
	unsigned rwmixread;        /* percent of reads in rw/randrw */
	unsigned iodepth;
	unsigned numjobs;
	uint64_t size;             /* per job, split over nrfiles */
	uint64_t io_size;          /* bytes of I/O per job (0: size) */
	uint64_t runtime_ns;       /* 0: until io_size is done */
	uint64_t ramp_ns;
	bool time_based;           /* run for runtime, wrapping around the files */
	unsigned nrfiles;
	unsigned fsync;            /* COMMIT a file after every N writes to it (0: never) */
	bool end_fsync;            /* COMMIT every written file when the job ends */
	enum bench_stable stable;  /* sync=0|1|sync|dsync|none */
	bool verify;               /* verify=crc32c */
	bool verify_only;          /* no layout, no workload: check the files as they are */
	uint64_t randseed;
	unsigned nfs_version;      /* 3, or 4: NFSv4 (0: as the URL says, 3 by default) */
	unsigned nfs_minor;        /* NFSv4: 1, 2, or 0 for the highest both sides speak */
	bool read_plus;            /* NFSv4.2: READ_PLUS instead of READ */
	enum bench_fmt fmt;
	const char *output;        /* write the report here instead of stdout */
	enum bench_eta eta;        /* progress line */
	bool verbose;              /* per-job lines */
	bool latency;              /* iozone -N-like latency mode */
	unsigned runs;             /* latency mode: runs */
	bool bs_set, size_set, iodepth_set;
};

void bench_opts_defaults(struct bench_opts *o);

/*
 * Parse @argc/@argv (options and the URL, in any order) into @o, which
 * bench_opts_defaults() has set up, and check the combination.
 * Return values: 0; 1 if --help was asked for; -1 with a message in @err.
 */
int bench_opts_parse(struct bench_opts *o, int argc, char **argv, char *err, size_t errlen);

/* Checks the combination (called by bench_opts_parse). */
int bench_opts_check(struct bench_opts *o, char *err, size_t errlen);

/* "4k" -> 4096 etc.; false on garbage or overflow. */
bool bench_parse_size(const char *s, uint64_t *out);
/* "10" -> 10 s, "500ms", "2m", "1h" -> nanoseconds. */
bool bench_parse_time(const char *s, uint64_t *out_ns);

const char *bench_rw_name(enum bench_rw rw);
bool bench_rw_reads(enum bench_rw rw);
bool bench_rw_writes(enum bench_rw rw);
bool bench_rw_random(enum bench_rw rw);

/* The option summary printed by --help. */
extern const char bench_usage[];

#endif
