"""Batched copies out of chunk memory, with numpy or torch.

A *view* here is an array or tensor over bytes the client holds (a slice of
the whole region's view, or of a host chunk); a copy gathers many views
into one destination with one ``numpy.concatenate(out=)`` or
``torch.cat(out=)`` call (one kernel on a GPU).
"""
from __future__ import annotations

import ctypes
import sys
from typing import Any, List, Optional, Sequence, Tuple

from . import _dlpack

__all__ = ["have_numpy", "have_torch", "Ops", "NumpyOps", "TorchOps",
           "ops_for", "byte_view"]


def have_numpy() -> bool:
    try:
        import numpy  # noqa: F401
    except ImportError:
        return False
    return True


def numpy_or_none() -> Any:
    """The numpy module, or None when it is not installed (cached)."""
    global _NP
    if _NP is False:
        try:
            import numpy
            _NP = numpy
        except ImportError:
            _NP = None
    return _NP


_NP: Any = False


def have_torch() -> bool:
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


def _np_cpu_view(addr: int, n: int) -> Any:
    """A read-only numpy view of @p n bytes at CPU address @p addr."""
    import numpy as np
    if n == 0:
        return np.empty(0, dtype=np.uint8)
    a = np.ctypeslib.as_array((ctypes.c_uint8 * n).from_address(addr))
    a.flags.writeable = False
    return a


def _torch_view(addr: int, n: int, device: Tuple[int, int]) -> Any:
    """A torch tensor over @p n bytes at @p addr on DLPack @p device.

    The caller keeps the memory alive for as long as the tensor is used.
    """
    import torch
    if n == 0:
        dev = "cpu" if device[0] == _dlpack.kDLCPU else "cuda:%d" % device[1]
        return torch.empty(0, dtype=torch.uint8, device=dev)
    cap = _dlpack.make_capsule(addr, n, device, None, read_only=True)
    return torch.utils.dlpack.from_dlpack(cap)


def byte_view(dest: Any) -> Tuple[Any, "Ops"]:
    """The flat uint8 view of a numpy array or torch tensor, and its ops.

    :raises TypeError: not an array or tensor, not contiguous, read-only.
    """
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(dest, torch.Tensor):
        if not dest.is_contiguous():
            raise TypeError("read_into: the tensor must be contiguous")
        flat = dest.reshape(-1)
        if flat.dtype != torch.uint8:
            flat = flat.view(torch.uint8)
        return flat, TorchOps(dest.device)
    np = sys.modules.get("numpy")
    if np is not None and isinstance(dest, np.ndarray):
        if not dest.flags.c_contiguous:
            raise TypeError("read_into: the array must be C-contiguous")
        if not dest.flags.writeable:
            raise TypeError("read_into: the array is read-only")
        return dest.reshape(-1).view(np.uint8), NumpyOps()
    raise TypeError("read_into: need a numpy array or a torch tensor, got %s"
                    % type(dest).__name__)


class Ops:
    """Views and copies for one kind of destination."""

    #: DLPack device of the destinations this makes
    device: Tuple[int, int] = (_dlpack.kDLCPU, 0)

    def view(self, addr: int, n: int, device: Tuple[int, int]) -> Any:
        raise NotImplementedError

    def empty(self, n: int) -> Any:
        raise NotImplementedError

    def fill(self, dest: Any, views: Sequence[Any]) -> None:
        """Copy @p views one after the other into @p dest (sizes add up)."""
        raise NotImplementedError

    def reshape(self, a: Any, shape: Tuple[int, ...]) -> Any:
        return a.reshape(shape)

    def gather(self, dest: Any, region: Any, offs: Any, lens: Any) -> None:
        """Copy region[offs[k]:offs[k]+lens[k]] for every k, back to back,
        into @p dest (offs, lens: numpy int64 arrays; region: this ops'
        view of the whole region)."""
        raise NotImplementedError


class NumpyOps(Ops):
    """numpy destinations: sources must be CPU-readable."""

    device = (_dlpack.kDLCPU, 0)

    def view(self, addr: int, n: int, device: Tuple[int, int]) -> Any:
        if device[0] != _dlpack.kDLCPU:
            raise TypeError("a numpy destination needs CPU-readable chunks; "
                            "this region is CUDA memory (use torch)")
        return _np_cpu_view(addr, n)

    def empty(self, n: int) -> Any:
        import numpy as np
        return np.empty(n, dtype=np.uint8)

    def gather(self, dest: Any, region: Any, offs: Any, lens: Any) -> None:
        self.fill(dest, [region[o:o + n]
                         for o, n in zip(offs.tolist(), lens.tolist())])

    def fill(self, dest: Any, views: Sequence[Any]) -> None:
        import numpy as np
        if not views:
            return
        if len(views) == 1:
            dest[...] = views[0]
        else:
            np.concatenate(views, out=dest)


