// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc - configure and watch rocecc.ko over generic netlink.
 *
 *   rocecc [-j [-p]] [-s] dev attach DEV
 *   rocecc ... dev detach DEV
 *   rocecc ... dev show [DEV]
 *   rocecc ... param show [dev DEV | default] [NAME]
 *   rocecc ... param set [dev DEV | default] NAME VALUE [NAME VALUE ...]
 *   rocecc ... param profile [dev DEV | default] mlx5 | paper
 *   rocecc ... flow show [dev DEV]
 *   rocecc ... monitor
 *   rocecc [-j [-p]] latency [addr ADDR] [port PORT] [sort KEY]   (from roceccd)
 *   rocecc [-j] top [addr ADDR] [port PORT] [sort KEY] [delay SEC] [count N]
 *   rocecc [-j [-p]] pfc show dev IF              (DCB netlink, pfc.h)
 *   rocecc pfc set dev IF [prio-pfc P:on|off,...] [delay BITS] [mbc on|off]
 *   rocecc [-j [-p]] pfc headroom speed SPEED mtu BYTES cable LENGTH ...
 *   rocecc [-j [-p]] buffer show dev IF
 *   rocecc buffer set dev IF [prio-buffer P:B,...] [buffer-size B:SIZE,...]
 *   rocecc help
 *
 * Exit status: 0 success, 1 the kernel refused or something failed,
 * 2 bad command line.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include <rocecc/params.h>
#include <uapi/linux/rocecc.h>

#include "flow.h"
#include "latency.h"
#include "lib/parse.h"
#include "lib/rocecc_nl.h"
#include "pfc.h"
#include "top.h"

struct cli {
	struct rnl nl;
	bool json;
	bool pretty;
	bool stats;
	json_object *out;	/* -j: the array printed at the end */
	unsigned int rows;	/* table rows printed so far */
	const char *filter;	/* param show NAME */
	unsigned int filter_id;
};

static const char *prog = "rocecc";

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: rocecc [OPTIONS] OBJECT COMMAND\n"
		"       rocecc help\n"
		"\n"
		"  rocecc dev attach DEV          start congestion control on DEV\n"
		"  rocecc dev detach DEV          stop it\n"
		"  rocecc dev show [DEV]          attached devices (-s: counters)\n"
		"  rocecc param show [dev DEV | default] [NAME]\n"
		"  rocecc param set [dev DEV | default] NAME VALUE [NAME VALUE ...]\n"
		"  rocecc param profile [dev DEV | default] { mlx5 | paper }\n"
		"  rocecc flow show [dev DEV]     flows of the datapath (-s: statistics)\n"
		"  rocecc monitor                 print events until interrupted: devices\n"
		"                                 attached/detached/gone, parameters changed,\n"
		"                                 flows created/expired\n"
		"  rocecc latency [addr ADDR] [port PORT] [sort p50|p99|p999|rtt|msgs|flow]\n"
		"                                 per-flow message completion and RTT\n"
		"                                 p50/p99/p99.9 (us) from roceccd's HTTP\n"
		"                                 endpoint (default 127.0.0.1 port 9468;\n"
		"                                 sort default p99, slowest first)\n"
		"  rocecc top [addr ADDR] [port PORT] [sort p50|p99|p999|rtt|tx|msgs|flow]\n"
		"             [delay SEC] [count N]\n"
		"                                 live view of roceccd's flows: rates (Mbit/s,\n"
		"                                 messages, CNPs, CE marks per second),\n"
		"                                 percentiles, stragglers (!), groups; every\n"
		"                                 SEC seconds (default 1, 0.1..3600); 'q'\n"
		"                                 quits. Not on a terminal, or with count N\n"
		"                                 (N frames, then exit): batch mode, frames\n"
		"                                 one after another; -j: one JSON object per\n"
		"                                 frame and line\n"
		"  rocecc pfc show dev IF         IEEE PFC of a netdev over DCB netlink: pfc_cap,\n"
		"                                 enabled priorities, mbc, delay, per-priority\n"
		"                                 PFC requests (sent) and indications (received)\n"
		"  rocecc pfc set dev IF [prio-pfc P:on|off[,...]] [delay BITS] [mbc on|off]\n"
		"                                 P is 0..7 or all; delay 0..65535 bits (mlx5:\n"
		"                                 cable length in metres)\n"
		"  rocecc pfc headroom speed SPEED mtu BYTES cable LENGTH [peer-response NS]\n"
		"             [prios P[,...]] [cell BYTES]\n"
		"                                 PFC headroom (802.1Qbb model): buffer size, xoff\n"
		"                                 and xon per lossless priority; SPEED 25G, 100G,\n"
		"                                 ... or Mb/s; LENGTH metres (5m, 2.5)\n"
		"  rocecc buffer show dev IF      DCB buffers: priority to buffer, sizes\n"
		"  rocecc buffer set dev IF [prio-buffer P:B[,...]] [buffer-size B:SIZE[,...]]\n"
		"                                 B is 0..7 (or all); SIZE bytes, or K / M (1024)\n"
		"\n"
		"Parameter sets: 'default' (the default without 'dev') is what devices\n"
		"attached later start with; 'dev DEV' is an attached device's own set.\n"
		"Names and units are the mlx5 ones (rocecc param show lists them);\n"
		"values are decimal or 0x-hexadecimal. The same values are sysctl\n"
		"net.rocecc.default.NAME and net.rocecc.DEV.NAME.\n"
		"\n"
		"OPTIONS: -j JSON output, -p pretty JSON, -s statistics, -h help\n"
		"Exit status: 0 ok, 1 failed (the kernel's reason is shown), 2 usage.\n");
}

