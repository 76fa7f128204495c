#!/bin/bash
# The next H200 call for issue 11, prepared on the VM (not run yet): one
# call of at most ~9 minutes. From the repository root on the GPU machine,
# with the bundle carried as .bundle (scripts/device-bundle.sh copies this
# script into .bundle/bin): bash .bundle/bin/h200-next.sh
#   u:  device-side unpack (UNPACK=yes, NCCL_PROTO=Simple for both
#       variants), 4 stacks, MTU 9000, 4 channels: does NCCL 2.28 take it,
#       is every result correct, and does it beat the gather?
#   g:  the same NCCL settings without unpack (the gather), for the A/B
#   e8: 8 channels (more steps in flight in a latency-bound pipeline)
#   mps: both transports under CUDA MPS (no time-slicing between the two
#       ranks' contexts), Socket first
# Keep test_gpu_cuda in the bundle (scripts/device-bundle.sh; delete the
# other test_* programs to stay small). Results: $OUT/r.tgz; each
# variant's compare.txt is printed.
cd "$(dirname "$0")/../.."
export GDR=1 ITERS=2
R=$OUT/r; mkdir -p "$R"; S=$SECONDS
# gpu_cuda's own cases first (6 s): the refused staged copy, failed().
timeout -k 5 120 .bundle/run.sh test_gpu_cuda --in-memory --no-pci -l 0 > "$R/test_gpu_cuda.log" 2>&1
echo "test_gpu_cuda rc $?"; tail -1 "$R/test_gpu_cuda.log"
run() { local n=$1; shift; [ $((SECONDS - S)) -lt 420 ] || { echo "=== $n skipped (time)"; return; }
	echo "=== $n: T=$T $*"
	env RUN_TIMEOUT=$T "$@" timeout -k 5 $((T * 2 + 30)) .bundle/run.sh h200-nccl.sh "$R/$n" "$W" > "$R/$n.txt" 2>&1
	echo "rc $? at $((SECONDS - S)) s"
	cat "$R/$n/compare.txt" 2>/dev/null || sed -n '/^# /,/^vm/p' "$R/$n/$W-rank0.log" | head -20
	grep -h -i "unpack\|LAUNCH\|incorrect\|refused" "$R/$n"/*-rank0.log | cut -c1-220 | head -4; }
T=90 W=both run u STACKS=4 MTU=9000 MIN=8M MAX=1G UNPACK=yes NCCL_EXTRA=NCCL_MIN_NCHANNELS=4
T=90 W=devtcp run g STACKS=4 MTU=9000 MIN=8M MAX=1G "NCCL_EXTRA=NCCL_MIN_NCHANNELS=4 NCCL_PROTO=Simple"
T=90 W=both run e8 STACKS=4 MTU=9000 MIN=8M MAX=1G NCCL_EXTRA=NCCL_MIN_NCHANNELS=8
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps_pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps_log
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
if nvidia-cuda-mps-control -d; then
	sleep 1
	T=60 W=socket run ms STACKS=4 MTU=9000 MIN=8M MAX=1G NCCL_EXTRA=NCCL_MIN_NCHANNELS=4
	T=60 W=devtcp run md STACKS=4 MTU=9000 MIN=8M MAX=1G NCCL_EXTRA=NCCL_MIN_NCHANNELS=4
	echo quit | nvidia-cuda-mps-control
	cp -r "$CUDA_MPS_LOG_DIRECTORY" "$R/mps_log"
fi
cd "$OUT" && tar czf r.tgz r && rm -rf r
