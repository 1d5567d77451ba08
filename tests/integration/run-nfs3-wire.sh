#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the nfs3-wire test: builds an export tree and an
# exports file in the scratch directory, starts nfsxd on a free 127.0.0.1
# port with --no-rpcbind, runs test_nfs3_wire PORT BASE (its TAP output
# is this test's output) and stops the server with SIGTERM. A server that
# dies, does not exit 0 on SIGTERM or logs a sanitizer report fails the
# run.
#
# Exports (BASE is the scratch directory):
#   BASE/exp  127.0.0.1(ro,insecure) 10.0.0.0/8(rw)
#   BASE/sec  *(ro)                   (secure: privileged ports only)
#
# Usage: run-nfs3-wire.sh NFSXD TEST_NFS3_WIRE

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-nfs3-wire.sh NFSXD TEST_NFS3_WIRE}")

BASE=$WORK/tree
mkdir -p "$BASE/exp/a" "$BASE/exp/big" "$BASE/sec"
printf 'hello nfsx\n' >"$BASE/exp/f"
printf 'b\n' >"$BASE/exp/a/b"
printf 'doomed\n' >"$BASE/exp/victim"
printf 'sec\n' >"$BASE/sec/s"
# 2000 entries with names of varying length (7 to 60 bytes).
python3 - "$BASE/exp/big" <<'PY'
import os, sys
d = sys.argv[1]
for i in range(2000):
    open(os.path.join(d, "entry-%04d" % i + "x" * (i % 50)), "w").close()
PY
chmod -R a+rX "$BASE"
cat >"$WORK/exports" <<EOT
$BASE/exp 127.0.0.1(ro,insecure) 10.0.0.0/8(rw)
$BASE/sec *(ro)
EOT

pick_port P || { echo "Bail out! no free port"; exit 1; }
serve nfs3wire "$P" --log-level warn \
	--exports-file "$WORK/exports"

"$TEST" "$P" "$BASE"
finish $? "nfs3wire:$PID"
