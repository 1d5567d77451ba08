#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the nfs3-ns test (MKDIR, SYMLINK, MKNOD, REMOVE,
# RMDIR, RENAME, LINK): builds the export tree in the scratch directory,
# starts nfsxd on a free 127.0.0.1 port with --no-rpcbind and umask 022
# (so the test sees that a client's mode is not masked by the server's
# umask), runs test_nfs3_ns PORT BASE (its TAP output is this test's
# output) and stops the server with SIGTERM. A server that dies, does not
# exit 0 on SIGTERM or logs a sanitizer report fails the run. Needs root
# (files of several owners, device nodes, a privileged source port):
# otherwise the whole test is a skip.
#
# Tree (BASE = $WORK/tree), all root-owned 0755 unless said:
#   rw/    --export rw:rw,no_root_squash
#          plain ("plain\n"), pub/ (0777), rootdir/ (0755, f root 0644),
#          sticky/ (1777: his 2000:2000 0644, mine 1000:1000 0644),
#          full/ (x), empty/, own1000 in pub/ (1000:1000 0644)
#   rw2/   --export rw2:rw,no_root_squash        (for XDEV)
#          g ("g\n")
#   ro/    --export ro:ro,no_root_squash
#          f, d/
#   sq/    --export sq:rw                        (root_squash, the default)
#          (0777)
#
# Usage: run-nfs3-ns.sh NFSXD TEST_NFS3_NS

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-nfs3-ns.sh NFSXD TEST_NFS3_NS}")

if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP needs root (file owners, device nodes, privileged source port)"
	exit 0
fi

chmod 755 "$WORK"
BASE=$WORK/tree
R=$BASE/rw
mkdir -p "$R/pub" "$R/rootdir" "$R/sticky" "$R/full" "$R/empty" "$BASE/rw2" \
	"$BASE/ro/d" "$BASE/sq" || exit 1
printf 'plain\n' >"$R/plain"
printf 'f\n' >"$R/rootdir/f"
printf 'his\n' >"$R/sticky/his"
printf 'mine\n' >"$R/sticky/mine"
printf 'x\n' >"$R/full/x"
printf 'own\n' >"$R/pub/own1000"
printf 'g\n' >"$BASE/rw2/g"
printf 'f\n' >"$BASE/ro/f"
chmod 755 "$BASE" "$BASE"/* "$R"/*
chmod 644 "$R/plain" "$R/rootdir/f" "$R/sticky/his" "$R/sticky/mine" "$R/pub/own1000"
chmod 777 "$R/pub" "$BASE/sq"
chmod 1777 "$R/sticky"
chown 2000:2000 "$R/sticky/his"
chown 1000:1000 "$R/sticky/mine" "$R/pub/own1000"

pick_port P || { echo "Bail out! no free port"; exit 1; }
umask 022
serve ns "$P" --log-level warn \
	--export "$BASE/rw:rw,no_root_squash" \
	--export "$BASE/rw2:rw,no_root_squash" \
	--export "$BASE/ro:ro,no_root_squash" \
	--export "$BASE/sq:rw"

"$TEST" "$P" "$BASE"
finish $? "ns:$PID"
