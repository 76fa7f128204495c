#!/usr/bin/env python3
"""devtcp-cli's testpmd habits on a terminal (a pty): bare 'help', 'all' as
a port, an interactive session that exits 0 after a typo and 'quit', and
SIGINT/SIGTERM that stop the ports, restore the terminal (echo and canonical
mode back on) and exit 0; a SIGTERM'd script stops its ports too.

usage: check_cli_habits.py DEVTCP_CLI
"""
import os
import pty
import select
import signal
import subprocess
import sys
import termios
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
import dtcheck  # noqa: E402

cli = sys.argv[1]
pid = os.getpid()
CK = dtcheck.Checker()
check = CK.check
failed = CK.failures
EAL = ["-l", "0", "--in-memory", "--no-pci", "--log-level=lib.eal:error"]


def vdevs(tag):
    return ["--vdev=net_hsplit_%s%d0,wire=%s%d" % (tag, pid, tag, pid),
            "--vdev=net_hsplit_%s%d1,wire=%s%d" % (tag, pid, tag, pid),
            "--vdev=gpu_sim_%s%d,size=64M" % (tag, pid)]


class Tty:
    def __init__(self, tag):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execv(cli, [cli] + EAL + vdevs(tag))
        self.buf = b""

    def read(self, timeout):
        r, _, _ = select.select([self.fd], [], [], timeout)
        if r:
            try:
                self.buf += os.read(self.fd, 65536)
            except OSError:
                return False
        return True

    def expect(self, text, timeout=20):
        end = time.time() + timeout
        while time.time() < end and text.encode() not in self.buf:
            if not self.read(0.2):
                break
        return text.encode() in self.buf

    def send(self, line):
        self.buf = b""
        os.write(self.fd, (line + "\r").encode())
        return self.expect("devtcp> ")

    def wait(self, timeout=20):
        end = time.time() + timeout
        while time.time() < end:
            self.read(0.1)
            p, st = os.waitpid(self.pid, os.WNOHANG)
            if p == self.pid:
                return os.waitstatus_to_exitcode(st)
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        return None

    def tty_sane(self):
        lflag = termios.tcgetattr(self.fd)[3]
        return bool(lflag & termios.ECHO) and bool(lflag & termios.ICANON)


t = Tty("hq")
check(t.expect("devtcp> "), "interactive: prompt")
check(t.send("help") and b"quit: leave" in t.buf and b"Bad arguments" not in t.buf,
      "bare 'help' lists the commands")
check(t.send("port start all") and t.buf.count(b": started") == 2,
      "'port start all' starts both ports")
check(t.send("show port stats all") and b"port 0 statistics" in t.buf
      and b"port 1 statistics" in t.buf, "'show port stats all' shows both")
check(t.send("show port stats 9") and b"error: no port 9" in t.buf,
      "a bad port is an error")
os.write(t.fd, b"quit\r")
rc = t.wait()
check(rc == 0, "interactive 'quit' after an error exits 0 (rc %s)" % rc)
check(b"port 0: stopped" in t.buf and b"port 1: stopped" in t.buf,
      "quit stops the ports")

for sig in (signal.SIGINT, signal.SIGTERM):
    t = Tty("s%d" % sig)
    ok = t.expect("devtcp> ") and t.send("port start all")
    check(ok and not t.tty_sane(), "%s: console in raw mode while running"
          % sig.name)
    os.kill(t.pid, sig)
    rc = t.wait()
    check(rc == 0, "%s: exits 0 (rc %s)" % (sig.name, rc))
    check(b"port 0: stopped" in t.buf and b"port 1: stopped" in t.buf,
          "%s: ports stopped" % sig.name)
    check(t.tty_sane(), "%s: terminal restored (echo, canonical mode)" % sig.name)

# A script blocked in 'sleep' ends at SIGTERM, ports stopped.
p = subprocess.Popen([cli] + EAL + vdevs("sc") + ["--", "-e", "port start all",
                     "-e", "sleep 30000"], stdout=subprocess.PIPE,
                     stderr=subprocess.STDOUT, text=True)
time.sleep(3)
p.send_signal(signal.SIGTERM)
try:
    out, _ = p.communicate(timeout=20)
except subprocess.TimeoutExpired:
    p.kill()
    out, _ = p.communicate()
check("port 0: stopped" in out and "port 1: stopped" in out,
      "script: SIGTERM during 'sleep' stops the ports")

# rte_flow: validate, UDP items, the RSS action, flush.
FLOWS = [
    "port start all",
    "flow validate 0 ingress pattern eth / ipv4 dst is 10.0.0.1 / udp dst is 53 / end actions queue index 0 / end",
    "flow create 0 ingress pattern eth / ipv4 dst is 10.0.0.1 / udp dst is 53 / end actions queue index 0 / end",
    "flow create 0 ingress pattern eth / ipv4 / tcp dst is 80 / end actions rss queues 0 end / end",
    "flow create 0 ingress pattern eth / ipv4 / tcp dst is 81 / end actions rss / end",
    "flow list 0",
    "flow flush 0",
    "flow list 0",
]
args = [cli] + EAL + vdevs("fl") + ["--"]
for c in FLOWS:
    args += ["-e", c]
p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                   text=True, timeout=60)
out = p.stdout
check(p.returncode == 0, "flow script exits 0 (rc %d)" % p.returncode)
check("Flow rule validated" in out, "flow validate accepts a UDP rule")
check(out.count("Flow rule #") == 3, "UDP, RSS-with-queues and RSS rules created")
check("(3 rules on port 0)" in out and "(0 rules on port 0)" in out
      and "3 rules destroyed" in out, "flow flush destroys the console's rules")
p = subprocess.run([cli] + EAL + vdevs("fb") + [
    "--", "-e", "port start all", "-e",
    "flow validate 0 ingress pattern eth / ipv4 / end actions queue index 9 / end"],
    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
check(p.returncode == 1 and "would refuse the rule" in p.stdout,
      "flow validate of a bad queue fails with the NIC's reason")

# A bench's connections all send at once; closed connections leave the list.
p = subprocess.run([cli] + EAL + vdevs("bn") + [
    "--", "-e", "port start all", "-e", "set ip 0 10.0.0.1/24", "-e",
    "set ip 1 10.0.0.2/24", "-e", "bench start 4 256M", "-e", "sleep 500",
    "-e", "show tcp conns", "-e", "wait 120000", "-e", "show tcp conns",
    "-e", "show tcp conns all"],
    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=180)
out = p.stdout
parts = out.split("devtcp> show tcp conns")
senders = []
if len(parts) >= 2:
    for line in parts[1].splitlines():
        f = line.split()
        if len(f) > 5 and f[0].isdigit() and f[1] == "0" and f[-1] == "bench":
            senders.append(int(f[5]))
check(len(senders) == 4 and all(a > 0 for a in senders),
      "bench start 4: every connection has sent after 500 ms (acked %s)" % senders)
check(len(parts) >= 4 and "no open TCP connection" in parts[2]
      and "8 closed connections not shown" in parts[2],
      "show tcp conns leaves closed connections out")
check(len(parts) >= 4 and parts[3].count("CLOSED") == 8,
      "show tcp conns all lists the closed ones")

print("%d failed" % len(failed))
sys.exit(1 if failed else 0)
