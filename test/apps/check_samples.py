#!/usr/bin/env python3
"""Every sample in config/ runs as its comment says.

usage: check_samples.py CONFIG_DIR SCRIPTS_DIR DEVTCP_SERVER DEVTCP_SEND

- each sample's command line, taken from its comment, runs with --check
  (EAL starts, the ports, the GPU and the lcores the file names must be
  found); a sample for hardware (-a PCI, gpu_cuda) is checked without EAL
  arguments, as nothing here has that hardware;
- the veth samples run for real, as their comments say, against Linux in a
  network namespace: send.ini into a socat listener, server-veth.ini from
  socat, its logged SHA-256 equal to sha256sum's (peer1 becomes a name of
  this run's own);
- [lcores] stacks = N runs on the first N worker lcores; a count larger
  than the workers of -l is refused with both numbers.
Root and veth for the EAL and veth parts (exit 77 otherwise).
"""
import glob
import hashlib
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
import dtcheck  # noqa: E402

CK = dtcheck.Checker(tail=2500)
check = CK.check
failed = CK.failures
conf, scripts, server, send = (os.path.abspath(a) for a in sys.argv[1:5])
NS = "dtsmp%d" % (os.getpid() % 100000)
netns_sh = os.path.join(scripts, "netns.sh")


def comment_commands(path):
    """The command lines of a sample's leading comment ('#   cmd \\')."""
    cmds, cur = [], ""
    for line in open(path):
        if not line.startswith("#"):
            break
        m = re.match(r"#\s{3,}(\S.*)$", line.rstrip())
        if m is None:
            continue
        text = re.sub(r"\s+#\s.*$", "", m.group(1))
        cur += text
        if cur.endswith("\\"):
            cur = cur[:-1] + " "
        else:
            cmds.append(cur)
            cur = ""
    return cmds


def same_as(path):
    """'Same command line as config/X.ini': X's commands for this file."""
    text = re.sub(r"\n#\s*", " ", open(path).read())
    m = re.search(r"[Ss]ame command line as config/(\S+\.ini)", text)
    if m is None:
        return []
    other = os.path.join(conf, m.group(1))
    return [c.replace("config/" + m.group(1), "config/" +
                      os.path.basename(path)) for c in comment_commands(other)]


def localise(argv):
    """The comment's words with this build's programs and this run's names."""
    out = []
    for a in argv:
        a = a.replace("peer1", NS)
        a = re.sub(r"^(build/)?app/server/devtcp-server$|^devtcp-server$",
                   server, a)
        a = re.sub(r"^(build/)?app/server/devtcp-send$|^devtcp-send$", send, a)
        a = re.sub(r"^scripts/", scripts + "/", a)
        a = re.sub(r"^config/", conf + "/", a)
        out.append(a)
    return out


def run(argv, timeout=60):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       stdin=subprocess.DEVNULL, text=True, timeout=timeout)
    return p.returncode, p.stdout


def program_of(cmds):
    for c in cmds:
        argv = localise(shlex.split(c))
        if argv and argv[0] in (server, send):
            return argv
    return None


def check_sample(path, veth):
    name = os.path.basename(path)
    argv = program_of(comment_commands(path) or same_as(path))
    check(argv is not None, "%s: its comment gives a command line" % name)
    if argv is None:
        return
    if any(a == "-a" or "gpu_cuda" in a for a in argv):
        rc, out = run([argv[0], "--", "--config", path, "--check"])
        check(rc == 0 and "is valid" in out,
              "%s: valid (hardware sample: file checked alone, rc %d)"
              % (name, rc), out)
        return
    if any("iface=" in a for a in argv) and not veth:
        print("skip %s: no veth" % name)
        return
    rc, out = run(argv + ["--check"])
    check(rc == 0 and "ports, GPU and lcores found" in out,
          "%s: its command line with --check finds everything (rc %d)"
          % (name, rc), out)


