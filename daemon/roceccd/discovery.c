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
#include "lib/array.h"
#include "roceccd.h"

struct rd_netdev *rd_netdev_find(struct rd *rd, uint32_t ifindex)
{
	size_t i;

	for (i = 0; i < rd->nnds; i++)
		if (rd->nds[i].ifindex == ifindex)
			return &rd->nds[i];
	return NULL;
}

/*
 * The name of process @pid (/proc/PID/comm, which ends in a newline); a
 * newline in the name itself stays (the output escapes it).
 */
static void rd_comm(uint32_t pid, char *buf, size_t n)
{
	char path[64];
	size_t len;
	FILE *f;

	snprintf(buf, n, "?");
	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/comm", pid);
	f = fopen(path, "re");
	if (!f)
		return;
	len = fread(buf, 1, n - 1, f);
	if (len && buf[len - 1] == '\n')
		len--;
	buf[len] = '\0';
	if (!len || memchr(buf, '\0', len))
		snprintf(buf, n, "?");
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

/* The @what dump of @d failed (-@err): logged, counted; its QPs are kept. */
static void rd_dump_failed(struct rd *rd, const struct rdma_nl_dev *d,
			   const char *what, int err)
{
	rd_log(LOG_WARN_, "%s: %s dump failed: %s", d->name, what,
	       strerror(-err));
	rd->poll_errors++;
	rd_keep_dev_qps(rd, d->name);
}

/*
 * The entry of QP @q on @port: the one we have (afresh if its number came
 * back for a new QP), or a new one; NULL without memory.
 */
static struct rd_qp *rd_qp_entry(struct rd *rd, const struct rdma_nl_qp *q,
				 const struct rdma_nl_port *port)
{
	struct rd_qp *e = rd_qp_find(rd, port->ifindex, q->lqpn);
	void *p;

	if (e && !e->gone)
		return e;
	if (e)	/* the number came back: a new QP */
		rd_delete_flows(rd, port->ifindex, q->lqpn);
	if (!e) {
		p = array_grow(rd->qps, &rd->capqps, rd->nqps + 1,
			       sizeof(*rd->qps));
		if (!p)
			return NULL;
		rd->qps = p;
		e = &rd->qps[rd->nqps++];
	}
	memset(e, 0, sizeof(*e));
	e->ifindex = port->ifindex;
	e->lqpn = q->lqpn;
	e->rqpn = ~0u;
	e->av_due = rd_bpf_av_due(rd, e->ifindex);
	return e;
}

/* The port of @ports that QP @q runs on, NULL if none (or no netdev). */
static const struct rdma_nl_port *rd_qp_port(const struct rdma_nl_qp *q,
					     const struct rdma_nl_port *ports,
					     size_t nports)
{
	size_t j;

	for (j = 0; j < nports; j++)
		if (!q->port || ports[j].port == q->port)
			return ports[j].ifindex ? &ports[j] : NULL;
	return NULL;
}

/* QP @q of device @d into entry @e, and its peer into the qps map. */
static void rd_qp_update(struct rd *rd, struct rd_qp *e,
			 const struct rdma_nl_qp *q,
			 const struct rdma_nl_dev *d,
			 const struct rdma_nl_port *port)
{
	struct flowmon_qp_key k = { .ifindex = e->ifindex, .lqpn = e->lqpn };
	struct flowmon_qp v = { .rqpn = q->rqpn };

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
	if (e->rqpn == q->rqpn)
		return;
	if (bpf_map_update_elem(bpf_map__fd(rd->skel->maps.qps), &k, &v,
				BPF_ANY)) {
		rd_log(LOG_WARN_, "%s QP %" PRIu32 ": qps map update: %s",
		       d->name, q->lqpn, strerror(errno));
		return;
	}
	rd_log(LOG_DEBUG_, "%s QP %" PRIu32 " -> %" PRIu32 " (%s[%" PRIu32 "], %s)",
	       d->name, q->lqpn, q->rqpn, e->comm, e->pid,
	       rdma_nl_qp_state_name(q->state));
	e->rqpn = q->rqpn;
}

/* One device's QPs into our table and the qps map. */
static void rd_learn_qps(struct rd *rd, const struct rdma_nl_dev *d,
			 const struct rdma_nl_port *ports, size_t nports)
{
	const struct rdma_nl_port *port;
	struct rdma_nl_qp *qps;
	struct rd_qp *e;
	size_t n, i;
	int err;

	err = rdma_nl_qps(&rd->nl, d->index, &qps, &n);
	if (err) {
		rd_dump_failed(rd, d, "QP", err);
		return;
	}
	for (i = 0; i < n; i++) {
		const struct rdma_nl_qp *q = &qps[i];

		if ((q->type != RDMA_NL_QPT_RC && q->type != RDMA_NL_QPT_UC) ||
		    !q->has_rqpn || q->state < RDMA_NL_QPS_RTR ||
		    q->state >= RDMA_NL_QPS_ERR)
			continue;
		port = rd_qp_port(q, ports, nports);
		if (!port)
			continue;
		e = rd_qp_entry(rd, q, port);
		if (!e) {
			rd_log(LOG_ERR_, "out of memory");
			break;
		}
		rd_qp_update(rd, e, q, d, port);
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
		e = rd_qp_of_flow(rd, &key, val);
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

/*
 * The netdev of @port of device @d: the one we have, or a new one with
 * flowmon attached (an event); NULL if that fails (tried next poll).
 */
static struct rd_netdev *rd_port_netdev(struct rd *rd,
					const struct rdma_nl_dev *d,
					const struct rdma_nl_port *port)
{
	struct rd_netdev *nd = rd_netdev_find(rd, port->ifindex);
	void *p;

	if (nd)
		return nd;
	p = array_grow(rd->nds, &rd->capnds, rd->nnds + 1, sizeof(*rd->nds));
	if (!p)
		return NULL;
	rd->nds = p;
	nd = &rd->nds[rd->nnds];
	memset(nd, 0, sizeof(*nd));
	nd->ifindex = port->ifindex;
	snprintf(nd->name, sizeof(nd->name), "%s", port->netdev);
	snprintf(nd->dev, sizeof(nd->dev), "%s", d->name);
	nd->rank_host = -1;
	if (rd_attach(rd, nd)) {
		rd->poll_errors++;
		return NULL;
	}
	rd->nnds++;
	rd_event(rd, "netdev_attached", "netdev", rd_json_str(nd->name),
		 "dev", rd_json_str(nd->dev), NULL);
	return nd;
}

/* The netdevs of device @d's @ports: attach new ones, and their work */
static void rd_netdevs(struct rd *rd, const struct rdma_nl_dev *d,
		       const struct rdma_nl_port *ports, size_t nports)
{
	struct rd_netdev *nd;
	size_t j;

	for (j = 0; j < nports; j++) {
		if (!ports[j].ifindex)
			continue;
		nd = rd_port_netdev(rd, d, &ports[j]);
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
			rd_log(LOG_INFO_, "%s: no longer an RDMA port", nd->name);
			rd_event(rd, "netdev_gone", "netdev", rd_json_str(nd->name),
				 NULL);
			rd_dp_release(rd, nd, false);
			rd_detach(nd);
			continue;
		}
		rd->nds[j++] = *nd;
	}
	rd->nnds = j;
}

/* RoCE device @d: its ports (with @netdevs their netdevs), then its QPs. */
static void rd_scan_dev(struct rd *rd, const struct rdma_nl_dev *d,
			bool netdevs)
{
	struct rdma_nl_port *ports = NULL;
	size_t nports = 0, j;
	int err;

	err = rdma_nl_ports(&rd->nl, d->index, &ports, &nports);
	if (err) {
		rd_dump_failed(rd, d, "port", err);
		for (j = 0; j < rd->nnds; j++)
			if (!strcmp(rd->nds[j].dev, d->name))
				rd->nds[j].seen = true;
		return;
	}
	if (netdevs)
		rd_netdevs(rd, d, ports, nports);
	rd_learn_qps(rd, d, ports, nports);
	free(ports);
}

/*
 * Devices, ports and QPs; with @netdevs also the netdevs' attachment and
 * work. false if the device dump failed (nothing learnt).
 */
static bool rd_scan(struct rd *rd, bool netdevs)
{
	struct rdma_nl_dev *devs = NULL;
	size_t ndevs = 0, i;
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
	for (i = 0; i < ndevs; i++)
		if (!devs[i].protocol[0] || !strcmp(devs[i].protocol, "roce"))
			rd_scan_dev(rd, &devs[i], netdevs);
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
	rd_bpf_peers(rd);
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
