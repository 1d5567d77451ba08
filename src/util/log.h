/* SPDX-License-Identifier: MIT */
/* Logging to stderr with a level threshold; safe from any thread. */
#ifndef NFSX_UTIL_LOG_H
#define NFSX_UTIL_LOG_H

enum nfsx_log_level {
	NFSX_LOG_ERROR = 0,
	NFSX_LOG_WARN,
	NFSX_LOG_INFO,
	NFSX_LOG_DEBUG,
};

extern enum nfsx_log_level nfsx_log_threshold;

/* Send messages to syslog (daemon facility) instead of stderr. */
void nfsx_log_use_syslog(void);

/* Return values: 0, or -1 for an unknown level name. */
int nfsx_log_parse_level(const char *name, enum nfsx_log_level *out);

__attribute__((format(printf, 2, 3)))
void nfsx_log(enum nfsx_log_level level, const char *fmt, ...);

#define log_error(...) nfsx_log(NFSX_LOG_ERROR, __VA_ARGS__)
#define log_warn(...) nfsx_log(NFSX_LOG_WARN, __VA_ARGS__)
#define log_info(...) nfsx_log(NFSX_LOG_INFO, __VA_ARGS__)
#define log_debug(...)                                          \
	do {                                                    \
		if (nfsx_log_threshold >= NFSX_LOG_DEBUG)       \
			nfsx_log(NFSX_LOG_DEBUG, __VA_ARGS__);  \
	} while (0)

#endif
