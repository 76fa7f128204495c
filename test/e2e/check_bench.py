#!/usr/bin/env python3
"""Run devtcp-bench through its real command line and check its JSON.

usage: check_bench.py BENCH [bench options after --]

The bench runs on the software NIC's loopback wire with payload landing in
simulated GPU memory (with --verify: every payload byte checked against the
sender's pattern, device bytes through the GPU's CPU mapping, in batches).
This checks that every field is there and that the accounting agrees end to
end, per mode: split (TCP; every byte delivered in device memory, nothing
copied by the CPU), copy (TCP; every byte delivered in host memory and
copied to the device once by the copy engine), raw-split (every frame
split, every payload byte moved by the NIC's copy engine), raw (nothing
split or copied), bounce (every payload byte copied to the device once by
the bench), ceiling (no wire; chunks of the payload size moved by the copy
engine).

Environment: DEVTCP_GPU_VDEV replaces the simulated GPU (e.g. "--vdev=gpu_cuda0"
on a GPU machine, where --verify checks on the GPU); DEVTCP_EAL_ARGS adds
EAL arguments (e.g. "-d /path/pmds" in a device bundle); DEVTCP_LCORES sets
the lcores (default 0-1; "0" runs both TCP stacks on one lcore; a map
with "@", e.g. "0@0,1@1,2@0,3@1", goes to --lcores: two server and two client
stacks on two CPUs); DEVTCP_WIRE_ARGS is appended to both net_hsplit vdevs
(e.g. ",loss=0.01,seed=3": a lossy wire, where every byte must still arrive
and the only stack drop allowed is no_conn). DEVTCP_SERVER_STACKS=N: the run
must have had N server and N client stacks, every client stack opened its
share, and every server stack accepted its share (the openers pick source
ports from the server port's RSS; with --rss-blind: spread over at least two
server stacks), as the bench's "connections accepted per stack" line says.

--stacks N1,N2,..: the TCP modes run once per server-stack count; every run
is checked as above (2 connections per server stack without --conns), and
the scale fields strictly: the header's lcores and stacks, each run's
server/client stacks (clients: as many as the lcores left, at most as many
as servers), per_stack entries (exactly their fields, distinct lcores,
summing to the run's frames, payload and connections), Mpps and drops.
--plot FILE: FILE is replaced by a temporary PNG, checked to be a PNG.

Every document is also checked against docs/bench-json.md: every field
documented; version (meson.build's), command_line (the argv given, element
by element), utc_time (ISO 8601, the time of this run), interrupted and
signal; each run's ratios (goodput over goodput, a key for each baseline
that ran and none else) and per-second samples (exactly their fields,
tiling the run from 0, one a second, adding up to the run's payload,
frames and retransmissions, rates = counts over dt). With --quiet (the
default) no live line may appear. DEVTCP_LIVE=1 and DEVTCP_INTERRUPT: below.
"""
import datetime
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
import dtcheck  # noqa: E402

bench = sys.argv[1]
extra = sys.argv[2:]
fd, out = tempfile.mkstemp(suffix=".json")
os.close(fd)
lcores = os.environ.get("DEVTCP_LCORES", "0-1")
plot_png = None
if "--plot" in extra:
    # The bench runs bench/plot_stacks.py with the python3 on PATH.
    if subprocess.run(["python3", "-c", "import matplotlib"],
                      capture_output=True).returncode != 0 and \
            subprocess.run(["sh", "-c", "command -v gnuplot"],
                           capture_output=True).returncode != 0:
        print("SKIP: --plot needs matplotlib for python3 or gnuplot "
              "(apt-get install gnuplot-nox)")
        sys.exit(77)
    fd, plot_png = tempfile.mkstemp(suffix=".png")
    os.close(fd)
    os.unlink(plot_png)
    extra[extra.index("--plot") + 1] = plot_png
