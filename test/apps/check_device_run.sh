#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench/device-run.sh, the driver of GPU-machine runs, here on this machine
# with commands that need no GPU: each run in its folder with its log and
# exit status, the matrix and a commit beside them, a failing and a timed
# out run reported as such; a bad matrix runs nothing (exit 2); the
# committed matrices (bench/matrices) parse.
# usage: check_device_run.sh SOURCE_ROOT
set -uo pipefail
top=$1
drv=$top/bench/device-run.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

printf 'good\t10\techo hello > $RUN_OUT/x.txt\n# comment\n\nfails\t10\techo boom; exit 3\nslow\t1\tsleep 5\n' > "$tmp/m.txt"
"$drv" "$tmp/m.txt" "$tmp/out" > "$tmp/log" 2>&1
rc=$?
[ $rc -eq 1 ] && ok "a matrix with a failing run exits 1" || bad "exit $rc, want 1"
grep -qx "hello" "$tmp/out/good/x.txt" 2>/dev/null && ok "a run writes into its RUN_OUT" || bad "no good/x.txt"
grep -q "^good rc=0 " "$tmp/out/summary.txt" && grep -q "^fails rc=3 " "$tmp/out/summary.txt" &&
	grep -q "^slow rc=124 " "$tmp/out/summary.txt" && grep -qx "3 runs, 2 failed" "$tmp/out/summary.txt" &&
	ok "summary: rc 0, 3 and 124 (timed out), 3 runs, 2 failed" ||
	bad "summary: $(cat "$tmp/out/summary.txt" 2>/dev/null)"
grep -q boom "$tmp/out/fails/log.txt" && ok "a run's output is in its log.txt" || bad "no log"
cmp -s "$tmp/m.txt" "$tmp/out/matrix.txt" && [ -s "$tmp/out/commit.txt" ] &&
	ok "matrix.txt and commit.txt saved" || bad "matrix or commit missing"

printf 'one\t10\ttouch %s/ran\nbroken line\n' "$tmp" > "$tmp/bad.txt"
"$drv" "$tmp/bad.txt" "$tmp/out2" > "$tmp/log2" 2>&1
rc=$?
[ $rc -eq 2 ] && [ ! -e "$tmp/ran" ] && grep -q ":2: want NAME" "$tmp/log2" &&
	ok "a bad line: exit 2, says where, runs nothing" || bad "bad matrix: exit $rc"

for m in "$top"/bench/matrices/*.txt; do
	"$drv" --check "$m" > /dev/null 2>&1 && ok "$(basename "$m") parses" ||
		bad "$(basename "$m") does not parse"
done
[ $fails -eq 0 ]
