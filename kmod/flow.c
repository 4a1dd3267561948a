// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc: the flow table (see dp.h for what a flow is).
 *
 * A fixed power-of-two array of RCU hlist heads (2^flow_hash_bits, chosen
 * at load), hashed with jhash over the key and a random seed. Lookups walk
 * a bucket under RCU without a lock; inserts and removals take one
 * spinlock (inserts happen once per flow, removals from the maintenance
 * work and detach). The table holds at most flow_max flows in all; a new
 * flow beyond that is not tracked and counted (flow_table_full): its
 * packets pass unpaced and unmarked by the RP, and its CE marks go
 * unanswered.
 *
 * Removal (maintenance work, detach, unload; process context) unhashes
 * the flow and marks it dead under its lock, so that nobody arms its NP
 * timer again, then, with no lock held, cancels the timer (waiting for a
 * running callback) and frees the flow after a grace period (lookups may
 * still hold it).
 *
 * Events (multicast group "events", only while somebody listens):
 * FLOW_CREATED when a flow is inserted, FLOW_EXPIRED with its final
 * counters when the maintenance work removes it for idleness. None for
 * flows removed by detach, a device's unregistration or unload (their
 * DEV_DETACHED / DEV_GONE says it), nor for flows refused at flow_max (the
 * counter says it). FLOW_CREATED is built in the packet path, in softirq:
 * it is small (ifindex and key, 40 bytes of attributes; no counters, all
 * zero then), allocated with GFP_ATOMIC before the table lock is taken,
 * and multicast under the table lock right after the insert, so that it
 * precedes the flow's removal and thus its FLOW_EXPIRED. That costs one
 * skb and one netlink_broadcast() per new flow while a listener exists,
 * as conntrack's NEW events do; deferring it to a work item would need a
 * queue in every flow, a lifetime rule against the reaper and its own
 * ordering against FLOW_EXPIRED, to gain only the local QPN (which the
 * hook learns just after the insert). An event that cannot be allocated
 * or delivered is lost; the packet never notices.
 *
 * Memory: struct rocecc_flow is 464 bytes on x86-64 (its own slab cache,
 * object size printed at load), of which the RP state is 120, the NP state
 * 40 and the hrtimer 64; the bucket array is 8 bytes a bucket (8 KiB by
 * default). A QP cache entry (qp.c) is 184 bytes (kmalloc-192).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jhash.h>
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "kcompat.h"
#include "rocecc.h"
#include "dp.h"

static unsigned int rocecc_flow_hash_bits = 10;
module_param_named(flow_hash_bits, rocecc_flow_hash_bits, uint, 0444);
MODULE_PARM_DESC(flow_hash_bits,
		 "log2 of the flow table's bucket count, 4..20 (default 10)");

static struct hlist_head *rocecc_flow_tbl;
static unsigned int rocecc_flow_mask;
static u32 rocecc_flow_seed;
static DEFINE_SPINLOCK(rocecc_flow_lock);	/* inserts and removals */
/*
 * Bumped under rocecc_flow_lock by every insert and removal, read without
 * it by dumps: a dump whose parts saw different values may have skipped
 * or repeated flows, and says so (NLM_F_DUMP_INTR, rocecc_flow_dump()).
 */
static unsigned int rocecc_flow_gen;
static atomic_t rocecc_flow_total = ATOMIC_INIT(0);
static struct kmem_cache *rocecc_flow_cache;

unsigned int rocecc_flow_count(void)
{
	return atomic_read(&rocecc_flow_total);
}

static u32 rocecc_flow_hash(const struct rocecc_flow_key *key)
{
	BUILD_BUG_ON(sizeof(*key) % sizeof(u32));
	return jhash2((const u32 *)key, sizeof(*key) / sizeof(u32),
		      rocecc_flow_seed) & rocecc_flow_mask;
}

