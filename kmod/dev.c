// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc: attached devices.
 *
 * A device is attached by generic netlink (ROCECC_CMD_DEV_ATTACH) and left
 * by ROCECC_CMD_DEV_DETACH, by its unregistration (netdevice notifier) or at
 * module unload. Locking and lifetime rules: see rocecc.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_arp.h>
#include <linux/netdevice.h>
#include <linux/notifier.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/net_namespace.h>
#include <net/netlink.h>

#include <rocecc/bpf_engine.h>
#include "rocecc.h"

/* The one control-plane lock (see rocecc.h). */
DEFINE_MUTEX(rocecc_lock);

/*
 * Attached devices by ifindex. An xarray: RCU lookups without a lock from
 * the datapath, small for the handful of small ifindexes a host has (one
 * 576-byte node covers ifindexes 0..63), and ordered iteration for dumps.
 * Its internal spinlock only serialises writers, which also hold
 * rocecc_lock; nobody writes from softirq, so no _bh variant is needed.
 */
DEFINE_XARRAY(rocecc_devs);

/* Bumped under rocecc_lock on attach and detach, for dump consistency. */
unsigned int rocecc_devs_gen;

void rocecc_dev_read_ctrs(const struct rocecc_dev *rdev,
			  u64 sum[ROCECC_CTR_NUM])
{
	u64 v[ROCECC_CTR_NUM];
	unsigned int start;
	int cpu, i;

	memset(sum, 0, sizeof(u64) * ROCECC_CTR_NUM);
	/*
	 * With softirqs off no datapath writer can interrupt the read on
	 * this CPU (on 32-bit UP the seqcount is compiled out); other CPUs'
	 * writers are caught by the seqcount on 32-bit SMP. 64-bit reads of
	 * u64_stats_t never tear.
	 */
	local_bh_disable();
	for_each_possible_cpu(cpu) {
		const struct rocecc_pcpu_ctrs *c = per_cpu_ptr(rdev->ctrs, cpu);

		do {
			start = u64_stats_fetch_begin(&c->syncp);
			for (i = 0; i < ROCECC_CTR_NUM; i++)
				v[i] = u64_stats_read(&c->c[i]);
		} while (u64_stats_fetch_retry(&c->syncp, start));
		for (i = 0; i < ROCECC_CTR_NUM; i++)
			sum[i] += v[i];
	}
	local_bh_enable();
}

/*
 * The attached device named by @ifindex (if non-zero) or @name (if
 * non-NULL), or NULL with an extack message. Caller holds rocecc_lock.
 */
struct rocecc_dev *rocecc_dev_find(u32 ifindex, const char *name,
				   struct netlink_ext_ack *extack)
{
	struct rocecc_dev *rdev = NULL, *it;
	unsigned long idx;

	lockdep_assert_held(&rocecc_lock);
	if (ifindex) {
		rdev = xa_load(&rocecc_devs, ifindex);
	} else if (name) {
		xa_for_each(&rocecc_devs, idx, it) {
			if (!strcmp(it->name, name)) {
				rdev = it;
				break;
			}
		}
	}
	if (!rdev) {
		NL_SET_ERR_MSG_MOD(extack, "device is not attached to rocecc");
		return NULL;
	}
	if (ifindex && name && strcmp(rdev->name, name)) {
		NL_SET_ERR_MSG_MOD(extack, "ifindex and name refer to different devices");
		return NULL;
	}
	return rdev;
}

static void rocecc_dev_free(struct rocecc_dev *rdev)
{
	rocecc_dcb_free(rdev);
	kfree(rcu_dereference_protected(rdev->params, 1));
	free_percpu(rdev->ctrs);
	kfree(rdev);
}

static void rocecc_dev_free_rcu(struct rcu_head *head)
{
	rocecc_dev_free(container_of(head, struct rocecc_dev, rcu));
}

