// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc: the netfilter hooks, IPv4 and IPv6, in init_net (where rdma_rxe
 * lives, in 6.1 and 6.12).
 *
 *  POST_ROUTING (egress, last before the qdisc): RoCEv2 packets that rxe
 *    sends on an attached device. Every RoCE packet but a CNP that leaves
 *    Not-ECT is marked ECT(0) (the IPv4 checksum is fixed incrementally;
 *    the ICRC masks TOS/traffic class, so it stays valid), so that an ECN
 *    queue marks rather than drops it, ACKs included. Data packets go to
 *    their flow, keyed by (destination address, BTH destination QPN =
 *    remote QPN, device): RC and UC requests (SEND, WRITE, READ request,
 *    atomics) are counted and paced; RC READ responses are counted but
 *    not delayed (see rp.c); ACKs, UD and CNPs have no flow, but the QP
 *    of an ACK or UD packet gets its QP cache entry here (a QP known
 *    locally: qp.c). Where pacing asks for it, an RC request gets BTH
 *    AckReq and a new ICRC (rp.c).
 *
 *  LOCAL_IN (ingress, after the filter table, before UDP hands the packet
 *    to rxe): RoCEv2 packets for local addresses that arrive on an
 *    attached device.
 *    - A CNP (BTH opcode 0x81) with a valid ICRC, for local QP l: the RP
 *      of the flow l sends on, found through the QP cache (l -> remote
 *      QPN, remote address). The CNP is consumed (NF_STOLEN, freed as
 *      consumed, not dropped): rxe would drop opcode 0x81 anyway, silently
 *      and after linearizing it. A CNP whose QP is not (yet) resolved is
 *      counted (resolver_miss, rp_cnp_ignored), queued for resolution,
 *      and consumed as well; so is one whose source is not l's remote
 *      address (rp_cnp_spoofed, rp_cnp_ignored).
 *    - Any other RoCE packet of a PFC-enabled priority is counted in the
 *      device's receive occupancy until rxe frees it (pfc_gen.c).
 *    - A CE-marked RC/UC packet for local QP l: the NP of l's flow. If l
 *      is not resolved yet the mark is remembered in the QP entry and the
 *      resolver sends its CNP. Every CE-marked RoCE packet counts in
 *      np_ecn_marked_roce_packets.
 *
 * Malformed or truncated RoCE packets (the shared parser says so, or a
 * CNP with a bad ICRC) are counted (malformed) and passed untouched.
 * Anything else costs one early return: not UDP, or UDP not to port 4791
 * (one header read), before the device lookup and the parse.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/dsfield.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <rdma/ib_verbs.h>
#include <rocecc/icrc.h>
#include <rocecc/roce.h>

#include "kcompat.h"
#include "rocecc.h"
#include "dp.h"

/*
 * Header bytes copied for the parser: its maximum (IPv4 with options up
 * to the AETH) and a whole CNP, whose ICRC is checked.
 */
#define ROCECC_HOOK_BUF		128

/*
 * The early return of the hooks, and the rocecc qdisc's test (sch.c): is
 * @skb, from its network header on, IPv6 (@v6) or IPv4 that is not a
 * fragment, UDP to port 4791? Two header reads (in the linear area at the
 * hooks: built by rxe, or pulled by ip_rcv). Any context.
 */
bool rocecc_skb_roce(const struct sk_buff *skb, bool v6)
{
	int off = skb_network_offset(skb);
	const struct ipv6hdr *ip6;
	const struct iphdr *ip4;
	union {
		struct iphdr v4;
		struct ipv6hdr v6;
	} _ip;
	__be16 _port;
	const __be16 *port;

	if (!v6) {
		ip4 = skb_header_pointer(skb, off, sizeof(_ip.v4), &_ip.v4);
		if (!ip4 || ip4->protocol != IPPROTO_UDP || ip_is_fragment(ip4))
			return false;
		off += ip4->ihl * 4;
	} else {
		ip6 = skb_header_pointer(skb, off, sizeof(_ip.v6), &_ip.v6);
		if (!ip6 || ip6->nexthdr != IPPROTO_UDP)
			return false;
		off += sizeof(*ip6);
	}
	port = skb_header_pointer(skb, off + offsetof(struct udphdr, dest),
				  sizeof(_port), &_port);
	return port && *port == htons(ROCECC_UDP_PORT);
}

/*
 * Parse the headers (and a CNP whole) with the shared parser. *@data
 * points at up to ROCECC_HOOK_BUF bytes from the IP header, *@n of them,
 * *@plen is the IP packet's length.
 */
