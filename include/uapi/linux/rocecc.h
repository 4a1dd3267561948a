/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * rocecc: host-side DCQCN congestion control for RoCEv2 (soft-RoCE).
 *
 * The stable userspace ABI shared by rocecc.ko, roceccd and the rocecc CLI.
 * Append only: never renumber or reuse a value.
 */
#ifndef _UAPI_LINUX_ROCECC_H
#define _UAPI_LINUX_ROCECC_H

#define ROCECC_GENL_NAME		"rocecc"
#define ROCECC_GENL_VERSION		1
#define ROCECC_GENL_MCGRP_EVENTS	"events"

/*
 * DCQCN parameters. Names, meanings and defaults follow the NVIDIA mlx5
 * congestion-control knobs (debugfs cc_params, mlxconfig), so that a person
 * who tunes ConnectX tunes rocecc the same way. Every parameter is a u32.
 * The value of each enumerator is also its netlink attribute type inside a
 * parameter nest, hence 0 stays unused.
 *
 * Units, where mlx5 leaves one open, are decided here:
 *
 * ROCECC_PARAM_RP_BYTE_RESET counts units of 64 bytes, not bytes (the public
 *	documentation says "bytes", an independent firmware model multiplies by
 *	64; we follow the model). The mlx5 default 32767 is thus 2 MiB between
 *	byte-counter increase events: at 100 Gb/s one CNP costs a flow about
 *	0.5 ms of recovery, not the 20 us that byte units would give
 *	(selftests/unit/core/test_dcqcn.c measures both). 0 disables the counter.
 *
 * Rates are in Mb/s; the RP keeps them internally in kb/s.
 */
enum rocecc_param {
	ROCECC_PARAM_UNSPEC,
	/* bool: every CNP sets the target rate to the current rate */
	ROCECC_PARAM_RP_CLAMP_TGT_RATE,
	/* bool: also clamp the target if timer-driven increases happened */
	ROCECC_PARAM_RP_CLAMP_TGT_RATE_ATI,
	/* us: period of timer-driven rate increase events (paper: T) */
	ROCECC_PARAM_RP_TIME_RESET,
	/* 64-byte units: bytes sent between byte-counter events (paper: B) */
	ROCECC_PARAM_RP_BYTE_RESET,
	/* count: increase events of fast recovery per stage (paper: F) */
	ROCECC_PARAM_RP_THRESHOLD,
	/* Mb/s: rate ceiling of a flow, 0 = the device's line rate */
	ROCECC_PARAM_RP_MAX_RATE,
	/* Mb/s: additive increase step (paper: R_AI) */
	ROCECC_PARAM_RP_AI_RATE,
	/* Mb/s: hyper increase step (paper: R_HAI) */
	ROCECC_PARAM_RP_HAI_RATE,
	/* percent 0..100: one cut keeps at least this share of the rate */
	ROCECC_PARAM_RP_MIN_DEC_FAC,
	/* Mb/s: floor of a flow's rate */
	ROCECC_PARAM_RP_MIN_RATE,
	/* Mb/s: current and target rate at a flow's first CNP, 0 = line rate */
	ROCECC_PARAM_RP_RATE_TO_SET_ON_FIRST_CNP,
	/* 1/1024: alpha EWMA weight G, paper g = (1024 - G) / 1024 */
	ROCECC_PARAM_RP_DCE_TCP_G,
	/* us: alpha update period (paper: K, tau') */
	ROCECC_PARAM_RP_DCE_TCP_RTT,
	/* us: at most one rate cut per period */
	ROCECC_PARAM_RP_RATE_REDUCE_MONITOR_PERIOD,
	/* 1/1024: alpha at a flow's first CNP */
	ROCECC_PARAM_RP_INITIAL_ALPHA_VALUE,
	/* log2: a cut is rate * alpha / 2^gd, alpha in 1/1024 (11 = alpha/2) */
	ROCECC_PARAM_RP_GD,
	/* us: at most one CNP per flow per period (paper: N, tau) */
	ROCECC_PARAM_NP_MIN_TIME_BETWEEN_CNPS,
	/* 0..63: DSCP of the CNPs this host sends */
	ROCECC_PARAM_NP_CNP_DSCP,
	/* 0..7: 802.1p priority (skb->priority) of the CNPs this host sends */
	ROCECC_PARAM_NP_CNP_PRIO,
	/*
	 * 1..1000000, ours (no mlx5 knob): every rate the RP works with
	 * (rp_max_rate, the line rate, rp_min_rate, rp_ai_rate, rp_hai_rate,
	 * rp_rate_to_set_on_first_cnp) is divided by this; time and byte
	 * constants are not. 1 on real links. It runs a profile made for a
	 * fast link, time constants unchanged, on an emulated link that many
	 * times slower (selftests/vm/README, "rate scaling").
	 */
	ROCECC_PARAM_RP_RATE_DIVISOR,