def netns(*args):
    subprocess.run([netns_sh] + list(args), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def wait_for(proc, log, text, secs=30):
    end = time.monotonic() + secs
    while time.monotonic() < end and proc.poll() is None:
        if text in open(log).read():
            return True
        time.sleep(0.2)
    return False


def real_send():
    """send.ini as its comment says: devtcp-send into a Linux socat."""
    cmds = [localise(shlex.split(c)) for c in
            comment_commands(os.path.join(conf, "send.ini"))]
    listener = next((c for c in cmds if "socat" in c), None)
    check(listener is not None, "send.ini: its comment starts a peer that "
          "listens (devtcp-send alone has nobody to send to)")
    if listener is None:
        return
    if listener[-1] == "&":
        listener = listener[:-1]
    sock = subprocess.Popen(listener, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        rc, out = run(program_of(comment_commands(os.path.join(
            conf, "send.ini"))), timeout=120)
        check(rc == 0 and "67108864 of 67108864 bytes acknowledged" in out,
              "send.ini as its comment says: 64 MiB into Linux's socat "
              "(rc %d)" % rc, out)
    finally:
        sock.kill()
        sock.wait()


def real_server_veth(tmp):
    """server-veth.ini as its comment says: socat sends a file, hashes agree."""
    path = os.path.join(conf, "server-veth.ini")
    cmds = [localise(shlex.split(c)) for c in comment_commands(path)]
    log = os.path.join(tmp, "srv.log")
    srv = subprocess.Popen(program_of(comment_commands(path)),
                           stdout=open(log, "w"), stderr=subprocess.STDOUT)
    try:
        up = wait_for(srv, log, "running (SIGINT")
        check(up, "server-veth.ini: the server starts", open(log).read())
        if not up:
            return
        sender = next(c for c in cmds if "socat" in c)
        rc, out = run(sender, timeout=60)
        check(rc == 0, "server-veth.ini: socat sends its file (rc %d)" % rc, out)
        data = next(a.split(":", 1)[1] for a in sender if a.startswith("FILE:"))
        digest = hashlib.sha256(open(data, "rb").read()).hexdigest()
        time.sleep(1)
    finally:
        srv.send_signal(signal.SIGINT)
        srv.wait(timeout=30)
    out = open(log).read()
    check(re.search(r"closed: %d bytes, sha256 %s" % (os.path.getsize(data),
                                                        digest), out)
          is not None and "MISMATCH" not in out,
          "server-veth.ini: the stream's logged SHA-256 is sha256sum's", out)


def lcores_count(tmp):
    ini = os.path.join(tmp, "two.ini")
    with open(ini, "w") as f:
        f.write("[port.0]\nname = net_hsplit_lc0\n[lcores]\nstacks = 2\n"
                "[stack]\nipv4 = 10.0.0.1\nlisten = 5001\n[devmem]\ngpu = 0\n")
    eal = ["--in-memory", "--no-pci", "--log-level=lib.eal:warning",
           "--vdev=net_hsplit_lc0,wire=lc", "--vdev=gpu_sim_lc0,size=16M"]
    # Three lcores on however few CPUs this machine has.
    rc, out = run([server, "--lcores", "0@0,1@0,2@0"] + eal +
                  ["--", "--config", ini, "--check"])
    check(rc == 0 and "stacks on lcore(s) 1,2" in out,
          "stacks = 2 with lcores 0-2: stacks on lcores 1 and 2 (rc %d)" % rc,
          out)
    rc, out = run([server, "-l", "0-1"] + eal + ["--", "--config", ini,
                                                 "--check"])
    check(rc != 0 and "stacks = 2 needs 2 worker lcores, EAL has 1" in out,
          "stacks = 2 with -l 0-1: refused with both counts (rc %d)" % rc, out)


if os.geteuid() != 0:
    print("SKIP: needs root (EAL, veth)")
    sys.exit(77)
veth = subprocess.run([netns_sh, "check"], stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode == 0
tmp = tempfile.mkdtemp(prefix="dtsamples")
try:
    if veth:
        netns("up", NS, "--addr", "10.77.0.2/24", "--mtu", "1500")
    for ini in sorted(glob.glob(os.path.join(conf, "*.ini"))):
        check_sample(ini, veth)
    lcores_count(tmp)
    if veth:
        real_send()
        real_server_veth(tmp)
finally:
    if veth:
        subprocess.run([netns_sh, "down", NS], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
print("%d failed" % len(failed))
sys.exit(1 if failed else 0)