/* Under rcu_read_lock() (or the table lock). */
struct rocecc_flow *rocecc_flow_lookup(const struct rocecc_flow_key *key,
				       const struct rocecc_dev *owner)
{
	struct hlist_head *head = &rocecc_flow_tbl[rocecc_flow_hash(key)];
	struct rocecc_flow *f;

	hlist_for_each_entry_rcu(f, head, node,
				 lockdep_is_held(&rocecc_flow_lock)) {
		if (f->owner == owner && !memcmp(&f->key, key, sizeof(*key)))
			return f;
	}
	return NULL;
}

/*
 * Bring the RP back into [floor, ceiling] if rp_max_rate, rp_min_rate,
 * rp_rate_divisor or the line rate changed since the flow last looked.
 * Caller holds f->lock.
 */
void rocecc_flow_sync_params(struct rocecc_flow *f,
			     const struct rocecc_params *p, u32 line_kbps)
{
	u32 mx = p->v[ROCECC_PARAM_RP_MAX_RATE];
	u32 mn = p->v[ROCECC_PARAM_RP_MIN_RATE];
	u32 div = p->v[ROCECC_PARAM_RP_RATE_DIVISOR];

	if (likely(f->clamp_max == mx && f->clamp_min == mn &&
		   f->clamp_div == div && f->clamp_line == line_kbps))
		return;
	f->clamp_max = mx;
	f->clamp_min = mn;
	f->clamp_div = div;
	f->clamp_line = line_kbps;
	rocecc_rp_reclamp(&f->rp, p, line_kbps);
}

static void rocecc_flow_announce_expired(struct rocecc_flow *list);
static struct sk_buff *rocecc_flow_created_msg(const struct rocecc_flow_key *key);

static struct rocecc_flow *rocecc_flow_alloc(struct rocecc_dev *rdev,
					     const struct rocecc_flow_key *key,
					     const struct rocecc_params *p)
{
	u32 line = READ_ONCE(rdev->dp.line_rate_kbps);
	struct rocecc_flow *f;

	/* One object per flow, any context: the datapath creates them. */
	f = kmem_cache_zalloc(rocecc_flow_cache, GFP_ATOMIC);
	if (!f)
		return NULL;
	atomic64_inc(&rocecc_dp_objs.flows_alloc);
	f->key = *key;
	f->owner = rdev;
	f->last_used = jiffies;
	spin_lock_init(&f->lock);
	rocecc_rp_init(&f->rp, p, line);
	f->clamp_max = p->v[ROCECC_PARAM_RP_MAX_RATE];
	f->clamp_min = p->v[ROCECC_PARAM_RP_MIN_RATE];
	f->clamp_div = p->v[ROCECC_PARAM_RP_RATE_DIVISOR];
	f->clamp_line = line;
	rocecc_np_init(&f->np);
	rocecc_np_timer_init(f);
	f->pace.budget_ns = (u64)READ_ONCE(rocecc_pacing_default_budget_us) *
			    NSEC_PER_USEC;
	f->created = rocecc_now();
	return f;
}

static void rocecc_flow_free_rcu(struct rcu_head *head)
{
	struct rocecc_flow *f = container_of(head, struct rocecc_flow, rcu);

	kmem_cache_free(rocecc_flow_cache, f);
	atomic64_inc(&rocecc_dp_objs.flows_free);
}

/*
 * The flow of @key on @rdev, created if absent (and the table has room).
 * Under rcu_read_lock(), any context. NULL if the table is full or memory
 * is short. A new flow is announced (FLOW_CREATED, see the top).
 */
