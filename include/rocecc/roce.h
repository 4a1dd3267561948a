/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * rocecc: the RoCEv2 wire format and its parser, shared by the kernel
 * module, the BPF programs and userspace.
 *
 * A RoCEv2 packet is
 *
 *	[Ethernet [802.1Q]] IPv4|IPv6  UDP(dport 4791)  BTH  [ext hdrs]
 *	payload  [pad]  ICRC(4)
 *
 * Sources: IBTA Annex A17 (RoCEv2), the Linux rdma_rxe driver and
 * include/rdma/ib_pack.h, see docs/dcqcn.md §4.
 *
 * Parser contract
 * ---------------
 * rocecc_parse_eth() starts at an Ethernet header (optionally followed by
 * one 802.1Q tag), rocecc_parse_ip() at an IPv4 or IPv6 header (what the
 * kernel's netfilter hooks and a linear skb->data at the network header
 * see). Both take two lengths:
 *
 *	@buf_len: bytes that may be read at @buf (e.g. skb_headlen(), or the
 *		  bytes a BPF program copied out of the packet);
 *	@pkt_len: the length of the whole packet counted from @buf
 *		  (e.g. skb->len), which may be larger: the payload may sit in
 *		  pages the parser never touches.
 *
 * Nothing at or beyond @buf_len is ever read (a @buf_len larger than
 * @pkt_len is cut down to @pkt_len). Lengths found in headers are checked
 * against @pkt_len. Only the headers are read: Ethernet/VLAN, the IP header
 * with its options, UDP, the BTH and the AETH. They always end within
 * ROCECC_PARSE_HDR_MAX bytes (from Ethernet) or ROCECC_PARSE_IP_HDR_MAX
 * bytes (from IP) of @buf, so a caller that makes
 * min(@pkt_len, that constant) bytes readable never gets ROCECC_TRUNCATED
 * for a packet that is complete; with fewer readable bytes
 * ROCECC_TRUNCATED may also mean "pull more and try again".
 *
 * Results:
 *	ROCECC_ROCE	 a RoCEv2 packet; every field of struct rocecc_pkt
 *			 is valid.
 *	ROCECC_NOT_ROCE	 not for us, pass it untouched: not IPv4/IPv6 (ARP,
 *			 ...), more than one VLAN tag, not UDP (including IPv6
 *			 extension headers, which rxe never sends), UDP
 *			 destination port not 4791, an IPv4 fragment.
 *	ROCECC_TRUNCATED the packet ends (or the readable bytes end) before
 *			 a header, or before the length its IP header claims.
 *	ROCECC_MALFORMED IP version does not match the EtherType or is not
 *			 4/6, IPv4 IHL < 5 or total length < IHL, UDP length
 *			 not equal to the IP payload length, UDP length too
 *			 small for BTH + ICRC, BTH TVer != 0, or the transport
 *			 headers and pad do not fit before the ICRC.
 *
 * The IPv4 header checksum is not checked: the stack checks it on receive,
 * and at the output hooks it may not be filled in yet.
 *
 * On any result other than ROCECC_ROCE the contents of *p are unspecified
 * (the parser zeroes it first, so they are partial, never uninitialised).
 *
 * The parser is written for the BPF verifier too: no loops, no function
 * pointers, every read at an offset bounded by a constant
 * (ROCECC_PARSE_HDR_MAX), a small struct. A BPF caller copies the packet's
 * first bytes into a buffer of at least ROCECC_PARSE_HDR_MAX bytes.
 */
#ifndef _ROCECC_ROCE_H
#define _ROCECC_ROCE_H

#include "compat.h"

/* UDP destination port of RoCEv2 (ROCE_V2_UDP_DPORT) */
#define ROCECC_UDP_PORT		4791

