// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc: the "rocecc" qdisc, IEEE 802.1Qbb PFC enforced in software on the
 * egress of a soft-RoCE netdev (veth in the testbed).
 *
 *   tc qdisc add dev D root handle 1: rocecc
 *   tc qdisc add dev D parent 1:4 fq          (priority 3: fq, EDT pacing)
 *
 * A classful qdisc without options. Eight bands, one per 802.1p priority:
 * class X:(p + 1) is priority p, and its child qdisc (pfifo by default,
 * graftable: fq under the lossless band) holds the packets of p. The
 * receive side (pfc_rx.c) parses PFC frames and calls rocecc_sch_pause(); a
 * paused band is not dequeued until its pause ends or an XON comes.
 *
 * Classification: MAC control frames (ETH_P_PAUSE) go to a small internal
 * FIFO that is never paused and served first (a PFC frame must not wait
 * behind the traffic it pauses). IPv4 and IPv6 packets by DSCP through a
 * 64-entry table: the DCB APP map of rocecc.ko's software DCB on the device
 * (dcb.c, also pushed by rocecc_sch_set_dscp_map() when it changes), else
 * rocecc_dscp_prio_default(); anything else by skb->priority & 7. No tc
 * filters.
 *
 * A paused priority holds its RoCE packets, it never drops one: on 6.12 a
 * failed ip_local_out() fails rxe's work request and puts the QP in the
 * error state (6.1 retried). The push back is rxe's own: it hands IP at
 * most 65 skbs per QP that have not been freed yet (the qdisc holds them,
 * so a paused QP stops), and its responses are bounded by the peer's
 * window. So a RoCEv2 packet (UDP to port 4791) goes into a band's pfifo
 * whatever the pfifo's limit, which applies to everything else. A band
 * with fq must have an fq that holds that bound (flow_limit and limit:
 * attach warns, fq.c); fq never drops for pacing.
 *
 * Dequeue: packet round-robin over the bands that are not paused, one
 * packet per band and turn. Not strict priority, and no ETS (no bandwidth
 * shares): the bands' own qdiscs (fq) do the shaping. When nothing can be
 * sent but a paused band holds packets, the qdisc watchdog is armed at the
 * earliest end of those pauses. A child that holds packets it may not send
 * yet (fq waiting for an EDT timestamp) returns NULL and arms its own
 * watchdog, which reschedules the root qdisc: that works under any parent.
 *
 * The pause state is one u64 per priority ("paused until", ktime_get_ns()),
 * written without locks by rocecc_sch_pause() (softirq, RCU) and read by
 * dequeue under the qdisc lock; on 64-bit machines those accesses are
 * single loads and stores. Lifetime: see rocecc_sch_pause().
 *
 * The pause watchdog: a peer that keeps a priority paused (XOFFs
 * refreshed before they expire, or one XOFF of many quanta on a slow
 * link: 65535 quanta are 33.6 s at 1 Mb/s) would hold its packets, and
 * rxe's QPs behind them, for ever. However the quanta and the speed, a
 * continuous pause (XOFFs that each come before the previous one ended)
 * ends at most pfc_pause_max_ms (module parameter, dp.c; default 10 s:
 * a backstop well above what roceccd's PFC storm watchdog needs to see a
 * storm and act, and above a NIC's own stall prevention, 8 s at most on
 * mlx5) after it began (rocecc_pfc_pause_end()). That end is the
 * watchdog's release: counted per priority (tx_pause_released in the
 * PFC nest of a DEV_GET reply), and XOFFs for the priority are then
 * ignored for as long again (a storm gets the link at least half of the
 * time); an XON still resumes at once.
 *
 * A rocecc qdisc holds a reference on the module (Qdisc_ops.owner), so
 * rmmod fails with EBUSY while one exists anywhere; tc qdisc del first.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/rtnetlink.h>
#include <linux/timekeeping.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include <rocecc/pfc.h>

#include "kcompat.h"
#include "rocecc.h"

#define ROCECC_SCH_BANDS	ROCECC_PFC_PRIOS
#define ROCECC_SCH_CTRL_LIMIT	64	/* MAC control frames queued at most */
#define ROCECC_SCH_DFLT_LIMIT	1000	/* band pfifo when tx_queue_len is 0 */

