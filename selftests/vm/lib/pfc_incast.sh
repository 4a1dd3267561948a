# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# pfc_incast.sh - an N-to-1 incast of RDMA WRITEs on the lossless priority 3
# (GRH traffic class 104 = DSCP 26) through the testbed's RED/ECN bottleneck,
# with and without PFC and DCQCN. Sourced after topo.sh, dp.sh and
# incast.sh (its profile scaling, incast_scale, and its report's figures);
# the table comes from lib/pfc_incast_report.py. Used by t_pfc_incast.t.
#
#   pfc_setup N RATE KMIN KMAX PMAX LIMIT
#       hosts 1..N send, host N+1 receives; the switch port toward it is a
#       RATE Mbit/s HTB with RED ECN (bytes) and a hard limit of LIMIT bytes
#       (tail drop above it, ECN or not); fq on every host, with the
#       senders' line rate PFC_LINK_MBIT (30) as maxrate; rocecc.ko loaded
#   pfc_mode MODE
#       none    the senders attached to rocecc.ko (it marks their packets
#               ECT(0), RED marks CE), the receiver not (no NP, so no CNPs
#               and the RPs never act): nobody reacts, rxe's window fills
#               the queue up to the hard limit
#       pfc     the same, plus PFC: software DCB "prio-pfc 3:on" on the
#               senders, a root "rocecc" qdisc there (fq under every class;
#               class 1:4 is priority 3) that pauses priority 3 when a PFC
#               frame says so, and pfcswitch on the switch (XOFF at PFC_XOFF bytes of
#               backlog, XON at PFC_XON) during each run
#       dcqcn   every host attached, the paper profile scaled to the
#               bottleneck with its time constants (incast.sh's paper-time,
#               whose queue p99 stays below Kmax in t_incast.t)
#       both    dcqcn plus pfc
#   pfc_host_level
#       how much of the host side of PFC rocecc.ko has: 0 none, 1 software
#       DCB only (frames counted in indications, nothing paused), 2 DCB and
#       the rocecc qdisc; below 2 the pfc modes still run pfcswitch, whose
#       frames reach the senders and pause nothing
#   pfc_run TAG SECS
#       one run: rocegen clients (PFC_DEPTH 16 KB WRITEs outstanding each),
#       everything measured in $INCAST_DIR/TAG/: incast_run's files, plus
#       pfc.json (pfcswitch's statistics), dcbH.{before,after}.json
#       (dcb -s pfc show of the senders), tcH.json (the senders' qdiscs),
#       and with PFC_CAPTURE=1 cap1.pcap (the PFC frames veth1 received)
#   pfc_report TAG... / pfc_fig TAG KEY
#   pfc_teardown

PFC_PRIO=${PFC_PRIO:-3}
PFC_TCLASS=${PFC_TCLASS:-104}	# DSCP 26 << 2, Not-ECT: priority 26 >> 3 = 3
PFC_XOFF=${PFC_XOFF:-60000}
PFC_XON=${PFC_XON:-40000}
PFC_DEPTH=${PFC_DEPTH:-8}
# The senders' line rate (fq maxrate, Mbit/s; 0: none). A veth has none:
# paused senders then release their whole backlog at CPU speed (~30 KB/ms
# under TCG) on XON, faster than the switch's polls (1-2 ms apart, tens
# of ms at worst) can stop it, and the PFC headroom would have to hold
# everything in flight. A 30 Mbit/s host link (3 x 30 into 20: the incast
# still overloads the port 4.5 times) releases ~11 KB/ms.
PFC_LINK_MBIT=${PFC_LINK_MBIT:-30}
# The speed pause quanta count at on both ends (rocecc.ko's pfc_speed_mbps
# on the senders, pfcswitch --speed; empty: the line rate; 0: the veth's
# nominal 10 Gb/s). At the line rate, as on a real link, 65535 quanta are
# 1.12 s at 30 Mbit/s: a pause holds until the XON, and pfcswitch
# refreshes it every 0.56 s (half of it). At 10 Gb/s they are 3.36 ms,
# refreshed every PFC_REFRESH_US (default 0.5 ms then): a pause ran out
# whenever the guest's CPU that runs pfcswitch was held up longer than
# that (under TCG the host deschedules a vCPU for milliseconds), and the
# senders sent into a queue above xoff (pfcswitch counts these lapses).
PFC_SPEED_MBIT=${PFC_SPEED_MBIT:-}
PFC_REFRESH_US=${PFC_REFRESH_US:-}
PFC_CAPTURE=${PFC_CAPTURE:-0}
PFC_MODE=
PFC_HOST=

