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

/* CRC-32 polynomial, reflected: bit 31 is the coefficient of x^0 */
#define ROCECC_CRC32_POLY	0xedb88320U

/*
 * @c * x^4 mod the CRC-32 polynomial, reflected (bit 31 is x^0): a
 * table-driven CRC's step over four zero bits. nib[v] = v * x^4 for
 * v < 16, the CRC of the 4-bit value v. No branch on the data.
 */
static inline __u32 rocecc_crc32_x4(__u32 c)
{
	static const __u32 nib[16] = {
		0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac,
		0x76dc4190, 0x6b6b51f4, 0x4db26158, 0x5005713c,
		0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
		0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
	};

	return (c >> 4) ^ nib[c & 0xf];
}

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
	__u32 i;

	/* two 4-bit table steps per byte */
	for (i = 0; i < len; i++)
		crc = rocecc_crc32_x4(rocecc_crc32_x4(crc ^ p[i]));
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

/* Bytes after a changed one that rocecc_icrc_flip() handles: < 2^16 */
#define ROCECC_ICRC_FLIP_BITS	16

/*
 * @a * @b mod the CRC-32 polynomial, both reflected (bit 31 is x^0), of
 * which only the first @n coefficients of @a count (x^0 .. x^(@n - 1),
 * its bits 31 .. 32 - @n): 32 for any @a, fewer for a short one.
 *
 * The carry-less product, of degree 62 at most, is made in 64 bits (x^d
 * at bit 63 - d), one shift and xor per coefficient of @a; its high word
 * is x^0 .. x^31 as it is, its low word x^32 times a reflected word,
 * reduced by eight 4-bit steps (rocecc_crc32_x4()). No branch on the
 * data: a BPF verifier walks it once.
 */
static inline __u32 rocecc_crc32_mulmod_n(__u32 a, __u32 b, int n)
{
	__u64 pa = (__u64)a << 32, pb = (__u64)b << 32, v = 0;
	__u32 lo;
	int i;

	for (i = 0; i < n; i++) {
		v ^= pb & (0ULL - (pa >> 63));
		pa <<= 1;
		pb >>= 1;
	}
	lo = (__u32)v;
	for (i = 0; i < 8; i++)
		lo = rocecc_crc32_x4(lo);
	return (__u32)(v >> 32) ^ lo;
}

/* @a * @b mod the CRC-32 polynomial, both reflected (bit 31 is x^0) */
static inline __u32 rocecc_crc32_mulmod(__u32 a, __u32 b)
{
	return rocecc_crc32_mulmod_n(a, b, 32);
}

/*
 * x^(8 @i + 32) mod the CRC-32 polynomial, reflected, for @i < 256 (the
 * low byte of a byte count, with the x^32 of the CRC of the changed byte
 * in it). Entry i is the CRC state 0x80000000 (x^0) after i + 4 zero
 * bytes; test_icrc.c recomputes every one.
 */
