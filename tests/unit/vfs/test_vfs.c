/* SPDX-License-Identifier: MIT */
/*
 * File handles and the POSIX backend: a handle round-trips and survives a
 * new key load from the same state directory; every altered byte, a
 * truncated or extended handle and another server's key are refused;
 * the key file is created 0600 and a damaged one is reported; a key
 * others may read or write, of another owner, not a regular file or a
 * symbolic link, and a state directory others may write or another uid
 * owns, are refused with the fix; a failed write closes its descriptors
 * and leaves no temporary file; handles of
 * removed files are stale; names with "/" or NUL, the empty name and
 * names over NAME_MAX are refused; ".." at the export root stays there;
 * a symlink is not followed; and a thread acting as an unprivileged uid
 * gets the kernel's permission decisions (needs root to run that part).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "vfs/fh.h"
#include "vfs/vfs.h"

static char dir[] = "/tmp/nfsx-vfs-XXXXXX";

static void path_of(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", dir, name);
}

static void test_key(uint8_t key[FH_KEY_LEN])
{
	char state[256], kp[300], err[256] = "";
	uint8_t again[FH_KEY_LEN];
	struct stat st;
	int fd;

	path_of(state, sizeof(state), "state");
	mkdir(state, 0700);
	ok(fh_key_load(state, key, err, sizeof(err)) == 0, "key created: %s", err);
	snprintf(kp, sizeof(kp), "%s/fh.key", state);
	ok(stat(kp, &st) == 0 && (st.st_mode & 0777) == 0600 && st.st_size == FH_KEY_LEN,
	   "key file is 0600 and %u bytes", FH_KEY_LEN);
	ok(fh_key_load(state, again, err, sizeof(err)) == 0 &&
	   memcmp(key, again, FH_KEY_LEN) == 0, "the same key is loaded on restart");
	fd = open(kp, O_WRONLY | O_TRUNC);
	ok(fd >= 0 && write(fd, "short", 5) == 5, "damage the key file");
	close(fd);
	ok(fh_key_load(state, again, err, sizeof(err)) < 0 && strstr(err, "fh.key"),
	   "a damaged key file is refused with its name: %s", err);
	fd = open(kp, O_WRONLY | O_TRUNC);
	ok(fd >= 0 && write(fd, key, FH_KEY_LEN) == FH_KEY_LEN, "restore the key");
	close(fd);
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n++;
	closedir(d);
	return n;
}

static bool exists(const char *p)
{
	struct stat st;

	return lstat(p, &st) == 0;
}

/* fh_key_load refuses, with @want (and @also, if given) in the message. */
static bool refused(const char *state, const char *want, const char *also)
{
	uint8_t k[FH_KEY_LEN];
	char err[512] = "";

	if (fh_key_load(state, k, err, sizeof(err)) == 0)
		return false;
	printf("# %s\n", err);
	return strstr(err, want) && (!also || strstr(err, also));
}

