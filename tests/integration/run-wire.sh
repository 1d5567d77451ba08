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
serve wire "$P" --log-level warn

"$TEST" "$P" "$PID"
finish $? "wire:$PID"
