#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The architecture, read from the built objects with nm(1).

  layers.py layers SRC SPEC...
                              SPEC is "LIBFILE|DIR|LINKS|HEADERS" for each
                              library (CMake's pf_layer(): its archive, its
                              source directory under SRC, the pf_ libraries
                              it links and the headers of include/preflight/
                              it owns, comma-separated).  A library may use
                              what it links, directly or through them, and
                              nothing else: every symbol an object needs from
                              the project, and every header a source or
                              private header includes ("x.h" from a library's
                              directory, "preflight/x.h" from its owner), comes
                              from the library itself or one it reaches; no
                              two source files need each other, directly or in
                              a longer circle; every public header has one
                              owner, which defines every function and object
                              it declares (nm: a header is cut by who defines
                              it, not by who uses it); checks/ includes only
                              include/preflight/; every library has a rank in
                              RANKS and links only libraries of a lower rank
                              (siblings of one rank never link each other).
  layers.py contract LIB [CHECKS]
                              the check objects of LIB (pf_checks) call no
                              libc function that reads the node, the process
                              or the clock: a check sees those only through
                              its ctx, so a recorded root reproduces it.  Nor
                              do they ask where their facts came from: no
                              pf_fs_is_live(), and no source in the CHECKS
                              directory compares a provider table's name or
                              the node model's source (a check asks what they
                              declare: the table's caps, pf_node_holds()).
Prints what is wrong and exits 1; exits 0 with a one-line summary.
"""
import os
import re
import subprocess
import sys

# What a check may not call (docs/testing.md, "The check contract").
FORBIDDEN = {
    # the environment and the process's identity
    "getenv", "secure_getenv", "geteuid", "getuid", "getegid", "getgid", "getpid",
    "getpwuid", "getpwuid_r", "getpwnam", "getpwnam_r", "getgroups",
    # the clock and waiting
    "clock_gettime", "gettimeofday", "time", "sleep", "usleep", "nanosleep",
    "clock_nanosleep", "poll", "select",
    # files and directories of its own, not through ctx->fs
    "open", "open64", "openat", "openat64", "fopen", "fopen64", "opendir", "fdopendir",
    "stat", "stat64", "lstat", "lstat64", "fstatat", "fstatat64", "access", "faccessat",
    "readlink", "readlinkat", "realpath", "close", "read", "write", "pread", "pread64",
    # output of its own: a check speaks through its result
    "printf", "fprintf", "puts", "fputs", "fwrite", "perror", "syslog",
    # processes
    "fork", "system", "popen", "execv", "execve", "execvp", "exit", "_exit",
}

# What a check may not ask of the project: whether its root is the live node.
FORBIDDEN_PF = {"pf_fs_is_live"}
# A provider table's name or the node model's source compared (strcmp(ctx->prov->name,
# "recorded"), strcmp(node->source, "hwloc"), ->name == ...).
PROV_NAME = re.compile(r"\bstrn?(?:case)?cmp\s*\([^;]*(?:\bprov->name|node->source)\b|"
                       r"(?:\bprov->name|node->source)\s*[!=]=|"
                       r"[!=]=\s*[A-Za-z_>.-]*(?:\bprov->name|node->source)\b")


# The rank of each library (README "Layout"), bottom up: a library links only
# libraries of a lower rank, so a link upward or sideways (mesh and fleet, the
# two multi-node engines, share a rank: what both need lives below them, as
# the triangulation does in pairs) fails even where CMake would build it.
RANKS = {
    "pf_core": 0,
    "pf_parse": 1,
    "pf_diff": 1,  # the comparison of two report documents: JSON in, JSON out
    "pf_profile": 2, "pf_node": 2, "pf_wrap": 2,
    "pf_pairs": 2,  # schedules and triangulation: below checks, used by mesh and fleet
    "pf_traffic": 3, "pf_facts": 3, "pf_report": 3,
    "pf_checks": 4, "pf_runner": 4,
    "pf_registry": 5, "pf_mesh": 5, "pf_fleet": 5,
    "pf_slurm": 5,  # the Slurm gate: a report's verdict to drain/resume, over the runner's exec
    "pf_capture": 6,  # a profile from a report, through the registry's parameter tables
    "pf_cmd": 7,  # the front ends only
}


def nm_objects(lib):
    """{object: (defined, undefined)} of a static library."""
    out = subprocess.run(["nm", "-A", lib], capture_output=True, text=True, check=True).stdout
    objs = {}
    for line in out.splitlines():
        head, _, rest = line.rpartition(":")
        # "lib.a:obj.o: 0000 T sym" or "lib.a:obj.o:          U sym"
        path, _, obj = head.partition(":")
        parts = rest.split()
        if len(parts) < 2:
            continue
        kind, sym = parts[-2], parts[-1]
        d, u = objs.setdefault(obj, (set(), set()))
        if kind == "U":
            u.add(sym)
        elif kind in "TDBRCVW" or kind in "tdbr":
            if kind.isupper():
                d.add(sym)
    return objs


def cycles(graph):
    """Strongly connected components with more than one node (Tarjan)."""
    index, low, stack, on, found, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def parse_specs(specs):
    """{name: (archive, dir, links, headers)} in declaration order."""
    libs = {}
    for spec in specs:
        archive, d, links, headers = spec.split("|")
        name = os.path.splitext(os.path.basename(archive))[0].removeprefix("lib")
        libs[name] = (archive, d, [x for x in links.split(",") if x],
                      [x for x in headers.split(",") if x])
    return libs


def reach(libs):
    """{name: set of libraries it may use}: itself and what it links, transitively."""
    out = {}

    def walk(n, seen):
        for m in libs[n][2]:
            if m in libs and m not in seen:
                seen.add(m)
                walk(m, seen)
        return seen
    for n in libs:
        out[n] = walk(n, {n})
    return out


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def includes(src, libs, may):
    """Problems with the quoted includes of each library's sources."""
    bad, owner, private = [], {}, {}
    for n, (_, d, _, headers) in libs.items():
        for h in headers:
            if h in owner:
                bad.append(f"include/preflight/{h} is claimed by {owner[h]} and {n}")
            owner[h] = n
            if not os.path.exists(os.path.join(src, "include/preflight", h)):
                bad.append(f"{n} claims include/preflight/{h}, which does not exist")
        for f in os.listdir(os.path.join(src, d)):
            if f.endswith(".h"):
                private.setdefault(f, n)
    for h in sorted(os.listdir(os.path.join(src, "include/preflight"))):
        if h.endswith(".h") and h not in owner:
            bad.append(f"include/preflight/{h} has no owner (HEADERS of a pf_layer())")
    for n, (_, d, _, _) in libs.items():
        for f in sorted(os.listdir(os.path.join(src, d))):
            if not f.endswith((".c", ".h")):
                continue
            with open(os.path.join(src, d, f), encoding="utf-8") as fh:
                text = fh.read()
            for inc in INCLUDE.findall(text):
                if inc.startswith("preflight/"):
                    o = owner.get(inc[len("preflight/"):])
                elif d == "checks" and not inc.endswith(".def"):
                    bad.append(f"{d}/{f} includes \"{inc}\": a check includes only "
                               "include/preflight/")
                    continue
                else:
                    o = n if os.path.exists(os.path.join(src, d, inc)) else private.get(inc)
                if o is None:
                    continue  # generated (version.h) or a system header
                if o not in may[n]:
                    bad.append(f"{d}/{f} includes \"{inc}\" of {o}, which {n} does not link")
    return bad


COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
ATTRIBUTE = re.compile(r"__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)")
IDENT = re.compile(r"[A-Za-z_]\w*")
# A macro used at file scope ("PF_DEFINE_AUTO(...)", "PF_PRINTF(2, 3)"): it
# declares nothing a library defines, and it takes no semicolon.
MACRO_CALL = re.compile(r"\b[A-Z][A-Z0-9_]*\s*\((?:[^()]|\([^()]*\))*\)")


def top_level(text):
    """The statements of a header outside braces, the preprocessor and
    macro calls, each with its braces' contents dropped; a function defined
    in the header (a static inline) ends at its closing brace."""
    text = COMMENT.sub(" ", text)
    text = re.sub(r"\\\n", " ", text)
    text = "\n".join(x for x in text.splitlines() if not x.lstrip().startswith("#"))
    text = MACRO_CALL.sub(" ", text)
    out, cur, depth = [], [], 0
    for ch in text:
        if ch == "{":
            depth += 1
            if depth == 1:
                cur.append("{}")
            continue
        if ch == "}":
            depth -= 1
            if depth == 0 and re.search(r"\)\s*\{\}\s*$", "".join(cur)):
                out.append("".join(cur))
                cur = []
            continue
        if depth:
            continue
        if ch == ";":
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    return [" ".join(x.split()) for x in out if x.strip()]


