/* SPDX-License-Identifier: MIT */
/* Handle resolution: see export.h. */
#include "export/export.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int resolve(struct rpc_req *req, const uint8_t *fh, uint32_t len,
		   struct export_obj *o, bool mem_only)
{
	const struct export_snap *x;
	bool implicit = false;
	struct fh_parts p;
	int st;
	int r;

	memset(o, 0, sizeof(*o));
	o->obj = VFS_OBJ_NONE;
	if (!fh_decode(export_fh_key, fh, len, &p))
		return fh_old_version(fh, len) ? -ESTALE : -EBADHANDLE;
	/* Held from here while o->node is, until export_release(). */
	x = export_snap_get();
	o->snap = x;
	o->exp = exports_find_id(x->set, p.export_id);
	if (o->exp) {
		o->vexp = export_root_of(x, o->exp);
	} else {
		/* A file system mounted under a crossmnt export. */
		const struct export_crossing *c = export_crossing_by_id(x, p.export_id);

		if (!c) {
			st = -ESTALE;
			goto fail;
		}
		o->exp = c->exp;
		o->vexp = c->root;
		implicit = true;
	}
	/* A host-name rule may need a DNS lookup, and @mem_only calls only
	 * run on a loop for a memory-backed export: else to a worker, before
	 * any system call is spent here. */
	if (req->on_loop && (exports_match_needs_name(o->exp, req->peer) ||
			     (mem_only && !o->vexp->mem_backed))) {
		o->would_block = true;
		st = -EWOULDBLOCK;
		goto fail;
	}
	o->client = export_match(req, o->exp);
	if (!o->client) {
		st = -EACCES;
		goto fail;
	}
	/* Only a client that may cross into it has it (nfsd: no implicit
	 * export without crossmnt). */
	if (implicit && !o->client->opts.crossmnt) {
		st = -ESTALE;
		goto fail;
	}
	if (!exports_port_ok(o->client, req->peer)) {
		st = -EPERM;
		goto fail;
	}
	r = vfs_node_get(o->vexp, &p, false, &o->node);
	if (r == -EWOULDBLOCK) {
		/* A miss may read an inode from disk: not on a loop. */
		if (req->on_loop) {
			o->would_block = true;
			st = -EWOULDBLOCK;
			goto fail;
		}
		if (vfs_become(NULL) < 0) {
			st = -EFAULT;
			goto fail;
		}
		r = vfs_node_get(o->vexp, &p, true, &o->node);
	}
	if (r < 0) {
		st = r;
		goto fail;
	}
	o->obj.fd = vfs_node_fd(o->node);
	export_cred(req, o->client, &o->cred);
	if (vfs_become(&o->cred) < 0) {
		export_release(o);
		return -EFAULT;
	}
	if (o->vexp->ops->getattr(o->vexp, &o->obj, &o->st) == 0) {
		o->have_st = true;
		/* Removed since it was cached: as gone as a failed open,
		 * unless an NFSv4 open holds it (knfsd's nfsd_file does). */
		if (o->st.st_nlink == 0 && !vfs_node_pinned(o->node)) {
			o->have_st = false;
			vfs_node_forget(o->node);
			export_release(o);
			return -ESTALE;
		}
	}
	return 0;
fail:
	export_snap_put(x);
	o->exp = NULL;
	o->client = NULL;
	o->vexp = NULL;
	o->snap = NULL;
	return st;
}

int export_resolve(struct rpc_req *req, const uint8_t *fh, uint32_t len, bool mem_only,
		   struct export_obj *o)
{
	return resolve(req, fh, len, o, mem_only);
}

void export_release(struct export_obj *o)
{
	if (o->node) {
		vfs_node_put(o->node);
		if (o->detached)
			export_snap_release((struct export_snap *)o->snap);
		else
			export_snap_put(o->snap);
	}
	o->node = NULL;
	o->obj = VFS_OBJ_NONE;
	o->detached = false;
}

int export_open_io(struct export_obj *o, int acc, struct vfs_obj *io)
{
	int fd = vfs_node_io_fd(o->node, acc), err;

	if (fd < 0) {
		/* Opened once as root, shared by every caller: the
		 * permission check below is per call. */
		if (vfs_become(NULL) < 0)
			return -EPERM;
		fd = vfs_node_open_io(o->node, acc);
		if (vfs_become(&o->cred) < 0)
			return -EPERM;   /* never go on as root */
		if (fd < 0)
			return fd;
	}
	/* uid 0 not squashed has CAP_DAC_OVERRIDE: nothing to check. */
	if (o->cred.uid != 0 &&
	    (err = o->vexp->ops->access(o->vexp, &o->obj,
					(acc & O_ACCMODE) == O_RDONLY ? R_OK : W_OK)) < 0 &&
	    (err != -EACCES || !o->have_st || o->st.st_uid != o->cred.uid))
		return err;
	io->fd = fd;
	return 0;
}

uint32_t export_access(const struct export_obj *o, uint32_t want)
{
	bool dir = S_ISDIR(o->st.st_mode);
	uint32_t got = 0;

#define CAN(mode) (o->vexp->ops->access(o->vexp, &o->obj, (mode)) == 0)
	if ((want & EXPORT_ACCESS_READ) && CAN(R_OK))
		got |= EXPORT_ACCESS_READ;
	if ((want & EXPORT_ACCESS_LOOKUP) && dir && CAN(X_OK))
		got |= EXPORT_ACCESS_LOOKUP;
	if ((want & EXPORT_ACCESS_EXECUTE) && !dir && CAN(X_OK))
		got |= EXPORT_ACCESS_EXECUTE;
	if (o->client->opts.rw &&
	    (want & (EXPORT_ACCESS_MODIFY | EXPORT_ACCESS_EXTEND | EXPORT_ACCESS_DELETE)) &&
	    CAN(W_OK)) {
		got |= want & (EXPORT_ACCESS_MODIFY | EXPORT_ACCESS_EXTEND);
		if (dir)
			got |= want & EXPORT_ACCESS_DELETE;
	}
#undef CAN
	return got;
}

