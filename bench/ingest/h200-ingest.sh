#!/usr/bin/env bash
# One device call for issue 20's table: (d) first, then a, b, c; each step bounded.
cd "$(dirname "$0")/../.." || exit 1
o=${OUT:-/tmp/out}
for m in 1500 9000; do
	SVB_LOGS=$o/logs-d$m timeout 130 .bundle/run.sh server-vs-bounce.sh --size 4G --mtus $m --lcores 2-3 --modes d --json $o/svb-d$m.json > $o/svb-d$m.txt 2>&1
	echo "d $m rc=$?"; grep -v '^ ' $o/svb-d$m.txt | tail -8
done
[ -n "${SKIP_ABC:-}" ] || SVB_LOGS=$o/logs-abc timeout 200 .bundle/run.sh server-vs-bounce.sh --size 4G --mtus 1500,9000 --lcores 2-3 --modes a,b,c --json $o/svb-abc.json > $o/svb-abc.txt 2>&1
echo "abc rc=$?"; grep -v '^ ' $o/svb-abc.txt | tail -10
cd $o && tar czf logs.tgz logs-* && rm -rf logs-*
