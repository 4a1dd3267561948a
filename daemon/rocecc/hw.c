// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc param show | set | profile dev DEV, where DEV is the netdev (or
 * RDMA device) of an mlx5 port: the firmware's DCQCN parameters, through
 * the driver's debugfs cc_params (lib/hwcc.h, docs/hw-mlx5.md), instead of
 * rocecc.ko's. Needs root (debugfs), not rocecc.ko.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

#include <rocecc/params.h>

#include "lib/hwcc.h"
#include "cli.h"

#define BIT(n)	(1U << (n))

/* The profile the firmware holds, or "custom" */
static const char *hw_profile(const struct hwcc_params *hp)
{
	struct rocecc_params p;
	unsigned int prof, id;
	bool same;

	for (prof = 0; prof < __ROCECC_PROFILE_MAX; prof++) {
		rocecc_params_load(&p, prof);
		same = true;
		for (id = 1; id <= ROCECC_PARAM_MAX && same; id++)
			if (hwcc_file_of(id) >= 0 &&
			    (!(hp->have & BIT(id)) || hp->unused & BIT(id) ||
			     hp->p.v[id] != p.v[id]))
				same = false;
		if (same && cli_profile_name((int)prof))
			return cli_profile_name((int)prof);
	}
	return "custom";
}

static const char *hw_note(const struct hwcc_params *hp, unsigned int id)
{
	if (hwcc_file_of(id) < 0)
		return "no firmware file";
	if (!(hp->have & BIT(id)))
		return "unreadable";
	if (hp->unused & BIT(id))
		return "not in force";
	if (hp->out_of_range & BIT(id))
		return "outside rocecc's range";
	return "";
}

static void hw_show_json(struct cli *c, const struct hwcc_dev *d,
			 const struct hwcc_params *hp)
{
	json_object *o = json_object_new_object();
	json_object *p = json_object_new_object();
	json_object *fw = json_object_new_object();
	json_object *na = json_object_new_array();
	const struct hwcc_file *f;
	unsigned int id, i;

	json_object_object_add(o, "dev", rd_json_str(d->netdev[0] ?
						d->netdev : d->ibdev));
	json_object_object_add(o, "engine", rd_json_str("hw"));
	json_object_object_add(o, "rdma_dev", rd_json_str(d->ibdev));
	json_object_object_add(o, "port", json_object_new_int64(d->port));
	json_object_object_add(o, "function", rd_json_str(d->fn));
	json_object_object_add(o, "profile",
			       rd_json_str(hw_profile(hp)));
	for (id = 1; id <= ROCECC_PARAM_MAX; id++) {
		if (c->filter_id && id != c->filter_id)
			continue;
		if (hp->have & BIT(id) && !(hp->unused & BIT(id)))
			json_object_object_add(p, rocecc_param_info(id)->name,
					       json_object_new_int64(hp->p.v[id]));
		else
			json_object_array_add(na, rd_json_str(
					      rocecc_param_info(id)->name));
	}
	for (i = 0; !c->filter_id && (f = hwcc_file(i)); i++)
		if (!f->param && hp->fw_have & BIT(i))
			json_object_object_add(fw, f->name,
					       json_object_new_int64(hp->fw[i]));
	json_object_object_add(o, "params", p);
	json_object_object_add(o, "unavailable", na);
	json_object_object_add(o, "firmware_only", fw);
	out_json(c, o);
	flush_json(c);
}

static void hw_show_text(struct cli *c, const struct hwcc_dev *d,
			 const struct hwcc_params *hp)
{
	char name[RD_TEXT_MAX(sizeof(d->ibdev))];
	char ibdev[RD_TEXT_MAX(sizeof(d->ibdev))], fn[RD_TEXT_MAX(sizeof(d->fn))];
	const struct rocecc_param_info *pi;
	const struct hwcc_file *f;
	char range[32], val[16], line[128];
	unsigned int id, i;
	size_t n;

	rd_text_line(d->netdev[0] ? d->netdev : d->ibdev, name, sizeof(name));

	if (c->filter_id) {
		pi = rocecc_param_info(c->filter_id);
		if (hp->have & BIT(c->filter_id))
			printf("%-16s %s %u %s\n", name, pi->name,
			       hp->p.v[c->filter_id], pi->unit);
		return;
	}
	printf("%s: profile %s (mlx5 firmware, %s port %u, %s)\n", name,
	       hw_profile(hp), rd_text_line(d->ibdev, ibdev, sizeof(ibdev)),
	       d->port, rd_text_line(d->fn, fn, sizeof(fn)));
	printf("  %-30s %10s  %-8s %-14s NOTE\n", "PARAMETER", "VALUE", "UNIT",
	       "RANGE");
	for (id = 1; id <= ROCECC_PARAM_MAX; id++) {
		pi = rocecc_param_info(id);
		snprintf(range, sizeof(range), "%u..%u", pi->min, pi->max);
		snprintf(val, sizeof(val), hp->have & BIT(id) ? "%u" : "-",
			 hp->p.v[id]);
		snprintf(line, sizeof(line), "  %-30s %10s  %-8s %-14s %s",
			 pi->name, val, pi->unit, range, hw_note(hp, id));
		line[strcspn(line, "\n")] = '\0';
		for (n = strlen(line); n && line[n - 1] == ' '; n--)
			line[n - 1] = '\0';
		puts(line);
	}
	for (i = 0; (f = hwcc_file(i)); i++)
		if (!f->param && hp->fw_have & BIT(i))
			printf("  %-30s %10u  %-23s firmware only\n", f->name,
			       hp->fw[i], "");
}

