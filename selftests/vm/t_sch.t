#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The "rocecc" qdisc (kmod/sch.c): 802.1Qbb PFC enforced on egress.
#  - stock tc adds it as root of veth1 (no options, no tc plugin); 8 classes
#    1:1..1:8, one per priority, each with a pfifo; options are refused by
#    tc and, sent by hand over netlink, by the kernel with an extack message;
#  - classification: IPv4 and IPv6 by DSCP (default map DSCP >> 3), other
#    frames by skb->priority, MAC control frames in the never-paused
#    control FIFO: per-class packet counts;
#  - fq grafted under 1:4 gets priority 3, and EDT (SCM_TXTIME) still holds
#    a packet in fq until its time, then it goes (fq's watchdog under our
#    parent); deleting it restores the pfifo;
#  - add, graft, replace and delete under traffic; rmmod refused while the
#    qdisc exists, fine after tc qdisc del; autoload by tc (through the
#    module's own alias: sch_rocecc on 6.1, net-sch-rocecc on 6.12);
#  - PFC enforcement (XOFF holds priority 3 while 0 flows, XON releases at
#    once, a short XOFF expires by itself) with real PFC frames from the
#    switch (the receive side, kmod/pfc_rx.c);
#  - a paused priority holds RoCEv2 packets beyond its pfifo's limit and
#    drops only other packets;
#  - PFC frames not sent to 01:80:c2:00:00:01, or seen only as a
#    promiscuous port sees them, pause nothing (rx_ignored);
#  - the pause watchdog: no continuous pause outlasts pfc_pause_max_ms,
#    whatever the quanta; it is released and counted (tx_pause_released),
#    and a storm of XOFFs is obeyed only half the time.
# The harness fails the run on any kernel warning (panic_on_warn=1).
# Run: scripts/vm --test selftests/vm/t_sch.t

lib=$(dirname "$0")/lib
. "$lib/tap.sh"
. "$lib/topo.sh"
. "$lib/dp.sh"
tap_require_vm

work=$(mktemp -d /tmp/t_sch.XXXXXX)
autoload_ko=
trap 'tc qdisc del dev veth1 root 2>/dev/null; topo_teardown; rmmod rocecc 2>/dev/null;
	[ -n "$autoload_ko" ] && rm -f "$autoload_ko"; rm -rf "$work"' EXIT
T=("$DP_PY" "$DP_LIB/sch_tool.py")
D=veth1

tap_run "ib_core, rdma_rxe and rocecc.ko load" dp_load || tap_bail "no module"
tap_run "2-host topology comes up" topo_setup 2 || tap_bail "no topology"
dst=$(topo_ip 2) dst6=$(topo_ip6 2)

# cls CLASSID KEY: a class's counter, KEY one of bytes, packets, drops,
# backlog (bytes), qlen (tc -s class show; iproute2 6.1 has no JSON for
# classes)
cls() {
	tc -s class show dev "$D" | awk -v h="$1" -v k="$2" '
		$1 == "class" { c = $3; next }
		c == h && $1 == "Sent" {
			v["bytes"] = $2; v["packets"] = $4
			d = $7; sub(/,$/, "", d); v["drops"] = d
		}
		c == h && $1 == "backlog" {
			sub(/b$/, "", $2); sub(/p$/, "", $3)
			v["backlog"] = $2; v["qlen"] = $3
		}
		END { print v[k] }'
}
# qd HANDLE KEY: a qdisc's counter
qd() {
	tc -s -j qdisc show dev "$D" |
		jq -r --arg h "$1" --arg k "$2" '.[] | select(.handle == $h) | .[$k]'
}
snap() {	# the packets of classes 1:1..1:8, one line
	local c
	for c in 1 2 3 4 5 6 7 8; do printf '%s ' "$(cls "1:$c" packets)"; done
}

# --- setup and options -----------------------------------------------------------

