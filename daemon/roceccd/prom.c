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
	}
	free(per);
	return 0;
}

/* ---- Prometheus --------------------------------------------------------- */

#define RD_COUNTER(field, name, help) { offsetof(struct flowmon_flow, field), name, help }

const struct rd_counter rd_counters[] = {
	RD_COUNTER(tx_pkts, "tx_packets", "RoCE packets sent"),
	RD_COUNTER(tx_bytes, "tx_bytes", "RoCE bytes sent, IP header to ICRC"),
	RD_COUNTER(rx_pkts, "rx_packets", "RoCE packets received"),
	RD_COUNTER(rx_bytes, "rx_bytes", "RoCE bytes received, IP header to ICRC"),
	RD_COUNTER(rx_ce, "rx_ce_marked_packets", "RoCE packets received with ECN CE"),
	RD_COUNTER(tx_cnp, "tx_cnp", "CNPs sent"),
	RD_COUNTER(rx_cnp, "rx_cnp", "CNPs received"),
	RD_COUNTER(tx_ackreq, "tx_ackreq_requests", "new requests sent with AckReq (RTT probes)"),
	RD_COUNTER(tx_msgs, "tx_messages", "messages whose last packet was sent"),
	RD_COUNTER(tx_retrans, "tx_retransmitted_packets", "retransmitted request packets"),
	RD_COUNTER(rx_acks, "rx_acks", "positive ACKs received"),
	RD_COUNTER(rx_nak_seq, "rx_nak_sequence_errors", "NAKs received: PSN sequence error"),
	RD_COUNTER(rx_nak_other, "rx_nak_other", "NAKs received: invalid request, access, other"),
	RD_COUNTER(rx_rnr_nak, "rx_rnr_naks", "RNR NAKs received"),
	RD_COUNTER(rtt_karn, "rtt_probes_retransmitted", "RTT probes dropped: retransmitted (Karn)"),
	RD_COUNTER(rtt_overrun, "rtt_probes_overrun", "RTT probes dropped: probe table wrapped"),
	RD_COUNTER(mct_overrun, "messages_untimed", "messages not timed: pending ring full"),
};

const unsigned int rd_ncounters = sizeof(rd_counters) / sizeof(rd_counters[0]);

struct prom_ctx {
	FILE *f;
	unsigned int pass;	/* counter index, or ~0u for the histograms */
	bool rtt;
};

static void rd_labels(const struct rd_flow_view *v, char *out, size_t n)
{
	char flow[512], comm[160], peer[128];

	rd_prom_escape(v->name, flow, sizeof(flow));
	rd_prom_escape(v->comm, comm, sizeof(comm));
	rd_prom_escape(v->peer, peer, sizeof(peer));
	snprintf(out, n,
		 "flow=\"%s\",comm=\"%s\",pid=\"%" PRIu32 "\",lqpn=\"%" PRIu32
		 "\",rqpn=\"%" PRIu32 "\",peer=\"%s\",dev=\"%s\",netdev=\"%s\"",
		 flow, comm, v->pid, v->lqpn, v->key.rqpn, peer, v->dev,
		 v->netdev);
}

static void prom_flow(struct rd *rd, const struct rd_flow_view *v,
		      const struct flowmon_flow *f, void *arg)
{
	struct prom_ctx *c = arg;
	char labels[1024];

	rd_labels(v, labels, sizeof(labels));
	if (c->pass != ~0u) {
		uint64_t val;

		memcpy(&val, (const char *)f + rd_counters[c->pass].off,
		       sizeof(val));
		fprintf(c->f, "rocecc_flow_%s_total{%s} %" PRIu64 "\n",
			rd_counters[c->pass].name, labels, val);
		return;
	}
	if (c->rtt)
		rd_prom_hist(c->f, "rocecc_flow_rtt_seconds", labels,
			     f->rtt.bucket, f->rtt.sum_ns, rd->conf.per_octave);
	else
		rd_prom_hist(c->f, "rocecc_flow_message_completion_seconds",
			     labels, f->mct.bucket, f->mct.sum_ns,
			     rd->conf.per_octave);
}

static void rd_prom_stat(FILE *f, const char *name, const char *help,
			 uint64_t v)
{
	fprintf(f, "# HELP rocecc_flowmon_%s_total %s\n", name, help);
	fprintf(f, "# TYPE rocecc_flowmon_%s_total counter\n", name);
	fprintf(f, "rocecc_flowmon_%s_total %" PRIu64 "\n", name, v);
}

