#!/usr/bin/env python3
"""devtcp-bench's start-up placement report (libnuma) through its real
command line: with the simulated GPU on this machine's node, no warning;
told it sits on node 1 (gpu_sim numa=1), one warning per lcore (each polls
payload bound for the GPU), none for pools (host-side, held to the port),
and the run still works (pools fall back to a node EAL has memory on).

usage: check_placement.py BENCH
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
import dtcheck  # noqa: E402

bench = sys.argv[1]
CK = dtcheck.Checker()
check = CK.check
failed = CK.failures


def run(numa):
    w = "plc%d" % os.getpid()
    # Hugepages on demand (no -m): 512 MiB preallocated failed the test
    # whenever other DPDK processes held half the machine's hugepages.
    cmd = [bench, "-l", "0-1", "--in-memory", "--no-pci",
           "--log-level=lib.eal:warning",
           "--vdev=net_hsplit_pl0,wire=" + w, "--vdev=net_hsplit_pl1,wire=" + w,
           "--vdev=gpu_sim_pl0,size=128M,numa=%d" % numa] + \
        os.environ.get("DEVTCP_EAL_ARGS", "").split() + \
        ["--", "--mode", "split", "--conns", "1", "--bytes", "256K", "--quiet"]
    print(" ".join(cmd), flush=True)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=90)
    print(p.stdout[-4000:])
    print(p.stderr[-2000:], file=sys.stderr)
    return p


for numa in (0, 1):
    p = run(numa)
    out = p.stdout
    check(p.returncode == 0, "numa=%d: the run succeeds (%d)" % (numa, p.returncode))
    rep = out[out.find("placement:"):] if "placement:" in out else ""
    check(rep != "", "numa=%d: placement report printed" % numa)
    check("gpu 0 (gpu_sim_pl0): NUMA node %d" % numa in rep,
          "numa=%d: the GPU's node" % numa)
    check(re.search(r"lcore 0 \(main\): NUMA node \d+\n", rep) is not None and
          re.search(r"lcore 1: NUMA node \d+\n", rep) is not None,
          "numa=%d: each lcore's node" % numa)
    check(re.search(r"pool bench_hdr: NUMA node \d+\n", rep) is not None and
          re.search(r"pool hsplit_wire_1: NUMA node \d+\n", rep) is not None,
          "numa=%d: the pools' nodes (bench's and the NIC's wire)" % numa)
    if "NUMA: libnuma reports no NUMA support" in rep:
        check(rep.count("NUMA: libnuma") == 1 and "WARNING" not in rep,
              "numa=%d: without libnuma one line, no warning" % numa)
        continue
    m = re.search(r"NUMA: (\d+) nodes?, (\d+) placement warnings?\n", rep)
    check(m is not None, "numa=%d: summary line" % numa)
    warns = re.findall(r"WARNING: (.*) is on node (\d+), gpu 0 \(gpu_sim_pl0\) on node (\d+): ", rep)
    lcore_nodes = [int(x) for x in re.findall(r"lcore [01](?: \(main\))?: NUMA node (\d+)", rep)]
    want = [n for n in lcore_nodes if n != numa]
    check(m is not None and int(m.group(2)) == len(want) == len(warns) and
          rep.count("WARNING") == len(want),
          "numa=%d: one warning per lcore off the GPU's node (%d), nothing else" %
          (numa, len(want)))
    if numa == 1 and lcore_nodes == [0, 0]:
        check(len(warns) == 2, "numa=1: both lcores warned about")
sys.exit(1 if failed else 0)
