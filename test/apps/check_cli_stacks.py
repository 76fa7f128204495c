#!/usr/bin/env python3
"""devtcp-cli with several TCP stacks per port ("set stacks").

usage: check_cli_stacks.py CLI STACKS [WIRE_FAULTS]

Two net_hsplit ports on one wire, port 1 splitting payload into gpu_sim
memory, each port with STACKS stacks (one RX/TX queue pair each, RSS across
them, all polled by the console's lcore). The in-console bench opens
4 x STACKS connections of 1 MiB from port 0 to port 1 at once, right after
the ports start, with pattern verification on. Checks: every connection
done, every byte acknowledged, received and verified; every stack of both
ports has every drop counter 0 (WIRE_FAULTS, e.g. ",loss=0.01,seed=3":
the wire drops frames, bytes must still be exact and only no_conn may
count); both ports have STACKS stacks, and the receiving port's xstats show
RSS spreading the connections over at least two of its queues.
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
import dtcheck  # noqa: E402

cli, stacks = sys.argv[1], int(sys.argv[2])
faults = sys.argv[3] if len(sys.argv) > 3 else ""
pid = os.getpid()
CK = dtcheck.Checker()
check = CK.check
failed = CK.failures
conns, size = 4 * stacks, 1 << 20


script = """set stacks 0 {n}
set stacks 1 {n}
set rxhdrs 1 ipv4-tcp
port start 0
port start 1
set ip 0 10.0.0.1/24
set ip 1 10.0.0.2/24
set tcp verify on
bench start {c} 1M
wait
bench show
show tcp stats
show port xstats 1
""".format(n=stacks, c=conns)
fd, cmdfile = tempfile.mkstemp(suffix=".cmd")
os.write(fd, script.encode())
os.close(fd)
cmd = [cli, "-l", "0", "--in-memory", "--no-pci", "--log-level=lib.eal:error",
       "--vdev=net_hsplit_cs%d0,wire=cs%d%s" % (pid, pid, faults),
       "--vdev=net_hsplit_cs%d1,wire=cs%d%s" % (pid, pid, faults),
       "--vdev=gpu_sim_cs%d,size=64M" % pid, "--", "--cmdfile", cmdfile]
print(" ".join(cmd), flush=True)
try:
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
finally:
    os.unlink(cmdfile)
out = p.stdout
print(out)
print(p.stderr)
check(p.returncode == 0, "exit status 0 (got %d)" % p.returncode)
for port in (0, 1):
    check("port %d: %d TCP stacks at" % (port, stacks) in out,
          "port %d: %d TCP stacks created" % (port, stacks))
parts = [(x.split("\n", 1)[0], x.split("\n", 1)[1] if "\n" in x else "")
         for x in out.split("devtcp> ")[1:]]
show = "".join(o for c, o in parts if c == "bench show")
m = re.search(r"bench: done: %d x %d bytes, port 0 -> port 1, (\d+) done, "
              r"(\d+) failed: (\d+) bytes acknowledged, (\d+) received in "
              r"[0-9.]+ s: [0-9.]+ Gb/s \(verify ok, (\d+) bytes checked\)" %
              (conns, size), show)
check(m is not None, "bench show: a finished, verified run")
if m:
    done, bad, acked, rx, checked = map(int, m.groups())
    check(done == conns and bad == 0, "every connection done (%d of %d, %d "
          "failed)" % (done, conns, bad))
    check(acked == rx == checked == conns * size, "every byte acknowledged, "
          "received and checked (%d, %d, %d)" % (acked, rx, checked))
stats = "".join(o for c, o in parts if c == "show tcp stats")
blocks = re.findall(r"port (\d) TCP stack \S+ queue (\d+)\n((?:  \w+: \d+\n)+)",
                    stats)
check(len(blocks) == 2 * stacks, "show tcp stats: every stack of both ports "
      "(%d of %d)" % (len(blocks), 2 * stacks))
accepted = []
for port, q, body in blocks:
    st = {k: int(v) for k, v in re.findall(r"  (\w+): (\d+)", body)}
    drops = {k: v for k, v in st.items() if k.startswith("drop_") and v and
             not (faults and k == "drop_no_conn")}
    check("drop_neigh_hold_full" in st and not drops and
          st.get("events_overflow", 1) == 0,
          "port %s stack %s: no drop%s (%s)" %
          (port, q, " but no_conn" if faults else "", drops))
    if port == "1":
        accepted.append(st.get("conns_accepted", 0))
check(sum(accepted) == conns, "port 1: every connection accepted once (%s)" %
      accepted)
xs = "".join(o for c, o in parts if c == "show port xstats 1")
rxq = {int(q): int(v) for q, v in re.findall(r"  rx_q(\d+)_packets: (\d+)", xs)}
check(len(rxq) == stacks and sum(1 for v in rxq.values() if v > 0) >= 2,
      "port 1 xstats: RSS spread the frames over its queues (%s)" % rxq)
sys.exit(1 if failed else 0)
