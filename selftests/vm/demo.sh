#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The demo, run inside the VM by scripts/demo (make demo): a 3-to-1 incast
# of RDMA WRITEs between soft-RoCE hosts through a switch whose port toward
# the receiver is a 20 Mbit/s bottleneck with RED/ECN marking, run five
# times (lib/incast.sh), after a run of the victim alone (below): plain rxe
# (Not-ECT, the switch drops), ECT without
# any reaction (the switch marks, nobody slows down), rocecc.ko on every
# host with the mlx5 and with the paper profile, scaled to the testbed
# (rates / D, time constants x D; selftests/vm/README, "Rate scaling"),
# and, beside the mlx5 run, the same profile and scaling on the BPF engine
# (bpf/dcqcn.bpf.c, attached by roceccd) with rocecc.ko unloaded. Every
# QP uses rxe's default ACK timeout (14, 67 ms), what
# applications get: unchecked, the three windows (16 KB messages, 4
# outstanding) queue ~170 KB, 68 ms, more than that timeout waits.
# Beside the incast, the victim: host N+2 writes one 64 B message every
# 100 ms, one outstanding (a parameter fetch), to the same receiver through
# the same port and priority; its message latency is what a
# latency-sensitive flow pays for the incast's queue. Its gap is above the
# ACK timeout so that rxe's stale retransmission timer expires between its
# messages (lib/incast.sh, _incast_victim): a victim retry then means a
# message waited past 67 ms.
# The first run, idle, is the victim alone on the same hosts, switch and
# port, nothing else crossing it (lib/incast.sh, mode idle): the floor
# under its latency that the testbed itself sets (rxe's base latency, the
# TCG guest's stalls of 20-60 ms), below which no congestion control can
# take it; the ECT run's victim p99.9 over idle's is the largest factor
# any could show here. 20 s are ~200 messages, whose p99.9 (nearest rank,
# as rocegen's; so of any run under 1000 messages) is their maximum, and
# the p99 the third slowest.
# Measured by rocegen, the switch's counters and the engine's (the same
# keys for both). roceccd watches every run (message completion on the
# wire, per-flow bytes and CNPs): lib/incast.sh samples its /flows.json
# every 250 ms; in the BPF run it drives the engine too (its
# configuration file, reloaded: incast_engine), with its maps pinned
# where rocecc finds them (/sys/fs/bpf/rocecc, removed at the end).
# Prints one side-by-side table.
#
#   demo.sh [STAMP]
#
# Everything measured goes to $ROCECC_VM_OUT_DIR/STAMP/ (scripts/vm's
# output share, which the host sees; STAMP defaults to the UTC time), one
# directory per run; scripts/demo plots it on the host (scripts/demo_plot.py).
# Outside scripts/vm (no ROCECC_VM_OUT_DIR) it goes to a new /tmp/demo.XXXXXX.
#
# Knobs: ROCECC_DEMO_SENDERS (3), ROCECC_DEMO_IDLE_SECS (20, the victim
# alone), ROCECC_DEMO_SECS (8, the runs without
# rocecc), ROCECC_DEMO_TIME_SECS (40, the runs with it), ROCECC_DEMO_CONV
# (15: their report's window starts that many seconds after the last
# sender did), the bottleneck's
# RED: ROCECC_DEMO_KMIN and ROCECC_DEMO_KMAX (bytes, 20000 and 80000),
# ROCECC_DEMO_PMAX (0.1), ROCECC_DEMO_MODES (the runs, in order),
# ROCECC_DEMO_PARAMS ("NAME VALUE ...": set on every host after the
# profile and its scaling in the rocecc runs, INCAST_PARAMS of
# lib/incast.sh; the tuning the table's "parameters:" lines end with).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
lib=$top/selftests/vm/lib
. "$lib/topo.sh"
. "$lib/dp.sh"
. "$lib/incast.sh"
. "$lib/rd.sh"

n=${ROCECC_DEMO_SENDERS:-3}
export INCAST_VICTIM=64 INCAST_VICTIM_GAP_MS=100
secs=${ROCECC_DEMO_SECS:-8}
isecs=${ROCECC_DEMO_IDLE_SECS:-20}
tsecs=${ROCECC_DEMO_TIME_SECS:-40}
tconv=${ROCECC_DEMO_CONV:-15}
export INCAST_PARAMS=${ROCECC_DEMO_PARAMS:-${INCAST_PARAMS:-}}
kmin=${ROCECC_DEMO_KMIN:-20000} kmax=${ROCECC_DEMO_KMAX:-80000} pmax=${ROCECC_DEMO_PMAX:-0.1}
if [ -n "${ROCECC_VM_OUT_DIR:-}" ]; then
	INCAST_DIR=$ROCECC_VM_OUT_DIR/${1:-$(date -u +%Y%m%dT%H%M%SZ)}
	mkdir -p "$INCAST_DIR" || exit 1
