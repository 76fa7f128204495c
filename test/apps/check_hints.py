#!/usr/bin/env python3
"""Telemetry and proc-info facts told where users look: --help and the
start-up log, and the commands printed work as printed.

usage: check_hints.py BUILD_DIR CONFIG_DIR

- devtcp-server --help says dpdk-telemetry.py's -i N and that
  dpdk-proc-info cannot attach to an --in-memory server;
- an --in-memory server started while another DPDK process runs (so its
  telemetry socket is not the first name) prints a dpdk-telemetry.py
  command line that reaches it (/devtcp/stats answers), and says that
  dpdk-proc-info cannot attach;
- with --file-prefix it prints a dpdk-proc-info command line that attaches
  (with the plugins' folders in LD_LIBRARY_PATH, as the README says).
Root (exit 77 otherwise).
"""
import os
import re
import shlex
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
import dtcheck  # noqa: E402

CK = dtcheck.Checker(tail=2000)
check = CK.check
failed = CK.failures
build, conf = (os.path.abspath(a) for a in sys.argv[1:3])
server = os.path.join(build, "app", "server", "devtcp-server")
cli = os.path.join(build, "app", "cli", "devtcp-cli")
plugins = ":".join(os.path.join(build, "drivers", d)
                   for d in ("net/hsplit", "gpu/sim"))
LOOP = ["--no-pci", "--vdev=net_hsplit0,wire=lo", "--vdev=net_hsplit1,wire=lo",
        "--vdev=gpu_sim0,size=64M", "--", "--config",
        os.path.join(conf, "loopback.ini"), "--duration", "20"]


def start(argv, log):
    return subprocess.Popen(argv, stdout=open(log, "w"),
                            stderr=subprocess.STDOUT, stdin=subprocess.PIPE,
                            cwd="/")


def wait_line(log, pattern, secs=30):
    end = time.monotonic() + secs
    while time.monotonic() < end:
        m = re.search(pattern, open(log).read(), re.M)
        if m is not None:
            return m
        time.sleep(0.2)
    return None


def stop(p):
    p.kill()
    p.wait()


def help_text():
    p = subprocess.run([server, "--", "--help"], capture_output=True,
                       text=True, timeout=30)
    check("dpdk-telemetry.py [-f FILE_PREFIX] [-i N]" in p.stdout and
          "cannot attach to an\n  --in-memory server" in p.stdout,
          "devtcp-server --help: telemetry's -i N, proc-info and --in-memory",
          p.stdout)


def telemetry_in_memory(tmp):
    other = start([cli, "-l", "0", "--in-memory", "--no-pci"],
                  os.path.join(tmp, "other.log"))
    log = os.path.join(tmp, "mem.log")
    srv = None
    try:
        time.sleep(2)
        srv = start([server, "-l", "0-1", "--in-memory"] + LOOP, log)
        m = wait_line(log, r"telemetry: (dpdk-telemetry\.py -f \S+(?: -i \d+)?) ")
        check(m is not None and " -i " in m.group(1),
              "an --in-memory server beside another DPDK process prints "
              "dpdk-telemetry.py with -i", open(log).read())
        if m is None:
            return
        q = subprocess.run(shlex.split(m.group(1)), input="/devtcp/stats\n",
                           capture_output=True, text=True, timeout=30)
        check('"/devtcp/stats": {"uptime_ms"' in q.stdout,
              "the printed '%s' reaches this server" % m.group(1),
              q.stdout + q.stderr)
        check("dpdk-proc-info and dpdk-pdump cannot attach" in open(log).read(),
              "an --in-memory server says dpdk-proc-info cannot attach")
    finally:
        if srv is not None:
            stop(srv)
        stop(other)


def proc_info_prefix(tmp):
    prefix = "dtfirst_hint%d" % os.getpid()
    log = os.path.join(tmp, "pfx.log")
    srv = start([server, "-l", "0-1", "--file-prefix", prefix] + LOOP, log)
    try:
        m = wait_line(log, r"secondary process: (dpdk-proc-info .*) \(README")
        check(m is not None, "a --file-prefix server prints dpdk-proc-info's "
              "command line", open(log).read())
        if m is None or wait_line(log, "running \\(SIGINT") is None:
            return
        env = dict(os.environ, LD_LIBRARY_PATH=plugins)
        q = subprocess.run(shlex.split(m.group(1)), capture_output=True,
                           text=True, timeout=60, env=env, cwd="/")
        check(q.returncode == 0 and "NIC statistics for port 0" in q.stdout,
              "the printed dpdk-proc-info command attaches (rc %d)"
              % q.returncode, q.stdout + q.stderr)
    finally:
        stop(srv)
        subprocess.run(["rm", "-rf", "/var/run/dpdk/" + prefix])


if os.geteuid() != 0:
    print("SKIP: needs root")
    sys.exit(77)
tmp = os.path.join("/tmp", "dthints%d" % os.getpid())
os.makedirs(tmp, exist_ok=True)
help_text()
telemetry_in_memory(tmp)
proc_info_prefix(tmp)
subprocess.run(["rm", "-rf", tmp])
print("%d failed" % len(failed))
sys.exit(1 if failed else 0)
