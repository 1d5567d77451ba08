#!/bin/bash
# SPDX-License-Identifier: MIT
# TAP test of the bench/read-plus script (READ against READ_PLUS, nfsxd
# beside NFS-Ganesha): that it parses, refuses bad settings with exit
# status 2 before it needs root, and, as root with NFS-Ganesha installed,
# that a tiny run (1 MiB files, 1 run, tmpfs and the test's scratch
# directory) completes and prints every table and goal line, with the
# all-hole file's 1 MiB received by nfsxd's READ_PLUS as hole bytes.
# The figures of such a run mean nothing; the test checks the script, not
# the speed. Ganesha is never installed by the test: without it the run is
# skipped.
#
# Usage: test_bench_read_plus.sh NFSXD NFSX

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
NFSX=$(realpath "${2:?usage: test_bench_read_plus.sh NFSXD NFSX}")
SCRIPT=$(realpath "$(dirname "$0")/../../bench/read-plus")
BUILD=$(dirname "$(dirname "$(dirname "$NFSXD")")")
[ "$BUILD/tools/nfsx/nfsx" -ef "$NFSX" ] ||
	{ echo "Bail out! nfsxd and nfsx are not in one build directory"; exit 1; }

tap_check "bash -n bench/read-plus" bash -n "$SCRIPT"

# refused: exit status 2 and the message, whoever runs it
refused() { # EXPECTED_MESSAGE VAR=VALUE...
	local want=$1 out st
	shift
	out=$(env "$@" BUILD="$BUILD" bash "$SCRIPT" 2>&1)
	st=$?
	if [ "$st" -ne 2 ] || ! grep -q -- "$want" <<<"$out"; then
		tap_diag "exit status $st, output: $out"
		return 1
	fi
}
tap_check "SIZE not a multiple of 1 MiB: refused" refused "multiple of 1 MiB" SIZE=64k
tap_check "SIZE not a size: refused" refused "is not a size" SIZE=lots
tap_check "RUNS=0: refused" refused "RUNS is a positive integer" RUNS=0
tap_check "FS=xfs: refused" refused "FS holds tmpfs and/or ext4" FS=xfs
tap_check "NOISE not a number: refused" refused "NOISE is a number" NOISE=abc
tap_check "PEERS=nfsd: refused" refused "PEERS holds ganesha and/or knfsd" PEERS=nfsd
tap_check "LAYOUTS=mixed-2d: refused" refused "LAYOUTS holds some of" LAYOUTS=mixed-2d

if [ "$(id -u)" -ne 0 ]; then
	tap_skip "tiny run" "needs root (network namespace, rpcbind, Ganesha)"
	tap_done
fi
if ! command -v ganesha.nfsd >/dev/null ||
	! dpkg-query -W -f='${Status}' nfs-ganesha-vfs 2>/dev/null | grep -q "ok installed"; then
	tap_skip "tiny run" "NFS-Ganesha (nfs-ganesha, nfs-ganesha-vfs) not installed"
	tap_done
fi
for t in unshare rpcbind ip python3 findmnt; do
	if ! command -v "$t" >/dev/null; then
		tap_skip "tiny run" "$t not installed"
		tap_done
	fi
done

chmod 755 "$WORK"
SIZE=1m RUNS=1 FS="tmpfs ext4" DISK_DIR="$WORK" BUILD="$BUILD" \
	timeout 240 bash "$SCRIPT" >"$WORK/out.txt" 2>"$WORK/err.txt"
st=$?
tap_ok "$st" "tiny run (SIZE=1m RUNS=1) exits 0" || { tail -n 30 "$WORK/err.txt" | tap_diag; }
out=$WORK/out.txt

# has LINE_REGEX: the output has a line matching it
has() { grep -q -E -- "$1" "$out" || { tap_diag "no line matching: $1"; return 1; }; }
tap_check "a table per export and cache state (tmpfs warm, disk warm and cold)" \
	bash -c 'grep -q "^tmpfs, .*page cache warm" "$1" && grep -q "^ext4, .*page cache warm" "$1" &&
		grep -q "^ext4, .*page cache cold" "$1" && ! grep -q "^tmpfs, .*page cache cold" "$1"' _ "$out"
rows=0
for lay in alldata allhole mixed-4d mixed-8d mixed-16d mixed-32d mixed-4h mixed-8h mixed-16h mixed-32h; do
	n=$(grep -c -E "^$lay +\\| nfsxd READ_PLUS +\\| +[0-9.]+ \\|" "$out")
	rows=$((rows + n))
done
tap_ok "$([ "$rows" -eq 30 ] && echo 0 || echo 1)" "nfsxd READ_PLUS measured on 10 layouts x 3 (got $rows)"
# the all-hole file's 1 MiB came as a hole
tap_check "allhole: nfsxd READ_PLUS received 1.00 MiB of holes" \
	has '^allhole +\| nfsxd READ_PLUS +\|( +[0-9.]+ \|){3} +1\.00 \|'
tap_check "Ganesha's READ_PLUS is a row, figures or \"fails\"" \
	has '^alldata +\| Ganesha READ_PLUS +\| +([0-9.]+ \||fails \()'
tap_check "a ratio line per layout" has '^mixed-4h +\| READ_PLUS/READ nfsxd: time x[0-9.]+, wire x[0-9.]+'
tap_check "goal: never slower than READ" has '^  READ_PLUS never slower than READ .*: [0-9]+ of 30 at or under'
tap_check "goal: allhole wire and time, per table" \
	bash -c '[ "$(grep -c "^  allhole .*(goal < 1%).*(goal >= 5x)" "$1")" -eq 3 ]' _ "$out"
tap_check "goal: against Ganesha's READ_PLUS" has "^  faster than Ganesha's READ_PLUS on every layout: "
tap_check "the disk export's file system is named" grep -q "^ext4 export $WORK/read-plus\\..*: file system " "$WORK/err.txt"
tap_check "the scratch directory is removed" bash -c '! ls -d "$1"/read-plus.* 2>/dev/null' _ "$WORK"
tap_done
