// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc flow show [dev DEV]: one line per flow (remote address and QP,
 * local QP, DCQCN rates and alpha, traffic, CNPs both ways, pacing budget);
 * -s adds pacing, increase and timing statistics; -j prints every
 * attribute as JSON (rates in kb/s, times in ns of CLOCK_MONOTONIC, 0 =
 * never). Also the monitor's lines for the flow events. rocecc.ko's
 * flows and the BPF datapath's (bpf.c, the same attributes) go through
 * the same printer; -j names the engine.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <json-c/json.h>
#include <libmnl/libmnl.h>

#include <uapi/linux/rocecc.h>

#include "cli.h"
#include "flow.h"
#include "lib/array.h"
#include "lib/format.h"
#include "lib/parse.h"

/* Attributes of one flow, as the kernel sent them. */
struct flow {
	uint32_t ifindex;
	const struct nlattr *tb[ROCECC_FLOW_A_MAX + 1];
};

struct flow_ctx {
	const struct cli_flow_opts *o;
	const char *engine;	/* "module" or "bpf" */
	json_object *arr;
	unsigned int rows;
	uint64_t now;		/* CLOCK_MONOTONIC ns, for "ago" */
};

/* Expected type of each attribute; MNL_TYPE_UNSPEC = not ours. */
static enum mnl_attr_data_type flow_attr_type(unsigned int t)
{
	switch (t) {
	case ROCECC_FLOW_A_RADDR:
	case ROCECC_FLOW_A_LADDR:
		return MNL_TYPE_BINARY;
	case ROCECC_FLOW_A_RQPN:
	case ROCECC_FLOW_A_LQPN:
	case ROCECC_FLOW_A_RC:
	case ROCECC_FLOW_A_RT:
	case ROCECC_FLOW_A_ALPHA:
	case ROCECC_FLOW_A_PACING_BUDGET:
	case ROCECC_FLOW_A_QP_TIMEOUT:
		return MNL_TYPE_U32;
	case ROCECC_FLOW_A_LIMITED:
	case ROCECC_FLOW_A_BUDGET_KNOWN:
		return MNL_TYPE_U8;
	case ROCECC_FLOW_A_UNSPEC:
	case ROCECC_FLOW_A_PAD:
		return MNL_TYPE_UNSPEC;
	default:
		return t <= ROCECC_FLOW_A_MAX ? MNL_TYPE_U64 : MNL_TYPE_UNSPEC;
	}
}

static int flow_attr_cb(const struct nlattr *a, void *data)
{
	struct flow *f = data;
	unsigned int t = mnl_attr_get_type(a);
	enum mnl_attr_data_type want = flow_attr_type(t);

	if (want == MNL_TYPE_UNSPEC)
		return MNL_CB_OK;	/* padding, or a newer kernel's */
	if (want == MNL_TYPE_BINARY ? mnl_attr_get_payload_len(a) != 16 :
	    mnl_attr_validate(a, want) < 0)
		return MNL_CB_OK;	/* malformed: leave it out */
	f->tb[t] = a;
	return MNL_CB_OK;
}

static uint64_t u64_of(const struct flow *f, unsigned int t)
{
	const struct nlattr *a = f->tb[t];

	if (!a)
		return 0;
	switch (flow_attr_type(t)) {
	case MNL_TYPE_U8:
		return mnl_attr_get_u8(a);
	case MNL_TYPE_U32:
		return mnl_attr_get_u32(a);
	case MNL_TYPE_U64:
		return mnl_attr_get_u64(a);
	default:
		return 0;
	}
}

/* An address attribute as text: dotted quad if IPv4-mapped. */
static const char *addr_str(const struct flow *f, unsigned int t, char *buf,
			    size_t len)
{
	static const uint8_t v4pfx[12] = { [10] = 0xff, [11] = 0xff };
	const uint8_t *a;

	if (!f->tb[t])
		return "-";
	a = mnl_attr_get_payload(f->tb[t]);
	if (!memcmp(a, v4pfx, sizeof(v4pfx)))
		return inet_ntop(AF_INET, a + 12, buf, len);
	return inet_ntop(AF_INET6, a, buf, len);
}