struct rocecc_flow *rocecc_flow_get(struct rocecc_dev *rdev,
				    const struct rocecc_flow_key *key,
				    const struct rocecc_params *p)
{
	struct rocecc_flow *f, *old;
	struct sk_buff *ev = NULL;

	f = rocecc_flow_lookup(key, rdev);
	if (likely(f))
		return f;

	if (atomic_inc_return(&rocecc_flow_total) >
	    READ_ONCE(rocecc_flow_max)) {
		atomic_dec(&rocecc_flow_total);
		rocecc_ctr_inc(rdev, ROCECC_CTR_FLOW_TABLE_FULL);
		return NULL;
	}
	f = rocecc_flow_alloc(rdev, key, p);
	if (!f) {
		atomic_dec(&rocecc_flow_total);
		return NULL;
	}
	if (rocecc_genl_flow_event_wanted())
		ev = rocecc_flow_created_msg(key);

	spin_lock_bh(&rocecc_flow_lock);
	/* Another CPU may have inserted it meanwhile. */
	old = rocecc_flow_lookup(key, rdev);
	if (old) {
		spin_unlock_bh(&rocecc_flow_lock);
		atomic_dec(&rocecc_flow_total);
		kmem_cache_free(rocecc_flow_cache, f);
		atomic64_inc(&rocecc_dp_objs.flows_free);
		nlmsg_free(ev);
		return old;
	}
	hlist_add_head_rcu(&f->node,
			   &rocecc_flow_tbl[rocecc_flow_hash(key)]);
	WRITE_ONCE(rocecc_flow_gen, rocecc_flow_gen + 1);
	/*
	 * Announced before anybody can remove it (removals take this lock),
	 * unless detach has unpublished @rdev already: the flow is a
	 * straggler the maintenance work removes without an event.
	 */
	if (ev) {
		if (rocecc_dev_lookup_rcu(key->ifindex) == rdev)
			rocecc_genl_flow_event_send(ev);
		else
			nlmsg_free(ev);
	}
	spin_unlock_bh(&rocecc_flow_lock);
	rocecc_ctr_inc(rdev, ROCECC_CTR_FLOWS);
	return f;
}

/*
 * The flow of resolved QP entry @e on @rdev (its remote QP and address):
 * found, or with @create created, and given the QP's pacing budget if it
 * does not have it yet, or with @fresh in any case (the resolver's new
 * answer, which may carry a new timeout). What the CE path, the CNP path
 * and the resolver share. Under rcu_read_lock(), any context. NULL if
 * there is no such flow, or no room for it.
 */
struct rocecc_flow *rocecc_flow_of_qp(struct rocecc_dev *rdev,
				      const struct rocecc_qp *e,
				      const struct rocecc_params *p,
				      bool create, bool fresh)
{
	struct rocecc_flow_key key;
	struct rocecc_flow *f;

	memset(&key, 0, sizeof(key));
	memcpy(key.raddr, e->raddr, 16);
	key.rqpn = e->rqpn;
	key.ifindex = rdev->ifindex;
	f = create ? rocecc_flow_get(rdev, &key, p) :
		     rocecc_flow_lookup(&key, rdev);
	if (f && (fresh || !READ_ONCE(f->budget_known))) {
		spin_lock_bh(&f->lock);
		rocecc_rp_set_budget(f, e->lqpn, e);
		spin_unlock_bh(&f->lock);
	}
	return f;
}

/*
 * Unhash @f and put it on the list @reap. Caller holds rocecc_flow_lock
 * (BHs off). Marked dead under its lock first, so that nobody arms its
 * timer again.
 */
static void rocecc_flow_unhash(struct rocecc_flow *f, struct rocecc_flow **reap)
{
	struct rocecc_dev *rdev;

	spin_lock(&f->lock);
	f->dead = true;
	spin_unlock(&f->lock);
	hlist_del_rcu(&f->node);
	WRITE_ONCE(rocecc_flow_gen, rocecc_flow_gen + 1);
	atomic_dec(&rocecc_flow_total);

	rcu_read_lock();
	rdev = rocecc_dev_lookup_rcu(f->key.ifindex);
	if (rdev && rdev == f->owner)
		rocecc_ctr_dec(rdev, ROCECC_CTR_FLOWS);
	rcu_read_unlock();
	f->reap_next = *reap;
	*reap = f;
}

/*
 * Free unhashed flows: wait for a running timer callback (it cannot rearm
 * a dead flow), announce them if they @expired (FLOW_EXPIRED), then free
 * them after a grace period (RCU readers may still see them). Process
 * context, no locks held: the callback takes the flow lock.
 */
static void rocecc_flow_reap(struct rocecc_flow *reap, bool expired)
{
	struct rocecc_flow *f;

	for (f = reap; f; f = f->reap_next)
		hrtimer_cancel(&f->np_timer);
	if (expired && reap)
		rocecc_flow_announce_expired(reap);
	while (reap) {
		f = reap;
		reap = f->reap_next;
		call_rcu(&f->rcu, rocecc_flow_free_rcu);
	}
}

