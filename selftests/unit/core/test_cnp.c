// SPDX-License-Identifier: GPL-2.0
/*
 * CNP construction (include/rocecc/cnp.h): every field of built CNPs, read
 * back at fixed wire offsets and through the parser, for IPv4 and IPv6;
 * the IPv4 header checksum; lengths; refusal of small buffers and bad
 * parameters. Byte-for-byte agreement with scapy is in test_icrc.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rocecc/cnp.h>

#include "tap.h"

/* Independent RFC 1071 checksum over a header (sum must fold to 0xffff) */
static int ipv4_csum_ok(const uint8_t *h, unsigned int len)
{
	uint32_t sum = 0;
	unsigned int i;

	for (i = 0; i < len; i += 2)
		sum += (uint32_t)h[i] << 8 | h[i + 1];
	while (sum > 0xffff)
		sum = (sum >> 16) + (sum & 0xffff);
	return sum == 0xffff;
}

static uint32_t be(const uint8_t *p, int n)
{
	uint32_t v = 0;

	while (n--)
		v = v << 8 | *p++;
	return v;
}

static void set_v4(uint8_t a[16], uint8_t b0, uint8_t b1, uint8_t b2,
		   uint8_t b3)
{
	memset(a, 0, 16);
	a[10] = a[11] = 0xff;
	a[12] = b0;
	a[13] = b1;
	a[14] = b2;
	a[15] = b3;
}

static void check_bth(const char *n, const uint8_t *bth, uint32_t qpn)
{
	static const uint8_t zero[16];

	tap_eq(bth[0], 0x81, "%s: BTH opcode CNP", n);
	tap_eq(bth[1], 0, "%s: SE, M, PadCnt, TVer 0", n);
	tap_eq(be(bth + 2, 2), 0xffff, "%s: P_Key 0xffff", n);
	tap_eq(bth[4], 0x40, "%s: FECN 0, BECN 1, reserved 0", n);
	tap_eq(be(bth + 5, 3), qpn, "%s: DestQP", n);
	tap_eq(bth[8], 0, "%s: AckReq 0", n);
	tap_eq(be(bth + 9, 3), 0, "%s: PSN 0", n);
	tap_ok(!memcmp(bth + 12, zero, 16), "%s: 16 reserved bytes 0", n);
}

static void check_parsed(const char *n, const uint8_t *buf, int len,
			 const struct rocecc_cnp_params *cp)
{
	struct rocecc_pkt p;
	int rc = rocecc_parse_ip(buf, len, len, &p);

	tap_eq(rc, ROCECC_ROCE, "%s: parses as RoCE", n);
	tap_eq(p.family, cp->family, "%s: parsed family", n);
	tap_ok(!memcmp(p.saddr + (cp->family == ROCECC_AF_INET ? 12 : 0),
		       cp->saddr + (cp->family == ROCECC_AF_INET ? 12 : 0),
		       cp->family == ROCECC_AF_INET ? 4 : 16),
	       "%s: parsed saddr", n);
	tap_ok(!memcmp(p.daddr + (cp->family == ROCECC_AF_INET ? 12 : 0),
		       cp->daddr + (cp->family == ROCECC_AF_INET ? 12 : 0),
		       cp->family == ROCECC_AF_INET ? 4 : 16),
	       "%s: parsed daddr", n);
	tap_eq(p.dscp, cp->dscp, "%s: parsed DSCP", n);
	tap_eq(p.ecn, ROCECC_ECN_NOT_ECT, "%s: parsed ECN Not-ECT", n);
	tap_eq(p.ttl, cp->ttl, "%s: parsed TTL", n);
	tap_eq(p.sport, cp->sport, "%s: parsed sport", n);
	tap_eq(p.udp_len, 40, "%s: parsed UDP length", n);
	tap_eq(p.bth.opcode, ROCECC_OP_CNP, "%s: parsed opcode", n);
	tap_eq(p.bth.becn, 1, "%s: parsed BECN", n);
	tap_eq(p.bth.fecn, 0, "%s: parsed FECN", n);
	tap_eq(p.bth.dest_qp, cp->dest_qp, "%s: parsed DestQP", n);
	tap_eq(p.payload_len, 16, "%s: parsed payload 16", n);
	tap_ok(rocecc_icrc_check(buf, len, &p), "%s: ICRC verifies", n);
	tap_ok(rocecc_icrc_verify(buf, len), "%s: rocecc_icrc_verify", n);
}

