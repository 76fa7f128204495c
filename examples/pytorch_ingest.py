#!/usr/bin/env python3
"""A training loop fed by devtcp-server: records arrive over TCP, land in GPU
memory, and reach PyTorch as uint8 tensors on the device without a CPU copy.

A Linux sender streams a file of fixed-size records; devtcp-server
([consumer] mode = ingest) receives it into GPU memory (gpu_sim's CPU-visible
memory without a GPU); this script attaches, takes the records as batches
through devtcp.RecordDataset and a torch DataLoader, feeds them to a toy
model (the training step stand-in), and checks a checksum computed with
torch on the tensors' device against the file's.

Usage (repository root, root for the network namespace; see
config/ingest.ini and docs/python.md):

    # 1. a file of records (4096 records of 4 KiB, random bytes)
    python3 examples/pytorch_ingest.py make /tmp/records.bin --records 4096

    # 2. the server, with a Linux peer in a network namespace
    scripts/netns.sh up dtpeer --addr 10.0.0.2/24
    build/app/server/devtcp-server -l 0-1 --in-memory --no-pci \\
        --vdev=net_hsplit0,iface=dtpeer --vdev=gpu_sim0,size=256M \\
        -- --config config/ingest.ini &

    # 3. the training process (starts waiting for streams)
    python3 examples/pytorch_ingest.py train /tmp/devtcp-ingest.sock \\
        --port 5001 --record-size 4096 --expect /tmp/records.bin &

    # 4. the sender: a plain Linux TCP socket
    ip netns exec dtpeer socat -u OPEN:/tmp/records.bin TCP:10.0.0.1:5001

The script prints records, bytes, the rate and the checksum, and exits 0
when the checksum equals the file's (1 otherwise). Records of several
streams may interleave: the checksum is order-independent across records
(a position-weighted sum within each record, summed over records).

Options of `train`: --batch (records per batch, default 64), --workers
(DataLoader worker processes, each its own client; default 0),
--idle-timeout (seconds without data before the epoch ends, default 5),
--streams (end after this many streams), --device (move batches there).
"""
from __future__ import annotations

import argparse
import os
import sys
import time

try:
    import devtcp
except ImportError:  # run from the source tree without installing
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), "python"))
    import devtcp

MOD = (1 << 61) - 1


def file_checksum(path: str, record_size: int) -> "tuple[int, int]":
    """(records, checksum) of a file, on the CPU with numpy (the reference)."""
    import numpy as np
    w = np.arange(1, record_size + 1, dtype=np.int64)
    total, n = 0, 0
    with open(path, "rb") as f:
        while True:
            buf = f.read(record_size * 1024)
            k = len(buf) // record_size
            if k == 0:
                break
            a = np.frombuffer(buf[:k * record_size], dtype=np.uint8)
            a = a.reshape(k, record_size).astype(np.int64)
            total = (total + int((a @ w).sum())) % MOD
            n += k
    return n, total


def make(a: argparse.Namespace) -> int:
    with open(a.path, "wb") as f:
        for _ in range(a.records):
            f.write(os.urandom(a.record_size))
    n, cs = file_checksum(a.path, a.record_size)
    print("wrote %s: %d records of %d bytes, checksum %d" %
          (a.path, n, a.record_size, cs))
    return 0


def train(a: argparse.Namespace) -> int:
    import torch
    from torch.utils.data import DataLoader

    ds = devtcp.RecordDataset(a.socket, a.port, a.record_size,
                              batch_size=a.batch, idle_timeout=a.idle_timeout,
                              max_streams=a.streams or None,
                              device=a.device, name="pytorch_ingest")
    loader = DataLoader(ds, batch_size=None, num_workers=a.workers)
    model = None
    opt = None
    checksum = None
    w = None
    records = 0
    t0 = t_last = None
    for batch in loader:             # uint8 [B, record_size] on the device
        if t0 is None:
            t0 = time.monotonic()
            dev = batch.device
            print("first batch: %s on %s" % (tuple(batch.shape), dev),
                  flush=True)
            w = torch.arange(1, a.record_size + 1, dtype=torch.int64,
                             device=dev)
            checksum = torch.zeros((), dtype=torch.int64, device=dev)
            model = torch.nn.Linear(a.record_size, 1).to(dev)
            opt = torch.optim.SGD(model.parameters(), lr=1e-6)
        # the checksum, on the batch's device (weighted sum per record)
        checksum = (checksum + (batch.to(torch.int64) @ w).sum()) % MOD
        # the training step stand-in
        x = batch.to(torch.float32) / 255.0
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        records += batch.shape[0]
        t_last = time.monotonic()
    if t0 is None:
        print("no records (nothing sent before the idle timeout?)")
        return 1
    got = int(checksum.item())    # the one host read: a single integer
    dt = max(t_last - t0, 1e-9)
    nbytes = records * a.record_size
    print("records %d, bytes %d, %.1f MB/s, checksum %d" %
          (records, nbytes, nbytes / dt / 1e6, got), flush=True)
    if a.expect:
        n, want = file_checksum(a.expect, a.record_size)
        ok = n * a.streams_per_file == records and \
            (want * a.streams_per_file) % MOD == got
        print("expected records %d, checksum %d: %s" %
              (n * a.streams_per_file, (want * a.streams_per_file) % MOD,
               "OK" if ok else "MISMATCH"))
        return 0 if ok else 1
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make", help="write a file of random records")
    m.add_argument("path")
    m.add_argument("--records", type=int, default=4096)
    m.add_argument("--record-size", type=int, default=4096)
    m.set_defaults(fn=make)
    t = sub.add_parser("train", help="consume records from devtcp-server")
    t.add_argument("socket", help="devtcp-server's [ingest] socket")
    t.add_argument("--port", type=int, default=5001)
    t.add_argument("--record-size", type=int, default=4096)
    t.add_argument("--batch", type=int, default=64)
    t.add_argument("--workers", type=int, default=0)
    t.add_argument("--idle-timeout", type=float, default=5.0)
    t.add_argument("--streams", type=int, default=0)
    t.add_argument("--device", default=None)
    t.add_argument("--expect", metavar="FILE",
                   help="the file the sender streams: compare checksums")
    t.add_argument("--streams-per-file", type=int, default=1,
                   help="how many senders sent --expect (default 1)")
    t.set_defaults(fn=train)
    a = p.parse_args()
    return a.fn(a)


if __name__ == "__main__":
    sys.exit(main())
