#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the nfs4-deleg test (NFSv4 read and write delegations
# on the wire: grant, recall over 4.0 callbacks and 4.1 back channels,
# return, revocation, NFSv3 conflicts, CB_PATH_DOWN): builds the export tree in the scratch
# directory, starts nfsxd with --nfs-vers 3,4 --lease-time 10 and debug
# logging on a free 127.0.0.1 port, and a second one exporting the same
# directory with --delegations off; runs test_nfs4_deleg PORT BASE LOG PORT_OFF
# (its fake clients listen for callbacks on 127.0.0.1 too; two lease
# waits, ~25 s) and stops the server with SIGTERM. A server that dies,
# does not exit 0 on SIGTERM or logs a sanitizer report fails the run.
#
# Tree (BASE = $WORK/tree, a pseudo directory):
#   rw/    rw,no_root_squash; one file per case, holding its name and
#          a newline, 0666
#
# Usage: run-nfs4-deleg.sh NFSXD TEST_NFS4_DELEG

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-nfs4-deleg.sh NFSXD TEST_NFS4_DELEG}")

chmod 755 "$WORK"
BASE=$WORK/tree
R=$BASE/rw
mkdir -p "$R" || exit 1
for f in f1 f6 c-setattr c-remove c-rename c-link c-write c-read f9 f10w v3f g \
	h1 h2 h3 h11n w1 w-openr w-read w-gsize w-gchange w-write w-setattr w-remove \
	w-rename w-link w-gmode wv3 gw dcur rdown h6 h7 h8 h9 off1 off2 off3; do
	printf '%s\n' "$f" >"$R/$f"
done
chmod 755 "$BASE" "$R"
chmod 666 "$R"/*

cat >"$WORK/exports" <<EOT
$R 127.0.0.1(rw,no_root_squash,insecure)
EOT

pick_port P || { echo "Bail out! no free port"; exit 1; }
umask 022
serve deleg "$P" --log-level debug \
	--nfs-vers 3,4 --lease-time 10 --exports-file "$WORK/exports"
DPID=$PID
# the same export with --delegations off
pick_port P2 || { echo "Bail out! no free port"; exit 1; }
serve off "$P2" --nfs-vers 3,4 --lease-time 10 --delegations off \
	--exports-file "$WORK/exports"

"$TEST" "$P" "$BASE" "$WORK/deleg.log" "$P2"
finish $? "deleg:$DPID" "off:$PID"
