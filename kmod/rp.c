// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc: the reaction point. Byte counting and rate events go to the
 * shared DCQCN core (rocecc/dcqcn.h); this file turns its rate into
 * departure times and keeps them inside the QP's timeout budget.
 *
 * Pacing (earliest departure time, EDT)
 * -------------------------------------
 * The arithmetic is shared (rocecc/pacing.h): a packet handed to IP at
 * `now` gets a departure time from its flow's next_tx, capped by the QP's
 * timeout budget around its last AckReq departure and by
 * pacing_max_delay_us, never before the flow's previous packet. Here, if
 * that time is after `now`, the skb gets skb->tstamp = start as a
 * CLOCK_MONOTONIC stamp (rocecc_skb_set_edt(), what fq compares with
 * ktime_get_ns()), and the fq qdisc holds it until then. Nothing is ever
 * dropped for pacing: rxe stops handing over packets when 65 skbs of a QP
 * are in flight (freed only when they leave the qdisc), which is the
 * backpressure. A drop would make 6.1's rxe roll back and retry at once,
 * a busy loop, and fails the work request and the QP on 6.12, whose rxe
 * no longer retries a failed ip_local_out().
 *
 * The budget
 * ----------
 * pacing_budget_pct (20) of the QP's timeout as rxe's jiffies timer really
 * applies it (rocecc_pace_budget_ns() at this kernel's HZ), at most
 * pacing_max_delay_us; the timeout comes from ib_query_qp() through the QP
 * cache, and until it is known pacing_default_budget_us applies (8 ms:
 * safe for timeout exponents of 12 and up). pacing_max_delay_us (1 s)
 * keeps departure times inside fq's horizon (10 s by default; attach
 * checks it). The rest of the timeout is for what pacing does not see:
 * the switch queue the ACK-requesting packet meets (Kmax 80 KB is 32 ms
 * at the testbed's 20 Mb/s), the return path and a late softirq (a
 * starved TCG vCPU stalls for tens of ms); with 50 % (30 ms of timeout
 * 14's 60 ms) 2-to-1 incasts retransmitted 14-75 times a run.
 *
 * With pacing_ack_req (on) the hook sets BTH AckReq on an RC request
 * after which the next packet could only leave past the budget
 * (rocecc/pacing.h, "Asking for ACKs"; counted: pacing_ackreq): rxe's
 * responder acknowledges any packet that asks, and that ACK re-arms the
 * sender's timer. So a QP is paced down to one packet per budget (1 KB
 * per 12 ms, 0.7 Mb/s, at timeout 14), whatever its message size. Below
 * that, or without asking, the cap binds and the flow runs faster than
 * its DCQCN rate (counted: pacing_capped): the timeout wins over the
 * rate; without asking that happens below one message per budget (16 KB
 * messages: 11 Mb/s).
 *
 * READ responses are data the responder sends; they belong to the flow
 * (remote = the requester's QP), their bytes count for the byte counter
 * and they are ECT-marked, but they are not delayed: rxe's responder has
 * no in-flight limit, so delayed responses would pile up in fq until its
 * flow_limit drops them, and rxe turns a failed transmit of a response
 * into an RNR NAK. Their rate is therefore not enforced (unpaced_pkts).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>

#include "rocecc.h"
#include "dp.h"

/*
 * Take the budget of the flow's local QP from its resolved entry @e, if @e
 * is really the QP of this flow. Caller holds f->lock.
 */
void rocecc_rp_set_budget(struct rocecc_flow *f, u32 lqpn,
			  const struct rocecc_qp *e)
{
	if (e->rqpn != f->key.rqpn || memcmp(e->raddr, f->key.raddr, 16))
		return;
	f->lqpn = lqpn;
	f->qp_timeout = e->timeout;
	f->pace.budget_ns = e->budget_ns;
	f->budget_known = true;
}

/*
 * A data packet of @f is handed to IP at @now. Counts it, runs the RP,
 * and returns its departure time, or 0 to send it at once. *@ask: the
 * caller is to set BTH AckReq on the packet (only if @tx->may_ask).
 */
u64 rocecc_rp_tx(struct rocecc_dev *rdev, const struct rocecc_params *p,
		 struct rocecc_flow *f, const struct rocecc_tx *tx, u64 now,
		 bool *ask)
{
	u32 line = READ_ONCE(rdev->dp.line_rate_kbps);
	bool pace = tx->pace && READ_ONCE(rdev->dp.pace_ok);
	struct rocecc_qp *e = NULL;
	u64 max_delay = (u64)READ_ONCE(rocecc_pacing_max_delay_us) *
			NSEC_PER_USEC;
	u64 start, depart = 0, inc;
	u32 flags = 0;

	/* The QP's timeout, once per QP: a lockless peek, then the cache. */
	if (tx->lqpn && (READ_ONCE(f->lqpn) != tx->lqpn ||
			 !READ_ONCE(f->budget_known))) {
		e = rocecc_qp_lookup(rdev, tx->lqpn, true);
		if (e && !rocecc_qp_resolved(e))
			e = NULL;
	}

	spin_lock_bh(&f->lock);
	if (tx->lqpn && f->lqpn != tx->lqpn) {
		WRITE_ONCE(f->lqpn, tx->lqpn);
		WRITE_ONCE(f->budget_known, false);
		f->pace.budget_ns =
			(u64)READ_ONCE(rocecc_pacing_default_budget_us) *
			NSEC_PER_USEC;
	}
	if (e)
		rocecc_rp_set_budget(f, tx->lqpn, e);
	rocecc_flow_sync_params(f, p, line);

	inc = f->rp.inc_timer + f->rp.inc_byte;
	rocecc_rp_on_send(&f->rp, p, now, tx->len);
	if (f->rp.inc_timer + f->rp.inc_byte != inc)
		f->last_increase = now;
	f->bytes += tx->len;
	f->pkts++;
	if (!tx->pace)
		f->unpaced_pkts++;

	if (pace) {
		start = rocecc_pace(&f->pace, &f->rp, now, tx->len,
				    tx->ack_req, tx->may_ask, max_delay, &flags);
		if (flags & ROCECC_PACE_CAPPED)
			f->pacing_capped++;
		if (flags & ROCECC_PACE_ACKREQ)
			f->pacing_ackreq++;
		if (flags & ROCECC_PACE_DELAYED) {
			depart = start;
			f->pacing_delayed++;
		}
	}
	spin_unlock_bh(&f->lock);

	if (flags & ROCECC_PACE_DELAYED)
		rocecc_ctr_inc(rdev, ROCECC_CTR_PACING_DELAYED);
	if (flags & ROCECC_PACE_CAPPED)
		rocecc_ctr_inc(rdev, ROCECC_CTR_PACING_CAPPED);
	if (flags & ROCECC_PACE_ACKREQ)
		rocecc_ctr_inc(rdev, ROCECC_CTR_PACING_ACKREQ);
	*ask = flags & ROCECC_PACE_ACKREQ;
	return depart;
}

/* A CNP for @f arrived at @now. */
void rocecc_rp_cnp(struct rocecc_dev *rdev, const struct rocecc_params *p,
		   struct rocecc_flow *f, u64 now)
{
	u32 line = READ_ONCE(rdev->dp.line_rate_kbps);
	bool handled;
	u64 inc;

	spin_lock_bh(&f->lock);
	rocecc_flow_sync_params(f, p, line);
	inc = f->rp.inc_timer + f->rp.inc_byte;
	handled = rocecc_rp_on_cnp(&f->rp, p, now);
	if (f->rp.inc_timer + f->rp.inc_byte != inc)
		f->last_increase = now;
	f->last_cnp_rx = now;
	spin_unlock_bh(&f->lock);

	rocecc_ctr_inc(rdev, handled ? ROCECC_CTR_RP_CNP_HANDLED :
				       ROCECC_CTR_RP_CNP_IGNORED);
}

/*
 * --- the fq check -----------------------------------------------------------
 * The rules and the words (ROCECC_PACE_MSG_*, ROCECC_FQ_FLOW_LIMIT_MIN) are
 * rocecc/pacing.h's, shared with rocecc doctor.
 */

/*
 * The kind of a qdisc ("fq", "mq", ...) and a test of it. Macros on
 * whatever rcu_dereference() or rtnl_dereference() returned.
 */
#define rocecc_qdisc_kind(q) ({					\
	__auto_type __q = (q);						\
	__q && __q->ops ? __q->ops->id : "none";			\
})
#define rocecc_qdisc_is(q, k)	(!strcmp(rocecc_qdisc_kind(q), (k)))

