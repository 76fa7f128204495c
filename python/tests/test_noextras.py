"""Without torch (numpy only) and without either: the package imports and
its non-tensor parts work."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

BLOCK = r"""
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError("blocked for the test: " + name)
sys.meta_path.insert(0, Block())
"""

BODY = r"""
import devtcp, hashlib
from fakecapi import FakeApi, pattern
assert devtcp.RecordDataset.__mro__[1] is object or "torch" not in BLOCKED
f = FakeApi()
f.open(1); f.data(1, pattern(0, 5000), 1000); f.fin(1)
f.open(2); f.data(2, pattern(0, 3000), 1000); f.fin(2)
with devtcp.Client("/fake.sock", 5001, api=f) as c:
    a, b = list(c.streams(timeout=0.1))
    assert a.read() == pattern(0, 5000)
    assert b.sha256()[1] == hashlib.sha256(pattern(0, 3000)).hexdigest()
print("ok")
"""


def run(blocked):
    env = dict(os.environ)
    if not env.get("DEVTCP_TEST_INSTALLED"):
        env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(HERE), HERE])
    else:
        env["PYTHONPATH"] = HERE
    code = "BLOCKED = %r\n" % (blocked,) + BLOCK + BODY
    return subprocess.run([sys.executable, "-c", code], env=env,
                          capture_output=True, text=True, timeout=120)


def test_without_torch_and_numpy():
    p = run(("numpy", "torch"))
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr


def test_without_torch():
    p = run(("torch",))
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr


def test_cli_help_without_library():
    env = dict(os.environ, DEVTCP_LIB="/nonexistent/libdevtcp.so")
    if not env.get("DEVTCP_TEST_INSTALLED"):
        env["PYTHONPATH"] = os.path.dirname(HERE)
    p = subprocess.run([sys.executable, "-m", "devtcp", "--help"], env=env,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "status" in p.stdout and "recv" in p.stdout
    p = subprocess.run([sys.executable, "-m", "devtcp", "status", "/x.sock"],
                       env=env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 4
    assert "DEVTCP_LIB" in p.stderr and "/nonexistent/libdevtcp.so" in p.stderr


def test_library_lookup_errors(monkeypatch, tmp_path):
    from devtcp import _capi
    monkeypatch.setenv("DEVTCP_LIB", str(tmp_path / "none.so"))
    assert _capi.candidates() == [str(tmp_path / "none.so")]
    try:
        _capi.find_library()
        raise AssertionError("found a library that is not there")
    except _capi.LibraryNotFound as e:
        assert "no such file" in str(e)
    import ctypes.util
    libc = ctypes.util.find_library("c")
    monkeypatch.setenv("DEVTCP_LIB", libc)
    try:
        _capi.find_library()
        raise AssertionError("libc taken for libdevtcp")
    except _capi.LibraryNotFound as e:
        assert "no dt_client_attach" in str(e)
