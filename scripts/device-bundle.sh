#!/usr/bin/env bash
# Gather devtcp's programs, tests and plugins, and every shared library they
# need (the ldd closure: DPDK libraries, the PMDs EAL must load, libnuma and
# friends), into one folder that runs on a machine without DPDK — the GPU
# machine. glibc itself is left out: the target's own (same or newer) is used.
#
# usage: scripts/device-bundle.sh [DEST]   (default: .bundle, git-ignored)
# On the target:  DEST/run.sh PROGRAM [args]   e.g.
#   .bundle/run.sh devtcp-bench -l 0-1 --in-memory --no-pci \
#       --vdev=net_hsplit0,wire=w --vdev=net_hsplit1,wire=w --vdev=gpu_cuda0 \
#       -- --compare --verify
# (run.sh adds -d DEST/pmds; docs/gpu.md has the GPU runs.)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${DEVTCP_BUILD:-build}
dest=${1:-.bundle}

scripts/setup.sh
rm -rf "$dest"
mkdir -p "$dest/bin" "$dest/lib" "$dest/pmds" "$dest/plugins"

# Programs: ours (apps and test executables) and stock DPDK tools we run.
progs=$(find "$build/app" "$build/test" -maxdepth 3 -type f -executable \
	! -name '*.so*' ! -name '*.p' ! -name '*.py' ! -name '*.sh' | sort)
for p in $progs /usr/bin/dpdk-test-gpudev /usr/bin/dpdk-testpmd; do
	cp "$p" "$dest/bin/"
done
# iproute2 (ip, ss), ethtool, nft (loss rules) and socat (a Linux receiver)
# for the scripts that build veth test hosts
# (bench/server-vs-bounce.sh, devtcp-linuxcmp): the GPU machine's image has none.
for p in ip ethtool ss nft socat; do
	q=$(command -v "$p" || true)
	[ -z "$q" ] || cp -L "$q" "$dest/bin/"
