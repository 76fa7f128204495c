"""What every interop case runs on: the command line and the settings
(addresses, EAL arguments, DT_INTEROP_CAPS), the processes a case starts
(each in a session of its own, so that cleanup() can kill their groups on
every exit path), the Linux peer's namespace and its nftables.

Imported by interop.py (and the case modules): it reads sys.argv as
interop.py's, SERVER SEND NETNS_SH then the cases.
"""
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
import dtcheck  # noqa: E402

SERVER, SEND, NETNS_SH = sys.argv[1:4]
CASES_ARGS = sys.argv[4:]
PID = os.getpid()
NS = "dtio%d" % (PID % 100000)
DEV_IP, LNX_IP = "10.78.0.1", "10.78.0.2"
MIB = 1 << 20
# One lcore: the stack runs on the main lcore and leaves the other core of a
# small machine to the Linux peer (two polling lcores would starve it).
EAL = ["-l", "1", "--in-memory", "--no-pci", "--log-level=lib.eal:warning"]
CAPS = os.environ.get("DT_INTEROP_CAPS", "")
if CAPS not in ("", "full", "mlx5", "ice", "notso"):
    sys.exit("DT_INTEROP_CAPS=%s: need full, mlx5, ice or notso" % CAPS)
TMP = tempfile.mkdtemp(prefix="dtinterop")
procs = []          # Popen objects whose process groups we own
CK = dtcheck.Checker()
check = CK.check
failed = CK.failures
results = []        # (case, what, value) for the summary
T0 = time.monotonic()
# The command sh() is running and since when: meson's timeout (SIGTERM)
# says what the case was waiting for (on_term()).
in_flight = {"cmd": None, "since": 0.0}
# A command slower than this is logged: a case that nears its meson timeout
# says where its time went.
SLOW_S = 15


def log(msg):
    print(msg, flush=True)


def skip(why):
    log("SKIP: " + why)
    cleanup()
    sys.exit(77)


def sh(cmd, ns=False, check_rc=True, timeout=60, **kw):
    if ns:
        cmd = ["ip", "netns", "exec", NS] + cmd
    t = time.monotonic()
    in_flight.update(cmd=cmd, since=t)
    try:
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=timeout, **kw)
    finally:
        in_flight["cmd"] = None
    if time.monotonic() - t > SLOW_S:
        log("info: slow step (%.1f s at %.1f s): %s" % (
            time.monotonic() - t, t - T0, " ".join(cmd)[:200]))
    if check_rc and p.returncode != 0:
        raise RuntimeError("%s: rc %d: %s" % (" ".join(cmd), p.returncode,
                                             p.stderr.strip()))
    return p


def spawn(cmd, ns=False, out=None, stdin=None):
    if ns:
        cmd = ["ip", "netns", "exec", NS] + cmd
    f = open(out, "w") if out else subprocess.DEVNULL
    p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT,
                         stdin=stdin if stdin is not None else subprocess.DEVNULL,
                         start_new_session=True)
    p.out_path = out
    procs.append(p)
    return p


def kill(p, sig=signal.SIGKILL):
    try:
        os.killpg(p.pid, sig)
    except ProcessLookupError:
        pass


def cleanup():
    for p in procs:
        if p.poll() is None:
            kill(p)
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
    subprocess.run([NETNS_SH, "down", NS], capture_output=True)
    if os.environ.get("DT_INTEROP_KEEP"):
        log("kept captures and logs in " + TMP)
    else:
        shutil.rmtree(TMP, ignore_errors=True)


def on_term(sig, frame):
    log("interrupted (signal %d) after %.1f s: cleaning up" % (
        sig, time.monotonic() - T0))
    if in_flight["cmd"]:
        log("  running for %.1f s: %s" % (time.monotonic() - in_flight["since"],
                                         " ".join(in_flight["cmd"])[:300]))
    log("  the case was at:\n" + "".join(traceback.format_stack(frame)))
    cleanup()
    sys.exit(1)


def text_of(p):
    return open(p.out_path).read() if p.out_path else ""


def wait_text(p, text, timeout):
    end = time.time() + timeout
    while time.time() < end:
        if text in text_of(p):
            return True
        if p.poll() is not None:
            return text in text_of(p)
        time.sleep(0.05)
    return False


def rand_file(name, size):
    path = os.path.join(TMP, name)
    with open(path, "wb") as f:
        f.write(os.urandom(size))
    return path


def sha_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


# ---------------------------------------------------------------- set-up

def preflight():
    if os.geteuid() != 0:
        skip("needs root (network namespaces, AF_PACKET)")
    for t in ("socat", "tcpdump", "tshark", "mergecap", "ip", "ethtool"):
        if shutil.which(t) is None:
            skip("%s not installed (scripts/setup.sh installs it)" % t)
    p = subprocess.run([NETNS_SH, "check"], capture_output=True, text=True)
    if p.returncode != 0:
        skip("network namespaces unavailable: " + p.stdout.strip())
    sh([NETNS_SH, "up", NS, "--addr", LNX_IP + "/24", "--mtu", "1500"])


def have_nft():
    if shutil.which("nft") is None:
        return "nft not installed (scripts/setup.sh installs nftables)"
    p = sh(["nft", "add", "table", "inet", "dtprobe"], ns=True, check_rc=False)
    sh(["nft", "delete", "table", "inet", "dtprobe"], ns=True, check_rc=False)
    return None if p.returncode == 0 else "nf_tables unavailable: " + p.stderr.strip()


def nft(rules):
    p = subprocess.run(["ip", "netns", "exec", NS, "nft", "-f", "-"],
                       input=rules, capture_output=True, text=True, timeout=20)
    if p.returncode != 0:
        raise RuntimeError("nft: " + p.stderr.strip())


def nft_flush():
    sh(["nft", "flush", "ruleset"], ns=True, check_rc=False)


def wait_until(fn, timeout):
    end = time.time() + timeout
    while time.time() < end:
        if fn():
            return True
        time.sleep(0.05)
    return fn()
