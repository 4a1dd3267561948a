// SPDX-License-Identifier: GPL-2.0
/*
 * The RoCEv2 parser (include/rocecc/roce.h): every field of hand-built
 * packets, every truncation, malformed and foreign packets.
 *
 * Packets are built here byte by byte from a small description, without
 * using rocecc's own builders. Every buffer handed to the parser is a heap
 * block of exactly the announced size, so a build with
 * -fsanitize=address catches any read past the end.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rocecc/roce.h>

#include "tap.h"

#define MAXPKT	8192

struct spec {
	const char *name;
	int eth;		/* 1: starts with an Ethernet header */
	int vlan;		/* 1: one 802.1Q tag */
	uint16_t tci;
	uint16_t ethertype;	/* 0: from fam */
	uint16_t tpid2;		/* != 0: a second tag with this TPID */
	int fam;		/* 4 or 6 */
	int ipver;		/* 0: fam */
	uint8_t tos;
	uint8_t ttl;
	uint32_t flow_label;
	uint8_t src[16];	/* IPv4: first 4 bytes */
	uint8_t dst[16];
	int proto;		/* 0: UDP; 0x100: 0 (hop-by-hop) */
	uint16_t frag;		/* IPv4 flags + fragment offset */
	int ipopt;		/* bytes of IPv4 options */
	int ihl;		/* != 0: IHL field = ihl & 0xf */
	int tot_delta;		/* added to IPv4 total / IPv6 payload length */
	int udp_delta;		/* added to the UDP length field */
	uint16_t sport;
	uint16_t dport;		/* 0: 4791 */
	uint8_t op;
	uint8_t se, mig, pad, tver, fecn, becn, ackreq;
	uint16_t pkey;
	uint32_t qpn, psn;
	int ext;		/* extension header bytes after the BTH */
	uint8_t syn;		/* AETH, written if the opcode has one */
	uint32_t msn;
	int payload;		/* payload bytes, pad comes on top */
	int trailer;		/* bytes after the IP packet */
	int udp_len_abs;	/* != 0: UDP length = udp_len_abs & 0xffff */
};

/* Offsets the builder used, for the checks */
struct layout {
	uint32_t len, l3, l4, bth, payload, icrc, ip_end;
};

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static void put24(uint8_t *p, uint32_t v)
{
	p[0] = v >> 16;
	p[1] = (v >> 8) & 0xff;
	p[2] = v & 0xff;
}

static int is_aeth_op(uint8_t op)
{
	return op == 0x0d || op == 0x0f || op == 0x10 || op == 0x11 ||
	       op == 0x12;
}

static struct layout build(const struct spec *s, uint8_t *out)
{
	struct layout L = { 0 };
	uint32_t o = 0, iphl, roce_len, i;
	int ver = s->ipver ? s->ipver : s->fam;

	memset(out, 0, MAXPKT);
	if (s->eth) {
		for (i = 0; i < 6; i++) {
			out[i] = 0x02;
			out[6 + i] = 0x04 + i;
		}
		o = 12;
		if (s->vlan) {
			put16(out + o, 0x8100);
			put16(out + o + 2, s->tci);
			o += 4;
		}
		if (s->tpid2) {
			put16(out + o, s->tpid2);
			put16(out + o + 2, 0x0001);
			o += 4;
		}
		put16(out + o, s->ethertype ? s->ethertype :
				s->fam == 4 ? 0x0800 : 0x86dd);
		o += 2;
	}
	L.l3 = o;
	iphl = s->fam == 4 ? 20 + s->ipopt : 40;
	roce_len = 8 + 12 + s->ext + s->payload + s->pad + 4;
	L.l4 = o + iphl;
	L.bth = L.l4 + 8;
	L.payload = L.bth + 12 + s->ext;
	L.icrc = L.payload + s->payload + s->pad;
	L.ip_end = L.icrc + 4;
	if (L.ip_end + s->trailer > MAXPKT) {
		fprintf(stderr, "%s: packet too large\n", s->name);
		exit(2);
	}

