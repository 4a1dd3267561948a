#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# roceccd and rocecc on a NIC that runs DCQCN in firmware (mlx5), against
# the fake driver's tree (selftests/unit/daemon/mlx5fix; --hw-root, which
# is for tests only). No mlx5 NIC here: the tree says that the RDMA port
# whose netdev is veth1 (really rxe1's) is mlx5_0's, and its counters are
# what this test writes into the tree. rocecc.ko, attached by hand, gives
# veth1 the DCB a real mlx5 netdev has.
#  - [hw] apply = yes writes [module]'s profile and parameters to the
#    firmware files, only what differs, logged and in /events.json; a
#    reload writes the change; a refused value (rp_rate_divisor 5000) is
#    logged, counted and writes nothing;
#  - /metrics: the firmware's parameters, its congestion counters under
#    rocecc.ko's names and its PFC counters under DCB's, engine="hw";
#  - the PFC watchdog runs on the NIC's counters: the pause time growing
#    with no packet sent on priority 3 is a storm; quiet again, restored;
#  - rocecc param show dev veth1 reads the firmware;
#  - every metric family /metrics writes is one roceccd --list-metrics lists.
# Run: scripts/vm --test selftests/vm/t_roceccd_hw.t

top=$(cd "$(dirname "$0")/../.." && pwd)
lib=$top/selftests/vm/lib
. "$lib/tap.sh"
. "$lib/topo.sh"
. "$lib/dp.sh"
RD_PORT=9474
. "$lib/rd.sh"
tap_require_vm

FIX=$top/build/unit/daemon/mlx5fix
[ -x "$RD_BIN" ] || tap_bail "$RD_BIN missing: make -C daemon"
[ -x "$FIX" ] || tap_bail "$FIX missing: make -C selftests/unit/daemon"
work=$(mktemp -d /tmp/vm_rdhw.XXXXXX)
root=$work/root
cc=$root/sys/kernel/debug/mlx5/0000:3b:00.0/cc_params
storm=
trap '[ -n "$storm" ] && kill $storm 2>/dev/null; [ -n "$RD_PID" ] && rd_stop; kill $(jobs -p) 2>/dev/null; topo_teardown; rmmod rocecc 2>/dev/null; rm -rf "$work"' EXIT

# wait_log SEC PATTERN: until roceccd's log has a line matching PATTERN
wait_log() {
	local i
	for i in $(seq $(($1 * 10))); do
		grep -q "$2" "$work/log" && return 0
		sleep 0.1
	done
	return 1
}

tap_run "ib_core, rdma_rxe and rocecc.ko load" dp_load || tap_bail "no module"
tap_run "1-host topology comes up" topo_setup 1 || tap_bail "no topology"
tap_run "fq on veth1" dp_fq 1
tap_run "rocecc.ko on veth1 (its DCB stands in for the NIC's)" dp_attach 1 ||
	tap_bail "no attach"
mkdir -p "$root"
tap_run "the fake driver's tree: mlx5_0 port 1 is veth1" "$FIX" build "$root" veth1
tap_run "its congestion counters" \
	"$FIX" stat "$root" mlx5_0 1 np_cnp_sent 11
"$FIX" stat "$root" mlx5_0 1 rp_cnp_handled 33

cat >"$work/conf" <<'EOF'
[daemon]
interval = 100ms
pin_dir = none
[module]
profile = paper
rp_ai_rate = 20
[pfc]
priorities = 3
watchdog = on
detection_time = 400ms
restoration_time = 600ms
[hw]
apply = yes
EOF
rd_start "$work/log" -c "$work/conf" --hw-root "$root" -L debug
rd_wait_ready 1 60
tap_ok $? "roceccd starts" || { tap_diag "$(cat "$work/log")"; tap_bail "no roceccd"; }
sleep 1

# --- [hw] apply -------------------------------------------------------------------------
[ "$(cat "$cc/rp_ai_rate")" = 20 ] && [ "$(cat "$cc/rp_time_reset")" = 55 ] &&
	[ "$(cat "$cc/rp_byte_reset")" = 156250 ] && [ "$(cat "$cc/rp_hai_rate")" = 200 ]
tap_ok $? "the firmware holds the paper profile with rp_ai_rate 20" ||
	tap_diag "$(head -n 100 "$cc"/* 2>&1 | tr '\n' ' ')"
grep -q "veth1: firmware rp_ai_rate 5 -> 20 Mb/s (\[hw\] apply)" "$work/log"
tap_ok $? "each write is logged" || tap_diag "$(grep -i firmware "$work/log")"
tap_is "$(grep -c 'firmware .* -> .* (\[hw\] apply)' "$work/log")" 9 \
	"nine writes: only what differs from the firmware's defaults"
ev=$(rd_get events.json)
python3 -c '
import json, sys
ev = json.loads(sys.argv[1])["events"]
kinds = [e["type"] for e in ev]
p = [e for e in ev if e["type"] == "hw_params" and e["param"] == "rp_ai_rate"]
sys.exit(0 if "hw_found" in kinds and p and p[0]["from"] == 5 and p[0]["to"] == 20 else 1)' "$ev"
tap_ok $? "/events.json: hw_found, hw_params rp_ai_rate 5 -> 20" || tap_diag "$ev"

# --- /metrics ----------------------------------------------------------------------------
rd_get metrics >"$work/m1"
tap_is "$(rd_metric "$work/m1" rocecc_hw_param 'name="rp_ai_rate"')" 20 \
	"rocecc_hw_param{rp_ai_rate} 20"
