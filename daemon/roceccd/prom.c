// SPDX-License-Identifier: GPL-2.0
/*
 * roceccd: /metrics in Prometheus text format. Every flow's counters and
 * histograms, flowmon's own counters, straggler state and rank-map groups,
 * the aggregates per process, peer and group, rocecc.ko's counters
 * (module.c), PFC and DCB buffers per netdev (dcb.c) and the
 * daemon's.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "flowmon.skel.h"

#include "lib/format.h"
#include "lib/array.h"
#include "roceccd.h"

static int rd_stats(struct rd *rd, struct flowmon_stats *sum)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	struct flowmon_stats *per;
	__u32 zero = 0;

	memset(sum, 0, sizeof(*sum));
	if (ncpu <= 0)
		return -EINVAL;
	per = calloc((size_t)ncpu, sizeof(*per));
	if (!per)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(rd->skel->maps.stats), &zero, per)) {
		free(per);
		return -errno;
	}
	for (i = 0; i < ncpu; i++) {
		sum->tx_unknown_pkts += per[i].tx_unknown_pkts;
		sum->tx_unknown_bytes += per[i].tx_unknown_bytes;
		sum->rx_unknown_pkts += per[i].rx_unknown_pkts;
		sum->rx_unknown_bytes += per[i].rx_unknown_bytes;
		sum->tx_malformed += per[i].tx_malformed;
		sum->rx_malformed += per[i].rx_malformed;
		sum->flow_full += per[i].flow_full;
		sum->flow_replaced += per[i].flow_replaced;
		sum->pend_full += per[i].pend_full;
		sum->pend_merged += per[i].pend_merged;
		sum->pend_resp_lost += per[i].pend_resp_lost;
		sum->events_lost += per[i].events_lost;
	}
	free(per);
	return 0;
}

/* ---- Prometheus --------------------------------------------------------- */

#define RD_COUNTER(field, name, fam) { offsetof(struct flowmon_flow, field), name, RDF_##fam }

/* The flow's counters: /flows.json's key and the /metrics family. */
const struct rd_counter rd_counters[] = {
	RD_COUNTER(tx_pkts, "tx_packets", FLOW_TX_PACKETS),
	RD_COUNTER(tx_bytes, "tx_bytes", FLOW_TX_BYTES),
	RD_COUNTER(rx_pkts, "rx_packets", FLOW_RX_PACKETS),
	RD_COUNTER(rx_bytes, "rx_bytes", FLOW_RX_BYTES),
	RD_COUNTER(rx_ce, "rx_ce_marked_packets", FLOW_RX_CE),
	RD_COUNTER(tx_cnp, "tx_cnp", FLOW_TX_CNP),
	RD_COUNTER(rx_cnp, "rx_cnp", FLOW_RX_CNP),
	RD_COUNTER(tx_ackreq, "tx_ackreq_requests", FLOW_TX_ACKREQ),
	RD_COUNTER(tx_msgs, "tx_messages", FLOW_TX_MSGS),
	RD_COUNTER(tx_retrans, "tx_retransmitted_packets", FLOW_TX_RETRANS),
	RD_COUNTER(rx_acks, "rx_acks", FLOW_RX_ACKS),
	RD_COUNTER(rx_nak_seq, "rx_nak_sequence_errors", FLOW_RX_NAK_SEQ),
	RD_COUNTER(rx_nak_other, "rx_nak_other", FLOW_RX_NAK_OTHER),
	RD_COUNTER(rx_rnr_nak, "rx_rnr_naks", FLOW_RX_RNR_NAK),
	RD_COUNTER(rtt_karn, "rtt_probes_retransmitted", FLOW_RTT_KARN),
	RD_COUNTER(rtt_overrun, "rtt_probes_overrun", FLOW_RTT_OVERRUN),
	RD_COUNTER(mct_overrun, "messages_untimed", FLOW_MCT_OVERRUN),
};

const unsigned int rd_ncounters = sizeof(rd_counters) / sizeof(rd_counters[0]);

struct prom_ctx {
	FILE *f;
	unsigned int pass;	/* counter index, or ~0u for the histograms */
	bool rtt;
};

