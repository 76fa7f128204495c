#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Short connections per second over one veth pair: a Linux client (kernel
# TCP, in a network namespace, WORKERS processes of bench/cps_peer.py) opens
# connections to the root end of the pair for SECONDS, each: connect, send
# BYTES, shut down writing, read until the server closes, close. Received by
#   (a) devtcp-server: net_hsplit on the interface (AF_PACKET), payload split
#       into a gpu_sim (or gpu_cuda) region, discard consumer;
#   (b) a Linux kernel TCP server on the same interface (cps_peer.py server:
#       one selector loop, reads each connection to its end, closes).
# devtcp-server has no consumer that answers, so neither server sends data
# back: the workload is connect, BYTES one way, close, for both alike.
# Prints a table and JSON; fails when a run has no result or errors.
#
# usage: bench/cps-veth.sh [--seconds S] [--bytes N] [--workers W]
#            [--lcores LIST] [--json FILE]
#   defaults: 5 s, 1024 bytes, 4 workers, devtcp-server lcores 0-1
# Needs root, iproute2, ethtool, python3, hugepages and a build tree (build/
# or $DEVTCP_BUILD), or a device bundle (.bundle/run.sh cps-veth.sh: the
# programs, ip, ethtool next to it). Figures from a 2-core VM are rough: the
# client processes, the kernel server and devtcp-server's lcores share CPUs.
set -euo pipefail

prog=$(basename "$0")
here=$(cd "$(dirname "$0")" && pwd)
die() { echo "$prog: error: $*" >&2; exit 1; }
say() { echo "$prog: $*" >&2; }
py() { env -u LD_LIBRARY_PATH python3 "$@"; }

seconds=5 bytes=1024 workers=4 lcores=0-1 json=""
while [ $# -gt 0 ]; do
	case $1 in
	--seconds) seconds=$2; shift 2 ;;
	--bytes) bytes=$2; shift 2 ;;
	--workers) workers=$2; shift 2 ;;
	--lcores) lcores=$2; shift 2 ;;
	--json) json=$2; shift 2 ;;
	-h|--help) sed -n '3,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option $1 (--help)" ;;
	esac
done
[[ $seconds =~ ^[0-9]+$ && $seconds -gt 0 ]] || die "bad --seconds '$seconds'"
[[ $bytes =~ ^[0-9]+$ && $bytes -gt 0 ]] || die "bad --bytes '$bytes'"
[[ $workers =~ ^[0-9]+$ && $workers -gt 0 ]] || die "bad --workers '$workers'"
[ "$(id -u)" = 0 ] || die "needs root (network namespaces, AF_PACKET, hugepages)"
# A bundle carries ip and ethtool for machines without them.
[ -x "$here/ip" ] && PATH=$here:$PATH
for c in ip ethtool python3; do
	command -v $c >/dev/null || die "$c not found"
done
# The program: a bundle's bin/ (this script copied there), else the build.
if [ -x "$here/devtcp-server" ]; then
	server=$here/devtcp-server
else
	top=$(cd "$here/.." && pwd)
	b=${DEVTCP_BUILD:-$top/build}
	server=$b/app/server/devtcp-server
fi
[ -x "$server" ] || die "devtcp-server not found ($server): build first, or run from a bundle"
peer=$here/cps_peer.py
[ -r "$peer" ] || die "$peer not found"
# Test hosts come from scripts/netns.sh (a bundle carries it next to this).
netns=$here/netns.sh
[ -x "$netns" ] || netns=$(cd "$here/.." && pwd)/scripts/netns.sh
[ -x "$netns" ] || die "netns.sh not found (scripts/netns.sh, or a bundle's bin/)"

tag=$(( $$ % 100000 ))
ns=cps$tag
tmp=$(mktemp -d /tmp/cps.XXXXXX)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill -9 "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	"$netns" down "$ns" >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
in_ns() { ip netns exec "$ns" "$@"; }

# The peer's host: eth0 in namespace $ns, the root end named $ns, offloads
# and IPv6 off.
"$netns" up "$ns" --addr 10.82.0.2/24 --offloads off >/dev/null
# The client keeps TIME_WAIT: a wide port range, reuse for new connects.
in_ns sh -c 'echo "1024 65000" > /proc/sys/net/ipv4/ip_local_port_range; echo 1 > /proc/sys/net/ipv4/tcp_tw_reuse'

wait_for() {
	local end=$((SECONDS + $4))
	while ! grep -q "$2" "$1" 2>/dev/null; do
		kill -0 "$3" 2>/dev/null || return 1
		[ $SECONDS -lt $end ] || return 1
		sleep 0.1
	done
}

# The client's JSON line into file $1, or nothing.
run_client() {
	: > "$1"
	if ! timeout $((seconds + 60)) ip netns exec "$ns" env -u LD_LIBRARY_PATH \
			python3 "$peer" client 10.82.0.1 5001 "$seconds" "$bytes" \
			"$workers" > "$tmp/client.out" 2> "$tmp/client.err"; then
		say "client failed: $(tail -3 "$tmp/client.err" | tr '\n' ' ')"
		return 0
	fi
	tail -n 1 "$tmp/client.out" > "$1"
}