tap_run "tc qdisc add dev $D root handle 1: rocecc (stock tc)" \
	tc qdisc add dev "$D" root handle 1: rocecc
tc qdisc show dev "$D" | grep -q '^qdisc rocecc 1: root'
tap_ok $? "tc qdisc show: rocecc is the root" || tap_diag "$(tc qdisc show dev "$D")"
n=$(tc class show dev "$D" | grep -c '^class rocecc 1:[1-8] parent 1: ')
tap_cmp "$n" -eq 8 "tc class show: 8 classes 1:1..1:8" ||
	tap_diag "$(tc class show dev "$D")"
# The default leaves are invisible, as sch_prio's are.
n=$(tc qdisc show dev "$D" invisible | grep -c '^qdisc pfifo 0: parent 1:[1-8] limit 1000p')
tap_cmp "$n" -eq 8 "each class has a pfifo, limit 1000 (veth's tx_queue_len is 0)" ||
	tap_diag "$(tc qdisc show dev "$D" invisible)"
tap_run "tc qdisc replace with the same kind, no options: accepted" \
	tc qdisc replace dev "$D" root handle 1: rocecc

out=$(tc qdisc add dev veth2 root rocecc limit 5 2>&1)
st=$?
[ "$st" != 0 ] && grep -q 'unparsable' <<<"$out"
tap_ok $? "tc refuses options itself (status $st)" || tap_diag "$out"
read -r err msg < <("${T[@]}" nlopt veth2)
tap_cmp "$err" -eq -22 "the kernel refuses TCA_OPTIONS with EINVAL"
tap_is "$msg" "rocecc takes no options: its classes are the 8 PFC priorities" \
	"... and says why (extack)"
tc qdisc show dev veth2 | grep -q rocecc
tap_ok $((!$?)) "... and no qdisc was left on veth2"

# --- classification ------------------------------------------------------------------

tap_diag "[${SECONDS} s] classification"
a=$(snap)
n=5
"${T[@]}" udp "$D" "$dst" 0x68 $n	# DSCP 26 -> priority 3 -> 1:4
"${T[@]}" udp "$D" "$dst" 0xb8 $n	# DSCP 46 -> 5 -> 1:6
"${T[@]}" udp "$D" "$dst" 0xe0 $n	# DSCP 56 -> 7 -> 1:8
"${T[@]}" udp "$D" "$dst" 0x20 $n	# DSCP 8 -> 1 -> 1:2
"${T[@]}" udp6 "$D" "$dst6" 0x48 $n	# IPv6, DSCP 18 -> 2 -> 1:3
"${T[@]}" raw "$D" 6 $n		# not IP: skb->priority 6 -> 1:7
"${T[@]}" udp "$D" "$dst" 0x8a $n	# DSCP 34 (AF41), ECT(0) -> 4 -> 1:5
b=$(snap)
read -r -a A <<<"$a"
read -r -a B <<<"$b"
tap_diag "class packets before: $a; after: $b"
want=(x "$n" "$n" "$n" "$n" "$n" "$n" "$n")
names=("" "DSCP 8 (udp tos 0x20)" "IPv6 DSCP 18 (tclass 0x48)" "DSCP 26 (udp tos 0x68)"
	"DSCP 34 + ECT(0) (udp tos 0x8a)" "DSCP 46 (udp tos 0xb8)" "skb->priority 6 (raw 0x88b5)"
	"DSCP 56 (udp tos 0xe0)")
for p in 1 2 3 4 5 6 7; do
	tap_cmp "$((B[p] - A[p]))" -eq "${want[p]}" \
		"priority $p (class 1:$((p + 1))): ${names[p]}: +$n packets"
done
# Class 1:1 also gets what the stack sends by itself (IPv6 MLD and such).
a0=$(cls 1:1 packets)
"${T[@]}" udp "$D" "$dst" 0 $n
tap_cmp "$(($(cls 1:1 packets) - a0))" -ge "$n" "priority 0 (class 1:1): DSCP 0: +$n packets (at least)"

