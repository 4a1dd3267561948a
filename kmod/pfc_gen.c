// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc: receive occupancy of an attached device with software DCB
 * (dcb.c), and the PFC frames (requests) the host sends from it.
 *
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
 * destructor, and that the UDP layer will hand to rxe's own socket
 * (rocecc_occ_to_rxe(): another socket on port 4791 frees it without
 * running a destructor, and a record would never go), gets
 * rocecc_occ_destructor() and a record: (skb address,
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
 * Records are bounded (ROCECC_OCC_RECS_MAX) and aged: one still there
 * after pfc_occ_max_age_ms leaves the occupancy (rocecc_occ_age_fn()),
 * so that no path this file does not know can hold a buffer above xoff,
 * and the host's XOFF, for ever.
 *
 * Module unload cannot leave an skb with our destructor behind: an
 * aged-out record holds a module reference (rmmod fails with EBUSY while
 * its skb may live), the hooks are unregistered first (no new records),
 * then rocecc_dcb_gen_exit() waits until the global count of outstanding
 * records is zero (rxe frees its packets in bounded time, also when a QP
 * or the device is destroyed; it logs while it waits), and a grace period
 * covers the destructor's last instructions (its decrement runs with
 * interrupts off).
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
#include <linux/hash.h>
#include <linux/hrtimer.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/pkt_sched.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/udp.h>
#include <rocecc/pfc.h>
#include <rocecc/roce.h>

#include "rocecc.h"
#include "dcb.h"

/*
 * One accounted skb. Allocated in LOCAL_IN (GFP_ATOMIC, from a slab cache:
 * one per RoCE packet of a PFC priority in the host), freed by the skb's
 * destructor.
 */
struct rocecc_occ_rec {
	struct hlist_node	node;
	const struct sk_buff	*skb;	/* key: never dereferenced */
	struct rocecc_dcb	*dcb;	/* holds a reference */
	unsigned long		born;	/* jiffies at LOCAL_IN */
	u32			bytes;
	u8			prio;
	u8			buf;
	/* Aged out: bytes no longer counted, holds a module reference. */
	bool			expired;
};

/*
 * Records outstanding at most, all devices: 64k of about 64 bytes. Beyond,
 * packets are not measured (untracked). A bound on what a packet flood
 * can make the module allocate, whatever becomes of the packets.
 */
#define ROCECC_OCC_RECS_MAX	65536

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
/* Ages out stale records; runs while records are outstanding. */
static void rocecc_occ_age_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(rocecc_occ_age_work, rocecc_occ_age_fn);

/* Run the generation work; the caller holds a reference. Any context. */
void rocecc_dcb_kick(struct rocecc_dcb *d)
{
	if (READ_ONCE(d->dead))
		return;
	refcount_inc(&d->ref);		/* the work's, put by the work */
	if (!queue_work(rocecc_dcb_wq, &d->work))
		rocecc_dcb_put(d);
}

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
 * @xon. Process context. Returns 0 if the frame was handed to the device,
 * and then counts it in requests[] of every priority it names.
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
	for (p = 0; p < ROCECC_DCB_PRIOS && !err; p++)
		if (m.enable & BIT(p))
			atomic64_inc(&d->requests[p]);
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
	int b;

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

	if ((out.xoff | out.xon) &&
	    rocecc_dcb_send(d, out.xoff, out.xon, ROCECC_PFC_QUANTA_MAX))
		atomic64_inc(&d->tx_errors);
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

/* How often the ageing work runs: twice per pfc_occ_max_age_ms. */
static unsigned long rocecc_occ_age_period(void)
{
	return msecs_to_jiffies(READ_ONCE(rocecc_pfc_occ_max_age_ms) / 2) ?: 1;
}

static struct rocecc_occ_bucket *rocecc_occ_bucket(const struct sk_buff *skb)
{
	return &rocecc_occ_hash[hash_ptr(skb, ROCECC_OCC_HASH_BITS)];
}

/* The bytes of @rec leave the occupancy of its device. Any context. */
static void rocecc_occ_uncount(const struct rocecc_occ_rec *rec)
{
	struct rocecc_dcb *d = rec->dcb;
	u32 occ;

	atomic_sub(rec->bytes, &d->occ[rec->prio]);
	occ = atomic_sub_return(rec->bytes, &d->occ_buf[rec->buf]);
	if ((READ_ONCE(d->paused_mask) & BIT(rec->buf)) &&
	    rocecc_pfc_at_xon(occ, READ_ONCE(d->xon[rec->buf])))
		rocecc_dcb_kick(d);
}

