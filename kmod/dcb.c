// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc: software DCB and PFC (IEEE 802.1Qbb) for attached devices whose
 * driver has no DCB ops (veth, virtio_net, most soft devices): the DCB
 * object of a device (dcb.h), its configuration through DCB netlink, and
 * its PFC counters for generic netlink. PFC reception is pfc_rx.c, the
 * occupancy and the frames sent from it pfc_gen.c.
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
 * Pause quanta are converted at the link speed cached at attach and on
 * NETDEV_CHANGE (ethtool, 10000 Mb/s if unknown; the module parameter
 * pfc_speed_mbps, when set, instead: emulated links such as veth report a
 * speed that is not the one their PFC should assume).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ethtool.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <net/dcbnl.h>
#include <net/net_namespace.h>
#include <net/netlink.h>
#include <rocecc/pfc.h>

#include "rocecc.h"
#include "dcb.h"

static unsigned int rocecc_pfc_buffer_total = 256 * 1024;
module_param_named(pfc_buffer_total, rocecc_pfc_buffer_total, uint, 0644);
MODULE_PARM_DESC(pfc_buffer_total,
		 "total size of the software PFC receive buffers of a device, in bytes (default 262144): the limit of the sum of 'dcb buffer' sizes");

static unsigned int rocecc_pfc_speed_mbps;
module_param_named(pfc_speed_mbps, rocecc_pfc_speed_mbps, uint, 0644);
MODULE_PARM_DESC(pfc_speed_mbps,
		 "link speed for PFC pause quanta, in Mb/s, taken at attach; 0 (default): the device's own (ethtool), 10000 where it reports none; else this speed whatever the device says (emulated links)");

/* Drop a reference (see the top of dcb.h); any context. */
void rocecc_dcb_put(struct rocecc_dcb *d)
{
	/* Last reference: no timer, no work, no record is left. */
	if (refcount_dec_and_test(&d->ref))
		kfree(d);
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
	rocecc_dcb_gen_setup(d);
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
 * the device is still published (the final XON needs it) and rdev->netdev
 * set: remove our ops, stop generating frames and resume what we paused
 * (rocecc_dcb_gen_stop()).
 */
void rocecc_dcb_detach(struct rocecc_dev *rdev, struct net_device *netdev)
{
	struct rocecc_dcb *d = rdev->dcb;

	ASSERT_RTNL();
	if (netdev && netdev->dcbnl_ops == &rocecc_dcbnl_ops)
		netdev->dcbnl_ops = NULL;
	rocecc_dcb_gen_stop(d);
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
			min_t(u64, tx->backlog, U32_MAX)) ||
	    nla_put_u64_64bit(skb, ROCECC_PFC_PRIO_A_TX_PAUSE_RELEASED,
			      tx->released, ROCECC_PFC_PRIO_A_PAD))
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
			      atomic64_read(&d->untracked), ROCECC_PFC_A_PAD) ||
	    nla_put_u64_64bit(skb, ROCECC_PFC_A_RX_IGNORED,
			      atomic64_read(&d->rx_ignored), ROCECC_PFC_A_PAD) ||
	    nla_put_u64_64bit(skb, ROCECC_PFC_A_NOT_RXE,
			      atomic64_read(&d->not_rxe), ROCECC_PFC_A_PAD) ||
	    nla_put_u64_64bit(skb, ROCECC_PFC_A_OCC_EXPIRED,
			      atomic64_read(&d->occ_expired), ROCECC_PFC_A_PAD))
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
	int err;

	err = rocecc_dcb_gen_init();
	if (err)
		return err;
	rocecc_dcb_pause_init();
	return 0;
}

/*
 * Module unload, after every device was detached (rocecc_dev_exit(): their
 * references are dropped, rcu_barrier() done) and the netfilter hooks are
 * gone (rocecc_dp_exit(): no new occupancy record).
 */
void rocecc_dcb_exit(void)
{
	rocecc_dcb_pause_exit();
	rocecc_dcb_gen_exit();
}
