// SPDX-License-Identifier: GPL-2.0
/*
 * roceccd: NICs that run DCQCN in their firmware (mlx5), through
 * lib/hwcc.h. Every poll (rd_hw_poll(), before the netdevs' own work):
 *  - finds the mlx5 RDMA ports in sysfs (hwcc_discover()); a port that
 *    appears or goes is logged and recorded (events hw_found, hw_gone);
 *  - reads the firmware's DCQCN parameters when a port is found and after
 *    every reload, and with [hw] apply = yes (for the netdevs of [hw]
 *    devices) first writes the parameters of [module] (its profile, then
 *    NAME = VALUE): only those that differ, each read back, each logged
 *    and recorded (event hw_params); a refusal is logged once per
 *    configuration and counted, and is tried again at the next reload;
 *  - reads the congestion counters and the per-priority pause counters.
 * The netdev of such a port gets no rocecc.ko (module.c asks
 * rd_hw_find()), and its PFC watchdog and buffer tuner (pfcwd.c) read
 * the NIC's counters through rd_hw_pfc() instead of rocecc.ko's.
 * /metrics: the firmware's parameters (rocecc_hw_param), what apply wrote
 * and refused, the four congestion counters under rocecc.ko's names and
 * the PFC frame counters under DCB's (module.c and dcb.c call
 * rd_hw_stat_lines() and rd_hw_pfc_lines() inside their families), all
 * with engine="hw"; the pause times and the firmware's storm counters.
 *
 * --hw-root DIR (tests only) looks for sysfs and debugfs under DIR, and
 * for a netdev's ethtool statistics in DIR/ethtool/<netdev>: the fake
 * driver's tree (selftests/unit/daemon/mlx5fix), see hwcc_io_init().
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/format.h"
#include "lib/array.h"
#include "roceccd.h"

#define BIT(n)	(1U << (n))

int rd_hw_init(struct rd *rd)
{
	return hwcc_io_init(&rd->hw_io, rd->hw_root[0] ? rd->hw_root : NULL);
}

/* ---- ports --------------------------------------------------------------- */

static const char *hw_name(const struct rd_hw *h)
{
	return h->d.netdev[0] ? h->d.netdev : h->d.ibdev;
}

struct rd_hw *rd_hw_find(struct rd *rd, const char *netdev)
{
	size_t i;

	for (i = 0; i < rd->nhws; i++)
		if (rd->hws[i].d.netdev[0] &&
		    !strcmp(rd->hws[i].d.netdev, netdev))
			return &rd->hws[i];
	return NULL;
}

static struct rd_hw *hw_port(struct rd *rd, const struct hwcc_dev *d)
{
	struct rd_hw *h;
	size_t i;
	void *p;

	for (i = 0; i < rd->nhws; i++)
		if (!strcmp(rd->hws[i].d.ibdev, d->ibdev) &&
		    rd->hws[i].d.port == d->port) {
			rd->hws[i].d = *d;	/* the netdev may be renamed */
			return &rd->hws[i];
		}
	p = array_grow(rd->hws, &rd->caphws, rd->nhws + 1, sizeof(*rd->hws));
	if (!p)
		return NULL;
	rd->hws = p;
	h = &rd->hws[rd->nhws++];
	memset(h, 0, sizeof(*h));
	h->d = *d;
	rd_log(LOG_INFO_, "%s: %s port %u runs DCQCN in firmware (mlx5, %s; %s)",
	       hw_name(h), d->ibdev, d->port, d->fn, d->cc_dir);
	rd_event(rd, "hw_found", "netdev", rd_json_str(d->netdev),
		 "dev", rd_json_str(d->ibdev),
		 "port", json_object_new_int64(d->port), NULL);
	return h;
}

/* ---- parameters ---------------------------------------------------------- */

