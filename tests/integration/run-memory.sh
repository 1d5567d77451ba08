#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the rpc-memory test (src/rpc/budget.c, connection
# limits, repeated --bind):
#   load    nfsxd with --max-total-bytes 64 MiB and an export on the
#           scratch directory's (disk) file system: 1000 idle connections,
#           then half records and pipelined 1 MiB WRITEs; RSS and a
#           well-behaved client's replies (test_rpc_memory load).
#   drain   nfsxd with --max-total-bytes 8 MiB: 200 whole 1 MiB WRITEs at
#           once all complete (test_rpc_memory drain): no stall.
#   limits  nfsxd with --idle-timeout 2 --max-conns-per-client 3
#           (test_rpc_memory limits; 1 MiB READs of exp/big for a peer
#           that does not read its replies).
#   bind    nfsxd with --bind 127.0.0.1 --bind ::1 and its embedded
#           rpcbind on a picked port: NULL answered on both addresses, by
#           NFS and by rpcbind (skipped when ::1 cannot be bound here).
# Every server is stopped by SIGTERM and must exit 0 with a clean log.
#
# Usage: run-memory.sh NFSXD TEST_RPC_MEMORY

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-memory.sh NFSXD TEST_RPC_MEMORY}")
TOTAL=$((64 << 20))

# nfsxd and the test each hold about 1100 sockets.
ulimit -n 4096 2>/dev/null || ulimit -n "$(ulimit -Hn)"

mkdir -p "$WORK/exp" || exit 1
: >"$WORK/exp/f"
head -c $((1 << 20)) /dev/zero >"$WORK/exp/big"
chmod 644 "$WORK/exp/big"
printf '%s 127.0.0.1(rw,no_root_squash,insecure)\n' "$WORK/exp" >"$WORK/exports"

pick_port P || { echo "Bail out! no free port"; exit 1; }
start_nfsxd load --no-rpcbind --port "$P" --bind 127.0.0.1 --log-level warn \
	--threads 2 --max-conns 2000 --max-total-bytes "$TOTAL" \
	--exports-file "$WORK/exports"
LOAD=$SERVER_PID
pick_port D || { echo "Bail out! no free port"; exit 1; }
start_nfsxd drain --no-rpcbind --port "$D" --bind 127.0.0.1 --log-level warn \
	--threads 2 --max-total-bytes $((8 << 20)) --exports-file "$WORK/exports"
DRAIN=$SERVER_PID
pick_port Q || { echo "Bail out! no free port"; exit 1; }
start_nfsxd limits --no-rpcbind --port "$Q" --bind 127.0.0.1 --log-level warn \
	--idle-timeout 2 --max-conns-per-client 3 --exports-file "$WORK/exports"
LIMITS=$SERVER_PID
for x in "$P:$LOAD:load" "$D:$DRAIN:drain" "$Q:$LIMITS:limits"; do
	IFS=: read -r port pid name <<<"$x"
	if ! wait_port "$port" 10 "$pid"; then
		echo "Bail out! nfsxd ($name) did not start listening on 127.0.0.1:$port"
		show_log "$name"
		exit 1
	fi
done

# RSS bounds mean nothing in a sanitizer build (shadow memory, quarantine).
NFSX_TEST_SANITIZED=
if grep -a -q -e __asan_init -e __tsan_init -e __msan_init "$NFSXD"; then
	NFSX_TEST_SANITIZED=1
fi
export NFSX_TEST_SANITIZED

# Each part prints its own plan: run them as TAP subtests' lines, one plan.
rc=0
out=$("$TEST" load "$P" "$LOAD" "$TOTAL" "$WORK/exp") || rc=1
out2=$("$TEST" drain "$D" "$WORK/exp") || rc=1
out2=$out2$'\n'$("$TEST" limits "$Q" "$WORK/exp") || rc=1

