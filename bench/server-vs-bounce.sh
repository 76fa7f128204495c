#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# devtcp-server against the bounce-buffer path users have, on one veth pair:
# one Linux sender (kernel TCP, in a network namespace) sends SIZE bytes over
# one connection to the root end of the pair, received by
#   (a) devtcp-server: net_hsplit on the interface (AF_PACKET), payload split
#       into the device region (gpu_cuda when a GPU is there, else gpu_sim),
#       discard consumer;
#   (b) Linux kernel TCP into pinned host buffers, each then copy_()'d into a
#       CUDA tensor (python3 + torch; skipped, saying why, without them);
#   (c) Linux kernel TCP alone (into a host buffer);
#   (d) devtcp-server in ingest mode ([consumer] mode = ingest) and a
#       PyTorch process (bench/ingest_peer.py, the devtcp Python package)
#       that takes the stream from the server's GPU memory zero-copy, gathers
#       and checks every byte on the GPU (pattern and a torch checksum) and
#       gives the buffers back; its CPU seconds are reported. Skipped, saying
#       why, without torch (with --gpu sim it runs on the CPU with numpy).
# For each MTU (default 1500 and 9000; offloads off on both ends: every frame
# crosses as one MTU-sized frame) it prints a table and, at the end, JSON.
# Goodput = SIZE / (first write .. receiver's close), measured by the sender.
#
# usage: bench/server-vs-bounce.sh [--size BYTES] [--mtus 1500,9000]
#            [--json FILE] [--lcores LIST] [--gpu auto|cuda|sim] [--offloads]
#   --size    bytes per connection, K/M/G suffixes (default 4G)
#   --lcores  EAL lcores of devtcp-server: main and its stack (default 0-1;
#             on the GPU machine pick two cores of the GPU's NUMA node)
#   --gpu     auto (default): gpu_cuda when nvidia-smi or /dev/nvidia0 is
#             there, else gpu_sim
#   --modes   which of a, b, c, d to run (default a,b,c,d)
#   --offloads veth offloads on (TSO/GSO/GRO, checksum): the kernel hands
#             coalesced frames to every receiver, devtcp's through LRO
# Needs root, iproute2, ethtool, python3, hugepages. Programs: next to this
# script (a device bundle's bin/: .bundle/run.sh server-vs-bounce.sh ...), or
# the build tree (build/ or $DEVTCP_BUILD) of the repository it is in.
# DEVTCP_EAL_ARGS (set by .bundle/run.sh) is added to devtcp-server's EAL
# arguments; SVB_WINDOW (default 4M) is its [limits] window; SVB_DEVARGS
# (e.g. ",iface_gro=off") is added to net_hsplit's devargs, to compare
# modes; SVB_ROOT_ETHTOOL (e.g. "gro on") sets ethtool -K features of the
# root end; SVB_ROOT_THREADED=1 runs its NAPI threaded in (a). Example, on
# this VM: bench/server-vs-bounce.sh --size 256M
set -euo pipefail

prog=$(basename "$0")
here=$(cd "$(dirname "$0")" && pwd)
die() { echo "$prog: error: $*" >&2; exit 1; }
say() { echo "$prog: $*" >&2; }
# python3 with the system's libraries, not a bundle's (LD_LIBRARY_PATH is
# for the DPDK programs and ip): torch needs its own.
py() { env -u LD_LIBRARY_PATH python3 "$@"; }

size=4G mtus=1500,9000 json="" lcores=0-1 gpu=auto offl=off modes=abcd
while [ $# -gt 0 ]; do
	case $1 in
	--size) size=$2; shift 2 ;;
	--mtus) mtus=$2; shift 2 ;;
	--json) json=$2; shift 2 ;;
	--lcores) lcores=$2; shift 2 ;;
	--offloads) offl=on; shift ;;
	--modes) modes=${2//,/}; shift 2 ;;
	--gpu) gpu=$2; shift 2 ;;
	-h|--help) sed -n '3,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option $1 (--help)" ;;
	esac
