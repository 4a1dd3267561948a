#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rocegen in the test VM: two rxe hosts, RDMA WRITE and SEND, 1 and 4 QPs,
# back-to-back and paced (achieved rate within 5 % of offered), ECT(0) on
# the wire with --tclass 2, SIGINT still writes the report, bad input named.
# Run: selftests/vm/run selftests/vm/t_rocegen.t
#  (or scripts/vm --test selftests/vm/t_rocegen.t)

top=$(cd "$(dirname "$0")/../.." && pwd)
lib=$top/selftests/vm/lib
. "$lib/tap.sh"
. "$lib/topo.sh"
tap_require_vm

rg=$top/build/tools/rocegen
[ -x "$rg" ] || tap_bail "$rg missing: make -C selftests/tools"
work=$(mktemp -d /tmp/vm_rocegen.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; topo_teardown; rm -rf "$work"' EXIT
port=18600

tap_run "2-host topology comes up" topo_setup 2 || tap_bail "no topology"
srv_dev=$(topo_dev 2) cli_dev=$(topo_dev 1) srv_ip=$(topo_ip 2)

# jget FILE EXPR...: values from a JSON report (python3 expressions on d),
# one a line into the array J; one python per report (each start costs
# about a second under TCG)
jget() {
	mapfile -t J < <(python3 -c '
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except (OSError, ValueError) as x:
    d = x
for e in sys.argv[2:]:
    try:
        print(eval(e))
    except Exception as x:
        print(("error: %s" % x).replace("\n", " "))' "$@")
}

# rgrun NAME CLIENT_ARGS...: a one-session server on host 2 and a client on
# host 1 (pinned to CPU 0: no reordering of a QP's packets); sets $st.
# The runs use --timeout 18 (~1 s): on a starved TCG guest 67 ms ACK
# timeouts fire spuriously and rxe 6.1 sometimes ends such a retry with a
# fatal NAK; that is rxe's business, not what this test is about.
SUMMARY='"%.2f Mbit/s, %d msgs, p50 %.0f p99 %.0f p99.9 %.0f max %.0f us, retries %s, seq NAKs %s" % (d["total"]["mbit"], d["total"]["messages"], d["total"]["latency"]["p50"], d["total"]["latency"]["p99"], d["total"]["latency"]["p999"], d["total"]["latency"]["max"], d["hw_counters"].get("completer_retry_err"), d["hw_counters"].get("rcvd_seq_err"))'
# Known, not understood: now and then (2 of ~11 CI runs on 6.1, both
# --count runs) a client hangs after it wrote its complete report, in its
# teardown (ibv_destroy_qp and the rest) or in rxe. Its figures are still
# checked; the hang is counted, reported as a TODO at the end, and the
# kernel stacks of its threads are printed, to find where it hangs.
hangs=0
# rgwait PID REPORT SECS: wait for the client PID; sets $st (124: killed
# after SECS, or 10 s after it wrote REPORT without exiting: a hang)
rgwait() {
	local pid=$1 json=$2 end=$((SECONDS + $3)) done_at= t
	while kill -0 "$pid" 2>/dev/null; do
		[ -z "$done_at" ] && [ -s "$json" ] && done_at=$SECONDS
		if [ "$SECONDS" -ge "$end" ] ||
			{ [ -n "$done_at" ] && [ $((SECONDS - done_at)) -ge 10 ]; }; then
			for t in /proc/"$pid"/task/*; do
				tap_diag "hung client, thread ${t##*/} ($(cat "$t/comm" 2>/dev/null)), $(grep -s '^State' "$t/status"):"
				while IFS= read -r line; do tap_diag "  $line"; done <"$t/stack"
			done 2>/dev/null
			kill -KILL "$pid" 2>/dev/null
			wait "$pid"
			st=124
			if [ -n "$done_at" ]; then
				hangs=$((hangs + 1))
				tap_diag "the client hung after writing its report (killed)"
				st=0
			fi
			return
		fi
		_topo_sleep 0.2
	done
	wait "$pid"
	st=$?
}
rgrun() {
	local name=$1
	shift
	# Bounded: a generator that hangs fails its run (status 124) instead
	# of the whole guest's time budget.
	timeout 150 "$rg" --server --dev "$srv_dev" --port $port -Q \
		--json "$work/$name.srv.json" 2>"$work/$name.srv.err" &
	local spid=$!
	topo_wait_listen $port 20 || tap_bail "server did not listen"
	"$rg" --client "$srv_ip" --dev "$cli_dev" --port $port --cpu 0 -Q \
		--json "$work/$name.json" "$@" 2>"$work/$name.err" &
	rgwait $! "$work/$name.json" 120
	wait "$spid"
	sst=$?
	[ "$sst" = 0 ] || tap_diag "$name: server status $sst: $(cat "$work/$name.srv.err")"
	[ "$st" = 0 ] || tap_diag "$name: client status $st: $(cat "$work/$name.err")"
}

# back-to-back: write and send, 1 and 4 QPs (2 s: 200 samples, hundreds
# of messages per QP)
keys='all(k in d for k in ("params","local","elapsed_s","interrupted","loop","hw_counters","qps","total")) and all(all(k in q for k in ("local_qpn","remote_qpn","bytes","messages","errors","throughput","latency")) for q in d["qps"]) and all(k in d["total"]["latency"] for k in ("p50","p90","p99","p999","max","mean"))'
for op in write send; do
	for qps in 1 4; do
		n=$op-$qps
		rgrun "$n" --op $op --qps $qps --duration 2 --timeout 18
		tap_cmp "$st" -eq 0 "$op, $qps QP back-to-back: exit 0"
		jget "$work/$n.json" "$SUMMARY" 'd["total"]["errors"]' \
			'min(q["messages"] for q in d["qps"])' 'len(d["qps"])' \
			'sum(q["messages"] != q.get("remote", {}).get("messages") for q in d["qps"])' \
			"int($keys)" 'len(d["qps"][0]["throughput"])'
		tap_diag "$n: ${J[0]}"
		tap_cmp "${J[1]}" -eq 0 "$op, $qps QP: no completion errors"
		tap_cmp "${J[2]}" -gt 10 "$op, $qps QP: every QP completed messages"
		tap_cmp "${J[3]}" -eq $qps "$op, $qps QP: $qps QPs reported"
		if [ $op = send ]; then
			tap_cmp "${J[4]}" -eq 0 \
				"send, $qps QP: the server received every message the client completed"
		fi
		# the report's schema, and its throughput series
		[ "$n" = write-4 ] && tap_cmp "${J[5]}" -eq 1 "client JSON has the documented keys"
		[ "$n" = write-1 ] && tap_cmp "${J[6]}" -ge 100 "a 2 s run has >= 100 throughput samples (10 ms each)"
	done
done
jget "$work/send-4.srv.json" 'd["total"]["messages"]'
tap_cmp "${J[0]}" -gt 0 "server JSON line counts received SENDs"

# paced: achieved within 5 % of offered, per QP
for spec in "write 1 20" "send 1 20" "write 4 5" "send 4 5"; do
	set -- $spec
	n=rate-$1-$2
	rgrun "$n" --op "$1" --qps "$2" --rate "$3" --duration 8 --timeout 18
	tap_cmp "$st" -eq 0 "$1, $2 QP at $3 Mbit/s each: exit 0"
	jget "$work/$n.json" "$SUMMARY" \
		"int(max(abs(q['mbit'] - $3) / $3 * 1000 for q in d['qps']))" \
		'" ".join("%.3f" % q["mbit"] for q in d["qps"])' 'd["total"]["tokens_lost_bytes"]'
	tap_diag "$n: ${J[0]}"
	tap_cmp "${J[1]}" -le 50 "$1, $2 QP at $3 Mbit/s: every QP within 5 % (worst off by ${J[1]} per mille)"
	tap_diag "$n: per QP mbit ${J[2]}, tokens lost ${J[3]} B"
done

# ECT(0) on the wire: --tclass 2 becomes IP TOS 0x02
cap=
if command -v tcpdump >/dev/null; then
	timeout 60 tcpdump -i "$(topo_netdev 1)" -n -v -c 5 udp dst port 4791 >"$work/cap" 2>"$work/cap.err" &
	cap=$!
elif command -v tshark >/dev/null; then
	timeout 60 tshark -i "$(topo_netdev 1)" -c 5 -f "udp dst port 4791" -T fields -e ip.dsfield >"$work/cap" 2>"$work/cap.err" &
	cap=$!
fi
if [ -n "$cap" ]; then
	# the capture must be there before the first packet
	for _ in $(seq 100); do
		grep -Eqs 'listening on|Capturing on' "$work/cap.err" && break
		_topo_sleep 0.1
	done
	rgrun tclass --tclass 2 --count 50 --timeout 18
	jget "$work/tclass.json" "$SUMMARY"
	tap_diag "tclass: ${J[0]}"
	tap_cmp "$st" -eq 0 "--tclass 2 run: exit 0"
	wait "$cap"
	tap_diag "$(head -n 2 "$work/cap")"
	grep -Eq 'tos 0x2,ECT\(0\)|^0x0*2$' "$work/cap"
	tap_ok $? "--tclass 2: RoCE packets leave with TOS 0x02 (ECT(0))"
	grep -Evq 'tos 0x2,ECT\(0\)|^0x0*2$|^ |^$' "$work/cap"
	tap_ok $((!$?)) "--tclass 2: no RoCE packet with another TOS"
else
	tap_diag "neither tcpdump nor tshark: ECT(0) not checked"
fi

# SIGINT: stops, drains, still reports
"$rg" --server --dev "$srv_dev" --port $port -Q 2>/dev/null &
spid=$!
topo_wait_listen $port 20
"$rg" --client "$srv_ip" --dev "$cli_dev" --port $port --cpu 0 -Q --rate 10 \
	--duration 60 --json "$work/int.json" 2>"$work/int.err" &
cpid=$!
_topo_sleep 2
kill -INT "$cpid"
wait "$cpid"
tap_cmp $? -eq 0 "SIGINT: client exits 0" || tap_diag "$(cat "$work/int.err")"
wait "$spid"
jget "$work/int.json" 'int(d["interrupted"] and d["total"]["messages"] > 0 and d["elapsed_s"] < 30)'
tap_cmp "${J[0]}" -eq 1 "SIGINT: report written, interrupted, with what was measured"

# bad input is named
out=$("$rg" --client "$srv_ip" --dev rxe9 -n 1 2>&1)
tap_cmp $? -eq 1 "unknown device: exit 1"
grep -q "no RDMA device 'rxe9'" <<<"$out"
tap_ok $? "unknown device: the message names it" || tap_diag "$out"
out=$("$rg" --client "$srv_ip" --dev "$cli_dev" --port $port --connect-timeout 0.5 -n 1 2>&1)
tap_cmp $? -eq 1 "no server: exit 1"
grep -q "cannot connect to $srv_ip port $port" <<<"$out"
tap_ok $? "no server: the message names address and port" || tap_diag "$out"

# The generator's numbers agree with the switch's byte counters. An RDMA
# WRITE of S bytes at path MTU M crosses the wire as ceil(S/M) packets, each
# with Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 = 58 bytes of headers,
# plus a 16-byte RETH on the first; ip -s counts bytes from the Ethernet
# header on. Retransmissions would add bytes, so the rxe retry counter must
# stay 0 for the comparison to be exact.
size=16384 mtu=1024 count=200
topo_counters >"$work/bytes.before"
rgrun bytes --op write --size $size --mtu $mtu --count $count --timeout 18
topo_counters >"$work/bytes.after"
tap_cmp "$st" -eq 0 "write of $count x $size B at MTU $mtu: exit 0"
jget "$work/bytes.json" "$SUMMARY" 'd["total"]["messages"]' 'd["total"]["bytes"]'
tap_diag "bytes: ${J[0]}"
msgs=${J[1]} gbytes=${J[2]}
tap_cmp "$msgs" -eq $count "generator counted $count messages"
tap_cmp "$gbytes" -eq $((count * size)) "generator counted $((count * size)) payload bytes"
pkts=$(( (size + mtu - 1) / mtu ))
want=$(( msgs * (size + pkts * 58 + 16) ))
got=$(topo_delta "$work/bytes.before" "$work/bytes.after" swp1.rx_bytes)
retries=$(topo_delta "$work/bytes.before" "$work/bytes.after" rxe1.completer_retry_err)
tap_diag "switch port from host 1: $got B; generator: $gbytes B payload, $want B on the wire by the formula; rxe1 retries $retries"
tap_cmp "$retries" -eq 0 "no retransmissions during the byte comparison"
tap_cmp "$got" -eq "$want" "switch byte counter equals the generator's messages on the wire"
tap_cmp "$(topo_delta "$work/bytes.before" "$work/bytes.after" swp1.rx_packets)" -eq $((msgs * pkts)) \
	"switch packet counter equals $msgs messages x $pkts packets"

# A TODO line (prove does not count it as a failure), not tap_ok.
TAP_N=$((TAP_N + 1))
if [ "$hangs" = 0 ]; then
	echo "ok $TAP_N - no client hung after its report"
else
	echo "not ok $TAP_N - no client hung after its report ($hangs did) # TODO intermittent hang after the report, cause unknown (the stacks are above)"
fi
tap_done