static int usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (try 'rocecc help')\n");
	return CLI_EXIT_USAGE;
}

/* "rocecc: WHAT: KERNEL MESSAGE (strerror)". */
static int nl_error(struct cli *c, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int nl_error(struct cli *c, int err, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (c->nl.ext_msg[0])
		fprintf(stderr, ": %s", cli_strip_prefix(c->nl.ext_msg));
	fprintf(stderr, " (%s)\n", strerror(-err));
	return CLI_EXIT_FAIL;
}

static const char *scope_name(const struct cli_scope *sc)
{
	return sc->dev ? sc->dev : "default";
}

static void put_scope(struct nlmsghdr *nlh, const struct cli_scope *sc)
{
	if (sc->dev)
		mnl_attr_put_strz(nlh, ROCECC_A_DEV_NAME, sc->dev);
}

/* --- attribute parsing ------------------------------------------------------ */

struct attrs {
	const struct nlattr *tb[ROCECC_A_MAX + 1];
};

static int attr_cb(const struct nlattr *a, void *data)
{
	struct attrs *at = data;
	unsigned int type = mnl_attr_get_type(a);
	enum mnl_attr_data_type want;

	if (type > ROCECC_A_MAX)
		return MNL_CB_OK;	/* newer kernel: ignore */
	switch (type) {
	case ROCECC_A_DEV_IFINDEX:
	case ROCECC_A_PROFILE:
		want = MNL_TYPE_U32;
		break;
	case ROCECC_A_DEV_NAME:
		want = MNL_TYPE_NUL_STRING;
		break;
	case ROCECC_A_DEV_SW_DCB:
		want = MNL_TYPE_U8;
		break;
	case ROCECC_A_PARAMS:
	case ROCECC_A_STATS:
	case ROCECC_A_FLOW:
	case ROCECC_A_PFC:
		want = MNL_TYPE_NESTED;
		break;
	default:
		return MNL_CB_OK;
	}
	if (mnl_attr_validate(a, want) < 0) {
		fprintf(stderr, "%s: malformed attribute %u from the kernel\n",
			prog, type);
		return MNL_CB_ERROR;
	}
	at->tb[type] = a;
	return MNL_CB_OK;
}

static int parse_attrs(const struct nlmsghdr *nlh, struct attrs *at)
{
	memset(at, 0, sizeof(*at));
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), attr_cb, at);
}

static const char *attr_name(const struct attrs *at)
{
	if (at->tb[ROCECC_A_DEV_NAME])
		return mnl_attr_get_str(at->tb[ROCECC_A_DEV_NAME]);
	return "default";
}

static uint32_t attr_ifindex(const struct attrs *at)
{
	return at->tb[ROCECC_A_DEV_IFINDEX] ?
	       mnl_attr_get_u32(at->tb[ROCECC_A_DEV_IFINDEX]) : 0;
}

/* Parameters of a nest into @v, and which are present into @have. */
static void parse_params(const struct nlattr *nest,
			 uint32_t v[ROCECC_PARAM_MAX + 1],
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

static void out_json(struct cli *c, json_object *o)
{
	if (!c->out)
		c->out = json_object_new_array();
	json_object_array_add(c->out, o);
}

static void flush_json(struct cli *c)
{
	int flags = c->pretty ? JSON_C_TO_STRING_PRETTY : JSON_C_TO_STRING_PLAIN;

	if (!c->json)
		return;
	if (!c->out)
		c->out = json_object_new_array();
	printf("%s\n", json_object_to_json_string_ext(c->out, flags));
	json_object_put(c->out);
	c->out = NULL;
}

/* --- dev ---------------------------------------------------------------------- */

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
};