wire_args = os.environ.get("DEVTCP_WIRE_ARGS", "")
# DEVTCP_LIVE=1: the live line is on (no --quiet) and checked: with --bytes
# it shows bytes done of the run's total, % and ETA. DEVTCP_INTERRUPT=INT or
# TERM: the signal goes to the bench at its first live line; it must write
# the partial JSON ("interrupted": true, the run cut short marked), say the
# results are partial and exit 128 + the signal's number.
live = os.environ.get("DEVTCP_LIVE", "") == "1"
interrupt = os.environ.get("DEVTCP_INTERRUPT", "")
sig = {"": None, "INT": signal.SIGINT, "TERM": signal.SIGTERM}[interrupt]
quiet = [] if live or sig else ["--quiet"]
cmd = [bench, "--lcores" if "@" in lcores else "-l", lcores, "--in-memory",
       "--no-pci", "--log-level=lib.eal:warning",
       "--vdev=net_hsplit_e2e0,wire=e2e%d%s" % (os.getpid(), wire_args),
       "--vdev=net_hsplit_e2e1,wire=e2e%d%s" % (os.getpid(), wire_args),
       os.environ.get("DEVTCP_GPU_VDEV", "--vdev=gpu_sim_e2e0,size=128M")
       ] + os.environ.get("DEVTCP_EAL_ARGS", "").split() + [
       "--"] + quiet + ["--json", out] + extra
print(" ".join(cmd), flush=True)
LIVE_RE = re.compile(r"^  \[([a-z-]+) *\] +([\d.]+)s  .*$")
t_launch = time.time()
with tempfile.TemporaryFile(mode="w+") as errf:
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=errf,
                            text=True)
    killer = threading.Timer(120, proc.kill)
    killer.start()
    out_lines, signalled = [], False
    for line in proc.stdout:
        sys.stdout.write(line)
        out_lines.append(line.rstrip("\n"))
        if sig and not signalled and LIVE_RE.match(line):
            proc.send_signal(sig)
            signalled = True
    rc = proc.wait()
    killer.cancel()
    t_done = time.time()
    errf.seek(0)
    stderr = errf.read()
sys.stderr.write(stderr)
p = subprocess.CompletedProcess(cmd, rc, "\n".join(out_lines), stderr)
CK = dtcheck.Checker()
check = CK.check
failed = CK.failures


if sig:
    check(signalled, "a live line came, and the signal was sent after it")
    check(p.returncode == 128 + sig, "interrupted: exit status %d (got %d)" %
          (128 + sig, p.returncode))
    check("results are partial" in p.stderr,
          "interrupted: says the results are partial")
else:
    check(p.returncode == 0, "devtcp-bench exit status 0 (got %d)" %
          p.returncode)
try:
    doc = json.load(open(out))
except (OSError, ValueError) as e:
    print("FAIL cannot read JSON: %s" % e)
    sys.exit(1)
finally:
    os.unlink(out)



def opt(name):
    """Value of a bench option given as --name VALUE, or None."""
    return extra[extra.index(name) + 1] if name in extra else None


def size(v):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(v[:-1]) * mult[v[-1].upper()] if v[-1].isalpha() else int(v)


HEADER = ["version", "command_line", "utc_time", "interrupted", "signal",
          "frame_len", "mtu", "payload_memory", "payload_len", "gpu",
          "copy_engine", "host_memory_registered", "verify", "conns",
          "bytes_per_conn", "duration", "msg_size", "tx_memory",
          "configured_rate_gbps", "modes", "runs"]
RUN = ["mode", "tcp", "seconds", "conns", "conns_done", "tx_frames",
       "rx_frames", "rx_bytes", "payload_bytes", "sent_bytes", "device_bytes",
       "host_bytes", "device_chunks", "host_chunks", "split_frames",
       "copy_engine_bytes", "nic_copy_bytes", "cpu_copy_bytes",
       "cpu_copy_per_payload_byte", "frames_per_sec", "gbps", "payload_gbps",
       "goodput_gbps", "line_rate_gbps", "line_rate_source", "pct_line_rate",
       "rx_cycles_per_frame", "stack_cycles_per_frame",
       "tx_stack_cycles_per_kbyte", "tx_burst_cycles_per_kbyte",
       "tx_tso_bursts", "tx_tso_segs", "nic_tx_copy_chunks",
       "nic_tx_copy_latency_us", "nic_tx_copy_calls", "nic_tx_copy_gathers",
       "retransmits",
       "missed", "cksum_bad", "stack_drops", "tcp_errors", "events_overflow",
       "verified_bytes", "verify_errors", "verify_batches", "copy_errors",
       "interrupted", "ratios", "samples"]

