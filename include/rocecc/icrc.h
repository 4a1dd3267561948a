/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * rocecc: the RoCEv2 invariant CRC (ICRC).
 *
 * CRC-32 of IEEE 802.3 (reflected polynomial 0xEDB88320, the kernel's
 * crc32_le()), initial value all ones, result complemented, over
 *
 *	8 bytes 0xff (the masked LRH of InfiniBand)
 *	the IP header, with the fields a router may change set to all ones:
 *		IPv4: TOS (DSCP + ECN), TTL, header checksum;
 *		IPv6: traffic class, flow label, hop limit;
 *	the UDP header, with the checksum set to all ones;
 *	the BTH, with byte 4 (FECN, BECN, reserved) set to all ones;
 *	everything after the BTH up to the ICRC (extension headers, payload,
 *	pad).
 *
 * The whole IPv4 header including options is covered (as scapy's RoCE
 * layer does; rdma_rxe only handles option-less headers).
 *
 * On the wire the ICRC is stored least significant byte first (rdma_rxe
 * stores the crc32_le() value as a little-endian word; scapy packs it
 * big-endian and reverses it). The functions here work with the numeric
 * value and rocecc_icrc_get()/rocecc_icrc_put() do the byte order.
 * Sources: docs/dcqcn.md §4.4, IBTA Annex A17, rxe_icrc.c.
 *
 * rocecc_icrc_calc() loops over the payload: not for BPF. What a BPF
 * program can afford is rocecc_icrc_flip(): the change of the ICRC when
 * bits of one covered byte change, without reading the rest.
 */
#ifndef _ROCECC_ICRC_H
#define _ROCECC_ICRC_H

#include "compat.h"
#include "roce.h"

/* CRC state after the 8 masked LRH bytes: crc32_le(~0, 8 x 0xff) */
#define ROCECC_ICRC_LRH_SEED	0xdebb20e3U

/* Largest masked header copy: IPv4 with options + UDP + BTH */
#define ROCECC_ICRC_HDR_MAX	(ROCECC_IPV4_HLEN_MAX + ROCECC_UDP_HLEN + \
				 ROCECC_BTH_LEN)

/**
 * rocecc_crc32_le() - update a reflected CRC-32 (poly 0xEDB88320)
 * @crc: the running state (no pre- or post-inversion is done here)
 * @p: bytes
 * @len: number of bytes
 *
 * Same contract as the kernel's crc32_le(), which it is in the kernel.
 *
 * Return: the new state.
 */
static inline __u32 rocecc_crc32_le(__u32 crc, const __u8 *p, __u32 len)
{
#if defined(__KERNEL__)
	return crc32_le(crc, p, len);
#else
	/* CRC of each 4-bit value: two table steps per byte */
	static const __u32 nib[16] = {
		0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac,
		0x76dc4190, 0x6b6b51f4, 0x4db26158, 0x5005713c,
		0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
		0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
	};
	__u32 i;

	for (i = 0; i < len; i++) {
		crc ^= p[i];
		crc = (crc >> 4) ^ nib[crc & 0xf];
		crc = (crc >> 4) ^ nib[crc & 0xf];
	}
	return crc;
#endif
}

/**
 * rocecc_icrc_hdr() - CRC state over the masked LRH and the masked headers
 * @buf: packet buffer
 * @l3_off: offset of the IP header in @buf
 * @l4_off: offset of the UDP header in @buf (the BTH follows it)
 * @family: ROCECC_AF_INET or ROCECC_AF_INET6
 * @state: out, the CRC state after the BTH
 *
 * The caller continues with rocecc_crc32_le() over the bytes from the end
 * of the BTH to the ICRC (they may be in skb fragments) and complements
 * the result. Reads @l3_off .. @l4_off + 20 of @buf.
 *
 * Return: 0, or -1 if the header layout is impossible.
 */