struct rocecc_sch_band {
	struct Qdisc	*q;		/* child qdisc; under the qdisc lock */
	/*
	 * Pause state, written by rocecc_sch_pause() without a lock:
	 * until: end of the pause (ktime_get_ns()), 0 = not paused;
	 * since: start of the pause interval that ends at until.
	 */
	u64		until;
	u64		since;
	u64		pause_ns;	/* closed pause intervals */
	/*
	 * The watchdog's state, written like @until: from: start of the
	 * continuous pause; holdoff: XOFFs are ignored until then; bit
	 * ROCECC_SCH_WD_CUT of @wd: @until is the watchdog's bound.
	 */
	u64		from;
	u64		holdoff;
	unsigned long	wd;
	atomic64_t	pauses;		/* XOFF applied */
	atomic64_t	resumes;	/* XON applied */
	atomic64_t	released;	/* pauses the watchdog ended */
};

#define ROCECC_SCH_WD_CUT	0

struct rocecc_sch_data {
	struct rocecc_sch_band	band[ROCECC_SCH_BANDS];
	struct sk_buff_head	ctrl;		/* MAC control frames */
	struct qdisc_watchdog	watchdog;	/* end of the earliest pause */
	unsigned int		next;		/* round-robin: band to try first */
	u8			dscp_prio[64];	/* under the qdisc lock */
};

static struct Qdisc_ops rocecc_sch_ops;

/* The band of @skb, or ROCECC_SCH_BANDS for a MAC control frame. */
static unsigned int rocecc_qdisc_classify(const struct rocecc_sch_data *q,
					  struct sk_buff *skb)
{
	int off = skb_network_offset(skb);
	__be16 _w, *w;
	u8 _tos, *tos;

	switch (skb->protocol) {
	case htons(ETH_P_PAUSE):
		return ROCECC_SCH_BANDS;
	case htons(ETH_P_IP):
		tos = skb_header_pointer(skb, off + 1, sizeof(_tos), &_tos);
		if (tos)
			return q->dscp_prio[*tos >> 2];
		break;
	case htons(ETH_P_IPV6):
		/* version (4 bits), traffic class (8 bits), flow label */
		w = skb_header_pointer(skb, off, sizeof(_w), &_w);
		if (w)
			return q->dscp_prio[(ntohs(*w) >> 6) & 0x3f];
		break;
	}
	return skb->priority & 7;
}

/* Is @skb a RoCEv2 packet (UDP to port 4791, hooks.c)? */
static bool rocecc_qdisc_roce(const struct sk_buff *skb)
{
	switch (skb->protocol) {
	case htons(ETH_P_IP):
		return rocecc_skb_roce(skb, false);
	case htons(ETH_P_IPV6):
		return rocecc_skb_roce(skb, true);
	default:
		return false;
	}
}

static int rocecc_qdisc_enqueue(struct sk_buff *skb, struct Qdisc *sch,
				struct sk_buff **to_free)
{
	struct rocecc_sch_data *q = qdisc_priv(sch);
	unsigned int len = qdisc_pkt_len(skb);
	unsigned int band;
	int ret;

	band = rocecc_qdisc_classify(q, skb);
	if (band == ROCECC_SCH_BANDS) {
		if (skb_queue_len(&q->ctrl) >= ROCECC_SCH_CTRL_LIMIT)
			return qdisc_drop(skb, sch, to_free);
		__skb_queue_tail(&q->ctrl, skb);
		ret = NET_XMIT_SUCCESS;
	} else if (q->band[band].q->ops == &pfifo_qdisc_ops &&
		   rocecc_qdisc_roce(skb)) {
		/* Beyond the pfifo's limit too: see the top of the file. */
		ret = qdisc_enqueue_tail(skb, q->band[band].q);
	} else {
		ret = qdisc_enqueue(skb, q->band[band].q, to_free);
	}
	if (ret == NET_XMIT_SUCCESS) {
		sch->qstats.backlog += len;
		sch->q.qlen++;
		return NET_XMIT_SUCCESS;
	}
	if (net_xmit_drop_count(ret))
		qdisc_qstats_drop(sch);
	return ret;
}

/* The longest continuous pause, in ns (pfc_pause_max_ms). */
static u64 rocecc_sch_pause_max_ns(void)
{
	return (u64)READ_ONCE(rocecc_pfc_pause_max_ms) * NSEC_PER_MSEC;
}

/*
 * The pause of @b that ended at @until (<= now) is over: if it was the
 * watchdog's bound, count the release once (the dequeue and a frame may
 * both see it) and start the hold-off. The interval is closed by the
 * caller's accounting, or here when the dequeue ends it.
 */
