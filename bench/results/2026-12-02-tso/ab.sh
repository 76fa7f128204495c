#!/bin/sh
# TSO A/B on the loopback wire: the same build, both ports caps=notso (no
# TSO: one MSS per frame, the baseline) and caps=full (TSO), alternating.
# Usage: [MTUS="1500 9000"] [TXS="host device"] [OUT=json] ./ab.sh REPS [BENCH]
# Writes one JSON per run under ./json/ and prints a line per run.
set -e
reps=${1:-3}
bench=${2:-build/app/bench/devtcp-bench}
out=$(dirname "$0")/${OUT:-json}
mkdir -p "$out"
for r in $(seq 1 "$reps"); do
	for mtu in ${MTUS:-1500 9000}; do
		for tx in ${TXS:-host device}; do
			for caps in notso full; do
				j=$out/split_mtu${mtu}_tx${tx}_${caps}_r$r.json
				"$bench" -l 0-1 --in-memory --no-pci -m 512 \
					--vdev=net_hsplit0,wire=W,caps=$caps \
					--vdev=net_hsplit1,wire=W,caps=$caps \
					--vdev=gpu_sim0,size=256M --log-level=lib.eal:warning \
					-- --mode split --duration 4 --mtu $mtu --tx-mem $tx \
					--quiet --json "$j" >/dev/null 2>&1 || echo "run failed: $j"
				printf '%s load %s\n' "$j" "$(cut -d' ' -f1 /proc/loadavg)"
			done
		done
	done
done
