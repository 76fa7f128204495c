#!/usr/bin/env bash
# devtcp-server --capture: headers-only pcapng of a running server while a
# Linux peer sends 32 MiB over veth into gpu_sim memory (whose stack-visible
# mapping has no access rights: reading payload would crash the server).
# tshark must read the file; data frames must be captured short (caplen =
# the header segment, frame length = the whole frame) and their TCP headers
# must decode; the stream must still arrive whole. The capture holds more
# frames than the capture pool has buffers (16384: each must go back after
# it is written), the stream's FIN, and wall-clock timestamps (the first
# within a day of now). Exit 77 without veth.
#
# usage: check_capture.sh DEVTCP_SERVER NETNS_SH
set -euo pipefail
server=$1 netns_sh=$2
tmp=$(mktemp -d /tmp/dtcapture.XXXXXX)
ns=dtcp$(($$ % 100000))
srv=""
fail() { echo "FAIL: $*"; [ ! -f "$tmp/srv.log" ] || tail -20 "$tmp/srv.log"; exit 1; }
cleanup() {
	[ -z "$srv" ] || kill -9 "$srv" 2>/dev/null || true
	"$netns_sh" down "$ns" >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT
command -v tshark >/dev/null || { echo "SKIP: tshark not installed"; exit 77; }
"$netns_sh" check >/dev/null 2>&1 || { echo "SKIP: no network namespaces / veth"; exit 77; }
"$netns_sh" up "$ns" --addr 10.77.0.2/24 --mtu 1500 >/dev/null
cat >"$tmp/server.ini" <<INI
[port]
mtu = 1500
split = proto
tx_cksum = yes
[port.0]
name = net_hsplit_cap
[stack]
port = 0
ipv4 = 10.77.0.1
netmask = 255.255.255.0
listen = 5001
[devmem]
gpu = 0
buffers = 8192
buffer_size = 2048
header_buffers = 8192
[consumer]
mode = discard
INI
# iface_gro=off: MTU frames, more of them than the capture pool holds
# (with the veth's GRO 32 MiB arrive in ~12000 frames), so its recycling is
# exercised.
"$server" -l 1 --in-memory --no-pci --log-level=lib.eal:warning \
	--vdev=net_hsplit_cap,iface="$ns",iface_gro=off --vdev=gpu_sim_cap,size=64M -- \
	--config "$tmp/server.ini" --capture "$tmp/cap.pcapng" >"$tmp/srv.log" 2>&1 &
srv=$!
for _ in $(seq 1 150); do
	grep -q "running (SIGINT" "$tmp/srv.log" && break
	kill -0 "$srv" 2>/dev/null || fail "devtcp-server exited at start"
	sleep 0.2
done
grep -q "capturing headers of port 0" "$tmp/srv.log" || fail "no capture started"
head -c $((32 << 20)) /dev/urandom >"$tmp/data"
ip netns exec "$ns" timeout 60 socat -u "OPEN:$tmp/data" TCP:10.77.0.1:5001 ||
	fail "socat could not send 32 MiB"
sleep 1
kill -INT "$srv"
rc=0
wait "$srv" || rc=$?
srv=""
[ "$rc" -eq 0 ] || fail "devtcp-server exited $rc (a CPU read of device payload crashes it)"
grep -q "stream .* closed: 33554432 bytes" "$tmp/srv.log" || fail "the 32 MiB stream did not arrive whole"
grep -Eq "capture: [1-9][0-9]* frames written, 0 dropped" "$tmp/srv.log" ||
	fail "the server reports no frames written, or drops"
tshark -r "$tmp/cap.pcapng" -T fields -e frame.cap_len -e frame.len -e tcp.len \
	-e tcp.srcport -e tcp.flags.fin -e frame.time_epoch -Y tcp \
	>"$tmp/fields" 2>"$tmp/tshark.err" ||
	{ cat "$tmp/tshark.err"; fail "tshark cannot read the capture"; }
total=$(wc -l <"$tmp/fields")
short=$(awk '$3 > 0 && $1 < $2 && $1 >= 54 && $4 != "" {n++} END {print n + 0}' "$tmp/fields")
full=$(awk '$3 > 0 && $1 >= $2 {n++} END {print n + 0}' "$tmp/fields")
echo "capture: $total TCP frames; data frames captured headers-only: $short; with payload: $full"
[ "$total" -gt 16384 ] || fail "$total TCP frames: no more than the capture pool holds (16384)"
fins=$(awk '$5 == 1 || $5 == "True" {n++} END {print n + 0}' "$tmp/fields")
[ "$fins" -gt 0 ] || fail "no FIN in the capture"
first=$(head -1 "$tmp/fields" | cut -f6 | cut -d. -f1)
[[ "$first" =~ ^[0-9]+$ ]] || fail "no timestamp on the first frame: '$first'"
now=$(date +%s)
echo "capture: first frame at $(date -u -d "@$first" '+%F %T' 2>&1) UTC, now $(date -u '+%F %T'); FIN frames: $fins"
[ $((first > now ? first - now : now - first)) -lt 86400 ] ||
	fail "the first timestamp is not within a day of now (not wall clock)"
[ "$short" -gt 100 ] || fail "no data frames captured headers-only"
[ "$full" -eq 0 ] || fail "$full data frames were captured with their payload"
echo "ok   headers-only capture read by tshark; payload never captured"
