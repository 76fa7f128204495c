#!/usr/bin/env python3
"""Smoke test of devtcp-linuxcmp: short runs at 0% loss write valid JSON
with both goodputs and their ratio (figures are not judged: a benchmark is a
program, not a timed test), and the congestion control reported is the one
the senders ran, following the setting: --cc cubic (set on the sockets),
then the namespace default set to reno with --sysctl (the host default here may
be another, e.g. BBR). Exit 77 when not root."""
import json
import os
import subprocess
import sys
import tempfile

prog = sys.argv[1]
if os.geteuid() != 0:
    print("SKIP: needs root")
    sys.exit(77)


def run(args, want_cc, want_default=None):
    """One short run; True when its JSON is sound and names WANT_CC."""
    out = tempfile.NamedTemporaryFile(suffix=".json", delete=False).name
    p = subprocess.run([sys.executable, prog, "--duration", "1", "--losses", "0",
                        "--json", out] + args, capture_output=True, text=True,
                       timeout=100)
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
        cc_ok = r["devtcp_sender_cc"] == [want_cc] and \
            r["linux_sender_cc"] == [want_cc]
        if want_default is not None:
            cc_ok = cc_ok and r["sender_cc_default"] == want_default
        print("%s: sender cc devtcp %s linux %s, namespace default %s: %s" % (
            " ".join(args), r["devtcp_sender_cc"], r["linux_sender_cc"],
            r["sender_cc_default"], "ok" if cc_ok else "want %s" % want_cc))
        ok = ok and cc_ok
    except (ValueError, KeyError, IndexError) as e:
        print("bad JSON: %s" % e)
        ok = False
    os.unlink(out)
    return ok


# Neither is the host default here (BBR); a namespace may only default to
# an algorithm of tcp_allowed_congestion_control (reno is always one).
ok = run(["--cc", "cubic"], "cubic")
ok = run(["--sysctl", "net.ipv4.tcp_congestion_control=reno"], "reno",
         "reno") and ok
print("ok" if ok else "FAIL")
sys.exit(0 if ok else 1)
