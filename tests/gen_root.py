#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen_root.py - write a realistic GPU/RDMA node as a sysfs/proc root.

The tree mirrors what the kernel shows, relative symlinks included:

  /sys/devices/pci<D>:<B>/<D>:<B>:01.0            root port (one host bridge per switch)
      <D>:<B+1>:00.0                             PCIe switch upstream port
          <D>:<B+2>:<k>.0                         switch downstream port k
              <D>:<B+3+k>:00.0                    GPU (10de:2330) or NIC (15b3:1021)
                  infiniband/mlx5_<n>/ports/1/    state, phys_state, rate, link_layer, counters
                  net/ib<n> | net/enp<bus>s0np0   IPoIB or RoCE netdev
  /sys/bus/pci/devices/<bdf> -> ../../../devices/...
  /sys/class/infiniband/<dev> -> ../../devices/.../infiniband/<dev>
  /sys/class/net/<if> -> ../../devices/.../net/<if>
  /sys/devices/system/node/node<K>/cpulist
  /proc/self/limits, /proc/sys/..., /proc/uptime

GPU i and its rail NIC share a PCIe switch (DGX-style); switches are spread
evenly over the NUMA nodes.  Rail NICs are named mlx5_0..N-1 (HGX-style);
--dgx-naming names the 8 rails as a DGX H100 does (mlx5_0,3,4,5,6,9,10,11)
beside two dual-port BlueField-3 storage cards at 200 Gb/s on the chipset
(mlx5_1,2 and mlx5_7,8); --renumber puts one more RDMA device (a ConnectX-6
storage port) first, as mlx5_0, so every other mlx5_N shifts up by one.  With more NICs than GPUs the NICs are spread
over the GPU switches (16 GPUs / 32 NICs: two NICs per switch).  A chipset
host bridge and a 1 GbE management NIC (eno1) live in domain 0000.
Fault flags inject what the checks must catch.  Only the standard library is
used, so tests and benchmarks can run it anywhere.
"""

import argparse
import os
import json
import sys

RATES = {
    # Gb/s -> (rate line, netdev Mb/s); 4X widths as the kernel prints them
    10: "10 Gb/sec (4X SDR)",
    20: "20 Gb/sec (4X DDR)",
    40: "40 Gb/sec (4X QDR)",
    56: "56 Gb/sec (4X FDR)",
    100: "100 Gb/sec (4X EDR)",
    200: "200 Gb/sec (4X HDR)",
    400: "400 Gb/sec (4X NDR)",
    800: "800 Gb/sec (4X XDR)",
}

IB_COUNTERS = [
    "symbol_error", "link_downed", "link_error_recovery", "port_rcv_errors",
    "port_rcv_remote_physical_errors", "port_rcv_switch_relay_errors",
    "port_xmit_discards", "port_xmit_constraint_errors", "port_rcv_constraint_errors",
    "local_link_integrity_errors", "excessive_buffer_overrun_errors", "VL15_dropped",
    "port_xmit_wait", "port_xmit_data", "port_rcv_data", "port_xmit_packets",
    "port_rcv_packets", "unicast_xmit_packets", "unicast_rcv_packets",
    "multicast_xmit_packets", "multicast_rcv_packets",
]
HW_COUNTERS = [
    "out_of_sequence", "packet_seq_err", "local_ack_timeout_err", "rnr_nak_retry_err",
    "duplicate_request", "implied_nak_seq_err", "out_of_buffer", "req_cqe_error",
    "req_remote_access_errors", "req_remote_invalid_request", "resp_cqe_error",
    "resp_local_length_error", "resp_remote_access_errors", "rx_atomic_requests",
    "rx_read_requests", "rx_write_requests", "np_cnp_sent", "rp_cnp_handled",
    "np_ecn_marked_roce_packets", "rp_cnp_ignored", "roce_adp_retrans",
    "roce_slow_restart", "lifespan",
]


class Root:
    def __init__(self, top):
        self.top = top
        self.ifaces = []
        self.roce_ifs = []
        self.iommu_groups = []
        self.rdma_devs = []   # (name, device dir) in creation order
        self.roce_ports = []  # (port dir, netdev, device name)

    def path(self, rel):
        return os.path.join(self.top, rel.lstrip("/"))

    def write(self, rel, text):
        p = self.path(rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)

    def mkdir(self, rel):
        os.makedirs(self.path(rel), exist_ok=True)

    def link(self, rel, target):
        p = self.path(rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        if os.path.lexists(p):
            os.unlink(p)
        os.symlink(target, p)


def cpulist(cpus):
    """[0,1,2,3,8] -> '0-3,8'"""
    out, start, prev = [], None, None
    for c in sorted(cpus):
        if start is None:
            start = prev = c
        elif c == prev + 1:
            prev = c
        else:
            out.append(f"{start}-{prev}" if prev != start else f"{start}")
            start = prev = c
    if start is not None:
        out.append(f"{start}-{prev}" if prev != start else f"{start}")
    return ",".join(out)


def cpumask(cpus, ncpus):
    """Kernel cpumask: hex in comma-separated 32-bit words, most significant first."""
    words = max(1, (ncpus + 31) // 32)
    v = 0
    for c in cpus:
        v |= 1 << c
    return ",".join(f"{(v >> (32 * w)) & 0xffffffff:08x}" for w in reversed(range(words)))


def rel_link(from_dir, to_path):
    """Relative symlink text from directory from_dir (absolute, in-root) to to_path."""
    return os.path.relpath(to_path, from_dir)


def parse_list(values):
    out = []
    for v in values or []:
        out += [x for x in v.split(",") if x]
    return out


DGX_RAILS = [0, 3, 4, 5, 6, 9, 10, 11]   # DGX H100: the compute rails' mlx5 numbers
DGX_STORAGE = [(1, 2), (7, 8)]          # its two BlueField-3 storage cards, two ports each


def mlx5(args, n):
    """The name of the device numbered n; --renumber shifts every number up by one."""
    return f"mlx5_{n + (1 if args.renumber else 0)}"


def rail_name(args, idx):
    """The name of rail NIC idx (HGX: its index; DGX H100: DGX_RAILS)."""
    return mlx5(args, DGX_RAILS[idx] if args.dgx_naming else idx)


def extra_number(args):
    """The number of the first device after the rails (storage, front-end, N/S cards)."""
    return 12 if args.dgx_naming else args.nics


# --pcie-switch: (device ID, top level's subsystem, second level's subsystem)
SWITCHES = {
    "single": (0xc030, (0x1000, 0x0000), None),
    "broadcom": (0xc010, (0x1000, 0xa064), (0x1000, 0xa064)),
    "broadcom-gen5": (0xc030, (0x1000, 0x0000), (0x1000, 0x1000)),
}


# PCI device IDs of --gpu (NVIDIA/open-gpu-kernel-modules README.md, "Compatible GPUs")
GPU_IDS = {"h100": 0x2330, "b200": 0x2901, "gb200": 0x2941}
# a GB200 NVL72 domain's cluster UUID (any non-zero value) and the clique GB200 trays report
NVL72_CLUSTER = "5f1c2a0e9b7d4e83a1c6d2f0e4b8a937"
NVL72_CLIQUE = 32766


def nvlink_fabric(r, args, gpu_bdfs):
    """preflight/nvml/gpu_fabric as preflight snapshot writes it (one line per GPU,
    include/preflight/gpu_fabric.h), and for an NVLink domain (gb200) the fabric-handle
    probe (preflight/cuda/fabric_handle) and the IMEX channel listing; --fabric-fault GPU:FIELD=VALUE changes one field of GPU's line."""
    if args.gpu == "h100" and not args.fabric_fault:
        return
    faults = {}
    for spec in args.fabric_fault or []:
        gpu, _, kv = spec.partition(":")
        field, _, value = kv.partition("=")
        if field not in ("state", "status", "clique", "cluster", "health", "summary"):
            sys.exit(f"gen_root: --fabric-fault {spec}: unknown field {field}")
        faults.setdefault(int(gpu), {})[field] = value
    lines = []
    for i, bdf in enumerate(gpu_bdfs):
        if args.gpu == "gb200":
            f = {"state": "3", "status": "0", "clique": str(NVL72_CLIQUE),
                 "cluster": NVL72_CLUSTER, "health": "0x000011aa", "summary": "1"}
        else:
            # HGX (B200 and H100 with NVSwitches): registered by Fabric Manager, no
            # multi-node domain (clique and cluster zero), health fields not reported
            f = {"state": "3", "status": "0", "clique": "0", "cluster": "0" * 32,
                 "health": "0x00000000", "summary": "0"}
        f.update(faults.get(i, {}))
        if f["cluster"] == "0":
            f["cluster"] = "0" * 32
        lines.append(f"{bdf} v3 state={f['state']} status={f['status']} clique={f['clique']} "
                     f"cluster={f['cluster']} health={f['health']} summary={f['summary']}")
    r.write("/preflight/nvml/gpu_fabric", "\n".join(lines) + "\n")
    if args.gpu == "gb200":
        probe = []
        for i, bdf in enumerate(gpu_bdfs):
            probe.append(f"{bdf} failed cuMemImportFromShareableHandle(CU_MEM_HANDLE_TYPE_FABRIC): "
                         "CUDA_ERROR_NOT_PERMITTED (operation not permitted)"
                         if i in (args.fabric_handle_fail or []) else f"{bdf} ok")
        r.write("/preflight/cuda/fabric_handle", "\n".join(probe) + "\n")
        mode = int(args.imex_channel_mode, 8)
        rwx = "".join(c if mode & (1 << (8 - j)) else "-" for j, c in enumerate("rwxrwxrwx"))
        r.write("/preflight/ls/dev/nvidia-caps-imex-channels",
                "" if args.no_imex_channel else f"c{rwx} 1 0 0 234, 1 Nov 25 09:00 channel0\n")