static void test_v4(void)
{
	struct rocecc_cnp_params cp = { 0 };
	uint8_t buf[128];
	const uint8_t *u = buf + 20;
	const char *n = "IPv4 CNP";
	int len;

	cp.family = ROCECC_AF_INET;
	set_v4(cp.saddr, 10, 0, 0, 2);
	set_v4(cp.daddr, 10, 0, 0, 1);
	cp.dest_qp = 0x123456;
	cp.sport = 0xc0de;
	cp.ip_id = 0xbeef;
	cp.dscp = 48;
	cp.ttl = 64;
	cp.prio = 6;
	memset(buf, 0xaa, sizeof(buf));
	len = rocecc_cnp_build(&cp, buf, sizeof(buf));
	tap_eq(len, 60, "%s: length 60", n);
	tap_eq(ROCECC_CNP_LEN_IPV4, 60, "ROCECC_CNP_LEN_IPV4");
	tap_eq(buf[60], 0xaa, "%s: nothing written past the end", n);
	tap_eq(buf[0], 0x45, "%s: version 4, IHL 5", n);
	tap_eq(buf[1], 48 << 2, "%s: TOS = DSCP 48, Not-ECT", n);
	tap_eq(be(buf + 2, 2), 60, "%s: total length 60", n);
	tap_eq(be(buf + 4, 2), 0xbeef, "%s: IP ID", n);
	tap_eq(be(buf + 6, 2), 0x4000, "%s: DF, no fragment", n);
	tap_eq(buf[8], 64, "%s: TTL", n);
	tap_eq(buf[9], 17, "%s: protocol UDP", n);
	tap_ok(ipv4_csum_ok(buf, 20), "%s: header checksum valid", n);
	tap_eq(rocecc_ipv4_csum(buf, 20), 0, "%s: rocecc_ipv4_csum 0", n);
	tap_eq(be(buf + 12, 4), 0x0a000002, "%s: source address", n);
	tap_eq(be(buf + 16, 4), 0x0a000001, "%s: destination address", n);
	tap_eq(be(u, 2), 0xc0de, "%s: UDP sport", n);
	tap_eq(be(u + 2, 2), 4791, "%s: UDP dport 4791", n);
	tap_eq(be(u + 4, 2), 40, "%s: UDP length 40", n);
	tap_eq(be(u + 6, 2), 0, "%s: UDP checksum 0", n);
	check_bth(n, u + 8, 0x123456);
	check_parsed(n, buf, len, &cp);

	/* priority is not in the packet */
	{
		uint8_t b2[60];

		cp.prio = 0;
		rocecc_cnp_build(&cp, b2, sizeof(b2));
		tap_ok(!memcmp(buf, b2, 60),
		       "%s: priority does not change the packet", n);
	}
	/* the checksum with other values (ID, TTL, addresses all 0xff) */
	cp.ip_id = 0xffff;
	cp.ttl = 255;
	cp.dscp = 63;
	set_v4(cp.saddr, 255, 255, 255, 255);
	set_v4(cp.daddr, 255, 255, 255, 254);
	len = rocecc_cnp_build(&cp, buf, 60);
	tap_eq(len, 60, "%s: fits exactly in 60 bytes", n);
	tap_ok(ipv4_csum_ok(buf, 20), "%s: checksum valid, all-ones", n);
	tap_eq(buf[1], 0xfc, "%s: TOS = DSCP 63, Not-ECT", n);
	check_parsed("IPv4 CNP all-ones", buf, len, &cp);
}

static void test_v6(void)
{
	static const uint8_t s6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
					0, 0, 0, 0, 0, 0, 0, 0x02 };
	static const uint8_t d6[16] = { 0xfd, 0x12, 0x34, 0x56, 0x78, 0x9a,
					0xbc, 0xde, 0xf0, 1, 2, 3, 4, 5, 6,
					7 };
	struct rocecc_cnp_params cp = { 0 };
	uint8_t buf[80];
	const uint8_t *u = buf + 40;
	const char *n = "IPv6 CNP";
	int len;

	cp.family = ROCECC_AF_INET6;
	memcpy(cp.saddr, s6, 16);
	memcpy(cp.daddr, d6, 16);
	cp.dest_qp = 0xfedcba;
	cp.sport = 0xffff;
	cp.dscp = 26;
	cp.ttl = 3;
	cp.flow_label = 0x9abcd;
	cp.ip_id = 0x1234;	/* ignored */
	len = rocecc_cnp_build(&cp, buf, sizeof(buf));
	tap_eq(len, 80, "%s: length 80", n);
	tap_eq(buf[0] >> 4, 6, "%s: version 6", n);
	tap_eq((be(buf, 2) >> 4) & 0xff, 26 << 2,
	       "%s: traffic class DSCP 26, Not-ECT", n);
	tap_eq(be(buf, 4) & 0xfffff, 0x9abcd, "%s: flow label", n);
	tap_eq(be(buf + 4, 2), 40, "%s: payload length 40", n);
	tap_eq(buf[6], 17, "%s: next header UDP", n);
	tap_eq(buf[7], 3, "%s: hop limit", n);
	tap_ok(!memcmp(buf + 8, s6, 16), "%s: source address", n);
	tap_ok(!memcmp(buf + 24, d6, 16), "%s: destination address", n);
	tap_eq(be(u, 2), 0xffff, "%s: UDP sport", n);
	tap_eq(be(u + 2, 2), 4791, "%s: UDP dport 4791", n);
	tap_eq(be(u + 4, 2), 40, "%s: UDP length 40", n);
	tap_eq(be(u + 6, 2), 0, "%s: UDP checksum 0", n);
	check_bth(n, u + 8, 0xfedcba);
	check_parsed(n, buf, len, &cp);
}

