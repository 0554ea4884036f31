#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""layers.py on a made-up tree, so that the architecture test itself can fail:
a library that calls or includes a sibling it does not link is caught, one
that links it is not, a check that includes a private header is caught, an
unowned public header is caught, and so is a public header whose functions
another library defines (or none does), a sideways link, a library without a
rank; so is a check that asks whether its root is live or compares its
provider's name.  Needs cc and ar."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import layers  # noqa: E402


def write(root, path, text):
    p = os.path.join(root, path)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w", encoding="utf-8") as f:
        f.write(text)


def archive(root, d, name):
    objs = []
    for f in sorted(os.listdir(os.path.join(root, d))):
        if f.endswith(".c"):
            o = os.path.join(root, d, f + ".o")
            subprocess.run(["cc", "-c", "-I", os.path.join(root, "include"), "-I",
                            os.path.join(root, "a"), os.path.join(root, d, f), "-o", o],
                           check=True)
            objs.append(o)
    a = os.path.join(root, f"lib{name}.a")
    subprocess.run(["ar", "rcs", a] + objs, check=True)
    return a


# a at the bottom, b and c siblings above it, checks beside them
RANKS = {"pf_a": 0, "pf_b": 1, "pf_c": 1, "pf_checks": 1}
# c above b: the cases that link c to b for another reason than a sideways link
DOWN = {"pf_a": 0, "pf_b": 1, "pf_c": 2, "pf_checks": 1}


def run(root, specs, ranks=RANKS):
    return layers.layers(root, specs, ranks)


def contract_cases(root):
    """The check contract: a check that asks whether its root is live, or
    compares its provider table's name, fails; one that asks the caps passes."""
    bad = 0
    live = ("int pf_fs_is_live(const void *fs);\n"
            "int kl(const void *fs) { return pf_fs_is_live(fs); }\n")
    name = ("#include <string.h>\nstruct p { const char *name; unsigned caps; };\n"
            "struct c { const struct p *prov; };\n"
            "int kn(const struct c *ctx) { return !strcmp(ctx->prov->name, \"recorded\"); }\n")
    source = ("#include <string.h>\nstruct n { const char *source; };\n"
              "int ks(const struct n *node) { return !strcmp(node->source, \"hwloc\"); }\n")
    caps = ("struct p { const char *name; unsigned caps; };\nstruct c { const struct p *prov; };\n"
            "int kc(const struct c *ctx) { return ctx->prov->caps & 1u; }\n")
    for what, want, d, text in [("a check asking pf_fs_is_live()", 1, "clive", live),
                                ("a check comparing its provider's name", 1, "cname", name),
                                ("a check comparing the node's source", 1, "csrc", source),
                                ("a check asking its provider's caps", 0, "ccaps", caps)]:
        write(root, f"{d}/k.c", text)
        got = layers.contract(archive(root, d, f"pf_{d}"), os.path.join(root, d))
        print(f"selftest: {what}: exit {got} (want {want})")
        bad += got != want
    return bad


def main():
    bad = 0
    with tempfile.TemporaryDirectory() as root:
        write(root, "include/preflight/a.h", "int fa(void);\n")
        write(root, "a/a.c", '#include "preflight/a.h"\nint fa(void) { return 1; }\n')
        write(root, "a/apriv.h", "#define A_PRIVATE 1\n")
        # b.h declares what b defines, among what a header may hold that
        # no library defines: a typedef, a member, a static inline, a macro.
        write(root, "include/preflight/b.h",
              "#define B_ONE(x) (x)\ntypedef int (*fb_fn)(void);\n"
              "struct fb_ops { int (*get)(void); };\n"
              "static inline int fb_inline(void)\n{\n\treturn B_ONE(2);\n}\n"
              "int fb(void) __attribute__((warn_unused_result));\nextern int fb_count;\n")
        write(root, "b/b.c", '#include "preflight/a.h"\n#include "preflight/b.h"\n'
              "int fb_count;\nint fb(void) { return fa(); }\n")
        write(root, "c/c.c", '#include "apriv.h"\nint fc(void) { return A_PRIVATE; }\n')
        write(root, "checks/k.c", '#include "apriv.h"\nint fk(void) { return 0; }\n')
        a, b, c = archive(root, "a", "pf_a"), archive(root, "b", "pf_b"), archive(root, "c", "pf_c")
        k = archive(root, "checks", "pf_checks")
        cases = [
            ("a sibling's symbol and header, unlinked", 1,
             [f"{a}|a||a.h", f"{b}|b||b.h", f"{c}|c|pf_a|"]),
            ("a sibling's private header, unlinked", 1,
             [f"{a}|a||a.h", f"{b}|b|pf_a|b.h", f"{c}|c||"]),
            ("a private header in checks/", 1,
             [f"{a}|a||a.h", f"{b}|b|pf_a|b.h", f"{c}|c|pf_a|",
              f"{k}|checks|pf_a|"]),
            ("an unowned public header", 1,
             [f"{a}|a||", f"{b}|b|pf_a|b.h", f"{c}|c|pf_a|"]),
            ("a public header another library defines", 1,
             [f"{a}|a||a.h,b.h", f"{b}|b|pf_a|", f"{c}|c|pf_b|"], DOWN),
            ("a public header declaring what no library defines", 1,
             [f"{a}|a||a.h", f"{b}|b|pf_a|b.h,bnone.h", f"{c}|c|pf_b|"], DOWN),
            ("a sibling linked (sideways, though it builds)", 1,
             [f"{a}|a||a.h", f"{b}|b|pf_a|b.h", f"{c}|c|pf_b|"]),
            ("a library without a rank", 1,
             [f"{a}|a||a.h", f"{b}|b|pf_a|b.h", f"{c}|c|pf_a|"], {"pf_a": 0, "pf_b": 1}),
            ("everything linked downward", 0,
             [f"{a}|a||a.h", f"{b}|b|pf_a|b.h", f"{c}|c|pf_b|"], DOWN),
        ]
        nowhere = os.path.join(root, "include/preflight/bnone.h")
        for what, want, specs, *ranks in cases:
            # bnone.h exists only while a case claims it.
            if any("bnone.h" in x for x in specs):
                write(root, "include/preflight/bnone.h", "int fb_nowhere(void);\n")
            elif os.path.exists(nowhere):
                os.unlink(nowhere)
            got = run(root, specs, *ranks)
            print(f"selftest: {what}: exit {got} (want {want})")
            bad += got != want
        bad += contract_cases(root)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
