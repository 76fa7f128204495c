"""Read devtcp-server's telemetry (DPDK's telemetry socket, the protocol
of ``dpdk-telemetry.py``): what ``python -m devtcp clients`` prints.

The server prints its socket at start-up (``devtcp-server: telemetry:
dpdk-telemetry.py -f PREFIX (socket PATH; ...)``); DPDK puts it at
``/var/run/dpdk/PREFIX/dpdk_telemetry.v2`` (``--file-prefix PREFIX``; the
default prefix, also of ``--in-memory`` servers, is ``rte``).
"""
from __future__ import annotations

import json
import os
import socket
from typing import Any, Dict, List

#: The ingest consumer's telemetry command (devtcp-server).
INGEST_CMD = "/devtcp/ingest"


def socket_path(prefix: str) -> str:
    """The telemetry socket of the DPDK process started with
    ``--file-prefix prefix`` (the first instance)."""
    for run in ("/var/run/dpdk", "/run/dpdk"):
        path = os.path.join(run, prefix, "dpdk_telemetry.v2")
        if os.path.exists(path):
            return path
    return os.path.join("/var/run/dpdk", prefix, "dpdk_telemetry.v2")


def query(path: str, cmd: str, timeout: float = 5.0) -> Any:
    """Send one command on the telemetry socket at ``path``; its reply.

    Raises OSError when the socket is missing or the server does not
    answer, ValueError when the reply is not JSON for ``cmd``.
    """
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(timeout)
    try:
        s.connect(path)
        s.recv(16384)                      # the greeting: version, pid
        s.send(cmd.encode())
        reply = json.loads(s.recv(1 << 20).decode())
    finally:
        s.close()
    if not isinstance(reply, dict) or cmd not in reply:
        raise ValueError("no answer to %s: %r" % (cmd, reply))
    return reply[cmd]


COLUMNS = (("id", "id"), ("name", "name"), ("state", "state"),
           ("pid", "pid"), ("uid", "uid"), ("port", "port"),
           ("streams", "streams"), ("total", "streams_total"),
           ("quota", "quota_per_stack"), ("held", "held_chunks"),
           ("bad_tokens", "bad_tokens"))


def clients_table(ingest: Dict[str, Any]) -> List[str]:
    """Lines of a table of the attached clients in a ``/devtcp/ingest``
    reply, then one line of the server's attach/refusal counters."""
    rows = []
    for key, c in sorted(ingest.items()):
        if key.startswith("client") and isinstance(c, dict):
            c = dict(c, id=key[len("client"):])
            rows.append([str(c.get(f, "")) for _, f in COLUMNS])
    head = [h for h, _ in COLUMNS]
    width = [max([len(h)] + [len(r[i]) for r in rows])
             for i, h in enumerate(head)]
    fmt = "  ".join("%%-%ds" % w for w in width)
    lines = [fmt % tuple(head)] + [fmt % tuple(r) for r in rows]
    if not rows:
        lines.append("(no client attached)")
    refused = sum(int(v) for k, v in ingest.items() if k.startswith("refused_"))
    lines.append("socket %s: %s attached, %s detached, %s died, %d refused" % (
        ingest.get("socket", "?"), ingest.get("attached", 0),
        ingest.get("detached", 0), ingest.get("died", 0), refused))
    return lines
