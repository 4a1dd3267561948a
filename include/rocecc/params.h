/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * rocecc: the DCQCN parameter table (names, units, ranges, profiles).
 *
 * One row per enum rocecc_param (include/uapi/linux/rocecc.h, which decides
 * the units). Names are the mlx5 debugfs names (cc_params/rp_ai_rate, ...),
 * so the sysctl, the netlink attributes and the CLI all spell a knob the way
 * an operator of ConnectX hardware already does.
 *
 * Two profiles:
 *  ROCECC_PROFILE_MLX5   NVIDIA firmware defaults (what operators run).
 *  ROCECC_PROFILE_PAPER  the SIGCOMM'15 DCQCN paper: T = 55 us,
 *			  B = 10 MB (156250 units of 64 bytes), F = 5,
 *			  R_AI = 40 Mb/s, R_HAI = 200 Mb/s (the authors'
 *			  simulator), g = 1/256 (G = 1020), K = 55 us,
 *			  CNP interval 50 us, target clamped on every CNP;
 *			  everything else as mlx5.
 *
 * Errors are returned as -ROCECC_EINVAL, which equals -EINVAL on Linux; the
 * header does not include errno.h so that it builds in every context.
 */
#ifndef _ROCECC_PARAMS_H
#define _ROCECC_PARAMS_H

#include <rocecc/compat.h>
#include <uapi/linux/rocecc.h>

#ifndef NULL
#define NULL ((void *)0)
#endif

/* Same value as EINVAL on Linux; functions here return -ROCECC_EINVAL. */
#define ROCECC_EINVAL		22

/* The largest rate any parameter may hold, in Mb/s (4 Tb/s). */
#define ROCECC_RATE_MAX_MBPS	4000000U

/* One row of the table. */
struct rocecc_param_info {
	const char *name;	/* mlx5 debugfs name, e.g. "rp_ai_rate" */
	const char *unit;	/* "bool", "us", "64B", "Mb/s", ... */
	__u32 min;		/* smallest valid value */
	__u32 max;		/* largest valid value */
	__u32 def[__ROCECC_PROFILE_MAX];	/* default per profile */
};

/* A full parameter set, indexed by enum rocecc_param; v[0] is unused. */
struct rocecc_params {
	__u32 v[ROCECC_PARAM_MAX + 1];
};

/*
 * The table. It lives inside a function so that a translation unit that
 * includes this header without using it carries no unused data.
 * Returns NULL for ROCECC_PARAM_UNSPEC and out-of-range ids.
 */
