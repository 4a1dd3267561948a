# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# topo.sh - N soft-RoCE hosts and one switch inside the test VM (bash, root,
# sourced by the VM tests; see docs/design.md §6.2).
#
# rxe in 6.1 only works in the initial network namespace, so host H is not a
# namespace but a veth "vethH" there, with the /32 address 10.0.0.H (and
# fd00::H/128) and the rxe device "rxeH" on top. Policy routing keeps the
# hosts apart: rule "oif vethH lookup 100+H" (table 100+H routes the subnet
# out of vethH with src 10.0.0.H), the local rule moved behind those rules,
# accept_local=1, rp_filter=0, permanent neighbour entries. rxe routes with
# its netdev as oif, so its packets leave through the right veth; TCP between
# "hosts" (QP exchange of perftest and friends) goes over lo.
# The peer of vethH is "swpH", a port of bridge br0 in the network namespace
# "switch". The switch port toward a receiver can hold a bottleneck (HTB
# shaper with RED or a FIFO below it).
#
# Call these functions in the test's shell, not in $(...): they keep state
# (TOPO_N, the sampler's pid) in shell variables. The backlog sampler is a
# background job: wait for your own jobs by pid (a bare "wait" waits for it
# too, forever), or topo_backlog_stop first.
# Functions (all print a message naming the failed step on stderr and
# return non-zero on failure):
#   topo_setup N                      build hosts 1..N and the switch
#   topo_teardown                     remove everything topo_setup made
#   topo_bottleneck H RATE_MBIT [ecn|drop [KMIN KMAX PMAX]] | [fifo [LIMIT]]
#                                     shape the switch port toward host H
#   topo_bottleneck_clear H           remove it again
#   topo_ip H / topo_ip6 H / topo_dev H / topo_netdev H / topo_port H
#                                     names and addresses of host H
#   topo_gid_index H [4|6]            GID index of host H's IPv4 (or IPv6) address
#   topo_wait_listen PORT [SEC]       wait until a TCP port is listening
#   topo_counters                     one "key value" line per counter (below)
#   topo_rxe_counters                 its rxe lines alone, no process started
#   topo_get FILE KEY                 a counter from a saved topo_counters output
#   topo_delta BEFORE AFTER KEY       its increase between two saved outputs
#   topo_rxe_stat H NAME              one rxe hw counter of host H, now
#   topo_backlog_start H MS FILE      sample the bottleneck queue every MS ms
#   topo_backlog_stop                 stop the sampler
#   topo_backlog_max FILE             largest backlog (bytes) in a sample file
#   topo_backlog_busy FILE            "FIRST_MS LAST_MS" of the non-empty samples
#
# Counter keys of topo_counters (switch side: rx = from host H, tx = to H):
#   swpH.{rx,tx}_{bytes,packets,dropped}      switch port H (ip -s -j link)
#   vethH.{rx,tx}_{bytes,packets,dropped}     host H's netdev
#   swpH.root.{bytes,packets,drops,overlimits,backlog,qlen}
#                                             root qdisc of port H (tc -s -j)
#   swpH.leaf.{...same...,marked,early,pdrop,other}
#                                             bottleneck leaf qdisc (handle 10:);
#                                             marked = CE marks by RED
#   rxeH.NAME                                 /sys/class/infiniband/rxeH/ports/1/
#                                             hw_counters/NAME (sent_pkts,
#                                             rcvd_pkts, completer_retry_err,
#                                             rcvd_seq_err, send_err, ...)
# Backlog sample files hold "MS_SINCE_START BACKLOG_BYTES QLEN_PKTS" lines.

TOPO_NS=switch
TOPO_N=0
TOPO_BACKLOG_PID=
TOPO_IPV6=${TOPO_IPV6:-1}
TOPO_SUBNET=10.0.0
TOPO_SUBNET6=fd00:
TOPO_TABLE_BASE=100
TOPO_LOCAL_PREF=1000
TOPO_LEAF=10:

topo_ip() { echo "$TOPO_SUBNET.$1"; }
topo_ip6() { echo "$TOPO_SUBNET6:$1"; }
topo_dev() { echo "rxe$1"; }
topo_netdev() { echo "veth$1"; }
topo_port() { echo "swp$1"; }
_topo_mac() { printf '02:00:00:00:%02x:%02x' "$1" "$2"; }	# side (0 host, 1 switch), H

