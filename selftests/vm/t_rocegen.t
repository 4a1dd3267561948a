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

# jget FILE EXPR: a value from a JSON report (python3 expression on d)
jget() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# rgrun NAME CLIENT_ARGS...: a one-session server on host 2 and a client on
# host 1 (pinned to CPU 0: no reordering of a QP's packets); sets $st.
# The runs use --timeout 18 (~1 s): on a starved TCG guest 67 ms ACK
# timeouts fire spuriously and rxe 6.1 sometimes ends such a retry with a
# fatal NAK; that is rxe's business, not what this test is about.
hangs=0
rgrun() {
	local name=$1
	shift
	# Bounded: a generator that hangs fails its run (status 124) instead
	# of the whole guest's time budget.
	timeout 150 "$rg" --server --dev "$srv_dev" --port $port -Q \
		--json "$work/$name.srv.json" 2>"$work/$name.srv.err" &
	local spid=$!
	topo_wait_listen $port 20 || tap_bail "server did not listen"
	timeout 120 "$rg" --client "$srv_ip" --dev "$cli_dev" --port $port --cpu 0 -Q \
		--json "$work/$name.json" "$@" 2>"$work/$name.err"
	st=$?
	# Known, not understood: now and then (2 of ~11 CI runs, both
	# --count runs) the client hangs after it wrote its report, until
	# the timeout kills it. Its figures are complete and checked below;
	# the hang is counted and reported as a TODO at the end.
	if [ "$st" = 124 ] && [ -s "$work/$name.json" ]; then
		hangs=$((hangs + 1))
		tap_diag "$name: client hung after writing its report (killed by timeout)"
		st=0
	fi
	wait "$spid"
	sst=$?
	[ "$sst" = 0 ] || tap_diag "$name: server status $sst: $(cat "$work/$name.srv.err")"
	[ "$st" = 0 ] || tap_diag "$name: client status $st: $(cat "$work/$name.err")"
	[ -s "$work/$name.json" ] && tap_diag "$name: $(jget "$work/$name.json" '"%.2f Mbit/s, %d msgs, p50 %.0f p99 %.0f p99.9 %.0f max %.0f us, retries %s, seq NAKs %s" % (d["total"]["mbit"], d["total"]["messages"], d["total"]["latency"]["p50"], d["total"]["latency"]["p99"], d["total"]["latency"]["p999"], d["total"]["latency"]["max"], d["hw_counters"].get("completer_retry_err"), d["hw_counters"].get("rcvd_seq_err"))')"
}

# back-to-back: write and send, 1 and 4 QPs
for op in write send; do
	for qps in 1 4; do
		n=$op-$qps
		rgrun "$n" --op $op --qps $qps --duration 4 --timeout 18
		tap_cmp "$st" -eq 0 "$op, $qps QP back-to-back: exit 0"
		tap_cmp "$(jget "$work/$n.json" 'd["total"]["errors"]')" -eq 0 "$op, $qps QP: no completion errors"
		tap_cmp "$(jget "$work/$n.json" 'min(q["messages"] for q in d["qps"])')" -gt 10 "$op, $qps QP: every QP completed messages"
		tap_cmp "$(jget "$work/$n.json" 'len(d["qps"])')" -eq $qps "$op, $qps QP: $qps QPs reported"
		if [ $op = send ]; then
			tap_cmp "$(jget "$work/$n.json" 'sum(q["messages"] != q["remote"]["messages"] for q in d["qps"])')" -eq 0 \
				"send, $qps QP: the server received every message the client completed"
		fi
	done
done

# schema of the client report
keys='all(k in d for k in ("params","local","elapsed_s","interrupted","loop","hw_counters","qps","total")) and all(all(k in q for k in ("local_qpn","remote_qpn","bytes","messages","errors","throughput","latency")) for q in d["qps"]) and all(k in d["total"]["latency"] for k in ("p50","p90","p99","p999","max","mean"))'
tap_cmp "$(jget "$work/write-4.json" "int($keys)")" -eq 1 "client JSON has the documented keys"
tap_cmp "$(jget "$work/write-1.json" 'len(d["qps"][0]["throughput"])')" -ge 100 "a 4 s run has >= 100 throughput samples (10 ms each)"
tap_cmp "$(jget "$work/send-4.srv.json" 'd["total"]["messages"]')" -gt 0 "server JSON line counts received SENDs"

# paced: achieved within 5 % of offered, per QP
for spec in "write 1 20" "send 1 20" "write 4 5" "send 4 5"; do
	set -- $spec
	n=rate-$1-$2
	rgrun "$n" --op "$1" --qps "$2" --rate "$3" --duration 8 --timeout 18
	tap_cmp "$st" -eq 0 "$1, $2 QP at $3 Mbit/s each: exit 0"
	worst=$(jget "$work/$n.json" "int(max(abs(q['mbit'] - $3) / $3 * 1000 for q in d['qps']))")
	tap_cmp "$worst" -le 50 "$1, $2 QP at $3 Mbit/s: every QP within 5 % (worst off by $worst per mille)"
	tap_diag "$n: per QP mbit $(jget "$work/$n.json" '" ".join("%.3f" % q["mbit"] for q in d["qps"])'), tokens lost $(jget "$work/$n.json" 'd["total"]["tokens_lost_bytes"]') B"
done

# ECT(0) on the wire: --tclass 2 becomes IP TOS 0x02
cap=
if command -v tcpdump >/dev/null; then
	timeout 60 tcpdump -i "$(topo_netdev 1)" -n -v -c 5 udp dst port 4791 >"$work/cap" 2>/dev/null &
	cap=$!
elif command -v tshark >/dev/null; then
	timeout 60 tshark -i "$(topo_netdev 1)" -c 5 -f "udp dst port 4791" -T fields -e ip.dsfield >"$work/cap" 2>/dev/null &
	cap=$!
fi
if [ -n "$cap" ]; then
	sleep 2
	rgrun tclass --tclass 2 --count 50 --timeout 18
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
sleep 3
kill -INT "$cpid"
wait "$cpid"
tap_cmp $? -eq 0 "SIGINT: client exits 0" || tap_diag "$(cat "$work/int.err")"
wait "$spid"
tap_cmp "$(jget "$work/int.json" 'int(d["interrupted"] and d["total"]["messages"] > 0 and d["elapsed_s"] < 30)')" -eq 1 \
	"SIGINT: report written, interrupted, with what was measured"

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
msgs=$(jget "$work/bytes.json" 'd["total"]["messages"]')
gbytes=$(jget "$work/bytes.json" 'd["total"]["bytes"]')
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
	echo "not ok $TAP_N - no client hung after its report ($hangs did) # TODO intermittent hang after the report, cause unknown"
fi
tap_done