/* An unsigned attribute of any width, or false. */
static bool attr_uint(const struct nlattr *a, uint64_t *v)
{
	switch (mnl_attr_get_payload_len(a)) {
	case 1:
		*v = mnl_attr_get_u8(a);
		return true;
	case 4:
		*v = mnl_attr_get_u32(a);
		return true;
	case 8:
		*v = mnl_attr_get_u64(a);
		return true;
	}
	return false;
}

/* One nest's named values into a JSON object, or as "name value" text. */
static void pfc_values(const struct nlattr *nest, const char *const *names,
		       unsigned int max, json_object *o, bool text)
{
	const struct nlattr *a;
	unsigned int t;
	uint64_t v;

	mnl_attr_for_each_nested(a, nest) {
		t = mnl_attr_get_type(a);
		if (t > max || !names[t] || !attr_uint(a, &v))
			continue;
		if (o)
			json_object_object_add(o, names[t],
					       json_object_new_uint64(v));
		if (text)
			printf(" %s %llu", names[t], (unsigned long long)v);
	}
}

/*
 * ROCECC_A_PFC: as "pfc" in JSON; as text (with -s) one line for the
 * device and one per priority that has PFC or has seen a frame.
 */
static void dev_show_pfc(const struct nlattr *nest, json_object *o)
{
	json_object *pfc = o ? json_object_new_object() : NULL;
	json_object *prios = o ? json_object_new_array() : NULL;
	const struct nlattr *a, *b;
	uint64_t v;
	bool show;

	if (!o)
		printf("    pfc:");
	pfc_values(nest, pfc_names, ROCECC_PFC_A_MAX, pfc, !o);
	if (!o)
		putchar('\n');
	mnl_attr_for_each_nested(a, nest) {
		if (mnl_attr_get_type(a) != ROCECC_PFC_A_PRIO)
			continue;
		if (o) {
			json_object *e = json_object_new_object();

			pfc_values(a, pfc_prio_names, ROCECC_PFC_PRIO_A_MAX, e,
				   false);
			json_object_array_add(prios, e);
			continue;
		}
		show = false;
		mnl_attr_for_each_nested(b, a) {
			unsigned int t = mnl_attr_get_type(b);

			if ((t == ROCECC_PFC_PRIO_A_EN ||
			     t == ROCECC_PFC_PRIO_A_INDICATIONS ||
			     t == ROCECC_PFC_PRIO_A_REQUESTS) &&
			    attr_uint(b, &v) && v)
				show = true;
		}
		if (!show)
			continue;
		printf("     ");
		pfc_values(a, pfc_prio_names, ROCECC_PFC_PRIO_A_MAX, NULL, true);
		putchar('\n');
	}
	if (o) {
		json_object_object_add(pfc, "prio", prios);
		json_object_object_add(o, "pfc", pfc);
	}
}

static int dev_show_cb(const struct nlmsghdr *nlh, void *data)
{
	struct cli *c = data;
	uint64_t st[ROCECC_STAT_MAX + 1] = { 0 };
	bool have[ROCECC_STAT_MAX + 1] = { false };
	const struct nlattr *a;
	struct attrs at;
	unsigned int t, n;

	if (parse_attrs(nlh, &at) < 0)
		return MNL_CB_ERROR;
	if (at.tb[ROCECC_A_STATS]) {
		mnl_attr_for_each_nested(a, at.tb[ROCECC_A_STATS]) {
			t = mnl_attr_get_type(a);
			/* A newer kernel's counters are skipped, not fatal. */
			if (t > ROCECC_STAT_MAX || !cli_stat_name(t) ||
			    mnl_attr_validate(a, MNL_TYPE_U64) < 0)
				continue;
			st[t] = mnl_attr_get_u64(a);
			have[t] = true;
		}
	}

	if (c->json) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "ifindex",
				       json_object_new_int64(attr_ifindex(&at)));
		json_object_object_add(o, "dev",
				       json_object_new_string(attr_name(&at)));
		if (at.tb[ROCECC_A_DEV_SW_DCB])
			json_object_object_add(o, "sw_dcb",
					       json_object_new_boolean(mnl_attr_get_u8(at.tb[ROCECC_A_DEV_SW_DCB])));
		if (at.tb[ROCECC_A_PFC])
			dev_show_pfc(at.tb[ROCECC_A_PFC], o);
		if (c->stats) {
			json_object *s = json_object_new_object();

			for (t = 0; t <= ROCECC_STAT_MAX; t++)
				if (have[t])
					json_object_object_add(s, cli_stat_name(t),
							       json_object_new_uint64(st[t]));
			json_object_object_add(o, "stats", s);
		}
		out_json(c, o);
		return MNL_CB_OK;
	}

	if (!c->rows++)
		printf("%-16s %7s\n", "DEV", "IFINDEX");
	printf("%-16s %7u\n", attr_name(&at), attr_ifindex(&at));
	if (c->stats) {
		/* The mlx5 counters on one line, rocecc's own below, 4 a line. */
		n = 0;
		for (t = 0; t <= ROCECC_STAT_MAX; t++) {
			if (!have[t])
				continue;
			printf("%s%s %llu", n++ ? "  " : "    ", cli_stat_name(t),
			       (unsigned long long)st[t]);
			if (t == ROCECC_STAT_RP_CNP_IGNORED || n == 4) {
				putchar('\n');
				n = 0;
			}
		}
		if (n)
			putchar('\n');
		if (at.tb[ROCECC_A_PFC])
			dev_show_pfc(at.tb[ROCECC_A_PFC], NULL);
	}
	return MNL_CB_OK;
}

