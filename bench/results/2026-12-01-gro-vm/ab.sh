#!/bin/sh
# Alternating runs: ab.sh N BIN_A BIN_B ... ; prints "label run stk_cyc goodput load"
N=$1; shift
for i in $(seq 1 $N); do
  for b in "$@"; do
    out=$($b -l 0-1 --in-memory --no-pci -m 512 --vdev=net_hsplit0,wire=W --vdev=net_hsplit1,wire=W \
      --vdev=gpu_sim0,size=256M --log-level=lib.eal:warning -- --mode split --duration 3 --quiet 2>&1)
    line=$(echo "$out" | grep -E "^split ")
    echo "$(basename $b) $i $(echo $line | awk '{print $7, $3}') load=$(cut -d' ' -f1 /proc/loadavg)"
  done
done