verify = "--verify" in extra
lossy = "loss=" in wire_args
compare = "--compare" in extra
modes_opt = opt("--modes")
stacks_opt = opt("--stacks")
conns = int(opt("--conns") or 4)


def run_conns(r):
    """Connections a run must have had: --stacks alone gives 2 per server stack."""
    if stacks_opt and not opt("--conns"):
        return 2 * r.get("server_stacks", 0)
    return conns


per_conn = size(opt("--bytes")) if opt("--bytes") else 0
check(all(k in doc for k in HEADER), "every header field present (missing: %s)"
      % [k for k in HEADER if k not in doc])
check(len(doc["runs"]) > 0, "at least one run")
check(doc["tx_memory"] == ("device" if opt("--tx-mem") == "device" else "host"),
      "tx_memory as asked (%s)" % doc["tx_memory"])
for r in doc["runs"]:
    m = r["mode"]
    missing = [k for k in RUN if k not in r]
    check(not missing, m + ": every run field present (missing: %s)" % missing)
    if missing:
        continue
    # A run cut short by the signal: its shape is checked below, not its totals.
    if r.get("interrupted") is True:
        continue
    if r["line_rate_gbps"] > 0:
        check(isinstance(r["pct_line_rate"], (int, float)) and
              r["pct_line_rate"] > 0, m + ": percent of line rate given")
    else:
        check(r["pct_line_rate"] is None, m + ": no line rate, no percent")
    check(r["rx_frames"] > 0, m + ": frames received")
    check(r["cksum_bad"] == 0, m + ": no checksum errors")
    check(r["verify_errors"] == 0, m + ": no payload byte differs")
    if verify:
        check(r["verified_bytes"] == r["payload_bytes"],
              m + ": every payload byte verified (%d of %d)" %
              (r["verified_bytes"], r["payload_bytes"]))
    check(r.get("copy_errors", 0) == 0, m + ": no copy refused or failed")
    if verify:
        check(r["verify_batches"] > 0 or m == "raw",
              m + ": device bytes checked in batches (%d)" %
              r["verify_batches"])
    if m in ("split", "copy"):
        check(r["tcp"] is True, m + ": a TCP run")
        check(r["conns"] == run_conns(r) and r["conns_done"] == run_conns(r),
              m + ": every connection delivered everything and closed "
              "(%d of %d)" % (r["conns_done"], run_conns(r)))
        if per_conn:
            check(r["payload_bytes"] == per_conn * run_conns(r),
                  m + ": every byte delivered (%d of %d)" %
                  (r["payload_bytes"], per_conn * run_conns(r)))
        check(r["sent_bytes"] == r["payload_bytes"] > 0,
              m + ": bytes acknowledged = bytes delivered (%d, %d)" %
              (r["sent_bytes"], r["payload_bytes"]))
        check(r["device_bytes"] + r["host_bytes"] == r["payload_bytes"],
              m + ": device + host chunk bytes = payload")
        check(r["tcp_errors"] == 0, m + ": no connection error")
        check(r["events_overflow"] == 0, m + ": no event overflow")
        if not lossy:
            check(r["stack_drops"] == 0, m + ": no stack drop (%d)" %
                  r["stack_drops"])
        else:
            # A lost last ACK: the peer's FIN comes back after the short
            # TIME_WAIT and meets no connection. Nothing else may drop.
            bad = [d for d in re.findall(r"%s: \w+ stack \d+ drops:(.*)" % m,
                                         p.stderr)
                   for d in d.split()[::2] if d != "no_conn"]
            check(not bad, m + ": lossy wire: no stack drop but no_conn (%s)"
                  % bad)
        check(r["goodput_gbps"] > 0 and r["rx_cycles_per_frame"] > 0 and
              r["stack_cycles_per_frame"] > 0, m + ": rates and cycles")
        check(r["rx_bytes"] > r["payload_bytes"], m + ": wire bytes > payload")
        check(r["tx_stack_cycles_per_kbyte"] > 0 and
              r["tx_burst_cycles_per_kbyte"] > 0, m + ": TX cycles")
        # net_hsplit's loopback wire offers TSO unless caps=notso: the
        # clients hand it bursts of several MSS (device-memory sends too).
        if "caps=notso" in wire_args:
            check(r["tx_tso_bursts"] == 0 == r["tx_tso_segs"],
                  m + ": no TSO on a port without it")
        else:
            check(r["tx_tso_bursts"] > 0 and
                  r["tx_tso_segs"] >= 2 * r["tx_tso_bursts"],
                  m + ": TSO bursts (%d, %d segments)" %
                  (r["tx_tso_bursts"], r["tx_tso_segs"]))
        # Device-memory sends: the client NIC copies their payload, by
        # gathers (a burst per device operation) unless tx_gather=off.
        # Not all of them must be: a wire pool on fragmented hugepages
        # can have more chunks than a channel takes as targets, and
        # copies into the others are submitted (test_hsplit_tso and
        # devmem_copy check the exact counts). Host sends: no copy.
        if doc["tx_memory"] == "device":
            off = "tx_gather=off" in wire_args
            g, c = r["nic_tx_copy_gathers"], r["nic_tx_copy_calls"]
            check(c > 0 and r["nic_tx_copy_chunks"] > 0 and
                  r["nic_tx_copy_latency_us"] > 0 and
                  (g == 0 if off else 0 < g <= c),
                  m + ": device sends copied by the NIC, %d of %d calls "
                  "gathers (tx_gather %s)" % (g, c, "off" if off else "on"))
        else:
            check(r["nic_tx_copy_calls"] == 0 == r["nic_tx_copy_gathers"],
                  m + ": host sends: no NIC copy (%d calls)" %
                  r["nic_tx_copy_calls"])
        if verify:
            check(r["verify_batches"] > 0, m + ": checked in batches (%d)" %
                  r["verify_batches"])
    if m == "split":
        check(r["cpu_copy_bytes"] == 0 and r["copy_engine_bytes"] == 0 and
              r["cpu_copy_per_payload_byte"] == 0,
              m + ": the CPU copied nothing (%d)" % r["cpu_copy_bytes"])
        check(r["device_bytes"] == r["payload_bytes"] and r["host_bytes"] == 0,
              m + ": every byte in device memory (%d of %d)" %
              (r["device_bytes"], r["payload_bytes"]))
        check(r["device_chunks"] > 0 and r["host_chunks"] == 0,
              m + ": DEVICE chunks only")
        check(r["split_frames"] > 0, m + ": frames split")
        check(r["nic_copy_bytes"] >= r["payload_bytes"],
              m + ": the NIC moved every payload byte into device memory")
    elif m == "copy":
        check(r["cpu_copy_bytes"] == r["payload_bytes"] ==
              r["copy_engine_bytes"] and
              r["cpu_copy_per_payload_byte"] == 1,
              m + ": the engine copied exactly the payload (%d of %d)" %
              (r["cpu_copy_bytes"], r["payload_bytes"]))
        check(r["host_bytes"] == r["payload_bytes"] and r["device_bytes"] == 0,
              m + ": every byte in host memory first")
        check(r["split_frames"] == 0 and r["nic_copy_bytes"] == 0,
              m + ": nothing split")
    elif m == "raw-split":
        check(r["split_frames"] == r["rx_frames"],
              m + ": every frame split into device memory (%d of %d)" %
              (r["split_frames"], r["rx_frames"]))
        check(r["copy_engine_bytes"] == r["payload_bytes"],
              m + ": copy engine moved exactly the payload (%d vs %d)" %
              (r["copy_engine_bytes"], r["payload_bytes"]))
    elif m == "raw":
        check(r["split_frames"] == 0, m + ": nothing split")
        check(r["copy_engine_bytes"] == 0, m + ": copy engine idle")
    elif m == "bounce":
        check(r["split_frames"] == 0, m + ": nothing split (whole frames)")
        check(r["copy_engine_bytes"] == r["payload_bytes"],
              m + ": every payload byte copied to the device once "
              "(%d vs %d)" % (r["copy_engine_bytes"], r["payload_bytes"]))
    elif m == "ceiling":
        check(r["tx_frames"] == 0, m + ": no wire")
        check(r["copy_engine_bytes"] > 0, m + ": copy engine moved bytes")
        check(r["copy_engine_bytes"] == r["payload_bytes"] ==
              r["rx_frames"] * doc["payload_len"],
              m + ": bytes moved = chunks x payload size (%d)" %
              r["copy_engine_bytes"])
    else:
        check(False, "unknown mode " + m)


