#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# DCQCN end to end: a 2-to-1 incast (host 1 over IPv4, host 2 over IPv6,
# both RDMA-WRITE to host 3) through the switch port toward host 3, shaped
# to $ROCECC_NP_RATE (20) Mb/s with RED marking CE. With rocecc.ko attached
# on all hosts: the switch marks, host 3's NP answers with CNPs (valid ICRC,
# DSCP np_cnp_dscp, Not-ECT, IPv4 and IPv6), the senders' RPs handle them
# and cut their rates (flow dump during the run), the bottleneck drops
# nothing and rxe does not retransmit. The same run without the module
# (Not-ECT traffic: RED drops it) is printed for comparison.
#
# DCQCN's timers are scaled to the testbed: the mlx5 defaults are made for
# 100 Gb/s links and microsecond round trips (alpha decays every 1 us, the
# rate recovers every 300 us), here a few thousand packets per second cross
# a 20 Mb/s link. The run uses: rp_max_rate 100, rp_rate_to_set_on_first_cnp
# 20, rp_clamp_tgt_rate 1, rp_time_reset 50000, rp_dce_tcp_rtt 1000,
# rp_ai_rate 1, rp_hai_rate 5, rp_rate_reduce_monitor_period 1000,
# np_min_time_between_cnps 1000. rocegen runs with --depth 4 --timeout 16
# (0.27 s): rxe starts its ACK timer when it hands a packet to IP, so the
# switch queue of both flows' windows counts against it.
# Run: scripts/vm --test selftests/vm/t_np_rp.t

lib=$(dirname "$0")/lib
. "$lib/tap.sh"
. "$lib/topo.sh"
. "$lib/dp.sh"
tap_require_vm

rate=${ROCECC_NP_RATE:-20}
dur=${ROCECC_NP_DURATION:-5s}
retry_max=${ROCECC_DP_RETRY_MAX:-2}
params="rp_max_rate 100 rp_rate_to_set_on_first_cnp 20 rp_clamp_tgt_rate 1
	rp_time_reset 50000 rp_dce_tcp_rtt 1000 rp_ai_rate 1 rp_hai_rate 5
	rp_rate_reduce_monitor_period 1000 np_min_time_between_cnps 1000"
rgargs=(--size 16K --duration "$dur" --depth 4 --timeout 16)
work=$(mktemp -d /tmp/t_np_rp.XXXXXX)
trap 'topo_backlog_stop; topo_teardown; rmmod rocecc 2>/dev/null; rm -rf "$work"' EXIT
R=$DP_CLI

tap_run "ib_core, rdma_rxe and rocecc.ko load" dp_load || tap_bail "no module"
tap_run "3-host topology comes up" topo_setup 3 || tap_bail "no topology"
tap_run "fq on veth1..3" dp_fq 1 2 3
tap_run "bottleneck: $rate Mb/s RED ecn on swp3" topo_bottleneck 3 "$rate" ecn

