/* SPDX-License-Identifier: MIT */
/*
 * nfsx mv|ln|chmod on nfs:// URLs, through the synchronous API
 * (nfsx_rename, nfsx_link, nfsx_setattr), over NFSv3 or NFSv4.1 alike.
 * mv and ln take two URLs of one server (host, port and version the
 * same): the destination is resolved by a context of its own and its
 * handle used on the source's, as handles name files server-wide; a
 * destination in another export is the server's to refuse (XDEV).
 */
#include "cmd_fs.h"
#include "target.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where @src's name goes in @dst: into it when it is a directory,
 * else its parent and last name. Return values: 0 or an NFS status. */
static int dest(struct target *dst, const char *src_rel, struct nfsx_fh *dir, const char **name)
{
	struct nfsx_attr a;
	int rc;

	if (!*dst->rel)
		rc = nfsx_getattr(dst->ctx, &dst->root, &a);
	else
		rc = nfsx_resolve(dst->ctx, dst->rel, dir, &a);
	if (rc == 0 && a.type == NF3DIR) {
		if (!*dst->rel)
			*dir = dst->root;
		*name = base_name(src_rel);
		return 0;
	}
	if (rc != 0 && rc != NFS3ERR_NOENT)
		return rc;
	return resolve_parent(dst, dst->rel, dir, name);
}

static bool same_server(const struct target *a, const struct target *b)
{
	return !strcmp(a->url.host, b->url.host) && a->url.port == b->url.port &&
	       a->url.version == b->url.version;
}

/* mv (@link false) or ln (@link true) of @argv[1] to @argv[2]. */
static int two_names(int argc, char **argv, bool link)
{
	struct target s, d;
	struct nfsx_fh sdir, fh, ddir;
	struct nfsx_attr a;
	const char *sname, *dname;
	int rc, status = 0;

	if (argc != 3 || !is_url(argv[1]) || !is_url(argv[2])) {
		fprintf(stderr, "usage: nfsx %s URL URL\n", fs_cmd);
		return 2;
	}
	rc = target_open(&s, argv[1]);
	if (rc)
		return rc;
	rc = target_open(&d, argv[2]);
	if (rc) {
		target_close(&s);
		return rc;
	}
	if (!same_server(&s, &d)) {
		msg(argv[2], "not on the server of %s (host, port and version must agree)", argv[1]);
		status = 1;
	} else if (!*s.rel) {
		msg(argv[1], "will not %s an export's root", link ? "link" : "move");
		status = 1;
	} else if ((rc = resolve(&s, s.rel, &fh, &a)) != 0 ||
		   (rc = resolve_parent(&s, s.rel, &sdir, &sname)) != 0) {
		status = nfs_fail(argv[1], rc);
	} else if ((rc = dest(&d, s.rel, &ddir, &dname)) != 0) {
		status = nfs_fail(argv[2], rc);
	} else {
		rc = link ? nfsx_link(s.ctx, &fh, &ddir, dname) :
			    nfsx_rename(s.ctx, &sdir, sname, &ddir, dname);
		if (rc)
			status = nfs_fail(argv[2], rc);
	}
	target_close(&d);
	target_close(&s);
	return status;
}

int cmd_mv(int argc, char **argv)
{
	fs_cmd = "mv";
	return two_names(argc, argv, false);
}

int cmd_ln(int argc, char **argv)
{
	fs_cmd = "ln";
	return two_names(argc, argv, true);
}

int cmd_chmod(int argc, char **argv)
{
	struct nfsx_sattr sa = { .set = NFSX_SET_MODE };
	unsigned long mode;
	char *end;
	int status = 0;

	fs_cmd = "chmod";
	if (argc < 3) {
		fprintf(stderr, "usage: nfsx chmod MODE URL...\n");
		return 2;
	}
	errno = 0;
	mode = strtoul(argv[1], &end, 8);
	if (errno || end == argv[1] || *end || mode > 07777 || argv[1][0] == '-') {
		msg(argv[1], "not an octal mode (0 to 7777)");
		return 2;
	}
	sa.mode = (uint32_t)mode;
	for (int i = 2; i < argc; i++) {
		struct target t;
		struct nfsx_fh fh;
		struct nfsx_attr a;
		int rc = target_open(&t, argv[i]);

		if (rc) {
			status = rc > status ? rc : status;
			continue;
		}
		rc = resolve(&t, t.rel, &fh, &a);
		if (!rc)
			rc = nfsx_setattr(t.ctx, &fh, &sa);
		if (rc)
			status = nfs_fail(argv[i], rc);
		target_close(&t);
	}
	return status;
}
