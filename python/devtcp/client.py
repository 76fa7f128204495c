"""devtcp.Client: take the streams devtcp-server received, as chunks that
are zero-copy DLPack views of the server's payload region.
"""
from __future__ import annotations

import collections
import ctypes
import errno as _errno
import hashlib
import socket
import struct
import sys
import threading
import time
from dataclasses import dataclass
from typing import (Any, Callable, Deque, Dict, Iterable, Iterator, List,
                    Optional, Sequence, Tuple)

from . import _capi, _dlpack, _ops
from ._capi import DATA, FIN, MEM_CPU, MEM_CUDA, OPEN, RESET, DtClientChunk

__all__ = ["Client", "Chunk", "Stream", "ClientStats", "StreamReset",
           "QuotaExhausted", "KIND_NAMES"]

KIND_NAMES = {OPEN: "open", DATA: "data", FIN: "fin", RESET: "reset"}

_POLL_BURST = 256
_BULK_BURST = 4096
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


class _Bulk:
    """A burst of one stream's data chunks kept as their C structs (a numpy
    structured array), for read_into's gather without a Python object per
    chunk. ``i``/``used``: the first entry not fully consumed and how many of
    its bytes were."""
    __slots__ = ("raw", "offs", "lens", "i", "used")

    def __init__(self, raw: Any) -> None:
        import numpy as np
        self.raw = raw
        self.offs = raw["offset"].astype(np.int64)
        self.lens = raw["len"].astype(np.int64)
        self.i = 0
        self.used = 0

    def __len__(self) -> int:
        return int(self.lens.shape[0]) - self.i

    def take(self, room: int) -> Tuple[Any, Any, int, Any]:
        """Up to @p room bytes: (offsets, lengths, bytes, structs of the
        entries now fully consumed)."""
        import numpy as np
        i, used = self.i, self.used
        avail = self.lens[i:].copy()
        avail[0] -= used
        cum = np.cumsum(avail)
        k = int(np.searchsorted(cum, room, side="left"))
        if k >= cum.shape[0]:
            k = cum.shape[0] - 1
        take = min(int(cum[k]), room)
        excess = int(cum[k]) - take
        offs = self.offs[i:i + k + 1].copy()
        offs[0] += used
        lens = avail[:k + 1].copy()
        lens[k] -= excess
        if excess:
            self.i, self.used = i + k, int(self.lens[i + k]) - excess
        else:
            self.i, self.used = i + k + 1, 0
        return offs, lens, take, self.raw[i:self.i]


