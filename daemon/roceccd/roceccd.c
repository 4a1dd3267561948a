// SPDX-License-Identifier: GPL-2.0
/*
 * roceccd - the rocecc daemon: per-flow RoCE telemetry (bpf/flowmon) on
 * every RoCE netdev, flows named after the QPs that own them, exported in
 * Prometheus text format.
 *
 * Every --interval it
 *  - discovers RDMA devices and their ports' netdevs over RDMA netlink and
 *    attaches flowmon_ingress / flowmon_egress to the clsact hooks of each
 *    RoCE netdev (creating the clsact qdisc if there is none);
 *  - learns the QPs of each device (RDMA_NLDEV_CMD_RES_QP_GET): every RC/UC
 *    QP in RTR or later goes into the "qps" map ((ifindex, lqpn) -> rqpn);
 *    QPs that vanished leave it at once, and their flows are deleted
 *    --linger seconds later (so that a scrape after a job ends still sees
 *    its final counts);
 * and it answers HTTP on --listen:--port (libmicrohttpd):
 *    /metrics      Prometheus text format
 *    /flows        per-flow p50/p99/p99.9 of message completion and RTT
 *    /flows.json   the same, and the counters, as JSON
 * On SIGTERM/SIGINT it detaches the filters it attached, removes the clsact
 * qdiscs it created if nothing else is left in them, and exits 0.
 *
 * It daemonizes unless -f (--pidfile to find it); the BPF load and the
 * listening socket come first, so that their errors reach stderr and the
 * exit status. A filter of ours left by a daemon that died (same priority
 * and handle) is replaced, not duplicated.
 *
 * This file holds discovery and QP learning, the snapshots of the flow
 * table, groups and stragglers, /flows and /flows.json, HTTP, BPF pinning,
 * configuration and reload, and main. The TC plumbing is in tc.c,
 * rocecc.ko's in module.c, the Prometheus output in prom.c;
 * roceccd.h has what they share.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>
#include <microhttpd.h>
#include <ifaddrs.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <systemd/sd-daemon.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <rocecc/hist.h>
#include "flowmon.h"
#include "flowmon.skel.h"

#include "config.h"
#include "lib/format.h"
#include "lib/rdma_nl.h"
#include "lib/rocecc_nl.h"
#include "policy/rankmap.h"
#include "policy/straggler.h"
#include "roceccd.h"

#define RD_DEFAULT_PORT	9468

static const char *prog = "roceccd";
static int log_level = LOG_INFO_;
static bool log_syslog;
static volatile sig_atomic_t stop, reload;

static void rd_strag_round(struct rd *rd, uint64_t now);
static void rd_rank_hosts(struct rd *rd);

void rd_log(int level, const char *fmt, ...)
{
	static const int prio[] = { LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG };
	va_list ap;

	if (level > log_level)
		return;
	va_start(ap, fmt);
	if (log_syslog) {
		vsyslog(prio[level], fmt, ap);
	} else {
		fprintf(stderr, "%s: ", prog);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- events ------------------------------------------------------------- */

/*
 * Record an event for /events.json: @type and JSON object members @fmt
 * (already encoded, without braces). Under rd->lock.
 */
void rd_event(struct rd *rd, const char *type, const char *fmt, ...)
{
	struct rd_event *e = &rd->ev[++rd->ev_seq & (RD_EVENTS - 1)];
	va_list ap;

	e->seq = rd->ev_seq;
	clock_gettime(CLOCK_REALTIME, &e->when);
	snprintf(e->type, sizeof(e->type), "%s", type);
	va_start(ap, fmt);
	vsnprintf(e->text, sizeof(e->text), fmt, ap);
	va_end(ap);
}

/* A string as a JSON string literal (quotes included) into @buf. */
const char *rd_jstr(const char *s, char *buf, size_t n)
{
	json_object *o = json_object_new_string(s);

	snprintf(buf, n, "%s", json_object_to_json_string_ext(o,
		 JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return buf;
}

/* ---- discovery ---------------------------------------------------------- */

static struct rd_netdev *rd_netdev_find(struct rd *rd, uint32_t ifindex)
{
	size_t i;

	for (i = 0; i < rd->nnds; i++)
		if (rd->nds[i].ifindex == ifindex)
			return &rd->nds[i];
	return NULL;
}

static struct rd_qp *rd_qp_find(struct rd *rd, uint32_t ifindex, uint32_t lqpn)
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
		if (!val->lqpn)
			continue;
		e = rd_qp_find(rd, key.ifindex, val->lqpn);
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

static void rd_poll(struct rd *rd)
{
	struct rdma_nl_dev *devs = NULL;
	size_t ndevs = 0, i, j;
	int err;

	rd->polls++;
	err = rdma_nl_devices(&rd->nl, &devs, &ndevs);
	if (err) {
		rd_log(LOG_WARN_, "RDMA device dump failed: %s", strerror(-err));
		rd->poll_errors++;
		return;
	}
	for (i = 0; i < rd->nnds; i++)
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
		for (j = 0; j < nports; j++) {
			struct rd_netdev *nd;

			if (!ports[j].ifindex)
				continue;
			nd = rd_netdev_find(rd, ports[j].ifindex);
			if (!nd) {
				void *p = grow(rd->nds, &rd->capnds, rd->nnds,
					       sizeof(*rd->nds));

				if (!p)
					break;
				rd->nds = p;
				nd = &rd->nds[rd->nnds];
				memset(nd, 0, sizeof(*nd));
				nd->ifindex = ports[j].ifindex;
				snprintf(nd->name, sizeof(nd->name), "%s",
					 ports[j].netdev);
				snprintf(nd->dev, sizeof(nd->dev), "%s",
					 devs[i].name);
				nd->rank_host = -1;
				if (rd_attach(rd, nd)) {
					rd->poll_errors++;
					continue;	/* retried next round */
				}
				rd->nnds++;
				{
					char j1[64], j2[64];

					rd_event(rd, "netdev_attached",
						 "\"netdev\":%s,\"dev\":%s",
						 rd_jstr(nd->name, j1, sizeof(j1)),
						 rd_jstr(nd->dev, j2, sizeof(j2)));
				}
			}
			nd->seen = true;
			rd_mod_sync(rd, nd);
			rd_dcb_sync(rd, nd);
			rd_pfcwd_poll(rd, nd);
		}
		rd_learn_qps(rd, &devs[i], ports, nports);
		free(ports);
	}
	free(devs);

	/* netdevs that are no longer RoCE ports (or gone) */
	for (i = 0, j = 0; i < rd->nnds; i++) {
		struct rd_netdev *nd = &rd->nds[i];

		if (!nd->seen) {
			char j1[64];

			rd_log(LOG_INFO_, "%s: no longer an RDMA port", nd->name);
			rd_event(rd, "netdev_gone", "\"netdev\":%s",
				 rd_jstr(nd->name, j1, sizeof(j1)));
			rd_mod_release(rd, nd);
			rd_detach(nd);
			continue;
		}
		rd->nds[j++] = *nd;
	}
	rd->nnds = j;
	rd_prune(rd, now_ms());
	rd_rank_hosts(rd);
	rd_strag_round(rd, now_ms());
}

/* ---- reading the maps --------------------------------------------------- */

/* Name flow @key/@val from the QP table (under rd->lock). */
static void rd_view(struct rd *rd, const struct flowmon_key *key,
		    const struct flowmon_flow *val, struct rd_flow_view *v)
{
	const struct rd_qp *e = rd_qp_find(rd, key->ifindex, val->lqpn);
	struct rd_netdev *nd = rd_netdev_find(rd, key->ifindex);

	memset(v, 0, sizeof(*v));
	v->key = *key;
	v->lqpn = val->lqpn;
	rd_peer_str(key->peer, v->peer, sizeof(v->peer));
	if (e) {
		snprintf(v->comm, sizeof(v->comm), "%s", e->comm);
		snprintf(v->dev, sizeof(v->dev), "%s", e->dev);
		snprintf(v->netdev, sizeof(v->netdev), "%s", e->netdev);
		v->pid = e->pid;
	} else {
		snprintf(v->comm, sizeof(v->comm), "?");
		if (nd) {
			snprintf(v->dev, sizeof(v->dev), "%s", nd->dev);
			snprintf(v->netdev, sizeof(v->netdev), "%s", nd->name);
		} else if (!if_indextoname(key->ifindex, v->netdev)) {
			snprintf(v->netdev, sizeof(v->netdev), "%" PRIu32,
				 key->ifindex);
		}
	}
	rd_flow_name(v->name, sizeof(v->name), v->comm, v->pid, v->lqpn,
		     v->peer, key->rqpn);
}

static void rd_snap_free(struct rd_snap *s)
{
	free(s->v);
	free(s->f);
	memset(s, 0, sizeof(*s));
}

static int rd_snap_take(struct rd *rd, struct rd_snap *s)
{
	int fd = bpf_map__fd(rd->skel->maps.flows);
	struct flowmon_key key, next, *prev = NULL;
	size_t cap = 0;

	memset(s, 0, sizeof(*s));
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (s->n == cap) {
			size_t nc = cap ? cap * 2 : 16;
			void *pv, *pf;

			if (nc > 4 * FLOWMON_MAX_FLOWS)
				break;
			pv = realloc(s->v, nc * sizeof(*s->v));
			if (pv)
				s->v = pv;
			pf = realloc(s->f, nc * sizeof(*s->f));
			if (pf)
				s->f = pf;
			if (!pv || !pf) {
				rd_snap_free(s);
				return -ENOMEM;
			}
			cap = nc;
		}
		if (bpf_map_lookup_elem_flags(fd, &key, &s->f[s->n], BPF_F_LOCK))
			continue;
		rd_view(rd, &key, &s->f[s->n], &s->v[s->n]);
		s->n++;
	}
	return 0;
}

