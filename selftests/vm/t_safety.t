#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The datapath under abuse (host 1 -> host 2, the switch port toward host 2
# shaped to 10 Mb/s with RED marking CE, so CNPs flow while traffic runs):
#  - malformed RoCE packets (bad BTH version, no room for the ICRC, UDP
#    length wrong, pad too long, CNP with a bad ICRC; IPv4 and IPv6) are
#    counted and passed untouched, in and out; valid CNPs for unknown QPs
#    are counted and consumed;
#  - valid CNPs for a flow's QP from an address other than its remote's
#    (IPv4 and IPv6) are counted (rp_cnp_spoofed) and leave it alone;
#  - a flood of valid CNPs cannot push a flow below rp_min_rate, and the
#    flow recovers afterwards; none of them is missed, the QP's cache
#    entry kept by its own packets across gaps longer than flow_idle_ms;
#  - a flood of CE packets and CNPs for random QPNs holds at most
#    qp_unresolved_max QP cache entries at once, none once it is over,
#    and a real QP that starts during it still gets its CNPs;
#  - flow events: a flow's FLOW_CREATED (its key, as flow show gives it)
#    and, once idle, its FLOW_EXPIRED with the final counters, as
#    `rocecc -j monitor` and `rocecc monitor` print them;
#  - detach with live flows, 15 cycles of detach/attach of both devices
#    with parameter and profile changes while traffic flows and a monitor
#    listens (the traffic sees no errors, the monitor sees every
#    attach/detach and no flow expiry), rmmod while traffic flows, and
#    deleting an attached device (rxe's netdev) while traffic flows leave
#    no warnings and no leaked objects.
# Both engines (lib/dp.sh): rocecc.ko, and the BPF datapath under roceccd
# --datapath bpf (t_safety_bpf.t). What only the module has is a TAP skip
# there: its QP cache (flow_idle_ms, qp_unresolved_max, qps_alloc),
# flow_max, flow events (rocecc monitor), rmmod. On the BPF engine the
# attach/detach steps are roceccd's: stopped with live flows and started
# again, restarted after a profile change under traffic (the flow's state
# kept: its counters only grow; the flow is that transfer's own, not the
# one an earlier transfer left pinned, which roceccd expires once it has
# been idle 10 s, maybe during the restart), killed (SIGKILL) under
# traffic and started again (adopting it), and a deleted device.
# The harness fails the run on any kernel warning (panic_on_warn=1).
# Knob: ROCECC_SAFETY_CYCLES (15; a multiple of 3: each kind of change
# as often).
# Run: scripts/vm --test selftests/vm/t_safety.t

lib=$(dirname "$0")/lib
. "$lib/tap.sh"
. "$lib/topo.sh"
. "$lib/dp.sh"
tap_require_vm

work=$(mktemp -d /tmp/t_safety.XXXXXX)
trap 'topo_teardown; dp_cleanup; rm -rf "$work"' EXIT
R=$DP_CLI
cycles=${ROCECC_SAFETY_CYCLES:-15}
INJ="$DP_PY $DP_LIB/roce_inject.py"
params="rp_max_rate 50 rp_min_rate 1 rp_clamp_tgt_rate 1 rp_time_reset 50000
	rp_dce_tcp_rtt 1000 rp_ai_rate 1 rp_hai_rate 5
	rp_rate_reduce_monitor_period 1000 np_min_time_between_cnps 1000"

tap_run "ib_core, rdma_rxe load (engine $DP_ENGINE)" dp_load || tap_bail "no $DP_ENGINE engine"
tap_run "2-host topology comes up" topo_setup 2 || tap_bail "no topology"
tap_run "fq on veth1, veth2" dp_fq 1 2
tap_run "bottleneck: 10 Mb/s RED ecn on swp2" topo_bottleneck 2 10 ecn

