"""python -m devtcp: look at and read from a devtcp-server ingest socket."""
from __future__ import annotations

import argparse
import sys
import time
from typing import List, Optional

from . import __version__
from ._capi import AttachError, LibraryNotFound
from .client import Client

DEFAULT_PORT = 5001


def _status(a: argparse.Namespace) -> int:
    with Client(a.socket, a.port, quota=1, name=a.name) as c:
        st = c.stats()
        dev = c.torch_device
        print("socket:     %s" % a.socket)
        print("attached:   client %d for port %d" % (c.client_id, a.port))
        print("stacks:     %d (ring %d entries each)" % (c.nb_stacks,
                                                         st.ring_size))
        print("region:     %s, %d bytes (%.1f MiB), device %s" %
              (c.mem, c.region_len, c.region_len / 2**20, dev))
        print("cpu alias:  %s" % ("yes" if c.cpu_alias else "no"))
    print("detached")
    return 0


def _clients(a: argparse.Namespace) -> int:
    from . import _telemetry as tel
    path = a.telemetry_socket or tel.socket_path(a.file_prefix)
    try:
        ingest = tel.query(path, tel.INGEST_CMD)
    except (OSError, ValueError) as e:
        print("devtcp: telemetry at %s: %s (is devtcp-server running with "
              "this --file-prefix?)" % (path, e), file=sys.stderr)
        return 1
    if not ingest:
        print("devtcp: the server at %s has no ingest consumer "
              "([consumer] mode = ingest)" % path, file=sys.stderr)
        return 1
    for line in tel.clients_table(ingest):
        print(line)
    return 0


