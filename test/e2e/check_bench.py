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
share, and the connections spread over at least two server stacks (RSS), as
the bench's "connections accepted per stack" line says.

--stacks N1,N2,..: the TCP modes run once per server-stack count; every run
is checked as above (2 connections per server stack without --conns), and
the scale fields strictly: the header's lcores and stacks, each run's
server/client stacks (clients: as many as the lcores left, at most as many
as servers), per_stack entries (exactly their fields, distinct lcores,
summing to the run's frames, payload and connections), Mpps and drops.
--plot FILE: FILE is replaced by a temporary PNG, checked to be a PNG.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

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
cmd = [bench, "--lcores" if "@" in lcores else "-l", lcores, "--in-memory",
       "--no-pci", "--log-level=lib.eal:warning",
       "--vdev=net_hsplit_e2e0,wire=e2e%d%s" % (os.getpid(), wire_args),
       "--vdev=net_hsplit_e2e1,wire=e2e%d%s" % (os.getpid(), wire_args),
       os.environ.get("DEVTCP_GPU_VDEV", "--vdev=gpu_sim_e2e0,size=128M")
       ] + os.environ.get("DEVTCP_EAL_ARGS", "").split() + [
       "--", "--quiet", "--json", out] + extra
print(" ".join(cmd), flush=True)
p = subprocess.run(cmd, timeout=120, stderr=subprocess.PIPE, text=True)
sys.stderr.write(p.stderr)
failed = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failed.append(what)


check(p.returncode == 0, "devtcp-bench exit status 0 (got %d)" % p.returncode)
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


HEADER = ["frame_len", "mtu", "payload_memory", "payload_len", "gpu",
          "copy_engine", "host_memory_registered", "verify", "conns",
          "bytes_per_conn", "duration", "msg_size", "tx_memory",
          "configured_rate_gbps", "modes", "runs"]
RUN = ["mode", "tcp", "seconds", "conns", "conns_done", "tx_frames",
       "rx_frames", "rx_bytes", "payload_bytes", "sent_bytes", "device_bytes",
       "host_bytes", "device_chunks", "host_chunks", "split_frames",
       "copy_engine_bytes", "nic_copy_bytes", "cpu_copy_bytes",
       "cpu_copy_per_payload_byte", "frames_per_sec", "gbps", "payload_gbps",
       "goodput_gbps", "line_rate_gbps", "line_rate_source", "pct_line_rate",
       "rx_cycles_per_frame", "stack_cycles_per_frame", "retransmits",
       "missed", "cksum_bad", "stack_drops", "tcp_errors", "events_overflow",
       "verified_bytes", "verify_errors", "verify_batches", "copy_errors"]

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
            "drops"]
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
    for mode, ns, acc, nc, opened in lines:
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
        check(sum(1 for x in acc if x > 0) >= 2,
              "%s: RSS spread the connections over server stacks (%s)" %
              (mode, acc))
modes = [r["mode"] for r in doc["runs"]]
if compare:
    check(modes == ["split", "copy", "raw"] == doc["modes"],
          "--compare runs split, copy and raw in order (%s)" % ",".join(modes))
    raw = doc["runs"][2] if len(doc["runs"]) == 3 else None
    check(raw is not None and all(r["line_rate_gbps"] > 0 and
          (doc["configured_rate_gbps"] > 0 or
           r["line_rate_gbps"] == raw["gbps"]) for r in doc["runs"]),
          "--compare: percent of line rate against raw's ceiling")
if modes_opt and not stacks_opt:
    check(modes == modes_opt.split(",") == doc["modes"],
          "--modes runs every mode in order (%s)" % ",".join(modes))
if stacks_opt:
    check_stacks()
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
