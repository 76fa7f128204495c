"""Captures of the veth in the namespace (tcpdump) and tshark's verdict on
them: a malformed frame, a bad IPv4 or TCP checksum or an expert error in
what devtcp sent fails the case. The judge itself fails loudly when tshark
cannot have seen what it reports on (see judge_pcap()).
"""
import os
import re
import signal
import subprocess
import time

from interop_harness import (DEV_IP, LNX_IP, TMP, check, kill, log, sh,
                             spawn, text_of, wait_text)


# tshark options that leave TCP payload undissected: random payload must not
# be guessed as some protocol (heuristics, well-known ports) and then
# reported malformed. Decode-as "data" on every port a case listens on makes
# TCP's port lookup match first, so no heuristic dissector ever runs on it
# (Debian's tshark has no --disable-heuristic names matching
# "tshark -G heuristic-decodes": those are protocol names, and naming one
# makes tshark exit 1 with no output). Only the headers are judged.
NO_PAYLOAD = ["-o", "tcp.try_heuristic_first:FALSE"] + [
    x for port in (5001, 5002, 5201, 5999) for x in ("-d", "tcp.port==%d,data" % port)]
# Every tshark run over a capture: payload undissected and no TCP
# reassembly. A display filter (-Y) dissects every frame whole; once in about
# 20 runs the random payload of a 16 MiB transfer looked like some protocol
# announcing a long message, and reassembling the whole stream into it,
# segment by segment, took tshark 89 s (issue 25: interop_mtu_mismatch past
# its meson timeout under load, and once in CI).
TSHARK_READ = ["tshark", "-n"] + NO_PAYLOAD + [
    "-o", "tcp.desegment_tcp_streams:FALSE"]


def tshark(path, *args, timeout=120):
    """tshark over the capture at PATH with ARGS (a filter, fields), as
    every case reads its captures: see TSHARK_READ."""
    return sh(TSHARK_READ + ["-r", path] + list(args), check_rc=False,
              timeout=timeout)


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
    p = tshark(path, "-o", "tcp.check_checksum:TRUE",
               "-o", "ip.check_checksum:TRUE",
               "-o", "tcp.analyze_sequence_numbers:FALSE",
               "-T", "fields", "-E", "separator=/t", "-E", "occurrence=a",
               "-E", "aggregator=,", *sum((["-e", f] for f in JUDGE_FIELDS), []))
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
        p = tshark(self.path, "-Y", flt)
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
