#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the nfs4-bulk test: nfsxd (--log-level debug)
# exports a directory on tmpfs (/dev/shm) read-write with an empty file
# "f" and another read-only with a file "g"; runs test_nfs4_bulk, stops
# nfsxd and checks that the count of WRITEs received straight into the
# file it logs at exit is the count the test expects.
#
# Usage: run-nfs4-bulk.sh NFSXD TEST_NFS4_BULK

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-nfs4-bulk.sh NFSXD TEST_NFS4_BULK}")

if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" != tmpfs ] ||
	! RW=$(mktemp -d /dev/shm/nfsx-bulk.XXXXXX 2>/dev/null); then
	echo "1..0 # SKIP no writable tmpfs at /dev/shm"
	exit 0
fi
at_cleanup "rm -rf '$RW'"
RO=$(mktemp -d /dev/shm/nfsx-bulkro.XXXXXX) || { echo "Bail out! no directory in /dev/shm"; exit 1; }
at_cleanup "rm -rf '$RO'"
: >"$RW/f"
chmod 666 "$RW/f"
echo g >"$RO/g"
chmod 755 "$WORK" "$RW" "$RO"

pick_port P || { echo "Bail out! no free port"; exit 1; }
serve bulk "$P" --log-level debug --nfs-vers 3,4 \
	--export "$RW:rw,no_root_squash,insecure" --export "$RO:ro,insecure"
"$TEST" "$P" "$RW" "$RO" >"$WORK/out"
rc=$?
grep -v '^1\.\.' "$WORK/out"
TAP_N=$(grep -cE '^(not )?ok ' "$WORK/out")
TAP_FAILED=$(grep -cE '^not ok ' "$WORK/out")
want=$(sed -n 's/^# writes received into the file: //p' "$WORK/out")

tap_ok "$(alive "$PID"; echo $?)" "nfsxd alive after the test"
stop_nfsxd "$PID" "$STOP_TMO"
tap_ok "$([ "$STOP_STATUS" -eq 0 ]; echo $?)" "nfsxd exits 0 on SIGTERM"
got=$(sed -n 's/.*NFSv4: \([0-9]*\) WRITE(s) received straight into the file.*/\1/p' "$WORK/bulk.log")
tap_ok "$([ -n "$want" ] && [ "$got" = "$want" ]; echo $?)" \
	"WRITEs received straight into the file: ${got:-none logged}, the test expects ${want:-?}"
tap_ok "$(logs_clean; echo $?)" "no sanitizer report and no internal error in the nfsxd log"
if [ "$rc" -ne 0 ] || [ "$TAP_FAILED" -gt 0 ]; then
	show_log bulk
fi
[ "$rc" -eq 0 ] || TAP_FAILED=$((TAP_FAILED + 1))
tap_done
