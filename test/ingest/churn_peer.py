#!/usr/bin/env python3
"""Short connections for the ingest soak (run in the Linux sender's network
namespace): one connection per FILE, one after the other, each connecting,
sending the whole file, closing its side and waiting for the server's FIN.

usage: churn_peer.py [--together] HOST PORT FILE...
  --together  open every connection first, then send the files in turn:
              the server gives each stream to a client when it accepts
              it (the client with the fewest streams), so streams that
              all exist before any ends split evenly between clients
              (separate senders started one by one let a fast client
              finish a stream, and take another, before the last connected)
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


def together(host, port, files):
    socks = [socket.create_connection((host, port), timeout=60) for _ in files]
    total = 0
    for s, path in zip(socks, files):
        with open(path, "rb") as f:
            data = f.read()
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        total += len(data)
    for s in socks:
        while s.recv(4096):
            pass
        s.close()
    return total


def main():
    if sys.argv[1] == "--together":
        host, port, files = sys.argv[2], int(sys.argv[3]), sys.argv[4:]
        try:
            total = together(host, port, files)
        except OSError as e:
            print("churn: %s" % e)
            return 1
        print("churn: %d connections, %d bytes" % (len(files), total))
        return 0
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
