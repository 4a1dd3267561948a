# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# tap.sh - a tiny TAP producer for the VM tests (the plan comes at the end,
# as in selftests/lib/tap.h; a test that dies early has no plan and fails).
#
#   tap_ok STATUS DESC...        ok if STATUS is 0:  [ -e x ]; tap_ok $? "x exists"
#   tap_run DESC CMD [ARGS...]   ok if CMD succeeds (run in this shell, so a
#                                function may set variables); its output
#                                becomes diagnostics when it fails
#   tap_cmp GOT OP WANT DESC...  integer comparison, OP one of -eq -ne -gt
#                                -ge -lt -le; shows both values on failure
#   tap_is GOT WANT DESC...      string equality; shows both on failure
#   tap_diag MSG...              "# MSG"
#   tap_skip DESC REASON         "ok N - DESC # SKIP REASON": a point that
#                                does not apply to this run (say why)
#   TAP_TODO=REASON tap_ok ...   a known bug (TAP's TODO): "# TODO REASON"
#                                after the point, and a failure of it does
#                                not fail the file (prove lists the point);
#                                works with every tap_* that checks
#   tap_skip_all REASON          plan 1..0 and exit 0
#   tap_bail REASON              "Bail out!" and exit 1
#   tap_require_vm               skip everything unless inside scripts/vm
#   tap_done                     print the plan; exit 1 if anything failed

TAP_N=0
TAP_FAILED=0

tap_diag() {
	local line
	while IFS= read -r line; do
		echo "# $line"
	done <<<"$*"
}

tap_ok() {
	local st=$1 todo=
	shift
	TAP_N=$((TAP_N + 1))
	[ -z "${TAP_TODO:-}" ] || todo=" # TODO $TAP_TODO"
	if [ "$st" = 0 ]; then
		echo "ok $TAP_N - $*$todo"
		return 0
	fi
	[ -n "$todo" ] || TAP_FAILED=$((TAP_FAILED + 1))
	echo "not ok $TAP_N - $*$todo"
	return 1
}

# Not in a subshell, so that CMD may be a function that sets variables
# (topo_setup does).
tap_run() {
	local desc=$1 st out=/tmp/tap-run.$$
	shift
	"$@" >"$out" 2>&1
	st=$?
	if tap_ok "$st" "$desc"; then
		rm -f "$out"
		return 0
	fi
	tap_diag "command: $* (status $st)"
	[ -s "$out" ] && tap_diag "$(<"$out")"
	rm -f "$out"
	return 1
}

tap_skip() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $1 # SKIP $2"
}

tap_cmp() {
	local got=$1 op=$2 want=$3 st=0
	shift 3
	if ! [[ $got =~ ^-?[0-9]+$ && $want =~ ^-?[0-9]+$ ]]; then
		st=1
	else
		case $op in
		-eq|-ne|-gt|-ge|-lt|-le) [ "$got" "$op" "$want" ] || st=1 ;;
		*) st=1 ;;
		esac
	fi
	tap_ok "$st" "$*" && return 0
	tap_diag "got '$got', want $op '$want'"
	return 1
}

# tap_is GOT WANT DESCRIPTION: string equality.
tap_is() {
	local got=$1 want=$2
	shift 2
	[ "$got" = "$want" ]
	tap_ok $? "$*" && return 0
	tap_diag "got '$got', want '$want'"
	return 1
}

tap_skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

tap_bail() {
	echo "Bail out! $*"
	exit 1
}

tap_require_vm() {
	[ "${ROCEVM:-}" = 1 ] || tap_skip_all "needs the test VM: run it with scripts/vm --test $0"
}

tap_done() {
	echo "1..$TAP_N"
	[ "$TAP_FAILED" = 0 ] || exit 1
	exit 0
}
