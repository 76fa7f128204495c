#!/usr/bin/env bash
# One DPDK suite, stress run or soak at a time on a machine: sourced by
# scripts/test.sh, scripts/stress-suite.sh and bench/soak.sh.
#
# Why: the component tests take hugepages on demand (--in-memory, no -m),
# and scripts/test.sh runs two tests at a time, which fits the 512 × 2 MiB
# of the development VM; two suites at once (or a suite beside a soak) do
# not, and their tests then fail at EAL start for a reason that is not the
# code (seen last on 2026-12-02: 31 such failures in one loaded run). A
# second one now waits for the first instead.
#
# usage: . scripts/suite-lock.sh; dt_suite_lock "$0" "$@"
#   runs the calling script again under flock(1) on DEVTCP_SUITE_LOCK
#   (default /tmp/devtcp-suite.lock), waiting at most DEVTCP_SUITE_WAIT
#   seconds (default 5400) and saying why it waits. The lock is held by
#   flock itself (-o: the script's children do not inherit it), so a stray
#   process cannot keep it after the script ends. Nested calls (the
#   variable DEVTCP_SUITE_LOCKED is set) run on. Exit status: the
#   script's, or 75 when the wait timed out.

dt_suite_lock() {
	local script=$1 lock=${DEVTCP_SUITE_LOCK:-/tmp/devtcp-suite.lock}
	shift
	[ -z "${DEVTCP_SUITE_LOCKED:-}" ] || return 0
	command -v flock >/dev/null || return 0
	if ! flock -n "$lock" true 2>/dev/null; then
		echo "$(basename "$script"): waiting for another devtcp suite," \
			"stress run or soak on this machine (it holds $lock;" \
			"they share the hugepages)" >&2
	fi
	export DEVTCP_SUITE_LOCKED=$$
	flock -o -w "${DEVTCP_SUITE_WAIT:-5400}" -E 75 "$lock" \
		bash "$script" "$@"
	local rc=$?
	[ "$rc" -ne 75 ] || echo "$(basename "$script"): gave up after" \
		"${DEVTCP_SUITE_WAIT:-5400} s waiting for $lock" >&2
	exit "$rc"
}
