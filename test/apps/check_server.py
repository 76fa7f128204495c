#!/usr/bin/env python3
"""devtcp-server and devtcp-send through their real command line.

usage: check_server.py SERVER SEND CONFIG_DIR CASE

Cases:
  sigterm    good config: starts, reports placement, answers telemetry
             (/devtcp/stats, /devtcp/devmem), exits 0 on SIGTERM in time
  loopback   server + [client] in one process over the loopback wire: the
             stream is verified (pattern) and both SHA-256 digests agree
  send       devtcp-send alone (nobody listens): exits non-zero, says so
  bad        each bad config fails with its promised message on stderr
  nosplit    a NIC without buffer split (net_null) runs in copy mode:
             the warning, the start-up line, /devtcp/ports
  ring       [consumer] mode = ring with the [client] sender: every byte
             reaches the consumer lcore and every chunk comes back
             (/devtcp/stats ring counters, /devtcp/devmem free_buffers)
  file       [client] file = FILE: the server's SHA-256 is the file's
  conns      /devtcp/conns while a stream runs: both ends, their fields
  device     --send-device: the pattern, then a file, sent from device
             memory; verified by the server (pattern, SHA-256)
"""
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
import dtcheck  # noqa: E402

server, send, config_dir, case = sys.argv[1:5]
pid = os.getpid()
CK = dtcheck.Checker()
check = CK.check
failed = CK.failures
EAL = ["-l", "0-1", "--no-pci", "--log-level=lib.eal:warning"]


def vdevs(tag, gpu=True):
    v = ["--vdev=net_hsplit_%s0,wire=%s%d" % (tag, tag, pid),
         "--vdev=net_hsplit_%s1,wire=%s%d" % (tag, tag, pid)]
    return v + (["--vdev=gpu_sim_%s,size=64M" % tag] if gpu else [])


def write_ini(text):
    fd, path = tempfile.mkstemp(suffix=".ini")
    os.write(fd, text.encode())
    os.close(fd)
    return path


def ports_ini(tag):
    return ("[port.0]\nname = net_hsplit_%s0\n[port.1]\nname = net_hsplit_%s1\n"
            "split = none\n[devmem]\nbuffers = 4096\nheader_buffers = 4096\n"
            % (tag, tag))


def wait_for(proc, out_path, text, timeout):
    end = time.time() + timeout
    while time.time() < end:
        if text in open(out_path).read():
            return True
        if proc.poll() is not None:
            return False
        time.sleep(0.1)
    return False


def telemetry(prefix, cmd):
    p = subprocess.run(["python3", "/usr/bin/dpdk-telemetry.py", "-f", prefix],
                       input=cmd + "\n", capture_output=True, text=True,
                       timeout=20)
    return p.stdout


def proc_info(prefix):
    """Debian's dpdk-proc-info as a secondary process of the server.

    It loads our NIC as a plugin (a bare name found through LD_LIBRARY_PATH,
    from /, since EAL refuses plugin paths under world-writable folders).
    """
    build = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(server))))
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(
        build, "drivers", "net", "hsplit"))
    p = subprocess.run(["dpdk-proc-info", "--file-prefix", prefix, "--no-pci",
                        "--log-level=lib.eal:warning",
                        "-d", "librte_net_hsplit.so", "--", "--stats"],
                       capture_output=True, text=True, timeout=30, cwd="/",
                       env=env)
    print(p.stdout[:400] + p.stderr[-400:])
    return p.stdout


