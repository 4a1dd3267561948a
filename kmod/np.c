// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc: the notification point. A CE-marked RoCE packet for a local QP
 * is answered with a CNP to the QP's remote QP, at most one per flow per
 * np_min_time_between_cnps (the decision is the shared core's,
 * rocecc_np_on_ce()). A CE mark inside the window makes a CNP pending; a
 * per-flow hrtimer (softirq mode, armed only while one is pending) sends
 * it when the window ends, as the paper does, even if the flow's packets
 * stop.
 *
 * The CNP is built by the shared rocecc_cnp_build() (complete IP packet
 * with a valid ICRC, Not-ECT, DSCP np_cnp_dscp), routed in init_net from
 * the marked packet's destination address to its source with the device
 * it arrived on as the output interface, given skb->priority =
 * np_cnp_prio, and sent with ip_local_out()/ip6_local_out(). That is
 * safe from softirq (netfilter's REJECT target sends its resets the same
 * way); the hooks see the CNP on its way out and leave it alone. The
 * sender's flow lock is never held while sending.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <net/dst.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/route.h>
#include <rocecc/cnp.h>

#include "rocecc.h"
#include "dp.h"

static void rocecc_np_addr_of(const struct rocecc_flow *f,
			      struct rocecc_np_addr *a)
{
	a->family = f->laddr_family;
	a->sport = f->cnp_sport;
	memcpy(a->laddr, f->laddr, 16);
	memcpy(a->raddr, f->key.raddr, 16);
}

/* Route a CNP from a->laddr to a->raddr out of @ifindex, in init_net. */
static struct dst_entry *rocecc_np_route(const struct rocecc_np_addr *a,
					 int ifindex)
{
	struct dst_entry *dst;
	struct flowi6 fl6;
	int err;

	if (a->family == ROCECC_AF_INET) {
		struct flowi4 fl4;
		struct rtable *rt;

		memset(&fl4, 0, sizeof(fl4));
		fl4.flowi4_oif = ifindex;
		fl4.flowi4_proto = IPPROTO_UDP;
		memcpy(&fl4.daddr, a->raddr + 12, 4);
		memcpy(&fl4.saddr, a->laddr + 12, 4);
		fl4.fl4_sport = htons(a->sport);
		fl4.fl4_dport = htons(ROCECC_UDP_PORT);
		rt = ip_route_output_key(&init_net, &fl4);
		return IS_ERR(rt) ? ERR_CAST(rt) : &rt->dst;
	}

	memset(&fl6, 0, sizeof(fl6));
	fl6.flowi6_oif = ifindex;
	fl6.flowi6_proto = IPPROTO_UDP;
	memcpy(&fl6.daddr, a->raddr, 16);
	memcpy(&fl6.saddr, a->laddr, 16);
	fl6.fl6_sport = htons(a->sport);
	fl6.fl6_dport = htons(ROCECC_UDP_PORT);
	dst = ip6_route_output(&init_net, NULL, &fl6);
	err = dst->error;
	if (err) {
		dst_release(dst);
		return ERR_PTR(err);
	}
	return dst;
}

/*
 * Build and send one CNP to remote QP @rqpn. Any context (BHs may be on).
 * Returns 0 if IP took it.
 */
int rocecc_np_send_cnp(struct rocecc_dev *rdev, const struct rocecc_params *p,
		       const struct rocecc_np_addr *a, u32 rqpn)
{
	struct rocecc_cnp_params cp;
	struct dst_entry *dst;
	struct sk_buff *skb;
	int len, hlen, err;

	memset(&cp, 0, sizeof(cp));
	memcpy(cp.saddr, a->laddr, 16);
	memcpy(cp.daddr, a->raddr, 16);
	cp.family = a->family;
	cp.dest_qp = rqpn;
	cp.sport = a->sport;
	cp.dscp = p->v[ROCECC_PARAM_NP_CNP_DSCP];
	cp.prio = p->v[ROCECC_PARAM_NP_CNP_PRIO];
	cp.ttl = ROCECC_CNP_DEFAULT_TTL;
	len = a->family == ROCECC_AF_INET ? ROCECC_CNP_LEN_IPV4 :
					    ROCECC_CNP_LEN_IPV6;

	dst = rocecc_np_route(a, rdev->ifindex);
	if (IS_ERR(dst)) {
		err = PTR_ERR(dst);
		goto fail;
	}
	hlen = LL_RESERVED_SPACE(dst->dev);
	/* One CNP, handed to IP below, which frees it. */
	skb = alloc_skb(hlen + len + dst->dev->needed_tailroom, GFP_ATOMIC);
	if (!skb) {
		dst_release(dst);
		err = -ENOMEM;
		goto fail;
	}
	skb_reserve(skb, hlen);
	skb_reset_network_header(skb);
	if (rocecc_cnp_build(&cp, skb_put(skb, len), len) != len) {
		kfree_skb(skb);
		dst_release(dst);
		err = -EINVAL;
		goto fail;
	}
	skb_set_transport_header(skb, a->family == ROCECC_AF_INET ?
				 ROCECC_IPV4_HLEN : ROCECC_IPV6_HLEN);
	skb->priority = cp.prio;
	skb_dst_set(skb, dst);

	local_bh_disable();
	if (a->family == ROCECC_AF_INET) {
		skb->protocol = htons(ETH_P_IP);
		err = ip_local_out(&init_net, NULL, skb);
	} else {
		skb->protocol = htons(ETH_P_IPV6);
		err = ip6_local_out(&init_net, NULL, skb);
	}
	local_bh_enable();
	err = net_xmit_eval(err);
	if (err)
		goto fail;
	atomic64_inc(&rocecc_dp_objs.cnp_tx);
	rocecc_ctr_inc(rdev, ROCECC_CTR_NP_CNP_SENT);
	return 0;
fail:
	atomic64_inc(&rocecc_dp_objs.cnp_tx_err);
	return err;
}

