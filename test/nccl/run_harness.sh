#!/usr/bin/env bash
# Runs nccl_harness between two devtcp plugin instances joined by a veth
# pair in the root namespace: each process owns one end through
# net_hsplit's iface= backend (offloads off), payload into gpu_sim, its own
# --file-prefix. Removes the pair and whatever it started on any exit.
#
# usage: run_harness.sh HARNESS PLUGIN CASE [VERSION] [-- EXTRA_DEVARGS]
#   EXTRA_DEVARGS are appended to both net_hsplit vdevs (e.g. loss=0.01).
# NCCL_HARNESS_STACKS=2 or 4: that many stacks per process (lib/dp's
# steered mode), their lcores spread over the two CPUs.
# NCCL_HARNESS_MTU (1500): the pair's and the ports' MTU (9000: 9216-byte
# device buffers).
# Exit 77 (skipped) when not root or veth is unavailable.
set -u
harness=$1 plugin=$2 case=$3
shift 3
ver=v11
if [ $# -gt 0 ] && [ "$1" != "--" ]; then ver=$1; shift; fi
[ "${1:-}" = "--" ] && shift
extra=${1:-}

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: needs root (veth, AF_PACKET)"
	exit 77
fi
for t in ip ethtool; do
	command -v "$t" >/dev/null || { echo "SKIP: $t not installed"; exit 77; }
done

mtu=${NCCL_HARNESS_MTU:-1500}
bsz=2048
[ "$mtu" -le 1500 ] || bsz=9216
a="dtncA$$"
b="dtncB$$"
tmp=$(mktemp -d /tmp/devtcp-nccl.XXXXXX)
child=""
cleanup() {
	[ -z "$child" ] || kill -TERM "$child" 2>/dev/null
	ip link del "$a" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

if ! ip link add "$a" type veth peer name "$b" 2>"$tmp/err"; then
	echo "SKIP: cannot create a veth pair: $(cat "$tmp/err")"
	exit 77
fi
for i in "$a" "$b"; do
	# No kernel traffic on the wire (IPv6 autoconf) and no offloads that
	# would leave AF_PACKET partial checksums or merged frames.
	sysctl -qw "net.ipv6.conf.$i.disable_ipv6=1" 2>/dev/null || true
	ethtool -K "$i" rx off tx off tso off gso off gro off lro off >/dev/null 2>&1 || true
	ip link set "$i" mtu "$mtu" up
done

# Short TCP timeouts so that a dead peer is noticed in seconds.
conf() {
	cat > "$tmp/$1.ini" <<INI
[port]
name = net_hsplit0
mtu = $mtu
tx_cksum = yes
lro = ${NCCL_HARNESS_LRO:-no}

$lcores_conf
[stack]
ipv4 = $2
netmask = 255.255.255.0

[devmem]
gpu = auto
buffers = 32768
buffer_size = $bsz
header_buffers = 32768

[limits]
window = ${NCCL_HARNESS_WINDOW:-2M}
retries = 6
rto_max = 400
keepalive = yes
keepalive_idle = 500
keepalive_intvl = 200
keepalive_probes = 3

[nccl]
flows = 4
port_base = 47000
connect_timeout = 20000
stall_report = ${NCCL_HARNESS_STALL_MS:-10000}
unpack = $([ -n "${NCCL_HARNESS_UNPACK:-}" ] && echo harness || echo no)
profile = ${NCCL_HARNESS_PROFILE:-no}
INI
}
lcores_conf=""
lc_a="-l 0-1 --main-lcore 1" lc_b="-l 0-1 --main-lcore 0"
if [ "${NCCL_HARNESS_STACKS:-1}" = 2 ]; then
	lcores_conf=$'[lcores]\nstacks = 0,1\n'
	lc_a="--lcores=0@0,1@1,2@1 --main-lcore 2"
	lc_b="--lcores=0@0,1@1,2@0 --main-lcore 2"
elif [ "${NCCL_HARNESS_STACKS:-1}" = 4 ]; then
	lcores_conf=$'[lcores]\nstacks = 0,1,2,3\n'
	lc_a="--lcores=0@0,1@1,2@0,3@1,4@1 --main-lcore 4"
	lc_b="--lcores=0@0,1@1,2@0,3@1,4@0 --main-lcore 4"
fi
conf A 10.88.0.1
conf B 10.88.0.2
dev() { echo "--vdev=net_hsplit0,iface=$1${extra:+,$extra}"; }
# Anonymous memory by default: two processes of 512 MB would take every
# one of a shared machine's 512 hugepages (NCCL_HARNESS_HUGE=1: hugepages).
mem="--no-huge -m 1024"
[ "${NCCL_HARNESS_HUGE:-0}" = 1 ] && mem="--in-memory -m 512"
# Each process's stack lcore on its own CPU (2-core CI machines).
export NCCL_HARNESS_CONFIG_A="$tmp/A.ini" NCCL_HARNESS_CONFIG_B="$tmp/B.ini"
export NCCL_HARNESS_EAL_A="$lc_a $mem --file-prefix nccl_a_$$ --no-pci --log-level=lib.eal:warning $(dev "$a") --vdev=gpu_sim0,size=512M${NCCL_HARNESS_GPU_ARGS:+,$NCCL_HARNESS_GPU_ARGS}"
export NCCL_HARNESS_EAL_B="$lc_b $mem --file-prefix nccl_b_$$ --no-pci --log-level=lib.eal:warning $(dev "$b") --vdev=gpu_sim0,size=512M${NCCL_HARNESS_GPU_ARGS:+,$NCCL_HARNESS_GPU_ARGS}"

"$harness" "$plugin" "$case" "$ver" &
child=$!
wait "$child"
rc=$?
child=""
exit $rc
