o=$OUT
for m in 9000 1500; do
	SVB_LOGS=$o/logs-d$m timeout 75 .bundle/run.sh server-vs-bounce.sh --size 4G --mtus $m --lcores 2-3 --modes d --json $o/svb-d$m.json > $o/svb-d$m.txt 2>&1
	echo "d $m rc=$?"; grep -v '^ ' $o/svb-d$m.txt | tail -5
done
cd $o && tar czf logs.tgz logs-* && rm -rf logs-*
