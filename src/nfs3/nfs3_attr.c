/* SPDX-License-Identifier: MIT */
/*
 * NFSv3 procedures that read attributes or data and change nothing:
 * GETATTR, LOOKUP, ACCESS, READLINK, READ, FSSTAT, FSINFO, PATHCONF.
 * GETATTR and READ of a file an NFSv4 client holds a write delegation of
 * first recall it (nfs3_lease_break: JUKEBOX meanwhile): the holder may
 * have written data, and a size, the server has not seen. One relaxed
 * atomic load while no write delegation exists.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "nfs3/nfs3.h"
#include "nfs3/procs.h"


enum rpc_accept_stat nfs3_getattr(struct rpc_req *req)
{
	struct GETATTR3args a;
	struct GETATTR3res r = { 0 };
	struct export_obj o;

	if (!ARGS_OK(xdr_dec_GETATTR3args, &a))
		return RPC_GARBAGE_ARGS;
	/* a write delegation's recall may reap a client's state, which
	 * writes its record: not on an event loop */
	if (req->on_loop && vfs_wleases_held())
		return RPC_WOULD_BLOCK;
	r.status = nfs3_resolve(req, &a.object, &o);
	if (o.would_block)
		return RPC_WOULD_BLOCK;
	if (r.status == NFS3_OK && !o.have_st)
		r.status = NFS3ERR_IO;
	if (r.status == NFS3_OK)
		r.status = nfs3_lease_break(&o.st, VFS_BREAK_GETATTR);
	if (r.status == NFS3_OK)
		nfs3_fattr(&o, &o.st, &r.u.resok.obj_attributes);
	export_release(&o);
	return REPLY(xdr_enc_GETATTR3res, &r);
}

enum rpc_accept_stat nfs3_lookup(struct rpc_req *req)
{
	struct LOOKUP3args a;
	struct LOOKUP3res r = { 0 };
	struct nfsx_fh fh;
	struct export_obj o, to;
	struct vfs_obj c;
	int err;

	if (!ARGS_OK(xdr_dec_LOOKUP3args, &a))
		return RPC_GARBAGE_ARGS;
	r.status = nfs3_resolve_mem(req, &a.what.dir, &o);
	if (o.would_block)
		return RPC_WOULD_BLOCK;
	if (r.status != NFS3_OK)
		goto out;
	if (!S_ISDIR(o.st.st_mode)) {
		r.status = NFS3ERR_NOTDIR;
		nfs3_post_op(&o, &o.obj, &r.u.resfail.dir_attributes);
		goto out;
	}
	err = export_lookup_in(req, &o, a.what.name.data, a.what.name.len, &to, &c);
	if (err == -EWOULDBLOCK && req->on_loop) {
		export_release(&o);   /* a host name rule: again on a worker */
		return RPC_WOULD_BLOCK;
	}
	if (err < 0) {
		r.status = nfs3_errno(-err);
		nfs3_post_op(&o, &o.obj, &r.u.resfail.dir_attributes);
		goto out;
	}
	/* crossed into another export: its sec= too (knfsd's nfsd_lookup
	 * checks the export it reaches) */
	if (!export_sec_ok(req, to.client))
		r.status = NFS3ERR_ACCES;
	else
		r.status = nfs3_handle(&to, &c, &fh, &r.u.resok.object);
	if (r.status == NFS3_OK) {
		nfs3_post_op(&to, &c, &r.u.resok.obj_attributes);
		nfs3_post_op(&o, &o.obj, &r.u.resok.dir_attributes);
	} else {
		nfs3_post_op(&o, &o.obj, &r.u.resfail.dir_attributes);
	}
	to.vexp->ops->release(&c);
out:
	export_release(&o);
	return REPLY(xdr_enc_LOOKUP3res, &r);
}

/* ACCESS bits the caller has: export_access's, whose bits are NFSv3's. */
_Static_assert(ACCESS3_READ == EXPORT_ACCESS_READ && ACCESS3_LOOKUP == EXPORT_ACCESS_LOOKUP &&
	       ACCESS3_MODIFY == EXPORT_ACCESS_MODIFY && ACCESS3_EXTEND == EXPORT_ACCESS_EXTEND &&
	       ACCESS3_DELETE == EXPORT_ACCESS_DELETE &&
	       ACCESS3_EXECUTE == EXPORT_ACCESS_EXECUTE, "ACCESS3 bits");

enum rpc_accept_stat nfs3_access(struct rpc_req *req)
{
	struct ACCESS3args a;
	struct ACCESS3res r = { 0 };
	struct export_obj o;