def check_stacks():
    """The scale fields of a --stacks run, strictly."""
    want = [int(x) for x in stacks_opt.split(",")]
    tcp_modes = (modes_opt or "split,copy").split(",")
    nl = doc.get("lcores")
    check(isinstance(nl, int) and nl >= 1, "header: lcores (%s)" % nl)
    check(doc.get("stacks") == want, "header: stacks %s (%s)" %
          (want, doc.get("stacks")))
    check(doc["modes"] == tcp_modes, "header: modes %s" % doc["modes"])
    order = [(s, m) for s in want for m in tcp_modes]
    got = [(r.get("server_stacks"), r["mode"]) for r in doc["runs"]]
    check(got == order, "a run per stack count and mode, in order (%s)" % got)
    keys = ["stack", "lcore", "conns", "rx_frames", "payload_bytes",
            "goodput_gbps", "rx_cycles_per_frame", "stack_cycles_per_frame",
            "drops", "rx_bursts", "rx_gro_runs", "rx_gro_frames"]
    for r in doc["runs"]:
        m = "%s/%s stacks" % (r["mode"], r.get("server_stacks"))
        ns, nc = r.get("server_stacks"), r.get("client_stacks")
        ps = r.get("per_stack")
        if not (isinstance(ns, int) and isinstance(nc, int) and
                isinstance(ps, list)):
            check(False, m + ": server_stacks, client_stacks, per_stack")
            continue
        check(nc == (min(ns, nl - ns) if nl >= 2 else 1) and nc >= 1,
              m + ": client stacks %d for %d lcores" % (nc, nl))
        check(len(ps) == ns, m + ": one per_stack entry per server stack")
        check(all(sorted(e) == sorted(keys) for e in ps),
              m + ": per_stack entries have exactly %s" % keys)
        if len(ps) != ns or not all(sorted(e) == sorted(keys) for e in ps):
            continue
        check([e["stack"] for e in ps] == list(range(ns)),
              m + ": stacks numbered 0..%d" % (ns - 1))
        check(len({e["lcore"] for e in ps}) == (ns if nl >= 2 else 1),
              m + ": each server stack on its own lcore")
        check(sum(e["rx_frames"] for e in ps) == r["rx_frames"],
              m + ": per-stack frames add up")
        check(sum(e["payload_bytes"] for e in ps) == r["payload_bytes"],
              m + ": per-stack payload adds up")
        check(sum(e["conns"] for e in ps) == r["conns"],
              m + ": every connection accepted by one stack")
        # Receive coalescing: a run merges two frames at least; bursts
        # carry at most 32 (DT_DP_BURST) frames each.
        check(all(2 * e["rx_gro_runs"] <= e["rx_gro_frames"] <= e["rx_frames"]
                  and e["rx_bursts"] * 32 >= e["rx_frames"] for e in ps),
              m + ": rx_gro_runs, rx_gro_frames, rx_bursts consistent")
        check(all(e["rx_frames"] == 0 or (e["rx_cycles_per_frame"] > 0 and
                                          e["stack_cycles_per_frame"] > 0)
                  for e in ps), m + ": cycles per frame of busy stacks")
        check(abs(sum(e["goodput_gbps"] for e in ps) - r["goodput_gbps"]) <=
              1e-3 * max(1.0, r["goodput_gbps"]) + 1e-3 * ns,
              m + ": per-stack goodput adds up")
        check(sum(e["drops"] for e in ps) <= r["stack_drops"] and
              r["drops"] == r["stack_drops"] + r["missed"],
              m + ": drops = stack drops + missed")
        # seconds has 6 decimals: a short run's rate is good to 1e-3.
        check(r["seconds"] > 0 and abs(r["mpps"] - r["rx_frames"] /
                                       r["seconds"] / 1e6) <=
              1e-3 * r["mpps"] + 1e-6,
              m + ": Mpps = frames / seconds")


