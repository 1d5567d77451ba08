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


def reply(xid, results=b""):
    """An accepted SUCCESS reply with an AUTH_NONE verifier."""
    return u32(xid, 1, 0, 0, 0, 0) + results


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


# NFSv4.0 open state (RFC 7530 16.16-16.19, 16.2, 16.3, 16.23, 16.36):
# the arguments of OPEN (open-owner of clientid 0x0102030405060708),
# OPEN_CONFIRM, OPEN_DOWNGRADE, CLOSE, READ, WRITE and COMMIT.
V4_SID = u32(1) + bytes(range(0xA0, 0xAC))
V4_ANON = b"\0" * 16


def v4_open(seqid, access, deny, name, how=u32(0)):
    return (u32(18, seqid, access, deny, 0x01020304, 0x05060708) + opaque(b"open-owner")
            + how + u32(0) + opaque(name))


V4_UNCHECKED = u32(1, 0) + u32(2, 0, 2) + opaque(u32(0o644))  # createattrs: mode


def v4_compound(ops, tag=b"open"):
    return opaque(tag) + u32(0, len(ops)) + b"".join(ops)


def v4_rec(xid, ops):
    return rec(call(xid, 100003, 4, 1, v4_compound(ops), cred=authsys(0, 0)))


V4_PSEUDO = [u32(24), u32(15) + opaque(b"tmp")]


def u64(v):
    return u32(v >> 32, v)


V4_CID = u64(0x0102030405060708)


def v4_lock_new(ltype, reclaim, off, length, open_seqid, lock_seqid, owner):
    """LOCK by a new lock-owner (open_to_lock_owner4)."""
    return (u32(12, ltype, reclaim) + u64(off) + u64(length) + u32(1, open_seqid) + V4_SID
            + u32(lock_seqid) + V4_CID + opaque(owner))