	if (!ARGS_OK(xdr_dec_ACCESS3args, &a))
		return RPC_GARBAGE_ARGS;
	r.status = nfs3_resolve_mem(req, &a.object, &o);
	if (o.would_block)
		return RPC_WOULD_BLOCK;
	if (r.status == NFS3_OK) {
		r.u.resok.access = export_access(&o, a.access);
		nfs3_post_op(&o, &o.obj, &r.u.resok.obj_attributes);
	}
	export_release(&o);
	return REPLY(xdr_enc_ACCESS3res, &r);
}

enum rpc_accept_stat nfs3_readlink(struct rpc_req *req)
{
	struct READLINK3args a;
	struct READLINK3res r = { 0 };
	char buf[PATH_MAX];
	struct export_obj o;
	ssize_t n;

	if (!ARGS_OK(xdr_dec_READLINK3args, &a))
		return RPC_GARBAGE_ARGS;
	r.status = nfs3_resolve(req, &a.symlink, &o);
	if (r.status != NFS3_OK)
		goto out;
	if (!S_ISLNK(o.st.st_mode)) {
		r.status = NFS3ERR_INVAL;
		nfs3_post_op(&o, &o.obj, &r.u.resfail.symlink_attributes);
		goto out;
	}
	n = o.vexp->ops->readlink(o.vexp, &o.obj, buf, sizeof(buf));
	if (n < 0) {
		r.status = nfs3_errno((int)-n);
		nfs3_post_op(&o, &o.obj, &r.u.resfail.symlink_attributes);
		goto out;
	}
	r.u.resok.data.data = (const uint8_t *)buf;
	r.u.resok.data.len = (uint32_t)n;
	nfs3_post_op(&o, &o.obj, &r.u.resok.symlink_attributes);
out:
	export_release(&o);
	return REPLY(xdr_enc_READLINK3res, &r);
}

/*
 * A large READ of a memory-backed file is not copied at all by the
 * server's CPU before the socket does: the reply sends from a mapping of
 * the file (rpc_req_set_ext), so each byte is copied once, into the
 * socket, as iperf3's sender does, instead of twice. The mapping is the
 * object's node's, kept across calls (export_map_read), held with the
 * node until the reply is sent. A mapping per call cost a quarter of the
 * server's time in a 1 MiB sequential read (mmap, a fault per 16 pages,
 * mincore looking each page up, munmap); a range the kept mapping does
 * not cover (the file has grown since it was made) is read the ordinary
 * way, as is a range not wholly in memory (a hole, swapped out).
 * A truncate between here and the send makes sendmsg() fail with EFAULT
 * (no signal: the kernel takes the fault) and the rest of the data goes
 * out as zeros (rpc_req_ext_lost). The data goes out newer than, never
 * older than, the post-op attributes taken here.
 * Return values: bytes mapped, the reply encoded around them; 0 when the
 * caller reads the ordinary way (nothing encoded).
 */
static void ext_node_put(void *node, size_t len)
{
	(void)len;
	vfs_node_put(node);
}

static uint32_t read_mapped(struct rpc_req *req, struct export_obj *o, uint64_t off,
			    uint32_t count)
{
	struct post_op_attr pa_, *pa = &pa_;
	const uint8_t *data;
	uint8_t *start;
	uint64_t size;

	if (!o->vexp->mem_backed || count < NFS3_MAP_READ_MIN || !o->have_st ||
	    req->drc_keyed || off > (uint64_t)INT64_MAX || !o->node)
		return 0;
	size = (uint64_t)o->st.st_size;
	if (off >= size)
		return 0;
	if (count > size - off)
		count = (uint32_t)(size - off);
	if (count < NFS3_MAP_READ_MIN)
		return 0;
	/* status, post_op_attr, count, eof, length, padding */
	if (rpc_req_reply_reserve(req, xdr_enc_len(&req->enc) + 4 + 88 + 12 + 4) < 0)
		return 0;
	start = req->enc.p;
	data = export_map_read(o, off, count);
	if (!data)
		return 0;
	nfs3_post_op(o, &o->obj, pa);
	/* Shrunk since the resolve: send only what is still there. */
	if (pa->attributes_follow && off + count > pa->u.attributes.size) {
		if (off >= pa->u.attributes.size ||
		    pa->u.attributes.size - off < NFS3_MAP_READ_MIN)
			return 0;
		count = (uint32_t)(pa->u.attributes.size - off);
	}
	xdr_enc_u32(&req->enc, NFS3_OK);
	xdr_enc_post_op_attr(&req->enc, pa);
	xdr_enc_u32(&req->enc, count);
	xdr_enc_bool(&req->enc, pa->attributes_follow &&
		     off + count >= pa->u.attributes.size);
	xdr_enc_u32(&req->enc, count);
	vfs_node_hold(o->node);
	if (rpc_req_set_ext(req, data, count, ext_node_put, o->node, 0)) {
		vfs_node_put(o->node);
		req->enc.p = start;
		return 0;
	}
	memset(req->enc.p, 0, xdr_pad(count) - count);
	req->enc.p += xdr_pad(count) - count;
	return count;
}

