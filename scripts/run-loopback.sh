#!/usr/bin/env bash
# The main job: set-up if needed, then the L2 loopback benchmark on the
# software NIC's loopback wire, payload split into simulated GPU memory,
# side by side with the same wire without split.
#
# usage: scripts/run-loopback.sh [devtcp-bench options, e.g. --duration 10]
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${DEVTCP_BUILD:-build}

scripts/setup.sh

# Two lcores: the main one receives, the other sends.
exec "$build/app/bench/devtcp-bench" -l 0-1 --in-memory --no-pci \
	--file-prefix "devtcp-loopback-$$" \
	--vdev=net_hsplit0,wire=loop --vdev=net_hsplit1,wire=loop \
	--vdev=gpu_sim0,size=256M --log-level=lib.eal:warning \
	-- --compare --duration "${DEVTCP_DURATION:-3}" "$@"
