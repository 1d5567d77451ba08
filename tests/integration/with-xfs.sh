#!/bin/bash
# SPDX-License-Identifier: MIT
# Run a test wrapper with its scratch directory (and so its exports) on
# XFS made with reflink=1, a file system that shares blocks, so that
# NFSv4.2's CLONE succeeds there: a 1 GiB sparse image mounted with
# `mount -o loop` in a private mount namespace (unshare -m), so that no
# mount outlives the run whatever ends it. NFSX_EXPORT_CLONES=1 tells the
# wrapper that its exports clone. Needs root, a loop device and mkfs.xfs
# (Debian xfsprogs); without them, a TAP skip that says which.
# Usage: with-xfs.sh WRAPPER ARGS...
wrapper=${1:?usage: with-xfs.sh WRAPPER ARGS...}
shift
skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}
[ "$(id -u)" -eq 0 ] || skip_all "not root: mounting an XFS image needs root"
[ -e /dev/loop-control ] || skip_all "no /dev/loop-control: no loop device to mount an image"
MKFS_XFS=$(command -v mkfs.xfs || echo /usr/sbin/mkfs.xfs)
[ -x "$MKFS_XFS" ] || skip_all "no mkfs.xfs (Debian xfsprogs: scripts/deps.sh test)"
if [ -z "${NFSX_XFS_NS:-}" ]; then
	unshare -m --propagation private -- true 2>/dev/null ||
		skip_all "no private mount namespace (unshare -m): the mount could outlive the run"
	NFSX_XFS_NS=1 exec unshare -m --propagation private -- bash "$0" "$wrapper" "$@"
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/nfsx-xfs.XXXXXX") || exit 1
img=$dir/xfs.img mnt=$dir/mnt
cleanup() {
	! mountpoint -q "$mnt" || umount "$mnt" 2>/dev/null || umount -l "$mnt"
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir -p "$mnt"
truncate -s 1G "$img" || skip_all "no room for a 1 GiB sparse image in $dir"
out=$("$MKFS_XFS" -q -f -m reflink=1 "$img" 2>&1) ||
	skip_all "mkfs.xfs -m reflink=1 failed: $(echo "$out" | head -1)"
out=$(mount -o loop "$img" "$mnt" 2>&1) ||
	skip_all "mount -o loop of an XFS image refused: $(echo "$out" | head -1)"
chmod 755 "$mnt"
TMPDIR=$mnt NFSX_EXPORT_CLONES=1 bash "$wrapper" "$@"
