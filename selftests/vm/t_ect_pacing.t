#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The RP's egress datapath on a sender (host 1 -> host 2, no bottleneck),
# for both engines (lib/dp.sh): rocecc.ko, and the BPF datapath under
# roceccd --datapath bpf (t_ect_pacing_bpf.t). Points marked (module) are
# the module's alone, and a TAP skip on bpf.
#  - attach refuses a device without fq, naming the command to run (the
#    module's rocecc dev attach; roceccd's log, which attaches the BPF
#    engine once fq is there);
#  - a parameter out of its range is refused by rocecc param, naming it;
#  - (module) module parameters out of their ranges are refused, and a
#    pacing_max_delay_us beyond an attached device's fq horizon too;
#  - RoCE traffic sent Not-ECT leaves marked ECT(0) with a valid ICRC, and
#    rxe on the receiver accepts every packet (rcvd = sent, no duplicates);
#  - rp_max_rate paces a flow to its rate (steady-state goodput within 10%
#    of the rate's payload share), IPv4 and IPv6, with no fq drops, no rxe
#    send errors and no completion errors;
#  - a local user (nobody) sending RoCEv2-shaped UDP to a paced QP's remote
#    QPN and to made-up QPNs creates no flow and does not slow the QP; the
#    packets are counted in tx_not_rxe; (module) flow dumps are readable by
#    nobody and flagged NLM_F_DUMP_INTR when a flow was made during them
#    (the BPF engine's pinned maps are root's, its dumps a map walk);
#  - 64 KB messages at 4 Mb/s with the default ACK timeout 14: rxe asks
#    for an ACK once per message (131 ms at that rate, more than the 67 ms
#    timeout); the module sets AckReq on packets in between so that no
#    two leave more than the budget (20 % of the timeout, 12 ms) apart
#    (pacing_ackreq), the rate is kept (goodput within 10 %), nothing is
#    capped and nothing times out; (module) without asking
#    (pacing_ack_req=0) the cap binds instead and the flow runs faster than
#    its rate; with neither (pacing_budget_pct=1000) the same run times
#    out;
#  - the engine leaves veth1 (the module: rocecc dev detach; BPF: roceccd
#    stops) while a QP is paced: every message completes, no packet
#    overtakes the ones fq still held (no out_of_seq_request on the
#    receiver, no sequence error NAK), no duplicates beyond TCG's retries.
# rxe under TCG retransmits now and then by itself (a vCPU descheduled for
# longer than the 67 ms ACK timeout); retries are printed, and at most
# $ROCECC_DP_RETRY_MAX (2) per run are tolerated where none are expected.
# Run: scripts/vm --test selftests/vm/t_ect_pacing.t

lib=$(dirname "$0")/lib
. "$lib/tap.sh"
. "$lib/topo.sh"
. "$lib/dp.sh"
tap_require_vm

retry_max=${ROCECC_DP_RETRY_MAX:-2}
work=$(mktemp -d /tmp/t_ect.XXXXXX)
trap 'topo_teardown; dp_cleanup; rm -rf "$work"' EXIT
R=$DP_CLI

tap_run "ib_core, rdma_rxe load (engine $DP_ENGINE)" dp_load || tap_bail "no $DP_ENGINE engine"
tap_run "2-host topology comes up" topo_setup 2 || tap_bail "no topology"

# --- attach needs fq ---------------------------------------------------------

if [ "$DP_ENGINE" = module ]; then
	out=$("$R" dev attach veth1 2>&1)
	st=$?
	[ $st = 1 ] && grep -q "tc qdisc replace dev veth1 root fq" <<<"$out"
	tap_ok $? "attach without fq is refused and says what to run" || tap_diag "status $st: $out"
	tap_run "fq on veth1 and veth2" dp_fq 1 2
	tap_run "attach veth1 and veth2" dp_attach 1 2
