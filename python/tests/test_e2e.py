"""End to end against a real devtcp-server ([consumer] mode = ingest).

The server runs with the software header-split NIC on a loopback wire and
gpu_sim memory (--in-memory --no-pci), and its own [client] section sends
the stream test pattern (lib/devmem/dt_pattern.h) from the wire's other
port. Streams wait in the server (no_client = hold) until a client attaches.
Every byte is checked through numpy.from_dlpack / torch.from_dlpack views
against the pattern, and each stream's SHA-256 against the sender's.

The server is build/app/server/devtcp-server of this repository, or
DEVTCP_SERVER; the tests skip when neither exists.
"""
import collections
import ctypes
import gc
import hashlib
import itertools
import os
import re
import signal
import subprocess
import sys
import time

import pytest

import devtcp
from devtcp import _dlpack

np = pytest.importorskip("numpy")

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SERVER = os.environ.get("DEVTCP_SERVER") or os.path.join(
    REPO, "build", "app", "server", "devtcp-server")
_seq = itertools.count()

pytestmark = pytest.mark.skipif(not os.access(SERVER, os.X_OK),
                                reason="no devtcp-server at " + SERVER)

INI = """[port]
mtu = 1500
split = proto
[port.0]
name = net_hsplit_{tag}0
[port.1]
name = net_hsplit_{tag}1
split = none
[lcores]
stacks = 1
[stack]
port = 0
ipv4 = 10.0.0.1
netmask = 255.255.255.0
listen = 5001
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
socket_mode = 0600
max_clients = 8
quota = {quota}
on_client_exit = {on_exit}
no_client = hold
[client]
port = 1
ipv4 = 10.0.0.2
netmask = 255.255.255.0
connect = 10.0.0.1:5001
conns = {conns}
bytes = {nbytes}
chunk = 64K
"""


def pattern_np(off, n):
    """dt_pattern_byte() of stream offsets off .. off+n-1."""
    o = np.arange(off, off + n, dtype=np.uint64) & np.uint64(0xffffffff)
    return (((o * np.uint64(2654435761)) & np.uint64(0xffffffff))
            >> np.uint64(24)).astype(np.uint8)


def pattern_sha(n):
    h = hashlib.sha256()
    for off in range(0, n, 1 << 20):
        h.update(pattern_np(off, min(1 << 20, n - off)).tobytes())
    return h.hexdigest()


class Server:
    def __init__(self, tmp, conns, nbytes, quota=4096, on_exit="reset"):
        self.tag = "py%d_%d" % (os.getpid() % 10000, next(_seq))
        self.sock = os.path.join(str(tmp), "ingest.sock")
        self.ini = os.path.join(str(tmp), "server.ini")
        self.log = os.path.join(str(tmp), "server.log")
        with open(self.ini, "w") as f:
            f.write(INI.format(tag=self.tag, sock=self.sock, conns=conns,
                               nbytes=nbytes, quota=quota, on_exit=on_exit))
        wire = "w" + self.tag
        vdevs = ["--vdev=net_hsplit_%s0,wire=%s" % (self.tag, wire),
                 "--vdev=net_hsplit_%s1,wire=%s" % (self.tag, wire),
                 "--vdev=gpu_sim_%s,size=64M" % self.tag]
        # Hugepages first; on a host whose hugepages other jobs hold, the
        # same without them (the software NIC and gpu_sim do not need them).
        for mem in (["--in-memory"],
                    ["--no-huge", "-m", "512", "--file-prefix", self.tag]):
            cmd = [SERVER, "-l", "0-1", "--no-pci",
                   "--log-level=lib.eal:warning"] + mem + vdevs + \
                ["--", "--config", self.ini, "--drain", "1"]
            self.out = open(self.log, "w")
            self.p = subprocess.Popen(cmd, stdout=self.out,
                                      stderr=subprocess.STDOUT,
                                      start_new_session=True)
            if self.wait_text(r"running \(SIGINT", 60):
                return
            self.stop()
            if "hugepage" not in self.text():
                break
        pytest.fail("devtcp-server did not start:\n" + self.text()[-3000:])

    def text(self):
        with open(self.log) as f:
            return f.read()

    def wait_text(self, pat, timeout):
        end = time.time() + timeout
        while time.time() < end:
            if re.search(pat, self.text()):
                return True
            if self.p.poll() is not None:
                return bool(re.search(pat, self.text()))
            time.sleep(0.05)
        return False

    def sender_done(self):
        """{stream: (bytes acknowledged, sha256)} the sender logged."""
        return {int(s, 16): (int(n), h) for s, n, h in re.findall(
            r"sender: stream (\w+) done: (\d+) of \d+ bytes acknowledged, "
            r"sha256 ([0-9a-f]{64})", self.text())}

    def stop(self):
        if self.p.poll() is None:
            os.killpg(self.p.pid, signal.SIGTERM)
        try:
            rc = self.p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.p.pid, signal.SIGKILL)
            rc = self.p.wait()
        self.out.close()
        return rc


