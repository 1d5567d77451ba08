/* SPDX-License-Identifier: MIT */
/*
 * READDIR and READDIRPLUS. The entry lists are encoded as they are read
 * from getdents64(2), one entry at a time, rather than built as the
 * generated linked list: the reply is bounded by the client's count, and
 * a directory of 100,000 entries must cost time linear in its size.
 *
 * Cookies are the file system's own directory offsets (d_off): ext4's
 * hash positions and tmpfs's stable offsets (Linux 6.6 and later) stay
 * valid while the directory changes, so the cookie verifier is always
 * zero and is not checked (as Linux's nfsd does). tests/integration/
 * test_nfs3_readdir.c checks both file systems.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "nfs3/nfs3.h"
#include "nfs3/procs.h"

#define POST_OP_MAX 88u      /* post_op_attr with attributes */
#define FH3_MAX (4u + 4u + NFS3_FHSIZE)

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

struct dir_args {
	struct nfs_fh3 *dir;
	uint64_t cookie;
	uint32_t dircount;   /* entry bytes (READDIRPLUS), or = maxcount */
	uint32_t maxcount;   /* the whole result */
	bool plus;
};

static uint32_t entry_bytes(uint32_t namelen)
{
	return 4 + 8 + 4 + xdr_pad(namelen) + 8; /* more, fileid, name, cookie */
}

/* Encode the failure result: status and the directory's attributes. */
static enum rpc_accept_stat dir_fail(struct rpc_req *req, enum nfsstat3 st,
				     const struct nfs3_obj *o)
{
	struct post_op_attr pa = { .attributes_follow = false };

	if (o && o->fd >= 0)
		nfs3_post_op(o, o->fd, &pa);
	return xdr_enc_u32(&req->enc, st) && xdr_enc_post_op_attr(&req->enc, &pa)
	       ? RPC_SUCCESS : RPC_SYSTEM_ERR;
}

static enum rpc_accept_stat readdir_common(struct rpc_req *req,
					   struct dir_args *a)
{
	static const uint8_t zero_verf[NFS3_COOKIEVERFSIZE];
	struct xdr_enc *e = &req->enc;
	uint8_t buf[16384];
	struct post_op_attr pa;
	struct nfs3_obj o;
	enum nfsstat3 st;
	uint32_t used, dirused = 0, nent = 0;
	size_t want;
	bool eof = false, full = false;
	int dfd;

	st = nfs3_resolve(req, a->dir, &o);
	if (st != NFS3_OK)
		return dir_fail(req, st, NULL);
	if (!S_ISDIR(o.st.st_mode)) {
		enum rpc_accept_stat r = dir_fail(req, NFS3ERR_NOTDIR, &o);

		nfs3_release(&o);
		return r;
	}
	dfd = vfs_reopen(o.fd, O_RDONLY | O_DIRECTORY);
	if (dfd < 0 || (a->cookie && lseek(dfd, (off_t)a->cookie, SEEK_SET) < 0)) {
		enum rpc_accept_stat r = dir_fail(req, nfs3_errno(dfd < 0 ? -dfd : errno), &o);

		if (dfd >= 0)
			close(dfd);
		nfs3_release(&o);
		return r;
	}
	if (a->maxcount > NFS3_DIRMAX)
		a->maxcount = NFS3_DIRMAX;
	if (a->dircount > a->maxcount)
		a->dircount = a->maxcount;

	/*
	 * Read about as many records as the reply can take: a getdents64
	 * record (19 bytes, the name, a NUL, 8-aligned) is at most 3 bytes
	 * longer than the entry's directory information, so dircount bytes
	 * of records (+1 KiB, and at least one record of a 255-byte name)
	 * fill the reply. The whole buffer every call read and threw away
	 * ~500 entries to send 12 at count 512. If they do not fill it,
	 * the loop reads on.
	 */
	want = a->dircount < sizeof(buf) - 1024 ? a->dircount + 1024 : sizeof(buf);

