#!/usr/bin/env python3
"""testpmd's --help habit in every program, and start-up errors that say
what to do.

usage: check_usage.py CONFIG_DIR PROGRAM [PROGRAM ...]

For each program: `prog --help` (no '--') exits 0 and prints EAL's usage
followed by the program's own ("usage: prog [EAL options] -- ..."); an EAL
argument error exits non-zero with a reason (never "Success"). For
devtcp-server/devtcp-send: run without '--' says that options go after '--'.
"""
import os
import subprocess
import sys

failed = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failed.append(what)


def run(args):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=60, cwd="/")
    return p.returncode, p.stdout


conf = sys.argv[1]
for prog in map(os.path.abspath, sys.argv[2:]):
    name = os.path.basename(prog)
    rc, out = run([prog, "--help"])
    eal = out.find("EAL common options:")
    app = out.find("usage: %s [EAL options] -- " % prog)
    check(rc == 0, "%s --help exits 0 (rc %d)" % (name, rc))
    check(eal >= 0, "%s --help prints EAL's usage" % name)
    check(app > eal >= 0, "%s --help prints its own usage after EAL's" % name)
    tail = []
    if name in ("devtcp-server", "devtcp-send"):
        tail = ["--", "--config", os.path.join(
            conf, "send.ini" if name == "devtcp-send" else "server.ini")]
    rc, out = run([prog, "--no-such-eal-option", "--no-pci", "--in-memory"] + tail)
    check(rc != 0 and "EAL init failed: " in out and "Success" not in out,
          "%s: a bad EAL option fails with a reason (rc %d)" % (name, rc))
    if name in ("devtcp-server", "devtcp-send"):
        rc, out = run([prog])
        check(rc != 0 and "go after '--'" in out,
              "%s without '--' says where its options go (rc %d)" % (name, rc))

print("%d failed" % len(failed))
sys.exit(1 if failed else 0)
