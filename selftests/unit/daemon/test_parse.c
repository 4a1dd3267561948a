// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the rocecc CLI's pure logic (daemon/lib/parse.c).
 */
#include <errno.h>
#include <string.h>

#include <uapi/linux/rocecc.h>

#include "lib/parse.h"
#include "tap.h"

static void test_parse_u32(void)
{
	static const struct {
		const char *s;
		int err;
		uint32_t v;
	} cases[] = {
		{ "0", 0, 0 },
		{ "11", 0, 11 },
		{ "4294967295", 0, 4294967295U },
		{ "0x10", 0, 16 },
		{ "0XfF", 0, 255 },
		{ "4294967296", -ERANGE, 0 },
		{ "0x100000000", -ERANGE, 0 },
		{ "99999999999999999999999", -ERANGE, 0 },
		{ "-1", -ERANGE, 0 },
		{ "-0", -ERANGE, 0 },
		{ "", -EINVAL, 0 },
		{ "abc", -EINVAL, 0 },
		{ "12abc", -EINVAL, 0 },
		{ " 12", -EINVAL, 0 },
		{ "12 ", -EINVAL, 0 },
		{ "+5", -EINVAL, 0 },
		{ "0x", -EINVAL, 0 },
		{ "-x", -EINVAL, 0 },
		{ "-1x", -EINVAL, 0 },
		{ "1.5", -EINVAL, 0 },
	};
	unsigned int i;
	uint32_t v;
	int err;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		v = 0;
		err = cli_parse_u32(cases[i].s, &v);
		tap_ok(err == cases[i].err && (err || v == cases[i].v),
		       "cli_parse_u32(\"%s\") = %d (%u)", cases[i].s, err, v);
	}
}

static void test_matches(void)
{
	tap_ok(cli_matches("s", "show"), "'s' matches show");
	tap_ok(cli_matches("show", "show"), "'show' matches show");
	tap_ok(!cli_matches("shows", "show"), "'shows' does not match show");
	tap_ok(!cli_matches("", "show"), "'' matches nothing");
	tap_ok(!cli_matches("x", "show"), "'x' does not match show");
}

static void test_profiles(void)
{
	tap_eq(cli_profile_by_name("mlx5"), ROCECC_PROFILE_MLX5, "mlx5");
	tap_eq(cli_profile_by_name("paper"), ROCECC_PROFILE_PAPER, "paper");
	tap_ok(cli_profile_by_name("custom") == -1, "custom is no profile");
	tap_ok(cli_profile_by_name("MLX5") == -1, "names are case-sensitive");
	tap_ok(!strcmp(cli_profile_name(ROCECC_PROFILE_PAPER), "paper"),
	       "profile name");
	tap_ok(!cli_profile_name(__ROCECC_PROFILE_MAX) && !cli_profile_name(-1),
	       "no name out of range");
}

static void test_stats(void)
{
	unsigned int t;
	int named = 0;

	for (t = ROCECC_STAT_PAD + 1; t <= ROCECC_STAT_MAX; t++)
		named += cli_stat_name(t) != NULL;
	tap_eq(named, ROCECC_STAT_MAX - ROCECC_STAT_PAD, "every counter has a name");
	tap_ok(!cli_stat_name(ROCECC_STAT_PAD) && !cli_stat_name(ROCECC_STAT_MAX + 1),
	       "no name for pad or beyond");
	tap_ok(!strcmp(cli_stat_name(ROCECC_STAT_NP_CNP_SENT), "np_cnp_sent"),
	       "mlx5 counter name");
}

static void test_strip(void)
{
	tap_ok(!strcmp(cli_strip_prefix("rocecc: no device"), "no device"),
	       "module prefix stripped");
	tap_ok(!strcmp(cli_strip_prefix("rp_gd out of range"), "rp_gd out of range"),
	       "other messages kept");
}

static void test_scope(void)
{
	char *a1[] = { "dev", "veth0", "rp_gd", "11" };
	char *a2[] = { "default", "rp_gd" };
	char *a3[] = { "rp_gd", "11" };
	char *a4[] = { "dev" };
	struct cli_scope sc;
	char **argv;
	int argc;

	argc = 4;
	argv = a1;
	tap_ok(!cli_parse_scope(&argc, &argv, &sc) && sc.given && sc.dev &&
	       !strcmp(sc.dev, "veth0") && argc == 2 && argv == a1 + 2,
	       "dev DEV consumed");
	argc = 2;
	argv = a2;
	tap_ok(!cli_parse_scope(&argc, &argv, &sc) && sc.given && !sc.dev &&
	       argc == 1, "default consumed");
	argc = 2;
	argv = a3;
	tap_ok(!cli_parse_scope(&argc, &argv, &sc) && !sc.given && !sc.dev &&
	       argc == 2, "no scope: default set, nothing consumed");
	argc = 1;
	argv = a4;
	tap_ok(cli_parse_scope(&argc, &argv, &sc) == -1, "dev without name");
}

int main(void)
{
	test_parse_u32();
	test_matches();
	test_profiles();
	test_stats();
	test_strip();
	test_scope();
	return tap_done();
}