/* Remove every flow of @owner, or every flow (@all). Process context. */
void rocecc_flow_flush(const struct rocecc_dev *owner, bool all)
{
	struct rocecc_flow *f, *reap = NULL;
	struct hlist_node *tmp;
	unsigned int b;

	for (b = 0; b <= rocecc_flow_mask; b++) {
		if (hlist_empty(&rocecc_flow_tbl[b]))
			continue;
		spin_lock_bh(&rocecc_flow_lock);
		hlist_for_each_entry_safe(f, tmp, &rocecc_flow_tbl[b], node)
			if (all || f->owner == owner)
				rocecc_flow_unhash(f, &reap);
		spin_unlock_bh(&rocecc_flow_lock);
	}
	rocecc_flow_reap(reap, false);
}

/*
 * The latest departure pacing gave a packet of @owner's flows, or of any
 * flow (@owner NULL), 0 if none: until then fq may hold one
 * (rocecc_dp_drain_wait()). @owner is only compared, never dereferenced.
 */
u64 rocecc_flow_last_depart(const struct rocecc_dev *owner)
{
	struct rocecc_flow *f;
	unsigned int b;
	u64 last = 0;

	rcu_read_lock();
	for (b = 0; b <= rocecc_flow_mask; b++)
		hlist_for_each_entry_rcu(f, &rocecc_flow_tbl[b], node) {
			if (owner && f->owner != owner)
				continue;
			spin_lock_bh(&f->lock);
			if (f->pace.last_depart > last)
				last = f->pace.last_depart;
			spin_unlock_bh(&f->lock);
		}
	rcu_read_unlock();
	return last;
}

/*
 * Maintenance (process context): remove flows idle for flow_idle_ms
 * (unless a CNP is pending), announcing them (FLOW_EXPIRED), and flows
 * whose attachment is gone, silently.
 */
void rocecc_flow_gc(void)
{
	unsigned long idle = msecs_to_jiffies(READ_ONCE(rocecc_flow_idle_ms));
	struct rocecc_flow *f, *reap = NULL, *expired = NULL;
	struct hlist_node *tmp;
	unsigned int b;
	bool stale, busy;

	for (b = 0; b <= rocecc_flow_mask; b++) {
		if (hlist_empty(&rocecc_flow_tbl[b]))
			continue;
		spin_lock_bh(&rocecc_flow_lock);
		hlist_for_each_entry_safe(f, tmp, &rocecc_flow_tbl[b], node) {
			rcu_read_lock();
			stale = rocecc_dev_lookup_rcu(f->key.ifindex) !=
				f->owner;
			rcu_read_unlock();
			if (!stale) {
				if (time_before(jiffies,
						READ_ONCE(f->last_used) + idle))
					continue;
				spin_lock(&f->lock);
				busy = f->np.pending;
				spin_unlock(&f->lock);
				if (busy)
					continue;
			}
			rocecc_flow_unhash(f, stale ? &reap : &expired);
		}
		spin_unlock_bh(&rocecc_flow_lock);
		cond_resched();
	}
	rocecc_flow_reap(reap, false);
	rocecc_flow_reap(expired, true);
}

int rocecc_flow_init(void)
{
	unsigned int n;

	if (rocecc_flow_hash_bits < 4 || rocecc_flow_hash_bits > 20) {
		pr_err("flow_hash_bits=%u is out of range 4..20\n",
		       rocecc_flow_hash_bits);
		return -EINVAL;
	}
	n = 1U << rocecc_flow_hash_bits;
	/* The bucket array, for the module's lifetime: 8 bytes a bucket. */
	rocecc_flow_tbl = kvcalloc(n, sizeof(*rocecc_flow_tbl), GFP_KERNEL);
	if (!rocecc_flow_tbl)
		return -ENOMEM;
	rocecc_flow_mask = n - 1;
	rocecc_flow_seed = get_random_u32();
	rocecc_flow_cache = kmem_cache_create("rocecc_flow",
					      sizeof(struct rocecc_flow), 0,
					      0, NULL);
	if (!rocecc_flow_cache) {
		kvfree(rocecc_flow_tbl);
		rocecc_flow_tbl = NULL;
		return -ENOMEM;
	}
	pr_info("flow table: %u buckets, at most %u flows of %zu bytes (slab object %u); QP cache entries of %zu bytes\n",
		n, rocecc_flow_max, sizeof(struct rocecc_flow),
		kmem_cache_size(rocecc_flow_cache), sizeof(struct rocecc_qp));
	return 0;
}

