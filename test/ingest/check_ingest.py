#!/usr/bin/env python3
"""devtcp-server's ingest mode end to end: Linux senders (socat in a network
namespace, over a veth pair) -> devtcp-server (net_hsplit on the veth, payload
in gpu_sim memory, 2 stacks) -> client processes that attach over the Unix
socket and read every byte through their own read-only mapping of the region.

usage: check_ingest.py SERVER INGEST_TAKE NETNS_SH CASE [PYTHON_PKG_DIR]
cases:
  streams   8 senders, a C client and a Python client (DLPack views through
            numpy and torch when installed): every stream's SHA-256 equal
            to its file's, both clients used.
  kill      on_client_exit = reset: one client SIGKILLs itself mid-stream;
            its streams are reset (the senders see it), the other client
            stays byte-exact, the region's free buffers come back to their
            count before, the server logs one line and counts the death.
  reoffer   on_client_exit = reoffer: the killed client's streams go to
            the other one from the first byte it did not give back; the
            other client's bytes equal the file's from that offset to the end.
  hold      a client that keeps its tokens: its stream stalls (the sender
            still running once the other port's stream is done, byte-exact),
            then SIGUSR1 makes it give them back and its stream completes
            byte-exact.
  hostile   a client writes random tokens into its token rings, then an
            index ten rings ahead, before it holds anything: the server
            counts them (telemetry bad_tokens), logs it when the client
            leaves, and both that client's stream and another client's
            are byte-exact.
  refusals  too many clients (EUSERS), a port not served (ENOENT), another
            protocol version (EPROTO), a uid not allowed (EACCES): each a
            clear refusal on the client and a counter on the server.
  soak      DT_SOAK_SECONDS (default 60; an hour: 3600, bench/soak.sh) of
            everything at once, ingest_soak.py says what: rounds of long
            streams, clients killed mid-stream, short-connection churn and
            devtcp-send on the veth, an endless loopback-wire transfer
            beside it, 1 % faults of each kind each way; every stream
            checked, memory (RSS, DPDK heap, region buffers) and open files
            sampled and required flat.
Exit 77 (skip) when not root or namespaces, veth or socat are missing.
"""
import errno
import hashlib
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

SERVER, TAKE, NETNS_SH, CASE = sys.argv[1:5]
PYDIR = sys.argv[5] if len(sys.argv) > 5 else ""
PID = os.getpid()
NS = "dting%d" % (PID % 100000)
DEV_IP, LNX_IP = "10.79.0.1", "10.79.0.2"
MIB = 1 << 20
HSPLIT_STASH = 64  # drivers/net/hsplit/hsplit_private.h
TMP = tempfile.mkdtemp(prefix="dtingest")
os.chmod(TMP, 0o755)  # the uid case connects as nobody
SOCK = os.path.join(TMP, "ingest.sock")
PREFIX = "dting%d" % PID
EAL = ["--lcores", "0@0,1@1,2@0", "--in-memory", "--no-pci",
       "--file-prefix", PREFIX,
       "--log-level=lib.eal:warning"]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
import dtcheck  # noqa: E402
import ingest_soak  # noqa: E402
from dtcheck import Checker  # noqa: E402

CK = Checker(NS)
check = CK.check
procs = CK.procs
failures = CK.failures


def python_with_numpy():
    """Debian's python3 (numpy, torch from Debian) is the reference one."""
    for py in ("/usr/bin/python3", sys.executable):
        if subprocess.run([py, "-c", "import numpy"], capture_output=True).returncode == 0:
            return py
    return None


PY = python_with_numpy()

INI = """[port]
mtu = 1500
split = proto
[port.0]
name = net_hsplit_ing
[lcores]
stack_lcores = 1,2
[stack]
port = 0
ipv4 = {dev}
netmask = 255.255.255.0
listen = 5001-5004
[devmem]
gpu = 0
buffers = 8192
buffer_size = 2048
header_buffers = 8192
[limits]
window = 1M
[consumer]
mode = ingest
[ingest]
socket = {sock}
socket_mode = 0666
max_clients = {maxc}
quota = {quota}
on_client_exit = {on_exit}
{extra}
"""


