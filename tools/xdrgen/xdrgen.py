#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""xdrgen - C codecs for nfsx from XDR language files (RFC 4506).

Usage: xdrgen.py IN.x --header OUT.h --source OUT.c [--name NAME]

Covers the XDR language as used by RFC 5531, 1833, 1813, 7530, 8881 and
7862.  Pipeline: lexer -> recursive-descent parser (AST) -> checks and
type analysis (constant values, minimum wire sizes, C declaration order,
recursion) -> C emitter.  Standard library only.  NAME (default: the
header's file name) names the header guard.  Errors: FILE:LINE: error:.

C NAMING
  const N = v;              #define N v
  program/version/proc      #define N number (procedure signature in a
                            comment).  All names share one namespace: a
                            name defined twice is an error.
  enum E                    enum E { M = v, ... } (explicit values)
  struct S                  struct S
  union U switch (D d)      struct U { D d; union { arms } u; }
                            (no member u when every arm is void)
  typedef T N; T *N         typedef <C type of T> N; / ... *N;
  typedef T N[n]            typedef struct { T val[n]; } N;
  typedef T N<n>            typedef struct { uint32_t len; T *val; } N;
  typedef opaque N[n]       typedef struct { uint8_t val[n]; } N;
  typedef opaque/string N<> typedef struct xdr_bytes N;
  typedef struct/union/enum {...} N   is struct/union/enum N {...}
  An inline struct/union/enum in declaration x inside type P is hoisted
  to its own type named P_x (N_elem for an array typedef N).
  Referring to a type: struct S/U, enum E, and a typedef by its name.
  Fields: int, unsigned int, hyper, unsigned hyper, bool -> int32_t,
  uint32_t, int64_t, uint64_t, bool; opaque x[n] -> uint8_t x[n];
  opaque/string x<n> -> struct xdr_bytes (a view into the message;
  strings are NOT NUL-terminated); T x[n] -> T x[n];
  T x<n> -> struct { uint32_t len; T *val; } x; T *x -> T *x.
  For every type, with C type CT as above:
      bool xdr_dec_NAME(struct xdr_dec *d, CT *v);
      bool xdr_enc_NAME(struct xdr_enc *e, const CT *v);
  true on success; false on short/malformed input, or on lack of room or
  a value out of bounds.  After false the cursor or buffer position is
  unspecified.
  For every enum E:
      const char *xdr_name_E(int32_t x);
  the name of the member with value x (the first, for a repeated value),
  or NULL (statistics and logs name statuses and operations by it).

DECODING RULES
  Enum values must be members of the enum, bool 0 or 1, union
  discriminants must match a case unless there is a default arm.
  Counts are checked against their bound and against the bytes left
  (count x minimum wire size of the element, computed here) before any
  arena memory is taken; optional data likewise.  Arrays of zero length
  decode with val = NULL, absent optional data as NULL.  Encoders refuse
  counts above the bound, enum values that are not members and union
  discriminants without an arm.

RECURSION
  A struct whose last field is optional data of its own type (T *next,
  or through a typedef of T *) and that is not otherwise in a reference
  cycle is a linked list: decoded and encoded by a loop, constant stack
  for any length.  Every other reference cycle (trees, mutual recursion)
  is handled recursively with at most XDR_MAX_DEPTH (xdr.h) nested calls,
  past which encoding and decoding fail.