/* Header sizes in bytes */
#define ROCECC_ETH_HLEN		14
#define ROCECC_VLAN_HLEN	4
#define ROCECC_IPV4_HLEN	20	/* without options */
#define ROCECC_IPV4_HLEN_MAX	60
#define ROCECC_IPV6_HLEN	40
#define ROCECC_UDP_HLEN		8
#define ROCECC_BTH_LEN		12
#define ROCECC_AETH_LEN		4
#define ROCECC_RETH_LEN		16
#define ROCECC_IMMDT_LEN	4
#define ROCECC_IETH_LEN		4
#define ROCECC_DETH_LEN		8
#define ROCECC_ATOMICETH_LEN	28
#define ROCECC_ATOMICACKETH_LEN	8
#define ROCECC_FETH_LEN		4	/* FLUSH: placement type, selectivity */
#define ROCECC_ICRC_LEN		4
#define ROCECC_CNP_RSVD_LEN	16	/* reserved zero bytes after a CNP BTH */

/* Smallest UDP length of a RoCEv2 packet: UDP + BTH + ICRC */
#define ROCECC_UDP_LEN_MIN	(ROCECC_UDP_HLEN + ROCECC_BTH_LEN + \
				 ROCECC_ICRC_LEN)

/* The most header bytes the parser reads, from IP and from Ethernet */
#define ROCECC_PARSE_IP_HDR_MAX	(ROCECC_IPV4_HLEN_MAX + ROCECC_UDP_HLEN + \
				 ROCECC_BTH_LEN + ROCECC_AETH_LEN)
#define ROCECC_PARSE_HDR_MAX	(ROCECC_ETH_HLEN + ROCECC_VLAN_HLEN + \
				 ROCECC_PARSE_IP_HDR_MAX)

/* EtherTypes */
#define ROCECC_ETH_P_IP		0x0800
#define ROCECC_ETH_P_IPV6	0x86DD
#define ROCECC_ETH_P_8021Q	0x8100

#define ROCECC_IPPROTO_UDP	17

/* Address families: the values of AF_INET and AF_INET6 */
#define ROCECC_AF_INET		2
#define ROCECC_AF_INET6		10

/* ECN codepoints: the low two bits of IPv4 TOS / IPv6 traffic class */
#define ROCECC_ECN_NOT_ECT	0x0
#define ROCECC_ECN_ECT1		0x1
#define ROCECC_ECN_ECT0		0x2
#define ROCECC_ECN_CE		0x3
#define ROCECC_ECN_MASK		0x3

/* 802.1Q TCI fields */
#define ROCECC_VLAN_PCP(tci)	(((tci) >> 13) & 0x7)
#define ROCECC_VLAN_DEI(tci)	(((tci) >> 12) & 0x1)
#define ROCECC_VLAN_VID(tci)	((tci) & 0xfff)

/*
 * BTH opcodes. The top three bits are the transport (RC, UC, RD, UD, CNP),
 * the low five the operation.
 */
#define ROCECC_OP_TRANSPORT(op)	((op) & 0xe0)
#define ROCECC_TRANSPORT_RC	0x00
#define ROCECC_TRANSPORT_UC	0x20
#define ROCECC_TRANSPORT_RD	0x40
#define ROCECC_TRANSPORT_UD	0x60
#define ROCECC_TRANSPORT_CNP	0x80

#define ROCECC_OP_RC_SEND_FIRST			0x00
#define ROCECC_OP_RC_SEND_MIDDLE		0x01
#define ROCECC_OP_RC_SEND_LAST			0x02
#define ROCECC_OP_RC_SEND_LAST_IMM		0x03
#define ROCECC_OP_RC_SEND_ONLY			0x04
#define ROCECC_OP_RC_SEND_ONLY_IMM		0x05
#define ROCECC_OP_RC_WRITE_FIRST		0x06
#define ROCECC_OP_RC_WRITE_MIDDLE		0x07
#define ROCECC_OP_RC_WRITE_LAST			0x08
#define ROCECC_OP_RC_WRITE_LAST_IMM		0x09
#define ROCECC_OP_RC_WRITE_ONLY			0x0a
#define ROCECC_OP_RC_WRITE_ONLY_IMM		0x0b
#define ROCECC_OP_RC_READ_REQUEST		0x0c
#define ROCECC_OP_RC_READ_RESP_FIRST		0x0d
#define ROCECC_OP_RC_READ_RESP_MIDDLE		0x0e
#define ROCECC_OP_RC_READ_RESP_LAST		0x0f
#define ROCECC_OP_RC_READ_RESP_ONLY		0x10
#define ROCECC_OP_RC_ACK			0x11
#define ROCECC_OP_RC_ATOMIC_ACK			0x12
#define ROCECC_OP_RC_CMP_SWAP			0x13
#define ROCECC_OP_RC_FETCH_ADD			0x14
#define ROCECC_OP_RC_SEND_LAST_INV		0x16
#define ROCECC_OP_RC_SEND_ONLY_INV		0x17
/*
 * IBTA 1.5 (Annex A19, memory placement extensions; rdma_rxe from 6.2):
 * FLUSH carries FETH + RETH and no payload, ATOMIC WRITE a RETH and 8
 * bytes; the responder answers both with a READ_RESP_ONLY without payload.
 */
