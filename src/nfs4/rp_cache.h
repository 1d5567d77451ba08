/* SPDX-License-Identifier: MIT */
/*
 * READ_PLUS's hole map remembered per file while the file does not
 * change: the data and hole extents earlier seeks found, answering
 * rp_map's seeks where they cover the offset (a seek callback wrapping
 * the real one, so rp_map stays pure and its map is the same as without
 * the cache: only the system calls are fewer).
 *
 * DESIGN
 * - Where: a table of its own in src/nfs4, keyed by the file's identity
 *   (st_dev, st_ino, as vfs/lease.h names files), not the vfs node. The
 *   map is READ_PLUS's alone (NFSv3 and the rest of vfs have no use for
 *   it); a node's fields live under its shard's lock and its lifetime is
 *   the open-file cache's, whose capacity follows RLIMIT_NOFILE (tens of
 *   thousands of nodes), while this table has a fixed size of its own:
 *   NFS4_RP_CACHE_FILES files of NFS4_RP_CACHE_EXTENTS extents each
 *   (24 bytes an extent: about 400 KiB in all, allocated once). A file
 *   past the bound takes the least recently used entry of its set; a
 *   file with more extents keeps the first found and learns no more (its
 *   other seeks made as without the cache: each costs the cache a binary
 *   search of its extents).
 * - Valid only for the file as it was: an entry records the file's size,
 *   st_blocks, ctime and this server's change count of the file
 *   (vfs_change_seq: every change nfsxd makes, by any protocol, ends
 *   there), and is used only when all four are what the READ_PLUS's
 *   stat (the COMPOUND's PUTFH's, or one made after a change in it) and
 *   the count say now. A change by another process changes ctime (and a
 *   write into a hole st_blocks at once, even while a long write is still
 *   allocating, its ctime set at its start); ctime's granularity is a
 *   clock tick, so a map is only trusted (used or kept) once the file's
 *   ctime is NFS4_RP_CACHE_SETTLE_NS old and no change of it by nfsxd is
 *   in flight: a change made after the map was found then has a later
 *   ctime. A change by another process between the stat and the seeks is
 *   the same race READ has (the data read is then as new as the read).
 * - Copy in, copy out: a READ_PLUS copies its file's entry (1.5 KiB)
 *   under the set's mutex, seeks without any lock, and writes back what
 *   it learnt; two READ_PLUSes of a file at once each keep their own
 *   answers, the later one's written back.
 * - Contradictions (answers that cannot both be true of one file: it
 *   changed during the seeks) stop the cache for the call: the real seeks
 *   answer, nothing is kept.
 */
#ifndef NFSX_NFS4_RP_CACHE_H
#define NFSX_NFS4_RP_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "nfs4/rp_map.h"

/* Extents remembered per file: a file of 1 MiB data/hole stripes is
 * known whole up to 32 MiB. */
#define NFS4_RP_CACHE_EXTENTS 64u
/* Files remembered: 64 sets of 4. */
#define NFS4_RP_CACHE_SETS 64u
#define NFS4_RP_CACHE_WAYS 4u
#define NFS4_RP_CACHE_FILES (NFS4_RP_CACHE_SETS * NFS4_RP_CACHE_WAYS)
/* How old a file's ctime must be for its map to be trusted. */
#define NFS4_RP_CACHE_SETTLE_NS 1000000000ll

/* The file as a map of it is valid for. */
struct nfs4_rp_ver {
	uint64_t dev, ino;
	uint64_t size, blocks;
	int64_t ctime_ns;
	uint32_t seq;            /* vfs_change_seq's count */
};

/* One extent: [off, end) all data or all hole, and at @end the other
 * kind starts (or the file ends). */
struct nfs4_rp_ext {
	uint64_t off, end;
	bool hole;
};

/* A READ_PLUS's copy of its file's map, and the seek it wraps. */
struct nfs4_rp_known {
	struct nfs4_rp_ver ver;
	bool use;                /* answering and learning (else the real seeks) */
	bool learnt;             /* something new, to write back */
	unsigned int n;
	struct nfs4_rp_ext ext[NFS4_RP_CACHE_EXTENTS];
	nfs4_rp_seek_fn *seek;
	void *ctx;
	unsigned int seeks;      /* real seeks made */
	unsigned int answered;   /* seeks answered from the map */
};

/*
 * nfs4_rp_cache_begin - set @k up for a map from @off of the file @v,
 * whose seeks @seek makes: its remembered map copied in when @trusted (no
 * change by nfsxd in flight, ctime NFS4_RP_CACHE_SETTLE_NS old) and
 * recorded for exactly @v; else none, and when !@trusted nothing is
 * answered or learnt. Nor when the map is full and ends before @off: it
 * can neither answer nor learn (a sequential reader past the extents a
 * file of fine stripes keeps: its seeks cost what they did without it).
 */
void nfs4_rp_cache_begin(struct nfs4_rp_known *k, const struct nfs4_rp_ver *v, bool trusted,
			 uint64_t off, nfs4_rp_seek_fn *seek, void *ctx);

/*
 * nfs4_rp_cache_seek - an nfs4_rp_seek_fn over a struct nfs4_rp_known
 * (@ctx): answers from the known extents where they say, else calls the
 * real seek and learns from its answer.
 */
int nfs4_rp_cache_seek(void *ctx, uint64_t off, bool data, uint64_t *out);

/*
 * nfs4_rp_cache_hole - does the map remembered for exactly @v say that
 * [@off, @end) is all hole (or past the end of the file)? A question
 * only, for a READ_PLUS that may then run where no seek or read may
 * wait: the map is not copied, nothing is learnt. The caller knows @v
 * trusted (as for nfs4_rp_cache_begin).
 */
bool nfs4_rp_cache_hole(const struct nfs4_rp_ver *v, uint64_t off, uint64_t end);

/* nfs4_rp_cache_end - keep what @k learnt for its file (nothing when it
 * learnt nothing or was not used). */
void nfs4_rp_cache_end(struct nfs4_rp_known *k);

/* Forget every file (tests). */
void nfs4_rp_cache_clear(void);

/* Seeks made and answered from the map since the start (for the exit log). */
void nfs4_rp_cache_counts(uint64_t *seeks, uint64_t *answered);

/* Is @ctime_ns old enough at @now_ns (both CLOCK_REALTIME) for a map? */
static inline bool nfs4_rp_cache_settled(int64_t ctime_ns, int64_t now_ns)
{
	return ctime_ns <= now_ns - NFS4_RP_CACHE_SETTLE_NS;
}

#endif
