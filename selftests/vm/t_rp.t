#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The reaction point against the shared DCQCN core: after a burst of CNPs
# the flow dump shows the state the core predicts, and once CNPs stop the
# rate recovers, timer event by timer event as the core predicts, back to
# the ceiling. Once with the mlx5 profile, once with the paper profile.
#
# Both engines (lib/dp.sh): rocecc.ko (ROCECC_ENGINE=module, the default)
# and the BPF datapath under roceccd --datapath bpf (t_rp_bpf.t), whose
# flow dumps have the same keys and are advanced to the time of the dump
# as the module's are.
#
# Scenario (per profile): 2 hosts, fq, the engine attached; a rocegen flow
# host 1 -> host 2 at 1 Mbit/s (4 KB WRITEs), below every rate the RP takes
# here, and no bottleneck: no queue, no CE, so the only CNPs are the test's.
# A burst of N valid CNPs to the flow's local QP arrives at veth1 as if from
# the wire (lib/roce_inject.py, frames sent into swp1, as t_safety.t does).
# Three flow dumps follow: right after the burst, about 3 timer periods
# later, and 16 periods after the burst (back at the ceiling). Each is
# compared with build/tools/dcqcn_predict, which runs include/rocecc/dcqcn.h
# with the device's own parameter set (rocecc -j param show dev veth1) on
# the same events at the kernel's own times (the dump's last_cut_ns and
# last_cnp_rx_ns, CLOCK_MONOTONIC). Nothing of DCQCN is computed here.
#
# Parameters: the profile, scaled to a 20 Mb/s testbed by the rate rule of
# lib/incast.sh (incast_scale PROFILE 20: rp_max_rate = the profile's
# reference line rate, rp_rate_divisor = D; a 20000 kb/s ceiling for both,
# so the veth's line rate does not enter). Not the "-time" variant: its
# time constants (mlx5: rp_time_reset 1.5 s, rp_dce_tcp_rtt 5 ms, monitor
# period 20 ms; paper: 110 ms, 110 ms, 8 ms) put alpha ticks and the end of
# the monitor period at times a TCG guest cannot place a burst or a dump
# against, and take 20 s to recover (mlx5). Instead four RP constants are
# set on veth1, all legal operator values, so that every event can be
# accounted for:
#  - rp_rate_reduce_monitor_period 10000000 (10 s, the maximum): the first
#    CNP of the burst cuts (and makes the flow rate-limited), every other
#    one falls inside the period and is ignored, however TCG spaces the
#    burst: cuts 1, cnp_handled 1, cnp_ignored N-1 (8 for mlx5, 20 paper);
#  - rp_byte_reset 4294967295 (the maximum, 256 GiB): no byte-counter event
#    (the flow sends about 1 MB);
#  - rp_time_reset 300000 (300 ms): normally no timer event before the
#    first dump (0.1-0.3 s after the cut under TCG), and back to the ceiling
#    from the cut (10010 kb/s) in 14 events, 4.2 s;
#  - rp_dce_tcp_rtt 131071 (131 ms, the maximum): the first alpha tick after
#    the burst keeps alpha at 1023 (a CNP arrived), later ones decay it.
#    The burst must be shorter than this (checked, typically 0.5 ms), so
#    that the ignored CNPs' exact times do not matter: the prediction puts
#    them all at the last one's time.
# What is left to chance is when exactly the kernel took a dump: the dump
# does not say to which time it advanced the RP state. The test brackets
# each dump with CLOCK_MONOTONIC readings (/proc/timer_list "now at") just
# before and after `rocecc -j flow show`, and dcqcn_predict's "window T1
# T2" lists every state the core passes through in that bracket (the state
# at T1, then one per alpha tick or timer event that changes it): the
# dumped rate, target, alpha, cuts, cnp_handled, cnp_ignored, inc_timer,
# inc_byte and limited must equal one of these lines exactly. That is one
# to four lines (alpha ticks every 131 ms, maybe a timer event, in a 0.1-0.4
# s bracket), all listed in the output. Independently of the bracket, each
# recovery dump's rate and target must equal the core's after exactly the
# number of timer events the dump reports (inc_timer), and a prediction
# with one parameter off (rp_gd 10 instead of 11: the cut goes to 10000
# kb/s instead of 10010) must NOT match the first dump: the comparison can
# fail.
# Also asserted: every injected CNP reached the flow (and no other: the
# counts are part of every compared state), the traffic completed without
# errors, and rxe retransmitted nothing: no retry at the sender
# (completer_retry_err, rcvd_seq_err) and no duplicate or out-of-sequence
# request at the receiver. rocegen runs with --timeout 22 (17 s): rxe 6.1
# arms its retransmission timer when it sends and the timer is not
# pending, and never stops it once everything is acknowledged
# (rxe_req.c update_state(), rxe_comp.c COMPST_EXIT; 6.12's
# reset_retry_timer() is the same, rechecked), so a stale timer
# fires one timeout after it was armed and, if a message happens to be in
# flight then, counts a retry and resends it. With 0.27 s and 1.07 s
# timeouts that happened 0-5 times per round here, with message latencies
# of at most 33 ms; with 17 s it cannot fire during a round's ~10 s of
# traffic, and a real loss would still show, as a NAK or as a message that
# does not complete.
# About 20 s per profile under TCG (all in the VM: about 60 s).
# Run: scripts/vm --test selftests/vm/t_rp.t