/* After the hooks are gone and every flow was flushed and freed. */
void rocecc_flow_exit(void)
{
	kmem_cache_destroy(rocecc_flow_cache);
	kvfree(rocecc_flow_tbl);
	rocecc_flow_tbl = NULL;
}

/* --- genetlink dump ------------------------------------------------------ */

/* What a dump shows of one flow, copied under its lock. */
struct rocecc_flow_snap {
	struct rocecc_flow_key key;
	u8 laddr[16];
	u8 laddr_family;
	bool budget_known;
	u8 qp_timeout;
	u32 lqpn;
	u64 budget_ns;
	u64 backlog_ns;
	u64 bytes, pkts, unpaced_pkts;
	u64 pacing_delayed, pacing_capped, pacing_ackreq, cnp_tx_errors;
	u64 last_cnp_rx, last_cnp_tx, last_increase;
	u64 last_active;
	struct rocecc_rp rp;
	struct rocecc_np np;
};

/*
 * Copy @f under its lock. With @p (a live flow, for a dump) the RP is
 * first brought up to date with @p, @line and the time; without (an
 * expired flow) it is copied as the flow left it.
 */
static void rocecc_flow_snapshot(struct rocecc_flow *f,
				 const struct rocecc_params *p, u32 line,
				 struct rocecc_flow_snap *s)
{
	u64 now = rocecc_now();
	u64 inc;

	spin_lock_bh(&f->lock);
	if (p) {
		rocecc_flow_sync_params(f, p, line);
		inc = f->rp.inc_timer + f->rp.inc_byte;
		rocecc_rp_advance(&f->rp, p, now);
		if (f->rp.inc_timer + f->rp.inc_byte != inc)
			f->last_increase = now;
	}
	s->key = f->key;
	memcpy(s->laddr, f->laddr, sizeof(s->laddr));
	s->laddr_family = f->laddr_family;
	s->budget_known = f->budget_known;
	s->qp_timeout = f->qp_timeout;
	s->lqpn = f->lqpn;
	s->budget_ns = f->pace.budget_ns;
	s->backlog_ns = f->pace.next_tx > now ? f->pace.next_tx - now : 0;
	s->bytes = f->bytes;
	s->pkts = f->pkts;
	s->unpaced_pkts = f->unpaced_pkts;
	s->pacing_delayed = f->pacing_delayed;
	s->pacing_capped = f->pacing_capped;
	s->pacing_ackreq = f->pacing_ackreq;
	s->cnp_tx_errors = f->cnp_tx_errors;
	s->last_cnp_rx = f->last_cnp_rx;
	s->last_cnp_tx = f->last_cnp_tx;
	s->last_increase = f->last_increase;
	s->rp = f->rp;
	s->np = f->np;
	spin_unlock_bh(&f->lock);
	s->last_active = now - min_t(u64, now,
				     jiffies_to_nsecs(jiffies -
						      READ_ONCE(f->last_used)));
}

static int rocecc_flow_put_u64(struct sk_buff *skb, int type, u64 v)
{
	return nla_put_u64_64bit(skb, type, v, ROCECC_FLOW_A_PAD);
}