attach_all() {	# [H...]: attach (default 1 2) with the DCQCN timers below
	local h hs=("$@")
	[ ${#hs[@]} -gt 0 ] || hs=(1 2)
	dp_attach "${hs[@]}" || return 1
	for h in "${hs[@]}"; do
		# shellcheck disable=SC2086
		"$R" param set dev "veth$h" $params || return 1
	done
}
tap_run "attach veth1, veth2 with the testbed's DCQCN timers" attach_all

# dstat H NAME: one of veth H's counters (dp_stats takes them all at once)
dstat() { dp_stats "veth$1"; dp_stat "$2"; }
# rgres: errors and messages of the last rocegen report, "ERRORS MESSAGES"
rgres() { jq -r '"\(.total.errors) \(.total.messages)"' "$work/c.json"; }
# nstat counters of IPv4 UDP, absolute: "InDatagrams InErrors"
udp4() { awk '/^Udp: / && !h { h = 1; next } /^Udp: / { print $2, $4 }' /proc/net/snmp; }

port=18800
# ACK timeout 16 (268 ms), not the default 14: the test detaches rocecc.ko
# under traffic (the cycles, rmmod, the deleted device), and then nobody
# reacts to the marks: the QP's window (4 x 16 KB) alone queues ~67 KB at
# the 10 Mb/s port, 54 ms, about all that timeout 14 waits (60 ms at HZ
# 250); what is asserted here is that the traffic survives the changes.
# traffic DUR [ARGS]: rocegen from host 1 to host 2 in the background
# (pids SRV, CLI; report in $work/c.json).
traffic() {
	local dur=$1
	shift
	port=$((port + 1))
	dp_rg_server rxe2 "$port" 1 || return 1
	SRV=$DP_SRV_PID
	DP_RG_PEER=$(topo_ip 2) dp_rg_client 1 "$port" "$work/c.json" --size 16K \
		--duration "$dur" --timeout 16 "$@" >"$work/c.out" 2>&1 &
	CLI=$!
}

# --- malformed and foreign packets ----------------------------------------------

tap_diag "[${SECONDS} s] malformed packets"
m1=$(dstat 1 malformed)
read -r ind0 ine0 < <(udp4)
# FAMILY CASE COUNT [QPN]: frames from host 2 (or from address $SRC)
# arriving at veth1 (or, with TO=2, from host 1 arriving at veth2)
inject() {
	local s d to=${TO:-1} ms md
	local from=$((3 - to))
	if [ "$1" = 6 ]; then s=$(topo_ip6 "$from") d=$(topo_ip6 "$to"); else s=$(topo_ip "$from") d=$(topo_ip "$to"); fi
	s=${SRC:-$s}
	md=$(cat "/sys/class/net/veth$to/address")
	ms=$(ip netns exec "$TOPO_NS" cat "/sys/class/net/swp$to/address")
	ip netns exec "$TOPO_NS" $INJ link "swp$to" "$ms" "$md" "$s" "$d" "$2" "$3" ${4:+"$4"}
}
n=20
# one python start for all cases of a family (~1 s each under TCG)
inject 4 tver,short,udplen,pad,cnp_badicrc $n || tap_diag "inject failed"
inject 6 tver,cnp_badicrc $n || tap_diag "inject v6 failed"
_topo_sleep 0.5
m1b=$(dstat 1 malformed)
read -r ind1 ine1 < <(udp4)
tap_cmp "$((m1b - m1))" -eq $((7 * n)) "ingress: 7 kinds x $n malformed packets counted ($((m1b - m1)))"
# tver, short, pad, cnp_badicrc have valid UDP: UDP delivers them (to rxe,
# which drops them); udplen is too long for UDP, which counts an error.
tap_cmp "$((ind1 - ind0))" -ge $((4 * n)) "ingress: passed on to UDP (Udp InDatagrams +$((ind1 - ind0)))"
tap_cmp "$((ine1 - ine0))" -ge "$n" "ingress: the bad UDP length reached UDP too (Udp InErrors +$((ine1 - ine0)))"

dp_stats veth1
miss=$(dp_stat resolver_miss) ign=$(dp_stat rp_cnp_ignored)
inject 4 cnp $n 0x7777
inject 6 cnp $n 0x7778
_topo_sleep 0.5
read -r ind2 ine2 < <(udp4)
dp_stats veth1
tap_cmp "$(dp_stat resolver_miss "$miss")" -eq $((2 * n)) "valid CNPs for unknown QPs: resolver_miss +$((2 * n))"
tap_cmp "$(dp_stat rp_cnp_ignored "$ign")" -eq $((2 * n)) "... and rp_cnp_ignored +$((2 * n))"
tap_cmp "$((ind2 - ind1))" -eq 0 "... and consumed: UDP saw none of them"
tap_cmp "$(dp_stat malformed)" -eq "$m1b" "... and they are not malformed"

# Out of veth1 through the stack: counted, and leave exactly as sent.
ip netns exec "$TOPO_NS" tcpdump -i swp1 -w "$work/egress.pcap" -c $((2 * 10)) -nn \
	"src host $(topo_ip 1) and udp dst port 4791" >/dev/null 2>"$work/tcpdump.err" &
cap=$!
for _ in $(seq 50); do
	grep -q "listening on" "$work/tcpdump.err" && break
	_topo_sleep 0.1
done
m1=$(dstat 1 malformed)
$INJ raw veth1 "$(topo_ip 1)" "$(topo_ip 2)" tver,short 10
# tcpdump exits by itself after 20 packets; killing it early loses the
# ones it has not read yet.
for _ in $(seq 100); do
	kill -0 "$cap" 2>/dev/null || break
	_topo_sleep 0.1
done
kill "$cap" 2>/dev/null
wait "$cap" 2>/dev/null
tap_cmp "$(($(dstat 1 malformed) - m1))" -eq 20 "egress: 2 kinds x 10 malformed packets counted"
mapfile -t sent < <($INJ bytes "$(topo_ip 1)" "$(topo_ip 2)" tver,short)
"$DP_PY" - "$work/egress.pcap" "${sent[@]}" <<'EOF'
import struct, sys
want = [bytes.fromhex(h) for h in sys.argv[2:]]
f = open(sys.argv[1], 'rb'); f.read(24); seen = bad = 0
while True:
    rh = f.read(16)
    if len(rh) < 16: break
    d = f.read(struct.unpack('<I', rh[8:12])[0])[14:]
    seen += 1
    # TOS (not ECT-marked) and everything from UDP on must be as sent
    if not any(d[1] == w[1] and d[20:] == w[20:] for w in want): bad += 1
print(seen, bad)
sys.exit(0 if seen == 20 and bad == 0 else 1)
EOF
tap_ok $? "egress: all 20 left untouched (TOS and UDP payload as sent)"

# --- a CNP flood ------------------------------------------------------------------

# Every CNP may cut (rp_rate_reduce_monitor_period 0): 20000 of them would
# take any rate to zero if the floor did not hold. Increases come only from
# the timer, every 2 s after the last cut (rp_byte_reset 0), and the target
# is not clamped (rp_clamp_tgt_rate 0): right after the flood the rate sits
# at the floor, and its first increase event takes it halfway back up.
tap_diag "[${SECONDS} s] CNP flood"
"$R" param set dev veth1 rp_rate_reduce_monitor_period 0 rp_time_reset 2000000 \
	rp_byte_reset 0 rp_clamp_tgt_rate 0
# The transfer lasts until the checks below are done (SIGINT at the end),
# however long the spoofed CNPs and the flood take to send under TCG: a
# QP that has ended would leave the flood nothing to slow down.
# flow_idle_ms 1 s: the sending QP's cache entry must outlive many idle
# periods without CNPs (the 2 s below, each injector's start), kept by
# its own packets; were it dropped, the first CNP after each gap would be
# a resolver miss (and one of the spoofed ones not counted as spoofed).
[ "$DP_ENGINE" = module ] && echo 1000 >/sys/module/rocecc/parameters/flow_idle_ms
DP_RG_TIMEOUT=400 traffic 300s --rate 2 || tap_bail "rocegen did not start"
_topo_sleep 2
lqpn=$(dp_flow_json veth1 | jq -r '[.[] | select(.packets > 0)] | last | .lqpn')
[ -n "$lqpn" ] && [ "$lqpn" != null ]
tap_ok $? "the flow's local QPN: $lqpn" || lqpn=0x11
qa0=$(dp_kv "$(dp_objects)" qps_alloc)

# Spoofed first: valid CNPs for the flow's QP from a third address (IPv4
# 10.0.0.3, IPv6 fd00::3), which is not the QP's remote. Each one would
# cut (the same setting as the flood below, which shows that valid CNPs
# from the remote do); they must be counted and leave the flow alone.
fsp='[.[] | select(.packets > 0)] | last | {rate_kbps, cnp_handled, cnp_ignored, cuts}'
dp_stats veth1
sp0=$(dp_stat rp_cnp_spoofed) hs0=$(dp_stat rp_cnp_handled)
before=$(dp_flow_json veth1 | jq -c "$fsp")
SRC=10.0.0.3 inject 4 cnp 3000 "$lqpn"
SRC=fd00::3 inject 6 cnp 1000 "$lqpn"
_topo_sleep 0.5
after=$(dp_flow_json veth1 | jq -c "$fsp")
tap_diag "flow before the spoofed CNPs: $before"
tap_diag "flow after them:              $after"
dp_stats veth1
tap_cmp "$(dp_stat rp_cnp_spoofed "$sp0")" -eq 4000 "4000 CNPs for QP $lqpn from 10.0.0.3 and fd00::3: rp_cnp_spoofed +4000"
# The remote's own CNPs are rare at 2 Mb/s through 10 Mb/s; 4000 taken
# would show in the thousands, and take the rate to the floor.
got=$(jq -n --argjson a "$before" --argjson b "$after" \
	'($b.cnp_handled + $b.cnp_ignored) - ($a.cnp_handled + $a.cnp_ignored)' 2>/dev/null)
tap_cmp "${got:-4000}" -lt 50 "... the flow took none of them (its CNPs +${got:-?})"
tap_cmp "$(dp_stat rp_cnp_handled "$hs0")" -lt 50 "... rp_cnp_handled +$(dp_stat rp_cnp_handled "$hs0")"
tap_cmp "$(jq -r '.rate_kbps // 0' <<<"${after:-null}")" -gt 1000 "... and its rate stays above the floor"

dp_stats veth1
h0=$(dp_stat rp_cnp_handled) i0=$(dp_stat rp_cnp_ignored)
m0=$(dp_stat resolver_miss) s0=$(dp_stat rp_cnp_spoofed)
fsel='[.[] | select(.packets > 0)] | last | {rate_kbps, target_kbps, alpha, cnp_handled, cnp_ignored, cuts, inc_timer}'
fh0=$(dp_flow_json veth1 | jq "$fsel | .cnp_handled")
inject 4 cnp 20000 "$lqpn" &
flood=$!
: >"$work/flood"
while kill -0 "$flood" 2>/dev/null; do
	dp_flow_json veth1 | jq -c "$fsel" >>"$work/flood"
	_topo_sleep 0.2
done
wait "$flood"
after=$(dp_flow_json veth1 | jq -c "$fsel")
_topo_sleep 3
later=$(dp_flow_json veth1 | jq -c "$fsel")
while read -r l; do tap_diag "during the flood: $l"; done <"$work/flood"
tap_diag "right after:      $after"
tap_diag "3 s later:        $later"
dp_stats veth1
h1=$(dp_stat rp_cnp_handled) i1=$(dp_stat rp_cnp_ignored)
m1=$(dp_stat resolver_miss) s1=$(dp_stat rp_cnp_spoofed)
kill -0 "$CLI" 2>/dev/null
tap_ok $? "the transfer outlived the flood and 3 s after it" ||
	tap_diag "flows: $(dp_flow_json veth1 | jq -c '[.[] | {raddr, rqpn, lqpn, packets, cnp_handled, cnp_ignored}]')"
tap_cmp "$((h1 - h0 + i1 - i0))" -ge 20000 "20000 CNPs reached the RP (handled +$((h1 - h0)), ignored +$((i1 - i0)))"
tap_cmp "$((m1 - m0 + s1 - s0))" -eq 0 "... all of them the QP's: resolver_miss +$((m1 - m0)), rp_cnp_spoofed +$((s1 - s0))"
low=$(cat "$work/flood" <(echo "$after") <(echo "$later") | jq -s 'map(.rate_kbps) | min')
tap_cmp "$low" -ge 1000 "the rate never went below rp_min_rate 1 Mb/s (lowest sample $low kb/s)"
# Right after: the first sample in which the flow has taken all 20000,
# not the first after the injector exits, which may come more than
# rp_time_reset (2 s) after its last CNP under TCG, when the timer has
# taken the rate halfway back up already.
full=$(cat "$work/flood" <(echo "$after") |
	jq -s -c --argjson n "$((${fh0:-0} + 20000))" 'map(select(.cnp_handled >= $n)) | first // empty')
tap_diag "the first sample with all 20000 taken: ${full:-none}"
read -r rfull rlater < <(jq -rn --argjson a "${full:-$after}" --argjson b "$later" '"\($a.rate_kbps) \($b.rate_kbps)"')
tap_cmp "$rfull" -eq 1000 "right after the flood it sits at the floor"
tap_cmp "$rlater" -gt 1000 "the flow recovers ($rlater kb/s after 3 s)"
dp_module_only "the QPs' cache entries lived through it all with flow_idle_ms 1 s" &&
	tap_cmp "$(($(dp_kv "$(dp_objects)" qps_alloc) - qa0))" -eq 0 "the QPs' cache entries lived through it all with flow_idle_ms 1 s (qps_alloc +0)"
pkill -INT -f -- "^$DP_RG --client"
wait "$CLI" "$SRV"
[ "$DP_ENGINE" = module ] && echo 10000 >/sys/module/rocecc/parameters/flow_idle_ms
"$R" param set dev veth1 rp_rate_reduce_monitor_period 1000 rp_time_reset 50000 \
	rp_byte_reset 32767 rp_clamp_tgt_rate 1

# --- a flood of packets for unknown QPs -------------------------------------------

# CE-marked packets and CNPs for random QPNs (none of them local) arrive at
# host 2 from the start of a transfer to its end, while host 1 sends
# through the marking bottleneck: every one of them names a QPN the QP
# cache has not seen. The cache may hold at most qp_unresolved_max of them
# at once (8 here), drops each as soon as the resolver finds no such QP,
# and the real QP, new during the flood, still gets its CNPs. The flood
# leaves through swp2, the bottleneck, whose RED drops some of its CNPs
# (Not-ECT) while the transfer fills the queue: those never reach host 2.
tap_diag "[${SECONDS} s] a flood of CE packets and CNPs for random QPNs"
[ "$DP_ENGINE" = module ] && echo 8 >/sys/module/rocecc/parameters/qp_unresolved_max
dp_stats veth2
topo_counters >"$work/sw0"
miss0=$(dp_stat resolver_miss) full0=$(dp_stat qp_cache_full)
cnp0=$(dp_stat np_cnp_sent) alloc0=$(dp_kv "$(dp_objects)" qps_alloc)
fl0=$(dp_stat flows)
(
	while :; do
		TO=2 inject 4 ce 1000 rand || exit 1
		TO=2 inject 4 cnp 250 rand || exit 1
		echo 1250 >>"$work/floodn"
	done
) &
flood=$!
: >"$work/floodn"
: >"$work/floodq"
# The transfer starts once the flood's first batch is out (one batch, two
# Python runs, takes seconds under TCG), so its QP is new during the flood.
for _ in $(seq 300); do
	[ -s "$work/floodn" ] || ! kill -0 "$flood" 2>/dev/null && break
	_topo_sleep 0.2
done
ms0=$(dstat 2 resolver_miss)
traffic 4s || tap_bail "rocegen did not start"
while kill -0 "$CLI" 2>/dev/null; do
	dp_objects >>"$work/floodq"
	_topo_sleep 0.2
done
ms1=$(dstat 2 resolver_miss)
kill -0 "$flood" 2>/dev/null
alive=$?
kill "$flood"
wait "$flood" "$CLI" "$SRV" 2>/dev/null
_topo_sleep 0.5
objs=$(dp_objects)
topo_counters >"$work/sw1"
qdrops=$(topo_delta "$work/sw0" "$work/sw1" swp2.leaf.drops)
sent=$(awk '{ n += $1 } END { print n + 0 }' "$work/floodn")
umax=$(sed 's/.*qps_unresolved=\([0-9]*\).*/\1/' "$work/floodq" | sort -n | tail -n 1)
dp_stats veth2
tap_diag "flood: $sent packets sent (and a batch cut short); $(wc -l <"$work/floodq") samples, most unresolved $umax; qps_alloc +$(($(dp_kv "$objs" qps_alloc) - alloc0)), qp_cache_full +$(dp_stat qp_cache_full "$full0")"
tap_diag "objects 0.5 s after: $objs"
tap_cmp "$sent" -ge 1250 "the flood was on when the transfer started ($sent packets in whole batches)"
tap_ok "$alive" "... and still on when it ended"
tap_cmp "$((ms1 - ms0))" -ge 1000 "... and went on during it (resolver_miss +$((ms1 - ms0)) meanwhile)"
tap_cmp "$(dp_stat resolver_miss "$miss0")" -ge "$((sent - qdrops))" "every packet of it that reached host 2 is a resolver_miss (+$(dp_stat resolver_miss "$miss0"); $sent sent, the bottleneck dropped $qdrops)"
if dp_module_only "the QP cache's bound qp_unresolved_max under the flood"; then
	tap_cmp "${umax:-999}" -le 8 "the QP cache never held more than qp_unresolved_max 8 unresolved entries (most $umax)"
	tap_cmp "$(dp_kv "$objs" qps)" -le 16 "0.5 s after the flood only real QPs are cached ($(dp_kv "$objs" qps) entries, not thousands for 10 s)"
fi
tap_cmp "$(dp_stat flows)" -le "$((fl0 + 1))" "no flow for any of the random QPNs (veth2's flows $fl0 -> $(dp_stat flows), the real one's at most)"
tap_cmp "$(dp_stat np_cnp_sent "$cnp0")" -gt 0 "the real flow got CNPs during the flood (np_cnp_sent +$(dp_stat np_cnp_sent "$cnp0"))"
read -r rerr rmsg < <(rgres)
tap_cmp "$rerr" -eq 0 "... and its transfer completed without errors ($rmsg messages)"
[ "$DP_ENGINE" = module ] && echo 256 >/sys/module/rocecc/parameters/qp_unresolved_max

# What follows up to the loop is the module's: flow_max and flow_idle_ms
# are its parameters, flow events come from its generic netlink family,
# detach is rocecc dev detach. The BPF engine's turn is bpf_restarts.
bpf_restarts() {
	local p0 p1 q t old fl
	# shellcheck disable=SC2016 # jq's variables
	local fsel='[.[] | select(.packets > 0) | select(.rqpn as $r | any($old[]; . == $r) | not)] | max_by(.packets) | "\(.rqpn) \(.packets)"'
	local fdiag='[.[] | {rqpn, packets, idle_ms: ((.state_ns - .last_active_ns) / 1e6 | floor)}]'

	tap_diag "[${SECONDS} s] roceccd stopped with live flows"
	traffic 5s || tap_bail "rocegen did not start"
	_topo_sleep 2
	rd_stop
	tap_cmp $? -eq 0 "roceccd stops with live flows (exit 0)"
	tap_is "$(dp_engines)" "" "... and drives nothing"
	wait "$CLI" "$SRV"
	read -r rerr rmsg < <(rgres)
	tap_cmp "$rerr" -eq 0 "the traffic went on without errors ($rmsg messages)" ||
		tap_diag "$(dp_rg_why "$work/c.json" "$work/c.out")"
	tap_run "roceccd starts again" attach_all

	# One transfer through two restarts: a parameter change and a
	# SIGTERM (the flow's state stays pinned: its packets only grow),
	# then a SIGKILL (the programs stay attached and go on) and a start
	# that adopts them. Each start loads and verifies the programs: tens
	# of seconds under TCG with traffic, hence two and not a loop.
	tap_diag "[${SECONDS} s] roceccd restarted, then killed, under traffic"
	# The flow followed is this transfer's own: veth1's flow that was
	# not there before it started. The first transfer's (above) stays
	# pinned until roceccd has seen it idle for 10 s, which may be after
	# this one starts (9.3 s idle just before it in one run), and it
	# has more packets (1578, 1859) than this one after 1 s (1248):
	# the busiest flow was the old one then, which the restart below
	# expires, and the flow read as lost (packets 1859 -> 0).
	fl=$(dp_flow_json veth1)
	old=$(jq -c '[.[].rqpn]' <<<"$fl")
	tap_diag "veth1's flows before the transfer: $(jq -c "$fdiag" <<<"$fl")"
	DP_RG_TIMEOUT=400 traffic 300s --depth 4 || tap_bail "rocegen did not start"
	_topo_sleep 1
	q=
	for _ in $(seq 20); do
		fl=$(dp_flow_json veth1)
		read -r q p0 < <(jq -r --argjson old "${old:-[]}" "$fsel" <<<"$fl")
		[ "$q" != null ] && break
		_topo_sleep 0.5
	done
	tap_diag "veth1's flows 1 s into the transfer: $(jq -c "$fdiag" <<<"$fl")"
	"$R" param profile dev veth1 paper
	tap_cmp $? -eq 0 "rocecc param profile dev veth1 paper under traffic"
	t=$SECONDS
	tap_run "roceccd restarts under traffic" dp_attach 1 2
	fl=$(dp_flow_json veth1)
	p1=$(jq -r --argjson q "${q:-0}" '[.[] | select(.rqpn == $q)][0].packets // 0' <<<"$fl")
	tap_diag "veth1's flows after the restart: $(jq -c "$fdiag" <<<"$fl"); idle flows expired: $(rd_get metrics | awk '$1 == "rocecc_bpf_flows_expired_total" { print $2 }')"
	tap_cmp "${p1:-0}" -ge "${p0:-1}" "... and the flow's state is kept (packets $p0 -> $p1, restart $((SECONDS - t)) s)"
	kill -KILL "$RD_PID"
	wait "$RD_PID" 2>/dev/null
	RD_PID=
	_topo_sleep 1
	t=$SECONDS
	tap_run "roceccd starts again after SIGKILL, under traffic" dp_attach 1 2
	p0=$(dp_flow_json veth1 | jq -r --argjson q "${q:-0}" '[.[] | select(.rqpn == $q)][0].packets // 0')
	tap_cmp "${p0:-0}" -ge "${p1:-1}" "... and adopts the flow ($p1 -> $p0 packets, start $((SECONDS - t)) s)"
	kill -0 "$CLI" 2>/dev/null
	tap_ok $? "... all while the traffic ran"
	pkill -INT -f -- "^$DP_RG --client"
	wait "$CLI" "$SRV"
	read -r rerr rmsg < <(rgres)
	tap_cmp "$rerr" -eq 0 "the traffic completed without errors ($rmsg messages)"
}
[ "$DP_ENGINE" = bpf ] && bpf_restarts
if dp_module_only "flow_max, idle expiry, flow events, detach and attach in a loop, rmmod under traffic"; then

# --- the table's bound and idle expiry ----------------------------------------------

tap_diag "[${SECONDS} s] flow_max 1 with 2 QPs, then idle expiry"
full=$(dstat 1 flow_table_full)
echo 1 >/sys/module/rocecc/parameters/flow_max
traffic 3s --qps 2 || tap_bail "rocegen did not start"
wait "$CLI" "$SRV"
echo 16384 >/sys/module/rocecc/parameters/flow_max
tap_diag "objects: $(dp_objects)"
dp_stats veth1
tap_cmp "$(dp_stat flow_table_full "$full")" -gt 0 "with flow_max 1 the second QP's flow is refused and counted (flow_table_full +$(dp_stat flow_table_full "$full"))"
tap_cmp "$(jq .total.errors "$work/c.json")" -eq 0 "its traffic passes anyway ($(jq -c '[.qps[].messages]' "$work/c.json") messages)"
echo 1000 >/sys/module/rocecc/parameters/flow_idle_ms
# polled, 3.5 s at most (bash's clock: no process)
t0=${EPOCHREALTIME/./}
until [ "$(dp_kv "$(dp_objects)" flows)" = 0 ] ||
	[ $((${EPOCHREALTIME/./} - t0)) -ge 3500000 ]; do
	_topo_sleep 0.1
done
t=$(((${EPOCHREALTIME/./} - t0) / 1000))
echo 10000 >/sys/module/rocecc/parameters/flow_idle_ms
objs=$(dp_objects)
tap_diag "objects $t ms after flow_idle_ms was set to 1000: $objs"
tap_cmp "$(dp_kv "$objs" flows)" -eq 0 "idle flows expire"
tap_cmp "$(dstat 1 flows)" -eq 0 "... and the flows gauge follows"
tap_cmp "$(dp_kv "$objs" flows_alloc)" -eq "$(dp_kv "$objs" flows_free)" "... and are freed"

# --- flow events: created, then expired ------------------------------------------------

# One rocegen flow, watched by `rocecc -j monitor` and `rocecc monitor`: one
# FLOW_CREATED with the key flow show reports during the traffic (and only
# the key), then, with flow_idle_ms lowered, one FLOW_EXPIRED for the same
# flow, after it, with its local QPN and final counters. (Flows removed by
# detach send none: the loop below checks that.)
tap_diag "[${SECONDS} s] flow events"
"$R" -j monitor >"$work/monj" 2>"$work/monj.err" &
monj=$!
"$R" monitor >"$work/mon" 2>"$work/mon.err" &
mont=$!
# Both listen once they have printed a change of the default set.
for _ in $(seq 100); do
	echo 2 >/proc/sys/net/rocecc/default/rp_min_rate
	echo 1 >/proc/sys/net/rocecc/default/rp_min_rate
	grep -q '"changed"' "$work/monj" && grep -q "^changed default" "$work/mon" && break
	_topo_sleep 0.1
done
traffic 3s --depth 4 || tap_bail "rocegen did not start"
_topo_sleep 1.5
flow=$(dp_flow_json veth1 | jq -c '[.[] | select(.packets > 0)] | first // empty')
wait "$CLI" "$SRV"
tap_diag "flow show during the traffic: $flow"
[ -n "$flow" ] || flow='{}'
read -r fraddr frqpn flqpn fpkts < <(jq -r '[.raddr, .rqpn, .lqpn, .packets] | @tsv' <<<"$flow")
[ "$fraddr" = "$(topo_ip 2)" ] && [ "$fpkts" -gt 0 ] 2>/dev/null
tap_ok $? "flow show saw the flow to $(topo_ip 2) during the traffic (rqpn $frqpn, lqpn $flqpn, $fpkts packets)"
read -r rerr rmsg < <(rgres)
tap_cmp "$rerr" -eq 0 "its traffic completed without errors ($rmsg messages)"
echo 300 >/sys/module/rocecc/parameters/flow_idle_ms
for _ in $(seq 100); do
	grep -q '"expired","dev":"veth1"' "$work/monj" && grep -q "^expired dev veth1 " "$work/mon" && break
	_topo_sleep 0.1
done
echo 10000 >/sys/module/rocecc/parameters/flow_idle_ms
kill "$monj" "$mont"
wait "$monj" "$mont" 2>/dev/null
# One jq over the stream: counts, positions and fields of this flow's events.
read -r ncre nexp pcre pexp keyonly xpkts xbytes xlqpn < <(jq -rs --argjson f "$flow" '
	def same: .dev == "veth1" and .raddr == $f.raddr and .rqpn == $f.rqpn;
	(to_entries | map(select(.value | same))) as $e |
	($e | map(select(.value.event == "created"))) as $c |
	($e | map(select(.value.event == "expired"))) as $x |
	[($c | length), ($x | length), ($c[0].key // -1), ($x[0].key // -1),
	 (if ($c | length) > 0
	  then $c[0].value | (has("packets") or has("lqpn")) | not
	  else false end),
	 ($x[0].value.packets // 0), ($x[0].value.bytes // 0),
	 ($x[0].value.lqpn // 0)] | @tsv' "$work/monj")
tap_diag "monitor -j: $(jq -c 'select(.dev == "veth1")' "$work/monj")"
tap_cmp "$ncre" -eq 1 "monitor -j: one created event for dev veth1 raddr $fraddr rqpn $frqpn"
[ "$keyonly" = true ]
tap_ok $? "... with the flow's key only (no counters, no local QPN yet)"
tap_cmp "$nexp" -eq 1 "monitor -j: one expired event for the same flow"
tap_cmp "$pexp" -gt "$pcre" "... after the created event (events $pcre, $pexp)"
tap_cmp "$xpkts" -ge "$fpkts" "... with its final packet count ($xpkts; flow show saw $fpkts during the traffic)"
tap_cmp "$xpkts" -gt 0 "... which is not zero"
tap_cmp "$xbytes" -gt 0 "... and its bytes ($xbytes)"
tap_cmp "$xlqpn" -eq "$flqpn" "... and its local QPN ($xlqpn)"
rqpn=$(printf '%#x' "$frqpn" 2>/dev/null)
grep -Eq "^created dev veth1 ifindex [0-9]+ raddr $(topo_ip 2) rqpn $rqpn\$" "$work/mon"
tap_ok $? "monitor: created dev veth1 ifindex N raddr $(topo_ip 2) rqpn $rqpn" ||
	tap_diag "$(cat "$work/mon")"
grep -Eq "^expired dev veth1 ifindex [0-9]+ raddr $(topo_ip 2) rqpn $rqpn lqpn 0x[0-9a-f]+ packets $xpkts bytes $xbytes " "$work/mon"
tap_ok $? "monitor: expired dev veth1 ... rqpn $rqpn lqpn ... packets $xpkts bytes $xbytes ..." ||
	tap_diag "$(cat "$work/mon")"
[ ! -s "$work/monj.err" ] && [ ! -s "$work/mon.err" ]
tap_ok $? "the monitors lost no events and printed no errors" ||
	tap_diag "$(cat "$work/monj.err" "$work/mon.err")"

# --- detach with live flows -------------------------------------------------------

tap_diag "[${SECONDS} s] detach with live flows"
traffic 5s || tap_bail "rocegen did not start"
_topo_sleep 2
before=$(dp_objects)
tap_run "detach veth1 with live flows" "$R" dev detach veth1
tap_diag "objects before: $before"
tap_diag "objects after:  $(dp_objects)"
tap_cmp "$("$R" -j flow show | jq '[.[] | select(.dev == "veth1")] | length')" -eq 0 "no flow of veth1 is left"
wait "$CLI" "$SRV"
read -r rerr rmsg < <(rgres)
tap_cmp "$rerr" -eq 0 "the traffic went on without errors ($rmsg messages)" ||
	tap_diag "$(dp_rg_why "$work/c.json" "$work/c.out" veth2)"
tap_run "attach veth1 again" attach_all 1
# veth2 still holds the receiver's flow of that traffic: it would go idle
# and expire (an event) in the loop below if the loop is slow to start.
reattach2() { "$R" dev detach veth2 && attach_all 2; }
tap_run "detach and attach veth2: no flow from before the loop" reattach2

# --- attach/detach in a loop under traffic ------------------------------------------

# $cycles (15) cycles of detach veth1, veth2 / change parameters / attach both, while
# rocegen sends through the bottleneck (CNPs flow) and a monitor listens,
# so that flow creation and its event race with detach's flush, and RP
# state with parameter changes. Nothing may fail, the traffic must not
# notice, and every object must be freed.
tap_diag "[${SECONDS} s] attach/detach in a loop under traffic"
"$R" -j monitor >"$work/loopmon" 2>"$work/loopmon.err" &
mon=$!
for _ in $(seq 100); do
	echo 2 >/proc/sys/net/rocecc/default/rp_min_rate
	echo 1 >/proc/sys/net/rocecc/default/rp_min_rate
	grep -q '"changed"' "$work/loopmon" && break
	_topo_sleep 0.1
done
fa0=$(dp_kv "$(dp_objects)" flows_alloc)
# The traffic lasts until the loop is done (SIGINT below), however slowly
# the loop runs: the flows never go idle (no expiry) and every cycle races
# with live traffic.
DP_RG_TIMEOUT=400 traffic 300s --depth 4 || tap_bail "rocegen did not start"
_topo_sleep 0.5
fails=0 under=0
for i in $(seq "$cycles"); do
	"$R" dev detach veth1 || fails=$((fails + 1))
	"$R" dev detach veth2 || fails=$((fails + 1))
	case $((i % 3)) in
	0) "$R" param profile default paper || fails=$((fails + 1)) ;;
	1) "$R" param profile default mlx5 || fails=$((fails + 1)) ;;
	2) echo $((i % 7 + 1)) >/proc/sys/net/rocecc/default/rp_ai_rate || fails=$((fails + 1)) ;;
	esac
	"$R" dev attach veth1 || fails=$((fails + 1))
	"$R" dev attach veth2 || fails=$((fails + 1))
	# shellcheck disable=SC2086
	case $((i % 3)) in
	0) "$R" param set dev veth1 $params || fails=$((fails + 1)) ;;
	1) "$R" param profile dev veth2 paper || fails=$((fails + 1)) ;;
	esac
	kill -0 "$CLI" 2>/dev/null && under=$((under + 1))
done
fa1=$(dp_kv "$(dp_objects)" flows_alloc)
pkill -INT -f -- "^$DP_RG --client"
wait "$CLI" "$SRV"
# Stopped before the last flows can go idle for flow_idle_ms.
kill "$mon"
wait "$mon" 2>/dev/null
tap_cmp "$fails" -eq 0 "$cycles cycles of detach, parameter changes and attach: every command succeeded"
tap_cmp "$under" -ge 5 "... $under of them while the traffic ran"
tap_cmp "$((fa1 - fa0))" -ge $((under / 2)) "... each re-attach took the flow up again ($((fa1 - fa0)) flows created)"
read -r rerr rmsg < <(rgres)
tap_diag "rocegen: $rmsg messages, $rerr errors"
tap_cmp "$rerr" -eq 0 "the traffic completed without completion errors" ||
	tap_diag "$(dp_rg_why "$work/c.json" "$work/c.out" veth1 veth2)"
tap_cmp "$rmsg" -gt 0 "... and moved data"
read -r natt ndet ncre nexp < <(jq -rs '[map(select(.event == "attached")),
	map(select(.event == "detached")), map(select(.event == "created")),
	map(select(.event == "expired"))] | map(length) | @tsv' "$work/loopmon")
tap_diag "monitor: $natt attached, $ndet detached, $ncre flows created, $nexp expired"
[ -s "$work/loopmon.err" ] && tap_diag "monitor: $(cat "$work/loopmon.err")"
tap_cmp "$natt" -eq $((2 * cycles)) "monitor: $((2 * cycles)) attached events"
tap_cmp "$ndet" -eq $((2 * cycles)) "monitor: $((2 * cycles)) detached events"
tap_cmp "$ncre" -ge $((under / 2)) "monitor: flow created events"
tap_cmp "$nexp" -eq 0 "monitor: no expired events (detach removes flows silently)" ||
	tap_diag "$(jq -c 'select(.event == "expired") | {dev, raddr, rqpn, lqpn, packets}' "$work/loopmon")"
tap_diag "objects: $(dp_objects)"
tap_run "rmmod after the loop; allocations balance" dp_unload
last=$(dmesg | grep 'rocecc: datapath' | tail -n 1)
grep -q "datapath stopped" <<<"$last"
tap_ok $? "... $last"
tap_run "reload rocecc.ko" insmod "$DP_KO"
tap_run "attach veth1, veth2" attach_all

# --- rmmod while traffic flows ------------------------------------------------------

tap_diag "[${SECONDS} s] rmmod while traffic flows"
traffic 6s || tap_bail "rocegen did not start"
_topo_sleep 2
tap_diag "objects: $(dp_objects); CNPs sent by host 2: $(dstat 2 np_cnp_sent)"
tap_run "rmmod rocecc while traffic flows" dp_unload
tap_diag "$(dmesg | grep 'rocecc: datapath' | tail -n 1)"
wait "$CLI" "$SRV"
tap_diag "traffic after rmmod: $(jq -c '{messages: .total.messages, errors: .total.errors}' "$work/c.json")"

# --- deleting an attached device while traffic flows -----------------------------------

fi	# dp_module_only

tap_diag "[${SECONDS} s] ip link del veth1 while traffic flows"
if [ "$DP_ENGINE" = module ]; then
tap_run "reload rocecc.ko" insmod "$DP_KO"
tap_run "attach veth1, veth2" attach_all
fi
traffic 6s || tap_bail "rocegen did not start"
_topo_sleep 2
tap_diag "objects: $(dp_objects)"
# rxe holds veth1 until its QPs are destroyed: the delete completes once
# rocegen, whose QPs went to the error state, is stopped.
timeout 60 ip link del veth1 &
del=$!
_topo_sleep 1
kill -INT "$CLI" "$SRV" 2>/dev/null
wait "$CLI" "$SRV"
wait "$del"
tap_ok $? "ip link del veth1 while traffic flows"
tap_diag "rocegen after the delete: $(jq -c '{messages: .total.messages, errors: .total.errors}' "$work/c.json" 2>/dev/null || echo none)"
# roceccd notices within a poll
for _ in $(seq 20); do "$R" dev show | grep -qw veth1 || break; _topo_sleep 0.2; done
! "$R" dev show | grep -qw veth1
tap_ok $? "veth1 is detached"
tap_cmp "$("$R" -j flow show | jq '[.[] | select(.dev != "veth2")] | length')" -eq 0 "no flow of veth1 is left"
tap_diag "objects: $(dp_objects)"
tap_run "$DP_UNLOAD" dp_unload
[ "$DP_ENGINE" = module ] && tap_diag "$(dmesg | grep 'rocecc: datapath' | tail -n 1)"
dmesg | grep -E "WARNING|BUG|Oops|Call Trace|refcount|unregister_netdevice: waiting" >"$work/dmesg"
[ ! -s "$work/dmesg" ]
tap_ok $? "the kernel log has no warnings" || tap_diag "$(cat "$work/dmesg")"
tap_done