_pfc_speed() { echo "${PFC_SPEED_MBIT:-${PFC_LINK_MBIT:-0}}"; }

# fq options of sender H (its line rate) and of the receiver
_pfc_fq() {
	local o="flow_limit 1000"
	[ "$1" -le "$INCAST_N" ] && [ "${PFC_LINK_MBIT:-0}" != 0 ] && o+=" maxrate ${PFC_LINK_MBIT}mbit"
	echo "$o"
}

pfc_setup() {
	local n=$1 h
	INCAST_N=$n INCAST_RATE=$2
	[ -n "$INCAST_DIR" ] || INCAST_DIR=$(mktemp -d /tmp/pfc_incast.XXXXXX)
	topo_setup $((n + 1)) || return 1
	topo_bottleneck_limit $((n + 1)) "$2" "$3" "$4" "$5" "$6" || return 1
	for ((h = 1; h <= n + 1; h++)); do
		# shellcheck disable=SC2046
		tc qdisc replace dev "veth$h" root fq $(_pfc_fq "$h") || return 1
	done
	echo "$2 $3 $4 $5" >"$INCAST_DIR/bottleneck"
	echo "$6" >"$INCAST_DIR/limit"
	: >"$INCAST_DIR/params"
	[ -d /sys/module/rocecc ] || dp_load || return 1
}

# rocecc.ko's sysctl directory of an attached device (no rocecc start)
_pfc_attached() { [ -d "/proc/sys/net/rocecc/veth$1" ]; }

# The sender's queueing back to a plain fq, PFC off.
_pfc_host_off() {
	local h=$1
	# shellcheck disable=SC2046
	tc qdisc replace dev "veth$h" root fq $(_pfc_fq "$h") || return 1
	if _pfc_attached "$h"; then
		dcb pfc set dev "veth$h" prio-pfc all:off 2>/dev/null
	fi
	return 0
}

# PFC on sender H: DCB prio-pfc (PFC_HOST >= 1), and with PFC_HOST 2 a
# root rocecc qdisc with fq under every priority's class (class 1:P+1 is
# priority P, fq handle 4P+1:; rocecc.ko paces only if every band is fq).
_pfc_host_on() {
	local h=$1 lvl=${2:-$PFC_HOST} out c
	out=$(dcb pfc set dev "veth$h" prio-pfc "$PFC_PRIO:on" 2>&1) ||
		{ echo "dcb pfc set dev veth$h prio-pfc $PFC_PRIO:on failed: $out" >&2; return 1; }
	[ "$lvl" -ge 2 ] || return 0
	tc qdisc del dev "veth$h" root 2>/dev/null
	out=$(tc qdisc add dev "veth$h" root handle 1: rocecc 2>&1) ||
		{ echo "tc qdisc add dev veth$h root handle 1: rocecc failed: $out" >&2; return 1; }
	for c in 1 2 3 4 5 6 7 8; do
		# shellcheck disable=SC2046
		out=$(tc qdisc add dev "veth$h" parent "1:$c" handle "4$c:" fq $(_pfc_fq "$h") 2>&1) ||
			{ echo "fq under 1:$c of veth$h failed: $out" >&2; return 1; }
	done
}

