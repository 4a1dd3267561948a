#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""selftests/vm/lib/incast_report.py on a run of mode idle (TAP): the
victim alone (lib/incast.sh), its window the victim's run, its figures
beside an incast's, and the bulk rows "-" (no bulk figure written), not
zeros that look like measurements."""
import json
import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../.."))
sys.path.insert(0, os.path.join(TOP, "selftests/lib"))
from srcmod import load  # noqa: E402
from tap import ok, plan  # noqa: E402

REPORT = "selftests/vm/lib/incast_report.py"
ir = load(REPORT)
N = 3


def lat(p50, p99, p999, n):
    return {"p50": p50, "p99": p99, "p999": p999, "samples": n}


def counters(path, marked, v_retry):
    with open(path, "w") as f:
        f.write(f"swp{N + 1}.leaf.marked {marked}\n"
                f"swp{N + 1}.leaf.drops 0\n"
                f"rxe{N + 2}.completer_retry_err {v_retry}\n"
                f"rxe{N + 1}.duplicate_request 0\n")
        for h in range(1, N + 1):
            f.write(f"rxe{h}.completer_retry_err {h}\n")


def make_run(d, tag, mode, start, secs, conv, victim_lat, marked):
    r = os.path.join(d, tag)
    os.makedirs(r)
    open(os.path.join(r, "run"), "w").write(f"{mode} {N} {secs} {conv}\n")
    counters(os.path.join(r, "before"), 0, 0)
    counters(os.path.join(r, "after"), marked, 1)
    # the backlog sampler starts 0.5 s before the senders
    open(os.path.join(r, "backlog.t0"), "w").write(f"{int((start - 0.5) * 1e6)}\n")
    with open(os.path.join(r, "backlog"), "w") as f:
        for i in range(secs * 20):	# every 50 ms; 1 KB, 100 KB in incasts
            f.write(f"{i * 50} {100000 if mode != 'idle' else 1000} 1\n")
    v0 = start + conv
    json.dump({"start_time": v0, "elapsed_s": start + secs - v0,
               "params": {},
               "total": {"errors": 0, "latency": victim_lat}},
              open(os.path.join(r, "victim.json"), "w"))
    if mode == "idle":
        return
    for h in range(1, N + 1):
        tp = [{"t_ms": t * 100.0, "mbit": 6.0} for t in range(secs * 10)]
        json.dump({"start_time": start, "elapsed_s": float(secs),
                   "params": {},
                   "qps": [{"local_qpn": 16 + h, "throughput": tp}],
                   "total": {"mbit": 6.0, "errors": 0,
                             "latency": lat(80e3, 120e3, 150e3, 900)}},
                  open(os.path.join(r, f"c{h}.json"), "w"))


with tempfile.TemporaryDirectory() as d:
    open(os.path.join(d, "bottleneck"), "w").write("20 20000 80000 0.1\n")
    # idle: the victim from the run's start for 20 s, 200 messages; ect:
    # 8 s, the victim from 3 s after the senders' start
    make_run(d, "idle", "idle", 1000.0, 20, 0,
             lat(1.9e3, 9.5e3, 31e3, 200), 0)
    make_run(d, "ect", "ect", 1040.0, 8, 3,
             lat(50e3, 83e3, 86e3, 49), 5000)

    r = ir.run_figures(os.path.join(d, "idle"), 20.0, 3.0)
    ok(r["bulk"] == 0 and r["senders"] == N,
       "idle: no bulk sender ran; the topology's N kept", r)
    ok(not any(k.startswith(("mbit", "win_mbit", "p50_ms", "retry"))
               for k in r), "idle: no bulk figure written", r)
    ok(r["conv_s"] == 0 and abs(r["window_s"] - 20.0) < 1e-6,
       "idle: the window is the victim's whole run", r)
    ok(r["v_p999_ms"] == 31 and r["v_p50_ms"] == 1.9 and r["v_msgs"] == 200,
       "idle: the victim's percentiles and messages", r)
    ok(r["v_retrans"] == 1 and r["retrans"] == 0 and r["marks"] == 0,
       "idle: the victim's retransmissions; bulk 0, nothing marked", r)
    # the window's samples: the sampler's 20 s, less the 0.5 s before the
    # victim started
    ok(r["q_samples"] == 390 and r["qmax"] == 1000,
       "idle: the queue over the victim's run", r)

    r = ir.run_figures(os.path.join(d, "ect"), 20.0, 3.0)
    ok(r["bulk"] == N and r["mbit1"] == 6.0 and r["v_p999_ms"] == 86,
       "ect beside it: the bulk and victim figures as before", r)

    out = subprocess.run([sys.executable, os.path.join(TOP, REPORT),
                          "--dir", d, "--figures", os.path.join(d, "figures"),
                          "idle", "ect"], capture_output=True, text=True)
    ok(out.returncode == 0, "the table of idle and ect", out.stderr)
    rows = {}
    for line in out.stdout.splitlines()[2:]:
        w = re.split(r"\s{2,}", line.strip())
        rows[w[0]] = w[1:]
    bulk_rows = ([f"host{h} Mbit/s (all / window)" for h in range(1, N + 1)] +
                 [f"host{h} msg p50/p99/p99.9 ms (all)" for h in range(1, N + 1)] +
                 ["Jain's fairness (window)", "completion errors"])
    ok(all(rows.get(k, [""])[0] == "-" for k in bulk_rows),
       "idle's bulk rows are -", {k: rows.get(k) for k in bulk_rows})
    ok(rows.get("bulk use of 20 Mbit/s (all / window)", [""])[0] == "-"
       and rows.get("rxe retransmissions (bulk/victim)", [""])[0] == "-/1",
       "idle's bulk use and retransmissions are -, the victim's kept",
       out.stdout)
    ok(rows.get("victim msg p50/p99/p99.9 ms") == ["1.9/9.5/31", "50/83/86"],
       "the victim's row: idle, then ect", out.stdout)
    ok(rows.get("host1 Mbit/s (all / window)", ["", ""])[1] == "6.00 / 6.00",
       "ect's bulk rows are figures", out.stdout)
    figs = dict(line.split(" ", 1) for line in
                open(os.path.join(d, "figures")).read().splitlines())
    ok(" bulk=0 " in f" {figs['idle']} " and " bulk=3 " in f" {figs['ect']} ",
       "the figures say how many bulk senders ran", figs)
sys.exit(plan())