/*
 * READ: large reads of memory-backed files go out from a mapping
 * (read_mapped). Otherwise the data goes straight from pread(2) into the
 * reply buffer, at the place it has in the encoded reply, so it is
 * copied once before the socket. Tried on the event loop first: a
 * memory-backed file is read there; elsewhere preadv2(RWF_NOWAIT) reads
 * what the page cache holds, and anything that would wait for the device
 * goes to a worker.
 */
enum rpc_accept_stat nfs3_read(struct rpc_req *req)
{
	struct READ3args a;
	struct READ3res r = { 0 };
	struct export_obj o;
	struct post_op_attr pa;
	struct vfs_obj io;
	uint32_t count;
	uint8_t *data;
	ssize_t n;
	int err;

	if (!ARGS_OK(xdr_dec_READ3args, &a))
		return RPC_GARBAGE_ARGS;
	/* as GETATTR: a write delegation's recall is a worker's */
	if (req->on_loop && vfs_wleases_held())
		return RPC_WOULD_BLOCK;
	/* A large READ runs on the loop only from a mapping, on a
	 * memory-backed export: others go to a worker before any syscall. */
	if (req->on_loop && a.count > NFS3_INLINE_IO_MAX)
		r.status = nfs3_resolve_mem(req, &a.file, &o);
	else
		r.status = nfs3_resolve(req, &a.file, &o);
	if (o.would_block)
		return RPC_WOULD_BLOCK;
	if (r.status != NFS3_OK)
		goto fail;
	if (!S_ISREG(o.st.st_mode)) {
		r.status = S_ISDIR(o.st.st_mode) ? NFS3ERR_ISDIR : NFS3ERR_INVAL;
		goto fail_attr;
	}
	r.status = nfs3_lease_break(&o.st, VFS_BREAK_READ);
	if (r.status != NFS3_OK)
		goto fail_attr;
	if (req->on_loop && !o.vexp->mem_backed &&
	    __atomic_load_n(&o.vexp->no_nowait_read, __ATOMIC_RELAXED))
		goto would_block;
	err = export_open_io(&o, O_RDONLY, &io);
	if (err < 0) {
		r.status = nfs3_errno(-err);
		goto fail_attr;
	}
	count = a.count < NFS3_RTMAX ? a.count : NFS3_RTMAX;
	if (read_mapped(req, &o, a.offset, count)) {
		export_release(&o);
		return RPC_SUCCESS;
	}
	/* A large READ's copy goes to a worker, so that the copies of one
	 * connection's READs run on several CPUs while its loop sends. */
	if (req->on_loop && count > NFS3_INLINE_IO_MAX)
		goto would_block;
	/* status, post_op_attr, count, eof, length: then the data */
	if (rpc_req_reply_reserve(req, xdr_enc_len(&req->enc) + 4 + 88 + 12 +
				       count + 4) < 0) {
		export_release(&o);
		return RPC_SYSTEM_ERR;
	}
	data = req->enc.p + 4 + 88 + 12;
	if (req->on_loop && !o.vexp->mem_backed) {
		n = o.vexp->ops->read(o.vexp, &io, data, count, a.offset, VFS_IO_NOWAIT);
		/* Not all in the page cache (a short count before the end
		 * of the file) or not supported: a worker reads it. */
		if (n == -EAGAIN || n == -EOPNOTSUPP ||
		    (n >= 0 && (uint32_t)n < count &&
		     a.offset + (uint64_t)n < (uint64_t)o.st.st_size))
			goto would_block;
	} else {
		n = o.vexp->ops->read(o.vexp, &io, data, count, a.offset, 0);
	}
	if (n < 0) {
		r.status = nfs3_errno((int)-n);
		goto fail_attr;
	}
	nfs3_post_op(&o, &io, &pa);
	if (!pa.attributes_follow) {
		/* Stat failed after the read: the header is 84 bytes shorter. */
		memmove(data - 84, data, (size_t)n);
		data -= 84;
	}
	xdr_enc_u32(&req->enc, NFS3_OK);
	xdr_enc_post_op_attr(&req->enc, &pa);
	xdr_enc_u32(&req->enc, (uint32_t)n);
	xdr_enc_bool(&req->enc, pa.attributes_follow ?
		     a.offset + (uint64_t)n >= pa.u.attributes.size : n == 0);
	xdr_enc_u32(&req->enc, (uint32_t)n);
	/* data is already in place */
	req->enc.p += n;
	memset(req->enc.p, 0, xdr_pad((uint32_t)n) - (size_t)n);
	req->enc.p += xdr_pad((uint32_t)n) - (size_t)n;
	export_release(&o);
	return RPC_SUCCESS;

would_block:
	export_release(&o);
	return RPC_WOULD_BLOCK;

fail_attr:
	nfs3_post_op(&o, &o.obj, &r.u.resfail.file_attributes);
fail:
	export_release(&o);
	return REPLY(xdr_enc_READ3res, &r);
}

