"""Cases where frames are lost, duplicated, corrupted, reordered or delayed
(net_hsplit's fault devargs, nftables, netem), and the matrix of Linux
peer settings run at 1 % loss: the recovery paths, byte-exact both ways.
"""
import re
import socket

from interop_capture import bad_frames
from interop_harness import (DEV_IP, MIB, PID, check, have_nft, log, nft,
                             nft_flush, rand_file, sh, skip)
from interop_transfer import rx_case, tx_case


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