static int do_dev(struct cli *c, int argc, char **argv)
{
	struct nlmsghdr *nlh;
	const char *dev;
	int err;

	if (argc < 1 || cli_matches(argv[0], "show") ||
	    cli_matches(argv[0], "list")) {
		if (argc > 2)
			return usage_error("dev show: unexpected '%s'", argv[2]);
		if (argc == 2) {
			nlh = rnl_msg(&c->nl, ROCECC_CMD_DEV_GET, NLM_F_ACK);
			mnl_attr_put_strz(nlh, ROCECC_A_DEV_NAME, argv[1]);
		} else {
			nlh = rnl_msg(&c->nl, ROCECC_CMD_DEV_GET, NLM_F_DUMP);
		}
		err = rnl_talk(&c->nl, nlh, dev_show_cb, c);
		if (err)
			return nl_error(c, err, "cannot show %s",
					argc == 2 ? argv[1] : "devices");
		flush_json(c);
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

/* --- param ------------------------------------------------------------------ */

static int param_show_cb(const struct nlmsghdr *nlh, void *data)
{
	struct cli *c = data;
	uint32_t v[ROCECC_PARAM_MAX + 1] = { 0 };
	bool have[ROCECC_PARAM_MAX + 1];
	const struct rocecc_param_info *pi;
	const char *profile = "custom";
	struct attrs at;
	unsigned int id;
	char range[32];

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
				       json_object_new_string(attr_name(&at)));
		json_object_object_add(o, "ifindex",
				       json_object_new_int64(attr_ifindex(&at)));
		json_object_object_add(o, "profile",
				       json_object_new_string(profile));
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
			printf("%-16s %s %u %s\n", attr_name(&at), pi->name,
			       v[c->filter_id], pi->unit);
		return MNL_CB_OK;
	}

	if (c->rows++)
		putchar('\n');
	printf("%s: profile %s\n", attr_name(&at), profile);
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
	flush_json(c);
	return CLI_EXIT_OK;
}

static int param_set(struct cli *c, int argc, char **argv)
{
	uint32_t offs[ROCECC_PARAM_MAX + 1];
	const struct rocecc_param_info *pi;
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

	nlh = rnl_msg(&c->nl, ROCECC_CMD_PARAM_SET, NLM_F_ACK);
	put_scope(nlh, &sc);
	nest = mnl_attr_nest_start(nlh, ROCECC_A_PARAMS);
	for (; argc >= 2; argc -= 2, argv += 2) {
		id = rocecc_param_by_name(argv[0]);
		if (!id)
			return usage_error("unknown parameter '%s'", argv[0]);
		pi = rocecc_param_info(id);
		err = cli_parse_u32(argv[1], &v);
		if (err == -ERANGE)
			return usage_error("%s %s: out of range: valid %u..%u %s",
					   pi->name, argv[1], pi->min, pi->max,
					   pi->unit);
		if (err)
			return usage_error("%s %s: not a number", pi->name,
					   argv[1]);
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
	nlh = rnl_msg(&c->nl, ROCECC_CMD_PROFILE_SET, NLM_F_ACK);
	put_scope(nlh, &sc);
	mnl_attr_put_u32(nlh, ROCECC_A_PROFILE, prof);
	err = rnl_talk(&c->nl, nlh, NULL, NULL);
	if (err)
		return nl_error(c, err, "cannot load profile %s into %s",
				argv[0], scope_name(&sc));
	return CLI_EXIT_OK;
}

static int do_param(struct cli *c, int argc, char **argv)
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

/* --- monitor ---------------------------------------------------------------- */

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

		json_object_object_add(o, "event", json_object_new_string(ev));
		json_object_object_add(o, "dev",
				       json_object_new_string(attr_name(&at)));
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
		       attr_name(&at));
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
		printf("%s dev %s ifindex %u\n", ev, attr_name(&at),
		       attr_ifindex(&at));
	}
	fflush(stdout);
	return MNL_CB_OK;
}

