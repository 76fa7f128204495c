"""DLPack structures and capsule ownership, without libdevtcp or a server."""
import ctypes
import gc
import shutil
import subprocess
import threading

import pytest

from devtcp import _dlpack
from devtcp._dlpack import (DLManagedTensor, DLManagedTensorVersioned,
                            DLTensor, make_capsule)

np = pytest.importorskip("numpy")


class Owner:
    def __init__(self):
        self.done = 0
        self.threads = []

    def dlpack_done(self):
        self.done += 1
        self.threads.append(threading.get_ident())


class Exporter:
    """A producer over a ctypes buffer, for the consumers' side."""

    def __init__(self, n=32):
        self.buf = (ctypes.c_uint8 * n)(*range(n))
        self.n = n
        self.owner = Owner()

    def __dlpack__(self, stream=None, max_version=None, **kw):
        return make_capsule(ctypes.addressof(self.buf), self.n,
                            (_dlpack.kDLCPU, 0), self.owner,
                            versioned=bool(max_version and max_version[0] >= 1))

    def __dlpack_device__(self):
        return (_dlpack.kDLCPU, 0)


def test_struct_layout():
    """The ctypes structures lay out as dlpack.h's on this ABI."""
    assert ctypes.sizeof(DLTensor) == 48
    assert DLTensor.data.offset == 0
    assert DLTensor.device.offset == 8
    assert DLTensor.ndim.offset == 16
    assert DLTensor.dtype.offset == 20
    assert DLTensor.shape.offset == 24
    assert DLTensor.strides.offset == 32
    assert DLTensor.byte_offset.offset == 40
    assert ctypes.sizeof(DLManagedTensor) == 64
    assert DLManagedTensor.manager_ctx.offset == 48
    assert DLManagedTensor.deleter.offset == 56
    assert ctypes.sizeof(DLManagedTensorVersioned) == 80
    assert DLManagedTensorVersioned.version.offset == 0
    assert DLManagedTensorVersioned.manager_ctx.offset == 8
    assert DLManagedTensorVersioned.deleter.offset == 16
    assert DLManagedTensorVersioned.flags.offset == 24
    assert DLManagedTensorVersioned.dl_tensor.offset == 32


DLPACK_H_CHECK = r"""
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include "dt_client.h"
#define P(s, f) printf(#s "." #f " %zu\n", offsetof(struct s, f))
int main(void) {
    printf("dt_client_chunk %zu\n", sizeof(struct dt_client_chunk));
    P(dt_client_chunk, addr); P(dt_client_chunk, offset); P(dt_client_chunk, len);
    P(dt_client_chunk, kind); P(dt_client_chunk, host); P(dt_client_chunk, reoffered);
    P(dt_client_chunk, peer_ipv4); P(dt_client_chunk, peer_port);
    P(dt_client_chunk, local_port); P(dt_client_chunk, stream_offset);
    P(dt_client_chunk, err); P(dt_client_chunk, token); P(dt_client_chunk, stack);
    printf("dt_client_stats %zu\n", sizeof(struct dt_client_stats));
    P(dt_client_stats, held); P(dt_client_stats, client_id);
    P(dt_client_stats, nb_stacks); P(dt_client_stats, ring_size);
    printf("dt_client_conf %zu\n", sizeof(struct dt_client_conf));
    P(dt_client_conf, port); P(dt_client_conf, quota); P(dt_client_conf, name);
    printf("dt_client_error %zu\n", sizeof(struct dt_client_error));
    return 0;
}
"""


