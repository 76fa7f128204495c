#!/usr/bin/env python3
"""devtcp on DPDK's own PMDs (not net_hsplit): against a Linux peer (a veth
pair into a network namespace, or the tap's kernel side), or devtcp-send
against devtcp-server in two processes (memif, virtio-user / vhost).

usage: check_pmds.py SERVER SEND NETNS_SH PMDDIR CASE
cases:
  af_xdp_rx, af_packet_rx, tap_rx
      Linux (socat) -> devtcp-server: 16 MiB of random bytes, SHA-256
      equal. The server asks for a split with its payload in gpu_sim
      device memory; none of these NICs splits, so lib/dp runs the port in
      copy mode and the bytes reach the application as DEVICE chunks.
  af_packet_rx_loss, af_xdp_rx_loss, tap_rx_loss
      as af_packet_rx, af_xdp_rx, tap_rx with 1 % of the Linux sender's TCP
      frames dropped on their way out (an nftables egress rule on the
      namespace's veth end, or on the tap's kernel side; netem is not in
      every kernel), the drops counted.
  af_xdp_tx, af_packet_tx, tap_tx
      devtcp-send -> Linux (socat): a 16 MiB file, SHA-256 equal. tap_tx
      runs with TSO on: net_tap refuses full-MSS TSO frames, lib/dp must
      see it, turn TSO off and send the data again (message, counters).
  af_xdp_tx_dev, af_packet_tx_dev
      the same with the file staged in gpu_sim device memory (--send-device):
      af_xdp has no multi-segment TX, af_packet no TX checksum offload, so
      lib/dp writes each frame's payload with the copy engine and the CPU
      sums the checksums over the host bytes.
  memif, vhost
      devtcp-send -> devtcp-server over net_memif (server and client
      roles), or net_virtio_user -> net_vhost: two processes, 16 MiB.
      virtio_user keeps sent mbufs: lib/dp must switch to frames that own
      their payload (message, tx_held_switch); memif must not.
Each case checks the start-up report's line for the port ("rx=copy
rx_cksum=cpu ...": what lib/dp decided from what the PMD offers) against
what the PMD offers in DPDK 22.11, and prints the goodput: the server's
stream rate (rx), the Linux receiver's first-to-last byte rate (tx).
Exit 77 when not root, or the PMD, namespaces or socat are missing.

DT_PMD_GPU=cuda (a GPU machine): the server's payload in CUDA memory
(--vdev=gpu_cuda0), rx cases only; exit 77 without a CUDA GPU.
devtcp-server checks received bytes only through a CPU map of the region
(its verify consumer: pattern or SHA-256), which gpu_cuda does not have
(no GDRCopy), and has no other check of device bytes (devtcp-bench's GPU
kernel compares with its own pattern, not with random bytes): such a run
counts the bytes, reports goodput and says in its output that the content
was NOT verified. DT_PMD_VERIFY=no takes that path on gpu_sim (how it is
tested without a GPU). devtcp-server does not link gpu_cuda: it gets the
plugin with -d, found as server-vs-bounce.sh finds it (the bundle's
plugins/, or build/drivers/gpu/cuda). DEVTCP_EAL_ARGS (set by the
bundle's run.sh) and DT_PMD_EAL are extra EAL arguments of the server.
On the GPU machine: bench/matrices/h200-pmds.txt.
"""
import hashlib
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SERVER, SEND, NETNS_SH, PMDDIR, CASE = sys.argv[1:6]
# Started from / (EAL refuses -d plugins under world-writable folders).
SERVER, SEND = os.path.abspath(SERVER), os.path.abspath(SEND)
TAG = os.getpid() % 100000
NS = "dtpmd%d" % TAG
TAP = "dttap%d" % TAG
# A subnet of the run's own: the tap cases and the baseline put addresses
# in the root namespace, where runs of other worktrees do the same.
NET = "10.84.%d." % (TAG % 250)
DEV_IP, LNX_IP = NET + "1", NET + "2"
TMP = tempfile.mkdtemp(prefix="dtpmds")
SIZE = 16 << 20
# tso = in the INI files (DT_PMD_TSO=no: an A/B of a PMD's TSO). net_tap
# refuses every full-MSS TSO frame (rte_eth_tap.c compares tso_segsz +
# headers, an Ethernet frame, with the MTU, an IP packet, counts an error
# and stops the burst there): lib/dp sees the frame refused at the head of
# its queue, turns TSO off and sends the data again as MSS frames
# (tap_tx checks that it did, and said so).
TSO = os.environ.get("DT_PMD_TSO", "yes")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
import dtcheck  # noqa: E402
from dtcheck import Checker  # noqa: E402

