// SPDX-License-Identifier: GPL-2.0
/*
 * roceccd: the BPF datapath engine (bpf/dcqcn.bpf.c through its loader,
 * lib/bpf_dp.h) on the netdevs dp.c gives it.
 *
 * The programs are loaded once, when the first netdev needs them, with
 * their maps pinned in pin_dir next to flowmon's: a restarted daemon
 * adopts them, with every flow's DCQCN state and the counters. Attaching
 * a netdev puts fq in place (dp.c), writes the configuration ([module]
 * profile, then its parameters over it; without a profile an adopted
 * netdev keeps what it had and a new one starts from mlx5's) and the
 * clsact filters; the loader refuses a netdev rocecc.ko drives, and the
 * refusal is logged once per configuration and retried every poll. A
 * reload writes the parameters again. Every round of QP learning fills
 * dp_qps (local QPN -> peer, remote QPN) for the QPs whose peer is known
 * and removes the entries of QPs that are gone; every poll deletes flows
 * idle for RD_BPF_FLOW_IDLE_MS, as rocecc.ko does after its
 * flow_idle_ms. The QPs' ACK timeouts and peers are not in RDMA netlink:
 * the loader's learner (bpf/qptimeout.bpf.c, traced from rxe_modify_qp()
 * once rdma_rxe is loaded) has them, as the module has them from
 * ib_query_qp(), and writes the dp_qps entry of each QP it sees reach RTR
 * itself, with the peer of its address vector, before the QP's first
 * packet. Each round takes those peers too (rd_bpf_peers(), before the
 * flows' pairing, which they outrank: pairing.c), writes the entries of
 * the QPs it knows with them and with the timeouts, where the flows take
 * their pacing budget from, and leaves the learner's entries of QPs not
 * dumped yet alone; a QP the learner has not seen keeps the default
 * budget (pacing_default_budget_us's value) and the peer flowmon's flows
 * tell (pairing.c, resolve.c).
 *
 * On exit the filters come off and the netdevs' dp_devs entries go (the
 * CLI and rocecc.ko's users see nothing attached), the flows, QPs and
 * counters stay pinned for the next start, and so does the learner, which
 * goes on writing dp_qps meanwhile; the next start adopts it before its
 * first pairing. A netdev that leaves the configuration or vanishes is
 * detached whole; the last one takes the learner with it (unpinned), as
 * does a start with --datapath none.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>

#include "lib/bpf_dp.h"
#include "lib/format.h"
#include "lib/parse.h"
#include "roceccd.h"

/* Idle flows go after this long, as rocecc.ko's default flow_idle_ms */
#define RD_BPF_FLOW_IDLE_MS	10000

static uint64_t rd_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The loader, opened (and the programs loaded) on first use */
static bool rd_bpf_ready(struct rd *rd)
{
	struct bpf_dp_opts o = { .pin_dir = rd->pinned };
	char err[512];
	bool adopted;

	if (rd->bdp)
		return true;
	rd->bdp = bpf_dp_open(&o, &adopted, err, sizeof(err));
	if (!rd->bdp) {
		if (!rd->bdp_failed_logged)
			rd_log(LOG_ERR_, "BPF datapath: %s", err);
		rd->bdp_failed_logged = true;
		rd->bdp_errors++;
		return false;
	}
	rd->bdp_failed_logged = false;
	rd_log(LOG_INFO_, "BPF datapath loaded%s%s", adopted ?
	       ", its flows and counters adopted from " : "",
	       adopted ? rd->pinned : "");
	return true;
}

void rd_bpf_close(struct rd *rd)
{
	bpf_dp_close(rd->bdp);
	rd->bdp = NULL;
	rd->bdp_learn_rounds = 0;
}

/* Does @nd's root qdisc pace (fq, mq of fq, rocecc with fq under it)? */
static bool rd_bpf_paces(const struct rd_netdev *nd, char *kind, size_t n)
{
	if (rd_root_kind(nd->ifindex, kind, n))
		return false;
	return !strcmp(kind, "fq") || !strcmp(kind, "mq") ||
	       !strcmp(kind, "rocecc");
}

/* The configuration for @nd: profile, parameters, line rate, pacing */
static void rd_bpf_cfg(struct rd *rd, const struct rd_netdev *nd,
		       struct bpf_dp_dev_cfg *c)
{
	const struct rd_conf *conf = &rd->conf;
	struct bpf_dp_dev_cfg cur;
	unsigned int id;

