#!/bin/bash
# SPDX-License-Identifier: MIT
# TAP test of nfsx stats against nfsxd on a free 127.0.0.1 port with a
# state directory of its own, and against fake control sockets:
#   - a known load: nfsx cat of a file of 3 MiB + 1000 bytes reads it in
#     1 MiB calls and one more that finds the end: exactly 5 READ calls
#     over NFSv3, then 5 READ operations over NFSv4.1, in the text report
#     and in --json
#   - --json parses (python3) and agrees with a raw read of the socket:
#     every procedure's and operation's calls, errors and bytes, the
#     execute times' sums, the version and the start time
#   - the live view under nfsx bench: -i 1 -c 2 prints two blocks with a
#     READ rate, --json -i 1 -c 2 two JSON lines with rates
#   - --server ADDR:PORT through the link nfsxd makes in $NFSX_RUN_DIR
#     (and removes when it stops), a server bound to 0.0.0.0 found, an
#     IPv6 address written otherwise ([::0:1]) looked for as inet_ntop
#     writes it ([::1]) too, the errors naming where it looked
#   - a restart (a fake socket whose counters go down): said, no rate
#     below zero, in text and JSON; malformed text: the line number, exit 1;
#     the server's "error: ..." passed on; the open cache's, NFSv4 state's
#     and listening addresses' series shown when written; the live view
#     ending quietly when its reader goes
#   - errors: a missing socket, a socket nobody may not open (as nobody):
#     exit status 1 and a message naming the path and the cause; bad
#     options: exit status 2
# Needs root (nfsxd handles; the "secure" export wants a privileged port).
#
# Usage: test_nfsx_stats.sh NFSXD NFSX

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
NFSX=$(realpath "${2:?usage: test_nfsx_stats.sh NFSXD NFSX}")

if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP needs root (nfsxd handles, privileged source port)"
	exit 0
fi

chmod 755 "$WORK"
EXP=$WORK/export
mkdir -p "$EXP"
chmod 777 "$EXP"
SIZE=$((3 * 1048576 + 1000))
head -c "$SIZE" /dev/urandom >"$EXP/file"

pick_port P || { echo "Bail out! no free port"; exit 1; }
export NFSX_RUN_DIR=$WORK/run
mkdir -p "$NFSX_RUN_DIR"
serve stats "$P" --log-level warn --nfs-vers 3,4 --export "$EXP:rw,no_root_squash"
SOCK=$WORK/stats.state/control.sock
# the socket is made once the loops run, after the NFS port accepts
for _ in $(seq 200); do [ -S "$SOCK" ] && break; sleep 0.1; done
U="nfs://127.0.0.1:$P$EXP"

# stats NAME ARGS...: nfsx stats ARGS, stdout to $WORK/NAME.out, stderr
# to $WORK/NAME.err, exit status in RC
stats() {
	local name=$1
	shift
	timeout 60 "$NFSX" stats "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
	RC=$?
}
show() { tap_diag <"$WORK/$1.out"; tap_diag <"$WORK/$1.err"; }
# st NAME ARGS...: stats of this test's nfsxd, by its state directory
st() {
	local name=$1
	shift
	stats "$name" --state-dir "$WORK/stats.state" "$@"
}

# pytap SCRIPT ARGS...: run a python check script whose check() calls
# print TAP lines in this script's numbering (the preamble defines it)
pytap() {
	local script=$1 out
	shift
	out=$( (cat <<'PY'
import json, math, re, sys
n = int(sys.argv[1])
argv = sys.argv[2:]
def check(c, desc, diag=""):
    global n
    n += 1
    print(("ok" if c else "not ok") + " %d - %s" % (n, desc))
    if not c and diag != "":
        print("# " + str(diag)[:2000].replace("\n", " "))
PY
	cat "$script") | python3 - "$TAP_N" "$@" 2>&1)
	printf '%s\n' "$out"
	TAP_N=$((TAP_N + $(grep -c -E '^(ok|not ok) ' <<<"$out")))
	TAP_FAILED=$((TAP_FAILED + $(grep -c -E '^not ok ' <<<"$out")))
	if ! grep -q -E '^(ok|not ok) ' <<<"$out" || grep -q Traceback <<<"$out"; then
		tap_ok 1 "python check $(basename "$script") ran"
	fi
}

