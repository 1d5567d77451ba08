// SPDX-License-Identifier: MIT
/*
 * Unit test of nfs3_errno (src/nfs3/common.c): every errno the POSIX
 * backend can meet gets the nfsstat3 of RFC 1813 (section 2.6) and, where
 * the RFC leaves a choice, the one Linux's nfsd answers NFSv3 clients
 * (nfserrno() in fs/nfsd, and nfsd3_map_status() for the v4-only codes
 * it uses internally). The expectations are written out here, not taken
 * from the code, so a wrong or missing entry fails.
 */
#include <errno.h>
#include <stdio.h>

#include "nfs3/nfs3.h"
#include "tap.h"

#define E(e, st, why) { e, #e, st, #st, why }

static const struct {
	int err;
	const char *err_name;
	enum nfsstat3 want;
	const char *want_name;
	const char *why;
} table[] = {
	E(0, NFS3_OK, "success"),
	E(EPERM, NFS3ERR_PERM, "RFC 1813, nfsd"),
	E(ENOENT, NFS3ERR_NOENT, "RFC 1813, nfsd"),
	E(EIO, NFS3ERR_IO, "RFC 1813, nfsd"),
	E(ENXIO, NFS3ERR_NXIO, "RFC 1813, nfsd"),
	E(EACCES, NFS3ERR_ACCES, "RFC 1813, nfsd"),
	E(EEXIST, NFS3ERR_EXIST, "RFC 1813, nfsd"),
	E(EXDEV, NFS3ERR_XDEV, "RFC 1813, nfsd"),
	E(ENODEV, NFS3ERR_NODEV, "RFC 1813, nfsd"),
	E(ENOTDIR, NFS3ERR_NOTDIR, "RFC 1813, nfsd"),
	E(EISDIR, NFS3ERR_ISDIR, "RFC 1813, nfsd"),
	E(EINVAL, NFS3ERR_INVAL, "RFC 1813, nfsd"),
	E(EFBIG, NFS3ERR_FBIG, "RFC 1813, nfsd"),
	E(ENOSPC, NFS3ERR_NOSPC, "RFC 1813, nfsd"),
	E(EROFS, NFS3ERR_ROFS, "RFC 1813, nfsd"),
	E(EMLINK, NFS3ERR_MLINK, "RFC 1813, nfsd"),
	E(ENAMETOOLONG, NFS3ERR_NAMETOOLONG, "RFC 1813, nfsd"),
	E(ENOTEMPTY, NFS3ERR_NOTEMPTY, "RFC 1813, nfsd"),
	E(EDQUOT, NFS3ERR_DQUOT, "RFC 1813, nfsd"),
	E(ESTALE, NFS3ERR_STALE, "RFC 1813, nfsd"),
	E(EOPNOTSUPP, NFS3ERR_NOTSUPP, "nfsd"),
	E(ENOTSUP, NFS3ERR_NOTSUPP, "the same number as EOPNOTSUPP on Linux"),
	/* transient: JUKEBOX makes the client wait and resend */
	E(ETIMEDOUT, NFS3ERR_JUKEBOX, "nfsd"),
	E(EAGAIN, NFS3ERR_JUKEBOX, "nfsd"),
	E(EWOULDBLOCK, NFS3ERR_JUKEBOX, "nfsd"),
	E(ENOMEM, NFS3ERR_JUKEBOX, "nfsd"),
	E(EINTR, NFS3ERR_JUKEBOX, "nfsd's ERESTARTSYS, as user space sees it"),
	/* nfsd's choices where the RFC has no exact status */
	E(E2BIG, NFS3ERR_FBIG, "nfsd"),
	E(EBADF, NFS3ERR_STALE, "nfsd"),
	E(ETXTBSY, NFS3ERR_IO, "nfsd"),
	E(EUCLEAN, NFS3ERR_IO, "nfsd (corrupted file system)"),
	E(EREMOTEIO, NFS3ERR_IO, "nfsd"),
	E(EBADMSG, NFS3ERR_IO, "bad checksum on disk: a hard error"),
	E(ENOKEY, NFS3ERR_PERM, "nfsd (fscrypt)"),
	E(ENFILE, NFS3ERR_SERVERFAULT, "nfsd"),
	E(EMFILE, NFS3ERR_SERVERFAULT, "the process's ENFILE"),
	E(EBUSY, NFS3ERR_ACCES, "nfsd's v3 answer to removing a mount point"),
	E(ELOOP, NFS3ERR_INVAL, "nfsd's v3 answer to a symlink where a file was asked"),
	E(EOVERFLOW, NFS3ERR_SERVERFAULT, "a handle too large for NFSv3"),
	/* unknown: a hard error, as nfsd */
	E(EDOM, NFS3ERR_IO, "not a file system error"),
	E(ENOMSG, NFS3ERR_IO, "not a file system error"),
	E(4000, NFS3ERR_IO, "no such errno"),
};

/* Every status RFC 1813 defines. */
static bool legal(enum nfsstat3 s)
{
	switch (s) {
	case NFS3_OK: case NFS3ERR_PERM: case NFS3ERR_NOENT: case NFS3ERR_IO:
	case NFS3ERR_NXIO: case NFS3ERR_ACCES: case NFS3ERR_EXIST: case NFS3ERR_XDEV:
	case NFS3ERR_NODEV: case NFS3ERR_NOTDIR: case NFS3ERR_ISDIR: case NFS3ERR_INVAL:
	case NFS3ERR_FBIG: case NFS3ERR_NOSPC: case NFS3ERR_ROFS: case NFS3ERR_MLINK:
	case NFS3ERR_NAMETOOLONG: case NFS3ERR_NOTEMPTY: case NFS3ERR_DQUOT:
	case NFS3ERR_STALE: case NFS3ERR_REMOTE: case NFS3ERR_BADHANDLE:
	case NFS3ERR_NOT_SYNC: case NFS3ERR_BAD_COOKIE: case NFS3ERR_NOTSUPP:
	case NFS3ERR_TOOSMALL: case NFS3ERR_SERVERFAULT: case NFS3ERR_BADTYPE:
	case NFS3ERR_JUKEBOX:
		return true;
	}
	return false;
}

int main(void)
{
	size_t i;
	int e, bad = 0;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		enum nfsstat3 got = nfs3_errno(table[i].err);

		ok(got == table[i].want, "%s (%d) -> %s (%s; got %d)", table[i].err_name,
		   table[i].err, table[i].want_name, table[i].why, (int)got);
	}
	/* No errno is taken for success, none gives a status outside the RFC. */
	for (e = 1; e < 4096; e++) {
		enum nfsstat3 got = nfs3_errno(e);

		if (got == NFS3_OK || !legal(got)) {
			if (bad++ < 5)
				printf("#   errno %d -> %d\n", e, (int)got);
		}
	}
	ok(bad == 0, "errno 1..4095: never NFS3_OK, always a status of RFC 1813 (%d not)",
	   bad);
	return tap_done();
}
