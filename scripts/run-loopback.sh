#!/usr/bin/env bash
# The main job: set-up if needed, then the L2 loopback benchmark on the
# software NIC's loopback wire: TCP connections from port 0 to port 1 with
# payload split into simulated GPU memory ("split"), side by side with the
# same stacks copying payload into it ("copy") and the wire's raw L2
# ceiling ("raw"), a few seconds each; prints the table and the ratios.
#
# usage: scripts/run-loopback.sh [devtcp-bench options, e.g. --duration 10]
# Environment: DEVTCP_DURATION (seconds per mode, default 3), DEVTCP_CONNS
# (connections, default 4), DEVTCP_LCORES (default 0-1: one client stack
# lcore, one server stack lcore).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${DEVTCP_BUILD:-build}

scripts/setup.sh

exec "$build/app/bench/devtcp-bench" -l "${DEVTCP_LCORES:-0-1}" --in-memory --no-pci \
	--file-prefix "devtcp-loopback-$$" \
	--vdev=net_hsplit0,wire=loop --vdev=net_hsplit1,wire=loop \
	--vdev=gpu_sim0,size=256M --log-level=lib.eal:warning \
	-- --compare --duration "${DEVTCP_DURATION:-3}" \
	--conns "${DEVTCP_CONNS:-4}" "$@"