# pfc_host_level: how much of the host side of PFC rocecc.ko has, tried
# once on veth1 (which must be attached; left as it was): 0 nothing, 1
# software DCB (PFC frames counted as indications, nothing paused), 2 DCB
# and the rocecc qdisc (PFC frames pause the priority).
pfc_host_level() {
	if [ -z "$PFC_HOST" ]; then
		PFC_HOST=0
		if _pfc_attached 1 && _pfc_host_on 1 1 2>/dev/null; then
			PFC_HOST=1
			_pfc_host_on 1 2 2>/dev/null && PFC_HOST=2
		fi
		_pfc_host_off 1
	fi
	echo "$PFC_HOST"
}

pfc_mode() {
	local mode=$1 h scale n1=$((INCAST_N + 1))
	case $mode in
	none|pfc|dcqcn|both) ;;
	*) echo "pfc_mode: unknown mode '$mode' (none, pfc, dcqcn, both)" >&2; return 1 ;;
	esac
	# start from scratch: plain fq, nothing attached (default parameters)
	for ((h = 1; h <= n1; h++)); do
		_pfc_host_off "$h" || return 1
		if _pfc_attached "$h"; then
			"$DP_CLI" dev detach "veth$h" || return 1
		fi
	done
	# taken at attach (0: the device's own speed)
	_pfc_speed >/sys/module/rocecc/parameters/pfc_speed_mbps || return 1
	for ((h = 1; h <= n1; h++)); do
		# the receiver only with DCQCN: its NP is what sends CNPs
		[ "$h" = "$n1" ] && [ "$mode" != dcqcn ] && [ "$mode" != both ] && continue
		"$DP_CLI" dev attach "veth$h" || return 1
	done
	if [ "$mode" = dcqcn ] || [ "$mode" = both ]; then
		for ((h = 1; h <= n1; h++)); do
			incast_param "veth$h" paper || return 1
		done
		scale=$(incast_scale paper "$INCAST_RATE" time) || return 1
		for ((h = 1; h <= n1; h++)); do
			# shellcheck disable=SC2086
			incast_param "veth$h" - $scale || return 1
		done
		echo "$mode: paper-time $scale" >>"$INCAST_DIR/params"
	fi
	if [ "$mode" = pfc ] || [ "$mode" = both ]; then
		pfc_host_level >/dev/null
		if [ "$PFC_HOST" -ge 1 ]; then
			for ((h = 1; h <= INCAST_N; h++)); do
				_pfc_host_on "$h" || return 1
			done
		fi
		echo "$mode: pfcswitch prio $PFC_PRIO xoff $PFC_XOFF xon $PFC_XON, quanta at $(_pfc_speed) Mbit/s, host PFC level $PFC_HOST" >>"$INCAST_DIR/params"
	fi
	PFC_MODE=$mode INCAST_MODE=$mode
}

_pfc_snap() {	# DIR SUFFIX: the senders' DCB PFC state and qdiscs
	local h
	for ((h = 1; h <= INCAST_N; h++)); do
		dcb -j -s pfc show dev "veth$h" >"$1/dcb$h.$2.json" 2>/dev/null || rm -f "$1/dcb$h.$2.json"
		tc -s -j qdisc show dev "veth$h" >"$1/tc$h.$2.json" 2>/dev/null
	done
}

