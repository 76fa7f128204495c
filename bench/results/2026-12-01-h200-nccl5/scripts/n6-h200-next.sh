#!/bin/bash
# H200 call for issue 11 (fifth session, sixth call): how long net_hsplit's
# GPU copies take under NCCL, against the host-memory control. From the
# repository root on the GPU machine, with the bundle carried as .bundle:
# bash .bundle/bin/h200-next.sh
#   g:  4 stacks, MTU 9000, 4 channels, unpack, GDR=1, profile: devtcp only
#   h:  the same with the payload region on gpu_sim, GDR=0 (no GPU copies)
# Prints rank 0's per-queue copy latencies (rx_q*/tx_q*_copy_latency_*),
# the profile's TSC rate, and each table. Results: $OUT/r.tgz.
cd "$(dirname "$0")/../.."
export ITERS=2 PROFILE=yes
R=$OUT/r; mkdir -p "$R"; S=$SECONDS
run() { local n=$1; shift; [ $((SECONDS - S)) -lt 200 ] || { echo "=== $n skipped (time)"; return; }
	echo "=== $n: T=$T $*"
	env RUN_TIMEOUT=$T "$@" timeout -k 5 $((T * 2 + 30)) .bundle/run.sh h200-nccl.sh "$R/$n" "$W" > "$R/$n.txt" 2>&1
	echo "rc $? at $((SECONDS - S)) s"
	sed -n '/^# /,/^vm/p' "$R/$n/devtcp-rank0.log" | grep "^all_" | awk '{print $1, $2, $5}' | tr '\n' ';'; echo
	grep -h -o "[rt]x_q[0-9]*_copy_latency_[a-z]* [0-9]*\|[rt]x_q[0-9]*_copy_calls [0-9]*\|tx_q[0-9]*_copy_wait_cycles [0-9]*\|iface_[a-z_]*cycles [0-9]*" "$R/$n"/devtcp-rank0.log | tr '\n' ' '; echo
	grep -h "stack 0 loop (profile)\|stack 0 receives" "$R/$n"/devtcp-rank0.log | sed 's/.*NET.devtcp : //' | cut -c1-260; }
T=60 W=devtcp run g GDR=1 UNPACK=yes STACKS=4 MTU=9000 MIN=8M MAX=1G NCCL_EXTRA=NCCL_MIN_NCHANNELS=4
T=60 W=devtcp run h GDR=0 STACKS=4 MTU=9000 MIN=8M MAX=1G GPU_VDEV=gpu_sim0,size=2G NCCL_EXTRA=NCCL_MIN_NCHANNELS=4
cd "$OUT" && tar czf r.tgz r && rm -rf r
