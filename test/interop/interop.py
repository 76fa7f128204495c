#!/usr/bin/env python3
"""devtcp against unmodified Linux TCP peers over a veth pair.

usage: interop.py SERVER SEND NETNS_SH CASE [CASE ...]
       interop.py SERVER SEND NETNS_SH --list

A test host (network namespace with one end of a veth, scripts/netns.sh)
runs Linux tools (socat, the kernel's TCP); devtcp-server or devtcp-send
owns the other end through net_hsplit's iface= backend. Every case:
  - checks the bytes end to end with SHA-256 (devtcp-server's verify
    consumer hashes each stream through the payload region's CPU alias;
    devtcp-send logs the hash of what it sent; sha256sum on the Linux side);
  - captures the veth in the namespace (tcpdump, whole frames) and fails
    when tshark finds a malformed frame, a bad IPv4 or TCP checksum or an
    expert error in what devtcp sent (10.78.0.1), except where the case
    corrupts devtcp's frames on purpose;
  - prints goodput (bytes / seconds of the transfer, wall clock).
Faults: net_hsplit's devargs inject them per frame, on frames devtcp sends
(loss=, dup=, reorder=, corrupt=) and on frames it receives from the
interface (rx_loss=, rx_dup=, rx_reorder=, rx_corrupt=), so both directions
of every connection see them. kernel_loss uses nftables in the namespace
instead (numgen random), independent of the NIC. netem cases run only where
the kernel has sch_netem (skip, exit 77, with the reason otherwise).
DT_INTEROP_CAPS=full|mlx5|ice in the environment: net_hsplit's capability
profile (caps= devarg) for devtcp's port, so the cases run against what
mlx5 or ice report for buffer split; on mlx5 the server must say that it
falls back from split = proto to a length split.
Every exit path (failure, exception, SIGTERM from meson's timeout) kills the
process groups the test started and removes the namespace. Exit 77 (skip)
when not root or when namespaces, veth, socat, tcpdump or tshark are missing.
"""
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
import dtcheck  # noqa: E402

SERVER, SEND, NETNS_SH = sys.argv[1:4]
CASES_ARGS = sys.argv[4:]
PID = os.getpid()
NS = "dtio%d" % (PID % 100000)
DEV_IP, LNX_IP = "10.78.0.1", "10.78.0.2"
MIB = 1 << 20
# One lcore: the stack runs on the main lcore and leaves the other core of a
# small machine to the Linux peer (two polling lcores would starve it).
EAL = ["-l", "1", "--in-memory", "--no-pci", "--log-level=lib.eal:warning"]
CAPS = os.environ.get("DT_INTEROP_CAPS", "")
if CAPS not in ("", "full", "mlx5", "ice", "notso"):
    sys.exit("DT_INTEROP_CAPS=%s: need full, mlx5, ice or notso" % CAPS)
TMP = tempfile.mkdtemp(prefix="dtinterop")
procs = []          # Popen objects whose process groups we own
CK = dtcheck.Checker()
check = CK.check
failed = CK.failures
results = []        # (case, what, value) for the summary


def log(msg):
    print(msg, flush=True)


def skip(why):
    log("SKIP: " + why)
    cleanup()
    sys.exit(77)


def sh(cmd, ns=False, check_rc=True, timeout=60, **kw):
    if ns:
        cmd = ["ip", "netns", "exec", NS] + cmd
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    if check_rc and p.returncode != 0:
        raise RuntimeError("%s: rc %d: %s" % (" ".join(cmd), p.returncode,
                                             p.stderr.strip()))
    return p


def spawn(cmd, ns=False, out=None, stdin=None):
    if ns:
        cmd = ["ip", "netns", "exec", NS] + cmd
    f = open(out, "w") if out else subprocess.DEVNULL
    p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT,
                         stdin=stdin if stdin is not None else subprocess.DEVNULL,
                         start_new_session=True)
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
    if os.environ.get("DT_INTEROP_KEEP"):
        log("kept captures and logs in " + TMP)
    else:
        shutil.rmtree(TMP, ignore_errors=True)


def on_term(sig, frame):
    log("interrupted (signal %d): cleaning up" % sig)
    cleanup()
    sys.exit(1)


def text_of(p):
    return open(p.out_path).read() if p.out_path else ""


def wait_text(p, text, timeout):
    end = time.time() + timeout
    while time.time() < end:
        if text in text_of(p):
            return True
        if p.poll() is not None:
            return text in text_of(p)
        time.sleep(0.05)
    return False


def rand_file(name, size):
    path = os.path.join(TMP, name)
    with open(path, "wb") as f:
        f.write(os.urandom(size))
    return path


def sha_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


# ---------------------------------------------------------------- set-up

def preflight():
    if os.geteuid() != 0:
        skip("needs root (network namespaces, AF_PACKET)")
    for t in ("socat", "tcpdump", "tshark", "mergecap", "ip", "ethtool"):
        if shutil.which(t) is None:
            skip("%s not installed (scripts/setup.sh installs it)" % t)
    p = subprocess.run([NETNS_SH, "check"], capture_output=True, text=True)
    if p.returncode != 0:
        skip("network namespaces unavailable: " + p.stdout.strip())
    sh([NETNS_SH, "up", NS, "--addr", LNX_IP + "/24", "--mtu", "1500"])


def have_nft():
    if shutil.which("nft") is None:
        return "nft not installed (scripts/setup.sh installs nftables)"
    p = sh(["nft", "add", "table", "inet", "dtprobe"], ns=True, check_rc=False)
    sh(["nft", "delete", "table", "inet", "dtprobe"], ns=True, check_rc=False)
    return None if p.returncode == 0 else "nf_tables unavailable: " + p.stderr.strip()


def nft(rules):
    p = subprocess.run(["ip", "netns", "exec", NS, "nft", "-f", "-"],
                       input=rules, capture_output=True, text=True, timeout=20)
    if p.returncode != 0:
        raise RuntimeError("nft: " + p.stderr.strip())


def nft_flush():
    sh(["nft", "flush", "ruleset"], ns=True, check_rc=False)


# ---------------------------------------------------------------- capture

