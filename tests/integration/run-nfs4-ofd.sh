#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the nfs4-ofd test (NFSv4 locks seen by local
# processes as OFD locks): builds the export tree in the scratch
# directory, starts nfsxd with --nfs-vers 3,4 --lease-time 10 on a free
# 127.0.0.1 port, runs test_nfs4_ofd PORT BASE NFSXD_PID (its TAP output
# is this test's output; it locks the exported files itself, reads
# nfsxd's /proc/PID/fd and lowers its RLIMIT_NOFILE for a moment; its
# lease part waits 12.5 s) and stops the server with SIGTERM.
# A server that dies, does not exit 0 on SIGTERM or logs a sanitizer
# report fails the run.
#
# Tree (BASE = $WORK/tree, a pseudo directory):
#   rw/    rw,no_root_squash; f1 .. f6 (100 bytes each): 0666
#
# Usage: run-nfs4-ofd.sh NFSXD TEST_NFS4_OFD

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-nfs4-ofd.sh NFSXD TEST_NFS4_OFD}")

chmod 755 "$WORK"
BASE=$WORK/tree
R=$BASE/rw
mkdir -p "$R" || exit 1
for f in f1 f2 f3 f4 f5 f6; do
	head -c 100 /dev/zero | tr '\0' 'x' >"$R/$f"
done
chmod 755 "$BASE" "$R"
chmod 666 "$R"/*

cat >"$WORK/exports" <<EOT
$R 127.0.0.1(rw,no_root_squash,insecure)
EOT

pick_port P || { echo "Bail out! no free port"; exit 1; }
umask 022
serve ofd4 "$P" --log-level warn \
	--nfs-vers 3,4 --lease-time 10 --exports-file "$WORK/exports"

"$TEST" "$P" "$BASE" "$PID"
finish $? "ofd4:$PID"
