#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""scripts/demo_plot.py on a synthetic demo directory (TAP): the derived
series (rate from tx_bytes deltas, CNPs from rx_cnp deltas, the CDF from
cumulative buckets) and the PNG/SVG files. Needs gnuplot for the files."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../.."))
sys.path.insert(0, os.path.join(TOP, "selftests/lib"))
from srcmod import load  # noqa: E402
from tap import ok, plan, skip  # noqa: E402

dp = load("scripts/demo_plot.py")


def near(a, b, eps=1e-6):
    return abs(a - b) <= eps * max(1.0, abs(b))


def flow(h, lqpn, txb, cnp, peer="10.0.0.3"):
    return {"flow": f"rocegen[{100 + h}] {lqpn} -> {peer}:{lqpn + 1}",
            "lqpn": lqpn, "rqpn": lqpn + 1, "peer": peer, "netdev": f"veth{h}",
            "dev": f"rxe{h}", "message_completion": {"samples": 10},
            "counters": {"tx_bytes": txb, "rx_cnp": cnp}}


def metrics_text(lqpn, h, buckets, peer="10.0.0.3"):
    lab = (f'flow="x",comm="rocegen",pid="1",lqpn="{lqpn}",rqpn="{lqpn + 1}",'
           f'peer="{peer}",dev="rxe{h}",netdev="veth{h}"')
    out = ["# TYPE rocecc_flow_message_completion_seconds histogram"]
    for le, c in buckets:
        out.append(f'rocecc_flow_message_completion_seconds_bucket{{{lab},le="{le}"}} {c}')
    out.append(f"rocecc_flow_message_completion_seconds_count{{{lab}}} {buckets[-1][1]}")
    return "\n".join(out) + "\n"


def make_run(d, tag, mode):
    r = os.path.join(d, tag)
    os.makedirs(r)
    open(os.path.join(r, "run"), "w").write(f"{mode} 2 2 1\n")
    for h, q in ((1, 17), (2, 18)):
        json.dump({"qps": [{"local_qpn": q}]}, open(os.path.join(r, f"c{h}.json"), "w"))
    open(os.path.join(r, "backlog.t0"), "w").write("1000000000\n")
    with open(os.path.join(r, "backlog"), "w") as f:
        for i in range(40):
            f.write(f"{i * 50} {(i % 10) * 5000} {i % 10}\n")
    with open(os.path.join(r, "flows.ndjson"), "w") as f:
        # host 1: 250 ms apart, +312500 bytes each = 10 Mbit/s; a CNP at 500 ms.
        # host 2: appears at the second sample; another host's flow and one
        # to another peer with the same QPN must not be taken for it.
        for i in range(5):
            fl = [flow(1, 17, 312500 * i, 1 if i >= 2 else 0),
                  flow(3, 17, 999, 0), flow(1, 17, 5, 0, peer="10.0.0.9")]
            if i >= 1:
                fl.append(flow(2, 18, 100000 * (i - 1), 2))
            f.write(json.dumps({"t_ms": 250 * i, "flows": fl}) + "\n")
        f.write('{"t_ms": 1250, "flo')	# cut short by the kill
    b1 = [("0.001", 0), ("0.002", 0), ("0.004", 5), ("0.008", 8), ("0.016", 10),
          ("0.032", 10), ("+Inf", 10)]
    b2 = [("0.001", 1), ("0.002", 3), ("0.004", 3), ("+Inf", 4)]
    open(os.path.join(r, "metrics"), "w").write(
        metrics_text(17, 1, b1) + metrics_text(18, 2, b2) +
        metrics_text(17, 3, [("0.001", 7), ("+Inf", 7)]))
    return r


