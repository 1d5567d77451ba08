#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the nfs3-readdir test (READDIR and READDIRPLUS over
# 100,000 entries, counts, linear time, changing directories): starts
# nfsxd on a free 127.0.0.1 port with --no-rpcbind, exporting read-only
# (insecure: the test client uses unprivileged ports)
#   $WORK/exp          on the file system of the scratch directory
#   /dev/shm/nfsx-rd.* on tmpfs, when /dev/shm is a writable tmpfs of
#                      Linux 6.6 or later (see below) and the scratch
#                      directory is not on tmpfs already
# so that the suite runs against both kinds of directory offsets (hash
# positions on ext4, creation-ordered offsets on tmpfs). The test binary
# makes its directories in the exports itself. Runs test_nfs3_readdir
# PORT EXPORT... (its TAP output is this test's output) and stops the
# server with SIGTERM; a server that dies, does not exit 0 on SIGTERM or
# logs a sanitizer report fails the run. Needs root, as nfsxd does
# (open_by_handle_at): otherwise a skip.
#
# Usage: run-nfs3-readdir.sh NFSXD TEST_NFS3_READDIR

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-nfs3-readdir.sh NFSXD TEST_NFS3_READDIR}")

if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP needs root (nfsxd opens files by handle)"
	exit 0
fi

SHM=
cleanup_readdir() {
	[ -n "$SHM" ] && rm -rf "$SHM"
	cleanup
}
trap cleanup_readdir EXIT

chmod 755 "$WORK"
EXPORTS=("$WORK/exp")
mkdir -p "$WORK/exp" || exit 1
# tmpfs has had stable directory offsets since Linux 6.6; before, d_off
# was an entry's position in the list (every seek walks the list from its
# start, and a removal shifts the positions after it): nfsxd, as Linux's
# nfsd, cannot list such a directory in linear time or while it changes.
KV=$(uname -r | sed -E 's/^([0-9]+)\.([0-9]+).*/\1 \2/')
if [ "$(stat -f -c %T "$WORK")" != tmpfs ] &&
	[ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
	if [ "${KV% *}" -gt 6 ] || { [ "${KV% *}" -eq 6 ] && [ "${KV#* }" -ge 6 ]; }; then
		if SHM=$(mktemp -d /dev/shm/nfsx-rd.XXXXXX 2>/dev/null); then
			chmod 755 "$SHM"
			EXPORTS+=("$SHM")
		fi
	else
		echo "# Linux $(uname -r): tmpfs before 6.6 has positional directory offsets; not tested"
	fi
fi

ARGS=()
for e in "${EXPORTS[@]}"; do
	ARGS+=(--export "$e:ro,insecure")
done

pick_port P || { echo "Bail out! no free port"; exit 1; }
# a listing cache that holds the 100,000-entry directory (test_linear)
serve readdir "$P" --log-level warn \
	--dir-cache-bytes 268435456 "${ARGS[@]}"

"$TEST" "$P" "${EXPORTS[@]}"
finish $? "readdir:$PID"
