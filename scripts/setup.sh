#!/usr/bin/env bash
# devtcp set-up: Debian packages, DPDK driver-SDK headers, hugepages, build.
# Idempotent; a second run only checks and rebuilds what changed.
#
# usage: scripts/setup.sh [--no-build]
# env:   DEVTCP_BUILD (build folder, default: build), DEVTCP_HUGEPAGES (2 MiB
#        pages to reserve, default 512)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${DEVTCP_BUILD:-build}
nr_huge=${DEVTCP_HUGEPAGES:-512}
do_build=1
[ "${1:-}" = "--no-build" ] && do_build=0

say() { echo "setup: $*"; }
die() { echo "setup: error: $*" >&2; exit 1; }

sudo=""
if [ "$(id -u)" != 0 ]; then
	command -v sudo >/dev/null || die "run as root (packages, hugepages)"
	sudo="sudo -n"
fi

# 1. Packages.
pkgs="dpdk dpdk-dev libdpdk-dev rdma-core libibverbs-dev libdrm-dev libnuma-dev
meson ninja-build pkg-config gcc dpkg-dev xz-utils python3 python3-pyelftools
iproute2 iperf3 socat tshark tcpdump netcat-openbsd ethtool iputils-ping nftables
gnuplot-nox clang libclang-rt-14-dev llvm
python3-numpy python3-pytest python3-torch"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	say "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	echo "wireshark-common wireshark-common/install-setuid boolean false" |
		$sudo debconf-set-selections 2>/dev/null || true
	$sudo apt-get update -q >/dev/null
	$sudo apt-get install -y -q --no-install-recommends $missing >/dev/null ||
		die "apt-get install failed for:$missing"
fi

# 2. DPDK driver-SDK headers of exactly the installed version, in the build area.
sdk="$top/$build-sdk"
"$top/scripts/fetch-dpdk-sdk.sh" "$sdk"

# 3. Hugepages.
cur=$(awk '/HugePages_Total/ {print $2}' /proc/meminfo)
if [ "$cur" -lt "$nr_huge" ]; then
	echo "$nr_huge" | $sudo tee /proc/sys/vm/nr_hugepages >/dev/null ||
		die "cannot reserve $nr_huge hugepages"
	cur=$(awk '/HugePages_Total/ {print $2}' /proc/meminfo)
	[ "$cur" -ge "$nr_huge" ] || say "warning: only $cur of $nr_huge hugepages reserved"
fi
if ! grep -qs ' /dev/hugepages hugetlbfs ' /proc/mounts; then
	$sudo mkdir -p /dev/hugepages
	$sudo mount -t hugetlbfs nodev /dev/hugepages || die "cannot mount hugetlbfs"
fi

# 4. Build.
[ "$do_build" = 1 ] || exit 0
if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" -Ddpdk_sdk="$sdk" >/dev/null || {
		meson setup "$build" -Ddpdk_sdk="$sdk"; die "meson setup failed"; }
fi
ninja -C "$build" >/dev/null || { ninja -C "$build"; die "build failed"; }
say "built in $build"
