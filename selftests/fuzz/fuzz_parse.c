// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the shared RoCEv2 code: both parser entry points,
 * the ICRC of whatever parses, and the CNP builder.
 *
 * Input: two control bytes, then the packet.
 *	byte 0, bit 0: 0 = rocecc_parse_eth(), 1 = rocecc_parse_ip()
 *	byte 0, bit 1: build a CNP from the following bytes instead
 *	byte 0, bit 2: byte 1 counts bytes the packet claims beyond the data
 *		       (pkt_len > buf_len, as with paged skbs); else byte 1
 *		       counts bytes at the end that are not readable
 * The readable bytes are copied into a heap block of exactly that size,
 * so AddressSanitizer reports any read beyond buf_len.
 *
 * Besides memory safety the target checks the parser's promises and
 * abort()s when one is broken: consistent offsets, headers within the
 * readable bytes, the same answer with more bytes readable, a computed
 * ICRC that verifies, built CNPs that parse and verify.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rocecc/cnp.h>
#include <rocecc/icrc.h>
#include <rocecc/roce.h>

#define CHECK(c) do {							\
		if (!(c)) {						\
			fprintf(stderr, "%s:%d: broken: %s\n",		\
				__FILE__, __LINE__, #c);		\
			abort();					\
		}							\
	} while (0)

static int parse(int ip, const uint8_t *b, uint32_t buf_len,
		 uint32_t pkt_len, struct rocecc_pkt *p)
{
	return ip ? rocecc_parse_ip(b, buf_len, pkt_len, p) :
		    rocecc_parse_eth(b, buf_len, pkt_len, p);
}

static void check_roce(const struct rocecc_pkt *p, uint32_t buf_len,
		       uint32_t pkt_len, int ip)
{
	CHECK(p->family == ROCECC_AF_INET || p->family == ROCECC_AF_INET6);
	CHECK(p->l3_off == (ip ? 0 : p->vlan_present ? 18 : 14));
	CHECK(p->l4_off >= p->l3_off + 20 && p->l4_off <= p->l3_off + 60);
	CHECK(p->bth_off == p->l4_off + ROCECC_UDP_HLEN);
	CHECK(p->bth_off + ROCECC_BTH_LEN <= buf_len);
	CHECK(p->payload_off >= p->bth_off + ROCECC_BTH_LEN);
	CHECK(p->payload_off + p->payload_len + p->bth.pad_cnt ==
	      p->icrc_off);
	CHECK(p->icrc_off + ROCECC_ICRC_LEN <= pkt_len);
	CHECK(p->udp_len == p->icrc_off + ROCECC_ICRC_LEN - p->l4_off);
	CHECK(p->udp_len >= ROCECC_UDP_LEN_MIN);
	CHECK(p->dport == ROCECC_UDP_PORT);
	CHECK(p->bth.tver == 0 && p->bth.pad_cnt <= 3);
	CHECK(p->bth.dest_qp <= 0xffffff && p->bth.psn <= 0xffffff);
	CHECK(p->dscp < 64 && p->ecn < 4);
	CHECK(p->has_aeth == rocecc_op_has_aeth(p->bth.opcode));
	if (p->has_aeth)
		CHECK(p->bth_off + ROCECC_BTH_LEN + ROCECC_AETH_LEN <=
		      buf_len);
	CHECK(p->bth_off + ROCECC_BTH_LEN + (p->has_aeth ? 4 : 0) <=
	      (ip ? ROCECC_PARSE_IP_HDR_MAX : ROCECC_PARSE_HDR_MAX));
}

static void fuzz_packet(const uint8_t *d, uint32_t size, uint8_t mode,
			uint8_t n)
{
	int ip = mode & 1;
	uint32_t buf_len, pkt_len;
	struct rocecc_pkt p, full;
	uint8_t *b;
	int rc, rc_full;

	if (mode & 4) {
		buf_len = size;
		pkt_len = size + n;
	} else {
		buf_len = size - (n < size ? n : size);
		pkt_len = size;
	}
	b = malloc(buf_len ? buf_len : 1);
	if (!b)
		return;
	memcpy(b, d, buf_len);
	rc = parse(ip, b, buf_len, pkt_len, &p);
	CHECK(rc >= ROCECC_ROCE && rc <= ROCECC_MALFORMED);
	if (rc == ROCECC_ROCE)
		check_roce(&p, buf_len, pkt_len, ip);

	/* More readable bytes never change a decision already made */
	if (buf_len < pkt_len && pkt_len == size) {
		uint8_t *all = malloc(size ? size : 1);

		if (all) {
			memcpy(all, d, size);
			rc_full = parse(ip, all, size, size, &full);
			if (rc != ROCECC_TRUNCATED) {
				CHECK(rc_full == rc);
				if (rc == ROCECC_ROCE)
					CHECK(!memcmp(&p, &full, sizeof(p)));
			}
			free(all);
		}
	}

	/* ICRC: whatever verifies must still verify once recomputed */
	if (rc == ROCECC_ROCE && p.icrc_off + ROCECC_ICRC_LEN <= buf_len) {
		uint32_t icrc;
		bool ok = rocecc_icrc_check(b, buf_len, &p);

		CHECK(!rocecc_icrc_calc(b, buf_len, &p, &icrc));
		CHECK(ok == (icrc == rocecc_icrc_get(b, &p)));
		rocecc_icrc_put(b, &p, icrc);
		CHECK(rocecc_icrc_check(b, buf_len, &p));
		CHECK(rocecc_icrc_verify(b + p.l3_off,
					 p.icrc_off + ROCECC_ICRC_LEN -
					 p.l3_off));
	}
	free(b);
}

static void fuzz_cnp(const uint8_t *d, uint32_t size, uint8_t room)
{
	struct rocecc_cnp_params cp;
	struct rocecc_pkt p;
	uint8_t *b;
	int len;

	if (size < sizeof(cp))
		return;
	memcpy(&cp, d, sizeof(cp));
	b = malloc(room ? room : 1);
	if (!b)
		return;
	len = rocecc_cnp_build(&cp, b, room);
	if (len > 0) {
		CHECK(len <= room);
		CHECK(len == (cp.family == ROCECC_AF_INET ? 60 : 80));
		CHECK(rocecc_parse_ip(b, len, len, &p) == ROCECC_ROCE);
		CHECK(p.bth.opcode == ROCECC_OP_CNP && p.bth.becn);
		CHECK(p.bth.dest_qp == cp.dest_qp);
		CHECK(p.dscp == cp.dscp && p.ecn == ROCECC_ECN_NOT_ECT);
		CHECK(rocecc_icrc_check(b, len, &p));
		if (cp.family == ROCECC_AF_INET)
			CHECK(rocecc_ipv4_csum(b, 20) == 0);
	} else {
		CHECK(len == ROCECC_CNP_ENOSPC || len == ROCECC_CNP_EINVAL);
	}
	free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2 || size > 70000)
		return 0;
	if (data[0] & 2)
		fuzz_cnp(data + 2, size - 2, data[1]);
	else
		fuzz_packet(data + 2, size - 2, data[0], data[1]);
	return 0;
}