log, text, wait_text = Checker.log, dtcheck.text, dtcheck.wait_text


def skip(why):
    CK.skip(why)


def spawn(cmd, ns=False, out=None, **kw):
    return CK.spawn(cmd, out=out, ns=ns, **kw)


def cleanup():
    CK.kill_all()
    subprocess.run([NETNS_SH, "down", NS], capture_output=True)
    if os.environ.get("DT_INGEST_KEEP"):
        log("kept logs in " + TMP)
    else:
        shutil.rmtree(TMP, ignore_errors=True)


def rand_file(name, size):
    path = os.path.join(TMP, name)
    with open(path, "wb") as f:
        f.write(os.urandom(size))
    return path


def sha(path, start=0, length=None):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        f.seek(start)
        h.update(f.read() if length is None else f.read(length))
    return h.hexdigest()


def start_server(tag, maxc=8, quota=4096, on_exit="reset", extra="", faults=""):
    ini = os.path.join(TMP, tag + ".ini")
    with open(ini, "w") as f:
        f.write(INI.format(dev=DEV_IP, sock=SOCK, maxc=maxc, quota=quota,
                           on_exit=on_exit, extra=extra))
    p = spawn([SERVER] + EAL + ["--vdev=net_hsplit_ing,iface=" + NS +
                                (("," + faults) if faults else ""),
                                "--vdev=gpu_sim_ing,size=128M", "--",
                                "--config", ini, "--drain", "1"],
              out=os.path.join(TMP, tag + ".server"))
    if not wait_text(p, r"running \(SIGINT", 40):
        log(text(p))
        raise RuntimeError("devtcp-server did not start")
    return p


def stop(p):
    if p.poll() is None:
        os.killpg(p.pid, signal.SIGTERM)
    try:
        return p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        return p.wait()


def take(tag, port, *args):
    p = spawn([TAKE, SOCK, str(port)] + [str(a) for a in args],
              out=os.path.join(TMP, tag + ".take"))
    if not wait_text(p, r"attached id|refused", 20):
        raise RuntimeError("client %s did not attach: %s" % (tag, text(p)))
    return p


def send(files, port):
    return [spawn(["socat", "-u", "OPEN:" + f, "TCP:%s:%d" % (DEV_IP, port)],
                  ns=True, out=os.path.join(TMP, "socat-%s.out" % os.path.basename(f)))
            for f in files]


def waitall(ps, timeout):
    end = time.time() + timeout
    rcs = []
    for p in ps:
        try:
            rcs.append(p.wait(timeout=max(1, end - time.time())))
        except subprocess.TimeoutExpired:
            rcs.append(None)
    return rcs


def streams_of(out):
    """[(offset, bytes, sha256)] of the streams a client finished."""
    return [(int(o), int(b), h) for o, b, h in re.findall(
        r"^stream \w+ offset (\d+) bytes (\d+) sha256 ([0-9a-f]{64})", out, re.M)]


def pools(server_text):
    """[(region_free, region_total)] the server logged."""
    return [(int(a), int(b)) for a, b in re.findall(
        r"ingest: pools: region (\d+)/(\d+) free", server_text)]


# ---------------------------------------------------------------- cases