	nfs3_post_op(&o, o.fd, &pa);
	xdr_enc_u32(e, NFS3_OK);
	xdr_enc_post_op_attr(e, &pa);
	xdr_enc_opaque_fixed(e, zero_verf, sizeof(zero_verf));
	/* the result's size as the client counts it, with the list's end */
	used = 4 + POST_OP_MAX + NFS3_COOKIEVERFSIZE + 8;
	/* A count that cannot hold even an empty list: TOOSMALL, also at
	 * the end of the directory, rather than a result beyond count. */
	full = used > a->maxcount;

	while (!full) {
		long n = syscall(SYS_getdents64, dfd, buf, want);
		long pos = 0;

		if (n < 0) {
			st = nfs3_errno(errno);
			break;
		}
		if (n == 0) {
			eof = true;
			break;
		}
		while (pos < n) {
			struct linux_dirent64 *d = (void *)(buf + pos);
			uint32_t nl = (uint32_t)strlen(d->d_name);
			uint32_t eb = entry_bytes(nl);
			uint32_t pb = a->plus ? POST_OP_MAX + FH3_MAX : 0;
			struct post_op_attr ea = { .attributes_follow = false };
			struct post_op_fh3 eh = { .handle_follows = false };
			struct nfsx_fh fh;

			if (used + eb + pb > a->maxcount ||
			    (a->plus && dirused + eb > a->dircount)) {
				full = true;
				break;
			}
			if (a->plus && strcmp(d->d_name, ".") && strcmp(d->d_name, "..")) {
				int cfd = vfs_lookup_entry(o.vexp, dfd, d->d_name);
				struct stat cst;

				/* A mount point the client may cross: neither the
				 * covered directory nor the far side here; LOOKUP
				 * decides (as nfsd's READDIRPLUS does). */
				if (cfd >= 0 && vfs_stat(cfd, &cst) == 0 &&
				    !nfs3_crossing_point(&o, &cst)) {
					nfs3_fattr(&o, &cst, &ea.u.attributes);
					ea.attributes_follow = true;
					eh.handle_follows = nfs3_handle(&o, cfd, &fh,
									&eh.u.handle) == NFS3_OK;
				}
				if (cfd >= 0)
					close(cfd);
			}
			xdr_enc_bool(e, true);
			xdr_enc_u64(e, d->d_ino);
			xdr_enc_bytes(e, d->d_name, nl, NAME_MAX);
			xdr_enc_u64(e, (uint64_t)d->d_off);
			if (a->plus) {
				xdr_enc_post_op_attr(e, &ea);
				xdr_enc_post_op_fh3(e, &eh);
			}
			used += eb + pb;
			dirused += eb;
			nent++;
			pos += d->d_reclen;
		}
	}
	close(dfd);
	if (st == NFS3_OK && nent == 0 && !eof)
		st = NFS3ERR_TOOSMALL;
	if (st != NFS3_OK) {
		/* Start again: the failure result replaces what was encoded. */
		e->p = e->start + RPC_ACCEPTED_HDR_LEN;
		enum rpc_accept_stat r = dir_fail(req, st, &o);

		nfs3_release(&o);
		return r;
	}
	nfs3_release(&o);
	return xdr_enc_bool(e, false) && xdr_enc_bool(e, eof) ? RPC_SUCCESS
							       : RPC_SYSTEM_ERR;
}

enum rpc_accept_stat nfs3_readdir(struct rpc_req *req)
{
	struct READDIR3args ra;
	struct dir_args a;

	if (!xdr_dec_READDIR3args(&req->args, &ra) || xdr_dec_left(&req->args))
		return RPC_GARBAGE_ARGS;
	a.dir = &ra.dir;
	a.cookie = ra.cookie;
	a.dircount = a.maxcount = ra.count;
	a.plus = false;
	return readdir_common(req, &a);
}

enum rpc_accept_stat nfs3_readdirplus(struct rpc_req *req)
{
	struct READDIRPLUS3args ra;
	struct dir_args a;

	if (!xdr_dec_READDIRPLUS3args(&req->args, &ra) || xdr_dec_left(&req->args))
		return RPC_GARBAGE_ARGS;
	a.dir = &ra.dir;
	a.cookie = ra.cookie;
	a.dircount = ra.dircount;
	a.maxcount = ra.maxcount;
	a.plus = true;
	return readdir_common(req, &a);
}
