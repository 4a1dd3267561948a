#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PFC and DCB buffers over DCB netlink from rocecc (CLI) and roceccd's [pfc]
# section, against rocecc.ko's software DCB on a veth:
#  - rocecc pfc show/set and buffer show/set agree with iproute2's dcb both
#    ways; bad tokens are named (exit 2), a refused buffer set and a netdev
#    without DCB are errors with the reason (exit 1);
#  - roceccd applies [pfc] when it attaches the module (buffer_size = auto is
#    the headroom calculator's size, as "rocecc pfc headroom" prints it),
#    exports rocecc_pfc_* metrics, applies a reload, applies again after the
#    module was detached behind its back, and after a restart (nothing lost);
#  - a bad [pfc] value stops roceccd before it touches anything.
# Run: scripts/vm --test selftests/vm/t_roceccd_pfc.t

top=$(cd "$(dirname "$0")/../.." && pwd)
lib=$top/selftests/vm/lib
. "$lib/tap.sh"
. "$lib/topo.sh"
. "$lib/dp.sh"
tap_require_vm

R=$DP_CLI
RD=$top/build/daemon/roceccd
[ -x "$RD" ] || tap_bail "$RD missing: make -C daemon"
work=$(mktemp -d /tmp/vm_rdpfc.XXXXXX)
rdpid=
trap 'kill $(jobs -p) 2>/dev/null; topo_teardown; rmmod rocecc 2>/dev/null; rm -rf "$work"' EXIT
mport=9471

tap_run "ib_core, rdma_rxe and rocecc.ko load" dp_load || tap_bail "no module"
tap_run "2-host topology comes up" topo_setup 2 || tap_bail "no topology"
tap_run "fq on veth1" dp_fq 1

# --- the CLI against dcb -------------------------------------------------------------

out=$("$R" pfc show dev veth1 2>&1)
tap_cmp $? -eq 1 "before attach: rocecc pfc show fails (exit 1)"
grep -q "veth1: no DCB support" <<<"$out"
tap_ok $? "... and says the netdev has no DCB ($out)"
tap_run "attach veth1" dp_attach 1 || tap_bail "no attach"

tap_run "rocecc pfc set prio-pfc 3:on,4:on delay 100 mbc on" \
	"$R" pfc set dev veth1 prio-pfc 3:on,4:on delay 100 mbc on
out=$(dcb pfc show dev veth1)
grep -q "prio-pfc 0:off 1:off 2:off 3:on 4:on 5:off 6:off 7:off" <<<"$out" &&
	grep -q "macsec-bypass on delay 100" <<<"$out"
tap_ok $? "dcb pfc show reads what rocecc set" || tap_diag "$out"

tap_run "dcb pfc set prio-pfc 4:off" dcb pfc set dev veth1 prio-pfc 4:off
out=$("$R" -j pfc show dev veth1)
python3 -c '
import json, sys
d = json.loads(sys.argv[1])[0]
sys.exit(0 if d["pfc_en"] == [3] and d["delay"] == 100 and d["mbc"] and
         d["pfc_cap"] == 8 and len(d["prios"]) == 8 else 1)' "$out"
tap_ok $? "rocecc -j pfc show reads what dcb set" || tap_diag "$out"

out=$("$R" pfc set dev veth1 prio-pfc 9:on 2>&1)
tap_cmp $? -eq 2 "prio-pfc 9:on: exit 2"
tap_is "$out" "rocecc: pfc set: 'prio-pfc 9:on': priority must be 0..7" "... named"
out=$("$R" buffer set dev veth1 buffer-size 0:12G 2>&1)
tap_cmp $? -eq 2 "buffer-size 0:12G: exit 2 ($out)"

tap_run "rocecc buffer set prio-buffer all:0 3:1 buffer-size 0:100K,1:32K" \
	"$R" buffer set dev veth1 prio-buffer all:0 3:1 buffer-size 0:100K,1:32K
out=$(dcb buffer show dev veth1)
grep -q "prio-buffer 0:0 1:0 2:0 3:1 4:0 5:0 6:0 7:0" <<<"$out" &&
	grep -q "buffer-size 0:100Kb 1:32Kb 2:0b" <<<"$out"
tap_ok $? "dcb buffer show reads what rocecc set" || tap_diag "$out"
tap_run "dcb buffer set buffer-size 1:64K" dcb buffer set dev veth1 buffer-size 1:64K
out=$("$R" -j buffer show dev veth1)
python3 -c '
import json, sys
d = json.loads(sys.argv[1])[0]
sys.exit(0 if d["buffer_size"][:2] == [102400, 65536] and
         d["prio_buffer"][3] == 1 and d["total_size"] > 0 else 1)' "$out"
tap_ok $? "rocecc -j buffer show reads what dcb set" || tap_diag "$out"
out=$("$R" buffer set dev veth1 buffer-size 0:4000M 2>&1)
tap_cmp $? -eq 1 "buffers above the total: refused, exit 1"
grep -q "veth1: the driver refused the buffer settings" <<<"$out"
tap_ok $? "... with the reason ($out)"
out=$("$R" pfc show dev nonexist 2>&1)
tap_cmp $? -eq 1 "no such netdev: exit 1 ($out)"
tap_run "detach veth1" "$R" dev detach veth1

