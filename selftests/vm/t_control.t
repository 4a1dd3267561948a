#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The module's control plane: attach and detach, sysctl and generic netlink
# as two views of one parameter store, range checks, profiles, permissions,
# events, device rename and deletion, namespaces, and a clean unload.
# Needs: make modules && make -C daemon (build/kmod/<release>/kmod/rocecc.ko,
# build/daemon/rocecc).
# Run: scripts/vm --test selftests/vm/t_control.t

lib=$(dirname "$0")/lib
. "$lib/tap.sh"
. "$lib/topo.sh"
tap_require_vm

top=$(cd "$(dirname "$0")/../.." && pwd)
ko=$top/build/kmod/$(uname -r)/kmod/rocecc.ko
R=$top/build/daemon/rocecc
[ -f "$ko" ] && [ -x "$R" ] || tap_bail "build first: make module && make -C daemon"
command -v jq >/dev/null || tap_bail "jq is missing"

work=$(mktemp -d /tmp/t_control.XXXXXX)
mons=()
cleanup() {
	local p
	for p in "${mons[@]}"; do kill "$p"; done
	ip link del rcx0
	ip link del rcy0
	ip link del rcz0
	ip netns del rocecc_t
	topo_teardown
	rmmod rocecc
	rm -rf "$work"
} 2>/dev/null
trap cleanup EXIT

PROC=/proc/sys/net/rocecc
# Run as nobody without capabilities.
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)
nobody() { "${NOBODY[@]}" "$@"; }
# sysctl through /proc without forking (the VM emulates its CPU: every
# process costs): sys_set SET NAME VALUE sets SYSERR to the write's error;
# sysr SET NAME sets REPLY; sys_get SET NAME prints.
sys_set() {
	local st
	printf '%s\n' "$3" 2>"$work/err" >"$PROC/$1/$2"
	st=$?
	SYSERR=
	[ $st = 0 ] || read -r SYSERR <"$work/err"
	return $st
}
sysr() { read -r REPLY <"$PROC/$1/$2"; }
sys_get() { local v; read -r v <"$PROC/$1/$2"; echo "$v"; }
# The CLI's scope words for a set: "default" or "dev DEV".
scope() { if [ "$1" = default ]; then echo default; else echo "dev $1"; fi; }
# All parameters of a set through netlink, into the array NL[name].
declare -A NL
nl_all() {
	local n v
	NL=()
	while read -r n v; do NL[$n]=$v; done < <("$R" -j param show $(scope "$1") |
		jq -r '.[0].params | to_entries[] | "\(.key) \(.value)"')
}
nl_get() { "$R" -j param show $(scope "$1") "$2" | jq -r ".[0].params.$2"; }
nl_profile() { "$R" -j param show $(scope "$1") | jq -r '.[0].profile'; }

# --- load ------------------------------------------------------------------

tap_diag "[${SECONDS} s] load"

# rocecc.ko resolves local QPs through ib_core (insmod does not load it).
modprobe ib_core
tap_run "rocecc.ko loads" insmod "$ko" || tap_bail "no module"
tap_run "1-host topology comes up (veth1 carries rxe1)" topo_setup 1 || tap_bail "no topology"
[ -e /sys/class/infiniband/rxe1 ]
tap_ok $? "rxe1 exists on veth1"
ip link add rcx0 type veth peer name rcx1 && ip link add rcy0 type veth peer name rcy1
tap_ok $? "test veths rcx0, rcy0 created"
# Attach refuses a device whose root qdisc cannot pace (the datapath needs fq).
for d in veth1 rcx0 rcy0; do tc qdisc replace dev "$d" root fq flow_limit 1000 || break; done
tap_ok $? "fq on veth1, rcx0, rcy0"

