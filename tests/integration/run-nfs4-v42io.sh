#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the nfs4-v42io test: nfsxd exports a directory on
# tmpfs (/dev/shm) and, when the scratch directory $WORK is on a disk
# file system (ext4 on the project's machines), one there too, each
# rw,no_root_squash; runs test_nfs4_v42io over both (files made and
# checked through the directories themselves), then checks that nfsxd
# is alive, exits 0 and logged no sanitizer report. Then a second nfsxd
# (tmpfs only, the debug log) serves test_nfs4_v42io --holemap alone: a
# sparse file read whole twice by READ_PLUS, whose second read must be
# answered from the remembered hole map: the log's count of READ_PLUS
# seeks made at exit is at most that of seeks answered from the map.
# An ext4 image on a loop device would need root and a free loop device
# (losetup, mkfs.ext4, mount): the scratch directory stands in for it
# where it is on ext4; where it is on tmpfs too the disk half is skipped.
#
# Usage: run-nfs4-v42io.sh NFSXD TEST_NFS4_V42IO

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-nfs4-v42io.sh NFSXD TEST_NFS4_V42IO}")

if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" != tmpfs ] ||
	! MEM=$(mktemp -d /dev/shm/nfsx-v42.XXXXXX 2>/dev/null); then
	echo "1..0 # SKIP no writable tmpfs at /dev/shm"
	exit 0
fi
at_cleanup "rm -rf '$MEM'"
chmod 755 "$WORK" "$MEM"
DIRS=("$MEM")
EXPORTS=(--export "$MEM:rw,no_root_squash,insecure")
case $(stat -f -c %T "$WORK") in
tmpfs | ramfs) ;;
*)
	mkdir -p "$WORK/disk" || exit 1
	DIRS+=("$WORK/disk")
	EXPORTS+=(--export "$WORK/disk:rw,no_root_squash,insecure")
	;;
esac

pick_port P || { echo "Bail out! no free port"; exit 1; }
serve v42io "$P" --nfs-vers 4 "${EXPORTS[@]}"
"$TEST" "$P" "${DIRS[@]}" >"$WORK/out"
rc=$?
grep -v '^1\.\.' "$WORK/out"
TAP_N=$(grep -cE '^(not )?ok ' "$WORK/out")
TAP_FAILED=$(grep -cE '^not ok ' "$WORK/out")
[ ${#DIRS[@]} -gt 1 ] ||
	tap_skip "the disk half" "the scratch directory is on tmpfs: no disk to export"

tap_ok "$(alive "$PID"; echo $?)" "nfsxd alive after the test"
stop_nfsxd "$PID" "$STOP_TMO"
tap_ok "$([ "$STOP_STATUS" -eq 0 ]; echo $?)" "nfsxd exits 0 on SIGTERM"
tap_ok "$(logs_clean; echo $?)" "no sanitizer report in the nfsxd log"
if [ "$rc" -ne 0 ] || [ "$TAP_FAILED" -gt 0 ]; then
	show_log v42io
fi

pick_port P2 || { echo "Bail out! no free port"; exit 1; }
serve v42hm "$P2" --log-level debug --nfs-vers 4 --export "$MEM:rw,no_root_squash,insecure"
"$TEST" --holemap "$P2" "$MEM" >"$WORK/out2"
rc2=$?
tap_diag <"$WORK/out2"
tap_ok "$rc2" "the --holemap run: the sparse file read twice, bytes as pread's"
stop_nfsxd "$PID" "$STOP_TMO"
tap_ok "$([ "$STOP_STATUS" -eq 0 ]; echo $?)" "the second nfsxd exits 0 on SIGTERM"
line=$(grep -o 'NFSv4: [0-9]* READ_PLUS seek(s) made, [0-9]* answered from the hole map' \
	"$WORK/v42hm.log")
made=$(echo "$line" | sed -n 's/NFSv4: \([0-9]*\) READ_PLUS.*/\1/p')
answered=$(echo "$line" | sed -n 's/.* made, \([0-9]*\) answered.*/\1/p')
tap_ok "$([ -n "$made" ] && [ "$made" -gt 0 ] && [ "$answered" -ge "$made" ]; echo $?)" \
	"READ_PLUS seeks: ${made:-?} made, ${answered:-?} answered from the hole map (the second read's)"
if [ "$rc2" -ne 0 ] || [ -z "$made" ]; then
	show_log v42hm
fi
[ "$rc" -eq 0 ] || TAP_FAILED=$((TAP_FAILED + 1))
tap_done