def v4_lock_ex(ltype, reclaim, off, length, lock_seqid):
    """LOCK by an existing lock-owner (exist_lock_owner4)."""
    return u32(12, ltype, reclaim) + u64(off) + u64(length) + u32(0) + V4_SID + u32(lock_seqid)

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
    # NFSv4 COMPOUNDs (the target serves version 4): the pseudo file
    # system down to the export, attributes, a listing, an unknown op.
    "nfs4-walk": rec(call(50, 100003, 4, 1, opaque(b"walk") + u32(0, 4)
                          + u32(24) + u32(15) + opaque(b"tmp") + u32(10)
                          + u32(9, 2, 0x0010011a, 0x00300002), cred=authsys(0, 0))),
    "nfs4-readdir": rec(call(51, 100003, 4, 1, opaque(b"") + u32(0, 2)
                             + u32(24) + u32(26) + b"\0" * 16 + u32(4096, 8192, 2, 0x0010001b, 0x00b00000),
                             cred=authsys(0, 0))),
    "nfs4-illegal": rec(call(52, 100003, 4, 1, opaque(b"x") + u32(0, 3) + u32(24, 32, 99),
                             cred=authsys(0, 0))),
    "nfs4-minor1": rec(call(53, 100003, 4, 1, opaque(b"m") + u32(1, 1) + u32(24))),
    # NFSv4.0 client records: SETCLIENTID (verifier, id, callback
    # program, netid, address, ident), a CONFIRM that cannot match the
    # random verifier, RENEW of an unknown clientid; then the same id
    # from another uid (CLID_INUSE once confirmed) and AUTH_NONE with an
    # over-long callback address (kept empty).
    "nfs4-setclientid": rec(call(54, 100003, 4, 1, opaque(b"sc") + u32(0, 3)
                                 + u32(35) + b"\1" * 8 + opaque(b"fuzz-client")
                                 + u32(0x40000000) + opaque(b"tcp") + opaque(b"127.0.0.1.3.4") + u32(1)
                                 + u32(36) + u32(0, 1) + b"\0" * 8
                                 + u32(30) + u32(0x12345678, 9), cred=authsys(1000, 1000)))
    + rec(call(55, 100003, 4, 1, opaque(b"") + u32(0, 1)
               + u32(35) + b"\2" * 8 + opaque(b"fuzz-client")
               + u32(0x40000000) + opaque(b"tcp6") + opaque(b"::1.3.4") + u32(2),
               cred=authsys(2000, 2000))),
    "nfs4-setclientid-none": rec(call(56, 100003, 4, 1, opaque(b"n") + u32(0, 2)
                                      + u32(35) + b"\3" * 8 + opaque(b"x" * 1024)
                                      + u32(1) + opaque(b"tcp") + opaque(b"1" * 100) + u32(3)
                                      + u32(30) + u32(0, 0))),
    # NFSv4.0 OPEN in a pseudo directory (an unconfirmed clientid, a
    # create where nothing can be made), then each I/O and seqid-bearing
    # operation there, one COMPOUND a record (a COMPOUND stops at its
    # first error).
    "nfs4-open-create": v4_rec(57, V4_PSEUDO + [v4_open(1, 3, 0, b"new", V4_UNCHECKED),
                                    u32(10), u32(20) + V4_SID + u32(2)])
    + v4_rec(58, V4_PSEUDO + [v4_open(2, 1, 0, b"x"), u32(10)])
    + v4_rec(59, V4_PSEUDO + [v4_open(3, 1, 0, b"x", u32(1, 2) + b"verifier")]),
    "nfs4-open-io": v4_rec(60, V4_PSEUDO + [u32(25) + V4_ANON + u32(0, 0, 4096)])
    + v4_rec(61, V4_PSEUDO + [u32(38) + V4_SID + u32(0, 8, 2) + opaque(b"hello")])
    + v4_rec(62, V4_PSEUDO + [u32(5) + u32(0, 0, 0)])
    + v4_rec(63, [u32(25) + b"\xff" * 16 + u32(0, 0, 16)])
    + v4_rec(64, V4_PSEUDO + [u32(21) + V4_SID + u32(4, 1, 0)])
    + v4_rec(65, V4_PSEUDO + [u32(4, 5) + V4_SID]),

    # NFSv4.1: EXCHANGE_ID alone (owner, flags, SP4_NONE, no impl id),
    # then CREATE_SESSION of a clientid the fuzzer cannot know (it is
    # random: STALE_CLIENTID) with both channels and an AUTH_NONE
    # callback; SEQUENCE of an unknown session before PUTROOTFH and
    # GETATTR (BADSESSION); the position rules (an operation not in a
    # session, EXCHANGE_ID not alone, SEQUENCE not first); the other
    # session operations alone; minor version 2.
    "nfs4-v41-exchange-id": rec(call(60, 100003, 4, 1, opaque(b"x41") + u32(1, 1)
                                     + u32(42) + b"\4" * 8 + opaque(b"fuzz-41")
                                     + u32(0x40000000, 0, 0), cred=authsys(0, 0)))
    + rec(call(61, 100003, 4, 1, opaque(b"cs") + u32(1, 1)
               + u32(43) + u32(0x12345678, 1, 1, 3)
               + u32(0, 65536, 65536, 4096, 16, 8, 0)
               + u32(0, 4096, 4096, 0, 2, 2, 0)
               + u32(0x40000000, 1, 0), cred=authsys(0, 0))),
    "nfs4-v41-sequence": rec(call(62, 100003, 4, 1, opaque(b"sq") + u32(1, 3)
                                  + u32(53) + b"\7" * 16 + u32(1, 0, 0, 1)
                                  + u32(24) + u32(9, 1, 0x0010011a), cred=authsys(0, 0))),
    "nfs4-v41-positions": rec(call(63, 100003, 4, 1, opaque(b"p1") + u32(1, 2) + u32(24, 10)))
    + rec(call(64, 100003, 4, 1, opaque(b"p2") + u32(1, 2)
               + u32(42) + b"\5" * 8 + opaque(b"fuzz-41b") + u32(0, 0, 0) + u32(24)))
    + rec(call(65, 100003, 4, 1, opaque(b"p3") + u32(1, 3)
               + u32(53) + b"\7" * 16 + u32(1, 0, 0, 0) + u32(24)
               + u32(53) + b"\7" * 16 + u32(2, 0, 0, 0))),
    "nfs4-v41-session-ops": rec(call(66, 100003, 4, 1, opaque(b"d") + u32(1, 1)
                                     + u32(44) + b"\7" * 16))
    + rec(call(67, 100003, 4, 1, opaque(b"") + u32(1, 1) + u32(57) + u32(0, 5)))
    + rec(call(68, 100003, 4, 1, opaque(b"") + u32(1, 1) + u32(41) + b"\7" * 16 + u32(7, 0)))
    + rec(call(69, 100003, 4, 1, opaque(b"") + u32(1, 3)
               + u32(53) + b"\7" * 16 + u32(1, 0, 0, 0) + u32(58, 0) + u32(52, 1)))
    + rec(call(70, 100003, 4, 1, opaque(b"m2") + u32(2, 1) + u32(24))),
    # REPLY records arriving on the server's connection (the back
    # channel): the target waits for xids 1 to 4, allowing 64 to 256
    # bytes; replies matched, unknown, denied, too large, with a
    # verifier, fragmented and among calls.
    "reply-matched": rec(reply(1, u32(7))) + rec(call(60, 100003, 3, 0)),
    "reply-unknown-xid": rec(reply(99)) + rec(reply(0x80000000)) + rec(u32(3, 1)),
    "reply-denied": rec(u32(2, 1, 1, 1, 5)) + rec(u32(3, 1, 1, 0, 2, 2)),
    "reply-too-big": rec(reply(1, b"\0" * 200)),
    "reply-verifier": rec(u32(4, 1, 0, 6) + opaque(b"v" * 100) + u32(0) + u32(1, 2)),
    "reply-not-success": rec(u32(3, 1, 0, 0, 0, 2, 1, 3)) + rec(u32(2, 1, 0, 0, 0, 9)),
    "reply-among-calls": rec(call(61, 100000, 2, 0)) + rec(reply(2, u32(1, 2)), frags=3)
    + rec(call(62, 100003, 4, 0)) + rec(reply(3)) + rec(reply(3)),
    # NFSv4.0 byte-range locks in a pseudo directory (ISDIR), without a
    # filehandle, with bad ranges and lock types: LOCK by a new and by an
    # existing lock-owner (a reclaim), LOCKT, LOCKU, RELEASE_LOCKOWNER and
    # RENEW of a clientid no client has.
    "nfs4-lock": v4_rec(66, V4_PSEUDO + [v4_lock_new(2, 0, 0, 100, 1, 0, b"lock-owner")])
    + v4_rec(67, V4_PSEUDO + [v4_lock_ex(1, 1, 1 << 63, 0xFFFFFFFFFFFFFFFF, 7)])
    + v4_rec(68, [v4_lock_new(4, 0, 10, 0, 2, 1, b"")])
    + v4_rec(69, [v4_lock_ex(9, 0, 0xFFFFFFFFFFFFFFF0, 0x20, 3)]),
    "nfs4-lockt-locku": v4_rec(70, V4_PSEUDO + [u32(13, 2) + u64(0) + u64(1) + V4_CID
                                                + opaque(b"tester")])
    + v4_rec(71, V4_PSEUDO + [u32(14, 1, 5) + V4_SID + u64(40) + u64(20)])
    + v4_rec(72, [u32(14, 3, 6) + V4_SID + u64(5) + u64(0xFFFFFFFFFFFFFFFC)])
    + v4_rec(73, [u32(13, 7) + u64(0) + u64(0) + V4_CID + opaque(b"x" * 1024)])
    + v4_rec(74, [u32(39) + V4_CID + opaque(b"lock-owner"), u32(30) + V4_CID]),
    # NFSv4.0 COMPOUNDs in the duplicate request cache (cacheme.c): a
    # CREATE after a LOOKUP, retransmitted with its xid; a WRITE after an
    # operation that does not decode (never cached: the scan stops there).
    "nfs4-drc": v4_rec(75, V4_PSEUDO + [u32(6, 2) + opaque(b"d") + u32(0, 0)]) * 2
    + v4_rec(76, V4_PSEUDO + [u32(99), u32(38) + V4_SID + u32(0, 8, 2) + opaque(b"x")]) * 2,
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

