/* SPDX-License-Identifier: MIT */
/*
 * nfsx ls|stat|cat|get|put|cp|rm|mkdir on nfs:// URLs, through the
 * synchronous path API of libnfsx. Every failure is reported as
 * "nfsx CMD: WHAT: STATUS", STATUS naming the NFS status (NFS3ERR_NOENT
 * (2): ...) or the local/transport error, and gives exit status 1.
 */
#include "cmd_fs.h"

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

#include "client/nfsx.h"

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

static const char *cmd = "nfsx";

static void msg(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void msg(const char *what, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "nfsx %s: %s: ", cmd, what);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int nfs_fail(const char *what, int rc)
{
	msg(what, "%s", nfsx_strerror(rc));
	return 1;
}

static bool is_url(const char *s)
{
	return !strncmp(s, "nfs://", 6);
}

static void target_close(struct target *t)
{
	if (t->ctx)
		nfsx_ctx_free(t->ctx);
	t->ctx = NULL;
}

/* Parse, connect, mount. Returns 0 or an exit status (message printed). */
static int target_open(struct target *t, const char *arg)
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
	if (t->url.version && t->url.version != 3) {
		msg(arg, "NFS version %u is not supported (NFSv3 only)", t->url.version);
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
static int resolve(struct target *t, const char *rel, struct nfsx_fh *fh, struct nfsx_attr *at)
{
	if (!*rel) {
		*fh = t->root;
		return nfsx_getattr(t->ctx, fh, at);
	}
	return nfsx_resolve(t->ctx, rel, fh, at);
}

/* Split @rel into its parent directory's handle and the last name. */
static int resolve_parent(struct target *t, const char *rel, struct nfsx_fh *dir,
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

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

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
	l->n++;
	return 0;
}

static int ls_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ls_ent *)a)->name, ((const struct ls_ent *)b)->name);
}

static void ls_line(const char *name, const struct nfsx_attr *a, bool has_attr, bool lng)
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
		printf("%s %4" PRIu32 " %5" PRIu32 " %5" PRIu32 " %12" PRIu64 " %16s %s\n", mode,
		       a->nlink, a->uid, a->gid, a->size, when, name);
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
		ls_line(*t.rel ? base_name(t.rel) : url, &at, true, lng);
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
		for (size_t i = 0; i < l.n; i++)
			ls_line(l.v[i].name, &l.v[i].attr, l.v[i].has_attr, lng);
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

	cmd = "ls";
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

	cmd = "stat";
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
		rc = resolve(&t, t.rel, &fh, &a);
		target_close(&t);
		if (rc) {
			status = nfs_fail(argv[i], rc);
			continue;
		}
		mode_string(&a, mode);
		time_string(a.atime_ns, at, sizeof(at), true);
		time_string(a.mtime_ns, mt, sizeof(mt), true);
		time_string(a.ctime_ns, ct, sizeof(ct), true);
		printf("  File: %s\n", argv[i]);
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
/* Copying: a source and a sink, each local or NFS                      */

struct end {
	bool nfs;
	int fd;                     /* local */
	struct target t;            /* NFS */
	struct nfsx_fh fh;
	uint64_t size;
	uint32_t mode;
	char what[4200];            /* for messages */
	bool have_verf;
	uint8_t verf[NFS3_WRITEVERFSIZE];
};

static int src_open(struct end *e, const char *arg)
{
	memset(e, 0, sizeof(*e));
	e->fd = -1;
	snprintf(e->what, sizeof(e->what), "%s", arg);
	if (is_url(arg)) {
		struct nfsx_attr a;
		int rc = target_open(&e->t, arg);

		e->nfs = true;
		if (rc)
			return rc;
		rc = resolve(&e->t, e->t.rel, &e->fh, &a);
		if (rc)
			return nfs_fail(arg, rc);
		if (a.type == NF3DIR) {
			msg(arg, "%s", nfsx_strerror(NFS3ERR_ISDIR));
			return 1;
		}
		e->size = a.size;
		e->mode = a.mode & 07777;
		return 0;
	} else {
		struct stat st;

		e->fd = !strcmp(arg, "-") ? dup(0) : open(arg, O_RDONLY | O_CLOEXEC);
		if (e->fd < 0 || fstat(e->fd, &st) < 0) {
			msg(arg, "%s", strerror(errno));
			return 1;
		}
		if (S_ISDIR(st.st_mode)) {
			msg(arg, "is a directory");
			return 1;
		}
		e->size = (uint64_t)st.st_size;
		e->mode = st.st_mode & 0777;
		return 0;
	}
}