else
	INCAST_DIR=$(mktemp -d /tmp/demo.XXXXXX)
fi
RD_PORT=9468
# shellcheck disable=SC2034 # lib/incast.sh samples it during each run
INCAST_ROCECCD=http://127.0.0.1:$RD_PORT
INCAST_RD_CONF=$INCAST_DIR/roceccd.conf
cleanup() {
	if [ -n "$RD_PID" ]; then
		kill -TERM "$RD_PID" 2>/dev/null
		wait "$RD_PID" 2>/dev/null
		rm -rf /sys/fs/bpf/rocecc
	fi
	INCAST_RD_PID=
	incast_teardown >/dev/null 2>&1
}
trap cleanup EXIT

t_start=$EPOCHREALTIME
phase() { printf '[demo %5.1fs] %s\n' "$(awk -v a="$t_start" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')" "$*"; }

phase "building $((n + 2)) soft-RoCE hosts and a switch; bottleneck toward host $((n + 1)): 20 Mbit/s, RED ECN Kmin $((kmin / 1000)) KB, Kmax $((kmax / 1000)) KB, Pmax $pmax; the victim on host $((n + 2))"
modprobe -a ib_core rdma_rxe || exit 1
incast_setup "$n" 20 "$kmin" "$kmax" "$pmax" || exit 1
phase "starting roceccd (per-flow telemetry; sampled every 250 ms during each run)"
incast_engine none || exit 1
"$RD_BIN" -f -p "$RD_PORT" -c "$INCAST_RD_CONF" -i 250ms --buckets-per-octave 16 \
	--linger 600 2>"$INCAST_DIR/roceccd.log" &
RD_PID=$!
# shellcheck disable=SC2034 # lib/incast.sh reloads it (incast_engine)
INCAST_RD_PID=$RD_PID
for ((i = 0; i < 150; i++)); do
	rd_get flows.json >/dev/null 2>&1 && break
	kill -0 "$RD_PID" 2>/dev/null || { cat "$INCAST_DIR/roceccd.log" >&2; exit 1; }
	_topo_sleep 0.2
done
rd_get flows.json >/dev/null || { echo "roceccd does not answer" >&2; cat "$INCAST_DIR/roceccd.log" >&2; exit 1; }
modes=${ROCECC_DEMO_MODES:-idle plain ect mlx5-time bpf-mlx5-time paper-time}
for m in $modes; do
	incast_mode "$m" || exit 1
	case $m in
	idle) what="the victim alone, nothing else crossing the port" ;;
	plain) what="plain rxe, Not-ECT" ;;
	ect) what="ECT(0), nobody reacts" ;;
	bpf-*) m1=${m#bpf-}
		what="BPF engine, no rocecc.ko, ${m1%-time} profile scaled to the testbed" ;;
	*) what="rocecc.ko, ${m%-time} profile scaled to the testbed" ;;
	esac
	case $m in
	idle) phase "run $m ($what): host $((n + 2)) writes 64 B to host $((n + 1)) every 100 ms for ${isecs}s"
		incast_run "$m" "$isecs" || exit 1 ;;
	*-time) phase "run $m ($what): hosts 1..$n write 16 KB messages to host $((n + 1)) for ${tsecs}s, the victim 64 B every 100 ms"
		INCAST_CONV=$tconv incast_run "$m" "$tsecs" || exit 1 ;;
	*) phase "run $m ($what): hosts 1..$n write 16 KB messages to host $((n + 1)) for ${secs}s, the victim 64 B every 100 ms"
		INCAST_CONV=3 incast_run "$m" "$secs" || exit 1 ;;
	esac
done
phase "results"
# shellcheck disable=SC2086
incast_report $modes | tee "$INCAST_DIR/table.txt"
echo
sed 's/^/parameters: /' "$INCAST_DIR/params"
[ -n "${ROCECC_VM_OUT_DIR:-}" ] || echo "data: $INCAST_DIR"