# the calls column of the row ROW of a text report
calls_of() { # NAME ROW...
	local name=$1
	shift
	awk -v row="$*" 'index($0, row " ") == 1 { print $(split(row, a, " ") + 1); exit }' \
		"$WORK/$name.out"
}

# raw: the socket's text, read by python
raw() {
	python3 - "$SOCK" >"$WORK/raw.txt" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"metrics\n")
d = b""
while True:
    b = s.recv(65536)
    if not b:
        break
    d += b
sys.stdout.write(d.decode())
PY
}

# --- a known load ----------------------------------------------------------

"$NFSX" cat "$U/file" | cmp -s - "$EXP/file"
tap_ok $? "nfsx cat over NFSv3 reads the file"
st v3
n=$(calls_of v3 nfs3 READ)
[ "$RC" -eq 0 ] && [ "$n" = 5 ]
tap_ok $? "text report: nfs3 READ 5 calls (3 MiB + 1000 bytes in 1 MiB READs, and one at the end) [$n]" ||
	show v3
grep -q "^nfsxd [0-9]" "$WORK/v3.out" && grep -q "^RPC procedures .*calls .*err%.*queue us.*execute us.*send us.*MiB in.*MiB out" "$WORK/v3.out" &&
	grep -q "mean *p99" "$WORK/v3.out" && grep -q -E "^[0-9]+ clients?, [0-9]+ connections, " "$WORK/v3.out" &&
	grep -q "^Caches " "$WORK/v3.out"
tap_ok $? "text report: header, units in the column heads, caches" || show v3
! grep -q "^op " "$WORK/v3.out"
tap_ok $? "text report: no NFSv4 operations before any (rows without calls left out)" || show v3

"$NFSX" cat "$U/file?version=4.1" | cmp -s - "$EXP/file"
tap_ok $? "nfsx cat over NFSv4.1 reads the file"
st v4
n=$(calls_of v4 op READ)
n3=$(calls_of v4 nfs3 READ)
[ "$RC" -eq 0 ] && [ "$n" = 5 ] && [ "$n3" = 5 ]
tap_ok $? "text report: op READ 5 calls, nfs3 READ still 5 [$n, $n3]" || show v4
grep -q "^NFSv4 operations .*execute us" "$WORK/v4.out" && grep -q "^nfs4 COMPOUND " "$WORK/v4.out"
tap_ok $? "text report: the NFSv4 operations' table and the COMPOUND row" || show v4
grep -q "^listening on 127.0.0.1:$P$" "$WORK/v4.out" && grep -q -E "^open cache +[0-9]+ +[1-9]" "$WORK/v4.out" &&
	grep -q "^NFSv4 state" "$WORK/v4.out" && grep -q -E "^sessions +0$" "$WORK/v4.out"
tap_ok $? "text report: the listening address, the open cache, the NFSv4 state (no session left)" ||
	show v4

"$NFSX" stat "$U/no-such-file" >/dev/null 2>&1
st err
grep -q "^Errors .*status" "$WORK/err.out" && grep -q "^nfs3 LOOKUP *NFS3ERR_NOENT *[1-9]" "$WORK/err.out"
tap_ok $? "text report: errors by status (NFS3ERR_NOENT of LOOKUP)" || show err

# --- JSON against a raw read -----------------------------------------------

stats json --json --socket "$SOCK"
raw
cat >"$WORK/check_json.py" <<'PY'
try:
    d = json.load(open(argv[0]))
    check(True, "--json parses")
except Exception as e:
    check(False, "--json parses", e)
    d = {}
raw = {}
for line in open(argv[1]):
    if line.startswith("#") or not line.strip():
        continue
    m = re.match(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$', line.strip())
    labels = tuple(sorted(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(3) or "")))
    raw[(m.group(1), labels)] = float(m.group(4))
def rv(name, **lab):
    return raw.get((name, tuple(sorted((k, str(v)) for k, v in lab.items()))))
