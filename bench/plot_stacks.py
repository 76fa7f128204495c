#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Plot goodput against server stacks from devtcp-bench --stacks JSON.

usage: plot_stacks.py BENCH.json OUT.png [--title TEXT]

One line per TCP mode (split, copy): goodput (Gb/s) at each server-stack
count, with the ideal linear scaling from the smallest count as a dashed
line. Draws with matplotlib when python3 has it, else with gnuplot (both
are Debian packages: python3-matplotlib, gnuplot-nox); exits 1 with a
message when it has neither, or when the JSON has no TCP run with stacks.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile


def series(doc):
    """{mode: [(stacks, goodput_gbps), ...]} over the TCP runs."""
    out = {}
    for r in doc.get("runs", []):
        if not r.get("tcp") or not r.get("server_stacks"):
            continue
        out.setdefault(r["mode"], []).append((r["server_stacks"],
                                              r["goodput_gbps"]))
    for m in out:
        out[m].sort()
    return out


def title_of(doc, title):
    if title:
        return title
    return "devtcp-bench: goodput against server stacks (MTU %s, %s, %s)" % (
        doc.get("mtu", "?"), doc.get("gpu", "?"), doc.get("copy_engine", "?"))


def plot_matplotlib(s, png, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=100)
    for mode, pts in sorted(s.items()):
        xs = [p[0] for p in pts]
        ys = [p[1] for p in pts]
        line, = ax.plot(xs, ys, marker="o", label=mode)
        if ys[0] > 0:
            ax.plot(xs, [ys[0] * x / xs[0] for x in xs], linestyle="--",
                    color=line.get_color(), alpha=0.4,
                    label="%s, linear from %d" % (mode, xs[0]))
    ax.set_xlabel("server stacks (one lcore and queue pair each)")
    ax.set_ylabel("goodput (Gb/s)")
    ax.set_title(title, fontsize=9)
    ax.set_xticks(sorted({p[0] for pts in s.values() for p in pts}))
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png)


def plot_gnuplot(s, png, title):
    tmp = tempfile.mkdtemp(prefix="plot_stacks")
    try:
        cmds = ["set terminal pngcairo size 700,450" if gnuplot_has("pngcairo")
                else "set terminal png size 700,450",
                "set output '%s'" % png.replace("'", ""),
                "set title '%s'" % title.replace("'", ""),
                "set xlabel 'server stacks (one lcore and queue pair each)'",
                "set ylabel 'goodput (Gb/s)'", "set yrange [0:*]", "set grid",
                "set key left top", "set termoption noenhanced",
                "set xtics 1", "set mxtics 1"]
        plots = []
        for i, (mode, pts) in enumerate(sorted(s.items())):
            f = os.path.join(tmp, mode + ".dat")
            with open(f, "w") as fh:
                for x, y in pts:
                    fh.write("%d %f %f\n" % (x, y, pts[0][1] * x / pts[0][0]))
            plots.append("'%s' using 1:2 with linespoints lc %d pt 7 title '%s'"
                         % (f, i + 1, mode))
            plots.append("'%s' using 1:3 with lines lc %d dashtype 2 "
                         "title '%s, linear from %d'" % (f, i + 1, mode, pts[0][0]))
        cmds.append("plot " + ", ".join(plots))
        p = subprocess.run(["gnuplot"], input="\n".join(cmds) + "\n", text=True,
                           capture_output=True)
        if p.returncode != 0:
            raise RuntimeError("gnuplot: " + p.stderr.strip())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def gnuplot_has(term):
    p = subprocess.run(["gnuplot", "-e", "set terminal"], capture_output=True,
                       text=True)
    return term in (p.stdout + p.stderr)


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    title = None
    if "--title" in argv:
        title = argv[argv.index("--title") + 1]
        args.remove(title)
    if len(args) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    src, png = args
    try:
        with open(src) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print("plot_stacks: cannot read %s: %s" % (src, e), file=sys.stderr)
        return 1
    s = series(doc)
    if not s:
        print("plot_stacks: %s has no TCP run with server_stacks "
              "(devtcp-bench --stacks)" % src, file=sys.stderr)
        return 1
    t = title_of(doc, title)
    try:
        import matplotlib  # noqa: F401
        plot_matplotlib(s, png, t)
        how = "matplotlib"
    except ImportError:
        if shutil.which("gnuplot") is None:
            print("plot_stacks: neither matplotlib (python3-matplotlib) nor "
                  "gnuplot (gnuplot-nox) is installed", file=sys.stderr)
            return 1
        try:
            plot_gnuplot(s, png, t)
        except RuntimeError as e:
            print("plot_stacks: %s" % e, file=sys.stderr)
            return 1
        how = "gnuplot"
    if not os.path.exists(png) or os.path.getsize(png) == 0:
        print("plot_stacks: %s not written" % png, file=sys.stderr)
        return 1
    print("plot_stacks: %s (%s, %d modes)" % (png, how, len(s)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
