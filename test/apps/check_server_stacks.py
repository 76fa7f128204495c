#!/usr/bin/env python3
"""devtcp-server with several stacks, 8 Linux clients over a veth pair.

usage: check_server_stacks.py SERVER NETNS_SH STACKS [FAULTS]

A test host (network namespace with one end of a veth, scripts/netns.sh)
runs 8 socat clients that each send a random file at once to devtcp-server,
which owns the other end through net_hsplit's iface= backend with STACKS
stacks (one RX/TX queue pair each, RSS across them, lcores mapped onto the
machine's CPUs with --lcores). Checks: every stream lands byte-exact in
device memory (the verify consumer's SHA-256 through the CPU alias equals
the file's), RSS spread the connections over at least two stacks, and every
drop counter of every stack is 0 (the server's exit report per stack).
FAULTS (e.g. "loss=0.01,rx_loss=0.01"): net_hsplit drops that share of the
frames each way; every stream must still be byte-exact, and only the
drops the wire caused may show (none of lib/dp's counters but no_conn).
Exit 77 (skip) when not root or when namespaces, veth or socat are missing.
"""
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
import dtcheck  # noqa: E402

SERVER, NETNS_SH, STACKS = sys.argv[1], sys.argv[2], int(sys.argv[3])
FAULTS = sys.argv[4] if len(sys.argv) > 4 else ""
PID = os.getpid()
NS = "dtss%d" % (PID % 100000)
DEV_IP, LNX_IP = "10.77.0.1", "10.77.0.2"
CLIENTS, SIZE = 8, 2 << 20
LCORES = ",".join("%d@%d" % (i, i % 2) for i in range(STACKS))
TMP = tempfile.mkdtemp(prefix="dtsrvstacks")
procs = []
CK = dtcheck.Checker()
check = CK.check
failed = CK.failures

INI = """[port]
mtu = 1500
split = proto
tx_cksum = yes
[port.0]
name = net_hsplit_ss{pid}
[lcores]
stack_lcores = {stacks}
[stack]
port = 0
ipv4 = {dev}
netmask = 255.255.255.0
listen = 5001
[devmem]
gpu = 0
buffers = 16384
buffer_size = 2048
header_buffers = 16384
[limits]
window = 512K
[consumer]
mode = verify
pattern = none
sha256 = yes
"""


def log(msg):
    print(msg, flush=True)


def spawn(cmd, ns=False, out=None):
    if ns:
        cmd = ["ip", "netns", "exec", NS] + cmd
    f = open(out, "w") if out else subprocess.DEVNULL
    p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL, start_new_session=True)
    p.out_path = out
    procs.append(p)
    return p


def kill(p, sig=signal.SIGKILL):
    try:
        os.killpg(p.pid, sig)
    except ProcessLookupError:
        pass


def cleanup():
    for p in procs:
        if p.poll() is None:
            kill(p)
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
    subprocess.run([NETNS_SH, "down", NS], capture_output=True)
    shutil.rmtree(TMP, ignore_errors=True)


def on_term(sig, frame):
    log("interrupted (signal %d): cleaning up" % sig)
    cleanup()
    sys.exit(1)


def text_of(p):
    return open(p.out_path).read()


def wait_text(p, text, timeout):
    end = time.time() + timeout
    while time.time() < end:
        if text in text_of(p) or p.poll() is not None:
            break
        time.sleep(0.05)
    return text in text_of(p)


def skip(why):
    log("SKIP: " + why)
    cleanup()
    sys.exit(77)


