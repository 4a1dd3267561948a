#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Figures of the PFC incast runs made by lib/pfc_incast.sh, side by side.

Per run (DIR/TAG): everything lib/incast_report.py computes (goodput,
Jain's fairness over the converged window, queue percentiles, CE marks,
drops at the bottleneck, rxe retransmissions, message latency, CNPs), and:

  pause_frames   PFC frames with a pause time the switch sent (XOFF and
                 refreshes, summed over the sender ports; pfc.json of
                 pfcswitch); xon_frames the XONs; pause_events the XOFF
                 transitions alone (one per crossing of xoff)
  above_xoff_ms  time the bottleneck's backlog was at or above xoff
  gap_ms_*       time between two of pfcswitch's polls of the queue (its
                 reaction time; under TCG well above the 0.5 ms asked for)
  lapses         frames (refresh or XON) that came after the previous pause
                 had run out; lapsed_ms the time the senders were free
  indications    PFC frames the senders took in for the lossless priority
                 ("dcb -s pfc show": indications[PRIO], after - before,
                 summed over the senders); -1 if dcb reports none
  unenforced     of those, the ones that paused nothing (rocecc.ko's
                 pfc_unenforced: the root qdisc was not rocecc), -1 if
                 rocecc.ko does not report it
  cap_*          with a capture of veth1 (cap1.pcap): the frames seen
                 there, how many were a well-formed XOFF / XON for PRIO
                 with the switch port's MAC as source, how many were not
  p999_ms        the worst sender's p99.9 message completion time
  mbit           the senders' goodput over the whole run, summed

Prints one table (a column per run) and appends "TAG key=value ..." lines
to --figures.
"""
import argparse
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import incast_report  # noqa: E402


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def prio_value(v, prio):
    """indications/requests of one priority, whatever shape dcb's JSON
    gives them: [n0, n1, ...], [{"prio": p, ...: n}, ...] or {"p": n}."""
    if isinstance(v, list):
        if all(isinstance(x, (int, float)) for x in v):
            return int(v[prio]) if prio < len(v) else None
        for i, x in enumerate(v):
            if isinstance(x, dict):
                p = x.get("prio", x.get("tc", i))
                if int(p) == prio:
                    nums = [y for k, y in x.items()
                            if k not in ("prio", "tc") and isinstance(y, (int, float))]
                    return int(nums[0]) if nums else None
        return None
    if isinstance(v, dict):
        x = v.get(str(prio), v.get(prio))
        return int(x) if isinstance(x, (int, float)) else None
    return None


def dcb_counter(d, h, key, prio):
    def get(which):
        j = load(os.path.join(d, f"dcb{h}.{which}.json"))
        if isinstance(j, list) and j:
            j = j[0]
        if not isinstance(j, dict) or key not in j:
            return None
        return prio_value(j[key], prio)
    a, b = get("after"), get("before")
    if a is None:
        return None
    return a - (b or 0)


def pcap_frames(path):
    """The frames of a pcap file (classic format, any byte order)."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        return []
    magic = struct.unpack("<I", data[:4])[0]
    e = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
    off, out = 24, []
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack(e + "IIII", data[off:off + 16])
        out.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return out


def capture(d, prio, smac, quanta):
    """(frames, xoff, xon, bad) of veth1's capture."""
    frames = pcap_frames(os.path.join(d, "cap1.pcap"))
    xoff = xon = bad = 0
    for fr in frames:
        want = bytearray(60)
        want[0:6] = bytes.fromhex("0180c2000001")
        want[6:12] = smac
        want[12:18] = bytes([0x88, 0x08, 0x01, 0x01, 0x00, 1 << prio])
        if bytes(fr[:60]) == bytes(want):
            xon += 1
            continue
        want[18 + 2 * prio:20 + 2 * prio] = struct.pack(">H", quanta)
        if bytes(fr[:60]) == bytes(want):
            xoff += 1
        else:
            bad += 1
    return len(frames), xoff, xon, bad