def _recv(a: argparse.Namespace) -> int:
    """Take streams concurrently, hash each through the chosen views; the
    output lines are test/ingest/ingest_take's (the C client's)."""
    import hashlib
    import os
    import signal
    if a.views == "auto":
        a.views = "numpy,torch"
        for m in ("numpy", "torch"):
            try:
                __import__(m)
            except ImportError:
                a.views = a.views.replace(m, "")
        a.views = a.views.strip(",") or "bytes"
    views = [v for v in a.views.split(",") if v]
    for v in views:
        if v not in ("numpy", "torch", "bytes"):
            print("devtcp: --views: numpy, torch, bytes", file=sys.stderr)
            return 2
    mods = {}
    for v in views:
        if v != "bytes":
            try:
                mods[v] = __import__(v)
            except ImportError:
                print("devtcp: --views %s: %s is not installed" % (v, v),
                      file=sys.stderr)
                return 2
    release_now = [False]
    signal.signal(signal.SIGUSR1, lambda *_: release_now.__setitem__(0, True))
    with Client(a.socket, a.port, quota=a.quota, name=a.name) as c:
        if c.mem == "cuda" and c.cpu_alias is None and \
                set(views) - {"torch"}:
            if "torch" not in views:
                print("devtcp: the region is CUDA memory without a CPU "
                      "alias: only --views torch can read it",
                      file=sys.stderr)
                return 2
            views = ["torch"]
        st = c.stats()
        print("attached id %d stacks %d quota %d mem %s len %d" %
              (c.client_id, c.nb_stacks, st.ring_size, c.mem, c.region_len),
              flush=True)
        print("views: %s" % ",".join(views), flush=True)
        hashers = {}
        total = 0
        ended = 0
        held = []
        i = 0
        hold = a.hold
        last = t0 = time.monotonic()
        while ended < a.streams or a.streams == 0:
            chunks = c.poll(256)
            now = time.monotonic()
            if not chunks:
                if c.server_gone:
                    print("server gone", flush=True)
                    return 4
                if now - last > a.timeout:
                    break
                time.sleep(0.00005)
            else:
                last = now
            for ch in chunks:
                if ch.kind == "open":
                    hashers[ch.stream] = [hashlib.sha256(), ch.stream_offset, 0]
                    print("open %x offset %d%s" % (ch.stream, ch.stream_offset,
                          " reoffered" if ch.reoffered else ""), flush=True)
                    continue
                h = hashers.get(ch.stream)
                if ch.kind == "data":
                    v = views[i % len(views)]
                    i += 1
                    if v == "numpy":
                        # numpy.from_dlpack, or the CPU alias of a CUDA chunk
                        data = ch.numpy()
                    elif v == "torch":
                        t = mods["torch"].from_dlpack(ch)
                        data = t.cpu().numpy() if t.is_cuda else t.numpy()
                        t = None
                    else:
                        data = ch.tobytes()
                    if h is not None:
                        h[0].update(memoryview(data))
                        h[2] += ch.len
                    del data
                    total += ch.len
                    if hold:
                        held.append(ch)
                    else:
                        ch.release()
                    continue
                hashers.pop(ch.stream, None)
                if h is None:
                    h = [hashlib.sha256(), 0, 0]
                if ch.kind == "fin":
                    print("stream %x offset %d bytes %d sha256 %s" %
                          (ch.stream, h[1], h[2], h[0].hexdigest()), flush=True)
                else:
                    print("reset %x offset %d bytes %d err %d" %
                          (ch.stream, h[1], h[2], ch.err), flush=True)
                ended += 1
            del chunks
            if a.die_after and total >= a.die_after:
                print("dying after %d bytes" % total, flush=True)
                os.kill(os.getpid(), signal.SIGKILL)
            if release_now[0] and held:
                print("releasing %d held chunks" % len(held), flush=True)
                c.release(held)
                held = []
                hold = False
        s = c.stats()
        print("done: %d streams ended, %d chunks, %d bytes, %d host bytes, "
              "%d held in %.2f s" % (ended, s.chunks, s.bytes, s.host_bytes,
                                     s.held, time.monotonic() - t0), flush=True)
    return 0 if a.streams == 0 or ended >= a.streams else 1


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m devtcp",
        description="devtcp %s: attach to devtcp-server's ingest socket "
        "([consumer] mode = ingest) and take received streams." % __version__,
        epilog="The library is libdevtcp (DEVTCP_LIB=path overrides the "
        "search). Exit status: 0 ok, 1 failure, 2 usage, 3 refused by the "
        "server, 4 libdevtcp not found.")
    p.add_argument("--version", action="version", version=__version__)
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND")
    s = sub.add_parser("status", help="attach (quota 1), print the client id, "
                       "stacks and the region, detach")
    s.add_argument("socket", help="the server's control socket")
    s.add_argument("port", type=int, nargs="?", default=DEFAULT_PORT,
                   help="listen port to attach for (default %d); a stream "
                   "handed over during the probe is reset or re-offered at "
                   "detach, as [ingest] on_client_exit says" % DEFAULT_PORT)
    s.add_argument("--name", default="devtcp status")
    s.set_defaults(fn=_status)
    c = sub.add_parser("clients", help="list the clients attached to a "
                       "devtcp-server (its telemetry, /devtcp/ingest): "
                       "ports, streams, quotas, held chunks, bad tokens")
    c.add_argument("-f", "--file-prefix", default="rte",
                   help="the server's EAL --file-prefix (default rte: also "
                   "an --in-memory server's)")
    c.add_argument("--telemetry-socket", metavar="PATH",
                   help="the telemetry socket itself (the server prints it "
                   "at start-up)")
    c.set_defaults(fn=_clients)
    r = sub.add_parser("recv", help="take streams (all at once), hash each "
                       "through DLPack views, print its bytes and SHA-256 "
                       "(CPU-readable chunks: gpu_sim or a CPU alias)")
    r.add_argument("socket")
    r.add_argument("port", type=int, nargs="?", default=DEFAULT_PORT,
                   help="listen port (default %d)" % DEFAULT_PORT)
    r.add_argument("--streams", type=int, default=0,
                   help="stop once this many streams ended (0: until idle)")
    r.add_argument("--timeout", type=float, default=10.0,
                   help="stop after this many seconds without a chunk "
                   "(default 10)")
    r.add_argument("--quota", type=int, default=0)
    r.add_argument("--name", default="devtcp recv")
    r.add_argument("--views", default="numpy",
                   help="comma-separated, used in turn per chunk: numpy "
                   "(numpy.from_dlpack), torch (torch.from_dlpack), bytes "
                   "(a copy), or auto (numpy and torch where installed); "
                   "default numpy")
    r.add_argument("--hold", action="store_true",
                   help="keep every chunk until SIGUSR1 (flow control test)")
    r.add_argument("--die-after", type=int, default=0, metavar="BYTES",
                   help="SIGKILL this process after BYTES (crash test)")
    r.set_defaults(fn=_recv)
    a = p.parse_args(argv)
    if a.cmd is None:
        p.print_help()
        return 2
    try:
        return int(a.fn(a))
    except AttachError as e:
        print("devtcp: attach to %s refused: %s (%s)" %
              (a.socket, e.strerror, _errname(e.errno)), file=sys.stderr)
        return 3 if e.refused else 1
    except LibraryNotFound as e:
        print("devtcp: %s" % e, file=sys.stderr)
        return 4


def _errname(code: Optional[int]) -> str:
    import errno
    return errno.errorcode.get(code or 0, str(code))


if __name__ == "__main__":
    sys.exit(main())
