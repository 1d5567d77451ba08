/* SPDX-License-Identifier: MIT */
/* File handle encoding and authentication: see fh.h. */
#include "vfs/fh.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int read_all(int fd, uint8_t *buf, size_t len)
{
	while (len) {
		ssize_t n = read(fd, buf, len);

		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static int write_all(int fd, const uint8_t *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Whoever can read fh.key can forge a handle for any file of any export,
 * and whoever can write it (or owns it, and so can chmod it) can make
 * nfsxd accept handles made with a key of theirs. So an existing key
 * must be a regular file of nfsxd's own user that nobody else may read
 * or write; anything else stops the start with the fix to apply (a key
 * is never rewritten silently: clients would lose their handles).
 */
static int check_key_file(const char *path, const struct stat *st, char *err,
			  size_t errlen)
{
	if (!S_ISREG(st->st_mode)) {
		snprintf(err, errlen, "%s is not a regular file; remove it and nfsxd makes a new key (clients then lose their file handles)",
			 path);
		return -1;
	}
	if (st->st_uid != geteuid()) {
		snprintf(err, errlen, "%s is owned by uid %u, not by nfsxd's uid %u: anyone who owns it can read or change the key; chown %u %s, or remove it to make a new key",
			 path, (unsigned int)st->st_uid, (unsigned int)geteuid(),
			 (unsigned int)geteuid(), path);
		return -1;
	}
	if (st->st_mode & 077) {
		snprintf(err, errlen, "%s is readable or writable by group or others (mode %04o): whoever reads it can forge file handles; chmod 600 %s",
			 path, (unsigned int)(st->st_mode & 07777), path);
		return -1;
	}
	if (st->st_size != FH_KEY_LEN) {
		snprintf(err, errlen, "%s: not a %u-byte key; remove it to make a new one (clients then lose their file handles)",
			 path, FH_KEY_LEN);
		return -1;
	}
	return 0;
}

/*
 * Whoever can write the state directory can remove or replace fh.key
 * (and handles.map) between starts: a removed key is silently replaced
 * by a new one, and every client loses its handles. So the directory
 * must be nfsxd's user's and writable by nobody else, as sshd's
 * StrictModes wants of ~/.ssh; the start is refused, not merely warned
 * about, because a warning in a log does not undo a replaced key.
 */
static int check_state_dir(const char *dir, const struct stat *st, char *err,
			   size_t errlen)
{
	if (st->st_uid != geteuid()) {
		snprintf(err, errlen, "state directory %s is owned by uid %u, not by nfsxd's uid %u, who could replace fh.key in it: chown %u %s, or use another --state-dir",
			 dir, (unsigned int)st->st_uid, (unsigned int)geteuid(),
			 (unsigned int)geteuid(), dir);
		return -1;
	}
	if (st->st_mode & 022) {
		snprintf(err, errlen, "state directory %s is writable by group or others (mode %04o), who could replace fh.key in it: chmod go-w %s",
			 dir, (unsigned int)(st->st_mode & 07777), dir);
		return -1;
	}
	return 0;
}

/*
 * The directories above the state directory: whoever may rename entries
 * in one of them can put a directory of their own in its place between
 * starts. Each must belong to root or to nfsxd's user, and be writable
 * by nobody else unless it is sticky (as /tmp is), as sshd's StrictModes
 * checks a path.
 */
static int check_parents(const char *dir, char *err, size_t errlen)
{
	char real[PATH_MAX], *slash;
	struct stat st;

	if (!realpath(dir, real)) {
		snprintf(err, errlen, "state directory %s: %s", dir, strerror(errno));
		return -1;
	}
	while ((slash = strrchr(real, '/'))) {
		if (slash == real)
			slash[1] = 0;   /* "/" itself, last */
		else
			*slash = 0;
		if (stat(real, &st) < 0) {
			snprintf(err, errlen, "state directory %s: %s: %s", dir, real,
				 strerror(errno));
			return -1;
		}
		if (st.st_uid != 0 && st.st_uid != geteuid()) {
			snprintf(err, errlen, "state directory %s is inside %s, owned by uid %u, who could replace it (and fh.key): use a --state-dir whose parents belong to root or to nfsxd's user",
				 dir, real, (unsigned int)st.st_uid);
			return -1;
		}
		if ((st.st_mode & 022) && !(st.st_mode & S_ISVTX)) {
			snprintf(err, errlen, "state directory %s is inside %s, writable by group or others (mode %04o), who could replace it (and fh.key): chmod go-w %s, or use another --state-dir",
				 dir, real, (unsigned int)(st.st_mode & 07777), real);
			return -1;
		}
		if (strcmp(real, "/") == 0)
			break;
	}
	return 0;
}

/*
 * A new key goes to a private temporary file, synced, renamed over the
 * name and the directory synced, so that a crash leaves either no key
 * or the whole key, never a short one (which would stop the next
 * start), and the key written is the one in use after a power loss.
 * Every error path closes what it opened and removes the temporary.
 */
static int write_new_key(int dfd, const char *path, const uint8_t key[FH_KEY_LEN],
			 char *err, size_t errlen)
{
	static const char tmp[] = "fh.key.tmp";
	int fd, e;

	/* A leftover of an interrupted start; O_EXCL below trusts no file. */
	if (unlinkat(dfd, tmp, 0) < 0 && errno != ENOENT) {
		snprintf(err, errlen, "cannot remove %s.tmp: %s", path, strerror(errno));
		return -1;
	}
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
		    0600);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create %s.tmp: %s", path, strerror(errno));
		return -1;
	}
	if (write_all(fd, key, FH_KEY_LEN) < 0 || fsync(fd) < 0) {
		e = errno;
		close(fd);
		goto fail;
	}
	if (close(fd) < 0 || renameat(dfd, tmp, dfd, "fh.key") < 0) {
		e = errno;
		goto fail;
	}
	/* EINVAL: a file system that cannot sync a directory. */
	if (fsync(dfd) < 0 && errno != EINVAL) {
		snprintf(err, errlen, "cannot sync the directory of %s: %s", path,
			 strerror(errno));
		return -1;
	}
	return 0;
fail:
	unlinkat(dfd, tmp, 0);
	snprintf(err, errlen, "cannot write %s: %s", path, strerror(e));
	return -1;
}

static int load_key(int dfd, const char *path, uint8_t key[FH_KEY_LEN],
		    char *err, size_t errlen)
{
	struct stat st;
	int fd, r = -1;

	/* O_NONBLOCK: a FIFO planted as fh.key must not hang the start. */
	fd = openat(dfd, "fh.key", O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT) {
			/* First start: a new key, for nfsxd's user only. */
			randombytes_buf(key, FH_KEY_LEN);
			return write_new_key(dfd, path, key, err, errlen);
		}
		if (errno == ELOOP)
			snprintf(err, errlen, "%s is a symbolic link; nfsxd wants the key itself there (remove the link and nfsxd makes a new key)",
				 path);
		else
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0)
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
	else if (check_key_file(path, &st, err, errlen) == 0) {
		if (read_all(fd, key, FH_KEY_LEN) == 0)
			r = 0;
		else
			snprintf(err, errlen, "%s: not a %u-byte key; remove it to make a new one (clients then lose their file handles)",
				 path, FH_KEY_LEN);
	}
	close(fd);
	return r;
}