# --bind twice, IPv4 and IPv6, with the embedded rpcbind on each. One
# python3 for every NULL call (its start is slow on a loaded machine).
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
bind_nulls() { # ADDR:PORT:PROG...: one line "STATUS ADDR PORT PROG" each
	"$PY" - "$@" <<'PY'
import socket, struct, sys
for arg in sys.argv[1:]:
    addr, port, prog = arg.rsplit(':', 2)
    port, prog = int(port), int(prog)
    vers = 2 if prog == 100000 else 3
    st = 1
    try:
        s = socket.socket(socket.AF_INET6 if ':' in addr else socket.AF_INET)
        s.settimeout(5)
        s.connect((addr, port))
        call = struct.pack('>10I', 0x1234, 0, 2, prog, vers, 0, 0, 0, 0, 0)
        s.sendall(struct.pack('>I', 0x80000000 | len(call)) + call)
        buf = b''
        while len(buf) < 28:
            d = s.recv(64)
            if not d:
                break
            buf += d
        xid, mtype, stat, _, _, acc = struct.unpack('>6I', buf[4:28])
        st = 0 if (xid, mtype, stat, acc) == (0x1234, 1, 0, 0) else 1
    except (OSError, struct.error):
        pass
    print(st, addr, port, prog)
PY
}
bind_tap=()
if "$PY" -c 'import socket; socket.socket(socket.AF_INET6).bind(("::1", 0))' 2>/dev/null; then
	pick_port B || { echo "Bail out! no free port"; exit 1; }
	pick_port R || { echo "Bail out! no free port"; exit 1; }
	start_nfsxd bind --port "$B" --rpcbind-port "$R" --bind 127.0.0.1 --bind ::1 \
		--log-level warn
	BIND=$SERVER_PID
	if wait_port "$B" 10 "$BIND"; then
		while read -r st a p prog; do
			if [ "$prog" = 100000 ]; then
				bind_tap+=("$st:rpcbind NULL on $a port $p (embedded, on each address)")
			else
				bind_tap+=("$st:NFS NULL on $a with --bind 127.0.0.1 --bind ::1")
			fi
		done < <(bind_nulls "127.0.0.1:$B:100003" "127.0.0.1:$R:100000" \
			"::1:$B:100003" "::1:$R:100000")
		[ "${#bind_tap[@]}" -eq 4 ] || bind_tap+=("1:four NULL calls made")
	else
		bind_tap+=("1:nfsxd --bind 127.0.0.1 --bind ::1 listens")
	fi
else
	bind_tap+=("SKIP:--bind 127.0.0.1 --bind ::1: ::1 cannot be bound on this machine (no IPv6 loopback)")
fi

# One TAP stream: the parts' lines renumbered, one plan at the end.
while IFS= read -r line; do
	case $line in
	1..*) ;;
	"ok "*) tap_ok 0 "${line#ok * - }" ;;
	"not ok "*) tap_ok 1 "${line#not ok * - }" ;;
	*) echo "$line" ;;
	esac
done <<<"$out
$out2"
for t in "${bind_tap[@]}"; do
	case $t in
	SKIP:*) tap_skip "${t#SKIP:}" ;;
	*) tap_ok "${t%%:*}" "${t#*:}" ;;
	esac
done
for x in "load:$LOAD" "drain:$DRAIN" "limits:$LIMITS" ${BIND:+"bind:$BIND"}; do
	name=${x%%:*}
	pid=${x#*:}
	alive "$pid"
	tap_ok $? "nfsxd ($name) alive at the end"
	stop_nfsxd "$pid" "$STOP_TMO"
	tap_ok $? "nfsxd ($name) exits on SIGTERM (status $STOP_STATUS)"
	[ "$STOP_STATUS" -eq 0 ] || rc=1
done
logs_clean
tap_ok $? "no sanitizer report in the server logs"
[ "$TAP_FAILED" -eq 0 ] && [ "$rc" -eq 0 ] || for n in load drain limits bind; do show_log "$n"; done
tap_done