done

bytes_of() {
	local v=$1 m=1
	case $v in
	*[kK]) m=1024; v=${v%?} ;;
	*[mM]) m=$((1024 * 1024)); v=${v%?} ;;
	*[gG]) m=$((1024 * 1024 * 1024)); v=${v%?} ;;
	esac
	[[ $v =~ ^[0-9]+$ ]] && [ "$v" -gt 0 ] || die "bad --size '$1'"
	echo $((v * m))
}
nbytes=$(bytes_of "$size")
for m in ${mtus//,/ }; do
	[[ $m =~ ^[0-9]+$ ]] && [ "$m" -ge 1280 ] && [ "$m" -le 9000 ] ||
		die "bad MTU '$m' in --mtus (1280..9000)"
done
[ "$(id -u)" = 0 ] || die "needs root (network namespaces, AF_PACKET, hugepages)"
# A bundle carries ip and ethtool for machines without them.
[ -x "$here/ip" ] && PATH=$here:$PATH
for c in ip ethtool python3; do
	command -v $c >/dev/null || die "$c not found"
done

# The programs: a bundle's bin/ (this script copied there), else the build.
server="" plugin=""
if [ -x "$here/devtcp-server" ]; then
	server=$here/devtcp-server
	plugin=$here/../plugins/librte_gpu_cuda.so
else
	top=$(cd "$here/.." && pwd)
	b=${DEVTCP_BUILD:-$top/build}
	server=$b/app/server/devtcp-server
	plugin=$b/drivers/gpu/cuda/librte_gpu_cuda.so
fi
[ -x "$server" ] || die "devtcp-server not found ($server): build first, or run from a bundle"
peer=$here/bounce_peer.py
[ -r "$peer" ] || die "$peer not found"
ipeer=$here/ingest_peer.py
# The devtcp Python package and libdevtcp for (d): a bundle's, else the tree's.
if [ -x "$here/devtcp-server" ]; then
	pydir=$here/../python libdt=$here/../lib/libdevtcp_client.so
else
	pydir=$top/python libdt=$b/lib/client/libdevtcp_client.so
fi

if [ "$gpu" = auto ]; then
	gpu=sim
	if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
		gpu=cuda
	elif [ -e /dev/nvidia0 ]; then
		gpu=cuda
	fi
fi
case $gpu in
cuda)
	[ -r "$plugin" ] || die "gpu_cuda plugin not found ($plugin)"
	gpu_args=(-d "$plugin" --vdev=gpu_cuda0) ;;
sim) gpu_args=(--vdev=gpu_sim_svb0,size=512M) ;;
*) die "bad --gpu '$gpu' (auto, cuda, sim)" ;;
esac

# (b) needs torch with a CUDA device; say once why it is skipped.
bounce_ok=1 bounce_why=""
if ! bounce_why=$(py "$peer" probe 2>&1); then
	bounce_ok=0
fi

# Test hosts come from scripts/netns.sh (a bundle carries it next to this).
netns=$here/netns.sh
[ -x "$netns" ] || netns=$(cd "$here/.." && pwd)/scripts/netns.sh
[ -x "$netns" ] || die "netns.sh not found (scripts/netns.sh, or a bundle's bin/)"