static int rocecc_flow_fill(struct sk_buff *skb,
			    const struct rocecc_flow_snap *s)
{
	const struct rocecc_rp *rp = &s->rp;
	const struct rocecc_np *np = &s->np;
	u64 budget_us = div_u64(s->budget_ns, NSEC_PER_USEC);

	if (nla_put(skb, ROCECC_FLOW_A_RADDR, 16, s->key.raddr) ||
	    nla_put_u32(skb, ROCECC_FLOW_A_RQPN, s->key.rqpn) ||
	    (s->lqpn && nla_put_u32(skb, ROCECC_FLOW_A_LQPN, s->lqpn)) ||
	    nla_put_u32(skb, ROCECC_FLOW_A_RC, rp->rate) ||
	    nla_put_u32(skb, ROCECC_FLOW_A_RT, rp->target) ||
	    nla_put_u32(skb, ROCECC_FLOW_A_ALPHA, rp->alpha) ||
	    rocecc_flow_put_u64(skb, ROCECC_FLOW_A_BYTES, s->bytes) ||
	    rocecc_flow_put_u64(skb, ROCECC_FLOW_A_CNP_HANDLED,
				rp->cnp_handled) ||
	    rocecc_flow_put_u64(skb, ROCECC_FLOW_A_CNP_IGNORED,
				rp->cnp_ignored) ||
	    rocecc_flow_put_u64(skb, ROCECC_FLOW_A_CNP_SENT, np->cnp_sent) ||
	    rocecc_flow_put_u64(skb, ROCECC_FLOW_A_CE_SEEN,
				np->ecn_marked_roce_packets) ||
	    rocecc_flow_put_u64(skb, ROCECC_FLOW_A_LAST_CNP_RX,
				s->last_cnp_rx) ||
	    rocecc_flow_put_u64(skb, ROCECC_FLOW_A_LAST_CNP_TX,
				s->last_cnp_tx) ||
	    rocecc_flow_put_u64(skb, ROCECC_FLOW_A_LAST_CUT,
				rp->limited ? rp->last_cut : 0) ||
	    rocecc_flow_put_u64(skb, ROCECC_FLOW_A_LAST_INCREASE,
				s->last_increase) ||
	    nla_put_u32(skb, ROCECC_FLOW_A_PACING_BUDGET,
			(u32)min_t(u64, budget_us, U32_MAX)) ||
	    rocecc_flow_put_u64(skb, ROCECC_FLOW_A_PACKETS, s->pkts) ||
	    rocecc_flow_put_u64(skb, ROCECC_FLOW_A_PACING_DELAYED,
				s->pacing_delayed) ||
	    rocecc_flow_put_u64(skb, ROCECC_FLOW_A_PACING_CAPPED,
				s->pacing_capped) ||
	    rocecc_flow_put_u64(skb, ROCECC_FLOW_A_PACING_BACKLOG,
				s->backlog_ns) ||
	    (s->budget_known &&
	     nla_put_u32(skb, ROCECC_FLOW_A_QP_TIMEOUT, s->qp_timeout)) ||
	    nla_put_u8(skb, ROCECC_FLOW_A_LIMITED, rp->limited) ||
	    rocecc_flow_put_u64(skb, ROCECC_FLOW_A_CNP_SUPPRESSED,
				np->cnp_suppressed) ||
	    (s->laddr_family &&
	     nla_put(skb, ROCECC_FLOW_A_LADDR, 16, s->laddr)) ||
	    rocecc_flow_put_u64(skb, ROCECC_FLOW_A_LAST_ACTIVE,
				s->last_active) ||
	    rocecc_flow_put_u64(skb, ROCECC_FLOW_A_INC_TIMER, rp->inc_timer) ||
	    rocecc_flow_put_u64(skb, ROCECC_FLOW_A_INC_BYTE, rp->inc_byte) ||
	    rocecc_flow_put_u64(skb, ROCECC_FLOW_A_CUTS, rp->cuts) ||
	    rocecc_flow_put_u64(skb, ROCECC_FLOW_A_CNP_TX_ERRORS,
				s->cnp_tx_errors) ||
	    rocecc_flow_put_u64(skb, ROCECC_FLOW_A_UNPACED_PACKETS,
				s->unpaced_pkts) ||
	    nla_put_u8(skb, ROCECC_FLOW_A_BUDGET_KNOWN, s->budget_known) ||
	    rocecc_flow_put_u64(skb, ROCECC_FLOW_A_STATE_NS, rp->now) ||
	    rocecc_flow_put_u64(skb, ROCECC_FLOW_A_PACING_ACKREQ,
				s->pacing_ackreq))
		return -EMSGSIZE;
	return 0;
}

