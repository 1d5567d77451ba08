#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the nfs4-lock test (NFSv4.0 byte-range locks and
# leases on the wire): builds the export tree in the scratch directory,
# starts nfsxd with --nfs-vers 3,4 --lease-time 10 on a free 127.0.0.1
# port, runs test_nfs4_lock PORT BASE STATE_DIR (its TAP output is this
# test's output; its lease part waits 12.5 s) and stops the server with
# SIGTERM.
# A server that dies, does not exit 0 on SIGTERM or logs a sanitizer
# report fails the run.
#
# Tree (BASE = $WORK/tree, a pseudo directory):
#   rw/    rw,no_root_squash; f (100 bytes), g, r, c, lease, lease2: 0666
#
# Usage: run-nfs4-lock.sh NFSXD TEST_NFS4_LOCK

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-nfs4-lock.sh NFSXD TEST_NFS4_LOCK}")

chmod 755 "$WORK"
BASE=$WORK/tree
R=$BASE/rw
mkdir -p "$R" || exit 1
head -c 100 /dev/zero | tr '\0' 'f' >"$R/f"
for f in g r c lease lease2; do
	printf '%s\n' "$f" >"$R/$f"
done
chmod 755 "$BASE" "$R"
chmod 666 "$R"/*

cat >"$WORK/exports" <<EOT
$R 127.0.0.1(rw,no_root_squash,insecure)
EOT

pick_port P || { echo "Bail out! no free port"; exit 1; }
umask 022
serve lock4 "$P" --log-level warn \
	--nfs-vers 3,4 --lease-time 10 --exports-file "$WORK/exports"

"$TEST" "$P" "$BASE" "$WORK/lock4.state"
finish $? "lock4:$PID"