	bpf_dp_dev_cfg_init(c, conf->profile >= 0 ? (unsigned int)conf->profile :
			    ROCECC_PROFILE_MLX5);
	/* no profile: what the netdev has (adopted) stays */
	if (conf->profile < 0 && !bpf_dp_dev_get(rd->bdp, nd->ifindex, &cur))
		c->params = cur.params;
	for (id = 1; id <= ROCECC_PARAM_MAX; id++)
		if (conf->param_set[id])
			c->params.v[id] = conf->param[id];
	c->line_rate_kbps = rd_sysfs_uint(nd->name, "speed") * 1000U;
}

static unsigned int rd_nparams(const struct rd_conf *c)
{
	unsigned int id, n = 0;

	for (id = 1; id <= ROCECC_PARAM_MAX; id++)
		n += c->param_set[id];
	return n;
}

/* Attach @nd, or configure it again after a reload */
void rd_bpf_sync(struct rd *rd, struct rd_netdev *nd)
{
	struct bpf_dp_dev_cfg c;
	char err[512], kind[32];
	bool fresh = !nd->bpf_attached;
	int e;

	if (nd->bpf_attached && nd->bpf_gen == rd->conf_gen)
		return;
	if (!rd_bpf_ready(rd))
		return;
	if (fresh)
		rd_dp_qdisc(rd, nd);
	rd_bpf_cfg(rd, nd, &c);
	c.pace = rd_bpf_paces(nd, kind, sizeof(kind));
	if (!c.pace) {
		snprintf(err, sizeof(err), "%s: root qdisc %s does not pace: fq needed (tc qdisc replace dev %s root fq, or [module] fq = yes)",
			 nd->name, kind, nd->name);
		e = -EINVAL;
	} else {
		e = bpf_dp_attach(rd->bdp, nd->ifindex, &c, err, sizeof(err));
	}
	if (e) {
		/* once per configuration, not every poll */
		if (nd->bpf_err_gen != rd->conf_gen)
			rd_log(LOG_ERR_, "BPF datapath: %s (retried every poll)",
			       err);
		nd->bpf_err_gen = rd->conf_gen;
		rd->bdp_errors++;
		if (fresh)
			rd_dp_unqdisc(nd);
		return;
	}
	nd->bpf_attached = true;
	rd->bdp_unlearnt = false;
	nd->bpf_gen = rd->conf_gen;
	rd_log(LOG_INFO_, "%s: BPF datapath %s: profile %s, %u parameters set",
	       nd->name, fresh ? "attached" : "configured",
	       rd->conf.profile >= 0 ? cli_profile_name(rd->conf.profile) :
	       fresh ? "mlx5 (or as adopted)" : "unchanged",
	       rd_nparams(&rd->conf));
	if (fresh)
		rd_event(rd, "datapath_attached", "netdev", rd_json_str(nd->name),
			 "engine", json_object_new_string("bpf"), NULL);
}

/* Does the BPF engine drive any netdev? */
static bool rd_bpf_any(const struct rd *rd)
{
	size_t i;

	for (i = 0; i < rd->nnds; i++)
		if (rd->nds[i].bpf_attached)
			return true;
	return false;
}

void rd_bpf_release(struct rd *rd, struct rd_netdev *nd, bool stopping)
{
	int e;

	if (!nd->bpf_attached || !rd->bdp)
		return;
	nd->bpf_attached = false;
	nd->bpf_gen = 0;
	e = stopping ? bpf_dp_stop(rd->bdp, nd->ifindex) :
		       bpf_dp_detach(rd->bdp, nd->ifindex);
	if (e && e != -ENODEV && e != -EINVAL) {
		rd_log(LOG_WARN_, "%s: BPF datapath: detach: %s", nd->name,
		       strerror(-e));
		rd->bdp_errors++;
		return;
	}
	rd_log(LOG_INFO_, "%s: BPF datapath detached%s", nd->name, stopping ?
	       " (flows and counters kept pinned)" : "");
	if (!stopping)
		rd_event(rd, "datapath_detached", "netdev", rd_json_str(nd->name),
			 "engine", json_object_new_string("bpf"), NULL);
	if (!stopping && !rd_bpf_any(rd) && bpf_dp_learning(rd->bdp)) {
		/* the engine off for good: its learner too, pins and all */
		bpf_dp_unlearn(rd->bdp);
		rd->bdp_learn_rounds = 0;
		rd->bdp_unlearnt = true;
		rd_log(LOG_INFO_, "BPF datapath: QP learner detached");
	}
}

