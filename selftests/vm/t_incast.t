#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Incast through the ECN bottleneck: 2-to-1, then 3-to-1. Hosts 1..N WRITE
# 16 KB messages (4 outstanding) to host N+1 through a 20 Mb/s switch port
# with RED ECN (Kmin 20 KB, Kmax 80 KB, Pmax 0.1). Each incast runs in six
# modes (lib/incast.sh):
#
#   plain       no rocecc.ko, Not-ECT: RED drops, rxe retransmits
#   ect         no rocecc.ko, ECT(0) from rxe: RED marks, nobody reacts, and
#               rxe's window bounds the queue, above Kmax
#   mlx5, paper rocecc.ko on every host, the profile's rates divided by
#               D = reference line rate / 20 Mb/s (mlx5 5000, paper 2000),
#               time constants as the profile has them
#   mlx5-time, paper-time
#               the same with the four time constants multiplied by D too:
#               the reference link's proportions of rates, times and packet
#               sizes, D times slower (lib/incast.sh explains both rules)
#
# The ACK timeout: rxe's default (14, 67 ms) where something controls the
# queue, that is in the -time modes; 16 (268 ms) in the others, where
# nobody does and rxe's window alone puts ~130 KB (2-to-1) to ~170 KB
# (3-to-1) in the queue, 50-70 ms, as much as timeout 14 waits: there the
# default would measure rxe's spurious retries and the QPs they kill
# (IBV_WC_REM_INV_REQ_ERR), not the queue (make demo shows that).
# Asserted for every rocecc run: no drops, no rxe retransmissions, no
# completion errors, CNPs sent and handled. Jain's fairness index of the
# per-flow goodput after convergence >= 0.9: for mlx5, paper and
# mlx5-time. The bottleneck queue's p99 at or below Kmax: for paper-time.
# The rest is printed, not asserted, because it does not hold, and the
# figures show why:
#  - mlx5, paper (time constants kept): the rate timer (300 us, 55 us)
#    undoes a cut before a flow's next packet can bring the next CNP, the
#    rates hardly move and the queue stays where rxe's window puts it,
#    like ect's (~170 KB in 3-to-1, Kmax 80 KB).
#  - mlx5-time: the queue p99 is near Kmax (41 KB 2-to-1, 84-117 KB in
#    3-to-1 runs): mlx5 leaves the target rate unclamped at a cut
#    (rp_clamp_tgt_rate 0) and each 1.5 s timer event jumps halfway back.
#  - paper-time: R_AI 20 kb/s per 110 ms; flows cut to different rates in
#    the first second need minutes, not 20 s, to meet (Jain 0.85-0.93 in
#    3-to-1 runs, 1.00 in 2-to-1).
# All figures of all runs are printed side by side.
# Knobs: ROCECC_INCAST_SECS (8), ROCECC_INCAST_TIME_SECS (20).
# Run: scripts/vm --test selftests/vm/t_incast.t

lib=$(dirname "$0")/lib
. "$lib/tap.sh"
. "$lib/topo.sh"
. "$lib/dp.sh"
. "$lib/incast.sh"
tap_require_vm

rate=20 kmin=20000 kmax=80000 pmax=0.1
secs=${ROCECC_INCAST_SECS:-8}
tsecs=${ROCECC_INCAST_TIME_SECS:-20}
INCAST_DIR=$(mktemp -d /tmp/t_incast.XXXXXX)
trap 'incast_teardown; rm -rf "$INCAST_DIR"' EXIT
modes="plain ect mlx5 paper mlx5-time paper-time"

tap_run "ib_core and rdma_rxe load" modprobe -a ib_core rdma_rxe || tap_bail "no rxe"

fig() { incast_fig "$1" "$2"; }
# ge A B: A >= B for decimals
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }

for n in 2 3; do
	tap_diag "[${SECONDS} s] $n-to-1"
	tap_run "$n-to-1: $((n + 1)) hosts, bottleneck toward host $((n + 1))" \
		incast_setup "$n" "$rate" "$kmin" "$kmax" "$pmax" || tap_bail "no topology"
	for m in $modes; do
		t=$n.$m
		tap_run "$n-to-1 $m: mode" incast_mode "$m" || tap_bail "mode $m"
		case $m in
		*-time) INCAST_CONV=5 incast_run "$t" "$tsecs" ;;
		*) INCAST_CONV=3 incast_run "$t" "$secs" --timeout 16 ;;	# see above
		esac
		tap_ok $? "$n-to-1 $m: the generators ran"
	done
	tags=
	for m in $modes; do tags+=" $n.$m"; done
	# shellcheck disable=SC2086
	while IFS= read -r line; do tap_diag "$line"; done < <(incast_report $tags)
	tap_diag "parameters: $(tr '\n' ';' <"$INCAST_DIR/params")"

	tap_cmp "$(fig "$n.plain" drops)" -gt 0 "$n-to-1 plain: RED drops the Not-ECT traffic ($(fig "$n.plain" drops))"
	tap_cmp "$(fig "$n.plain" retrans)" -gt 0 "$n-to-1 plain: rxe retransmits ($(fig "$n.plain" retrans))"
	tap_cmp "$(fig "$n.ect" drops)" -eq 0 "$n-to-1 ect: no drops"
	tap_cmp "$(fig "$n.ect" marks)" -gt 0 "$n-to-1 ect: RED marks CE ($(fig "$n.ect" marks))"
	tap_cmp "$(fig "$n.ect" q99)" -gt "$kmax" "$n-to-1 ect: with nobody reacting the queue p99 is above Kmax ($(fig "$n.ect" q99) B)"
	for m in mlx5 paper mlx5-time paper-time; do
		t=$n.$m
		tap_cmp "$(fig "$t" drops)" -eq 0 "$n-to-1 $m: no drops"
		tap_cmp "$(fig "$t" retrans)" -eq 0 "$n-to-1 $m: no rxe retransmissions"
		tap_cmp "$(fig "$t" errors)" -eq 0 "$n-to-1 $m: no completion errors"
		tap_cmp "$(fig "$t" cnp_handled)" -gt 0 "$n-to-1 $m: CNPs sent ($(fig "$t" cnp_sent)) and handled ($(fig "$t" cnp_handled))"
		if [ "$m" != paper-time ]; then
			ge "$(fig "$t" jain)" 0.9
			tap_ok $? "$n-to-1 $m: Jain's fairness after convergence $(fig "$t" jain) >= 0.9"
			tap_diag "$n-to-1 $m: queue p99 $(fig "$t" q99) B (Kmax $kmax B, not asserted), bottleneck use $(fig "$t" use)"
		else
			tap_cmp "$(fig "$t" q99)" -le "$kmax" "$n-to-1 $m: queue p99 $(fig "$t" q99) B <= Kmax $kmax B"
			tap_diag "$n-to-1 $m: Jain's fairness $(fig "$t" jain) (not asserted), bottleneck use $(fig "$t" use)"
		fi
	done
	tap_run "$n-to-1: teardown, allocations balance" incast_teardown
done
tap_done
