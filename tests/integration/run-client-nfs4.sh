#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the client-nfs4 test (libnfsx over NFSv4.1 against
# nfsxd): makes a tree, starts nfsxd serving NFSv3 and NFSv4 on a free
# 127.0.0.1 port with a 10 s lease (the lease test), runs test_client_nfs4, stops nfsxd (which must exit 0
# on SIGTERM and leave no sanitizer report).
#
# Tree (BASE = $WORK/tree), exported as rw:rw,no_root_squash,insecure:
#   rw/dir/inner.txt, rw/many/ (1000 files f000..f999), rw/big (5 MiB
#   + 12345 bytes of random data), rw/deep/a/b/.../l (12 levels, past one
#   COMPOUND's LOOKUPs)
#
# Usage: run-client-nfs4.sh NFSXD TEST_CLIENT_NFS4

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-client-nfs4.sh NFSXD TEST_CLIENT_NFS4}")

chmod 755 "$WORK"
BASE=$WORK/tree
mkdir -p "$BASE/rw/dir" "$BASE/rw/many" "$BASE/rw/deep/a/b/c/d/e/f/g/h/i/j/k/l" || exit 1
printf 'inner\n' >"$BASE/rw/dir/inner.txt"
printf 'deep\n' >"$BASE/rw/deep/a/b/c/d/e/f/g/h/i/j/k/l/leaf"
head -c $((5 * 1048576 + 12345)) /dev/urandom >"$BASE/rw/big" || exit 1
(cd "$BASE/rw/many" && for i in $(seq -f '%03g' 0 999); do : >"f$i"; done) || exit 1
chmod 755 "$BASE" "$BASE/rw"

pick_port P || { echo "Bail out! no free port"; exit 1; }
start_nfsxd nfs4 --no-rpcbind --port "$P" --bind 127.0.0.1 --nfs-vers 3,4 --log-level warn \
	--lease-time 10 \
	--export "$BASE/rw:rw,no_root_squash,insecure"
PID=$SERVER_PID
if ! wait_port "$P" 10 "$PID"; then
	echo "Bail out! nfsxd did not start listening on 127.0.0.1:$P"
	show_log nfs4
	exit 1
fi

"$TEST" "$P" "$BASE"
finish $? "nfs4:$PID"
