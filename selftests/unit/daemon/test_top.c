// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of "rocecc top"'s pure logic (daemon/rocecc/top.c): rates between
 * two /flows.json snapshots, sorting, text and JSON frames, the arguments.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rocecc/top.h"
#include "tap.h"

#define HIST(p50, p99, p999) \
	"{ \"samples\": 10, \"p50_us\": " #p50 ", \"p99_us\": " #p99 \
	", \"p999_us\": " #p999 ", \"mean_us\": " #p50 " }"
#define NOHIST \
	"{ \"samples\": 0, \"p50_us\": null, \"p99_us\": null, " \
	"\"p999_us\": null, \"mean_us\": null }"
#define CNT(txb, rxb, msgs, tcnp, rcnp, ce) \
	"{ \"tx_packets\": 100, \"tx_bytes\": " #txb ", \"rx_packets\": 50, " \
	"\"rx_bytes\": " #rxb ", \"rx_ce_marked_packets\": " #ce ", " \
	"\"tx_cnp\": " #tcnp ", \"rx_cnp\": " #rcnp ", \"tx_messages\": " #msgs ", " \
	"\"tx_retransmitted_packets\": 0 }"
#define FLOW(name, dev, lqpn, peer, rqpn) \
	"\"flow\": \"" name "\", \"comm\": \"ib\", \"pid\": 7, " \
	"\"lqpn\": " #lqpn ", \"rqpn\": " #rqpn ", \"peer\": \"" peer "\", " \
	"\"dev\": \"" dev "\", \"netdev\": \"eth0\""

/* t0: a, b, c */
static const char *snap0 =
	"[ { " FLOW("a[7] 17 -> 10.0.0.2:17", "rxe0", 17, "10.0.0.2", 17) ","
	"    \"message_completion\": " HIST(100.0, 900.0, 950.0) ","
	"    \"rtt\": " HIST(10.0, 20.0, 30.0) ","
	"    \"counters\": " CNT(1000000, 2000000, 1000, 10, 20, 30) ","
	"    \"groups\": [ \"dp3\", \"tp1\" ], \"straggler\": false },"
	"  { " FLOW("b[7] 18 -> 10.0.0.3:19", "rxe0", 18, "10.0.0.3", 19) ","
	"    \"message_completion\": " HIST(50.0, 60.0, 70.0) ","
	"    \"rtt\": " HIST(5.0, 6.0, 7.0) ","
	"    \"counters\": " CNT(9000000, 9000000, 900, 9, 9, 9) " },"
	"  { " FLOW("c[7] 19 -> 10.0.0.4:20", "rxe0", 19, "10.0.0.4", 20) ","
	"    \"message_completion\": " NOHIST ", \"rtt\": " NOHIST ","
	"    \"counters\": " CNT(1, 1, 1, 1, 1, 1) " } ]";

/*
 * t0 + 2 s: a grew (tx +2.5 MB, rx +0.5 MB, 200 messages, 4/6 CNPs,
 * 10 CE) and is now a straggler; b's counters went backwards (recreated);
 * c is gone; d is new, without groups and straggler; e has a's QPNs and
 * peer on another device, so it is another (new) flow.
 */
static const char *snap1 =
	"[ { " FLOW("b[7] 18 -> 10.0.0.3:19", "rxe0", 18, "10.0.0.3", 19) ","
	"    \"message_completion\": " HIST(50.0, 60.0, 70.0) ","
	"    \"rtt\": " HIST(5.0, 6.0, 7.0) ","
	"    \"counters\": " CNT(100, 9500000, 950, 10, 10, 10) ","
	"    \"groups\": [], \"straggler\": false },"
	"  { " FLOW("a[7] 17 -> 10.0.0.2:17", "rxe0", 17, "10.0.0.2", 17) ","
	"    \"message_completion\": " HIST(100.0, 900.0, 950.0) ","
	"    \"rtt\": " HIST(10.0, 20.0, 30.0) ","
	"    \"counters\": " CNT(3500000, 2500000, 1200, 14, 26, 40) ","
	"    \"groups\": [ \"dp3\", \"tp1\" ], \"straggler\": true },"
	"  { " FLOW("d[8] 30 -> 10.0.0.5:31", "rxe0", 30, "10.0.0.5", 31) ","
	"    \"message_completion\": " HIST(200.0, 300.0, 2000.0) ","
	"    \"rtt\": " HIST(40.0, 80.0, 90.0) ","
	"    \"counters\": " CNT(5, 5, 5, 5, 5, 5) " },"
	"  { " FLOW("e[9] 17 -> 10.0.0.2:17", "rxe1", 17, "10.0.0.2", 17) ","
	"    \"message_completion\": " NOHIST ", \"rtt\": " NOHIST ","
	"    \"counters\": " CNT(1, 1, 1, 1, 1, 1) " } ]";

