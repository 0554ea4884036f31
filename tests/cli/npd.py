#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# npd.py - run the rules of a node-problem-detector custom-plugin config the way
# NPD's custom plugin monitor does (pkg/custompluginmonitor/plugin/plugin.go):
# exec path+args with the rule's (or global) timeout, stdout trimmed of
# surrounding white space and cut to max_output_length bytes, exit 0 -> OK
# (condition False), 1 -> NonOK (True), anything else -> Unknown.
#
# usage: npd.py CONFIG PREFLIGHT ROOT
# The rule's "chroot /host /usr/bin/preflight" becomes PREFLIGHT with
# "--no-config --root ROOT" appended: the same arguments, on a recorded node.
# Prints one JSON object a rule: condition, status, message, raw stdout length.
import json
import re
import subprocess
import sys


def duration(text):
    m = re.fullmatch(r"(\d+)(ms|s|m|h)", text)
    if not m:
        sys.exit(f"npd.py: duration {text!r} is not one NPD's config would take here")
    return int(m.group(1)) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600}[m.group(2)]


def main():
    config, preflight, root = sys.argv[1:4]
    with open(config) as f:
        cfg = json.load(f)
    glob = cfg["pluginConfig"]
    max_out = glob.get("max_output_length", 80)
    gtimeout = duration(glob.get("timeout", "5s"))
    for rule in cfg["rules"]:
        args = rule["args"]
        if rule["path"] != "/usr/sbin/chroot" or args[:2] != ["/host", "/usr/bin/preflight"]:
            sys.exit(f"npd.py: rule {rule.get('condition')}: not 'chroot /host /usr/bin/preflight'")
        timeout = gtimeout
        if "timeout" in rule and duration(rule["timeout"]) < gtimeout:
            timeout = duration(rule["timeout"])
        argv = [preflight] + args[2:] + ["--no-config", "--root", root]
        try:
            p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=timeout)
            out, code = p.stdout, p.returncode
        except subprocess.TimeoutExpired:
            out, code = b"timeout", -9
        text = out.decode("utf-8", "replace").strip()
        raw = len(text.encode())
        text = text.encode()[:max_out].decode("utf-8", "replace")
        status = {0: "False", 1: "True"}.get(code, "Unknown")
        print(json.dumps({"condition": rule["condition"], "status": status,
                          "message": text, "length": raw, "exit": code}))


main()
