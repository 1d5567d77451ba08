#!/bin/bash
# SPDX-License-Identifier: MIT
# TAP integration test: a client's writes cannot use the blocks ext4
# reserves for root. nfsxd acts as each client with the client's identity
# and, unlike setfsuid(2) alone, drops CAP_SYS_RESOURCE while it does, so
# a non-root client gets NFS3ERR_NOSPC where the server's root would still
# find room. A small ext4 image (half its blocks reserved) on a loop
# device, exported rw; the nfsx tool writes as uid 1000 more than a
# non-root user may. Needs root, loop devices, and CAP_SYS_RESOURCE in
# this machine's bounding set: without it the server could not use the
# reserved blocks anyway and the test could not fail (a skip then; the
# unit test vfs checks the thread's capability sets on every machine).
#
# Usage: test_nfsx_reserved.sh NFSXD NFSX

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
NFSX=$(realpath "${2:?usage: test_nfsx_reserved.sh NFSXD NFSX}")

if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP needs root (a loop mount)"
	exit 0
fi
cap_eff=$(awk '/^CapEff:/ { print $2 }' /proc/self/status)
if (( (0x$cap_eff >> 24 & 1) == 0 )); then
	echo "1..0 # SKIP root lacks CAP_SYS_RESOURCE here: reserved blocks are out of the server's reach anyway"
	exit 0
fi
if ! command -v mkfs.ext4 >/dev/null; then
	echo "1..0 # SKIP no mkfs.ext4 (e2fsprogs)"
	exit 0
fi

chmod 755 "$WORK"
EXP=$WORK/ext4
mkdir -p "$EXP"
truncate -s 64M "$WORK/ext4.img"
mkfs.ext4 -q -F -m 50 -b 4096 "$WORK/ext4.img" || { echo "Bail out! mkfs.ext4"; exit 1; }
if ! mount -o loop "$WORK/ext4.img" "$EXP" 2>"$WORK/mount.err"; then
	echo "1..0 # SKIP cannot loop-mount here: $(cat "$WORK/mount.err")"
	exit 0
fi
at_cleanup "umount -l '$EXP'"
chmod 1777 "$EXP"

pick_port P || { echo "Bail out! no free port"; exit 1; }
start_nfsxd reserved --no-rpcbind --port "$P" --bind 127.0.0.1 --log-level warn \
	--export "$EXP:rw"
PID=$SERVER_PID
if ! wait_port "$P" 10 "$PID"; then
	echo "Bail out! nfsxd did not start listening on 127.0.0.1:$P"
	show_log reserved
	exit 1
fi

# What a non-root user may still use, and what root may (KiB).
avail=$(df --output=avail -k "$EXP" | tail -1 | tr -d ' ')
free_root=$(( $(stat -f -c '%f * %S / 1024' "$EXP") ))
tap_ok $(( free_root < avail + 16384 )) \
	"the image reserves blocks for root (free $free_root KiB, $avail for others)"

# The client writes 8 MiB more than a non-root user may.
head -c $(( (avail + 8192) * 1024 )) /dev/zero >"$WORK/big"
timeout 120 "$NFSX" put "$WORK/big" "nfs://127.0.0.1:$P$EXP/big?uid=1000&gid=1000" \
	>"$WORK/put.out" 2>"$WORK/put-err.log"
rc=$?
tap_ok $(( rc == 0 )) "a uid 1000 client's write beyond its share fails (status $rc)"
grep -q NOSPC "$WORK/put-err.log"
tap_ok $? "with NFS3ERR_NOSPC" || tap_diag <"$WORK/put-err.log"
size=$(stat -c %s "$EXP/big" 2>/dev/null || echo 0)
tap_ok $(( size / 1024 > avail )) \
	"no reserved block was used ($((size / 1024)) KiB written, $avail allowed)"
# Control: root on the server itself does get the reserved blocks, so the
# assertions above could fail.
rm -f "$EXP/big"
dd if=/dev/zero of="$EXP/root" bs=1M count=$(( avail / 1024 + 4 )) status=none 2>/dev/null
tap_ok $? "root on the server itself writes past that share (the reserve exists)"
rm -f "$EXP/root"

if ! stop_nfsxd "$PID" "$STOP_TMO"; then
	tap_ok 1 "nfsxd exits on SIGTERM"
else
	tap_ok "$STOP_STATUS" "nfsxd exits 0 on SIGTERM"
fi
logs_clean
tap_ok $? "no sanitizer report from nfsxd"
tap_done
