"""The ingest soak (check_ingest.py's `soak` case, bench/soak.sh): everything
a long-running devtcp-server meets at once, for DT_SOAK_SECONDS.

- The ingest server on a veth (net_hsplit's interface backend, 2 stacks,
  gpu_sim), with net_hsplit's seeded faults on both directions
  (DT_SOAK_FAULTS; default 1 % each of loss, duplication, reordering and
  corruption). Each round:
  - long-ish streams: 4 Linux senders (socat, 1-6 MiB) on ports 5001 and
    5002, taken by fresh C clients; every 4th round a client that SIGKILLs
    itself mid-stream, its stream re-offered (on_client_exit = reoffer);
  - churn: CHURN short connections (1-64 KiB each, one after the other,
    churn_peer.py) on port 5003, taken by one client;
  - every 4th round (another phase) devtcp-send in the Linux host's
    namespace, on the same veth with an address and MAC of its own,
    sends a file to port 5004, every other time from device memory
    (--send-device).
  Every stream's SHA-256 is checked against its file.
- Beside it for the whole run: a second devtcp-server with a [client]
  on net_hsplit's loopback wire (the sender's code is devtcp-send's), 4
  endless connections, the same faults on both ports, its consumer
  checking every byte against the stream pattern.
- Sampled every round: both processes' RSS and open files, the ingest
  server's DPDK heap (telemetry /eal/heap_info: bytes and blocks
  allocated) and its region's free buffers (/devtcp/devmem); they must
  not grow. At the end: the region's buffers back, the deaths counted,
  only corrupted frames dropped, every loopback stream's pattern intact.
"""
import json
import os
import random
import re
import signal
import time

CHURN = 25
LW_INI = """[port]
mtu = 1500
split = proto
[port.0]
name = net_hsplit_sk0
[port.1]
name = net_hsplit_sk1
split = none
[lcores]
stacks = 1
[stack]
port = 0
ipv4 = 10.0.0.1
netmask = 255.255.255.0
listen = 5001
[devmem]
gpu = 0
buffers = 8192
buffer_size = 2048
header_buffers = 8192
[limits]
window = 1M
[consumer]
mode = verify
pattern = stream
sha256 = yes
[client]
port = 1
ipv4 = 10.0.0.2
netmask = 255.255.255.0
connect = 10.0.0.1:5001
conns = 4
bytes = 4096G
chunk = 64K
"""
SEND_INI = """[port]
mtu = 1500
split = none
[port.0]
name = net_hsplit_sks
[client]
port = 0
ipv4 = 10.79.0.3
netmask = 255.255.255.0
connect = {dev}:5004
conns = 1
file = {file}
chunk = 64K
"""
SEND_MAC = "02:00:0a:4f:00:03"
# Corrupted frames are dropped by their checksums (a flipped header byte
# may make a bad TCP header first); nothing else may be.
BAD_SUM = {"drop_l4_cksum", "drop_bad_tcp", "drop_bad_ip", "drop_ip_cksum"}


def proc_status(pid):
    """(RSS in KiB, open fds) of process @p pid."""
    rss = 0
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
    return rss, len(os.listdir("/proc/%d/fd" % pid))


