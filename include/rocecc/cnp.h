/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * rocecc: building a RoCEv2 Congestion Notification Packet (CNP).
 *
 * IBTA Annex A17 (RoCEv2) CNP, see docs/dcqcn.md §4.3:
 *
 *	IPv4 (20, DF) or IPv6 (40)
 *	UDP  sport = parameter, dport 4791, checksum 0 (as rdma_rxe sends)
 *	BTH  opcode 0x81, SE = M = PadCnt = TVer = 0, P_Key 0xffff,
 *	     FECN 0, BECN 1, DestQP = the QPN that must slow down (the remote
 *	     QP of the flow that was marked), AckReq 0, PSN 0
 *	16 reserved bytes, zero
 *	ICRC
 *
 * IPv4: total length 60, UDP length 40; IPv6: payload length 40, 80 bytes
 * in all.
 *
 * ECN: a CNP is sent Not-ECT. A CNP is congestion feedback, not data: it
 * must not be answered with a CNP, and a switch that cannot mark it should
 * rather forward it on its (strict priority) class than treat it as
 * ECN-capable traffic. Some NICs send CNPs as ECT(0); we do not.
 *
 * Priority: the 802.1p priority (np_cnp_prio) is not part of the IP packet.
 * struct rocecc_cnp_params carries it so one structure holds the NP's CNP
 * settings; rocecc_cnp_build() only checks its range, and the caller sets
 * skb->priority (or the VLAN PCP) from it.
 *
 * Only the IP packet is built: the caller adds the link-layer header (or
 * lets the IP output path do so).
 */
#ifndef _ROCECC_CNP_H
#define _ROCECC_CNP_H

#include "compat.h"
#include "roce.h"
#include "icrc.h"

#define ROCECC_CNP_UDP_LEN	(ROCECC_UDP_HLEN + ROCECC_BTH_LEN + \
				 ROCECC_CNP_RSVD_LEN + ROCECC_ICRC_LEN)
#define ROCECC_CNP_LEN_IPV4	(ROCECC_IPV4_HLEN + ROCECC_CNP_UDP_LEN)
#define ROCECC_CNP_LEN_IPV6	(ROCECC_IPV6_HLEN + ROCECC_CNP_UDP_LEN)
#define ROCECC_CNP_LEN_MAX	ROCECC_CNP_LEN_IPV6

/* mlx5 firmware defaults for np_cnp_dscp and np_cnp_prio */
#define ROCECC_CNP_DEFAULT_DSCP	48
#define ROCECC_CNP_DEFAULT_PRIO	6
#define ROCECC_CNP_DEFAULT_TTL	64

/* Negative results of rocecc_cnp_build() */
#define ROCECC_CNP_ENOSPC	(-1)	/* buffer too small */
#define ROCECC_CNP_EINVAL	(-2)	/* a parameter out of range */

/*
 * Parameters of one CNP. Addresses as in struct rocecc_pkt: 16 bytes,
 * network order, an IPv4 address IPv4-mapped (only bytes 12..15 are used).
 */
struct rocecc_cnp_params {
	__u8 saddr[16];		/* the NP: who saw the CE mark */
	__u8 daddr[16];		/* the RP: who sent the marked flow */
	__u32 dest_qp;		/* the RP's QPN, 24 bits */
	__u32 flow_label;	/* IPv6 flow label, 20 bits; ignored for IPv4 */
	__u16 sport;		/* UDP source port */
	__u16 ip_id;		/* IPv4 identification; ignored for IPv6 */
	__u8 family;		/* ROCECC_AF_INET or ROCECC_AF_INET6 */
	__u8 dscp;		/* 0..63; ECN is always Not-ECT */
	__u8 ttl;		/* IPv4 TTL or IPv6 hop limit */
	__u8 prio;		/* 802.1p priority 0..7, for skb->priority */
};

/**
 * rocecc_cnp_params_init() - defaults, addresses and QPN for one CNP
 * @cp: out
 * @marked: the parsed CE-marked packet the CNP answers
 * @remote_qp: the QPN that sent @marked (the local QP's destination QPN;
 *	the BTH of @marked carries the local QPN only)
 *
 * Sets the family and swaps the addresses of @marked, takes DSCP 48,
 * priority 6, TTL 64, UDP source port = that of @marked, IP ID 0, flow
 * label 0. The caller overrides what its configuration says.
 */
static inline void rocecc_cnp_params_init(struct rocecc_cnp_params *cp,
					  const struct rocecc_pkt *marked,
					  __u32 remote_qp)
{
	__u32 i;

	__builtin_memset(cp, 0, sizeof(*cp));
	for (i = 0; i < 16; i++) {
		cp->saddr[i] = marked->daddr[i];
		cp->daddr[i] = marked->saddr[i];
	}
	cp->family = marked->family;
	cp->dest_qp = remote_qp;
	cp->sport = marked->sport;
	cp->dscp = ROCECC_CNP_DEFAULT_DSCP;
	cp->prio = ROCECC_CNP_DEFAULT_PRIO;
	cp->ttl = ROCECC_CNP_DEFAULT_TTL;
}

