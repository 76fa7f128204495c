#!/usr/bin/env bash
# Test hosts for devtcp: a network namespace with one end of a veth pair.
#
#   netns.sh up NAME [--addr CIDR] [--peer-addr CIDR] [--peer-ns NS] [--mtu N]
#                    [--netem "ARGS"] [--offloads off|on] [--mac MAC]
#                    [--peer-mac MAC] [--ipv6]
#   netns.sh down NAME
#   netns.sh netem NAME "ARGS" | off
#   netns.sh show NAME
#   netns.sh check
#
# "up" makes namespace NAME holding interface eth0, one end of a veth pair;
# the other end is called NAME and stays in the root namespace (for
# net_hsplit's iface=NAME), or goes to namespace NS with --peer-ns. Every
# step checks what is there first, so "up" run twice, or on a half-made host,
# ends in the state asked for. "down" removes the pair and the namespace (and
# tells which processes still run in it). See docs/netns.md.
set -euo pipefail

prog=$(basename "$0")
die() { echo "$prog: error: $*" >&2; exit 1; }
usage() { sed -n '3,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
warn() { echo "$prog: warning: $*" >&2; }

# Interface names: at most 15 characters (IFNAMSIZ), no '/' or blanks.
valid_name() { [[ $1 =~ ^[A-Za-z0-9_][A-Za-z0-9_.-]{0,14}$ ]]; }

ns_exists() { [ -e "/var/run/netns/$1" ]; }
# Run in namespace $1, or here when $1 is empty.
in_ns() {
	local ns=$1
	shift
	if [ -n "$ns" ]; then ip netns exec "$ns" "$@"; else "$@"; fi
}
# Write a /proc/sys value in namespace $1 (names with dots defeat sysctl(8)).
proc_set() {
	in_ns "$1" sh -c "[ ! -e '$2' ] || echo $3 > '$2'"
}

offloads_off() {
	local ns=$1 dev=$2 out
	# tx off also turns TSO off; GSO off makes TCP build MTU-sized frames;
	# GRO off keeps a receiving veth from merging frames. With all of them
	# off every frame crosses as one MTU-sized frame with full checksums.
	if ! out=$(in_ns "$ns" ethtool -K "$dev" tx off tso off gso off gro off 2>&1); then
		case $out in
		*"Cannot get"*|*"not found"*|*"No such"*) die "ethtool -K $dev: $out" ;;
		*) [ -z "$out" ] || warn "ethtool -K $dev: $out" ;;
		esac
	fi
}

netem_set() {
	local ns=$1 args=$2 out
	if [ "$args" = off ] || [ "$args" = none ] || [ -z "$args" ]; then
		ip netns exec "$ns" tc qdisc del dev eth0 root 2>/dev/null || true
		return 0
	fi
	# shellcheck disable=SC2086
	if ! out=$(ip netns exec "$ns" tc qdisc replace dev eth0 root netem $args 2>&1); then
		case $out in
		*"unknown"*|*"Unknown"*)
			die "tc netem is not available in this kernel (sch_netem): $out" ;;
		*) die "tc qdisc replace dev eth0 root netem $args: $out" ;;
		esac
	fi
}

cmd_check() {
	local t="dtchk$$"
	[ "$(id -u)" = 0 ] || { echo "needs root (network namespaces, veth)"; return 1; }
	command -v ip >/dev/null || { echo "ip (iproute2) not installed"; return 1; }
	command -v ethtool >/dev/null || { echo "ethtool not installed (scripts/setup.sh)"; return 1; }
	if ! ip netns add "$t" 2>/dev/null; then
		echo "cannot create a network namespace (ip netns add)"
		return 1
	fi
	if ! ip link add "$t" type veth peer name eth0 netns "$t" 2>/dev/null; then
		ip netns del "$t" 2>/dev/null || true
		echo "cannot create a veth pair (kernel without veth?)"
		return 1
	fi
	ip link del "$t" 2>/dev/null || true
	ip netns del "$t" 2>/dev/null || true
	echo "network namespaces and veth pairs work"
}

