// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc monitor: rocecc.ko's events (devices attached, detached or gone,
 * parameters changed, flows created or expired) until interrupted.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <json-c/json.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include <rocecc/params.h>

#include "cli.h"
#include "flow.h"

static int monitor_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	uint32_t v[ROCECC_PARAM_MAX + 1] = { 0 };
	bool have[ROCECC_PARAM_MAX + 1];
	const struct rocecc_param_info *pi;
	struct cli *c = data;
	const char *ev;
	struct attrs at;
	unsigned int id;
	bool first = true;
	char esc[RD_TEXT_MAX(IF_NAMESIZE)];

	if (nlh->nlmsg_type != c->nl.family)
		return MNL_CB_OK;
	switch (g->cmd) {
	case ROCECC_CMD_DEV_ATTACHED:
		ev = "attached";
		break;
	case ROCECC_CMD_DEV_DETACHED:
		ev = "detached";
		break;
	case ROCECC_CMD_DEV_GONE:
		ev = "gone";
		break;
	case ROCECC_CMD_PARAM_CHANGED:
		ev = "changed";
		break;
	case ROCECC_CMD_FLOW_CREATED:
	case ROCECC_CMD_FLOW_EXPIRED:
		ev = g->cmd == ROCECC_CMD_FLOW_CREATED ? "created" : "expired";
		if (!cli_flow_event(nlh, ev, c->json))
			fflush(stdout);
		return MNL_CB_OK;
	default:
		return MNL_CB_OK;
	}
	if (parse_attrs(nlh, &at) < 0)
		return MNL_CB_OK;
	parse_params(at.tb[ROCECC_A_PARAMS], v, have);

	if (c->json) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "event", rd_json_str(ev));
		json_object_object_add(o, "dev",
				       rd_json_str(attr_name(&at)));
		json_object_object_add(o, "ifindex",
				       json_object_new_int64(attr_ifindex(&at)));
		if (g->cmd == ROCECC_CMD_PARAM_CHANGED) {
			json_object *p = json_object_new_object();

			for (id = 1; id <= ROCECC_PARAM_MAX; id++)
				if (have[id])
					json_object_object_add(p, rocecc_param_info(id)->name,
							       json_object_new_int64(v[id]));
			json_object_object_add(o, "params", p);
		}
		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		json_object_put(o);
	} else if (g->cmd == ROCECC_CMD_PARAM_CHANGED) {
		printf("changed %s%s", at.tb[ROCECC_A_DEV_NAME] ? "dev " : "",
		       rd_text_line(attr_name(&at), esc, sizeof(esc)));
		for (id = 1; id <= ROCECC_PARAM_MAX; id++) {
			if (!have[id])
				continue;
			pi = rocecc_param_info(id);
			printf("%s %s %u %s", first ? "" : ",", pi->name, v[id],
			       pi->unit);
			first = false;
		}
		putchar('\n');
	} else {
		printf("%s dev %s ifindex %u\n", ev,
		       rd_text_line(attr_name(&at), esc, sizeof(esc)),
		       attr_ifindex(&at));
	}
	fflush(stdout);
	return MNL_CB_OK;
}

int do_monitor(struct cli *c, int argc, char **argv)
{
	int err;

	if (argc > 0)
		return usage_error("monitor: unexpected '%s'", argv[0]);
	if (need_module(c))
		return CLI_EXIT_FAIL;
	err = rnl_listen(&c->nl, monitor_cb, c);
	if (err == -ENOENT) {
		fprintf(stderr, "%s: the family has no '%s' group\n", cli_prog,
			ROCECC_GENL_MCGRP_EVENTS);
		return CLI_EXIT_FAIL;
	}
	return nl_error(c, err, "monitor");
}
