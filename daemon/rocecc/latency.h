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

/*
 * The HTTP client of "rocecc latency", shared with "rocecc top"
 * (top.c), which fetches the same /flows.json every interval.
 *
 * cli_http_url(): "http://ADDR:PORT/PATH" into @buf (IPv6 addresses in
 * brackets).
 *
 * cli_http_get(): GET @url with libcurl (10 s timeout) into a malloc'ed,
 * NUL-terminated buffer *@out; the HTTP status in *@status. 0, or -1 with
 * the reason in @msg ("URL: curl's error", plus " (is roceccd running?)"
 * when the connection was refused), without the "rocecc: CMD: " prefix:
 * the caller prints it, or shows it (top's interactive header).
 */
void cli_http_url(char *buf, size_t n, const char *addr, const char *port,
		  const char *path);
int cli_http_get(const char *url, char **out, long *status, char *msg,
		 size_t msglen);

#endif /* _ROCECC_CLI_LATENCY_H */
