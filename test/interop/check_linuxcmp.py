#!/usr/bin/env python3
"""Smoke test of devtcp-linuxcmp: a short run at 0% loss writes valid JSON
with both goodputs and their ratio (figures are not judged: a benchmark is a
program, not a timed test). Exit 77 when not root."""
import json
import os
import subprocess
import sys
import tempfile

prog = sys.argv[1]
if os.geteuid() != 0:
    print("SKIP: needs root")
    sys.exit(77)
out = tempfile.NamedTemporaryFile(suffix=".json", delete=False).name
p = subprocess.run([sys.executable, prog, "--duration", "1", "--losses", "0",
                    "--json", out], capture_output=True, text=True, timeout=80)
print(p.stdout[-3000:], p.stderr[-3000:])
if p.returncode == 77:
    sys.exit(77)
ok = p.returncode == 0
try:
    d = json.load(open(out))
    r = d["results"][0]
    ok = ok and r["loss_pct"] == 0 and r["devtcp_mbps"] > 0 and \
        r["linux_mbps"] > 0 and r["ratio"] is not None and \
        r["devtcp_receiver_bytes"] == r["devtcp_bytes"]
except (ValueError, KeyError, IndexError) as e:
    print("bad JSON: %s" % e)
    ok = False
os.unlink(out)
print("ok" if ok else "FAIL")
sys.exit(0 if ok else 1)