/*
 * Drop a reference to @rdev (struct rocecc_dev: the table's, and a
 * detach's while it waits unlocked); the last one frees it after a grace
 * period, for the datapath's RCU readers.
 */
static void rocecc_dev_put(struct rocecc_dev *rdev)
{
	if (refcount_dec_and_test(&rdev->ref))
		call_rcu(&rdev->rcu, rocecc_dev_free_rcu);
}

static bool rocecc_name_ok(const char *name)
{
	/* "default" is the sysctl directory of the default set. */
	return strcmp(name, "default") != 0;
}

/*
 * The device @ifindex and/or @name names, if it may be attached: a
 * registered Ethernet device of the initial netns that the BPF engine
 * does not drive. RTNL held. ERR_PTR() with @extack set otherwise.
 */
static struct net_device *rocecc_dev_attachable(u32 ifindex, const char *name,
						struct netlink_ext_ack *extack)
{
	struct net_device *netdev;

	ASSERT_RTNL();
	if (ifindex)
		netdev = __dev_get_by_index(&init_net, ifindex);
	else
		netdev = __dev_get_by_name(&init_net, name);
	if (!netdev || netdev->reg_state != NETREG_REGISTERED) {
		NL_SET_ERR_MSG_MOD(extack, "no such device in the initial netns");
		return ERR_PTR(-ENODEV);
	}
	if (ifindex && name && strcmp(netdev->name, name)) {
		NL_SET_ERR_MSG_MOD(extack, "ifindex and name refer to different devices");
		return ERR_PTR(-EINVAL);
	}
	if (netdev->type != ARPHRD_ETHER || (netdev->flags & IFF_LOOPBACK)) {
		NL_SET_ERR_MSG_MOD(extack, "not an Ethernet device: RoCEv2 runs over Ethernet");
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (!rocecc_name_ok(netdev->name)) {
		NL_SET_ERR_MSG_MOD(extack, "the name 'default' clashes with net.rocecc.default");
		return ERR_PTR(-EINVAL);
	}
	/* The two engines never drive one netdev (bpf_engine.c). */
	if (rocecc_bpf_engine_drives(netdev)) {
		NL_SET_ERR_MSG_MOD(extack, ROCECC_BPF_ENGINE_DRIVES);
		return ERR_PTR(-EBUSY);
	}
	return netdev;
}

/*
 * A new, unpublished object for @netdev: its counters and its own
 * parameter block, a copy of the default set (rocecc_lock held).
 */
static struct rocecc_dev *rocecc_dev_alloc(const struct net_device *netdev)
{
	struct rocecc_dev *rdev;
	struct rocecc_pset *ps;
	int cpu;

	/* One object per attached device, freed after detach. */
	rdev = kzalloc(sizeof(*rdev), GFP_KERNEL);
	if (!rdev)
		return NULL;
	rdev->ifindex = netdev->ifindex;
	refcount_set(&rdev->ref, 1);		/* the table's */
	strscpy(rdev->name, netdev->name, sizeof(rdev->name));

	/* Per-CPU counters: see struct rocecc_pcpu_ctrs. */
	rdev->ctrs = alloc_percpu_gfp(struct rocecc_pcpu_ctrs,
				      GFP_KERNEL | __GFP_ZERO);
	if (!rdev->ctrs)
		goto err;
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(rdev->ctrs, cpu)->syncp);

	ps = kmalloc(sizeof(*ps), GFP_KERNEL);
	if (!ps)
		goto err;
	ps->p = *rocecc_params_locked(NULL);
	RCU_INIT_POINTER(rdev->params, ps);
	return rdev;

err:
	rocecc_dev_free(rdev);
	return NULL;
}

/*
 * Publish @rdev for @netdev: from here the datapath, dcbnl and genl find
 * it. RTNL and rocecc_lock held, the table slot reserved.
 */
