#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""TAP test of tools/xdrgen's diagnostics: each malformed input must be
refused (exit 1, nothing written) with 'FILE:LINE: error: ...' naming
the right line; a few accepted dialect forms must generate, and the
output must not depend on the run.

Usage: test_xdrgen.py XDRGEN_PY
"""
import os
import subprocess
import sys
import tempfile

BAD = [
    # (source, line, part of the message)
    ('struct a {\n\tint x\n};\n', 2, "expected ';' after 'x'"),
    ('struct s { int x; }\n', 1, "expected ';' after '}'"),
    ('struct a { int x; };\nstruct a { int y; };\n', 2, "'a' is already defined (line 1)"),
    ('const A = 5;\n\nstruct s { float f; };\n', 3, "'float' is not supported"),
    ('struct s { double d; };\n', 1, "'double' is not supported"),
    ('struct s {\n\tfoo x;\n};\n', 2, "'foo' is not a defined type"),
    ('enum e { A = 1 };\nunion u switch (e d) {\ncase A: int x;\ncase C: int y;\n};\n',
     4, "'C' is not a defined constant"),
    ('enum e { A = 1 };\nunion u switch (e d) { case A: int x; case 3: void; };\n',
     2, "case '3' is not a value of the discriminant type"),
    ('union u switch (int d) { case 1: int x; case 1: int y; };\n', 1, "repeats case"),
    ('union u switch (hyper d) { case 1: int x; };\n', 1, 'the discriminant must be'),
    ('union u switch (int d) { default: void; default: void; };\n', 1, 'second default arm'),
    ('union u switch (int d) { };\n', 1, 'union without case arms'),
    ('struct s { int x<-1>; };\n', 1, "bound of 'x' must be in 0..4294967295"),
    ('struct s { int x[0]; };\n', 1, "bound of 'x' must be in 1..4294967295"),
    ('struct s { opaque x[0x100000000]; };\n', 1, "bound of 'x'"),
    ('struct s { s y; };\n', 1, 'contains itself by value'),
    ('struct s { int while; };\n', 1, "'while' is a reserved name in C"),
    ('struct s { int default; };\n', 1, "expected an identifier, got 'default'"),
    ('\n/* unterminated\n\n', 2, 'unterminated comment'),
    ('typedef string s;\n', 1, "'string s' needs <n>"),
    ('#include <x>\n', 1, "preprocessor lines ('#') are not supported"),
    ('struct s { int x; $ };\n', 1, "unexpected character '$'"),
    ('struct s { opaque x[08]; };\n', 1, "malformed octal number '08'"),
    ('struct s { int 9x; };\n', 1, 'malformed number'),
    ('program P { version V { void F(void) = 1; } = 1; } = 1;\nconst F = 2;\n',
     2, "'F' is already defined (line 1)"),
    ('struct bytes { int x; };\n', 1, 'clashes with the xdr.h runtime'),
    ('const A = B;\nconst B = A;\n', 1, 'depends on itself'),
    ('struct s { void; };\n', 1, "'void' is only allowed in union arms"),
    ('struct s { };\n', 1, 'empty struct'),
    ('enum e { A = 0x80000000 };\n', 1, 'is not an int'),
    ('typedef opaque z[1];\nstruct s { z a<>; int b<2>; };\ntypedef void v;\n',
     3, "'void' is only allowed"),
    ('struct e { opaque z[1]; };\nstruct s { int x; };\nstruct t { int y<>; u z<>; };\n',
     3, "'u' is not a defined type"),
    ('typedef opaque n[1];\nstruct t {\n\tn q[2];\n\tn r<>;\n\tunsigned char c;\n};\n',
     5, "'unsigned char' is not XDR"),
    ('program P { } = 1;\n', 1, "program 'P' has no versions"),
    ('union u switch (int u) { case 1: void; };\n', 1, "may not be named 'u'"),
    ('struct s { int x; } y;\n', 1, "expected ';', got 'y'"),
    ('foo;\n', 1, 'expected const, enum, struct, union, typedef or program'),
]

GOOD = [
    # rpcgen habits: 'unsigned' alone, 'long', 'struct X' references,
    # '%' lines, identifiers as constant and procedure values
    '%#include "ignored.h"\nconst N = 4;\nconst M = N;\n'
    'struct x { unsigned a; long b; unsigned long c; struct x *next; };\n'
    'typedef struct x x_alias;\nprogram P { version V {\n'
    'x PROC(x_alias, string) = M; } = 1; } = 0x20000000;\n',
    # every arm void, typedef of an inline union in an array
    'union v switch (unsigned int k) { case 1: void; default: void; };\n'
    'typedef union switch (bool b) { case TRUE: int i; case FALSE: void; } ov<2>;\n',
]


def run(xdrgen, src, tmp):
    path = os.path.join(tmp, 'in.x')
    with open(path, 'w', encoding='utf-8') as f:
        f.write(src)
    h, c = os.path.join(tmp, 'out.h'), os.path.join(tmp, 'out.c')
    for p in (h, c):
        if os.path.exists(p):
            os.remove(p)
    r = subprocess.run([sys.executable, xdrgen, path, '--header', h,
                        '--source', c], capture_output=True, text=True)
    out = None
    if os.path.exists(h) and os.path.exists(c):
        with open(h, encoding='utf-8') as fh, open(c, encoding='utf-8') as fc:
            out = fh.read() + fc.read()
    return r, path, out


def main():
    xdrgen = sys.argv[1]
    n = failed = 0

    def ok(cond, what):
        nonlocal n, failed
        n += 1
        failed += not cond
        print(f"{'ok' if cond else 'not ok'} {n} - {what}")

    with tempfile.TemporaryDirectory() as tmp:
        for src, line, part in BAD:
            r, path, out = run(xdrgen, src, tmp)
            want = f'{path}:{line}: error: '
            good = r.returncode == 1 and out is None and \
                r.stderr.startswith(want) and part in r.stderr
            if not good:
                print(f'# rc={r.returncode} stderr: {r.stderr.strip()}')
            ok(good, f'line {line}: {part}')
        for i, src in enumerate(GOOD):
            r1, _, out1 = run(xdrgen, src, tmp)
            r2, _, out2 = run(xdrgen, src, tmp)
            if r1.returncode:
                print(f'# {r1.stderr.strip()}')
            ok(r1.returncode == 0 and out1 and out1 == out2,
               f'accepted input {i + 1} generates, identically twice')
    print(f'1..{n}')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
