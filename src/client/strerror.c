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
	{ NFS3ERR_PERM, "NFS3ERR_PERM / NFS4ERR_PERM (1): operation not permitted" },
	{ NFS3ERR_NOENT, "NFS3ERR_NOENT / NFS4ERR_NOENT (2): no such file or directory" },
	{ NFS3ERR_IO, "NFS3ERR_IO / NFS4ERR_IO (5): I/O error" },
	{ NFS3ERR_NXIO, "NFS3ERR_NXIO / NFS4ERR_NXIO (6): no such device or address" },
	{ NFS3ERR_ACCES, "NFS3ERR_ACCES / NFS4ERR_ACCESS (13): permission denied" },
	{ NFS3ERR_EXIST, "NFS3ERR_EXIST / NFS4ERR_EXIST (17): file exists" },
	{ NFS3ERR_XDEV, "NFS3ERR_XDEV / NFS4ERR_XDEV (18): cross-device link" },
	{ NFS3ERR_NODEV, "NFS3ERR_NODEV (19): no such device" },
	{ NFS3ERR_NOTDIR, "NFS3ERR_NOTDIR / NFS4ERR_NOTDIR (20): not a directory" },
	{ NFS3ERR_ISDIR, "NFS3ERR_ISDIR / NFS4ERR_ISDIR (21): is a directory" },
	{ NFS3ERR_INVAL, "NFS3ERR_INVAL / NFS4ERR_INVAL (22): invalid argument" },
	{ NFS3ERR_FBIG, "NFS3ERR_FBIG / NFS4ERR_FBIG (27): file too large" },
	{ NFS3ERR_NOSPC, "NFS3ERR_NOSPC / NFS4ERR_NOSPC (28): no space left on device" },
	{ NFS3ERR_ROFS, "NFS3ERR_ROFS / NFS4ERR_ROFS (30): read-only file system" },
	{ NFS3ERR_MLINK, "NFS3ERR_MLINK / NFS4ERR_MLINK (31): too many links" },
	{ NFS3ERR_NAMETOOLONG, "NFS3ERR_NAMETOOLONG / NFS4ERR_NAMETOOLONG (63): file name too long" },
	{ NFS3ERR_NOTEMPTY, "NFS3ERR_NOTEMPTY / NFS4ERR_NOTEMPTY (66): directory not empty" },
	{ NFS3ERR_DQUOT, "NFS3ERR_DQUOT / NFS4ERR_DQUOT (69): disk quota exceeded" },
	{ NFS3ERR_STALE, "NFS3ERR_STALE / NFS4ERR_STALE (70): stale file handle" },
	{ NFS3ERR_REMOTE, "NFS3ERR_REMOTE (71): too many levels of remote in path" },
	{ NFS3ERR_BADHANDLE, "NFS3ERR_BADHANDLE / NFS4ERR_BADHANDLE (10001): illegal file handle" },
	{ NFS3ERR_NOT_SYNC, "NFS3ERR_NOT_SYNC (10002): update synchronization mismatch" },
	{ NFS3ERR_BAD_COOKIE, "NFS3ERR_BAD_COOKIE / NFS4ERR_BAD_COOKIE (10003): stale READDIR cookie" },
	{ NFS3ERR_NOTSUPP, "NFS3ERR_NOTSUPP / NFS4ERR_NOTSUPP (10004): operation not supported" },
	{ NFS3ERR_TOOSMALL, "NFS3ERR_TOOSMALL / NFS4ERR_TOOSMALL (10005): buffer or request too small" },
	{ NFS3ERR_SERVERFAULT, "NFS3ERR_SERVERFAULT / NFS4ERR_SERVERFAULT (10006): server fault" },
	{ NFS3ERR_BADTYPE, "NFS3ERR_BADTYPE / NFS4ERR_BADTYPE (10007): type not supported" },
	{ NFS3ERR_JUKEBOX, "NFS3ERR_JUKEBOX / NFS4ERR_DELAY (10008): try again later" },
};

/* NFSv4's own codes (above NFSv3's; below, NFSv4 gives most of NFSv3's
 * numbers the same meaning, and both names are in the table above: this
 * function does not know the version of the call that failed). */