static void rocecc_dev_publish(struct rocecc_dev *rdev,
			       struct net_device *netdev)
{
	WARN_ON_ONCE(xa_err(xa_store(&rocecc_devs, rdev->ifindex, rdev,
				     GFP_KERNEL)));
	netdev_hold(netdev, &rdev->dev_tracker, GFP_KERNEL);
	rdev->netdev = netdev;
	/* dcbnl runs under RTNL, which we hold: it sees a complete device. */
	rocecc_dcb_publish(rdev, netdev);
	rocecc_devs_gen++;
	rocecc_genl_notify_dev(ROCECC_CMD_DEV_ATTACHED, rdev);
}

int rocecc_dev_attach(u32 ifindex, const char *name,
		      struct netlink_ext_ack *extack)
{
	struct net_device *netdev;
	struct rocecc_dev *rdev;
	int err;

	/*
	 * RTNL keeps the device registered from the lookup until it is in
	 * the table: its unregistration notifier, which detaches it again,
	 * cannot run in between.
	 */
	rtnl_lock();
	netdev = rocecc_dev_attachable(ifindex, name, extack);
	if (IS_ERR(netdev)) {
		err = PTR_ERR(netdev);
		goto out_rtnl;
	}

	mutex_lock(&rocecc_lock);
	if (xa_load(&rocecc_devs, netdev->ifindex)) {
		NL_SET_ERR_MSG_MOD(extack, "device is already attached");
		err = -EEXIST;
		goto out_unlock;
	}
	rdev = rocecc_dev_alloc(netdev);
	if (!rdev) {
		err = -ENOMEM;
		goto out_unlock;
	}

	/* The datapath's checks (fq qdisc) and its per-device state. */
	err = rocecc_dp_dev_attach(rdev, netdev, extack);
	if (err)
		goto out_free;

	/* Software DCB state (installs no ops yet: rocecc_dev_publish()). */
	err = rocecc_dcb_attach(rdev, netdev);
	if (err)
		goto out_free;

	/*
	 * Reserve the table slot first, so that nothing can fail once the
	 * sysctl directory exists: undoing it would mean unregistering it
	 * with rocecc_lock held, which its handlers may be waiting for.
	 */
	err = xa_reserve(&rocecc_devs, rdev->ifindex, GFP_KERNEL);
	if (err)
		goto out_free;
	err = rocecc_sysctl_register(rdev, rdev->name, &rdev->sysctl_hdr,
				     &rdev->sysctl_tbl);
	if (err) {
		xa_release(&rocecc_devs, rdev->ifindex);
		NL_SET_ERR_MSG_MOD(extack, "cannot register the device's sysctl directory");
		goto out_free;
	}

	rocecc_dev_publish(rdev, netdev);
	mutex_unlock(&rocecc_lock);
	rtnl_unlock();
	pr_info("%s: attached\n", rdev->name);
	return 0;

out_free:
	rocecc_dev_free(rdev);
out_unlock:
	mutex_unlock(&rocecc_lock);
out_rtnl:
	rtnl_unlock();
	return err;
}

/*
 * Unpublish @rdev and send its event. Caller holds RTNL and rocecc_lock,
 * then calls rocecc_dev_release() after dropping rocecc_lock.
 */
static void rocecc_dev_unlink(struct rocecc_dev *rdev,
			      enum rocecc_detach_why why)
{
	ASSERT_RTNL();
	lockdep_assert_held(&rocecc_lock);

	/* While still published: its final XON needs the device. */
	rocecc_dcb_detach(rdev, rdev->netdev);
	xa_erase(&rocecc_devs, rdev->ifindex);
	rdev->dead = true;
	rocecc_dp_dev_detach(rdev);
	rocecc_devs_gen++;
	if (why == ROCECC_DETACH_REQUEST)
		rocecc_genl_notify_dev(ROCECC_CMD_DEV_DETACHED, rdev);
	else if (why == ROCECC_DETACH_GONE)
		rocecc_genl_notify_dev(ROCECC_CMD_DEV_GONE, rdev);
	netdev_put(rdev->netdev, &rdev->dev_tracker);
	rdev->netdev = NULL;
}

