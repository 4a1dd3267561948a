// SPDX-License-Identifier: GPL-2.0
/*
 * roceccd: rocecc.ko, over its generic netlink family. Attaching it to the
 * RoCE netdevs dp.c gives it (fq as their root qdisc first), giving
 * them the configured profile and parameters, detaching it again; and its
 * per-device counters for /metrics.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libmnl/libmnl.h>

#include <rocecc/params.h>
#include <uapi/linux/rocecc.h>

#include "lib/bpf_dp.h"
#include "lib/format.h"
#include "lib/parse.h"
#include "lib/rocecc_dev.h"
#include "lib/rocecc_nl.h"
#include "roceccd.h"

/* ---- rocecc.ko ------------------------------------------------------------ */

/*
 * With [datapath] engine = module (or [module] attach = yes, or auto while
 * rocecc.ko is loaded) the daemon attaches rocecc.ko to the RoCE netdevs
 * its "devices" list selects, once the module is loaded (it is
 * looked for every poll), and gives each the configured profile and
 * parameters: on attaching, and again after every reload of the config.
 * A device that is already attached (by an operator, or by a daemon that
 * died) is adopted: it gets the configuration too, but is not detached on
 * exit, since this daemon did not attach it. A device someone detaches
 * while attach = yes is attached again at the next poll: the config file is
 * the source of truth (set attach = no and reload to stop). Devices this
 * daemon attached are detached when attach turns no, when they leave the
 * devices list, and on a clean shutdown.
 */

/* rocecc.ko's family, opened if it is there; false if not loaded. */
static bool rd_mod_ready(struct rd *rd)
{
	int err;

	if (rd->mod_open)
		return true;
	err = rnl_open(&rd->mod);
	if (err) {
		if (!rd->mod_absent_logged)
			rd_log(err == -ENOENT ? LOG_INFO_ : LOG_WARN_,
			       "rocecc.ko: %s; attaching it waits for it",
			       err == -ENOENT ? "not loaded" : strerror(-err));
		rd->mod_absent_logged = true;
		return false;
	}
	rd->mod_open = true;
	rd->mod_absent_logged = false;
	return true;
}

/* The family went away (module unloaded): open it afresh next time. */
static void rd_mod_lost(struct rd *rd)
{
	struct rd_netdev *nd;
	size_t i;

	rnl_close(&rd->mod);
	rd->mod_open = false;
	for (i = 0; i < rd->nnds; i++) {
		nd = &rd->nds[i];
		nd->mod_attached = false;
		nd->mod_gen = 0;
	}
}

static int rd_mod_dev_cmd(struct rd *rd, uint8_t cmd, const struct rd_netdev *nd)
{
	struct nlmsghdr *nlh = rnl_msg(&rd->mod, cmd, NLM_F_ACK);

	mnl_attr_put_u32(nlh, ROCECC_A_DEV_IFINDEX, nd->ifindex);
	return rnl_talk(&rd->mod, nlh, NULL, NULL);
}

static const char *rd_mod_why(struct rd *rd, int err)
{
	return rd->mod.ext_msg[0] ? cli_strip_prefix(rd->mod.ext_msg) :
				    strerror(-err);
}

/* Profile, then parameters, of the config onto attached device @nd. */
static int rd_mod_configure(struct rd *rd, struct rd_netdev *nd)
{
	const struct rd_conf *c = &rd->conf;
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	unsigned int id, n = 0;
	int err;

	if (c->profile >= 0) {
		nlh = rnl_msg(&rd->mod, ROCECC_CMD_PROFILE_SET, NLM_F_ACK);
		mnl_attr_put_u32(nlh, ROCECC_A_DEV_IFINDEX, nd->ifindex);
		mnl_attr_put_u32(nlh, ROCECC_A_PROFILE, (uint32_t)c->profile);
		err = rnl_talk(&rd->mod, nlh, NULL, NULL);
		if (err) {
			rd_log(LOG_ERR_, "%s: rocecc.ko: profile %s: %s", nd->name,
			       cli_profile_name(c->profile), rd_mod_why(rd, err));
			return err;
		}
	}
	nlh = rnl_msg(&rd->mod, ROCECC_CMD_PARAM_SET, NLM_F_ACK);
	mnl_attr_put_u32(nlh, ROCECC_A_DEV_IFINDEX, nd->ifindex);
	nest = mnl_attr_nest_start(nlh, ROCECC_A_PARAMS);
	for (id = 1; id <= ROCECC_PARAM_MAX; id++) {
		if (!c->param_set[id])
			continue;
		mnl_attr_put_u32(nlh, (uint16_t)id, c->param[id]);
		n++;
	}
	mnl_attr_nest_end(nlh, nest);
	if (n) {
		err = rnl_talk(&rd->mod, nlh, NULL, NULL);
		if (err) {
			rd_log(LOG_ERR_, "%s: rocecc.ko: setting %u parameters: %s",
			       nd->name, n, rd_mod_why(rd, err));
			return err;
		}
	}
	rd_log(LOG_INFO_, "%s: rocecc.ko configured: profile %s, %u parameters",
	       nd->name, c->profile >= 0 ? cli_profile_name(c->profile) :
	       "unchanged", n);
	return 0;
}

