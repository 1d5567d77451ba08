#!/usr/bin/env bash
# run-fuzz.sh EXE SEED_DIR WORK_DIR: fuzz EXE for NFSX_FUZZ_SECONDS
# (default 20) starting from the committed seeds; new inputs go to
# WORK_DIR. A crash, leak, timeout or sanitizer report fails the test and
# leaves the reproducer in WORK_DIR/artifacts/.
set -eu
exe=$1 seeds=$2 work=$3
mkdir -p "$work/artifacts"
exec "$exe" -max_total_time="${NFSX_FUZZ_SECONDS:-20}" -timeout=10 \
	-rss_limit_mb=1024 -max_len=70000 -print_final_stats=1 \
	-artifact_prefix="$work/artifacts/" "$work" "$seeds"
