#!/usr/bin/env python3
"""devtcp-cli's TCP and bench commands through the real command line.

A command file (cli_tcp.cmd) starts two net_hsplit ports on one loopback wire
(port 1 splits payload into gpu_sim memory), connects port 0 to port 1, sends
3 MiB from host memory and 2 MiB from a device-memory buffer with pattern
verification on, closes, and runs the in-CLI bench. The output of each
command is checked: bytes delivered == bytes sent, ESTABLISHED then CLOSED,
pattern ok, stack counters, Gb/s. Then the error cases (-e commands): TCP
commands before any stack, unknown and closed connections, bad sizes; exit
status 1. Then the interactive console on a pseudo-terminal: TAB completes
the TCP commands and the stacks run between keystrokes.

usage: check_cli_tcp.py CLI CMDFILE
"""
import os
import pty
import re
import select
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
import dtcheck  # noqa: E402

cli, cmdfile = sys.argv[1:3]
pid = os.getpid()
CK = dtcheck.Checker()
check = CK.check
failed = CK.failures
EAL = ["-l", "0", "--in-memory", "--no-pci", "--log-level=lib.eal:error"]
SENT = (3 << 20) + (2 << 20)


def vdevs(tag):
    return ["--vdev=net_hsplit_%s%d0,wire=%s%d" % (tag, pid, tag, pid),
            "--vdev=net_hsplit_%s%d1,wire=%s%d" % (tag, pid, tag, pid),
            "--vdev=gpu_sim_%s%d,size=64M" % (tag, pid)]


def by_command(out):
    """[(command, its output)] in order, from the echoed prompts."""
    parts = out.split("devtcp> ")[1:]
    return [(p.split("\n", 1)[0], p.split("\n", 1)[1] if "\n" in p else "")
            for p in parts]


def conns(text):
    """{id: row dict} of a 'show tcp conns' output."""
    rows = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 13 and f[0].isdigit():
            rows[int(f[0])] = {"port": int(f[1]), "local": f[2],
                               "remote": f[3], "state": f[4],
                               "acked": int(f[5]), "rx": int(f[6]),
                               "verify": f[12], "rest": f[13:]}
    return rows


p = subprocess.run([cli] + EAL + vdevs("ct") + ["--", "--cmdfile", cmdfile],
                   capture_output=True, text=True, timeout=120)
out = p.stdout
print(out)
print(p.stderr)
check(p.returncode == 0, "script of good commands: exit status 0 (got %d)" %
      p.returncode)
cmds = by_command(out)
shows = [o for c, o in cmds if c in ("show tcp conns", "show tcp conns all")]
check(len(shows) == 3, "three 'show tcp conns' outputs")
if len(shows) == 3:
    a, b, c = conns(shows[0]), conns(shows[1]), conns(shows[2])
    check(a.get(1, {}).get("state") == "ESTABLISHED" and
          a.get(2, {}).get("state") == "ESTABLISHED" and a[1]["port"] == 0 and
          a[2]["port"] == 1 and a[1]["remote"] == "10.0.0.2:5001" and
          a[2]["local"] == "10.0.0.2:5001",
          "after connect: conn 1 (port 0) and conn 2 (port 1) ESTABLISHED")
    check(b.get(1, {}).get("acked") == SENT,
          "conn 1: %d bytes sent and acknowledged (got %s)" %
          (SENT, b.get(1, {}).get("acked")))
    check(b.get(2, {}).get("rx") == SENT,
          "conn 2: %d bytes delivered (got %s)" % (SENT, b.get(2, {}).get("rx")))
    check(b.get(2, {}).get("verify") == "ok", "conn 2: pattern verified ok")
    check(b.get(1, {}).get("state") == "ESTABLISHED", "still ESTABLISHED")
    check(c.get(1, {}).get("state") == "CLOSED" and
          c.get(2, {}).get("state") == "CLOSED", "after close: both CLOSED")
    check(c.get(2, {}).get("rx") == SENT, "byte count kept after close")
check(re.search(r"conn 1: port 0 10\.0\.0\.1:\d+ -> 10\.0\.0\.2:5001 "
                r"connecting", out) is not None, "tcp connect prints the id")
check("conn 1: 2097152 bytes from device memory queued" in out,
      "device send queued")
check(re.search(r"conn 2: closed: 0 bytes sent and acknowledged, %d "
                r"received" % SENT, out) is not None, "close notice")
stats = "".join(o for c, o in cmds if c == "show tcp stats")
m = re.search(r"port 1 TCP stack 10\.0\.0\.2/24\n(.*?)(?:\nport |\Z)", stats,
              re.S)
