#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Figures of incast runs made by lib/incast.sh, side by side.

For each run directory (DIR/TAG): per-sender goodput over the whole run and
over the converged window (from CONV seconds after the last sender started
to when the first one stopped, from rocegen's throughput series), Jain's
fairness index of the window goodputs, bottleneck use (goodput / rate),
queue backlog percentiles over the window (the sampler's instantaneous
backlog, every ~20-60 ms), CE marks and drops at the bottleneck, rxe
retransmissions (completer_retry_err of the senders) and duplicates at the
receiver, completion errors, the guest's stalls and the retransmissions that
followed one (stalls() below), message completion p50/p99/p99.9 per sender,
and the module's CNP counters when it was loaded. When roceccd watched the
run (TAG/flows.json, INCAST_ROCECCD in lib/incast.sh) also its message
completion p50/p99/p99.9 per sender: on the wire, first packet of a message
to the ACK that completes it (rocegen's figures count from the post to the
completion). Both message rows cover the whole run, start-up included, not
the window: a sender keeps 4 x 16 KB outstanding, so its message takes
524 kbit over its current rate wherever it waits (switch queue or pacer;
about 79 ms at 20/3 Mb/s with ECT alone and with rocecc), and the p99
is the slowest 1 % of the run. Under mlx5-time that is the start: 5-9
CNPs a flow in the first 0.23 s (alpha starts at 1, so a handled one
halves the rate) leave ~0.7 Mb/s a flow (a message per ~190 ms) until
the 1.5 s timer, the queue empty and the link 11-13 % used; 11-15
messages a sender (of 710-940) took 300-780 ms, all done by 2.5 s, and
the p99 (the 8th-10th slowest) is one of them: 300-575 ms in 16 of 18
senders of six 3-to-1 runs, ~200 ms in the two that escaped those cuts,
while no message of the window took more than ~150 ms (estimated from
rocegen's 10 ms throughput samples). So each sender's rocegen also keeps
the messages it posted inside the window apart (--window-ms, from
lib/incast.sh: the window as the stagger schedules it, in ms since that
sender's own start; by post time, so that a start-up message completing
in the window is not counted and the window's last messages are, however
long they take): the "(window)" rows, wp50_msH/wp99_msH/wp999_msH and
wmsgsH in the figures, and wskew_ms, by how much a sender's window start
missed the report's (launch and handshake against the schedule). The
victim's figures are the window's.
A run of mode idle (lib/incast.sh) had no bulk sender, only the victim
from its start: its window is the victim's run, its bulk figures are not
written (the figures' bulk=0; the table shows "-"), and what it measures
(the victim, the queue, the switch, the guest's stalls) is the testbed's
floor beside the incasts.
The datapath's counters come from rocecc -j -s dev show, whose keys are
the same for rocecc.ko and the BPF engine (bpf/dcqcn.bpf.c): CNPs
sent (receiver) and handled or ignored (senders), CE-marked RoCE packets
the receiver saw, packets the senders' pacing delayed and capped; and the
engine that drove each device ("module", "bpf"), which must be one for all.

Prints a table (one column per run) and writes "TAG key=value ..." lines
to --figures for the tests to assert on.
"""
import argparse
import json
import os
import sys


def counters(path):
    d = {}
    with open(path) as f:
        for line in f:
            k, _, v = line.strip().partition(" ")
            try:
                d[k] = int(v)
            except ValueError:
                pass
    return d


def pct(sorted_vals, p):
    """Nearest-rank percentile of an ascending list (0 if empty)."""
    if not sorted_vals:
        return 0
    k = max(1, -(-len(sorted_vals) * p // 100))
    return sorted_vals[int(k) - 1]


def jain(x):
    s2 = sum(v * v for v in x)
    return sum(x) ** 2 / (len(x) * s2) if s2 > 0 else 0.0


def dev_entry(d, h, when=""):
    """veth<h>'s object in the run's devs<when>.json (rocecc -j -s dev show
    of every attached device, lib/incast.sh incast_devs; when: "" after the
    run, ".before"); None if it was not attached."""
    try:
        with open(os.path.join(d, f"devs{when}.json")) as f:
            devs = json.load(f)
    except (OSError, ValueError):
        return None
    for e in devs:
        if e.get("dev") == f"veth{h}":
            return e
    return None


def rd_flow(flows, netdev, lqpn, peer):
    """roceccd's flow of a sender: on its netdev, rocegen's local QPN, to
    the receiver (peer); None if the daemon did not see it."""
    c = [f for f in flows if f.get("netdev") == netdev and f.get("lqpn") == lqpn]
    p = [f for f in c if f.get("peer") == peer]
    return (p or c or [None])[0]


def victim(d, r, n, delta):
    """The victim's figures (lib/incast.sh, INCAST_VICTIM), if it ran: its
    message completion p50/p99/p99.9 and count, errors and the
    retransmissions of its host (N+2)."""
    p = os.path.join(d, "victim.json")
    if not os.path.exists(p):
        return
    v = json.load(open(p))
    lat = v["total"]["latency"]
    for q in ("p50", "p99", "p999"):
        r[f"v_{q}_ms"] = lat[q] / 1e3
    r["v_msgs"] = lat.get("samples", 0)
    r["v_errors"] = v["total"]["errors"]
    r["v_retrans"] = delta(f"rxe{n + 2}.completer_retry_err")


# Guest stalls (TAG/stallmon, selftests/tools/stallmon.c, lib/incast.sh):
# a stall is a vCPU's SCHED_FIFO thread, sleeping 1 ms at a time, woken
# STALL_MS or more after its previous wake-up. A retransmission (a change
# of a completer_retry_err, read every 5 ms on the same clock) followed a
# stall when one ended within STALL_WINDOW_MS before it: two of rxe's
# ACK timeouts at exponent 14 (67.1 ms), one for the ACK the stall held
# past the timer, one for the backlog the starved vCPU drains after it.
# t_incast.t's header has the figures (and why it asserts on the count of
# stalls, not on this attribution, which it prints).
STALL_MS = 20.0
STALL_WINDOW_MS = 134.0


def stalls(d, r, n):
    """The guest's stalls during the run (stalls: of the SCHED_FIFO
    threads; ostalls: of the default policy's, what ksoftirqd and the
    generators get) and the retransmissions (bulk: hosts 1..n, the
    victim's: host n + 2) that followed a stall; those the monitor did not
    see (r["retrans"] counts from before to after the run) count as not
    following one. stall_cover: the share of the monitored time that lies
    within STALL_WINDOW_MS after a stall, the chance that a retransmission
    at a random time would be put down to one."""
    p = os.path.join(d, "stallmon")
    st, ev, t0, t1, ost = [], [], None, None, 0
    if os.path.exists(p):
        for line in open(p):
            w = line.split()
            try:
                if w[0] == "stall" and float(w[3]) >= STALL_MS:
                    st.append((float(w[2]) + float(w[3]), float(w[3])))
                elif w[0] == "ostall" and float(w[3]) >= STALL_MS:
                    ost += 1
                elif w[0] == "ctr" and w[1].endswith("/completer_retry_err"):
                    h = int(w[1].split("/")[4][3:])
                    ev.append((float(w[2]), h, int(w[4]) - int(w[3])))
                elif w[0] == "start":
                    t0 = float(w[1])
                elif w[0] == "end":
                    t1 = float(w[1])
            except (IndexError, ValueError):
                pass
    st.sort()
    r["stalls"] = len(st)
    r["ostalls"] = ost
    r["stall_max_ms"] = max((g for _, g in st), default=0.0)
    after = lambda t: any(t - STALL_WINDOW_MS <= e <= t for e, _ in st)
    bulk = vic = 0
    for t, h, k in ev:
        if after(t):
            if 1 <= h <= n:
                bulk += k
            elif h == n + 2:
                vic += k
    r["retrans_stall"] = bulk
    r["retrans_unexpl"] = max(0, r["retrans"] - bulk)
    if "v_retrans" in r:
        r["v_retrans_stall"] = vic
        r["v_retrans_unexpl"] = max(0, r["v_retrans"] - vic)
    cover = 0.0
    if t0 is not None and t1 is not None and t1 > t0:
        last = t0
        for e, _ in st:
            a, b = max(e, last), min(e + STALL_WINDOW_MS, t1)
            if b > a:
                cover += b - a
                last = b
        cover /= t1 - t0
    r["stall_cover"] = cover


def window_latency(c, r, h, w0):
    """Sender h's message p50/p99/p99.9 of the window (wp50_msH ...) and
    their count (wmsgsH): the messages rocegen saw posted inside its
    --window-ms (lib/incast.sh passes the report's window as the stagger
    schedules it). wskew_ms: by how much the latest sender's window start
    missed the report's w0 (their real starts against the schedule)."""
    lat = c["total"].get("window_latency")
    win = c["params"].get("window_ms")
    if lat is None or win is None:
        return
    for p in ("p50", "p99", "p999"):
        r[f"w{p}_ms{h}"] = lat[p] / 1e3
    r[f"wmsgs{h}"] = lat.get("samples", 0)
    skew = abs(c["start_time"] + win[0] / 1e3 - w0) * 1e3
    r["wskew_ms"] = max(r.get("wskew_ms", 0.0), skew)


IDLE = "idle"	# lib/incast.sh's mode without bulk senders


def run_figures(d, rate, conv):
    run = open(os.path.join(d, "run")).read().split()
    mode, n = run[0], int(run[1])
    if len(run) > 3:
        conv = float(run[3])
    b = counters(os.path.join(d, "before"))
    a = counters(os.path.join(d, "after"))
    delta = lambda k: a.get(k, 0) - b.get(k, 0)
    clients = [] if mode == IDLE else [
        json.load(open(os.path.join(d, f"c{h}.json"))) for h in range(1, n + 1)]
    # the window: CONV s after the last sender's start until the first one
    # stopped; without senders (idle, CONV 0), the victim's run
    span = clients or [json.load(open(os.path.join(d, "victim.json")))]
    starts = [c["start_time"] for c in span]
    ends = [c["start_time"] + c["elapsed_s"] for c in span]
    w0, w1 = max(starts) + conv, min(ends)
    r = {"mode": mode, "senders": n, "bulk": len(clients), "conv_s": conv}
    win = []
    for h, c in enumerate(clients, 1):
        r[f"mbit{h}"] = c["total"]["mbit"]
        hw = []
        for f in c["qps"] if "qps" in c else c["flows"]:
            ser = [s["mbit"] for s in f["throughput"]
                   if w0 <= c["start_time"] + s["t_ms"] / 1e3 <= w1]
            hw.append(sum(ser) / len(ser) if ser else 0.0)
        win += hw
        r[f"win_mbit{h}"] = sum(hw)
        lat = c["total"]["latency"]
        for p in ("p50", "p99", "p999"):
            r[f"{p}_ms{h}"] = lat[p] / 1e3
        window_latency(c, r, h, w0)
        r[f"errors{h}"] = c["total"]["errors"]
        r[f"retry{h}"] = delta(f"rxe{h}.completer_retry_err")
    fj = os.path.join(d, "flows.json")
    if os.path.exists(fj):
        flows = json.load(open(fj))
        for h, c in enumerate(clients, 1):
            f = c["qps"][0] if "qps" in c else c["flows"][0]
            rf = rd_flow(flows, f"veth{h}", f.get("local_qpn"), f"10.0.0.{n + 1}")
            m = rf["message_completion"] if rf else {}
            r[f"rd_msgs{h}"] = m.get("samples") or 0
            for p in ("p50", "p99", "p999"):
                r[f"rd_{p}_ms{h}"] = (m.get(f"{p}_us") or 0) / 1e3
    victim(d, r, n, delta)
    r["flows"] = len(win)
    r["window_s"] = max(0.0, w1 - w0)
    r["jain"] = jain(win)
    r["use"] = sum(c["total"]["mbit"] for c in clients) / rate
    r["win_use"] = sum(win) / rate
    t0 = int(open(os.path.join(d, "backlog.t0")).read()) / 1e6
    q = []
    for line in open(os.path.join(d, "backlog")):
        ms, bl, _ = line.split()
        if w0 <= t0 + int(ms) / 1e3 <= w1:
            q.append(int(bl))
    q.sort()
    r["q_samples"] = len(q)
    r["q50"], r["q99"] = pct(q, 50), pct(q, 99)
    r["qmax"] = q[-1] if q else 0
    leaf = f"swp{n + 1}.leaf"
    r["marks"] = delta(f"{leaf}.marked")
    r["drops"] = delta(f"{leaf}.drops")
    r["retrans"] = sum(r[f"retry{h}"] for h in range(1, len(clients) + 1))
    r["retrans_all"] = r["retrans"] + r.get("v_retrans", 0)
    r["dups"] = delta(f"rxe{n + 1}.duplicate_request")
    r["errors"] = sum(r[f"errors{h}"] for h in range(1, len(clients) + 1))
    stalls(d, r, n)
    r["cnp_sent"] = r["cnp_handled"] = r["cnp_ignored"] = -1
    r["cnp_spoofed"] = r["ce_seen"] = r["paced"] = r["capped"] = -1
    r["engine"] = "-"
    if dev_entry(d, n + 1) is not None:
        def st(h):
            """The device's counters over the run."""
            a = (dev_entry(d, h) or {}).get("stats", {})
            b = (dev_entry(d, h, ".before") or {}).get("stats", {})
            return {k: v - b.get(k, 0) for k, v in a.items()}
        r["cnp_sent"] = st(n + 1).get("np_cnp_sent", 0)
        senders = [h for h in range(1, n + 3)
                   if h != n + 1 and dev_entry(d, h) is not None]
        r["cnp_handled"] = sum(st(h).get("rp_cnp_handled", 0)
                               for h in senders)
        r["cnp_ignored"] = sum(st(h).get("rp_cnp_ignored", 0)
                               for h in senders)
        r["cnp_spoofed"] = sum(st(h).get("rp_cnp_spoofed", 0)
                               for h in senders)
        r["ce_seen"] = st(n + 1).get("np_ecn_marked_roce_packets", 0)
        r["paced"] = sum(st(h).get("pacing_delayed", 0) for h in senders)
        r["capped"] = sum(st(h).get("pacing_capped", 0) for h in senders)
        engines = {dev_entry(d, h).get("engine", "module")
                   for h in senders + [n + 1]}
        r["engine"] = "/".join(sorted(engines))
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--figures", required=True)
    ap.add_argument("--conv", type=float, default=3.0,
                    help="seconds after the last start that count as "
                         "convergence, unless the run says (default 3)")
    ap.add_argument("tags", nargs="+")
    o = ap.parse_args()
    rate, kmin, kmax, pmax = open(os.path.join(o.dir, "bottleneck")).read().split()
    rate = float(rate)
    runs = {t: run_figures(os.path.join(o.dir, t), rate, o.conv)
            for t in o.tags}
    with open(o.figures, "a") as f:
        for t, r in runs.items():
            f.write(t + " " + " ".join(
                f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}"
                for k, v in r.items()) + "\n")

    n = max(r["senders"] for r in runs.values())
    # a bulk figure of a run without bulk senders (idle) is "-", not 0
    bulk = lambda fn: lambda r: fn(r) if r["bulk"] else "-"
    # "bulk/victim" of two counts, the victim's when it ran
    bv = lambda k, vk: lambda r: "/".join(
        [str(r[k]) if r["bulk"] else "-"] + ([str(r[vk])] if vk in r else []))
    rows = [("mode", lambda r: r["mode"]),
            ("datapath engine", lambda r: r["engine"])]
    for h in range(1, n + 1):
        rows.append((f"host{h} Mbit/s (all / window)",
                     bulk(lambda r, h=h: f"{r[f'mbit{h}']:.2f} / {r[f'win_mbit{h}']:.2f}")))
    for h in range(1, n + 1):
        rows.append((f"host{h} msg p50/p99/p99.9 ms (all)",
                     bulk(lambda r, h=h: "/".join(f"{r[f'{p}_ms{h}']:.0f}"
                                                  for p in ("p50", "p99", "p999")))))
    if any("wmsgs1" in r for r in runs.values()):
        for h in range(1, n + 1):
            rows.append((f"host{h} msg p50/p99/p99.9 ms (window)",
                         lambda r, h=h: "-" if f"wmsgs{h}" not in r else
                         "/".join(f"{r[f'w{p}_ms{h}']:.0f}"
                                  for p in ("p50", "p99", "p999"))))
        rows.append(("msg window: messages, start skew ms",
                     lambda r: "-" if "wmsgs1" not in r else
                     "/".join(str(r.get(f"wmsgs{h}", 0))
                              for h in range(1, r["senders"] + 1)) +
                     f", {r['wskew_ms']:.0f}"))
    if any("rd_msgs1" in r for r in runs.values()):
        for h in range(1, n + 1):
            rows.append((f"host{h} roceccd msg p50/p99/p99.9 ms (all)",
                         lambda r, h=h: "-" if not r.get(f"rd_msgs{h}") else
                         "/".join(ms(r[f"rd_{p}_ms{h}"])
                                  for p in ("p50", "p99", "p999"))))
    ms = lambda v: f"{v:.0f}" if v >= 10 else f"{v:.1f}"
    if any("v_msgs" in r for r in runs.values()):
        rows.append(("victim msg p50/p99/p99.9 ms",
                     lambda r: "-" if "v_msgs" not in r else
                     "/".join(ms(r[f"v_{p}_ms"]) for p in ("p50", "p99", "p999"))))
        rows.append(("victim messages / errors",
                     lambda r: "-" if "v_msgs" not in r else
                     f"{r['v_msgs']}/{r['v_errors']}"))
    rows += [
        ("window (s after last start)", lambda r: f"{r['conv_s']:g}..+{r['window_s']:.1f}"),
        ("Jain's fairness (window)", bulk(lambda r: f"{r['jain']:.3f}")),
        (f"bulk use of {rate:.0f} Mbit/s (all / window)",
         bulk(lambda r: f"{100 * r['use']:.0f}% / {100 * r['win_use']:.0f}%")),
        ("queue p50/p99/max KB", lambda r: f"{r['q50'] / 1e3:.0f}/{r['q99'] / 1e3:.0f}/{r['qmax'] / 1e3:.0f}"),
        ("CE marked at switch", lambda r: str(r["marks"])),
        ("drops at switch", lambda r: str(r["drops"])),
        ("rxe retransmissions (bulk/victim)", bv("retrans", "v_retrans")),
        (f"guest stalls >= {STALL_MS:.0f} ms (max ms, cover)",
         lambda r: f"{r['stalls']} ({r['stall_max_ms']:.0f}, "
         f"{100 * r['stall_cover']:.0f}%)"),
        ("retransmissions after stalls (bulk/victim)",
         bv("retrans_stall", "v_retrans_stall")),
        ("duplicates at receiver", lambda r: str(r["dups"])),
        ("completion errors", bulk(lambda r: str(r["errors"]))),
        ("CNPs sent / handled / ignored",
         lambda r: "-" if r["cnp_sent"] < 0 else
         f"{r['cnp_sent']}/{r['cnp_handled']}/{r['cnp_ignored']}"),
        ("CE-marked packets at receiver", lambda r: "-" if r["ce_seen"] < 0
         else str(r["ce_seen"])),
        ("packets paced / capped",
         lambda r: "-" if r["paced"] < 0 else f"{r['paced']}/{r['capped']}"),
    ]
    cols = [[fn(runs[t]) for t in o.tags] for _, fn in rows]
    w0 = max(len(name) for name, _ in rows)
    ws = [max(len(t), *(len(c[i]) for c in cols)) for i, t in enumerate(o.tags)]
    print(f"{n}-to-1 incast, bottleneck {rate:g} Mbit/s, RED ECN Kmin {kmin} B "
          f"Kmax {kmax} B Pmax {pmax}")
    print(" " * w0 + "".join(f"  {t:>{w}}" for t, w in zip(o.tags, ws)))
    for (name, _), c in zip(rows, cols):
        print(f"{name:<{w0}}" + "".join(f"  {v:>{w}}" for v, w in zip(c, ws)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