enum rpc_accept_stat nfs3_fsstat(struct rpc_req *req)
{
	struct FSSTAT3args a;
	struct FSSTAT3res r = { 0 };
	struct export_obj o;
	struct vfs_statfs sv;
	int err;

	if (!ARGS_OK(xdr_dec_FSSTAT3args, &a))
		return RPC_GARBAGE_ARGS;
	r.status = nfs3_resolve(req, &a.fsroot, &o);
	if (r.status != NFS3_OK)
		goto out;
	err = o.vexp->ops->statfs(o.vexp, &o.obj, &sv);
	if (err < 0) {
		r.status = nfs3_errno(-err);
		nfs3_post_op(&o, &o.obj, &r.u.resfail.obj_attributes);
		goto out;
	}
	nfs3_post_op(&o, &o.obj, &r.u.resok.obj_attributes);
	r.u.resok.tbytes = sv.blocks * sv.bsize;
	r.u.resok.fbytes = sv.bfree * sv.bsize;
	r.u.resok.abytes = sv.bavail * sv.bsize;
	r.u.resok.tfiles = sv.files;
	r.u.resok.ffiles = sv.ffree;
	r.u.resok.afiles = sv.favail;
	r.u.resok.invarsec = 0;
out:
	export_release(&o);
	return REPLY(xdr_enc_FSSTAT3res, &r);
}

enum rpc_accept_stat nfs3_fsinfo(struct rpc_req *req)
{
	struct FSINFO3args a;
	struct FSINFO3res r = { 0 };
	struct export_obj o;

	if (!ARGS_OK(xdr_dec_FSINFO3args, &a))
		return RPC_GARBAGE_ARGS;
	r.status = nfs3_resolve(req, &a.fsroot, &o);
	if (r.status == NFS3_OK) {
		struct FSINFO3resok *k = &r.u.resok;

		nfs3_post_op(&o, &o.obj, &k->obj_attributes);
		k->rtmax = k->rtpref = NFS3_RTMAX;
		k->rtmult = 4096;
		k->wtmax = k->wtpref = NFS3_WTMAX;
		k->wtmult = 4096;
		k->dtpref = NFS3_DIRMAX;
		k->maxfilesize = INT64_MAX;
		k->time_delta.seconds = 0;
		k->time_delta.nseconds = 1;
		k->properties = FSF3_LINK | FSF3_SYMLINK | FSF3_HOMOGENEOUS |
				FSF3_CANSETTIME;
	}
	export_release(&o);
	return REPLY(xdr_enc_FSINFO3res, &r);
}

enum rpc_accept_stat nfs3_pathconf(struct rpc_req *req)
{
	struct PATHCONF3args a;
	struct PATHCONF3res r = { 0 };
	struct export_obj o;

	if (!ARGS_OK(xdr_dec_PATHCONF3args, &a))
		return RPC_GARBAGE_ARGS;
	r.status = nfs3_resolve(req, &a.object, &o);
	if (r.status == NFS3_OK) {
		struct vfs_statfs sv;

		nfs3_post_op(&o, &o.obj, &r.u.resok.obj_attributes);
		r.u.resok.linkmax = o.vexp->ops->statfs(o.vexp, &o.obj, &sv) == 0 &&
				    sv.link_max ? sv.link_max : 65000;
		r.u.resok.name_max = NAME_MAX;
		r.u.resok.no_trunc = true;
		r.u.resok.chown_restricted = true;
		r.u.resok.case_insensitive = false;
		r.u.resok.case_preserving = true;
	}
	export_release(&o);
	return REPLY(xdr_enc_PATHCONF3res, &r);
}
