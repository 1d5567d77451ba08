#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the nfs3-write test: builds the tree, starts nfsxd on
# a free 127.0.0.1 port (--no-rpcbind) with a rw,no_root_squash and a ro
# export, runs test_nfs3_write's "main" phase, then kills the server with
# SIGKILL, restarts it with the same state directory (same handle key) on
# the same port, and runs the "after" phase (durability, new write
# verifier). The TAP numbering continues across the phases; only the last
# prints the plan. A server that dies, does not exit 0 on SIGTERM at the
# end or logs a sanitizer report fails the run. Needs root (files of
# several owners, chown over NFS): otherwise a skip.
#
# Tree (BASE = $WORK/tree):
#   rw/  root644 ("root\n", root 0644), exists ("exists\n", root 0644),
#        u1000/ (1000:1000 0755)       --export rw:rw,no_root_squash,insecure
#   ro/  public644 ("public\n", 0644)  --export ro:ro,no_root_squash,insecure
#
# Usage: run-nfs3-write.sh NFSXD TEST_NFS3_WRITE

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-nfs3-write.sh NFSXD TEST_NFS3_WRITE}")

if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP needs root (file owners, chown over NFS)"
	exit 0
fi

chmod 755 "$WORK"
BASE=$WORK/tree
mkdir -p "$BASE/rw/u1000" "$BASE/ro" || exit 1
printf 'root\n' >"$BASE/rw/root644"
printf 'exists\n' >"$BASE/rw/exists"
printf 'public\n' >"$BASE/ro/public644"
chmod 644 "$BASE/rw/root644" "$BASE/rw/exists" "$BASE/ro/public644"
chown 1000:1000 "$BASE/rw/u1000"
chmod 755 "$BASE" "$BASE/rw" "$BASE/ro" "$BASE/rw/u1000"

pick_port P || { echo "Bail out! no free port"; exit 1; }
ARGS=(--no-rpcbind --port "$P" --bind 127.0.0.1 --log-level warn
	--export "$BASE/rw:rw,no_root_squash,insecure"
	--export "$BASE/ro:ro,no_root_squash,insecure")

start_nfsxd write "${ARGS[@]}"
PID=$SERVER_PID
if ! wait_port "$P" 10 "$PID"; then
	echo "Bail out! nfsxd did not start listening on 127.0.0.1:$P"
	show_log write
	exit 1
fi

"$TEST" "$P" "$BASE" main 0
rc1=$?
read -r N _ <"$BASE/tapcount" 2>/dev/null || N=0
if ! alive "$PID"; then
	echo "# nfsxd died during the main phase"
	rc1=1
fi

# kill -9: no chance to flush anything of its own; then the same state dir.
kill -KILL "$PID" 2>/dev/null
wait "$PID" 2>/dev/null
forget_pid "$PID"
mv "$WORK/write.log" "$WORK/write-before-kill.log"
start_nfsxd write "${ARGS[@]}"
PID=$SERVER_PID
if ! wait_port "$P" 10 "$PID"; then
	echo "Bail out! nfsxd did not restart on 127.0.0.1:$P"
	show_log write
	exit 1
fi

"$TEST" "$P" "$BASE" after "$N"
rc2=$?

status=0
if ! alive "$PID"; then
	echo "# nfsxd died during the test"
	status=1
fi
if ! stop_nfsxd "$PID" "$STOP_TMO"; then
	echo "# nfsxd did not exit within $STOP_TMO s of SIGTERM (killed)"
	status=1
elif [ "$STOP_STATUS" -ne 0 ]; then
	echo "# nfsxd exited with status $STOP_STATUS after SIGTERM"
	status=1
fi
if ! logs_clean; then
	echo "# sanitizer report in an nfsxd log"
	status=1
fi
if [ "$rc1" -ne 0 ] || [ "$rc2" -ne 0 ] || [ "$status" -ne 0 ]; then
	show_log write-before-kill
	show_log write
	exit 1
fi
exit 0
