#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the nfs4-drc test (NFSv4.0 COMPOUNDs retransmitted
# with their xid, answered from the duplicate request cache): builds the
# export tree in the scratch directory, starts nfsxd with --nfs-vers 3,4
# on a free 127.0.0.1 port, runs test_nfs4_drc PORT BASE (its TAP output
# is this test's output) and stops the server with SIGTERM. A server that
# dies, does not exit 0 on SIGTERM or logs a sanitizer report fails the
# run. Needs root (the server's handles): otherwise the whole test is a
# skip.
#
# Tree (BASE = $WORK/tree, a pseudo directory), root-owned:
#   rw/    rw,no_root_squash
#          rmme, mvfrom (empty), grow ("abc", 3 bytes)
#
# Usage: run-nfs4-drc.sh NFSXD TEST_NFS4_DRC

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-nfs4-drc.sh NFSXD TEST_NFS4_DRC}")

if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP needs root"
	exit 0
fi

chmod 755 "$WORK"
BASE=$WORK/tree
R=$BASE/rw
mkdir -p "$R" || exit 1
: >"$R/rmme"
: >"$R/mvfrom"
printf 'abc' >"$R/grow"
chmod 755 "$BASE" "$R"

cat >"$WORK/exports" <<EOT
$R 127.0.0.1(rw,no_root_squash,insecure)
EOT

pick_port P || { echo "Bail out! no free port"; exit 1; }
serve drc4 "$P" --log-level warn \
	--nfs-vers 3,4 --exports-file "$WORK/exports"

"$TEST" "$P" "$BASE"
finish $? "drc4:$PID"
