#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for test_nfs3_concurrent: nfsxd on a free 127.0.0.1 port
# with one rw export, the test, then a clean stop.
#   run-nfs3-concurrent.sh NFSXD TEST
. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-nfs3-concurrent.sh NFSXD TEST}")
EXP=$WORK/export
mkdir -p "$EXP"
chmod 1777 "$EXP"
pick_port P || { echo "Bail out! no free port"; exit 1; }
start_nfsxd conc --no-rpcbind --port "$P" --bind 127.0.0.1 --log-level warn \
	--export "$EXP:rw,insecure"
PID=$SERVER_PID
if ! wait_port "$P" 10 "$PID"; then
	echo "Bail out! nfsxd did not start"
	show_log conc
	exit 1
fi
"$TEST" "$P" "$EXP"
rc=$?
alive "$PID" || { echo "# nfsxd died"; rc=1; }
stop_nfsxd "$PID" 10
[ "$STOP_STATUS" -eq 0 ] || { echo "# nfsxd exited $STOP_STATUS on SIGTERM"; rc=1; }
logs_clean || rc=1
exit $rc
