/* SPDX-License-Identifier: MIT */
/*
 * NFSv4 file attributes (fattr4, RFC 7530 section 5, RFC 8881 section 5,
 * RFC 7862 section 12.2, RFC 8276): which ones the server supports in each
 * minor version, encoding them for GETATTR and READDIR, decoding the ones
 * a client may set (SETATTR, CREATE, OPEN), and VERIFY/NVERIFY.
 *
 * DESIGN
 * - One table, indexed by attribute number, says for each attribute the
 *   first minor version that has it, whether it needs the file system's
 *   statistics, whether it is settable or write-only, how the server
 *   encodes it and how a client's value is laid out. Everything below is
 *   driven by that table, so adding an attribute is one entry.
 * - Encoding writes straight into the reply: the result bitmap is known
 *   before any value (what was asked, supported and available), the
 *   attrlist4 length is reserved and patched once the values are in.
 * - Nothing here touches the file system: the caller fills struct
 *   nfs4_attr_src (stat, statfs when nfs4_attr_need_statfs says so, the
 *   change attribute, the handle). Only owner strings may consult the
 *   user and group databases (owner.h).
 */
#ifndef NFSX_NFS4_ATTR_H
#define NFSX_NFS4_ATTR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "vfs/fh.h"
#include "vfs/ops.h"
#include "xdr/gen/nfs4.h"

/* Bitmap words the server knows: attributes 0..95. */
#define NFS4_ATTR_WORDS 3u

/*
 * The most nfs4_attr_encode writes for one object, bitmap and length
 * included: every supported attribute with owner strings of
 * NFS4_OWNER_MAX bytes and a handle of NFS4_FHSIZE comes to 1492 bytes
 * (tests/unit/nfs4 checks that it fits). For sizing replies.
 */
#define NFS4_ATTR_ENCODED_MAX 1536u

/* What an object's attributes are made of (the server fills it). */
struct nfs4_attr_src {
	const struct stat *st;        /* the object's (a pseudo directory: a made-up one) */
	const struct vfs_statfs *sf;  /* its file system's, or NULL when not needed
				       * (nfs4_attr_need_statfs): the attributes
				       * that need it are then left out */
	uint64_t fsid_major, fsid_minor;
	uint64_t change;              /* the change attribute, computed by the caller */
	uint64_t mounted_on_fileid;
	uint64_t maxfilesize;         /* 0: not known, announced as INT64_MAX */
	const struct nfsx_fh *fh;     /* FATTR4_FILEHANDLE; NULL: left out */
	uint32_t lease_time;          /* seconds */
	uint32_t minorversion;        /* 0, 1 or 2 (above 2: as 2): which attributes exist */
	uint32_t rdattr_error;        /* an nfsstat4 for FATTR4_RDATTR_ERROR (READDIR
				       * entries); NFS4_OK otherwise */
	uint32_t maxread, maxwrite;   /* bytes */
	uint32_t time_delta_ns;       /* the server's time granularity */
	/* 4.2: change_attr_type as told; NFS4_CHANGE_TYPE_IS_UNDEFINED
	 * when not (a zeroed struct would otherwise say MONOTONIC_INCR) */
	bool change_type_known;
	uint32_t change_type;
	bool xattr_support;           /* 4.2 (RFC 8276): user xattrs work here */
	bool read_only;               /* a pseudo directory or a read-only export:
				       * cansettime is false */
	bool numeric_ids;             /* owner/owner_group as numbers (knfsd's default for
				       * AUTH_SYS: nfs4_disable_idmapping) */
	const char *id_domain;        /* for name@domain when !numeric_ids */
};

/*
 * nfs4_attr_supported - the supported_attrs of @minorversion (above 2:
 * as 2): 4.1 adds suppattr_exclcreat, 4.2 clone_blksize, change_attr_type
 * and xattr_support.
 * Return values: none; @words holds the three bitmap words.
 */
void nfs4_attr_supported(uint32_t minorversion, uint32_t words[NFS4_ATTR_WORDS]);