rpc = d.get("rpc", [])
ops = d.get("nfs4_operations", [])
read3 = [r for r in rpc if r["program"] == "nfs" and r["version"] == "3" and r["procedure"] == "READ"]
read4 = [r for r in ops if r["operation"] == "READ"]
check(len(read3) == 1 and read3[0]["calls"] == 5, "JSON: nfs3 READ calls 5", read3)
check(len(read4) == 1 and read4[0]["calls"] == 5, "JSON: NFSv4 READ operations 5", read4)
# every row of the raw text is in the JSON, with the same figures
want = {(k[1]) for k in raw if k[0] == "nfsxd_rpc_calls_total"}
have = {tuple(sorted([("procedure", r["procedure"]), ("program", r["program"]), ("version", r["version"])])) for r in rpc}
check(want == have and len(want) > 3, "JSON: the procedures with calls are the raw text's", (want ^ have))
bad = []
for r in rpc:
    lab = dict(program=r["program"], version=r["version"], procedure=r["procedure"])
    for key, metric in (("calls", "nfsxd_rpc_calls_total"), ("received_bytes", "nfsxd_rpc_received_bytes_total"),
                        ("sent_bytes", "nfsxd_rpc_sent_bytes_total")):
        if r[key] != rv(metric, **lab):
            bad.append((lab, key, r[key], rv(metric, **lab)))
    for t in ("queue", "execute", "send"):
        c = rv("nfsxd_rpc_%s_seconds_count" % t, **lab)
        s = rv("nfsxd_rpc_%s_seconds_sum" % t, **lab)
        if r[t]["count"] != c or abs(r[t]["sum_seconds"] - s) > 1e-12:
            bad.append((lab, t))
    errs = sum(v for k, v in raw.items() if k[0] == "nfsxd_rpc_errors_total" and
               all(x in k[1] for x in lab.items()))
    if r["errors"] != errs:
        bad.append((lab, "errors", r["errors"], errs))
check(not bad, "JSON: calls, bytes, times' counts and sums, errors per procedure = raw", bad)
bad = []
for r in ops:
    for key, metric in (("calls", "nfsxd_nfs4_operations_total"),
                        ("received_bytes", "nfsxd_nfs4_operation_received_bytes_total"),
                        ("sent_bytes", "nfsxd_nfs4_operation_sent_bytes_total")):
        if r[key] != rv(metric, operation=r["operation"]):
            bad.append((r["operation"], key))
    if r["execute"]["count"] != rv("nfsxd_nfs4_operation_execute_seconds_count", operation=r["operation"]):
        bad.append((r["operation"], "execute"))
nops = len([k for k in raw if k[0] == "nfsxd_nfs4_operations_total"])
check(not bad and len(ops) == nops, "JSON: every NFSv4 operation's figures = raw", bad)
# p99 from the buckets: the first bound holding 99% of the count
r = read3[0] if read3 else None
if r:
    lab = (("procedure", "READ"), ("program", "nfs"), ("version", "3"))
    bk = sorted(((float(dict(k[1])["le"]), v) for k, v in raw.items()
                 if k[0] == "nfsxd_rpc_execute_seconds_bucket" and
                 all(x in k[1] for x in lab)), key=lambda x: x[0])
    cnt = r["execute"]["count"]
    p99 = next(le for le, c in bk if c >= math.ceil(cnt * 0.99)) * 1e6
    got = r["execute"]["p99_us"]
    check(got is not None and abs(got - p99) < 1e-6 * p99, "JSON: READ's execute p99 = its bucket's bound (%s us)" % p99, got)
    check(abs(r["execute"]["mean_us"] - r["execute"]["sum_seconds"] / cnt * 1e6) < 1e-6,
          "JSON: mean execute time = sum / count")
else:
    check(False, "JSON: READ's p99")
    check(False, "JSON: READ's mean")
check(d.get("version") == [dict(k[1])["version"] for k in raw if k[0] == "nfsxd_build_info"][0] and
      d.get("start_time") == rv("nfsxd_start_time_seconds") and d.get("uptime_seconds", -1) >= 0,
      "JSON: version, start time, uptime")