def main():
    signal.signal(signal.SIGTERM, on_term)
    if os.geteuid() != 0:
        skip("needs root (network namespaces, AF_PACKET)")
    if shutil.which("socat") is None:
        skip("socat not installed (scripts/setup.sh installs it)")
    p = subprocess.run([NETNS_SH, "check"], capture_output=True, text=True)
    if p.returncode != 0:
        skip("network namespaces unavailable: " + p.stdout.strip())
    subprocess.run([NETNS_SH, "up", NS, "--addr", LNX_IP + "/24", "--mtu",
                    "1500"], check=True, capture_output=True)
    files = []
    for i in range(CLIENTS):
        path = os.path.join(TMP, "f%d" % i)
        with open(path, "wb") as f:
            f.write(os.urandom(SIZE))
        files.append(path)
    want = sorted((SIZE, hashlib.sha256(open(f, "rb").read()).hexdigest())
                  for f in files)
    ini = os.path.join(TMP, "server.ini")
    with open(ini, "w") as f:
        f.write(INI.format(pid=PID, dev=DEV_IP, stacks=",".join(
            str(i) for i in range(STACKS))))
    vdev = "--vdev=net_hsplit_ss%d,iface=%s%s" % (PID, NS,
                                                  ("," + FAULTS) if FAULTS else "")
    cmd = [SERVER, "--lcores", LCORES, "--in-memory", "--no-pci", "-m", "512",
           "--log-level=lib.eal:warning", vdev,
           "--vdev=gpu_sim_ss%d,size=128M" % PID, "--", "--config", ini,
           "--drain", "1"]
    log(" ".join(cmd))
    srv = spawn(cmd, out=os.path.join(TMP, "server.log"))
    if not wait_text(srv, "running (SIGINT", 60):
        log(text_of(srv))
        check(False, "devtcp-server started")
        return
    t0 = time.time()
    cl = [spawn(["socat", "-u", "OPEN:" + f, "TCP:%s:5001" % DEV_IP], ns=True,
                out=os.path.join(TMP, "socat%d.out" % i))
          for i, f in enumerate(files)]
    rcs = []
    for p in cl:
        try:
            rcs.append(p.wait(timeout=max(1, 90 - (time.time() - t0))))
        except subprocess.TimeoutExpired:
            kill(p)
            rcs.append(-9)
    streams = []
    end = time.time() + 15
    while time.time() < end:
        streams = [(int(b), h) for b, h in re.findall(
            r"stream \w+ closed: (\d+) bytes, sha256 ([0-9a-f]{64})",
            text_of(srv))]
        if len(streams) >= CLIENTS:
            break
        time.sleep(0.1)
    kill(srv, signal.SIGTERM)
    try:
        rc = srv.wait(timeout=20)
    except subprocess.TimeoutExpired:
        kill(srv)
        rc = -9
    text = text_of(srv)
    log(text)
    check(all(r == 0 for r in rcs), "socat clients exit status 0 (%s)" % rcs)
    check(rc == 0, "devtcp-server stopped cleanly (rc %d)" % rc)
    check(sorted(streams) == want, "%d streams byte-exact in device memory "
          "(SHA-256)%s" % (CLIENTS, "" if sorted(streams) == want else
                           ": got %d of them right" %
                           len(set(streams) & set(want))))
    reps = re.findall(r"stack (\d+) \(server, queue \d+\): \d+ frames in, (\d+) "
                      r"connections accepted, \d+ connected; drops:(.*)", text)
    check(len(reps) == STACKS, "an exit report per server stack (%d of %d)" %
          (len(reps), STACKS))
    acc = [int(a) for _, a, _ in reps]
    check(sum(acc) == CLIENTS, "every connection accepted once (%s)" % acc)
    check(sum(1 for a in acc if a > 0) >= 2,
          "RSS spread the connections over the stacks (%s)" % acc)
    for q, _, drops in reps:
        names = drops.split()[::2]
        if FAULTS:
            bad = [d for d in names if d not in ("none", "drop_no_conn")]
        else:
            bad = [d for d in names if d != "none"]
        check(not bad, "stack %s: no drop%s (%s)" %
              (q, " but no_conn (lossy wire)" if FAULTS else "", drops.strip()))


try:
    main()
finally:
    cleanup()
sys.exit(1 if failed else 0)
