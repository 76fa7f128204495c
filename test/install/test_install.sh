#!/usr/bin/env bash
# libdevtcp as a user gets it: `meson install` into a scratch root, then the
# examples/receiver program built against that tree through pkg-config alone
# (as DPDK's examples are), linked to the installed shared library, loading
# the installed NIC and GPU plugins with -d, and receiving a stream from a
# Linux peer over veth. Exit 77 where namespaces or veth are missing.
#
# usage: test_install.sh SRCDIR BUILDDIR NETNS_SH VERSION
set -euo pipefail
src=$1 build=$2 netns_sh=$3 version=$4
tmp=$(mktemp -d /tmp/dtinstall.XXXXXX)
ns=dtin$(($$ % 100000))
rx=""
fail() { echo "FAIL: $*"; exit 1; }
cleanup() {
	[ -z "$rx" ] || kill "$rx" 2>/dev/null || true
	"$netns_sh" down "$ns" >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT

meson install -C "$build" --destdir "$tmp/root" --no-rebuild --quiet
pcfile=$(find "$tmp/root" -name libdevtcp.pc)
[ -n "$pcfile" ] || fail "meson install wrote no libdevtcp.pc"
export PKG_CONFIG_PATH=$(dirname "$pcfile")
pc="pkg-config"
got=$($pc --modversion libdevtcp) || fail "pkg-config cannot read libdevtcp.pc"
[ "$got" = "$version" ] || fail "libdevtcp.pc version '$got', project '$version'"
libdir=$($pc --variable=libdir libdevtcp)
pmddir=$($pc --variable=pmddir libdevtcp)
incdir=$($pc --variable=includedir libdevtcp)
for f in "$libdir/libdevtcp.so" "$libdir/libdevtcp.a" \
		"$pmddir/librte_net_hsplit.so" "$pmddir/librte_gpu_sim.so" \
		"$incdir/devtcp/devtcp.h" "$incdir/devtcp/dt_dp.h"; do
	[ -e "$f" ] || fail "not installed: ${f#$tmp/root}"
done
echo "ok   installed: libdevtcp $got, headers, static and shared library, plugins"

cp -r "$src/examples/receiver" "$tmp/ex"
make -s -C "$tmp/ex" PKGCONF="$pc" >"$tmp/make.log" 2>&1 ||
	{ cat "$tmp/make.log"; fail "examples/receiver does not build against the installed tree"; }
# No LD_LIBRARY_PATH: the Makefile records pkg-config's libdir (an rpath),
# so the example finds the library where it was installed, as ldd shows.
# ldd's output is taken whole before grep reads it: `ldd | grep -q` under
# pipefail failed when grep exited at its match and ldd, still writing,
# died of SIGPIPE (seen on a loaded machine).
deps=$(env -u LD_LIBRARY_PATH ldd "$tmp/ex/devtcp-receiver") ||
	fail "ldd cannot read examples/receiver"
grep -q "libdevtcp.so.0 => $libdir/" <<<"$deps" ||
	{ echo "$deps"; fail "examples/receiver does not find the installed libdevtcp.so without LD_LIBRARY_PATH"; }
echo "ok   examples/receiver built with pkg-config, linked to the installed libdevtcp.so"

"$netns_sh" check >/dev/null 2>&1 || { echo "SKIP: no network namespaces / veth"; exit 77; }
"$netns_sh" up "$ns" --addr 10.79.0.2/24 --mtu 1500 >/dev/null
head -c $((4 << 20)) /dev/urandom >"$tmp/data"
# EAL refuses -d paths under a world-writable folder (/tmp): the plugins
# are loaded by soname from LD_LIBRARY_PATH, from a cwd that is not.
(cd / && LD_LIBRARY_PATH=$libdir:$pmddir exec "$tmp/ex/devtcp-receiver" -l 1 \
	--in-memory --no-pci -d librte_net_hsplit.so -d librte_gpu_sim.so \
	--log-level=lib.eal:warning \
	--vdev=net_hsplit_in,iface="$ns" --vdev=gpu_sim_in,size=64M -- \
	--ip 10.79.0.1 --listen 5001 --conns 1) >"$tmp/rx.log" 2>&1 &
rx=$!
ok=""
for _ in $(seq 1 100); do
	ip netns exec "$ns" socat -u "OPEN:$tmp/data" TCP:10.79.0.1:5001,connect-timeout=1 \
		2>/dev/null && { ok=1; break; }
	kill -0 "$rx" 2>/dev/null || break
	sleep 0.2
done
[ -n "$ok" ] || { cat "$tmp/rx.log"; fail "socat could not send to the receiver"; }
rc=0
for _ in $(seq 1 100); do kill -0 "$rx" 2>/dev/null || break; sleep 0.1; done
wait "$rx" || rc=$?
rx=""
cat "$tmp/rx.log"
[ "$rc" -eq 0 ] || fail "devtcp-receiver exited $rc"
grep -q "^libdevtcp $version (headers $version)" "$tmp/rx.log" ||
	fail "the receiver did not report the library's version"
grep -q "^received 4194304 bytes in 1 streams (device [1-9]" "$tmp/rx.log" ||
	fail "the receiver did not get the 4 MiB stream into device memory"
echo "ok   4 MiB from a Linux peer received into device memory by the installed library"
