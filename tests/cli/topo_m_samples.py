#!/usr/bin/python3
"""Every real `nvidia-smi topo -m` / `rocm-smi --showtopo` sample in tests/data/import, imported with
`ccsim topo import`, checked against what a person reads off the matrix: GPU and NIC counts, the GPU kind
when the post names it in a form ccsim reads, and for a few device pairs the connection class.

Classes as the matrix spells them: NV<n> (n NVLinks, direct or through an NVSwitch plane), XGMI (one
Infinity Fabric link), PIX (one PCIe switch), PXB (several switches, no host bridge), HOST (through one
CPU node: PHB or NODE, which ccsim does not tell apart), SYS (across CPU nodes). Files ccsim cannot use
must give one line naming the file and exit 2.

  tests/cli/topo_m_samples.py CCSIM SOURCE_ROOT"""
import json, os, subprocess, sys, tempfile

ccsim, root = sys.argv[1], sys.argv[2]
data = os.path.join(root, "tests", "data", "import")

# file, --gpu (None: the file names it), expected kind, GPUs, NICs, CPU nodes (None: not checked),
# pairs: (device, device, class); devices are "g<i>" (GPU i) or "n<k>" (the k-th NIC column).
SAMPLES = [
    ("dgx1-v100-8gpu-topo-m-mlx5col-dlperf.txt", "v100", "v100", 8, 1, 2,
     [("g0", "g3", "NV2"), ("g0", "g1", "NV1"), ("g1", "g2", "NV2"), ("g0", "g5", "SYS"), ("g2", "n0", "PIX"),
      ("g0", "n0", "HOST"), ("g4", "n0", "SYS")]),
    ("v100-8gpu-9nic-topo-m-hashprefix-nersc-cgpu.txt", "v100", "v100", 8, 9, 2,
     [("g0", "g3", "NV2"), ("g4", "g5", "NV1"), ("g0", "g5", "SYS"), ("g0", "n1", "PIX"), ("g0", "n3", "HOST"),
      ("g4", "n0", "HOST"), ("g0", "n0", "SYS"), ("n1", "n2", "PIX")]),
    ("a100-sxm4-8gpu-8nic-topo-m-deepep-roce.txt", None, "a100", 8, 8, 2,
     [("g0", "g1", "NV12"), ("g0", "g7", "NV12"), ("g0", "n0", "PXB"), ("g0", "n2", "HOST"), ("g0", "n4", "SYS"),
      ("n0", "n1", "PIX"), ("g6", "n6", "PXB")]),
    ("h100-4gpu-8nic-phb-topo-m-vm.txt", None, "h100", 4, 8, 1,
     [("g0", "g1", "NV18"), ("g2", "g3", "NV18"), ("g0", "n0", "HOST"), ("n0", "n7", "HOST")]),
    # NUMA Affinity "0-3" on every GPU says nothing about where each sits: the SYS pairs decide.
    ("a100-pcie-4gpu-nv12pairs-topo-m-azure-nc96v4.txt", "a100pcie", "a100pcie", 4, 0, 2,
     [("g0", "g1", "NV12"), ("g2", "g3", "NV12"), ("g0", "g2", "SYS"), ("g1", "g3", "SYS")]),
    ("a30-4gpu-nv4pairs-1nic-topo-m-vllm-collectenv.txt", None, "a30", 4, 1, 2,
     [("g0", "g1", "NV4"), ("g2", "g3", "NV4"), ("g0", "g2", "SYS"), ("g3", "n0", "PIX"), ("g2", "n0", "PXB"),
      ("g0", "n0", "SYS")]),
    ("h800-8gpu-9nic-bond-topo-m-sglang-checkenv.txt", None, "h800", 8, 9, 2,
     [("g0", "g7", "NV8"), ("g0", "n0", "PIX"), ("g0", "n1", "HOST"), ("g0", "n4", "SYS"), ("g3", "n8", "HOST"),
      ("g4", "n8", "SYS")]),
    ("hopper-8gpu-12nic-topo-m-sglang-mooncake.txt", "h100", "h100", 8, 12, 2,
     [("g0", "g1", "NV18"), ("g0", "n0", "PIX"), ("g0", "n2", "PIX"), ("g1", "n3", "PIX"), ("g1", "n0", "HOST"),
      ("g0", "n6", "SYS"), ("n0", "n1", "PIX"), ("g4", "n8", "PIX")]),
    # Every pair SYS, but the NUMA Affinity column puts GPU0-3 on node 0 and GPU4-7 on node 1: NCCL takes
    # the CPU from the NUMA node, so same-node pairs meet at one CPU.
    ("rtx4090-8gpu-2nic-allsys-topo-m-tabs-gpuallocator.txt", "rtx4090", "rtx4090", 8, 2, 2,
     [("g0", "g4", "SYS"), ("g3", "g7", "SYS"), ("g0", "g1", "HOST"), ("g6", "n0", "HOST"), ("n0", "n1", "PIX"),
      ("g0", "n0", "SYS")]),
    ("pcie-8gpu-2nic-pxb-pix-topo-m-savio4.txt", "l40s", "l40s", 8, 2, 2,
     [("g0", "g1", "PXB"), ("g2", "g3", "PIX"), ("g0", "g2", "PXB"), ("g6", "g7", "PIX"), ("g4", "g6", "PXB"),
      ("g0", "g4", "SYS"), ("g0", "n0", "HOST"), ("n0", "n1", "PIX"), ("g4", "n1", "SYS")]),
    ("h100-8gpu-nv18-nonic-topo-m-thunderkittens.txt", "h100", "h100", 8, 0, 2,
     [("g0", "g7", "NV18"), ("g3", "g4", "NV18")]),
    # 6 NVLinks to each of 3 peers is all 18 of an H100: a direct mesh, no NVSwitch.
    ("h100-4gpu-nv6-mesh-4nic-numa-topo-m-nccl1617.txt", "h100", "h100", 4, 4, None,
     [("g0", "g1", "NV6"), ("g2", "g3", "NV6"), ("g0", "n0", "PIX"), ("g3", "n3", "PIX"), ("g0", "n3", "SYS")]),
    ("pcie-8gpu-pix-phb-sys-topo-m-nccl1439.txt", "l40s", "l40s", 8, 0, 2,
     [("g0", "g1", "PIX"), ("g0", "g2", "HOST"), ("g0", "g4", "SYS"), ("g6", "g7", "PIX"), ("g5", "g6", "HOST")]),
    ("t4-4gpu-sys-node-topo-m-nccl428.txt", None, "t4", 4, 0, 2,
     [("g0", "g1", "SYS"), ("g1", "g2", "HOST"), ("g2", "g3", "HOST")]),
    ("l40s-4gpu-2nic-node-sys-topo-m-missalignment106.txt", "l40s", "l40s", 4, 2, 2,
     [("g0", "g1", "HOST"), ("g0", "g2", "SYS"), ("g2", "n0", "HOST"), ("n0", "n1", "PIX"), ("g0", "n0", "SYS")]),
    ("v100-c4140-4gpu-nv2-tabs-topo-m-nccltests68.txt", "v100", "v100", 4, 1, 1,
     [("g0", "g1", "NV2"), ("g2", "g3", "NV2"), ("g0", "n0", "HOST")]),
    ("rtx5090-2gpu-phb-tabs-topo-m-club3090.txt", "rtx5090", "rtx5090", 2, 0, 1, [("g0", "g1", "HOST")]),
    ("b200-gke-a4-topo-m-dranet.txt", "b200", "b200", 8, 8, 2,
     [("g0", "g1", "NV18"), ("g0", "n0", "PIX"), ("g0", "n2", "HOST"), ("g0", "n4", "SYS"), ("n0", "n1", "PIX")]),
    ("a40-pcie-2gpu-nv4bridge-allreduce-1G-8G-nvlink-llminsights.txt", "a40", "a40", 8, 0, 2,
     [("g0", "g1", "NV4"), ("g0", "g2", "HOST"), ("g0", "g4", "SYS"), ("g6", "g7", "NV4")]),
    # A partial paste: the GPU rows are complete, NIC6-NIC8 have no rows (their GPU columns still place them).
    ("hopper-8gpu-9nic-tabs-partial-topo-m-nccl1453.txt", "h100", "h100", 8, 9, None,
     [("g0", "g4", "NV18"), ("g0", "n8", "PIX"), ("g1", "n7", "PIX"), ("g3", "n5", "PIX"), ("g7", "n1", "PIX"),
      ("g4", "n1", "HOST"), ("g0", "n1", "SYS"), ("g0", "n0", "SYS"), ("g4", "n0", "SYS")]),
    # rocm-smi: XGMI one hop = one link; PCIE pairs meet at their NUMA nodes' CPUs.
    ("rocm-smi-showtopo-4gpu-xgmi-numa-archer2.txt", "mi300x", "mi300x", 4, 0, 4,
     [("g0", "g1", "XGMI"), ("g2", "g3", "XGMI"), ("g0", "g3", "XGMI")]),
    # No NUMA lines left in the paste: PCIE at 3 hops is "through both CPU sockets", so 4 CPUs.
    ("rocm-smi-showtopo-4gpu-allpcie-3hops-partial-rocmsmilib108.txt", "mi300x", "mi300x", 4, 0, 4,
     [("g0", "g1", "SYS"), ("g2", "g3", "SYS")]),
    ("rocm-smi-showtopo-8gpu-2x4xgmi-gpu280.txt", "mi300x", "mi300x", 8, 0, 2,
     [("g0", "g3", "XGMI"), ("g4", "g7", "XGMI"), ("g0", "g4", "SYS"), ("g3", "g5", "SYS")]),
    # amd-smi topology: read as rocm-smi; no NUMA lines, so PCIE pairs 2 hops apart share the one CPU.
    ("amd-smi-topology-8gpu-mi355x-xgmi-weight0-oci.txt", None, "mi355x", 8, 0, 1,
     [("g0", "g7", "XGMI"), ("g3", "g4", "XGMI"), ("g1", "g6", "XGMI")]),
    ("amd-smi-topology-8gpu-allxgmi-w15-amdsmi-changelog61.txt", "mi300x", "mi300x", 8, 0, 1, [("g0", "g5", "XGMI")]),
    ("amd-smi-topology-2gpu-rx7900xtx-pcie-p2p-disabled-rocm6074.txt", "mi100", "mi100", 2, 0, 1, [("g0", "g1", "HOST")]),
    ("amd-smi-topology-json-old-2gpu-pcie-amdsmi-changelog612.txt", "mi300x", "mi300x", 2, 0, 1, [("g0", "g1", "HOST")]),
    ("amd-smi-topology-json-2gpu-pcie-access-type-amdsmi-changelog612.txt", "mi300x", "mi300x", 2, 0, 1, [("g0", "g1", "HOST")]),
]