static int rocecc_parse_skb(const struct sk_buff *skb, u8 *buf,
			    const u8 **data, u32 *n, u32 *plen,
			    struct rocecc_pkt *pkt)
{
	int off = skb_network_offset(skb);

	*plen = skb->len - off;
	*n = min_t(u32, *plen, ROCECC_HOOK_BUF);
	*data = skb_header_pointer(skb, off, *n, buf);
	if (!*data)
		return ROCECC_TRUNCATED;
	return rocecc_parse_ip(*data, *n, *plen, pkt);
}

/* Not-ECT -> ECT(0), DSCP kept. Returns true if the packet changed. */
static bool rocecc_set_ect0(struct sk_buff *skb, u8 pf)
{
	int off = skb_network_offset(skb);

	if (pf == NFPROTO_IPV4) {
		if (skb_ensure_writable(skb, off + sizeof(struct iphdr)))
			return false;
		ipv4_change_dsfield(ip_hdr(skb), (u8)~INET_ECN_MASK,
				    INET_ECN_ECT_0);
	} else {
		if (skb_ensure_writable(skb, off + sizeof(struct ipv6hdr)))
			return false;
		ipv6_change_dsfield(ipv6_hdr(skb), (u8)~INET_ECN_MASK,
				    INET_ECN_ECT_0);
	}
	return true;
}

/*
 * Can the hook set BTH AckReq on the request @pkt (parsed from @data)?
 * The packet's side of it is the core's (rocecc_pace_may_ask()).
 */
static bool rocecc_may_ask(const struct rocecc_pkt *pkt, const u8 *data,
			   u32 n)
{
	return READ_ONCE(rocecc_pacing_ack_req) &&
	       rocecc_pace_may_ask(pkt, data, n);
}

/*
 * Set BTH AckReq on @skb (the RoCE packet @pkt, IP length @plen) and
 * mend its ICRC: the responder then acknowledges it (rocecc/pacing.h,
 * "Asking for ACKs"). rocecc_icrc_set_ackreq() changes the ICRC by what
 * the bit changes (icrc.h), as the BPF engine does; only the BTH and the
 * ICRC need to be writable, but they are at both ends of the packet, so
 * the whole of it is made so (rxe builds it linear: nothing is copied in
 * practice).
 */
static bool rocecc_set_ackreq(struct sk_buff *skb,
			      const struct rocecc_pkt *pkt, u32 plen)
{
	if (skb_ensure_writable(skb, skb_network_offset(skb) + plen))
		return false;
	return !rocecc_icrc_set_ackreq(skb_network_header(skb), plen, pkt);
}

static void rocecc_flow_touch(struct rocecc_flow *f)
{
	unsigned long now = jiffies;

	if (READ_ONCE(f->last_used) != now)
		WRITE_ONCE(f->last_used, now);
}

/*
 * What both hooks do first: the early return for everything that is not
 * RoCEv2 on an attached device in init_net, then the shared parser. Returns
 * the device for a parsed RoCEv2 packet, or NULL (malformed ones counted).
 */
static struct rocecc_dev *
rocecc_hook_classify(struct sk_buff *skb, const struct nf_hook_state *state,
		     const struct net_device *dev, u8 *buf, const u8 **data,
		     u32 *n, u32 *plen, struct rocecc_pkt *pkt)
{
	struct rocecc_dev *rdev;
	int res;

	if (!rocecc_skb_roce(skb, state->pf == NFPROTO_IPV6))
		return NULL;
	if (!dev || !net_eq(state->net, &init_net))
		return NULL;
	rdev = rocecc_dev_lookup_rcu(dev->ifindex);
	if (!rdev)
		return NULL;

	res = rocecc_parse_skb(skb, buf, data, n, plen, pkt);
	if (res != ROCECC_ROCE) {
		if (res != ROCECC_NOT_ROCE)
			rocecc_ctr_inc(rdev, ROCECC_CTR_MALFORMED);
		return NULL;
	}
	return rdev;
}