static inline __u32 rocecc_icrc_xlo(__u32 i)
{
	static const __u32 t[256] = {
		0xedb88320, 0x3b83984b, 0xe1351b80, 0xed59b63b,
		0xb1e6b092, 0x1eb014d8, 0x8816eaf2, 0x533b85da,
		0x6655004f, 0xe6050901, 0x77e1359f, 0x60c76fe0,
		0xa06a2517, 0x8373efe2, 0x4e87f0bb, 0x5cfdedf4,
		0xba8ccbe8, 0xae6be681, 0x9a11d850, 0x6bf1402c,
		0x32b39da3, 0x4fed41cf, 0x0b943260, 0x4db9f56a,
		0xad2a31b3, 0x52c5c807, 0x9e36506b, 0xdafe8e80,
		0xed627dae, 0x3183ec92, 0x1e307184, 0xeacb7748,
		0x78ed02d5, 0xf6c1cb59, 0x1241289b, 0x67cf0be4,
		0xa700e96a, 0xadc088af, 0x46c47ef1, 0xcafc06f4,
		0xba1aca03, 0x99b34b70, 0x509cc277, 0xce31785d,
		0x15141c31, 0x51cb1426, 0xd25c4ee9, 0xd9040692,
		0x1ed8f66e, 0xaa1494a9, 0xafa00fd8, 0x88a7fae9,
		0xd95efd26, 0xd2d4db00, 0x00d2d4db, 0x1101d988,
		0xe3720acb, 0x0c556932, 0xc8db04e9, 0xd91e81d8,
		0x88d14467, 0xd35e25bf, 0x5b0df038, 0x2859b56e,
		0xaa2215ea, 0x40752973, 0xc94c55af, 0x46a0f22c,
		0x329ecc11, 0x6a82be3e, 0xc10b9f15, 0x6d1cef74,
		0x5705a9ca, 0x7be62e07, 0x9e1f738d, 0x9397e0ee,
		0x4721589f, 0x60f7af8d, 0x93690832, 0xc8443888,
		0xe3ab4f2a, 0xdb586299, 0x89087382, 0x033fea7f,
		0xc0b95347, 0xe8786d60, 0x4d5a1935, 0x56fe9e3a,
		0xc65a272c, 0x321e36c4, 0x9c3b189f, 0x602cb5cd,
		0xe5b592b8, 0xc55f8e2c, 0x321d336d, 0x333100d6,
		0x6f8346e1, 0xd76251a8, 0xd8da498b, 0x7ab280e1,
		0xd777606e, 0xaadd3b3f, 0xb6ccf006, 0xe9d569c5,
		0xebe7e356, 0x82e31322, 0xd5e2a2f7, 0x230c851d,
		0x6325605c, 0x62be38bf, 0x5bbc1025, 0x4b5f6857,
		0xf5449b3f, 0xb69369a6, 0x3f0395b4, 0xcc337400,
		0x00cc3374, 0x57687916, 0xf483dd28, 0x35412b27,
		0xa53ff440, 0x76797e64, 0x4aa9dc3f, 0xb62c84e1,
		0xd7bbfe6a, 0xadb033b8, 0xc5178b8d, 0x93cce816,
		0xf44779b9, 0xb2494c51, 0x1cde282e, 0xdccad3e7,
		0x3eb2bd08, 0x0ee53a8f, 0x7d097b8b, 0x7a1753d3,
		0x1fa0943d, 0x5877ec85, 0x9d8a0043, 0xef489a2a,
		0xdb54814c, 0x7fb1593a, 0xc67368eb, 0x371e4898,
		0xfee3053e, 0xc19ffeae, 0x31af1111, 0x6a818fe3,
		0x3969324d, 0x0854541f, 0x8d0059a1, 0xa15c9327,
		0xa5abe9f8, 0xb3c3d1c7, 0x05b394c2, 0x756f1008,
		0x0eaee722, 0xd56eef03, 0x99dc3f55, 0x1b987944,
		0x71aa1df0, 0xbdcc5801, 0x77bafcce, 0x7cab554b,
		0xe172334d, 0x088c4f1e, 0xfa07b12c, 0x32226b52,
		0x855712b3, 0x52edb524, 0x3c510964, 0x4ae3f448,
		0x784d2a56, 0x8270b9eb, 0x375a4b49, 0x0f37a37f,
		0xc0b55b0e, 0xe778985c, 0x623a6547, 0xe8daee56,
		0x82e02e2f, 0xab53dd77, 0xcecab742, 0x981cea0b,
		0x974ac562, 0xa32b4ab1, 0xbcc5a850, 0x6bd7945c,
		0x62b6ca4b, 0xe16c2ed2, 0x683cdfd6, 0x6fd84b3e,
		0xc10ec5e0, 0xa0cbecbd, 0xb57004dd, 0xf8d7de6d,
		0x33fbca3b, 0xb13812ee, 0x4703f76d, 0x33441e12,
		0xf38a3556, 0x82fb7ef4, 0xba52cd7b, 0xc76dfa79,
		0x291ea462, 0xa3951ed0, 0x867047ca, 0x7b375be9,
		0xd9ad6d87, 0x7305bbee, 0x47c1cac4, 0x9c4ec763,
		0xd4277e25, 0x4bd0f339, 0x5f4e58fb, 0x2a3065cc,
		0x92f8befe, 0x5a9727a5, 0xa6e6c040, 0x767aa750,
		0x6b1d2b53, 0xf2091d65, 0x3d2a9cca, 0x7b8c0132,
		0xc8acdd81, 0x9a771f6b, 0xdafacfcf, 0x0b0125ee,
		0x47b9ce5a, 0x8bf90124, 0x3c881dd0, 0x86ef5ac9,
		0xe23e954e, 0x91865202, 0xee9fe77e, 0xb753c3dc,
		0x8fd2cd3c, 0x2fe0ae4a, 0x96264820, 0x3bf80680,
		0xed837b26, 0xd2e00686, 0x0409c613, 0x84ba4818,
		0x13e8221e, 0xfa1cd541, 0x01216dd3, 0x1fdba203,
		0x99168a18, 0x13f58edc, 0x8f766b71, 0x278d37c1,
		0xec447f11, 0x6a5c648d, 0x9363a3f9, 0xc4f2291b,
	};

	return t[rocecc_opaque_u32(i) & 0xff];
}

