#!/usr/bin/env python3
"""SYN flood benchmark: devtcp-server on a veth (net_hsplit iface=) against
a flooder in a network namespace.

usage: run.py SERVER FLOODER NETNS_SH [--rates 0,10000,100000]
              [--seconds 12] [--conns 50] [--mib 32] [--json FILE]
              [--control 0|1]

After a warm-up transfer, for each flood rate (0 = no flood) it runs a
control phase (the same flood aimed at an address inside the namespace:
the flooder's own CPU cost on a small machine, devtcp sees nothing) and the
flood phase, each measuring while the flood goes on:
  - CONNS legitimate connections from the namespace (socat, 1000 bytes
    each, ten at a time); one succeeds when devtcp-server logs its stream
    closed with all 1000 bytes (the server's view, not socat's);
  - one transfer of MIB MiB (socat), its goodput (wall clock);
  - the server's /devtcp/stats (SYN queue and cookie counters), its RSS
    (host RSS: without the simulated GPU's memfd, which fills as payload
    buffers are first used) and the DPDK heap's allocated bytes (telemetry
    /eal/heap_info,0).
The flooder (dt-synflood) sends SYNs with Linux's options from 16
addresses of the namespace whose incoming traffic nftables drops, so
nobody answers the SYN-ACKs (as with spoofed sources) but ARP works.
Prints a table and one JSON document; exit 1 when the server did not
start, the flooder sent nothing, or telemetry did not answer: figures are
never made up. Figures from a small VM are rough: the flooder, socat and
the kernel share its CPUs with devtcp's polling lcore.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

PID = os.getpid()
NS = "dtsyn%d" % (PID % 100000)
DEV_IP, LNX_IP = "10.79.0.1", "10.79.0.2"
FLOOD_SRC, FLOOD_N = "10.79.0.100", 16
PREFIX = "dtsyn%d" % PID
TMP = tempfile.mkdtemp(prefix="dtsynflood")
procs = []

SERVER_INI = """[port]
mtu = 1500
split = proto
tx_cksum = yes
[port.0]
name = net_hsplit_syn
[stack]
port = 0
ipv4 = {dev}
netmask = 255.255.255.0
listen = 5001
backlog = 128
[devmem]
gpu = 0
buffers = 16384
buffer_size = 2048
header_buffers = 16384
[limits]
window = 2M
[consumer]
mode = verify
pattern = none
sha256 = yes
"""


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def args():
    a = {"rates": [0, 10000, 100000], "seconds": 12.0, "conns": 50,
         "mib": 32, "json": None, "control": 1}
    av = sys.argv[4:]
    i = 0
    while i < len(av):
        k = av[i].lstrip("-")
        if k not in a or i + 1 >= len(av):
            sys.exit(__doc__)
        v = av[i + 1]
        a[k] = ([int(x) for x in v.split(",")] if k == "rates" else
                float(v) if k == "seconds" else v if k == "json" else int(v))
        i += 2
    return a


def spawn(cmd, ns=False, out=None):
    if ns:
        cmd = ["ip", "netns", "exec", NS] + cmd
    f = open(out, "w") if out else subprocess.DEVNULL
    p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL, start_new_session=True)
    p.out_path = out
    procs.append(p)
    return p


def sh(cmd, ns=False, check=True, timeout=30):
    if ns:
        cmd = ["ip", "netns", "exec", NS] + cmd
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if check and p.returncode != 0:
        raise RuntimeError("%s: rc %d: %s" % (" ".join(cmd), p.returncode,
                                             p.stderr.strip()))
    return p


def killpg(p, sig=signal.SIGKILL):
    try:
        os.killpg(p.pid, sig)
    except ProcessLookupError:
        pass


def cleanup():
    for p in procs:
        if p.poll() is None:
            killpg(p)
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
    subprocess.run([NETNS_SH, "down", NS], capture_output=True)
    shutil.rmtree(TMP, ignore_errors=True)


def text_of(p):
    return open(p.out_path).read()


def setup_ns():
    sh([NETNS_SH, "up", NS, "--addr", LNX_IP + "/24", "--mtu", "1500"])
    base = [int(x) for x in FLOOD_SRC.split(".")]
    lo = "%d.%d.%d.%d" % tuple(base)
    hi = "%d.%d.%d.%d" % tuple(base[:3] + [base[3] + FLOOD_N - 1])
    for i in range(FLOOD_N):
        sh(["ip", "addr", "add", "%d.%d.%d.%d/32" % tuple(base[:3] + [base[3] + i]),
            "dev", "eth0"], ns=True)
    rules = ("table inet dtsyn {\n chain flood_in {\n"
             "  type filter hook input priority 0;\n"
             "  ip daddr %s-%s drop\n }\n}\n" % (lo, hi))
    p = subprocess.run(["ip", "netns", "exec", NS, "nft", "-f", "-"],
                       input=rules, capture_output=True, text=True, timeout=20)
    if p.returncode != 0:
        raise RuntimeError("nft: " + p.stderr.strip())


def start_server(server):
    ini = os.path.join(TMP, "server.ini")
    with open(ini, "w") as f:
        f.write(SERVER_INI.format(dev=DEV_IP))
    p = spawn([server, "-l", "1", "--file-prefix", PREFIX, "--huge-unlink",
               "--no-pci", "--log-level=lib.eal:warning",
               "--vdev=net_hsplit_syn,iface=" + NS,
               "--vdev=gpu_sim_syn,size=128M", "--", "--config", ini,
               "--drain", "1"], out=os.path.join(TMP, "server.log"))
    end = time.time() + 30
    while time.time() < end and p.poll() is None:
        if "running (SIGINT" in text_of(p):
            return p
        time.sleep(0.1)
    raise RuntimeError("devtcp-server did not start:\n" + text_of(p))


def telemetry(cmd):
    p = subprocess.run(["python3", "/usr/bin/dpdk-telemetry.py", "-f", PREFIX],
                       input=cmd + "\n", capture_output=True, text=True,
                       timeout=20)
    key = cmd.split(",")[0]
    for line in p.stdout.splitlines():
        line = line.strip()
        if line.startswith("{") and key in line:
            try:
                return json.loads(line)[key]
            except (ValueError, KeyError):
                return None
    return None


def rss_kib(p):
    try:
        with open("/proc/%d/status" % p.pid) as f:
            m = re.search(r"VmRSS:\s+(\d+) kB", f.read())
        return int(m.group(1)) if m else None
    except OSError:
        return None


def rss_top(p, n=4):
    """The mappings holding most of the RSS: (name, KiB), largest first."""
    maps, cur = {}, None
    try:
        with open("/proc/%d/smaps" % p.pid) as f:
            for line in f:
                if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
                    parts = line.split()
                    cur = parts[5] if len(parts) > 5 else "[anon %s]" % parts[0]
                elif line.startswith("Rss:") and cur is not None:
                    maps[cur] = maps.get(cur, 0) + int(line.split()[1])
    except OSError:
        return None
    return sorted(maps.items(), key=lambda kv: -kv[1])[:n]


def snapshot(srv):
    st = telemetry("/devtcp/stats")
    heap = telemetry("/eal/heap_info,0")
    keys = ("synq_overflows", "synq_evicted", "synq_expired", "synacks_sent",
            "synacks_rtx", "syncookies_sent", "syncookies_ok",
            "syncookies_bad", "drop_synq_full", "conns_accepted", "conns_open",
            "rx_frames", "drop_no_neighbour", "drop_tx_ring_full",
            "rx_cycles", "uptime_ms")
    xs = telemetry("/ethdev/xstats,0")
    top = rss_top(srv, 64) or []
    rss = rss_kib(srv)
    # The simulated GPU's memory (a memfd) fills as payload buffers are
    # first used: device memory, bounded by the region, not host state.
    dev = sum(k for name, k in top if "gpu_sim" in name)
    return {"rss_kib": rss, "rss_top": top[:4],
            "rss_host_kib": rss - dev if rss is not None else None,
            "heap_alloc_bytes": heap.get("Alloc_size") if heap else None,
            "iface_rx_kernel_drops": xs.get("iface_rx_kernel_drops") if xs else None,
            "stats": {k: st.get(k) for k in keys} if st else None}


def streams_of(srv, nbytes):
    return len(re.findall(r"stream \w+ closed: %d bytes" % nbytes,
                          text_of(srv)))


def legit(srv, n, small):
    """n connections sending 1000 bytes each, ten at a time."""
    before = streams_of(srv, 1000)
    rcs = []
    t0 = time.time()
    for b in range(0, n, 10):
        ps = [spawn(["socat", "-u", "OPEN:" + small,
                     "TCP:%s:5001,connect-timeout=5" % DEV_IP], ns=True)
              for _ in range(min(10, n - b))]
        for p in ps:
            try:
                rcs.append(p.wait(timeout=15))
            except subprocess.TimeoutExpired:
                killpg(p)
                rcs.append(-9)
    end = time.time() + 5
    while time.time() < end and streams_of(srv, 1000) - before < n:
        time.sleep(0.1)
    ok = streams_of(srv, 1000) - before
    return {"tried": n, "server_streams_ok": ok,
            "socat_rc0": sum(1 for r in rcs if r == 0),
            "seconds": round(time.time() - t0, 2)}


def transfer(srv, big, nbytes):
    before = streams_of(srv, nbytes)
    t0 = time.time()
    p = spawn(["socat", "-u", "OPEN:" + big,
               "TCP:%s:5001,connect-timeout=5" % DEV_IP], ns=True)
    try:
        rc = p.wait(timeout=120)
    except subprocess.TimeoutExpired:
        killpg(p)
        rc = -9
    secs = time.time() - t0
    end = time.time() + 10
    while time.time() < end and streams_of(srv, nbytes) == before:
        time.sleep(0.05)
    ok = streams_of(srv, nbytes) > before
    return {"rc": rc, "complete": ok, "seconds": round(secs, 3),
            "mbps": round(nbytes * 8 / secs / 1e6, 1) if ok and secs else 0}


def run_rate(srv, flooder, rate, a, small, big, control=False):
    """One phase; @p control: the same flood aimed at an address of the
    namespace itself (dropped there), so devtcp sees none of it: what the
    flooder's own CPU use costs the other measurements on this machine."""
    r = {"rate_target": rate, "control": control}
    fl = None
    if rate:
        fl = spawn([flooder, "--dst", FLOOD_SRC if control else DEV_IP,
                    "--dport", "5001", "--src",
                    FLOOD_SRC, "--src-count", str(FLOOD_N), "--rate", str(rate),
                    "--seconds", str(a["seconds"]), "--seed", str(PID)],
                   ns=True, out=os.path.join(TMP, "flood%d.json" % rate))
        time.sleep(1.0)
    t0 = time.time()
    r["before"] = snapshot(srv)
    r["legit"] = legit(srv, a["conns"], small)
    r["transfer"] = transfer(srv, big, a["mib"] << 20)
    r["during"] = snapshot(srv)
    if fl is not None:
        if time.time() - t0 + 1 > a["seconds"]:
            log("warning: the measurements outlasted the flood (%.1f s)" %
                a["seconds"])
        fl.wait(timeout=a["seconds"] + 30)
        try:
            r["flood"] = json.loads(text_of(fl).strip().splitlines()[-1])
        except (ValueError, IndexError):
            raise RuntimeError("flooder printed no result: " + text_of(fl))
        if r["flood"]["sent"] == 0:
            raise RuntimeError("flooder sent nothing: " + text_of(fl))
        # Let the half-open entries of the flood expire (31 s) or not:
        # what matters is that memory stays flat; sample once more.
        time.sleep(1.0)
    r["after"] = snapshot(srv)
    for k in ("before", "during", "after"):
        if r[k]["stats"] is None:
            raise RuntimeError("telemetry /devtcp/stats did not answer")
    # The stack's own processing (rx_cycles: parsing, TCP, the listener;
    # not the software NIC's copies) as a share of its lcore, by the TSC.
    b, d = r["before"]["stats"], r["during"]["stats"]
    hz = tsc_hz()
    if hz and b.get("rx_cycles") is not None and d["uptime_ms"] > b["uptime_ms"]:
        r["stack_busy_pct"] = round(100.0 * (d["rx_cycles"] - b["rx_cycles"]) /
                                    (hz * (d["uptime_ms"] - b["uptime_ms"]) / 1e3), 1)
    return r


