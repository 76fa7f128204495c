#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The shared libraries we install export only their public prefixes
# (lib/devtcp.map, lib/client/dt_client.map): dt_*, devtcp_* and the
# version nodes (DEVTCP_*). Fails on any other name, and when nm lists
# nothing (a missing library or a broken nm must not pass).
#
# usage: check_exports.sh LIB.so...
set -uo pipefail
command -v nm >/dev/null || { echo "SKIP: nm is missing"; exit 77; }
rc=0
for lib in "$@"; do
	syms=$(nm -D --defined-only "$lib" 2>&1) || {
		echo "FAIL $lib: nm: $syms"; rc=1; continue; }
	n=$(printf '%s\n' "$syms" | grep -c .)
	if [ "$n" -eq 0 ]; then
		echo "FAIL $lib: nm lists no symbol"; rc=1; continue
	fi
	bad=$(printf '%s\n' "$syms" | awk '{print $NF}' | sed 's/@.*//' |
		grep -vE '^(dt_|devtcp_|DEVTCP_)' || true)
	if [ -n "$bad" ]; then
		echo "FAIL $lib exports $(printf '%s\n' "$bad" | wc -l) names outside dt_/devtcp_:"
		printf '  %s\n' $bad | head -20
		rc=1
	else
		echo "ok   $lib: $n symbols, all dt_/devtcp_/DEVTCP_"
	fi
done
exit $rc
