// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc: software DCB and PFC (IEEE 802.1Qbb) for attached devices whose
 * driver has no DCB ops (veth, virtio_net, most soft devices).
 *
 * Configuration
 * -------------
 * At attach, a device with netdev->dcbnl_ops == NULL gets rocecc's ops, so
 * that DCB netlink (iproute2 "dcb pfc", "dcb buffer", "dcb app", lldpad)
 * works on it unchanged: IEEE PFC (pfc_en, mbc, delay, and the per-priority
 * requests/indications counters), the receive buffers (prio2buffer, sizes;
 * their total is the module parameter pfc_buffer_total), DCBX mode
 * host-managed IEEE, and APP DSCP entries (they map a received packet's
 * DSCP to its priority). The ops are removed at detach, device unregister
 * and module unload, if they are still ours. A device whose driver has its
 * own ops is left alone (ROCECC_A_DEV_SW_DCB 0). Nothing survives a detach:
 * roceccd re-applies its configuration after an attach.
 *
 * Every dcbnl_rtnl_ops callback runs under RTNL: net/dcb/dcbnl.c of 6.1
 * registers RTM_GETDCB/RTM_SETDCB with rtnl_register(..., 0), so dcb_doit
 * runs with rtnl_lock held, and it reads netdev->dcbnl_ops once per request
 * under that lock. Attach and detach install and remove the ops under RTNL
 * too, so no request can be using them while they change, and a request
 * that sees them finds the device attached (xa_load under RTNL is stable:
 * attach and detach hold RTNL).
 *
 * The configuration is written under RTNL only (these callbacks, attach,
 * the netdevice notifier). The datapath and the generic netlink dump read
 * it without a lock, field by field (READ_ONCE/WRITE_ONCE): each field is
 * meaningful alone (pfc_en, one buffer's xoff/xon, one priority's buffer),
 * a reader that races with a change acts on the old or the new value of
 * each, and the worst outcome is one PFC frame early or late, after which
 * the generation work re-evaluates with the new values. An RCU-replaced
 * block (as for the DCQCN parameters) would buy nothing for that price.
 *
 * Receiving PFC (indications)
 * ---------------------------
 * A packet_type for ETH_P_PAUSE (0x8808) on all devices. For an attached
 * device with software DCB, a PFC frame pauses each PFC-enabled priority in
 * its class-enable vector for the quanta it carries at the cached link
 * speed (0 quanta: resume) through rocecc_sch_pause() of the rocecc qdisc.
 * indications[p] counts every frame that names p, PFC enabled on p or not
 * (what a PFC watchdog needs to see after turning PFC off). When the root
 * qdisc is not rocecc's, nothing can hold that priority's packets back:
 * the frame is counted in
 * pfc_unenforced and a warning names the device once. An 802.3x PAUSE
 * (opcode 1) is counted (pause_frames_rx) and not obeyed: a link runs
 * either PFC or PAUSE, and one with PFC ignores PAUSE (802.1Qbb 36.1.3.3).
 * MAC control frames are link-local and nothing else in the stack wants
 * them (without a handler the core drops them), so they are consumed; a
 * second ETH_P_PAUSE handler would still get the frame (the core hands
 * every matching packet_type its own reference). On a bridge port the
 * bridge's rx_handler drops PAUSE/PFC frames before packet types see them.
 * Indications are counted per (frame, priority), as ieee_pfc.indications.
 * Pause quanta are converted at the link speed cached at attach and on
 * NETDEV_CHANGE (ethtool, 10000 Mb/s if unknown; the module parameter
 * pfc_speed_mbps, when set, instead: emulated links such as veth report a
 * speed that is not the one their PFC should assume).
 *
 * Generating PFC (requests) from host occupancy
 * ---------------------------------------------
 * Occupancy of priority p: the bytes (IP length + Ethernet header) of
 * RoCEv2 packets of priority p that arrived on the device for a local
 * address and passed our LOCAL_IN hook (hooks.c) and that the RDMA
 * transport (rdma_rxe) has not released yet: from the hook until the skb
 * is freed, which rxe does after its responder or completer has processed
 * the packet (or when it drops it). That is the host's receive buffer in
 * software: what came off the wire and the host has not consumed. A NIC
 * counts the same thing in its packet buffer, between the MAC and the DMA
 * to host memory; with soft-RoCE the consumer is rxe's tasks, and a host
 * that falls behind (CPU starved, QP backlog) shows it here.
 *
 * The measure is an skb destructor. In LOCAL_IN, a RoCEv2 packet of a
 * PFC-enabled priority that has neither an owner (skb->sk) nor a
 * destructor gets rocecc_occ_destructor() and a record: (skb address,
 * accounting object, bytes, priority, buffer), kept in a small hash table
 * keyed by the skb's address. Nothing in the skb itself is used: skb->cb
 * belongs to IP/UDP and then rxe (struct rxe_pkt_info), and mark or
 * priority are visible to others. The destructor looks its record up by
 * the skb's address, which is unique while the skb lives, subtracts the
 * bytes and frees the record; a lookup that misses (cannot happen in 6.1)
 * subtracts nothing, so a copied destructor could never count twice.
 *
 * Why the destructor survives from LOCAL_IN to rxe's free (6.1): after
 * LOCAL_IN come ip_local_deliver_finish, udp_rcv, __udp4_lib_rcv (whose
 * skb_steal_sock() clears the destructor only if skb->sk is set, and we
 * only take skbs without one; early demux, which sets sk, ran before
 * LOCAL_IN and matches connected sockets only, rxe's is not), then
 * udp_queue_rcv_one_skb -> encap_rcv = rxe_udp_encap_recv -> rxe_rcv,
 * which queues the skb on the QP (skb_queue_tail) and frees it with
 * kfree_skb/consume_skb. skb_clone (rxe's multicast fan-out) never copies a
 * destructor; skb_linearize/pskb_expand_head keep it; skb_orphan() would
 * run it early, which is fine (the bytes leave the count then). A GSO skb
 * (UDP GRO) is segmented and the original consumed: its bytes leave the
 * count then, the segments are not counted.
 *
 * The accounting object (struct rocecc_dcb) is refcounted: the attached
 * device holds one reference (dropped when the device is freed, after a
 * grace period, so a hook that found the device under RCU may still take
 * one), every record one, and every queued generation work one. It thus
 * outlives detach while skbs of the device are in flight; detach marks it
 * dead, which stops frames and new work. Module unload cannot leave an skb
 * with our destructor behind: the hooks are unregistered first (no new
 * records), then rocecc_dcb_exit() waits until the global count of
 * outstanding records is zero (rxe frees its packets in bounded time, also
 * when a QP or the device is destroyed; it logs while it waits), and a
 * grace period covers the destructor's last instructions (its decrement
 * runs with preemption disabled).
 *
 * A buffer's occupancy is the sum over the priorities mapped to it. When
 * to send XOFF, refresh it and send XON is rocecc_pfc_gen()
 * (include/rocecc/pfc.h: the thresholds of rocecc_pfc_thresholds(), a
 * refresh at half the pause, the latched crossing of xoff that makes a
 * burst rxe drains before the work runs still send its XOFF, then the
 * XON); requests[p] counts every frame that names p. The hook latches the
 * crossing and kicks the work when a buffer reaches xoff, the destructor
 * kicks it when a paused buffer falls to xon; they never send (the
 * destructor may run with interrupts off, where dev_queue_xmit() must not
 * be called; a work item gives process context and coalesces kicks). The
 * work samples the occupancy, runs rocecc_pfc_gen() and sends its frame;
 * an hrtimer (jiffies are 4 ms at HZ=250, longer than a 65535-quanta
 * pause at 10 Gb/s) kicks it for the refresh.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/hash.h>
#include <linux/hrtimer.h>
#include <linux/if_ether.h>
#include <linux/list.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/dcbnl.h>
#include <net/net_namespace.h>
#include <net/netlink.h>
#include <rocecc/pfc.h>

#include "rocecc.h"

#define ROCECC_DCB_PRIOS	ROCECC_PFC_PRIOS
#define ROCECC_DCB_BUFS		DCBX_MAX_BUFFERS
static_assert(ROCECC_DCB_BUFS == ROCECC_PFC_BUFS,
	      "the shared PFC generation has as many buffers as DCB");

static unsigned int rocecc_pfc_buffer_total = 256 * 1024;
module_param_named(pfc_buffer_total, rocecc_pfc_buffer_total, uint, 0644);
MODULE_PARM_DESC(pfc_buffer_total,
		 "total size of the software PFC receive buffers of a device, in bytes (default 262144): the limit of the sum of 'dcb buffer' sizes");

static unsigned int rocecc_pfc_speed_mbps;
module_param_named(pfc_speed_mbps, rocecc_pfc_speed_mbps, uint, 0644);
MODULE_PARM_DESC(pfc_speed_mbps,
		 "link speed for PFC pause quanta, in Mb/s, taken at attach; 0 (default): the device's own (ethtool), 10000 where it reports none; else this speed whatever the device says (emulated links)");

/* struct rocecc_dcb.flags */
enum {
	ROCECC_DCB_WARNED_UNENFORCED,
};

/*
 * Software DCB of one attached device, and its occupancy accounting.
 * Allocated at attach (kzalloc, one per attached device); freed when the
 * last reference goes (see the top of this file).
 */
struct rocecc_dcb {
	refcount_t	ref;
	int		ifindex;
	bool		sw;		/* our ops are installed; constant */

	/* Configuration: written under RTNL, read with READ_ONCE. */
	u8		pfc_en;
	u8		mbc;
	u16		delay;
	u8		prio2buffer[ROCECC_DCB_PRIOS];
	u32		buffer_size[ROCECC_DCB_BUFS];
	u32		xoff[ROCECC_DCB_BUFS];
	u32		xon[ROCECC_DCB_BUFS];
	u32		speed_mbps;
	u8		dscp2prio[64];

	/*
	 * Counters and gauges. Atomics, not per-CPU: PFC frames are rare,
	 * and the occupancy must be exact at every instant to be compared
	 * with the thresholds.
	 */
	atomic64_t	indications[ROCECC_DCB_PRIOS];
	atomic64_t	requests[ROCECC_DCB_PRIOS];
	atomic64_t	unenforced;
	atomic64_t	pause_rx;
	atomic64_t	tx_errors;
	atomic64_t	untracked;
	atomic_t	occ[ROCECC_DCB_PRIOS];		/* bytes */
	atomic_t	occ_max[ROCECC_DCB_PRIOS];
	atomic_t	occ_buf[ROCECC_DCB_BUFS];
	unsigned long	flags;

	/*
	 * Generation state. @lock serialises the work and detach, both in
	 * process context (the timer and the packet paths never take it: they
	 * only kick the work). @paused_mask (bit b: buffer b has an XOFF out)
	 * is read locklessly by the hook and the destructor to decide whether
	 * to kick the work.
	 */
	spinlock_t	lock;
	bool		dead;				/* detached */
	/*
	 * Bit b: buffer b crossed xoff (set by the hook, taken by the work),
	 * so that a burst rxe drains before the work runs still sends its
	 * XOFF (and the XON right after), as a NIC's buffer would.
	 */
	unsigned long	xoff_req;
	u8		paused_mask;
	/* Per buffer: the priorities XOFF'd and their refresh (pfc.h). */
	struct rocecc_pfc_gen_buf gen[ROCECC_DCB_BUFS];
	struct work_struct work;
	struct hrtimer	timer;
};

/*
 * One accounted skb. Allocated in LOCAL_IN (GFP_ATOMIC, from a slab cache:
 * one per RoCE packet of a PFC priority in the host), freed by the skb's
 * destructor.
 */
struct rocecc_occ_rec {
	struct hlist_node	node;
	const struct sk_buff	*skb;	/* key: never dereferenced */
	struct rocecc_dcb	*dcb;	/* holds a reference */
	u32			bytes;
	u8			prio;
	u8			buf;
};

#define ROCECC_OCC_HASH_BITS	8

/*
 * Records by skb address. One spinlock per bucket, taken with interrupts
 * saved: the destructor runs wherever the skb is freed, which may be with
 * interrupts off.
 */
static struct rocecc_occ_bucket {
	spinlock_t		lock;	/* protects @head */
	struct hlist_head	head;
} rocecc_occ_hash[1 << ROCECC_OCC_HASH_BITS];

static struct kmem_cache *rocecc_occ_cache;
/* Records outstanding, all devices: module exit waits for 0. */
static atomic_t rocecc_occ_outstanding = ATOMIC_INIT(0);
/*
 * The generation work runs here, not on system_wq, so that module exit
 * can drain it (destroy_workqueue) without flushing a shared queue.
 */
static struct workqueue_struct *rocecc_dcb_wq;

static void rocecc_dcb_put(struct rocecc_dcb *d)
{
	/* Last reference: no timer, no work, no record is left. */
	if (refcount_dec_and_test(&d->ref))
		kfree(d);
}

/* Run the generation work; the caller holds a reference. Any context. */
static void rocecc_dcb_kick(struct rocecc_dcb *d)
{
	if (READ_ONCE(d->dead))
		return;
	refcount_inc(&d->ref);		/* the work's, put by the work */
	if (!queue_work(rocecc_dcb_wq, &d->work))
		rocecc_dcb_put(d);
}

/* --- configuration (under RTNL) ----------------------------------------- */

static void rocecc_dcb_thresholds(struct rocecc_dcb *d,
				  const struct net_device *netdev)
{
	u32 xoff, xon;
	int b;

	ASSERT_RTNL();
	for (b = 0; b < ROCECC_DCB_BUFS; b++) {
		rocecc_pfc_thresholds(d->buffer_size[b], netdev->mtu + ETH_HLEN,
				      d->delay, &xoff, &xon);
		WRITE_ONCE(d->xoff[b], xoff);
		WRITE_ONCE(d->xon[b], xon);
	}
}

/* The speed pause quanta are converted at: pfc_speed_mbps, else ethtool's. */
static u32 rocecc_dcb_link_speed(struct net_device *netdev)
{
	u32 forced = READ_ONCE(rocecc_pfc_speed_mbps);
	struct ethtool_link_ksettings ks;

	ASSERT_RTNL();
	if (forced)
		return forced;
	if (!__ethtool_get_link_ksettings(netdev, &ks) &&
	    ks.base.speed != SPEED_UNKNOWN && ks.base.speed > 0)
		return ks.base.speed;
	return 0;
}

/* The DSCP -> priority map: APP DSCP entries of the device, else DSCP >> 3. */
static void rocecc_dcb_dscp_map(struct rocecc_dcb *d, struct net_device *netdev)
{
	struct dcb_ieee_app_prio_map map;
	u8 m[64];
	int dscp;

	ASSERT_RTNL();
	dcb_ieee_getapp_prio_dscp_mask_map(netdev, &map);
	/* Several entries for one DSCP: the highest priority wins. */
	rocecc_dscp_map(map.map, m);
	for (dscp = 0; dscp < 64; dscp++)
		WRITE_ONCE(d->dscp2prio[dscp], m[dscp]);
	/* The egress qdisc classifies with the same map. */
	rocecc_sch_set_dscp_map(netdev, m);
}

/* Under RTNL: attach and detach hold it, so the device stays attached. */
static struct rocecc_dcb *rocecc_dcb_of(struct net_device *netdev)
{
	struct rocecc_dev *rdev;

	ASSERT_RTNL();
	if (!net_eq(dev_net(netdev), &init_net))
		return NULL;
	rdev = xa_load(&rocecc_devs, netdev->ifindex);
	if (!rdev || rdev->netdev != netdev || !rdev->dcb->sw)
		return NULL;
	return rdev->dcb;
}

/*
 * Under RTNL: @netdev's DSCP -> priority map into @map, for a rocecc qdisc
 * created on it: the APP table's when rocecc.ko provides its DCB, else
 * rocecc_dscp_prio_default().
 */
void rocecc_dcb_dscp_prio(struct net_device *netdev, u8 map[64])
{
	struct rocecc_dcb *d = rocecc_dcb_of(netdev);
	int dscp;

	for (dscp = 0; dscp < 64; dscp++)
		map[dscp] = d ? READ_ONCE(d->dscp2prio[dscp]) :
				rocecc_dscp_prio_default(dscp);
}

static int rocecc_dcb_ieee_getpfc(struct net_device *netdev,
				  struct ieee_pfc *pfc)
{
	struct rocecc_dcb *d = rocecc_dcb_of(netdev);
	int p;

	if (!d)
		return -ENODEV;
	pfc->pfc_cap = ROCECC_DCB_PRIOS;
	pfc->pfc_en = d->pfc_en;
	pfc->mbc = d->mbc;
	pfc->delay = d->delay;
	for (p = 0; p < ROCECC_DCB_PRIOS; p++) {
		pfc->requests[p] = atomic64_read(&d->requests[p]);
		pfc->indications[p] = atomic64_read(&d->indications[p]);
	}
	return 0;
}

static int rocecc_dcb_ieee_setpfc(struct net_device *netdev,
				  struct ieee_pfc *pfc)
{
	struct rocecc_dcb *d = rocecc_dcb_of(netdev);

	if (!d)
		return -ENODEV;
	WRITE_ONCE(d->pfc_en, pfc->pfc_en);
	d->mbc = pfc->mbc;
	d->delay = pfc->delay;
	rocecc_dcb_thresholds(d, netdev);
	/* XON for priorities that lost PFC, XOFF for new ones above xoff. */
	rocecc_dcb_kick(d);
	return 0;
}

static int rocecc_dcb_getbuffer(struct net_device *netdev,
				struct dcbnl_buffer *buf)
{
	struct rocecc_dcb *d = rocecc_dcb_of(netdev);
	int i;

	if (!d)
		return -ENODEV;
	for (i = 0; i < ROCECC_DCB_PRIOS; i++)
		buf->prio2buffer[i] = d->prio2buffer[i];
	for (i = 0; i < ROCECC_DCB_BUFS; i++)
		buf->buffer_size[i] = d->buffer_size[i];
	buf->total_size = READ_ONCE(rocecc_pfc_buffer_total);
	return 0;
}

static int rocecc_dcb_setbuffer(struct net_device *netdev,
				struct dcbnl_buffer *buf)
{
	struct rocecc_dcb *d = rocecc_dcb_of(netdev);
	u32 total = READ_ONCE(rocecc_pfc_buffer_total);
	u64 sum = 0;
	int i;

	if (!d)
		return -ENODEV;
	/* dcbnl checks prio2buffer too (6.1); say which device and value. */
	for (i = 0; i < ROCECC_DCB_PRIOS; i++) {
		if (buf->prio2buffer[i] >= ROCECC_DCB_BUFS) {
			pr_info_ratelimited("%s: dcb buffer: priority %d mapped to buffer %u, only %u buffers\n",
					    netdev->name, i, buf->prio2buffer[i],
					    ROCECC_DCB_BUFS);
			return -EINVAL;
		}
	}
	for (i = 0; i < ROCECC_DCB_BUFS; i++)
		sum += buf->buffer_size[i];
	if (sum > total) {
		pr_info_ratelimited("%s: dcb buffer: buffer sizes add up to %llu bytes, more than the total %u (module parameter pfc_buffer_total)\n",
				    netdev->name, sum, total);
		return -EINVAL;
	}
	for (i = 0; i < ROCECC_DCB_PRIOS; i++)
		WRITE_ONCE(d->prio2buffer[i], buf->prio2buffer[i]);
	for (i = 0; i < ROCECC_DCB_BUFS; i++)
		d->buffer_size[i] = buf->buffer_size[i];
	rocecc_dcb_thresholds(d, netdev);
	rocecc_dcb_kick(d);
	return 0;
}

static u8 rocecc_dcb_getdcbx(struct net_device *netdev)
{
	return DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE;
}

/* dcbnl: 0 accepts the mode, anything else refuses it. */
static u8 rocecc_dcb_setdcbx(struct net_device *netdev, u8 mode)
{
	return mode == (DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE) ? 0 : 1;
}

static int rocecc_dcb_ieee_setapp(struct net_device *netdev,
				  struct dcb_app *app)
{
	struct rocecc_dcb *d = rocecc_dcb_of(netdev);
	int err;

	if (!d)
		return -ENODEV;
	/* The core keeps the table (one small allocation per entry). */
	err = dcb_ieee_setapp(netdev, app);
	if (!err && app->selector == IEEE_8021QAZ_APP_SEL_DSCP)
		rocecc_dcb_dscp_map(d, netdev);
	return err;
}

static int rocecc_dcb_ieee_delapp(struct net_device *netdev,
				  struct dcb_app *app)
{
	struct rocecc_dcb *d = rocecc_dcb_of(netdev);
	int err;

	if (!d)
		return -ENODEV;
	err = dcb_ieee_delapp(netdev, app);
	if (!err && app->selector == IEEE_8021QAZ_APP_SEL_DSCP)
		rocecc_dcb_dscp_map(d, netdev);
	return err;
}

static const struct dcbnl_rtnl_ops rocecc_dcbnl_ops = {
	.ieee_getpfc		= rocecc_dcb_ieee_getpfc,
	.ieee_setpfc		= rocecc_dcb_ieee_setpfc,
	.ieee_setapp		= rocecc_dcb_ieee_setapp,
	.ieee_delapp		= rocecc_dcb_ieee_delapp,
	.dcbnl_getbuffer	= rocecc_dcb_getbuffer,
	.dcbnl_setbuffer	= rocecc_dcb_setbuffer,
	.getdcbx		= rocecc_dcb_getdcbx,
	.setdcbx		= rocecc_dcb_setdcbx,
};

/* --- PFC generation ------------------------------------------------------ */

/* PFC priorities of buffer @b. */
static u8 rocecc_dcb_buf_prios(const struct rocecc_dcb *d, int b)
{
	u8 en = READ_ONCE(d->pfc_en), prios = 0;
	int p;

	for (p = 0; p < ROCECC_DCB_PRIOS; p++)
		if ((en & BIT(p)) && READ_ONCE(d->prio2buffer[p]) == b)
			prios |= BIT(p);
	return prios;
}

/*
 * Send one PFC frame on the device: XOFF (@quanta) for @xoff, XON for
 * @xon. Process context. Returns 0 if the frame was handed to the device.
 */
static int rocecc_dcb_send(struct rocecc_dcb *d, u8 xoff, u8 xon, u16 quanta)
{
	struct rocecc_pfc_msg m = { .enable = xoff | xon };
	struct rocecc_dev *rdev;
	struct net_device *dev;
	struct sk_buff *skb;
	int p, err = -ENODEV;

	for (p = 0; p < ROCECC_DCB_PRIOS; p++)
		m.quanta[p] = (xoff & BIT(p)) ? quanta : 0;
	rcu_read_lock();
	/* Only while the device is attached with this object. */
	rdev = rocecc_dev_lookup_rcu(d->ifindex);
	dev = dev_get_by_index_rcu(&init_net, d->ifindex);
	if (!rdev || rdev->dcb != d || !dev)
		goto out;
	/* One 60-byte frame, freed by the device after transmission. */
	skb = alloc_skb(LL_RESERVED_SPACE(dev) + ROCECC_PFC_FRAME_LEN +
			dev->needed_tailroom, GFP_ATOMIC);
	if (!skb) {
		err = -ENOMEM;
		goto out;
	}
	skb_reserve(skb, LL_RESERVED_SPACE(dev));
	rocecc_pfc_build(skb_put(skb, ROCECC_PFC_FRAME_LEN), dev->dev_addr,
			 &m);
	skb_reset_mac_header(skb);
	skb_set_network_header(skb, ETH_HLEN);
	skb->dev = dev;
	skb->protocol = htons(ETH_P_PAUSE);
	skb->priority = TC_PRIO_CONTROL;
	/* net_xmit_eval() evaluates its argument twice: not the call. */
	err = dev_queue_xmit(skb);
	err = net_xmit_eval(err);
out:
	rcu_read_unlock();
	return err;
}

static void rocecc_dcb_work_fn(struct work_struct *work)
{
	struct rocecc_dcb *d = container_of(work, struct rocecc_dcb, work);
	struct rocecc_pfc_gen_in in;
	struct rocecc_pfc_gen_out out;
	u32 speed;
	int b, p;

	in.now = ktime_get_ns();
	speed = READ_ONCE(d->speed_mbps);
	in.pause_ns = rocecc_pfc_quanta_ns(ROCECC_PFC_QUANTA_MAX, speed);
	spin_lock(&d->lock);
	if (d->dead)
		goto out_unlock;
	in.crossed = xchg(&d->xoff_req, 0);
	for (b = 0; b < ROCECC_DCB_BUFS; b++) {
		in.prios[b] = rocecc_dcb_buf_prios(d, b);
		in.occ[b] = atomic_read(&d->occ_buf[b]);
		in.xoff[b] = READ_ONCE(d->xoff[b]);
		in.xon[b] = READ_ONCE(d->xon[b]);
	}
	rocecc_pfc_gen(d->gen, &in, &out);
	WRITE_ONCE(d->paused_mask, out.paused_mask);
	if (out.next)
		hrtimer_start(&d->timer, ns_to_ktime(out.next),
			      HRTIMER_MODE_ABS);
	spin_unlock(&d->lock);

	if (out.xoff | out.xon) {
		if (rocecc_dcb_send(d, out.xoff, out.xon,
				    ROCECC_PFC_QUANTA_MAX)) {
			atomic64_inc(&d->tx_errors);
		} else {
			for (p = 0; p < ROCECC_DCB_PRIOS; p++)
				if ((out.xoff | out.xon) & BIT(p))
					atomic64_inc(&d->requests[p]);
		}
	}
	if (out.again)
		rocecc_dcb_kick(d);	/* we hold a reference */
	rocecc_dcb_put(d);
	return;

out_unlock:
	spin_unlock(&d->lock);
	rocecc_dcb_put(d);
}

/* The refresh of an XOFF: hand over to the work (process context). */
static enum hrtimer_restart rocecc_dcb_timer_fn(struct hrtimer *t)
{
	struct rocecc_dcb *d = container_of(t, struct rocecc_dcb, timer);

	/* The device's reference is held: detach cancels this timer first. */
	rocecc_dcb_kick(d);
	return HRTIMER_NORESTART;
}

/* --- occupancy ------------------------------------------------------------- */

static struct rocecc_occ_bucket *rocecc_occ_bucket(const struct sk_buff *skb)
{
	return &rocecc_occ_hash[hash_ptr(skb, ROCECC_OCC_HASH_BITS)];
}

static void rocecc_occ_destructor(struct sk_buff *skb)
{
	struct rocecc_occ_bucket *bk = rocecc_occ_bucket(skb);
	struct rocecc_occ_rec *rec = NULL, *it;
	struct rocecc_dcb *d;
	unsigned long flags;
	u32 occ;

	/* @bk->lock: see rocecc_occ_hash. */
	spin_lock_irqsave(&bk->lock, flags);
	hlist_for_each_entry(it, &bk->head, node) {
		if (it->skb == skb) {
			hlist_del(&it->node);
			rec = it;
			break;
		}
	}
	spin_unlock_irqrestore(&bk->lock, flags);
	if (!rec)
		return;

	d = rec->dcb;
	atomic_sub(rec->bytes, &d->occ[rec->prio]);
	occ = atomic_sub_return(rec->bytes, &d->occ_buf[rec->buf]);
	if ((READ_ONCE(d->paused_mask) & BIT(rec->buf)) &&
	    rocecc_pfc_at_xon(occ, READ_ONCE(d->xon[rec->buf])))
		rocecc_dcb_kick(d);
	kmem_cache_free(rocecc_occ_cache, rec);
	rocecc_dcb_put(d);
	/*
	 * Last: module exit waits for the count to reach zero and then for
	 * a grace period, which waits for this interrupts-off region too.
	 * Interrupts, not preemption: preempt_enable() may schedule here,
	 * local_irq_restore() does not.
	 */
	local_irq_save(flags);
	atomic_dec(&rocecc_occ_outstanding);
	local_irq_restore(flags);
}

/*
 * A RoCEv2 packet (@len bytes from the IP header, DSCP @dscp) for a local
 * address passed LOCAL_IN on @rdev. Under rcu_read_lock(), softirq.
 */
void rocecc_dcb_rx(struct rocecc_dev *rdev, struct sk_buff *skb, u8 dscp,
		   u32 len)
{
	struct rocecc_dcb *d = rdev->dcb;
	struct rocecc_occ_bucket *bk;
	struct rocecc_occ_rec *rec;
	unsigned long flags;
	int occ, max;
	u8 prio;

	if (!d->sw || READ_ONCE(d->dead))
		return;
	prio = READ_ONCE(d->dscp2prio[dscp & 63]);
	if (!(READ_ONCE(d->pfc_en) & BIT(prio)))
		return;
	if (skb->destructor || skb->sk) {
		atomic64_inc(&d->untracked);
		return;
	}
	rec = kmem_cache_alloc(rocecc_occ_cache, GFP_ATOMIC);
	if (!rec) {
		atomic64_inc(&d->untracked);
		return;
	}
	rec->skb = skb;
	rec->bytes = len + ETH_HLEN;
	rec->prio = prio;
	rec->buf = READ_ONCE(d->prio2buffer[prio]);
	/* The device's reference keeps @d alive under RCU: take one. */
	refcount_inc(&d->ref);
	rec->dcb = d;
	atomic_inc(&rocecc_occ_outstanding);
	occ = atomic_add_return(rec->bytes, &d->occ[prio]);
	max = atomic_read(&d->occ_max[prio]);
	while (occ > max && !atomic_try_cmpxchg(&d->occ_max[prio], &max, occ))
		;
	occ = atomic_add_return(rec->bytes, &d->occ_buf[rec->buf]);

	/* @bk->lock: see rocecc_occ_hash. */
	bk = rocecc_occ_bucket(skb);
	spin_lock_irqsave(&bk->lock, flags);
	hlist_add_head(&rec->node, &bk->head);
	spin_unlock_irqrestore(&bk->lock, flags);
	skb->destructor = rocecc_occ_destructor;

	if (!(READ_ONCE(d->paused_mask) & BIT(rec->buf)) &&
	    rocecc_pfc_at_xoff((u32)occ, READ_ONCE(d->xoff[rec->buf]))) {
		set_bit(rec->buf, &d->xoff_req);
		rocecc_dcb_kick(d);
	}
}

/* --- PFC reception ------------------------------------------------------- */

static int rocecc_dcb_pause_rcv(struct sk_buff *skb, struct net_device *dev,
				struct packet_type *pt,
				struct net_device *orig_dev)
{
	u8 buf[ROCECC_PFC_PAYLOAD_LEN];
	struct rocecc_pfc_msg m;
	struct rocecc_dev *rdev;
	struct rocecc_dcb *d;
	const u8 *data;
	u64 now, until;
	u32 len, speed;
	u8 act;
	int p, res;

	/* __netif_receive_skb_core() holds rcu_read_lock(). */
	if (!net_eq(dev_net(dev), &init_net))
		goto out;
	rdev = rocecc_dev_lookup_rcu(dev->ifindex);
	if (!rdev)
		goto out;
	d = rdev->dcb;
	if (!d->sw || READ_ONCE(d->dead))
		goto out;
	len = min_t(u32, skb->len, sizeof(buf));
	data = skb_header_pointer(skb, 0, len, buf);
	if (!data)
		goto out;
	res = rocecc_pfc_parse(data, len, &m);
	if (res == ROCECC_PFC_PARSE_PAUSE) {
		atomic64_inc(&d->pause_rx);
		goto out;
	}
	if (res != ROCECC_PFC_PARSE_PFC)
		goto out;
	/*
	 * Every priority the frame names counts, PFC on or not (as NICs'
	 * per-priority pause counters do): a PFC watchdog that turned PFC
	 * off must still see whether the peer keeps pausing.
	 */
	for (p = 0; p < ROCECC_DCB_PRIOS; p++)
		if (m.enable & BIT(p))
			atomic64_inc(&d->indications[p]);
	act = m.enable & READ_ONCE(d->pfc_en);
	if (!act)
		goto out;
	now = ktime_get_ns();
	speed = READ_ONCE(d->speed_mbps);
	for (p = 0; p < ROCECC_DCB_PRIOS; p++) {
		if (!(act & BIT(p)))
			continue;
		until = m.quanta[p] ? now + rocecc_pfc_quanta_ns(m.quanta[p], speed) : 0;
		if (rocecc_sch_pause(dev, p, until) != -ENOENT)
			continue;
		atomic64_inc(&d->unenforced);
		if (!test_and_set_bit(ROCECC_DCB_WARNED_UNENFORCED, &d->flags))
			pr_warn("%s: PFC frame received but the root qdisc is not rocecc: transmission not paused\n",
				dev->name);
	}
out:
	/* Link-local MAC control: nothing else wants it. */
	consume_skb(skb);
	return NET_RX_SUCCESS;
}

static struct packet_type rocecc_pause_pt __read_mostly = {
	.type	= cpu_to_be16(ETH_P_PAUSE),
	.func	= rocecc_dcb_pause_rcv,
};

/* --- attach / detach ----------------------------------------------------- */

/*
 * Before the device is published, under RTNL and rocecc_lock: allocate its
 * DCB state. Software DCB only where the driver has no DCB ops.
 */
int rocecc_dcb_attach(struct rocecc_dev *rdev, struct net_device *netdev)
{
	struct rocecc_dcb *d;
	u32 speed;
	int i;

	ASSERT_RTNL();
	/* One per attached device; see struct rocecc_dcb. */
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	refcount_set(&d->ref, 1);		/* the device's */
	d->ifindex = netdev->ifindex;
	d->sw = !netdev->dcbnl_ops;
	spin_lock_init(&d->lock);
	INIT_WORK(&d->work, rocecc_dcb_work_fn);
	hrtimer_init(&d->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	d->timer.function = rocecc_dcb_timer_fn;
	/* Defaults: no PFC, everything in buffer 0, which has it all. */
	d->buffer_size[0] = READ_ONCE(rocecc_pfc_buffer_total);
	speed = rocecc_dcb_link_speed(netdev);
	d->speed_mbps = speed ?: 10000;
	for (i = 0; i < 64; i++)
		d->dscp2prio[i] = rocecc_dscp_prio_default(i);
	if (d->sw) {
		rocecc_dcb_thresholds(d, netdev);
		rocecc_dcb_dscp_map(d, netdev);
	}
	rdev->dcb = d;
	return 0;
}

/* Once the device is published and rdev->netdev set (RTNL still held). */
void rocecc_dcb_publish(struct rocecc_dev *rdev, struct net_device *netdev)
{
	ASSERT_RTNL();
	if (rdev->dcb->sw && !netdev->dcbnl_ops)
		netdev->dcbnl_ops = &rocecc_dcbnl_ops;
}

/*
 * Detach (request, unregister, unload), under RTNL and rocecc_lock, while
 * the device is still published (rocecc_dcb_send() checks that) and
 * rdev->netdev set: remove our ops, stop generating frames, and resume
 * what we paused. The work never takes RTNL or rocecc_lock, so waiting
 * for it here cannot deadlock.
 */
void rocecc_dcb_detach(struct rocecc_dev *rdev, struct net_device *netdev)
{
	struct rocecc_dcb *d = rdev->dcb;
	u8 xon;
	int b;

	ASSERT_RTNL();
	if (netdev && netdev->dcbnl_ops == &rocecc_dcbnl_ops)
		netdev->dcbnl_ops = NULL;
	/*
	 * Dead first: no new work, no timer re-armed. A work that got the
	 * lock before us has recorded what it pauses in @gen; it sends
	 * its frame before cancel_work_sync() returns, our XON after.
	 */
	spin_lock(&d->lock);
	WRITE_ONCE(d->dead, true);
	d->xoff_req = 0;
	xon = rocecc_pfc_gen_release(d->gen);
	WRITE_ONCE(d->paused_mask, 0);
	spin_unlock(&d->lock);
	hrtimer_cancel(&d->timer);
	if (cancel_work_sync(&d->work))
		rocecc_dcb_put(d);	/* the pending work's reference */
	/*
	 * Do not leave the peer paused for the rest of its quanta (on an
	 * unregistering device this finds no device and sends nothing).
	 */
	if (xon && !rocecc_dcb_send(d, 0, xon, 0))
		for (b = 0; b < ROCECC_DCB_PRIOS; b++)
			if (xon & BIT(b))
				atomic64_inc(&d->requests[b]);
}

/* Drop the device's reference; any context (also an RCU callback). */
void rocecc_dcb_free(struct rocecc_dev *rdev)
{
	if (rdev->dcb)
		rocecc_dcb_put(rdev->dcb);
	rdev->dcb = NULL;
}

/* NETDEV_CHANGE (link speed) and NETDEV_CHANGEMTU, under RTNL. */
void rocecc_dcb_netdev_event(struct rocecc_dev *rdev,
			     struct net_device *netdev, unsigned long event)
{
	struct rocecc_dcb *d = rdev->dcb;
	u32 speed;

	ASSERT_RTNL();
	if (!d->sw)
		return;
	if (event == NETDEV_CHANGE) {
		speed = rocecc_dcb_link_speed(netdev);
		if (speed)
			WRITE_ONCE(d->speed_mbps, speed);
	} else if (event == NETDEV_CHANGEMTU) {
		rocecc_dcb_thresholds(d, netdev);
		rocecc_dcb_kick(d);
	}
}

/* --- generic netlink --------------------------------------------------------- */

/* @tx: the rocecc qdisc's view of priority @p, NULL without that qdisc. */
static int rocecc_dcb_nl_put_tx(struct sk_buff *skb,
				const struct rocecc_sch_prio_stats *tx)
{
	if (!tx)
		return 0;
	if (nla_put_u8(skb, ROCECC_PFC_PRIO_A_TX_PAUSED, tx->paused) ||
	    nla_put_u64_64bit(skb, ROCECC_PFC_PRIO_A_TX_PAUSE_NS,
			      tx->pause_ns_total, ROCECC_PFC_PRIO_A_PAD) ||
	    nla_put_u64_64bit(skb, ROCECC_PFC_PRIO_A_TX_PAUSES, tx->pauses,
			      ROCECC_PFC_PRIO_A_PAD) ||
	    nla_put_u64_64bit(skb, ROCECC_PFC_PRIO_A_TX_PACKETS,
			      tx->tx_packets, ROCECC_PFC_PRIO_A_PAD) ||
	    nla_put_u64_64bit(skb, ROCECC_PFC_PRIO_A_TX_BYTES, tx->tx_bytes,
			      ROCECC_PFC_PRIO_A_PAD) ||
	    nla_put_u32(skb, ROCECC_PFC_PRIO_A_TX_BACKLOG,
			min_t(u64, tx->backlog, U32_MAX)))
		return -EMSGSIZE;
	return 0;
}

static int rocecc_dcb_nl_put_prio(struct sk_buff *skb,
				  const struct rocecc_dcb *d, int p,
				  const struct rocecc_sch_prio_stats *tx)
{
	u8 b = READ_ONCE(d->prio2buffer[p]);
	struct nlattr *nest;

	nest = nla_nest_start(skb, ROCECC_PFC_A_PRIO);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u8(skb, ROCECC_PFC_PRIO_A_PRIO, p) ||
	    nla_put_u8(skb, ROCECC_PFC_PRIO_A_EN,
		       !!(READ_ONCE(d->pfc_en) & BIT(p))) ||
	    nla_put_u8(skb, ROCECC_PFC_PRIO_A_BUFFER, b) ||
	    nla_put_u64_64bit(skb, ROCECC_PFC_PRIO_A_INDICATIONS,
			      atomic64_read(&d->indications[p]),
			      ROCECC_PFC_PRIO_A_PAD) ||
	    nla_put_u64_64bit(skb, ROCECC_PFC_PRIO_A_REQUESTS,
			      atomic64_read(&d->requests[p]),
			      ROCECC_PFC_PRIO_A_PAD) ||
	    nla_put_u32(skb, ROCECC_PFC_PRIO_A_OCC, atomic_read(&d->occ[p])) ||
	    nla_put_u32(skb, ROCECC_PFC_PRIO_A_OCC_MAX,
			atomic_read(&d->occ_max[p])) ||
	    nla_put_u32(skb, ROCECC_PFC_PRIO_A_XOFF, READ_ONCE(d->xoff[b])) ||
	    nla_put_u32(skb, ROCECC_PFC_PRIO_A_XON, READ_ONCE(d->xon[b])) ||
	    nla_put_u8(skb, ROCECC_PFC_PRIO_A_PAUSED,
		       !!(READ_ONCE(d->gen[b].paused) & BIT(p))) ||
	    rocecc_dcb_nl_put_tx(skb, tx)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* DEV_SW_DCB and the PFC nest of a DEV_GET reply. Under rocecc_lock. */
int rocecc_dcb_nl_put(struct sk_buff *skb, const struct rocecc_dev *rdev)
{
	const struct rocecc_dcb *d = rdev->dcb;
	struct rocecc_sch_stats tx;	/* 400 bytes: one reply at a time */
	bool have_tx;
	struct nlattr *nest;
	int p;

	if (nla_put_u8(skb, ROCECC_A_DEV_SW_DCB, d->sw))
		return -EMSGSIZE;
	if (!d->sw)
		return 0;
	nest = nla_nest_start(skb, ROCECC_A_PFC);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, ROCECC_PFC_A_UNENFORCED,
			      atomic64_read(&d->unenforced), ROCECC_PFC_A_PAD) ||
	    nla_put_u64_64bit(skb, ROCECC_PFC_A_PAUSE_RX,
			      atomic64_read(&d->pause_rx), ROCECC_PFC_A_PAD) ||
	    nla_put_u32(skb, ROCECC_PFC_A_SPEED, READ_ONCE(d->speed_mbps)) ||
	    nla_put_u64_64bit(skb, ROCECC_PFC_A_TX_ERRORS,
			      atomic64_read(&d->tx_errors), ROCECC_PFC_A_PAD) ||
	    nla_put_u64_64bit(skb, ROCECC_PFC_A_UNTRACKED,
			      atomic64_read(&d->untracked), ROCECC_PFC_A_PAD))
		goto cancel;
	have_tx = rdev->netdev && !rocecc_sch_read(rdev->netdev, &tx);
	for (p = 0; p < ROCECC_DCB_PRIOS; p++)
		if (rocecc_dcb_nl_put_prio(skb, d, p,
					   have_tx ? &tx.prio[p] : NULL))
			goto cancel;
	nla_nest_end(skb, nest);
	return 0;

cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/* --- start / stop ---------------------------------------------------------- */

int rocecc_dcb_init(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(rocecc_occ_hash); i++) {
		spin_lock_init(&rocecc_occ_hash[i].lock);
		INIT_HLIST_HEAD(&rocecc_occ_hash[i].head);
	}
	rocecc_occ_cache = KMEM_CACHE(rocecc_occ_rec, 0);
	if (!rocecc_occ_cache)
		return -ENOMEM;
	/* Few, short items (one frame each); ordering does not matter. */
	rocecc_dcb_wq = alloc_workqueue("rocecc_pfc", WQ_MEM_RECLAIM, 0);
	if (!rocecc_dcb_wq) {
		kmem_cache_destroy(rocecc_occ_cache);
		return -ENOMEM;
	}
	dev_add_pack(&rocecc_pause_pt);
	return 0;
}

/*
 * Module unload, after every device was detached (rocecc_dev_exit(): their
 * references are dropped, rcu_barrier() done) and the netfilter hooks are
 * gone (rocecc_dp_exit(): no new record).
 */
void rocecc_dcb_exit(void)
{
	unsigned long warn = jiffies + 5 * HZ;
	int n;

	/* Waits for running handlers (synchronize_net()). */
	dev_remove_pack(&rocecc_pause_pt);
	while ((n = atomic_read(&rocecc_occ_outstanding))) {
		if (time_after(jiffies, warn)) {
			pr_warn("unload waits for %d received RoCE packets the RDMA stack still holds\n",
				n);
			warn = jiffies + 5 * HZ;
		}
		msleep(20);
	}
	/* Every destructor has left its preemption-disabled tail. */
	synchronize_rcu();
	/* The last work items put the last references. */
	destroy_workqueue(rocecc_dcb_wq);
	kmem_cache_destroy(rocecc_occ_cache);
}
