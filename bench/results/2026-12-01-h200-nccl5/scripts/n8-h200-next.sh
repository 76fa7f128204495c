#!/bin/bash
# H200 call for issue 11 (fifth session, eighth call): fewer CUDA copy
# operations per frame. From the repository root on the GPU machine, with
# the bundle carried as .bundle (keep test_gpu_cuda in it):
# bash .bundle/bin/h200-next.sh
#   test_gpu_cuda: the new copy_mode=staged_per_copy cases
#   p:  4 stacks, MTU 9000, 4 channels, unpack, GDR=1, profile: per_copy
#       (one cuMemcpyAsync per frame's payload, the default), devtcp only
#   s:  the same with gpu_cuda copy_mode=staged_per_copy,stage_max=16384
#       (the NIC's small H2D copies of a submit go through one scatter
#       kernel launch), both transports
# Results: $OUT/r.tgz.
cd "$(dirname "$0")/../.."
export ITERS=2 PROFILE=yes
R=$OUT/r; mkdir -p "$R"; S=$SECONDS
timeout -k 5 120 .bundle/run.sh test_gpu_cuda --in-memory --no-pci -l 0 > "$R/test_gpu_cuda.log" 2>&1
echo "test_gpu_cuda rc $?"; grep -i "fail\|staged-per-copy" "$R/test_gpu_cuda.log" | head -8; tail -1 "$R/test_gpu_cuda.log"
run() { local n=$1; shift; [ $((SECONDS - S)) -lt 200 ] || { echo "=== $n skipped (time)"; return; }
	echo "=== $n: T=$T $*"
	env RUN_TIMEOUT=$T "$@" timeout -k 5 $((T * 2 + 30)) .bundle/run.sh h200-nccl.sh "$R/$n" "$W" > "$R/$n.txt" 2>&1
	echo "rc $? at $((SECONDS - S)) s"
	cat "$R/$n/compare.txt" 2>/dev/null || sed -n '/^# /,/^vm/p' "$R/$n/devtcp-rank0.log" | grep "^all_" | awk '{print $1, $2, $5, $6}' | tr '\n' ';'; echo
	grep -h -o "rx_q1_copy_latency_[a-z]* [0-9]*\|rx_q1_copy_calls [0-9]*\|tx_q0_copy_latency_[a-z]* [0-9]*" "$R/$n"/devtcp-rank0.log | tr '\n' ' '; echo
	grep -h "copy engines\|staging\|stage\|LAUNCH\|incorrect" "$R/$n"/devtcp-rank0.log | cut -c1-200 | head -4
	grep -h "stack 0 loop (profile)\|stack 0 receives" "$R/$n"/devtcp-rank0.log | sed 's/.*NET.devtcp : //' | cut -c1-200; }
T=60 W=devtcp run p GDR=1 UNPACK=yes STACKS=4 MTU=9000 MIN=8M MAX=1G NCCL_EXTRA=NCCL_MIN_NCHANNELS=4
T=90 W=both run s GDR=1 UNPACK=yes STACKS=4 MTU=9000 MIN=8M MAX=1G GPU_ARGS=copy_mode=staged_per_copy,stage_max=16384 NCCL_EXTRA=NCCL_MIN_NCHANNELS=4
cd "$OUT" && tar czf r.tgz r && rm -rf r
