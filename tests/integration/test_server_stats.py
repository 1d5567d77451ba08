#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""nfsxd's statistics: the control socket and the Prometheus endpoint (TAP).

usage: test_server_stats.py NFSXD

Starts nfsxd on 127.0.0.1 (ports the test picks, its own state directory,
--metrics on a loopback port, NFSX_RUN_DIR in the test's directory), sends
calls of known number and shape with a raw ONC RPC client (so every count
and byte is known), and checks:
- STATE_DIR/control.sock is a socket of mode 0600, the link
  RUNDIR/127.0.0.1:PORT points to it, both go when nfsxd stops;
- calls, bytes in and out, errors by status and the RPC rejections
  (PROG_UNAVAIL, PROG_MISMATCH, PROC_UNAVAIL, GARBAGE_ARGS) exactly;
- NFSv4 operations inside COMPOUNDs counted one by one (OP_ILLEGAL too);
- every histogram: cumulative buckets, +Inf equal to _count, _count equal
  to the calls;
- per connection and per client address, the calls of a connection still
  open;
- the endpoint, read with an HTTP client and parsed with the Prometheus
  project's text-format parser (python3-prometheus-client): the families
  and their types; no per-connection series there; 404 and 405;
- --stats off: no per-procedure series, the connection figures stay;
- without --metrics, nfsxd listens on no port of its own but NFS's.
"""
import os
import signal
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:
    # Debian's package, when python3 is not Debian's (pyenv and the like)
    sys.path.append("/usr/lib/python3/dist-packages")
    try:
        from prometheus_client.parser import text_string_to_metric_families
    except ImportError:
        text_string_to_metric_families = None

n = 0
failed = 0


def ok(cond, desc, diag=""):
    global n, failed
    n += 1
    print(("ok" if cond else "not ok") + " %d - %s" % (n, desc))
    if not cond:
        failed += 1
        for line in str(diag).splitlines()[:40]:
            print("# " + line)
    return cond


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Rpc:
    """A raw ONC RPC client on one TCP connection (AUTH_NONE)."""

    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.xid = 0x1000

    def call_raw(self, prog, vers, proc, args=b""):
        """Send a call; return (record length sent, reply record)."""
        self.xid += 1
        body = struct.pack(">IIIIII", self.xid, 0, 2, prog, vers, proc)
        body += struct.pack(">IIII", 0, 0, 0, 0) + args
        self.s.sendall(struct.pack(">I", 0x80000000 | len(body)) + body)
        return len(body) + 4, self.read_record()

    def read_record(self):
        rec = b""
        while True:
            hdr = self.recv(4)
            (m,) = struct.unpack(">I", hdr)
            rec += self.recv(m & 0x7FFFFFFF)
            if m & 0x80000000:
                return rec

    def recv(self, k):
        b = b""
        while len(b) < k:
            x = self.s.recv(k - len(b))
            if not x:
                raise EOFError("connection closed")
            b += x
        return b

    def port(self):
        return self.s.getsockname()[1]

    def close(self):
        self.s.close()


def control(path):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
    s.connect(path)
    s.sendall(b"metrics\n")
    d = b""
    while True:
        x = s.recv(65536)
        if not x:
            break
        d += x
    s.close()
    return d.decode()


def parse(text):
    """{(name, frozenset(labels)): value} of a Prometheus text."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        name_labels, value = line.rsplit(" ", 1)
        if "{" in name_labels:
            name, rest = name_labels.split("{", 1)
            labels = []
            for kv in rest.rstrip("}").split('",'):
                k, v = kv.split("=", 1)
                labels.append((k, v.strip('"')))
            key = (name, frozenset(labels))
        else:
            key = (name_labels, frozenset())
        out[key] = float(value)
    return out


def get(m, name, **labels):
    return m.get((name, frozenset(labels.items())))


def proc_labels(prog, vers, proc):
    return {"program": prog, "version": str(vers), "procedure": proc}


def start(nfsxd, work, extra, env):
    port = free_port()
    state = os.path.join(work, "state-%d" % port)
    os.makedirs(os.path.join(work, "export"), exist_ok=True)
    log = open(os.path.join(work, "nfsxd-%d.log" % port), "w")
    p = subprocess.Popen([nfsxd, "-f", "--no-rpcbind", "-p", str(port), "--state-dir", state,
                          "-e", os.path.join(work, "export") + ":rw,insecure"] + extra,
                         stdout=log, stderr=subprocess.STDOUT, env=env)
    # ready: the control socket is made once the loops run, after the
    # NFS port already accepts connections
    for _ in range(400):
        if os.path.exists(os.path.join(state, "control.sock")):
            break
        time.sleep(0.05)
    return p, port, state


def stop(p):
    p.send_signal(signal.SIGTERM)
    try:
        return p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        return -1


def histograms_sane(m, name):
    """Every histogram of family @name: buckets cumulative, +Inf = _count."""
    series = {}
    for (nm, labels), v in m.items():
        if nm == name + "_bucket":
            d = dict(labels)
            le = d.pop("le")
            series.setdefault(frozenset(d.items()), []).append(
                (float("inf") if le == "+Inf" else float(le), v))
    bad = []
    for key, buckets in series.items():
        buckets.sort()
        counts = [v for _, v in buckets]
        cnt = m.get((name + "_count", key))
        if counts != sorted(counts) or buckets[-1][0] != float("inf") or counts[-1] != cnt:
            bad.append((dict(key), counts, cnt))
    return len(series), bad


def nfs4_compound(ops, minor=0):
    """COMPOUND4args with an empty tag and @ops (opcode, args bytes)."""
    b = struct.pack(">III", 0, minor, len(ops))
    for op, args in ops:
        b += struct.pack(">I", op) + args
    return b


OP_GETATTR, OP_PUTROOTFH = 9, 24


def main():
    nfsxd = sys.argv[1]
    work = tempfile.mkdtemp(prefix="nfsx-stats.")
    rundir = os.path.join(work, "run")
    env = dict(os.environ, NFSX_RUN_DIR=rundir)
    mport = free_port()
    p, port, state = start(nfsxd, work, ["--metrics", "127.0.0.1:%d" % mport], env)
    sock = os.path.join(state, "control.sock")

    st = os.stat(sock)
    ok(stat.S_ISSOCK(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600
       and st.st_uid == os.geteuid(), "control.sock: a socket, mode 0600, ours",
       oct(st.st_mode))
    link = os.path.join(rundir, "127.0.0.1:%d" % port)
    ok(os.path.islink(link) and os.readlink(link) == os.path.realpath(sock),
       "RUNDIR/127.0.0.1:PORT links to the socket", repr(os.listdir(work)))

    # Known calls on one connection: 5 NFSv3 NULL, 3 GETATTR of a handle
    # that is not one of ours, MOUNT NULL, and the rejections.
    c = Rpc(port)
    sent = got = 0
    for _ in range(5):
        k, r = c.call_raw(100003, 3, 0)
        sent += k
        got += len(r) + 4
    ga_err = None
    for _ in range(3):
        k, r = c.call_raw(100003, 3, 1, struct.pack(">I", 8) + b"\0" * 8)
        ga_err = struct.unpack(">I", r[24:28])[0]
    c.call_raw(100005, 3, 0)
    c.call_raw(100099, 1, 0)          # no such program
    c.call_raw(100099, 1, 0)
    c.call_raw(100003, 7, 0)          # no such version
    c.call_raw(100003, 3, 99)         # no such procedure
    c.call_raw(100003, 3, 0, b"junk")  # NULL takes no arguments
    # NFSv4.0: two COMPOUNDs of PUTROOTFH + GETATTR, one with an illegal op
    getattr_args = struct.pack(">II", 1, 0x00000002)  # bitmap: type
    for _ in range(2):
        k, r = c.call_raw(100003, 4, 1, nfs4_compound([(OP_PUTROOTFH, b""),
                                                     (OP_GETATTR, getattr_args)]))
    c.call_raw(100003, 4, 1, nfs4_compound([(OP_PUTROOTFH, b""), (12345, b"")]))

    # The export's root by MOUNT, then three GETATTRs of it: the open
    # cache finds it at least twice.
    exp = os.path.join(work, "export").encode()
    pad = b"\0" * (-len(exp) % 4)
    k, r = c.call_raw(100005, 3, 1, struct.pack(">I", len(exp)) + exp + pad)
    (mst, fhlen) = struct.unpack(">II", r[24:32])
    fh = r[32:32 + fhlen]
    for _ in range(3):
        c.call_raw(100003, 3, 1, struct.pack(">I", fhlen) + fh + b"\0" * (-fhlen % 4))
    # NFSv4.0 SETCLIENTID: one client record (unconfirmed)
    cid = b"nfsx-stats-test"
    setclientid = (b"\1" * 8 + struct.pack(">I", len(cid)) + cid + b"\0" * (-len(cid) % 4)
                   + struct.pack(">I", 0x40000000) + struct.pack(">I", 3) + b"tcp\0"
                   + struct.pack(">I", 15) + b"127.0.0.1.3.231\0" + struct.pack(">I", 1))
    c.call_raw(100003, 4, 1, nfs4_compound([(35, setclientid)]))

    m = parse(control(sock))
    L = proc_labels
    ok(mst == 0 and get(m, "nfsxd_rpc_calls_total", **L("mountd", 3, "MNT")) == 1 and
       get(m, "nfsxd_rpc_calls_total", **L("nfs", 3, "GETATTR")) == 6,
       "MNT 1 (status %d), GETATTR 6" % mst)
    hits = get(m, "nfsxd_open_cache_hits_total")
    ok(hits is not None and hits >= 2 and get(m, "nfsxd_open_cache_objects") >= 1,
       "open cache: the root found at least twice, kept", (hits, get(m,
          "nfsxd_open_cache_misses_total"), get(m, "nfsxd_open_cache_objects")))
    ok(get(m, "nfsxd_nfs4_clients") == 1 and get(m, "nfsxd_nfs4_sessions") == 0 and
       get(m, "nfsxd_nfs4_opens") == 0, "NFSv4 state: 1 client, no session, no open",
       (get(m, "nfsxd_nfs4_clients"), get(m, "nfsxd_nfs4_sessions")))
    ok(get(m, "nfsxd_rpc_calls_total", **L("nfs", 3, "NULL")) == 6,
       "NFSv3 NULL: 6 calls (5, and one with arguments)",
       get(m, "nfsxd_rpc_calls_total", **L("nfs", 3, "NULL")))
    ok(get(m, "nfsxd_rpc_calls_total", **L("mountd", 3, "NULL")) == 1, "MOUNT NULL: 1 call")
    errs = {dict(k).get("status"): v for (nm, k), v in m.items()
            if nm == "nfsxd_rpc_errors_total" and dict(k).get("procedure") == "GETATTR"}
    ok(len(errs) == 1 and list(errs.values())[0] == 3 and
       list(errs)[0].startswith("NFS3ERR_") and ga_err != 0,
       "GETATTR: 3 errors under the status's name (%s, %s)" % (list(errs)[:1], ga_err), errs)
    ok(get(m, "nfsxd_rpc_errors_total", status="RPC_GARBAGE_ARGS", **L("nfs", 3, "NULL")) == 1,
       "NULL with arguments: one RPC_GARBAGE_ARGS")
    ok(get(m, "nfsxd_rpc_received_bytes_total", **L("nfs", 3, "NULL")) == sent + 48,
       "NULL: bytes received exact (%d)" % (sent + 48),
       get(m, "nfsxd_rpc_received_bytes_total", **L("nfs", 3, "NULL")))
    ok(get(m, "nfsxd_rpc_sent_bytes_total", **L("nfs", 3, "NULL")) == got + 28,
       "NULL: bytes sent exact", get(m, "nfsxd_rpc_sent_bytes_total", **L("nfs", 3, "NULL")))
    for reason, want in (("PROG_UNAVAIL", 2), ("PROG_MISMATCH", 1), ("PROC_UNAVAIL", 1),
                         ("AUTH_ERROR", 0)):
        ok(get(m, "nfsxd_rpc_rejected_total", reason=reason) == want,
           "rejected %s: %d" % (reason, want), get(m, "nfsxd_rpc_rejected_total",
                                                  reason=reason))
    ok(get(m, "nfsxd_rpc_calls_total", **L("nfs", 4, "COMPOUND")) == 4, "COMPOUND: 4 calls")
    ok(get(m, "nfsxd_nfs4_operations_total", operation="PUTROOTFH") == 3 and
       get(m, "nfsxd_nfs4_operations_total", operation="GETATTR") == 2,
       "operations: PUTROOTFH 3, GETATTR 2")
    ok(get(m, "nfsxd_nfs4_operations_total", operation="ILLEGAL") == 1 and
       get(m, "nfsxd_nfs4_operation_errors_total", operation="ILLEGAL",
           status="NFS4ERR_OP_ILLEGAL") == 1, "an unknown operation: ILLEGAL, NFS4ERR_OP_ILLEGAL")
    ok(get(m, "nfsxd_nfs4_operation_received_bytes_total", operation="GETATTR") == 2 * 12,
       "GETATTR: argument bytes exact (opcode and bitmap)",
       get(m, "nfsxd_nfs4_operation_received_bytes_total", operation="GETATTR"))
    for fam in ("nfsxd_rpc_queue_seconds", "nfsxd_rpc_execute_seconds",
                "nfsxd_rpc_send_seconds", "nfsxd_nfs4_operation_execute_seconds"):
        cnt, bad = histograms_sane(m, fam)
        ok(cnt > 0 and not bad, "%s: %d histograms, cumulative, +Inf = _count" % (fam, cnt),
           bad)
    ok(get(m, "nfsxd_rpc_execute_seconds_count", **L("nfs", 3, "GETATTR")) == 6 and
       get(m, "nfsxd_rpc_send_seconds_count", **L("nfs", 3, "GETATTR")) == 6,
       "GETATTR: 6 execute and send times")
    conn = {dict(k)["id"]: v for (nm, k), v in m.items()
            if nm == "nfsxd_connection_calls_total" and dict(k)["port"] == str(c.port())}
    ok(len(conn) == 1 and list(conn.values())[0] == 22,
       "the open connection: 22 calls, by its port", conn)
    ok(get(m, "nfsxd_client_connections", client="127.0.0.1") == 1 and
       get(m, "nfsxd_client_calls_total", client="127.0.0.1") == 22,
       "client 127.0.0.1: 1 connection, 22 calls")
    ok(get(m, "nfsxd_listen_info", address="127.0.0.1", port=str(port)) == 1,
       "listen_info names the NFS address")

    # The HTTP endpoint, read by an HTTP client, parsed by Prometheus's parser.
    url = "http://127.0.0.1:%d/metrics" % mport
    with urllib.request.urlopen(url, timeout=10) as r:
        ctype = r.headers.get("Content-Type", "")
        text = r.read().decode()
    ok(ctype.startswith("text/plain") and "version=0.0.4" in ctype, "Content-Type 0.0.4", ctype)
    if ok(text_string_to_metric_families is not None,
          "the Prometheus text parser is installed (python3-prometheus-client)"):
        try:
            fams = {f.name: f for f in text_string_to_metric_families(text)}
            perr = ""
        except Exception as e:  # the parser's verdict on the format
            fams, perr = {}, repr(e)
        ok(fams and not perr, "the endpoint's text parses (%d families)" % len(fams), perr)
        want = {"nfsxd_rpc_calls": "counter", "nfsxd_rpc_execute_seconds": "histogram",
                "nfsxd_nfs4_operations": "counter", "nfsxd_connections": "gauge",
                "nfsxd_client_calls": "counter", "nfsxd_drc_hits": "counter"}
        ok(all(n in fams and fams[n].type == t for n, t in want.items()),
           "families and types as Prometheus reads them",
           {n: fams[n].type if n in fams else None for n in want})
        ex = fams.get("nfsxd_rpc_execute_seconds")
        ok(ex is not None and any(s.name.endswith("_bucket") and s.labels.get("le") == "+Inf"
                                  for s in ex.samples), "histograms with +Inf buckets")
    ok("nfsxd_connection_" not in text, "no per-connection series over HTTP")
    raw = socket.create_connection(("127.0.0.1", mport), timeout=10)
    raw.sendall(b"not http at all\r\n\r\n")
    ok(raw.recv(64).startswith(b"HTTP/1.1 400"), "a malformed request: 400")
    raw.close()
    for path, method, code in (("/nope", "GET", 404), ("/metrics", "POST", 405)):
        try:
            urllib.request.urlopen(urllib.request.Request(
                "http://127.0.0.1:%d%s" % (mport, path), method=method,
                data=b"x" if method == "POST" else None), timeout=10)
            got_code = 200
        except urllib.error.HTTPError as e:
            got_code = e.code
        ok(got_code == code, "%s %s: %d" % (method, path, code), got_code)
    c.close()

    ok(stop(p) == 0, "nfsxd stops, status 0")
    ok(not os.path.exists(sock) and not os.path.lexists(link),
       "the socket and its link are gone")

    # --stats off: no per-procedure counts, connections still reported.
    p, port, state = start(nfsxd, work, ["--stats", "off"], env)
    c = Rpc(port)
    c.call_raw(100003, 3, 0)
    m = parse(control(os.path.join(state, "control.sock")))
    ok(not any(nm == "nfsxd_rpc_calls_total" for nm, _ in m) and
       get(m, "nfsxd_client_calls_total", client="127.0.0.1") == 1,
       "--stats off: no procedure series; the client's calls still counted")
    # No --metrics: the only TCP port nfsxd listens on is NFS's.
    ss = subprocess.run(["ss", "-Hltnp"], capture_output=True, text=True).stdout
    mine = [l for l in ss.splitlines() if "pid=%d," % p.pid in l]
    ok(len(mine) == 1 and (":%d " % port) in mine[0],
       "without --metrics, one listening TCP socket (NFS)", "\n".join(mine))
    c.close()
    ok(stop(p) == 0, "nfsxd stops, status 0")

    subprocess.run(["rm", "-rf", work])
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
