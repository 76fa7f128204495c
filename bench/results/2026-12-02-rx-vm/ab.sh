#!/usr/bin/env bash
# A/B, interleaved: ROUNDS x (A then B) of server-vs-bounce mode (a) (and
# (c), kernel TCP, once a round when C=1), each a fresh server and netns.
# A and B are shell assignments for server-vs-bounce.sh (e.g.
# 'SVB_DEVARGS=,mac=02:00:00:00:00:99' or 'SVB_ROOT_ETHTOOL="gro on"';
# empty: the default path); with BUILD_A / BUILD_B, two build trees. Per run: goodput, and CPU per GB
# of the server's system time (its kicks and the softirq they run) and of
# the sender (user, system); B/A of goodput per round.
# usage: [C=1] [SIZE=1G] [MTU=1500] ab.sh ROUNDS 'ENV_A' 'ENV_B'
set -uo pipefail
SVB_DEVARGS='' SVB_ROOT_ETHTOOL='' SVB_ROOT_THREADED=''
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
n=$1 A=${2:-} B=${3:-}
size=${SIZE:-1G} mtu=${MTU:-1500}
tmp=$(mktemp -d /tmp/rxab.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# A build tree whose devtcp-server is rusage_wrap.py around the real one.
wrap() { # $1 build tree -> wrapped tree
	local w
	w=$tmp/w$(echo "$1" | md5sum | cut -c1-8)
	mkdir -p "$w/app/server"
	ln -sf "$here/rusage_wrap.py" "$w/app/server/devtcp-server"
	echo "$w"
}
one() { # $1 modes, $2 assignments, $3 build -> "gbps srv_sys_s/GB snd_user_s/GB snd_sys_s/GB"
	local b=${3:-$top/build} j=$tmp/r.json
	: > "$tmp/ru"; rm -f "$j"
	( eval "$2"; export SVB_DEVARGS SVB_ROOT_ETHTOOL SVB_ROOT_THREADED
	REAL_SERVER=$b/app/server/devtcp-server RUSAGE_FILE=$tmp/ru DEVTCP_BUILD=$(wrap "$b") \
		"$top/bench/server-vs-bounce.sh" --size "$size" --mtus "$mtu" \
		--modes "$1" --json "$j" >/dev/null 2>"$tmp/err" )
	python3 - "$j" "$tmp/ru" "$1" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    print("- - - - -"); sys.exit()
r = d["results"][0][sys.argv[3]]
ru = open(sys.argv[2]).read().split()
gb = r["bytes"] / 1e9
ok = not d["errors"]
print("%s %s %.3f %.3f %s%s" % ("%.2f" % r["gbps"], "%.3f" % (float(ru[1]) / gb) if ru else "-",
      r.get("sender_user_s", 0) / gb, r.get("sender_sys_s", 0) / gb,
      r.get("sender_retrans", "-"), "" if ok else " ERR"))
PY
}
echo "# columns: Gb/s, server sys s/GB, sender user s/GB, sender sys s/GB, sender's retransmitted segments"
for i in $(seq "$n"); do
	a=$(one a "$A" "${BUILD_A:-}"); b=$(one a "$B" "${BUILD_B:-}")
	c="- - - - -"
	[ "${C:-0}" = 1 ] && c=$(one c "${CENV:-}" "")
	r=$(python3 -c "import sys; a,b=sys.argv[1:3]; print('%.3f' % (float(b)/float(a)) if '-' not in (a, b) else '-')" "${a%% *}" "${b%% *}")
	echo "round $i load $(cut -d' ' -f1 /proc/loadavg) MTU $mtu | A $a | B $b | C $c | B/A $r"
done
