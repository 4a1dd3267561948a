#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 2-to-1 incast through a bottleneck: hosts 1 and 2 RDMA-WRITE to host 3 with
# ECT(0) in the traffic class (ib_write_bw --tclass=2); the switch port toward
# host 3 is shaped to RATE Mbit/s. With RED "ecn" the switch marks CE and
# drops nothing; with the same RED without ECN it drops instead.
# Run: scripts/vm --test selftests/vm/t_incast_ecn.t
# The drop run sends fewer messages: rxe recovers from losses by go-back-N
# and timeouts, which under TCG takes minutes for the full count.
# Knobs: ROCECC_INCAST_RATE (Mbit/s, 20), ROCECC_INCAST_ITERS (per flow, 300),
#        ROCECC_INCAST_DROP_ITERS (per flow in the drop run, 40),
#        ROCECC_INCAST_SIZE (bytes per message, 16384).

lib=$(dirname "$0")/lib
. "$lib/tap.sh"
. "$lib/topo.sh"
tap_require_vm

rate=${ROCECC_INCAST_RATE:-20}
iters=${ROCECC_INCAST_ITERS:-300}
drop_iters=${ROCECC_INCAST_DROP_ITERS:-40}
size=${ROCECC_INCAST_SIZE:-16384}
kmin=20000 kmax=80000 pmax=0.1
tool_timeout=${ROCECC_INCAST_TIMEOUT:-180}	# per ib_write_bw, seconds
# QP ACK timeout 4.096 us * 2^17 = 0.54 s instead of perftest's 2^14 = 67 ms:
# the queue alone holds ~60 ms at 20 Mbit/s, TCG adds jitter, and spurious
# retransmissions can kill an rxe RC QP in 6.1 (the responder answers the
# duplicates with "invalid request", IBV_WC_REM_INV_REQ_ERR at the sender).
qp_timeout=${ROCECC_INCAST_QP_TIMEOUT:-17}

work=$(mktemp -d /tmp/t_incast.XXXXXX)
trap 'topo_teardown; rm -rf "$work"' EXIT

tap_run "3-host topology comes up" topo_setup 3 || tap_bail "no topology"
g=([1]=$(topo_gid_index 1) [2]=$(topo_gid_index 2) [3]=$(topo_gid_index 3))

# ib_write_bw's average bandwidth in MB/s from its report.
bw_avg() { awk '/#bytes/ { getline; print $4; exit }' "$1"; }

# incast NAME: hosts 1 and 2 write ITERS x SIZE to host 3 at once; counters
# before and after land in $work/NAME.{before,after}.
incast() {
	local name=$1 h p pids=() st=0 t0 port sts=
	topo_counters >"$work/$name.before" || return 1
	for h in 1 2; do
		port=$((18514 + h))
		timeout "$tool_timeout" ib_write_bw -d rxe3 -x "${g[3]}" -p "$port" -s "$size" -n "$iters" --tclass=2 -F -u "$qp_timeout" \
			>"$work/$name.srv$h" 2>&1 &
		pids+=($!)
	done
	topo_wait_listen 18515 30 && topo_wait_listen 18516 30 || return 1
	topo_backlog_start 3 20 "$work/$name.backlog" || return 1
	t0=$EPOCHREALTIME
	for h in 1 2; do
		timeout "$tool_timeout" ib_write_bw -d "rxe$h" -x "${g[$h]}" -p $((18514 + h)) -s "$size" -n "$iters" --tclass=2 -F -u "$qp_timeout" \
			"$(topo_ip 3)" >"$work/$name.cli$h" 2>&1 &
		pids+=($!)
	done
	for p in "${pids[@]}"; do
		wait "$p"
		h=$?
		sts+=" $h"
		[ "$h" = 0 ] || st=1
	done
	INCAST_SECS=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
	topo_backlog_stop
	topo_counters >"$work/$name.after" || return 1
	if [ "$st" != 0 ]; then
		tap_diag "$name: ib_write_bw exit status (server 1, server 2, client 1, client 2):$sts" \
			"(124: killed after ${tool_timeout}s)"
		for f in "$work/$name".{cli,srv}*; do
			tap_diag "--- ${f##*/}:" "$(tail -n 5 "$f")"
		done
	fi
	return "$st"
}

