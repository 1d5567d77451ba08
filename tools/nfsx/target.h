/* SPDX-License-Identifier: MIT */
/*
 * What the nfsx file commands share: a target (one server, one mounted
 * export, a path inside it) opened from an nfs:// URL, path resolution,
 * and error messages "nfsx CMD: WHAT: STATUS" naming the NFS status.
 */
#ifndef NFSX_TOOL_TARGET_H
#define NFSX_TOOL_TARGET_H

#include <stdbool.h>
#include <stdint.h>

#include "client/nfsx.h"

/* READ/WRITE size used by the copies (cut to the server's rtmax/wtmax). */
#define COPY_CHUNK (1u << 20)

/* One server, one mounted export, a path inside it. */
struct target {
	const char *arg;            /* the URL as given */
	struct nfsx_url url;
	struct nfsx_ctx *ctx;
	struct nfsx_fh root;
	char rel[4096];             /* path below the export root, no leading/trailing '/' */
	bool trailing_slash;
	uint32_t rtmax, wtmax;
};

/* The subcommand's name in messages ("ls", "cp", ...). */
extern const char *fs_cmd;

void msg(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Report @rc (nfsx_strerror) for @what. Return values: 1 (the exit status). */
int nfs_fail(const char *what, int rc);
bool is_url(const char *s);
/* Parse @arg, connect, mount. Return values: 0 or an exit status (message printed). */
int target_open(struct target *t, const char *arg);
void target_close(struct target *t);
int resolve(struct target *t, const char *rel, struct nfsx_fh *fh, struct nfsx_attr *at);
/* The directory of @rel and its last component (into *@name). */
int resolve_parent(struct target *t, const char *rel, struct nfsx_fh *dir, const char **name);
const char *base_name(const char *path);

#endif
