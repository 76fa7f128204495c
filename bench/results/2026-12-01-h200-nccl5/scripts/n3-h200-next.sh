#!/bin/bash
# The next H200 call for issue 11 (fifth session, third call), prepared on
# the VM: one call of at most ~4 minutes. From the repository root on the
# GPU machine, with the bundle carried as .bundle: bash .bundle/bin/h200-next.sh
# All devtcp only: 4 stacks per rank, MTU 9000, NCCL_MIN_NCHANNELS=4,
# unpack, fanout RX sockets, [nccl] profile = yes (where each stack
# lcore's loop goes, and net_hsplit's burst/drain/kick cycles).
#   p:   4 flows per comm (the default)
#   fl8: 8 flows per comm (two per stack): is a flow's rate the limit?
#   w16: 16 MiB TCP window per flow instead of 4 MiB
# Results: $OUT/r.tgz; each variant's table and rank 0's profile printed.
cd "$(dirname "$0")/../.."
export GDR=1 ITERS=2 UNPACK=yes PROFILE=yes
R=$OUT/r; mkdir -p "$R"; S=$SECONDS
run() { local n=$1; shift; [ $((SECONDS - S)) -lt 200 ] || { echo "=== $n skipped (time)"; return; }
	echo "=== $n: T=$T $*"
	env RUN_TIMEOUT=$T "$@" timeout -k 5 $((T * 2 + 30)) .bundle/run.sh h200-nccl.sh "$R/$n" "$W" > "$R/$n.txt" 2>&1
	echo "rc $? at $((SECONDS - S)) s"
	sed -n '/^# /,/^vm/p' "$R/$n/devtcp-rank0.log" | grep "^all_\|^op" | awk '{print $1, $2, $4, $5, $6}' | tr '\n' ';'; echo
	grep -h -o "iface_[a-z_]*cycles [0-9]*\|iface_tx_kicks [0-9]*\|iface_rx_frames [0-9]*\|iface_tx_frames [0-9]*\|iface_rx_drains [0-9]*" "$R/$n"/devtcp-rank0.log | tr '\n' ' '; echo
	grep -h "loop (profile)\|polls [0-9]*, rx" "$R/$n"/devtcp-rank0.log | sed 's/.*NET.devtcp : //' | cut -c1-260 | head -8; }
T=60 W=devtcp run p STACKS=4 MTU=9000 MIN=8M MAX=1G NCCL_EXTRA=NCCL_MIN_NCHANNELS=4
T=60 W=devtcp run fl8 STACKS=4 MTU=9000 MIN=8M MAX=1G FLOWS=8 NCCL_EXTRA=NCCL_MIN_NCHANNELS=4
T=60 W=devtcp run w16 STACKS=4 MTU=9000 MIN=8M MAX=1G WINDOW=16M NCCL_EXTRA=NCCL_MIN_NCHANNELS=4
grep -h "TSC\|tsc" "$R"/p/devtcp-rank0.log | head -2
cd "$OUT" && tar czf r.tgz r && rm -rf r
