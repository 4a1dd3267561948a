// SPDX-License-Identifier: GPL-2.0
/*
 * roceccd: groups and stragglers. A flow's groups come from the rank map
 * (this host and the peer's ranks) or its process; every poll a window of
 * each flow's message completion histogram goes to policy/straggler.c,
 * which flags the flows far slower than their group's median.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ifaddrs.h>

#include "lib/format.h"
#include "policy/straggler.h"
#include "lib/array.h"
#include "roceccd.h"

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
void rd_rank_hosts(struct rd *rd)
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

/* A state for every flow of @snap that has none; false without memory. */
static bool rd_fstate_add(struct rd *rd, const struct rd_snap *snap)
{
	size_t i, nadd = 0;
	void *p;

	for (i = 0; i < snap->n; i++) {
		if (rd_fstate_find(rd, &snap->v[i].key))
			continue;
		p = array_grow(rd->fs, &rd->capfs, rd->nfs + nadd + 1,
			       sizeof(*rd->fs));
		if (!p)
			return false;
		rd->fs = p;
		memset(&rd->fs[rd->nfs + nadd], 0, sizeof(*rd->fs));
		rd->fs[rd->nfs + nadd].key = snap->v[i].key;
		nadd++;
	}
	rd->nfs += nadd;
	if (nadd)	/* rd_fstate_find() searches the sorted array */
		qsort(rd->fs, rd->nfs, sizeof(*rd->fs), rd_fstate_sort);
	return true;
}

/*
 * The PFC buffer tuner's latency input: per netdev, the p99.9 of the
 * windowed histograms of all its flows summed (@tail, rd->nnds of them;
 * flowmon does not know a flow's DSCP, hence its priority). NULL @tail:
 * none.
 */
static void rd_tails(struct rd *rd, const __u64 *tail)
{
	size_t i;

	for (i = 0; i < rd->nnds; i++) {
		struct rd_netdev *tnd = &rd->nds[i];
		const __u64 *h = tail ? &tail[i * FLOWMON_HIST_BUCKETS] : NULL;
		uint64_t ns = 0;

		tnd->tail_ns = tnd->tail_samples = 0;
		if (!h)
			continue;
		tnd->tail_samples = rd_hist_count(h);
		if (tnd->tail_samples && rd_hist_percentile(h, 999000, &ns))
			tnd->tail_ns = ns;
		else
			tnd->tail_samples = 0;
	}
}

/*
 * Flow @i of @snap in the window: its state's histogram delta (into
 * @delta, added to its netdev's in @tail if not NULL), p99 and groups, and
 * its strag_eval() item @it with the group keys at @gkeys.
 */
static void rd_strag_item(struct rd *rd, const struct rd_snap *snap,
			  size_t i, uint64_t now, __u64 *delta, __u64 *tail,
			  struct strag_item *it, uint64_t *gkeys)
{
	struct rd_fstate *st = rd_fstate_find(rd, &snap->v[i].key);
	struct rd_netdev *tnd;
	uint64_t ns = 0;
	size_t b;

	st->seen = true;
	st->win_samples = strag_win_delta(&st->win, snap->f[i].mct.bucket,
					  now, rd->conf.window_ms, delta);
	st->win_p99_ns = rd_hist_percentile(delta, 990000, &ns) ? ns : 0;
	tnd = tail ? rd_netdev_find(rd, snap->v[i].key.ifindex) : NULL;
	if (tnd) {
		__u64 *acc = &tail[(size_t)(tnd - rd->nds) * FLOWMON_HIST_BUCKETS];

		for (b = 0; b < FLOWMON_HIST_BUCKETS; b++)
			acc[b] += delta[b];
	}
	rd_rank_groups(rd, &snap->v[i], gkeys, 0, st->groups,
		       sizeof(st->groups));
	it->p99_ns = st->win_p99_ns;
	it->samples = st->win_samples;
	it->groups = gkeys;
	it->ngroups = rd_strag_groups(rd, &snap->v[i], gkeys, RD_MAX_GROUPS);
	it->was_straggler = st->straggler;
}

