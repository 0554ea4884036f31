# On the host, after two_rails.sh: the guest's snapshot judged offline gives
# the live run's verdict for every static check.
W=$1
FAILS=0
[ -d "$W/snap" ] || { echo "FAIL: no snapshot in $W/snap"; exit 1; }
# the profile as root's own 0644 file in a 0700 directory (preflight
# refuses, as root, a profile or directory that others may write; a
# checkout's modes are its umask's)
P=$(mktemp -d) || exit 1
trap 'rm -rf "$P"' EXIT
cp "$PF_SRC/tests/vm/rig.json" "$P/rig.json" && chmod 0644 "$P/rig.json" || exit 1
"$PF_BUILD/preflight" --format json --no-config --root "$W/snap" \
	--profile "$P/rig.json" --output "$W/offline.json" \
	--only memlock,sysctl,nic_link_speed,port_errors,pfc_pause,dcqcn,pcie_link,gpu_inventory,nvidia_peermem,gpu_nic_numa,nccl_config
python3 "$PF_SRC/tests/vm/report.py" same "$W/live.json" "$W/offline.json" \
	memlock,sysctl,nic_link_speed,port_errors,pfc_pause,dcqcn,pcie_link,gpu_inventory,nvidia_peermem,gpu_nic_numa,nccl_config