	if (s->fam == 4) {
		out[o] = (ver << 4) | (s->ihl ? s->ihl & 0xf : iphl / 4);
		out[o + 1] = s->tos;
		put16(out + o + 2, iphl + roce_len + s->tot_delta);
		put16(out + o + 4, 0x4321);
		put16(out + o + 6, s->frag);
		out[o + 8] = s->ttl;
		out[o + 9] = s->proto ? s->proto & 0xff : 17;
		put16(out + o + 10, 0xabcd);	/* not checked */
		memcpy(out + o + 12, s->src, 4);
		memcpy(out + o + 16, s->dst, 4);
		for (i = 0; i < (uint32_t)s->ipopt; i++)
			out[o + 20 + i] = 0x01;		/* NOP */
	} else {
		out[o] = (ver << 4) | (s->tos >> 4);
		out[o + 1] = ((s->tos & 0xf) << 4) | ((s->flow_label >> 16) &
						       0xf);
		put16(out + o + 2, s->flow_label & 0xffff);
		put16(out + o + 4, roce_len + s->tot_delta);
		out[o + 6] = s->proto ? s->proto & 0xff : 17;
		out[o + 7] = s->ttl;
		memcpy(out + o + 8, s->src, 16);
		memcpy(out + o + 24, s->dst, 16);
	}
	o = L.l4;
	put16(out + o, s->sport);
	put16(out + o + 2, s->dport ? s->dport : 4791);
	put16(out + o + 4, s->udp_len_abs ? (uint32_t)s->udp_len_abs :
			   roce_len + s->udp_delta);
	put16(out + o + 6, 0x5555);		/* checksum: not checked */
	o = L.bth;
	out[o] = s->op;
	out[o + 1] = (s->se << 7) | (s->mig << 6) | (s->pad << 4) | s->tver;
	put16(out + o + 2, s->pkey);
	out[o + 4] = (s->fecn << 7) | (s->becn << 6);
	put24(out + o + 5, s->qpn);
	out[o + 8] = s->ackreq << 7;
	put24(out + o + 9, s->psn);
	o += 12;
	for (i = 0; i < (uint32_t)s->ext; i++)
		out[o + i] = 0xe0 + i;
	if (is_aeth_op(s->op) && s->ext >= 4) {
		out[o] = s->syn;
		put24(out + o + 1, s->msn);
	}
	for (i = 0; i < (uint32_t)s->payload; i++)
		out[L.payload + i] = i * 31 + 7;
	/* pad stays 0; ICRC left as 0x11223344 (the parser ignores it) */
	memcpy(out + L.icrc, "\x44\x33\x22\x11", 4);
	for (i = 0; i < (uint32_t)s->trailer; i++)
		out[L.ip_end + i] = 0xee;
	L.len = L.ip_end + s->trailer;
	return L;
}

/* Parse @len bytes (exactly sized heap copy), @pkt_len total. */
static int parse_copy(int eth, const uint8_t *data, uint32_t buf_len,
		      uint32_t pkt_len, struct rocecc_pkt *p)
{
	uint8_t *b = malloc(buf_len ? buf_len : 1);
	int rc;

	if (!b) {
		perror("malloc");
		exit(2);
	}
	memcpy(b, data, buf_len);
	if (eth)
		rc = rocecc_parse_eth(b, buf_len, pkt_len, p);
	else
		rc = rocecc_parse_ip(b, buf_len, pkt_len, p);
	free(b);
	return rc;
}

static const char *rcname(int rc)
{
	switch (rc) {
	case ROCECC_ROCE: return "ROCE";
	case ROCECC_NOT_ROCE: return "NOT_ROCE";
	case ROCECC_TRUNCATED: return "TRUNCATED";
	case ROCECC_MALFORMED: return "MALFORMED";
	}
	return "?";
}

static void expect_rc(const char *what, int got, int want)
{
	if (!tap_ok(got == want, "%s: %s", what, rcname(want)))
		tap_diag("got %s", rcname(got));
}