static unsigned int rocecc_hook_out(void *priv, struct sk_buff *skb,
				    const struct nf_hook_state *state)
{
	u8 buf[ROCECC_HOOK_BUF];
	const struct rocecc_params *p;
	struct rocecc_flow_key key;
	struct rocecc_dev *rdev;
	struct rocecc_flow *f;
	struct rocecc_pkt pkt;
	struct rocecc_tx tx;
	enum rocecc_data_class cls;
	const u8 *data;
	u32 n, plen;
	u64 depart, now;
	bool ask;

	rdev = rocecc_hook_classify(skb, state, state->out, buf, &data, &n,
				    &plen, &pkt);
	if (!rdev)
		return NF_ACCEPT;
	if (pkt.bth.opcode == ROCECC_OP_CNP)
		return NF_ACCEPT;	/* ours, or someone's: untouched */

	if (pkt.ecn == ROCECC_ECN_NOT_ECT && rocecc_set_ect0(skb, state->pf))
		rocecc_ctr_inc(rdev, ROCECC_CTR_ECT_MARKED);

	cls = rocecc_op_data_class(pkt.bth.opcode);
	if (cls == ROCECC_DATA_NONE) {
		/*
		 * An ACK (or UD): its QP is local and real, so its cache
		 * entry is made here, outside qp_unresolved_max, and a flood
		 * of CE marks for made-up QPNs cannot keep it out (qp.c).
		 */
		tx.lqpn = rocecc_rxe_lqpn(skb, rdev);
		if (tx.lqpn)
			rocecc_qp_lookup(rdev, tx.lqpn, ROCECC_QP_LOCAL);
		return NF_ACCEPT;
	}

	p = rocecc_dev_params_rcu(rdev);
	memset(&key, 0, sizeof(key));
	memcpy(key.raddr, pkt.daddr, 16);
	key.rqpn = pkt.bth.dest_qp;
	key.ifindex = rdev->ifindex;
	f = rocecc_flow_get(rdev, &key, p);
	if (!f)
		return NF_ACCEPT;
	rocecc_flow_touch(f);

	tx.len = plen;
	tx.pace = cls == ROCECC_DATA_PACED;
	tx.ack_req = pkt.bth.ack_req;
	tx.may_ask = tx.pace && rocecc_may_ask(&pkt, data, n);
	tx.lqpn = rocecc_rxe_lqpn(skb, rdev);
	now = rocecc_now();
	depart = rocecc_rp_tx(rdev, p, f, &tx, now, &ask);
	if (ask && !rocecc_set_ackreq(skb, &pkt, plen))
		rocecc_ctr_inc(rdev, ROCECC_CTR_MALFORMED);
	/*
	 * A request that pacing does not delay leaves now: stamped so, not
	 * with what rxe put there. rxe of 6.12 stamps every skb with
	 * ktime_get() when it allocates it (as a realtime-typed stamp, which
	 * fq takes as it is), which may be earlier than the departure given
	 * to the QP's previous request, still in fq: fq would send this one
	 * first, out of PSN order. 6.1 leaves the stamp 0 (fq: now).
	 */
	if (depart)
		rocecc_skb_set_edt(skb, depart);
	else if (tx.pace && READ_ONCE(rdev->dp.pace_ok))
		rocecc_skb_set_edt(skb, now);
	return NF_ACCEPT;
}

/*
 * A CNP @pkt for local QP l arrived on @rdev. Only l's remote may slow l
 * down: rxe QPNs are small and sequential, so any host that can reach us
 * could otherwise throttle every local QP with CNPs for QPNs 17, 18, ...
 * A CNP carries no source QPN, so its source address is what is checked;
 * one from elsewhere is counted (rp_cnp_spoofed) and ignored.
 */
static void rocecc_in_cnp(struct rocecc_dev *rdev, const struct rocecc_pkt *pkt)
{
	const struct rocecc_params *p = rocecc_dev_params_rcu(rdev);
	struct rocecc_flow *f;
	struct rocecc_qp *e;

	e = rocecc_qp_lookup(rdev, pkt->bth.dest_qp, ROCECC_QP_REMOTE);
	if (!e || !rocecc_qp_resolved(e)) {
		rocecc_ctr_inc(rdev, ROCECC_CTR_RESOLVER_MISS);
		rocecc_ctr_inc(rdev, ROCECC_CTR_RP_CNP_IGNORED);
		return;
	}
	if (memcmp(e->raddr, pkt->saddr, 16)) {
		rocecc_ctr_inc(rdev, ROCECC_CTR_RP_CNP_SPOOFED);
		rocecc_ctr_inc(rdev, ROCECC_CTR_RP_CNP_IGNORED);
		return;
	}
	f = rocecc_flow_of_qp(rdev, e, p, true, false);
	if (!f) {
		rocecc_ctr_inc(rdev, ROCECC_CTR_RP_CNP_IGNORED);
		return;
	}
	rocecc_flow_touch(f);
	rocecc_rp_cnp(rdev, p, f, rocecc_now());
}

