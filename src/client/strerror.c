/* SPDX-License-Identifier: MIT */
/*
 * nfsx_strerror: names for NFS status codes (positive, as the sync API
 * returns them), MOUNT status codes (NFSX_MNT3ERR(s)) and errno texts
 * (negative).
 * Only constant strings: safe from any thread.
 */
#include "client/nfsx.h"

#include <string.h>

struct errname {
	int code;
	const char *text;
};

static const struct errname nfs3_errors[] = {
	{ NFS3ERR_PERM, "NFS3ERR_PERM (1): operation not permitted" },
	{ NFS3ERR_NOENT, "NFS3ERR_NOENT (2): no such file or directory" },
	{ NFS3ERR_IO, "NFS3ERR_IO (5): I/O error" },
	{ NFS3ERR_NXIO, "NFS3ERR_NXIO (6): no such device or address" },
	{ NFS3ERR_ACCES, "NFS3ERR_ACCES (13): permission denied" },
	{ NFS3ERR_EXIST, "NFS3ERR_EXIST (17): file exists" },
	{ NFS3ERR_XDEV, "NFS3ERR_XDEV (18): cross-device link" },
	{ NFS3ERR_NODEV, "NFS3ERR_NODEV (19): no such device" },
	{ NFS3ERR_NOTDIR, "NFS3ERR_NOTDIR (20): not a directory" },
	{ NFS3ERR_ISDIR, "NFS3ERR_ISDIR (21): is a directory" },
	{ NFS3ERR_INVAL, "NFS3ERR_INVAL (22): invalid argument" },
	{ NFS3ERR_FBIG, "NFS3ERR_FBIG (27): file too large" },
	{ NFS3ERR_NOSPC, "NFS3ERR_NOSPC (28): no space left on device" },
	{ NFS3ERR_ROFS, "NFS3ERR_ROFS (30): read-only file system" },
	{ NFS3ERR_MLINK, "NFS3ERR_MLINK (31): too many links" },
	{ NFS3ERR_NAMETOOLONG, "NFS3ERR_NAMETOOLONG (63): file name too long" },
	{ NFS3ERR_NOTEMPTY, "NFS3ERR_NOTEMPTY (66): directory not empty" },
	{ NFS3ERR_DQUOT, "NFS3ERR_DQUOT (69): disk quota exceeded" },
	{ NFS3ERR_STALE, "NFS3ERR_STALE (70): stale file handle" },
	{ NFS3ERR_REMOTE, "NFS3ERR_REMOTE (71): too many levels of remote in path" },
	{ NFS3ERR_BADHANDLE, "NFS3ERR_BADHANDLE (10001): illegal file handle" },
	{ NFS3ERR_NOT_SYNC, "NFS3ERR_NOT_SYNC (10002): update synchronization mismatch" },
	{ NFS3ERR_BAD_COOKIE, "NFS3ERR_BAD_COOKIE (10003): stale READDIR cookie" },
	{ NFS3ERR_NOTSUPP, "NFS3ERR_NOTSUPP (10004): operation not supported" },
	{ NFS3ERR_TOOSMALL, "NFS3ERR_TOOSMALL (10005): buffer or request too small" },
	{ NFS3ERR_SERVERFAULT, "NFS3ERR_SERVERFAULT (10006): server fault" },
	{ NFS3ERR_BADTYPE, "NFS3ERR_BADTYPE (10007): type not supported" },
	{ NFS3ERR_JUKEBOX, "NFS3ERR_JUKEBOX (10008): try again later" },
};

static const struct errname mnt3_errors[] = {
	{ MNT3ERR_PERM, "MNT3ERR_PERM (1): not owner" },
	{ MNT3ERR_NOENT, "MNT3ERR_NOENT (2): no such export or directory" },
	{ MNT3ERR_IO, "MNT3ERR_IO (5): I/O error" },
	{ MNT3ERR_ACCES, "MNT3ERR_ACCES (13): permission denied (this client may not mount it)" },
	{ MNT3ERR_NOTDIR, "MNT3ERR_NOTDIR (20): not a directory" },
	{ MNT3ERR_INVAL, "MNT3ERR_INVAL (22): invalid argument" },
	{ MNT3ERR_NAMETOOLONG, "MNT3ERR_NAMETOOLONG (63): file name too long" },
	{ MNT3ERR_NOTSUPP, "MNT3ERR_NOTSUPP (10004): operation not supported" },
	{ MNT3ERR_SERVERFAULT, "MNT3ERR_SERVERFAULT (10006): server fault" },
};

const char *nfsx_strerror(int err)
{
	size_t i;

	if (err == 0)
		return "success";
	if (err < 0) {
		const char *s = strerrordesc_np(-err);

		return s ? s : "unknown error";
	}
	if (err >= NFSX_MNT3ERR_BASE) {
		for (i = 0; i < sizeof(mnt3_errors) / sizeof(mnt3_errors[0]); i++)
			if (mnt3_errors[i].code == err - NFSX_MNT3ERR_BASE)
				return mnt3_errors[i].text;
		return "unknown MOUNT status";
	}
	for (i = 0; i < sizeof(nfs3_errors) / sizeof(nfs3_errors[0]); i++)
		if (nfs3_errors[i].code == err)
			return nfs3_errors[i].text;
	return "unknown NFS status";
}