/* JSON names of the attributes, in attribute order. */
static const char *const flow_json_name[ROCECC_FLOW_A_MAX + 1] = {
	[ROCECC_FLOW_A_RADDR] = "raddr",
	[ROCECC_FLOW_A_RQPN] = "rqpn",
	[ROCECC_FLOW_A_LQPN] = "lqpn",
	[ROCECC_FLOW_A_RC] = "rate_kbps",
	[ROCECC_FLOW_A_RT] = "target_kbps",
	[ROCECC_FLOW_A_ALPHA] = "alpha",
	[ROCECC_FLOW_A_BYTES] = "bytes",
	[ROCECC_FLOW_A_CNP_HANDLED] = "cnp_handled",
	[ROCECC_FLOW_A_CNP_IGNORED] = "cnp_ignored",
	[ROCECC_FLOW_A_CNP_SENT] = "cnp_sent",
	[ROCECC_FLOW_A_CE_SEEN] = "ce_seen",
	[ROCECC_FLOW_A_LAST_CNP_RX] = "last_cnp_rx_ns",
	[ROCECC_FLOW_A_LAST_CNP_TX] = "last_cnp_tx_ns",
	[ROCECC_FLOW_A_LAST_CUT] = "last_cut_ns",
	[ROCECC_FLOW_A_LAST_INCREASE] = "last_increase_ns",
	[ROCECC_FLOW_A_PACING_BUDGET] = "pacing_budget_us",
	[ROCECC_FLOW_A_PACKETS] = "packets",
	[ROCECC_FLOW_A_PACING_DELAYED] = "pacing_delayed",
	[ROCECC_FLOW_A_PACING_CAPPED] = "pacing_capped",
	[ROCECC_FLOW_A_PACING_BACKLOG] = "pacing_backlog_ns",
	[ROCECC_FLOW_A_QP_TIMEOUT] = "qp_timeout",
	[ROCECC_FLOW_A_LIMITED] = "limited",
	[ROCECC_FLOW_A_CNP_SUPPRESSED] = "cnp_suppressed",
	[ROCECC_FLOW_A_LADDR] = "laddr",
	[ROCECC_FLOW_A_LAST_ACTIVE] = "last_active_ns",
	[ROCECC_FLOW_A_INC_TIMER] = "inc_timer",
	[ROCECC_FLOW_A_INC_BYTE] = "inc_byte",
	[ROCECC_FLOW_A_CUTS] = "cuts",
	[ROCECC_FLOW_A_CNP_TX_ERRORS] = "cnp_tx_errors",
	[ROCECC_FLOW_A_UNPACED_PACKETS] = "unpaced_packets",
	[ROCECC_FLOW_A_BUDGET_KNOWN] = "budget_known",
	[ROCECC_FLOW_A_STATE_NS] = "state_ns",
	[ROCECC_FLOW_A_PACING_ACKREQ] = "pacing_ackreq",
};

/* Every attribute of @f into @o, after "dev" and "ifindex". */
static void flow_json_add(json_object *o, const struct flow *f,
			  const char *dev)
{
	char buf[INET6_ADDRSTRLEN];
	unsigned int t;

	json_object_object_add(o, "dev", rd_json_str(dev));
	json_object_object_add(o, "ifindex", json_object_new_int64(f->ifindex));
	for (t = 0; t <= ROCECC_FLOW_A_MAX; t++) {
		if (!f->tb[t] || !flow_json_name[t])
			continue;
		if (flow_attr_type(t) == MNL_TYPE_BINARY)
			json_object_object_add(o, flow_json_name[t],
					       rd_json_str(addr_str(f, t, buf, sizeof(buf))));
		else
			json_object_object_add(o, flow_json_name[t],
					       json_object_new_uint64(u64_of(f, t)));
	}
}

static json_object *flow_json(const struct flow *f, const char *dev)
{
	json_object *o = json_object_new_object();

	flow_json_add(o, f, dev);
	return o;
}

/* "12.3ms" ago, or "never". */
static const char *ago(const struct flow_ctx *c, uint64_t t, char *buf,
		       size_t len)
{
	if (!t)
		return "never";
	snprintf(buf, len, "%.1fms", t > c->now ? 0.0 : (c->now - t) / 1e6);
	return buf;
}

