#!/bin/sh
# SPDX-License-Identifier: MIT
# `preflight mesh` (docs/mesh.md) without RDMA (--nics names no device, so
# this machine's own NICs, if any, stay out): ranks started as srun would
# (SLURM_PROCID, SLURM_NTASKS, SLURM_JOB_NODELIST) on 127.0.0.x meet over
# TCP twice (rail tables, then measurements); a rank that never starts is
# named in every report within the deadline; each report is a valid
# preflight.report/v1 whose one check "mesh" is a skip saying nothing was
# measured (never a pass); bad rank, size, peer lists, --duration,
# --data-port, --format, a --nics device the node lacks, a --set that is no
# rails role and a broken site config or profile are usage errors.
# Authentication (docs/mesh.md): more than one rank without a secret, a
# secret file others may read, a symlink, too short, or hex that is not are
# usage errors saying how to make one; --new-secret prints 64 hex digits;
# the report records the job id and the nodelist.
# The report goes through the one report writer: --format json (cJSON's tab
# layout, as it always was; --compact one line), text, junit and prom, to
# stdout and to --output.  The
# traffic itself: tests/unit/test_fabric_peer.c and the VM job mesh_pair.
. "$(dirname "$0")/lib.sh"
need_python

port=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

env -u SLURM_JOB_NODELIST -u SLURM_PROCID -u SLURM_NTASKS "$PREFLIGHT" mesh >"$T/out" 2>"$T/err"
rc=$?
expect_rc 64 "no peers"
expect_err "no peers"
expect_usage "bad range" mesh --peers 'n[3-1]' --rank 0
expect_usage "one task per host" mesh --peers 'n[1-3]' --rank 0 --size 2
expect_usage "one task per host" mesh --peers 'n[1-3]' --rank 3
expect_usage "bad --port" mesh --peers 'n1' --rank 0 --port 70000
expect_usage "bad --timeout" mesh --peers 'n1' --rank 0 --timeout 0
expect_usage "bad --duration" mesh --peers 'n1' --rank 0 --duration 0
expect_usage "bad --data-port" mesh --peers 'n1' --rank 0 --data-port 65536
expect_usage "nonesuch0 is not an RDMA device" mesh --peers 'n1' --rank 0 --nics nonesuch0
expect_usage "unknown format 'yaml'" mesh --peers 'n1' --rank 0 --format yaml
# the roles (docs/rails.md): only rails.* settings; the site config's errors are usage errors
expect_usage "mesh takes only rails.ROLE" mesh --peers 'n1' --rank 0 --set nic_link_speed.x=1
expect_usage "unknown role 'bogus'" mesh --peers 'n1' --rank 0 --set rails.bogus=mlx5_0
printf '{ "set": [1' >"$T/broken.conf"
expect_usage "site config" mesh --peers 'n1' --rank 0 --config "$T/broken.conf"
printf '{ "no-such-option": true }\n' >"$T/unknown.conf"
expect_usage "no-such-option" mesh --peers 'n1' --rank 0 --config "$T/unknown.conf"
printf '{ "profile": "no-such-profile" }\n' >"$T/profile.conf"
expect_usage "no-such-profile" mesh --peers 'n1' --rank 0 --config "$T/profile.conf"
unset PREFLIGHT_MESH_SECRET
expect_usage "head -c 32 /dev/urandom" mesh --peers 'n[1-2]' --rank 0
head -c 32 /dev/urandom >"$T/secret" && chmod 644 "$T/secret"
expect_usage "lets others read it" mesh --peers 'n[1-2]' --rank 0 --secret-file "$T/secret"
chmod 600 "$T/secret" && ln -s "$T/secret" "$T/secret.link"
expect_usage "a symbolic link" mesh --peers 'n[1-2]' --rank 0 --secret-file "$T/secret.link"
head -c 8 /dev/urandom >"$T/short" && chmod 600 "$T/short"
expect_usage "8 bytes, not 16 to 4096" mesh --peers 'n[1-2]' --rank 0 --secret-file "$T/short"
PREFLIGHT_MESH_SECRET=abcd expect_usage "PREFLIGHT_MESH_SECRET: 4 characters" mesh \
	--peers 'n[1-2]' --rank 0
PREFLIGHT_MESH_SECRET=$(printf 'z%.0s' $(seq 64)) expect_usage "not hex" mesh --peers 'n[1-2]' \
	--rank 0
unset PREFLIGHT_MESH_SECRET
pf mesh --new-secret
expect_rc 0 "--new-secret"
grep -Eqx '[0-9a-f]{64}' "$T/out" && ok "--new-secret prints 64 hex digits" ||
	not_ok "--new-secret: $(cat "$T/out")"
# a valid one is read (its roles name no port here; under ASan this reads
# the settings after the site config was parsed: they must still be there)
printf '{ "set": { "rails.storage": "mlx5_8", "nic_link_speed.min_rate_gbps": 400 } }\n' \
	>"$T/site.conf"
pf mesh --peers 127.0.0.1 --rank 0 --size 1 --timeout 2 --port "$port" --nics '' \
	--config "$T/site.conf" --set rails.frontend=mlx5_9
