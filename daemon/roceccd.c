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
#include <libmnl/libmnl.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <microhttpd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <rocecc/hist.h>
#include "../bpf/flowmon.h"
#include "flowmon.skel.h"

#include "rdma_nl.h"
#include "roceccd_fmt.h"

/* Our filters' priority and handle on both clsact hooks */
#define RD_TC_PRIO	0xc0c
#define RD_TC_HANDLE	1

#define RD_DEFAULT_PORT	9468

enum { LOG_ERR_, LOG_WARN_, LOG_INFO_, LOG_DEBUG_ };

struct rd_qp {
	uint32_t ifindex, lqpn, rqpn, pid;
	uint8_t state;
	char comm[64];
	char dev[RDMA_NL_NAME_MAX];
	char netdev[IF_NAMESIZE];
	bool seen;		/* in this round's dump */
	bool gone;		/* vanished; flows deleted at gone_ms + linger */
	uint64_t gone_ms;
};

struct rd_netdev {
	uint32_t ifindex;
	char name[IF_NAMESIZE];
	char dev[RDMA_NL_NAME_MAX];
	bool created_qdisc;	/* we made its clsact */
	bool seen;
};

struct rd {
	/* options */
	const char *listen;
	uint16_t port;
	uint64_t interval_ms;
	uint64_t linger_ms;
	unsigned int per_octave;
	int log_level;
	bool foreground;

	struct flowmon *skel;
	struct rdma_nl nl;
	struct MHD_Daemon *httpd;
	int listen_fd;
	const char *pidfile;
	pthread_mutex_t lock;	/* everything below */
	struct rd_qp *qps;
	size_t nqps, capqps;
	struct rd_netdev *nds;
	size_t nnds, capnds;
	uint64_t polls, poll_errors;
};

static const char *prog = "roceccd";
static int log_level = LOG_INFO_;
static bool log_syslog;
static volatile sig_atomic_t stop;

static void rd_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void rd_log(int level, const char *fmt, ...)
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

/* ---- TC attachment ---------------------------------------------------- */

struct filter_count {
	unsigned int n;
};

static int filter_cb(const struct nlmsghdr *nlh, void *data)
{
	struct filter_count *c = data;

	if (nlh->nlmsg_type == RTM_NEWTFILTER)
		c->n++;
	return MNL_CB_OK;
}

/* The number of filters on hook @parent of @ifindex, or -errno. */
static int rd_count_filters(uint32_t ifindex, uint32_t parent)
{
	char buf[16384];
	struct mnl_socket *sk;
	struct nlmsghdr *nlh;
	struct tcmsg *tcm;
	struct filter_count c = { 0 };
	unsigned int seq = (unsigned int)time(NULL), portid;
	ssize_t len;
	int ret, err = 0;

	sk = mnl_socket_open(NETLINK_ROUTE);
	if (!sk)
		return -errno;
	if (mnl_socket_bind(sk, 0, MNL_SOCKET_AUTOPID) < 0) {
		err = -errno;
		goto out;
	}
	portid = mnl_socket_get_portid(sk);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETTFILTER;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = (int)ifindex;
	tcm->tcm_parent = parent;
	if (mnl_socket_sendto(sk, nlh, nlh->nlmsg_len) < 0) {
		err = -errno;
		goto out;
	}
	for (;;) {
		len = mnl_socket_recvfrom(sk, buf, sizeof(buf));
		if (len < 0) {
			err = -errno;
			break;
		}
		ret = mnl_cb_run(buf, len, seq, portid, filter_cb, &c);
		if (ret < 0) {
			err = -errno;
			break;
		}
		if (ret == MNL_CB_STOP)
			break;
	}
out:
	mnl_socket_close(sk);
	return err ? err : (int)c.n;
}