#define ROCECC_OP_RC_FLUSH			0x1c
#define ROCECC_OP_RC_ATOMIC_WRITE		0x1d

#define ROCECC_OP_UC_SEND_FIRST			0x20
#define ROCECC_OP_UC_SEND_MIDDLE		0x21
#define ROCECC_OP_UC_SEND_LAST			0x22
#define ROCECC_OP_UC_SEND_LAST_IMM		0x23
#define ROCECC_OP_UC_SEND_ONLY			0x24
#define ROCECC_OP_UC_SEND_ONLY_IMM		0x25
#define ROCECC_OP_UC_WRITE_FIRST		0x26
#define ROCECC_OP_UC_WRITE_MIDDLE		0x27
#define ROCECC_OP_UC_WRITE_LAST			0x28
#define ROCECC_OP_UC_WRITE_LAST_IMM		0x29
#define ROCECC_OP_UC_WRITE_ONLY			0x2a
#define ROCECC_OP_UC_WRITE_ONLY_IMM		0x2b

#define ROCECC_OP_UD_SEND_ONLY			0x64
#define ROCECC_OP_UD_SEND_ONLY_IMM		0x65

#define ROCECC_OP_CNP				0x81

/* BTH bit fields */
#define ROCECC_BTH_SE		0x80	/* byte 1 */
#define ROCECC_BTH_MIG		0x40	/* byte 1 */
#define ROCECC_BTH_PAD_SHIFT	4	/* byte 1 */
#define ROCECC_BTH_PAD_MASK	0x3
#define ROCECC_BTH_TVER_MASK	0xf	/* byte 1 */
#define ROCECC_BTH_FECN		0x80	/* byte 4 */
#define ROCECC_BTH_BECN		0x40	/* byte 4 */
#define ROCECC_BTH_ACKREQ	0x80	/* byte 8 */
#define ROCECC_BTH_QPN_MASK	0xffffff
#define ROCECC_BTH_PSN_MASK	0xffffff
#define ROCECC_PKEY_DEFAULT	0xffff

/* AETH syndrome: top bits say ACK (0), RNR NAK (1), NAK (3) */
#define ROCECC_AETH_TYPE(syn)	(((syn) >> 5) & 0x3)
#define ROCECC_AETH_ACK		0
#define ROCECC_AETH_RNR_NAK	1
#define ROCECC_AETH_NAK		3

/* Parse results */
enum rocecc_parse_result {
	ROCECC_ROCE = 0,
	ROCECC_NOT_ROCE,
	ROCECC_TRUNCATED,
	ROCECC_MALFORMED,
};

/* Base Transport Header, every field in host order */
struct rocecc_bth {
	__u8 opcode;
	__u8 se;		/* solicited event, 0 or 1 */
	__u8 mig;		/* MigReq, 0 or 1 */
	__u8 pad_cnt;		/* pad bytes before the ICRC, 0..3 */
	__u8 tver;		/* transport header version, must be 0 */
	__u8 fecn;		/* 0 or 1 */
	__u8 becn;		/* 0 or 1 */
	__u8 ack_req;		/* 0 or 1 */
	__u16 pkey;
	__u32 dest_qp;		/* 24 bits */
	__u32 psn;		/* 24 bits */
};