/* Straggler state and rank-map groups of every flow. */
static void rd_prom_groups(struct rd *rd, const struct rd_snap *snap, FILE *f)
{
	char labels[1024];
	size_t i;

	fprintf(f, "# HELP rocecc_flow_straggler 1 if the flow's message completion p99 over the window exceeds its group's median by the configured factor.\n"
		   "# TYPE rocecc_flow_straggler gauge\n");
	for (i = 0; i < snap->n; i++) {
		const struct rd_fstate *st = rd_fstate_find(rd, &snap->v[i].key);

		rd_labels(&snap->v[i], labels, sizeof(labels));
		fprintf(f, "rocecc_flow_straggler{%s} %d\n", labels,
			st && st->straggler);
	}
	fprintf(f, "# HELP rocecc_flow_window_message_completion_p99_seconds Message completion p99 over the straggler window (absent: no message in it).\n"
		   "# TYPE rocecc_flow_window_message_completion_p99_seconds gauge\n");
	for (i = 0; i < snap->n; i++) {
		const struct rd_fstate *st = rd_fstate_find(rd, &snap->v[i].key);

		if (!st || !st->win_samples)
			continue;
		rd_labels(&snap->v[i], labels, sizeof(labels));
		fprintf(f, "rocecc_flow_window_message_completion_p99_seconds{%s} %.9f\n",
			labels, (double)st->win_p99_ns / 1e9);
	}
	if (!rd->have_rmap)
		return;
	fprintf(f, "# HELP rocecc_flow_group_info A parallel group (rank map) the flow serves.\n"
		   "# TYPE rocecc_flow_group_info gauge\n");
	for (i = 0; i < snap->n; i++) {
		uint64_t keys[RD_MAX_GROUPS];
		size_t n, k;

		n = rd_rank_groups(rd, &snap->v[i], keys, RD_MAX_GROUPS, NULL, 0);
		rd_labels(&snap->v[i], labels, sizeof(labels));
		for (k = 0; k < n; k++) {
			char g[64];

			rd_group_label(keys[k], &snap->v[i], g, sizeof(g));
			fprintf(f, "rocecc_flow_group_info{%s,group=\"%s\"} 1\n",
				labels, g);
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

	for (i = 0; i < *n; i++)
		if (!strcmp((*a)[i].labels, labels))
			return &(*a)[i];
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		void *p = realloc(*a, nc * sizeof(**a));

		if (!p)
			return NULL;
		*a = p;
		*cap = nc;
	}
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
	static const char *const what[] = { "process", "peer", "netdev", "group" };
	struct rd_agg *a = NULL;
	size_t n, cap, i, k, w;

	for (w = 0; w < 4; w++) {
		n = cap = 0;
		for (i = 0; i < snap->n; i++) {
			const struct rd_flow_view *v = &snap->v[i];
			char l[512], e1[128], e2[128];
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
		fprintf(f, "# HELP rocecc_%s_flows Flows in the table, by %s.\n"
			   "# TYPE rocecc_%s_flows gauge\n", what[w], what[w], what[w]);
		for (i = 0; i < n; i++)
			fprintf(f, "rocecc_%s_flows{%s} %" PRIu64 "\n", what[w],
				a[i].labels, a[i].flows);
		fprintf(f, "# HELP rocecc_%s_tx_bytes_total RoCE bytes sent by the flows in the table, by %s.\n"
			   "# TYPE rocecc_%s_tx_bytes_total counter\n", what[w], what[w], what[w]);
		for (i = 0; i < n; i++)
			fprintf(f, "rocecc_%s_tx_bytes_total{%s} %" PRIu64 "\n",
				what[w], a[i].labels, a[i].tx_bytes);
		fprintf(f, "# HELP rocecc_%s_rx_bytes_total RoCE bytes received by the flows in the table, by %s.\n"
			   "# TYPE rocecc_%s_rx_bytes_total counter\n", what[w], what[w], what[w]);
		for (i = 0; i < n; i++)
			fprintf(f, "rocecc_%s_rx_bytes_total{%s} %" PRIu64 "\n",
				what[w], a[i].labels, a[i].rx_bytes);
		fprintf(f, "# HELP rocecc_%s_message_completion_seconds Message completion time of the flows in the table, by %s.\n"
			   "# TYPE rocecc_%s_message_completion_seconds histogram\n",
			what[w], what[w], what[w]);
		for (i = 0; i < n; i++) {
			char name[64];

			snprintf(name, sizeof(name),
				 "rocecc_%s_message_completion_seconds", what[w]);
			rd_prom_hist(f, name, a[i].labels, a[i].mct.bucket,
				     a[i].mct.sum_ns, rd->conf.per_octave);
		}
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
		char path[512], edev[2 * RDMA_NL_NAME_MAX];
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
				char file[1024], ename[128], line[64];
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
						fprintf(f, "# HELP rocecc_rdma_hw_stat_total An RDMA device port's hw_counters entry (sysfs), by name.\n"
							   "# TYPE rocecc_rdma_hw_stat_total counter\n");
						header = true;
					}
					rd_prom_escape(ce->d_name, ename, sizeof(ename));
					fprintf(f, "rocecc_rdma_hw_stat_total{dev=\"%s\",port=\"%s\",name=\"%s\"} %llu\n",
						edev, pe->d_name, ename, v);
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

	for (i = 0; i < sizeof(rd_counters) / sizeof(rd_counters[0]); i++) {
		fprintf(f, "# HELP rocecc_flow_%s_total %s.\n",
			rd_counters[i].name, rd_counters[i].help);
		fprintf(f, "# TYPE rocecc_flow_%s_total counter\n",
			rd_counters[i].name);
		c.pass = i;
		rd_snap_each(rd, snap, prom_flow, &c);
	}
	c.pass = ~0u;
	fprintf(f, "# HELP rocecc_flow_message_completion_seconds Message completion time on the wire: first packet sent to the ACK that completes the message.\n"
		   "# TYPE rocecc_flow_message_completion_seconds histogram\n");
	c.rtt = false;
	rd_snap_each(rd, snap, prom_flow, &c);
	fprintf(f, "# HELP rocecc_flow_rtt_seconds Request with AckReq to the response carrying its PSN.\n"
		   "# TYPE rocecc_flow_rtt_seconds histogram\n");
	c.rtt = true;
	nflows = rd_snap_each(rd, snap, prom_flow, &c);

	if (!rd_stats(rd, &st)) {
		rd_prom_stat(f, "tx_unknown_packets", "Egress RoCE packets of no flow.", st.tx_unknown_pkts);
		rd_prom_stat(f, "tx_unknown_bytes", "Egress RoCE bytes of no flow.", st.tx_unknown_bytes);
		rd_prom_stat(f, "rx_unknown_packets", "Ingress RoCE packets for a QP not (yet) known.", st.rx_unknown_pkts);
		rd_prom_stat(f, "rx_unknown_bytes", "Ingress RoCE bytes for a QP not (yet) known.", st.rx_unknown_bytes);
		rd_prom_stat(f, "tx_malformed_packets", "Egress packets to port 4791, truncated or malformed.", st.tx_malformed);
		rd_prom_stat(f, "rx_malformed_packets", "Ingress packets to port 4791, truncated or malformed.", st.rx_malformed);
		rd_prom_stat(f, "flow_table_full", "New flows not created: table full.", st.flow_full);
		rd_prom_stat(f, "flows_replaced", "Flows restarted: their remote QP now pairs with another local QP.", st.flow_replaced);
	}
	for (j = 0; j < rd->nqps; j++)
		nqps += !rd->qps[j].gone;
	fprintf(f, "# HELP rocecc_flows Flows in the flow table.\n"
		   "# TYPE rocecc_flows gauge\nrocecc_flows %u\n", nflows);
	fprintf(f, "# HELP rocecc_qps RC/UC QPs in RTR or later on RoCE ports.\n"
		   "# TYPE rocecc_qps gauge\nrocecc_qps %u\n", nqps);
	fprintf(f, "# HELP rocecc_netdevs RoCE netdevs with flowmon attached.\n"
		   "# TYPE rocecc_netdevs gauge\nrocecc_netdevs %zu\n", rd->nnds);
	fprintf(f, "# HELP rocecc_netdev_info A RoCE netdev with flowmon attached, and its RDMA device.\n"
		   "# TYPE rocecc_netdev_info gauge\n");
	for (j = 0; j < rd->nnds; j++)
		fprintf(f, "rocecc_netdev_info{dev=\"%s\",netdev=\"%s\",ifindex=\"%" PRIu32 "\"} 1\n",
			rd->nds[j].dev, rd->nds[j].name, rd->nds[j].ifindex);
	rd_prom_groups(rd, snap, f);
	rd_prom_aggregates(rd, snap, f);
	rd_prom_hw(rd, f);
	rd_mod_metrics(rd, f);
	rd_dcb_metrics(rd, f);
	rd_pfcwd_metrics(rd, f);
	rd_hw_metrics(rd, f);
	fprintf(f, "# HELP rocecc_stragglers Flows flagged as stragglers now.\n"
		   "# TYPE rocecc_stragglers gauge\nrocecc_stragglers %u\n",
		rd->nstragglers);
	fprintf(f, "# HELP rocecc_stragglers_flagged_total Times a flow was flagged as a straggler.\n"
		   "# TYPE rocecc_stragglers_flagged_total counter\n"
		   "rocecc_stragglers_flagged_total %" PRIu64 "\n", rd->straggler_flagged);
	fprintf(f, "# HELP rocecc_config_reloads_total Configuration reloads (SIGHUP) applied.\n"
		   "# TYPE rocecc_config_reloads_total counter\n"
		   "rocecc_config_reloads_total %" PRIu64 "\n", rd->reloads);
	fprintf(f, "# HELP rocecc_config_reload_errors_total Configuration reloads refused (bad file); the previous configuration stays.\n"
		   "# TYPE rocecc_config_reload_errors_total counter\n"
		   "rocecc_config_reload_errors_total %" PRIu64 "\n", rd->reload_errors);
	fprintf(f, "# HELP rocecc_discovery_polls_total RDMA netlink discovery rounds.\n"
		   "# TYPE rocecc_discovery_polls_total counter\n"
		   "rocecc_discovery_polls_total %" PRIu64 "\n", rd->polls);
	fprintf(f, "# HELP rocecc_discovery_errors_total Failed RDMA netlink requests or attachments.\n"
		   "# TYPE rocecc_discovery_errors_total counter\n"
		   "rocecc_discovery_errors_total %" PRIu64 "\n", rd->poll_errors);
}
