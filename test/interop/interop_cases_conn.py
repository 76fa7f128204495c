"""Connection lifetime against Linux: who closes first and how (FIN, RST
either way) and keepalive probing of an idle or silent peer.
"""
import os
import subprocess
import time

from interop_capture import Capture, tshark
from interop_harness import (DEV_IP, EAL, LNX_IP, MIB, SEND, TMP, check,
                             have_nft, kill, log, nft, nft_flush, rand_file,
                             sh, sha_file, spawn, text_of, wait_text,
                             wait_until)
from interop_transfer import (SEND_INI, linux_recv_start, linux_send,
                              server_streams, start_server, stop, vdev)


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
    first_fin = tshark(cap.path, "-Y", "tcp.flags.fin==1", "-T", "fields",
                       "-e", "ip.src").stdout.split()
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
