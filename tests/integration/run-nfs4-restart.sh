#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the nfs4-restart test (NFSv4.0 restart recovery on
# the wire): builds the export tree in the scratch directory, starts two
# nfsxd servers with --nfs-vers 3,4 --lease-time 10 on free 127.0.0.1
# ports, each with its own state directory (server 2's stays without a
# confirmed client), and runs test_nfs4_restart (its TAP output is this
# test's output). When the test writes "restart N" to the FIFO ctl, the
# server N is killed with SIGKILL and started again on the same port and
# state directory; "ok" goes back on the FIFO ack once it accepts
# connections ("fail" if it does not). Both servers are stopped with
# SIGTERM at the end; a server that dies, does not exit 0 on SIGTERM or
# logs a sanitizer report fails the run.
#
# Tree (BASE = $WORK/tree, a pseudo directory):
#   rw/    rw,no_root_squash; data, data2, victim: 0666
#
# Usage: run-nfs4-restart.sh NFSXD TEST_NFS4_RESTART

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-nfs4-restart.sh NFSXD TEST_NFS4_RESTART}")

chmod 755 "$WORK"
BASE=$WORK/tree
R=$BASE/rw
mkdir -p "$R" || exit 1
: >"$R/data"
printf 'data2\n' >"$R/data2"
printf 'victim\n' >"$R/victim"
chmod 755 "$BASE" "$R"
chmod 666 "$R"/*

cat >"$WORK/exports" <<EOT
$R 127.0.0.1(rw,no_root_squash,insecure)
EOT

CTL=$WORK/ctl
ACK=$WORK/ack
mkfifo "$CTL" "$ACK" || exit 1

declare -A PORT SPID
pick_port 'PORT[1]' && pick_port 'PORT[2]' || { echo "Bail out! no free port"; exit 1; }
umask 022

# start N: server N on its port, state in $WORK/rsN.state (start_nfsxd's
# rule: the state directory follows the name), log $WORK/rsN.log.
start() {
	start_nfsxd "rs$1" --no-rpcbind --port "${PORT[$1]}" --bind 127.0.0.1 \
		--log-level warn --nfs-vers 3,4 --lease-time 10 \
		--exports-file "$WORK/exports"
	SPID[$1]=$SERVER_PID
	wait_port "${PORT[$1]}" 10 "${SPID[$1]}"
}

# restart N: SIGKILL, then start again; the log of the run before is
# kept as rsN-K.log.
RUNS=0
restart() {
	kill -KILL "${SPID[$1]}" 2>/dev/null
	wait "${SPID[$1]}" 2>/dev/null
	forget_pid "${SPID[$1]}"
	RUNS=$((RUNS + 1))
	mv "$WORK/rs$1.log" "$WORK/rs$1-$RUNS.log"
	start "$1"
}

for n in 1 2; do
	if ! start "$n"; then
		echo "Bail out! nfsxd $n did not start listening on 127.0.0.1:${PORT[$n]}"
		show_log "rs$n"
		exit 1
	fi
done

# The FIFO is opened read-write here, so that the test's opens for
# writing never block and a test that exits early only ends the loop.
exec {CTLFD}<>"$CTL"
"$TEST" "${PORT[1]}" "${PORT[2]}" "$BASE" "$WORK/rs1.state" "$WORK/rs2.state" \
	"$CTL" "$ACK" &
TPID=$!
track_pid "$TPID"
# answer WORD: on the FIFO ack, given up after 10 s (a test that died
# after asking would leave the write without a reader).
answer() {
	timeout 10 bash -c 'echo "$1" >"$2"' _ "$1" "$ACK"
}

while alive "$TPID"; do
	read -r -t 1 -u "$CTLFD" cmd || continue
	case $cmd in
	"restart 1" | "restart 2")
		if restart "${cmd#restart }"; then
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
finish "$RC" "rs1:${SPID[1]}" "rs2:${SPID[2]}"