static void check_fields(const char *n, const struct spec *s,
			 const struct layout *L, const struct rocecc_pkt *p)
{
	uint8_t saddr[16] = { 0 }, daddr[16] = { 0 };

	if (s->fam == 4) {
		saddr[10] = saddr[11] = daddr[10] = daddr[11] = 0xff;
		memcpy(saddr + 12, s->src, 4);
		memcpy(daddr + 12, s->dst, 4);
	} else {
		memcpy(saddr, s->src, 16);
		memcpy(daddr, s->dst, 16);
	}
	tap_eq(p->family, s->fam == 4 ? ROCECC_AF_INET : ROCECC_AF_INET6,
	       "%s: family", n);
	tap_eq(p->vlan_present, s->vlan, "%s: vlan_present", n);
	tap_eq(p->vlan_tci, s->vlan ? s->tci : 0, "%s: vlan_tci", n);
	if (s->vlan)
		tap_eq(ROCECC_VLAN_PCP(p->vlan_tci), s->tci >> 13,
		       "%s: VLAN PCP", n);
	tap_eq(p->dscp, s->tos >> 2, "%s: dscp", n);
	tap_eq(p->ecn, s->tos & 3, "%s: ecn", n);
	tap_eq(p->ttl, s->ttl, "%s: ttl / hop limit", n);
	tap_eq(p->flow_label, s->fam == 6 ? s->flow_label : 0,
	       "%s: flow label", n);
	tap_ok(!memcmp(p->saddr, saddr, 16), "%s: saddr", n);
	tap_ok(!memcmp(p->daddr, daddr, 16), "%s: daddr", n);
	tap_eq(p->sport, s->sport, "%s: udp sport", n);
	tap_eq(p->dport, 4791, "%s: udp dport", n);
	tap_eq(p->udp_len, L->ip_end - L->l4, "%s: udp len", n);
	tap_eq(p->bth.opcode, s->op, "%s: bth opcode", n);
	tap_eq(p->bth.se, s->se, "%s: bth se", n);
	tap_eq(p->bth.mig, s->mig, "%s: bth mig", n);
	tap_eq(p->bth.pad_cnt, s->pad, "%s: bth pad", n);
	tap_eq(p->bth.tver, 0, "%s: bth tver", n);
	tap_eq(p->bth.pkey, s->pkey, "%s: bth pkey", n);
	tap_eq(p->bth.fecn, s->fecn, "%s: bth fecn", n);
	tap_eq(p->bth.becn, s->becn, "%s: bth becn", n);
	tap_eq(p->bth.dest_qp, s->qpn, "%s: bth dest qp", n);
	tap_eq(p->bth.ack_req, s->ackreq, "%s: bth ackreq", n);
	tap_eq(p->bth.psn, s->psn, "%s: bth psn", n);
	tap_eq(p->has_aeth, is_aeth_op(s->op), "%s: has_aeth", n);
	tap_eq(p->aeth.syndrome, is_aeth_op(s->op) ? s->syn : 0,
	       "%s: aeth syndrome", n);
	tap_eq(p->aeth.msn, is_aeth_op(s->op) ? s->msn : 0,
	       "%s: aeth msn", n);
	tap_eq(p->l3_off, L->l3, "%s: l3 offset", n);
	tap_eq(p->l4_off, L->l4, "%s: l4 offset", n);
	tap_eq(p->bth_off, L->bth, "%s: bth offset", n);
	tap_eq(p->payload_off, L->payload, "%s: payload offset", n);
	tap_eq(p->icrc_off, L->icrc, "%s: icrc offset", n);
	tap_eq(p->payload_len, s->payload, "%s: payload len", n);
}

#define V4A { 192, 168, 1, 10 }
#define V4B { 192, 168, 1, 20 }
#define V6A { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0a }
#define V6B { 0x20, 0x01, 0x0d, 0xb8, 0xff, 0xfe, 0x12, 0x34, \
	      0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x11, 0x22 }

