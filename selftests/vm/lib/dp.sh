# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# dp.sh - helpers of the datapath VM tests (t_ect_pacing.t, t_np.t, t_rp.t,
# t_safety.t), sourced after tap.sh and topo.sh.
#
# The engine under test is ROCECC_ENGINE: "module" (rocecc.ko, the
# default) or "bpf" (bpf/dcqcn.bpf.c, loaded, attached and detached by
# roceccd --datapath bpf, with no rocecc.ko loaded). The same script runs
# for both: the *_bpf.t entry files set ROCECC_ENGINE=bpf and run it.
# Parameters and profiles (rocecc param), flows (rocecc -j flow show) and
# counters (rocecc -j -s dev show) are the same commands and keys on both;
# what only the module has (its parameters in /sys/module, sysctl, its
# allocation counters) is behind dp_module_only.
#
#   DP_ENGINE                   module or bpf
#   dp_load                     ib_core + rdma_rxe, and rocecc.ko (module)
#   dp_fq H...                  fq (flow_limit 1000) as root qdisc of vethH
#   dp_attach H...              vethH driven by the engine: rocecc dev
#                               attach (module); roceccd --datapath bpf
#                               with [module] devices = vethH..., started
#                               again with the devices of every call so
#                               far, its log in DP_RD_LOG (bpf); 0 once
#                               rocecc dev show lists them with the engine
#                               (bpf, DP_ATTACH_NOWAIT=1: once roceccd is
#                               ready)
#   dp_engines                  "vethX=ENGINE ..." of every driven netdev
#   dp_module_only DESC...      0 on the module; on bpf a TAP skip of DESC
#                               (what only the module has) and 1
#   dp_rg_server DEV PORT [N] [ARGS...]
#                               rocegen server on DEV for N sessions, in the
#                               background (DP_SRV_PID); waits for the port
#   dp_rg_client H PORT JSON [ARGS...]
#                               rocegen client from rxeH to the server's
#                               10.0.0.x (DP_RG_PEER, default host 2)
#                               (both killed after DP_RG_TIMEOUT s, 120)
#   dp_rg_why JSON OUT [DEV...] why a rocegen client's messages failed,
#                               for tap_diag (below)
#   dp_objects                  the module's allocation counters (one line;
#                               empty on bpf)
#   dp_flow_json DEV            rocecc -j flow show dev DEV
#   dp_unload                   module: rmmod; 0 if the module reported
#                               balanced allocation counters. bpf: roceccd
#                               stops (exit 0), its filters are off every
#                               netdev and no netdev is driven; the pins go.
#                               DP_UNLOAD says which, for the TAP line
#   dp_cleanup                  for an EXIT trap: whatever dp_load and
#                               dp_attach left, quietly
#   dp_pcap FILE                RoCE summary of a capture (lib/roce_pcap.py):
#                               "roce=.. notect=.. ect0=.. ect1=.. ce=..
#                                icrc_bad=.. cnp=.. cnp_icrc_bad=.. ..."
#   dp_kv "k=v ..." KEY         a value out of such a line
#   dcb ARGS...                 iproute2's dcb; a "set" whose answer it
#                               misreads (below) is run again, twice at most

DP_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
# The module built for the kernel this guest runs (make modules).
DP_KO=$DP_TOP/build/kmod/$(uname -r)/kmod/rocecc.ko
DP_CLI=$DP_TOP/build/daemon/rocecc
DP_RG=$DP_TOP/build/tools/rocegen
DP_LIB=$DP_TOP/selftests/vm/lib
DP_PY=/usr/bin/python3
DP_SRV_PID=
DP_RG_PEER=${DP_RG_PEER:-}
DP_ENGINE=${ROCECC_ENGINE:-module}
case $DP_ENGINE in
module) DP_UNLOAD="rmmod rocecc; allocations balance" ;;
bpf) DP_UNLOAD="roceccd stops (exit 0) and takes the BPF datapath off every netdev" ;;
*) echo "dp.sh: ROCECC_ENGINE=$DP_ENGINE: module or bpf" >&2; exit 2 ;;
esac
# roceccd's pin directory (the CLI's default) and the netdevs it drives
DP_PINS=/sys/fs/bpf/rocecc
DP_BPF_DEVS=
DP_RD_LOG=
# shellcheck source=rd.sh
declare -F rd_start >/dev/null || . "$DP_LIB/rd.sh"

dp_load() {
	modprobe ib_core && modprobe rdma_rxe || return 1
	[ "$DP_ENGINE" = module ] && { insmod "$DP_KO"; return; }
	[ ! -e /sys/module/rocecc ] || { echo "rocecc.ko is loaded" >&2; return 1; }
}

