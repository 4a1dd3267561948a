// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc: the datapath's module parameters, its start and stop, what it
 * does when a device is attached or detached, and its maintenance work.
 *
 * The flow table's knobs are module parameters, not DCQCN parameters: they
 * size a host-wide table (not one per device), have no mlx5 counterpart,
 * and belong in neither profile. Those marked 0644 can be changed at run
 * time under /sys/module/rocecc/parameters/.
 *
 * Start: flow table, QP cache, netfilter hooks, ib_client, maintenance.
 * Stop (module unload, after every device was detached): maintenance off,
 * hooks off (nf_unregister_net_hooks() waits for running hooks), ib_client
 * off, resolver drained, every flow and QP entry removed, NP timers
 * cancelled, rcu_barrier() for the frees, then the allocation counters
 * must balance (printed; an imbalance is logged as an error).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/ethtool.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/workqueue.h>
#include <net/netlink.h>

#include "rocecc.h"
#include "dp.h"

/*
 * Every writable parameter has a range, checked on every write (insmod or
 * /sys/module/rocecc/parameters/, at any time): a value outside is
 * refused with -EINVAL and the parameter keeps its value.
 */
struct rocecc_dp_range {
	const unsigned int *var;
	unsigned int min, max;
};

unsigned int rocecc_flow_max = 16384;
unsigned int rocecc_flow_idle_ms = 10000;
unsigned int rocecc_qp_max = 16384;
unsigned int rocecc_qp_unresolved_max = 256;
unsigned int rocecc_qp_revalidate_ms = 1000;
unsigned int rocecc_pacing_budget_pct = ROCECC_PACE_BUDGET_PCT;
bool rocecc_pacing_ack_req = ROCECC_PACE_ACK_REQ;
unsigned int rocecc_pacing_default_budget_us = ROCECC_PACE_DEFAULT_BUDGET_US;
unsigned int rocecc_pacing_max_delay_us = ROCECC_PACE_MAX_DELAY_US;
unsigned int rocecc_pfc_pause_max_ms = 10000;
unsigned int rocecc_pfc_occ_max_age_ms = 2000;

/*
 * Tables: up to 2^20 entries (a flow is about 500 bytes). Times: 100 ms to
 * an hour (shorter makes the once-a-second maintenance the bound). The
 * pacing budget's share may pass 100 % (a test shows what that costs),
 * up to 10x. Pacing delays: 1 us to fq's default horizon, 10 s. The
 * longest PFC pause obeyed (sch.c): 10 ms (a few pause frames at 100
 * Mb/s) to a minute. The age at which an occupancy record is stale
 * (pfc_gen.c): 100 ms (rxe frees a packet within its task's run) to a
 * minute.
 */
static const struct rocecc_dp_range rocecc_dp_ranges[] = {
	{ &rocecc_flow_max,			1,	1U << 20 },
	{ &rocecc_flow_idle_ms,			100,	3600000 },
	{ &rocecc_qp_max,			1,	1U << 20 },
	{ &rocecc_qp_unresolved_max,		0,	1U << 16 },
	{ &rocecc_qp_revalidate_ms,		100,	3600000 },
	{ &rocecc_pacing_budget_pct,		1,	1000 },
	{ &rocecc_pacing_default_budget_us,	1,	10000000 },
	{ &rocecc_pacing_max_delay_us,		1,	10000000 },
	{ &rocecc_pfc_pause_max_ms,		10,	60000 },
	{ &rocecc_pfc_occ_max_age_ms,		100,	60000 },
};

/* Parse @val into *@to if it is in the range of parameter @var. */
static int rocecc_dp_param_parse(const char *val, const void *var,
				 unsigned int *to)
{
	const struct kernel_param kp = { .arg = to };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rocecc_dp_ranges); i++)
		if (rocecc_dp_ranges[i].var == var)
			return param_set_uint_minmax(val, &kp,
						     rocecc_dp_ranges[i].min,
						     rocecc_dp_ranges[i].max);
	return -EINVAL;
}

static int rocecc_dp_param_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;
	int err;

	err = rocecc_dp_param_parse(val, kp->arg, &v);
	if (!err)
		WRITE_ONCE(*(unsigned int *)kp->arg, v);
	return err;
}

static const struct kernel_param_ops rocecc_dp_param_ops = {
	.set = rocecc_dp_param_set,
	.get = param_get_uint,
};

