#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the nfs4-clone-xfs test: NFSv4.2's CLONE succeeding.
# tmpfs and ext4 share no blocks (CLONE answers NOTSUPP there, which
# nfs4-v42xc checks), so this test runs under with-xfs.sh, which puts the
# scratch directory ($WORK) on an XFS image made with reflink=1 and says
# so with NFSX_EXPORT_CLONES=1 (without root, a loop device or mkfs.xfs
# with-xfs.sh is a TAP skip that says which). nfsxd exports a directory
# there and a tmpfs directory beside it (for XDEV), rw,no_root_squash, on
# a free 127.0.0.1 port; test_nfs4_clone PORT XFS_DIR TMPFS_DIR makes its
# files there and runs the checks (raw COMPOUNDs and libnfsx), then nfsxd
# must be alive, exit 0 on SIGTERM and have logged no sanitizer report.
#
# Usage: with-xfs.sh run-nfs4-clone-xfs.sh NFSXD TEST_NFS4_CLONE

skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

[ "${NFSX_EXPORT_CLONES:-0}" = 1 ] ||
	skip_all "not on a file system that clones (run under with-xfs.sh)"

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
XFS=$WORK/xfs
mkdir -p "$XFS" || exit 1
[ "$(stat -f -c %T "$XFS")" = xfs ] || { echo "Bail out! $XFS is not on XFS"; exit 1; }
chmod 755 "$WORK" "$SHM" "$XFS"

pick_port P || { echo "Bail out! no free port"; exit 1; }
serve clone "$P" --nfs-vers 4 --export "$XFS:rw,no_root_squash,insecure" \
	--export "$SHM:rw,no_root_squash,insecure"
"$TEST" "$P" "$XFS" "$SHM" >"$WORK/out"
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
