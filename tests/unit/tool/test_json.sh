#!/bin/bash
# SPDX-License-Identifier: MIT
# The JSON writer's output parses with Python's json module (strict: no
# NaN/Infinity, no invalid escapes) and decodes to the strings written.
# Usage: test_json.sh TEST_JSON_EXE
exe=${1:?usage: test_json.sh TEST_JSON_EXE}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$exe" --emit >"$out"
echo "ok 1 - document emitted (exit $?)"
python3 - "$out" <<'PY'
import json, sys
n = 1
def ok(c, d):
    global n
    n += 1
    print(("ok" if c else "not ok"), n, "-", d)
    return c
def no_const(x):
    raise ValueError("non-standard constant " + x)
try:
    d = json.load(open(sys.argv[1], encoding="utf-8", errors="strict"),
                  parse_constant=no_const)
    ok(True, "parses as strict JSON")
except Exception as e:
    ok(False, "parses as strict JSON: %s" % e)
    print("1..%d" % n)
    sys.exit(1)
ok(d["plain"] == "hello", "plain string")
ok(d['quote"key'] == 'a "quoted" \\ back\\slash', "quotes and backslashes in key and value")
ok(d["controls"] == "tab\there\nnl\r\x01\x1f\x7f end", "control characters")
ok(d["utf8"] == "caf\u00e9 \u65e5\u672c \U0001F600", "UTF-8 kept")
ok(d["invalid"] == "a\ufffdb\ufffdc\ufffd\ufffd\ufffdd\ufffd\ufffde", "invalid UTF-8 -> U+FFFD")
ok(d["null"] is None, "null")
ok(d["u64max"] == 2**64 - 1, "u64 max")
ok(d["neg"] == -42 and d["pi"] == 3.25 and abs(d["tiny"] - 1e-12) < 1e-20, "numbers")
ok(d["inf"] is None and d["yes"] is True, "inf as null, true")
ok([e["i"] for e in d["list"]] == [0, 1, 2], "array of objects")
ok(d["empty_list"] == [] and d["empty_obj"] == {}, "empty containers")
print("1..%d" % n)
PY
