#!/usr/bin/env python3
"""Stand-in for devtcp-server (DEVTCP_BUILD=DIR with DIR/app/server/
devtcp-server a link to this): runs the real one ($REAL_SERVER), passes
SIGTERM/SIGINT on, and appends its CPU seconds (user, system) to
$RUSAGE_FILE. The server busy-polls, so its user time is wall time; its
system time is the kernel work its syscalls ran (the AF_PACKET TX kicks
and the softirq they run: veth, the sender's TCP, AF_PACKET RX)."""
import os, signal, subprocess, sys
p = subprocess.Popen([os.environ["REAL_SERVER"]] + sys.argv[1:])
for s in (signal.SIGTERM, signal.SIGINT):
    signal.signal(s, lambda n, f: p.send_signal(n))
while True:
    try:
        _, st, ru = os.wait4(p.pid, 0)
        break
    except InterruptedError:
        continue
with open(os.environ["RUSAGE_FILE"], "a") as f:
    f.write("%.4f %.4f\n" % (ru.ru_utime, ru.ru_stime))
sys.exit(os.waitstatus_to_exitcode(st) if hasattr(os, "waitstatus_to_exitcode") else 0)
