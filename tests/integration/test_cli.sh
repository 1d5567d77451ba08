#!/bin/bash
# SPDX-License-Identifier: MIT
# TAP test of nfsxd's command line and process behaviour: --help lists
# every option, --version, bad options exit 2 with a message, a port in
# use exits 1 naming the port, SIGTERM exits 0 within 2 s (also with an
# idle client connected), default bind address and port, --no-rpcbind
# binds no rpcbind port, and a real RPC client (rpcinfo from Debian's
# rpcbind package) gets NULL replies from NFS 3 and MOUNT 3 and a
# version mismatch for NFS 4.
#
# Usage: test_cli.sh NFSXD [EXPECTED_VERSION]

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
VERSION=${2:-}

# ---- --help -------------------------------------------------------------
timeout 5 "$NFSXD" --help >"$WORK/help.out" 2>"$WORK/help.err"
rc=$?
tap_ok $((rc != 0)) "--help exits 0 (got $rc)"
[ -s "$WORK/help.out" ]
tap_ok $? "--help prints usage on stdout"
for opt in --port --bind --no-rpcbind --rpcbind-port --export \
	--exports-file --state-dir --foreground --log-level --threads \
	--max-record --max-inflight --max-unsent --max-conns --drc-size --workers \
	--loop-slice-us --busy-poll-us --max-conn-bytes --max-total-bytes \
	--idle-timeout --max-conns-per-client \
	--help --version; do
	grep -q -e "$opt\\b" "$WORK/help.out"
	tap_ok $? "--help mentions $opt"
done
for lvl in error warn info debug; do
	grep -q -w -e "$lvl" "$WORK/help.out"
	tap_ok $? "--help mentions log level '$lvl'"
done

# ---- --version ----------------------------------------------------------
timeout 5 "$NFSXD" --version >"$WORK/version.out" 2>"$WORK/version.err"
rc=$?
tap_ok $((rc != 0)) "--version exits 0 (got $rc)"
if [ -n "$VERSION" ]; then
	grep -q -F "$VERSION" "$WORK/version.out" &&
		grep -q nfsxd "$WORK/version.out"
	tap_ok $? "--version prints a line with 'nfsxd' and '$VERSION'"
else
	grep -Eq 'nfsxd.*[0-9]+\.[0-9]+' "$WORK/version.out"
	tap_ok $? "--version prints a line with 'nfsxd' and a version number"
fi
tap_diag "version: $(head -1 "$WORK/version.out")"

# ---- bad options --------------------------------------------------------
# A server that wrongly accepted the option would start serving: --port
# on a free port and --no-rpcbind keep it off 2049 and 111, timeout
# bounds it.
pick_port P
bad_opt() {
	local rc
	timeout 5 "$NFSXD" "$@" >"$WORK/bad.out" 2>"$WORK/bad.err"
	rc=$?
	tap_ok $((rc != 2)) "nfsxd $* exits 2 (got $rc)"
	[ -s "$WORK/bad.err" ]
	tap_ok $? "nfsxd $* prints a message on stderr"
	tap_diag "stderr: $(head -2 "$WORK/bad.err")"
}
bad_opt --no-rpcbind --port 70000
bad_opt --no-rpcbind --port abc
bad_opt --no-rpcbind --port -1
bad_opt --no-rpcbind --port ''
bad_opt --no-rpcbind --port 80x
bad_opt --no-rpcbind --port
bad_opt --no-rpcbind --port "$P" --bogus-option
bad_opt --no-rpcbind --port "$P" --log-level loud
bad_opt --no-rpcbind --port "$P" --rpcbind-port 99999
bad_opt --no-rpcbind --port "$P" --threads abc
bad_opt --no-rpcbind --port "$P" --max-record abc
bad_opt --no-rpcbind --port "$P" --max-inflight xyz
bad_opt --no-rpcbind --port "$P" --max-unsent 12q
bad_opt --no-rpcbind --port "$P" --workers 0
bad_opt --no-rpcbind --port "$P" --busy-poll-us -1
bad_opt --no-rpcbind --port "$P" --loop-slice-us 1000000
bad_opt --no-rpcbind --port "$P" --bind 999.1.2.3

