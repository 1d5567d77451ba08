#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the nfs4-inline test: nfsxd (--log-level debug)
# exports a directory on tmpfs (/dev/shm) and, when $WORK is not on
# tmpfs, one on a disk, each with a file "f" of 256 KiB; runs
# test_nfs4_inline, stops nfsxd and checks that the count of COMPOUNDs
# run on event loops it logs at exit is the count the test expects.
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
chmod 755 "$WORK" "$MEM"
# byte i is i * 7 % 251
python3 -c 'import sys; sys.stdout.buffer.write(bytes(i * 7 % 251 for i in range(262144)))' \
	>"$MEM/f" || exit 1
EXPORTS=(--export "$MEM:ro,insecure")
DISK=-
case $(stat -f -c %T "$WORK") in
tmpfs | ramfs) ;;
*)
	DISK=$WORK/disk
	mkdir -p "$DISK" && cp "$MEM/f" "$DISK/f" || exit 1
	EXPORTS+=(--export "$DISK:ro,insecure")
	;;
esac

pick_port P || { echo "Bail out! no free port"; exit 1; }
serve inline "$P" --log-level debug \
	--nfs-vers 3,4 "${EXPORTS[@]}"
"$TEST" "$P" "$MEM" "$DISK" >"$WORK/out"
rc=$?
grep -v '^1\.\.' "$WORK/out"
TAP_N=$(grep -cE '^(not )?ok ' "$WORK/out")
TAP_FAILED=$(grep -cE '^not ok ' "$WORK/out")
want=$(sed -n 's/^# compounds on event loops: //p' "$WORK/out")

tap_ok "$(alive "$PID"; echo $?)" "nfsxd alive after the test"
stop_nfsxd "$PID" "$STOP_TMO"
tap_ok "$([ "$STOP_STATUS" -eq 0 ]; echo $?)" "nfsxd exits 0 on SIGTERM"
got=$(sed -n 's/.*NFSv4: \([0-9]*\) COMPOUND(s) ran on event loops.*/\1/p' "$WORK/inline.log")
tap_ok "$([ -n "$want" ] && [ "$got" = "$want" ]; echo $?)" \
	"COMPOUNDs run on event loops: ${got:-none logged}, the test expects ${want:-?}"
tap_ok "$(logs_clean; echo $?)" "no sanitizer report in the nfsxd log"
if [ "$rc" -ne 0 ] || [ "$TAP_FAILED" -gt 0 ]; then
	show_log inline
fi
[ "$rc" -eq 0 ] || TAP_FAILED=$((TAP_FAILED + 1))
tap_done
