#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the nfs4-fh test (NFSv4.0's first operations on the
# wire): builds the tree in the scratch directory, starts two nfsxd with
# --nfs-vers 3,4 on free 127.0.0.1 ports and runs test_nfs4_fh PORT
# PORT0 BASE (its TAP output is this test's output), then stops them. A
# server that dies, does not exit 0 on SIGTERM or logs a sanitizer report
# fails the run. Needs root (it compares owners with stat(2) as root and
# exports with no_root_squash): otherwise the whole test is a skip.
#
# Tree (BASE = $WORK/tree):
#   a/exp1/   exported rw to 127.0.0.1; f ("hello\n"), d/ (empty),
#             l -> f, gone, big/ (file0000..file0999), churn/ (keep000..299)
#   a/other/  not exported (beside exp1 in the pseudo directory a)
#   b/exp2/   exported ro to 127.0.0.1; g
#   c/hidden/ exported to 192.0.2.1 only: invisible from 127.0.0.1
# The first server exports all three; the second exp1 alone with fsid=0.
#
# Usage: run-nfs4-fh.sh NFSXD TEST_NFS4_FH

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-nfs4-fh.sh NFSXD TEST_NFS4_FH}")

if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP needs root (owners compared with stat, no_root_squash)"
	exit 0
fi

chmod 755 "$WORK"
BASE=$WORK/tree
E1=$BASE/a/exp1
mkdir -p "$E1/d" "$E1/big" "$E1/churn" "$BASE/a/other" "$BASE/b/exp2" "$BASE/c/hidden" || exit 1
printf 'hello\n' >"$E1/f"
printf 'gone\n' >"$E1/gone"
ln -s f "$E1/l"
printf 'g\n' >"$BASE/b/exp2/g"
(cd "$E1/big" && for i in $(seq -f '%04g' 0 999); do : >"file$i"; done)
(cd "$E1/churn" && for i in $(seq -f '%03g' 0 299); do : >"keep$i"; done)

cat >"$WORK/exports1" <<EOT
$E1 127.0.0.1(rw,no_root_squash,insecure)
$BASE/b/exp2 127.0.0.1(ro,no_root_squash,insecure)
$BASE/c/hidden 192.0.2.1(rw,insecure)
EOT
cat >"$WORK/exports0" <<EOT
$E1 127.0.0.1(rw,no_root_squash,insecure,fsid=0)
EOT

pick_port P || { echo "Bail out! no free port"; exit 1; }
pick_port P0 || { echo "Bail out! no free port"; exit 1; }
serve v4root "$P0" --log-level warn --nfs-vers 3,4 --exports-file "$WORK/exports0"
PID0=$PID
serve v4 "$P" --log-level warn --nfs-vers 3,4 --exports-file "$WORK/exports1"

"$TEST" "$P" "$P0" "$BASE"
finish $? "v4:$PID" "v4root:$PID0"
