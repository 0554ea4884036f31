#!/bin/sh
# SPDX-License-Identifier: MIT
# The rail model (docs/rails.md) through the binary on generated roots: each
# RDMA port's role, rail index and identity in the report (node.rails) and
# the text report's port table; pfc_pause judging by role (an Ethernet
# front-end port on an InfiniBand GPU node is not judged, a RoCE storage port
# warns at most); roles a site declares with --set rails.ROLE or a profile;
# NCCL_IB_HCA as an input; the LLDP neighbour in the identity.
. "$(dirname "$0")/lib.sh"
need_python

roles() { # the report's "device/port:role:rail" list
	"$PY" - "$T/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(" ".join("%s/%d:%s:%s" % (p["device"], p["port"], p["role"],
                                "-" if p["rail"] is None else p["rail"])
               for p in r["node"]["rails"]))
PY
}

# A DGX H100-like IB node: 8 rails beside the GPUs, a 200G storage port, an
# Ethernet front-end port with PFC off and global pause on (lossy TCP)
gen_root "$T/ib" --storage-nic --frontend-eth
pf --root "$T/ib" --format json
expect_rc 0 "healthy IB node with storage and front-end ports"
got=$(roles)
want="mlx5_0/1:compute:0 mlx5_1/1:compute:1 mlx5_2/1:compute:2 mlx5_3/1:compute:3"
want="$want mlx5_4/1:compute:4 mlx5_5/1:compute:5 mlx5_6/1:compute:6 mlx5_7/1:compute:7"
want="$want mlx5_8/1:storage:- mlx5_9/1:frontend:-"
[ "$got" = "$want" ] && ok "IB node roles" || not_ok "IB node roles: $got"
py_ok "IB node identity" "$T/out" <<'PY'
import json, sys
p = {x["device"]: x for x in json.load(open(sys.argv[1]))["node"]["rails"]}
assert p["mlx5_3"]["gpu"] and p["mlx5_3"]["link_layer"] == "InfiniBand", p["mlx5_3"]
assert p["mlx5_3"]["rate_gbps"] == 400 and p["mlx5_3"]["up"] and p["mlx5_3"]["sm_lid"] == 1
assert p["mlx5_8"]["gpu"] is None and "no PCIe switch" in p["mlx5_8"]["reason"]
assert p["mlx5_9"]["link_layer"] == "Ethernet" and p["mlx5_9"]["netdev"] == "enp5s0np0"
assert "InfiniBand compute rails" in p["mlx5_9"]["reason"], p["mlx5_9"]
PY
pf --root "$T/ib" --only pfc_pause --format json
expect_rc 0 "pfc_pause on the IB node's front-end port"
py_ok "front-end port not judged" "$T/out" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["checks"][0]
assert c["name"] == "pfc_pause" and c["status"] == "skip", c
f = c["findings"][0]
assert f["subject"] == "mlx5_9/1" and "frontend port" in f["message"], f
assert f["observed"]["role"] == "frontend"
PY
pf --root "$T/ib" --format text
grep -q '^  rail 3   mlx5_3/1  compute  InfiniBand 400 Gb/s up' "$T/out" &&
	ok "text report: rail table" || not_ok "text report: no rail table: $(cat "$T/out")"

# A RoCE node: the storage port's PFC is off and its global pause on; the rails are fine
gen_root "$T/roce" --gpus 2 --nics 2 --link-layer eth --storage-nic
for i in $(ls "$T/roce/sys/class/net" | grep '^enp'); do
	mkdir -p "$T/roce/preflight/ethtool/$i" "$T/roce/preflight/dcb/$i"
	on=3:on pause=off
	[ "$i" = enp2s0np0 ] && on=3:off pause=on
	printf 'pfc-cap 8 macsec-bypass off delay 0\nprio-pfc 0:off 1:off 2:off %s 4:off 5:off 6:off 7:off\n' \
		"$on" > "$T/roce/preflight/dcb/$i/pfc"
	printf 'Pause parameters for %s:\nAutonegotiate:\toff\nRX:\t\t%s\nTX:\t\t%s\n' \
		"$i" "$pause" "$pause" > "$T/roce/preflight/ethtool/$i/pause"
