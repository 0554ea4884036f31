#!/bin/sh
# SPDX-License-Identifier: MIT
# --topology FILE and <root>/preflight/topology.xml: gpu_nic_numa on real
# lstopo exports (JUWELS Booster passes, JUSUF fails on its NUMA mismatch,
# the DGX-2's hwloc 3 export skips: no NIC),
# and an XML hwloc cannot read is a clear error (exit 64 for --topology,
# 2 for a root's own file), never a crash.
. "$(dirname "$0")/lib.sh"

XML=${PF_SHARED_DIR:-$PF_SOURCE_DIR/../shared}/fixtures/hwloc-xml
EMPTY=$T/empty
mkdir -p "$EMPTY"

# topo FILE WANT_RC WANT_STATUS: --topology FILE --only gpu_nic_numa
topo() {
	pf --root "$EMPTY" --topology "$1" --only gpu_nic_numa --format json
	expect_rc "$2" "$(basename "$1")"
	if json_ok "$T/out"; then
		got=$(jq_py "$T/out" 'r["checks"][0]["status"]')
		[ "$got" = "$3" ] && ok "$(basename "$1"): gpu_nic_numa $got" ||
			not_ok "$(basename "$1"): gpu_nic_numa $got, expected $3"
	else
		not_ok "$(basename "$1"): stdout is not one JSON document"
	fi
}

if [ -r "$XML/topo.jwb0001.xml" ]; then
	topo "$XML/topo.jwb0001.xml" 0 pass
	map=$(jq_py "$T/out" '",".join(f["subject"] + "=" + f["observed"]["nic"] + "/" + f["observed"]["class"] for f in r["checks"][0]["findings"])')
	[ "$map" = "0000:03:00.0=mlx5_1/PIX,0000:44:00.0=mlx5_0/PIX,0000:84:00.0=mlx5_3/PIX,0000:c4:00.0=mlx5_2/PIX" ] &&
		ok "JUWELS Booster GPU->NIC map" || not_ok "JUWELS Booster map: $map"

	topo "$XML/topo.jsfc005.xml" 1 fail
	f=$(jq_py "$T/out" '[(f["subject"], f["observed"]["same_numa"], f["observed"]["gpu_numa"], f["observed"]["nic_numa"]) for f in r["checks"][0]["findings"] if f["status"] == "fail"]')
	[ "$f" = "[('0000:01:00.0', False, 3, 2)]" ] && ok "JUSUF: GPU on NUMA 3, NIC on NUMA 2" ||
		not_ok "JUSUF findings: $f"

	# the same export as a root's own preflight/topology.xml
	mkdir -p "$T/root/preflight"
	cp "$XML/topo.jsfc005.xml" "$T/root/preflight/topology.xml"
	pf --root "$T/root" --only gpu_nic_numa --format json
	expect_rc 1 "<root>/preflight/topology.xml"

	# hwloc 3 exports (XML 3.0) are read too: a DGX-2 without NICs skips
	if [ -r "$XML/nvidiaDGX2.xml" ]; then
		topo "$XML/nvidiaDGX2.xml" 0 skip
		grep -q "16 GPUs but no RDMA NIC" "$T/out" && ok "DGX-2: 16 GPUs, no NIC" ||
			not_ok "DGX-2: $(head -c 300 "$T/out")"
	fi
else
	note "$XML absent: real lstopo exports not checked"
fi

# a version this hwloc does not know: exit 64, named, and why
printf '<?xml version="1.0"?>\n<topology version="9.0">\n<object type="Machine"/>\n</topology>\n' >"$T/v9.xml"
pf --root "$EMPTY" --topology "$T/v9.xml" --only gpu_nic_numa
expect_rc 64 "XML version 9.0"
expect_err "$T/v9.xml"
expect_err "version 9.0"

# corrupt XML: exit 64 naming the file, nothing on stdout, no crash
printf '<?xml version="1.0"?>\n<topology>\n<object type="Machine" os_index=' >"$T/corrupt.xml"
pf --root "$EMPTY" --topology "$T/corrupt.xml" --only gpu_nic_numa
expect_rc 64 "corrupt --topology"
expect_err "$T/corrupt.xml"
[ -s "$T/out" ] && not_ok "corrupt --topology wrote to stdout"
grep -qi 'BUG\|Segmentation\|Aborted' "$T/err" && not_ok "corrupt XML: $(cat "$T/err")"

: >"$T/empty.xml"
pf --root "$EMPTY" --topology "$T/empty.xml" --only gpu_nic_numa
expect_rc 64 "empty --topology"
expect_err "$T/empty.xml"

pf --root "$EMPTY" --topology "$T/absent.xml" --only gpu_nic_numa
expect_rc 64 "missing --topology"
expect_err "$T/absent.xml"

# a corrupt topology.xml inside a root is node data: the checks that need it error out
mkdir -p "$T/bad/preflight"
cp "$T/corrupt.xml" "$T/bad/preflight/topology.xml"
pf --root "$T/bad" --only gpu_nic_numa --format json
case $rc in
2 | 64) ok "corrupt <root>/preflight/topology.xml: exit $rc" ;;
*) not_ok "corrupt <root>/preflight/topology.xml: exit $rc, expected 2 or 64" ;;
esac
# named on stderr, or in the report's error finding
grep -q "preflight/topology.xml" "$T/out" "$T/err" && ok "corrupt root XML named" ||
	not_ok "corrupt root XML: the file is not named"
if [ -s "$T/out" ]; then
	json_ok "$T/out" && ok "report is valid JSON" || not_ok "corrupt root XML: invalid report"
fi

# a generated rail-aligned root through sysfs: all PIX
if python3 "$PF_SOURCE_DIR/tests/gen_root.py" --gpus 8 --nics 8 "$T/gen" >/dev/null 2>&1; then
	pf --root "$T/gen" --only gpu_nic_numa --format json
	expect_rc 0 "generated 8x8 root"
	n=$(jq_py "$T/out" 'sum(f["observed"]["class"] == "PIX" for f in r["checks"][0]["findings"])')
	[ "$n" = 8 ] && ok "8 GPUs at PIX" || not_ok "generated root: $n GPUs at PIX"
	python3 "$PF_SOURCE_DIR/tests/gen_root.py" --gpus 8 --nics 8 --gpu-without-nic 6 "$T/gen6" >/dev/null
	pf --root "$T/gen6" --only gpu_nic_numa --format text
	expect_rc 1 "generated root, GPU 6 without its NIC"
else
	note "tests/gen_root.py did not run: generated roots not checked"
fi

done_testing