# ---- port already in use --------------------------------------------------
pick_port P
python3 -c 'import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(8)
print("listening", flush=True)
time.sleep(60)' "$P" >"$WORK/squat.out" 2>&1 &
SQUAT=$!
track_pid "$SQUAT"
wait_port "$P" 5 "$SQUAT"
t0=$(date +%s%N)
timeout 10 "$NFSXD" --foreground --state-dir "$WORK/inuse.state" --no-rpcbind --port "$P" >"$WORK/inuse.out" 2>"$WORK/inuse.err"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
tap_ok $((rc != 1)) "port $P in use: exits 1 (got $rc)"
grep -q -w -e "$P" "$WORK/inuse.err"
tap_ok $? "port in use: stderr names port $P"
tap_ok $((ms > 2000)) "port in use: exits within 2 s (took $ms ms)"
tap_diag "stderr: $(head -3 "$WORK/inuse.err")"
kill "$SQUAT" 2>/dev/null
wait "$SQUAT" 2>/dev/null
forget_pid "$SQUAT"

# Same with a second nfsxd holding the port.
pick_port P
start_nfsxd first --no-rpcbind --port "$P"
A=$SERVER_PID
if wait_port "$P" 10 "$A"; then
	timeout 10 "$NFSXD" --foreground --state-dir "$WORK/inuse2.state" --no-rpcbind --port "$P" >"$WORK/inuse2.out" 2>"$WORK/inuse2.err"
	rc=$?
	tap_ok $((rc != 1)) "port held by another nfsxd: second exits 1 (got $rc)"
	grep -q -w -e "$P" "$WORK/inuse2.err"
	tap_ok $? "port held by another nfsxd: stderr names port $P"
	alive "$A"
	tap_ok $? "the first nfsxd is unaffected"
else
	tap_ok 1 "nfsxd --no-rpcbind --port $P starts listening"
	show_log first
fi
stop_nfsxd "$A" 5

# ---- SIGTERM ------------------------------------------------------------
pick_port P
start_nfsxd term --no-rpcbind --port "$P"
S=$SERVER_PID
if wait_port "$P" 10 "$S"; then
	stop_nfsxd "$S" 5
	tap_ok $((STOP_KILLED || STOP_MS > 2000)) "SIGTERM: exits within 2 s (took $STOP_MS ms)"
	tap_ok "$STOP_STATUS" "SIGTERM: exit status 0 (got $STOP_STATUS)"
	port_accepts "$P"
	tap_ok $((! $?)) "after exit nothing listens on $P"
else
	tap_ok 1 "server starts for the SIGTERM test"
	show_log term
	stop_nfsxd "$S" 1
fi

# SIGTERM with an idle client connection open must not hang.
pick_port P
start_nfsxd term2 --no-rpcbind --port "$P"
S=$SERVER_PID
if wait_port "$P" 10 "$S"; then
	exec 7<>"/dev/tcp/127.0.0.1/$P"
	sleep 0.2
	stop_nfsxd "$S" 5
	tap_ok $((STOP_KILLED || STOP_MS > 2000)) "SIGTERM with an idle client connected: exits within 2 s (took $STOP_MS ms)"
	tap_ok "$STOP_STATUS" "SIGTERM with an idle client connected: exit status 0 (got $STOP_STATUS)"
	exec 7<&-
else
	tap_ok 1 "server starts for the idle-client SIGTERM test"
	show_log term2
	stop_nfsxd "$S" 1
fi

# ---- default bind address and port ----------------------------------------
pick_port P
start_nfsxd bind --no-rpcbind --port "$P"
S=$SERVER_PID
if wait_port "$P" 10 "$S"; then
	l=$(ss -Hltn "sport = :$P" | awk '{print $4}' | sort -u | tr '\n' ' ')
	[ "$l" = "127.0.0.1:$P " ]
	tap_ok $? "default bind: listens on 127.0.0.1:$P only (ss: $l)"
else
	tap_ok 1 "server starts without --bind"
	show_log bind
fi
stop_nfsxd "$S" 5

lock_port 2049
if port_listening 2049; then
	tap_skip "default port 2049" "something already listens on 2049"
else
	start_nfsxd default --no-rpcbind
	S=$SERVER_PID
	wait_port 2049 10 "$S"
	tap_ok $? "no --port: listens on 127.0.0.1:2049"
	stop_nfsxd "$S" 5
fi
unlock_port

# ---- connections already waiting when the event loops start -------------
# The listener is bound before the loops run, so clients can be queued in
# its backlog when the first loop starts (a regression: that loop once dealt
# them out before the loop count was set, and died of a division by zero).
storm_died=0
for i in 1 2 3 4 5 6 7 8 9 10; do
	pick_port P
	python3 -c '
import socket, sys, time
port, end = int(sys.argv[1]), time.time() + 1.0
while time.time() < end:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
    except OSError:
        pass
