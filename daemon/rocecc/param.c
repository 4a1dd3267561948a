// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc param show | set | profile: the default parameter set and each
 * attached device's own, rocecc.ko's or, for a netdev the BPF datapath
 * drives, its (bpf.c; it has no default set: roceccd configures it).
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <json-c/json.h>
#include <libmnl/libmnl.h>

#include <rocecc/params.h>

#include "cli.h"

int param_show_cb(const struct nlmsghdr *nlh, void *data)
{
	struct cli *c = data;
	uint32_t v[ROCECC_PARAM_MAX + 1] = { 0 };
	bool have[ROCECC_PARAM_MAX + 1];
	const struct rocecc_param_info *pi;
	const char *profile = "custom";
	struct attrs at;
	unsigned int id;
	char range[32], esc[RD_TEXT_MAX(IF_NAMESIZE)];

	if (parse_attrs(nlh, &at) < 0)
		return MNL_CB_ERROR;
	parse_params(at.tb[ROCECC_A_PARAMS], v, have);
	if (at.tb[ROCECC_A_PROFILE] &&
	    cli_profile_name(mnl_attr_get_u32(at.tb[ROCECC_A_PROFILE])))
		profile = cli_profile_name(mnl_attr_get_u32(at.tb[ROCECC_A_PROFILE]));

	if (c->json) {
		json_object *o = json_object_new_object();
		json_object *p = json_object_new_object();

		json_object_object_add(o, "dev",
				       rd_json_str(attr_name(&at)));
		json_object_object_add(o, "ifindex",
				       json_object_new_int64(attr_ifindex(&at)));
		json_object_object_add(o, "engine", json_object_new_string(
				       c->engine ? c->engine : "module"));
		json_object_object_add(o, "profile",
				       rd_json_str(profile));
		for (id = 1; id <= ROCECC_PARAM_MAX; id++) {
			pi = rocecc_param_info(id);
			if (!have[id] || (c->filter_id && id != c->filter_id))
				continue;
			json_object_object_add(p, pi->name,
					       json_object_new_int64(v[id]));
		}
		json_object_object_add(o, "params", p);
		out_json(c, o);
		return MNL_CB_OK;
	}

	if (c->filter_id) {
		/* One line per set: "default rp_gd 11 log2". */
		pi = rocecc_param_info(c->filter_id);
		if (have[c->filter_id])
			printf("%-16s %s %u %s\n",
			       rd_text_line(attr_name(&at), esc, sizeof(esc)),
			       pi->name, v[c->filter_id], pi->unit);
		return MNL_CB_OK;
	}

	if (c->rows++)
		putchar('\n');
	printf("%s: profile %s%s%s\n",
	       rd_text_line(attr_name(&at), esc, sizeof(esc)), profile,
	       c->engine ? ", engine " : "", c->engine ? c->engine : "");
	printf("  %-30s %10s  %-8s %s\n", "PARAMETER", "VALUE", "UNIT", "RANGE");
	for (id = 1; id <= ROCECC_PARAM_MAX; id++) {
		if (!have[id])
			continue;
		pi = rocecc_param_info(id);
		snprintf(range, sizeof(range), "%u..%u", pi->min, pi->max);
		printf("  %-30s %10u  %-8s %s\n", pi->name, v[id], pi->unit,
		       range);
	}
	return MNL_CB_OK;
}

static int param_show(struct cli *c, int argc, char **argv)
{
	struct cli_scope sc;
	struct nlmsghdr *nlh;
	int err;

	if (cli_parse_scope(&argc, &argv, &sc))
		return usage_error("param show: 'dev' needs a device name");
	if (argc > 1)
		return usage_error("param show: unexpected '%s'", argv[1]);
	if (argc == 1) {
		c->filter = argv[0];
		c->filter_id = rocecc_param_by_name(argv[0]);
		if (!c->filter_id)
			return usage_error("unknown parameter '%s'", argv[0]);
	}
	if (cli_bpf_drives(c, sc.dev))
		return cli_bpf_param_show(c, sc.dev) ? CLI_EXIT_FAIL :
						       CLI_EXIT_OK;
	if (!sc.given && !c->have_mod)
		return cli_bpf_param_show(c, NULL) ? CLI_EXIT_FAIL :
						     CLI_EXIT_OK;
	if (need_module(c))
		return CLI_EXIT_FAIL;
	if (sc.given) {
		nlh = rnl_msg(&c->nl, ROCECC_CMD_PARAM_GET, NLM_F_ACK);
		put_scope(nlh, &sc);
	} else {
		nlh = rnl_msg(&c->nl, ROCECC_CMD_PARAM_GET, NLM_F_DUMP);
	}
	err = rnl_talk(&c->nl, nlh, param_show_cb, c);
	if (err)
		return nl_error(c, err, "cannot show the parameters of %s",
				sc.given ? scope_name(&sc) : "rocecc");
	if (!sc.given && c->bdp && cli_bpf_param_show(c, NULL))
		return CLI_EXIT_FAIL;
	return CLI_EXIT_OK;
}

