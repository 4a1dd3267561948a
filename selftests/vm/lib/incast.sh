# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# incast.sh - N-to-1 incasts of RDMA WRITEs through the testbed's ECN
# bottleneck, one mode at a time, and the rule that scales a DCQCN profile
# to the testbed. Sourced after topo.sh and dp.sh; the figures come from
# lib/incast_report.py. Used by t_incast.t and demo.sh.
#
#   incast_setup N RATE KMIN KMAX PMAX
#       hosts 1..N send, host N+1 receives; the switch port toward it is a
#       RATE Mbit/s HTB with RED ECN (bytes); fq on every host. With
#       INCAST_VICTIM=SIZE also host N+2, the victim's sender (below);
#       with INCAST_EXTRA=K, K idle hosts after all those (the source of
#       t_incast.t's flood)
#   incast_mode MODE
#       plain   no rocecc.ko, rxe sends Not-ECT: RED drops
#       ect     no rocecc.ko, rxe sends ECT(0) (GRH traffic class 2): RED
#               marks CE and nobody reacts
#       idle    as ect, but incast_run starts no bulk sender: the victim
#               (INCAST_VICTIM, required) alone on the topology and the
#               bottleneck, from the run's start (nothing to converge),
#               and the report's bulk rows are "-": the latency floor of
#               the testbed itself (rxe, the guest's stalls), which no
#               congestion control can take the victim below
#       mlx5, paper
#               rocecc.ko attached on every host, that profile with its
#               rates scaled to the bottleneck and its time constants kept
#               (the rule below); rxe sends Not-ECT, the module marks ECT(0)
#       mlx5-time, paper-time
#               the same, and the time constants multiplied by D as well
#       With INCAST_PARAMS="NAME VALUE ...", the rocecc modes (module
#       and BPF alike) set those parameters on every host after the
#       profile and its scaling (an operator's tuning, rocecc param set;
#       values in the parameters' own units, the rates still divided by
#       D); the line of $INCAST_DIR/params that shows the scaling ends
#       with them
#       bpf-mlx5, bpf-paper, bpf-mlx5-time, bpf-paper-time
#               the mode without "bpf-" (same profile, same scaling),
#               driven by the BPF engine (bpf/dcqcn.bpf.c) instead of
#               rocecc.ko: the module is unloaded (incast_run fails if it
#               is loaded before or after the run), the roceccd of
#               INCAST_RD_PID, started with -c INCAST_RD_CONF, attaches the
#               engine to every host (incast_engine), and the profile and
#               scaling are set with rocecc param profile | set, or, with
#               INCAST_RD_LOG (that roceccd's log), in its configuration
#               (two reloads, one rocecc start instead of two per host);
#               the other modes take the engine off again
#   incast_run TAG SECS [ROCEGEN ARGS...]
#       one run; everything it measured goes to $INCAST_DIR/TAG/; the
#       report's window starts INCAST_CONV (3) s after the last sender did.
#       Each sender runs INCAST_QPS (1) RC QPs, each writing INCAST_SIZE
#       (16K) messages with INCAST_DEPTH (4) outstanding; sender H starts
#       (H - 1) * INCAST_STAGGER_MS (0) after the first, and its rocegen
#       keeps the latency of the messages it posted inside the report's
#       window apart (--window-ms, _incast_window). With
#       INCAST_VICTIM=SIZE, host N+2 runs the victim: one QP to the same
#       receiver, through the same bottleneck and priority, writing SIZE
#       messages one at a time (depth 1), back to back, or one every
#       INCAST_VICTIM_GAP_MS ms (a latency-sensitive exchange: a parameter
#       fetch, a tensor-parallel step), from the start of the report's window to
#       the end of the run, so that its percentiles are those of the
#       window; its report is TAG/victim.json. Every QP uses rxe's default
#       ACK timeout (exponent 14, 67 ms), what applications get.
#       With INCAST_SIDE=FN, "FN start DIR SECS" runs once the counters
#       are taken, right before the senders start, and "FN stop DIR" once
#       they have ended, before the counters are read again: something
#       that runs alongside the incast (t_incast.t's flood).
#       With INCAST_ROCECCD=URL (a running roceccd, http://127.0.0.1:9468)
#       also TAG/flows.ndjson (URL/flows.json every 250 ms, lib/rd_sample.py;
#       its t_ms on the backlog file's clock) and, after the run, the final
#       TAG/flows.json and TAG/metrics
#   incast_report TAG... / incast_fig TAG KEY
#       the side-by-side table / one figure (keys: lib/incast_report.py)
#   incast_teardown
#   incast_param DEV PROFILE|- [NAME VALUE]...
#       load PROFILE (or not: -) into attached DEV's set, then set each
#       NAME to VALUE, through the sysctl view (net.rocecc.DEV.*, the same
#       store as rocecc param: kmod/sysctl.c); the CLI's own path is
#       t_control.t's, and a rocecc start costs ~0.7 s under TCG, several
#       per host and mode here
#   incast_devs FILE
#       rocecc -j -s dev show of every attached device (one start), which
#       the reports read per device (incast_report.dev_entry)
#   incast_save DEST
#       copy INCAST_DIR's regular files, in its tree, into DEST (into
#       DEST/<INCAST_DIR's name> if DEST is a directory, as cp -r does);
#       the rest (the flood's FIFO, any socket or symlink) is skipped and
#       named in a "#" line, and an empty directory is not made: a FIFO
#       cannot be made on the VM's 9p share, where cp -r failed on it
#   incast_engine none|bpf [PROFILE [NAME VALUE]...]
#       write INCAST_RD_CONF (roceccd's configuration: [datapath] engine
#       on veth1..vethN of the topology, fq left as incast_setup put it,
#       [module] profile and parameters if given),
#       reload the roceccd of INCAST_RD_PID (SIGHUP) and wait until
#       rocecc dev show has the BPF engine on every host (bpf) or on none
#       (bpf with INCAST_RD_LOG: until the log says, after the reload,
#       that each host's BPF datapath is attached or configured);
#       without INCAST_RD_PID (no daemon yet, or no more), none only
#       writes the file
#
# The rate scaling rule. A profile is made for a reference line rate L:
# mlx5's firmware defaults for 100 Gb/s ConnectX ports, the paper's values
# for its 40 Gb/s testbed. On a bottleneck of R Mb/s every DCQCN rate is
# divided by D = L / R (rounded): the module's rp_rate_divisor D with
# rp_max_rate L makes a sender's ceiling R, and divides R_AI, R_HAI,
# rp_min_rate and the first-CNP rate alike. Time constants (rp_time_reset,
# rp_dce_tcp_rtt, rp_rate_reduce_monitor_period, np_min_time_between_cnps),
# the byte counter rp_byte_reset, g, F and the CNP's DSCP stay as the
# profile has them. At 20 Mb/s: mlx5 D = 5000 (R_AI 1 kb/s, R_HAI 10 kb/s),
# paper D = 2000 (R_AI 20 kb/s, R_HAI 100 kb/s).
#
# What the rule cannot keep: packets do not shrink, so a flow sends D times
# fewer packets per time constant than on the reference link, and a switch
# marks (and an NP answers) at most once per packet. With the time
# constants kept, the rate timer (300 us, 55 us) restores a cut before the
# flow's next packet can bring the next CNP, and the rates hardly move
# (t_incast.t measures it). The "-time" modes multiply the four time
# constants by D too: then rates, times and packet sizes keep the
# reference link's proportions (the state in bytes and packets evolves as
# on the real link, D times slower), and Kmin/Kmax keep their size in
# bytes. The testbed's switch uses Kmin 20 KB, Kmax 80 KB: more than one
# 16 KB message, less than the queue rxe's window builds unchecked.
#
# For experiments, incast_mode's -time modes take the time constants x D/F
# instead: F = INCAST_TIME_FRAC for both profiles if set, else
# INCAST_PAPER_TIME_FRAC for paper (1: the rule). paper-time at F = 1
# recovers from its start-up cuts by R_AI alone, 20 kb/s per 110 ms
# (0.55 Mb/s per second for 3 flows: the 3-to-1 runs' cuts in their first
# 0.6 s leave 7-15 Mb/s, refilled after 18-23 s if at all, and window
# uses of 69-80 %), and additive increase keeps whatever rate gaps those
# cuts left (Jain 0.956 and 0.865 when one flow escaped one or two cuts,
# 1.000 when none did).
# Measured 3-to-1 (t_incast.t, ROCECC_INCAST_N=3, window use / Jain):
# F = 4: 90 % / 0.994 and 87 % / 0.992 (2-to-1: 91 % / 0.969); F = 8:
# 88 % / 1.000 (2-to-1: 94 % / 0.993); mlx5-time beside them (F = 1):
# 87-90 %, 0.976-0.999; ect, the queue never empty, 96 %. So F > 1 brings
# paper-time's Jain to 0.969-1.000 within a 20 s run, but no F puts either
# profile safely above 90 %: the runs still use the rule.
#
# An operator's tuning on top of the rule (INCAST_PARAMS; demo.sh's
# ROCECC_DEMO_PARAMS), measured on the demo's 3-to-1 mlx5-time and
# bpf-mlx5-time runs (both in one boot, 20 s, window 5..20 s):
#   ROCECC_DEMO_MODES="mlx5-time bpf-mlx5-time" ROCECC_DEMO_PARAMS="..." \
#   ROCECC_DEMO_TIME_SECS=20 ROCECC_DEMO_CONV=5 [ROCECC_DEMO_KMIN=10000] \
#   scripts/vm -o "$PWD/build/demo" -- \
#   selftests/vm/demo.sh TAG
# (runs: window use %, Jain, queue max KB, victim p99.9 ms)
#   none: 6 runs: 87-93 (module 87-89), 0.995-1.000, 39-68, 26-59
#   rp_time_reset 375000 (x D/4): 4 runs: 93-96, 0.985-0.999, 29-57,
#       31-53
#   the same and the switch's Kmin 10 KB: 9 runs: 93-95, 0.976-1.000,
#       module 25-38, bpf 25-63; 17-49
#   Kmin 10 KB alone: 2 runs: 87-90, 0.991-1.000, 43-51, 23-24
#   40 s runs (window 5..40 s): none: 93/92, 1.000/0.998, 56/52, 25/27;
#       rp_time_reset 375000 and Kmin 10 KB: 95/94, 0.995/0.988, 23/75
#       (75: one peak at a 54 ms guest stall), 28/32
#       rp_time_reset 375000 alone: 95/94, 0.965/1.000, 49/60, 30/28;
#       Kmin 10 KB alone: 93/92, 0.932/0.992, 40/73, 28/38
#   rp_time_reset 375000 rp_dce_tcp_g 1000: 1 run: 91/94, 69/40
#   rp_dce_tcp_rtt 20000 (alpha tick x4): 2 runs: 79-82, 0.903-0.976,
#       78-84, 32; with rp_time_reset 375000: 90-91, 0.990-0.993, 37
#   rp_clamp_tgt_rate 1: 22-89 (stalls 12-19 %); with rp_ai_rate 250
#       rp_hai_rate 500 rp_time_reset 300000: 36-42 (the start-up cuts
#       are kept)
# No drops; retransmissions only in runs with guest stalls (those with
# 13-29 % of their time in stalls are left out above, one bpf run's QPs
# died after a 165 ms stall). So rp_time_reset brings use
# above 90 % but not the queue down; Kmin 10 KB with it does both for
# the module, not reliably for the BPF engine in 20 s, and one run's
# Jain was 0.976. The 40 s runs' queues show why: the peaks settle
# (mlx5-time: ~110 KB, then ~60, to ~30 KB every ~5.5 s after ~15 s;
# with both: 15-32 KB every ~2.7 s after ~7 s), so a 20 s run's
# maximum is the settling's, and the steady peak follows Kmin. Every run: README.md, "Running a profile on the testbed". The
# demo and t_incast.t keep the rule.