def find_num(obj, sub):
    """The first number under a key containing SUB, anywhere in OBJ."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if sub in k and isinstance(v, (int, float)) and not isinstance(v, bool):
                return v
        obj = list(obj.values())
    if isinstance(obj, list):
        for v in obj:
            x = find_num(v, sub)
            if x is not None:
                return x
    return None


def dev_delta(d, h, sub):
    a = find_num(incast_report.dev_entry(d, h), sub)
    b = find_num(incast_report.dev_entry(d, h, ".before"), sub)
    return None if a is None else a - (b or 0)


def pfc_figures(d, rate, conv, prio):
    r = incast_report.run_figures(d, rate, conv)
    n = r["senders"]
    pj = load(os.path.join(d, "pfc.json"))
    r["pfc_switch"] = 1 if pj else 0
    if pj:
        ports = pj.get("ports", {}).values()
        r["pause_frames"] = sum(p["xoff"] + p["refresh"] for p in ports)
        r["xon_frames"] = sum(p["xon"] for p in ports)
        r["pause_events"] = pj["xoff_sent"]
        r["refreshes"] = pj["refresh_sent"]
        r["above_xoff_ms"] = float(pj["time_above_xoff_ms"])
        r["paused_ms"] = float(pj["paused_ms"])
        r["pfc_maxq"] = pj["max_backlog"]
        r["pfc_samples"] = pj["samples"]
        r["pfc_overruns"] = pj["overruns"]
        r["send_errors"] = sum(p["errors"] for p in ports)
        r["gap_ms_avg"] = float(pj.get("gap_us_avg", 0)) / 1e3
        r["gap_ms_max"] = float(pj.get("gap_us_max", 0)) / 1e3
        r["lapses"] = pj.get("lapses", 0)
        r["lapsed_ms"] = float(pj.get("lapsed_ms", 0))
        quanta = pj["quanta"]
    else:
        for k in ("pause_frames", "xon_frames", "pause_events", "refreshes",
                  "pfc_maxq", "pfc_samples", "pfc_overruns", "send_errors"):
            r[k] = 0
        r["above_xoff_ms"] = r["paused_ms"] = 0.0
        r["gap_ms_avg"] = r["gap_ms_max"] = r["lapsed_ms"] = 0.0
        r["lapses"] = 0
        quanta = 0xffff
    ind = [dcb_counter(d, h, "indications", prio) for h in range(1, n + 1)]
    r["indications"] = -1 if any(v is None for v in ind) else sum(ind)
    req = [dcb_counter(d, h, "requests", prio) for h in range(1, n + 1)]
    r["requests"] = -1 if any(v is None for v in req) else sum(req)
    une = [dev_delta(d, h, "unenforced") for h in range(1, n + 1)]
    r["unenforced"] = -1 if any(v is None for v in une) else sum(une)
    if os.path.exists(os.path.join(d, "cap1.pcap")):
        smac = bytes.fromhex("020000000101")	# swp1 (topo.sh's _topo_mac 1 1)
        (r["cap_frames"], r["cap_xoff"], r["cap_xon"],
         r["cap_bad"]) = capture(d, prio, smac, quanta)
    r["p999_ms"] = max(r[f"p999_ms{h}"] for h in range(1, n + 1))
    r["p99_ms"] = max(r[f"p99_ms{h}"] for h in range(1, n + 1))
    r["mbit"] = sum(r[f"mbit{h}"] for h in range(1, n + 1))
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--figures", required=True)
    ap.add_argument("--prio", type=int, default=3)
    ap.add_argument("--conv", type=float, default=3.0)
    ap.add_argument("tags", nargs="+")
    o = ap.parse_args()
    rate, kmin, kmax, pmax = open(os.path.join(o.dir, "bottleneck")).read().split()
    limit = open(os.path.join(o.dir, "limit")).read().strip()
    rate = float(rate)
    runs = {t: pfc_figures(os.path.join(o.dir, t), rate, o.conv, o.prio)
            for t in o.tags}
    with open(o.figures, "a") as f:
        for t, r in runs.items():
            f.write(t + " " + " ".join(
                f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}"
                for k, v in r.items() if not isinstance(v, str) or " " not in v)
                + "\n")

    n = max(r["senders"] for r in runs.values())
    dash = lambda r, s: s if r["pfc_switch"] else "-"
    rows = [
        ("mode", lambda r: r["mode"]),
        ("pause frames sent by the switch (XOFF+refresh / XON)",
         lambda r: dash(r, f"{r['pause_frames']} / {r['xon_frames']}")),
        ("  XOFF transitions / refreshes",
         lambda r: dash(r, f"{r['pause_events']} / {r['refreshes']}")),
        ("  time above xoff / paused, ms",
         lambda r: dash(r, f"{r['above_xoff_ms']:.0f} / {r['paused_ms']:.0f}")),
        ("  switch's poll gap avg / max, ms",
         lambda r: dash(r, f"{r['gap_ms_avg']:.2f} / {r['gap_ms_max']:.1f}")),
        ("  pauses run out before the next frame / ms free",
         lambda r: dash(r, f"{r['lapses']} / {r['lapsed_ms']:.0f}")),
        ("pauses honoured at the senders (dcb indications)",
         lambda r: "-" if r["indications"] < 0 else str(r["indications"])),
        ("  of them not enforced (no rocecc qdisc)",
         lambda r: "-" if r["unenforced"] < 0 else str(r["unenforced"])),
        ("drops at the bottleneck", lambda r: str(r["drops"])),
        ("rxe retransmissions", lambda r: str(r["retrans"])),
        ("Jain's fairness (window)", lambda r: f"{r['jain']:.3f}"),
        ("msg latency p99 / p99.9 ms (worst sender)",
         lambda r: f"{r['p99_ms']:.0f} / {r['p999_ms']:.0f}"),
        ("throughput Mbit/s (senders, all / window)",
         lambda r: f"{r['mbit']:.2f} / {sum(r[f'win_mbit{h}'] for h in range(1, r['senders'] + 1)):.2f}"),
    ]
    for h in range(1, n + 1):
        rows.append((f"  host{h} Mbit/s (all / window)",
                     lambda r, h=h: f"{r[f'mbit{h}']:.2f} / {r[f'win_mbit{h}']:.2f}"))
    rows += [
        ("queue p50/p99/max KB (sampler)",
         lambda r: f"{r['q50'] / 1e3:.0f}/{r['q99'] / 1e3:.0f}/{r['qmax'] / 1e3:.0f}"),
        ("queue max KB (pfcswitch's polls)",
         lambda r: dash(r, f"{r['pfc_maxq'] / 1e3:.0f}")),
        ("CE marked at switch", lambda r: str(r["marks"])),
        ("CNPs sent / handled / ignored",
         lambda r: "-" if r["cnp_sent"] < 0 else
         f"{r['cnp_sent']}/{r['cnp_handled']}/{r['cnp_ignored']}"),
        ("completion errors", lambda r: str(r["errors"])),
    ]
    if any("cap_frames" in r for r in runs.values()):
        rows.append(("PFC frames at veth1 (XOFF/XON/bad)",
                     lambda r: "-" if "cap_frames" not in r else
                     f"{r['cap_xoff']}/{r['cap_xon']}/{r['cap_bad']}"))
    cols = [[fn(runs[t]) for t in o.tags] for _, fn in rows]
    w0 = max(len(name) for name, _ in rows)
    ws = [max(len(t), *(len(c[i]) for c in cols)) for i, t in enumerate(o.tags)]
    print(f"{n}-to-1 incast on priority {o.prio}, bottleneck {rate:g} Mbit/s, "
          f"RED ECN Kmin {kmin} B Kmax {kmax} B Pmax {pmax}, limit {limit} B")
    print(" " * w0 + "".join(f"  {t:>{w}}" for t, w in zip(o.tags, ws)))
    for (name, _), c in zip(rows, cols):
        print(f"{name:<{w0}}" + "".join(f"  {v:>{w}}" for v, w in zip(c, ws)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