static inline int rocecc_icrc_hdr(const __u8 *buf, __u32 l3_off,
				  __u32 l4_off, __u8 family, __u32 *state)
{
	__u8 hdr[ROCECC_ICRC_HDR_MAX];
	__u32 iplen, len, i;

	if (l4_off < l3_off)
		return -1;
	iplen = l4_off - l3_off;
	if (family == ROCECC_AF_INET) {
		if (iplen < ROCECC_IPV4_HLEN || iplen > ROCECC_IPV4_HLEN_MAX)
			return -1;
	} else if (family == ROCECC_AF_INET6) {
		if (iplen != ROCECC_IPV6_HLEN)
			return -1;
	} else {
		return -1;
	}
	len = iplen + ROCECC_UDP_HLEN + ROCECC_BTH_LEN;
	for (i = 0; i < len; i++) {
		hdr[i] = buf[l3_off + i];
		rocecc_loop_barrier();
	}

	if (family == ROCECC_AF_INET) {
		hdr[1] = 0xff;			/* TOS */
		hdr[8] = 0xff;			/* TTL */
		hdr[10] = 0xff;			/* header checksum */
		hdr[11] = 0xff;
	} else {
		hdr[0] |= 0x0f;			/* traffic class */
		hdr[1] = 0xff;			/* traffic class, flow label */
		hdr[2] = 0xff;
		hdr[3] = 0xff;
		hdr[7] = 0xff;			/* hop limit */
	}
	hdr[iplen + 6] = 0xff;			/* UDP checksum */
	hdr[iplen + 7] = 0xff;
	hdr[iplen + ROCECC_UDP_HLEN + 4] = 0xff; /* BTH FECN, BECN, resv6 */

	*state = rocecc_crc32_le(ROCECC_ICRC_LRH_SEED, hdr, len);
	return 0;
}

/**
 * rocecc_icrc_calc() - compute the ICRC of a parsed packet
 * @buf: the buffer the packet was parsed from
 * @buf_len: bytes readable at @buf; must cover the whole RoCE packet
 * @p: the parse result (ROCECC_ROCE) for @buf
 * @icrc: out, the ICRC value (store it with rocecc_icrc_put())
 *
 * Return: 0, or -1 if the packet is not entirely in @buf.
 */
static inline int rocecc_icrc_calc(const __u8 *buf, __u32 buf_len,
				   const struct rocecc_pkt *p, __u32 *icrc)
{
	__u32 crc, rest;

	if (p->icrc_off + ROCECC_ICRC_LEN > buf_len ||
	    p->icrc_off < p->bth_off + ROCECC_BTH_LEN ||
	    p->bth_off != p->l4_off + ROCECC_UDP_HLEN)
		return -1;
	if (rocecc_icrc_hdr(buf, p->l3_off, p->l4_off, p->family, &crc))
		return -1;
	rest = p->icrc_off - (p->bth_off + ROCECC_BTH_LEN);
	crc = rocecc_crc32_le(crc, buf + p->bth_off + ROCECC_BTH_LEN, rest);
	*icrc = ~crc;
	return 0;
}

/* The ICRC as carried in the packet (least significant byte first) */
static inline __u32 rocecc_icrc_get(const __u8 *buf,
				    const struct rocecc_pkt *p)
{
	return rocecc_get_le32(buf + p->icrc_off);
}

static inline void rocecc_icrc_put(__u8 *buf, const struct rocecc_pkt *p,
				   __u32 icrc)
{
	rocecc_put_le32(buf + p->icrc_off, icrc);
}

/* CRC-32 polynomial, reflected: bit 31 is the coefficient of x^0 */
#define ROCECC_CRC32_POLY	0xedb88320U

/* Bytes after a changed one that rocecc_icrc_flip() handles: < 2^16 */
#define ROCECC_ICRC_FLIP_BITS	16

/*
 * @a * @b mod the CRC-32 polynomial, both reflected (bit 31 is x^0).
 * No branch on the data: a BPF verifier walks it once.
 */
static inline __u32 rocecc_crc32_mulmod(__u32 a, __u32 b)
{
	__u32 p = 0;
	int i;

	for (i = 0; i < 32; i++) {
		p ^= b & (0U - ((a >> (31 - i)) & 1U));
		b = (b >> 1) ^ (ROCECC_CRC32_POLY & (0U - (b & 1U)));
	}
	return p;
}

/**
 * rocecc_icrc_flip() - the ICRC's change when bits of one byte change
 * @mask: the bits that change (xor) in a byte the ICRC covers
 * @after: how many covered bytes follow that byte, up to the ICRC;
 *	   less than 2^ROCECC_ICRC_FLIP_BITS
 *
 * A CRC is linear: changing message bits by E changes the CRC by the CRC
 * of E alone without the initial value or the final complement, here
 * @mask followed by @after zero bytes, that is crc(@mask) * x^(8 @after)
 * mod the polynomial. x^(8 @after) is the product of the table's powers
 * x^(8 * 2^k) for the bits k of @after. Sixteen products of 32 steps
 * each, with no loop over the packet and no branch on the data, so a BPF
 * program can set a bit (BTH AckReq) and mend the ICRC in place; a
 * packet whose ICRC was wrong stays wrong.
 *
 * Return: the value to xor into the ICRC (rocecc_icrc_get() order).
 */
