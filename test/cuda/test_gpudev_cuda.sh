#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Run Debian's dpdk-test-gpudev against the gpu_cuda plugin.
#
# usage: test_gpudev_cuda.sh PATH/TO/librte_gpu_cuda.so [VDEV_ARGS]
#   DPDK_TEST_GPUDEV  the tool (default /usr/bin/dpdk-test-gpudev)
#
# Exit 77 (skipped) when gpu_cuda cannot probe (no libcuda or no GPU), with
# the driver's own log line as the reason. On a GPU, every test that starts
# must pass; dpdk-test-gpudev exits 0 even when its tests fail, so its
# output decides. Its "Map GPU memory for CPU visibility" test needs
# GDRCopy, which gpu_cuda does not implement: it is expected to report the
# map failure and is not counted.
set -u

plugin=${1:?usage: $0 PATH/TO/librte_gpu_cuda.so [VDEV_ARGS]}
vdev_args=${2:-}
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
vdev=gpu_cuda_tg0${vdev_args:+,$vdev_args}

# From /, the bare name is not found in the current directory, so EAL falls
# back to dlopen() and LD_LIBRARY_PATH (world-writable paths are refused).
out=$(cd / && LD_LIBRARY_PATH="$plugin_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
	timeout 100 "$tool" -l 0 --in-memory --no-pci --log-level=lib.eal:warning \
	-d "$plugin_name" --vdev="$vdev" 2>&1)
rc=$?
echo "$out"

fail() {
	echo "FAIL: $*"
	exit 1
}

# Without a GPU the tool stops early (status 1): skip when the driver said why.
if ! echo "$out" | grep -q "DPDK found 1 GPUs"; then
	reason=$(echo "$out" | grep -m1 "gpu_cuda: .*probe failed")
	[ -n "$reason" ] || fail "the gpu_cuda device was not found, and the driver said nothing (status $rc)"
	echo "SKIP: ${reason#*probe failed: }"
	exit 77
fi
[ $rc -eq 0 ] || fail "$tool exited with status $rc"

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
		case "$current" in
		*"CPU visibility"*) current= ;; # needs GDRCopy
		*) fail "test \"$current\" failed" ;;
		esac
		;;
	"=======> TEST: "*)
		case "$current" in
		""|*"CPU visibility"*) ;;
		*) fail "test \"$current\" did not finish" ;;
		esac
		current=${line#=======> TEST: }
		started=$((started + 1))
		;;
	esac
done <<< "$out"

case "$current" in
""|*"CPU visibility"*) ;;
*) fail "test \"$current\" did not finish" ;;
esac
[ $started -ge $min_tests ] || fail "only $started tests ran, expected at least $min_tests"
echo "PASS: $passed of $started dpdk-test-gpudev tests passed (CPU mapping needs GDRCopy)"
exit 0
