#!/bin/bash
# SPDX-License-Identifier: MIT
# TAP test of bench/read-plus with PEERS=knfsd: Linux's own NFS server
# beside nfsxd, both in a guest that bench/vm/in-vm boots (QEMU's software
# emulation here, so that the test runs the same on every machine; the
# figures of such a run mean nothing, the test checks the harness). A tiny
# run (two 1 MiB files, 1 run, tmpfs) must complete and print knfsd's READ
# and READ_PLUS rows and the goal line against knfsd, with the
# all-hole file's 1 MiB received by nfsxd's READ_PLUS as hole bytes; and
# the refusals of bench/vm/in-vm. Skipped without root, QEMU, a static
# busybox or knfsd's programs (scripts/deps.sh test unpacks them).
#
# Usage: test_bench_read_plus_knfsd.sh NFSXD NFSX

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
NFSX=$(realpath "${2:?usage: test_bench_read_plus_knfsd.sh NFSXD NFSX}")
TOP=$(realpath "$(dirname "$0")/../..")
SCRIPT=$TOP/bench/read-plus
INVM=$TOP/bench/vm/in-vm
BUILD=$(dirname "$(dirname "$(dirname "$NFSXD")")")
[ "$BUILD/tools/nfsx/nfsx" -ef "$NFSX" ] ||
	{ echo "Bail out! nfsxd and nfsx are not in one build directory"; exit 1; }

tap_check "bash -n bench/vm/in-vm" bash -n "$INVM"
tap_check "in-vm --help tells its usage" bash -c '"$1" --help | grep -q "usage: bench/vm/in-vm"' _ "$INVM"
refused() { # STATUS EXPECTED_MESSAGE ARG...
	local want_st=$1 want=$2 out st
	shift 2
	out=$("$@" 2>&1)
	st=$?
	if [ "$st" -ne "$want_st" ] || ! grep -q -- "$want" <<<"$out"; then
		tap_diag "exit status $st, output: $out"
		return 1
	fi
}
tap_check "in-vm without a command: refused" refused 2 "no command" "$INVM"
tap_check "in-vm --accel foo: refused" refused 125 "kvm or tcg" "$INVM" --accel foo -- true

skip_run() { tap_skip "knfsd run in a guest" "$1"; tap_done; }
[ "$(id -u)" -eq 0 ] || skip_run "needs root"
command -v qemu-system-x86_64 >/dev/null || skip_run "qemu-system-x86_64 not installed"
file -L "$(command -v busybox 2>/dev/null || echo /nonexistent)" 2>/dev/null | grep -q 'statically linked' ||
	skip_run "no static busybox (busybox-static)"
sbin=${NFSX_CACHE:-/var/cache/nfsx}/nfs-kernel-server/root/usr/sbin
command -v rpc.nfsd >/dev/null || [ -x "$sbin/rpc.nfsd" ] ||
	skip_run "knfsd's programs are not unpacked (as root: bench/vm/fetch-knfsd.sh)"
for t in unshare rpcbind ip python3 findmnt mountpoint cpio mkfs.ext4; do
	command -v "$t" >/dev/null || skip_run "$t not installed"
done

SIZE=1m RUNS=1 FS=tmpfs PEERS=knfsd LAYOUTS="allhole mixed-4h" BUILD="$BUILD" \
	VM_OPTS="--accel tcg --mem 2G --disk 1G --disk-dir $WORK --timeout 540 --log $WORK/console.log" \
	timeout 570 bash "$SCRIPT" >"$WORK/out.txt" 2>"$WORK/err.txt"
st=$?
tap_ok "$st" "tiny run in a guest (SIZE=1m RUNS=1 FS=tmpfs PEERS=knfsd, 2 layouts) exits 0" ||
	{ tail -n 30 "$WORK/err.txt" | tap_diag; tail -n 30 "$WORK/out.txt" | tap_diag; }
out=$WORK/out.txt
has() { grep -q -E -- "$1" "$out" || { tap_diag "no line matching: $1"; return 1; }; }
tap_check "the run says it ran in a guest, emulated" has '^read-plus: .*kernel [^ ]+ \(a guest, tcg\)'
for tgt in "knfsd READ_PLUS" "knfsd READ" "nfsxd READ_PLUS" "nfsxd READ"; do
	rows=0
	for lay in allhole mixed-4h; do
		n=$(grep -c -E "^$lay +\\| $tgt +\\| +[0-9.]+ \\|" "$out")
		rows=$((rows + n))
	done
	tap_ok "$([ "$rows" -eq 2 ] && echo 0 || echo 1)" "$tgt measured on both layouts (got $rows)"
done
tap_check "allhole: nfsxd READ_PLUS received 1.00 MiB of holes" \
	has '^allhole +\| nfsxd READ_PLUS +\|( +[0-9.]+ \|){3} +1\.00 \|'
grep -E '^allhole +\| knfsd READ_PLUS' "$out" | sed 's/^/knfsd: /' | tap_diag
tap_check "no row of a layout not asked for" bash -c '! grep -q "^alldata " "$1"' _ "$out"
tap_check "a ratio line against knfsd per layout" \
	has '^mixed-4h +\| READ_PLUS/READ nfsxd: .*; nfsxd READ_PLUS / knfsd READ_PLUS time x[0-9.]+'
tap_check "goal: against knfsd's READ_PLUS" has "^  faster than knfsd's READ_PLUS on every layout: "
tap_check "the guest is gone" bash -c '! pgrep -f -- "file=$1/in-vm-disk" >/dev/null' _ "$WORK"
tap_check "the guest's disk image is removed" bash -c '! ls "$1"/in-vm-disk.* 2>/dev/null' _ "$WORK"
tap_done
