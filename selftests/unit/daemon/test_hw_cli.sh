#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rocecc param show | set | profile on an mlx5 port, against the fake
# driver's tree (mlx5fix build; rocecc --hw-root, which is for tests only):
# the firmware's values are shown, a profile writes only what differs,
# refusals name the parameter and value and write nothing, and a device
# that is not mlx5 goes to rocecc.ko as before. TAP; run by
# "make -C selftests/unit/daemon check".
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
fix=$top/build/unit/daemon/mlx5fix
rocecc=$top/build/daemon/rocecc
t=$(mktemp -d /tmp/rocecc_hw.XXXXXX)
trap 'rm -rf "$t"' EXIT
n=0 failed=0
ok() {	# ok STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}
rc() { "$rocecc" --hw-root "$t" "$@"; }
cc=$t/sys/kernel/debug/mlx5/0000:3b:00.0/cc_params

[ -x "$rocecc" ] || make -s -C "$top/daemon" >/dev/null
[ -x "$fix" ] || make -s -C "$top/selftests/unit/daemon" "$fix" >/dev/null
"$fix" build "$t"
ok $? "the fake driver's tree"

out=$(rc param show dev eth0)
ok $? "param show dev eth0 (an mlx5 port) needs no rocecc.ko"
grep -q '^eth0: profile mlx5 (mlx5 firmware, mlx5_0 port 1, 0000:3b:00.0)$' <<<"$out"
ok $? "it reads the firmware: the mlx5 profile, the port and its function"
grep -Eq '^  rp_ai_rate +5  Mb/s +0\.\.4000000$' <<<"$out"
ok $? "rp_ai_rate 5 Mb/s, as the file holds it"
grep -Eq '^  rp_rate_divisor +-  .*no firmware file$' <<<"$out" &&
grep -Eq '^  np_cnp_prio_mode +0 .*firmware only$' <<<"$out"
ok $? "rp_rate_divisor has no file; np_cnp_prio_mode is the firmware's own"
[ "$(rc param show dev mlx5_0 rp_gd)" = "eth0             rp_gd 11 log2" ]
ok $? "by RDMA device name, one parameter"
rc -j param show dev eth0 | python3 -c '
import json, sys
o = json.load(sys.stdin)[0]
assert o["engine"] == "hw" and o["profile"] == "mlx5", o
assert o["params"]["np_cnp_prio"] == 6 and "rp_rate_divisor" in o["unavailable"], o
assert o["firmware_only"] == {"np_cnp_prio_mode": 0}, o'
ok $? "-j: engine hw, params, unavailable, firmware_only"

err=$(rc param profile dev eth0 paper 2>&1)
ok $? "param profile dev eth0 paper"
[ "$(cat "$cc/rp_ai_rate")" = 40 ] && [ "$(cat "$cc/rp_time_reset")" = 55 ] &&
[ "$(cat "$cc/rp_max_rate")" = 0 ]
ok $? "the paper values are in the files (rp_ai_rate 40, rp_time_reset 55)"
[ "$(grep -c ' -> ' <<<"$err")" = 9 ] && grep -q '^eth0: rp_ai_rate 5 -> 40$' <<<"$err"
ok $? "nine writes, each reported from -> to"
[ "$(rc param show dev eth0 | head -1 | cut -d' ' -f3)" = paper ]
ok $? "and the firmware now reads as the paper profile"
err=$(rc param profile dev eth0 paper 2>&1)
ok $(($? != 0 || ${#err} != 0)) "again: nothing to write, nothing said"

before=$(cat "$cc/rp_ai_rate")
err=$(rc param set dev eth0 rp_ai_rate 5000000 2>&1)
[ $? = 1 ] && grep -q 'rp_ai_rate 5000000: out of range 0..4000000 Mb/s' <<<"$err" &&
[ "$(cat "$cc/rp_ai_rate")" = "$before" ]
ok $? "rp_ai_rate 5000000: exit 1, named with its range, nothing written"
err=$(rc param set dev eth0 rp_hai_rate 100 rp_rate_divisor 5000 2>&1)
[ $? = 1 ] && grep -q 'rp_rate_divisor 5000: the mlx5 firmware has no such parameter' <<<"$err" &&
[ "$(cat "$cc/rp_hai_rate")" = 200 ]
ok $? "rp_rate_divisor 5000: refused before any write (rp_hai_rate untouched)"
rc param set dev eth0 rp_hai_rate 100 np_cnp_dscp 26 2>/dev/null &&
[ "$(cat "$cc/rp_hai_rate")" = 100 ] && [ "$(cat "$cc/np_cnp_dscp")" = 26 ]
ok $? "param set writes the pairs given"
chmod 000 "$cc"
err=$(rc param show dev eth0 2>&1)
st=$?
chmod 755 "$cc"
if [ "$(id -u)" = 0 ]; then
	echo "ok $((n += 1)) # SKIP root reads a directory of mode 000"
else
	[ $st = 1 ] && grep -q "cc_params: permission denied" <<<"$err"
	ok $? "an unreadable cc_params: exit 1, says why"
fi

# A netdev name may hold any byte but NUL, '/', ':' and whitespace (the
# kernel's dev_valid_name()): ESC and BEL in one must reach the terminal as
# U+FFFD (lib/format.h rd_text_line()), not as a sequence that clears the
# screen or sets the window title; -j keeps the name (json-c writes \u001b).
e=$t/esc
evil=$'e\e[2J\e]0;x\ath0'
shown=$'e\xef\xbf\xbd[2J\xef\xbf\xbd]0;x\xef\xbf\xbdth0'
"$fix" build "$e" "$evil" &&
out=$("$rocecc" --hw-root "$e" param show dev mlx5_0) &&
[ "$(head -1 <<<"$out")" = "$shown: profile mlx5 (mlx5 firmware, mlx5_0 port 1, 0000:3b:00.0)" ] &&
[[ $out != *[$'\e\a']* ]]
ok $? "param show: a netdev name's ESC and BEL are shown as U+FFFD"
out=$("$rocecc" --hw-root "$e" param show dev mlx5_0 rp_gd) &&
[ "$out" = "$shown rp_gd 11 log2" ]
ok $? "param show NAME: the same"
err=$("$rocecc" --hw-root "$e" param profile dev mlx5_0 paper 2>&1) &&
grep -qxF "$shown: rp_ai_rate 5 -> 40" <<<"$err" && [[ $err != *[$'\e\a']* ]]
ok $? "param profile: its report on stderr too"
out=$("$rocecc" --hw-root "$e" -j param show dev mlx5_0) &&
[[ $out != *[$'\e\a']* ]] &&
EVIL=$evil python3 -c '
import json, os, sys
assert json.load(sys.stdin)[0]["dev"] == os.environ["EVIL"]' <<<"$out"
ok $? "-j: the name as it is, escaped by JSON"

err=$(rc param show dev rxe0 2>&1)
[ $? = 1 ] && grep -Eq "rocecc.ko|generic netlink" <<<"$err"
ok $? "rxe0 is not mlx5: asked of rocecc.ko as before"

echo "1..$n"
exit $failed
