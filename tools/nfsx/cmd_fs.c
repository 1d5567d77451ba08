/* SPDX-License-Identifier: MIT */
/*
 * nfsx ls|stat|rm|mkdir on nfs:// URLs, through the synchronous path API
 * of libnfsx. Every failure is reported as "nfsx CMD: WHAT: STATUS",
 * STATUS naming the NFS status (NFS3ERR_NOENT (2): ...) or the local or
 * transport error, and gives exit status 1. The copies (cat, get, put,
 * cp) are in cmd_copy.c.
 */
#include "cmd_fs.h"
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

static void mode_string(const struct nfsx_attr *a, char out[11])
{
	static const char types[] = "?-dbcl";
	char t = a->type <= 5 ? types[a->type] : '?';

	if (a->type == NF3SOCK)
		t = 's';
	else if (a->type == NF3FIFO)
		t = 'p';
	out[0] = t;
	for (int i = 0; i < 9; i++)
		out[1 + i] = (a->mode & (0400u >> i)) ? "rwxrwxrwx"[i] : '-';
	if (a->mode & 04000)
		out[3] = (a->mode & 0100) ? 's' : 'S';
	if (a->mode & 02000)
		out[6] = (a->mode & 010) ? 's' : 'S';
	if (a->mode & 01000)
		out[9] = (a->mode & 01) ? 't' : 'T';
	out[10] = 0;
}

static void time_string(int64_t ns, char *out, size_t n, bool full)
{
	int64_t sec = ns / 1000000000, frac = ns % 1000000000;
	time_t s;
	struct tm tm;

	if (frac < 0) {
		frac += 1000000000;
		sec--;
	}
	s = (time_t)sec;

	if (!localtime_r(&s, &tm)) {
		snprintf(out, n, "?");
		return;
	}
	if (full) {
		char base[24], zone[8];

		if (!strftime(base, sizeof(base), "%Y-%m-%d %H:%M:%S", &tm))
			base[0] = 0;
		if (!strftime(zone, sizeof(zone), "%z", &tm))
			zone[0] = 0;
		snprintf(out, n, "%s.%09u %s", base, (unsigned)frac, zone);
	} else {
		strftime(out, n, "%Y-%m-%d %H:%M", &tm);
	}
}

/* ------------------------------------------------------------------ */
/* ls                                                                   */

struct ls_ent {
	char *name;
	bool has_attr;
	struct nfsx_attr attr;
	struct nfsx_fh fh;         /* len 0 when the listing gave none */
};

struct ls_list {
	struct ls_ent *v;
	size_t n, cap;
	bool all;
	bool oom;
};

static int ls_collect(const struct nfsx_dirent *e, void *priv)
{
	struct ls_list *l = priv;

	if (!l->all && e->name[0] == '.')
		return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct ls_ent *v = realloc(l->v, cap * sizeof(*v));

		if (!v) {
			l->oom = true;
			return 1;
		}
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n].name = strdup(e->name);
	if (!l->v[l->n].name) {
		l->oom = true;
		return 1;
	}
	l->v[l->n].has_attr = e->has_attr;
	l->v[l->n].attr = e->attr;
	l->v[l->n].fh = e->fh;
	l->n++;
	return 0;
}

static int ls_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ls_ent *)a)->name, ((const struct ls_ent *)b)->name);
}

/*
 * " -> TARGET" of a symbolic link (ls -l, stat), into @out; "" when @a is
 * no link, " -> ?" when its target cannot be read. @fh may be empty: the
 * link is then looked up as @name in @dir.
 */
static void link_suffix(struct nfsx_ctx *c, const struct nfsx_attr *a, const struct nfsx_fh *fh,
			const struct nfsx_fh *dir, const char *name, char *out, size_t n)
{
	char target[4096];
	struct nfsx_fh f;

	out[0] = '\0';
	if (a->type != NF3LNK)
		return;
	if (fh && fh->len)
		f = *fh;
	else if (!dir || nfsx_lookup(c, dir, name, &f, NULL) != 0)
		f.len = 0;
	if (f.len && nfsx_readlink(c, &f, target, sizeof(target)) == 0)
		snprintf(out, n, " -> %s", target);
	else
		snprintf(out, n, " -> ?");
}

static void ls_line(const char *name, const struct nfsx_attr *a, bool has_attr, bool lng,
		    const char *link)
{
	char mode[11], when[32];

	if (!lng) {
		printf("%s\n", name);
		return;
	}
	if (!has_attr) {
		printf("?????????? %4s %5s %5s %12s %16s %s\n", "?", "?", "?", "?", "?", name);
		return;
	}
	mode_string(a, mode);
	time_string(a->mtime_ns, when, sizeof(when), false);
	if (a->type == NF3BLK || a->type == NF3CHR)
		printf("%s %4" PRIu32 " %5" PRIu32 " %5" PRIu32 " %5" PRIu32 ", %5" PRIu32 " %16s %s\n",
		       mode, a->nlink, a->uid, a->gid, a->rdev_major, a->rdev_minor, when, name);
	else
		printf("%s %4" PRIu32 " %5" PRIu32 " %5" PRIu32 " %12" PRIu64 " %16s %s%s\n", mode,
		       a->nlink, a->uid, a->gid, a->size, when, name, link);
}