static void flow_text(struct flow_ctx *c, const struct flow *f,
		      const char *dev)
{
	char ra[INET6_ADDRSTRLEN], la[INET6_ADDRSTRLEN], b1[32], b2[32], b3[32];
	char lqpn[16], esc[RD_TEXT_MAX(IF_NAMESIZE)];

	if (!c->rows++)
		printf("%-10s %-16s %8s %8s %10s %10s %5s %12s %9s %9s %9s %9s\n",
		       "DEV", "REMOTE", "RQPN", "LQPN", "RATE", "TARGET", "ALPHA",
		       "BYTES", "CNP_RX", "CNP_IGN", "CNP_TX", "BUDGET");
	if (f->tb[ROCECC_FLOW_A_LQPN])
		snprintf(lqpn, sizeof(lqpn), "%#llx",
			 (unsigned long long)u64_of(f, ROCECC_FLOW_A_LQPN));
	else
		snprintf(lqpn, sizeof(lqpn), "-");
	printf("%-10s %-16s %#8llx %8s %9.3fM %9.3fM %5llu %12llu %9llu %9llu %9llu %7.1fms%s\n",
	       rd_text_line(dev, esc, sizeof(esc)),
	       addr_str(f, ROCECC_FLOW_A_RADDR, ra, sizeof(ra)),
	       (unsigned long long)u64_of(f, ROCECC_FLOW_A_RQPN), lqpn,
	       u64_of(f, ROCECC_FLOW_A_RC) / 1000.0,
	       u64_of(f, ROCECC_FLOW_A_RT) / 1000.0,
	       (unsigned long long)u64_of(f, ROCECC_FLOW_A_ALPHA),
	       (unsigned long long)u64_of(f, ROCECC_FLOW_A_BYTES),
	       (unsigned long long)u64_of(f, ROCECC_FLOW_A_CNP_HANDLED),
	       (unsigned long long)u64_of(f, ROCECC_FLOW_A_CNP_IGNORED),
	       (unsigned long long)u64_of(f, ROCECC_FLOW_A_CNP_SENT),
	       u64_of(f, ROCECC_FLOW_A_PACING_BUDGET) / 1000.0,
	       u64_of(f, ROCECC_FLOW_A_BUDGET_KNOWN) ? "" : "?");
	if (!c->o->stats)
		return;
	printf("    packets %llu  unpaced %llu  delayed %llu  capped %llu  ackreq %llu  backlog %.3fms  qp_timeout %s%llu\n",
	       (unsigned long long)u64_of(f, ROCECC_FLOW_A_PACKETS),
	       (unsigned long long)u64_of(f, ROCECC_FLOW_A_UNPACED_PACKETS),
	       (unsigned long long)u64_of(f, ROCECC_FLOW_A_PACING_DELAYED),
	       (unsigned long long)u64_of(f, ROCECC_FLOW_A_PACING_CAPPED),
	       (unsigned long long)u64_of(f, ROCECC_FLOW_A_PACING_ACKREQ),
	       u64_of(f, ROCECC_FLOW_A_PACING_BACKLOG) / 1e6,
	       f->tb[ROCECC_FLOW_A_QP_TIMEOUT] ? "" : "unknown ",
	       (unsigned long long)u64_of(f, ROCECC_FLOW_A_QP_TIMEOUT));
	printf("    limited %llu  cuts %llu  inc_timer %llu  inc_byte %llu  last cut %s  last increase %s\n",
	       (unsigned long long)u64_of(f, ROCECC_FLOW_A_LIMITED),
	       (unsigned long long)u64_of(f, ROCECC_FLOW_A_CUTS),
	       (unsigned long long)u64_of(f, ROCECC_FLOW_A_INC_TIMER),
	       (unsigned long long)u64_of(f, ROCECC_FLOW_A_INC_BYTE),
	       ago(c, u64_of(f, ROCECC_FLOW_A_LAST_CUT), b1, sizeof(b1)),
	       ago(c, u64_of(f, ROCECC_FLOW_A_LAST_INCREASE), b2, sizeof(b2)));
	printf("    ce_seen %llu  cnp_suppressed %llu  cnp_tx_errors %llu  local %s  last cnp rx %s  tx %s\n",
	       (unsigned long long)u64_of(f, ROCECC_FLOW_A_CE_SEEN),
	       (unsigned long long)u64_of(f, ROCECC_FLOW_A_CNP_SUPPRESSED),
	       (unsigned long long)u64_of(f, ROCECC_FLOW_A_CNP_TX_ERRORS),
	       addr_str(f, ROCECC_FLOW_A_LADDR, la, sizeof(la)),
	       ago(c, u64_of(f, ROCECC_FLOW_A_LAST_CNP_RX), b1, sizeof(b1)),
	       ago(c, u64_of(f, ROCECC_FLOW_A_LAST_CNP_TX), b3, sizeof(b3)));
}