want_stacks = int(os.environ.get("DEVTCP_SERVER_STACKS", "0"))
if want_stacks:
    lines = re.findall(r"(\w+): (\d+) server stacks, connections accepted per "
                       r"stack:([ \d]+); (\d+) client stacks, opened per "
                       r"stack:([ \d]+)", p.stderr)
    check(len(lines) == len(doc["runs"]),
          "a stack spread line per run (%d of %d)" %
          (len(lines), len(doc["runs"])))
    # --stacks without --conns: 2 connections per server stack.
    run_conns = conns if opt("--conns") or not opt("--stacks") else 2 * want_stacks
    for mode, ns, acc, nc, opened in lines:
        conns = run_conns
        acc = [int(x) for x in acc.split()]
        opened = [int(x) for x in opened.split()]
        check(int(ns) == int(nc) == len(acc) == len(opened) == want_stacks,
              "%s: %d server and client stacks (%s, %s)" %
              (mode, want_stacks, ns, nc))
        check(sum(acc) == conns and sum(opened) == conns,
              "%s: every connection accepted and opened once (%s / %s)" %
              (mode, acc, opened))
        check(all(x == conns // want_stacks + (i < conns % want_stacks)
                  for i, x in enumerate(opened)),
              "%s: every client stack opened its share (%s)" % (mode, opened))
        if "--rss-blind" in sys.argv:
            check(sum(1 for x in acc if x > 0) >= 2,
                  "%s: RSS spread the connections over server stacks (%s)" %
                  (mode, acc))
        else:
            # The openers pick source ports from the server's RSS
            # (dt_dp_connect_rss): every server stack carries its share.
            check(all(x == conns // want_stacks + (i < conns % want_stacks)
                      for i, x in enumerate(acc)),
                  "%s: every server stack accepted its share (%s)" % (mode, acc))
