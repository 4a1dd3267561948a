#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The demo, run inside the VM by scripts/demo (make demo): a 3-to-1 incast
# of RDMA WRITEs between soft-RoCE hosts through a switch whose port toward
# the receiver is a 20 Mbit/s bottleneck with RED/ECN marking, run four
# times (lib/incast.sh): plain rxe (Not-ECT, the switch drops), ECT without
# any reaction (the switch marks, nobody slows down), and rocecc.ko on
# every host with the mlx5 and with the paper profile, scaled to the
# testbed (rates / D, time constants x D; selftests/vm/README, "Rate
# scaling"). Measured by rocegen, the switch's counters and the module's.
# Prints one side-by-side table.
#
# Knobs: ROCECC_DEMO_SENDERS (3), ROCECC_DEMO_SECS (8, the runs without
# rocecc), ROCECC_DEMO_TIME_SECS (20, the runs with it).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
lib=$top/selftests/vm/lib
. "$lib/topo.sh"
. "$lib/dp.sh"
. "$lib/incast.sh"

n=${ROCECC_DEMO_SENDERS:-3}
secs=${ROCECC_DEMO_SECS:-8}
tsecs=${ROCECC_DEMO_TIME_SECS:-20}
INCAST_DIR=$(mktemp -d /tmp/demo.XXXXXX)
trap 'incast_teardown >/dev/null 2>&1; rm -rf "$INCAST_DIR"' EXIT

t_start=$EPOCHREALTIME
phase() { printf '[demo %5.1fs] %s\n' "$(awk -v a="$t_start" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')" "$*"; }

phase "building $((n + 1)) soft-RoCE hosts and a switch; bottleneck toward host $((n + 1)): 20 Mbit/s, RED ECN Kmin 20 KB, Kmax 80 KB, Pmax 0.1"
modprobe -a ib_core rdma_rxe || exit 1
incast_setup "$n" 20 20000 80000 0.1 || exit 1
for m in plain ect mlx5-time paper-time; do
	incast_mode "$m" || exit 1
	case $m in
	plain) what="plain rxe, Not-ECT" ;;
	ect) what="ECT(0), nobody reacts" ;;
	*) what="rocecc.ko, ${m%-time} profile scaled to the testbed" ;;
	esac
	case $m in
	*-time) phase "run $m ($what): hosts 1..$n write 16 KB messages to host $((n + 1)) for ${tsecs}s"
		INCAST_CONV=5 incast_run "$m" "$tsecs" || exit 1 ;;
	*) phase "run $m ($what): hosts 1..$n write 16 KB messages to host $((n + 1)) for ${secs}s"
		INCAST_CONV=3 incast_run "$m" "$secs" || exit 1 ;;
	esac
done
phase "results"
incast_report plain ect mlx5-time paper-time
echo
sed 's/^/parameters: /' "$INCAST_DIR/params"
