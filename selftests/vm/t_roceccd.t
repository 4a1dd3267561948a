#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# roceccd in the test VM: it attaches bpf/flowmon to both RoCE netdevs,
# names rocegen's flow after its QP (comm[pid] lqpn -> peer:rqpn), its
# message completion percentiles agree with rocegen's ground truth, its
# /metrics endpoint passes promtool and counts rocegen's messages, a
# process name with quotes, a backslash, a newline, a control character
# and bytes that are not UTF-8 leaves /metrics and the JSON valid, and
# SIGTERM leaves the netdevs as they were.
# Run: selftests/vm/run selftests/vm/t_roceccd.t
#  (or scripts/vm --test selftests/vm/t_roceccd.t)
#
# The latency relation. rocegen times a message from ibv_post_send() to its
# completion; flowmon from its first packet at the sender's TC egress hook
# to the ACK that completes it at the TC ingress hook. The wire interval
# lies inside the post-to-completion interval of the same message, so each
# message's wire time is at most its rocegen time, and so is every
# percentile (the k-th smallest of values each bounded by a partner is
# bounded by the k-th smallest partner). But the daemon misses the QP's
# first messages (before it learns the QP, at most one --interval): it
# times dm of rocegen's n, and the k-th smallest of a subset is bounded
# only by the (k + n - dm)-th smallest of the whole. With 2 % of the
# messages missed, the daemon's p99 is bounded by rocegen's p99.9 or so,
# not its p99. So rocegen's JSON carries its histogram, and the bound is
# the upper end of the bucket holding rank ceil(q * dm) + n - dm there:
# exact, and the daemon's midpoint is within 1/32 of its value (hist.h), so
#     daemon p <= bound * (1 + 1/32) < bound * 1.04.
# A failure of this bound is a flowmon bug, not noise. One was: a CI run
# where the daemon timed all 2279 messages failed it (busy p99 10.2 ms
# against rocegen's 9.4 ms, p99.9 36.7 against 14.9 ms). The QP's ACKs
# that came before the daemon knew it wait in a pending entry, and
# flowmon folded that in only once the daemon marked the QP's qps entry
# FLOWMON_QP_MERGE, which it does after writing the entry, later in its
# round. An ACK arriving in between went to the flow first and, being
# cumulative, completed every message sent since the QP's first packet
# at its own time: a ramp of samples up to the length of that window
# (~40 ms under TCG), one per message, where p99.9 and p99 landed.
# Fixed in flowmon (the flow's first resolved packet folds the entry in);
# selftests/bpf/test_flowmon.c replays the daemon's round
# (test_resolve_round). The p50/p99 ratios below were measured before;
# after, one run (6.1): busy p50 468, p99 705 per mille (p99.9 19.4 ms
# against 29.9 ms), paced p50 625, p99 746; 1963 of 1963 and 233 of 233
# messages timed.
# Below, rocegen's time adds what the wire does not see:
# the wait in rxe's send queue behind the messages posted before, rxe's
# requester and completer tasks, and the CQ event wakeup, all slow under
# TCG. Two runs, so that the bound means something:
#  - busy: back-to-back with --depth 4. A message posted when a slot frees
#    waits behind up to three 16 KB messages before its first packet
#    leaves, so its wire time is roughly a quarter of its post-to-completion
#    time (more when the poster lags and slots stay empty, less with the
#    software time), and the tail adds the poster's own stalls under TCG.
#    Measured daemon/rocegen, per mille, in four runs: p50 205, 375, 404,
#    382; p99 311, 632, 400, 200. RG_LOW_BUSY = 80: 2.5 times below the
#    lowest.
#  - paced: 8 Mbit/s, one 16 KB message per token (--burst 16K), about 61
#    messages/s, each done in ~1.5 ms: no queueing, what remains is rxe's
#    and the wakeup's software time (~0.6-0.8 ms at p50 under TCG).
#    Measured: p50 675, 697, 699; p99 543, 543, 507. RG_LOW_PACED = 300:
#    0.6 of the lowest. This is the bound that says "not far below".
# The daemon must time nearly every message: it misses only those that
# complete before its first poll after the QP reaches RTR (--interval
# 100ms). Measured: 1757 of 1772, 3700 of 3773, 2174 of 2203, 1683 of
# 1691 (busy), 237 of 239, 235 of 237, 234 of 235 (paced); COUNT_LOW = 900
# per mille. Exact equality holds between the daemon's own views: /metrics
# _count, the +Inf bucket and /flows.json.