pfc_run() {
	local tag=$1 secs=$2 d h pids=() st=0 srv cap="" n1=$((INCAST_N + 1))
	d=$INCAST_DIR/$tag
	mkdir -p "$d" || return 1
	INCAST_PORT=$((INCAST_PORT + 1))
	echo "$PFC_MODE $INCAST_N $secs ${INCAST_CONV:-3}" >"$d/run"
	timeout $((secs + 60)) "$DP_RG" --server --dev "rxe$n1" \
		--port "$INCAST_PORT" --sessions "$INCAST_N" -Q >/dev/null 2>"$d/srv.err" &
	srv=$!
	topo_wait_listen "$INCAST_PORT" 30 || return 1
	if [ "$PFC_CAPTURE" = 1 ]; then
		timeout $((secs + 60)) tcpdump -U -i veth1 -w "$d/cap1.pcap" ether proto 0x8808 2>"$d/tcpdump.err" &
		cap=$!
		local end=$((SECONDS + 15))
		until grep -q listening "$d/tcpdump.err" 2>/dev/null || [ "$SECONDS" -ge "$end" ]; do
			_topo_sleep 0.1
		done
	fi
	topo_counters >"$d/before" || return 1
	incast_devs "$d/devs.before.json" || return 1
	_pfc_snap "$d" before
	if [ "$PFC_MODE" = pfc ] || [ "$PFC_MODE" = both ]; then
		local sp sw=()
		sp=$(_pfc_speed)
		[ "$sp" = 0 ] || sw+=(--speed "$sp")
		if [ -n "$PFC_REFRESH_US" ]; then
			sw+=(--refresh-us "$PFC_REFRESH_US")
		elif [ "$sp" = 0 ]; then
			sw+=(--refresh-us 500)
		fi
		topo_pfc_start "$n1" "$PFC_PRIO" "$PFC_XOFF" "$PFC_XON" "$d/pfc.json" \
			"${sw[@]}" || return 1
	fi
	topo_backlog_start "$n1" 20 "$d/backlog" || return 1
	# ACK timeout 16 (268 ms), not the default 14: the "pfc" mode (no
	# DCQCN) holds the senders in XOFF with the switch queue at xoff, and
	# rxe's timer counts both; the four modes share one setting.
	for ((h = 1; h <= INCAST_N; h++)); do
		timeout $((secs + 60)) "$DP_RG" --client "$(topo_ip "$n1")" \
			--port "$INCAST_PORT" --dev "rxe$h" --cpu $(((h - 1) % 2)) \
			--op write --size 16K --duration "$secs" --depth "$PFC_DEPTH" \
			--timeout 16 --tclass "$PFC_TCLASS" --allow-errors -Q \
			--json "$d/c$h.json" 2>"$d/c$h.err" &
		pids+=($!)
	done
	for h in "${pids[@]}"; do wait "$h" || st=1; done
	wait "$srv" || st=1
	topo_backlog_stop
	topo_pfc_stop || st=1
	topo_counters >"$d/after" || return 1
	incast_devs "$d/devs.json" || st=1
	_pfc_snap "$d" after
	if [ -n "$cap" ]; then
		pfc_cap_wait "$d/cap1.pcap" "$(topo_pfc_stat "$d/pfc.json" ports.swp1.frames)"
		kill -INT "$cap" 2>/dev/null
		wait "$cap" 2>/dev/null
	fi
	[ $st = 0 ] || cat "$d"/*.err "$d"/pfc.json.log >&2 2>/dev/null
	return $st
}

# pfc_cap_wait PCAP N: wait (10 s at most) until the capture holds N
# 60-byte frames: tcpdump may not have read the last ones yet under TCG.
pfc_cap_wait() {
	local want=$((24 + $2 * (16 + 60))) end=$((SECONDS + 10)) sz
	while :; do
		sz=$(stat -c %s "$1" 2>/dev/null || echo 0)
		[ "$sz" -ge "$want" ] || [ "$SECONDS" -ge "$end" ] && break
		_topo_sleep 0.2
	done
}

pfc_teardown() {
	topo_pfc_stop
	topo_backlog_stop
	local h
	for ((h = 1; h <= TOPO_N; h++)); do
		tc qdisc del dev "veth$h" root 2>/dev/null
		_pfc_attached "$h" && "$DP_CLI" dev detach "veth$h"
	done
	topo_teardown
	if [ -d /sys/module/rocecc ]; then
		dp_unload || return 1
	fi
	PFC_MODE=""
	INCAST_MODE=""
}

pfc_report() {
	"$DP_PY" "$DP_LIB/pfc_incast_report.py" --dir "$INCAST_DIR" \
		--figures "$INCAST_DIR/figures" "$@"
}

# the last line of TAG (bash's read, no grep and tail: see incast_fig)
pfc_fig() {
	local tag kvs last=
	while read -r tag kvs; do
		[ "$tag" = "$1" ] && last=$kvs
	done <"$INCAST_DIR/figures"
	dp_kv "$last" "$2"
}