dp_module_only() {
	[ "$DP_ENGINE" = module ] && return 0
	tap_skip "$*" "the module's alone: not a part of the BPF engine"
	return 1
}

dp_engines() {
	"$DP_CLI" -j dev show 2>/dev/null |
		jq -r '[.[] | "\(.dev)=\(.engine)"] | sort | join(" ")'
}

dp_fq() {
	local h
	for h in "$@"; do
		tc qdisc replace dev "veth$h" root fq flow_limit 1000 || return 1
	done
}

dp_attach() {
	local h want='' devs n
	if [ "$DP_ENGINE" = module ]; then
		for h in "$@"; do
			"$DP_CLI" dev attach "veth$h" || return 1
		done
		return 0
	fi
	for h in "$@"; do
		[[ " $DP_BPF_DEVS " == *" veth$h "* ]] || DP_BPF_DEVS+=" veth$h"
	done
	[ -n "$RD_PID" ] && { rd_stop || return 1; }
	[ -n "$DP_RD_LOG" ] || DP_RD_LOG=$(mktemp /tmp/dp_roceccd.XXXXXX)
	devs=$(echo $DP_BPF_DEVS | sed 's/ /, /g')
	printf '[daemon]\ninterval = 250ms\n[module]\ndevices = %s\nfq = no\n' \
		"$devs" >"$DP_RD_LOG.conf"
	# READY=1 messages so far (rd_wait_ready counts them all)
	n=$(grep -c READY=1 "${RD_NOTIFY:-/dev/null}" 2>/dev/null)
	rd_start "$DP_RD_LOG" -c "$DP_RD_LOG.conf" --datapath bpf
	rd_wait_ready $((${n:-0} + 1)) 30 ||
		{ tail -n 5 "$DP_RD_LOG"; return 1; }
	[ "${DP_ATTACH_NOWAIT:-0}" = 1 ] && return 0
	for h in $DP_BPF_DEVS; do want+=" $h=bpf"; done
	want=$(tr ' ' '\n' <<<"$want" | sort | grep . | tr '\n' ' ')
	for _ in $(seq 50); do
		[ "$(dp_engines) " = "$want" ] && return 0
		sleep 0.2
	done
	echo "driven: $(dp_engines), wanted $want" >&2
	tail -n 5 "$DP_RD_LOG"
	return 1
}

dp_rg_server() {
	local dev=$1 port=$2 n=${3:-1}
	shift 3
	timeout "${DP_RG_TIMEOUT:-120}" "$DP_RG" --server --dev "$dev" \
		--port "$port" --sessions "$n" -Q "$@" >/dev/null 2>&1 &
	DP_SRV_PID=$!
	topo_wait_listen "$port" 30
}

dp_rg_client() {
	local h=$1 port=$2 json=$3 peer=${DP_RG_PEER:-$(topo_ip 2)}
	shift 3
	timeout "${DP_RG_TIMEOUT:-120}" "$DP_RG" --client "$peer" --port "$port" \
		--dev "rxe$h" -Q --json "$json" --allow-errors "$@"
}

# dp_rg_why JSON OUT [DEV...]: what a failed rocegen client run (its report
# JSON, its stderr OUT) says about its completion errors, several lines for
# a tap_diag. rxe (rxe_comp.c, 6.1) retries without end at rocegen's retry
# and rnr_retry 7 (7 is not counted down; the IBA makes only rnr_retry 7
# infinite), so an error is one of: messages
# still outstanding when the drain after the run timed out, flushed
# (drain_timeout true: the QP stopped making progress, or was too slow for
# the drain budget), a failed post, or a status rxe gave a message (the
# first is on rocegen's stderr, with the message's number: how far into
# the run). Then the run's rxe counters (the client's device), rxe's now,
# and each DEV's engine counters and flows, non-zero values only.
dp_rg_why() {
	local json=$1 out=$2 d
	shift 2
	jq -r '"rocegen: \(.total.messages) messages, \(.total.errors) errors in \(.elapsed_s) s; interrupted \(.interrupted), drain_timeout \(.drain_timeout)",
		(.qps[] | "  QP \(.local_qpn): \(.messages) messages, \(.posted) posted, errors \(.error_status | tojson)"),
		"  \(.local.dev) over the run: \(.hw_counters | with_entries(select(.value != 0)) | tojson)"' "$json" 2>&1
	grep -v '^$' "$out" 2>/dev/null | head -n 8 | sed 's/^/  stderr: /'
	echo "  rxe now: $(topo_rxe_counters | awk '$2 != 0 { printf "%s ", $0 }')"
	for d in "$@"; do
		echo "  $d: $("$DP_CLI" -j -s dev show "$d" 2>&1 | jq -c '.[0].stats | with_entries(select(.value != 0))' 2>&1)"
		echo "  $d flows: $("$DP_CLI" -j flow show dev "$d" 2>&1 | jq -c 'map(with_entries(select(.value != 0)))' 2>&1)"
	done
}