def test_client_structs_match_header(tmp_path):
    """ctypes mirrors of dt_client.h agree with the C compiler (when there is
    one and the header is in the source tree)."""
    import os
    from devtcp import _capi
    cc = shutil.which("cc") or shutil.which("gcc")
    inc = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(_capi.__file__)))), "lib", "client")
    if cc is None or not os.path.exists(os.path.join(inc, "dt_client.h")):
        pytest.skip("no C compiler or no lib/client/dt_client.h")
    src = tmp_path / "l.c"
    src.write_text(DLPACK_H_CHECK)
    exe = tmp_path / "l"
    subprocess.run([cc, "-I", inc, str(src), "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True,
                         check=True).stdout
    got = dict(line.rsplit(" ", 1) for line in out.splitlines())
    classes = {"dt_client_chunk": _capi.DtClientChunk,
               "dt_client_stats": _capi.DtClientStats,
               "dt_client_conf": _capi.DtClientConf,
               "dt_client_error": _capi.DtClientError}
    for key, val in got.items():
        if "." in key:
            s, f = key.split(".")
            assert getattr(classes[s], f).offset == int(val), key
        else:
            assert ctypes.sizeof(classes[key]) == int(val), key


def test_numpy_consumes_and_deleter_runs_once():
    e = Exporter()
    a = np.from_dlpack(e)
    assert a.dtype == np.uint8 and a.shape == (32,)
    assert list(a[:4]) == [0, 1, 2, 3]
    assert e.owner.done == 0 and _dlpack.outstanding() >= 1
    del a
    gc.collect()
    assert e.owner.done == 1


def test_torch_consumes_and_deleter_runs_once():
    torch = pytest.importorskip("torch")
    e = Exporter()
    t = torch.from_dlpack(e)
    assert t.dtype == torch.uint8 and t.shape == (32,) and t[5].item() == 5
    v = t[3:9]          # a view keeps the storage (and the token)
    del t
    gc.collect()
    assert e.owner.done == 0
    del v
    gc.collect()
    assert e.owner.done == 1


def test_unconsumed_capsule_calls_deleter_from_destructor():
    e = Exporter()
    cap = e.__dlpack__()
    assert e.owner.done == 0
    del cap
    gc.collect()
    assert e.owner.done == 1
    cap = e.__dlpack__(max_version=(1, 0))
    del cap
    assert e.owner.done == 2


def test_capsule_dropped_while_an_exception_unwinds():
    e = Exporter()

    def f():
        cap = e.__dlpack__()  # noqa: F841
        raise KeyError("x")
    with pytest.raises(KeyError):
        f()
    gc.collect()
    assert e.owner.done == 1


_GetPointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object,
                                ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))
_SetName = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_SetName", ctypes.pythonapi))
_USED = ctypes.create_string_buffer(b"used_dltensor_versioned")


def test_versioned_capsule_as_a_consumer_sees_it():
    """A DLPack >= 1.0 consumer: version, read-only flag, tensor fields; it
    renames the capsule, calls the deleter once; the destructor then does
    nothing more."""
    e = Exporter(16)
    cap = e.__dlpack__(max_version=(1, 0))
    p = _GetPointer(cap, b"dltensor_versioned")
    mt = DLManagedTensorVersioned.from_address(p)
    assert (mt.version.major, mt.version.minor) == _dlpack.DLPACK_VERSION
    assert mt.flags & _dlpack.FLAG_READ_ONLY
    t = mt.dl_tensor
    assert t.data == ctypes.addressof(e.buf)
    assert (t.device.device_type, t.device.device_id) == (1, 0)
    assert t.ndim == 1 and t.shape[0] == 16 and t.strides[0] == 1
    assert (t.dtype.code, t.dtype.bits, t.dtype.lanes) == (1, 8, 1)
    assert t.byte_offset == 0
    assert mt.manager_ctx == p
    _SetName(cap, ctypes.cast(_USED, ctypes.c_char_p))
    deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(mt.deleter)
    deleter(p)
    assert e.owner.done == 1
    deleter(p)   # a buggy consumer calling twice: still once
    del cap
    gc.collect()
    assert e.owner.done == 1


def test_deleter_on_another_thread():
    e = Exporter()
    a = np.from_dlpack(e)
    box = [a]
    del a
    th = threading.Thread(target=box.clear)
    th.start()
    th.join()
    gc.collect()
    assert e.owner.done == 1
    assert e.owner.threads == [th.ident]