/* Valid packets: each is checked field by field and truncated */
static const struct spec good[] = {
	{ .name = "v4 SEND_ONLY", .eth = 1, .fam = 4, .tos = 0x68,
	  .ttl = 64, .src = V4A, .dst = V4B, .sport = 0xc123,
	  .op = 0x04, .se = 1, .pad = 3, .pkey = 0xffff, .qpn = 0x000011,
	  .ackreq = 1, .psn = 0x000001, .payload = 13 },
	{ .name = "v4 VLAN WRITE_FIRST", .eth = 1, .vlan = 1, .tci = 0x6064,
	  .fam = 4, .tos = 0x6a, .ttl = 1, .src = V4B, .dst = V4A,
	  .sport = 0xffff, .op = 0x06, .mig = 1, .pkey = 0x8001,
	  .qpn = 0xffffff, .psn = 0xfffffe, .ext = 16, .payload = 1024 },
	{ .name = "v4 ACK", .eth = 1, .fam = 4, .tos = 0x6a, .ttl = 64,
	  .src = V4B, .dst = V4A, .sport = 0xe000, .op = 0x11,
	  .pkey = 0xffff, .qpn = 0x000012, .psn = 0x123456, .ext = 4,
	  .syn = 0x1f, .msn = 0xabcdef },
	{ .name = "v4 CE data", .eth = 1, .fam = 4, .tos = 0x6b, .ttl = 60,
	  .src = V4A, .dst = V4B, .sport = 0xc001, .op = 0x07, .fecn = 1,
	  .pkey = 0xffff, .qpn = 0x000100, .psn = 0x000200, .payload = 256 },
	{ .name = "v4 CNP", .eth = 1, .fam = 4, .tos = 0xc0, .ttl = 64,
	  .src = V4B, .dst = V4A, .sport = 0xc000, .op = 0x81, .becn = 1,
	  .pkey = 0xffff, .qpn = 0x000011, .payload = 16 },
	{ .name = "v4 options READ_RESP_FIRST", .eth = 1, .fam = 4,
	  .ipopt = 40, .tos = 0, .ttl = 9, .src = V4A, .dst = V4B,
	  .sport = 1, .op = 0x0d, .pkey = 0xffff, .qpn = 5, .psn = 6,
	  .ext = 4, .syn = 0x00, .msn = 0x000001, .payload = 64 },
	{ .name = "v4 READ_RESP_LAST pad 1", .eth = 1, .vlan = 1,
	  .tci = 0xe005, .fam = 4, .tos = 0x02, .ttl = 2, .src = V4A,
	  .dst = V4B, .sport = 2, .op = 0x0f, .pad = 1, .pkey = 0xffff,
	  .qpn = 7, .psn = 8, .ext = 4, .syn = 0x60, .msn = 0x000002,
	  .payload = 3 },
	{ .name = "v4 READ_RESP_ONLY", .eth = 1, .fam = 4, .ttl = 3,
	  .src = V4A, .dst = V4B, .sport = 3, .op = 0x10, .pkey = 0xffff,
	  .qpn = 9, .psn = 10, .ext = 4, .syn = 0x01, .msn = 0x000003,
	  .payload = 8 },
	{ .name = "v4 READ_RESP_MIDDLE", .eth = 1, .fam = 4, .ttl = 3,
	  .src = V4A, .dst = V4B, .sport = 3, .op = 0x0e, .pkey = 0xffff,
	  .qpn = 9, .psn = 11, .payload = 8 },
	{ .name = "v4 UD SEND_ONLY_IMM", .eth = 1, .fam = 4, .ttl = 3,
	  .src = V4A, .dst = V4B, .sport = 3, .op = 0x65, .pkey = 0xffff,
	  .qpn = 1, .psn = 1, .ext = 12, .payload = 20 },
	{ .name = "v4 ethernet padding", .eth = 1, .fam = 4, .ttl = 64,
	  .src = V4B, .dst = V4A, .sport = 0xe000, .op = 0x11,
	  .pkey = 0xffff, .qpn = 1, .psn = 2, .ext = 4, .syn = 0x20,
	  .msn = 4, .trailer = 2 },
	{ .name = "v4 from IP", .fam = 4, .tos = 0x6a, .ttl = 64,
	  .src = V4A, .dst = V4B, .sport = 0xc123, .op = 0x0a,
	  .pkey = 0xffff, .qpn = 0x000011, .psn = 0x000001, .ext = 16,
	  .payload = 100 },
	{ .name = "v4 ACK from IP", .fam = 4, .tos = 0x6a, .ttl = 64,
	  .src = V4B, .dst = V4A, .sport = 0xe000, .op = 0x11,
	  .pkey = 0xffff, .qpn = 0x000012, .psn = 0x123456, .ext = 4,
	  .syn = 0x7f, .msn = 0x000000 },
	{ .name = "v6 SEND_FIRST", .eth = 1, .fam = 6, .tos = 0x68,
	  .ttl = 64, .flow_label = 0xabcde, .src = V6A, .dst = V6B,
	  .sport = 0xc321, .op = 0x00, .pkey = 0xffff, .qpn = 0x000021,
	  .psn = 0x000100, .payload = 512 },
	{ .name = "v6 VLAN ACK", .eth = 1, .vlan = 1, .tci = 0x2001,
	  .fam = 6, .tos = 0x6a, .ttl = 255, .flow_label = 0x00001,
	  .src = V6B, .dst = V6A, .sport = 0xe321, .op = 0x11,
	  .pkey = 0xffff, .qpn = 0x000022, .psn = 0x000100, .ext = 4,
	  .syn = 0x60, .msn = 0x000007 },
	{ .name = "v6 CE data", .eth = 1, .fam = 6, .tos = 0x6b, .ttl = 3,
	  .flow_label = 0xfffff, .src = V6A, .dst = V6B, .sport = 0xc999,
	  .op = 0x0b, .fecn = 1, .becn = 1, .pad = 2, .pkey = 0x7fff,
	  .qpn = 0x000021, .psn = 0x000101, .ext = 20, .payload = 2 },
	{ .name = "v6 CNP", .eth = 1, .fam = 6, .tos = 0xc0, .ttl = 64,
	  .src = V6B, .dst = V6A, .sport = 0xc000, .op = 0x81, .becn = 1,
	  .pkey = 0xffff, .qpn = 0x000021, .payload = 16 },
	{ .name = "v6 from IP", .fam = 6, .tos = 0x00, .ttl = 64,
	  .src = V6A, .dst = V6B, .sport = 0xc321, .op = 0x13,
	  .pkey = 0xffff, .qpn = 0x000021, .psn = 0x000100, .ext = 28 },
	/* IBTA memory placement (rdma_rxe from 6.2) */
	{ .name = "v4 FLUSH", .eth = 1, .fam = 4, .tos = 0x6a, .ttl = 64,
	  .src = V4A, .dst = V4B, .sport = 0xc123, .op = 0x1c,
	  .pkey = 0xffff, .qpn = 0x000011, .ackreq = 1, .psn = 0x000042,
	  .ext = 20 },
	{ .name = "v6 ATOMIC_WRITE", .eth = 1, .fam = 6, .tos = 0x6a,
	  .ttl = 64, .src = V6A, .dst = V6B, .sport = 0xc321, .op = 0x1d,
	  .pkey = 0xffff, .qpn = 0x000021, .ackreq = 1, .psn = 0x000043,
	  .ext = 16, .payload = 8 },
	{ .name = "v4 ATOMIC_WRITE from IP", .fam = 4, .tos = 0x6a,
	  .ttl = 64, .src = V4A, .dst = V4B, .sport = 0xc123, .op = 0x1d,
	  .pkey = 0xffff, .qpn = 0x000011, .psn = 0x000044, .ext = 16,
	  .payload = 8 },
	{ .name = "v6 READ_RESP_ONLY from IP", .fam = 6, .tos = 0x68,
	  .ttl = 64, .src = V6A, .dst = V6B, .sport = 0xc321, .op = 0x10,
	  .pkey = 0xffff, .qpn = 3, .psn = 4, .ext = 4, .syn = 0x00,
	  .msn = 0x000005, .payload = 4096 },
};

