#!/usr/bin/env bash
# The Linux kernel's NFS client against nfsxd: boots Debian's kernel under
# qemu (no KVM needed; about 20 s) with run.sh, mounts an export of a
# freshly started nfsxd over NFSv3 or NFSv4.0 and runs guest/test.sh's steps (mount,
# files, big files, rename, links, chmod, truncate, sparse, 200-entry
# directories, remount, removal). Each step becomes one TAP line.
#   run-kernel.sh [--backports] NFSXD [VERSION]      (default version 3)
# --backports boots the newest kernel of Debian 12's backports instead of
# the installed one, as fetch-kernel.sh unpacked it (scripts/deps.sh test
# runs it as root); Debian 12's own 6.1 has no READ_PLUS in its client.
# Needs qemu-system-x86, linux-image-amd64, busybox-static, cpio, kmod
# (scripts/deps.sh test installs them) and root, to build the initramfs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../integration/lib.sh"
. "$here/tap.sh"
root_opt=()
if [ "${1:-}" = --backports ]; then
	shift
	kdir=${NFSX_GUEST_KERNEL:-/var/cache/nfsx/guest-kernel}
	if [ ! -d "$kdir/root/boot" ]; then
		echo "1..0 # SKIP no backports kernel in $kdir (tests/kernel/fetch-kernel.sh, run by scripts/deps.sh test as root, puts it there)"
		exit 0
	fi
	# its client reads with READ_PLUS: the guest fails if it does not
	root_opt=(-r "$kdir/root" --want-read-plus)
fi
need_nfsxd "${1:-}"
vers=${2:-3}

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
# The guest's CLONE step expects clones to succeed exactly where the
# export's file system shares blocks: asked of the file system itself (a
# scratch directory on XFS or btrfs clones too), and required where the
# wrapper made one that does (with-xfs.sh).
head -c 4096 /dev/zero >"$export_dir/.kc-probe" &&
	cp --reflink=always "$export_dir/.kc-probe" "$export_dir/.kc-probe2" 2>/dev/null &&
	touch "$export_dir/.kc-clone"
rm -f "$export_dir/.kc-probe" "$export_dir/.kc-probe2"
if [ "${NFSX_EXPORT_CLONES:-0}" = 1 ] && [ ! -e "$export_dir/.kc-clone" ]; then
	echo "Bail out! the export was to share blocks but cp --reflink=always fails there"
	exit 1
fi
pick_port P || { echo "Bail out! no free port"; exit 1; }
# The guest reaches 127.0.0.1 through qemu's user network from an
# unprivileged port, as root: hence insecure and no_root_squash.
# NFSv4 is served only when asked for (--nfs-vers): always here, since
# the delegation step mounts a 4.1 client beside the version under test.
start_nfsxd kernel --no-rpcbind --port "$P" --bind 127.0.0.1 --nfs-vers 3,4 \
	--export "$export_dir:rw,no_root_squash,insecure"
S=$SERVER_PID
if ! wait_port "$P" 10 "$S"; then
	echo "Bail out! nfsxd did not start"
	show_log kernel
	exit 1
fi

"$here/run.sh" "${root_opt[@]}" -p "$P" -e "$export_dir" -m "$P" -l "$WORK/logs" "$vers" \
	>"$WORK/kclient.out" 2>&1
rc=$?
n=0
kclient_tap "$WORK/kclient.out" "$vers" "$rc"
stop_nfsxd "$S" 10
n=$((n + 1))
[ "$STOP_STATUS" -eq 0 ] && echo "ok $n - nfsxd exits 0 on SIGTERM" ||
	echo "not ok $n - nfsxd exits $STOP_STATUS on SIGTERM"
echo "1..$n"
