#!/usr/bin/env python3
"""Summary of a bench/matrices/h200-rx.txt call: per MTU, each round's (a)
old (iface_gro=off) and new (default) Gb/s, their kernel references (c),
new/old and a/c, with min..max over the rounds; kgro's kernel-with-GRO.
usage: h200_summary.py OUTDIR"""
import json, os, sys
out = sys.argv[1]
def load(name):
    try:
        d = json.load(open(os.path.join(out, name, "svb.json")))
    except Exception:
        return {}
    return {r["mtu"]: r for r in d["results"]}
g = lambda r, k: (r.get(k) or {}).get("gbps")
rng = lambda v: "%.2f (%.2f..%.2f)" % (sorted(v)[len(v) // 2], min(v), max(v)) if v else "-"
kg = load("kgro")
mtus = sorted({m for i in (1, 2, 3) for n in ("old", "new") for m in load("%s-%d" % (n, i))})
for m in mtus:
    ratio, aco, acn, acg = [], [], [], []
    print("MTU %d" % m)
    for i in (1, 2, 3):
        o, n = load("old-%d" % i).get(m, {}), load("new-%d" % i).get(m, {})
        ao, an, co, cn = g(o, "a"), g(n, "a"), g(o, "c"), g(n, "c")
        print("  round %d: old a %s c %s | new a %s c %s" % (i, ao, co, an, cn))
        if ao and an:
            ratio.append(an / ao)
        if ao and co:
            aco.append(ao / co)
        if an and cn:
            acn.append(an / cn)
        if an and g(kg.get(m, {}), "c"):
            acg.append(an / g(kg[m], "c"))
    print("  new/old (a): median %s" % rng(ratio))
    print("  a/c old: %s   a/c new: %s   new a / kernel with GRO (kgro): %s" % (rng(aco), rng(acn), rng(acg)))
    t = load("new-thr").get(m, {})
    if g(t, "a"):
        print("  new with threaded NAPI (new-thr): a %.3f, c %s" % (g(t, "a"), g(t, "c")))
