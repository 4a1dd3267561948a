// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc dev attach | detach | show: the devices rocecc.ko runs on, their
 * counters (-s) and software PFC state; dev show lists the BPF
 * datapath's netdevs too (bpf.c), and attach and detach refuse them.
 */
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>
#include <libmnl/libmnl.h>

#include <net/if.h>

#include "dcqcn_bpf.h"
#include "lib/bpf_dp.h"
#include "cli.h"
#include "lib/rocecc_dev.h"

/*
 * The software PFC nest (ROCECC_A_PFC) of a DEV_GET reply, by name. Every
 * value is an unsigned integer of the size the kernel sent (u8/u32/u64);
 * unknown attributes (a newer kernel) are skipped.
 */
static const char *const pfc_names[ROCECC_PFC_A_MAX + 1] = {
	[ROCECC_PFC_A_UNENFORCED] = "unenforced",
	[ROCECC_PFC_A_PAUSE_RX] = "pause_rx",
	[ROCECC_PFC_A_SPEED] = "speed_mbps",
	[ROCECC_PFC_A_TX_ERRORS] = "tx_errors",
	[ROCECC_PFC_A_UNTRACKED] = "untracked",
	[ROCECC_PFC_A_RX_IGNORED] = "rx_ignored",
	[ROCECC_PFC_A_NOT_RXE] = "not_rxe",
	[ROCECC_PFC_A_OCC_EXPIRED] = "occ_expired",
};

static const char *const pfc_prio_names[ROCECC_PFC_PRIO_A_MAX + 1] = {
	[ROCECC_PFC_PRIO_A_PRIO] = "prio",
	[ROCECC_PFC_PRIO_A_EN] = "pfc",
	[ROCECC_PFC_PRIO_A_BUFFER] = "buffer",
	[ROCECC_PFC_PRIO_A_INDICATIONS] = "indications",
	[ROCECC_PFC_PRIO_A_REQUESTS] = "requests",
	[ROCECC_PFC_PRIO_A_OCC] = "occupancy",
	[ROCECC_PFC_PRIO_A_OCC_MAX] = "occupancy_max",
	[ROCECC_PFC_PRIO_A_XOFF] = "xoff",
	[ROCECC_PFC_PRIO_A_XON] = "xon",
	[ROCECC_PFC_PRIO_A_PAUSED] = "pausing_peer",
	[ROCECC_PFC_PRIO_A_TX_PAUSED] = "tx_paused",
	[ROCECC_PFC_PRIO_A_TX_PAUSE_NS] = "tx_pause_ns",
	[ROCECC_PFC_PRIO_A_TX_PAUSES] = "tx_pauses",
	[ROCECC_PFC_PRIO_A_TX_PACKETS] = "tx_packets",
	[ROCECC_PFC_PRIO_A_TX_BYTES] = "tx_bytes",
	[ROCECC_PFC_PRIO_A_TX_BACKLOG] = "tx_backlog",
	[ROCECC_PFC_PRIO_A_TX_PAUSE_RELEASED] = "tx_pause_released",
};

/* One nest's named values into a JSON object, or as " name value" text. */
static void pfc_values(const uint64_t *v, const uint8_t *len,
		       const char *const *names, unsigned int max,
		       json_object *o, bool text)
{
	unsigned int t;

	for (t = 0; t <= max; t++) {
		if (!len[t] || !names[t])
			continue;
		if (o)
			json_object_object_add(o, names[t],
					       json_object_new_uint64(v[t]));
		if (text)
			printf(" %s %llu", names[t], (unsigned long long)v[t]);
	}
}

/*
 * ROCECC_A_PFC: as "pfc" in JSON; as text (with -s) one line for the
 * device and one per priority that has PFC or has seen a frame.
 */
