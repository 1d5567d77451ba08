#!/usr/bin/env bash
# Build the Debian packages of nfsx: nfsxd, nfsx, libnfsx0, libnfsx-dev.
#   scripts/build-deb.sh [OUTDIR]     (default build/deb)
# Installs what is missing (scripts/deps.sh deb), copies the source tree
# (without build/ and .git) to a scratch directory, runs
# dpkg-buildpackage -b there (binary packages only, unsigned), runs
# lintian on the result and leaves the .deb files, the .changes and
# lintian.txt in OUTDIR. Exit status 0 if the build worked and lintian
# found no error; its warnings are listed (README, "Debian package").
# The version is meson.build's: debian/changelog's first line follows it.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
out=$(realpath -m "${1:-build/deb}")

scripts/deps.sh deb

version=$(sed -n "s/^  version : '\([^']*\)',$/\1/p" meson.build)
[ -n "$version" ] || { echo "build-deb: no version in meson.build" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/nfsx-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/nfsx-$version"
tar -C "$top" --exclude=./build --exclude=./.git --exclude='./obj-*' -cf - . |
	tar -C "$work/nfsx-$version" -xf -
sed -i "1s/^nfsx ([^)]*)/nfsx ($version)/" "$work/nfsx-$version/debian/changelog"

jobs=$(nproc 2>/dev/null || echo 1)
[ "$jobs" -gt 2 ] && jobs=2	# a shared machine: see README, scripts/test.sh
(cd "$work/nfsx-$version" &&
	DEB_BUILD_OPTIONS="parallel=$jobs ${DEB_BUILD_OPTIONS:-}" \
	dpkg-buildpackage -b -us -uc) >"$work/build.log" 2>&1 || {
	tail -n 60 "$work/build.log" >&2
	echo "build-deb: dpkg-buildpackage failed" >&2
	exit 1
}

mkdir -p "$out"
rm -f "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
cp "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$work/build.log" "$out/"
changes=$(ls "$out"/*.changes)
# --fail-on error: warnings are reported, each explained in the README.
status=0
lintian --fail-on error --display-info "$changes" >"$out/lintian.txt" 2>&1 || status=$?
cat "$out/lintian.txt"
ls -1 "$out"/*.deb
[ $status -eq 0 ] || echo "build-deb: lintian found errors" >&2
exit $status
