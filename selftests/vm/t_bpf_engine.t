#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The BPF datapath end to end, driven by roceccd --datapath bpf, with
# real soft-RoCE traffic and no rocecc.ko loaded: host 1 RDMA-WRITEs to
# host 2, the switch port toward host 2 marks every packet CE (as in
# t_np.t: a bottleneck's marks come too seldom at the rates TCG reaches),
# with the mlx5 profile scaled to 20 Mb/s, time constants included
# (lib/incast.sh: a CNP window of 20 ms, rate timer 1.5 s), so that a cut
# lasts long enough to be seen. The rate falls to its floor, and pacing
# must stay inside the ACK-timeout budget: the QPs keep the default ACK
# timeout (14). What the datapath tests assert for both engines (ECT,
# CNPs spec-conformant and spaced, cuts against the shared core, pacing to
# a rate, AckReq, a local user's RoCE-shaped UDP, a parameter out of
# range) runs for this engine in t_np_bpf.t, t_rp_bpf.t and
# t_ect_pacing_bpf.t (on 6.1 in CI); this file keeps what only the BPF
# engine has, and one closed loop, both ends BPF, which is also the BPF
# engine's traffic test on 6.12. Asserted:
#  - roceccd attaches the engine to veth1 and veth2 (rocecc dev show:
#    engine bpf), rocecc param profile | set | show work on them;
#  - CE marks earn CNPs from host 2 (np_cnp_sent, ce_answered, no
#    cnp_tx_errors, at most one per 20 ms window), host 1 takes them as
#    valid CNPs from
#    its peer (rp_cnp_handled), its flow (rocecc -j flow show, the
#    module's keys) is limited, cut below the ceiling while it runs, and
#    paced by EDT: the flow's pacing_delayed and fq's throttled count grow;
#  - the flow learned its QP's ACK timeout (14, from rxe_modify_qp()):
#    its budget is 12 ms (20 %, the module's), not the default 8 ms; and
#    the QP's peer came from its address vector (roceccd's debug log);
#  - pacing sets BTH AckReq where rocecc_pace() asks, as the module does
#    (pacing_ackreq, per flow and per netdev), with the ICRC mended (no
#    malformed), with no retries at timeout 14 beyond TCG's allowance;
#  - only rxe's QP sockets count: none of rxe's packets is taken for
#    another's (tx_not_rxe 0);
#  - no completion errors, no drops at the switch, rxe retries within
#    TCG's noise allowance (ROCECC_DP_RETRY_MAX, 2; see t_ect_pacing.t);
#  - rocecc -s dev show prints the engine and the counters; /metrics has
#    them as rocecc_dp_<counter>_total{netdev,engine="bpf"};
#  - with rocecc.ko loaded, the CLI refuses to attach the module where BPF
#    drives, and so does the module itself when asked directly over
#    generic netlink (its extack names the BPF datapath); once roceccd stops and the module takes veth1, a restarted
#    roceccd --datapath bpf refuses veth1 naming rocecc.ko, keeps its
#    hands off it and drives veth2 again with the counters it kept pinned;
#  - the QP learner is pinned and outlives roceccd: a QP set up while it
#    is stopped gets its dp_qps entry (peer from its address vector,
#    DCQCN_QP_AV) and loses it when destroyed, and the restarted roceccd
#    adopts the same link (one fexit attached, not two); roceccd
#    --datapath none unpins and detaches it.
# Run: scripts/vm --test selftests/vm/t_bpf_engine.t

lib=$(dirname "$0")/lib
. "$lib/tap.sh"
. "$lib/topo.sh"
. "$lib/dp.sh"
. "$lib/incast.sh"
. "$lib/rd.sh"
tap_require_vm

retry_max=${ROCECC_DP_RETRY_MAX:-2}
dur=6
work=$(mktemp -d /tmp/t_bpf_engine.XXXXXX)
trap 'kill $RD_PID $RD_NOTIFY_PID 2>/dev/null; topo_teardown; rmmod rocecc 2>/dev/null; rm -rf "$work" /sys/fs/bpf/rocecc' EXIT
R=$DP_CLI

tap_run "ib_core and rdma_rxe load (no rocecc.ko)" eval 'modprobe ib_core && modprobe rdma_rxe' ||
	tap_bail "no rxe"