srv = d.get("server", {})
bad = [k for k in srv if srv[k] != rv("nfsxd_" + k)]
check(not bad and "drc_misses_total" in srv and "open_cache_hits_total" in srv and
      "nfs4_sessions" in srv and d.get("connections") == rv("nfsxd_connections"),
      "JSON: the caches', the NFSv4 state's and the connections' figures = raw", (bad, srv))
check(d.get("listen") == ["%s:%s" % (dict(k[1])["address"], dict(k[1])["port"])
                          for k in raw if k[0] == "nfsxd_listen_info"] and len(d["listen"]) == 1,
      "JSON: the listening addresses = raw", d.get("listen"))
e = [x for x in d.get("errors", []) if x.get("procedure") == "LOOKUP" and x["status"] == "NFS3ERR_NOENT"]
check(len(e) == 1 and e[0]["count"] == rv("nfsxd_rpc_errors_total", program="nfs", version="3",
      procedure="LOOKUP", status="NFS3ERR_NOENT"), "JSON: errors by status = raw")
PY
pytap "$WORK/check_json.py" "$WORK/json.out" "$WORK/raw.txt"

# --- the live view under load ------------------------------------------------

# (20 s: longer than the checks need under a sanitizer; stopped after them)
timeout 60 "$NFSX" bench --eta=never rw=randread bs=4k iodepth=4 size=4m runtime=20 time_based \
	"$U/bench" >"$WORK/bench.out" 2>&1 &
BENCH=$!
track_pid "$BENCH"
# wait for the measured run (the layout first): READs counted
for _ in $(seq 100); do
	st probe --json
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if [r for r in d["rpc"] if r["procedure"]=="READ" and r["calls"]>100] else 1)' \
		"$WORK/probe.out" 2>/dev/null && break
	sleep 0.1
done
st live -i 1 -c 2
st livejson --json -i 1 -c 2
st during
[ "$RC" -eq 0 ] && [ "$(grep -c -E '^[0-9]{2}:[0-9]{2}:[0-9]{2}  (0\.9[0-9]|1\.[0-9]{2}) s  [0-9.]+ calls/s' "$WORK/live.out")" -eq 2 ]
tap_ok $? "-i 1 -c 2: two blocks of about 1 s" || show live
awk '$1 == "nfs3" && $2 == "READ" && $3 > 0 { n++ } END { exit n == 2 ? 0 : 1 }' "$WORK/live.out" &&
	grep -q "calls/s *errors/s *execute us *MiB/s in *MiB/s out" "$WORK/live.out"
tap_ok $? "-i 1 -c 2: a READ rate in each block, units in the heads" || show live
cat >"$WORK/check_live.py" <<'PY'
lines = open(argv[0]).read().splitlines()
check(len(lines) == 2, "--json -i 1 -c 2: two lines", lines)
ok = 0
for l in lines:
    try:
        o = json.loads(l)
    except Exception as e:
        check(False, "a JSON line parses", e)
        continue
    r = [x for x in o["rpc"] if x["procedure"] == "READ" and x["program"] == "nfs"]
    if (not o["restarted"] and 0.9 < o["interval_seconds"] < 1.5 and r and
            r[0]["calls_per_second"] > 0 and r[0]["execute_mean_us"] > 0 and
            abs(r[0]["calls"] / o["interval_seconds"] - r[0]["calls_per_second"]) < 1e-6 * r[0]["calls"]):
        ok += 1
check(ok == 2, "--json -i: each line an interval of about 1 s with READ's rate and mean time", lines)
PY
pytap "$WORK/check_live.py" "$WORK/livejson.out"
awk '$1 == "Clients" { h = 1; next } h && $1 == "127.0.0.1" && $2 >= 1 && $3 > 0 { ok = 1 } END { exit !ok }' \
	"$WORK/during.out"
tap_ok $? "text report during the load: the client 127.0.0.1 with its connections and calls" ||
	show during
SAMPLE=$WORK/during.out
kill "$BENCH" 2>/dev/null
wait "$BENCH" 2>/dev/null
forget_pid "$BENCH"

