// SPDX-License-Identifier: MIT
/*
 * NFSv3 asks the lease-break hook (src/vfs/lease.h) before it changes a
 * file, with no NFSv4 in the process: the test installs its own breaker
 * and counts a delegation itself, then runs NFSv3 calls through the
 * RPC dispatcher against a real export of a temporary directory on
 * tmpfs (memory-backed, so WRITE also takes its event-loop and bulk
 * paths).
 * - While no delegation is counted, the breaker is never called.
 * - With one counted and a breaker saying -EAGAIN for a file: WRITE
 *   (ordinary and bulk), SETATTR, CREATE UNCHECKED truncating it,
 *   REMOVE, RENAME of it or over it, LINK of it answer NFS3ERR_JUKEBOX
 *   with their wcc data and change nothing; the breaker got the file's
 *   st_dev/st_ino, breaker 0 and the reason. COMMIT, a CREATE that does
 *   not truncate, and directories are not asked about.
 * - With the breaker saying 0, the same calls succeed.
 * - READ and GETATTR ask only while a write delegation is counted
 *   (vfs_lease_count_write), with VFS_BREAK_READ and VFS_BREAK_GETATTR;
 *   the breaker's -EAGAIN makes them JUKEBOX.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "nfs3/nfs3.h"
#include "nfs3/programs.h"
#include "tap.h"
#include "unit/rpc/testutil.h"
#include "vfs/lease.h"
#include "xdr/gen/mount3.h"

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif

/* ---- the breaker ---- */

struct call {
	dev_t dev;
	ino_t ino;
	uint64_t breaker;
	enum vfs_break_why why;
};

static struct {
	int n;
	struct call c[8];
	ino_t victim;        /* -EAGAIN for this inode, 0 for the others */
} br;

static int breaker(void *arg, dev_t dev, ino_t ino, uint64_t who, enum vfs_break_why why)
{
	(void)arg;
	if (br.n < 8)
		br.c[br.n] = (struct call){ dev, ino, who, why };
	br.n++;
	return ino == br.victim ? -EAGAIN : 0;
}

/* The breaker was called exactly once since it was reset, for @path and @why. */
static bool asked_once(const char *path, enum vfs_break_why why)
{
	struct stat st;

	return lstat(path, &st) == 0 && br.n == 1 && br.c[0].dev == st.st_dev &&
	       br.c[0].ino == st.st_ino && br.c[0].breaker == 0 && br.c[0].why == why;
}

static void br_reset(ino_t victim)
{
	memset(&br, 0, sizeof(br));
	br.victim = victim;
}

/* ---- calls ---- */

static struct rpc_registry reg;
static struct sockaddr_storage peer;
static struct test_req t;
static struct wbuf w;
static uint32_t xid = 1;
static char dir[64], path[128];

struct fh {
	uint32_t len;
	uint8_t b[NFS3_FHSIZE];
};

static struct fh root;

/* Call header, AUTH_SYS uid 0 gid 0 (the export has no_root_squash). */
static void call(uint32_t prog, uint32_t proc)
{
	w.n = 0;
	w_u32(&w, ++xid);
	w_u32(&w, RPC_MSG_CALL);
	w_u32(&w, RPC_VERSION);
	w_u32(&w, prog);
	w_u32(&w, 3);
	w_u32(&w, proc);
	w_u32(&w, RPC_AUTH_SYS);
	w_u32(&w, 20);   /* stamp, machine name "", uid, gid, no groups */
	w_u32(&w, 0);
	w_u32(&w, 0);
	w_u32(&w, 0);
	w_u32(&w, 0);
	w_u32(&w, 0);
	w_u32(&w, RPC_AUTH_NONE);
	w_u32(&w, 0);
}

static void w_fh(const struct fh *f)
{
	w_bytes(&w, f->b, f->len);
}

static void w_u64(uint64_t v)
{
	w_u32(&w, (uint32_t)(v >> 32));
	w_u32(&w, (uint32_t)v);
}