/*
 * nfs4_attr_exclcreat - suppattr_exclcreat (4.1+): what OPEN's
 * EXCLUSIVE4_1 may set. Not the times: a server may keep the create
 * verifier in them (knfsd does), and the client then sets them with a
 * SETATTR after the OPEN.
 * Return values: none; @words holds the three bitmap words.
 */
void nfs4_attr_exclcreat(uint32_t words[NFS4_ATTR_WORDS]);

/*
 * nfs4_attr_need_statfs - does @req ask for an attribute that needs the
 * file system's statistics (files_*, space_avail/free/total, maxlink,
 * maxname)?
 * Return values: true when the caller should fill nfs4_attr_src.sf.
 */
bool nfs4_attr_need_statfs(const bitmap4 *req);

/*
 * nfs4_attr_check_request - may GETATTR or READDIR ask for @req? Not for
 * the write-only time_access_set/time_modify_set (there is no value to
 * return), as knfsd answers.
 * Return values: NFS4_OK or NFS4ERR_INVAL.
 */
uint32_t nfs4_attr_check_request(const bitmap4 *req);

/*
 * nfs4_attr_encode - encode the fattr4 of @s for what @req asks: the
 * bitmap of the attributes that follow, then their values in bitmap
 * order. Only attributes supported in @s->minorversion are returned
 * (RFC 8881 18.7.3: a server must not set the bit of an attribute it
 * does not return); bits the server does not know, including those of
 * words past the third, are ignored; write-only attributes are never
 * returned; an attribute whose input is missing (@s->fh, @s->sf NULL) is
 * left out. The bitmap is as short as its last non-zero word.
 * Return values: true; false when @e has no room, with @e as it was.
 */
bool nfs4_attr_encode(struct xdr_enc *e, const bitmap4 *req, const struct nfs4_attr_src *s);

/*
 * nfs4_attr_decode_set - the attributes a client sets (SETATTR, CREATE's
 * and OPEN's createattrs) into @sa, and the bitmap of those set into
 * @attrsset (SETATTR's reply). Settable: size, mode, owner, owner_group,
 * time_access_set, time_modify_set (SET_TO_SERVER_TIME4: UTIME_NOW).
 * Owner strings are mapped with nfs4_owner_to_id and @id_domain.
 * The value bytes are checked whole first, so a malformed attr_vals wins
 * over what is wrong in a value.
 * Return values: NFS4_OK; NFS4ERR_ATTRNOTSUPP when an attribute is not
 * supported in @minorversion (including any bit the server does not
 * know); NFS4ERR_INVAL for a supported one that cannot be set (type,
 * fileid...), a mode beyond 07777 or nseconds beyond 999999999;
 * NFS4ERR_BADXDR when attr_vals is shorter or longer than the bitmap
 * says or a value is malformed; NFS4ERR_BADOWNER for an owner that does
 * not map. On error @sa and @attrsset are empty.
 */
uint32_t nfs4_attr_decode_set(const struct fattr4 *f, uint32_t minorversion,
			      const char *id_domain, struct vfs_sattr *sa,
			      uint32_t attrsset[NFS4_ATTR_WORDS]);

/*
 * nfs4_attr_verify - VERIFY and NVERIFY (RFC 7530 16.35 and 16.15,
 * RFC 8881 18.31 and 18.15): are the values in @f the server's? Compared
 * as encoded bytes, as knfsd does (nfsd4_verify): an owner the server
 * would send as "name@domain" is not the same as its number. The
 * client's values are walked attribute by attribute with their wire
 * layout, so no buffer larger than one value is needed.
 * Return values: NFS4_OK with *@same set; NFS4ERR_ATTRNOTSUPP for an
 * attribute not supported in @s->minorversion; NFS4ERR_INVAL for
 * rdattr_error or a write-only attribute; NFS4ERR_BADXDR when attr_vals
 * does not hold exactly the values the bitmap says; NFS4ERR_SERVERFAULT
 * when @s lacks an input asked for (sf, fh).
 */
uint32_t nfs4_attr_verify(const struct fattr4 *f, const struct nfs4_attr_src *s, bool *same);

#endif
