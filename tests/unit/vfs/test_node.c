/* SPDX-License-Identifier: MIT */
/*
 * The open-object cache (vfs/node.c): a handle resolves to one shared
 * node while cached; its I/O descriptors are opened once; forgetting a
 * name drops its node; the cache stays within its capacity however many
 * objects pass through it, least recently used out first (exactly so in a
 * cache small enough to be one shard); a node still
 * in use survives eviction and is closed by its last put; a miss without
 * permission to block says -EWOULDBLOCK; a write mapping is made once,
 * only within the file's size, and goes with the node; objects removed
 * behind the cache's back are closed by a sweep once unused; a pinned node
 * survives forgetting, removal and sweeps, within a budget of half the
 * capacity; the statistics count hits, misses (calls that open),
 * evictions, nodes cached and pinned, and mapped bytes exactly. Needs
 * root (open_by_handle_at).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "vfs/node.h"
#include "vfs/vfs.h"

#define NFILES 600

static char dir[] = "/tmp/nfsx-node-XXXXXX";
static struct vfs_export exp_;

/* The decoded handle of @name, as nfs3_resolve would get it. */
static int parts_of(const char *name, struct fh_parts *p)
{
	uint8_t key[FH_KEY_LEN] = { 1 };
	struct nfsx_fh fh;
	int fd = openat(exp_.root_fd, name, O_PATH | O_NOFOLLOW);
	int r;

	if (fd < 0)
		return -1;
	r = vfs_handle_of(key, &exp_, fd, &fh);
	close(fd);
	return r < 0 || !fh_decode(key, fh.data, fh.len, p) ? -1 : 0;
}

static bool fd_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

static struct vfs_node_stats stats(void)
{
	struct vfs_node_stats st;

	memset(&st, 0xa5, sizeof(st));
	vfs_node_stats_get(&st);
	return st;
}