done
cp test/e2e/*.py test/*/*.sh "$dest/bin/" 2>/dev/null || true
# DPDK's own PMDs against a Linux peer (bench/matrices/h200-pmds.txt): the
# script, and the PMDs it loads with -d from a folder of their own (not
# pmds/, which run.sh hands every program).
cp test/pmds/check_pmds.py "$dest/bin/"
mkdir -p "$dest/dpdk-pmds"
# What the check scripts share (they find it next to them in a bundle).
cp test/common/dtcheck.py "$dest/bin/"
# The test hosts bench/cps-veth.sh and bench/server-vs-bounce.sh build.
cp scripts/netns.sh "$dest/bin/"
# The benchmark scripts (server-vs-bounce.sh, plot_stacks.py): they find the
# programs next to them.
cp bench/*.sh bench/*.py "$dest/bin/"
# The NCCL benchmark (bench/nccl/h200-nccl.sh runs nccl_bench.py).
cp bench/nccl/*.sh bench/nccl/*.py "$dest/bin/"
# Our plugins, for stock tools only (our programs link the drivers in).
find "$build/drivers" -name 'librte_*.so' -exec cp {} "$dest/plugins/" \;
# The NCCL net plugin (NCCL_NET_PLUGIN=DEST/plugins/libnccl-net-devtcp.so);
# its RPATH ($ORIGIN/../lib) finds the bundled libraries.
[ -f "$build/plugins/nccl/libnccl-net-devtcp.so" ] ||
	{ echo "device-bundle: $build/plugins/nccl/libnccl-net-devtcp.so not built" >&2; exit 1; }
cp "$build/plugins/nccl/libnccl-net-devtcp.so" "$dest/plugins/"
# DPDK's own drivers that EAL needs at run time (no PCI on that machine's
# DPDK-less image: the mempool handler and the vdev bus are enough).
pmddir=$(ls -d "$(pkg-config --variable=libdir libdpdk)"/dpdk/pmds-* | head -n 1)
[ -d "$pmddir" ] || { echo "device-bundle: DPDK's PMD folder not found" >&2; exit 1; }
# Only the mempool handler: the vdev bus comes in through lib/ as a
# dependency of our programs, and a second copy loaded from pmds/ would
# register a second vdev bus that --vdev devices never reach.
cp -L "$pmddir/librte_mempool_ring.so.23" "$dest/pmds/librte_mempool_ring.so"
for d in af_packet af_xdp tap; do
	cp -L "$pmddir/librte_net_$d.so.23" "$dest/dpdk-pmds/librte_net_$d.so"
done
# af_xdp's libxdp loads its default XSK program from a BPF object file at
# run time (xsk_def_xdp_prog*.o, and xdp-dispatcher.o to attach it), not a
# library ldd can see: without them the GPU machine's runs failed "Couldn't
# find a BPF file"; run.sh points LIBXDP_OBJECT_PATH here.
mkdir -p "$dest/bpf"
cp -L /usr/lib/x86_64-linux-gnu/bpf/xsk_def_xdp_prog*.o \
	/usr/lib/x86_64-linux-gnu/bpf/xdp-dispatcher.o "$dest/bpf/" 2>/dev/null ||
	echo "device-bundle: libxdp's BPF objects not found: af_xdp will not start on the target" >&2


# libdevtcp and the devtcp Python package (bench/ingest_peer.py, the
# ingest clients): ctypes loads the library from lib/ (DEVTCP_LIB).
cp -L "$build/lib/libdevtcp.so" "$dest/lib/libdevtcp.so"
cp -L "$build/lib/client/libdevtcp_client.so" "$dest/lib/libdevtcp_client.so"
mkdir -p "$dest/python"
cp -r python/devtcp "$dest/python/"
find "$dest/python" -name '__pycache__' -prune -exec rm -rf {} +

# The ldd closure, without the C library that the target provides.
skip='^(linux-vdso|ld-linux|libc\.so|libm\.so|libpthread|libdl\.so|librt\.so|libresolv|libcuda\.so)'
for f in "$dest"/bin/* "$dest"/pmds/*.so "$dest"/dpdk-pmds/*.so "$dest"/plugins/*.so \
		"$dest"/lib/libdevtcp.so; do
	file -b "$f" | grep -q ELF || continue
	ldd "$f" 2>/dev/null | awk '/=> \// {print $1, $3}'
done | sort -u | while read -r name path; do
	echo "$name" | grep -Eq "$skip" && continue
	cp -Ln "$path" "$dest/lib/$name" 2>/dev/null || true
done

# What the bundle was built from (bench/device-run.sh saves it with results).
{ git describe --always --dirty 2>/dev/null || echo "no git"; date -u +%FT%TZ; } \
	> "$dest/COMMIT"
cat > "$dest/run.sh" <<'RUN'
#!/usr/bin/env bash
# Run a bundled program with the bundled libraries; sets up hugepages once.
# EAL finds DPDK's drivers through the -d added here (the target has no
# DPDK install); plugins of ours are in plugins/ (LD_LIBRARY_PATH) for -d NAME.
here=$(cd "$(dirname "$0")" && pwd)
if [ "$(awk '/HugePages_Total/ {print $2}' /proc/meminfo)" -lt 512 ]; then
	echo 512 > /proc/sys/vm/nr_hugepages 2>/dev/null || true
fi
grep -qs ' /dev/hugepages hugetlbfs ' /proc/mounts ||
	{ mkdir -p /dev/hugepages; mount -t hugetlbfs nodev /dev/hugepages; }
export LD_LIBRARY_PATH="$here/lib:$here/plugins${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LIBXDP_OBJECT_PATH="$here/bpf"
prog=$1; shift
case "$prog" in
*.py|*.sh)
	# Scripts start bundled programs themselves: hand them the -d too
	# (test/e2e/check_bench.py reads DEVTCP_EAL_ARGS).
	export DEVTCP_EAL_ARGS="-d $here/pmds${DEVTCP_EAL_ARGS:+ $DEVTCP_EAL_ARGS}"
	exec "$here/bin/$prog" "$@" ;;
esac
exec "$here/bin/$prog" -d "$here/pmds" "$@"
RUN
chmod +x "$dest/run.sh"
du -sh "$dest"