r0=$(qd 1: packets) s0=$(snap)
"${T[@]}" pfc "$D" 0x08 100 3
tap_cmp "$(($(qd 1: packets) - r0))" -eq 3 "3 PFC frames sent by the root qdisc"
tap_is "$(snap)" "$s0" "... from the control FIFO: no class counted them"

# --- fq under priority 3, EDT -----------------------------------------------------------

tap_diag "[${SECONDS} s] fq under 1:4"
tap_run "tc qdisc add dev $D parent 1:4 handle 40: fq" \
	tc qdisc add dev "$D" parent 1:4 handle 40: fq
tc qdisc show dev "$D" | grep -q '^qdisc fq 40: parent 1:4 '
tap_ok $? "tc qdisc show: fq 40: under 1:4" || tap_diag "$(tc qdisc show dev "$D")"
tc class show dev "$D" | grep -q '^class rocecc 1:4 parent 1: leaf 40:'
tap_ok $? "tc class show: 1:4's leaf is 40:"
f0=$(qd 40: packets)
"${T[@]}" udp "$D" "$dst" 0x68 $n
tap_cmp "$(($(qd 40: packets) - f0))" -eq "$n" "DSCP 26 goes through fq (+$n packets)"

# Under TCG a tc call can take a second when the host is busy: a long delay,
# and qlen and packets from one tc call.
f0=$(qd 40: packets) t0=$EPOCHREALTIME
"${T[@]}" txtime "$D" "$dst" 0x68 6000
_topo_sleep 0.5
read -r q1 f1 < <(tc -s -j qdisc show dev "$D" |
	jq -r '.[] | select(.handle == "40:") | "\(.qlen) \(.packets)"')
tap_cmp "$q1" -eq 1 "EDT: a packet stamped now + 6 s waits in fq (qlen $q1)"
tap_cmp "$((f1 - f0))" -eq 0 "... and is not sent yet"
a1=$(cls 1:1 packets)
"${T[@]}" udp "$D" "$dst" 0 $n
tap_cmp "$(($(cls 1:1 packets) - a1))" -ge "$n" "... while priority 0 flows"
for _ in $(seq 100); do
	[ "$(qd 40: packets)" -gt "$f0" ] && break
	_topo_sleep 0.1
done
el=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%d", (b - a) * 1000 }')
tap_cmp "$(($(qd 40: packets) - f0))" -eq 1 "... then fq's watchdog sends it (after $el ms)"
tap_cmp "$el" -ge 5900 "... not before its time"

tap_run "tc qdisc del dev $D parent 1:4 (back to pfifo)" tc qdisc del dev "$D" parent 1:4
tc qdisc show dev "$D" invisible | grep -q '^qdisc pfifo 0: parent 1:4 limit 1000p'
tap_ok $? "1:4 has a pfifo again" || tap_diag "$(tc qdisc show dev "$D" invisible)"

# --- under traffic ------------------------------------------------------------------------

tap_diag "[${SECONDS} s] changes under traffic"
"${T[@]}" blast "$D" "$dst" 6 >"$work/blast" 2>&1 &
bl=$!
_topo_sleep 0.3
st=0
for i in 1 2 3; do
	tc qdisc add dev "$D" parent 1:4 handle 40: fq &&
	tc qdisc add dev "$D" parent 1:6 handle 60: fq &&
	tc -s class show dev "$D" >/dev/null &&
	tc qdisc replace dev "$D" parent 1:4 handle 41: pfifo limit 10 &&
	tc qdisc del dev "$D" parent 1:6 &&
	tc qdisc del dev "$D" parent 1:4 &&
	tc qdisc del dev "$D" root &&
	tc qdisc add dev "$D" root handle 1: rocecc || { st=1; tap_diag "round $i failed"; break; }
	_topo_sleep 0.2
