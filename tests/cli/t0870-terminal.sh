#!/bin/sh
# SPDX-License-Identifier: MIT
# t0870-terminal.sh - what a person at a terminal sees, through a real pty:
# a status line per running check on stderr ("preflight: NAME ... 0 s / N s"),
# cleared when the check ends; nothing of it when stderr is a pipe, and never
# in the report; the text report wrapped with an indent to the terminal's
# width (80 columns), not wrapped on a wide terminal or into a file.
. "$PF_SOURCE_DIR/tests/cli/lib.sh"
"$PY" -c 'import pty, termios' 2>/dev/null || skip_all "python3 without pty"

"$PY" "$PF_SOURCE_DIR/tests/gen_root.py" --gpus 4 --nics 4 --slow-port mlx5_3 \
	--gpu-degraded-link 2 "$T/root" >/dev/null || not_ok "gen_root"
checks=memlock,nic_link_speed,pcie_link

# run_pty COLS OUT_ON_PTY(0|1) ERR_ON_PTY(0|1) ARGS...: prints what the pty got to $T/pty,
# the other streams to $T/out and $T/err
run_pty() {
	"$PY" - "$@" <<'PY'
import fcntl, os, pty, struct, subprocess, sys, termios
cols, out_pty, err_pty, args = int(sys.argv[1]), sys.argv[2] == "1", sys.argv[3] == "1", sys.argv[4:]
T = os.environ["T"]
m, s = pty.openpty()
fcntl.ioctl(s, termios.TIOCSWINSZ, struct.pack("HHHH", 24, cols, 0, 0))
attr = termios.tcgetattr(s)
attr[1] &= ~termios.OPOST  # no \n -> \r\n: see the bytes preflight wrote
termios.tcsetattr(s, termios.TCSANOW, attr)
out = s if out_pty else open(f"{T}/out", "wb")
err = s if err_pty else open(f"{T}/err", "wb")
env = dict(os.environ, NO_COLOR="1")
p = subprocess.Popen([os.environ["PREFLIGHT"]] + args, stdin=subprocess.DEVNULL, stdout=out,
                     stderr=err, env=env)
os.close(s)
got = b""
while True:
    try:
        d = os.read(m, 65536)
    except OSError:
        break
    if not d:
        break
    got += d
rc = p.wait()
open(f"{T}/pty", "wb").write(got)
open(f"{T}/rc", "w").write(str(rc))
PY
	rc=$(cat "$T/rc")
}
export T

# stderr on a terminal: one status line per check, each cleared; the JSON has none of it
run_pty 80 0 1 --root "$T/root" --only $checks --format json --output "$T/r.json"
[ "$rc" -eq 1 ] || not_ok "exit $rc, expected 1"
"$PY" - "$T/pty" "$T/r.json" <<'PY' && ok "status lines on a terminal, cleared" || not_ok "status lines: $(od -c "$T/pty" | head -20)"
import json, sys
err = open(sys.argv[1], "rb").read().decode()
for name in ("memlock", "nic_link_speed", "pcie_link"):
    assert f"\r\x1b[Kpreflight: {name}  0 s / " in err, (name, err)
assert err.endswith("\r\x1b[K"), repr(err[-40:])
# nothing but status lines and clears: every drawn line is overwritten
assert "\n" not in err, repr(err)
text = open(sys.argv[2]).read()
json.loads(text)
assert "\x1b" not in text and "\r" not in text and "preflight: memlock" not in text
PY

# a narrow terminal: the status line is cut to one physical line (else the clear
# would leave its wrapped part behind)
run_pty 30 0 1 --root "$T/root" --only nic_link_speed --format json --output "$T/r.json"
"$PY" - "$T/pty" <<'PY' && ok "30 columns: status line cut to 29" || not_ok "narrow: $(od -c "$T/pty" | head)"
import sys
err = open(sys.argv[1], "rb").read().decode()
parts = [p for p in err.split("\r\x1b[K") if p]
assert parts and all(len(p) <= 29 for p in parts), parts
assert parts[0].startswith("preflight: nic_link_speed"), parts
PY

# stderr not a terminal: no status line at all
run_pty 80 1 0 --root "$T/root" --only $checks --format json
if grep -q "$(printf '\033')" "$T/err" || grep -q 'preflight: memlock' "$T/err"; then
	not_ok "status line on a pipe: $(od -c "$T/err" | head -5)"
else
	ok "no status line when stderr is not a terminal"
fi

# the text report on an 80-column terminal: wrapped, continuation lines indented
run_pty 80 1 1 --root "$T/root" --only $checks --format text
"$PY" - "$T/pty" <<'PY' && ok "text wrapped at 80 columns with an indent" || not_ok "wrapping: $(cat "$T/pty")"
import re, sys
raw = open(sys.argv[1], "rb").read().decode()
# the report, after the status lines were cleared
text = re.sub(r"\r\x1b\[K(preflight: [^\r\n]*)?", "", raw)
lines = text.split("\n")
assert any("mlx5_3/1: active at 100 Gb/s" in l for l in lines), text
for l in lines:
    assert len(l) <= 80 or " " not in l.strip(), f"{len(l)} columns: {l!r}"
# a long finding continues on an indented line
i = [k for k, l in enumerate(lines) if "mlx5_3/1: active at 100 Gb/s" in l][0]
assert lines[i + 1].startswith(" " * 16) and lines[i + 1].strip(), lines[i:i + 2]
PY

# a wide terminal: one line per finding
run_pty 200 1 1 --root "$T/root" --only $checks --format text
grep -q 'mlx5_3/1: active at 100 Gb/s (4X EDR), expected at least 400 Gb/s like its siblings of the same model' "$T/pty" &&
	ok "200 columns: not wrapped" || not_ok "200 columns: wrapped"
# into a file: never wrapped
pf --root "$T/root" --only $checks --format text
grep -q 'mlx5_3/1: active at 100 Gb/s (4X EDR), expected at least 400 Gb/s like its siblings of the same model' "$T/out" &&
	ok "a file: not wrapped" || not_ok "a file: wrapped"

done_testing