static int rd_attach(struct rd *rd, struct rd_netdev *nd)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = (int)nd->ifindex,
			    .attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = RD_TC_HANDLE,
			    .priority = RD_TC_PRIO, .flags = BPF_TC_F_REPLACE);
	int err;

	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST) {
		rd_log(LOG_ERR_, "%s: cannot create the clsact qdisc: %s",
		       nd->name, strerror(-err));
		return err;
	}
	nd->created_qdisc = !err;

	hook.attach_point = BPF_TC_INGRESS;
	opts.prog_fd = bpf_program__fd(rd->skel->progs.flowmon_ingress);
	err = bpf_tc_attach(&hook, &opts);
	if (!err) {
		hook.attach_point = BPF_TC_EGRESS;
		opts.prog_fd = bpf_program__fd(rd->skel->progs.flowmon_egress);
		opts.prog_id = 0;
		err = bpf_tc_attach(&hook, &opts);
	}
	if (err) {
		rd_log(LOG_ERR_, "%s: cannot attach the flowmon programs: %s",
		       nd->name, strerror(-err));
		return err;
	}
	rd_log(LOG_INFO_, "%s (%s): flowmon attached%s", nd->name, nd->dev,
	       nd->created_qdisc ? ", clsact created" : "");
	return 0;
}

/* Detach our filters; remove the clsact qdisc if we made it and it is empty. */
static void rd_detach(struct rd_netdev *nd)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = (int)nd->ifindex);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = RD_TC_HANDLE,
			    .priority = RD_TC_PRIO);
	int in, eg, err;

	hook.attach_point = BPF_TC_INGRESS;
	err = bpf_tc_detach(&hook, &opts);
	if (err && err != -ENOENT && err != -ENODEV && err != -EINVAL)
		rd_log(LOG_WARN_, "%s: detaching from ingress: %s", nd->name,
		       strerror(-err));
	hook.attach_point = BPF_TC_EGRESS;
	err = bpf_tc_detach(&hook, &opts);
	if (err && err != -ENOENT && err != -ENODEV && err != -EINVAL)
		rd_log(LOG_WARN_, "%s: detaching from egress: %s", nd->name,
		       strerror(-err));
	if (nd->created_qdisc) {
		in = rd_count_filters(nd->ifindex,
				      TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS));
		eg = rd_count_filters(nd->ifindex,
				      TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_EGRESS));
		if (in == 0 && eg == 0) {
			hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
			bpf_tc_hook_destroy(&hook);
			rd_log(LOG_INFO_, "%s: flowmon detached, clsact removed",
			       nd->name);
			return;
		}
		if (in > 0 || eg > 0)
			rd_log(LOG_INFO_, "%s: clsact kept: it holds other filters",
			       nd->name);
	}
	rd_log(LOG_INFO_, "%s: flowmon detached", nd->name);
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
		if (e && (!e->gone || now - e->gone_ms < rd->linger_ms))
			continue;
		/* deleting the current key: the walk restarts, harmlessly */
		bpf_map_delete_elem(ffd, &key);
		prev = NULL;
	}
	free(val);

	for (i = o = 0; i < rd->nqps; i++) {
		struct rd_qp *e = &rd->qps[i];

		if (e->gone && now - e->gone_ms >= rd->linger_ms)
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
				if (rd_attach(rd, nd)) {
					rd->poll_errors++;
					continue;	/* retried next round */
				}
				rd->nnds++;
			}
			nd->seen = true;
		}
		rd_learn_qps(rd, &devs[i], ports, nports);
		free(ports);
	}
	free(devs);

	/* netdevs that are no longer RoCE ports (or gone) */
	for (i = 0, j = 0; i < rd->nnds; i++) {
		if (!rd->nds[i].seen) {
			rd_log(LOG_INFO_, "%s: no longer an RDMA port",
			       rd->nds[i].name);
			rd_detach(&rd->nds[i]);
			continue;
		}
		rd->nds[j++] = rd->nds[i];
	}
	rd->nnds = j;
	rd_prune(rd, now_ms());
}

/* ---- reading the maps --------------------------------------------------- */

struct rd_flow_view {
	struct flowmon_key key;
	char name[256];
	char comm[64];
	char peer[64];
	char dev[RDMA_NL_NAME_MAX];
	char netdev[IF_NAMESIZE];
	uint32_t pid;
	uint32_t lqpn;
};

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

