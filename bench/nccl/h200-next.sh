#!/bin/bash
# H200 call for issue 11 (fifth session, ninth call): the tables with the
# new default (gpu_cuda copy_mode=staged_per_copy,stage_max=16384 from
# h200-nccl.sh / the plugin). From the repository root on the GPU machine,
# with the bundle carried as .bundle: bash .bundle/bin/h200-next.sh
# 4 stacks, MTU 9000, NCCL_MIN_NCHANNELS=4, both transports in each:
#   t:  unpack (both transports NCCL_PROTO=Simple)
#   tg: no unpack (the plugin's gather), NCCL's default protocols
#   tm: t under CUDA MPS
# Results: $OUT/r.tgz.
cd "$(dirname "$0")/../.."
export ITERS=2 GDR=1
R=$OUT/r; mkdir -p "$R"; S=$SECONDS
run() { local n=$1; shift; [ $((SECONDS - S)) -lt 150 ] || { echo "=== $n skipped (time)"; return; }
	echo "=== $n: T=$T $*"
	env RUN_TIMEOUT=$T "$@" timeout -k 5 $((T * 2 + 30)) .bundle/run.sh h200-nccl.sh "$R/$n" "$W" > "$R/$n.txt" 2>&1
	echo "rc $? at $((SECONDS - S)) s"
	cat "$R/$n/compare.txt" 2>/dev/null || tail -5 "$R/$n.txt"
	grep -h "copy engines\|LAUNCH\|incorrect\|refused" "$R/$n"/devtcp-rank0.log | cut -c100-230 | head -2; }
T=80 W=both run t UNPACK=yes STACKS=4 MTU=9000 MIN=8M MAX=1G NCCL_EXTRA=NCCL_MIN_NCHANNELS=4
T=80 W=both run tg STACKS=4 MTU=9000 MIN=8M MAX=1G NCCL_EXTRA=NCCL_MIN_NCHANNELS=4
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps_pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps_log
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
if nvidia-cuda-mps-control -d; then
	sleep 1
	T=80 W=both run tm UNPACK=yes STACKS=4 MTU=9000 MIN=8M MAX=1G NCCL_EXTRA=NCCL_MIN_NCHANNELS=4
	echo quit | nvidia-cuda-mps-control
fi
cd "$OUT" && tar czf r.tgz r && rm -rf r