tap_is "$(rd_metric "$work/m1" rocecc_dp_np_cnp_sent_total 'engine="hw"')" 11 \
	"the firmware's np_cnp_sent as rocecc_dp_np_cnp_sent_total{engine=\"hw\"}"
tap_is "$(rd_metric "$work/m1" rocecc_dp_rp_cnp_handled_total 'engine="hw"')" 33 \
	"... and rp_cnp_handled"
tap_is "$(grep -c '^# TYPE rocecc_dp_np_cnp_sent_total ' "$work/m1")" 1 \
	"one TYPE line for the family"
grep -q '^rocecc_pfc_indications_total{netdev="veth1",prio="3",engine="hw"} 0$' "$work/m1" &&
	! grep -q '^rocecc_pfc_indications_total{netdev="veth1",prio="3"}' "$work/m1"
tap_ok $? "PFC frames of veth1 from the NIC (engine=\"hw\"), not from DCB twice"
if command -v promtool >/dev/null; then
	out=$(promtool check metrics <"$work/m1" 2>&1)
	tap_ok $? "promtool check metrics" || tap_diag "$out"
else
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N # SKIP promtool not installed"
fi

# --- the watchdog on the NIC's counters ---------------------------------------------------
grep -q "veth1: PFC watchdog: reads the transmit side .* from the NIC's per-priority counters" "$work/log"
tap_ok $? "the watchdog reads the NIC's per-priority counters"
# a storm: the peer keeps priority 3 paused (pause time grows as fast as
# the clock, frames keep coming) and nothing is sent on it
python3 - "$root/ethtool/veth1" <<'PY' &
import os, sys, time
path = sys.argv[1]
t0 = time.monotonic()
while True:
    lines = open(path).read().split("\n")
    us = int((time.monotonic() - t0) * 1e6) * 2
    out = []
    for l in lines:
        if l.startswith("rx_prio3_pause_duration "):
            l = "rx_prio3_pause_duration %d" % us
        elif l.startswith("rx_prio3_pause "):
            l = "rx_prio3_pause %d" % (us // 100)
        out.append(l)
    open(path + ".new", "w").write("\n".join(out))
    os.rename(path + ".new", path)
    time.sleep(0.02)
PY
storm=$!
wait_log 10 "veth1: PFC storm on priority 3"
tap_ok $? "a storm on priority 3 is detected from the NIC's pause time" ||
	tap_diag "$(grep -i 'watchdog\|storm' "$work/log" | tail -5)"
kill $storm
wait $storm 2>/dev/null
storm=
wait_log 10 "veth1: PFC storm on priority 3 over"
tap_ok $? "quiet again: restored" ||
	tap_diag "$(grep -i 'watchdog\|storm' "$work/log" | tail -5)"
rd_get metrics >"$work/m2"
awk '/^rocecc_pfc_paused_seconds_total\{netdev="veth1",prio="3",engine="hw"\}/ { exit !($2 > 0.5) } END {}' "$work/m2" &&
	grep -q '^rocecc_pfc_paused_seconds_total{netdev="veth1",prio="3",engine="hw"}' "$work/m2"
tap_ok $? "rocecc_pfc_paused_seconds_total: the NIC's pause time, in seconds"
tap_is "$(rd_unlisted "$work/m2")" "" \
	"roceccd --list-metrics lists the $(grep -c '^# TYPE' "$work/m2") families of /metrics"

# --- reload ---------------------------------------------------------------------------------
sed -i 's/^rp_ai_rate = 20$/rp_ai_rate = 30/' "$work/conf"
kill -HUP "$RD_PID"
for _ in $(seq 50); do
	[ "$(cat "$cc/rp_ai_rate")" = 30 ] && break
	sleep 0.1
done
tap_is "$(cat "$cc/rp_ai_rate")" 30 "a reload writes the change"
tap_is "$(grep -c 'firmware .* -> .* (\[hw\] apply)' "$work/log")" 10 "... and only it"
sed -i 's/^\[module\]$/[module]\nrp_rate_divisor = 5000/' "$work/conf"
sed -i 's/^rp_ai_rate = 30$/rp_ai_rate = 40/' "$work/conf"
kill -HUP "$RD_PID"
wait_log 5 "veth1: \[hw\] apply: rp_rate_divisor 5000: the mlx5 firmware has no such parameter"
tap_ok $? "rp_rate_divisor 5000 is refused, named" ||
	tap_diag "$(grep -i 'apply' "$work/log" | tail -3)"
tap_is "$(cat "$cc/rp_ai_rate")" 30 "... and nothing is written"
rd_get metrics >"$work/m3"
tap_cmp "$(rd_metric "$work/m3" rocecc_hw_errors_total)" -ge 1 "counted in rocecc_hw_errors_total"

# --- the CLI ----------------------------------------------------------------------------------
out=$("$RD_CLI" --hw-root "$root" param show dev veth1)
tap_ok $? "rocecc param show dev veth1 (no rocecc.ko asked)"
grep -Eq '^  rp_ai_rate +30  Mb/s' <<<"$out" && grep -q '^veth1: profile custom (mlx5 firmware' <<<"$out"
tap_ok $? "... reads the firmware: rp_ai_rate 30, a custom profile" || tap_diag "$out"

rd_stop
tap_cmp $? -eq 0 "roceccd stops cleanly"
tap_run "detach veth1" "$DP_CLI" dev detach veth1
tap_done
