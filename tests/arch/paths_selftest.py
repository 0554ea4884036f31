#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""paths.py on a made-up tree, so that the path lint itself can fail: a
comment or doc naming a file that is gone is caught in C, shell, Python and
Markdown, and what names no file of this tree (a glob that matches, a
<placeholder>, NAME, another project's path, a slash meaning "or", a path
in code rather than a comment, a build output's prefix) is not."""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import paths  # noqa: E402

GOOD = {
    "src/lib/a.c": '/* a.c - see src/lib/a.h and docs/a.md (docs/checks/<id>.md). */\n'
                   'static const char *p = "src/gone.c"; /* src/lib/*.c */\n',
    "src/lib/a.h": "// NCCL's src/graph/paths.cc, and its src/transport/net_ib/ directory\n",
    "tests/t.sh": "#!/bin/sh\n# runs tests/jobs/NAME.sh and tests/t.sh; src/dst is any\necho src/gone\n",
    "tests/jobs/one.sh": "#!/bin/sh\n",
    "tests/fuzz_x.c": "/* fuzz target tests/fuzz_x (built from tests/fuzz_x.c) */\n",
    "bench/b.py": '"""docstring: src/none.c is not a comment"""\n# {src,docs}/ ok: src/lib/{a.c,a.h}\n',
    "docs/a.md": "The engine is `src/lib/a.c`; pages are docs/checks/<id>.md.\n",
    "docs/checks/x.md": "See include/uapi/linux/dcbnl.h (the kernel's).\n",
    "README.md": "Layout: src/lib/, tests/, docs/a.md.\n",
}

STALE = [
    ("src/lib/a.c", "/* moved: src/a.c */\n", "src/a.c"),
    ("tests/t.sh", "# see tests/lib/old.sh\n", "tests/lib/old.sh"),
    ("bench/b.py", "# after src/lib/gone.c\n", "src/lib/gone.c"),
    ("docs/a.md", "It lives in `include/preflight/gone.h`.\n", "include/preflight/gone.h"),
    ("README.md", "docs/{a,gone}.md\n", "docs/gone.md"),
    ("src/lib/a.h", "/* src/lib/zz_*.c */\n", "src/lib/zz_*.c"),
]


def tree(root, extra=None):
    for rel, text in GOOD.items():
        p = os.path.join(root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8") as f:
            f.write(text + (extra[1] if extra and extra[0] == rel else ""))


def main():
    bad = 0
    with tempfile.TemporaryDirectory() as root:
        tree(root)
        got, seen = paths.stale(root)
        print(f"selftest: a correct tree: {len(got)} stale of {seen} named (want 0)")
        for g in got:
            print("selftest:   unexpected", g)
        bad += bool(got) or seen == 0
    for rel, line, name in STALE:
        with tempfile.TemporaryDirectory() as root:
            tree(root, (rel, line))
            got, _ = paths.stale(root)
            names = [g[2] for g in got]
            ok = names == [name] and got[0][0] == rel
            print(f"selftest: {rel} naming {name}: {names} (want [{name!r}])")
            bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
