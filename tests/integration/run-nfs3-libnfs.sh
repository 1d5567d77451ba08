#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the nfs3-libnfs test: builds the export tree in the
# scratch directory, starts two nfsxd servers on free 127.0.0.1 ports with
# --no-rpcbind, runs test_nfs3_libnfs PORT PORT2 BASE (its TAP output is
# this test's output) and stops the servers with SIGTERM. A server that
# dies, does not exit 0 on SIGTERM or logs a sanitizer report fails the
# run. Needs root (files of several owners; libnfs uses a privileged
# source port only as root): otherwise the whole test is a skip.
#
# Tree (BASE = $WORK/tree):
#   main/  small.txt (mtime with nanoseconds), rand5m (5 MiB random),
#          sparse3g (3 GiB: "SPARSE-HEAD" at 0, "SPARSE-MIDDLE" at 2.5 GiB),
#          big5g (4 GiB + 139: "BEYOND-4GIB-DATA" at 4 GiB + 123),
#          dir/inner.txt, link -> small.txt, dangling -> no/such/target,
#          exec755, secret600 (root, 0600), public644 (root, 0644),
#          many/ (5,000 empty files), names/ (odd names; content = name)
#   nrs/   secret600, public644        --export nrs:rw,no_root_squash
#   as/    owned1000 (1000:1000 0600), root600 (root 0600)
#                                      --export as:all_squash,anonuid=1000,anongid=1000
#   ro/    public644                   --export ro:ro,no_root_squash
#   denied/, allowed/ (public644)      second server, exports file:
#                                      denied 10.0.0.0/8(ro), allowed 127.0.0.1(ro)
#
# Usage: run-nfs3-libnfs.sh NFSXD TEST_NFS3_LIBNFS

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-nfs3-libnfs.sh NFSXD TEST_NFS3_LIBNFS}")

if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP needs root (file owners, libnfs privileged source port)"
	exit 0
fi

chmod 755 "$WORK"
BASE=$WORK/tree
M=$BASE/main
mkdir -p "$M/dir" "$M/many" "$M/names" "$BASE/nrs" "$BASE/as" "$BASE/ro" \
	"$BASE/denied" "$BASE/allowed" || exit 1

printf 'hello, nfsx: small file\n' >"$M/small.txt"
touch -d '2021-03-04 05:06:07.123456789' "$M/small.txt"
head -c $((5 * 1024 * 1024)) /dev/urandom >"$M/rand5m"
printf 'inner\n' >"$M/dir/inner.txt"
ln -s small.txt "$M/link"
ln -s no/such/target "$M/dangling"
printf '#!/bin/sh\nexit 0\n' >"$M/exec755"
chmod 755 "$M/exec755"
python3 - "$M" <<'PY' || exit 1
import os, sys
m = sys.argv[1]
def at(path, size, parts):
    with open(path, "wb") as f:
        f.truncate(size)
        for off, data in parts:
            f.seek(off)
            f.write(data)
G = 1024 ** 3
at(os.path.join(m, "sparse3g"), 3 * G,
   [(0, b"SPARSE-HEAD"), (5 * G // 2, b"SPARSE-MIDDLE")])
at(os.path.join(m, "big5g"), 4 * G + 123 + 16, [(4 * G + 123, b"BEYOND-4GIB-DATA")])
for i in range(5000):
    open(os.path.join(m, "many", "f%05d" % i), "w").close()
names = ["a", "L" * 255, "\u00e9" * 127 + "x", "with space",
         " leading and trailing ", "\u00fcmlaut-\u65e5\u672c\u8a9e-\u00f1"]
for n in names:
    assert len(n.encode()) <= 255
    with open(os.path.join(m, "names", n), "w") as f:
        f.write(n)
PY
printf 'secret\n' >"$M/secret600"
printf 'public\n' >"$M/public644"
cp -p "$M/secret600" "$M/public644" "$BASE/nrs/"
cp -p "$M/public644" "$BASE/ro/"
cp -p "$M/public644" "$BASE/allowed/"
printf 'mine\n' >"$BASE/as/owned1000"
printf 'root\n' >"$BASE/as/root600"
chown 1000:1000 "$BASE/as/owned1000"
chmod 600 "$M/secret600" "$BASE/nrs/secret600" "$BASE/as/owned1000" "$BASE/as/root600"
chmod 644 "$M/public644" "$BASE/nrs/public644" "$BASE/ro/public644" "$BASE/allowed/public644"
chmod 755 "$BASE" "$BASE"/*

cat >"$WORK/exports2" <<EOT
$BASE/denied 10.0.0.0/8(ro)
$BASE/allowed 127.0.0.1(ro)
EOT

pick_port P || { echo "Bail out! no free port"; exit 1; }
pick_port P2 || { echo "Bail out! no free port"; exit 1; }
start_nfsxd libnfs1 --no-rpcbind --port "$P" --bind 127.0.0.1 --log-level warn \
	--export "$M" \
	--export "$BASE/nrs:rw,no_root_squash" \
	--export "$BASE/as:all_squash,anonuid=1000,anongid=1000" \
	--export "$BASE/ro:ro,no_root_squash"
PID1=$SERVER_PID
start_nfsxd libnfs2 --no-rpcbind --port "$P2" --bind 127.0.0.1 --log-level warn \
	--exports-file "$WORK/exports2"
PID2=$SERVER_PID
for x in "$P:$PID1:libnfs1" "$P2:$PID2:libnfs2"; do
	IFS=: read -r port pid name <<<"$x"
	if ! wait_port "$port" 10 "$pid"; then
		echo "Bail out! nfsxd ($name) did not start listening on 127.0.0.1:$port"
		show_log "$name"
		exit 1
	fi
done

"$TEST" "$P" "$P2" "$BASE"
finish $? "libnfs1:$PID1" "libnfs2:$PID2"
