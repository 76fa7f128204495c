#!/bin/bash
# device run 8: 4 stacks with CUDA_DEVICE_MAX_CONNECTIONS=32 (false stream dependencies?)
cd "$(dirname "$0")/.."
R=$OUT/r; mkdir -p $R
env RUN_TIMEOUT=40 GDR=1 ITERS=2 STACKS=4 MTU=9000 MIN=8M MAX=256M NCCL_EXTRA=CUDA_DEVICE_MAX_CONNECTIONS=32 timeout -k 5 100 .bundle/run.sh h200-nccl.sh $R/a devtcp > $R/a.txt 2>&1; echo "rc $?"
sed -n '/^# /,/^vm/p' $R/a/devtcp-rank0.log | head -16; grep -h "rx_q[0-9]_pending" $R/a/devtcp-rank*.log | grep -o "rx_q[0-9]_pending [0-9]*" | sort -u | head
cd $OUT && tar czf r.tgz r && rm -rf r