tag=$(( $$ % 100000 ))
ns=svb$tag                 # the sender's namespace; the root end is named $ns
tmp=$(mktemp -d /tmp/svb.XXXXXX)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill -9 "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	"$netns" down "$ns" >/dev/null 2>&1 || true
	# SVB_LOGS=DIR keeps the servers' and clients' logs.
	[ -z "${SVB_LOGS:-}" ] || { mkdir -p "$SVB_LOGS"; cp "$tmp"/*.log "$SVB_LOGS"/ 2>/dev/null || true; }
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

in_ns() { ip netns exec "$ns" "$@"; }

setup() {
	# eth0 in namespace $ns, the root end named $ns, IPv6 off. Offloads off:
	# frames cross as MTU-sized frames with full checksums (net_hsplit takes
	# no TSO/GSO super-frames), for every receiver alike.
	"$netns" up "$ns" --addr 10.81.0.2/24 --offloads "$offl" >/dev/null
	if [ "$offl" = on ]; then
		# netns.sh leaves a veth's defaults; "on" asks for GRO as well.
		ethtool -K "$ns" tx on tso on gso on gro on >/dev/null 2>&1 || true
		in_ns ethtool -K eth0 tx on tso on gso on gro on >/dev/null 2>&1 || true
	fi
}

set_mtu() {
	ip link set "$ns" mtu "$1"
	in_ns ip link set eth0 mtu "$1"
}

# The root end as a kernel host (b, c) or as devtcp's wire (a).
root_kernel() {
	ip addr replace 10.81.0.1/24 dev "$ns"
	# shellcheck disable=SC2086
	[ -z "${SVB_ROOT_ETHTOOL:-}" ] || ethtool -K "$ns" $SVB_ROOT_ETHTOOL >/dev/null
	echo 0 > "/proc/sys/net/ipv4/conf/$ns/arp_ignore"
	in_ns ip neigh flush dev eth0 2>/dev/null || true
}
root_devtcp() {
	ip addr flush dev "$ns"
	# The kernel must not answer for, or reset, what devtcp receives.
	echo 8 > "/proc/sys/net/ipv4/conf/$ns/arp_ignore"
	echo 0 > "/proc/sys/net/ipv4/conf/$ns/forwarding"
	# SVB_ROOT_ETHTOOL="gro on": ethtool -K features of the root end for (a).
	# shellcheck disable=SC2086
	[ -z "${SVB_ROOT_ETHTOOL:-}" ] || ethtool -K "$ns" $SVB_ROOT_ETHTOOL >/dev/null
	in_ns ip neigh flush dev eth0 2>/dev/null || true
}

# Wait until file $1 has text $2 or process $3 is gone; $4 seconds at most.
wait_for() {
	local end=$((SECONDS + $4))
	while ! grep -q "$2" "$1" 2>/dev/null; do
		kill -0 "$3" 2>/dev/null || return 1
		[ $SECONDS -lt $end ] || return 1
		sleep 0.1
	done
}

# Run the sender; echo its JSON line, or nothing when it failed.
send() {
	local out=$tmp/send.out limit=$((nbytes / 10000000 + 120))
	if ! timeout "$limit" ip netns exec "$ns" env -u LD_LIBRARY_PATH python3 "$peer" send 10.81.0.1 5001 \
			"$nbytes" > "$out" 2> "$tmp/send.err"; then
		say "sender failed: $(tail -3 "$tmp/send.err" | tr '\n' ' ')"
		return 0
	fi
	tail -n 1 "$out"
}

# devtcp-server on the interface at MTU $1 with consumer $2 (and the lines
# of $3 after it), log in $4; its pid in $srv_pid. Not in a subshell: the
# pid must reach cleanup().
start_server() {
	local mtu=$1 consumer=$2 extra=$3 log=$4 ini=$tmp/srv-$2.ini bufsz=2048
	[ "$mtu" -gt 4000 ] && bufsz=4K
	cat > "$ini" <<-EOF
	[port]
	mtu = $mtu
	split = proto
	tx_cksum = yes
	[port.0]
	name = net_hsplit_svb
	[stack]
	port = 0
	ipv4 = 10.81.0.1
	netmask = 255.255.255.0
	listen = 5001
	[devmem]
	gpu = 0
	buffers = 16384
	buffer_size = $bufsz
	header_buffers = 16384
	[limits]
	window = ${SVB_WINDOW:-4M}
	[consumer]
	mode = $consumer
	$extra
	EOF
	root_devtcp
	# shellcheck disable=SC2086
	"$server" -l "$lcores" --in-memory --no-pci --log-level=lib.eal:warning \
		${DEVTCP_EAL_ARGS:-} --vdev="net_hsplit_svb,iface=$ns${SVB_DEVARGS:-}" "${gpu_args[@]}" \
		-- --config "$ini" --drain 2 > "$log" 2>&1 &
	srv_pid=$!
	pids+=("$srv_pid")
}

# (a) devtcp-server on the interface: the sender's JSON plus what the
# server counted into file $2, or nothing. Not in a subshell: the server's
# pid must reach cleanup().
run_devtcp() {
	local mtu=$1 res=$2 log=$tmp/srv.$1.log s r recv unreg
	: > "$res"
	start_server "$mtu" discard "" "$log"
	s=$srv_pid
	if ! wait_for "$log" "running (SIGINT" "$s" 60; then
		say "devtcp-server did not start (MTU $mtu):"
		tail -20 "$log" >&2
		return 0
	fi
	# SVB_ROOT_THREADED=1: the root end's NAPI (there once net_hsplit turned
	# GRO on) in a kthread of its own, off devtcp's stack lcore.
	if [ -n "${SVB_ROOT_THREADED:-}" ]; then
		echo 1 > "/sys/class/net/$ns/threaded" || say "threaded NAPI on $ns refused"
	fi
	r=$(send)
	kill -TERM "$s" 2>/dev/null || true
	wait "$s" 2>/dev/null || true
	recv=$(sed -n 's/.*closed: \([0-9]*\) bytes.*/\1/p' "$log" | awk '{s += $1} END {print s + 0}')
	unreg=false
	grep -q "is not registered with rte_gpu_mem_register" "$log" && unreg=true
	cp "$log" "$tmp/last-devtcp.log"
	[ -n "$r" ] || { tail -20 "$log" >&2; return 0; }
	py -c 'import json,sys; d=json.loads(sys.argv[1]); d["receiver_bytes"]=int(sys.argv[2]); d["unregistered_copies_logged"]=sys.argv[3]=="true"; print(json.dumps(d))' \
		"$r" "$recv" "$unreg" > "$res"
}

