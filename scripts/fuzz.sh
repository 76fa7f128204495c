#!/usr/bin/env bash
# Run the libFuzzer targets of test/fuzz longer than CI does, one after the
# other on one CPU, and print executions, libFuzzer coverage and crashes;
# optionally line coverage of lib/net, lib/tcp and lib/dp (llvm-cov) and a
# replay of the committed crashers.
#
# usage: scripts/fuzz.sh [-t SECONDS] [--cov] [--crashers] [TARGET...]
#   TARGET     net, tcp, dp, nccl_wire, ini, cli_flow (default: all)
#   -t N       seconds per target (default 300; 0: no fuzzing, --cov of the
#              corpus already there)
#   --cov      also build build-fuzzcov (clang, -fprofile-instr-generate) and
#              report the line coverage the corpus reaches, per library
#   --crashers replay test/fuzz/crashers/TARGET/* and say which still fail
#              (no fuzzing)
# env: DEVTCP_BUILD (main build folder, default build; the targets come from
#      its -asan sibling that scripts/test.sh makes), FUZZ_TCP_LAX (see
#      test/fuzz/fuzz_tcp.c: invariants that report instead of abort),
#      FUZZ_WORK (corpus folder, default BUILD-asan/fuzz-work).
# The corpus grows in FUZZ_WORK/TARGET (kept between runs; the committed
# seeds are never written). Exit status: 1 when a target crashed.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${DEVTCP_BUILD:-build}
asan=${build}-asan
cov_build=${build}-fuzzcov
fuzz_work=${FUZZ_WORK:-$asan/fuzz-work}
secs=300
cov=0
replay=0
targets=()
while [ $# -gt 0 ]; do
	case $1 in
	-t) secs=$2; shift 2 ;;
	--cov) cov=1; shift ;;
	--crashers) replay=1; shift ;;
	net|tcp|dp|nccl_wire|ini|cli_flow|ingest) targets+=("$1"); shift ;;
	*) echo "usage: $0 [-t SECONDS] [--cov] [--crashers] [net|tcp|dp|nccl_wire|ini|cli_flow|ingest ...]" >&2
	   exit 2 ;;
	esac
done
[ ${#targets[@]} -gt 0 ] || targets=(net tcp dp nccl_wire ini cli_flow ingest)

if [ ! -x "$asan/test/fuzz/fuzz_net" ]; then
	echo "no fuzz targets in $asan: run scripts/test.sh first (it builds $asan with clang)" >&2
	exit 1
fi
nice ninja -C "$asan" test/fuzz/fuzz_net test/fuzz/fuzz_tcp \
	test/fuzz/fuzz_nccl_wire test/fuzz/fuzz_ini \
	$( [ -f "$asan/test/fuzz/fuzz_dp" ] &&
		echo test/fuzz/fuzz_dp test/fuzz/fuzz_cli_flow \
			test/fuzz/fuzz_ingest ) >/dev/null ||
	{ echo "build of the fuzz targets failed" >&2; exit 1; }
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

rc=0
if [ "$replay" = 1 ]; then
	for t in "${targets[@]}"; do
		for f in test/fuzz/crashers/"$t"/*; do
			[ -f "$f" ] || continue
			case $f in *.txt|*.md) continue ;; esac
			out=$("$asan/test/fuzz/fuzz_$t" "$f" 2>&1)
			if [ $? -eq 0 ]; then
				echo "fixed:   $f"
			else
				rc=1
				echo "crashes: $f: $(echo "$out" | grep -m1 -E 'invariant broken|broken:|property broken|ERROR: ')"
			fi
		done
	done
	exit $rc
fi

for t in "${targets[@]}"; do
	[ "$secs" -gt 0 ] || break
	bin=$asan/test/fuzz/fuzz_$t
	[ -x "$bin" ] || { echo "fuzz_$t: not built in $asan, skipped"; continue; }
	work=$fuzz_work/$t
	mkdir -p "$work"
	rm -rf "$work/artifacts"
	nice test/fuzz/run_fuzz.sh "$bin" "$secs" test/fuzz/corpus/"$t" "$work" ||
		rc=1
	echo "fuzz_$t: corpus now $(find "$work/corpus" -type f | wc -l) inputs in $work/corpus"
done

[ "$cov" = 1 ] || exit $rc

# Line coverage: the same targets built with source-based coverage (no
# sanitizers), run once over the seeds and what the runs above found.
# Without fuzz_dp the EAL-free part of the tree is enough (a short build).
unit_only=true
for t in "${targets[@]}"; do
	case $t in dp|cli_flow|ingest) unit_only=false ;; esac
done
if [ -f "$cov_build/build.ninja" ] && [ "$unit_only" = false ] &&
		[ ! -d "$cov_build/drivers" ]; then
	rm -rf "$cov_build"	# a unit_only one: dp needs the whole tree
fi
if [ ! -f "$cov_build/build.ninja" ]; then
	CC=clang meson setup "$cov_build" -Ddpdk_sdk="$top/$build-sdk" \
		-Dunit_only=$unit_only \
		-Dfuzz=enabled -Db_lundef=false -Dwerror=false \
		-Dc_args="-fprofile-instr-generate -fcoverage-mapping" \
		-Dc_link_args="-fprofile-instr-generate" >/dev/null ||
		{ echo "coverage build set-up failed" >&2; exit 1; }
fi
nice ninja -C "$cov_build" $(for t in "${targets[@]}"; do
	echo test/fuzz/fuzz_$t; done) >/dev/null ||
	{ echo "coverage build failed" >&2; exit 1; }
declare -A srcs=([net]="lib/net" [tcp]="lib/tcp" [dp]="lib/dp"
	[nccl_wire]="plugins/nccl" [ini]="app/common" [cli_flow]="app/cli")
for t in "${targets[@]}"; do
	bin=$cov_build/test/fuzz/fuzz_$t
	[ -x "$bin" ] || continue
	prof=$cov_build/fuzz-$t
	rm -f "$prof".*
	dirs=(test/fuzz/corpus/"$t")
	[ -d "$fuzz_work/$t/corpus" ] && dirs+=("$fuzz_work/$t/corpus")
	n_in=$(find "${dirs[@]}" -type f | wc -l)
	# Replay only: known-bug invariants must not stop it half way.
	FUZZ_TCP_LAX=all LLVM_PROFILE_FILE="$prof.%p.profraw" "$bin" -runs=0 \
		-artifact_prefix="$prof-" "${dirs[@]}" >/dev/null 2>&1
	llvm-profdata merge -sparse "$prof".*.profraw -o "$prof.profdata" ||
		{ rc=1; continue; }
	echo "fuzz_$t: line coverage of ${srcs[$t]} over $n_in inputs (seeds + corpus):"
	# Per file: lines, missed lines, line cover; then the library's total.
	llvm-cov report "$bin" -instr-profile="$prof.profdata" \
		"$top/${srcs[$t]}" | awk -v lib="${srcs[$t]}/" '
		index($1, lib) == 1 {
			printf "  %-28s lines %5d  missed %4d  %s\n", $1, $8, $9, $10
			l += $8; m += $9
		}
		END { if (l) printf "  %-28s lines %5d  missed %4d  %.1f%%\n",
			lib "TOTAL", l, m, 100 * (l - m) / l }'
done
exit $rc
