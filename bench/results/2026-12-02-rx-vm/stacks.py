#!/usr/bin/env python3
"""Classify perf script samples (with call chains) of the given pids by
what the stack says the time is for. usage: perf script -i DATA -F
pid,tid,comm,ip,sym | stacks.py PIDS  (PIDS: comma list)"""
import sys
from collections import Counter
pids = set(sys.argv[1].split(","))
cats = [  # first match wins, tested against the whole chain
    ("startup (page faults, clear_page)", ("clear_page", "exc_page_fault", "do_mmap", "rte_eal_init")),
    ("kernel: AF_PACKET copy into the RX ring (tpacket_rcv)", ("tpacket_rcv",)),
    ("kernel: root-ns IP stack on frames devtcp owns (ip_rcv: route, drop)", ("ip_rcv", "ip_list_rcv", "ip_sublist_rcv", "arp_rcv")),
    ("kernel: veth NAPI + GRO (coalescing)", ("veth_poll", "napi_gro_receive", "gro_receive_skb", "dev_gro_receive", "gro_receive")),
    ("kernel: sender's TCP ACK processing (tcp_v4_rcv in ns)", ("tcp_v4_rcv", "tcp_v4_do_rcv")),
    ("kernel: sender's TCP transmit (tcp_sendmsg, segmentation, veth)", ("tcp_sendmsg", "tcp_write_xmit", "skb_segment", "__tcp_transmit_skb")),
    ("kernel: veth / backlog / skb free, other rx", ("veth_xmit", "process_backlog", "__netif_receive_skb", "net_rx_action", "kfree_skb", "consume_skb", "skb_release")),
    ("kernel: AF_PACKET TX (devtcp's ACKs: send())", ("tpacket_snd", "packet_sendmsg", "__sys_sendto", "__libc_sendto")),
    ("net_hsplit: AF_PACKET ring drain + copy + csum", ("rx_drain", "rx_frame", "hsplit_rx_cksum", "csum_complete")),
    ("net_hsplit: split, copy engine, rx_burst", ("hsplit_rx_burst", "hsplit_split", "split_", "hsplit_copy", "cpu_submit", "dt_copy")),
    ("net_hsplit: TX", ("hsplit_iface_tx", "hsplit_tx")),
    ("net_hsplit: wire buffers, checksum (wbuf_free, raw_sum)", ("wbuf_free", "raw_sum")),
    ("gpu_sim copy engine (cpu_queue: the payload copy)", ("cpu_queue",)),
    ("lib/dp + lib/tcp", ("dt_dp", "dt_tcp", "tcp_", "gro_", "out_once", "dt_net")),
    ("sender userspace (python)", ("libpython", "_Py", "Py")),
    ("server polling loops (idle polls)", ("srv_stacks_run", "srv_consumer_lcore", "srv_ingest_poll", "stack_poll", "lcore_entry")),
    ("kernel: other syscall/sched", ("entry_SYSCALL", "schedule", "do_syscall")),
]
c = Counter(); tot = 0
cur = None; frames = []; comm = ""
BY = "--by-thread" in sys.argv
def flush():
    global tot
    if cur is None or cur not in pids:
        return
    tot += 1
    chain = " ".join(frames)
    who = ("[" + ("sender" if comm.startswith("python") else comm) + "] ") if BY else ""
    for name, keys in cats:
        if any(k in chain for k in keys):
            c[who + name] += 1; return
    c[who + "other: " + (frames[0] if frames else "?")] += 1
for line in sys.stdin:
    if not line.strip():
        flush(); cur = None; frames = []; continue
    if not line.startswith((" ", "\t")):
        parts = line.split()
        comm = parts[0]
        cur = parts[1] if len(parts) > 1 else None
        # comm pid/tid or comm pid tid
        for p in parts:
            if "/" in p and p.split("/")[0].isdigit():
                cur = p.split("/")[0]; break
            if p.isdigit():
                cur = p; break
        continue
    f = line.split()
    if len(f) >= 2:
        frames.append(f[1].split("+")[0])
flush()
others = sum(v for k, v in c.items() if k.startswith("other: "))
for k, v in c.most_common():
    if "other: " in k and v < tot * 0.01:
        continue
    print("%6.1f %%  %s" % (100.0 * v / tot, k))
print("%6.1f %%  other (each < 1 %%)" % (100.0 * sum(v for k, v in c.items() if "other: " in k and v < tot * 0.01) / tot))
print("samples %d" % tot)
# --per BYTES FRAMES HZ: each part as ns per frame and ns per KiB received.
if "--per" in sys.argv:
    i = sys.argv.index("--per")
    nb, nf, hz = (float(x) for x in sys.argv[i + 1:i + 4])
    print("\nper frame / per KiB (%d bytes in %d frames; 1 sample = %.0f us):" % (nb, nf, 1e6 / hz))
    for k, v in c.most_common():
        if "other: " in k and v < tot * 0.01:
            continue
        ns = v / hz * 1e9
        print("%8.0f ns/frame %7.1f ns/KiB  %s" % (ns / nf, ns / (nb / 1024), k))
    # Groups, all threads of the run together (polling and start-up left out).
    grp = {}
    for k, v in c.items():
        name = k.split("] ", 1)[-1]
        if name.startswith("kernel: other") or name.startswith(("startup", "server polling")):
            continue
        g = ("kernel (veth, softirq, AF_PACKET, IP, sender TCP)" if name.startswith("kernel") else
             "net_hsplit (drain, copy, csum, split)" if name.startswith("net_hsplit") else
             "copy engine (payload into device memory)" if name.startswith("gpu_sim") else
             "lib/dp + lib/tcp" if name.startswith("lib/dp") else
             "sender userspace" if name.startswith("sender") else "other devtcp")
        grp[g] = grp.get(g, 0) + v
    print("\ngroups (receive work, all threads; idle polls and start-up left out):")
    for g, v in sorted(grp.items(), key=lambda x: -x[1]):
        ns = v / hz * 1e9
        print("%8.0f ns/frame %7.1f ns/KiB  %s" % (ns / nf, ns / (nb / 1024), g))
    ns = sum(grp.values()) / hz * 1e9
    print("%8.0f ns/frame %7.1f ns/KiB  total" % (ns / nf, ns / (nb / 1024)))
