#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the nfs4-memory test (the server's RSS with 1000
# NFSv4.0 clients holding an open file and a lock each, 200 NFSv4.1
# clients with a session each, and one client past its bound of open
# stateids): starts nfsxd with --nfs-vers 3,4 on a free 127.0.0.1 port
# and an export on the scratch directory, runs
# test_nfs4_memory PORT EXPORT PID (its TAP output is this test's
# output) and stops the server with SIGTERM. Needs root (the test's
# calls are uid 0 with no_root_squash): otherwise the whole test is a skip.
#
# Usage: run-nfs4-memory.sh NFSXD TEST_NFS4_MEMORY

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-nfs4-memory.sh NFSXD TEST_NFS4_MEMORY}")

if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP needs root (uid 0 calls, no_root_squash)"
	exit 0
fi

chmod 755 "$WORK"
mkdir -p "$WORK/exp" && chmod 755 "$WORK/exp" || exit 1
printf '%s 127.0.0.1(rw,no_root_squash,insecure)\n' "$WORK/exp" >"$WORK/exports"

# RSS bounds mean nothing in a sanitizer build (shadow memory, quarantine).
NFSX_TEST_SANITIZED=
if grep -a -q -e __asan_init -e __tsan_init -e __msan_init "$NFSXD"; then
	NFSX_TEST_SANITIZED="nfsxd built with a sanitizer: its RSS is mostly the sanitizer's"
fi
export NFSX_TEST_SANITIZED

pick_port P || { echo "Bail out! no free port"; exit 1; }
umask 022
serve mem4 "$P" --log-level warn \
	--nfs-vers 3,4 --exports-file "$WORK/exports"

"$TEST" "$P" "$WORK/exp" "$PID"
finish $? "mem4:$PID"
