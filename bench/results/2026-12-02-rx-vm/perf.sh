#!/usr/bin/env bash
# Where (a)'s receive time goes: perf record -a -g over one server-vs-bounce
# run of mode (a), then the samples of this run's own processes (the
# server's lcores and the Linux sender, whose contexts run veth, the
# backlog softirq and AF_PACKET's tpacket_rcv), by pid, classified by call
# chain (stacks.py), also per frame and per KiB received.
# usage: [OUT=DIR] [SIZE=2G] [OFFLOADS=1] perf.sh TAG MTU ['ENV assignments', e.g. SVB_DEVARGS=,iface_gro=off]
set -euo pipefail
tag=$1 mtu=$2
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
out=${OUT:-/tmp/rxp}; mkdir -p "$out"
data=$out/$tag.data logs=$out/$tag.logs
rm -rf "$logs"
( # the pids of this run: server and sender
	: > "$out/$tag.pids"
	for _ in $(seq 1200); do
		pgrep -f "net_hsplit_svb,iface=svb" >> "$out/$tag.pids" || true
		pgrep -f "bounce_peer.py send" >> "$out/$tag.pids" || true
		sleep 0.05
	done ) & w=$!
( eval "${3:-}"; export SVB_DEVARGS SVB_ROOT_ETHTOOL
  SVB_LOGS=$logs perf record -q -o "$data" -a -F 1999 -g -- \
	"$top/bench/server-vs-bounce.sh" --size "${SIZE:-2G}" --modes a --mtus "$mtu" ${OFFLOADS:+--offloads} \
	>/dev/null 2>&1 ) || true
kill $w 2>/dev/null || true; wait $w 2>/dev/null || true
pids=$(sort -u "$out/$tag.pids" | paste -sd,)
bytes=$(sed -n 's/.*closed: \([0-9]*\) bytes.*/\1/p' "$logs"/srv.*.log | head -1)
frames=$(sed -n 's/.*: \([0-9]*\) frames in.*/\1/p' "$logs"/srv.*.log | head -1)
echo "# perf record -a -F 1999 -g; (a) at MTU $mtu, env '${3:-}'; $bytes bytes in $frames frames; $(grep -o 'closed: .*' "$logs"/srv.*.log | head -1); load $(cut -d' ' -f1-3 /proc/loadavg)"
perf script -i "$data" -F comm,pid,tid,ip,sym 2>/dev/null |
	python3 "$here/stacks.py" "$pids" --by-thread --per "$bytes" "$frames" 1999