/* A CE-marked RC/UC packet @pkt arrived on @rdev. */
static void rocecc_in_ce(struct rocecc_dev *rdev, const struct rocecc_pkt *pkt)
{
	const struct rocecc_params *p = rocecc_dev_params_rcu(rdev);
	struct rocecc_np_addr a;
	struct rocecc_flow *f;
	struct rocecc_qp *e;

	e = rocecc_qp_lookup(rdev, pkt->bth.dest_qp, ROCECC_QP_REMOTE);
	if (!e) {
		rocecc_ctr_inc(rdev, ROCECC_CTR_RESOLVER_MISS);
		return;
	}
	if (!rocecc_qp_resolved(e)) {
		rocecc_qp_note_ce(e, pkt->family, pkt->daddr, pkt->saddr,
				  pkt->sport);
		rocecc_ctr_inc(rdev, ROCECC_CTR_RESOLVER_MISS);
		return;
	}
	/* rxe accepts RC/UC packets only from the QP's remote address. */
	if (memcmp(e->raddr, pkt->saddr, 16)) {
		rocecc_ctr_inc(rdev, ROCECC_CTR_RESOLVER_MISS);
		return;
	}
	f = rocecc_flow_of_qp(rdev, e, p, true, false);
	if (!f)
		return;
	rocecc_flow_touch(f);
	a.family = pkt->family;
	a.sport = pkt->sport;
	memcpy(a.laddr, pkt->daddr, 16);
	memcpy(a.raddr, pkt->saddr, 16);
	rocecc_np_ce(rdev, p, f, &a, rocecc_now());
}

static unsigned int rocecc_hook_in(void *priv, struct sk_buff *skb,
				   const struct nf_hook_state *state)
{
	u8 buf[ROCECC_HOOK_BUF];
	struct rocecc_dev *rdev;
	struct rocecc_pkt pkt;
	const u8 *data;
	u32 n, plen;
	u8 tr;

	rdev = rocecc_hook_classify(skb, state, state->in, buf, &data, &n,
				    &plen, &pkt);
	if (!rdev)
		return NF_ACCEPT;

	if (pkt.bth.opcode == ROCECC_OP_CNP) {
		/* The whole CNP is in @data if it is a CNP at all. */
		if (n != plen || !rocecc_icrc_check(data, n, &pkt)) {
			rocecc_ctr_inc(rdev, ROCECC_CTR_MALFORMED);
			return NF_ACCEPT;
		}
		rocecc_in_cnp(rdev, &pkt);
		consume_skb(skb);
		return NF_STOLEN;
	}

	/* Host occupancy for software PFC, until rxe frees the skb (pfc_gen.c). */
	rocecc_dcb_rx(rdev, skb, pkt.dscp, plen);

	if (pkt.ecn != ROCECC_ECN_CE)
		return NF_ACCEPT;
	rocecc_ctr_inc(rdev, ROCECC_CTR_NP_ECN_MARKED_ROCE_PACKETS);
	tr = ROCECC_OP_TRANSPORT(pkt.bth.opcode);
	if (tr == ROCECC_TRANSPORT_RC || tr == ROCECC_TRANSPORT_UC)
		rocecc_in_ce(rdev, &pkt);
	return NF_ACCEPT;
}

static const struct nf_hook_ops rocecc_nf_ops[] = {
	{
		.hook		= rocecc_hook_out,
		.pf		= NFPROTO_IPV4,
		.hooknum	= NF_INET_POST_ROUTING,
		.priority	= NF_IP_PRI_LAST - 1,
	},
	{
		.hook		= rocecc_hook_out,
		.pf		= NFPROTO_IPV6,
		.hooknum	= NF_INET_POST_ROUTING,
		.priority	= NF_IP6_PRI_LAST - 1,
	},
	{
		.hook		= rocecc_hook_in,
		.pf		= NFPROTO_IPV4,
		.hooknum	= NF_INET_LOCAL_IN,
		.priority	= NF_IP_PRI_FILTER + 1,
	},
	{
		.hook		= rocecc_hook_in,
		.pf		= NFPROTO_IPV6,
		.hooknum	= NF_INET_LOCAL_IN,
		.priority	= NF_IP6_PRI_FILTER + 1,
	},
};

int rocecc_hooks_init(void)
{
	return nf_register_net_hooks(&init_net, rocecc_nf_ops,
				     ARRAY_SIZE(rocecc_nf_ops));
}

/* Unregistering waits for every running hook (synchronize_net()). */
void rocecc_hooks_exit(void)
{
	nf_unregister_net_hooks(&init_net, rocecc_nf_ops,
				ARRAY_SIZE(rocecc_nf_ops));
}