static void dev_show_pfc(const struct rocecc_dev_info *d, json_object *o)
{
	json_object *pfc = o ? json_object_new_object() : NULL;
	json_object *prios = o ? json_object_new_array() : NULL;
	const struct rocecc_dev_prio *pp;
	unsigned int p;

	if (!o)
		printf("    pfc:");
	pfc_values(d->pfc, d->pfc_len, pfc_names, ROCECC_PFC_A_MAX, pfc, !o);
	if (!o)
		putchar('\n');
	for (p = 0; p < ROCECC_DEV_PRIOS; p++) {
		pp = &d->prio[p];
		if (!d->have_prio[p])
			continue;
		if (o) {
			json_object *e = json_object_new_object();

			pfc_values(pp->v, pp->len, pfc_prio_names,
				   ROCECC_PFC_PRIO_A_MAX, e, false);
			json_object_array_add(prios, e);
			continue;
		}
		if (!pp->v[ROCECC_PFC_PRIO_A_EN] &&
		    !pp->v[ROCECC_PFC_PRIO_A_INDICATIONS] &&
		    !pp->v[ROCECC_PFC_PRIO_A_REQUESTS])
			continue;
		printf("     ");
		pfc_values(pp->v, pp->len, pfc_prio_names,
			   ROCECC_PFC_PRIO_A_MAX, NULL, true);
		putchar('\n');
	}
	if (o) {
		json_object_object_add(pfc, "prio", prios);
		json_object_object_add(o, "pfc", pfc);
	}
}

/* The BPF engine's own counters (c->extra) into @s, or as text */
static void dev_show_extra(const struct cli *c, json_object *s)
{
	unsigned int t, n = 0;

	for (t = __ROCECC_STAT_MAX; c->extra && t < __DCQCN_STAT_MAX; t++) {
		if (s) {
			json_object_object_add(s, dcqcn_stat_name(t),
					       json_object_new_uint64(c->extra[t]));
			continue;
		}
		printf("%s%s %llu", n++ ? "  " : "    ", dcqcn_stat_name(t),
		       (unsigned long long)c->extra[t]);
		if (n == 4) {
			putchar('\n');
			n = 0;
		}
	}
	if (n)
		putchar('\n');
}

static void dev_show_json(struct cli *c, const struct rocecc_dev_info *d)
{
	json_object *o = json_object_new_object();
	unsigned int t;

	json_object_object_add(o, "ifindex", json_object_new_int64(d->ifindex));
	json_object_object_add(o, "dev", rd_json_str(d->name ?
								d->name : "default"));
	json_object_object_add(o, "engine", json_object_new_string(
			       c->engine ? c->engine : "module"));
	if (d->sw_dcb >= 0)
		json_object_object_add(o, "sw_dcb",
				       json_object_new_boolean(d->sw_dcb));
	if (d->have_pfc)
		dev_show_pfc(d, o);
	if (c->stats) {
		json_object *s = json_object_new_object();

		for (t = 0; t <= ROCECC_STAT_MAX; t++)
			if (d->have_stat[t])
				json_object_object_add(s, cli_stat_name(t),
						       json_object_new_uint64(d->stat[t]));
		dev_show_extra(c, s);
		json_object_object_add(o, "stats", s);
	}
	out_json(c, o);
}

int dev_show_cb(const struct nlmsghdr *nlh, void *data)
{
	struct cli *c = data;
	struct rocecc_dev_info d;
	char esc[RD_TEXT_MAX(IF_NAMESIZE)];
	unsigned int t, n;

	if (rocecc_dev_parse(nlh, &d) < 0) {
		fprintf(stderr, "%s: malformed attribute %u from the kernel\n",
			cli_prog, d.bad_attr);
		return MNL_CB_ERROR;
	}
	if (c->json) {
		dev_show_json(c, &d);
		return MNL_CB_OK;
	}
	if (!c->rows++)
		printf("%-16s %7s  %s\n", "DEV", "IFINDEX", "ENGINE");
	printf("%-16s %7u  %s\n",
	       d.name ? rd_text_line(d.name, esc, sizeof(esc)) : "default",
	       d.ifindex, c->engine ? c->engine : "module");
	if (!c->stats)
		return MNL_CB_OK;
	/* The mlx5 counters on one line, rocecc's own below, 4 a line. */
	n = 0;
	for (t = 0; t <= ROCECC_STAT_MAX; t++) {
		if (!d.have_stat[t])
			continue;
		printf("%s%s %llu", n++ ? "  " : "    ", cli_stat_name(t),
		       (unsigned long long)d.stat[t]);
		if (t == ROCECC_STAT_RP_CNP_IGNORED || n == 4) {
			putchar('\n');
			n = 0;
		}
	}
	if (n)
		putchar('\n');
	dev_show_extra(c, NULL);
	if (d.have_pfc)
		dev_show_pfc(&d, NULL);
	return MNL_CB_OK;
}

