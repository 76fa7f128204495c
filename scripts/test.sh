#!/usr/bin/env bash
# Run every devtcp test: set-up if needed, the suites of the main build
# (unit, component, e2e, interop; not fuzz), then a second, full build with
# clang under ASan+UBSan: its unit and component suites, and the fuzz suite
# (each libFuzzer target for a bounded time over its seed corpus; skipped,
# saying why, when clang or libFuzzer is missing).
# The last line is "N passed, N failed" (skipped tests are reported above it).
#
# usage: scripts/test.sh [meson test args, e.g. --suite unit]
# env:   DEVTCP_BUILD (main build folder, default build; the sanitizer build
#        is its -asan sibling), DEVTCP_NO_ASAN=1 (main build only).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# One suite at a time on a machine: they share its hugepages.
. "$top/scripts/suite-lock.sh"
dt_suite_lock "$top/scripts/test.sh" "$@"
cd "$top"
build=${DEVTCP_BUILD:-build}
asan=${build}-asan

scripts/setup.sh || { echo "0 passed, 1 failed"; exit 1; }

rc=0
# Tests share the machine's hugepages and 2 cores: two at a time at most.
# The fuzz suite runs in the clang build below (skipped here anyway).
meson test -C "$build" --print-errorlogs --num-processes 2 --no-suite fuzz \
	"$@" || rc=1

logs=("$build/meson-logs/testlog.json")
if [ "${DEVTCP_NO_ASAN:-0}" != 1 ]; then
	# The whole tree under ASan+UBSan, with clang when it is there (it
	# also builds the libFuzzer targets). DPDK programs need
	# -Db_lundef=false; DPDK's hugepage memory is not instrumented.
	san_cc=gcc
	# DPDK's rte_hash_crc() loads unaligned words on purpose: not ours.
	san_args="-fno-sanitize-recover=all -fno-sanitize=alignment"
	if command -v clang >/dev/null; then
		san_cc=clang
		san_args="-fno-sanitize-recover=all -fsanitize-ignorelist=$top/scripts/ubsan-dpdk.ignore"
	fi
	# A stamp says how the folder was set up; an older one (unit_only,
	# another compiler or flags) is set up again.
	stamp="cc=$san_cc full $san_args"
	if [ -f "$asan/build.ninja" ] &&
			[ "$(cat "$asan/.devtcp-san" 2>/dev/null)" != "$stamp" ]; then
		rm -rf "$asan"
	fi
	if [ ! -f "$asan/build.ninja" ]; then
		CC=$san_cc meson setup "$asan" -Ddpdk_sdk="$top/$build-sdk" \
			-Db_sanitize=address,undefined -Db_lundef=false \
			-Dc_args="$san_args" >/dev/null &&
			echo "$stamp" >"$asan/.devtcp-san" || rc=1
	fi
	# Not niced: on a loaded machine (stress-suite.sh -w) a niced build got
	# almost no CPU beside the load and took over 20 minutes.
	ninja -C "$asan" >/dev/null || { ninja -C "$asan" | tail -30; rc=1; }
	# Left out under ASan: the interop suite (root, Linux peers: too slow
	# on 2 cores), and the tests that load our drivers into stock DPDK
	# programs (dpdk-test, dpdk-testpmd) or attach one (dpdk-proc-info:
	# apps_server_sigterm, apps_hints) to
	# ours: an ASan-built plugin cannot load into an uninstrumented program;
	# and dp_transfer (1 GiB, two busy lcores: past its deadline under ASan
	# here; dp_transfer_jumbo and dp_faults run the same code).
	san_skip='gpu_sim_dpdk_test_gpudev|gpu_cuda_dpdk_test_gpudev|hsplit_testpmd|apps_server_sigterm|apps_hints|dp_transfer'
	san_tests=$(meson test -C "$asan" --list --suite unit --suite component \
		--suite fuzz 2>/dev/null | sed -n 's|^devtcp:[a-z0-9_]* / ||p' |
		grep -vxE "$san_skip")
	[ -n "$san_tests" ] || { echo "no tests listed in $asan"; rc=1; }
	# handle_segv=0: the zero-touch tests expect a child to die of SIGSEGV.
	# Leaks: ours are fixed; DPDK's own would go to lsan-dpdk.supp.
	# shellcheck disable=SC2086
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:handle_segv=0 \
	LSAN_OPTIONS=suppressions="$top/scripts/lsan-dpdk.supp":print_suppressions=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		meson test -C "$asan" --print-errorlogs --num-processes 2 \
		$san_tests || rc=1
	logs+=("$asan/meson-logs/testlog.json")
fi

python3 - "${logs[@]}" <<'PY'
import json, sys
passed = failed = skipped = 0
for i, path in enumerate(sys.argv[1:]):
    try:
        lines = open(path).read().splitlines()
    except OSError:
        failed += 1
        print("missing test log: " + path)
        continue
    for line in lines:
        t = json.loads(line)
        name = ("asan/" if i else "") + t["name"]
        r = t["result"]
        if r in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif r == "SKIP":
            skipped += 1
            print("skipped: " + name)
        else:
            failed += 1
            print("FAILED (%s): %s" % (r, name))
print("%d skipped" % skipped)
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
[ $? -eq 0 ] || rc=1
exit $rc