/*
 * pacing_max_delay_us: besides its range, attach's test of every attached
 * device's fq horizon (fq.c) applies to a change: a value that fq would
 * drop packets for on an attached, pacing device is refused (-EINVAL,
 * the reason in the kernel log). RTNL keeps attach and detach out
 * meanwhile; attach reads the value under RTNL too.
 */
static int rocecc_dp_max_delay_set(const char *val,
				   const struct kernel_param *kp)
{
	struct rocecc_dev *rdev;
	struct net_device *nd;
	unsigned long idx;
	unsigned int v;
	char *msg;
	int err;

	err = rocecc_dp_param_parse(val, kp->arg, &v);
	if (err)
		return err;
	/* The reason of a refusal: a parameter write is rare. */
	msg = kmalloc(ROCECC_PACE_MSG_LEN, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	rtnl_lock();
	xa_for_each(&rocecc_devs, idx, rdev) {
		nd = __dev_get_by_index(&init_net, rdev->ifindex);
		if (!nd || !READ_ONCE(rdev->dp.pace_ok))
			continue;
		err = rocecc_pace_check_delay(nd, v, msg);
		if (err) {
			pr_warn("pacing_max_delay_us %u refused: %s\n", v,
				msg + strlen("rocecc: "));
			break;
		}
	}
	if (!err)
		WRITE_ONCE(rocecc_pacing_max_delay_us, v);
	rtnl_unlock();
	kfree(msg);
	return err ? -EINVAL : 0;
}

static const struct kernel_param_ops rocecc_dp_max_delay_ops = {
	.set = rocecc_dp_max_delay_set,
	.get = param_get_uint,
};

module_param_cb(flow_max, &rocecc_dp_param_ops, &rocecc_flow_max, 0644);
MODULE_PARM_DESC(flow_max,
		 "most flows tracked, all devices together (default 16384, 1..1048576); a new flow beyond is counted in flow_table_full and left alone");

module_param_cb(flow_idle_ms, &rocecc_dp_param_ops, &rocecc_flow_idle_ms,
		0644);
MODULE_PARM_DESC(flow_idle_ms,
		 "a flow (and a QP cache entry) without packets for this long is removed (default 10000, 100..3600000)");

module_param_cb(qp_max, &rocecc_dp_param_ops, &rocecc_qp_max, 0644);
MODULE_PARM_DESC(qp_max,
		 "most local QPs in the resolver cache (default 16384, 1..1048576)");

module_param_cb(qp_unresolved_max, &rocecc_dp_param_ops,
		&rocecc_qp_unresolved_max, 0644);
MODULE_PARM_DESC(qp_unresolved_max,
		 "most QP cache entries made for QPNs that received packets name and not resolved yet (default 256, 0..65536); a packet for another one is counted in qp_cache_full");

module_param_cb(qp_revalidate_ms, &rocecc_dp_param_ops,
		&rocecc_qp_revalidate_ms, 0644);
MODULE_PARM_DESC(qp_revalidate_ms,
		 "resolved QPs are asked again after this long, which drops destroyed ones (default 1000, 100..3600000)");

module_param_cb(pacing_budget_pct, &rocecc_dp_param_ops,
		&rocecc_pacing_budget_pct, 0644);
MODULE_PARM_DESC(pacing_budget_pct,
		 "pacing never holds a packet longer than this share of its QP's ACK timeout, in percent (default 20, 1..1000)");

module_param_named(pacing_ack_req, rocecc_pacing_ack_req, bool, 0644);
MODULE_PARM_DESC(pacing_ack_req,
		 "set BTH AckReq on an RC request when pacing would otherwise hold the next one past the budget (default Y)");

module_param_cb(pacing_default_budget_us, &rocecc_dp_param_ops,
		&rocecc_pacing_default_budget_us, 0644);
MODULE_PARM_DESC(pacing_default_budget_us,
		 "the pacing budget of a flow whose QP timeout is not known yet, in us (default 8000, 1..10000000)");

module_param_cb(pacing_max_delay_us, &rocecc_dp_max_delay_ops,
		&rocecc_pacing_max_delay_us, 0644);
MODULE_PARM_DESC(pacing_max_delay_us,
		 "pacing never holds a packet longer than this, in us, whatever the QP timeout (default 1000000, 1..10000000; an attached device's fq must not drop what it allows: checked at attach and on every change)");

module_param_cb(pfc_pause_max_ms, &rocecc_dp_param_ops,
		&rocecc_pfc_pause_max_ms, 0644);
MODULE_PARM_DESC(pfc_pause_max_ms,
		 "the rocecc qdisc keeps a priority paused by received PFC frames for at most this long at a stretch, in ms, whatever the quanta and the speed; then it releases it, counts it (tx_pause_released) and ignores XOFFs for as long again (default 10000, 10..60000)");

module_param_cb(pfc_occ_max_age_ms, &rocecc_dp_param_ops,
		&rocecc_pfc_occ_max_age_ms, 0644);
MODULE_PARM_DESC(pfc_occ_max_age_ms,
		 "a received RoCE packet still counted in the software PFC occupancy after this long, in ms, leaves the count (occ_expired) (default 2000, 100..60000)");

struct rocecc_dp_objs rocecc_dp_objs;

/* Read-only view of the allocation counters, for tests and debugging. */
static int rocecc_dp_objs_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf,
			  "flows=%u qps=%u qps_unresolved=%u flows_alloc=%lld flows_free=%lld qps_alloc=%lld qps_free=%lld cnp_tx=%lld cnp_tx_err=%lld cnp_resolver=%lld\n",
			  rocecc_flow_count(), rocecc_qp_count(false),
			  rocecc_qp_count(true),
			  atomic64_read(&rocecc_dp_objs.flows_alloc),
			  atomic64_read(&rocecc_dp_objs.flows_free),
			  atomic64_read(&rocecc_dp_objs.qps_alloc),
			  atomic64_read(&rocecc_dp_objs.qps_free),
			  atomic64_read(&rocecc_dp_objs.cnp_tx),
			  atomic64_read(&rocecc_dp_objs.cnp_tx_err),
			  atomic64_read(&rocecc_dp_objs.cnp_resolver));
}