@pytest.fixture
def server(tmp_path):
    made = []

    def start(conns, nbytes, **kw):
        s = Server(tmp_path, conns, nbytes, **kw)
        made.append(s)
        return s
    yield start
    for s in made:
        rc = s.stop()
        assert rc == 0, "server exit %s:\n%s" % (rc, s.text()[-3000:])


def consume_versioned(chunk):
    """A DLPack >= 1.0 consumer in ctypes: the bytes, then the deleter."""
    GetPointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object,
                                   ctypes.c_char_p)(
        ("PyCapsule_GetPointer", ctypes.pythonapi))
    SetName = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object,
                                ctypes.c_void_p)(
        ("PyCapsule_SetName", ctypes.pythonapi))
    cap = chunk.__dlpack__(max_version=(1, 0))
    p = GetPointer(cap, b"dltensor_versioned")
    mt = _dlpack.DLManagedTensorVersioned.from_address(p)
    assert mt.flags & _dlpack.FLAG_READ_ONLY
    t = mt.dl_tensor
    data = ctypes.string_at(t.data + t.byte_offset, t.shape[0])
    SetName(cap, ctypes.addressof(_USED))
    ctypes.CFUNCTYPE(None, ctypes.c_void_p)(mt.deleter)(p)
    return np.frombuffer(data, dtype=np.uint8)


_USED = ctypes.create_string_buffer(b"used_dltensor_versioned")


def test_every_byte_through_dlpack_views(server):
    """4 streams of 4 MiB: every chunk viewed through numpy.from_dlpack,
    torch.from_dlpack (when installed) and a versioned capsule in turn and
    compared with the pattern at its stream offset; each stream's SHA-256
    equals the sender's; every token comes back."""
    torch = None
    try:
        import torch
    except ImportError:
        pass
    conns, n = 4, 4 << 20
    srv = server(conns, n)
    views = ["numpy", "versioned"] + (["torch"] if torch else [])
    used = collections.Counter()
    t = None
    with devtcp.Client(srv.sock, 5001, name="pytest-e2e") as c:
        assert c.mem == "cpu" and c.device == (_dlpack.kDLCPU, 0)
        off = {}
        sha = {}
        done = {}
        i = 0
        end = time.time() + 120
        while len(done) < conns and time.time() < end:
            chunks = c.poll(128)
            if not chunks:
                assert not c.server_gone
                time.sleep(0.0005)
            for ch in chunks:
                if ch.kind == "open":
                    assert not ch.reoffered and ch.stream_offset == 0
                    off[ch.stream], sha[ch.stream] = 0, hashlib.sha256()
                elif ch.kind == "data":
                    assert ch.__dlpack_device__() == (_dlpack.kDLCPU, 0)
                    v = views[i % len(views)]
                    i += 1
                    if v == "numpy":
                        a = np.from_dlpack(ch)
                    elif v == "torch":
                        t = torch.from_dlpack(ch)
                        assert t.dtype == torch.uint8 and t.device.type == "cpu"
                        a = t.numpy()
                    else:
                        a = consume_versioned(ch)
                    used[v] += 1
                    want = pattern_np(off[ch.stream], ch.len)
                    assert np.array_equal(a, want), \
                        "stream %#x bytes %d..%d differ from the pattern" % (
                            ch.stream, off[ch.stream], off[ch.stream] + ch.len)
                    sha[ch.stream].update(a.tobytes())
                    off[ch.stream] += ch.len
                    ch.release()   # the view (if any) keeps it meanwhile
                    a = t = None
                else:
                    assert ch.kind == "fin", ch
                    done[ch.stream] = (off[ch.stream],
                                      sha[ch.stream].hexdigest())
            del chunks
        assert len(done) == conns, "streams finished: %d of %d" % (
            len(done), conns)
        gc.collect()
        c.flush()
        st = c.stats()
        assert st.held == 0 and st.exported == 0, st
        assert st.bytes == conns * n and st.streams_finished == conns
    want_sha = pattern_sha(n)
    assert sorted(done.values()) == [(n, want_sha)] * conns
    assert srv.wait_text(r"sender: stream \w+ done", 10)
    assert all(v == (n, want_sha) for v in srv.sender_done().values())
    assert all(used[v] > 100 for v in views), used
    assert srv.wait_text(r"client \d+ 'pytest-e2e' .*detached; its buffers "
                         r"are back", 10)


