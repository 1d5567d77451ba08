/* SPDX-License-Identifier: MIT */
/*
 * nfsx cat|get|put|cp: copies between nfs:// URLs and local files (or
 * stdin/stdout), in READ/WRITE calls of the server's rtmax/wtmax at most,
 * UNSTABLE writes and a COMMIT whose verifier is checked.
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
		fprintf(stderr, "nfsx %s: out of memory\n", fs_cmd);
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
	fs_cmd = argv[0];
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
	fs_cmd = "get";
	if ((argc != 2 && argc != 3) || !is_url(argv[1]) || (argc == 3 && is_url(argv[2]))) {
		fprintf(stderr, "usage: nfsx get URL [LOCAL]   (LOCAL: a file or directory, default .)\n");
		return 2;
	}
	return copy(argv[1], argc == 3 ? argv[2] : ".");
}

int cmd_put(int argc, char **argv)
{
	fs_cmd = "put";
	if (argc != 3 || is_url(argv[1]) || !is_url(argv[2])) {
		fprintf(stderr, "usage: nfsx put LOCAL URL   (URL: a file or a directory)\n");
		return 2;
	}
	return copy(argv[1], argv[2]);
}

int cmd_cat(int argc, char **argv)
{
	int status = 0;

	fs_cmd = "cat";
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