modes = [r["mode"] for r in doc["runs"]]
if compare and not sig:
    check(modes == ["split", "copy", "raw"] == doc["modes"],
          "--compare runs split, copy and raw in order (%s)" % ",".join(modes))
    raw = doc["runs"][2] if len(doc["runs"]) == 3 else None
    check(raw is not None and all(r["line_rate_gbps"] > 0 and
          (doc["configured_rate_gbps"] > 0 or
           r["line_rate_gbps"] == raw["gbps"]) for r in doc["runs"]),
          "--compare: percent of line rate against raw's ceiling")
if modes_opt and not stacks_opt and not sig:
    check(modes == modes_opt.split(",") == doc["modes"],
          "--modes runs every mode in order (%s)" % ",".join(modes))
if stacks_opt and not sig:
    check_stacks()


# ---- what every document carries: provenance, samples, ratios (docs/bench-json.md)
def meson_version():
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                       "meson.build")
    with open(src) as f:
        m = re.search(r"version:\s*'([^']+)'", f.read())
    return m.group(1) if m else None


def num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def uint(v):
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def close_to(a, b, rel=1e-4, absolute=1e-6):
    return abs(a - b) <= rel * max(abs(a), abs(b)) + absolute


def check_provenance():
    want = meson_version()
    check(isinstance(doc.get("version"), str) and doc["version"] == want,
          "version is the project's (%s, meson.build: %s)" %
          (doc.get("version"), want))
    check(doc.get("command_line") == cmd,
          "command_line is the argv given, element by element")
    ts = doc.get("utc_time")
    try:
        t = datetime.datetime.strptime(ts, "%Y-%m-%dT%H:%M:%SZ").replace(
            tzinfo=datetime.timezone.utc).timestamp()
    except (TypeError, ValueError):
        t = None
    check(t is not None, "utc_time is ISO 8601 UTC (%r)" % ts)
    if t is not None:
        check(int(t_launch) - 1 <= t <= t_done + 1,
              "utc_time is the start of this run (%s)" % ts)
    check(doc.get("interrupted") is bool(sig),
          "interrupted is %s (%r)" % (bool(sig), doc.get("interrupted")))
    check(doc.get("signal") == ({signal.SIGINT: "SIGINT",
                                 signal.SIGTERM: "SIGTERM"}.get(sig)),
          "signal names what interrupted it (%r)" % doc.get("signal"))
    flags = [r.get("interrupted") for r in doc["runs"]]
    check(all(isinstance(f, bool) for f in flags), "each run's interrupted is a bool")
    if sig:
        check(len(doc["runs"]) < len(doc["modes"]) * max(1, len(doc["stacks"])),
              "interrupted: fewer runs than planned (%d)" % len(doc["runs"]))
        check(len(flags) >= 1 and flags[-1] is True and not any(flags[:-1]),
              "interrupted: the last run is marked cut short (%s)" % flags)
    else:
        check(not any(flags), "no run marked interrupted")