	__ROCECC_PARAM_MAX,
	ROCECC_PARAM_MAX = __ROCECC_PARAM_MAX - 1
};

/* Parameter profiles: a set of defaults applied as a whole. */
enum rocecc_profile {
	ROCECC_PROFILE_MLX5,	/* NVIDIA firmware defaults (the default) */
	ROCECC_PROFILE_PAPER,	/* SIGCOMM'15 DCQCN paper values */

	__ROCECC_PROFILE_MAX
};

/*
 * Generic netlink family ROCECC_GENL_NAME ("rocecc"), version 1.
 *
 * The family exists in every network namespace but serves only the initial
 * one (rdma_rxe in Linux 6.1 works only there): any request from another
 * namespace fails with EOPNOTSUPP and an extack message. Every request is
 * validated strictly (unknown attributes, wrong lengths, missing
 * NLA_F_NESTED and reserved header bits are refused), and every error
 * carries an extack message. Commands marked "admin" need CAP_NET_ADMIN.
 * Reads (DEV_GET, PARAM_GET, FLOW_GET) and the "events" group, flow
 * events included, are open to every user: flows show peers and QPNs, as
 * the RDMA netlink's QP and CM ID dumps do to every user, and knowing
 * them gives no hold on a flow (only rxe's own QP sockets are tracked and
 * paced; a CNP counts only from the QP's peer).
 *
 * Flow dumps (FLOW_GET) are taken in parts while flows come and go: a
 * dump during which a flow was inserted or removed may have skipped or
 * repeated flows, and then carries NLM_F_DUMP_INTR on a message after the
 * change (at the latest on NLMSG_DONE). A reader that needs an exact
 * listing dumps again.
 *
 * A device is named by ROCECC_A_DEV_IFINDEX or ROCECC_A_DEV_NAME (if both
 * are given they must name the same device). For the parameter commands an
 * absent device, or ifindex 0, means the default set: the parameters that
 * devices attached later start with (sysctl net.rocecc.default.*). The
 * per-device sets are sysctl net.rocecc.<dev>.*; sysctl and netlink read
 * and write the same store.
 *
 * What each command takes and returns, nesting included, is spelled out in
 * "Commands and their attribute trees" at the end of this file.
 */
enum rocecc_cmd {
	ROCECC_CMD_UNSPEC,
	/* admin. Attach a device; event DEV_ATTACHED. */
	ROCECC_CMD_DEV_ATTACH,
	/* admin. Detach a device; event DEV_DETACHED. */
	ROCECC_CMD_DEV_DETACH,
	/* One attached device (do) or every one (dump), with its counters. */
	ROCECC_CMD_DEV_GET,
	/* One parameter set (do), or the default set and every device's (dump). */
	ROCECC_CMD_PARAM_GET,
	/*
	 * admin. Set one or more parameters of one set. Every value is
	 * checked against its range first; the set changes as a whole or not
	 * at all. Event PARAM_CHANGED if anything changed.
	 */
	ROCECC_CMD_PARAM_SET,
	/* admin. Load a whole profile into one set; event PARAM_CHANGED. */
	ROCECC_CMD_PROFILE_SET,
	/* Events, multicast group ROCECC_GENL_MCGRP_EVENTS ("events"). */
	/* a device was attached */
	ROCECC_CMD_DEV_ATTACHED,
	/* a device was detached on request */
	ROCECC_CMD_DEV_DETACHED,
	/*
	 * an attached device was unregistered (deleted, or moved to another
	 * network namespace) and is detached
	 */
	ROCECC_CMD_DEV_GONE,
	/*
	 * parameters of a set changed, whichever view (sysctl or netlink)
	 * changed them
	 */
	ROCECC_CMD_PARAM_CHANGED,
	/* dump only: the datapath's flows, one message per flow */
	ROCECC_CMD_FLOW_GET,
	/*
	 * Event: the datapath started tracking a flow. A flow refused because
	 * the table is full sends none (it is counted in
	 * ROCECC_STAT_FLOW_TABLE_FULL).
	 */
	ROCECC_CMD_FLOW_CREATED,
	/*
	 * Event: a flow had no packet for module parameter flow_idle_ms and
	 * is removed; it follows the flow's FLOW_CREATED. Flows removed
	 * because their device is detached or unregistered, or the module
	 * unloads, send none: DEV_DETACHED or DEV_GONE ends every flow of
	 * that device.
	 */
	ROCECC_CMD_FLOW_EXPIRED,