# tshark options that leave TCP payload undissected: random payload must not
# be guessed as some protocol (heuristics, well-known ports) and then
# reported malformed. Decode-as "data" on every port a case listens on makes
# TCP's port lookup match first, so no heuristic dissector ever runs on it
# (Debian's tshark has no --disable-heuristic names matching
# "tshark -G heuristic-decodes": those are protocol names, and naming one
# makes tshark exit 1 with no output). Only the headers are judged.
NO_PAYLOAD = ["-o", "tcp.try_heuristic_first:FALSE"] + [
    x for port in (5001, 5002, 5201, 5999) for x in ("-d", "tcp.port==%d,data" % port)]
# Wireshark's expert severity of an error (PI_ERROR).
PI_ERROR = 0x00800000
JUDGE_FIELDS = ["frame.number", "ip.src", "ip.proto", "ip.checksum.status",
                "tcp.checksum.status", "_ws.malformed", "_ws.expert.severity",
                "frame.len"]


class CaptureError(RuntimeError):
    pass


def judge_pcap(path, gso_above=0):
    """Every frame of a pcap judged by tshark: {source IP: {"frames",
    "tcp", "bad_ip", "bad_tcp", "malformed", "errors", "bad" (frames with
    any of those), "first"}}. Fails
    (CaptureError) when tshark exits non-zero, prints nothing for a capture
    that holds frames, prints a line per frame other than the frame count
    (capinfos), or verifies no TCP checksum at all: a judge that cannot see
    a bad frame must not report none. gso_above: TCP frames longer than
    this are GSO frames that crossed a veth whole, whose checksum field the
    kernel left as the pseudo-header sum for the receiver (CHECKSUM_PARTIAL,
    as in Linux's own): their TCP checksum is not judged ("gso_partial")."""
    p = sh(["tshark", "-n", "-r", path] + NO_PAYLOAD +
           ["-o", "tcp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE",
            "-o", "tcp.analyze_sequence_numbers:FALSE",
            "-o", "tcp.desegment_tcp_streams:FALSE",
            "-T", "fields", "-E", "separator=/t", "-E", "occurrence=a",
            "-E", "aggregator=,"] + sum((["-e", f] for f in JUDGE_FIELDS), []),
           check_rc=False, timeout=180)
    if p.returncode != 0:
        raise CaptureError("tshark on %s: rc %d: %s" % (
            os.path.basename(path), p.returncode, p.stderr.strip()[-300:]))
    c = sh(["capinfos", "-M", "-c", path], check_rc=False)
    m = re.search(r"Number of packets:\s+(\d+)", c.stdout)
    if c.returncode != 0 or m is None:
        raise CaptureError("capinfos on %s: rc %d: %s" % (
            os.path.basename(path), c.returncode, (c.stdout + c.stderr)[-300:]))
    want = int(m.group(1))
    lines = [l for l in p.stdout.split("\n") if l != ""]
    if len(lines) != want:
        raise CaptureError("tshark printed %d lines for the %d frames of %s" %
                           (len(lines), want, os.path.basename(path)))
    out = {}
    verified = 0
    for l in lines:
        f = l.split("\t")
        if len(f) != len(JUDGE_FIELDS) or not f[0].isdigit():
            raise CaptureError("tshark line with %d fields, want %d: %r" %
                               (len(f), len(JUDGE_FIELDS), l[:200]))
        num, src, proto, ipck, tcpck, malformed, sev, flen = f
        d = out.setdefault(src or "-", {"frames": 0, "tcp": 0, "bad_ip": 0,
                                        "bad_tcp": 0, "malformed": 0,
                                        "errors": 0, "bad": 0, "first": [],
                                        "gso_partial": 0})
        d["frames"] += 1
        bad = []
        if (gso_above and proto == "6" and tcpck == "0" and flen.isdigit()
                and int(flen) > gso_above):
            d["gso_partial"] += 1
            tcpck, sev = "2", ""
        if ipck == "0":
            d["bad_ip"] += 1
            bad.append("bad IPv4 checksum")
        if proto == "6":
            d["tcp"] += 1
            if tcpck in ("0", "1"):
                verified += 1
            if tcpck == "0":
                d["bad_tcp"] += 1
                bad.append("bad TCP checksum")
        if malformed:
            d["malformed"] += 1
            bad.append("malformed")
        if any(int(x) >= PI_ERROR for x in sev.split(",") if x.isdigit()):
            d["errors"] += 1
            bad.append("expert error")
        if bad:
            d["bad"] += 1
            if len(d["first"]) < 5:
                d["first"].append("frame %s: %s" % (num, ", ".join(bad)))
    if any(d["tcp"] for d in out.values()) and verified == 0:
        raise CaptureError("tshark verified no TCP checksum in %s" %
                           os.path.basename(path))
    return out


def bad_frames(d):
    """Frames with any of: bad IPv4 or TCP checksum, malformed, expert error."""
    return d["bad"]


