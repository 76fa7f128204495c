#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Stock dpdk-testpmd loads net_hsplit as a plugin (-d), configures buffer
# split on two ports of one loopback wire, once by protocol (--rxhdrs) and
# once by length (--rxpkts), sends with "start tx_first" (txonly UDP frames
# of 1000 bytes) and receives with rxonly. Checks the chain shape testpmd
# prints (nb_segs) and that the split xstats add up.
# Usage: test_hsplit_testpmd.sh PLUGIN_DIR
set -u
plugin_dir=$(readlink -f "${1:?usage: $0 PLUGIN_DIR}")
testpmd=${DPDK_TESTPMD:-/usr/bin/dpdk-testpmd}
[ -x "$testpmd" ] || { echo "SKIP: $testpmd not installed"; exit 77; }
[ -f "$plugin_dir/librte_net_hsplit.so" ] || { echo "no plugin in $plugin_dir"; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
BURSTS=2
NPKT=$((32 * BURSTS))   # per port
FRAME=1000
HDR=42                  # Ethernet + IPv4 + UDP

# run NAME SPLIT_ARGS...: testpmd with the given split switches
run() {
	local name=$1; shift
	# -d rejects world-writable directories (/tmp): load by soname from
	# LD_LIBRARY_PATH, from a cwd that is not world-writable.
	( sleep 2; echo "set verbose 1"; echo "start tx_first $BURSTS"; sleep 2
	  echo "stop"; echo "show port xstats 1"; echo "quit" ) |
	(cd / && LD_LIBRARY_PATH="$plugin_dir" timeout 60 "$testpmd" -l 0-1 \
		--in-memory --no-pci --log-level=lib.eal:warning \
		-d librte_net_hsplit.so \
		--vdev="net_hsplit_tp${name}0,wire=tp$name" \
		--vdev="net_hsplit_tp${name}1,wire=tp$name" -- -i \
		--forward-mode=rxonly --rx-offloads=0x102000 \
		--mbuf-size=2048,2048 --total-num-mbufs=8192 \
		--txpkts=$FRAME --burst=32 --no-flush-rx "$@") > "$out/$name.log" 2>&1
	local rc=$?
	echo "testpmd $name: exit $rc"
	[ $rc = 0 ] || fail=1
}

xs() { # xs LOG NAME: value of xstat NAME of port 1
	awk -v n="$2:" '$1 == n { print $2; exit }' "$1"
}

check() { # check LOG HDR_BYTES_PER_PKT
	local log=$1 hdr=$2 segs split hb pb nm
	segs=$(grep -o "nb_segs=2 " "$log" | wc -l)
	split=$(xs "$log" rx_q0_split_packets)
	hb=$(xs "$log" rx_q0_header_bytes)
	pb=$(xs "$log" rx_q0_payload_bytes)
	nm=$(xs "$log" rx_q0_nomatch_packets)
	echo "  2-segment packets printed (verbose rxonly): $segs; port 1 split=$split header_bytes=$hb payload_bytes=$pb nomatch=$nm"
	# Both ports receive NPKT frames; each one printed as a 2-segment chain.
	[ "$segs" = $((2 * NPKT)) ] || { echo "FAIL: expected $((2 * NPKT)) 2-segment packets"; fail=1; }
	[ "$split" = "$NPKT" ] || { echo "FAIL: rx_q0_split_packets $split != $NPKT"; fail=1; }
	[ "$hb" = $((NPKT * hdr)) ] || { echo "FAIL: header_bytes $hb != $((NPKT * hdr))"; fail=1; }
	[ "$pb" = $((NPKT * (FRAME - hdr))) ] || { echo "FAIL: payload_bytes $pb != $((NPKT * (FRAME - hdr)))"; fail=1; }
	[ "$nm" = 0 ] || { echo "FAIL: nomatch $nm"; fail=1; }
}

run proto --rxhdrs=ipv4-udp
check "$out/proto.log" $HDR
run len --rxpkts=64,2048
check "$out/len.log" 64
if [ $fail != 0 ]; then
	for f in "$out"/*.log; do echo "=== $f"; grep -v "src=" "$f" | tail -60; done
fi
exit $fail