	__ROCECC_CMD_MAX,
	ROCECC_CMD_MAX = __ROCECC_CMD_MAX - 1
};

/* Top-level attributes. */
enum rocecc_attr {
	ROCECC_A_UNSPEC,
	ROCECC_A_DEV_IFINDEX,	/* u32 */
	ROCECC_A_DEV_NAME,	/* NUL-terminated string, < IFNAMSIZ */
	ROCECC_A_PARAMS,	/* nest: type enum rocecc_param, payload u32 */
	ROCECC_A_PROFILE,	/* u32, enum rocecc_profile */
	ROCECC_A_STATS,		/* nest: type enum rocecc_stat, payload u64 */
	ROCECC_A_FLOW,		/* nest: enum rocecc_flow_attr */
	/*
	 * u8, in DEV_GET replies: 1 if rocecc.ko provides the device's DCB
	 * (IEEE PFC and buffers over DCB netlink: "dcb pfc", "dcb buffer")
	 * because the driver has none; 0 if the driver has its own DCB ops,
	 * which are left alone (and ROCECC_A_PFC is absent).
	 */
	ROCECC_A_DEV_SW_DCB,
	/* nest: enum rocecc_pfc_attr, in DEV_GET replies when DEV_SW_DCB is 1 */
	ROCECC_A_PFC,

	__ROCECC_A_MAX,
	ROCECC_A_MAX = __ROCECC_A_MAX - 1
};

/*
 * Per-device counters (ROCECC_A_STATS), u64 each, since the device was
 * attached. The first four are the mlx5 hw_counters of the same name.
 */
enum rocecc_stat {
	ROCECC_STAT_UNSPEC,
	ROCECC_STAT_PAD,
	/* CNPs sent by this host (notification point) */
	ROCECC_STAT_NP_CNP_SENT,
	/* CE-marked RoCEv2 packets received */
	ROCECC_STAT_NP_ECN_MARKED_ROCE_PACKETS,
	/* CNPs received that drove the rate machine (reaction point) */
	ROCECC_STAT_RP_CNP_HANDLED,
	/* CNPs received that did not change a rate */
	ROCECC_STAT_RP_CNP_IGNORED,
	/* gauge: flows in the device's flow table now */
	ROCECC_STAT_FLOWS,
	/* new flows not tracked because the flow table was full */
	ROCECC_STAT_FLOW_TABLE_FULL,
	/* packets given a departure time in the future by pacing */
	ROCECC_STAT_PACING_DELAYED,
	/* CE packets or CNPs whose local QP could not be resolved to a flow */
	ROCECC_STAT_RESOLVER_MISS,
	/* RoCEv2 packets too short or inconsistent to be handled */
	ROCECC_STAT_MALFORMED,
	/*
	 * packets whose departure time pacing had to bring forward to stay
	 * within the flow's pacing budget (rxe's retransmission timeout)
	 */
	ROCECC_STAT_PACING_CAPPED,
	/* RoCEv2 packets sent Not-ECT and marked ECT(0) */
	ROCECC_STAT_ECT_MARKED,
	/*
	 * CNPs for a local QP whose source address is not the QP's remote
	 * address: ignored (also counted in ROCECC_STAT_RP_CNP_IGNORED)
	 */
	ROCECC_STAT_RP_CNP_SPOOFED,
	/*
	 * CE packets or CNPs for a local QP that is not in the QP cache and
	 * found no room there (module parameters qp_max, qp_unresolved_max);
	 * also counted in ROCECC_STAT_RESOLVER_MISS
	 */
	ROCECC_STAT_QP_CACHE_FULL,
	/*
	 * packets given BTH AckReq by pacing, so that the ACK re-arms rxe's
	 * retransmission timer within the pacing budget
	 */
	ROCECC_STAT_PACING_ACKREQ,
	/*
	 * RoCEv2 packets (UDP to port 4791) sent on the device by a socket
	 * that is not one of its rxe QPs' (a user's UDP socket, say): passed
	 * untouched, neither ECT-marked nor tracked nor paced
	 */
	ROCECC_STAT_TX_NOT_RXE,

