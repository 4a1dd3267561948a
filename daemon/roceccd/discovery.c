// SPDX-License-Identifier: GPL-2.0
/*
 * roceccd: discovery and the QP table. Every poll lists the RDMA devices
 * and their ports' netdevs over RDMA netlink, attaches to each RoCE netdev
 * (tc.c, module.c, dcb.c, pfcwd.c), learns every device's QPs into the
 * "qps" map and, --linger after a QP vanished, deletes its flows.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "flowmon.skel.h"
#include "lib/rdma_nl.h"
#include "roceccd.h"

struct rd_netdev *rd_netdev_find(struct rd *rd, uint32_t ifindex)
{
	size_t i;

	for (i = 0; i < rd->nnds; i++)
		if (rd->nds[i].ifindex == ifindex)
			return &rd->nds[i];
	return NULL;
}

struct rd_qp *rd_qp_find(struct rd *rd, uint32_t ifindex, uint32_t lqpn)
{
	size_t i;

	for (i = 0; i < rd->nqps; i++)
		if (rd->qps[i].ifindex == ifindex && rd->qps[i].lqpn == lqpn)
			return &rd->qps[i];
	return NULL;
}

static void *grow(void *v, size_t *cap, size_t n, size_t elsz)
{
	void *p;

	if (n < *cap)
		return v;
	p = realloc(v, (*cap ? *cap * 2 : 16) * elsz);
	if (!p)
		return NULL;
	*cap = *cap ? *cap * 2 : 16;
	return p;
}

static void rd_comm(uint32_t pid, char *buf, size_t n)
{
	char path[64];
	FILE *f;

	snprintf(buf, n, "?");
	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/comm", pid);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(buf, (int)n, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/*
 * Delete the flows of local QP @lqpn on @ifindex: its number is back for a
 * new QP, whose packets must not add to the old QP's flow (its qps entry
 * was deleted when the old QP vanished, so nothing was added since).
 */
static void rd_delete_flows(struct rd *rd, uint32_t ifindex, uint32_t lqpn)
{
	int ffd = bpf_map__fd(rd->skel->maps.flows);
	struct flowmon_key key, next, *prev = NULL;
	struct flowmon_flow *val = malloc(sizeof(*val));
	unsigned int guard = 0;

	if (!val)
		return;
	while (!bpf_map_get_next_key(ffd, prev, &next) &&
	       guard++ < 4 * FLOWMON_MAX_FLOWS) {
		key = next;
		prev = &key;
		if (key.ifindex != ifindex ||
		    bpf_map_lookup_elem(ffd, &key, val) || val->lqpn != lqpn)
			continue;
		bpf_map_delete_elem(ffd, &key);
		prev = NULL;
	}
	free(val);
}

/* A dump of device @dev failed: keep what we know of its QPs this round. */
static void rd_keep_dev_qps(struct rd *rd, const char *dev)
{
	size_t i;

	for (i = 0; i < rd->nqps; i++)
		if (!strcmp(rd->qps[i].dev, dev))
			rd->qps[i].seen = true;
}