# --- --server ----------------------------------------------------------------

# nfsxd links RUNDIR/ADDR:PORT to its socket, RUNDIR $NFSX_RUN_DIR here
LINK=$NFSX_RUN_DIR/127.0.0.1:$P
[ -L "$LINK" ] && [ "$(readlink "$LINK")" = "$SOCK" ]
tap_ok $? "nfsxd linked \$NFSX_RUN_DIR/127.0.0.1:PORT to its socket" ||
	find "$NFSX_RUN_DIR" -printf "%p -> %l\n" | tap_diag
stats srv --server "127.0.0.1:$P" --json
[ "$RC" -eq 0 ] && python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["version"] else 1)' "$WORK/srv.out"
tap_ok $? "--server 127.0.0.1:PORT: read through \$NFSX_RUN_DIR's link" || show srv
stats srv2 --server "localhost:$P"
[ "$RC" -eq 2 ] && grep -q "numeric address" "$WORK/srv2.err"
tap_ok $? "--server localhost:PORT: exit 2, a numeric address wanted" || show srv2
pick_port Q
stats nolink --server "127.0.0.1:$Q"
[ "$RC" -eq 1 ] && grep -q -F "$NFSX_RUN_DIR/127.0.0.1:$Q" "$WORK/nolink.err"
tap_ok $? "--server with no link: exit 1, the path looked at named" || show nolink
stats nolink6 --server "[::0:1]:$Q"
[ "$RC" -eq 1 ] && grep -q -F "$NFSX_RUN_DIR/[::1]:$Q" "$WORK/nolink6.err"
tap_ok $? "--server [::0:1]:PORT looks for [::1]:PORT" || show nolink6
pick_port R
ln -s "$SOCK" "$NFSX_RUN_DIR/0.0.0.0:$R"
stats wild --server "127.0.0.1:$R" --json
[ "$RC" -eq 0 ]
tap_ok $? "--server 127.0.0.1:PORT finds a server bound to 0.0.0.0:PORT" || show wild
ln -s "$WORK/gone.sock" "$NFSX_RUN_DIR/127.0.0.1:$Q"
stats dangling --server "127.0.0.1:$Q"
[ "$RC" -eq 1 ] && grep -q "no such socket" "$WORK/dangling.err" &&
	grep -q -F "the link $NFSX_RUN_DIR/127.0.0.1:$Q is left" "$WORK/dangling.err"
tap_ok $? "--server with a link left by a stopped server: said so" || show dangling

# --- fake sockets: a restart, malformed text, an error line -------------------

# fake.py SOCKET FILE...: answer the Nth connection with the Nth FILE
# (the last one again after)
cat >"$WORK/fake.py" <<'PY'
import os, socket, sys
path, files = sys.argv[1], sys.argv[2:]
s = socket.socket(socket.AF_UNIX)
s.bind(path)
s.listen(8)
i = 0
while True:
    c, _ = s.accept()
    c.recv(100)
    c.sendall(open(files[min(i, len(files) - 1)], "rb").read())
    c.close()
    i += 1
PY
text() { # START_TIME READ_CALLS
	printf 'nfsxd_build_info{version="x"} 1\nnfsxd_start_time_seconds %s\n' "$1"
	printf 'nfsxd_rpc_calls_total{program="nfs",version="3",procedure="READ"} %s\n' "$2"
	printf 'nfsxd_rpc_sent_bytes_total{program="nfs",version="3",procedure="READ"} %s\n' "$(($2 * 4096))"
}
text 100 1000 >"$WORK/t1"
text 100 3000 >"$WORK/t2"
text 100 10 >"$WORK/t3"     # counters down, same start time
text 100 500 >"$WORK/t4"
fake() { # NAME FILE...
	local name=$1
	shift
	python3 "$WORK/fake.py" "$WORK/$name.sock" "$@" &
	track_pid $!
	for _ in $(seq 50); do [ -S "$WORK/$name.sock" ] && break; sleep 0.1; done
}
fake restart "$WORK/t1" "$WORK/t2" "$WORK/t3" "$WORK/t4"
stats restart --socket "$WORK/restart.sock" -i 0.2 -c 3
[ "$RC" -eq 0 ] && [ "$(grep -c 'restarted' "$WORK/restart.out")" -eq 1 ] &&
	awk '$1 == "nfs3" && $2 == "READ" { n++; if ($3 < 0) bad = 1 } END { exit (n == 2 && !bad) ? 0 : 1 }' \
		"$WORK/restart.out" && ! grep -q -- ' -[0-9]' "$WORK/restart.out"
