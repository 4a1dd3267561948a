// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of "rocecc latency"'s pure logic (daemon/rocecc/latency.c): the
 * HTTP reply, sorting and the table.
 */
#include <stdlib.h>
#include <string.h>

#include "rocecc/latency.h"
#include "tap.h"

static const char *flows_json =
	"[ { \"flow\": \"a[1] 17 -> 10.0.0.2:17\", \"dev\": \"rxe1\","
	"    \"message_completion\": { \"samples\": 10, \"p50_us\": 100.5, \"p99_us\": 900.0, \"p999_us\": 950.0 },"
	"    \"rtt\": { \"samples\": 10, \"p50_us\": 50.0, \"p99_us\": 60.0, \"p999_us\": 70.0 } },"
	"  { \"flow\": \"b[2] 18 -> 10.0.0.3:19\", \"dev\": \"rxe1\","
	"    \"message_completion\": { \"samples\": 0, \"p50_us\": null, \"p99_us\": null, \"p999_us\": null },"
	"    \"rtt\": { \"samples\": 0, \"p50_us\": null, \"p99_us\": null, \"p999_us\": null } },"
	"  { \"flow\": \"c[3] 20 -> 10.0.0.4:21\", \"dev\": \"rxe2\","
	"    \"message_completion\": { \"samples\": 99, \"p50_us\": 200.0, \"p99_us\": 300.0, \"p999_us\": 2000.0 },"
	"    \"rtt\": { \"samples\": 99, \"p50_us\": 10.0, \"p99_us\": 80.0, \"p999_us\": 90.0 } } ]";

static const char *name_at(json_object *a, size_t i)
{
	json_object *v;

	json_object_object_get_ex(json_object_array_get_idx(a, i), "flow", &v);
	return json_object_get_string(v);
}

static void test_sort_table(void)
{
	json_object *a = json_tokener_parse(flows_json);
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	tap_ok(a != NULL, "test JSON parses");
	tap_ok(cli_latency_sort(a, "p42") == -1, "unknown sort key refused");
	tap_ok(!cli_latency_sort(a, "p99") && !strcmp(name_at(a, 0), "a[1] 17 -> 10.0.0.2:17") &&
	       !strcmp(name_at(a, 2), "b[2] 18 -> 10.0.0.3:19"),
	       "sort p99: slowest first, no samples last");
	tap_ok(!cli_latency_sort(a, "p999") && !strcmp(name_at(a, 0), "c[3] 20 -> 10.0.0.4:21"),
	       "sort p999");
	tap_ok(!cli_latency_sort(a, "msgs") && !strcmp(name_at(a, 0), "c[3] 20 -> 10.0.0.4:21") &&
	       !strcmp(name_at(a, 1), "a[1] 17 -> 10.0.0.2:17"), "sort msgs");
	tap_ok(!cli_latency_sort(a, "flow") && !strcmp(name_at(a, 0), "a[1] 17 -> 10.0.0.2:17") &&
	       !strcmp(name_at(a, 1), "b[2] 18 -> 10.0.0.3:19"), "sort flow: by name");
	{
		json_object *t = json_tokener_parse(
			"[ { \"flow\": \"z 1 -> 10.0.0.9:1\", \"rtt\": { \"p99_us\": 5.0 } },"
			"  { \"flow\": \"y 1 -> 10.0.0.9:1\", \"rtt\": { \"p99_us\": 5.0 } },"
			"  { \"flow\": \"x 1 -> 10.0.0.9:1\", \"rtt\": { \"p99_us\": 6.0 } } ]");

		tap_ok(!cli_latency_sort(t, "rtt") &&
		       !strcmp(name_at(t, 0), "x 1 -> 10.0.0.9:1") &&
		       !strcmp(name_at(t, 1), "y 1 -> 10.0.0.9:1") &&
		       !strcmp(name_at(t, 2), "z 1 -> 10.0.0.9:1"),
		       "sort rtt: equal values by name");
		json_object_put(t);
	}
	{
		json_object *t = json_tokener_parse(
			"[ { \"flow\": \"x\\ny\\u0001 1 -> 10.0.0.9:1\", \"dev\": \"d\\t\" } ]");
		char *b = NULL;
		size_t n = 0;
		FILE *m = open_memstream(&b, &n);

		cli_latency_table(m, t);
		fclose(m);
		tap_ok(b && strstr(b, "\nx\xef\xbf\xbdy\xef\xbf\xbd 1 -> 10.0.0.9:1") &&
		       strstr(b, " d\xef\xbf\xbd ") && !strchr(b, '\t'),
		       "a name with a newline and control characters: one line");
		free(b);
		json_object_put(t);
	}

	f = open_memstream(&buf, &len);
	cli_latency_table(f, a);
	fclose(f);
	tap_ok(!strncmp(buf, "FLOW", 4), "table header");
	tap_ok(strstr(buf, "a[1] 17 -> 10.0.0.2:17                   rxe1            10     100.5     900.0     950.0      50.0      60.0      70.0\n") != NULL,
	       "a flow's row: samples and percentiles in us");
	tap_ok(strstr(buf, "rxe1             0         -         -         -") != NULL,
	       "a flow without samples shows dashes");
	if (!strstr(buf, "100.5"))
		tap_diag("%s", buf);
	free(buf);
	json_object_put(a);
}

int main(void)
{
	test_sort_table();
	return tap_done();
}
