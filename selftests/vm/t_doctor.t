#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rocecc doctor on a soft-RoCE host, one guest:
#  - a healthy host 1 (rocecc.ko attached, the rocecc root qdisc with fq
#    under every class, PFC on the RoCE priority 3 with the CNPs, buffers
#    above the headroom, jumbo MTU, RoCE v2, a QP with rocegen's default
#    timeout, roceccd running with a configuration that says all this):
#    every check PASS (or SKIP), exit 0, text and JSON agreeing;
#  - then one condition at a time is broken, and the check that covers it
#    fails (or warns) with the expected fix command; running that command
#    makes the check PASS again: roceccd stopped, the root qdisc replaced
#    by pfifo, the CNP's priority moved off its DSCP's (lossless) priority,
#    PFC off on the RoCE priority, a buffer below the headroom, the MTU
#    below what RoCE MTU 4096 needs, a QP whose ACK timeout (11, set by
#    rocegen) is shorter than the default pacing budget, and the module
#    detached (no engine, no ECT marking);
#  - with everything mended and roceccd back: exit 0 again.
# The GID type cannot be broken on rxe: its ports do RoCE v2 only
# (RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP), so ib_core gives every address one
# RoCE v2 GID and nothing else, and rdma_cm refuses a RoCE v1 default mode
# for them (EINVAL), which the test checks; the gid check's FAIL cases
# (v1 GIDs only, rdma_cm on v1) are covered by the unit tests.
# roceccd puts back what its configuration says (PFC, buffers, CNP
# parameters), so it is stopped while the other conditions are broken.
# Run: scripts/vm --test selftests/vm/t_doctor.t

top=$(cd "$(dirname "$0")/../.." && pwd)
lib=$top/selftests/vm/lib
. "$lib/tap.sh"
. "$lib/topo.sh"
. "$lib/dp.sh"
tap_require_vm

export PATH=$top/build/daemon:$PATH
[ -x "$top/build/daemon/roceccd" ] || tap_bail "roceccd missing: make -C daemon"
work=$(mktemp -d /tmp/vm_doctor.XXXXXX)
conf=$work/roceccd.conf
pidf=$work/roceccd.pid
port=9473
cm=/sys/kernel/config/rdma_cm
trap 'kill $(jobs -p) 2>/dev/null; stop_rd; rmdir "$cm/rxe1" 2>/dev/null; topo_teardown; rmmod rocecc 2>/dev/null; rm -rf "$work"' EXIT

stop_rd() {
	local pid
	read -r pid <"$pidf" 2>/dev/null || return 0
	kill "$pid" 2>/dev/null
	while kill -0 "$pid" 2>/dev/null; do _topo_sleep 0.1; done
	rm -f "$pidf"
}