/* sattr3: only a size, or nothing (size UINT64_MAX). */
static void w_sattr(uint64_t size)
{
	w_u32(&w, 0);    /* mode */
	w_u32(&w, 0);    /* uid */
	w_u32(&w, 0);    /* gid */
	if (size == UINT64_MAX) {
		w_u32(&w, 0);
	} else {
		w_u32(&w, 1);
		w_u64(size);
	}
	w_u32(&w, 0);    /* atime: DONT_CHANGE */
	w_u32(&w, 0);    /* mtime */
}

/* Run the call; the procedure's result decoder is then at its start. */
static bool run(struct xdr_dec *d)
{
	if (!treq_run(&t, &reg, NULL, &w, &peer) || !rep_accepted(&t, xid, RPC_SUCCESS))
		return false;
	xdr_dec_init(d, t.rep + 24, t.rep_len - 24, NULL);
	return true;
}

static const char *in(const char *name)
{
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static bool lookup(const char *name, struct fh *out)
{
	struct LOOKUP3res r;
	struct xdr_dec d;

	call(NFS3_PROGRAM, NFSPROC3_LOOKUP);
	w_fh(&root);
	w_str(&w, name);
	if (!run(&d) || !xdr_dec_LOOKUP3res(&d, &r) || r.status != NFS3_OK)
		return false;
	out->len = r.u.resok.object.data.len;
	memcpy(out->b, r.u.resok.object.data.data, out->len);
	return true;
}

/* A wcc_data with attributes before and after (what every answer of
 * these procedures carries, JUKEBOX included). */
static bool wcc_full(const struct wcc_data *c)
{
	return c->before.attributes_follow && c->after.attributes_follow;
}

static enum nfsstat3 do_write(const struct fh *f, uint64_t off, const char *data,
			      bool *wcc)
{
	struct WRITE3res r;
	struct xdr_dec d;

	call(NFS3_PROGRAM, NFSPROC3_WRITE);
	w_fh(f);
	w_u64(off);
	w_u32(&w, (uint32_t)strlen(data));
	w_u32(&w, UNSTABLE);
	w_str(&w, data);
	if (!run(&d) || !xdr_dec_WRITE3res(&d, &r))
		return (enum nfsstat3)-1;
	*wcc = wcc_full(r.status == NFS3_OK ? &r.u.resok.file_wcc : &r.u.resfail.file_wcc);
	return r.status;
}

static enum nfsstat3 do_setattr(const struct fh *f, uint64_t size, bool *wcc)
{
	struct SETATTR3res r;
	struct xdr_dec d;

	call(NFS3_PROGRAM, NFSPROC3_SETATTR);
	w_fh(f);
	w_sattr(size);
	w_u32(&w, 0);    /* no guard */
	if (!run(&d) || !xdr_dec_SETATTR3res(&d, &r))
		return (enum nfsstat3)-1;
	*wcc = wcc_full(&r.u.resok.obj_wcc);
	return r.status;
}

static enum nfsstat3 do_commit(const struct fh *f)
{
	struct COMMIT3res r;
	struct xdr_dec d;

	call(NFS3_PROGRAM, NFSPROC3_COMMIT);
	w_fh(f);
	w_u64(0);
	w_u32(&w, 0);
	if (!run(&d) || !xdr_dec_COMMIT3res(&d, &r))
		return (enum nfsstat3)-1;
	return r.status;
}

/* GETATTR of @f: the status. */
static enum nfsstat3 do_getattr(const struct fh *f)
{
	struct xdr_dec d;
	uint32_t st;

	call(NFS3_PROGRAM, NFSPROC3_GETATTR);
	w_fh(f);
	if (!run(&d) || !xdr_dec_u32(&d, &st))
		return (enum nfsstat3)-1;
	return (enum nfsstat3)st;
}

/* READ of 4 bytes of @f at 0: the status. */
static enum nfsstat3 do_read(const struct fh *f)
{
	struct xdr_dec d;
	uint32_t st;

	call(NFS3_PROGRAM, NFSPROC3_READ);
	w_fh(f);
	w_u64(0);
	w_u32(&w, 4);
	if (!run(&d) || !xdr_dec_u32(&d, &st))
		return (enum nfsstat3)-1;
	return (enum nfsstat3)st;
}

/* CREATE UNCHECKED @name in the root with @size (UINT64_MAX: none). */
static enum nfsstat3 do_create(const char *name, uint64_t size, bool *wcc)
{
	struct CREATE3res r;
	struct xdr_dec d;

	call(NFS3_PROGRAM, NFSPROC3_CREATE);
	w_fh(&root);
	w_str(&w, name);
	w_u32(&w, UNCHECKED);
	w_sattr(size);
	if (!run(&d) || !xdr_dec_CREATE3res(&d, &r))
		return (enum nfsstat3)-1;
	*wcc = wcc_full(r.status == NFS3_OK ? &r.u.resok.dir_wcc : &r.u.resfail.dir_wcc);
	return r.status;
}

static enum nfsstat3 do_remove(uint32_t proc, const char *name, bool *wcc)
{
	struct REMOVE3res r;
	struct xdr_dec d;

	call(NFS3_PROGRAM, proc);   /* REMOVE3res and RMDIR3res: the same shape */
	w_fh(&root);
	w_str(&w, name);
	if (!run(&d) || !xdr_dec_REMOVE3res(&d, &r))
		return (enum nfsstat3)-1;
	*wcc = wcc_full(r.status == NFS3_OK ? &r.u.resok.dir_wcc : &r.u.resfail.dir_wcc);
	return r.status;
}

static enum nfsstat3 do_rename(const char *from, const char *to, bool *wcc)
{
	struct RENAME3res r;
	struct xdr_dec d;

	call(NFS3_PROGRAM, NFSPROC3_RENAME);
	w_fh(&root);
	w_str(&w, from);
	w_fh(&root);
	w_str(&w, to);
	if (!run(&d) || !xdr_dec_RENAME3res(&d, &r))
		return (enum nfsstat3)-1;
	*wcc = r.status == NFS3_OK ?
		wcc_full(&r.u.resok.fromdir_wcc) && wcc_full(&r.u.resok.todir_wcc) :
		wcc_full(&r.u.resfail.fromdir_wcc) && wcc_full(&r.u.resfail.todir_wcc);
	return r.status;
}

static enum nfsstat3 do_link(const struct fh *f, const char *name, bool *wcc)
{
	struct LINK3res r;
	struct xdr_dec d;

	call(NFS3_PROGRAM, NFSPROC3_LINK);
	w_fh(f);
	w_fh(&root);
	w_str(&w, name);
	if (!run(&d) || !xdr_dec_LINK3res(&d, &r))
		return (enum nfsstat3)-1;
	*wcc = r.status == NFS3_OK ?
		r.u.resok.file_attributes.attributes_follow && wcc_full(&r.u.resok.linkdir_wcc) :
		r.u.resfail.file_attributes.attributes_follow &&
			wcc_full(&r.u.resfail.linkdir_wcc);
	return r.status;
}

/*
 * The bulk WRITE path (data taken from the socket): the record holds the
 * header and the first half of 16 bytes of data, the rest "still to
 * come". Return values: whether the bulk path took the call (it is then
 * aborted at once, after writing the half it had).
 */
static bool bulk_takes(const struct fh *f, uint64_t off)
{
	struct rpc_req *req = t.req;
	bool took;

	call(NFS3_PROGRAM, NFSPROC3_WRITE);
	w_fh(f);
	w_u64(off);
	w_u32(&w, 16);
	w_u32(&w, UNSTABLE);
	w_u32(&w, 16);
	w_raw(&w, "bbbbbbbb", 8);
	req->rec = req->rec_inline;
	rpc_req_release(req);
	req->rec = guard_place(&t.g, w.b, w.n);
	req->rec_len = w.n;
	rpc_req_reset(req);
	req->peer = &peer;
	req->conn = NULL;
	took = rpc_dispatch_bulk_begin(&reg, NULL, req, 8);
	if (took) {
		req->bulk.aborted = true;
		rpc_dispatch_bulk_end(NULL, req);
	}
	return took;
}

/* The whole content of @name, or "" (at most 63 bytes). */
static const char *content(const char *name)
{
	static char buf[64];
	int fd = open(in(name), O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	buf[n > 0 ? n : 0] = 0;
	if (fd >= 0)
		close(fd);
	return buf;
}

static void put(const char *name, const char *data)
{
	int fd = open(in(name), O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, data, strlen(data)) != (ssize_t)strlen(data)) {
		printf("Bail out! cannot write %s\n", path);
		exit(1);
	}
	close(fd);
}

static bool exists(const char *name)
{
	struct stat st;

	return lstat(in(name), &st) == 0;
}

static ino_t ino_of(const char *name)
{
	struct stat st;

	return lstat(in(name), &st) == 0 ? st.st_ino : 0;
}

static struct rpc_program nfs_prog = { NFS3_PROGRAM, "nfs", 1, &nfs3_version, NULL };
static struct rpc_program mnt_prog = { MOUNT3_PROGRAM, "mountd", 1, &mount3_version, NULL };

static void setup(char *state)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)&peer;
	struct nfsx_exports *ex;
	struct statfs sf;
	char text[256], err[256];
	struct xdr_dec d;
	uint32_t st;

	if (geteuid() != 0) {
		printf("1..0 # SKIP needs root (handles by open_by_handle_at)\n");
		exit(0);
	}
	strcpy(dir, "/dev/shm/nfsx-lease-XXXXXX");
	if (statfs("/dev/shm", &sf) < 0 || sf.f_type != TMPFS_MAGIC || !mkdtemp(dir) ||
	    !mkdtemp(state)) {
		printf("1..0 # SKIP no tmpfs at /dev/shm or no temporary directory\n");
		exit(0);
	}
	snprintf(text, sizeof(text), "%s 127.0.0.1(rw,no_root_squash,insecure)\n", dir);
	ex = exports_parse_string(text, "test", err, sizeof(err));
	if (!ex || nfs3_init(ex, state, err, sizeof(err)) < 0) {
		printf("Bail out! %s\n", ex ? err : "exports");
		exit(1);
	}
	if (rpc_registry_add(&reg, &nfs_prog) < 0 || rpc_registry_add(&reg, &mnt_prog) < 0) {
		printf("Bail out! registry\n");
		exit(1);
	}
	sin->sin_family = AF_INET;
	sin->sin_port = htons(700);
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	treq_init(&t);

	call(MOUNT3_PROGRAM, MOUNTPROC3_MNT);
	w_str(&w, dir);
	if (!run(&d) || !xdr_dec_u32(&d, &st) || st != 0 || !xdr_dec_u32(&d, &root.len) ||
	    root.len > sizeof(root.b) || xdr_dec_left(&d) < root.len) {
		printf("Bail out! MNT %s\n", dir);
		exit(1);
	}
	memcpy(root.b, d.p, root.len);
}