/* Flow @v's verdict @it: a log line and an event if it changed. */
static void rd_strag_verdict(struct rd *rd, const struct rd_flow_view *v,
			     const struct strag_item *it)
{
	struct rd_fstate *st = rd_fstate_find(rd, &v->key);
	double p99_us, median_us;
	bool idle;
	char g[64];

	st->ratio = it->ratio;
	if (it->straggler) {
		st->sgroup = it->group;
		st->smedian_ns = it->median_ns;
		st->sflows = it->group_flows;
	}
	if (it->straggler == st->straggler)
		return;
	st->straggler = it->straggler;
	rd_group_label(st->sgroup, v, g, sizeof(g));
	p99_us = (double)st->win_p99_ns / 1e3;
	median_us = (double)st->smedian_ns / 1e3;
	if (st->straggler) {
		rd->straggler_flagged++;
		rd_log(LOG_WARN_, "straggler: %s: message completion p99 %.1f us is %.2f x the median %.1f us of group %s (%u flows, factor %.2f)",
		       v->name, p99_us, st->ratio, median_us, g, st->sflows,
		       rd->conf.factor);
		rd_event(rd, "straggler", "flow", rd_json_str(v->name),
			 "group", rd_json_str(g),
			 "p99_us", rd_jfixed(p99_us, "%.1f"),
			 "group_median_us", rd_jfixed(median_us, "%.1f"),
			 "ratio", rd_jfixed(st->ratio, "%.3f"),
			 "group_flows", json_object_new_int64(st->sflows), NULL);
		return;
	}
	idle = st->win_samples < rd->conf.min_messages;
	if (idle)
		rd_log(LOG_INFO_, "straggler no more: %s: %" PRIu64 " messages in the window, fewer than min_messages",
		       v->name, st->win_samples);
	else
		rd_log(LOG_INFO_, "straggler no more: %s: p99 %.1f us, %.2f x the median of group %s",
		       v->name, p99_us, st->ratio, g);
	rd_event(rd, "straggler_cleared", "flow", rd_json_str(v->name),
		 "group", rd_json_str(g), "p99_us", rd_jfixed(p99_us, "%.1f"),
		 "reason", rd_json_str(idle ? "idle" : "back within the factor"),
		 NULL);
}

/*
 * One straggler round, after a poll (under rd->lock): every flow's message
 * completion histogram over the window, its groups, strag_eval(), and a
 * log line and an event for every flow that becomes or stops being a
 * straggler.
 */
void rd_strag_round(struct rd *rd, uint64_t now)
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
	size_t i, o;
	int ret;

	if (rd_snap_take(rd, &snap))
		return;
	for (i = 0; i < rd->nfs; i++)
		rd->fs[i].seen = false;
	if (!rd_fstate_add(rd, &snap))
		goto out;
	it = calloc(snap.n ? snap.n : 1, sizeof(*it));
	gkeys = calloc((snap.n ? snap.n : 1) * RD_MAX_GROUPS, sizeof(*gkeys));
	delta = malloc(sizeof(__u64) * FLOWMON_HIST_BUCKETS);
	if (!it || !gkeys || !delta)
		goto out;
	if (rd->conf.pfc_tune != RD_PFCTUNE_OFF && rd->nnds)
		tail = calloc(rd->nnds * FLOWMON_HIST_BUCKETS, sizeof(__u64));
	for (i = 0; i < snap.n; i++)
		rd_strag_item(rd, &snap, i, now, delta, tail, &it[i],
			      &gkeys[i * RD_MAX_GROUPS]);
	rd_tails(rd, tail);
	ret = strag_eval(it, snap.n, &sc);
	if (ret < 0) {
		rd_log(LOG_WARN_, "straggler evaluation: %s", strerror(-ret));
		goto out;
	}
	rd->nstragglers = (unsigned int)ret;
	for (i = 0; i < snap.n; i++)
		rd_strag_verdict(rd, &snap.v[i], &it[i]);
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