/* Parse one message of a flow; -1 if it carries none or is malformed. */
static int flow_parse(const struct nlmsghdr *nlh, struct flow *f,
		      char name[IF_NAMESIZE])
{
	const struct nlattr *tb[ROCECC_A_MAX + 1];
	unsigned int bad;

	memset(f, 0, sizeof(*f));
	if (rnl_parse(nlh, tb, &bad) || !tb[ROCECC_A_FLOW])
		return -1;
	if (tb[ROCECC_A_DEV_IFINDEX])
		f->ifindex = mnl_attr_get_u32(tb[ROCECC_A_DEV_IFINDEX]);
	mnl_attr_parse_nested(tb[ROCECC_A_FLOW], flow_attr_cb, f);
	if (!f->tb[ROCECC_FLOW_A_RADDR])
		return -1;
	if (!if_indextoname(f->ifindex, name))
		snprintf(name, IF_NAMESIZE, "if%u", f->ifindex);
	return 0;
}

static int flow_cb(const struct nlmsghdr *nlh, void *data)
{
	struct flow_ctx *c = data;
	char name[IF_NAMESIZE];
	struct flow f;

	if (flow_parse(nlh, &f, name))
		return MNL_CB_OK;
	if (c->o->json) {
		json_object *o = flow_json(&f, name);

		json_object_object_add(o, "engine",
				       json_object_new_string(c->engine));
		json_object_array_add(c->arr, o);
	} else
		flow_text(c, &f, name);
	return MNL_CB_OK;
}

/*
 * A flow dump's messages, kept until the dump turns out whole: one during
 * which flows came or went (NLM_F_DUMP_INTR) may miss or repeat some.
 */
struct flow_dump {
	struct nlmsghdr **msg;
	size_t n, cap;
	int err;		/* -ENOMEM if a message could not be kept */
};

/* Tries of a dump before its listing is shown with a warning. */
#define FLOW_DUMP_TRIES	4

static int flow_keep(const struct nlmsghdr *nlh, void *data)
{
	struct flow_dump *d = data;
	struct nlmsghdr **msg;

	msg = array_grow(d->msg, &d->cap, d->n + 1, sizeof(*msg));
	if (!msg)
		goto nomem;
	d->msg = msg;
	msg[d->n] = malloc(nlh->nlmsg_len);
	if (!msg[d->n])
		goto nomem;
	memcpy(msg[d->n++], nlh, nlh->nlmsg_len);
	return MNL_CB_OK;
nomem:
	d->err = -ENOMEM;
	return MNL_CB_STOP;
}

static void flow_dump_clear(struct flow_dump *d)
{
	while (d->n)
		free(d->msg[--d->n]);
	d->err = 0;
}

/* Dump rocecc.ko's flows (of @dev, or all) into @d; again if interrupted. */
static int flow_dump_module(struct rnl *nl, const char *dev,
			    struct flow_dump *d)
{
	struct nlmsghdr *nlh;
	int err, try;

	for (try = 1; ; try++) {
		flow_dump_clear(d);
		nlh = rnl_msg(nl, ROCECC_CMD_FLOW_GET, NLM_F_DUMP);
		if (dev)
			mnl_attr_put_strz(nlh, ROCECC_A_DEV_NAME, dev);
		err = rnl_talk(nl, nlh, flow_keep, d);
		if (!err)
			err = d->err;
		if (err || !nl->dump_intr || try == FLOW_DUMP_TRIES)
			break;
	}
	if (!err && nl->dump_intr)
		fprintf(stderr, "rocecc: flows came and went during each of %d dumps: this listing may miss or repeat some\n",
			FLOW_DUMP_TRIES);
	return err;
}

/* The flows of rocecc.ko (of @dev, or all) through flow_cb() */
static int flow_module(struct cli *cl, const char *dev, struct flow_ctx *c)
{
	struct flow_dump d = { 0 };
	struct rnl *nl = &cl->nl;
	size_t i;
	int err;

	c->engine = "module";
	err = flow_dump_module(nl, dev, &d);
	for (i = 0; !err && i < d.n; i++)
		flow_cb(d.msg[i], c);
	flow_dump_clear(&d);
	free(d.msg);
	if (!err)
		return 0;
	fprintf(stderr, "rocecc: cannot show flows%s%s", dev ? " of " : "",
		dev ? dev : "");
	if (nl->ext_msg[0])
		fprintf(stderr, ": %s", cli_strip_prefix(nl->ext_msg));
	fprintf(stderr, " (%s)\n", strerror(-err));
	return -1;
}

