/* SPDX-License-Identifier: MIT */
/*
 * nfsxd run as an unprivileged user (the wrapper starts it as nobody):
 * handles through the handle map (src/vfs/hmap.c) instead of
 * open_by_handle_at, every client acting as the server's own uid.
 *
 * Checked with libnfsx: files made through NFS belong to the server's
 * uid whatever the client's uid; data round-trips; a handle survives a
 * RENAME of its directory and a restart of the server; a handle whose
 * path now names another object, or a symlink, is STALE (never the other
 * object, never outside the export); a file the server's uid may not
 * read is refused.
 *
 * usage: test_unprivileged PORT EXPORT_DIR RESTART_CMD SERVER_UID
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client/nfsx.h"
#include "tap.h"

static struct nfsx_ctx *ctx;
static const char *exp_dir;

static struct nfsx_ctx *connect_to(unsigned int port)
{
	struct nfsx_opts o;
	struct nfsx_ctx *c;
	char err[256];

	nfsx_opts_init(&o);
	o.host = "127.0.0.1";
	o.port = (uint16_t)port;
	o.mount_port = (uint16_t)port;
	o.uid = 1234;   /* a client uid the server cannot act as */
	o.gid = 1234;
	o.timeo_ms = 5000;
	c = nfsx_ctx_new(&o, err, sizeof(err));
	if (!c)
		printf("# nfsx_ctx_new: %s\n", err);
	return c;
}

struct done {
	int err;
	int status;
	bool fin;
};

static void rename_cb(struct nfsx_ctx *c, int err, void *res, void *priv)
{
	struct done *d = priv;

	d->err = err;
	d->status = err ? -1 : (int)((struct RENAME3res *)res)->status;
	d->fin = true;
}

static int rename_at(const struct nfsx_fh *from, const char *fn, const struct nfsx_fh *to,
		     const char *tn)
{
	struct RENAME3args a;
	struct done d = { 0 };

	memset(&a, 0, sizeof(a));
	a.from.dir.data.data = from->data;
	a.from.dir.data.len = from->len;
	a.from.name.data = (const uint8_t *)fn;
	a.from.name.len = (uint32_t)strlen(fn);
	a.to.dir.data.data = to->data;
	a.to.dir.data.len = to->len;
	a.to.name.data = (const uint8_t *)tn;
	a.to.name.len = (uint32_t)strlen(tn);
	if (nfsx3_rename(ctx, &a, rename_cb, &d) < 0)
		return -1;
	while (!d.fin)
		if (nfsx_run_once(ctx, 1000) < 0)
			return -1;
	return d.err ? d.err : d.status;
}

static void local(const char *fmt, const char *a)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), fmt, exp_dir, a);
	if (system(cmd) != 0)
		printf("# local command failed: %s\n", cmd);
}

