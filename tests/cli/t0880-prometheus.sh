#!/bin/sh
# SPDX-License-Identifier: MIT
# t0880-prometheus.sh - contrib/prometheus/preflight.rules.yml against
# preflight's own textfile output: `promtool check rules`, then
# `promtool test rules` with input series taken from a real --format prom
# report of a generated node with a slow port and a degraded GPU link: each
# failing finding alerts (after 5 m) with its check and subject; an error
# alerts only after an hour; a report older than 3 h is stale.  promtool
# comes from Debian's `prometheus` package; without it the test is skipped.
. "$(dirname "$0")/lib.sh"
command -v promtool >/dev/null 2>&1 ||
	skip_all "promtool not installed (apt-get install prometheus; apt-cache policy prometheus)"
rules=$PF_SOURCE_DIR/contrib/prometheus/preflight.rules.yml

promtool check rules "$rules" >"$T/check" 2>&1 && ok "promtool check rules" ||
	not_ok "promtool check rules: $(cat "$T/check")"

"$PY" "$PF_SOURCE_DIR/tests/gen_root.py" --gpus 4 --nics 4 --slow-port mlx5_3 \
	--gpu-degraded-link 2 "$T/root" >/dev/null || not_ok "gen_root"
"$PREFLIGHT" --root "$T/root" --only nic_link_speed,pcie_link,memlock --format prom \
	--output "$T/preflight.prom"
grep -q 'preflight_finding_status{check="nic_link_speed",subject="mlx5_3/1",status="fail"} 1' \
	"$T/preflight.prom" || not_ok "the report has no failing mlx5_3/1 series"

"$PY" - "$T/preflight.prom" "$rules" "$T/test.yml" <<'PY' || not_ok "cannot write the rule test"
import json, re, sys
prom, rules, out = sys.argv[1:4]
inst = {"instance": "gpu-047:9100", "job": "node"}
series, fails = [], []
for line in open(prom):
    m = re.match(r'preflight_finding_status\{check="([^"]*)",subject="([^"]*)",status="(fail)"\} 1$', line.strip())
    if m:
        fails.append((m.group(1), m.group(2)))
assert len(fails) == 2, fails  # mlx5_3/1 and the degraded GPU link
def sel(name, labels):
    return name + "{" + ",".join(f'{k}="{v}"' for k, v in labels.items()) + "}"
for check, subject in fails:
    series.append({"series": sel("preflight_finding_status", dict(inst, check=check, subject=subject, status="fail")),
                   "values": "1x30"})
# a check that errors for 90 minutes, and a report last written at time 0
err = dict(inst, check="gpu_inventory", subject="driver", status="error")
series.append({"series": sel("preflight_finding_status", err), "values": "1x120"})
series.append({"series": sel("preflight_last_run_timestamp_seconds", inst), "values": "0x300"})
def fail_alert(check, subject):
    return {"exp_labels": dict(inst, severity="critical", check=check, subject=subject, status="fail"),
            "exp_annotations": {
                "summary": f"preflight: {check} fails on {subject} ({inst['instance']})",
                "description": f"The last preflight run on {inst['instance']} failed check {check} for {subject}. "
                               f"`preflight --only {check} --format text` on the node shows the finding and its fix."}}
err_alert = {"exp_labels": dict(err, severity="warning"),
             "exp_annotations": {
                 "summary": f"preflight: gpu_inventory cannot decide on driver ({inst['instance']}) for an hour",
                 "description": f"Check gpu_inventory has reported error for driver on {inst['instance']} for an hour. "
                                f"`preflight --only gpu_inventory --format text` on the node says what it could not read."}}
stale = {"exp_labels": dict(inst, severity="warning", check="preflight", subject="report"),
         "exp_annotations": {
             "summary": f"preflight: no report from {inst['instance']} for 4h 0m 0s",
             "description": f"The preflight report exported by {inst['instance']} is older than 3 hours: check the "
                            f"preflight timer or Prolog, and the textfile directory."}}
test = {"rule_files": [rules], "evaluation_interval": "1m", "tests": [{
    "interval": "1m",
    "input_series": series,
    "alert_rule_test": [
        {"eval_time": "3m", "alertname": "PreflightCheckFailing", "exp_alerts": []},
        {"eval_time": "10m", "alertname": "PreflightCheckFailing",
         "exp_alerts": [fail_alert(c, s) for c, s in fails]},
        {"eval_time": "50m", "alertname": "PreflightCheckError", "exp_alerts": []},
        {"eval_time": "70m", "alertname": "PreflightCheckError", "exp_alerts": [err_alert]},
        {"eval_time": "2h", "alertname": "PreflightReportStale", "exp_alerts": []},
        {"eval_time": "4h", "alertname": "PreflightReportStale", "exp_alerts": [stale]},
    ]}]}
json.dump(test, open(out, "w"), indent=2)  # JSON is YAML
PY
promtool test rules "$T/test.yml" >"$T/test.out" 2>&1 &&
	ok "promtool test rules: failing findings alert with check and subject, errors after 1 h, stale after 3 h" ||
	not_ok "promtool test rules: $(cat "$T/test.out")"

# the textfile itself is valid exposition format
promtool check metrics <"$T/preflight.prom" >"$T/metrics.out" 2>&1 && ok "promtool check metrics" ||
	not_ok "promtool check metrics: $(cat "$T/metrics.out")"

done_testing