/* Bytes the parser needs readable for this packet */
static uint32_t hdr_need(const struct spec *s, const struct layout *L)
{
	return L->bth + 12 + (is_aeth_op(s->op) ? 4 : 0);
}

static void test_good(void)
{
	static uint8_t pkt[MAXPKT];
	struct rocecc_pkt p;
	unsigned int i;
	char name[128];

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		const struct spec *s = &good[i];
		struct layout L = build(s, pkt);
		uint32_t n, need = hdr_need(s, &L), bad = 0, badn = 0;
		int rc, badrc = 0;

		rc = parse_copy(s->eth, pkt, L.len, L.len, &p);
		expect_rc(s->name, rc, ROCECC_ROCE);
		check_fields(s->name, s, &L, &p);

		/* Every prefix of the packet is truncated */
		for (n = 0; n < L.ip_end; n++) {
			rc = parse_copy(s->eth, pkt, n, n, &p);
			if (rc != ROCECC_TRUNCATED) {
				bad++;
				badn = n;
				badrc = rc;
			}
		}
		if (!tap_ok(!bad, "%s: all %u prefixes TRUNCATED", s->name,
			    L.ip_end))
			tap_diag("%u wrong, e.g. length %u gave %s", bad,
				 badn, rcname(badrc));

		/* Ethernet padding may be cut, the packet is still whole */
		for (n = L.ip_end; n <= L.len; n++) {
			rc = parse_copy(s->eth, pkt, n, n, &p);
			if (rc != ROCECC_ROCE)
				bad++;
		}
		tap_ok(!bad, "%s: lengths %u..%u parse", s->name, L.ip_end,
		       L.len);

		/*
		 * Headers in the linear part, the rest elsewhere: ROCE as
		 * soon as the headers are readable, TRUNCATED before.
		 */
		for (n = 0; n <= L.len; n++) {
			rc = parse_copy(s->eth, pkt, n, L.len, &p);
			if (rc != (n >= need ? ROCECC_ROCE : ROCECC_TRUNCATED)) {
				bad++;
				badn = n;
				badrc = rc;
			}
		}
		if (!tap_ok(!bad, "%s: ROCE iff >= %u header bytes readable",
			    s->name, need))
			tap_diag("length %u gave %s", badn, rcname(badrc));

		/* The documented worst-case header bytes are enough */
		n = s->eth ? ROCECC_PARSE_HDR_MAX : ROCECC_PARSE_IP_HDR_MAX;
		tap_ok(need <= n, "%s: header bytes %u <= PARSE_*HDR_MAX %u",
		       s->name, need, n);
		n = n < L.len ? n : L.len;
		snprintf(name, sizeof(name), "%s, %u of %u bytes readable",
			 s->name, n, L.len);
		rc = parse_copy(s->eth, pkt, n, L.len, &p);
		expect_rc(name, rc, ROCECC_ROCE);
		check_fields(name, s, &L, &p);

		/* A buf_len beyond the packet is cut to pkt_len */
		{
			uint8_t *b = malloc(L.len);

			memcpy(b, pkt, L.len);
			rc = s->eth ? rocecc_parse_eth(b, ~0U, L.len, &p) :
				      rocecc_parse_ip(b, ~0U, L.len, &p);
			free(b);
			expect_rc("... with buf_len > pkt_len", rc,
				  ROCECC_ROCE);
		}
	}
}

