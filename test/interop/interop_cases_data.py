"""Cases that move data over a clean path: one and many streams each way,
from host and device memory, GRO on the veth, an MTU mismatch between the
two ends, and the veth's offloads on.
"""
import re

from interop_capture import CaptureError, tshark
from interop_harness import (DEV_IP, LNX_IP, MIB, NS, check, rand_file, sh,
                             text_of, wait_text)
from interop_transfer import rx_case, tx_case


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


def mss_of_syns(cap, src):
    """MSS options of the SYNs (and SYN-ACKs) from SRC."""
    p = tshark(cap.dev if src == DEV_IP else cap.lnx,
               "-Y", "tcp.flags.syn==1 && ip.src==%s" % src, "-T", "fields",
               "-e", "tcp.options.mss_val")
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
        # check_rc=False: after a SIGTERM cleanup() has removed the namespace.
        sh(["ip", "link", "set", "dev", "eth0", "mtu", "1500"], ns=True,
           check_rc=False)


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