# (a) devtcp-server.
run_devtcp() {
	local ini=$tmp/srv.ini log=$tmp/srv.log s
	cat > "$ini" <<-EOT
	[port]
	mtu = 1500
	split = proto
	tx_cksum = yes
	[port.0]
	name = net_hsplit_cps$tag
	[stack]
	port = 0
	ipv4 = 10.82.0.1
	netmask = 255.255.255.0
	listen = 5001
	[devmem]
	gpu = 0
	buffers = 16384
	buffer_size = 2048
	header_buffers = 16384
	[limits]
	max_conns = 65536
	[consumer]
	mode = discard
	EOT
	ip addr flush dev "$ns"
	echo 8 > "/proc/sys/net/ipv4/conf/$ns/arp_ignore"
	in_ns ip neigh flush dev eth0 2>/dev/null || true
	# shellcheck disable=SC2086
	"$server" -l "$lcores" --in-memory --no-pci --log-level=lib.eal:warning \
		${DEVTCP_EAL_ARGS:-} --vdev="net_hsplit_cps$tag,iface=$ns" \
		--vdev=gpu_sim_cps$tag,size=64M -- --config "$ini" --drain 2 \
		> "$log" 2>&1 &
	s=$!
	pids+=("$s")
	if ! wait_for "$log" "running (SIGINT" "$s" 60; then
		say "devtcp-server did not start:"
		tail -20 "$log" >&2
		: > "$tmp/a.json"
		return 0
	fi
	run_client "$tmp/a.json"
	kill -TERM "$s" 2>/dev/null || true
	wait "$s" 2>/dev/null || true
	grep -E "drops|accepted" "$log" | tail -3 >&2 || true
	cp "$log" "$tmp/a.log"
}

# (b) the kernel server.
run_kernel() {
	local log=$tmp/k.log k
	ip addr replace 10.82.0.1/24 dev "$ns"
	echo 0 > "/proc/sys/net/ipv4/conf/$ns/arp_ignore"
	in_ns ip neigh flush dev eth0 2>/dev/null || true
	py "$peer" server 10.82.0.1 5001 > "$log" 2>&1 &
	k=$!
	pids+=("$k")
	if ! wait_for "$log" "listening" "$k" 30; then
		say "kernel server did not start: $(tail -3 "$log" | tr '\n' ' ')"
		: > "$tmp/b.json"
		return 0
	fi
	# The server's own pid (a launcher may have forked it): stopped too.
	kp=$(awk '/^listening pid / {print $3; exit}' "$log")
	[ -n "$kp" ] && pids+=("$kp")
	run_client "$tmp/b.json"
	kill -TERM "$k" ${kp:+"$kp"} 2>/dev/null || true
	wait "$k" 2>/dev/null || true
	while [ -n "$kp" ] && kill -0 "$kp" 2>/dev/null; do sleep 0.1; done
}

say "(a) devtcp-server, $seconds s, $workers client processes"
run_devtcp
say "(b) Linux kernel TCP server"
run_kernel
py - "$tmp/a.json" "$tmp/b.json" "$json" "$seconds" "$bytes" "$workers" <<'PY'
import json, os, sys
pa, pb, out, seconds, nbytes, workers = sys.argv[1:7]
def load(p):
    t = open(p).read().strip()
    return json.loads(t) if t else None
a, b = load(pa), load(pb)
errors = []
for k, r in (("a", a), ("b", b)):
    if r is None:
        errors.append("(%s): no result" % k)
    elif r["conns"] == 0 or r["errors"] != 0:
        errors.append("(%s): %d connections, %d errors" % (k, r["conns"], r["errors"]))
f = lambda r: "%10.0f" % r["cps"] if r else "         -"
print("\n%-28s %10s" % ("server (client: Linux, veth)", "conns/s"))
print("%-28s %s" % ("(a) devtcp-server", f(a)))
print("%-28s %s" % ("(b) Linux kernel TCP", f(b)))
ratio = round(a["cps"] / b["cps"], 3) if a and b and b["cps"] else None
print("a/b: %s" % (ratio if ratio is not None else "-"))
doc = {"program": "cps-veth", "seconds": float(seconds), "bytes_per_conn": int(nbytes),
       "client_workers": int(workers), "kernel": os.uname().release,
       "workload": "connect, bytes client->server, shutdown, server closes, close",
       "a_devtcp_server": a, "b_kernel": b, "a_over_b": ratio, "errors": errors}
text = json.dumps(doc, indent=2)
print(text)
if out:
    open(out, "w").write(text + "\n")
for e in errors:
    print("cps-veth: " + e, file=sys.stderr)
sys.exit(1 if errors else 0)
PY
