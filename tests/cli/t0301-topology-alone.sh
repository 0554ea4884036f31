#!/bin/sh
# SPDX-License-Identifier: MIT
# --topology judges what the export holds, nothing else: every real lstopo
# export in ../shared/fixtures (and any under tests/fixtures), run with
# --topology alone and with an empty --root, gives no fail or error from an
# absent fact.  The only fails allowed are facts the export records: a GPU
# whose nearest NIC is on another NUMA node (gpu_nic_numa) and an RDMA port
# whose recorded state is not ACTIVE (nic_link_speed).  The report says where
# the facts came from (node.sources); without --root nothing of this machine
# is read and the checks that judge more than the inventory are skipped.
. "$(dirname "$0")/lib.sh"

SHARED=${PF_SHARED_DIR:-$PF_SOURCE_DIR/../shared}/fixtures
[ -d "$SHARED/hwloc-xml" ] || skip_all "$SHARED/hwloc-xml absent: the real exports are not checked"
EMPTY=$T/empty
mkdir -p "$EMPTY"

# findings that are fail or error and not a recorded fact, one per line
absent_fact_failures() {
	"$PY" -c 'import json, sys
r = json.load(open(sys.argv[1]))
for c in r["checks"]:
    for f in c["findings"]:
        if f["status"] not in ("fail", "error"):
            continue
        o = f.get("observed") or {}
        if c["name"] == "gpu_nic_numa" and o.get("same_numa") is False:
            continue
        if c["name"] == "nic_link_speed" and o.get("state") not in (None, "ACTIVE"):
            continue
        print("%s %s %s: %s" % (c["name"], f["status"], f.get("subject"), f["message"][:160]))
' "$1"
}

n=0
for x in "$SHARED"/hwloc-xml/*.xml "$SHARED"/hwloc-linux/*.xml \
	 $(find "$PF_SOURCE_DIR/tests/fixtures" -name '*.xml' 2>/dev/null); do
	[ -r "$x" ] || continue
	name=$(basename "$x")
	for mode in alone empty-root; do
		if [ "$mode" = alone ]; then
			pf --topology "$x" --format json
		else
			pf --root "$EMPTY" --topology "$x" --format json
		fi
		if ! json_ok "$T/out"; then
			not_ok "$name ($mode): stdout is not one JSON document: $(head -c 300 "$T/err")"
			continue
		fi
		bad=$(absent_fact_failures "$T/out")
		[ -z "$bad" ] && ok "$name ($mode): no fail or error from an absent fact" ||
			not_ok "$name ($mode): $bad"
		src=$(jq_py "$T/out" 'r["node"]["sources"]["inventory"], r["node"]["sources"]["topology_only"], r["node"]["sources"]["providers"]')
		[ "$src" = "('hwloc', True, 'recorded')" ] && ok "$name ($mode): sources $src" ||
			not_ok "$name ($mode): sources $src"
	done
	# alone: no file of this machine, and the non-inventory checks skipped
	pf --topology "$x" --format json --only memlock,sysctl,gpu_inventory
	got=$(jq_py "$T/out" 'r["node"]["root"], r["node"]["sources"]["files"], [c["status"] for c in r["checks"] if c["name"] in ("memlock", "sysctl")]')
	[ "$got" = "('none', 'none', ['skip', 'skip'])" ] && ok "$name: nothing live read" ||
		not_ok "$name: $got"
	n=$((n + 1))
done
[ "$n" -ge 7 ] && ok "$n real exports run" || not_ok "only $n exports found under $SHARED"

# an export whose own OS devices prove the driver (nvml0 on each DGX-2 GPU)
if [ -r "$SHARED/hwloc-xml/nvidiaDGX2.xml" ]; then
	pf --topology "$SHARED/hwloc-xml/nvidiaDGX2.xml" --only gpu_inventory --format json
	got=$(jq_py "$T/out" '[f["status"] for f in r["checks"][0]["findings"] if f["subject"] == "driver"][0]')
	[ "$got" = pass ] && ok "DGX-2: nvml0 proves the driver loaded" || not_ok "DGX-2 driver: $got"
	grep -q "nvml0" "$T/out" && ok "DGX-2: the proof is named" || not_ok "DGX-2: nvml0 not named"
fi
# an export without them: a skip that names what is missing
if [ -r "$SHARED/hwloc-xml/topo.jwb0001.xml" ]; then
	pf --topology "$SHARED/hwloc-xml/topo.jwb0001.xml" --only gpu_inventory --format json
	got=$(jq_py "$T/out" '[(f["subject"], f["status"]) for f in r["checks"][0]["findings"] if f["subject"] in ("driver", "0000:03:00.0")]')
	[ "$got" = "[('driver', 'skip'), ('0000:03:00.0', 'skip')]" ] &&
		ok "JUWELS Booster: driver and binding not recorded: skip" || not_ok "JUWELS Booster: $got"
fi

# a root that holds a node's files is judged with them (not topology-only)
mkdir -p "$T/root/proc/sys/kernel"
echo 6.8.0-test >"$T/root/proc/sys/kernel/osrelease"
pf --root "$T/root" --topology "$SHARED/hwloc-xml/topo.jwb0001.xml" --only memlock --format json
got=$(jq_py "$T/out" 'r["node"]["sources"]["topology_only"], r["node"]["sources"]["files"], r["checks"][0]["findings"][0]["message"][:30]')
case "$got" in
"(False, 'root', "*) ok "--root with files: judged with them ($got)" ;;
*) not_ok "--root with files: $got" ;;
esac

done_testing
