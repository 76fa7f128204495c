#!/usr/bin/env python3
"""Sum a perf report (comm, dso, sym; percent of all samples) into parts."""
import re, sys
parts = {}
def part(comm, dso, sym):
    if dso == "[kernel.kallsyms]":
        if comm.startswith("python"):
            return "kernel, sender ctx (TCP tx, veth, softirq, AF_PACKET)"
        return "kernel, server ctx"
    if comm.startswith("python") or "python" in dso:
        return "sender userspace"
    if "hsplit" in sym or sym.startswith("rx_") or sym in ("csum_complete",):
        return "net_hsplit"
    if "cksum" in sym:
        return "net_hsplit"
    if sym.startswith(("dt_", "tcp_", "gro_", "out_", "conn_")):
        return "lib/dp + lib/tcp"
    if "memcpy" in sym or "memmove" in sym:
        return "memcpy (libc)"
    return "server other (" + sym + ")" if False else "server other"
tot = {}
for line in open(sys.argv[1]):
    m = re.match(r"\s*([\d.]+)%\s+(\S+)\s+(\S+)\s+\[[.k]\]\s+(.*)", line)
    if not m:
        continue
    pct, comm, dso, sym = float(m[1]), m[2], m[3], m[4].strip()
    k = part(comm, dso, sym)
    tot[k] = tot.get(k, 0) + pct
s = sum(tot.values())
for k, v in sorted(tot.items(), key=lambda x: -x[1]):
    print("%-55s %6.2f %% of all samples (%4.1f %% of this run's)" % (k, v, 100 * v / s))