# (d) devtcp-server in ingest mode and the PyTorch client: the sender's JSON
# with the client's figures into file $2, or nothing.
run_ingest() {
	local mtu=$1 res=$2 log=$tmp/ing.$1.log plog=$tmp/ipeer.log s p r
	: > "$res"
	start_server "$mtu" ingest "[ingest]
	socket = $tmp/ingest.sock
	quota = 8192" "$log"
	s=$srv_pid
	if ! wait_for "$log" "running (SIGINT" "$s" 60; then
		say "devtcp-server (ingest) did not start (MTU $mtu):"
		tail -20 "$log" >&2
		return 0
	fi
	PYTHONPATH=$pydir DEVTCP_LIB=$libdt py "$ipeer" "$tmp/ingest.sock" 5001 \
		"$nbytes" > "$plog" 2>&1 &
	p=$!
	pids+=("$p")
	if ! wait_for "$plog" "attached" "$p" 60; then
		say "ingest client did not attach: $(tail -3 "$plog" | tr '\n' ' ')"
		# The server must not stay on the wire for the next runs.
		kill -TERM "$s" 2>/dev/null || true
		wait "$s" 2>/dev/null || true
		return 0
	fi
	r=$(send)
	wait "$p" 2>/dev/null || true
	kill -TERM "$s" 2>/dev/null || true
	wait "$s" 2>/dev/null || true
	cp "$log" "$tmp/last-ingest.log"
	[ -n "$r" ] || { tail -5 "$plog" >&2; return 0; }
	py -c 'import json,sys; d=json.loads(sys.argv[1]); k=json.loads(sys.argv[2]); d["receiver_bytes"]=k["bytes"]; d.update({x: k[x] for x in ("mismatches", "checksum", "expected_checksum", "cpu_seconds", "device")}); d["client_seconds"]=k["seconds"]; print(json.dumps(d))' \
		"$r" "$(tail -n 1 "$plog")" > "$res" 2>/dev/null ||
		say "ingest client: $(tail -3 "$plog" | tr '\n' ' ')"
}

