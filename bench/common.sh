# shellcheck shell=bash disable=SC2034 # the variables set here are used by the scripts
# bench/common.sh - helpers sourced by the bench/ runner scripts.
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
	median_fmt %.1f "$@"
}

# median_fmt FORMAT V...: median of numbers, printed with printf FORMAT.
median_fmt() {
	local fmt=$1
	shift
	printf '%s\n' "$@" | sort -g | awk -v fmt="$fmt\n" '{ a[NR] = $1 }
		END { if (NR == 0) m = 0; else if (NR % 2) m = a[(NR + 1) / 2];
		      else m = (a[NR / 2] + a[NR / 2 + 1]) / 2;
		      printf fmt, m }'
}

# find_build DIR ROOT: DIR, or ROOT/DIR if DIR is relative and only that exists.
find_build() {
	if [[ ! -d $1 && $1 != /* && -d $2/$1 ]]; then
		echo "$2/$1"
	else
		echo "$1"
	fi
}

# ---- NFS-Ganesha beside nfsxd (bench/vs-ganesha, bench/readdir) ----
#
# Ganesha will not start unless it can register with rpcbind, and Debian's
# rpcbind listens on all interfaces. So these scripts, run as root, re-execute
# themselves in a private network namespace (only lo) with a private /run
# (unshare -n -m): see bench/ganesha/README.md.

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rpcbind_pid=

# ganesha_prepare NAME TOOL...: outside the namespace: exit unless root,
# install Ganesha and each missing TOOL (or one the namespace needs) with
# apt-get, exit if one is still missing.
ganesha_prepare() {
	if [[ $(id -u) != 0 ]]; then
		echo "$1: must run as root (private network namespace, rpcbind, Ganesha)" >&2
		exit 2
	fi
	if ! command -v ganesha.nfsd >/dev/null || ! dpkg -s nfs-ganesha-vfs >/dev/null 2>&1; then
		echo "installing nfs-ganesha nfs-ganesha-vfs" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y nfs-ganesha nfs-ganesha-vfs >&2
	fi
	netns_prepare "$@"
}

# netns_prepare NAME TOOL...: outside the namespace: exit unless root,
# install each missing TOOL (or one the namespace needs: rpcbind, unshare,
# ip) with apt-get, exit if one is still missing.
netns_prepare() {
	local name=$1 t
	shift
	if [[ $(id -u) != 0 ]]; then
		echo "$name: must run as root (private network namespace, rpcbind)" >&2
		exit 2
	fi
	for t in rpcbind unshare ip "$@"; do
		command -v "$t" >/dev/null && continue
		local pkg=$t
		case $t in unshare) pkg=util-linux ;; ip) pkg=iproute2 ;; esac
		echo "installing $pkg" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y "$pkg" >&2
		command -v "$t" >/dev/null || { echo "$name: $t not found" >&2; exit 2; }
	done
}

# netns_setup TAG: inside the new namespace: bring lo up, mount a private
# tmpfs (named TAG) on /run and make Ganesha's directories.  glibc's
# getaddrinfo (AI_ADDRCONFIG, used by Ganesha for Bind_addr) wants an IPv4
# address other than 127.0.0.1: lo gets a documentation-range one (still
# only on lo, in this namespace).
netns_setup() {
	ip link set lo up
	ip addr add 192.0.2.1/32 dev lo
	mount -t tmpfs "$1" /run
	mkdir -p /run/ganesha /run/rpcbind /var/lib/nfs/ganesha
}

# rpcbind_start LOG: start rpcbind (for Ganesha only) and wait up to 5 s
# for its port.  Sets rpcbind_pid.
rpcbind_start() {
	local i
	rpcbind -f -w >"$1" 2>&1 &
	rpcbind_pid=$!
	for ((i = 0; i < 50; i++)); do
		(exec 3<>/dev/tcp/127.0.0.1/111) 2>/dev/null && break
		sleep 0.1
	done
}

# rpcbind_stop: stop rpcbind if rpcbind_start started it.
rpcbind_stop() {
	[[ -n $rpcbind_pid ]] || return 0
	kill -TERM "$rpcbind_pid" 2>/dev/null || true
	wait "$rpcbind_pid" 2>/dev/null || true
	rpcbind_pid=
}

# launch_ganesha PORT LOG: a start_server launcher.  Writes
# $work/ganesha.conf from bench/ganesha/ganesha.conf.in (NFS on PORT, MOUNT
# on $gan_mnt_port, exporting $gan_dir as /export) and starts ganesha.nfsd
# in the foreground (-F, so that $! is its pid), logging to LOG.
# shellcheck disable=SC2154 # work, gan_dir and gan_mnt_port are the caller's
launch_ganesha() {
	sed -e "s/@NFS_PORT@/$1/" -e "s/@MNT_PORT@/$gan_mnt_port/" \
		-e "s#@EXPORT_DIR@#$gan_dir#" "$bench_dir/ganesha/ganesha.conf.in" >"$work/ganesha.conf"
	ganesha.nfsd -F -f "$work/ganesha.conf" -L "$2" -p "$work/ganesha.pid" -N NIV_EVENT &
}

# ---- Linux's NFS server (knfsd) beside nfsxd, in a guest (bench/read-plus) ----
#
# knfsd runs in the kernel, so it is measured in a guest (bench/vm/in-vm)
# that boots a Debian kernel and sees this machine's tree. Its user-space
# half (rpc.nfsd, rpc.mountd, exportfs) is this machine's if installed,
# else Debian's nfs-kernel-server unpacked by bench/vm/fetch-knfsd.sh.

knfsd_sbin=

# knfsd_prepare NAME: outside the guest: set knfsd_sbin to a directory with
# rpc.nfsd, rpc.mountd and exportfs; exit if there is none.
knfsd_prepare() {
	local dir
	if command -v rpc.nfsd >/dev/null && command -v rpc.mountd >/dev/null && command -v exportfs >/dev/null; then
		knfsd_sbin=$(dirname "$(command -v rpc.nfsd)")
		return 0
	fi
	dir=${NFSX_CACHE:-/var/cache/nfsx}/nfs-kernel-server
	"$bench_dir/vm/fetch-knfsd.sh" "$dir" >&2 || { echo "$1: no knfsd tools" >&2; exit 2; }
	knfsd_sbin=$dir/root/usr/sbin
}

# launch_knfsd PORT LOG: a start_server launcher, in the guest's network
# namespace: knfsd serving NFSv4.1 and 4.2 only (no MOUNT, no rpcbind) on
# 127.0.0.1:PORT, exporting $knfsd_dir as the NFSv4 root (fsid=0: a tmpfs
# has no UUID to name it by), with a 10 s grace period ended at once (no
# client has state to reclaim). rpc.mountd, which answers the kernel's
# export lookups, runs in the foreground: its pid is the one tracked.
# shellcheck disable=SC2154 # knfsd_dir is the caller's
launch_knfsd() {
	local port=$1 log=$2
	{
		mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd
		echo 10 >/proc/fs/nfsd/nfsv4gracetime
		# as nfsxd's: the largest READ the bench asks for (knfsd's
		# default is smaller on a guest of less than 4 GiB)
		echo 1048576 >/proc/fs/nfsd/max_block_size
		"$knfsd_sbin/exportfs" -o rw,no_root_squash,insecure,no_subtree_check,fsid=0 "127.0.0.1:$knfsd_dir"
		"$knfsd_sbin/rpc.nfsd" -H 127.0.0.1 -p "$port" -N 3 -N 4.0 -V 4.1 -V 4.2 8
		echo Y >/proc/fs/nfsd/v4_end_grace
	} >"$log" 2>&1
	"$knfsd_sbin/rpc.mountd" -F -N 2 -N 3 --no-udp >>"$log" 2>&1 &
}

# knfsd_stop: stop knfsd's threads and unexport (rpc.mountd is stopped with
# the other servers).
knfsd_stop() {
	[[ -e /proc/fs/nfsd/threads ]] || return 0
	"$knfsd_sbin/rpc.nfsd" 0 2>/dev/null || true
	"$knfsd_sbin/exportfs" -ua 2>/dev/null || true
	umount /proc/fs/nfsd 2>/dev/null || true
}
