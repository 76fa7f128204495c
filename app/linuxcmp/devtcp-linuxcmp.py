#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""devtcp-linuxcmp: the same Linux TCP sender into devtcp and into the Linux
kernel's TCP receiver, side by side, on the same kind of veth wire.

usage: devtcp-linuxcmp [--server PATH] [--netns-sh PATH] [--duration SEC]
                       [--losses 0,1,5] [--streams N] [--mtu N]
                       [--cc NAME] [--sysctl KEY=VALUE ...]
                       [--delay-us N [--jitter-us N] [--testpmd PATH]
                        [--plugin PATH]]
                       [--json FILE] [--keep-going]

For each loss rate, in one run:
  devtcp   a test host (namespace A, veth) sends to devtcp-server on the
           veth's root end (net_hsplit iface=, payload split into simulated
           GPU memory, discard consumer);
  linux    the same sender in namespace B sends to the kernel's TCP in
           namespace C, at the other end of an identical veth pair (same
           MTU, offloads off on both ends).
The sender is this program itself, run in the sender's namespace
(--sender-child): N connections, each writing zeros for --duration seconds,
then a half-close; the clock stops when the receiver has closed every
connection, i.e. when every byte was received and acknowledged. Goodput =
bytes / that time. It prints both goodputs and devtcp/linux, then JSON.

Congestion control: the sender's sockets use --cc NAME when given
(TCP_CONGESTION), else the sender namespace's default; either way the
report names what each sender socket actually ran (read back from the
socket with getsockopt(TCP_CONGESTION)) and the namespace's
net.ipv4.tcp_congestion_control. --sysctl KEY=VALUE (repeatable) sets a
Linux setting in both senders' namespaces (tcp_sack=0, tcp_timestamps=0...).

Delay: --delay-us N delays every frame N microseconds each way (jitter
--jitter-us, never reordering) with net_hsplit's delay line, since this
kernel has no netem: on devtcp's interface (delay_us=N: frames received and
sent), and for Linux -> Linux on a bridge of two net_hsplit ports in stock
dpdk-testpmd (io forwarding, delay_us=N,delay_dir=rx on each port: N each
way) between
the sender's namespace and the receiver's, which are then each on a veth to
the root namespace instead of one veth between them.

Loss: per frame, on the receiver's side, on every TCP frame the receiver
gets: net_hsplit's rx_loss= for devtcp (frames from the interface), and an
nftables rule on the receiving interface's ingress in namespace C
("numgen random mod 1000000 < P") for Linux. Same semantics (independent
per-frame drops before the receiving TCP), two mechanisms: the kernel has no
netem here and nftables hooks cannot drop frames before devtcp's AF_PACKET
socket takes them. The loss does not touch ACKs going back to the sender.
Needs root, iproute2, ethtool, nft (for losses above 0), and hugepages.
"""
import argparse
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MIB = 1 << 20


def sender_child(addr, port, streams, duration, cc=""):
    """Run inside the sender's namespace; prints one JSON line."""
    buf = bytes(256 * 1024)
    socks = []
    used = set()
    for _ in range(streams):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if cc:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
        s.settimeout(10)
        s.connect((addr, port))
        s.setblocking(True)
        used.add(s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION,
                              16).split(b"\0")[0].decode())
        socks.append(s)
    sent = [0] * streams
    t0 = time.time()
    end = t0 + duration
    import selectors
    sel = selectors.DefaultSelector()
    for i, s in enumerate(socks):
        s.setblocking(False)
        sel.register(s, selectors.EVENT_WRITE, i)
    while time.time() < end:
        for key, _ in sel.select(timeout=0.05):
            i = key.data
            try:
                sent[i] += key.fileobj.send(buf)
            except BlockingIOError:
                pass
    sel.close()
    for s in socks:
        s.setblocking(True)
        s.shutdown(socket.SHUT_WR)
    # The receiver closes after our FIN, once it has every byte.
    for s in socks:
        s.settimeout(max(5.0, 4 * duration))
        try:
            while s.recv(4096):
                pass
        except OSError:
            pass
        s.close()
    secs = time.time() - t0
    with open("/proc/sys/net/ipv4/tcp_congestion_control") as f:
        default = f.read().strip()
    print(json.dumps({"bytes": sum(sent), "seconds": secs,
                      "cc": sorted(used), "cc_default": default}), flush=True)