static void rd_labels(const struct rd_flow_view *v, char *out, size_t n)
{
	char flow[RD_TEXT_MAX(sizeof(v->name))], comm[RD_TEXT_MAX(sizeof(v->comm))];
	char peer[RD_TEXT_MAX(sizeof(v->peer))], dev[RD_TEXT_MAX(sizeof(v->dev))];
	char netdev[RD_TEXT_MAX(sizeof(v->netdev))];

	rd_prom_escape(v->name, flow, sizeof(flow));
	rd_prom_escape(v->comm, comm, sizeof(comm));
	rd_prom_escape(v->peer, peer, sizeof(peer));
	rd_prom_escape(v->dev, dev, sizeof(dev));
	rd_prom_escape(v->netdev, netdev, sizeof(netdev));
	snprintf(out, n,
		 "flow=\"%s\",comm=\"%s\",pid=\"%" PRIu32 "\",lqpn=\"%" PRIu32
		 "\",rqpn=\"%" PRIu32 "\",peer=\"%s\",dev=\"%s\",netdev=\"%s\"",
		 flow, comm, v->pid, v->lqpn, v->key.rqpn, peer, dev, netdev);
}

static void prom_flow(struct rd *rd, const struct rd_flow_view *v,
		      const struct flowmon_flow *f, void *arg)
{
	struct prom_ctx *c = arg;
	char labels[2048];

	rd_labels(v, labels, sizeof(labels));
	if (c->pass != ~0u) {
		uint64_t val;

		memcpy(&val, (const char *)f + rd_counters[c->pass].off,
		       sizeof(val));
		fprintf(c->f, "%s{%s} %" PRIu64 "\n",
			rd_fam(rd_counters[c->pass].fam), labels, val);
		return;
	}
	if (c->rtt)
		rd_prom_hist(c->f, rd_fam(RDF_FLOW_RTT), labels,
			     f->rtt.bucket, f->rtt.sum_ns, rd->conf.per_octave);
	else
		rd_prom_hist(c->f, rd_fam(RDF_FLOW_MCT), labels, f->mct.bucket,
			     f->mct.sum_ns, rd->conf.per_octave);
}

/* A family of one series without labels. */
static void rd_prom_stat(FILE *f, enum rd_family fam, uint64_t v)
{
	rd_prom_family(f, fam);
	fprintf(f, "%s %" PRIu64 "\n", rd_fam(fam), v);
}

/* Straggler state and rank-map groups of every flow. */
static void rd_prom_groups(struct rd *rd, const struct rd_snap *snap, FILE *f)
{
	char labels[2048];
	size_t i;

	rd_prom_family(f, RDF_FLOW_STRAGGLER);
	for (i = 0; i < snap->n; i++) {
		const struct rd_fstate *st = rd_fstate_find(rd, &snap->v[i].key);

		rd_labels(&snap->v[i], labels, sizeof(labels));
		fprintf(f, "%s{%s} %d\n", rd_fam(RDF_FLOW_STRAGGLER), labels,
			st && st->straggler);
	}
	rd_prom_family(f, RDF_FLOW_WINDOW_P99);
	for (i = 0; i < snap->n; i++) {
		const struct rd_fstate *st = rd_fstate_find(rd, &snap->v[i].key);

		if (!st || !st->win_samples)
			continue;
		rd_labels(&snap->v[i], labels, sizeof(labels));
		fprintf(f, "%s{%s} %.9f\n", rd_fam(RDF_FLOW_WINDOW_P99),
			labels, (double)st->win_p99_ns / 1e9);
	}
	if (!rd->have_rmap)
		return;
	rd_prom_family(f, RDF_FLOW_GROUP_INFO);
	for (i = 0; i < snap->n; i++) {
		uint64_t keys[RD_MAX_GROUPS];
		size_t n, k;

		n = rd_rank_groups(rd, &snap->v[i], keys, RD_MAX_GROUPS, NULL, 0);
		rd_labels(&snap->v[i], labels, sizeof(labels));
		for (k = 0; k < n; k++) {
			char g[64];

			rd_group_label(keys[k], &snap->v[i], g, sizeof(g));
			fprintf(f, "%s{%s,group=\"%s\"} 1\n",
				rd_fam(RDF_FLOW_GROUP_INFO), labels, g);
		}
	}
}