static const struct kernel_param_ops rocecc_dp_objs_ops = {
	.get = rocecc_dp_objs_get,
};

module_param_cb(objects, &rocecc_dp_objs_ops, NULL, 0444);
MODULE_PARM_DESC(objects, "datapath objects allocated and freed (read only)");

static bool rocecc_dp_up;	/* between rocecc_dp_init() and _exit() */

/* --- maintenance ------------------------------------------------------------ */

#define ROCECC_DP_GC_MS		1000

static void rocecc_dp_gc_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(rocecc_dp_gc_work, rocecc_dp_gc_fn);

/* Follow the root qdisc: stop stamping departure times where fq is gone. */
static void rocecc_dp_pace_recheck(void)
{
	struct rocecc_dev *rdev;
	struct net_device *nd;
	unsigned long idx;
	bool ok;

	/* RTNL keeps devices attached and registered; skip a busy round. */
	if (!rtnl_trylock())
		return;
	xa_for_each(&rocecc_devs, idx, rdev) {
		nd = __dev_get_by_index(&init_net, rdev->ifindex);
		if (!nd)
			continue;
		ok = !rocecc_pace_check(nd, false, NULL);
		if (ok == READ_ONCE(rdev->dp.pace_ok))
			continue;
		WRITE_ONCE(rdev->dp.pace_ok, ok);
		if (ok)
			pr_notice("%s: root qdisc is fq again: pacing resumes\n",
				  nd->name);
		else
			pr_warn("%s: root qdisc is no longer fq: pacing stops until 'tc qdisc replace dev %s root fq'\n",
				nd->name, nd->name);
	}
	rtnl_unlock();
}

static void rocecc_dp_gc_fn(struct work_struct *work)
{
	rocecc_flow_gc();
	rocecc_qp_gc();
	rocecc_dp_pace_recheck();
	queue_delayed_work(system_wq, &rocecc_dp_gc_work,
			   msecs_to_jiffies(ROCECC_DP_GC_MS));
}

/* --- attach / detach ---------------------------------------------------------- */

/*
 * Called by attach before the device is published, under RTNL: refuse a
 * device whose root qdisc cannot pace (the extack says what to run) or
 * whose rxe device keeps something else than its QPs in their sockets
 * (rxe.c), note its link speed and its rxe device.
 */
int rocecc_dp_dev_attach(struct rocecc_dev *rdev, struct net_device *netdev,
			 struct netlink_ext_ack *extack)
{
	struct ethtool_link_ksettings ks;
	int err;

	ASSERT_RTNL();
	err = rocecc_pace_check(netdev, true, extack);
	if (err)
		return err;
	rdev->dp.pace_ok = true;
	rdev->dp.line_rate_kbps = 0;
	if (!__ethtool_get_link_ksettings(netdev, &ks) &&
	    ks.base.speed != SPEED_UNKNOWN && ks.base.speed > 0)
		rdev->dp.line_rate_kbps =
			min_t(u64, (u64)ks.base.speed * 1000, U32_MAX);
	return rocecc_qp_find_ibdev(netdev, &rdev->dp.ibdev, extack);
}

