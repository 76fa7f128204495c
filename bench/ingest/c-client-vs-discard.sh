#!/bin/bash
# devtcp-server with the discard consumer, or in ingest mode with the C client
# (build/test/ingest/ingest_take, which also hashes every byte), one Linux
# sender (socat, 64 MiB) over a veth pair, MTU 1500, one stack.
# usage: bench/ingest/c-client-vs-discard.sh discard|ingest
set -u
ns=iperf$$; tmp=$(mktemp -d)
scripts/netns.sh up $ns --addr 10.82.0.2/24 --mtu 1500 >/dev/null
cat > $tmp/s.ini <<EOF2
[port]
mtu = 1500
[port.0]
name = net_hsplit_p
[stack]
port = 0
ipv4 = 10.82.0.1
listen = 5001
[devmem]
gpu = 0
[limits]
window = 4M
[consumer]
mode = $1
[ingest]
socket = $tmp/s.sock
EOF2
[ "$1" = ingest ] || sed -i '/^\[ingest\]/,$d' $tmp/s.ini
build/app/server/devtcp-server -l 0-1 --in-memory --no-pci --log-level=lib.eal:warning --vdev=net_hsplit_p,iface=$ns --vdev=gpu_sim_p,size=256M -- --config $tmp/s.ini --drain 1 > $tmp/srv.log 2>&1 &
s=$!
for i in $(seq 100); do grep -q 'running (SIG' $tmp/srv.log && break; sleep 0.1; done
if [ "$1" = ingest ]; then build/test/ingest/ingest_take $tmp/s.sock 5001 --streams 1 > $tmp/take.log 2>&1 & c=$!; sleep 0.5; fi
head -c 64M /dev/urandom > $tmp/f
t0=$(date +%s.%N)
ip netns exec $ns socat -u OPEN:$tmp/f TCP:10.82.0.1:5001
t1=$(date +%s.%N)
echo "$1: $(echo "64*8/1024/($t1-$t0)" | bc -l | cut -c1-5) Gb/s"
[ "$1" = ingest ] && { wait $c; tail -2 $tmp/take.log; }
kill $s; wait $s
grep -E 'ingest: stack|drops' $tmp/srv.log
scripts/netns.sh down $ns >/dev/null; rm -rf $tmp
