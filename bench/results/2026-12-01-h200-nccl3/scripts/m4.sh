#!/bin/bash
# device run 4: which copy mode the 4-stack stall needs; the table (2 stacks, 4 channels)
cd "$(dirname "$0")/.."
export GDR=1 ITERS=2
R=$OUT/r; mkdir -p $R; S=$SECONDS
run() { local n=$1; shift; [ $((SECONDS - S)) -lt 430 ] || { echo "=== $n skipped (time)"; return; }
	echo "=== $n: T=$T $*"; env RUN_TIMEOUT=$T "$@" timeout -k 5 $((T * 2 + 30)) .bundle/run.sh h200-nccl.sh $R/$n $W > $R/$n.txt 2>&1; echo "rc $? at $((SECONDS - S)) s"
	cat $R/$n/compare.txt 2>/dev/null || sed -n '/^# /,/^vm/p' $R/$n/devtcp-rank0.log | head -14; grep -h "queues:" $R/$n/devtcp-rank*.log | cut -c60- | head -8; }
T=35 W=devtcp run p STACKS=4 MTU=9000 MIN=8M MAX=64M GPU_ARGS=copy_mode=per_copy
T=35 W=devtcp run s STACKS=4 MTU=9000 MIN=8M MAX=64M GPU_ARGS=copy_mode=batch
T=150 W=both run t STACKS=2 MTU=9000 MIN=8M MAX=1G NCCL_EXTRA=NCCL_MIN_NCHANNELS=4
T=90 W=both run u STACKS=2 MTU=1500 MIN=8M MAX=256M NCCL_EXTRA=NCCL_MIN_NCHANNELS=4
cd $OUT && tar czf r.tgz r && rm -rf r
