#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Stale paths: a comment or a doc that names a file of the tree that is not there.

  paths.py SRC      read the comments of the code under src/, checks/,
                    include/, tests/, scripts/ and bench/, and the whole of
                    README.md and docs/; every path they name under src/,
                    docs/, include/, checks/, tests/ or bench/ (relative to
                    SRC) must exist.  A glob ("src/cmd/mesh_*.c") must match
                    something; a placeholder ("docs/checks/<id>.md") is
                    checked up to the directory that holds it; "..." and
                    trailing punctuation end a path.

Prints each stale name as FILE:LINE: PATH and exits 1; exits 0 with a
one-line summary.  Reads the tree as it is: no list of directories beyond
the top-level ones above.
"""
import glob
import os
import re
import sys

# Where comments are read, and the top-level directories a named path may start with.
CODE_DIRS = ("src", "checks", "include", "tests", "scripts", "bench")
DOCS = ("README.md", "docs")
NAMED = ("src", "docs", "include", "checks", "tests", "bench")

# Directories under CODE_DIRS that hold data, not code: their bytes are inputs.
DATA_DIRS = ("fixtures", "golden", "corpus")
SKIP_DIRS = ("__pycache__",)  # and build*/ and hidden directories

# A path starts a word (not ".../src/x": another tree's) and runs over the
# characters of file names, globs and <placeholders>.
PATH = re.compile(r"(?<![\w./$~-])(?:%s)/[\w./*?<>{},+-]*" % "|".join(NAMED))

C_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
C_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
# Another project's tree, named in the sentence before a path of it.
FOREIGN = re.compile(r"\b(?:NCCL|nccl\w*|Slurm|kernel|Linux|uapi|rdma-core|perftest|hwloc|"
                     r"iproute2|upstream)\b")
FOREIGN_EXT = (".cc", ".cpp", ".cxx", ".hpp")
HASH_COMMENT = re.compile(r"(?:^|(?<=\s))#[^\n]*")


def comments(path, text):
    """The comment text of a code file, with newlines kept so lines count."""
    blank = (lambda m: re.sub(r"[^\n]", " ", m.group()))
    name = os.path.basename(path)
    if name.startswith("README"):
        return text  # a README beside the code is a doc: all of it is read
    if name.endswith((".c", ".h", ".c.in", ".h.in", ".def")):
        keep = [m.span() for m in C_COMMENT.finditer(C_STRING.sub(blank, text))]
    elif name.endswith((".py", ".sh", ".cmake", ".txt", ".service", ".timer", ".yml",
                        ".supp")) \
            or name == "CMakeLists.txt" or text.startswith("#!"):
        keep = [m.span() for m in HASH_COMMENT.finditer(text)
                if not text[m.start():].startswith("#!")]
    else:
        return ""
    out = list(re.sub(r"[^\n]", " ", text))
    for a, b in keep:
        out[a:b] = text[a:b]
    return "".join(out)


def files(src):
    """(path relative to SRC, whole-file?) of what is read."""
    for top in CODE_DIRS + DOCS:
        p = os.path.join(src, top)
        if os.path.isfile(p):
            yield top, True
            continue
        for d, dirs, names in os.walk(p):
            dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS + DATA_DIRS
                             and not x.startswith(("build", ".")))
            for n in sorted(names):
                rel = os.path.relpath(os.path.join(d, n), src)
                yield rel, top == "docs"


def trim(name):
    """The path a match names: up to "...", without trailing punctuation."""
    name = name.split("...")[0].rstrip(".,:;)'`")
    while name.endswith("}") and name.count("}") > name.count("{"):
        name = name[:-1].rstrip(".,:;)'`")
    return name


def expand(name):
    """{a,b} alternatives as separate names."""
    m = re.search(r"\{([^{}]*)\}", name)
    if not m:
        return [name]
    out = []
    for alt in m.group(1).split(","):
        out += expand(name[:m.start()] + alt + name[m.end():])
    return out


def placeholder(part):
    """A component that stands for a name: "<id>.md", "NAME.sh", "tNNNN-*.sh"."""
    return "<" in part or ">" in part or re.search(r"[A-Z]{3,}", part) is not None


def exists(src, name):
    """Whether @name (a path, a glob, a path with a placeholder, or the start
    of a file name: "tests/cli/t0711") is in the tree."""
    if os.path.exists(os.path.join(src, name)):
        return True
    parts = name.rstrip("/").split("/")
    for i, part in enumerate(parts):
        if placeholder(part):
            return os.path.isdir(os.path.join(src, *parts[:i]))
    if "." not in parts[-1] and not name.endswith("/"):
        name += "*"
    return bool(glob.glob(os.path.join(src, name)))


def foreign(src, name, before):
    """Whether @name is another project's path: C++ (this tree has none), or
    under a directory this tree lacks where the sentence before it names
    the project ("NCCL's src/graph/paths.cc", "Slurm's src/common/...")."""
    if name.endswith(FOREIGN_EXT):
        return True
    parts = name.split("/")
    if len(parts) < 3 or os.path.isdir(os.path.join(src, parts[0], parts[1])):
        return False  # a file at the top, or under a directory this tree has
    return FOREIGN.search(before + name) is not None


def prose(name):
    """A slash that means "or" ("src/dst", "checks/findings"): two words,
    no extension, no trailing slash; a directory is named "src/x/"."""
    parts = name.split("/")
    return len(parts) == 2 and "." not in parts[1] and not any(c in parts[1] for c in "*?<")


def stale(src):
    """[(file, line, path)] of every named path that is not in the tree, and
    how many names were read."""
    bad, seen = [], 0
    for rel, whole in files(src):
        try:
            with open(os.path.join(src, rel), encoding="utf-8") as fh:
                text = fh.read()
        except UnicodeDecodeError:
            continue
        if not whole:
            text = comments(rel, text)
        for m in PATH.finditer(text):
            name = trim(m.group())
            if name.count("/") < 1 or name.endswith("/") and name.count("/") == 1:
                continue  # a bare "src/" names a top-level directory
            seen += 1
            before = text[max(0, m.start() - 160):m.start()]
            for one in expand(name):
                if not (exists(src, one) or prose(one) or foreign(src, one, before)):
                    line = text.count("\n", 0, m.start()) + 1
                    bad.append((rel, line, one))
    return bad, seen


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print(__doc__, file=sys.stderr)
        return 64
    bad, seen = stale(argv[1])
    for rel, line, name in bad:
        print(f"paths: {rel}:{line}: {name} does not exist")
    if not bad:
        print(f"paths: {seen} paths named in comments and docs, all in the tree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
