/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "rocecc top": a live view of roceccd's flows. Every interval it fetches
 * /flows.json (lib/http_get.h, as "rocecc latency" does), computes each
 * flow's rates from the counter deltas since the previous fetch, sorts and
 * redraws. Interactive on a terminal (ANSI escapes, 'q' quits); batch mode
 * (frames one after another, like top -b) when stdout is not a terminal or
 * with "count N"; -j: one JSON object per frame and line (NDJSON).
 *
 * The pure logic (rates, sorting, frames) is below and unit-tested by
 * selftests/unit/daemon/test_top.c; cli_top() is the loop around it.
 */
#ifndef _ROCECC_CLI_TOP_H
#define _ROCECC_CLI_TOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <json-c/json.h>

struct cli_top_opts {
	bool json;	/* -j: NDJSON, one frame per line (-p is ignored) */
};

/*
 * rocecc top [addr ADDR] [port PORT] [sort KEY] [delay SEC] [count N].
 * @argc/@argv start after "top". Returns a CLI_EXIT_* code.
 */
int cli_top(const struct cli_top_opts *o, int argc, char **argv);

/*
 * Rates: every flow object of @cur (roceccd's /flows.json array) gets a
 * "rates" member, an object with
 *
 *	tx_mbps, rx_mbps	Mbit/s, from counters.tx_bytes, rx_bytes
 *	msgs_per_s		counters.tx_messages
 *	tx_cnp_per_s, rx_cnp_per_s	counters.tx_cnp, rx_cnp
 *	ce_per_s		counters.rx_ce_marked_packets
 *
 * each the counter's increase since the same flow in @prev divided by
 * @interval seconds, or null when there is no rate: @prev is NULL (first
 * frame), @interval <= 0, the flow is not in @prev (new), the counter is
 * missing from either, or any counter went backwards (the flow was
 * deleted and recreated under the same key: all its rates are null).
 * A flow is identified by (dev, peer, lqpn, rqpn). @prev is not modified.
 * Returns the number of flows of @cur that have rates.
 */
size_t cli_top_rates(json_object *prev, json_object *cur, double interval);

/*
 * Sort @flows by @key, descending with flows without a value last, ties by
 * name: p50, p99, p999 (message completion), rtt (RTT p99), tx (tx_mbps),
 * msgs (msgs_per_s); or flow (the name, ascending). 0, or -1 for an
 * unknown key.
 */
int cli_top_sort(json_object *flows, const char *key);

/* What a frame shows besides the flows. */
struct cli_top_view {
	const char *url;	/* the daemon's /flows.json */
	double now;		/* seconds since the epoch (header: local time) */
	double interval;	/* seconds between the fetches; 0: first */
	const char *sort;	/* the sort key, shown in the header */
	const char *error;	/* NULL, or the last fetch's error */
};

/* Flows with "straggler": true (absent: false). */
size_t cli_top_stragglers(json_object *flows);

/*
 * A text frame to @f: a header (time, URL, flows, stragglers, the sum of
 * each rate over the flows that have one, '-' if none), the error line if
 * any, a blank line, the column titles and one line per flow in @flows'
 * order: "!" in the S column for a straggler, the rates ('-' without),
 * message completion p50/p99/p99.9 and RTT p99 in us, and the flow's
 * groups, comma separated ('-' without).
 */
void cli_top_print(FILE *f, const struct cli_top_view *v, json_object *flows);

/*
 * A JSON frame: {"time": seconds since the epoch, "url", "interval_s"
 * (null on the first frame), "sort", "flow_count", "stragglers",
 * "totals": {the rate sums, null if no flow has rates}, "error" (only
 * when set), "flows": @flows (a new reference)}. The caller puts it.
 */
json_object *cli_top_json(const struct cli_top_view *v, json_object *flows);

/*
 * "delay": seconds, decimal, 0.1..3600. "count": frames, 1..1000000000.
 * 0, or -1 if @s is not one.
 */
int cli_top_parse_delay(const char *s, double *out);
int cli_top_parse_count(const char *s, unsigned long *out);

#endif /* _ROCECC_CLI_TOP_H */
