"""devtcp.Client: take the streams devtcp-server received, as chunks that
are zero-copy DLPack views of the server's payload region.
"""
from __future__ import annotations

import collections
import ctypes
import errno as _errno
import socket
import struct
import sys
import threading
import time
from typing import (Any, Callable, Deque, Dict, Iterable, Iterator, List,
                    Optional, Sequence, Tuple)

from . import _capi, _dlpack, _ops
from ._capi import DATA, MEM_CPU, MEM_CUDA, OPEN, DtClientChunk
# The chunk and stream types live in their own modules; they are re-exported
# here, where the package and its users have always found them.
from ._chunk import (KIND_NAMES, Chunk, ClientStats, QuotaExhausted,
                     StreamReset, _chunk_dtype, _fence, _Hold)
from ._stream import Stream, _Bulk

__all__ = ["Client", "Chunk", "Stream", "ClientStats", "StreamReset",
           "QuotaExhausted", "KIND_NAMES"]

_POLL_BURST = 256
_BULK_BURST = 4096


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
