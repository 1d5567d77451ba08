#!/bin/bash
# SPDX-License-Identifier: MIT
# TAP smoke test of nfsx bench against nfsxd on a free 127.0.0.1 port:
# short runs (a few seconds each), checked for sanity, not speed:
#   - randrw, 2 jobs, iodepth 8, verify=crc32c, 3 s time_based, JSON:
#     no errors, blocks verified and none bad, IOPS > 0 both ways,
#     percentiles ordered, the NFS operation table agrees with the job
#     counts, the files laid out on the server
#   - sequential read, text report: fio-like sections present
#   - writes with fsync=N, end_fsync, sync=1 (FILE_SYNC): COMMITs counted
#   - verify_only finds a byte corrupted on the server, at its offset
#   - the latency mode (iozone -N like), text and JSON
#   - NFSv4.1 (nfsxd serves 3 and 4): randrw with verify over 2 jobs
#     (JSON nfs_version 4.1, the per-operation table of whole COMPOUNDs),
#     a sequential read by ?version=4.1, writes with verify read back
#     over NFSv3 (verify_only, and byte for byte against the disk), the
#     latency mode (one COMPOUND per WRITE on a file opened once)
#   - NFSv4.2: randrw with verify (JSON nfs_version 4.2, READ by
#     default), read_plus=1 refused over 4.1, read_plus=1 over a sparse
#     file (the hole bytes nfsxd sent as holes counted)
#   - bad options: exit 2 with a message
# Needs root (nfsxd handles; the "secure" export wants a privileged port).
#
# Usage: test_nfsx_bench.sh NFSXD NFSX

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
NFSX=$(realpath "${2:?usage: test_nfsx_bench.sh NFSXD NFSX}")

if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP needs root (nfsxd handles, privileged source port)"
	exit 0
fi

chmod 755 "$WORK"
EXP=$WORK/export
mkdir -p "$EXP"
chmod 777 "$EXP"

pick_port P || { echo "Bail out! no free port"; exit 1; }
start_nfsxd bench --no-rpcbind --port "$P" --bind 127.0.0.1 --log-level warn \
	--nfs-vers 3,4 --export "$EXP:rw,no_root_squash"
PID=$SERVER_PID
if ! wait_port "$P" 10 "$PID"; then
	echo "Bail out! nfsxd did not start listening on 127.0.0.1:$P"
	show_log bench
	exit 1
fi
U="nfs://127.0.0.1:$P$EXP"

# bench NAME ARGS...: stdout to $WORK/NAME.out, stderr to $WORK/NAME-err.log
bench() {
	local name=$1
	shift
	timeout 120 "$NFSX" bench --eta=never "$@" >"$WORK/$name.out" 2>"$WORK/$name-err.log"
	RC=$?
}
show_err() { tap_diag <"$WORK/$1-err.log"; }

# py NAME 'python checks on d (the JSON), printing ok/not ok lines'
# Each check() is one TAP assertion in this script's numbering.
pycheck() {
	local name=$1 code=$2 out
	out=$(python3 - "$WORK/$name.out" "$TAP_N" <<PY
import json, sys
n = int(sys.argv[2])
def check(c, desc):
    global n
    n += 1
    print(("ok" if c else "not ok"), n, "-", desc)
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    check(False, "$name: output parses as JSON (%s)" % e)
    sys.exit(0)
check(True, "$name: output parses as JSON")
$code
PY
)
	printf '%s\n' "$out"
	TAP_N=$((TAP_N + $(grep -c -E '^(ok|not ok) ' <<<"$out")))
	TAP_FAILED=$((TAP_FAILED + $(grep -c -E '^not ok ' <<<"$out")))
}

# --- randrw with verify, two jobs, JSON ---
bench randrw --rw=randrw --rwmixread=60 --bs=4k --iodepth=8 --numjobs=2 --size=8m \
	--runtime=3s --time_based --ramp_time=500ms --verify=crc32c --output-format=json "$U/bench"
tap_ok "$RC" "randrw verify=crc32c, 2 jobs x 8 in flight, 3 s: exit 0" || show_err randrw
pycheck randrw '
g = d["group"]
check(g["jobs"] == 2 and len(d["jobs"]) == 2, "two jobs reported")
check(g["errors"] == 0 and all(j["error"] == 0 for j in d["jobs"]), "no job errors")
v = g["verify"]
check(v["enabled"] and v["bad_blocks"] == 0, "verify on, no bad blocks")
check(v["blocks_checked"] >= g["read"]["total_ios"] > 0,
      "blocks checked (%d) cover every measured read (%d)" % (v["blocks_checked"], g["read"]["total_ios"]))