static int ls_one(const char *url, bool lng, bool all, bool header)
{
	struct target t;
	struct nfsx_fh fh;
	struct nfsx_attr at;
	struct ls_list l = { .all = all };
	int rc;

	rc = target_open(&t, url);
	if (rc)
		return rc;
	rc = resolve(&t, t.rel, &fh, &at);
	if (rc) {
		target_close(&t);
		return nfs_fail(url, rc);
	}
	if (at.type != NF3DIR) {
		char link[4100];

		link_suffix(t.ctx, &at, &fh, NULL, NULL, link, sizeof(link));
		ls_line(*t.rel ? base_name(t.rel) : url, &at, true, lng, lng ? link : "");
		target_close(&t);
		return 0;
	}
	rc = nfsx_readdir(t.ctx, &fh, lng, ls_collect, &l);
	if (l.oom) {
		msg(url, "out of memory");
		rc = -ENOMEM;
	} else if (rc) {
		nfs_fail(url, rc);
	}
	if (!rc) {
		qsort(l.v, l.n, sizeof(*l.v), ls_cmp);
		if (header)
			printf("%s:\n", url);
		for (size_t i = 0; i < l.n; i++) {
			char link[4100] = "";

			if (lng && l.v[i].has_attr)
				link_suffix(t.ctx, &l.v[i].attr, &l.v[i].fh, &fh, l.v[i].name, link,
					    sizeof(link));
			ls_line(l.v[i].name, &l.v[i].attr, l.v[i].has_attr, lng, link);
		}
	}
	for (size_t i = 0; i < l.n; i++)
		free(l.v[i].name);
	free(l.v);
	target_close(&t);
	return rc ? 1 : 0;
}

int cmd_ls(int argc, char **argv)
{
	bool lng = false, all = false;
	int c, status = 0;

	fs_cmd = "ls";
	optind = 1;
	while ((c = getopt(argc, argv, "+la")) != -1) {
		if (c == 'l')
			lng = true;
		else if (c == 'a')
			all = true;
		else
			return 2;
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: nfsx ls [-l] [-a] URL...\n");
		return 2;
	}
	for (int i = optind; i < argc; i++) {
		int rc;

		if (i > optind)
			printf("\n");
		rc = ls_one(argv[i], lng, all, argc - optind > 1);
		if (rc > status)
			status = rc;
	}
	return status;
}

/* ------------------------------------------------------------------ */
/* stat                                                                 */

static const char *type_name(uint32_t t)
{
	switch (t) {
	case NF3REG: return "regular file";
	case NF3DIR: return "directory";
	case NF3BLK: return "block device";
	case NF3CHR: return "character device";
	case NF3LNK: return "symbolic link";
	case NF3SOCK: return "socket";
	case NF3FIFO: return "fifo";
	default: return "unknown";
	}
}

int cmd_stat(int argc, char **argv)
{
	int status = 0;

	fs_cmd = "stat";
	if (argc < 2) {
		fprintf(stderr, "usage: nfsx stat URL...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct target t;
		struct nfsx_fh fh;
		struct nfsx_attr a;
		char mode[11], at[96], mt[96], ct[96];
		int rc = target_open(&t, argv[i]);

		if (rc) {
			status = rc > status ? rc : status;
			continue;
		}
		char link[4100];

		rc = resolve(&t, t.rel, &fh, &a);
		if (!rc)
			link_suffix(t.ctx, &a, &fh, NULL, NULL, link, sizeof(link));
		target_close(&t);
		if (rc) {
			status = nfs_fail(argv[i], rc);
			continue;
		}
		mode_string(&a, mode);
		time_string(a.atime_ns, at, sizeof(at), true);
		time_string(a.mtime_ns, mt, sizeof(mt), true);
		time_string(a.ctime_ns, ct, sizeof(ct), true);
		printf("  File: %s%s\n", argv[i], link);
		printf("  Size: %-15" PRIu64 " Used: %-12" PRIu64 " %s\n", a.size, a.used,
		       type_name(a.type));
		printf("Access: (%04o/%s)  Uid: %" PRIu32 "  Gid: %" PRIu32 "  Links: %" PRIu32 "\n",
		       a.mode & 07777, mode, a.uid, a.gid, a.nlink);
		printf("Fileid: %-15" PRIu64 " Fsid: 0x%" PRIx64 "  Rdev: %" PRIu32 ",%" PRIu32 "\n",
		       a.fileid, a.fsid, a.rdev_major, a.rdev_minor);
		printf("  Handle: ");
		for (uint32_t k = 0; k < fh.len; k++)
			printf("%02x", fh.data[k]);
		printf("\nAccess: %s\nModify: %s\nChange: %s\n", at, mt, ct);
	}
	return status;
}

/* ------------------------------------------------------------------ */
/* rm, mkdir                                                            */

struct names {
	char **v;
	bool *dir;
	size_t n, cap;
	bool oom;
};

static int collect_names(const struct nfsx_dirent *e, void *priv)
{
	struct names *l = priv;

	if (!strcmp(e->name, ".") || !strcmp(e->name, ".."))
		return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		char **v = realloc(l->v, cap * sizeof(*v));
		bool *d;

		if (v)
			l->v = v;
		d = v ? realloc(l->dir, cap * sizeof(*d)) : NULL;
		if (!v || !d) {
			l->oom = true;
			return 1;
		}
		l->dir = d;
		l->cap = cap;
	}
	l->v[l->n] = strdup(e->name);
	if (!l->v[l->n]) {
		l->oom = true;
		return 1;
	}
	l->dir[l->n] = e->has_attr && e->attr.type == NF3DIR;
	l->n++;
	return 0;
}