/* One aggregate: flows that share a process, a peer or a group. */
struct rd_agg {
	char labels[512];
	struct flowmon_hist mct;
	uint64_t tx_bytes, rx_bytes, flows;
};

static struct rd_agg *rd_agg_get(struct rd_agg **a, size_t *n, size_t *cap,
				 const char *labels)
{
	size_t i;
	void *p;

	for (i = 0; i < *n; i++)
		if (!strcmp((*a)[i].labels, labels))
			return &(*a)[i];
	p = array_grow(*a, cap, *n + 1, sizeof(**a));
	if (!p)
		return NULL;
	*a = p;
	memset(&(*a)[*n], 0, sizeof(**a));
	snprintf((*a)[*n].labels, sizeof((*a)[*n].labels), "%s", labels);
	return &(*a)[(*n)++];
}

static void rd_agg_add(struct rd_agg *g, const struct flowmon_flow *f)
{
	unsigned int b;

	for (b = 0; b < FLOWMON_HIST_BUCKETS; b++)
		g->mct.bucket[b] += f->mct.bucket[b];
	g->mct.sum_ns += f->mct.sum_ns;
	g->tx_bytes += f->tx_bytes;
	g->rx_bytes += f->rx_bytes;
	g->flows++;
}

/*
 * Per process (job), per peer host, per netdev and per rank-map group: the flows'
 * message completion histograms and byte counters summed. They cover the
 * flows in the table now, so they drop when a flow is forgotten (--linger
 * after its QP ended): Prometheus reads that as a counter reset.
 */
static void rd_prom_aggregates(struct rd *rd, const struct rd_snap *snap,
			       FILE *f)
{
	/* per aggregate: flows, tx bytes, rx bytes, message completion */
	static const enum rd_family fam[4][4] = {
		{ RDF_PROCESS_FLOWS, RDF_PROCESS_TX_BYTES, RDF_PROCESS_RX_BYTES, RDF_PROCESS_MCT },
		{ RDF_PEER_FLOWS, RDF_PEER_TX_BYTES, RDF_PEER_RX_BYTES, RDF_PEER_MCT },
		{ RDF_NETDEV_FLOWS, RDF_NETDEV_TX_BYTES, RDF_NETDEV_RX_BYTES, RDF_NETDEV_MCT },
		{ RDF_GROUP_FLOWS, RDF_GROUP_TX_BYTES, RDF_GROUP_RX_BYTES, RDF_GROUP_MCT },
	};
	struct rd_agg *a = NULL;
	size_t n, cap, i, k, w;

	for (w = 0; w < 4; w++) {
		n = cap = 0;
		for (i = 0; i < snap->n; i++) {
			const struct rd_flow_view *v = &snap->v[i];
			char l[512], e1[RD_TEXT_MAX(RDMA_NL_NAME_MAX)];
			char e2[RD_TEXT_MAX(RDMA_NL_NAME_MAX)];
			uint64_t keys[RD_MAX_GROUPS];
			size_t ng = 1;
			struct rd_agg *g;

			if (w == 3)
				ng = rd_rank_groups(rd, v, keys, RD_MAX_GROUPS,
						    NULL, 0);
			for (k = 0; k < ng; k++) {
				if (w == 0) {
					rd_prom_escape(v->comm, e1, sizeof(e1));
					snprintf(l, sizeof(l), "comm=\"%s\",pid=\"%" PRIu32 "\"",
						 e1, v->pid);
				} else if (w == 1) {
					rd_prom_escape(v->peer, e1, sizeof(e1));
					snprintf(l, sizeof(l), "peer=\"%s\"", e1);
				} else if (w == 2) {
					rd_prom_escape(v->netdev, e1, sizeof(e1));
					rd_prom_escape(v->dev, e2, sizeof(e2));
					snprintf(l, sizeof(l), "netdev=\"%s\",dev=\"%s\"",
						 e1, e2);
				} else {
					rd_group_label(keys[k], v, e2, sizeof(e2));
					snprintf(l, sizeof(l), "group=\"%s\"", e2);
				}
				g = rd_agg_get(&a, &n, &cap, l);
				if (g)
					rd_agg_add(g, &snap->f[i]);
			}
		}
		if (w == 3 && !n)
			break;
		rd_prom_family(f, fam[w][0]);
		for (i = 0; i < n; i++)
			fprintf(f, "%s{%s} %" PRIu64 "\n", rd_fam(fam[w][0]),
				a[i].labels, a[i].flows);
		rd_prom_family(f, fam[w][1]);
		for (i = 0; i < n; i++)
			fprintf(f, "%s{%s} %" PRIu64 "\n", rd_fam(fam[w][1]),
				a[i].labels, a[i].tx_bytes);
		rd_prom_family(f, fam[w][2]);
		for (i = 0; i < n; i++)
			fprintf(f, "%s{%s} %" PRIu64 "\n", rd_fam(fam[w][2]),
				a[i].labels, a[i].rx_bytes);
		rd_prom_family(f, fam[w][3]);
		for (i = 0; i < n; i++)
			rd_prom_hist(f, rd_fam(fam[w][3]), a[i].labels,
				     a[i].mct.bucket, a[i].mct.sum_ns,
				     rd->conf.per_octave);
	}
	free(a);
}

