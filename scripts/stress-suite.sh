#!/usr/bin/env bash
# Run meson tests again and again while stress-ng loads the CPUs, and say
# how often each failed: the flaky tests of issue 25 were found this way
# (and dp_transfer's drop_tx_ring_full fixed at its cause). A failing run's
# output is kept.
#
# usage: scripts/stress-suite.sh [-n RUNS] [-c HOGS] [-m] [TEST...]
#        scripts/stress-suite.sh -w RUNS [-c HOGS]
#   -n N   runs of each test (default 10), one `meson test --repeat N`
#   -c N   stress-ng CPU hogs beside the tests (default 2; 0: no load)
#   -m     the tests issue 25 names as flaky and every multi-stack test
#          (names with stacks, conns, transfer or steer in the component
#          suite), instead of TEST...
#   -w N   the whole suite (scripts/test.sh, CI's command) N times, each
#          from a fresh clone of this checkout's HEAD, under the load
#   TEST   meson test names (default: the tests issue 25 names as flaky)
# env: DEVTCP_BUILD (build folder, default build).
# Logs of failing runs: BUILD/stress-logs/TEST.RUN.txt; with -w the failed
# tests and the last line in BUILD/stress-logs/suite.RUN.txt, the output in
# suite.RUN.full.txt and, when a test failed, the clone's meson logs in
# suite.RUN.BUILD.testlog.txt. One line a test (or a
# suite run) "NAME: F of N runs failed (stress-ng --cpu HOGS, S s)".
# Exit status: 1 when a run failed.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${DEVTCP_BUILD:-build}
runs=10
hogs=2
multi=0
suites=0
usage() { sed -n '7,16p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
args=("$@")
while getopts n:c:mw:h o; do
	case $o in
	n) runs=$OPTARG ;;
	c) hogs=$OPTARG ;;
	m) multi=1 ;;
	w) suites=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
flaky=(dp_transfer bench_tcp_4stacks_verify bench_tcp_split_verify_copy_latency
	dp_conns_cps)
tests=("$@")
if [ "$multi" = 1 ]; then
	mapfile -t more < <(meson test -C "$build" --list --no-rebuild 2>/dev/null |
		sed -n 's|^devtcp:component / ||p' |
		grep -E 'stacks|conns|transfer|steer' | grep -vxF -f <(printf '%s\n' "${flaky[@]}"))
	[ ${#more[@]} -gt 0 ] || { echo "no multi-stack tests listed in $build" >&2; exit 2; }
	tests=("${flaky[@]}" "${more[@]}")
fi
[ ${#tests[@]} -gt 0 ] || tests=("${flaky[@]}")
# Runs of the main build's tests wait for any other suite or soak (they
# share the hugepages); a -w run's clones take the lock themselves.
if [ "$suites" -eq 0 ]; then
	. "$top/scripts/suite-lock.sh"
	dt_suite_lock "$top/scripts/stress-suite.sh" "${args[@]}"
fi
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
logs=$(cd "$logs" && pwd)
rc=0

# The whole suite from fresh clones: CI's own command, CI's environment.
if [ "$suites" -gt 0 ]; then
	for i in $(seq 1 "$suites"); do
		# Beside this checkout (the clone and its two builds are large).
		dir=$(mktemp -d "$(dirname "$top")/stress-clone.XXXXXX" 2>/dev/null || mktemp -d)
		t0=$(date +%s)
		git clone -q "$top" "$dir/devtcp"
		(cd "$dir/devtcp" && CI=true scripts/test.sh </dev/null) > "$logs/suite.$i.full.txt" 2>&1
		src=$?
		last=$(tail -n 1 "$logs/suite.$i.full.txt")
		grep -E '^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT|UNEXPECTEDPASS)' \
			"$logs/suite.$i.full.txt" > "$logs/suite.$i.txt"
		echo "$last" >> "$logs/suite.$i.txt"
		echo "suite run $i: $last (exit $src, stress-ng --cpu $hogs, $(( $(date +%s) - t0 )) s)"
		if [ "$src" -ne 0 ]; then
			rc=1
			# The failing tests' own output is in the clone's meson logs.
			for b in build build-asan; do
				cp "$dir/devtcp/$b/meson-logs/testlog.txt" \
					"$logs/suite.$i.$b.testlog.txt" 2>/dev/null
			done
		fi
		rm -rf "$dir"
	done
	exit $rc
fi

for t in "${tests[@]}"; do
	t0=$(date +%s)
	base=stress-$t
	meson test -C "$build" --no-rebuild --repeat "$runs" --logbase "$base" \
		"$t" >/dev/null 2>&1
	# One JSON line a run; anything but OK (or an expected failure) failed.
	read -r n fails < <(python3 - "$build/meson-logs/$base.json" "$logs" "$t" <<'EOF'
import json, sys
path, logs, name = sys.argv[1:4]
n = fails = 0
try:
    lines = open(path).read().splitlines()
except OSError:
    lines = []
for line in lines:
    run = json.loads(line)
    n += 1
    if run["result"] not in ("OK", "EXPECTEDFAIL"):
        fails += 1
        with open("%s/%s.%d.txt" % (logs, name, n), "w") as f:
            f.write("%s\n%s\n%s" % (run["result"], run.get("stdout", ""),
                                     run.get("stderr", "") or ""))
print(n, fails)
EOF
	)
	# No run recorded is a failure of every run (the test did not start).
	[ "${n:-0}" -eq "$runs" ] || fails=$runs
	echo "$t: $fails of $runs runs failed (stress-ng --cpu $hogs, $(( $(date +%s) - t0 )) s)"
	[ "$fails" -eq 0 ] || rc=1
done
exit $rc