static void test_refuse(void)
{
	struct rocecc_cnp_params cp = { 0 };
	uint8_t buf[80];
	unsigned int l, bad;

	cp.family = ROCECC_AF_INET;
	cp.dest_qp = 1;
	for (l = 0, bad = 0; l < 60; l++) {
		memset(buf, 0x5a, sizeof(buf));
		if (rocecc_cnp_build(&cp, buf, l) != ROCECC_CNP_ENOSPC ||
		    buf[0] != 0x5a)
			bad++;
	}
	tap_eq(bad, 0, "IPv4: every buffer of 0..59 bytes refused, untouched");
	cp.family = ROCECC_AF_INET6;
	for (l = 0, bad = 0; l < 80; l++) {
		memset(buf, 0x5a, sizeof(buf));
		if (rocecc_cnp_build(&cp, buf, l) != ROCECC_CNP_ENOSPC ||
		    buf[0] != 0x5a)
			bad++;
	}
	tap_eq(bad, 0, "IPv6: every buffer of 0..79 bytes refused, untouched");
	tap_eq(rocecc_cnp_build(&cp, NULL, 0), ROCECC_CNP_ENOSPC,
	       "NULL buffer of length 0 refused");

	cp.family = 0;
	tap_eq(rocecc_cnp_build(&cp, buf, sizeof(buf)), ROCECC_CNP_EINVAL,
	       "family 0 refused");
	cp.family = ROCECC_AF_INET;
	cp.dest_qp = 0x1000000;
	tap_eq(rocecc_cnp_build(&cp, buf, sizeof(buf)), ROCECC_CNP_EINVAL,
	       "25-bit QPN refused");
	cp.dest_qp = 0xffffff;
	tap_eq(rocecc_cnp_build(&cp, buf, sizeof(buf)), 60,
	       "24-bit QPN 0xffffff accepted");
	cp.dscp = 64;
	tap_eq(rocecc_cnp_build(&cp, buf, sizeof(buf)), ROCECC_CNP_EINVAL,
	       "DSCP 64 refused");
	cp.dscp = 0;
	cp.prio = 8;
	tap_eq(rocecc_cnp_build(&cp, buf, sizeof(buf)), ROCECC_CNP_EINVAL,
	       "priority 8 refused");
	cp.prio = 7;
	cp.family = ROCECC_AF_INET6;
	cp.flow_label = 0x100000;
	tap_eq(rocecc_cnp_build(&cp, buf, sizeof(buf)), ROCECC_CNP_EINVAL,
	       "21-bit flow label refused");
}

/* A CNP answering a parsed CE-marked packet goes back to its sender */
static void test_params_init(void)
{
	struct rocecc_cnp_params cp;
	struct rocecc_pkt data, cnp;
	uint8_t buf[80];
	int len;

	/* a marked data packet from 10.0.0.1 to 10.0.0.2: build via CNP */
	memset(&cp, 0, sizeof(cp));
	cp.family = ROCECC_AF_INET;
	set_v4(cp.saddr, 10, 0, 0, 1);
	set_v4(cp.daddr, 10, 0, 0, 2);
	cp.dest_qp = 0x17;	/* the receiver's local QPN */
	cp.sport = 0xc555;
	cp.ttl = 64;
	len = rocecc_cnp_build(&cp, buf, sizeof(buf));
	buf[1] |= ROCECC_ECN_CE;
	tap_eq(rocecc_parse_ip(buf, len, len, &data), ROCECC_ROCE,
	       "marked packet parses");

	rocecc_cnp_params_init(&cp, &data, 0x42);
	tap_eq(cp.family, ROCECC_AF_INET, "init: family");
	tap_ok(!memcmp(cp.saddr, data.daddr, 16), "init: saddr = marked daddr");
	tap_ok(!memcmp(cp.daddr, data.saddr, 16), "init: daddr = marked saddr");
	tap_eq(cp.dest_qp, 0x42, "init: DestQP = remote QPN");
	tap_eq(cp.sport, 0xc555, "init: UDP sport of the marked flow");
	tap_eq(cp.dscp, 48, "init: DSCP 48 (mlx5 default)");
	tap_eq(cp.prio, 6, "init: priority 6 (mlx5 default)");
	tap_eq(cp.ttl, 64, "init: TTL 64");
	len = rocecc_cnp_build(&cp, buf, sizeof(buf));
	tap_eq(len, 60, "init: builds");
	tap_eq(rocecc_parse_ip(buf, len, len, &cnp), ROCECC_ROCE,
	       "init: CNP parses");
	tap_eq(be(buf + 12, 4), 0x0a000002, "init: CNP from the receiver");
	tap_eq(be(buf + 16, 4), 0x0a000001, "init: CNP to the sender");
}

int main(void)
{
	test_v4();
	test_v6();
	test_refuse();
	test_params_init();
	return tap_done();
}
