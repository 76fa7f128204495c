"""RecordDataset: fixed-size records out of the streams a devtcp-server
receives, as uint8 tensors on the region's device (a torch IterableDataset;
without torch a plain iterable of numpy arrays).
"""
from __future__ import annotations

import os
import sys
import time
import warnings
from typing import Any, Dict, Iterator, List, Optional, Tuple

from . import _ops
from ._capi import CApi
from .client import Chunk, Client

__all__ = ["RecordDataset", "shard_info"]

try:  # a torch IterableDataset where torch exists, a plain iterable otherwise
    from torch.utils.data import IterableDataset as _Base  # type: ignore
except ImportError:  # pragma: no cover - depends on the installation
    _Base = object  # type: ignore[misc,assignment]


def shard_info() -> Tuple[int, int, int, int]:
    """(rank, world size, DataLoader worker id, workers) of this process.

    Ranks come from torch.distributed when it is initialized, else from the
    RANK / WORLD_SIZE environment variables (torchrun sets them), else 0/1.
    """
    rank, world = int(os.environ.get("RANK", "0")), \
        int(os.environ.get("WORLD_SIZE", "1"))
    worker, workers = 0, 1
    torch = sys.modules.get("torch")
    if torch is not None:
        try:
            import torch.distributed as dist
            if dist.is_available() and dist.is_initialized():
                rank, world = dist.get_rank(), dist.get_world_size()
        except Exception:
            pass
        try:
            from torch.utils.data import get_worker_info
            wi = get_worker_info()
            if wi is not None:
                worker, workers = wi.id, wi.num_workers
        except Exception:
            pass
    return rank, world, worker, workers


class _StreamState:
    __slots__ = ("skip", "have", "pending", "staging", "staged")

    def __init__(self, skip: int) -> None:
        self.skip = skip          # bytes before the first record boundary
        self.have = 0             # bytes of the current record so far
        self.pending: List[Tuple[Chunk, int, int]] = []   # not yet copied
        self.staging: Any = None  # spilled prefix of the current record
        self.staged = 0


