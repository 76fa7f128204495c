"""A devtcp.Client stream: its chunks in order, and the bulk path that
copies them out (read_into) without a Python object per chunk.
"""
from __future__ import annotations

import collections
import ctypes
import errno as _errno
import hashlib
from typing import TYPE_CHECKING, Any, Deque, Iterator, List, Optional, Tuple

from . import _ops
from ._capi import FIN, OPEN, DtClientChunk
from ._chunk import Chunk, QuotaExhausted, StreamReset, _ipv4

if TYPE_CHECKING:
    from .client import Client

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
