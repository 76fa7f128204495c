"""devtcp's programs against socat in the namespace, one transfer a call:
rx_case() (Linux sends, devtcp-server verifies) and tx_case() (devtcp-send
sends, Linux receives), each byte-exact by SHA-256, its capture judged and
its goodput recorded. The case modules vary what these are given.
"""
import os
import re
import signal
import subprocess
import time

from interop_capture import Capture
from interop_harness import (CAPS, DEV_IP, EAL, LNX_IP, MIB, NS, SEND, SERVER,
                             TMP, check, kill, log, results, sh, sha_file,
                             spawn, text_of, wait_text)


SERVER_INI = """[port]
mtu = {mtu}
split = proto
tx_cksum = yes
[port.0]
name = net_hsplit_io
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
window = 2M
{extra}
[consumer]
mode = verify
pattern = none
sha256 = yes
"""

SEND_INI = """[port]
mtu = {mtu}
split = none
[port.0]
name = net_hsplit_io
[client]
port = 0
ipv4 = {dev}
netmask = 255.255.255.0
connect = {lnx}:5002
conns = 1
file = {file}
chunk = 64K
"""


def vdev(faults):
    return "--vdev=net_hsplit_io,iface=%s%s%s" % (
        NS, (",caps=" + CAPS) if CAPS else "", ("," + faults) if faults else "")


def start_server(tag, faults="", extra="", template=None, mtu=1500):
    ini = os.path.join(TMP, tag + ".ini")
    with open(ini, "w") as f:
        f.write((template or SERVER_INI).format(dev=DEV_IP, extra=extra,
                                                mtu=mtu))
    p = spawn([SERVER] + EAL + [vdev(faults), "--vdev=gpu_sim_io,size=256M",
                                "--", "--config", ini, "--drain", "1"],
              out=os.path.join(TMP, tag + ".server"))
    if not wait_text(p, "running (SIGINT", 30):
        log(text_of(p))
        raise RuntimeError("devtcp-server did not start")
    return p


def stop(p, timeout=15):
    kill(p, signal.SIGTERM)
    try:
        rc = p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill(p)
        rc = -9
    return rc


def server_streams(p):
    """[(bytes, sha256)] of the streams devtcp-server closed."""
    return [(int(b), h) for b, h in re.findall(
        r"stream \w+ closed: (\d+) bytes, sha256 ([0-9a-f]{64})", text_of(p))]


def linux_send(files, port=5001, timeout=30, opts=""):
    """socat in the namespace sends each file on its own connection, all in
    parallel (OPTS: more socat address options); returns (seconds, [rc])."""
    t0 = time.time()
    ps = [spawn(["socat", "-u", "OPEN:" + f, "TCP:%s:%d%s" % (DEV_IP, port, opts)],
                ns=True, out=os.path.join(TMP, "socat%d.out" % i))
          for i, f in enumerate(files)]
    rcs = []
    for p in ps:
        try:
            rcs.append(p.wait(timeout=max(1, timeout - (time.time() - t0))))
        except subprocess.TimeoutExpired:
            kill(p)
            rcs.append(-9)
    return time.time() - t0, rcs


def goodput(case, nbytes, secs):
    mbps = nbytes * 8 / secs / 1e6 if secs > 0 else 0
    log("goodput %s: %.1f MiB in %.2f s = %.0f Mb/s" % (case, nbytes / MIB, secs, mbps))
    results.append((case, nbytes, secs, mbps))


def rx_case(case, files, faults="", extra_check=None, allow_bad=False,
            full=False, mtu=1500, timeout=30, before=None, after=None,
            opts=""):
    """Linux socat -> devtcp-server: SHA-256 of every stream as landed in
    device memory equals the file's. before(srv) runs once the server is up,
    after(srv) once the transfer is over (the server still up)."""
    cap = Capture(case, full=full)
    srv = start_server(case, faults, mtu=mtu)
    if before:
        before(srv)
    secs, rcs = linux_send(files, timeout=timeout, opts=opts)
    # The server logs a stream when it closes: wait for all of them.
    end = time.time() + 10
    while time.time() < end and len(server_streams(srv)) < len(files):
        time.sleep(0.1)
    if after:
        after(srv)
    rc = stop(srv)
    cap.stop()
    log(text_of(srv))
    check(all(r == 0 for r in rcs), "%s: socat exit status 0 (%s)" % (case, rcs))
    check(rc == 0, "%s: devtcp-server stopped cleanly (rc %d)" % (case, rc))
    got = sorted(server_streams(srv))
    want = sorted((os.path.getsize(f), sha_file(f)) for f in files)
    check(got == want, "%s: %d stream(s) byte-exact in device memory (SHA-256 "
          "through the CPU alias)%s" % (case, len(files), "" if got == want else
                                        ": got %s want %s" % (got, want)))
    goodput(case, sum(os.path.getsize(f) for f in files), secs)
    cap.judge(case, allow_bad)
    if CAPS == "mlx5":
        out = text_of(srv)
        check("split = proto, but the NIC has no protocol split" in out and
              "falling back to a length split at 66 bytes" in out,
              "%s: caps=mlx5: split = proto fell back to a length split, "
              "said so" % case)
    if extra_check:
        extra_check(srv, cap)
    return srv


