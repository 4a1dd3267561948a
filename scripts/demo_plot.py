#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Plots of a make demo data directory (gnuplot; PNG and SVG).

    scripts/demo_plot.py DIR [--out PLOTDIR] [TAG...]

DIR is what selftests/vm/demo.sh wrote (build/demo/<stamp>/): one directory
per run (TAG: idle, plain, ect, mlx5-time, bpf-mlx5-time, paper-time) made by
lib/incast.sh with INCAST_ROCECCD set. Per run, from
  flows.ndjson  roceccd's /flows.json every 250 ms ({"t_ms", "flows"})
  backlog       the bottleneck sampler ("MS_SINCE_START BACKLOG_BYTES QLEN")
  metrics       roceccd's /metrics after the run (histogram buckets)
  cH.json       rocegen's report of sender H (its QPN names the flow)
it draws into PLOTDIR (default DIR/plots):
  TAG-rate      per-flow sending rate over time (tx_bytes deltas between
                samples; IP header to ICRC) and the CNPs each sender received
                (rx_cnp deltas, impulses on the right axis)
  TAG-queue     bottleneck queue over time, with RED's Kmin and Kmax
  TAG-cdf       message completion CDF per flow (on the wire, roceccd's
                cumulative buckets)
  runs-rate, runs-queue, runs-cdf
                the runs side by side, one panel each, same axes (two rows
                from four runs on)
each as .png (pngcairo) and .svg, plus the gnuplot scripts and data files
under PLOTDIR/gnuplot/ (re-run: cd PLOTDIR/gnuplot && gnuplot NAME.gp).
Times count from the backlog sampler's start (the two share a clock).
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]


# ---- reading a run ---------------------------------------------------------

def read_run(d):
    """The figures of one run directory as plain series (lists of tuples)."""
    run = open(os.path.join(d, "run")).read().split()
    mode, n = run[0], int(run[1])
    peer = f"10.0.0.{n + 1}"
    lqpn, label = {}, {}
    files = [(h, f"c{h}.json", f"host{h}") for h in range(1, n + 1)]
    if os.path.exists(os.path.join(d, "victim.json")):
        files.append((n + 2, "victim.json", "victim"))
    for h, name, lab in files:
        label[h] = lab
        try:
            c = json.load(open(os.path.join(d, name)))
            q = c["qps"][0] if "qps" in c else c["flows"][0]
            lqpn[h] = q["local_qpn"]
        except (OSError, ValueError, KeyError, IndexError):
            lqpn[h] = None
    r = {"tag": os.path.basename(os.path.normpath(d)), "mode": mode, "n": n,
         "hosts": [h for h, _, _ in files], "label": label,
         "lqpn": lqpn, "rate": {}, "cnp": {}, "cdf": {}, "queue": []}
    samples = []
    p = os.path.join(d, "flows.ndjson")
    if os.path.exists(p):
        for line in open(p):
            try:
                samples.append(json.loads(line))
            except ValueError:
                pass	# a line cut short when the sampler was stopped
    metrics = ""
    p = os.path.join(d, "metrics")
    if os.path.exists(p):
        metrics = open(p).read()
    for h in r["hosts"]:
        key = {"netdev": f"veth{h}", "lqpn": lqpn[h], "peer": peer}
        pts = [(s["t_ms"] / 1e3, find_flow(s["flows"], **key)) for s in samples]
        pts = [(t, f["counters"]) for t, f in pts if f]
        r["rate"][h], r["cnp"][h] = rate_series(pts)
        r["cdf"][h] = cdf_series(metrics, key)
    p = os.path.join(d, "backlog")
    if os.path.exists(p):
        for line in open(p):
            v = line.split()
            if len(v) >= 2:
                r["queue"].append((int(v[0]) / 1e3, int(v[1]) / 1e3))
    return r


def find_flow(flows, netdev, lqpn, peer):
    """roceccd's flow of a sender: its netdev and QPN, to the receiver."""
    c = [f for f in flows if f.get("netdev") == netdev and f.get("lqpn") == lqpn]
    p = [f for f in c if f.get("peer") == peer]
    return (p or c or [None])[0]


def rate_series(pts):
    """[(t_s, counters)] -> ([(t_s, Mbit/s)], [(t_s, CNPs)]): the rate over
    each interval between two samples (at its end), from the tx_bytes
    delta, and the rx_cnp delta of the same interval where it is not 0
    (the CNPs counted before the flow's first sample at that sample)."""
    rate, cnp = [], []
    if pts and pts[0][1].get("rx_cnp", 0) > 0:	# before the flow's first sample
        cnp.append((pts[0][0], pts[0][1]["rx_cnp"]))
    for (t0, c0), (t1, c1) in zip(pts, pts[1:]):
        if t1 <= t0:
            continue
        rate.append((t1, (c1.get("tx_bytes", 0) - c0.get("tx_bytes", 0))
                     * 8 / 1e6 / (t1 - t0)))
        k = c1.get("rx_cnp", 0) - c0.get("rx_cnp", 0)
        if k > 0:
            cnp.append((t1, k))
    return rate, cnp


LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


def cdf_series(metrics, key, name="rocecc_flow_message_completion_seconds"):
    """The CDF [(ms, fraction)] of one flow's cumulative histogram buckets in
    a /metrics text: from the last empty bucket to the first full one."""
    want = {k: str(v) for k, v in key.items()}
    b = {}
    for line in metrics.splitlines():
        if not line.startswith(name + "_bucket{"):
            continue
        lab, _, val = line[len(name) + 8:].rpartition("} ")
        lab = dict(LABEL.findall(lab))
        if any(lab.get(k) != v for k, v in want.items() if k in lab):
            continue
        if lab.get("netdev") != want["netdev"] or lab.get("lqpn") != want["lqpn"]:
            continue
        le = math.inf if lab.get("le") == "+Inf" else float(lab["le"])
        b[le] = b.get(le, 0) + float(val)
    total = b.get(math.inf, max(b.values(), default=0))
    if total <= 0:
        return []
    out = []
    for le in sorted(k for k in b if k != math.inf):
        y = min(1.0, b[le] / total)
        if out and out[-1][1] >= 1.0:
            break
        if y == 0:
            out = [(le * 1e3, 0.0)]	# only the last empty bucket
            continue
        out.append((le * 1e3, y))
    if out and out[-1][1] < 1.0:	# the rest is in +Inf only
        out.append((out[-1][0], 1.0))
    return out


# ---- gnuplot -----------------------------------------------------------------

class Plot:
    """Writes data files and one gnuplot script per figure into gpdir."""

    def __init__(self, gpdir):
        self.gpdir = gpdir
        os.makedirs(gpdir, exist_ok=True)

    def data(self, name, pts):
        with open(os.path.join(self.gpdir, name), "w") as f:
            for p in pts:
                f.write(" ".join(f"{v:.6g}" for v in p) + "\n")
        return name

    def figure(self, name, panels, layout=None, size=(900, 500)):
        """panels: lists of gnuplot lines (settings and one plot command).
        Writes NAME.gp and runs it: ../NAME.png and ../NAME.svg."""
        w, h = size
        gp = [f"# {name}: made by scripts/demo_plot.py"]
        for term, ext in ((f"pngcairo size {w},{h} font ',9'", "png"),
                          (f"svg size {w},{h} dynamic font 'sans,9'", "svg")):
            gp += [f"set terminal {term}", f"set output '../{name}.{ext}'"]
            if layout:
                gp.append(f"set multiplot layout {layout[0]},{layout[1]}")
            for p in panels:
                gp += ["reset", "set grid", "set key top right"] + p
            if layout:
                gp.append("unset multiplot")
            gp.append("unset output")
        with open(os.path.join(self.gpdir, name + ".gp"), "w") as f:
            f.write("\n".join(gp) + "\n")
        subprocess.run(["gnuplot", name + ".gp"], cwd=self.gpdir, check=True)
        return [f"{name}.png", f"{name}.svg"]


def plot_or_empty(series):
    """A plot command of the non-empty series, or an empty frame."""
    if series:
        return ["plot " + ", \\\n     ".join(series)]
    return ["set label 1 'no data' at graph 0.5, 0.5 center", "plot 1e30 notitle"]


def panel_rate(P, r, xmax, ymax, cmax):
    s, tag = [], r["tag"]
    for h in r["hosts"]:
        c, lab = COLORS[(h - 1) % len(COLORS)], r["label"][h]
        if r["rate"][h]:
            s.append(f"'{P.data(f'{tag}.rate{h}.dat', r['rate'][h])}' using 1:2 "
                     f"with lines lw 1.5 lc rgb '{c}' title '{lab}'")
        if r["cnp"][h]:
            s.append(f"'{P.data(f'{tag}.cnp{h}.dat', r['cnp'][h])}' using 1:2 "
                     f"axes x1y2 with impulses lw 2 lc rgb '{c}' "
                     f"title '{lab} CNPs'")
    return [f"set title '{tag}: per-flow rate, CNPs received'",
            "set xlabel 'time (s)'", "set ylabel 'rate (Mbit/s, IP bytes)'",
            f"set xrange [0:{xmax:g}]", f"set yrange [0:{ymax:g}]",
            "set y2label 'CNPs per sample'", f"set y2range [0:{cmax:g}]",
            "set y2tics", "set ytics nomirror"] + plot_or_empty(s)


