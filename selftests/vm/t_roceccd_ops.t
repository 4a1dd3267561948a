#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# roceccd as a service, in the test VM: its configuration file (a bad one is
# refused naming file, line and key, before anything is touched), the
# systemd readiness protocol (sd_notify READY/RELOADING/STOPPING, read from
# NOTIFY_SOCKET as systemd would), rocecc.ko attached and configured from
# the file, a restart under traffic that keeps the flow table (pinned maps:
# the flow's counters continue, nothing resets) and the configuration,
# SIGHUP with a bad file (refused, nothing changes) and a good one
# (applied to the module), the removal of a RoCE netdev while traffic
# flows elsewhere, and a clean shutdown that detaches what it attached.
# Every metric family /metrics writes is one roceccd --list-metrics lists;
# the scrape is kept as build/vm-out/t_roceccd_ops.metrics.
# Run: selftests/vm/run selftests/vm/t_roceccd_ops.t

top=$(cd "$(dirname "$0")/../.." && pwd)
lib=$top/selftests/vm/lib
. "$lib/tap.sh"
. "$lib/topo.sh"
. "$lib/dp.sh"
. "$lib/rd.sh"
tap_require_vm

work=$(mktemp -d /tmp/vm_rdops.XXXXXX)
pin=/sys/fs/bpf/rocecc_t
trap 'kill $(jobs -p) 2>/dev/null; topo_teardown; rmmod rocecc 2>/dev/null; rm -rf "$work" "$pin"' EXIT
port=18610
log=$work/rd.log

tap_run "3-host topology comes up" topo_setup 3 || tap_bail "no topology"
tap_run "rocecc.ko loads" dp_load || tap_bail "no module"

good() {	# good CONF FACTOR AI_RATE
	cat >"$1" <<CONF
# roceccd test configuration
[daemon]
interval = 200ms
linger = 60s
pin_dir = $pin

[module]
attach = yes
devices = all
profile = paper
rp_ai_rate = $3

[straggler]
factor = $2
CONF
}
conf=$work/roceccd.conf
good "$conf" 3 7

attached() { "$RD_CLI" -j dev show 2>/dev/null | jq -r '[.[].dev] | sort | join(" ")'; }
filters() { { for h in 1 2 3; do tc filter show dev "veth$h" ingress; tc filter show dev "veth$h" egress; done; } 2>/dev/null | grep -c flowmon; }

# --- bad configuration: refused before anything is touched ---------------
bad_case() {	# bad_case NAME LINE_TEXT WANT_REGEX
	local f=$work/bad_$1.conf out rc
	{ cat "$conf"; echo "$2"; } >"$f"
	out=$("$RD_BIN" -f -p "$RD_PORT" -c "$f" 2>&1)
	rc=$?
	tap_cmp $rc -eq 1 "bad config ($1): exit 1" || tap_diag "$out"
	grep -Eq "$3" <<<"$out"
	tap_ok $? "bad config ($1): the message names file, line and key: $out"
}
n=$(( $(wc -l <"$conf") + 1 ))
bad_case unknown_key "factr = 2" "^roceccd: $work/bad_unknown_key.conf:$n: \[straggler\] factr: "
bad_case bad_value "min_flows = many" "^roceccd: $work/bad_bad_value.conf:$n: \[straggler\] min_flows: 'many' "
bad_case bad_param $'[module]\nrp_gd = 99' "^roceccd: $work/bad_bad_param.conf:$(( n + 1 )): \[module\] rp_gd: '99' .*1\.\.15"
out=$("$RD_BIN" -f -c "$work/nonexistent.conf" 2>&1)
tap_cmp $? -eq 1 "a config file named with -c must exist: exit 1"
grep -q "$work/nonexistent.conf" <<<"$out"
tap_ok $? "... naming it ($out)"
tap_cmp "$(filters)" -eq 0 "nothing attached by the refused starts (flowmon filters)"
tap_is "$(attached)" "" "... nor rocecc.ko"
out=$("$RD_BIN" --check-config -c "$conf" 2>&1)
tap_cmp $? -eq 0 "--check-config: a good file passes" || tap_diag "$out"
grep -q '^rp_ai_rate = 7$' <<<"$out" && grep -q '^profile = paper$' <<<"$out"
tap_ok $? "--check-config prints the effective configuration" || tap_diag "$out"

