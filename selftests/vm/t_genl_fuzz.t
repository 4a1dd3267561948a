#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rocecc.ko's generic netlink family under a fuzzer (selftests/fuzz/
# genl_fuzz.c: every command, well-formed and mutated attributes, lengths,
# nesting, flags, interrupted dumps, random payloads), while rocegen
# traffic from host 1 to host 2 runs through a 20 Mb/s RED/ECN bottleneck
# (CE marks, CNPs, pacing): the fuzz attaches and detaches veth1 and veth2
# and changes every parameter set under the traffic, then puts back what
# it found (veth1 attached, its parameters, the default set). Then:
#  - the fuzzer finished (and restored the state);
#  - the kernel logged no WARNING, BUG or Oops (the guest runs with
#    panic_on_warn=1 oops=panic, so one would have ended the run anyway);
#  - the module still answers `rocecc dev show veth1`;
#  - the traffic, on veth1 attached again at the end, saw no completion
#    errors (pacing never holds a packet past the QP's timeout budget,
#    whatever the parameters, and detach/attach does not disturb rxe);
#  - as nobody, every state-changing request (attach, detach, param set,
#    profile set) is refused with EPERM and nothing changes;
#  - rmmod balances the module's allocations.
#
#   ROCECC_GENL_FUZZ_N     messages (default 100000, 22-32 s under TCG:
#                          each detach waits for what pacing holds in fq,
#                          rocecc/pacing.h "When pacing stops"; 12 s when
#                          the traffic has died; make fuzz-genl: 1000000)
#   ROCECC_GENL_FUZZ_SEED  the seed (default: random, printed; replay with
#                          the same seed, e.g. make fuzz-genl)
# Run: selftests/vm/run selftests/vm/t_genl_fuzz.t

lib=$(dirname "$0")/lib
. "$lib/tap.sh"
. "$lib/topo.sh"
. "$lib/dp.sh"
tap_require_vm

n=${ROCECC_GENL_FUZZ_N:-100000}
n_nobody=$(( n / 10 < 5000 ? n / 10 : 5000 ))
seed=${ROCECC_GENL_FUZZ_SEED:-$(( (RANDOM << 30) | (RANDOM << 15) | RANDOM ))}
FZ=$DP_TOP/build/fuzz/genl_fuzz
R=$DP_CLI
[ -x "$FZ" ] || tap_bail "$FZ missing: make -C selftests/fuzz"
work=$(mktemp -d /tmp/t_genl_fuzz.XXXXXX)
chmod 755 "$work"
trap 'kill $(jobs -p) 2>/dev/null; topo_teardown; rmmod rocecc 2>/dev/null; rm -rf "$work"' EXIT
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"; }
tap_diag "seed $seed, $n messages (ROCECC_GENL_FUZZ_SEED=$seed to replay)"

tap_run "ib_core, rdma_rxe and rocecc.ko load" dp_load || tap_bail "no module"
tap_run "2-host topology comes up" topo_setup 2 || tap_bail "no topology"
tap_run "fq on veth1, veth2" dp_fq 1 2
tap_run "bottleneck: 20 Mb/s RED ecn on swp2" topo_bottleneck 2 20 ecn
tap_run "attach veth1" dp_attach 1 || tap_bail "no attach"
"$R" -j param show >"$work/params0" || tap_bail "param show"

# rocegen from host 1 to host 2 until the fuzz is done (SIGINT below), at
# rxe's default ACK timeout (14, 67 ms): whatever the fuzz sets, pacing
# must not hold a packet past it.
DP_RG_TIMEOUT=900 dp_rg_server rxe2 18900 1 || tap_bail "rocegen server"
SRV=$DP_SRV_PID
DP_RG_TIMEOUT=900 DP_RG_PEER=$(topo_ip 2) dp_rg_client 1 18900 "$work/c.json" \
	--size 16K --duration 800s --depth 4 >"$work/c.out" 2>&1 &
