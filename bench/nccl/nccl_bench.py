#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""One rank of the NCCL benchmark (h200-nccl.sh starts two, each its own
"host" through NCCL_HOSTID): all_reduce and all_gather of int32 tensors from
--min to --max bytes (powers of two), every result checked exactly on the
GPU, timed with CUDA events. Rank 0 prints a table (size, algbw, busbw in
GB/s, as nccl-tests defines them) and writes --json.

Environment: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT (torch's env://),
and NCCL's own variables (set by the caller)."""
import argparse
import json
import os
import sys
import time

import torch
import torch.distributed as dist


def parse_size(s):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(s[:-1]) * mult[s[-1].upper()] if s[-1].upper() in mult else int(s)


def pattern(n, rank, dev):
    # Small integers: sums are exact in int32 whatever the reduction order.
    return (torch.arange(n, dtype=torch.int32, device=dev) % 1021) + rank * 7


def timed(fn, iters):
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iters):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / 1000.0 / iters


def run(op, nbytes, rank, world, dev, iters):
    if op == "all_reduce":
        n = nbytes // 4
        x = pattern(n, rank, dev)
        want = sum(pattern(n, r, dev) for r in range(world))
        buf = x.clone()

        def step():
            buf.copy_(x)
            dist.all_reduce(buf)
        step()
        torch.cuda.synchronize()
        ok = torch.equal(buf, want)
        t = timed(step, iters)
        algbw = nbytes / t / 1e9
        busbw = algbw * 2 * (world - 1) / world
    else:
        # nbytes is the gathered output, as nccl-tests counts it.
        n = nbytes // 4 // world
        x = pattern(n, rank, dev)
        out = torch.empty(n * world, dtype=torch.int32, device=dev)
        want = torch.cat([pattern(n, r, dev) for r in range(world)])

        def step():
            dist.all_gather_into_tensor(out, x)
        step()
        torch.cuda.synchronize()
        ok = torch.equal(out, want)
        t = timed(step, iters)
        algbw = nbytes / t / 1e9
        busbw = algbw * (world - 1) / world
    okt = torch.tensor([1 if ok else 0], device=dev)
    dist.all_reduce(okt, op=dist.ReduceOp.MIN)
    return {"op": op, "bytes": nbytes, "time_us": t * 1e6, "algbw_GBps": algbw,
            "busbw_GBps": busbw, "correct": bool(okt.item())}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--min", default="8M")
    ap.add_argument("--max", default="1G")
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--label", default="devtcp")
    ap.add_argument("--json", default="")
    a = ap.parse_args()
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    dev = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
    torch.cuda.set_device(dev)
    rows = []
    size = parse_size(a.min)
    t0 = time.time()
    while size <= parse_size(a.max):
        for op in ("all_reduce", "all_gather"):
            iters = a.iters if size <= (256 << 20) else max(2, a.iters // 2)
            rows.append(run(op, size, rank, world, dev, iters))
        size *= 2
    dist.barrier()
    if rank == 0:
        print(f"# {a.label}: {world} ranks, torch {torch.__version__}, "
              f"NCCL {'.'.join(map(str, torch.cuda.nccl.version()))}, "
              f"{time.time() - t0:.1f} s")
        print(f"{'op':<11} {'bytes':>12} {'time_us':>12} {'algbw':>8} "
              f"{'busbw':>8}  correct")
        for r in rows:
            print(f"{r['op']:<11} {r['bytes']:>12} {r['time_us']:>12.1f} "
                  f"{r['algbw_GBps']:>8.3f} {r['busbw_GBps']:>8.3f}  "
                  f"{'yes' if r['correct'] else 'NO'}")
        if a.json:
            with open(a.json, "w") as f:
                json.dump({"label": a.label, "world": world,
                           "nccl": torch.cuda.nccl.version(),
                           "torch": torch.__version__, "rows": rows}, f,
                          indent=1)
    dist.destroy_process_group()
    sys.exit(0 if all(r["correct"] for r in rows) else 1)


if __name__ == "__main__":
    main()
