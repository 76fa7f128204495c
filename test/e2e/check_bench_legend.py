#!/usr/bin/env python3
"""devtcp-bench explains its table: a legend line per column (retrans and
missed included), no '% line: of no line rate 0.00 Gb/s' when there is no
reference, a note why split / copy is near 1 when the payload memory is
filled by the CPU (gpu_sim), and a warning when the run's lcores share a
CPU (a falling --stacks curve otherwise unexplained).

usage: check_bench_legend.py DEVTCP_BENCH
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
import dtcheck  # noqa: E402

bench = sys.argv[1]
pid = os.getpid()
CK = dtcheck.Checker(tail=3000)
check = CK.check
failed = CK.failures


def run(lcores):
    args = [bench] + lcores + [
        "--in-memory", "--no-pci", "--log-level=lib.eal:error",
        "--vdev=net_hsplit_lg%d0,wire=lg%d" % (pid, pid),
        "--vdev=net_hsplit_lg%d1,wire=lg%d" % (pid, pid),
        "--vdev=gpu_sim_lg%d,size=128M" % pid, "--",
        "--modes", "split,copy", "--duration", "0.5", "--quiet"]
    p = subprocess.run(args, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout + p.stderr


rc, out = run(["--lcores", "0@0,1@0"])
check(rc == 0, "split and copy run (rc %d)" % rc, out)
for want in ("retrans: TCP segments the senders sent again",
             "missed: frames the receiving port dropped",
             "Mpkt/s: frames received per second",
             "% line: no line rate to compare with",
             "note: split / copy near 1 is expected here",
             "warning: lcores 0 and 1 share CPU 0"):
    check(want in out, "says: %s" % want, out)
check("of no line rate" not in out, "no '% line: of no line rate 0.00 Gb/s'", out)
if os.cpu_count() >= 2:
    rc, out = run(["--lcores", "0@0,1@1"])
    check(rc == 0 and "share CPU" not in out,
          "lcores on their own CPUs: no sharing warning (rc %d)" % rc, out)
print("%d failed" % len(failed))
sys.exit(1 if failed else 0)
