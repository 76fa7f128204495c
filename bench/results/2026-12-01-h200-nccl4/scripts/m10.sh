#!/bin/bash
# device run 10: shared send engine (fewer CUDA streams): 4 stacks 4 channels; the table again (2 stacks, 4 channels)
cd "$(dirname "$0")/.."
export GDR=1 ITERS=2
R=$OUT/r; mkdir -p $R; S=$SECONDS
run() { local n=$1; shift; [ $((SECONDS - S)) -lt 400 ] || { echo "=== $n skipped (time)"; return; }
	echo "=== $n: T=$T $*"; env RUN_TIMEOUT=$T "$@" timeout -k 5 $((T * 2 + 30)) .bundle/run.sh h200-nccl.sh $R/$n $W > $R/$n.txt 2>&1; echo "rc $? at $((SECONDS - S)) s"
	cat $R/$n/compare.txt 2>/dev/null || sed -n '/^# /,/^vm/p' $R/$n/devtcp-rank0.log | head -14
	grep -h -i "streams\|incorrect\|WRONG\|LAUNCH" $R/$n/devtcp-rank*.log | head -6; grep -h "rx_q[0-9]*_pending [1-9]" -o $R/$n/devtcp-rank*.log | sort | uniq -c | head; }
T=110 W=both run a STACKS=4 MTU=9000 MIN=8M MAX=1G NCCL_EXTRA=NCCL_MIN_NCHANNELS=4
T=110 W=both run b STACKS=2 MTU=9000 MIN=8M MAX=1G NCCL_EXTRA=NCCL_MIN_NCHANNELS=4
cd $OUT && tar czf r.tgz r && rm -rf r