# The parameter table as the CLI (compiled from params.h) shows it.
declare -A pmin pmax punit
names=()
while read -r n v u range; do
	names+=("$n")
	pmin[$n]=${range%..*}
	pmax[$n]=${range#*..}
	punit[$n]=$u
done < <("$R" param show default | awk '/^  [a-z]/ && $1 != "PARAMETER" { print $1, $2, $3, $4 }')
tap_cmp "${#names[@]}" -eq "$(ls "$PROC/default" | grep -vc '^profile$')" \
	"every parameter (${#names[@]}) has a sysctl file in net.rocecc.default"

# Monitors (text and JSON), subscribed before anything else happens: toggle
# a default until the text monitor has seen it.
"$R" monitor >"$work/mon" 2>&1 &
mons+=($!)
"$R" -j monitor >"$work/monj" 2>&1 &
mons+=($!)
# and one as nobody: the events group is open to every user (uapi header).
# Not through the function: a function in the background is a subshell,
# $! would be that subshell, and killing it would leave the monitor running.
"${NOBODY[@]}" "$R" monitor >"$work/monu" 2>&1 &
mons+=($!)
for i in $(seq 100); do
	"$R" param set rp_min_rate 2 && "$R" param set rp_min_rate 1
	grep -q "changed default" "$work/mon" && grep -q '"changed"' "$work/monj" &&
		grep -q "changed default" "$work/monu" && break
	sleep 0.1
done
grep -q "changed default rp_min_rate 2" "$work/mon"
tap_ok $? "monitor sees a change of the default set" || tap_diag "$(cat "$work/mon")"

# --- attach ----------------------------------------------------------------

tap_diag "[${SECONDS} s] attach"

tap_run "attach veth1 (rxe1's netdev)" "$R" dev attach veth1
tap_run "attach rcx0" "$R" dev attach rcx0
out=$("$R" dev attach veth1 2>&1)
[ $? = 1 ] && grep -q "already attached" <<<"$out"
tap_ok $? "attaching twice fails with a reason" || tap_diag "$out"
out=$("$R" dev attach lo 2>&1)
[ $? = 1 ] && grep -q "not an Ethernet device" <<<"$out"
tap_ok $? "loopback is refused" || tap_diag "$out"
out=$("$R" dev attach nosuch0 2>&1)
[ $? = 1 ] && grep -q "no such device" <<<"$out"
tap_ok $? "a missing device is refused" || tap_diag "$out"
[ -d "$PROC/veth1" ] && [ -d "$PROC/rcx0" ] && [ -f "$PROC/veth1/profile" ]
tap_ok $? "net.rocecc.veth1 and net.rocecc.rcx0 exist"
shown=$("$R" -j dev show | jq -r '.[].dev' | sort | tr '\n' ' ')
[ "$shown" = "rcx0 veth1 " ]
tap_ok $? "dev show lists rcx0 and veth1" || tap_diag "got: $shown"
ifx=$(cat /sys/class/net/veth1/ifindex)
tap_cmp "$("$R" -j dev show veth1 | jq -r '.[0].ifindex')" -eq "$ifx" "dev show veth1: ifindex $ifx"
"$R" -s dev show >"$work/devs" && grep -q "np_cnp_sent 0" "$work/devs" &&
	grep -q "flow_table_full 0" "$work/devs"
tap_ok $? "dev show -s prints the counters" || tap_diag "$(cat "$work/devs")"
st=$("$R" -j -s dev show veth1 | jq -r '.[0].stats | keys | length')
tap_cmp "$st" -eq 15 "dev show -j -s: 15 counters"
st=$("$R" -j -s dev show veth1 | jq -r '.[0].stats | "\(.rp_cnp_spoofed) \(.qp_cache_full) \(.tx_not_rxe)"')
[ "$st" = "0 0 0" ]
tap_ok $? "... among them rp_cnp_spoofed, qp_cache_full and tx_not_rxe, all 0 ($st)"
grep -q "attached dev veth1 ifindex $ifx" "$work/mon"
tap_ok $? "monitor: attached dev veth1"

# --- one store, two views --------------------------------------------------

tap_diag "[${SECONDS} s] one store, two views"

# PICK := a value != $2 (the current one) inside the range of $1, the
# lowest ($3 = lo) or the highest ($3 = hi).
pick() {
	local lo=${pmin[$1]} hi=${pmax[$1]}
	if [ "$3" = lo ]; then
		if [ "$2" != "$lo" ]; then PICK=$lo; else PICK=$((lo + 1)); fi
	else
		if [ "$2" != "$hi" ]; then PICK=$hi; else PICK=$((hi - 1)); fi
	fi
}

# Set every parameter of set $1 through sysctl, read them back through
# netlink; $2 = lo | hi.
sysctl_to_nl() {
	local set=$1 n bad=
	declare -A want
	for n in "${names[@]}"; do
		sysr "$set" "$n"
		pick "$n" "$REPLY" "$2"
		want[$n]=$PICK
		sys_set "$set" "$n" "$PICK" || bad+=" $n($SYSERR)"
	done
	[ -z "$bad" ]
	tap_ok $? "$set: sysctl accepts a new in-range value for every parameter" ||
		tap_diag "refused:$bad"
	nl_all "$set"
	for n in "${names[@]}"; do
		[ "${NL[$n]}" = "${want[$n]}" ]
		tap_ok $? "$set: $n=${want[$n]} set by sysctl, netlink reads ${NL[$n]}"
	done
}

# Set every parameter of set $1 through netlink (one PARAM_SET), read them
# back through sysctl; $2 = lo | hi.
nl_to_sysctl() {
	local set=$1 n args=()
	declare -A want
	nl_all "$set"
	for n in "${names[@]}"; do
		pick "$n" "${NL[$n]}" "$2"
		want[$n]=$PICK
		args+=("$n" "$PICK")
	done
	tap_run "$set: one param set of all ${#names[@]} parameters" "$R" param set $(scope "$set") "${args[@]}"
	for n in "${names[@]}"; do
		sysr "$set" "$n"
		[ "$REPLY" = "${want[$n]}" ]
		tap_ok $? "$set: $n=${want[$n]} set by netlink, sysctl reads $REPLY"
	done
}

sysctl_to_nl veth1 lo
nl_to_sysctl veth1 hi
nl_to_sysctl default lo
sysctl_to_nl default hi

[ "$(sys_get veth1 profile)" = custom ] && [ "$(nl_profile veth1)" = custom ]
tap_ok $? "a modified set reads profile 'custom' through both views"
grep -q "changed dev veth1 rp_clamp_tgt_rate" "$work/mon"
tap_ok $? "monitor: a sysctl write sends a change event"

# --- ranges ----------------------------------------------------------------

tap_diag "[${SECONDS} s] ranges"

"$R" param profile dev veth1 mlx5
"$R" -j param show >"$work/before"
for n in "${names[@]}"; do
	lo=${pmin[$n]} hi=${pmax[$n]} bad=
	below=$((lo - 1)) above=$((hi + 1))
	for v in "$below" "$above" abc 12abc " " 0x; do
		if sys_set veth1 "$n" "$v"; then
			bad+=" '$v'(accepted)"
		elif [[ $SYSERR != *"Invalid argument"* ]]; then
			bad+=" '$v'($SYSERR)"
		fi
	done
	[ -z "$bad" ]
	tap_ok $? "sysctl refuses $n $below, $above and garbage with EINVAL" ||
		tap_diag "not refused:$bad"

	bad=
	msg="$n out of range: valid $lo..$hi ${punit[$n]}"
	for v in "$below" "$above"; do
		out=$("$R" param set dev veth1 "$n" "$v" 2>&1)
		st=$?
		if [ "$v" -lt 0 ] || [ "$v" -gt 4294967295 ]; then
			# not a u32: the CLI refuses it itself, as a usage error
			[[ $st = 2 && $out == *"$n $v: out of range"* ]] || bad+=" '$v'[$st: $out]"
		else
			# the kernel refuses it, and says why
			[[ $st = 1 && $out == *"$msg"* ]] || bad+=" '$v'[$st: $out]"
		fi
	done
	[ -z "$bad" ]
	tap_ok $? "CLI refuses $n $below and $above ('$msg')" ||
		tap_diag "wrong:$bad"
done
out=$("$R" param set dev veth1 rp_ai_rate 12abc 2>&1)
[[ $? = 2 && $out == *"rp_ai_rate 12abc: not a number"* ]]
tap_ok $? "CLI refuses garbage as a usage error" || tap_diag "$out"
out=$("$R" param set dev veth1 rp_ai_rate 9 rp_gd 99 2>&1)
[ $? = 1 ] && grep -q "rp_gd 99: rp_gd out of range" <<<"$out"
tap_ok $? "a bad value in a multi-parameter set is named" || tap_diag "$out"
"$R" -j param show >"$work/after"
cmp -s "$work/before" "$work/after"
tap_ok $? "refused writes changed nothing (rp_ai_rate 9 with a bad rp_gd neither)" ||
	tap_diag "$(diff <(jq . "$work/before") <(jq . "$work/after"))"
out=$("$R" param set dev veth1 no_such_param 1 2>&1)
[ $? = 2 ] && grep -q "unknown parameter 'no_such_param'" <<<"$out"
tap_ok $? "an unknown parameter name is a usage error" || tap_diag "$out"

# --- profiles --------------------------------------------------------------

tap_diag "[${SECONDS} s] profiles"

tap_run "param profile dev veth1 paper" "$R" param profile dev veth1 paper
[ "$(sys_get veth1 profile)" = paper ] && [ "$(sys_get veth1 rp_time_reset)" = 55 ] &&
	[ "$(sys_get veth1 rp_byte_reset)" = 156250 ] && [ "$(sys_get veth1 np_min_time_between_cnps)" = 50 ] &&
	[ "$(sys_get veth1 rp_threshold)" = 5 ] && [ "$(sys_get veth1 rp_ai_rate)" = 40 ]
tap_ok $? "sysctl shows the paper profile (T 55 us, B 156250 x 64 B, F 5, R_AI 40, CNP 50 us)"
sys_set veth1 profile mlx5
tap_ok $? "sysctl profile mlx5 accepted" || tap_diag "$SYSERR"
[ "$(nl_profile veth1)" = mlx5 ] && [ "$(nl_get veth1 rp_time_reset)" = 300 ] &&
	[ "$(nl_get veth1 rp_byte_reset)" = 32767 ] && [ "$(nl_get veth1 rp_dce_tcp_g)" = 1019 ]
tap_ok $? "netlink shows the mlx5 profile (T 300 us, B 32767, G 1019)"
sys_set default profile paper && [ "$(nl_profile default)" = paper ] &&
	[ "$(nl_profile veth1)" = mlx5 ]
tap_ok $? "the default set's profile is separate from the devices'"
"$R" param profile default mlx5
bad=
for v in custom foo "" 1; do
	sys_set veth1 profile "$v" || [[ $SYSERR != *"Invalid argument"* ]] && bad+=" '$v'"
done
tap_ok $([ -z "$bad" ]; echo $?) "sysctl profile refuses custom, foo, empty, 1" || tap_diag "accepted:$bad"
out=$("$R" param profile dev veth1 custom 2>&1)
[ $? = 2 ] && grep -q "unknown profile 'custom'" <<<"$out"
tap_ok $? "CLI refuses an unknown profile" || tap_diag "$out"

# --- the default set applies to devices attached later ---------------------

tap_diag "[${SECONDS} s] default set inheritance"

"$R" param set default rp_ai_rate 33 np_cnp_dscp 26
tap_run "attach rcy0" "$R" dev attach rcy0
[ "$(sys_get rcy0 rp_ai_rate)" = 33 ] && [ "$(nl_get rcy0 np_cnp_dscp)" = 26 ] &&
	[ "$(sys_get rcx0 np_cnp_dscp)" = 48 ] && [ "$(nl_get rcx0 rp_ai_rate)" = 5 ]
tap_ok $? "rcy0 starts with the default set's values; rcx0 keeps its own"

# --- permissions -----------------------------------------------------------

tap_diag "[${SECONDS} s] permissions"

out=$(nobody "$R" param show dev veth1 2>&1)
tap_ok $? "unprivileged: param show works" || tap_diag "$out"
out=$(nobody "$R" -s dev show 2>&1)
tap_ok $? "unprivileged: dev show -s works" || tap_diag "$out"
out=$(nobody cat "$PROC/veth1/rp_gd" 2>&1)
tap_ok $? "unprivileged: sysctl read works" || tap_diag "$out"
out=$(nobody "$R" -j flow show 2>&1)
tap_ok $? "unprivileged: flow show works (flows are open to read)" || tap_diag "$out"
grep -q "changed default rp_min_rate" "$work/monu"
tap_ok $? "unprivileged: monitor gets the events" || tap_diag "$(cat "$work/monu")"
bad=
for cmd in "param set dev veth1 rp_gd 12" "param set rp_gd 12" "param profile dev veth1 paper" \
	   "dev detach veth1" "dev attach rcz0"; do
	out=$(nobody "$R" $cmd 2>&1)
	[ $? = 1 ] && grep -q "Operation not permitted" <<<"$out" || bad+=" [$cmd: $out]"
done
tap_ok $([ -z "$bad" ]; echo $?) "unprivileged: every change is refused with EPERM" || tap_diag "$bad"
out=$(nobody sh -c "echo 12 > $PROC/veth1/rp_gd" 2>&1)
[ $? != 0 ] && grep -q "Permission denied" <<<"$out"
tap_ok $? "unprivileged: sysctl write is refused" || tap_diag "$out"
[ "$(sys_get veth1 rp_gd)" = 11 ] && "$R" dev show veth1 >/dev/null
tap_ok $? "unprivileged attempts changed nothing"

# --- strict netlink validation (raw requests the CLI cannot make) ----------

tap_diag "[${SECONDS} s] strict netlink validation"

python3 - "$ifx" >"$work/strict" 2>&1 <<'EOF'
# Raw generic netlink, no library: every request gets an ACK or an error.
import socket, struct, sys
ifx = int(sys.argv[1])
NLM_F_REQUEST, NLM_F_ACK, NLMSG_ERROR, NLM_F_CAPPED = 1, 4, 2, 0x100
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 16)  # NETLINK_GENERIC
s.setsockopt(270, 11, 1)                                   # NETLINK_EXT_ACK
s.bind((0, 0))
seq = 0

