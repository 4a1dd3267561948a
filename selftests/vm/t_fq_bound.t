#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rxe's in-flight bound against fq's flow_limit, on the guest's kernel.
# Pacing and the rocecc qdisc hold RoCE packets and must never drop one:
# on 6.12 a drop fails rxe's work request and its QP (6.1 retried). What
# keeps a held flow finite is rxe itself: it hands IP at most 65 unfreed
# skbs per QP. fq hashes rxe's QP sockets (unconnected) as orphans, so
# QPs may share one fq flow; flow_limit 1000 (what roceccd and the tests
# install) holds 15 QPs in one flow.
#
# Here all QPs share one fq flow on purpose (orphan_mask 0) and fq holds
# it back (maxrate 4mbit, QP ACK timeout 4.3 s so nothing times out):
# 8 QPs WRITE 64 KB messages from host 1 to host 2 for 6 s.
#  - the flow's backlog (sampled every 100 ms) never exceeds 8 x 65
#    packets plus a few ACKs, and goes beyond fq's default flow_limit
#    (100): the bound is rxe's, and it is reached;
#  - flow_limit 1000: no fq drop, no rxe send error, no completion error.
# Run: scripts/vm --test selftests/vm/t_fq_bound.t

lib=$(dirname "$0")/lib
. "$lib/tap.sh"
. "$lib/topo.sh"
. "$lib/dp.sh"
tap_require_vm

QPS=8
work=$(mktemp -d /tmp/t_fq_bound.XXXXXX)
trap 'kill "$sampler" 2>/dev/null; topo_teardown; rm -rf "$work"' EXIT

tap_run "ib_core and rdma_rxe load" modprobe -a ib_core rdma_rxe || tap_bail "no rxe"
tap_run "2-host topology comes up" topo_setup 2 || tap_bail "no topology"
tap_run "fq on veth1: flow_limit 1000, one orphan flow, maxrate 4mbit" \
	tc qdisc replace dev veth1 root fq flow_limit 1000 orphan_mask 0 maxrate 4mbit

topo_counters >"$work/b"
tc -s -j qdisc show dev veth1 >"$work/qb"
( while :; do tc -s -j qdisc show dev veth1 | jq '.[0].qlen'; sleep 0.1; done ) \
	>"$work/qlen" 2>/dev/null &
sampler=$!
port=18610
dp_rg_server rxe2 "$port" 1 --timeout 20 || tap_bail "no rocegen server"
DP_RG_PEER=$(topo_ip 2) dp_rg_client 1 "$port" "$work/c.json" --qps "$QPS" \
	--size 64K --depth 4 --duration 6 --timeout 20 >"$work/c.out" 2>&1
wait "$DP_SRV_PID"
kill "$sampler" 2>/dev/null
wait "$sampler" 2>/dev/null
topo_counters >"$work/a"
tc -s -j qdisc show dev veth1 >"$work/qa"

max=$(sort -n "$work/qlen" | tail -n 1)
msgs=$(jq '.total.messages' "$work/c.json")
errs=$(jq '.total.errors' "$work/c.json")
drops=$(( $(jq '.[0].drops' "$work/qa") - $(jq '.[0].drops' "$work/qb") ))
plimit=$(jq '.[0].flows_plimit // 0' "$work/qa")
senderr=$(topo_delta "$work/b" "$work/a" rxe1.send_err)
tap_diag "$(uname -r): $QPS QPs in one fq flow: backlog at most $max packets ($(wc -l <"$work/qlen") samples); $msgs messages, $errs completion errors, fq drops $drops (flow limit $plimit), rxe1 send_err $senderr"

tap_cmp "$msgs" -gt 0 "rocegen completed messages"
tap_cmp "$max" -gt 100 "the shared flow's backlog went beyond fq's default flow_limit 100"
tap_cmp "$max" -le $((QPS * 65 + 16)) "... and never beyond $QPS QPs x 65 skbs (+ ACKs): rxe's bound"
tap_cmp "$drops" -eq 0 "flow_limit 1000: fq dropped nothing"
tap_cmp "$senderr" -eq 0 "... rxe saw no send error"
tap_cmp "$errs" -eq 0 "... and no completion error"
tap_done