/* The same bytes give the same fields from Ethernet and from IP */
static void test_entry_points(void)
{
	static uint8_t pkt[MAXPKT];
	struct rocecc_pkt a, b;
	unsigned int i, same = 0, total = 0;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		const struct spec *s = &good[i];
		struct layout L = build(s, pkt);
		int ra, rb;

		if (!s->eth)
			continue;
		total++;
		ra = parse_copy(1, pkt, L.len, L.len, &a);
		rb = parse_copy(0, pkt + L.l3, L.len - L.l3, L.len - L.l3,
				&b);
		/* shift b's offsets and drop what only L2 knows */
		b.l3_off += L.l3;
		b.l4_off += L.l3;
		b.bth_off += L.l3;
		b.payload_off += L.l3;
		b.icrc_off += L.l3;
		b.vlan_present = a.vlan_present;
		b.vlan_tci = a.vlan_tci;
		if (ra == ROCECC_ROCE && rb == ROCECC_ROCE &&
		    !memcmp(&a, &b, sizeof(a)))
			same++;
	}
	tap_eq(same, total, "parse_ip(frame + l3) == parse_eth(frame)");
}

struct bad_case {
	struct spec s;
	int want;
};

#define COMMON .ttl = 64, .pkey = 0xffff, .qpn = 17, .psn = 1
#define IP4 .fam = 4, .src = V4A, .dst = V4B, COMMON
#define IP6 .fam = 6, .src = V6A, .dst = V6B, COMMON
#define BASE4 .eth = 1, IP4
#define BASE6 .eth = 1, IP6

static const struct bad_case bad[] = {
	/* malformed */
	{ { .name = "IP version 5", BASE4, .ipver = 5, .payload = 8 },
	  ROCECC_MALFORMED },
	{ { .name = "IP version 6 in an IPv4 EtherType", BASE6,
	    .ethertype = 0x0800, .payload = 8 },
	  ROCECC_MALFORMED },
	{ { .name = "IP version 4 in an IPv6 EtherType", BASE4,
	    .ethertype = 0x86dd, .payload = 8 },
	  ROCECC_MALFORMED },
	{ { .name = "from IP: version 15", IP4, .ipver = 0xf,
	    .payload = 8 },
	  ROCECC_MALFORMED },
	{ { .name = "IHL 4", BASE4, .ihl = 4, .payload = 8 },
	  ROCECC_MALFORMED },
	{ { .name = "IHL 0", BASE4, .ihl = 0x10, .payload = 8 },
	  ROCECC_MALFORMED },
	{ { .name = "IPv4 total length < IHL", BASE4, .tot_delta = -48,
	    .payload = 8 },
	  ROCECC_MALFORMED },
	{ { .name = "IPv4 total length leaves no UDP header", BASE4,
	    .tot_delta = -25, .trailer = 25, .payload = 8 },
	  ROCECC_MALFORMED },
	{ { .name = "IPv4 total length shorter than UDP length", BASE4,
	    .tot_delta = -4, .trailer = 4, .payload = 8 },
	  ROCECC_MALFORMED },
	{ { .name = "UDP length longer than IP payload", BASE4,
	    .udp_delta = 4, .payload = 8 },
	  ROCECC_MALFORMED },
	{ { .name = "UDP length shorter than IP payload", BASE4,
	    .udp_delta = -4, .payload = 8 },
	  ROCECC_MALFORMED },
	{ { .name = "UDP length 0", BASE4, .udp_len_abs = 0x10000,
	    .payload = 8 },
	  ROCECC_MALFORMED },
	{ { .name = "UDP length 23 (no room for BTH + ICRC)", BASE4,
	    .tot_delta = -1, .udp_delta = -1, .pad = 0, .payload = 0,
	    .op = 0x04 },
	  ROCECC_MALFORMED },
	{ { .name = "TVer 1", BASE4, .tver = 1, .payload = 8 },
	  ROCECC_MALFORMED },
	{ { .name = "TVer 15 (v6)", BASE6, .tver = 15, .payload = 8 },
	  ROCECC_MALFORMED },
	{ { .name = "ACK without room for its AETH", BASE4, .op = 0x11,
	    .ext = 0 },
	  ROCECC_MALFORMED },
	{ { .name = "WRITE_FIRST without room for its RETH", BASE4,
	    .op = 0x06, .ext = 12 },
	  ROCECC_MALFORMED },
	{ { .name = "FLUSH with a RETH but no FETH", BASE4, .op = 0x1c,
	    .ext = 16 },
	  ROCECC_MALFORMED },
	{ { .name = "ATOMIC_WRITE without room for its RETH", BASE6,
	    .op = 0x1d, .ext = 12 },
	  ROCECC_MALFORMED },
	{ { .name = "IPv6 payload length 7", BASE6, .tot_delta = -25,
	    .payload = 8, .trailer = 25 },
	  ROCECC_MALFORMED },
	{ { .name = "IPv6 payload shorter than UDP length", BASE6,
	    .tot_delta = -1, .trailer = 1, .payload = 8 },
	  ROCECC_MALFORMED },
	/* not RoCE */
	{ { .name = "UDP dport 53", BASE4, .dport = 53, .payload = 8 },
	  ROCECC_NOT_ROCE },
	{ { .name = "UDP dport 4790, sport 4791", BASE4, .dport = 4790,
	    .sport = 4791, .payload = 8 },
	  ROCECC_NOT_ROCE },
	{ { .name = "IPv6 UDP dport 4792", BASE6, .dport = 4792,
	    .payload = 8 },
	  ROCECC_NOT_ROCE },
	{ { .name = "TCP to 4791", BASE4, .proto = 6, .payload = 8 },
	  ROCECC_NOT_ROCE },
	{ { .name = "IPv6 TCP to 4791", BASE6, .proto = 6, .payload = 8 },
	  ROCECC_NOT_ROCE },
	{ { .name = "IPv6 hop-by-hop header", BASE6, .proto = 0x100,
	    .payload = 8 },
	  ROCECC_NOT_ROCE },
	{ { .name = "IPv6 fragment header", BASE6, .proto = 44,
	    .payload = 8 },
	  ROCECC_NOT_ROCE },
	{ { .name = "ICMP", BASE4, .proto = 1, .payload = 8 },
	  ROCECC_NOT_ROCE },
	{ { .name = "IPv4 first fragment (MF)", BASE4, .frag = 0x2000,
	    .payload = 8 },
	  ROCECC_NOT_ROCE },
	{ { .name = "IPv4 later fragment (offset 8)", BASE4, .frag = 0x0001,
	    .payload = 8 },
	  ROCECC_NOT_ROCE },
	{ { .name = "IPv4 DF set is fine", BASE4, .frag = 0x4000,
	    .payload = 8 },
	  ROCECC_ROCE },
	{ { .name = "ARP EtherType", BASE4, .ethertype = 0x0806,
	    .payload = 8 },
	  ROCECC_NOT_ROCE },
	{ { .name = "QinQ outer TPID 0x88a8", BASE4, .ethertype = 0x88a8,
	    .payload = 8 },
	  ROCECC_NOT_ROCE },
	{ { .name = "two 802.1Q tags", BASE4, .vlan = 1, .tci = 3,
	    .tpid2 = 0x8100, .payload = 8 },
	  ROCECC_NOT_ROCE },
	{ { .name = "LLDP EtherType", BASE6, .ethertype = 0x88cc,
	    .payload = 8 },
	  ROCECC_NOT_ROCE },
};

