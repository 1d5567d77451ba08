#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the nfs4-ns test (NFSv4.0 CREATE, REMOVE, RENAME,
# LINK, SETATTR on the wire): builds the export tree in the scratch
# directory, starts nfsxd with --nfs-vers 3,4 on a free 127.0.0.1 port
# with umask 022 (so the test sees that a client's mode is not masked by
# the server's umask), runs test_nfs4_ns PORT BASE (its TAP output is
# this test's output) and stops the server with SIGTERM. A server that
# dies, does not exit 0 on SIGTERM or logs a sanitizer report fails the
# run. Needs root (files of several owners, device nodes, chown):
# otherwise the whole test is a skip.
#
# Tree (BASE = $WORK/tree, a pseudo directory), root-owned 0755 unless said:
#   rw/    rw,no_root_squash
#          plain, rootf (0644), sf (setattr), lf (link), rmfile, rmdir/,
#          full/ (x), pub/ (0777), d1/ (a, sub/ (y)), d2/, v3d/ (m, 0644:
#          listed over NFSv3 while NFSv4 changes it)
#   rw2/   rw,no_root_squash (for XDEV); g
#   ro/    ro,no_root_squash; f, d/
#   sq/    rw (root_squash); 0777
#
# Usage: run-nfs4-ns.sh NFSXD TEST_NFS4_NS

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-nfs4-ns.sh NFSXD TEST_NFS4_NS}")

if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP needs root (file owners, device nodes, chown)"
	exit 0
fi

chmod 755 "$WORK"
BASE=$WORK/tree
R=$BASE/rw
mkdir -p "$R/v3d" "$R/rmdir" "$R/full" "$R/pub" "$R/d1/sub" "$R/d2" "$BASE/rw2" \
	"$BASE/ro/d" "$BASE/sq" || exit 1
printf 'plain\n' >"$R/plain"
printf 'rootf\n' >"$R/rootf"
printf 'setattr me\n' >"$R/sf"
printf 'link me\n' >"$R/lf"
printf 'rm\n' >"$R/rmfile"
printf 'x\n' >"$R/full/x"
printf 'a\n' >"$R/d1/a"
printf 'y\n' >"$R/d1/sub/y"
printf 'm\n' >"$R/v3d/m"
printf 'g\n' >"$BASE/rw2/g"
printf 'f\n' >"$BASE/ro/f"
chmod 755 "$BASE" "$BASE"/* "$R"/* 2>/dev/null
chmod 644 "$R/v3d/m" "$R/plain" "$R/rootf" "$R/sf" "$R/lf" "$R/rmfile"
chmod 777 "$R/pub" "$BASE/sq"

cat >"$WORK/exports" <<EOT
$R 127.0.0.1(rw,no_root_squash,insecure)
$BASE/rw2 127.0.0.1(rw,no_root_squash,insecure)
$BASE/ro 127.0.0.1(ro,no_root_squash,insecure)
$BASE/sq 127.0.0.1(rw,insecure)
EOT

pick_port P || { echo "Bail out! no free port"; exit 1; }
umask 022
serve ns4 "$P" --log-level warn \
	--nfs-vers 3,4 --exports-file "$WORK/exports"

"$TEST" "$P" "$BASE"
finish $? "ns4:$PID"
