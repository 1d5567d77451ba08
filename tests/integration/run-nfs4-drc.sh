#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the nfs4-drc test (NFSv4.0 COMPOUNDs retransmitted
# with their xid, answered from the duplicate request cache): builds the
# export tree in the scratch directory, starts nfsxd with --nfs-vers 3,4
# on a free 127.0.0.1 port, runs test_nfs4_drc PORT BASE (its TAP output
# is this test's output) and stops the server with SIGTERM. A server that
# dies, does not exit 0 on SIGTERM or logs a sanitizer report fails the
# run. Runs unprivileged too: nfsxd then acts as the invoking user for
# every client, who owns the tree (and the test's local changes are
# made by the same user).
#
# Tree (BASE = $WORK/tree, a pseudo directory), owned by the invoker:
#   rw/    rw,no_root_squash
#          rmme, mvfrom (empty), grow ("abc", 3 bytes),
#          trunc (10 bytes), app ("abc", 3 bytes)
#
# Usage: run-nfs4-drc.sh NFSXD TEST_NFS4_DRC

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-nfs4-drc.sh NFSXD TEST_NFS4_DRC}")

chmod 755 "$WORK"
BASE=$WORK/tree
R=$BASE/rw
mkdir -p "$R" || exit 1
: >"$R/rmme"
: >"$R/mvfrom"
printf 'abc' >"$R/grow"
printf '0123456789' >"$R/trunc"
printf 'abc' >"$R/app"
chmod 755 "$BASE" "$R"

cat >"$WORK/exports" <<EOT
$R 127.0.0.1(rw,no_root_squash,insecure)
EOT

pick_port P || { echo "Bail out! no free port"; exit 1; }
serve drc4 "$P" --log-level warn \
	--nfs-vers 3,4 --exports-file "$WORK/exports"

"$TEST" "$P" "$BASE"
finish $? "drc4:$PID"
