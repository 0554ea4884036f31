#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A check that reaches a vendor library through its providers declares so.

  check_flags.py CHECKS_DIR      every checks/*.c that uses ctx->prov->gpu,
                                 ->verbs or ->rdmacm (CUDA, NVML, NCCL,
                                 libibverbs, librdmacm) has PF_CHECK_TRAFFIC or
                                 PF_CHECK_LOADS_LIBRARIES in its .flags
  check_flags.py --selftest      shows the rule failing on a made-up check

The runner lets the static checks share one child and gives a flagged check a
child of its own when the providers are live (src/runner/runner.c): a library
that hangs or corrupts its process then takes only its own check with it.
"""
import os
import re
import sys
import tempfile

USES = re.compile(r"\bprov->(gpu|verbs|rdmacm)\b")
FLAGS = re.compile(r"\.flags\s*=\s*([^,}]*)")
OWN = ("PF_CHECK_TRAFFIC", "PF_CHECK_LOADS_LIBRARIES")


def problems(checks_dir):
    bad = []
    for name in sorted(os.listdir(checks_dir)):
        if not name.endswith(".c"):
            continue
        with open(os.path.join(checks_dir, name), encoding="utf-8") as f:
            text = f.read()
        use = USES.search(text)
        if not use:
            continue
        flags = FLAGS.search(text)
        if not flags or not any(o in flags.group(1) for o in OWN):
            bad.append(f"{name}: uses ctx->prov->{use.group(1)} (a vendor library) but its "
                       f".flags has neither {' nor '.join(OWN)}")
    return bad


def selftest():
    with tempfile.TemporaryDirectory() as d:
        good = "static int f(const struct pf_ctx *ctx) { return ctx->prov->gpu != 0; }\n" \
               "const struct pf_check c = { .flags = PF_CHECK_NEEDS_NODE | " \
               "PF_CHECK_LOADS_LIBRARIES, };\n"
        with open(os.path.join(d, "good.c"), "w") as f:
            f.write(good)
        with open(os.path.join(d, "plain.c"), "w") as f:
            f.write("const struct pf_check c = { .flags = PF_CHECK_NEEDS_NODE, };\n")
        if problems(d):
            print("selftest: a correct tree was flagged:", problems(d))
            return 1
        with open(os.path.join(d, "bad.c"), "w") as f:
            f.write(good.replace(" | PF_CHECK_LOADS_LIBRARIES", "").replace("gpu", "verbs"))
        found = problems(d)
        if len(found) != 1 or not found[0].startswith("bad.c: uses ctx->prov->verbs"):
            print("selftest: the undeclared check was not caught:", found)
            return 1
    print("selftest: a check using ctx->prov->verbs without the flag is caught")
    return 0


def main(argv):
    if argv[1:] == ["--selftest"]:
        return selftest()
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 64
    bad = problems(argv[1])
    for b in bad:
        print("check_flags:", b)
    if not bad:
        print("check_flags: every check that reaches a vendor library declares it")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
