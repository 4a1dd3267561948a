#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Instructions per packet of rocecc.ko's shared hot path (bench/hotpath.c),
# counted by callgrind: each kind is run N and 2N times and the difference
# is divided by N, so set-up and the first-packet costs cancel out.
#   bench/hotpath.sh HOTPATH_BINARY [N] > results (one "kind instructions" line each)
set -euo pipefail
bin=$1 n=${2:-2000}
tmp=$(mktemp -d /tmp/hotpath.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
ir() {	# ir KIND COUNT: instructions collected inside hp_run
	valgrind --tool=callgrind --toggle-collect=hp_run \
		--callgrind-out-file="$tmp/cg.out" "$bin" "$1" "$2" >/dev/null 2>"$tmp/err" ||
		{ cat "$tmp/err" >&2; return 1; }
	awk '/^summary:/ { print $2 }' "$tmp/cg.out"
}
for k in nonroce data ackreq ce cnp; do
	a=$(ir $k "$n")
	b=$(ir $k $((2 * n)))
	awk -v k=$k -v a="$a" -v b="$b" -v n="$n" 'BEGIN { printf "%s %.1f\n", k, (b - a) / n }'
done
