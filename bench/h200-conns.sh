#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Connection scale on the 16-core GPU machine (issue 9), in one go:
#   1. devtcp-bench --mode cps at 1, 2, 4, 8 server stacks (as many client
#      stacks; short connections, 1 KiB each way, CPS_SECONDS each);
#   2. devtcp-bench --mode hold: CONNS (100,000) concurrent connections over
#      HOLD_STACKS (8) server and client stacks: time to establish, memory
#      per connection;
#   3. bench/cps-veth.sh: a Linux client over veth against devtcp-server,
#      then against the kernel's TCP server (VETH=0 skips it).
# All on the software NIC's loopback wire (1, 2) and a veth pair (3); no GPU
# is needed (payload in host memory). Total about 1.5 minutes.
#
# From the bundle (scripts/device-bundle.sh), as root:
#   .bundle/run.sh h200-conns.sh [OUTDIR]          (default conns-out)
# Environment: STACKS (1,2,4,8), CONNS (100000), HOLD_STACKS (8),
#   CPS_SECONDS (5), VETH_SECONDS (5), VETH (1), LCORES (EAL lcores of the
#   bench, default 0-15: 8 server + 8 client stacks; on fewer CPUs a map,
#   e.g. '0@0,1@1,2@0,3@1'), DEVTCP_BUILD (a build tree instead of a bundle).
# OUTDIR gets cps.json, hold.json, cps-veth.json, the logs, summary.txt and
# summary.json. Exits non-zero when any run fails, writes no JSON, or the
# JSON lacks its runs.
set -euo pipefail

prog=$(basename "$0")
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-conns-out}
STACKS=${STACKS:-1,2,4,8} CONNS=${CONNS:-100000} HOLD_STACKS=${HOLD_STACKS:-8}
CPS_SECONDS=${CPS_SECONDS:-5} VETH_SECONDS=${VETH_SECONDS:-5} VETH=${VETH:-1}
LCORES=${LCORES:-0-15}
die() { echo "$prog: error: $*" >&2; exit 1; }
say() { echo "$prog: $*" >&2; }

[[ $STACKS =~ ^[0-9]+(,[0-9]+)*$ ]] || die "bad STACKS '$STACKS'"
[[ $CONNS =~ ^[0-9]+$ && $HOLD_STACKS =~ ^[0-9]+$ ]] ||
	die "bad CONNS '$CONNS' or HOLD_STACKS '$HOLD_STACKS'"
if [ -x "$here/devtcp-bench" ]; then
	bench=$here/devtcp-bench
else
	top=$(cd "$here/.." && pwd)
	bench=${DEVTCP_BUILD:-$top/build}/app/bench/devtcp-bench
	export DEVTCP_BUILD=${DEVTCP_BUILD:-$top/build}
fi
[ -x "$bench" ] || die "devtcp-bench not found ($bench): build first, or run from a bundle"
mkdir -p "$out"
out=$(cd "$out" && pwd)
# 100,000 connections: ~0.5 GB of connection tables on top of the pools.
if [ "$(id -u)" = 0 ] &&
		[ "$(awk '/HugePages_Total/ {print $2}' /proc/meminfo)" -lt 2048 ]; then
	echo 2048 > /proc/sys/vm/nr_hugepages 2>/dev/null || true
fi
lc_opt=-l
case $LCORES in *@*) lc_opt=--lcores ;; esac
failed=()
t_start=$SECONDS

# One devtcp-bench run: NAME, time limit, then the bench's own options.
run_bench() {
	local name=$1 limit=$2 rc=0
	shift 2
	# shellcheck disable=SC2086
	local cmd=("$bench" "$lc_opt" "$LCORES" --in-memory --no-pci
		--log-level=lib.eal:warning ${DEVTCP_EAL_ARGS:-}
		"--vdev=net_hsplit_hc$$0,wire=hc$$" "--vdev=net_hsplit_hc$$1,wire=hc$$"
		-- --payload-mem host --json "$out/$name.json" "$@")
	say "$name: ${cmd[*]}"
	echo "${cmd[*]}" > "$out/$name.cmd"
	rm -f "$out/$name.json"
	timeout -s INT -k 10 "$limit" "${cmd[@]}" > "$out/$name.log" 2>&1 || rc=$?
	grep -vE '^  \[' "$out/$name.log" | grep -E '^(cps|hold|mode|      hold)|devtcp-bench:' >&2 || true
	if [ "$rc" != 0 ]; then
		failed+=("$name: devtcp-bench exit $rc (log $out/$name.log)")
		tail -5 "$out/$name.log" >&2
	fi
	[ -s "$out/$name.json" ] || failed+=("$name: no JSON written")
}

