# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# rd.sh - roceccd in the VM tests (t_roceccd_ops.t, t_straggler.t, t_pfc_storm.t,
# ...), sourced after tap.sh and topo.sh.
#
#   rd_start LOG ARGS...      roceccd -f ARGS in the background (RD_PID), its
#                             stderr in LOG, with NOTIFY_SOCKET pointing at a
#                             listener that appends each sd_notify() message
#                             (newlines as spaces) to $RD_NOTIFY
#   rd_wait_ready [N] [SEC]   wait until $RD_NOTIFY holds N (default 1)
#                             READY=1 messages; 0 or 1
#   rd_stop                   SIGTERM, wait; its exit status
#   rd_get PATH               curl http://127.0.0.1:$RD_PORT/PATH to stdout
#   rd_unlisted FILE          the HELP and TYPE lines of a saved /metrics
#                             that roceccd --list-metrics does not print
#                             (none: the table that the fleet's rules and
#                             dashboard are checked against has every family
#                             the daemon wrote, same name, type and help)
#   rd_events [TYPE]          the events of /events.json (of TYPE), one a
#                             line: "SEQ EPOCH_MS TYPE {the event's JSON,
#                             on one line}"
#   rd_last                   the number of the last event (0: none yet)
#   rd_metric FILE NAME [LABEL_SUBSTRING]
#                             the value of the first series NAME{...} in a
#                             saved /metrics whose labels contain the string
#                             (or NAME with no labels); "" if none

RD_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
RD_BIN=$RD_TOP/build/daemon/roceccd
RD_CLI=$RD_TOP/build/daemon/rocecc
RD_PORT=${RD_PORT:-9468}
RD_PID=
RD_NOTIFY=
RD_NOTIFY_PID=

rd_start() {
	local log=$1 dir sock
	shift
	if [ -z "$RD_NOTIFY_PID" ]; then
		dir=$(mktemp -d /tmp/rd_notify.XXXXXX)
		sock=$dir/notify.sock
		RD_NOTIFY=$dir/messages
		: >"$RD_NOTIFY"
		python3 -S - "$sock" "$RD_NOTIFY" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a", buffering=1) as f:
    while True:
        f.write(s.recv(4096).decode(errors="replace").replace("\n", " ") + "\n")
PY
		RD_NOTIFY_PID=$!
		for _ in $(seq 50); do
			[ -S "$sock" ] && break
			sleep 0.1
		done
		RD_NOTIFY_SOCK=$sock
	fi
	NOTIFY_SOCKET=$RD_NOTIFY_SOCK "$RD_BIN" -f -p "$RD_PORT" "$@" 2>>"$log" &
	RD_PID=$!
}

rd_wait_ready() {
	local n=${1:-1} sec=${2:-30} i
	for i in $(seq $(( sec * 5 ))); do
		[ "$(grep -c 'READY=1' "$RD_NOTIFY" 2>/dev/null)" -ge "$n" ] && return 0
		kill -0 "$RD_PID" 2>/dev/null || return 1
		sleep 0.2
	done
	return 1
}

rd_stop() {
	local rc
	kill -TERM "$RD_PID" 2>/dev/null
	wait "$RD_PID"
	rc=$?
	RD_PID=
	return $rc
}

rd_get() {
	curl -sf --max-time 10 "http://127.0.0.1:$RD_PORT/$1"
}

rd_unlisted() {
	comm -23 <(grep -E '^# (HELP|TYPE) ' "$1" | sort -u) \
		<("$RD_BIN" -c /dev/null --list-metrics | grep -E '^# ' | sort -u)
}

# One jq start (a python start costs ~1 s under TCG, and the tests poll
# events); EPOCH_MS from the event's "time" (ISO 8601 UTC, milliseconds).
rd_events() {
	rd_get events.json | jq -r --arg t "${1:-}" '
		.events[] | select($t == "" or .type == $t) |
		"\(.seq) \((.time[0:19] + "Z" | fromdateiso8601) * 1000 +
			(.time[20:23] | tonumber)) \(.type) \(tojson)"'
}

rd_last() {
	rd_get events.json | jq -r .last
}

rd_metric() {
	local file=$1 name=$2 sub=${3:-}
	awk -v n="$name" -v s="$sub" '
		index($0, n "{") == 1 && (s == "" || index($0, s)) { print $NF; exit }
		$1 == n && s == "" { print $2; exit }' "$file"
}
