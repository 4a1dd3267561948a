#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The demo, run inside the VM by scripts/demo (make demo): a 2-to-1 incast
# of RDMA WRITEs between soft-RoCE hosts through a switch whose port toward
# the receiver is a bottleneck with RED/ECN marking, run twice: without
# rocecc (the switch marks CE, nobody reacts) and with rocecc.ko attached on
# every host (CNPs, rate cuts, pacing). Measured by rocegen, the switch's
# counters and the module's. Prints one side-by-side table.
#
# DCQCN's timers are scaled to the testbed as in selftests/vm/t_np_rp.t:
# the mlx5 defaults are made for 100 Gb/s and microsecond round trips.
#
# Knobs: ROCECC_DEMO_RATE (bottleneck Mbit/s, 20), ROCECC_DEMO_SECS (10),
#        ROCECC_DEMO_SIZE (message bytes, 16384).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/vm/lib/topo.sh"

rate=${ROCECC_DEMO_RATE:-20}
secs=${ROCECC_DEMO_SECS:-10}
size=${ROCECC_DEMO_SIZE:-16384}
kmin=20000 kmax=80000 pmax=0.1
params="rp_max_rate 100 rp_rate_to_set_on_first_cnp 20 rp_clamp_tgt_rate 1
	rp_time_reset 50000 rp_dce_tcp_rtt 1000 rp_ai_rate 1 rp_hai_rate 5
	rp_rate_reduce_monitor_period 1000 np_min_time_between_cnps 1000"