# One incast. $1: tag for files. Sets per sender h: mbit[h], errs[h],
# retry[h], and bottleneck numbers; flow dumps during the run go to
# $work/$1.midN.h.json.
declare -A mbit errs retry
port=18700
incast() {
	local tag=$1 h i p4 p6 g3 pids=
	port=$((port + 2))
	p4=$port p6=$((port + 1))
	topo_counters >"$work/$tag.b"
	topo_backlog_start 3 20 "$work/$tag.backlog"
	for h in 1 2; do
		ip netns exec "$TOPO_NS" tcpdump -i "swp$h" -w "$work/$tag.cnp$h.pcap" -nn \
			'udp dst port 4791 and ((ip and udp[8] = 0x81) or (ip6 and ip6[48] = 0x81))' \
			>/dev/null 2>&1 &
		pids+=" $!"
	done
	dp_rg_server rxe3 "$p4" 1 || return 1
	srv4=$DP_SRV_PID
	g3=$(topo_gid_index 3 6)
	dp_rg_server rxe3 "$p6" 1 --gid-index "$g3" || return 1
	srv6=$DP_SRV_PID
	DP_RG_PEER=$(topo_ip 3) dp_rg_client 1 "$p4" "$work/$tag.c1.json" \
		"${rgargs[@]}" >"$work/$tag.c1.out" 2>&1 &
	c1=$!
	DP_RG_PEER=$(topo_ip 3) dp_rg_client 2 "$p6" "$work/$tag.c2.json" \
		--gid-index "$(topo_gid_index 2 6)" "${rgargs[@]}" >"$work/$tag.c2.out" 2>&1 &
	c2=$!
	if [ "$tag" = dcqcn ]; then
		for i in 1 2; do
			_topo_sleep 1
			for h in 1 2; do dp_flow_json "veth$h" >"$work/$tag.mid$i.$h.json"; done
		done
	fi
	wait "$c1" "$c2" "$srv4" "$srv6"
	[ "$tag" = dcqcn ] && for h in 1 2 3; do dp_flow_json "veth$h" >"$work/$tag.end.$h.json"; done
	topo_backlog_stop
	topo_counters >"$work/$tag.a"
	_topo_sleep 0.3
	# shellcheck disable=SC2086
	kill $pids 2>/dev/null
	wait $pids 2>/dev/null
	for h in 1 2; do
		read -r mbit[$h] errs[$h] < <(jq -r '"\(.total.mbit) \(.total.errors)"' "$work/$tag.c$h.json")
		retry[$h]=$(topo_delta "$work/$tag.b" "$work/$tag.a" "rxe$h.completer_retry_err")
	done
	bn_pkts=$(topo_delta "$work/$tag.b" "$work/$tag.a" swp3.leaf.packets)
	bn_marked=$(topo_delta "$work/$tag.b" "$work/$tag.a" swp3.leaf.marked)
	bn_drops=$(topo_delta "$work/$tag.b" "$work/$tag.a" swp3.leaf.drops)
	bn_maxq=$(topo_backlog_max "$work/$tag.backlog")
	bn_avgq=$(awk '{ s += $2; n++ } END { printf "%d", n ? s / n : 0 }' "$work/$tag.backlog")
	dups3=$(topo_delta "$work/$tag.b" "$work/$tag.a" rxe3.duplicate_request)
	tap_diag "$tag: sender 1 (IPv4) ${mbit[1]} Mb/s, errors ${errs[1]}, retries ${retry[1]}; sender 2 (IPv6) ${mbit[2]} Mb/s, errors ${errs[2]}, retries ${retry[2]}; duplicates at rxe3 $dups3"
	tap_diag "$tag: bottleneck $bn_pkts packets, $bn_marked CE-marked, $bn_drops dropped; queue max $bn_maxq B, mean $bn_avgq B"
}

# --- with rocecc.ko ------------------------------------------------------------

tap_run "attach veth1..3" dp_attach 1 2 3
for h in 1 2 3; do
	# shellcheck disable=SC2086
	"$R" param set dev "veth$h" $params || tap_bail "param set failed"
done
tap_diag "[${SECONDS} s] incast with rocecc.ko"
incast dcqcn || tap_bail "rocegen did not run"

dstat() { "$R" -j -s dev show "veth$1" | jq -r ".[0].stats.$2"; }
tap_cmp "$(dstat 3 np_ecn_marked_roce_packets)" -gt 0 "receiver saw CE-marked RoCE packets ($(dstat 3 np_ecn_marked_roce_packets))"
tap_cmp "$(dstat 3 np_cnp_sent)" -gt 0 "receiver sent CNPs (np_cnp_sent $(dstat 3 np_cnp_sent))"
for h in 1 2; do
	sum=$(dp_pcap "$work/dcqcn.cnp$h.pcap")
	tap_diag "CNPs on the wire toward host $h: $sum"
	tap_cmp "$(dp_kv "$sum" cnp)" -gt 0 "CNPs seen on the wire toward host $h"
	tap_cmp "$(dp_kv "$sum" cnp_icrc_bad)" -eq 0 "all with a valid ICRC"
	[ "$(dp_kv "$sum" cnp_dscp)" = 48 ] && [ "$(dp_kv "$sum" cnp_ecn)" = 0 ]
	tap_ok $? "all DSCP 48 (np_cnp_dscp), Not-ECT"
	tap_cmp "$(dstat "$h" rp_cnp_handled)" -gt 0 "sender $h handled CNPs (rp_cnp_handled $(dstat "$h" rp_cnp_handled), ignored $(dstat "$h" rp_cnp_ignored))"
