#!/usr/bin/env bash
# NCCL over devtcp vs NCCL's Socket transport on one GPU machine: two ranks
# on GPU 0, each its own "host" (NCCL_HOSTID) in its own network namespace,
# joined by a veth pair (the data wire) and a second pair for bootstrap.
# Runs bench/nccl/nccl_bench.py (all_reduce and all_gather, results checked
# exactly) with NCCL_NET_PLUGIN=devtcp over the data pair, then with
# NCCL_NET=Socket over the same pair, and prints both tables side by side.
#
# From the bundle (scripts/device-bundle.sh), as root:
#   .bundle/run.sh h200-nccl.sh [OUTDIR] [both|devtcp|socket|p2p|all]
#   p2p: NCCL's own path between the ranks' GPUs (one NCCL host: P2P over
#   NVLink/PCIe, NCCL_NVLS_ENABLE=0), the upper reference of a two-GPU run
#   (RANK_GPUS=0,1); all: devtcp, socket and p2p.
# Environment: MIN (8M), MAX (1G), ITERS (5), MTU (1500), GPU (0),
#   RANK_GPUS (unset: both ranks on GPU; "0,1": rank 0 on GPU 0, rank 1 on
#   GPU 1, each seeing only its own: the two-GPU run of issue 27, on a
#   machine of two GPUs; TORCH_SYMM_MEM_DISABLE_MULTICAST=1 and
#   NVSHMEM_DISABLE_NVLS=1 are set in every rank besides NCCL_NVLS_ENABLE=0),
#   PY (python3), NCCL_EXTRA ("VAR=value ..." added to both ranks),
#   GDR (1: NCCL gives the plugin CUDA buffers; 0: host buffers),
#   RUN_TIMEOUT (seconds per variant, 0: none; a hung run is killed and its
#   stall reports printed), WINDOW (per-flow TCP window, 4M), RING (frames
#   of each net_hsplit AF_PACKET RX ring, 32768), STACKS (1), WIRE_BUFS,
#   GPU_ARGS (devargs added to the gpu_cuda vdev, e.g. completion=event),
#   FLOWS (4: TCP flows per comm, [nccl] flows),
#   PROFILE (no; yes: [nccl] profile = yes, where the stack lcores' time goes),
#   GPU_VDEV (the payload region's vdev instead of gpu_cuda0,device=0, e.g.
#   gpu_sim0,size=2G with GDR=0: payload in host memory, no GPU copies of
#   devtcp's own, as a control),
#   HSPLIT_ARGS (devargs added to the net_hsplit vdev, e.g.
#   iface_rx_sockets=1 for the single RX socket of before),
#   UNPACK (no; auto: the plugin's default, unpack only where NCCL's
#   environment allows it (NCCL_EXTRA="NCCL_PAT_ENABLE=0"), NCCL's
#   settings left alone; yes: [nccl] unpack = yes, NCCL's kernel copies received
#   chunks out of the payload region; both variants then run with
#   NCCL_PAT_ENABLE=0 NCCL_GRAPH_REGISTER=0 NCCL_LOCAL_REGISTER=0 --
#   docs/nccl.md; NCCL's default protocols unless UNPACK_PROTO, e.g.
#   UNPACK_PROTO=Simple as before LL/LL128 were written in place),
#   CUDA_BATCH (no: [nccl] cuda_batch = no and the gpu_cuda vdev gets
#   copy_mode=staged_per_copy,stage_max=16384 unless GPU_ARGS names a
#   copy_mode (the NIC's uploads through one scatter kernel per submit,
#   never cuMemcpyBatchAsync; per_copy: one call each); yes: both
#   through cuMemcpyBatchAsync, which faulted here -- docs/nccl.md),
#   CUDA_CONNS (32: CUDA_DEVICE_MAX_CONNECTIONS of both ranks, both variants;
#   the plugin's copy streams beyond it share hardware queues with NCCL's
#   kernels and stall -- docs/nccl.md),
#   OFFLOADS (off: the data pair's checksum/TSO/GSO/GRO offloads off, the
#   same wire for both; on: the kernel's defaults, for the socket variant's
#   best case -- devtcp's port does no TSO and drops merged frames).
# OUTDIR gets devtcp.json, socket.json, compare.txt and NCCL's INFO logs.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out=${1:-nccl-out}
which=${2:-both}
MIN=${MIN:-8M} MAX=${MAX:-1G} ITERS=${ITERS:-5} MTU=${MTU:-1500} GPU=${GPU:-0}
GDR=${GDR:-1} RUN_TIMEOUT=${RUN_TIMEOUT:-0} WINDOW=${WINDOW:-4M} RING=${RING:-32768}
OFFLOADS=${OFFLOADS:-off}
STACKS=${STACKS:-1} WIRE_BUFS=${WIRE_BUFS:-16384} CUDA_BATCH=${CUDA_BATCH:-no}
UNPACK=${UNPACK:-no}
case "$UNPACK" in yes|no|auto) ;; *) echo "h200-nccl: UNPACK=$UNPACK: give yes, no or auto" >&2; exit 1 ;; esac
case "$CUDA_BATCH" in
yes) ;;
no) case ",${GPU_ARGS:-}," in *,copy_mode=*) ;; *) GPU_ARGS=${GPU_ARGS:+$GPU_ARGS,}copy_mode=staged_per_copy,stage_max=16384 ;; esac ;;
*) echo "h200-nccl: CUDA_BATCH=$CUDA_BATCH: give yes or no" >&2; exit 1 ;;
esac
PY=${PY:-python3}
plugin=$root/plugins/libnccl-net-devtcp.so
bench=$here/nccl_bench.py
[ -f "$plugin" ] || plugin=$root/lib/libnccl-net-devtcp.so
[ -f "$plugin" ] || { echo "h200-nccl: libnccl-net-devtcp.so not in the bundle" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "h200-nccl: needs root (namespaces, AF_PACKET)" >&2; exit 1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)