class Stream:
    """One accepted TCP stream, handed to this client (an OPEN chunk).

    Its data chunks arrive in stream order; iterate them with
    :meth:`chunks`, or copy them out with :meth:`read_into`.
    """

    def __init__(self, client: "Client", open_chunk: Chunk) -> None:
        self._client = client
        self.id: int = open_chunk.stream
        self.stack: int = open_chunk.stack
        self.peer: Tuple[str, int] = (_ipv4(open_chunk.peer_ipv4),
                                      open_chunk.peer_port)
        self.local_port: int = open_chunk.local_port
        #: another client had this stream; data starts at stream_offset
        self.reoffered: bool = open_chunk.reoffered
        #: byte of the stream the first chunk starts at
        self.stream_offset: int = open_chunk.stream_offset
        #: "open", "fin" (peer closed) or "reset"
        self.state: str = "open"
        #: positive errno of a reset
        self.err: int = 0
        #: bytes handed out so far (chunks yielded, bytes read)
        self.consumed: int = 0
        self._q: Deque[Any] = collections.deque()   # Chunk or _Bulk
        self._part: Optional[Tuple[Chunk, int]] = None   # chunk, bytes used

    def __repr__(self) -> str:
        return "Stream(%#x, peer=%s:%d, state=%s, consumed=%d)" % (
            self.id, self.peer[0], self.peer[1], self.state, self.consumed)

    @property
    def ended(self) -> bool:
        """The stream's last event came and every chunk was handed out."""
        return self.state != "open" and not self._q and self._part is None

    def _raise_if_reset(self) -> None:
        if self.state == "reset":
            raise StreamReset(self.err or _errno.ECONNRESET,
                              "stream %#x reset after %d bytes" %
                              (self.id, self.stream_offset + self.consumed))

    def _next_chunk(self, timeout: Optional[float]) -> Optional[Chunk]:
        c = self._client
        if not self._q and self.state == "open":
            c._wait(lambda: bool(self._q) or self.state != "open", timeout,
                    waiting=self)
        if self._q and isinstance(self._q[0], _Bulk):
            self._expand_bulk()
            if self._part is not None:
                return None
        if self._q:
            c._buffered[self.stack] -= 1
            return self._q.popleft()   # type: ignore[return-value]
        return None

    def _expand_bulk(self) -> None:
        """Turn the bulk at the queue's head back into Chunk objects (a
        read_into followed by chunks()/read())."""
        b = self._q.popleft()
        assert isinstance(b, _Bulk)
        c = self._client
        chunks = [Chunk(c, DtClientChunk.from_buffer_copy(b.raw[j:j + 1]))
                  for j in range(b.i, b.lens.shape[0])]
        if b.used:
            self._part = (chunks.pop(0), b.used)
            c._buffered[self.stack] -= 1
        self._q.extendleft(reversed(chunks))

    def chunks(self, timeout: Optional[float] = None,
               raise_on_reset: bool = True) -> Iterator[Chunk]:
        """The stream's data chunks in order, until its FIN (or reset).

        Each chunk is yours to release (or drop). Chunks of other streams
        that arrive meanwhile are buffered for them: they count against the
        quota (see :class:`QuotaExhausted`).

        :param timeout: seconds to wait for a chunk before stopping.
        :raises StreamReset: after the last chunk of a reset stream.
        """
        if self._part is not None:
            raise RuntimeError("stream is being read with read_into")
        while True:
            ch = self._next_chunk(timeout)
            if ch is None:
                break
            self.consumed += ch.len
            yield ch
        if raise_on_reset:
            self._raise_if_reset()

    def read_into(self, out: Any, timeout: Optional[float] = None) -> int:
        """Fill @p out (a contiguous numpy array or torch tensor, any dtype:
        its bytes) with the stream's next bytes.

        The bytes are gathered with one batched copy per batch of available
        chunks, and the chunks are given back once copied (on a GPU, once
        the copy is done on torch's current stream). Bursts of this
        stream's chunks taken while reading stay C structs in a numpy array
        (no Python object per chunk): on a GPU region one ``index_select``
        over an index built on the GPU, on a CPU region one
        ``numpy.concatenate(out=)``; other chunks are copied with
        ``torch.cat(out=)`` / ``numpy.concatenate(out=)`` of their views.
        Waits until @p out is full or the stream ended.

        :return: bytes filled (less than ``out``'s size only at the end).
        :raises StreamReset: the stream was reset before @p out was full.
        """
        dest, ops = _ops.byte_view(out)
        need = int(dest.shape[0])
        c = self._client
        filled = 0
        ready = lambda: bool(self._q) or self.state != "open"  # noqa: E731
        while filled < need:
            # pieces: ("v", chunk, start, n) or ("g", offsets, lengths, n)
            pieces: List[Tuple[Any, ...]] = []
            done: List[Chunk] = []
            raws: List[Any] = []
            got = 0
            # Take what is there now (and wait only when nothing is).
            while filled + got < need:
                room = need - filled - got
                if self._part is None and self._q and \
                        isinstance(self._q[0], _Bulk):
                    b = self._q[0]
                    offs, lens, n, fin = b.take(room)
                    if len(b) == 0:
                        self._q.popleft()
                    c._buffered[self.stack] -= int(fin.shape[0])
                    pieces.append(("g", offs, lens, n))
                    if fin.shape[0]:
                        raws.append(fin)
                    got += n
                    continue
                if self._part is not None:
                    ch, used = self._part
                    self._part = None
                elif self._q:
                    ch, used = self._q.popleft(), 0  # type: ignore[assignment]
                    c._buffered[self.stack] -= 1
                elif self.state != "open":
                    break
                elif pieces:
                    if c._pump(bulk_for=self) > 0:
                        continue
                    break
                elif c._wait(ready, timeout, waiting=self, bulk_for=self):
                    continue
                else:
                    break
                n = min(ch.len - used, room)
                pieces.append(("v", ch, used, n))
                got += n
                if used + n < ch.len:
                    self._part = (ch, used + n)
                else:
                    done.append(ch)
            if not pieces:
                break
            at = filled
            i = 0
            while i < len(pieces):
                if pieces[i][0] == "g":
                    _, offs, lens, n = pieces[i]
                    ops.gather(dest[at:at + n], c._region_view(ops), offs,
                               lens)
                    at += n
                    i += 1
                    continue
                j = i
                views = []
                while j < len(pieces) and pieces[j][0] == "v":
                    _, ch, used, n = pieces[j]
                    views.append(c._view(ops, ch, used, n))
                    j += 1
                m = sum(p[3] for p in pieces[i:j])
                ops.fill(dest[at:at + m], views)
                del views
                at += m
                i = j
            filled += got
            self.consumed += got
            c._release_after_copy(done, ops, raws)
        if filled < need:
            self._raise_if_reset()
        return filled

    def read(self, n: int = -1, timeout: Optional[float] = None) -> bytes:
        """Up to @p n bytes (all until the end when negative) as ``bytes``:
        a CPU copy for small reads and tests; needs CPU-readable chunks."""
        out = bytearray()
        while n < 0 or len(out) < n:
            if self._part is not None:
                ch, used = self._part
                self._part = None
            else:
                nxt = self._next_chunk(timeout)
                if nxt is None:
                    break
                ch, used = nxt, 0
            take = ch.len - used if n < 0 else min(ch.len - used, n - len(out))
            addr = self._client._cpu_addr(ch)
            if addr is None:
                raise BufferError("CUDA chunk without a CPU alias: use "
                                  "read_into with a torch tensor")
            out += ctypes.string_at(addr + used, take)
            if used + take < ch.len:
                self._part = (ch, used + take)
            else:
                ch.release()
            self.consumed += take
        if (n < 0 or len(out) < n) and self.state == "reset":
            self._raise_if_reset()
        return bytes(out)

    def sha256(self, timeout: Optional[float] = None) -> Tuple[int, str]:
        """Read the rest of the stream: (bytes, SHA-256 hex) on the CPU."""
        h = hashlib.sha256()
        total = 0
        for ch in self.chunks(timeout):
            addr = self._client._cpu_addr(ch)
            if addr is None:
                raise BufferError("CUDA chunk without a CPU alias")
            h.update(ctypes.string_at(addr, ch.len))
            total += ch.len
            ch.release()
        return total, h.hexdigest()