/**
 * rocecc_ipv4_csum() - IPv4 header checksum
 * @hdr: the header
 * @len: its length (IHL * 4)
 *
 * Return: the value for bytes 10..11 (big-endian); a header that already
 * has a correct checksum gives 0.
 */
static inline __u16 rocecc_ipv4_csum(const __u8 *hdr, __u32 len)
{
	__u32 sum = 0, i;

	for (i = 0; i + 1 < len; i += 2)
		sum += rocecc_get_be16(hdr + i);
	if (len & 1)
		sum += (__u32)hdr[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

/**
 * rocecc_cnp_build() - write a RoCEv2 CNP, from its IP header on
 * @cp: parameters
 * @buf: where the IP header goes
 * @buf_len: room at @buf
 *
 * Return: the packet length (ROCECC_CNP_LEN_IPV4 or ROCECC_CNP_LEN_IPV6),
 * ROCECC_CNP_ENOSPC if @buf_len is too small (nothing written) or
 * ROCECC_CNP_EINVAL if a parameter is out of range.
 */
static inline int rocecc_cnp_build(const struct rocecc_cnp_params *cp,
				   __u8 *buf, __u32 buf_len)
{
	__u32 len, ip, i, icrc, crc;
	__u8 *h;

	if (cp->dest_qp > ROCECC_BTH_QPN_MASK || cp->dscp > 63 ||
	    cp->prio > 7 || cp->flow_label > 0xfffff)
		return ROCECC_CNP_EINVAL;
	if (cp->family == ROCECC_AF_INET)
		ip = ROCECC_IPV4_HLEN;
	else if (cp->family == ROCECC_AF_INET6)
		ip = ROCECC_IPV6_HLEN;
	else
		return ROCECC_CNP_EINVAL;
	len = ip + ROCECC_CNP_UDP_LEN;
	if (buf_len < len)
		return ROCECC_CNP_ENOSPC;
	__builtin_memset(buf, 0, len);

	h = buf;
	if (cp->family == ROCECC_AF_INET) {
		h[0] = 0x45;				/* version 4, IHL 5 */
		h[1] = (__u8)(cp->dscp << 2);		/* ECN Not-ECT */
		rocecc_put_be16(h + 2, (__u16)len);
		rocecc_put_be16(h + 4, cp->ip_id);
		h[6] = 0x40;				/* DF */
		h[8] = cp->ttl;
		h[9] = ROCECC_IPPROTO_UDP;
		for (i = 0; i < 4; i++) {
			h[12 + i] = cp->saddr[12 + i];
			h[16 + i] = cp->daddr[12 + i];
		}
		rocecc_put_be16(h + 10, rocecc_ipv4_csum(h, ROCECC_IPV4_HLEN));
	} else {
		/* version 6, traffic class DSCP + Not-ECT, flow label */
		rocecc_put_be32(h, (6U << 28) | ((__u32)cp->dscp << 22) |
				   cp->flow_label);
		rocecc_put_be16(h + 4, ROCECC_CNP_UDP_LEN);
		h[6] = ROCECC_IPPROTO_UDP;
		h[7] = cp->ttl;
		for (i = 0; i < 16; i++) {
			h[8 + i] = cp->saddr[i];
			h[24 + i] = cp->daddr[i];
		}
	}

	h = buf + ip;					/* UDP */
	rocecc_put_be16(h, cp->sport);
	rocecc_put_be16(h + 2, ROCECC_UDP_PORT);
	rocecc_put_be16(h + 4, ROCECC_CNP_UDP_LEN);	/* checksum stays 0 */

	h += ROCECC_UDP_HLEN;				/* BTH */
	h[0] = ROCECC_OP_CNP;
	rocecc_put_be16(h + 2, ROCECC_PKEY_DEFAULT);
	h[4] = ROCECC_BTH_BECN;
	rocecc_put_be24(h + 5, cp->dest_qp);
	/* AckReq, PSN and the 16 reserved bytes stay 0 */

	if (rocecc_icrc_hdr(buf, 0, ip, cp->family, &crc))
		return ROCECC_CNP_EINVAL;
	crc = rocecc_crc32_le(crc, buf + ip + ROCECC_UDP_HLEN + ROCECC_BTH_LEN,
			      ROCECC_CNP_RSVD_LEN);
	icrc = ~crc;
	rocecc_put_le32(buf + len - ROCECC_ICRC_LEN, icrc);
	return (int)len;
}

#endif /* _ROCECC_CNP_H */