/*
 * The BPF datapath's filters on @nd: rocecc.ko must not attach (the loader
 * refuses the other way round). Logged once per configuration.
 */
static bool rd_mod_bpf_there(struct rd *rd, struct rd_netdev *nd)
{
	int e = bpf_dp_on_netdev(nd->ifindex);

	if (e <= 0)
		return false;
	if (nd->mod_err_gen != rd->conf_gen)
		rd_log(LOG_ERR_, "%s: rocecc.ko: not attached: the BPF datapath (dcqcn_ingress, dcqcn_egress) drives it; detach that first (retried every poll)",
		       nd->name);
	nd->mod_err_gen = rd->conf_gen;
	rd->mod_errors++;
	return true;
}

/* Bring rocecc.ko's attachment of @nd in line with @want (dp.c decides). */
void rd_mod_sync(struct rd *rd, struct rd_netdev *nd, bool want)
{
	int err;

	if (!want && !nd->mod_attached)
		return;
	if (!rd_mod_ready(rd))
		return;
	err = rd_mod_dev_cmd(rd, ROCECC_CMD_DEV_GET, nd);
	if (err && err != -ENODEV) {
		rd_log(LOG_WARN_, "%s: rocecc.ko: %s", nd->name, rd_mod_why(rd, err));
		rd->mod_errors++;
		rd_mod_lost(rd);
		return;
	}
	if (!want) {
		if (!err) {
			err = rd_mod_dev_cmd(rd, ROCECC_CMD_DEV_DETACH, nd);
			if (err && err != -ENODEV) {
				rd_log(LOG_WARN_, "%s: rocecc.ko: detach: %s",
				       nd->name, rd_mod_why(rd, err));
				rd->mod_errors++;
				return;
			}
			rd_log(LOG_INFO_, "%s: rocecc.ko detached (config)", nd->name);
			rd_event(rd, "module_detached",
				 "netdev", rd_json_str(nd->name), NULL);
		}
		nd->mod_attached = false;	/* the qdisc: dp.c */
		nd->mod_gen = 0;
		return;
	}
	if (err == -ENODEV) {
		if (rd_mod_bpf_there(rd, nd))
			return;
		rd_dp_qdisc(rd, nd);
		err = rd_mod_dev_cmd(rd, ROCECC_CMD_DEV_ATTACH, nd);
		if (err && err != -EEXIST) {
			/* once per configuration, not every poll */
			if (nd->mod_err_gen != rd->conf_gen)
				rd_log(LOG_ERR_, "%s: rocecc.ko: attach: %s (retried every poll)",
				       nd->name, rd_mod_why(rd, err));
			nd->mod_err_gen = rd->conf_gen;
			rd->mod_errors++;
			rd_dp_unqdisc(nd);
			return;
		}
		nd->mod_attached = true;
		nd->mod_gen = 0;
		rd_log(LOG_INFO_, "%s: rocecc.ko attached", nd->name);
		rd_event(rd, "module_attached",
			 "netdev", rd_json_str(nd->name), NULL);
	} else if (!nd->mod_attached && !nd->mod_gen) {
		rd_log(LOG_INFO_, "%s: rocecc.ko already attached: adopted (not detached on exit)",
		       nd->name);
	}
	if (nd->mod_gen != rd->conf_gen) {
		/* once per configuration: what failed would fail again */
		if (rd_mod_configure(rd, nd))
			rd->mod_errors++;
		nd->mod_gen = rd->conf_gen;
	}
}