def tsc_hz():
    """The TSC rate (constant_tsc: the nominal clock), None if unknown."""
    try:
        with open("/proc/cpuinfo") as f:
            t = f.read()
    except OSError:
        return None
    if "constant_tsc" not in t:
        return None
    m = re.search(r"model name.*@ ([0-9.]+)GHz", t) or None
    if m:
        return float(m.group(1)) * 1e9
    m = re.search(r"cpu MHz\s*: ([0-9.]+)", t)
    return float(m.group(1)) * 1e6 if m else None


def table(res):
    base = next((r for r in res if r["rate_target"] == 0), None)
    base_mbps = base["transfer"]["mbps"] if base else None
    log("%-9s %-9s %-8s %-9s %-11s %-6s %-9s %-10s %-10s %-14s %s" % (
        "target/s", "sent/s", "legit", "Mb/s", "vs no flood", "busy",
        "cookies", "cookie_ok", "overflows", "host RSS KiB", "DPDK heap B"))
    log("(control: the same flood aimed inside the namespace, not at devtcp)")
    for r in res:
        fl = r.get("flood", {})
        d = r["after"]["stats"]
        b = r["before"]["stats"]
        mbps = r["transfer"]["mbps"]
        log("%-9s %-9s %-8s %-9s %-11s %-6s %-9s %-10s %-10s %-14s %s->%s" % (
            "%d%s" % (r["rate_target"], "c" if r["control"] else ""),
            fl.get("rate", "-"),
            "%d/%d" % (r["legit"]["server_streams_ok"], r["legit"]["tried"]),
            mbps, ("%.0f %%" % (100.0 * mbps / base_mbps)) if base_mbps else "-",
            ("%.0f%%" % r["stack_busy_pct"]) if "stack_busy_pct" in r else "-",
            (d["syncookies_sent"] or 0) - (b["syncookies_sent"] or 0),
            (d["syncookies_ok"] or 0) - (b["syncookies_ok"] or 0),
            (d["synq_overflows"] or 0) - (b["synq_overflows"] or 0),
            "%s->%s" % (r["before"]["rss_host_kib"], r["after"]["rss_host_kib"]),
            r["before"]["heap_alloc_bytes"], r["after"]["heap_alloc_bytes"]))