done
pf --root "$T/roce" --format json
got=$(roles)
[ "$got" = "mlx5_0/1:compute:0 mlx5_1/1:compute:1 mlx5_2/1:storage:-" ] &&
	ok "RoCE node roles" || not_ok "RoCE node roles: $got"
pf --root "$T/roce" --only pfc_pause --format json
expect_rc 0 "pfc_pause on the RoCE node's storage port"
py_ok "storage port warns at most" "$T/out" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["checks"][0]
assert c["status"] == "warn", c["status"]
f = [f for f in c["findings"] if f["subject"] == "enp2s0np0"][0]
assert f["status"] == "warn" and "a storage port, not a compute rail" in f["message"], f
rails = [f for f in c["findings"] if f["subject"] in ("enp20s0np0", "enp28s0np0")]
assert rails and all(f["status"] == "pass" for f in rails), rails
PY

pf --root "$T/ib" --only dcqcn --format json
py_ok "dcqcn: the IB node's front-end port not judged" "$T/out" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["checks"][0]
assert c["status"] == "skip" and len(c["findings"]) == 1, c
assert c["findings"][0]["subject"] == "mlx5_9/1" and "DCQCN is judged on RoCE compute" in \
    c["findings"][0]["message"], c["findings"]
PY
gen_root "$T/ecn" --gpus 2 --nics 2 --link-layer eth --storage-nic --ecn --ecn-off mlx5_2:roce_rp
pf --root "$T/ecn" --only dcqcn --format json
expect_rc 0 "dcqcn: DCQCN off on the RoCE node's storage port"
py_ok "dcqcn: the storage port warns at most" "$T/out" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["checks"][0]
st = {f["subject"]: f for f in c["findings"]}
bad = [f for f in c["findings"] if "mlx5_2" in f["subject"] or "mlx5_2" in f["message"]]
assert bad and all(f["status"] != "fail" for f in c["findings"]), c["findings"]
assert any(f["status"] == "warn" and "not a compute rail" in f["message"] for f in bad), bad
PY

# Roles the site declares: by device or device:port, from --set or a profile
pf --root "$T/ib" --set rails.storage=mlx5_0:1 --format json
got=$(roles)
case $got in
"mlx5_0/1:storage:- mlx5_1/1:compute:0 "*"mlx5_7/1:compute:6 mlx5_8/1:storage:-"*)
	ok "declared storage port: the rails renumber" ;;
*) not_ok "declared storage port: $got" ;;
esac
pf --root "$T/ib" --set rails.compute=mlx5_8 --format json
got=$(roles)
case $got in
*"mlx5_7/1:compute:7 mlx5_8/1:compute:8 "*) ok "declared compute port" ;;
*) not_ok "declared compute port: $got" ;;
esac
expect_usage "mlx5_8/1 is declared both" --root "$T/ib" --set rails.compute=mlx5_8 \
	--set rails.storage=mlx5_8:1
pf --root "$T/ib" --set rails.storage=mlx5_8 --check-config
grep -q '^  rails.storage = "mlx5_8"$' "$T/out" && ok "--check-config shows a declared role" ||
	not_ok "--check-config: $(cat "$T/out")"
expect_usage "unknown role 'rails.backend'" --root "$T/ib" --set rails.backend=mlx5_8
printf '{ "name": "site", "rails": { "frontend": ["mlx5_8"] } }\n' > "$T/site.json"
pf --root "$T/ib" --profile "$T/site.json" --format json
case $(roles) in
*"mlx5_8/1:frontend:-"*) ok "profile declares a role" ;;
*) not_ok "profile declares a role: $(roles)" ;;
esac
printf '{ "name": "bad", "rails": { "storage": 8 } }\n' > "$T/bad.json"
expect_usage "'rails.storage' must be a string or a list" --root "$T/ib" --profile "$T/bad.json"

# No GPU (a VM, the soft-RoCE rig): the ports NCCL would use are the rails;
# a second-role card's port that never linked is unused
gen_root "$T/rxe" --gpus 0 --nics 0 --rxe 2
pf --root "$T/rxe" --format json
[ "$(roles)" = "rxe0/1:compute:0 rxe1/1:compute:1" ] && ok "no GPU: every port a rail" ||
	not_ok "no GPU: $(roles)"
