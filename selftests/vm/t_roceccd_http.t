#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# roceccd's HTTP server under attack, in the test VM with rocegen traffic
# (so that /metrics and /flows have flows): /events.json?since= at its
# edges on a ring that wrapped (SIGHUPs make 300 reload events), the
# connection limits (16 per address, 64 in all, 10 s idle timeout), then
# selftests/fuzz/http_fuzz.py (random paths, queries, methods, versions,
# header counts and sizes, bodies, pipelining, cut requests, raw bytes,
# slowloris clients beside it): the daemon keeps answering and its RSS
# stays flat; then the same fuzz against build/daemon/roceccd-asan
# (AddressSanitizer, UBSan, leaks checked at exit).
#
#   ROCECC_HTTP_FUZZ_N     requests per run (default 1000; make fuzz-http:
#                          10000). 1000 gives every kind of request
#                          (8) some 40 to 300 draws and five health
#                          checks, and leaves the RSS check a 1 MiB bound
#                          over 1000 requests (a leak of 1 KB a request);
#                          the ASan run's LeakSanitizer catches smaller
#                          leaks whatever the count.
#   ROCECC_HTTP_FUZZ_DEADLINE
#                          seconds the requests of a run may take (default
#                          150); a daemon that stops answering fails at once
#   ROCECC_HTTP_FUZZ_SEED  the seed (default: random, printed; a failure
#                          replays with http_fuzz.py --seed S --only I)
# Run: selftests/vm/run selftests/vm/t_roceccd_http.t

top=$(cd "$(dirname "$0")/../.." && pwd)
lib=$top/selftests/vm/lib
RD_PORT=18630
. "$lib/tap.sh"
. "$lib/topo.sh"
. "$lib/dp.sh"
. "$lib/rd.sh"
tap_require_vm