lib=$(dirname "$0")/lib
. "$lib/tap.sh"
. "$lib/topo.sh"
. "$lib/dp.sh"
. "$lib/incast.sh"
tap_require_vm

PRED=$DP_TOP/build/tools/dcqcn_predict
INJ=("$DP_PY" "$DP_LIB/roce_inject.py")
R=$DP_CLI
work=$(mktemp -d /tmp/t_rp.XXXXXX)
trap 'topo_teardown; dp_cleanup; rm -rf "$work"' EXIT

bneck=20			# Mb/s, the testbed the profiles are scaled to
T_US=300000			# rp_time_reset
RTT_US=131071			# rp_dce_tcp_rtt
QP_TIMEOUT=22			# rocegen --timeout: 4.096 us * 2^22 = 17.2 s (see above)
det="rp_time_reset $T_US rp_dce_tcp_rtt $RTT_US rp_rate_reduce_monitor_period 10000000 rp_byte_reset 4294967295"
# The keys compared: everything of the RP the dump shows.
keys=rate_kbps,target_kbps,alpha,cuts,cnp_handled,cnp_ignored,inc_timer,inc_byte,limited
rxe_keys="1:completer_retry_err 1:rcvd_seq_err 2:duplicate_request 2:out_of_seq_request"

[ -x "$PRED" ] || tap_bail "no $PRED: run make"