mark_all_ce() {
	ip netns exec "$TOPO_NS" tc qdisc add dev swp2 clsact &&
	ip netns exec "$TOPO_NS" tc filter add dev swp2 egress protocol ip matchall \
		action pedit ex munge ip tos set 3 retain 3 pipe action csum ip4h
}
tap_run "2-host topology, every packet toward host 2 marked CE" \
	eval 'topo_setup 2 && mark_all_ce' || tap_bail "no topology"
tap_run "fq on veth1 and veth2" dp_fq 1 2

printf '[daemon]\ninterval = 250ms\n[module]\ndevices = veth1, veth2\nfq = no\n' >"$work/rd.conf"
rd_start "$work/rd.log" -c "$work/rd.conf" --datapath bpf -L debug
rd_wait_ready 1 30 || { tap_diag "$(tail "$work/rd.log")"; tap_bail "roceccd did not start"; }

for _ in $(seq 50); do
	[ "$(dp_engines)" = "veth1=bpf veth2=bpf" ] && break
	_topo_sleep 0.2
done
tap_is "$(dp_engines)" "veth1=bpf veth2=bpf" "roceccd --datapath bpf drives veth1 and veth2"

# --- parameters ------------------------------------------------------------------

ok=1
for h in 1 2; do "$R" param profile dev "veth$h" mlx5 || ok=0; done
scale=$(incast_scale mlx5 20 time veth1) || ok=0
for h in 1 2; do
	# shellcheck disable=SC2086
	"$R" param set dev "veth$h" $scale || ok=0
done
tap_ok $((1 - ok)) "param profile mlx5 and set ($scale) on both"
read -r _ _ v _ < <("$R" param show dev veth2 np_min_time_between_cnps)
tap_is "$v" 20000 "param show reads back np_min_time_between_cnps (4 us x 5000)"
tap_is "$("$R" -j param show dev veth1 | jq -r 'if type == "array" then .[0].engine else .engine end')" bpf "param show -j names the engine"

# --- traffic -----------------------------------------------------------------------

dstat() { "$R" -j -s dev show "$1" | jq -r ".[0].stats.$2"; }
fq_throttled() { tc -s -j qdisc show dev veth1 | jq -r '[.[] | select(.kind == "fq") | .throttled] | add // 0'; }
topo_counters >"$work/b"
thr0=$(fq_throttled)
port=18950
dp_rg_server rxe2 "$port" 1 || tap_bail "rocegen server"
srv=$DP_SRV_PID
DP_RG_PEER=$(topo_ip 2) dp_rg_client 1 "$port" "$work/c.json" --cpu 0 \
	--op write --size 16K --depth 4 --duration "${dur}s" >"$work/c.out" 2>&1 &
cli=$!
# the flow while it runs: three dumps from the third second on
_topo_sleep 3
for i in 1 2 3; do
	"$R" -j flow show dev veth1 >"$work/f$i.json"
	_topo_sleep 0.5
done
wait "$cli" "$srv"
_topo_sleep 1	# the last CE marks answered, a poll of roceccd
topo_counters >"$work/a"
thr1=$(fq_throttled)
"$R" -j -s dev show veth1 >"$work/d1.json"
"$R" -j -s dev show veth2 >"$work/d2.json"
rd_get metrics >"$work/m"

