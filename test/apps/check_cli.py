#!/usr/bin/env python3
"""devtcp-cli through its real command line: a command file (cli_basic.cmd)
and -e commands, output checked line by line; bad commands must print their
errors and make the exit status 1; a NIC without buffer split runs in copy mode.

usage: check_cli.py CLI CMDFILE
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
import dtcheck  # noqa: E402

cli, cmdfile = sys.argv[1:3]
pid = os.getpid()
CK = dtcheck.Checker()
check = CK.check
failed = CK.failures
EAL = ["-l", "0", "--in-memory", "--no-pci", "--log-level=lib.eal:error"]


def run(args, stdin=subprocess.DEVNULL):
    p = subprocess.run([cli] + args, capture_output=True, text=True,
                       timeout=60, stdin=stdin)
    print(p.stdout)
    return p


hs = ["--vdev=net_hsplit_cli%d0,wire=cli%d" % (pid, pid),
      "--vdev=net_hsplit_cli%d1,wire=cli%d" % (pid, pid),
      "--vdev=gpu_sim_cli%d,size=64M" % pid]
p = run(EAL + hs + ["--", "--cmdfile", cmdfile, "-e", "show gpu"])
out = p.stdout
EXPECT = [
    "  show port info|stats|xstats <port_id>: capabilities",
    "gpu 0: gpu_sim_cli%d, NUMA node 0, 64 MiB" % pid,
    "port 0: net_hsplit_cli%d0 (driver net_hsplit)" % pid,
    "  RX buffer split: yes (max 8 segments, multi-pool yes)",
    "  protocol split after Eth/IPv4/TCP: yes",
    "port 1: rxhdrs = ipv4-tcp (applied at the next port start)",
    "port 0: rxhdrs off\nport 1: rxhdrs ipv4-tcp",
    "port 0: rxpkts 64,2048\nport 1: rxpkts off",
    "port 0: started (length split, payload in device memory)",
    "port 1: started (protocol split, payload in device memory)",
    "region cli_pay0: gpu_sim_cli%d, 16777216 bytes" % pid,
    "pool cli_pay1: 8192 buffers of 2048 bytes",
    "Flow rule #0 created",
    "0\tingress pattern eth / ipv4 src is 10.0.0.2 dst is 10.0.0.1 / tcp src is "
    "40000 dst is 5001 / end actions queue index 0 / end\n(1 rule on port 1)",
    "Flow rule #0 destroyed",
    "(0 rules on port 1)",
    "port 1 statistics\n  RX-packets: 0",
    "port 1: statistics cleared",
    "port 1: stopped",
    "error: %s:19: unknown command 'bogus command' (try 'help')" % cmdfile,
    "error: no port 9 (2 ports; add --vdev=net_hsplit0,wire=w)",
    "error: set rxhdrs: unknown header list 'udp' (eth, ipv4, ipv4-tcp or off)",
    "error: flow create: expected 'ingress pattern eth / ipv4",
]
for e in EXPECT:
    check(e in out, "output has %r" % e.split("\n")[0])
check(out.rstrip().endswith("devtcp> show gpu\ngpu 0: gpu_sim_cli%d, NUMA node 0, "
      "64 MiB, 132 processors, context" % pid) or "devtcp> show gpu\ngpu 0" in out,
      "-e runs after the command file")
check(p.returncode == 1, "exit status 1 after failed commands (got %d)" %
      p.returncode)

# Commands from stdin (not a terminal), all good: exit 0.
p = subprocess.run([cli] + EAL + hs, input="show config rxhdrs\nhelp flow\n",
                   capture_output=True, text=True, timeout=60)
print(p.stdout)
check(p.returncode == 0 and "port 1: rxhdrs off" in p.stdout and
      "flow destroy <port_id> rule <rule_id>" in p.stdout,
      "commands from stdin, exit status 0")
# No stdin at all (CI): returns at once.
p = run(EAL + hs)
check(p.returncode == 0, "empty stdin: exits 0")

# A NIC without buffer split: the split asked for becomes copy mode, and
# port start and show port info say so.
p = run(EAL + ["--vdev=net_null_cli%d" % pid, "--", "-e",
               "set rxhdrs 0 ipv4-tcp", "-e", "port start 0", "-e", "show port info 0"])
check(p.returncode == 0 and p.stdout.count("  devtcp: rx=copy ") == 2 and
      "(net_null): no RX buffer split" in p.stdout,
      "net_null: copy mode at port start and in show port info")

p = run(["--", "--help"])
check(p.returncode == 0 and "--cmdfile FILE" in p.stdout, "--help")
sys.exit(1 if failed else 0)