/*
 * Remove the sysctl directory (waits for running handlers, which may be
 * waiting for rocecc_lock: the caller must not hold it) and drop the
 * table's reference to @rdev.
 */
static void rocecc_dev_release(struct rocecc_dev *rdev)
{
	pr_info("%s: detached\n", rdev->name);
	rocecc_sysctl_unregister(rdev->sysctl_hdr, rdev->sysctl_tbl);
	rdev->sysctl_hdr = NULL;
	rdev->sysctl_tbl = NULL;
	rocecc_dev_put(rdev);
}

int rocecc_dev_detach(u32 ifindex, const char *name,
		      struct netlink_ext_ack *extack)
{
	struct rocecc_dev *rdev;
	bool gone;

	/*
	 * Stop pacing the device, then wait until what pacing holds in fq
	 * has left (dp.c, rocecc_dp_dev_drain()): up to pacing_max_delay_us,
	 * so without any lock, or every netlink and netdev operation of the
	 * host would wait too. rocecc_lock: the table. The reference keeps
	 * @rdev from being freed meanwhile.
	 */
	mutex_lock(&rocecc_lock);
	rdev = rocecc_dev_find(ifindex, name, extack);
	if (rdev) {
		rocecc_dp_dev_drain(rdev);
		refcount_inc(&rdev->ref);
	}
	mutex_unlock(&rocecc_lock);
	if (!rdev)
		return -ENODEV;
	rocecc_dp_drain_wait(rdev);

	/*
	 * RTNL: the lock order, and the notifier's view of the table;
	 * rocecc_lock: the table. Meanwhile the device may have left:
	 * unregistered (the notifier detaches it at once, see there) or
	 * detached by a concurrent request. Otherwise it is still attached
	 * as this object (attach refuses an attached ifindex) and still
	 * draining (nothing clears it).
	 */
	rtnl_lock();
	mutex_lock(&rocecc_lock);
	gone = rdev->dead;
	if (!gone)
		rocecc_dev_unlink(rdev, ROCECC_DETACH_REQUEST);
	mutex_unlock(&rocecc_lock);
	if (!gone)
		rocecc_dev_release(rdev);
	rtnl_unlock();
	rocecc_dev_put(rdev);
	if (gone) {
		NL_SET_ERR_MSG_MOD(extack, "device was detached meanwhile");
		return -ENODEV;
	}
	return 0;
}

/*
 * Follow a rename: move the sysctl directory to the new name. Refusing it
 * (a non-zero return) makes the kernel roll the rename back, which keeps
 * the device name and the sysctl directory name always equal.
 */
static int rocecc_dev_rename(struct rocecc_dev *rdev, const char *newname)
{
	struct ctl_table_header *hdr, *old_hdr;
	struct ctl_table *tbl, *old_tbl;
	int err;

	mutex_lock(&rocecc_lock);
	/* Also the rollback of a refused rename: nothing to do. */
	if (!strcmp(rdev->name, newname)) {
		mutex_unlock(&rocecc_lock);
		return 0;
	}
	if (!rocecc_name_ok(newname)) {
		mutex_unlock(&rocecc_lock);
		pr_notice("%s: refusing rename to '%s' while attached: it would clash with net.rocecc.default\n",
			  rdev->name, newname);
		return -EEXIST;
	}
	err = rocecc_sysctl_register(rdev, newname, &hdr, &tbl);
	if (err) {
		mutex_unlock(&rocecc_lock);
		pr_notice("%s: refusing rename to '%s': cannot move net.rocecc.%s (%d)\n",
			  rdev->name, newname, rdev->name, err);
		return err;
	}
	old_hdr = rdev->sysctl_hdr;
	old_tbl = rdev->sysctl_tbl;
	rdev->sysctl_hdr = hdr;
	rdev->sysctl_tbl = tbl;
	strscpy(rdev->name, newname, sizeof(rdev->name));
	mutex_unlock(&rocecc_lock);
	rocecc_sysctl_unregister(old_hdr, old_tbl);
	return 0;
}

