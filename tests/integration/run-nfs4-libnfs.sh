#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the nfs4-libnfs test: builds the export tree in the
# scratch directory, starts nfsxd with --nfs-vers 3,4 on a free 127.0.0.1
# port with --no-rpcbind, runs test_nfs4_libnfs PORT BASE (its TAP output
# is this test's output) and stops the server with SIGTERM. Needs root
# (chown, libnfs's privileged source port): otherwise a skip.
#
# Tree (BASE = $WORK/tree, exported rw,no_root_squash):
#   small.txt (mtime with nanoseconds), rand5m (5 MiB random),
#   dir/inner.txt, link -> small.txt, owned (1000:1000 0600), exec755,
#   many/ (300 empty files f000..f299), w/ (the test's scratch directory;
#   w/locked, empty, for the lock checks)
#
# Usage: run-nfs4-libnfs.sh NFSXD TEST_NFS4_LIBNFS

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-nfs4-libnfs.sh NFSXD TEST_NFS4_LIBNFS}")
# In sanitizer builds: libnfs's own leaks are not the test's (see the file)
export LSAN_OPTIONS="suppressions=$(realpath "$(dirname "$0")/lsan-libnfs.supp")${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP needs root (chown, libnfs privileged source port)"
	exit 0
fi

chmod 755 "$WORK"
BASE=$WORK/tree
mkdir -p "$BASE/dir" "$BASE/many" "$BASE/w" || exit 1
printf 'hello, nfsx over NFSv4\n' >"$BASE/small.txt"
touch -d '2021-03-04 05:06:07.123456789' "$BASE/small.txt"
head -c $((5 * 1024 * 1024)) /dev/urandom >"$BASE/rand5m"
printf 'inner\n' >"$BASE/dir/inner.txt"
ln -s small.txt "$BASE/link"
printf 'mine\n' >"$BASE/owned"
chown 1000:1000 "$BASE/owned"
chmod 600 "$BASE/owned"
printf '#!/bin/sh\nexit 0\n' >"$BASE/exec755"
: >"$BASE/w/locked"
chmod 666 "$BASE/w/locked"
chmod 755 "$BASE/exec755" "$BASE" "$BASE/w"
for i in $(seq -f '%03g' 0 299); do : >"$BASE/many/f$i"; done

pick_port P || { echo "Bail out! no free port"; exit 1; }
serve libnfs4 "$P" \
	--log-level "${NFS4_LIBNFS_LOG:-warn}" --nfs-vers 3,4 \
	--export "$BASE:rw,no_root_squash"

"$TEST" "$P" "$BASE"
finish $? "libnfs4:$PID"
