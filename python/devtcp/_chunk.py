"""The chunks of a devtcp.Client stream (an event, or a zero-copy view of
received bytes held until released) and what travels with them: the
stream errors, the client's statistics, the fence of CUDA exports.
"""
from __future__ import annotations

import ctypes
import socket
import struct
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, Tuple

from . import _dlpack
from ._capi import DATA, FIN, MEM_CUDA, OPEN, RESET, DtClientChunk

if TYPE_CHECKING:
    from .client import Client

KIND_NAMES = {OPEN: "open", DATA: "data", FIN: "fin", RESET: "reset"}

_CHUNK_DTYPE: Any = None


def _chunk_dtype() -> Any:
    """struct dt_client_chunk as a numpy structured dtype."""
    global _CHUNK_DTYPE
    if _CHUNK_DTYPE is None:
        import numpy as np
        _CHUNK_DTYPE = np.dtype(DtClientChunk)
    return _CHUNK_DTYPE


class StreamReset(ConnectionResetError):
    """The stream was reset or failed before its end (``errno`` says why)."""


class QuotaExhausted(RuntimeError):
    """Waiting for a stream can never finish: every chunk this client may hold
    on the stream's server stack is buffered for other streams. Consume
    streams concurrently (:meth:`Client.poll`, :class:`RecordDataset`),
    release chunks, or attach with a larger quota."""


@dataclass
class ClientStats:
    """Counters of a client (``struct dt_client_stats``) and of this package."""
    client_id: int
    nb_stacks: int
    ring_size: int        #: quota per server stack (chunks)
    chunks: int
    bytes: int
    host_bytes: int
    streams_opened: int
    streams_finished: int
    streams_reset: int
    released: int
    held: int             #: DATA chunks taken and not given back (C library)
    exported: int         #: DLPack capsules/tensors alive that hold a chunk
    queued: int           #: chunks given up, waiting for the next poll/release
    fenced: int           #: chunks waiting for the GPU to finish reading them


def _fence(device: Tuple[int, int]) -> Any:
    """A CUDA event on the current torch stream of @p device, or None when
    there is nothing to wait for (no torch, CUDA not initialized)."""
    torch = sys.modules.get("torch")
    if torch is None or device[0] != _dlpack.kDLCUDA:
        return None
    try:
        if not torch.cuda.is_initialized():
            return None
        ev = torch.cuda.Event()
        ev.record(torch.cuda.current_stream(device[1]))
        return ev
    except Exception:
        return None


class _Hold:
    """The token of one DATA chunk, and how many still need its bytes: the
    Chunk object (until released) and each DLPack export (until deleted)."""
    __slots__ = ("client", "raw", "refs", "device_mem")

    def __init__(self, client: "Client", raw: DtClientChunk,
                 device_mem: bool) -> None:
        # raw: the chunk's own copy of the C struct (given back as it is)
        self.client = client
        self.raw = raw
        self.refs = 1
        self.device_mem = device_mem

    def dlpack_done(self) -> None:
        # Any thread (a consumer's deleter): queue only.
        self.client._unref_async(self, export=True)