class TorchOps(Ops):
    """torch destinations on one device (CPU or a CUDA GPU)."""

    def __init__(self, device: Any) -> None:
        import torch
        self.tdev = torch.device(device)
        if self.tdev.type == "cuda":
            idx = self.tdev.index if self.tdev.index is not None else \
                torch.cuda.current_device()
            self.tdev = torch.device("cuda", idx)
            self.device = (_dlpack.kDLCUDA, idx)
        else:
            self.device = (_dlpack.kDLCPU, 0)

    def view(self, addr: int, n: int, device: Tuple[int, int]) -> Any:
        return _torch_view(addr, n, device)

    def empty(self, n: int) -> Any:
        import torch
        return torch.empty(n, dtype=torch.uint8, device=self.tdev)

    def gather(self, dest: Any, region: Any, offs: Any, lens: Any) -> None:
        import numpy as np
        import torch
        if region.device.type == "cpu":
            # CPU region (gpu_sim): numpy slices, one concatenate
            r = region.numpy()
            views = [r[o:o + n] for o, n in zip(offs.tolist(), lens.tolist())]
            if dest.device.type == "cpu":
                NumpyOps().fill(dest.numpy(), views)
            else:
                dest.copy_(torch.from_numpy(np.concatenate(views)))
            return
        gather_indexed(dest, region, offs, lens)

    def fill(self, dest: Any, views: Sequence[Any]) -> None:
        import torch
        if not views:
            return
        # Runs of views on one device: one cat each (one kernel on a GPU);
        # a run on another device is gathered there, then copied once.
        at = 0
        i = 0
        while i < len(views):
            dev = views[i].device
            j = i
            n = 0
            while j < len(views) and views[j].device == dev:
                n += views[j].numel()
                j += 1
            run = views[i:j]
            out = dest[at:at + n]
            if dev == dest.device:
                if len(run) == 1:
                    out.copy_(run[0])
                else:
                    torch.cat(run, out=out)
            else:
                src = run[0] if len(run) == 1 else torch.cat(run)
                out.copy_(src, non_blocking=False)
            at += n
            i = j



def gather_indexed(dest: Any, region: Any, offs: Any, lens: Any) -> None:
    """TorchOps.gather on a GPU region (any torch device works: the tests
    run it on the CPU)."""
    import torch
    # GPU region: one index per word, built on the GPU (three small
    # kernels), then one index_select: no Python work per chunk. Words
    # are the widest (8, 4, 2 or 1 bytes) that every offset, length and
    # both ends allow (1448-byte chunks in 2048-byte buffers: 8), so the
    # index costs 8 / word bytes per payload byte.
    dev = region.device
    for cand, dt in ((8, torch.int64), (4, torch.int32), (2, torch.int16)):
        if dest.data_ptr() % cand == 0 and dest.numel() % cand == 0 and \
                region.data_ptr() % cand == 0 and \
                not ((offs | lens) % cand).any():
            try:
                r = region[:region.numel() // cand * cand].view(dt)
                d = dest.view(dt)
            except RuntimeError:
                continue
            region, dest = r, d
            offs, lens = offs // cand, lens // cand
            break
    total = int(lens.sum())
    o = torch.from_numpy(offs).to(dev)
    n = torch.from_numpy(lens).to(dev)
    starts = torch.cumsum(n, 0) - n
    idx = torch.repeat_interleave(o - starts, n, output_size=total)
    idx += torch.arange(total, device=dev, dtype=torch.int64)
    if dest.device == dev:
        torch.index_select(region, 0, idx, out=dest)
    else:
        dest.copy_(torch.index_select(region, 0, idx))


def ops_for(kind: str, device: Optional[Any] = None) -> Ops:
    """Ops for "numpy" or "torch" (on @p device)."""
    if kind == "numpy":
        return NumpyOps()
    return TorchOps(device if device is not None else "cpu")


def torch_device_of(dl: Tuple[int, int]) -> str:
    return "cpu" if dl[0] == _dlpack.kDLCPU else "cuda:%d" % dl[1]


def concat_views(ops: Ops, views: List[Any]) -> Any:
    """A fresh array/tensor holding @p views back to back."""
    n = sum(int(v.shape[0]) for v in views)
    out = ops.empty(n)
    ops.fill(out, views)
    return out