/* @srcname: the last component of the source, used when @arg is a directory. */
static int dst_open(struct end *e, const char *arg, const char *srcname, uint32_t mode)
{
	memset(e, 0, sizeof(*e));
	e->fd = -1;
	snprintf(e->what, sizeof(e->what), "%s", arg);
	if (is_url(arg)) {
		struct nfsx_fh dir;
		struct nfsx_attr a;
		const char *name;
		char rel[4096];
		int rc = target_open(&e->t, arg);

		e->nfs = true;
		if (rc)
			return rc;
		snprintf(rel, sizeof(rel), "%s", e->t.rel);
		rc = resolve(&e->t, rel, &e->fh, &a);
		if (rc == 0 && a.type == NF3DIR) {
			/* into the directory, under the source's name */
			if (*rel)
				snprintf(rel + strlen(rel), sizeof(rel) - strlen(rel), "/%s", srcname);
			else
				snprintf(rel, sizeof(rel), "%s", srcname);
			snprintf(e->what, sizeof(e->what), "%s%s%s", arg,
				 arg[strlen(arg) - 1] == '/' ? "" : "/", srcname);
			rc = resolve(&e->t, rel, &e->fh, &a);
			if (rc == 0 && a.type == NF3DIR) {
				msg(e->what, "%s", nfsx_strerror(NFS3ERR_ISDIR));
				return 1;
			}
		} else if (rc == 0 && e->t.trailing_slash) {
			msg(arg, "%s", nfsx_strerror(NFS3ERR_NOTDIR));
			return 1;
		}
		if (rc == 0) {
			if (a.type != NF3REG) {
				msg(e->what, "exists and is not a regular file");
				return 1;
			}
			rc = nfsx_truncate(e->t.ctx, &e->fh, 0);
			if (rc)
				return nfs_fail(e->what, rc);
			return 0;
		}
		if (rc != NFS3ERR_NOENT)
			return nfs_fail(e->what, rc);
		if (!*rel) {
			msg(arg, "the export root is a directory");
			return 1;
		}
		rc = resolve_parent(&e->t, rel, &dir, &name);
		if (rc)
			return nfs_fail(e->what, rc);
		rc = nfsx_create(e->t.ctx, &dir, name, mode, false, &e->fh);
		if (rc)
			return nfs_fail(e->what, rc);
		return 0;
	} else {
		struct stat st;
		char path[4200];

		if (!strcmp(arg, "-")) {
			e->fd = dup(1);
		} else {
			size_t alen = strlen(arg);

			if (alen >= sizeof(path)) {
				msg(arg, "%s", strerror(ENAMETOOLONG));
				return 1;
			}
			memcpy(path, arg, alen + 1);
			if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) {
				snprintf(path, sizeof(path), "%s/%s", arg, srcname);
				snprintf(e->what, sizeof(e->what), "%s", path);
			}
			e->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
		}
		if (e->fd < 0) {
			msg(e->what, "%s", strerror(errno));
			return 1;
		}
		return 0;
	}
}

static void end_close(struct end *e)
{
	if (e->fd >= 0)
		close(e->fd);
	e->fd = -1;
	target_close(&e->t);
}

/* Read up to @len bytes at @off; *got 0 at the end. */
static int src_read(struct end *e, uint64_t off, uint8_t *buf, uint32_t len, uint32_t *got)
{
	if (e->nfs) {
		bool eof = false;
		int rc = nfsx_read(e->t.ctx, &e->fh, off, buf, len, got, &eof);

		if (rc)
			return nfs_fail(e->what, rc);
		return 0;
	}
	for (;;) {
		ssize_t n = read(e->fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			msg(e->what, "%s", strerror(errno));
			return 1;
		}
		*got = (uint32_t)n;
		return 0;
	}
}

static int dst_write(struct end *e, uint64_t off, const uint8_t *buf, uint32_t len)
{
	while (len) {
		if (e->nfs) {
			uint32_t n = 0;
			uint8_t verf[NFS3_WRITEVERFSIZE];
			int rc = nfsx_write(e->t.ctx, &e->fh, off, buf, len, UNSTABLE, &n, verf);

			if (rc)
				return nfs_fail(e->what, rc);
			if (!n) {
				msg(e->what, "the server wrote 0 bytes at offset %" PRIu64, off);
				return 1;
			}
			if (!e->have_verf) {
				memcpy(e->verf, verf, sizeof(verf));
				e->have_verf = true;
			} else if (memcmp(e->verf, verf, sizeof(verf))) {
				msg(e->what, "the server restarted during the copy (write verifier "
				    "changed): copy again");
				return 1;
			}
			off += n;
			buf += n;
			len -= n;
		} else {
			ssize_t n = write(e->fd, buf, len);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				msg(e->what, "%s", strerror(errno));
				return 1;
			}
			buf += n;
			len -= (uint32_t)n;
		}
	}
	return 0;
}