def py_client(tag, port, nstreams):
    """The Python package's client (numpy/torch through DLPack), if present."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          "py_take.py")
    build = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(TAKE))))
    env = dict(os.environ, PYTHONPATH=PYDIR, DEVTCP_LIB=os.path.join(
        build, "lib", "client", "libdevtcp_client.so"))
    p = spawn([PY, script, SOCK, str(port), str(nstreams)],
              out=os.path.join(TMP, tag + ".take"), env=env)
    if not wait_text(p, r"attached id|refused|Error", 30):
        raise RuntimeError("python client did not attach: " + text(p))
    return p


def case_streams():
    srv = start_server("streams")
    files = [rand_file("s%d" % i, (2 + i % 3) * MIB) for i in range(8)]
    a = take("c", 5001, "--streams", 4, "--timeout", 90, "--name", "c-client")
    use_py = bool(PYDIR) and os.path.isdir(os.path.join(PYDIR, "devtcp")) and PY is not None
    b = py_client("py", 5001, 4) if use_py else take(
        "c2", 5001, "--streams", 4, "--timeout", 90)
    check(use_py, "the Python client runs (python/devtcp and numpy found)")
    # One sender opening all 8 connections before sending: each client
    # gets 4 (see churn_peer.py --together).
    peer = os.path.join(os.path.dirname(os.path.abspath(__file__)), "churn_peer.py")
    rcs = waitall([spawn(["python3", peer, "--together", DEV_IP, "5001"] + files,
                         ns=True, out=os.path.join(TMP, "senders.out"))], 90)
    check(rcs == [0], "8 senders finished (%s)" % rcs)
    waitall([a, b], 60)
    got = streams_of(text(a)) + streams_of(text(b))
    want = sorted((0, os.path.getsize(f), sha(f)) for f in files)
    check(sorted(got) == want, "every stream byte-exact through the clients' "
          "views (%d of 8)" % len(set(got) & set(want)))
    check(streams_of(text(a)) and streams_of(text(b)),
          "both clients took streams (%d, %d)" % (len(streams_of(text(a))),
                                                  len(streams_of(text(b)))))
    if use_py:
        check("views: numpy" in text(b), "the Python client read through numpy.from_dlpack")
        has_torch = subprocess.run([PY, "-c", "import torch"],
                                   capture_output=True).returncode == 0
        if has_torch:
            check(re.search(r"torch \(\d+ chunks\)", text(b)) is not None,
                  "... and through torch.from_dlpack (same bytes as numpy's)")
    check(stop(srv) == 0, "server exit 0")


def case_kill(reoffer):
    srv = start_server("kill", on_exit="reoffer" if reoffer else "reset")
    files = [rand_file("k%d" % i, 8 * MIB) for i in range(4)]
    a = take("dier", 5001, "--streams", 2, "--die-after", 3 * MIB,
             "--timeout", 120)
    b = take("survivor", 5001, "--streams", 4 if reoffer else 2,
             "--timeout", 120)
    rcs = waitall(send(files, 5001), 120)
    waitall([a], 10)
    check(a.returncode == -signal.SIGKILL, "client A died of SIGKILL (%s)" % a.returncode)
    waitall([b], 60)
    got = streams_of(text(b))
    if reoffer:
        check(rcs == [0] * 4, "every sender finished (%s)" % rcs)
        check(re.search(r"reoffered", text(b)) is not None,
              "the survivor was offered the dead client's streams")
        ok = 0
        for off, n, h in got:
            ok += any(off + n == os.path.getsize(f) and sha(f, off) == h
                      for f in files)
        check(len(got) == 4 and ok == 4, "the survivor's streams equal the "
              "files from their offsets to the end (%d of %d)" % (ok, len(got)))
    else:
        check(rcs.count(0) == 2 and all(r is not None for r in rcs),
              "the dead client's 2 senders were reset, the other 2 finished (%s)" % rcs)
        want = {sha(f) for f in files}
        check(len(got) == 2 and all(o == 0 and h in want for o, n, h in got),
              "the survivor's 2 streams byte-exact")
    st = text(srv)
    check(len(re.findall(r"went away without detaching", st)) == 1,
          "the server logged the death in one line")
    check(stop(srv) == 0, "server exit 0")
    st = text(srv)
    pl = pools(st)
    nodes = [int(n) for n in re.findall(r"ingest: stack \d+: (\d+) nodes in use", st)]
    check(len(nodes) == 2 and nodes == [0, 0],
          "the stacks hold no chunk of any client once all left (%s)" % nodes)
    # The NIC model keeps a refill stash of HSPLIT_STASH buffers per pool
    # and queue (as a NIC's RX ring does): the rest must all be back.
    check(len(pl) >= 2 and 0 <= pl[0][0] - pl[-1][0] <= 2 * HSPLIT_STASH,
          "region buffers free after every client left = before, less the "
          "NIC's refill stash (%s)" % pl)
    check(re.search(r"ingest: \d+ clients attached, 1 detached, 1 went away", st)
          is not None, "the server counted 1 detach and 1 death")


def case_hold():
    srv = start_server("hold", quota=64)
    held_f = rand_file("held", 16 * MIB)
    free_f = rand_file("free", 8 * MIB)
    h = take("holder", 5002, "--hold", "--timeout", 120)
    n = take("normal", 5001, "--timeout", 120)
    ps_h = send([held_f], 5002)
    ps_n = send([free_f], 5001)
    waitall(ps_n, 60)
    waitall([n], 30)
    check(streams_of(text(n)) == [(0, 8 * MIB, sha(free_f))],
          "the other port's stream completes byte-exact while one client holds")
    time.sleep(1)
    check(ps_h[0].poll() is None, "the holder's sender is stalled (window closed)")
    check(not streams_of(text(h)), "the holder got no end of stream yet")
    t = telemetry("/devtcp/ingest") or {}
    cl = [v for k, v in t.items() if k.startswith("client") and
          isinstance(v, dict) and v.get("port") == 5002]
    check(len(cl) == 1 and cl[0]["held_chunks"] > 0 and cl[0]["streams"] == 1
          and cl[0]["quota_per_stack"] == 64,
          "telemetry /devtcp/ingest lists the holder: 1 stream, chunks held, "
          "quota 64 (%s)" % (cl or t))
    os.kill(h.pid, signal.SIGUSR1)
    rcs = waitall(ps_h, 60)
    waitall([h], 30)
    check(rcs == [0], "the held sender finished once tokens came back")
    check(streams_of(text(h)) == [(0, 16 * MIB, sha(held_f))],
          "the held stream byte-exact")
    check(stop(srv) == 0, "server exit 0")
    drops = re.findall(r"\(server, queue \d+\).*drops: (.*)", text(srv))
    check(drops == ["none", "none"], "no drop counter in the stacks' reports (%s)" % drops)


def telemetry(cmd):
    """One command on the server's telemetry socket (as dpdk-telemetry.py)."""
    import json
    for path in ("/var/run/dpdk/%s/dpdk_telemetry.v2" % PREFIX,
                 "/run/dpdk/%s/dpdk_telemetry.v2" % PREFIX):
        if os.path.exists(path):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            s.connect(path)
            s.recv(16384)
            s.send(cmd.encode())
            reply = json.loads(s.recv(65536).decode())
            s.close()
            return reply.get(cmd.split(",")[0])  # "/eal/heap_info,0"
    return None