n_stacks=$(echo "$STACKS" | tr ',' '\n' | wc -l)
run_bench cps $((30 + n_stacks * (CPS_SECONDS + 15))) --mode cps \
	--stacks "$STACKS" --duration "$CPS_SECONDS"
run_bench hold 150 --mode hold --stacks "$HOLD_STACKS" --conns "$CONNS" \
	--duration 120
if [ "$VETH" = 1 ]; then
	say "cps-veth: Linux client over veth, devtcp-server then the kernel"
	rc=0
	timeout -s INT -k 10 $((2 * VETH_SECONDS + 120)) "$here/cps-veth.sh" \
		--seconds "$VETH_SECONDS" --json "$out/cps-veth.json" \
		> "$out/cps-veth.log" 2>&1 || rc=$?
	grep -E '^\(|^a/b|cps-veth' "$out/cps-veth.log" >&2 || true
	[ "$rc" = 0 ] || failed+=("cps-veth: exit $rc (log $out/cps-veth.log)")
	[ -s "$out/cps-veth.json" ] || failed+=("cps-veth: no JSON written")
fi

# The summary: one table from the JSON; every expected run must be there.
# (python3 with the machine's own libraries, not the bundle's.)
rc=0
env -u LD_LIBRARY_PATH python3 - "$out" "$STACKS" "$HOLD_STACKS" "$CONNS" "$VETH" \
	$((SECONDS - t_start)) > "$out/summary.txt" 2> "$out/summary.err" <<'PY' || rc=$?
import json, os, sys
out, stacks, hold_stacks, conns, veth, wall = sys.argv[1:7]
stacks = [int(x) for x in stacks.split(",")]
errors, rows = [], []
def load(name):
    p = os.path.join(out, name + ".json")
    try:
        with open(p) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        errors.append("%s: %s" % (name, e))
        return None
def clean(r, what):
    c = r.get("conns_scale") or {}
    bad = []
    if not c or c.get("completed") != c.get("opened") or not c.get("opened"):
        bad.append("%s of %s completed" % (c.get("completed"), c.get("opened")))
    for k in ("failed", "bad_bytes"):
        if c.get(k):
            bad.append("%s %d" % (k, c[k]))
    for k in ("stack_drops", "missed", "tcp_errors", "events_overflow"):
        if r.get(k):
            bad.append("%s %d" % (k, r[k]))
    if bad:
        errors.append("%s: %s" % (what, ", ".join(bad)))
    return c
summary = {"wall_s": int(wall), "cps": [], "hold": None, "cps_veth": None}
print("cps (devtcp <-> devtcp, loopback wire, 1 KiB each way, connect..close)")
print("%-8s %10s %12s %8s %8s  %s" % ("srv/cli", "conns", "conn/s", "rtx",
                                      "drops", "per client stack conn/s"))
d = load("cps")
runs = d.get("runs", []) if d else []
if d and len(runs) != len(stacks):
    errors.append("cps: %d runs, expected %d" % (len(runs), len(stacks)))
for r, n in zip(runs, stacks):
    c = clean(r, "cps %d stacks" % n)
    if r.get("server_stacks") != n:
        errors.append("cps: run with %s server stacks, expected %d" %
                      (r.get("server_stacks"), n))
    per = "/".join("%.0f" % s["conns_per_s"] for s in c.get("client", []))
    print("%3d/%-4d %10d %12.0f %8d %8d  %s" % (
        r["server_stacks"], r["client_stacks"], c.get("opened", 0),
        c.get("conns_per_s", 0), r["retransmits"], r["drops"], per))
    summary["cps"].append({"server_stacks": r["server_stacks"],
                           "client_stacks": r["client_stacks"],
                           "conns": c.get("opened"),
                           "conns_per_s": c.get("conns_per_s"),
                           "per_client_stack": per,
                           "retransmits": r["retransmits"],
                           "drops": r["drops"]})