def panel_queue(P, r, xmax, ymax, kmin, kmax):
    s, tag = [], r["tag"]
    if r["queue"]:
        s.append(f"'{P.data(f'{tag}.queue.dat', r['queue'])}' using 1:2 "
                 f"with lines lw 1 lc rgb '{COLORS[0]}' title 'backlog'")
    s += [f"{kmin / 1e3:g} with lines dt 2 lc rgb 'gray' title 'Kmin'",
          f"{kmax / 1e3:g} with lines dt 4 lc rgb 'gray' title 'Kmax'"]
    return [f"set title '{tag}: bottleneck queue'", "set xlabel 'time (s)'",
            "set ylabel 'backlog (KB)'", f"set xrange [0:{xmax:g}]",
            f"set yrange [0:{ymax:g}]"] + plot_or_empty(s if r["queue"] else [])


def panel_cdf(P, r, xmin, xmax):
    s, tag = [], r["tag"]
    for h in r["hosts"]:
        if r["cdf"][h]:
            s.append(f"'{P.data(f'{tag}.cdf{h}.dat', r['cdf'][h])}' using 1:2 "
                     f"with steps lw {3 if h > r['n'] else 1.5} "
                     f"lc rgb '{COLORS[(h - 1) % len(COLORS)]}' "
                     f"title '{r['label'][h]}'")
    return [f"set title '{tag}: message completion on the wire (roceccd)'",
            "set xlabel 'message completion (ms)'", "set ylabel 'CDF'",
            "set logscale x", f"set xrange [{xmin:g}:{xmax:g}]",
            "set yrange [0:1.02]", "set key bottom right"] + plot_or_empty(s)


def nice(v):
    """A round upper bound of v (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 x 10^k)."""
    if v <= 0:
        return 1
    e = 10 ** math.floor(math.log10(v))
    return next(m * e for m in (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10) if m * e >= v)


def plot_all(d, out, tags):
    runs = [read_run(os.path.join(d, t)) for t in tags]
    kmin, kmax = 20000, 80000
    try:
        b = open(os.path.join(d, "bottleneck")).read().split()
        kmin, kmax = float(b[1]), float(b[2])
    except (OSError, IndexError, ValueError):
        pass
    P = Plot(os.path.join(out, "gnuplot"))
    # shared axes: the same ranges in the per-run and the side-by-side figures
    xmax = 5 * math.ceil(max([t for r in runs for s in r["rate"].values() for t, _ in s] +
                    [t for r in runs for t, _ in r["queue"]] + [1]) / 5)
    rmax = nice(1.1 * max([v for r in runs for s in r["rate"].values() for _, v in s] + [1]))
    cmax = nice(max([v for r in runs for s in r["cnp"].values() for _, v in s] + [1]) * 2)
    qmax = nice(1.1 * max([v for r in runs for _, v in r["queue"]] + [kmax / 1e3]))
    lat = [v for r in runs for s in r["cdf"].values() for v, _ in s if v > 0]
    lmin = 10 ** math.floor(math.log10(min(lat))) if lat else 0.01
    lmax = 10 ** math.ceil(math.log10(max(lat))) if lat else 1000
    files = []
    for r in runs:
        t = r["tag"]
        files += P.figure(f"{t}-rate", [panel_rate(P, r, xmax, rmax, cmax)])
        files += P.figure(f"{t}-queue", [panel_queue(P, r, xmax, qmax, kmin, kmax)])
        files += P.figure(f"{t}-cdf", [panel_cdf(P, r, lmin, lmax)])
    k = len(runs)
    layout = (2, (k + 1) // 2) if k >= 4 else (1, k)
    size = (560 * layout[1], 380 * layout[0])
    files += P.figure("runs-rate", [panel_rate(P, r, xmax, rmax, cmax) for r in runs],
                      layout, size)
    files += P.figure("runs-queue", [panel_queue(P, r, xmax, qmax, kmin, kmax)
                                     for r in runs], layout, size)
    files += P.figure("runs-cdf", [panel_cdf(P, r, lmin, lmax) for r in runs],
                      layout, size)
    return files


def run_tags(d):
    """The runs of DIR in the report's order (DIR/figures), else by start."""
    tags = []
    p = os.path.join(d, "figures")
    if os.path.exists(p):
        for line in open(p):
            t = line.split(" ", 1)[0]
            if t and t not in tags and os.path.isdir(os.path.join(d, t)):
                tags.append(t)
    if not tags:
        def t0(t):
            try:
                return int(open(os.path.join(d, t, "backlog.t0")).read())
            except (OSError, ValueError):
                return 0
        tags = sorted((t for t in os.listdir(d)
                       if os.path.exists(os.path.join(d, t, "run"))), key=t0)
    return tags


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--out", help="where the plots go (default DIR/plots)")
    ap.add_argument("tags", nargs="*")
    o = ap.parse_args()
    tags = o.tags or run_tags(o.dir)
    if not tags:
        print(f"demo_plot: no runs in {o.dir}", file=sys.stderr)
        return 1
    out = o.out or os.path.join(o.dir, "plots")
    files = plot_all(o.dir, out, tags)
    print(f"{len(files)} plots in {out}: " + " ".join(
        f for f in files if f.endswith(".png")).replace(".png", ".{png,svg}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
