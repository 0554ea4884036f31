#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bug_on.py SRCDIR: every PF_BUG_ON(cond) under src/, checks/ and include/ has a
condition without side effects (include/preflight/macro.h): no function call
(sizeof excepted), no assignment, ++ or --.  The work goes in a statement of its
own and the macro only tests its result, so the line still does its job if the
assertion is ever compiled out or moved.  `bug_on.py --selftest` shows the rule
catching each kind and passing the plain ones."""
import os
import re
import sys

CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
ASSIGN = re.compile(r"(?<![=!<>+\-*/%&|^])=(?!=)|[+\-*/%&|^]=|<<=|>>=|\+\+|--")
NOT_CALLS = {"sizeof", "_Alignof", "__alignof__", "__builtin_expect"}


def strip_literals(s):
    s = re.sub(r'"(?:\\.|[^"\\])*"', '""', s)
    return re.sub(r"'(?:\\.|[^'\\])*'", "''", s)


def side_effect(cond):
    """What in @cond may have a side effect, or None."""
    c = strip_literals(cond)
    for m in CALL.finditer(c):
        if m.group(1) not in NOT_CALLS:
            return "calls %s()" % m.group(1)
    m = ASSIGN.search(c.replace("->", "  "))
    if m:
        return "'%s'" % m.group(0)
    return None


def conditions(text):
    """(line, cond) of each PF_BUG_ON(...) use in C source @text."""
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    for m in re.finditer(r"\bPF_BUG_ON\s*\(", text):
        if text[:m.start()].rstrip().endswith("#define"):
            continue
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        yield text.count("\n", 0, m.start()) + 1, text[m.end():i - 1]


def scan(root):
    bad = n = 0
    for top in ("src", "checks", "include"):
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith((".c", ".h")):
                    continue
                p = os.path.join(d, f)
                with open(p, encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
                for line, cond in conditions(text):
                    n += 1
                    why = side_effect(cond)
                    if why:
                        bad += 1
                        print("%s:%d: PF_BUG_ON(%s) %s: do the work in a statement of its "
                              "own and test the result" % (os.path.relpath(p, root), line,
                                                          " ".join(cond.split()), why))
    return bad, n


def selftest():
    flagged = ["fclose(f) != 0", "r = x", "n++ > 3", "--n", "a += 1",
               "pf_x(a, &b) < 0 || b == 0", "x <<= 1"]
    plain = ["!f", "r < 0", "n < 0 || (size_t)n >= sb->alloc - sb->len", "a == b",
             "a != b && c <= d && e >= f", "len > sb->len", "true", "x > sizeof(int)",
             "s[0] == '('", 'p == "f(x)"', "a->b == -1"]
    wrong = [c for c in flagged if not side_effect(c)] + [c for c in plain if side_effect(c)]
    src = "#define PF_BUG_ON(cond) x\n/* PF_BUG_ON(f())\n */\nPF_BUG_ON(a(\n b) < 0);\n"
    found = list(conditions(src))
    if found != [(4, "a(\n b) < 0")]:
        wrong.append("conditions() read %r" % found)
    for w in wrong:
        print("bug_on.py selftest: misjudged %s" % w)
    return 1 if wrong else 0


def main(argv):
    if argv[1:] == ["--selftest"]:
        return selftest()
    if len(argv) != 2:
        print("usage: bug_on.py SRCDIR | --selftest", file=sys.stderr)
        return 2
    bad, n = scan(argv[1])
    print("bug_on.py: %d PF_BUG_ON uses, %d with a side effect" % (n, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