top=$(cd "$(dirname "$0")/../.." && pwd)
lib=$top/selftests/vm/lib
. "$lib/tap.sh"
. "$lib/topo.sh"
tap_require_vm

rg=$top/build/tools/rocegen
rd=$top/build/daemon/roceccd
[ -x "$rg" ] || tap_bail "$rg missing: make -C selftests/tools"
[ -x "$rd" ] || tap_bail "$rd missing: make -C daemon"
work=$(mktemp -d /tmp/vm_roceccd.XXXXXX)
rdpid=
# The daemons pin their flow table here, not in the default
# /sys/fs/bpf/rocecc: the pins outlive them (roceccd(8)), and the test
# removes them.
pin=/sys/fs/bpf/rocecc_t_roceccd
rm -rf "$pin"
trap 'kill $(jobs -p) 2>/dev/null; topo_teardown; rm -rf "$work" "$pin"' EXIT
port=18600
mport=9468
url=http://127.0.0.1:$mport
RG_HIGH=${RG_HIGH:-1040}	# per mille: histogram bounds, see above
RG_LOW_BUSY=${RG_LOW_BUSY:-80}	# per mille, back-to-back: see above
RG_LOW_PACED=${RG_LOW_PACED:-300}	# per mille, paced: see above
COUNT_LOW=${COUNT_LOW:-900}	# per mille of rocegen's messages timed

tap_run "2-host topology comes up" topo_setup 2 || tap_bail "no topology"
srv_dev=$(topo_dev 2) cli_dev=$(topo_dev 1) srv_ip=$(topo_ip 2)

# bad input is named, nothing is attached
out=$("$rd" -f --port 70000 2>&1)
tap_ok $(( $? != 2 )) "bad --port: exit 2" || tap_diag "$out"
grep -q "'70000'" <<<"$out"
tap_ok $? "bad --port: the message names the value ($out)"

"$rd" -f -p $mport -i 100ms --linger 60 -L debug --pin-dir "$pin" >"$work/rd.log" 2>&1 &
rdpid=$!
up=1
for _ in $(seq 50); do
	curl -sf -o /dev/null "$url/metrics" && { up=0; break; }
	_topo_sleep 0.2
done
tap_ok $up "roceccd serves $url/metrics" || { tap_diag "$(cat "$work/rd.log")"; tap_bail "no daemon"; }
_topo_sleep 0.5
for h in 1 2; do
	tc filter show dev "veth$h" ingress >"$work/f$h.in" 2>&1
	tc filter show dev "veth$h" egress >"$work/f$h.eg" 2>&1
	grep -q flowmon_ingress "$work/f$h.in" && grep -q flowmon_egress "$work/f$h.eg"
	tap_ok $? "flowmon attached to veth$h ingress and egress" ||
		tap_diag "$(cat "$work/f$h.in" "$work/f$h.eg" "$work/rd.log")"
done

# rg_run NAME ARGS...: rocegen WRITE host 1 -> host 2 (client pinned to
# CPU 0; $rgc, if set, is the client's binary), then the daemon's
# /flows.json, /metrics and /flows; sets cpid. ACK timeout 18 (1.07 s),
# not the default 14: rocecc.ko is not loaded here (nothing paces), and a
# spurious retry on a starved TCG guest can end in rxe 6.1's fatal NAK
# (t_rocegen.t); the daemon's figures, not rxe's timer, are under test.
rg_run() {
	local name=$1 spid
	shift
	"$rg" --server --dev "$srv_dev" --port $port -Q \
		--json "$work/$name.srv.json" 2>"$work/$name.srv.err" &
	spid=$!
	topo_wait_listen $port 20 || tap_bail "rocegen server did not listen"
	"${rgc:-$rg}" --client "$srv_ip" --dev "$cli_dev" --port $port --cpu 0 -Q \
		--op write --depth 4 --timeout 18 "$@" \
		--json "$work/$name.json" 2>"$work/$name.err" &
	cpid=$!
	wait "$cpid"
	tap_cmp $? -eq 0 "$name: rocegen client exits 0" || tap_diag "$(cat "$work/$name.err")"
	wait "$spid"
	_topo_sleep 0.5	# a poll after the QPs are gone; flows linger 60 s
	curl -sf "$url/flows.json" >"$work/$name.flows.json" &&
	curl -sf "$url/metrics" >"$work/$name.metrics" &&
	curl -sf "$url/flows" >"$work/$name.flows.txt"
	tap_ok $? "$name: GET /flows.json, /metrics, /flows"
	tap_diag "$(cat "$work/$name.flows.txt")"
}