INCAST_DIR=${INCAST_DIR:-}
INCAST_N=0
INCAST_RATE=0
INCAST_MODE=
INCAST_PORT=${INCAST_PORT:-19000}
INCAST_ROCECCD=${INCAST_ROCECCD:-}
INCAST_VICTIM=${INCAST_VICTIM:-}
INCAST_VHOST=0
INCAST_EXTRA=${INCAST_EXTRA:-0}
INCAST_SIDE=${INCAST_SIDE:-}
INCAST_RD_CONF=${INCAST_RD_CONF:-}
INCAST_RD_PID=${INCAST_RD_PID:-}
INCAST_RD_LOG=${INCAST_RD_LOG:-}
INCAST_ENGINE=none

# incast_scale PROFILE RATE [time [DEV]]: the "NAME VALUE" pairs that
# scale PROFILE to a RATE Mbit/s bottleneck, after the profile itself is
# loaded on DEV (veth1; its time constants are read from there).
incast_scale() {
	local ref d k name v n1 v1 out tab=
	case $1 in
	mlx5) ref=100000 ;;
	paper) ref=40000 ;;
	*) echo "incast_scale: unknown profile '$1'" >&2; return 1 ;;
	esac
	d=$(((ref + $2 / 2) / $2))
	out="rp_max_rate $ref rp_rate_divisor $d"
	if [ "${3:-}" = time ]; then
		k=$((d / ${INCAST_TIME_FRAC:-1}))
		# rocecc.ko's sysctl files (no rocecc start), or the CLI's
		# table, once (a device of the BPF datapath has no sysctl view)
		[ -d "/proc/sys/net/rocecc/${4:-veth1}" ] ||
			tab=$("$DP_CLI" param show dev "${4:-veth1}") || return 1
		for name in rp_time_reset rp_dce_tcp_rtt \
			    rp_rate_reduce_monitor_period np_min_time_between_cnps; do
			v=
			if [ -z "$tab" ]; then
				read -r v <"/proc/sys/net/rocecc/${4:-veth1}/$name" || return 1
			else
				while read -r n1 v1 _; do
					[ "$n1" = "$name" ] && { v=$v1; break; }
				done <<<"$tab"
			fi
			[ -n "$v" ] || { echo "incast_scale: no $name on ${4:-veth1}" >&2; return 1; }
			out+=" $name $((v * k))"
		done
	fi
	echo "$out"
}