static void test_bad(void)
{
	static uint8_t pkt[MAXPKT];
	struct rocecc_pkt p;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const struct spec *s = &bad[i].s;
		struct layout L = build(s, pkt);
		int rc;

		rc = parse_copy(s->eth, pkt, L.len, L.len, &p);
		expect_rc(s->name, rc, bad[i].want);
		/* from the IP header on, where there is one */
		if (s->eth && !s->ethertype && !s->tpid2) {
			rc = parse_copy(0, pkt + L.l3, L.len - L.l3,
					L.len - L.l3, &p);
			expect_rc("... from IP", rc, bad[i].want);
		}
	}
}

/* Pad 3 over a 2-byte payload: PadCnt is set in an otherwise good packet */
static void test_pad_overflow(void)
{
	static uint8_t pkt[MAXPKT];
	struct spec s = { .name = "pad", BASE6, .op = 0x04, .payload = 2 };
	struct layout L = build(&s, pkt);
	struct rocecc_pkt p;
	int rc;

	/* PadCnt 3 but only 2 bytes between the BTH and the ICRC */
	pkt[L.bth + 1] |= 3 << 4;
	rc = parse_copy(1, pkt, L.len, L.len, &p);
	expect_rc("PadCnt 3 with 2 bytes before the ICRC", rc,
		  ROCECC_MALFORMED);
	pkt[L.bth + 1] = (pkt[L.bth + 1] & ~0x30) | (2 << 4);
	rc = parse_copy(1, pkt, L.len, L.len, &p);
	expect_rc("PadCnt 2 with 2 bytes before the ICRC", rc, ROCECC_ROCE);
	tap_eq(p.payload_len, 0, "... payload 0");
}

static void test_tiny(void)
{
	static const uint8_t zero[64];
	struct rocecc_pkt p;
	uint32_t n;
	int ok = 1;

	/* all-zero buffers: EtherType 0 / IP version 0 */
	for (n = 0; n <= sizeof(zero); n++) {
		int re = parse_copy(1, zero, n, n, &p);
		int ri = parse_copy(0, zero, n, n, &p);

		if (re != (n < 14 ? ROCECC_TRUNCATED : ROCECC_NOT_ROCE))
			ok = 0;
		if (ri != (n < 1 ? ROCECC_TRUNCATED : ROCECC_MALFORMED))
			ok = 0;
	}
	tap_ok(ok, "zero bytes of every length up to 64: clean results");

	/* NULL with length 0 is never dereferenced */
	expect_rc("NULL, length 0, from Ethernet",
		  rocecc_parse_eth(NULL, 0, 0, &p), ROCECC_TRUNCATED);
	expect_rc("NULL, length 0, from IP",
		  rocecc_parse_ip(NULL, 0, 0, &p), ROCECC_TRUNCATED);
}

