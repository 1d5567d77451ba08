#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the nfs3-confine test: exports with mount points
# inside them (a bind mount of a directory outside the export on the same
# file system, a tmpfs), an export whose root is a bind mount, and
# directories moved out of an export while a client holds their handles.
# Builds the tree in the scratch directory, mounts what it needs (and
# unmounts it at the end), starts nfsxd on a free 127.0.0.1 port with
# --no-rpcbind, runs test_nfs3_confine PORT BASE (its TAP output is this
# test's output) and stops the server. Needs root and the right to mount:
# otherwise the whole test is a skip.
#
# Tree (BASE = $WORK/tree):
#   outside/secret, outside/inner/deep       never reachable over NFS
#   x/          --export x:rw,no_root_squash (no crossmnt)
#     sub/covered    sub is covered by a bind mount of outside/
#     tm/covered     tm is covered by a tmpfs holding t
#     d/child/f      moved to moved/ by the test
#   real/rd/child    real/ is bind-mounted on bx/
#   bx/         --export bx:rw,no_root_squash (its root is a bind mount)
#   moved/           where the test moves directories out of the exports
#   tx/         --export tx:rw (a tmpfs: umount must find it busy)
#   outside2/secret2                         bind-mounted on xc/sub
#   xc/         --export xc:rw,no_root_squash,crossmnt
#     tm/        a tmpfs holding t and nest/, where another tmpfs (n) is
#     sub/       the bind mount of outside2/
#   xn/         --export xn:rw,no_root_squash (no crossmnt)
#     child/     a tmpfs holding c, --export xn/child:rw,no_root_squash,nohide
#     hid/       a tmpfs holding h, --export xn/hid:rw,no_root_squash (hide)
#
# Usage: run-nfs3-confine.sh NFSXD TEST_NFS3_CONFINE

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-nfs3-confine.sh NFSXD TEST_NFS3_CONFINE}")

if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP needs root (bind mounts, tmpfs)"
	exit 0
fi

chmod 755 "$WORK"
BASE=$WORK/tree
mkdir -p "$BASE/outside/inner" "$BASE/x/sub" "$BASE/x/tm" "$BASE/x/d/child" \
	"$BASE/real/rd/child" "$BASE/bx" "$BASE/moved" "$BASE/tx" \
	"$BASE/outside2" "$BASE/xc/tm" "$BASE/xc/sub" "$BASE/xn/child" "$BASE/xn/hid" || exit 1
echo secret2 >"$BASE/outside2/secret2"
echo secret >"$BASE/outside/secret"
echo deep >"$BASE/outside/inner/deep"
echo covered >"$BASE/x/sub/covered"
echo covered >"$BASE/x/tm/covered"
echo f >"$BASE/x/d/child/f"

# mnt ARGS... DIR: mount, and unmount DIR when the test ends.
mnt() {
	local dir=${*: -1}
	if ! mount "$@" 2>"$WORK/mount.err"; then
		echo "1..0 # SKIP cannot mount here: $(cat "$WORK/mount.err")"
		exit 0
	fi
	at_cleanup "umount -l '$dir'"
}
mnt --bind "$BASE/outside" "$BASE/x/sub"
mnt -t tmpfs -o size=1m tmpfs "$BASE/x/tm"
echo t >"$BASE/x/tm/t"
mnt --bind "$BASE/real" "$BASE/bx"
mnt -t tmpfs -o size=1m tmpfs "$BASE/tx"
mnt -t tmpfs -o size=1m tmpfs "$BASE/xc/tm"
echo t >"$BASE/xc/tm/t"
mkdir "$BASE/xc/tm/nest"
mnt -t tmpfs -o size=1m tmpfs "$BASE/xc/tm/nest"
echo n >"$BASE/xc/tm/nest/n"
mnt --bind "$BASE/outside2" "$BASE/xc/sub"
mnt -t tmpfs -o size=1m tmpfs "$BASE/xn/child"
echo c >"$BASE/xn/child/c"
mnt -t tmpfs -o size=1m tmpfs "$BASE/xn/hid"
echo h >"$BASE/xn/hid/h"

pick_port P || { echo "Bail out! no free port"; exit 1; }
serve confine "$P" --log-level warn \
	--export "$BASE/x:rw,no_root_squash" \
	--export "$BASE/bx:rw,no_root_squash" \
	--export "$BASE/tx:rw" \
	--export "$BASE/xc:rw,no_root_squash,crossmnt" \
	--export "$BASE/xn:rw,no_root_squash" \
	--export "$BASE/xn/child:rw,no_root_squash,nohide" \
	--export "$BASE/xn/hid:rw,no_root_squash"

"$TEST" "$P" "$BASE"
finish $? "confine:$PID"