/* ACK Extended Transport Header */
struct rocecc_aeth {
	__u8 syndrome;
	__u32 msn;		/* 24 bits */
};

/*
 * A parsed RoCEv2 packet. Addresses are always 16 bytes in network order:
 * an IPv4 address is stored IPv4-mapped (::ffff:a.b.c.d, RFC 4291 2.5.5.2),
 * the form RDMA GIDs of RoCEv2 IPv4 ports take, so one flow key serves both
 * families; @family tells which header was on the wire.
 *
 * Offsets count from the start of the buffer given to the parser (the
 * Ethernet header for rocecc_parse_eth(), the IP header for
 * rocecc_parse_ip()). The RoCE packet ends at @icrc_off + ROCECC_ICRC_LEN,
 * which is also the end of the IP packet; bytes after it (Ethernet padding)
 * are not part of it.
 */
struct rocecc_pkt {
	__u8 saddr[16];
	__u8 daddr[16];
	__u32 l3_off;		/* IP header */
	__u32 l4_off;		/* UDP header */
	__u32 bth_off;		/* BTH */
	__u32 payload_off;	/* after BTH and its extension headers */
	__u32 icrc_off;		/* ICRC */
	__u32 payload_len;	/* payload bytes, without pad and ICRC */
	__u32 flow_label;	/* IPv6 flow label, 0 for IPv4 */
	__u16 vlan_tci;		/* 802.1Q TCI if vlan_present, else 0 */
	__u16 sport;		/* UDP source port */
	__u16 dport;		/* UDP destination port (4791) */
	__u16 udp_len;		/* UDP length: UDP header to ICRC end */
	__u8 family;		/* ROCECC_AF_INET or ROCECC_AF_INET6 */
	__u8 vlan_present;	/* 0 or 1 */
	__u8 dscp;		/* 0..63 */
	__u8 ecn;		/* ROCECC_ECN_* */
	__u8 ttl;		/* IPv4 TTL or IPv6 hop limit */
	__u8 has_aeth;		/* 0 or 1: aeth below is valid */
	struct rocecc_bth bth;
	struct rocecc_aeth aeth;
};

/* Byte-wise accessors: independent of host byte order and alignment */
static inline __u16 rocecc_get_be16(const __u8 *p)
{
	return (__u16)((p[0] << 8) | p[1]);
}

static inline __u32 rocecc_get_be24(const __u8 *p)
{
	return ((__u32)p[0] << 16) | ((__u32)p[1] << 8) | p[2];
}

static inline __u32 rocecc_get_be32(const __u8 *p)
{
	return ((__u32)p[0] << 24) | ((__u32)p[1] << 16) |
	       ((__u32)p[2] << 8) | p[3];
}

static inline __u32 rocecc_get_le32(const __u8 *p)
{
	return ((__u32)p[3] << 24) | ((__u32)p[2] << 16) |
	       ((__u32)p[1] << 8) | p[0];
}

static inline void rocecc_put_be16(__u8 *p, __u16 v)
{
	p[0] = (__u8)(v >> 8);
	p[1] = (__u8)(v & 0xff);
}

static inline void rocecc_put_be24(__u8 *p, __u32 v)
{
	p[0] = (__u8)((v >> 16) & 0xff);
	p[1] = (__u8)((v >> 8) & 0xff);
	p[2] = (__u8)(v & 0xff);
}

static inline void rocecc_put_be32(__u8 *p, __u32 v)
{
	p[0] = (__u8)(v >> 24);
	p[1] = (__u8)((v >> 16) & 0xff);
	p[2] = (__u8)((v >> 8) & 0xff);
	p[3] = (__u8)(v & 0xff);
}

static inline void rocecc_put_le32(__u8 *p, __u32 v)
{
	p[0] = (__u8)(v & 0xff);
	p[1] = (__u8)((v >> 8) & 0xff);
	p[2] = (__u8)((v >> 16) & 0xff);
	p[3] = (__u8)(v >> 24);
}