class Client:
    """An attachment to devtcp-server's ingest socket for one listen port.

    :param path: the server's control socket (``[ingest] socket``).
    :param port: TCP listen port whose streams this client takes (the server
        balances that port's streams across its clients).
    :param quota: chunks held per server stack at most; 0: the server's
        default.
    :param name: shown in the server's telemetry (default ``pid N``).
    :raises AttachError: refused (``errno`` EPROTO, EUSERS, ENOENT, EACCES)
        or a system error.
    :raises LibraryNotFound: libdevtcp with the client API is not found.

    One thread polls and releases (the C client is single-threaded); DLPack
    deleters may run on any thread: their tokens are queued and given back
    by the next :meth:`poll` / :meth:`release` / :meth:`flush`.
    """

    def __init__(self, path: str, port: int, quota: int = 0,
                 name: Optional[str] = None, *,
                 api: Optional[_capi.CApi] = None) -> None:
        self._api: _capi.CApi = api if api is not None else _capi.load()
        self._h: Optional[object] = None
        self._h = self._api.attach(str(path), int(port), int(quota), name)
        self.path = str(path)
        self.port = int(port)
        h = self._h
        self._mem = self._api.mem(h)
        self.region_base: int = self._api.region_base(h)
        self.region_len: int = self._api.region_len(h)
        self.cpu_alias: Optional[int] = self._api.cpu_alias(h)
        self.cuda_device: int = self._api.cuda_device(h)
        st = self._api.stats(h)
        self.client_id: int = int(st.client_id)
        self.nb_stacks: int = int(st.nb_stacks)
        self.ring_size: int = int(st.ring_size)
        self._buf = (DtClientChunk * _POLL_BURST)()
        self._lock = threading.RLock()      # the C calls
        self._qlock = threading.Lock()      # refs, queue, exports
        self._queue: List[_Hold] = []       # unreferenced off the poll thread
        # (CUDA event, holds, bulk structs) waiting for the GPU
        self._fenced: Deque[Tuple[Any, List[_Hold], List[Any]]] = \
            collections.deque()
        self._bulkbuf: Optional[Any] = None
        self._exported = 0
        self._streams: Dict[int, Stream] = {}
        self._new: Deque[Stream] = collections.deque()
        self._buffered: Dict[int, int] = collections.defaultdict(int)
        self._region_views: Dict[str, Any] = {}
        self._server_gone = False
        self._closing = False
        self._closed = False

    # -- properties --------------------------------------------------------
    @property
    def mem(self) -> str:
        """"cpu" (gpu_sim's memfd: CPU-readable) or "cuda"."""
        return "cpu" if self._mem == MEM_CPU else "cuda"

    @property
    def device(self) -> Tuple[int, int]:
        """The region's DLPack device: (kDLCPU=1, 0) or (kDLCUDA=2, ordinal)."""
        if self._mem == MEM_CPU:
            return (_dlpack.kDLCPU, 0)
        return (_dlpack.kDLCUDA, max(self.cuda_device, 0))

    @property
    def torch_device(self) -> str:
        """The region's device as torch names it ("cpu", "cuda:N")."""
        return _ops.torch_device_of(self.device)

    @property
    def closed(self) -> bool:
        """detach() was called (the C detach may wait for DLPack exports)."""
        return self._closing or self._closed

    @property
    def server_gone(self) -> bool:
        """The server went away and every ring is empty."""
        return self._server_gone

    def fileno(self) -> int:
        """The control socket (POLLHUP: the server went away)."""
        self._check_open()
        return self._api.fd(self._h)

    def stats(self) -> ClientStats:
        self._check_open()
        with self._lock:
            s = self._api.stats(self._h)
        with self._qlock:
            q, e = len(self._queue), self._exported
            f = sum(len(hs) + sum(int(r.shape[0]) for r in rs)
                    for _, hs, rs in self._fenced)
        return ClientStats(int(s.client_id), int(s.nb_stacks),
                           int(s.ring_size), int(s.chunks), int(s.bytes),
                           int(s.host_bytes), int(s.streams_opened),
                           int(s.streams_finished), int(s.streams_reset),
                           int(s.released), int(s.held), e, q, f)

    def __repr__(self) -> str:
        return ("Client(%r, port=%d, id=%d, %s region %d bytes, %s)" %
                (self.path, self.port, self.client_id, self.mem,
                 self.region_len, "detached" if self.closed else "attached"))

    # -- context manager ---------------------------------------------------
    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.detach()

    def __del__(self) -> None:
        try:
            if getattr(self, "_h", None) is not None and not self.closed:
                self.detach()
        except Exception:
            pass

    def _check_open(self) -> None:
        if self._closing or self._closed:
            raise ValueError("client detached")

    # -- raw polling -------------------------------------------------------
    def _poll_raw(self, n: int) -> List[Chunk]:
        self._flush()
        n = max(1, min(int(n), _POLL_BURST))
        with self._lock:
            self._check_open()
            got = self._api.poll(self._h, self._buf, n)
            if got == -_errno.ESHUTDOWN:
                self._server_gone = True
                return []
            if got < 0:
                raise OSError(-got, "dt_client_poll: " +
                              (_errno.errorcode.get(-got, str(-got))))
            return [Chunk(self, self._buf[i]) for i in range(got)]

    def poll(self, max: int = 64) -> List[Chunk]:
        """Take up to @p max chunks now (all streams, each in order; may be
        empty). Gives back the tokens queued by DLPack deleters first.

        This is the raw interface: chunks taken here do not reach
        :meth:`streams`/:meth:`Stream.chunks`; use one or the other.
        """
        return self._poll_raw(max)

    def _dispatch(self, chunks: List[Chunk]) -> None:
        """Sort chunks into their streams."""
        for ch in chunks:
            if ch.kind == "open":
                s = Stream(self, ch)
                self._streams[ch.stream] = s
                self._new.append(s)
            elif ch.kind == "data":
                s = self._streams.get(ch.stream)
                if s is None:   # no OPEN seen (should not happen): adopt
                    s = Stream(self, ch)
                    self._streams[ch.stream] = s
                    self._new.append(s)
                s._q.append(ch)
                self._buffered[ch.stack] += 1
            else:
                s = self._streams.pop(ch.stream, None)
                if s is not None:
                    s.state = "fin" if ch.kind == "fin" else "reset"
                    s.err = ch.err

    def _pump(self, bulk_for: Optional[Stream] = None) -> int:
        """Poll once and sort the chunks into their streams.

        With @p bulk_for (read_into's stream) and numpy: a burst of up to
        4096 chunks whose leading run is that stream's data stays a numpy
        array of C structs (a _Bulk), no Python object per chunk.
        """
        np = _ops.numpy_or_none()
        if bulk_for is None or np is None:
            chunks = self._poll_raw(_POLL_BURST)
            self._dispatch(chunks)
            return len(chunks)
        self._flush()
        with self._lock:
            self._check_open()
            if self._bulkbuf is None:
                self._bulkbuf = (DtClientChunk * _BULK_BURST)()
            buf = self._bulkbuf
            got = self._api.poll(self._h, buf, _BULK_BURST)
            if got == -_errno.ESHUTDOWN:
                self._server_gone = True
                return 0
            if got < 0:
                raise OSError(-got, "dt_client_poll: " +
                              (_errno.errorcode.get(-got, str(-got))))
            if got == 0:
                return 0
            a = np.frombuffer(buf, dtype=_chunk_dtype(), count=got)
            ok = (a["kind"] == DATA) & (a["stream"] == bulk_for.id) & \
                ~a["host"]
            k = got if ok.all() else int(np.argmin(ok))
            if k:
                bulk_for._q.append(_Bulk(a[:k].copy()))
                self._buffered[bulk_for.stack] += k
            chunks = [Chunk(self, buf[i]) for i in range(k, got)]
        self._dispatch(chunks)
        return got

    def _wait(self, ready: Callable[[], bool], timeout: Optional[float],
              waiting: Optional[Stream] = None,
              bulk_for: Optional[Stream] = None) -> bool:
        """Pump until ready() (True), the timeout or the server's end (False).
        Spins briefly, then sleeps up to a millisecond between polls."""
        end = None if timeout is None else time.monotonic() + timeout
        idle = 0
        while not ready():
            if self._server_gone:
                return False
            if self._pump(bulk_for) > 0:
                idle = 0
                continue
            if ready():
                break
            if waiting is not None and waiting.state == "open" and \
                    not waiting._q and \
                    self._buffered[waiting.stack] >= self.ring_size > 0:
                raise QuotaExhausted(
                    "stream %#x waits on stack %d, whose %d chunks are all "
                    "buffered for other streams of this client" %
                    (waiting.id, waiting.stack, self.ring_size))
            if end is not None and time.monotonic() >= end:
                return False
            idle += 1
            if idle > 64:
                time.sleep(min(0.001, 0.00002 * (idle - 64)))
        return True

    # -- streams -----------------------------------------------------------
    def streams(self, timeout: Optional[float] = None) -> Iterator[Stream]:
        """The streams handed to this client, as their OPEN events come.

        Ends when no new stream came for @p timeout seconds (None: never),
        when the server went away, or when the client is detached.
        """
        while not self.closed:
            if not self._new:
                if not self._wait(lambda: bool(self._new), timeout):
                    if not self._new:
                        return
            yield self._new.popleft()

    # -- giving back -------------------------------------------------------
    def _ref_export(self, hold: _Hold) -> None:
        with self._qlock:
            hold.refs += 1
            self._exported += 1

    def _unref_async(self, hold: _Hold, export: bool) -> None:
        """Drop one reference from any thread; the token goes back on the
        poll thread's next poll/release/flush (after a fence on a GPU)."""
        finish = False
        with self._qlock:
            hold.refs -= 1
            if export:
                self._exported -= 1
                finish = self._exported == 0 and self._closing and \
                    not self._closed
            if hold.refs == 0:
                self._queue.append(hold)
        if finish:
            self._finish_detach()

    def release(self, chunks: Iterable[Chunk]) -> None:
        """Give back the bytes of @p chunks in one batch (already released
        ones and open/fin/reset chunks are skipped; exported views keep
        theirs until freed)."""
        holds: List[_Hold] = []
        with self._qlock:
            for ch in chunks:
                if ch._released or ch._hold is None:
                    continue
                ch._released = True
                h = ch._hold
                h.refs -= 1
                if h.refs == 0:
                    holds.append(h)
        if self.closed:
            return
        self._flush()
        self._give_back(holds)

    def _release_after_copy(self, chunks: Sequence[Chunk], ops: _ops.Ops,
                            raws: Sequence[Any] = ()) -> None:
        """Chunks (and bulk structs, @p raws) whose bytes were just copied by
        @p ops: on a GPU the copy may still run, so their tokens wait for a
        fence on the current stream."""
        holds: List[_Hold] = []
        with self._qlock:
            for ch in chunks:
                if ch._released or ch._hold is None:
                    continue
                ch._released = True
                h = ch._hold
                h.refs -= 1
                if h.refs == 0:
                    holds.append(h)
        raws = [r for r in raws if r.shape[0]]
        if (not holds and not raws) or self.closed:
            return
        if raws and self._mem == MEM_CUDA or any(h.device_mem for h in holds):
            fence = _fence(self.device)
            if fence is not None:
                self._fenced.append((fence, holds, raws))
                return
        self._give_back(holds, raws)

    def flush(self) -> None:
        """Give back what DLPack deleters and garbage-collected chunks gave
        up (poll and release do this too)."""
        if not self.closed:
            self._flush()

    def _flush(self) -> None:
        with self._qlock:
            q, self._queue = self._queue, []
        now: List[_Hold] = []
        raws: List[Any] = []
        if q:
            dev = [h for h in q if h.device_mem]
            now = [h for h in q if not h.device_mem]
            if dev:
                fence = _fence(self.device)
                if fence is None:
                    now.extend(dev)
                else:
                    self._fenced.append((fence, dev, []))
        while self._fenced and self._fenced[0][0].query():
            _, hs, rs = self._fenced.popleft()
            now.extend(hs)
            raws.extend(rs)
        self._give_back(now, raws)

    def _give_back(self, holds: List[_Hold], raws: Sequence[Any] = ()) -> None:
        """dt_client_release() of @p holds and of bulk structs @p raws
        (contiguous numpy arrays of struct dt_client_chunk)."""
        if not holds and not raws:
            return
        with self._lock:
            if self._closed or self._h is None:
                return
            rcs = []
            for i in range(0, len(holds), 4096):
                part = holds[i:i + 4096]
                arr = (DtClientChunk * len(part))(*[h.raw for h in part])
                rcs.append(self._api.release(self._h, arr, len(part)))
            for r in raws:
                for i in range(0, int(r.shape[0]), 32768):
                    part = r[i:i + 32768]
                    ptr = ctypes.cast(part.ctypes.data,
                                      ctypes.POINTER(DtClientChunk))
                    rcs.append(self._api.release(self._h, ptr,
                                                 int(part.shape[0])))
            for rc in rcs:
                if rc < 0:
                    raise OSError(-rc, "dt_client_release: %s" %
                                  _errno.errorcode.get(-rc, str(-rc)))

    # -- views -------------------------------------------------------------
    def _chunk_device(self, host: bool) -> Tuple[int, int]:
        if host:
            return (_dlpack.kDLCPU, 0)
        return self.device

    def _cpu_addr(self, ch: Chunk) -> Optional[int]:
        """A CPU address of the chunk's first byte, or None."""
        if ch.host or self._mem == MEM_CPU:
            return ch.addr
        if self.cpu_alias is not None and ch.offset is not None:
            return self.cpu_alias + ch.offset
        return None

    def _region_view(self, ops: _ops.Ops) -> Any:
        key = type(ops).__name__
        v = self._region_views.get(key)
        if v is None:
            v = ops.view(self.region_base, self.region_len, self.device)
            self._region_views[key] = v
        return v

    def _view(self, ops: _ops.Ops, ch: Chunk, start: int, n: int) -> Any:
        """A view of @p n bytes of @p ch from @p start, for @p ops."""
        if ch.host:
            return ops.view(ch.addr + start, n, (_dlpack.kDLCPU, 0))
        if ch.offset is not None and self.region_len:
            r = self._region_view(ops)
            return r[ch.offset + start:ch.offset + start + n]
        return ops.view(ch.addr + start, n, self.device)

    # -- leaving -----------------------------------------------------------
    def detach(self) -> None:
        """Leave the server (it takes back whatever is still held).

        While DLPack exports of this client's chunks are alive, the region
        stays mapped: the C detach happens when the last one is freed.
        """
        with self._lock:
            if self._closing or self._closed or self._h is None:
                return
            # A GPU copy of ours may still read the region.
            torch = sys.modules.get("torch")
            if torch is not None and self._mem == MEM_CUDA:
                try:
                    if torch.cuda.is_initialized():
                        torch.cuda.synchronize(max(self.cuda_device, 0))
                except Exception:
                    pass
            self._region_views.clear()
            for s in list(self._streams.values()) + list(self._new):
                s._q.clear()
                s._part = None
            self._streams.clear()
            self._new.clear()
            self._fenced.clear()
            with self._qlock:
                self._closing = True
                self._queue = []
                wait = self._exported > 0
        if not wait:
            self._finish_detach()

    def _finish_detach(self) -> None:
        with self._lock:
            if self._closed or self._h is None:
                return
            self._closed = True
            h, self._h = self._h, None
            self._api.detach(h)
