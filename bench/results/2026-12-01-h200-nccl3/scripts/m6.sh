#!/bin/bash
# device run 6: MTU 9000, 2 stacks, 4 channels: is the corruption tied to staged copies?
cd "$(dirname "$0")/.."
export GDR=1 ITERS=2
R=$OUT/r; mkdir -p $R; S=$SECONDS
run() { local n=$1; shift; [ $((SECONDS - S)) -lt 300 ] || { echo "=== $n skipped (time)"; return; }
	echo "=== $n: T=$T $*"; env RUN_TIMEOUT=$T "$@" timeout -k 5 $((T * 2 + 30)) .bundle/run.sh h200-nccl.sh $R/$n $W > $R/$n.txt 2>&1; echo "rc $? at $((SECONDS - S)) s"
	sed -n '/^# /,/^vm/p' $R/$n/devtcp-rank0.log | grep -c " yes$" ; grep -h " NO$\|LAUNCH\|ILLEGAL\|MISALIGNED" $R/$n/devtcp-rank*.log | cut -c1-200 | head -4; }
for i in 1 2; do T=80 W=devtcp run b$i STACKS=2 MTU=9000 MIN=8M MAX=1G GPU_ARGS=copy_mode=batch NCCL_EXTRA=NCCL_MIN_NCHANNELS=4; done
for i in 1 2; do T=80 W=devtcp run a$i STACKS=2 MTU=9000 MIN=8M MAX=1G NCCL_EXTRA=NCCL_MIN_NCHANNELS=4; done
cd $OUT && tar czf r.tgz r && rm -rf r