static int do_monitor(struct cli *c, int argc, char **argv)
{
	int err;

	if (argc > 0)
		return usage_error("monitor: unexpected '%s'", argv[0]);
	err = rnl_listen(&c->nl, monitor_cb, c);
	if (err == -ENOENT) {
		fprintf(stderr, "%s: the family has no '%s' group\n", prog,
			ROCECC_GENL_MCGRP_EVENTS);
		return CLI_EXIT_FAIL;
	}
	return nl_error(c, err, "monitor");
}

/* --- flow ------------------------------------------------------------------- */

static int do_flow(struct cli *c, int argc, char **argv)
{
	struct cli_flow_opts o = {
		.json = c->json, .pretty = c->pretty, .stats = c->stats,
	};

	return cli_flow(&c->nl, &o, argc, argv);
}

/* --- main ------------------------------------------------------------------- */

int main(int argc, char **argv)
{
	struct cli c = { 0 };
	int (*fn)(struct cli *, int, char **) = NULL;
	int err, ret;

	while (argc > 1 && argv[1][0] == '-' && argv[1][1]) {
		const char *o = argv[1] + 1;

		if (!strcmp(argv[1], "--")) {
			argc--;
			argv++;
			break;
		}
		if (!strcmp(argv[1], "-help") || !strcmp(argv[1], "--help")) {
			usage(stdout);
			return CLI_EXIT_OK;
		}
		for (; *o; o++) {
			switch (*o) {
			case 'j':
				c.json = true;
				break;
			case 'p':
				c.pretty = true;
				break;
			case 's':
				c.stats = true;
				break;
			case 'h':
				usage(stdout);
				return CLI_EXIT_OK;
			default:
				return usage_error("unknown option '-%c'", *o);
			}
		}
		argc--;
		argv++;
	}
	if (argc < 2) {
		usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if (cli_matches(argv[1], "help")) {
		usage(stdout);
		return CLI_EXIT_OK;
	}
	if (cli_matches(argv[1], "latency")) {
		struct cli_latency_opts lo = { .json = c.json, .pretty = c.pretty };

		signal(SIGPIPE, SIG_DFL);
		return cli_latency(&lo, argc - 2, argv + 2);
	}
	if (cli_matches(argv[1], "top")) {
		struct cli_top_opts to = { .json = c.json };

		signal(SIGPIPE, SIG_DFL);
		return cli_top(&to, argc - 2, argv + 2);
	}
	if (cli_matches(argv[1], "pfc") || cli_matches(argv[1], "buffer")) {
		struct cli_pfc_opts po = { .json = c.json, .pretty = c.pretty };

		signal(SIGPIPE, SIG_DFL);
		if (argv[1][0] == 'p')
			return cli_pfc(&po, argc - 2, argv + 2);
		return cli_buffer(&po, argc - 2, argv + 2);
	}
	if (cli_matches(argv[1], "dev"))
		fn = do_dev;
	else if (cli_matches(argv[1], "param"))
		fn = do_param;
	else if (cli_matches(argv[1], "flow"))
		fn = do_flow;
	else if (cli_matches(argv[1], "monitor"))
		fn = do_monitor;
	else
		return usage_error("unknown object '%s'", argv[1]);

	signal(SIGPIPE, SIG_DFL);
	err = rnl_open(&c.nl);
	if (err == -ENOENT) {
		fprintf(stderr, "%s: generic netlink family '%s' not found: is rocecc.ko loaded?\n",
			prog, ROCECC_GENL_NAME);
		return CLI_EXIT_FAIL;
	}
	if (err) {
		fprintf(stderr, "%s: cannot open a generic netlink socket: %s\n",
			prog, strerror(-err));
		return CLI_EXIT_FAIL;
	}
	ret = fn(&c, argc - 2, argv + 2);
	if (c.out)
		json_object_put(c.out);
	rnl_close(&c.nl);
	return ret;
}
