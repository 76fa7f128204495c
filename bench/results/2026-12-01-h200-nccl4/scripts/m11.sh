#!/bin/bash
# device run 11: the rx release fix; which kernel faults with 4 stacks (CUDA core dumps: none were written); per_copy A/B; tables
cd "$(dirname "$0")/.."
export GDR=1 ITERS=2
R=$OUT/r; mkdir -p $R /tmp/cores; S=$SECONDS
CG=$(command -v cuda-gdb || echo /usr/local/cuda/bin/cuda-gdb); ls -la $CG
CORE="CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 CUDA_ENABLE_LIGHTWEIGHT_COREDUMP=1 CUDA_COREDUMP_FILE=/tmp/cores/core.%p"
run() { local n=$1; shift; [ $((SECONDS - S)) -lt 400 ] || { echo "=== $n skipped (time)"; return; }
	echo "=== $n: T=$T $*"; env RUN_TIMEOUT=$T "$@" timeout -k 5 $((T * 2 + 30)) .bundle/run.sh h200-nccl.sh $R/$n $W > $R/$n.txt 2>&1; echo "rc $? at $((SECONDS - S)) s"
	cat $R/$n/compare.txt 2>/dev/null || sed -n '/^# /,/^vm/p' $R/$n/devtcp-rank0.log | head -14
	grep -h -i "streams\|incorrect\|LAUNCH\|bad message" $R/$n/devtcp-rank*.log | cut -c1-200 | head -4; grep -h "rx_q[0-9]*_pending [1-9]" -o $R/$n/devtcp-rank*.log | sort | uniq -c | head -4
	ls -la /tmp/cores; }
T=60 W=devtcp run a STACKS=4 MTU=9000 MIN=8M MAX=1G "NCCL_EXTRA=NCCL_MIN_NCHANNELS=4 $CORE"
T=60 W=devtcp run p STACKS=4 MTU=9000 MIN=8M MAX=1G GPU_ARGS=copy_mode=per_copy "NCCL_EXTRA=NCCL_MIN_NCHANNELS=4 $CORE"
T=90 W=both run c STACKS=2 MTU=9000 MIN=8M MAX=1G "NCCL_EXTRA=NCCL_MIN_NCHANNELS=4 $CORE"
T=90 W=both run d STACKS=4 MTU=9000 MIN=8M MAX=1G "NCCL_EXTRA=NCCL_MIN_NCHANNELS=4 $CORE"
T=60 W=devtcp run e STACKS=2 MTU=9000 MIN=8M MAX=1G "NCCL_EXTRA=NCCL_MIN_NCHANNELS=4 $CORE"
for f in $(ls /tmp/cores/core.* 2>/dev/null | head -2); do [ -f "$f" ] || continue; echo "=== core $f"
	timeout 40 $CG -batch -ex "target cudacore $f" -ex "info cuda kernels" -ex "bt" 2>&1 | tail -25 | cut -c1-220; done
cd $OUT && tar czf r.tgz r && rm -rf r