CK = Checker(NS)
failures = CK.failures
log = Checker.log
text = dtcheck.text

# What lib/dp must decide per PMD (DPDK 22.11's dev_info): no PMD here
# splits, so a split asked for becomes copy mode. Keys as the start-up
# report's fields.
EXPECT = {
    # af_xdp: no RX/TX offloads at all (one buffer per frame).
    "af_xdp": {"rx": "copy", "rx_cksum": "cpu", "tx_cksum": "cpu",
               "tx": "linear", "tso": "off"},
    # af_packet: TX MULTI_SEGS (and VLAN insert) only.
    "af_packet": {"rx": "copy", "rx_cksum": "cpu", "tx_cksum": "cpu",
                  "tx": "multi-seg", "tso": "off"},
    # tap: checksums in both directions (computed by the PMD), MULTI_SEGS,
    # TSO (on at start; see TSO above for what happens to it).
    "tap": {"rx": "copy", "rx_cksum": "nic", "tx_cksum": "nic",
            "tx": "multi-seg", "tso": "on"},
    # memif: TX MULTI_SEGS, nothing else.
    "memif": {"rx": "copy", "rx_cksum": "cpu", "tx_cksum": "cpu",
              "tx": "multi-seg", "tso": "off"},
    # vhost: TX MULTI_SEGS (checksums only with the guest's features).
    "vhost": {"rx": "copy", "tx": "multi-seg"},
}

PORT_INI = """[port]
mtu = 1500
split = {split}
tx_cksum = yes
tso = {tso}
[port.0]
name = {name}
"""
SERVER_INI = PORT_INI + """[stack]
port = 0
ipv4 = {dev}
listen = 5001
[devmem]
gpu = 0
buffers = 8192
[consumer]
{consumer}
"""
# Where the server's payload lands (DT_PMD_GPU, see the top) and whether
# its bytes can be checked there.
GPU = os.environ.get("DT_PMD_GPU", "sim")
VERIFY = GPU == "sim" and os.environ.get("DT_PMD_VERIFY", "yes") != "no"
GPU_VDEV = {"sim": "gpu_sim0,size=64M", "cuda": "gpu_cuda0"}.get(GPU)
CONSUMER = "mode = verify\npattern = none\nsha256 = yes" if VERIFY else \
    "mode = discard"
SEND_INI = PORT_INI + """[client]
port = 0
ipv4 = {dev}
connect = {peer}
conns = 1
file = {file}
chunk = 64K
"""


def eal(prefix):
    # One file per memseg list: vhost-user takes at most 8 memory regions,
    # a page per file would make hundreds (virtio_user refuses to start).
    return ["-l", "0-1", "--in-memory", "--single-file-segments", "--no-pci",
            "--file-prefix", "dtpmd%d%s" % (TAG, prefix),
            "--log-level=lib.eal:warning"]


def check(cond, what):
    return CK.check(cond, what)


def skip(why):
    CK.skip(why, cleanup)


def cleanup():
    CK.kill_all()
    if CASE == "tap_rx_loss":   # in the root namespace: not gone with NS
        nft, table, _ = loss_at("tap")
        subprocess.run(nft + ["delete", "table", "netdev", table],
                       capture_output=True)
    subprocess.run([NETNS_SH, "down", NS], capture_output=True)
    shutil.rmtree(TMP, ignore_errors=True)


def spawn(cmd, out, ns=False):
    return CK.spawn(cmd, out=out, ns=ns, cwd="/")


def sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def plugin(pmd):
    so = os.path.join(PMDDIR, "librte_net_%s.so" % pmd)
    if not os.path.exists(so):
        skip("%s not found" % so)
    return ["-d", so]


def vdev(pmd):
    """Port name and EAL arguments of @p pmd facing Linux."""
    name = "net_%s0" % pmd
    args = {"af_xdp": "iface=%s,start_queue=0,queue_count=1" % NS,
            "af_packet": "iface=%s" % NS,
            "tap": "iface=%s" % TAP}[pmd]
    return name, plugin(pmd) + ["--vdev=%s,%s" % (name, args)]


def host_up(pmd, loss=False):
    """The Linux side: a namespace over a veth, or (tap) the root namespace
    (the veth is made anyway, for the baseline). @return: in the namespace."""
    r = subprocess.run([NETNS_SH, "up", NS, "--addr", LNX_IP + "/24", "--mtu", "1500"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        skip("cannot make the test host: " + r.stderr.strip())
    if loss and pmd != "tap":   # the tap's rule: once the PMD made it
        loss_add(pmd)
    return pmd != "tap"


def loss_at(pmd):
    """nft command, table and device of the drop rule: the namespace's veth
    end, or (tap) the tap's kernel side in the root namespace, whose
    egress is what Linux sends towards devtcp (a table of this run's own)."""
    if pmd == "tap":
        return ["nft"], "dtloss%d" % TAG, TAP
    return ["ip", "netns", "exec", NS, "nft"], "dtloss", "eth0"


def loss_add(pmd):
    """Drop 1 % of the TCP frames Linux sends towards devtcp."""
    nft, table, dev = loss_at(pmd)
    # The hook sees what TCP hands the device: GSO packets of ~20 frames,
    # cut after the hook even with gso off (this VM's 6.18 kernel: 16 MiB
    # are ~600 of them). The tap drops every 100th from the 51st, so that
    # every run drops a few (a random 1 % of 600 is sometimes none).
    pick = ["inc", "mod", "100", "50"] if pmd == "tap" else \
        ["random", "mod", "100", "0"]
    for cmd in (["add", "table", "netdev", table],
                ["add", "chain", "netdev", table, "out",
                 "{ type filter hook egress device %s priority 0; }" % dev],
                # Every TCP frame counted first, then 1 % dropped.
                ["add", "rule", "netdev", table, "out", "meta", "l4proto",
                 "tcp", "counter"],
                ["add", "rule", "netdev", table, "out", "meta", "l4proto",
                 "tcp", "numgen"] + pick + ["counter", "drop"]):
        r = subprocess.run(nft + cmd, capture_output=True, text=True)
        if r.returncode != 0:
            skip("cannot drop 1 %% of the frames (nft %s): %s" %
                 (" ".join(cmd[:2]), r.stderr.strip()))


def linux_baseline(rx):
    """Kernel TCP over the same veth, the same 16 MiB (the root end gets
    the PMD side's address for the while): Gb/s, printed for the ratio."""
    f = data_file()
    out = os.path.join(TMP, "base")
    # netns.sh keeps the kernel off the PMD's end (no ARP answers there).
    arp = "/proc/sys/net/ipv4/conf/%s/arp_ignore" % NS
    if subprocess.run(["ip", "addr", "add", DEV_IP + "/24", "dev", NS]).returncode != 0:
        return None
    open(arp, "w").write("0")
    try:
        lsn = spawn(["socat", "-u", "TCP-LISTEN:5009,reuseaddr,bind=%s" %
                     (DEV_IP if rx else LNX_IP), "OPEN:%s,creat,trunc" % out],
                    os.path.join(TMP, "base-lsn.log"), ns=not rx)
        time.sleep(0.5)
        spawn(["socat", "-u", "OPEN:" + f, "TCP:%s:5009" % (DEV_IP if rx else LNX_IP)],
              os.path.join(TMP, "base-snd.log"), ns=rx)
        rate = receiver_rate(lsn, out, 60)
    finally:
        open(arp, "w").write("8")
        subprocess.run(["ip", "addr", "del", DEV_IP + "/24", "dev", NS])
        subprocess.run(["ip", "-n", NS, "neigh", "flush", "dev", "eth0"])
    if rate is not None:
        log("baseline %s linux-veth: %.3f Gb/s" % (CASE, rate))
    return rate


def goodput(name, rate, base):
    log("goodput %s %s: %.3f Gb/s%s" % (CASE, name, rate, "" if not base else
        " (%.2f of Linux over the same veth)" % (rate / base)))


def loss_dropped(pmd):
    """Frames the egress rule dropped (loss_add)."""
    nft, table, _ = loss_at(pmd)
    r = subprocess.run(nft + ["list", "table", "netdev", table],
                       capture_output=True, text=True)
    n = [int(x) for x in re.findall(r"counter packets (\d+)", r.stdout)]
    if len(n) != 2:
        return -1
    log("loss %s: %d of %d TCP frames dropped" % (CASE, n[1], n[0]))
    return n[1]


def tap_linux_side():
    """The tap's kernel interface (made by the PMD) gets the Linux address."""
    end = time.time() + 10
    while time.time() < end and subprocess.run(
            ["ip", "link", "show", TAP], capture_output=True).returncode != 0:
        time.sleep(0.1)
    r = subprocess.run("ip addr add %s/24 dev %s && ip link set %s up" %
                       (LNX_IP, TAP, TAP), shell=True, capture_output=True,
                       text=True)
    return check(r.returncode == 0, "tap interface %s has %s (%s)" %
                 (TAP, LNX_IP, r.stderr.strip()))


def decisions(p, pmd, rx=None):
    """Check the start-up report's line of the port against EXPECT (@p rx: placement)."""
    m = re.search(r"devtcp: port \d+ \((receiver|sender)\): (rx=\S+ .*)", text(p))
    check(m is not None, "the start-up report says what lib/dp decided for %s" % pmd)
    if m is None:
        return
    got = dict(kv.split("=", 1) for kv in m.group(2).split() if "=" in kv)
    want = dict(EXPECT[pmd], **({"rx": rx} if rx else {}))
    if TSO == "no" and want.get("tso") == "on":
        want["tso"] = "off"
    # The PMD's TX completion: what lib/dp decided to do about it.
    if "tx_done" in got:
        check(got["tx_done"] in ("cleanup", "copy-if-held"),
              "tx_done decided for %s (%s)" % (pmd, got["tx_done"]))
    bad = {k: (v, got.get(k)) for k, v in want.items() if got.get(k) != v}
    check(not bad, "decisions on %s: %s (differences: %s)" % (pmd, m.group(2), bad))


def gpu_eal():
    """The server's extra EAL arguments and its GPU (gpu_cuda: the plugin)."""
    extra = shlex.split(os.environ.get("DEVTCP_EAL_ARGS", "")) + \
        shlex.split(os.environ.get("DT_PMD_EAL", ""))
    if GPU != "cuda":
        return extra + ["--vdev=" + GPU_VDEV]
    here = os.path.dirname(os.path.abspath(__file__))
    sos = [os.path.join(here, "..", "plugins", "librte_gpu_cuda.so"),
           os.path.join(os.path.dirname(SERVER), "..", "..", "drivers", "gpu",
                        "cuda", "librte_gpu_cuda.so")]
    for so in sos:
        if os.path.exists(so):
            return extra + ["-d", os.path.abspath(so), "--vdev=" + GPU_VDEV]
    skip("DT_PMD_GPU=cuda: no gpu_cuda plugin (%s)" % ", ".join(sos))
    return []


def server_up(name, args):
    """devtcp-server (payload in GPU_VDEV's memory) on port @p name, running."""
    ini = os.path.join(TMP, "srv.ini")
    open(ini, "w").write(SERVER_INI.format(name=name, dev=DEV_IP, split="proto",
                                           tso=TSO, consumer=CONSUMER))
    srv = spawn([SERVER] + eal("s") + gpu_eal() + args + ["--",
                                               "--config", ini, "--drain", "1"],
                os.path.join(TMP, "srv.log"))
    ok = dtcheck.wait_text(srv, r"running \(SIGINT", 40)
    check(ok, "devtcp-server starts on %s" % name)
    if not ok:
        log(text(srv)[-3000:])
    return srv if ok else None


def server_result(srv, name, data, what, base=None):
    os.killpg(srv.pid, signal.SIGTERM)
    srv.wait(timeout=20)
    out = text(srv)
    if VERIFY:
        got = re.findall(r"closed: (\d+) bytes, sha256 ([0-9a-f]{64}) in [\d.]+ s \(([\d.]+) Gb/s\)", out)
        check([g[:2] for g in got] == [(str(SIZE), sha(data))],
              "16 MiB received on %s from %s, SHA-256 equal (%s)" % (name, what, got))
    else:
        # (bytes, rate) as (bytes, no digest, rate): the same shape.
        got = [(g[0], "", g[1]) for g in re.findall(
            r"closed: (\d+) bytes in [\d.]+ s \(([\d.]+) Gb/s\)", out)]
        check([g[0] for g in got] == [str(SIZE)],
              "16 MiB counted on %s from %s (%s)" % (name, what, got))
        log("NOT VERIFIED: the bytes' content was not checked (%s): byte count "
            "and goodput only" % ("gpu_cuda: no CPU map of its memory, and "
                                  "devtcp-server has no other check"
                                  if GPU == "cuda" else "DT_PMD_VERIFY=no"))
    cp = re.findall(r"copy mode: (\d+) payload bytes copied into device memory", out)
    check(cp and int(cp[0]) >= SIZE,
          "the payload went into gpu_%s memory by the copy engine (%s bytes)" % (GPU, cp))
    check(srv.returncode == 0, "server exit 0 (%s)" % srv.returncode)
    if got:
        goodput(name, float(got[0][2]), base)
    if failures:
        log(out[-3000:])


def data_file():
    f = os.path.join(TMP, "data")
    open(f, "wb").write(os.urandom(SIZE))
    return f


def rx_case(pmd, loss=False):
    name, args = vdev(pmd)
    ns = host_up(pmd, loss)
    base = linux_baseline(True)
    srv = server_up(name, args)
    if srv is None:
        return
    decisions(srv, pmd)
    if pmd == "tap" and not tap_linux_side():
        return
    if loss and pmd == "tap":
        loss_add(pmd)
    f = data_file()
    # The tap's side is the root namespace, where another run's tap may
    # route the same subnet: the sender goes out of this run's tap.
    dst = "TCP:%s:5001" % DEV_IP + ("" if ns else ",so-bindtodevice=" + TAP)
    snd = spawn(["socat", "-u", "OPEN:" + f, dst],
                os.path.join(TMP, "socat.log"), ns=ns)
    try:
        rc = snd.wait(timeout=120)
    except subprocess.TimeoutExpired:
        rc = None
    check(rc == 0, "the Linux sender finished (rc %s)" % rc)
    time.sleep(0.5)
    if loss:
        n = loss_dropped(pmd)
        check(n > 0, "the Linux sender's frames were dropped on the way (%d)" % n)
    server_result(srv, name, f, "Linux" + (" at 1 % loss" if loss else ""), base)


def receiver_rate(lsn, out, timeout):
    """Wait for the Linux receiver; Gb/s from its first byte to its exit."""
    end, first = time.time() + timeout, None
    while time.time() < end and lsn.poll() is None:
        if first is None and os.path.exists(out) and os.path.getsize(out) > 0:
            first = time.time()
        time.sleep(0.01)
    last = time.time()
    if lsn.poll() is None or first is None or last <= first:
        return None
    return SIZE * 8 / (last - first) / 1e9


def tx_case(pmd, dev=False):
    """devtcp-send -> Linux; @p dev: the file staged in gpu_sim memory and
    sent from there (the port has no multi-segment TX or no TX checksum
    offload: lib/dp writes each frame's payload with the copy engine)."""
    name, args = vdev(pmd)
    ns = host_up(pmd)
    base = linux_baseline(False)
    f = data_file()
    out = os.path.join(TMP, "recv")
    ini = os.path.join(TMP, "send.ini")
    open(ini, "w").write(SEND_INI.format(name=name, dev=DEV_IP, split="none", tso=TSO,
                                         peer=LNX_IP + ":5002", file=f) +
                         ("[devmem]\ngpu = 0\n" if dev else ""))
    if dev:
        args = args + ["--vdev=gpu_sim0,size=64M"]
    # Listening before the sender starts: it connects at once. On the tap
    # the address comes only with the interface (the sender's port), so
    # the listener takes any address (a SYN before the address is set is
    # not for this host: dropped, sent again); listening after the sender
    # started lost the race now and then (RST: connection refused).
    lsn = spawn(["socat", "-u", "TCP-LISTEN:5002,reuseaddr",
                 "OPEN:%s,creat,trunc" % out], os.path.join(TMP, "socat.log"), ns=ns)
    time.sleep(0.5)
    snd = spawn([SEND] + eal("c") + args + ["--", "--config", ini, "--drain", "2"] +
                (["--send-device"] if dev else []), os.path.join(TMP, "send.log"))
    if not ns:
        # The tap's kernel side exists once the sender's port is up.
        if not tap_linux_side():
            return
    rate = receiver_rate(lsn, out, 90)
    try:
        rc = snd.wait(timeout=30)
    except subprocess.TimeoutExpired:
        rc = None
    check(rc == 0, "devtcp-send on %s finished (rc %s)" % (name, rc))
    check(os.path.exists(out) and sha(out) == sha(f),
          "Linux received the 16 MiB file byte-exact")
    # A sender asks for no split (it receives ACKs only): whole frames.
    decisions(snd, pmd, rx="host")
    if pmd == "tap" and TSO == "yes":
        tso_refused(snd)
    if dev:
        sent_from_device(snd)
    if rate is not None:
        goodput(name, rate, base)
    # What the sender's stack counted (drops and run-time changes).
    for line in re.findall(r".*frames in, .* connected; drops:.*", text(snd)):
        log(line.strip())
    if rc != 0 or failures:
        log(text(snd)[-3000:])


def sent_from_device(p):
    """The file went from gpu_sim memory, every payload byte written into
    the frames by the copy engine, nothing refused."""
    out = text(p)
    staged = re.findall(r"sender: (\d+) bytes staged in device memory", out)
    check(staged == [str(SIZE)], "the 16 MiB were staged in gpu_sim memory (%s)" % staged)
    cp = re.findall(r"stack \d+: (\d+) bytes of device payload copied into frames "
                    r"by the copy engine", out)
    check(len(cp) == 1 and int(cp[0]) >= SIZE,
          "the copy engine wrote the payload into the frames (%s bytes)" % cp)
    check("tx_device_refused" not in out, "no send from device memory refused")


def held(p, expect):
    """virtio_user keeps sent mbufs until its ring needs room and cannot be
    asked to free them: lib/dp must have seen an acknowledged send wait,
    said so once and written payload into its frames since (tx_held_switch
    1). memif frees at once: nothing of the kind."""
    out = text(p)
    for line in re.findall(r".*frames in, .* connected; drops:.*", out):
        log(line.strip())
    for line in re.findall(r"dp: port .*(?:wait|free).*", out):
        log(line.strip())
    said = re.findall(r"an acknowledged send still waits after (\d+) ms for the PMD "
                      r"to free its TX buffers.*frames own their payload from now on", out)
    n = re.findall(r"tx_held_switch (\d+)", out)
    if expect:
        check(len(said) == 1, "lib/dp said once that the PMD keeps sent mbufs (%s)" % said)
        check(n == ["1"], "tx_held_switch counted once (%s)" % n)
    else:
        check(not said and not n, "no switch on a PMD that frees at once (%s %s)" % (said, n))


def tso_refused(p):
    """net_tap refuses full-MSS TSO frames: lib/dp saw it, said so once,
    counted it, and the data went again as MSS frames (the file arrived)."""
    out = text(p)
    said = re.findall(r"the PMD refused a TSO frame of (\d+) bytes \(tso_segsz (\d+)\) "
                      r"(\d+) times in (\d+) us \((\d+) TX errors counted\): TSO off", out)
    check(len(said) == 1, "lib/dp said once that net_tap refused a TSO frame "
          "and turned TSO off (%s)" % said)
    n = re.findall(r"tx_tso_refused (\d+)", out)
    check(n == ["1"], "tx_tso_refused counted once in the stack's report (%s)" % n)
    d = re.findall(r"tx_refused_dropped (\d+)", out)
    check(len(d) == 1 and int(d[0]) >= 1,
          "the refused frames were dropped and counted (%s)" % d)
    if said:
        log("tap TSO refusal: %s bytes, tso_segsz %s, %s tries in %s us, %s errors"
            % said[0])


def pair_case(pmd):
    """devtcp-send -> devtcp-server, two processes on one virtual link."""
    sock = os.path.join(TMP, pmd + ".sock")
    if pmd == "memif":
        srv_name, snd_name = "net_memif0", "net_memif1"
        srv_args = plugin("memif") + ["--vdev=%s,role=server,id=0,socket=%s" % (srv_name, sock)]
        snd_args = plugin("memif") + ["--vdev=%s,role=client,id=0,socket=%s" % (snd_name, sock)]
    else:
        srv_name, snd_name = "net_vhost0", "virtio_user0"
        srv_args = plugin("vhost") + ["--vdev=%s,iface=%s,queues=1" % (srv_name, sock)]
        snd_args = plugin("virtio") + ["--vdev=%s,path=%s,queues=1" % (snd_name, sock)]
    f = data_file()
    ini = os.path.join(TMP, "send.ini")
    open(ini, "w").write(SEND_INI.format(name=snd_name, dev=NET + "3", split="none", tso=TSO,
                                         peer=DEV_IP + ":5001", file=f))
    send = [SEND] + eal("c") + snd_args + ["--", "--config", ini, "--drain", "1"]
    srv = server_up(srv_name, srv_args)
    snd = spawn(send, os.path.join(TMP, "send.log")) if srv else None
    if srv is None:
        return
    decisions(srv, pmd)
    try:
        rc = snd.wait(timeout=30)   # 16 MiB take a second or two here
    except subprocess.TimeoutExpired:
        rc = None
        # Stopped, it still says where its connection stands.
        os.killpg(snd.pid, signal.SIGTERM)
        dtcheck.wait_text(snd, "stopped", 10)
    check(rc == 0, "devtcp-send on %s finished (rc %s)" % (snd_name, rc))
    held(snd, pmd == "vhost")
    if rc != 0:
        log(text(snd)[-3000:])
    time.sleep(0.5)
    server_result(srv, srv_name, f, "devtcp-send on " + snd_name)


def main():
    if os.geteuid() != 0:
        skip("needs root")
    if shutil.which("socat") is None:
        skip("socat is missing")
    if GPU_VDEV is None:
        failures.append("DT_PMD_GPU=%s: sim or cuda" % GPU)
        log("FAIL DT_PMD_GPU=%s: sim or cuda" % GPU)
        sys.exit(1)
    if GPU == "cuda" and "_rx" not in CASE:
        skip("DT_PMD_GPU=cuda runs the rx cases only (%s: not prepared)" % CASE)
    if GPU == "cuda" and not os.path.exists("/dev/nvidiactl"):
        skip("DT_PMD_GPU=cuda: no CUDA GPU here (no /dev/nvidiactl)")
    try:
        if CASE in ("memif", "vhost"):
            pair_case(CASE)
        elif CASE.endswith("_tx_dev"):
            tx_case(CASE[:-len("_tx_dev")], dev=True)
        elif CASE.endswith("_rx_loss"):
            rx_case(CASE[:-len("_rx_loss")], loss=True)
        else:
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