def case_sigterm():
    prefix = "dtsrv%d" % pid
    ini = write_ini(ports_ini("st") + "[stack]\nipv4 = 10.0.0.1\nlisten = 5001\n"
                    "[consumer]\nmode = discard\n")
    out = tempfile.NamedTemporaryFile(delete=False).name
    with open(out, "w") as f:
        p = subprocess.Popen([server] + EAL + ["--file-prefix", prefix] +
                             vdevs("st") + ["--", "--config", ini],
                             stdout=f, stderr=subprocess.STDOUT)
    up = wait_for(p, out, "running", 30)
    check(up, "server starts and says it is running")
    text = open(out).read()
    check("placement:" in text and "gpu 0 (gpu_sim_st): NUMA node" in text and
          "stack 0: lcore 1" in text, "placement report: port, GPU node, lcores")
    # Both ports' wire pools, one merged page range the GPU accepted.
    check(re.search(r"copy engine: [1-9]\d* host ranges? \([1-9]\d* KiB, the NIC's "
                    r"wire pools\) registered with gpu 0\n", text) is not None,
          "wire pools registered with the GPU, none refused")
    check("memory from gpu_sim; NIC path: no verbs device for port" in text,
          "placement report: the region's provider and the NIC registration check")
    if up and os.path.exists("/usr/bin/dpdk-telemetry.py"):
        t = telemetry(prefix, "/devtcp/stats")
        check('"rx_frames"' in t and '"consumer": "discard"' in t,
              "telemetry /devtcp/stats answers")
        t = telemetry(prefix, "/devtcp/devmem")
        check('"device": "gpu_sim_st"' in t and '"free_buffers"' in t,
              "telemetry /devtcp/devmem answers")
    if up and os.path.exists("/usr/bin/dpdk-proc-info"):
        t = proc_info(prefix)
        check("NIC statistics for port 0" in t and
              "NIC statistics for port 1" in t,
              "dpdk-proc-info (secondary process) reads both ports' stats")
    start = time.time()
    p.send_signal(signal.SIGTERM)
    try:
        rc = p.wait(timeout=15)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = -1
    text = open(out).read()
    print(text)
    check(rc == 0, "exit status 0 on SIGTERM (got %d, %.1f s)" %
          (rc, time.time() - start))
    check("device memory freed" in text and "stopped cleanly" in text,
          "device memory freed, clean stop")
    check("registrations still held" not in text and
          "cannot unregister" not in text, "registrations undone at exit")
    os.unlink(ini)
    os.unlink(out)


def case_loopback():
    ini = write_ini(ports_ini("lb") + "[stack]\nipv4 = 10.0.0.1\nlisten = 5001\n"
                    "[consumer]\nmode = verify\npattern = stream\nsha256 = yes\n"
                    "[client]\nport = 1\nipv4 = 10.0.0.2\n"
                    "connect = 10.0.0.1:5001\nbytes = 3M\nchunk = 16K\n")
    p = subprocess.run([server] + EAL + ["--in-memory"] + vdevs("lb") +
                       ["--", "--config", ini, "--duration", "4"],
                       capture_output=True, text=True, timeout=60)
    text = p.stdout + p.stderr
    print(text)
    check(p.returncode == 0, "exit status 0 (got %d)" % p.returncode)
    rx = re.search(r"closed: (\d+) bytes, pattern ok, sha256 ([0-9a-f]{64})", text)
    tx = re.search(r"sender: stream \w+ done: (\d+) of \d+ bytes acknowledged, "
                   r"sha256 ([0-9a-f]{64})", text)
    check(rx is not None and rx.group(1) == str(3 << 20),
          "server verified 3 MiB against the pattern")
    check(tx is not None and rx is not None and tx.group(2) == rx.group(2),
          "sender's and server's SHA-256 agree")
    os.unlink(ini)


def case_sample_loopback():
    """config/loopback.ini as shipped: server and sender in one process."""
    p = subprocess.run([server, "-l", "0-1", "--in-memory", "--no-pci",
                        "--log-level=lib.eal:warning",
                        "--vdev=net_hsplit0,wire=lo", "--vdev=net_hsplit1,wire=lo",
                        "--vdev=gpu_sim0,size=256M", "--", "--config",
                        os.path.join(config_dir, "loopback.ini"), "--duration", "15"],
                       capture_output=True, text=True, timeout=90)
    text = p.stdout + p.stderr
    print(text[-3000:])
    check(p.returncode == 0, "config/loopback.ini: exit status 0 (got %d)"
          % p.returncode)
    n = len(re.findall(r"closed: 16777216 bytes, pattern ok", text))
    check(n == 4, "config/loopback.ini: 4 x 16 MiB verified (%d)" % n)


