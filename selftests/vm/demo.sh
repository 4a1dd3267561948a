#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The demo, run inside the VM by scripts/demo: a 2-to-1 incast of RDMA
# WRITEs between soft-RoCE hosts through a switch whose port toward the
# receiver is a bottleneck with RED/ECN marking, measured by rocegen and the
# switch's counters. Prints one table.
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
rg=$top/build/tools/rocegen
work=$(mktemp -d /tmp/demo.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; topo_teardown; rm -rf "$work"' EXIT

phase() { printf '[demo %5.1fs] %s\n' "$(awk -v a="$t_start" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')" "$*"; }
t_start=$EPOCHREALTIME

phase "building 3 soft-RoCE hosts and a switch"
modprobe rdma_rxe || exit 1
topo_setup 3 || exit 1
phase "bottleneck toward host 3: $rate Mbit/s, RED ECN Kmin $kmin B, Kmax $kmax B, Pmax $pmax"
topo_bottleneck 3 "$rate" ecn $kmin $kmax $pmax || exit 1

phase "incast: hosts 1 and 2 write ${size}-byte messages to host 3 for ${secs}s, ECT(0)"
topo_counters >"$work/before"
for h in 1 2; do
	"$rg" --server --dev "$(topo_dev 3)" --port $((18600 + h)) -Q \
		--json "$work/srv$h.json" 2>"$work/srv$h.err" &
done
topo_wait_listen 18601 20 && topo_wait_listen 18602 20 || exit 1
topo_backlog_start 3 20 "$work/backlog" || exit 1
for h in 1 2; do
	"$rg" --client "$(topo_ip 3)" --dev "$(topo_dev "$h")" --port $((18600 + h)) \
		--cpu $((h - 1)) --op write --size "$size" --duration "$secs" --tclass 2 \
		--timeout 18 -Q --json "$work/cli$h.json" 2>"$work/cli$h.err" &
	pids+=($!)
done
st=0
for p in "${pids[@]}"; do wait "$p" || st=1; done
topo_backlog_stop
topo_counters >"$work/after"
[ $st = 0 ] || { cat "$work"/cli*.err >&2; phase "a generator failed"; }

phase "results"
python3 - "$work" "$rate" <<'PY'
import json, sys
work, rate = sys.argv[1], float(sys.argv[2])
def counters(name):
    d = {}
    for line in open(f"{work}/{name}"):
        k, _, v = line.strip().partition(" ")
        try:
            d[k] = int(v)
        except ValueError:
            pass
    return d
b, a = counters("before"), counters("after")
delta = lambda k: a.get(k, 0) - b.get(k, 0)
backlog = sorted(int(l.split()[1]) for l in open(f"{work}/backlog") if l.strip())
busy = [x for x in backlog if x > 0] or [0]
pct = lambda v, p: v[min(len(v) - 1, int(p / 100 * len(v)))]
flows = []
for h in (1, 2):
    d = json.load(open(f"{work}/cli{h}.json"))
    t, lat = d["total"], d["total"]["latency"]
    flows.append((h, t["mbit"], lat["p50"], lat["p99"], lat["p999"], t["errors"],
                  d["hw_counters"].get("completer_retry_err", 0)))
print(f"{'flow':<14}{'Mbit/s':>8}{'p50 ms':>9}{'p99 ms':>9}{'p99.9 ms':>10}{'errors':>8}{'retries':>9}")
for h, mbit, p50, p99, p999, err, retr in flows:
    print(f"{'host%d->host3' % h:<14}{mbit:8.2f}{p50/1e3:9.1f}{p99/1e3:9.1f}{p999/1e3:10.1f}{err:8d}{retr:9d}")
x = [f[1] for f in flows]
jain = sum(x) ** 2 / (len(x) * sum(v * v for v in x)) if any(x) else 0
print(f"Jain's fairness index {jain:.3f}; bottleneck {sum(x):.1f} of {rate:.0f} Mbit/s "
      f"({100 * sum(x) / rate:.0f}% goodput)")
print(f"switch port to host 3: CE marked {delta('swp3.leaf.marked')}, dropped {delta('swp3.leaf.drops')}, "
      f"queue p50 {pct(busy, 50)} B p99 {pct(busy, 99)} B max {backlog[-1] if backlog else 0} B (while busy)")
PY