# mono_now VAR: CLOCK_MONOTONIC in ns (the clock of the flow dump's times and
# of the RP's lazy evaluation), read from /proc/timer_list without a fork.
mono_now() {
	local l
	while IFS= read -r l; do
		if [[ $l == "now at "* ]]; then
			l=${l#now at }
			printf -v "$1" '%s' "${l%% *}"
			return 0
		fi
	done </proc/timer_list
	return 1
}

# sleep_until NS: sleep until CLOCK_MONOTONIC reaches NS.
sleep_until() {
	local now d
	mono_now now || return 1
	d=$(($1 - now))
	[ "$d" -gt 0 ] || return 0
	_topo_sleep "$((d / 1000000000)).$(printf %09d $((d % 1000000000)))"
}

# dump TAG: the flow dump of veth1, bracketed by clock readings: the kernel
# advanced the RP state to a time in [dtb[TAG], dta[TAG]].
declare -A dtb dta
dump() {
	local b a
	mono_now b
	dp_flow_json veth1 >"$work/$1.json"
	mono_now a
	dtb[$1]=$b dta[$1]=$a
}

# states LQPN TAG...: the flow's RP state in each dump, into st[TAG] ("key=value
# ..." in the order of $keys), and its cut[TAG], lastrx[TAG] (ns). One jq.
declare -A st cut lastrx
states() {
	local q=$1 tag line files=()
	shift
	for tag in "$@"; do files+=("$work/$tag.json"); done
	while IFS=$'\t' read -r line; do
		tag=$1
		shift
		IFS=$'\t' read -r "st[$tag]" "cut[$tag]" "lastrx[$tag]" <<<"$line"
	done < <(jq -r --argjson q "$q" '
		[.[] | select(.lqpn == $q)] | first // {} |
		["rate_kbps=\(.rate_kbps) target_kbps=\(.target_kbps) alpha=\(.alpha) cuts=\(.cuts) cnp_handled=\(.cnp_handled) cnp_ignored=\(.cnp_ignored) inc_timer=\(.inc_timer) inc_byte=\(.inc_byte) limited=\(.limited)",
		 .last_cut_ns, .last_cnp_rx_ns] | map(tostring) | @tsv' "${files[@]}")
}

# kv "k=v ..." KEY VAR: VAR = the value of KEY (no fork).
kv() {
	local w
	printf -v "$3" '%s' ""
	for w in $1; do
		[ "${w%%=*}" = "$2" ] && { printf -v "$3" '%s' "${w#*=}"; return 0; }
	done
	return 1
}

# lap [LABEL]: append "LABEL SECONDS" (since the previous lap, to 0.1 s) to
# tm; without LABEL just start counting. No fork.
_lap_t=
lap() {
	local now=${EPOCHREALTIME/./}
	[ -n "${1:-}" ] && tm+=" $1 $(((now - _lap_t) / 1000000)).$(((now - _lap_t) / 100000 % 10))"
	_lap_t=$now
}

# in_lines LINE TEXT: is LINE one of the lines of TEXT (no fork)?
in_lines() {
	[[ $'\n'$2$'\n' == *$'\n'"$1"$'\n'* ]]
}

diag_lines() {	# PREFIX TEXT: one diagnostic per line of TEXT
	local l
	while IFS= read -r l; do echo "# $1$l"; done <<<"$2"
}

# predict [NAME=VALUE...] -- EVENTS: dcqcn_predict on veth1's parameters.
predict() {
	local ov=()
	while [ "$1" != -- ]; do ov+=("$1"); shift; done
	"$PRED" -P "$params" -o "$keys" "${ov[@]}" -e "$2"
}

# rxe_snap VAR: the retransmission counters of $rxe_keys, "H:NAME=V ...".
rxe_snap() {
	local k v out=
	for k in $rxe_keys; do
		read -r v <"/sys/class/infiniband/rxe${k%%:*}/ports/1/hw_counters/${k#*:}" || v=x
		out+="$k=$v "
	done
	printf -v "$1" '%s' "$out"
}
rxe_delta() {	# A B: rxe_out = "rxeH.NAME +D ...", rxe_sum = the sum of the D
	local k a b
	rxe_out="" rxe_sum=0
	for k in $rxe_keys; do
		kv "$1" "$k" a
		kv "$2" "$k" b
		rxe_out+="rxe${k%%:*}.${k#*:} +$((b - a)) "
		rxe_sum=$((rxe_sum + b - a))
	done
}

tap_run "ib_core, rdma_rxe load (engine $DP_ENGINE)" dp_load || tap_bail "no $DP_ENGINE engine"
tap_run "2-host topology comes up" topo_setup 2 || tap_bail "no topology"
tap_run "fq on veth1, veth2" dp_fq 1 2
tap_run "attach veth1, veth2" dp_attach 1 2 || tap_bail "attach failed"
mac_h1=$(cat /sys/class/net/veth1/address)
mac_s1=$(ip netns exec "$TOPO_NS" cat /sys/class/net/swp1/address)
_m=
mono_now _m
tap_ok $? "CLOCK_MONOTONIC readable from /proc/timer_list ($_m ns)" ||
	tap_bail "no clock"

port=18950
# round PROFILE N: the whole scenario with N CNPs in the burst.
round() {
	local prof=$1 n=$2 scale h q srv cli cands ceil wrong k v r1 want ev
	local t0 tl tag x0 x1 x2 x3 x4 msgs errs lat tm=

	tap_diag "[${SECONDS} s] profile $prof, a burst of $n CNPs"
	lap
	scale=$(incast_scale "$prof" "$bneck")
	setup() {
		for h in 1 2; do
			"$R" param profile dev "veth$h" "$prof" || return 1
			# shellcheck disable=SC2086
			"$R" param set dev "veth$h" $scale || return 1
		done
		# shellcheck disable=SC2086
		"$R" param set dev veth1 $det &&
			"$R" -j param show dev veth1 >"$work/$prof.params.json"
	}
	tap_run "$prof: profile on veth1, veth2, scaled to $bneck Mb/s ($scale); veth1: $det" setup ||
		return 1
	params=$work/$prof.params.json
	lap setup
	kv "$(predict -- "advance 0")" rate_kbps ceil
	tap_diag "$prof: the core's ceiling for this set: $ceil kb/s"

	port=$((port + 1))
	dp_rg_server rxe2 "$port" 1 || { tap_ok 1 "$prof: rocegen server"; return 1; }
	srv=$DP_SRV_PID
	timeout 120 "$DP_RG" --client "$(topo_ip 2)" --port "$port" --dev rxe1 -Q \
		--json "$work/$prof.c.json" --allow-errors --size 4K --rate 1 \
		--depth 2 --timeout "$QP_TIMEOUT" --duration 90 >"$work/$prof.c.out" 2>&1 &
	cli=$!

	# The new flow: sending, not rate-limited yet (the previous round's
	# flow is), its QP resolved (budget_known: a CNP to it finds the flow).
	lqpn=
	for _ in $(seq 40); do
		q=$(dp_flow_json veth1)
		# jq (about 0.5 s under TCG) only once the flow can be there
		if [[ $q == *'"budget_known":1'* ]]; then
			q=$(jq -r '[.[] | select(.packets > 0 and .limited == 0
				and .budget_known == 1 and has("lqpn"))] | last | .lqpn // empty' <<<"$q")
			[ -n "$q" ] && { lqpn=$q; break; }
		fi
		_topo_sleep 0.3
	done
	lap flow
	[ -n "$lqpn" ]
	tap_ok $? "$prof: the flow host 1 -> host 2 is in the dump, local QPN $lqpn" || {
		tap_diag "$(cat "$work/$prof.c.out")"
		kill -TERM "$cli" 2>/dev/null
		wait "$cli" "$srv"
		return 1
	}

	# --- the burst and three dumps on schedule (evaluated afterwards) ---
	rxe_snap x0
	ip netns exec "$TOPO_NS" "${INJ[@]}" link swp1 "$mac_s1" "$mac_h1" \
		"$(topo_ip 2)" "$(topo_ip 1)" cnp "$n" "$lqpn"
	dump cut
	rxe_snap x1
	# The cut was before dtb[cut]: about 3, then 16 timer events later.
	sleep_until $((dtb[cut] + 3 * T_US * 1000))
	dump rec
	rxe_snap x2
	sleep_until $((dtb[cut] + 16 * T_US * 1000))
	dump end
	rxe_snap x3
	kill -TERM "$cli" 2>/dev/null
	wait "$cli"
	wait "$srv"
	rxe_snap x4
	lap dumps
	states "$lqpn" cut rec end
	t0=${cut[cut]} tl=${lastrx[cut]}

	# --- right after the burst ---
	tap_diag "$prof: the dump after the burst: ${st[cut]}"
	tap_diag "$prof:   first CNP (the cut) at $t0 ns, last at $tl ns; dump between $((dtb[cut] - t0)) and $((dta[cut] - t0)) ns after the cut"
	kv "${st[cut]}" cnp_handled h
	kv "${st[cut]}" cnp_ignored v
	tap_cmp "$((h + v))" -eq "$n" "$prof: all $n CNPs reached the flow (handled $h, ignored $v)"
	tap_cmp "$((tl - t0))" -lt $((RTT_US * 1000)) \
		"$prof: the burst took $(((tl - t0) / 1000)) us, less than rp_dce_tcp_rtt (no alpha tick inside it)"
	ev="cnp $t0; cnp $tl $((n - 1))"
	cands=$(predict -- "$ev; window ${dtb[cut]} ${dta[cut]}")
	tap_diag "$prof: the core's states in that bracket:"
	diag_lines "  " "$cands"
	in_lines "${st[cut]}" "$cands"
	tap_ok $? "$prof: the dump after the burst is one of them"
	kv "${st[cut]}" rate_kbps r1
	tap_cmp "$r1" -lt "$ceil" "$prof: the rate was cut below the ceiling $ceil (to $r1)"
	wrong=$(predict rp_gd=10 -- "$ev; window ${dtb[cut]} ${dta[cut]}")
	kv "$wrong" rate_kbps v
	! in_lines "${st[cut]}" "$wrong"
	tap_ok $? "$prof: ... and not a state of the core with rp_gd 10 instead of 11 (cut to $v): the comparison can fail"

	# --- recovery: no more CNPs, nothing changed ---
	for tag in rec end; do
		tap_diag "$prof: dump between $(((dtb[$tag] - t0) / 1000000)) and $(((dta[$tag] - t0) / 1000000)) ms after the cut: ${st[$tag]}"
		cands=$(predict -- "$ev; window ${dtb[$tag]} ${dta[$tag]}")
		tap_diag "$prof: the core's states in that bracket:"
		diag_lines "  " "$cands"
		in_lines "${st[$tag]}" "$cands"
		tap_ok $? "$prof: the dump is one of them"
		kv "${st[$tag]}" inc_timer k
		want=$(predict -- "$ev; advance $((t0 + k * T_US * 1000))")
		kv "$want" rate_kbps v
		kv "$want" target_kbps q
		[[ ${st[$tag]} == "rate_kbps=$v target_kbps=$q "* ]]
		tap_ok $? "$prof: its rate and target are the core's after exactly its $k timer events ($v, $q)"
	done
	kv "${st[rec]}" rate_kbps v
	kv "${st[rec]}" inc_timer k
	tap_cmp "$v" -gt "$r1" "$prof: the rate went up from $r1 to $v kb/s ..."
	tap_cmp "$k" -ge 2 "$prof: ... in $k timer events"
	kv "${st[end]}" rate_kbps v
	kv "${st[end]}" target_kbps q
	[ "$v $q" = "$ceil $ceil" ]
	tap_ok $? "$prof: back at the ceiling: rate $v, target $q kb/s"

	# --- the traffic ---
	read -r msgs errs lat < <(jq -r '"\(.total.messages) \(.total.errors) \(.total.latency.max)"' \
		"$work/$prof.c.json" 2>/dev/null)
	tap_cmp "${errs:-x}" -eq 0 "$prof: no completion errors (${msgs:-no} messages, latency max ${lat:-?} us)"
	tap_cmp "${msgs:-0}" -gt 0 "$prof: ... and the flow moved data"
	rxe_delta "$x0" "$x1"
	tap_diag "$prof: rxe: during the burst and the first dump: $rxe_out"
	rxe_delta "$x1" "$x2"
	tap_diag "$prof:   until the second dump: $rxe_out"
	rxe_delta "$x2" "$x3"
	tap_diag "$prof:   until the third dump: $rxe_out"
	rxe_delta "$x3" "$x4"
	tap_diag "$prof:   until rocegen ended: $rxe_out"
	rxe_delta "$x0" "$x4"
	tap_cmp "$rxe_sum" -eq 0 "$prof: no retransmissions: $rxe_out"
	lap checks
	tap_diag "$prof: seconds spent:$tm"
}

round mlx5 8
round paper 20

[ "$DP_ENGINE" = module ] && tap_diag "objects: $(dp_objects)"
tap_run "$DP_UNLOAD" dp_unload
tap_done
