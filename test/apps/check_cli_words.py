#!/usr/bin/env python3
"""devtcp-cli takes testpmd's words, suggests the nearest command on a bad
one, and ends on SIGINT/SIGTERM whatever its commands come from.

usage: check_cli_words.py DEVTCP_CLI

- testpmd's forms: set rxhdrs ipv4-tcp and set rxpkts 64,2048 (no port
  id: every port), show port summary all, set promisc all on, show config
  rxtx, start, stop; show port stats has testpmd's throughput block (rates
  since the last show); port start on a started port says so, no error;
- without a GPU, port start says the payload goes to host memory;
- a mistyped command: the nearest one is printed, in a script and on a
  terminal (after cmdline's own "Command not found");
- SIGINT and SIGTERM end the console when its commands come from a pipe
  that stays open (sleep 100 | devtcp-cli) and from a --cmdfile in a long
  sleep: exit 0, ports stopped.
"""
import os
import pty
import select
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
import dtcheck  # noqa: E402

cli = sys.argv[1]
pid = os.getpid()
CK = dtcheck.Checker(tail=3000)
check = CK.check
failed = CK.failures
EAL = ["-l", "0", "--in-memory", "--no-pci", "--log-level=lib.eal:error"]


def vdevs(tag):
    return ["--vdev=net_hsplit_%s%d0,wire=%s%d" % (tag, pid, tag, pid),
            "--vdev=net_hsplit_%s%d1,wire=%s%d" % (tag, pid, tag, pid),
            "--vdev=gpu_sim_%s%d,size=64M" % (tag, pid)]


def script(tag, cmds):
    args = [cli] + EAL + vdevs(tag) + ["--"]
    for c in cmds:
        args += ["-e", c]
    p = subprocess.run(args, capture_output=True, text=True, timeout=120,
                       stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout + p.stderr


def testpmd_forms():
    rc, out = script("tw", [
        "set rxhdrs ipv4-tcp", "set rxpkts 64,2048", "show port summary all",
        "set promisc all on", "start", "port start 1", "show config rxtx",
        "show port stats 0", "sleep 300", "show port stats 0", "stop"])
    for want in ["port 0: rxhdrs = ipv4-tcp", "port 1: rxhdrs = ipv4-tcp",
                 "port 0: rxpkts = 64,2048", "port 1: rxpkts = 64,2048",
                 "Number of available ports: 2", "port 1: promiscuous mode on",
                 "port 0: started (protocol split",
                 "port 1: already started (port stop first",
                 "port 1: started, protocol split after ipv4-tcp",
                 "RX queues: 1, TX queues: 1", "Throughput (since last show",
                 "Rx-pps:", "Tx-bps:", "(ports stay started"]:
        check(want in out, "testpmd's words: %r" % want, out)
    check(rc == 0 and "error: " not in out,
          "testpmd's words: no error, exit 0 (rc %d)" % rc, out)


def no_gpu_says_host():
    args = [cli] + EAL + vdevs("tg")[:2] + ["--", "-e", "set rxhdrs 1 ipv4-tcp",
                                            "-e", "port start 1", "-e", "show devmem"]
    p = subprocess.run(args, capture_output=True, text=True, timeout=60,
                       stdin=subprocess.DEVNULL)
    check("port 1: started (protocol split, payload in host memory: no GPU"
          in p.stdout and "payload in device memory" not in p.stdout,
          "without a GPU, port start says host memory as show devmem does",
          p.stdout)


def nearest_scripted():
    rc, out = script("tn", ["show port summry all", "set rxhdr 0 ipv4-tcp"])
    check(rc == 1 and "nearest command: show port summary all" in out,
          "a typo in a script: the nearest command is printed", out)
    check("nearest command: set rxhdrs <port_id>" in out,
          "'set rxhdr 0 ipv4-tcp': nearest 'set rxhdrs <port_id> ...'", out)


def nearest_terminal():
    child, fd = pty.fork()
    if child == 0:
        os.execv(cli, [cli] + EAL + vdevs("tt"))
    buf = b""
    end = time.time() + 30
    sent = False
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                buf += os.read(fd, 65536)
            except OSError:
                break
        if not sent and b"devtcp> " in buf:
            os.write(fd, b"shwo port summary all\r")
            sent = True
        if b"nearest command" in buf and buf.endswith(b"devtcp> "):
            break
    os.write(fd, b"quit\r")
    os.waitpid(child, 0)
    text = buf.decode(errors="replace")
    check("Command not found" in text and
          "nearest command: show port summary all" in text,
          "a typo on a terminal: the nearest command after cmdline's message",
          text)


def signal_ends(mode, sig):
    tmp = tempfile.mkdtemp(prefix="dtcliw")
    args = [cli] + EAL + vdevs("sg%d" % sig) + ["--"]
    stdin = None
    if mode == "cmdfile":
        cmdfile = os.path.join(tmp, "long.cmd")
        with open(cmdfile, "w") as f:
            f.write("port start all\nsleep 100000\n")
        args += ["--cmdfile", cmdfile]
        stdin = subprocess.DEVNULL
    else:
        stdin = subprocess.PIPE
    p = subprocess.Popen(args, stdin=stdin, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    if mode == "pipe":
        p.stdin.write("port start all\n")
        p.stdin.flush()
    time.sleep(4)
    p.send_signal(sig)
    # The pipe stays open (communicate() would close it: an EOF, not the
    # signal, would end the console).
    try:
        rc = p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = None
    out, _ = p.communicate()
    name = signal.Signals(sig).name
    check(rc == 0 and "stopping ports" in out and "port 1: stopped" in out,
          "%s in %s mode: ports stopped, exit 0 (rc %s)" % (name, mode, rc), out)
    subprocess.run(["rm", "-rf", tmp])


testpmd_forms()
no_gpu_says_host()
nearest_scripted()
nearest_terminal()
for mode in ("pipe", "cmdfile"):
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal_ends(mode, sig)
print("%d failed" % len(failed))
sys.exit(1 if failed else 0)
