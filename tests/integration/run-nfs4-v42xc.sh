#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the nfs4-v42xc test (NFSv4.2's xattrs, CLONE and
# COPY on the wire): builds a tmpfs export in /dev/shm (user xattrs on
# tmpfs need Linux 6.6; older kernels answer NOTSUPP, which this test
# then reports as failures) and an export in the scratch directory
# (ext4 on the machines this runs on), starts nfsxd with --nfs-vers 4
# on a free 127.0.0.1 port, runs test_nfs4_v42xc PORT TMPFS_DIR EXT_DIR
# and stops the server with SIGTERM. A server that dies, does not exit 0
# on SIGTERM or logs a sanitizer report fails the run.
#
# Each export holds, 0644 root's unless said:
#   xa, xl   the xattr files (xl holds user.x0 .. user.x4)
#   src      100000 bytes, byte i = (i * 131 + i / 256) mod 256
#   cl, c1, c2, cx   empty; c3 10000 'z'; c4 3000 'z'
#   dg1 dg2 dg3      (tmpfs) 0666, for the delegation cases
#   big, cb, cb2     (tmpfs) 256 MiB sparse, and empty: a copy cancelled,
#                    one left running when the server stops
#
# V42XC_DEBUG=1 in the environment starts nfsxd with debug logging.
#
# Usage: run-nfs4-v42xc.sh NFSXD TEST_NFS4_V42XC

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-nfs4-v42xc.sh NFSXD TEST_NFS4_V42XC}")

SHM=$(mktemp -d /dev/shm/nfsx-v42xc.XXXXXX) || { echo "Bail out! no /dev/shm"; exit 1; }
at_cleanup "rm -rf '$SHM'"
chmod 755 "$WORK" "$SHM"
EXT=$WORK/ext
mkdir -p "$EXT" && chmod 755 "$EXT" || exit 1

for D in "$SHM" "$EXT"; do
	: >"$D/xa"
	: >"$D/xl"
	for i in 0 1 2 3 4; do
		setfattr -n "user.x$i" -v "$i" "$D/xl" 2>/dev/null ||
			python3 -c "import os,sys; os.setxattr(sys.argv[1], 'user.x$i', b'$i')" "$D/xl"
	done
	python3 -c '
import sys
sys.stdout.buffer.write(bytes((i * 131 + i // 256) % 256 for i in range(100000)))' >"$D/src"
	: >"$D/cl"
	: >"$D/c1"
	: >"$D/c2"
	: >"$D/cx"
	head -c 10000 /dev/zero | tr '\0' z >"$D/c3"
	head -c 3000 /dev/zero | tr '\0' z >"$D/c4"
	chmod 644 "$D"/*
done
# an asynchronous copy to cancel midway: 256 MiB of hole
truncate -s 256M "$SHM/big"
: >"$SHM/cb"
: >"$SHM/cb2"
chmod 644 "$SHM/big" "$SHM/cb" "$SHM/cb2"
for f in dg1 dg2 dg3; do
	: >"$SHM/$f"
	chmod 666 "$SHM/$f"
done

cat >"$WORK/exports" <<EOT
$SHM 127.0.0.1(rw,no_root_squash,insecure)
$EXT 127.0.0.1(rw,no_root_squash,insecure)
EOT

pick_port P || { echo "Bail out! no free port"; exit 1; }
umask 022
serve v42xc "$P" ${V42XC_DEBUG:+--log-level debug} --nfs-vers 4 --lease-time 10 --exports-file "$WORK/exports"

"$TEST" "$P" "$SHM" "$EXT"
finish $? "v42xc:$PID"