# --- start: READY once attached -----------------------------------------
rd_start "$log" -c "$conf"
rd_wait_ready 1
tap_ok $? "sd_notify READY=1" || { tap_diag "$(cat "$log")"; tap_bail "no daemon"; }
tap_diag "notify: $(tr '\n' '|' <"$RD_NOTIFY")"
grep -q "MAINPID=$RD_PID" "$RD_NOTIFY"
tap_ok $? "sd_notify MAINPID is the daemon's pid"
tap_cmp "$(filters)" -eq 6 "flowmon on the 3 netdevs, both hooks"
tap_is "$(attached)" "veth1 veth2 veth3" "rocecc.ko attached to the 3 netdevs (devices = all)"
rootq() { tc qdisc show dev "$1" | awk '$0 ~ / root / { print $2; exit }'; }
tap_is "$(rootq veth1)" fq "veth1's root qdisc noqueue replaced by fq (fq = yes)"
ai_rate() { "$RD_CLI" -j param show dev veth1 | jq -r '.[0].params.rp_ai_rate'; }
v=$(ai_rate)
tap_is "$v" 7 "veth1: rp_ai_rate from the file (7)"
rd_get metrics >"$work/m0" 
tap_is "$(rd_metric "$work/m0" rocecc_module_attached 'netdev="veth2"')" 1 "metric: rocecc_module_attached{veth2} 1 (ours)"
tap_is "$(rd_metric "$work/m0" rocecc_dp_np_cnp_sent_total 'netdev="veth1",engine="module"')" 0 "metric: the module's counters are exported (engine=\"module\")"

# --- traffic, and a restart under it ------------------------------------
DP_RG_TIMEOUT=120 dp_rg_server rxe2 $port 1 || tap_bail "rocegen server"
DP_RG_PEER=$(topo_ip 2) DP_RG_TIMEOUT=120 dp_rg_client 1 $port "$work/c.json" \
	--duration 24 --rate 4 --burst 16K --cpu 0 >/dev/null 2>"$work/c.err" &
cpid=$!
sleep 5
flow_pkts() {	# tx packets of rocegen's flow on veth1, from /flows.json
	rd_get flows.json | jq -r --arg p "$(topo_ip 2)" \
		'[.[] | select(.netdev == "veth1" and .peer == $p and .comm == "rocegen")] | if length == 1 then .[0].counters.tx_packets else "none" end'
}
p1=$(flow_pkts)
tap_ok $(( ! ( p1 > 0 ) )) "rocegen's flow counted before the restart ($p1 packets)"
name1=$(rd_get flows.json | jq -r --arg p "$(topo_ip 2)" '.[] | select(.netdev == "veth1" and .peer == $p) | .flow')
rd_stop
tap_cmp $? -eq 0 "SIGTERM under traffic: exit 0"
grep -q 'STOPPING=1' "$RD_NOTIFY"
tap_ok $? "sd_notify STOPPING=1"
tap_cmp "$(filters)" -eq 0 "stopped: its filters are gone"
tap_is "$(attached)" "" "stopped: rocecc.ko detached from what it attached"
[ -e "$pin/flows" ]
tap_ok $? "the flow table stays pinned in $pin"
rd_start "$log" -c "$conf"
rd_wait_ready 2
tap_ok $? "restarted: READY=1"
grep -q "adopted [1-9][0-9]* flows pinned in $pin" "$log"
tap_ok $? "the log says it adopted the pinned flows" || tap_diag "$(tail -n 5 "$log")"
sleep 2
p2=$(flow_pkts)
tap_ok $(( ! ( p2 > p1 ) )) "the same flow carries on: tx packets $p1 -> $p2 (no reset)"
name2=$(rd_get flows.json | jq -r --arg p "$(topo_ip 2)" '.[] | select(.netdev == "veth1" and .peer == $p) | .flow')
tap_is "$name2" "$name1" "... under the same name ($name2)"
tap_is "$(attached)" "veth1 veth2 veth3" "rocecc.ko attached again after the restart"