int main(void)
{
	struct vfs_node *a, *b, *held;
	struct fh_parts p, q;
	char name[64];
	unsigned int cap, i;
	int fd, rfd, held_fd;
	bool all_ok = true;
	struct vfs_node_stats st;

	if (geteuid() != 0) {
		printf("1..0 # SKIP needs root (open_by_handle_at)\n");
		return 0;
	}
	if (!mkdtemp(dir))
		return 1;
	ok(vfs_export_open(&exp_, 7, dir) == 0, "export opened");
	for (i = 0; i < NFILES; i++) {
		snprintf(name, sizeof(name), "%s/f%04u", dir, i);
		fd = open(name, O_CREAT | O_WRONLY, 0644);
		if (fd < 0 || write(fd, "data", 4) != 4)
			all_ok = false;
		close(fd);
	}
	ok(all_ok, "%d files created", NFILES);

	st = stats();
	ok(!st.hits && !st.misses && !st.evictions && !st.nodes && !st.pinned && !st.map_bytes,
	   "statistics before the cache is made: all zero");
	cap = vfs_nodes_init(128);
	ok(cap >= 128 && cap < 256, "capacity %u for 128 asked", cap);

	ok(parts_of("f0000", &p) == 0, "handle of f0000");
	ok(vfs_node_get(&exp_, &p, false, &a) == -EWOULDBLOCK,
	   "a miss that may not block says -EWOULDBLOCK");
	st = stats();
	ok(!st.hits && !st.misses && !st.nodes,
	   "statistics: a call sent to a worker is neither hit nor miss");
	ok(vfs_node_get(&exp_, &p, true, &a) == 0, "a miss that may block opens the object");
	st = stats();
	ok(st.hits == 0 && st.misses == 1 && st.nodes == 1 && st.pinned == 0,
	   "statistics: 1 miss, 1 node (%llu, %llu)", (unsigned long long)st.misses,
	   (unsigned long long)st.nodes);
	ok(vfs_node_get(&exp_, &p, false, &b) == 0 && a == b,
	   "then a hit without blocking gives the same node");
	st = stats();
	ok(st.hits == 1 && st.misses == 1 && st.nodes == 1, "statistics: 1 hit, 1 miss");
	ok(vfs_node_io_fd(a, O_RDONLY) < 0, "no read descriptor before one is asked for");
	rfd = vfs_node_open_io(a, O_RDONLY);
	ok(rfd >= 0 && vfs_node_open_io(b, O_RDONLY) == rfd &&
	   vfs_node_io_fd(a, O_RDONLY) == rfd, "the read descriptor is opened once and shared");
	{
		char buf[8] = { 0 };

		ok(pread(rfd, buf, sizeof(buf), 0) == 4 && memcmp(buf, "data", 4) == 0,
		   "and reads the file");
	}
	ok(vfs_node_io_fd(a, O_WRONLY) < 0 && vfs_node_open_io(a, O_WRONLY) >= 0 &&
	   vfs_node_open_io(a, O_WRONLY) != rfd, "a write descriptor is separate");
	{
		size_t len = 0, len2 = 0;
		uint8_t *m, *m2;
		char buf[8] = { 0 };

		ok(vfs_node_map(a, O_WRONLY, 5, &len) == NULL, "no mapping past the file's size");
		m = vfs_node_map(a, O_WRONLY, 4, &len);
		m2 = vfs_node_map(b, O_WRONLY, 2, &len2);
		ok(m && len >= 4 && m2 == m && len2 == len,
		   "a mapping of the file, made once and shared (length %zu)", len);
		ok(stats().map_bytes == len, "statistics: its %zu bytes mapped", len);
		if (m)
			memcpy(m + 1, "AT", 2);
		ok(pread(rfd, buf, sizeof(buf), 0) == 4 && memcmp(buf, "dATa", 4) == 0,
		   "a store into it is in the file");
	}
	{
		/* populating the write mapping: once a page, EFAULT past EOF */
		long pg = sysconf(_SC_PAGESIZE);
		struct vfs_node *t = NULL, *h = NULL;
		struct fh_parts pt, ph;
		char path[4200];
		size_t len = 0;
		int fd3;

		snprintf(path, sizeof(path), "%s/three", dir);
		fd3 = open(path, O_CREAT | O_RDWR, 0644);
		if (fd3 < 0 || ftruncate(fd3, 3 * pg) < 0 || parts_of("three", &pt) < 0 ||
		    vfs_node_get(&exp_, &pt, true, &t) < 0 ||
		    !vfs_node_map(t, O_WRONLY, 3 * (uint64_t)pg, &len)) {
			printf("Bail out! cannot map a file of three pages\n");
			return 1;
		}
		ok(vfs_node_map_populate(t, 0, (size_t)pg) == 0 &&
		   vfs_node_map_populate(t, 0, len + 1) == -EINVAL,
		   "populate page 0; a range past the mapping is refused");
		ok(ftruncate(fd3, pg) == 0 && vfs_node_map_populate(t, 2 * (uint64_t)pg, 1) == -EFAULT,
		   "truncated to one page: populating page 2 says EFAULT");
		ok(ftruncate(fd3, 0) == 0 && vfs_node_map_populate(t, 0, 1) == 0,
		   "page 0, populated before, is not populated again (no EFAULT)");
		vfs_node_forget(t); /* as REMOVE does: the sweep test counts */
		vfs_node_put(t);
		close(fd3);
		unlink(path);

		/* too large to map */
		snprintf(path, sizeof(path), "%s/huge", dir);
		fd3 = open(path, O_CREAT | O_RDWR, 0644);
		ok(fd3 >= 0 && ftruncate(fd3, (off_t)VFS_MAP_MAX + pg) == 0 &&
		   parts_of("huge", &ph) == 0 && vfs_node_get(&exp_, &ph, true, &h) == 0 &&
		   !vfs_node_map(h, O_RDONLY, 1, &len) && !vfs_node_map(h, O_RDONLY, 1, &len),
		   "a file larger than VFS_MAP_MAX is not mapped (asked twice)");
		if (h)
			vfs_node_forget(h);
		vfs_node_put(h);
		if (fd3 >= 0)
			close(fd3);
		unlink(path);
	}
	vfs_node_put(b);

	/* forget by name: the next get opens a new node */
	vfs_node_forget_name(&exp_, exp_.root_fd, "f0000");
	ok(fd_open(vfs_node_fd(a)) && fd_open(rfd),
	   "a forgotten node in use keeps its descriptors");
	ok(vfs_node_get(&exp_, &p, false, &b) == -EWOULDBLOCK,
	   "after forgetting the name, the handle is a miss");
	held_fd = vfs_node_fd(a);
	vfs_node_put(a);
	ok(!fd_open(held_fd) && !fd_open(rfd), "the last put of a forgotten node closes it");
	{
		FILE *maps = fopen("/proc/self/maps", "r");
		char line[4400], want[200];
		bool mapped = false;

		snprintf(want, sizeof(want), "%s/f0000", dir);
		while (maps && fgets(line, sizeof(line), maps))
			if (strstr(line, want))
				mapped = true;
		if (maps)
			fclose(maps);
		ok(!mapped, "and unmaps it");
		ok(stats().map_bytes == 0, "statistics: no bytes mapped");
	}

	/* capacity: many objects through, the cache stays bounded */
	ok(parts_of("f0001", &q) == 0 && vfs_node_get(&exp_, &q, true, &held) == 0,
	   "hold f0001");
	held_fd = vfs_node_fd(held);
	all_ok = true;
	for (i = 2; i < NFILES; i++) {
		struct vfs_node *n;

		snprintf(name, sizeof(name), "f%04u", i);
		if (parts_of(name, &p) < 0 || vfs_node_get(&exp_, &p, true, &n) < 0) {
			all_ok = false;
			break;
		}
		vfs_node_put(n);
		if (vfs_nodes_count() > cap + 1)
			all_ok = false;
	}
	ok(all_ok, "%d objects passed through; never more than %u cached (now %u)",
	   NFILES - 2, cap + 1, vfs_nodes_count());
	ok(fd_open(held_fd) && vfs_node_get(&exp_, &q, false, &b) == 0 && b == held,
	   "a node in use is not evicted");
	vfs_node_put(b);
	snprintf(name, sizeof(name), "f%04u", NFILES - 1);
	ok(parts_of(name, &p) == 0 && vfs_node_get(&exp_, &p, false, &b) == 0,
	   "the most recently used node is still cached");
	vfs_node_put(b);
	/* Each shard has its own LRU and holds at least 32 nodes: f0002 stays
	 * only if fewer than 32 of the 597 objects after it share its shard
	 * (of at most 4; about 150 expected). The exact order is checked on a
	 * one-shard cache below. */
	ok(parts_of("f0002", &p) == 0 && vfs_node_get(&exp_, &p, false, &b) == -EWOULDBLOCK,
	   "the least recently used ones were evicted");
	vfs_node_put(held);

	/* a removed file's handle no longer opens */
	vfs_node_forget_name(&exp_, exp_.root_fd, "f0003");
	snprintf(name, sizeof(name), "%s/f0003", dir);
	ok(parts_of("f0003", &p) == 0 && unlink(name) == 0 &&
	   vfs_node_get(&exp_, &p, true, &b) == -ESTALE, "a removed file's handle is stale");

	/* removed behind the cache's back: swept once unused */
	{
		struct vfs_node *c = NULL, *d = NULL, *e = NULL;
		struct fh_parts pc, pd, pe;
		char nc[4200], nd[4200];
		int cfd;

		if (!(parts_of("f0597", &pc) == 0 && parts_of("f0598", &pd) == 0 &&
		      parts_of("f0599", &pe) == 0 && vfs_node_get(&exp_, &pc, true, &c) == 0 &&
		      vfs_node_get(&exp_, &pd, true, &d) == 0 &&
		      vfs_node_get(&exp_, &pe, true, &e) == 0)) {
			printf("Bail out! cannot cache f0597, f0598, f0599\n");
			return 1;
		}
		cfd = vfs_node_fd(c);
		vfs_node_put(c);
		vfs_node_put(e);
		snprintf(nc, sizeof(nc), "%s/f0597", dir);
		snprintf(nd, sizeof(nd), "%s/f0598", dir);
		ok(unlink(nc) == 0 && unlink(nd) == 0, "f0597 (unused) and f0598 (in use) removed");
		ok(vfs_nodes_sweep_removed() == 1 && !fd_open(cfd),
		   "the sweep closes the unused removed one");
		ok(vfs_node_get(&exp_, &pe, false, &e) == 0, "keeps the one not removed");
		vfs_node_put(e);
		ok(fd_open(vfs_node_fd(d)), "and leaves the one in use to its holder");
		vfs_node_put(d);
		ok(vfs_nodes_sweep_removed() == 1, "which the next sweep closes");
	}

	/* Pinned (an NFSv4 open): kept cached through forgetting, removal
	 * and sweeps, and reachable by its handle, until unpinned. */
	{
		struct vfs_node *pn = NULL, *x = NULL;
		struct fh_parts pp;
		char np[4200];
		int pfd;

		if (parts_of("f0010", &pp) < 0 || vfs_node_get(&exp_, &pp, true, &pn) < 0) {
			printf("Bail out! cannot cache f0010\n");
			return 1;
		}
		pfd = vfs_node_fd(pn);
		st = stats();
		ok(!vfs_node_pinned(pn) && vfs_node_pin(pn) && vfs_node_pinned(pn) &&
		   vfs_nodes_pinned() == 1, "a node pinned");
		{
			struct vfs_node_stats st2 = stats();

			ok(st2.pinned == 1 && st2.nodes == st.nodes &&
			   st2.nodes == vfs_nodes_count() + 1,
			   "statistics: 1 pinned, of %llu nodes cached as before",
			   (unsigned long long)st2.nodes);
		}
		vfs_node_put(pn);
		vfs_node_forget_name(&exp_, exp_.root_fd, "f0010");
		vfs_node_forget(pn);
		snprintf(np, sizeof(np), "%s/f0010", dir);
		ok(unlink(np) == 0 && vfs_nodes_sweep_removed() == 0 && fd_open(pfd),
		   "forgotten by name and by node, removed, swept: still open");
		ok(vfs_node_get(&exp_, &pp, false, &x) == 0 && x == pn,
		   "and its handle still finds it, without blocking");
		vfs_node_put(x);
		ok(vfs_node_pin(pn) && vfs_nodes_pinned() == 1, "pins nest (one node pinned)");
		vfs_node_unpin(pn);
		ok(vfs_node_pinned(pn) && fd_open(pfd), "one unpin of two: still pinned");
		vfs_node_unpin(pn);
		ok(!vfs_node_pinned(pn) && vfs_nodes_pinned() == 0 && fd_open(pfd),
		   "the last unpin closes nothing itself");
		ok(vfs_nodes_sweep_removed() == 1 && !fd_open(pfd),
		   "the next sweep closes the removed node");

		/* a reload drops even a pinned node: its unpin leaves it to the sweep */
		ok(parts_of("f0011", &pp) == 0 && vfs_node_get(&exp_, &pp, true, &pn) == 0 &&
		   vfs_node_pin(pn), "f0011 pinned");
		pfd = vfs_node_fd(pn);
		vfs_node_put(pn);
		vfs_nodes_forget_export(exp_.id);
		ok(fd_open(pfd) && vfs_node_get(&exp_, &pp, false, &x) == -EWOULDBLOCK,
		   "a reload drops it from the cache (a miss), still open");
		st = stats();
		ok(st.pinned == 0 && st.nodes == 0,
		   "statistics: a pinned node out of the cache is not counted");
		vfs_node_unpin(pn);
		ok(fd_open(pfd) && vfs_nodes_sweep_removed() == 1 && !fd_open(pfd),
		   "unpinned, it is closed by the next sweep");

		ok(parts_of("f0012", &pp) == 0 && vfs_node_get(&exp_, &pp, true, &x) == 0,
		   "f0012 cached");
		vfs_node_forget(x);
		ok(!vfs_node_pin(x) && vfs_nodes_pinned() == 0,
		   "a node out of the cache (forgotten) is not pinned");
		vfs_node_put(x);

		/* the budget: half the capacity */
		all_ok = true;
		for (i = 0; i < cap / 2 && all_ok; i++) {
			snprintf(name, sizeof(name), "f%04u", 200 + i);
			all_ok = parts_of(name, &pp) == 0 &&
				 vfs_node_get(&exp_, &pp, true, &pn) == 0 && vfs_node_pin(pn);
			if (all_ok)
				vfs_node_put(pn);
		}
		ok(all_ok && vfs_nodes_pinned() == cap / 2, "%u nodes pinned", cap / 2);
		st = stats();
		ok(st.pinned == cap / 2 && st.nodes == vfs_nodes_count() + cap / 2,
		   "statistics: %u pinned, %llu nodes", cap / 2, (unsigned long long)st.nodes);
		/* pinned nodes are off the LRU list and its capacity: a cache
		 * filled with others after them keeps them, and holds its
		 * capacity of unpinned ones besides */
		all_ok = true;
		for (i = 0; i < cap && all_ok; i++) {
			snprintf(name, sizeof(name), "f%04u", 300 + i);
			all_ok = parts_of(name, &pp) == 0 &&
				 vfs_node_get(&exp_, &pp, true, &x) == 0;
			if (all_ok)
				vfs_node_put(x);
		}
		{
			unsigned int kept = 0;

			for (i = 0; i < cap && all_ok; i++) {
				snprintf(name, sizeof(name), "f%04u", 300 + i);
				if (parts_of(name, &pp) == 0 &&
				    vfs_node_get(&exp_, &pp, false, &x) == 0) {
					kept++;
					vfs_node_put(x);
				}
			}
			/* with the pinned ones on the LRU list, about half would
			 * be left (the shards' hashing takes a few more) */
			ok(all_ok && kept >= cap * 3 / 4 && vfs_nodes_count() <= cap &&
			   vfs_nodes_pinned() == cap / 2 && parts_of("f0200", &pp) == 0 &&
			   vfs_node_get(&exp_, &pp, false, &x) == 0,
			   "%u more nodes cached: %u of them still kept beside %u pinned, which "
			   "are still found without blocking", cap, kept, cap / 2);
			if (all_ok)
				vfs_node_put(x);
		}
		ok(parts_of("f0400", &pp) == 0 && vfs_node_get(&exp_, &pp, true, &x) == 0 &&
		   !vfs_node_pin(x) && !vfs_node_pinned(x) && vfs_nodes_pinned() == cap / 2,
		   "one more is refused: half the capacity is the budget");
		vfs_node_put(x);
		for (i = 0; i < cap / 2; i++) {
			snprintf(name, sizeof(name), "f%04u", 200 + i);
			if (parts_of(name, &pp) == 0 && vfs_node_get(&exp_, &pp, false, &pn) == 0) {
				vfs_node_unpin(pn);
				vfs_node_put(pn);
			}
		}
		ok(vfs_nodes_pinned() == 0, "all unpinned");
	}

	/* A cache of fewer than 64 nodes is one shard: exactly LRU. */
	vfs_nodes_fini();
	cap = vfs_nodes_init(40);
	all_ok = cap == 40;
	for (i = 100; i < 140 && all_ok; i++) {
		snprintf(name, sizeof(name), "f%04u", i);
		all_ok = parts_of(name, &p) == 0 && vfs_node_get(&exp_, &p, true, &b) == 0;
		if (all_ok)
			vfs_node_put(b);
	}
	ok(all_ok && vfs_nodes_count() == 40, "a cache of capacity %u filled with f0100..f0139", cap);
	st = stats();
	ok(st.misses == 40 && st.hits == 0 && st.evictions == 0 && st.nodes == 40,
	   "statistics of the new cache: 40 misses, no eviction");
	ok(parts_of("f0100", &p) == 0 && vfs_node_get(&exp_, &p, false, &b) == 0,
	   "f0100 used again");
	vfs_node_put(b);
	ok(parts_of("f0140", &p) == 0 && vfs_node_get(&exp_, &p, true, &b) == 0 &&
	   vfs_nodes_count() == 40, "one more object: still 40 cached");
	vfs_node_put(b);
	st = stats();
	ok(st.misses == 41 && st.hits == 1 && st.evictions == 1 && st.nodes == 40,
	   "statistics: 41 misses, 1 hit, 1 eviction, 40 nodes");
	ok(parts_of("f0101", &p) == 0 && vfs_node_get(&exp_, &p, false, &b) == -EWOULDBLOCK,
	   "the least recently used one, f0101, was evicted");
	all_ok = true;
	for (i = 100; i <= 140; i++) {
		if (i == 101)
			continue;
		snprintf(name, sizeof(name), "f%04u", i);
		if (parts_of(name, &q) < 0 || vfs_node_get(&exp_, &q, false, &b) < 0)
			all_ok = false;
		else
			vfs_node_put(b);
	}
	ok(all_ok, "and only it");

	vfs_nodes_fini();
	vfs_export_close(&exp_);
	for (i = 0; i < NFILES; i++) {
		snprintf(name, sizeof(name), "%s/f%04u", dir, i);
		unlink(name);
	}
	rmdir(dir);
	return tap_done();
}