tap_ok $? "counters going down: the block says the server restarted, no negative rate" ||
	show restart
awk 'NR == 1 && $5 == "calls/s" { r = $4 } END { exit (r > 5000 && r < 12000) ? 0 : 1 }' "$WORK/restart.out"
tap_ok $? "the first block's rate: 2000 calls in 0.2 s" || show restart
kill %% 2>/dev/null
fake restartjson "$WORK/t1" "$WORK/t3" "$WORK/t4"
stats restartjson --socket "$WORK/restartjson.sock" --json -i 0.2 -c 2
python3 - "$WORK/restartjson.out" <<'PY'
import json, sys
l = [json.loads(x) for x in open(sys.argv[1])]
assert len(l) == 2 and l[0]["restarted"] and "rpc" not in l[0]
assert not l[1]["restarted"] and l[1]["rpc"][0]["calls"] == 490, l
PY
tap_ok $? "--json -i: a restart is \"restarted\": true, rates from the next interval" ||
	show restartjson
text 100 1000 >"$WORK/t5"
printf 'nfsxd_rpc_calls_total{program="nfs"} 1\nbroken line here\n' >>"$WORK/t5"
fake malformed "$WORK/t5"
stats malformed --socket "$WORK/malformed.sock"
[ "$RC" -eq 1 ] && grep -q -F "$WORK/malformed.sock: line 6: bad value" "$WORK/malformed.err"
tap_ok $? "malformed text: exit 1, the socket and the line number named" || show malformed
printf 'error: unknown request (known: metrics)\n' >"$WORK/t6"
fake errline "$WORK/t6"
stats errline --socket "$WORK/errline.sock"
[ "$RC" -eq 1 ] && grep -q "the server says: error: unknown request" "$WORK/errline.err"
tap_ok $? "the server's error line passed on, exit 1" || show errline

# the series nfsxd adds for the open cache, the NFSv4 state and the
# listening addresses: shown when written (their absence is the real
# nfsxd's case above, where the report leaves them out)
{
	text 100 1000
	printf 'nfsxd_open_cache_hits_total 30\nnfsxd_open_cache_misses_total 10\n'
	printf 'nfsxd_open_cache_evictions_total 2\nnfsxd_open_cache_objects 7\n'
	printf 'nfsxd_open_cache_pinned_objects 3\nnfsxd_open_cache_mapped_bytes 2097152\n'
	printf 'nfsxd_nfs4_clients 2\nnfsxd_nfs4_sessions 3\nnfsxd_nfs4_opens 4\n'
	printf 'nfsxd_nfs4_locks 5\nnfsxd_nfs4_delegations 6\nnfsxd_nfs4_slot_replays_total 7\n'
	printf 'nfsxd_nfs4_slot_uncached_retries_total 8\nnfsxd_nfs4_seqid_replays_total 9\n'
	printf 'nfsxd_listen_info{address="127.0.0.1",port="2049"} 1\n'
	printf 'nfsxd_listen_info{address="::1",port="2049"} 1\n'
} >"$WORK/t7"
fake coming "$WORK/t7"
stats coming --socket "$WORK/coming.sock"
[ "$RC" -eq 0 ] && grep -q "^listening on 127.0.0.1:2049 \[::1\]:2049$" "$WORK/coming.out" &&
	grep -q -E "^open cache +30 +10 +75.0 +2 +7 +2.00$" "$WORK/coming.out" &&
	grep -q -E "^open cache: 3 objects pinned" "$WORK/coming.out" &&
	grep -q "^NFSv4 state" "$WORK/coming.out" && grep -q -E "^sessions +3$" "$WORK/coming.out" &&
	grep -q -E "^seqid replays +9$" "$WORK/coming.out" && ! grep -q "^DRC" "$WORK/coming.out"