# nfs4: the first byte picks the codec (order of codecs[] in
# fuzz_nfs4.c: 0 COMPOUND4args, 1 nfs_argop4, 2 COMPOUND4res,
# 3 nfs_resop4, 4 CB_COMPOUND4args, 5 nfs_cb_argop4, 6 CB_COMPOUND4res,
# 7 nfs_cb_resop4, 8 fs_locations4, 9 nfsacl41, 10 COMPOUND op by op,
# 11 CB_COMPOUND op by op); the rest is that type's encoding as RFC 7531,
# RFC 5662, RFC 7863 and RFC 8276 lay it out.
v4out = os.path.join(os.path.dirname(out), "nfs4")


def fh4(n=16):
    return opaque(bytes((5 * i + 3) & 0xFF for i in range(n)))


SESSID = bytes(range(0x10, 0x20))
STATEID = u32(1) + bytes(range(0xA0, 0xAC))
V4OK = u32(0)


def bitmap(*words):
    return u32(len(words), *words)


def fattr4(words, vals=b""):
    return bitmap(*words) + opaque(vals)


def compound(ops, minor=1, tag=b"nfsx"):
    return opaque(tag) + u32(minor, len(ops)) + b"".join(ops)


def cb_compound(ops, minor=1, ident=0, tag=b""):
    return opaque(tag) + u32(minor, ident, len(ops)) + b"".join(ops)