int do_flow(struct cli *cl, int argc, char **argv)
{
	struct cli_flow_opts o = {
		.json = cl->json, .pretty = cl->pretty, .stats = cl->stats,
	};
	struct flow_ctx c = { .o = &o };
	const char *dev = NULL;
	struct timespec ts;
	bool bpf;
	int err = 0;

	if (argc > 0 && !cli_matches(argv[0], "show") &&
	    !cli_matches(argv[0], "list")) {
		fprintf(stderr, "rocecc: flow: unknown command '%s' (try 'rocecc help')\n",
			argv[0]);
		return CLI_EXIT_USAGE;
	}
	if (argc > 0) {
		argc--;
		argv++;
	}
	if (argc == 2 && cli_matches(argv[0], "dev")) {
		dev = argv[1];
	} else if (argc) {
		fprintf(stderr, "rocecc: flow show: expected [dev DEV] (try 'rocecc help')\n");
		return CLI_EXIT_USAGE;
	}
	bpf = cli_bpf_drives(cl, dev);
	if (!bpf && (dev || !cl->bdp) && need_module(cl))
		return CLI_EXIT_FAIL;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	c.now = (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	if (o.json)
		c.arr = json_object_new_array();
	if (!bpf && cl->have_mod)
		err = flow_module(cl, dev, &c);
	if (!err && cl->bdp && (bpf || !dev)) {
		c.engine = "bpf";
		err = cli_bpf_flows(cl, dev, flow_cb, &c);
		if (err)
			fprintf(stderr, "rocecc: cannot show the BPF datapath's flows: %s\n",
				strerror(-err));
	}
	if (err) {
		if (c.arr)
			json_object_put(c.arr);
		return CLI_EXIT_FAIL;
	}
	/* main() prints the JSON output of every object, this one included */
	cl->out = c.arr;
	return CLI_EXIT_OK;
}

int cli_flow_event(const struct nlmsghdr *nlh, const char *ev, bool json)
{
	char ra[INET6_ADDRSTRLEN], name[IF_NAMESIZE];
	char esc[RD_TEXT_MAX(IF_NAMESIZE)];
	struct flow f;

	if (flow_parse(nlh, &f, name))
		return -1;
	if (json) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "event", rd_json_str(ev));
		flow_json_add(o, &f, name);
		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		json_object_put(o);
		return 0;
	}
	/* "created dev veth1 ifindex 3 raddr 10.0.0.2 rqpn 0x11 ...". */
	printf("%s dev %s ifindex %u raddr %s rqpn %#llx", ev,
	       rd_text_line(name, esc, sizeof(esc)), f.ifindex,
	       addr_str(&f, ROCECC_FLOW_A_RADDR, ra, sizeof(ra)),
	       (unsigned long long)u64_of(&f, ROCECC_FLOW_A_RQPN));
	if (f.tb[ROCECC_FLOW_A_LQPN])
		printf(" lqpn %#llx",
		       (unsigned long long)u64_of(&f, ROCECC_FLOW_A_LQPN));
	/* Counters come with FLOW_EXPIRED: the flow's final ones. */
	if (f.tb[ROCECC_FLOW_A_PACKETS])
		printf(" packets %llu bytes %llu rate %.3fM cnp_handled %llu cnp_sent %llu ce_seen %llu",
		       (unsigned long long)u64_of(&f, ROCECC_FLOW_A_PACKETS),
		       (unsigned long long)u64_of(&f, ROCECC_FLOW_A_BYTES),
		       u64_of(&f, ROCECC_FLOW_A_RC) / 1000.0,
		       (unsigned long long)u64_of(&f, ROCECC_FLOW_A_CNP_HANDLED),
		       (unsigned long long)u64_of(&f, ROCECC_FLOW_A_CNP_SENT),
		       (unsigned long long)u64_of(&f, ROCECC_FLOW_A_CE_SEEN));
	putchar('\n');
	return 0;
}