st1 = dict(re.findall(r"  (\w+): (\d+)", m.group(1))) if m else {}
check(int(st1.get("device_chunks", 0)) > 0 and
      int(st1.get("conns_accepted", 0)) == 1 and
      st1.get("events_overflow") == "0" and st1.get("drop_l4_cksum") == "0",
      "show tcp stats: port 1 received into device memory, no overflow")
bench = [o for c, o in cmds if c == "bench show"]
m = re.search(r"bench: done: 2 x 8388608 bytes, port 0 -> port 1, 2 done, 0 "
              r"failed: 16777216 bytes acknowledged, 16777216 received in "
              r"[0-9.]+ s: ([0-9.]+) Gb/s \(verify ok, 16777216 bytes "
              r"checked\)", bench[0] if bench else "")
check(m is not None and float(m.group(1)) > 0,
      "bench show: 2 x 8 MiB done, verified, Gb/s reported")
check("region cli_tx0:" in out, "show devmem lists the device send buffers")
check("memory from gpu_sim; NIC path: no verbs device for port" in out,
      "show devmem: the region's provider and the NIC registration check")
helps = "".join(o for c, o in cmds if c == "help tcp")
for h in ["tcp listen <tcp_port>", "tcp connect <ip> <tcp_port>",
          "tcp send <conn> <bytes> host|device", "tcp close|abort <conn>"]:
    check(h in helps, "help tcp lists '%s'" % h)

# Error cases: each prints its error, the exit status is 1.
ERR = [("tcp connect 10.0.0.2 5001", "error: tcp connect: no TCP stack: set "
        "ip <port_id> <addr>/<len> and port start <port_id> first"),
       ("tcp listen 5001", "error: tcp listen: no port has an IPv4 address"),
       ("bench start 1 1M", "error: bench start: needs two ports with a TCP "
        "stack"),
       ("set ip 0 10.0.0.1/24", "port 0: IPv4 10.0.0.1/24 (the TCP stack "
        "starts with the port)"),
       ("port start 0", "port 0: TCP stack at 10.0.0.1/24"),
       ("tcp send 7 1M", "error: tcp send: no connection 7 (show tcp conns "
        "lists them)"),
       ("tcp connect 10.0.9.9 5001", "error: tcp connect: no port's subnet "
        "holds 10.0.9.9"),
       ("tcp connect 10.0.0.2 5001", "conn 1: port 0"),
       ("tcp send 1 lots", "error: tcp send: expected a positive byte count"),
       ("tcp abort 1", "conn 1: aborted"),
       ("sleep 50", ""),
       ("tcp send 1 1M", "error: tcp send: connection 1 is closed: aborted"),
       ("tcp close 3", "error: tcp close: no connection 3"),
       ("bench show", "error: bench show: no bench started")]
args = []
for c, _ in ERR:
    args += ["-e", c]
p = subprocess.run([cli] + EAL + vdevs("ce") + ["--"] + args,
                   capture_output=True, text=True, timeout=60)
print(p.stdout)
for c, msg in ERR:
    check(msg in p.stdout, "%r prints %r" % (c, msg))
check(p.returncode == 1, "error cases: exit status 1 (got %d)" % p.returncode)


# Interactive on a pseudo-terminal: TAB completion, stacks polled between keys.
def pty_run():
    cpid, fd = pty.fork()
    if cpid == 0:
        os.execv(cli, [cli] + EAL + vdevs("ci"))
    buf = b""

    def expect(text, timeout=20):
        nonlocal buf
        end = time.time() + timeout
        while time.time() < end:
            if text.encode() in buf:
                return True
            r, _, _ = select.select([fd], [], [], 0.2)
            if r:
                try:
                    buf += os.read(fd, 4096)
                except OSError:
                    break
        return text.encode() in buf

    ok = expect("devtcp> ")
    for line in ["port start 0", "port start 1", "set ip 0 10.0.0.1/24",
                 "set ip 1 10.0.0.2/24", "tcp listen 5001 port 1"]:
        os.write(fd, (line + "\r").encode())
        ok = ok and expect("devtcp> ")
    check(ok, "interactive: ports and stacks up")
    buf = b""
    os.write(fd, b"tcp con\t")
    check(expect("tcp connect"), "interactive: TAB completes 'tcp con' to "
          "'tcp connect'")
    os.write(fd, b" 10.0.0.2 5001\r")
    # The handshake completes only if the stacks run between keystrokes.
    check(expect("conn 2: accepted on port 1"), "interactive: connection "
          "established while the console waits for input")
    os.write(fd, b"quit\r")
    try:
        _, status = os.waitpid(cpid, 0)
    except ChildProcessError:
        status = 0
    print(buf.decode(errors="replace"))
    check(os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0,
          "interactive: quit, exit status 0")


pty_run()
sys.exit(1 if failed else 0)