/* What [module] asks of the parameters: *@mask 0 if nothing */
static void hw_wanted(const struct rd_conf *c, struct rocecc_params *want,
		      uint32_t *mask)
{
	unsigned int id;

	*mask = 0;
	rocecc_params_load(want, c->profile >= 0 ? (unsigned int)c->profile :
			   ROCECC_PROFILE_MLX5);
	if (c->profile >= 0)
		*mask = HWCC_MASK_ALL;
	for (id = 1; id <= ROCECC_PARAM_MAX; id++)
		if (c->param_set[id]) {
			want->v[id] = c->param[id];
			*mask |= BIT(id);
		}
}

static void hw_apply(struct rd *rd, struct rd_hw *h)
{
	struct hwcc_write done[HWCC_NFILES_MAX];
	const struct rocecc_param_info *pi;
	struct rocecc_params want;
	char err[512], from[16];
	uint32_t mask;
	size_t nd, k;
	int r;

	hw_wanted(&rd->conf, &want, &mask);
	if (!mask) {
		rd_log(LOG_INFO_, "%s: [hw] apply: [module] sets no parameter: the firmware's are left as they are",
		       hw_name(h));
		return;
	}
	r = hwcc_apply(&rd->hw_io, &h->d, &want, mask, done, &nd, err,
		       sizeof(err));
	for (k = 0; k < nd; k++) {
		pi = rocecc_param_info(done[k].id);
		snprintf(from, sizeof(from), done[k].from_known ? "%u" : "?",
			 done[k].from);
		rd_log(LOG_INFO_, "%s: firmware %s %s -> %u %s ([hw] apply)",
		       hw_name(h), pi->name, from, done[k].to, pi->unit);
		rd_event(rd, "hw_params", "netdev", rd_json_str(hw_name(h)),
			 "param", rd_json_str(pi->name),
			 "from", json_object_new_int64(done[k].from),
			 "to", json_object_new_int64(done[k].to), NULL);
	}
	h->writes += nd;
	if (r < 0) {
		h->errors++;
		rd->hw_errors++;
		rd_log(LOG_ERR_, "%s: [hw] apply: %s%s", hw_name(h), err,
		       nd ? " (the writes before it stay made)" : "");
	}
}

static void hw_read_params(struct rd *rd, struct rd_hw *h)
{
	char err[512];

	h->have_params = !hwcc_read_params(&rd->hw_io, &h->d, &h->params,
					   err, sizeof(err));
	if (!h->have_params) {
		h->errors++;
		rd->hw_errors++;
		rd_log(LOG_WARN_, "%s: firmware DCQCN parameters: %s",
		       hw_name(h), err);
	}
}

/* ---- the poll ------------------------------------------------------------ */

static void hw_counters(struct rd *rd, struct rd_hw *h)
{
	char err[512];
	int r;

	r = hwcc_read_counters(&rd->hw_io, &h->d, &h->cnt, err, sizeof(err));
	h->have_cnt = !r;
	if (r && !h->cnt_errlogged) {
		rd_log(LOG_WARN_, "%s: firmware counters: %s (logged once)",
		       hw_name(h), err);
		h->cnt_errlogged = true;
	} else if (!r) {
		h->cnt_errlogged = false;
	}
}

static void hw_gone(struct rd *rd)
{
	size_t i, j;

	for (i = 0, j = 0; i < rd->nhws; i++) {
		struct rd_hw *h = &rd->hws[i];

		if (!h->seen) {
			rd_log(LOG_INFO_, "%s: %s port %u is gone", hw_name(h),
			       h->d.ibdev, h->d.port);
			rd_event(rd, "hw_gone", "netdev", rd_json_str(h->d.netdev),
				 "dev", rd_json_str(h->d.ibdev), NULL);
			continue;
		}
		rd->hws[j++] = *h;
	}
	rd->nhws = j;
}