def main():
    d = tempfile.mkdtemp(prefix="demo_plot.")
    try:
        open(os.path.join(d, "bottleneck"), "w").write("20 20000 80000 0.1\n")
        make_run(d, "plain", "plain")
        make_run(d, "mlx5-time", "mlx5-time")
        open(os.path.join(d, "figures"), "w").write("plain mode=plain\nmlx5-time mode=mlx5-time\n")

        r = dp.read_run(os.path.join(d, "plain"))
        rate1 = r["rate"][1]
        ok(len(rate1) == 4, "host1: one rate point per pair of samples", rate1)
        ok(all(near(v, 10.0) for _, v in rate1), "host1: 312500 B per 250 ms = 10 Mbit/s", rate1)
        ok([t for t, _ in rate1] == [0.25, 0.5, 0.75, 1.0], "host1: at the end of each interval", rate1)
        ok(r["cnp"][1] == [(0.5, 1)], "host1: the CNP delta, only where non-zero", r["cnp"][1])
        rate2 = r["rate"][2]
        ok(len(rate2) == 3 and all(near(v, 3.2) for _, v in rate2),
           "host2: from its first sample on, 100000 B / 250 ms = 3.2 Mbit/s", rate2)
        ok(r["cnp"][2] == [(0.25, 2)], "host2: CNPs before its first sample count there",
           r["cnp"][2])

        c1 = r["cdf"][1]
        ys = [y for _, y in c1]
        ok(all(a <= b for a, b in zip(ys, ys[1:])), "cdf host1 monotone", c1)
        ok(ys and ys[-1] == 1.0, "cdf host1 ends at 1", c1)
        ok(c1 == [(2.0, 0.0), (4.0, 0.5), (8.0, 0.8), (16.0, 1.0)],
           "cdf host1: last empty bucket, fractions, stops at the first full one", c1)
        c2 = r["cdf"][2]
        ok(c2 == [(1.0, 0.25), (2.0, 0.75), (4.0, 0.75), (4.0, 1.0)],
           "cdf host2: what only +Inf holds closes the CDF at 1", c2)
        ok(len(r["queue"]) == 40 and r["queue"][3] == (0.15, 15.0),
           "queue: seconds and KB from the backlog file", r["queue"][:4])
        ok(r["hosts"] == [1, 2] and "victim" not in r["label"].values(),
           "no victim.json: the senders only", r["hosts"])

        # the victim (lib/incast.sh INCAST_VICTIM): host N+2 = 4, its QPN
        # from victim.json, its flow in the samples and the metrics
        vr = os.path.join(d, "mlx5-time")
        json.dump({"qps": [{"local_qpn": 40}]}, open(os.path.join(vr, "victim.json"), "w"))
        with open(os.path.join(vr, "flows.ndjson"), "a") as f:
            f.write("\n" + "\n".join(json.dumps({"t_ms": 250 * i, "flows": [flow(4, 40, 2500 * i, 0)]})
                                     for i in range(3)) + "\n")
        with open(os.path.join(vr, "metrics"), "a") as f:
            f.write(metrics_text(40, 4, [("0.001", 0), ("0.002", 6), ("+Inf", 6)]))
        v = dp.read_run(vr)
        ok(v["hosts"] == [1, 2, 4] and v["label"][4] == "victim",
           "victim.json: the victim is host N+2, labelled victim", (v["hosts"], v["label"]))
        ok(len(v["rate"][4]) == 2 and all(near(r_, 0.08) for _, r_ in v["rate"][4]),
           "victim: its rate, 2500 B / 250 ms = 0.08 Mbit/s", v["rate"][4])
        ok(v["cdf"][4] == [(1.0, 0.0), (2.0, 1.0)], "victim: its completion CDF", v["cdf"][4])

        if not shutil.which("gnuplot"):
            skip("the plots", "no gnuplot (scripts/deps.sh installs gnuplot-nox)")
        else:
            p = subprocess.run([sys.executable, os.path.join(TOP, "scripts/demo_plot.py"), d],
                               capture_output=True, text=True)
            ok(p.returncode == 0, "demo_plot.py exits 0", p.stderr)
            out = os.path.join(d, "plots")
            names = [f"{t}-{k}" for t in ("plain", "mlx5-time") for k in ("rate", "queue", "cdf")]
            names += ["runs-rate", "runs-queue", "runs-cdf"]
            for nm in names:
                png, svg = os.path.join(out, nm + ".png"), os.path.join(out, nm + ".svg")
                ok(os.path.exists(png) and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n",
                   f"{nm}.png is a PNG")
                ok(os.path.exists(svg) and "<svg" in open(svg).read(4000),
                   f"{nm}.svg is an SVG")
            ok(os.path.exists(os.path.join(out, "gnuplot", "runs-rate.gp")),
               "the gnuplot scripts are kept")
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return plan()


if __name__ == "__main__":
    sys.exit(main())