/* Remove everything inside directory @dir (@what for messages). */
static int rm_tree(struct target *t, const struct nfsx_fh *dir, const char *what, int depth)
{
	struct names l = { 0 };
	int rc, status = 0;

	if (depth > 256) {
		msg(what, "directories nested too deep");
		return 1;
	}
	rc = nfsx_readdir(t->ctx, dir, true, collect_names, &l);
	if (l.oom) {
		msg(what, "out of memory");
		status = 1;
	} else if (rc) {
		status = nfs_fail(what, rc);
	}
	for (size_t i = 0; !status && i < l.n; i++) {
		char sub[4200];

		snprintf(sub, sizeof(sub), "%s/%s", what, l.v[i]);
		rc = nfsx_remove(t->ctx, dir, l.v[i]);
		if (rc == NFS3ERR_ISDIR || (rc && l.dir[i])) {
			struct nfsx_fh fh;
			struct nfsx_attr a;

			rc = nfsx_lookup(t->ctx, dir, l.v[i], &fh, &a);
			if (!rc && a.type == NF3DIR) {
				status = rm_tree(t, &fh, sub, depth + 1);
				if (status)
					break;
				rc = nfsx_rmdir(t->ctx, dir, l.v[i]);
			}
		}
		if (rc)
			status = nfs_fail(sub, rc);
	}
	for (size_t i = 0; i < l.n; i++)
		free(l.v[i]);
	free(l.v);
	free(l.dir);
	return status;
}

int cmd_rm(int argc, char **argv)
{
	bool recursive = false;
	int c, status = 0;

	fs_cmd = "rm";
	optind = 1;
	while ((c = getopt(argc, argv, "+rR")) != -1) {
		if (c == 'r' || c == 'R')
			recursive = true;
		else
			return 2;
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: nfsx rm [-r] URL...\n");
		return 2;
	}
	for (int i = optind; i < argc; i++) {
		struct target t;
		struct nfsx_fh dir, fh;
		struct nfsx_attr a;
		const char *name;
		int rc = target_open(&t, argv[i]);

		if (rc) {
			status = rc > status ? rc : status;
			continue;
		}
		if (!*t.rel) {
			msg(argv[i], "will not remove an export's root");
			target_close(&t);
			status = 1;
			continue;
		}
		rc = resolve(&t, t.rel, &fh, &a);
		if (!rc)
			rc = resolve_parent(&t, t.rel, &dir, &name);
		if (rc) {
			status = nfs_fail(argv[i], rc);
		} else if (a.type == NF3DIR) {
			if (!recursive) {
				msg(argv[i], "%s (nfsx rm -r removes directories)",
				    nfsx_strerror(NFS3ERR_ISDIR));
				status = 1;
			} else if ((rc = rm_tree(&t, &fh, argv[i], 0)) != 0) {
				status = rc;
			} else if ((rc = nfsx_rmdir(t.ctx, &dir, name)) != 0) {
				status = nfs_fail(argv[i], rc);
			}
		} else if ((rc = nfsx_remove(t.ctx, &dir, name)) != 0) {
			status = nfs_fail(argv[i], rc);
		}
		target_close(&t);
	}
	return status;
}

int cmd_mkdir(int argc, char **argv)
{
	bool parents = false;
	int c, status = 0;

	fs_cmd = "mkdir";
	optind = 1;
	while ((c = getopt(argc, argv, "+p")) != -1) {
		if (c == 'p')
			parents = true;
		else
			return 2;
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: nfsx mkdir [-p] URL...\n");
		return 2;
	}
	for (int i = optind; i < argc; i++) {
		struct target t;
		struct nfsx_fh dir, fh;
		const char *name;
		int rc = target_open(&t, argv[i]);

		if (rc) {
			status = rc > status ? rc : status;
			continue;
		}
		if (!*t.rel) {
			if (!parents) {
				msg(argv[i], "%s", nfsx_strerror(NFS3ERR_EXIST));
				status = 1;
			}
		} else if (parents) {
			rc = nfsx_mkdir_p(t.ctx, t.rel, 0755, &fh);
			if (rc)
				status = nfs_fail(argv[i], rc);
		} else {
			rc = resolve_parent(&t, t.rel, &dir, &name);
			if (!rc)
				rc = nfsx_mkdir(t.ctx, &dir, name, 0755, &fh);
			if (rc)
				status = nfs_fail(argv[i], rc);
		}
		target_close(&t);
	}
	return status;
}

