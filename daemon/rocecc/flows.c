// SPDX-License-Identifier: GPL-2.0
/*
 * roceccd's flows in the CLI. See flows.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flows.h"
#include "lib/http_get.h"

json_object *cli_flows_fetch(const char *url, const char *addr,
			     const char *port, char *msg, size_t n)
{
	json_object *flows;
	char *resp;
	long status;

	if (http_get(url, &resp, &status, msg, n))
		return NULL;
	if (status != 200) {
		snprintf(msg, n, "roceccd at %s port %s answered HTTP %ld",
			 addr, port, status);
		free(resp);
		return NULL;
	}
	flows = json_tokener_parse(resp);
	free(resp);
	if (!flows || !json_object_is_type(flows, json_type_array)) {
		snprintf(msg, n, "roceccd's /flows.json is not a JSON array");
		json_object_put(flows);
		return NULL;
	}
	return flows;
}

double cli_flow_num(json_object *flow, const char *obj, const char *key)
{
	json_object *h, *v;

	if (!json_object_object_get_ex(flow, obj, &h) ||
	    !json_object_object_get_ex(h, key, &v) || !v)
		return -1.0;
	return json_object_get_double(v);
}

const char *cli_flow_str(json_object *flow, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(flow, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return "";
	return json_object_get_string(v);
}

/* json_object_array_sort() passes no context: the key of this sort. */
static const struct cli_flow_sort *sort_by;

static int cmp_flows(const void *a, const void *b)
{
	json_object *fa = *(json_object *const *)a;
	json_object *fb = *(json_object *const *)b;
	int c;

	if (sort_by->obj) {
		double x = cli_flow_num(fa, sort_by->obj, sort_by->member);
		double y = cli_flow_num(fb, sort_by->obj, sort_by->member);

		if (x != y)
			return x < y ? 1 : -1;
	}
	c = strcmp(cli_flow_str(fa, "flow"), cli_flow_str(fb, "flow"));
	return c ? c : strcmp(cli_flow_str(fa, "dev"), cli_flow_str(fb, "dev"));
}

int cli_flows_sort(json_object *flows, const char *key,
		   const struct cli_flow_sort *keys, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(key, keys[i].key))
			break;
	if (i == n)
		return -1;
	sort_by = &keys[i];
	json_object_array_sort(flows, cmp_flows);
	return 0;
}