class Capture:
    """tcpdump on eth0 in the namespace: devtcp's frames whole (their
    checksums are judged), the Linux peer's headers only (for counting
    flags and tshark's TCP analysis), or whole too with full=True (then
    they are judged as well); tshark judges devtcp's frames."""

    def __init__(self, tag, full=False, gso_above=0):
        self.dev = os.path.join(TMP, tag + ".dev.pcap")
        self.lnx = os.path.join(TMP, tag + ".lnx.pcap")
        self.path = os.path.join(TMP, tag + ".pcap")
        self.full = full
        self.gso_above = gso_above
        # --immediate-mode: no TPACKET_V3 block batching, whose last partial
        # block tcpdump would drop when SIGINT stops it.
        self.ps = [spawn(["tcpdump", "-i", "eth0", "-n", "--immediate-mode",
                          "-s", snap, "-B", "32768",
                          "-U", "-w", path, flt], ns=True,
                         out=os.path.join(TMP, "%s.%d.tcpdump" % (tag, i)))
                   for i, (snap, path, flt) in enumerate((
                       ("0", self.dev, "src host " + DEV_IP),
                       ("0" if full else "128", self.lnx,
                        "not src host " + DEV_IP)))]
        for p in self.ps:
            wait_text(p, "listening on", 5)
        self.merged = False

    def stop(self):
        time.sleep(0.2)
        self.kdrop = 0
        for p in self.ps:
            kill(p, signal.SIGINT)
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                kill(p)
            m = re.search(r"(\d+) packets? dropped by kernel", text_of(p))
            self.kdrop += int(m.group(1)) if m else 0
        if self.kdrop:
            log("info: tcpdump lost %d frames (judged what it kept)" % self.kdrop)

    def judged(self, which="dev"):
        """judge_pcap() of devtcp's frames ("dev") or Linux's ("lnx", whole
        frames only with full=True), for the frames of that source."""
        src = DEV_IP if which == "dev" else LNX_IP
        d = judge_pcap(self.dev if which == "dev" else self.lnx,
                       self.gso_above)
        return d.get(src, {"frames": 0, "tcp": 0, "bad_ip": 0, "bad_tcp": 0,
                           "malformed": 0, "errors": 0, "bad": 0, "first": []})

    def bad_from_devtcp(self):
        """devtcp's frames that are malformed, carry a bad IPv4 or TCP
        checksum or an expert error; returns (count, first few lines)."""
        d = self.judged("dev")
        return bad_frames(d), d["first"]

    def count(self, flt):
        """Frames of both directions matching a tshark display filter."""
        if not self.merged:
            sh(["mergecap", "-F", "pcap", "-w", self.path, self.dev, self.lnx],
               check_rc=False)
            self.merged = True
        p = sh(["tshark", "-n", "-r", self.path, "-Y", flt], check_rc=False,
               timeout=120)
        if p.returncode != 0:
            raise CaptureError("tshark -Y %r: rc %d: %s" % (
                flt, p.returncode, p.stderr.strip()[-300:]))
        return len([l for l in p.stdout.splitlines() if l.strip()])

    def judge(self, case, allow_bad=False):
        try:
            n, first = self.bad_from_devtcp()
        except CaptureError as e:
            check(False, "%s: capture judged (%s)" % (case, e))
            return
        if allow_bad:
            log("info: %d frames from devtcp with bad checksums (corrupted on "
                "purpose by the NIC after checksumming)" % n)
            return
        check(n == 0, "%s: capture: no malformed frame or bad checksum from "
              "devtcp (%d found%s%s)" % (case, n, ": " if first else "",
                                       " | ".join(first)))


