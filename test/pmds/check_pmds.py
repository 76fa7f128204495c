#!/usr/bin/env python3
"""devtcp on DPDK's own PMDs (not net_hsplit), against a Linux peer in a
network namespace over a veth pair.

usage: check_pmds.py SERVER SEND NETNS_SH PMDDIR CASE
cases:
  af_xdp_rx   Linux (socat) -> devtcp-server on net_af_xdp: 16 MiB of random
              bytes, SHA-256 equal; the port has no multi-segment TX and
              must not be refused for it (it only sends ACKs).
  af_xdp_tx   devtcp-send on net_af_xdp -> Linux (socat): a 16 MiB file,
              SHA-256 equal: frames written into one buffer.
  af_packet_rx, tap_rx  as af_xdp_rx on net_af_packet and net_tap.
Exit 77 when not root, or the PMD, namespaces or socat are missing.
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

SERVER, SEND, NETNS_SH, PMDDIR, CASE = sys.argv[1:6]
# Started from / (EAL refuses -d plugins under world-writable folders).
SERVER, SEND = os.path.abspath(SERVER), os.path.abspath(SEND)
NS = "dtpmd%d" % (os.getpid() % 100000)
DEV_IP, LNX_IP = "10.84.0.1", "10.84.0.2"
TMP = tempfile.mkdtemp(prefix="dtpmds")
EAL = ["-l", "0-1", "--in-memory", "--no-pci", "--log-level=lib.eal:warning"]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
import dtcheck  # noqa: E402
from dtcheck import Checker  # noqa: E402

CK = Checker(NS)
procs = CK.procs
failures = CK.failures

INI_PORT = """[port]
mtu = 1500
split = none
tx_cksum = no
[port.0]
name = {name}
"""
SERVER_INI = INI_PORT + """[stack]
port = 0
ipv4 = {dev}
listen = 5001
[devmem]
gpu = host
[consumer]
mode = verify
pattern = none
sha256 = yes
"""
SEND_INI = INI_PORT + """[client]
port = 0
ipv4 = {dev}
connect = {lnx}:5002
conns = 1
file = {file}
chunk = 64K
"""


log = Checker.log


def check(cond, what):
    return CK.check(cond, what)


def skip(why):
    CK.skip(why, cleanup)


def cleanup():
    CK.kill_all()
    subprocess.run([NETNS_SH, "down", NS], capture_output=True)
    shutil.rmtree(TMP, ignore_errors=True)


def spawn(cmd, out, ns=False):
    return CK.spawn(cmd, out=out, ns=ns, cwd="/")


text = dtcheck.text


def sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def vdev(pmd):
    """EAL arguments that bring up @p pmd on the veth's root end."""
    so = os.path.join(PMDDIR, "librte_net_%s.so" % pmd)
    if not os.path.exists(so):
        skip("%s not found" % so)
    name = {"af_xdp": "net_af_xdp0", "af_packet": "net_af_packet0",
            "tap": "net_tap0"}[pmd]
    args = {"af_xdp": "iface=%s,start_queue=0,queue_count=1" % NS,
            "af_packet": "iface=%s" % NS,
            "tap": "iface=dttap%d" % (os.getpid() % 10000)}[pmd]
    return name, ["-d", so, "--vdev=%s,%s" % (name, args)]


def rx_case(pmd):
    name, eal = vdev(pmd)
    if pmd == "tap":
        skip("net_tap makes its own interface, not on the test host's veth")
    ini = os.path.join(TMP, "srv.ini")
    open(ini, "w").write(SERVER_INI.format(name=name, dev=DEV_IP))
    srv = spawn([SERVER] + EAL + eal + ["--", "--config", ini, "--drain", "1"],
                os.path.join(TMP, "srv.log"))
    end = time.time() + 40
    while "running (SIGINT" not in text(srv) and srv.poll() is None and time.time() < end:
        time.sleep(0.1)
    check("running (SIGINT" in text(srv), "devtcp-server starts on %s" % name)
    if "running (SIGINT" not in text(srv):
        log(text(srv)[-3000:])
        return
    f = os.path.join(TMP, "data")
    open(f, "wb").write(os.urandom(16 << 20))
    snd = spawn(["socat", "-u", "OPEN:" + f, "TCP:%s:5001" % DEV_IP],
                os.path.join(TMP, "socat.log"), ns=True)
    try:
        rc = snd.wait(timeout=60)
    except subprocess.TimeoutExpired:
        rc = None
    check(rc == 0, "the Linux sender finished (rc %s)" % rc)
    time.sleep(0.5)
    os.killpg(srv.pid, signal.SIGTERM)
    srv.wait(timeout=20)
    got = re.findall(r"closed: (\d+) bytes, sha256 ([0-9a-f]{64})", text(srv))
    check(got == [(str(16 << 20), sha(f))],
          "16 MiB received on %s, SHA-256 equal (%s)" % (name, got))
    if pmd == "af_xdp":
        check("no multi-segment TX" in text(srv),
              "the start-up log says what the stack does without multi-segment TX")
    check(srv.returncode == 0, "server exit 0 (%s)" % srv.returncode)


def tx_case(pmd):
    name, eal = vdev(pmd)
    f = os.path.join(TMP, "data")
    open(f, "wb").write(os.urandom(16 << 20))
    out = os.path.join(TMP, "recv")
    lsn = spawn(["socat", "-u", "TCP-LISTEN:5002,reuseaddr", "OPEN:%s,creat,trunc" % out],
                os.path.join(TMP, "socat.log"), ns=True)
    time.sleep(0.5)
    ini = os.path.join(TMP, "send.ini")
    open(ini, "w").write(SEND_INI.format(name=name, dev=DEV_IP, lnx=LNX_IP, file=f))
    snd = spawn([SEND] + EAL + eal + ["--", "--config", ini, "--drain", "2"],
                os.path.join(TMP, "send.log"))
    try:
        rc = snd.wait(timeout=90)
    except subprocess.TimeoutExpired:
        rc = None
    check(rc == 0, "devtcp-send on %s finished (rc %s)" % (name, rc))
    try:
        lsn.wait(timeout=20)
    except subprocess.TimeoutExpired:
        pass
    check(os.path.exists(out) and sha(out) == sha(f),
          "Linux received the 16 MiB file byte-exact")
    if rc != 0 or failures:
        log(text(snd)[-3000:])


def main():
    if os.geteuid() != 0:
        skip("needs root")
    if shutil.which("socat") is None:
        skip("socat is missing")
    r = subprocess.run([NETNS_SH, "up", NS, "--addr", LNX_IP + "/24", "--mtu", "1500"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        skip("cannot make the test host: " + r.stderr.strip())
    try:
        pmd, way = CASE.rsplit("_", 1)
        (rx_case if way == "rx" else tx_case)(pmd)
    except Exception as e:
        failures.append(repr(e))
        log("FAIL %r" % e)
    finally:
        cleanup()
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
