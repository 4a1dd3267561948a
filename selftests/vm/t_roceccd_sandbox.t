#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# roceccd with exactly what its systemd unit (daemon/roceccd/roceccd.service)
# grants, in the test VM under rocegen traffic. The guest has no systemd, so
# the unit's settings are read from the file and applied by hand: its
# CapabilityBoundingSet (setpriv: that bounding set as root's uid, nothing
# inheritable or ambient, no new privileges), ProtectSystem=strict with
# its ReadWritePaths and ProtectKernelTunables (a mount namespace where
# every mount is read-only but those), ProcSubset=pid (a /proc with
# processes only). So confined it attaches flowmon, learns and names the
# QPs, attaches rocecc.ko, applies [pfc] over DCB netlink, serves /metrics,
# reloads and detaches at SIGTERM; every system call it made (strace) is
# one its SystemCallFilter allows, every socket of a family in
# RestrictAddressFamilies. Without any one of the capabilities it exits 1
# at start naming the missing one, and leaves the pinned flow table alone.
# An existing pin directory (or pin) that is world-writable, someone
# else's or a symlink is refused, naming it.
# Run: selftests/vm/run selftests/vm/t_roceccd_sandbox.t

top=$(cd "$(dirname "$0")/../.." && pwd)
lib=$top/selftests/vm/lib
RD_PORT=18640
. "$lib/tap.sh"
. "$lib/topo.sh"
. "$lib/dp.sh"
. "$lib/rd.sh"
tap_require_vm

unit=$top/daemon/roceccd/roceccd.service
work=$(mktemp -d /tmp/vm_rdsb.XXXXXX)
pin=/sys/fs/bpf/rocecc
trap 'kill $(jobs -p) 2>/dev/null; topo_teardown; rmmod rocecc 2>/dev/null; rm -rf "$work" "$pin" "$pin"_link' EXIT
rd_bin=$RD_BIN

# --- the unit's settings -----------------------------------------------------
unit_get() { sed -n "s/^$1=//p" "$unit"; }
caps=$(unit_get CapabilityBoundingSet)
rw=$(unit_get ReadWritePaths | sed 's/^-//')
families=$(unit_get RestrictAddressFamilies)
tap_diag "unit: CapabilityBoundingSet=$caps ReadWritePaths=$rw RestrictAddressFamilies=$families"
[ -n "$caps" ] && [ "$rw" = "$pin" ] || tap_bail "the unit does not read as this test expects"

# setpriv's bounding set: the unit's capabilities but $1
bset() {
	local c out=-all
	for c in $caps; do
		[ "$c" = "$1" ] || out+=,+$(tr '[:upper:]' '[:lower:]' <<<"${c#CAP_}")
	done
	echo "$out"
}