static void rocecc_occ_destructor(struct sk_buff *skb)
{
	struct rocecc_occ_bucket *bk = rocecc_occ_bucket(skb);
	struct rocecc_occ_rec *rec = NULL, *it;
	unsigned long flags;
	bool expired;

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

	/* Unlinked: the ageing work no longer sees it. */
	expired = rec->expired;
	if (!expired)
		rocecc_occ_uncount(rec);
	rocecc_dcb_put(rec->dcb);
	kmem_cache_free(rocecc_occ_cache, rec);
	/*
	 * Last: module exit waits for the count to reach zero and then for
	 * a grace period, which waits for this interrupts-off region too.
	 * Interrupts, not preemption: preempt_enable() may schedule here,
	 * local_irq_restore() does not. An aged-out record's module
	 * reference goes in the same region, for the same reason.
	 */
	local_irq_save(flags);
	if (expired)
		module_put(THIS_MODULE);
	atomic_dec(&rocecc_occ_outstanding);
	local_irq_restore(flags);
}

/*
 * Will @skb go to rdma_rxe? Only then does someone free it through
 * kfree_skb()/consume_skb(), which run our destructor. Another UDP socket
 * bound to port 4791 (any user may bind one where rxe's is absent: rxe
 * not loaded, or, on kernels that open it per device, no rxe device)
 * queues the skb and frees it with skb_consume_udp(), which does not run
 * a destructor: its record, its bytes and its XOFF would never go. So
 * look up the socket the UDP layer will deliver to, as it will
 * (__udp4_lib_lookup() through the exported udp4_lib_lookup(), with the
 * packet's addresses, ports and input device), and accept only rxe's:
 * a kernel socket (sock_create_kern(): no user can own one) with an
 * encapsulation receive hook (setup_udp_tunnel_sock(): rxe_udp_encap_recv),
 * as rxe_net.c makes it. The reference the lookup takes is put at once.
 * Softirq, under rcu_read_lock().
 */
static bool rocecc_occ_to_rxe(struct sk_buff *skb, const struct rocecc_pkt *pkt)
{
	struct net *net = dev_net(skb->dev);
	struct sock *sk = NULL;
	bool rxe;

	if (pkt->family == ROCECC_AF_INET)
		sk = udp4_lib_lookup(net, ip_hdr(skb)->saddr, htons(pkt->sport),
				     ip_hdr(skb)->daddr, htons(pkt->dport),
				     inet_iif(skb));
#if IS_ENABLED(CONFIG_IPV6)
	else
		sk = udp6_lib_lookup(net, &ipv6_hdr(skb)->saddr,
				     htons(pkt->sport), &ipv6_hdr(skb)->daddr,
				     htons(pkt->dport), inet6_iif(skb));
#endif
	if (!sk)
		return false;
	rxe = sk->sk_kern_sock && READ_ONCE(udp_sk(sk)->encap_rcv);
	sock_put(sk);
	return rxe;
}

/*
 * A RoCEv2 packet @pkt (@len bytes from the IP header) for a local
 * address passed LOCAL_IN on @rdev. Under rcu_read_lock(), softirq.
 */
