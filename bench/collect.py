#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Gather what `make bench` measured into one machine-readable file and one
Markdown summary.

  collect.py --out DIR [--sim JSON] [--fluid JSON] [--hotpath TXT] [--bpf TXT]
             [--scale TXT]

Inputs (each optional; a missing part is reported as missing, not invented):
  --sim      the simulator's results.json (bench/dcqcn_sim --suite DIR; its
             summary.md next to it goes into the summary)
  --fluid    the fluid model's results.json (bench/dcqcn_fluid --suite DIR;
             likewise), and with --sim the stability table that sets the
             CoNEXT'16 finding, the fluid model and the simulator side by side
  --hotpath  "KIND INSTRUCTIONS" lines of bench/hotpath.sh
  --bpf      the text report of selftests/bpf/bench_flowmon
  --scale    "scale key=value ..." lines of bench/vm_scale.sh
Outputs: DIR/results.json and DIR/summary.md.
"""
import argparse
import json
import os
import platform
import re
import sys
import time


def read_hotpath(path):
    out = {}
    with open(path) as f:
        for line in f:
            k, _, v = line.strip().partition(" ")
            if k and v:
                out[k] = float(v)
    return out


BPF_ROW = re.compile(r"^\s{2}(\S.*?)\s{2,}(\d+)\s+([\d.]+)\s+(-?\d+)\s*$")
BPF_REP = re.compile(r"^\s{2}(\S.*?)\s{2,}(\d+)\s*$")


def read_bpf(path):
    """The two tables of bench_flowmon: per-packet runs and repeated runs."""
    single, repeated, kernel = {}, {}, None
    section = None
    with open(path) as f:
        for line in f:
            if line.startswith("flowmon per-packet cost"):
                kernel = line.split(" on ", 1)[-1].strip()
            elif line.startswith("one run per packet"):
                section = "single"
            elif line.startswith("the same packet repeated"):
                section = "repeated"
            m = BPF_ROW.match(line)
            if section == "single" and m:
                single[m.group(1)] = {"median_ns": int(m.group(2)),
                                      "mean_ns": float(m.group(3)),
                                      "median_minus_floor_ns": int(m.group(4))}
                continue
            m = BPF_REP.match(line)
            if section == "repeated" and m:
                repeated[m.group(1)] = {"ns_per_run": int(m.group(2))}
    return {"kernel": kernel, "per_packet": single, "repeated": repeated}


def read_scale(path):
    rows = []
    with open(path) as f:
        for line in f:
            if not line.startswith("scale "):
                continue
            row = {}
            for kv in line.split()[1:]:
                k, _, v = kv.partition("=")
                try:
                    row[k] = int(v)
                except ValueError:
                    row[k] = float(v)
            rows.append(row)
    return rows


# The CoNEXT'16 finding for a stability case: at 85 us 10 flows oscillate,
# 2 and 64 do not; at 4 us nothing does; the remedy is stable to 100 us.
def paper_finding(marking, n, delay_us):
    if marking == "remedy":
        return "stable"
    if delay_us < 10:
        return "stable"
    if delay_us == 85:
        return "oscillates" if n == 10 else "stable"
    return "-"


# fluid run names: fluid-{text,solver,remedy}-nN-dDus; the simulator's:
# {paper,solver,remedy}-40g-nN-dDus
FLUID_NAME = re.compile(r"^fluid-(text|solver|remedy)-n(\d+)-d(\d+)us$")
SIM_OF = {"text": "paper", "solver": "solver", "remedy": "remedy"}
MARKING = {"text": "Kmax 200 KB, Pmax 1%",
           "solver": "Kmax 2000 KB, Pmax 10%",
           "remedy": "R_AI 10 Mb/s, Kmax 1000 KB"}


def sim_cell(s):
    """A simulator run as: queue period, its autocorrelation, p1..p99."""
    if s is None:
        return "-"
    return "%.1f ms, %.2f; %.0f..%.0f KB; %.3f" % (
        s["queue_period_ns"] / 1e6, s["queue_acf_peak"],
        s["queue_p1_bytes"] / 1e3, s["queue_p99_bytes"] / 1e3,
        s["utilisation"])


def stability_rows(fluid, sim):
    """One row per fluid run of a CoNEXT'16 case the simulator also ran."""
    sims = {r["name"]: r for r in sim["runs"]} if sim else {}
    rows = []
    for f in fluid["runs"]:
        m = FLUID_NAME.match(f["name"])
        if not m:
            continue
        marking, n, d = m.group(1), int(m.group(2)), int(m.group(3))
        s = sims.get("%s-40g-n%d-d%dus" % (SIM_OF[marking], n, d))
        if s is None:
            continue
        deq = sims.get("solver-deq-40g-n%d-d%dus" % (n, d)) \
            if marking == "solver" else None
        rows.append([
            MARKING[marking], n, "%d us" % d, paper_finding(marking, n, d),
            "%s (%.3f; %.0f..%.0f KB; %.1f ms; %.3f)" % (
                "oscillates" if f["oscillating"] else "stable",
                f["rate_amp_b_over_fair"], f["queue_min_bytes"] / 1e3,
                f["queue_max_bytes"] / 1e3, f["period_us"] / 1e3,
                f["utilisation"]),
            sim_cell(s), sim_cell(deq) if deq else "-"])
    return rows


