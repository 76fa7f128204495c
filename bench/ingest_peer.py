#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A PyTorch training process fed by devtcp-server's ingest mode: the
consumer row (d) of bench/server-vs-bounce.sh.

  ingest_peer.py SOCKET PORT BYTES [--cpu]

Attaches to devtcp-server ([consumer] mode = ingest) through the devtcp
Python package, takes one stream of BYTES bytes sent by bounce_peer.py
(its repeating 4 MiB pattern) and consumes it where it landed: with CUDA,
each poll's chunks are gathered on the GPU from a zero-copy tensor over the
server's region (one index build and one gather per batch, no per-chunk
Python), checked byte for byte against the pattern on the GPU and summed
into a torch checksum; the chunks go back once the GPU has read them.
--cpu (gpu_sim, tests) does the same with numpy on the CPU mapping.
Prints "attached ..." then one JSON line: bytes, seconds (first chunk to
FIN), mismatches, checksum and the expected one, the process's CPU seconds.
"""
import ctypes
import json
import os
import resource
import sys
import time

import numpy as np

from devtcp import _capi

MIB = 1 << 20
PAT_LEN = 4 * MIB
BURST = 8192
BATCH_MIN = 2048
BATCH_WAIT_US = 500


_NP = {ctypes.c_uint64: "<u8", ctypes.c_void_p: "<u8", ctypes.c_uint32: "<u4",
       ctypes.c_uint16: "<u2", ctypes.c_uint8: "u1", ctypes.c_bool: "?",
       ctypes.c_int: "<i4"}
# struct dt_client_chunk as numpy sees it (offsets and padding from ctypes).
CHUNK_DT = np.dtype({
    "names": [f for f, _ in _capi.DtClientChunk._fields_],
    "formats": [_NP[t] for _, t in _capi.DtClientChunk._fields_],
    "offsets": [getattr(_capi.DtClientChunk, f).offset
                for f, _ in _capi.DtClientChunk._fields_],
    "itemsize": ctypes.sizeof(_capi.DtClientChunk)})


def pattern():
    i = np.arange(PAT_LEN, dtype=np.int64)
    return ((i * 7 + 13) & 0xff).astype(np.uint8)


def expected_sum(nbytes, pat):
    full, rest = divmod(nbytes, PAT_LEN)
    return int(pat.sum(dtype=np.int64)) * full + int(pat[:rest].sum(dtype=np.int64))


class _CudaArray:
    """A raw device range as __cuda_array_interface__ for torch.as_tensor
    (torch refuses the read-only flag; this process only reads it, and the
    CUDA IPC mapping is the server's memory: nothing here writes it)."""

    def __init__(self, ptr, n):
        self.__cuda_array_interface__ = {
            "shape": (n,), "typestr": "|u1", "data": (ptr, False), "version": 2}


class CudaSink:
    def __init__(self, base, length, dev):
        import torch
        self.t = torch
        self.dev = torch.device("cuda", dev)
        torch.cuda.set_device(self.dev)
        self.region = torch.as_tensor(_CudaArray(base, length), device=self.dev)
        self.pat = torch.from_numpy(pattern()).to(self.dev)
        self.bad = torch.zeros((), dtype=torch.int64, device=self.dev)
        self.sum = torch.zeros((), dtype=torch.int64, device=self.dev)
        self.stream = torch.cuda.current_stream(self.dev)

    def batch(self, offs, lens, pos, host_bytes):
        t = self.t
        if len(offs):
            o = t.from_numpy(offs.astype(np.int64)).to(self.dev, non_blocking=True)
            n = t.from_numpy(lens.astype(np.int64)).to(self.dev, non_blocking=True)
            start = t.cumsum(n, 0) - n
            total = int(lens.sum())
            k = t.arange(total, device=self.dev)
            idx = t.repeat_interleave(o - start, n, output_size=total) + k
            buf = self.region[idx]
        else:
            buf = t.empty(0, dtype=t.uint8, device=self.dev)
        if host_bytes is not None:
            buf = t.cat([buf, t.from_numpy(host_bytes).to(self.dev)])
        total = buf.numel()
        p = (t.arange(total, device=self.dev) + pos) % PAT_LEN
        self.bad += (buf != self.pat[p]).sum()
        self.sum += buf.sum(dtype=t.int64)
        ev = t.cuda.Event()
        ev.record(self.stream)
        return ev, total

    def done(self, ev):
        if ev is not None:  # None: the batch had no payload (OPEN, FIN)
            ev.synchronize()

    def result(self):
        self.t.cuda.synchronize()
        return int(self.bad.item()), int(self.sum.item())


class CpuSink:
    def __init__(self, base, length):
        arr = (ctypes.c_uint8 * length).from_address(base)
        self.region = np.ctypeslib.as_array(arr)
        self.pat = pattern()
        self.bad = 0
        self.sum = 0

    def batch(self, offs, lens, pos, host_bytes):
        # The same index build as on the GPU: one gather per batch.
        n = lens.astype(np.int64)
        start = np.cumsum(n) - n
        idx = np.repeat(offs.astype(np.int64) - start, n) + np.arange(int(n.sum()))
        buf = self.region[idx]
        if host_bytes is not None:
            buf = np.concatenate([buf, host_bytes])
        p = (np.arange(buf.size, dtype=np.int64) + pos) % PAT_LEN
        self.bad += int((buf != self.pat[p]).sum())
        self.sum += int(buf.sum(dtype=np.int64))
        return None, buf.size

    def done(self, ev):
        pass

    def result(self):
        return self.bad, self.sum


def main(argv):
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    path, port, nbytes = argv[1], int(argv[2]), int(argv[3])
    api = _capi.load()
    h = api.attach(path, port, 0, "ingest_peer")
    st = api.stats(h)
    base, length = api.region_base(h), api.region_len(h)
    cpu = "--cpu" in argv or api.mem(h) == _capi.MEM_CPU
    sink = CpuSink(api.cpu_alias(h), length) if cpu else CudaSink(
        base, length, api.cuda_device(h))
    print("attached id %d stacks %d quota %d mem %s" % (
        st.client_id, st.nb_stacks, st.ring_size, "cpu" if cpu else "cuda"),
        flush=True)
    pat = pattern()
    ring = [(_capi.DtClientChunk * BURST)() for _ in range(4)]
    inflight = []   # (event, array, n) waiting for the GPU before release
    pos = 0
    t0 = None
    fin = False
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    k = 0
    def reap(block):
        """Give back the batches the GPU has read (the oldest first)."""
        while inflight:
            e, a, m = inflight[0]
            if e is not None and not block and not e.query():
                return
            sink.done(e)
            api.release(h, a, m)
            inflight.pop(0)
            block = False

    while not fin:
        arr = ring[k % len(ring)]
        # Batches of at least BATCH_MIN chunks, or what came within
        # BATCH_WAIT_US (one C call that spins: a few chunks a poll would
        # otherwise cost a ctypes call and numpy views each): each batch
        # costs a few GPU launches and some Python, whatever its size.
        # Chunks held close the TCP window: finished batches go back at once.
        n = api.poll_batch(h, arr, BURST, BATCH_MIN, BATCH_WAIT_US)
        if n < 0:
            raise SystemExit("server gone before the stream ended")
        if n == 0:
            reap(bool(inflight))   # nothing new: the window waits for these
            continue
        if t0 is None:
            t0 = time.monotonic()
        v = np.frombuffer(arr, dtype=CHUNK_DT, count=n)
        kinds = v["kind"]
        data = kinds == _capi.DATA
        ev = None
        # Device chunks in runs, host chunks (bytes the NIC left in a header
        # buffer, in shared memory: rare) one by one, in stream order.
        cuts = np.flatnonzero(data & v["host"])
        lo = 0
        for c in list(cuts) + [n]:
            run = v[lo:c][data[lo:c]]
            hb = None
            if c < n:
                hb = np.ctypeslib.as_array((ctypes.c_uint8 * int(v[c]["len"])).from_address(
                    int(v[c]["addr"]))).copy()
            if len(run) or hb is not None:
                ev, got = sink.batch(run["offset"], run["len"], pos, hb)
                pos += got
            lo = c + 1
        fin = bool((kinds == _capi.FIN).any() or (kinds == _capi.RESET).any())
        inflight.append((ev, arr, n))
        k += 1
        if len(inflight) >= len(ring) - 1:
            reap(True)
        reap(False)
    reap(True)
    while inflight:
        reap(True)
    secs = time.monotonic() - (t0 or time.monotonic())
    bad, csum = sink.result()
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    api.detach(h)
    cpu_s = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    print(json.dumps({"bytes": pos, "seconds": secs, "mismatches": bad,
                      "checksum": csum, "expected_checksum": expected_sum(nbytes, pat),
                      "cpu_seconds": cpu_s, "device": "cpu" if cpu else "cuda"}),
          flush=True)
    return 0 if bad == 0 and pos == nbytes else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
