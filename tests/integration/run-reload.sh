#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the reload test: creates the export directories in
# the scratch directory, lets test_reload write the first exports file,
# starts nfsxd on a free 127.0.0.1 port with --no-rpcbind, runs
# test_reload (its TAP output is this test's output; it rewrites the
# exports file and sends nfsxd SIGHUP) and stops the server. A server
# that dies, does not exit 0 on SIGTERM or logs a sanitizer report
# fails the run.
#
# Usage: run-reload.sh NFSXD TEST_RELOAD

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-reload.sh NFSXD TEST_RELOAD}")

BASE=$WORK/tree
mkdir -p "$BASE"/{keep,toro,gone,new,named,wild,lwild}
EXPORTS=$WORK/exports
"$TEST" init "$EXPORTS" "$BASE" || { echo "Bail out! cannot write $EXPORTS"; exit 1; }

pick_port P || { echo "Bail out! no free port"; exit 1; }
start_nfsxd reload --no-rpcbind --port "$P" --bind 127.0.0.1 --log-level info \
	--exports-file "$EXPORTS"
PID=$SERVER_PID
if ! wait_port "$P" 20 "$PID"; then
	echo "Bail out! nfsxd did not start listening on 127.0.0.1:$P"
	show_log reload
	exit 1
fi

"$TEST" run "$P" "$BASE" "$EXPORTS" "$PID" "$WORK/reload.log"
rc=$?

status=0
if ! alive "$PID"; then
	echo "# nfsxd died during the test"
	status=1
fi
if ! stop_nfsxd "$PID" 10; then
	echo "# nfsxd did not exit within 10 s of SIGTERM (killed)"
	status=1
elif [ "$STOP_STATUS" -ne 0 ]; then
	echo "# nfsxd exited with status $STOP_STATUS after SIGTERM"
	status=1
fi
if ! logs_clean; then
	echo "# sanitizer report in the nfsxd log"
	status=1
fi
if [ "$rc" -ne 0 ] || [ "$status" -ne 0 ]; then
	show_log reload
	exit 1
fi
exit 0