/* Is @ifindex driven by the BPF engine of this daemon? */
static bool rd_bpf_on(struct rd *rd, uint32_t ifindex)
{
	struct rd_netdev *nd = rd_netdev_find(rd, ifindex);

	return nd && nd->bpf_attached;
}

/*
 * Delete the dp_qps entries of QPs gone (or no longer BPF's); those the
 * learner wrote for the peer it still has stay (it deletes them when
 * their QP goes: here they may be of a QP set up since the last dump).
 */
static void rd_bpf_qps_prune(struct rd *rd)
{
	int fd = bpf_dp_map_fd(rd->bdp, DCQCN_PIN_QPS);
	struct dcqcn_qp_key k, next, *prev = NULL;
	const struct rd_qp *e;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		k = next;
		prev = &k;
		e = rd_qp_find(rd, k.ifindex, k.lqpn);
		if ((e && !e->gone && e->dp_set && rd_bpf_on(rd, k.ifindex)) ||
		    bpf_dp_qp_learnt(rd->bdp, k.ifindex, k.lqpn))
			continue;
		if (!bpf_dp_qp_del(rd->bdp, k.ifindex, k.lqpn))
			prev = NULL;	/* the walk restarts, harmlessly */
	}
}

/*
 * The QP timeout learner, loaded once rdma_rxe is (tried every round
 * until then; not after the engine was off for good, until a netdev is
 * attached again); a failure other than rxe's absence is logged, and not
 * tried again. Pinned, it outlives the daemon: a restarted one adopts it
 * (and its map, with the peers of the QPs set up before, or while no
 * daemon ran) before its first pairing, and before its first prune of
 * dp_qps, which keeps the entries the learner has.
 */
static void rd_bpf_learn_timeouts(struct rd *rd)
{
	char err[256];
	int e;

	if (rd->bdp_tmo_logged || bpf_dp_learning(rd->bdp) || rd->bdp_unlearnt)
		return;		/* failed for good: not every round again */
	e = bpf_dp_learn_timeouts(rd->bdp, err, sizeof(err));
	if (e && e != -ENOENT && !rd->bdp_tmo_logged) {
		rd_log(LOG_WARN_, "BPF datapath: %s; pacing keeps the default budget",
		       err);
		rd->bdp_tmo_logged = true;
	}
	if (e)
		return;
	if (err[0])
		rd_log(LOG_WARN_, "BPF datapath: %s", err);
	rd_log(LOG_INFO_, "BPF datapath: QP learner %s", rd->pinned[0] ?
	       bpf_dp_learner_adopted(rd->bdp) ? "adopted from the pins" :
	       "attached and pinned" : "attached");
}

/*
 * A QP of @ifindex first seen in this round's dump reached RTR after the
 * learner was attached, and so under its eyes, when the learner was
 * attached before the previous round's dump (attached at the end of
 * round N, counted 1 then; round N+1's dump may still show a QP that
 * reached RTR before the attach; one first seen in round N+2's was not
 * there, or not in RTR, in N+1's). Only on netdevs this engine drives:
 * rxe's, whose modifies the learner sees.
 */
bool rd_bpf_av_due(struct rd *rd, uint32_t ifindex)
{
	return rd->bdp && bpf_dp_learning(rd->bdp) &&
	       rd->bdp_learn_rounds >= 2 && rd_bpf_on(rd, ifindex);
}

void rd_bpf_peers(struct rd *rd)
{
	uint8_t raddr[16];
	uint32_t rqpn;
	char peer[64];
	size_t i;

	if (!rd->bdp)
		return;
	/* before the first pairing: a pinned learner's peers outrank it */
	rd_bpf_learn_timeouts(rd);
	if (!bpf_dp_learning(rd->bdp))
		return;
	for (i = 0; i < rd->nqps; i++) {
		struct rd_qp *q = &rd->qps[i];

		/* the learner's entry, of this QP (same remote QPN) */
		if (q->gone || q->rqpn == ~0u ||
		    bpf_dp_qp_av(rd->bdp, q->ifindex, q->lqpn, raddr, &rqpn) ||
		    rqpn != q->rqpn)
			continue;
		if (q->peer_av && !memcmp(q->peer, raddr, 16))
			continue;
		rd_pair_av(q, raddr);
		rd_peer_str(q->peer, peer, sizeof(peer));
		rd_log(LOG_DEBUG_, "%s QP %" PRIu32 ": peer %s:%" PRIu32 " from its address vector",
		       q->dev, q->lqpn, peer, q->rqpn);
	}
}