class Chunk:
    """One event of a stream: ``kind`` is ``"open"``, ``"data"``, ``"fin"``
    or ``"reset"``.

    A data chunk names ``len`` bytes the client holds until it is released:
    by :meth:`release`, :meth:`Client.release`, or when the object is
    garbage-collected. ``__dlpack__`` exports a zero-copy 1-D uint8 view;
    each export keeps the bytes (the token) until its consumer frees it, so
    ``torch.from_dlpack(chunk)`` stays valid after ``chunk.release()``.
    """

    __slots__ = ("_client", "_hold", "_released", "_raw", "stream", "kind",
                 "len", "offset", "host", "addr", "stack", "__weakref__")

    def __init__(self, client: "Client", raw: DtClientChunk) -> None:
        # The fields every chunk needs are read now; the rest (OPEN/RESET
        # details, the token) from a copy of the C struct when asked.
        self._client = client
        self._raw = r = DtClientChunk.from_buffer_copy(raw)
        kind = r.kind
        #: the stream (stack << 32 | number): unique while the stream is open
        self.stream: int = r.stream
        #: "open", "data", "fin" or "reset"
        self.kind: str = KIND_NAMES.get(kind) or str(kind)
        self.stack: int = r.stack
        if kind == DATA:
            host = r.host
            #: bytes of a data chunk (0 otherwise)
            self.len: int = r.len
            #: True: the bytes are in host shared memory (CPU-readable)
            self.host: bool = host
            #: device (CUDA) or CPU address of the first byte
            self.addr: int = r.addr or 0
            #: offset of the bytes in the region (None: host or not data)
            self.offset: Optional[int] = None if host else r.offset
            self._released = False
            self._hold: Optional[_Hold] = _Hold(
                client, r, not host and client._mem == MEM_CUDA)
        else:
            self.len = 0
            self.host = False
            self.addr = 0
            self.offset = None
            self._released = True
            self._hold = None

    @property
    def token(self) -> int:
        """The token dt_client_release() takes back (data chunks)."""
        return int(self._raw.token)

    @property
    def reoffered(self) -> bool:
        """OPEN: another client had this stream (see stream_offset)."""
        return bool(self._raw.reoffered)

    @property
    def peer_ipv4(self) -> int:
        """OPEN: the peer's IPv4 address (network order)."""
        return int(self._raw.peer_ipv4)

    @property
    def peer_port(self) -> int:
        """OPEN: the peer's TCP port."""
        return int(self._raw.peer_port)

    @property
    def local_port(self) -> int:
        """OPEN: the listen port the stream came in on."""
        return int(self._raw.local_port)

    @property
    def stream_offset(self) -> int:
        """OPEN: the byte of the stream the first data chunk starts at."""
        return int(self._raw.stream_offset)

    @property
    def err(self) -> int:
        """RESET: positive errno."""
        return int(self._raw.err)

    # -- ownership ---------------------------------------------------------
    @property
    def released(self) -> bool:
        """True once this object gave up its bytes (exports may still hold
        them); always True for open/fin/reset chunks."""
        return self._released

    def release(self) -> None:
        """Give the chunk's bytes back (no-op when already released; views
        exported through DLPack keep them until they are freed)."""
        self._client.release((self,))

    def __del__(self) -> None:
        try:
            if not self._released and self._hold is not None:
                self._released = True
                self._client._unref_async(self._hold, export=False)
        except Exception:
            pass

    def __len__(self) -> int:
        return self.len

    def __repr__(self) -> str:
        return ("Chunk(stream=%#x, kind=%s, len=%d, offset=%s, host=%s)" %
                (self.stream, self.kind, self.len, self.offset, self.host))

    # -- DLPack ------------------------------------------------------------
    def __dlpack_device__(self) -> Tuple[int, int]:
        """(kDLCPU, 0) for CPU-readable bytes (gpu_sim's region, host chunks),
        else (kDLCUDA, the region's device ordinal)."""
        return self._client._chunk_device(self.host)

    def _check_data(self) -> _Hold:
        if self.kind != "data" or self._hold is None:
            raise BufferError("a %s chunk has no bytes" % self.kind)
        if self._released:
            raise BufferError("chunk already released")
        if self._client.closed:
            raise BufferError("client detached")
        return self._hold

    def __dlpack__(self, stream: Optional[int] = None,
                   max_version: Optional[Tuple[int, int]] = None,
                   dl_device: Optional[Tuple[int, int]] = None,
                   copy: Optional[bool] = None) -> object:
        """A DLPack capsule of this chunk's bytes (1-D uint8).

        :param stream: the consumer's CUDA stream; the bytes are complete
            before the chunk is delivered, so there is nothing to order.
        :param max_version: the consumer's highest DLPack version; (1, x) or
            later gets a "dltensor_versioned" capsule with the read-only flag
            set, otherwise a "dltensor" (DLManagedTensor) capsule.
        :param dl_device: the device the consumer wants; another device than
            :meth:`__dlpack_device__` is only possible with a copy to the CPU
            (``copy=True``, CPU-readable bytes).
        :param copy: True: a copy the consumer owns (no token held); False:
            zero-copy or BufferError; None: zero-copy.
        :raises BufferError: not a data chunk, already released, client
            detached, or an impossible device/copy request.
        """
        hold = self._check_data()
        dev = self.__dlpack_device__()
        versioned = max_version is not None and tuple(max_version)[0] >= 1
        want = tuple(dl_device) if dl_device is not None else dev
        if want != dev and not (copy and want[0] == _dlpack.kDLCPU):
            raise BufferError("chunk lives on device %r, not %r" % (dev, want))
        if copy:
            addr = self._client._cpu_addr(self)
            if addr is None:
                raise BufferError("copy of CUDA bytes without a CPU alias "
                                  "is not supported (use torch)")
            buf = ctypes.create_string_buffer(self.len or 1)
            ctypes.memmove(buf, addr, self.len)
            return _dlpack.make_capsule(ctypes.addressof(buf), self.len,
                                        (_dlpack.kDLCPU, 0), None,
                                        versioned=versioned, read_only=False,
                                        copied=True, keep=buf)
        self._client._ref_export(hold)
        try:
            return _dlpack.make_capsule(self.addr, self.len, dev, hold,
                                        versioned=versioned, read_only=True)
        except BaseException:
            self._client._unref_async(hold, export=True)
            raise

    # -- conveniences ------------------------------------------------------
    def numpy(self) -> Any:
        """A read-only numpy view (CPU-readable chunks; a CUDA chunk is read
        through the region's CPU alias when the device has one)."""
        import numpy as np
        hold = self._check_data()
        if self.__dlpack_device__()[0] == _dlpack.kDLCPU:
            a = np.from_dlpack(self)
        else:
            addr = self._client._cpu_addr(self)
            if addr is None:
                raise BufferError("CUDA chunk without a CPU alias: use torch")
            self._client._ref_export(hold)
            cap = _dlpack.make_capsule(addr, self.len, (_dlpack.kDLCPU, 0),
                                       hold)

            class _Cap:
                def __dlpack__(self, stream: Any = None) -> object:
                    return cap

                def __dlpack_device__(self) -> Tuple[int, int]:
                    return (_dlpack.kDLCPU, 0)
            a = np.from_dlpack(_Cap())
        a.flags.writeable = False
        return a

    def torch(self) -> Any:
        """``torch.from_dlpack(self)``: a uint8 tensor view on the chunk's
        device (read-only memory: do not write into it)."""
        import torch
        return torch.utils.dlpack.from_dlpack(self.__dlpack__())

    def tobytes(self) -> bytes:
        """A copy of the bytes (CPU-readable chunks, or through the CPU
        alias); needs neither numpy nor torch."""
        self._check_data()
        addr = self._client._cpu_addr(self)
        if addr is None:
            raise BufferError("CUDA chunk without a CPU alias: use torch")
        return ctypes.string_at(addr, self.len)


def _ipv4(v: int) -> str:
    # peer_ipv4 is in network order as a host integer of the struct
    return socket.inet_ntoa(struct.pack("=I", v & 0xffffffff))
