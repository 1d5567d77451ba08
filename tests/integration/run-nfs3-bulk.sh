#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the nfs3-bulk test (large WRITEs on the wire): starts
# nfsxd on a free 127.0.0.1 port (--no-rpcbind, --threads 1, an exports
# file) exporting BASE/exp and, when this runs as root, BASE/small, a
# 256 KiB tmpfs mounted for the run (a file system that fills up in the
# middle of a WRITE); runs test_nfs3_bulk PORT BASE PID EXPORTS, which
# also reloads the exports (SIGHUP) while a WRITE waits for its data and
# ends by stopping nfsxd (SIGTERM) in the middle of one. nfsxd must then
# exit 0 with a clean log. Run under with-tmpfs.sh, BASE/exp is on tmpfs,
# where the server splices the data of large WRITEs from the socket into
# the file.
#
# Usage: run-nfs3-bulk.sh NFSXD TEST_NFS3_BULK

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-nfs3-bulk.sh NFSXD TEST_NFS3_BULK}")

BASE=$WORK/tree
mkdir -p "$BASE/exp" "$BASE/small" || exit 1
: >"$BASE/exp/f"
printf '%s 127.0.0.1(rw,no_root_squash,insecure)\n' "$BASE/exp" >"$WORK/exports"
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=256k tmpfs "$BASE/small"; then
	at_cleanup "umount '$BASE/small'"
	: >"$BASE/small/f"
	printf '%s 127.0.0.1(rw,no_root_squash,insecure)\n' "$BASE/small" >>"$WORK/exports"
fi

# One event loop: every connection on it, as the reload check needs.
pick_port P || { echo "Bail out! no free port"; exit 1; }
serve bulk "$P" --log-level warn \
	--threads 1 --exports-file "$WORK/exports"

# The test ends by stopping nfsxd (SIGTERM in the middle of a WRITE):
# it must have exited 0, with a clean log.
"$TEST" "$P" "$BASE" "$PID" "$WORK/exports"
rc=$?
for ((i = 0; i < 500; i++)); do
	alive "$PID" || break
	sleep 0.02
done
if alive "$PID"; then
	echo "not ok - nfsxd still running 10 s after the test's SIGTERM"
	rc=1
else
	wait "$PID"
	st=$?
	forget_pid "$PID"
	[ "$st" -eq 0 ] || { echo "# nfsxd exited with status $st"; rc=1; }
fi
logs_clean || { echo "# sanitizer report in the nfsxd log"; rc=1; }
[ "$rc" -eq 0 ] || show_log bulk
exit "$rc"