class _Assembler:
    """Cuts streams into records and gathers records into batches with one
    batched copy each (plus spills when the client's quota runs short)."""

    def __init__(self, client: Client, ops: _ops.Ops, record_size: int,
                 batch: int) -> None:
        self.c = client
        self.ops = ops
        self.N = record_size
        self.B = batch
        self.streams: Dict[int, _StreamState] = {}
        # records complete and not yet copied: list of pieces each; a piece
        # is (chunk, start, n) or (None, staged array, n)
        self.ready: List[List[Tuple[Any, Any, int]]] = []
        self.out: Any = None      # the batch being filled
        self.slots = 0            # records placed in out (copied)
        self.dropped = 0          # partial records at a stream's end
        self.finished = 0         # streams ended

    # pieces -> views
    def _views(self, pieces: List[Tuple[Any, Any, int]]) -> List[Any]:
        out = []
        for ch, x, n in pieces:
            if ch is None:
                out.append(x[:n])
            else:
                out.append(self.c._view(self.ops, ch, x, n))
        return out

    def _copy(self, dest: Any, pieces: List[Tuple[Any, Any, int]]) -> None:
        """Copy @p pieces back to back into @p dest: runs of region bytes
        with one gather each (one index_select on a GPU), the rest (staged
        prefixes, host chunks) with one fill per run."""
        np = _ops.numpy_or_none()
        if np is None:
            self.ops.fill(dest, self._views(pieces))
            return
        at = 0
        i = 0
        while i < len(pieces):
            j = i
            region = pieces[i][0] is not None and pieces[i][0].offset is not None
            while j < len(pieces) and region == (
                    pieces[j][0] is not None and pieces[j][0].offset is not None):
                j += 1
            run = pieces[i:j]
            n = sum(p[2] for p in run)
            if region:
                offs = np.fromiter((ch.offset + x for ch, x, _ in run),
                                   dtype=np.int64, count=len(run))
                lens = np.fromiter((k for _, _, k in run), dtype=np.int64,
                                   count=len(run))
                self.ops.gather(dest[at:at + n], self.c._region_view(self.ops),
                                offs, lens)
            else:
                self.ops.fill(dest[at:at + n], self._views(run))
            at += n
            i = j

    def _done_chunks(self, pieces: List[Tuple[Any, Any, int]]) -> List[Chunk]:
        return [ch for ch, x, n in pieces
                if ch is not None and x + n == ch.len]

    def feed(self, ch: Chunk) -> None:
        if ch.kind == "open":
            skip = (-ch.stream_offset) % self.N if ch.reoffered else 0
            self.streams[ch.stream] = _StreamState(skip)
            return
        st = self.streams.get(ch.stream)
        if ch.kind != "data":
            if st is not None:
                del self.streams[ch.stream]
                self.finished += 1
                if st.have:
                    self.dropped += 1
                    warnings.warn("devtcp: stream %#x ended inside a record "
                                  "(%d of %d bytes): dropped" %
                                  (ch.stream, st.have, self.N))
                    self.c._release_after_copy(
                        [p[0] for p in st.pending], self.ops)
            return
        if st is None:
            st = self.streams[ch.stream] = _StreamState(0)
        pos = 0
        if st.skip:
            pos = min(st.skip, ch.len)
            st.skip -= pos
        if pos == ch.len:
            ch.release()
            return
        while pos < ch.len:
            take = min(self.N - st.have, ch.len - pos)
            st.pending.append((ch, pos, take))
            st.have += take
            pos += take
            if st.have == self.N:
                rec: List[Tuple[Any, Any, int]] = []
                if st.staging is not None:
                    rec.append((None, st.staging, st.staged))
                rec.extend(st.pending)
                self.ready.append(rec)
                st.have, st.pending, st.staging, st.staged = 0, [], None, 0

    def _new_out(self) -> None:
        self.out = self.ops.empty(self.B * self.N)
        self.slots = 0

    def place(self) -> None:
        """Copy the ready records into the batch (one fill), release."""
        if not self.ready:
            return
        if self.out is None:
            self._new_out()
        k = min(len(self.ready), self.B - self.slots)
        recs, self.ready = self.ready[:k], self.ready[k:]
        pieces = [p for r in recs for p in r]
        dest = self.out[self.slots * self.N:(self.slots + k) * self.N]
        self._copy(dest, pieces)
        self.slots += k
        self.c._release_after_copy(self._done_chunks(pieces), self.ops)

    def spill(self) -> None:
        """Copy what every chunk held is waiting for (records into the batch,
        partial records into staging) and give the chunks back."""
        while self.ready and (self.out is None or self.slots < self.B):
            self.place()
            if self.slots == self.B:
                break
        done: List[Chunk] = []
        for st in self.streams.values():
            if not st.pending:
                continue
            if st.staging is None:
                st.staging = self.ops.empty(self.N)
                st.staged = 0
            n = sum(p[2] for p in st.pending)
            self._copy(st.staging[st.staged:st.staged + n], st.pending)
            st.staged += n
            done.extend(self._done_chunks(st.pending))
            st.pending = []
        if done:
            self.c._release_after_copy(done, self.ops)

    def take_batch(self, final: bool = False) -> Optional[Any]:
        """A full batch (or, when @p final, what there is), else None."""
        while self.ready and (self.out is None or self.slots < self.B):
            self.place()
        if self.out is not None and (self.slots == self.B or
                                     (final and self.slots)):
            out = self.out[:self.slots * self.N]
            self.out = None
            return out
        return None


