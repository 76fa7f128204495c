#!/usr/bin/env python3
"""Run a program that must refuse its command line: a non-zero exit status,
the expected message on stderr, and nothing set up (no placement report,
no run) before it said so.

usage: check_refusal.py "EXPECTED TEXT" PROGRAM [ARGS...]
"""
import subprocess
import sys

want = sys.argv[1]
cmd = sys.argv[2:]
print(" ".join(cmd), flush=True)
p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
print(p.stdout[-2000:])
print(p.stderr[-2000:], file=sys.stderr)
failed = []
for ok, what in ((p.returncode > 0, "refused with a clean non-zero exit (%d)" % p.returncode),
                 (want in p.stderr, "says: %s" % want),
                 ("placement:" not in p.stdout and "goodput" not in p.stdout,
                  "refused before setting anything up")):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failed.append(what)
sys.exit(1 if failed else 0)