unsigned int rd_snap_each(struct rd *rd, const struct rd_snap *s,
			  rd_flow_fn fn, void *arg)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		fn(rd, &s->v[i], &s->f[i], arg);
	return (unsigned int)s->n;
}

/* ---- groups and stragglers ---------------------------------------------- */

/* The rank-map host of @nd: [rankmap] host, else an address, else hostname. */
static int rd_rank_host(struct rd *rd, const struct rd_netdev *nd,
			const struct ifaddrs *ifa)
{
	char buf[INET6_ADDRSTRLEN], host[256];
	int h;

	if (!rd->have_rmap)
		return -1;
	if (rd->conf.local_host[0])
		return rankmap_host_index(&rd->rmap, rd->conf.local_host);
	for (; ifa; ifa = ifa->ifa_next) {
		const void *a;

		if (!ifa->ifa_addr || strcmp(ifa->ifa_name, nd->name))
			continue;
		if (ifa->ifa_addr->sa_family == AF_INET)
			a = &((struct sockaddr_in *)ifa->ifa_addr)->sin_addr;
		else if (ifa->ifa_addr->sa_family == AF_INET6)
			a = &((struct sockaddr_in6 *)ifa->ifa_addr)->sin6_addr;
		else
			continue;
		if (!inet_ntop(ifa->ifa_addr->sa_family, a, buf, sizeof(buf)))
			continue;
		h = rankmap_host_index(&rd->rmap, buf);
		if (h >= 0)
			return h;
	}
	if (gethostname(host, sizeof(host)))
		return -1;
	host[sizeof(host) - 1] = '\0';
	return rankmap_host_index(&rd->rmap, host);
}

/* Every netdev's rank-map host, after a (re)load or a poll. */
static void rd_rank_hosts(struct rd *rd)
{
	struct ifaddrs *ifa = NULL;
	size_t i;

	if (rd->have_rmap && !rd->conf.local_host[0] && getifaddrs(&ifa))
		ifa = NULL;
	for (i = 0; i < rd->nnds; i++)
		rd->nds[i].rank_host = rd_rank_host(rd, &rd->nds[i], ifa);
	if (ifa)
		freeifaddrs(ifa);
}

static uint64_t rd_peer_hash(const uint8_t peer[16])
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */
	int i;

	for (i = 0; i < 16; i++)
		h = (h ^ peer[i]) * 1099511628211ULL;
	return h & ((1ULL << 56) - 1);
}

/* The rank-map groups of flow @v: into @keys (and "dp0,tp1" into @labels). */
size_t rd_rank_groups(struct rd *rd, const struct rd_flow_view *v,
		      uint64_t *keys, size_t max, char *labels, size_t lsize)
{
	struct rankmap_group g[RD_MAX_GROUPS];
	struct rd_netdev *nd = rd_netdev_find(rd, v->key.ifindex);
	size_t n, i, o = 0;
	int peer;

	if (labels && lsize)
		labels[0] = '\0';
	if (!rd->have_rmap || !nd || nd->rank_host < 0)
		return 0;
	peer = rankmap_host_index(&rd->rmap, v->peer);
	if (peer < 0)
		return 0;
	n = rankmap_flow_groups(&rd->rmap, (unsigned int)nd->rank_host,
				(unsigned int)peer, g, RD_MAX_GROUPS);
	if (n > RD_MAX_GROUPS)
		n = RD_MAX_GROUPS;
	for (i = 0; i < n; i++) {
		if (i < max)
			keys[i] = RD_GK_RANK | ((uint64_t)g[i].kind << 32) | g[i].id;
		if (labels && o < lsize)
			o += (size_t)snprintf(labels + o, lsize - o, "%s%s%u",
					      i ? "," : "",
					      rankmap_kind_name(g[i].kind), g[i].id);
	}
	return n < max ? n : max;
}

