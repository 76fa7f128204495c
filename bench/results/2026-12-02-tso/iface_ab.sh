#!/bin/sh
# devtcp -> Linux over a veth (net_hsplit's interface backend): the same
# devtcp-send build with caps=notso (one frame per MSS to the kernel) and
# caps=full (TSO: one GSO frame per burst), veth offloads off (the kernel
# segments the GSO frame in software) and on (the veth carries it whole).
# Root; uses scripts/netns.sh. Usage (repository root): iface_ab.sh REPS [MiB]
set -e
reps=${1:-3}
mib=${2:-64}
ns=dttsoab
root=$(pwd)
tmp=$(mktemp -d)
dd if=/dev/urandom of="$tmp/f" bs=1M count="$mib" status=none
cat > "$tmp/send.ini" <<INI
[port]
mtu = 1500
split = none
tx_cksum = yes
[port.0]
name = net_hsplit_ab
[client]
port = 0
ipv4 = 10.79.9.1
netmask = 255.255.255.0
connect = 10.79.9.2:5002
conns = 1
file = $tmp/f
chunk = 64K
INI
scripts/netns.sh up $ns --addr 10.79.9.2/24 --mtu 1500 >/dev/null
trap 'scripts/netns.sh down $ns >/dev/null 2>&1; rm -rf "$tmp"' EXIT
for off in off on; do
	ip netns exec $ns ethtool -K eth0 tx $off tso $off gso $off gro $off >/dev/null 2>&1 || true
	ethtool -K $ns tx $off tso $off gso $off gro $off >/dev/null 2>&1 || true
	for r in $(seq 1 "$reps"); do
		for caps in notso full; do
			ip netns exec $ns timeout 120 socat -u TCP-LISTEN:5002,reuseaddr \
				OPEN:"$tmp/out",creat,trunc &
			rcv=$!
			sleep 0.3
			out=$( { /usr/bin/time -f "TIME %e %U %S" build/app/server/devtcp-send \
				-l 1 --in-memory --no-pci --log-level=lib.eal:warning \
				--vdev=net_hsplit_ab,iface=$ns,caps=$caps -- \
				--config "$tmp/send.ini" --duration 60; } 2>&1 )
			wait $rcv || true
			got=$(stat -c %s "$tmp/out")
			t=$(echo "$out" | sed -n 's/^TIME //p')
			tso=$(echo "$out" | sed -n 's/.*stack TSO so far: \([0-9]*\) bursts, \([0-9]*\) segments.*/\1 \2/p')
			echo "offloads=$off caps=$caps rep=$r MiB=$mib received=$got time(wall user sys)=$t tso(bursts segs)=${tso:-none} load=$(cut -d' ' -f1 /proc/loadavg)"
		done
	done
done
