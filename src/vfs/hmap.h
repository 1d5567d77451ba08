/* SPDX-License-Identifier: MIT */
/*
 * Handle map: how an unprivileged nfsxd finds the object a handle names.
 *
 * DESIGN
 * - open_by_handle_at(2) needs CAP_DAC_READ_SEARCH. Without it, the
 *   server still makes handles with name_to_handle_at(2) (which needs no
 *   privilege), and remembers for each one the path, relative to its
 *   export, where it met the object. Resolving opens that path beneath
 *   the export root with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS),
 *   so a path that has become a symlink cannot lead outside, and checks
 *   that the object found still has the handle's kernel handle, so a path
 *   reused by another object answers STALE, never the wrong file.
 * - Stable across restarts: every new or changed entry is appended to
 *   STATE_DIR/handles.map (one line: export id, handle type, handle and
 *   path in hex) as it is made; the file is replayed and compacted at
 *   start. An entry written just before a machine crash may be lost (not
 *   synced): its handle then answers STALE, as after a server whose file
 *   system lost the file.
 * - RENAME through NFS moves the entries under the old path; a rename by
 *   another process on the server makes the moved objects' handles STALE
 *   until a client looks them up again (the known limit of path-based
 *   handles, shared by every user-space server without handle support).
 * - Memory: one entry per object a client was ever given a handle for
 *   (about 100 bytes plus the path); no eviction.
 */
#ifndef NFSX_VFS_HMAP_H
#define NFSX_VFS_HMAP_H

#include <stddef.h>
#include <stdint.h>

/* Load (and compact) STATE_DIR/handles.map. Return values: 0, or -1 with @err. */
int vfs_hmap_open(const char *state_dir, char *err, size_t errlen);
void vfs_hmap_close(void);

/* Remember that the kernel handle (@type, @h, @len) of export @id is at @path. */
int vfs_hmap_put(uint32_t id, int type, const uint8_t *h, uint32_t len, const char *path);

/*
 * The path of a handle, copied into @path.
 * Return values: 0, -ENOENT (never seen), -ENAMETOOLONG (@cap too small).
 */
int vfs_hmap_get(uint32_t id, int type, const uint8_t *h, uint32_t len, char *path,
		 size_t cap);

/* @from (a path of export @id) was renamed to @to: so were the entries under it. */
void vfs_hmap_rename(uint32_t id, const char *from, const char *to);

/* Entries in the map (tests). */
size_t vfs_hmap_count(void);

#endif
