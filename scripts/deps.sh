#!/usr/bin/env bash
# Install the Debian 12 packages nfsx needs that are not installed yet.
#   scripts/deps.sh build   what building nfsxd needs
#   scripts/deps.sh test    that plus what the test suite needs
#   scripts/deps.sh deb     build plus what scripts/build-deb.sh needs
# Runs apt-get only when something is missing; needs root then.
set -euo pipefail

build_pkgs=(gcc libc6-dev meson ninja-build pkg-config python3 libsodium-dev libsystemd-dev)
# clang + libclang-rt: libFuzzer targets; rpcbind: rpcinfo, a real RPC
# client the integration tests use; procps: ps/pkill in test scripts;
# iproute2: ss; libnfs: an independent NFS client (library and nfs-ls,
# nfs-cp...); qemu, a kernel, busybox, cpio, kmod: the kernel client test
# (whose kc-lock is linked statically with libc6-dev's libc.a);
# NFS-Ganesha: another server the client tests run against (started by
# them in a private network namespace, never as a service); groff-base:
# groff, which formats the manual pages (test_man_options.py); xfsprogs:
# mkfs.xfs, for the XFS image (reflink) on which nfs4-clone-xfs sees
# CLONE share blocks (util-linux's mount and losetup, on every Debian
# system, mount it); python3-prometheus-client: a Prometheus text-format
# parser that reads nfsxd's --metrics (server-stats). The systemd unit check needs systemd-analyze (the
# systemd package, on every installed Debian 12 system): not installed
# here, it is skipped.
test_pkgs=(clang libclang-rt-14-dev rpcbind procps iproute2 libnfs-dev libnfs-utils
	qemu-system-x86 linux-image-amd64 busybox-static cpio kmod nfs-ganesha nfs-ganesha-vfs
	groff-base xfsprogs python3-prometheus-client)

# scripts/build-deb.sh and the deb test: the Debian package tools.
deb_pkgs=(debhelper dpkg-dev fakeroot lintian)

want=("${build_pkgs[@]}")
[ "${1:-build}" = test ] && want+=("${test_pkgs[@]}" "${deb_pkgs[@]}")
[ "${1:-build}" = deb ] && want+=("${deb_pkgs[@]}")

# The test suite's second guest kernel: bookworm-backports' newest, unpacked
# (not installed) by tests/kernel/fetch-kernel.sh into its own directory,
# for the kernel client suites that need READ_PLUS (Debian 12's 6.1 client
# has none). Without it those suites say SKIP and why; so a machine that
# cannot reach the backports archive still runs every other test.
guest_kernel() {
	[ "${1:-build}" = test ] || return 0
	local dir=${NFSX_GUEST_KERNEL:-/var/cache/nfsx/guest-kernel}
	if [ "$(id -u)" -ne 0 ]; then
		[ -d "$dir/root/boot" ] ||
			echo "nfsx: no backports guest kernel in $dir; as root: tests/kernel/fetch-kernel.sh" >&2
		return 0
	fi
	"$(dirname "$0")/../tests/kernel/fetch-kernel.sh" "$dir" ||
		echo "nfsx: WARNING: no backports guest kernel: the kernel-nfs42-bpo suites will be skipped" >&2
}

# Linux's own NFS server's programs (rpc.nfsd, rpc.mountd, exportfs),
# unpacked (not installed: that would make this machine an NFS server at
# boot) by bench/vm/fetch-knfsd.sh, for bench/read-plus PEERS=knfsd, which
# runs knfsd in a guest, and its test. Without them that test says SKIP.
knfsd_tools() {
	[ "${1:-build}" = test ] && [ "$(id -u)" -eq 0 ] || return 0
	"$(dirname "$0")/../bench/vm/fetch-knfsd.sh" >/dev/null ||
		echo "nfsx: WARNING: no knfsd programs: the knfsd run of bench-read-plus will be skipped" >&2
}

missing=()
for p in "${want[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	guest_kernel "${1:-build}"
	knfsd_tools "${1:-build}"
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "nfsx: missing packages: ${missing[*]}" >&2
	echo "nfsx: run as root, or: sudo apt-get install -y ${missing[*]}" >&2
	exit 1
fi
echo "nfsx: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# policy-rc.d keeps Debian from starting rpcbind as a service here: the
# tests need port 111 free for nfsxd's embedded rpcbind.
had_policy=0
[ -e /usr/sbin/policy-rc.d ] && had_policy=1
if [ $had_policy -eq 0 ]; then
	printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
	chmod +x /usr/sbin/policy-rc.d
fi
apt-get install -y -q --no-install-recommends "${missing[@]}"
[ $had_policy -eq 0 ] && rm -f /usr/sbin/policy-rc.d
# Ganesha installed for the tests must not start as a service at boot
# (it would listen on every interface).
if [[ " ${missing[*]} " == *" nfs-ganesha "* ]] && command -v systemctl >/dev/null; then
	systemctl disable nfs-ganesha.service >/dev/null 2>&1 || true
fi
guest_kernel "${1:-build}"
knfsd_tools "${1:-build}"
exit 0