def growth(xs):
    """Last samples' median less the first ones' (after a warm-up)."""
    if len(xs) < 8:
        return 0
    warm = xs[2:]
    k = max(3, len(warm) // 10)
    med = lambda v: sorted(v)[len(v) // 2]
    return med(warm[-k:]) - med(warm[:k])


def drop_counts(server_text):
    """({drop counter: total}, stack report lines) from the exit report."""
    lines = re.findall(r"\((?:server|client), queue \d+\).*drops: (.*)", server_text)
    counts = {}
    for line in lines:
        for k, v in re.findall(r"(\w+) (\d+)", line):
            counts[k] = counts.get(k, 0) + int(v)
    return counts, lines


class Soak:
    def __init__(self, ci):
        self.ci = ci
        self.secs = float(os.environ.get("DT_SOAK_SECONDS", "60"))
        self.faults = os.environ.get("DT_SOAK_FAULTS", ",".join(
            "%s%s=0.01" % (d, f) for d in ("", "rx_")
            for f in ("loss", "dup", "reorder", "corrupt")))
        self.send_bin = os.path.join(os.path.dirname(ci.SERVER), "devtcp-send")
        self.failed, self.samples = [], []
        self.n = {"rounds": 0, "streams": 0, "bytes": 0, "kill_rounds": 0,
                  "churn_conns": 0, "send_streams": 0, "send_device": 0}

    # ------------------------------------------------------------ helpers

    def files(self):
        ci = self.ci
        self.big = [ci.rand_file("soak%d" % i, (1 + i) * ci.MIB) for i in range(6)]
        rnd = random.Random(25)
        self.small = [ci.rand_file("churn%d" % i, rnd.randint(1, 64) << 10)
                      for i in range(3 * CHURN)]

    def start_loopback(self):
        """The second server: a sender and a receiver on the loopback wire."""
        ci = self.ci
        ini = os.path.join(ci.TMP, "lw.ini")
        with open(ini, "w") as f:
            f.write(LW_INI)
        # On a loopback wire each port's faults act on the frames it sends:
        # the TX faults on both ports fault both directions (rx_* are the
        # interface backend's).
        f = ",".join(x for x in self.faults.split(",")
                     if x and not x.startswith("rx_"))
        vd = lambda i: "--vdev=net_hsplit_sk%d,wire=sk%d%s" % (
            i, ci.PID, ("," + f) if f else "")
        p = ci.spawn([ci.SERVER, "--lcores", "0@0,1@1", "--no-huge", "-m",
                      "512", "--no-pci", "--file-prefix", "dtsk%d" % ci.PID,
                      "--log-level=lib.eal:warning", vd(0), vd(1),
                      "--vdev=gpu_sim_sk,size=64M", "--", "--config", ini,
                      "--drain", "1"], out=os.path.join(ci.TMP, "lw.server"))
        if not ci.wait_text(p, r"running \(SIGINT", 40):
            raise RuntimeError("loopback server did not start: " + ci.text(p)[-2000:])
        return p

    def devtcp_send(self, path, device):
        """devtcp-send in the Linux host's namespace, on its veth end."""
        ci = self.ci
        ini = os.path.join(ci.TMP, "send.ini")
        with open(ini, "w") as f:
            f.write(SEND_INI.format(dev=ci.DEV_IP, file=path))
        return ci.spawn([self.send_bin, "--lcores", "0@0,1@1", "--no-huge",
                         "-m", "512", "--no-pci", "--file-prefix",
                         "dtss%d" % ci.PID, "--log-level=lib.eal:warning",
                         "--vdev=net_hsplit_sks,iface=eth0,mac=" + SEND_MAC,
                         "--vdev=gpu_sim_sks,size=64M", "--", "--config", ini,
                         "--duration", "60"] +
                        (["--send-device"] if device else []),
                        ns=True, out=os.path.join(ci.TMP, "devtcp-send.out"))

    def churn(self, r):
        ci = self.ci
        pick = [self.small[(r * CHURN + i) % len(self.small)] for i in range(CHURN)]
        peer = os.path.join(os.path.dirname(os.path.abspath(__file__)), "churn_peer.py")
        return pick, ci.spawn(["python3", peer, ci.DEV_IP, "5003"] + pick, ns=True,
                              out=os.path.join(ci.TMP, "churn.out"))

    # ------------------------------------------------------------ a round

    def round(self, r):
        """One round; [] or what went wrong."""
        ci = self.ci
        kill, dsend = r % 4 == 3, r % 4 == 1
        pick = [self.big[(r * 4 + i) % len(self.big)] for i in range(4)]
        f1, f2 = pick[:2], pick[2:]
        a = ci.take("a", 5001, "--streams", 2, "--timeout", 60)
        clients = [a]
        if kill:   # attached first: it gets one of port 5002's streams
            clients.append(ci.take("v", 5002, "--streams", 2, "--die-after",
                                   ci.MIB // 2, "--timeout", 60))
        b = ci.take("b", 5002, "--streams", 2, "--timeout", 60)
        c = ci.take("c", 5003, "--streams", CHURN, "--timeout", 60)
        clients += [b, c]
        senders = ci.send(f1, 5001) + ci.send(f2, 5002)
        small, churn = self.churn(r)
        senders.append(churn)
        if dsend:
            dfile = self.big[r % len(self.big)]
            device = (r // 4) % 2 == 1
            d = ci.take("d", 5004, "--streams", 1, "--timeout", 60)
            clients.append(d)
            senders.append(self.devtcp_send(dfile, device))
        rcs = ci.waitall(senders, 90)
        ci.waitall(clients, 60)
        bad = []
        if rcs != [0] * len(rcs):
            bad.append("senders %s" % rcs)
            if rcs[4] != 0:
                bad.append("churn: " + ci.text(churn)[-300:])
        size = os.path.getsize
        if sorted(ci.streams_of(ci.text(a))) != sorted((0, size(f), ci.sha(f)) for f in f1):
            bad.append("port 5001 streams differ")
        got = ci.streams_of(ci.text(b))
        ok = sum(any(o + n == size(f) and ci.sha(f, o) == h for f in f2)
                 for o, n, h in got)
        if len(got) != 2 or ok != 2 or (not kill and any(o != 0 for o, _, _ in got)):
            bad.append("port 5002 streams differ (%d of %d)" % (ok, len(got)))
        if kill and clients[1].returncode != -signal.SIGKILL:
            bad.append("the victim did not die (%s)" % clients[1].returncode)
        want = sorted((0, size(f), ci.sha(f)) for f in small)
        if sorted(ci.streams_of(ci.text(c))) != want:
            bad.append("churn streams differ (%d of %d)" % (
                len(set(ci.streams_of(ci.text(c))) & set(want)), CHURN))
        n = self.n
        n["bytes"] += sum(size(f) for f in pick + small)
        n["streams"] += 4 + CHURN
        n["churn_conns"] += CHURN
        n["kill_rounds"] += kill
        if dsend:
            if ci.streams_of(ci.text(d)) != [(0, size(dfile), ci.sha(dfile))]:
                bad.append("devtcp-send's stream differs%s: %s" % (
                    " (device memory)" if device else "",
                    ci.text(senders[-1])[-600:]))
            n["bytes"] += size(dfile)
            n["streams"] += 1
            n["send_streams"] += 1
            n["send_device"] += device
        return bad

    def sample(self, r, t0, srv, lw):
        ci = self.ci
        rss, fds = proc_status(srv.pid)
        lrss, lfds = proc_status(lw.pid)
        heap = ci.telemetry("/eal/heap_info,0") or {}
        dm = ci.telemetry("/devtcp/devmem") or {}
        s = {"t": round(time.time() - t0, 1), "round": r, "rss_kib": rss,
             "fds": fds, "lw_rss_kib": lrss, "lw_fds": lfds,
             "heap_alloc": heap.get("Alloc_size", -1),
             "heap_blocks": heap.get("Alloc_count", -1),
             "free_buffers": dm.get("free_buffers", -1)}
        self.samples.append(s)
        return s

    # ------------------------------------------------------------ checks

    def check_flat(self):
        ci, sm = self.ci, self.samples
        g = {k: growth([x[k] for x in sm]) for k in
             ("rss_kib", "fds", "lw_rss_kib", "lw_fds", "heap_alloc", "heap_blocks")}
        first, last = (sm[0], sm[-1]) if sm else ({}, {})
        ci.check(g["rss_kib"] <= 4096 and g["lw_rss_kib"] <= 4096,
                 "soak: RSS flat: ingest server %+d KiB (%s -> %s), loopback "
                 "server %+d KiB" % (g["rss_kib"], first.get("rss_kib"),
                                     last.get("rss_kib"), g["lw_rss_kib"]))
        ci.check(g["fds"] <= 2 and g["lw_fds"] <= 2,
                 "soak: open files flat (%+d, %+d)" % (g["fds"], g["lw_fds"]))
        ci.check(sm and min(x["heap_alloc"] for x in sm) > 0 and
                 g["heap_alloc"] <= 1 << 20 and g["heap_blocks"] <= 16,
                 "soak: the ingest server's DPDK heap flat (%+d bytes, %+d "
                 "blocks allocated from the first rounds to the last)" % (
                     g["heap_alloc"], g["heap_blocks"]))
        return g

    def check_loopback(self, lw):
        ci = self.ci
        rc = ci.stop(lw)
        t = ci.text(lw)
        streams = re.findall(r"stream \d+ closed: (\d+) bytes, pattern (\w+)", t)
        acked = [int(x) for x in re.findall(r"sender: stream \d+ \w+: (\d+) of", t)]
        got = sum(int(b) for b, _ in streams)
        ci.check(rc == 0 and len(streams) == 4 and all(p == "ok" for _, p in streams)
                 and len(acked) == 4 and got >= sum(acked) > 0,
                 "soak: loopback wire: 4 endless streams, %d bytes received "
                 "(>= the %d the sender saw acknowledged), every byte as the "
                 "pattern says (%s; exit %s)" % (got, sum(acked), streams, rc))
        counts, lines = drop_counts(t)
        # Stopping aborts the endless streams: frames still on the wire
        # then find no connection.
        other = {k: v for k, v in counts.items()
                 if k not in BAD_SUM and k != "drop_no_conn"}
        ci.check(len(lines) == 2 and not other,
                 "soak: loopback wire: only corrupted frames dropped (%s)" % lines)
        return got, counts

    def check_server(self, srv):
        ci = self.ci
        ci.check(ci.stop(srv) == 0, "server exit 0")
        st = ci.text(srv)
        pl = ci.pools(st)
        ci.check(len(pl) >= 2 and 0 <= pl[0][0] - pl[-1][0] <= 2 * ci.HSPLIT_STASH,
                 "soak: region buffers free at the end = at the start, less "
                 "the NIC's refill stash (%s)" % (pl[:1] + pl[-1:],))
        deaths = re.search(r"ingest: (\d+) clients attached, (\d+) detached, "
                           r"(\d+) went away", st)
        kills = self.n["kill_rounds"]
        ci.check(deaths is not None and int(deaths.group(3)) == kills,
                 "soak: the server counted %d deaths (%s)" % (
                     kills, deaths.groups() if deaths else None))
        counts, lines = drop_counts(st)
        other = {k: v for k, v in counts.items() if k not in BAD_SUM}
        corrupt = "corrupt" in self.faults
        ci.check(len(lines) == 2 and not other and
                 (not corrupt or sum(counts.values()) > 0),
                 "soak: the stacks dropped only corrupted frames%s (%s)" % (
                     " (and some were)" if corrupt else "", lines))
        return pl, counts

    # ------------------------------------------------------------ the run

    def run(self):
        ci, n = self.ci, self.n
        ci.log("soak: %.0f s, faults: %s" % (self.secs, self.faults or "none"))
        srv = ci.start_server("soak", on_exit="reoffer", quota=1024,
                              faults=self.faults)
        lw = self.start_loopback()
        self.files()
        t0, r = time.time(), 0
        while time.time() - t0 < self.secs and srv.poll() is None and lw.poll() is None:
            bad = self.round(r)
            s = self.sample(r, t0, srv, lw)
            if bad:
                self.failed.append((r, bad))
                ci.log("round %d: %s" % (r, "; ".join(bad)))
            r += 1
            if r % 20 == 0:
                ci.log("soak: %d rounds, %.0f s, RSS %d/%d KiB, heap %d B, "
                       "%d failed" % (r, s["t"], s["rss_kib"], s["lw_rss_kib"],
                                      s["heap_alloc"], len(self.failed)))
        n["rounds"] = r
        ci.check(lw.poll() is None and srv.poll() is None,
                 "soak: both servers ran to the end")
        ci.check(r >= 2 and not self.failed,
                 "soak: %d rounds in %.0f s: %d streams (%d short connections, "
                 "%d from devtcp-send, %d of them from device memory, %d rounds "
                 "with a client killed mid-stream), every stream byte-exact (%d "
                 "rounds failed)" % (r, time.time() - t0, n["streams"],
                                     n["churn_conns"], n["send_streams"],
                                     n["send_device"], n["kill_rounds"],
                                     len(self.failed)))
        g = self.check_flat()
        lw_bytes, lw_drops = self.check_loopback(lw)
        pl, drops = self.check_server(srv)
        if os.environ.get("DT_SOAK_JSON"):
            with open(os.environ["DT_SOAK_JSON"], "w") as f:
                json.dump(dict(n, seconds=self.secs, faults=self.faults,
                               drops=drops, loopback_bytes=lw_bytes,
                               loopback_drops=lw_drops, growth=g, pools=pl,
                               failed_rounds=self.failed,
                               samples=self.samples), f, indent=1)


def case_soak(ci):
    Soak(ci).run()
