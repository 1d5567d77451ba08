#!/usr/bin/env python3
"""Write the seed corpus of the client-replies fuzz target (run from anywhere).

Each seed is one byte (the chunk size the target feeds the client's
receive path with; 0 = all at once) followed by the bytes a server sends:
record-marked replies to the calls the target has in flight (xid 1 + the
NFSv3 procedure number, 23 + the MOUNT procedure number, 29 for PMAP
GETPORT), well-formed ones for every result type, RPC errors, fragments,
an unknown xid and an oversized record marker.
"""
import os
import struct

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "client-replies")


def u32(*v):
    return b"".join(struct.pack(">I", x & 0xFFFFFFFF) for x in v)


def u64(*v):
    return b"".join(struct.pack(">Q", x & 0xFFFFFFFFFFFFFFFF) for x in v)


def opaque(b):
    return u32(len(b)) + b + b"\0" * ((4 - len(b) % 4) % 4)


def rec(payload, frags=1):
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


def ok(xid, results=b""):
    return u32(xid, 1, 0, 0, 0, 0) + results


def nfs(proc):
    return 1 + proc


def mnt(proc):
    return 23 + proc


GETPORT = 29


def fh3(n=32):
    return opaque(bytes((5 * i + 3) & 0xFF for i in range(n)))


def fattr3(ftype=1):
    return (u32(ftype, 0o644, 1, 1000, 100) + u64(12345, 16384) + u32(0, 0)
            + u64(0x1122334455667788, 42) + u32(1700000000, 1, 1700000001, 2, 1700000002, 3))


def post_attr(follow=True, ftype=1):
    return u32(1) + fattr3(ftype) if follow else u32(0)


def wcc():
    return u32(1) + u64(4096) + u32(1700000000, 5, 1700000000, 6) + post_attr()


def post_fh(follow=True):
    return u32(1) + fh3() if follow else u32(0)


VERF = b"\x01\x23\x45\x67\x89\xab\xcd\xef"
OK = u32(0)


def entries(names, plus=False):
    body = b""
    for i, name in enumerate(names):
        body += u32(1) + u64(100 + i) + opaque(name) + u64(i + 1)
        if plus:
            body += post_attr(i % 2 == 0) + post_fh(i % 3 != 2)
    return body + u32(0)


NAMES = [b".", b"..", b"a", b"hello.c", b"a longer file name"]

results = {
    "null": (nfs(0), b""),
    "getattr": (nfs(1), OK + fattr3()),
    "setattr": (nfs(2), OK + wcc()),
    "lookup": (nfs(3), OK + fh3() + post_attr() + post_attr(ftype=2)),
    "lookup-noent": (nfs(3), u32(2) + post_attr(ftype=2)),
    "access": (nfs(4), OK + post_attr() + u32(0x1f)),
    "readlink": (nfs(5), OK + post_attr(ftype=5) + opaque(b"../target")),
    "read": (nfs(6), OK + post_attr() + u32(11, 1) + opaque(b"hello world")),
    "write": (nfs(7), OK + wcc() + u32(5, 2) + VERF),
    "create": (nfs(8), OK + post_fh() + post_attr() + wcc()),
    "mkdir": (nfs(9), OK + post_fh() + post_attr(ftype=2) + wcc()),
    "symlink": (nfs(10), OK + post_fh(False) + post_attr(False) + wcc()),
    "mknod": (nfs(11), OK + post_fh() + post_attr(ftype=7) + wcc()),
    "remove": (nfs(12), OK + wcc()),
    "rmdir-notempty": (nfs(13), u32(66) + wcc()),
    "rename": (nfs(14), OK + wcc() + wcc()),
    "link": (nfs(15), OK + post_attr() + wcc()),
    "readdir": (nfs(16), OK + post_attr(ftype=2) + VERF + entries(NAMES) + u32(1)),
    "readdirplus": (nfs(17), OK + post_attr(ftype=2) + VERF + entries(NAMES, True) + u32(0)),
    "fsstat": (nfs(18), OK + post_attr(ftype=2) + u64(1 << 30, 1 << 29, 1 << 28, 1000, 500, 400)
               + u32(0)),
    "fsinfo": (nfs(19), OK + post_attr(ftype=2) + u32(1 << 20, 1 << 20, 4096, 1 << 20, 1 << 20,
                                                      4096, 65536) + u64(1 << 62) + u32(0, 1, 0x1b)),
    "pathconf": (nfs(20), OK + post_attr(ftype=2) + u32(32000, 255, 1, 1, 0, 1)),
    "commit": (nfs(21), OK + wcc() + VERF),
    "mount-null": (mnt(0), b""),
    "mnt": (mnt(1), OK + fh3() + u32(2, 1, 0)),
    "mnt-denied": (mnt(1), u32(13)),
    "dump": (mnt(2), u32(1) + opaque(b"client") + opaque(b"/srv") + u32(1) + opaque(b"c2")
             + opaque(b"/srv/x") + u32(0)),
    "umnt": (mnt(3), b""),
    "export": (mnt(5), u32(1) + opaque(b"/srv") + u32(1) + opaque(b"*") + u32(1)
               + opaque(b"10.0.0.0/8") + u32(0) + u32(1) + opaque(b"/pub") + u32(0) + u32(0)),
    "getport": (GETPORT, u32(2049)),
}