typedef void (*rd_flow_fn)(struct rd *rd, const struct rd_flow_view *v,
			   const struct flowmon_flow *f, void *arg);

/* A consistent copy of every flow (BPF_F_LOCK), named; under rd->lock. */
struct rd_snap {
	struct rd_flow_view *v;
	struct flowmon_flow *f;
	size_t n;
};

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

static unsigned int rd_snap_each(struct rd *rd, const struct rd_snap *s,
				 rd_flow_fn fn, void *arg)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		fn(rd, &s->v[i], &s->f[i], arg);
	return (unsigned int)s->n;
}

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

static const struct {
	size_t off;
	const char *name, *help;
} rd_counters[] = {
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
			     f->rtt.bucket, f->rtt.sum_ns, rd->per_octave);
	else
		rd_prom_hist(c->f, "rocecc_flow_message_completion_seconds",
			     labels, f->mct.bucket, f->mct.sum_ns,
			     rd->per_octave);
}

static void rd_prom_stat(FILE *f, const char *name, const char *help,
			 uint64_t v)
{
	fprintf(f, "# HELP rocecc_flowmon_%s_total %s\n", name, help);
	fprintf(f, "# TYPE rocecc_flowmon_%s_total counter\n", name);
	fprintf(f, "rocecc_flowmon_%s_total %" PRIu64 "\n", name, v);
}

static void rd_metrics(struct rd *rd, const struct rd_snap *snap, FILE *f)
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
	fprintf(f, "# HELP rocecc_discovery_polls_total RDMA netlink discovery rounds.\n"
		   "# TYPE rocecc_discovery_polls_total counter\n"
		   "rocecc_discovery_polls_total %" PRIu64 "\n", rd->polls);
	fprintf(f, "# HELP rocecc_discovery_errors_total Failed RDMA netlink requests or attachments.\n"
		   "# TYPE rocecc_discovery_errors_total counter\n"
		   "rocecc_discovery_errors_total %" PRIu64 "\n", rd->poll_errors);
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
	json_object *arr = arg, *o = json_object_new_object(), *cnt;
	unsigned int i;

	(void)rd;
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
	for (i = 0; i < sizeof(rd_counters) / sizeof(rd_counters[0]); i++) {
		uint64_t val;

		memcpy(&val, (const char *)f + rd_counters[i].off, sizeof(val));
		json_object_object_add(cnt, rd_counters[i].name,
				       json_object_new_int64((int64_t)val));
	}
	json_object_object_add(o, "counters", cnt);
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
	FILE *out = arg;
	unsigned int i;

	(void)rd;
	fprintf(out, "%-40s %-8s %9" PRIu64, v->name, v->dev,
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
		fprintf(f, "%-40s %-8s %9s %9s %9s %9s %9s %9s %9s\n", "FLOW",
			"DEV", "MSGS", "MCT_P50", "MCT_P99", "MCT_P999",
			"RTT_P50", "RTT_P99", "RTT_P999");
		rd_snap_each(rd, &snap, text_flow, f);
		fprintf(f, "(microseconds; message completion = first packet to completing ACK)\n");
	} else if (!strcmp(url, "/")) {
		type = "text/html; charset=utf-8";
		fprintf(f, "<html><body><h1>roceccd</h1><ul>"
			   "<li><a href=\"/metrics\">/metrics</a></li>"
			   "<li><a href=\"/flows\">/flows</a></li>"
			   "<li><a href=\"/flows.json\">/flows.json</a></li>"
			   "</ul></body></html>\n");
	} else {
		code = MHD_HTTP_NOT_FOUND;
		fprintf(f, "not found: %s (try /metrics, /flows, /flows.json)\n", url);
	}
	pthread_mutex_unlock(&rd->lock);
	rd_snap_free(&snap);
	fclose(f);
	return rd_reply(conn, code, type, buf, len);
}

/*
 * The listening socket, made before daemonizing (so that a bad address or
 * a port in use is reported on stderr with exit status 1); libmicrohttpd's
 * thread is started after the fork, on this socket.
 */