static int dst_finish(struct end *e)
{
	if (e->nfs) {
		uint8_t verf[NFS3_WRITEVERFSIZE];
		int rc = nfsx_commit(e->t.ctx, &e->fh, verf);

		if (rc)
			return nfs_fail(e->what, rc);
		if (e->have_verf && memcmp(e->verf, verf, sizeof(verf))) {
			msg(e->what, "the server restarted before COMMIT (write verifier changed): "
			    "copy again");
			return 1;
		}
		return 0;
	}
	if (fsync(e->fd) < 0 && errno != EINVAL && errno != EROFS) {
		msg(e->what, "%s", strerror(errno));
		return 1;
	}
	if (close(e->fd) < 0) {
		e->fd = -1;
		msg(e->what, "%s", strerror(errno));
		return 1;
	}
	e->fd = -1;
	return 0;
}

static int copy(const char *from, const char *to)
{
	struct end *s = calloc(1, sizeof(*s)), *d = calloc(1, sizeof(*d));
	uint8_t *buf = malloc(COPY_CHUNK);
	uint64_t off = 0;
	uint32_t chunk = COPY_CHUNK;
	const char *srcname;
	int rc = 1;

	if (!s || !d || !buf) {
		fprintf(stderr, "nfsx %s: out of memory\n", cmd);
		goto out;
	}
	s->fd = d->fd = -1;
	rc = src_open(s, from);
	if (rc)
		goto out;
	srcname = s->nfs ? (*s->t.rel ? base_name(s->t.rel) : "") : base_name(from);
	if (!*srcname || !strcmp(srcname, "-"))
		srcname = "stdin";
	rc = dst_open(d, to, srcname, s->mode ? s->mode : 0644);
	if (rc)
		goto out;
	if (s->nfs && s->t.rtmax < chunk)
		chunk = s->t.rtmax;
	if (d->nfs && d->t.wtmax < chunk)
		chunk = d->t.wtmax;
	for (;;) {
		uint32_t got = 0;

		rc = src_read(s, off, buf, chunk, &got);
		if (rc)
			goto out;
		if (!got)
			break;
		rc = dst_write(d, off, buf, got);
		if (rc)
			goto out;
		off += got;
	}
	rc = dst_finish(d);
out:
	if (s)
		end_close(s);
	if (d)
		end_close(d);
	free(s);
	free(d);
	free(buf);
	return rc;
}

int cmd_cp(int argc, char **argv)
{
	cmd = argv[0];
	if (argc != 3) {
		fprintf(stderr, "usage: nfsx cp SRC DST   (either or both nfs:// URLs; - is stdin/stdout)\n");
		return 2;
	}
	if (!is_url(argv[1]) && !is_url(argv[2])) {
		fprintf(stderr, "nfsx cp: neither '%s' nor '%s' is an nfs:// URL\n", argv[1], argv[2]);
		return 2;
	}
	return copy(argv[1], argv[2]);
}

int cmd_get(int argc, char **argv)
{
	cmd = "get";
	if ((argc != 2 && argc != 3) || !is_url(argv[1]) || (argc == 3 && is_url(argv[2]))) {
		fprintf(stderr, "usage: nfsx get URL [LOCAL]   (LOCAL: a file or directory, default .)\n");
		return 2;
	}
	return copy(argv[1], argc == 3 ? argv[2] : ".");
}

int cmd_put(int argc, char **argv)
{
	cmd = "put";
	if (argc != 3 || is_url(argv[1]) || !is_url(argv[2])) {
		fprintf(stderr, "usage: nfsx put LOCAL URL   (URL: a file or a directory)\n");
		return 2;
	}
	return copy(argv[1], argv[2]);
}

int cmd_cat(int argc, char **argv)
{
	int status = 0;

	cmd = "cat";
	if (argc < 2) {
		fprintf(stderr, "usage: nfsx cat URL...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		int rc;

		if (!is_url(argv[i])) {
			fprintf(stderr, "nfsx cat: '%s' is not an nfs:// URL\n", argv[i]);
			status = 2;
			continue;
		}
		fflush(stdout);
		rc = copy(argv[i], "-");
		if (rc > status)
			status = rc;
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

	cmd = "rm";
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

	cmd = "mkdir";
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
