// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc on the netdevs the BPF datapath drives (roceccd --datapath bpf):
 * its maps as roceccd pinned them (--pin-dir, default /sys/fs/bpf/rocecc),
 * opened with lib/bpf_dp.h (root), nothing loaded. What they hold is put
 * into messages with the attributes of rocecc.ko's replies (PARAM_GET,
 * DEV_GET, FLOW_GET) and printed by the same printers (param.c, dev.c,
 * flow.c): one output for both engines, key for key, with "engine"
 * telling them apart. The engine's own counters (ce_answered, ...) come
 * after the module's.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include <rocecc/params.h>

#include "lib/bpf_dp.h"
#include "cli.h"
#include "flow.h"

#define CLI_BPF_DEVS	DCQCN_MAX_DEVS

void cli_bpf_open(struct cli *c, const char *pin_dir)
{
	char err[200];

	c->bdp_err[0] = '\0';
	c->bdp = bpf_dp_open_pinned(pin_dir, err, sizeof(err));
	/* pinned, but unreadable (not root) or another version's */
	if (!c->bdp && errno != ENOENT)
		snprintf(c->bdp_err, sizeof(c->bdp_err), "%s%s", err,
			 errno == EACCES || errno == EPERM ?
			 " (root needed)" : "");
}

void cli_bpf_close(struct cli *c)
{
	bpf_dp_close(c->bdp);
	c->bdp = NULL;
}

bool cli_bpf_drives(struct cli *c, const char *dev)
{
	struct bpf_dp_dev_cfg cfg;
	uint32_t ifx;

	if (!c->bdp || !dev || !(ifx = if_nametoindex(dev)))
		return false;
	return !bpf_dp_dev_get(c->bdp, ifx, &cfg);
}

/* A reply-shaped message: the netlink and generic netlink headers */
static struct nlmsghdr *msg_start(char *buf)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

	mnl_nlmsg_put_extra_header(nlh, sizeof(struct genlmsghdr));
	return nlh;
}

static void put_dev(struct nlmsghdr *nlh, uint32_t ifx)
{
	char name[IF_NAMESIZE];

	if (!if_indextoname(ifx, name))
		snprintf(name, sizeof(name), "if%u", ifx);
	mnl_attr_put_u32(nlh, ROCECC_A_DEV_IFINDEX, ifx);
	mnl_attr_put_strz(nlh, ROCECC_A_DEV_NAME, name);
}

/* The profile @p is, as rocecc.ko reports it: a name, or none (custom) */
static int profile_of(const struct rocecc_params *p)
{
	struct rocecc_params q;
	unsigned int prof;

	for (prof = 0; prof < __ROCECC_PROFILE_MAX; prof++) {
		rocecc_params_load(&q, prof);
		if (!memcmp(q.v + 1, p->v + 1, sizeof(q.v[0]) * ROCECC_PARAM_MAX))
			return (int)prof;
	}
	return -1;
}

/* ---- param ---------------------------------------------------------- */

/* @ifx's parameters as a PARAM_GET reply, to param.c's printer */
static int param_show_one(struct cli *c, uint32_t ifx)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = msg_start(buf);
	struct bpf_dp_dev_cfg cfg;
	struct nlattr *nest;
	unsigned int id;
	int prof, err;

	err = bpf_dp_dev_get(c->bdp, ifx, &cfg);
	if (err)
		return err;
	put_dev(nlh, ifx);
	prof = profile_of(&cfg.params);
	if (prof >= 0)
		mnl_attr_put_u32(nlh, ROCECC_A_PROFILE, (uint32_t)prof);
	nest = mnl_attr_nest_start(nlh, ROCECC_A_PARAMS);
	for (id = 1; id <= ROCECC_PARAM_MAX; id++)
		mnl_attr_put_u32(nlh, (uint16_t)id, cfg.params.v[id]);
	mnl_attr_nest_end(nlh, nest);
	c->engine = "bpf";
	err = param_show_cb(nlh, c) == MNL_CB_ERROR ? -EBADMSG : 0;
	c->engine = NULL;
	return err;
}

int cli_bpf_param_show(struct cli *c, const char *dev)
{
	uint32_t devs[CLI_BPF_DEVS];
	int i, n;

	if (dev)
		return param_show_one(c, if_nametoindex(dev));
	n = bpf_dp_devs(c->bdp, devs, CLI_BPF_DEVS);
	for (i = 0; i < n; i++)
		param_show_one(c, devs[i]);
	return 0;
}