static json_object *by_name(json_object *a, char c)
{
	size_t i, n = json_object_array_length(a);

	for (i = 0; i < n; i++) {
		json_object *fl = json_object_array_get_idx(a, i), *v;

		if (json_object_object_get_ex(fl, "flow", &v) &&
		    json_object_get_string(v)[0] == c)
			return fl;
	}
	return NULL;
}

/* rates.@key of flow @c; -1 if null, -2 if missing. */
static double rate(json_object *a, char c, const char *key)
{
	json_object *r, *v;

	if (!json_object_object_get_ex(by_name(a, c), "rates", &r) ||
	    !json_object_object_get_ex(r, key, &v))
		return -2;
	return v ? json_object_get_double(v) : -1;
}

static bool near(double got, double want)
{
	if (got - want < 1e-9 && want - got < 1e-9)
		return true;
	tap_diag("got %.12g, want %.12g", got, want);
	return false;
}

/* The first letters of the flow names, in order. */
static const char *order(json_object *a)
{
	static char s[16];
	size_t i, n = json_object_array_length(a);
	json_object *v;

	for (i = 0; i < n && i < sizeof(s) - 1; i++) {
		json_object_object_get_ex(json_object_array_get_idx(a, i), "flow", &v);
		s[i] = json_object_get_string(v)[0];
	}
	s[i] = '\0';
	return s;
}

/* A frame as TAP comments. */
static void diag_lines(const char *title, const char *buf)
{
	tap_diag("%s", title);
	while (*buf) {
		size_t n = strcspn(buf, "\n");

		tap_diag("%.*s", (int)n, buf);
		buf += n + (buf[n] == '\n');
	}
}

static char *frame(const struct cli_top_view *v, json_object *flows)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cli_top_print(f, v, flows);
	fclose(f);
	return buf;
}

static void test_rates(void)
{
	json_object *s0 = json_tokener_parse(snap0);
	json_object *s1 = json_tokener_parse(snap1);

	tap_ok(s0 && s1, "test snapshots parse");
	tap_eq(cli_top_rates(NULL, s0, 0), 0, "first frame: no flow has rates");
	tap_ok(rate(s0, 'a', "tx_mbps") == -1 && rate(s0, 'c', "ce_per_s") == -1,
	       "first frame: every rate is null");

	tap_eq(cli_top_rates(s0, s1, 2.0), 1, "second frame: one flow has rates");
	tap_ok(near(rate(s1, 'a', "tx_mbps"), 10.0), "tx Mbit/s: 2.5 MB in 2 s");
	tap_ok(near(rate(s1, 'a', "rx_mbps"), 2.0), "rx Mbit/s: 0.5 MB in 2 s");
	tap_ok(near(rate(s1, 'a', "msgs_per_s"), 100.0), "messages/s");
	tap_ok(near(rate(s1, 'a', "tx_cnp_per_s"), 2.0), "CNPs sent/s");
	tap_ok(near(rate(s1, 'a', "rx_cnp_per_s"), 3.0), "CNPs received/s");
	tap_ok(near(rate(s1, 'a', "ce_per_s"), 5.0), "CE-marked packets/s");
	tap_ok(rate(s1, 'b', "tx_mbps") == -1 && rate(s1, 'b', "rx_mbps") == -1 &&
	       rate(s1, 'b', "msgs_per_s") == -1,
	       "a counter went backwards: a new flow, all its rates null");
	tap_ok(rate(s1, 'd', "tx_mbps") == -1 && rate(s1, 'd', "ce_per_s") == -1,
	       "a flow only in the second snapshot has no rates");
	tap_ok(rate(s1, 'e', "tx_mbps") == -1,
	       "same QPNs and peer on another device: another flow");
	tap_ok(rate(s0, 'a', "tx_mbps") == -1, "the previous snapshot is unchanged");

	cli_top_rates(s0, s1, 0);
	tap_ok(rate(s1, 'a', "tx_mbps") == -1, "no interval: no rates");
	json_object_put(s0);
	json_object_put(s1);
}