int do_dev(struct cli *c, int argc, char **argv)
{
	struct nlmsghdr *nlh;
	const char *dev;
	int err;

	if (argc < 1 || cli_matches(argv[0], "show") ||
	    cli_matches(argv[0], "list")) {
		if (argc > 2)
			return usage_error("dev show: unexpected '%s'", argv[2]);
		dev = argc == 2 ? argv[1] : NULL;
		if (cli_bpf_drives(c, dev))
			return cli_bpf_dev_show(c, dev) ? CLI_EXIT_FAIL :
							  CLI_EXIT_OK;
		if (dev && need_module(c))
			return CLI_EXIT_FAIL;
		if (c->have_mod) {
			nlh = rnl_msg(&c->nl, ROCECC_CMD_DEV_GET,
				      dev ? NLM_F_ACK : NLM_F_DUMP);
			if (dev)
				mnl_attr_put_strz(nlh, ROCECC_A_DEV_NAME, dev);
			err = rnl_talk(&c->nl, nlh, dev_show_cb, c);
			if (err)
				return nl_error(c, err, "cannot show %s",
						dev ? dev : "devices");
		}
		if (!dev && c->bdp && cli_bpf_dev_show(c, NULL))
			return CLI_EXIT_FAIL;
		return CLI_EXIT_OK;
	}

	if (cli_matches(argv[0], "attach") || cli_matches(argv[0], "detach")) {
		bool attach = argv[0][0] == 'a';

		if (argc != 2)
			return usage_error("dev %s: %s", attach ? "attach" : "detach",
					   argc < 2 ? "which device?" : "one device only");
		dev = argv[1];
		if (strlen(dev) >= 16)
			return usage_error("'%s': device names are at most 15 characters", dev);
		/* the two engines never drive one netdev */
		if (cli_bpf_drives(c, dev)) {
			fprintf(stderr, "%s: cannot %s '%s': the BPF datapath drives it (roceccd [datapath] engine = bpf); %s\n",
				cli_prog, attach ? "attach" : "detach", dev,
				attach ? "it must be detached there first" :
					 "roceccd attached it and detaches it");
			return CLI_EXIT_FAIL;
		}
		if (attach && bpf_dp_on_netdev(if_nametoindex(dev)) > 0) {
			fprintf(stderr, "%s: cannot attach '%s': the BPF datapath's filters (dcqcn_ingress, dcqcn_egress) are on it\n",
				cli_prog, dev);
			return CLI_EXIT_FAIL;
		}
		if (need_module(c))
			return CLI_EXIT_FAIL;
		nlh = rnl_msg(&c->nl, attach ? ROCECC_CMD_DEV_ATTACH :
				      ROCECC_CMD_DEV_DETACH, NLM_F_ACK);
		mnl_attr_put_strz(nlh, ROCECC_A_DEV_NAME, dev);
		err = rnl_talk(&c->nl, nlh, NULL, NULL);
		if (err)
			return nl_error(c, err, "cannot %s '%s'",
					attach ? "attach" : "detach", dev);
		return CLI_EXIT_OK;
	}
	return usage_error("dev: unknown command '%s'", argv[0]);
}
