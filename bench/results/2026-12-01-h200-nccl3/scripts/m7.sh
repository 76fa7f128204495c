#!/bin/bash
# device run 7: one 4-stack stall with the new gauges and interface drop counters
cd "$(dirname "$0")/.."
R=$OUT/r; mkdir -p $R
env RUN_TIMEOUT=45 GDR=1 ITERS=2 STACKS=4 MTU=9000 MIN=8M MAX=64M timeout -k 5 110 .bundle/run.sh h200-nccl.sh $R/a devtcp > $R/a.txt 2>&1; echo "rc $?"
grep -h "queues:\|  port devtcp\|free/total" $R/a/devtcp-rank*.log | cut -c80- | sort -u | head -30
cd $OUT && tar czf r.tgz r && rm -rf r
