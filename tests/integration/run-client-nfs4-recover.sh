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
# Then, given NFSX, nfsx bench nfs_version=4.1 (randrw, FILE_SYNC writes,
# verify=crc32c, 2 jobs x 8 in flight, time based) runs while nfsxd is
# killed and started again on its state directory: it must exit 0 with
# no error and no bad block (its TAP lines follow the test's, numbered
# on). UNSTABLE writes would rightly fail the bench: the write verifier
# changes, and the bench keeps no copy to send again.
# nfsxd is stopped with SIGTERM at the end; a server that dies on its
# own, does not exit 0 on SIGTERM or logs a sanitizer report fails the run.
#
# Tree (BASE = $WORK/tree), exported rw,no_root_squash,insecure:
#   rw/data, rw/rd (the test fills it), rw/new, rw/lost, rw/lk: empty, 0666
#
# Usage: run-client-nfs4-recover.sh NFSXD TEST_CLIENT_NFS4_RECOVER [NFSX]

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-client-nfs4-recover.sh NFSXD TEST_CLIENT_NFS4_RECOVER [NFSX]}")
NFSX=${3:+$(realpath "$3")}

chmod 755 "$WORK"
BASE=$WORK/tree
R=$BASE/rw
mkdir -p "$R" || exit 1
: >"$R/data"
: >"$R/new"
: >"$R/lost"
: >"$R/lk"
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
"$TEST" "$P" "$BASE" "$CTL" "$ACK" >"$WORK/test.out" &
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
# the test's lines without its plan: the bench's are numbered on
grep -v '^1\.\.[0-9]*$' "$WORK/test.out"
TAP_N=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$WORK/test.out")
TAP_N=${TAP_N:-0}
[ "$RC" -ne 0 ] && TAP_FAILED=$((TAP_FAILED + 1))

if [ -n "$NFSX" ]; then
	timeout 120 "$NFSX" bench --eta=never nfs_version=4.1 --rw=randrw --rwmixread=50 \
		--bs=4k --iodepth=8 --numjobs=2 --size=4m --runtime=6s --time_based \
		--sync=1 --verify=crc32c --output-format=json "nfs://127.0.0.1:$P$R/bench" \
		>"$WORK/bench.out" 2>"$WORK/bench-err.log" &
	BPID=$!
	track_pid "$BPID"
	sleep 2
	again
	tap_ok $? "nfsxd killed with SIGKILL and started again under nfsx bench"
	wait "$BPID"
	BRC=$?
	forget_pid "$BPID"
	tap_ok "$BRC" "nfsx bench nfs_version=4.1 randrw sync=1 verify=crc32c across the restart: exit 0" ||
		tap_diag <"$WORK/bench-err.log"
	out=$(python3 - "$WORK/bench.out" "$TAP_N" <<'PY'
import json, sys
n = int(sys.argv[2])
def check(c, desc):
    global n
    n += 1
    print(("ok" if c else "not ok"), n, "-", desc)
try:
    d = json.load(open(sys.argv[1]))
    g = d["group"]
    v = g["verify"]
    check(g["errors"] == 0 and all(j["error"] == 0 for j in d["jobs"]),
          "bench: no errors (%d)" % g["errors"])
    check(v["enabled"] and v["bad_blocks"] == 0 and v["blocks_checked"] > 0,
          "bench: %d blocks verified, %d bad" % (v["blocks_checked"], v["bad_blocks"]))
    check(g["write"]["total_ios"] > 0 and g["read"]["total_ios"] > 0,
          "bench: %d WRITEs and %d READs" % (g["write"]["total_ios"], g["read"]["total_ios"]))
except Exception as e:
    check(False, "bench: JSON report read (%s)" % e)
PY
)
	echo "$out"
	TAP_N=$((TAP_N + $(grep -c '^\(not \)\?ok ' <<<"$out")))
	TAP_FAILED=$((TAP_FAILED + $(grep -c '^not ok ' <<<"$out")))
fi
echo "1..$TAP_N"
[ "$TAP_FAILED" -gt 0 ] && echo "# $TAP_FAILED of $TAP_N assertions failed"
finish "$TAP_FAILED" "rc:$SPID"
