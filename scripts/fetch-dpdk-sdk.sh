#!/usr/bin/env bash
# Fetch the DPDK driver-SDK headers that Debian's libdpdk-dev does not install,
# from Debian's source package of exactly the installed DPDK version.
# The deb-src entry is derived from the machine's own apt sources and used
# through a private apt configuration: the system's apt setup is not touched.
#
# usage: scripts/fetch-dpdk-sdk.sh DESTDIR
set -euo pipefail

dest=${1:?usage: fetch-dpdk-sdk.sh DESTDIR}
headers="lib/ethdev/ethdev_driver.h lib/ethdev/ethdev_vdev.h
drivers/bus/vdev/bus_vdev_driver.h lib/eal/include/dev_driver.h
lib/gpudev/gpudev_driver.h lib/dmadev/rte_dmadev_pmd.h"

ver=$(dpkg-query -W -f='${Version}' libdpdk-dev)
stamp="$dest/.version"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$ver" ]; then
	exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/archives/partial" "$work/sources.list.d"

# Derive deb-src entries from every enabled deb822 and one-line source.
for f in /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	sed -e 's/^Types:.*/Types: deb-src/' "$f" > "$work/sources.list.d/$(basename "$f")"
done
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
	[ -f "$f" ] || continue
	sed -n -e 's/^deb \(.*\)/deb-src \1/p' "$f" >> "$work/sources.list.d/derived.list"
done

aptopt=(-o "Dir::Etc::SourceList=/dev/null"
	-o "Dir::Etc::SourceParts=$work/sources.list.d"
	-o "Dir::State::Lists=$work/lists"
	-o "Dir::Cache::Archives=$work/archives"
	-o "APT::Sandbox::User=root"
	-o "Acquire::Retries=3")
apt-get "${aptopt[@]}" -q update >"$work/update.log" 2>&1 || {
	cat "$work/update.log" >&2
	echo "fetch-dpdk-sdk: apt-get update of the derived deb-src entries failed" >&2
	exit 1
}
(cd "$work" && apt-get "${aptopt[@]}" -q source --download-only "dpdk=$ver") \
	>"$work/source.log" 2>&1 || {
	cat "$work/source.log" >&2
	echo "fetch-dpdk-sdk: cannot download Debian's dpdk source $ver" >&2
	exit 1
}
orig=$(ls "$work"/dpdk_*.orig.tar.* | head -n 1)
mkdir -p "$work/src"
tar -xf "$orig" -C "$work/src" --strip-components=1 --wildcards \
	$(for h in $headers; do printf '*/%s ' "$h"; done)
mkdir -p "$dest"
for h in $headers; do
	install -m 0644 "$work/src/$h" "$dest/$(basename "$h")"
done
echo "$ver" > "$stamp"
echo "fetch-dpdk-sdk: DPDK $ver driver-SDK headers in $dest"
