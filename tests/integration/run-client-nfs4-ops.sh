#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the client-nfs4-ops test (libnfsx's NFSv4.1 wrappers
# of SETATTR, ACCESS, OPEN_DOWNGRADE, LOCK, LOCKT, LOCKU, RENAME, LINK,
# READLINK, LOOKUPP and the sync API over them, against nfsxd): makes a
# tree, starts nfsxd serving NFSv3 and NFSv4 on a free 127.0.0.1 port,
# runs test_client_nfs4_ops, stops nfsxd (which must exit 0 on SIGTERM
# and leave no sanitizer report).
#
# Tree (BASE = $WORK/tree), exported as rw:rw,no_root_squash,insecure:
#   rw/set.txt, rw/gone.txt, rw/down.txt, rw/lock.bin (4 KiB), rw/a.txt,
#   rw/c.txt, rw/sub/, rw/lnk -> a.txt, rw/ro.txt (root's, 0444),
#   rw/open.txt (root's, 0666)
#
# Usage: run-client-nfs4-ops.sh NFSXD TEST_CLIENT_NFS4_OPS

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-client-nfs4-ops.sh NFSXD TEST_CLIENT_NFS4_OPS}")

chmod 755 "$WORK"
BASE=$WORK/tree
mkdir -p "$BASE/rw/sub" || exit 1
printf '0123456789' >"$BASE/rw/set.txt"
: >"$BASE/rw/gone.txt"
printf 'xxxxxxxx' >"$BASE/rw/down.txt"
head -c 4096 /dev/zero >"$BASE/rw/lock.bin"
printf 'a\n' >"$BASE/rw/a.txt"
printf 'c\n' >"$BASE/rw/c.txt"
ln -s a.txt "$BASE/rw/lnk"
printf 'read only\n' >"$BASE/rw/ro.txt"
printf 'open\n' >"$BASE/rw/open.txt"
chmod 444 "$BASE/rw/ro.txt"
chmod 666 "$BASE/rw/open.txt"
chmod 755 "$BASE" "$BASE/rw" "$BASE/rw/sub"

pick_port P || { echo "Bail out! no free port"; exit 1; }
serve nfs4ops "$P" --nfs-vers 3,4 --log-level warn \
	--export "$BASE/rw:rw,no_root_squash,insecure"
PID=$SERVER_PID

"$TEST" "$P" "$BASE"
finish $? "nfs4ops:$PID"
