# SPDX-License-Identifier: MIT
# Shared helpers for nfsxd's shell integration tests (sourced, not run):
# TAP output (tap_ok/tap_skip/tap_diag/tap_done), free-port picking on
# 127.0.0.1, starting nfsxd in the background with a log file, waiting
# for a port to accept, stopping a server (SIGTERM, wait, then SIGKILL)
# and a cleanup trap that stops everything the test started and removes
# its scratch directory. Every server is bound to 127.0.0.1 only.

set -u

TAP_N=0
TAP_FAILED=0
STARTED_PIDS=()
PICKED_PORTS=()
WORK=$(mktemp -d "${TMPDIR:-/tmp}/nfsx-it.XXXXXX")
RPCINFO=$(command -v rpcinfo 2>/dev/null || echo /usr/sbin/rpcinfo)

# tap_ok STATUS DESCRIPTION: STATUS 0 means pass (like an exit status).
tap_ok() {
	local st=$1
	shift
	TAP_N=$((TAP_N + 1))
	if [ "$st" -eq 0 ]; then
		echo "ok $TAP_N - $*"
	else
		echo "not ok $TAP_N - $*"
		TAP_FAILED=$((TAP_FAILED + 1))
	fi
	return "$st"
}

# tap_check DESCRIPTION COMMAND...: run COMMAND, pass if it exits 0.
tap_check() {
	local desc=$1
	shift
	"$@"
	tap_ok $? "$desc"
}

tap_skip() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $1 # SKIP ${2:-}"
}