def res(ops, status=0, tag=b"nfsx"):
    return u32(status) + opaque(tag) + u32(len(ops)) + b"".join(ops)


OWNER = u64(0x0102030405060708) + opaque(b"open-id")
SEQUENCE = u32(53) + SESSID + u32(7, 2, 15, 0)
PUTFH = u32(22) + fh4()
GETATTR = u32(9) + bitmap(0x0010011A, 0x00B0A23A)
OPEN_EXCL41 = (u32(18, 0, 2, 0) + OWNER + u32(1, 3) + b"verf1234"
               + fattr4([0, 2], u32(0o644)) + u32(0) + opaque(b"a.txt"))
OPEN_NOCREATE = u32(18, 1, 1, 0) + OWNER + u32(0) + u32(0) + opaque(b"b")
OPEN_GUARDED = (u32(18, 0, 3, 0) + OWNER + u32(1, 1) + fattr4([0x10], u64(0))
                + u32(4))
EXCHANGE_ID = (u32(42) + b"\x5f\0\0\0\x12\x34\x56\x78" + opaque(b"host-a/1")
               + u32(0x101, 0, 1) + opaque(b"kernel.org") + opaque(b"nfsx")
               + u64(1700000000) + u32(0))
CREATE_SESSION = (u32(43) + u64(0xCAFE000000000001) + u32(1, 3)
                  + u32(0, 1048576, 1048576, 4096, 16, 64, 0)
                  + u32(0, 4096, 4096, 0, 2, 1, 0)
                  + u32(0x40000000, 2, 0, 1, 1700000000) + opaque(b"client")
                  + u32(0, 0, 1, 0))
LOCK_NEW = (u32(12, 2, 0) + u64(0, 0xFFFFFFFFFFFFFFFF) + u32(1, 0) + STATEID
            + u32(0) + OWNER)
READDIR = u32(26) + u64(0) + b"\0" * 8 + u32(4096, 32768) + bitmap(0x0010011A)
WRITE = u32(38) + STATEID + u64(0) + u32(2) + opaque(b"hello")
entry = lambda c, n, more: u64(c) + opaque(n) + fattr4([0x00100000], u64(c + 0x100)) + u32(more)
READDIR_RES = (u32(26, 0) + b"\xc0\xff\xee\0\0\0\0\1" + u32(1) + entry(3, b"a", 1)
               + entry(4, b"bc", 1) + entry(5, b"def", 0) + u32(1))
