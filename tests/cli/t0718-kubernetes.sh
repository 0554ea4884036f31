#!/bin/sh
# SPDX-License-Identifier: MIT
# t0718-kubernetes.sh - the shipped Kubernetes files (contrib/kubernetes) parse
# and carry what docs/kubernetes.md says: NPD with the two plugin configs from
# one generated ConfigMap, a privileged hostNetwork/hostPID pod with the host's
# root under /host, and a NodeReadinessRule over exactly the static
# conditions.  `kubectl kustomize` renders the set where kubectl is installed
# (offline; `--dry-run=client` needs an API server, so it is not used).
. "$(dirname "$0")/lib.sh"
need_python
"$PY" -c 'import yaml' 2>/dev/null || skip_all "python3-yaml not installed"
K="$PF_SOURCE_DIR/contrib/kubernetes"

py_ok "manifests parse and agree with each other and the docs" "$K" "$PF_SOURCE_DIR/docs/kubernetes.md" <<'PY'
import json, os, sys, yaml
k, doc = sys.argv[1], open(sys.argv[2]).read()
def docs(name):
    return [d for d in yaml.safe_load_all(open(os.path.join(k, name))) if d]
kz = docs("kustomization.yaml")[0]
gen = kz["configMapGenerator"][0]
files = gen["files"]
assert set(kz["resources"]) == {"rbac.yaml", "daemonset.yaml"}, kz
ds = docs("daemonset.yaml")[0]
assert ds["kind"] == "DaemonSet", ds["kind"]
spec = ds["spec"]["template"]["spec"]
assert spec["hostNetwork"] is True and spec["hostPID"] is True, spec
c = spec["containers"][0]
assert c["securityContext"]["privileged"] is True
mounts = {m["name"]: m for m in c["volumeMounts"]}
vols = {v["name"]: v for v in spec["volumes"]}
assert mounts["host"]["mountPath"] == "/host" and mounts["host"]["mountPropagation"] == "HostToContainer"
assert vols["host"]["hostPath"]["path"] == "/"
assert vols["config"]["configMap"]["name"] == gen["name"], (vols["config"], gen)
monitors = [a.split("=", 1)[1] for a in c["command"] if a.startswith("--config.custom-plugin-monitor=")]
assert monitors and monitors[0].split(",") == ["/config/" + f for f in files], (monitors, files)
assert spec["serviceAccountName"] == "preflight-npd"
kinds = {d["kind"] for d in docs("rbac.yaml")}
assert kinds == {"ServiceAccount", "ClusterRole", "ClusterRoleBinding"}, kinds
static = json.load(open(os.path.join(k, "preflight-static.json")))
traffic = json.load(open(os.path.join(k, "preflight-traffic.json")))
for cfg in (static, traffic):
    conds = {x["type"] for x in cfg["conditions"]}
    assert conds == {r["condition"] for r in cfg["rules"]}, cfg
    for r in cfg["rules"]:
        assert r["type"] == "permanent" and "--format" in r["args"], r
        assert r["args"][r["args"].index("--format") + 1] == "line", r
        assert r["condition"] in doc, r["condition"] + " not in docs/kubernetes.md"
nrr = docs("node-readiness-rule.yaml")[0]
assert nrr["apiVersion"] == "readiness.node.x-k8s.io/v1alpha1" and nrr["kind"] == "NodeReadinessRule"
want = {x["type"] for x in static["conditions"]}
assert {x["type"] for x in nrr["spec"]["conditions"]} == want, nrr["spec"]["conditions"]
assert all(x["requiredStatus"] == "False" for x in nrr["spec"]["conditions"])
assert nrr["spec"]["taint"]["key"] in doc, "the taint key is not in docs/kubernetes.md"
assert "--register-with-taints=" + nrr["spec"]["taint"]["key"] in doc
PY

if command -v kubectl >/dev/null 2>&1; then
	if kubectl kustomize "$K" > "$T/rendered" 2> "$T/kerr"; then
		py_ok "kubectl kustomize: the DaemonSet mounts the generated ConfigMap" "$T/rendered" <<'PY'
import sys, yaml
ds = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
cms = [d["metadata"]["name"] for d in ds if d["kind"] == "ConfigMap"]
d = [d for d in ds if d["kind"] == "DaemonSet"][0]
vol = [v for v in d["spec"]["template"]["spec"]["volumes"] if v["name"] == "config"][0]
assert len(cms) == 1 and vol["configMap"]["name"] == cms[0], (cms, vol)
assert all(d["metadata"].get("namespace") == "kube-system" for d in ds if d["kind"] != "ClusterRole" and d["kind"] != "ClusterRoleBinding")
PY
	else
		not_ok "kubectl kustomize failed: $(head -c 300 "$T/kerr")"
	fi
else
	note "kubectl not installed: the kustomization was not rendered"
fi

done_testing