# --- SIGHUP: a bad file changes nothing; a good one is applied ----------
cp "$conf" "$work/good.conf"
echo "bogus = 1" >>"$conf"
kill -HUP "$RD_PID"
sleep 1.5
grep -q "reload refused, the configuration stays as it was: $conf:$n: \[straggler\] bogus: " "$log"
tap_ok $? "SIGHUP with a bad file: refused, naming file, line and key" || tap_diag "$(tail -n 3 "$log")"
kill -0 "$RD_PID"
tap_ok $? "... the daemon runs on"
rd_get metrics >"$work/m1"
tap_is "$(rd_metric "$work/m1" rocecc_config_reload_errors_total)" 1 "... counted: rocecc_config_reload_errors_total 1"
rd_get config | grep -q '^factor = 3'
tap_ok $? "... /config still has factor 3"
good "$conf" 4 9
kill -HUP "$RD_PID"
sleep 1.5
rd_get config >"$work/config"
grep -q '^factor = 4' "$work/config"
tap_ok $? "SIGHUP with a good file: /config has factor 4" || tap_diag "$(cat "$work/config")"
v=$(ai_rate)
tap_is "$v" 9 "... and veth1's rp_ai_rate follows (9)"
rd_get metrics >"$work/m2"
tap_is "$(rd_metric "$work/m2" rocecc_config_reloads_total)" 1 "rocecc_config_reloads_total 1"
tap_cmp "$(grep -c 'RELOADING=1' "$RD_NOTIFY")" -eq 2 "sd_notify RELOADING=1 for each SIGHUP"

# --- a RoCE netdev disappears while traffic flows elsewhere -------------
ip link del veth3
sleep 1.5
kill -0 "$RD_PID"
tap_ok $? "veth3 deleted: the daemon runs on"
rd_get metrics >"$work/m3"
tap_is "$(rd_metric "$work/m3" rocecc_netdevs)" 2 "rocecc_netdevs 2"
v=$(rd_metric "$work/m3" rocecc_rdma_hw_stat_total 'dev="rxe1",port="1",name="sent_pkts"')
tap_ok $(( ! ( v > 0 ) )) "metric: rxe1's hw_counters (sent_pkts $v)"
v=$(rd_metric "$work/m3" rocecc_netdev_tx_bytes_total 'netdev="veth1"')
tap_ok $(( ! ( v > 0 ) )) "metric: per-netdev RoCE bytes (veth1 tx $v)"
if command -v promtool >/dev/null; then
	out=$(promtool check metrics <"$work/m3" 2>&1)
	tap_ok $? "promtool check metrics (module, hw and netdev series)" || tap_diag "$out"
fi
tap_is "$(rd_unlisted "$work/m3")" "" \
	"roceccd --list-metrics lists the $(grep -c '^# TYPE' "$work/m3") families of /metrics"
[ -d "${ROCECC_VM_OUT_DIR:-}" ] && cp "$work/m3" "$ROCECC_VM_OUT_DIR/t_roceccd_ops.metrics"
rd_get events.json >"$work/ev.json"
jq -e '.events | map(select(.type == "netdev_gone" and .netdev == "veth3")) | length == 1' "$work/ev.json" >/dev/null
tap_ok $? "/events.json: netdev_gone veth3" || tap_diag "$(cat "$work/ev.json")"
tap_is "$(attached)" "veth1 veth2" "rocecc.ko: veth3 gone, veth1 veth2 attached"

wait "$cpid"
tap_cmp $? -eq 0 "rocegen ran through restart, reloads and the removal: exit 0" || tap_diag "$(cat "$work/c.err")"
tap_cmp "$(jq '.total.errors' "$work/c.json")" -eq 0 "... with no completion error"
tap_diag "rocegen: $(jq -c '.total | {messages, errors}' "$work/c.json")"

# --- clean shutdown ------------------------------------------------------
rd_stop
tap_cmp $? -eq 0 "SIGTERM: exit 0"
tap_cmp "$(filters)" -eq 0 "no flowmon filter left"
tap_is "$(attached)" "" "rocecc.ko detached from every device it attached"
tc qdisc show dev veth1 | grep -q clsact
tap_ok $? "the clsact it created is kept (removing it would reset the root qdisc)"
n=$( { tc filter show dev veth1 ingress; tc filter show dev veth1 egress; } 2>/dev/null | wc -l)
tap_cmp "$n" -eq 0 "... with no filter in it"
tap_is "$(rootq veth1)" noqueue "veth1's default root qdisc is back"
tap_is "$(rd_metric "$work/m3" rocecc_module_errors_total)" 0 "no failed request to rocecc.ko"
tap_diag "$(cat "$log")"
tap_done