uint8_t *export_node_map(struct export_obj *o, int acc, uint64_t end, size_t *len)
{
	/* Made with the caller's identity (and shared with every later
	 * caller, whose own permission export_open_io checks): a caller who
	 * may not open the file for it gets no mapping, and the ordinary
	 * path. */
	return o->node ? vfs_node_map(o->node, acc, end, len) : NULL;
}


const uint8_t *export_map_read(struct export_obj *o, uint64_t off, size_t len)
{
	size_t mlen;
	uint8_t *base = export_node_map(o, O_RDONLY, off + len, &mlen);

	if (!base || off + len > mlen || !vfs_map_resident(base + off, len))
		return NULL;
	return base + off;
}

/*
 * Received into a mapping of the file instead of spliced: the data of a
 * WRITE within the file's size. Each page written through write(2) or
 * splice costs a page-cache lookup and a page lock and unlock; through a
 * mapping kept by the node, only the copy (measured on tmpfs: 4.7 GiB/s
 * by pwrite, 9.6 by a kept mapping). MADV_POPULATE_WRITE maps the range's
 * pages in one call, once per page of the mapping (5.5 GiB/s where none
 * was mapped yet; faults one by one: 2.3). Only memory-backed exports come
 * here (the protocols' bulk_begin), where a fault never waits for a device.
 * What write(2) does to the inode besides the copy (set-id bits and
 * security.capability stripped, mtime and ctime set) must still happen,
 * before the data lands and after it: the mapping is used only after
 * the data that came with the header was written with pwrite as the
 * caller, and the last byte of the data is left to the splice path
 * (rpc_bulk.dst stops one byte short), a real write at its real offset.
 */
uint8_t *export_map_write(struct export_obj *o, uint64_t off, uint32_t len)
{
	uint8_t *base;
	size_t maplen;

	if (!o->node || !o->have_st || len < 2 || off + len > (uint64_t)o->st.st_size)
		return NULL;
	base = export_node_map(o, O_WRONLY, off + len, &maplen);
	if (!base || vfs_node_map_populate(o->node, off, len) < 0)
		return NULL; /* EFAULT: truncated meanwhile */
	return base + off;
}

void export_bulk_head(struct export_obj *o, const struct vfs_obj *io, const uint8_t *p,
		      uint32_t len, uint64_t off, struct rpc_bulk *b)
{
	while (b->done < len) {
		ssize_t n = o->vexp->ops->write(o->vexp, io, p + b->done, len - b->done,
						off + b->done);

		if (n == -EINTR)
			continue;
		if (n <= 0) {
			b->err = n < 0 ? (int)-n : ENOSPC;
			break;
		}
		b->done += (uint32_t)n;
	}
	b->off = off + b->done;
	/* the mapping only after a write as the caller (export_map_write) */
	if (!b->err && b->done > 0)
		b->dst = export_map_write(o, b->off, b->left);
}

void export_obj_dup(struct export_obj *dst, const struct export_obj *src)
{
	*dst = *src;
	if (src->node) {
		vfs_node_hold(src->node);
		(void)export_snap_get();   /* the thread's: nested holds share it */
	}
}

int export_resolve_root(struct rpc_req *req, const struct nfsx_export *e, struct export_obj *o)
{
	const struct export_snap *x = export_snap_get();
	struct vfs_export *v = export_root_of(x, e);
	struct vfs_obj root;
	struct nfsx_fh fh;
	int r;

	memset(o, 0, sizeof(*o));
	o->obj = VFS_OBJ_NONE;
	r = v->ops->root(v, &root);
	if (r == 0) {
		r = v->ops->handle(export_fh_key, v, &root, &fh);
		v->ops->release(&root);
	}
	if (r == 0)
		r = export_resolve(req, fh.data, fh.len, false, o);
	export_snap_put(x);
	return r;
}

int export_pseudo_resolve(const struct export_snap *x, const uint8_t *fh, uint32_t len,
			  uint32_t *node)
{
	struct fh_parts p;
	uint64_t id;

	/* Another type than a pseudo directory's: the handle's tag (the
	 * dearest step of resolving it) is export_resolve()'s to check,
	 * once. */
	if (len >= FH_HDR_LEN && fh[1] != FH_PSEUDO_TYPE)
		return 0;
	if (!fh_decode(export_fh_key, fh, len, &p))
		return fh_old_version(fh, len) ? -ESTALE : -EBADHANDLE;
	if (!export_pseudo_parts(&p, &id))
		return 0;
	*node = export_pseudo_by_id(&x->pseudo, id);
	return *node == PSEUDO_NONE ? -ESTALE : 1;
}

uint32_t export_req_flavor(const struct rpc_req *req)
{
	return req->call.cred.flavor;
}

bool export_sec_ok(const struct rpc_req *req, const struct nfsx_export_client *c)
{
	return c && exports_sec_allows(c, export_req_flavor(req));
}

bool export_pseudo_sec_ok(const struct export_snap *x, const struct rpc_req *req)
{
	uint32_t f = export_req_flavor(req);
	unsigned int i;

	for (i = 0; i < x->pseudo.nsec; i++)
		if (x->pseudo.sec[i] == f)
			return true;
	return false;
}