def case_hostile():
    srv = start_server("hostile")
    fa, fb = rand_file("ha", 4 * MIB), rand_file("hb", 4 * MIB)
    bad = take("bad", 5002, "--hostile", "--timeout", 60)
    check(wait_text(bad, r"hostile: scribbled", 20), "the hostile client wrote its tokens")
    good = take("good", 5001, "--timeout", 60)
    time.sleep(0.5)
    t = telemetry("/devtcp/ingest") or {}
    cl = [v for k, v in t.items() if k.startswith("client") and
          isinstance(v, dict) and v.get("port") == 5002]
    check(len(cl) == 1 and cl[0]["bad_tokens"] > 0,
          "telemetry counts the hostile client's bad tokens (%s)" % (cl or t))
    rcs = waitall(send([fa], 5002) + send([fb], 5001), 60)
    waitall([bad, good], 30)
    check(rcs == [0, 0], "both senders finished (%s)" % rcs)
    check(streams_of(text(bad)) == [(0, 4 * MIB, sha(fa))],
          "the hostile client's own stream is byte-exact")
    check(streams_of(text(good)) == [(0, 4 * MIB, sha(fb))],
          "the other client's stream is byte-exact")
    # The clients have exited; the server reads their detach on its main
    # lcore a moment later: wait for its line before stopping it.
    check(wait_text(srv, "gave back tokens it did not hold", 10),
          "the server's line for the client says it gave back tokens it did not hold")
    check(stop(srv) == 0, "server exit 0")


