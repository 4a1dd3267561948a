// SPDX-License-Identifier: GPL-2.0
/*
 * "rocecc latency": per-flow percentiles from roceccd. See latency.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "flows.h"
#include "latency.h"
#include "lib/format.h"
#include "lib/http_get.h"
#include "lib/parse.h"

#define CLI_LAT_DEFAULT_ADDR	"127.0.0.1"
#define CLI_LAT_DEFAULT_PORT	"9468"	/* roceccd's default */

static const struct cli_flow_sort sorts[] = {
	{ "p50",  "message_completion", "p50_us" },
	{ "p99",  "message_completion", "p99_us" },
	{ "p999", "message_completion", "p999_us" },
	{ "rtt",  "rtt",                "p99_us" },
	{ "msgs", "message_completion", "samples" },
	{ "flow", NULL,                 NULL },
};

int cli_latency_sort(json_object *flows, const char *key)
{
	return cli_flows_sort(flows, key, sorts, sizeof(sorts) / sizeof(sorts[0]));
}

static void us(FILE *f, json_object *flow, const char *hist, const char *key)
{
	double v = cli_flow_num(flow, hist, key);

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
		json_object *fl = json_object_array_get_idx(flows, i);
		double msgs = cli_flow_num(fl, "message_completion", "samples");
		const char *name = cli_flow_str(fl, "flow");
		const char *dev = cli_flow_str(fl, "dev");
		char s[512];

		fprintf(f, "%-40s", *name ? rd_text_line(name, s, sizeof(s)) : "?");
		fprintf(f, " %-8s", *dev ? rd_text_line(dev, s, sizeof(s)) : "?");
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
	flows = cli_flows_fetch(url, addr, port, msg, sizeof(msg));
	if (!flows) {
		fprintf(stderr, "rocecc: latency: %s\n", msg);
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
