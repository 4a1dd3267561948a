// SPDX-License-Identifier: GPL-2.0
/*
 * "rocecc latency": per-flow percentiles from roceccd. See latency.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "latency.h"
#include "lib/http_get.h"
#include "lib/parse.h"

#define CLI_LAT_DEFAULT_ADDR	"127.0.0.1"
#define CLI_LAT_DEFAULT_PORT	"9468"	/* roceccd's default */

static double num(json_object *flow, const char *hist, const char *key)
{
	json_object *h, *v;

	if (!json_object_object_get_ex(flow, hist, &h) ||
	    !json_object_object_get_ex(h, key, &v) || !v)
		return -1.0;	/* no samples: last when descending */
	return json_object_get_double(v);
}

static const char *sort_key;

static int cmp_flows(const void *a, const void *b)
{
	json_object *fa = *(json_object *const *)a;
	json_object *fb = *(json_object *const *)b;
	json_object *na, *nb;
	double x, y;

	if (!strcmp(sort_key, "flow")) {
		json_object_object_get_ex(fa, "flow", &na);
		json_object_object_get_ex(fb, "flow", &nb);
		return strcmp(json_object_get_string(na) ?: "",
			      json_object_get_string(nb) ?: "");
	}
	if (!strcmp(sort_key, "rtt")) {
		x = num(fa, "rtt", "p99_us");
		y = num(fb, "rtt", "p99_us");
	} else if (!strcmp(sort_key, "msgs")) {
		x = num(fa, "message_completion", "samples");
		y = num(fb, "message_completion", "samples");
	} else {
		char k[16];

		snprintf(k, sizeof(k), "%s_us", sort_key);
		x = num(fa, "message_completion", k);
		y = num(fb, "message_completion", k);
	}
	return x < y ? 1 : x > y ? -1 : 0;
}

int cli_latency_sort(json_object *flows, const char *key)
{
	static const char *const keys[] = {
		"p50", "p99", "p999", "rtt", "msgs", "flow",
	};
	unsigned int i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(key, keys[i]))
			break;
	if (i == sizeof(keys) / sizeof(keys[0]))
		return -1;
	sort_key = keys[i];
	json_object_array_sort(flows, cmp_flows);
	return 0;
}

static void us(FILE *f, json_object *flow, const char *hist, const char *key)
{
	double v = num(flow, hist, key);

	if (v < 0)
		fprintf(f, " %9s", "-");
	else
		fprintf(f, " %9.1f", v);
}

void cli_latency_table(FILE *f, json_object *flows)
{
	size_t i, n = json_object_array_length(flows);

	fprintf(f, "%-40s %-8s %9s %9s %9s %9s %9s %9s %9s\n", "FLOW", "DEV",
		"MSGS", "MCT_P50", "MCT_P99", "MCT_P999", "RTT_P50", "RTT_P99",
		"RTT_P999");
	for (i = 0; i < n; i++) {
		json_object *fl = json_object_array_get_idx(flows, i), *v;
		double msgs = num(fl, "message_completion", "samples");

		json_object_object_get_ex(fl, "flow", &v);
		fprintf(f, "%-40s", json_object_get_string(v) ?: "?");
		json_object_object_get_ex(fl, "dev", &v);
		fprintf(f, " %-8s", json_object_get_string(v) ?: "?");
		fprintf(f, " %9.0f", msgs < 0 ? 0 : msgs);
		us(f, fl, "message_completion", "p50_us");
		us(f, fl, "message_completion", "p99_us");
		us(f, fl, "message_completion", "p999_us");
		us(f, fl, "rtt", "p50_us");
		us(f, fl, "rtt", "p99_us");
		us(f, fl, "rtt", "p999_us");
		fputc('\n', f);
	}
}

int cli_latency(const struct cli_latency_opts *o, int argc, char **argv)
{
	const char *addr = CLI_LAT_DEFAULT_ADDR, *port = CLI_LAT_DEFAULT_PORT;
	const char *sort = "p99";
	char url[512], msg[1024];
	json_object *flows;
	char *resp;
	long status;

	while (argc > 0) {
		if (argc < 2) {
			fprintf(stderr, "rocecc: latency: '%s' needs a value\n",
				argv[0]);
			return CLI_EXIT_USAGE;
		}
		if (cli_matches(argv[0], "addr")) {
			addr = argv[1];
		} else if (cli_matches(argv[0], "port")) {
			port = argv[1];
		} else if (cli_matches(argv[0], "sort")) {
			sort = argv[1];
		} else {
			fprintf(stderr, "rocecc: latency: unknown argument '%s' (addr, port, sort)\n",
				argv[0]);
			return CLI_EXIT_USAGE;
		}
		argc -= 2;
		argv += 2;
	}
	flows = json_object_new_array();
	if (cli_latency_sort(flows, sort)) {
		fprintf(stderr, "rocecc: latency: sort: '%s' is not p50, p99, p999, rtt, msgs or flow\n",
			sort);
		json_object_put(flows);
		return CLI_EXIT_USAGE;
	}
	json_object_put(flows);

	http_url(url, sizeof(url), addr, port, "/flows.json");
	if (http_get(url, &resp, &status, msg, sizeof(msg))) {
		fprintf(stderr, "rocecc: latency: %s\n", msg);
		return CLI_EXIT_FAIL;
	}
	if (status != 200) {
		fprintf(stderr, "rocecc: latency: roceccd at %s port %s answered HTTP %ld\n",
			addr, port, status);
		free(resp);
		return CLI_EXIT_FAIL;
	}
	flows = json_tokener_parse(resp);
	free(resp);
	if (!flows || !json_object_is_type(flows, json_type_array)) {
		fprintf(stderr, "rocecc: latency: roceccd's /flows.json is not a JSON array\n");
		json_object_put(flows);
		return CLI_EXIT_FAIL;
	}
	cli_latency_sort(flows, sort);
	if (o->json)
		printf("%s\n", json_object_to_json_string_ext(flows,
			(o->pretty ? JSON_C_TO_STRING_PRETTY : JSON_C_TO_STRING_PLAIN) |
			JSON_C_TO_STRING_NOSLASHESCAPE));
	else
		cli_latency_table(stdout, flows);
	json_object_put(flows);
	return CLI_EXIT_OK;
}
