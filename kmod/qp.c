// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc: local QP resolution through the RDMA core.
 *
 * The NP sees CE marks on packets addressed to a local QP l, the RP sees
 * CNPs addressed to l; both need what only the RDMA core knows: l's remote
 * QPN and remote address (the flow key), and l's ACK timeout (the pacing
 * budget). A QP entry caches that per (ifindex, l).
 *
 *  - The datapath (softirq or rxe's tasks) looks entries up under RCU and,
 *    on a miss, inserts an empty PENDING entry and queues it for the
 *    resolver: for the QPN a received CE mark or CNP names, and for the
 *    QP of every packet rxe sends (rp.c, hooks.c). It never calls into
 *    ib_core: rdma_restrack_get_byid() takes a spinlock that process
 *    context holds with BHs on, and rxe's query_qp may reschedule.
 *  - The resolver (a work item, process context) asks ib_core:
 *    ib_device_get_by_netdev(RDMA_DRIVER_RXE), rdma_restrack_get_byid(QP),
 *    ib_query_qp(), rdma_restrack_put(), ib_device_put(). It fills the
 *    entry and publishes it with a release store of its state; from then
 *    on the fields are immutable (readers need no lock). It then hands the
 *    budget to the flow and answers a CE mark that arrived while the entry
 *    was PENDING with its CNP (at most one, at once).
 *  - There is no QP-destroy notifier. The maintenance work queues every
 *    resolved entry again after qp_revalidate_ms; if the QP is gone or no
 *    longer talks to the same remote QP, the entry is dropped (the next
 *    packet creates a fresh one). So a destroyed QP's entry lives at most
 *    about qp_revalidate_ms, and rxe reuses QPNs only after its 2^17 QPN
 *    space wraps. Entries unused for flow_idle_ms go too; the QP of a
 *    packet rxe sends marks its entry used (at least once a jiffy per
 *    flow, rp.c), so a QP that keeps sending keeps its entry.
 *  - ib_client: when an rxe device is unregistered (rdma link delete, its
 *    netdev going away, rdma_rxe unloading) every entry resolved on it or
 *    pending on its netdev is dropped, synchronously in the remove
 *    callback. The add callback records the device as the cookie of the
 *    attached netdev it sits on (used to recognise rxe's QPs on egress),
 *    if it passes rocecc_rxe_check(); so does attach.
 *
 * Entries are reference counted (the table and the resolver queue); the
 * last put frees them after a grace period. At most qp_max entries exist;
 * beyond that, misses are only counted.
 *
 * Remote packets create entries: every CE mark and CNP names a local QPN,
 * and any host can name any QPN. So an entry made for such a QPN counts,
 * while it is not resolved (PENDING or FAILED), against a small budget,
 * qp_unresolved_max, besides qp_max; a miss beyond it creates nothing
 * (counted in qp_cache_full, and the packet as a resolver_miss). An
 * entry whose QPN
 * the RDMA core does not know (or whose netdev has no rxe device) is
 * dropped as soon as the resolver has asked, so unknown QPNs hold budget
 * only while they wait for the resolver, not for flow_idle_ms: a flood of
 * random QPNs costs a bounded number of allocations and queries and
 * cannot fill the cache that real QPs need. Entries for the QPs rxe
 * transmits on are known to be real and are made outside that budget, so
 * a QP that sends (data, or ACKs of what it receives) gets its entry
 * whatever a flood holds. FAILED entries of QPs that exist (not
 * connected yet, UD) stay and are asked again.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jhash.h>
#include <linux/netdevice.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>

#include "rocecc.h"
#include "dp.h"

#define ROCECC_QP_HASH_BITS	10
#define ROCECC_QP_RETRY_MS	100	/* a FAILED entry is asked again after */

static struct hlist_head rocecc_qp_tbl[1 << ROCECC_QP_HASH_BITS];
static DEFINE_SPINLOCK(rocecc_qp_lock);		/* the table */
static atomic_t rocecc_qp_total = ATOMIC_INIT(0);
/*
 * Entries made for a received packet's QPN (@remote), hashed and not
 * ROCECC_QP_OK: at most qp_unresolved_max. Changes under rocecc_qp_lock
 * (or before the entry is hashed).
 */
static atomic_t rocecc_qp_unresolved = ATOMIC_INIT(0);
static u32 rocecc_qp_seed;

static LIST_HEAD(rocecc_qp_queue_list);
static DEFINE_SPINLOCK(rocecc_qp_queue_lock);	/* the resolver queue */
static void rocecc_qp_work_fn(struct work_struct *work);
static DECLARE_WORK(rocecc_qp_work, rocecc_qp_work_fn);
static bool rocecc_qp_running;			/* under the queue lock */

static u32 rocecc_qp_hash(int ifindex, u32 lqpn)
{
	return jhash_2words(ifindex, lqpn, rocecc_qp_seed) &
	       ((1U << ROCECC_QP_HASH_BITS) - 1);
}

static void rocecc_qp_free_rcu(struct rcu_head *head)
{
	kfree(container_of(head, struct rocecc_qp, rcu));
	atomic64_inc(&rocecc_dp_objs.qps_free);
}

static void rocecc_qp_put(struct rocecc_qp *e)
{
	if (refcount_dec_and_test(&e->ref))
		call_rcu(&e->rcu, rocecc_qp_free_rcu);
}

/* Queue @e for the resolver (any context). */
static void rocecc_qp_queue(struct rocecc_qp *e)
{
	unsigned long flags;

	spin_lock_irqsave(&rocecc_qp_queue_lock, flags);
	if (!e->queued && rocecc_qp_running) {
		e->queued = true;
		refcount_inc(&e->ref);
		list_add_tail(&e->work, &rocecc_qp_queue_list);
		queue_work(system_wq, &rocecc_qp_work);
	}
	spin_unlock_irqrestore(&rocecc_qp_queue_lock, flags);
}

/* Unhash @e. Caller holds rocecc_qp_lock. */
static void rocecc_qp_kill(struct rocecc_qp *e)
{
	hlist_del_rcu(&e->node);
	e->hashed = false;
	atomic_dec(&rocecc_qp_total);
	if (e->remote && e->state != ROCECC_QP_OK)
		atomic_dec(&rocecc_qp_unresolved);
	rocecc_qp_put(e);
}

/*
 * Take a place for a new entry: one of qp_max, and, for a QPN named by a
 * received packet (@remote), one of qp_unresolved_max (entries of QPs rxe
 * transmits on are real local QPs, at most as many as exist). False
 * (nothing taken, the refusal counted) when a limit is reached.
 */
static bool rocecc_qp_reserve(struct rocecc_dev *rdev, bool remote)
{
	if (atomic_inc_return(&rocecc_qp_total) > READ_ONCE(rocecc_qp_max))
		goto full_total;
	if (remote && atomic_inc_return(&rocecc_qp_unresolved) >
	    READ_ONCE(rocecc_qp_unresolved_max))
		goto full_unresolved;
	return true;

full_unresolved:
	atomic_dec(&rocecc_qp_unresolved);
full_total:
	atomic_dec(&rocecc_qp_total);
	rocecc_ctr_inc(rdev, ROCECC_CTR_QP_CACHE_FULL);
	return false;
}

static void rocecc_qp_unreserve(bool remote)
{
	if (remote)
		atomic_dec(&rocecc_qp_unresolved);
	atomic_dec(&rocecc_qp_total);
}

static struct rocecc_qp *rocecc_qp_find(const struct rocecc_dev *rdev,
					u32 lqpn)
{
	struct hlist_head *head;
	struct rocecc_qp *e;

	head = &rocecc_qp_tbl[rocecc_qp_hash(rdev->ifindex, lqpn)];
	hlist_for_each_entry_rcu(e, head, node,
				 lockdep_is_held(&rocecc_qp_lock)) {
		if (e->lqpn == lqpn && e->ifindex == rdev->ifindex &&
		    e->owner == rdev)
			return e;
	}
	return NULL;
}

bool rocecc_qp_resolved(const struct rocecc_qp *e)
{
	/* Pairs with the resolver's release: the fields are written first. */
	return smp_load_acquire(&e->state) == ROCECC_QP_OK;
}

/*
 * The entry of local QP @lqpn on @rdev, under rcu_read_lock(), any
 * context. Unless @create is ROCECC_QP_FIND, a missing entry is created
 * and queued if there is room (rocecc_qp_reserve()), and a FAILED one is
 * queued again if it was last tried long enough ago. The entry returned
 * may still be unresolved (rocecc_qp_resolved()).
 */
struct rocecc_qp *rocecc_qp_lookup(struct rocecc_dev *rdev, u32 lqpn,
				   enum rocecc_qp_create create)
{
	struct rocecc_qp *e, *old;
	unsigned long now = jiffies;

	e = rocecc_qp_find(rdev, lqpn);
	if (e) {
		if (READ_ONCE(e->last_used) != now)
			WRITE_ONCE(e->last_used, now);
		if (create != ROCECC_QP_FIND &&
		    READ_ONCE(e->state) == ROCECC_QP_FAILED &&
		    time_after(now, READ_ONCE(e->checked) +
			       msecs_to_jiffies(ROCECC_QP_RETRY_MS)))
			rocecc_qp_queue(e);
		return e;
	}
	if (create == ROCECC_QP_FIND)
		return NULL;

	if (!rocecc_qp_reserve(rdev, create == ROCECC_QP_REMOTE))
		return NULL;
	/*
	 * One small object per local QP named by a packet; any context.
	 * Bounded by rocecc_qp_reserve(): at most qp_unresolved_max wait
	 * for the resolver at any time, however many QPNs a flood names.
	 */
	e = kzalloc(sizeof(*e), GFP_ATOMIC);
	if (!e) {
		rocecc_qp_unreserve(create == ROCECC_QP_REMOTE);
		return NULL;
	}
	atomic64_inc(&rocecc_dp_objs.qps_alloc);
	e->ifindex = rdev->ifindex;
	e->lqpn = lqpn;
	e->owner = rdev;
	e->remote = create == ROCECC_QP_REMOTE;
	refcount_set(&e->ref, 1);
	e->state = ROCECC_QP_PENDING;
	e->last_used = now;
	e->checked = now;
	INIT_LIST_HEAD(&e->work);
	spin_lock_init(&e->lock);

	spin_lock_bh(&rocecc_qp_lock);
	old = rocecc_qp_find(rdev, lqpn);
	if (old) {
		spin_unlock_bh(&rocecc_qp_lock);
		rocecc_qp_unreserve(e->remote);
		kfree(e);
		atomic64_inc(&rocecc_dp_objs.qps_free);
		return old;
	}
	e->hashed = true;
	hlist_add_head_rcu(&e->node,
			   &rocecc_qp_tbl[rocecc_qp_hash(e->ifindex, lqpn)]);
	spin_unlock_bh(&rocecc_qp_lock);
	rocecc_qp_queue(e);
	return e;
}

/*
 * A CE mark for the unresolved QP of @e: the resolver sends its CNP once
 * it knows where to. Addresses as in struct rocecc_np_addr.
 */
void rocecc_qp_note_ce(struct rocecc_qp *e, u8 family, const u8 *laddr,
		       const u8 *raddr, u16 sport)
{
	spin_lock_bh(&e->lock);
	e->ce_pending++;
	e->ce_family = family;
	e->ce_sport = sport;
	memcpy(e->ce_laddr, laddr, 16);
	memcpy(e->ce_raddr, raddr, 16);
	spin_unlock_bh(&e->lock);
}

/*
 * Pacing budget of a QP with ACK timeout exponent @timeout: the share
 * pacing_budget_pct of the time rxe's retransmission timer surely waits at
 * this kernel's HZ, at most pacing_max_delay_us (rocecc/pacing.h).
 */
u64 rocecc_qp_budget_ns(u8 timeout)
{
	return rocecc_pace_budget_ns(timeout, HZ,
				     READ_ONCE(rocecc_pacing_budget_pct),
				     READ_ONCE(rocecc_pacing_max_delay_us));
}

/*
 * The rxe ib_device on @netdev as a cookie (no reference kept) in *@ibdevp,
 * NULL if there is none. -EOPNOTSUPP (@extack says why) if there is one
 * whose QP sockets cannot be read (rocecc_rxe_check()). Process context,
 * RTNL held.
 */
int rocecc_qp_find_ibdev(struct net_device *netdev, struct ib_device **ibdevp,
			 struct netlink_ext_ack *extack)
{
	struct ib_device *ibdev = ib_device_get_by_netdev(netdev,
							  RDMA_DRIVER_RXE);
	int err;

	*ibdevp = NULL;
	if (!ibdev)
		return 0;
	err = rocecc_rxe_check(ibdev, netdev->name, extack);
	if (!err)
		*ibdevp = ibdev;
	ib_device_put(ibdev);
	return err;
}

/* --- the resolver ---------------------------------------------------------- */

struct rocecc_qp_info {
	u32 rqpn;
	u8 raddr[16];
	u8 timeout;
	u8 qp_type;
	const struct ib_device *ibdev;
	const void *ibqp;
};

struct rocecc_qp_scratch {
	struct ib_qp_attr attr;
	struct ib_qp_init_attr init;
};

/* Ask ib_core about local QP @lqpn on @ifindex. Process context. */
static int rocecc_qp_query(int ifindex, u32 lqpn, struct rocecc_qp_info *out,
			   struct rocecc_qp_scratch *s)
{
	const struct ib_global_route *grh;
	struct rdma_restrack_entry *res;
	struct ib_device *ibdev;
	struct net_device *nd;
	struct ib_qp *qp;
	int err;

	nd = dev_get_by_index(&init_net, ifindex);
	if (!nd)
		return -ENODEV;
	ibdev = ib_device_get_by_netdev(nd, RDMA_DRIVER_RXE);
	dev_put(nd);
	if (!ibdev)
		return -ENODEV;
	res = rdma_restrack_get_byid(ibdev, RDMA_RESTRACK_QP, lqpn);
	if (IS_ERR(res)) {
		err = PTR_ERR(res);
		goto out_dev;
	}
	qp = container_of(res, struct ib_qp, res);
	memset(s, 0, sizeof(*s));
	err = ib_query_qp(qp, &s->attr,
			  IB_QP_STATE | IB_QP_DEST_QPN | IB_QP_AV |
			  IB_QP_TIMEOUT, &s->init);
	if (err)
		goto out_res;
	if (qp->qp_type != IB_QPT_RC && qp->qp_type != IB_QPT_UC) {
		err = -EOPNOTSUPP;	/* UD: no single remote QP */
		goto out_res;
	}
	if (s->attr.qp_state < IB_QPS_RTR || s->attr.qp_state > IB_QPS_SQE) {
		err = -EAGAIN;		/* no remote yet, or in error */
		goto out_res;
	}
	if (!(rdma_ah_get_ah_flags(&s->attr.ah_attr) & IB_AH_GRH)) {
		err = -EINVAL;
		goto out_res;
	}
	grh = rdma_ah_read_grh(&s->attr.ah_attr);
	out->rqpn = s->attr.dest_qp_num & 0xffffff;
	memcpy(out->raddr, grh->dgid.raw, 16);
	out->timeout = qp->qp_type == IB_QPT_RC ? s->attr.timeout : 0;
	out->qp_type = qp->qp_type;
	out->ibdev = ibdev;
	out->ibqp = qp;
out_res:
	rdma_restrack_put(res);
out_dev:
	ib_device_put(ibdev);
	return err;
}

/* After @e resolved: the budget to its flow, and a pending CE's CNP. */
static void rocecc_qp_resolved_fixup(struct rocecc_qp *e)
{
	const struct rocecc_params *p;
	struct rocecc_np_addr a;
	struct rocecc_dev *rdev;
	struct rocecc_flow *f;
	bool ce;

	spin_lock_bh(&e->lock);
	ce = e->ce_pending != 0;
	e->ce_pending = 0;
	a.family = e->ce_family;
	a.sport = e->ce_sport;
	memcpy(a.laddr, e->ce_laddr, 16);
	memcpy(a.raddr, e->ce_raddr, 16);
	spin_unlock_bh(&e->lock);
	/* Only a CE mark from the QP's remote creates its flow. */
	ce = ce && !memcmp(a.raddr, e->raddr, 16);

	local_bh_disable();
	rcu_read_lock();
	rdev = rocecc_dev_lookup_rcu(e->ifindex);
	if (!rdev || rdev != e->owner)
		goto out;
	p = rocecc_dev_params_rcu(rdev);
	f = rocecc_flow_of_qp(rdev, e, p, ce, true);
	if (!f)
		goto out;
	/* The first CE of a new flow: answered now, counted once. */
	if (ce && rocecc_np_ce(rdev, p, f, &a, rocecc_now()))
		atomic64_inc(&rocecc_dp_objs.cnp_resolver);
out:
	rcu_read_unlock();
	local_bh_enable();
}

static void rocecc_qp_resolve(struct rocecc_qp *e, struct rocecc_qp_scratch *s)
{
	struct rocecc_qp_info qi = { 0 };
	bool fresh = false;
	int err;

	/* Without scratch memory: failed, asked again later (not lost). */
	err = s ? rocecc_qp_query(e->ifindex, e->lqpn, &qi, s) : -ENOMEM;

	spin_lock_bh(&rocecc_qp_lock);
	if (!e->hashed)
		goto out;
	if (e->state == ROCECC_QP_OK) {
		/*
		 * Revalidation: the fields are immutable; drop on change.
		 * Out of memory says nothing about the QP: asked again at
		 * the next round.
		 */
		if (err == -ENOMEM)
			goto out;
		if (err || qi.rqpn != e->rqpn || qi.timeout != e->timeout ||
		    memcmp(qi.raddr, e->raddr, 16) || qi.ibqp != e->ibqp)
			rocecc_qp_kill(e);
		else
			WRITE_ONCE(e->checked, jiffies);
		goto out;
	}
	WRITE_ONCE(e->checked, jiffies);
	if (err == -ENOENT || err == -ENODEV) {
		/* No such QP here: its budget goes back at once (see top). */
		rocecc_qp_kill(e);
		goto out;
	}
	if (err) {
		WRITE_ONCE(e->state, ROCECC_QP_FAILED);
		goto out;
	}
	e->rqpn = qi.rqpn;
	memcpy(e->raddr, qi.raddr, 16);
	e->timeout = qi.timeout;
	e->qp_type = qi.qp_type;
	e->ibdev = qi.ibdev;
	e->ibqp = qi.ibqp;
	e->budget_ns = rocecc_qp_budget_ns(qi.timeout);
	/* Publish: readers that see OK see the fields above. */
	smp_store_release(&e->state, ROCECC_QP_OK);
	if (e->remote)
		atomic_dec(&rocecc_qp_unresolved);
	fresh = true;
out:
	spin_unlock_bh(&rocecc_qp_lock);
	if (fresh) {
		rocecc_qp_resolved_fixup(e);
	} else if (err) {
		spin_lock_bh(&e->lock);
		e->ce_pending = 0;
		spin_unlock_bh(&e->lock);
	}
}

/* Take the oldest entry off the resolver queue; its reference moves to us. */
static struct rocecc_qp *rocecc_qp_dequeue(void)
{
	struct rocecc_qp *e;

	spin_lock_irq(&rocecc_qp_queue_lock);
	e = list_first_entry_or_null(&rocecc_qp_queue_list,
				     struct rocecc_qp, work);
	if (e) {
		list_del_init(&e->work);
		e->queued = false;
	}
	spin_unlock_irq(&rocecc_qp_queue_lock);
	return e;
}

static void rocecc_qp_work_fn(struct work_struct *work)
{
	struct rocecc_qp_scratch *s;
	struct rocecc_qp *e;

	/*
	 * ib_qp_attr and ib_qp_init_attr: about 400 bytes, off the stack.
	 * Without them every entry is resolved as failed (retried).
	 */
	s = kmalloc(sizeof(*s), GFP_KERNEL);
	while ((e = rocecc_qp_dequeue())) {
		rocecc_qp_resolve(e, s);
		rocecc_qp_put(e);
		cond_resched();
	}
	kfree(s);
}

/* --- maintenance ------------------------------------------------------------ */

/* Drop the entries of @owner, or all (@all). Process context. */
void rocecc_qp_flush(const struct rocecc_dev *owner, bool all)
{
	struct hlist_node *tmp;
	struct rocecc_qp *e;
	unsigned int b;

	spin_lock_bh(&rocecc_qp_lock);
	for (b = 0; b < ARRAY_SIZE(rocecc_qp_tbl); b++)
		hlist_for_each_entry_safe(e, tmp, &rocecc_qp_tbl[b], node)
			if (all || e->owner == owner)
				rocecc_qp_kill(e);
	spin_unlock_bh(&rocecc_qp_lock);
}

/*
 * Every second or so: drop entries idle for flow_idle_ms or whose
 * attachment is gone, queue resolved entries for revalidation.
 */
void rocecc_qp_gc(void)
{
	unsigned long idle = msecs_to_jiffies(READ_ONCE(rocecc_flow_idle_ms));
	unsigned long reval =
		msecs_to_jiffies(READ_ONCE(rocecc_qp_revalidate_ms));
	struct hlist_node *tmp;
	struct rocecc_qp *e;
	unsigned int b;
	bool stale;

	spin_lock_bh(&rocecc_qp_lock);
	for (b = 0; b < ARRAY_SIZE(rocecc_qp_tbl); b++) {
		hlist_for_each_entry_safe(e, tmp, &rocecc_qp_tbl[b], node) {
			rcu_read_lock();
			stale = rocecc_dev_lookup_rcu(e->ifindex) != e->owner;
			rcu_read_unlock();
			if (stale || time_after(jiffies, e->last_used + idle))
				rocecc_qp_kill(e);
			else if (e->state == ROCECC_QP_OK &&
				 time_after(jiffies, e->checked + reval))
				rocecc_qp_queue(e);
		}
	}
	spin_unlock_bh(&rocecc_qp_lock);
}

/*
 * Entries in the cache now, or (@unresolved) those made for received
 * packets' QPNs and not resolved.
 */
unsigned int rocecc_qp_count(bool unresolved)
{
	return atomic_read(unresolved ? &rocecc_qp_unresolved :
			   &rocecc_qp_total);
}

/* --- ib_client -------------------------------------------------------------- */

static int rocecc_ib_add(struct ib_device *ibdev)
{
	struct rocecc_dev *rdev;
	struct net_device *nd;
	struct ib_device *found;
	unsigned long idx;

	if (ibdev->ops.driver_id != RDMA_DRIVER_RXE)
		return -EOPNOTSUPP;	/* not ours: no remove call either */
	/* Its QP sockets are read only if they hold QPs (rxe.c). */
	if (rocecc_rxe_check(ibdev, dev_name(&ibdev->dev), NULL))
		return 0;
	rcu_read_lock();
	xa_for_each(&rocecc_devs, idx, rdev) {
		nd = dev_get_by_index_rcu(&init_net, rdev->ifindex);
		if (!nd)
			continue;
		found = ib_device_get_by_netdev(nd, RDMA_DRIVER_RXE);
		if (!found)
			continue;
		if (found == ibdev)
			WRITE_ONCE(rdev->dp.ibdev, ibdev);
		ib_device_put(found);
	}
	rcu_read_unlock();
	return 0;
}

static void rocecc_ib_remove(struct ib_device *ibdev, void *client_data)
{
	struct rocecc_dev *rdev;
	struct hlist_node *tmp;
	struct rocecc_qp *e;
	unsigned long idx;
	unsigned int b;
	bool mine;

	spin_lock_bh(&rocecc_qp_lock);
	for (b = 0; b < ARRAY_SIZE(rocecc_qp_tbl); b++) {
		hlist_for_each_entry_safe(e, tmp, &rocecc_qp_tbl[b], node) {
			mine = e->state == ROCECC_QP_OK && e->ibdev == ibdev;
			rcu_read_lock();
			rdev = rocecc_dev_lookup_rcu(e->ifindex);
			if (rdev && READ_ONCE(rdev->dp.ibdev) == ibdev)
				mine = true;
			rcu_read_unlock();
			if (mine)
				rocecc_qp_kill(e);
		}
	}
	spin_unlock_bh(&rocecc_qp_lock);

	rcu_read_lock();
	xa_for_each(&rocecc_devs, idx, rdev)
		if (READ_ONCE(rdev->dp.ibdev) == ibdev)
			WRITE_ONCE(rdev->dp.ibdev, NULL);
	rcu_read_unlock();
}

static struct ib_client rocecc_ib_client = {
	.name	= "rocecc",
	.add	= rocecc_ib_add,
	.remove	= rocecc_ib_remove,
};

int rocecc_qp_ib_register(void)
{
	return ib_register_client(&rocecc_ib_client);
}

void rocecc_qp_ib_unregister(void)
{
	ib_unregister_client(&rocecc_ib_client);
}

/* --- init / exit ------------------------------------------------------------ */

int rocecc_qp_init(void)
{
	rocecc_qp_seed = get_random_u32();
	spin_lock_irq(&rocecc_qp_queue_lock);
	rocecc_qp_running = true;
	spin_unlock_irq(&rocecc_qp_queue_lock);
	return 0;
}

/*
 * After the hooks and the ib_client are gone: stop queueing, wait for a
 * running resolver, drop what is still queued and every entry. The caller
 * waits for the grace period.
 */
void rocecc_qp_exit(void)
{
	struct rocecc_qp *e;

	spin_lock_irq(&rocecc_qp_queue_lock);
	rocecc_qp_running = false;
	spin_unlock_irq(&rocecc_qp_queue_lock);
	cancel_work_sync(&rocecc_qp_work);
	while ((e = rocecc_qp_dequeue()))
		rocecc_qp_put(e);
	rocecc_qp_flush(NULL, true);
}