# (b) with --cuda, (c) without: the kernel receiver on the root end; the
# result into file $2.
run_kernel() {
	local cuda=$1 res=$2 r log=$tmp/krecv.log rc
	: > "$res"
	root_kernel
	py "$peer" recv 10.81.0.1 5001 $cuda > "$log" 2>&1 &
	rc=$!
	pids+=("$rc")
	if ! wait_for "$log" "listening" "$rc" 30; then
		say "kernel receiver did not start: $(tail -3 "$log" | tr '\n' ' ')"
		return 0
	fi
	r=$(send)
	wait "$rc" 2>/dev/null || true
	[ -n "$r" ] || return 0
	py -c 'import json,sys; d=json.loads(sys.argv[1]); k=json.loads(sys.argv[2]); d["receiver_bytes"]=k["bytes"]; d["copies"]=k["copies"]; d["device"]=k["device"]; print(json.dumps(d))' \
		"$r" "$(tail -n 1 "$log")" > "$res" 2>/dev/null ||
		say "kernel receiver: $(tail -3 "$log" | tr '\n' ' ')"
}

# (d) needs the Python package, numpy, and torch with CUDA unless gpu_sim.
ingest_ok=1 ingest_why=""
if [ ! -r "$ipeer" ] || [ ! -d "$pydir/devtcp" ]; then
	ingest_ok=0 ingest_why="no ingest_peer.py or python/devtcp next to the programs"
elif ! ingest_why=$(py -c 'import numpy' 2>&1); then
	ingest_ok=0
elif [ "$gpu" = cuda ] && ! ingest_why=$(py "$peer" probe 2>&1); then
	ingest_ok=0
fi