report() {
	local name=$1 b=$work/$1.before a=$work/$1.after bytes busy
	bytes=$(topo_delta "$b" "$a" swp3.tx_bytes)
	# The switch's rate while its queue was non-empty (perftest's start-up
	# is a good part of the wall time under TCG).
	read -r t0 t1 < <(topo_backlog_busy "$work/$name.backlog")
	busy=$(awk -v t0="${t0:-0}" -v t1="${t1:-0}" 'BEGIN { printf "%.2f", (t1 - t0) / 1000 }')
	tap_diag "$name: ${INCAST_SECS}s for 2 x $iters x $size B; switch->host3 $bytes B;" \
		"queue busy ${busy}s: $(awk -v b="$bytes" -v t="$busy" 'BEGIN { if (t > 0) printf "%.1f", b * 8 / t / 1e6; else printf "-" }') Mbit/s;" \
		"ib_write_bw avg MB/s: host1 $(bw_avg "$work/$name.cli1"), host2 $(bw_avg "$work/$name.cli2")"
	tap_diag "$name: leaf qdisc: marked $(topo_delta "$b" "$a" swp3.leaf.marked)" \
		"early $(topo_delta "$b" "$a" swp3.leaf.early) pdrop $(topo_delta "$b" "$a" swp3.leaf.pdrop)" \
		"drops $(topo_delta "$b" "$a" swp3.leaf.drops); max backlog $(topo_backlog_max "$work/$name.backlog") B" \
		"($(wc -l <"$work/$name.backlog") samples)"
	for h in 1 2; do
		tap_diag "$name: rxe$h retries $(topo_delta "$b" "$a" "rxe$h.completer_retry_err")" \
			"seq errors $(topo_delta "$b" "$a" "rxe$h.rcvd_seq_err")" \
			"send errors $(topo_delta "$b" "$a" "rxe$h.send_err")"
	done
}

# 1. RED with ECN: CE marks, no drops.
tap_run "bottleneck ${rate} Mbit/s, RED ecn $kmin/$kmax/$pmax on swp3" \
	topo_bottleneck 3 "$rate" ecn "$kmin" "$kmax" "$pmax" || tap_bail "no bottleneck"
incast ecn
tap_ok $? "incast with ECN marking completes"
report ecn
marks=$(topo_delta "$work/ecn.before" "$work/ecn.after" swp3.leaf.marked)
drops=$(topo_delta "$work/ecn.before" "$work/ecn.after" swp3.leaf.drops)
tap_cmp "$marks" -gt 0 "switch marked CE on $marks packets"
tap_cmp "$drops" -eq 0 "switch dropped nothing with ECN"
tap_cmp "$(topo_backlog_max "$work/ecn.backlog")" -gt "$kmin" "the bottleneck queue grew past Kmin"
sent=$((2 * iters * size))
tap_cmp "$(topo_delta "$work/ecn.before" "$work/ecn.after" swp3.tx_bytes)" -ge "$sent" \
	"all $sent bytes reached host 3"

# 2. The same RED without ECN: drops, no marks.
tap_run "bottleneck ${rate} Mbit/s, RED without ecn on swp3" \
	topo_bottleneck 3 "$rate" drop "$kmin" "$kmax" "$pmax" || tap_bail "no bottleneck"
iters=$drop_iters
incast drop
tap_ok $? "incast without ECN marking completes"
report drop
marks=$(topo_delta "$work/drop.before" "$work/drop.after" swp3.leaf.marked)
drops=$(topo_delta "$work/drop.before" "$work/drop.after" swp3.leaf.drops)
tap_cmp "$drops" -gt 0 "switch dropped $drops packets without ECN"
tap_cmp "$marks" -eq 0 "switch marked nothing without ECN"
retries=$(($(topo_delta "$work/drop.before" "$work/drop.after" rxe1.completer_retry_err) +
	$(topo_delta "$work/drop.before" "$work/drop.after" rxe2.completer_retry_err) +
	$(topo_delta "$work/drop.before" "$work/drop.after" rxe1.rcvd_seq_err) +
	$(topo_delta "$work/drop.before" "$work/drop.after" rxe2.rcvd_seq_err)))
tap_cmp "$retries" -gt 0 "senders recovered from the drops ($retries retries + NAKs)"

tap_done