/* The straggler groups of flow @v under the configured group_by. */
static size_t rd_strag_groups(struct rd *rd, const struct rd_flow_view *v,
			      uint64_t *keys, size_t max)
{
	enum rd_group_by by = rd->conf.group_by;

	if (by == RD_GROUP_AUTO)
		by = rd->have_rmap ? RD_GROUP_RANKMAP : RD_GROUP_PROCESS;
	switch (by) {
	case RD_GROUP_RANKMAP:
		return rd_rank_groups(rd, v, keys, max, NULL, 0);
	case RD_GROUP_PROCESS:
		if (!v->pid && !strcmp(v->comm, "?"))
			return 0;
		keys[0] = RD_GK_PROCESS | v->pid;
		return 1;
	case RD_GROUP_PEER:
		keys[0] = RD_GK_PEER | rd_peer_hash(v->key.peer);
		return 1;
	default:
		keys[0] = RD_GK_HOST;
		return 1;
	}
}

/* The label of group @key, which flow @v belongs to. */
void rd_group_label(uint64_t key, const struct rd_flow_view *v, char *buf,
		    size_t n)
{
	switch (key & (0xffULL << 56)) {
	case RD_GK_RANK:
		snprintf(buf, n, "%s%u",
			 rankmap_kind_name((enum rankmap_kind)((key >> 32) & 0xff)),
			 (unsigned int)key);
		break;
	case RD_GK_PROCESS:
		snprintf(buf, n, "%s[%u]", v->comm, v->pid);
		break;
	case RD_GK_PEER:
		snprintf(buf, n, "peer %s", v->peer);
		break;
	default:
		snprintf(buf, n, "host");
	}
}

static int rd_key_cmp(const struct flowmon_key *a, const struct flowmon_key *b)
{
	return memcmp(a, b, sizeof(*a));
}

/* The state of flow @key, or NULL (rd->fs is sorted by key). */
struct rd_fstate *rd_fstate_find(struct rd *rd, const struct flowmon_key *key)
{
	size_t lo = 0, hi = rd->nfs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = rd_key_cmp(&rd->fs[mid].key, key);