gen_root "$T/ns" --gpus 2 --nics 2 --link-layer eth --ns-card 1 --down-port mlx5_3
pf --root "$T/ns" --format json
case $(roles) in
*"mlx5_2/1:storage:- mlx5_3/1:unused:-") ok "never-linked port unused" ;;
*) not_ok "never-linked port: $(roles)" ;;
esac

# NCCL_IB_HCA, as NCCL reads it (the job's environment, then its files), picks the
# rails in NCCL's syntax; a site's declaration wins; a list that selects no port
# here is named in the reasons and the other rules decide
gen_root "$T/hca" --gpus 4 --nics 4 --storage-nic --nccl-env 'NCCL_IB_HCA=^mlx5_1,mlx5_4'
pf --root "$T/hca" --format json
[ "$(roles)" = "mlx5_0/1:compute:0 mlx5_1/1:storage:- mlx5_2/1:compute:1 mlx5_3/1:compute:2 mlx5_4/1:storage:-" ] &&
	ok "NCCL_IB_HCA='^mlx5_1,mlx5_4': the rails it leaves" || not_ok "NCCL_IB_HCA '^': $(roles)"
py_ok "NCCL_IB_HCA: reasons, and nccl_config still judges it" "$T/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
p = {x["device"]: x for x in r["node"]["rails"]}
assert p["mlx5_0"]["reason"] == "selected by NCCL_IB_HCA=^mlx5_1,mlx5_4 (environment)", p["mlx5_0"]
assert p["mlx5_1"]["reason"] == "not selected by NCCL_IB_HCA=^mlx5_1,mlx5_4 (environment)"
c = [c for c in r["checks"] if c["name"] == "nccl_config"][0]
f = [f for f in c["findings"] if f["subject"] == "NCCL_IB_HCA"][0]
assert f["status"] == "warn" and "3 of 4 rails" in f["message"], f
PY
gen_root "$T/hcaf" --gpus 4 --nics 4 --nccl-conf 'NCCL_IB_HCA==mlx5_0:1,mlx5_2:1,mlx5_3:2'
pf --root "$T/hcaf" --format json
[ "$(roles)" = "mlx5_0/1:compute:0 mlx5_1/1:storage:- mlx5_2/1:compute:1 mlx5_3/1:storage:-" ] &&
	ok "NCCL_IB_HCA in /etc/nccl.conf: '=' and ':port'" || not_ok "NCCL_IB_HCA '=': $(roles)"
grep -q '"reason": "selected by NCCL_IB_HCA==mlx5_0:1,mlx5_2:1,mlx5_3:2 (/etc/nccl.conf:1)"' \
	"$T/out" && ok "the reason names the file" || not_ok "reason: $(grep reason "$T/out")"
pf --root "$T/hcaf" --set rails.compute=mlx5_1 --format json
[ "$(roles)" = "mlx5_0/1:compute:0 mlx5_1/1:compute:1 mlx5_2/1:compute:2 mlx5_3/1:storage:-" ] &&
	ok "a declared role wins over NCCL_IB_HCA" || not_ok "declared over NCCL_IB_HCA: $(roles)"
gen_root "$T/hcax" --gpus 2 --nics 2 --nccl-env NCCL_IB_HCA=mlx4
pf --root "$T/hcax" --format json
[ "$(roles)" = "mlx5_0/1:compute:0 mlx5_1/1:compute:1" ] && grep -q \
	'"reason": "shares a PCIe switch with GPU [0-9a-f:.]* (NCCL_IB_HCA=mlx4 (environment) selects no port of this node)"' \
	"$T/out" && ok "NCCL_IB_HCA that selects nothing: the rules, and it says so" ||
	not_ok "NCCL_IB_HCA=mlx4: $(roles) $(grep reason "$T/out")"
gen_root "$T/hcap" --gpus 2 --nics 2 --nccl-env NCCL_IB_HCA=mlx5_1 \
	--nccl-env SLURM_SCRIPT_CONTEXT=prolog_slurmd