# file, --gpu, what the one-line error must contain.
REFUSED = [
    ("bad-a100-8gpu-mangled-columns-topo-m-nccl820.txt", "a100", "'NODENODE'"),
    ("bad-nv8-8gpu-truncated-rows-topo-m-nccl901.txt", "h100", "the matrix has no GPU3 row"),
    ("amd-smi-topology-2gpu-rx7900xtx-pcie-p2p-disabled-rocm6074.txt", None, "names the GPU 'AMD Radeon RX 7900 XTX'"),
    ("bad-amd-smi-topology-8gpu-mi300x-truncated-rocmblog.txt", None, "without its 'LINK TYPE TABLE:' (cut short?)"),
]

fails = 0


def fail(msg):
    global fails
    fails += 1
    print("FAIL:", msg)


def load(path, gpu, out):
    cmd = [ccsim, "topo", "import", path, "-o", out] + (["--gpu", gpu] if gpu else [])
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return None, r
    with open(out) as f:
        return json.load(f), r


def classify(t, a, b):
    """The class between nodes a and b, as the matrix would print it."""
    kind = {n["name"]: n["kind"] for n in t["nodes"]}
    links = t["links"]
    gpu_links = [l for l in links if l["type"].startswith(("nvlink", "xgmi")) and "cpu" not in (kind[l["a"]], kind[l["b"]])]
    for l in gpu_links:
        if {l["a"], l["b"]} == {a, b}:
            return "XGMI" if l["type"] == "xgmi" else f"NV{l.get('lanes', 1)}"
    to_switch = {}
    for l in gpu_links:
        for x, y in ((l["a"], l["b"]), (l["b"], l["a"])):
            if kind[y] == "nvswitch":
                to_switch.setdefault(x, {})[y] = l.get("lanes", 1)
    shared = set(to_switch.get(a, {})) & set(to_switch.get(b, {}))
    if shared:
        s = shared.pop()
        return f"NV{min(to_switch[a][s], to_switch[b][s])}"
    parent = {l["a"]: l["b"] for l in links if l["type"].startswith("pcie")}  # child -> parent, as the importers add them

    def chain(n):
        out = [n]
        while out[-1] in parent and len(out) < 64:
            out.append(parent[out[-1]])
        return out

    ca, cb = chain(a), chain(b)
    common = [n for n in ca[1:] if n in cb[1:]]
    if not common:
        return "SYS"
    lca = common[0]
    if kind[lca] == "cpu":
        return "HOST"
    return "PIX" if ca[1] == lca and cb[1] == lca else "PXB"


