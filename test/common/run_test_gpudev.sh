#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Run Debian's dpdk-test-gpudev against one of our gpudev plugins.
#
# usage: run_test_gpudev.sh PLUGIN.so VDEV [--skip-unprobed DRIVER]
#                           [--expected-fail TEXT]
#   DPDK_TEST_GPUDEV  the tool (default /usr/bin/dpdk-test-gpudev)
#
# dpdk-test-gpudev exits 0 even when its tests fail, so its output decides:
# every "=======> TEST: <name>" must be followed by "=======> TEST: PASSED",
# and all of its tests (5 in 22.11) must have run. --skip-unprobed: exit 77
# (skipped) with the driver's own reason when DRIVER could not probe (no
# GPU, no libcuda). --expected-fail: a test whose name contains TEXT may
# fail (gpu_cuda's CPU mapping needs GDRCopy) and is then not counted.
set -u

plugin=${1:?usage: $0 PLUGIN.so VDEV [--skip-unprobed DRIVER] [--expected-fail TEXT]}
vdev=${2:?usage: $0 PLUGIN.so VDEV ...}
shift 2
skip_driver=
may_fail=
while [ $# -gt 0 ]; do
	case "$1" in
	--skip-unprobed) skip_driver=$2; shift 2 ;;
	--expected-fail) may_fail=$2; shift 2 ;;
	*) echo "FAIL: unknown option $1"; exit 1 ;;
	esac
done
tool=${DPDK_TEST_GPUDEV:-/usr/bin/dpdk-test-gpudev}
min_tests=5

fail() {
	echo "FAIL: $*"
	exit 1
}

if [ ! -x "$tool" ]; then
	echo "SKIP: $tool not installed (Debian package dpdk)"
	exit 77
fi
[ -f "$plugin" ] || fail "plugin $plugin not built"
plugin_dir=$(cd "$(dirname "$plugin")" && pwd)
plugin_name=$(basename "$plugin")

# From /, the bare name is not found in the current directory, so EAL falls
# back to dlopen() and LD_LIBRARY_PATH (a path under a world-writable
# directory such as /tmp would be refused).
out=$(cd / && LD_LIBRARY_PATH="$plugin_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
	timeout 100 "$tool" -l 0 --in-memory --no-pci --log-level=lib.eal:warning \
	-d "$plugin_name" --vdev="$vdev" 2>&1)
rc=$?
echo "$out"

if ! echo "$out" | grep -q "DPDK found 1 GPUs"; then
	if [ -n "$skip_driver" ]; then
		reason=$(echo "$out" | grep -m1 "$skip_driver: .*probe failed")
		[ -n "$reason" ] || fail "no GPU found, and $skip_driver said nothing (status $rc)"
		echo "SKIP: ${reason#*probe failed: }"
		exit 77
	fi
	fail "the $vdev device was not found (status $rc)"
fi
[ $rc -eq 0 ] || fail "$tool exited with status $rc"

# Whether the test named $1 may fail (and is then not counted).
excused() {
	[ -n "$may_fail" ] && case "$1" in *"$may_fail"*) true ;; *) false ;; esac
}

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
		excused "$current" || fail "test \"$current\" failed"
		current=
		;;
	"=======> TEST: "*)
		[ -z "$current" ] || excused "$current" ||
			fail "test \"$current\" did not finish"
		current=${line#=======> TEST: }
		started=$((started + 1))
		;;
	esac
done <<< "$out"

[ -z "$current" ] || excused "$current" || fail "test \"$current\" did not finish"
[ $started -ge $min_tests ] || fail "only $started tests ran, expected at least $min_tests"
echo "PASS: $passed of $started dpdk-test-gpudev tests passed${may_fail:+ (\"$may_fail\" may fail)}"
exit 0