static void rocecc_sch_wd_release(struct rocecc_sch_band *b, u64 until)
{
	u64 since;

	if (!test_and_clear_bit(ROCECC_SCH_WD_CUT, &b->wd))
		return;
	WRITE_ONCE(b->holdoff, until + rocecc_sch_pause_max_ns());
	atomic64_inc(&b->released);
	/* Close the interval here, once: the next frame finds until == 0. */
	since = READ_ONCE(b->since);
	if (cmpxchg64(&b->until, until, 0) == until && until > since)
		WRITE_ONCE(b->pause_ns, READ_ONCE(b->pause_ns) + until - since);
}

static struct sk_buff *rocecc_qdisc_dequeue(struct Qdisc *sch)
{
	struct rocecc_sch_data *q = qdisc_priv(sch);
	u64 now = 0, wake = U64_MAX;
	struct sk_buff *skb;
	unsigned int i;

	skb = __skb_dequeue(&q->ctrl);
	if (skb)
		goto out;

	for (i = 0; i < ROCECC_SCH_BANDS; i++) {
		unsigned int b = (q->next + i) % ROCECC_SCH_BANDS;
		struct Qdisc *child = q->band[b].q;
		u64 until = READ_ONCE(q->band[b].until);

		if (until) {
			/* The clock only when some priority has a pause. */
			if (!now)
				now = ktime_get_ns();
			if (now < until) {
				if (qdisc_qlen_sum(child) && until < wake)
					wake = until;
				continue;
			}
			rocecc_sch_wd_release(&q->band[b], until);
		}
		skb = qdisc_dequeue_peeked(child);
		if (skb) {
			q->next = (b + 1) % ROCECC_SCH_BANDS;
			goto out;
		}
	}
	/*
	 * Nothing to send now. Packets held by a paused band go when the
	 * earliest pause ends (an XON or a shorter pause reschedules us
	 * earlier: rocecc_sch_pause()).
	 */
	if (wake != U64_MAX)
		qdisc_watchdog_schedule_ns(&q->watchdog, wake);
	return NULL;

out:
	qdisc_bstats_update(sch, skb);
	qdisc_qstats_backlog_dec(sch, skb);
	sch->q.qlen--;
	return skb;
}

static void rocecc_qdisc_reset(struct Qdisc *sch)
{
	struct rocecc_sch_data *q = qdisc_priv(sch);
	unsigned int b;

	for (b = 0; b < ROCECC_SCH_BANDS; b++)
		qdisc_reset(q->band[b].q);
	__skb_queue_purge(&q->ctrl);
	q->next = 0;
	qdisc_watchdog_cancel(&q->watchdog);
}

static int rocecc_qdisc_check_opt(struct nlattr *opt,
				  struct netlink_ext_ack *extack)
{
	if (opt && nla_len(opt)) {
		NL_SET_ERR_MSG(extack,
			       "rocecc takes no options: its classes are the 8 PFC priorities");
		return -EINVAL;
	}
	return 0;
}

/* The default child of @band: a pfifo of tx_queue_len packets (or 1000). */
static struct Qdisc *rocecc_qdisc_default(struct Qdisc *sch, unsigned int band,
					  struct netlink_ext_ack *extack)
{
	unsigned int limit = qdisc_dev(sch)->tx_queue_len;
	struct Qdisc *child;

	child = qdisc_create_dflt(sch->dev_queue, &pfifo_qdisc_ops,
				  TC_H_MAKE(sch->handle, band + 1), extack);
	if (!child)
		return NULL;
	if (fifo_set_limit(child, limit ? limit : ROCECC_SCH_DFLT_LIMIT)) {
		qdisc_put(child);
		return NULL;
	}
	qdisc_hash_add(child, true);
	return child;
}

static int rocecc_qdisc_init(struct Qdisc *sch, struct nlattr *opt,
			     struct netlink_ext_ack *extack)
{
	struct rocecc_sch_data *q = qdisc_priv(sch);
	unsigned int b;
	int err;

	/* First what destroy() needs: it runs even when init fails. */
	qdisc_watchdog_init(&q->watchdog, sch);
	__skb_queue_head_init(&q->ctrl);
	for (b = 0; b < ROCECC_SCH_BANDS; b++) {
		atomic64_set(&q->band[b].pauses, 0);
		atomic64_set(&q->band[b].resumes, 0);
		atomic64_set(&q->band[b].released, 0);
	}