else
	# roceccd ([module] fq = no) refuses, logs why and tries every poll
	DP_ATTACH_NOWAIT=1 dp_attach 1 2 || tap_bail "roceccd did not start"
	for _ in $(seq 50); do
		grep -q "fq needed (tc qdisc replace dev veth1 root fq" "$DP_RD_LOG" && break
		_topo_sleep 0.2
	done
	grep -q "fq needed (tc qdisc replace dev veth1 root fq" "$DP_RD_LOG" &&
		[[ $(dp_engines) != *veth1* ]]
	tap_ok $? "attach without fq is refused and says what to run" || tap_diag "$(tail -n 3 "$DP_RD_LOG"); driven: $(dp_engines)"
	tap_run "fq on veth1 and veth2" dp_fq 1 2
	for _ in $(seq 50); do
		[ "$(dp_engines)" = "veth1=bpf veth2=bpf" ] && break
		_topo_sleep 0.2
	done
	tap_is "$(dp_engines)" "veth1=bpf veth2=bpf" "roceccd attaches veth1 and veth2 once fq is there"
fi
out=$("$R" param set dev veth1 rp_rate_divisor 0 2>&1)
st=$?
[ $st -ne 0 ] && grep -q rp_rate_divisor <<<"$out"
tap_ok $? "rocecc param set refuses a value out of range, naming the parameter" || tap_diag "status $st: $out"

# --- module parameters: ranges, and attach's fq test after attach ---------------

mp=/sys/module/rocecc/parameters
refused() {	# PARAM VALUE: the write fails and the parameter keeps its value
	local was
	was=$(cat "$mp/$1")
	! echo "$2" 2>/dev/null >"$mp/$1" && [ "$(cat "$mp/$1")" = "$was" ]
}
if dp_module_only "module parameters' ranges, pacing_max_delay_us against fq's horizon"; then
	for pv in "pacing_budget_pct 0" "pacing_budget_pct 1001" "flow_idle_ms 0" \
		"flow_max 0" "flow_max 2000000" "qp_max x" "pacing_max_delay_us 10000001" \
		"pacing_default_budget_us 0" "qp_revalidate_ms 99" "qp_unresolved_max 65537"; do
		# shellcheck disable=SC2086
		tap_run "out of range refused, value kept: $pv" refused $pv
	done
	# fq's horizon 2 s drops what would leave later: pacing_max_delay_us may
	# not pass it once attached either (attach checked the 1 s it found).
	tap_run "fq horizon 2 s on veth1 (attached)" tc qdisc change dev veth1 root fq horizon 2s
	tap_run "pacing_max_delay_us 3 s refused with veth1's fq horizon at 2 s" refused pacing_max_delay_us 3000000
	dmesg | tail -n 5 | grep -q "pacing_max_delay_us 3000000 refused: fq on veth1 drops packets beyond its horizon (2000000 us)"
	tap_ok $? "... and the kernel log says why" || tap_diag "$(dmesg | tail -n 3)"
	echo 1500000 >"$mp/pacing_max_delay_us"
	tap_cmp "$(cat "$mp/pacing_max_delay_us")" -eq 1500000 "pacing_max_delay_us 1.5 s is taken"
	echo 1000000 >"$mp/pacing_max_delay_us"
	tap_run "fq horizon back to 10 s" tc qdisc change dev veth1 root fq horizon 10s
fi