static void test_helpers(void)
{
	static const uint8_t b[4] = { 0x12, 0x34, 0x56, 0x78 };
	uint8_t o[4];
	unsigned int op, aeth = 0;

	tap_eq(rocecc_get_be16(b), 0x1234, "get_be16");
	tap_eq(rocecc_get_be24(b), 0x123456, "get_be24");
	tap_eq(rocecc_get_be32(b), 0x12345678, "get_be32");
	tap_eq(rocecc_get_le32(b), 0x78563412, "get_le32");
	rocecc_put_le32(o, 0x78563412);
	tap_ok(!memcmp(o, b, 4), "put_le32");
	rocecc_put_be32(o, 0x12345678);
	tap_ok(!memcmp(o, b, 4), "put_be32");

	for (op = 0; op < 256; op++)
		aeth += rocecc_op_has_aeth(op);
	tap_eq(aeth, 5, "five opcodes carry an AETH");
	tap_eq(rocecc_op_ext_len(ROCECC_OP_RC_WRITE_ONLY_IMM), 20,
	       "WRITE_ONLY_IMM: RETH + ImmDt");
	tap_eq(rocecc_op_ext_len(ROCECC_OP_RC_ATOMIC_ACK), 12,
	       "ATOMIC_ACK: AETH + AtomicAckETH");
	tap_eq(rocecc_op_ext_len(ROCECC_OP_RC_FETCH_ADD), 28,
	       "FETCH_ADD: AtomicETH");
	tap_eq(rocecc_op_ext_len(ROCECC_OP_UD_SEND_ONLY), 8, "UD: DETH");
	tap_eq(rocecc_op_ext_len(ROCECC_OP_CNP), 0, "CNP: none");
	tap_eq(rocecc_op_ext_len(ROCECC_OP_RC_SEND_ONLY_INV), 4,
	       "SEND_ONLY_INV: IETH");
	tap_eq(ROCECC_OP_RC_FLUSH, 0x1c, "FLUSH is 0x1C");
	tap_eq(ROCECC_OP_RC_ATOMIC_WRITE, 0x1d, "ATOMIC_WRITE is 0x1D");
	tap_eq(rocecc_op_ext_len(ROCECC_OP_RC_FLUSH), 20,
	       "FLUSH: FETH + RETH");
	tap_eq(rocecc_op_ext_len(ROCECC_OP_RC_ATOMIC_WRITE), 16,
	       "ATOMIC_WRITE: RETH");
	tap_ok(!rocecc_op_has_aeth(ROCECC_OP_RC_FLUSH) &&
	       !rocecc_op_has_aeth(ROCECC_OP_RC_ATOMIC_WRITE),
	       "FLUSH and ATOMIC_WRITE carry no AETH");
	tap_eq(ROCECC_PARSE_HDR_MAX, 102, "PARSE_HDR_MAX");
	tap_eq(ROCECC_PARSE_IP_HDR_MAX, 84, "PARSE_IP_HDR_MAX");
}

/*
 * rocecc_op_data_class() against the opcode table of IBTA 9.2 spelled out
 * here: RC/UC requests paced, RC READ responses counted only, the rest
 * (ACKs, atomic ACK, UD, RD, CNP, reserved) no flow.
 */
static void test_data_class(void)
{
	static const uint8_t paced[] = {
		0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09,
		0x0a, 0x0b, 0x0c, 0x13, 0x14, 0x16, 0x17,
		0x1c, 0x1d,	/* FLUSH, ATOMIC WRITE */
		0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, 0x29,
		0x2a, 0x2b,
	};
	static const uint8_t unpaced[] = { 0x0d, 0x0e, 0x0f, 0x10 };
	unsigned int op, i, bad = 0;
	int want;

	for (op = 0; op < 256; op++) {
		want = ROCECC_DATA_NONE;
		for (i = 0; i < sizeof(paced); i++)
			if (paced[i] == op)
				want = ROCECC_DATA_PACED;
		for (i = 0; i < sizeof(unpaced); i++)
			if (unpaced[i] == op)
				want = ROCECC_DATA_UNPACED;
		if ((int)rocecc_op_data_class((uint8_t)op) != want)
			bad++;
	}
	tap_eq(bad, 0, "rocecc_op_data_class() of all 256 opcodes");
}

int main(void)
{
	test_good();
	test_entry_points();
	test_bad();
	test_pad_overflow();
	test_tiny();
	test_helpers();
	test_data_class();
	return tap_done();
}
