#!/usr/bin/env python3
"""devtcp against unmodified Linux TCP peers over a veth pair.

usage: interop.py SERVER SEND NETNS_SH CASE [CASE ...]
       interop.py SERVER SEND NETNS_SH --list

A test host (network namespace with one end of a veth, scripts/netns.sh)
runs Linux tools (socat, the kernel's TCP); devtcp-server or devtcp-send
owns the other end through net_hsplit's iface= backend. Every case:
  - checks the bytes end to end with SHA-256 (devtcp-server's verify
    consumer hashes each stream through the payload region's CPU alias;
    devtcp-send logs the hash of what it sent; sha256sum on the Linux side);
  - captures the veth in the namespace (tcpdump, whole frames) and fails
    when tshark finds a malformed frame, a bad IPv4 or TCP checksum or an
    expert error in what devtcp sent (10.78.0.1), except where the case
    corrupts devtcp's frames on purpose;
  - prints goodput (bytes / seconds of the transfer, wall clock).
Faults: net_hsplit's devargs inject them per frame, on frames devtcp sends
(loss=, dup=, reorder=, corrupt=) and on frames it receives from the
interface (rx_loss=, rx_dup=, rx_reorder=, rx_corrupt=), so both directions
of every connection see them. kernel_loss uses nftables in the namespace
instead (numgen random), independent of the NIC. netem cases run only where
the kernel has sch_netem (skip, exit 77, with the reason otherwise).
DT_INTEROP_CAPS=full|mlx5|ice in the environment: net_hsplit's capability
profile (caps= devarg) for devtcp's port, so the cases run against what
mlx5 or ice report for buffer split; on mlx5 the server must say that it
falls back from split = proto to a length split.
Every exit path (failure, exception, SIGTERM from meson's timeout) kills the
process groups the test started and removes the namespace. Exit 77 (skip)
when not root or when namespaces, veth, socat, tcpdump or tshark are missing.

This file holds the command line and the table of cases; the rest lives in
modules next to it, one concern each:
  interop_harness.py     arguments, processes, the namespace, nftables;
  interop_capture.py     tcpdump captures and tshark's judging of them;
  interop_transfer.py    one transfer against socat: rx_case(), tx_case();
  interop_cases_data.py  plain transfers, GRO, MTU mismatch, offloads;
  interop_cases_fault.py loss, duplication, corruption, reordering, delay,
                         the Linux settings matrix;
  interop_cases_conn.py  close, RST either way, keepalive;
  interop_cases_iperf3.py iperf3 against devtcp-server's consumer.
"""
import os
import shutil
import signal
import sys

from interop_harness import (CASES_ARGS, MIB, SEND, SERVER, TMP, check,
                             cleanup, failed, log, on_term, preflight,
                             results)
from interop_cases_data import (case_mtu_mismatch, case_offloads, case_rx_1,
                                case_rx_8, case_rx_gro, case_tx_device,
                                case_tx_host)
from interop_cases_fault import (FAULTS, MATRIX, case_fault_corrupt,
                                 case_kernel_loss, case_netem_delay,
                                 case_nosack_loss_1, delay_case, fault_case,
                                 matrix_case)
from interop_cases_conn import (case_close, case_keepalive, case_rst_devtcp,
                                case_rst_linux)
from interop_cases_iperf3 import case_iperf3_reverse, iperf3_case


CASES = {
    "iperf3_1": lambda: iperf3_case("iperf3_1", 1),
    "iperf3_8": lambda: iperf3_case("iperf3_8", 8),
    "iperf3_reverse": case_iperf3_reverse,
    "rx_1": case_rx_1,
    "rx_gro": case_rx_gro,
    "rx_8": case_rx_8,
    "tx_host": case_tx_host,
    "tx_device": case_tx_device,
    "kernel_loss": case_kernel_loss,
    "nosack_loss_1": case_nosack_loss_1,
    "netem_delay": case_netem_delay,
    "close": case_close,
    "rst_linux": case_rst_linux,
    "rst_devtcp": case_rst_devtcp,
    "keepalive": case_keepalive,
    "mtu_mismatch": case_mtu_mismatch,
    "offloads": case_offloads,
    "delay_1ms": lambda: delay_case(1, 8),
    "delay_20ms": lambda: delay_case(20, 4),
}
for _n in FAULTS:
    CASES["fault_" + _n] = (lambda n: lambda: fault_case(n))(_n)
CASES["fault_corrupt_0.1"] = case_fault_corrupt
for _n in MATRIX:
    CASES["linux_" + _n] = (lambda n: lambda: matrix_case(n))(_n)


def usage_error():
    """Return 0 (--list), 2 (a bad case or program) or None (run)."""
    if CASES_ARGS == ["--list"]:
        print("\n".join(CASES))
        return 0
    bad = [c for c in CASES_ARGS if c not in CASES]
    if bad or not CASES_ARGS:
        print("unknown case(s) %s; known: %s" % (bad, ", ".join(CASES)))
        return 2
    for x in (SERVER, SEND):
        if not os.access(x, os.X_OK):
            print("not executable: " + x)
            return 2
    return None


def main():
    rc = 2
    try:
        rc = usage_error()
    finally:
        if rc is not None:
            # The harness made its scratch folder on import; nothing ran.
            shutil.rmtree(TMP, ignore_errors=True)
    if rc is not None:
        return rc
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    try:
        preflight()
        for c in CASES_ARGS:
            log("=== %s" % c)
            CASES[c]()
    except RuntimeError as e:
        check(False, "error: %s" % e)
    finally:
        cleanup()
    for case, nbytes, secs, mbps in results:
        log("summary goodput %-32s %8.0f Mb/s (%.1f MiB, %.2f s)" %
            (case, mbps, nbytes / MIB, secs))
    log("%d check(s) failed" % len(failed) if failed else "all checks passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