pf --root "$T/hcap" --format json
[ "$(roles)" = "mlx5_0/1:compute:0 mlx5_1/1:compute:1" ] &&
	ok "a Slurm prolog's environment is not the job's: its NCCL_IB_HCA is not taken" ||
	not_ok "prolog NCCL_IB_HCA: $(roles)"

# The LLDP neighbour of each port (lldpd: `lldpcli -f keyvalue show neighbors`,
# recorded as preflight/lldp/neighbors): in node.rails and the text table, null
# without one; a snapshot of the root records it, so the copy gives the same table
gen_root "$T/lldp" --gpus 2 --nics 2 --link-layer eth --storage-nic --lldp
pf --root "$T/lldp" --format json
py_ok "LLDP neighbours in node.rails" "$T/out" <<'PY'
import json, sys
p = {x["device"]: x for x in json.load(open(sys.argv[1]))["node"]["rails"]}
assert p["mlx5_0"]["lldp"] == {"chassis": "leaf0", "port": "swp1"}, p["mlx5_0"]
assert p["mlx5_1"]["lldp"] == {"chassis": "leaf1", "port": "swp2"}, p["mlx5_1"]
assert p["mlx5_2"]["lldp"] == {"chassis": "leaf2", "port": "swp3"}, p["mlx5_2"]
PY
pf --root "$T/lldp" --format text
grep -q '^  rail 1   mlx5_1/1  compute  Ethernet 400 Gb/s up  enp28s0np0 10.10.0.0/16  lldp leaf1 swp2  (' \
	"$T/out" && ok "text report: the LLDP neighbour" || not_ok "text LLDP: $(cat "$T/out")"
cp "$T/out" "$T/lldp.txt"
pf snapshot --root "$T/lldp" "$T/lldp-snap"
expect_rc 0 "snapshot of a root with LLDP neighbours"
cmp -s "$T/lldp/preflight/lldp/neighbors" "$T/lldp-snap/preflight/lldp/neighbors" &&
	ok "snapshot records preflight/lldp/neighbors" || not_ok "snapshot lacks the LLDP neighbours"
pf --root "$T/lldp-snap" --format text
sed -n '/^rdma ports:/,/^$/p' "$T/lldp.txt" > "$T/ports.want"
sed -n '/^rdma ports:/,/^$/p' "$T/out" > "$T/ports.got"
[ -s "$T/ports.want" ] && cmp -s "$T/ports.want" "$T/ports.got" &&
	ok "the snapshot gives the same port table" || not_ok "snapshot table: $(cat "$T/out")"
pf --root "$T/roce" --format json
py_ok "no LLDP neighbours: lldp null" "$T/out" <<'PY'
import json, sys
assert all(x["lldp"] is None for x in json.load(open(sys.argv[1]))["node"]["rails"])
PY

# sysctl judges by the model alone too (--only sysctl, a prolog's subset):
# two storage netdevs sharing a subnet only with each other, one with
# arp_ignore 8, are skips in the default run and alone alike
gen_root "$T/st" --gpus 2 --nics 2 --link-layer eth --storage-nic --frontend-eth \
	--rail-subnets distinct \
	--file 'preflight/ip/enp2s0np0/addr=3: enp2s0np0    inet 10.99.0.1/24' \
	--file 'preflight/ip/enp5s0np0/addr=4: enp5s0np0    inet 10.99.0.2/24' \
	--file /proc/sys/net/ipv4/conf/enp2s0np0/arp_ignore=8
for sel in "" "--only sysctl"; do
	# shellcheck disable=SC2086
	pf --no-config --root "$T/st" $sel --format json
	got=$(jq_py "$T/out" '[(c["status"], [f["status"] for f in c["findings"] if f["subject"] == "net.ipv4.conf.enp2s0np0"]) for c in r["checks"] if c["name"] == "sysctl"]')
	[ "$got" = "[('pass', ['skip'])]" ] && ok "sysctl ${sel:-in the default run}: the storage netdevs are skips" ||
		not_ok "sysctl ${sel:-in the default run}: $got"
done

done_testing
