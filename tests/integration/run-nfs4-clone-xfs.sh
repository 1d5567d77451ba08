#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the nfs4-clone-xfs test: NFSv4.2's CLONE succeeding.
# tmpfs and ext4 share no blocks (CLONE answers NOTSUPP there, which
# nfs4-v42xc checks), so this test makes a file system that does: an XFS
# image in the scratch directory ($WORK), made with reflink=1 (stated,
# though Debian 12's mkfs.xfs makes it so by default), mounted with
# `mount -o loop`. nfsxd exports it and a tmpfs directory beside it (for
# XDEV), rw,no_root_squash, on a free 127.0.0.1 port; test_nfs4_clone
# PORT XFS_DIR TMPFS_DIR makes its files there and runs the checks (raw
# COMPOUNDs and libnfsx), then nfsxd must be alive, exit 0 on SIGTERM
# and have logged no sanitizer report.
#
# Mounting needs root and a loop device: without them (or without
# mkfs.xfs, Debian xfsprogs, or when the mount is refused) the test is a
# TAP skip that says which. The mount is made in a private mount
# namespace (unshare -m) where one can be made, so that it goes with the
# namespace whatever ends the test, even SIGKILL; and in any case the
# cleanup trap unmounts it (lazily if it is busy) before $WORK, the image
# with it, is removed, on every exit path.
#
# Usage: run-nfs4-clone-xfs.sh NFSXD TEST_NFS4_CLONE

skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

[ "$(id -u)" -eq 0 ] || skip_all "not root: mounting an XFS image needs root"
[ -e /dev/loop-control ] || skip_all "no /dev/loop-control: no loop device to mount an image"
MKFS_XFS=$(command -v mkfs.xfs || echo /usr/sbin/mkfs.xfs)
[ -x "$MKFS_XFS" ] || skip_all "no mkfs.xfs (Debian xfsprogs: scripts/deps.sh test)"
if [ -z "${NFSX_CLONE_NS:-}" ] && command -v unshare >/dev/null &&
	unshare -m --propagation private -- true 2>/dev/null; then
	NFSX_CLONE_NS=1 exec unshare -m --propagation private -- bash "$0" "$@"
fi

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-nfs4-clone-xfs.sh NFSXD TEST_NFS4_CLONE}")

# registered first, read at cleanup: a signal during mktemp is handled
# after the assignment, so the directory is never missed
SHM=
# shellcheck disable=SC2016 # expanded when the cleanup runs
at_cleanup '[ -z "$SHM" ] || rm -rf "$SHM"'
if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" != tmpfs ] ||
	! SHM=$(mktemp -d /dev/shm/nfsx-clone.XXXXXX 2>/dev/null); then
	skip_all "no writable tmpfs at /dev/shm (the second file system, for XDEV)"
fi
chmod 755 "$WORK" "$SHM"

IMG=$WORK/xfs.img
MNT=$WORK/xfs
mkdir -p "$MNT" || exit 1
# before the mount, so that no exit path after it can miss the umount
at_cleanup "! mountpoint -q '$MNT' || umount '$MNT' 2>/dev/null || umount -l '$MNT'"
truncate -s 400M "$IMG" || skip_all "no room for a 400 MiB sparse image in $WORK"
out=$("$MKFS_XFS" -q -f -m reflink=1 "$IMG" 2>&1) ||
	skip_all "mkfs.xfs -m reflink=1 failed: $(echo "$out" | head -1)"
out=$(mount -o loop "$IMG" "$MNT" 2>&1) ||
	skip_all "mount -o loop of an XFS image refused: $(echo "$out" | head -1)"
chmod 755 "$MNT"

pick_port P || { echo "Bail out! no free port"; exit 1; }
serve clone "$P" --nfs-vers 4 --export "$MNT:rw,no_root_squash,insecure" \
	--export "$SHM:rw,no_root_squash,insecure"
"$TEST" "$P" "$MNT" "$SHM" >"$WORK/out"
rc=$?
grep -v '^1\.\.' "$WORK/out"
TAP_N=$(grep -cE '^(not )?ok ' "$WORK/out")
TAP_FAILED=$(grep -cE '^not ok ' "$WORK/out")

tap_ok "$(alive "$PID"; echo $?)" "nfsxd alive after the test"
stop_nfsxd "$PID" "$STOP_TMO"
tap_ok "$([ "$STOP_STATUS" -eq 0 ]; echo $?)" "nfsxd exits 0 on SIGTERM"
tap_ok "$(logs_clean; echo $?)" "no sanitizer report in the nfsxd log"
if [ "$rc" -ne 0 ] || [ "$TAP_FAILED" -gt 0 ]; then
	show_log clone
fi
[ "$rc" -eq 0 ] || TAP_FAILED=$((TAP_FAILED + 1))
tap_done
