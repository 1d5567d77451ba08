#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the nfs4-callback test (CB_NULL probes at
# SETCLIENTID_CONFIRM): starts nfsxd with --nfs-vers 3,4, one worker and
# debug logging on a free 127.0.0.1 port, runs test_nfs4_callback PORT
# LOG (its fake clients listen for the callbacks on 127.0.0.1 too), then
# stops nfsxd.
#
# Usage: run-nfs4-callback.sh NFSXD TEST_NFS4_CALLBACK

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-nfs4-callback.sh NFSXD TEST_NFS4_CALLBACK}")

mkdir -p "$WORK/exp" || exit 1
echo "$WORK/exp 127.0.0.1(ro,insecure)" >"$WORK/exports"

pick_port P || { echo "Bail out! no free port"; exit 1; }
serve cb "$P" --log-level debug \
	--nfs-vers 3,4 --workers 1 --exports-file "$WORK/exports"
"$TEST" "$P" "$WORK/cb.log"
rc=$?
finish "$rc" "cb:$PID"
