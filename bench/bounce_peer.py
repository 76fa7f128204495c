#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The Linux ends of bench/server-vs-bounce.sh (one TCP connection each).

  bounce_peer.py send ADDR PORT BYTES
      connect, send BYTES (a repeating pattern, 4 MiB writes), half-close,
      wait until the receiver closes (it has everything), print one JSON
      line {"bytes", "seconds"}: the clock runs from the first write to the
      receiver's close, the same for every receiver.
  bounce_peer.py recv ADDR PORT [--cuda] [--chunk BYTES]
      accept one connection on ADDR:PORT and receive until EOF:
        without --cuda  into one host buffer (kernel TCP alone);
        with --cuda     into pinned host buffers (two, alternating), each
                        full one copied with copy_() into a CUDA tensor (a
                        256 MiB ring in GPU memory) while the other fills:
                        the bounce path of an application on kernel TCP;
                        the connection is closed once the last copy landed.
      prints one JSON line {"bytes", "seconds", "copies", "device"}.
  bounce_peer.py probe
      exit 0 when torch with a CUDA device is importable, else print why
      and exit 1.
"""
import json
import resource
import socket
import struct
import sys
import time

MIB = 1 << 20


def send(addr, port, total):
    pat = bytes((i * 7 + 13) & 0xff for i in range(4 * MIB))
    mv = memoryview(pat)
    s = socket.create_connection((addr, int(port)), timeout=30)
    s.settimeout(None)
    left = int(total)
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.monotonic()
    while left > 0:
        n = min(left, len(pat))
        s.sendall(mv[:n])
        left -= n
    s.shutdown(socket.SHUT_WR)
    # The receiver closes once it has every byte (and, for the bounce
    # path, once its last copy reached the GPU).
    while s.recv(65536):
        pass
    secs = time.monotonic() - t0
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    # struct tcp_info: 8 bytes, then u32s; tcpi_total_retrans is the 24th.
    ti = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    retrans = struct.unpack_from("I", ti, 8 + 23 * 4)[0] if len(ti) >= 104 else -1
    s.close()
    # The sender's CPU seconds: with a veth, its system time holds the
    # softirq work its transmissions ran (veth, the receiver's side).
    print(json.dumps({"bytes": int(total), "seconds": secs,
                      "sender_user_s": round(r1.ru_utime - r0.ru_utime, 4),
                      "sender_sys_s": round(r1.ru_stime - r0.ru_stime, 4),
                      "sender_retrans": retrans}), flush=True)


def listen(addr, port):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addr, int(port)))
    ls.listen(1)
    print("listening", flush=True)
    c, _ = ls.accept()
    ls.close()
    return c


def recv_host(c, chunk):
    buf = bytearray(chunk)
    mv = memoryview(buf)
    got = 0
    t0 = None
    while True:
        n = c.recv_into(mv)
        if t0 is None:
            t0 = time.monotonic()
        if n == 0:
            break
        got += n
    return got, time.monotonic() - (t0 or time.monotonic()), 0, "none"


def cuda_setup(chunk):
    """Everything the bounce path allocates, before the sender's clock runs."""
    import torch
    dev = torch.device("cuda")
    ring = 256 * MIB // chunk
    gpu = torch.empty((ring, chunk), dtype=torch.uint8, device=dev)
    pinned = [torch.empty(chunk, dtype=torch.uint8).pin_memory()
              for _ in range(2)]
    stream = torch.cuda.Stream()
    # One copy each way warms the stream and the copy engine up.
    gpu[0].copy_(pinned[0], non_blocking=True)
    torch.cuda.synchronize()
    return torch, dev, ring, gpu, pinned, stream


def recv_cuda(c, chunk, st):
    torch, dev, ring, gpu, pinned, stream = st
    views = [memoryview(p.numpy()) for p in pinned]
    done = [None, None]
    got = copies = slot = 0
    cur, fill = 0, 0
    t0 = None
    eof = False
    while not eof:
        if done[cur] is not None:
            done[cur].synchronize()      # its last copy has read it
            done[cur] = None
        fill = 0
        while fill < chunk:
            n = c.recv_into(views[cur][fill:])
            if t0 is None:
                t0 = time.monotonic()
            if n == 0:
                eof = True
                break
            fill += n
        if fill == 0:
            break
        with torch.cuda.stream(stream):
            gpu[slot, :fill].copy_(pinned[cur][:fill], non_blocking=True)
            ev = torch.cuda.Event()
            ev.record(stream)
        done[cur] = ev
        got += fill
        copies += 1
        slot = (slot + 1) % ring
        cur ^= 1
    stream.synchronize()
    return got, time.monotonic() - (t0 or time.monotonic()), copies, \
        torch.cuda.get_device_name(dev)


def recv(addr, port, cuda, chunk):
    st = cuda_setup(chunk) if cuda else None
    c = listen(addr, port)
    if cuda:
        got, secs, copies, name = recv_cuda(c, chunk, st)
    else:
        got, secs, copies, name = recv_host(c, chunk)
    c.close()
    print(json.dumps({"bytes": got, "seconds": secs, "copies": copies,
                      "device": name}), flush=True)


def probe():
    try:
        import torch
    except ImportError as e:
        print("no torch for %s: %s" % (sys.executable, e))
        return 1
    if not torch.cuda.is_available():
        print("torch %s sees no CUDA device" % torch.__version__)
        return 1
    print("torch %s, %s" % (torch.__version__, torch.cuda.get_device_name(0)))
    return 0


def main(argv):
    if len(argv) >= 2 and argv[1] == "probe":
        return probe()
    if len(argv) == 5 and argv[1] == "send":
        send(argv[2], argv[3], argv[4])
        return 0
    if len(argv) >= 4 and argv[1] == "recv":
        chunk = 4 * MIB
        if "--chunk" in argv:
            chunk = int(argv[argv.index("--chunk") + 1])
        recv(argv[2], argv[3], "--cuda" in argv, chunk)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