# Diagnostics: every line of stdin (or of the arguments) prefixed "# ".
tap_diag() {
	if [ $# -gt 0 ]; then
		printf '%s\n' "$*" | sed 's/^/# /'
	else
		sed 's/^/# /'
	fi
}

tap_done() {
	echo "1..$TAP_N"
	if [ "$TAP_FAILED" -gt 0 ]; then
		echo "# $TAP_FAILED of $TAP_N assertions failed"
		exit 1
	fi
	exit 0
}

# pick_port VAR: set VAR to a TCP port on 127.0.0.1 that is free now and
# not picked before by this test (not run in $(...), which would lose the
# record of picked ports). The kernel hands out ephemeral ports, so a race
# with an unrelated process is unlikely.
pick_port() {
	local p i
	for i in 1 2 3 4 5 6 7 8 9 10; do
		p=$(python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
		case " ${PICKED_PORTS[*]-} " in
		*" $p "*) continue ;;
		esac
		PICKED_PORTS+=("$p")
		printf -v "$1" '%s' "$p"
		return 0
	done
	return 1
}

# lock_port PORT: wait until no other test run on this machine uses the
# fixed port PORT (111, 2049: the defaults, which a test cannot pick),
# and keep it so until unlock_port or exit. Sections that start a server
# on such a port, or check that nothing listens on it, hold the lock:
# two runs of the suites at once (another build, another checkout) would
# otherwise see each other's servers there (a second server cannot bind,
# "nothing listens on 111" finds the other's). The lock file is shared
# by every checkout; flock(1) lets it go when the holder dies.
lock_port() {
	exec {PORT_LOCK_FD}>>"${TMPDIR:-/tmp}/nfsx-tests-port-$1.lock" &&
		flock -w 600 "$PORT_LOCK_FD"
}

unlock_port() {
	[ -n "${PORT_LOCK_FD:-}" ] && exec {PORT_LOCK_FD}>&-
	PORT_LOCK_FD=
}

# Universal address of 127.0.0.1:PORT, as rpcbind writes it.
uaddr_of() {
	echo "127.0.0.1.$(($1 >> 8)).$(($1 & 255))"
}

# True if something accepts TCP connections on 127.0.0.1:PORT.
port_accepts() {
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# True if a TCP listener on 127.0.0.1:PORT (or any address) shows in ss.
port_listening() {
	ss -Hltn "sport = :$1" 2>/dev/null | grep -q .
}

# start_nfsxd NAME ARGS...: run nfsxd --foreground ARGS in the background,
# stdout+stderr to $WORK/NAME.log, state in $WORK/NAME.state (never the
# system default); sets SERVER_PID.
# NFSXD_WRAPPER, if set, is put before the command, e.g.
# NFSXD_WRAPPER='valgrind -q --error-exitcode=99' meson test nfs3-ns
# (a valgrind error then fails the test through nfsxd's exit status).
start_nfsxd() {
	local name=$1
	shift
	# shellcheck disable=SC2086 # the wrapper is a command line
	${NFSXD_WRAPPER:-} "$NFSXD" --foreground --state-dir "$WORK/$name.state" "$@" \
		>"$WORK/$name.log" 2>&1 &
	SERVER_PID=$!
	STARTED_PIDS+=("$SERVER_PID")
}

# serve NAME PORT ARGS...: start_nfsxd NAME --no-rpcbind --port PORT
# --bind 127.0.0.1 ARGS and wait for PORT, or bail out (TAP) with the log.
# Sets PID.
serve() {
	local name=$1 port=$2
	shift 2
	start_nfsxd "$name" --no-rpcbind --port "$port" --bind 127.0.0.1 "$@"
	PID=$SERVER_PID
	if ! wait_port "$port" 10 "$PID"; then
		echo "Bail out! nfsxd did not start listening on 127.0.0.1:$port"
		show_log "$name"
		exit 1
	fi
}

# wait_port PORT [TIMEOUT_S [PID]]: until 127.0.0.1:PORT accepts; fails
# early if PID has exited.
wait_port() {
	local port=$1 tmo=${2:-10} pid=${3:-} i
	for ((i = 0; i < tmo * 20; i++)); do
		if [ -n "$pid" ] && ! alive "$pid"; then
			return 1
		fi
		port_accepts "$port" && return 0
		sleep 0.05
	done
	return 1
}

# True if PID is running (a zombie child that has exited is not).
# A zombie is not alive. Nor is a pid that ps no longer finds: the shell
# reaps its exited children whenever it waits for any child, so nfsxd can
# vanish between kill -0 and ps (ps then prints nothing).
alive() {
	kill -0 "$1" 2>/dev/null || return 1
	case $(ps -o stat= -p "$1" 2>/dev/null) in
	"" | Z*) return 1 ;;
	esac
	return 0
}

# How long the end of a test waits for nfsxd after SIGTERM: its own grace
# for calls in flight (5 s, STOP_GRACE_MS) plus a margin, so that a slow
# (sanitizer) build finishing a late call is not taken for a hang. A stop
# slower than a second is reported as a TAP comment either way.
STOP_TMO=10

# stop_nfsxd PID [TIMEOUT_S]: SIGTERM, wait up to TIMEOUT_S (default 5)
# for it to exit, then SIGKILL. Sets STOP_STATUS (exit status, 128+sig
# if killed), STOP_MS (ms from SIGTERM to exit) and STOP_KILLED (1 if
# SIGKILL was needed). Returns 0 if it exited on its own.
stop_nfsxd() {
	local pid=$1 tmo=${2:-5} t0 i
	STOP_KILLED=0
	t0=$(date +%s%N)
	kill -TERM "$pid" 2>/dev/null
	for ((i = 0; i < tmo * 50; i++)); do
		alive "$pid" || break
		sleep 0.02
	done
	STOP_MS=$((($(date +%s%N) - t0) / 1000000))
	if alive "$pid"; then
		STOP_KILLED=1
		echo "# nfsxd (pid $pid) still there after $STOP_MS ms, $i checks:" \
			"$(ps -o pid=,stat=,wchan= -L -p "$pid" 2>&1 | tr '\n' ';')"
		kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid" 2>/dev/null
	STOP_STATUS=$?
	[ "$STOP_MS" -gt 1000 ] && echo "# nfsxd (pid $pid) took $STOP_MS ms to stop after SIGTERM"
	forget_pid "$pid"
	[ "$STOP_KILLED" -eq 0 ]
}

forget_pid() {
	local p keep=()
	for p in "${STARTED_PIDS[@]-}"; do
		[ -n "$p" ] && [ "$p" != "$1" ] && keep+=("$p")
	done
	STARTED_PIDS=("${keep[@]-}")
}

# Remember another background process (e.g. a port squatter) for cleanup.
track_pid() {
	STARTED_PIDS+=("$1")
}

cleanup() {
	local p
	for p in "${STARTED_PIDS[@]-}"; do
		[ -n "$p" ] || continue
		kill -TERM "$p" 2>/dev/null
	done
	sleep 0.2
	for p in "${STARTED_PIDS[@]-}"; do
		[ -n "$p" ] || continue
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	STARTED_PIDS=()
	for p in "${AT_CLEANUP[@]-}"; do
		[ -n "$p" ] && eval "$p"
	done
	AT_CLEANUP=()
	if [ -z "${KEEP_WORK:-}" ]; then
		rm -rf "$WORK"
	fi
}
# at_cleanup CMD: run CMD when the test ends, after the servers are
# stopped and before $WORK is removed (umount a file system mounted in it).
AT_CLEANUP=()
at_cleanup() {
	AT_CLEANUP+=("$1")
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# need_nfsxd PATH: set NFSXD, or bail out (TAP "Bail out!").
need_nfsxd() {
	NFSXD=${1:-}
	if [ -z "$NFSXD" ] || [ ! -x "$NFSXD" ]; then
		echo "Bail out! nfsxd executable not given or not executable: '${NFSXD}'"
		exit 1
	fi
	NFSXD=$(realpath "$NFSXD")
}

# True if no server log so far holds a sanitizer or UBSan report (they
# do not always change the exit status) or nfsxd's own "internal error"
# (a check at exit that found a bug, e.g. a change mark never ended).
logs_clean() {
	local f
	f=$(grep -l -E 'Sanitizer|runtime error:|internal error:' "$WORK"/*.log 2>/dev/null) ||
		return 0
	# Show the report, so that a failure in CI can be diagnosed from its log.
	for f in $f; do
		echo "# --- sanitizer report or internal error in $(basename "$f") ---"
		grep -h -E -A 30 'Sanitizer|runtime error:|internal error:' "$f" | head -60 | tap_diag
	done
	return 1
}

# Show a server log as TAP diagnostics.
show_log() {
	echo "# --- $1 ---"
	if [ -s "$WORK/$1.log" ]; then
		head -c 4000 "$WORK/$1.log" | tap_diag
	else
		echo "# (empty)"
	fi
}

# finish RC NAME:PID...: the end of a wrapper, after its test program
# exited with RC: every server must still be alive, exit 0 within $STOP_TMO s of
# SIGTERM, and leave no sanitizer report in its log. Shows the logs and
# exits 1 when anything failed, else exits 0.
finish() {
	local rc=$1 status=0 x name pid
	shift
	for x in "$@"; do
		name=${x%%:*}
		pid=${x#*:}
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
		echo "# sanitizer report or internal error in an nfsxd log"
		status=1
	fi
	if [ "$rc" -ne 0 ] || [ "$status" -ne 0 ]; then
		for x in "$@"; do
			show_log "${x%%:*}"
		done
		exit 1
	fi
	exit 0
}
