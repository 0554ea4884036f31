#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The architecture, read from the built objects with nm(1).

  layers.py layers LIB...     LIBs bottom to top (pf_core ... pf_cmd): every
                              symbol an object needs from the project is
                              defined in its own layer or one below, and no
                              two source files need each other, directly or
                              in a longer circle.
  layers.py contract LIB      the check objects of LIB (pf_checks) call no
                              libc function that reads the node, the process
                              or the clock: a check sees those only through
                              its ctx, so a recorded root reproduces it.
Prints what is wrong and exits 1; exits 0 with a one-line summary.
"""
import os
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


def layers(libs):
    rank, where, objs = {}, {}, {}
    for i, lib in enumerate(libs):
        name = os.path.basename(lib)
        for obj, (d, u) in nm_objects(lib).items():
            key = f"{name}:{obj}"
            objs[key] = (i, u)
            for sym in d:
                where[sym] = (i, key)
        rank[name] = i
    bad, graph = [], {}
    for key, (i, undef) in sorted(objs.items()):
        for sym in sorted(undef):
            if sym not in where:
                continue
            j, other = where[sym]
            if other != key:
                graph.setdefault(key, set()).add(other)
            if j > i:
                bad.append(f"{key} needs {sym} from {other}, a layer above it")
    for comp in cycles(graph):
        bad.append("files that need each other: " + " <-> ".join(comp))
    for b in bad:
        print("layers:", b)
    if not bad:
        edges = sum(len(v) for v in graph.values())
        print(f"layers: {len(libs)} layers, {len(objs)} objects, {edges} file dependencies, "
              "all downward, no cycles")
    return 1 if bad else 0


def contract(lib):
    bad = []
    objs = nm_objects(lib)
    for obj, (_, undef) in sorted(objs.items()):
        for sym in sorted(undef & FORBIDDEN):
            bad.append(f"{obj} calls {sym}(): a check reads the node, the process and the "
                       "clock only through its ctx")
    for b in bad:
        print("contract:", b)
    if not bad:
        print(f"contract: {len(objs)} check objects, none calls a forbidden function")
    return 1 if bad else 0


def main(argv):
    if len(argv) >= 3 and argv[1] == "layers":
        return layers(argv[2:])
    if len(argv) == 3 and argv[1] == "contract":
        return contract(argv[2])
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))
