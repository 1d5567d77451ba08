#!/bin/bash
# SPDX-License-Identifier: MIT
# TAP test of nfsxd's embedded rpcbind. (a) On a test-picked rpcbind
# port Q: rpcinfo pings PMAP 2 and RPCBIND 3/4; PMAP GETPORT and DUMP and
# RPCBIND GETADDR/DUMP (via rpcbind_query) map NFS 3 and MOUNT 3 to the
# main port P; PMAP SET/UNSET and RPCBIND v3/v4 SET/UNSET of a fake
# program from root (a reserved port on localhost) work, recorded as
# "superuser"; from an unreserved port, and as user nobody, SET and
# UNSET (of nfsxd's own programs too) answer false and change nothing;
# the rpcbind program is served on P too. (b) The real port 111, only when
# running as root with 111 free: rpcinfo -p and rpcinfo -T tcp. (c) A
# second nfsxd whose --rpcbind-port is held by the first registers
# there, collides, logs about it and keeps serving on its own port.
#
# Usage: test_rpcbind.sh NFSXD RPCBIND_QUERY

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
RQ=$(realpath "${2:?usage: test_rpcbind.sh NFSXD RPCBIND_QUERY}")
HAVE_RPCINFO=1
[ -x "$RPCINFO" ] || HAVE_RPCINFO=0
# Calls as a local user who is not root.
AS_NOBODY=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
HAVE_NOBODY=0
[ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null &&
	"${AS_NOBODY[@]}" test -x "$RQ" && HAVE_NOBODY=1

# check_eq DESC EXPECTED COMMAND...: stdout of COMMAND equals EXPECTED.
check_eq() {
	local desc=$1 want=$2 got rc
	shift 2
	got=$("$@" 2>"$WORK/cmd.err")
	rc=$?
	[ $rc -eq 0 ] && [ "$got" = "$want" ]
	tap_ok $? "$desc (got '$got', rc $rc)" || tap_diag "$(cat "$WORK/cmd.err")"
}

# (a) ---------------------------------------------------------------------
pick_port P
pick_port Q
UP=$(uaddr_of "$P")
start_nfsxd embedded --port "$P" --rpcbind-port "$Q"
S=$SERVER_PID
if wait_port "$P" 10 "$S" && wait_port "$Q" 10 "$S"; then
	tap_ok 0 "nfsxd --port $P --rpcbind-port $Q listens on both"
	if [ "$HAVE_RPCINFO" -eq 1 ]; then
		for v in 2 3 4; do
			out=$(timeout 10 "$RPCINFO" -a "$(uaddr_of "$Q")" -T tcp 100000 $v 2>&1)
			rc=$?
			[ $rc -eq 0 ] && echo "$out" | grep -q "program 100000 version $v ready and waiting"
			tap_ok $? "rpcinfo -a <Q> -T tcp 100000 $v: ready and waiting" || tap_diag "$out"
		done
		out=$(timeout 10 "$RPCINFO" -a "$UP" -T tcp 100000 2 2>&1)
		tap_ok $? "rpcinfo -a <P> -T tcp 100000 2: rpcbind also served on the main port" ||
			tap_diag "$out"
	else
		tap_skip "rpcinfo pings of 100000" "rpcinfo not installed"
	fi
	for v in 2 3 4; do
		check_eq "raw NULL to 100000 v$v on Q" SUCCESS "$RQ" "$Q" null 100000 $v
	done

	check_eq "PMAP GETPORT 100003 3 tcp -> $P" "$P" "$RQ" "$Q" getport 100003 3
	check_eq "PMAP GETPORT 100005 3 tcp -> $P" "$P" "$RQ" "$Q" getport 100005 3
	check_eq "PMAP GETPORT via main port P: 100003 3 -> $P" "$P" "$RQ" "$P" getport 100003 3
	# NFSv4 is served by default (--nfs-vers 3 turns it off), and
	# registered like version 3
	check_eq "PMAP GETPORT 100003 4 tcp -> $P" "$P" "$RQ" "$Q" getport 100003 4
	check_eq "PMAP GETPORT 399999 1 (unknown) -> 0" 0 "$RQ" "$Q" getport 399999 1

	"$RQ" "$Q" dump >"$WORK/dump.out" 2>&1
	tap_ok $? "PMAP DUMP succeeds"
	grep -qx "100003 3 6 $P" "$WORK/dump.out"
	tap_ok $? "PMAP DUMP lists 100003 3 tcp $P"
	grep -qx "100003 4 6 $P" "$WORK/dump.out"
	tap_ok $? "PMAP DUMP lists 100003 4 tcp $P"
	grep -qx "100005 3 6 $P" "$WORK/dump.out"
	tap_ok $? "PMAP DUMP lists 100005 3 tcp $P"
	tap_diag <"$WORK/dump.out"

	for rv in 3 4; do
		check_eq "RPCBIND v$rv GETADDR 100003 3 tcp -> $UP" "$UP" \
			"$RQ" "$Q" getaddr $rv 100003 3 tcp
		check_eq "RPCBIND v$rv GETADDR 100005 3 tcp -> $UP" "$UP" \
			"$RQ" "$Q" getaddr $rv 100005 3 tcp
		check_eq "RPCBIND v$rv GETADDR of an unregistered program -> \"\"" "" \
			"$RQ" "$Q" getaddr $rv 399999 1 tcp
		"$RQ" "$Q" rpcbdump $rv >"$WORK/rpcbdump.out" 2>&1
		rc=$?
		grep -q "^100003 3 tcp $UP " "$WORK/rpcbdump.out"
		tap_ok $((rc || $?)) "RPCBIND v$rv DUMP lists 100003 3 tcp $UP"
		tap_diag <"$WORK/rpcbdump.out"
	done

	if [ "$(id -u)" -eq 0 ]; then
		# PMAP SET/UNSET from root on this host (RFC 1833 semantics):
		# loopback and a reserved source port.
		check_eq "PMAP SET 400000 1 tcp 1234 -> true" true "$RQ" -r "$Q" set 400000 1 6 1234
		check_eq "PMAP GETPORT 400000 1 -> 1234" 1234 "$RQ" "$Q" getport 400000 1
		"$RQ" "$Q" dump 2>&1 | grep -qx "400000 1 6 1234"
		tap_ok $? "PMAP DUMP lists 400000 1 tcp 1234"
		out=$("$RQ" "$Q" getaddr 3 400000 1 tcp 2>&1)
		tap_diag "RPCBIND v3 GETADDR 400000 1 tcp -> '$out'"
		check_eq "PMAP SET of an existing [prog,vers,prot] with another port -> false" \
			false "$RQ" -r "$Q" set 400000 1 6 4321
		check_eq "... and the mapping stays 1234" 1234 "$RQ" "$Q" getport 400000 1
		check_eq "PMAP UNSET 400000 1 -> true" true "$RQ" -r "$Q" unset 400000 1 6 0
		check_eq "PMAP GETPORT 400000 1 after UNSET -> 0" 0 "$RQ" "$Q" getport 400000 1
		check_eq "PMAP UNSET of nothing -> false" false "$RQ" -r "$Q" unset 400000 1 6 0
		check_eq "NFS mapping untouched by the fake program" "$P" "$RQ" "$Q" getport 100003 3
		for rv in 3 4; do
			check_eq "RPCBIND v$rv SET 400001 $rv tcp from root -> true" true \
				"$RQ" -r "$Q" rbset $rv 400001 $rv tcp 127.0.0.1.4.210
			"$RQ" "$Q" rpcbdump $rv 2>&1 | grep -qx "400001 $rv tcp 127.0.0.1.4.210 superuser"
			tap_ok $? "RPCBIND v$rv DUMP: 400001 $rv owned by superuser"
			check_eq "RPCBIND v$rv UNSET 400001 $rv tcp from root -> true" true \
				"$RQ" -r "$Q" rbunset $rv 400001 $rv tcp
		done

		# Root, but from an ephemeral port: not provably root, refused.
		check_eq "PMAP SET from an unreserved port -> false" false \
			"$RQ" "$Q" set 400000 1 6 1234
		check_eq "... nothing registered" 0 "$RQ" "$Q" getport 400000 1
		check_eq "PMAP UNSET of NFS from an unreserved port -> false" false \
			"$RQ" "$Q" unset 100003 3 6 0
		check_eq "RPCBIND v4 UNSET of NFS from an unreserved port -> false" false \
			"$RQ" "$Q" rbunset 4 100003 3 tcp
	else
		tap_skip "SET/UNSET from a reserved port" "not running as root"
	fi
	# A local user who is not root (user nobody) tries to unregister
	# nfsxd's programs.
	if [ "$HAVE_NOBODY" -eq 0 ]; then
		tap_skip "as user nobody" "not root, no setpriv, or $RQ not executable by nobody"
	else
		! "${AS_NOBODY[@]}" "$RQ" -r "$Q" null 100000 2 2>/dev/null
		tap_ok $? "nobody cannot call from a reserved port"
		for rv in 3 4; do
			check_eq "nobody: RPCBIND v$rv UNSET 100003 3 tcp -> false" false \
				"${AS_NOBODY[@]}" "$RQ" "$Q" rbunset $rv 100003 3 tcp
		done
		check_eq "nobody: PMAP UNSET 100003 3 -> false" false \
			"${AS_NOBODY[@]}" "$RQ" "$Q" unset 100003 3 6 0
		check_eq "nobody: PMAP UNSET 100005 3 -> false" false \
			"${AS_NOBODY[@]}" "$RQ" "$Q" unset 100005 3 6 0
		check_eq "nobody: PMAP SET 400000 1 -> false" false \
			"${AS_NOBODY[@]}" "$RQ" "$Q" set 400000 1 6 1234
		"$RQ" "$Q" dump >"$WORK/dump2.out" 2>&1
		grep -qx "100003 3 6 $P" "$WORK/dump2.out" &&
			grep -qx "100005 3 6 $P" "$WORK/dump2.out" &&
			! grep -q "^400000 " "$WORK/dump2.out"
		tap_ok $? "PMAP DUMP afterwards: NFS and MOUNT still mapped, nothing added"
		tap_diag <"$WORK/dump2.out"
	fi

	alive "$S"
	tap_ok $? "server alive after rpcbind calls"
else
	tap_ok 1 "nfsxd --port $P --rpcbind-port $Q listens on both"
	show_log embedded
fi
stop_nfsxd "$S" 5
tap_ok "$STOP_STATUS" "embedded: SIGTERM exit status 0 (got $STOP_STATUS, $STOP_MS ms)"
! port_accepts "$Q"
tap_ok $? "embedded: rpcbind port $Q closed after exit"

# (b) ---------------------------------------------------------------------
lock_port 111
if [ "$(id -u)" -ne 0 ]; then
	tap_skip "real port 111" "not running as root"
elif ss -Hltn 'sport = :111' | grep -q .; then
	tap_skip "real port 111" "something already listens on TCP port 111"
elif [ "$HAVE_RPCINFO" -eq 0 ]; then
	tap_skip "real port 111" "rpcinfo not installed"
else
	pick_port P
	start_nfsxd real111 --port "$P"
	S=$SERVER_PID
	if wait_port "$P" 10 "$S" && wait_port 111 10 "$S"; then
		tap_ok 0 "nfsxd --port $P binds the rpcbind port 111"
		l=$(ss -Hltn 'sport = :111' | awk '{print $4}' | sort -u | tr '\n' ' ')
		[ "$l" = "127.0.0.1:111 " ]
		tap_ok $? "port 111 bound on 127.0.0.1 only (ss: $l)"
		out=$(timeout 10 "$RPCINFO" -p 127.0.0.1 2>&1)
		rc=$?
		echo "$out" | grep -Eq "^ *100003 +3 +tcp +$P( |$)"
		tap_ok $((rc || $?)) "rpcinfo -p 127.0.0.1 lists 100003 3 tcp $P"
		echo "$out" | grep -Eq "^ *100005 +3 +tcp +$P( |$)"
		tap_ok $((rc || $?)) "rpcinfo -p 127.0.0.1 lists 100005 3 tcp $P"
		tap_diag "$out"
		# rpcinfo -d cannot be the non-root client here: libtirpc's
		# rpcb_unset tries the AF_UNIX socket, then ::1, where nfsxd
		# does not listen. The raw client calls 127.0.0.1 port 111.
		if [ "$HAVE_NOBODY" -eq 1 ]; then
			check_eq "nobody: PMAP UNSET 100003 3 on port 111 -> false" false \
				"${AS_NOBODY[@]}" "$RQ" 111 unset 100003 3 6 0
			out=$(timeout 10 "$RPCINFO" -p 127.0.0.1 2>&1)
			echo "$out" | grep -Eq "^ *100003 +3 +tcp +$P( |$)"
			tap_ok $? "rpcinfo -p 127.0.0.1 still lists 100003 3 tcp $P"
		fi
		for prog in 100003 100005; do
			out=$(timeout 10 "$RPCINFO" -T tcp 127.0.0.1 $prog 3 2>&1)
			rc=$?
			[ $rc -eq 0 ] && echo "$out" | grep -q "program $prog version 3 ready and waiting"
			tap_ok $? "rpcinfo -T tcp 127.0.0.1 $prog 3: ready and waiting" ||
				tap_diag "$out"
		done
	else
		tap_ok 1 "nfsxd --port $P binds the rpcbind port 111"
		show_log real111
	fi
	stop_nfsxd "$S" 5
	tap_ok "$STOP_STATUS" "port 111: SIGTERM exit status 0 (got $STOP_STATUS)"
	! port_accepts 111
	tap_ok $? "port 111 released after exit"
fi
unlock_port

# (c) ---------------------------------------------------------------------
pick_port P1
pick_port P2
pick_port Q
start_nfsxd ownerA --port "$P1" --rpcbind-port "$Q"
A=$SERVER_PID
if wait_port "$P1" 10 "$A" && wait_port "$Q" 10 "$A"; then
	start_nfsxd clientB --port "$P2" --rpcbind-port "$Q"
	B=$SERVER_PID
	wait_port "$P2" 10 "$B"
	tap_ok $? "B (--port $P2 --rpcbind-port $Q, Q held by A) listens on $P2"
	sleep 1
	alive "$B"
	tap_ok $? "B keeps running after finding $Q taken"
	check_eq "B serves NFS NULL on $P2" SUCCESS "$RQ" "$P2" null 100003 3
	check_eq "B serves MOUNT NULL on $P2" SUCCESS "$RQ" "$P2" null 100005 3
	check_eq "A's mapping 100003 3 -> $P1 not overwritten by B" "$P1" \
		"$RQ" "$Q" getport 100003 3
	check_eq "A's mapping 100005 3 -> $P1 not overwritten by B" "$P1" \
		"$RQ" "$Q" getport 100005 3
	grep -Eqi 'regist|rpcbind|portmap|pmap' "$WORK/clientB.log"
	tap_ok $? "B logs about the rpcbind registration conflict"
	show_log clientB
	stop_nfsxd "$B" 5
	tap_ok "$STOP_STATUS" "B: SIGTERM exit status 0 (got $STOP_STATUS)"
	# B failed to register, so B's exit must not remove A's mappings.
	check_eq "A's mapping 100003 3 -> $P1 survives B's exit" "$P1" \
		"$RQ" "$Q" getport 100003 3
	alive "$A"
	tap_ok $? "A still running"
else
	tap_ok 1 "A (--port $P1 --rpcbind-port $Q) listens on both"
	show_log ownerA
fi
stop_nfsxd "$A" 5
tap_ok "$STOP_STATUS" "A: SIGTERM exit status 0 (got $STOP_STATUS)"

logs_clean
tap_ok $? "no sanitizer report in any nfsxd log"

tap_done
