/* SPDX-License-Identifier: MIT */
/*
 * The NFSv4 pseudo file system (RFC 7530 section 7.3, RFC 8881 section
 * 7.3): one name space from PUTROOTFH to every export, as Linux's mountd
 * builds it for knfsd.
 *
 * DESIGN
 * - An export with fsid=0 (fsid=root) is the root itself: PUTROOTFH
 *   gives its root, every path is below it, and there are no pseudo
 *   directories (exports outside it are not reachable over NFSv4, as
 *   with knfsd; export_pseudo_build says which).
 * - Otherwise the root is "/" and the pseudo directories are the
 *   directories on the way from "/" to each export: read-only, holding
 *   only the next step towards an export. An export below another
 *   export is reached through the outer one's file system (crossing
 *   its mount point, crossing.c), not through a pseudo directory. An
 *   export of "/" is the root.
 * - A pseudo directory has a handle of its own: the kernel handle type
 *   FH_PSEUDO_TYPE (255, FILEID_INVALID, which no file system gives)
 *   and a 64-bit id hashed from its path, so the handle is the same
 *   after a restart or a reload that keeps the directory, and stale
 *   (ENOENT) after one that does not.
 * - A pseudo directory allows every flavour that some export allows
 *   (exports_sec_union), so the client of any export can walk to it
 *   with the flavour it mounts with. mountd's pseudo root for knfsd
 *   allows every flavour the server knows; this is that, narrowed to
 *   the flavours some export serves (with only sec=sys exports,
 *   AUTH_NONE reaches nothing). SECINFO lists them in that order.
 * - Built once per exports snapshot, read-only after: no lock.
 */
#ifndef NFSX_EXPORT_PSEUDO_H
#define NFSX_EXPORT_PSEUDO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "export/exports.h"
#include "vfs/fh.h"

#define FH_PSEUDO_TYPE 255
#define PSEUDO_NONE UINT32_MAX

struct export_pseudo_node {
	char *name;             /* the last component; "" for the root */
	char *path;             /* absolute, normalised */
	uint64_t id;            /* its handle's: a hash of path */
	uint32_t parent;        /* the root is its own parent */
	uint32_t child, next;   /* first child, next sibling, or PSEUDO_NONE */
	/* The export attached here (a leaf), or NULL: a pseudo directory. */
	const struct nfsx_export *exp;
};

struct export_pseudo {
	/* fsid=0: the root is this export, and nodes is empty. */
	const struct nfsx_export *root_exp;
	struct export_pseudo_node *nodes;   /* [0] is the root */
	uint32_t n;
	/* Exports no NFSv4 path reaches (outside the fsid=0 export). */
	uint32_t unreachable;
	/* The flavours pseudo directories allow (exports_sec_union). */
	uint32_t sec[EXPORTS_MAX_SEC];
	unsigned int nsec;
};

/*
 * export_pseudo_build - the pseudo file system of @set into @p.
 * Return values: 0, or -ENOMEM (@p then empty).
 */
int export_pseudo_build(const struct nfsx_exports *set, struct export_pseudo *p);
void export_pseudo_free(struct export_pseudo *p);

/* The child @name (@len bytes) of node @dir, or PSEUDO_NONE. */
uint32_t export_pseudo_lookup(const struct export_pseudo *p, uint32_t dir, const char *name,
			      size_t len);

/* The node export @e is attached at, or PSEUDO_NONE (the fsid=0 root, a
 * nested export). */
uint32_t export_pseudo_node_of(const struct export_pseudo *p, const struct nfsx_export *e);

/* The node of handle id @id, or PSEUDO_NONE. */
uint32_t export_pseudo_by_id(const struct export_pseudo *p, uint64_t id);

/*
 * Does some export at or below node @i let the client in (@admits says
 * of one export)? A client sees only the way to what it may mount, as
 * with knfsd.
 */
bool export_pseudo_visible(const struct export_pseudo *p, uint32_t i,
			   bool (*admits)(const struct nfsx_export *e, void *arg), void *arg);

/* The handle of node @i, sealed with @key. Return values: 0 or -1. */
int export_pseudo_handle(const uint8_t key[FH_KEY_LEN], const struct export_pseudo *p,
			 uint32_t i, struct nfsx_fh *fh);

/* Is @parts a pseudo directory's handle? Its id into *@id. */
bool export_pseudo_parts(const struct fh_parts *parts, uint64_t *id);

#endif