/* Does this opcode carry an AETH right after the BTH? */
static inline bool rocecc_op_has_aeth(__u8 op)
{
	switch (op) {
	case ROCECC_OP_RC_READ_RESP_FIRST:
	case ROCECC_OP_RC_READ_RESP_LAST:
	case ROCECC_OP_RC_READ_RESP_ONLY:
	case ROCECC_OP_RC_ACK:
	case ROCECC_OP_RC_ATOMIC_ACK:
		return true;
	default:
		return false;
	}
}

/*
 * Length of the extension headers between the BTH and the payload
 * (RETH, ImmDt, IETH, AETH, AtomicETH, AtomicAckETH, FETH, DETH), as
 * rdma_rxe lays them out (its opcode table, 6.12). Opcodes not listed
 * here (RD, vendor and reserved ones, and the CNP, whose 16 reserved
 * bytes count as its payload) have none.
 */
static inline __u32 rocecc_op_ext_len(__u8 op)
{
	switch (op) {
	case ROCECC_OP_RC_SEND_LAST_IMM:
	case ROCECC_OP_RC_SEND_ONLY_IMM:
	case ROCECC_OP_RC_WRITE_LAST_IMM:
	case ROCECC_OP_RC_SEND_LAST_INV:
	case ROCECC_OP_RC_SEND_ONLY_INV:
	case ROCECC_OP_UC_SEND_LAST_IMM:
	case ROCECC_OP_UC_SEND_ONLY_IMM:
	case ROCECC_OP_UC_WRITE_LAST_IMM:
		return ROCECC_IMMDT_LEN;	/* ImmDt or IETH */
	case ROCECC_OP_RC_WRITE_FIRST:
	case ROCECC_OP_RC_WRITE_ONLY:
	case ROCECC_OP_RC_READ_REQUEST:
	case ROCECC_OP_RC_ATOMIC_WRITE:
	case ROCECC_OP_UC_WRITE_FIRST:
	case ROCECC_OP_UC_WRITE_ONLY:
		return ROCECC_RETH_LEN;
	case ROCECC_OP_RC_FLUSH:
		return ROCECC_FETH_LEN + ROCECC_RETH_LEN;
	case ROCECC_OP_RC_WRITE_ONLY_IMM:
	case ROCECC_OP_UC_WRITE_ONLY_IMM:
		return ROCECC_RETH_LEN + ROCECC_IMMDT_LEN;
	case ROCECC_OP_RC_READ_RESP_FIRST:
	case ROCECC_OP_RC_READ_RESP_LAST:
	case ROCECC_OP_RC_READ_RESP_ONLY:
	case ROCECC_OP_RC_ACK:
		return ROCECC_AETH_LEN;
	case ROCECC_OP_RC_ATOMIC_ACK:
		return ROCECC_AETH_LEN + ROCECC_ATOMICACKETH_LEN;
	case ROCECC_OP_RC_CMP_SWAP:
	case ROCECC_OP_RC_FETCH_ADD:
		return ROCECC_ATOMICETH_LEN;
	case ROCECC_OP_UD_SEND_ONLY:
		return ROCECC_DETH_LEN;
	case ROCECC_OP_UD_SEND_ONLY_IMM:
		return ROCECC_DETH_LEN + ROCECC_IMMDT_LEN;
	default:
		return 0;
	}
}

/*
 * What a RoCE packet a host sends means to the reaction point of its flow
 * (the module's hooks and the BPF datapath classify with this):
 */
enum rocecc_data_class {
	ROCECC_DATA_NONE,	/* no flow: ACK, UD, CNP, unknown */
	ROCECC_DATA_PACED,	/* RC/UC request: counted and paced */
	ROCECC_DATA_UNPACED,	/* RC READ response: counted, not delayed */
};