rg=$top/build/tools/rocegen
cli=$top/build/daemon/rocecc
work=$(mktemp -d /tmp/demo.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; topo_teardown; rmmod rocecc 2>/dev/null; rm -rf "$work"' EXIT

t_start=$EPOCHREALTIME
phase() { printf '[demo %5.1fs] %s\n' "$(awk -v a="$t_start" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')" "$*"; }

# incast TAG PORTBASE: hosts 1 and 2 write to host 3 for $secs seconds.
incast() {
	local tag=$1 base=$2 h pids=() st=0
	topo_counters >"$work/$tag.before"
	for h in 1 2; do
		"$rg" --server --dev "$(topo_dev 3)" --port $((base + h)) -Q \
			--json "$work/$tag.srv$h.json" 2>"$work/$tag.srv$h.err" &
	done
	topo_wait_listen $((base + 1)) 20 && topo_wait_listen $((base + 2)) 20 || return 1
	topo_backlog_start 3 20 "$work/$tag.backlog" || return 1
	for h in 1 2; do
		"$rg" --client "$(topo_ip 3)" --dev "$(topo_dev "$h")" --port $((base + h)) \
			--cpu $((h - 1)) --op write --size "$size" --duration "$secs" \
			--depth 4 --timeout 16 --tclass 2 -Q \
			--json "$work/$tag.cli$h.json" 2>"$work/$tag.cli$h.err" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p" || st=1; done
	topo_backlog_stop
	topo_counters >"$work/$tag.after"
	[ $st = 0 ] || { cat "$work/$tag".cli*.err >&2; phase "$tag: a generator failed"; }
	return 0
}

phase "building 3 soft-RoCE hosts and a switch"
modprobe rdma_rxe || exit 1
topo_setup 3 || exit 1
phase "bottleneck toward host 3: $rate Mbit/s, RED ECN Kmin $kmin B, Kmax $kmax B, Pmax $pmax"
topo_bottleneck 3 "$rate" ecn $kmin $kmax $pmax || exit 1

phase "run 1, without rocecc: hosts 1 and 2 write ${size}-byte messages to host 3 for ${secs}s"
incast without 18600 || exit 1

phase "loading rocecc.ko, fq on every host, attaching, DCQCN timers scaled to the testbed"
modprobe ib_core && insmod "$top/kmod/rocecc.ko" || exit 1
for h in 1 2 3; do
	tc qdisc replace dev "$(topo_netdev $h)" root fq flow_limit 1000 || exit 1
	"$cli" dev attach "$(topo_netdev $h)" || exit 1
	# shellcheck disable=SC2086
	"$cli" param set dev "$(topo_netdev $h)" $params || exit 1
done
phase "run 2, with rocecc: the same incast"
incast with 18700 || exit 1
for h in 1 2 3; do "$cli" -j -s dev show "$(topo_netdev $h)" >"$work/dev$h.json"; done

phase "results"
python3 - "$work" "$rate" <<'PY'
import json, sys
work, rate = sys.argv[1], float(sys.argv[2])

def counters(tag, when):
    d = {}
    for line in open(f"{work}/{tag}.{when}"):
        k, _, v = line.strip().partition(" ")
        try:
            d[k] = int(v)
        except ValueError:
            pass
    return d

def run(tag):
    b, a = counters(tag, "before"), counters(tag, "after")
    delta = lambda k: a.get(k, 0) - b.get(k, 0)
    q = sorted(int(l.split()[1]) for l in open(f"{work}/{tag}.backlog") if l.strip())
    busy = [x for x in q if x > 0] or [0]
    pct = lambda v, p: v[min(len(v) - 1, int(p / 100 * len(v)))]
    r = {"flows": []}
    for h in (1, 2):
        d = json.load(open(f"{work}/{tag}.cli{h}.json"))
        t = d["total"]
        r["flows"].append((t["mbit"], t["latency"], t["errors"],
                           d["hw_counters"].get("completer_retry_err", 0)))
    x = [f[0] for f in r["flows"]]
    r["jain"] = sum(x) ** 2 / (len(x) * sum(v * v for v in x)) if any(x) else 0
    r["total"] = sum(x)
    r["marks"], r["drops"] = delta("swp3.leaf.marked"), delta("swp3.leaf.drops")
    r["q50"], r["q99"] = pct(busy, 50), pct(busy, 99)
    return r

w, o = run("without"), run("with")
stat = lambda h, k: json.load(open(f"{work}/dev{h}.json"))[0].get("stats", {}).get(k, "-")
rows = []
for i in (0, 1):
    rows.append((f"host{i + 1} Mbit/s", f"{w['flows'][i][0]:.2f}", f"{o['flows'][i][0]:.2f}"))
for i in (0, 1):
    for p, name in (("p50", "p50"), ("p99", "p99"), ("p999", "p99.9")):
        rows.append((f"host{i + 1} msg {name} ms", f"{w['flows'][i][1][p] / 1e3:.1f}",
                     f"{o['flows'][i][1][p] / 1e3:.1f}"))
rows += [
    ("Jain's fairness", f"{w['jain']:.3f}", f"{o['jain']:.3f}"),
    (f"bottleneck use of {rate:.0f} Mbit/s", f"{100 * w['total'] / rate:.0f}%", f"{100 * o['total'] / rate:.0f}%"),
    ("queue p50 / p99 KB", f"{w['q50'] / 1e3:.0f} / {w['q99'] / 1e3:.0f}", f"{o['q50'] / 1e3:.0f} / {o['q99'] / 1e3:.0f}"),
    ("CE marked at switch", str(w["marks"]), str(o["marks"])),
    ("drops at switch", str(w["drops"]), str(o["drops"])),
    ("rxe retransmissions", str(sum(f[3] for f in w["flows"])), str(sum(f[3] for f in o["flows"]))),
    ("completion errors", str(sum(f[2] for f in w["flows"])), str(sum(f[2] for f in o["flows"]))),
    ("CNPs sent (host 3)", "-", str(stat(3, "np_cnp_sent"))),
    ("CNPs handled (hosts 1, 2)", "-", f"{stat(1, 'rp_cnp_handled')}, {stat(2, 'rp_cnp_handled')}"),
]
width = max(len(r[0]) for r in rows)
print(f"{'':<{width}}  {'without':>12}  {'with rocecc':>12}")
for name, a, b in rows:
    print(f"{name:<{width}}  {a:>12}  {b:>12}")
PY