SEQUENCE_RES = u32(53, 0) + SESSID + u32(7, 2, 15, 15, 0)
GETATTR_RES = u32(9, 0) + fattr4([0x18], u64(5, 4096))
CB_SEQUENCE = (u32(11) + bytes(range(0x20, 0x30)) + u32(1, 0, 0, 0, 1) + SESSID
               + u32(1, 7, 2))
CB_RECALL = u32(4) + STATEID + u32(0) + fh4(10)
CB_GETATTR = u32(3) + fh4() + bitmap(0x18)
CB_RECALL_ANY = u32(8, 10) + bitmap(1)
CB_NOTIFY_LOCK = u32(13) + fh4() + OWNER
CB_RECALL_SLOT = u32(10, 4)
FS_LOCATIONS = (u32(2) + opaque(b"export") + opaque(b"a") + u32(1)
                + u32(2) + opaque(b"server1") + opaque(b"server2") + u32(1) + opaque(b"srv"))
ACL = u32(1, 2) + u32(0, 0, 0x1F01FF) + opaque(b"OWNER@") + u32(1, 0x40, 0x10) + opaque(b"GROUP@")

v4seeds = {
    "compound-seq-putfh-getattr": (0, compound([SEQUENCE, PUTFH, GETATTR])),
    "compound-v40-setclientid": (0, compound([u32(35) + b"verifier" + opaque(b"client-id")
                                              + u32(0x40000000) + opaque(b"tcp")
                                              + opaque(b"127.0.0.1.3.4") + u32(1)],
                                             minor=0)),
    "compound-open-readdir-write": (0, compound([SEQUENCE, PUTFH, OPEN_EXCL41,
                                                 u32(10), READDIR, WRITE])),
    "compound-empty": (0, compound([], tag=b"")),
    "compound-v40-open-io": (0, compound([PUTFH, v4_open(1, 3, 0, b"f", V4_UNCHECKED),
                                          u32(10), u32(20) + STATEID + u32(2),
                                          u32(38) + STATEID + u64(0) + u32(0) + opaque(b"data"),
                                          u32(25) + STATEID + u64(0) + u32(4),
                                          u32(5) + u64(0) + u32(0),
                                          u32(21) + STATEID + u32(3, 1, 0),
                                          u32(4, 4) + STATEID], minor=0)),
    "argop-open-unchecked40": (1, v4_open(7, 2, 1, b"file", V4_UNCHECKED)),
    "argop-open-previous": (1, u32(18, 1, 1, 0) + OWNER + u32(0) + u32(1, 0)),
    "argop-open-confirm": (1, u32(20) + STATEID + u32(9)),
    "argop-close": (1, u32(4, 10) + STATEID),
    "argop-read": (1, u32(25) + STATEID + u64(4096) + u32(65536)),
    "argop-open-excl41": (1, OPEN_EXCL41),
    "argop-open-nocreate": (1, OPEN_NOCREATE),
    "argop-open-guarded": (1, OPEN_GUARDED),
    "argop-exchange-id": (1, EXCHANGE_ID),
    "argop-create-session": (1, CREATE_SESSION),
    "argop-lock": (1, LOCK_NEW),
    "argop-illegal": (1, u32(10044)),
    "compound-res": (2, res([SEQUENCE_RES, u32(22, 0), GETATTR_RES])),
    "compound-res-error": (2, res([SEQUENCE_RES, u32(22, 70)], status=70)),
    "resop-readdir": (3, READDIR_RES),
    "resop-exchange-id": (3, u32(42, 0) + u64(0xCAFE000000000001) + u32(1, 0x10001, 0)
                          + u64(0) + opaque(b"nfsx") + opaque(b"nfsx") + u32(0)),
    "resop-lock-denied": (3, u32(12, 10010) + u64(0, 100) + u32(2) + OWNER),
    "resop-open": (3, u32(18, 0) + STATEID + u32(1) + u64(1, 2) + u32(4) + bitmap()
                   + u32(1) + STATEID + u32(0) + u32(0, 0, 0) + opaque(b"EVERYONE@")),
    "cb-compound": (4, cb_compound([CB_SEQUENCE, CB_RECALL])),
    "cb-compound-v40": (4, cb_compound([CB_GETATTR, CB_RECALL], minor=0, ident=7)),
    "cb-argop-recall-any": (5, CB_RECALL_ANY),
    "cb-argop-notify-lock": (5, CB_NOTIFY_LOCK),
    "cb-argop-recall-slot": (5, CB_RECALL_SLOT),
    "cb-compound-res": (6, res([u32(11, 0) + bytes(range(0x20, 0x30)) + u32(1, 0, 0, 0),
                                u32(4, 0)], tag=b"")),
    "cb-resop-getattr": (7, u32(3, 0) + fattr4([0x18], u64(5, 4096))),
    "fs-locations": (8, FS_LOCATIONS),
    "nfsacl41": (9, ACL),
    "op-by-op": (10, compound([SEQUENCE, PUTFH, GETATTR, OPEN_EXCL41, u32(10)])),
    "op-by-op-illegal-v40": (10, compound([u32(24), u32(10), SEQUENCE, u32(10)], minor=0)),
    "op-by-op-illegal": (10, compound([PUTFH, u32(99), GETATTR])),
    "op-by-op-badxdr": (10, compound([PUTFH, u32(22, 129) + b"\0" * 132])),
    "cb-op-by-op": (11, cb_compound([CB_SEQUENCE, CB_RECALL, CB_RECALL_ANY])),
    "cb-op-by-op-illegal-v40": (11, cb_compound([CB_RECALL, CB_RECALL_SLOT], minor=0)),
    # NFSv4.2 (RFC 7863) and extended attributes (RFC 8276)
    "argop-copy": (1, u32(60) + STATEID + STATEID + u64(0, 4096, 65536) + u32(0, 1, 2)
                   + u32(1) + opaque(b"server1") + u32(3) + opaque(b"tcp")
                   + opaque(b"127.0.0.1.8.1")),
    "argop-setxattr": (1, u32(73, 1) + opaque(b"user.color") + opaque(b"blue")),
    "argop-write-same": (1, u32(70) + STATEID + u32(1) + u64(0, 512, 8, 0) + u32(0)
                         + u64(0) + opaque(b"\0" * 16)),
    "resop-read-plus": (3, u32(68, 0, 0, 2, 0) + u64(4096) + opaque(b"hello") + u32(1)
                        + u64(8192, 65536)),
    "resop-copy": (3, u32(60, 0, 1) + STATEID + u64(65536) + u32(2) + b"verifier" + u32(1, 0)),
    "resop-listxattrs": (3, u32(74, 0) + u64(3) + u32(2) + opaque(b"user.a")
                         + opaque(b"user.bb") + u32(1)),
    "cb-argop-offload": (5, u32(15) + fh4() + STATEID + u32(10094) + u64(1234)),
    "op-by-op-v42": (10, compound([SEQUENCE, PUTFH, u32(69) + STATEID + u64(0) + u32(1),
                                   u32(72) + opaque(b"user.color")], minor=2)),
}
os.makedirs(v4out, exist_ok=True)
for name, (idx, body) in v4seeds.items():
    with open(os.path.join(v4out, name), "wb") as f:
        f.write(bytes([idx]) + body)