check(g["read"]["iops"] > 0 and g["write"]["iops"] > 0,
      "IOPS > 0 both ways (r %.0f, w %.0f)" % (g["read"]["iops"], g["write"]["iops"]))
check(2500 <= g["runtime_ms"] <= 6000, "runtime about 3 s (%d ms), ramp excluded" % g["runtime_ms"])
tot = g["read"]["total_ios"] + g["write"]["total_ios"]
frac = g["read"]["total_ios"] / tot
check(0.5 <= frac <= 0.7, "about 60%% reads (%.3f)" % frac)
check(g["read"]["io_bytes"] == 4096 * g["read"]["total_ios"], "read bytes = 4 KiB x reads")
for k in ("read", "write"):
    c = g[k]["clat_ns"]
    p = c["percentile"]
    seq = [c["min"], p["50.000000"], p["90.000000"], p["99.000000"], p["99.900000"], c["max"]]
    check(all(a <= b for a, b in zip(seq, seq[1:])) and c["min"] > 0,
          "%s clat min <= p50 <= p90 <= p99 <= p99.9 <= max: %s" % (k, seq))
    check(c["min"] <= c["mean"] <= c["max"] and c["stddev"] >= 0 and c["N"] == g[k]["total_ios"],
          "%s clat mean within [min, max], N = total_ios" % k)
ops = {o["op"]: o for o in d["nfs_ops"]}
check("READ" in ops and "WRITE" in ops, "mountstats table has READ and WRITE")
check(ops["READ"]["ops"] == g["read"]["total_ios"] and ops["WRITE"]["ops"] == g["write"]["total_ios"],
      "table counts (READ %d, WRITE %d) = measured calls (%d, %d)" % (ops["READ"]["ops"],
      ops["WRITE"]["ops"], g["read"]["total_ios"], g["write"]["total_ios"]))
check(all(o["errors"] == 0 and o["timeouts"] == 0 for o in ops.values()), "no RPC errors or timeouts")
check(ops["WRITE"]["bytes_sent"] > 4096 * ops["WRITE"]["ops"], "WRITE bytes sent include the data")
check(ops["READ"]["rtt_ms_avg"] > 0 and ops["READ"]["exec_ms_avg"] >= ops["READ"]["rtt_ms_avg"],
      "READ exec time >= RTT > 0")
check(d["options"]["rw"] == "randrw" and d["options"]["iodepth"] == 8 and d["options"]["verify"] == "crc32c",
      "options echoed")
'
for j in 0 1; do
	[ "$(stat -c %s "$EXP/bench/nfsx.$j.0" 2>/dev/null)" = $((8 * 1024 * 1024)) ]
	tap_ok $? "job $j laid out its 8 MiB file nfsx.$j.0"
done
python3 - "$EXP/bench/nfsx.1.0" <<'PY'
import struct, sys, zlib
# every 4 KiB block starts with "NFXV" and names its own offset, file and job
f = open(sys.argv[1], "rb").read()
bad = [o for o in range(0, len(f), 4096)
       if f[o:o + 4] != b"NFXV" or struct.unpack_from("<QQIII", f, o + 8)[0] != o
       or struct.unpack_from("<I", f, o + 28)[0] != 1]
sys.exit(1 if bad else 0)
PY
tap_ok $? "every block on the server carries its own offset and job number"

# --- sequential read, text report ---
bench seqread rw=read bs=64k iodepth=4 size=16m runtime=2 "$U/bench"
tap_ok "$RC" "sequential 64 KiB reads, text report: exit 0" || show_err seqread
for s in "read: IOPS=" "BW=" "clat percentiles (usec)" "50.00th=" "99.90th=" \
	"Run status group 0 (all jobs):" "READ: bw=" "NFS operations" "READ "; do
	grep -qF -- "$s" "$WORK/seqread.out"
	tap_ok $? "text report has '$s'" || tap_diag <"$WORK/seqread.out"
done
! grep -q "write: IOPS" "$WORK/seqread.out"
tap_ok $? "a read-only run has no write section"

# --- commits: fsync=N, end_fsync, FILE_SYNC ---
bench commits rw=write bs=16k iodepth=4 size=2m fsync=8 end_fsync=1 sync=1 numjobs=2 \
	nrfiles=2 --output-format=json -v "$U/bench"