/*
 * The RDMA devices' own counters (/sys/class/infiniband/DEV/ports/N/
 * hw_counters: rxe's sent_pkts, rcvd_pkts, retry_exceeded_err,
 * rcvd_seq_err, ...; mlx5's np_cnp_sent, rp_cnp_handled, ...), one series
 * per counter, for the devices of the netdevs flowmon is attached to.
 */
static void rd_prom_hw(struct rd *rd, FILE *f)
{
	bool header = false;
	size_t i, j;

	for (i = 0; i < rd->nnds; i++) {
		const char *dev = rd->nds[i].dev;
		char path[512], edev[RD_TEXT_MAX(RDMA_NL_NAME_MAX)];
		struct dirent *pe, *ce;
		DIR *pd, *cd;

		for (j = 0; j < i; j++)
			if (!strcmp(rd->nds[j].dev, dev))
				break;
		if (j < i)
			continue;	/* one device, several netdevs */
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports", dev);
		pd = opendir(path);
		if (!pd)
			continue;
		rd_prom_escape(dev, edev, sizeof(edev));
		while ((pe = readdir(pd))) {
			if (pe->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path),
				 "/sys/class/infiniband/%s/ports/%s/hw_counters",
				 dev, pe->d_name);
			cd = opendir(path);
			if (!cd)
				continue;
			while ((ce = readdir(cd))) {
				char file[1024], ename[RD_TEXT_MAX(256)], line[64];
				unsigned long long v;
				FILE *cf;

				if (ce->d_name[0] == '.' ||
				    !strcmp(ce->d_name, "lifespan"))
					continue;
				snprintf(file, sizeof(file), "%s/%s", path, ce->d_name);
				cf = fopen(file, "re");
				if (!cf)
					continue;
				if (fgets(line, sizeof(line), cf) &&
				    sscanf(line, "%llu", &v) == 1) {
					if (!header) {
						rd_prom_family(f, RDF_RDMA_HW_STAT);
						header = true;
					}
					rd_prom_escape(ce->d_name, ename, sizeof(ename));
					fprintf(f, "%s{dev=\"%s\",port=\"%s\",name=\"%s\"} %llu\n",
						rd_fam(RDF_RDMA_HW_STAT), edev,
						pe->d_name, ename, v);
				}
				fclose(cf);
			}
			closedir(cd);
		}
		closedir(pd);
	}
}