/*
 * x^(2048 @i) mod the CRC-32 polynomial, reflected, for @i < 256 (the
 * high byte of a byte count): the CRC state 0x80000000 after 256 i zero
 * bytes; test_icrc.c recomputes every one.
 */
static inline __u32 rocecc_icrc_xhi(__u32 i)
{
	static const __u32 t[256] = {
		0x80000000, 0xec447f11, 0x8e7ea170, 0x05616c82,
		0x6427800e, 0x5ef840e2, 0xbf110f7e, 0x118f848e,
		0x4d47bae0, 0xa84bdc84, 0x0b19ae7f, 0xaf5619bc,
		0x6347a4bd, 0xd91ef3cb, 0x13d40d42, 0x5b6cda72,
		0x09fe548f, 0x3a7f1119, 0x5f58ea19, 0x0a872662,
		0x923b0526, 0xf27886e9, 0xced83e9e, 0x3274df68,
		0x552d4042, 0xb0aad506, 0x35f2abeb, 0x1e139bbc,
		0x63c21244, 0x6ffe4f05, 0x196613fe, 0x513a9268,
		0x83852d0f, 0x3584c05e, 0x926483da, 0xb6be16b2,
		0x4d29b1c7, 0x5f13ec02, 0xa0e49905, 0x6ee21674,
		0x4e2f9ac3, 0x4b200926, 0x8ad67562, 0xfa765f69,
		0x4ccd837b, 0xb9bae81c, 0xbd3f1de4, 0x725b564e,
		0xe4b54665, 0x4b97252c, 0x70ec8bbd, 0xcf2c46a9,
		0x7da28b5c, 0xfb785dd4, 0x61bb1794, 0xd2d0d1d4,
		0x96a2a2f2, 0xedb44028, 0x4d17b9b6, 0x4f2a23ad,
		0x4a5348d2, 0x2071a17e, 0x326ac3ef, 0xec062836,
		0x30362f1a, 0xa468f27d, 0x6fe280ac, 0xcdc95034,
		0x674e5450, 0x6aea5fca, 0x106df397, 0x82c6bb29,
		0x090e1204, 0x259c328d, 0x9114bdd6, 0x80767c13,
		0x8838d750, 0x6a89f692, 0x0e130b86, 0x80085267,
		0x668145e1, 0x9f5cade0, 0x42aa24a0, 0xe26c1a46,
		0x0f6b1269, 0x1866d819, 0x5a0e5647, 0x0d907a90,
		0x80c95e61, 0x88d80126, 0x27e3f472, 0xe6b4278b,
		0x8fc4160b, 0x1c792c61, 0x12a7bace, 0x3e3297dc,
		0xf27674ad, 0xc6205d7a, 0xca9b0485, 0xef7b5f46,
		0x0d141499, 0x98897dce, 0x6eefb24a, 0xd2f54b41,
		0x70d4f062, 0xf73f8b7a, 0x9915933f, 0x19f683c5,
		0xebe4475e, 0x070be56b, 0xd2282476, 0xb5a89f63,
		0xb8c9f94b, 0x7d1d3a62, 0x70864d6b, 0x0fd98425,
		0xad5e8b5a, 0xa629a3cd, 0xdcdaf386, 0xd96f8fc2,
		0x3f2d3b68, 0xfc6632c1, 0x6450b14e, 0x0a7a7697,
		0xd38c9653, 0x80376454, 0xf5e91256, 0x10f06ab6,
		0x7b5a9cc3, 0xf6716b8a, 0xa442fac6, 0x2f77a048,
		0x675f7815, 0xb9054b40, 0xd867cb8e, 0x980e2eb1,
		0x5307d760, 0xdb3e51fa, 0x58957ebb, 0xc5f7fd84,
		0xe3d20a6a, 0x2c521533, 0x054a95df, 0xefae61eb,
		0x866744b2, 0x1ab44181, 0x26792bb8, 0x6966594f,
		0xac24b8aa, 0x8544eebb, 0x99856b1d, 0xf02dc097,
		0xecfa96e2, 0x4005caa2, 0x64d383df, 0x3c4cff12,
		0x4577ee9a, 0xe04d22c7, 0x6468936e, 0x60ac5cb7,
		0xc99622b9, 0xa4473d6b, 0x2a93fb01, 0xcc0d3a01,
		0x54716e20, 0x5ae9593b, 0xe8979afe, 0x5912d4d2,
		0x5773aa46, 0x96a3d6e9, 0x450fd879, 0x283c9001,
		0x5d77e65c, 0xaeeae3cc, 0xcaf2967b, 0x837cd143,
		0xafe90854, 0xfef90a21, 0xd923166b, 0x518c1fa5,
		0x5bc32d87, 0xcca37d51, 0xaa4983e5, 0xa00715a9,
		0xb11d39f9, 0xd8410555, 0x3e2bc18a, 0xfefb6a4c,
		0xad989cdd, 0xf8a57055, 0xf1e2b427, 0xe2c3ed5b,
		0xec735cea, 0xfbce9aad, 0xf44eca6d, 0x09e0342d,
		0xde02da1d, 0x6432a9ba, 0x74e9fe3c, 0x80dfd181,
		0xdec9f6f0, 0xd76526e9, 0x94adfbb5, 0x2c3f3d63,
		0xfdbc90a8, 0x311d8e89, 0xca4e7440, 0xef8145ff,
		0xefe9d761, 0x5bc1c78c, 0x9bc9a4a9, 0x87978634,
		0x549a7413, 0xdaf4a9d8, 0xc696fb57, 0xaf340ec1,
		0x4f99e7a4, 0xe521d96f, 0xcb2f2c77, 0xfe1fb8ac,
		0x690be0f7, 0x9a6379b9, 0x849fc9d3, 0xaf9fc4b1,
		0x0f9f0002, 0xbafa5675, 0xcac7c648, 0x727c138e,
		0x39e53f8c, 0xa6bb255a, 0x7cbe330d, 0x31929023,
		0xb752dd13, 0x1e285fb6, 0xafbe67f4, 0x6767c2c4,
		0xeaff9ca5, 0xbf50f44a, 0x071e8a66, 0x5aa59247,
		0xf014301e, 0xa76f7136, 0xf1ddded5, 0x11bd8d1c,
		0xa7e95db6, 0x054c4ba2, 0xab50cd40, 0x956a79b9,
		0xa895beec, 0x338ed202, 0xbbcabbc2, 0xcac29066,
		0xd2ba56f9, 0x5a86b1ef, 0x4dcb093e, 0x0d8921cb,
	};

	return t[rocecc_opaque_u32(i) & 0xff];
}