/* One device's QPs into our table and the qps map. */
static void rd_learn_qps(struct rd *rd, const struct rdma_nl_dev *d,
			 const struct rdma_nl_port *ports, size_t nports)
{
	int fd = bpf_map__fd(rd->skel->maps.qps);
	struct rdma_nl_qp *qps;
	size_t n, i, j;
	int err;

	err = rdma_nl_qps(&rd->nl, d->index, &qps, &n);
	if (err) {
		rd_log(LOG_WARN_, "%s: QP dump failed: %s", d->name,
		       strerror(-err));
		rd->poll_errors++;
		rd_keep_dev_qps(rd, d->name);
		return;
	}
	for (i = 0; i < n; i++) {
		const struct rdma_nl_qp *q = &qps[i];
		const struct rdma_nl_port *port = NULL;
		struct flowmon_qp_key k;
		struct flowmon_qp v;
		struct rd_qp *e;

		if ((q->type != RDMA_NL_QPT_RC && q->type != RDMA_NL_QPT_UC) ||
		    !q->has_rqpn || q->state < RDMA_NL_QPS_RTR ||
		    q->state >= RDMA_NL_QPS_ERR)
			continue;
		for (j = 0; j < nports; j++)
			if (!q->port || ports[j].port == q->port) {
				port = &ports[j];
				break;
			}
		if (!port || !port->ifindex)
			continue;
		e = rd_qp_find(rd, port->ifindex, q->lqpn);
		if (e && e->gone) {
			/* the number came back: a new QP */
			rd_delete_flows(rd, port->ifindex, q->lqpn);
			memset(e, 0, sizeof(*e));
			e->ifindex = port->ifindex;
			e->lqpn = q->lqpn;
			e->rqpn = ~0u;
		}
		if (!e) {
			void *p = grow(rd->qps, &rd->capqps, rd->nqps,
				       sizeof(*rd->qps));

			if (!p) {
				rd_log(LOG_ERR_, "out of memory");
				break;
			}
			rd->qps = p;
			e = &rd->qps[rd->nqps++];
			memset(e, 0, sizeof(*e));
			e->ifindex = port->ifindex;
			e->lqpn = q->lqpn;
			e->rqpn = ~0u;
		}
		e->seen = true;
		e->state = q->state;
		if (e->pid != q->pid || !e->comm[0]) {
			e->pid = q->pid;
			if (q->pid)
				rd_comm(q->pid, e->comm, sizeof(e->comm));
			else
				snprintf(e->comm, sizeof(e->comm), "%s",
					 q->kern_name[0] ? q->kern_name : "kernel");
		}
		snprintf(e->dev, sizeof(e->dev), "%s", d->name);
		snprintf(e->netdev, sizeof(e->netdev), "%s", port->netdev);
		if (e->rqpn != q->rqpn) {
			k.ifindex = e->ifindex;
			k.lqpn = e->lqpn;
			v.rqpn = q->rqpn;
			if (bpf_map_update_elem(fd, &k, &v, BPF_ANY)) {
				rd_log(LOG_WARN_, "%s QP %" PRIu32 ": qps map update: %s",
				       d->name, q->lqpn, strerror(errno));
				continue;
			}
			rd_log(LOG_DEBUG_, "%s QP %" PRIu32 " -> %" PRIu32 " (%s[%" PRIu32 "], %s)",
			       d->name, q->lqpn, q->rqpn, e->comm, e->pid,
			       rdma_nl_qp_state_name(q->state));
			e->rqpn = q->rqpn;
		}
	}
	free(qps);
}

/* Delete the flows of QPs gone for --linger, and forget those QPs. */
static void rd_prune(struct rd *rd, uint64_t now)
{
	int qfd = bpf_map__fd(rd->skel->maps.qps);
	int ffd = bpf_map__fd(rd->skel->maps.flows);
	struct flowmon_key key, next, *prev = NULL;
	struct flowmon_flow *val;
	size_t i, o;

	for (i = 0; i < rd->nqps; i++) {
		struct rd_qp *e = &rd->qps[i];

		if (e->seen || e->gone)
			continue;
		struct flowmon_qp_key k = { .ifindex = e->ifindex,
					    .lqpn = e->lqpn };

		bpf_map_delete_elem(qfd, &k);
		e->gone = true;
		e->gone_ms = now;
		rd_log(LOG_DEBUG_, "%s QP %" PRIu32 " gone", e->dev, e->lqpn);
	}

	val = malloc(sizeof(*val));
	if (!val)
		return;
	while (!bpf_map_get_next_key(ffd, prev, &next)) {
		struct rd_qp *e;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(ffd, &key, val))
			continue;
		/* an egress packet made it: its QP by the remote QPN */
		e = val->lqpn ? rd_qp_find(rd, key.ifindex, val->lqpn) :
				rd_qp_by_rqpn(rd, key.ifindex, key.rqpn);
		if (!val->lqpn && !e)
			continue;	/* nobody's: rd_resolve() evicts it */
		if (e && (!e->gone || now - e->gone_ms < rd->conf.linger_ms))
			continue;
		/*
		 * A flow of no QP we know: adopted from the pinned map of a
		 * daemon before us, for a QP that ended meanwhile. It lingers
		 * like the others, counted from our start.
		 */
		if (!e && now - rd->start_ms < rd->conf.linger_ms)
			continue;
		/* deleting the current key: the walk restarts, harmlessly */
		bpf_map_delete_elem(ffd, &key);
		prev = NULL;
	}
	free(val);

	for (i = o = 0; i < rd->nqps; i++) {
		struct rd_qp *e = &rd->qps[i];

		if (e->gone && now - e->gone_ms >= rd->conf.linger_ms)
			continue;
		rd->qps[o++] = *e;
	}
	rd->nqps = o;
}