# The wrapper rd_start runs as $RD_BIN: roceccd in the unit's sandbox.
# SB_BSET: the bounding set; SB_STRACE: a file for strace -f (its
# directory is left writable too).
cat >"$work/sandboxed" <<'SH'
#!/bin/bash
rwlist=("$SB_RW")
[ -n "$SB_STRACE" ] && rwlist+=("$(dirname "$SB_STRACE")")
exec unshare -m -- bash -c '
	rw=("$@")
	mount --make-rprivate /
	for p in "${rw[@]}"; do mount --bind "$p" "$p" || exit 90; done
	while read -r mp; do
		case $mp in /proc|/proc/*|/dev|/dev/*) continue ;; esac
		for p in "${rw[@]}"; do [ "$mp" = "$p" ] && continue 2; done
		mount -o remount,bind,ro "$mp" 2>/dev/null ||
			echo "sandboxed: cannot make $mp read-only" >&2
	done < <(awk "{ print \$5 }" /proc/self/mountinfo | sort -u)
	mount -t proc -o subset=pid proc /proc || exit 91
	if [ -n "$SB_STRACE" ]; then
		exec setpriv --inh-caps=-all --ambient-caps=-all --bounding-set="$SB_BSET" \
			--no-new-privs -- strace -f -qq -o "$SB_STRACE" "$SB_BIN" $SB_ARGS
	fi
	exec setpriv --inh-caps=-all --ambient-caps=-all --bounding-set="$SB_BSET" \
		--no-new-privs -- "$SB_BIN" $SB_ARGS
' sandboxed "${rwlist[@]}"
SH
chmod +x "$work/sandboxed"
# rd_start passes its arguments to $RD_BIN: hand them on
cat >"$work/sb" <<SH
#!/bin/bash
SB_ARGS="\$*" exec $work/sandboxed
SH
chmod +x "$work/sb"
export SB_RW=$rw SB_BIN=$rd_bin

# the daemon's own pid (under strace, the tracee)
rd_pid() {
	local p=$RD_PID c
	for _ in 1 2 3; do
		c=$(pgrep -P "$p" | head -n 1)
		[ -n "$c" ] || break
		p=$c
	done
	echo "$p"
}

tap_run "2-host topology comes up" topo_setup 2 || tap_bail "no topology"
tap_run "rocecc.ko loads" dp_load || tap_bail "no module"
conf=$work/rd.conf
cat >"$conf" <<CONF
[daemon]
interval = 250ms
[module]
attach = yes
devices = all
[pfc]
devices = veth1
priorities = 3
CONF
mkdir -m 0700 "$pin"

DP_RG_TIMEOUT=200 dp_rg_server rxe2 18641 1 || tap_bail "rocegen server"
DP_RG_PEER=$(topo_ip 2) DP_RG_TIMEOUT=200 dp_rg_client 1 18641 "$work/c.json" \
	--duration 180 --rate 2 --burst 16K --cpu 0 >/dev/null 2>"$work/c.err" &

# --- confined: it works ----------------------------------------------------------
RD_BIN=$work/sb
mkdir -p "$work/st"
export SB_BSET SB_STRACE
SB_BSET=$(bset) SB_STRACE=$work/st/trace
rd_start "$work/rd.log" -c "$conf" -L info
rd_wait_ready 1 90
tap_ok $? "confined ($caps only, read-only but $rw): READY=1" ||
	{ tap_diag "$(cat "$work/rd.log")"; tap_bail "no daemon"; }
pid=$(rd_pid)
tap_is "$(awk '/^CapEff/ { print $2 }' "/proc/$pid/status")" \
	"$(printf '%016x' $(( (1 << 39) | (1 << 38) | (1 << 12) )))" \
	"its effective capabilities are CAP_BPF, CAP_PERFMON, CAP_NET_ADMIN (pid $pid)"
for _ in $(seq 60); do
	rd_get flows.json | jq -e '[.[] | select(.comm == "rocegen" and .pid > 0)] | length > 0' >/dev/null && break
	sleep 0.5
done
rd_get flows.json >"$work/flows.json"
jq -e '[.[] | select(.comm == "rocegen" and .pid > 0 and .counters.tx_packets > 0)] | length > 0' \
	"$work/flows.json" >/dev/null
tap_ok $? "flowmon attached, rocegen's QP learned and named from /proc/PID/comm" ||
	tap_diag "$(head -c 600 "$work/flows.json"; echo; echo "rocegen client:"; tail -n 5 "$work/c.err")"
rd_get metrics >"$work/m"
tap_is "$(rd_metric "$work/m" rocecc_module_attached 'netdev="veth1"')" 1 \
	"rocecc.ko attached over genetlink (rocecc_module_attached 1)"
for _ in $(seq 40); do
	dcb pfc show dev veth1 2>/dev/null | grep -q "prio-pfc 0:off 1:off 2:off 3:on" && break
	sleep 0.25
done
dcb pfc show dev veth1 | grep -q "prio-pfc 0:off 1:off 2:off 3:on"
tap_ok $? "[pfc] applied over DCB netlink: $(dcb pfc show dev veth1 | head -n 1)"
setpriv --reuid=65534 --regid=65534 --clear-groups sleep 100 &
upid=$!
sleep 0.5
comm=$(SB_STRACE='' SB_BIN=/bin/cat "$work/sb" "/proc/$upid/comm" 2>&1)
tap_is "$comm" sleep "so confined, /proc/PID/comm of another user's process is readable"
kill $upid 2>/dev/null
n0=$(grep -c 'READY=1' "$RD_NOTIFY")
kill -HUP "$pid"
rd_wait_ready $(( n0 + 1 )) 30
tap_ok $? "SIGHUP: reloaded"
kill -TERM "$pid"
wait "$RD_PID"
tap_cmp $? -eq 0 "SIGTERM: exit 0"
filters=$(for d in veth1 veth2; do tc filter show dev $d ingress; tc filter show dev $d egress; done 2>/dev/null | grep -c flowmon)
tap_cmp "$filters" -eq 0 "its filters are gone"
[ -e "$pin/flows" ]
tap_ok $? "the flow table is pinned in $pin (its read-write path)"
grep -E "cannot make|Read-only|EROFS" "$work/rd.log" | head -n 5 | sed 's/^/# /'

# --- what it called, against the unit's filters ------------------------------------
python3 - "$unit" "$work/st/trace" >"$work/calls" <<'PY'
import re, subprocess, sys
unit, trace = sys.argv[1], sys.argv[2]
groups = {}
def expand(name, seen=()):
    if not name.startswith("@"):
        return {name}
    if name not in groups:
        out = subprocess.run(["systemd-analyze", "syscall-filter", name],
                             capture_output=True, text=True).stdout
        groups[name] = [ln.strip() for ln in out.splitlines()[1:]
                        if ln.strip() and not ln.strip().startswith("#")]
    got = set()
    for w in groups[name]:
        if w not in seen:
            got |= expand(w, seen + (name,))
    return got
allowed = set()
for ln in open(unit):
    m = re.match(r"SystemCallFilter=(~?)(.*)", ln.strip())
    if not m:
        continue
    names = set().union(*(expand(w) for w in m.group(2).split()))
    allowed = allowed - names if m.group(1) else allowed | names
calls, fams = set(), set()
for ln in open(trace):
    m = re.match(r"\d+\s+(?:<\.\.\. )?([a-z0-9_]+)[( ]", ln)
    if m:
        calls.add(m.group(1))
    f = re.search(r"socket\((AF_[A-Z0-9]+)", ln)
    if f:
        fams.add(f.group(1))
print("calls", len(calls), " ".join(sorted(calls)))
print("denied", " ".join(sorted(calls - allowed)))
print("families", " ".join(sorted(fams)))
PY
tap_diag "$(head -n 1 "$work/calls")"
denied=$(sed -n 's/^denied *//p' "$work/calls")
n=$(awk '$1 == "calls" { print $2 }' "$work/calls")
tap_ok $(( ! (n > 50) )) "strace saw the daemon's system calls ($n distinct)"
tap_is "$denied" "" "each is allowed by the unit's SystemCallFilter lines"
fams=$(sed -n 's/^families *//p' "$work/calls")
bad=
for f in $fams; do grep -qw "$f" <<<"$families" || bad+=" $f"; done
tap_is "$bad" "" "its sockets ($fams) are of RestrictAddressFamilies"

