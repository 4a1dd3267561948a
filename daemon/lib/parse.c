// SPDX-License-Identifier: GPL-2.0
/*
 * Parsing and naming for the rocecc CLI and roceccd. See parse.h.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <uapi/linux/rocecc.h>

#include "parse.h"

int cli_parse_u32(const char *s, uint32_t *out)
{
	unsigned long long v;
	const char *p = s;
	char *end;
	int base = 10;

	if (!s || !*s)
		return -EINVAL;
	if (*p == '-') {
		/* Only a number is "out of range"; "-x" is no number. */
		if (!isdigit((unsigned char)p[1]))
			return -EINVAL;
		strtoull(p + 1, &end, 10);
		return *end ? -EINVAL : -ERANGE;
	}
	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
		if (!isxdigit((unsigned char)*p))
			return -EINVAL;
	}
	errno = 0;
	v = strtoull(p, &end, base);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v > 0xffffffffULL)
		return -ERANGE;
	*out = (uint32_t)v;
	return 0;
}

bool cli_matches(const char *arg, const char *word)
{
	size_t n = strlen(arg);

	return n && n <= strlen(word) && !strncmp(arg, word, n);
}

static const char *const cli_profiles[__ROCECC_PROFILE_MAX] = {
	[ROCECC_PROFILE_MLX5] = "mlx5",
	[ROCECC_PROFILE_PAPER] = "paper",
};

int cli_profile_by_name(const char *name)
{
	int i;

	for (i = 0; i < __ROCECC_PROFILE_MAX; i++)
		if (cli_profiles[i] && !strcmp(name, cli_profiles[i]))
			return i;
	return -1;
}

const char *cli_profile_name(int profile)
{
	if (profile < 0 || profile >= __ROCECC_PROFILE_MAX)
		return NULL;
	return cli_profiles[profile];
}

static const char *const cli_stats[__ROCECC_STAT_MAX] = {
	[ROCECC_STAT_NP_CNP_SENT] = "np_cnp_sent",
	[ROCECC_STAT_NP_ECN_MARKED_ROCE_PACKETS] = "np_ecn_marked_roce_packets",
	[ROCECC_STAT_RP_CNP_HANDLED] = "rp_cnp_handled",
	[ROCECC_STAT_RP_CNP_IGNORED] = "rp_cnp_ignored",
	[ROCECC_STAT_FLOWS] = "flows",
	[ROCECC_STAT_FLOW_TABLE_FULL] = "flow_table_full",
	[ROCECC_STAT_PACING_DELAYED] = "pacing_delayed",
	[ROCECC_STAT_RESOLVER_MISS] = "resolver_miss",
	[ROCECC_STAT_MALFORMED] = "malformed",
	[ROCECC_STAT_PACING_CAPPED] = "pacing_capped",
	[ROCECC_STAT_PACING_ACKREQ] = "pacing_ackreq",
	[ROCECC_STAT_ECT_MARKED] = "ect_marked",
	[ROCECC_STAT_RP_CNP_SPOOFED] = "rp_cnp_spoofed",
	[ROCECC_STAT_QP_CACHE_FULL] = "qp_cache_full",
};

const char *cli_stat_name(unsigned int stat)
{
	return stat < __ROCECC_STAT_MAX ? cli_stats[stat] : NULL;
}

const char *cli_strip_prefix(const char *msg)
{
	static const char pfx[] = "rocecc: ";

	if (!strncmp(msg, pfx, sizeof(pfx) - 1))
		return msg + sizeof(pfx) - 1;
	return msg;
}

int cli_parse_scope(int *argc, char ***argv, struct cli_scope *sc)
{
	sc->dev = NULL;
	sc->given = false;
	if (*argc < 1)
		return 0;
	if (!strcmp((*argv)[0], "dev")) {
		if (*argc < 2)
			return -1;
		sc->dev = (*argv)[1];
		sc->given = true;
		*argc -= 2;
		*argv += 2;
	} else if (!strcmp((*argv)[0], "default")) {
		sc->given = true;
		*argc -= 1;
		*argv += 1;
	}
	return 0;
}

int rd_parse_ms(const char *s, uint64_t *ms)
{
	double v, scale = 1000.0;
	char *end;

	if (!s || !*s || isspace((unsigned char)*s) || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno)
		return -EINVAL;
	if (!strcmp(end, "ms"))
		scale = 1.0;
	else if (strcmp(end, "s") && *end)
		return -EINVAL;
	if (strpbrk(s, "xXpPnNiI"))	/* hex floats, nan, inf */
		return -EINVAL;
	v *= scale;
	if (v < 1.0 || v > 86400000.0)
		return -ERANGE;
	*ms = (uint64_t)(v + 0.5);
	return 0;
}

int rd_parse_port(const char *s, uint16_t *port)
{
	unsigned long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno || v < 1 || v > 65535)
		return -ERANGE;
	*port = (uint16_t)v;
	return 0;
}

int rd_log_level(const char *s)
{
	static const char *const names[] = { "error", "warn", "info", "debug" };
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(s, names[i]))
			return (int)i;
	return -1;
}

bool rd_valid_per_octave(unsigned int p)
{
	return p == 1 || p == 2 || p == 4 || p == 8 || p == 16;
}