static int rocecc_netdev_event(struct notifier_block *nb, unsigned long event,
			       void *ptr)
{
	struct net_device *netdev = netdev_notifier_info_to_dev(ptr);
	struct rocecc_dev *rdev;

	if (event != NETDEV_UNREGISTER && event != NETDEV_CHANGENAME &&
	    event != NETDEV_CHANGE && event != NETDEV_CHANGEMTU)
		return NOTIFY_DONE;
	if (!net_eq(dev_net(netdev), &init_net))
		return NOTIFY_DONE;

	/* RTNL is held: attach and detach cannot change the table now. */
	rdev = xa_load(&rocecc_devs, netdev->ifindex);
	if (!rdev || rdev->netdev != netdev)
		return NOTIFY_DONE;

	if (event == NETDEV_CHANGENAME)
		return notifier_from_errno(rocecc_dev_rename(rdev, netdev->name));
	if (event == NETDEV_CHANGE || event == NETDEV_CHANGEMTU) {
		/* Link speed, MTU: PFC quanta and thresholds. */
		rocecc_dcb_netdev_event(rdev, netdev, event);
		return NOTIFY_DONE;
	}

	/*
	 * Unregistration detaches at once, also a device that a detach is
	 * draining (that detach then finds it dead): nothing pacing held is
	 * left to overtake. The device was closed and its qdisc destroyed,
	 * with the packets fq held, before this notifier runs
	 * (unregister_netdevice_many(): dev_close_many(), dev_shutdown(),
	 * then NETDEV_UNREGISTER), and nothing can be sent on it any more;
	 * the QPs recover those packets as any other loss.
	 */
	mutex_lock(&rocecc_lock);
	rocecc_dev_unlink(rdev, ROCECC_DETACH_GONE);
	mutex_unlock(&rocecc_lock);
	rocecc_dev_release(rdev);
	return NOTIFY_OK;
}

static struct notifier_block rocecc_netdev_nb = {
	.notifier_call = rocecc_netdev_event,
};

int rocecc_dev_init(void)
{
	return register_netdevice_notifier(&rocecc_netdev_nb);
}

/*
 * Module unload, after the genetlink family is gone (no new attach or
 * detach can come): detach everything without events, then stop
 * listening. The notifier is removed last so that no device can be
 * unregistered unseen while it is still attached.
 */
void rocecc_dev_exit(void)
{
	struct rocecc_dev *rdev;
	unsigned long idx;

	/*
	 * As detach does: stop pacing every device, then wait without a
	 * lock (once, for all) until what pacing holds has left. The hooks
	 * still run meanwhile. rocecc_lock: the table. A device unregistered
	 * meanwhile is detached by the notifier (see there).
	 */
	mutex_lock(&rocecc_lock);
	xa_for_each(&rocecc_devs, idx, rdev)
		rocecc_dp_dev_drain(rdev);
	mutex_unlock(&rocecc_lock);
	rocecc_dp_drain_wait(NULL);

	/* RTNL: the lock order, and the notifier's view of the table. */
	rtnl_lock();
	for (;;) {
		idx = 0;
		mutex_lock(&rocecc_lock);
		rdev = xa_find(&rocecc_devs, &idx, ULONG_MAX, XA_PRESENT);
		if (rdev)
			rocecc_dev_unlink(rdev, ROCECC_DETACH_UNLOAD);
		mutex_unlock(&rocecc_lock);
		if (!rdev)
			break;
		rocecc_dev_release(rdev);
	}
	rtnl_unlock();
	unregister_netdevice_notifier(&rocecc_netdev_nb);
	/* Wait for the call_rcu() frees before the module text goes away. */
	rcu_barrier();
}