	__ROCECC_STAT_MAX,
	ROCECC_STAT_MAX = __ROCECC_STAT_MAX - 1
};

/*
 * One flow (ROCECC_A_FLOW), for ROCECC_CMD_FLOW_GET. A flow is what one
 * local QP sends to one remote QP. Rates are in kb/s (the RP's own unit;
 * u32 holds 4.29 Tb/s), times are CLOCK_MONOTONIC nanoseconds (0: never).
 */
enum rocecc_flow_attr {
	ROCECC_FLOW_A_UNSPEC,
	ROCECC_FLOW_A_PAD,
	/* key: remote IP address, 16 bytes, IPv6 or IPv4-mapped (::ffff:a.b.c.d) */
	ROCECC_FLOW_A_RADDR,
	/* key: remote QP number (u32, 24 bits used) */
	ROCECC_FLOW_A_RQPN,
	/* key: local QP number (u32, 24 bits used) */
	ROCECC_FLOW_A_LQPN,
	/* u32 kb/s: current rate Rc */
	ROCECC_FLOW_A_RC,
	/* u32 kb/s: target rate Rt */
	ROCECC_FLOW_A_RT,
	/* u32 1/1024: alpha */
	ROCECC_FLOW_A_ALPHA,
	/* u64: RoCEv2 bytes sent (IP total length) */
	ROCECC_FLOW_A_BYTES,
	/* u64: CNPs received for this flow and handled / ignored */
	ROCECC_FLOW_A_CNP_HANDLED,
	ROCECC_FLOW_A_CNP_IGNORED,
	/* u64: CNPs this host sent for this flow */
	ROCECC_FLOW_A_CNP_SENT,
	/* u64: CE-marked packets received on this flow */
	ROCECC_FLOW_A_CE_SEEN,
	/* u64 ns: last CNP received, last CNP sent, last rate cut, last increase */
	ROCECC_FLOW_A_LAST_CNP_RX,
	ROCECC_FLOW_A_LAST_CNP_TX,
	ROCECC_FLOW_A_LAST_CUT,
	ROCECC_FLOW_A_LAST_INCREASE,
	/*
	 * u32 us: pacing budget, the longest pacing may hold a packet of this
	 * flow: a share (module parameter pacing_budget_pct) of the time
	 * rxe's retransmission timer waits for the local QP (its timeout), or
	 * a default while that is not known (BUDGET_KNOWN 0).
	 */
	ROCECC_FLOW_A_PACING_BUDGET,
	/* u64: data packets sent (requests and READ responses) */
	ROCECC_FLOW_A_PACKETS,
	/* u64: packets given a departure time in the future */
	ROCECC_FLOW_A_PACING_DELAYED,
	/* u64: packets whose delay the budget cut short (rate not kept) */
	ROCECC_FLOW_A_PACING_CAPPED,
	/* u64 ns: the flow's pacing backlog now (next departure - now) */
	ROCECC_FLOW_A_PACING_BACKLOG,
	/* u32: the local QP's ACK timeout exponent (4.096 us * 2^n, 0 = none) */
	ROCECC_FLOW_A_QP_TIMEOUT,
	/* u8: 1 once the flow has had a CNP (DCQCN rate limited) */
	ROCECC_FLOW_A_LIMITED,
	/* u64: CE-marked packets not answered at once (CNP window) */
	ROCECC_FLOW_A_CNP_SUPPRESSED,
	/* 16 bytes: local address the flow's CNPs come from (IPv4-mapped) */
	ROCECC_FLOW_A_LADDR,
	/* u64 ns: last packet of the flow, either direction (CLOCK_MONOTONIC) */
	ROCECC_FLOW_A_LAST_ACTIVE,
	/* u64: rate increase events from the timer / the byte counter */
	ROCECC_FLOW_A_INC_TIMER,
	ROCECC_FLOW_A_INC_BYTE,
	/* u64: handled CNPs that lowered Rc */
	ROCECC_FLOW_A_CUTS,
	/* u64: CNPs due that could not be sent (no route, no memory) */
	ROCECC_FLOW_A_CNP_TX_ERRORS,
	/* u64: data packets counted but never delayed (READ responses) */
	ROCECC_FLOW_A_UNPACED_PACKETS,
	/* u8: 1 if PACING_BUDGET comes from the QP's timeout */
	ROCECC_FLOW_A_BUDGET_KNOWN,
	/*
	 * u64 ns (CLOCK_MONOTONIC): the time the RP state in this message
	 * (RC, RT, ALPHA, stages, counters) refers to. A dump first brings
	 * the state up to the time of the dump; an expired flow's is its
	 * last event's.
	 */
	ROCECC_FLOW_A_STATE_NS,
	/* u64: packets given BTH AckReq by pacing (rxe's timer budget) */
	ROCECC_FLOW_A_PACING_ACKREQ,

