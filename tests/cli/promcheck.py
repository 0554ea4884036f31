#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""promcheck.py - check a file against the Prometheus text exposition rules
that node_exporter's textfile collector enforces, plus preflight's own:

- metric names match [a-zA-Z_:][a-zA-Z0-9_:]*, label names [a-zA-Z_][a-zA-Z0-9_]*
  (not starting with "__"), label values are quoted UTF-8 with only \\\\, \\" and
  \\n escapes; values parse as floats (NaN, +Inf, -Inf allowed); no timestamps
- at most one HELP and one TYPE per family, both before its first sample, and
  a family's samples are contiguous
- no duplicate series; every series of a family has the same label names
- (preflight) every family is prefixed preflight_, has HELP and TYPE gauge

Usage: promcheck.py FILE  -> exit 0, or 1 with one line per problem.
"""
import re
import sys

NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
LABEL = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
FLOAT = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$|^[+-]?Inf$|^NaN$")


def parse_labels(s, i, errors, lineno):
    """Parse {a="b",...} starting after '{'; return (dict, index after '}')."""
    labels = {}
    while True:
        if s[i] == "}":
            return labels, i + 1
        m = LABEL.match(s, i)
        if not m:
            raise ValueError("bad label name at column %d" % i)
        name = m.group(0)
        if name.startswith("__"):
            errors.append("%d: reserved label name %s" % (lineno, name))
        i = m.end()
        if s[i:i + 2] != '="':
            raise ValueError("expected =\" after label %s" % name)
        i += 2
        value = []
        while s[i] != '"':
            if s[i] == "\\":
                esc = s[i + 1]
                if esc not in '\\"n':
                    raise ValueError("bad escape \\%s in label %s" % (esc, name))
                value.append("\n" if esc == "n" else esc)
                i += 2
            else:
                if s[i] == "\n":
                    raise ValueError("raw newline in label value")
                value.append(s[i])
                i += 1
        i += 1
        if name in labels:
            raise ValueError("label %s twice" % name)
        labels[name] = "".join(value)
        if s[i] == ",":
            i += 1
        elif s[i] != "}":
            raise ValueError("expected , or } after label %s" % name)


def check(text):
    errors = []
    helps, types, label_sets, series = {}, {}, {}, set()
    finished, current = set(), None
    if text and not text.endswith("\n"):
        errors.append("file does not end with a newline")
    for lineno, line in enumerate(text.split("\n")[:-1], 1):
        if not line.strip():
            continue
        if line.startswith("#"):
            parts = line.split(None, 3)
            if len(parts) >= 3 and parts[1] in ("HELP", "TYPE"):
                name = parts[2]
                if not NAME.fullmatch(name):
                    errors.append("%d: bad metric name %r" % (lineno, name))
                table = helps if parts[1] == "HELP" else types
                if name in table:
                    errors.append("%d: second %s for %s" % (lineno, parts[1], name))
                if name in label_sets:
                    errors.append("%d: %s for %s after its samples" % (lineno, parts[1], name))
                table[name] = parts[3] if len(parts) > 3 else ""
                if parts[1] == "TYPE" and table[name] not in (
                        "counter", "gauge", "histogram", "summary", "untyped"):
                    errors.append("%d: bad type %r" % (lineno, table[name]))
            continue
        m = NAME.match(line)
        if not m:
            errors.append("%d: no metric name: %r" % (lineno, line))
            continue
        name, i = m.group(0), m.end()
        labels = {}
        try:
            if i < len(line) and line[i] == "{":
                labels, i = parse_labels(line, i + 1, errors, lineno)
        except (ValueError, IndexError) as e:
            errors.append("%d: %s: %r" % (lineno, e, line))
            continue
        rest = line[i:].split(" ")
        if len(rest) != 2 or rest[0] != "":
            errors.append("%d: expected exactly one value (no timestamp): %r" % (lineno, line))
            continue
        if not FLOAT.match(rest[1]):
            errors.append("%d: bad value %r" % (lineno, rest[1]))
        if name != current:
            if name in finished:
                errors.append("%d: samples of %s are not contiguous" % (lineno, name))
            if current:
                finished.add(current)
            current = name
        key = (name, tuple(sorted(labels.items())))
        if key in series:
            errors.append("%d: duplicate series %s" % (lineno, line.rsplit(" ", 1)[0]))
        series.add(key)
        names = tuple(sorted(labels))
        if label_sets.setdefault(name, names) != names:
            errors.append("%d: %s has label names %s, earlier %s" %
                          (lineno, name, names, label_sets[name]))
    for name in label_sets:
        if not name.startswith("preflight_"):
            errors.append("%s: not prefixed preflight_" % name)
        if name not in helps or name not in types:
            errors.append("%s: HELP or TYPE missing" % name)
        elif types[name] != "gauge":
            errors.append("%s: type %s, expected gauge" % (name, types[name]))
    return errors, series


def main():
    with open(sys.argv[1], "rb") as f:
        raw = f.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        print("not UTF-8: %s" % e)
        return 1
    errors, series = check(text)
    for e in errors:
        print(e)
    if not series:
        print("no samples")
        return 1
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
