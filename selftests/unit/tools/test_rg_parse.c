// SPDX-License-Identifier: GPL-2.0
/* rocegen's option value parsers: sizes, rates, bounded integers. */
#include <stdint.h>

#include "tap.h"
#include "rg_lib.h"

static void size_ok(const char *s, uint64_t want)
{
	uint64_t v = 0;
	int r = rg_parse_size(s, &v);

	if (tap_ok(r == 0 && v == want, "size '%s' = %llu", s,
		   (unsigned long long)want) == 0)
		tap_diag("r=%d v=%llu", r, (unsigned long long)v);
}

static void size_bad(const char *s)
{
	uint64_t v;

	tap_ok(rg_parse_size(s, &v) == -1, "size '%s' rejected", s);
}

static void rate_ok(const char *s, uint64_t want)
{
	uint64_t v = 0;
	int r = rg_parse_rate(s, &v);

	if (tap_ok(r == 0 && v == want, "rate '%s' = %llu bit/s", s,
		   (unsigned long long)want) == 0)
		tap_diag("r=%d v=%llu", r, (unsigned long long)v);
}

static void rate_bad(const char *s)
{
	uint64_t v;

	tap_ok(rg_parse_rate(s, &v) == -1, "rate '%s' rejected", s);
}

int main(void)
{
	uint64_t v;

	size_ok("0", 0);
	size_ok("1", 1);
	size_ok("16384", 16384);
	size_ok("16K", 16384);
	size_ok("16k", 16384);
	size_ok("16KB", 16384);
	size_ok("16KiB", 16384);
	size_ok("1M", 1048576);
	size_ok("2m", 2097152);
	size_ok("1G", 1073741824);
	size_ok("100B", 100);
	size_ok("18446744073709551615", UINT64_MAX);
	size_bad("");
	size_bad("12x");
	size_bad("K");
	size_bad("-1");
	size_bad("1.5K");
	size_bad(" 1");
	size_bad("1 ");
	size_bad("16KK");
	size_bad("18446744073709551616");
	size_bad("17179869184G");	/* 2^34 G overflows */
	size_bad(NULL);

	rate_ok("0", 0);
	rate_ok("20", 20000000);
	rate_ok("0.5", 500000);
	rate_ok("2.25", 2250000);
	rate_ok("20M", 20000000);
	rate_ok("20mbit", 20000000);
	rate_ok("500k", 500000);
	rate_ok("500kbit", 500000);
	rate_ok("1.5G", 1500000000);
	rate_ok("100G", 100000000000ull);
	rate_ok("0.000001", 1);
	rate_ok("1.123456789", 1123456);	/* sub-bit/s truncated */
	rate_bad("");
	rate_bad("fast");
	rate_bad("-5");
	rate_bad("1.");
	rate_bad(".5");
	rate_bad("1.0000000001");		/* > 9 fraction digits */
	rate_bad("20x");
	rate_bad("20Mbps");
	rate_bad("99999999999999999999");
	rate_bad("18446744073709551615G");

	{
		static const struct { const char *s; uint64_t ns; } ok[] = {
			{ "10", 10000000000ull }, { "0.5", 500000000 },
			{ "1.5s", 1500000000 }, { "250ms", 250000000 },
			{ "100us", 100000 }, { "0.000000001", 1 },
			{ "0", 0 },
		};
		static const char *const bad[] = {
			"", "s", "1.5m", "ten", "-1", "1e3", "1.", "10 s",
			"99999999999",
		};
		unsigned int i;

		for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
			tap_ok(rg_parse_seconds(ok[i].s, &v) == 0 &&
			       v == ok[i].ns, "seconds '%s' = %llu ns",
			       ok[i].s, (unsigned long long)ok[i].ns);
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			tap_ok(rg_parse_seconds(bad[i], &v) == -1,
			       "seconds '%s' rejected", bad[i]);
	}

	tap_ok(rg_parse_uint("7", 0, 7, &v) == 0 && v == 7, "uint 7 in [0,7]");
	tap_ok(rg_parse_uint("8", 0, 7, &v) == -2, "uint 8 out of [0,7]");
	tap_ok(rg_parse_uint("0", 1, 7, &v) == -2, "uint 0 out of [1,7]");
	tap_ok(rg_parse_uint("7a", 0, 7, &v) == -1, "uint '7a' not a number");
	tap_ok(rg_parse_uint("", 0, 7, &v) == -1, "uint '' not a number");
	tap_ok(rg_parse_uint("-1", 0, 7, &v) == -1, "uint '-1' not a number");
	return tap_done();
}