tap_ok "$RC" "writes with fsync=8 end_fsync=1 sync=1, 2 jobs x 2 files: exit 0" || show_err commits
pycheck commits '
g = d["group"]
check(g["errors"] == 0, "no errors")
check(g["write"]["total_ios"] == 2 * 128, "each job wrote its 2 MiB once: %d writes" % g["write"]["total_ios"])
ops = {o["op"]: o for o in d["nfs_ops"]}
check(g["sync"]["total_ios"] >= 2 * 128 // 8, "a COMMIT per 8 writes at least (%d)" % g["sync"]["total_ios"])
check(ops.get("COMMIT", {}).get("ops", 0) == g["sync"]["total_ios"], "COMMITs in the table = sync calls")
check(d["options"]["sync"] == "file_sync", "sync=1 reported as file_sync")
'

# --- verify_only finds corruption on the server ---
bench lay rw=read bs=4k size=1m verify=crc32c name=vo "$U/bench"
tap_ok "$RC" "read run with verify lays out vo.0.0" || show_err lay
bench vo_clean verify_only bs=4k size=1m name=vo "$U/bench"
tap_ok "$RC" "verify_only of the intact file: exit 0" || show_err vo_clean
grep -q "verify (crc32c): 256 blocks checked, 0 bad" "$WORK/vo_clean.out"
tap_ok $? "all 256 blocks checked, none bad" || tap_diag <"$WORK/vo_clean.out"
printf '\xA5' | dd of="$EXP/bench/vo.0.0" bs=1 seek=300000 conv=notrunc status=none
bench vo_bad verify_only bs=4k size=1m name=vo "$U/bench"
tap_ok $(( RC != 1 )) "verify_only after a byte was changed on the server: exit 1 (got $RC)"
grep -q "crc32c mismatch in block at offset 299008" "$WORK/vo_bad-err.log" &&
	grep -q "first wrong byte at offset 300000" "$WORK/vo_bad-err.log" &&
	grep -q "vo.0.0" "$WORK/vo_bad-err.log"
tap_ok $? "the message names the file, block 299008 and byte 300000" || show_err vo_bad

# --- latency mode ---
bench lat latency runs=3 size=4m "$U/bench"
tap_ok "$RC" "latency mode (512 KiB writes at depth 1, 3 runs): exit 0" || show_err lat
grep -qE "^per-call latency: mean [0-9.]+ us, standard deviation over 3 runs [0-9.]+ us" "$WORK/lat.out"
tap_ok $? "it reports the mean and standard deviation over the runs" || tap_diag <"$WORK/lat.out"
bench latj latency runs=2 size=2m bs=256k --output-format=json "$U/bench"
tap_ok "$RC" "latency mode, JSON: exit 0" || show_err latj
pycheck latj '
r = d["runs"]
check(d["mode"] == "latency" and len(r) == 2, "two runs")
check(all(x["calls"] == 8 for x in r), "8 calls of 256 KiB per 2 MiB run")
check(all(x["mean_us"] > 0 and x["p50_us"] <= x["p99_us"] <= x["max_us"] for x in r), "per-run figures ordered")
m = sum(x["mean_us"] for x in r) / 2
check(abs(d["mean_us"] - m) < 1e-6 * max(m, 1), "mean over runs = mean of run means")
check(d["all_calls"]["calls"] == 16, "16 calls in all")
ops = {o["op"]: o for o in d["nfs_ops"]}
check(ops["WRITE"]["ops"] == 16 and ops["COMMIT"]["ops"] == 2, "16 WRITEs and 2 COMMITs in the table")
'
[ ! -e "$EXP/bench/nfsx.latency" ]
tap_ok $? "the latency file is removed afterwards"

# --- NFSv4.1 ---
bench v4rw nfs_version=4.1 --rw=randrw --rwmixread=60 --bs=4k --iodepth=8 --numjobs=2 \
	--size=4m --runtime=2s --time_based --ramp_time=300ms --verify=crc32c \
	--output-format=json "$U/bench4"
tap_ok "$RC" "NFSv4.1 randrw verify=crc32c, 2 jobs x 8 in flight: exit 0" || show_err v4rw
pycheck v4rw '
g = d["group"]
check(d["options"]["nfs_version"] == 4.1, "JSON nfs_version is 4.1 (%r)" % d["options"]["nfs_version"])
check(g["errors"] == 0 and all(j["error"] == 0 for j in d["jobs"]), "no job errors")
v = g["verify"]
check(v["enabled"] and v["bad_blocks"] == 0 and v["blocks_checked"] >= g["read"]["total_ios"] > 0,
      "verify: %d blocks checked, none bad" % v["blocks_checked"])
check(g["read"]["iops"] > 0 and g["write"]["iops"] > 0, "IOPS > 0 both ways")
ops = {o["op"]: o for o in d["nfs_ops"]}
check(ops.get("READ", {}).get("ops") == g["read"]["total_ios"] and
      ops.get("WRITE", {}).get("ops") == g["write"]["total_ios"],
      "table: one READ/WRITE COMPOUND per measured call (%s)" % sorted(ops))
check(set(ops) <= {"READ", "WRITE", "COMMIT"},
      "rows of the measured period: READ, WRITE, COMMIT only, no OPEN, CLOSE or bare COMPOUND (%s)"
      % sorted(ops))
check(all(o["errors"] == 0 and o["timeouts"] == 0 for o in ops.values()), "no RPC errors or timeouts")
check(ops["WRITE"]["bytes_sent"] > 4096 * ops["WRITE"]["ops"], "WRITE bytes sent include the data")
check(ops["READ"]["bytes_recv"] > 4096 * ops["READ"]["ops"], "READ bytes received include the data")
check(ops["READ"]["rtt_ms_avg"] > 0 and ops["READ"]["exec_ms_avg"] >= ops["READ"]["rtt_ms_avg"]
      and ops["READ"]["queue_ms_avg"] >= 0, "READ queue, RTT and exec times (exec >= RTT > 0)")
'
for j in 0 1; do
	[ "$(stat -c %s "$EXP/bench4/nfsx.$j.0" 2>/dev/null)" = $((4 * 1024 * 1024)) ]
	tap_ok $? "NFSv4.1 job $j laid out its 4 MiB file"
done

bench v4read rw=read bs=64k iodepth=4 size=8m runtime=2 "$U/bench4?version=4.1"
tap_ok "$RC" "NFSv4.1 by the URL (?version=4.1): sequential 64 KiB reads: exit 0" || show_err v4read
for s in "read: IOPS=" "NFS operations (NFSv4.1" "READ "; do
	grep -qF -- "$s" "$WORK/v4read.out"
	tap_ok $? "text report has '$s'" || tap_diag <"$WORK/v4read.out"
done

bench v4w nfs_version=4 rw=write bs=128k iodepth=4 size=4m verify=crc32c end_fsync=1 name=w41 \
	--output-format=json "$U/bench4"
tap_ok "$RC" "nfs_version=4: sequential 128 KiB writes with verify: exit 0" || show_err v4w
pycheck v4w '
g = d["group"]
check(d["options"]["nfs_version"] == 4.2, "version 4 is the highest both speak: NFSv4.2 (%r)" % d["options"]["nfs_version"])
check(g["errors"] == 0 and g["write"]["total_ios"] == 32, "32 writes (%d)" % g["write"]["total_ios"])
check(g["verify"]["bad_blocks"] == 0 and g["verify"]["blocks_checked"] >= 32, "read back over NFSv4.2, none bad")
ops = {o["op"]: o for o in d["nfs_ops"]}
check(ops.get("COMMIT", {}).get("ops", 0) >= 1, "end_fsync COMMITted")
'
bench v4to3 verify_only nfs_version=3 bs=128k size=4m name=w41 "$U/bench4"
tap_ok "$RC" "the files written over NFSv4.2 verified over NFSv3: exit 0" || show_err v4to3
grep -q "verify (crc32c): 32 blocks checked, 0 bad" "$WORK/v4to3.out"
tap_ok $? "all 32 blocks intact over NFSv3" || tap_diag <"$WORK/v4to3.out"
timeout 60 "$NFSX" cat "$U/bench4/w41.0.0" >"$WORK/w41.v3" 2>"$WORK/w41-err.log" &&
	cmp -s "$WORK/w41.v3" "$EXP/bench4/w41.0.0" && [ -s "$WORK/w41.v3" ]
tap_ok $? "read by NFSv3 (nfsx cat), the file is byte for byte the one on disk" || show_err w41

bench v4lat latency nfs_version=4.1 runs=2 size=2m bs=256k --output-format=json "$U/bench4"
tap_ok "$RC" "NFSv4.1 latency mode, JSON: exit 0" || show_err v4lat
pycheck v4lat '
check(d["options"]["nfs_version"] == 4.1 and len(d["runs"]) == 2, "two runs over NFSv4.1")
ops = {o["op"]: o for o in d["nfs_ops"]}
check(ops.get("WRITE", {}).get("ops") == 16 and ops.get("COMMIT", {}).get("ops") == 2,
      "16 WRITE and 2 COMMIT COMPOUNDs (%s)" % sorted(ops))
check("OPEN" not in ops and "CLOSE" not in ops, "the file is opened once, not per WRITE")
'
# --- NFSv4.2 ---
bench v42 nfs_version=4.2 --rw=randrw --bs=8k --iodepth=8 --size=4m --runtime=1s --time_based \
	--verify=crc32c --output-format=json "$U/bench4"
tap_ok "$RC" "NFSv4.2 randrw verify=crc32c: exit 0" || show_err v42
pycheck v42 '
g = d["group"]
check(d["options"]["nfs_version"] == 4.2 and d["options"]["read_plus"] is False,
      "JSON nfs_version 4.2, read_plus false (%r)" % d["options"]["nfs_version"])
check(g["errors"] == 0 and g["verify"]["bad_blocks"] == 0 and g["verify"]["blocks_checked"] > 0,
      "verify over NFSv4.2: %d blocks checked, none bad" % g["verify"]["blocks_checked"])
ops = {o["op"]: o for o in d["nfs_ops"]}
check(ops.get("READ", {}).get("ops") == g["read"]["total_ios"] > 0, "READs, not READ_PLUS, by default")
'
bench v42rp41 nfs_version=4.1 read_plus=1 rw=read "$U/bench4"
[ "$RC" -eq 2 ] && grep -q "read_plus=1 needs NFSv4.2" "$WORK/v42rp41-err.log"
tap_ok $? "read_plus=1 with nfs_version=4.1: exit 2, needs NFSv4.2" || show_err v42rp41
# A sparse file as bench's own (name=sp, one file of 4 MiB): 64 KiB of
# data, then a hole; read whole with READ_PLUS.
mkdir -p "$EXP/bench42"
head -c 65536 /dev/urandom >"$EXP/bench42/sp.0.0"
truncate -s 4M "$EXP/bench42/sp.0.0"
chmod -R a+rwX "$EXP/bench42"
bench v42rp nfs_version=4.2 read_plus=1 name=sp rw=read bs=64k size=4m iodepth=4 \
	--output-format=json "$U/bench42"
tap_ok "$RC" "read_plus=1 over a sparse file: exit 0" || show_err v42rp
pycheck v42rp '
g = d["group"]
check(d["options"]["read_plus"] is True and g["errors"] == 0, "read_plus true, no errors")
check(g["read_plus_hole_bytes"] == 4 * 1024 * 1024 - 65536,
      "hole bytes received: the 4 MiB less 64 KiB of data (%d)" % g["read_plus_hole_bytes"])
ops = {o["op"]: o for o in d["nfs_ops"]}
check(ops.get("READ_PLUS", {}).get("ops") == 64 and "READ" not in ops,
      "64 READ_PLUS COMPOUNDs and no READ (%s)" % sorted(ops))
'
timeout 10 "$NFSX" bench --help 2>&1 | grep -q "nfs_version=V .*3, 4.1, 4.2, or 4"
tap_ok $? "--help names nfs_version 3, 4.1, 4.2 and 4"
timeout 10 "$NFSX" bench --help 2>&1 | grep -q "read_plus=BOOL"
tap_ok $? "--help names read_plus"

# --- bad options ---
bench badrw rw=sideways "$U/bench"
[ "$RC" -eq 2 ] && grep -q "sideways" "$WORK/badrw-err.log"
tap_ok $? "rw=sideways: exit 2 naming the value" || show_err badrw
bench nourl rw=read
[ "$RC" -eq 2 ] && grep -q "nfs://" "$WORK/nourl-err.log"
tap_ok $? "no URL: exit 2" || show_err nourl
bench bigbs bs=4m rw=read size=8m "$U/bench"
[ "$RC" -eq 1 ] && grep -q "rtmax" "$WORK/bigbs-err.log"
tap_ok $? "bs over the server's rtmax: exit 1 naming FSINFO rtmax" || show_err bigbs

if ! stop_nfsxd "$PID" "$STOP_TMO"; then
	tap_ok 1 "nfsxd exits on SIGTERM"
	echo "# STOP_KILLED=$STOP_KILLED STOP_MS=$STOP_MS STOP_STATUS=$STOP_STATUS PID=$PID"
	show_log bench
else
	tap_ok "$STOP_STATUS" "nfsxd exits 0 on SIGTERM"
fi
logs_clean
tap_ok $? "no sanitizer report from nfsxd or nfsx"
tap_done
