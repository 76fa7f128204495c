#!/usr/bin/env bash
# Run meson tests again and again while stress-ng loads the CPUs, and say
# how often each failed: the flaky tests of issue 25 were found this way
# (and dp_transfer's drop_tx_ring_full fixed at its cause). A failing run's
# log is kept.
#
# usage: scripts/stress-suite.sh [-n RUNS] [-c HOGS] [TEST...]
#   -n N   runs of each test (default 10)
#   -c N   stress-ng CPU hogs beside the tests (default 2; 0: no load)
#   TEST   meson test names (default: the tests issue 25 names as flaky)
# env: DEVTCP_BUILD (build folder, default build).
# Logs of failing runs: BUILD/stress-logs/TEST.RUN.txt. Exit status: 1 when
# a run failed.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${DEVTCP_BUILD:-build}
runs=10
hogs=2
while getopts n:c: o; do
	case $o in
	n) runs=$OPTARG ;;
	c) hogs=$OPTARG ;;
	*) echo "usage: $0 [-n RUNS] [-c HOGS] [TEST...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(dp_transfer bench_tcp_4stacks_verify
	bench_tcp_split_verify_copy_latency dp_conns_cps)
if [ "$hogs" -gt 0 ] && ! command -v stress-ng >/dev/null; then
	echo "stress-ng missing (Debian: apt-get install stress-ng)" >&2
	exit 2
fi

hog_pid=""
stop_hogs() { [ -n "$hog_pid" ] && kill "$hog_pid" 2>/dev/null; wait 2>/dev/null; }
trap stop_hogs EXIT
if [ "$hogs" -gt 0 ]; then
	stress-ng --cpu "$hogs" --quiet >/dev/null 2>&1 &
	hog_pid=$!
fi

logs=$build/stress-logs
mkdir -p "$logs"
rc=0
for t in "${tests[@]}"; do
	fails=0
	for i in $(seq 1 "$runs"); do
		if ! meson test -C "$build" "$t" >/dev/null 2>&1; then
			fails=$((fails + 1))
			cp "$build/meson-logs/testlog.txt" "$logs/$t.$i.txt"
		fi
	done
	echo "$t: $fails of $runs runs failed (stress-ng --cpu $hogs)"
	[ "$fails" -eq 0 ] || rc=1
done
exit $rc