static int rd_listen(struct rd *rd)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	socklen_t slen;
	int fd, one = 1;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, rd->listen, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(rd->port);
		slen = sizeof(*s4);
	} else if (inet_pton(AF_INET6, rd->listen, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(rd->port);
		slen = sizeof(*s6);
	} else {
		rd_log(LOG_ERR_, "--listen: '%s' is not an IPv4 or IPv6 address",
		       rd->listen);
		return -EINVAL;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rd_log(LOG_ERR_, "socket: %s", strerror(errno));
		return -errno;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ss.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, slen) || listen(fd, 64)) {
		rd_log(LOG_ERR_, "cannot listen on %s port %u: %s", rd->listen,
		       rd->port, strerror(errno));
		close(fd);
		return -EADDRINUSE;
	}
	rd->listen_fd = fd;
	return 0;
}

static int rd_http_start(struct rd *rd)
{
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
	bool v6 = strchr(rd->listen, ':') != NULL;

	if (v6)
		flags |= MHD_USE_IPv6;
	rd->httpd = MHD_start_daemon(flags, 0, NULL, NULL, rd_http, rd,
				     MHD_OPTION_LISTEN_SOCKET, rd->listen_fd,
				     MHD_OPTION_CONNECTION_TIMEOUT, 10u,
				     MHD_OPTION_END);
	if (!rd->httpd) {
		rd_log(LOG_ERR_, "cannot start the HTTP server on %s port %u",
		       rd->listen, rd->port);
		return -EIO;
	}
	rd->listen_fd = -1;	/* MHD's now */
	rd_log(LOG_INFO_, "metrics on http://%s%s%s:%u/metrics", v6 ? "[" : "",
	       rd->listen, v6 ? "]" : "", rd->port);
	return 0;
}

