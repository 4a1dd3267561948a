#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# roceccd's closed-loop PFC buffer tuner ([pfc] tune = on,
# daemon/policy/pfctune.h) writing real DCB buffers of rocecc.ko's software
# DCB on host 2 (veth2):
#  - [pfc] buffer_size puts priority 3's buffer 1 at 4 KB, below the floor
#    (the calculator's headroom + 2 MTU), and the lossy buffer 0 at 250 KB
#    of the 256 KB total: the tuner raises buffer 1 to the floor at once
#    (why "floor"), taking the room from buffer 0, and dcb buffer show
#    reads those sizes back;
#  - host 1 WRITEs to host 2 on priority 3 (tclass 104) as fast as it can,
#    no ECN anywhere: host 2's occupancy crosses xoff, rocecc.ko sends PFC
#    XOFFs (requests), ECN is quiet: the tuner grows buffer 1 (why "grow",
#    reason logged), xoff moves with it (rocecc.ko's thresholds), until the
#    pause rate falls below tune_pause_hi or the ceiling is reached;
#  - host 2 then sends to host 1 on priority 0 only: no PFC frame on
#    priority 3, its own flows' p99.9 above the 1 us target: the tuner
#    shrinks buffer 1 (why "shrink"), never below the floor;
#  - every change is a pfc_tune event and a log line with its reason,
#    counted in rocecc_pfctune_changes_total{dir}; two changes by the policy
#    are never closer than tune_min_change; dcb buffer show and the
#    rocecc_pfctune_buffer_bytes gauge agree with the last event; the sizes
#    never exceed total_size; roceccd's "config wins" repair of [pfc] does
#    not take the tuner's sizes for drift;
#  - roceccd exits 0.
# Run: selftests/vm/run selftests/vm/t_pfc_tune.t

top=$(cd "$(dirname "$0")/../.." && pwd)
lib=$top/selftests/vm/lib
. "$lib/tap.sh"
. "$lib/topo.sh"
. "$lib/dp.sh"
. "$lib/rd.sh"
tap_require_vm