def case_send_why():
    """devtcp-send says why nothing was sent: no ARP reply (within seconds,
    as Linux's connect() gives up, not after two minutes of SYN retries), or
    refused."""
    t0 = time.monotonic()
    p = subprocess.run([send, "-l", "0-1", "--in-memory", "--no-pci",
                        "--log-level=lib.eal:warning", "--vdev=net_hsplit_nw0,wire=nw",
                        "--vdev=net_hsplit_nw1,wire=nw", "--", "--config",
                        write_ini("[port]\nsplit = none\n[port.1]\nname = net_hsplit_nw1\n"
                                  "[client]\nport = 1\nipv4 = 10.0.0.2\n"
                                  "netmask = 255.255.255.0\nconnect = 10.0.0.1:5001\n"
                                  "bytes = 1M\n"), "--duration", "60"],
                       capture_output=True, text=True, timeout=90)
    took = time.monotonic() - t0
    text = p.stdout + p.stderr
    print(text[-2000:])
    check(p.returncode != 0 and "no ARP reply from 10.0.0.1" in text,
          "devtcp-send with nobody on the wire: 'no ARP reply from 10.0.0.1'")
    check(took < 15, "devtcp-send gives up on ARP within 15 s (took %.1f s)"
          % took)
    ini = write_ini(ports_ini("rf") + "[stack]\nipv4 = 10.0.0.1\nlisten = 5001\n"
                    "[consumer]\nmode = discard\n"
                    "[client]\nport = 1\nipv4 = 10.0.0.2\n"
                    "connect = 10.0.0.1:5999\nbytes = 1M\n")
    p = subprocess.run([server] + EAL + ["--in-memory"] + vdevs("rf") +
                       ["--", "--config", ini, "--duration", "4"],
                       capture_output=True, text=True, timeout=60)
    text = p.stdout + p.stderr
    print(text[-2000:])
    check("10.0.0.1:5999 refused the connection" in text,
          "a sender to a port nobody listens on says it was refused")


def case_send():
    ini = write_ini(ports_ini("sd") + "[client]\nport = 1\nipv4 = 10.0.0.2\n"
                    "connect = 10.0.0.1:5001\nbytes = 1M\n")
    p = subprocess.run([send] + EAL + ["--in-memory"] + vdevs("sd", gpu=False) +
                       ["--", "--config", ini, "--duration", "10"],
                       capture_output=True, text=True, timeout=60)
    text = p.stdout + p.stderr
    print(text)
    check(p.returncode == 1 and "FAILED" in text and
          "0 of 1 stream(s) sent completely" in text,
          "devtcp-send fails and says so when nobody accepts")
    os.unlink(ini)


BAD = [
    ("[stack]\nipv4 = 10.0.0.1\nlisten = 5001\n[devmem]\nbuffers = lots\n",
     ":5: [devmem] buffers: expected a positive integer, got 'lots'"),
    ("[stack]\nipv4 = 10.0.0.1\nlisten = 5001\n[gpus]\n",
     ":4: unknown section [gpus]"),
    ("[stack]\nipv4 = 10.0.0.1\nlisten = 5001\nport_no = 1\n",
     ":4: [stack] unknown key 'port_no'"),
    ("[stack]\nlisten = 5001\n", ":1: [stack] ipv4: missing"),
]


def case_bad():
    for text, msg in BAD:
        ini = write_ini(text)
        p = subprocess.run([server, "--", "--config", ini], capture_output=True,
                           text=True, timeout=30)
        check(p.returncode != 0 and (ini + msg) in p.stderr,
              "refused with '%s' (rc %d, stderr %r)" % (msg, p.returncode,
                                                       p.stderr.strip()))
        os.unlink(ini)
    p = subprocess.run([server, "--", "--config", "/nonexistent.ini"],
                       capture_output=True, text=True, timeout=30)
    check(p.returncode != 0 and "/nonexistent.ini: cannot open" in p.stderr,
          "missing file named")
    p = subprocess.run([server, "--", "--bogus"], capture_output=True,
                       text=True, timeout=30)
    check(p.returncode != 0 and "--help" in p.stderr, "bad option points at --help")
    p = subprocess.run([server, "--", "--help"], capture_output=True, text=True,
                       timeout=30)
    check(p.returncode == 0 and "--config FILE" in p.stdout, "--help")
    p = subprocess.run([server, "--", "--config",
                        os.path.join(config_dir, "server.ini"), "--check"],
                       capture_output=True, text=True, timeout=30)
    check(p.returncode == 0 and "is valid" in p.stdout, "--check of the sample")