UNIT_STATES = {"active": "running", "activating": "start", "inactive": "dead",
               "failed": "failed", "not-found": "dead"}
# this node's and its peer's address on the IMEX network (eno1), with any --imex-* flag
IMEX_SELF, IMEX_PEER = "192.168.0.10", "192.168.0.11"


def unit_show(state):
    """A systemd unit as `systemctl show -p LoadState -p ActiveState -p SubState` prints it."""
    load = "not-found" if state == "not-found" else "loaded"
    active = "inactive" if state == "not-found" else state
    return f"LoadState={load}\nActiveState={active}\nSubState={UNIT_STATES[state]}\n"


def fabric_services(r, args):
    """The NVLink fabric's services as preflight snapshot records them (preflight/fabric/,
    src/facts/fabric_svc.c), the kernel driver's version, IMEX's node list."""
    if args.driver_version:
        r.write("/proc/driver/nvidia/version",
                "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  "
                f"{args.driver_version}  Release Build  (dvs-builder@U16-I3-B03-4-3)  "
                "Tue Mar  5 22:15:33 UTC 2024\nGCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n")
    if args.fm_unit:
        r.write("/preflight/fabric/fabricmanager.unit", unit_show(args.fm_unit))
    if args.fm_version:
        r.write("/preflight/fabric/fabricmanager.version",
                f"Fabric Manager version is : {args.fm_version}\n")
    imex = args.imex_unit or args.imex_node_status or args.imex_nodes_config is not None
    if not imex:
        return
    r.write("/preflight/ip/eno1/addr", f"2: eno1    inet {IMEX_SELF}/24 brd 192.168.0.255 "
            "scope global eno1\n")
    if args.imex_unit:
        r.write("/preflight/fabric/imex.unit", unit_show(args.imex_unit))
    if args.imex_node_status:
        me = args.imex_node_status
        conn = "CONNECTED" if me == "READY" else "INVALID"
        nodes = {"0": {"status": me, "host": IMEX_SELF, "version": "580.95.05",
                       "connections": {"0": {"host": IMEX_SELF, "status": conn, "changed": True},
                                       "1": {"host": IMEX_PEER, "status": conn,
                                             "changed": True}},
                       "changed": True},
                 "1": {"status": "READY", "host": IMEX_PEER, "version": "580.95.05",
                       "connections": {"0": {"host": IMEX_SELF, "status": conn, "changed": True},
                                       "1": {"host": IMEX_PEER, "status": "CONNECTED",
                                             "changed": True}},
                       "changed": True}}
        r.write("/preflight/fabric/imex.status.json", json.dumps(
            {"nodes": nodes, "timestamp": "11/25/2026 09:00:00.000",
             "status": "UP" if me == "READY" else "DEGRADED"}, indent=2) + "\n")
    if args.imex_nodes_config is not None:
        r.write("/etc/nvidia-imex/nodes_config.cfg",
                "".join(f"{a}\n" for a in args.imex_nodes_config.split(",") if a))