/*
 * The qdisc of transmit queue @txq of @nd, or its root qdisc for @txq < 0.
 * Under RTNL.
 */
#define rocecc_qdisc_rtnl(nd, txq) ({					\
	struct net_device *__nd = (nd);					\
	int __txq = (txq);						\
	__txq < 0 ? rtnl_dereference(__nd->qdisc) :			\
	rtnl_dereference(netdev_get_tx_queue(__nd, __txq)->qdisc_sleeping); \
})

/*
 * Messages must outlive the request (the 6.1 extack keeps a pointer), so
 * they are formatted into a static buffer; attach runs under RTNL and
 * rocecc_lock, one at a time.
 */
static char rocecc_pace_msg[256];

static void rocecc_pace_msg_set(struct netlink_ext_ack *extack)
{
	if (extack)
		extack->_msg = rocecc_pace_msg;	/* outlives the request */
}

/* fq @q's own view of its options, through its dump op (RTNL held). */
static int rocecc_fq_options(struct Qdisc *q, u32 *horizon_us, u8 *hdrop,
			     u32 *flow_limit)
{
	struct nlattr *tb[TCA_FQ_MAX + 1];
	struct sk_buff *skb;
	struct nlattr *opt;
	int err;

	/* A scratch message for one qdisc's options, freed below. */
	skb = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!skb)
		return -ENOMEM;
	err = q->ops->dump ? q->ops->dump(q, skb) : -EOPNOTSUPP;
	if (err < 0 || skb->len < NLA_HDRLEN)
		goto out;
	opt = (struct nlattr *)skb->data;
	if (nla_type(opt) != TCA_OPTIONS || nla_len(opt) < 0 ||
	    nla_total_size(nla_len(opt)) > skb->len + NLA_ALIGNTO) {
		err = -EINVAL;
		goto out;
	}
	err = nla_parse_nested_deprecated(tb, TCA_FQ_MAX, opt, NULL, NULL);
	if (err)
		goto out;
	/* fq's defaults (10 s, drop, 100) when an option is absent */
	*horizon_us = tb[TCA_FQ_HORIZON] ? nla_get_u32(tb[TCA_FQ_HORIZON]) :
		      10 * USEC_PER_SEC;
	*hdrop = tb[TCA_FQ_HORIZON_DROP] ?
		 nla_get_u8(tb[TCA_FQ_HORIZON_DROP]) : 1;
	*flow_limit = tb[TCA_FQ_FLOW_PLIMIT] ?
		      nla_get_u32(tb[TCA_FQ_FLOW_PLIMIT]) : 100;
	err = 0;