seeds = {}
for name, (xid, res) in results.items():
    seeds[name] = b"\0" + rec(ok(xid, res))

seeds["all-at-once"] = b"\0" + b"".join(rec(ok(x, r)) for x, r in results.values())
seeds["all-in-3-byte-chunks"] = b"\3" + b"".join(rec(ok(x, r)) for x, r in results.values())
seeds["fragments"] = b"\7" + rec(ok(nfs(17), results["readdirplus"][1]), frags=5)
seeds["prog-mismatch"] = b"\0" + rec(u32(nfs(1), 1, 0, 0, 0, 2, 3, 3))
seeds["proc-unavail"] = b"\0" + rec(u32(nfs(2), 1, 0, 0, 0, 3))
seeds["auth-error"] = b"\0" + rec(u32(nfs(3), 1, 1, 1, 5))
seeds["rpc-mismatch"] = b"\0" + rec(u32(nfs(4), 1, 1, 0, 2, 2))
seeds["verifier-short"] = b"\0" + rec(u32(nfs(1), 1, 0, 2) + opaque(b"shortverf") + u32(0)
                                      + OK + fattr3())
seeds["unknown-xid"] = b"\0" + rec(ok(0xdeadbeef, OK + fattr3())) + rec(ok(nfs(1), OK + fattr3()))
seeds["truncated-result"] = b"\0" + rec(ok(nfs(17), results["readdirplus"][1][:100]))
seeds["huge-marker"] = b"\0" + u32(0xFFFFFFFF) + b"\0" * 64
seeds["call-not-reply"] = b"\0" + rec(u32(nfs(1), 0, 2, 100003, 3, 1, 0, 0, 0, 0))

os.makedirs(out, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
print("wrote %d seeds to %s" % (len(seeds), out))

# ---- client-nfs4: COMPOUND4res bodies (after the RPC header) ----------
out4 = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "client-nfs4")
OP_CLOSE, OP_GETATTR, OP_GETFH, OP_LOOKUP, OP_OPEN, OP_PUTFH = 4, 9, 10, 15, 18, 22
OP_READ, OP_READDIR, OP_EXCHANGE_ID, OP_CREATE_SESSION, OP_SEQUENCE = 25, 26, 42, 43, 53
SID = bytes(range(16))


def compound(status, ops, tag=b""):
    return u32(status) + opaque(tag) + u32(len(ops)) + b"".join(u32(op) + body for op, body in ops)


def sequence():
    return u32(0) + SID + u32(1, 0, 63, 63, 0)