void rd_bpf_qps(struct rd *rd)
{
	char peer[64];
	size_t i;
	int e, t;

	if (!rd->bdp)
		return;
	rd_bpf_learn_timeouts(rd);
	if (bpf_dp_learning(rd->bdp) && rd->bdp_learn_rounds < 2)
		rd->bdp_learn_rounds++;
	for (i = 0; i < rd->nqps; i++) {
		struct rd_qp *q = &rd->qps[i];

		if (q->gone || !q->have_peer || q->rqpn == ~0u ||
		    !rd_bpf_on(rd, q->ifindex)) {
			q->dp_set = false;
			continue;
		}
		t = bpf_dp_qp_timeout(rd->bdp, q->ifindex, q->lqpn);
		if (q->dp_set && q->dp_gen == q->peer_gen &&
		    q->dp_rqpn == q->rqpn && q->dp_timeout == t)
			continue;
		e = bpf_dp_qp_set(rd->bdp, q->ifindex, q->lqpn, q->peer,
				  q->rqpn, t);
		if (e) {
			rd_log(LOG_WARN_, "%s QP %" PRIu32 ": dp_qps: %s", q->dev,
			       q->lqpn, strerror(-e));
			rd->bdp_errors++;
			continue;
		}
		q->dp_set = true;
		q->dp_gen = q->peer_gen;
		q->dp_rqpn = q->rqpn;
		q->dp_timeout = t;
		rd_peer_str(q->peer, peer, sizeof(peer));
		rd_log(LOG_DEBUG_, "%s QP %" PRIu32 " -> %s:%" PRIu32 " timeout %d (BPF datapath)",
		       q->dev, q->lqpn, peer, q->rqpn, t);
	}
	rd_bpf_qps_prune(rd);
}

void rd_bpf_expire(struct rd *rd)
{
	int n;

	if (!rd->bdp)
		return;
	n = bpf_dp_flows_expire(rd->bdp, RD_BPF_FLOW_IDLE_MS * 1000000ULL,
				rd_mono_ns());
	if (n > 0) {
		rd->bdp_expired += (uint64_t)n;
		rd_log(LOG_DEBUG_, "BPF datapath: %d idle flows expired", n);
	}
}

int rd_bpf_stats(struct rd *rd, const struct rd_netdev *nd, uint64_t v[])
{
	if (!rd->bdp || !nd->bpf_attached)
		return -ENODEV;
	return bpf_dp_stats(rd->bdp, nd->ifindex, v);
}

int rd_bpf_stat_lines(struct rd *rd, FILE *f, const char *family,
		      unsigned int stat)
{
	uint64_t v[__DCQCN_STAT_MAX];
	char esc[RD_TEXT_MAX(IF_NAMESIZE)];
	int n = 0;
	size_t i;

	for (i = 0; i < rd->nnds; i++) {
		const struct rd_netdev *nd = &rd->nds[i];

		if (rd_bpf_stats(rd, nd, v))
			continue;
		n++;
		if (!f)
			continue;
		rd_prom_escape(nd->name, esc, sizeof(esc));
		fprintf(f, "%s{netdev=\"%s\",engine=\"bpf\"} %" PRIu64 "\n",
			family, esc, v[stat]);
	}
	return n;
}

void rd_bpf_metrics(struct rd *rd, FILE *f)
{
	unsigned int t;

	/* this engine's own counters, after the families both have */
	for (t = __ROCECC_STAT_MAX; t < __DCQCN_STAT_MAX; t++) {
		if (!rd_bpf_stat_lines(rd, NULL, NULL, t))
			break;
		rd_prom_family(f, rd_family_of_stat(t));
		rd_bpf_stat_lines(rd, f, rd_fam(rd_family_of_stat(t)), t);
	}
	rd_prom_family(f, RDF_BPF_ERRORS);
	fprintf(f, "%s %" PRIu64 "\n", rd_fam(RDF_BPF_ERRORS), rd->bdp_errors);
	rd_prom_family(f, RDF_BPF_FLOWS_EXPIRED);
	fprintf(f, "%s %" PRIu64 "\n", rd_fam(RDF_BPF_FLOWS_EXPIRED),
		rd->bdp_expired);
}