static void test_sort(void)
{
	json_object *s0 = json_tokener_parse(snap0);
	json_object *s1 = json_tokener_parse(snap1);

	cli_top_rates(s0, s1, 2.0);
	tap_ok(cli_top_sort(s1, "p42") == -1, "unknown sort key refused");
	tap_ok(!cli_top_sort(s1, "p99") && !strcmp(order(s1), "adbe"),
	       "sort p99: slowest first, no samples last (%s)", order(s1));
	tap_ok(!cli_top_sort(s1, "p50") && !strcmp(order(s1), "dabe"),
	       "sort p50 (%s)", order(s1));
	tap_ok(!cli_top_sort(s1, "p999") && !strcmp(order(s1), "dabe"),
	       "sort p999 (%s)", order(s1));
	tap_ok(!cli_top_sort(s1, "rtt") && !strcmp(order(s1), "dabe"),
	       "sort rtt: RTT p99 (%s)", order(s1));
	tap_ok(!cli_top_sort(s1, "tx") && !strcmp(order(s1), "abde"),
	       "sort tx: by rate, flows without one last, by name (%s)", order(s1));
	tap_ok(!cli_top_sort(s1, "msgs") && !strcmp(order(s1), "abde"),
	       "sort msgs: by message rate (%s)", order(s1));
	tap_ok(!cli_top_sort(s1, "flow") && !strcmp(order(s1), "abde"),
	       "sort flow: by name (%s)", order(s1));
	json_object_put(s0);
	json_object_put(s1);
}

