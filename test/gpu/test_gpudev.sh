#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Run Debian's dpdk-test-gpudev against the gpu_sim plugin.
#
# usage: test_gpudev.sh PATH/TO/librte_gpu_sim.so
#
# dpdk-test-gpudev exits 0 even when its tests fail, so its output decides:
# every "=======> TEST: <name>" must be followed by "=======> TEST: PASSED",
# and all of its tests (5 in 22.11) must have run.
set -u

plugin=${1:?usage: $0 PATH/TO/librte_gpu_sim.so}
tool=${DPDK_TEST_GPUDEV:-/usr/bin/dpdk-test-gpudev}
min_tests=5

if [ ! -x "$tool" ]; then
	echo "SKIP: $tool not installed (Debian package dpdk)"
	exit 77
fi
if [ ! -f "$plugin" ]; then
	echo "FAIL: plugin $plugin not built"
	exit 1
fi
plugin_dir=$(cd "$(dirname "$plugin")" && pwd)
plugin_name=$(basename "$plugin")

# From /, the bare name is not found in the current directory, so EAL falls
# back to dlopen() and LD_LIBRARY_PATH (a path under a world-writable
# directory such as /tmp would be refused).
out=$(cd / && LD_LIBRARY_PATH="$plugin_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
	timeout 60 "$tool" -l 0 --in-memory --no-pci --log-level=lib.eal:warning \
	-d "$plugin_name" --vdev=gpu_sim_tg0 2>&1)
rc=$?
echo "$out"

fail() {
	echo "FAIL: $*"
	exit 1
}

[ $rc -eq 0 ] || fail "$tool exited with status $rc"
echo "$out" | grep -q "DPDK found 1 GPUs" || fail "the gpu_sim device was not found"

started=0
passed=0
current=
while IFS= read -r line; do
	case "$line" in
	"=======> TEST: PASSED")
		[ -n "$current" ] || fail "PASSED outside a test"
		passed=$((passed + 1))
		current=
		;;
	"=======> TEST: FAILED")
		fail "test \"$current\" failed"
		;;
	"=======> TEST: "*)
		[ -z "$current" ] || fail "test \"$current\" did not finish"
		current=${line#=======> TEST: }
		started=$((started + 1))
		;;
	esac
done <<< "$out"

[ -z "$current" ] || fail "test \"$current\" did not finish"
[ $started -ge $min_tests ] || fail "only $started tests ran, expected at least $min_tests"
echo "PASS: $passed of $started dpdk-test-gpudev tests passed"
exit 0