static inline enum rocecc_data_class rocecc_op_data_class(__u8 op)
{
	switch (ROCECC_OP_TRANSPORT(op)) {
	case ROCECC_TRANSPORT_RC:
		if (op <= ROCECC_OP_RC_READ_REQUEST ||
		    op == ROCECC_OP_RC_CMP_SWAP ||
		    op == ROCECC_OP_RC_FETCH_ADD ||
		    op == ROCECC_OP_RC_SEND_LAST_INV ||
		    op == ROCECC_OP_RC_SEND_ONLY_INV ||
		    op == ROCECC_OP_RC_FLUSH ||
		    op == ROCECC_OP_RC_ATOMIC_WRITE)
			return ROCECC_DATA_PACED;
		if (op >= ROCECC_OP_RC_READ_RESP_FIRST &&
		    op <= ROCECC_OP_RC_READ_RESP_ONLY)
			return ROCECC_DATA_UNPACED;
		return ROCECC_DATA_NONE;
	case ROCECC_TRANSPORT_UC:
		if (op <= ROCECC_OP_UC_WRITE_ONLY_IMM)
			return ROCECC_DATA_PACED;
		return ROCECC_DATA_NONE;
	default:
		return ROCECC_DATA_NONE;
	}
}

/* Internal: zero *p without libc (BPF has no memset call). */
static inline void rocecc_pkt_zero(struct rocecc_pkt *p)
{
	__builtin_memset(p, 0, sizeof(*p));
}

/* Internal: the DSCP and ECN of the IP traffic class (TOS) byte @tc. */
static inline void rocecc_parse_tc(__u8 tc, struct rocecc_pkt *p)
{
	p->dscp = tc >> 2;
	p->ecn = tc & ROCECC_ECN_MASK;
}

/*
 * Internal: the IPv4 header at p->l3_off. Sets *@ip_end (where the IP
 * datagram ends) and p->l4_off. Return: ROCECC_ROCE to go on, else the
 * result.
 */
static inline int rocecc_parse_ipv4(const __u8 *buf, __u32 buf_len,
				    __u32 pkt_len, struct rocecc_pkt *p,
				    __u32 *ip_end)
{
	__u32 l3 = p->l3_off, ihl, tot, i;
	const __u8 *h = buf + l3;
	__u16 frag;

	if (l3 + ROCECC_IPV4_HLEN > buf_len)
		return ROCECC_TRUNCATED;
	ihl = (__u32)(h[0] & 0xf) << 2;
	if (ihl < ROCECC_IPV4_HLEN)
		return ROCECC_MALFORMED;
	tot = rocecc_get_be16(h + 2);
	if (tot < ihl)
		return ROCECC_MALFORMED;
	if (l3 + tot > pkt_len)
		return ROCECC_TRUNCATED;
	frag = rocecc_get_be16(h + 6);
	if (frag & 0x3fff)	/* MF or a fragment offset */
		return ROCECC_NOT_ROCE;
	if (h[9] != ROCECC_IPPROTO_UDP)
		return ROCECC_NOT_ROCE;
	if (l3 + ihl > buf_len)
		return ROCECC_TRUNCATED;

	p->family = ROCECC_AF_INET;
	rocecc_parse_tc(h[1], p);
	p->ttl = h[8];
	p->saddr[10] = 0xff;
	p->saddr[11] = 0xff;
	p->daddr[10] = 0xff;
	p->daddr[11] = 0xff;
	for (i = 0; i < 4; i++) {
		p->saddr[12 + i] = h[12 + i];
		p->daddr[12 + i] = h[16 + i];
	}
	p->l4_off = l3 + ihl;
	*ip_end = l3 + tot;
	return ROCECC_ROCE;
}

/* Internal: the IPv6 header at p->l3_off; as rocecc_parse_ipv4(). */
static inline int rocecc_parse_ipv6(const __u8 *buf, __u32 buf_len,
				    __u32 pkt_len, struct rocecc_pkt *p,
				    __u32 *ip_end)
{
	__u32 l3 = p->l3_off, i;
	const __u8 *h = buf + l3;

	if (l3 + ROCECC_IPV6_HLEN > buf_len)
		return ROCECC_TRUNCATED;
	*ip_end = l3 + ROCECC_IPV6_HLEN + rocecc_get_be16(h + 4);
	if (*ip_end > pkt_len)
		return ROCECC_TRUNCATED;
	if (h[6] != ROCECC_IPPROTO_UDP)
		return ROCECC_NOT_ROCE;

	p->family = ROCECC_AF_INET6;
	rocecc_parse_tc((__u8)((h[0] << 4) | (h[1] >> 4)), p);
	p->flow_label = ((__u32)(h[1] & 0xf) << 16) | rocecc_get_be16(h + 2);
	p->ttl = h[7];
	for (i = 0; i < 16; i++) {
		p->saddr[i] = h[8 + i];
		p->daddr[i] = h[24 + i];
	}
	p->l4_off = l3 + ROCECC_IPV6_HLEN;
	return ROCECC_ROCE;
}

