// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of parsing and naming (daemon/lib/parse.c): the rocecc CLI's
 * arguments, rocecc.ko's names, roceccd's times, ports and log levels.
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
	tap_is_str(cli_profile_name(ROCECC_PROFILE_PAPER), "paper",
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
	tap_is_str(cli_stat_name(ROCECC_STAT_NP_CNP_SENT), "np_cnp_sent",
		   "mlx5 counter name");
}

static void test_strip(void)
{
	tap_is_str(cli_strip_prefix("rocecc: no device"), "no device",
		   "module prefix stripped");
	tap_is_str(cli_strip_prefix("rp_gd out of range"), "rp_gd out of range",
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

static void test_values(void)
{
	static const struct {
		const char *s;
		int err;
		uint64_t ms;
	} t[] = {
		{ "1", 0, 1000 }, { "0.25", 0, 250 }, { "250ms", 0, 250 },
		{ "2s", 0, 2000 }, { "0", -ERANGE, 0 }, { "0.0001", -ERANGE, 0 },
		{ "86401", -ERANGE, 0 }, { "", -EINVAL, 0 }, { "x", -EINVAL, 0 },
		{ "1m", -EINVAL, 0 }, { "-1", -EINVAL, 0 }, { " 1", -EINVAL, 0 },
		{ "nan", -EINVAL, 0 }, { "inf", -EINVAL, 0 }, { "0x10", -EINVAL, 0 },
	};
	uint16_t port;
	uint64_t ms;
	unsigned int i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int err;

		ms = 0;
		err = rd_parse_ms(t[i].s, &ms);
		tap_ok(err == t[i].err && (err || ms == t[i].ms),
		       "time '%s': err %d ms %llu", t[i].s, err,
		       (unsigned long long)ms);
	}
	tap_ok(!rd_parse_port("9468", &port) && port == 9468, "port 9468");
	tap_ok(rd_parse_port("0", &port) == -ERANGE, "port 0 out of range");
	tap_ok(rd_parse_port("65536", &port) == -ERANGE, "port 65536 out of range");
	tap_ok(rd_parse_port("80x", &port) == -EINVAL, "port 80x not a number");
	tap_ok(rd_parse_port("-1", &port) == -EINVAL, "port -1 not a number");
	tap_ok(rd_log_level("debug") == 3 && rd_log_level("ERROR") == 0 &&
	       rd_log_level("loud") == -1, "log levels");
	tap_ok(rd_valid_per_octave(4) && !rd_valid_per_octave(3) &&
	       !rd_valid_per_octave(32), "buckets per octave");
}

int main(void)
{
	test_parse_u32();
	test_matches();
	test_profiles();
	test_stats();
	test_strip();
	test_scope();
	test_values();
	return tap_done();
}