done
tap_ok $st "3 rounds of graft, replace, delete and re-add of the root under traffic"
wait "$bl"
tap_ok $? "the UDP sender ran through ($(<"$work/blast") datagrams)"
# The rounds may outlast the 6 s blast under a loaded TCG (a 6.12 run took
# longer): one more second of it, through the last rocecc.
"${T[@]}" blast "$D" "$dst" 1 >/dev/null 2>&1
n=0
for c in 1 2 3 4 5 6 7 8; do [ "$(cls "1:$c" packets)" -gt 0 ] && n=$((n + 1)); done
tap_cmp "$n" -ge 4 "traffic went through the last rocecc ($n classes counted packets)"

# --- PFC enforcement (kmod/pfc_rx.c) ------------------------------------------------------

tap_diag "[${SECONDS} s] PFC enforcement"
# PFC frames from the switch port to host 1. pfc_rx.c converts quanta at the
# link speed; pfc_speed_mbps=1 (set below, as for an emulated link) makes
# 0xffff quanta 33.6 s, long enough to look at a pause under TCG (the
# checks between XOFF and XON took 3.4 s in one CI run), and 0x100 quanta
# 131 ms.
pfc_send() { ip netns exec "$TOPO_NS" "${T[@]}" pfc swp1 "$@"; }
# The pause watchdog (pfc_pause_max_ms, 10 s by default) at its 60 s
# maximum: the checks of a 33.6 s pause must not see it end under TCG;
# pfc_watchdog sets its own bound.
PMAX=/sys/module/rocecc/parameters/pfc_pause_max_ms
pfc_setup() {
	local c
	pmax0=$(cat "$PMAX") && echo 60000 >"$PMAX" &&
		echo 1 >/sys/module/rocecc/parameters/pfc_speed_mbps &&
		tc qdisc replace dev "$D" root handle 1: rocecc || return 1
	for c in 1 2 3 4 5 6 7 8; do
		tc qdisc add dev "$D" parent "1:$c" fq flow_limit 1000 || return 1
	done
	"$DP_CLI" dev attach "$D" && dcb pfc set dev "$D" prio-pfc 3:on
}

# pfcj KEY [PRIO]: a value of the PFC nest (rocecc -j dev show), of the
# device or of priority PRIO; 0 when absent
pfcj() {
	"$DP_CLI" -j dev show "$D" | jq -r --arg k "$1" --arg p "${2:-}" '
		(if type == "array" then .[0] else . end).pfc as $f |
		(if $p == "" then $f[$k] else ($f.prio[] | select(.prio == ($p | tonumber)))[$k] end) // 0'
}

# XOFFs (0xffff quanta: 33.6 s) from the switch port that are not for host
# 1: to veth1's own address (PACKET_HOST), to another station
# (PACKET_OTHERHOST: seen because a veth takes every frame, as a promiscuous
# NIC does), to another reserved group (01:80:c2:00:00:02). None pauses
# priority 3, none is an indication; rx_ignored counts them.
pfc_foreign() {
	local p0 i0 x0 dm
	p0=$(cls 1:4 packets) i0=$(pfcj rx_ignored) x0=$(pfcj indications 3)
	for dm in "$(cat /sys/class/net/$D/address)" 02:00:00:00:99:01 01:80:c2:00:00:02; do
		pfc_send 0x08 0xffff 1 0 "$dm"
	done
	"${T[@]}" udp "$D" "$dst" 0x68 5
	_topo_sleep 0.2
	tap_cmp "$(($(cls 1:4 packets) - p0))" -eq 5 \
		"XOFFs to veth1's own MAC, to another station, to 01:80:c2:00:00:02: priority 3 not paused, its 5 packets went"
	tap_is "$(($(pfcj rx_ignored) - i0)) $(($(pfcj indications 3) - x0))" "3 0" \
		"... rx_ignored counts the 3 frames, indications[3] none"
}