/**
 * rocecc_icrc_flip() - the ICRC's change when bits of one byte change
 * @mask: the bits that change (xor) in a byte the ICRC covers
 * @after: how many covered bytes follow that byte, up to the ICRC;
 *	   less than 2^ROCECC_ICRC_FLIP_BITS
 *
 * A CRC is linear: changing message bits by E changes the CRC by the CRC
 * of E alone without the initial value or the final complement, here
 * @mask followed by @after zero bytes. That is m(x) x^32 x^(8 @after)
 * mod the polynomial, where m(x) is @mask read as the CRC reads a byte
 * (bit j is x^(7 - j): @mask << 24 reflected). x^(8 @after + 32) is the
 * product of two table entries, one per byte of @after
 * (rocecc_icrc_xlo(), rocecc_icrc_xhi()): a product of 32 steps; m(x)
 * times that is one of 8. With their reductions, 40 shift-and-xor steps
 * and 16 4-bit table steps in all (the sixteen products of 32 steps this
 * replaced cost ~900 ns per packet in the BPF engine), with no loop over
 * the packet and no branch on the data, so a BPF
 * program can set a bit (BTH AckReq) and mend the ICRC in place; a
 * packet whose ICRC was wrong stays wrong.
 *
 * Return: the value to xor into the ICRC (rocecc_icrc_get() order).
 */
static inline __u32 rocecc_icrc_flip(__u8 mask, __u32 after)
{
	__u32 x = rocecc_crc32_mulmod(rocecc_icrc_xlo(after & 0xff),
				      rocecc_icrc_xhi((after >> 8) & 0xff));

	return rocecc_crc32_mulmod_n((__u32)mask << 24, x, 8);
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
