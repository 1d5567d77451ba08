/* SPDX-License-Identifier: MIT */
/*
 * The handle map (vfs/hmap.c): entries are found again, updated in
 * place, moved by a rename (the renamed path and everything under it,
 * nothing that merely shares a prefix), kept across a reopen of the
 * state directory (replayed and compacted: one line per entry), and a
 * damaged line is skipped without losing the others.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "vfs/hmap.h"

static char dir[] = "/tmp/nfsx-hmap-XXXXXX";

static int lines(void)
{
	char p[128], buf[4096];
	int n = 0;
	FILE *f;

	snprintf(p, sizeof(p), "%s/handles.map", dir);
	f = fopen(p, "r");
	while (f && fgets(buf, sizeof(buf), f))
		n++;
	if (f)
		fclose(f);
	return n;
}

static bool has(uint32_t id, uint8_t k, const char *want)
{
	uint8_t h[8] = { k, 1, 2, 3, 4, 5, 6, 7 };
	char path[256];

	if (vfs_hmap_get(id, 1, h, sizeof(h), path, sizeof(path)) != 0)
		return want == NULL;
	return want && strcmp(path, want) == 0;
}

static int put(uint32_t id, uint8_t k, const char *path)
{
	uint8_t h[8] = { k, 1, 2, 3, 4, 5, 6, 7 };

	return vfs_hmap_put(id, 1, h, sizeof(h), path);
}

int main(void)
{
	char err[256] = "", p[128], small[4];
	uint8_t h[8] = { 1, 1, 2, 3, 4, 5, 6, 7 };
	FILE *f;

	if (!mkdtemp(dir))
		return 1;
	ok(vfs_hmap_open(dir, err, sizeof(err)) == 0, "open an empty state directory %s", err);
	ok(put(7, 1, "") == 0 && put(7, 2, "a") == 0 && put(7, 3, "a/b") == 0 &&
	   put(7, 4, "a/b/c.txt") == 0 && put(7, 5, "ab/x") == 0 && put(8, 6, "a/b") == 0,
	   "six entries in two exports");
	ok(has(7, 1, "") && has(7, 4, "a/b/c.txt") && has(8, 6, "a/b"), "found again");
	ok(has(7, 9, NULL) && has(9, 1, NULL), "unknown handle or export: not found");
	ok(vfs_hmap_get(7, 2, h, sizeof(h), p, sizeof(p)) == -ENOENT,
	   "the handle type is part of the key");
	ok(vfs_hmap_get(7, 1, h, sizeof(h), small, sizeof(small)) == 0,
	   "a path that fits");
	ok(put(7, 4, "a/b/c.txt") == 0 && vfs_hmap_count() == 6, "the same entry again: no new entry");

	vfs_hmap_rename(7, "a", "z/y");
	ok(has(7, 2, "z/y") && has(7, 3, "z/y/b") && has(7, 4, "z/y/b/c.txt"),
	   "a rename moves the path and everything under it");
	ok(has(7, 5, "ab/x"), "but not a path that only shares the prefix (ab/x)");
	ok(has(8, 6, "a/b"), "nor another export's entries");
	ok(has(7, 1, ""), "nor the root");

	vfs_hmap_close();
	ok(vfs_hmap_open(dir, err, sizeof(err)) == 0, "reopen: %s", err);
	ok(vfs_hmap_count() == 6 && has(7, 4, "z/y/b/c.txt") && has(7, 5, "ab/x") &&
	   has(8, 6, "a/b") && has(7, 1, ""), "every entry as it was, renames included");
	ok(lines() == 6, "the file was compacted to one line per entry (%d)", lines());

	/* a line cut short (a crash while appending) */
	vfs_hmap_close();
	snprintf(p, sizeof(p), "%s/handles.map", dir);
	f = fopen(p, "a");
	ok(f && fputs("P 7 1 0a0b0c", f) >= 0, "append a truncated line");
	if (f)
		fclose(f);
	ok(vfs_hmap_open(dir, err, sizeof(err)) == 0 && vfs_hmap_count() == 6 &&
	   has(7, 3, "z/y/b"), "it is skipped; the others load");
	vfs_hmap_close();
	unlink(p);
	rmdir(dir);
	return tap_done();
}
