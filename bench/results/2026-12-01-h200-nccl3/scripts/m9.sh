#!/bin/bash
# device run 9: 4 stacks, MTU 9000, 4 channels, CUDA_DEVICE_MAX_CONNECTIONS=32, devtcp vs Socket
cd "$(dirname "$0")/.."
R=$OUT/r; mkdir -p $R
env RUN_TIMEOUT=50 GDR=1 ITERS=2 STACKS=4 MTU=9000 MIN=8M MAX=1G "NCCL_EXTRA=CUDA_DEVICE_MAX_CONNECTIONS=32 NCCL_MIN_NCHANNELS=4" timeout -k 5 115 .bundle/run.sh h200-nccl.sh $R/a both > $R/a.txt 2>&1; echo "rc $?"
cat $R/a/compare.txt 2>/dev/null || sed -n '/^# /,/^vm/p' $R/a/devtcp-rank0.log | head -20
cd $OUT && tar czf r.tgz r && rm -rf r
