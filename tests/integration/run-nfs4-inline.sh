#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the nfs4-inline test: nfsxd (--log-level debug)
# exports a directory on tmpfs (/dev/shm) and, when $WORK is not on
# tmpfs, one on a disk, each with a file "f" of 256 KiB and two sparse
# files of 4 MiB, "h" all hole and "s" with 8 KiB of data (and on tmpfs
# "t" of 1 MiB, 64 KiB of it in 4 KiB stripes), read-only, and
# another on tmpfs with a file "w" (0666) read-write; runs
# test_nfs4_inline, stops nfsxd and checks that the counts of COMPOUNDs
# run on event loops and on workers it logs at exit are the counts the
# test expects, and so the count of READ and READ_PLUS data sent from a
# file's mapping.
#
# Usage: run-nfs4-inline.sh NFSXD TEST_NFS4_INLINE

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-nfs4-inline.sh NFSXD TEST_NFS4_INLINE}")

if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" != tmpfs ] ||
	! MEM=$(mktemp -d /dev/shm/nfsx-inl.XXXXXX 2>/dev/null); then
	echo "1..0 # SKIP no writable tmpfs at /dev/shm"
	exit 0
fi
at_cleanup "rm -rf '$MEM'"
MEMW=$(mktemp -d /dev/shm/nfsx-inw.XXXXXX) || { echo "Bail out! no directory in /dev/shm"; exit 1; }
at_cleanup "rm -rf '$MEMW'"
: >"$MEMW/w"
chmod 666 "$MEMW/w"
chmod 755 "$WORK" "$MEM" "$MEMW"
# byte i is i * 7 % 251
python3 -c 'import sys; sys.stdout.buffer.write(bytes(i * 7 % 251 for i in range(262144)))' \
	>"$MEM/f" || exit 1
# h: 4 MiB of hole; s: f's first 8 KiB, then a hole to 4 MiB
truncate -s 4M "$MEM/h" || exit 1
head -c 8192 "$MEM/f" >"$MEM/s" && truncate -s 4M "$MEM/s" || exit 1
# t: f's bytes in the first 4 KiB of every 8 KiB below 128 KiB, holes
# elsewhere to 1 MiB (finer than the map's seeks go)
python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
for k in range(16):
    off = k * 8192
    os.pwrite(fd, bytes((off + i) * 7 % 251 for i in range(4096)), off)
os.ftruncate(fd, 1 << 20)
os.close(fd)' "$MEM/t" || exit 1
EXPORTS=(--export "$MEM:ro,insecure" --export "$MEMW:rw,no_root_squash,insecure")
DISK=-
case $(stat -f -c %T "$WORK") in
tmpfs | ramfs) ;;
*)
	DISK=$WORK/disk
	mkdir -p "$DISK" && cp "$MEM/f" "$DISK/f" && cp --sparse=always "$MEM/h" "$MEM/s" "$DISK/" ||
		exit 1
	EXPORTS+=(--export "$DISK:ro,insecure")
	# a READ_PLUS trusts a file's remembered hole map only once its
	# ctime is a second old (rp_cache.h)
	sleep 1.1
	;;
esac

pick_port P || { echo "Bail out! no free port"; exit 1; }
serve inline "$P" --log-level debug \
	--nfs-vers 3,4 "${EXPORTS[@]}"
"$TEST" "$P" "$MEM" "$DISK" "$MEMW" >"$WORK/out"
rc=$?
grep -v '^1\.\.' "$WORK/out"
TAP_N=$(grep -cE '^(not )?ok ' "$WORK/out")
TAP_FAILED=$(grep -cE '^not ok ' "$WORK/out")
want=$(sed -n 's/^# compounds on event loops: //p' "$WORK/out")
want_w=$(sed -n 's/^# compounds on workers: //p' "$WORK/out")
want_m=$(sed -n 's/^# reads from a mapping: //p' "$WORK/out")

tap_ok "$(alive "$PID"; echo $?)" "nfsxd alive after the test"
stop_nfsxd "$PID" "$STOP_TMO"
tap_ok "$([ "$STOP_STATUS" -eq 0 ]; echo $?)" "nfsxd exits 0 on SIGTERM"
counts='s/.*NFSv4: \([0-9]*\) COMPOUND(s) ran on event loops, \([0-9]*\) on workers.*/'
got=$(sed -n "${counts}\1/p" "$WORK/inline.log")
got_w=$(sed -n "${counts}\2/p" "$WORK/inline.log")
tap_ok "$([ -n "$want" ] && [ "$got" = "$want" ]; echo $?)" \
	"COMPOUNDs run on event loops: ${got:-none logged}, the test expects ${want:-?}"
tap_ok "$([ -n "$want_w" ] && [ "$got_w" = "$want_w" ]; echo $?)" \
	"COMPOUNDs run on workers: ${got_w:-none logged}, the test expects ${want_w:-?}"
got_m=$(sed -n 's/.*NFSv4: \([0-9]*\) READ or READ_PLUS data range(s) sent from a file.s mapping.*/\1/p' "$WORK/inline.log")
tap_ok "$([ -n "$want_m" ] && [ "$got_m" = "$want_m" ]; echo $?)" \
	"READ and READ_PLUS data sent from a mapping: ${got_m:-none logged}, the test expects ${want_m:-?}"
tap_ok "$(logs_clean; echo $?)" "no sanitizer report in the nfsxd log"
if [ "$rc" -ne 0 ] || [ "$TAP_FAILED" -gt 0 ]; then
	show_log inline
fi
[ "$rc" -eq 0 ] || TAP_FAILED=$((TAP_FAILED + 1))
tap_done