class Runner:
    def __init__(self, a):
        self.a = a
        self.tag = "%d" % (os.getpid() % 10000)
        self.ns_dev = "lcd" + self.tag      # sender -> devtcp
        self.ns_snd = "lcs" + self.tag      # sender -> linux
        self.ns_rcv = "lcr" + self.tag      # linux receiver
        self.tmp = tempfile.mkdtemp(prefix="linuxcmp")
        self.procs = []

    def sh(self, cmd, check=True, **kw):
        p = subprocess.run(cmd, capture_output=True, text=True, **kw)
        if check and p.returncode != 0:
            raise RuntimeError("%s: %s" % (" ".join(cmd), p.stderr.strip()))
        return p

    def up(self):
        n = self.a.netns_sh
        mtu = str(self.a.mtu)
        self.sh([n, "up", self.ns_dev, "--addr", "10.79.0.2/24", "--mtu", mtu])
        if self.a.delay_us:
            # Two veths to the root namespace, bridged by testpmd.
            self.sh([n, "up", self.ns_snd, "--addr", "10.79.1.2/24", "--mtu", mtu])
            self.sh([n, "up", self.ns_rcv, "--addr", "10.79.1.1/24", "--mtu", mtu])
            self.bridge_up()
        else:
            self.sh([n, "up", self.ns_snd, "--addr", "10.79.1.2/24", "--mtu", mtu,
                     "--peer-ns", self.ns_rcv, "--peer-addr", "10.79.1.1/24"])
        for kv in self.a.sysctl:
            for ns in (self.ns_dev, self.ns_snd):
                self.sh(["ip", "netns", "exec", ns, "sysctl", "-q", "-w", kv])

    def delay_args(self, us, jitter):
        return ",delay_us=%d,jitter_us=%d" % (us, jitter) if us or jitter else ""

    def bridge_up(self):
        """stock dpdk-testpmd forwarding between the two root ends, each port
        delaying what it receives from its interface by the one-way delay
        (delay_dir=rx: testpmd's io forwarding calls tx_burst only with
        frames, so TX-held frames would wait for the next received one)."""
        half = self.delay_args(self.a.delay_us, self.a.jitter_us) + ",delay_dir=rx"
        log = os.path.join(self.tmp, "testpmd.log")
        r, w = os.pipe()
        # Unbuffered: its stdout is a file and we wait for a line of it.
        cmd = ["stdbuf", "-o0", self.a.testpmd, "-l", "0,1", "--in-memory", "--no-pci",
               "--log-level=lib.eal:warning", "-d", self.a.plugin,
               "--vdev=net_hsplit_lb0,iface=%s%s" % (self.ns_snd, half),
               "--vdev=net_hsplit_lb1,iface=%s%s" % (self.ns_rcv, half),
               "--", "--forward-mode=io", "--auto-start", "--nb-cores=1",
               "--txq=1", "--rxq=1", "--total-num-mbufs=16384"]
        if self.a.mtu > 1500:
            cmd += ["--max-pkt-len=%d" % (self.a.mtu + 18), "--mbuf-size=10240"]
        p = subprocess.Popen(cmd, stdout=open(log, "w"), stderr=subprocess.STDOUT,
                             stdin=r, start_new_session=True)
        os.close(r)
        self.bridge_pipe = w
        self.procs.append(p)
        # Link checks take some seconds.
        end = time.time() + 60
        while "Press enter to exit" not in open(log).read():
            if p.poll() is not None or time.time() > end:
                raise RuntimeError("testpmd bridge did not start:\n" + open(log).read())
            time.sleep(0.1)

    def down(self):
        for p in self.procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                p.wait()
        if getattr(self, "bridge_pipe", None) is not None:
            os.close(self.bridge_pipe)
        for ns in (self.ns_dev, self.ns_snd, self.ns_rcv):
            subprocess.run([self.a.netns_sh, "down", ns], capture_output=True)
        subprocess.run(["rm", "-rf", self.tmp])

    def spawn(self, cmd, out):
        p = subprocess.Popen(cmd, stdout=open(out, "w"), stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, start_new_session=True)
        self.procs.append(p)
        return p

    def send(self, ns, addr):
        p = self.sh(["ip", "netns", "exec", ns, sys.executable,
                     os.path.abspath(__file__), "--sender-child", addr, "5001",
                     str(self.a.streams), str(self.a.duration), self.a.cc],
                    timeout=10 * self.a.duration + 60)
        return json.loads(p.stdout.strip().splitlines()[-1])

    def run_devtcp(self, loss):
        ini = os.path.join(self.tmp, "srv.ini")
        with open(ini, "w") as f:
            f.write("[port]\nmtu = %d\nsplit = proto\n[port.0]\nname = net_hsplit_lc\n"
                    "[stack]\nport = 0\nipv4 = 10.79.0.1\nlisten = 5001\n"
                    "[devmem]\ngpu = 0\nbuffers = 16384\nheader_buffers = 16384\n"
                    "[limits]\nwindow = 4M\n[consumer]\nmode = discard\n" % self.a.mtu)
        vdev = "--vdev=net_hsplit_lc,iface=%s%s" % (
            self.ns_dev, self.delay_args(self.a.delay_us, self.a.jitter_us))
        if loss > 0:
            vdev += ",rx_loss=%g,seed=%d" % (loss / 100.0, os.getpid())
        log = os.path.join(self.tmp, "srv.log")
        srv = self.spawn([self.a.server, "-l", "1", "--in-memory", "--no-pci",
                          "--log-level=lib.eal:warning", vdev,
                          "--vdev=gpu_sim_lc,size=256M", "--", "--config", ini,
                          "--drain", "1"], log)
        end = time.time() + 30
        while "running (SIGINT" not in open(log).read():
            if srv.poll() is not None or time.time() > end:
                raise RuntimeError("devtcp-server did not start:\n" + open(log).read())
            time.sleep(0.05)
        try:
            r = self.send(self.ns_dev, "10.79.0.1")
        finally:
            srv.send_signal(signal.SIGTERM)
            srv.wait(timeout=20)
        closed = sum(int(b) for b in re.findall(r"closed: (\d+) bytes", open(log).read()))
        r["receiver_bytes"] = closed
        return r

    def run_linux(self, loss):
        rcv = self.spawn(["ip", "netns", "exec", self.ns_rcv, "socat", "-u",
                          "TCP-LISTEN:5001,reuseaddr,fork", "OPEN:/dev/null"],
                         os.path.join(self.tmp, "rcv.log"))
        if loss > 0:
            nft = ("table netdev lcloss {\n chain in { type filter hook ingress "
                   "device %s priority 0; meta protocol ip ip protocol tcp numgen "
                   "random mod 1000000 < %d counter drop; }\n}\n" %
                   ("eth0" if self.a.delay_us else self.ns_snd,
                    int(round(loss * 10000))))
            self.sh(["ip", "netns", "exec", self.ns_rcv, "nft", "-f", "-"], input=nft)
        end = time.time() + 5
        while ":5001" not in self.sh(["ip", "netns", "exec", self.ns_rcv, "ss",
                                      "-ltn"]).stdout and time.time() < end:
            time.sleep(0.05)
        try:
            return self.send(self.ns_snd, "10.79.1.1")
        finally:
            os.killpg(rcv.pid, signal.SIGKILL)
            rcv.wait()
            self.sh(["ip", "netns", "exec", self.ns_rcv, "nft", "flush", "ruleset"],
                    check=False)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--sender-child":
        sender_child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]),
                     float(sys.argv[5]), sys.argv[6] if len(sys.argv) > 6 else "")
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--server", default=os.path.join(HERE, "..", "server", "devtcp-server"))
    ap.add_argument("--netns-sh", default=None)
    ap.add_argument("--duration", type=float, default=5.0)
    ap.add_argument("--losses", default="0,1,5", help="loss rates in %%")
    ap.add_argument("--streams", type=int, default=1)
    ap.add_argument("--mtu", type=int, default=1500)
    ap.add_argument("--cc", default="", help="congestion control of the "
                    "sender sockets (default: the namespace's)")
    ap.add_argument("--sysctl", action="append", default=[],
                    metavar="KEY=VALUE", help="Linux setting in the senders' "
                    "namespaces (repeatable)")
    ap.add_argument("--delay-us", type=int, default=0,
                    help="one-way delay of both wires (net_hsplit delay line)")
    ap.add_argument("--jitter-us", type=int, default=0)
    ap.add_argument("--testpmd", default="dpdk-testpmd",
                    help="stock testpmd for the Linux -> Linux delay bridge")
    ap.add_argument("--plugin", default=os.path.join(
        HERE, "..", "..", "drivers", "net", "hsplit", "librte_net_hsplit.so"),
        help="net_hsplit as a plugin for testpmd")
    ap.add_argument("--json", default=None, help="also write the JSON here")
    a = ap.parse_args()
    for kv in a.sysctl:
        if "=" not in kv:
            ap.error("--sysctl %s: need KEY=VALUE" % kv)
    if a.netns_sh is None:
        # Installed next to the build tree: <top>/build/app/linuxcmp.
        for c in (os.path.join(HERE, "..", "..", "..", "scripts", "netns.sh"),
                  "@NETNS_SH@"):
            if os.path.exists(c):
                a.netns_sh = c
                break
    if os.geteuid() != 0:
        print("devtcp-linuxcmp: needs root (namespaces, AF_PACKET)", file=sys.stderr)
        return 77
    if not a.netns_sh or not os.path.exists(a.netns_sh):
        print("devtcp-linuxcmp: scripts/netns.sh not found (--netns-sh)", file=sys.stderr)
        return 2
    losses = [float(x) for x in a.losses.split(",") if x != ""]
    r = Runner(a)
    out = {"program": "devtcp-linuxcmp", "duration_s": a.duration,
           "streams": a.streams, "mtu": a.mtu,
           "sender": "Linux TCP (kernel %s), zeros, same sender for both" %
                     os.uname().release,
           "cc_requested": a.cc or None, "sysctl": a.sysctl,
           "delay_us": a.delay_us, "jitter_us": a.jitter_us,
           "loss_mechanism": {"devtcp": "net_hsplit rx_loss= (per frame, "
                              "receive side)",
                              "linux": "nftables netdev ingress numgen random "
                              "(per frame, receive side)"},
           "results": []}
    try:
        r.up()
        for loss in losses:
            d = r.run_devtcp(loss)
            k = r.run_linux(loss)
            dm = d["bytes"] * 8 / d["seconds"] / 1e6
            km = k["bytes"] * 8 / k["seconds"] / 1e6
            row = {"loss_pct": loss, "devtcp_mbps": round(dm, 1),
                   "linux_mbps": round(km, 1),
                   "ratio": round(dm / km, 3) if km > 0 else None,
                   "devtcp_bytes": d["bytes"], "devtcp_seconds": round(d["seconds"], 3),
                   "devtcp_receiver_bytes": d["receiver_bytes"],
                   "linux_bytes": k["bytes"], "linux_seconds": round(k["seconds"], 3),
                   # What the sender sockets ran, read back from them.
                   "devtcp_sender_cc": d["cc"], "linux_sender_cc": k["cc"],
                   "sender_cc_default": d["cc_default"]}
            out["results"].append(row)
            print("loss %4.1f%%: devtcp %8.1f Mb/s  linux %8.1f Mb/s  "
                  "devtcp/linux %.2f  (sender cc %s, namespace default %s)" %
                  (loss, dm, km, row["ratio"] or 0, "/".join(d["cc"]),
                   d["cc_default"]), flush=True)
    finally:
        r.down()
    text = json.dumps(out, indent=2)
    print(text)
    if a.json:
        with open(a.json, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