def case_nosplit():
    prefix = "dtns%d" % pid
    ini = write_ini("[port.0]\nname = net_null_ns%d\n[stack]\nipv4 = 10.0.0.1\n"
                    "listen = 5001\n[devmem]\nbuffers = 1024\n"
                    "header_buffers = 1024\n" % pid)
    out = tempfile.NamedTemporaryFile(delete=False).name
    with open(out, "w") as f:
        p = subprocess.Popen([server] + EAL + ["--file-prefix", prefix,
                             "--vdev=net_null_ns%d" % pid, "--vdev=gpu_sim_ns,size=64M",
                             "--", "--config", ini], stdout=f, stderr=subprocess.STDOUT)
    up = wait_for(p, out, "running", 30)
    text = open(out).read()
    if "no such port" in text:
        print("SKIP: net_null driver not available")
        p.kill()
        sys.exit(77)
    tel = telemetry(prefix, "/devtcp/ports") if up else ""
    p.send_signal(signal.SIGTERM)
    rc = p.wait(timeout=30)
    text = open(out).read()
    print(text[-2000:] + tel)
    # A NIC without buffer split runs in copy mode, and says so.
    check(up, "started on a NIC without buffer split")
    check("has no RX buffer split: copy mode" in text,
          "dt_dp_port_start's warning says copy mode")
    check(re.search(r"devtcp: port 0 \(receiver\): rx=copy .*\(net_null\)", text)
          is not None, "the start-up report says rx=copy")
    check('"receiver": "rx=copy' in tel, "telemetry /devtcp/ports says rx=copy")
    check(rc == 0, "stopped cleanly (rc %d)" % rc)
    os.unlink(ini)
    os.unlink(out)


LB_SERVER = "[stack]\nipv4 = 10.0.0.1\nlisten = 5001\n"
LB_CLIENT = ("[client]\nport = 1\nipv4 = 10.0.0.2\n"
             "connect = 10.0.0.1:5001\nchunk = 16K\n")


def telemetry_json(prefix, cmd):
    """One command's answer, parsed (None if there is none)."""
    for line in telemetry(prefix, cmd).splitlines():
        line = line.strip()
        if line.startswith("{") and cmd in line:
            try:
                return json.loads(line)[cmd]
            except (ValueError, KeyError):
                return None
    return None


def start_server(prefix, tag, ini, extra):
    """The server in the background (telemetry needs a --file-prefix)."""
    out = tempfile.NamedTemporaryFile(delete=False).name
    with open(out, "w") as f:
        p = subprocess.Popen([server] + EAL + ["--file-prefix", prefix] +
                             vdevs(tag) + ["--", "--config", ini] + extra,
                             stdout=f, stderr=subprocess.STDOUT)
    return p, out


def finish_server(p, out, timeout=30):
    try:
        rc = p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = p.wait()
    text = open(out).read()
    print(text)
    os.unlink(out)
    check(rc == 0, "exit status 0 (got %d)" % rc)
    check("device memory freed" in text and "stopped cleanly" in text,
          "device memory freed, clean stop")
    return text