cmd_up() {
	local name=$1
	shift
	local addr="" peer_addr="" peer_ns="" mtu="" netem="" offloads=off
	local mac="" peer_mac="" ipv6=0
	while [ $# -gt 0 ]; do
		case $1 in
		--addr) addr=${2:?--addr needs CIDR}; shift 2 ;;
		--peer-addr) peer_addr=${2:?--peer-addr needs CIDR}; shift 2 ;;
		--peer-ns) peer_ns=${2:?--peer-ns needs a name}; shift 2 ;;
		--mtu) mtu=${2:?--mtu needs N}; shift 2 ;;
		--netem) netem=${2:?--netem needs ARGS}; shift 2 ;;
		--offloads) offloads=${2:?--offloads needs on|off}; shift 2 ;;
		--mac) mac=${2:?--mac needs MAC}; shift 2 ;;
		--peer-mac) peer_mac=${2:?--peer-mac needs MAC}; shift 2 ;;
		--ipv6) ipv6=1; shift ;;
		*) echo "$prog: unknown option $1" >&2; usage ;;
		esac
	done
	[ -z "$mtu" ] || [[ $mtu =~ ^[0-9]+$ && $mtu -ge 68 && $mtu -le 65535 ]] ||
		die "--mtu $mtu: need 68..65535"
	case $offloads in on|off) ;; *) die "--offloads $offloads: need on or off" ;; esac
	if [ -n "$peer_ns" ]; then
		valid_name "$peer_ns" || die "bad namespace name $peer_ns"
		[ "$peer_ns" != "$name" ] || die "--peer-ns must differ from NAME"
	fi

	# 1. Namespaces.
	ns_exists "$name" || ip netns add "$name"
	ip -n "$name" link set lo up
	if [ -n "$peer_ns" ]; then
		ns_exists "$peer_ns" || ip netns add "$peer_ns"
		ip -n "$peer_ns" link set lo up
	fi

	# 2. The veth pair: eth0 in NAME, NAME in the root namespace or PEER_NS.
	if ! ip -n "$name" link show eth0 >/dev/null 2>&1; then
		# A stale end of an older pair is ours to remove; anything else is not.
		if ip link show "$name" >/dev/null 2>&1; then
			# Whole output first: `ip | grep -q` under pipefail can
			# fail when grep exits before ip has written it all.
			grep -qw veth <<<"$(ip -d link show "$name")" ||
				die "interface $name exists and is not a veth: not touching it"
			ip link del "$name"
		fi
		ip link add "$name" type veth peer name eth0 netns "$name"
	fi
	local pns=""
	if [ -n "$peer_ns" ]; then
		pns=$peer_ns
		if ! ip -n "$peer_ns" link show "$name" >/dev/null 2>&1; then
			ip link show "$name" >/dev/null 2>&1 ||
				die "the peer end $name of $name/eth0 is neither here nor in $peer_ns"
			ip link set "$name" netns "$peer_ns"
		fi
	else
		ip link show "$name" >/dev/null 2>&1 ||
			die "the peer end $name of $name/eth0 is not in the root namespace (made with --peer-ns? run down first)"
	fi

	# 3. Link settings, then addresses.
	if [ -n "$mtu" ]; then
		ip -n "$name" link set dev eth0 mtu "$mtu"
		in_ns "$pns" ip link set dev "$name" mtu "$mtu"
	fi
	[ -z "$mac" ] || ip -n "$name" link set dev eth0 address "$mac"
	[ -z "$peer_mac" ] || in_ns "$pns" ip link set dev "$name" address "$peer_mac"
	if [ "$ipv6" = 0 ]; then
		# No router solicitations, DAD or MLD reports on a test wire.
		proc_set "$name" /proc/sys/net/ipv6/conf/eth0/disable_ipv6 1
		proc_set "$pns" "/proc/sys/net/ipv6/conf/$name/disable_ipv6" 1
	fi
	if [ -z "$peer_addr" ]; then
		# The peer end belongs to a userspace NIC: the kernel there must not
		# answer ARP for its own addresses or route frames it sees.
		proc_set "$pns" "/proc/sys/net/ipv4/conf/$name/arp_ignore" 8
		proc_set "$pns" "/proc/sys/net/ipv4/conf/$name/forwarding" 0
	fi
	if [ "$offloads" = off ]; then
		offloads_off "$name" eth0
		offloads_off "$pns" "$name"
	fi
	ip -n "$name" link set eth0 up
	in_ns "$pns" ip link set "$name" up
	[ -z "$addr" ] || ip -n "$name" addr replace "$addr" dev eth0
	[ -z "$peer_addr" ] || in_ns "$pns" ip addr replace "$peer_addr" dev "$name"
	[ -z "$netem" ] || netem_set "$name" "$netem"

	# 4. Carrier: veth reports it once both ends are up.
	local i
	for i in $(seq 50); do
		[ "$(in_ns "$pns" cat "/sys/class/net/$name/operstate" 2>/dev/null)" = up ] && break
		sleep 0.02
	done
	echo "netns $name: eth0 $(ip netns exec "$name" cat /sys/class/net/eth0/address)" \
		"${addr:-(no address)} mtu $(ip netns exec "$name" cat /sys/class/net/eth0/mtu);" \
		"peer $name $(in_ns "$pns" cat "/sys/class/net/$name/address") in ${pns:-the root namespace}${peer_addr:+ $peer_addr}"
}

cmd_down() {
	local name=$1 pids
	if ns_exists "$name"; then
		pids=$(ip netns pids "$name" 2>/dev/null | tr '\n' ' ')
		[ -z "$pids" ] || warn "processes still in namespace $name: $pids(not killed)"
		# Deleting one end deletes the pair, wherever the other end is.
		ip -n "$name" link del eth0 2>/dev/null || true
		ip netns del "$name" 2>/dev/null || true
	fi
	if grep -qw veth <<<"$(ip -d link show "$name" 2>/dev/null)"; then
		ip link del "$name" 2>/dev/null || true
	fi
	return 0
}

cmd_show() {
	local name=$1
	ns_exists "$name" || die "no namespace $name"
	ip -n "$name" -br addr show
	ip netns exec "$name" tc qdisc show dev eth0
	ip -br link show "$name" 2>/dev/null || echo "(peer end $name not in the root namespace)"
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case $cmd in
check) cmd_check ;;
up|down|netem|show)
	[ $# -ge 1 ] || usage
	valid_name "$1" || die "bad name '$1': 1..15 of [A-Za-z0-9_.-]"
	[ "$(id -u)" = 0 ] || die "needs root"
	case $cmd in
	up) cmd_up "$@" ;;
	down) cmd_down "$1" ;;
	netem)
		[ $# -eq 2 ] || usage
		ns_exists "$1" || die "no namespace $1"
		netem_set "$1" "$2" ;;
	show) cmd_show "$1" ;;
	esac ;;
-h|--help|help) usage ;;
*) usage ;;
esac
