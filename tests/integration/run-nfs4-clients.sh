#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the nfs4-clients test (SETCLIENTID, CONFIRM and
# RENEW on the wire): starts nfsxd with --nfs-vers 3,4 on a free
# 127.0.0.1 port, runs test_nfs4_clients PORT 1 STATE, stops nfsxd and
# starts it again on the same port, runs test_nfs4_clients PORT 2 STATE
# (the clientid of the first instance must be stale), then stops it.
# The TAP output of the two phases is this test's output.
#
# Usage: run-nfs4-clients.sh NFSXD TEST_NFS4_CLIENTS

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-nfs4-clients.sh NFSXD TEST_NFS4_CLIENTS}")

mkdir -p "$WORK/exp" || exit 1
echo "$WORK/exp 127.0.0.1(ro,insecure)" >"$WORK/exports"

pick_port P || { echo "Bail out! no free port"; exit 1; }
start() {
	serve "$1" "$P" --log-level warn --nfs-vers 3,4 --exports-file "$WORK/exports"
}

start first
"$TEST" "$P" 1 "$WORK/state"
rc1=$?
if ! stop_nfsxd "$PID" "$STOP_TMO" || [ "$STOP_STATUS" -ne 0 ]; then
	echo "Bail out! the first nfsxd did not stop cleanly (status $STOP_STATUS)"
	show_log first
	exit 1
fi
start second
"$TEST" "$P" 2 "$WORK/state"
rc2=$?
[ "$rc1" -eq 0 ] && [ "$rc2" -eq 0 ]
finish $? "second:$PID"
