#!/usr/bin/env bash
# The soak (issue 25): devtcp-server in ingest mode on a veth with Linux
# senders, short-connection churn, devtcp-send and clients killed
# mid-stream, beside an endless loopback-wire transfer, all under 1 %
# faults of each kind each way, for as long as asked; every stream checked,
# memory sampled (test/ingest/ingest_soak.py says what and what must hold).
# CI runs 60 s of it (the ingest_soak test).
#
# usage: bench/soak.sh [-s SECONDS] [-f FAULTS] [-o DIR]
#   -s N      seconds (default 3600)
#   -f SPEC   net_hsplit fault devargs, "" for none (default: 1 % loss, dup,
#             reorder, corrupt on both directions)
#   -o DIR    results folder (default bench/results/DATE-soak): soak.log
#             (the run's output) and soak.json (figures, every sample)
# env: DEVTCP_BUILD (build folder, default build). Root (netns, veth).
# Exit status: the check's (0 when every check held).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# Not beside a test suite: they share the hugepages.
. "$top/scripts/suite-lock.sh"
dt_suite_lock "$top/bench/soak.sh" "$@"
build=${DEVTCP_BUILD:-$top/build}
secs=3600
out=""
faults_set=0
faults=""
while getopts s:f:o:h o; do
	case $o in
	s) secs=$OPTARG ;;
	f) faults=$OPTARG; faults_set=1 ;;
	o) out=$OPTARG ;;
	*) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
[ -n "$out" ] || out=$top/bench/results/$(date +%F)-soak
mkdir -p "$out"
for f in "$build/app/server/devtcp-server" "$build/test/ingest/ingest_take"; do
	[ -x "$f" ] || { echo "$f missing: build first (ninja -C $build)" >&2; exit 2; }
done
[ "$faults_set" = 1 ] && export DT_SOAK_FAULTS="$faults"
export DT_SOAK_SECONDS="$secs" DT_SOAK_JSON="$out/soak.json"
echo "soak: $secs s, results in $out"
# nice 19: the soak must not starve whatever else runs; the rounds just slow.
nice -n 19 python3 "$top/test/ingest/check_ingest.py" \
	"$build/app/server/devtcp-server" "$build/test/ingest/ingest_take" \
	"$top/scripts/netns.sh" soak "$top/python" 2>&1 | tee "$out/soak.log"
exit "${PIPESTATUS[0]}"
