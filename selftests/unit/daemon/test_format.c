// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of roceccd's pure logic (daemon/lib/format.c): flow names, label
 * escaping, command-line values, percentiles and the Prometheus histogram.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rocecc/hist.h>
#include "flowmon.h"

#include "lib/format.h"
#include "tap.h"

static int streq(const char *got, const char *want, const char *what)
{
	int r = tap_ok(!strcmp(got, want), "%s", what);

	if (!r)
		tap_diag("got '%s', want '%s'", got, want);
	return r;
}

static void test_names(void)
{
	uint8_t v4[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 2 };
	uint8_t v6[16] = { 0xfd, [15] = 2 };
	char peer[64], name[256];

	rd_peer_str(v4, peer, sizeof(peer));
	streq(peer, "10.0.0.2", "IPv4-mapped peer prints as dotted quad");
	rd_flow_name(name, sizeof(name), "rocegen", 1234, 17, peer, 18);
	streq(name, "rocegen[1234] 17 -> 10.0.0.2:18", "flow name, user QP");
	rd_peer_str(v6, peer, sizeof(peer));
	streq(peer, "fd00::2", "IPv6 peer");
	rd_flow_name(name, sizeof(name), "rocegen", 1, 17, peer, 18);
	streq(name, "rocegen[1] 17 -> [fd00::2]:18", "IPv6 peer in brackets");
	rd_flow_name(name, sizeof(name), "ib_srp", 0, 5, "10.0.0.3", 6);
	streq(name, "ib_srp 5 -> 10.0.0.3:6", "kernel QP: no pid");
	rd_flow_name(name, sizeof(name), "", 7, 5, "10.0.0.3", 6);
	streq(name, "?[7] 5 -> 10.0.0.3:6", "unknown comm");
}

static void test_escape(void)
{
	char out[64];

	rd_prom_escape("a\"b\\c\nd", out, sizeof(out));
	streq(out, "a\\\"b\\\\c\\nd", "quote, backslash, newline escaped");
	rd_prom_escape("ab\"", out, 4);
	streq(out, "ab", "truncation never splits an escape");
	rd_prom_escape("rocegen[12] 3 -> 10.0.0.2:4", out, sizeof(out));
	streq(out, "rocegen[12] 3 -> 10.0.0.2:4", "a flow name needs no escape");
}

static void test_parse(void)
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

static void test_percentiles(void)
{
	__u64 *b = calloc(FLOWMON_HIST_BUCKETS, sizeof(*b));
	uint64_t ns = 0;
	unsigned int i;

	tap_ok(!rd_hist_percentile(b, 500000, &ns), "empty histogram: no p50");
	/* 100 samples: 1..100 us */
	for (i = 1; i <= 100; i++)
		b[rocecc_hist_index(i * 1000ULL, FLOWMON_HIST_SUB_BITS,
				    FLOWMON_HIST_RANGE_BITS)]++;
	tap_eq(rd_hist_count(b), 100, "count");
	tap_ok(rd_hist_percentile(b, 500000, &ns) &&
	       ns >= 50000 * 31 / 32 && ns <= 50000 * 33 / 32,
	       "p50 of 1..100 us within 1/32 of 50 us (%llu ns)",
	       (unsigned long long)ns);
	tap_ok(rd_hist_percentile(b, 990000, &ns) &&
	       ns >= 99000 * 31 / 32 && ns <= 99000 * 33 / 32,
	       "p99 within 1/32 of 99 us (%llu ns)", (unsigned long long)ns);
	free(b);
}

static void test_prom_hist(void)
{
	__u64 *b = calloc(FLOWMON_HIST_BUCKETS, sizeof(*b));
	char *buf = NULL, *copy, *p, *line;
	size_t len = 0;
	unsigned int lines, nb = 0, bad = 0;
	unsigned long long prev = 0, v;
	double le, prev_le = 0;
	FILE *f;

	b[0] = 3;					/* 0 ns: below 1 us */
	b[rocecc_hist_index(1500, 4, 34)] = 2;		/* 1.5 us */
	b[rocecc_hist_index(1000000, 4, 34)] = 5;	/* 1 ms */
	b[FLOWMON_HIST_BUCKETS - 1] = 1;		/* overflow */
	f = open_memstream(&buf, &len);
	lines = rd_prom_hist(f, "x_seconds", "a=\"1\"", b, 5002003, 4);
	fclose(f);
	/* octaves 2^10 .. 2^34 ns: 1 + 24 * 4 finite buckets, then +Inf */
	tap_eq(lines, 1 + 24 * 4 + 1, "bucket lines, 4 per octave");
	copy = strdup(buf);
	for (p = copy; (line = strsep(&p, "\n")) && *line;) {
		char les[32];

		if (strncmp(line, "x_seconds_bucket{a=\"1\",le=\"", 27))
			continue;
		nb++;
		if (sscanf(line + 27, "%31[^\"]\"} %llu", les, &v) != 2) {
			bad++;
			continue;
		}
		le = strcmp(les, "+Inf") ? strtod(les, NULL) : 1e30;
		if (v < prev || le <= prev_le)
			bad++;
		if (nb == 1 && (v != 3 || le != 1023e-9))
			bad++;
		prev = v;
		prev_le = le;
	}
	free(copy);
	tap_eq(nb, lines, "every bucket line parsed");
	tap_eq(bad, 0, "le increasing, counts cumulative, first le 1.023 us holds the 0s");
	tap_eq(prev, 11, "+Inf bucket counts everything, overflow included");
	tap_ok(strstr(buf, "x_seconds_sum{a=\"1\"} 0.005002003\n") != NULL,
	       "_sum in seconds");
	tap_ok(strstr(buf, "x_seconds_count{a=\"1\"} 11\n") != NULL,
	       "_count = +Inf bucket");
	tap_ok(strstr(buf, "le=\"1.535e-06\"} 5\n") != NULL,
	       "1.5 us sample under le 1.535 us (bucket [1.5, 1.535] us)");
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &len);
	lines = rd_prom_hist(f, "y", "", b, 0, 1);
	fclose(f);
	tap_eq(lines, 1 + 24 + 1, "1 per octave");
	tap_ok(strstr(buf, "y_bucket{le=\"+Inf\"} 11\n") != NULL,
	       "no labels: no leading comma");
	free(buf);
	free(b);
}

int main(void)
{
	test_names();
	test_escape();
	test_parse();
	test_percentiles();
	test_prom_hist();
	return tap_done();
}