def attr(t, payload):
    a = struct.pack("HH", 4 + len(payload), t) + payload
    return a + b"\0" * (-len(a) % 4)

def attrs(buf, off, end):
    while off + 4 <= end:
        al, at = struct.unpack("HH", buf[off:off + 4])
        if al < 4:
            break
        yield at & 0x3fff, buf[off + 4:off + al]
        off += (al + 3) & ~3

def req(family, cmd, payload):
    """(errno, extack message, [reply messages])"""
    global seq
    seq += 1
    body = struct.pack("BBH", cmd, 1, 0) + payload
    s.send(struct.pack("IHHII", 16 + len(body), family, NLM_F_REQUEST | NLM_F_ACK, seq, 0) + body)
    replies = []
    while True:
        d = s.recv(65536)
        off = 0
        while off + 16 <= len(d):
            ln, typ, flags = struct.unpack("IHH", d[off:off + 8])
            m = d[off:off + ln]
            off += (ln + 3) & ~3
            if typ != NLMSG_ERROR:
                replies.append(m)
                continue
            err = struct.unpack("i", m[16:20])[0]
            tlv = 20 + (16 if flags & NLM_F_CAPPED else struct.unpack("I", m[20:24])[0])
            msg = "".join(v.rstrip(b"\0").decode() for t, v in attrs(m, tlv, ln) if t == 1)
            return err, msg, replies