void rocecc_dcb_rx(struct rocecc_dev *rdev, struct sk_buff *skb,
		   const struct rocecc_pkt *pkt, u32 len)
{
	struct rocecc_dcb *d = rdev->dcb;
	struct rocecc_occ_bucket *bk;
	struct rocecc_occ_rec *rec;
	unsigned long flags;
	int occ, max;
	u8 prio;

	if (!d->sw || READ_ONCE(d->dead))
		return;
	prio = READ_ONCE(d->dscp2prio[pkt->dscp & 63]);
	if (!(READ_ONCE(d->pfc_en) & BIT(prio)))
		return;
	if (skb->destructor || skb->sk) {
		atomic64_inc(&d->untracked);
		return;
	}
	if (!rocecc_occ_to_rxe(skb, pkt)) {
		atomic64_inc(&d->not_rxe);
		return;
	}
	occ = atomic_inc_return(&rocecc_occ_outstanding);
	if (occ > ROCECC_OCC_RECS_MAX) {
		atomic_dec(&rocecc_occ_outstanding);
		atomic64_inc(&d->untracked);
		return;
	}
	rec = kmem_cache_alloc(rocecc_occ_cache, GFP_ATOMIC);
	if (!rec) {
		/*
		 * Records other CPUs added while we held the count at 1 saw
		 * 2 or more and left starting the ageing to us.
		 */
		if (atomic_dec_return(&rocecc_occ_outstanding) && occ == 1)
			queue_delayed_work(rocecc_dcb_wq, &rocecc_occ_age_work,
					   rocecc_occ_age_period());
		atomic64_inc(&d->untracked);
		return;
	}
	/* The first outstanding record starts the ageing (it re-arms). */
	if (occ == 1)
		queue_delayed_work(rocecc_dcb_wq, &rocecc_occ_age_work,
				   rocecc_occ_age_period());
	rec->skb = skb;
	rec->born = jiffies;
	rec->expired = false;
	rec->bytes = len + ETH_HLEN;
	rec->prio = prio;
	rec->buf = READ_ONCE(d->prio2buffer[prio]);
	/* The device's reference keeps @d alive under RCU: take one. */
	refcount_inc(&d->ref);
	rec->dcb = d;
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

/*
 * Age out records older than pfc_occ_max_age_ms. rxe frees a packet it
 * received when its responder or completer task has processed it, in
 * well under that; a record that old belongs to a packet that was freed
 * without our destructor (a path this file does not know) or that
 * something holds for long. Either way its bytes are not in the host's
 * receive buffer any more in the sense PFC means: they leave the
 * occupancy (occ_expired counts them, and a paused buffer that falls to
 * xon gets its XON). The record itself stays until its destructor runs,
 * since the skb may still be alive and carry the destructor, and it takes
 * a module reference: rmmod then fails with EBUSY rather than waiting
 * for an skb that may never be freed (the module's code must outlive
 * every skb that points to it). Process context, on rocecc_dcb_wq;
 * re-arms itself while records are outstanding.
 */
static void rocecc_occ_age_fn(struct work_struct *work)
{
	unsigned long age = msecs_to_jiffies(READ_ONCE(rocecc_pfc_occ_max_age_ms));
	struct rocecc_occ_rec *rec;
	unsigned long flags;
	int i;

	for (i = 0; i < ARRAY_SIZE(rocecc_occ_hash); i++) {
		struct rocecc_occ_bucket *bk = &rocecc_occ_hash[i];

		/* @bk->lock: see rocecc_occ_hash. */
		spin_lock_irqsave(&bk->lock, flags);
		hlist_for_each_entry(rec, &bk->head, node) {
			if (rec->expired ||
			    time_before(jiffies, rec->born + age))
				continue;
			rec->expired = true;
			__module_get(THIS_MODULE);
			rocecc_occ_uncount(rec);
			atomic64_inc(&rec->dcb->occ_expired);
		}
		spin_unlock_irqrestore(&bk->lock, flags);
		cond_resched();
	}
	if (atomic_read(&rocecc_occ_outstanding))
		queue_delayed_work(rocecc_dcb_wq, &rocecc_occ_age_work,
				   rocecc_occ_age_period());
}

/* --- attach / detach / start / stop ---------------------------------------- */

/* At attach, before anything can kick the work. */
void rocecc_dcb_gen_setup(struct rocecc_dcb *d)
{
	spin_lock_init(&d->lock);
	INIT_WORK(&d->work, rocecc_dcb_work_fn);
	hrtimer_init(&d->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	d->timer.function = rocecc_dcb_timer_fn;
}

/*
 * Detach (rocecc_dcb_detach()), while the device is still published
 * (rocecc_dcb_send() checks that): stop generating frames and resume what
 * we paused. The work never takes RTNL or rocecc_lock, so waiting for it
 * here cannot deadlock.
 */
void rocecc_dcb_gen_stop(struct rocecc_dcb *d)
{
	u8 xon;

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
	if (xon)
		rocecc_dcb_send(d, 0, xon, 0);
}

int rocecc_dcb_gen_init(void)
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
	return 0;
}

/*
 * Module unload (rocecc_dcb_exit()), after every device was detached and
 * the netfilter hooks are gone: wait for the outstanding records, then
 * for the last work items.
 */
void rocecc_dcb_gen_exit(void)
{
	unsigned long warn = jiffies + 5 * HZ;
	int n;

	while ((n = atomic_read(&rocecc_occ_outstanding))) {
		if (time_after(jiffies, warn)) {
			pr_warn("unload waits for %d received RoCE packets the RDMA stack still holds\n",
				n);
			warn = jiffies + 5 * HZ;
		}
		msleep(20);
	}
	/* No record left: the ageing stops (it may have re-armed). */
	cancel_delayed_work_sync(&rocecc_occ_age_work);
	/* Every destructor has left its interrupts-off tail. */
	synchronize_rcu();
	/* The last work items put the last references. */
	destroy_workqueue(rocecc_dcb_wq);
	kmem_cache_destroy(rocecc_occ_cache);
}