# The pause watchdog: pfc_pause_max_ms 300 against one XOFF of 33.6 s (at
# pfc_speed_mbps 1): the pause lasts 300 ms exactly (tx_pause_ns), is
# released and counted (tx_pause_released), and the packets it held go.
# Then XOFFs back to back for 2 s: paused 300 ms, XOFFs ignored for 300
# ms, paused again: at least 2 releases, and the pauses obeyed are far
# fewer than the frames.
pfc_watchdog() {
	local p0 r0 n0 n r ns
	echo 300 >"$PMAX"
	p0=$(cls 1:4 packets) r0=$(pfcj tx_pause_released 3) n0=$(pfcj tx_pause_ns 3)
	pfc_send 0x08 0xffff 1
	"${T[@]}" udp "$D" "$dst" 0x68 5
	_topo_sleep 1.5
	tap_cmp "$(($(cls 1:4 packets) - p0))" -eq 5 \
		"pfc_pause_max_ms 300: a 33.6 s XOFF holds priority 3 no longer than that, its 5 packets went"
	tap_is "$(($(pfcj tx_pause_released 3) - r0)) $(($(pfcj tx_pause_ns 3) - n0))" "1 300000000" \
		"... tx_pause_released 1, and the pause lasted 300 ms exactly (tx_pause_ns)"
	r0=$(pfcj tx_pause_released 3) n0=$(pfcj tx_pause_ns 3)
	n=$(ip netns exec "$TOPO_NS" "${T[@]}" pfcfor swp1 0x08 0xffff 2)
	_topo_sleep 0.5
	r=$(($(pfcj tx_pause_released 3) - r0)) ns=$(($(pfcj tx_pause_ns 3) - n0))
	tap_diag "storm: $n XOFFs in 2 s, $r releases, paused $((ns / 1000000)) ms"
	tap_cmp "$r" -ge 2 "XOFFs back to back for 2 s: released at least twice"
	tap_cmp "$ns" -le "$(((r + 1) * 300000000))" \
		"... paused at most 300 ms per release (+ the last pause): the hold-off ignores XOFFs"
	tap_run "pfc_pause_max_ms out of range (5, 60001) refused" sh -c \
		"! echo 5 >$PMAX 2>/dev/null && ! echo 60001 >$PMAX 2>/dev/null &&
		 [ \$(cat $PMAX) = 300 ]"
	pfc_send 0x08 0 1
	echo 60000 >"$PMAX"
}