def md_table(head, rows):
    out = ["| " + " | ".join(head) + " |",
           "|" + "|".join(" --- " for _ in head) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--sim")
    ap.add_argument("--fluid")
    ap.add_argument("--hotpath")
    ap.add_argument("--bpf")
    ap.add_argument("--scale")
    a = ap.parse_args()

    res = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "host": {"kernel": platform.release(), "cpus": os.cpu_count()}}
    md = ["# rocecc benchmarks", "",
          "Produced by `make bench` on %s (host kernel %s, %d CPUs). Every "
          "figure below comes from `results.json` next to this file."
          % (res["date"], res["host"]["kernel"], res["host"]["cpus"]), ""]
    missing = []

    def load(name, fn, path):
        if not path or not os.path.exists(path):
            missing.append(name)
            return None
        try:
            return fn(path)
        except (OSError, ValueError) as e:
            print("collect: %s: %s" % (path, e), file=sys.stderr)
            missing.append(name)
            return None

    sim = load("simulator", lambda p: json.load(open(p)), a.sim)
    if sim is not None:
        res["simulator"] = sim
        simmd = os.path.join(os.path.dirname(a.sim), "summary.md")
        if not os.path.exists(simmd):
            md += ["## DCQCN at scale (dcqcn_sim)", "",
                   "(its summary.md is missing; the figures are in results.json)"]
        else:
            text = open(simmd).read().strip().splitlines()
            # demote the simulator's own headings one level
            md += ["#" + l if l.startswith("#") else l for l in text]
        md.append("")

    fluid = load("fluid model", lambda p: json.load(open(p)), a.fluid)
    if fluid is not None:
        res["fluid_model"] = fluid
        flmd = os.path.join(os.path.dirname(a.fluid), "summary.md")
        if os.path.exists(flmd):
            text = open(flmd).read().strip().splitlines()
            md += ["#" + l if l.startswith("#") else l for l in text]
            md.append("")
        rows = stability_rows(fluid, sim)
        if rows:
            res["stability"] = rows
            md += ["## Stability: CoNEXT'16, the fluid model, the simulator",
                   "",
                   "Paper profile, 40 Gb/s. Fluid model: its verdict (the "
                   "largest flow-rate swing over C/N at the end; the queue's "
                   "range there; the period; utilisation). Simulator: the "
                   "queue's oscillation period and its autocorrelation there "
                   "(near 1: a regular cycle, near 0: noise); the queue's "
                   "p1..p99; utilisation, marking at enqueue and, for the "
                   "solver's marking, at egress (bench/README.md, \"The "
                   "fluid model, integrated\").", "",
                   md_table(["marking", "N", "delay", "CoNEXT'16",
                             "fluid model", "simulator",
                             "simulator, egress marking"], rows), ""]

    hp = load("hotpath", read_hotpath, a.hotpath)
    if hp is not None:
        res["hotpath_instructions_per_packet"] = hp
        md += ["## Module hot path: instructions per packet (callgrind)", "",
               "The shared parse + reaction/notification point code of "
               "rocecc.ko built for userspace (`bench/hotpath.c`); "
               "kernel-only work (netfilter, skb copies, hash lookups, "
               "locks) is not included. `ackreq`: `data` without AckReq, "
               "which pacing asks for: the bit set and the ICRC mended "
               "(rocecc_icrc_set_ackreq()). `ce`: one packet in four sends a "
               "CNP (mlx5 4 us window, packets 1 us apart); `cnp`: the ICRC "
               "is checked with the byte-wise CRC the userspace build uses "
               "(the kernel's crc32_le is table-driven and cheaper).", "",
               md_table(["packet", "instructions"],
                        [[k, "%.0f" % v] for k, v in hp.items()]), ""]

    bpf = load("bpf", read_bpf, a.bpf)
    if bpf is not None:
        res["bpf_flowmon"] = bpf
        md += ["## BPF flow telemetry: ns per packet (BPF_PROG_TEST_RUN)", "",
               "`bpf/flowmon.bpf.c` on the host kernel (%s); median of "
               "single runs, and minus the empty program's floor."
               % bpf["kernel"], "",
               md_table(["packet", "median ns", "median - floor ns"],
                        [[k, v["median_ns"], v["median_minus_floor_ns"]]
                         for k, v in bpf["per_packet"].items()]), ""]

    scale = load("scale", read_scale, a.scale)
    if scale is not None:
        res["module_scale"] = scale
        md += ["## rocecc.ko flow table at scale (in the VM, TCG)", "",
               "Memory is the kernel's Slab + vmalloc growth; lookup is "
               "rocecc_flow_get() under the function_graph tracer in an "
               "emulated CPU (compare rows, not with real hardware); the "
               "dump is `rocecc -j flow show` of the whole table.", "",
               md_table(["flows", "hash bits", "tracked", "bytes/flow",
                         "chain", "lookup p50 ns", "lookup mean ns",
                         "dump s", "dump MB"],
                        [[r["flows"], r["hash_bits"], r["tracked"],
                          r["bytes_per_flow"], r["chain"],
                          r["flow_get_p50_ns"], r["flow_get_mean_ns"],
                          r["dump_s"], "%.1f" % (r["dump_bytes"] / 1e6)]
                         for r in scale]), ""]

    res["missing"] = missing
    if missing:
        md += ["Not measured in this run: " + ", ".join(missing) + ".", ""]
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump(res, f, indent=1, sort_keys=True)
        f.write("\n")
    with open(os.path.join(a.out, "summary.md"), "w") as f:
        f.write("\n".join(md))
    print("bench: %s/results.json, %s/summary.md%s" % (
        a.out, a.out, " (missing: %s)" % ", ".join(missing) if missing else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
