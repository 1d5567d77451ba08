#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the nfs4-open test (NFSv4.0 open state and I/O on
# the wire): builds the export tree in the scratch directory, starts
# nfsxd with --nfs-vers 3,4 on a free 127.0.0.1 port, runs
# test_nfs4_open PORT BASE (its TAP output is this test's output) and
# stops the server with SIGTERM. A server that dies, does not exit 0 on
# SIGTERM or logs a sanitizer report fails the run. Needs root (files of
# several owners): otherwise the whole test is a skip.
#
# Tree (BASE = $WORK/tree, a pseudo directory), root-owned 0755 unless said:
#   rw/    rw,no_root_squash
#          exist (6 bytes), trunc (10 bytes), dg, shared, sz (10 bytes),
#          plain, all 0644; secret (0600, uid 1001), r444 (0444, uid 1000);
#          dir/; link -> plain; fifo (a FIFO)
#   ro/    ro,no_root_squash; f
#
# Usage: run-nfs4-open.sh NFSXD TEST_NFS4_OPEN

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-nfs4-open.sh NFSXD TEST_NFS4_OPEN}")

if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP needs root (file owners)"
	exit 0
fi

chmod 755 "$WORK"
BASE=$WORK/tree
R=$BASE/rw
mkdir -p "$R/dir" "$BASE/ro" && mkfifo "$R/fifo" || exit 1
printf 'exist\n' >"$R/exist"
printf '0123456789' >"$R/trunc"
printf '0123456789' >"$R/sz"
printf 'dg\n' >"$R/dg"
: >"$R/shared"
printf 'plain\n' >"$R/plain"
printf 'secret\n' >"$R/secret"
printf 'r444\n' >"$R/r444"
printf 'f\n' >"$BASE/ro/f"
ln -s plain "$R/link"
chmod 755 "$BASE" "$R" "$R/dir" "$BASE/ro"
chmod 644 "$R/exist" "$R/trunc" "$R/sz" "$R/dg" "$R/shared" "$R/plain" "$BASE/ro/f"
chown 1001:1001 "$R/secret" && chmod 600 "$R/secret" || exit 1
chown 1000:1000 "$R/r444" && chmod 444 "$R/r444" || exit 1

cat >"$WORK/exports" <<EOT
$R 127.0.0.1(rw,no_root_squash,insecure)
$BASE/ro 127.0.0.1(ro,no_root_squash,insecure)
EOT

pick_port P || { echo "Bail out! no free port"; exit 1; }
umask 022
serve open4 "$P" --log-level warn \
	--nfs-vers 3,4 --exports-file "$WORK/exports"

"$TEST" "$P" "$BASE"
finish $? "open4:$PID"