# The bundle's libraries serve the plugin (its RPATH finds them); torch keeps
# the machine's own.
eal_d=${DEVTCP_EAL_ARGS:-}
bundle_ld=${LD_LIBRARY_PATH:-}
unset LD_LIBRARY_PATH
# The GPU machine's image has no iproute2 or ethtool: the bundle carries
# them (next to this script) with their libraries in the bundle's lib/;
# what "ip netns exec" starts gets the machine's own libraries back.
ethtool_bin=ethtool
command -v ethtool >/dev/null || ethtool_bin="env LD_LIBRARY_PATH=$bundle_ld $here/ethtool"
if ! command -v ip >/dev/null && [ -x "$here/ip" ]; then
	ip() {
		if [ "$1" = netns ] && [ "$2" = exec ]; then
			local ns=$3
			shift 3
			LD_LIBRARY_PATH="$bundle_ld" "$here/ip" netns exec "$ns" \
				env -u LD_LIBRARY_PATH "$@"
		else
			LD_LIBRARY_PATH="$bundle_ld" "$here/ip" "$@"
		fi
	}
fi
if [ "$(awk '/HugePages_Total/ {print $2}' /proc/meminfo)" -lt 2048 ]; then
	echo 2048 > /proc/sys/vm/nr_hugepages || true
fi

ns_a=dtnccl_a ns_b=dtnccl_b
cleanup() {
	local p
	for p in $(ip netns pids "$ns_a" 2>/dev/null) $(ip netns pids "$ns_b" 2>/dev/null); do
		kill "$p" 2>/dev/null || true
	done
	ip netns del "$ns_a" 2>/dev/null || true
	ip netns del "$ns_b" 2>/dev/null || true
}
trap cleanup EXIT
cleanup
ip netns add "$ns_a"
ip netns add "$ns_b"
# data wire dA <-> dB; bootstrap wire cA <-> cB
ip link add dA netns "$ns_a" type veth peer name dB netns "$ns_b"
ip link add cA netns "$ns_a" type veth peer name cB netns "$ns_b"
for side in a b; do
	ns=dtnccl_$side; S=${side^^}
	n=$([ $side = a ] && echo 1 || echo 2)
	ip -n "$ns" link set lo up
	ip netns exec "$ns" sysctl -qw "net.ipv6.conf.d$S.disable_ipv6=1"
	[ "$OFFLOADS" = on ] ||
		ip netns exec "$ns" $ethtool_bin -K "d$S" rx off tx off tso off gso off gro off >/dev/null 2>&1 || true
	ip -n "$ns" link set "d$S" mtu "$MTU" up
	ip -n "$ns" addr add "10.90.0.$n/24" dev "c$S"
	ip -n "$ns" link set "c$S" up