# _incast_time_frac PROFILE: F of incast_mode's -time modes, whose time
# constants are multiplied by D / F (above): INCAST_TIME_FRAC if set, else
# INCAST_PAPER_TIME_FRAC (1) for paper, and 1 for mlx5.
_incast_time_frac() {
	if [ -n "${INCAST_TIME_FRAC:-}" ]; then
		echo "$INCAST_TIME_FRAC"
	elif [ "$1" = paper ]; then
		echo "${INCAST_PAPER_TIME_FRAC:-1}"
	else
		echo 1
	fi
}

incast_setup() {
	local n=$1 h
	INCAST_N=$n INCAST_RATE=$2 INCAST_VHOST=0
	[ -n "$INCAST_VICTIM" ] && INCAST_VHOST=$((n + 2))
	[ -n "$INCAST_DIR" ] || INCAST_DIR=$(mktemp -d /tmp/incast.XXXXXX)
	topo_setup $((n + 1 + (INCAST_VHOST > 0) + INCAST_EXTRA)) || return 1
	topo_bottleneck $((n + 1)) "$2" ecn "$3" "$4" "$5" || return 1
	for ((h = 1; h <= TOPO_N; h++)); do
		tc qdisc replace dev "veth$h" root fq flow_limit 1000 || return 1
	done
	echo "$2 $3 $4 $5" >"$INCAST_DIR/bottleneck"
	: >"$INCAST_DIR/params"
}