static const struct errname nfs4_errors[] = {
	{ NFS4ERR_SAME, "NFS4ERR_SAME (10009): nverify says attributes are the same" },
	{ NFS4ERR_DENIED, "NFS4ERR_DENIED (10010): lock unavailable" },
	{ NFS4ERR_EXPIRED, "NFS4ERR_EXPIRED (10011): lock lease expired" },
	{ NFS4ERR_LOCKED, "NFS4ERR_LOCKED (10012): I/O failed due to lock" },
	{ NFS4ERR_GRACE, "NFS4ERR_GRACE (10013): in grace period" },
	{ NFS4ERR_FHEXPIRED, "NFS4ERR_FHEXPIRED (10014): filehandle expired" },
	{ NFS4ERR_SHARE_DENIED, "NFS4ERR_SHARE_DENIED (10015): share reservation denied" },
	{ NFS4ERR_WRONGSEC, "NFS4ERR_WRONGSEC (10016): wrong security flavor" },
	{ NFS4ERR_CLID_INUSE, "NFS4ERR_CLID_INUSE (10017): clientid in use" },
	{ NFS4ERR_MOVED, "NFS4ERR_MOVED (10019): file system moved" },
	{ NFS4ERR_NOFILEHANDLE, "NFS4ERR_NOFILEHANDLE (10020): current FH is not set" },
	{ NFS4ERR_MINOR_VERS_MISMATCH, "NFS4ERR_MINOR_VERS_MISMATCH (10021): minor version not spoken" },
	{ NFS4ERR_STALE_CLIENTID, "NFS4ERR_STALE_CLIENTID (10022): server has rebooted" },
	{ NFS4ERR_STALE_STATEID, "NFS4ERR_STALE_STATEID (10023): server has rebooted" },
	{ NFS4ERR_OLD_STATEID, "NFS4ERR_OLD_STATEID (10024): state is out of sync" },
	{ NFS4ERR_BAD_STATEID, "NFS4ERR_BAD_STATEID (10025): incorrect stateid" },
	{ NFS4ERR_BAD_SEQID, "NFS4ERR_BAD_SEQID (10026): request is out of sequence" },
	{ NFS4ERR_SYMLINK, "NFS4ERR_SYMLINK (10029): a symbolic link" },
	{ NFS4ERR_ATTRNOTSUPP, "NFS4ERR_ATTRNOTSUPP (10032): attribute not supported" },
	{ NFS4ERR_NO_GRACE, "NFS4ERR_NO_GRACE (10033): reclaim outside of grace" },
	{ NFS4ERR_RECLAIM_BAD, "NFS4ERR_RECLAIM_BAD (10034): reclaim error" },
	{ NFS4ERR_RECLAIM_CONFLICT, "NFS4ERR_RECLAIM_CONFLICT (10035): conflict on reclaim" },
	{ NFS4ERR_OP_ILLEGAL, "NFS4ERR_OP_ILLEGAL (10044): illegal operation" },
	{ NFS4ERR_BADXDR, "NFS4ERR_BADXDR (10036): XDR decode failed" },
	{ NFS4ERR_BADSESSION, "NFS4ERR_BADSESSION (10052): unknown session" },
	{ NFS4ERR_BADSLOT, "NFS4ERR_BADSLOT (10053): slot id out of range" },
	{ NFS4ERR_DEADSESSION, "NFS4ERR_DEADSESSION (10078): session is dead" },
	{ NFS4ERR_SEQ_MISORDERED, "NFS4ERR_SEQ_MISORDERED (10063): sequence id out of order" },
	{ NFS4ERR_SEQUENCE_POS, "NFS4ERR_SEQUENCE_POS (10064): SEQUENCE not first" },
	{ NFS4ERR_REQ_TOO_BIG, "NFS4ERR_REQ_TOO_BIG (10065): request too big" },
	{ NFS4ERR_REP_TOO_BIG, "NFS4ERR_REP_TOO_BIG (10066): reply too big" },
	{ NFS4ERR_TOO_MANY_OPS, "NFS4ERR_TOO_MANY_OPS (10070): too many operations" },
	{ NFS4ERR_RETRY_UNCACHED_REP, "NFS4ERR_RETRY_UNCACHED_REP (10068): retry of a reply not cached" },
	{ NFS4ERR_SEQ_FALSE_RETRY, "NFS4ERR_SEQ_FALSE_RETRY (10076): retry differs from the original" },
	{ NFS4ERR_CLIENTID_BUSY, "NFS4ERR_CLIENTID_BUSY (10074): client id holds state" },
	{ NFS4ERR_WRONG_TYPE, "NFS4ERR_WRONG_TYPE (10083): wrong type of object" },
	{ NFS4ERR_PARTNER_NOTSUPP, "NFS4ERR_PARTNER_NOTSUPP (10088): copy partner not supported" },
	{ NFS4ERR_UNION_NOTSUPP, "NFS4ERR_UNION_NOTSUPP (10090): seek of this kind not supported" },
	{ NFS4ERR_OFFLOAD_DENIED, "NFS4ERR_OFFLOAD_DENIED (10091): copy refused" },
	{ NFS4ERR_OFFLOAD_NO_REQS, "NFS4ERR_OFFLOAD_NO_REQS (10094): copy requirements not met" },
	{ NFS4ERR_NOXATTR, "NFS4ERR_NOXATTR (10095): no such extended attribute" },
	{ NFS4ERR_XATTR2BIG, "NFS4ERR_XATTR2BIG (10096): extended attribute too big" },
	{ NFS4ERR_COMPLETE_ALREADY, "NFS4ERR_COMPLETE_ALREADY (10054): reclaim already complete" },
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
	for (i = 0; i < sizeof(nfs4_errors) / sizeof(nfs4_errors[0]); i++)
		if (nfs4_errors[i].code == err)
			return nfs4_errors[i].text;
	return "unknown NFS status";
}
