#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the client-nfs4-cb test (libnfsx's NFSv4.1 back
# channel and delegations against nfsxd): makes a tree, starts nfsxd
# serving NFSv4 on a free 127.0.0.1 port with debug logging and a lease
# of an hour (a recalled delegation is then never revoked while the test
# runs: only its return lets a conflicting OPEN through), runs
# test_client_nfs4_cb PORT BASE LOG, stops nfsxd (which must exit 0 on
# SIGTERM and leave no sanitizer report).
#
# Tree (BASE = $WORK/tree), exported rw,no_root_squash,insecure:
#   rw/plain, rw/rdeleg, rw/wdeleg, rw/onfree, rw/rebind: small files, 0666
#
# Usage: run-client-nfs4-cb.sh NFSXD TEST_CLIENT_NFS4_CB

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-client-nfs4-cb.sh NFSXD TEST_CLIENT_NFS4_CB}")

chmod 755 "$WORK"
BASE=$WORK/tree
mkdir -p "$BASE/rw" || exit 1
for f in plain rdeleg wdeleg onfree rebind; do
	printf '%s\n' "$f" >"$BASE/rw/$f"
done
chmod 755 "$BASE" "$BASE/rw"
chmod 666 "$BASE"/rw/*

pick_port P || { echo "Bail out! no free port"; exit 1; }
serve cb "$P" --log-level debug --nfs-vers 4 --lease-time 3600 \
	--export "$BASE/rw:rw,no_root_squash,insecure"

"$TEST" "$P" "$BASE" "$WORK/cb.log"
finish $? "cb:$PID"