	err = rocecc_qdisc_check_opt(opt, extack);
	if (err)
		return err;
	/* The device's DCB APP map if rocecc.ko provides its DCB. */
	rocecc_dcb_dscp_prio(qdisc_dev(sch), q->dscp_prio);
	for (b = 0; b < ROCECC_SCH_BANDS; b++) {
		q->band[b].q = rocecc_qdisc_default(sch, b, extack);
		if (!q->band[b].q)
			return -ENOMEM;
	}
	return 0;
}

/* tc qdisc replace/change with the same kind: nothing to change. */
static int rocecc_qdisc_change(struct Qdisc *sch, struct nlattr *opt,
			       struct netlink_ext_ack *extack)
{
	return rocecc_qdisc_check_opt(opt, extack);
}

static void rocecc_qdisc_destroy(struct Qdisc *sch)
{
	struct rocecc_sch_data *q = qdisc_priv(sch);
	unsigned int b;

	qdisc_watchdog_cancel(&q->watchdog);
	__skb_queue_purge(&q->ctrl);
	for (b = 0; b < ROCECC_SCH_BANDS; b++)
		qdisc_put(q->band[b].q);	/* NULL if init failed */
}

/* --- classes: X:1 .. X:8 are priorities 0 .. 7 ------------------------------ */

static int rocecc_class_graft(struct Qdisc *sch, unsigned long cl,
			      struct Qdisc *new, struct Qdisc **old,
			      struct netlink_ext_ack *extack)
{
	struct rocecc_sch_data *q = qdisc_priv(sch);

	if (!new) {
		/* tc qdisc del ... parent X:n: back to the default pfifo */
		new = rocecc_qdisc_default(sch, cl - 1, extack);
		if (!new)
			new = &noop_qdisc;
	}
	*old = qdisc_replace(sch, new, &q->band[cl - 1].q);
	return 0;
}

static struct Qdisc *rocecc_class_leaf(struct Qdisc *sch, unsigned long cl)
{
	struct rocecc_sch_data *q = qdisc_priv(sch);

	return q->band[cl - 1].q;
}

static unsigned long rocecc_class_find(struct Qdisc *sch, u32 classid)
{
	unsigned long cl = TC_H_MIN(classid);

	return cl >= 1 && cl <= ROCECC_SCH_BANDS ? cl : 0;
}

static int rocecc_class_dump(struct Qdisc *sch, unsigned long cl,
			     struct sk_buff *skb, struct tcmsg *tcm)
{
	struct rocecc_sch_data *q = qdisc_priv(sch);

	tcm->tcm_handle |= TC_H_MIN(cl);
	tcm->tcm_info = q->band[cl - 1].q->handle;
	return 0;
}

static int rocecc_class_dump_stats(struct Qdisc *sch, unsigned long cl,
				   struct gnet_dump *d)
{
	struct rocecc_sch_data *q = qdisc_priv(sch);
	struct Qdisc *child = q->band[cl - 1].q;

	if (gnet_stats_copy_basic(d, child->cpu_bstats, &child->bstats,
				  true) < 0 ||
	    qdisc_qstats_copy(d, child) < 0)
		return -1;
	return 0;
}

static void rocecc_class_walk(struct Qdisc *sch, struct qdisc_walker *arg)
{
	unsigned int b;

	if (arg->stop)
		return;
	for (b = 0; b < ROCECC_SCH_BANDS; b++)
		if (!tc_qdisc_stats_dump(sch, b + 1, arg))
			break;
}

static const struct Qdisc_class_ops rocecc_class_ops = {
	.graft		= rocecc_class_graft,
	.leaf		= rocecc_class_leaf,
	.find		= rocecc_class_find,
	.walk		= rocecc_class_walk,
	.dump		= rocecc_class_dump,
	.dump_stats	= rocecc_class_dump_stats,
};

static struct Qdisc_ops rocecc_sch_ops __read_mostly = {
	.cl_ops		= &rocecc_class_ops,
	.id		= "rocecc",
	.priv_size	= sizeof(struct rocecc_sch_data),
	.enqueue	= rocecc_qdisc_enqueue,
	.dequeue	= rocecc_qdisc_dequeue,
	/*
	 * Only a parent qdisc peeks (never the device). Dequeue and keep the
	 * packet in sch->gso_skb: what peek returned is what the parent's
	 * qdisc_dequeue_peeked() gets, even if a pause came in between (that
	 * one packet is then sent during the pause).
	 */
	.peek		= qdisc_peek_dequeued,
	.init		= rocecc_qdisc_init,
	.reset		= rocecc_qdisc_reset,
	.destroy	= rocecc_qdisc_destroy,
	.change		= rocecc_qdisc_change,
	.owner		= THIS_MODULE,
};

