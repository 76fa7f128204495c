#!/bin/bash
# device run 13: no cuMemcpyBatchAsync (cuda_batch = no, gpu_cuda copy_mode=per_copy): the tables, 4 and 2 stacks
cd "$(dirname "$0")/.."
export GDR=1 ITERS=2
R=$OUT/r; mkdir -p $R; S=$SECONDS
run() { local n=$1; shift; [ $((SECONDS - S)) -lt 400 ] || { echo "=== $n skipped (time)"; return; }
	echo "=== $n: T=$T $*"; env RUN_TIMEOUT=$T "$@" timeout -k 5 $((T * 2 + 30)) .bundle/run.sh h200-nccl.sh $R/$n $W > $R/$n.txt 2>&1; echo "rc $? at $((SECONDS - S)) s"
	cat $R/$n/compare.txt 2>/dev/null || sed -n '/^# /,/^vm/p' $R/$n/devtcp-rank0.log | head -20
	grep -h -i "refused\|LAUNCH\|bad message\|incorrect\|streams" $R/$n/devtcp-rank*.log | cut -c1-260 | head -5; }
T=90 W=both run a STACKS=4 MTU=9000 MIN=8M MAX=1G NCCL_EXTRA=NCCL_MIN_NCHANNELS=4
T=90 W=both run b STACKS=2 MTU=9000 MIN=8M MAX=1G NCCL_EXTRA=NCCL_MIN_NCHANNELS=4
T=60 W=devtcp run c STACKS=4 MTU=9000 MIN=8M MAX=1G NCCL_EXTRA=NCCL_MIN_NCHANNELS=4
cd $OUT && tar czf r.tgz r && rm -rf r