int param_pair(const char *name, const char *val, unsigned int *id,
	       uint32_t *v)
{
	const struct rocecc_param_info *pi;
	int err;

	*id = rocecc_param_by_name(name);
	if (!*id)
		return usage_error("unknown parameter '%s'", name);
	pi = rocecc_param_info(*id);
	err = cli_parse_u32(val, v);
	if (err == -ERANGE)
		return usage_error("%s %s: out of range: valid %u..%u %s",
				   pi->name, val, pi->min, pi->max, pi->unit);
	if (err)
		return usage_error("%s %s: not a number", pi->name, val);
	return 0;
}

static int param_set(struct cli *c, int argc, char **argv)
{
	uint32_t offs[ROCECC_PARAM_MAX + 1];
	char *names[ROCECC_PARAM_MAX + 1];
	char *vals[ROCECC_PARAM_MAX + 1];
	struct cli_scope sc;
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	unsigned int id, n = 0, i;
	uint32_t v;
	int err;

	if (cli_parse_scope(&argc, &argv, &sc))
		return usage_error("param set: 'dev' needs a device name");
	if (argc < 2 || argc % 2)
		return usage_error("param set: expected NAME VALUE pairs");
	if (argc / 2 > ROCECC_PARAM_MAX)
		return usage_error("param set: too many parameters");
	if (cli_bpf_drives(c, sc.dev))
		return cli_bpf_param_set(c, sc.dev, argc, argv);
	if (need_module(c))
		return CLI_EXIT_FAIL;

	nlh = rnl_msg(&c->nl, ROCECC_CMD_PARAM_SET, NLM_F_ACK);
	put_scope(nlh, &sc);
	nest = mnl_attr_nest_start(nlh, ROCECC_A_PARAMS);
	for (; argc >= 2; argc -= 2, argv += 2) {
		err = param_pair(argv[0], argv[1], &id, &v);
		if (err)
			return err;
		names[n] = argv[0];
		vals[n] = argv[1];
		offs[n] = (uint32_t)((char *)mnl_nlmsg_get_payload_tail(nlh) -
				     (char *)nlh);
		n++;
		mnl_attr_put_u32(nlh, id, v);
	}
	mnl_attr_nest_end(nlh, nest);

	err = rnl_talk(&c->nl, nlh, NULL, NULL);
	if (err) {
		/* Name the pair the kernel pointed at, if it did. */
		for (i = 0; i < n; i++)
			if (c->nl.ext_offs && c->nl.ext_offs == offs[i])
				return nl_error(c, err, "%s: %s %s",
						scope_name(&sc), names[i], vals[i]);
		return nl_error(c, err, "cannot set parameters of %s",
				scope_name(&sc));
	}
	return CLI_EXIT_OK;
}

static int param_profile(struct cli *c, int argc, char **argv)
{
	struct cli_scope sc;
	struct nlmsghdr *nlh;
	int prof, err;

	if (cli_parse_scope(&argc, &argv, &sc))
		return usage_error("param profile: 'dev' needs a device name");
	if (argc != 1)
		return usage_error("param profile: expected mlx5 or paper");
	prof = cli_profile_by_name(argv[0]);
	if (prof < 0)
		return usage_error("unknown profile '%s': mlx5 or paper", argv[0]);
	if (cli_bpf_drives(c, sc.dev))
		return cli_bpf_profile(c, sc.dev, prof);
	if (need_module(c))
		return CLI_EXIT_FAIL;
	nlh = rnl_msg(&c->nl, ROCECC_CMD_PROFILE_SET, NLM_F_ACK);
	put_scope(nlh, &sc);
	mnl_attr_put_u32(nlh, ROCECC_A_PROFILE, prof);
	err = rnl_talk(&c->nl, nlh, NULL, NULL);
	if (err)
		return nl_error(c, err, "cannot load profile %s into %s",
				argv[0], scope_name(&sc));
	return CLI_EXIT_OK;
}

int do_param(struct cli *c, int argc, char **argv)
{
	if (argc < 1 || cli_matches(argv[0], "show") ||
	    cli_matches(argv[0], "list"))
		return param_show(c, argc ? argc - 1 : 0, argv + (argc ? 1 : 0));
	if (cli_matches(argv[0], "set"))
		return param_set(c, argc - 1, argv + 1);
	if (cli_matches(argv[0], "profile"))
		return param_profile(c, argc - 1, argv + 1);
	return usage_error("param: unknown command '%s'", argv[0]);
}