class RecordDataset(_Base):  # type: ignore[misc,valid-type]
    """Fixed-size records from the streams devtcp-server receives on a port.

    Each stream is cut into ``record_size``-byte records from its first byte
    (records may span chunks); a stream that ends inside a record loses that
    record (a warning). Records of many streams are interleaved in arrival
    order. Every record (or batch of records) is a fresh uint8 tensor on the
    region's device, gathered with one batched copy (``torch.cat(out=)``:
    one kernel on a GPU), so the chunks go back to the server at once.

    Sharding: every iterator attaches a Client of its own, so each
    DataLoader worker and each torch.distributed rank takes its share of the
    port's streams (the server balances streams across its clients). The
    socket path may name ``{rank}``, ``{local_rank}`` and ``{worker}`` (e.g.
    one server per GPU: ``/run/devtcp/gpu{local_rank}.sock``).

    :param path: the server's control socket.
    :param port: the listen port whose streams to take.
    :param record_size: bytes per record.
    :param batch_size: None: yield records of shape (record_size,);
        B: yield batches of shape (B, record_size) (the last may be shorter
        unless ``drop_last``); use ``DataLoader(ds, batch_size=None)``.
    :param quota: chunks per server stack (0: the server's default).
    :param name: client name prefix in the server's telemetry.
    :param output: "torch", "numpy" or "auto" (torch when importable).
    :param device: torch device for the records (default: the region's);
        records are gathered on the region's device, then moved.
    :param idle_timeout: stop after this many seconds without data (None:
        only when the server goes away or ``max_streams`` streams ended).
    :param max_streams: stop once this many streams ended (per iterator).
    :param max_records: stop after this many records (per iterator).
    :param drop_last: drop a last batch shorter than ``batch_size``.
    :param api: the C layer (tests put a fake here; default libdevtcp).
    """

    def __init__(self, path: str, port: int, record_size: int, *,
                 batch_size: Optional[int] = None, quota: int = 0,
                 name: Optional[str] = None, output: str = "auto",
                 device: Any = None, idle_timeout: Optional[float] = None,
                 max_streams: Optional[int] = None,
                 max_records: Optional[int] = None,
                 drop_last: bool = False,
                 api: Optional[CApi] = None) -> None:
        if record_size <= 0:
            raise ValueError("record_size must be positive")
        if batch_size is not None and batch_size <= 0:
            raise ValueError("batch_size must be positive or None")
        if output not in ("auto", "torch", "numpy"):
            raise ValueError("output: auto, torch or numpy")
        self.path = str(path)
        self.port = int(port)
        self.record_size = int(record_size)
        self.batch_size = batch_size
        self.quota = quota
        self.name = name
        self.output = output
        self.device = device
        self.idle_timeout = idle_timeout
        self.max_streams = max_streams
        self.max_records = max_records
        self.drop_last = drop_last
        self.api = api
        #: counters of the last iteration in this process
        self.stats: Dict[str, int] = {}

    def _ops(self, client: Client) -> _ops.Ops:
        kind = self.output
        if kind == "auto":
            kind = "torch" if _ops.have_torch() else "numpy"
        if kind == "numpy":
            if client.mem != "cpu":
                raise TypeError("numpy output needs a CPU-readable region; "
                                "this server's region is CUDA memory")
            return _ops.NumpyOps()
        return _ops.TorchOps(client.torch_device)

    def client_name(self) -> str:
        rank, world, worker, workers = shard_info()
        return "%s-r%dw%d" % (self.name or "pid%d" % os.getpid(), rank, worker)

    def socket_path(self) -> str:
        rank, world, worker, workers = shard_info()
        local = int(os.environ.get("LOCAL_RANK", str(rank)))
        return self.path.format(rank=rank, local_rank=local, worker=worker)

    def __iter__(self) -> Iterator[Any]:
        client = Client(self.socket_path(), self.port, self.quota,
                        self.client_name(), api=self.api)
        try:
            yield from self._run(client)
        finally:
            client.detach()

    def _emit(self, out: Any, ops: _ops.Ops) -> Iterator[Any]:
        N = self.record_size
        if self.batch_size is None:
            for i in range(int(out.shape[0]) // N):
                yield self._move(out[i * N:(i + 1) * N])
        else:
            yield self._move(ops.reshape(out, (int(out.shape[0]) // N, N)))

    def _move(self, t: Any) -> Any:
        if self.device is not None and hasattr(t, "to"):
            return t.to(self.device, non_blocking=True)
        return t

    def _run(self, client: Client) -> Iterator[Any]:
        ops = self._ops(client)
        # Single records are cut out of an internal batch of about 1 MiB
        # (one copy for many records); at idle it goes out as it is.
        inner = self.batch_size or max(1, (1 << 20) // self.record_size)
        asm = _Assembler(client, ops, self.record_size, inner)
        records = 0
        last_data = time.monotonic()
        idle = 0
        limit = self.max_records

        def stop() -> bool:
            if limit is not None and records >= limit:
                return True
            if self.max_streams is not None and \
                    asm.finished >= self.max_streams and not asm.streams:
                return True
            return False

        while not stop():
            chunks = client.poll(256)
            if chunks:
                idle = 0
                last_data = time.monotonic()
                for ch in chunks:
                    asm.feed(ch)
                del chunks
                while True:
                    out = asm.take_batch()
                    if out is None:
                        break
                    if limit is not None:
                        room = (limit - records) * self.record_size
                        out = out[:room]
                    records += int(out.shape[0]) // self.record_size
                    yield from self._emit(out, ops)
                    if stop():
                        break
                continue
            if client.server_gone:
                break
            asm.spill()   # nothing new: let the held chunks go
            if self.batch_size is None:
                out = asm.take_batch(final=True)
                if out is not None:
                    if limit is not None:
                        out = out[:(limit - records) * self.record_size]
                    records += int(out.shape[0]) // self.record_size
                    yield from self._emit(out, ops)
                    continue
            if self.idle_timeout is not None and \
                    time.monotonic() - last_data > self.idle_timeout:
                break
            idle += 1
            if idle > 64:
                time.sleep(min(0.001, 0.00002 * (idle - 64)))
        out = asm.take_batch(final=True)
        if out is not None and not stop() and not (
                self.drop_last and self.batch_size is not None and
                int(out.shape[0]) < self.batch_size * self.record_size):
            if limit is not None:
                out = out[:(limit - records) * self.record_size]
            records += int(out.shape[0]) // self.record_size
            yield from self._emit(out, ops)
        self.stats = {"records": records, "streams": asm.finished,
                      "dropped_partial": asm.dropped}
