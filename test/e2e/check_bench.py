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
conns = int(opt("--conns") or 4)
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
        check(r["conns"] == conns and r["conns_done"] == conns,
              m + ": every connection delivered everything and closed "
              "(%d of %d)" % (r["conns_done"], conns))
        if per_conn:
            check(r["payload_bytes"] == per_conn * conns,
                  m + ": every byte delivered (%d of %d)" %
                  (r["payload_bytes"], per_conn * conns))
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
if modes_opt:
    check(modes == modes_opt.split(",") == doc["modes"],
          "--modes runs every mode in order (%s)" % ",".join(modes))
sys.exit(1 if failed else 0)