def test_views_hold_the_window(server):
    """Chunks kept alive only through numpy views close the stream's window
    (the sender stalls, nothing is lost); freeing the views gives the tokens
    back through the DLPack deleter and the stream completes byte-exact."""
    n = 8 << 20
    srv = server(1, n, quota=256)
    with devtcp.Client(srv.sock, 5001, name="pytest-hold") as c:
        s = next(c.streams(timeout=30))
        views = []
        got = 0
        for ch in s.chunks(timeout=30):
            views.append((got, np.from_dlpack(ch)))
            got += ch.len
            if len(views) == 256:
                break
        ch = None
        # every chunk's Chunk object is gone: only the views hold them
        gc.collect()
        assert c.stats().held == 256 and c.stats().exported == 256
        time.sleep(1.0)
        c._pump()
        assert not s._q, "the server handed out more than the quota"
        assert srv.sender_done() == {}, "the sender finished while held"
        for o, a in views:
            assert np.array_equal(a, pattern_np(o, a.shape[0]))
        views.clear()
        gc.collect()
        total, digest = s.sha256(timeout=60)
        assert got + total == n and s.state == "fin"
    assert srv.wait_text(r"sender: stream \w+ done", 10)
    assert list(srv.sender_done().values()) == [(n, pattern_sha(n))]


def test_read_into(server):
    """read_into: a torch CPU tensor and a numpy array filled from a stream,
    1 MiB (and an odd 777 777 bytes) at a time, equal to the pattern."""
    torch = pytest.importorskip("torch")
    n = 8 << 20
    srv = server(1, n)
    with devtcp.Client(srv.sock, 5001) as c:
        s = next(c.streams(timeout=30))
        t = torch.empty(1 << 20, dtype=torch.uint8)
        a = np.empty(777777, dtype=np.uint8)
        at = 0
        k = 0
        while True:
            dest = t if k % 2 == 0 else a
            k += 1
            got = s.read_into(dest, timeout=30)
            view = dest.numpy() if dest is t else dest
            assert np.array_equal(view[:got], pattern_np(at, got)), at
            at += got
            if got < view.shape[0]:
                break
        assert at == n and s.state == "fin"
        gc.collect()
        c.flush()
        assert c.stats().held == 0


@pytest.mark.parametrize("workers", [0, 2])
def test_record_dataset(server, workers):
    """RecordDataset through a torch DataLoader (in-process, and 2 worker
    processes, each attached as its own client): every 1000-byte record of
    both streams, spanning chunks, arrives once; the partial last record of
    each stream is dropped."""
    torch = pytest.importorskip("torch")
    from torch.utils.data import DataLoader
    conns, n, N = 2, 4 << 20, 1000
    srv = server(conns, n)
    ds = devtcp.RecordDataset(srv.sock, 5001, N, batch_size=32,
                              idle_timeout=3.0, name="pytest-ds")
    got = collections.Counter()
    for b in DataLoader(ds, batch_size=None, num_workers=workers):
        assert b.dtype == torch.uint8 and b.shape[1] == N
        for row in b.numpy():
            got[row.tobytes()] += 1
    want = collections.Counter()
    for k in range(n // N):
        want[pattern_np(k * N, N).tobytes()] += conns
    assert got == want
    if workers:
        assert len(re.findall(r"'pytest-ds-r0w\d' .* attached", srv.text())) \
            == workers


def test_cli_status_recv_and_refusal(server):
    """python -m devtcp: status (attach quota 1, detach), recv (the SHA-256
    of each stream through numpy and torch views), a refused port."""
    n = 2 << 20
    srv = server(2, n)
    env = dict(os.environ)
    if not env.get("DEVTCP_TEST_INSTALLED"):
        env["PYTHONPATH"] = os.path.dirname(HERE)
    run = lambda *a: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "devtcp"] + list(a), env=env,
        capture_output=True, text=True, timeout=120)
    p = run("status", srv.sock, "5999")
    assert p.returncode == 3 and "not a listen port" in p.stderr, p.stderr
    views = "numpy,torch,bytes"
    try:
        import torch  # noqa: F401
    except ImportError:
        views = "numpy,bytes"
    p = run("recv", srv.sock, "5001", "--streams", "2", "--views", views,
            "--timeout", "60")
    assert p.returncode == 0, p.stdout + p.stderr
    got = re.findall(r"^stream \w+ offset 0 bytes (\d+) sha256 (\w+)$",
                     p.stdout, re.M)
    assert got == [(str(n), pattern_sha(n))] * 2, p.stdout
    assert re.search(r"^attached id \d+ stacks 1 quota 4096 mem cpu",
                     p.stdout, re.M)
    p = run("status", srv.sock)
    assert p.returncode == 0, p.stderr
    assert re.search(r"attached:\s+client \d+ for port 5001", p.stdout)
    assert "region:     cpu" in p.stdout and "detached" in p.stdout
    assert len(re.findall(r"ingest: client refused", srv.text())) == 1