out:
	kfree_skb(skb);
	return err;
}

static int rocecc_fq_check_one(struct net_device *nd, struct Qdisc *q,
			       bool *low_limit, struct netlink_ext_ack *extack)
{
	u32 horizon, limit, need = READ_ONCE(rocecc_pacing_max_delay_us);
	u8 hdrop;
	int err;

	err = rocecc_fq_options(q, &horizon, &hdrop, &limit);
	if (err) {
		snprintf(rocecc_pace_msg, sizeof(rocecc_pace_msg),
			 "rocecc: cannot read the fq options of %s (%d)",
			 nd->name, err);
		rocecc_pace_msg_set(extack);
		return err;
	}
	if (hdrop && horizon < need) {
		snprintf(rocecc_pace_msg, sizeof(rocecc_pace_msg),
			 "rocecc: " ROCECC_PACE_MSG_HORIZON, nd->name, horizon,
			 need, nd->name);
		rocecc_pace_msg_set(extack);
		return -EINVAL;
	}
	if (limit < ROCECC_FQ_FLOW_LIMIT_MIN)
		*low_limit = true;
	return 0;
}

/*
 * Under RCU and RTNL: NULL if @nd paces (fq, mq of fq, or rocecc's PFC
 * qdisc with fq under every priority), else the wrong kind.
 */
