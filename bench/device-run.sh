#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# One parametrised driver for runs on the GPU machine (the device tool's
# command line is short, and results must say what ran): every line of a
# matrix file is one run, each in its own folder with its log, the matrix
# and the commit of the bundle saved beside the results. No script copies.
#
# usage: bench/device-run.sh [--check] MATRIX [OUTDIR]   (OUTDIR: $OUT or ./device-out)
#   --check: read the matrix and list its runs; run nothing.
# MATRIX: one run per line, "NAME<TAB>SECONDS<TAB>COMMAND"; '#' starts a
#   comment, blank lines are skipped. COMMAND runs under bash in the
#   repository root, bounded to SECONDS, with RUN_OUT set to the run's
#   folder (OUTDIR/NAME); its stdout and stderr go to RUN_OUT/log.txt.
#   NAME: letters, digits, '-', '_', '.'.
# OUTDIR gets matrix.txt (the file as run), commit.txt (the bundle's
# COMMIT, written by scripts/device-bundle.sh, else this tree's git
# commit), summary.txt ("NAME rc=N seconds=S" per run, then "N runs, M
# failed"), and each run's folder. Exit status: 0 when every run exited 0,
# 1 when one did not, 2 for a bad matrix (nothing is run then).
set -uo pipefail

check=0
if [ "${1:-}" = --check ]; then
	check=1
	shift
fi
matrix=${1:-}
out=${2:-${OUT:-device-out}}
top=$(cd "$(dirname "$0")/.." && pwd)
[ -n "$matrix" ] && [ -r "$matrix" ] || {
	echo "usage: $0 MATRIX [OUTDIR] (MATRIX: NAME<TAB>SECONDS<TAB>COMMAND lines)" >&2
	exit 2; }

# Check every line first: a typo in line 9 must not cost the 8 runs before.
names=() secs=() cmds=()
n=0
while IFS= read -r line || [ -n "$line" ]; do
	n=$((n + 1))
	case $line in ''|'#'*) continue ;; esac
	IFS=$'\t' read -r name sec cmd <<<"$line"
	if ! [[ $name =~ ^[A-Za-z0-9._-]+$ && $sec =~ ^[0-9]+$ && -n ${cmd:-} ]]; then
		echo "$matrix:$n: want NAME<TAB>SECONDS<TAB>COMMAND: $line" >&2
		exit 2
	fi
	for o in "${names[@]}"; do
		[ "$o" != "$name" ] || { echo "$matrix:$n: name $name twice" >&2; exit 2; }
	done
	names+=("$name") secs+=("$sec") cmds+=("$cmd")
done < "$matrix"
[ ${#names[@]} -gt 0 ] || { echo "$matrix: no run in it" >&2; exit 2; }
if [ $check = 1 ]; then
	for i in "${!names[@]}"; do
		echo "${names[$i]} (${secs[$i]} s)"
	done
	exit 0
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
cp "$matrix" "$out/matrix.txt"
if [ -f "$top/.bundle/COMMIT" ]; then
	cp "$top/.bundle/COMMIT" "$out/commit.txt"
else
	git -C "$top" describe --always --dirty > "$out/commit.txt" 2>/dev/null ||
		echo "unknown (no bundle COMMIT, no git)" > "$out/commit.txt"
fi
: > "$out/summary.txt"
failed=0
cd "$top" || exit 1
for i in "${!names[@]}"; do
	d=$out/${names[$i]}
	mkdir -p "$d"
	t0=$(date +%s.%N)
	RUN_OUT=$d timeout "${secs[$i]}" bash -c "${cmds[$i]}" > "$d/log.txt" 2>&1
	rc=$?
	t1=$(date +%s.%N)
	[ $rc -eq 0 ] || failed=$((failed + 1))
	line=$(printf '%s rc=%d seconds=%.1f' "${names[$i]}" $rc "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")
	echo "$line" | tee -a "$out/summary.txt"
	[ $rc -eq 0 ] || tail -5 "$d/log.txt" | sed 's/^/    /'
done
echo "${#names[@]} runs, $failed failed" | tee -a "$out/summary.txt"
[ $failed -eq 0 ]
