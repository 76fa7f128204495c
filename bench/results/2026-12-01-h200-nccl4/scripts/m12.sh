#!/bin/bash
# device run 12: the guarded scatter kernel (test_gpu_cuda incl. stage_bad); 4 stacks auto vs batch; 2 stacks auto
cd "$(dirname "$0")/.."
export GDR=1 ITERS=2
R=$OUT/r; mkdir -p $R; S=$SECONDS
timeout -k 5 150 .bundle/run.sh test_gpu_cuda --in-memory --no-pci -l 0 > $R/test_gpu_cuda.log 2>&1; echo "test_gpu_cuda rc $? at $((SECONDS - S)) s"
grep -E "^(ok|FAIL|not ok|SKIP)|stage_read|failed|passed" $R/test_gpu_cuda.log | tail -12
run() { local n=$1; shift; [ $((SECONDS - S)) -lt 400 ] || { echo "=== $n skipped (time)"; return; }
	echo "=== $n: T=$T $*"; env RUN_TIMEOUT=$T "$@" timeout -k 5 $((T * 2 + 30)) .bundle/run.sh h200-nccl.sh $R/$n $W > $R/$n.txt 2>&1; echo "rc $? at $((SECONDS - S)) s"
	cat $R/$n/compare.txt 2>/dev/null || sed -n '/^# /,/^vm/p' $R/$n/devtcp-rank0.log | head -14
	grep -h -i "refused\|LAUNCH\|bad message\|incorrect" $R/$n/devtcp-rank*.log | cut -c1-260 | head -5; }
T=60 W=devtcp run g STACKS=4 MTU=9000 MIN=8M MAX=1G NCCL_EXTRA=NCCL_MIN_NCHANNELS=4
T=60 W=devtcp run s STACKS=4 MTU=9000 MIN=8M MAX=1G GPU_ARGS=copy_mode=batch NCCL_EXTRA=NCCL_MIN_NCHANNELS=4
T=60 W=devtcp run g2 STACKS=2 MTU=9000 MIN=8M MAX=1G NCCL_EXTRA=NCCL_MIN_NCHANNELS=4
cd $OUT && tar czf r.tgz r && rm -rf r
