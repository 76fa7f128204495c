#!/usr/bin/env python3
"""Short connections for the ingest soak (run in the Linux sender's network
namespace): one connection per FILE, one after the other, each connecting,
sending the whole file, closing its side and waiting for the server's FIN.

usage: churn_peer.py HOST PORT FILE...
Prints "churn: N connections, B bytes" and exits 0 when every connection
sent its file and saw the server close; 1 (and why) otherwise.
"""
import socket
import sys


def one(host, port, path):
    with open(path, "rb") as f:
        data = f.read()
    with socket.create_connection((host, port), timeout=30) as s:
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        # The server closes once the client has taken the stream: wait for
        # it so that a connection never ends before its bytes were taken.
        while s.recv(4096):
            pass
    return len(data)


def main():
    host, port, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    total = 0
    for i, path in enumerate(files):
        try:
            total += one(host, port, path)
        except OSError as e:
            print("churn: connection %d (%s): %s" % (i, path, e))
            return 1
    print("churn: %d connections, %d bytes" % (len(files), total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