incast_mode() {
	local mode=$1 h scale prof
	case $mode in
	plain|ect|idle|mlx5|paper|mlx5-time|paper-time)
		if [ "$INCAST_ENGINE" != none ]; then
			incast_engine none || return 1
		fi
		;;
	esac
	case $mode in
	plain|ect|idle)
		if [ -d /sys/module/rocecc ]; then
			dp_unload || return 1
		fi
		;;
	bpf-mlx5|bpf-paper|bpf-mlx5-time|bpf-paper-time)
		if [ -d /sys/module/rocecc ]; then
			dp_unload || return 1
		fi
		prof=${mode#bpf-}
		prof=${prof%-time}
		if [ -n "$INCAST_RD_LOG" ]; then
			# the profile, then its scaling, through roceccd's
			# configuration: two reloads, one rocecc start
			incast_engine bpf "$prof" || return 1
		else
			incast_engine bpf || return 1
			for ((h = 1; h <= TOPO_N; h++)); do
				"$DP_CLI" param profile dev "veth$h" "$prof" || return 1
			done
		fi
		scale=$(INCAST_TIME_FRAC=$(_incast_time_frac "$prof") \
			incast_scale "$prof" "$INCAST_RATE" \
			"$([ "${mode%-time}" != "$mode" ] && echo time)") || return 1
		scale+=${INCAST_PARAMS:+ $INCAST_PARAMS}
		if [ -n "$INCAST_RD_LOG" ]; then
			# shellcheck disable=SC2086
			incast_engine bpf "$prof" $scale || return 1
		else
			for ((h = 1; h <= TOPO_N; h++)); do
				# shellcheck disable=SC2086
				"$DP_CLI" param set dev "veth$h" $scale || return 1
			done
		fi
		echo "$mode: $scale" >>"$INCAST_DIR/params"
		;;
	mlx5|paper|mlx5-time|paper-time)
		[ -d /sys/module/rocecc ] || dp_load || return 1
		for ((h = 1; h <= TOPO_N; h++)); do
			if [ ! -d "/proc/sys/net/rocecc/veth$h" ]; then
				"$DP_CLI" dev attach "veth$h" || return 1
			fi
			incast_param "veth$h" "${mode%-time}" || return 1
		done
		scale=$(INCAST_TIME_FRAC=$(_incast_time_frac "${mode%-time}") \
			incast_scale "${mode%-time}" "$INCAST_RATE" \
			"$([ "${mode%-time}" != "$mode" ] && echo time)") || return 1
		scale+=${INCAST_PARAMS:+ $INCAST_PARAMS}
		for ((h = 1; h <= TOPO_N; h++)); do
			# shellcheck disable=SC2086
			incast_param "veth$h" - $scale || return 1
		done
		echo "$mode: $scale" >>"$INCAST_DIR/params"
		;;
	*) echo "incast_mode: unknown mode '$mode'" >&2; return 1 ;;
	esac
	INCAST_MODE=$mode
}