def case_ring():
    size = 3 << 20
    prefix = "dtrg%d" % pid
    ini = write_ini(ports_ini("rg") + LB_SERVER +
                    "[consumer]\nmode = ring\nring_size = 1024\n" +
                    LB_CLIENT + "bytes = 3M\n")
    p, out = start_server(prefix, "rg", ini, ["--duration", "8"])
    closed = wait_for(p, out, "closed: ", 20)
    check(closed, "the server's stream closes")
    st = dm = None
    if closed and os.path.exists("/usr/bin/dpdk-telemetry.py"):
        time.sleep(0.5)  # a snapshot after the close (every 100 ms)
        st = telemetry_json(prefix, "/devtcp/stats")
        dm = telemetry_json(prefix, "/devtcp/devmem")
        print(st, dm)
    text = finish_server(p, out)
    rx = re.search(r"stack 0: stream \w+ closed: (\d+) bytes in ([0-9.]+) s "
                   r"\(([0-9.]+) Gb/s\)\n", text)
    tx = re.search(r"sender: stream \w+ done: (\d+) of \d+ bytes acknowledged",
                   text)
    check(rx is not None and rx.group(1) == str(size),
          "ring consumer's stream: %d bytes" % size)
    check(rx is not None and float(rx.group(2)) > 0 and float(rx.group(3)) > 0,
          "the closed stream's log line has its duration and rate")
    check(re.search(r"stack 0: connection \w+ from 10\.0\.0\.2:\d+ accepted "
                    r"on port 5001", text) is not None,
          "the accepted connection's log line has the peer's address")
    check(tx is not None and tx.group(1) == str(size), "sender: all acknowledged")
    if st is not None:
        check(st.get("consumer") == "ring", "telemetry: consumer ring")
        check(st.get("bytes") == size and st.get("device_bytes") == size,
              "telemetry: consumer bytes %s, device_bytes %s == %d" %
              (st.get("bytes"), st.get("device_bytes"), size))
        check(st.get("sender_bytes_acked") == size and
              st.get("sender_streams_ok") == 1,
              "telemetry: the sender's counters apart (acked %s)" %
              st.get("sender_bytes_acked"))
        check(st.get("synacks_sent") == 1 and st.get("synacks_rtx") == 0 and
              st.get("syncookies_sent") == 0 and st.get("synq_overflows") == 0,
              "telemetry: SYN queue counters (synacks_sent %s, rtx %s, "
              "cookies %s, overflows %s)" % (st.get("synacks_sent"),
                                             st.get("synacks_rtx"),
                                             st.get("syncookies_sent"),
                                             st.get("synq_overflows")))
        check(st.get("chunks", 0) > 0 and st.get("ring_done", 0) > 0 and
              st.get("ring_done", 0) + st.get("ring_full", 0) ==
              st.get("chunks"),
              "telemetry: every chunk came back (ring_done %s + ring_full %s"
              " == chunks %s)" % (st.get("ring_done"), st.get("ring_full"),
                                  st.get("chunks")))
    if dm is not None:
        check(dm.get("buffers") == 4096 and dm.get("free_buffers") == 4096 and
              dm.get("held_buffers") == 0,
              "telemetry: all %s device buffers free after the close "
              "(free %s, held %s)" % (dm.get("buffers"),
                                     dm.get("free_buffers"),
                                     dm.get("held_buffers")))
    elif closed:
        check(False, "telemetry answers /devtcp/stats and /devtcp/devmem")
    os.unlink(ini)


def random_file(size):
    fd, path = tempfile.mkstemp(suffix=".bin")
    data = os.urandom(size)
    os.write(fd, data)
    os.close(fd)
    return path, hashlib.sha256(data).hexdigest()


def run_file(tag, path, extra):
    ini = write_ini(ports_ini(tag) + LB_SERVER +
                    "[consumer]\nmode = verify\npattern = none\nsha256 = yes\n" +
                    LB_CLIENT + "file = %s\n" % path)
    p = subprocess.run([server] + EAL + ["--in-memory"] + vdevs(tag) +
                       ["--", "--config", ini, "--duration", "4"] + extra,
                       capture_output=True, text=True, timeout=60)
    text = p.stdout + p.stderr
    print(text)
    os.unlink(ini)
    check(p.returncode == 0, "exit status 0 (got %d)" % p.returncode)
    return text


def check_file_digests(text, size, digest):
    rx = re.search(r"closed: (\d+) bytes, sha256 ([0-9a-f]{64})", text)
    tx = re.search(r"sender: stream \w+ done: (\d+) of (\d+) bytes "
                   r"acknowledged, sha256 ([0-9a-f]{64})", text)
    check(rx is not None and rx.group(1) == str(size),
          "server received the whole file (%d bytes)" % size)
    check(rx is not None and rx.group(2) == digest,
          "server's SHA-256 is the file's (%s)" % digest)
    check(tx is not None and tx.group(1) == tx.group(2) == str(size) and
          tx.group(3) == digest, "sender sent the whole file, same SHA-256")


def case_file():
    size = 1000003  # not a multiple of the chunk nor of the MSS
    path, digest = random_file(size)
    text = run_file("fl", path, [])
    check_file_digests(text, size, digest)
    os.unlink(path)