SAMPLE = ["t", "dt", "bytes", "frames", "retransmits", "goodput_gbps", "mpps",
          "retransmits_per_s"]


def check_samples(r):
    m = r["mode"]
    ss = r.get("samples")
    if not isinstance(ss, list) or not ss:
        check(False, m + ": samples is a non-empty list (%r)" % ss)
        return
    shape = all(isinstance(s, dict) and sorted(s) == sorted(SAMPLE) and
                all(num(s[k]) for k in ("t", "dt", "goodput_gbps", "mpps",
                                        "retransmits_per_s")) and
                all(uint(s[k]) for k in ("bytes", "frames", "retransmits"))
                for s in ss)
    check(shape, m + ": every sample has exactly %s, typed" % SAMPLE)
    if not shape:
        return
    prev = 0.0
    tiled = True
    for s in ss:
        tiled = tiled and s["dt"] > 0 and close_to(s["t"] - s["dt"], prev,
                                                   0, 2e-6)
        prev = s["t"]
    check(tiled, m + ": samples tile the run from 0 (each starts where the "
          "last ended)")
    last = ss[-1]["t"]
    check(last >= r["seconds"] - 1e-3,
          m + ": samples cover the run (%.3f s of %.3f)" % (last, r["seconds"]))
    check(len(ss) >= int(last),
          m + ": a sample a second (%d in %.1f s)" % (len(ss), last))
    check(sum(s["bytes"] for s in ss) == r["payload_bytes"],
          m + ": sample bytes add up to the payload (%d of %d)" %
          (sum(s["bytes"] for s in ss), r["payload_bytes"]))
    fr = sum(s["frames"] for s in ss)
    check(abs(fr - r["rx_frames"]) <= 0.01 * r["rx_frames"] + 10,
          m + ": sample frames add up to the frames received (%d of %d)" %
          (fr, r["rx_frames"]))
    check(sum(s["retransmits"] for s in ss) == r["retransmits"],
          m + ": sample retransmissions add up (%d of %d)" %
          (sum(s["retransmits"] for s in ss), r["retransmits"]))
    check(all(close_to(s["goodput_gbps"], s["bytes"] * 8 / s["dt"] / 1e9) and
              close_to(s["mpps"], s["frames"] / s["dt"] / 1e6) and
              close_to(s["retransmits_per_s"], s["retransmits"] / s["dt"],
                       1e-4, 1e-3)
              for s in ss),
          m + ": each sample's rates are its counts over its dt")