dp_objects() {
	local l
	[ "$DP_ENGINE" = module ] || return 0
	read -r l </sys/module/rocecc/parameters/objects 2>/dev/null
	echo "$l"
}

# dp_stats NETDEV: all of NETDEV's counters (rocecc -j -s dev show) into
# DP_STATS[NAME]: one rocecc and one jq start for all of them, where each
# costs ~0.7 s under TCG. Call it in the test's shell, not in $(...).
declare -gA DP_STATS=()
dp_stats() {
	local k v
	DP_STATS=()
	while read -r k v; do DP_STATS[$k]=$v; done < <("$DP_CLI" -j -s dev show "$1" |
		jq -r '.[0].stats | to_entries[] | "\(.key) \(.value)"')
}
# dp_stat NAME [BASE]: DP_STATS[NAME], less BASE; nothing (which every
# tap_cmp fails) when either is not a number, as when rocecc could not be
# read.
dp_stat() {
	local v=${DP_STATS[$1]:-} b=${2:-0}
	[[ $v =~ ^[0-9]+$ && $b =~ ^-?[0-9]+$ ]] || { echo; return 1; }
	echo $((v - b))
}

dp_flow_json() {
	"$DP_CLI" -j flow show dev "$1"
}

dp_unload() {
	local d
	if [ "$DP_ENGINE" = module ]; then
		rmmod rocecc || return 1
		dmesg | grep -q "rocecc: datapath stopped" &&
			! dmesg | grep -q "rocecc: datapath leak"
		return
	fi
	# (a test may have stopped roceccd itself)
	if [ -n "$RD_PID" ]; then
		rd_stop || { echo "roceccd exited $?" >&2; return 1; }
	fi
	for d in $DP_BPF_DEVS; do
		if tc filter show dev "$d" ingress | grep -q dcqcn_ ||
			tc filter show dev "$d" egress | grep -q dcqcn_; then
			echo "$d: a BPF datapath filter is left" >&2
			return 1
		fi
	done
	[ -z "$(dp_engines)" ] || { echo "still driven: $(dp_engines)" >&2; return 1; }
	rm -rf "$DP_PINS"
}

dp_cleanup() {
	if [ "$DP_ENGINE" = module ]; then
		rmmod rocecc 2>/dev/null
	else
		[ -n "$RD_PID" ] && rd_stop 2>/dev/null
		[ -n "$RD_NOTIFY_PID" ] && kill "$RD_NOTIFY_PID" 2>/dev/null
		rm -rf "$DP_PINS" "$DP_RD_LOG" "$DP_RD_LOG.conf"
	fi
	return 0
}

dp_pcap() {
	"$DP_PY" "$DP_LIB/roce_pcap.py" "$1"
}

dp_kv() {
	local kv
	for kv in $1; do
		[ "${kv%%=*}" = "$2" ] && { echo "${kv#*=}"; return 0; }
	done
	echo 0
}

# iproute2 6.1's dcb numbers every request with time(NULL), and a "set"
# is a GET and a SET on one socket. Once in a while (a CI run of
# t_pfc_incast.t, under TCG, where the two can be a second apart) it
# reads a message numbered with an earlier second while waiting for the
# SET's answer: libmnl's sequence check fails, "Attribute write: Protocol
# error", exit 1, after the kernel has processed the SET. Setting the same
# values again is harmless: run it again. Any other failure, a refusal
# included, is returned as it is.
dcb() {
	local err st i
	case " $* " in
	*" set "*) ;;
	*) command dcb "$@"; return ;;
	esac
	err=$(mktemp /tmp/dcb.err.XXXXXX) || return 1
	for i in 1 2 3; do
		command dcb "$@" 2>"$err"
		st=$?
		[ "$st" -ne 0 ] && grep -q "Attribute write: Protocol error" "$err" || break
		[ "$i" = 3 ] || echo "dp.sh: dcb $*: answer misread (iproute2 6.1), again" >&2
	done
	cat "$err" >&2
	rm -f "$err"
	return "$st"
}