with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "t.json")
    for name, gpu, want_kind, gpus, nics, cpus, pairs in SAMPLES:
        t, r = load(os.path.join(data, name), gpu, out)
        if t is None:
            fail(f"{name}: import failed: {r.stderr.strip()}")
            continue
        nodes = t["nodes"]
        gpu_nodes = [n["name"] for n in nodes if n["kind"] == "gpu"]
        nic_nodes = [n["name"] for n in nodes if n["kind"] == "nic"]
        cpu_nodes = [n["name"] for n in nodes if n["kind"] == "cpu"]
        if t.get("gpu") != want_kind:
            fail(f"{name}: GPU kind {t.get('gpu')}, expected {want_kind}")
        if len(gpu_nodes) != gpus or len(nic_nodes) != nics:
            fail(f"{name}: {len(gpu_nodes)} GPUs and {len(nic_nodes)} NICs, expected {gpus} and {nics}")
            continue
        if cpus is not None and len(cpu_nodes) != cpus:
            fail(f"{name}: {len(cpu_nodes)} CPU nodes, expected {cpus}")
        dev = {f"g{i}": g for i, g in enumerate(gpu_nodes)} | {f"n{i}": n for i, n in enumerate(nic_nodes)}
        for a, b, want in pairs:
            got = classify(t, dev[a], dev[b])
            if got != want:
                fail(f"{name}: {a}-{b} ({dev[a]}, {dev[b]}) is {got}, the matrix says {want}")
    for name, gpu, needle in REFUSED:
        t, r = load(os.path.join(data, name), gpu, out)
        err = r.stderr.strip()
        if t is not None or r.returncode != 2:
            fail(f"{name}: expected exit 2, got {r.returncode}")
        elif len(err.splitlines()) != 1 or name not in err or needle not in err:
            fail(f"{name}: expected one line naming the file and {needle}, got: {err[:400]}")

print(f"topo -m samples: {len(SAMPLES)} imported, {len(REFUSED)} refused, {fails} failure(s)")
sys.exit(1 if fails else 0)