/* Detach rocecc.ko from @nd if this daemon attached it. */
void rd_mod_release(struct rd *rd, struct rd_netdev *nd)
{
	int err;

	if (nd->mod_attached && rd->mod_open) {
		err = rd_mod_dev_cmd(rd, ROCECC_CMD_DEV_DETACH, nd);
		if (err == -ENODEV)	/* the netdev went, the module let go */
			rd_log(LOG_DEBUG_, "%s: rocecc.ko: was detached already",
			       nd->name);
		else if (err)
			rd_log(LOG_WARN_, "%s: rocecc.ko: detach: %s", nd->name,
			       rd_mod_why(rd, err));
		else
			rd_log(LOG_INFO_, "%s: rocecc.ko detached", nd->name);
	}
	nd->mod_attached = false;	/* the qdisc: rd_dp_release() */
}

/* rocecc.ko's per-device counters, for the devices attached to it. */
struct rd_mod_ctx {
	FILE *f;
	char *lines[__ROCECC_STAT_MAX];	/* per stat, the series so far */
	size_t len[__ROCECC_STAT_MAX];
	FILE *mf[__ROCECC_STAT_MAX];
	unsigned int ndev;
};

static int rd_mod_stat_cb(const struct nlmsghdr *nlh, void *data)
{
	struct rd_mod_ctx *c = data;
	struct rocecc_dev_info d;
	char esc[RD_TEXT_MAX(IF_NAMESIZE)];
	unsigned int t;

	if (rocecc_dev_parse(nlh, &d) || !d.name)
		return MNL_CB_OK;
	rd_prom_escape(d.name, esc, sizeof(esc));
	c->ndev++;
	for (t = 0; t <= ROCECC_STAT_MAX; t++)
		if (d.have_stat[t] && c->mf[t])
			fprintf(c->mf[t], "{netdev=\"%s\",engine=\"module\"} %" PRIu64 "\n",
				esc, d.stat[t]);
	return MNL_CB_OK;
}

void rd_mod_metrics(struct rd *rd, FILE *f)
{
	struct rd_mod_ctx c = { .f = f };
	struct nlmsghdr *nlh;
	unsigned int t;
	size_t i;
	int err;

	rd_prom_family(f, RDF_MODULE_ATTACHED);
	for (i = 0; i < rd->nnds; i++) {
		const struct rd_netdev *nd = &rd->nds[i];

		char esc[RD_TEXT_MAX(IF_NAMESIZE)];

		rd_prom_escape(nd->name, esc, sizeof(esc));
		fprintf(f, "%s{netdev=\"%s\"} %d\n", rd_fam(RDF_MODULE_ATTACHED),
			esc, nd->mod_attached ? 1 : nd->mod_gen ? 2 : 0);
	}
	rd_prom_family(f, RDF_MODULE_ERRORS);
	fprintf(f, "%s %" PRIu64 "\n", rd_fam(RDF_MODULE_ERRORS), rd->mod_errors);
	for (t = 0; t < __ROCECC_STAT_MAX; t++)
		if (rd_family_of_stat(t))
			c.mf[t] = open_memstream(&c.lines[t], &c.len[t]);
	err = -ENOTCONN;
	if (rd->mod_open) {
		nlh = rnl_msg(&rd->mod, ROCECC_CMD_DEV_GET, NLM_F_DUMP);
		err = rnl_talk(&rd->mod, nlh, rd_mod_stat_cb, &c);
	}
	/*
	 * Each family once, whichever engine counts: rocecc.ko's series
	 * (engine="module"), the BPF datapath's (engine="bpf", bpfdp.c),
	 * then those of the NICs that count the same in firmware
	 * (engine="hw", hw.c).
	 */
	for (t = 0; t < __ROCECC_STAT_MAX; t++) {
		enum rd_family fam = rd_family_of_stat(t);
		bool mod = !err && c.ndev;
		bool bpf = rd_bpf_stat_lines(rd, NULL, NULL, t) > 0;
		char *line, *save = NULL;

		if (!c.mf[t])
			continue;
		fclose(c.mf[t]);
		if (mod || bpf || rd_hw_has_stat(rd, t))
			rd_prom_family(f, fam);
		for (line = strtok_r(c.lines[t], "\n", &save); mod && line;
		     line = strtok_r(NULL, "\n", &save))
			fprintf(f, "%s%s\n", rd_fam(fam), line);
		rd_bpf_stat_lines(rd, f, rd_fam(fam), t);
		rd_hw_stat_lines(rd, f, rd_fam(fam), t);
		free(c.lines[t]);
	}
	if (err && rd->mod_open) {
		rd_log(LOG_WARN_, "rocecc.ko: reading counters: %s",
		       rd_mod_why(rd, err));
		rd_mod_lost(rd);
	}
}