/* --- the module's side --------------------------------------------------------- */

/*
 * Pause (@until_ns: absolute ktime_get_ns()) or resume (@until_ns 0)
 * priority @prio of @dev. Any context, under rcu_read_lock(); no lock.
 *
 * The qdisc is found as a driver finds it to wake a queue: the root qdisc
 * of a non-mq device is every tx queue's txq->qdisc. Why the pointer stays
 * usable until rcu_read_unlock() (checked in 6.1 net/sched/sch_generic.c
 * and sch_api.c): a root qdisc is replaced or deleted (qdisc_graft, also
 * on device close and unregister) only after dev_deactivate(), which
 * points every txq->qdisc at noop_qdisc, then synchronize_net() (waits for
 * us, so we either saw noop_qdisc or finished touching the old one,
 * __netif_schedule() included), then waits in some_qdisc_is_busy() until
 * the old qdisc is neither running nor __QDISC_STATE_SCHED (so the
 * net_tx_action our __netif_schedule() queued has run). Only then is it
 * destroyed, and freed after a further grace period (qdisc_free_rcu()).
 * The same argument makes netif_tx_wake_queue() safe.
 *
 * pause_ns accounting: a frame closes the interval [since, min(until,
 * now)] of the previous pause (also one that expired by itself), and an
 * XOFF opens [now, until_ns]; rocecc_sch_read() adds the open interval up
 * to now. Frames of one peer come one by one; should two frames for the
 * same priority of the same device be handled at once on two CPUs, one
 * interval may be counted twice or lost (the pause itself is then the
 * one written last, as it would be for two frames in a row).
 *
 * The watchdog (top of the file): an XOFF that comes while the priority
 * is paused continues its pause (same @from), and no pause ends later
 * than @from + pfc_pause_max_ms; during the hold-off after a release
 * XOFFs are not applied (not counted in pauses either).
 */
int rocecc_sch_pause(struct net_device *dev, unsigned int prio, u64 until_ns)
{
	struct rocecc_sch_band *b;
	struct rocecc_sch_data *q;
	u64 now, old, since, end, from;
	struct Qdisc *sch;
	bool wake;

	if (prio >= ROCECC_SCH_BANDS)
		return -EINVAL;
	sch = rcu_dereference(netdev_get_tx_queue(dev, 0)->qdisc);
	if (!sch || sch->ops != &rocecc_sch_ops)
		return -ENOENT;
	q = qdisc_priv(sch);
	b = &q->band[prio];

	now = ktime_get_ns();
	old = READ_ONCE(b->until);
	if (old && old <= now)
		rocecc_sch_wd_release(b, old);
	since = READ_ONCE(b->since);
	end = min(old, now);
	if (old && end > since && READ_ONCE(b->until))
		WRITE_ONCE(b->pause_ns, READ_ONCE(b->pause_ns) + end - since);

	if (until_ns && now < READ_ONCE(b->holdoff))
		return 0;		/* the watchdog's hold-off */
	if (until_ns) {
		atomic64_inc(&b->pauses);
		if (until_ns > now) {
			from = old > now ? READ_ONCE(b->from) : now;
			end = rocecc_pfc_pause_end(from, until_ns,
						   rocecc_sch_pause_max_ns());
			if (end < until_ns)
				set_bit(ROCECC_SCH_WD_CUT, &b->wd);
			else
				clear_bit(ROCECC_SCH_WD_CUT, &b->wd);
			WRITE_ONCE(b->from, from);
			WRITE_ONCE(b->since, now);
			WRITE_ONCE(b->until, end);
			until_ns = end;
		} else {
			WRITE_ONCE(b->until, 0);	/* over already */
		}
	} else {
		atomic64_inc(&b->resumes);
		clear_bit(ROCECC_SCH_WD_CUT, &b->wd);
		WRITE_ONCE(b->until, 0);
	}
	/*
	 * Was paused, and the pause now ends earlier: dequeue again now (it
	 * sends, or arms the watchdog at the new, earlier end).
	 */
	wake = old > now && (!until_ns || until_ns < old);
	if (wake)
		__netif_schedule(sch);
	return 0;
}