void rd_hw_poll(struct rd *rd)
{
	struct hwcc_dev *d;
	struct rd_hw *h;
	size_t i;
	int n;

	d = calloc(HWCC_DEVS_MAX, sizeof(*d));
	if (!d)
		return;
	n = hwcc_discover(&rd->hw_io, d, HWCC_DEVS_MAX);
	for (i = 0; i < rd->nhws; i++)
		rd->hws[i].seen = false;
	for (i = 0; n > 0 && i < (size_t)n && i < HWCC_DEVS_MAX; i++) {
		h = hw_port(rd, &d[i]);
		if (!h)
			break;
		h->seen = true;
		if (h->gen != rd->conf_gen) {
			h->gen = rd->conf_gen;
			if (rd->conf.hw_apply &&
			    rd_conf_dev_selected(rd->conf.hw_devices,
						 h->d.netdev))
				hw_apply(rd, h);
			hw_read_params(rd, h);
		}
		hw_counters(rd, h);
	}
	free(d);
	hw_gone(rd);
}

bool rd_hw_pfc(struct rd *rd, const char *netdev, struct rd_mod_pfc *m)
{
	const struct rd_hw *h = rd_hw_find(rd, netdev);
	const struct hwcc_counters *c;
	struct hwcc_pfc pf;
	unsigned int p;

	if (!h)
		return false;
	memset(m, 0, sizeof(*m));	/* no counters this poll: nothing */
	if (!h->have_cnt)
		return true;
	c = &h->cnt;
	m->have_stats = (c->stat_have & (BIT(ROCECC_STAT_NP_CNP_SENT) |
					 BIT(ROCECC_STAT_NP_ECN_MARKED_ROCE_PACKETS) |
					 BIT(ROCECC_STAT_RP_CNP_HANDLED))) ==
			(BIT(ROCECC_STAT_NP_CNP_SENT) |
			 BIT(ROCECC_STAT_NP_ECN_MARKED_ROCE_PACKETS) |
			 BIT(ROCECC_STAT_RP_CNP_HANDLED));
	m->cnp_sent = c->stat[ROCECC_STAT_NP_CNP_SENT];
	m->ce_marked = c->stat[ROCECC_STAT_NP_ECN_MARKED_ROCE_PACKETS];
	m->cnp_handled = c->stat[ROCECC_STAT_RP_CNP_HANDLED];
	for (p = 0; p < DCBNL_PRIOS; p++) {
		struct rd_mod_pfc_prio *mp = &m->prio[p];

		hwcc_pfc(c, p, &pf);
		mp->have = pf.listed || pf.have_tx;
		mp->indications = pf.indications;
		mp->requests = pf.requests;
		mp->have_tx_pause_ns = pf.have_paused_ns;
		mp->tx_pause_ns = pf.paused_ns;
		mp->have_tx_packets = mp->have_tx_bytes = pf.have_tx;
		mp->tx_packets = pf.tx_packets;
		mp->tx_bytes = pf.tx_bytes;
	}
	return true;
}

/* ---- /metrics ------------------------------------------------------------ */

void rd_hw_stat_lines(struct rd *rd, FILE *f, const char *family,
		      unsigned int stat)
{
	char esc[RD_TEXT_MAX(IF_NAMESIZE)];
	size_t i;

	for (i = 0; i < rd->nhws; i++) {
		const struct rd_hw *h = &rd->hws[i];

		if (!h->have_cnt || !(h->cnt.stat_have & BIT(stat)))
			continue;
		rd_prom_escape(hw_name(h), esc, sizeof(esc));
		fprintf(f, "%s{netdev=\"%s\",engine=\"hw\"} %" PRIu64 "\n",
			family, esc, h->cnt.stat[stat]);
	}
}

bool rd_hw_has_stat(const struct rd *rd, unsigned int stat)
{
	size_t i;

	for (i = 0; i < rd->nhws; i++)
		if (rd->hws[i].have_cnt &&
		    rd->hws[i].cnt.stat_have & BIT(stat))
			return true;
	return false;
}

void rd_hw_pfc_lines(struct rd *rd, FILE *f, const char *family, bool tx)
{
	char esc[RD_TEXT_MAX(IF_NAMESIZE)];
	struct hwcc_pfc pf;
	unsigned int p;
	size_t i;

	for (i = 0; i < rd->nhws; i++) {
		const struct rd_hw *h = &rd->hws[i];

		if (!h->have_cnt)
			continue;
		rd_prom_escape(hw_name(h), esc, sizeof(esc));
		for (p = 0; p < DCBNL_PRIOS; p++) {
			hwcc_pfc(&h->cnt, p, &pf);
			if (pf.listed)
				fprintf(f, "%s{netdev=\"%s\",prio=\"%u\",engine=\"hw\"} %" PRIu64 "\n",
					family, esc, p,
					tx ? pf.requests : pf.indications);
		}
	}
}

