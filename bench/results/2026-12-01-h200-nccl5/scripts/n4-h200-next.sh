#!/bin/bash
# H200 call for issue 11 (fifth session, fourth call): do more stacks, each
# a CPU-bound lcore, lift devtcp? From the repository root on the GPU
# machine, with the bundle carried as .bundle: bash .bundle/bin/h200-next.sh
# Unpack, MTU 9000, NCCL_MIN_NCHANNELS=4, both transports in each variant:
#   b6:  6 stacks per rank and 6 flows per comm (one flow per stack)
#   mb6: the same under CUDA MPS
# Results: $OUT/r.tgz; each variant's compare table printed.
cd "$(dirname "$0")/../.."
export GDR=1 ITERS=2 UNPACK=yes
R=$OUT/r; mkdir -p "$R"; S=$SECONDS
run() { local n=$1; shift; [ $((SECONDS - S)) -lt 200 ] || { echo "=== $n skipped (time)"; return; }
	echo "=== $n: T=$T $*"
	env RUN_TIMEOUT=$T "$@" timeout -k 5 $((T * 2 + 30)) .bundle/run.sh h200-nccl.sh "$R/$n" "$W" > "$R/$n.txt" 2>&1
	echo "rc $? at $((SECONDS - S)) s"
	cat "$R/$n/compare.txt" 2>/dev/null || tail -5 "$R/$n.txt"
	grep -h "polls [0-9]*, rx" "$R/$n"/devtcp-rank0.log | sed 's/.*NET.devtcp : //' | cut -c1-120 | head -6; }
T=90 W=both run b6 STACKS=6 FLOWS=6 MTU=9000 MIN=8M MAX=1G NCCL_EXTRA=NCCL_MIN_NCHANNELS=4
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps_pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps_log
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
if nvidia-cuda-mps-control -d; then
	sleep 1
	T=90 W=both run mb6 STACKS=6 FLOWS=6 MTU=9000 MIN=8M MAX=1G NCCL_EXTRA=NCCL_MIN_NCHANNELS=4
	echo quit | nvidia-cuda-mps-control
fi
cd "$OUT" && tar czf r.tgz r && rm -rf r