static int hw_show(struct cli *c, const struct hwcc_io *io,
		   const struct hwcc_dev *d, int argc, char **argv)
{
	struct hwcc_params hp;
	char err[512];

	if (argc > 1)
		return usage_error("param show: unexpected '%s'", argv[1]);
	if (argc == 1) {
		c->filter_id = rocecc_param_by_name(argv[0]);
		if (!c->filter_id)
			return usage_error("unknown parameter '%s'", argv[0]);
	}
	if (hwcc_read_params(io, d, &hp, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", cli_prog, err);
		return CLI_EXIT_FAIL;
	}
	if (c->json)
		hw_show_json(c, d, &hp);
	else
		hw_show_text(c, d, &hp);
	return CLI_EXIT_OK;
}

/* NAME VALUE pairs onto @want, their bits into @mask */
static int hw_pairs(int argc, char **argv, struct rocecc_params *want,
		    uint32_t *mask)
{
	unsigned int id;
	uint32_t v;
	int err;

	if (argc < 2 || argc % 2)
		return usage_error("param set: expected NAME VALUE pairs");
	for (; argc >= 2; argc -= 2, argv += 2) {
		err = param_pair(argv[0], argv[1], &id, &v);
		if (err)
			return err;
		want->v[id] = v;
		*mask |= BIT(id);
	}
	return 0;
}

static int hw_set(struct cli *c, const struct hwcc_io *io,
		  const struct hwcc_dev *d, bool profile, int argc,
		  char **argv)
{
	struct hwcc_write done[HWCC_NFILES_MAX];
	struct rocecc_params want;
	uint32_t mask = 0;
	char err[512], name[RD_TEXT_MAX(sizeof(d->ibdev))];
	size_t nd, k;
	int prof, r;

	(void)c;
	rd_text_line(d->netdev[0] ? d->netdev : d->ibdev, name, sizeof(name));
	rocecc_params_load(&want, ROCECC_PROFILE_MLX5);
	if (profile) {
		if (argc != 1)
			return usage_error("param profile: expected mlx5 or paper");
		prof = cli_profile_by_name(argv[0]);
		if (prof < 0)
			return usage_error("unknown profile '%s': mlx5 or paper",
					   argv[0]);
		rocecc_params_load(&want, (unsigned int)prof);
		mask = HWCC_MASK_ALL;
	} else {
		r = hw_pairs(argc, argv, &want, &mask);
		if (r)
			return r;
	}
	r = hwcc_apply(io, d, &want, mask, done, &nd, err, sizeof(err));
	for (k = 0; k < nd; k++)
		fprintf(stderr, "%s: %s %u -> %u\n", name,
			rocecc_param_info(done[k].id)->name, done[k].from,
			done[k].to);
	if (r < 0) {
		fprintf(stderr, "%s: %s: %s\n", cli_prog, name, err);
		return CLI_EXIT_FAIL;
	}
	return CLI_EXIT_OK;
}

int cli_hw_param(struct cli *c, const char *root, int argc, char **argv)
{
	struct cli_scope sc;
	struct hwcc_dev d;
	struct hwcc_io io;
	char **rest;
	int n;

	if (argc < 1 || !(cli_matches(argv[0], "show") ||
			  cli_matches(argv[0], "list") ||
			  cli_matches(argv[0], "set") ||
			  cli_matches(argv[0], "profile")))
		return -1;
	n = argc - 1;
	rest = argv + 1;
	if (cli_parse_scope(&n, &rest, &sc) || !sc.dev)
		return -1;
	if (hwcc_io_init(&io, root)) {
		fprintf(stderr, "%s: --hw-root %s: too long\n", cli_prog, root);
		return CLI_EXIT_USAGE;
	}
	if (hwcc_find(&io, sc.dev, &d, NULL, 0))
		return -1;	/* not mlx5: rocecc.ko's */
	if (cli_matches(argv[0], "set"))
		return hw_set(c, &io, &d, false, n, rest);
	if (cli_matches(argv[0], "profile"))
		return hw_set(c, &io, &d, true, n, rest);
	return hw_show(c, &io, &d, n, rest);
}