		if (!c)
			return &rd->fs[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int rd_fstate_sort(const void *a, const void *b)
{
	return rd_key_cmp(&((const struct rd_fstate *)a)->key,
			  &((const struct rd_fstate *)b)->key);
}

/*
 * One straggler round, after a poll (under rd->lock): every flow's message
 * completion histogram over the window, its groups, strag_eval(), and a
 * log line and an event for every flow that becomes or stops being a
 * straggler.
 */
static void rd_strag_round(struct rd *rd, uint64_t now)
{
	struct strag_conf sc = {
		.factor = rd->conf.factor,
		.min_samples = rd->conf.min_messages,
		.min_flows = rd->conf.min_flows,
	};
	struct rd_snap snap;
	struct strag_item *it = NULL;
	uint64_t *gkeys = NULL;
	__u64 *delta = NULL, *tail = NULL;
	size_t i, o, nadd = 0;
	int ret;

	if (rd_snap_take(rd, &snap))
		return;
	for (i = 0; i < rd->nfs; i++)
		rd->fs[i].seen = false;
	/* new flows get a state; the array is sorted again below */
	for (i = 0; i < snap.n; i++) {
		if (rd_fstate_find(rd, &snap.v[i].key))
			continue;
		if (rd->nfs + nadd >= rd->capfs) {
			size_t nc = rd->capfs ? rd->capfs * 2 : 64;
			void *p = realloc(rd->fs, nc * sizeof(*rd->fs));

			if (!p)
				goto out;
			rd->fs = p;
			rd->capfs = nc;
		}
		memset(&rd->fs[rd->nfs + nadd], 0, sizeof(*rd->fs));
		rd->fs[rd->nfs + nadd].key = snap.v[i].key;
		nadd++;
	}
	rd->nfs += nadd;
	if (nadd)
		qsort(rd->fs, rd->nfs, sizeof(*rd->fs), rd_fstate_sort);

	it = calloc(snap.n ? snap.n : 1, sizeof(*it));
	gkeys = calloc((snap.n ? snap.n : 1) * RD_MAX_GROUPS, sizeof(*gkeys));
	delta = malloc(sizeof(__u64) * FLOWMON_HIST_BUCKETS);
	if (!it || !gkeys || !delta)
		goto out;
	/*
	 * The PFC buffer tuner's latency input: per netdev, the windowed
	 * histograms of all its flows summed (flowmon does not know a flow's
	 * DSCP, hence its priority).
	 */
	if (rd->conf.pfc_tune != RD_PFCTUNE_OFF && rd->nnds)
		tail = calloc(rd->nnds * FLOWMON_HIST_BUCKETS, sizeof(__u64));
	for (i = 0; i < snap.n; i++) {
		struct rd_fstate *st = rd_fstate_find(rd, &snap.v[i].key);
		uint64_t ns = 0;

		st->seen = true;
		st->win_samples = strag_win_delta(&st->win, snap.f[i].mct.bucket,
						  now, rd->conf.window_ms, delta);
		st->win_p99_ns = rd_hist_percentile(delta, 990000, &ns) ? ns : 0;
		if (tail) {
			struct rd_netdev *tnd = rd_netdev_find(rd,
							       snap.v[i].key.ifindex);
			size_t b;

			if (tnd) {
				__u64 *acc = &tail[(size_t)(tnd - rd->nds) *
						   FLOWMON_HIST_BUCKETS];

				for (b = 0; b < FLOWMON_HIST_BUCKETS; b++)
					acc[b] += delta[b];
			}
		}
		rd_rank_groups(rd, &snap.v[i], gkeys, 0, st->groups,
			       sizeof(st->groups));
		it[i].p99_ns = st->win_p99_ns;
		it[i].samples = st->win_samples;
		it[i].groups = &gkeys[i * RD_MAX_GROUPS];
		it[i].ngroups = rd_strag_groups(rd, &snap.v[i],
						&gkeys[i * RD_MAX_GROUPS],
						RD_MAX_GROUPS);
		it[i].was_straggler = st->straggler;
	}
	for (i = 0; i < rd->nnds; i++) {
		struct rd_netdev *tnd = &rd->nds[i];
		uint64_t ns = 0;

		tnd->tail_ns = tnd->tail_samples = 0;
		if (!tail)
			continue;
		tnd->tail_samples = rd_hist_count(&tail[i * FLOWMON_HIST_BUCKETS]);
		if (tnd->tail_samples &&
		    rd_hist_percentile(&tail[i * FLOWMON_HIST_BUCKETS], 999000, &ns))
			tnd->tail_ns = ns;
		else
			tnd->tail_samples = 0;
	}
	ret = strag_eval(it, snap.n, &sc);
	if (ret < 0) {
		rd_log(LOG_WARN_, "straggler evaluation: %s", strerror(-ret));
		goto out;
	}
	rd->nstragglers = (unsigned int)ret;
	for (i = 0; i < snap.n; i++) {
		struct rd_fstate *st = rd_fstate_find(rd, &snap.v[i].key);
		char g[64], jf[320], jg[96];

		st->ratio = it[i].ratio;
		if (it[i].straggler) {
			st->sgroup = it[i].group;
			st->smedian_ns = it[i].median_ns;
			st->sflows = it[i].group_flows;
		}
		if (it[i].straggler == st->straggler)
			continue;
		st->straggler = it[i].straggler;
		rd_group_label(st->sgroup, &snap.v[i], g, sizeof(g));
		rd_jstr(snap.v[i].name, jf, sizeof(jf));
		rd_jstr(g, jg, sizeof(jg));
		if (st->straggler) {
			rd->straggler_flagged++;
			rd_log(LOG_WARN_, "straggler: %s: message completion p99 %.1f us is %.2f x the median %.1f us of group %s (%u flows, factor %.2f)",
			       snap.v[i].name, (double)st->win_p99_ns / 1e3,
			       st->ratio, (double)st->smedian_ns / 1e3, g,
			       st->sflows, rd->conf.factor);
			rd_event(rd, "straggler", "\"flow\":%s,\"group\":%s,\"p99_us\":%.1f,\"group_median_us\":%.1f,\"ratio\":%.3f,\"group_flows\":%u",
				 jf, jg, (double)st->win_p99_ns / 1e3,
				 (double)st->smedian_ns / 1e3, st->ratio,
				 st->sflows);
		} else {
			bool idle = st->win_samples < rd->conf.min_messages;

			if (idle)
				rd_log(LOG_INFO_, "straggler no more: %s: %" PRIu64 " messages in the window, fewer than min_messages",
				       snap.v[i].name, st->win_samples);
			else
				rd_log(LOG_INFO_, "straggler no more: %s: p99 %.1f us, %.2f x the median of group %s",
				       snap.v[i].name, (double)st->win_p99_ns / 1e3,
				       st->ratio, g);
			rd_event(rd, "straggler_cleared", "\"flow\":%s,\"group\":%s,\"p99_us\":%.1f,\"reason\":\"%s\"",
				 jf, jg, (double)st->win_p99_ns / 1e3,
				 idle ? "idle" : "back within the factor");
		}
	}
	/* forget flows that left the map */
	for (i = o = 0; i < rd->nfs; i++)
		if (rd->fs[i].seen)
			rd->fs[o++] = rd->fs[i];
	rd->nfs = o;
out:
	free(it);
	free(gkeys);
	free(delta);
	free(tail);
	rd_snap_free(&snap);
}

/* ---- /flows and /flows.json ------------------------------------------- */

static const uint32_t rd_ppm[] = { 500000, 990000, 999000 };
static const char *const rd_ppm_name[] = { "p50", "p99", "p999" };

static json_object *rd_json_hist(const struct flowmon_hist *h)
{
	json_object *o = json_object_new_object();
	uint64_t n = rd_hist_count(h->bucket), ns;
	unsigned int i;

	json_object_object_add(o, "samples", json_object_new_int64((int64_t)n));
	for (i = 0; i < 3; i++) {
		char key[16];

		snprintf(key, sizeof(key), "%s_us", rd_ppm_name[i]);
		if (rd_hist_percentile(h->bucket, rd_ppm[i], &ns))
			json_object_object_add(o, key,
				json_object_new_double((double)ns / 1e3));
		else
			json_object_object_add(o, key, NULL);
	}
	json_object_object_add(o, "mean_us", n ?
		json_object_new_double((double)h->sum_ns / 1e3 / (double)n) : NULL);
	return o;
}

static void json_flow(struct rd *rd, const struct rd_flow_view *v,
		      const struct flowmon_flow *f, void *arg)
{
	json_object *arr = arg, *o = json_object_new_object(), *cnt, *ga, *w;
	const struct rd_fstate *st = rd_fstate_find(rd, &v->key);
	unsigned int i;

	json_object_object_add(o, "flow", json_object_new_string(v->name));
	json_object_object_add(o, "comm", json_object_new_string(v->comm));
	json_object_object_add(o, "pid", json_object_new_int64(v->pid));
	json_object_object_add(o, "lqpn", json_object_new_int64(v->lqpn));
	json_object_object_add(o, "rqpn", json_object_new_int64(v->key.rqpn));
	json_object_object_add(o, "peer", json_object_new_string(v->peer));
	json_object_object_add(o, "dev", json_object_new_string(v->dev));
	json_object_object_add(o, "netdev", json_object_new_string(v->netdev));
	json_object_object_add(o, "message_completion", rd_json_hist(&f->mct));
	json_object_object_add(o, "rtt", rd_json_hist(&f->rtt));
	cnt = json_object_new_object();
	for (i = 0; i < rd_ncounters; i++) {
		uint64_t val;

		memcpy(&val, (const char *)f + rd_counters[i].off, sizeof(val));
		json_object_object_add(cnt, rd_counters[i].name,
				       json_object_new_int64((int64_t)val));
	}
	json_object_object_add(o, "counters", cnt);
	ga = json_object_new_array();
	if (st && st->groups[0]) {
		char g[sizeof(st->groups)], *tok, *save = NULL;

		snprintf(g, sizeof(g), "%s", st->groups);
		for (tok = strtok_r(g, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save))
			json_object_array_add(ga, json_object_new_string(tok));
	}
	json_object_object_add(o, "groups", ga);
	w = json_object_new_object();
	json_object_object_add(w, "seconds", json_object_new_double(
		(double)rd->conf.window_ms / 1e3));
	json_object_object_add(w, "samples", json_object_new_int64(
		st ? (int64_t)st->win_samples : 0));
	json_object_object_add(w, "p99_us", st && st->win_samples ?
		json_object_new_double((double)st->win_p99_ns / 1e3) : NULL);
	json_object_object_add(o, "window", w);
	json_object_object_add(o, "straggler",
			       json_object_new_boolean(st && st->straggler));
	if (st && st->straggler) {
		char g[64];

		rd_group_label(st->sgroup, v, g, sizeof(g));
		json_object_object_add(o, "straggler_group", json_object_new_string(g));
		json_object_object_add(o, "group_median_us", json_object_new_double(
			(double)st->smedian_ns / 1e3));
		json_object_object_add(o, "ratio", json_object_new_double(st->ratio));
	}
	json_object_array_add(arr, o);
}

static void rd_us(FILE *f, const struct flowmon_hist *h, uint32_t ppm)
{
	uint64_t ns;

	if (rd_hist_percentile(h->bucket, ppm, &ns))
		fprintf(f, " %9.1f", (double)ns / 1e3);
	else
		fprintf(f, " %9s", "-");
}

static void text_flow(struct rd *rd, const struct rd_flow_view *v,
		      const struct flowmon_flow *f, void *arg)
{
	const struct rd_fstate *st = rd_fstate_find(rd, &v->key);
	FILE *out = arg;
	unsigned int i;

	fprintf(out, "%c %-40s %-8s %9" PRIu64, st && st->straggler ? '!' : ' ',
		v->name, v->dev,
		rd_hist_count(f->mct.bucket));
	for (i = 0; i < 3; i++)
		rd_us(out, &f->mct, rd_ppm[i]);
	for (i = 0; i < 3; i++)
		rd_us(out, &f->rtt, rd_ppm[i]);
	fputc('\n', out);
}

/* ---- HTTP --------------------------------------------------------------- */

static enum MHD_Result rd_reply(struct MHD_Connection *conn, unsigned int code,
				const char *type, char *buf, size_t len)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	resp = MHD_create_response_from_buffer(len, buf, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(buf);
		return MHD_NO;
	}
	MHD_add_response_header(resp, "Content-Type", type);
	ret = MHD_queue_response(conn, code, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result rd_http(void *cls, struct MHD_Connection *conn,
			       const char *url, const char *method,
			       const char *version, const char *upload_data,
			       size_t *upload_data_size, void **con_cls)
{
	struct rd *rd = cls;
	const char *type = "text/plain; charset=utf-8";
	unsigned int code = MHD_HTTP_OK;
	char *buf = NULL;
	size_t len = 0;
	struct rd_snap snap;
	FILE *f;

	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	(void)con_cls;
	if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
		f = open_memstream(&buf, &len);
		if (!f)
			return MHD_NO;
		fprintf(f, "only GET\n");
		fclose(f);
		return rd_reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, type, buf, len);
	}
	f = open_memstream(&buf, &len);
	if (!f)
		return MHD_NO;
	pthread_mutex_lock(&rd->lock);
	if (rd_snap_take(rd, &snap)) {
		pthread_mutex_unlock(&rd->lock);
		fclose(f);
		free(buf);
		return MHD_NO;
	}
	if (!strcmp(url, "/metrics")) {
		type = "text/plain; version=0.0.4; charset=utf-8";
		rd_metrics(rd, &snap, f);
	} else if (!strcmp(url, "/flows.json")) {
		json_object *arr = json_object_new_array();

		rd_snap_each(rd, &snap, json_flow, arr);
		fprintf(f, "%s\n", json_object_to_json_string_ext(arr,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(arr);
		type = "application/json";
	} else if (!strcmp(url, "/flows")) {
		fprintf(f, "  %-40s %-8s %9s %9s %9s %9s %9s %9s %9s\n", "FLOW",
			"DEV", "MSGS", "MCT_P50", "MCT_P99", "MCT_P999",
			"RTT_P50", "RTT_P99", "RTT_P999");
		rd_snap_each(rd, &snap, text_flow, f);
		fprintf(f, "(microseconds; message completion = first packet to completing ACK; ! straggler)\n");
	} else if (!strcmp(url, "/events.json")) {
		const char *a = MHD_lookup_connection_value(conn,
				MHD_GET_ARGUMENT_KIND, "since");
		uint64_t since = 0, q;
		char *end = NULL;
		bool first = true;

		if (a) {
			errno = 0;
			since = strtoull(a, &end, 10);
		}
		if (a && (!*a || *end || errno)) {
			code = MHD_HTTP_BAD_REQUEST;
			fprintf(f, "since: '%s' is not an event number\n", a);
		} else {
			type = "application/json";
			fprintf(f, "{\"last\":%" PRIu64 ",\"events\":[", rd->ev_seq);
			q = rd->ev_seq > RD_EVENTS ? rd->ev_seq - RD_EVENTS + 1 : 1;
			if (q <= since)
				q = since + 1;
			for (; q <= rd->ev_seq; q++) {
				const struct rd_event *e = &rd->ev[q & (RD_EVENTS - 1)];
				struct tm tm;
				char ts[40];

				gmtime_r(&e->when.tv_sec, &tm);
				strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
				fprintf(f, "%s\n{\"seq\":%" PRIu64 ",\"time\":\"%s.%03ldZ\",\"type\":\"%s\",%s}",
					first ? "" : ",",
					e->seq, ts, e->when.tv_nsec / 1000000,
					e->type, e->text);
				first = false;
			}
			fprintf(f, "\n]}\n");
		}
	} else if (!strcmp(url, "/config")) {
		rd_conf_print(f, &rd->conf);
	} else if (!strcmp(url, "/")) {
		type = "text/html; charset=utf-8";
		fprintf(f, "<html><body><h1>roceccd</h1><ul>"
			   "<li><a href=\"/metrics\">/metrics</a></li>"
			   "<li><a href=\"/flows\">/flows</a></li>"
			   "<li><a href=\"/flows.json\">/flows.json</a></li>"
			   "<li><a href=\"/events.json\">/events.json</a></li>"
			   "<li><a href=\"/config\">/config</a></li>"
			   "</ul></body></html>\n");
	} else {
		code = MHD_HTTP_NOT_FOUND;
		fprintf(f, "not found: %s (try /metrics, /flows, /flows.json, /events.json, /config)\n", url);
	}
	pthread_mutex_unlock(&rd->lock);
	rd_snap_free(&snap);
	fclose(f);
	return rd_reply(conn, code, type, buf, len);
}

/*
 * A listening socket on @addr:@port, made before daemonizing (so that a
 * bad address or a port in use is reported on stderr with exit status 1)
 * or before a reload replaces the old one; libmicrohttpd's thread is
 * started on it later. The fd, or -errno.
 */
static int rd_listen(const char *addr, uint16_t port)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	socklen_t slen;
	int fd, one = 1, err;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, addr, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		slen = sizeof(*s4);
	} else if (inet_pton(AF_INET6, addr, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		slen = sizeof(*s6);
	} else {
		rd_log(LOG_ERR_, "listen: '%s' is not an IPv4 or IPv6 address",
		       addr);
		return -EINVAL;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		err = -errno;
		rd_log(LOG_ERR_, "socket: %s", strerror(errno));
		return err;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ss.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, slen) || listen(fd, 64)) {
		err = -errno;
		rd_log(LOG_ERR_, "cannot listen on %s port %u: %s", addr, port,
		       strerror(errno));
		close(fd);
		return err;
	}
	return fd;
}

/* libmicrohttpd on listening socket @fd (taken over, closed on failure). */
static struct MHD_Daemon *rd_http_start(struct rd *rd, int fd,
					const char *addr, uint16_t port)
{
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
	bool v6 = strchr(addr, ':') != NULL;
	struct MHD_Daemon *d;

	if (v6)
		flags |= MHD_USE_IPv6;
	d = MHD_start_daemon(flags, 0, NULL, NULL, rd_http, rd,
			     MHD_OPTION_LISTEN_SOCKET, fd,
			     MHD_OPTION_CONNECTION_TIMEOUT, 10u,
			     MHD_OPTION_END);
	if (!d) {
		rd_log(LOG_ERR_, "cannot start the HTTP server on %s port %u",
		       addr, port);
		close(fd);
		return NULL;
	}
	rd_log(LOG_INFO_, "metrics on http://%s%s%s:%u/metrics", v6 ? "[" : "",
	       addr, v6 ? "]" : "", port);
	return d;
}

/* ---- BPF, with the flow table pinned ------------------------------------ */

/*
 * The programs, with the maps that hold what was measured ("flows" and
 * "stats") pinned in the configured pin_dir (default /sys/fs/bpf/rocecc):
 * a restarted daemon finds them there and carries on with every flow's
 * counters and histograms (Prometheus sees no counter reset); the QP names
 * come back with the first poll. The pins outlive the daemon on purpose
 * (remove the directory to start afresh). Pinned maps of another layout
 * (an upgrade changed struct flowmon_flow) cannot be reused: they are
 * removed with a warning, and counting starts afresh.
 */
static const char *const rd_pinned_maps[] = { "flows", "stats" };

static void rd_unpin(const char *dir)
{
	char path[512];
	size_t i;

	for (i = 0; i < sizeof(rd_pinned_maps) / sizeof(rd_pinned_maps[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, rd_pinned_maps[i]);
		unlink(path);
	}
}

static struct flowmon *rd_bpf_open(struct rd *rd, const char *dir)
{
	struct flowmon *skel = flowmon__open();
	char path[512];
	size_t i;
	int err;

	if (!skel)
		return NULL;
	for (i = 0; dir[0] && i < sizeof(rd_pinned_maps) / sizeof(rd_pinned_maps[0]); i++) {
		struct bpf_map *m = bpf_object__find_map_by_name(skel->obj,
							rd_pinned_maps[i]);

		snprintf(path, sizeof(path), "%s/%s", dir, rd_pinned_maps[i]);
		if (!m || bpf_map__set_pin_path(m, path)) {
			flowmon__destroy(skel);
			errno = EINVAL;
			return NULL;
		}
	}
	err = flowmon__load(skel);
	if (err) {
		flowmon__destroy(skel);
		errno = -err;
		return NULL;
	}
	(void)rd;
	return skel;
}

static int rd_bpf_load(struct rd *rd)
{
	const char *dir = rd->conf.pin_dir;
	struct flowmon_key k, *prev = NULL;
	struct statfs sfs;
	unsigned int n = 0;
	bool existed;
	char path[512];

	rd->pinned[0] = '\0';
	if (dir[0]) {
		if (mkdir(dir, 0700) && errno != EEXIST) {
			rd_log(LOG_ERR_, "pin_dir: cannot create '%s': %s", dir,
			       strerror(errno));
			return -errno;
		}
		if (statfs(dir, &sfs) || sfs.f_type != BPF_FS_MAGIC) {
			rd_log(LOG_ERR_, "pin_dir: '%s' is not on a BPF filesystem (mount -t bpf bpf /sys/fs/bpf, or pin_dir = none)",
			       dir);
			return -EINVAL;
		}
		snprintf(path, sizeof(path), "%s/flows", dir);
		existed = !access(path, F_OK);
		rd->skel = rd_bpf_open(rd, dir);
		if (!rd->skel && existed) {
			rd_log(LOG_WARN_, "pinned maps in %s do not fit this roceccd (%s): removed, flows are counted afresh",
			       dir, strerror(errno));
			rd_unpin(dir);
			existed = false;
			rd->skel = rd_bpf_open(rd, dir);
		}
		if (rd->skel) {
			snprintf(rd->pinned, sizeof(rd->pinned), "%s", dir);
			while (existed && !bpf_map_get_next_key(
					bpf_map__fd(rd->skel->maps.flows), prev, &k) &&
			       n < 4 * FLOWMON_MAX_FLOWS) {
				prev = &k;
				n++;
			}
			if (existed)
				rd_log(LOG_INFO_, "adopted %u flows pinned in %s", n, dir);
		}
	} else {
		rd->skel = rd_bpf_open(rd, "");
	}
	if (!rd->skel) {
		rd_log(LOG_ERR_, "cannot load the flowmon BPF programs: %s (root? kernel >= 5.17?)",
		       strerror(errno));
		return -errno;
	}
	return 0;
}

/* ---- configuration -------------------------------------------------------- */

struct rd_cmdline {
	const char *config;	/* -c */
	const char *pidfile;
	bool foreground;
	bool check;		/* --check-config */
	bool list;		/* --list-metrics */
	bool help;
};

static int bad_arg(const char *opt, const char *val, const char *why)
{
	fprintf(stderr, "%s: %s: '%s' %s\n", prog, opt, val, why);
	return 2;
}

/*
 * The command line onto @c (after the config file: flags win). 0, or 2
 * after a message naming the bad option and value. Run again on every
 * reload (getopt is reset), where it cannot fail any more.
 */
static int rd_cmdline(struct rd_conf *c, int argc, char **argv,
		      struct rd_cmdline *cl)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", no_argument, NULL, 'C' },
		{ "list-metrics", no_argument, NULL, 'M' },
		{ "listen", required_argument, NULL, 'l' },
		{ "port", required_argument, NULL, 'p' },
		{ "interval", required_argument, NULL, 'i' },
		{ "linger", required_argument, NULL, 'g' },
		{ "buckets-per-octave", required_argument, NULL, 'b' },
		{ "pin-dir", required_argument, NULL, 'd' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "log-level", required_argument, NULL, 'L' },
		{ "pidfile", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct in6_addr a6;
	struct in_addr a4;
	int o, err;

	memset(cl, 0, sizeof(*cl));
	optind = 0;	/* glibc: start over */
	while ((o = getopt_long(argc, argv, "c:l:p:i:fL:h", opts, NULL)) != -1) {
		switch (o) {
		case 'c':
			cl->config = optarg;
			break;
		case 'C':
			cl->check = true;
			break;
		case 'M':
			cl->list = true;
			break;
		case 'l':
			if (inet_pton(AF_INET, optarg, &a4) != 1 &&
			    inet_pton(AF_INET6, optarg, &a6) != 1)
				return bad_arg("--listen", optarg,
					       "is not an IPv4 or IPv6 address");
			if (strlen(optarg) >= sizeof(c->listen))
				return bad_arg("--listen", optarg, "is too long");
			snprintf(c->listen, sizeof(c->listen), "%s", optarg);
			break;
		case 'p':
			if (rd_parse_port(optarg, &c->port))
				return bad_arg("--port", optarg,
					       "is not a TCP port (1..65535)");
			break;
		case 'i':
		case 'g':
			err = rd_parse_ms(optarg, o == 'i' ? &c->interval_ms :
							     &c->linger_ms);
			if (err)
				return bad_arg(o == 'i' ? "--interval" : "--linger",
					       optarg, err == -ERANGE ?
					       "is out of range (1ms .. 1 day)" :
					       "is not a time (seconds, or 250ms, 2s)");
			break;
		case 'b': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);

			if (*end || !*optarg || !rd_valid_per_octave((unsigned int)v))
				return bad_arg("--buckets-per-octave", optarg,
					       "is not 1, 2, 4, 8 or 16");
			c->per_octave = (unsigned int)v;
			break;
		}
		case 'd':
			if (!strcmp(optarg, "none")) {
				c->pin_dir[0] = '\0';
				break;
			}
			if (optarg[0] != '/' || strlen(optarg) >= sizeof(c->pin_dir))
				return bad_arg("--pin-dir", optarg,
					       "is not an absolute path (or none)");
			snprintf(c->pin_dir, sizeof(c->pin_dir), "%s", optarg);
			break;
		case 'f':
			cl->foreground = true;
			break;
		case 'P':
			if (optarg[0] != '/')
				return bad_arg("--pidfile", optarg,
					       "is not an absolute path");
			cl->pidfile = optarg;
			break;
		case 'L':
			c->log_level = rd_log_level(optarg);
			if (c->log_level < 0)
				return bad_arg("--log-level", optarg,
					       "is not error, warn, info or debug");
			break;
		case 'h':
			cl->help = true;
			return 0;
		default:
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", prog, argv[optind]);
		return 2;
	}
	return 0;
}

/*
 * The whole configuration: defaults, the config file (if there is one; a
 * file named with -c must exist), the command line, the cross checks and
 * the rank map. 0, or -errno with the message in @err; nothing of @rd is
 * touched (the caller swaps the result in).
 */
static int rd_conf_build(struct rd *rd, struct rd_conf *c, struct rankmap *rm,
			 bool *have_rm, char *err, size_t errlen)
{
	struct rd_cmdline cl;
	const char *path = rd->conf_path;
	int ret;

	*have_rm = false;
	rd_conf_defaults(c);
	if (path && (rd->conf_explicit || !access(path, F_OK))) {
		ret = rd_conf_load(c, path, err, errlen);
		if (ret)
			return ret;
	}
	if (rd_cmdline(c, rd->argc, rd->argv, &cl)) {
		snprintf(err, errlen, "bad command line");
		return -EINVAL;
	}
	ret = rd_conf_check(c, path ? path : "command line", err, errlen);
	if (ret)
		return ret;
	if (c->rankmap_file[0]) {
		ret = rankmap_load(rm, c->rankmap_file, err, errlen);
		if (ret)
			return ret;
		*have_rm = true;
		if (c->local_host[0] && rankmap_host_index(rm, c->local_host) < 0) {
			if (snprintf(err, errlen, "%s: [rankmap] host: '%s' is not a host of %s",
				     path ? path : "command line", c->local_host,
				     c->rankmap_file) >= (int)errlen)
				err[errlen - 1] = '\0';	/* truncated */
			rankmap_free(rm);
			*have_rm = false;
			return -EINVAL;
		}
	}
	return 0;
}

/* SIGHUP: read everything again; a bad file changes nothing. */
static void rd_reload(struct rd *rd)
{
	struct rd_conf *c = calloc(1, sizeof(*c));
	struct MHD_Daemon *old = NULL, *d;
	struct rankmap rm;
	bool have_rm;
	char err[512];
	int fd;

	sd_notify(0, "RELOADING=1");
	if (!c) {
		rd_log(LOG_ERR_, "reload: out of memory");
		goto out;
	}
	if (rd_conf_build(rd, c, &rm, &have_rm, err, sizeof(err))) {
		rd_log(LOG_ERR_, "reload refused, the configuration stays as it was: %s", err);
		sd_notifyf(0, "STATUS=reload refused: %s", err);
		pthread_mutex_lock(&rd->lock);
		rd->reload_errors++;
		{
			char je[600];

			rd_event(rd, "config_refused", "\"error\":%s",
				 rd_jstr(err, je, sizeof(je)));
		}
		pthread_mutex_unlock(&rd->lock);
		goto out;
	}
	if (strcmp(c->pin_dir, rd->conf.pin_dir)) {
		rd_log(LOG_WARN_, "reload: pin_dir '%s' takes effect at the next start; '%s' stays",
		       c->pin_dir, rd->conf.pin_dir);
		snprintf(c->pin_dir, sizeof(c->pin_dir), "%s", rd->conf.pin_dir);
	}
	if (strcmp(c->listen, rd->conf.listen) || c->port != rd->conf.port) {
		fd = rd_listen(c->listen, c->port);
		d = fd < 0 ? NULL : rd_http_start(rd, fd, c->listen, c->port);
		if (!d) {
			rd_log(LOG_ERR_, "reload: keeping http on %s port %u",
			       rd->conf.listen, rd->conf.port);
			snprintf(c->listen, sizeof(c->listen), "%s", rd->conf.listen);
			c->port = rd->conf.port;
		} else {
			old = rd->httpd;
			rd->httpd = d;
		}
	}
	pthread_mutex_lock(&rd->lock);
	if (rd->have_rmap)
		rankmap_free(&rd->rmap);
	rd->rmap = rm;
	rd->have_rmap = have_rm;
	rd->conf = *c;
	rd->conf_gen++;
	log_level = rd->conf.log_level;
	rd->reloads++;
	rd_rank_hosts(rd);
	{
		char jp[300];

		rd_event(rd, "config_reloaded", "\"file\":%s,\"generation\":%u",
			 rd_jstr(rd->conf_path ? rd->conf_path : "", jp, sizeof(jp)),
			 rd->conf_gen);
	}
	pthread_mutex_unlock(&rd->lock);
	rd_log(LOG_INFO_, "configuration reloaded from %s (generation %u)",
	       rd->conf_path ? rd->conf_path : "the command line", rd->conf_gen);
	sd_notifyf(0, "STATUS=configuration generation %u", rd->conf_gen);
	if (old)
		MHD_stop_daemon(old);	/* outside the lock: it joins handlers */
out:
	free(c);
	sd_notify(0, "READY=1");
}

/* ---- main --------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: roceccd [OPTIONS]\n"
		"\n"
		"Per-flow RoCE telemetry: attaches bpf/flowmon to every RoCE netdev,\n"
		"names flows 'comm[pid] lqpn -> peer:rqpn' from RDMA netlink, flags\n"
		"stragglers, attaches rocecc.ko if configured to, applies [pfc] (PFC and\n"
		"DCB buffers over DCB netlink; PFC storm watchdog, buffer tuner), and\n"
		"serves /metrics\n"
		"(Prometheus), /flows, /flows.json, /events.json and /config over HTTP.\n"
		"\n"
		"  -c, --config FILE        configuration file (default %s,\n"
		"                           used if it exists); flags below override it\n"
		"      --check-config       check the configuration (and rank map), print\n"
		"                           the effective one, exit 0 or 1\n"
		"      --list-metrics       print the HELP and TYPE lines of every metric\n"
		"                           family /metrics can export, and each histogram\n"
		"                           empty (its le bounds), exit 0 or 1\n"
		"  -l, --listen ADDR        metrics bind address (default 127.0.0.1)\n"
		"  -p, --port PORT          metrics TCP port (default 9468)\n"
		"  -i, --interval TIME      discovery / QP poll interval (default 1s;\n"
		"                           seconds, or with unit: 250ms, 2s)\n"
		"      --linger TIME        keep a vanished QP's flows this long (default 15s)\n"
		"      --buckets-per-octave N  exported histogram buckets per power of\n"
		"                           two: 1, 2, 4 (default), 8 or 16\n"
		"      --pin-dir DIR        pin the flow table here (default\n"
		"                           /sys/fs/bpf/rocecc; 'none': do not)\n"
		"  -f, --foreground         do not daemonize; log to stderr (systemd:\n"
		"                           Type=notify, journal)\n"
		"  -L, --log-level LEVEL    error, warn, info (default), debug\n"
		"      --pidfile FILE       write the daemon's pid to FILE\n"
		"  -h, --help\n"
		"\n"
		"Needs root (BPF, TC, RDMA and DCB netlink). SIGHUP: reload the configuration\n"
		"(a bad file is refused and changes nothing). SIGTERM/SIGINT: detach\n"
		"what it attached and exit.\n"
		"Exit status: 0 ok, 1 failure or bad configuration, 2 bad command line.\n",
		RD_CONF_DEFAULT_PATH);
}

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		reload = 1;
	else
		stop = 1;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_DEBUG && log_level < LOG_DEBUG_)
		return 0;
	if (level == LIBBPF_INFO && log_level < LOG_INFO_)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

int main(int argc, char **argv)
{
	struct rd *rd = calloc(1, sizeof(*rd));
	struct sigaction sa = { .sa_handler = on_signal };
	struct rd_cmdline cl;
	bool pid_written = false, ready = false;
	char err[512];
	int ret = 1, fd;
	size_t i;

	if (!rd) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	rd->argc = argc;
	rd->argv = argv;
	rd->listen_fd = -1;
	rd_conf_defaults(&rd->conf);
	ret = rd_cmdline(&rd->conf, argc, argv, &cl);
	if (ret || cl.help) {
		usage(ret ? stderr : stdout);
		free(rd);
		return ret;
	}
	ret = 1;
	rd->foreground = cl.foreground;
	rd->pidfile = cl.pidfile;
	rd->conf_path = cl.config ? cl.config : RD_CONF_DEFAULT_PATH;
	rd->conf_explicit = cl.config != NULL;
	if (rd_conf_build(rd, &rd->conf, &rd->rmap, &rd->have_rmap, err,
			  sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		free(rd);
		return 1;
	}
	if (cl.check || cl.list) {
		if (cl.list)
			rd_family_list(stdout, rd->conf.per_octave);
		else
			rd_conf_print(stdout, &rd->conf);
		if (rd->have_rmap)
			rankmap_free(&rd->rmap);
		free(rd);
		return 0;
	}
	rd->conf_gen = 1;
	log_level = rd->conf.log_level;
	rd->start_ms = now_ms();

	libbpf_set_print(libbpf_print);
	pthread_mutex_init(&rd->lock, NULL);

	fd = rdma_nl_open(&rd->nl);
	if (fd) {
		rd_log(LOG_ERR_, "cannot open RDMA netlink: %s%s", strerror(-fd),
		       fd == -EPROTONOSUPPORT ? " (no ib_core?)" : "");
		goto out_free;
	}
	if (rd_bpf_load(rd))
		goto out_nl;
	rd->listen_fd = rd_listen(rd->conf.listen, rd->conf.port);
	if (rd->listen_fd < 0)
		goto out_skel;

	if (!rd->foreground) {
		if (daemon(0, 0)) {
			rd_log(LOG_ERR_, "daemon: %s", strerror(errno));
			goto out_skel;
		}
		openlog(prog, LOG_PID, LOG_DAEMON);
		log_syslog = true;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (rd->pidfile) {
		FILE *pf = fopen(rd->pidfile, "w");

		if (!pf || fprintf(pf, "%d\n", (int)getpid()) < 0 || fclose(pf)) {
			rd_log(LOG_ERR_, "--pidfile: cannot write '%s': %s",
			       rd->pidfile, strerror(errno));
			goto out_skel;
		}
		pid_written = true;
	}
	rd->httpd = rd_http_start(rd, rd->listen_fd, rd->conf.listen,
				  rd->conf.port);
	rd->listen_fd = -1;	/* MHD's now, or closed */
	if (!rd->httpd)
		goto out_skel;