incast_engine() {
	local e=$1 h devs='' want='' have i conf line skip=0
	local -A done=()
	shift
	for ((h = 1; h <= TOPO_N; h++)); do
		devs+="${devs:+, }veth$h"
		want+="${want:+ }veth$h"
	done
	[ -n "$INCAST_RD_CONF" ] ||
		{ echo "incast_engine: no roceccd configuration (INCAST_RD_CONF)" >&2; return 1; }
	printf -v conf '[datapath]\nengine = %s\n[module]\ndevices = %s\nfq = no\n' \
		"$e" "${devs:-all}"
	if [ $# -gt 0 ]; then
		conf+="profile = $1"$'\n'
		shift
	fi
	while [ $# -ge 2 ]; do
		conf+="$1 = $2"$'\n'
		shift 2
	done
	printf '%s' "$conf" >"$INCAST_RD_CONF" || return 1
	INCAST_ENGINE=$e
	if [ -z "$INCAST_RD_PID" ]; then
		[ "$e" = none ] && return 0
		echo "incast_engine: $e needs a running roceccd (INCAST_RD_PID)" >&2
		return 1
	fi
	[ "$e" = bpf ] || want=
	# the log's lines so far: the reload's are those after them
	if [ "$e" = bpf ] && [ -n "$INCAST_RD_LOG" ]; then
		while IFS= read -r _; do skip=$((skip + 1)); done <"$INCAST_RD_LOG"
	fi
	kill -HUP "$INCAST_RD_PID" 2>/dev/null ||
		{ echo "incast_engine: no roceccd to reload (INCAST_RD_PID $INCAST_RD_PID)" >&2; return 1; }
	if [ "$e" = bpf ] && [ -n "$INCAST_RD_LOG" ]; then
		# every netdev's "BPF datapath attached|configured" line
		# after the reload: the engine on it with this configuration
		for ((i = 0; i < 600; i++)); do
			done=()
			while IFS= read -r line; do
				[[ $line =~ (veth[0-9]+):\ BPF\ datapath\ (attached|configured) ]] &&
					done+=(["${BASH_REMATCH[1]}"]=1)
			done < <(tail -n +$((skip + 1)) "$INCAST_RD_LOG")
			[ "${#done[@]}" -ge "$TOPO_N" ] && return 0
			_topo_sleep 0.1
		done
		echo "incast_engine: bpf: configured only ${!done[*]} after the reload" >&2
		return 1
	fi
	for ((i = 0; i < 100; i++)); do
		have=$("$DP_CLI" -j dev show 2>/dev/null |
		       jq -r '[.[] | select(.engine == "bpf") | .dev] | sort | join(" ")')
		[ "$have" = "$want" ] && return 0
		_topo_sleep 0.2
	done
	echo "incast_engine: $e: the BPF engine drives '$have', not '$want'" >&2
	return 1
}

incast_run() {
	local tag=$1 secs=$2 d h tclass=0 pids=() st=0 srv smp=
	local nb=$INCAST_N conv=${INCAST_CONV:-3}
	shift 2
	d=$INCAST_DIR/$tag
	mkdir -p "$d" || return 1
	case $INCAST_MODE in ect|idle) tclass=2 ;; esac
	if [ "$INCAST_MODE" = idle ]; then
		# the victim alone: no bulk sender, no convergence to wait for
		[ "$INCAST_VHOST" -gt 0 ] ||
			{ echo "incast_run: idle needs the victim (INCAST_VICTIM)" >&2; return 1; }
		nb=0 conv=0
	fi
	_incast_no_module "$INCAST_MODE" || return 1
	INCAST_PORT=$((INCAST_PORT + 1))
	echo "$INCAST_MODE $INCAST_N $secs $conv" >"$d/run"
	if [ -n "$INCAST_ROCECCD" ]; then
		# started first (python takes a while under TCG); it waits for
		# the backlog sampler's t0 and takes its clock
		rm -f "$d/backlog.t0" "$d/flows.ndjson"
		"$DP_PY" "$DP_LIB/rd_sample.py" "$INCAST_ROCECCD/flows.json" \
			"$d/flows.ndjson" "$d/backlog.t0" 0.25 2>"$d/sample.err" &
		smp=$!
	fi
	timeout $((secs + 60)) "$DP_RG" --server --dev "rxe$((INCAST_N + 1))" \
		--port "$INCAST_PORT" --sessions $((nb + (INCAST_VHOST > 0))) \
		-Q >/dev/null 2>"$d/srv.err" &
	srv=$!
	topo_wait_listen "$INCAST_PORT" 30 || return 1
	topo_counters >"$d/before" || return 1
	if [ -d /sys/module/rocecc ] || [ "$INCAST_ENGINE" = bpf ]; then
		incast_devs "$d/devs.before.json" || return 1
	fi
	topo_backlog_start $((INCAST_N + 1)) 20 "$d/backlog" || return 1
	_incast_stallmon_start "$d"
	if [ -n "$INCAST_SIDE" ]; then
		"$INCAST_SIDE" start "$d" "$secs" || st=1
	fi
	if [ "$INCAST_VHOST" -gt 0 ]; then
		_incast_victim "$d" "$secs" "$tclass" &
		pids+=($!)
	fi
	for ((h = 1; h <= nb; h++)); do
		_incast_window "$h" "$secs"
		[ "$h" -gt 1 ] && [ "${INCAST_STAGGER_MS:-0}" -gt 0 ] &&
			_topo_sleep "$(printf '%d.%03d' $((INCAST_STAGGER_MS / 1000)) $((INCAST_STAGGER_MS % 1000)))"
		timeout $((secs + 60)) "$DP_RG" --client "$(topo_ip $((INCAST_N + 1)))" \
			--port "$INCAST_PORT" --dev "rxe$h" --cpu $(((h - 1) % 2)) \
			--op write --size "${INCAST_SIZE:-16K}" --duration "$secs" \
			--depth "${INCAST_DEPTH:-4}" --qps "${INCAST_QPS:-1}" \
			--tclass "$tclass" --window-ms "$INCAST_WIN" \
			--allow-errors -Q \
			--json "$d/c$h.json" "$@" 2>"$d/c$h.err" &
		pids+=($!)
	done
	for h in "${pids[@]}"; do wait "$h" || st=1; done
	wait "$srv" || st=1
	_incast_stallmon_stop
	if [ -n "$INCAST_SIDE" ]; then
		"$INCAST_SIDE" stop "$d" || st=1
	fi
	if [ -n "$smp" ]; then
		_topo_sleep 0.5	# a last sample once the QPs are gone
		kill "$smp" 2>/dev/null
		wait "$smp" 2>/dev/null
		curl -sf --max-time 10 "$INCAST_ROCECCD/flows.json" >"$d/flows.json" || st=1
		curl -sf --max-time 10 "$INCAST_ROCECCD/metrics" >"$d/metrics" || st=1
	fi
	topo_backlog_stop
	topo_counters >"$d/after" || return 1
	if [ -d /sys/module/rocecc ] || [ "$INCAST_ENGINE" = bpf ]; then
		incast_devs "$d/devs.json" || st=1
	fi
	_incast_no_module "$INCAST_MODE" || st=1
	[ $st = 0 ] || cat "$d"/*.err >&2
	return $st
}

# _incast_window H SECS: INCAST_WIN, sender H's --window-ms: the report's
# window (INCAST_CONV s after the last sender's start until the first one
# stops) in ms since H's own start, as the stagger schedules them: from
# CONV + (N - H) * STAGGER to SECS - (H - 1) * STAGGER. The senders' real
# starts differ from the schedule by their launch and handshake; the
# report measures by how much (incast_report.py, wskew_ms).
INCAST_WIN=
_incast_window() {
	local st=${INCAST_STAGGER_MS:-0} a b
	a=$((${INCAST_CONV:-3} * 1000 + (INCAST_N - $1) * st))
	b=$(($2 * 1000 - ($1 - 1) * st))
	[ "$a" -lt "$b" ] || a=0
	INCAST_WIN=$a:$b
}

# _incast_stallmon_start DIR / _incast_stallmon_stop: the guest's stalls
# and the senders' and the victim's retransmissions, and the receiver's
# duplicates, on one clock (selftests/tools/stallmon.c) into DIR/stallmon.
INCAST_STALLMON_PID=
_incast_stallmon_start() {
	local h f=() c=/ports/1/hw_counters
	for ((h = 1; h <= INCAST_N; h++)); do
		f+=("/sys/class/infiniband/rxe$h$c/completer_retry_err")
	done
	[ "$INCAST_VHOST" -gt 0 ] &&
		f+=("/sys/class/infiniband/rxe$INCAST_VHOST$c/completer_retry_err")
	f+=("/sys/class/infiniband/rxe$((INCAST_N + 1))$c/duplicate_request")
	"$DP_TOP/build/tools/stallmon" -t 20 "${f[@]}" >"$1/stallmon" 2>&1 &
	INCAST_STALLMON_PID=$!
}
_incast_stallmon_stop() {
	[ -n "$INCAST_STALLMON_PID" ] || return 0
	kill -TERM "$INCAST_STALLMON_PID" 2>/dev/null
	wait "$INCAST_STALLMON_PID" 2>/dev/null
	INCAST_STALLMON_PID=
}

# _incast_no_module MODE: a run of the BPF engine has no rocecc.ko loaded.
_incast_no_module() {
	case $1 in
	bpf-*) [ ! -d /sys/module/rocecc ] ||
		{ echo "incast_run: $1: rocecc.ko is loaded" >&2; return 1; } ;;
	esac
	return 0
}

# _incast_victim DIR SECS TCLASS: the victim's client (see incast_run), one
# QP from host N+2, INCAST_VICTIM bytes at depth 1, back to back or one
# message per INCAST_VICTIM_GAP_MS: rocegen's token bucket at SIZE * 8 /
# GAP, one message deep, so a late message is not followed by a burst.
# rxe's retransmission timer is armed by a send only when it is not
# pending and is not stopped when the QP is fully acknowledged, so it
# fires one ACK timeout after it was armed, whatever was sent since, and
# retries the message then in flight. Back to back, a depth-1 QP nearly
# always has one: 96 retries in 15 s beside a mlx5-time incast whose
# victim messages all took < 45 ms; one every 10 ms, 31. With a gap above
# the timeout (67 ms; the demo and t_incast.t use 100) the timer expires
# between messages, and a retry means a message waited past 67 ms (0 in
# the -time modes, 40 of 49 messages with ECT alone). It starts
# when the report's window does (the last sender's start + INCAST_CONV)
# and stops with the first sender; in mode idle (no senders) it runs
# from the start to the end of the run.
_incast_victim() {
	local size=$INCAST_VICTIM gap=${INCAST_VICTIM_GAP_MS:-0} b w
	local -a rate=()
	case $size in
	*[kK]) b=$((${size%?} * 1024)) ;;
	*) b=$size ;;
	esac
	w=$(((INCAST_N - 1) * ${INCAST_STAGGER_MS:-0} + ${INCAST_CONV:-3} * 1000))
	[ "$w" -lt $(($2 * 1000 - 1000)) ] || w=0
	[ "$INCAST_MODE" = idle ] && w=0
	[ "$gap" -gt 0 ] && rate=(--rate "$((b * 8 / gap))k" --burst "$b")
	_topo_sleep "$(printf '%d.%03d' $((w / 1000)) $((w % 1000)))"
	timeout $(($2 + 60)) "$DP_RG" --client "$(topo_ip $((INCAST_N + 1)))" \
		--port "$INCAST_PORT" --dev "rxe$INCAST_VHOST" \
		--cpu $((INCAST_VHOST % 2)) --op write --size "$b" --depth 1 \
		"${rate[@]}" --sample-ms 100 \
		--duration "$(($2 * 1000 - w))ms" --tclass "$3" --allow-errors -Q \
		--json "$1/victim.json" 2>"$1/victim.err"
}

incast_param() {
	local dev=$1 prof=$2 f
	shift 2
	if [ "$prof" != - ]; then
		echo "$prof" >"/proc/sys/net/rocecc/$dev/profile" ||
			{ echo "incast_param: profile $prof on $dev refused" >&2; return 1; }
	fi
	while [ $# -ge 2 ]; do
		f=/proc/sys/net/rocecc/$dev/$1
		echo "$2" >"$f" || { echo "incast_param: $1 $2 on $dev refused" >&2; return 1; }
		shift 2
	done
}

incast_devs() {
	"$DP_CLI" -j -s dev show >"$1"
}

incast_save() {
	local dest=$1 other
	[ -n "$INCAST_DIR" ] && [ -d "$INCAST_DIR" ] || return 1
	[[ $dest = /* ]] || dest=$PWD/$dest
	[ -d "$dest" ] && dest+=/${INCAST_DIR##*/}
	mkdir -p "$dest" &&
	(cd "$INCAST_DIR" && find . -type f -exec cp --parents -t "$dest" {} +) ||
		return 1
	other=$(cd "$INCAST_DIR" && find . ! -type f ! -type d -printf ' %P')
	[ -z "$other" ] || echo "# incast_save: not regular files, not copied:$other"
}

incast_teardown() {
	topo_backlog_stop
	if [ "$INCAST_ENGINE" != none ]; then
		incast_engine none
	fi
	topo_teardown
	if [ -d /sys/module/rocecc ]; then
		dp_unload || return 1
	fi
	INCAST_MODE=
}

# incast_report TAG...: the side-by-side table (stdout) and, per run, a
# "TAG key=value ..." line in $INCAST_DIR/figures.
incast_report() {
	"$DP_PY" -S "$DP_LIB/incast_report.py" --dir "$INCAST_DIR" \
		--figures "$INCAST_DIR/figures" "$@"
}

# incast_fig TAG KEY: one figure of a reported run.
# (bash's read, no grep: the tests ask for dozens of figures, and every
# process costs under TCG)
incast_fig() {
	local tag kvs
	while read -r tag kvs; do
		[ "$tag" = "$1" ] && { dp_kv "$kvs" "$2"; return 0; }
	done <"$INCAST_DIR/figures"
	echo 0
}
