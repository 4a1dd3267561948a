// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc: the attributes of rocecc.ko's replies and events, and the scope
 * of a request. See cli.h.
 */
#include <stdio.h>
#include <string.h>
#include <libmnl/libmnl.h>

#include "cli.h"

const char *scope_name(const struct cli_scope *sc)
{
	return sc->dev ? sc->dev : "default";
}

void put_scope(struct nlmsghdr *nlh, const struct cli_scope *sc)
{
	if (sc->dev)
		mnl_attr_put_strz(nlh, ROCECC_A_DEV_NAME, sc->dev);
}

int parse_attrs(const struct nlmsghdr *nlh, struct attrs *at)
{
	unsigned int bad = 0;

	if (!rnl_parse(nlh, at->tb, &bad))
		return 0;
	fprintf(stderr, "%s: malformed attribute %u from the kernel\n",
		cli_prog, bad);
	return MNL_CB_ERROR;
}

const char *attr_name(const struct attrs *at)
{
	if (at->tb[ROCECC_A_DEV_NAME])
		return mnl_attr_get_str(at->tb[ROCECC_A_DEV_NAME]);
	return "default";
}

uint32_t attr_ifindex(const struct attrs *at)
{
	return at->tb[ROCECC_A_DEV_IFINDEX] ?
	       mnl_attr_get_u32(at->tb[ROCECC_A_DEV_IFINDEX]) : 0;
}

void parse_params(const struct nlattr *nest, uint32_t v[ROCECC_PARAM_MAX + 1],
		  bool have[ROCECC_PARAM_MAX + 1])
{
	const struct nlattr *a;
	unsigned int id;

	memset(have, 0, sizeof(bool) * (ROCECC_PARAM_MAX + 1));
	if (!nest)
		return;
	mnl_attr_for_each_nested(a, nest) {
		id = mnl_attr_get_type(a);
		if (id == 0 || id > ROCECC_PARAM_MAX ||
		    mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			continue;
		v[id] = mnl_attr_get_u32(a);
		have[id] = true;
	}
}
