#!/bin/sh
# SPDX-License-Identifier: MIT
# t0850-selection.sh - which checks run: a bare `preflight` runs the checks
# tagged static (never the traffic tests that take minutes), --all runs
# every check, --only/--skip take check names and tags; the report says
# what was not selected and why (selection.not_selected, and a text line);
# --compact writes the JSON on one line.
. "$PF_SOURCE_DIR/tests/cli/lib.sh"

"$PY" "$PF_SOURCE_DIR/tests/gen_root.py" --gpus 2 --nics 2 "$T/root" >/dev/null || not_ok "gen_root"
# the registry's view: name -> tags
"$PREFLIGHT" --list >"$T/list"
tagged() { awk -v t="$1" '{ tags = $NF; gsub(/[][]/, "", tags); n = split(tags, a, ",");
	for (i = 1; i <= n; i++) if (a[i] == t) print $1 }' "$T/list" | sort | tr '\n' ' '; }
all=$(awk '{print $1}' "$T/list" | sort | tr '\n' ' ')
static=$(tagged static)
ran() { jq_py "$T/out" '" ".join(sorted(c["name"] for c in r["checks"])) + " "'; }
unsel() { jq_py "$T/out" '" ".join(sorted(c["name"] for c in r["selection"]["not_selected"])) + " "'; }

# bare: the static checks, and the others named as not selected
pf --root "$T/root" --format json
[ "$(ran)" = "$static" ] && ok "default runs the static checks: $static" ||
	not_ok "default ran '$(ran)', expected '$static'"
[ "$(jq_py "$T/out" 'r["selection"]["mode"]')" = default ] || not_ok "mode is not default"
[ "$(jq_py "$T/out" 'any("traffic" in c["name"] or c["name"] == "gdr_loopback" for c in r["checks"])')" = False ] ||
	not_ok "a traffic check ran by default"
for c in $all; do
	case " $static" in *" $c "*) continue ;; esac
	case "$(unsel)" in *"$c "*) ;; *) not_ok "$c neither ran nor is listed as not selected" ;; esac
done
[ "$(jq_py "$T/out" 'r["selection"]["not_selected"][0]["reason"]')" = \
	"not static: the default runs the static checks; --all runs every check" ] ||
	not_ok "reason: $(jq_py "$T/out" 'r["selection"]["not_selected"]')"
sp=$(schema_python)
if [ -n "$sp" ]; then
	"$sp" -c 'import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' \
		"$T/out" "$PF_SOURCE_DIR/docs/report.schema.json" && ok "schema-valid with selection" ||
		not_ok "report with selection is not schema-valid"
fi

# text: one line names what did not run
pf --root "$T/root" --format text
grep -Eq '^not selected: .*gdr_loopback.* \(not static: the default runs the static checks; --all runs every check\)$' \
	"$T/out" && ok "text names the unselected checks" || not_ok "text: $(grep -i 'not selected' "$T/out")"

# --all: every check, nothing unselected
pf --root "$T/root" --format json --all
[ "$(ran)" = "$all" ] && ok "--all runs every check" || not_ok "--all ran '$(ran)'"
[ "$(unsel)" = " " ] && [ "$(jq_py "$T/out" 'r["selection"]["mode"]')" = all ] ||
	not_ok "--all: mode/not_selected $(jq_py "$T/out" 'r["selection"]')"

# tags in --only and --skip
# (a traffic test only by name or by a tag no static check carries: issue 20 item 5)
pf --root "$T/root" --format json --only rdma,gpu
want=$(printf '%s\n' $(tagged rdma) $(tagged gpu) | sort -u |
	while read -r c; do case " $(tagged traffic) " in *" $c "*) ;; *) echo "$c" ;; esac; done |
	tr '\n' ' ')
[ "$(ran)" = "$want" ] && ok "--only rdma,gpu: $want" || not_ok "--only rdma,gpu ran '$(ran)', expected '$want'"
[ "$(jq_py "$T/out" 'r["selection"]["mode"]')" = only ] || not_ok "mode is not only"
# --only gpu never runs the minutes-long traffic tests, and the report says why
pf --root "$T/root" --format json --only gpu
case " $(ran)" in *" nccl_allreduce "*|*" gdr_loopback "*) not_ok "--only gpu ran a traffic test: $(ran)" ;; esac
[ -n "$(ran)" ] || not_ok "--only gpu ran nothing"
jq_py "$T/out" '[c["reason"] for c in r["selection"]["not_selected"] if c["name"] == "gdr_loopback"][0]' |
	grep -q "a traffic test (minutes).*name it in --only" && ok "--only gpu: traffic tests left out, with the reason" ||
	not_ok "--only gpu: reason $(jq_py "$T/out" 'r["selection"]["not_selected"]')"
# by name, or by a tag only traffic tests carry, they are selected
"$PREFLIGHT" --no-config --only gpu,gdr_loopback --check-config | grep -q "^checks: .*gdr_loopback" ||
	not_ok "--only gpu,gdr_loopback did not select gdr_loopback"
"$PREFLIGHT" --no-config --only traffic --check-config | grep -q "^checks:    nccl_allreduce, gdr_loopback, fabric_loopback (3 of" ||
	not_ok "--only traffic: $("$PREFLIGHT" --no-config --only traffic --check-config | grep ^checks)"
"$PREFLIGHT" --no-config --only gdr --check-config | grep -q "^checks:    gdr_loopback (1 of" ||
	not_ok "--only gdr did not select gdr_loopback"
pf --root "$T/root" --format json --all --skip traffic
want=$(for c in $all; do case " $(tagged traffic)" in *" $c "*) ;; *) echo "$c" ;; esac; done | tr '\n' ' ')
[ "$(ran)" = "$want" ] && ok "--all --skip traffic" || not_ok "--all --skip traffic ran '$(ran)'"
[ "$(jq_py "$T/out" '[c["reason"] for c in r["selection"]["not_selected"]][0]')" = "--skip" ] ||
	not_ok "--skip reason: $(jq_py "$T/out" 'r["selection"]')"
pf --root "$T/root" --format json --only static --skip memlock,gpu
want=$(for c in $static; do case "$c $(tagged gpu)" in memlock*|*" $c "*) ;; *) echo "$c" ;; esac; done | tr '\n' ' ')
[ "$(ran)" = "$want" ] && ok "--only static --skip memlock,gpu" || not_ok "ran '$(ran)', expected '$want'"

# usage
expect_usage "unknown check or tag 'bogus'" --root "$T/root" --only bogus
expect_usage "unknown check or tag 'nope'" --root "$T/root" --skip nope
expect_usage "--all and --only exclude each other" --root "$T/root" --all --only memlock
expect_usage "no check selected" --root "$T/root" --skip static

# --compact: one line; the default is jq's two-space layout
pf --root "$T/root" --format json --only memlock --compact
[ "$(wc -l <"$T/out")" -eq 1 ] && json_ok "$T/out" && ok "--compact: one line" ||
	not_ok "--compact: $(wc -l <"$T/out") lines"
pf --root "$T/root" --format json --only memlock
"$PY" -c 'import json, sys; t = open(sys.argv[1]).read(); assert t == json.dumps(json.loads(t), indent=2, ensure_ascii=False) + "\n"' \
	"$T/out" && ok "JSON indented like jq" || not_ok "JSON layout: $(head -3 "$T/out")"

done_testing