print(f"wrote {len(v4seeds)} seeds to {v4out}")

# nfs4-sessions: scripts of calls on the session table (the step codes
# are in fuzz_nfs4_sessions.c's comment). "life": EXCHANGE_ID,
# CREATE_SESSION (8 slots, 1 KiB cached, 1 KiB replies), a SEQUENCE kept
# and its retransmission answered from the cache, DESTROY_SESSION,
# DESTROY_CLIENTID. "lease": two sessions with a back channel, BIND_CONN,
# a handle bound to the first and a callback slot taken on it,
# RECLAIM_COMPLETE twice, the clock past the lease, a SEQUENCE then.
# "busy": a SEQUENCE left running while its session is destroyed and
# the client replaced (a new verifier), ended last.
sout = os.path.join(os.path.dirname(out), "nfs4-sessions")
sseeds = {
    "life": bytes([0, 0x00, 1, 0x08, 8, 16, 64, 2, 0x40, 1, 3, 0, 2, 2, 0x00, 1, 3, 0, 0,
                   4, 0x00, 6, 0x00]),
    "lease": bytes([0, 0x00, 1, 0x28, 4, 0, 64, 1, 0x28, 4, 0, 64, 5, 0x01 | 0x38,
                    9, 0x00, 0x60,
                    7, 0x00, 7, 0x00, 8, 60, 2, 0x41, 0, 3, 0, 1, 8, 95, 2, 0x49, 0, 9, 0x00, 0x00]),
    "busy": bytes([0, 0x00, 1, 0x08, 2, 4, 32, 2, 0x40, 1, 2, 0x48, 1, 4, 0x08, 0, 0x04,
                   1, 0x09, 2, 4, 32, 3, 1, 255, 3, 0, 3]),
}
os.makedirs(sout, exist_ok=True)
for name, body in sseeds.items():
    with open(os.path.join(sout, name), "wb") as f:
        f.write(body)
