#!/usr/bin/env bash
# fetch-knfsd.sh: unpack the user-space half of Linux's NFS server
# (rpc.nfsd, rpc.mountd, exportfs: Debian 12's nfs-kernel-server) into a
# directory of its own, for the benchmarks that run knfsd in a guest
# (bench/read-plus PEERS=knfsd, through bench/vm/in-vm).
#
#   fetch-knfsd.sh [DIR]     (default $NFSX_CACHE/nfs-kernel-server, else
#                             /var/cache/nfsx/nfs-kernel-server)
#
# The package is downloaded with the system's apt sources and unpacked
# with dpkg-deb, not installed: installing it would make this machine an
# NFS server at its next boot. The libraries it links (its lib*
# dependencies) are installed with apt-get when missing. The programs end
# up in DIR/root/usr/sbin; run again, it only checks that they are there.
# Exit status: 0 with the programs in place, 1 when they could not be had.
set -euo pipefail

DIR=${1:-${NFSX_CACHE:-/var/cache/nfsx}/nfs-kernel-server}
sbin=$DIR/root/usr/sbin

die() { echo "fetch-knfsd.sh: $*" >&2; exit 1; }

if [[ ! -x $sbin/rpc.nfsd || ! -x $sbin/rpc.mountd || ! -x $sbin/exportfs ]]; then
	[[ $(id -u) == 0 ]] || die "not unpacked yet in $DIR; run as root"
	for t in apt-get dpkg-deb; do
		command -v "$t" >/dev/null || die "$t missing"
	done
	echo "fetch-knfsd.sh: unpacking Debian's nfs-kernel-server into $DIR (not installing it)"
	rm -rf "$DIR/deb" "$DIR/root.tmp"
	mkdir -p "$DIR/deb"
	(cd "$DIR/deb" && apt-get -q -o APT::Sandbox::User=root download nfs-kernel-server) \
		>"$DIR/download.log" 2>&1 || die "apt-get download nfs-kernel-server failed (see $DIR/download.log)"
	debs=("$DIR"/deb/nfs-kernel-server_*.deb)
	[[ ${#debs[@]} == 1 && -r ${debs[0]} ]] || die "apt-get download left no single package in $DIR/deb"
	missing=()
	for lib in $(dpkg-deb -f "${debs[0]}" Depends | tr ',' '\n' | sed -n 's/^ *\(lib[^ ]*\).*/\1/p'); do
		dpkg-query -W -f='${Status}' "$lib" 2>/dev/null | grep -q "install ok installed" || missing+=("$lib")
	done
	if ((${#missing[@]})); then
		echo "fetch-knfsd.sh: installing ${missing[*]}"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" || die "apt-get install failed"
	fi
	dpkg-deb -x "${debs[0]}" "$DIR/root.tmp" || die "dpkg-deb -x ${debs[0]} failed"
	rm -rf "$DIR/root" "$DIR/deb"
	mv "$DIR/root.tmp" "$DIR/root"
fi
if ldd "$sbin/rpc.nfsd" "$sbin/rpc.mountd" "$sbin/exportfs" | grep -q 'not found'; then
	ldd "$sbin/rpc.nfsd" "$sbin/rpc.mountd" "$sbin/exportfs" | grep 'not found' >&2
	die "libraries missing for $sbin (run as root to install them)"
fi
echo "fetch-knfsd.sh: $sbin"
