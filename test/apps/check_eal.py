#!/usr/bin/env python3
"""EAL start-up failures diagnosed truthfully, in every program.

usage: check_eal.py CONFIG_DIR PROGRAM [PROGRAM ...]

- another primary process on the same --file-prefix: the message names it
  (EAL leaves rte_errno unset and only logs "Is another primary process
  running?");
- no free hugepage, as root: the message says so, not "permission denied"
  (EAL returns EACCES for both). Provoked without taking anyone's pages: a
  private mount namespace shows EAL a sysfs where 512 pages are reserved and
  none is free;
- a --vdev whose driver fails to start for lack of memory (--no-huge -m 64,
  two software NICs of 36 MiB of wire buffers each): the program names the
  device and -m at start instead of a later "no port 1".
Root (exit 77 otherwise).
"""
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
import dtcheck  # noqa: E402

CK = dtcheck.Checker(tail=1500)
check = CK.check
failed = CK.failures


def run(args, timeout=60):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       stdin=subprocess.DEVNULL, text=True, timeout=timeout,
                       cwd="/")
    return p.returncode, p.stdout


def app_args(name, conf):
    """Arguments after '--' that get each program past its own checks."""
    if name == "devtcp-server":
        return ["--", "--config", os.path.join(conf, "loopback.ini")]
    if name == "devtcp-send":
        return ["--", "--config", os.path.join(conf, "send.ini")]
    if name == "devtcp-cli":
        return ["--", "-e", "show port summary all"]
    return []


def taken_prefix(progs, conf):
    prefix = "dtfirst_eal%d" % os.getpid()
    eal = ["-l", "0", "--no-pci", "--no-huge", "-m", "64",
           "--file-prefix", prefix, "--log-level=lib.eal:warning"]
    cli = next(p for p in progs if os.path.basename(p) == "devtcp-cli")
    holder = subprocess.Popen([cli] + eal, stdin=subprocess.PIPE,
                              stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, cwd="/")
    try:
        cfg = "/var/run/dpdk/%s/config" % prefix
        for _ in range(100):
            if os.path.exists(cfg):
                break
            time.sleep(0.1)
        time.sleep(0.5)
        for prog in progs:
            name = os.path.basename(prog)
            rc, out = run([prog] + eal + app_args(name, conf))
            check(rc != 0 and "another DPDK primary process (pid %d)" %
                  holder.pid in out and "--file-prefix " + prefix in out,
                  "%s: a taken --file-prefix names the process holding it "
                  "(rc %d)" % (name, rc), out)
    finally:
        holder.kill()
        holder.wait()
        shutil.rmtree("/var/run/dpdk/" + prefix, ignore_errors=True)


FAKE_SYSFS = r"""
set -e
mount -t tmpfs none /sys/kernel/mm/hugepages
d=/sys/kernel/mm/hugepages/hugepages-2048kB
mkdir $d
echo 512 >$d/nr_hugepages; echo 0 >$d/free_hugepages
echo 0 >$d/resv_hugepages; echo 0 >$d/surplus_hugepages
for n in /sys/devices/system/node/node*/hugepages; do
    [ ! -d "$n" ] || mount -t tmpfs none "$n"
done
exec "$@"
"""


def no_free_hugepage(progs, conf):
    probe = ["unshare", "-m", "sh", "-c",
             "mount -t tmpfs none /sys/kernel/mm/hugepages"]
    if shutil.which("unshare") is None or subprocess.run(
            probe, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL).returncode != 0:
        print("skip no free hugepage: no private mount namespace here")
        return
    for prog in progs:
        name = os.path.basename(prog)
        rc, out = run(["unshare", "-m", "sh", "-c", FAKE_SYSFS, "sh", prog,
                       "-l", "0", "--no-pci", "--in-memory"] +
                      app_args(name, conf))
        check(rc != 0 and "no free hugepage: 512 reserved, all in use" in out
              and "permission denied" not in out,
              "%s: no free hugepage as root is said so (rc %d)" % (name, rc),
              out)


def vdev_no_memory(progs):
    cli = next(p for p in progs if os.path.basename(p) == "devtcp-cli")
    rc, out = run([cli, "-l", "0", "--no-pci", "--no-huge", "-m", "64",
                   "--vdev=net_hsplit0,wire=w", "--vdev=net_hsplit1,wire=w",
                   "--", "-e", "show port info 1"])
    check(rc != 0 and "--vdev net_hsplit1: its driver failed to start it" in out
          and "with -m 64" in out and "no port 1" not in out,
          "devtcp-cli: a --vdev that fails for lack of memory is named, with -m "
          "(rc %d)" % rc, out)


if os.geteuid() != 0:
    print("SKIP: needs root (hugepages, /var/run/dpdk, mount namespaces)")
    sys.exit(77)
conf = sys.argv[1]
progs = [os.path.abspath(p) for p in sys.argv[2:]]
taken_prefix(progs, conf)
no_free_hugepage(progs, conf)
vdev_no_memory(progs)
print("%d failed" % len(failed))
sys.exit(1 if failed else 0)