static inline __u32 rocecc_icrc_flip(__u8 mask, __u32 after)
{
	/* x^(8 * 2^k) mod the polynomial, reflected */
	static const __u32 x8n[ROCECC_ICRC_FLIP_BITS] = {
		0x00800000, 0x00008000, 0xedb88320, 0xb1e6b092,
		0xa06a2517, 0xed627dae, 0x88d14467, 0xd7bbfe6a,
		0xec447f11, 0x8e7ea170, 0x6427800e, 0x4d47bae0,
		0x09fe548f, 0x83852d0f, 0x30362f1a, 0x7b5a9cc3,
	};
	__u32 d = rocecc_crc32_le(0, &mask, 1), m;
	int k;

	for (k = 0; k < ROCECC_ICRC_FLIP_BITS; k++) {
		m = 0U - ((after >> k) & 1U);
		d = (rocecc_crc32_mulmod(d, x8n[k]) & m) | (d & ~m);
	}
	return d;
}

/*
 * The covered bytes after byte @off of parsed packet @p, up to its ICRC,
 * or -1 if @off is not before the ICRC or too far from it for
 * rocecc_icrc_flip().
 */
static inline __s32 rocecc_icrc_after(const struct rocecc_pkt *p, __u32 off)
{
	__u32 n;

	if (off >= p->icrc_off)
		return -1;
	n = p->icrc_off - off - 1;
	return n >> ROCECC_ICRC_FLIP_BITS ? -1 : (__s32)n;
}

/**
 * rocecc_icrc_set_ackreq() - set BTH AckReq and mend the ICRC, in place
 * @buf: the buffer @p was parsed from, writable, holding the whole packet
 * @buf_len: bytes at @buf
 * @p: the parse result (ROCECC_ROCE)
 *
 * What a BPF program does with its helpers on the skb (the same
 * rocecc_icrc_flip()), for a buffer.
 *
 * Return: 0, or -1 if the packet is not all in @buf or AckReq was set.
 */
static inline int rocecc_icrc_set_ackreq(__u8 *buf, __u32 buf_len,
					 const struct rocecc_pkt *p)
{
	__u32 off = p->bth_off + 8;
	__s32 after = rocecc_icrc_after(p, off);

	if (after < 0 || p->icrc_off + ROCECC_ICRC_LEN > buf_len ||
	    (buf[off] & ROCECC_BTH_ACKREQ))
		return -1;
	buf[off] |= ROCECC_BTH_ACKREQ;
	rocecc_icrc_put(buf, p, rocecc_icrc_get(buf, p) ^
			rocecc_icrc_flip(ROCECC_BTH_ACKREQ, (__u32)after));
	return 0;
}

/**
 * rocecc_icrc_check() - does a parsed packet carry a correct ICRC?
 * @buf: the buffer the packet was parsed from
 * @buf_len: bytes readable at @buf
 * @p: the parse result (ROCECC_ROCE) for @buf
 *
 * Return: true if the whole packet is in @buf and its ICRC is right.
 */
static inline bool rocecc_icrc_check(const __u8 *buf, __u32 buf_len,
				     const struct rocecc_pkt *p)
{
	__u32 icrc;

	if (rocecc_icrc_calc(buf, buf_len, p, &icrc))
		return false;
	return icrc == rocecc_icrc_get(buf, p);
}

/**
 * rocecc_icrc_compute() - ICRC of a packet in a buffer from its IP header
 * @ip: the IPv4 or IPv6 header
 * @len: bytes at @ip; the whole IP packet must be there
 * @icrc: out, the ICRC value
 *
 * Return: 0, or -1 if @ip does not hold a complete RoCEv2 packet.
 */
static inline int rocecc_icrc_compute(const __u8 *ip, __u32 len, __u32 *icrc)
{
	struct rocecc_pkt p;

	if (rocecc_parse_ip(ip, len, len, &p) != ROCECC_ROCE)
		return -1;
	return rocecc_icrc_calc(ip, len, &p, icrc);
}

/**
 * rocecc_icrc_verify() - verify the ICRC of a packet from its IP header
 * @ip: the IPv4 or IPv6 header
 * @len: bytes at @ip; the whole IP packet must be there
 *
 * Return: true if @ip holds a complete RoCEv2 packet with a correct ICRC.
 */
static inline bool rocecc_icrc_verify(const __u8 *ip, __u32 len)
{
	struct rocecc_pkt p;

	if (rocecc_parse_ip(ip, len, len, &p) != ROCECC_ROCE)
		return false;
	return rocecc_icrc_check(ip, len, &p);
}

#endif /* _ROCECC_ICRC_H */