	__ROCECC_FLOW_A_MAX,
	ROCECC_FLOW_A_MAX = __ROCECC_FLOW_A_MAX - 1
};

/*
 * Software PFC of a device (ROCECC_A_PFC), in DEV_GET replies. The
 * configuration itself (which priorities have PFC, the buffers and their
 * sizes, the delay allowance) is set and read through DCB netlink
 * ("dcb pfc", "dcb buffer" of iproute2); this nest adds what DCB netlink
 * cannot say. Counters are u64 since the device was attached.
 *
 * Occupancy (the software analogue of a NIC's receive buffer): the bytes
 * (Ethernet frame without FCS: IP length + 14) of RoCEv2 packets of a
 * priority that arrived on the device for a local address, passed the
 * module's LOCAL_IN hook, and have not been released by the host's RDMA
 * transport (rdma_rxe) yet: counted from LOCAL_IN until the skb is freed
 * after rxe has processed it (or dropped it). It is what has come off the
 * wire and the host has not consumed. The priority of a received packet
 * is its DSCP's: the device's DCB APP DSCP entries if any, else DSCP >> 3.
 * Only priorities with PFC enabled are measured. The occupancy of a buffer
 * is the sum over the priorities mapped to it (prio-buffer); when it
 * reaches the buffer's xoff threshold the host sends a PFC XOFF for the
 * PFC priorities of that buffer (refreshed before it expires), and when it
 * falls to xon again an XON (requests counts both).
 */
enum rocecc_pfc_attr {
	ROCECC_PFC_A_UNSPEC,
	ROCECC_PFC_A_PAD,
	/*
	 * u64: indications (one per PFC-enabled priority named by a received
	 * PFC frame) that could not pause or resume transmission because the
	 * device's root qdisc is not rocecc's
	 */
	ROCECC_PFC_A_UNENFORCED,
	/*
	 * u64: 802.3x PAUSE frames received (opcode 1): counted, not obeyed
	 * (a link runs PFC or PAUSE, never both; with PFC, PAUSE is ignored)
	 */
	ROCECC_PFC_A_PAUSE_RX,
	/* u32 Mb/s: link speed that converts pause quanta to time */
	ROCECC_PFC_A_SPEED,
	/* u64: PFC frames this host could not send (no memory, xmit error) */
	ROCECC_PFC_A_TX_ERRORS,
	/*
	 * u64: RoCEv2 packets of a PFC priority not measured (the skb had an
	 * owner already, or no memory for the record)
	 */
	ROCECC_PFC_A_UNTRACKED,
	/* nest: enum rocecc_pfc_prio_attr, one per priority 0..7 */
	ROCECC_PFC_A_PRIO,
	/*
	 * u64: MAC control frames (PFC or PAUSE) not looked at: not sent to
	 * 01:80:c2:00:00:01, or received only because the device is
	 * promiscuous (not counted in indications or pause_rx)
	 */
	ROCECC_PFC_A_RX_IGNORED,
	/*
	 * u64: RoCEv2 packets of a PFC priority not measured because the
	 * UDP socket they go to is not rdma_rxe's (another socket on port
	 * 4791, or none): the RDMA transport never holds them
	 */
	ROCECC_PFC_A_NOT_RXE,
	/*
	 * u64: measured packets whose bytes left the occupancy because they
	 * were still held after the module parameter pfc_occ_max_age_ms
	 */
	ROCECC_PFC_A_OCC_EXPIRED,

	__ROCECC_PFC_A_MAX,
	ROCECC_PFC_A_MAX = __ROCECC_PFC_A_MAX - 1
};