# --- one capability less: a clear failure, pins kept --------------------------------
SB_STRACE=
for c in $caps; do
	SB_BSET=$(bset "$c")
	rd_start "$work/no_$c.log" -c "$conf"
	for _ in $(seq 120); do kill -0 "$RD_PID" 2>/dev/null || break; sleep 0.5; done
	if kill -0 "$RD_PID" 2>/dev/null; then
		tap_ok 1 "without $c: still running after 60 s"
		rd_stop
		continue
	fi
	wait "$RD_PID"
	tap_cmp $? -eq 1 "without $c: exit 1"
	grep -q "missing capabilities: $c " "$work/no_$c.log"
	tap_ok $? "... naming it: $(grep -m1 'missing capabilities' "$work/no_$c.log")" ||
		tap_diag "$(tail -n 5 "$work/no_$c.log")"
	[ -e "$pin/flows" ] && [ -e "$pin/stats" ]
	tap_ok $? "... and the pinned flow table stays"
done

# --- the pin directory: planted pins are refused ------------------------------------
RD_BIN=$rd_bin
refused() {	# refused DESC PATTERN [ARGS]: roceccd exits 1 saying PATTERN
	local desc=$1 pat=$2 out rc
	shift 2
	out=$(timeout 60 "$rd_bin" -f -p "$RD_PORT" -c "$conf" "$@" 2>&1)
	rc=$?
	tap_cmp $rc -eq 1 "$desc: exit 1"
	grep -q "$pat" <<<"$out"
	tap_ok $? "... saying so: $(grep -m1 'pin_dir' <<<"$out")"
}
chmod 1777 "$pin"
refused "pin directory mode 1777" "refusing the pins in '$pin': directory '$pin' is writable by everyone (mode 1777)"
chmod 0700 "$pin"
chown 65534 "$pin"
refused "pin directory owned by uid 65534" "directory '$pin' is owned by uid 65534, not root"
chown 0 "$pin"
chown 65534 "$pin/flows"
refused "pin 'flows' owned by uid 65534" "pin '$pin/flows' is owned by uid 65534"
chown 0 "$pin/flows"
ln -s "$pin" "${pin}_link"
refused "pin directory a symlink" "directory '${pin}_link' is a symlink" --pin-dir "${pin}_link"
rd_start "$work/rd2.log" -c "$conf"
rd_wait_ready $(( $(grep -c 'READY=1' "$RD_NOTIFY") + 1 )) 60
grep -q "adopted [0-9]* flows pinned in $pin" "$work/rd2.log"
tap_ok $? "root's 0700 directory again: its pins adopted"
rd_stop
tap_cmp $? -eq 0 "SIGTERM: exit 0"
tap_done