PAIRS = [("split", "copy"), ("split", "raw"), ("copy", "raw"),
         ("raw-split", "raw"), ("raw-split", "bounce"),
         ("raw-split", "ceiling")]


def partner(r, mode):
    tcp = ("split", "copy")
    for o in doc["runs"]:
        if o["mode"] == mode and (mode not in tcp or r["mode"] not in tcp or
                                  o.get("server_stacks") ==
                                  r.get("server_stacks")):
            return o
    return None


def check_ratios(r):
    m = r["mode"]
    got = r.get("ratios")
    want, tol = {}, {}
    for a, b in PAIRS:
        o = partner(r, b) if a == m else None
        if o is not None:
            want["%s/%s" % (a, b)] = (r["goodput_gbps"] / o["goodput_gbps"]
                                      if o["goodput_gbps"] > 0 else None)
            # goodput_gbps has 4 decimals: the ratio of two is good to
            # their rounding's share of each.
            tol["%s/%s" % (a, b)] = 1e-4 + 5e-5 / max(r["goodput_gbps"], 1e-4) \
                + 5e-5 / max(o["goodput_gbps"], 1e-4)
    if not isinstance(got, dict):
        check(False, m + ": ratios is an object (%r)" % got)
        return
    check(sorted(got) == sorted(want),
          m + ": ratios to every baseline that ran, none else (%s, want %s)" %
          (sorted(got), sorted(want)))
    check(all(k in got and (got[k] is None if v is None else
                            num(got[k]) and close_to(got[k], v, tol[k]))
              for k, v in want.items()),
          m + ": ratios are goodput over goodput (%s, from the runs: %s)" %
          (got, want))


def check_live():
    lines = [l for l in p.stdout.splitlines() if LIVE_RE.match(l)]
    if not live and not sig:
        check(not lines, "--quiet: no live line (%d)" % len(lines))
        return
    check(len(lines) > 0, "live lines printed (%d)" % len(lines))
    if not live or not per_conn:
        return
    prog = re.compile(r"^  \[(split|copy) *\] .*  ([\d.]+) of ([\d.]+) MiB +"
                      r"(\d+)%  ETA (\d+s|\?)$")
    got = [prog.match(l) for l in lines]
    check(all(got), "--bytes: every live line ends in 'X of Y MiB  P%  ETA Ns'")
    got = [g for g in got if g]
    want = per_conn * conns / 1048576.0
    done = [float(g.group(2)) for g in got]
    check(all(abs(float(g.group(3)) - want) < 0.06 for g in got),
          "--bytes: the total is bytes x conns (%.1f MiB)" % want)
    check(all(0 <= d <= want + 0.06 for d in done) and done == sorted(done),
          "--bytes: bytes done grow, never past the total (%s)" % done)
    check(all(abs(int(g.group(4)) - 100 * float(g.group(2)) / want) <= 1
              for g in got), "--bytes: %% is done over total")


def documented():
    """Field names in the first column of docs/bench-json.md's tables."""
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                       "docs", "bench-json.md")
    names = set()
    with open(src) as f:
        for line in f:
            if line.startswith("| `"):
                names.update(re.findall(r"`([^`]+)`", line.split("|")[1]))
    return names


def check_documented():
    names = documented()
    keys = set(doc)
    for r in doc["runs"]:
        keys.update(r)
        keys.update(r.get("ratios") or {})
        for e in (r.get("per_stack") or []) + (r.get("samples") or []):
            keys.update(e)
    check(keys <= names, "every field is in docs/bench-json.md (not: %s)" %
          sorted(keys - names))


check_provenance()
check_documented()
for r in doc["runs"]:
    check_samples(r)
    check_ratios(r)
check_live()
if plot_png:
    try:
        with open(plot_png, "rb") as f:
            sig = f.read(8)
        os.unlink(plot_png)
    except OSError as e:
        sig = b""
        print("cannot read the plot: %s" % e)
    check(sig == b"\x89PNG\r\n\x1a\n", "--plot wrote a PNG")
sys.exit(1 if failed else 0)
