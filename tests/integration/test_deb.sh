#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Debian packages (suite "deb", TAP): scripts/build-deb.sh builds them
# with dpkg-buildpackage and checks them with lintian (no error); they are
# unpacked with dpkg --root into a scratch root and each file each package
# must hold is there: binaries that run, the unit with the packaged paths,
# conffiles, man pages, the shared library, and headers + libnfsx.pc that a
# program builds and links against. No container runs here (a docker
# client without a daemon, no image registry reachable),
# and a clean chroot would need debootstrap to download a base system
# while the tests run; so maintainer scripts are not run either (dpkg
# would run them inside the scratch root) and conffiles stay
# FILE.dpkg-new there.
#   test_deb.sh SOURCE_ROOT OUTDIR
# (NFSX_DEB_REUSE=1: the packages already in OUTDIR, not built again)
set -u
. "$(dirname "$0")/lib.sh"

src=$1 out=$2
version=$(sed -n "s/^  version : '\([^']*\)',$/\1/p" "$src/meson.build")

# NFSX_DEB_REUSE=1: check the packages an earlier run left in OUTDIR.
if [ -n "${NFSX_DEB_REUSE:-}" ] && [ -f "$out/lintian.txt" ]; then
	! grep -q '^E: ' "$out/lintian.txt" >"$WORK/build-deb.log"
	st=$?
	tap_ok $st "NFSX_DEB_REUSE: the packages of an earlier build, lintian found no error" ||
		tap_diag <"$out/lintian.txt"
else
	"$src/scripts/build-deb.sh" "$out" >"$WORK/build-deb.log" 2>&1
	st=$?
	tap_ok $st "scripts/build-deb.sh builds the packages, lintian finds no error" ||
		tap_diag <"$WORK/build-deb.log"
fi
grep -E '^[WI]: ' "$out/lintian.txt" 2>/dev/null | tap_diag
for p in nfsxd nfsx libnfsx0 libnfsx-dev; do
	[ -f "$out/${p}_${version}_$(dpkg --print-architecture).deb" ]
	tap_ok $? "$p $version built"
done
[ $st -eq 0 ] || tap_done

root=$WORK/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status"
debs=()
for p in nfsxd nfsx libnfsx0 libnfsx-dev; do
	debs+=("$out/${p}_${version}_$(dpkg --print-architecture).deb")
done
dpkg --root="$root" --force-depends --unpack "${debs[@]}" >"$WORK/dpkg.log" 2>&1
tap_ok $? "dpkg --root --unpack takes all four (no file in two packages)" ||
	tap_diag <"$WORK/dpkg.log"

# Unpacked, not configured: a conffile waits as FILE.dpkg-new.
at() {
	if [ -e "$root$1.dpkg-new" ]; then echo "$root$1.dpkg-new"; else echo "$root$1"; fi
}

# has PACKAGE FILE...: dpkg lists each file in PACKAGE, and it is there
has() {
	local p=$1 f miss=""
	shift
	for f in "$@"; do
		dpkg --root="$root" -L "$p" 2>/dev/null | grep -qxF "$f" && [ -e "$(at "$f")" ] ||
			miss+=" $f"
	done
	tap_ok $([ -z "$miss" ]; echo $?) "$p holds $*" || tap_diag "missing:$miss"
}
multi=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
has nfsxd /usr/sbin/nfsxd /lib/systemd/system/nfsxd.service /etc/default/nfsxd \
	/etc/nfsx/exports /usr/share/man/man8/nfsxd.8.gz /usr/share/man/man5/nfsx-exports.5.gz
has nfsx /usr/bin/nfsx /usr/share/man/man1/nfsx.1.gz
has libnfsx0 "/usr/lib/$multi/libnfsx.so.0" "/usr/lib/$multi/libnfsx.so.$version"
has libnfsx-dev /usr/include/nfsx/nfsx.h /usr/include/nfsx/xdr/xdr.h \
	"/usr/lib/$multi/libnfsx.so" "/usr/lib/$multi/pkgconfig/libnfsx.pc"

conf=$(dpkg-deb -I "${debs[0]}" conffiles 2>/dev/null)
echo "$conf" | grep -qx /etc/default/nfsxd && echo "$conf" | grep -qx /etc/nfsx/exports
tap_ok $? "nfsxd's conffiles: /etc/default/nfsxd and /etc/nfsx/exports"

# The admin sets the exports before the server serves: installing does
# not start the unit (debhelper's --no-enable and --no-start are
# separate; a start is a deb-systemd-invoke start or restart in
# postinst). An upgrade may try-restart it: that starts nothing that is
# not running. Removing the package stops it (prerm).
postinst=$(dpkg-deb -I "${debs[0]}" postinst 2>/dev/null)
invokes=$(echo "$postinst" | grep -E 'deb-systemd-invoke|systemctl[^|]* (start|restart)')
[ -n "$postinst" ] && ! echo "$invokes" | grep -v 'deb-systemd-invoke try-restart ' | grep -q .
tap_ok $? "nfsxd's postinst does not start the unit (at most a try-restart on upgrade)" ||
	tap_diag "$postinst"
dpkg-deb -I "${debs[0]}" prerm 2>/dev/null | grep -q "deb-systemd-invoke stop 'nfsxd.service'"
tap_ok $? "nfsxd's prerm stops the unit on removal"

unit=$root/lib/systemd/system/nfsxd.service
grep -qx 'ExecStart=/usr/sbin/nfsxd --foreground $NFSXD_OPTS' "$unit" &&
	grep -qx 'EnvironmentFile=-/etc/default/nfsxd' "$unit" &&
	grep -qx 'NFSXD_OPTS="--exports-file /etc/nfsx/exports"' "$(at /etc/default/nfsxd)"
tap_ok $? "the unit and its options file name the packaged paths"

"$root/usr/sbin/nfsxd" --version 2>&1 | grep -qF "$version"
tap_ok $? "the packaged nfsxd runs (--version)"
"$root/usr/bin/nfsx" --version 2>&1 | grep -qF "$version"
tap_ok $? "the packaged nfsx runs (--version)"
MANWIDTH=80 man -l "$root/usr/share/man/man8/nfsxd.8.gz" 2>/dev/null | grep -q -- '--exports-file'
tap_ok $? "the packaged nfsxd(8) reads with man"

# A program built with the -dev package alone, run with libnfsx0's library.
cat >"$WORK/use.c" <<'C'
#include <nfsx.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
	struct nfsx_url u;
	char err[128];

	if (nfsx_url_parse("nfs://127.0.0.1:2049/srv/x", &u, err, sizeof(err)) < 0)
		return 1;
	printf("%s\n", nfsx_strerror(2));
	return 0;
}
C
flags=$(PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_LIBDIR=$root/usr/lib/$multi/pkgconfig \
	pkg-config --cflags --libs libnfsx 2>&1)
tap_ok $? "pkg-config finds libnfsx.pc ($flags)"
# shellcheck disable=SC2086 # flags are words
cc -o "$WORK/use" "$WORK/use.c" $flags >"$WORK/cc.log" 2>&1 &&
	LD_LIBRARY_PATH=$root/usr/lib/$multi "$WORK/use" >"$WORK/use.out" 2>&1 &&
	ldd_out=$(LD_LIBRARY_PATH=$root/usr/lib/$multi ldd "$WORK/use") &&
	echo "$ldd_out" | grep -q "$root/usr/lib/$multi/libnfsx.so.0"
tap_ok $? "a program builds with libnfsx-dev and runs with libnfsx0's library" ||
	tap_diag <"$WORK/cc.log"
tap_done