expect_rc 0 "mesh with a site config and --set"
pf mesh --help
expect_rc 0 "--help"

# ranks 0, 1 and 3 of 4; rank 2 never starts; the secret from the environment
secret=$("$PREFLIGHT" mesh --new-secret)
start=$(date +%s)
for r in 0 1 3; do
	SLURM_PROCID=$r SLURM_NTASKS=4 SLURM_JOB_NODELIST='127.0.0.[1-4]' SLURM_JOB_ID=4242 \
		PREFLIGHT_MESH_SECRET=$secret "$PREFLIGHT" mesh --port "$port" --timeout 2 --nics '' --output "$T/r$r.json" \
		>"$T/r$r.out" 2>"$T/r$r.err" &
done
wait
elapsed=$(($(date +%s) - start))
# bounded, not fast: two gathers of at most 2 x 2 s each for a rank that is
# not rank 0, plus process start-up on a loaded machine (ctest -j2 beside VM
# jobs took 9 s once); a hang would run to ctest's timeout
if [ "$elapsed" -le 18 ]; then
	ok "every rank finished within its deadlines (${elapsed}s)"
else
	not_ok "ranks took ${elapsed}s with a 2 s deadline per gather"
fi
grep -q "rank 2 127.0.0.3: did not arrive by the deadline" "$T/r1.out" &&
	ok "rank 1 prints the missing rank" || not_ok "rank 1 output: $(cat "$T/r1.out" "$T/r1.err")"
grep -q "round 3:" "$T/r0.out" && ok "the schedule is printed" || not_ok "no schedule"

py_ok "every report is a skip (no rail) naming rank 2" "$T/r0.json" "$T/r1.json" "$T/r3.json" <<'PY'
import json, sys
for path in sys.argv[1:]:
    r = json.load(open(path))
    assert r["schema"] == "preflight.report/v1", r.get("schema")
    [c] = r["checks"]
    assert c["name"] == "mesh" and c["status"] == "skip", c
    f = c["findings"][0]
    assert f["subject"] == "mesh" and "nothing measured" in f["message"], c
    assert f["observed"]["measurements"] == [] and f["observed"]["suspects"] == [], f
    assert "missing 2 (127.0.0.3)" in c["summary"], c["summary"]
    subjects = [f.get("subject") for f in c["findings"]]
    assert "rank 2 (127.0.0.3)" in subjects, subjects
    table = c["findings"][0]["observed"]["table"]
    assert [e["arrived"] for e in table["ranks"]] == [True, True, False, True], table
    assert f["observed"]["job_id"] == "4242", f["observed"].get("job_id")
    assert f["observed"]["nodelist"] == "127.0.0.[1-4]", f["observed"].get("nodelist")
PY

# one rank alone, in every format (nothing to meet: rank 0 of 1)
solo() {
	fmt=$1
	shift
	"$PREFLIGHT" mesh --peers 127.0.0.1 --rank 0 --port "$port" --timeout 1 --nics '' \
		--format "$fmt" "$@" 2>"$T/solo.err"
}
solo json >"$T/solo.json"
rc=$?
expect_rc 0 "a lone rank (skip)"
sed -n 2p "$T/solo.json" | grep -q "^$(printf '\t')\"schema\":$(printf '\t')\"preflight.report/v1\"" &&
	ok "--format json keeps cJSON's tab layout" || not_ok "json layout: $(head -2 "$T/solo.json")"
solo json --compact >"$T/solo.compact"
[ "$(wc -l <"$T/solo.compact")" -eq 1 ] && ok "--compact: one line" || not_ok "--compact: $(wc -l <"$T/solo.compact") lines"
solo text >"$T/solo.txt"
grep -Eq '^skip +mesh ' "$T/solo.txt" && grep -q '^verdict: pass' "$T/solo.txt" &&
	ok "--format text: the table and the verdict" || not_ok "text: $(cat "$T/solo.txt")"
solo junit --output "$T/solo.xml" >"$T/solo.out"
py_ok "--format junit --output: one skipped testcase named mesh" "$T/solo.xml" <<'PY'
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
cases = root.findall(".//testcase")
assert [c.get("name") for c in cases] == ["mesh"], cases
assert cases[0].find("skipped") is not None
assert root.get("skipped") == "1", root.attrib
PY
solo prom >"$T/solo.prom"
grep -q '^preflight_check_status{check="mesh",status="skip"} 1' "$T/solo.prom" &&
	grep -q '^preflight_verdict{status="pass"} 1' "$T/solo.prom" &&
	ok "--format prom: the mesh check's status" || not_ok "prom: $(cat "$T/solo.prom")"

py=$(schema_python)
if [ -n "$py" ]; then
	if "$py" - "$PF_SOURCE_DIR/docs/report.schema.json" "$T/r1.json" <<'PY'
import json, sys
import jsonschema
jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).validate(json.load(open(sys.argv[2])))
PY
	then ok "the report validates against docs/report.schema.json"
	else not_ok "the report does not validate"
	fi
else
	note "no python3-jsonschema: schema not checked"
fi

done_testing