def build(args):
    if args.pcie_switch != "single" and (args.grace or args.gpu_cascade):
        sys.exit("gen_root: --pcie-switch broadcom* is not for --grace or --gpu-cascade")
    if args.dgx_naming and (args.nics != 8 or args.roce_lag):
        sys.exit("gen_root: --dgx-naming needs --nics 8 and no --roce-lag")
    r = Root(args.out)
    ncpus = args.numa * args.cpus_per_numa
    numa_cpus = [list(range(k * args.cpus_per_numa, (k + 1) * args.cpus_per_numa))
                 for k in range(args.numa)]
    all_cpus = list(range(ncpus))

    # --- NUMA / CPUs
    for k in range(args.numa):
        r.write(f"/sys/devices/system/node/node{k}/cpulist", cpulist(numa_cpus[k]) + "\n")
        r.write(f"/sys/devices/system/node/node{k}/cpumap", cpumask(numa_cpus[k], ncpus) + "\n")
    r.write("/sys/devices/system/node/online", f"0-{args.numa - 1}\n" if args.numa > 1 else "0\n")
    r.write("/sys/devices/system/node/possible", f"0-{args.numa - 1}\n" if args.numa > 1 else "0\n")
    r.write("/sys/devices/system/cpu/online", cpulist(all_cpus) + "\n")
    r.write("/sys/devices/system/cpu/possible", cpulist(all_cpus) + "\n")

    gpu_bdfs = []  # NVIDIA GPUs in the order written (nvlink_fabric's facts)

    def pci_dev(path, vendor, device, cls, numa, speed="32.0 GT/s PCIe", width=16,
                max_speed=None, max_width=None, subsys=None):
        """Write one PCI function at absolute sysfs path `path`; `subsys` is
        (subsystem vendor, subsystem device), (vendor, 0) by default."""
        bdf = os.path.basename(path)
        if vendor == 0x10de and cls >> 8 in (0x0300, 0x0302):
            gpu_bdfs.append(bdf)
        cpus = numa_cpus[numa] if numa >= 0 else all_cpus
        nn = -1 if args.numa_minus_one else numa
        sv, sd = subsys or (vendor, 0)
        files = {
            "vendor": f"0x{vendor:04x}", "device": f"0x{device:04x}", "class": f"0x{cls:06x}",
            "subsystem_vendor": f"0x{sv:04x}", "subsystem_device": f"0x{sd:04x}",
            "numa_node": str(nn), "local_cpulist": cpulist(cpus),
            "local_cpus": cpumask(cpus, ncpus), "enable": "1", "irq": "0",
            "uevent": f"PCI_CLASS={cls:X}\nPCI_ID={vendor:04X}:{device:04X}\n"
                      f"PCI_SLOT_NAME={bdf}\n",
        }
        if speed is not None:
            files["current_link_speed"] = speed
            files["current_link_width"] = str(width)
            files["max_link_speed"] = max_speed or speed
            files["max_link_width"] = str(max_width or width)
        for name, text in files.items():
            r.write(f"{path}/{name}", text + "\n")
        r.link(f"/sys/bus/pci/devices/{bdf}", rel_link("/sys/bus/pci/devices", path))
        if args.aer and speed is not None:
            aer_files(r, path)
        if args.iommu != "none":
            # one group per function, as behind ACS-capable switches
            grp = len(r.iommu_groups)
            r.iommu_groups.append(bdf)
            gdir = f"/sys/kernel/iommu_groups/{grp}"
            r.mkdir(f"{gdir}/devices")
            if args.iommu != "no-type":
                r.write(f"{gdir}/type", args.iommu + "\n")
            r.link(f"{path}/iommu_group", rel_link(path, gdir))
            r.link(f"{gdir}/devices/{bdf}", rel_link(f"{gdir}/devices", path))
        return bdf

    dom = args.domain

    # --- chipset and management NIC in domain 0000
    hb0 = "/sys/devices/pci0000:00"
    pci_dev(f"{hb0}/0000:00:00.0", 0x8086, 0x09a2, 0x060000, 0, speed=None)
    rp_mgmt = f"{hb0}/0000:00:1c.0"
    pci_dev(rp_mgmt, 0x8086, 0xa190, 0x060400, 0, speed="5.0 GT/s PCIe", width=1)
    eno1 = f"{rp_mgmt}/0000:01:00.0"
    pci_dev(eno1, 0x8086, 0x1533, 0x020000, 0, speed="2.5 GT/s PCIe", width=1)
    netdev(r, args, eno1, "eno1", 1, speed=1000, mtu=1500, up=True)
    netdev(r, args, None, "lo", 772, speed=None, mtu=65536, up=None)

    # --- switches: one per GPU (or per NIC when there are no GPUs)
    k_sw = max(args.gpus_per_switch, 1)
    n_sw = (args.gpus + k_sw - 1) // k_sw if args.gpus > 0 else max(args.nics, 1)
    sw_numa = [s * args.numa // n_sw for s in range(n_sw)]
    sw_of_gpu = [g // k_sw for g in range(args.gpus)]
    sw_of_nic = [n * n_sw // args.nics for n in range(args.nics)] if args.nics else []
    if args.nics_apart and args.gpus > 0:
        # each NIC on a switch and host bridge of its own, on its GPUs' NUMA node
        sw_numa += [sw_numa[sw_of_nic[n]] for n in range(args.nics)]
        sw_of_nic = [n_sw + n for n in range(args.nics)]
        n_sw += args.nics

    def socket_peer(s, same_socket):
        """Another switch on the same socket (else any other), or on the next socket."""
        want = sw_numa[s] if same_socket else (sw_numa[s] + 1) % args.numa
        cands = [t for t in range(n_sw) if sw_numa[t] == want and t != s]
        if not cands and same_socket:
            cands = [t for t in range(n_sw) if t != s]
        if not cands:
            sys.exit(f"gen_root: no other switch on NUMA node {want} to move a NIC to")
        later = [t for t in cands if t > s]
        return (later or cands)[0]

    for g in parse_list(args.gpu_without_nic):
        g = int(g)
        if g >= args.gpus:
            sys.exit(f"gen_root: --gpu-without-nic {g}: no such GPU")
        for n in range(args.nics):
            if sw_of_nic[n] == g:
                sw_of_nic[n] = socket_peer(g, True)
    for n in parse_list(args.nic_wrong_socket):
        n = int(n.replace("mlx5_", "")) if n.isdigit() else \
            [rail_name(args, i) for i in range(args.nics)].index(n)
        if n >= args.nics or args.numa < 2:
            sys.exit(f"gen_root: --nic-wrong-socket {n}: needs that NIC and 2+ NUMA nodes")
        sw_of_nic[n] = socket_peer(sw_of_nic[n], False)

    per_sw = [[] for _ in range(n_sw)]
    for g in range(args.gpus):
        per_sw[sw_of_gpu[g]].append(("gpu", g))
    for n in range(args.nics):
        per_sw[sw_of_nic[n]].append(("nic", n))
    two_level = args.pcie_switch != "single"
    per_ep = 3 if two_level else 1  # buses below the top switch per endpoint
    stride = max(8, 3 + per_ep * max(len(p) for p in per_sw) + (3 if args.gpu_cascade else 1))
    stride = (stride + 7) // 8 * 8
    if 0x10 + n_sw * stride > (0xf0 if args.nvswitch else 0x100):
        sys.exit("gen_root: too many switches for one PCI domain")

    degraded = {int(x) for x in parse_list(args.gpu_degraded_link)}
    slow = set(parse_list(args.slow_port))
    narrow = set(parse_list(args.width_port))
    down = set(parse_list(args.down_port))
    missing = set(parse_list(args.missing_nic))
    ll = args.link_layer

    for s in range(n_sw):
        b = 0x10 + s * stride
        numa = sw_numa[s]
        hb = f"/sys/devices/pci{dom}:{b:02x}"
        rp = f"{hb}/{dom}:{b:02x}:01.0"
        pci_dev(rp, *((0x10de, 0x22b2) if args.grace else (0x8086, 0x352a)), 0x060400, numa)
        up = f"{rp}/{dom}:{b + 1:02x}:00.0"
        sw_id, top_sub, low_sub = SWITCHES[args.pcie_switch]
        pci_dev(up, 0x1000, sw_id, 0x060400, numa, subsys=top_sub)
        for k, (kind, idx) in enumerate(per_sw[s]):
            dn = f"{up}/{dom}:{b + 2:02x}:{k:02x}.0"
            pci_dev(dn, 0x1000, sw_id, 0x060400, numa, subsys=top_sub)
            ep_bus = b + 3 + per_ep * k
            if two_level:
                # the chip's second level: each endpoint below a sub-switch of its own
                up2 = f"{dn}/{dom}:{ep_bus:02x}:00.0"
                pci_dev(up2, 0x1000, sw_id, 0x060400, numa, subsys=low_sub)
                dn = f"{up2}/{dom}:{ep_bus + 1:02x}:00.0"
                pci_dev(dn, 0x1000, sw_id, 0x060400, numa, subsys=low_sub)
                ep_bus += 2
            ep = f"{dn}/{dom}:{ep_bus:02x}:00.0"
            if kind == "gpu" and args.grace:
                # a superchip's GPU: alone below a Grace root port (NVLink-C2C to its CPU)
                rpg = f"{hb}/{dom}:{b:02x}:{2 + k:02x}.0"
                pci_dev(rpg, 0x10de, 0x22b2, 0x060400, numa)
                ep = f"{rpg}/{dom}:{b + 3 + k:02x}:00.0"
                if args.grace_gpu == "l40s":
                    # a PCIe card in the Grace server's slot: its link is its data path
                    pci_dev(ep, 0x10de, 0x26b9, 0x030200, numa,
                            **(dict(speed="32.0 GT/s PCIe", width=8) if idx in degraded
                               else {}), max_width=16)
                    continue
                pci_dev(ep, 0x10de, GPU_IDS[args.gpu] if args.gpu == "gb200" else 0x2342,
                        0x030200, numa, **(dict(speed="2.5 GT/s PCIe", width=1, max_speed="32.0 GT/s PCIe",
                                max_width=16) if idx in degraded else {}))
                continue
            if kind == "gpu" and args.gpu_cascade:
                # a second switch level above the GPU (PXB to its NIC)
                pci_dev(ep, 0x1000, 0xc030, 0x060400, numa)
                dn2 = f"{ep}/{dom}:{b + stride - 2:02x}:00.0"
                pci_dev(dn2, 0x1000, 0xc030, 0x060400, numa)
                ep = f"{dn2}/{dom}:{b + stride - 1:02x}:00.0"
            if kind == "gpu":
                if idx in degraded:
                    pci_dev(ep, 0x10de, GPU_IDS[args.gpu], 0x030200, numa,
                            speed="8.0 GT/s PCIe", width=8, max_speed="32.0 GT/s PCIe",
                            max_width=16)
                else:
                    pci_dev(ep, 0x10de, GPU_IDS[args.gpu], 0x030200, numa)
            elif rail_name(args, idx) in missing:
                continue  # fell off the bus: its slot is empty
            else:
                cls = 0x020700 if ll == "ib" else 0x020000
                pci_dev(ep, 0x15b3, 0x1021, cls, numa)
                if idx < args.roce_lag:
                    roce_lag(r, args, ep, idx, ep_bus, numa, pci_dev)
                    continue
                name = rail_name(args, idx)
                rdma(r, args, ep, name, ep_bus, "MT4129", "MT_0000000838",
                     args.rate, name in slow, name in narrow, name in down)

    # NVSwitches: bridges of class 0x0680 that must not count as GPUs
    for i in range(args.nvswitch):
        b = 0xf0 + i
        if b > 0xff:
            break
        hb = f"/sys/devices/pci{dom}:{b:02x}"
        rp = f"{hb}/{dom}:{b:02x}:01.0"
        pci_dev(rp, 0x8086, 0x352a, 0x060400, 0)
        pci_dev(f"{rp}/{dom}:{b:02x}:00.0", 0x10de, 0x22a3, 0x068000, 0, speed="16.0 GT/s PCIe",
                width=2)

    if args.storage_nic:
        rp = f"{hb0}/0000:00:1d.0"
        pci_dev(rp, 0x8086, 0xa198, 0x060400, 0, speed="16.0 GT/s PCIe", width=16)
        ep = f"{rp}/0000:02:00.0"
        pci_dev(ep, 0x15b3, 0x101b, 0x020000 if ll == "eth" else 0x020700, 0,
                speed="16.0 GT/s PCIe", width=16)
        rdma(r, args, ep, mlx5(args, extra_number(args)), 2, "MT4123", "MT_0000000223", 200,
             False, False, False)

    if args.renumber:
        # one more RDMA device enumerated first (a ConnectX-6 storage port at
        # 200 Gb/s on the chipset): it takes mlx5_0, every other name shifts
        rp = f"{hb0}/0000:00:1b.0"
        pci_dev(rp, 0x8086, 0xa19b, 0x060400, 0, speed="16.0 GT/s PCIe", width=16)
        ep = f"{rp}/0000:03:00.0"
        pci_dev(ep, 0x15b3, 0x101b, 0x020000 if ll == "eth" else 0x020700, 0,
                speed="16.0 GT/s PCIe", width=16)
        rdma(r, args, ep, "mlx5_0", 3, "MT4123", "MT_0000000223", 200, False, False, False)

    if args.dgx_naming:
        # DGX H100: two dual-port BlueField-3 cards (15b3:a2dc) for storage at
        # 200 Gb/s on root ports of the chipset, beside no GPU
        for c, nums in enumerate(DGX_STORAGE):
            rp = f"{hb0}/0000:00:{0x1a - c:02x}.0"
            pci_dev(rp, 0x8086, 0xa19a, 0x060400, 0, speed="32.0 GT/s PCIe", width=16)
            for fn, n in enumerate(nums):
                ep = f"{rp}/0000:{0x40 + c:02x}:00.{fn}"
                name = mlx5(args, n)
                pci_dev(ep, 0x15b3, 0xa2dc, 0x020000 if ll == "eth" else 0x020700, 0,
                        speed="32.0 GT/s PCIe", width=16)
                rdma(r, args, ep, name, 0x40 + 2 * c + fn, "MT41692", "MT_0000000884", 200,
                     name in slow, name in narrow, name in down)

    if args.frontend_eth:
        # an Ethernet front-end (in-band) port beside the compute rails: a ConnectX-6 Dx
        # (15b3:101d, 100 GbE) on the chipset; lossy TCP, so no PFC and global pause on
        rp = f"{hb0}/0000:00:1c.0"
        pci_dev(rp, 0x8086, 0xa190, 0x060400, 0, speed="16.0 GT/s PCIe", width=16)
        ep = f"{rp}/0000:05:00.0"
        pci_dev(ep, 0x15b3, 0x101d, 0x020000, 0, speed="16.0 GT/s PCIe", width=16)
        name = mlx5(args, extra_number(args) + (1 if args.storage_nic else 0) +
                    2 * args.ns_card)
        rdma(r, args, ep, name, 5, "MT4125", "MT_0000000359", 100, False, False, False,
             ll="eth")
        ifname = "enp5s0np0"
        r.write(f"/preflight/dcb/{ifname}/pfc", "pfc-cap 8 macsec-bypass off delay 0\n"
                "prio-pfc 0:off 1:off 2:off 3:off 4:off 5:off 6:off 7:off")
        r.write(f"/preflight/ethtool/{ifname}/pause",
                f"Pause parameters for {ifname}:\nAutonegotiate:\toff\nRX:\t\ton\nTX:\t\ton")

    for i in range(args.efa):
        # AWS EFA: an RDMA function of its own (no netdev; the ENA netdev is
        # another function), link layer Unspecified -> sysfs "Unknown"
        # upstream, "Ethernet" with early out-of-tree efa drivers
        rp = f"{hb0}/0000:00:{0x10 + i:02x}.0"
        pci_dev(rp, 0x8086, 0x2030, 0x060400, 0, speed="16.0 GT/s PCIe", width=16)
        ep = f"{rp}/0000:{0x60 + i:02x}:00.0"
        pci_dev(ep, 0x1d0f, 0xefa0, 0x020000, 0, speed="16.0 GT/s PCIe", width=16)
        d = f"{ep}/infiniband/efa_{i}"
        r.write(f"{d}/node_type", "1: CA\n")
        r.link(f"{d}/device", rel_link(d, ep))
        r.link(f"/sys/class/infiniband/efa_{i}", rel_link("/sys/class/infiniband", d))
        port = f"{d}/ports/1"
        r.write(f"{port}/state", "4: ACTIVE\n")
        r.write(f"{port}/phys_state", "5: LinkUp\n")
        r.write(f"{port}/rate", "100 Gb/sec (4X EDR)\n")
        r.write(f"{port}/link_layer", args.efa_link_layer + "\n")

    for i in range(args.ns_card):
        # a dual-port card of the same model in another role (north/south), on the chipset
        rp = f"{hb0}/0000:00:{0x1e - i:02x}.0"
        pci_dev(rp, 0x8086, 0xa19e, 0x060400, 0, speed="16.0 GT/s PCIe", width=16)
        for fn in range(2):
            ep = f"{rp}/0000:{0x30 + i:02x}:00.{fn}"
            name = mlx5(args, extra_number(args) + (1 if args.storage_nic else 0) + 2 * i + fn)
            pci_dev(ep, 0x15b3, 0x1021, 0x020000 if ll == "eth" else 0x020700, 0,
                    speed="16.0 GT/s PCIe", width=16)
            rdma(r, args, ep, name, 0x30 + i, "MT4129", "MT_0000000838", args.ns_rate,
                 name in slow, name in narrow, name in down)

    for i in range(args.rxe):
        rxe(r, args, i)

    for name in parse_list(args.no_pci_parent_dev):
        # e.g. Intel MIC's scif0: an RDMA device with no PCI function behind it
        d = f"/sys/devices/virtual/infiniband/{name}"
        r.write(f"{d}/node_type", "1: CA\n")
        port = f"{d}/ports/1"
        r.write(f"{port}/state", "4: ACTIVE\n")
        r.write(f"{port}/phys_state", "5: LinkUp\n")
        r.write(f"{port}/rate", "40 Gb/sec (4X QDR)\n")
        r.write(f"{port}/link_layer", "InfiniBand\n")
        r.link(f"/sys/class/infiniband/{name}", rel_link("/sys/class/infiniband", d))

    # --- GPUDirect RDMA: a healthy GPU node has the peer-memory module loaded
    # (DGX OS loads nvidia_peermem), so nvidia_peermem passes instead of
    # reporting an unrecorded fact as undecided; --no-peermem leaves it out
    if args.gpus > 0 and not args.no_peermem:
        r.write("/sys/module/nvidia_peermem/version", "550.54.15\n")
        r.write("/sys/module/nvidia_peermem/initstate", "live\n")

    # --- /proc: limits and sysctls that pass memlock and sysctl
    r.write("/proc/self/limits",
            "Limit                     Soft Limit           Hard Limit           Units     \n"
            "Max cpu time              unlimited            unlimited            seconds   \n"
            "Max open files            1048576              1048576              files     \n"
            "Max locked memory         unlimited            unlimited            bytes     \n")
    sysctls = {
        "net/core/rmem_max": "16777216", "net/core/wmem_max": "16777216",
        "net/core/rmem_default": "16777216", "net/core/wmem_default": "16777216",
        "net/core/netdev_max_backlog": "250000",
        "net/ipv4/tcp_rmem": "4096\t131072\t16777216",
        "net/ipv4/tcp_wmem": "4096\t65536\t16777216",
        "kernel/numa_balancing": "0", "vm/zone_reclaim_mode": "0",
        "kernel/hostname": args.hostname, "kernel/osrelease": "6.8.0-generated",
    }
    for ifname in ["all", "default"] + r.roce_ifs:
        sysctls[f"net/ipv4/conf/{ifname}/arp_ignore"] = "1"
        sysctls[f"net/ipv4/conf/{ifname}/arp_announce"] = "2"
        sysctls[f"net/ipv4/conf/{ifname}/rp_filter"] = "0"
    for k, v in sysctls.items():
        r.write(f"/proc/sys/{k}", v + "\n")
    r.write("/proc/uptime", f"{args.uptime:.2f} {args.uptime * ncpus * 0.9:.2f}\n")

    # IPv4 addresses of the RoCE netdevs, as `ip -o -4 addr show dev <if>`
    # prints them (preflight/ip/<if>/addr): one subnet for all rails (the
    # multi-rail ARP rules apply), a subnet per rail, or not captured
    for k, ifname in enumerate(r.roce_ifs):
        if args.rail_subnets == "none":
            break
        cidr = (f"10.10.{k // 250}.{k % 250 + 1}/16" if args.rail_subnets == "shared"
                else f"10.{10 + k}.0.1/24")
        r.write(f"/preflight/ip/{ifname}/addr",
                f"{k + 2}: {ifname}    inet {cidr} scope global {ifname}\n")

    gid_tables(r, args)
    job_facts(r, args)
    nvlink_fabric(r, args, gpu_bdfs)
    fabric_services(r, args)
    if args.mstconfig:
        mstconfig_tables(r, args)
    if args.lldp:
        lldp_neighbors(r)
    if args.nvml_health:
        nvml_health_facts(r, args)
    aer_faults(r, args)

    for spec in args.file or []:
        rel, sep, text = spec.partition("=")
        if not sep:
            sys.exit(f"gen_root: --file {spec}: expected PATH=TEXT")
        r.write(rel, text + "\n")


def gpu_fault_map(values, what):
    """GPU:VALUE items (GPU an index) as {index: [value, ...]}."""
    out = {}
    for item in parse_list(values):
        gpu, sep, val = item.partition(":")
        if not sep or not gpu.isdigit():
            sys.exit(f"gen_root: {what} {item}: expected GPU:VALUE")
        out.setdefault(int(gpu), []).append(val)
    return out


def nvml_health_facts(r, args):
    """What gpu_health and nvlink_links read besides sysfs, as a snapshot records
    it (src/facts/nvml_health.c): an idle, healthy GPU unless a fault says
    otherwise, its NVLink links, and the /dev/nvidia* listings."""
    devs = r.path("/sys/bus/pci/devices")
    gpus = []
    for bdf in sorted(os.listdir(devs)) if os.path.isdir(devs) else []:
        with open(os.path.join(devs, bdf, "vendor")) as f:
            vendor = f.read().strip()
        with open(os.path.join(devs, bdf, "class")) as f:
            cls = int(f.read().strip(), 16)
        if vendor == "0x10de" and cls >> 8 in (0x0300, 0x0302):
            gpus.append(bdf)
    one = lambda values, what: {g: v[-1] for g, v in gpu_fault_map(values, what).items()}
    events = one(args.clock_events, "--clock-events")
    temps = one(args.gpu_temp, "--gpu-temp")
    power = one(args.power_limit, "--power-limit")
    ecc_v = one(args.ecc_volatile, "--ecc-volatile")
    ecc_a = one(args.ecc_aggregate, "--ecc-aggregate")
    replay = one(args.pcie_replay, "--pcie-replay")
    down = gpu_fault_map(args.nvlink_down, "--nvlink-down")
    errs = gpu_fault_map(args.nvlink_errors, "--nvlink-errors")
    speeds = one(args.nvlink_speed, "--nvlink-speed")
    unsupported = set(parse_list(args.nvml_unsupported))
    pm_off = {int(g) for g in parse_list(args.persistence_off)}
    for i, bdf in enumerate(gpus):
        vals = {
            "persistence_mode": "0" if i in pm_off else "1",
            "clocks_event_reasons": str(int(events.get(i, "0x1"), 0)),
            "temperature_c": temps.get(i, "35"),
            "temperature_slowdown_c": "87",
            "power_limit_mw": str(int(power.get(i, "700")) * 1000),
            "power_default_limit_mw": "700000",
            "ecc_uncorrected_volatile": ecc_v.get(i, "0"),
            "ecc_uncorrected_aggregate": ecc_a.get(i, "0"),
            "pcie_replay_counter": replay.get(i, "0"),
        }
        r.write(f"/preflight/nvml/{bdf}/health",
                "".join(f"{k} {'error 3' if k in unsupported else v}\n" for k, v in vals.items()))
        lines = ["architecture 9", f"links {args.nvlinks or 1}"]
        if not args.nvlinks:
            lines.append("link0.state error 3")  # NVML_ERROR_NOT_SUPPORTED: a PCIe card
        counts = {}
        for spec in errs.get(i, []):
            link, _, rest = spec.partition(":")
            name, _, n = rest.partition(":")
            counts[(int(link), name)] = n
        for link in range(args.nvlinks):
            lines.append(f"link{link}.state {0 if str(link) in down.get(i, []) else 1}")
            for name in ("replay", "recovery", "crc_flit", "crc_data"):
                lines.append(f"link{link}.{name} {counts.get((link, name), 0)}")
        if args.nvlinks:
            # NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON; 25781 is a test value, the
            # same on every GPU, not a claim about a model
            speed = speeds.get(i, "25781")
            if not speed.isdigit():
                sys.exit(f"gen_root: --nvlink-speed {i}:{speed}: expected GPU:MBPS")
            lines.append(f"speed_mbps {speed}")
        r.write(f"/preflight/nvml/{bdf}/nvlink", "\n".join(lines) + "\n")
    missing = set(parse_list(args.no_dev_node))
    nodes = [f"nvidia{k}" for k in range(len(gpus))] + ["nvidiactl", "nvidia-uvm",
                                                         "nvidia-uvm-tools"]
    ls = ["total 0"]
    for k, name in enumerate(nodes):
        if name not in missing:
            ls.append(f"crw-rw-rw- 1 0 0 195, {k} Nov 25 09:00 {name}")
    r.write("/preflight/ls/dev/.ls", "\n".join(ls) + "\n")
    r.write("/preflight/ls/dev/nvidia-caps",
            "total 0\ncr--r--r-- 1 0 0 237, 1 Nov 25 09:00 nvidia-cap1\n")
# The AER statistics of drivers/pci/pcie/aer.c (Documentation/ABI/testing/
# sysfs-bus-pci-devices-aer): one "NAME count" line per error bit the kernel
# names, then the file's TOTAL_ERR_* line.
AER_NAMES = {
    "correctable": ["RxErr", "BadTLP", "BadDLLP", "Rollover", "Timeout", "NonFatalErr",
                    "CorrIntErr", "HeaderOF"],
    "uncorrectable": ["Undefined", "DLP", "SDES", "TLP", "FCP", "CmpltTO", "CmpltAbrt",
                      "UnxCmplt", "RxOF", "MalfTLP", "ECRC", "UnsupReq", "ACSViol",
                      "UncorrIntErr", "BlockedTLP", "AtomicOpBlocked", "TLPBlockedErr",
                      "PoisonTLPBlocked"],
}
AER_FILES = {"correctable": ("correctable", "TOTAL_ERR_COR"),
             "nonfatal": ("uncorrectable", "TOTAL_ERR_NONFATAL"),
             "fatal": ("uncorrectable", "TOTAL_ERR_FATAL")}


def aer_text(kind, counts):
    names, total = AER_FILES[kind]
    lines = [f"{n} {counts.get(n, 0)}" for n in AER_NAMES[names]]
    lines.append(f"{total} {sum(counts.values())}")
    return "\n".join(lines) + "\n"


def aer_files(r, path):
    """--aer: zeroed aer_dev_{correctable,nonfatal,fatal} of a PCIe function."""
    for kind in AER_FILES:
        r.write(f"{path}/aer_dev_{kind}", aer_text(kind, {}))


def aer_target(r, target):
    """A PCI function's directory from --aer-error's TARGET: a BDF, or an RDMA
    device's name with ^K for the K-th bridge above it (mlx5_0^1: its switch port)."""
    name, _, up = target.partition("^")
    link = f"/sys/bus/pci/devices/{name}" if ":" in name else \
        f"/sys/class/infiniband/{name}/device"
    real = os.path.realpath(r.path(link))
    top = os.path.realpath(r.top)
    if not os.path.isdir(real) or not real.startswith(top + os.sep):
        sys.exit(f"gen_root: --aer-error {target}: no such device")
    for _ in range(int(up or 0)):
        real = os.path.dirname(real)
    return "/" + os.path.relpath(real, top)


def aer_faults(r, args):
    """--aer-error TARGET:KIND:NAME=N, applied to the --aer files (counts add up per file)."""
    per = {}
    for spec in args.aer_error or []:
        try:
            target, kind, rest = spec.split(":", 2) if spec.count(":") == 2 else \
                (spec.rsplit(":", 2)[0], *spec.rsplit(":", 2)[1:])
            name, n = rest.split("=")
            n = int(n)
        except ValueError:
            sys.exit(f"gen_root: --aer-error {spec}: expected TARGET:KIND:NAME=N")
        if kind not in AER_FILES or name not in AER_NAMES[AER_FILES[kind][0]]:
            sys.exit(f"gen_root: --aer-error {spec}: unknown kind or error name")
        per.setdefault((aer_target(r, target), kind), {})[name] = n
    for (path, kind), counts in per.items():
        r.write(f"{path}/aer_dev_{kind}", aer_text(kind, counts))


def mstconfig_tables(r, args):
    """preflight/mstconfig/<pci>/<PARAM>: `mstconfig -d <pci> -e q PARAM...` of each
    mlx5 RoCE port's card, its table holding every parameter the card was asked
    (ROCE_CC_PRIO_MASK_P<fn+1>; a RoCE LAG's P1 and P2 on PF0), written under each."""
    cards = {}
    for port, ifname, dev in r.roce_ports:
        if not dev.startswith("mlx5"):
            continue
        bdf = port.split("/infiniband/")[0].rsplit("/", 1)[1]
        params = (["ROCE_CC_PRIO_MASK_P1", "ROCE_CC_PRIO_MASK_P2"] if dev.startswith("mlx5_bond")
                  else [f"ROCE_CC_PRIO_MASK_P{int(bdf[-1]) + 1}"])
        cards.setdefault(bdf[:-2], []).extend((bdf, dev, p) for p in params)
    off = {tuple(spec.split(":", 1)) for spec in parse_list(args.mstconfig_off)}
    for entries in cards.values():
        head = entries[0][0]
        rows = []
        for bdf, dev, param in entries:
            cur = "0xf7(247)" if (dev, param) in off else "255"
            rows.append(f"{'*' if cur != '255' else ' '}        {param:<36}{'255':<16}"
                        f"{cur:<16}{cur:<16}")
        table = (f"\nDevice #1:\n----------\n\nDevice type:    ConnectX7\n"
                 f"Device:         {head}\n\n"
                 f"{'Configurations:':<16}{'Default':>36}{'Current':>16}{'Next Boot':>18}\n"
                 + "\n".join(rows) + "\n")
        for bdf, dev, param in entries:
            path = f"/preflight/mstconfig/{bdf}/{param}"
            if args.mstconfig_fail:
                r.write(path + ".failed", args.mstconfig_fail + "\n")
            else:
                r.write(path, table)


def lldp_neighbors(r):
    """preflight/lldp/neighbors as `lldpcli -f keyvalue show neighbors` prints it:
    RoCE netdev k plugs into port swp<k+1> of switch leaf<k> (a leaf per rail)."""
    lines = []
    for k, ifname in enumerate(r.roce_ifs):
        pre = f"lldp.{ifname}"
        lines += [f"{pre}.via=LLDP", f"{pre}.rid={k + 1}", f"{pre}.age=0 day, 01:00:00",
                  f"{pre}.chassis.mac=b8:59:9f:a1:{k:02x}:00", f"{pre}.chassis.name=leaf{k}",
                  f"{pre}.chassis.descr=Cumulus Linux", f"{pre}.port.ifname=swp{k + 1}",
                  f"{pre}.port.descr=swp{k + 1}", f"{pre}.port.ttl=120"]
    r.write("/preflight/lldp/neighbors", "\n".join(lines) + "\n" if lines else "")


def rail_ip(args, k):
    """The IPv4 address of RoCE rail k (as --rail-subnets writes it)."""
    if args.rail_subnets == "distinct":
        return f"10.{10 + k}.0.1"
    return f"10.10.{k // 250}.{k % 250 + 1}"


def gid_tables(r, args):
    """The GID tables of the RoCE ports, as mlx5 fills them.

    ipv4 (default): 0/1 the link-local GID from the MAC (RoCE v1/v2), 2/3 the
    rail's IPv4 address (v1/v2), so NCCL's automatic choice is 3.  ipv6: 2/3 a
    global IPv6 address instead; none: no address, link-local only.  A
    --gid-shift DEV has a global IPv6 pair at 2/3 and its IPv4 pair at 4/5.
    Slots 0-7 exist under gids/ (unused ones read ::); types/ and ndevs/ only
    for slots in use (the kernel fails reads of the others).
    """
    shift = set(parse_list(args.gid_shift))
    for k, (port, ifname, dev) in enumerate(r.roce_ports):
        ll = "fe80:0000:0000:0000:0200:00ff:fe00:%04x" % (k + 1)
        a, b, c, d = (int(x) for x in rail_ip(args, k).split("."))
        v4 = "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x" % (a, b, c, d)
        v6 = "fd00:0000:0000:0010:0000:0000:0000:%04x" % (k + 1)
        table = [ll, ll]
        if args.gids == "ipv4" and dev in shift:
            table += [v6, v6, v4, v4]
        elif args.gids == "ipv4":
            table += [v4, v4]
        elif args.gids == "ipv6":
            table += [v6, v6]
        for i in range(8):
            r.write(f"{port}/gids/{i}", (table[i] if i < len(table) else
                                        "0000:0000:0000:0000:0000:0000:0000:0000") + "\n")
        for i in range(len(table)):
            r.write(f"{port}/gid_attrs/ndevs/{i}", ifname + "\n")
            r.write(f"{port}/gid_attrs/types/{i}", ("IB/RoCE v1" if i % 2 == 0 else "RoCE v2") + "\n")


def job_facts(r, args):
    """What nccl_config reads besides sysfs: verbs device nodes, the job's user,
    its environment and NCCL's configuration files."""
    missing = set(parse_list(args.uverbs_missing))
    unregistered = set(parse_list(args.uverbs_unregistered))
    lines = ["total 0"]
    if not args.no_rdma_cm:
        lines.append("crw-rw-rw- 1 0 0 10, 58 Nov 25 09:00 rdma_cm")
    for i, (name, d) in enumerate(r.rdma_devs):
        if name in unregistered:
            continue
        # the uverbs class device sits beside the RDMA device under its PCI function
        pci = os.path.dirname(os.path.dirname(d))
        vd = f"{pci}/infiniband_verbs/uverbs{i}"
        r.write(f"{vd}/ibdev", name + "\n")
        r.write(f"{vd}/dev", f"231:{192 + i}\n")
        r.write(f"{vd}/abi_version", "1\n")
        r.link(f"/sys/class/infiniband_verbs/uverbs{i}",
               rel_link("/sys/class/infiniband_verbs", vd))
        if name in missing:
            continue
        mode = int(args.uverbs_mode, 8)
        rwx = "".join(c if mode & (1 << (8 - j)) else "-" for j, c in enumerate("rwxrwxrwx"))
        lines.append(f"c{rwx} 1 0 {args.uverbs_group} 231, {192 + i} Nov 25 09:00 uverbs{i}")
    uid, _, gids = args.job_user.partition(":")
    gids = gids or uid
    home = f"/home/u{uid}"
    if not args.no_job_facts:
        r.write("/preflight/ls/dev/infiniband", "\n".join(lines) + "\n")
        r.write("/preflight/job_user", f"uid={uid}\nuser=u{uid}\ngids={gids}\nhome={home}\n"
                "source=SLURM_JOB_UID\n")
        env = [f"HOME={home}"] + list(args.nccl_env or [])
        r.write("/preflight/env", "\n".join(env) + "\n")
    if args.nccl_conf:
        r.write("/etc/nccl.conf", "\n".join(args.nccl_conf) + "\n")
    if args.user_nccl_conf:
        r.write(f"{home}/.nccl.conf", "\n".join(args.user_nccl_conf) + "\n")


def netdev(r, args, parent, name, arptype, speed, mtu, up, dev_port=0):
    """A netdev under PCI function `parent` (or virtual when None)."""
    d = f"{parent}/net/{name}" if parent else f"/sys/devices/virtual/net/{name}"
    files = {
        "type": str(arptype), "mtu": str(mtu), "dev_port": str(dev_port), "dev_id": "0x0",
        "operstate": "up" if up else ("down" if up is False else "unknown"),
        "carrier": "1" if up else "0", "ifindex": str(len(r.ifaces) + 1),
        "address": "00:00:00:00:00:00",
    }
    if speed is not None and up:
        files["speed"] = str(speed)
        files["duplex"] = "full"
    for k, v in files.items():
        r.write(f"{d}/{k}", v + "\n")
    if parent:
        r.link(f"{d}/device", rel_link(d, parent))
    r.link(f"/sys/class/net/{name}", rel_link("/sys/class/net", d))
    r.ifaces.append(name)
    return d


def rdma(r, args, pcipath, name, bus, hca, board, rate, slow, narrow, down, netdev_name=None,
         ll=None):
    """An mlx5 RDMA device with one port on PCI function `pcipath`.

    netdev_name: the port's GID netdev is that (virtual) netdev, written by the caller.
    ll: its link layer ("ib" or "eth"), else --link-layer's.
    """
    ll = ll or args.link_layer
    d = f"{pcipath}/infiniband/{name}"
    r.write(f"{d}/hca_type", hca + "\n")
    r.write(f"{d}/board_id", board + "\n")
    r.write(f"{d}/fw_ver", "28.39.1002\n")
    r.write(f"{d}/node_type", "1: CA\n")
    r.write(f"{d}/node_guid", "b83f:d203:00aa:%04x\n" % bus)
    r.link(f"{d}/device", rel_link(d, pcipath))
    r.link(f"/sys/class/infiniband/{name}", rel_link("/sys/class/infiniband", d))
    r.rdma_devs.append((name, d))

    port = f"{d}/ports/1"
    gbps = args.slow_rate if slow else rate
    line = RATES.get(gbps, f"{gbps} Gb/sec (4X NDR)")
    if narrow:
        g2, rest = line.split(" Gb/sec (4X")
        line = f"{int(g2) // 2} Gb/sec (2X{rest}"
        gbps //= 2
    if down:
        state, phys = "1: DOWN", ("3: Disabled" if ll == "eth" else "2: Polling")
        line = "40 Gb/sec (4X QDR)" if ll == "eth" else "10 Gb/sec (4X SDR)"
    else:
        state, phys = "4: ACTIVE", "5: LinkUp"
    r.write(f"{port}/state", state + "\n")
    r.write(f"{port}/phys_state", phys + "\n")
    r.write(f"{port}/rate", line + "\n")
    r.write(f"{port}/link_layer", ("Ethernet" if ll == "eth" else "InfiniBand") + "\n")
    r.write(f"{port}/lid", "0x0\n" if ll == "eth" else "0x%x\n" % (bus + 1))
    r.write(f"{port}/sm_lid", "0x0\n" if ll == "eth" else "0x1\n")
    r.write(f"{port}/cap_mask", "0x00010000\n" if ll == "eth" else "0xa751e848\n")
    for c in IB_COUNTERS:
        r.write(f"{port}/counters/{c}", "0\n")
    for c in HW_COUNTERS:
        r.write(f"{port}/hw_counters/{c}", "0\n")

    if ll == "eth" and netdev_name:
        r.roce_ports.append((port, netdev_name, name))
        r.roce_ifs.append(netdev_name)
    elif ll == "eth":
        ifname = f"enp{bus}s0np0"
        mtu = args.roce_mtu_bad if name in parse_list(args.mtu_port) else args.mtu
        nspeed = gbps * 1000
        if name in parse_list(args.netdev_speed_port):
            nspeed = args.netdev_bad_speed
        netdev(r, args, pcipath, ifname, 1, speed=nspeed, mtu=mtu, up=not down)
        if args.ecn:
            # MLNX_OFED's DCQCN switches: on for every priority unless --ecn-off says
            off = [spec.split(":", 1)[1] for spec in parse_list(args.ecn_off)
                   if spec.split(":", 1)[0] == name]
            one = {tuple(spec.split(":")[1:3]) for spec in parse_list(args.ecn_off_prio)
                   if spec.split(":", 1)[0] == name}
            for role in ("roce_np", "roce_rp"):
                for p in range(8):
                    r.write(f"{pcipath}/net/{ifname}/ecn/{role}/enable/{p}",
                            "0\n" if role in off or (role, str(p)) in one else "1\n")
            r.write(f"{pcipath}/net/{ifname}/ecn/roce_np/cnp_dscp", "48\n")
            r.write(f"{pcipath}/net/{ifname}/ecn/roce_np/cnp_802p_prio", "6\n")
        r.roce_ports.append((port, ifname, name))
        r.roce_ifs.append(ifname)
    else:
        ifname = "ib" + name.replace("mlx5_", "")
        netdev(r, args, pcipath, ifname, 32, speed=None if down else gbps * 1000,
               mtu=4092, up=not down)


RXE_COUNTERS = [
    # drivers/infiniband/sw/rxe/rxe_hw_counters.c; rxe has no counters/
    "sent_pkts", "rcvd_pkts", "duplicate_request", "out_of_seq_request", "rcvd_rnr_err",
    "send_rnr_err", "rcvd_seq_err", "ack_deferred", "retry_exceeded_err",
    "retry_rnr_exceeded_err", "completer_retry_err", "send_err", "link_downed", "rdma_sends",
    "rdma_recvs",
]


def rxe(r, args, i):
    """Soft-RoCE rxe<i> over veth<i> (`rdma link add rxe<i> type rxe netdev veth<i>`).

    No PCI function (a virtual device), a netdev without a device link, its
    counters only in hw_counters/; a --down-port rxe<i> has its veth down.
    """
    name, ifname = f"rxe{i}", f"veth{i}"
    down = name in parse_list(args.down_port)
    d = f"/sys/devices/virtual/infiniband/{name}"
    r.write(f"{d}/node_type", "1: CA\n")
    r.link(f"/sys/class/infiniband/{name}", rel_link("/sys/class/infiniband", d))
    r.rdma_devs.append((name, d))
    port = f"{d}/ports/1"
    r.write(f"{port}/state", "1: DOWN\n" if down else "4: ACTIVE\n")
    r.write(f"{port}/phys_state", "3: Disabled\n" if down else "5: LinkUp\n")
    r.write(f"{port}/rate", "10 Gb/sec (1X QDR)\n")
    r.write(f"{port}/link_layer", "Ethernet\n")
    for c in RXE_COUNTERS:
        r.write(f"{port}/hw_counters/{c}", "0\n")
    netdev(r, args, None, ifname, 1, speed=10000, mtu=args.mtu, up=not down)
    r.roce_ports.append((port, ifname, name))
    r.roce_ifs.append(ifname)


def roce_lag(r, args, ep0, idx, bus, numa, pci_dev):
    """mlx5 RoCE LAG: a dual-port NIC whose two PF netdevs are enslaved to bond<idx>.

    As the mlx5 driver shows it: one RDMA device mlx5_bond_<idx> on PF0 with
    one port, whose GIDs (and so its netdev) are the bond's; the port rate is
    one physical port's; the bond's speed is the sum of its slaves'.
    """
    name = f"mlx5_bond_{idx}"
    ep1 = ep0[:-1] + "1"
    pci_dev(ep1, 0x15b3, 0x1021, 0x020000, numa)
    slow = name in parse_list(args.slow_port)
    rdma(r, args, ep0, name, bus, "MT4129", "MT_0000000838", args.rate, slow, False, False,
         netdev_name=f"bond{idx}")
    rate = args.slow_rate if slow else args.rate
    slaves = [f"enp{bus}s0f0np0", f"enp{bus}s0f1np1"]
    down = {f"{name}:{i}" for i in range(2)} & set(parse_list(args.lag_member_down))
    bad = {f"{name}:{i}" for i in range(2)} & set(parse_list(args.lag_member_slow))
    speeds = []
    for i, (ep, sl) in enumerate(zip([ep0, ep1], slaves)):
        up = f"{name}:{i}" not in down
        sp = (args.slow_rate if f"{name}:{i}" in bad else rate) * 1000
        d = netdev(r, args, ep, sl, 1, speed=sp, mtu=args.mtu, up=up, dev_port=0)
        r.link(f"{d}/master", rel_link(d, f"/sys/devices/virtual/net/bond{idx}"))
        if up:
            speeds.append(sp)
    bd = netdev(r, args, None, f"bond{idx}", 1, speed=sum(speeds) or None, mtu=args.mtu,
                up=bool(speeds))
    r.write(f"{bd}/bonding/slaves", " ".join(slaves) + "\n")
    r.write(f"{bd}/bonding/mode", "802.3ad 4\n")
    for ep, sl in zip([ep0, ep1], slaves):
        r.link(f"{bd}/lower_{sl}", rel_link(bd, f"{ep}/net/{sl}"))


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="gen_root.py",
        description="Write a realistic GPU/RDMA node (sysfs + /proc) under OUT for preflight "
                    "--root.  GPU i and NIC i share a PCIe switch; switches are spread over "
                    "the NUMA nodes.  Lists take comma-separated values or repeat the flag.")
    p.add_argument("out", help="directory to write (created; must be empty or absent)")
    p.add_argument("--gpus", type=int, default=8, help="GPUs, 10de:2330 class 0x0302 (default 8)")
    p.add_argument("--nics", type=int, default=8, help="single-port ConnectX-7 NICs (default 8)")
    p.add_argument("--numa", type=int, default=2, help="NUMA nodes / sockets (default 2)")
    p.add_argument("--cpus-per-numa", type=int, default=8, help="CPUs per NUMA node (default 8)")
    p.add_argument("--link-layer", choices=["ib", "eth"], default="ib",
                   help="InfiniBand (IPoIB ib<n>) or RoCE (enp<bus>s0np0) (default ib)")
    p.add_argument("--rate", type=int, default=400, choices=sorted(RATES),
                   help="port rate in Gb/s, 4X (default 400 = NDR)")
    p.add_argument("--mtu", type=int, default=9000, help="RoCE netdev MTU (default 9000)")
    p.add_argument("--domain", default="0000",
                   help="PCI domain of the GPU/NIC hierarchy, 4 hex digits (default 0000)")
    p.add_argument("--nvswitch", type=int, default=0,
                   help="add NVSwitch functions (10de:22a3, class 0x0680; not GPUs)")
    p.add_argument("--storage-nic", action="store_true",
                   help="add a ConnectX-6 (MT4123, 200 Gb/s HDR) on the chipset, "
                        "named mlx5_<nics>")
    p.add_argument("--frontend-eth", action="store_true",
                   help="add an Ethernet front-end port (ConnectX-6 Dx, 100 GbE, enp5s0np0) "
                        "on the chipset, named after the other NICs, recorded with PFC off "
                        "and global pause on (a lossy TCP network)")
    p.add_argument("--dgx-naming", action="store_true",
                   help="DGX H100 names: rails mlx5_0,3,4,5,6,9,10,11, dual-port BlueField-3 "
                        "storage cards at 200 Gb/s as mlx5_1,2 and mlx5_7,8 (needs --nics 8)")
    p.add_argument("--renumber", action="store_true",
                   help="one more RDMA device (ConnectX-6 storage port, 200 Gb/s) enumerated "
                        "first as mlx5_0: every other mlx5_N shifts up by one")
    p.add_argument("--hostname", default="gen-node", help="/proc/sys/kernel/hostname")
    p.add_argument("--uptime", type=float, default=86400.0, help="/proc/uptime seconds")
    p.add_argument("--iommu", choices=["none", "identity", "DMA", "DMA-FQ", "blocked",
                                       "no-type"], default="none",
                   help="IOMMU groups: one per PCI function with this default domain type "
                        "(/sys/kernel/iommu_groups/<N>/type); no-type: groups without the "
                        "type file (kernels before 5.11); none: no IOMMU (default)")
    p.add_argument("--gpus-per-switch", type=int, default=1, metavar="K",
                   help="GPUs per PCIe switch (default 1; 2 for DGX A100: 2 GPUs and their "
                        "NICs per switch); the NICs are spread over the switches")
    p.add_argument("--gpu-cascade", action="store_true",
                   help="each GPU behind a second PCIe switch below its NIC's switch "
                        "(a two-level cascade: GPU to NIC is PXB, not PIX)")
    p.add_argument("--pcie-switch", choices=sorted(SWITCHES), default="single",
                   help="the PCIe switches: single (default; 1000:c030, subsystem 1000:0000, "
                        "one level), broadcom (a PEX88000 in two levels, 1000:c010 with "
                        "subsystem 1000:a064 in both, as in a DGX A100), broadcom-gen5 (a "
                        "PEX89000 in base mode, 1000:c030 with subsystem 1000:0000 above "
                        "1000:1000); each GPU and NIC below a second-level switch of its own, "
                        "PXB in sysfs and PIX to NCCL")
    p.add_argument("--nics-apart", action="store_true",
                   help="each NIC below a root port of its own, on the NUMA node of the GPUs "
                        "it would have shared a switch with (GPU to NIC is NODE: PHB to NCCL, "
                        "no GPUDirect RDMA by default)")
    p.add_argument("--gpu", choices=sorted(GPU_IDS), default="h100",
                   help="the GPU model: h100 (10de:2330, default), b200 (10de:2901, HGX with "
                        "a recorded NVLink fabric state) or gb200 (10de:2941, implies "
                        "--grace: a GB200 NVL72 compute tray in one NVLink domain, with its "
                        "fabric state and IMEX channel recorded)")
    p.add_argument("--fabric-fault", action="append", metavar="GPU:FIELD=VALUE",
                   help="in preflight/nvml/gpu_fabric, GPU's FIELD (state, status, clique, "
                        "cluster, health, summary) reads VALUE, e.g. 0:clique=0")
    p.add_argument("--fabric-handle-fail", type=int, action="append", metavar="GPU",
                   help="with --gpu gb200: GPU's fabric-handle probe failed on the import "
                        "(preflight/cuda/fabric_handle), as without an IMEX channel")
    p.add_argument("--imex-channel-mode", default="0666", metavar="OCTAL",
                   help="with --gpu gb200: the mode of /dev/nvidia-caps-imex-channels/channel0")
    p.add_argument("--no-imex-channel", action="store_true",
                   help="with --gpu gb200: no IMEX channel device node")
    units = sorted(UNIT_STATES)
    p.add_argument("--driver-version", metavar="V",
                   help="/proc/driver/nvidia/version of kernel driver V (e.g. 550.54.15)")
    p.add_argument("--fm-unit", choices=units,
                   help="nvidia-fabricmanager.service's state (preflight/fabric/fabricmanager.unit)")
    p.add_argument("--fm-version", metavar="V",
                   help="nv-fabricmanager --version's version (preflight/fabric/fabricmanager.version)")
    p.add_argument("--imex-unit", choices=units,
                   help="nvidia-imex.service's state (preflight/fabric/imex.unit); any --imex-* "
                        f"gives eno1 the address {IMEX_SELF}")
    p.add_argument("--imex-node-status", metavar="STATUS",
                   help="this node's status in nvidia-imex-ctl -N -j (preflight/fabric/"
                        f"imex.status.json): READY (connected to its peer {IMEX_PEER}, domain "
                        "UP) or another (WAITING_FOR_PEERS, ...: connections INVALID, DEGRADED)")
    p.add_argument("--imex-nodes-config", metavar="ADDR,...",
                   help="/etc/nvidia-imex/nodes_config.cfg, one address a line ('': empty)")
    p.add_argument("--grace", action="store_true",
                   help="Grace superchips: each GPU (10de:2342, GH200) alone below an NVIDIA "
                        "root port (10de:22b2); with --gpu-degraded-link its link reads "
                        "2.5 GT/s x1")
    p.add_argument("--grace-gpu", choices=["gh200", "l40s"], default="gh200",
                   help="with --grace, the GPU below each Grace root port: gh200 (default, "
                        "the superchip's own) or l40s (10de:26b9, a PCIe card in the slot; "
                        "with --gpu-degraded-link its link reads x8 of x16)")
    p.add_argument("--ns-card", type=int, default=0, metavar="N",
                   help="N dual-port cards of the compute NICs' model in another role "
                        "(north/south) on the chipset, at --ns-rate; named after the "
                        "compute (and storage) NICs")
    p.add_argument("--ns-rate", type=int, default=200, choices=sorted(RATES),
                   help="port rate of the --ns-card ports (default 200)")
    p.add_argument("--rxe", type=int, default=0, metavar="N",
                   help="soft-RoCE devices rxe0..N-1 over veth0..N-1 (no PCI function)")
    p.add_argument("--roce-lag", type=int, default=0, metavar="N",
                   help="with --link-layer eth: the first N NICs are dual-port mlx5 RoCE LAGs "
                        "(mlx5_bond_<i> over bond<i> with two slaves, bond speed = their sum)")
    p.add_argument("--efa", type=int, default=0, metavar="N",
                   help="AWS EFA devices efa_0..N-1 (1d0f:efa0, no netdev) beside the NICs")
    p.add_argument("--efa-link-layer", choices=["Unknown", "Ethernet"], default="Unknown",
                   help="what efa ports show in link_layer: Unknown (upstream) or "
                        "Ethernet (early out-of-tree driver)")
    p.add_argument("--rail-subnets", choices=["shared", "distinct", "none"], default="shared",
                   help="IPv4 addresses of the RoCE netdevs: all in 10.10.0.0/16 (default), "
                        "one 10.<10+k>.0.0/24 per rail, or none recorded")
    p.add_argument("--mstconfig", action="store_true",
                   help="record `mstconfig -e q` of every mlx5 RoCE port's "
                        "ROCE_CC_PRIO_MASK_P<n> (a RoCE LAG's P1 and P2), all 255, under "
                        "preflight/mstconfig/<pci>/ (as preflight snapshot writes it)")
    p.add_argument("--ecn", action="store_true",
                   help="RoCE netdevs get MLNX_OFED's ecn/roce_{np,rp}/enable/<prio> (all on)")
    p.add_argument("--gids", choices=["ipv4", "ipv6", "none"], default="ipv4",
                   help="RoCE GID tables: link-local at 0/1 and the rail's IPv4 address at "
                        "2/3 (default), a global IPv6 address at 2/3, or no address")
    p.add_argument("--job-user", default="1000:1000", metavar="UID:GID[,GID...]",
                   help="the job's user (preflight/job_user; home /home/u<UID>)")
    p.add_argument("--nccl-env", action="append", metavar="NAME=VALUE",
                   help="a variable of the job's environment (preflight/env)")
    p.add_argument("--lldp", action="store_true",
                   help="LLDP neighbours of the RoCE netdevs (preflight/lldp/neighbors, "
                        "lldpcli -f keyvalue): netdev k on leaf<k> port swp<k+1>")
    p.add_argument("--nccl-conf", action="append", metavar="LINE",
                   help="a line of /etc/nccl.conf")
    p.add_argument("--user-nccl-conf", action="append", metavar="LINE",
                   help="a line of the job user's ~/.nccl.conf")
    p.add_argument("--uverbs-mode", default="0666", metavar="OCTAL",
                   help="mode of /dev/infiniband/uverbs* (default 0666, owner root)")
    p.add_argument("--uverbs-group", type=int, default=0, metavar="GID",
                   help="group of /dev/infiniband/uverbs* (default 0)")
    p.add_argument("--aer", action="store_true",
                   help="every PCIe function has zeroed aer_dev_{correctable,nonfatal,fatal}")
    p.add_argument("--no-job-facts", action="store_true",
                   help="no preflight/env, job_user or /dev/infiniband listing (an older "
                        "snapshot)")
    p.add_argument("--nvml-health", action="store_true",
                   help="record NVML's health and NVLink facts per GPU and the /dev/nvidia* "
                        "listings (gpu_health, nvlink_links): healthy unless a fault below")
    p.add_argument("--nvlinks", type=int, default=18, metavar="N",
                   help="with --nvml-health: NVLink links per GPU (default 18; 0: a PCIe GPU, "
                        "NVML_ERROR_NOT_SUPPORTED)")
    g = p.add_argument_group("faults")
    g.add_argument("--clock-events", action="append", metavar="GPU:MASK",
                   help="with --nvml-health: GPU index GPU's clock-event reasons (0x48: HW "
                        "slowdown and HW thermal; default 0x1, idle)")
    g.add_argument("--gpu-temp", action="append", metavar="GPU:C",
                   help="with --nvml-health: GPU's temperature (default 35; slowdown at 87)")
    g.add_argument("--power-limit", action="append", metavar="GPU:W",
                   help="with --nvml-health: GPU's power limit (default 700, the default)")
    g.add_argument("--ecc-volatile", action="append", metavar="GPU:N",
                   help="with --nvml-health: uncorrected ECC errors since the driver loaded")
    g.add_argument("--ecc-aggregate", action="append", metavar="GPU:N",
                   help="with --nvml-health: uncorrected ECC errors over the board's life")
    g.add_argument("--pcie-replay", action="append", metavar="GPU:N",
                   help="with --nvml-health: PCIe replay counter")
    g.add_argument("--persistence-off", action="append", metavar="GPU",
                   help="with --nvml-health: persistence mode disabled on GPU")
    g.add_argument("--nvml-unsupported", action="append", metavar="KEY",
                   help="with --nvml-health: KEY (e.g. pcie_replay_counter) answered "
                        "NVML_ERROR_NOT_SUPPORTED on every GPU")
    g.add_argument("--nvlink-down", action="append", metavar="GPU:LINK",
                   help="with --nvml-health: link LINK of GPU inactive")
    g.add_argument("--nvlink-speed", action="append", metavar="GPU:MBPS",
                   help="with --nvml-health: GPU's common NVLink speed in MBps (default "
                        "25781 on every GPU, a test value)")
    g.add_argument("--nvlink-errors", action="append", metavar="GPU:LINK:COUNTER:N",
                   help="with --nvml-health: COUNTER (replay, recovery, crc_flit, crc_data) of "
                        "link LINK of GPU reads N")
    g.add_argument("--no-dev-node", action="append", metavar="NAME",
                   help="with --nvml-health: /dev/NAME (nvidia-uvm, nvidia0, ...) missing")
    g.add_argument("--gid-shift", action="append", metavar="DEV",
                   help="DEV's IPv4 GIDs at 4/5 behind a global IPv6 pair at 2/3")
    g.add_argument("--uverbs-missing", action="append", metavar="DEV",
                   help="no /dev/infiniband/uverbs<N> for RDMA device DEV (a device plugin "
                        "that mounted fewer)")
    g.add_argument("--uverbs-unregistered", action="append", metavar="DEV",
                   help="no uverbs device at all for DEV (no /sys/class/infiniband_verbs "
                        "entry, no node)")
    g.add_argument("--no-rdma-cm", action="store_true", help="no /dev/infiniband/rdma_cm")
    g.add_argument("--no-peermem", action="store_true",
                   help="no /sys/module/nvidia_peermem (GPUDirect RDMA not set up)")
    g.add_argument("--slow-port", action="append", metavar="DEV",
                   help="port 1 of DEV (mlx5_3) runs at --slow-rate")
    g.add_argument("--slow-rate", type=int, default=100, choices=sorted(RATES),
                   help="rate of --slow-port, Gb/s (default 100 = 4X EDR)")
    g.add_argument("--width-port", action="append", metavar="DEV",
                   help="port 1 of DEV trained at 2X (half the rate)")
    g.add_argument("--down-port", action="append", metavar="DEV",
                   help="port 1 of DEV DOWN (IB: Polling; RoCE: Disabled, netdev down)")
    g.add_argument("--mtu-port", action="append", metavar="DEV",
                   help="RoCE netdev of DEV at --roce-mtu-bad")
    g.add_argument("--roce-mtu-bad", type=int, default=1500, help="(default 1500)")
    g.add_argument("--netdev-speed-port", action="append", metavar="DEV",
                   help="RoCE netdev of DEV reports --netdev-bad-speed")
    g.add_argument("--netdev-bad-speed", type=int, default=100000, help="Mb/s (default 100000)")
    g.add_argument("--gpu-without-nic", action="append", metavar="GPU",
                   help="move the rail NIC(s) of GPU index GPU to another switch")
    g.add_argument("--nic-wrong-socket", action="append", metavar="NIC",
                   help="move NIC index NIC (or mlx5_N) under a switch on another socket")
    g.add_argument("--gpu-degraded-link", action="append", metavar="GPU",
                   help="GPU index GPU trained at 8 GT/s x8 (max 32 GT/s x16)")
    g.add_argument("--numa-minus-one", action="store_true",
                   help="every numa_node reads -1 (local_cpulist stays right)")
    g.add_argument("--no-pci-parent-dev", action="append", metavar="NAME",
                   help="an RDMA device NAME (e.g. scif0) without a PCI function")
    g.add_argument("--missing-nic", action="append", metavar="DEV",
                   help="NIC DEV (mlx5_<i>) is gone: its PCI function is not on the bus")
    g.add_argument("--lag-member-down", action="append", metavar="DEV:I",
                   help="slave I (0 or 1) of the RoCE LAG DEV (mlx5_bond_<i>) is down")
    g.add_argument("--lag-member-slow", action="append", metavar="DEV:I",
                   help="slave I of the RoCE LAG DEV links at --slow-rate")
    g.add_argument("--ecn-off", action="append", metavar="DEV:ROLE",
                   help="with --ecn: DCQCN ROLE (roce_np or roce_rp) off on every priority "
                        "of DEV's netdev")
    g.add_argument("--ecn-off-prio", action="append", metavar="DEV:ROLE:PRIO",
                   help="with --ecn: DCQCN ROLE off on priority PRIO alone of DEV's netdev")
    g.add_argument("--mstconfig-off", action="append", metavar="DEV:PARAM",
                   help="with --mstconfig: PARAM (e.g. ROCE_CC_PRIO_MASK_P2) of DEV's card "
                        "reads 0xf7 (bit 3 clear) now and for the next boot")
    g.add_argument("--mstconfig-fail", metavar="TEXT",
                   help="with --mstconfig: every card's query failed with TEXT (recorded as "
                        "<name>.failed, as a snapshot of the failing tool writes it)")
    g.add_argument("--aer-error", action="append", metavar="TARGET:KIND:NAME=N",
                   help="with --aer: N errors NAME (e.g. DLP, RxErr) in aer_dev_KIND (fatal, "
                        "nonfatal, correctable) of TARGET, a BDF or an RDMA device with ^K "
                        "for its K-th bridge up (mlx5_0^2: the switch's downstream port)")
    g.add_argument("--file", action="append", metavar="PATH=TEXT",
                   help="write TEXT to PATH under the root (after everything else), e.g. "
                        "/sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error=5")
    args = p.parse_args(argv)

    if len(args.domain) != 4 or any(c not in "0123456789abcdef" for c in args.domain):
        p.error("--domain: 4 lower-case hex digits")
    if args.numa < 1 or args.gpus < 0 or args.nics < 0 or args.cpus_per_numa < 1:
        p.error("--numa and --cpus-per-numa must be >= 1, counts >= 0")
    if args.gpu == "gb200":
        args.grace = True  # a GB200 compute tray: two superchips' GPUs below Grace
    if os.path.exists(args.out) and os.listdir(args.out):
        p.error(f"{args.out}: not empty")
    os.makedirs(args.out, exist_ok=True)
    build(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