if len(summary["cps"]) >= 2 and summary["cps"][0]["conns_per_s"]:
    base = summary["cps"][0]
    for s in summary["cps"][1:]:
        print("cps(%d stacks) / cps(%d): %.2f" % (
            s["server_stacks"], base["server_stacks"],
            s["conns_per_s"] / base["conns_per_s"]))
d = load("hold")
runs = d.get("runs", []) if d else []
if d and len(runs) != 1:
    errors.append("hold: %d runs, expected 1" % len(runs))
for r in runs[:1]:
    c = clean(r, "hold")
    if c.get("opened") != int(conns) or \
            c.get("server_open_peak") != int(conns) or \
            c.get("client_open_peak") != int(conns):
        errors.append("hold: %s opened, %s/%s open at once, expected %s" % (
            c.get("opened"), c.get("client_open_peak"),
            c.get("server_open_peak"), conns))
    print("\nhold: %d connections over %d/%d stacks, 1 KiB each way" % (
        c.get("opened", 0), r["server_stacks"], r["client_stacks"]))
    print("  open at once: client %d, server %d; established in %.3f s, "
          "exchanged by %.3f s, all closed %.3f s later" % (
              c.get("client_open_peak", 0), c.get("server_open_peak", 0),
              c.get("establish_s", 0), c.get("exchange_s", 0),
              c.get("close_s", 0)))
    print("  hugepage bytes per connection: server stacks %.0f, client "
          "stacks %.0f (%.0f per slot; %d + %d slots); libc heap %.0f" % (
              c.get("server_mem_per_conn", 0), c.get("client_mem_per_conn", 0),
              c.get("mem_per_slot", 0), c.get("server_slots", 0),
              c.get("client_slots", 0), c.get("heap_per_conn", 0)))
    print("  accepted per server stack: %s" %
          "/".join(str(s["conns"]) for s in c.get("server", [])))
    summary["hold"] = {k: c.get(k) for k in (
        "opened", "establish_s", "exchange_s", "close_s",
        "server_mem_per_conn", "client_mem_per_conn", "mem_per_slot",
        "heap_per_conn", "server_open_peak", "client_open_peak")}
    summary["hold"]["stacks"] = r["server_stacks"]
if veth == "1":
    v = load("cps-veth")
    if v:
        a, b = v.get("a_devtcp_server"), v.get("b_kernel")
        if not a or not b or v.get("errors"):
            errors.append("cps-veth: %s" % (v.get("errors") or "no result"))
        f = lambda x: "%.0f" % x["cps"] if x else "-"
        print("\ncps-veth (Linux client over veth, %s): devtcp-server %s, "
              "kernel %s conn/s, a/b %s" % (v.get("workload"), f(a), f(b),
                                           v.get("a_over_b")))
        summary["cps_veth"] = {"devtcp_server": a and a["cps"],
                               "kernel": b and b["cps"],
                               "a_over_b": v.get("a_over_b"),
                               "workload": v.get("workload")}
print("\nwall: %s s" % wall)
summary["errors"] = errors
with open(os.path.join(out, "summary.json"), "w") as f:
    json.dump(summary, f, indent=2)
for e in errors:
    print("h200-conns: FAILED: " + e, file=sys.stderr)
sys.exit(1 if errors else 0)
PY
cat "$out/summary.txt"
cat "$out/summary.err" >&2
[ "$rc" = 0 ] || failed+=("summary: the results are incomplete or unclean")
if [ ${#failed[@]} -ne 0 ]; then
	for f in "${failed[@]}"; do
		echo "$prog: FAILED: $f" >&2
	done
	exit 1
fi
say "done in $((SECONDS - t_start)) s; results in $out"