read -r rq msgs errs mbit el < <(jq -r '"\(.qps[0].remote_qpn) \(.total.messages) \(.total.errors) \(.total.mbit) \(.elapsed_s)"' "$work/c.json")
d() { topo_delta "$work/b" "$work/a" "$1"; }
s() { jq -r ".[0].stats.$2" "$work/d$1.json"; }
retry=$(d rxe1.completer_retry_err)
drops=$(($(d swp1.rx_dropped) + $(d swp2.tx_dropped)))
tap_diag "rocegen: $msgs messages in $el s, $mbit Mb/s, errors $errs; switch drops $drops; rxe1 retries $retry"
tap_diag "host 2: np_cnp_sent $(s 2 np_cnp_sent) ce_answered $(s 2 ce_answered) ce_unanswered $(s 2 ce_unanswered) cnp_tx_errors $(s 2 cnp_tx_errors); host 1: rp_cnp_handled $(s 1 rp_cnp_handled) rp_cnp_ignored $(s 1 rp_cnp_ignored) pacing_delayed $(s 1 pacing_delayed) pacing_capped $(s 1 pacing_capped) pacing_ackreq $(s 1 pacing_ackreq) malformed $(s 1 malformed); fq throttled $((thr1 - thr0))"
tap_cmp "${msgs:-0}" -gt 0 "rocegen completed messages"
tap_cmp "${errs:-1}" -eq 0 "no completion errors"
tap_cmp "$drops" -eq 0 "no drops at the switch"
tap_cmp "$retry" -le "$retry_max" "rxe retries $retry (TCG noise allowance $retry_max)"
tap_cmp "$(d rxe1.retry_exceeded_err)" -eq 0 "no QP ran out of retries"
tap_cmp "$(s 2 np_cnp_sent)" -gt 0 "host 2 sent CNPs for the CE marks"
tap_cmp "$(s 2 ce_answered)" -gt 0 "... ce_answered counts them"
tap_cmp "$(s 2 cnp_tx_errors)" -eq 0 "... none failed"
most=$(awk -v t="$el" 'BEGIN { printf "%d", (t + 1.5) / 0.02 + 2 }')
tap_cmp "$(s 2 np_cnp_sent)" -le "$most" "... at most one per 20 ms window ($most in $el s and the tail)"
tap_cmp "$(s 1 rp_cnp_handled)" -gt 0 "host 1 handled the CNPs (valid ICRC, from its peer)"
tap_cmp "$(s 1 rp_cnp_handled)" -le "$(s 2 np_cnp_sent)" "... no more than host 2 sent"

# host 1's flow to host 2's QP while it ran, in the module's keys
flow() { jq -r --argjson r "${rq:-0}" "[.[] | select(.rqpn == \$r)][0].$2 // empty" "$1"; }
tap_diag "flow: $(jq -c --argjson r "${rq:-0}" '[.[] | select(.rqpn == $r)][0]' "$work/f3.json")"
tap_is "$(flow "$work/f3.json" engine)" bpf "flow show -j: the flow to rocegen's remote QP, engine bpf"
tap_is "$(jq -s length "$work/f3.json")" 1 "flow show -j: one JSON document"
tap_cmp "$(flow "$work/f3.json" limited)" -eq 1 "the flow is limited (it took a CNP)"
tap_cmp "$(flow "$work/f3.json" cnp_handled)" -gt 0 "the flow counts its CNPs"
min=$(for i in 1 2 3; do flow "$work/f$i.json" rate_kbps; done | sort -n | head -1)
tap_diag "rate_kbps while running: $(for i in 1 2 3; do flow "$work/f$i.json" rate_kbps; done | tr '\n' ' ')(ceiling 20000)"
tap_cmp "${min:-20000}" -lt 20000 "the rate was cut below the 20 Mb/s ceiling while it ran"
tap_cmp "$(flow "$work/f3.json" pacing_delayed)" -gt 0 "the flow's packets got EDT departure times"
# the QP's ACK timeout, learned from rxe_modify_qp() (default 14, never
# raised here), and its budget: pacing.h's at HZ 250, 20 %: 16 jiffies
# less one, 60 ms, a fifth
tap_is "$(flow "$work/f3.json" budget_known)/$(flow "$work/f3.json" qp_timeout)/$(flow "$work/f3.json" pacing_budget_us)" \
	"1/14/12000" "the flow learned its QP's ACK timeout 14: budget 12000 us (not the default 8000)"
# and its peer, from the address vector rxe_modify_qp() got at RTR (not
# from packets, which anyone can send: pairing.c): host 2 and its QP
grep -Eq "rxe1 QP [0-9]+: peer $(topo_ip 2):${rq:-x} from its address vector" "$work/rd.log"
tap_ok $? "host 1's QP took its peer $(topo_ip 2):$rq from its address vector" ||
	tap_diag "$(grep -E 'rxe1 QP|address vector' "$work/rd.log" | tail -5)"