static inline const struct rocecc_param_info *
rocecc_param_info(unsigned int id)
{
	static const struct rocecc_param_info tbl[ROCECC_PARAM_MAX + 1] = {
		[ROCECC_PARAM_RP_CLAMP_TGT_RATE] = {
			"rp_clamp_tgt_rate", "bool", 0, 1, { 0, 1 } },
		[ROCECC_PARAM_RP_CLAMP_TGT_RATE_ATI] = {
			"rp_clamp_tgt_rate_ati", "bool", 0, 1, { 1, 1 } },
		[ROCECC_PARAM_RP_TIME_RESET] = {
			"rp_time_reset", "us", 1, 10000000, { 300, 55 } },
		[ROCECC_PARAM_RP_BYTE_RESET] = {
			"rp_byte_reset", "64B", 0, 0xffffffffU,
			{ 32767, 156250 } },
		[ROCECC_PARAM_RP_THRESHOLD] = {
			"rp_threshold", "count", 1, 31, { 1, 5 } },
		[ROCECC_PARAM_RP_MAX_RATE] = {
			"rp_max_rate", "Mb/s", 0, ROCECC_RATE_MAX_MBPS,
			{ 0, 0 } },
		[ROCECC_PARAM_RP_AI_RATE] = {
			"rp_ai_rate", "Mb/s", 0, ROCECC_RATE_MAX_MBPS,
			{ 5, 40 } },
		[ROCECC_PARAM_RP_HAI_RATE] = {
			"rp_hai_rate", "Mb/s", 0, ROCECC_RATE_MAX_MBPS,
			{ 50, 200 } },
		[ROCECC_PARAM_RP_MIN_DEC_FAC] = {
			"rp_min_dec_fac", "percent", 0, 100, { 50, 50 } },
		[ROCECC_PARAM_RP_MIN_RATE] = {
			"rp_min_rate", "Mb/s", 1, ROCECC_RATE_MAX_MBPS,
			{ 1, 1 } },
		[ROCECC_PARAM_RP_RATE_TO_SET_ON_FIRST_CNP] = {
			"rp_rate_to_set_on_first_cnp", "Mb/s", 0,
			ROCECC_RATE_MAX_MBPS, { 0, 0 } },
		[ROCECC_PARAM_RP_DCE_TCP_G] = {
			"rp_dce_tcp_g", "1/1024", 0, 1023, { 1019, 1020 } },
		[ROCECC_PARAM_RP_DCE_TCP_RTT] = {
			"rp_dce_tcp_rtt", "us", 1, 131071, { 1, 55 } },
		[ROCECC_PARAM_RP_RATE_REDUCE_MONITOR_PERIOD] = {
			"rp_rate_reduce_monitor_period", "us", 0, 10000000,
			{ 4, 4 } },
		[ROCECC_PARAM_RP_INITIAL_ALPHA_VALUE] = {
			"rp_initial_alpha_value", "1/1024", 0, 1023,
			{ 1023, 1023 } },
		[ROCECC_PARAM_RP_GD] = {
			"rp_gd", "log2", 1, 15, { 11, 11 } },
		[ROCECC_PARAM_NP_MIN_TIME_BETWEEN_CNPS] = {
			"np_min_time_between_cnps", "us", 0, 10000000,
			{ 4, 50 } },
		[ROCECC_PARAM_NP_CNP_DSCP] = {
			"np_cnp_dscp", "dscp", 0, 63, { 48, 48 } },
		[ROCECC_PARAM_NP_CNP_PRIO] = {
			"np_cnp_prio", "pcp", 0, 7, { 6, 6 } },
		[ROCECC_PARAM_RP_RATE_DIVISOR] = {
			"rp_rate_divisor", "1/x", 1, 1000000, { 1, 1 } },
	};

	if (id == ROCECC_PARAM_UNSPEC || id > ROCECC_PARAM_MAX)
		return NULL;
	return &tbl[id];
}

/* 0 if @value is valid for parameter @id, else -ROCECC_EINVAL. */
static inline int rocecc_param_validate(unsigned int id, __u32 value)
{
	const struct rocecc_param_info *pi = rocecc_param_info(id);

	if (!pi || value < pi->min || value > pi->max)
		return -ROCECC_EINVAL;
	return 0;
}

/* Fill @p with the defaults of @profile; 0, or -ROCECC_EINVAL. */
static inline int rocecc_params_load(struct rocecc_params *p,
				     unsigned int profile)
{
	unsigned int id;

	if (profile >= __ROCECC_PROFILE_MAX)
		return -ROCECC_EINVAL;
	p->v[ROCECC_PARAM_UNSPEC] = 0;
	for (id = 1; id <= ROCECC_PARAM_MAX; id++)
		p->v[id] = rocecc_param_info(id)->def[profile];
	return 0;
}

/* Set one parameter after validating it; 0, or -ROCECC_EINVAL. */
static inline int rocecc_params_set(struct rocecc_params *p, unsigned int id,
				    __u32 value)
{
	int err = rocecc_param_validate(id, value);

	if (err)
		return err;
	p->v[id] = value;
	return 0;
}

/* 0 if every parameter of @p is within its range, else -ROCECC_EINVAL. */
static inline int rocecc_params_validate(const struct rocecc_params *p)
{
	unsigned int id;

	for (id = 1; id <= ROCECC_PARAM_MAX; id++)
		if (rocecc_param_validate(id, p->v[id]))
			return -ROCECC_EINVAL;
	return 0;
}

/*
 * Look a parameter up by its mlx5 name (exact, case-sensitive match).
 * Returns the enum rocecc_param value, or ROCECC_PARAM_UNSPEC (0) if no
 * parameter has that name. No libc: the comparison is open-coded.
 */
static inline unsigned int rocecc_param_by_name(const char *name)
{
	unsigned int id, i;
	const char *n;

	if (!name)
		return ROCECC_PARAM_UNSPEC;
	for (id = 1; id <= ROCECC_PARAM_MAX; id++) {
		n = rocecc_param_info(id)->name;
		for (i = 0; n[i] && n[i] == name[i]; i++)
			;
		if (!n[i] && !name[i])
			return id;
	}
	return ROCECC_PARAM_UNSPEC;
}

#endif /* _ROCECC_PARAMS_H */
