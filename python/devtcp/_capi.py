"""The C client API of libdevtcp (``dt_client.h``) through ctypes.

Everything above this module talks to a :class:`CApi`: :class:`LibCApi` calls
the real library; the tests put a fake in its place. The structures mirror
``lib/client/dt_client.h`` field for field (ctypes lays them out as the C
compiler does on the same ABI).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import errno as _errno
import os
import shutil
import subprocess
from pathlib import Path
from typing import List, Optional, Protocol

__all__ = [
    "DtClientChunk", "DtClientStats", "DtClientConf", "DtClientError",
    "MEM_CPU", "MEM_CUDA", "OPEN", "DATA", "FIN", "RESET",
    "AttachError", "LibraryNotFound", "CApi", "LibCApi", "find_library",
    "load",
]

#: enum dt_client_mem
MEM_CPU = 1
MEM_CUDA = 2

#: enum dt_client_chunk_kind
OPEN = 1
DATA = 2
FIN = 3
RESET = 4

#: offset of a host chunk (bytes in shared memory, not in the region)
HOST_OFFSET = (1 << 64) - 1


class DtClientConf(ctypes.Structure):
    """struct dt_client_conf"""
    _fields_ = [
        ("path", ctypes.c_char_p),
        ("port", ctypes.c_uint16),
        ("quota", ctypes.c_uint32),
        ("name", ctypes.c_char_p),
    ]


class DtClientError(ctypes.Structure):
    """struct dt_client_error"""
    _fields_ = [
        ("code", ctypes.c_int),
        ("message", ctypes.c_char * 192),
    ]


class DtClientChunk(ctypes.Structure):
    """struct dt_client_chunk: one event of a stream."""
    _fields_ = [
        ("stream", ctypes.c_uint64),
        ("addr", ctypes.c_void_p),
        ("offset", ctypes.c_uint64),
        ("len", ctypes.c_uint32),
        ("kind", ctypes.c_uint8),
        ("host", ctypes.c_bool),
        ("reoffered", ctypes.c_bool),
        ("peer_ipv4", ctypes.c_uint32),
        ("peer_port", ctypes.c_uint16),
        ("local_port", ctypes.c_uint16),
        ("stream_offset", ctypes.c_uint64),
        ("err", ctypes.c_int),
        ("token", ctypes.c_uint32),
        ("stack", ctypes.c_uint16),
    ]


class DtClientStats(ctypes.Structure):
    """struct dt_client_stats"""
    _fields_ = [
        ("chunks", ctypes.c_uint64),
        ("bytes", ctypes.c_uint64),
        ("host_bytes", ctypes.c_uint64),
        ("streams_opened", ctypes.c_uint64),
        ("streams_finished", ctypes.c_uint64),
        ("streams_reset", ctypes.c_uint64),
        ("released", ctypes.c_uint64),
        ("held", ctypes.c_uint32),
        ("client_id", ctypes.c_uint32),
        ("nb_stacks", ctypes.c_uint16),
        ("ring_size", ctypes.c_uint32),
    ]


class LibraryNotFound(ImportError):
    """libdevtcp (with the client API) could not be found or loaded."""


class AttachError(OSError):
    """dt_client_attach() failed: a refusal by the server or a system error.

    ``errno`` is the positive errno (``EPROTO``: protocol version mismatch,
    ``EUSERS``: too many clients, ``ENOENT``: port not served, ``EACCES``:
    uid/gid not allowed, or a system error such as ``ECONNREFUSED``);
    ``strerror`` the reason the server or the system gave.
    """

    #: True when the server said no (as opposed to a system error such as
    #: a missing socket, which is ENOENT too)
    refused: bool = False


class CApi(Protocol):
    """What the Python layer needs of dt_client.h (one call each).

    ``handle`` is opaque (the ``struct dt_client *``). Counts and errors are
    returned as the C calls return them (negative errno), except attach,
    which raises :class:`AttachError`.
    """

    def attach(self, path: str, port: int, quota: int,
               name: Optional[str]) -> object: ...

    def poll(self, handle: object, out: "ctypes.Array[DtClientChunk]",
             n: int) -> int: ...

    def poll_batch(self, handle: object, out: "ctypes.Array[DtClientChunk]",
                   n: int, min: int, wait_us: int) -> int:
        """Up to ``n`` chunks, returning once ``min`` are out, a stream
        ended, or ``wait_us`` passed (dt_client_poll_batch())."""
        ...

    def release(self, handle: object, chunks: "ctypes.Array[DtClientChunk]",
                n: int) -> int: ...

    def detach(self, handle: object) -> int: ...

    def mem(self, handle: object) -> int: ...

    def region_base(self, handle: object) -> int: ...

    def region_len(self, handle: object) -> int: ...

    def cpu_alias(self, handle: object) -> Optional[int]: ...

    def cuda_device(self, handle: object) -> int: ...

    def fd(self, handle: object) -> int: ...

    def stats(self, handle: object) -> DtClientStats: ...


def _repo_library() -> Path:
    """build/lib/libdevtcp.so of the repository this package lies in."""
    # python/devtcp/_capi.py -> the repository root is two folders up.
    return Path(__file__).resolve().parents[2] / "build" / "lib" / "libdevtcp.so"


def _pkg_config_libdir() -> Optional[str]:
    exe = shutil.which("pkg-config")
    if exe is None:
        return None
    try:
        p = subprocess.run([exe, "--variable=libdir", "libdevtcp"],
                           capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    out = p.stdout.strip()
    return out if p.returncode == 0 and out else None


def candidates() -> List[str]:
    """Where libdevtcp is looked for, in order (see :func:`find_library`)."""
    env = os.environ.get("DEVTCP_LIB")
    if env:
        # An explicit choice is the only one: no silent fallback.
        return [env]
    out: List[str] = []
    found = ctypes.util.find_library("devtcp")
    if found:
        out.append(found)
    libdir = _pkg_config_libdir()
    if libdir:
        for n in ("libdevtcp.so", "libdevtcp.so.0"):
            out.append(os.path.join(libdir, n))
    out.append(str(_repo_library()))
    return out


def find_library() -> ctypes.CDLL:
    """Load libdevtcp with the client API.

    Looked for in this order: the environment variable ``DEVTCP_LIB`` (a
    path; when set, nothing else is tried), ``ctypes.util.find_library``,
    ``pkg-config --variable=libdir libdevtcp``, and the repository's
    ``build/lib/libdevtcp.so`` when the package runs from the source tree.
    A library without ``dt_client_attach`` (an older libdevtcp) is skipped.

    :raises LibraryNotFound: with every place tried and why each failed.
    """
    tried: List[str] = []
    for cand in candidates():
        if os.sep in cand and not os.path.exists(cand):
            tried.append("%s: no such file" % cand)
            continue
        try:
            lib = ctypes.CDLL(cand)
        except OSError as e:
            tried.append("%s: %s" % (cand, e))
            continue
        if not hasattr(lib, "dt_client_attach"):
            tried.append("%s: no dt_client_attach (libdevtcp without the "
                         "client API)" % cand)
            continue
        return lib
    raise LibraryNotFound(
        "libdevtcp with the ingest client API not found; set DEVTCP_LIB to "
        "the path of libdevtcp.so, install libdevtcp (pkg-config libdevtcp), "
        "or build the repository (build/lib/libdevtcp.so). Tried:\n  " +
        "\n  ".join(tried))


def _declare(lib: ctypes.CDLL) -> None:
    P = ctypes.c_void_p
    ChunkP = ctypes.POINTER(DtClientChunk)
    sig = {
        "dt_client_attach": (ctypes.c_int, [ctypes.POINTER(DtClientConf),
                                            ctypes.POINTER(P),
                                            ctypes.POINTER(DtClientError)]),
        "dt_client_poll": (ctypes.c_int, [P, ChunkP, ctypes.c_uint16]),
        "dt_client_poll_batch": (ctypes.c_int, [P, ChunkP, ctypes.c_uint16,
                                                ctypes.c_uint16, ctypes.c_uint32]),
        "dt_client_release": (ctypes.c_int, [P, ChunkP, ctypes.c_uint16]),
        "dt_client_release_token": (ctypes.c_int, [P, ctypes.c_uint16,
                                                   ctypes.c_uint32]),
        "dt_client_detach": (ctypes.c_int, [P]),
        "dt_client_mem": (ctypes.c_int, [P]),
        "dt_client_region_base": (P, [P]),
        "dt_client_region_len": (ctypes.c_uint64, [P]),
        "dt_client_cpu_alias": (P, [P]),
        "dt_client_cuda_device": (ctypes.c_int, [P]),
        "dt_client_fd": (ctypes.c_int, [P]),
        "dt_client_stats_get": (None, [P, ctypes.POINTER(DtClientStats)]),
    }
    for name, (res, args) in sig.items():
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = args


class LibCApi:
    """:class:`CApi` over the real libdevtcp."""

    def __init__(self, lib: Optional[ctypes.CDLL] = None) -> None:
        self.lib = lib if lib is not None else find_library()
        _declare(self.lib)

    def attach(self, path: str, port: int, quota: int,
               name: Optional[str]) -> object:
        conf = DtClientConf(os.fsencode(path), port, quota,
                            name.encode() if name is not None else None)
        handle = ctypes.c_void_p()
        err = DtClientError()
        rc = self.lib.dt_client_attach(ctypes.byref(conf), ctypes.byref(handle),
                                       ctypes.byref(err))
        if rc < 0 or not handle.value:
            code = err.code or -rc or _errno.EIO
            msg = err.message.decode(errors="replace") or os.strerror(code)
            e = AttachError(code, msg, path)
            # A refusal comes over a connected socket; ENOENT, EACCES for
            # a socket that is missing or not ours to open are the system's.
            e.refused = code in (_errno.EPROTO, _errno.EUSERS, _errno.ENOENT,
                                 _errno.EACCES) and \
                os.path.exists(path) and os.access(path, os.R_OK | os.W_OK)
            raise e
        return handle

    def poll(self, handle: object, out: "ctypes.Array[DtClientChunk]",
             n: int) -> int:
        return int(self.lib.dt_client_poll(handle, out, n))

    def poll_batch(self, handle: object, out: "ctypes.Array[DtClientChunk]",
                   n: int, min: int, wait_us: int) -> int:
        return int(self.lib.dt_client_poll_batch(handle, out, n, min, wait_us))

    def release(self, handle: object, chunks: "ctypes.Array[DtClientChunk]",
                n: int) -> int:
        return int(self.lib.dt_client_release(handle, chunks, n))

    def detach(self, handle: object) -> int:
        return int(self.lib.dt_client_detach(handle))

    def mem(self, handle: object) -> int:
        return int(self.lib.dt_client_mem(handle))

    def region_base(self, handle: object) -> int:
        return int(self.lib.dt_client_region_base(handle) or 0)

    def region_len(self, handle: object) -> int:
        return int(self.lib.dt_client_region_len(handle))

    def cpu_alias(self, handle: object) -> Optional[int]:
        v = self.lib.dt_client_cpu_alias(handle)
        return int(v) if v else None

    def cuda_device(self, handle: object) -> int:
        return int(self.lib.dt_client_cuda_device(handle))

    def fd(self, handle: object) -> int:
        return int(self.lib.dt_client_fd(handle))

    def stats(self, handle: object) -> DtClientStats:
        s = DtClientStats()
        self.lib.dt_client_stats_get(handle, ctypes.byref(s))
        return s


_default: Optional[LibCApi] = None


def load() -> LibCApi:
    """The process-wide :class:`LibCApi` (loaded on first use)."""
    global _default
    if _default is None:
        _default = LibCApi()
    return _default