tap_cmp "$(flow "$work/f3.json" pacing_ackreq)" -gt 0 "at the rate floor pacing asked for ACKs (flow pacing_ackreq)"
tap_cmp "$(s 1 pacing_ackreq)" -ge "$(flow "$work/f3.json" pacing_ackreq)" "... counted for veth1 too (pacing_ackreq $(s 1 pacing_ackreq))"
tap_cmp "$(s 1 malformed)" -eq 0 "... every AckReq set and its ICRC mended (no malformed)"
tap_cmp "$(s 1 tx_not_rxe)" -eq 0 "every packet rxe sent was taken for rxe's (tx_not_rxe 0)"
pct() { awk -v c="${1:-0}" -v p="${2:-0}" 'BEGIN { printf "%.1f", p ? 100 * c / p : 0 }'; }
tap_diag "at the rate floor ($(flow "$work/f3.json" rate_kbps) kb/s) any budget binds: capped $(flow "$work/f3.json" pacing_capped) of $(flow "$work/f3.json" packets) packets ($(pct "$(flow "$work/f3.json" pacing_capped)" "$(flow "$work/f3.json" packets)") %)"

tap_cmp "$((thr1 - thr0))" -gt 0 "fq held flows back until their departure time (throttled)"

# the text view and /metrics
out=$("$R" -s dev show veth2)
grep -q "veth2.*bpf" <<<"$out" && grep -q "np_cnp_sent $(s 2 np_cnp_sent)" <<<"$out" &&
	grep -q "ce_answered" <<<"$out"
tap_ok $? "rocecc -s dev show veth2: engine and counters" || tap_diag "$out"
tap_is "$(rd_metric "$work/m" rocecc_dp_np_cnp_sent_total 'netdev="veth2",engine="bpf"')" "$(s 2 np_cnp_sent)" \
	"/metrics: rocecc_dp_np_cnp_sent_total{veth2,bpf} = dev show's"
tap_is "$(rd_metric "$work/m" rocecc_dp_rp_cnp_handled_total 'netdev="veth1",engine="bpf"')" "$(s 1 rp_cnp_handled)" \
	"/metrics: rocecc_dp_rp_cnp_handled_total{veth1,bpf} = dev show's"
tap_is "$(rd_metric "$work/m" rocecc_dp_ce_unanswered_total 'netdev="veth2",engine="bpf"')" "$(s 2 ce_unanswered)" \
	"/metrics: the engine's own rocecc_dp_ce_unanswered_total"
tap_is "$(rd_metric "$work/m" rocecc_dp_rp_cnp_spoofed_total 'netdev="veth1",engine="bpf"')" "$(s 1 rp_cnp_spoofed)" \
	"/metrics: rocecc_dp_rp_cnp_spoofed_total{veth1,bpf}, the module's name, = dev show's"
tap_is "$(rd_metric "$work/m" rocecc_bpf_errors_total)" 0 "/metrics: no BPF datapath errors"

# --- the two engines never drive one netdev ---------------------------------------

tap_run "rocecc.ko loads beside the BPF datapath" insmod "$DP_KO"
out=$("$R" dev attach veth2 2>&1)
st=$?
[ $st -ne 0 ] && grep -q "BPF datapath" <<<"$out"
tap_ok $? "rocecc dev attach refuses veth2, naming the BPF datapath" || tap_diag "status $st: $out"
# past the CLI's checks, straight to the module's generic netlink family
out=$("$DP_PY" "$DP_LIB/genl_attach.py" veth2 2>&1)
st=$?
[ $st -eq 16 ] && grep -q "rocecc: the BPF datapath drives this device" <<<"$out"
tap_ok $? "rocecc.ko itself refuses veth2 (EBUSY), naming the BPF datapath" || tap_diag "status $st: $out"
sent=$(s 2 np_cnp_sent)
# the QP learner's fexit link, pinned: it outlives roceccd
lnk() { bpftool -j link show pinned "$DP_PINS/link_qp_modify" 2>/dev/null | jq -r '.id // empty'; }
fexits() { bpftool -j link show | jq '[.[] | select(.type == "tracing" and .attach_type == "trace_fexit")] | length'; }
lid=$(lnk)
rd_stop
tap_cmp $? -eq 0 "roceccd exits 0"
tap_is "$(dp_engines)" "" "roceccd stopped: no netdev driven"

