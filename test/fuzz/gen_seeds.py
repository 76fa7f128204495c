#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the seed corpora of the fuzz targets (test/fuzz/corpus/NAME/).

The seeds are committed; this script documents how they were made and
remakes them: python3 test/fuzz/gen_seeds.py
[net|tcp|dp|nccl_wire|ini|cli_flow|ingest ...]. Each seed
is a short scenario in the target's input encoding (see the comment at the
top of each fuzz_*.c): valid headers for fuzz_net, handshakes, transfers,
loss, SACK, close for fuzz_tcp, frames for fuzz_dp. None of them trips a
known engine bug (CI runs them; crashers live in test/fuzz/crashers/).
"""
import os
import struct
import sys

TOP = os.path.dirname(os.path.abspath(__file__))


def be16(v):
    return struct.pack(">H", v & 0xffff)


def be32(v):
    return struct.pack(">I", v & 0xffffffff)


def s16(v):
    return struct.pack(">h", v)


def cksum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack(">%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff


def write(target, name, data):
    d = os.path.join(TOP, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


# ---- wire pieces (shared by net and dp) ----

def eth(dst, src, etype, vlan=None):
    h = dst + src
    if vlan is not None:
        h += be16(0x8100) + be16(vlan)
    return h + be16(etype)


def ipv4(src, dst, proto, payload_len, ttl=64, opts=b"", frag=0x4000):
    ihl = 5 + len(opts) // 4
    h = bytes([0x40 | ihl, 0]) + be16(ihl * 4 + payload_len) + be16(1) + \
        be16(frag) + bytes([ttl, proto]) + be16(0) + be32(src) + be32(dst) + opts
    c = cksum(h)
    return h[:10] + be16(c) + h[12:]


def tcp_opts(mss=None, ws=None, sackok=False, ts=None, sack=()):
    o = b""
    if mss is not None:
        o += bytes([2, 4]) + be16(mss)
    if ts is not None:
        o += (bytes([4, 2]) if sackok else bytes([1, 1])) + bytes([8, 10]) + \
            be32(ts[0]) + be32(ts[1])
    elif sackok:
        o += bytes([1, 1, 4, 2])
    if ws is not None:
        o += bytes([1, 3, 3, ws])
    if sack:
        o += bytes([1, 1, 5, 2 + 8 * len(sack)])
        for l, r in sack:
            o += be32(l) + be32(r)
    return o


def tcp(sport, dport, seq, ack, flags, win, opts=b"", payload=b"",
        src=None, dst=None):
    hl = 20 + len(opts)
    h = be16(sport) + be16(dport) + be32(seq) + be32(ack) + \
        bytes([(hl // 4) << 4, flags]) + be16(win) + be16(0) + be16(0) + opts
    if src is not None:
        pseudo = be32(src) + be32(dst) + bytes([0, 6]) + be16(hl + len(payload))
        c = cksum(pseudo + h + payload)
        h = h[:16] + be16(c) + h[18:]
    return h + payload


# ---- fuzz_net: selector, 16-bit length, bytes ----

def gen_net():
    mac_a = bytes([2, 0, 0, 0, 0, 1])
    mac_b = bytes([2, 0, 0, 0, 0, 2])
    bc = b"\xff" * 6
    seeds = {}
    seeds["eth"] = bytes([0]) + be16(0) + eth(mac_a, mac_b, 0x0800) + b"\0" * 4
    seeds["eth_vlan"] = bytes([7]) + be16(0) + eth(bc, mac_b, 0x0806, 0x2005)
    arp = be16(1) + be16(0x0800) + bytes([6, 4]) + be16(1) + mac_b + \
        be32(0x0a000002) + b"\0" * 6 + be32(0x0a000001)
    seeds["arp_req"] = bytes([1]) + be16(0) + arp
    seeds["arp_rep"] = bytes([8]) + be16(0) + arp[:6] + be16(2) + arp[8:]
    ip = ipv4(0x0a000002, 0x0a000001, 6, 20)
    seeds["ipv4"] = bytes([2]) + be16(40) + ip + b"\0" * 20
    seeds["ipv4_claimed"] = bytes([0x82]) + be16(40) + ip
    seeds["ipv4_opts"] = bytes([2]) + be16(0) + \
        ipv4(0x0a000002, 0x0a000001, 1, 8, opts=bytes([1, 1, 1, 0]))  + b"\0" * 8
    seeds["ipv4_frag"] = bytes([9]) + be16(0) + \
        ipv4(0x0a000002, 0x0a000001, 17, 8, frag=0x2001) + b"\0" * 8
    echo = bytes([8, 0]) + be16(0) + be16(0x1234) + be16(1) + b"pingdata"
    echo = echo[:2] + be16(cksum(echo)) + echo[4:]
    seeds["icmp_echo"] = bytes([3]) + be16(0) + echo
    quote = ipv4(0x0a000001, 0x0a000002, 6, 20) + be16(8080) + be16(40000) + be32(7)
    unr = bytes([3, 4]) + be16(0) + be16(0) + be16(1400) + quote
    unr = unr[:2] + be16(cksum(unr)) + unr[4:]
    seeds["icmp_frag_needed"] = bytes([3]) + be16(0) + unr
    syn = tcp(40000, 8080, 1, 0, 0x02, 65535,
              tcp_opts(1460, 7, True, (1, 0)))
    seeds["tcp_syn"] = bytes([4]) + be16(0) + syn
    seeds["tcp_sack"] = bytes([4]) + be16(0) + \
        tcp(40000, 8080, 1, 5, 0x10, 512,
            tcp_opts(ts=(5, 6), sack=((100, 200), (300, 400), (500, 600))))
    seeds["tcp_claimed_len"] = bytes([0x84]) + be16(32) + \
        tcp(1, 2, 3, 4, 0x18, 5, tcp_opts(mss=536, ws=14))
    seeds["tcp_opts"] = bytes([5]) + be16(0) + \
        tcp_opts(1460, 7, True, (1, 2)) + bytes([254, 4, 0, 0, 0])
    seeds["tcp_opts_sack4"] = bytes([5]) + be16(0) + \
        tcp_opts(sack=((1, 2), (3, 4), (5, 6), (7, 8)))
    seeds["cksum"] = bytes([6]) + be16(13) + syn + b"odd"
    seeds["cksum_hdr"] = bytes([6]) + be16(3) + ip + b"\x01"
    for k, v in seeds.items():
        write("net", k, v)


# ---- fuzz_tcp: config header, then steps ----

SYN, FIN, RST, PSH, ACK = 0x02, 0x01, 0x04, 0x08, 0x10


def cfg(sack=True, ts=True, ws=True, cubic=True, rack=True, defer=False,
        nagle=False, delack=True, ooo=63, txq=3, mss=0, wscale=7,
        keepalive=False, space=63):
    b0 = (sack << 0) | (ts << 1) | (ws << 2) | (cubic << 3) | (rack << 4) | \
        (defer << 5) | (nagle << 6) | (delack << 7)
    return bytes([b0, (ooo & 63) | (txq << 6), mss | (wscale << 2) |
                  (keepalive << 7), space])


def seg(slot=0, flags=ACK, smode=0, sdelta=0, amode=0, adelta=0, win=65535,
        mss=None, ws=None, sackok=False, ts=None, sack=(), length=0, nseg=0,
        port=0, burst=False, sextra=None):
    """One inbound segment; deltas relative to rcv_nxt / snd_una (mode 0)."""
    op = (slot << 4) | (0x40 if burst else 0)
    b = bytes([op, flags, (smode & 3) | (port << 2)])
    if (smode & 3) == 1:
        b += be16(sextra or 0)
    b += be32(sdelta) if (smode & 3) == 3 else s16(sdelta)
    b += bytes([(amode & 3) | (0x80 if nseg else 0)])
    b += be32(adelta) if (amode & 3) == 3 else s16(adelta)
    b += be16(win)
    bits = (1 if mss is not None else 0) | (2 if ws is not None else 0) | \
        (4 if sackok else 0) | (8 if ts is not None else 0) | (len(sack) << 4)
    b += bytes([bits])
    if mss is not None:
        b += be16(mss)
    if ws is not None:
        b += bytes([ws])
    if ts is not None:
        b += bytes([ts])
    for blk in sack:
        l, n = blk[0], blk[1]
        b += s16(l) + be16(n) + bytes([blk[2] if len(blk) > 2 else 0])
    b += be16(length)
    if nseg:
        b += bytes([nseg])
    return b


def send(n, slot=0):
    return bytes([6 | (slot << 4)]) + be16(n)


def release(n, slot=0, shift=0):
    return bytes([7 | (slot << 4) | (shift << 5)]) + be16(n)


def app(code, slot=0):
    return bytes([code | (slot << 4)])


def tick(ms):
    return bytes([4, ms])


def next_timer():
    return bytes([5])


def jump(x10ms):
    return bytes([15]) + be16(x10ms)


def connect(iss):
    return bytes([12]) + be32(iss)


CLOSE, CLOSE_FULL, ABORT, OUTPUT = 8, 9, 10, 11


def hs_passive(ts=True, ws=7, sackok=True, mss=1460, win=65535, port=0):
    t = 1 if ts else None
    return seg(flags=SYN, mss=mss, ws=ws, sackok=sackok, ts=t, win=win,
               port=port) + \
        seg(flags=ACK, ts=2 if ts else None, win=win >> (ws or 0) if ws else win,
            port=port)


def hs_active(iss=1000, ts=True, ws=7, sackok=True, mss=1460):
    return connect(iss) + seg(slot=1, flags=SYN | ACK, adelta=1, mss=mss,
                              ws=ws, sackok=sackok, ts=1 if ts else None)


def gen_tcp():
    s = {}
    ts = 3
    s["passive_data"] = cfg() + hs_passive() + \
        seg(flags=ACK | PSH, ts=ts, win=512, length=1448) + \
        seg(flags=ACK | PSH, ts=ts, win=512, sdelta=1448, length=1448, nseg=3) + \
        tick(50) + release(60000)
    s["passive_ooo"] = cfg() + hs_passive() + \
        seg(flags=ACK, sdelta=2896, ts=ts, win=512, length=1448) + \
        seg(flags=ACK, sdelta=5792, ts=ts, win=512, length=1448) + \
        seg(flags=ACK, sdelta=0, ts=ts, win=512, length=2896, nseg=2) + \
        seg(flags=ACK, sdelta=1448, ts=ts, win=512, length=1448)
    s["passive_ooo_dup"] = cfg(ooo=3) + hs_passive() + \
        seg(sdelta=1000, ts=ts, win=512, length=500) + \
        seg(sdelta=1000, ts=ts, win=512, length=500) + \
        seg(sdelta=3000, ts=ts, win=512, length=500) + \
        seg(sdelta=5000, ts=ts, win=512, length=500) + \
        seg(sdelta=7000, ts=ts, win=512, length=500) + \
        seg(sdelta=-100, ts=ts, win=512, length=100)
    s["passive_send_ack"] = cfg() + hs_passive() + send(20000) + \
        seg(amode=0, adelta=1448, ts=ts, win=512) + \
        seg(amode=0, adelta=2896, ts=ts, win=512) + \
        seg(amode=2, adelta=0, ts=ts, win=512) + tick(10)
    s["passive_sack_loss"] = cfg() + hs_passive() + send(30000) + \
        seg(amode=0, adelta=0, ts=ts, win=512, sack=((1448, 1448),)) + \
        seg(amode=0, adelta=0, ts=ts, win=512, sack=((1448, 2896),)) + \
        seg(amode=0, adelta=0, ts=ts, win=512, sack=((1448, 4344),)) + \
        seg(amode=0, adelta=0, ts=ts, win=512, sack=((1448, 5792),)) + \
        next_timer() + seg(amode=2, ts=ts, win=512)
    s["passive_rto"] = cfg(sack=False) + hs_passive(sackok=False) + \
        send(10000) + next_timer() + next_timer() + \
        seg(amode=0, adelta=1448, ts=ts, win=512) + next_timer() + \
        seg(amode=2, ts=ts, win=512)
    s["passive_dupack_newreno"] = cfg(sack=False, cubic=False, rack=False) + \
        hs_passive(sackok=False) + send(15000) + \
        seg(ts=ts, win=512) + seg(ts=ts, win=512) + seg(ts=ts, win=512) + \
        seg(ts=ts, win=512) + seg(amode=0, adelta=4344, ts=ts, win=512) + \
        seg(amode=2, ts=ts, win=512)
    s["passive_zero_window"] = cfg() + hs_passive() + send(5000) + \
        seg(amode=2, ts=ts, win=0) + next_timer() + next_timer() + \
        seg(amode=2, ts=ts, win=100) + tick(100)
    s["passive_peer_fin"] = cfg() + hs_passive() + \
        seg(flags=ACK | PSH, ts=ts, length=100) + \
        seg(flags=ACK | FIN, sdelta=100, ts=ts) + app(CLOSE) + \
        seg(amode=2, ts=ts) + next_timer()
    s["passive_close_first"] = cfg() + hs_passive() + send(1000) + \
        app(CLOSE) + seg(amode=2, ts=ts) + seg(flags=ACK | FIN, ts=ts, amode=2) + \
        jump(200)
    s["passive_close_full_data"] = cfg() + hs_passive() + app(CLOSE_FULL) + \
        seg(flags=ACK | PSH, ts=ts, length=100)
    s["passive_rst"] = cfg() + hs_passive() + \
        seg(flags=RST, ts=ts) + seg(flags=SYN, port=1, mss=1460)
    s["passive_rst_challenge"] = cfg() + hs_passive() + \
        seg(flags=RST, sdelta=5, ts=ts) + seg(flags=SYN, sdelta=0, ts=ts)
    s["passive_abort"] = cfg() + hs_passive() + \
        seg(sdelta=3000, ts=ts, length=100) + app(ABORT)
    s["passive_nots_nows"] = cfg(ts=False, ws=False) + \
        hs_passive(ts=False, ws=None, sackok=False) + \
        seg(flags=ACK | PSH, length=1460) + send(3000) + seg(amode=2)
    s["passive_small_mss"] = cfg(mss=1) + hs_passive(mss=100) + send(2000) + \
        seg(amode=0, adelta=100, ts=ts) + seg(amode=2, ts=ts)
    s["passive_defer"] = cfg(defer=True) + hs_passive() + \
        seg(ts=ts, length=1000, burst=True) + \
        seg(ts=ts, sdelta=2000, length=1000, burst=True) + \
        seg(ts=ts, sdelta=1000, length=1000, burst=True) + tick(1)
    s["passive_window_release"] = cfg(space=0) + hs_passive() + \
        seg(ts=ts, length=2048) + seg(ts=ts, sdelta=2048, length=2048) + \
        release(4096) + release(100, shift=4)
    s["synq_flood"] = cfg() + b"".join(
        seg(flags=SYN, port=p, mss=1460, ts=1) for p in range(8)) + \
        next_timer() + next_timer() + seg(flags=RST, port=3, amode=0)
    s["syn_retransmit"] = cfg() + seg(flags=SYN, mss=1460) + \
        seg(flags=SYN, mss=1460) + jump(400)
    s["active_open_data"] = cfg() + hs_active() + send(4000, slot=1) + \
        seg(slot=1, amode=2, ts=2) + \
        seg(slot=1, flags=ACK | PSH, ts=2, length=1000) + app(CLOSE, slot=1) + \
        seg(slot=1, flags=ACK | FIN, amode=2, ts=3, sdelta=1000) + jump(100)
    s["active_refused"] = cfg() + connect(5) + \
        seg(slot=1, flags=RST | ACK, adelta=1)
    s["active_syn_timeout"] = cfg() + connect(77) + next_timer() + \
        next_timer() + jump(6000)
    s["simultaneous_open"] = cfg() + connect(9) + \
        seg(slot=1, flags=SYN, mss=1460, ts=1) + \
        seg(slot=1, flags=ACK, adelta=1, ts=2)
    s["both_slots"] = cfg() + hs_passive() + hs_active() + \
        send(3000, slot=0) + send(3000, slot=1) + \
        seg(slot=0, amode=2, ts=ts) + seg(slot=1, amode=2, ts=ts) + \
        app(CLOSE, slot=0) + app(CLOSE, slot=1) + jump(300)
    s["keepalive"] = cfg(keepalive=True) + hs_passive() + jump(800) + \
        next_timer() + next_timer()
    s["nagle_small"] = cfg(nagle=True) + hs_passive() + send(10) + send(10) + \
        send(10) + seg(amode=1, ts=ts) + app(14 | 0x20) + send(10)
    s["rack_reorder"] = cfg() + hs_passive() + send(14480) + \
        seg(ts=ts, sack=((2896, 1448),)) + seg(ts=ts, sack=((2896, 2896),)) + \
        tick(5) + next_timer() + seg(ts=ts, amode=0, adelta=1448,
                                     sack=((2896, 2896),)) + \
        seg(ts=ts, amode=2)
    s["dsack"] = cfg() + hs_passive() + seg(ts=ts, length=1000) + \
        seg(ts=ts, sdelta=-1000, length=1000)
    s["newreno_rto_ca"] = cfg(sack=False, rack=False) + \
        hs_passive(sackok=False) + send(40000) + \
        seg(amode=0, adelta=1448, ts=ts, win=1024) + next_timer() + \
        seg(amode=0, adelta=2896, ts=ts, win=1024) + \
        seg(amode=0, adelta=5792, ts=ts, win=1024) + \
        seg(amode=0, adelta=8688, ts=ts, win=1024) + \
        seg(amode=0, adelta=11584, ts=ts, win=1024) + \
        seg(amode=0, adelta=-1448, ts=ts, win=1024, sdelta=0)
    s["sack_far_blocks"] = cfg() + hs_passive() + send(20000) + \
        seg(ts=ts, sack=((1448, 1448), (-1, 1, 0x4f))) + \
        seg(ts=ts, amode=0, adelta=2896)
    s["ooo_limit"] = cfg() + hs_passive() + bytes([13, 1]) + \
        seg(ts=ts, sdelta=1000, length=100) + seg(ts=ts, sdelta=3000, length=100)
    for k, v in s.items():
        write("tcp", k, v)


# ---- fuzz_dp: see fuzz_dp.c for the frame encoding ----

def gen_dp():
    # Frame records: flags byte, 16-bit length, bytes (MACs, IPs and
    # checksums fixed up by the harness when flags ask for it).
    cli_ip, srv_ip = 0x0a000101, 0x0a000102
    mac0 = b"\0" * 6
    mac1 = b"\0" * 6

    def frame(body, fix=0x07):
        return bytes([fix]) + be16(len(body)) + body

    def tcpf(seq, ack, flags, payload=b"", opts=b"", sport=40000, dport=5001):
        t = tcp(sport, dport, seq, ack, flags, 65535, opts, payload)
        return eth(mac1, mac0, 0x0800) + ipv4(cli_ip, srv_ip, 6, len(t)) + t

    # No timestamps: later segments would need them (RFC 7323).
    syn = tcpf(1000, 0, SYN, opts=tcp_opts(1460, 7, True))
    s = {}
    s["syn"] = frame(syn)
    # Handshake: the harness's ack mode 'last SYN-ACK + 1' (flag 0x08).
    s["handshake_data"] = frame(syn) + \
        frame(tcpf(1001, 0, ACK), 0x0f) + \
        frame(tcpf(1001, 0, ACK | PSH, b"x" * 1000), 0x0f) + \
        frame(tcpf(3001, 0, ACK | PSH, b"y" * 500), 0x0f) + \
        frame(tcpf(2001, 0, ACK | PSH, b"z" * 1000), 0x0f) + \
        frame(tcpf(3501, 0, ACK | FIN), 0x0f)
    def appc(what):
        return bytes([0x80, what])

    s["send_hold_close"] = frame(syn) + \
        frame(tcpf(1001, 0, ACK), 0x0f) + appc(0 | (3 << 3)) + \
        frame(tcpf(1001, 0, ACK | PSH, b"h" * 700), 0x2f) + appc(6) + \
        frame(tcpf(1001, 0, ACK), 0x0f) + appc(4) + appc(2) + \
        frame(tcpf(1701, 0, ACK | FIN), 0x0f) + appc(6 | (4 << 3))
    s["abort_unlisten"] = frame(syn) + frame(tcpf(1001, 0, ACK), 0x0f) + \
        frame(tcpf(5001, 0, ACK | PSH, b"o" * 300), 0x0f) + appc(3) + appc(5) + \
        frame(syn)
    arp = eth(b"\xff" * 6, mac0, 0x0806) + be16(1) + be16(0x0800) + \
        bytes([6, 4]) + be16(1) + mac0 + be32(cli_ip) + b"\0" * 6 + be32(srv_ip)
    s["arp"] = frame(arp, 0x01)
    echo = bytes([8, 0]) + be16(0) + be16(7) + be16(1) + b"abcdefgh"
    echo = echo[:2] + be16(cksum(echo)) + echo[4:]
    s["icmp"] = frame(eth(mac1, mac0, 0x0800) + ipv4(cli_ip, srv_ip, 1, 16) + echo)
    s["udp"] = frame(eth(mac1, mac0, 0x0800) + ipv4(cli_ip, srv_ip, 17, 12) +
                     be16(1) + be16(2) + be16(12) + be16(0) + b"abcd")
    s["closed_port"] = frame(tcpf(1, 0, ACK | PSH, b"q" * 64, dport=5999))
    s["bad_cksum"] = frame(tcpf(1, 0, ACK | PSH, b"q" * 64), 0x03)
    s["vlan"] = frame(eth(mac1, mac0, 0x0800, 5) +
                      ipv4(cli_ip, srv_ip, 6, 20) + tcp(1, 5001, 1, 0, SYN, 1))
    s["ip_opts_frag"] = frame(eth(mac1, mac0, 0x0800) +
                              ipv4(cli_ip, srv_ip, 6, 20, opts=b"\1\1\1\0",
                                   frag=0x2000) + tcp(1, 5001, 1, 0, SYN, 1))
    for k, v in s.items():
        write("dp", k, v)


# ---- known engine bugs, as fuzz_tcp inputs (test/fuzz/crashers/tcp) ----

def gen_crashers():
    ts = 3
    d = os.path.join(TOP, "crashers", "tcp")
    os.makedirs(d, exist_ok=True)
    c = {}
    # Non-SACK: an old ACK (below snd_una) taken as acking ~2^32 bytes.
    c["cwnd_old_ack_nonsack"] = cfg(sack=False, rack=False) + \
        hs_passive(sackok=False) + send(40000) + \
        seg(amode=0, adelta=1448, ts=ts, win=1024) + next_timer() + \
        seg(amode=0, adelta=2896, ts=ts, win=1024) + \
        seg(amode=0, adelta=5792, ts=ts, win=1024) + \
        seg(amode=0, adelta=8688, ts=ts, win=1024) + \
        seg(amode=0, adelta=11584, ts=ts, win=1024) + \
        b"".join(seg(amode=0, adelta=-1448, ts=ts, win=1024) for _ in range(4))
    # FIN at rcv_nxt while out-of-order data is held: it stays held.
    c["fin_at_rcv_nxt_ooo_held"] = cfg() + hs_passive() + \
        seg(sdelta=500, ts=ts, length=100) + seg(flags=ACK | FIN, ts=ts)
    # Data beyond an out-of-order FIN is delivered (and the FIN lost).
    c["data_beyond_ooo_fin"] = cfg() + hs_passive() + \
        seg(flags=ACK | FIN, sdelta=100, ts=ts) + \
        seg(sdelta=100, ts=ts, length=100) + seg(ts=ts, length=100)
    # RTO retransmits a full MSS past a window that never was larger.
    c["rto_beyond_window"] = cfg() + hs_passive(ws=None, win=500) + \
        send(5000) + next_timer() + next_timer()
    for k, v in c.items():
        with open(os.path.join(d, k), "wb") as f:
            f.write(v)


def nn_hello(flow, nflows, comm_id, magic=0x444e4e48):
    return struct.pack("<IHHQ", magic, flow, nflows, comm_id)


def nn_msg(tag, size, magic=0x444e4e4d):
    return struct.pack("<IiQ", magic, tag, size)


def nn_slices(size, k):
    """nn_slice(): per-flow (off, len), slices aligned to 4096."""
    per = (size + k - 1) // k
    per = (per + 4095) // 4096 * 4096
    out = []
    for i in range(k):
        a = min(i * per, size)
        out.append((a, min(a + per, size) - a))
    return out


def nn_message(k, room, size, tag=7, fill=0x5a):
    b = struct.pack("<I", room)
    for off, ln in nn_slices(size, k):
        b += nn_msg(tag, size) + bytes([(fill + off) & 0xff]) * ln
    return b


def gen_nccl_wire():
    """fuzz_nccl_wire: K flows, hellos, then {room, per flow header+slice}."""
    hellos = [nn_hello(1, 2, 0xabc), nn_hello(0, 2, 0xabc)]
    write("nccl_wire", "hello_2flows_any_order",
          bytes([1, len(hellos)]) + b"".join(hellos))
    hellos = [nn_hello(0, 4, 1), nn_hello(0, 2, 2), nn_hello(3, 4, 1),
              nn_hello(1, 2, 2), nn_hello(1, 4, 1), nn_hello(2, 4, 1)]
    write("nccl_wire", "hello_two_comms_interleaved",
          bytes([3, len(hellos)]) + b"".join(hellos))
    # A lying peer: flow 1 says the comm has 2 flows, flow 0 said 4.
    hellos = [nn_hello(0, 4, 9), nn_hello(1, 2, 9), nn_hello(1, 4, 9)]
    write("nccl_wire", "hello_flow_count_lies",
          bytes([3, len(hellos)]) + b"".join(hellos))
    write("nccl_wire", "msg_1flow_small",
          bytes([0, 0]) + nn_message(1, 100, 100))
    write("nccl_wire", "msg_4flows_unaligned",
          bytes([3, 0]) + nn_message(4, 20000, 12345) +
          nn_message(4, 20000, 0))
    write("nccl_wire", "msg_2flows_truncated",
          bytes([1, 0]) + nn_message(2, 4096, 9000))
    # Flows disagree on the size: EPROTO.
    b = struct.pack("<I", 8192) + nn_msg(1, 8192) + bytes(4096) + \
        nn_msg(1, 5000) + bytes(904)
    write("nccl_wire", "msg_sizes_disagree", bytes([1, 0]) + b)
    write("nccl_wire", "msg_huge_size_pending",
          bytes([2, 0]) + struct.pack("<I", 65536) +
          nn_msg(3, 0xffffffffffffffff) + bytes(64))


def gen_ini():
    """fuzz_ini: byte 0 the line whose callback fails, then the text."""
    write("ini", "server", b"\0" + b"""# devtcp-server