def linux_recv_start(out_path):
    p = spawn(["socat", "-u", "TCP-LISTEN:5002,reuseaddr",
               "OPEN:%s,creat,trunc" % out_path], ns=True,
              out=os.path.join(TMP, "recv.socat"))
    # Listening once ss shows the socket.
    end = time.time() + 5
    while time.time() < end:
        if ":5002" in sh(["ss", "-ltn"], ns=True, check_rc=False).stdout:
            break
        time.sleep(0.05)
    return p


def check_tso(case, text, faults):
    """devtcp-send's stack handed net_hsplit TSO bursts, which went to the
    kernel whole as GSO frames (none on caps=notso)."""
    m = re.findall(r"stack TSO so far: (\d+) bursts, (\d+) segments", text)
    b, s = (int(m[-1][0]), int(m[-1][1])) if m else (-1, -1)
    if CAPS == "notso" or "caps=notso" in faults:
        check(b == 0 and s == 0, "%s: no TSO on caps=notso (%d bursts)" %
              (case, b))
    else:
        check(b > 0 and s >= 2 * b, "%s: TSO bursts sent as GSO frames "
              "(%d bursts, %d segments)" % (case, b, s))


def tx_case(case, path, faults="", device=False, allow_bad=False, full=False,
            mtu=1500, extra_check=None, gso_whole=False):
    """devtcp-send -> socat TCP-LISTEN in the namespace: byte-exact.
    gso_whole: veth offloads on, devtcp's GSO frames cross whole (their TCP
    checksums are left partial by the kernel, see judge_pcap())."""
    out = os.path.join(TMP, case + ".recv")
    ini = os.path.join(TMP, case + ".send.ini")
    with open(ini, "w") as f:
        f.write(SEND_INI.format(dev=DEV_IP, lnx=LNX_IP, file=path, mtu=mtu))
    cap = Capture(case, full=full, gso_above=mtu + 14 if gso_whole else 0)
    rcv = linux_recv_start(out)
    # --drain 60, past the 35 s wait below: devtcp-send exits once its
    # connection has closed, not at the end of the drain (it used to wait
    # out its TIME_WAIT, the whole drain, after every transfer).
    snd = spawn([SEND] + EAL + [vdev(faults), "--vdev=gpu_sim_io,size=256M",
                                "--", "--config", ini, "--duration", "30",
                                "--drain", "60"] +
                (["--send-device"] if device else []),
                out=os.path.join(TMP, case + ".send"))
    # Goodput from the moment the sender runs (after EAL and device set-up).
    wait_text(snd, "running (SIGINT", 30)
    t0 = time.time()
    try:
        rc = snd.wait(timeout=35)
    except subprocess.TimeoutExpired:
        kill(snd)
        rc = -9
    secs = time.time() - t0
    try:
        rrc = rcv.wait(timeout=10)
    except subprocess.TimeoutExpired:
        kill(rcv)
        rrc = -9
    cap.stop()
    text = text_of(snd)
    log(text)
    check(rc == 0, "%s: devtcp-send exit status 0 (rc %d)" % (case, rc))
    check(rrc == 0, "%s: socat receiver exit status 0 (rc %d)" % (case, rrc))
    want = sha_file(path)
    m = re.search(r"done: (\d+) of \d+ bytes acknowledged, sha256 ([0-9a-f]{64})", text)
    check(m is not None and m.group(2) == want,
          "%s: devtcp-send's SHA-256 of what it sent is the file's" % case)
    got = sha_file(out) if os.path.exists(out) else "-"
    check(got == want, "%s: Linux received %d bytes byte-exact (SHA-256)" %
          (case, os.path.getsize(out) if os.path.exists(out) else 0))
    if device:
        check("staged in device memory" in text,
              "%s: payload sent from device memory (--send-device)" % case)
    check_tso(case, text, faults)
    # ARP, the handshake and the closing handshake are in secs.
    goodput(case, os.path.getsize(path), secs)
    cap.judge(case, allow_bad)
    if extra_check:
        extra_check(snd, cap)
    return snd
