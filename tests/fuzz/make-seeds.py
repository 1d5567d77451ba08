#!/usr/bin/env python3
"""Write the seed corpus of the rpc-stream fuzz target (run from anywhere).

Each seed is one byte (the chunk size the target feeds record marking
with) followed by a TCP byte stream of calls: the well-formed calls the
integration tests send, and a few malformed ones, so the fuzzer starts
from every branch of the header, auth and rpcbind argument decoders.
"""
import os
import struct

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "rpc-stream")


def u32(*v):
    return b"".join(struct.pack(">I", x & 0xFFFFFFFF) for x in v)


def opaque(b):
    return u32(len(b)) + b + b"\0" * ((4 - len(b) % 4) % 4)


def authsys(uid=1000, gid=1000, gids=(1000, 27), name=b"client"):
    body = u32(1) + opaque(name) + u32(uid, gid, len(gids), *gids)
    return u32(1) + opaque(body)


NONE = u32(0, 0)


def call(xid, prog, vers, proc, args=b"", cred=NONE, verf=NONE, rpcvers=2):
    return u32(xid, 0, rpcvers, prog, vers, proc) + cred + verf + args


def rec(payload, frags=1):
    """Record-mark payload, split into `frags` fragments."""
    if frags <= 1:
        return u32(0x80000000 | len(payload)) + payload
    step = max(1, len(payload) // frags)
    parts, pos = [], 0
    while pos < len(payload):
        chunk = payload[pos:pos + step]
        pos += len(chunk)
        last = 0x80000000 if pos >= len(payload) else 0
        parts.append(u32(last | len(chunk)) + chunk)
    return b"".join(parts)


def rpcb(prog, vers, netid=b"tcp", addr=b"", owner=b""):
    return u32(prog, vers) + opaque(netid) + opaque(addr) + opaque(owner)


# The target's own credential flavour (fuzz_rpc_stream.c, FUZZ_FLAVOR),
# as RPCSEC_GSS will be checked: a 2-byte reply verifier length, then
# the bytes it is filled with.
def fuzzcred(vlen, fill=b"\xa5"):
    return u32(0x7E570001) + opaque(struct.pack(">H", vlen) + fill)


seeds = {
    "null-nfs": rec(call(1, 100003, 3, 0)),
    "null-mount-authsys": rec(call(2, 100005, 3, 0, cred=authsys())),
    "null-fragments": rec(call(3, 100003, 3, 0, cred=authsys()), frags=4),
    "pipeline": b"".join(rec(call(10 + i, 100003, 3, 0)) for i in range(8)),
    "rpc-mismatch": rec(call(4, 100003, 3, 0, rpcvers=3)),
    "prog-unavail": rec(call(5, 100099, 1, 0)),
    "prog-mismatch": rec(call(6, 100003, 4, 0)),
    "proc-unavail": rec(call(7, 100003, 3, 1)),
    "garbage-args": rec(call(8, 100003, 3, 0, args=u32(1))),
    "bad-cred": rec(call(9, 100003, 3, 0, cred=u32(1, 401) + b"\0" * 404)),
    "bad-verf": rec(call(11, 100003, 3, 0, verf=u32(1, 4, 0))),
    "pmap-getport": rec(call(20, 100000, 2, 3, u32(100003, 3, 6, 0))),
    "pmap-set-unset": rec(call(21, 100000, 2, 1, u32(400000, 1, 6, 1234)))
    + rec(call(22, 100000, 2, 2, u32(400000, 1, 6, 0))),
    "pmap-dump": rec(call(23, 100000, 2, 4)),
    "rpcb3-getaddr": rec(call(24, 100000, 3, 3, rpcb(100003, 3))),
    "rpcb4-set": rec(call(25, 100000, 4, 1, rpcb(400001, 1, b"tcp", b"127.0.0.1.8.1", b"me"))),
    "rpcb4-getversaddr": rec(call(26, 100000, 4, 9, rpcb(100005, 3))),
    "rpcb4-getaddrlist": rec(call(27, 100000, 4, 11, rpcb(100003, 3))),
    "rpcb4-dump-gettime": rec(call(28, 100000, 4, 4)) + rec(call(29, 100000, 4, 6)),
    "huge-fragment": u32(0xFFFFFFFF) + b"\0" * 16,
    "truncated": rec(call(30, 100003, 3, 0))[:20],
    "flavor-null": rec(call(40, 100003, 3, 0, cred=fuzzcred(5, b"abc"))),
    "flavor-prog-mismatch": rec(call(41, 100003, 4, 0, cred=fuzzcred(400))),
    "flavor-garbage-args": rec(call(42, 100005, 3, 0, args=u32(1), cred=fuzzcred(33))),
    "flavor-too-long": rec(call(43, 100003, 3, 0, cred=fuzzcred(401))),
    # REMOVE goes through the DRC: the retransmission is replayed with a
    # verifier of its own.
    "flavor-drc-replay": rec(call(44, 100003, 3, 12, u32(8) + b"\1" * 8 + opaque(b"x"),
                                  cred=fuzzcred(12)))
    + rec(call(44, 100003, 3, 12, u32(8) + b"\1" * 8 + opaque(b"x"), cred=fuzzcred(20))),
}

os.makedirs(out, exist_ok=True)
for name, stream in seeds.items():
    for step in (1, 63):
        with open(os.path.join(out, f"{name}-{step}"), "wb") as f:
            f.write(bytes([step - 1]) + stream)
print(f"wrote {2 * len(seeds)} seeds to {out}")

# xdr-gen: the first byte picks the codec (order of codecs[] in
# fuzz_xdr_gen.c), the rest is that type's encoding.
xout = os.path.join(os.path.dirname(out), "xdr-gen")
entry = rpcb(100003, 3, b"tcp", b"127.0.0.1.8.1", b"superuser")
xseeds = {
    "rpc-msg-call": (0, call(1, 100003, 3, 0, cred=authsys())),
    "rpc-msg-reply": (0, u32(1, 1, 0, 0, 0, 0)),
    "rpc-msg-denied": (0, u32(1, 1, 1, 1, 3)),
    "call-body": (1, u32(2, 100005, 3, 1) + NONE + NONE),
    "opaque-auth": (2, authsys()),
    "authsys": (3, authsys()[8:]),
    "accepted-mismatch": (4, u32(0, 0, 2, 3, 3)),
    "rejected-mismatch": (5, u32(0, 2, 2)),
    "mapping": (6, u32(100003, 3, 6, 2049)),
    "pmaplist": (7, u32(1, 100003, 3, 6, 2049, 1, 100005, 3, 6, 2049, 0)),
    "call-args": (8, u32(100003, 3, 0) + opaque(b"")),
    "call-result": (9, u32(2049) + opaque(b"abc")),
    "rpcb": (10, entry),
    "rpcblist": (11, u32(1) + entry + u32(1) + entry + u32(0)),
    "rpcb-entry-list": (12, u32(1) + opaque(b"127.0.0.1.8.1") + opaque(b"tcp") + u32(3)
                        + opaque(b"inet") + opaque(b"tcp") + u32(0)),
    "rmtcallargs": (13, u32(100003, 3, 0) + opaque(b"")),
    "rmtcallres": (14, opaque(b"127.0.0.1.8.1") + opaque(b"x")),
    "netbuf": (16, u32(16) + opaque(b"\x02\x00\x08\x01" + b"\x7f\0\0\x01" + b"\0" * 8)),
}
os.makedirs(xout, exist_ok=True)
for name, (idx, body) in xseeds.items():
    with open(os.path.join(xout, name), "wb") as f:
        f.write(bytes([idx]) + body)
print(f"wrote {len(xseeds)} seeds to {xout}")

# nfs3-args: the first byte picks the codec (order of codecs[] in
# fuzz_nfs3_args.c: 0..20 NFS v3 arguments of procedures 1..21, 21 the
# MOUNT dirpath, 22..42 NFS v3 results of procedures 1..21, 43..45 the
# MOUNT results mountres3, mountlist and exports, 46 the WRITE3args head); the rest is that
# type's encoding as RFC 1813 lays it out.
nout = os.path.join(os.path.dirname(out), "nfs3-args")


def u64(*v):
    return b"".join(struct.pack(">Q", x & 0xFFFFFFFFFFFFFFFF) for x in v)


def fh3(n=32):
    return opaque(bytes((7 * i + 1) & 0xFF for i in range(n)))


def fattr3(ftype=1):
    return (u32(ftype, 0o644, 1, 1000, 100) + u64(12345, 16384) + u32(0, 0)
            + u64(0x1122334455667788, 42) + u32(1700000000, 1, 1700000001, 2, 1700000002, 3))


def post_attr(follow=True, ftype=1):
    return u32(1) + fattr3(ftype) if follow else u32(0)


def wcc(before=True, after=True):
    pre = u32(1) + u64(4096) + u32(1700000000, 5, 1700000000, 6) if before else u32(0)
    return pre + post_attr(after)


def post_fh(follow=True):
    return u32(1) + fh3() if follow else u32(0)


def sattr3(mode=None, uid=None, gid=None, size=None, atime=0, mtime=0):
    out_ = b""
    for v in (mode, uid, gid):
        out_ += u32(0) if v is None else u32(1, v)
    out_ += u32(0) if size is None else u32(1) + u64(size)
    for how in (atime, mtime):
        out_ += u32(how) + (u32(1700000000, 0) if how == 2 else b"")
    return out_


def dirop(name=b"file.txt", n=32):
    return fh3(n) + opaque(name)


VERF = b"\x01\x23\x45\x67\x89\xab\xcd\xef"
SATTR_ALL = sattr3(0o755, 1000, 100, 0, 2, 2)


def entries(names, plus=False):
    body = b""
    for i, name in enumerate(names):
        body += u32(1) + u64(100 + i) + opaque(name) + u64(i + 1)
        if plus:
            body += post_attr(i % 2 == 0) + post_fh(i % 3 != 2)
    return body + u32(0)


NAMES = [b".", b"..", b"a", b"hello.c", b"a longer file name"]
OK = u32(0)
nseeds = {
    # arguments
    "getattr-args": (0, fh3()),
    "setattr-args-all": (1, fh3() + SATTR_ALL + u32(1, 1700000000, 0)),
    "setattr-args-none": (1, fh3(8) + sattr3() + u32(0)),
    "setattr-args-server-time": (1, fh3() + sattr3(size=0, atime=1, mtime=1) + u32(0)),
    "lookup-args": (2, dirop()),
    "lookup-args-fh64": (2, dirop(b"x", 64)),
    "access-args": (3, fh3() + u32(0x3F)),
    "readlink-args": (4, fh3()),
    "read-args": (5, fh3() + u64(8192) + u32(65536)),
    "write-args-unstable": (6, fh3() + u64(0) + u32(5, 0) + opaque(b"hello")),
    "write-args-data-sync": (6, fh3() + u64(4096) + u32(8, 1) + opaque(b"12345678")),
    "write-args-file-sync": (6, fh3() + u64(1 << 40) + u32(0, 2) + opaque(b"")),
    "create-args-unchecked": (7, dirop(b"new") + u32(0) + SATTR_ALL),
    "create-args-guarded": (7, dirop(b"new") + u32(1) + sattr3(mode=0o600)),
    "create-args-exclusive": (7, dirop(b"new") + u32(2) + VERF),
    "mkdir-args": (8, dirop(b"dir") + sattr3(mode=0o755)),
    "symlink-args": (9, dirop(b"link") + sattr3() + opaque(b"../target")),
    "mknod-args-chr": (10, dirop(b"tty") + u32(4) + SATTR_ALL + u32(4, 1)),
    "mknod-args-blk": (10, dirop(b"sda") + u32(3) + sattr3(mode=0o660) + u32(8, 0)),
    "mknod-args-fifo": (10, dirop(b"fifo") + u32(7) + sattr3(mode=0o600)),
    "mknod-args-sock": (10, dirop(b"sock") + u32(6) + sattr3()),
    "mknod-args-reg": (10, dirop(b"reg") + u32(1)),
    "remove-args": (11, dirop(b"gone")),
    "rmdir-args": (12, dirop(b"empty dir")),
    "rename-args": (13, dirop(b"from") + dirop(b"to", 16)),
    "link-args": (14, fh3(20) + dirop(b"hard link")),
    "readdir-args": (15, fh3() + u64(0) + b"\0" * 8 + u32(4096)),
    "readdirplus-args": (16, fh3() + u64(7) + VERF + u32(4096, 32768)),
    "fsstat-args": (17, fh3()),
    "fsinfo-args": (18, fh3()),
    "pathconf-args": (19, fh3()),
    "commit-args": (20, fh3() + u64(0) + u32(0)),
    "mnt-args": (21, opaque(b"/export")),
    # results
    "getattr-res-ok": (22, OK + fattr3()),
    "getattr-res-stale": (22, u32(70)),
    "setattr-res-ok": (23, OK + wcc()),
    "setattr-res-not-sync": (23, u32(10002) + wcc(False, True)),
    "lookup-res-ok": (24, OK + fh3() + post_attr() + post_attr(ftype=2)),
    "lookup-res-noent": (24, u32(2) + post_attr(ftype=2)),
    "access-res-ok": (25, OK + post_attr() + u32(0x1F)),
    "access-res-fail": (25, u32(13) + post_attr(False)),
    "readlink-res-ok": (26, OK + post_attr(ftype=5) + opaque(b"/a/b/c")),
    "readlink-res-fail": (26, u32(22) + post_attr(False)),
    "read-res-ok": (27, OK + post_attr() + u32(5, 1) + opaque(b"hello")),
    "read-res-fail": (27, u32(5) + post_attr(False)),
    "write-res-ok": (28, OK + wcc() + u32(4096, 2) + VERF),
    "write-res-fail": (28, u32(28) + wcc(True, False)),
    "create-res-ok": (29, OK + post_fh() + post_attr() + wcc()),
    "create-res-fail": (29, u32(17) + wcc()),
    "mkdir-res-ok": (30, OK + post_fh(False) + post_attr(False) + wcc(False, True)),
    "mkdir-res-fail": (30, u32(69) + wcc(False, False)),
    "symlink-res-ok": (31, OK + post_fh() + post_attr(ftype=5) + wcc()),
    "symlink-res-fail": (31, u32(63) + wcc()),
    "mknod-res-ok": (32, OK + post_fh() + post_attr(ftype=7) + wcc()),
    "mknod-res-fail": (32, u32(10007) + wcc()),
    "remove-res-ok": (33, OK + wcc()),
    "remove-res-fail": (33, u32(13) + wcc(False, False)),
    "rmdir-res-ok": (34, OK + wcc()),
    "rmdir-res-fail": (34, u32(66) + wcc()),
    "rename-res-ok": (35, OK + wcc() + wcc(False, True)),
    "rename-res-fail": (35, u32(18) + wcc(True, False) + wcc()),
    "link-res-ok": (36, OK + post_attr() + wcc()),
    "link-res-fail": (36, u32(31) + post_attr(False) + wcc()),
    "readdir-res-ok": (37, OK + post_attr(ftype=2) + VERF + entries(NAMES) + u32(1)),
    "readdir-res-empty": (37, OK + post_attr(False) + VERF + u32(0, 0)),
    "readdir-res-fail": (37, u32(10003) + post_attr(False)),
    "readdirplus-res-ok": (38, OK + post_attr(ftype=2) + VERF
                           + entries(NAMES, plus=True) + u32(1)),
    "readdirplus-res-fail": (38, u32(10005) + post_attr()),
    "fsstat-res-ok": (39, OK + post_attr(ftype=2) + u64(1 << 40, 1 << 39, 1 << 38,
                                                      1000000, 500000, 400000) + u32(0)),
    "fsstat-res-fail": (39, u32(10006) + post_attr(False)),
    "fsinfo-res-ok": (40, OK + post_attr(ftype=2) + u32(1 << 20, 1 << 20, 4096, 1 << 20,
                                                       1 << 20, 4096, 65536)
                      + u64(0x7FFFFFFFFFFFFFFF) + u32(0, 1, 0x1B)),
    "fsinfo-res-fail": (40, u32(70) + post_attr(False)),
    "pathconf-res-ok": (41, OK + post_attr() + u32(32000, 255, 1, 1, 0, 1)),
    "pathconf-res-fail": (41, u32(10001) + post_attr(False)),
    "commit-res-ok": (42, OK + wcc() + VERF),
    "commit-res-fail": (42, u32(5) + wcc(False, False)),
    "mountres-ok": (43, OK + fh3() + u32(2, 1, 390003)),
    "mountres-acces": (43, u32(13)),
    "mountlist": (44, u32(1) + opaque(b"10.0.0.1") + opaque(b"/export")
                  + u32(1) + opaque(b"client.example.org") + opaque(b"/srv") + u32(0)),
    "mountlist-empty": (44, u32(0)),
    "exports": (45, u32(1) + opaque(b"/export") + u32(1) + opaque(b"host1") + u32(1)
                + opaque(b"*.lan") + u32(0) + u32(1) + opaque(b"/srv") + u32(0) + u32(0)),
    "exports-empty": (45, u32(0)),
    # 46: the head of WRITE3args (the bulk path), whole and cut in the data
    "write-head": (46, fh3() + u64(65536) + u32(7, 0) + opaque(b"1234567")),
    "write-head-partial": (46, fh3() + u64(0) + u32(100000, 2) + u32(100000) + b"x" * 100),
}
os.makedirs(nout, exist_ok=True)
for name, (idx, body) in nseeds.items():
    with open(os.path.join(nout, name), "wb") as f:
        f.write(bytes([idx]) + body)
print(f"wrote {len(nseeds)} seeds to {nout}")
