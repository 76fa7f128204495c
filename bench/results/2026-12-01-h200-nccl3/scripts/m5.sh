#!/bin/bash
# device run 5: the table again (2 stacks, MTU 9000, 4 channels); the same with events (no memops)
cd "$(dirname "$0")/.."
export GDR=1 ITERS=2
R=$OUT/r; mkdir -p $R; S=$SECONDS
run() { local n=$1; shift; [ $((SECONDS - S)) -lt 400 ] || { echo "=== $n skipped (time)"; return; }
	echo "=== $n: T=$T $*"; env RUN_TIMEOUT=$T "$@" timeout -k 5 $((T * 2 + 30)) .bundle/run.sh h200-nccl.sh $R/$n $W > $R/$n.txt 2>&1; echo "rc $? at $((SECONDS - S)) s"
	cat $R/$n/compare.txt 2>/dev/null || sed -n '/^# /,/^vm/p' $R/$n/devtcp-rank0.log | head -20; }
T=150 W=both run t1 STACKS=2 MTU=9000 MIN=8M MAX=1G NCCL_EXTRA=NCCL_MIN_NCHANNELS=4
T=150 W=devtcp run t2 STACKS=2 MTU=9000 MIN=8M MAX=1G GPU_ARGS=completion=event "NCCL_EXTRA=NCCL_MIN_NCHANNELS=4 DEVTCP_NCCL_CUDA_EVENTS=1"
cd $OUT && tar czf r.tgz r && rm -rf r