static const char *rocecc_pace_bad_kind(struct net_device *nd)
{
	__auto_type root = rcu_dereference(nd->qdisc);
	int i;

	if (rocecc_qdisc_is(root, "fq"))
		return NULL;
	if (rocecc_qdisc_is(root, "rocecc")) {
		for (i = 0; i < ROCECC_PFC_PRIOS; i++) {
			struct Qdisc *q = rocecc_sch_child(root, i);

			if (!rocecc_qdisc_is(q, "fq"))
				return rocecc_qdisc_kind(q);
		}
		return NULL;
	}
	if (!rocecc_qdisc_is(root, "mq"))
		return rocecc_qdisc_kind(root);
	for (i = 0; i < nd->real_num_tx_queues; i++) {
		__auto_type q =
			rcu_dereference(netdev_get_tx_queue(nd, i)->qdisc_sleeping);

		if (!rocecc_qdisc_is(q, "fq"))
			return rocecc_qdisc_kind(q);
	}
	return NULL;
}

/*
 * Is the root qdisc of @nd fq, mq with fq on every queue, or rocecc's PFC
 * qdisc (sch.c) with fq under every priority? With @strict
 * (attach, RTNL held) also check fq's options through its dump op: its
 * horizon must not drop what pacing may hold (pacing_max_delay_us), and a
 * flow_limit below ROCECC_FQ_FLOW_LIMIT_MIN gets a warning. Errors carry
 * an extack message that says what to run. Without @strict (the periodic
 * check) only the kinds are compared, under RCU.
 */
int rocecc_pace_check(struct net_device *nd, bool strict,
		      struct netlink_ext_ack *extack)
{
	const char *kind;
	bool low_limit = false;
	struct Qdisc *root;
	int i, err = 0;

	rcu_read_lock();
	kind = rocecc_pace_bad_kind(nd);
	if (kind) {
		err = -EOPNOTSUPP;
		snprintf(rocecc_pace_msg, sizeof(rocecc_pace_msg),
			 "rocecc: " ROCECC_PACE_MSG_KIND, nd->name, kind,
			 nd->name);
	}
	rcu_read_unlock();
	if (err) {
		if (strict)
			rocecc_pace_msg_set(extack);
		return err;
	}
	if (!strict)
		return 0;

	ASSERT_RTNL();
	root = rocecc_qdisc_rtnl(nd, -1);
	if (rocecc_qdisc_is(root, "mq")) {
		for (i = 0; i < nd->real_num_tx_queues && !err; i++)
			err = rocecc_fq_check_one(nd, rocecc_qdisc_rtnl(nd, i),
						  &low_limit, extack);
	} else if (rocecc_qdisc_is(root, "rocecc")) {
		for (i = 0; i < ROCECC_PFC_PRIOS && !err; i++)
			err = rocecc_fq_check_one(nd, rocecc_sch_child(root, i),
						  &low_limit, extack);
	} else {
		err = rocecc_fq_check_one(nd, root, &low_limit, extack);
	}
	if (!err && low_limit) {
		/* A warning: attach succeeds, the CLI prints the message. */
		snprintf(rocecc_pace_msg, sizeof(rocecc_pace_msg),
			 "rocecc: " ROCECC_PACE_MSG_LIMIT, nd->name,
			 ROCECC_FQ_FLOW_LIMIT_MIN, nd->name);
		rocecc_pace_msg_set(extack);
		pr_notice("%s\n", rocecc_pace_msg + strlen("rocecc: "));
	}
	return err;
}