/*
 * Internal: the UDP header at p->l4_off of a datagram ending at @ip_end.
 * Return: ROCECC_ROCE to go on, else the result.
 */
static inline int rocecc_parse_udp(const __u8 *buf, __u32 buf_len,
				   __u32 ip_end, struct rocecc_pkt *p)
{
	__u32 l4 = p->l4_off;
	const __u8 *h = buf + l4;

	if (l4 + ROCECC_UDP_HLEN > ip_end)
		return ROCECC_MALFORMED;
	if (l4 + ROCECC_UDP_HLEN > buf_len)
		return ROCECC_TRUNCATED;
	p->sport = rocecc_get_be16(h);
	p->dport = rocecc_get_be16(h + 2);
	p->udp_len = rocecc_get_be16(h + 4);
	if (p->dport != ROCECC_UDP_PORT)
		return ROCECC_NOT_ROCE;
	if (p->udp_len != ip_end - l4 || p->udp_len < ROCECC_UDP_LEN_MIN)
		return ROCECC_MALFORMED;
	return ROCECC_ROCE;
}

/*
 * Internal: the BTH after the UDP header, the ICRC at the end of the
 * datagram (@ip_end) and, for an acknowledgment, the AETH.
 */
static inline int rocecc_parse_bth(const __u8 *buf, __u32 buf_len,
				   __u32 ip_end, struct rocecc_pkt *p)
{
	__u32 bth = p->l4_off + ROCECC_UDP_HLEN, hdr_end;
	const __u8 *h = buf + bth;

	if (bth + ROCECC_BTH_LEN > buf_len)
		return ROCECC_TRUNCATED;
	p->bth_off = bth;
	p->bth.opcode = h[0];
	p->bth.se = !!(h[1] & ROCECC_BTH_SE);
	p->bth.mig = !!(h[1] & ROCECC_BTH_MIG);
	p->bth.pad_cnt = (h[1] >> ROCECC_BTH_PAD_SHIFT) & ROCECC_BTH_PAD_MASK;
	p->bth.tver = h[1] & ROCECC_BTH_TVER_MASK;
	p->bth.pkey = rocecc_get_be16(h + 2);
	p->bth.fecn = !!(h[4] & ROCECC_BTH_FECN);
	p->bth.becn = !!(h[4] & ROCECC_BTH_BECN);
	p->bth.dest_qp = rocecc_get_be24(h + 5);
	p->bth.ack_req = !!(h[8] & ROCECC_BTH_ACKREQ);
	p->bth.psn = rocecc_get_be24(h + 9);
	if (p->bth.tver != 0)
		return ROCECC_MALFORMED;

	p->icrc_off = ip_end - ROCECC_ICRC_LEN;
	hdr_end = bth + ROCECC_BTH_LEN + rocecc_op_ext_len(p->bth.opcode);
	if (hdr_end + p->bth.pad_cnt > p->icrc_off)
		return ROCECC_MALFORMED;
	p->payload_off = hdr_end;
	p->payload_len = p->icrc_off - hdr_end - p->bth.pad_cnt;

	if (rocecc_op_has_aeth(p->bth.opcode)) {
		if (bth + ROCECC_BTH_LEN + ROCECC_AETH_LEN > buf_len)
			return ROCECC_TRUNCATED;
		h += ROCECC_BTH_LEN;
		p->has_aeth = 1;
		p->aeth.syndrome = h[0];
		p->aeth.msn = rocecc_get_be24(h + 1);
	}
	return ROCECC_ROCE;
}

