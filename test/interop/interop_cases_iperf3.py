"""Unmodified iperf3 clients against devtcp-server's iperf3 consumer: one
and eight streams sending, the reverse direction, and a second client
refused while a test runs.
"""
import json
import os
import re
import shutil
import subprocess
import time

from interop_capture import Capture
from interop_harness import (DEV_IP, TMP, check, kill, log, sh, skip, spawn,
                             text_of, wait_until)
from interop_transfer import goodput, start_server, stop


IPERF3_INI = """[port]
mtu = 1500
split = proto
tx_cksum = yes
[port.0]
name = net_hsplit_io
[stack]
port = 0
ipv4 = {dev}
netmask = 255.255.255.0
[devmem]
gpu = 0
buffers = 16384
buffer_size = 2048
header_buffers = 16384
[limits]
window = 2M
{extra}
[consumer]
mode = iperf3
"""


def iperf3_tests(p):
    """{test number: (streams, bytes)} of the tests devtcp-server logged
    (bytes received, or sent in reverse mode)."""
    return {int(n): (int(s), int(b)) for n, s, b in re.findall(
        r"iperf3: test (\d+) done: (\d+) stream\(s\), (\d+) bytes "
        r"(?:received|sent)", text_of(p))}


def iperf3_client(tag, args, timeout=30):
    """iperf3 -c in the namespace with -J; returns (rc, parsed JSON or {})."""
    out = os.path.join(TMP, tag + ".json")
    p = spawn(["iperf3", "-c", DEV_IP, "-J"] + args, ns=True, out=out)
    try:
        rc = p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill(p)
        rc = -9
    try:
        with open(out) as f:
            j = json.load(f)
    except (OSError, ValueError):
        j = {}
    return rc, j


def iperf3_case(case, streams):
    """Unmodified iperf3 -c (TCP, client sending) against devtcp-server's
    iperf3 consumer: the client finishes the test (exit 0) and reports, as
    bytes received, what devtcp-server counted. With one stream, a second
    client that connects during the test is refused (ACCESS_DENIED) and the
    server runs the next test afterwards."""
    if shutil.which("iperf3") is None:
        skip("iperf3 not installed (scripts/setup.sh installs it)")
    cap = Capture(case)
    srv = start_server(case, template=IPERF3_INI)
    par = ["-P", str(streams)] if streams > 1 else []
    t0 = time.time()
    busy = None
    if streams == 1:
        first = spawn(["iperf3", "-c", DEV_IP, "-J", "-t", "3"], ns=True,
                      out=os.path.join(TMP, case + ".json"))
        time.sleep(1.5)
        busy = sh(["iperf3", "-c", DEV_IP, "-t", "1"], ns=True,
                  check_rc=False, timeout=20)
        try:
            rc = first.wait(timeout=30)
        except subprocess.TimeoutExpired:
            kill(first)
            rc = -9
        try:
            with open(first.out_path) as f:
                j = json.load(f)
        except (OSError, ValueError):
            j = {}
    else:
        rc, j = iperf3_client(case, ["-t", "3"] + par)
    secs = time.time() - t0
    again = iperf3_client(case + "_next", ["-t", "1"] + par) if streams == 1 else None
    wait_until(lambda: len(iperf3_tests(srv)) >= (2 if again else 1), 5)
    srv_rc = stop(srv)
    cap.stop()
    log(text_of(srv))
    check(rc == 0, "%s: iperf3 -c -P %d exit status 0 (rc %d%s)" % (
        case, streams, rc, ", " + j["error"] if "error" in j else ""))
    end = j.get("end", {})
    got = end.get("sum_received", {}).get("bytes", 0)
    sent = end.get("sum_sent", {}).get("bytes", 0)
    tests = iperf3_tests(srv)
    check(got > 0, "%s: iperf3 reports %d bytes received (%d sent)" %
          (case, got, sent))
    check(tests.get(1) == (streams, got), "%s: devtcp-server counted the "
          "bytes iperf3 reports received, over %d stream(s) (server: %s)" %
          (case, streams, tests.get(1)))
    check(len(end.get("streams", [])) == streams,
          "%s: iperf3 shows %d stream(s)" % (case, streams))
    if busy is not None:
        check(busy.returncode != 0 and "busy" in busy.stderr,
              "%s: a second client during the test is refused with "
              "ACCESS_DENIED (%s)" % (case, busy.stderr.strip()[-60:]))
        arc, aj = again
        agot = aj.get("end", {}).get("sum_received", {}).get("bytes", 0)
        check(arc == 0 and agot > 0 and tests.get(2) == (streams, agot),
              "%s: the server stays up: next test ran (rc %d, %d bytes, "
              "server %s)" % (case, arc, agot, tests.get(2)))
    check(srv_rc == 0, "%s: devtcp-server stopped cleanly (rc %d)" %
          (case, srv_rc))
    goodput(case, got, secs)
    cap.judge(case)


def case_iperf3_reverse():
    """iperf3 -c -R -P 2: devtcp-server sends on the streams (by reference
    from a hugepage buffer); iperf3 reports, as bytes sent, what devtcp
    queued, and receives some."""
    if shutil.which("iperf3") is None:
        skip("iperf3 not installed (scripts/setup.sh installs it)")
    case = "iperf3_reverse"
    cap = Capture(case)
    srv = start_server(case, template=IPERF3_INI)
    t0 = time.time()
    rc, j = iperf3_client(case, ["-t", "2", "-R", "-P", "2"])
    secs = time.time() - t0
    wait_until(lambda: len(iperf3_tests(srv)) >= 1, 5)
    srv_rc = stop(srv)
    cap.stop()
    log(text_of(srv))
    end = j.get("end", {})
    got = end.get("sum_received", {}).get("bytes", 0)
    sent = end.get("sum_sent", {}).get("bytes", 0)
    check(rc == 0, "%s: iperf3 -c -R exit status 0 (rc %d%s)" % (
        case, rc, ", " + j["error"] if "error" in j else ""))
    check(got > 0 and iperf3_tests(srv).get(1) == (2, sent),
          "%s: iperf3 received %d bytes; sent %d = devtcp-server's count %s" %
          (case, got, sent, iperf3_tests(srv).get(1)))
    check(srv_rc == 0, "%s: devtcp-server stopped cleanly (rc %d)" %
          (case, srv_rc))
    goodput(case, got, secs)
    cap.judge(case)