# Steady goodput (Mbit/s) out of a rocegen report's throughput series, one
# measure for every "steady goodput" here: the bytes of the whole messages
# completed in the middle 60% of the run (by time), from the first sample
# there that saw a completion to the last, over the time between the two.
# A sample holds what completed since the previous one, at its t_ms, and
# its mbit is over its real span (rocegen's 10 ms tick: a late tick makes
# a span longer and the next, realigned, shorter; spans of 1 to 20 ms in
# 6.1 runs). The mean of the middle 60% of the samples' mbit, which this
# replaces, weighted each sample alike whatever its span: with 64 KB
# messages at 4 Mb/s (one per 137 ms) the samples that saw one read 31
# to 67 Mb/s in one run whose whole-run goodput was 3.83, and the mean
# came out 3.62; a completion in a 2 ms sample reads 262 Mb/s, 1.1 Mb/s
# more on a mean of 240 samples: CI's "steady" 4.32 for a whole run at
# 3.83 Mb/s. The same runs measured this way: 3.83 (64 KB at 4 Mb/s),
# 9.60 and 4.79 (16 KB at 10 and 5 Mb/s; whole run 9.56 and 4.78). A
# stall delaying the window's first or last completion by d moves it by
# d / 2.3 s, so 10 % holds stalls of 200 ms there.
jq_steady='def steady: . as $s | ($s[-1].t_ms // 0) as $T |
	[range($s | length) | {t: $s[.].t_ms,
	  kbit: ($s[.].mbit * ($s[.].t_ms - (if . > 0 then $s[. - 1].t_ms else 0 end)))}
	 | select(.t >= 0.2 * $T and .t <= 0.8 * $T and .kbit > 0)] as $c |
	if ($c | length) < 2 then 0
	else ([$c[1:][].kbit] | add) / ($c[-1].t - $c[0].t) end;'

