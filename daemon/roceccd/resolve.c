// SPDX-License-Identifier: GPL-2.0
/*
 * roceccd: what flowmon counted before the daemon knew the QP
 * (bpf/flowmon.h, "Counting starts with a pair's first packet"). After
 * every round of QP learning:
 *  - a pending entry (peer, l, ifindex) of a QP now known gets its qps
 *    entry marked FLOWMON_QP_MERGE, so that the QP's next packet folds it
 *    into the flow (the flow's first resolved packet does that unmarked:
 *    the mark is for a pending entry of a flow resolved before);
 *  - a QP's peer (rd_qp.peer, for the BPF datapath's dp_qps) is the
 *    address of the flow our own packets to its remote QPN made
 *    (pairing.c);
 *  - what belongs to no QP of this host a while after its first packet
 *    (a stranger's packets, a QP that ended before any poll saw it) is
 *    deleted and counted (rd.fm_evicted_*).
 * And the events flowmon announces new flows and pending entries with
 * (struct flowmon_event) make the main loop learn the QPs at once
 * (rd_events_*), rate-limited.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "flowmon.skel.h"
#include "roceccd.h"

/* What is nobody's stays this long past the daemon's interval */
#define RD_RESOLVE_GRACE_MS	1000

static uint64_t rd_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Mark @e's qps entry: its pending entries are to be folded in */
static void rd_mark_merge(struct rd *rd, struct rd_qp *e, uint64_t now_ms)
{
	struct flowmon_qp_key k = { .ifindex = e->ifindex, .lqpn = e->lqpn };
	struct flowmon_qp v = { .rqpn = e->rqpn, .flags = FLOWMON_QP_MERGE };

	if (bpf_map_update_elem(bpf_map__fd(rd->skel->maps.qps), &k, &v,
				BPF_EXIST))
		return;		/* not written yet: next round */
	if (!e->merge_ms)
		e->merge_ms = now_ms;
}

/*
 * Pending entries: those of a known QP marked for the merge (the QP's next
 * packet from that peer folds the entry in); evicted when their QP is not
 * known @grace_ms after their first packet, or when a mark has had
 * @grace_ms to act (the QP fell silent, or the entry is a stranger's in
 * the QP's name).
 */
static void rd_resolve_pending(struct rd *rd, uint64_t now_ms,
			       uint64_t grace_ms)
{
	int fd = bpf_map__fd(rd->skel->maps.pending);
	struct flowmon_pkey key, next, *prev = NULL;
	struct flowmon_pend *pd = malloc(sizeof(*pd));
	uint64_t now = rd_mono_ns();
	unsigned int guard = 0;
	struct rd_qp *e;
	bool old;

	if (!pd)
		return;
	while (!bpf_map_get_next_key(fd, prev, &next) &&
	       guard++ < 4 * FLOWMON_MAX_PENDING) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, pd))
			continue;
		e = rd_qp_find(rd, key.ifindex, key.lqpn);
		if (e && (e->gone || e->rqpn == ~0u))
			e = NULL;
		if (e)
			rd_mark_merge(rd, e, now_ms);
		old = e ? e->merge_ms && now_ms - e->merge_ms > grace_ms :
			  pd->first_ns + grace_ms * 1000000ULL < now;
		if (old && !bpf_map_delete_elem(fd, &key)) {
			rd->fm_evicted_pending++;
			prev = NULL;	/* the walk restarts, harmlessly */
		}
	}
	free(pd);
}

/*
 * The flows of the QPs, for their peers (pairing.c). Flows of no QP that
 * an egress packet made (lqpn 0) are evicted @grace_ms after their first
 * packet; those of a QP that vanished go in rd_prune(), --linger later.
 */
static void rd_resolve_flows(struct rd *rd, uint64_t grace_ms)
{
	int fd = bpf_map__fd(rd->skel->maps.flows);
	struct flowmon_key key, next, *prev = NULL;
	struct flowmon_flow *f = malloc(sizeof(*f));
	uint64_t now = rd_mono_ns();
	unsigned int guard = 0;

	if (!f)
		return;
	rd_pair_begin(rd);
	while (!bpf_map_get_next_key(fd, prev, &next) &&
	       guard++ < 4 * FLOWMON_MAX_FLOWS) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, f))
			continue;
		if (rd_pair_flow(rd, &key, f) || f->lqpn ||
		    f->first_ns + grace_ms * 1000000ULL > now)
			continue;	/* someone's, or young */
		if (!bpf_map_delete_elem(fd, &key)) {
			rd->fm_evicted_flows++;
			prev = NULL;
		}
	}
	free(f);
	rd_pair_end(rd);
}

void rd_resolve(struct rd *rd, uint64_t now_ms)
{
	uint64_t grace_ms = rd->conf.interval_ms + RD_RESOLVE_GRACE_MS;

	rd_resolve_pending(rd, now_ms, grace_ms);
	rd_resolve_flows(rd, grace_ms);
}

/* ---- events ----------------------------------------------------------- */

static int rd_event_cb(void *ctx, void *data, size_t len)
{
	struct rd *rd = ctx;

	(void)data;
	(void)len;
	rd->ev_new++;
	return 0;
}

int rd_events_open(struct rd *rd)
{
	rd->rb = ring_buffer__new(bpf_map__fd(rd->skel->maps.events),
				  rd_event_cb, rd, NULL);
	if (!rd->rb) {
		rd_log(LOG_WARN_, "flowmon events: %s; new QPs are learnt at the next poll",
		       strerror(errno));
		return -errno;
	}
	return 0;
}

void rd_events_close(struct rd *rd)
{
	ring_buffer__free(rd->rb);
	rd->rb = NULL;
}

/* Least time between two rounds of learning that events ask for */
#define RD_EVENT_MIN_MS	10

void rd_events_wait(struct rd *rd, uint64_t ms, volatile sig_atomic_t *stop,
		    volatile sig_atomic_t *reload)
{
	uint64_t end = rd_now_ms() + ms, now, last = 0, left;
	struct timespec ts;
	int n;

	while (!*stop && !*reload && (now = rd_now_ms()) < end) {
		left = end - now;
		if (!rd->rb) {
			ts.tv_sec = (time_t)(left / 1000);
			ts.tv_nsec = (long)(left % 1000) * 1000000L;
			nanosleep(&ts, NULL);
			continue;
		}
		if (rd->ev_new && now - last < RD_EVENT_MIN_MS)
			left = RD_EVENT_MIN_MS - (now - last);
		n = ring_buffer__poll(rd->rb, (int)(left > 60000 ? 60000 : left));
		if (n < 0 && n != -EINTR) {
			rd_log(LOG_WARN_, "flowmon events: %s", strerror(-n));
			rd_events_close(rd);
			continue;
		}
		now = rd_now_ms();
		if (!rd->ev_new || now - last < RD_EVENT_MIN_MS)
			continue;
		rd->ev_new = 0;
		rd->ev_rounds++;
		last = now;
		pthread_mutex_lock(&rd->lock);
		rd_learn(rd);
		pthread_mutex_unlock(&rd->lock);
	}
}
