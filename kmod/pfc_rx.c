// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc: PFC frames received on an attached device with software DCB
 * (dcb.c): indications, and pausing the priorities of the rocecc qdisc
 * (sch.c).
 *
 * A packet_type for ETH_P_PAUSE (0x8808) on all devices. For an attached
 * device with software DCB, a PFC frame pauses each PFC-enabled priority in
 * its class-enable vector for the quanta it carries at the link speed
 * dcb.c caches (0 quanta: resume) through rocecc_sch_pause() of the rocecc
 * qdisc. indications[p] counts every frame that names p, PFC enabled on p
 * or not (what a PFC watchdog needs to see after turning PFC off), per
 * (frame, priority) as ieee_pfc.indications. When the root qdisc is not
 * rocecc's, nothing can hold that priority's packets back: the frame is
 * counted in pfc_unenforced and a warning names the device once. An
 * 802.3x PAUSE (opcode 1) is counted (pause_frames_rx) and not obeyed: a
 * link runs either PFC or PAUSE, and one with PFC ignores PAUSE (802.1Qbb
 * 36.1.3.3). MAC control frames are link-local and nothing else in the
 * stack wants them (without a handler the core drops them), so they are
 * consumed; a second ETH_P_PAUSE handler would still get the frame (the
 * core hands every matching packet_type its own reference). On a bridge
 * port the bridge's rx_handler drops PAUSE/PFC frames before packet types
 * see them.
 *
 * Only frames sent to this port count: a MAC control frame whose
 * destination is not 01:80:c2:00:00:01 (802.1Qbb's only PFC address; a
 * PAUSE sent to the station's own address is not obeyed either), or that
 * the device received only because it is promiscuous (pkt_type other than
 * PACKET_MULTICAST: a sniffer, a bridge or macvlan lower device, a
 * tcpdump) is counted in rx_ignored and otherwise ignored; a frame a NIC
 * does not act on must not pause us either.
 *
 * The handler runs under the RCU read lock of the receive path: the device
 * and its DCB object found there stay valid until it returns.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/net_namespace.h>
#include <rocecc/pfc.h>

#include "rocecc.h"
#include "dcb.h"

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
	/* eth_type_trans() set the MAC header and pkt_type. */
	if (skb->pkt_type != PACKET_MULTICAST ||
	    !skb_mac_header_was_set(skb) ||
	    !rocecc_pfc_dmac_ok(eth_hdr(skb)->h_dest)) {
		atomic64_inc(&d->rx_ignored);
		goto out;
	}
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

void rocecc_dcb_pause_init(void)
{
	dev_add_pack(&rocecc_pause_pt);
}

/* Waits for running handlers (synchronize_net()). */
void rocecc_dcb_pause_exit(void)
{
	dev_remove_pack(&rocecc_pause_pt);
}