# One rocegen run from host 1 to host 2. Sets: gp (steady goodput, Mbit/s,
# jq_steady above), mbit, msgs, errs, retry,
# seqerr, senderr, dups, sent1, rcvd2, fqdrops, lqpn (rocegen's QP), the
# flow dump in $work/flow.json and the run's flow's fields in FLOW (by
# rocegen's QP: the previous run's flow is still there until flow_idle_ms
# has passed), all read by one jq (each start costs ~0.7 s under TCG).
port=18600
declare -A FLOW
run() {
	local cj=$work/c.json fam=${FAM:-4}
	local -a ga=()
	port=$((port + 1))
	[ "$fam" = 6 ] && ga=(--gid-index "$(topo_gid_index 2 6)")
	topo_rxe_counters >"$work/b"	# rxe's alone: the switch's are not used here
	tc -s -j qdisc show dev veth1 >"$work/qb"
	dp_rg_server rxe2 "$port" 1 "${ga[@]}" || return 1
	[ "$fam" = 6 ] && ga=(--gid-index "$(topo_gid_index 1 6)")
	DP_RG_PEER=$(topo_ip 2) dp_rg_client 1 "$port" "$cj" "${ga[@]}" "$@" >"$work/c.out" 2>&1
	wait "$DP_SRV_PID"
	dp_flow_json veth1 >"$work/flow.json"
	topo_rxe_counters >"$work/a"
	tc -s -j qdisc show dev veth1 >"$work/qa"
	local k v
	FLOW=()
	{
		read -r gp mbit msgs errs lqpn fqdrops
		while read -r k v; do FLOW[$k]=$v; done
	} < <(jq -rn --slurpfile c "$cj" --slurpfile f "$work/flow.json" \
		--slurpfile qb "$work/qb" --slurpfile qa "$work/qa" "$jq_steady"'$c[0] as $r | $r.qps[0].local_qpn as $q |
		([($r.qps[0].throughput | steady),
		  $r.total.mbit, $r.total.messages, $r.total.errors, $q,
		  $qa[0][0].drops - $qb[0][0].drops] | map(tostring) | join(" ")),
		([($f[0] // [])[] | select(.lqpn == $q)] | last // {} | to_entries[] |
		 select(.value | scalars) | "\(.key) \(.value)")')
	retry=$(topo_delta "$work/b" "$work/a" rxe1.completer_retry_err)
	seqerr=$(topo_delta "$work/b" "$work/a" rxe1.rcvd_seq_err)
	senderr=$(topo_delta "$work/b" "$work/a" rxe1.send_err)
	dups=$(topo_delta "$work/b" "$work/a" rxe2.duplicate_request)
	sent1=$(topo_delta "$work/b" "$work/a" rxe1.sent_pkts)
	rcvd2=$(topo_delta "$work/b" "$work/a" rxe2.rcvd_pkts)
}

# flow FIELD: a field of the run's flow in the last dump
flow() { echo "${FLOW[$1]:-null}"; }

# --- ECT(0) marking, and rxe accepts the marked packets ------------------------

tap_diag "[${SECONDS} s] ECT(0)"
"$R" param set dev veth1 rp_max_rate 20
ip netns exec "$TOPO_NS" tcpdump -i swp1 -w "$work/ect.pcap" -c 600 -nn \
	'udp dst port 4791' >/dev/null 2>&1 &
cap=$!
run --size 16K --count 100 || tap_bail "rocegen did not run"
# tcpdump exits by itself after 600 of the 1600 packets; 0.5 s at most
for _ in 1 2 3 4 5; do kill -0 "$cap" 2>/dev/null || break; _topo_sleep 0.1; done
kill "$cap" 2>/dev/null
wait "$cap" 2>/dev/null
sum=$(dp_pcap "$work/ect.pcap" "$(topo_ip 1)")
tap_diag "capture on swp1 (from host 1): $sum"
tap_cmp "$(dp_kv "$sum" data)" -gt 100 "captured RoCE data packets of host 1"
tap_cmp "$(dp_kv "$sum" notect)" -eq 0 "none left Not-ECT"
tap_cmp "$(dp_kv "$sum" ect0)" -eq "$(dp_kv "$sum" roce)" "all are ECT(0)"
tap_cmp "$(dp_kv "$sum" icrc_bad)" -eq 0 "all have a valid ICRC"
tap_diag "rocegen: $msgs messages, errors $errs; rxe1 sent $sent1, rxe2 rcvd $rcvd2, duplicates $dups, retries $retry"
tap_cmp "$msgs" -eq 100 "all 100 messages completed"
tap_cmp "$errs" -eq 0 "no completion errors"
tap_cmp "$rcvd2" -eq "$sent1" "rxe2 accepted every packet rxe1 sent"
ect=$("$R" -j -s dev show veth1 | jq '.[0].stats.ect_marked')
tap_cmp "$ect" -ge "$sent1" "ect_marked counts them ($ect)"

# --- pacing to rp_max_rate -------------------------------------------------------

# Payload share of the IP bytes of a 16 KB WRITE (16 packets of 1 KB MTU,
# 44 or 64 header bytes each, one RETH): 16384/17104 (IPv4), 16384/17424.
pace() {
	local rate=$1 fam=$2 share want lo hi
	tap_diag "[${SECONDS} s] pacing at $rate Mb/s, IPv$fam"
	"$R" param set dev veth1 rp_max_rate "$rate"
	FAM=$fam run --size 16K --duration 4s || { tap_ok 1 "rocegen ran"; return; }
	[ "$fam" = 6 ] && share=0.9403 || share=0.9579
	want=$(awk -v r="$rate" -v s="$share" 'BEGIN { printf "%.3f", r * s }')
	tap_diag "goodput steady $gp Mb/s (want $want), whole run $mbit; fq drops $fqdrops, send_err $senderr, retries $retry, seq errors $seqerr, duplicates $dups, errors $errs"
	tap_diag "flow:$(for k in raddr rqpn lqpn rate_kbps packets pacing_delayed pacing_capped pacing_budget_us qp_timeout budget_known; do printf ' %s=%s' "$k" "$(flow "$k")"; done)"
	awk -v g="$gp" -v w="$want" 'BEGIN { exit !(g >= 0.9 * w && g <= 1.1 * w) }'
	tap_ok $? "IPv$fam $rate Mb/s: steady goodput $gp within 10% of $want" 
	tap_cmp "$fqdrops" -eq 0 "IPv$fam $rate Mb/s: no fq drops"
	tap_cmp "$senderr" -eq 0 "IPv$fam $rate Mb/s: no rxe send errors"
	tap_cmp "$errs" -eq 0 "IPv$fam $rate Mb/s: no completion errors"
	tap_cmp "$retry" -le "$retry_max" "IPv$fam $rate Mb/s: retries $retry (TCG noise allowance $retry_max)"
	tap_cmp "$(flow pacing_delayed)" -gt 0 "IPv$fam $rate Mb/s: the flow was paced"
	[ "$(flow budget_known)" = 1 ] && [ "$(flow qp_timeout)" = 14 ] &&
		[ "$(flow pacing_budget_us)" = 12000 ]
	tap_ok $? "IPv$fam $rate Mb/s: budget 12 ms from the QP's timeout 14 (learned by the engine)"
}
pace 10 4
pace 5 4
pace 10 6

# --- a local user's RoCEv2-shaped packets ----------------------------------------

# Any user may send UDP to port 4791 out of an attached device. Such
# packets must neither make flows (and fill flow_max) nor be charged to an
# rxe flow and delay it: only rxe's own QP sockets are tracked, the rest
# is counted in tx_not_rxe. nobody, who may read the module's flow dump
# (the BPF engine's is root's: then root reads it), learns the remote QPN
# of a QP paced at 10 Mb/s and sends 1 KB packets at 800/s out of veth1,
# three in four to that QPN (5 Mb/s), the rest to 64 made-up QPNs.
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"; }
reader=nobody who=nobody
[ "$DP_ENGINE" = module ] || reader=command who=root
tap_diag "[${SECONDS} s] nobody's RoCE-shaped UDP at 800 packets/s while a QP is paced at 10 Mb/s"
"$R" param set dev veth1 rp_max_rate 10
old=$("$R" -j flow show dev veth1 | jq -c '[.[].rqpn]')
dp_stats veth1
nr0=$(dp_stat tx_not_rxe) fl0=$(dp_stat flows)
port=$((port + 1))
topo_rxe_counters >"$work/b"
dp_rg_server rxe2 "$port" 1 || tap_bail "no rocegen server"
DP_RG_PEER=$(topo_ip 2) dp_rg_client 1 "$port" "$work/cf.json" --size 16K --duration 5s >"$work/cf.out" 2>&1 &
cli=$!
rq=
for _ in $(seq 100); do
	rq=$($reader "$R" -j flow show dev veth1 2>/dev/null |
		jq -r --argjson old "$old" '[.[] | select(.packets > 0) | .rqpn] - $old | first // empty')
	[ -n "$rq" ] && break
	_topo_sleep 0.05
done
tap_ok "$([ -n "$rq" ]; echo $?)" "$who reads the new flow's remote QPN from the flow dump ($rq)"
qs=$(for i in $(seq 0 63); do printf '%s,%s,%s,0x%x,' "${rq:-17}" "${rq:-17}" "${rq:-17}" $((0x800000 + i)); done)
nobody "$DP_PY" "$DP_LIB/roce_udp.py" veth1 "$(topo_ip 2)" 800 6 "${qs%,}" >"$work/flood" 2>&1 &
flood=$!
wait "$cli"
wait "$DP_SRV_PID"
wait "$flood"	# it stops by itself, just after the QP
topo_rxe_counters >"$work/a"
dp_flow_json veth1 >"$work/flow.json"
read -r _ fsent _ ffail <"$work/flood"
dp_stats veth1
nr1=$(dp_stat tx_not_rxe) fl1=$(dp_stat flows)
sent1=$(topo_delta "$work/b" "$work/a" rxe1.sent_pkts)
# one jq: steady goodput (jq_steady), the QP's flow's packets, made-up flows
read -r gp fpk fake < <(jq -rn --slurpfile c "$work/cf.json" --slurpfile f "$work/flow.json" \
	--argjson q "${rq:-17}" "$jq_steady"'[($c[0].qps[0].throughput | steady),
	([($f[0] // [])[] | select(.rqpn == $q)] | first | .packets // 0),
	([($f[0] // [])[] | select(.rqpn >= 8388608)] | length)] | map(tostring) | join(" ")')
tap_diag "nobody: $(cat "$work/flood"); tx_not_rxe +$(dp_stat tx_not_rxe "$nr0"); flows $fl0 -> $fl1 ($fake for made-up QPNs); the QP's flow: $fpk packets of rxe1's $sent1; goodput $gp Mb/s"
tap_cmp "${fsent:-0}" -gt 2000 "nobody sent RoCEv2-shaped UDP out of veth1 (${fsent:-0} packets, ${ffail:-?} refused)"
tap_cmp "$(dp_stat tx_not_rxe "$nr0")" -ge "${fsent:-1}" "tx_not_rxe counts them all (+$(dp_stat tx_not_rxe "$nr0"))"
tap_cmp "$fake" -eq 0 "no flow for any of the 64 made-up QPNs"
tap_cmp "$fl1" -le "$((fl0 + 1))" "the flow count grew by the QP's flow at most ($fl0 -> $fl1)"
tap_cmp "$fpk" -le "$sent1" "the QP's flow counts rxe's packets only ($fpk, rxe1 sent $sent1)"
awk -v g="$gp" 'BEGIN { exit !(g >= 0.9 * 9.579 && g <= 1.1 * 9.579) }'
tap_ok $? "the QP keeps its 10 Mb/s: steady goodput $gp within 10% of 9.579"

# --- flow dumps say when flows came or went during them ---------------------------

# A dump is walked in parts as the reader reads; the module flags one
# during which a flow was inserted or removed (NLM_F_DUMP_INTR), so that
# the reader knows it may have missed or repeated flows. nobody's dump is
# requested, a new QP's flow is made, then the rest is read.
tap_diag "[${SECONDS} s] NLM_F_DUMP_INTR"
dump_during() {	# CMD...: a paused dump around CMD; prints flow_dump.py's line
	local fifo=$work/go pid
	rm -f "$fifo" "$work/dump"
	mkfifo "$fifo"
	nobody "$DP_PY" "$DP_LIB/flow_dump.py" --pause <"$fifo" >"$work/dump" 2>&1 &
	pid=$!
	exec 7>"$fifo"
	for _ in $(seq 200); do grep -q requested "$work/dump" && break; _topo_sleep 0.05; done
	"$@"
	echo go >&7
	exec 7>&-
	wait "$pid"
	tail -n 1 "$work/dump"
}
one_run() {
	port=$((port + 1))
	dp_rg_server rxe2 "$port" 1 && DP_RG_PEER=$(topo_ip 2) dp_rg_client 1 "$port" "$work/c1.json" --size 4K --count 4 >/dev/null 2>&1
	wait "$DP_SRV_PID"
}
if dp_module_only "NLM_F_DUMP_INTR on the module's flow dumps"; then
	# No flow may expire meanwhile (flow_idle_ms: an hour for these dumps).
	echo 3600000 >"$mp/flow_idle_ms"
	quiet=$(dump_during true)
	churn=$(dump_during one_run)
	tap_diag "without a change: $quiet; with a new flow meanwhile: $churn"
	[[ $quiet =~ ^flows\ [1-9][0-9]*\ intr\ 0\ err\ 0$ ]]
	tap_ok $? "a dump with no flow coming or going is not flagged ($quiet)"
	[[ $churn =~ ^flows\ [1-9][0-9]*\ intr\ 1\ err\ 0$ ]]
	tap_ok $? "a dump during which a flow was made says so: NLM_F_DUMP_INTR ($churn)"
fi
n=$(dp_flow_json veth1 | jq length)
dp_stats veth1
tap_cmp "$n" -eq "$(dp_stat flows)" "rocecc flow show lists every flow once ($n, as the flows gauge)"
[ "$DP_ENGINE" = module ] && echo 10000 >"$mp/flow_idle_ms"

# --- the budget: 64 KB messages at 4 Mb/s ------------------------------------------

# 64 KB at 4 Mb/s take 131 ms; steady goodput within 10 % of the payload
# share of 4 Mb/s (64 packets, one RETH: 65536/68372 for IPv4).
want64=$(awk 'BEGIN { printf "%.3f", 4 * 0.9585 }')
tap_diag "[${SECONDS} s] 64 KB messages at 4 Mb/s, asking for ACKs (default)"
"$R" param set dev veth1 rp_max_rate 4
run --size 64K --duration 4s
asked=$(flow pacing_ackreq) capped=$(flow pacing_capped)
tap_diag "asking: goodput steady $gp, whole $mbit Mb/s, retries $retry, duplicates $dups, errors $errs, pacing_ackreq $asked, pacing_capped $capped of $(flow packets) packets"
tap_cmp "$asked" -gt 0 "asking: pacing set AckReq on packets between rxe's ($asked)"
tap_cmp "$capped" -eq 0 "asking: the budget never cut the rate short"
awk -v g="$gp" -v w="$want64" 'BEGIN { exit !(g >= 0.9 * w && g <= 1.1 * w) }'
tap_ok $? "asking: steady goodput $gp within 10% of $want64 (the rate is kept)"
tap_cmp "$retry" -le "$retry_max" "asking: no ACK timeouts beyond TCG noise ($retry)"
tap_cmp "$errs" -eq 0 "asking: no completion errors"
tap_cmp "$rcvd2" -eq "$sent1" "asking: rxe2 accepted every packet (AckReq set, ICRC rewritten)"
on_retry=$retry

# The BPF engine has the two knobs below in its dp_devs map, but no
# module parameter or command sets them.
if dp_module_only "capping and neither: pacing_ack_req=0, pacing_budget_pct=1000 (module parameters)"; then
	tap_diag "[${SECONDS} s] 64 KB messages at 4 Mb/s, not asking (pacing_ack_req=0)"
	echo 0 >/sys/module/rocecc/parameters/pacing_ack_req
	run --size 64K --duration 4s
	capped=$(flow pacing_capped)
	tap_diag "capping: goodput steady $gp, whole $mbit Mb/s, retries $retry, duplicates $dups, errors $errs, pacing_ackreq $(flow pacing_ackreq), pacing_capped $capped of $(flow packets) packets"
	tap_cmp "$capped" -gt 0 "capping: the cap binds (pacing_capped $capped)"
	awk -v g="$gp" -v w="$want64" 'BEGIN { exit !(g > 1.5 * w) }'
	tap_ok $? "capping: the flow runs faster than its rate (steady $gp Mb/s)"
	tap_cmp "$retry" -le "$retry_max" "capping: no ACK timeouts beyond TCG noise ($retry)"

	tap_diag "[${SECONDS} s] 64 KB messages at 4 Mb/s, neither (pacing_budget_pct=1000)"
	echo 1000 >/sys/module/rocecc/parameters/pacing_budget_pct
	run --size 64K --duration 4s
	echo 20 >/sys/module/rocecc/parameters/pacing_budget_pct
	echo 1 >/sys/module/rocecc/parameters/pacing_ack_req
	tap_diag "neither: goodput $mbit Mb/s, retries $retry, duplicates $dups, errors $errs, pacing_capped $(flow pacing_capped)"
	tap_cmp "$retry" -gt "$((on_retry + 3))" "without budget or asking the same run times out ($retry retries vs $on_retry)"
fi

# --- detach while a QP is paced ---------------------------------------------------

# The engine leaves veth1 while rocegen's QP is paced at 10 Mb/s with 16
# messages outstanding, so that fq holds up to a budget of its packets:
# the module by rocecc dev detach veth1, the BPF engine by stopping
# roceccd (its unhook of veth1 and veth2; the clsact qdisc it created
# there stays: deleting it reset the root fq and lost 10 packets in a row
# that fq held, when roceccd still did). From then on rxe's packets are
# no longer paced; had they left at once, they would overtake the held
# ones (pacing.h, "When pacing stops"): the responder counts those as
# out_of_seq_request and NAKs them (rcvd_seq_err on the requester), the
# go-back-N retransmissions are duplicate_request. Detach drains first,
# so the run sees none of that: every message completes, no sequence
# error; duplicates only if TCG's noise made rxe retry.
tap_diag "[${SECONDS} s] the engine leaves veth1 while a QP is paced at 10 Mb/s"
"$R" param set dev veth1 rp_max_rate 10
port=$((port + 1))
topo_rxe_counters >"$work/b"
dp_rg_server rxe2 "$port" 1 || tap_bail "no rocegen server"
DP_RG_PEER=$(topo_ip 2) dp_rg_client 1 "$port" "$work/cd.json" --size 16K --duration 3s >"$work/cd.out" 2>&1 &
cli=$!
_topo_sleep 1.5
dp_flow_json veth1 >"$work/flow.json"
t0=$(date +%s%N)
if [ "$DP_ENGINE" = module ]; then
	"$R" dev detach veth1
else
	rd_stop
fi
st=$? t1=$(date +%s%N)
wait "$cli"
wait "$DP_SRV_PID"
topo_rxe_counters >"$work/a"
read -r msgs posted errs held < <(jq -rn --slurpfile c "$work/cd.json" --slurpfile f "$work/flow.json" \
	'$c[0] as $r | $r.qps[0].local_qpn as $q |
	"\($r.total.messages) \([$r.qps[].posted] | add) \($r.total.errors) \([($f[0] // [])[] | select(.lqpn == $q)] | last | .pacing_delayed // 0)"')
oos=$(topo_delta "$work/b" "$work/a" rxe2.out_of_seq_request)
dups=$(topo_delta "$work/b" "$work/a" rxe2.duplicate_request)
seqerr=$(topo_delta "$work/b" "$work/a" rxe1.rcvd_seq_err)
retry=$(topo_delta "$work/b" "$work/a" rxe1.completer_retry_err)
tap_diag "detach took $(( (t1 - t0) / 1000000 )) ms (status $st); rocegen: ${msgs:-?} of ${posted:-?} messages, errors ${errs:-?}; before it the QP's flow had ${held:-?} packets paced; rxe2 out_of_seq_request $oos, duplicate_request $dups; rxe1 rcvd_seq_err $seqerr, retries $retry"
tap_cmp "$st" -eq 0 "the engine left veth1 during the run"
tap_cmp "${held:-0}" -gt 0 "... while its QP was being paced"
tap_cmp "${msgs:-0}" -gt 0 "... rocegen completed messages"
tap_cmp "${msgs:-0}" -eq "${posted:--1}" "... every one it posted"
tap_cmp "${errs:-1}" -eq 0 "... with no completion errors" || tap_diag "$(dp_rg_why "$work/cd.json" "$work/cd.out")"
tap_cmp "$oos" -eq 0 "... no packet overtook the held ones: no out_of_seq_request on rxe2"
tap_cmp "$seqerr" -eq 0 "... no sequence error NAK for rxe1"
tap_cmp "$retry" -le "$retry_max" "... retries $retry (TCG noise allowance $retry_max)"
[ "$dups" -eq 0 ] || [ "$retry" -gt 0 ]
tap_ok $? "... duplicate requests only after a retry ($dups duplicates, $retry retries)"

# --- unload ------------------------------------------------------------------------

[ "$DP_ENGINE" = module ] && tap_diag "objects: $(dp_objects)"
tap_run "$DP_UNLOAD" dp_unload
[ "$DP_ENGINE" = module ] && tap_diag "$(dmesg | grep 'rocecc: datapath' | tail -n 1)"
tap_done