err, _, rep = req(0x10, 3, attr(2, b"rocecc\0"))             # CTRL_CMD_GETFAMILY
fam = [struct.unpack("H", v[:2])[0] for t, v in attrs(rep[0], 20, len(rep[0])) if t == 1][0]
u32 = lambda v: struct.pack("I", v)
nest = lambda t, p: attr(t | 0x8000, p)
RP_GD = 16
refused = [
    ("unknown top-level attribute", 5, attr(9, u32(1))),
    ("PARAMS in PROFILE_SET", 6, nest(3, attr(RP_GD, u32(11))) + attr(4, u32(0))),
    ("parameter with a u16 payload", 5, nest(3, struct.pack("HHH", 6, RP_GD, 11) + b"\0\0")),
    ("parameter type 0", 5, nest(3, attr(0, u32(1)))),
    ("parameter type beyond the table", 5, nest(3, attr(200, u32(1)))),
    ("nest without NLA_F_NESTED", 5, attr(3, attr(RP_GD, u32(11)))),
    ("empty parameter nest", 5, nest(3, b"")),
    ("no parameter nest", 5, b""),
    ("profile 2", 6, attr(4, u32(2))),
    ("device name without NUL", 3, attr(2, b"veth1")),
    ("DEV_GET without a device", 3, b""),
    ("ifindex and name of different devices", 3, attr(1, u32(ifx)) + attr(2, b"rcx0\0")),
    ("unknown command 99", 99, b""),
]
fails = 0
def report(ok, name, err, msg):
    global fails
    print("%s %-40s -> %d %s" % ("ok  " if ok else "FAIL", name, err, msg))
    fails += not ok
