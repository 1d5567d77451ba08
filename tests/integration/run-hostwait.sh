#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the hostwait test: nfsxd with one worker and a name
# service that hangs for some peers (hang_resolver.so, preloaded; no
# query leaves the machine), exports with a host name rule before an
# address rule; test_hostwait checks that calls from other peers are
# served meanwhile and that the waiting ones are answered at the bound.
# nfsxd must then stop promptly (no thread of it waits for the lookups
# that still hang). Then the same as a daemon (no --foreground): its
# resolver threads must be the daemon's, so a name the service gives at
# once (127.0.0.5) lets an MNT through.
#
# Usage: run-hostwait.sh NFSXD TEST_HOSTWAIT HANG_RESOLVER_SO

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-hostwait.sh NFSXD TEST SHIM}")
SHIM=$(realpath "${3:?usage: run-hostwait.sh NFSXD TEST SHIM}")

BASE=$WORK/tree
mkdir -p "$BASE"/{slow,fast}
EXPORTS=$WORK/exports
cat >"$EXPORTS" <<END
$BASE/slow hang.test(rw,insecure,no_root_squash) five.test(rw,insecure,no_root_squash) 127.0.0.0/8(rw,insecure,no_root_squash)
$BASE/fast 127.0.0.0/8(rw,insecure,no_root_squash)
END

pick_port P || { echo "Bail out! no free port"; exit 1; }
# An ASan build's runtime is not first in the preload list: allowed here.
NFSX_HANG_OCTETS=2,6,8 LD_PRELOAD=$SHIM \
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
	start_nfsxd hostwait --no-rpcbind --port "$P" --bind 127.0.0.1 \
	--log-level info --workers 1 --exports-file "$EXPORTS"
PID=$SERVER_PID
if ! wait_port "$P" 20 "$PID"; then
	echo "Bail out! nfsxd did not start listening on 127.0.0.1:$P"
	show_log hostwait
	exit 1
fi

"$TEST" "$P" "$BASE"
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

# The daemon: started without --foreground, found by its port.
pick_port P2 || { echo "Bail out! no free port"; exit 1; }
NFSX_HANG_OCTETS=2,6,8 LD_PRELOAD=$SHIM \
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
	${NFSXD_WRAPPER:-} "$NFSXD" --state-dir "$WORK/daemon.state" --no-rpcbind \
	--port "$P2" --bind 127.0.0.1 --workers 1 --exports-file "$EXPORTS" \
	>"$WORK/daemon.log" 2>&1
DPID=$(ss -Hltnp "sport = :$P2" | sed -n 's/.*pid=\([0-9]*\).*/\1/p' | head -1)
if [ -z "$DPID" ]; then
	echo "# the nfsxd daemon is not listening on $P2"
	status=1
else
	track_pid "$DPID"
	if ! "$TEST" mnt "$P2" "$BASE/slow" 5; then
		echo "# daemon: MNT by a host name rule (five.test) was not answered OK"
		status=1
	fi
	kill -TERM "$DPID"
fi

if [ "$rc" -ne 0 ] || [ "$status" -ne 0 ]; then
	show_log hostwait
	exit 1
fi
exit 0
