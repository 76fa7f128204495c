#!/usr/bin/env python3
"""The Python client of check_ingest.py's streams case: takes NSTREAMS
streams through the devtcp package and hashes every byte through DLPack
views: numpy.from_dlpack for every chunk and, when torch is installed,
torch.from_dlpack for every 7th one (its bytes compared with numpy's).
Prints the lines ingest_take prints (attached, stream ... sha256 ...) and
"views: numpy[, torch]".

usage: py_take.py SOCKET PORT NSTREAMS
"""
import hashlib
import sys
import time

import numpy as np

import devtcp


def main(argv):
    path, port, want = argv[1], int(argv[2]), int(argv[3])
    try:
        import torch
    except ImportError:
        torch = None
    cl = devtcp.Client(path, port, name="py_take")
    st = cl.stats()
    print("attached id %d stacks %d quota %d mem %s" % (
        st.client_id, st.nb_stacks, st.ring_size, cl.mem), flush=True)
    hashes, sizes, ended, k, torch_used = {}, {}, 0, 0, 0
    deadline = time.time() + 90
    while ended < want and time.time() < deadline:
        chunks = cl.poll(256)
        if not chunks:
            time.sleep(0.0005)
            continue
        for ch in chunks:
            if ch.kind == "open":
                hashes[ch.stream] = hashlib.sha256()
                sizes[ch.stream] = 0
            elif ch.kind == "data":
                view = np.from_dlpack(ch)
                hashes[ch.stream].update(view.tobytes())
                sizes[ch.stream] += view.size
                k += 1
                if torch is not None and k % 7 == 0:
                    t = torch.from_dlpack(ch)
                    if not np.array_equal(t.numpy(), view):
                        raise SystemExit("torch and numpy views differ")
                    torch_used += 1
                    del t
                del view
                ch.release()
            else:
                print("%s %x offset 0 bytes %d sha256 %s" % (
                    "stream" if ch.kind == "fin" else "reset", ch.stream,
                    sizes[ch.stream], hashes[ch.stream].hexdigest()), flush=True)
                ended += 1
    print("views: numpy%s" % (", torch (%d chunks)" % torch_used if torch_used else ""),
          flush=True)
    cl.detach()
    return 0 if ended >= want else 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
