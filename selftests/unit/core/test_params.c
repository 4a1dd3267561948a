// SPDX-License-Identifier: GPL-2.0
/*
 * include/rocecc/params.h: profile defaults, ranges, name lookup.
 *
 * The expected values below are typed from docs/dcqcn.md §2.2 (mlx5
 * firmware defaults and the SIGCOMM'15 values) and from the
 * ranges the project decided, not taken from params.h.
 */
#include <stdint.h>
#include <string.h>
#include <rocecc/params.h>
#include "tap.h"

struct want {
	const char *name;
	uint32_t mlx5, paper;
	uint32_t min, max;
};

static const struct want want[] = {
	/* name                          mlx5   paper   min  max */
	{ "rp_clamp_tgt_rate",             0,      1,   0, 1 },
	{ "rp_clamp_tgt_rate_ati",         1,      1,   0, 1 },
	{ "rp_time_reset",               300,     55,   1, 10000000 },
	{ "rp_byte_reset",             32767, 156250,   0, 0xffffffffu },
	{ "rp_threshold",                  1,      5,   1, 31 },
	{ "rp_max_rate",                   0,      0,   0, 4000000 },
	{ "rp_ai_rate",                    5,     40,   0, 4000000 },
	{ "rp_hai_rate",                  50,    200,   0, 4000000 },
	{ "rp_min_dec_fac",               50,     50,   0, 100 },
	{ "rp_min_rate",                   1,      1,   1, 4000000 },
	{ "rp_rate_to_set_on_first_cnp",   0,      0,   0, 4000000 },
	{ "rp_dce_tcp_g",               1019,   1020,   0, 1023 },
	{ "rp_dce_tcp_rtt",                1,     55,   1, 131071 },
	{ "rp_rate_reduce_monitor_period", 4,      4,   0, 10000000 },
	{ "rp_initial_alpha_value",     1023,   1023,   0, 1023 },
	{ "rp_gd",                        11,     11,   1, 15 },
	{ "np_min_time_between_cnps",      4,     50,   0, 10000000 },
	{ "np_cnp_dscp",                  48,     48,   0, 63 },
	{ "np_cnp_prio",                   6,      6,   0, 7 },
	{ "rp_rate_divisor",               1,      1,   1, 1000000 },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NWANT ARRAY_SIZE(want)

int main(void)
{
	struct rocecc_params mlx5, paper, p;
	const struct rocecc_param_info *pi;
	unsigned int i, id, seen[ROCECC_PARAM_MAX + 1] = { 0 };
	static const char *const bad[] = {
		"", "rp_ai", "rp_ai_rate_", "RP_AI_RATE", "rp_ai_ratex",
		"np_cnp_prio_mode", "ai_rate", "rp_byte_reset ",
	};

	tap_eq(NWANT, ROCECC_PARAM_MAX, "the table covers every parameter");
	tap_eq(rocecc_params_load(&mlx5, ROCECC_PROFILE_MLX5), 0,
	       "load the mlx5 profile");
	tap_eq(rocecc_params_load(&paper, ROCECC_PROFILE_PAPER), 0,
	       "load the paper profile");
	tap_ok(rocecc_params_load(&p, __ROCECC_PROFILE_MAX) < 0,
	       "an unknown profile is rejected");
	tap_eq(rocecc_params_validate(&mlx5), 0, "mlx5 profile is valid");
	tap_eq(rocecc_params_validate(&paper), 0, "paper profile is valid");

	for (i = 0; i < NWANT; i++) {
		const struct want *w = &want[i];

		id = rocecc_param_by_name(w->name);
		/* (gcc infers w->name may be NULL from the lookup's check) */
		if (!tap_ok(id != ROCECC_PARAM_UNSPEC, "%s: found by name",
			    w->name ? w->name : "(null)"))
			continue;
		seen[id]++;
		pi = rocecc_param_info(id);
		tap_ok(pi && !strcmp(pi->name, w->name) && pi->unit &&
		       pi->unit[0], "%s: name and unit (%s)", w->name,
		       pi ? pi->unit : "?");
		tap_eq(mlx5.v[id], w->mlx5, "%s: mlx5 default %u", w->name,
		       w->mlx5);
		tap_eq(paper.v[id], w->paper, "%s: paper default %u", w->name,
		       w->paper);
		tap_eq(pi->min, w->min, "%s: min %u", w->name, w->min);
		tap_eq(pi->max, w->max, "%s: max %u", w->name, w->max);
		tap_eq(rocecc_param_validate(id, w->min), 0,
		       "%s: accepts min %u", w->name, w->min);
		tap_eq(rocecc_param_validate(id, w->max), 0,
		       "%s: accepts max %u", w->name, w->max);
		if (w->min > 0)
			tap_eq(rocecc_param_validate(id, w->min - 1),
			       -ROCECC_EINVAL, "%s: rejects min-1 %u",
			       w->name, w->min - 1);
		if (w->max < 0xffffffffu)
			tap_eq(rocecc_param_validate(id, w->max + 1),
			       -ROCECC_EINVAL, "%s: rejects max+1 %u",
			       w->name, w->max + 1);
		tap_eq(rocecc_param_validate(id, w->mlx5), 0,
		       "%s: mlx5 default in range", w->name);
		tap_eq(rocecc_param_validate(id, w->paper), 0,
		       "%s: paper default in range", w->name);

		/* set: valid values stick, invalid ones change nothing */
		p = mlx5;
		tap_eq(rocecc_params_set(&p, id, w->max), 0,
		       "%s: set max", w->name);
		tap_eq(p.v[id], w->max, "%s: max stored", w->name);
		if (w->max < 0xffffffffu) {
			tap_ok(rocecc_params_set(&p, id, w->max + 1) < 0 &&
			       p.v[id] == w->max,
			       "%s: set max+1 fails, value kept", w->name);
		}
	}
	for (id = 1; id <= ROCECC_PARAM_MAX; id++)
		tap_eq(seen[id], 1, "enum %u has exactly one name (%s)", id,
		       rocecc_param_info(id)->name);

	/* the paper's B is 10 MB in 64-byte units */
	tap_eq((uint64_t)paper.v[ROCECC_PARAM_RP_BYTE_RESET] * 64, 10000000,
	       "paper B = 10 MB");
	/* paper g = 1/256 per tick: (1024 - G) / 1024 */
	tap_eq(1024 - paper.v[ROCECC_PARAM_RP_DCE_TCP_G], 1024 / 256,
	       "paper g = 1/256");

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		tap_eq(rocecc_param_by_name(bad[i]), ROCECC_PARAM_UNSPEC,
		       "unknown name '%s' rejected", bad[i]);
	tap_eq(rocecc_param_by_name(NULL), ROCECC_PARAM_UNSPEC,
	       "NULL name rejected");
	tap_ok(!rocecc_param_info(ROCECC_PARAM_UNSPEC),
	       "no info for UNSPEC");
	tap_ok(!rocecc_param_info(ROCECC_PARAM_MAX + 1),
	       "no info past the last parameter");
	tap_eq(rocecc_param_validate(ROCECC_PARAM_UNSPEC, 0), -ROCECC_EINVAL,
	       "UNSPEC is not a parameter");
	tap_eq(rocecc_param_validate(ROCECC_PARAM_MAX + 1, 0), -ROCECC_EINVAL,
	       "id past the end is not a parameter");
	tap_ok(rocecc_params_set(&p, ROCECC_PARAM_MAX + 1, 0) < 0,
	       "set of an unknown id fails");

	return tap_done();
}
