#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The testbed itself: the guest runs the Debian kernel asked for (6.1, or
# ROCECC_GUEST), rdma_rxe loads,
# a 2-host topology comes up, and RC traffic between host 1 and host 2
# (ibv_rc_pingpong) crosses the switch, as its port counters show.
# Run: scripts/vm --test selftests/vm/t_boot.t

lib=$(dirname "$0")/lib
. "$lib/tap.sh"
. "$lib/topo.sh"
tap_require_vm

work=$(mktemp -d /tmp/t_boot.XXXXXX)
trap 'topo_teardown; rm -rf "$work"' EXIT

kver=$(uname -r)
guest=${ROCECC_GUEST:-6.1}
[[ $kver == "$guest".* || $kver == "$guest" ]]
tap_ok $? "guest kernel is the one asked for, $guest ($kver)"

tap_run "rdma_rxe loads" modprobe rdma_rxe

t0=$EPOCHREALTIME
tap_run "2-host topology comes up" topo_setup 2 || tap_bail "no topology"
tap_diag "topo_setup 2 took $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }') s"

devs=$(ibv_devices 2>&1)
grep -qw rxe1 <<<"$devs" && grep -qw rxe2 <<<"$devs"
tap_ok $? "ibv_devices lists rxe1 and rxe2" || tap_diag "$devs"

g1=$(topo_gid_index 1 4) g2=$(topo_gid_index 2 4)
tap_diag "IPv4 GID index: rxe1 $g1, rxe2 $g2"

iters=200 size=4096
topo_counters >"$work/before" || tap_bail "cannot read counters"
ibv_rc_pingpong -d rxe2 -g "$g2" -n "$iters" -s "$size" >"$work/server" 2>&1 &
server=$!
topo_wait_listen 18515 20
ibv_rc_pingpong -d rxe1 -g "$g1" -n "$iters" -s "$size" "$(topo_ip 2)" >"$work/client" 2>&1
client_st=$?
wait "$server"
server_st=$?
topo_counters >"$work/after" || tap_bail "cannot read counters"

[ "$client_st" = 0 ] && [ "$server_st" = 0 ]
tap_ok $? "ibv_rc_pingpong rxe1 -> rxe2: $iters x $size bytes" ||
	tap_diag "client (status $client_st):" "$(cat "$work/client")" "server (status $server_st):" "$(cat "$work/server")"
tap_diag "$(grep -h 'bytes in' "$work/client")"

# Each iteration sends SIZE bytes each way: host 1's port receives (from host
# 1) and sends (to host 1) at least ITERS*SIZE bytes, and so does host 2's.
exchanged=$((iters * size))
for h in 1 2; do
	for dir in rx tx; do
		d=$(topo_delta "$work/before" "$work/after" "swp$h.${dir}_bytes")
		tap_cmp "$d" -ge "$exchanged" "switch port swp$h ${dir}_bytes grew by $d >= $exchanged"
	done
done
tap_diag "switch swp1 rx/tx packets: $(topo_delta "$work/before" "$work/after" swp1.rx_packets)/$(topo_delta "$work/before" "$work/after" swp1.tx_packets)"
for h in 1 2; do
	line="rxe$h:"
	for c in sent_pkts rcvd_pkts completer_retry_err rcvd_seq_err send_err retry_exceeded_err; do
		line+=" $c=$(topo_delta "$work/before" "$work/after" "rxe$h.$c")"
	done
	tap_diag "$line"
done
tap_cmp "$(topo_delta "$work/before" "$work/after" rxe1.retry_exceeded_err)" -eq 0 "no retry-exceeded errors on rxe1"

tap_done