def main():
    global NETNS_SH
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    server, flooder, NETNS_SH = sys.argv[1:4]
    a = args()
    if os.geteuid() != 0:
        log("SKIP: needs root (namespaces, raw sockets)")
        return 77
    for t in ("socat", "nft", "ip"):
        if shutil.which(t) is None:
            log("SKIP: %s not installed" % t)
            return 77
    signal.signal(signal.SIGTERM, lambda s, f: (cleanup(), sys.exit(1)))
    small = os.path.join(TMP, "small")
    big = os.path.join(TMP, "big")
    with open(small, "wb") as f:
        f.write(os.urandom(1000))
    with open(big, "wb") as f:
        f.write(os.urandom(a["mib"] << 20))
    try:
        setup_ns()
        srv = start_server(server)
        # Warm-up: the payload region's pages are touched once, so that
        # RSS before and after a flood compares like with like.
        transfer(srv, big, a["mib"] << 20)
        res = []
        for rate in a["rates"]:
            if rate and a["control"]:
                res.append(run_rate(srv, flooder, rate, a, small, big, True))
            res.append(run_rate(srv, flooder, rate, a, small, big))
        out = {"server": server, "conns": a["conns"], "mib": a["mib"],
               "results": res}
        table(res)
        doc = json.dumps(out, indent=1)
        print(doc)
        if a["json"]:
            with open(a["json"], "w") as f:
                f.write(doc + "\n")
        killpg(srv, signal.SIGTERM)
        srv.wait(timeout=15)
        return 0
    finally:
        cleanup()


if __name__ == "__main__":
    sys.exit(main())