def declared(path):
    """The functions and objects a header declares for a library to define:
    not its types, typedefs, macros or static inline functions."""
    with open(path, encoding="utf-8") as fh:
        stmts = top_level(fh.read())
    names = []
    for st in stmts:
        st = ATTRIBUTE.sub(" ", st)
        first = IDENT.match(st)
        if first is None or first.group() in ("typedef", "static"):
            continue
        if "(" in st:
            before, _, after = st.partition("(")
            if after.lstrip().startswith("*"):   # a function pointer object
                m = IDENT.search(after)
            else:
                ids = IDENT.findall(before)
                m = None
                if ids:
                    names.append(ids[-1])
                continue
            if m:
                names.append(m.group())
            continue
        if "{}" in st:
            continue  # struct, union or enum definition
        ids = IDENT.findall(st.split("[")[0].split("=")[0])
        if len(ids) >= 2:  # "struct x;" forward declarations name no object
            if ids[0] in ("struct", "union", "enum") and len(ids) == 2:
                continue
            names.append(ids[-1])
    return names


def definers(src, libs, where):
    """Problems with who defines what the public headers declare: each
    function or object must be defined by the library that owns its header."""
    bad = []
    for n, (_, _, _, headers) in libs.items():
        for h in headers:
            path = os.path.join(src, "include/preflight", h)
            if not os.path.exists(path):
                continue
            for sym in declared(path):
                if sym not in where:
                    bad.append(f"include/preflight/{h} (owned by {n}) declares {sym}, "
                               "which no library defines")
                elif where[sym][0] != n:
                    bad.append(f"include/preflight/{h} (owned by {n}) declares {sym}, "
                               f"defined in {where[sym][1]}")
    return bad


def ranked(libs, ranks):
    """Problems with the libraries' ranks: one missing, a link not downward."""
    bad = []
    for n, (_, _, links, _) in libs.items():
        if n not in ranks:
            bad.append(f"{n} has no rank (RANKS in tests/arch/layers.py)")
            continue
        for m in links:
            if m in ranks and ranks[m] >= ranks[n]:
                way = "sideways" if ranks[m] == ranks[n] else "upward"
                bad.append(f"{n} (rank {ranks[n]}) links {m} (rank {ranks[m]}): {way}")
    return bad


def layers(src, specs, ranks=None):
    libs = parse_specs(specs)
    may = reach(libs)
    where, objs = {}, {}
    for n, (archive, _, _, _) in libs.items():
        for obj, (d, u) in nm_objects(archive).items():
            key = f"{n}:{obj}"
            objs[key] = (n, u)
            for sym in d:
                where[sym] = (n, key)
    bad, graph = [], {}
    for key, (n, undef) in sorted(objs.items()):
        for sym in sorted(undef):
            if sym not in where:
                continue
            m, other = where[sym]
            if other != key:
                graph.setdefault(key, set()).add(other)
            if m not in may[n]:
                bad.append(f"{key} needs {sym} from {other}: {n} does not link {m}")
    for comp in cycles(graph):
        bad.append("files that need each other: " + " <-> ".join(comp))
    bad += includes(src, libs, may)
    bad += definers(src, libs, where)
    bad += ranked(libs, RANKS if ranks is None else ranks)
    for b in bad:
        print("layers:", b)
    if not bad:
        edges = sum(len(v) for v in graph.values())
        print(f"layers: {len(libs)} libraries, {len(objs)} objects, {edges} file dependencies, "
              "each within what its library links; includes likewise; no cycles; "
              "each public header's functions defined by its owner")
    return 1 if bad else 0


def prov_name_compares(checks):
    """file:line of each comparison of a provider table's name under CHECKS."""
    found = []
    for f in sorted(os.listdir(checks)):
        if not f.endswith((".c", ".h")):
            continue
        with open(os.path.join(checks, f), encoding="utf-8") as fh:
            for i, line in enumerate(fh, 1):
                if PROV_NAME.search(line):
                    found.append(f"{f}:{i}")
    return found


def contract(lib, checks=None):
    bad = []
    objs = nm_objects(lib)
    for obj, (_, undef) in sorted(objs.items()):
        for sym in sorted(undef & FORBIDDEN):
            bad.append(f"{obj} calls {sym}(): a check reads the node, the process and the "
                       "clock only through its ctx")
        for sym in sorted(undef & FORBIDDEN_PF):
            bad.append(f"{obj} calls {sym}(): a check asks what its providers hold "
                       "(pf_prov_can(), ctx->prov->caps), never whether the root is live")
    for where in prov_name_compares(checks) if checks else []:
        bad.append(f"{where} compares a provider table's name or the node's source: ask "
                   "what they declare (pf_prov_can(), pf_node_holds()) instead")
    for b in bad:
        print("contract:", b)
    if not bad:
        print(f"contract: {len(objs)} check objects, none calls a forbidden function"
              + (" or compares a provider's name or the node's source" if checks else ""))
    return 1 if bad else 0


def main(argv):
    if len(argv) >= 4 and argv[1] == "layers":
        return layers(argv[2], argv[3:])
    if len(argv) in (3, 4) and argv[1] == "contract":
        return contract(argv[2], argv[3] if len(argv) == 4 else None)
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))
