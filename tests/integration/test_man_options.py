#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The man pages and the programs agree (TAP).

usage: test_man_options.py NFSXD NFSX MANDIR EXPORTS_PARSE_C

- nfsxd(8): the long options of "nfsxd --help" are the long options the
  page names, anywhere in it (so it documents none that does not exist).
- nfsx(1): the commands of "nfsx --help" are the items of COMMANDS; the
  long options of "nfsx --help" those of OPTIONS; the options of "nfsx
  bench --help" (its items and the NAME=VALUE words of its text) the
  items of BENCH OPTIONS; the options of "nfsx stats --help" (its
  items, "--interval, -i" giving both) the items of STATS OPTIONS.
- nfsx-exports(5): the options the exports parser accepts (its flag
  table and its NAME= prefixes) are the items of Options and Options
  accepted with no effect.
- every page formats without a groff warning (as lintian checks them).

An item is the first word of the line after a .TP, with the font
escapes dropped; a word "a, b" gives both. Both directions are checked:
a missing option and a stale one each fail.
"""
import os
import re
import shutil
import subprocess
import sys

n = 0
failed = 0


def ok(cond, desc, diag=""):
    global n, failed
    n += 1
    print(("ok" if cond else "not ok") + " %d - %s" % (n, desc))
    if not cond:
        failed += 1
        for line in diag.splitlines():
            print("# " + line)


def plain(roff):
    """Roff source text to plain words: escapes and fonts dropped."""
    s = re.sub(r"\\f(\[[^\]]*\]|.)", "", roff).replace("\\ ", " ")
    s = s.replace("\\-", "-").replace("\\e", "\\").replace("\\(bu", "*")
    s = s.replace('"', "")
    return re.sub(r"\\.", "", s)


def sections(path):
    """{section title: [lines]} of a man page (.SH and .SS both start one)."""
    secs, cur = {}, None
    for line in open(path, encoding="utf-8"):
        m = re.match(r'\.S[HS]\s+"?([^"\n]*)"?', line)
        if m:
            cur = m.group(1).strip()
            secs[cur] = []
        elif cur:
            secs[cur].append(line.rstrip("\n"))
    return secs


def items(lines):
    """The names of the .TP items: "name", "name=VALUE", "a, b" -> names."""
    out = set()
    for i, line in enumerate(lines[:-1]):
        if line.strip() != ".TP":
            continue
        text = plain(re.sub(r"^\.[A-Z]+\s*", "", lines[i + 1]))
        words = re.sub(r"\s+,", ",", text).split()
        # "ls [-l]...": the name; "help, --help", "verbose, -v": each
        for w in words:
            name = re.match(r"-{0,2}[a-z0-9][a-z0-9_.-]*", w)
            if name:
                out.add(name.group(0))
            if not w.endswith(","):
                break
    return out


def long_opts(text):
    return set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", text))


def run(*argv):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    return p.stdout


def same(want, have, desc, want_name, have_name):
    missing = sorted(want - have)
    extra = sorted(have - want)
    diag = ""
    if missing:
        diag += "in %s, not in %s: %s\n" % (want_name, have_name, " ".join(missing))
    if extra:
        diag += "in %s, not in %s: %s\n" % (have_name, want_name, " ".join(extra))
    ok(not missing and not extra and want, desc, diag)


def main():
    nfsxd, nfsx, mandir, parser_c = sys.argv[1:5]
    page8 = os.path.join(mandir, "nfsxd.8")
    page1 = os.path.join(mandir, "nfsx.1")
    page5 = os.path.join(mandir, "nfsx-exports.5")

    # nfsxd(8)
    helpd = run(nfsxd, "--help")
    same(long_opts(helpd), long_opts(plain(open(page8).read())),
         "nfsxd --help and nfsxd(8) name the same long options",
         "nfsxd --help", "nfsxd.8")

    # nfsx(1)
    s1 = sections(page1)
    helpx = run(nfsx, "--help")
    body = helpx.split("\n\n")[1]   # the command list, after the usage line
    cmds = set()
    for line in body.splitlines():
        m = re.match(r"  ([a-z]+)", line)
        if m:
            cmds.add(m.group(1))
    same(cmds, {i for i in items(s1.get("COMMANDS", [])) if not i.startswith("-")},
         "nfsx --help and nfsx(1) COMMANDS list the same commands",
         "nfsx --help", "nfsx.1 COMMANDS")
    same(long_opts(helpx), items(s1.get("OPTIONS", [])),
         "nfsx --help and nfsx(1) OPTIONS list the same long options",
         "nfsx --help", "nfsx.1 OPTIONS")

    helpb = run(nfsx, "bench", "--help")
    bopts = set()
    for line in helpb.splitlines():
        m = re.match(r"  ([a-z][a-z0-9_-]*)", line)
        if m:
            bopts.add(m.group(1))
            m = re.search(r",\s+(-[a-z])\b", line)   # "verbose, -v"
            if m:
                bopts.add(m.group(1))
    # options named only in the text of another's line (rwmixwrite=PCT)
    bopts |= set(re.findall(r"(?<![\w/?&.-])([a-z][a-z0-9_]*)=[A-Z]", helpb))
    same(bopts, items(s1.get("BENCH OPTIONS", [])),
         "nfsx bench --help and nfsx(1) BENCH OPTIONS list the same options",
         "nfsx bench --help", "nfsx.1 BENCH OPTIONS")

    helps = run(nfsx, "stats", "--help")
    sopts = set()
    for line in helps.splitlines():
        m = re.match(r"  (--?[a-z][a-z0-9-]*)((?:,\s+-[a-z]\b)?)", line)
        if m:
            sopts.add(m.group(1))
            if m.group(2):
                sopts.add(m.group(2).split()[-1])
    same(sopts, items(s1.get("STATS OPTIONS", [])),
         "nfsx stats --help and nfsx(1) STATS OPTIONS list the same options",
         "nfsx stats --help", "nfsx.1 STATS OPTIONS")

    # nfsx-exports(5): the parser's own tables are the truth
    src = open(parser_c).read()
    table = re.search(r"flag_opts\[\] = \{(.*?)\n\};", src, re.S)
    accepted = set(re.findall(r'\{ "([a-z_]+)",', table.group(1) if table else ""))
    accepted |= set(re.findall(r'memcmp\(p, "([a-z_]+)=", \d+\)', src))
    s5 = sections(page5)
    documented = set()
    for sec in ("Options", "Options accepted with no effect"):
        lines = s5.get(sec, [])
        documented |= items(lines)
        # "wdelay (and no_wdelay)": other option names on an item's line
        for i, line in enumerate(lines[:-1]):
            if line.strip() == ".TP":
                documented |= set(re.findall(r"[a-z_]+", plain(lines[i + 1]))) & accepted
    same(accepted, documented,
         "the exports parser and nfsx-exports(5) know the same options",
         "exports_parse.c", "nfsx-exports.5")

    # formatting, as lintian does it
    groff = shutil.which("groff")
    for page in (page8, page1, page5):
        name = os.path.basename(page)
        if not groff:
            print("ok %d - %s formats without warnings # SKIP no groff" % (n + 1, name))
            globals()["n"] += 1
            continue
        p = subprocess.run([groff, "-man", "-ww", "-z", "-Tutf8", page],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        ok(p.returncode == 0 and not p.stdout.strip(),
           "%s formats without groff warnings" % name, p.stdout)

    print("1..%d" % n)
    return 1 if failed else 0


sys.exit(main())