/*
 * Internal: parse from the IP header at @l3 (0, 14 or 18). @buf_len is
 * already at most @pkt_len. @ethertype is 0 when the caller did not see
 * one, else the EtherType the IP version must match.
 */
static inline int rocecc_parse_l3(const __u8 *buf, __u32 buf_len,
				  __u32 pkt_len, __u32 l3, __u16 ethertype,
				  struct rocecc_pkt *p)
{
	__u32 ip_end = 0;
	__u8 ver;
	int rc;

	if (l3 + 1 > buf_len)
		return ROCECC_TRUNCATED;
	ver = buf[l3] >> 4;
	p->l3_off = l3;

	if (ver == 4) {
		if (ethertype && ethertype != ROCECC_ETH_P_IP)
			return ROCECC_MALFORMED;
		rc = rocecc_parse_ipv4(buf, buf_len, pkt_len, p, &ip_end);
	} else if (ver == 6) {
		if (ethertype && ethertype != ROCECC_ETH_P_IPV6)
			return ROCECC_MALFORMED;
		rc = rocecc_parse_ipv6(buf, buf_len, pkt_len, p, &ip_end);
	} else {
		return ROCECC_MALFORMED;
	}
	if (rc != ROCECC_ROCE)
		return rc;
	rc = rocecc_parse_udp(buf, buf_len, ip_end, p);
	if (rc != ROCECC_ROCE)
		return rc;
	return rocecc_parse_bth(buf, buf_len, ip_end, p);
}

/**
 * rocecc_parse_ip() - parse a packet that starts at its IPv4/IPv6 header
 * @buf: the IP header
 * @buf_len: bytes readable at @buf
 * @pkt_len: length of the packet from @buf on (>= @buf_len normally)
 * @p: result, offsets relative to @buf
 *
 * Return: ROCECC_ROCE, ROCECC_NOT_ROCE, ROCECC_TRUNCATED or
 * ROCECC_MALFORMED; see the top of this file.
 */
static inline int rocecc_parse_ip(const __u8 *buf, __u32 buf_len,
				  __u32 pkt_len, struct rocecc_pkt *p)
{
	rocecc_pkt_zero(p);
	if (buf_len > pkt_len)
		buf_len = pkt_len;
	return rocecc_parse_l3(buf, buf_len, pkt_len, 0, 0, p);
}

/**
 * rocecc_parse_eth() - parse a frame that starts at its Ethernet header
 * @buf: the destination MAC address
 * @buf_len: bytes readable at @buf
 * @pkt_len: length of the frame from @buf on, without FCS
 * @p: result, offsets relative to @buf
 *
 * One 802.1Q tag (TPID 0x8100) is accepted; its TCI is reported. A frame
 * with an accelerated (stripped) tag parses as untagged: the caller has
 * the TCI in its metadata.
 *
 * Return: as rocecc_parse_ip().
 */
static inline int rocecc_parse_eth(const __u8 *buf, __u32 buf_len,
				   __u32 pkt_len, struct rocecc_pkt *p)
{
	__u32 l3 = ROCECC_ETH_HLEN;
	__u16 type;

	rocecc_pkt_zero(p);
	if (buf_len > pkt_len)
		buf_len = pkt_len;
	if (buf_len < ROCECC_ETH_HLEN)
		return ROCECC_TRUNCATED;
	type = rocecc_get_be16(buf + 12);
	if (type == ROCECC_ETH_P_8021Q) {
		if (ROCECC_ETH_HLEN + ROCECC_VLAN_HLEN > buf_len)
			return ROCECC_TRUNCATED;
		p->vlan_present = 1;
		p->vlan_tci = rocecc_get_be16(buf + 14);
		type = rocecc_get_be16(buf + 16);
		l3 += ROCECC_VLAN_HLEN;
	}
	if (type != ROCECC_ETH_P_IP && type != ROCECC_ETH_P_IPV6)
		return ROCECC_NOT_ROCE;
	return rocecc_parse_l3(buf, buf_len, pkt_len, l3, type, p);
}

#endif /* _ROCECC_ROCE_H */
