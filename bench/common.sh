# shellcheck shell=bash disable=SC2034 # the variables set here are used by the scripts
# bench/common.sh - helpers sourced by bench/rpc-null and bench/fairness.
#
# Servers are tracked in the arrays srv_pids/srv_names/srv_logs so that
# stop_servers (called from the scripts' EXIT trap) can stop them all.

srv_pids=()
srv_names=()
srv_logs=()
used_ports=()

# parse_pin MODE: set client_pin/server_pin (taskset prefixes) for a CPU
# placement: none, split (client on CPU 0, servers on the others) or shared
# (everything on CPU 0).
parse_pin() {
	local ncpu
	ncpu=$(getconf _NPROCESSORS_ONLN)
	client_pin=()
	server_pin=()
	hog_cpu=
	case $1 in
	none) return 0 ;;
	split)
		((ncpu >= 2)) || { echo "-p split needs at least 2 CPUs" >&2; return 1; }
		client_pin=(taskset -c 0)
		server_pin=(taskset -c "1-$((ncpu - 1))")
		;;
	shared)
		client_pin=(taskset -c 0)
		server_pin=(taskset -c 0)
		;;
	isolate)
		# Server and the measured client share CPUs 1..n-1; a load
		# generator's busy thread (the fairness hog) goes to CPU 0,
		# as if it ran on another machine.
		((ncpu >= 2)) || { echo "-p isolate needs at least 2 CPUs" >&2; return 1; }
		client_pin=(taskset -c "1-$((ncpu - 1))")
		server_pin=(taskset -c "1-$((ncpu - 1))")
		hog_cpu=0
		;;
	*) echo "bad placement '$1' (none, split, shared or isolate)" >&2; return 1 ;;
	esac
	command -v taskset >/dev/null || { echo "-p $1 needs taskset (util-linux)" >&2; return 1; }
}

# pick_port [EXCLUDED...]: print a TCP port that is free on 127.0.0.1 now.
# It is taken below the kernel's ephemeral range, so that outgoing
# connections (and their TIME_WAIT remains) of other programs on a busy
# machine cannot grab it between this check and the server's bind().
pick_port() {
	python3 - "$@" <<'EOF'
import random, socket, sys
lo = 32768
try:
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        lo = int(f.read().split()[0])
except (OSError, ValueError, IndexError):
    pass
excluded = {int(a) for a in sys.argv[1:]}
candidates = list(range(10000, lo)) if lo > 11000 else []
random.shuffle(candidates)
for port in candidates[:500]:
    if port in excluded:
        continue
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
    except OSError:
        continue
    finally:
        s.close()
    print(port)
    sys.exit(0)
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
EOF
}

# wait_ready PID PORT: wait up to 10 s for PORT on 127.0.0.1 to accept a
# connection.  Returns 1 if PID exits first or on timeout.
wait_ready() {
	local n
	for ((n = 0; n < 100; n++)); do
		kill -0 "$1" 2>/dev/null || return 1
		if (exec 3<>"/dev/tcp/127.0.0.1/$2") 2>/dev/null; then
			return 0
		fi
		sleep 0.1
	done
	return 1
}

# start_server NAME LOG LAUNCHER: pick a port, run "LAUNCHER PORT LOG" (which
# must start the server in the background) and wait until it accepts
# connections; retry with another port if the server exits because its port
# was taken meanwhile.  Sets started_port.  Returns 1 on failure.
start_server() {
	local name=$1 log=$2 launcher=$3 try pid idx
	for try in 1 2 3; do
		started_port=$(pick_port "${used_ports[@]}")
		used_ports+=("$started_port")
		"$launcher" "$started_port" "$log"
		pid=$!
		idx=${#srv_pids[@]}
		srv_pids+=("$pid")
		srv_names+=("$name")
		srv_logs+=("$log")
		if wait_ready "$pid" "$started_port"; then
			return 0
		fi
		if kill -0 "$pid" 2>/dev/null; then
			echo "$name does not accept connections on port $started_port after 10 s" >&2
			return 1
		fi
		wait "$pid" 2>/dev/null || true
		unset "srv_pids[$idx]" "srv_names[$idx]" "srv_logs[$idx]"
		grep -qi 'in use' "$log" || break
		echo "($name: port $started_port was taken meanwhile; trying another, $try/3)" >&2
	done
	echo "$name failed to start; its output:" >&2
	tail -n 20 "$log" >&2 || true
	return 1
}

# check_servers: exit 1 (with the server's output) if one has died.
check_servers() {
	local i
	for i in "${!srv_pids[@]}"; do
		if ! kill -0 "${srv_pids[$i]}" 2>/dev/null; then
			echo "${srv_names[$i]} exited unexpectedly; its output:" >&2
			tail -n 20 "${srv_logs[$i]}" >&2 || true
			wait "${srv_pids[$i]}" 2>/dev/null || true
			unset "srv_pids[$i]"
			exit 1
		fi
	done
}

# stop_servers: SIGTERM every server, wait up to 5 s each, then SIGKILL.
stop_servers() {
	local i pid n
	for i in "${!srv_pids[@]}"; do
		pid=${srv_pids[$i]}
		kill -TERM "$pid" 2>/dev/null || continue
		for ((n = 0; n < 50; n++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		if kill -0 "$pid" 2>/dev/null; then
			echo "${srv_names[$i]} did not exit within 5 s of SIGTERM; killing it" >&2
			kill -KILL "$pid" 2>/dev/null || true
		fi
		wait "$pid" 2>/dev/null || true
	done
	srv_pids=()
}

# median V...: median of numbers, printed with one decimal.
median() {
	printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 }
		END { if (NR == 0) m = 0; else if (NR % 2) m = a[(NR + 1) / 2];
		      else m = (a[NR / 2] + a[NR / 2 + 1]) / 2;
		      printf "%.1f\n", m }'
}

# find_build DIR ROOT: DIR, or ROOT/DIR if DIR is relative and only that exists.
find_build() {
	if [[ ! -d $1 && $1 != /* && -d $2/$1 ]]; then
		echo "$2/$1"
	else
		echo "$1"
	fi
}