for name, cmd, a in refused:
    err, msg, _ = req(fam, cmd, a)
    report(err < 0 and (msg or err == -95), name, err, msg)
err, msg, rep = req(fam, 3, attr(1, u32(ifx)))
report(err == 0 and len(rep) == 1, "DEV_GET by ifindex", err, msg)
err, msg, _ = req(fam, 5, nest(3, attr(RP_GD, u32(0))))
report(err == -22 and msg == "rp_gd out of range: valid 1..15 log2", "range error names the parameter", err, msg)
sys.exit(1 if fails else 0)
EOF
tap_ok $? "malformed requests are refused (strict policies)"
tap_diag "$(cat "$work/strict")"
"$R" -j param show >"$work/after2"
jq -e '.[] | select(.dev == "veth1") | .profile == "mlx5"' "$work/after2" >/dev/null
tap_ok $? "... and changed nothing"

# --- other namespaces ------------------------------------------------------

tap_diag "[${SECONDS} s] other namespaces"

ip netns add rocecc_t
out=$(ip netns exec rocecc_t "$R" dev show 2>&1)
[ $? = 1 ] && grep -q "only the initial netns" <<<"$out"
tap_ok $? "a request from another netns is refused with a reason" || tap_diag "$out"
out=$(ip netns exec rocecc_t "$R" param set rp_gd 12 2>&1)
[ $? = 1 ] && grep -q "only the initial netns" <<<"$out"
tap_ok $? "... a change too" || tap_diag "$out"
ip netns exec rocecc_t test ! -e "$PROC"
tap_ok $? "net.rocecc is not visible in another netns"

