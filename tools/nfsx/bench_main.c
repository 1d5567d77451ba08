/* SPDX-License-Identifier: MIT */
/* nfsx bench: options, then the jobs or the latency mode, then the report. */
#include "bench.h"

#include <errno.h>
#include <string.h>

int cmd_bench(int argc, char **argv)
{
	struct bench_opts o;
	struct bench_job *jobs = NULL;
	char err[256];
	FILE *out = stdout;
	int rc, status = 0;

	bench_opts_defaults(&o);
	rc = bench_opts_parse(&o, argc, argv, err, sizeof(err));
	if (rc == 1) {
		fputs(bench_usage, stdout);
		return 0;
	}
	if (rc < 0) {
		fprintf(stderr, "nfsx bench: %s\n", err);
		return 2;
	}
	if (o.output) {
		out = fopen(o.output, "w");
		if (!out) {
			fprintf(stderr, "nfsx bench: %s: %s\n", o.output, strerror(errno));
			return 1;
		}
	}
	if (o.latency) {
		status = bench_latency(&o, out);
	} else {
		rc = bench_run(&o, &jobs);
		if (rc == -EINVAL) {
			status = 2;
		} else if (rc < 0) {
			fprintf(stderr, "nfsx bench: %s\n", strerror(-rc));
			status = 1;
		} else {
			for (unsigned i = 0; i < o.numjobs; i++) {
				if (jobs[i].err) {
					fprintf(stderr, "nfsx bench: job %u: %s\n", i, jobs[i].errmsg);
					status = 1;
				}
			}
			if (o.fmt == FMT_JSON)
				bench_report_json(out, &o, jobs, o.numjobs);
			else
				bench_report_text(out, &o, jobs, o.numjobs);
		}
		bench_free(jobs, o.numjobs);
	}
	if (out != stdout && fclose(out)) {
		fprintf(stderr, "nfsx bench: %s: %s\n", o.output, strerror(errno));
		status = 1;
	}
	return status;
}
