#!/usr/bin/env bash
n=${1:-7}
for i in $(seq 1 $n); do
  for v in before after; do
    l=$(uptime | sed 's/.*average: //')
    r=$(${BIN_DIR:-.}/devtcp-bench.$v -l 0-1 --in-memory --no-pci -m 512 --vdev=net_hsplit0,wire=wperf$$ --vdev=net_hsplit1,wire=wperf$$ --vdev=gpu_sim0,size=256M -- --mode split --duration 3 --quiet 2>&1 | grep '^split')
    echo "$v | $l | $r"
  done
done
