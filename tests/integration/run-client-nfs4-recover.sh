#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the client-nfs4-recover test (libnfsx reclaiming its
# opens and locks after nfsxd is killed with SIGKILL and started again):
# builds the export tree, starts nfsxd with --nfs-vers 3,4 --lease-time 10
# on a free 127.0.0.1 port and runs test_client_nfs4_recover (its TAP
# output is this test's output). The test writes a command on the FIFO
# ctl and gets "ok" (or "fail") back on the FIFO ack once the server
# accepts connections again:
#   restart  SIGKILL, then nfsxd again on the same port and state
#            directory (its clients recorded: a grace period for them)
#   fresh    SIGKILL, the NFSv4 client record (STATE/nfs4-clients) removed,
#            then nfsxd again (handles still good, no client recorded: no
#            grace, reclaims refused with NO_GRACE)
# nfsxd is stopped with SIGTERM at the end; a server that dies on its
# own, does not exit 0 on SIGTERM or logs a sanitizer report fails the run.
#
# Tree (BASE = $WORK/tree), exported rw,no_root_squash,insecure:
#   rw/data, rw/rd (the test fills it), rw/new, rw/lost: empty, 0666
#
# Usage: run-client-nfs4-recover.sh NFSXD TEST_CLIENT_NFS4_RECOVER

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-client-nfs4-recover.sh NFSXD TEST_CLIENT_NFS4_RECOVER}")

chmod 755 "$WORK"
BASE=$WORK/tree
R=$BASE/rw
mkdir -p "$R" || exit 1
: >"$R/data"
: >"$R/new"
: >"$R/lost"
: >"$R/rd"
chmod 755 "$BASE" "$R"
chmod 666 "$R"/*

CTL=$WORK/ctl
ACK=$WORK/ack
mkfifo "$CTL" "$ACK" || exit 1

pick_port P || { echo "Bail out! no free port"; exit 1; }
umask 022

start() {
	start_nfsxd rc --no-rpcbind --port "$P" --bind 127.0.0.1 \
		--log-level warn --nfs-vers 3,4 --lease-time 10 \
		--export "$R:rw,no_root_squash,insecure"
	SPID=$SERVER_PID
	wait_port "$P" 10 "$SPID"
}

# again [fresh]: SIGKILL, then start again (without the client record
# for "fresh"); the log of the run before is kept as rc-K.log.
RUNS=0
again() {
	kill -KILL "$SPID" 2>/dev/null
	wait "$SPID" 2>/dev/null
	forget_pid "$SPID"
	RUNS=$((RUNS + 1))
	mv "$WORK/rc.log" "$WORK/rc-$RUNS.log"
	if [ "${1:-}" = fresh ]; then
		rm -f "$WORK/rc.state/nfs4-clients" || return 1
	fi
	start
}

if ! start; then
	echo "Bail out! nfsxd did not start listening on 127.0.0.1:$P"
	show_log rc
	exit 1
fi

# The FIFO is opened read-write here, so that the test's opens for
# writing never block and a test that exits early only ends the loop.
exec {CTLFD}<>"$CTL"
"$TEST" "$P" "$BASE" "$CTL" "$ACK" &
TPID=$!
track_pid "$TPID"
# answer WORD: on the FIFO ack, given up after 10 s
answer() {
	timeout 10 bash -c 'echo "$1" >"$2"' _ "$1" "$ACK"
}

while alive "$TPID"; do
	read -r -t 1 -u "$CTLFD" cmd || continue
	case $cmd in
	restart | fresh)
		if again "$([ "$cmd" = fresh ] && echo fresh)"; then
			answer ok
		else
			answer fail
		fi
		;;
	*)
		answer fail
		;;
	esac
done
wait "$TPID"
RC=$?
forget_pid "$TPID"
finish "$RC" "rc:$SPID"