/* ---- PFC counters for the watchdog and the tuner (pfcwd.c) ------------ */

/* One priority of the PFC nest, as the watchdog and the tuner read it. */
static void rd_mod_pfc_prio(const struct rocecc_dev_prio *p,
			    struct rd_mod_pfc_prio *pp)
{
	memset(pp, 0, sizeof(*pp));
	pp->have = true;
	pp->indications = p->v[ROCECC_PFC_PRIO_A_INDICATIONS];
	pp->requests = p->v[ROCECC_PFC_PRIO_A_REQUESTS];
	pp->tx_paused = p->v[ROCECC_PFC_PRIO_A_TX_PAUSED] != 0;
	pp->have_tx_paused = p->len[ROCECC_PFC_PRIO_A_TX_PAUSED] == 1;
	pp->tx_pause_ns = p->v[ROCECC_PFC_PRIO_A_TX_PAUSE_NS];
	pp->have_tx_pause_ns = p->len[ROCECC_PFC_PRIO_A_TX_PAUSE_NS] == 8;
	pp->tx_packets = p->v[ROCECC_PFC_PRIO_A_TX_PACKETS];
	pp->have_tx_packets = p->len[ROCECC_PFC_PRIO_A_TX_PACKETS] == 8;
	pp->tx_bytes = p->v[ROCECC_PFC_PRIO_A_TX_BYTES];
	pp->have_tx_bytes = p->len[ROCECC_PFC_PRIO_A_TX_BYTES] == 8;
}

static int rd_mod_pfc_cb(const struct nlmsghdr *nlh, void *data)
{
	struct rd_mod_pfc *out = data;
	struct rocecc_dev_info d;
	unsigned int p;

	if (rocecc_dev_parse(nlh, &d))
		return MNL_CB_OK;
	out->have_stats = d.have_stat[ROCECC_STAT_NP_CNP_SENT];
	out->cnp_sent = d.stat[ROCECC_STAT_NP_CNP_SENT];
	out->ce_marked = d.stat[ROCECC_STAT_NP_ECN_MARKED_ROCE_PACKETS];
	out->cnp_handled = d.stat[ROCECC_STAT_RP_CNP_HANDLED];
	out->have_pfc = d.have_pfc;
	for (p = 0; p < DCBNL_PRIOS && p < ROCECC_DEV_PRIOS; p++)
		if (d.have_prio[p])
			rd_mod_pfc_prio(&d.prio[p], &out->prio[p]);
	return MNL_CB_OK;
}

int rd_mod_pfc_get(struct rd *rd, const struct rd_netdev *nd,
		   struct rd_mod_pfc *out)
{
	struct nlmsghdr *nlh;
	int err;

	memset(out, 0, sizeof(*out));
	/* also with [module] attach = no: attached by someone else */
	if (!rd->mod_open) {
		err = rnl_open(&rd->mod);
		if (err)
			return err;
		rd->mod_open = true;
		rd->mod_absent_logged = false;
	}
	nlh = rnl_msg(&rd->mod, ROCECC_CMD_DEV_GET, NLM_F_ACK);
	mnl_attr_put_u32(nlh, ROCECC_A_DEV_IFINDEX, nd->ifindex);
	err = rnl_talk(&rd->mod, nlh, rd_mod_pfc_cb, out);
	if (err)
		memset(out, 0, sizeof(*out));
	return err;
}