tap_ok $? "open cache, NFSv4 state, listening addresses shown when written, the DRC not when not" ||
	show coming
stats comingjson --socket "$WORK/coming.sock" --json
python3 - "$WORK/comingjson.out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["server"]
assert s["open_cache_hits_total"] == 30 and s["nfs4_sessions"] == 3 and s["nfs4_seqid_replays_total"] == 9, s
assert "drc_hits_total" not in s and d["listen"] == ["127.0.0.1:2049", "[::1]:2049"], d
PY
tap_ok $? "--json: the same figures under nfsxd's names, absent ones left out" || show comingjson
timeout 20 "$NFSX" stats --socket "$WORK/coming.sock" -i 0.05 2>"$WORK/pipe.err" | head -1 >/dev/null
[ "${PIPESTATUS[0]}" -eq 0 ] && [ ! -s "$WORK/pipe.err" ]
tap_ok $? "-i without -c into head -1: ends quietly when the reader goes" || tap_diag <"$WORK/pipe.err"

# --- errors and usage ----------------------------------------------------------

stats missing --state-dir "$WORK/nowhere"
[ "$RC" -eq 1 ] && grep -q -F "$WORK/nowhere/control.sock: no such socket" "$WORK/missing.err" &&
	grep -q -F -- "--state-dir $WORK/nowhere" "$WORK/missing.err"
tap_ok $? "a missing socket: exit 1, the path and 'is nfsxd running with --state-dir' named" ||
	show missing
timeout 60 setpriv --reuid=65534 --regid=65534 --clear-groups "$NFSX" stats --state-dir \
	"$WORK/stats.state" >"$WORK/denied.out" 2>"$WORK/denied.err"
RC=$?
[ "$RC" -eq 1 ] && grep -q -F "$SOCK: permission denied" "$WORK/denied.err" &&
	grep -q "run nfsx stats as that user or root" "$WORK/denied.err"
tap_ok $? "a socket nobody may not open: exit 1, the path and what to do named" || show denied
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$WORK/dead.sock"
stats refused --socket "$WORK/dead.sock"
[ "$RC" -eq 1 ] && grep -q -F "$WORK/dead.sock: connection refused" "$WORK/refused.err"
tap_ok $? "a socket nothing listens on: exit 1, connection refused" || show refused

usage() { # DESCRIPTION ARGS...
	local desc=$1
	shift
	stats usage "$@"
	[ "$RC" -eq 2 ] && [ -s "$WORK/usage.err" ] && [ ! -s "$WORK/usage.out" ]
	tap_ok $? "$desc: exit 2" || show usage
}
usage "an unknown option" --bogus
usage "-i 0" -i 0
usage "-i abc" -i abc
usage "-c without -i" -c 3
usage "-c 0" -i 1 -c 0
usage "--socket and --state-dir together" --socket /x --state-dir /y
usage "an argument" extra
usage "--server without a port" --server 127.0.0.1
usage "-i without a value" -i
stats help --help
[ "$RC" -eq 0 ] && grep -q "^usage: nfsx stats" "$WORK/help.out"
tap_ok $? "--help: the usage, exit 0" || show help

[ -n "${STATS_SAMPLE:-}" ] && cp "$SAMPLE" "$STATS_SAMPLE"
alive "$PID" && stop_nfsxd "$PID" "$STOP_TMO" && [ "$STOP_STATUS" -eq 0 ]
tap_ok $? "nfsxd still running, stops cleanly" || show_log stats
stats gone --server "127.0.0.1:$P"
[ "$RC" -eq 1 ] && [ ! -e "$LINK" ] && grep -q -F "no control socket link (looked for $LINK" "$WORK/gone.err"
tap_ok $? "nfsxd stopped: its link gone, --server says where it looked" || show gone
logs_clean
tap_ok $? "no sanitizer report in nfsxd's log"
tap_done