def raw_hello(version):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(SOCK)
    s.send(struct.pack("<IHHHHI32s", 0x64746369, version, 1, 5001, 0, 0, b"raw"))
    w = s.recv(4096)
    s.close()
    magic, ver, typ, status = struct.unpack_from("<IHHi", w)
    why = w[12:12 + 160].split(b"\0")[0].decode()
    return status, why


def refused(p):
    p.wait(timeout=20)
    m = re.search(r"refused: (\d+) (.*)", text(p))
    return (int(m.group(1)), m.group(2)) if m else (None, text(p))


def case_refusals():
    srv = start_server("ref", maxc=2, extra="allow_uids = 0,4242")
    a = take("r1", 5001, "--timeout", 60)
    b = take("r2", 5001, "--timeout", 60)
    code, why = refused(take("r3", 5001))
    check(code == errno.EUSERS and "too many clients" in why,
          "third client refused: too many clients (%s %s)" % (code, why))
    for p in (a, b):
        os.killpg(p.pid, signal.SIGTERM)
        p.wait()
    time.sleep(0.5)
    code, why = refused(take("r4", 5999))
    check(code == errno.ENOENT and "5999" in why,
          "port 5999 refused: not served (%s %s)" % (code, why))
    status, why = raw_hello(99)
    check(status == errno.EPROTO and "version" in why,
          "protocol version 99 refused (%s %s)" % (status, why))
    if shutil.which("setpriv"):
        p = spawn(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                   TAKE, SOCK, "5001"], out=os.path.join(TMP, "r5.take"))
        code, why = refused(p)
        check(code == errno.EACCES and "uid" in why,
              "uid 65534 refused (%s %s)" % (code, why))
    check(stop(srv) == 0, "server exit 0")
    st = text(srv)
    m = re.search(r"refused: (\d+) version, (\d+) full, (\d+) port, (\d+) uid/gid", st)
    want = ("1", "1", "1", "1" if shutil.which("setpriv") else "0")
    check(m is not None and m.groups() == want,
          "the server counted each refusal (%s)" % str(m.groups() if m else None))


def main():
    if os.geteuid() != 0:
        skip("needs root (network namespace, veth)")
    for tool in ("socat", "ip"):
        if shutil.which(tool) is None:
            skip(tool + " is missing")
    r = subprocess.run([NETNS_SH, "up", NS, "--addr", LNX_IP + "/24",
                        "--mtu", "1500"], capture_output=True, text=True)
    if r.returncode != 0:
        skip("cannot make the test host: " + r.stderr.strip())
    try:
        {"streams": case_streams, "kill": lambda: case_kill(False),
         "reoffer": lambda: case_kill(True), "hold": case_hold,
         "hostile": case_hostile,
         "soak": lambda: ingest_soak.case_soak(sys.modules[__name__]),
         "refusals": case_refusals}[CASE]()
    except Exception as e:  # a failure to run is a failure
        failures.append("%s: %r" % (CASE, e))
        log("FAIL %s: %r" % (CASE, e))
        for p in procs:
            if p.out_path and p.out_path.endswith((".server", ".take")):
                log("---- %s\n%s" % (os.path.basename(p.out_path), text(p)[-3000:]))
    finally:
        if failures:
            for p in procs:
                if p.out_path and p.out_path.endswith(".server"):
                    log("---- server log tail\n" + text(p)[-4000:])
        cleanup()
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
