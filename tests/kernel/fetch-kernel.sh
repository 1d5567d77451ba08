#!/usr/bin/env bash
# fetch-kernel.sh: unpack Debian 12's newest backports kernel (bookworm-
# backports' linux-image-amd64) into a directory of its own, for the
# kernel client suites that need a client newer than Debian 12's 6.1:
# 6.1 is built without CONFIG_NFS_V4_2_READ_PLUS and never sends
# READ_PLUS; the backports kernel (6.12 when this was written) is built
# with it.
#
#   fetch-kernel.sh [DIR]     (default $NFSX_GUEST_KERNEL, else
#                              /var/cache/nfsx/guest-kernel)
#
# Nothing of the system's changes: apt runs with a sources list, lists
# and archive directory of its own under DIR/apt (the packages are
# checked against the system's Debian archive keys as any apt download
# is), and the package is unpacked with dpkg-deb, not installed. The
# result is DIR/VERSION/{boot,lib/modules/VERSION} with a modules.dep
# (depmod -b), and DIR/root, a link to the newest. tests/kernel/run.sh
# boots it with --root DIR/root. Run again, it only checks whether a
# newer version came out.
# Exit status: 0 with the kernel in place, 1 when it could not be had.
set -euo pipefail

DIR=${1:-${NFSX_GUEST_KERNEL:-/var/cache/nfsx/guest-kernel}}
SUITE=bookworm-backports
MIRROR=${NFSX_DEBIAN_MIRROR:-http://deb.debian.org/debian}

die() { echo "fetch-kernel.sh: $*" >&2; exit 1; }
for t in apt-get apt-cache dpkg-deb depmod; do
	command -v "$t" >/dev/null || die "$t missing"
done

mkdir -p "$DIR/apt/lists/partial" "$DIR/apt/archives/partial" "$DIR/apt/sources.list.d"
echo "deb $MIRROR $SUITE main" >"$DIR/apt/sources.list"
apt_opts=(-o "Dir::Etc::sourcelist=$DIR/apt/sources.list"
	-o "Dir::Etc::sourceparts=$DIR/apt/sources.list.d"
	-o "Dir::State::lists=$DIR/apt/lists"
	-o "Dir::Cache::archives=$DIR/apt/archives"
	-o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache="
	-o "Dir::State::status=/dev/null"
	-o "APT::Sandbox::User=root")
apt-get "${apt_opts[@]}" -q update >"$DIR/apt/update.log" 2>&1 ||
	die "apt-get update of $SUITE failed (see $DIR/apt/update.log)"
# the metapackage names the image package of the newest version
pkg=$(apt-cache "${apt_opts[@]}" show linux-image-amd64 2>/dev/null |
	sed -n 's/^Depends: \(linux-image-[^ ,]*\).*/\1/p;T;q')
[ -n "$pkg" ] || die "no linux-image-amd64 in $SUITE"
kver=${pkg#linux-image-}
if [ ! -r "$DIR/$kver/boot/vmlinuz-$kver" ] || [ ! -s "$DIR/$kver/lib/modules/$kver/modules.dep" ]; then
	echo "fetch-kernel.sh: fetching $pkg from $SUITE"
	rm -rf "$DIR/$kver.tmp" "$DIR/apt/archives/${pkg}_"*.deb
	mkdir -p "$DIR/$kver.tmp"
	trap 'rm -rf "$DIR/$kver.tmp"' EXIT
	(cd "$DIR/apt/archives" && apt-get "${apt_opts[@]}" -q download "$pkg") >"$DIR/apt/download.log" 2>&1 ||
		die "apt-get download $pkg failed (see $DIR/apt/download.log)"
	shopt -s nullglob
	debs=("$DIR/apt/archives/${pkg}_"*.deb)
	shopt -u nullglob
	[ ${#debs[@]} -eq 1 ] || die "apt-get download $pkg left ${#debs[@]} packages in $DIR/apt/archives"
	deb=${debs[0]}
	dpkg-deb -x "$deb" "$DIR/$kver.tmp" || die "dpkg-deb -x $deb failed"
	depmod -b "$DIR/$kver.tmp" "$kver" || die "depmod failed"
	[ -r "$DIR/$kver.tmp/boot/vmlinuz-$kver" ] || die "$pkg holds no boot/vmlinuz-$kver"
	rm -rf "$DIR/$kver"
	mv "$DIR/$kver.tmp" "$DIR/$kver"
	trap - EXIT
	rm -f "$deb"
fi
ln -sfn "$kver" "$DIR/root"
echo "fetch-kernel.sh: $DIR/root -> $kver"