[ -x "$RD_BIN" ] || tap_bail "$RD_BIN missing: make -C daemon"
work=$(mktemp -d /tmp/vm_pfctune.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; topo_teardown; rmmod rocecc 2>/dev/null; rm -rf "$work"' EXIT
RD_PORT=9473
log=$work/rd.log
PRIO=3
MIN_CHANGE_MS=2000
PHASE_S=${ROCECC_PFCTUNE_PHASE_S:-16}

tap_run "ib_core, rdma_rxe and rocecc.ko load" dp_load || tap_bail "no module"
tap_run "2-host topology comes up" topo_setup 2 || tap_bail "no topology"

# Thresholds. The tuner's floor is its calculator's headroom + 2 MTU for
# [pfc] speed (veth: 10G), cable_length 0 and mtu 1100 (soft-RoCE's largest
# frame at its 1024 B path MTU on a 1500 B netdev: 1098 B): 11,008 B
# ("rocecc pfc headroom speed 10G mtu 1100 cable 0"). rocecc.ko's xoff is
# size - delay / 8 - 2 netdev MTU (include/rocecc/pfc.h). Soft-RoCE's
# receive path frees each packet before the next comes (occupancy_max
# 1098 B measured), so a host with a consistent delay (xoff 2 MTU at the
# floor) never pauses its peer, and the tuner rightly never grows. delay
# 59040 bits overstates the round trip so that xoff at the floor is
# 11008 - 7380 - 3028 = 600 B, below one packet: every packet pauses the
# peer until the tuner has grown the buffer (50%: 16,512 B, xoff 6,104 B).
# tune_interval 1 s, hold 2 intervals up / 3 down, one change per 2 s at
# most, 50% up / 20% down: a compressed version of the defaults (2 s,
# 3 / 10, 30 s, 25% / 10%) so that a few changes happen in a test's time.
cat >"$work/rd.conf" <<EOF
[daemon]
interval = 250ms
pin_dir = none
[module]
attach = yes
devices = veth2
[pfc]
devices = veth2
priorities = $PRIO
prio2buffer = all:0,$PRIO:1
buffer_size = 0:250K,1:4K
delay = 59040
mtu = 1100
cable_length = 0
watchdog = off
tune = on
target_latency = 1us
tune_interval = 1s
tune_hold_up = 2
tune_hold_down = 3
tune_min_change = ${MIN_CHANGE_MS}ms
tune_up_pct = 50
tune_down_pct = 20
tune_pause_hi = 10
tune_ecn_lo = 100
EOF
rd_start "$log" -c "$work/rd.conf" -L info
rd_wait_ready 1
tap_ok $? "roceccd ready" || { tap_diag "$(cat "$log")"; tap_bail "no daemon"; }

# tune_events: one line per pfc_tune event: SEQ EPOCH_MS WHY FROM TO
tune_events() {
	rd_get events.json | python3 -c '
import json, sys, datetime
for e in json.load(sys.stdin)["events"]:
    if e["type"] != "pfc_tune" or e.get("netdev") != "veth2" or e.get("buffer") != 1:
        continue
    ts = datetime.datetime.strptime(e["time"], "%Y-%m-%dT%H:%M:%S.%fZ")
    ts = ts.replace(tzinfo=datetime.timezone.utc)
    print(e["seq"], int(ts.timestamp() * 1000), e["why"], e["from"], e["to"], int(e["dry_run"]))'
}
buf_size() {	# N: buffer N's size as dcb reads it
	dcb -j buffer show dev veth2 | jq ".buffer_size[$1]"
}
dcb_total() {
	dcb -j buffer show dev veth2 | jq -r '"\(.buffer_size | add) \(.total_size)"'
}
wait_until() {	# SECONDS CMD...
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		_topo_sleep 0.25
	done
}
has_why() {	# WHY
	tune_events | awk -v w="$1" '$3 == w { f = 1 } END { exit !f }'
}
pfc_requests() {
	dcb -j -s pfc show dev veth2 | jq ".requests[$PRIO]"
}

# --- below the floor: corrected at once ------------------------------------------------

wait_until 20 has_why floor
tap_ok $? "buffer 1 at 4 KB is below the floor: raised at once (pfc_tune, why floor)" ||
	tap_diag "$(grep -i tuner "$log")"
read -r _ _ _ from floor _ <<<"$(tune_events | awk '$3 == "floor"' | head -n 1)"
tap_is "$from" 4096 "... from 4096 bytes"
tap_cmp "${floor:-0}" -gt 4096 "... to the floor, $floor bytes"
tap_is "$(buf_size 1)" "$floor" "dcb buffer show reads the floor back"
grep -q "veth2: buffer tuner: lossy buffer 0 256000 -> $((262144 - floor)) bytes to make room for buffer 1" "$log"
tap_ok $? "the lossy buffer 0 gave the room ($((262144 - floor)) bytes left)" || tap_diag "$(grep -i tuner "$log")"
tap_is "$(buf_size 0)" $((262144 - floor)) "... as dcb buffer show reads"
grep -q "veth2: buffer tuner: floor buffer 1 4096 -> $floor bytes: .*below the floor" "$log"
tap_ok $? "the log gives the reason" || tap_diag "$(grep -i tuner "$log")"

# --- pause pressure, no ECN: grow ----------------------------------------------------

port=18700
dp_rg_server rxe2 "$port" 1 --tclass 104 || tap_bail "rocegen server"
srv=$DP_SRV_PID
r0=$(pfc_requests)
# ACK timeout 16 (268 ms), not the default 14: the host pauses its peer
# on purpose here (the tuner grows the buffer while it does), and rxe's
# timer counts the time a pause holds the packets.
dp_rg_client 1 "$port" "$work/c1.json" --size 64K --duration "${PHASE_S}s" --depth 16 \
	--timeout 16 --tclass 104 >"$work/c1.out" 2>&1
tap_ok $? "host 1 -> host 2 on priority $PRIO for $PHASE_S s" || tap_diag "$(cat "$work/c1.out")"
wait "$srv"
r1=$(pfc_requests)
tap_diag "host 2 sent $((r1 - r0)) PFC frames for priority $PRIO ($(jq -c '{messages: .total.messages, errors: .total.errors}' "$work/c1.json" 2>/dev/null))"
tap_diag "$(grep -F 'buffer tuner' "$log" | grep -v 'dry run' | tail -n 12)"
tap_diag "$("$RD_CLI" -s dev show veth2 2>&1 | grep -iE 'prio 3|^ *3 |occup|xoff' | head -n 6)"
tap_cmp $((r1 - r0)) -gt 0 "host 2 paused host 1 (PFC requests on priority $PRIO)"
grows=$(tune_events | awk '$3 == "grow"' | wc -l)
tap_cmp "$grows" -ge 1 "the tuner grew buffer 1 ($grows times)"
big=$(tune_events | awk '$3 == "grow" { s = $5 } END { print s + 0 }')
tap_cmp "$big" -gt "$floor" "... to $big bytes"
grep -qE "veth2: buffer tuner: grow buffer 1 [0-9]+ -> [0-9]+ bytes: .*intervals of pause pressure .* with little ECN" "$log"
tap_ok $? "... each change logged with its reason"
tap_is "$(buf_size 1)" "$big" "dcb buffer show reads the grown size back"
xoff=$("$RD_CLI" -s dev show veth2 2>/dev/null | sed -n 's/.*prio 3 pfc 1 buffer 1 .* xoff \([0-9]*\) .*/\1/p' | head -n 1)
tap_is "$xoff" $((big - 59040 / 8 - 2 * 1514)) "rocecc.ko's xoff for priority $PRIO moved with it (size - delay/8 - 2 MTU)"
read -r sum total <<<"$(dcb_total)"
tap_cmp "${sum:-0}" -gt 0 "dcb buffer show reads the sizes ($sum bytes) and total_size ($total)"
tap_cmp "$sum" -le "$total" "... and they fit in total_size"

# --- no pauses, tail above target: shrink ------------------------------------------------

port=$((port + 1))
dp_rg_server rxe1 "$port" 1 || tap_bail "rocegen server on host 1"
srv=$DP_SRV_PID
r0=$(pfc_requests)
DP_RG_PEER=$(topo_ip 1) dp_rg_client 2 "$port" "$work/c2.json" --size 16K \
	--duration "${PHASE_S}s" --depth 2 --rate 20 --burst 16K >"$work/c2.out" 2>&1
tap_ok $? "host 2 -> host 1 on priority 0 for $PHASE_S s" || tap_diag "$(cat "$work/c2.out")"
wait "$srv"
tap_is "$(($(pfc_requests) - r0))" 0 "no PFC frame on priority $PRIO meanwhile"
tap_diag "$(grep -F 'buffer tuner' "$log" | grep -v 'dry run' | tail -n 8)"
shrinks=$(tune_events | awk '$3 == "shrink"' | wc -l)
tap_cmp "$shrinks" -ge 1 "the tuner shrank buffer 1 ($shrinks times)"
grep -qE "veth2: buffer tuner: shrink buffer 1 [0-9]+ -> [0-9]+ bytes: .*[0-9]+ intervals without PFC frames and p99.9 [0-9]+ ns > target 1000 ns" "$log"
tap_ok $? "... with its reason in the log"
low=$(tune_events | awk 'BEGIN { m = 2^53 } $3 != "floor" && $5 < m { m = $5 } END { print m }')
tap_cmp "$low" -ge "$floor" "never below the floor ($low >= $floor bytes)"
n=$(grep -c "veth2: buffer tuner, buffer 1 at $floor bytes: at_bound: .*would shrink but at the floor" "$log")
tap_cmp "$n" -le 1 "a shrink held at the floor is logged once while it lasts, not every interval ($n)"

# --- the record -------------------------------------------------------------------------

ev=$(tune_events)
tap_diag "pfc_tune events (seq ms why from to dry_run):"
tap_diag "$ev"
tap_is "$(awk '$6 != 0' <<<"$ev" | wc -l)" 0 "no event is a dry run (tune = on)"
awk 'NR > 1 && $4 != to { bad = 1 } { to = $5 } END { exit bad }' <<<"$ev"
tap_ok $? "each change starts where the previous one ended"
gap=$(awk '$3 == "grow" || $3 == "shrink" { if (t) { d = $2 - t; if (m == "" || d < m) m = d } t = $2 } END { print m + 0 }' <<<"$ev")
# the tuner's clock is its own; event times are taken when it decides, a
# poll interval (250 ms) apart at worst
[ "$(awk '$3 == "grow" || $3 == "shrink"' <<<"$ev" | wc -l)" -lt 2 ] || [ "$gap" -ge $((MIN_CHANGE_MS - 250)) ]
tap_ok $? "two policy changes are at least tune_min_change ($MIN_CHANGE_MS ms) apart (closest $gap ms)"
last=$(awk '{ s = $5 } END { print s }' <<<"$ev")
tap_is "$(buf_size 1)" "$last" "dcb buffer show: buffer 1 is the last event's size, $last bytes"
rd_get metrics >"$work/metrics"
tap_is "$(rd_metric "$work/metrics" rocecc_pfctune_buffer_bytes 'buffer="1"')" "$last" "rocecc_pfctune_buffer_bytes{buffer=1} $last"
up=$(rd_metric "$work/metrics" rocecc_pfctune_changes_total 'dir="up"')
down=$(rd_metric "$work/metrics" rocecc_pfctune_changes_total 'dir="down"')
tap_is "$up $down" "$(awk '$3 == "grow" || $3 == "floor"' <<<"$ev" | wc -l) $shrinks" \
	"rocecc_pfctune_changes_total up $up, down $down: the events"
! grep -q "changed behind roceccd's back" "$log"
tap_ok $? "the [pfc] repair never took the tuner's sizes for drift" || tap_diag "$(grep "behind" "$log")"
rd_stop
tap_cmp $? -eq 0 "roceccd exits 0"
tap_done