# --- the QP learner while no roceccd runs ----------------------------------------
# A QP set up now gets its dp_qps entry (its peer from its address vector,
# DCQCN_QP_AV) from the pinned learner, and loses it when destroyed.
t0=$SECONDS
tap_cmp "${lid:-0}" -gt 0 "the QP learner's fexit link stays pinned with roceccd stopped (link ${lid:-none})"
ifx1=$(cat /sys/class/net/veth1/ifindex)
qps_av() {
	bpftool -j map dump pinned "$DP_PINS/dp_qps" 2>/dev/null | jq -r --argjson i "$ifx1" \
		'.[] | (.formatted // .) | select(.key.ifindex == $i and (.value.flags / 2 | floor) % 2 == 1) | "\(.key.lqpn) \(.value.rqpn)"'
}
dp_rg_server rxe2 18951 1 || tap_bail "rocegen server"
srv=$DP_SRV_PID
DP_RG_PEER=$(topo_ip 2) dp_rg_client 1 18951 "$work/q.json" --op write --size 4K \
	--depth 1 --duration 2s >"$work/q.out" 2>&1 &
cli=$!
av=
for _ in $(seq 30); do
	av=$(qps_av | head -1)
	[ -n "$av" ] && break
	_topo_sleep 0.1
done
wait "$cli" "$srv"
want=$(jq -r '"\(.qps[0].local_qpn) \(.qps[0].remote_qpn)"' "$work/q.json")
tap_is "$av" "$want" "a QP set up while roceccd is stopped: its dp_qps entry (DCQCN_QP_AV) from the pinned learner"
tap_is "$(qps_av)" "" "... gone with the QP"
tap_diag "the learner while roceccd is stopped: $((SECONDS - t0)) s"
tap_run "the module takes veth1" "$R" dev attach veth1
rd_start "$work/rd.log" -c "$work/rd.conf" --datapath bpf -L debug
rd_wait_ready 2 30 || tap_diag "$(tail "$work/rd.log")"
for _ in $(seq 50); do
	[ "$(dp_engines)" = "veth1=module veth2=bpf" ] && break
	_topo_sleep 0.2
done
tap_is "$(dp_engines)" "veth1=module veth2=bpf" "restarted roceccd drives veth2 only"
grep -q "veth1 is driven by rocecc.ko" "$work/rd.log"
tap_ok $? "... and says veth1 is rocecc.ko's" || tap_diag "$(grep -i veth1 "$work/rd.log" | tail -3)"
tc filter show dev veth1 ingress | grep -q dcqcn_ || tc filter show dev veth1 egress | grep -q dcqcn_
tap_ok $((1 - $?)) "no BPF datapath filter on veth1"
tap_cmp "$(dstat veth2 np_cnp_sent)" -ge "$sent" "veth2 kept its counters across the restart ($sent)"
for _ in $(seq 25); do
	grep -q "QP learner adopted from the pins" "$work/rd.log" && break
	_topo_sleep 0.2
done
grep -q "QP learner adopted from the pins" "$work/rd.log"
tap_ok $? "the restarted roceccd adopted the pinned QP learner" ||
	tap_diag "$(grep -i 'learner' "$work/rd.log" | tail -3)"
tap_is "$(lnk)/$(fexits)" "$lid/1" "... the same link, one fexit attached (not two)"
rd_stop
tap_cmp $? -eq 0 "roceccd exits 0"
tap_is "$(lnk)" "$lid" "the QP learner stays pinned after the exit"
tap_run "the module lets veth1 go and unloads" eval "'$R' dev detach veth1 && rmmod rocecc"
# the engine off for good: the learner goes with it, pins and link
t0=$SECONDS
rd_start "$work/rd.log" -c "$work/rd.conf" --datapath none
rd_wait_ready 3 30 || tap_diag "$(tail -3 "$work/rd.log")"
rd_stop
tap_is "$(ls "$DP_PINS" | grep -c -e qp_attr -e link_qp)/$(fexits)" "0/0" \
	"roceccd --datapath none unpins and detaches the QP learner"
tap_diag "roceccd --datapath none, start to exit: $((SECONDS - t0)) s"
tap_done
