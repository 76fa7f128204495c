#!/usr/bin/env python3
"""Run devtcp-bench through its real command line and check its JSON.

usage: check_bench.py BENCH [bench options after --]

The bench runs on the software NIC's loopback wire with payload split into
simulated GPU memory and --verify (every payload byte checked through the
GPU's CPU mapping). This checks the accounting agrees end to end: every frame
received split, every payload byte verified and moved by the copy engine.
"""
import json
import os
import subprocess
import sys
import tempfile

bench = sys.argv[1]
extra = sys.argv[2:]
fd, out = tempfile.mkstemp(suffix=".json")
os.close(fd)
cmd = [bench, "-l", "0-1", "--in-memory", "--no-pci",
       "--log-level=lib.eal:warning",
       "--vdev=net_hsplit_e2e0,wire=e2e%d" % os.getpid(),
       "--vdev=net_hsplit_e2e1,wire=e2e%d" % os.getpid(),
       "--vdev=gpu_sim_e2e0,size=128M",
       "--", "--quiet", "--json", out] + extra
print(" ".join(cmd), flush=True)
p = subprocess.run(cmd, timeout=120)
failed = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failed.append(what)


check(p.returncode == 0, "devtcp-bench exit status 0 (got %d)" % p.returncode)
try:
    doc = json.load(open(out))
except (OSError, ValueError) as e:
    print("FAIL cannot read JSON: %s" % e)
    sys.exit(1)
finally:
    os.unlink(out)

for r in doc["runs"]:
    m = r["mode"]
    check(r["rx_frames"] > 0, m + ": frames received")
    check(r["cksum_bad"] == 0, m + ": no checksum errors")
    check(r["verify_errors"] == 0, m + ": no payload byte differs")
    check(r["verified_bytes"] == r["payload_bytes"],
          m + ": every payload byte verified (%d of %d)" %
          (r["verified_bytes"], r["payload_bytes"]))
    if m == "raw-split":
        check(r["split_frames"] == r["rx_frames"],
              m + ": every frame split into device memory (%d of %d)" %
              (r["split_frames"], r["rx_frames"]))
        check(r["copy_engine_bytes"] == r["payload_bytes"],
              m + ": copy engine moved exactly the payload (%d vs %d)" %
              (r["copy_engine_bytes"], r["payload_bytes"]))
    else:
        check(r["split_frames"] == 0, m + ": nothing split")
        check(r["copy_engine_bytes"] == 0, m + ": copy engine idle")
sys.exit(1 if failed else 0)