int main(void)
{
	char state[] = "/tmp/nfsx-lease-state-XXXXXX";
	char cmd[256];
	struct fh f, g;
	bool wcc;

	setup(state);
	put("f", "0123456789");
	put("g", "gggg");
	put("h", "hhhh");
	if (mkdir(in("d"), 0755) < 0 || !lookup("f", &f) || !lookup("g", &g)) {
		printf("Bail out! files\n");
		return 1;
	}
	vfs_lease_set_breaker(breaker, NULL);

	/* ---- no delegation counted: nothing asked ---- */
	br_reset(ino_of("f"));
	ok(do_write(&f, 0, "ab", &wcc) == NFS3_OK && strcmp(content("f"), "ab23456789") == 0 &&
	   do_setattr(&g, 4, &wcc) == NFS3_OK && br.n == 0,
	   "count 0: WRITE and SETATTR done, breaker never called");
	ok(bulk_takes(&f, 0) && strcmp(content("f"), "bbbbbbbb89") == 0 && br.n == 0,
	   "count 0: the bulk WRITE path takes the call (it wrote what came with the header)");

	/* ---- one delegation counted, the breaker recalls f's ---- */
	vfs_lease_count(+1);
	br_reset(ino_of("f"));
	ok(do_read(&f) == NFS3_OK && do_getattr(&f) == NFS3_OK && br.n == 0,
	   "a read delegation counted: READ and GETATTR done, breaker not called");
	vfs_lease_count_write(+1);
	br_reset(ino_of("f"));
	ok(do_read(&f) == NFS3ERR_JUKEBOX && asked_once(in("f"), VFS_BREAK_READ),
	   "a write delegation counted: READ: JUKEBOX, asked for f, READ");
	br_reset(ino_of("f"));
	ok(do_getattr(&f) == NFS3ERR_JUKEBOX && asked_once(in("f"), VFS_BREAK_GETATTR),
	   "GETATTR: JUKEBOX, asked for f, GETATTR");
	br_reset(ino_of("g"));
	ok(do_read(&f) == NFS3_OK && do_getattr(&f) == NFS3_OK && br.n == 2,
	   "the breaker says 0: READ and GETATTR done");
	vfs_lease_count_write(-1);
	br_reset(ino_of("f"));
	ok(do_write(&f, 0, "XY", &wcc) == NFS3ERR_JUKEBOX && wcc &&
	   strcmp(content("f"), "bbbbbbbb89") == 0,
	   "WRITE: JUKEBOX with file wcc_data, data unchanged");
	ok(asked_once(in("f"), VFS_BREAK_WRITE), "WRITE: asked for f's dev/ino, breaker 0, WRITE");

	br_reset(ino_of("f"));
	ok(!bulk_takes(&f, 0) && strcmp(content("f"), "bbbbbbbb89") == 0 &&
	   asked_once(in("f"), VFS_BREAK_WRITE),
	   "bulk WRITE: not taken (the ordinary handler answers JUKEBOX), nothing written");

	br_reset(ino_of("f"));
	ok(do_commit(&f) == NFS3_OK && br.n == 0, "COMMIT: done, not asked");

	br_reset(ino_of("f"));
	ok(do_setattr(&f, 0, &wcc) == NFS3ERR_JUKEBOX && wcc &&
	   strcmp(content("f"), "bbbbbbbb89") == 0 && asked_once(in("f"), VFS_BREAK_ATTR),
	   "SETATTR size 0: JUKEBOX with wcc_data, not truncated, asked ATTR");

	br_reset(ino_of("f"));
	ok(do_create("f", 0, &wcc) == NFS3ERR_JUKEBOX && wcc &&
	   strcmp(content("f"), "bbbbbbbb89") == 0 && asked_once(in("f"), VFS_BREAK_ATTR),
	   "CREATE UNCHECKED size 0 over f: JUKEBOX with dir wcc_data, not truncated, "
	   "asked ATTR");
	br_reset(ino_of("f"));
	ok(do_create("f", UINT64_MAX, &wcc) == NFS3_OK && br.n == 0 &&
	   strcmp(content("f"), "bbbbbbbb89") == 0,
	   "CREATE UNCHECKED without a size over f: done, not asked");

	br_reset(ino_of("f"));
	ok(do_remove(NFSPROC3_REMOVE, "f", &wcc) == NFS3ERR_JUKEBOX && wcc && exists("f"),
	   "REMOVE f: JUKEBOX with dir wcc_data, f still there");
	ok(asked_once(in("f"), VFS_BREAK_REMOVE), "REMOVE: asked for f, REMOVE");

	br_reset(ino_of("f"));
	ok(do_rename("f", "n", &wcc) == NFS3ERR_JUKEBOX && wcc && exists("f") && !exists("n"),
	   "RENAME f -> n: JUKEBOX with both wcc_data, nothing moved");
	ok(asked_once(in("f"), VFS_BREAK_RENAME), "RENAME: asked for the source f, RENAME");

	br_reset(ino_of("f"));
	ok(do_rename("h", "f", &wcc) == NFS3ERR_JUKEBOX && wcc &&
	   strcmp(content("f"), "bbbbbbbb89") == 0 && exists("h"),
	   "RENAME h over f: JUKEBOX, f not replaced, h still there");
	ok(br.n == 2 && br.c[0].ino == ino_of("h") && br.c[0].why == VFS_BREAK_RENAME &&
	   br.c[1].ino == ino_of("f") && br.c[1].why == VFS_BREAK_REMOVE && br.c[1].breaker == 0,
	   "RENAME over f: the source asked RENAME, the replaced f asked REMOVE");

	br_reset(ino_of("f"));
	ok(do_link(&f, "l", &wcc) == NFS3ERR_JUKEBOX && wcc && !exists("l") &&
	   asked_once(in("f"), VFS_BREAK_LINK),
	   "LINK f -> l: JUKEBOX with attributes and wcc_data, no link, asked LINK");

	br_reset(ino_of("d"));
	ok(do_rename("d", "d2", &wcc) == NFS3_OK && exists("d2") && br.n == 0 &&
	   do_remove(NFSPROC3_REMOVE, "d2", &wcc) == NFS3ERR_ISDIR && br.n == 0,
	   "a directory renamed (done) or REMOVEd (ISDIR): not asked");

	/* ---- the breaker answers 0: everything goes on ---- */
	br_reset(0);
	ok(do_write(&f, 0, "XY", &wcc) == NFS3_OK && strcmp(content("f"), "XYbbbbbb89") == 0 &&
	   asked_once(in("f"), VFS_BREAK_WRITE), "breaker says 0: WRITE done");
	br_reset(0);
	ok(do_setattr(&f, 4, &wcc) == NFS3_OK && strcmp(content("f"), "XYbb") == 0 &&
	   asked_once(in("f"), VFS_BREAK_ATTR), "breaker says 0: SETATTR done");
	br_reset(0);
	ok(do_link(&f, "l", &wcc) == NFS3_OK && exists("l") && asked_once(in("f"), VFS_BREAK_LINK),
	   "breaker says 0: LINK done");
	br_reset(0);
	ok(do_rename("l", "f", &wcc) == NFS3_OK && exists("l") && br.n == 0,
	   "RENAME of a name over another name of the same file (rename(2) does "
	   "nothing): not asked");
	br_reset(0);
	ok(do_rename("h", "g", &wcc) == NFS3_OK && strcmp(content("g"), "hhhh") == 0 &&
	   br.n == 2 && br.c[0].why == VFS_BREAK_RENAME && br.c[1].why == VFS_BREAK_REMOVE,
	   "breaker says 0: RENAME over g done (source and target asked)");
	br_reset(0);
	ok(do_remove(NFSPROC3_REMOVE, "f", &wcc) == NFS3_OK && !exists("f") && br.n == 1 &&
	   br.c[0].why == VFS_BREAK_REMOVE, "breaker says 0: REMOVE done");

	/* ---- no delegation again ---- */
	vfs_lease_count(-1);
	br_reset(ino_of("g"));
	ok(do_remove(NFSPROC3_REMOVE, "g", &wcc) == NFS3_OK && !exists("g") && br.n == 0,
	   "count back to 0: REMOVE done, not asked");

	vfs_lease_set_breaker(NULL, NULL);
	treq_fini(&t);
	nfs3_fini();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", dir, state);
	if (system(cmd) != 0)
		printf("# could not remove %s and %s\n", dir, state);
	return tap_done();
}