' "$P" &
	storm=$!
	sleep 0.3 # python is connecting (and refused) by now
	start_nfsxd "storm$i" --no-rpcbind --port "$P"
	S=$SERVER_PID
	sleep 0.4
	alive "$S" || { storm_died=$((storm_died + 1)); show_log "storm$i"; }
	wait "$storm"
	stop_nfsxd "$S" 5
done
[ $storm_died -eq 0 ]
tap_ok $? "started 10 times under a connection storm: $storm_died died"

# ---- --no-rpcbind and rpcinfo -------------------------------------------
if [ ! -x "$RPCINFO" ]; then
	tap_skip "rpcinfo checks" "rpcinfo not installed (apt-get install rpcbind)"
	tap_done
fi
lock_port 111   # until the end: the check of 111 below
had111=0
port_listening 111 && had111=1
pick_port P
A=$(uaddr_of "$P")
start_nfsxd rpcinfo --no-rpcbind --port "$P" \
	--busy-poll-us 50 --loop-slice-us 0
S=$SERVER_PID
if wait_port "$P" 10 "$S"; then
	if [ "$had111" -eq 0 ]; then
		port_listening 111
		tap_ok $((! $?)) "--no-rpcbind: nothing listens on port 111"
	else
		tap_skip "--no-rpcbind leaves port 111 alone" "port 111 was already in use"
	fi
	for prog in 100003 100005; do
		out=$(timeout 10 "$RPCINFO" -a "$A" -T tcp $prog 3 2>&1)
		rc=$?
		[ $rc -eq 0 ] && echo "$out" | grep -q "program $prog version 3 ready and waiting"
		tap_ok $? "rpcinfo -a $A -T tcp $prog 3: ready and waiting"
		tap_diag "$out"
	done
	# NFSv4 is served by default.
	out=$(timeout 10 "$RPCINFO" -a "$A" -T tcp 100003 4 2>&1)
	rc=$?
	[ $rc -eq 0 ] && echo "$out" | grep -q "program 100003 version 4 ready and waiting"
	tap_ok $? "rpcinfo -a $A -T tcp 100003 4: ready and waiting (NFSv4 by default), rc $rc"
	tap_diag "$out"
	out=$(timeout 10 "$RPCINFO" -a "$A" -T tcp 100003 5 2>&1)
	rc=$?
	[ $rc -ne 0 ] && echo "$out" | grep -Eq 'low version = 3, high version = 4'
	tap_ok $? "rpcinfo 100003 5: version mismatch, supported range 3..4, rc $rc"
	tap_diag "$out"
	# Without a version rpcinfo probes the range and pings each.
	out=$(timeout 10 "$RPCINFO" -a "$A" -T tcp 100003 2>&1)
	echo "$out" | grep -q "program 100003 version 3 ready and waiting" &&
		echo "$out" | grep -q "program 100003 version 4 ready and waiting"
	tap_ok $? "rpcinfo -a $A -T tcp 100003 (all versions): versions 3 and 4 ready"
	tap_diag "$out"
	out=$(timeout 10 "$RPCINFO" -a "$A" -T tcp 100000 2 2>&1)
	tap_ok $((! $?)) "--no-rpcbind: program 100000 not served on the main port"
	tap_diag "$out"
	alive "$S"
	st=$?
	tap_ok $st "server survived the rpcinfo calls"
	[ $st -eq 0 ] || show_log rpcinfo
else
	tap_ok 1 "server starts for the rpcinfo test"
	show_log rpcinfo
fi
stop_nfsxd "$S" 5
tap_ok "$STOP_STATUS" "rpcinfo server exits 0 on SIGTERM"

# --nfs-vers 3: NFSv3 alone.
start_nfsxd rpcinfo3 --no-rpcbind --port "$P" --nfs-vers 3
S=$SERVER_PID
if wait_port "$P" 10 "$S"; then
	out=$(timeout 10 "$RPCINFO" -a "$A" -T tcp 100003 4 2>&1)
	rc=$?
	[ $rc -ne 0 ] && echo "$out" | grep -Eq 'low version = 3, high version = 3'
	tap_ok $? "--nfs-vers 3: rpcinfo 100003 4 is a version mismatch, range 3..3, rc $rc"
	tap_diag "$out"
else
	tap_ok 1 "server starts with --nfs-vers 3"
	show_log rpcinfo3
fi
stop_nfsxd "$S" 5
tap_ok "$STOP_STATUS" "--nfs-vers 3 server exits 0 on SIGTERM"

logs_clean
tap_ok $? "no sanitizer report in any nfsxd log"

tap_done
