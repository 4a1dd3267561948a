# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# dp.sh - helpers of the datapath VM tests (t_ect_pacing.t, t_np.t,
# t_safety.t), sourced after tap.sh and topo.sh.
#
#   dp_load                     ib_core + rdma_rxe + rocecc.ko
#   dp_fq H...                  fq (flow_limit 1000) as root qdisc of vethH
#   dp_attach H...              rocecc dev attach vethH
#   dp_rg_server DEV PORT [N] [ARGS...]
#                               rocegen server on DEV for N sessions, in the
#                               background (DP_SRV_PID); waits for the port
#   dp_rg_client H PORT JSON [ARGS...]
#                               rocegen client from rxeH to the server's
#                               10.0.0.x (DP_RG_PEER, default host 2)
#                               (both killed after DP_RG_TIMEOUT s, 120)
#   dp_objects                  the module's allocation counters (one line)
#   dp_flow_json DEV            rocecc -j flow show dev DEV
#   dp_unload                   rmmod; 0 if the module reported balanced
#                               allocation counters
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

dp_load() {
	modprobe ib_core && modprobe rdma_rxe && insmod "$DP_KO"
}

dp_fq() {
	local h
	for h in "$@"; do
		tc qdisc replace dev "veth$h" root fq flow_limit 1000 || return 1
	done
}

dp_attach() {
	local h
	for h in "$@"; do
		"$DP_CLI" dev attach "veth$h" || return 1
	done
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

dp_objects() {
	local l
	read -r l </sys/module/rocecc/parameters/objects 2>/dev/null
	echo "$l"
}

dp_flow_json() {
	"$DP_CLI" -j flow show dev "$1"
}

dp_unload() {
	rmmod rocecc || return 1
	dmesg | grep -q "rocecc: datapath stopped" &&
		! dmesg | grep -q "rocecc: datapath leak"
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