# --- rename, detach, delete ------------------------------------------------

tap_diag "[${SECONDS} s] rename, detach, delete"

"$R" param set dev rcy0 rp_hai_rate 123
ip link set rcy0 name rcz0
[ -d "$PROC/rcz0" ] && [ ! -e "$PROC/rcy0" ] && [ "$(sys_get rcz0 rp_hai_rate)" = 123 ] &&
	[ "$(nl_get rcz0 rp_hai_rate)" = 123 ]
tap_ok $? "a renamed device keeps its set; net.rocecc.rcy0 moved to net.rocecc.rcz0"
"$R" dev show rcz0 >/dev/null && ! "$R" dev show rcy0 >/dev/null 2>&1
tap_ok $? "dev show knows it by its new name"
ip link set rcz0 name rcy0

tap_run "detach rcy0" "$R" dev detach rcy0
[ ! -e "$PROC/rcy0" ] && ! "$R" -j dev show | jq -e '.[] | select(.dev == "rcy0")' >/dev/null
tap_ok $? "rcy0 is gone from dev show and sysctl"
out=$("$R" dev detach rcy0 2>&1)
[ $? = 1 ] && grep -q "not attached" <<<"$out"
tap_ok $? "detaching it again fails with a reason" || tap_diag "$out"

ip link del rcx0
[ ! -e "$PROC/rcx0" ] && ! "$R" -j dev show | jq -e '.[] | select(.dev == "rcx0")' >/dev/null
tap_ok $? "a deleted device disappears from dev show and sysctl"
for i in $(seq 50); do grep -q "gone dev rcx0" "$work/mon" && break; sleep 0.1; done
grep -q "gone dev rcx0" "$work/mon"
tap_ok $? "monitor: gone dev rcx0"
grep -q "detached dev rcy0" "$work/mon"
tap_ok $? "monitor: detached dev rcy0"
jq -e 'select(.event == "gone" and .dev == "rcx0")' "$work/monj" >/dev/null
tap_ok $? "monitor -j: {event: gone, dev: rcx0}"
tap_diag "monitor saw $(wc -l <"$work/mon") events"

