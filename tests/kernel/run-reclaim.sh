#!/usr/bin/env bash
# The Linux kernel client across a server restart: nfsxd (NFSv4, a 10 s
# lease) serves a guest (run.sh -T reclaim, guest/reclaim.sh) that holds
# a file open and locked; once the guest says it is ready (a file in the
# export), nfsxd is killed with SIGKILL and started again on the same
# port and state directory, so the client must reclaim in its grace
# period. Each guest step becomes one TAP line.
#   run-reclaim.sh NFSXD VERSION      (4.0 or 4.1)
# Needs what run-kernel.sh needs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../integration/lib.sh"
. "$here/tap.sh"
need_nfsxd "${1:-}"
vers=${2:-4.1}

missing=
for t in qemu-system-x86_64 busybox cpio; do
	command -v "$t" >/dev/null || missing="$missing $t"
done
ls /boot/vmlinuz-* >/dev/null 2>&1 || missing="$missing linux-image"
if [ -n "$missing" ] || [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP kernel client test needs root and:${missing:- nothing}"
	exit 0
fi

export_dir=$WORK/export
mkdir -p "$export_dir"
pick_port P || { echo "Bail out! no free port"; exit 1; }
args=(--no-rpcbind --port "$P" --bind 127.0.0.1 --nfs-vers 3,4 --lease-time 10
      --export "$export_dir:rw,no_root_squash,insecure")
start_nfsxd reclaim "${args[@]}"
S=$SERVER_PID
if ! wait_port "$P" 10 "$S"; then
	echo "Bail out! nfsxd did not start"
	show_log reclaim
	exit 1
fi

"$here/run.sh" -p "$P" -e "$export_dir" -m "$P" -l "$WORK/logs" -T reclaim -t 300 "$vers" \
	>"$WORK/kclient.out" 2>&1 &
R=$!
# the guest's signal, then the restart (the first run's log is kept)
restarted=no
for _ in $(seq 600); do
	if [ -e "$export_dir/reclaim-ready" ]; then
		kill -KILL "$S"
		wait "$S" 2>/dev/null
		mv "$WORK/reclaim.log" "$WORK/reclaim-1.log"
		start_nfsxd reclaim "${args[@]}"
		S=$SERVER_PID
		wait_port "$P" 10 "$S" && restarted=yes
		break
	fi
	kill -0 "$R" 2>/dev/null || break
	sleep 0.5
done
wait "$R"
rc=$?
n=1
[ $restarted = yes ] && echo "ok 1 - nfsxd killed with SIGKILL while the guest held its file, and restarted" ||
	echo "not ok 1 - the guest never said it was ready, or nfsxd did not restart"
kclient_tap "$WORK/kclient.out" "$vers" "$rc"
stop_nfsxd "$S" 10
n=$((n + 1))
[ "$STOP_STATUS" -eq 0 ] && echo "ok $n - the restarted nfsxd exits 0 on SIGTERM" ||
	echo "not ok $n - the restarted nfsxd exits $STOP_STATUS on SIGTERM"
echo "1..$n"