int main(int argc, char **argv)
{
	struct nfsx_fh root, d1, f, g, sec;
	struct nfsx_attr at;
	static char data[300000], back[300000];
	uint32_t n, uid;
	bool eof;
	size_t i;
	int r;

	if (argc != 5) {
		fprintf(stderr, "usage: test_unprivileged PORT EXPORT_DIR RESTART_CMD SERVER_UID\n");
		return 2;
	}
	exp_dir = argv[2];
	uid = (uint32_t)atoi(argv[4]);
	ctx = connect_to((unsigned int)atoi(argv[1]));
	if (!ctx || nfsx_mount(ctx, exp_dir, &root) != 0) {
		printf("Bail out! cannot mount %s\n", exp_dir);
		return 1;
	}
	for (i = 0; i < sizeof(data); i++)
		data[i] = (char)(i * 7 + 3);

	ok(nfsx_mkdir(ctx, &root, "d1", 0755, &d1) == 0, "MKDIR d1");
	r = nfsx_create(ctx, &d1, "f", 0644, false, &f);
	ok(r == 0, "CREATE d1/f (%s)", nfsx_strerror(r));
	r = nfsx_write(ctx, &f, 0, data, sizeof(data), FILE_SYNC, &n, NULL);
	ok(r == 0 && n == sizeof(data), "WRITE 300,000 bytes (%s, %u)", nfsx_strerror(r), n);
	r = nfsx_getattr(ctx, &f, &at);
	ok(r == 0 && at.uid == uid && at.size == sizeof(data),
	   "the file belongs to the server's uid %u, not the client's 1234 (uid %u)", uid,
	   at.uid);

	/* rename the directory: the file's old handle still works */
	ok(rename_at(&root, "d1", &root, "d2") == NFS3_OK, "RENAME d1 -> d2");
	r = nfsx_read(ctx, &f, 0, back, sizeof(back), &n, &eof);
	ok(r == 0 && n == sizeof(data) && memcmp(back, data, n) == 0,
	   "the file's handle from before the RENAME reads the data (%s)", nfsx_strerror(r));
	ok(nfsx_getattr(ctx, &d1, &at) == 0, "the renamed directory's old handle works");

	/* restart the server: handles persist in the state directory */
	if (system(argv[3]) != 0)
		printf("# restart command failed\n");
	r = nfsx_getattr(ctx, &f, &at);
	ok(r == 0 && at.size == sizeof(data), "after a restart the old handle works (%s)",
	   nfsx_strerror(r));
	memset(back, 0, sizeof(back));
	r = nfsx_read(ctx, &f, 0, back, sizeof(back), &n, &eof);
	ok(r == 0 && n == sizeof(data) && memcmp(back, data, n) == 0,
	   "and reads the data (%s)", nfsx_strerror(r));

	/* the path now names another object: STALE, not the other object */
	local("rm %s/%s", "d2/f");
	local("echo other-object > %s/%s", "d2/f");
	r = nfsx_getattr(ctx, &f, &at);
	ok(r == NFS3ERR_STALE, "the handle of a file replaced locally is STALE (%s)",
	   nfsx_strerror(r));

	/* a directory on the path replaced by a symlink out of the export */
	r = nfsx_create(ctx, &d1, "g", 0644, false, &g);
	ok(r == 0, "CREATE d2/g");
	{
		char cmd[1024];

		snprintf(cmd, sizeof(cmd), "mv %s/d2 %s/d2.real && mkdir -p /tmp/nfsx-escape && "
			 "touch /tmp/nfsx-escape/g && ln -s /tmp/nfsx-escape %s/d2",
			 exp_dir, exp_dir, exp_dir);
		ok(system(cmd) == 0, "locally: d2 moved away, d2 made a symlink out of the export");
	}
	r = nfsx_getattr(ctx, &g, &at);
	ok(r == NFS3ERR_STALE, "a handle whose path crosses a symlink is STALE (%s)",
	   nfsx_strerror(r));

	/* the server's uid decides access */
	{
		char cmd[1024];

		snprintf(cmd, sizeof(cmd), "echo secret > %s/secret && chown root:root %s/secret && "
			 "chmod 600 %s/secret", exp_dir, exp_dir, exp_dir);
		ok(system(cmd) == 0, "locally: a root 0600 file in the export");
	}
	r = nfsx_lookup(ctx, &root, "secret", &sec, &at);
	ok(r == 0, "LOOKUP of a root 0600 file");
	r = nfsx_read(ctx, &sec, 0, back, 16, &n, &eof);
	ok(r == NFS3ERR_ACCES, "reading it is refused: the server runs as uid %u (%s)", uid,
	   nfsx_strerror(r));

	/* a forged handle is refused */
	f.data[f.len - 1] ^= 1;
	r = nfsx_getattr(ctx, &f, &at);
	ok(r == NFS3ERR_BADHANDLE, "an altered handle is BADHANDLE (%s)", nfsx_strerror(r));

	nfsx_ctx_free(ctx);
	return tap_done();
}