# --- concurrency ---------------------------------------------------------

tap_diag "[${SECONDS} s] concurrency"
# Sysctl writers on a device that is detached, re-attached and renamed under
# them, while netlink writes: the sysctl handlers wait for the control lock,
# and detach unregisters the sysctl directory without holding it. A deadlock
# would hang here (the watchdog below), a use-after-free would oops.
"$R" dev attach rcy0
end=$((SECONDS + 4))
(while [ $SECONDS -lt $end ]; do
	for d in rcy0 veth1 default; do printf '%s\n' $((RANDOM % 15 + 1)) >"$PROC/$d/rp_gd"; done
done) 2>/dev/null &
w1=$!
(while [ $SECONDS -lt $end ]; do
	"$R" dev detach rcy0; "$R" dev attach rcy0
	ip link set rcy0 name rcq0 && ip link set rcq0 name rcy0
done) >/dev/null 2>&1 &
w2=$!
(while [ $SECONDS -lt $end ]; do
	"$R" param set dev veth1 rp_ai_rate $((RANDOM)); "$R" param profile default mlx5; "$R" -s dev show
done) >/dev/null 2>&1 &
w3=$!
# Watchdog: the three must end within a minute (not "wait": the monitors
# are jobs of this shell too and never end).
alive() { local p; for p; do kill -0 "$p" 2>/dev/null && return 0; done; return 1; }
for i in $(seq 600); do alive $w1 $w2 $w3 || break; sleep 0.1; done
! alive $w1 $w2 $w3
tap_ok $? "sysctl, netlink, detach/attach and rename race for 4 s without hanging" ||
	tap_bail "a control-plane operation hangs"
"$R" dev show rcy0 >/dev/null 2>&1 || "$R" dev attach rcy0
[ -d "$PROC/rcy0" ] && [ -d "$PROC/veth1" ] && [ "$(ls "$PROC" | wc -l)" = 3 ]
tap_ok $? "afterwards: net.rocecc holds default, rcy0, veth1" || tap_diag "$(ls "$PROC")"
"$R" dev detach rcy0

# --- unload with devices attached ------------------------------------------

tap_diag "[${SECONDS} s] unload with devices attached"

"$R" dev attach rcy0
tap_run "rmmod with veth1 and rcy0 attached (monitors still listening)" rmmod rocecc
[ ! -e "$PROC" ]
tap_ok $? "net.rocecc is gone"
out=$("$R" dev show 2>&1)
# (no BPF datapath pinned here either: the line says where it looked)
[ $? = 1 ] && [ "$out" = "rocecc: generic netlink family 'rocecc' not found: is rocecc.ko loaded? (nor is the BPF datapath pinned in /sys/fs/bpf/rocecc)" ]
tap_ok $? "CLI without the module: one clear line" || tap_diag "$out"
timeout 20 ip link del rcy0
tap_ok $? "rcy0 deletes promptly (no reference left behind)"
tap_run "reload" insmod "$ko"
[ "$(sys_get default rp_ai_rate)" = 5 ] && [ -z "$("$R" dev show)" ]
tap_ok $? "a reload starts clean (mlx5 defaults, no device)"
tap_run "attach veth1 after reload" "$R" dev attach veth1
tap_run "rmmod again" rmmod rocecc
dmesg | grep -E "WARNING|BUG|Oops|Call Trace|refcount|unregister_netdevice: waiting" >"$work/dmesg"
[ ! -s "$work/dmesg" ]
tap_ok $? "the kernel log has no warnings" || tap_diag "$(cat "$work/dmesg")"

# The monitors listened through the unload and the reload; SIGTERM ends
# them (status 143), the one running as nobody too.
kill "${mons[@]}"
for i in $(seq 50); do alive "${mons[@]}" || break; sleep 0.1; done
bad=
for p in "${mons[@]}"; do
	if alive "$p"; then
		bad+=" $p(running)"
	else
		wait "$p"
		st=$?
		[ $st = 143 ] || bad+=" $p(status $st)"
	fi
done
tap_ok $([ -z "$bad" ]; echo $?) "the ${#mons[@]} monitors end on SIGTERM" || tap_diag "not:$bad"

tap_diag "test body: ${SECONDS} s"
tap_done
