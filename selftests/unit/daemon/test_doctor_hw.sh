#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rocecc doctor on an mlx5 port, against the fake driver's tree (mlx5fix
# build; rocecc --hw-root, for tests only): the port is found without RDMA
# netlink, its engine is the firmware, pacing and ECT are the NIC's (SKIP),
# the CNP check reads the firmware's np_cnp_dscp / np_cnp_prio, and when
# they disagree its fix, run against the same tree through rocecc param
# set, makes it pass again. The checks that read the host's own netdev,
# DCB and RDMA state have nothing to read for a fake port and are not
# asserted here. TAP; run by "make -C selftests/unit/daemon check".
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
fix=$top/build/unit/daemon/mlx5fix
rocecc=$top/build/daemon/rocecc
t=$(mktemp -d /tmp/rocecc_dochw.XXXXXX)
trap 'rm -rf "$t"' EXIT
n=0 failed=0
ok() {	# ok STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}
cc=$t/sys/kernel/debug/mlx5/0000:3b:00.0/cc_params

# CHECK FIELD of the last doctor run's JSON ($t.json)
get() {
	python3 -c '
import json, sys
for r in json.load(open(sys.argv[1])):
    if r["check"] == sys.argv[2]:
        print(r[sys.argv[3]])' "$t.json" "$1" "$2"
}
doc() { "$rocecc" --hw-root "$t" -j doctor dev eth0 config /dev/null >"$t.json"; }

[ -x "$rocecc" ] || make -s -C "$top/daemon" >/dev/null
[ -x "$fix" ] || make -s -C "$top/selftests/unit/daemon" "$fix" >/dev/null
"$fix" build "$t"
ok $? "the fake driver's tree"

doc
ok $(($? > 2)) "rocecc doctor dev eth0 runs (exit 0..2)"
[ "$(get engine status)" = PASS ] && get engine found | grep -q "^hw: "
ok $? "engine: hw (the firmware), PASS"
[ "$(get qdisc status)" = SKIP ] && [ "$(get ect status)" = SKIP ] &&
	[ "$(get ack_timeout status)" = SKIP ]
ok $? "qdisc, ect, ack_timeout: SKIP (the NIC paces and marks)"
[ "$(get cnp status)" = PASS ] &&
	[ "$(get cnp found)" = "np_cnp_dscp 48 (priority 6 by DSCP >> 3), np_cnp_prio 6" ]
ok $? "cnp: the firmware's 48 / 6, PASS"

"$rocecc" --hw-root "$t" param set dev eth0 np_cnp_dscp 26 2>/dev/null &&
	[ "$(cat "$cc/np_cnp_dscp")" = 26 ]
ok $? "np_cnp_dscp 26 written to the firmware"
doc
[ "$(get cnp status)" = FAIL ] &&
	[ "$(get cnp fix)" = "rocecc param set dev eth0 np_cnp_prio 3" ]
ok $? "cnp: DSCP 26 (priority 3) against np_cnp_prio 6: FAIL, fix np_cnp_prio 3"
f=$(get cnp fix)
"$rocecc" --hw-root "$t" ${f#rocecc } 2>/dev/null && [ "$(cat "$cc/np_cnp_prio")" = 3 ]
ok $? "the fix, run against the tree, writes np_cnp_prio 3"
doc
[ "$(get cnp status)" = PASS ]
ok $? "cnp: PASS again"

"$rocecc" --hw-root "$t" doctor dev rxe0 config /dev/null >/dev/null 2>"$t.err"
[ $? = 2 ] && grep -Eq "^rocecc: doctor: (no RoCE port on 'rxe0'|cannot list RDMA devices)" "$t.err"
ok $? "rxe0 of the tree is not mlx5 (nor a port RDMA netlink lists): exit 2, said why"

echo "1..$n"
exit $failed
