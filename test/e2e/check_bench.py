#!/usr/bin/env python3
"""Run devtcp-bench through its real command line and check its JSON.

usage: check_bench.py BENCH [bench options after --]

The bench runs on the software NIC's loopback wire with payload split into
simulated GPU memory (with --verify: every payload byte checked through the
GPU's CPU mapping, in batches). This checks the accounting agrees end to end,
per mode: raw-split (every frame split, every payload byte moved by the
NIC's copy engine), raw (nothing split or copied), bounce (every payload
byte copied to the device once by the bench), ceiling (no wire; chunks of
the payload size moved by the copy engine).

Environment: DEVTCP_GPU_VDEV replaces the simulated GPU (e.g. "--vdev=gpu_cuda0"
on a GPU machine, where --verify checks on the GPU); DEVTCP_EAL_ARGS adds
EAL arguments (e.g. "-d /path/pmds" in a device bundle).
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
       os.environ.get("DEVTCP_GPU_VDEV", "--vdev=gpu_sim_e2e0,size=128M")
       ] + os.environ.get("DEVTCP_EAL_ARGS", "").split() + [
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

verify = "--verify" in extra
compare = "--compare" in extra
check(len(doc["runs"]) > 0, "at least one run")
for r in doc["runs"]:
    m = r["mode"]
    check(r["rx_frames"] > 0, m + ": frames received")
    check(r["cksum_bad"] == 0, m + ": no checksum errors")
    check(r["verify_errors"] == 0, m + ": no payload byte differs")
    if verify:
        check(r["verified_bytes"] == r["payload_bytes"],
              m + ": every payload byte verified (%d of %d)" %
              (r["verified_bytes"], r["payload_bytes"]))
    check(r.get("copy_errors", 0) == 0, m + ": no copy refused or failed")
    if verify:
        check(r["verify_batches"] > 0 or m == "raw",
              m + ": device bytes checked in batches (%d)" %
              r["verify_batches"])
    if m == "raw-split":
        check(r["split_frames"] == r["rx_frames"],
              m + ": every frame split into device memory (%d of %d)" %
              (r["split_frames"], r["rx_frames"]))
        check(r["copy_engine_bytes"] == r["payload_bytes"],
              m + ": copy engine moved exactly the payload (%d vs %d)" %
              (r["copy_engine_bytes"], r["payload_bytes"]))
    elif m == "raw":
        check(r["split_frames"] == 0, m + ": nothing split")
        check(r["copy_engine_bytes"] == 0, m + ": copy engine idle")
    elif m == "bounce":
        check(r["split_frames"] == 0, m + ": nothing split (whole frames)")
        check(r["copy_engine_bytes"] == r["payload_bytes"],
              m + ": every payload byte copied to the device once "
              "(%d vs %d)" % (r["copy_engine_bytes"], r["payload_bytes"]))
    elif m == "ceiling":
        check(r["tx_frames"] == 0, m + ": no wire")
        check(r["copy_engine_bytes"] > 0, m + ": copy engine moved bytes")
        check(r["copy_engine_bytes"] == r["payload_bytes"] ==
              r["rx_frames"] * doc["payload_len"],
              m + ": bytes moved = chunks x payload size (%d)" %
              r["copy_engine_bytes"])
    else:
        check(False, "unknown mode " + m)
if compare:
    modes = [r["mode"] for r in doc["runs"]]
    check(modes == ["raw-split", "raw", "bounce", "ceiling"],
          "--compare runs every mode in order (%s)" % ",".join(modes))
sys.exit(1 if failed else 0)
