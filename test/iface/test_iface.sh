#!/usr/bin/env bash
# Component test of net_hsplit on a Linux interface: makes a test host
# (scripts/netns.sh up), runs test_iface with the port on the host's veth
# peer, and removes the host and whatever the test started in it on any exit.
#
# usage: test_iface.sh NETNS_SH TEST_IFACE [EAL args...]
# Exit 77 (skipped) when not root or namespaces/veth are unavailable.
set -u
netns=$1
bin=$2
shift 2

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: needs root (network namespaces, veth, AF_PACKET)"
	exit 77
fi
for t in ip ethtool socat ss ping timeout; do
	command -v "$t" >/dev/null || { echo "SKIP: $t not installed (scripts/setup.sh)"; exit 77; }
done
if ! why=$("$netns" check 2>&1); then
	echo "SKIP: $why"
	exit 77
fi

# Unique per run (parallel tests), within IFNAMSIZ.
name="dti$$"
tmp=$(mktemp -d /tmp/devtcp-iface.XXXXXX)
child=""
cleanup() {
	local p
	[ -z "$child" ] || kill "$child" 2>/dev/null
	# Only what the test started: it records the process group of each.
	if [ -f "$tmp/pids" ]; then
		while read -r p; do
			kill -TERM -- "-$p" 2>/dev/null
		done < "$tmp/pids"
	fi
	"$netns" down "$name" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

"$netns" up "$name" --addr 10.77.0.2/24 --mtu 9000 || exit 1
export DT_IFACE=$name DT_NS=$name DT_TMP=$tmp DT_MY_IP=10.77.0.1 DT_PEER_IP=10.77.0.2
"$bin" "$@" &
child=$!
wait "$child"
rc=$?
child=""
exit $rc