/* ---- main --------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: roceccd [OPTIONS]\n"
		"\n"
		"Per-flow RoCE telemetry: attaches bpf/flowmon to every RoCE netdev,\n"
		"names flows 'comm[pid] lqpn -> peer:rqpn' from RDMA netlink, and\n"
		"serves /metrics (Prometheus), /flows and /flows.json over HTTP.\n"
		"\n"
		"  -l, --listen ADDR        metrics bind address (default 127.0.0.1)\n"
		"  -p, --port PORT          metrics TCP port (default %u)\n"
		"  -i, --interval TIME      discovery / QP poll interval (default 1s;\n"
		"                           seconds, or with unit: 250ms, 2s)\n"
		"      --linger TIME        keep a vanished QP's flows this long (default 15s)\n"
		"      --buckets-per-octave N  exported histogram buckets per power of\n"
		"                           two: 1, 2, 4 (default), 8 or 16\n"
		"  -f, --foreground         do not daemonize; log to stderr\n"
		"  -L, --log-level LEVEL    error, warn, info (default), debug\n"
		"      --pidfile FILE       write the daemon's pid to FILE\n"
		"  -h, --help\n"
		"\n"
		"Needs root (BPF, TC, RDMA netlink). SIGTERM/SIGINT: detach and exit.\n"
		"Exit status: 0 ok, 1 failure, 2 bad command line.\n",
		RD_DEFAULT_PORT);
}

static int bad_arg(const char *opt, const char *val, const char *why)
{
	fprintf(stderr, "%s: %s: '%s' %s\n", prog, opt, val, why);
	return 2;
}

static void on_signal(int sig)
{
	(void)sig;
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
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "port", required_argument, NULL, 'p' },
		{ "interval", required_argument, NULL, 'i' },
		{ "linger", required_argument, NULL, 'g' },
		{ "buckets-per-octave", required_argument, NULL, 'b' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "log-level", required_argument, NULL, 'L' },
		{ "pidfile", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rd rd = {
		.listen = "127.0.0.1",
		.port = RD_DEFAULT_PORT,
		.interval_ms = 1000,
		.linger_ms = 15000,
		.per_octave = 4,
		.log_level = LOG_INFO_,
		.listen_fd = -1,
	};
	struct sigaction sa = { .sa_handler = on_signal };
	bool pid_written = false;
	int c, err, ret = 1;
	size_t i;

	while ((c = getopt_long(argc, argv, "l:p:i:fL:h", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			rd.listen = optarg;
			break;
		case 'p':
			err = rd_parse_port(optarg, &rd.port);
			if (err)
				return bad_arg("--port", optarg,
					       "is not a TCP port (1..65535)");
			break;
		case 'i':
		case 'g':
			err = rd_parse_ms(optarg, c == 'i' ? &rd.interval_ms :
							     &rd.linger_ms);
			if (err)
				return bad_arg(c == 'i' ? "--interval" : "--linger",
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
			rd.per_octave = (unsigned int)v;
			break;
		}
		case 'f':
			rd.foreground = true;
			break;
		case 'P':
			if (optarg[0] != '/')
				return bad_arg("--pidfile", optarg,
					       "is not an absolute path");
			rd.pidfile = optarg;
			break;
		case 'L':
			rd.log_level = rd_log_level(optarg);
			if (rd.log_level < 0)
				return bad_arg("--log-level", optarg,
					       "is not error, warn, info or debug");
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", prog, argv[optind]);
		usage(stderr);
		return 2;
	}
	log_level = rd.log_level;
	{
		struct in6_addr a6;
		struct in_addr a4;

		if (inet_pton(AF_INET, rd.listen, &a4) != 1 &&
		    inet_pton(AF_INET6, rd.listen, &a6) != 1)
			return bad_arg("--listen", rd.listen,
				       "is not an IPv4 or IPv6 address");
	}

	libbpf_set_print(libbpf_print);
	pthread_mutex_init(&rd.lock, NULL);

	err = rdma_nl_open(&rd.nl);
	if (err) {
		rd_log(LOG_ERR_, "cannot open RDMA netlink: %s%s", strerror(-err),
		       err == -EPROTONOSUPPORT ? " (no ib_core?)" : "");
		return 1;
	}
	rd.skel = flowmon__open_and_load();
	if (!rd.skel) {
		rd_log(LOG_ERR_, "cannot load the flowmon BPF programs: %s (root? kernel >= 5.17?)",
		       strerror(errno));
		goto out_nl;
	}
	if (rd_listen(&rd))
		goto out_skel;

	if (!rd.foreground) {
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
	signal(SIGPIPE, SIG_IGN);
	if (rd.pidfile) {
		FILE *pf = fopen(rd.pidfile, "w");

		if (!pf || fprintf(pf, "%d\n", (int)getpid()) < 0 || fclose(pf)) {
			rd_log(LOG_ERR_, "--pidfile: cannot write '%s': %s",
			       rd.pidfile, strerror(errno));
			goto out_skel;
		}
		pid_written = true;
	}
	if (rd_http_start(&rd))
		goto out_skel;

	rd_log(LOG_INFO_, "started: interval %" PRIu64 " ms, linger %" PRIu64 " ms",
	       rd.interval_ms, rd.linger_ms);
	while (!stop) {
		struct timespec ts;

		pthread_mutex_lock(&rd.lock);
		rd_poll(&rd);
		pthread_mutex_unlock(&rd.lock);
		ts.tv_sec = (time_t)(rd.interval_ms / 1000);
		ts.tv_nsec = (long)(rd.interval_ms % 1000) * 1000000L;
		while (!stop && nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	rd_log(LOG_INFO_, "stopping");
	ret = 0;
	MHD_stop_daemon(rd.httpd);
out_skel:
	if (rd.listen_fd >= 0)
		close(rd.listen_fd);
	if (pid_written)
		unlink(rd.pidfile);
	pthread_mutex_lock(&rd.lock);
	for (i = 0; i < rd.nnds; i++)
		rd_detach(&rd.nds[i]);
	pthread_mutex_unlock(&rd.lock);
	flowmon__destroy(rd.skel);
out_nl:
	rdma_nl_close(&rd.nl);
	free(rd.qps);
	free(rd.nds);
	return ret;
}
