#!/usr/bin/env bash
# Install what is missing, build, and run every test:
#   1. gcc, -Werror: unit + integration tests
#   2. gcc with ASan + UBSan: unit + integration tests
#   3. clang with ASan + UBSan + libFuzzer: unit tests, then each fuzz
#      target for a bounded time (NFSX_FUZZ_SECONDS, default 20)
# The last line is "N passed, N failed" (meson tests, over all builds).
set -uo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh test || exit 1

passed=0 failed=0 skipped=0
top=$PWD

count() { # count results in a build's testlog.json
	local log=$1/meson-logs/testlog.json r
	[ -f "$log" ] || { failed=$((failed + 1)); return; }
	while read -r r; do
		case $r in
		OK|EXPECTEDFAIL) passed=$((passed + 1)) ;;
		SKIP) skipped=$((skipped + 1)) ;;
		*) failed=$((failed + 1)) ;;
		esac
	done < <(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    print(json.loads(l)["result"])' "$log")
}

run() { # run NAME SUITES -- MESON-SETUP-ARGS...
	local name=$1 suites=$2 dir=$top/build/test-$1
	shift 3
	echo "=== $name: meson setup $*"
	rm -rf "$dir"
	if ! meson setup "$dir" -Dwerror=true "$@" >/dev/null ||
	   ! ninja -C "$dir"; then
		echo "=== $name: BUILD FAILED"
		failed=$((failed + 1))
		return
	fi
	local s args=()
	for s in $suites; do args+=(--suite "$s"); done
	meson test -C "$dir" --print-errorlogs "${args[@]}"
	count "$dir"
}

mkdir -p build
CC=gcc run gcc "unit integration" -- --buildtype=debugoptimized
CC=gcc run asan "unit integration" -- --buildtype=debug \
	-Db_sanitize=address,undefined -Db_lundef=false \
	-Dc_args=-fno-sanitize-recover=all
CC=clang run fuzz "unit fuzz" -- --buildtype=debug -Dfuzz=true \
	-Db_sanitize=address,undefined -Db_lundef=false \
	-Dc_args=-fno-sanitize-recover=all

[ $skipped -gt 0 ] && echo "($skipped skipped)"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