ACCEPTED BEYOND RFC 4506 (rpcgen habits): 'unsigned' alone, 'long',
'struct X' as a type reference, identifiers as constant and procedure
values, lines starting with '%' (ignored).
REJECTED: float, double, quadruple (NFS does not use them), '#' lines,
zero-length fixed arrays, names that C or xdr.h would misread.
"""
import argparse
import os
import re
import sys

KEYWORDS = frozenset('''bool case const default double enum float hyper int long opaque
    program quadruple string struct switch typedef union unsigned version void'''.split())
C_RESERVED = frozenset('''auto break case char const continue default do double else enum
    extern float for goto if inline int long register restrict return short signed sizeof
    static struct switch typedef union unsigned void volatile while bool true false
    TRUE FALSE'''.split())
RUNTIME = frozenset('''u32 i32 u64 i64 bool bytes opaque_fixed skip count_ok init left
    alloc len room reserve'''.split())   # xdr.h has xdr_dec_<these>/xdr_enc_<these>
PRIM_C = {'int': 'int32_t', 'uint': 'uint32_t', 'hyper': 'int64_t', 'uhyper': 'uint64_t',
          'bool': 'bool'}
PRIM_FN = {'int': 'i32', 'uint': 'u32', 'hyper': 'i64', 'uhyper': 'u64', 'bool': 'bool'}
PRIM_X = {'int': 'int', 'uint': 'unsigned int', 'hyper': 'hyper', 'uhyper': 'unsigned hyper',
          'bool': 'bool', 'void': 'void', 'string': 'string', 'opaque': 'opaque'}
DISC_RANGE = {'int': (-2**31, 2**31 - 1), 'uint': (0, 2**32 - 1), 'bool': (0, 1)}
U32_MAX = 0xffffffff


class XdrError(Exception):
    def __init__(self, line, msg):
        super().__init__(msg)
        self.line, self.msg = line, msg


# ---------------------------------------------------------------- lexer

class Tok:
    __slots__ = ('kind', 'text', 'line')

    def __init__(self, kind, text, line):
        self.kind, self.text, self.line = kind, text, line


TOKEN_RE = re.compile(r'''
    (?P<space>[ \t\r\f\v]+) | (?P<nl>\n) | (?P<comment>/\*.*?\*/ | //[^\n]*)
  | (?P<num>-?(?:0[xX][0-9a-fA-F]+|[0-9]+)(?![A-Za-z0-9_]))
  | (?P<id>[A-Za-z_][A-Za-z0-9_]*) | (?P<punct>[{}()\[\]<>;,=:*])''', re.X | re.S)


def lex(src):
    toks, i, line, bol = [], 0, 1, True
    while i < len(src):
        if bol and src[i] == '%':  # rpcgen C passthrough: not ours to emit
            j = src.find('\n', i)
            i = len(src) if j < 0 else j
            continue
        if bol and src[i] == '#':
            raise XdrError(line, "preprocessor lines ('#') are not supported")
        m = TOKEN_RE.match(src, i)
        if not m:
            c = src[i]
            if src.startswith('/*', i):
                raise XdrError(line, 'unterminated comment')
            raise XdrError(line, 'malformed number' if c.isdigit() or c == '-'
                           else f"unexpected character '{c}'")
        kind, i = m.lastgroup, m.end()
        if kind in ('num', 'id', 'punct'):
            toks.append(Tok(kind, m.group(), line))
        line += m.group().count('\n')
        bol = kind == 'nl' or (bol and kind == 'space')
    toks.append(Tok('eof', '', line))
    return toks


def parse_num(t):
    neg, body = t.text.startswith('-'), t.text.lstrip('-')
    if body[:2] in ('0x', '0X'):
        v = int(body, 16)
    elif len(body) > 1 and body[0] == '0':
        if not re.fullmatch('[0-7]+', body):
            raise XdrError(t.line, f"malformed octal number '{t.text}'")
        v = int(body, 8)
    else:
        v = int(body)
    return -v if neg else v


# ---------------------------------------------------------------- AST

class Value:
    """A constant: a number or the name of one."""
    def __init__(self, text, line, num=None, ident=None):
        self.text, self.line, self.num, self.ident = text, line, num, ident


class Type:
    """kind: int uint hyper uhyper bool opaque string void named anon."""
    def __init__(self, kind, name=None, defn=None, tag=None):
        self.kind, self.name, self.defn, self.tag = kind, name, defn, tag


class Decl:
    """shape: plain, fixed [n], var <n> (bound None: <>), opt (T *x) or void."""
    def __init__(self, name, typ, shape, bound, line):
        self.name, self.type, self.shape, self.bound, self.line = name, typ, shape, bound, line


class Def:
    """kind: const enum struct union typedef program."""
    def __init__(self, kind, name, line):
        self.kind, self.name, self.line = kind, name, line
        self.value = None        # const, program
        self.members = []        # enum: (name, Value, line)
        self.fields = []         # struct: Decl
        self.disc = None         # union: Decl
        self.arms = []           # union: ([Value], Decl)
        self.default = None      # union: Decl (void shape allowed)
        self.decl = None         # typedef
        self.versions = []       # program: (name, Value, [Proc], line)

    def decls(self):
        """The non-void declarations, discriminant first."""
        out = {'struct': self.fields, 'typedef': [self.decl],
               'union': [self.disc] + [a for _, a in self.arms] + [self.default]}
        return [x for x in out.get(self.kind, []) if x and x.shape != 'void']


class Proc:
    def __init__(self, name, ret, args, value, line):
        self.name, self.ret, self.args, self.value, self.line = name, ret, args, value, line


# ---------------------------------------------------------------- parser

def desc(t):
    return 'end of file' if t.kind == 'eof' else f"'{t.text}'"


class Parser:
    def __init__(self, toks):
        self.toks, self.pos, self.defs = toks, 0, []

    def peek(self):
        return self.toks[self.pos]

    def next(self):
        t = self.toks[self.pos]
        self.pos += t.kind != 'eof'
        return t

    def accept(self, text):
        t = self.peek()
        return self.next() if t.kind != 'eof' and t.text == text else None

    def expect(self, text):
        t = self.next()
        if t.kind == 'eof' or t.text != text:
            i = self.pos - (1 if t.kind == 'eof' else 2)
            prev = self.toks[i] if i >= 0 else t
            if prev.line < t.line:  # a missing ';' belongs to the line before
                raise XdrError(prev.line, f"expected '{text}' after '{prev.text}'")
            raise XdrError(t.line, f"expected '{text}', got {desc(t)}")
        return t

    def name(self):
        t = self.next()
        if t.kind != 'id' or t.text in KEYWORDS:
            raise XdrError(t.line, f'expected an identifier, got {desc(t)}')
        return t.text

    def value(self, then=None):
        t = self.next()
        if t.kind == 'num':
            v = Value(t.text, t.line, num=parse_num(t))
        elif t.kind == 'id' and t.text not in KEYWORDS:
            v = Value(t.text, t.line, ident=t.text)
        else:
            raise XdrError(t.line, f'expected a constant, got {desc(t)}')
        if then:
            self.expect(then)
        return v

    def parse(self):
        while self.peek().kind != 'eof':
            t = self.next()
            if t.text == 'const':
                d = Def('const', self.name(), t.line)
                self.expect('=')
                d.value = self.value(then=';')
                self.defs.append(d)
            elif t.text in ('enum', 'struct', 'union'):
                name = self.name()
                d = self.body(t.text, t.line)
                self.expect(';')
                self.adopt(d, name)
            elif t.text == 'typedef':
                self.typedef(t.line)
            elif t.text == 'program':
                self.program(t.line)
            else:
                raise XdrError(t.line, 'expected const, enum, struct, union, typedef or '
                               f'program, got {desc(t)}')
        return self.defs

    def adopt(self, d, name):
        """Name a parsed body, hoisting the inline types it contains."""
        d.name = name
        for x in d.decls():
            if x.type.kind == 'anon':
                self.adopt(x.type.defn, f'{name}_{x.name}')
                x.type = Type('named', x.type.defn.name)
        self.defs.append(d)

    def body(self, kind, line):
        d = Def(kind, None, line)
        if kind == 'enum':
            self.expect('{')
            while True:
                ln, m = self.peek().line, self.name()
                self.expect('=')
                d.members.append((m, self.value(), ln))
                if not self.accept(','):
                    break
            self.expect('}')
        elif kind == 'struct':
            self.expect('{')
            while not self.accept('}'):
                d.fields.append(self.declaration())
                self.expect(';')
            if not d.fields:
                raise XdrError(line, 'empty struct')
        else:
            self.expect('switch')
            self.expect('(')
            d.disc = self.declaration()
            self.expect(')')
            self.expect('{')
            while not self.accept('}'):
                t = self.peek()
                if self.accept('default'):
                    if d.default:
                        raise XdrError(t.line, 'second default arm')
                    self.expect(':')
                    d.default = self.declaration(void_ok=True)
                    self.expect(';')
                    continue
                cases = []
                while self.accept('case'):
                    cases.append(self.value(then=':'))
                if not cases:
                    raise XdrError(t.line, f"expected 'case', 'default' or '}}', got {desc(t)}")
                d.arms.append((cases, self.declaration(void_ok=True)))
                self.expect(';')
            if not d.arms:
                raise XdrError(line, 'union without case arms')
        return d

    def type_spec(self):
        t = self.next()
        w = t.text
        if t.kind != 'id':
            raise XdrError(t.line, f'expected a type, got {desc(t)}')
        if w == 'unsigned':
            nxt = self.peek().text
            if nxt in ('char', 'short'):
                raise XdrError(t.line, f"'unsigned {nxt}' is not XDR")
            if nxt in ('int', 'long', 'hyper'):
                self.next()
            return Type('uhyper' if nxt == 'hyper' else 'uint')
        if w in ('int', 'long', 'hyper', 'bool'):
            return Type('int' if w == 'long' else w)
        if w in ('float', 'double', 'quadruple'):
            raise XdrError(t.line, f"'{w}' is not supported (no floating point in NFS)")
        if w in ('enum', 'struct', 'union'):
            nxt = self.peek().text
            if nxt == '{' or (w == 'union' and nxt == 'switch'):
                return Type('anon', defn=self.body(w, t.line))
            return Type('named', self.name(), tag=w)
        if w in KEYWORDS:
            raise XdrError(t.line, f'expected a type, got {desc(t)}')
        return Type('named', w)

    def declaration(self, void_ok=False):
        t = self.peek()
        if t.kind == 'id' and t.text == 'void':
            self.next()
            if not void_ok:
                raise XdrError(t.line, "'void' is only allowed in union arms")
            return Decl(None, Type('void'), 'void', None, t.line)
        if t.kind == 'id' and t.text in ('opaque', 'string'):
            self.next()
            typ, name = Type(t.text), self.name()
            if t.text == 'string' or self.peek().text != '[':
                if self.peek().text != '<':
                    raise XdrError(t.line, f"'{t.text} {name}' needs "
                                   + ('<n>' if t.text == 'string' else '[n] or <n>'))
        else:
            typ = self.type_spec()
            if self.accept('*'):
                return Decl(self.name(), typ, 'opt', None, t.line)
            name = self.name()
        if self.accept('['):
            return Decl(name, typ, 'fixed', self.value(then=']'), t.line)
        if self.accept('<'):
            bound = None if self.accept('>') else self.value(then='>')
            return Decl(name, typ, 'var', bound, t.line)
        return Decl(name, typ, 'plain', None, t.line)

    def typedef(self, line):
        decl = self.declaration()
        self.expect(';')
        if decl.type.kind == 'anon':
            inner = decl.type.defn
            if decl.shape == 'plain':  # typedef struct {...} N; is struct N {...};
                self.adopt(inner, decl.name)
                return
            self.adopt(inner, decl.name + '_elem')
            decl.type = Type('named', inner.name)
        d = Def('typedef', decl.name, line)
        d.decl = decl
        self.defs.append(d)

    def proc_type(self):
        t = self.peek()
        if t.text in ('void', 'string', 'opaque'):
            return Type(self.next().text)
        typ = self.type_spec()
        if typ.kind == 'anon':
            raise XdrError(t.line, 'inline types are not allowed in procedure signatures')
        return typ

    def program(self, line):
        p = Def('program', self.name(), line)
        self.expect('{')
        while not self.accept('}'):
            vline, vname = self.expect('version').line, self.name()
            self.expect('{')
            procs = []
            while not self.accept('}'):
                pline, ret, pname = self.peek().line, self.proc_type(), self.name()
                self.expect('(')
                args = [self.proc_type()]
                while self.accept(','):
                    args.append(self.proc_type())
                self.expect(')')
                self.expect('=')
                procs.append(Proc(pname, ret, args, self.value(then=';'), pline))
            self.expect('=')
            p.versions.append((vname, self.value(then=';'), procs, vline))
        if not p.versions:
            raise XdrError(line, f"program '{p.name}' has no versions")
        self.expect('=')
        p.value = self.value(then=';')
        self.defs.append(p)


# ---------------------------------------------------------------- analysis

class Spec:
    """Checked definitions plus what the emitter needs to know."""

    def __init__(self, defs):
        self.defs = defs
        self.types = {}      # type name -> Def
        self.values = {}     # name of a constant-like thing -> Value
        self.macros = set()  # names that become #defines
        self.lines = {}      # every defined name -> line
        self.memo_wire = {}
        for d in defs:
            self.collect(d)
        for d in defs:
            self.check(d)
        self.order = self.c_order()
        self.lists, self.scc_of = self.recursion()
        for d in self.order:  # after c_order: no by-value cycle left
            for x in d.decls():
                if x.shape == 'var' and x.type.kind not in ('opaque', 'string') and \
                        not 0 < self.wire_type(x.type) <= U32_MAX:
                    raise XdrError(x.line, f"'{x.name}': array elements must take "
                                   f'1..{U32_MAX} bytes on the wire')

    def define(self, name, line, value=None, macro=False):
        if name in self.lines:
            raise XdrError(line, f"'{name}' is already defined (line {self.lines[name]})")
        if name in C_RESERVED:
            raise XdrError(line, f"'{name}' is a reserved name in C")
        self.lines[name] = line
        if value:
            self.values[name] = value
        if macro:
            self.macros.add(name)

    def collect(self, d):
        self.define(d.name, d.line, d.value, d.kind in ('const', 'program'))
        for m, v, ln in d.members:
            self.define(m, ln, v)
        for vname, vval, procs, vline in d.versions:
            self.define(vname, vline, vval, True)
            for p in procs:
                self.define(p.name, p.line, p.value, True)
        if d.kind in ('enum', 'struct', 'union', 'typedef'):
            if d.name in RUNTIME:
                raise XdrError(d.line, f"type name '{d.name}' clashes with the xdr.h runtime")
            self.types[d.name] = d

    def num(self, v, busy=()):
        if v.num is not None:
            return v.num
        if v.ident in ('TRUE', 'FALSE'):
            return int(v.ident == 'TRUE')
        w = self.values.get(v.ident)
        if w is None:
            raise XdrError(v.line, f"'{v.ident}' is not a defined constant")
        if v.ident in busy:
            raise XdrError(v.line, f"constant '{v.ident}' depends on itself")
        return self.num(w, busy + (v.ident,))

    def base(self, t):
        """Follow typedefs of plain declarations to the underlying type."""
        seen = set()
        while t.kind == 'named' and self.types[t.name].kind == 'typedef' and \
                self.types[t.name].decl.shape == 'plain':
            if t.name in seen:
                raise XdrError(self.types[t.name].line, f"typedef '{t.name}' refers to itself")
            seen.add(t.name)
            t = self.types[t.name].decl.type
        return t

    def check_type(self, t, line):
        d = self.types.get(t.name) if t.kind == 'named' else True
        if d is None:
            raise XdrError(line, f"'{t.name}' is not a defined type")
        if t.tag and t.tag != d.kind:
            raise XdrError(line, f"'{t.name}' is not a {t.tag}")

    def check_decl(self, x):
        if x.name in C_RESERVED:
            raise XdrError(x.line, f"'{x.name}' is a reserved name in C")
        if x.name in self.macros:
            raise XdrError(x.line, f"member '{x.name}' has the name of a #define")
        self.check_type(x.type, x.line)
        if x.bound is not None:
            n, low = self.num(x.bound), 1 if x.shape == 'fixed' else 0
            if not low <= n <= U32_MAX:
                raise XdrError(x.line, f"bound of '{x.name}' must be in {low}..{U32_MAX}, "
                               f'not {n}')

    def check(self, d):
        if d.kind == 'const':
            self.num(d.value)
        for m, v, ln in d.members:
            if not -2**31 <= self.num(v) < 2**31:
                raise XdrError(ln, f"enum value of '{m}' is not an int")
        names = set()
        for x in d.decls():
            self.check_decl(x)
            if x is d.disc:  # the arms live in 'u', apart from it
                continue
            if x.name in names:
                raise XdrError(x.line, f"duplicate member '{x.name}'")
            names.add(x.name)
        if d.kind == 'union':
            self.check_union(d)
        if d.kind == 'program':
            self.num(d.value)
            for _, vval, procs, _ in d.versions:
                self.num(vval)
                for p in procs:
                    self.num(p.value)
                    for t in [p.ret] + p.args:
                        self.check_type(t, p.line)

    def check_union(self, d):
        x = d.disc
        if x.shape != 'plain':
            raise XdrError(x.line, 'the discriminant must be a plain scalar')
        if x.name == 'u':
            raise XdrError(x.line, "the discriminant may not be named 'u'")
        b = self.base(x.type)
        if b.kind == 'named' and self.types[b.name].kind == 'enum':
            members = {self.num(v) for _, v, _ in self.types[b.name].members}
        elif b.kind in DISC_RANGE:
            lo, hi = DISC_RANGE[b.kind]
            members = range(lo, hi + 1)
        else:
            raise XdrError(x.line, 'the discriminant must be int, unsigned int, bool or an enum')
        seen = {}
        for c in (c for cases, _ in d.arms for c in cases):
            n = self.num(c)
            if n not in members:
                raise XdrError(c.line, f"case '{c.text}' is not a value of the discriminant type")
            if n in seen:
                raise XdrError(c.line, f"case '{c.text}' repeats case '{seen[n]}'")
            seen[n] = c.text

    def wire_type(self, t):
        """Minimum XDR size in bytes of a value of type t."""
        if t.kind in PRIM_C:
            return 8 if 'hyper' in t.kind else 4
        if t.name not in self.memo_wire:
            d = self.types[t.name]
            if d.kind == 'enum':
                n = 4
            elif d.kind == 'struct':
                n = sum(self.wire_decl(x) for x in d.fields)
            elif d.kind == 'union':
                n = 4 + min(self.wire_decl(a) for a in [a for _, a in d.arms] + [d.default]
                            if a)
            else:
                n = self.wire_decl(d.decl)
            self.memo_wire[t.name] = n
        return self.memo_wire[t.name]

    def wire_decl(self, x):
        if x.shape in ('void', 'opt', 'var'):
            return 0 if x.shape == 'void' else 4
        if x.type.kind == 'opaque':
            return (self.num(x.bound) + 3) & ~3
        n = self.wire_type(x.type)
        return n * self.num(x.bound) if x.shape == 'fixed' else n

    def c_order(self):
        """Types in an order where C needs nothing not yet declared."""
        state, out = {}, []

        def visit(d):
            if state.get(d.name) == 'busy':
                raise XdrError(d.line, f"'{d.name}' contains itself by value (only optional "
                               'data may recurse)')
            if d.name in state:
                return
            state[d.name] = 'busy'
            for x in d.decls():
                t = self.types.get(x.type.name) if x.type.kind == 'named' else None
                if t and (t.kind == 'typedef' or
                          (t.kind != 'enum' and x.shape in ('plain', 'fixed'))):
                    visit(t)
            state[d.name] = 'done'
            out.append(d)

        for d in self.defs:
            if d.kind in ('struct', 'union', 'typedef'):
                visit(d)
        return out

    def list_tail(self, d):
        """The trailing 'S *next' of a linked-list struct S, else None."""
        if d.kind != 'struct':
            return None
        f = d.fields[-1]
        shape, t = f.shape, f.type
        if shape == 'plain' and t.kind == 'named' and self.types[t.name].kind == 'typedef':
            shape, t = self.types[t.name].decl.shape, self.types[t.name].decl.type
        return f if shape == 'opt' and t.kind == 'named' and t.name == d.name else None

    def sccs(self, cut):
        """Cyclic type -> its cycle (Tarjan), ignoring the list tails in cut."""
        graph = {d.name: sorted({x.type.name for x in d.decls()
                                 if x.type.kind == 'named' and x is not cut.get(d.name)
                                 and self.types[x.type.name].kind != 'enum'})
                 for d in self.order}
        index, low, stack, comp = {}, {}, [], {}

        def strong(v):
            index[v] = low[v] = len(index)
            stack.append(v)
            for w in graph[v]:
                if w not in index:
                    strong(w)
                    low[v] = min(low[v], low[w])
                elif w in stack:
                    low[v] = min(low[v], index[w])
            if low[v] == index[v]:
                members = stack[stack.index(v):]
                del stack[stack.index(v):]
                cyclic = len(members) > 1 or v in graph[v]
                for w in members:
                    comp[w] = v if cyclic else None

        for v in graph:
            if v not in index:
                strong(v)
        return comp

    def recursion(self):
        cands = {d.name: self.list_tail(d) for d in self.order}
        cands = {k: v for k, v in cands.items() if v}
        first = self.sccs(cands)
        lists = {k: v for k, v in cands.items() if first[k] is None}
        return lists, self.sccs(lists)


# ---------------------------------------------------------------- emitter

def addr(lv):
    return lv[1:] if lv.startswith('*') else '&' + lv


def member(lv, m):
    return f'{lv[1:]}->{m}' if lv == '*v' else f'{lv}.{m}'


def check(expr):
    return [f'if (!{expr})', '\treturn false;']


def indent(lines):
    return ['\t' + s if s else s for s in lines]


class Emitter:
    def __init__(self, spec, origin, guard):
        self.s, self.origin, self.guard = spec, origin, guard
        self.need = set()   # locals the function being emitted needs
        self.scc = None     # its reference cycle, if any

    # -- C spelling

    def ctype(self, t):
        if t.kind in PRIM_C:
            return PRIM_C[t.kind]
        kind = self.s.types[t.name].kind
        return {'enum': 'enum ', 'typedef': ''}.get(kind, 'struct ') + t.name

    def cval(self, v):
        if v.ident:
            return {'TRUE': 'true', 'FALSE': 'false'}.get(v.ident, v.ident)
        return f'({v.text})' if v.num < 0 else v.text

    def cmax(self, x):
        return 'UINT32_MAX' if x.bound is None else self.cval(x.bound)

    def field(self, x, name):
        if x.type.kind in ('opaque', 'string'):
            if x.shape == 'fixed':
                return f'uint8_t {name}[{self.cval(x.bound)}];'
            return f'struct xdr_bytes {name};'
        c = self.ctype(x.type)
        return {'plain': f'{c} {name};', 'opt': f'{c} *{name};',
                'fixed': f'{c} {name}[{self.cmax(x)}];',
                'var': f'struct {{ uint32_t len; {c} *val; }} {name};'}[x.shape]

    def typedef(self, d):
        x = d.decl
        if x.shape == 'fixed':  # a struct: C arrays neither copy nor take const well
            return f'typedef struct {{ {self.field(x, "val")} }} {d.name};'
        return 'typedef ' + self.field(x, d.name)

    def xname(self, t):
        return PRIM_X.get(t.kind) or t.name

    # -- calls, with the depth argument inside a reference cycle

    def call(self, mode, t, arg):
        io = 'd' if mode == 'dec' else 'e'
        if t.kind in PRIM_FN:
            return f'xdr_{mode}_{PRIM_FN[t.kind]}({io}, {arg})'
        if self.scc and self.s.scc_of.get(t.name) == self.scc:
            return f'xdr__{mode}_{t.name}({io}, {arg}, depth + 1)'
        return f'xdr_{mode}_{t.name}({io}, {arg})'

    def call_dec(self, t, ptr):
        return self.call('dec', t, ptr)

    def call_enc(self, t, lv):
        return self.call('enc', t, lv if t.kind in PRIM_FN else addr(lv))

    # -- one declaration, lv being the C lvalue that holds it

    def dec_decl(self, x, lv):
        t, s = x.type, x.shape
        if s == 'void':
            return []
        if t.kind == 'opaque' and s == 'fixed':
            return check(f'xdr_dec_opaque_fixed(d, {lv}, {self.cval(x.bound)})')
        if t.kind in ('opaque', 'string'):
            return check(f'xdr_dec_bytes(d, {addr(lv)}, {self.cmax(x)})')
        if s == 'plain':
            return check(self.call_dec(t, addr(lv)))
        if s == 'opt':
            self.need.add('bool present;')
            return ['if (!xdr_dec_bool(d, &present))', '\treturn false;', f'{lv} = NULL;',
                    'if (present) {',
                    f'\t{lv} = xdr_dec_alloc(d, sizeof(*{lv}), {self.s.wire_type(t)});',
                    f'\tif (!{lv} || !{self.call_dec(t, lv)})', '\t\treturn false;', '}']
        self.need.add('uint32_t i;')
        if s == 'fixed':
            return [f'for (i = 0; i < {self.cmax(x)}; i++)',
                    f'\tif (!{self.call_dec(t, "&" + lv + "[i]")})', '\t\treturn false;']
        n, val = member(lv, 'len'), member(lv, 'val')
        return [f'if (!xdr_dec_u32(d, &{n}) ||',
                f'    !xdr_dec_count_ok(d, {n}, {self.cmax(x)}, {self.s.wire_type(t)}))',
                '\treturn false;', f'{val} = NULL;', f'if ({n}) {{',
                f'\t{val} = xdr_arena_array(d->arena, {n}, sizeof(*{val}));',
                f'\tif (!{val})', '\t\treturn false;', '}', f'for (i = 0; i < {n}; i++)',
                f'\tif (!{self.call_dec(t, "&" + val + "[i]")})', '\t\treturn false;']

    def enc_decl(self, x, lv):
        t, s = x.type, x.shape
        if s == 'void':
            return []
        if t.kind == 'opaque' and s == 'fixed':
            return check(f'xdr_enc_opaque_fixed(e, {lv}, {self.cval(x.bound)})')
        if t.kind in ('opaque', 'string'):
            return check(f'xdr_enc_bytes(e, {member(lv, "data")}, {member(lv, "len")}, '
                         f'{self.cmax(x)})')
        if s == 'plain':
            return check(self.call_enc(t, lv))
        if s == 'opt':
            return [f'if (!xdr_enc_bool(e, {lv} != NULL) ||',
                    f'    ({lv} && !{self.call_enc(t, "*" + lv)}))', '\treturn false;']
        self.need.add('uint32_t i;')
        if s == 'fixed':
            return [f'for (i = 0; i < {self.cmax(x)}; i++)',
                    f'\tif (!{self.call_enc(t, lv + "[i]")})', '\t\treturn false;']
        n, val = member(lv, 'len'), member(lv, 'val')
        bounded = x.bound is not None and self.s.num(x.bound) != U32_MAX
        over = f'{n} > {self.cmax(x)} || ' if bounded else ''  # else -Wtype-limits
        return [f'if ({over}!xdr_enc_u32(e, {n}))', '\treturn false;',
                f'for (i = 0; i < {n}; i++)',
                f'\tif (!{self.call_enc(t, val + "[i]")})', '\t\treturn false;']

    # -- whole functions

    def body(self, d, mode):
        one = self.dec_decl if mode == 'dec' else self.enc_decl
        if d.kind == 'typedef':
            return one(d.decl, 'v->val' if d.decl.shape == 'fixed' else '*v') + ['return true;']
        if d.name in self.s.lists:
            return self.list_body(d, mode, one)
        if d.kind == 'struct':
            return [s for x in d.fields for s in one(x, f'v->{x.name}')] + ['return true;']
        x, arms = d.disc, d.arms + ([([], d.default)] if d.default else [])
        out = one(x, f'v->{x.name}')
        if d.default and all(a.shape == 'void' for _, a in arms):
            return out + ['return true;']  # any value, and nothing follows
        bool_disc = self.s.base(x.type).kind == 'bool'
        out.append(f'switch ({"(int)" if bool_disc else ""}v->{x.name}) {{')  # -Wswitch-bool
        for cases, arm in d.arms:
            out += [f'case {self.cval(c)}:' for c in cases]
            out += indent(one(arm, f'v->u.{arm.name}') + ['break;'])
        out.append('default:')
        if d.default:
            out += indent(one(d.default, f'v->u.{d.default.name}') + ['break;'])
        else:
            out.append('\treturn false;')
        return out + ['}', 'return true;']

    def list_body(self, d, mode, one):
        nx = f'v->{d.fields[-1].name}'
        out = [s for x in d.fields[:-1] for s in one(x, f'v->{x.name}')]
        if mode == 'dec':
            self.need.add('bool more;')
            wire = self.s.wire_type(Type('named', d.name))
            out += ['if (!xdr_dec_bool(d, &more))', '\treturn false;', f'{nx} = NULL;',
                    'if (!more)', '\treturn true;',
                    f'{nx} = xdr_dec_alloc(d, sizeof(*{nx}), {wire});',
                    f'if (!{nx})', '\treturn false;', f'v = {nx};']
        else:
            out += check(f'xdr_enc_bool(e, {nx} != NULL)') + \
                [f'if (!{nx})', '\treturn true;', f'v = {nx};']
        return ['for (;;) {'] + indent(out) + ['}']

    def signature(self, d, mode, static=False):
        c = {'enum': 'enum ', 'typedef': ''}.get(d.kind, 'struct ') + d.name
        args = f'struct xdr_dec *d, {c} *v' if mode == 'dec' else \
            f'struct xdr_enc *e, const {c} *v'
        if static:
            return f'static bool xdr__{mode}_{d.name}({args}, unsigned int depth)'
        return f'bool xdr_{mode}_{d.name}({args})'

    def function(self, d, mode):
        self.need, self.scc = set(), self.s.scc_of.get(d.name)
        lines = self.body(d, mode)
        if len(lines) == 3 and lines[0].startswith('if (!') and \
                lines[1:] == ['\treturn false;', 'return true;']:
            lines = [f'return {lines[0][5:-1]};']
        head = [f'\t{s}' for s in sorted(self.need, key=lambda s: s.split()[-1])]
        head += [''] if head else []
        out = []
        if self.scc:
            head += ['\tif (depth > XDR_MAX_DEPTH)', '\t\treturn false;']
            out += [self.signature(d, mode, True), '{'] + head + indent(lines) + ['}', '']
            lines = [f'return xdr__{mode}_{d.name}({"d" if mode == "dec" else "e"}, v, 0);']
            head = []
        self.scc = None
        return out + [self.signature(d, mode), '{'] + head + indent(lines) + ['}', '']

    def enum_functions(self, d):
        vals, cases = set(), []
        for m, v, _ in d.members:
            if self.s.num(v) not in vals:  # C refuses repeated case values
                vals.add(self.s.num(v))
                cases.append(f'\tcase {m}:')
        n = d.name
        return [f'static bool xdr__valid_{n}(int32_t x)', '{', '\tswitch (x) {'] + cases + [
            '\t\treturn true;', '\tdefault:', '\t\treturn false;', '\t}', '}', '',
            self.signature(d, 'dec'), '{', '\tint32_t x;', '',
            f'\tif (!xdr_dec_i32(d, &x) || !xdr__valid_{n}(x))', '\t\treturn false;',
            f'\t*v = (enum {n})x;', '\treturn true;', '}', '',
            self.signature(d, 'enc'), '{', f'\treturn xdr__valid_{n}((int32_t)*v) &&',
            '\t       xdr_enc_i32(e, (int32_t)*v);', '}', ''] + self.name_function(d)

    def name_function(self, d):
        vals, cases = set(), []
        for m, v, _ in d.members:
            if self.s.num(v) not in vals:  # the first name of a repeated value
                vals.add(self.s.num(v))
                cases.append(f'\tcase {m}: return "{m}";')
        return [self.name_signature(d), '{', '\tswitch (x) {'] + cases + [
            '\tdefault: return NULL;', '\t}', '}', '']

    @staticmethod
    def name_signature(d):
        return f'const char *xdr_name_{d.name}(int32_t x)'

    # -- files

    def banner(self):
        return ['/* SPDX-License-Identifier: MIT */',
                f'/* Generated by tools/xdrgen from {self.origin}. Do not edit. */']

    def typed(self):
        return [d for d in self.s.defs if d.kind == 'enum'] + self.s.order

    def header(self):
        s, g = self.s, self.guard
        out = self.banner() + [
            '/*', ' * Codecs follow the conventions documented at the top of',
            ' * tools/xdrgen/xdrgen.py: xdr_dec_T()/xdr_enc_T() return false on',
            ' * malformed or short input, or when a value exceeds its bounds.', ' */',
            f'#ifndef {g}', f'#define {g}', '', '#include "xdr/xdr.h"', '']
        consts = [f'#define {d.name} {self.cval(d.value)}' for d in s.defs if d.kind == 'const']
        out += consts + ([''] if consts else [])
        for p in (d for d in s.defs if d.kind == 'program'):
            out += [f'/* Program {p.name} */', f'#define {p.name} {self.cval(p.value)}']
            for vname, vval, procs, _ in p.versions:
                out.append(f'#define {vname} {self.cval(vval)}')
                out += [f'#define {pr.name} {self.cval(pr.value)}\t/* ('
                        + ', '.join(self.xname(a) for a in pr.args)
                        + f') -> {self.xname(pr.ret)} */' for pr in procs]
            out.append('')
        for d in (d for d in s.defs if d.kind == 'enum'):
            out += [f'enum {d.name} {{'] + \
                [f'\t{m} = {self.cval(v)},' for m, v, _ in d.members] + ['};', '']
        fwd, done = [], set()
        for d in s.order:  # pointers to struct types defined further down
            for x in d.decls():
                n = x.type.name
                if x.type.kind == 'named' and n not in done | {d.name} and n not in fwd \
                        and s.types[n].kind in ('struct', 'union'):
                    fwd.append(n)
            done.add(d.name)
        out += [f'struct {n};' for n in fwd] + ([''] if fwd else [])
        for i, d in enumerate(s.order):
            if d.kind == 'typedef':  # consecutive typedefs stay together
                out.append(self.typedef(d))
                if i + 1 == len(s.order) or s.order[i + 1].kind != 'typedef':
                    out.append('')
                continue
            out.append(f'struct {d.name} {{')
            if d.kind == 'struct':
                out += [f'\t{self.field(x, x.name)}' for x in d.fields]
            else:
                out.append(f'\t{self.field(d.disc, d.disc.name)}')
                arms = [a for a in [a for _, a in d.arms] + [d.default]
                        if a and a.shape != 'void']
                if arms:
                    out += ['\tunion {'] + [f'\t\t{self.field(a, a.name)}' for a in arms] + \
                        ['\t} u;']
            out += ['};', '']
        for d in self.typed():
            out += [self.signature(d, 'dec') + ';', self.signature(d, 'enc') + ';']
        names = [self.name_signature(d) + ';' for d in s.defs if d.kind == 'enum']
        if names:
            out += ['', '/* The member name of an enum value, or NULL when it has none '
                    '(statistics, logs). */'] + names
        return '\n'.join(out + ['', f'#endif /* {g} */', ''])

    def source(self, header_name):
        out = self.banner() + ['', f'#include "{header_name}"', '']
        rec = [d for d in self.s.order if self.s.scc_of.get(d.name)]
        if rec:
            out.append('/* Recursive types: nesting bounded by XDR_MAX_DEPTH. */')
            out += [self.signature(d, m, True) + ';' for d in rec for m in ('dec', 'enc')]
            out.append('')
        for d in self.typed():
            if d.kind == 'enum':
                out += self.enum_functions(d)
                continue
            if d.name in self.s.lists:
                out.append('/* Linked list: a loop, not recursion, so any length fits the '
                           'stack. */')
            out += self.function(d, 'dec') + self.function(d, 'enc')
        return '\n'.join(out).rstrip('\n') + '\n'


# ---------------------------------------------------------------- main

def origin_of(path):
    """Input path relative to the repository, so output is reproducible."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
    rel = os.path.relpath(os.path.realpath(path), root)
    return os.path.basename(path) if rel.startswith('..') else rel.replace(os.sep, '/')


def main(argv=None):
    ap = argparse.ArgumentParser(description='XDR to C codec generator')
    ap.add_argument('input')
    ap.add_argument('--header', required=True)
    ap.add_argument('--source', required=True)
    ap.add_argument('--name', help='header guard name (default: the header file name)')
    a = ap.parse_args(argv)
    name = a.name or os.path.splitext(os.path.basename(a.header))[0]
    guard = 'NFSX_XDR_GEN_' + re.sub(r'[^A-Za-z0-9]', '_', name).upper() + '_H'
    try:
        with open(a.input, encoding='utf-8') as f:
            spec = Spec(Parser(lex(f.read())).parse())
        em = Emitter(spec, origin_of(a.input), guard)
        header, source = em.header(), em.source(os.path.basename(a.header))
    except XdrError as err:
        print(f'{a.input}:{err.line}: error: {err.msg}', file=sys.stderr)
        return 1
    except OSError as err:
        print(f'xdrgen: {err}', file=sys.stderr)
        return 1
    for path, text in ((a.header, header), (a.source, source)):
        with open(path, 'w', encoding='utf-8') as f:
            f.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