/* A new RoCE netdev @port of device @dev: flowmon attached; NULL if not */
static struct rd_netdev *rd_netdev_add(struct rd *rd,
				       const struct rdma_nl_dev *dev,
				       const struct rdma_nl_port *port)
{
	struct rd_netdev *nd;
	char j1[64], j2[64];
	void *p = grow(rd->nds, &rd->capnds, rd->nnds, sizeof(*rd->nds));

	if (!p)
		return NULL;
	rd->nds = p;
	nd = &rd->nds[rd->nnds];
	memset(nd, 0, sizeof(*nd));
	nd->ifindex = port->ifindex;
	snprintf(nd->name, sizeof(nd->name), "%s", port->netdev);
	snprintf(nd->dev, sizeof(nd->dev), "%s", dev->name);
	nd->rank_host = -1;
	if (rd_attach(rd, nd)) {
		rd->poll_errors++;
		return NULL;	/* retried next round */
	}
	rd->nnds++;
	rd_event(rd, "netdev_attached", "\"netdev\":%s,\"dev\":%s",
		 rd_jstr(nd->name, j1, sizeof(j1)),
		 rd_jstr(nd->dev, j2, sizeof(j2)));
	return nd;
}

/* The netdevs of device @dev's @ports: attach new ones, and their work */
static void rd_netdevs(struct rd *rd, const struct rdma_nl_dev *dev,
		       const struct rdma_nl_port *ports, size_t nports)
{
	struct rd_netdev *nd;
	size_t j;

	for (j = 0; j < nports; j++) {
		if (!ports[j].ifindex)
			continue;
		nd = rd_netdev_find(rd, ports[j].ifindex);
		if (!nd)
			nd = rd_netdev_add(rd, dev, &ports[j]);
		if (!nd)
			continue;
		nd->seen = true;
		rd_dp_sync(rd, nd);
		rd_dcb_sync(rd, nd);
		rd_pfcwd_poll(rd, nd);
	}
}

/* Forget the netdevs that are no longer RoCE ports (or gone) */
static void rd_netdevs_gone(struct rd *rd)
{
	size_t i, j;

	for (i = 0, j = 0; i < rd->nnds; i++) {
		struct rd_netdev *nd = &rd->nds[i];

		if (!nd->seen) {
			char j1[64];

			rd_log(LOG_INFO_, "%s: no longer an RDMA port", nd->name);
			rd_event(rd, "netdev_gone", "\"netdev\":%s",
				 rd_jstr(nd->name, j1, sizeof(j1)));
			rd_dp_release(rd, nd, false);
			rd_detach(nd);
			continue;
		}
		rd->nds[j++] = *nd;
	}
	rd->nnds = j;
}

/*
 * Devices, ports and QPs; with @netdevs also the netdevs' attachment and
 * work. false if the device dump failed (nothing learnt).
 */
static bool rd_scan(struct rd *rd, bool netdevs)
{
	struct rdma_nl_dev *devs = NULL;
	size_t ndevs = 0, i, j;
	int err;

	err = rdma_nl_devices(&rd->nl, &devs, &ndevs);
	if (err) {
		rd_log(LOG_WARN_, "RDMA device dump failed: %s", strerror(-err));
		rd->poll_errors++;
		return false;
	}
	for (i = 0; netdevs && i < rd->nnds; i++)
		rd->nds[i].seen = false;
	for (i = 0; i < rd->nqps; i++)
		rd->qps[i].seen = false;

	for (i = 0; i < ndevs; i++) {
		struct rdma_nl_port *ports = NULL;
		size_t nports = 0;

		if (devs[i].protocol[0] && strcmp(devs[i].protocol, "roce"))
			continue;
		err = rdma_nl_ports(&rd->nl, devs[i].index, &ports, &nports);
		if (err) {
			rd_log(LOG_WARN_, "%s: port dump failed: %s",
			       devs[i].name, strerror(-err));
			rd->poll_errors++;
			rd_keep_dev_qps(rd, devs[i].name);
			for (j = 0; j < rd->nnds; j++)
				if (!strcmp(rd->nds[j].dev, devs[i].name))
					rd->nds[j].seen = true;
			continue;
		}
		if (netdevs)
			rd_netdevs(rd, &devs[i], ports, nports);
		rd_learn_qps(rd, &devs[i], ports, nports);
		free(ports);
	}
	free(devs);
	if (netdevs)
		rd_netdevs_gone(rd);
	return true;
}

/* After a dump of the QPs: what follows from them */
static void rd_after_qps(struct rd *rd)
{
	uint64_t now = rd_now_ms();

	rd_prune(rd, now);
	rd_resolve(rd, now);
	rd_bpf_qps(rd);
}

void rd_learn(struct rd *rd)
{
	if (rd_scan(rd, false))
		rd_after_qps(rd);
}

void rd_poll(struct rd *rd)
{
	rd->polls++;
	/* first: the netdevs below ask which ports run DCQCN in firmware */
	rd_hw_poll(rd);
	if (!rd_scan(rd, true))
		return;
	rd_after_qps(rd);
	rd_bpf_expire(rd);
	rd_rank_hosts(rd);
	rd_strag_round(rd, rd_now_ms());
}
