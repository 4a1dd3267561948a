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
 *	(selftests/unit/test_dcqcn.c measures both). 0 disables the counter.
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

	__ROCECC_PARAM_MAX,
	ROCECC_PARAM_MAX = __ROCECC_PARAM_MAX - 1
};

/* Parameter profiles: a set of defaults applied as a whole. */
enum rocecc_profile {
	ROCECC_PROFILE_MLX5,	/* NVIDIA firmware defaults (the default) */
	ROCECC_PROFILE_PAPER,	/* SIGCOMM'15 DCQCN paper values */

	__ROCECC_PROFILE_MAX
};

#endif /* _UAPI_LINUX_ROCECC_H */