def case_conns():
    prefix = "dtcn%d" % pid
    ini = write_ini(ports_ini("cn") + LB_SERVER + "[consumer]\nmode = discard\n" +
                    LB_CLIENT + "bytes = 1000G\n")
    p, out = start_server(prefix, "cn", ini, ["--duration", "8"])
    up = wait_for(p, out, "accepted on port 5001", 20)
    check(up, "the sender's connection is accepted")
    snaps = []
    end = time.time() + 5
    while up and len(snaps) < 2 and time.time() < end:
        c = telemetry_json(prefix, "/devtcp/conns")
        srv = [v for v in (c or {}).values()
               if v.get("local") == "10.0.0.1:5001"]
        if srv and srv[0].get("rx_bytes", 0) > 0:
            snaps.append(c)
        time.sleep(0.3)
    finish_server(p, out)
    check(len(snaps) == 2, "/devtcp/conns shows the open connection twice")
    if len(snaps) == 2:
        print(json.dumps(snaps, indent=1))
        ends = []
        for c in snaps:
            srv = [v for v in c.values() if v.get("local") == "10.0.0.1:5001"]
            cli = [v for v in c.values() if v.get("remote") == "10.0.0.1:5001"]
            ends.append((srv, cli))
        srv, cli = ends[0]
        check(len(srv) == 1 and len(cli) == 1,
              "one server end and one sender end")
        if len(srv) == 1 and len(cli) == 1:
            s, c = srv[0], cli[0]
            check(s["state"] == "ESTABLISHED" and c["state"] == "ESTABLISHED",
                  "both ends ESTABLISHED")
            check(s["remote"] == c["local"] and
                  c["local"].startswith("10.0.0.2:"),
                  "addresses match (%s <-> %s)" % (s["remote"], c["local"]))
            check(s["rx_bytes"] > 0 and s["rx_device_bytes"] == s["rx_bytes"]
                  and s["rx_host_bytes"] == 0,
                  "server end: payload received into device memory")
            check(c["tx_bytes"] > 0 and c["rx_bytes"] == 0 and
                  s["tx_bytes"] == 0, "sender end sends, server end does not")
            check(all(k in s for k in ("retransmits", "held_bytes", "rcv_wnd",
                                       "snd_wnd", "cwnd", "srtt_us")) and
                  s["rcv_wnd"] > 0 and c["snd_wnd"] > 0 and c["cwnd"] > 0,
                  "window fields present and sane")
            s2 = ends[1][0]
            check(len(s2) == 1 and s2[0]["rx_bytes"] > s["rx_bytes"],
                  "rx_bytes grows between two queries")
    os.unlink(ini)


def case_device():
    # The pattern, staged in device memory, checked byte by byte.
    ini = write_ini(ports_ini("dv") + LB_SERVER +
                    "[consumer]\nmode = verify\npattern = stream\nsha256 = yes\n" +
                    LB_CLIENT + "bytes = 3M\n")
    p = subprocess.run([server] + EAL + ["--in-memory"] + vdevs("dv") +
                       ["--", "--config", ini, "--duration", "4",
                        "--send-device"],
                       capture_output=True, text=True, timeout=60)
    text = p.stdout + p.stderr
    print(text)
    os.unlink(ini)
    check(p.returncode == 0, "exit status 0 (got %d)" % p.returncode)
    check("sender: 3145728 bytes staged in device memory" in text,
          "pattern staged in device memory")
    rx = re.search(r"closed: (\d+) bytes, pattern ok, sha256 ([0-9a-f]{64})",
                   text)
    tx = re.search(r"sender: stream \w+ done: (\d+) of \d+ bytes acknowledged, "
                   r"sha256 ([0-9a-f]{64})", text)
    check(rx is not None and rx.group(1) == str(3 << 20),
          "server verified 3 MiB sent from device memory against the pattern")
    check(tx is not None and rx is not None and tx.group(2) == rx.group(2),
          "sender's and server's SHA-256 agree")
    # A file, staged in device memory.
    size = 777777
    path, digest = random_file(size)
    text = run_file("dv", path, ["--send-device"])
    check("sender: %d bytes staged in device memory" % size in text,
          "file staged in device memory")
    check_file_digests(text, size, digest)
    os.unlink(path)


{"sigterm": case_sigterm, "loopback": case_loopback, "sample_loopback": case_sample_loopback, "send_why": case_send_why, "send": case_send,
 "bad": case_bad, "nosplit": case_nosplit, "ring": case_ring,
 "file": case_file, "conns": case_conns, "device": case_device}[case]()
sys.exit(1 if failed else 0)