# compare NAME LOW: the daemon's view of run NAME against rocegen's report;
# LOW is the lower bound of daemon / rocegen percentiles, per mille.
compare() {
	local name=$1 low=$2 rg50 rg99 d50 d99 u50 u99 rgm dm
	python3 - "$work/$name.json" "$work/$name.flows.json" "$work/$name.metrics" "$cpid" "$srv_ip" \
		>"$work/$name.cmp" 2>"$work/$name.cmp.err" <<'PY'
import json, re, sys
cli = json.load(open(sys.argv[1]))
flows = json.load(open(sys.argv[2]))
metrics = open(sys.argv[3]).read()
pid, peer = int(sys.argv[4]), sys.argv[5]
q = cli["qps"][0]
want = "rocegen[%d] %d -> %s:%d" % (pid, q["local_qpn"], peer, q["remote_qpn"])
f = [x for x in flows if x["lqpn"] == q["local_qpn"] and x["peer"] == peer]
print("want_name", want.replace(" ", "_"))
print("nflows", len(f))
if not f:
    sys.exit(0)
f = f[0]
print("name", f["flow"].replace(" ", "_"))
print("name_ok", int(f["flow"] == want and f["comm"] == "rocegen" and f["pid"] == pid
                     and f["rqpn"] == q["remote_qpn"] and f["dev"] == "rxe1"))
m, lat = f["message_completion"], q["latency"]
print("rg_msgs", q["messages"])
print("d_msgs", m["samples"])
for p in ("p50", "p99", "p999"):
    print("rg_%s_ns" % p, int(lat[p] * 1000))
    print("d_%s_ns" % p, int((m[p + "_us"] or 0) * 1000))
# The upper bounds: of rocegen's n messages the daemon timed a subset of
# dm; its rank ceil(q * dm) lies at rank ceil(q * dm) + n - dm or below in
# rocegen's, whose bucket's upper end bounds it.
def upper(q_ppm):
    n, dm = lat["samples"], m["samples"] or 0
    r = min(max(-(-dm * q_ppm // 1000000) + n - dm, 1), n)
    for hi, c in lat["buckets"]:
        r -= c
        if r <= 0:
            return int(hi * 1000)
    return int(lat["max"] * 1000)
print("rg_u50_ns", upper(500000))
print("rg_u99_ns", upper(990000))
print("d_rtt_p50_ns", int((f["rtt"]["p50_us"] or 0) * 1000))
print("d_rtt_p99_ns", int((f["rtt"]["p99_us"] or 0) * 1000))
print("d_tx_msgs", f["counters"]["tx_messages"])
print("d_retrans", f["counters"]["tx_retransmitted_packets"])
lab = 'lqpn="%d",rqpn="%d",peer="%s",dev="rxe1"' % (q["local_qpn"], q["remote_qpn"], peer)
def series(name):
    r = re.compile(r'^%s\{[^}]*%s[^}]*\} (\S+)$' % (re.escape(name), re.escape(lab)), re.M)
    return [float(v) for v in r.findall(metrics)]
cnt = series("rocecc_flow_message_completion_seconds_count")
inf = [float(v) for v in re.findall(r'^rocecc_flow_message_completion_seconds_bucket\{[^}]*%s[^}]*le="\+Inf"\} (\S+)$' % re.escape(lab), metrics, re.M)]
nb = len(re.findall(r'^rocecc_flow_message_completion_seconds_bucket\{[^}]*%s' % re.escape(lab), metrics, re.M))
print("m_count", int(cnt[0]) if cnt else -1)
print("m_inf_eq_count", int(bool(cnt) and inf == cnt))
print("m_buckets", nb)
print("m_rtt_count", int((series("rocecc_flow_rtt_seconds_count") or [-1])[0]))
print("m_tx_packets", int((series("rocecc_flow_tx_packets_total") or [-1])[0]))
print("m_name_label", int(('flow="%s"' % want) in metrics))
PY
	tap_ok $? "$name: compared rocegen's report with the daemon's" || tap_diag "$(cat "$work/$name.cmp.err")"
	v() { awk -v k="$1" '$1 == k { print $2 }' "$work/$name.cmp"; }
	tap_diag "$(tr '\n' ' ' <"$work/$name.cmp")"

	tap_cmp "$(v nflows)" -eq 1 "$name: the daemon has rocegen's flow (lqpn and peer)"
	tap_cmp "$(v name_ok)" -eq 1 "$name: flow named '$(v want_name | tr _ ' ')' (got '$(v name | tr _ ' ')'), comm, pid, rqpn, dev"
	rg50=$(v rg_p50_ns) rg99=$(v rg_p99_ns) d50=$(v d_p50_ns) d99=$(v d_p99_ns)
	u50=$(v rg_u50_ns) u99=$(v rg_u99_ns)
	tap_diag "$name: message completion p50: daemon $d50 ns, rocegen $rg50 ns ($(( d50 * 1000 / (rg50 ? rg50 : 1) )) per mille)"
	tap_diag "$name: message completion p99: daemon $d99 ns, rocegen $rg99 ns ($(( d99 * 1000 / (rg99 ? rg99 : 1) )) per mille)"
	tap_diag "$name: message completion p99.9: daemon $(v d_p999_ns) ns, rocegen $(v rg_p999_ns) ns; RTT p50 $(v d_rtt_p50_ns) ns, p99 $(v d_rtt_p99_ns) ns"
	tap_cmp $(( d50 * 1000 )) -le $(( u50 * RG_HIGH )) "$name: p50: daemon <= rocegen's bound $u50 ns * $RG_HIGH/1000 (wire time within post-to-completion)"
	tap_cmp $(( d50 * 1000 )) -ge $(( rg50 * low )) "$name: p50: daemon >= rocegen * $low/1000"
	tap_cmp $(( d99 * 1000 )) -le $(( u99 * RG_HIGH )) "$name: p99: daemon <= rocegen's bound $u99 ns * $RG_HIGH/1000"
	tap_cmp $(( d99 * 1000 )) -ge $(( rg99 * low )) "$name: p99: daemon >= rocegen * $low/1000"
	rgm=$(v rg_msgs) dm=$(v d_msgs)
	tap_cmp "$dm" -le "$rgm" "$name: daemon timed no more messages ($dm) than rocegen completed ($rgm)"
	tap_cmp $(( dm * 1000 )) -ge $(( rgm * COUNT_LOW )) "$name: daemon timed >= $COUNT_LOW per mille of rocegen's messages ($dm of $rgm; it misses those before it learns the QP)"
	tap_cmp "$(v m_name_label)" -eq 1 "$name: /metrics: the flow label carries the name"
	tap_cmp "$(v m_count)" -eq "$dm" "$name: /metrics: message completion _count equals the samples of /flows.json"
	tap_cmp "$(v m_inf_eq_count)" -eq 1 "$name: /metrics: le=\"+Inf\" bucket equals _count"
	tap_cmp "$(v m_buckets)" -eq 98 "$name: /metrics: 98 buckets (4 per octave, 1 us .. 17 s, +Inf)"
	tap_cmp "$(v m_rtt_count)" -gt 0 "$name: /metrics: RTT histogram has samples"
	tap_cmp "$(v m_tx_packets)" -gt "$rgm" "$name: /metrics: tx packets counted"
}

rg_run busy --duration 3
compare busy "$RG_LOW_BUSY"
rg_run paced --duration 4 --rate 8 --burst 16K
compare paced "$RG_LOW_PACED"

tap_diag "$(grep -E '^rocecc_flow_(tx_packets_total|message_completion_seconds_(count|sum))\{' "$work/paced.metrics" | grep -F "rocegen[$cpid]")"
tap_diag "$(grep -F "rocegen[$cpid]" "$work/paced.metrics" | grep -E 'message_completion_seconds_bucket' | awk '$NF > 0' | head -n 3)"

# /metrics through a real parser
if command -v promtool >/dev/null; then
	out=$(promtool check metrics <"$work/paced.metrics" 2>&1)
	tap_ok $? "promtool check metrics" || tap_diag "$out"
else
	tap_ok 1 "promtool missing (scripts/deps.sh installs Debian's prometheus)"
fi

# rocecc latency: the CLI's view of the same endpoint
cli=$top/build/daemon/rocecc
out=$("$cli" latency sort p99 2>&1)
tap_ok $? "rocecc latency exits 0" || tap_diag "$out"
tap_diag "$out"
grep -qF "rocegen[$cpid] " <<<"$out"
tap_ok $? "rocecc latency lists the paced flow"
n=$("$cli" -j latency 2>&1 | python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(1 for f in d if f["message_completion"]["samples"] > 0))')
tap_cmp "$n" -eq 2 "rocecc -j latency: both runs' flows have samples"
out=$("$cli" latency port 1 2>&1)
tap_cmp $? -eq 1 "rocecc latency without a daemon there: exit 1"
grep -q "http://127.0.0.1:1/flows.json: .*(is roceccd running?)" <<<"$out"
tap_ok $? "... and says where it looked ($out)"

# A process name is anyone's to choose: rocegen run through a link named
# with a quote, a backslash, a newline, a control character and two bytes
# that are not UTF-8 (the kernel takes comm from the file name). /metrics
# stays valid Prometheus text and /flows.json valid JSON, with the name
# as lib/format.h says: U+FFFD for the bad bytes (and, in a label, for
# the control character), the rest escaped.
hostile=$'q"b\\\n\x01\xff\xc3z'
ln -s "$rg" "$work/$hostile"
rgc="$work/$hostile" rg_run hostile --duration 2
hpid=$cpid
python3 - "$work/hostile.flows.json" "$work/hostile.metrics" "$hpid" \
	>"$work/hostile.cmp" 2>&1 <<'PY'
import json, sys
flows = json.load(open(sys.argv[1], encoding="utf-8"))	# strict UTF-8
metrics = open(sys.argv[2], encoding="utf-8").read()
pid = int(sys.argv[3])
want = 'q"b\\\n\x01\ufffd\ufffdz'
f = [x for x in flows if x["pid"] == pid]
print("nflows", len(f))
print("json_ok", int(bool(f) and f[0]["comm"] == want and
                     f[0]["flow"].startswith("%s[%d] " % (want, pid))))
print("label_ok", int('comm="q\\"b\\\\\\n\ufffd\ufffd\ufffdz"' in metrics))
PY
tap_ok $? "hostile: /flows.json and /metrics read as UTF-8" || tap_diag "$(cat "$work/hostile.cmp")"
hv() { awk -v k="$1" '$1 == k { print $2 }' "$work/hostile.cmp"; }
tap_cmp "$(hv nflows)" -eq 1 "hostile: the daemon has the flow of process $hpid"
tap_cmp "$(hv json_ok)" -eq 1 "hostile: /flows.json names it, U+FFFD for the two bad bytes"
tap_cmp "$(hv label_ok)" -eq 1 "hostile: /metrics: its comm label escaped, U+FFFD for the control character"
if command -v promtool >/dev/null; then
	out=$(promtool check metrics <"$work/hostile.metrics" 2>&1)
	tap_ok $? "hostile: promtool check metrics" || tap_diag "$out"
fi
"$top/build/daemon/rocecc" -j latency >"$work/hostile.lat.json" 2>&1 &&
	python3 -c 'import json, sys; json.load(open(sys.argv[1], encoding="utf-8"))' \
		"$work/hostile.lat.json"
tap_ok $? "hostile: rocecc -j latency is JSON" || tap_diag "$(cat "$work/hostile.lat.json")"
# one line per flow, each of 12 fields: 4 of the name, DEV, MSGS and six
# percentiles (a newline or a blank kept in a name would break a line)
out=$("$top/build/daemon/rocecc" latency 2>&1)
nj=$("$top/build/daemon/rocecc" -j latency 2>&1 |
	python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')
nr=$(tail -n +2 <<<"$out" | wc -l)
tap_cmp "$nr" -eq "$nj" "hostile: rocecc latency prints one line per flow ($nr lines, $nj flows)" ||
	tap_diag "$out"
nf=$(awk -v p="[$hpid] " 'index($0, p) { print NF }' <<<"$out")
tap_is "$nf" 12 "hostile: ... the line of process $hpid has its 12 fields"

# a second daemon on the same port is refused (it opens the pinned flow
# table before it tries to listen, but attaches to no netdev)
out=$("$rd" -f -p $mport --pin-dir "$pin" 2>&1)
tap_cmp $? -eq 1 "a second roceccd on port $mport: exit 1"
grep -q "cannot listen on 127.0.0.1 port $mport" <<<"$out"
tap_ok $? "... naming the address and port ($out)"
n=$(tc filter show dev veth1 ingress | grep -c flowmon)
tap_cmp "$n" -eq 1 "... and the first one's filter is still the only one"

# SIGTERM: clean exit, our filters gone; the clsact we created stays
# (empty): deleting a clsact resets the root qdisc and drops what it holds
kill -TERM "$rdpid"
wait "$rdpid"
tap_cmp $? -eq 0 "roceccd exits 0 on SIGTERM" || tap_diag "$(tail -n 20 "$work/rd.log")"
for h in 1 2; do
	n=$( { tc filter show dev "veth$h" ingress; tc filter show dev "veth$h" egress; } 2>/dev/null | grep -c flowmon)
	tap_cmp "$n" -eq 0 "veth$h: no flowmon filter left"
	tc qdisc show dev "veth$h" | grep -q clsact
	tap_ok $? "veth$h: the clsact qdisc roceccd created is kept"
	n=$( { tc filter show dev "veth$h" ingress; tc filter show dev "veth$h" egress; } 2>/dev/null | wc -l)
	tap_cmp "$n" -eq 0 "veth$h: ... with no filter in it"
done
grep -q 'flowmon detached, clsact kept' "$work/rd.log"
tap_ok $? "the log says the clsact is kept"
grep -Eq 'detached' "$work/rd.log"
tap_ok $? "the log says what was detached"
[ -e "$pin/flows" ]
tap_ok $? "the flow table stays pinned in $pin for the next start"
tap_diag "$(grep -E 'attached|detached|started|stopping' "$work/rd.log" | head -8)"

# daemonized (the default): the HTTP thread runs in the child; --pidfile
pidf=$work/rd2.pid
"$rd" -p $mport -i 100ms --pin-dir "$pin" --pidfile "$pidf"
tap_cmp $? -eq 0 "roceccd daemonizes: the parent exits 0"
up=1
for _ in $(seq 50); do
	curl -sf -o "$work/d.metrics" "$url/metrics" && grep -q '^rocecc_netdevs 2$' "$work/d.metrics" && { up=0; break; }
	_topo_sleep 0.2
done
tap_ok $up "the daemon serves /metrics and attached both netdevs"
dpid=$(cat "$pidf" 2>/dev/null)
[[ $dpid =~ ^[0-9]+$ ]] && [ "$dpid" -gt 1 ]
tap_ok $? "--pidfile holds its pid ($dpid)"
[ -n "$dpid" ] && kill -TERM "$dpid"
gone=1
for _ in $(seq 50); do
	[ -d "/proc/$dpid" ] || { gone=0; break; }
	_topo_sleep 0.2
done
tap_ok $gone "the daemon exits on SIGTERM"
[ ! -e "$pidf" ]
tap_ok $? "... removes its pidfile"
n=$( { tc filter show dev veth1 ingress; tc filter show dev veth2 egress; } 2>/dev/null | wc -l)
tap_cmp "$n" -eq 0 "... and leaves no filter behind"
tc qdisc show dev veth1 | grep -q clsact
tap_ok $? "... and the clsact in place"
tap_done
