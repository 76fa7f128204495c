#!/usr/bin/env python3
"""Run a program that must refuse its command line: a non-zero exit status,
the expected message on stderr, and nothing set up (no placement report,
no run) before it said so.

usage: check_refusal.py [--rc N] [--absent TEXT] "EXPECTED TEXT" PROGRAM [ARGS...]

--rc N: the exit status must be exactly N. --absent TEXT: TEXT must not be
on stderr (e.g. EAL's failure where the refusal must come before EAL runs).
"""
import subprocess
import sys

args = sys.argv[1:]
want_rc, absent = None, None
while args and args[0] in ("--rc", "--absent"):
    if args[0] == "--rc":
        want_rc = int(args[1])
    else:
        absent = args[1]
    args = args[2:]
want = args[0]
cmd = args[1:]
print(" ".join(cmd), flush=True)
p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
print(p.stdout[-2000:])
print(p.stderr[-2000:], file=sys.stderr)
failed = []
checks = [(p.returncode > 0, "refused with a clean non-zero exit (%d)" % p.returncode),
          (want in p.stderr, "says: %s" % want),
          ("placement:" not in p.stdout and "goodput" not in p.stdout,
           "refused before setting anything up")]
if want_rc is not None:
    checks.append((p.returncode == want_rc, "exit status %d (got %d)" %
                   (want_rc, p.returncode)))
if absent is not None:
    checks.append((absent not in p.stderr, "does not say: %s" % absent))
for ok, what in checks:
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failed.append(what)
sys.exit(1 if failed else 0)