static void test_key_safety(void)
{
	char state[256], kp[300], tmp[310], victim[300], err[512] = "";
	uint8_t key[FH_KEY_LEN], again[FH_KEY_LEN];
	struct rlimit rl, small;
	struct stat st;
	int fds, r;

	path_of(state, sizeof(state), "safe");
	mkdir(state, 0700);
	snprintf(kp, sizeof(kp), "%s/fh.key", state);
	snprintf(tmp, sizeof(tmp), "%s/fh.key.tmp", state);

	/* A leftover temporary (here a link to a file of ours) is replaced. */
	path_of(victim, sizeof(victim), "victim");
	close(open(victim, O_WRONLY | O_CREAT, 0600));
	ok(symlink(victim, tmp) == 0, "plant fh.key.tmp as a symbolic link");
	ok(fh_key_load(state, key, err, sizeof(err)) == 0, "fresh key: %s", err);
	ok(stat(kp, &st) == 0 && S_ISREG(st.st_mode) &&
	   (st.st_mode & 0777) == 0600 && !exists(tmp) &&
	   stat(victim, &st) == 0 && st.st_size == 0,
	   "key 0600, no temporary left, the link's target untouched");

	chmod(kp, 0644);
	ok(refused(state, kp, "chmod 600"), "a 0644 key is refused: chmod 600");
	chmod(kp, 0620);
	ok(refused(state, kp, "chmod 600"), "a 0620 key is refused");
	chmod(kp, 0400);
	ok(fh_key_load(state, again, err, sizeof(err)) == 0 &&
	   memcmp(key, again, FH_KEY_LEN) == 0, "a 0400 key is taken: %s", err);
	chmod(kp, 0600);

	if (geteuid() == 0) {
		ok(chown(kp, 65534, 65534) == 0 &&
		   refused(state, kp, "owned by uid 65534"),
		   "a key owned by uid 65534 is refused");
		ok(chown(kp, 0, 0) == 0 && chown(state, 65534, 65534) == 0 &&
		   refused(state, state, "owned by uid 65534"),
		   "a state directory owned by uid 65534 is refused");
		ok(chown(state, 0, 0) == 0, "give the directory back");
	} else {
		ok(1, "ownership # SKIP needs root");
	}

	chmod(state, 0770);
	ok(refused(state, state, "chmod go-w"),
	   "a group-writable state directory is refused");
	chmod(state, 0702);
	ok(refused(state, state, "chmod go-w"),
	   "an other-writable state directory is refused");
	chmod(state, 0755);
	ok(fh_key_load(state, again, err, sizeof(err)) == 0,
	   "a 0755 state directory is taken: %s", err);
	chmod(state, 0700);

	ok(rename(kp, tmp) == 0 && mkfifo(kp, 0600) == 0 &&
	   refused(state, kp, "not a regular file"),
	   "a FIFO as fh.key is refused at once");
	unlink(kp);
	ok(mkdir(kp, 0700) == 0 && refused(state, kp, "not a regular file"),
	   "a directory as fh.key is refused");
	rmdir(kp);
	ok(symlink(tmp, kp) == 0 && refused(state, kp, "symbolic link"),
	   "a symbolic link as fh.key is refused");
	unlink(kp);
	ok(rename(tmp, kp) == 0 && fh_key_load(state, again, err, sizeof(err)) == 0 &&
	   memcmp(key, again, FH_KEY_LEN) == 0, "the key back in place loads");

	/* A write that fails: files limited to one byte, SIGXFSZ ignored. */
	unlink(kp);
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &rl);
	/* The soft limit only: lowering the hard one could not be undone. */
	small = (struct rlimit){ 1, rl.rlim_max };
	fds = count_fds();
	setrlimit(RLIMIT_FSIZE, &small);
	r = fh_key_load(state, key, err, sizeof(err));
	setrlimit(RLIMIT_FSIZE, &rl);
	ok(r < 0 && strstr(err, "cannot write") && strstr(err, kp),
	   "a failed write is reported with the file: %s", err);
	ok(count_fds() == fds, "... no descriptor left open (%d, %d)", fds,
	   count_fds());
	ok(!exists(kp) && !exists(tmp), "... and no fh.key or fh.key.tmp left");
	signal(SIGXFSZ, SIG_DFL);
}

static void test_fh(const uint8_t key[FH_KEY_LEN])
{
	struct fh_parts p = { .export_id = 0x01020304, .kernel_type = 1,
			      .kernel_len = 12 }, q;
	uint8_t other[FH_KEY_LEN];
	struct nfsx_fh fh = { 0 }, bad;
	unsigned int i, refused = 0;

	for (i = 0; i < p.kernel_len; i++)
		p.kernel[i] = (uint8_t)(i * 7 + 1);
	i = (unsigned int)fh_encode(key, &p, &fh);
	ok(i == 0 && fh.len == FH_HDR_LEN + 12 + FH_MAC_LEN, "encode: %u bytes",
	   fh.len);
	ok(fh_decode(key, fh.data, fh.len, &q) && q.export_id == p.export_id &&
	   q.kernel_type == 1 && q.kernel_len == 12 &&
	   memcmp(q.kernel, p.kernel, 12) == 0, "decode gives back every field");
	for (i = 0; i < fh.len * 8; i++) {
		bad = fh;
		bad.data[i / 8] ^= (uint8_t)(1u << (i % 8));
		refused += !fh_decode(key, bad.data, bad.len, &q);
	}
	ok(refused == fh.len * 8, "every one of %u single-bit changes is refused (%u)",
	   fh.len * 8, refused);
	ok(!fh_decode(key, fh.data, fh.len - 1, &q), "truncated handle refused");
	ok(!fh_old_version(fh.data, fh.len), "a handle of this version is not an old one");
	bad = fh;
	bad.data[0] = 1;
	ok(!fh_decode(key, bad.data, bad.len, &q) && fh_old_version(bad.data, bad.len),
	   "a version 1 handle is refused, as an old one (stale)");
	bad.data[0] = FH_VERSION + 1;
	ok(!fh_decode(key, bad.data, bad.len, &q) && !fh_old_version(bad.data, bad.len),
	   "a handle of a later version is refused, as bad");
	bad.data[0] = 1;
	ok(!fh_old_version(bad.data, FH_HDR_LEN + FH_MAC_LEN - 1),
	   "a version 1 handle too short for one is bad, not old");
	bad = fh;
	bad.data[fh.len] = 0;
	ok(!fh_decode(key, bad.data, fh.len + 1, &q), "extended handle refused");
	ok(!fh_decode(key, fh.data, 0, &q), "empty handle refused");
	memcpy(other, key, FH_KEY_LEN);
	other[0] ^= 1;
	ok(!fh_decode(other, fh.data, fh.len, &q), "another server's key refuses it");
	p.kernel_len = FH_KERNEL_MAX + 1;
	ok(fh_encode(key, &p, &fh) < 0, "a kernel handle over %u bytes is refused",
	   FH_KERNEL_MAX);
	p.kernel_len = FH_KERNEL_MAX;
	ok(fh_encode(key, &p, &fh) == 0 && fh.len == FH_MAX, "the largest handle is %u bytes",
	   FH_MAX);
}

