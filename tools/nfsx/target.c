/* SPDX-License-Identifier: MIT */
/* What the nfsx file commands share: see target.h. */
#include "target.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *fs_cmd = "nfsx";

void msg(const char *what, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "nfsx %s: %s: ", fs_cmd, what);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int nfs_fail(const char *what, int rc)
{
	msg(what, "%s", nfsx_strerror(rc));
	return 1;
}

bool is_url(const char *s)
{
	return !strncmp(s, "nfs://", 6);
}

void target_close(struct target *t)
{
	if (t->ctx)
		nfsx_ctx_free(t->ctx);
	t->ctx = NULL;
}

/* Parse, connect, mount. Returns 0 or an exit status (message printed). */
int target_open(struct target *t, const char *arg)
{
	char err[256];
	const char *rest = "";
	uint32_t dtpref;
	size_t n;
	int rc;

	memset(t, 0, sizeof(*t));
	t->arg = arg;
	if (nfsx_url_parse(arg, &t->url, err, sizeof(err))) {
		msg(arg, "%s", err);
		return 2;
	}
	/* as root, use a source port below 1024 as the kernel and libnfs do,
	 * so that exports with the (default) "secure" option accept us */
	if (geteuid() == 0)
		t->url.opts.privileged_port = true;
	t->ctx = nfsx_ctx_new(&t->url.opts, err, sizeof(err));
	if (!t->ctx) {
		msg(arg, "%s", err);
		return 1;
	}
	rc = nfsx_mount_path(t->ctx, t->url.path, &t->root, &rest);
	if (rc) {
		msg(arg, "mount: %s", nfsx_strerror(rc));
		target_close(t);
		return 1;
	}
	while (*rest == '/')
		rest++;
	snprintf(t->rel, sizeof(t->rel), "%s", rest);
	n = strlen(t->rel);
	while (n && t->rel[n - 1] == '/') {
		t->rel[--n] = 0;
		t->trailing_slash = true;
	}
	rc = nfsx_fsinfo(t->ctx, &t->root, &t->rtmax, &t->wtmax, &dtpref);
	if (rc) {
		msg(arg, "FSINFO: %s", nfsx_strerror(rc));
		target_close(t);
		return 1;
	}
	if (!t->rtmax || t->rtmax > COPY_CHUNK)
		t->rtmax = COPY_CHUNK;
	if (!t->wtmax || t->wtmax > COPY_CHUNK)
		t->wtmax = COPY_CHUNK;
	return 0;
}

/* Resolve a path below the export root ("" is the root). */
int resolve(struct target *t, const char *rel, struct nfsx_fh *fh, struct nfsx_attr *at)
{
	if (!*rel) {
		*fh = t->root;
		return nfsx_getattr(t->ctx, fh, at);
	}
	return nfsx_resolve(t->ctx, rel, fh, at);
}

/* Split @rel into its parent directory's handle and the last name. */
int resolve_parent(struct target *t, const char *rel, struct nfsx_fh *dir,
		   const char **name)
{
	char parent[4096];
	const char *slash = strrchr(rel, '/');
	struct nfsx_attr at;
	int rc;

	if (!slash) {
		*name = rel;
		*dir = t->root;
		return 0;
	}
	snprintf(parent, sizeof(parent), "%.*s", (int)(slash - rel), rel);
	*name = slash + 1;
	rc = resolve(t, parent, dir, &at);
	if (!rc && at.type != NF3DIR)
		rc = NFS3ERR_NOTDIR;
	return rc;
}

const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}
