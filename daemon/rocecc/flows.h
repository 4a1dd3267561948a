/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flows of a running roceccd as "rocecc latency" and "rocecc top" read
 * them: GET /flows.json (lib/http_get.h), a flow's members, and one sort.
 * Unit-tested through selftests/unit/daemon/test_latency.c and test_top.c.
 */
#ifndef _ROCECC_CLI_FLOWS_H
#define _ROCECC_CLI_FLOWS_H

#include <stddef.h>
#include <json-c/json.h>

/*
 * The array of /flows.json at @url (roceccd at @addr port @port, for the
 * messages), or NULL with the reason in @msg.
 */
json_object *cli_flows_fetch(const char *url, const char *addr,
			     const char *port, char *msg, size_t n);

/* @flow's @obj.@key as a number; -1 if it is not there or null. */
double cli_flow_num(json_object *flow, const char *obj, const char *key);

/* @flow's @key if it is a string, else "". */
const char *cli_flow_str(json_object *flow, const char *key);

/* A sort key: @key sorts by @obj.@member, descending; @obj NULL: by name. */
struct cli_flow_sort {
	const char *key;
	const char *obj, *member;
};

/*
 * Sort @flows by the entry of @keys (@n of them) named @key: descending
 * by its number with flows without one last, or by name ascending; ties
 * by name, then netdev, so that equal rows keep their places from one
 * fetch to the next. 0, or -1 for a key that is not in @keys.
 */
int cli_flows_sort(json_object *flows, const char *key,
		   const struct cli_flow_sort *keys, size_t n);

#endif /* _ROCECC_CLI_FLOWS_H */
