// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of roceccd's data as text (daemon/lib/format.c): flow names,
 * label escaping, percentiles and the Prometheus histogram.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include <rocecc/hist.h>
#include "flowmon.h"

#include "lib/format.h"
#include "tap.h"

static void test_names(void)
{
	uint8_t v4[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 2 };
	uint8_t v6[16] = { 0xfd, [15] = 2 };
	char peer[64], name[256];

	rd_peer_str(v4, peer, sizeof(peer));
	tap_is_str(peer, "10.0.0.2", "IPv4-mapped peer prints as dotted quad");
	rd_flow_name(name, sizeof(name), "rocegen", 1234, 17, peer, 18);
	tap_is_str(name, "rocegen[1234] 17 -> 10.0.0.2:18", "flow name, user QP");
	rd_peer_str(v6, peer, sizeof(peer));
	tap_is_str(peer, "fd00::2", "IPv6 peer");
	rd_flow_name(name, sizeof(name), "rocegen", 1, 17, peer, 18);
	tap_is_str(name, "rocegen[1] 17 -> [fd00::2]:18", "IPv6 peer in brackets");
	rd_flow_name(name, sizeof(name), "ib_srp", 0, 5, "10.0.0.3", 6);
	tap_is_str(name, "ib_srp 5 -> 10.0.0.3:6", "kernel QP: no pid");
	rd_flow_name(name, sizeof(name), "", 7, 5, "10.0.0.3", 6);
	tap_is_str(name, "?[7] 5 -> 10.0.0.3:6", "unknown comm");
}

#define FFFD "\xef\xbf\xbd"

static void test_escape(void)
{
	char out[64];

	rd_prom_escape("a\"b\\c\nd", out, sizeof(out));
	tap_is_str(out, "a\\\"b\\\\c\\nd", "quote, backslash, newline escaped");
	rd_prom_escape("ab\"", out, 4);
	tap_is_str(out, "ab", "truncation never splits an escape");
	rd_prom_escape("rocegen[12] 3 -> 10.0.0.2:4", out, sizeof(out));
	tap_is_str(out, "rocegen[12] 3 -> 10.0.0.2:4", "a flow name needs no escape");

	/* UTF-8: valid characters stay, every bad byte is U+FFFD */
	rd_prom_escape("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", out, sizeof(out));
	tap_is_str(out, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
		   "two-, three- and four-byte characters stay");
	rd_prom_escape("a\xff" "b\x80" "c", out, sizeof(out));
	tap_is_str(out, "a" FFFD "b" FFFD "c", "a stray byte becomes U+FFFD");
	rd_prom_escape("\xc0\x80\xed\xa0\x80\xf4\x90\x80\x80", out, sizeof(out));
	tap_is_str(out, FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD,
		   "overlong NUL, a surrogate, above U+10FFFF: each byte U+FFFD");
	rd_prom_escape("\xe2\x82", out, sizeof(out));
	tap_is_str(out, FFFD FFFD, "a character cut by the end of the string");
	rd_prom_escape("a\x01" "b\tc\rd\x7f\xc2\x85" "e", out, sizeof(out));
	tap_is_str(out, "a" FFFD "b" FFFD "c" FFFD "d" FFFD FFFD "e",
		   "control characters (C0, DEL, C1) become U+FFFD");
	rd_prom_escape("ab\xe2\x82\xac", out, 5);
	tap_is_str(out, "ab", "truncation never splits a character");
	rd_prom_escape("\xff", out, 3);
	tap_is_str(out, "", "nor a replacement character");

	tap_is_str(rd_text_line("a\"b\\c\nd\x01" "e\xff", out, sizeof(out)),
		   "a\"b\\c" FFFD "d" FFFD "e" FFFD,
		   "rd_text_line(): quotes stay, every control character U+FFFD");
	/* a netdev name can hold these (dev_valid_name() refuses only '/', ':', space) */
	tap_is_str(rd_text_line("e\x1b[2J\x1b]0;x\x07" "a\xc2\x9b" "1m\x9b" "b",
				out, sizeof(out)),
		   "e" FFFD "[2J" FFFD "]0;x" FFFD "a" FFFD "1m" FFFD "b",
		   "rd_text_line(): ESC, BEL, C1 CSI (U+009B) and a lone 0x9b U+FFFD");

	/* JSON strings keep control characters; only bad bytes change */
	tap_is_str(rd_utf8_repair("a\x01\n\xff\"\\", out, sizeof(out)),
		   "a\x01\n" FFFD "\"\\", "rd_utf8_repair() keeps control characters");
	{
		json_object *o = rd_json_str("q\"b\\n\nc\x01i\xffv\xc3\xa9");
		const char *j = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
		json_object *back = json_tokener_parse(j);

		tap_is_str(j, "\"q\\\"b\\\\n\\nc\\u0001i" FFFD "v\xc3\xa9\"",
			   "rd_json_str(): json-c escapes, U+FFFD for the bad byte");
		tap_ok(back && !strcmp(json_object_get_string(back),
				       "q\"b\\n\nc\x01i" FFFD "v\xc3\xa9"),
		       "  and json-c reads it back");
		json_object_put(back);
		json_object_put(o);
		tap_ok(rd_json_str(NULL) == NULL, "rd_json_str(NULL): JSON null");
		o = rd_json_str("e\x1b[2J\x07");
		tap_is_str(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
			   "\"e\\u001b[2J\\u0007\"",
			   "rd_json_str(): json-c writes ESC and BEL as \\u escapes");
		json_object_put(o);
	}
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
	test_percentiles();
	test_prom_hist();
	return tap_done();
}
