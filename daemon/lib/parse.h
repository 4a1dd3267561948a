/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parsing and naming, pure logic (no netlink, no output): the rocecc CLI's
 * arguments, rocecc.ko's profile and counter names and messages, and
 * roceccd's values (times, ports, log levels). Unit-tested by
 * selftests/unit/daemon/test_parse.c.
 */
#ifndef _ROCECC_LIB_PARSE_H
#define _ROCECC_LIB_PARSE_H

#include <stdbool.h>
#include <stdint.h>

/* Exit codes: success, failure (kernel or system), bad command line. */
#define CLI_EXIT_OK	0
#define CLI_EXIT_FAIL	1
#define CLI_EXIT_USAGE	2

/*
 * Parse an unsigned 32-bit value: decimal, or hexadecimal with 0x (as the
 * mlx5 debugfs files take them). 0, -EINVAL if @s is not such a number,
 * -ERANGE if it is negative or above 4294967295.
 */
int cli_parse_u32(const char *s, uint32_t *out);

/* iproute2's matches(): @arg is a non-empty prefix of @word. */
bool cli_matches(const char *arg, const char *word);

/* Profile by name ("mlx5", "paper"), or -1; and the name of a profile. */
int cli_profile_by_name(const char *name);
const char *cli_profile_name(int profile);

/* Name of an enum rocecc_stat counter ("np_cnp_sent", ...), or NULL. */
const char *cli_stat_name(unsigned int stat);

/* A kernel extack message without the "rocecc: " module prefix. */
const char *cli_strip_prefix(const char *msg);

/*
 * Which parameter set a "param" command addresses. Consumes a leading
 * "dev DEV" or "default" from *argc and *argv. Returns 0, or -1 if "dev" has
 * no name after it.
 */
struct cli_scope {
	const char *dev;	/* NULL: the default set */
	bool given;		/* "dev DEV" or "default" was on the line */
};
int cli_parse_scope(int *argc, char ***argv, struct cli_scope *sc);

/* roceccd's values (command line, configuration file) */

/*
 * A time: seconds, decimal ("1", "0.25"), or with a unit "ms" or "s"
 * ("250ms", "2s"); into milliseconds. 0 or -EINVAL (not such a time) or
 * -ERANGE (0, or above one day).
 */
int rd_parse_ms(const char *s, uint64_t *ms);

/* A TCP port 1..65535. 0 or -EINVAL / -ERANGE. */
int rd_parse_port(const char *s, uint16_t *port);

/* A log level by name (error, warn, info, debug) or -1. */
int rd_log_level(const char *s);

/* Buckets per power of two in the exported histograms: 1, 2, 4, 8 or 16. */
bool rd_valid_per_octave(unsigned int p);

#endif /* _ROCECC_LIB_PARSE_H */
