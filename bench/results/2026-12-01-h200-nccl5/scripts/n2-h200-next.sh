#!/bin/bash
# The next H200 call for issue 11 (fifth session), prepared on the VM: one
# call of at most ~6 minutes. From the repository root on the GPU machine,
# with the bundle carried as .bundle (scripts/device-bundle.sh copies this
# script into .bundle/bin): bash .bundle/bin/h200-next.sh
# All: 4 stacks per rank, MTU 9000, NCCL_MIN_NCHANNELS=4, unpack (NCCL's
# kernel copies out of the payload region; both variants NCCL_PROTO=Simple).
#   s1: net_hsplit's single RX socket of before (iface_rx_sockets=1), devtcp
#   f:  one RX socket per queue in a fanout group (the default now), both
#       transports: does draining the veth in parallel lift the wire rate?
#   mf: f under CUDA MPS (no time-slicing between the two ranks' contexts),
#       both transports
#   f6: 6 stacks per rank (the most 16 cores take), fanout, devtcp
# Results: $OUT/r.tgz; each variant's table is printed, with the drain and
# kick cycle counters of rank 0's port.
cd "$(dirname "$0")/../.."
export GDR=1 ITERS=2 UNPACK=yes
R=$OUT/r; mkdir -p "$R"; S=$SECONDS
run() { local n=$1; shift; [ $((SECONDS - S)) -lt 330 ] || { echo "=== $n skipped (time)"; return; }
	echo "=== $n: T=$T $*"
	env RUN_TIMEOUT=$T "$@" timeout -k 5 $((T * 2 + 30)) .bundle/run.sh h200-nccl.sh "$R/$n" "$W" > "$R/$n.txt" 2>&1
	echo "rc $? at $((SECONDS - S)) s"
	cat "$R/$n/compare.txt" 2>/dev/null || sed -n '/^# /,/^vm/p' "$R/$n/devtcp-rank0.log" | head -20
	grep -h -o "iface_rx_sockets[^ ]* [0-9]*\|iface_rx_drain[a-z_]* [0-9]*\|iface_tx_kick[a-z_]* [0-9]*\|iface_rx_frames [0-9]*\|iface_rx_kernel_drops [0-9]*" "$R/$n"/devtcp-rank0.log | tr '\n' ' '; echo
	grep -h "data arrival\|incorrect\|LAUNCH\|refused" "$R/$n"/devtcp-rank0.log | cut -c1-200 | head -3; }
T=60 W=devtcp run s1 STACKS=4 MTU=9000 MIN=8M MAX=1G HSPLIT_ARGS=iface_rx_sockets=1 NCCL_EXTRA=NCCL_MIN_NCHANNELS=4
T=90 W=both run f STACKS=4 MTU=9000 MIN=8M MAX=1G NCCL_EXTRA=NCCL_MIN_NCHANNELS=4
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps_pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps_log
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
if nvidia-cuda-mps-control -d; then
	sleep 1
	T=90 W=both run mf STACKS=4 MTU=9000 MIN=8M MAX=1G NCCL_EXTRA=NCCL_MIN_NCHANNELS=4
	echo quit | nvidia-cuda-mps-control
	sleep 1
fi
unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
T=60 W=devtcp run f6 STACKS=6 MTU=9000 MIN=8M MAX=1G NCCL_EXTRA=NCCL_MIN_NCHANNELS=4
cd "$OUT" && tar czf r.tgz r && rm -rf r
