#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Plot devtcp-bench JSON (docs/bench-json.md): --plot runs it over the results.

usage: plot_stacks.py BENCH.json OUT.png [--title TEXT]

With --stacks (the JSON's "stacks" list is not empty): one line per TCP mode
(split, copy), goodput (Gb/s) at each server-stack count, with the ideal
linear scaling from the smallest count as a dashed line.
Without: goodput per run as bars (the line rate, where the run had one, as
a dashed line) above each run's per-second goodput samples against time.
Draws with matplotlib when python3 has it, else with gnuplot (both are
Debian packages: python3-matplotlib, gnuplot-nox); exits 1 with a message
when it has neither, or when the JSON has no run to draw.
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


def runs_of(doc):
    """[(label, goodput_gbps, line_rate_gbps, [(t, goodput_gbps), ...])]."""
    out = []
    for r in doc.get("runs", []):
        label = r["mode"]
        if r.get("server_stacks") and doc.get("stacks"):
            label += " (%d stacks)" % r["server_stacks"]
        out.append((label, r["goodput_gbps"], r.get("line_rate_gbps", 0),
                    [(s["t"], s["goodput_gbps"]) for s in r.get("samples", [])]))
    return out


def runs_title(doc, title):
    if title:
        return title
    return "devtcp-bench %s: goodput per mode (MTU %s, %s, %s)" % (
        doc.get("version", "?"), doc.get("mtu", "?"), doc.get("gpu", "?"),
        doc.get("copy_engine", "?"))


def plot_runs_matplotlib(runs, png, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    timed = any(r[3] for r in runs)
    fig, axes = plt.subplots(2 if timed else 1, 1,
                             figsize=(7, 7 if timed else 4.5), dpi=100,
                             squeeze=False)
    ax = axes[0][0]
    xs = list(range(len(runs)))
    ax.bar(xs, [r[1] for r in runs], color="tab:blue", alpha=0.8)
    for x, r in zip(xs, runs):
        ax.annotate("%.2f" % r[1], (x, r[1]), ha="center", va="bottom",
                    fontsize=8)
        if r[2] > 0:
            ax.hlines(r[2], x - 0.4, x + 0.4, colors="gray", linestyles="--")
    ax.set_xticks(xs)
    ax.set_xticklabels([r[0] for r in runs], fontsize=8)
    ax.set_ylabel("goodput (Gb/s)")
    ax.set_title(title, fontsize=9)
    ax.set_ylim(0, 1.15 * max([r[1] for r in runs] + [r[2] for r in runs] +
                              [1e-3]))
    ax.grid(True, axis="y", alpha=0.3)
    if not timed:
        fig.tight_layout()
        fig.savefig(png)
        return
    ts = axes[1][0]
    for r in runs:
        if r[3]:
            ts.plot([p[0] for p in r[3]], [p[1] for p in r[3]], marker=".",
                    label=r[0])
    ts.set_xlabel("seconds from the start of the run")
    ts.set_ylabel("goodput per second (Gb/s)")
    ts.set_ylim(bottom=0)
    ts.grid(True, alpha=0.3)
    ts.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png)


def plot_runs_gnuplot(runs, png, title):
    tmp = tempfile.mkdtemp(prefix="plot_bench")
    try:
        bars = os.path.join(tmp, "bars.dat")
        with open(bars, "w") as fh:
            for i, r in enumerate(runs):
                fh.write('%d "%s" %f %f\n' % (i, r[0].replace('"', ""), r[1],
                                              r[2] if r[2] > 0 else float("nan")))
        timed = any(r[3] for r in runs)
        top = 1.15 * max([r[1] for r in runs] + [r[2] for r in runs] + [1e-3])
        size = "700,700" if timed else "700,450"
        cmds = ["set terminal pngcairo size " + size if gnuplot_has("pngcairo")
                else "set terminal png size " + size,
                "set output '%s'" % png.replace("'", ""),
                "set termoption noenhanced",
                "set multiplot layout 2,1" if timed else "",
                "set title '%s'" % title.replace("'", ""),
                "set ylabel 'goodput (Gb/s)'", "set yrange [0:%f]" % top,
                "set grid ytics", "set style fill solid 0.6", "set boxwidth 0.6",
                "set xrange [-0.5:%f]" % (len(runs) - 0.5), "set key off",
                "plot '%s' using 1:3:xtic(2) with boxes lc 1, "
                "'' using 1:3:(sprintf('%%.2f', $3)) with labels offset 0,0.7, "
                "'' using 1:4 with points pt 6 lc 8" % bars]
        if timed:
            cmds += [
                "unset title", "set yrange [0:*]", "set xtics auto", "set xrange [*:*]",
                "set xlabel 'seconds from the start of the run'",
                "set ylabel 'goodput per second (Gb/s)'", "set key left top"]
        plots = []
        for i, r in enumerate(runs):
            if not r[3]:
                continue
            f = os.path.join(tmp, "run%d.dat" % i)
            with open(f, "w") as fh:
                for t, g in r[3]:
                    fh.write("%f %f\n" % (t, g))
            plots.append("'%s' using 1:2 with linespoints pt 7 ps 0.5 lc %d "
                         "title '%s'" % (f, i + 1, r[0].replace("'", "")))
        if timed:
            cmds += ["plot " + ", ".join(plots), "unset multiplot"]
        p = subprocess.run(["gnuplot"], input="\n".join(cmds) + "\n", text=True,
                           capture_output=True)
        if p.returncode != 0:
            raise RuntimeError("gnuplot: " + p.stderr.strip())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


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
    s = series(doc) if doc.get("stacks") else {}
    runs = runs_of(doc)
    if doc.get("stacks") and not s:
        print("plot_stacks: %s has no TCP run with server_stacks "
              "(devtcp-bench --stacks)" % src, file=sys.stderr)
        return 1
    if not runs:
        print("plot_stacks: %s has no run to draw" % src, file=sys.stderr)
        return 1
    if s:
        draw = (plot_matplotlib, plot_gnuplot, s, title_of(doc, title),
                "%d modes against stacks" % len(s))
    else:
        draw = (plot_runs_matplotlib, plot_runs_gnuplot, runs,
                runs_title(doc, title), "%d runs" % len(runs))
    try:
        import matplotlib  # noqa: F401
        draw[0](draw[2], png, draw[3])
        how = "matplotlib"
    except ImportError:
        if shutil.which("gnuplot") is None:
            print("plot_stacks: neither matplotlib (python3-matplotlib) nor "
                  "gnuplot (gnuplot-nox) is installed", file=sys.stderr)
            return 1
        try:
            draw[1](draw[2], png, draw[3])
        except RuntimeError as e:
            print("plot_stacks: %s" % e, file=sys.stderr)
            return 1
        how = "gnuplot"
    if not os.path.exists(png) or os.path.getsize(png) == 0:
        print("plot_stacks: %s not written" % png, file=sys.stderr)
        return 1
    print("plot_stacks: %s (%s, %s)" % (png, how, draw[4]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
