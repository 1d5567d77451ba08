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
