/* SPDX-License-Identifier: MIT */
/*
 * The NFSv4 pseudo file system (src/export/pseudo.c): the directories on
 * the way from "/" to each export and nothing else, an export below
 * another left to the outer one, fsid=0 making an export the root (and
 * the exports outside it unreachable), "." and ".." (which stays at the
 * root), handles that survive a rebuild in another order and are told
 * from real ones, and each client seeing only the way to what it may
 * mount.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/pseudo.h"
#include "tap.h"

static const uint8_t key[FH_KEY_LEN] = { 9, 8, 7 };

static struct nfsx_exports *parse(const char *text)
{
	char err[256] = "";
	struct nfsx_exports *ex = exports_parse_string(text, "test", err, sizeof(err));

	if (!ex)
		printf("# parse: %s\n", err);
	return ex;
}

static uint32_t walk(const struct export_pseudo *p, const char *path)
{
	uint32_t at = 0;
	char buf[256], *save = NULL, *c;

	snprintf(buf, sizeof(buf), "%s", path);
	for (c = strtok_r(buf, "/", &save); c && at != PSEUDO_NONE; c = strtok_r(NULL, "/", &save))
		at = export_pseudo_lookup(p, at, c, strlen(c));
	return at;
}

static bool admits_path(const struct nfsx_export *e, void *arg)
{
	return strcmp(e->path, arg) == 0;
}

static void test_tree(void)
{
	struct nfsx_exports *ex = parse("/srv/a *(rw)\n/srv/b/c *(ro)\n/data *(rw)\n"
					"/srv/a/inner *(rw)\n");
	struct nfsx_exports *ex2 = parse("/data *(rw)\n/srv/b/c *(ro)\n/srv/a *(rw)\n");
	struct export_pseudo p, q;
	uint32_t srv, a, b, c, d;
	struct fh_parts parts;
	struct nfsx_fh fh;
	uint64_t id = 0;

	ok(ex && ex2 && export_pseudo_build(ex, &p) == 0 && export_pseudo_build(ex2, &q) == 0,
	   "built");
	ok(!p.root_exp && p.n == 6, "/, /srv, /srv/a, /srv/b, /srv/b/c, /data: 6 nodes (%u)", p.n);
	srv = walk(&p, "srv");
	a = walk(&p, "srv/a");
	b = walk(&p, "srv/b");
	c = walk(&p, "srv/b/c");
	d = walk(&p, "data");
	ok(srv != PSEUDO_NONE && !p.nodes[srv].exp, "/srv is a pseudo directory");
	ok(a != PSEUDO_NONE && p.nodes[a].exp && strcmp(p.nodes[a].exp->path, "/srv/a") == 0 &&
	   p.nodes[a].child == PSEUDO_NONE, "/srv/a is the export, with nothing below it");
	ok(walk(&p, "srv/a/inner") == PSEUDO_NONE,
	   "an export below another is not in the pseudo file system");
	ok(b != PSEUDO_NONE && !p.nodes[b].exp && c != PSEUDO_NONE && p.nodes[c].exp &&
	   strcmp(p.nodes[c].name, "c") == 0, "/srv/b leads to the export /srv/b/c");
	ok(d != PSEUDO_NONE && p.nodes[d].exp, "/data is an export at the top");
	ok(export_pseudo_lookup(&p, srv, "..", 2) == 0 && export_pseudo_lookup(&p, 0, "..", 2) == 0 &&
	   export_pseudo_lookup(&p, b, ".", 1) == b, ".. climbs, and stays at the root; . stays");
	ok(export_pseudo_lookup(&p, 0, "srvx", 3) == srv && export_pseudo_lookup(&p, 0, "sr", 2) ==
	   PSEUDO_NONE && export_pseudo_lookup(&p, 0, "nope", 4) == PSEUDO_NONE,
	   "names are compared by length; unknown names are not found");
	ok(export_pseudo_lookup(&p, 99, "srv", 3) == PSEUDO_NONE, "a node out of range: none");

	ok(export_pseudo_handle(key, &p, b, &fh) == 0 && fh_decode(key, fh.data, fh.len, &parts) &&
	   export_pseudo_parts(&parts, &id) && export_pseudo_by_id(&p, id) == b,
	   "a pseudo directory's handle names it");
	ok(export_pseudo_by_id(&q, id) != PSEUDO_NONE &&
	   strcmp(q.nodes[export_pseudo_by_id(&q, id)].path, "/srv/b") == 0,
	   "... and the same directory after a rebuild in another order");
	parts.kernel_type = 1;
	ok(!export_pseudo_parts(&parts, &id), "a file system's handle is not a pseudo one");
	ok(export_pseudo_handle(key, &p, p.n, &fh) < 0, "no handle for a node out of range");

	ok(export_pseudo_visible(&p, 0, admits_path, "/data") &&
	   !export_pseudo_visible(&p, srv, admits_path, "/data") &&
	   export_pseudo_visible(&p, d, admits_path, "/data"),
	   "a client of /data sees / and /data, not /srv");
	ok(export_pseudo_visible(&p, 0, admits_path, "/srv/b/c") &&
	   export_pseudo_visible(&p, srv, admits_path, "/srv/b/c") &&
	   export_pseudo_visible(&p, b, admits_path, "/srv/b/c") &&
	   !export_pseudo_visible(&p, a, admits_path, "/srv/b/c") &&
	   !export_pseudo_visible(&p, d, admits_path, "/srv/b/c"),
	   "a client of /srv/b/c sees the way down to it only");
	ok(!export_pseudo_visible(&p, 0, admits_path, "/nothing"),
	   "a client no export admits sees nothing, not even the root");
	export_pseudo_free(&p);
	export_pseudo_free(&q);
	ok(p.n == 0 && !p.nodes, "freed");
	exports_free(ex);
	exports_free(ex2);
}

static void test_fsid0(void)
{
	struct nfsx_exports *ex = parse("/srv/nfs4 *(rw,fsid=0)\n/srv/nfs4/home *(rw)\n"
					"/other *(rw)\n");
	struct nfsx_exports *ex2 = parse("/ *(ro)\n/srv *(rw)\n");
	struct export_pseudo p;

	ok(ex && export_pseudo_build(ex, &p) == 0 && p.root_exp &&
	   strcmp(p.root_exp->path, "/srv/nfs4") == 0 && p.n == 0,
	   "fsid=0: that export is the root, no pseudo directory");
	ok(p.unreachable == 1, "an export outside it is counted unreachable (%u)", p.unreachable);
	export_pseudo_free(&p);
	ok(ex2 && export_pseudo_build(ex2, &p) == 0 && !p.root_exp && p.n == 1 && p.nodes[0].exp &&
	   strcmp(p.nodes[0].exp->path, "/") == 0,
	   "an export of / is the root, and the exports below it are its own");
	export_pseudo_free(&p);
	exports_free(ex);
	exports_free(ex2);
}

int main(void)
{
	test_tree();
	test_fsid0();
	return tap_done();
}
