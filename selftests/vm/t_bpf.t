#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The BPF tests (selftests/bpf, BPF_PROG_TEST_RUN) on the guest's kernel,
# Debian's 6.1, whose verifier is older than the host's: each test program
# must pass with every point run (a test that skips fails here: on 6.1 as
# root nothing may be skipped). Needs `make` first (build/bpf/test_*).
# Run: scripts/vm --test selftests/vm/t_bpf.t

lib=$(dirname "$0")/lib
. "$lib/tap.sh"
tap_require_vm

top=$(cd "$(dirname "$0")/../.." && pwd)
# test_flowmon wants a netdev besides lo for its ifindex cases
trap 'ip link del bt0 2>/dev/null' EXIT
tap_run "a veth pair for the tests that need a second netdev" \
	ip link add bt0 type veth peer name bt1
tap_diag "kernel $(uname -r)"
# rdma_rxe's BTF has the QP learner's targets: test_dcqcn_bpf
# loads it for the verifier's counts
tap_run "rdma_rxe loads" modprobe rdma_rxe
n=0
walked=
for t in "$top"/build/bpf/test_*; do
	[ -x "$t" ] || continue
	n=$((n + 1))
	out=$("$t" 2>&1)
	st=$?
	pass=$(grep -c '^ok ' <<<"$out")
	fail=$(grep -c '^not ok ' <<<"$out")
	skip=$(grep -ci '^ok .*# skip\|^1\.\.0' <<<"$out")
	[ "$fail" -ne 0 ] && grep '^not ok' <<<"$out" | head -5 | while IFS= read -r l; do tap_diag "$l"; done
	# the verifier's work on this kernel, per program
	grep 'verifier walked' <<<"$out" | while IFS= read -r l; do tap_diag "${l#\# }"; done
	walked+=$(grep -o '[a-z_]*: [0-9]* instructions, verifier walked' <<<"$out" | cut -d: -f1 | tr '\n' ' ')
	[ $st -eq 0 ] && [ "$fail" -eq 0 ] && [ "$skip" -eq 0 ] && [ "$pass" -gt 0 ]
	tap_ok $? "${t##*/} on $(uname -r): $pass passed, $fail failed, $skip skipped"
done
tap_cmp "$n" -ge 2 "found the BPF test programs ($n)"
for p in dcqcn_egress dcqcn_ingress dcqcn_qp_timeout dcqcn_qp_destroy flowmon_egress flowmon_ingress; do
	grep -qw "$p" <<<"$walked"
	tap_ok $? "the verifier's counts of $p printed"
done
tap_done
