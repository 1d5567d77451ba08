/* SPDX-License-Identifier: MIT */
/* Logging: one line per message, written with a single write(2). */
#include "util/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

enum nfsx_log_level nfsx_log_threshold = NFSX_LOG_INFO;
static int use_syslog;

void nfsx_log_use_syslog(void)
{
	openlog("nfsxd", LOG_PID | LOG_NDELAY, LOG_DAEMON);
	use_syslog = 1;
}

static const char *const level_names[] = { "error", "warn", "info", "debug" };

int nfsx_log_parse_level(const char *name, enum nfsx_log_level *out)
{
	unsigned int i;

	for (i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++) {
		if (strcmp(name, level_names[i]) == 0) {
			*out = (enum nfsx_log_level)i;
			return 0;
		}
	}
	return -1;
}

void nfsx_log(enum nfsx_log_level level, const char *fmt, ...)
{
	char line[1024];
	struct timespec ts;
	struct tm tm;
	va_list ap;
	int n, m;

	if (level > nfsx_log_threshold)
		return;
	if (use_syslog) {
		static const int prio[] = { LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG };

		va_start(ap, fmt);
		vsyslog(prio[level], fmt, ap);
		va_end(ap);
		return;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = snprintf(line, sizeof(line), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ nfsxd %s: ",
		     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		     tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000,
		     level_names[level]);
	va_start(ap, fmt);
	m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (m < 0)
		m = 0;
	n += m;
	if ((size_t)n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	/* One write per line keeps lines from different threads whole. */
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}
