/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the decoders of proto/nfs3.x and proto/mount3.x
 * that take bytes from the network. The first input byte picks one of
 * the entries of codecs[] (modulo their number):
 *   0..20   NFS v3 arguments of procedures 1..21 (GETATTR..COMMIT): what
 *           the server decodes from every call;
 *   21      MOUNT v3 MNT and UMNT argument (dirpath3; the other MOUNT
 *           procedures take void);
 *   22..42  NFS v3 results of procedures 1..21: what a client decodes;
 *   43..45  MOUNT v3 results of MNT (mountres3), DUMP (mountlist3) and
 *           EXPORT (exports3);
 *   46      the head of WRITE3args that the bulk path decodes from a
 *           partly received record (src/nfs3/write_head.h): it must stay
 *           inside the input, and wherever the whole WRITE3args decodes
 *           from the same bytes, agree with it field by field and end
 *           where the data begins.
 * tests/fuzz/make-seeds.py writes seeds for every entry in this order.
 * A decode must stay inside the input and the arena; whatever decodes
 * must re-encode to exactly as many bytes as were consumed, and decoding
 * that encoding must give the same encoding again.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nfs3/write_head.h"
#include "xdr/gen/mount3.h"
#include "xdr/gen/nfs3.h"

#define ROUNDTRIP_ARENA (1u << 20)
#include "roundtrip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Arguments: the server side */
CODEC(GETATTR3args, struct GETATTR3args)
CODEC(SETATTR3args, struct SETATTR3args)
CODEC(LOOKUP3args, struct LOOKUP3args)
CODEC(ACCESS3args, struct ACCESS3args)
CODEC(READLINK3args, struct READLINK3args)
CODEC(READ3args, struct READ3args)
CODEC(WRITE3args, struct WRITE3args)
CODEC(CREATE3args, struct CREATE3args)
CODEC(MKDIR3args, struct MKDIR3args)
CODEC(SYMLINK3args, struct SYMLINK3args)
CODEC(MKNOD3args, struct MKNOD3args)
CODEC(REMOVE3args, struct REMOVE3args)
CODEC(RMDIR3args, struct RMDIR3args)
CODEC(RENAME3args, struct RENAME3args)
CODEC(LINK3args, struct LINK3args)
CODEC(READDIR3args, struct READDIR3args)
CODEC(READDIRPLUS3args, struct READDIRPLUS3args)
CODEC(FSSTAT3args, struct FSSTAT3args)
CODEC(FSINFO3args, struct FSINFO3args)
CODEC(PATHCONF3args, struct PATHCONF3args)
CODEC(COMMIT3args, struct COMMIT3args)
CODEC(dirpath3, dirpath3)

/* Results: the client side */
CODEC(GETATTR3res, struct GETATTR3res)
CODEC(SETATTR3res, struct SETATTR3res)
CODEC(LOOKUP3res, struct LOOKUP3res)
CODEC(ACCESS3res, struct ACCESS3res)
CODEC(READLINK3res, struct READLINK3res)
CODEC(READ3res, struct READ3res)
CODEC(WRITE3res, struct WRITE3res)
CODEC(CREATE3res, struct CREATE3res)
CODEC(MKDIR3res, struct MKDIR3res)
CODEC(SYMLINK3res, struct SYMLINK3res)
CODEC(MKNOD3res, struct MKNOD3res)
CODEC(REMOVE3res, struct REMOVE3res)
CODEC(RMDIR3res, struct RMDIR3res)
CODEC(RENAME3res, struct RENAME3res)
CODEC(LINK3res, struct LINK3res)
CODEC(READDIR3res, struct READDIR3res)
CODEC(READDIRPLUS3res, struct READDIRPLUS3res)
CODEC(FSSTAT3res, struct FSSTAT3res)
CODEC(FSINFO3res, struct FSINFO3res)
CODEC(PATHCONF3res, struct PATHCONF3res)
CODEC(COMMIT3res, struct COMMIT3res)
CODEC(mountres3, struct mountres3)
CODEC(mountlist3, mountlist3)
CODEC(exports3, exports3)

static size_t write_head(const uint8_t *in, size_t len, int n)
{
	struct nfs3_write_head h;
	struct WRITE3args a;
	struct xdr_arena ar;
	struct xdr_dec d;
	size_t head_end;

	memset(&h, 0, sizeof(h));
	xdr_arena_init(&ar, roundtrip_arena[n], ROUNDTRIP_ARENA);
	xdr_dec_init(&d, in, len, &ar);
	if (!nfs3_write_head_dec(&d, &h))
		return 0;
	head_end = len - xdr_dec_left(&d);
	xdr_arena_init(&ar, roundtrip_arena[n], ROUNDTRIP_ARENA);
	xdr_dec_init(&d, in, len, &ar);
	if (!xdr_dec_WRITE3args(&d, &a))
		return 0;
	if (a.file.data.len != h.file.data.len ||
	    memcmp(a.file.data.data, h.file.data.data, a.file.data.len) ||
	    a.offset != h.offset || a.count != h.count || a.stable != h.stable ||
	    a.data.len != h.len || a.data.data != in + head_end)
		abort();
	return 0; /* nothing to encode again */
}

static roundtrip_fn *const codecs[] = {
	/* 0..20: NFSPROC3_GETATTR..NFSPROC3_COMMIT arguments */
	roundtrip_GETATTR3args,	    roundtrip_SETATTR3args,
	roundtrip_LOOKUP3args,	    roundtrip_ACCESS3args,
	roundtrip_READLINK3args,    roundtrip_READ3args,
	roundtrip_WRITE3args,	    roundtrip_CREATE3args,
	roundtrip_MKDIR3args,	    roundtrip_SYMLINK3args,
	roundtrip_MKNOD3args,	    roundtrip_REMOVE3args,
	roundtrip_RMDIR3args,	    roundtrip_RENAME3args,
	roundtrip_LINK3args,	    roundtrip_READDIR3args,
	roundtrip_READDIRPLUS3args, roundtrip_FSSTAT3args,
	roundtrip_FSINFO3args,	    roundtrip_PATHCONF3args,
	roundtrip_COMMIT3args,
	/* 21: MOUNTPROC3_MNT / MOUNTPROC3_UMNT argument */
	roundtrip_dirpath3,
	/* 22..42: NFSPROC3_GETATTR..NFSPROC3_COMMIT results */
	roundtrip_GETATTR3res,	    roundtrip_SETATTR3res,
	roundtrip_LOOKUP3res,	    roundtrip_ACCESS3res,
	roundtrip_READLINK3res,	    roundtrip_READ3res,
	roundtrip_WRITE3res,	    roundtrip_CREATE3res,
	roundtrip_MKDIR3res,	    roundtrip_SYMLINK3res,
	roundtrip_MKNOD3res,	    roundtrip_REMOVE3res,
	roundtrip_RMDIR3res,	    roundtrip_RENAME3res,
	roundtrip_LINK3res,	    roundtrip_READDIR3res,
	roundtrip_READDIRPLUS3res,  roundtrip_FSSTAT3res,
	roundtrip_FSINFO3res,	    roundtrip_PATHCONF3res,
	roundtrip_COMMIT3res,
	/* 43..45: MOUNTPROC3_MNT, _DUMP, _EXPORT results */
	roundtrip_mountres3,	    roundtrip_mountlist3,
	roundtrip_exports3,
	/* 46: the bulk path's WRITE3args head */
	write_head,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return roundtrip_run(codecs, sizeof(codecs) / sizeof(codecs[0]), data,
			     size);
}
