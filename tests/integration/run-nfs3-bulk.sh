#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the nfs3-bulk test (large WRITEs on the wire): starts
# nfsxd on a free 127.0.0.1 port (--no-rpcbind) exporting BASE/exp and,
# when this runs as root, BASE/small, a 256 KiB tmpfs mounted for the run
# (a file system that fills up in the middle of a WRITE); runs
# test_nfs3_bulk PORT BASE and stops the server. A server that dies, does
# not exit 0 on SIGTERM or logs a sanitizer report fails the run. Run
# under with-tmpfs.sh, BASE/exp is on tmpfs, where the server splices the
# data of large WRITEs from the socket into the file.
#
# Usage: run-nfs3-bulk.sh NFSXD TEST_NFS3_BULK

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-nfs3-bulk.sh NFSXD TEST_NFS3_BULK}")

BASE=$WORK/tree
mkdir -p "$BASE/exp" "$BASE/small" || exit 1
: >"$BASE/exp/f"
ARGS=(--no-rpcbind --port 0 --bind 127.0.0.1 --log-level warn
	--export "$BASE/exp:rw,no_root_squash,insecure")
SMALL=
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=256k tmpfs "$BASE/small"; then
	SMALL=$BASE/small
	at_cleanup "umount '$SMALL'"
	: >"$SMALL/f"
	ARGS+=(--export "$SMALL:rw,no_root_squash,insecure")
fi

pick_port P || { echo "Bail out! no free port"; exit 1; }
ARGS[2]=$P
start_nfsxd bulk "${ARGS[@]}"
PID=$SERVER_PID
if ! wait_port "$P" 10 "$PID"; then
	echo "Bail out! nfsxd did not start listening on 127.0.0.1:$P"
	show_log bulk
	exit 1
fi

"$TEST" "$P" "$BASE"
finish $? "bulk:$PID"