# --- roceccd [pfc] --------------------------------------------------------------------

conf=$work/rd.conf
cat >"$conf" <<'CONF'
[daemon]
interval = 200ms
pin_dir = none
[module]
attach = yes
devices = veth1
[pfc]
devices = veth1
priorities = 3
delay = 100
prio2buffer = all:0,3:1
buffer_size = auto
cable_length = 5m
CONF
speed=$(cat /sys/class/net/veth1/speed)
mtu=$(($(cat /sys/class/net/veth1/mtu) + 22))
size=$("$R" -j pfc headroom speed "$speed" mtu "$mtu" cable 5 |
	python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["size"])')
tap_diag "veth1: $speed Mb/s, frames up to $mtu B: headroom size $size B"

# wait_pfc WANT_EN SECONDS: rocecc -j pfc show dev veth1 has pfc_en WANT_EN
wait_pfc() {
	local i
	for i in $(seq $(($2 * 5))); do
		"$R" -j pfc show dev veth1 2>/dev/null | python3 -c '
import json, sys
sys.exit(0 if json.load(sys.stdin)[0]["pfc_en"] == json.loads(sys.argv[1]) else 1)' "$1" &&
			return 0
		_topo_sleep 0.2
	done
	"$R" pfc show dev veth1
	return 1
}

start_rd() {
	"$RD" -f -c "$conf" -p $mport -L info >>"$work/rd.log" 2>&1 &
	rdpid=$!
}

start_rd
tap_run "roceccd attaches the module and applies priorities = 3" wait_pfc "[3]" 15 ||
	tap_diag "$(cat "$work/rd.log")"
out=$("$R" -j buffer show dev veth1)
python3 -c '
import json, sys
d = json.loads(sys.argv[1])[0]; s = int(sys.argv[2])
sys.exit(0 if d["prio_buffer"] == [0, 0, 0, 1, 0, 0, 0, 0] and
         d["buffer_size"][1] == s and d["buffer_size"][0] == d["total_size"] - s and
         d["buffer_size"][2:] == [0] * 6 else 1)' "$out" "$size"
tap_ok $? "buffer_size = auto: buffer 1 (priority 3) gets $size B, buffer 0 the rest" ||
	tap_diag "$out"
dcb pfc show dev veth1 | grep -q "delay 100"
tap_ok $? "delay 100 (dcb pfc show)"
grep -q "veth1: PFC priorities none -> 3 (\[pfc\] priorities; netdev found" "$work/rd.log"
tap_ok $? "the log names the change and its reason" || tap_diag "$(cat "$work/rd.log")"
m=$(curl -sf "http://127.0.0.1:$mport/metrics")
grep -q '^rocecc_pfc_enabled{netdev="veth1",prio="3"} 1$' <<<"$m" &&
	grep -q '^rocecc_pfc_enabled{netdev="veth1",prio="4"} 0$' <<<"$m" &&
	grep -q "^rocecc_pfc_buffer_bytes{netdev=\"veth1\",buffer=\"1\"} $size\$" <<<"$m" &&
	grep -q '^rocecc_pfc_requests_total{netdev="veth1",prio="3"} 0$' <<<"$m" &&
	grep -q '^rocecc_pfc_indications_total{netdev="veth1",prio="3"} 0$' <<<"$m" &&
	grep -q '^rocecc_pfc_errors_total 0$' <<<"$m"
tap_ok $? "/metrics: rocecc_pfc_enabled, _requests_total, _indications_total, _buffer_bytes" ||
	tap_diag "$(grep rocecc_pfc <<<"$m")"

sed -i 's/^priorities = 3$/priorities = 3,4/' "$conf"
kill -HUP "$rdpid"
tap_run "SIGHUP with priorities = 3,4: applied" wait_pfc "[3, 4]" 10 ||
	tap_diag "$(cat "$work/rd.log")"

"$R" dev detach veth1
tap_run "module detached behind its back: roceccd attaches it and applies [pfc] again" \
	wait_pfc "[3, 4]" 10 || tap_diag "$(cat "$work/rd.log")"
grep -q "changed behind roceccd's back" "$work/rd.log"
tap_ok $? "... and says so in the log"

kill "$rdpid"
wait "$rdpid"
tap_cmp $? -eq 0 "roceccd exits 0 on SIGTERM"
! "$R" pfc show dev veth1 >/dev/null 2>&1
tap_ok $? "it detached the module it attached (the software DCB went with it)"
start_rd
tap_run "restarted: [pfc] applied again, nothing lost" wait_pfc "[3, 4]" 15 ||
	tap_diag "$(cat "$work/rd.log")"
kill "$rdpid"
wait "$rdpid"

sed -i 's/^delay = 100$/delay = 70000/' "$conf"
out=$("$RD" -f -c "$conf" -p $mport 2>&1)
tap_cmp $? -eq 1 "a bad [pfc] delay: roceccd exits 1"
tap_is "$out" "roceccd: $conf:10: [pfc] delay: '70000' is not an integer from 0 to 65535 (bits)" \
	"... naming file, line, key and value"
! "$R" pfc show dev veth1 >/dev/null 2>&1
tap_ok $? "... and attached nothing"

tap_done