/* One priority of ROCECC_A_PFC (ROCECC_PFC_A_PRIO). */
enum rocecc_pfc_prio_attr {
	ROCECC_PFC_PRIO_A_UNSPEC,
	ROCECC_PFC_PRIO_A_PAD,
	ROCECC_PFC_PRIO_A_PRIO,		/* u8: 0..7 */
	ROCECC_PFC_PRIO_A_EN,		/* u8: 1 if PFC is enabled */
	ROCECC_PFC_PRIO_A_BUFFER,	/* u8: its buffer (prio-buffer) */
	/*
	 * u64: PFC frames received that name it (XOFF or XON), obeyed or
	 * not: also counted while PFC is off on it
	 */
	ROCECC_PFC_PRIO_A_INDICATIONS,
	/* u64: PFC frames this host sent for it, XOFF and XON */
	ROCECC_PFC_PRIO_A_REQUESTS,
	/* u32 bytes: its occupancy now, and the highest since attach */
	ROCECC_PFC_PRIO_A_OCC,
	ROCECC_PFC_PRIO_A_OCC_MAX,
	/* u32 bytes: xoff and xon thresholds of its buffer */
	ROCECC_PFC_PRIO_A_XOFF,
	ROCECC_PFC_PRIO_A_XON,
	/* u8: 1 while this host holds the peer paused for it (XOFF sent) */
	ROCECC_PFC_PRIO_A_PAUSED,
	/*
	 * The transmit side, from the device's root qdisc when it is
	 * rocecc's ("tc qdisc add dev D root rocecc"; absent otherwise):
	 * u8 1 while a peer's PFC holds this priority paused; u64 ns it
	 * has been paused in all (since the qdisc was created); u64 XOFFs
	 * that paused it; u64 packets and bytes it sent; u32 bytes queued.
	 */
	ROCECC_PFC_PRIO_A_TX_PAUSED,
	ROCECC_PFC_PRIO_A_TX_PAUSE_NS,
	ROCECC_PFC_PRIO_A_TX_PAUSES,
	ROCECC_PFC_PRIO_A_TX_PACKETS,
	ROCECC_PFC_PRIO_A_TX_BYTES,
	ROCECC_PFC_PRIO_A_TX_BACKLOG,
	/*
	 * u64, with the transmit side: pauses the qdisc's pause watchdog
	 * ended after the module parameter pfc_pause_max_ms (the peer kept
	 * the priority paused that long); XOFFs are then ignored as long
	 */
	ROCECC_PFC_PRIO_A_TX_PAUSE_RELEASED,

	__ROCECC_PFC_PRIO_A_MAX,
	ROCECC_PFC_PRIO_A_MAX = __ROCECC_PFC_PRIO_A_MAX - 1
};

