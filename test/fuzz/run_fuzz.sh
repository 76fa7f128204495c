#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Run one libFuzzer target for a bounded time over its seed corpus; the
# meson 'fuzz' suite and scripts/fuzz.sh call it.
#
# usage: run_fuzz.sh FUZZER SECONDS SEED_DIR [WORK_DIR [libFuzzer args...]]
# New inputs go to WORK_DIR (default: a temporary folder, removed after),
# never into the committed seeds; a crashing input is kept as
# WORK_DIR/crash-* (or in the test's folder when WORK_DIR is temporary) and
# its path printed. Fails when the fuzzer fails, crashes, or reports no
# executions (a run that did nothing proves nothing).
set -uo pipefail

fuzzer=$1 secs=$2 seeds=$3
work=${4:-}
shift $(( $# < 4 ? $# : 4 ))
name=$(basename "$fuzzer")
tmp=""
if [ -z "$work" ]; then
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX") || exit 1
	work=$tmp
fi
mkdir -p "$work/corpus" "$work/artifacts" || exit 1
[ -d "$seeds" ] || { echo "$name: no seed corpus at $seeds"; exit 1; }

log="$work/$name.log"
# One job, one CPU; per-input timeout well above the slowest seed under ASan.
"$fuzzer" -max_total_time="$secs" -print_final_stats=1 -timeout=25 \
	-rss_limit_mb=4096 -artifact_prefix="$work/artifacts/" "$@" \
	"$work/corpus" "$seeds" >"$log" 2>&1
rc=$?

execs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -1)
cov=$(grep -E '^#[0-9]+.*(DONE|INITED|pulse|NEW|REDUCE)' "$log" | tail -1 |
	sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\) corp: \([0-9]*\)\/\([^ ]*\).*/cov \1 ft \2 corpus \3 (\4)/p')
seeds_n=$(find "$seeds" -type f | wc -l)
crashes=$(find "$work/artifacts" -type f | wc -l)
echo "$name: ${secs}s, $seeds_n seeds, executions ${execs:-none}, ${cov:-no coverage line}, crashes $crashes, rc $rc"

# Invariants made non-fatal (FUZZ_TCP_LAX) that the run broke: said aloud.
grep -E '^fuzz_[a-z]+: lax ' "$log" | sort -u | head -10

ok=1
if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
	ok=0
	grep -E 'invariant broken|property broken|ERROR: |SUMMARY: |runtime error' "$log" | head -20
	tail -40 "$log"
	if [ -n "$tmp" ]; then
		keep="${MESON_BUILD_ROOT:-.}/$name-artifacts"
		mkdir -p "$keep" && cp "$work"/artifacts/* "$keep"/ 2>/dev/null
		echo "$name: crashing inputs kept in $keep (replay: $fuzzer FILE)"
	else
		echo "$name: crashing inputs in $work/artifacts (replay: $fuzzer FILE)"
	fi
elif [ -z "$execs" ] || [ "$execs" -eq 0 ]; then
	ok=0
	echo "$name: the fuzzer reported no executions:"
	tail -40 "$log"
fi
[ -n "$tmp" ] && rm -rf "$tmp"
[ "$ok" = 1 ]
