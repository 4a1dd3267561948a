/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "rocecc latency": per-flow message completion and RTT percentiles, read
 * from a running roceccd (GET /flows.json on its metrics endpoint; it owns
 * the BPF maps and the QP names). No rocecc.ko needed.
 */
#ifndef _ROCECC_CLI_LATENCY_H
#define _ROCECC_CLI_LATENCY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <json-c/json.h>

struct cli_latency_opts {
	bool json;	/* -j: roceccd's JSON array, sorted */
	bool pretty;	/* -p */
};

/*
 * rocecc latency [addr ADDR] [port PORT] [sort p50|p99|p999|rtt|msgs|flow].
 * @argc/@argv start after "latency". Returns a CLI_EXIT_* code.
 */
int cli_latency(const struct cli_latency_opts *o, int argc, char **argv);

/*
 * Sort roceccd's flow array by @key (p50, p99, p999: message completion,
 * descending; rtt: RTT p99, descending; msgs: samples, descending; flow:
 * name, ascending). 0, or -1 for an unknown key.
 */
int cli_latency_sort(json_object *flows, const char *key);

/* The table: one line per flow, percentiles in microseconds. */
void cli_latency_table(FILE *f, json_object *flows);

#endif /* _ROCECC_CLI_LATENCY_H */