n=${ROCECC_HTTP_FUZZ_N:-1000}
deadline=${ROCECC_HTTP_FUZZ_DEADLINE:-150}
seed=${ROCECC_HTTP_FUZZ_SEED:-$(( (RANDOM << 15) | RANDOM ))}
fuzz=$top/selftests/fuzz/http_fuzz.py
asan=$top/build/daemon/roceccd-asan
[ -x "$asan" ] || tap_bail "$asan missing: make -C daemon"
work=$(mktemp -d /tmp/vm_rdhttp.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; topo_teardown; rm -rf "$work"' EXIT
tap_diag "seed $seed, $n requests a run (ROCECC_HTTP_FUZZ_SEED=$seed to replay)"

tap_run "2-host topology comes up" topo_setup 2 || tap_bail "no topology"
conf=$work/rd.conf
cat >"$conf" <<'CONF'
[daemon]
interval = 250ms
pin_dir = none
CONF

DP_RG_TIMEOUT=300 dp_rg_server rxe2 18631 1 || tap_bail "rocegen server"
DP_RG_PEER=$(topo_ip 2) DP_RG_TIMEOUT=300 dp_rg_client 1 18631 "$work/c.json" \
	--duration 280 --rate 2 --burst 16K --cpu 0 >/dev/null 2>"$work/c.err" &

rd_start "$work/rd.log" -c "$conf"
rd_wait_ready 1 || { tap_diag "$(cat "$work/rd.log")"; tap_bail "no daemon"; }
rocegen_flow() { rd_get flows.json | jq -e '[.[] | select(.comm == "rocegen")] | length > 0' >/dev/null; }
for _ in $(seq 60); do
	rocegen_flow && break
	sleep 0.5
done
rocegen_flow
tap_ok $? "rocegen's flow is in /flows.json" || {
	tap_diag "flows: $(rd_get flows.json | jq -c '[.[] | {comm, pid, lqpn, netdev}]')"
	tap_diag "QPs: $(rdma res show qp 2>&1 | tr '\n' ';')"
	tap_diag "rocegen client: $(tail -n 5 "$work/c.err" | tr '\n' ';')"
	tap_diag "roceccd: $(tail -n 10 "$work/rd.log" | tr '\n' ';')"
}

# --- /events.json?since= on a ring that wrapped ---------------------------
tap_diag "[${SECONDS} s] /events.json?since= on a ring that wrapped"
last=0
for _ in $(seq 12); do
	# bash's read -t, not a sleep process per SIGHUP
	for _ in $(seq 50); do kill -HUP "$RD_PID"; _topo_sleep 0.02; done
	_topo_sleep 1
	last=$(rd_get 'events.json?since=0' | jq .last)
	[ "$last" -gt 300 ] && break
done
tap_cmp "$last" -gt 300 "SIGHUPs made the ring wrap: newest event $last"
ev() { curl -s --max-time 10 -o "$work/ev" -w '%{http_code}' "http://127.0.0.1:$RD_PORT/events.json?since=$1"; }
code=$(ev 0)
jq -e '(.events | length) == 256 and .lost == .last - 256 and
	([.events[].seq] == ([.events[].seq] | unique)) and .events[-1].seq == .last' \
	"$work/ev" >/dev/null
tap_ok $? "since=0: the 256 events held, each once, in order, and how many were lost ($(jq -c '{last, lost}' "$work/ev"))"
code=$(ev -1)
tap_is "$code" 400 "since=-1: 400"
grep -q "since: '-1' is not an event number" "$work/ev"
tap_ok $? "... naming the value: $(cat "$work/ev")"
cur=$(rd_get 'events.json' | jq .last)
code=$(ev "$cur")
jq -e --argjson l "$cur" '.events == [] and .lost == 0 and .last >= $l' "$work/ev" >/dev/null
tap_ok $? "since=newest: no event ($code, $(jq -c . "$work/ev"))"
code=$(ev $(( cur + 1000 )))
jq -e --argjson l "$cur" '.events == [] and .lost == 0 and .last >= $l' "$work/ev" >/dev/null
tap_ok $? "since past the newest: no event, the newest seq ($code)"
code=$(ev 18446744073709551615)
jq -e '.events == []' "$work/ev" >/dev/null
tap_ok $? "since=2^64-1: no event ($code)"
code=$(ev 18446744073709551616)
tap_is "$code" 400 "since=2^64: 400 ($(cat "$work/ev"))"
code=$(ev $(( cur - 10 )))
jq -e '(.events | length) >= 10 and .lost == 0' "$work/ev" >/dev/null
tap_ok $? "since=newest-10: the last events, none lost ($code)"

# --- the fuzz, against roceccd -----------------------------------------------
fuzz_run() {	# fuzz_run LOG ARGS...: the fuzz against $RD_PID; its status
	local log=$1
	shift
	timeout -k 5 $(( deadline + 120 )) python3 "$fuzz" --port "$RD_PORT" \
		--pid "$RD_PID" --jobs 6 --deadline "$deadline" "$@" >"$log" 2>&1
	local rc=$?
	[ $rc -eq 124 ] && echo "FAIL http_fuzz killed after $(( deadline + 120 )) s" >>"$log"
	{ grep -E '^(limits|http_fuzz)' "$log"; grep '^FAIL' "$log" | head -n 30; } | sed 's/^/# /'
	return $rc
}
tap_diag "[${SECONDS} s] http_fuzz against roceccd"
fuzz_run "$work/fuzz1.log" --seed "$seed" -n "$n" --limits --slow-clients 8
tap_cmp $? -eq 0 "http_fuzz: $n requests, limits and slowloris clients, no failure"
kill -0 "$RD_PID"
tap_ok $? "roceccd still runs"
read -r rss0 rss1 < <(sed -n 's/.*rss_kb \([0-9]*\) -> \([0-9]*\).*/\1 \2/p' "$work/fuzz1.log")
tap_ok $(( ! (rss0 > 0 && rss1 - rss0 <= 1024) )) \
	"RSS flat: ${rss0:-?} KB after warm-up, ${rss1:-?} KB after $n requests (at most 1 MiB more)"
rd_get 'events.json?since=0' | jq -e '.events | length == 256' >/dev/null
tap_ok $? "/events.json still answers"
rd_stop
tap_cmp $? -eq 0 "SIGTERM: exit 0"

# --- again, under AddressSanitizer ----------------------------------------------
tap_diag "[${SECONDS} s] roceccd-asan"
RD_BIN=$asan
n0=$(grep -c 'READY=1' "$RD_NOTIFY")
ASAN_OPTIONS=detect_leaks=1:exitcode=23 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	rd_start "$work/asan.log" -c "$conf"
rd_wait_ready $(( n0 + 1 )) 120 || { tap_diag "$(cat "$work/asan.log")"; tap_bail "no ASan daemon"; }
tap_diag "[${SECONDS} s] http_fuzz against roceccd-asan"
# no warm-up: nothing asserts this RSS (ASan's own allocator makes it
# grow); 2 x 200 GETs cost ~45 s under ASan and TCG
fuzz_run "$work/fuzz2.log" --seed $(( seed + 1 )) -n "$n" --slow-clients 4 --warmup 0
tap_cmp $? -eq 0 "http_fuzz under ASan: $n requests (seed $(( seed + 1 ))), no failure"
tap_diag "[${SECONDS} s] roceccd-asan: SIGTERM, leak check"
rd_stop
rc=$?
tap_cmp $rc -eq 0 "ASan roceccd: exit 0 at SIGTERM (23: leaks)"
grep -E 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error' "$work/asan.log" >"$work/asan.err"
tap_ok $(( $(wc -l <"$work/asan.err") != 0 )) "no AddressSanitizer, LeakSanitizer or UBSan report" ||
	tap_diag "$(head -n 40 "$work/asan.log")"
tap_done