static void test_names(struct vfs_export *e)
{
	char longname[NAME_MAX + 2];

	memset(longname, 'a', sizeof(longname));
	ok(vfs_check_name((const uint8_t *)"", 0) == -EACCES, "empty name: EACCES");
	ok(vfs_check_name((const uint8_t *)"a/b", 3) == -EACCES, "name with '/': EACCES");
	ok(vfs_check_name((const uint8_t *)"a\0b", 3) == -EACCES, "name with NUL: EACCES");
	ok(vfs_check_name((const uint8_t *)longname, NAME_MAX) == 0, "NAME_MAX bytes: fine");
	ok(vfs_check_name((const uint8_t *)longname, NAME_MAX + 1) == -ENAMETOOLONG,
	   "NAME_MAX + 1 bytes: ENAMETOOLONG");
	ok(vfs_lookup(e, e->root_fd, (const uint8_t *)"../etc", 6) == -EACCES,
	   "\"../etc\" is not one component");
}

static void test_objects(const uint8_t key[FH_KEY_LEN], struct vfs_export *e)
{
	struct nfsx_fh fh = { 0 }, rootfh;
	struct fh_parts p;
	struct stat st, st2;
	char fp[300];
	int fd, fd2, up;

	path_of(fp, sizeof(fp), "export/file");
	fd = open(fp, O_CREAT | O_WRONLY, 0640);
	ok(fd >= 0 && write(fd, "hello", 5) == 5, "create a file");
	close(fd);
	fd = vfs_lookup(e, e->root_fd, (const uint8_t *)"file", 4);
	ok(fd >= 0 && vfs_stat(fd, &st) == 0 && st.st_size == 5, "lookup + stat");
	fd2 = vfs_handle_of(key, e, fd, &fh);
	ok(fd2 == 0 && fh.len <= FH_MAX, "handle of the file: %u bytes", fh.len);
	ok(fh_decode(key, fh.data, fh.len, &p) && p.export_id == e->id,
	   "the handle names its export");
	fd2 = vfs_open_handle(e, &p);
	ok(fd2 >= 0 && vfs_stat(fd2, &st2) == 0 && st2.st_ino == st.st_ino,
	   "the handle opens the same file");
	close(fd2);
	fd2 = vfs_reopen(fd, O_RDONLY);
	{
		char b[8] = { 0 };

		ok(fd2 >= 0 && pread(fd2, b, sizeof(b), 0) == 5 && memcmp(b, "hello", 5) == 0,
		   "reopened for reading, the data is there");
	}
	close(fd2);
	close(fd);
	unlink(fp);
	fd2 = vfs_open_handle(e, &p);
	ok(fd2 == -ESTALE, "the handle of a removed file is stale (%d)", fd2);
	if (fd2 >= 0)
		close(fd2);

	up = vfs_lookup(e, e->root_fd, (const uint8_t *)"..", 2);
	ok(up >= 0 && vfs_stat(up, &st) == 0 && st.st_ino == e->root_ino,
	   "\"..\" at the export root is the root");
	if (up >= 0)
		close(up);
	ok(vfs_handle_of(key, e, e->root_fd, &rootfh) == 0, "root handle");

	path_of(fp, sizeof(fp), "export/link");
	ok(symlink("/etc/passwd", fp) == 0, "a symlink to /etc/passwd");
	fd = vfs_lookup(e, e->root_fd, (const uint8_t *)"link", 4);
	ok(fd >= 0 && vfs_stat(fd, &st) == 0 && S_ISLNK(st.st_mode),
	   "lookup of a symlink gives the link, not its target");
	if (fd >= 0)
		close(fd);
}