/*
 * What rocecc_flow_fill() puts at most, and DEV_IFINDEX and the FLOW nest
 * around it: the payload of a FLOW_EXPIRED event. Keep it in step.
 */
static size_t rocecc_flow_msg_size(void)
{
	return nla_total_size(sizeof(u32)) +		/* DEV_IFINDEX */
	       nla_total_size(0) +			/* FLOW */
	       2 * nla_total_size(16) +			/* RADDR, LADDR */
	       7 * nla_total_size(sizeof(u32)) +	/* RQPN ... QP_TIMEOUT */
	       2 * nla_total_size(sizeof(u8)) +		/* LIMITED, BUDGET_KNOWN */
	       21 * nla_total_size_64bit(sizeof(u64));	/* counters, times */
}

/*
 * DEV_IFINDEX and the FLOW nest: everything of @s, or (@s NULL) only the
 * key @key.
 */
static int rocecc_flow_put(struct sk_buff *skb,
			   const struct rocecc_flow_key *key,
			   const struct rocecc_flow_snap *s)
{
	struct nlattr *nest;

	if (nla_put_u32(skb, ROCECC_A_DEV_IFINDEX, key->ifindex))
		return -EMSGSIZE;
	nest = nla_nest_start(skb, ROCECC_A_FLOW);
	if (!nest)
		return -EMSGSIZE;
	if (s ? rocecc_flow_fill(skb, s) :
		(nla_put(skb, ROCECC_FLOW_A_RADDR, 16, key->raddr) ||
		 nla_put_u32(skb, ROCECC_FLOW_A_RQPN, key->rqpn))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int rocecc_flow_fill_msg(struct sk_buff *skb,
				struct netlink_callback *cb,
				const struct genl_family *family, u8 cmd,
				const struct rocecc_flow_snap *s)
{
	void *hdr;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  family, NLM_F_MULTI, cmd);
	if (!hdr)
		return -EMSGSIZE;
	genl_dump_check_consistent(cb, hdr);
	if (rocecc_flow_put(skb, &s->key, s)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* --- events -------------------------------------------------------------- */

/*
 * FLOW_CREATED for a flow of @key, ready to send; NULL if memory is short.
 * Any context (the packet path: GFP_ATOMIC), under rcu_read_lock().
 */
static struct sk_buff *rocecc_flow_created_msg(const struct rocecc_flow_key *key)
{
	struct sk_buff *skb;
	void *hdr;

	/* One small message per new flow, sent and freed by netlink. */
	skb = genlmsg_new(nla_total_size(sizeof(u32)) + nla_total_size(0) +
			  nla_total_size(16) + nla_total_size(sizeof(u32)),
			  GFP_ATOMIC);
	if (!skb)
		return NULL;
	hdr = rocecc_genl_flow_event_put(skb, ROCECC_CMD_FLOW_CREATED);
	if (!hdr || rocecc_flow_put(skb, key, NULL)) {
		nlmsg_free(skb);
		return NULL;
	}
	genlmsg_end(skb, hdr);
	return skb;
}

static bool rocecc_flow_event_wanted(void)
{
	bool wanted;

	rcu_read_lock();
	wanted = rocecc_genl_flow_event_wanted();
	rcu_read_unlock();
	return wanted;
}

/*
 * FLOW_EXPIRED for every flow of @list (unhashed, timers cancelled, not
 * freed yet), with its final state. Process context, no locks held.
 */
static void rocecc_flow_announce_expired(struct rocecc_flow *list)
{
	struct rocecc_flow_snap *s;
	struct rocecc_flow *f;
	struct sk_buff *skb;
	void *hdr;
	int err;

	if (!rocecc_flow_event_wanted())
		return;
	/* One flow's copy (about 350 bytes), reused: off the stack. */
	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return;
	for (f = list; f; f = f->reap_next) {
		/* One message per flow, sized exactly, freed by netlink. */
		skb = genlmsg_new(rocecc_flow_msg_size(), GFP_KERNEL);
		if (!skb)
			continue;
		rocecc_flow_snapshot(f, NULL, 0, s);
		hdr = rocecc_genl_flow_event_put(skb, ROCECC_CMD_FLOW_EXPIRED);
		err = hdr ? rocecc_flow_put(skb, &s->key, s) : -EMSGSIZE;
		/* rocecc_flow_msg_size() and rocecc_flow_fill() disagree. */
		if (WARN_ON_ONCE(err)) {
			nlmsg_free(skb);
			continue;
		}
		genlmsg_end(skb, hdr);
		rcu_read_lock();
		rocecc_genl_flow_event_send(skb);
		rcu_read_unlock();
		cond_resched();
	}
	kfree(s);
}

/*
 * The dump of ROCECC_CMD_FLOW_GET: every flow, or those of the device the
 * request names. cb->args[0] is the next bucket, cb->args[1] how many
 * flows of it were already dumped, cb->args[2] the ifindex filter + 1
 * (0: not resolved yet). Flows come and go during a dump; each one is
 * consistent in itself (copied under its lock). A dump is walked in parts
 * (one per reply skb, as the reader reads), and a flow inserted or
 * removed between them may shift the bucket positions it resumes at:
 * cb->seq takes the table's generation at the start of every part (odd,
 * as the core takes 0 for "unset"), and the core flags the first
 * message after a change, or the final NLMSG_DONE, with NLM_F_DUMP_INTR.
 * The reader then knows to dump again (rocecc flow show does).
 */
int rocecc_flow_dump(struct sk_buff *skb, struct netlink_callback *cb,
		     const struct genl_family *family, u8 cmd)
{
	struct rocecc_flow_snap *s;
	struct rocecc_dev *rdev;
	struct rocecc_flow *f;
	unsigned long b, idx;
	int filter, err = 0;

	if (!cb->args[2]) {
		struct nlattr **tb = rocecc_genl_dump_attrs(cb);
		const char *name = NULL;
		u32 ifindex = 0;

		if (tb[ROCECC_A_DEV_IFINDEX])
			ifindex = nla_get_u32(tb[ROCECC_A_DEV_IFINDEX]);
		if (tb[ROCECC_A_DEV_NAME])
			name = nla_data(tb[ROCECC_A_DEV_NAME]);
		filter = 0;
		if (ifindex || name) {
			mutex_lock(&rocecc_lock);
			rdev = rocecc_dev_find(ifindex, name, cb->extack);
			filter = rdev ? rdev->ifindex : -1;
			mutex_unlock(&rocecc_lock);
			if (filter < 0)
				return -ENODEV;
		}
		cb->args[2] = filter + 1;
	}
	filter = cb->args[2] - 1;

	/* One flow's copy (about 350 bytes): off the stack. */
	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;

	cb->seq = READ_ONCE(rocecc_flow_gen) << 1 | 1;
	rcu_read_lock();
	for (b = cb->args[0]; b <= rocecc_flow_mask; b++) {
		idx = 0;
		hlist_for_each_entry_rcu(f, &rocecc_flow_tbl[b], node) {
			if (idx++ < cb->args[1])
				continue;
			if (filter && f->key.ifindex != filter)
				continue;
			rdev = rocecc_dev_lookup_rcu(f->key.ifindex);
			if (!rdev || rdev != f->owner)
				continue;
			rocecc_flow_snapshot(f, rocecc_dev_params_rcu(rdev),
					     READ_ONCE(rdev->dp.line_rate_kbps),
					     s);
			err = rocecc_flow_fill_msg(skb, cb, family, cmd, s);
			if (err) {
				cb->args[0] = b;
				cb->args[1] = idx - 1;
				goto out;
			}
		}
		cb->args[1] = 0;
	}
	cb->args[0] = b;
out:
	rcu_read_unlock();
	kfree(s);
	/* A full skb ends this part; the next call resumes. */
	return err && !skb->len ? err : skb->len;
}
