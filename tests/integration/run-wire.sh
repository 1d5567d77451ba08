#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the rpc-wire test: starts nfsxd on a free 127.0.0.1
# port with --no-rpcbind and default limits, runs test_rpc_wire PORT PID
# (its TAP output is this test's output), then stops the server with
# SIGTERM. A server that dies during the test or does not exit 0 on
# SIGTERM fails the run (reported as diagnostics and exit status, since
# the C test has already printed the plan).
#
# Usage: run-wire.sh NFSXD TEST_RPC_WIRE

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-wire.sh NFSXD TEST_RPC_WIRE}")

pick_port P || { echo "Bail out! no free port"; exit 1; }
start_nfsxd wire --no-rpcbind --port "$P" --bind 127.0.0.1 --log-level warn
PID=$SERVER_PID
if ! wait_port "$P" 10 "$PID"; then
	echo "Bail out! nfsxd did not start listening on 127.0.0.1:$P"
	show_log wire
	exit 1
fi

"$TEST" "$P" "$PID"
finish $? "wire:$PID"