done

conf() {  # side ipv4 stack-lcores
	cat > "$out/devtcp-$1.ini" <<INI
[port]
name = net_hsplit0
mtu = $MTU
tx_cksum = yes
[stack]
ipv4 = $2
netmask = 255.255.255.0
[devmem]
gpu = auto
buffers = 65536
buffer_size = $([ "$MTU" -gt 4000 ] && echo 9216 || echo 2048)
header_buffers = 65536
[limits]
# What the receive comms have in flight (flows x comms x window) should fit
# the AF_PACKET ring (RING frames): the kernel drops what does not.
window = $WINDOW
[lcores]
stacks = $3
[nccl]
flows = ${FLOWS:-4}
pci_path = none
stall_report = 20000
cuda_batch = $CUDA_BATCH
unpack = $UNPACK
profile = ${PROFILE:-no}
INI
}

rank() {  # variant side rank
	local variant=$1 side=$2 r=$3 S=${2^^} env gpu=$GPU gpus
	if [ -n "${RANK_GPUS:-}" ]; then
		IFS=, read -r -a gpus <<< "$RANK_GPUS"
		gpu=${gpus[$r]:?RANK_GPUS names no GPU for rank $r}
	fi
	env=(NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,ENV NCCL_NVLS_ENABLE=0
		TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
		NCCL_HOSTID="host$S" RANK=$r WORLD_SIZE=2 LOCAL_RANK=0
		CUDA_VISIBLE_DEVICES=$gpu MASTER_ADDR=10.90.0.1 MASTER_PORT=29555
		CUDA_DEVICE_MAX_CONNECTIONS=${CUDA_CONNS:-32})
	# What NCCL's unpack path needs, for both variants alike.
	if [ "$UNPACK" = yes ]; then
		# LL/LL128 receives are written in place: any NCCL_PROTO
		# (UNPACK_PROTO=Simple gives the runs before that change).
		env+=(NCCL_PAT_ENABLE=0 NCCL_GRAPH_REGISTER=0 NCCL_LOCAL_REGISTER=0
			${UNPACK_PROTO:+NCCL_PROTO=$UNPACK_PROTO})
	fi
	if [ "$variant" = devtcp ]; then
		# lcores: EAL's main lcore, then STACKS stack lcores, per rank.
		local l0=$((2 + r * (STACKS + 1))) l1=$((2 + r * (STACKS + 1) + STACKS))
		if [ "$GDR" = 1 ]; then
			env+=(NCCL_NET_GDR_LEVEL=SYS NCCL_NET_GDR_READ=1)
		else
			env+=(NCCL_NET_GDR_LEVEL=LOC)
		fi
		env+=(NCCL_NET_PLUGIN="$plugin" NCCL_NET=devtcp NCCL_SOCKET_IFNAME="c$S"
			DEVTCP_NCCL_CONFIG="$out/devtcp-$side.ini"
			DEVTCP_NCCL_EAL="-l $l0-$l1 --in-memory --file-prefix dtnccl$r --no-pci $eal_d --vdev=net_hsplit0,iface=d$S,iface_ring=$RING,wire_bufs=$WIRE_BUFS${HSPLIT_ARGS:+,$HSPLIT_ARGS} --vdev=${GPU_VDEV:-gpu_cuda0,device=0${GPU_ARGS:+,$GPU_ARGS}}")
	elif [ "$variant" = p2p ]; then
		# One host for NCCL: it picks P2P between the GPUs, no network.
		# The ranks sit in two network namespaces, and NCCL passes cuMem
		# handles over abstract Unix sockets, which do not cross them:
		# legacy CUDA IPC handles instead (NCCL_CUMEM_ENABLE=0; not run yet).
		env=("${env[@]/NCCL_HOSTID=host$S/NCCL_HOSTID=hostAB}")
		env+=(NCCL_NET_PLUGIN=none NCCL_SOCKET_IFNAME="c$S" NCCL_CUMEM_ENABLE=0)
	else
		env+=(NCCL_NET_PLUGIN=none NCCL_NET=Socket NCCL_SOCKET_IFNAME="d$S")
	fi
	# shellcheck disable=SC2086
	local tmo=()
	[ "$RUN_TIMEOUT" = 0 ] || tmo=(timeout -k 5 "$RUN_TIMEOUT")
	ip netns exec "dtnccl_$side" ${tmo[@]+"${tmo[@]}"} env "${env[@]}" ${NCCL_EXTRA:-} \
		"$PY" "$bench" --min "$MIN" --max "$MAX" --iters "$ITERS" \
		--label "$variant" --json "$out/$variant.json" \
		> "$out/$variant-rank$r.log" 2>&1
}