def bitmap(*bits):
    words = [0] * (max(bits) // 32 + 1 if bits else 0)
    for b in bits:
        words[b // 32] |= 1 << (b % 32)
    return u32(len(words), *words)


def fattr4_full():
    # type, size, fileid, mode, numlinks, owner, owner_group, time_modify
    vals = (u32(1) + u64(5255225) + u64(10961316) + u32(0o644) + u32(1) +
            opaque(b"1000") + opaque(b"users@example.org") + u64(1764650000) + u32(123))
    return bitmap(1, 4, 20, 33, 35, 36, 37, 53) + opaque(vals)


def entry(cookie, name, fh=True):
    vals = u32(1) + opaque(b"\1" * 28) + u64(cookie + 1000) if fh else u64(cookie + 1000)
    attrs = bitmap(1, 19, 20) + opaque(vals) if fh else bitmap(20) + opaque(vals)
    return u32(1) + u64(cookie) + opaque(name) + attrs


chan = u32(0, 1048576 + 16384, 1048576 + 16384, 4096, 16, 64) + u32(0)
seeds4 = {
    "getattr": compound(0, [(OP_SEQUENCE, sequence()), (OP_PUTFH, u32(0)),
                            (OP_GETATTR, u32(0) + fattr4_full())]),
    "walk": compound(0, [(OP_SEQUENCE, sequence()), (OP_PUTFH, u32(0)), (OP_LOOKUP, u32(0)),
                         (OP_LOOKUP, u32(0)), (OP_GETFH, u32(0) + opaque(b"\7" * 32)),
                         (OP_GETATTR, u32(0) + fattr4_full())]),
    "readdir": compound(0, [(OP_SEQUENCE, sequence()), (OP_PUTFH, u32(0)),
                            (OP_READDIR, u32(0) + b"verifier" + entry(3, b"a") +
                             entry(4, b"bb") + entry(5, b"ccc", fh=False) + u32(0, 1))]),
    "open-read-close": compound(0, [
        (OP_SEQUENCE, sequence()), (OP_PUTFH, u32(0)),
        (OP_OPEN, u32(0) + u32(1) + b"\2" * 12 + u32(1) + u64(1, 2) + u32(4) + bitmap() + u32(0)),
        (OP_READ, u32(0) + u32(1) + opaque(b"hello world")),
        (OP_CLOSE, u32(0) + u32(2) + b"\2" * 12)]),
    "exchange-id": compound(0, [(OP_EXCHANGE_ID, u32(0) + u64(0x6b0faddedc217117) + u32(1) +
                                 u32(0x00010000) + u32(0) + u64(0) + opaque(b"nfsxd") +
                                 opaque(b"scope") + u32(0))]),
    "create-session": compound(0, [(OP_CREATE_SESSION, u32(0) + SID + u32(1, 0) + chan + chan)]),
    "noent": compound(2, [(OP_SEQUENCE, sequence()), (OP_PUTFH, u32(0)), (OP_LOOKUP, u32(2))]),
    "badsession": compound(10052, [(OP_SEQUENCE, u32(10052))]),
    "too-many-results": compound(0, [(OP_PUTFH, u32(0))] * 17),
    "trailing-bytes": compound(0, [(OP_PUTFH, u32(0))]) + u32(0),
    # READ_PLUS (68): data, hole, data from offset 4096; a hole that
    # starts before the range; one data segment out of place
    "read-plus": compound(0, [(OP_SEQUENCE, sequence()), (OP_PUTFH, u32(0)),
                              (68, u32(0) + u32(0) + u32(3) +
                               u32(0) + u64(4096) + opaque(b"d" * 100) +
                               u32(1) + u64(4196, 8192) +
                               u32(0) + u64(12388) + opaque(b"e" * 10))]),
    "read-plus-hole-first": compound(0, [(OP_SEQUENCE, sequence()), (OP_PUTFH, u32(0)),
                                         (68, u32(0) + u32(1) + u32(2) +
                                          u32(1) + u64(0, 1 << 20) +
                                          u32(0) + u64(1 << 20) + opaque(b"x" * 7))]),
    "read-plus-gap": compound(0, [(OP_SEQUENCE, sequence()), (OP_PUTFH, u32(0)),
                                  (68, u32(0) + u32(1) + u32(2) +
                                   u32(0) + u64(0) + opaque(b"ab") +
                                   u32(0) + u64(9) + opaque(b"cd"))]),
    # GETXATTR (72), LISTXATTRS (74)
    "xattrs": compound(0, [(OP_SEQUENCE, sequence()), (OP_PUTFH, u32(0)),
                           (72, u32(0) + opaque(b"value")),
                           (74, u32(0) + u64(7) + u32(2) + opaque(b"a") + opaque(b"bc") +
                            u32(1))]),
}
os.makedirs(out4, exist_ok=True)
for name, data in seeds4.items():
    with open(os.path.join(out4, name), "wb") as f:
        f.write(data)
print("wrote %d seeds to %s" % (len(seeds4), out4))

# ---- client-cb: back channel call records (no marker) -----------------
outcb = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "client-cb")
CB_PROG = 0x40000000
CBSID = b"\x5e" * 16


def cb_call(proc, body=b"", prog=CB_PROG, vers=1, flavor=1):
    cred = u32(0, 0) + opaque(b"nfsxd") + u32(0, 0, 0) if flavor == 1 else b""
    return u32(9, 0, 2, prog, vers, proc, flavor) + opaque(cred) + u32(0, 0) + body


def cb_compound(ops, minor=1, tag=b"cb"):
    return cb_call(1, opaque(tag) + u32(minor, 0, len(ops)) + b"".join(ops))


def cb_seq(slot=0, seq=1):
    return u32(11) + CBSID + u32(seq, slot, 0, 0, 0)


def cb_recall(first=0xde):
    return u32(4) + u32(1) + bytes([first]) + b"\1" * 11 + u32(0) + opaque(b"\7" * 32)


seedscb = {
    "null": cb_call(0),
    "recall": cb_compound([cb_seq(), cb_recall()]),
    "recall-unknown": cb_compound([cb_seq(1, 1), cb_recall(0x11)]),
    "seq-only": cb_compound([cb_seq(2, 1)]),
    "getattr": cb_compound([cb_seq(), u32(3) + opaque(b"\7" * 8) + u32(1, 1 << 4)]),
    "illegal": cb_compound([cb_seq(), u32(10044)]),
    "minor0": cb_compound([cb_seq()], minor=0),
    "no-seq": cb_compound([cb_recall()]),
    "referring": cb_compound([u32(11) + CBSID + u32(1, 3, 3, 0, 1) + CBSID + u32(1, 5, 0)]),
    "prog": cb_call(0, prog=100003),
    "gss": cb_call(1, flavor=6),
}
os.makedirs(outcb, exist_ok=True)
for name, data in seedscb.items():
    with open(os.path.join(outcb, name), "wb") as f:
        f.write(data)
print("wrote %d seeds to %s" % (len(seedscb), outcb))
