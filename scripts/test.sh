#!/usr/bin/env bash
# Install what is missing, build, and run every test:
#   1. gcc, -Werror: unit + integration tests, the Linux kernel client
#      in qemu against nfsxd (tests/kernel), and the Debian packages
#      (suite deb: scripts/build-deb.sh, lintian, dpkg --root)
#   2. gcc with ASan + UBSan: unit + integration tests
#   3. clang with ASan + UBSan + libFuzzer: unit tests, then each fuzz
#      target for a bounded time (NFSX_FUZZ_SECONDS, default 20)
#   4. clang with TSan: unit + integration tests (the event loops, the
#      connection hand-off between them, the shared DRC)
# The last line is "N passed, N failed": TAP assertions of the TAP tests
# plus whole tests for the others (fuzz runs, the generated-code check),
# over all four builds.
set -uo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh test || exit 1

passed=0 failed=0 skipped=0
top=$PWD

count() { # add a build's results: TAP assertions, or whole tests without TAP
	local log=$1/meson-logs/testlog.json p f k
	[ -f "$log" ] || { failed=$((failed + 1)); return; }
	read -r p f k < <(python3 - "$log" <<'PY'
import json, re, sys
p = f = k = 0
for line in open(sys.argv[1]):
    t = json.loads(line)
    out = t.get("stdout") or ""
    oks = re.findall(r"^(ok|not ok)\b[^\n]*", out, re.M)
    if oks:
        for m in re.finditer(r"^(ok|not ok)\b([^\n]*)", out, re.M):
            if "# SKIP" in m.group(2):
                k += 1
            elif m.group(1) == "ok":
                p += 1
            else:
                f += 1
        # a crash or bad exit status after the last assertion
        if t["result"] not in ("OK", "EXPECTEDFAIL") and not re.search(r"^not ok", out, re.M):
            f += 1
    elif t["result"] in ("OK", "EXPECTEDFAIL"):
        p += 1
    elif t["result"] == "SKIP":
        k += 1
    else:
        f += 1
print(p, f, k)
PY
)
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + k))
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
CC=gcc run gcc "unit integration kernel deb" -- --buildtype=debugoptimized
CC=gcc run asan "unit integration" -- --buildtype=debug \
	-Db_sanitize=address,undefined -Db_lundef=false \
	-Dc_args=-fno-sanitize-recover=all
CC=clang run fuzz "unit fuzz" -- --buildtype=debug -Dfuzz=true \
	-Db_sanitize=address,undefined -Db_lundef=false \
	-Dc_args=-fno-sanitize-recover=all
CC=clang run tsan "unit integration" -- --buildtype=debug \
	-Db_sanitize=thread -Db_lundef=false

[ $skipped -gt 0 ] && echo "($skipped skipped)"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