/*
 * Commands and their attribute trees
 * ==================================
 *
 * The attributes each command takes and returns, with their nesting; "[ ]"
 * marks an attribute that may be absent, "..." a nest whose members repeat.
 * Types are the netlink policy types. Every u64 is put with a PAD
 * attribute of its own nest (ROCECC_STAT_PAD, ROCECC_FLOW_A_PAD,
 * ROCECC_PFC_A_PAD, ROCECC_PFC_PRIO_A_PAD) for alignment when needed:
 * readers skip PAD. Readers also skip attribute types they do not know
 * (the enums grow at their ends). Requests carry no attribute that a
 * command does not list: the kernel refuses it.
 *
 * A device selector is
 *
 *    [ROCECC_A_DEV_IFINDEX]: NLA_U32
 *    [ROCECC_A_DEV_NAME]: NLA_NUL_STRING, maxlen IFNAMSIZ - 1
 *
 * ("device" below: at least one of them; "device or none": neither selects
 * the default parameter set, as does ifindex 0).
 *
 * ROCECC_CMD_DEV_ATTACH, ROCECC_CMD_DEV_DETACH (admin, do)
 * -------------------------------------------------------
 *
 *    request: device
 *    reply:   none (the netlink ACK)
 *
 * ROCECC_CMD_DEV_GET (do and dump)
 * --------------------------------
 *
 *    do request:   device
 *    dump request: none (a selector given is ignored)
 *
 * The reply (one message; a dump: one per attached device, NLM_F_MULTI):
 *
 *    ROCECC_A_DEV_IFINDEX: NLA_U32
 *    ROCECC_A_DEV_NAME: NLA_NUL_STRING
 *    ROCECC_A_STATS: NLA_NESTED
 *        ROCECC_STAT_NP_CNP_SENT ... ROCECC_STAT_TX_NOT_RXE: NLA_U64
 *            (every enum rocecc_stat from ROCECC_STAT_NP_CNP_SENT on)
 *    ROCECC_A_DEV_SW_DCB: NLA_U8
 *    [ROCECC_A_PFC]: NLA_NESTED                  (only if DEV_SW_DCB is 1)
 *        ROCECC_PFC_A_UNENFORCED: NLA_U64
 *        ROCECC_PFC_A_PAUSE_RX: NLA_U64
 *        ROCECC_PFC_A_SPEED: NLA_U32
 *        ROCECC_PFC_A_TX_ERRORS: NLA_U64
 *        ROCECC_PFC_A_UNTRACKED: NLA_U64
 *        ROCECC_PFC_A_RX_IGNORED: NLA_U64
 *        ROCECC_PFC_A_NOT_RXE: NLA_U64
 *        ROCECC_PFC_A_OCC_EXPIRED: NLA_U64
 *        ROCECC_PFC_A_PRIO: NLA_NESTED           (8 of them, priority 0..7)
 *            ROCECC_PFC_PRIO_A_PRIO: NLA_U8
 *            ROCECC_PFC_PRIO_A_EN: NLA_U8
 *            ROCECC_PFC_PRIO_A_BUFFER: NLA_U8
 *            ROCECC_PFC_PRIO_A_INDICATIONS: NLA_U64
 *            ROCECC_PFC_PRIO_A_REQUESTS: NLA_U64
 *            ROCECC_PFC_PRIO_A_OCC: NLA_U32
 *            ROCECC_PFC_PRIO_A_OCC_MAX: NLA_U32
 *            ROCECC_PFC_PRIO_A_XOFF: NLA_U32
 *            ROCECC_PFC_PRIO_A_XON: NLA_U32
 *            ROCECC_PFC_PRIO_A_PAUSED: NLA_U8
 *            [the next seven only while the device's root qdisc is rocecc's]
 *            [ROCECC_PFC_PRIO_A_TX_PAUSED]: NLA_U8
 *            [ROCECC_PFC_PRIO_A_TX_PAUSE_NS]: NLA_U64
 *            [ROCECC_PFC_PRIO_A_TX_PAUSES]: NLA_U64
 *            [ROCECC_PFC_PRIO_A_TX_PACKETS]: NLA_U64
 *            [ROCECC_PFC_PRIO_A_TX_BYTES]: NLA_U64
 *            [ROCECC_PFC_PRIO_A_TX_BACKLOG]: NLA_U32
 *            [ROCECC_PFC_PRIO_A_TX_PAUSE_RELEASED]: NLA_U64
 *
 * ROCECC_CMD_PARAM_GET (do and dump)
 * ----------------------------------
 *
 *    do request:   device or none
 *    dump request: none (a selector given is ignored); the default set
 *                  first, then every attached device's
 *
 * The reply (one message per set):
 *
 *    ROCECC_A_DEV_IFINDEX: NLA_U32               (0: the default set)
 *    [ROCECC_A_DEV_NAME]: NLA_NUL_STRING         (devices only)
 *    ROCECC_A_PARAMS: NLA_NESTED
 *        ROCECC_PARAM_RP_CLAMP_TGT_RATE ... ROCECC_PARAM_MAX: NLA_U32
 *            (every enum rocecc_param, the type is the parameter id)
 *    [ROCECC_A_PROFILE]: NLA_U32                 (the set equals this
 *                                                profile exactly; absent:
 *                                                "custom")
 *
 * ROCECC_CMD_PARAM_SET (admin, do)
 * --------------------------------
 *
 *    request: device or none, and
 *        ROCECC_A_PARAMS: NLA_NESTED             (required)
 *            ROCECC_PARAM_*: NLA_U32             (one or more)
 *    reply:   none (the netlink ACK; an out-of-range value is named by
 *             the extack's bad attribute and message)
 *
 * ROCECC_CMD_PROFILE_SET (admin, do)
 * ----------------------------------
 *
 *    request: device or none, and
 *        ROCECC_A_PROFILE: NLA_U32               (required, enum
 *                                                rocecc_profile)
 *    reply:   none (the netlink ACK)
 *
 * ROCECC_CMD_FLOW_GET (dump only)
 * -------------------------------
 *
 *    request: device or none (none: the flows of every device)
 *
 * One message per flow (NLM_F_MULTI):
 *
 *    ROCECC_A_DEV_IFINDEX: NLA_U32
 *    ROCECC_A_FLOW: NLA_NESTED
 *        ROCECC_FLOW_A_RADDR: NLA_BINARY, len 16
 *        ROCECC_FLOW_A_RQPN: NLA_U32
 *        [ROCECC_FLOW_A_LQPN]: NLA_U32           (once learnt)
 *        ROCECC_FLOW_A_RC: NLA_U32
 *        ROCECC_FLOW_A_RT: NLA_U32
 *        ROCECC_FLOW_A_ALPHA: NLA_U32
 *        ROCECC_FLOW_A_BYTES: NLA_U64
 *        ROCECC_FLOW_A_CNP_HANDLED: NLA_U64
 *        ROCECC_FLOW_A_CNP_IGNORED: NLA_U64
 *        ROCECC_FLOW_A_CNP_SENT: NLA_U64
 *        ROCECC_FLOW_A_CE_SEEN: NLA_U64
 *        ROCECC_FLOW_A_LAST_CNP_RX: NLA_U64
 *        ROCECC_FLOW_A_LAST_CNP_TX: NLA_U64
 *        ROCECC_FLOW_A_LAST_CUT: NLA_U64
 *        ROCECC_FLOW_A_LAST_INCREASE: NLA_U64
 *        ROCECC_FLOW_A_PACING_BUDGET: NLA_U32
 *        ROCECC_FLOW_A_PACKETS: NLA_U64
 *        ROCECC_FLOW_A_PACING_DELAYED: NLA_U64
 *        ROCECC_FLOW_A_PACING_CAPPED: NLA_U64
 *        ROCECC_FLOW_A_PACING_BACKLOG: NLA_U64
 *        [ROCECC_FLOW_A_QP_TIMEOUT]: NLA_U32     (if BUDGET_KNOWN is 1)
 *        ROCECC_FLOW_A_LIMITED: NLA_U8
 *        ROCECC_FLOW_A_CNP_SUPPRESSED: NLA_U64
 *        [ROCECC_FLOW_A_LADDR]: NLA_BINARY, len 16   (once learnt)
 *        ROCECC_FLOW_A_LAST_ACTIVE: NLA_U64
 *        ROCECC_FLOW_A_INC_TIMER: NLA_U64
 *        ROCECC_FLOW_A_INC_BYTE: NLA_U64
 *        ROCECC_FLOW_A_CUTS: NLA_U64
 *        ROCECC_FLOW_A_CNP_TX_ERRORS: NLA_U64
 *        ROCECC_FLOW_A_UNPACED_PACKETS: NLA_U64
 *        ROCECC_FLOW_A_BUDGET_KNOWN: NLA_U8
 *        ROCECC_FLOW_A_STATE_NS: NLA_U64
 *        ROCECC_FLOW_A_PACING_ACKREQ: NLA_U64
 *
 * Flows come and go while a dump runs; each message is a consistent
 * snapshot of one flow.
 *
 * Events (multicast group "events", unsolicited, sequence number 0)
 * -----------------------------------------------------------------
 *
 * ROCECC_CMD_DEV_ATTACHED, ROCECC_CMD_DEV_DETACHED, ROCECC_CMD_DEV_GONE:
 *
 *    ROCECC_A_DEV_IFINDEX: NLA_U32
 *    ROCECC_A_DEV_NAME: NLA_NUL_STRING
 *
 * ROCECC_CMD_PARAM_CHANGED:
 *
 *    ROCECC_A_DEV_IFINDEX: NLA_U32               (0: the default set)
 *    [ROCECC_A_DEV_NAME]: NLA_NUL_STRING         (devices only)
 *    ROCECC_A_PARAMS: NLA_NESTED
 *        ROCECC_PARAM_*: NLA_U32                 (only those that changed,
 *                                                with their new values)
 *
 * ROCECC_CMD_FLOW_CREATED (the key only: LQPN and LADDR are learnt from
 * the flow's packets after it is created):
 *
 *    ROCECC_A_DEV_IFINDEX: NLA_U32
 *    ROCECC_A_FLOW: NLA_NESTED
 *        ROCECC_FLOW_A_RADDR: NLA_BINARY, len 16
 *        ROCECC_FLOW_A_RQPN: NLA_U32
 *
 * ROCECC_CMD_FLOW_EXPIRED: as one message of a FLOW_GET dump, with the
 * flow's final state and counters (a packet in flight as it expires may be
 * missing).
 */

#endif /* _UAPI_LINUX_ROCECC_H */