run() {  # variant
	local v=$1 pa pb rc=0
	if [ "$v" = socket ]; then
		ip -n "$ns_a" addr add 10.89.0.1/24 dev dA
		ip -n "$ns_b" addr add 10.89.0.2/24 dev dB
	else
		ip -n "$ns_a" addr flush dev dA
		ip -n "$ns_b" addr flush dev dB
		conf a 10.89.1.1 "$(seq -s, 3 $((2 + STACKS)))"
		conf b 10.89.1.2 "$(seq -s, $((4 + STACKS)) $((3 + 2 * STACKS)))"
	fi
	echo "== $v: all_reduce / all_gather $MIN..$MAX, MTU $MTU, $STACKS stack(s), offloads $OFFLOADS"
	rank "$v" a 0 & pa=$!
	rank "$v" b 1 & pb=$!
	wait $pa || rc=$?
	wait $pb || rc=$?
	grep -h -E "NET/devtcp|NET/Plugin|Using network|via NET|NET/Socket|via P2P" \
		"$out/$v-rank0.log" "$out/$v-rank1.log" > "$out/nccl-info-$v.txt" || true
	sed -n '/^# /,$p' "$out/$v-rank0.log"
	# The plugin's reports of requests pending for stall_report ms.
	grep -h -A 8 "pending for" "$out/$v-rank0.log" "$out/$v-rank1.log" \
		> "$out/stalls-$v.txt" 2>/dev/null && {
		echo "h200-nccl: $v: stalled requests (first reports, $out/stalls-$v.txt):"
		head -24 "$out/stalls-$v.txt"; }
	[ $rc = 0 ] || { echo "h200-nccl: $v run failed ($rc); see $out/$v-rank*.log" >&2; tail -20 "$out/$v-rank0.log" >&2; }
	if [ "$v" = socket ]; then
		ip -n "$ns_a" addr flush dev dA
		ip -n "$ns_b" addr flush dev dB
	fi
	return $rc
}

rc=0
case $which in
both) run devtcp || rc=1; run socket || rc=1 ;;
devtcp|socket|p2p) run "$which" || rc=1 ;;
all) run devtcp || rc=1; run socket || rc=1; run p2p || rc=1 ;;
*) echo "usage: $0 [OUTDIR] [both|devtcp|socket|p2p|all]" >&2; exit 2 ;;
esac

if [ -f "$out/devtcp.json" ] && [ -f "$out/socket.json" ]; then
	"$PY" - "$out" <<'PYEOF' | tee "$out/compare.txt"
import json, os, sys
d = json.load(open(sys.argv[1] + "/devtcp.json"))["rows"]
s = json.load(open(sys.argv[1] + "/socket.json"))["rows"]
p2p = sys.argv[1] + "/p2p.json"
if os.path.exists(p2p):
    for a, c in zip(d, json.load(open(p2p))["rows"]):
        print(f"p2p reference {c['op']:<11} {c['bytes']:>11}: busbw {c['busbw_GBps']:.3f} "
              f"GB/s {'y' if c['correct'] else 'N'}, devtcp at {a['busbw_GBps'] / c['busbw_GBps']:.3f} of it")
print(f"{'op':<11} {'bytes':>11} | {'devtcp algbw':>12} {'busbw':>7} ok | "
      f"{'socket algbw':>12} {'busbw':>7} ok | ratio")
for a, b in zip(d, s):
    print(f"{a['op']:<11} {a['bytes']:>11} | {a['algbw_GBps']:>12.3f} "
          f"{a['busbw_GBps']:>7.3f} {'y' if a['correct'] else 'N'}  | "
          f"{b['algbw_GBps']:>12.3f} {b['busbw_GBps']:>7.3f} "
          f"{'y' if b['correct'] else 'N'}  | {a['busbw_GBps'] / b['busbw_GBps']:.2f}")
PYEOF
fi
echo "NCCL's lines naming the transport: $out/nccl-info-*.txt"
exit $rc
