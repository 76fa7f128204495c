#!/usr/bin/env python3
"""testpmd's --help habit in every program, and start-up errors that say
what to do.

usage: check_usage.py CONFIG_DIR PROGRAM [PROGRAM ...]

For each program: `prog --help` (no '--') exits 0 and prints EAL's usage
followed by the program's own ("usage: prog [EAL options] -- ..."); an EAL
argument error exits non-zero with a reason (never "Success"). For
devtcp-server/devtcp-send: run without '--' says that options go after '--'.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
import dtcheck  # noqa: E402

CK = dtcheck.Checker()
check = CK.check
failed = CK.failures


def run(args):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=60, cwd="/")
    return p.returncode, p.stdout


conf = sys.argv[1]
for prog in map(os.path.abspath, sys.argv[2:]):
    name = os.path.basename(prog)
    rc, out = run([prog, "--help"])
    eal = out.find("EAL common options:")
    app = out.find("usage: %s [EAL options] -- " % prog)
    check(rc == 0, "%s --help exits 0 (rc %d)" % (name, rc))
    check(eal >= 0, "%s --help prints EAL's usage" % name)
    check(app > eal >= 0, "%s --help prints its own usage after EAL's" % name)
    tail = []
    if name in ("devtcp-server", "devtcp-send"):
        tail = ["--", "--config", os.path.join(
            conf, "send.ini" if name == "devtcp-send" else "server.ini")]
    rc, out = run([prog, "--no-such-eal-option", "--no-pci", "--in-memory"] + tail)
    check(rc != 0 and "EAL init failed: " in out and "Success" not in out,
          "%s: a bad EAL option fails with a reason (rc %d)" % (name, rc))
    if name in ("devtcp-server", "devtcp-send"):
        rc, out = run([prog])
        check(rc != 0 and "go after '--'" in out,
              "%s without '--' says where its options go (rc %d)" % (name, rc))

# devtcp-bench refuses a bad option before EAL starts, with its name, once.
bench = next((os.path.abspath(a) for a in sys.argv[2:]
              if os.path.basename(a) == "devtcp-bench"), None)
if bench is not None:
    for opt, want in ((["--conns", "abc"], "devtcp-bench: bad --conns 'abc'"),
                      (["--stacks", "0"], "devtcp-bench: bad --stacks '0'")):
        rc, out = run([bench, "-l", "0", "--in-memory", "--no-pci", "--"] + opt)
        check(rc != 0 and out.startswith(want) and "EAL:" not in out and
              out.count("at most") <= 1,
              "devtcp-bench %s: refused before EAL, named, said once (rc %d): %r"
              % (" ".join(opt), rc, out[:300]))

# --check: the file alone, and with the run's EAL arguments the devices too.
server = next((os.path.abspath(a) for a in sys.argv[2:]
               if os.path.basename(a) == "devtcp-server"), None)
if server is not None:
    import tempfile
    tmp = tempfile.mkdtemp(prefix="dtcheck")
    p7 = os.path.join(tmp, "p7.ini")
    with open(p7, "w") as f:
        f.write("[port.0]\nname = net_hsplit_ck0\n[stack]\nport = 7\n"
                "ipv4 = 10.0.0.1\nnetmask = 255.255.255.0\nlisten = 5001\n"
                "[devmem]\ngpu = 0\n")
    rc, out = run([server, "--", "--config", p7, "--check"])
    check(rc == 0 and "not checked" in out,
          "--check without EAL arguments checks the file and says what it did not")
    eal = ["--in-memory", "--no-pci", "--log-level=lib.eal:warning",
           "--vdev=net_hsplit_ck0,wire=ck%d" % os.getpid(),
           "--vdev=gpu_sim_ck0,size=16M"]
    rc, out = run([server] + eal + ["--", "--config", p7, "--check"])
    check(rc == 1 and "[port.7]: no such port" in out,
          "--check with EAL arguments refuses [stack] port = 7 (rc %d)" % rc)
    ok = os.path.join(tmp, "ok.ini")
    with open(ok, "w") as f:
        f.write(open(p7).read().replace("port = 7", "port = 0"))
    rc, out = run([server] + eal + ["--", "--config", ok, "--check"])
    check(rc == 0 and "ports, GPU and lcores found" in out,
          "--check with EAL arguments passes a config whose devices exist (rc %d)" % rc)
    rc, out = run([server, "--no-huge", "--no-pci", "--log-level=lib.eal:warning",
                   "--vdev=net_hsplit_ck0,wire=nh", "--vdev=net_hsplit_nh1,wire=nh",
                   "--vdev=gpu_sim_nh0,size=16M", "--", "--config", ok])
    check(rc != 0 and "raise EAL's -m" in out and "MiB of DPDK memory" in out,
          "--no-huge: the memory error says how much and what to raise (rc %d)" % rc)
    nofile = os.path.join(tmp, "nofile.ini")
    with open(nofile, "w") as f:
        f.write("[client]\nport = 0\nipv4 = 10.0.0.2\nnetmask = 255.255.255.0\n"
                "connect = 10.0.0.1:5001\nfile = /nonexistent/payload.bin\n")
    rc, out = run([server, "--", "--config", nofile, "--check"])
    check(rc != 0 and "[client] file: /nonexistent/payload.bin: No such file" in out,
          "--check refuses a missing [client] file (rc %d)" % rc)

print("%d failed" % len(failed))
sys.exit(1 if failed else 0)
