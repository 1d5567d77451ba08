#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the nfs4-sessions test (NFSv4.1 sessions on the
# wire): starts nfsxd with --nfs-vers 3,4 on a free 127.0.0.1 port,
# exporting a directory of 300 files read-only, runs test_nfs4_sessions
# PORT EXPORT (its TAP output is this test's output), then stops nfsxd.
# A server that dies or does not exit 0 on SIGTERM fails the run.
#
# Usage: run-nfs4-sessions.sh NFSXD TEST_NFS4_SESSIONS

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-nfs4-sessions.sh NFSXD TEST_NFS4_SESSIONS}")

chmod 755 "$WORK"
mkdir -p "$WORK/exp" || exit 1
(cd "$WORK/exp" && for i in $(seq -f '%03g' 0 299); do : >"file-with-a-long-name-$i"; done)
echo "$WORK/exp 127.0.0.1(ro,insecure)" >"$WORK/exports"

pick_port P || { echo "Bail out! no free port"; exit 1; }
serve v41 "$P" --log-level warn \
	--nfs-vers 3,4 --exports-file "$WORK/exports"
"$TEST" "$P" "$WORK/exp"
finish $? "v41:$PID"