setup
results=$tmp/results.jsonl
: > "$results"
[ $bounce_ok = 1 ] || say "(b) skipped: $bounce_why"
[ $ingest_ok = 1 ] || say "(d) skipped: $ingest_why"
for mtu in ${mtus//,/ }; do
	set_mtu "$mtu"
	: > "$tmp/a.json"; : > "$tmp/b.json"; : > "$tmp/c.json"; : > "$tmp/d.json"
	if [[ $modes == *a* ]]; then
		say "MTU $mtu: (a) devtcp-server ($gpu)"
		run_devtcp "$mtu" "$tmp/a.json"
	fi
	if [ $bounce_ok = 1 ] && [[ $modes == *b* ]]; then
		say "MTU $mtu: (b) kernel TCP + copy_ to a CUDA tensor"
		run_kernel --cuda "$tmp/b.json"
	fi
	if [[ $modes == *c* ]]; then
		say "MTU $mtu: (c) kernel TCP"
		run_kernel "" "$tmp/c.json"
	fi
	if [ $ingest_ok = 1 ] && [[ $modes == *d* ]]; then
		say "MTU $mtu: (d) devtcp-server ingest + PyTorch client"
		run_ingest "$mtu" "$tmp/d.json"
	fi
	a=$(cat "$tmp/a.json") b=$(cat "$tmp/b.json") c=$(cat "$tmp/c.json") d=$(cat "$tmp/d.json")
	printf '{"mtu": %s, "a": %s, "b": %s, "c": %s, "d": %s}\n' "$mtu" "${a:-null}" \
		"${b:-null}" "${c:-null}" "${d:-null}" >> "$results"
done

py - "$results" "$nbytes" "$gpu" "$bounce_ok" "$bounce_why" "$json" "$offl" "$ingest_ok" "$ingest_why" "$modes" <<'PY'
import json, os, sys
path, nbytes, gpu, bounce_ok, why, out, OFFL, ingest_ok, iwhy, MODES = sys.argv[1:11]
nbytes = int(nbytes)
rows = [json.loads(l) for l in open(path) if l.strip()]
failed = []
def gbps(r):
    return r["bytes"] * 8 / r["seconds"] / 1e9 if r and r["seconds"] > 0 else None
for row in rows:
    for k in "abcd":
        r = row.get(k)
        if r is None:
            if k in MODES and (k != "b" or bounce_ok == "1") and (k != "d" or ingest_ok == "1"):
                failed.append("MTU %d (%s): no result" % (row["mtu"], k))
            continue
        r["gbps"] = round(gbps(r), 3)
        if r.get("receiver_bytes") != nbytes:
            failed.append("MTU %d (%s): receiver got %s of %d bytes" %
                          (row["mtu"], k, r.get("receiver_bytes"), nbytes))
        if k == "d" and (r.get("mismatches") != 0 or
                         r.get("checksum") != r.get("expected_checksum")):
            failed.append("MTU %d (d): %s mismatching bytes, checksum %s, expected %s" %
                          (row["mtu"], r.get("mismatches"), r.get("checksum"),
                           r.get("expected_checksum")))
    ga, gb, gc, gd = (row[k]["gbps"] if row.get(k) else None for k in "abcd")
    row["a_over_b"] = round(ga / gb, 3) if ga and gb else None
    row["a_over_c"] = round(ga / gc, 3) if ga and gc else None
    row["d_over_a"] = round(gd / ga, 3) if gd and ga else None
    row["d_over_b"] = round(gd / gb, 3) if gd and gb else None
f = lambda v: "%8.2f" % v if v is not None else "       -"
print("\n%-6s %18s %22s %14s %7s %7s" % ("MTU", "(a) devtcp-server", "(b) kernel + copy_", "(c) kernel", "a/b", "a/c"))
print("%-6s %18s %22s %14s" % ("", "Gb/s", "Gb/s", "Gb/s"))
for row in rows:
    g = [row[k]["gbps"] if row[k] else None for k in "abc"]
    print("%-6d %18s %22s %14s %7s %7s" % (row["mtu"], f(g[0]), f(g[1]), f(g[2]),
          "%.2f" % row["a_over_b"] if row["a_over_b"] else "-",
          "%.2f" % row["a_over_c"] if row["a_over_c"] else "-"))
    if row["a"] and row["a"].get("unregistered_copies_logged"):
        print("       (a): the copy engine logged copies from unregistered host memory")
if bounce_ok != "1":
    print("(b) skipped: %s" % why)
print("\n%-6s %22s %10s %14s %7s %7s" % ("MTU", "(d) ingest + PyTorch", "checked", "client CPU", "d/a", "d/b"))
for row in rows:
    d = row.get("d")
    if not d:
        print("%-6d %22s" % (row["mtu"], "-" if ingest_ok == "1" else "skipped"))
        continue
    print("%-6d %22s %10s %12.2f s %7s %7s" % (row["mtu"], f(d["gbps"]),
          "ok" if d["mismatches"] == 0 and d["checksum"] == d["expected_checksum"] else "BAD",
          d["cpu_seconds"], "%.2f" % row["d_over_a"] if row["d_over_a"] else "-",
          "%.2f" % row["d_over_b"] if row["d_over_b"] else "-"))
if ingest_ok != "1":
    print("(d) skipped: %s" % iwhy)
doc = {"program": "server-vs-bounce", "bytes_per_conn": nbytes, "gpu": gpu,
       "kernel": os.uname().release,
       "sender": "Linux kernel TCP in a namespace, one connection, offloads " + OFFL,
       "bounce": None if bounce_ok == "1" else "skipped: " + why,
       "ingest": None if ingest_ok == "1" else "skipped: " + iwhy,
       "results": rows, "errors": failed}
text = json.dumps(doc, indent=2)
print(text)
if out:
    with open(out, "w") as fh:
        fh.write(text + "\n")
for e in failed:
    print("server-vs-bounce: " + e, file=sys.stderr)
sys.exit(1 if failed else 0)
PY