/* A capability set of this thread, from /proc/thread-self/status. */
static unsigned long long thread_caps(const char *which)
{
	char line[256];
	unsigned long long v = ~0ull;
	size_t n = strlen(which);
	FILE *f = fopen("/proc/thread-self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, which, n) == 0 && line[n] == ':')
			v = strtoull(line + n + 1, NULL, 16);
	if (f)
		fclose(f);
	return v;
}

/*
 * The effective capabilities follow the identity: none for a client
 * (squashed or not root), nfsd's set for an unsquashed root client
 * (file-system capabilities and CAP_SYS_RESOURCE), all for the server.
 */
static void test_caps(void)
{
	/* CHOWN, DAC_OVERRIDE, DAC_READ_SEARCH, FOWNER, FSETID, LINUX_IMMUTABLE,
	 * SYS_RESOURCE, MKNOD, MAC_OVERRIDE */
	const unsigned long long nfsd_set = 0x1full | 1ull << 9 | 1ull << 24 |
					    1ull << 27 | 1ull << 32;
	struct vfs_cred nobody = { .uid = 65534, .gid = 65534 };
	struct vfs_cred other = { .uid = 4242, .gid = 4242, .ngids = 1, .gids = { 7 } };
	struct vfs_cred croot = { .uid = 0, .gid = 0 };
	unsigned long long prm = thread_caps("CapPrm"), eff;
	int r;

	r = vfs_become(&nobody);
	eff = thread_caps("CapEff");
	ok(r == 0 && eff == 0,
	   "acting as a squashed client (65534) the thread holds no capability (CapEff %llx)",
	   eff);
	r = vfs_become(&other);
	eff = thread_caps("CapEff");
	ok(r == 0 && eff == 0, "switching straight to another client works, still with none");
	r = vfs_become(NULL);
	eff = thread_caps("CapEff");
	ok(r == 0 && eff == prm,
	   "as the server again: every permitted capability is back (%llx)", eff);
	r = vfs_become(&croot);
	eff = thread_caps("CapEff");
	ok(r == 0 && eff == (nfsd_set & prm),
	   "as an unsquashed root client: nfsd's set only (%llx, want %llx)", eff,
	   nfsd_set & prm);
	r = vfs_become(NULL);
	eff = thread_caps("CapEff");
	ok(r == 0 && eff == prm,
	   "root client and the server are told apart (same uid, other sets)");
	ok(thread_caps("CapPrm") == prm, "the permitted set never changes");
}

static void test_identity(struct vfs_export *e)
{
	struct vfs_cred user = { .uid = 4242, .gid = 4242 };
	char fp[300];
	int fd, rfd;

	if (geteuid() != 0) {
		ok(1, "identity # SKIP needs root");
		return;
	}
	path_of(fp, sizeof(fp), "export/secret");
	fd = open(fp, O_CREAT | O_WRONLY, 0600);
	close(fd);
	fd = vfs_lookup(e, e->root_fd, (const uint8_t *)"secret", 6);
	ok(vfs_become(&user) == 0, "become uid 4242");
	rfd = vfs_reopen(fd, O_RDONLY);
	ok(rfd == -EACCES, "uid 4242 may not read a root 0600 file (%d)", rfd);
	if (rfd >= 0)
		close(rfd);
	ok(vfs_become(NULL) == 0, "become root again");
	rfd = vfs_reopen(fd, O_RDONLY);
	ok(rfd >= 0, "root may");
	if (rfd >= 0)
		close(rfd);
	close(fd);
	test_caps();
}

int main(void)
{
	uint8_t key[FH_KEY_LEN];
	struct vfs_export e;
	char ep[300];

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return tap_done();
	}
	test_key(key);
	test_key_safety();
	test_fh(key);
	path_of(ep, sizeof(ep), "export");
	mkdir(ep, 0755);
	ok(vfs_export_open(&e, 7, ep) == 0, "open the export");
	test_names(&e);
	test_objects(key, &e);
	test_identity(&e);
	vfs_export_close(&e);
	{
		char cmd[400];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", dir);
	}
	return tap_done();
}