int fh_key_load(const char *state_dir, uint8_t key[FH_KEY_LEN], char *err,
		size_t errlen)
{
	char path[4096];
	struct stat st;
	int dfd, r;

	if (sodium_init() < 0) {
		snprintf(err, errlen, "libsodium failed to initialise");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/fh.key", state_dir);
	/* Every name below is taken relative to this one directory. */
	dfd = open(state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		snprintf(err, errlen, "state directory %s: %s", state_dir,
			 strerror(errno));
		return -1;
	}
	if (fstat(dfd, &st) < 0) {
		snprintf(err, errlen, "state directory %s: %s", state_dir,
			 strerror(errno));
		r = -1;
	} else if (check_state_dir(state_dir, &st, err, errlen) < 0 ||
		   check_parents(state_dir, err, errlen) < 0) {
		r = -1;
	} else {
		r = load_key(dfd, path, key, err, errlen);
	}
	close(dfd);
	return r;
}

/*
 * SipHash-2-4, 128-bit tag, under the key's first 16 bytes (uniformly
 * random, as the whole key is): a PRF, as a MAC needs, and the cheapest
 * libsodium has; a handle is checked on every call.
 */
static void mac(const uint8_t key[FH_KEY_LEN], const uint8_t *in, size_t len,
		uint8_t out[FH_MAC_LEN])
{
	_Static_assert(FH_MAC_LEN == crypto_shorthash_siphashx24_BYTES &&
		       FH_KEY_LEN >= crypto_shorthash_siphashx24_KEYBYTES,
		       "the handle's tag is a SipHash-x24 tag");
	crypto_shorthash_siphashx24(out, in, len, key);
}

int fh_encode(const uint8_t key[FH_KEY_LEN], const struct fh_parts *p,
	      struct nfsx_fh *fh)
{
	uint32_t body;

	if (p->kernel_len > FH_KERNEL_MAX || p->kernel_type < 0 ||
	    p->kernel_type > 255)
		return -1;
	body = FH_HDR_LEN + p->kernel_len;
	fh->data[0] = FH_VERSION;
	fh->data[1] = (uint8_t)p->kernel_type;
	fh->data[2] = (uint8_t)p->kernel_len;
	fh->data[3] = 0;
	fh->data[4] = (uint8_t)(p->export_id >> 24);
	fh->data[5] = (uint8_t)(p->export_id >> 16);
	fh->data[6] = (uint8_t)(p->export_id >> 8);
	fh->data[7] = (uint8_t)p->export_id;
	memcpy(fh->data + FH_HDR_LEN, p->kernel, p->kernel_len);
	mac(key, fh->data, body, fh->data + body);
	fh->len = body + FH_MAC_LEN;
	return 0;
}

bool fh_old_version(const uint8_t *data, uint32_t len)
{
	/* version 1: the same 8-byte head and 16-byte tag */
	return len >= FH_HDR_LEN + FH_MAC_LEN && len <= FH_MAX && data[0] >= 1 &&
	       data[0] < FH_VERSION;
}

bool fh_decode(const uint8_t key[FH_KEY_LEN], const uint8_t *data,
	       uint32_t len, struct fh_parts *p)
{
	uint8_t want[FH_MAC_LEN];
	uint32_t klen;

	if (len < FH_HDR_LEN + FH_MAC_LEN || len > FH_MAX ||
	    data[0] != FH_VERSION || data[3] != 0)
		return false;
	klen = data[2];
	/* The length the handle claims must be the length it has. */
	if (FH_HDR_LEN + klen + FH_MAC_LEN != len)
		return false;
	mac(key, data, FH_HDR_LEN + klen, want);
	/* constant time, as sodium_memcmp, but specialised for the
	 * tag's fixed length (sodium_memcmp is opaque by design) */
	_Static_assert(FH_MAC_LEN == crypto_verify_16_BYTES, "a 16-byte tag");
	if (crypto_verify_16(want, data + FH_HDR_LEN + klen) != 0)
		return false;
	p->kernel_type = data[1];
	p->kernel_len = klen;
	p->export_id = (uint32_t)data[4] << 24 | (uint32_t)data[5] << 16 |
		       (uint32_t)data[6] << 8 | data[7];
	memcpy(p->kernel, data + FH_HDR_LEN, klen);
	return true;
}