CLI=$!
for _ in $(seq 100); do
	[ "$("$R" -j -s dev show veth1 | jq -r '.[0].stats.flows')" -gt 0 ] && break
	_topo_sleep 0.2
done
tap_cmp "$("$R" -j -s dev show veth1 | jq -r '.[0].stats.flows')" -gt 0 \
	"rocegen's flow is tracked on veth1"
tap_diag "objects before the fuzz: $(dp_objects)"

# --- the fuzz ---------------------------------------------------------------------
t0=$SECONDS
timeout -k 5 1200 "$FZ" --seed "$seed" --count "$n" --dev veth1 --dev veth2 \
	>"$work/fz.out" 2>"$work/fz.err"
rc=$?
tap_diag "$(cat "$work/fz.out")"
[ -s "$work/fz.err" ] && tap_diag "stderr: $(head -n 20 "$work/fz.err")"
tap_cmp "$rc" -eq 0 "genl_fuzz: $n messages in $((SECONDS - t0)) s, finished and restored the state"
grep -q "^genl_fuzz: $n messages in" "$work/fz.out"
tap_ok $? "... it sent all $n"
dmesg | grep -E 'WARNING|BUG|Oops|Call Trace|general protection' >"$work/klog"
tap_ok $(( $(wc -l <"$work/klog") != 0 )) "kernel log: no WARNING, BUG or Oops" ||
	tap_diag "$(head -n 40 "$work/klog")"
tap_cmp "$("$R" -j dev show veth1 | jq -r '.[0].ifindex')" -eq "$(cat /sys/class/net/veth1/ifindex)" \
	"rocecc dev show veth1 still answers"
"$R" -j param show >"$work/params1"
cmp -s "$work/params0" "$work/params1"
tap_ok $? "every parameter set as before the fuzz (rocecc param show)" ||
	tap_diag "$(diff "$work/params0" "$work/params1" | head -n 20)"
tap_is "$("$R" -j dev show | jq -r '[.[].dev] | join(" ")')" veth1 "only veth1 attached, as before"

pkill -INT -f -- "^$DP_RG --client"
wait "$CLI" "$SRV"
tap_diag "rocegen: $(jq -c '{messages: .total.messages, errors: .total.errors, bytes: .total.bytes}' "$work/c.json")"
tap_cmp "$(jq .total.errors "$work/c.json")" -eq 0 "the traffic completed without completion errors" ||
	tap_diag "$(dp_rg_why "$work/c.json" "$work/c.out" veth1)"
tap_cmp "$(jq .total.messages "$work/c.json")" -gt 0 "... and moved data"

# --- unprivileged -----------------------------------------------------------------
nobody "$FZ" --seed $((seed + 1)) --count "$n_nobody" --dev veth1 --dev veth2 \
	--expect-eperm >"$work/nb.out" 2>"$work/nb.err"
rc=$?
tap_diag "$(cat "$work/nb.out")"
[ -s "$work/nb.err" ] && tap_diag "stderr: $(head -n 20 "$work/nb.err")"
tap_cmp "$rc" -eq 0 "as nobody: $n_nobody messages, every state-changing request refused with EPERM, nothing changed"
checked=$(sed -n 's/^genl_fuzz: \([0-9]*\) state-changing requests, 0 not refused.*/\1/p' "$work/nb.out")
tap_cmp "${checked:-0}" -gt $((n_nobody / 10)) "... ${checked:-0} of them checked"

dmesg | grep -E 'WARNING|BUG|Oops|Call Trace|general protection' >"$work/klog"
tap_ok $(( $(wc -l <"$work/klog") != 0 )) "kernel log: still no WARNING, BUG or Oops"
tap_diag "objects: $(dp_objects)"
tap_run "rmmod; allocations balance" dp_unload
last=$(dmesg | grep 'rocecc: datapath' | tail -n 1)
tap_diag "$last"
tap_done
