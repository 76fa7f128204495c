#!/usr/bin/env bash
# Run every devtcp test: set-up if needed, the unit and component suites of
# the main build, then the unit suite again under ASan+UBSan.
# The last line is "N passed, N failed" (skipped tests are reported above it).
#
# usage: scripts/test.sh [meson test args, e.g. --suite unit]
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${DEVTCP_BUILD:-build}
asan=${build}-asan

scripts/setup.sh || { echo "0 passed, 1 failed"; exit 1; }

rc=0
# Tests share the machine's hugepages and 2 cores: two at a time at most.
meson test -C "$build" --print-errorlogs --num-processes 2 "$@" || rc=1

if [ ! -f "$asan/build.ninja" ]; then
	meson setup "$asan" -Dunit_only=true -Db_sanitize=address,undefined \
		-Db_lundef=false -Dc_args=-fno-sanitize-recover=all >/dev/null || rc=1
fi
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	meson test -C "$asan" --suite unit --print-errorlogs || rc=1

python3 - "$build/meson-logs/testlog.json" "$asan/meson-logs/testlog.json" <<'PY'
import json, sys
passed = failed = skipped = 0
for i, path in enumerate(sys.argv[1:]):
    try:
        lines = open(path).read().splitlines()
    except OSError:
        failed += 1
        print("missing test log: " + path)
        continue
    for line in lines:
        t = json.loads(line)
        name = ("asan/" if i else "") + t["name"]
        r = t["result"]
        if r in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif r == "SKIP":
            skipped += 1
            print("skipped: " + name)
        else:
            failed += 1
            print("FAILED (%s): %s" % (r, name))
print("%d skipped" % skipped)
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
[ $? -eq 0 ] || rc=1
exit $rc