	rd_log(LOG_INFO_, "started: config %s, interval %" PRIu64 " ms, linger %" PRIu64 " ms, pin_dir %s",
	       rd->conf_explicit || !access(rd->conf_path, F_OK) ?
	       rd->conf_path : "(none)", rd->conf.interval_ms,
	       rd->conf.linger_ms, rd->pinned[0] ? rd->pinned : "none");
	while (!stop) {
		struct timespec ts;

		if (reload) {
			reload = 0;
			rd_reload(rd);
		}
		pthread_mutex_lock(&rd->lock);
		rd_poll(rd);
		pthread_mutex_unlock(&rd->lock);
		if (!ready) {
			/* attached, QPs learnt, serving: ready for systemd */
			sd_notifyf(0, "READY=1\nSTATUS=%zu RoCE netdevs, configuration generation %u\nMAINPID=%lu",
				   rd->nnds, rd->conf_gen, (unsigned long)getpid());
			ready = true;
		}
		ts.tv_sec = (time_t)(rd->conf.interval_ms / 1000);
		ts.tv_nsec = (long)(rd->conf.interval_ms % 1000) * 1000000L;
		while (!stop && !reload && nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	rd_log(LOG_INFO_, "stopping");
	sd_notify(0, "STOPPING=1");
	ret = 0;
	MHD_stop_daemon(rd->httpd);
out_skel:
	if (rd->listen_fd >= 0)
		close(rd->listen_fd);
	if (pid_written)
		unlink(rd->pidfile);
	pthread_mutex_lock(&rd->lock);
	for (i = 0; i < rd->nnds; i++) {
		rd_pfcwd_release(rd, &rd->nds[i]);
		rd_mod_release(rd, &rd->nds[i]);
		rd_detach(&rd->nds[i]);
	}
	pthread_mutex_unlock(&rd->lock);
	flowmon__destroy(rd->skel);
out_nl:
	rdma_nl_close(&rd->nl);
out_free:
	if (rd->mod_open)
		rnl_close(&rd->mod);
	rd_dcb_close(rd);
	if (rd->have_rmap)
		rankmap_free(&rd->rmap);
	free(rd->qps);
	free(rd->nds);
	free(rd->fs);
	free(rd);
	return ret;
}