/* New parameters for @dev: what @set says over what it has */
static int param_write(struct cli *c, const char *dev,
		       const struct rocecc_params *p)
{
	char err[512];
	int e;

	e = bpf_dp_set_params(c->bdp, if_nametoindex(dev), p, err,
			      sizeof(err));
	if (!e)
		return CLI_EXIT_OK;
	fprintf(stderr, "%s: cannot set the parameters of %s (BPF datapath): %s\n",
		cli_prog, dev, e == -EINVAL ? err : strerror(-e));
	return CLI_EXIT_FAIL;
}

int cli_bpf_param_set(struct cli *c, const char *dev, int argc, char **argv)
{
	struct bpf_dp_dev_cfg cfg;
	unsigned int id;
	uint32_t v;
	int err;

	if (bpf_dp_dev_get(c->bdp, if_nametoindex(dev), &cfg))
		return CLI_EXIT_FAIL;
	for (; argc >= 2; argc -= 2, argv += 2) {
		err = param_pair(argv[0], argv[1], &id, &v);
		if (err)
			return err;
		cfg.params.v[id] = v;
	}
	return param_write(c, dev, &cfg.params);
}

int cli_bpf_profile(struct cli *c, const char *dev, int profile)
{
	struct rocecc_params p;

	rocecc_params_load(&p, (unsigned int)profile);
	return param_write(c, dev, &p);
}

/* ---- dev -------------------------------------------------------------- */

/* @ifx's counters as a DEV_GET reply, to dev.c's printer */
static int dev_show_one(struct cli *c, uint32_t ifx)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = msg_start(buf);
	uint64_t v[__DCQCN_STAT_MAX];
	struct nlattr *nest;
	unsigned int t;
	int err;

	err = bpf_dp_stats(c->bdp, ifx, v);
	if (err)
		return err;
	put_dev(nlh, ifx);
	nest = mnl_attr_nest_start(nlh, ROCECC_A_STATS);
	for (t = ROCECC_STAT_NP_CNP_SENT; t < __ROCECC_STAT_MAX; t++)
		mnl_attr_put_u64(nlh, (uint16_t)t, v[t]);
	mnl_attr_nest_end(nlh, nest);
	c->engine = "bpf";
	c->extra = v;
	err = dev_show_cb(nlh, c) == MNL_CB_ERROR ? -EBADMSG : 0;
	c->engine = NULL;
	c->extra = NULL;
	return err;
}

int cli_bpf_dev_show(struct cli *c, const char *dev)
{
	uint32_t devs[CLI_BPF_DEVS];
	int i, n;

	if (dev)
		return dev_show_one(c, if_nametoindex(dev));
	n = bpf_dp_devs(c->bdp, devs, CLI_BPF_DEVS);
	for (i = 0; i < n; i++)
		dev_show_one(c, devs[i]);
	return 0;
}

/* ---- flow ------------------------------------------------------------- */

struct flow_feed {
	struct bpf_dp *bdp;
	mnl_cb_t cb;
	void *data;
	uint64_t now;
	uint32_t ifx;			/* the params are @ifx's */
	struct bpf_dp_dev_cfg cfg;
};

static int flow_one(const struct dcqcn_flow_key *k, const struct dcqcn_flow *f,
		    void *data)
{
	struct flow_feed *ff = data;
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = msg_start(buf);

	if (ff->ifx != k->ifindex) {
		if (bpf_dp_dev_get(ff->bdp, k->ifindex, &ff->cfg))
			return 0;	/* a flow of a netdev not attached */
		ff->ifx = k->ifindex;
	}
	bpf_dp_flow_put(nlh, k, f, &ff->cfg.params, ff->now);
	return ff->cb(nlh, ff->data) == MNL_CB_ERROR ? -EBADMSG : 0;
}

int cli_bpf_flows(struct cli *c, const char *dev, mnl_cb_t cb, void *data)
{
	struct flow_feed ff = { .bdp = c->bdp, .cb = cb, .data = data };
	struct timespec ts;
	uint32_t ifx = 0;

	if (dev && !(ifx = if_nametoindex(dev)))
		return -ENODEV;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ff.now = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	return bpf_dp_flow_foreach(c->bdp, ifx, flow_one, &ff);
}