_topo_err() { echo "topo: $*" >&2; return 1; }

# _topo_batch WHAT FILE CMD...: run an iproute2 -batch and name the failing line.
_topo_batch() {
	local what=$1 file=$2 out line
	shift 2
	if ! out=$("$@" --batch "$file" 2>&1); then
		line=$(sed -n 's/.*Command failed [^:]*:\([0-9]*\).*/\1/p' <<<"$out" | head -n 1)
		_topo_err "$what failed${line:+ at \"$*: $(sed -n "${line}p" "$file")\"}: $out"
		return 1
	fi
}

# _topo_sleep SEC: sleep without forking (read with a timeout on a FIFO
# nobody writes); sleep(1) costs about 0.1 s of exec under TCG.
_topo_sleep() {
	if [ -z "${_TOPO_SLEEP_FD:-}" ]; then
		local f
		f=$(mktemp -u /tmp/topo-sleep.XXXXXX) && mkfifo "$f" || return 1
		exec {_TOPO_SLEEP_FD}<>"$f"
		rm -f "$f"
	fi
	read -rt "$1" -u "$_TOPO_SLEEP_FD" _ || true
}

_topo_sysctl() {	# path under /proc/sys/ (dots as slashes), value
	local f=/proc/sys/${1//.//}
	echo "$2" >"$f" 2>/dev/null || _topo_err "setting $1=$2 failed"
}

# topo_setup N: hosts 1..N (veth + rxe each) and the switch namespace.
topo_setup() {
	local n=${1:-} h j b4 b6 bs br tmp
	[[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le 200 ] ||
		{ _topo_err "topo_setup: need a host count 1..200, got '$n'"; return 1; }
	[ "$EUID" = 0 ] || { _topo_err "topo_setup: must run as root (in the VM)"; return 1; }
	[ "$TOPO_N" = 0 ] || { _topo_err "topo_setup: a topology of $TOPO_N hosts exists; topo_teardown first"; return 1; }
	for m in rdma_rxe veth bridge; do
		modprobe "$m" 2>/dev/null || [ -d "/sys/module/$m" ] ||
			{ _topo_err "loading kernel module $m failed"; return 1; }
	done

	tmp=/tmp/topo-setup.$$
	mkdir -p "$tmp" || { _topo_err "cannot create $tmp"; return 1; }
	b4=$tmp/links br=$tmp/bridge
	ip netns add "$TOPO_NS" || { _topo_err "creating network namespace $TOPO_NS failed"; rm -rf "$tmp"; return 1; }
	TOPO_N=$n
	# The switch speaks no IPv6 itself: br0's router solicitations, DAD and
	# MLD reports would reach every port, bottleneck included.
	ip netns exec "$TOPO_NS" sh -c 'for f in all default; do
		echo 1 >/proc/sys/net/ipv6/conf/$f/disable_ipv6 || exit 1; done' ||
		{ _topo_err "disabling IPv6 in namespace $TOPO_NS failed"; rm -rf "$tmp"; return 1; }

	# 1. the links (the switch port moves into the switch at creation)
	{
		echo "link set lo up"
		for ((h = 1; h <= n; h++)); do
			echo "link add veth$h address $(_topo_mac 0 "$h") type veth" \
				"peer name swp$h address $(_topo_mac 1 "$h") netns $TOPO_NS"
		done
	} >"$b4"
	_topo_batch "creating the veth pairs" "$b4" ip || { rm -rf "$tmp"; return 1; }

	# 2. sysctls, before any address exists
	_topo_sysctl net.ipv4.conf.all.rp_filter 0 &&
	_topo_sysctl net.ipv4.conf.default.rp_filter 0 &&
	_topo_sysctl net.ipv4.conf.all.accept_local 1 &&
	_topo_sysctl net.ipv4.conf.default.accept_local 1 || { rm -rf "$tmp"; return 1; }
	for ((h = 1; h <= n; h++)); do
		_topo_sysctl "net.ipv4.conf.veth$h.rp_filter" 0 &&
		_topo_sysctl "net.ipv4.conf.veth$h.accept_local" 1 || { rm -rf "$tmp"; return 1; }
		if [ "$TOPO_IPV6" = 1 ]; then
			_topo_sysctl "net.ipv6.conf.veth$h.accept_ra" 0 &&
			_topo_sysctl "net.ipv6.conf.veth$h.router_solicitations" 0 &&
			_topo_sysctl "net.ipv6.conf.veth$h.accept_dad" 0 || { rm -rf "$tmp"; return 1; }
		else
			_topo_sysctl "net.ipv6.conf.veth$h.disable_ipv6" 1 || { rm -rf "$tmp"; return 1; }
		fi
	done

	# RPS on every receiving end: veth delivers through netif_rx() into the
	# backlog of whichever CPU sent the packet, so packets of one flow sent
	# from both vCPUs get reordered (rxe then sees out-of-sequence packets
	# and NAKs). RPS steers each flow to one CPU by its hash, over all CPUs.
	local mask
	printf -v mask '%x' $(((1 << $(nproc)) - 1))
	for ((h = 1; h <= n; h++)); do
		echo "$mask" >"/sys/class/net/veth$h/queues/rx-0/rps_cpus" ||
			{ _topo_err "setting rps_cpus of veth$h failed"; rm -rf "$tmp"; return 1; }
	done
	ip netns exec "$TOPO_NS" sh -c 'for f in /sys/class/net/swp*/queues/rx-0/rps_cpus; do
		echo "$1" >"$f" || exit 1; done' sh "$mask" ||
		{ _topo_err "setting rps_cpus of the switch ports failed"; rm -rf "$tmp"; return 1; }

	# 3. the switch: bridge br0 with ports swp1..N
	{
		echo "link set lo up"
		echo "link add br0 type bridge forward_delay 0 mcast_snooping 0"
		for ((h = 1; h <= n; h++)); do
			echo "link set swp$h master br0"
			# no multicast noise (MLD reports) across the switch
			echo "link set swp$h type bridge_slave mcast_flood off"
			echo "link set swp$h up"
		done
		echo "link set br0 up"
	} >"$br"
	_topo_batch "building the bridge in namespace $TOPO_NS" "$br" ip -n "$TOPO_NS" || { rm -rf "$tmp"; return 1; }

	# 4. hosts: address, oif rule, table, neighbours; then the local rule
	b4=$tmp/hosts4
	{
		for ((h = 1; h <= n; h++)); do
			echo "addr add $TOPO_SUBNET.$h/32 dev veth$h"
			echo "link set veth$h up"
			echo "route add $TOPO_SUBNET.0/24 dev veth$h src $TOPO_SUBNET.$h table $((TOPO_TABLE_BASE + h))"
			echo "rule add pref $((TOPO_TABLE_BASE + h)) oif veth$h lookup $((TOPO_TABLE_BASE + h))"
			for ((j = 1; j <= n; j++)); do
				[ "$j" = "$h" ] && continue
				echo "neigh replace $TOPO_SUBNET.$j lladdr $(_topo_mac 0 "$j") dev veth$h nud permanent"
			done
		done
		echo "rule add pref $TOPO_LOCAL_PREF lookup local"
		echo "rule del pref 0 lookup local"
	} >"$b4"
	_topo_batch "configuring IPv4 of the hosts" "$b4" ip || { rm -rf "$tmp"; return 1; }

	if [ "$TOPO_IPV6" = 1 ]; then
		b6=$tmp/hosts6
		{
			for ((h = 1; h <= n; h++)); do
				echo "addr add $TOPO_SUBNET6:$h/128 dev veth$h nodad"
				echo "route add $TOPO_SUBNET6:/64 dev veth$h src $TOPO_SUBNET6:$h table $((TOPO_TABLE_BASE + h))"
				echo "rule add pref $((TOPO_TABLE_BASE + h)) oif veth$h lookup $((TOPO_TABLE_BASE + h))"
				for ((j = 1; j <= n; j++)); do
					[ "$j" = "$h" ] && continue
					echo "neigh replace $TOPO_SUBNET6:$j lladdr $(_topo_mac 0 "$j") dev veth$h nud permanent"
				done
			done
			echo "rule add pref $TOPO_LOCAL_PREF lookup local"
			echo "rule del pref 0 lookup local"
		} >"$b6"
		_topo_batch "configuring IPv6 of the hosts" "$b6" ip -6 || { rm -rf "$tmp"; return 1; }
	fi

	# 5. one rxe device per host
	bs=$tmp/rdma
	for ((h = 1; h <= n; h++)); do
		echo "link add rxe$h type rxe netdev veth$h"
	done >"$bs"
	_topo_batch "creating the rxe devices" "$bs" rdma || { rm -rf "$tmp"; return 1; }
	rm -rf "$tmp"

	# 6. wait until every port is ACTIVE and has its IPv4 (and IPv6) GID
	local deadline=$((SECONDS + 20)) state ok
	for ((h = 1; h <= n; h++)); do
		while :; do
			ok=1
			read -r state _ <"/sys/class/infiniband/rxe$h/ports/1/state" 2>/dev/null || ok=0
			[ "${state:-}" = "4:" ] || ok=0
			[ "$ok" = 1 ] && topo_gid_index "$h" 4 >/dev/null || ok=0
			[ "$ok" = 1 ] && [ "$TOPO_IPV6" = 1 ] && { topo_gid_index "$h" 6 >/dev/null || ok=0; }
			[ "$ok" = 1 ] && break
			if [ "$SECONDS" -ge "$deadline" ]; then
				_topo_err "rxe$h did not become ACTIVE with its GIDs (state '${state:-none}'; gids: $(cat /sys/class/infiniband/rxe$h/ports/1/gids/{0,1,2,3} 2>/dev/null | tr '\n' ' '))"
				return 1
			fi
			_topo_sleep 0.1
		done
	done
}

# topo_gid_index H [4|6]: index of host H's RoCEv2 GID for its IPv4 (or IPv6) address.
topo_gid_index() {
	local h=$1 fam=${2:-4} want i g d=/sys/class/infiniband/rxe$1/ports/1
	if [ "$fam" = 6 ]; then
		# fd00::H written out in full, as sysfs shows GIDs
		want=$(printf 'fd00:0000:0000:0000:0000:0000:0000:%04x' "$h")
	else
		local IFS=.
		# shellcheck disable=SC2046
		set -- $(topo_ip "$h")
		want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$1" "$2" "$3" "$4")
	fi
	for ((i = 0; i < 16; i++)); do
		[ -r "$d/gids/$i" ] || break
		read -r g <"$d/gids/$i" 2>/dev/null || continue
		if [ "$g" = "$want" ]; then
			echo "$i"
			return 0
		fi
	done
	return 1
}

# topo_wait_listen PORT [SEC]: wait for a TCP listener on PORT (IPv4 or IPv6).
topo_wait_listen() {
	local hex end=$((SECONDS + ${2:-10})) f local_addr state
	printf -v hex '%04X' "$1"
	while [ "$SECONDS" -lt "$end" ]; do
		for f in /proc/net/tcp /proc/net/tcp6; do
			# "sl local_address rem_address st ...", LISTEN is state 0A
			while read -r _ local_addr _ state _; do
				[ "${local_addr##*:}" = "$hex" ] && [ "$state" = 0A ] && return 0
			done <"$f"
		done
		_topo_sleep 0.1
	done
	_topo_err "nothing listens on TCP port $1 after ${2:-10}s"
}

topo_teardown() {
	local h
	topo_backlog_stop
	[ "$TOPO_N" != 0 ] || return 0
	for ((h = 1; h <= TOPO_N; h++)); do
		[ -e "/sys/class/infiniband/rxe$h" ] && rdma link delete "rxe$h" 2>/dev/null
	done
	ip netns del "$TOPO_NS" 2>/dev/null
	for ((h = 1; h <= TOPO_N; h++)); do
		ip link del "veth$h" 2>/dev/null
		ip rule del pref $((TOPO_TABLE_BASE + h)) 2>/dev/null
		ip -6 rule del pref $((TOPO_TABLE_BASE + h)) 2>/dev/null
		ip route flush table $((TOPO_TABLE_BASE + h)) 2>/dev/null
		ip -6 route flush table $((TOPO_TABLE_BASE + h)) 2>/dev/null
	done
	ip rule add pref 0 lookup local 2>/dev/null
	ip rule del pref "$TOPO_LOCAL_PREF" lookup local 2>/dev/null
	ip -6 rule add pref 0 lookup local 2>/dev/null
	ip -6 rule del pref "$TOPO_LOCAL_PREF" lookup local 2>/dev/null
	TOPO_N=0
	return 0
}

# topo_bottleneck H RATE_MBIT [MODE ARGS]: on the switch port toward host H,
# an HTB class at RATE_MBIT builds the queue and a leaf (handle 10:) decides:
#   ecn [KMIN KMAX PMAX]  RED marking CE (drops only non-ECT packets and at
#                         the hard limit); KMIN/KMAX in bytes of average queue,
#                         PMAX the marking probability at KMAX (0..1)
#   drop [KMIN KMAX PMAX] the same RED without ECN: drops instead of marking
#   fifo [LIMIT]          a plain byte FIFO of LIMIT bytes (tail drop)
# Defaults: ecn 20000 80000 0.1; fifo 100000.
# RED here follows the queue almost instantly (burst = KMIN/avpkt gives an
# EWMA weight of 1/2), as a switch's instantaneous-queue ECN does; the hard
# limit is 4*KMAX. The HTB class may send 12 ms of line rate at once (see
# below), so the queue drains in bursts of that size.
topo_bottleneck() {
	local h=${1:-} rate=${2:-} mode=${3:-ecn} kmin kmax pmax limit burst hburst avpkt=1000 dev leaf
	[[ $h =~ ^[0-9]+$ ]] && [ "$h" -ge 1 ] && [ "$h" -le "$TOPO_N" ] ||
		{ _topo_err "topo_bottleneck: no host '$h' (topology has $TOPO_N)"; return 1; }
	[[ $rate =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
		{ _topo_err "topo_bottleneck: rate must be in Mbit/s, got '$rate'"; return 1; }
	dev=swp$h
	case $mode in
	ecn|drop)
		kmin=${4:-20000} kmax=${5:-80000} pmax=${6:-0.1}
		[[ $kmin =~ ^[0-9]+$ && $kmax =~ ^[0-9]+$ ]] && [ "$kmin" -ge "$avpkt" ] && [ "$kmax" -gt "$kmin" ] ||
			{ _topo_err "topo_bottleneck: need ${avpkt} <= KMIN < KMAX in bytes, got '$kmin' '$kmax'"; return 1; }
		limit=$((4 * kmax))
		burst=$(((kmin + avpkt - 1) / avpkt))
		leaf="red limit $limit min $kmin max $kmax avpkt $avpkt burst $burst probability $pmax bandwidth ${rate}mbit"
		[ "$mode" = ecn ] && leaf+=" ecn"
		;;
	fifo)
		limit=${4:-100000}
		leaf="bfifo limit $limit"
		;;
	*) _topo_err "topo_bottleneck: unknown mode '$mode' (ecn, drop or fifo)"; return 1 ;;
	esac
	tc -n "$TOPO_NS" qdisc del dev "$dev" root 2>/dev/null
	local out
	out=$(tc -n "$TOPO_NS" qdisc add dev "$dev" root handle 1: htb default 1 2>&1) ||
		{ _topo_err "adding the HTB root on $dev failed: $out"; return 1; }
	# HTB's default burst (rate/HZ + MTU) only holds when its timer fires on
	# time; under TCG it fires late and a 20 Mbit/s class gave 10 Mbit/s.
	# 12 ms of tokens (at least 15 kB) give the set rate, in bursts.
	hburst=$((${rate%.*} * 1500))
	[ "$hburst" -ge 15000 ] || hburst=15000
	out=$(tc -n "$TOPO_NS" class add dev "$dev" parent 1: classid 1:1 htb rate "${rate}mbit" ceil "${rate}mbit" \
		burst "$hburst" cburst "$hburst" quantum 1514 2>&1) ||
		{ _topo_err "adding the ${rate} Mbit/s HTB class on $dev failed: $out"; return 1; }
	# shellcheck disable=SC2086
	out=$(tc -n "$TOPO_NS" qdisc add dev "$dev" parent 1:1 handle "$TOPO_LEAF" $leaf 2>&1) ||
		{ _topo_err "adding the leaf '$leaf' on $dev failed: $out"; return 1; }
}

topo_bottleneck_clear() {
	tc -n "$TOPO_NS" qdisc del dev "swp$1" root 2>/dev/null
	return 0
}

# topo_counters: every counter as "key value" lines (see the top of this file).
topo_counters() {
	{
		ip -n "$TOPO_NS" -s -j link show
		ip -s -j link show
		tc -n "$TOPO_NS" -s -j qdisc show
	} | jq -r -s --arg leaf "$TOPO_LEAF" '
		def links: .[] | select(.ifname | test("^(swp|veth)[0-9]+$")) |
			.ifname as $d | .stats64 | (["rx", "tx"][]) as $k |
			(.[$k] | to_entries[] | select(.key == "bytes" or .key == "packets" or .key == "dropped") |
			 "\($d).\($k)_\(.key) \(.value)");
		def qdiscs: .[] | select(.dev? // "" | test("^swp[0-9]+$")) |
			(if .root == true then "root" elif .handle == $leaf then "leaf" else empty end) as $w |
			.dev as $d |
			to_entries[] | select(.value | type == "number") | select(.key != "refcnt") |
			"\($d).\($w).\(.key) \(.value)";
		(.[0], .[1] | links), (.[2] | qdiscs)' ||
		{ _topo_err "reading the switch counters failed"; return 1; }
	topo_rxe_counters
}

# topo_rxe_counters: topo_counters' rxe lines alone (bash reads, no process)
topo_rxe_counters() {
	local h f v
	for ((h = 1; h <= TOPO_N; h++)); do
		for f in /sys/class/infiniband/rxe$h/ports/1/hw_counters/*; do
			read -r v <"$f" 2>/dev/null && echo "rxe$h.${f##*/} $v"
		done
	done
}

# topo_get FILE KEY: the value of KEY in a saved topo_counters output (0 if absent).
topo_get() {
	local k v
	while read -r k v; do
		[ "$k" = "$2" ] && { echo "$v"; return 0; }
	done <"$1"
	echo 0
}

# topo_delta BEFORE AFTER KEY
topo_delta() {
	echo $(($(topo_get "$2" "$3") - $(topo_get "$1" "$3")))
}

topo_rxe_stat() {
	local v
	read -r v <"/sys/class/infiniband/rxe$1/ports/1/hw_counters/$2" 2>/dev/null ||
		{ _topo_err "no rxe counter rxe$1/$2"; return 1; }
	echo "$v"
}

# The backlog sampler keeps one "tc -batch" running and asks it for the port's
# qdiscs every MS milliseconds: forking tc (or jq) per sample costs 0.1 s and
# more under TCG.
_topo_backlog_loop() {
	local dev=$1 ms=$2 file=$3 line rest t0 now wait
	printf -v wait '%d.%03d' $((ms / 1000)) $((ms % 1000))
	coproc TCB { exec stdbuf -oL tc -n "$TOPO_NS" -s -j -batch - 2>/dev/null; }
	trap 'kill $TCB_PID 2>/dev/null; exit 0' TERM INT
	t0=${EPOCHREALTIME/./}
	echo "$t0" >"$file.t0"
	while :; do
		echo "qdisc show dev $dev" >&"${TCB[1]}" || break
		IFS= read -r line <&"${TCB[0]}" || break
		now=${EPOCHREALTIME/./}
		rest=${line#*\"handle\":\"$TOPO_LEAF\"}
		if [[ $rest =~ \"backlog\":([0-9]+),\"qlen\":([0-9]+) ]]; then
			echo "$(((now - t0) / 1000)) ${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"
		fi
		_topo_sleep "$wait"
	done >>"$file"
}

topo_backlog_start() {
	local h=$1 ms=${2:-10} file=${3:-}
	[ -n "$file" ] || { _topo_err "topo_backlog_start H MS FILE: no file"; return 1; }
	[ -z "$TOPO_BACKLOG_PID" ] || { _topo_err "a backlog sampler is already running"; return 1; }
	tc -n "$TOPO_NS" qdisc show dev "swp$h" handle "$TOPO_LEAF" 2>/dev/null | grep -q . ||
		{ _topo_err "no bottleneck on swp$h (topo_bottleneck first)"; return 1; }
	: >"$file"
	_topo_backlog_loop "swp$h" "$ms" "$file" &
	TOPO_BACKLOG_PID=$!
}

topo_backlog_stop() {
	[ -n "$TOPO_BACKLOG_PID" ] || return 0
	kill "$TOPO_BACKLOG_PID" 2>/dev/null
	wait "$TOPO_BACKLOG_PID" 2>/dev/null
	TOPO_BACKLOG_PID=
	return 0
}

# topo_backlog_busy FILE: "FIRST_MS LAST_MS" of the samples with a non-empty
# queue (the bottleneck's busy period), or nothing.
topo_backlog_busy() {
	local t b q first= last=
	while read -r t b q; do
		[ "$b" -gt 0 ] || continue
		[ -n "$first" ] || first=$t
		last=$t
	done <"$1"
	[ -n "$first" ] && echo "$first $last"
}

topo_backlog_max() {
	local t b q max=0
	while read -r t b q; do
		[ "$b" -gt "$max" ] && max=$b
	done <"$1"
	echo "$max"
}

# --- PFC on the switch (selftests/tools/pfcswitch) --------------------------
#
#   topo_bottleneck_limit H LIMIT     the RED leaf of topo_bottleneck H RATE ecn
#                                     KMIN KMAX PMAX again, with a hard limit of
#                                     LIMIT bytes instead of 4*KMAX (args: H
#                                     RATE KMIN KMAX PMAX LIMIT)
#   topo_bottleneck_stall H           HTB class of port H down to 8 kbit/s (a
#                                     receiver that stops draining: PFC storm)
#   topo_bottleneck_unstall H RATE    back to RATE Mbit/s
#   topo_bottleneck_cmd H stall|RATE  the tc command line of the two above,
#                                     for pfcswitch --obey's --pause-cmd and
#                                     --resume-cmd (the switch port obeys
#                                     its receiver's PFC by stalling)
#   topo_pfc_start H PRIO XOFF XON [FILE [PFCSWITCH ARGS...]]
#                                     pfcswitch in the switch namespace,
#                                     watching the leaf (10:) of port H, XOFF/
#                                     XON for PRIO out of every other port;
#                                     statistics (JSON) to FILE at stop
#                                     (default $TOPO_PFC_STATS); its stderr
#                                     (-v: one line per XOFF/XON) to FILE.log
#   topo_pfc_stop                     SIGTERM, wait; fails if it did not
#                                     write its statistics
#   topo_pfc_stat FILE KEY            one statistic (keys: pfcswitch.c, e.g.
#                                     xoff_sent, ports.swp1.frames)
#   topo_pfc_send H PRIO QUANTA       one PFC frame out of switch port H
#                                     (0 quanta: XON)

TOPO_PFCSW=${TOPO_PFCSW:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)/build/tools/pfcswitch}
TOPO_PFC_PID=
TOPO_PFC_FILE=
TOPO_PFC_STATS=${TOPO_PFC_STATS:-/tmp/topo-pfc.json}

topo_bottleneck_limit() {
	local h=$1 rate=$2 kmin=$3 kmax=$4 pmax=$5 limit=$6 avpkt=1000 out
	[[ $limit =~ ^[0-9]+$ ]] && [ "$limit" -ge "$kmax" ] ||
		{ _topo_err "topo_bottleneck_limit: LIMIT must be bytes >= KMAX ($kmax), got '$limit'"; return 1; }
	topo_bottleneck "$h" "$rate" ecn "$kmin" "$kmax" "$pmax" || return 1
	out=$(tc -n "$TOPO_NS" qdisc replace dev "swp$h" parent 1:1 handle "$TOPO_LEAF" \
		red limit "$limit" min "$kmin" max "$kmax" avpkt "$avpkt" \
		burst $(((kmin + avpkt - 1) / avpkt)) probability "$pmax" \
		bandwidth "${rate}mbit" ecn 2>&1) ||
		{ _topo_err "setting the RED limit of swp$h to $limit failed: $out"; return 1; }
}

# The same HTB burst rule as topo_bottleneck.
_topo_htb_args() {	# H RATE BURST: tc's arguments
	echo "-n $TOPO_NS class change dev swp$1 parent 1: classid 1:1 htb rate $2 ceil $2 burst $3 cburst $3 quantum 1514"
}

_topo_htb_rate() {
	local out
	# shellcheck disable=SC2046 # words on purpose
	out=$(tc $(_topo_htb_args "$@") 2>&1) ||
		{ _topo_err "changing the HTB class of swp$1 to $2 failed: $out"; return 1; }
}

_topo_unstall_burst() {
	local hburst=$((${1%.*} * 1500))
	[ "$hburst" -ge 15000 ] || hburst=15000
	echo "$hburst"
}

topo_bottleneck_stall() {
	_topo_htb_rate "$1" 8kbit 1514
}

topo_bottleneck_unstall() {
	_topo_htb_rate "$1" "${2}mbit" "$(_topo_unstall_burst "$2")"
}

topo_bottleneck_cmd() {
	if [ "$2" = stall ]; then
		echo "tc $(_topo_htb_args "$1" 8kbit 1514)"
	else
		echo "tc $(_topo_htb_args "$1" "${2}mbit" "$(_topo_unstall_burst "$2")")"
	fi
}

topo_pfc_start() {
	local h=${1:-} prio=${2:-} xoff=${3:-} xon=${4:-} file=${5:-$TOPO_PFC_STATS} j ports='' end
	[ -z "$TOPO_PFC_PID" ] || { _topo_err "pfcswitch already runs (pid $TOPO_PFC_PID)"; return 1; }
	[[ $h =~ ^[0-9]+$ ]] && [ "$h" -ge 1 ] && [ "$h" -le "$TOPO_N" ] ||
		{ _topo_err "topo_pfc_start: no host '$h' (topology has $TOPO_N)"; return 1; }
	[ -x "$TOPO_PFCSW" ] || { _topo_err "no $TOPO_PFCSW (make -C selftests/tools)"; return 1; }
	shift $(($# < 5 ? $# : 5))
	for ((j = 1; j <= TOPO_N; j++)); do
		[ "$j" = "$h" ] || ports+=${ports:+,}swp$j
	done
	rm -f "$file" "$file.log"
	ip netns exec "$TOPO_NS" "$TOPO_PFCSW" --watch "swp$h" --leaf "$TOPO_LEAF" \
		--prio "$prio" --xoff "$xoff" --xon "$xon" --ports "$ports" \
		--stats "$file" --rt -v "$@" 2>"$file.log" &
	TOPO_PFC_PID=$! TOPO_PFC_FILE=$file
	# it says "watching ..." once it polled the queue once
	end=$((SECONDS + 10))
	until grep -q '^pfcswitch: watching' "$file.log" 2>/dev/null; do
		if ! kill -0 "$TOPO_PFC_PID" 2>/dev/null || [ "$SECONDS" -ge "$end" ]; then
			kill "$TOPO_PFC_PID" 2>/dev/null
			wait "$TOPO_PFC_PID" 2>/dev/null
			TOPO_PFC_PID=
			_topo_err "pfcswitch did not start: $(cat "$file.log" 2>/dev/null)"
			return 1
		fi
		_topo_sleep 0.1
	done
}

topo_pfc_stop() {
	local pid=$TOPO_PFC_PID
	[ -n "$pid" ] || return 0
	TOPO_PFC_PID=
	kill -TERM "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	[ -s "$TOPO_PFC_FILE" ] || { _topo_err "pfcswitch wrote no statistics to $TOPO_PFC_FILE: $(tail -n 3 "$TOPO_PFC_FILE.log" 2>/dev/null)"; return 1; }
}

topo_pfc_stat() {
	jq -r --arg k "$2" 'getpath($k | split(".")) // 0' "$1"
}

topo_pfc_send() {
	ip netns exec "$TOPO_NS" "$TOPO_PFCSW" --send "swp$1" --prio "$2" --quanta "$3"
}