[port]
pci = 0000:01:00.0 ; the NIC
queues = 4

[listen]
port = 5201
port = 5202
empty =
""")
    write("ini", "callback_fails", b"\3" + b"[a]\nk = v\nx = y\nz = 1\n")
    write("ini", "errors", b"\0" + b"[a\n")
    write("ini", "no_key", b"\0" + b"[s]\n = v\n")
    write("ini", "long_line", b"\0" + b"k = " + b"v" * 600 + b"\n")
    write("ini", "comments", b"\0" + b"; c\n  # c\nk=v#not\nk2 = v ;c\n")
    write("ini", "no_newline_at_end", b"\0" + b"[x]\nkey=value")


def gen_cli_flow():
    """fuzz_cli_flow: the rule text after "flow create <port>"."""
    rules = {
        "queue": "ingress pattern eth / ipv4 / end actions queue index 1 / end",
        "tcp_5tuple": "ingress pattern eth / ipv4 src is 10.0.0.1 dst is "
                      "10.0.0.2 / tcp src is 5000 dst is 5201 / end actions "
                      "queue index 3 / end",
        "udp_rss_all": "ingress pattern eth / ipv4 dst is 192.168.1.9 / udp "
                       "dst is 4789 / end actions rss / end",
        "rss_queues": "ingress pattern eth / ipv4 / tcp dst is 80 / end "
                      "actions rss queues 0 1 2 3 end / end",
        "bad_port": "ingress pattern eth / ipv4 / tcp dst is 70000 / end "
                    "actions queue index 0 / end",
        "tabs": "ingress\tpattern eth / ipv4 / end actions queue index 0 / end",
        # A field repeated (the last one counts): a rule of 60 words.
        "long_repeats": "ingress pattern eth / ipv4" + " src is 10.0.0.1" * 16 +
                        " / end actions queue index 2 / end",
        # 64 words of rule and one more: the 65th was silently dropped and
        # the rule accepted (now: too many words).
        "words_65": "ingress pattern eth / ipv4" + " src is 10.0.0.1" * 17 +
                    " / end actions queue index 2 / end extra",
    }
    for name, text in rules.items():
        write("cli_flow", name, text.encode())


def gen_ingest():
    """fuzz_ingest: byte 0 side|ring; server ops, or client descriptors
    then rounds {head (4 bytes), what to give back}."""
    u32 = lambda v: struct.pack("<I", v & 0xffffffff)
    # Server, ring 16: give 4, return two of them, a forged token, a head
    # two rings ahead, give 16 (the ring runs out), return the rest.
    ops = bytes([0, 0, 0, 0, 1, 2, 1, 0]) + bytes([2]) + u32(0x00030001) + \
        bytes([3]) + u32(40) + bytes([0] * 16) + bytes([1, 5] * 8)
    write("ingest", "server_give_take", bytes([0]) + ops)
    write("ingest", "server_ring128", bytes([6]) + bytes([0] * 130) +
          bytes([1, 0] * 64))

    def desc(offset, ln, flags, token, aux=0, stream=1):
        return struct.pack("<QQIHHII", offset, aux, ln, flags, 0, stream, token)
    OPEN, DATA, HOST, FIN = 1, 2, 4, 8   # enum dt_client_desc_flag
    good = desc(0, 0, OPEN, 0) + desc(0, 4096, DATA, 0x10001) + \
        desc(4096, 4096, DATA, 0x10002) + desc(0, 100, DATA | HOST, 0x10003) + \
        desc(0, 0, FIN, 4)
    write("ingest", "client_stream", bytes([1]) + good + bytes(32 * 11) +
          u32(5) + bytes([1]))
    # A broken server: a slot outside the ring, bytes past the region, the
    # same slot twice, a 16-bit generation, a head far ahead.
    bad = desc(0, 10, DATA, 0x10040) + desc(65000, 4096, DATA, 0x10001) + \
        desc(0, 10, DATA, 0x10002) + desc(0, 10, DATA, 0x10002) + \
        desc(0, 10, DATA, 0xffff0003)
    write("ingest", "client_broken_server", bytes([1]) + bad + bytes(32 * 11) +
          u32(5) + bytes([3]) + u32(1000) + bytes([0]))


if __name__ == "__main__":
    which = sys.argv[1:] or ["net", "tcp", "dp", "nccl_wire", "ini",
                             "cli_flow", "ingest"]
    for w in which:
        {"net": gen_net, "tcp": gen_tcp, "dp": gen_dp,
         "nccl_wire": gen_nccl_wire, "ini": gen_ini,
         "cli_flow": gen_cli_flow, "ingest": gen_ingest,
         "crashers": gen_crashers}[w]()