/* The rocecc root qdisc of @dev, under RCU; NULL if its root is another. */
static struct Qdisc *rocecc_sch_root_rcu(struct net_device *dev)
{
	struct Qdisc *sch = rcu_dereference(dev->qdisc);

	return sch && sch->ops == &rocecc_sch_ops ? sch : NULL;
}

/*
 * Per-priority state of @dev's rocecc root qdisc; RTNL or RCU (takes
 * rcu_read_lock() itself: a qdisc is freed by call_rcu()). Lockless, so a
 * snapshot that may be slightly inconsistent while packets flow.
 */
int rocecc_sch_read(struct net_device *dev, struct rocecc_sch_stats *out)
{
	struct rocecc_sch_data *q;
	struct Qdisc *sch;
	unsigned int p;
	u64 now;

	memset(out, 0, sizeof(*out));
	rcu_read_lock();
	sch = rocecc_sch_root_rcu(dev);
	if (!sch) {
		rcu_read_unlock();
		return -ENOENT;
	}
	q = qdisc_priv(sch);
	now = ktime_get_ns();
	for (p = 0; p < ROCECC_SCH_BANDS; p++) {
		struct rocecc_sch_band *b = &q->band[p];
		struct rocecc_sch_prio_stats *s = &out->prio[p];
		struct Qdisc *child = READ_ONCE(b->q);
		u64 until = READ_ONCE(b->until);
		u64 since = READ_ONCE(b->since);
		u32 qlen = 0, backlog = 0;

		if (child) {
			struct gnet_stats_basic_sync bs;

			qdisc_qstats_qlen_backlog(child, &qlen, &backlog);
			gnet_stats_basic_sync_init(&bs);
			gnet_stats_add_basic(&bs, child->cpu_bstats,
					     &child->bstats, true);
			s->tx_packets = u64_stats_read(&bs.packets);
			s->tx_bytes = u64_stats_read(&bs.bytes);
		}
		s->qlen = qlen;
		s->backlog = backlog;
		s->paused = until > now;
		s->pause_ns_total = READ_ONCE(b->pause_ns);
		if (until && min(until, now) > since)
			s->pause_ns_total += min(until, now) - since;
		s->pauses = atomic64_read(&b->pauses);
		s->resumes = atomic64_read(&b->resumes);
		s->released = atomic64_read(&b->released);
	}
	out->ctrl_qlen = skb_queue_len_lockless(&q->ctrl);
	rcu_read_unlock();
	return 0;
}

/*
 * The DSCP -> priority map (DCB APP table) of @dev's rocecc root qdisc,
 * if it has one; under RTNL. A rocecc qdisc created later starts from
 * rocecc_dscp_prio_default() again.
 */
void rocecc_sch_set_dscp_map(struct net_device *dev, const u8 map[64])
{
	struct rocecc_sch_data *q;
	struct Qdisc *sch;
	unsigned int i;

	ASSERT_RTNL();
	sch = rtnl_dereference(dev->qdisc);
	if (!sch || sch->ops != &rocecc_sch_ops)
		return;
	q = qdisc_priv(sch);
	sch_tree_lock(sch);
	for (i = 0; i < ARRAY_SIZE(q->dscp_prio); i++)
		q->dscp_prio[i] = map[i] & 7;
	sch_tree_unlock(sch);
}

/*
 * The child qdisc of priority @prio of @sch if @sch is a rocecc qdisc,
 * else NULL. Under RTNL (grafts happen under it).
 */
struct Qdisc *rocecc_sch_child(struct Qdisc *sch, unsigned int prio)
{
	struct rocecc_sch_data *q;

	if (!sch || sch->ops != &rocecc_sch_ops || prio >= ROCECC_SCH_BANDS)
		return NULL;
	q = qdisc_priv(sch);
	return READ_ONCE(q->band[prio].q);
}

int rocecc_sch_init(void)
{
	return register_qdisc(&rocecc_sch_ops);
}

void rocecc_sch_exit(void)
{
	/* No rocecc qdisc left: each holds a module reference. */
	unregister_qdisc(&rocecc_sch_ops);
}

/* "tc qdisc add ... rocecc" loads the module (after make dkms-install). */
ROCECC_MODULE_ALIAS_QDISC("rocecc");