def test_cli_clients_lists_a_holder(server):
    """python -m devtcp clients: the server's telemetry lists an attached
    client with its port, stream, quota and the chunks it holds; a prefix
    nobody runs is a clear error (exit 1)."""
    n = 4 << 20
    srv = server(1, n, quota=128)
    m = re.search(r"telemetry: .*\(socket (\S+);", srv.text())
    assert m, srv.text()[-2000:]
    env = dict(os.environ)
    if not env.get("DEVTCP_TEST_INSTALLED"):
        env["PYTHONPATH"] = os.path.dirname(HERE)
    run = lambda *a: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "devtcp", "clients"] + list(a), env=env,
        capture_output=True, text=True, timeout=60)
    with devtcp.Client(srv.sock, 5001, name="pytest-lister") as c:
        s = next(c.streams(timeout=30))
        held, got = [], 0
        for ch in s.chunks(timeout=30):
            held.append(ch)
            got += ch.len
            if len(held) == 16:
                break
        p = run("--telemetry-socket", m.group(1))
        assert p.returncode == 0, p.stdout + p.stderr
        rows = [ln.split() for ln in p.stdout.splitlines()
                if "pytest-lister" in ln]
        assert len(rows) == 1, p.stdout
        head = p.stdout.splitlines()[0].split()
        row = dict(zip(head, rows[0]))
        assert row["port"] == "5001" and row["streams"] == "1", p.stdout
        assert row["quota"] == "128" and int(row["held"]) >= 16, p.stdout
        assert re.search(r"1 attached, 0 detached, 0 died, 0 refused", p.stdout)
        for ch in held:
            ch.release()
        total, _ = s.sha256(timeout=60)
        assert got + total == n and s.state == "fin"
    p = run("-f", "devtcp-no-such-prefix")
    assert p.returncode == 1 and "telemetry at" in p.stderr, p.stderr


def test_reoffer_after_a_python_client_dies(server):
    """on_client_exit = reoffer: a Python client (python -m devtcp recv)
    SIGKILLs itself mid-stream; this client is re-offered its streams from
    the first byte the dead one did not give back, and every byte from that
    offset to the end equals the pattern."""
    n = 8 << 20
    srv = server(2, n, on_exit="reoffer")
    env = dict(os.environ)
    if not env.get("DEVTCP_TEST_INSTALLED"):
        env["PYTHONPATH"] = os.path.dirname(HERE)
    dier = subprocess.Popen(
        [sys.executable, "-m", "devtcp", "recv", srv.sock, "5001",
         "--quota", "64", "--die-after", str(3 << 20), "--views", "bytes",
         "--name", "dier"], env=env, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True)
    assert srv.wait_text(r"client \d+ 'dier' .* attached", 30)
    out = dier.communicate(timeout=60)[0]
    assert dier.returncode == -signal.SIGKILL, out
    assert "dying after" in out and "\nopen " in out, out
    with devtcp.Client(srv.sock, 5001, name="survivor") as c:
        got = {}
        for s in c.streams(timeout=30):
            # the dead client's streams come re-offered (from offset 0 when
            # it had given nothing back of one)
            assert s.reoffered or s.stream_offset == 0
            at = s.stream_offset
            for ch in s.chunks(timeout=30):
                a = np.from_dlpack(ch)
                assert np.array_equal(a, pattern_np(at, ch.len)), at
                at += ch.len
                ch.release()
                a = None
            got[s.id] = (s.stream_offset, at)
            if len(got) == 2:
                break
    assert len(got) == 2 and all(end == n for off, end in got.values()), got
    assert any(off > 0 for off, end in got.values()), got
    assert srv.wait_text(r"'dier' .*went away", 10)
    # The senders (in the server's process) log "done" once our side's FIN
    # reaches them, a moment after the survivor took the streams' ends.
    end = time.time() + 10
    while len(srv.sender_done()) < 2 and time.time() < end:
        time.sleep(0.05)
    assert len(srv.sender_done()) == 2, srv.sender_done()
