"""devtcp: take the TCP streams devtcp-server received into GPU memory, in
another process, as zero-copy DLPack views (torch, numpy, cupy).

    import devtcp, torch
    with devtcp.Client("/run/devtcp/ingest.sock", port=5001) as c:
        for stream in c.streams(timeout=10):
            for chunk in stream.chunks():
                t = torch.from_dlpack(chunk)   # uint8 view of the bytes
                ...                            # token goes back when t dies

The package needs libdevtcp (found through DEVTCP_LIB, the system's library
path, pkg-config, or the repository's build/lib); numpy and torch are
optional. See docs/python.md.
"""
from __future__ import annotations

from ._capi import AttachError, LibraryNotFound, find_library
from ._dlpack import DLPACK_VERSION, kDLCPU, kDLCUDA
from .client import (Chunk, Client, ClientStats, QuotaExhausted, Stream,
                     StreamReset)
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # resolved lazily below at run time
    from .dataset import RecordDataset, shard_info

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # The dataset imports torch (when installed): only on first use, so that
    # `python -m devtcp` and numpy-only users do not pay for it.
    if name in ("RecordDataset", "shard_info"):
        from . import dataset
        return getattr(dataset, name)
    raise AttributeError("module 'devtcp' has no attribute %r" % name)

__all__ = [
    "Client", "Chunk", "Stream", "ClientStats", "RecordDataset",
    "AttachError", "LibraryNotFound", "StreamReset", "QuotaExhausted",
    "find_library", "shard_info", "kDLCPU", "kDLCUDA", "DLPACK_VERSION",
    "__version__",
]