static void hw_param_metrics(struct rd *rd, FILE *f)
{
	const struct rocecc_param_info *pi;
	char esc[RD_TEXT_MAX(IF_NAMESIZE)];
	unsigned int id;
	size_t i;

	rd_prom_family(f, RDF_HW_PARAM);
	for (i = 0; i < rd->nhws; i++) {
		const struct rd_hw *h = &rd->hws[i];

		if (!h->have_params)
			continue;
		rd_prom_escape(hw_name(h), esc, sizeof(esc));
		for (id = 1; id <= ROCECC_PARAM_MAX; id++) {
			if (!(h->params.have & BIT(id)) ||
			    h->params.unused & BIT(id))
				continue;
			pi = rocecc_param_info(id);
			fprintf(f, "%s{netdev=\"%s\",name=\"%s\",unit=\"%s\"} %u\n",
				rd_fam(RDF_HW_PARAM), esc, pi->name, pi->unit, h->params.p.v[id]);
		}
	}
	rd_prom_family(f, RDF_HW_PARAM_WRITES);
	for (i = 0; i < rd->nhws; i++) {
		rd_prom_escape(hw_name(&rd->hws[i]), esc, sizeof(esc));
		fprintf(f, "%s{netdev=\"%s\"} %" PRIu64 "\n",
			rd_fam(RDF_HW_PARAM_WRITES), esc, rd->hws[i].writes);
	}
	rd_prom_family(f, RDF_HW_ERRORS);
	fprintf(f, "%s %" PRIu64 "\n", rd_fam(RDF_HW_ERRORS), rd->hw_errors);
}

void rd_hw_metrics(struct rd *rd, FILE *f)
{
	static const struct {
		enum rd_family fam;
		unsigned int pc;
	} dur[] = {
		{ RDF_PFC_PAUSED, HWCC_PC_RX_PAUSE_DURATION },
		{ RDF_PFC_PAUSING, HWCC_PC_TX_PAUSE_DURATION },
	};
	char esc[RD_TEXT_MAX(IF_NAMESIZE)];
	unsigned int k, p;
	size_t i;

	hw_param_metrics(rd, f);
	for (k = 0; k < sizeof(dur) / sizeof(dur[0]); k++) {
		rd_prom_family(f, dur[k].fam);
		for (i = 0; i < rd->nhws; i++) {
			const struct rd_hw *h = &rd->hws[i];

			if (!h->have_cnt)
				continue;
			rd_prom_escape(hw_name(h), esc, sizeof(esc));
			for (p = 0; p < DCBNL_PRIOS; p++)
				if (h->cnt.pc_have[p] & BIT(dur[k].pc))
					fprintf(f, "%s{netdev=\"%s\",prio=\"%u\",engine=\"hw\"} %.6f\n",
						rd_fam(dur[k].fam), esc, p,
						h->cnt.pc[p][dur[k].pc] / 1e6);
		}
	}
	rd_prom_family(f, RDF_HW_PFC_STORM_EVENTS);
	for (i = 0; i < rd->nhws; i++) {
		const struct rd_hw *h = &rd->hws[i];

		if (!h->have_cnt || !h->cnt.have_storm)
			continue;
		rd_prom_escape(hw_name(h), esc, sizeof(esc));
		fprintf(f, "%s{netdev=\"%s\",kind=\"warning\"} %" PRIu64 "\n"
			   "%s{netdev=\"%s\",kind=\"error\"} %" PRIu64 "\n",
			rd_fam(RDF_HW_PFC_STORM_EVENTS), esc, h->cnt.storm_warning,
			rd_fam(RDF_HW_PFC_STORM_EVENTS), esc, h->cnt.storm_error);
	}
}