pfc_steps() {
	local p0 s0 q t0 t1
	tap_run "attach veth1 (root rocecc, fq under every class), PFC on priority 3" \
		pfc_setup || return 1
	p0=$(cls 1:4 packets) s0=$(cls 1:1 packets)
	t0=$(date +%s%N)
	pfc_send 0x08 0xffff 1
	"${T[@]}" udp "$D" "$dst" 0x68 10
	"${T[@]}" udp "$D" "$dst" 0 10
	q=$(cls 1:4 qlen)
	tap_cmp "$(($(cls 1:4 packets) - p0))" -eq 0 "XOFF (0xffff quanta, 33.6 s) on priority 3: nothing of it is sent"
	tap_cmp "$q" -eq 10 "... its 10 packets wait in class 1:4"
	tap_cmp "$(($(cls 1:1 packets) - s0))" -ge 10 "... while priority 0 flows"
	pfc_send 0x08 0 1
	_topo_sleep 0.1
	t1=$(date +%s%N)
	tap_cmp "$(($(cls 1:4 packets) - p0))" -eq 10 "XON: the 10 packets went"
	tap_cmp $(((t1 - t0) / 1000000)) -lt 30000 "... long before the pause would have ended (ms since the XOFF)"
	tap_diag "$(dcb -s pfc show dev "$D" 2>&1 | grep indications)"
	p0=$(cls 1:4 packets)
	pfc_send 0x08 0x100 1
	"${T[@]}" udp "$D" "$dst" 0x68 5
	_topo_sleep 0.3
	tap_cmp "$(($(cls 1:4 packets) - p0))" -eq 5 "a short XOFF (131 ms) expires by itself"
	# genl: the transmit side of priority 3 (TX_PAUSES counts XOFFs)
	tap_cmp "$($DP_CLI -j dev show $D | python3 -c '
import json, sys
d = json.load(sys.stdin)
d = d[0] if isinstance(d, list) else d
print([p for p in d["pfc"]["prio"] if p["prio"] == 3][0]["tx_pauses"])' 2>&1)" -eq 2 \
		"rocecc dev show: tx_pauses of priority 3 is 2"
	# A paused priority never drops a RoCE packet (6.12's rxe fails the
	# QP on a drop): RoCEv2 (UDP to 4791) goes beyond the band pfifo's
	# limit, anything else does not (and the RoCE packets count in the
	# band's length: other packets come first here).
	tc qdisc replace dev "$D" parent 1:4 pfifo limit 10
	p0=$(cls 1:4 packets) d0=$(cls 1:4 drops)
	pfc_send 0x08 0xffff 1
	"${T[@]}" udp "$D" "$dst" 0x68 30
	"${T[@]}" udp "$D" "$dst" 0x68 30 0 4791
	q=$(cls 1:4 qlen)
	tap_cmp "$q" -eq 40 "paused, pfifo limit 10: 10 other packets and 30 RoCE ones wait in 1:4"
	tap_cmp "$(($(cls 1:4 drops) - d0))" -eq 20 "... the 20 other packets beyond the limit were dropped, no RoCE one"
	pfc_send 0x08 0 1
	_topo_sleep 0.1
	tap_cmp "$(($(cls 1:4 packets) - p0))" -eq 40 "XON: the 40 went"
	tc qdisc replace dev "$D" parent 1:4 fq flow_limit 1000
	pfc_foreign
	pfc_watchdog
	tap_run "detach, root qdisc back" sh -c "$DP_CLI dev detach $D &&
		echo 0 >/sys/module/rocecc/parameters/pfc_speed_mbps &&
		echo $pmax0 >$PMAX &&
		tc qdisc replace dev $D root handle 1: rocecc"
}
pfc_steps

# --- unload ---------------------------------------------------------------------------------

tap_diag "[${SECONDS} s] unload"
rmmod rocecc 2>"$work/rmmod"
tap_ok $((!$?)) "rmmod refused while the qdisc exists" || tap_diag "$(<"$work/rmmod")"
tap_diag "rmmod: $(<"$work/rmmod")"
tap_run "tc qdisc del dev $D root" tc qdisc del dev "$D" root
tap_run "rmmod rocecc succeeds after that" rmmod rocecc

# Autoload: tc asks modprobe for "sch_rocecc" (6.1) or "net-sch-rocecc"
# (6.10 on), which must be the module's own qdisc alias. Instead of
# installing the module and running depmod -a (2.5 min on 6.12 under
# TCG), the guest's modprobe.d gets that alias, taken from modinfo, and an
# install command that insmods the module.
alias=$(modinfo -F alias "$DP_KO" | grep -E '^(net-sch-|sch_)rocecc$')
tap_diag "rocecc.ko's qdisc alias: ${alias:-none}"
conf=/etc/modprobe.d/rocecc-t_sch.conf
printf 'alias %s rocecc\ninstall rocecc /sbin/insmod %s\n' "$alias" "$DP_KO" >"$conf" &&
	autoload_ko=$conf
tap_ok $? "modprobe knows rocecc.ko by its own qdisc alias ($conf)"
tap_run "tc qdisc add ... rocecc loads the module by itself" \
	tc qdisc add dev "$D" root handle 1: rocecc
[ -d /sys/module/rocecc ]
tap_ok $? "... rocecc is loaded"
tap_run "tc qdisc del, rmmod" sh -c "tc qdisc del dev $D root && rmmod rocecc"

tap_done
