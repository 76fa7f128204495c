#!/bin/bash
# device run 3: 4-stack stall diagnostics; NCCL channels; the table (MTU 9000, 2 stacks, 4 channels)
cd "$(dirname "$0")/.."
export GDR=1 MTU=9000 ITERS=2
R=$OUT/r; mkdir -p $R
run() { local n=$1; shift; echo "=== $n: $*"; env "$@" timeout -k 5 $((RUN_TIMEOUT * 2 + 30)) .bundle/run.sh h200-nccl.sh $R/$n $W > $R/$n.txt 2>&1; echo "rc $?"; cat $R/$n/compare.txt 2>/dev/null || sed -n '/^# /,/^vm/p' $R/$n/devtcp-rank0.log | head -14; }
W=devtcp run a STACKS=4 RUN_TIMEOUT=45 MIN=8M MAX=64M
grep -h "watchdog\|queues:\|tcp ESTAB\|stack [0-9]: rx" $R/a/devtcp-rank0.log | cut -c60- | head -40
W=both run b STACKS=2 RUN_TIMEOUT=100 MIN=8M MAX=256M NCCL_EXTRA=NCCL_MIN_NCHANNELS=8
W=both run t STACKS=2 RUN_TIMEOUT=200 MIN=8M MAX=1G NCCL_EXTRA=NCCL_MIN_NCHANNELS=4
cd $OUT && tar czf r.tgz r && rm -rf r
