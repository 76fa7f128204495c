"""A fake of libdevtcp's client API (the CApi the package calls), in Python.

It models what the Python layer relies on: a region of bytes, streams whose
events come out of poll() in order, a quota of DATA chunks held per stack,
tokens that can be given back once (a second return is -EINVAL and is
recorded), and bytes scribbled over when their token comes back (so that a
view used after its token went back reads garbage, as with the real server
reusing the buffer). It also records which thread made each call.
"""
from __future__ import annotations

import collections
import ctypes
import errno
import threading
from typing import Deque, Dict, List, Optional, Tuple

from devtcp import _capi
from devtcp._capi import DtClientChunk, DtClientStats

SCRIBBLE = 0xEE


class FakeApi:
    def __init__(self, region_size: int = 1 << 20, ring_size: int = 64,
                 nb_stacks: int = 1, mem: int = _capi.MEM_CPU,
                 cuda_device: int = 0, refuse: int = 0) -> None:
        self.region = (ctypes.c_uint8 * region_size)()
        self.base = ctypes.addressof(self.region)
        self.size = region_size
        self.ring_size = ring_size
        self.nb_stacks = nb_stacks
        self._mem = mem
        self._cuda_device = cuda_device
        self.refuse = refuse
        self.host_slot = (ctypes.c_uint8 * 65536)()   # "linear slots"
        self.host_at = 0
        self.events: Dict[int, Deque[DtClientChunk]] = {
            s: collections.deque() for s in range(nb_stacks)}
        self.held: Dict[Tuple[int, int], DtClientChunk] = {}
        self.at = 0
        self.next_token = 1
        self.bad_releases: List[Tuple[int, int]] = []
        self.released: List[Tuple[int, int]] = []
        self.release_threads: set = set()
        self.attached = False
        self.detached = False
        self.held_at_detach: Optional[int] = None
        self.shutdown = False
        self.stats_ = DtClientStats(client_id=7, nb_stacks=nb_stacks,
                                    ring_size=ring_size)

    # -- scripting the "server" -------------------------------------------
    def _push(self, stack: int, **kw: object) -> DtClientChunk:
        c = DtClientChunk(stack=stack, **kw)
        self.events[stack].append(c)
        return c

    def open(self, stream: int, stack: int = 0, reoffered: bool = False,
             stream_offset: int = 0) -> None:
        self._push(stack, stream=(stack << 32) | stream, kind=_capi.OPEN,
                   reoffered=reoffered, stream_offset=stream_offset,
                   peer_ipv4=0x0200000a, peer_port=40000 + stream,
                   local_port=5001)

    def data(self, stream: int, payload: bytes, chunk: int = 1000,
             stack: int = 0, host: bool = False) -> None:
        """Queue @p payload as DATA chunks of @p chunk bytes."""
        for i in range(0, len(payload), chunk):
            piece = payload[i:i + chunk]
            n = len(piece)
            if host:
                addr = ctypes.addressof(self.host_slot) + self.host_at
                ctypes.memmove(addr, piece, n)
                self.host_at = (self.host_at + n) % (65536 - 4096)
                off = _capi.HOST_OFFSET
            else:
                if self.at + n > self.size:
                    self.at = 0
                off = self.at
                self.at += (n + 63) & ~63
                addr = self.base + off
                ctypes.memmove(addr, piece, n)
            tok = self.next_token
            self.next_token += 1
            self._push(stack, stream=(stack << 32) | stream, kind=_capi.DATA,
                       addr=addr, offset=off, len=n, host=host, token=tok)

    def fin(self, stream: int, stack: int = 0) -> None:
        self._push(stack, stream=(stack << 32) | stream, kind=_capi.FIN)

    def reset(self, stream: int, err: int = errno.ECONNRESET,
              stack: int = 0) -> None:
        self._push(stack, stream=(stack << 32) | stream, kind=_capi.RESET,
                   err=err)

    def held_on(self, stack: int) -> int:
        if self.nb_stacks == 1:
            return len(self.held)
        return sum(1 for (s, _t) in self.held if s == stack)

    # -- CApi ----------------------------------------------------------------
    def attach(self, path: str, port: int, quota: int,
               name: Optional[str]) -> object:
        if self.refuse:
            e = _capi.AttachError(self.refuse, "refused by the fake", path)
            e.refused = True
            raise e
        self.attached = True
        if quota:
            self.ring_size = quota
            self.stats_.ring_size = quota
        return object()

    def poll(self, handle: object, out: "ctypes.Array[DtClientChunk]",
             n: int) -> int:
        assert not self.detached
        got = 0
        for s, q in self.events.items():
            while q and got < n:
                c = q[0]
                if c.kind == _capi.DATA and self.held_on(s) >= self.ring_size:
                    break   # quota: the server stops handing out
                q.popleft()
                if c.kind == _capi.DATA:
                    self.held[(s, c.token)] = c
                    self.stats_.chunks += 1
                    self.stats_.bytes += c.len
                out[got] = c
                got += 1
        if got == 0 and self.shutdown and \
                not any(self.events.values()):
            return -errno.ESHUTDOWN
        self.stats_.held = len(self.held)
        return got

    def release(self, handle: object, chunks: "ctypes.Array[DtClientChunk]",
                n: int) -> int:
        assert not self.detached
        self.release_threads.add(threading.get_ident())
        rc = 0
        for i in range(n):
            key = (int(chunks[i].stack), int(chunks[i].token))
            c = self.held.pop(key, None)
            if c is None:
                self.bad_releases.append(key)
                rc = -errno.EINVAL
                continue
            self.released.append(key)
            ctypes.memset(c.addr, SCRIBBLE, c.len)
            self.stats_.released += 1
        self.stats_.held = len(self.held)
        return rc

    def detach(self, handle: object) -> int:
        self.detached = True
        self.held_at_detach = len(self.held)
        return 0

    def mem(self, handle: object) -> int:
        return self._mem

    def region_base(self, handle: object) -> int:
        return self.base

    def region_len(self, handle: object) -> int:
        return self.size

    def cpu_alias(self, handle: object) -> Optional[int]:
        return self.base

    def cuda_device(self, handle: object) -> int:
        return self._cuda_device if self._mem == _capi.MEM_CUDA else -1

    def fd(self, handle: object) -> int:
        return -1

    def stats(self, handle: object) -> DtClientStats:
        return DtClientStats.from_buffer_copy(self.stats_)


def pattern(off: int, n: int) -> bytes:
    """dt_pattern_byte (lib/devmem/dt_pattern.h) for offsets off..off+n."""
    return bytes((((o & 0xffffffff) * 2654435761) & 0xffffffff) >> 24
                 for o in range(off, off + n))