static void test_frame(void)
{
	json_object *s0 = json_tokener_parse(snap0);
	json_object *s1 = json_tokener_parse(snap1);
	struct cli_top_view v = {
		.url = "http://127.0.0.1:9468/flows.json",
		.now = 1764534705.25,	/* 2025-11-30 20:31:45 UTC */
		.sort = "p99",
	};
	json_object *j, *x;
	char *buf;

	setenv("TZ", "UTC", 1);
	tzset();
	cli_top_rates(NULL, s0, 0);
	cli_top_sort(s0, "p99");
	buf = frame(&v, s0);
	tap_ok(!strncmp(buf, "rocecc top - 20:31:45  http://127.0.0.1:9468/flows.json  sort p99\n", 66),
	       "header: time, URL, sort key");
	tap_ok(strstr(buf, "\nflows 3  stragglers 0  tx - Mbit/s  rx - Mbit/s  msgs -/s  cnp tx -/s  cnp rx -/s  ce -/s\n") != NULL,
	       "first frame: flow count, no stragglers, no totals");
	tap_ok(strstr(buf, "  a[7] 17 -> 10.0.0.2:17                   rxe0             -         -         -         -         -         -     100.0     900.0     950.0      20.0 dp3,tp1\n") != NULL,
	       "first frame: '-' for every rate; percentiles; groups");
	diag_lines("first frame:", buf);
	free(buf);

	cli_top_rates(s0, s1, 2.0);
	cli_top_sort(s1, "p99");
	v.interval = 2.0;
	buf = frame(&v, s1);
	tap_ok(strstr(buf, "sort p99  interval 2.00 s\n") != NULL, "header: interval");
	tap_ok(strstr(buf, "\nflows 4  stragglers 1  tx 10.0 Mbit/s  rx 2.0 Mbit/s  msgs 100.0/s  cnp tx 2.0/s  cnp rx 3.0/s  ce 5.0/s\n") != NULL,
	       "header: one straggler, sums of the rates");
	tap_ok(strstr(buf, "\nS FLOW ") != NULL && strstr(buf, "GROUPS\n") != NULL,
	       "column titles");
	tap_ok(strstr(buf, "\n! a[7] 17 -> 10.0.0.2:17                   rxe0          10.0       2.0     100.0       2.0       3.0       5.0     100.0     900.0     950.0      20.0 dp3,tp1\n") != NULL,
	       "a straggler's row: '!', rates, percentiles, groups");
	tap_ok(strstr(buf, "\n  d[8] 30 -> 10.0.0.5:31                   rxe0             -         -         -         -         -         -     200.0     300.0    2000.0      80.0 -\n") != NULL,
	       "no straggler or groups field: blank marker, '-' groups");
	tap_ok(strstr(buf, "\n  b[7] 18 -> 10.0.0.3:19 ") != NULL &&
	       strstr(buf, "      70.0       6.0 -\n") != NULL,
	       "empty groups: '-'");
	tap_ok(strstr(buf, "\n  e[9] 17 -> 10.0.0.2:17                   rxe1             -         -         -         -         -         -         -         -         -         - -\n") != NULL,
	       "a flow without samples: dashes");
	diag_lines("second frame:", buf);
	free(buf);

	v.error = "http://127.0.0.1:9468/flows.json: Connection refused (is roceccd running?)";
	buf = frame(&v, s1);
	tap_ok(strstr(buf, " ce 5.0/s\nerror: http://127.0.0.1:9468/flows.json: Connection refused (is roceccd running?)\n\nS FLOW") != NULL,
	       "a fetch error is shown under the header");
	free(buf);

	j = cli_top_json(&v, s1);
	tap_ok(json_object_object_get_ex(j, "time", &x) &&
	       near(json_object_get_double(x), 1764534705.25), "JSON: time");
	tap_ok(json_object_object_get_ex(j, "stragglers", &x) &&
	       json_object_get_int(x) == 1 &&
	       json_object_object_get_ex(j, "flow_count", &x) &&
	       json_object_get_int(x) == 4, "JSON: stragglers, flow_count");
	tap_ok(json_object_object_get_ex(j, "totals", &x) &&
	       json_object_object_get_ex(x, "tx_mbps", &x) &&
	       near(json_object_get_double(x), 10.0), "JSON: totals");
	tap_ok(json_object_object_get_ex(j, "flows", &x) && x == s1 &&
	       json_object_object_get_ex(j, "error", &x), "JSON: flows, error");
	tap_ok(strchr(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN), '\n') == NULL,
	       "JSON: one line per frame");
	json_object_put(j);

	v.interval = 0;
	v.error = NULL;
	j = cli_top_json(&v, s0);
	tap_ok(json_object_object_get_ex(j, "interval_s", &x) && !x &&
	       json_object_object_get_ex(j, "totals", &x) &&
	       json_object_object_get_ex(x, "ce_per_s", &x) && !x &&
	       !json_object_object_get_ex(j, "error", NULL),
	       "JSON first frame: interval and totals null, no error");
	json_object_put(j);
	json_object_put(s0);
	json_object_put(s1);
}

static void test_args(void)
{
	unsigned long n = 0;
	double d = 0;

	tap_ok(!cli_top_parse_delay("1", &d) && d == 1.0, "delay 1");
	tap_ok(!cli_top_parse_delay("0.1", &d) && d == 0.1, "delay 0.1");
	tap_ok(!cli_top_parse_delay("3600", &d) && d == 3600.0, "delay 3600");
	tap_ok(cli_top_parse_delay("0.05", &d) && cli_top_parse_delay("3601", &d) &&
	       cli_top_parse_delay("-1", &d), "delay out of range refused");
	tap_ok(cli_top_parse_delay("abc", &d) && cli_top_parse_delay("", &d) &&
	       cli_top_parse_delay("1s", &d) && cli_top_parse_delay("nan", &d) &&
	       cli_top_parse_delay("inf", &d) && cli_top_parse_delay("0x1", &d),
	       "delay: not a number refused");
	tap_ok(!cli_top_parse_count("3", &n) && n == 3, "count 3");
	tap_ok(cli_top_parse_count("0", &n) && cli_top_parse_count("-1", &n) &&
	       cli_top_parse_count(" 1", &n) && cli_top_parse_count("2x", &n) &&
	       cli_top_parse_count("1000000001", &n), "bad counts refused");
}

int main(void)
{
	test_rates();
	test_sort();
	test_frame();
	test_args();
	return tap_done();
}