/*
 * Detach on request or at unload lets what pacing holds in fq leave
 * before the device is unpublished. Unpublished, the device's packets
 * leave at once and would overtake their QP's packets still held, a PSN
 * gap for the responder (rocecc/pacing.h, "When pacing stops").
 *
 * First, under rocecc_lock, this stops pacing the device (draining: each
 * packet leaves with the last one its flow held, rp.c); nothing clears
 * it, the device is then unpublished.
 */
void rocecc_dp_dev_drain(struct rocecc_dev *rdev)
{
	lockdep_assert_held(&rocecc_lock);
	WRITE_ONCE(rdev->dp.draining, true);
}

/*
 * Then, once the hooks that paced @rdev (NULL: every device, all
 * draining at unload) have returned (an RCU grace period: they run
 * under rcu_read_lock()), wait until the latest departure
 * given has passed: at most pacing_max_delay_us (up to 10 s), in practice
 * the QP's budget or less (tens of ms). With no lock held: RTNL or
 * rocecc_lock would stop every netdev and rocecc operation meanwhile.
 * The caller keeps @rdev alive (a reference); a device unregistered
 * meanwhile took its qdisc along, with what it held, and has no flows
 * left: no wait then.
 */
void rocecc_dp_drain_wait(const struct rocecc_dev *rdev)
{
	u64 last, now, us;

	might_sleep();
	lockdep_assert_not_held(&rocecc_lock);
	if (!rocecc_dp_up)
		return;
	/*
	 * Expedited, as synchronize_net() is under RTNL, where this ran
	 * before: a normal grace period made every detach tens of ms
	 * longer on a slow guest.
	 */
	synchronize_rcu_expedited();
	last = rocecc_flow_last_depart(rdev);
	now = rocecc_now();
	if (last <= now)
		return;
	us = div_u64(last - now, NSEC_PER_USEC) + 1;
	fsleep(min_t(u64, us, READ_ONCE(rocecc_pacing_max_delay_us)));
}

/*
 * Called by detach after the device was unpublished (process context):
 * remove its flows and QP entries. A hook that still saw the device may
 * add one more; the maintenance work removes it (its owner is gone).
 */
void rocecc_dp_dev_detach(struct rocecc_dev *rdev)
{
	if (!rocecc_dp_up)
		return;
	rocecc_flow_flush(rdev, false);
	rocecc_qp_flush(rdev, false);
}

/* --- start / stop ------------------------------------------------------------- */

int rocecc_dp_init(void)
{
	int err;

	err = rocecc_flow_init();
	if (err)
		return err;
	err = rocecc_qp_init();
	if (err)
		goto err_flow;
	err = rocecc_hooks_init();
	if (err)
		goto err_qp;
	err = rocecc_qp_ib_register();
	if (err)
		goto err_hooks;
	rocecc_dp_up = true;
	queue_delayed_work(system_wq, &rocecc_dp_gc_work,
			   msecs_to_jiffies(ROCECC_DP_GC_MS));
	return 0;

err_hooks:
	rocecc_hooks_exit();
err_qp:
	rocecc_qp_exit();
	rcu_barrier();
err_flow:
	rocecc_flow_exit();
	return err;
}

void rocecc_dp_exit(void)
{
	s64 fa, ff, qa, qf;

	cancel_delayed_work_sync(&rocecc_dp_gc_work);
	rocecc_hooks_exit();
	rocecc_qp_ib_unregister();
	rocecc_qp_exit();
	rocecc_flow_flush(NULL, true);
	rocecc_dp_up = false;
	/* Every call_rcu() of flows and QP entries has run after this. */
	rcu_barrier();

	fa = atomic64_read(&rocecc_dp_objs.flows_alloc);
	ff = atomic64_read(&rocecc_dp_objs.flows_free);
	qa = atomic64_read(&rocecc_dp_objs.qps_alloc);
	qf = atomic64_read(&rocecc_dp_objs.qps_free);
	if (fa != ff || qa != qf)
		pr_err("datapath leak: flows %lld allocated, %lld freed; QP entries %lld allocated, %lld freed\n",
		       fa, ff, qa, qf);
	else
		pr_info("datapath stopped: %lld flows and %lld QP entries allocated and freed, %lld CNPs sent (%lld not sent)\n",
			fa, qa, atomic64_read(&rocecc_dp_objs.cnp_tx),
			atomic64_read(&rocecc_dp_objs.cnp_tx_err));
	rocecc_flow_exit();
}
