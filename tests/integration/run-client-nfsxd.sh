#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the client-nfsxd test (libnfsx against nfsxd): builds
# the tree, starts two nfsxd on free 127.0.0.1 ports -- the main one with
# --no-rpcbind, a second serving its own rpcbind on a test-picked port
# (for the lookup of ports) -- runs test_client_nfsxd (which also starts
# and restarts a third nfsxd itself on another picked port), and stops
# them. A server that dies, does not exit 0 on SIGTERM or logs a
# sanitizer report fails the run. Needs root (files of several owners,
# a reserved source port): otherwise a skip.
#
# Tree (BASE = $WORK/tree):
#   rw/      dir/inner.txt, many/ (3000 empty files), secret600 (root 0600),
#            group2000 (root:2000 0640), u1000/ (1000:1000)
#                                --export rw:rw,no_root_squash,insecure
#   secure/  (empty)             --export secure:ro,no_root_squash (secure)
#
# Usage: run-client-nfsxd.sh NFSXD TEST_CLIENT_NFSXD

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-client-nfsxd.sh NFSXD TEST_CLIENT_NFSXD}")

if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP needs root (file owners, reserved source port)"
	exit 0
fi

chmod 755 "$WORK"
BASE=$WORK/tree
mkdir -p "$BASE/rw/dir" "$BASE/rw/many" "$BASE/rw/u1000" "$BASE/secure" || exit 1
printf 'inner\n' >"$BASE/rw/dir/inner.txt"
printf 'secret\n' >"$BASE/rw/secret600"
chmod 600 "$BASE/rw/secret600"
chown 1000:1000 "$BASE/rw/u1000"
printf 'group\n' >"$BASE/rw/group2000"
chown 0:2000 "$BASE/rw/group2000"
chmod 640 "$BASE/rw/group2000"
(cd "$BASE/rw/many" && for i in $(seq -f '%05g' 0 2999); do : >"f$i"; done) || exit 1
chmod 755 "$BASE" "$BASE/rw" "$BASE/secure"

pick_port P || { echo "Bail out! no free port"; exit 1; }
pick_port P2 || { echo "Bail out! no free port"; exit 1; }
pick_port R || { echo "Bail out! no free port"; exit 1; }
pick_port P3 || { echo "Bail out! no free port"; exit 1; }
start_nfsxd client1 --no-rpcbind --port "$P" --bind 127.0.0.1 --log-level warn \
	--export "$BASE/rw:rw,no_root_squash,insecure" \
	--export "$BASE/secure:ro,no_root_squash"
PID1=$SERVER_PID
start_nfsxd client2 --rpcbind-port "$R" --port "$P2" --bind 127.0.0.1 --log-level warn \
	--export "$BASE/rw:rw,no_root_squash,insecure"
PID2=$SERVER_PID
for x in "$P:$PID1:client1" "$R:$PID2:client2" "$P2:$PID2:client2"; do
	IFS=: read -r port pid name <<<"$x"
	if ! wait_port "$port" 10 "$pid"; then
		echo "Bail out! nfsxd ($name) did not start listening on 127.0.0.1:$port"
		show_log "$name"
		exit 1
	fi
done

"$TEST" "$NFSXD" "$P" "$R" "$P2" "$P3" "$BASE" "$WORK"
rc=$?

status=0
for x in "$PID1:client1" "$PID2:client2"; do
	IFS=: read -r pid name <<<"$x"
	if ! alive "$pid"; then
		echo "# nfsxd ($name) died during the test"
		status=1
	fi
	if ! stop_nfsxd "$pid" "$STOP_TMO"; then
		echo "# nfsxd ($name) did not exit within $STOP_TMO s of SIGTERM (killed)"
		status=1
	elif [ "$STOP_STATUS" -ne 0 ]; then
		echo "# nfsxd ($name) exited with status $STOP_STATUS after SIGTERM"
		status=1
	fi
done
if ! logs_clean; then
	echo "# sanitizer report in an nfsxd log"
	status=1
fi
if [ "$rc" -ne 0 ] || [ "$status" -ne 0 ]; then
	show_log client1
	show_log client2
	show_log restart
	exit 1
fi
exit 0