# DOC_RC, and DOC_ST / DOC_FIX / DOC_FOUND of check $1 (of veth1, or the
# host's), from one "rocecc -j doctor" run; the JSON stays in $work/doc.json.
# Read with jq: a python3 start costs seconds in the TCG guest, and the
# test runs doctor some thirty times. DOC_N and DOC_US: runs and time.
DOC_N=0 DOC_US=0
doc() {
	local t0=${EPOCHREALTIME/./}
	rocecc -j doctor dev veth1 config "$conf" pidfile "$pidf" \
		>"$work/doc.json" 2>"$work/doc.err"
	DOC_RC=$?
	# fields split at \x1f: an empty one stays in its place
	IFS=$'\x1f' read -r DOC_ST DOC_FIX DOC_FOUND < <(jq -r --arg c "$1" '
		.[] | select(.check == $c) |
		[.status, .fix // "", .found // ""] | join("\u001f")' "$work/doc.json")
	DOC_N=$(( DOC_N + 1 ))
	DOC_US=$(( DOC_US + ${EPOCHREALTIME/./} - t0 ))
}

# roceccd answers once it has found the netdevs (doctor's roceccd check
# reads its rocecc_netdev_info): up to 10 s; then doctor's word on it
wait_rd() {
	local i
	for i in $(seq 100); do
		curl -sf --max-time 2 "http://127.0.0.1:$port/metrics" 2>/dev/null |
			grep -q '^rocecc_netdev_info{.*netdev="veth1"' && break
		_topo_sleep 0.1
	done
	doc roceccd
	[ "$DOC_ST" = PASS ]
}

# mend CHECK DESC: run the fix of the last doc, then CHECK must PASS
mend() {
	local out
	out=$(sh -c "$DOC_FIX" 2>&1)
	tap_ok $? "$2: the fix runs" || tap_diag "$DOC_FIX: $out"
	doc "$1"
	tap_is "$DOC_ST" PASS "$2: $1 PASS after the fix" || tap_diag "$DOC_FOUND"
}

# broken CHECK STATUS FIX DESC: the last doc's CHECK has STATUS and FIX
broken() {
	tap_is "$DOC_ST" "$2" "$4: $1 $2" || tap_diag "$(cat "$work/doc.json")"
	tap_diag "$1: $DOC_FOUND"
	tap_is "$DOC_FIX" "$3" "$4: fix '$3'"
}

# --- a healthy host ---------------------------------------------------------------

healthy() {
	tc qdisc replace dev veth1 root handle 1: rocecc || return 1
	for c in 1 2 3 4 5 6 7 8; do
		tc qdisc replace dev veth1 parent 1:$c fq flow_limit 1000 || return 1
	done
	rocecc dev attach veth1 2>/dev/null || rocecc dev show veth1 >/dev/null || return 1
	rocecc param set dev veth1 np_cnp_dscp 26 np_cnp_prio 3 &&
		rocecc pfc set dev veth1 prio-pfc 3:on &&
		rocecc buffer set dev veth1 prio-buffer all:0 3:1 buffer-size 0:200K,1:56K
}

tap_run "ib_core, rdma_rxe, rdma_cm and rocecc.ko load" dp_load || tap_bail "no module"
modprobe rdma_cm
mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config
tap_run "2-host topology comes up" topo_setup 2 || tap_bail "no topology"
for i in 1 2; do
	ip link set dev "veth$i" mtu 4200
	ip -n switch link set dev "swp$i" mtu 4200
done
# flows stay in the module's table for the whole test
echo 600000 >/sys/module/rocecc/parameters/flow_idle_ms
tap_run "host 1 set up: rocecc root + fq, attached, CNP 26/3, PFC 3, buffers" healthy
cat >"$conf" <<CONF
[daemon]
port = $port
interval = 200ms
pin_dir = none
[module]
attach = yes
devices = veth1
np_cnp_dscp = 26
np_cnp_prio = 3
[pfc]
devices = veth1
priorities = 3
prio2buffer = all:0,3:1
CONF
tap_run "roceccd starts (adopts the attachment)" roceccd -c "$conf" --pidfile "$pidf"

# a QP with rocegen's default timeout (14), long enough for the module to
# learn its timeout
DP_RG_TIMEOUT=60 dp_rg_server rxe2 18610 1 >/dev/null 2>&1
tap_run "rocegen: 2 s of 16K WRITEs on one QP (timeout 14)" \
	dp_rg_client 1 18610 /dev/null --size 16K -D 2
wait "$DP_SRV_PID" 2>/dev/null

wait_rd
out=$(rocecc doctor dev veth1 config "$conf" pidfile "$pidf")
rc=$?
tap_diag "$out"
tap_cmp $rc -eq 0 "healthy host: rocecc doctor exits 0"
doc engine
tap_cmp $DOC_RC -eq 0 "... and so does rocecc -j doctor"
jq -e 'length == 12 and
	([.[] | select(.status != "PASS" and .status != "SKIP")] | length) == 0 and
	([.[].check] | unique | length) == 12 and
	(map({(.check): .status}) | add | .ack_timeout) == "PASS"' "$work/doc.json" >/dev/null
tap_ok $? "twelve checks, none WARN or FAIL; ack_timeout saw the QP" ||
	tap_diag "$(cat "$work/doc.json")"
n=$(grep -c '^  PASS ' <<<"$out")
tap_cmp "$n" -eq "$(grep -o '"PASS"' "$work/doc.json" | wc -l)" "text and JSON agree on the PASSes"

# --- roceccd stopped ----------------------------------------------------------------

stop_rd
doc roceccd
broken roceccd FAIL "roceccd -c $conf --pidfile $pidf" "roceccd stopped"
tap_cmp $DOC_RC -eq 2 "roceccd stopped: exit 2"
sh -c "$DOC_FIX"
wait_rd
tap_is "$DOC_ST" PASS "roceccd stopped: roceccd PASS after the fix" || tap_diag "$DOC_FOUND"
stop_rd			# it would put back what the cases below break

# --- the conditions, one at a time ---------------------------------------------------

tc qdisc replace dev veth1 root pfifo
doc qdisc
broken qdisc FAIL "tc qdisc replace dev veth1 root handle 1: rocecc$(for c in 1 2 3 4 5 6 7 8; do
	printf ' && tc qdisc replace dev veth1 parent 1:%s fq flow_limit 1000' $c; done)" "root pfifo"
mend qdisc "root pfifo"

rocecc param set dev veth1 np_cnp_prio 0
doc cnp
broken cnp FAIL "rocecc param set dev veth1 np_cnp_prio 3" "CNPs on lossy priority 0"
mend cnp "CNPs on lossy priority 0"

rocecc pfc set dev veth1 prio-pfc 3:off
tap_diag "$(rocecc doctor dev veth1 config "$conf" pidfile "$pidf")"
doc pfc
broken pfc FAIL "rocecc pfc set dev veth1 prio-pfc 3:on" "PFC off on 3"
mend pfc "PFC off on 3"

rocecc buffer set dev veth1 buffer-size 1:8K
doc buffer
broken buffer FAIL "rocecc buffer set dev veth1 buffer-size 0:233K,1:23K" "buffer 1 of 8K"
mend buffer "buffer 1 of 8K"

ip link set dev veth1 mtu 1500
doc mtu
broken mtu WARN "ip link set dev veth1 mtu 4176" "MTU 1500"
mend mtu "MTU 1500"

mkdir -p "$cm/rxe1"
echo "IB/RoCE v1" 2>/dev/null >"$cm/rxe1/ports/1/default_roce_mode"
tap_cmp $? -ne 0 "rxe: rdma_cm refuses RoCE v1 (the port does RoCE v2 only)"
doc gid
tap_is "$DOC_ST" PASS "rxe: gid PASS, rdma_cm's mode read from configfs" ||
	tap_diag "$DOC_FOUND"
grep -q "rdma_cm default RoCE v2" <<<"$DOC_FOUND"
tap_ok $? "... as RoCE v2 ($DOC_FOUND)"
rmdir "$cm/rxe1"

# timeout 11: 8.4 ms, one jiffy surely waited at HZ 250 (4 ms), budget
# 20 % of it (pacing_budget_pct): 0.8 ms
DP_RG_TIMEOUT=60 dp_rg_server rxe2 18611 1 >/dev/null 2>&1
tap_run "rocegen: 2 s of 16K WRITEs on a QP with timeout 11" \
	dp_rg_client 1 18611 /dev/null --size 16K -D 2 --timeout 11
wait "$DP_SRV_PID" 2>/dev/null
doc ack_timeout
broken ack_timeout FAIL "echo 800 > /sys/module/rocecc/parameters/pacing_default_budget_us" \
	"a QP with timeout 11"
mend ack_timeout "a QP with timeout 11"

rocecc dev detach veth1
doc ect
broken ect FAIL "rocecc dev attach veth1" "module detached"
doc engine
tap_is "$DOC_ST" FAIL "module detached: engine FAIL (the configuration attaches it)"
doc ect
mend ect "module detached"
# the detach took the device's software DCB and parameters with it
tap_run "host 1 set up again" healthy

# --- mended -----------------------------------------------------------------------------

tap_run "roceccd starts again" roceccd -c "$conf" --pidfile "$pidf"
wait_rd
out=$(rocecc doctor dev veth1 config "$conf" pidfile "$pidf")
rc=$?
tap_cmp $rc -eq 0 "everything mended: exit 0" || tap_diag "$out"
tap_diag "rocecc -j doctor: $DOC_N runs, $(( DOC_US / 1000000 )) s; the test: $SECONDS s"

tap_done