# ---------------------------------------------------------------- programs

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
    snd = spawn([SEND] + EAL + [vdev(faults), "--vdev=gpu_sim_io,size=256M",
                                "--", "--config", ini, "--duration", "30"] +
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


# ---------------------------------------------------------------- cases

def case_rx_1():
    rx_case("rx_1", [rand_file("f64", 64 * MIB)])


def frames_in(srv):
    """Frames devtcp-server's stacks took in (their exit lines)."""
    return sum(int(n) for n in re.findall(r"(\d+) frames in", text_of(srv)))


def gro_state():
    out = sh(["ethtool", "-k", NS], check_rc=False).stdout
    m = re.search(r"generic-receive-offload: (\w+)", out)
    return m.group(1) if m else "?"


def case_rx_gro():
    """iface_gro= (net_hsplit): with its default (on) the port turns GRO on
    on its interface while it runs (netns.sh left it off), the veth
    coalesces Linux's MTU segments before AF_PACKET and devtcp takes them
    through LRO: byte-exact, far fewer frames than segments, GRO off again
    once the port stopped. With iface_gro=off, the path before: one frame
    per segment, byte-exact."""
    size = 32 * MIB
    f = rand_file("gro", size)
    segs = size // 1448

    def on(srv, cap):
        n = frames_in(srv)
        check("GRO on %s turned on" % NS in text_of(srv),
              "rx_gro: net_hsplit turned the interface's GRO on (logged)")
        check(0 < n < segs // 2, "rx_gro: coalesced: %d frames in for %d "
              "MTU segments" % (n, segs))
        check(gro_state() == "off", "rx_gro: the interface's GRO is off "
              "again after the port stopped (%s)" % gro_state())

    def off(srv, cap):
        n = frames_in(srv)
        check("GRO on" not in text_of(srv),
              "rx_gro_off: iface_gro=off left the interface's GRO alone")
        check(n >= segs, "rx_gro_off: one frame per segment: %d frames in "
              "for %d MTU segments" % (n, segs))

    check(gro_state() == "off", "rx_gro: the test host left GRO off")
    rx_case("rx_gro", [f], extra_check=on)
    rx_case("rx_gro_off", [f], faults="iface_gro=off", extra_check=off)


def case_rx_8():
    rx_case("rx_8", [rand_file("f8_%d" % i, 8 * MIB) for i in range(8)])


def case_tx_host():
    tx_case("tx_host", rand_file("t32", 32 * MIB))


def case_tx_device():
    tx_case("tx_device", rand_file("t32", 32 * MIB), device=True)


FAULTS = {
    # name: (devargs for frames devtcp sends, for frames it receives, MiB)
    "loss_0.1": ("loss=0.001", "rx_loss=0.001", 16),
    "loss_1": ("loss=0.01", "rx_loss=0.01", 16),
    "loss_5": ("loss=0.05", "rx_loss=0.05", 4),
    "dup_1": ("dup=0.01", "rx_dup=0.01", 16),
    "corrupt_0.1": ("corrupt=0.001", "rx_corrupt=0.001", 16),
    "reorder_1": ("reorder=0.01", "rx_reorder=0.01", 16),
}


def fault_case(name):
    tx, rx, mib = FAULTS[name]
    f = rand_file("fault", mib * MIB)
    seed = ",seed=%d" % (PID % 1000 + 1)
    # Both directions at once: devtcp receives through rx_* faults and its
    # ACKs go out through the TX faults, then the same for devtcp sending.
    rx_case("fault_%s_rx" % name, [f], faults=rx + "," + tx + seed,
            allow_bad=name.startswith("corrupt"))
    tx_case("fault_%s_tx" % name, f, faults=tx + "," + rx + seed,
            allow_bad=name.startswith("corrupt"))


def nft_counter(table):
    """Packets the counter of nft table TABLE (netdev family) counted."""
    out = sh(["nft", "list", "table", "netdev", table], ns=True).stdout
    m = re.search(r"counter packets (\d+)", out)
    if m is None:
        raise RuntimeError("no counter in nft table %s: %s" % (table, out))
    return int(m.group(1))


def case_fault_corrupt():
    """Corruption on the wire, each direction judged on its own with whole
    frames captured both ways.
    Toward devtcp: nftables on eth0's egress in the namespace (after Linux
    checksummed the skb, before the capture point) overwrites the TCP
    checksum of every 50th of Linux's TCP skbs (deterministic: a 16 MiB
    transfer is 256 of them at least) (nft keeps checksums right when it
    rewrites payload, so payload itself cannot be damaged this way; a GSO
    skb leaves as several frames, each with the bad checksum), and net_hsplit's rx_corrupt= damages 0.1 % more inside devtcp's NIC
    (after the capture point: not seen by it). The capture must count bad
    TCP checksums on Linux's frames (at least one), none on devtcp's: devtcp drops what its NIC flags bad, never
    sends a bad frame, and the stream lands byte-exact.
    Toward Linux: net_hsplit's corrupt= on 0.1 % of devtcp's frames; the
    capture counts them on devtcp's frames, none on Linux's."""
    f = rand_file("fault", 16 * MIB)
    seed = ",seed=%d" % (PID % 1000 + 1)
    why = have_nft()
    if why is None:
        nft("""table netdev dtcorrupt {
  chain out { type filter hook egress device eth0 priority 0; ip daddr %s ip protocol tcp numgen inc mod 50 == 49 tcp checksum set 0x5a5a counter; }
}
""" % DEV_IP)
    else:
        log("info: no corruption on the wire toward devtcp (%s): rx_corrupt= "
            "only, the capture cannot see it" % why)

    def toward_devtcp(srv, cap):
        lnx = cap.judged("lnx")
        log("info: Linux's frames: %s" % lnx)
        if why is None:
            n = nft_counter("dtcorrupt")
            # One skb nft rewrote may leave as several frames (GSO).
            check(n > 0 and lnx["bad_tcp"] > 0, "fault_corrupt_rx: capture "
                  "sees bad TCP checksums on Linux's frames toward devtcp "
                  "(%d of %d frames; nft rewrote %d skbs)" %
                  (lnx["bad_tcp"], lnx["tcp"], n))
        check(lnx["bad_ip"] == 0 and lnx["malformed"] == 0,
              "fault_corrupt_rx: no bad IPv4 checksum or malformed frame "
              "from Linux (%d, %d)" % (lnx["bad_ip"], lnx["malformed"]))

    # No corrupt= here: cap.judge() asserts devtcp's frames are all good.
    rx_case("fault_corrupt_rx", [f], faults="rx_corrupt=0.001" + seed,
            full=True, extra_check=toward_devtcp)
    nft_flush()

    def toward_linux(snd, cap):
        dev = cap.judged("dev")
        lnx = cap.judged("lnx")
        check(dev["bad_tcp"] > 0 and dev["bad_tcp"] <= dev["tcp"],
              "fault_corrupt_tx: capture sees the bad TCP checksums corrupt= "
              "put on devtcp's frames (%d of %d)" % (dev["bad_tcp"], dev["tcp"]))
        check(bad_frames(lnx) == 0, "fault_corrupt_tx: none on Linux's frames "
              "(%d of %d: %s)" % (bad_frames(lnx), lnx["frames"], lnx["first"]))

    # MSS frames (caps=notso): corrupt= damages frames after their
    # checksums, and a GSO frame's segments are summed again by the kernel.
    tx_case("fault_corrupt_tx", f, faults="corrupt=0.001,caps=notso" + seed,
            allow_bad=True, full=True, extra_check=toward_linux)


def mss_of_syns(cap, src):
    """MSS options of the SYNs (and SYN-ACKs) from SRC."""
    p = sh(["tshark", "-n", "-r", cap.dev if src == DEV_IP else cap.lnx,
            "-Y", "tcp.flags.syn==1 && ip.src==%s" % src, "-T", "fields",
            "-e", "tcp.options.mss_val"], check_rc=False, timeout=180)
    if p.returncode != 0:
        raise CaptureError("tshark (MSS of SYNs): rc %d: %s" % (
            p.returncode, p.stderr.strip()[-300:]))
    return [int(x) for x in p.stdout.split() if x.isdigit()]


def case_mtu_mismatch():
    """Linux's end of the veth at MTU 9000, devtcp's interface at 1500, and
    devtcp configured for MTU 9000: the NIC reports what the interface
    carries (max_mtu 1500), devtcp clamps its MTU and advertises MSS 1460,
    both directions land byte-exact (a 9000-byte frame would be dropped by
    the veth: the connection would black-hole)."""
    sh(["ip", "link", "set", "dev", "eth0", "mtu", "9000"], ns=True)
    try:
        f = rand_file("mm", 16 * MIB)

        def mss(who):
            def fn(p, cap):
                got = mss_of_syns(cap, DEV_IP)
                check(got != [] and max(got) <= 1460,
                      "mtu_mismatch_%s: devtcp's SYN/SYN-ACK MSS fits its "
                      "interface's MTU 1500 (%s)" % (who, got))
                check(cap.count("ip.src==%s && frame.len > 1514" % DEV_IP) == 0,
                      "mtu_mismatch_%s: no frame from devtcp above 1514 "
                      "bytes" % who)
            return fn

        rx_case("mtu_mismatch_rx", [f], mtu=9000, extra_check=mss("rx"))
        tx_case("mtu_mismatch_tx", f, mtu=9000, extra_check=mss("tx"))
    finally:
        sh(["ip", "link", "set", "dev", "eth0", "mtu", "1500"], ns=True)


def set_offloads(on):
    v = "on" if on else "off"
    for in_ns, dev in ((True, "eth0"), (False, NS)):
        sh(["ethtool", "-K", dev, "tx", v, "tso", v, "gso", v, "gro", v],
           ns=in_ns, check_rc=False)


UDP_GSO = """import socket,sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(17, 103, 1400)  # SOL_UDP, UDP_SEGMENT: one 8000-byte GSO frame
s.sendto(bytes(8000), (sys.argv[1], 9999))
print("sent")
"""
TRUNC_LOG = "handed over a frame longer than its MTU"


def case_offloads():
    """Veth offloads on at both ends (checksum, TSO, GSO, GRO), as users
    leave them: Linux hands devtcp's interface TCP frames of up to 64 KiB
    (one header for many segments, as a NIC's LRO / HW-GRO). net_hsplit
    takes them whole (RX LRO) with their payload over several device
    buffers and lib/dp feeds them to the engine as the segments they were
    merged from: both directions byte-exact, and the capture shows that
    coalesced frames did go to devtcp. A frame that cannot be taken (here
    a UDP GSO datagram of 8000 bytes) is dropped loudly: net_hsplit logs
    it (and counts it, iface_rx_truncated); nothing truncated is silent."""
    set_offloads(True)
    try:
        f = rand_file("ol", 32 * MIB)
        udp = {}

        def send_udp_gso(srv):
            udp["p"] = sh(["python3", "-c", UDP_GSO, DEV_IP], ns=True,
                          check_rc=False)
            udp["logged"] = wait_text(srv, TRUNC_LOG, 3)

        def coalesced(srv, cap):
            n = cap.count("ip.src==%s && tcp && frame.len > 1514" % LNX_IP)
            check(n > 0, "offloads_rx: Linux sent coalesced TCP frames above "
                  "the MTU to devtcp (%d)" % n)
            p = udp["p"]
            check(p.returncode == 0 and "sent" in p.stdout,
                  "offloads_rx: a UDP GSO datagram sent (rc %d %s)" %
                  (p.returncode, p.stderr.strip()[-80:]))
            check(udp["logged"], "offloads_rx: the frame net_hsplit could not "
                  "take was logged (%r)" % TRUNC_LOG)
            check(text_of(srv).count(TRUNC_LOG) == 1, "offloads_rx: logged "
                  "once (%d)" % text_of(srv).count(TRUNC_LOG))

        def gso_whole(snd, cap):
            n = cap.count("ip.src==%s && tcp && frame.len > 1514" % DEV_IP)
            check(n > 0, "offloads_tx: devtcp's GSO frames crossed the veth "
                  "whole (%d above the MTU)" % n)

        rx_case("offloads_rx", [f], extra_check=coalesced, after=send_udp_gso)
        tx_case("offloads_tx", f, extra_check=gso_whole, gso_whole=True)
    finally:
        set_offloads(False)


def ping_min_ms(count=5):
    """Smallest RTT of COUNT pings from Linux to devtcp (ICMP echo answered
    by devtcp's stack); raises when ping fails or prints no summary."""
    p = sh(["ping", "-n", "-c", str(count), "-i", "0.2", "-W", "2", DEV_IP],
           ns=True, check_rc=False, timeout=30)
    m = re.search(r"= ([0-9.]+)/([0-9.]+)/([0-9.]+)", p.stdout)
    if p.returncode != 0 or m is None:
        raise RuntimeError("ping %s: rc %d: %s" % (DEV_IP, p.returncode,
                                                  (p.stdout + p.stderr)[-300:]))
    return float(m.group(1))


def delay_case(rtt_ms, mib):
    """net_hsplit's delay line on devtcp's interface (delay_us = half the
    RTT, each direction; jitter a tenth of it, never reordering) with 0.5 %
    loss each way: byte-exact both directions at a real RTT (this kernel has
    no sch_netem). Lower bounds only: ping's smallest RTT through the delay
    line is at least the RTT asked for (minus 1 %: clock calibration)."""
    d = rtt_ms * 1000 // 2
    faults = "delay_us=%d,jitter_us=%d,loss=0.005,rx_loss=0.005,seed=%d" % (
        d, d // 10, PID % 1000 + 1)
    f = rand_file("dl", mib * MIB)
    tag = "delay_%gms" % rtt_ms

    def rtt(srv):
        got = ping_min_ms()
        check(got >= 0.99 * rtt_ms, "%s: ping RTT through the delay line "
              "%.3f ms >= %g ms" % (tag, got, rtt_ms))

    rx_case(tag + "_rx", [f], faults=faults, before=rtt, timeout=90)
    tx_case(tag + "_tx", f, faults=faults)


# Linux settings the interop matrix varies (per namespace sysctls of the
# Linux peer): each runs Linux -> devtcp and devtcp -> Linux at 1 % loss
# each way (the recovery paths the setting changes). Senders' congestion
# control ("cc"): set on socat's socket (TCP_CONGESTION; a namespace may
# only default to an algorithm the host allows), Linux -> devtcp only.
MATRIX = {
    "sack0": {"net.ipv4.tcp_sack": "0"},
    "ts0": {"net.ipv4.tcp_timestamps": "0"},
    "ws0": {"net.ipv4.tcp_window_scaling": "0"},
    "ecn1": {"net.ipv4.tcp_ecn": "1"},
    "cubic": {"cc": "cubic"},
    "reno": {"cc": "reno"},
    "bbr": {"cc": "bbr"},
}
TCP_CONGESTION = 13


def ns_sysctl(key, value=None):
    if value is not None:
        sh(["sysctl", "-q", "-w", "%s=%s" % (key, value)], ns=True)
    return sh(["sysctl", "-n", key], ns=True).stdout.strip()


def matrix_case(name):
    settings = dict(MATRIX[name])
    cc = settings.pop("cc", None)
    old = {k: ns_sysctl(k) for k in settings}
    try:
        for k, v in settings.items():
            check(ns_sysctl(k, v) == v, "linux_%s: %s = %s in the Linux "
                  "peer's namespace" % (name, k, v))
        f = rand_file("mx", 8 * MIB)
        faults = "loss=0.01,rx_loss=0.01,seed=%d" % (PID % 1000 + 1)
        # socat fails (exit 1) when the kernel refuses the algorithm.
        opts = ",setsockopt-string=%d:%d:%s" % (socket.IPPROTO_TCP,
                                               TCP_CONGESTION, cc) if cc else ""
        rx_case("linux_%s_rx" % name, [f], faults=faults, timeout=90,
                opts=opts)
        if cc is None:
            tx_case("linux_%s_tx" % name, f, faults=faults)
    finally:
        for k, v in old.items():
            ns_sysctl(k, v)


def case_kernel_loss():
    why = have_nft()
    if why:
        skip(why)
    # Linux's TCP hands the device 64 KiB GSO skbs that the veth segments
    # later: the output hook drops whole bursts of segments. devtcp's frames
    # are dropped one by one on eth0's ingress, before Linux's TCP sees them.
    nft("""table inet dtloss {
  chain out { type filter hook output priority 0; ip daddr %s meta l4proto tcp numgen random mod 1000 < 10 counter drop; }
}
table netdev dtloss_in {
  chain in { type filter hook ingress device eth0 priority 0; ip saddr %s meta l4proto tcp numgen random mod 100 < 1 counter drop; }
}
""" % (DEV_IP, DEV_IP))
    f = rand_file("kl", 16 * MIB)
    rx_case("kernel_loss_rx", [f])
    tx_case("kernel_loss_tx", f)
    log(sh(["nft", "list", "ruleset"], ns=True).stdout)
    nft_flush()


def tcpext(names):
    """TcpExt counters of the namespace (/proc/net/netstat there); a name
    missing from the kernel's table raises (the check must not pass on
    nothing)."""
    lines = [l.split() for l in sh(["cat", "/proc/net/netstat"], ns=True)
             .stdout.splitlines() if l.startswith("TcpExt:")]
    if len(lines) != 2:
        raise RuntimeError("no TcpExt counters in /proc/net/netstat")
    table = dict(zip(lines[0][1:], (int(v) for v in lines[1][1:])))
    missing = [n for n in names if n not in table]
    if missing:
        raise RuntimeError("TcpExt lacks %s" % missing)
    return {n: table[n] for n in names}


def case_nosack_loss_1():
    """Linux -> devtcp, the sender without SACK and window scaling
    (tcp_sack=0, tcp_window_scaling=0 in the namespace), 1 % of the frames
    devtcp receives lost: each out-of-order segment draws its own duplicate
    ACK (RFC 5681 4.2), so Linux repairs losses by fast retransmit after
    three duplicates (TcpExt TCPRenoRecovery) more often than by its
    retransmission timer (TCPTimeouts)."""
    for kv in ("net.ipv4.tcp_sack=0", "net.ipv4.tcp_window_scaling=0"):
        sh(["sysctl", "-qw", kv], ns=True)
    names = ["TCPRenoRecovery", "TCPTimeouts"]
    try:
        f = rand_file("nosack", 16 * MIB)
        before = tcpext(names)
        rx_case("nosack_loss_1_rx", [f],
                faults="rx_loss=0.01,seed=%d" % (PID % 1000 + 1))
        after = tcpext(names)
    finally:
        for kv in ("net.ipv4.tcp_sack=1", "net.ipv4.tcp_window_scaling=1"):
            sh(["sysctl", "-qw", kv], ns=True, check_rc=False)
    fr = after["TCPRenoRecovery"] - before["TCPRenoRecovery"]
    to = after["TCPTimeouts"] - before["TCPTimeouts"]
    log("nosack_loss_1: Linux fast recoveries %d, timeouts %d" % (fr, to))
    check(fr > 0 and to < fr, "nosack_loss_1: losses repaired by fast "
          "retransmit (%d) more often than by RTO (%d)" % (fr, to))


def case_netem_delay():
    p = sh(["tc", "qdisc", "replace", "dev", "eth0", "root", "netem", "delay",
            "10ms", "5ms", "loss", "0.5%"], ns=True, check_rc=False)
    if p.returncode != 0:
        skip("tc netem unavailable in this kernel (%s): delay/jitter cases "
             "need sch_netem" % p.stderr.strip())
    f = rand_file("nd", 8 * MIB)
    rx_case("netem_delay_rx", [f])
    tx_case("netem_delay_tx", f)
    sh(["tc", "qdisc", "del", "dev", "eth0", "root"], ns=True, check_rc=False)


def socat_idle(tag, extra=""):
    """socat connected to devtcp, reading what devtcp sends, idle otherwise
    (its stdin is a pipe that stays open and silent)."""
    r, w = os.pipe()
    p = spawn(["socat", "-d", "-d", "STDIO", "TCP:%s:5001%s" % (DEV_IP, extra)], ns=True,
              out=os.path.join(TMP, tag + ".socat"), stdin=r)
    os.close(r)
    p.pipe_w = w
    return p


def established(n=1):
    out = sh(["ss", "-tn", "state", "established", "dst", DEV_IP], ns=True,
             check_rc=False).stdout
    return len(out.splitlines()) - 1 >= n


def wait_until(fn, timeout):
    end = time.time() + timeout
    while time.time() < end:
        if fn():
            return True
        time.sleep(0.05)
    return fn()


def case_close():
    """Passive close by devtcp (the Linux client half-closes first: every rx
    case does it) and active close by devtcp: the server stops while a Linux
    client is idle on a connection; devtcp sends FIN first, socat sees EOF
    and exits 0, the connection ends with no RST from either side."""
    cap = Capture("close")
    srv = start_server("close")
    # A receiving client (-u: network to /dev/null) that never sends.
    cl = spawn(["socat", "-d", "-d", "-u", "TCP:%s:5001" % DEV_IP, "OPEN:/dev/null"],
               ns=True, out=os.path.join(TMP, "close.socat"))
    check(wait_until(established, 5), "close: Linux client connected")
    time.sleep(0.3)
    t0 = time.time()
    rc = stop(srv)
    try:
        crc = cl.wait(timeout=10)
    except subprocess.TimeoutExpired:
        crc = -9
    time.sleep(0.3)
    cap.stop()
    log(text_of(srv))
    check(rc == 0, "close: devtcp-server stopped cleanly (rc %d)" % rc)
    check(crc == 0, "close: socat saw the FIN and exited 0 in %.1f s (rc %d)" %
          (time.time() - t0, crc))
    cap.count("frame")
    first_fin = sh(["tshark", "-n", "-r", cap.path, "-Y", "tcp.flags.fin==1",
                    "-T", "fields", "-e", "ip.src"], check_rc=False,
                   timeout=180).stdout.split()
    check(first_fin[:1] == [DEV_IP], "close: devtcp sent the first FIN (active "
          "close; FINs from %s)" % first_fin)
    check(cap.count("tcp.flags.reset==1") == 0, "close: no RST on the wire")
    check(cap.count("tcp.flags.fin==1 && ip.src==%s" % LNX_IP) >= 1,
          "close: Linux answered with its FIN")
    cap.judge("close")


def case_rst_linux():
    """RST from Linux: socat with SO_LINGER 0 streaming to devtcp is killed
    with SIGKILL; the kernel resets the connection. devtcp-server reports the
    reset, stays up and verifies the next connection."""
    cap = Capture("rst_linux")
    srv = start_server("rst_linux")
    z = spawn(["socat", "-u", "OPEN:/dev/zero",
               "TCP:%s:5001,linger=0" % DEV_IP], ns=True,
              out=os.path.join(TMP, "rstl.socat"))
    check(wait_until(established, 5), "rst_linux: stream from /dev/zero running")
    time.sleep(0.5)
    kill(z)
    z.wait(timeout=5)
    check(wait_text(srv, "reset by peer", 5), "rst_linux: devtcp-server saw the RST")
    f = rand_file("after", 2 * MIB)
    secs, rcs = linux_send([f])
    wait_until(lambda: len(server_streams(srv)) >= 2, 5)
    rc = stop(srv)
    cap.stop()
    log(text_of(srv))
    check(cap.count("tcp.flags.reset==1 && ip.src==%s" % LNX_IP) >= 1,
          "rst_linux: RST from Linux on the wire")
    check((os.path.getsize(f), sha_file(f)) in server_streams(srv),
          "rst_linux: the next connection is verified byte-exact")
    check(rc == 0, "rst_linux: devtcp-server stopped cleanly (rc %d)" % rc)
    cap.judge("rst_linux")


def case_rst_devtcp():
    """RST from devtcp: a SYN to a port devtcp does not listen on is refused
    (RST, socat reports 'Connection refused'); and a Linux receiver killed in
    the middle of devtcp-send's transfer (unread data: the kernel resets)
    makes devtcp-send report the reset and exit non-zero promptly."""
    cap = Capture("rst_devtcp")
    srv = start_server("rst_devtcp")
    p = sh(["socat", "-u", "OPEN:/dev/null", "TCP:%s:5999" % DEV_IP], ns=True,
           check_rc=False, timeout=20)
    check(p.returncode != 0 and "refused" in p.stderr,
          "rst_devtcp: closed port refused with RST (%s)" % p.stderr.strip()[-60:])
    stop(srv)
    # The Linux receiver dies mid-transfer.
    big = rand_file("big", 48 * MIB)
    out = os.path.join(TMP, "killed.recv")
    ini = os.path.join(TMP, "rst.send.ini")
    with open(ini, "w") as f:
        f.write(SEND_INI.format(dev=DEV_IP, lnx=LNX_IP, file=big, mtu=1500))
    rcv = linux_recv_start(out)
    snd = spawn([SEND] + EAL + [vdev("rate=0.1"), "--", "--config", ini,
                                "--duration", "30"],
                out=os.path.join(TMP, "rst.send"))
    wait_until(lambda: os.path.exists(out) and os.path.getsize(out) > MIB, 15)
    kill(rcv)
    t0 = time.time()
    try:
        rc = snd.wait(timeout=20)
    except subprocess.TimeoutExpired:
        kill(snd)
        rc = -9
    cap.stop()
    text = text_of(snd)
    log(text)
    check(rc == 1 and "reset by the server" in text,
          "rst_devtcp: devtcp-send reports the reset and fails (rc %d, %.1f s "
          "after the kill)" % (rc, time.time() - t0))
    check(cap.count("tcp.flags.reset==1 && ip.src==%s && tcp.dstport==5999" %
                    DEV_IP) == 0 and
          cap.count("tcp.flags.reset==1 && ip.src==%s && tcp.srcport==5999" %
                    DEV_IP) >= 1, "rst_devtcp: RST from devtcp to the SYN")
    check(cap.count("tcp.flags.reset==1 && ip.src==%s" % LNX_IP) >= 1,
          "rst_devtcp: RST from Linux on the wire")
    cap.judge("rst_devtcp")


def case_keepalive():
    """Keepalive (idle 1 s, interval 0.5 s, 3 probes): devtcp probes an idle
    Linux peer, which answers, and the connection lives on; once the peer's
    answers are dropped (nftables), devtcp gives the connection up after its
    probes go unanswered."""
    extra = ("keepalive = yes\nkeepalive_idle = 1000\nkeepalive_intvl = 500\n"
             "keepalive_probes = 3\n")
    cap = Capture("keepalive")
    srv = start_server("keepalive", extra=extra)
    cl = socat_idle("keepalive")
    check(wait_until(established, 5), "keepalive: Linux client connected")
    time.sleep(3.2)
    check(established(), "keepalive: connection alive after 3 s idle")
    why = have_nft()
    if why is None:
        nft("""table inet dtka {
  chain out { type filter hook output priority 0; ip daddr %s meta l4proto tcp drop; }
}
""" % DEV_IP)
        gone = wait_text(srv, "failed (Connection timed out)", 6)
        check(gone, "keepalive: devtcp timed the silent peer out")
        nft_flush()
    else:
        log("info: unanswered-probe half not run: " + why)
    rc = stop(srv)
    os.close(cl.pipe_w)
    cap.stop()
    log(text_of(srv))
    probes = cap.count("ip.src==%s && tcp.analysis.keep_alive" % DEV_IP)
    acks = cap.count("ip.src==%s && tcp.analysis.keep_alive_ack" % LNX_IP)
    check(probes >= 2, "keepalive: devtcp sent keepalive probes (%d)" % probes)
    check(acks >= 1, "keepalive: Linux acknowledged them (%d)" % acks)
    check(rc == 0, "keepalive: devtcp-server stopped cleanly (rc %d)" % rc)
    cap.judge("keepalive")


IPERF3_INI = """[port]
mtu = 1500
split = proto
tx_cksum = yes
[port.0]
name = net_hsplit_io
[stack]
port = 0
ipv4 = {dev}
netmask = 255.255.255.0
[devmem]
gpu = 0
buffers = 16384
buffer_size = 2048
header_buffers = 16384
[limits]
window = 2M
{extra}
[consumer]
mode = iperf3
"""


def iperf3_tests(p):
    """{test number: (streams, bytes)} of the tests devtcp-server logged
    (bytes received, or sent in reverse mode)."""
    return {int(n): (int(s), int(b)) for n, s, b in re.findall(
        r"iperf3: test (\d+) done: (\d+) stream\(s\), (\d+) bytes "
        r"(?:received|sent)", text_of(p))}


def iperf3_client(tag, args, timeout=30):
    """iperf3 -c in the namespace with -J; returns (rc, parsed JSON or {})."""
    out = os.path.join(TMP, tag + ".json")
    p = spawn(["iperf3", "-c", DEV_IP, "-J"] + args, ns=True, out=out)
    try:
        rc = p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill(p)
        rc = -9
    try:
        with open(out) as f:
            j = json.load(f)
    except (OSError, ValueError):
        j = {}
    return rc, j


def iperf3_case(case, streams):
    """Unmodified iperf3 -c (TCP, client sending) against devtcp-server's
    iperf3 consumer: the client finishes the test (exit 0) and reports, as
    bytes received, what devtcp-server counted. With one stream, a second
    client that connects during the test is refused (ACCESS_DENIED) and the
    server runs the next test afterwards."""
    if shutil.which("iperf3") is None:
        skip("iperf3 not installed (scripts/setup.sh installs it)")
    cap = Capture(case)
    srv = start_server(case, template=IPERF3_INI)
    par = ["-P", str(streams)] if streams > 1 else []
    t0 = time.time()
    busy = None
    if streams == 1:
        first = spawn(["iperf3", "-c", DEV_IP, "-J", "-t", "3"], ns=True,
                      out=os.path.join(TMP, case + ".json"))
        time.sleep(1.5)
        busy = sh(["iperf3", "-c", DEV_IP, "-t", "1"], ns=True,
                  check_rc=False, timeout=20)
        try:
            rc = first.wait(timeout=30)
        except subprocess.TimeoutExpired:
            kill(first)
            rc = -9
        try:
            with open(first.out_path) as f:
                j = json.load(f)
        except (OSError, ValueError):
            j = {}
    else:
        rc, j = iperf3_client(case, ["-t", "3"] + par)
    secs = time.time() - t0
    again = iperf3_client(case + "_next", ["-t", "1"] + par) if streams == 1 else None
    wait_until(lambda: len(iperf3_tests(srv)) >= (2 if again else 1), 5)
    srv_rc = stop(srv)
    cap.stop()
    log(text_of(srv))
    check(rc == 0, "%s: iperf3 -c -P %d exit status 0 (rc %d%s)" % (
        case, streams, rc, ", " + j["error"] if "error" in j else ""))
    end = j.get("end", {})
    got = end.get("sum_received", {}).get("bytes", 0)
    sent = end.get("sum_sent", {}).get("bytes", 0)
    tests = iperf3_tests(srv)
    check(got > 0, "%s: iperf3 reports %d bytes received (%d sent)" %
          (case, got, sent))
    check(tests.get(1) == (streams, got), "%s: devtcp-server counted the "
          "bytes iperf3 reports received, over %d stream(s) (server: %s)" %
          (case, streams, tests.get(1)))
    check(len(end.get("streams", [])) == streams,
          "%s: iperf3 shows %d stream(s)" % (case, streams))
    if busy is not None:
        check(busy.returncode != 0 and "busy" in busy.stderr,
              "%s: a second client during the test is refused with "
              "ACCESS_DENIED (%s)" % (case, busy.stderr.strip()[-60:]))
        arc, aj = again
        agot = aj.get("end", {}).get("sum_received", {}).get("bytes", 0)
        check(arc == 0 and agot > 0 and tests.get(2) == (streams, agot),
              "%s: the server stays up: next test ran (rc %d, %d bytes, "
              "server %s)" % (case, arc, agot, tests.get(2)))
    check(srv_rc == 0, "%s: devtcp-server stopped cleanly (rc %d)" %
          (case, srv_rc))
    goodput(case, got, secs)
    cap.judge(case)


def case_iperf3_reverse():
    """iperf3 -c -R -P 2: devtcp-server sends on the streams (by reference
    from a hugepage buffer); iperf3 reports, as bytes sent, what devtcp
    queued, and receives some."""
    if shutil.which("iperf3") is None:
        skip("iperf3 not installed (scripts/setup.sh installs it)")
    case = "iperf3_reverse"
    cap = Capture(case)
    srv = start_server(case, template=IPERF3_INI)
    t0 = time.time()
    rc, j = iperf3_client(case, ["-t", "2", "-R", "-P", "2"])
    secs = time.time() - t0
    wait_until(lambda: len(iperf3_tests(srv)) >= 1, 5)
    srv_rc = stop(srv)
    cap.stop()
    log(text_of(srv))
    end = j.get("end", {})
    got = end.get("sum_received", {}).get("bytes", 0)
    sent = end.get("sum_sent", {}).get("bytes", 0)
    check(rc == 0, "%s: iperf3 -c -R exit status 0 (rc %d%s)" % (
        case, rc, ", " + j["error"] if "error" in j else ""))
    check(got > 0 and iperf3_tests(srv).get(1) == (2, sent),
          "%s: iperf3 received %d bytes; sent %d = devtcp-server's count %s" %
          (case, got, sent, iperf3_tests(srv).get(1)))
    check(srv_rc == 0, "%s: devtcp-server stopped cleanly (rc %d)" %
          (case, srv_rc))
    goodput(case, got, secs)
    cap.judge(case)


CASES = {
    "iperf3_1": lambda: iperf3_case("iperf3_1", 1),
    "iperf3_8": lambda: iperf3_case("iperf3_8", 8),
    "iperf3_reverse": case_iperf3_reverse,
    "rx_1": case_rx_1,
    "rx_gro": case_rx_gro,
    "rx_8": case_rx_8,
    "tx_host": case_tx_host,
    "tx_device": case_tx_device,
    "kernel_loss": case_kernel_loss,
    "nosack_loss_1": case_nosack_loss_1,
    "netem_delay": case_netem_delay,
    "close": case_close,
    "rst_linux": case_rst_linux,
    "rst_devtcp": case_rst_devtcp,
    "keepalive": case_keepalive,
    "mtu_mismatch": case_mtu_mismatch,
    "offloads": case_offloads,
    "delay_1ms": lambda: delay_case(1, 8),
    "delay_20ms": lambda: delay_case(20, 4),
}
for _n in FAULTS:
    CASES["fault_" + _n] = (lambda n: lambda: fault_case(n))(_n)
CASES["fault_corrupt_0.1"] = case_fault_corrupt
for _n in MATRIX:
    CASES["linux_" + _n] = (lambda n: lambda: matrix_case(n))(_n)


def main():
    if CASES_ARGS == ["--list"]:
        print("\n".join(CASES))
        return 0
    bad = [c for c in CASES_ARGS if c not in CASES]
    if bad or not CASES_ARGS:
        print("unknown case(s) %s; known: %s" % (bad, ", ".join(CASES)))
        return 2
    for x in (SERVER, SEND):
        if not os.access(x, os.X_OK):
            print("not executable: " + x)
            return 2
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    try:
        preflight()
        for c in CASES_ARGS:
            log("=== %s" % c)
            CASES[c]()
    except RuntimeError as e:
        check(False, "error: %s" % e)
    finally:
        cleanup()
    for case, nbytes, secs, mbps in results:
        log("summary goodput %-32s %8.0f Mb/s (%.1f MiB, %.2f s)" %
            (case, mbps, nbytes / MIB, secs))
    log("%d check(s) failed" % len(failed) if failed else "all checks passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