done
for h in 1 2; do
	f=".[] | select(.packets > 0)"
	for i in 1 2; do
		tap_diag "sender $h flow at ${i} s: $(jq -c "$f | {raddr, rqpn, lqpn, rate_kbps, target_kbps, alpha, cnp_handled, cuts, pacing_delayed, pacing_capped}" "$work/dcqcn.mid$i.$h.json")"
	done
	min=$(jq -s "[.[][] | select(.packets > 0) | .rate_kbps] | min // 100000" "$work/dcqcn.mid1.$h.json" "$work/dcqcn.mid2.$h.json")
	cuts=$(jq "[$f | .cuts] | max // 0" "$work/dcqcn.end.$h.json")
	tap_cmp "$min" -lt 100000 "sender $h: DCQCN cut the rate during the run (lowest $min kb/s, ceiling 100000)"
	tap_cmp "$cuts" -gt 0 "sender $h: cuts $cuts"
done
tap_diag "receiver's flows: $(jq -c '[.[] | {raddr, rqpn, lqpn, ce_seen, cnp_sent, cnp_suppressed, cnp_tx_errors}]' "$work/dcqcn.end.3.json")"
tap_cmp "$(jq '[.[] | .cnp_sent] | add // 0' "$work/dcqcn.end.3.json")" -gt 0 "receiver's flows account their CNPs"
# Host 3's QPs enter its QP cache with their first CE mark (it sends only
# ACKs, which have no flow): that mark waits for the resolver, which then
# sends its CNP.
objs=$(dp_objects)
tap_cmp "$(dstat 3 resolver_miss)" -ge 2 "the first CE of each new flow found its QP unresolved ($(dstat 3 resolver_miss))"
tap_cmp "$(dp_kv "$objs" cnp_resolver)" -ge 2 "... and the resolver answered it ($(dp_kv "$objs" cnp_resolver) CNPs)"
# CE marks inside np_min_time_between_cnps are answered at the window's
# end by the flow's timer: more CNPs than immediate answers.
read -r ce supp sent < <(jq -r '[([.[] | .ce_seen] | add), ([.[] | .cnp_suppressed] | add), ([.[] | .cnp_sent] | add)] | map(tostring) | join(" ")' "$work/dcqcn.end.3.json")
tap_cmp "$sent" -gt "$((ce - supp))" "CNPs sent at the end of a window too ($sent sent, $((ce - supp)) at once, $supp marks held back)"
tap_cmp "$bn_drops" -eq 0 "no drops at the bottleneck"
tap_cmp "$bn_marked" -gt 0 "the bottleneck marked CE ($bn_marked)"
for h in 1 2; do
	tap_cmp "${errs[$h]}" -eq 0 "sender $h: no completion errors"
	tap_cmp "${retry[$h]}" -le "$retry_max" "sender $h: no retransmissions beyond TCG noise (${retry[$h]})"
done
tap_cmp "$(dstat 3 malformed)" -eq 0 "nothing malformed"
d_mbit1=${mbit[1]} d_mbit2=${mbit[2]} d_retry=$((retry[1] + retry[2])) d_drops=$bn_drops
d_maxq=$bn_maxq d_avgq=$bn_avgq d_marked=$bn_marked
tap_diag "objects: $(dp_objects)"
tap_run "rmmod rocecc; allocations balance" dp_unload

# --- the same without it --------------------------------------------------------

tap_diag "[${SECONDS} s] the same incast without rocecc.ko"
incast plain || tap_bail "rocegen did not run"
tap_cmp "$bn_drops" -gt 0 "without rocecc the bottleneck drops the Not-ECT traffic ($bn_drops)"
tap_diag "comparison: with rocecc $d_mbit1 + $d_mbit2 Mb/s, $d_retry retries, $d_marked marked, $d_drops drops, queue max $d_maxq B mean $d_avgq B;"
tap_diag "            without    ${mbit[1]} + ${mbit[2]} Mb/s, $((retry[1] + retry[2])) retries, $bn_marked marked, $bn_drops drops, queue max $bn_maxq B mean $bn_avgq B"
tap_done
