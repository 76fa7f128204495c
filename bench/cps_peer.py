#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Short-connection peers for bench/cps-veth.sh (Linux kernel TCP).

  cps_peer.py client HOST PORT SECONDS BYTES WORKERS
      WORKERS processes, each in a loop until SECONDS pass: connect, send
      BYTES, shut down writing, read until the server closes, close. Prints
      one JSON line: connections completed, errors, seconds, cps.
  cps_peer.py server HOST PORT
      Accepts, reads each connection to its end, closes (one selector loop).
      Prints "listening pid PID", then on SIGTERM one JSON line: connections, bytes.
"""
import json
import multiprocessing
import os
import selectors
import signal
import socket
import sys
import time


def client_worker(host, port, seconds, nbytes, q):
    payload = bytes(i & 0xff for i in range(nbytes))
    done = errors = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.settimeout(5)
        try:
            s.connect((host, port))
            s.sendall(payload)
            s.shutdown(socket.SHUT_WR)
            while s.recv(65536):
                pass
            done += 1
        except OSError:
            errors += 1
        finally:
            s.close()
    q.put((done, errors))


def client(host, port, seconds, nbytes, workers):
    q = multiprocessing.Queue()
    t0 = time.monotonic()
    ps = [multiprocessing.Process(target=client_worker,
                                  args=(host, port, seconds, nbytes, q))
          for _ in range(workers)]
    for p in ps:
        p.start()
    res = [q.get() for _ in ps]
    for p in ps:
        p.join()
    dt = time.monotonic() - t0
    done = sum(r[0] for r in res)
    errors = sum(r[1] for r in res)
    print(json.dumps({"conns": done, "errors": errors, "seconds": round(dt, 3),
                      "cps": round(done / dt, 1) if dt > 0 else 0,
                      "bytes_per_conn": nbytes, "workers": workers}))
    return 0 if done > 0 else 1


def server(host, port):
    sel = selectors.DefaultSelector()
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((host, port))
    ls.listen(4096)
    ls.setblocking(False)
    sel.register(ls, selectors.EVENT_READ)
    st = {"conns": 0, "bytes": 0}
    stop = []
    signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
    # The pid: a launcher (a pyenv shim) may stand between the script and us.
    print("listening pid %d" % os.getpid(), flush=True)
    while not stop:
        for key, _ in sel.select(0.2):
            s = key.fileobj
            if s is ls:
                try:
                    c, _ = ls.accept()
                except OSError:
                    continue
                c.setblocking(False)
                sel.register(c, selectors.EVENT_READ)
                continue
            try:
                d = s.recv(65536)
            except OSError:
                d = b""
            if d:
                st["bytes"] += len(d)
                continue
            sel.unregister(s)
            s.close()
            st["conns"] += 1
    print(json.dumps(st), flush=True)
    return 0


def main(argv):
    if len(argv) == 7 and argv[1] == "client":
        return client(argv[2], int(argv[3]), float(argv[4]), int(argv[5]),
                      int(argv[6]))
    if len(argv) == 4 and argv[1] == "server":
        return server(argv[2], int(argv[3]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