void rd_metrics(struct rd *rd, const struct rd_snap *snap, FILE *f)
{
	struct prom_ctx c = { .f = f };
	struct flowmon_stats st;
	unsigned int i, nflows, nqps = 0;
	size_t j;

	for (i = 0; i < rd_ncounters; i++) {
		rd_prom_family(f, rd_counters[i].fam);
		c.pass = i;
		rd_snap_each(rd, snap, prom_flow, &c);
	}
	c.pass = ~0u;
	rd_prom_family(f, RDF_FLOW_MCT);
	c.rtt = false;
	rd_snap_each(rd, snap, prom_flow, &c);
	rd_prom_family(f, RDF_FLOW_RTT);
	c.rtt = true;
	nflows = rd_snap_each(rd, snap, prom_flow, &c);

	if (!rd_stats(rd, &st)) {
		rd_prom_stat(f, RDF_FLOWMON_TX_UNKNOWN_PKTS, st.tx_unknown_pkts);
		rd_prom_stat(f, RDF_FLOWMON_TX_UNKNOWN_BYTES, st.tx_unknown_bytes);
		rd_prom_stat(f, RDF_FLOWMON_RX_UNKNOWN_PKTS, st.rx_unknown_pkts);
		rd_prom_stat(f, RDF_FLOWMON_RX_UNKNOWN_BYTES, st.rx_unknown_bytes);
		rd_prom_stat(f, RDF_FLOWMON_TX_MALFORMED, st.tx_malformed);
		rd_prom_stat(f, RDF_FLOWMON_RX_MALFORMED, st.rx_malformed);
		rd_prom_stat(f, RDF_FLOWMON_FLOW_FULL, st.flow_full);
		rd_prom_stat(f, RDF_FLOWMON_FLOW_REPLACED, st.flow_replaced);
		rd_prom_stat(f, RDF_FLOWMON_PEND_FULL, st.pend_full);
		rd_prom_stat(f, RDF_FLOWMON_PEND_MERGED, st.pend_merged);
		rd_prom_stat(f, RDF_FLOWMON_PEND_RESP_LOST, st.pend_resp_lost);
		rd_prom_stat(f, RDF_FLOWMON_EVENTS_LOST, st.events_lost);
	}
	rd_prom_stat(f, RDF_FLOWMON_PEND_EVICTED, rd->fm_evicted_pending);
	rd_prom_stat(f, RDF_FLOWMON_FLOWS_EVICTED, rd->fm_evicted_flows);
	rd_prom_stat(f, RDF_FLOWMON_EVENT_ROUNDS, rd->ev_rounds);
	for (j = 0; j < rd->nqps; j++)
		nqps += !rd->qps[j].gone;
	rd_prom_stat(f, RDF_FLOWS, nflows);
	rd_prom_stat(f, RDF_QPS, nqps);
	rd_prom_stat(f, RDF_NETDEVS, rd->nnds);
	rd_prom_family(f, RDF_NETDEV_INFO);
	for (j = 0; j < rd->nnds; j++)
		fprintf(f, "%s{dev=\"%s\",netdev=\"%s\",ifindex=\"%" PRIu32 "\"} 1\n",
			rd_fam(RDF_NETDEV_INFO), rd->nds[j].dev,
			rd->nds[j].name, rd->nds[j].ifindex);
	rd_prom_groups(rd, snap, f);
	rd_prom_aggregates(rd, snap, f);
	rd_prom_hw(rd, f);
	rd_mod_metrics(rd, f);
	rd_bpf_metrics(rd, f);
	rd_dcb_metrics(rd, f);
	rd_pfcwd_metrics(rd, f);
	rd_hw_metrics(rd, f);
	rd_prom_stat(f, RDF_STRAGGLERS, rd->nstragglers);
	rd_prom_stat(f, RDF_STRAGGLERS_FLAGGED, rd->straggler_flagged);
	rd_prom_stat(f, RDF_CONFIG_RELOADS, rd->reloads);
	rd_prom_stat(f, RDF_CONFIG_RELOAD_ERRORS, rd->reload_errors);
	rd_prom_stat(f, RDF_DISCOVERY_POLLS, rd->polls);
	rd_prom_stat(f, RDF_DISCOVERY_ERRORS, rd->poll_errors);
}