print(f"wrote {len(sseeds)} seeds to {sout}")
# cb-reply: the first byte picks the input's kind (fuzz_cb_reply.c):
# 0 a callout connection's byte stream (the next byte sets the reply
# bound), 1 one reply record, 2 a netid, NUL, universal address.
cbout = os.path.join(os.path.dirname(out), "cb-reply")
RECALL_OK = res([u32(4, 0)], tag=b"")
SEQ_OK = u32(11, 0) + SESSID + u32(1, 0, 0, 0)
cbseeds = {
    "stream-null-ok": bytes([0, 2]) + rec(reply(1)),
    "stream-recall-ok": bytes([0, 8]) + rec(reply(1, RECALL_OK)),
    "stream-other-xid-then-ok": bytes([0, 8]) + rec(reply(5)) + rec(call(1, 1, 1, 0))
    + rec(reply(1, RECALL_OK), frags=3),
    "stream-too-big": bytes([0, 0]) + rec(reply(1, b"\0" * 64)),
    "stream-huge-marker": bytes([0, 255]) + u32(0x80100000),
    "reply-recall-ok": bytes([1]) + reply(1, RECALL_OK),
    "reply-recall-badhandle": bytes([1]) + reply(1, res([u32(4, 10001)], 10001, b"")),
    "reply-seq-recall": bytes([1]) + reply(1, res([SEQ_OK, u32(4, 0)], tag=b"")),
    "reply-seq-failed": bytes([1]) + reply(1, res([u32(11, 10052)], 10052, b"")),
    "reply-wrong-op": bytes([1]) + reply(1, res([u32(3, 0)], tag=b"")),
    "reply-too-many": bytes([1]) + reply(1, res([u32(4, 0)] * 5, tag=b"")),
    "reply-denied": bytes([1]) + u32(1, 1, 1, 0, 2, 2),
    "reply-garbage-args": bytes([1]) + u32(1, 1, 0, 0, 0, 4),
    "addr-tcp": bytes([2]) + b"tcp\0127.0.0.1.8.1",
    "addr-tcp6": bytes([2]) + b"tcp6\0::1.8.1",
    "addr-tcp6-mapped": bytes([2]) + b"tcp6\0::ffff:127.0.0.1.3.4",
    "addr-udp": bytes([2]) + b"udp\0127.0.0.1.8.1",
    "addr-port0": bytes([2]) + b"tcp\0127.0.0.1.0.0",
}
os.makedirs(cbout, exist_ok=True)
for name, body in cbseeds.items():
    with open(os.path.join(cbout, name), "wb") as f:
        f.write(body)
print(f"wrote {len(cbseeds)} seeds to {cbout}")