static void rocecc_np_sent(struct rocecc_flow *f, int err)
{
	if (!err)
		return;
	spin_lock_bh(&f->lock);
	f->cnp_tx_errors++;
	spin_unlock_bh(&f->lock);
}

/* Arm the end-of-window timer if a CNP is pending. Caller holds f->lock. */
static void rocecc_np_arm(struct rocecc_flow *f, const struct rocecc_params *p)
{
	u64 due;

	if (f->dead || !f->np.pending || hrtimer_is_queued(&f->np_timer))
		return;
	due = rocecc_np_next_due(&f->np, p);
	if (due == ROCECC_NP_NEVER)
		return;
	hrtimer_start(&f->np_timer, ns_to_ktime(due), HRTIMER_MODE_ABS_SOFT);
}

/*
 * A CE-marked packet of @f (the flow of the local QP it was addressed to)
 * arrived at @now; @a says where its CNP goes. Any context. Returns true
 * if a CNP went out for it.
 */
bool rocecc_np_ce(struct rocecc_dev *rdev, const struct rocecc_params *p,
		  struct rocecc_flow *f, const struct rocecc_np_addr *a,
		  u64 now)
{
	enum rocecc_np_action act;

	int err;

	spin_lock_bh(&f->lock);
	if (f->dead) {
		spin_unlock_bh(&f->lock);
		return false;
	}
	/* Remembered for a CNP the timer sends later. */
	f->laddr_family = a->family;
	f->cnp_sport = a->sport;
	memcpy(f->laddr, a->laddr, 16);
	act = rocecc_np_on_ce(&f->np, p, now);
	if (act == ROCECC_NP_SEND_CNP)
		f->last_cnp_tx = now;
	else
		rocecc_np_arm(f, p);
	spin_unlock_bh(&f->lock);

	if (act != ROCECC_NP_SEND_CNP)
		return false;
	err = rocecc_np_send_cnp(rdev, p, a, f->key.rqpn);
	rocecc_np_sent(f, err);
	return !err;
}

/* The window of a pending CNP ended (softirq). */
static enum hrtimer_restart rocecc_np_timer_fn(struct hrtimer *t)
{
	struct rocecc_flow *f = container_of(t, struct rocecc_flow, np_timer);
	enum rocecc_np_action act = ROCECC_NP_NONE;
	const struct rocecc_params *p;
	struct rocecc_np_addr a;
	struct rocecc_dev *rdev;
	u64 now;

	rcu_read_lock();
	rdev = rocecc_dev_lookup_rcu(f->key.ifindex);
	if (!rdev || rdev != f->owner)
		goto out;
	p = rocecc_dev_params_rcu(rdev);
	now = rocecc_now();
	spin_lock(&f->lock);
	if (!f->dead) {
		act = rocecc_np_poll(&f->np, p, now);
		if (act == ROCECC_NP_SEND_CNP) {
			f->last_cnp_tx = now;
			rocecc_np_addr_of(f, &a);
		} else {
			/* Early (the window grew meanwhile): again later. */
			rocecc_np_arm(f, p);
		}
	}
	spin_unlock(&f->lock);
	if (act == ROCECC_NP_SEND_CNP)
		rocecc_np_sent(f, rocecc_np_send_cnp(rdev, p, &a, f->key.rqpn));
out:
	rcu_read_unlock();
	/* Never restarted from here: only rocecc_np_arm() arms it. */
	return HRTIMER_NORESTART;
}

void rocecc_np_timer_init(struct rocecc_flow *f)
{
	hrtimer_init(&f->np_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	f->np_timer.function = rocecc_np_timer_fn;
}
