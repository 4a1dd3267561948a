// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc: does a device pace? The departure times rp.c stamps on packets
 * mean something only to the fq qdisc, so attach checks that the root
 * qdisc is fq, mq with fq on every queue, or rocecc's PFC qdisc (sch.c)
 * with fq under every priority, and that fq's horizon does not drop what
 * pacing may hold (pacing_max_delay_us); the maintenance work (dp.c)
 * checks the kinds again every round and stops stamping where fq is
 * gone.
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
