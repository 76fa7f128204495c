#!/usr/bin/env python3
"""Medians of ab.sh's runs per configuration, and full/notso ratios."""
import glob
import json
import os
import statistics as st
import sys

d = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                 sys.argv[1] if len(sys.argv) > 1 else "json")
rows = {}
for f in sorted(glob.glob(os.path.join(d, "*.json"))):
    name = os.path.basename(f).rsplit("_r", 1)[0]
    try:
        r = json.load(open(f))["runs"][0]
    except (ValueError, KeyError, IndexError):
        print("unreadable:", f, file=sys.stderr)
        continue
    rows.setdefault(name, []).append(r)
keys = ["goodput_gbps", "tx_stack_cycles_per_kbyte", "tx_burst_cycles_per_kbyte",
        "rx_cycles_per_frame"]
med = {}
for name, rs in sorted(rows.items()):
    med[name] = {k: st.median(r[k] for r in rs) for k in keys}
    segs = sum(r["tx_tso_segs"] for r in rs)
    bursts = sum(r["tx_tso_bursts"] for r in rs)
    print("%-28s n=%d goodput %.2f Gb/s  tx stk %.1f  tx nic %.1f cyc/KB  "
          "rx %.0f cyc/frame  segs/burst %.1f" % (
              name, len(rs), med[name][keys[0]], med[name][keys[1]],
              med[name][keys[2]], med[name][keys[3]],
              segs / bursts if bursts else 0))
print()
for name in sorted(med):
    if not name.endswith("_full"):
        continue
    base = name[:-5] + "_notso"
    if base not in med:
        continue
    a, b = med[name], med[base]
    tot_a = a[keys[1]] + a[keys[2]]
    tot_b = b[keys[1]] + b[keys[2]]
    print("%-22s full/notso: goodput %.2f, tx stack cycles/B %.3f, "
          "tx NIC cycles/B %.2f, tx total cycles/B %.2f" % (
              name[:-5], a[keys[0]] / b[keys[0]], a[keys[1]] / b[keys[1]],
              a[keys[2]] / b[keys[2]], tot_a / tot_b))
