#!/bin/bash
# H200 call for issue 11 (fifth session, fifth call): a control without
# devtcp's GPU copies. From the repository root on the GPU machine, with
# the bundle carried as .bundle: bash .bundle/bin/h200-next.sh
#   h4: 4 stacks, MTU 9000, 4 channels, payload region on gpu_sim (host
#       memory), GDR=0 (NCCL hands host buffers; NCCL's own kernel moves
#       data between host and GPU, as with Socket): both transports
#   c4: the same on gpu_cuda with GDR=1 and unpack, devtcp only (A/B in
#       the same call)
# Results: $OUT/r.tgz; each variant's table printed.
cd "$(dirname "$0")/../.."
export ITERS=2
R=$OUT/r; mkdir -p "$R"; S=$SECONDS
run() { local n=$1; shift; [ $((SECONDS - S)) -lt 200 ] || { echo "=== $n skipped (time)"; return; }
	echo "=== $n: T=$T $*"
	env RUN_TIMEOUT=$T "$@" timeout -k 5 $((T * 2 + 30)) .bundle/run.sh h200-nccl.sh "$R/$n" "$W" > "$R/$n.txt" 2>&1
	echo "rc $? at $((SECONDS - S)) s"
	cat "$R/$n/compare.txt" 2>/dev/null || sed -n '/^# /,/^vm/p' "$R/$n/devtcp-rank0.log" | grep "^all_\|^op" | awk '{print $1, $2, $4, $5, $6}' | tr '\n' ';'; echo
	grep -h "polls [0-9]*, rx\|Using network\|ptrSupport" "$R/$n"/devtcp-rank0.log | sed 's/.*NET.devtcp : //' | cut -c1-140 | head -6; tail -3 "$R/$n.txt"; }
T=90 W=both run h4 GDR=0 STACKS=4 MTU=9000 MIN=8M MAX=1G GPU_VDEV=gpu_sim0,size=2G NCCL_EXTRA=NCCL_MIN_NCHANNELS=4
T=60 W=devtcp run c4 GDR=1 UNPACK=yes STACKS=4 MTU=9000 MIN=8M MAX=1G NCCL_EXTRA=NCCL_MIN_NCHANNELS=4
cd "$OUT" && tar czf r.tgz r && rm -rf r
