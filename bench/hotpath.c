// SPDX-License-Identifier: GPL-2.0
/*
 * hotpath - the shared code rocecc.ko runs per packet, built for userspace,
 * one packet kind at a time, for instruction counts under callgrind
 * (bench/hotpath.sh). It makes the calls kmod/hooks.c, rp.c and np.c make
 * into include/rocecc/ for each kind, on a packet laid out as the hooks
 * see it (the first ROCECC_HOOK_BUF = 128 bytes copied, the full length
 * known):
 *
 *   nonroce  IPv4 UDP to port 53 through rocecc_parse_ip(). The module
 *            never gets that far (its hook returns after reading the UDP
 *            port), so this is an upper bound of what a non-RoCE packet
 *            could cost in shared code.
 *   data     egress RC SEND ONLY, 4096 bytes of payload: parse, then the
 *            reaction point's per-packet work, rocecc_rp_on_send() and the
 *            pacing delay rocecc_rp_delay_ns() (rocecc_rp_tx()).
 *   ackreq   data's work on the same packet without BTH AckReq (data's
 *            carries it, so pacing never has anything to ask there), and
 *            what kmod/hooks.c adds when pacing asks for an ACK
 *            (ROCECC_PACE_ACKREQ, every packet of a flow held at its
 *            floor): rocecc_pace_may_ask() on the hook's copy and
 *            rocecc_icrc_set_ackreq() on the whole packet (the skb's
 *            linear data), which sets the bit and mends the ICRC with
 *            rocecc_icrc_flip(). Then the bit and the ICRC are put back
 *            for the next packet (a few instructions, counted).
 *   ce       ingress CE-marked RC SEND ONLY: parse, rocecc_np_on_ce(), and
 *            when it says send, the CNP: rocecc_cnp_params_init() and
 *            rocecc_cnp_build() with its ICRC (rocecc_np_ce()). With the
 *            mlx5 profile's np_min_time_between_cnps of 4 us and packets
 *            1 us apart, one packet in four sends one.
 *   cnp      ingress CNP: parse, rocecc_icrc_check(), rocecc_rp_on_cnp()
 *            (rocecc_hook_in(), rocecc_rp_cnp()).
 *
 * Not counted: what is kernel-only (the netfilter call, skb_header_pointer
 * copies, the device and flow hash lookups, the locks, the QP cache,
 * sending the CNP skb): those need the kernel to measure.
 *
 *   hotpath KIND N      run KIND N times inside hp_run() and print a
 *                       checksum (so that nothing is optimised away)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rocecc/cnp.h>
#include <rocecc/dcqcn.h>
#include <rocecc/icrc.h>
#include <rocecc/pacing.h>
#include <rocecc/params.h>
#include <rocecc/roce.h>

#define HP_HOOK_BUF	128	/* kmod/hooks.c ROCECC_HOOK_BUF */
#define HP_PAYLOAD	4096

enum hp_kind { HP_NONROCE, HP_DATA, HP_ACKREQ, HP_CE, HP_CNP };

struct hp {
	enum hp_kind kind;
	__u8 buf[HP_HOOK_BUF];
	__u32 buf_len, pkt_len;
	/* HP_ACKREQ: the whole packet, and its BTH byte 8 and ICRC as sent */
	__u8 full[ROCECC_IPV4_HLEN + ROCECC_UDP_HLEN + ROCECC_BTH_LEN +
		  HP_PAYLOAD + ROCECC_ICRC_LEN];
	__u8 full_b8;
	__u32 full_icrc;
	struct rocecc_params params;
	struct rocecc_rp rp;
	struct rocecc_np np;
	__u8 cnp[ROCECC_CNP_LEN_MAX];
	__u64 now, sum;
};

/* IPv4 + UDP headers for a UDP payload of @udp_payload bytes. */
static void hp_ipv4_udp(__u8 *b, __u16 dport, __u32 udp_payload, __u8 ecn)
{
	__u32 tot = ROCECC_IPV4_HLEN + ROCECC_UDP_HLEN + udp_payload;

	memset(b, 0, ROCECC_IPV4_HLEN + ROCECC_UDP_HLEN);
	b[0] = 0x45;
	b[1] = ecn;
	rocecc_put_be16(b + 2, (__u16)tot);
	b[8] = 64;
	b[9] = 17;
	b[12] = 10; b[15] = 1;		/* 10.0.0.1 */
	b[16] = 10; b[19] = 2;		/* 10.0.0.2 */
	rocecc_put_be16(b + 10, rocecc_ipv4_csum(b, ROCECC_IPV4_HLEN));
	rocecc_put_be16(b + 20, 49152);
	rocecc_put_be16(b + 22, dport);
	rocecc_put_be16(b + 24, (__u16)(ROCECC_UDP_HLEN + udp_payload));
}

/* An RC SEND ONLY of HP_PAYLOAD bytes (its ICRC is not looked at). */
static void hp_send_only(struct hp *h, __u8 ecn)
{
	__u8 *bth = h->buf + ROCECC_IPV4_HLEN + ROCECC_UDP_HLEN;
	__u32 udp_payload = ROCECC_BTH_LEN + HP_PAYLOAD + ROCECC_ICRC_LEN;

	hp_ipv4_udp(h->buf, ROCECC_UDP_PORT, udp_payload, ecn);
	memset(bth, 0, ROCECC_BTH_LEN);
	bth[0] = ROCECC_OP_RC_SEND_ONLY;
	rocecc_put_be16(bth + 2, 0xffff);
	rocecc_put_be24(bth + 5, 0x11);
	bth[8] = 0x80;			/* AckReq */
	rocecc_put_be24(bth + 9, 100);
	h->pkt_len = ROCECC_IPV4_HLEN + ROCECC_UDP_HLEN + udp_payload;
	h->buf_len = HP_HOOK_BUF;
	memset(bth + ROCECC_BTH_LEN, 0xab, HP_HOOK_BUF - (__u32)(bth + ROCECC_BTH_LEN - h->buf));
}

/*
 * HP_ACKREQ: the whole packet behind the hook's copy, payload 0xab, with
 * its ICRC; 0, or -1 if it does not verify.
 */
static int hp_full(struct hp *h)
{
	struct rocecc_pkt pkt;
	__u32 icrc;

	if (h->pkt_len != sizeof(h->full))
		return -1;
	memset(h->full, 0xab, sizeof(h->full));
	memcpy(h->full, h->buf, HP_HOOK_BUF);
	if (rocecc_parse_ip(h->full, h->pkt_len, h->pkt_len, &pkt) != ROCECC_ROCE ||
	    rocecc_icrc_calc(h->full, h->pkt_len, &pkt, &icrc))
		return -1;
	rocecc_icrc_put(h->full, &pkt, icrc);
	h->full_b8 = h->full[pkt.bth_off + 8];
	h->full_icrc = icrc;
	return rocecc_icrc_verify(h->full, h->pkt_len) ? 0 : -1;
}

static int hp_setup(struct hp *h, enum hp_kind kind)
{
	struct rocecc_cnp_params cp;
	struct rocecc_pkt pkt;
	int len;

	memset(h, 0, sizeof(*h));
	h->kind = kind;
	rocecc_params_load(&h->params, ROCECC_PROFILE_MLX5);
	rocecc_rp_init(&h->rp, &h->params, 100000000);	/* 100 Gb/s in kb/s */
	rocecc_np_init(&h->np);
	h->now = 1000000000ULL;
	switch (kind) {
	case HP_NONROCE:
		hp_ipv4_udp(h->buf, 53, 64, 0);
		h->pkt_len = ROCECC_IPV4_HLEN + ROCECC_UDP_HLEN + 64;
		h->buf_len = h->pkt_len;
		memset(h->buf + 28, 0x5a, 64);
		break;
	case HP_DATA:
		hp_send_only(h, 0);
		break;
	case HP_ACKREQ:
		hp_send_only(h, 0);
		h->buf[ROCECC_IPV4_HLEN + ROCECC_UDP_HLEN + 8] = 0;
		if (hp_full(h))
			return -1;
		break;
	case HP_CE:
		hp_send_only(h, ROCECC_ECN_CE);
		break;
	case HP_CNP:
		/* the CNP a peer sends back: build it with the shared code */
		hp_send_only(h, ROCECC_ECN_CE);
		if (rocecc_parse_ip(h->buf, h->buf_len, h->pkt_len, &pkt))
			return -1;
		rocecc_cnp_params_init(&cp, &pkt, 0x11);
		len = rocecc_cnp_build(&cp, h->buf, sizeof(h->buf));
		if (len <= 0)
			return -1;
		h->buf_len = h->pkt_len = (__u32)len;
		break;
	}
	if (kind != HP_NONROCE &&
	    rocecc_parse_ip(h->buf, h->buf_len, h->pkt_len, &pkt) != ROCECC_ROCE)
		return -1;
	if (kind == HP_NONROCE &&
	    rocecc_parse_ip(h->buf, h->buf_len, h->pkt_len, &pkt) != ROCECC_NOT_ROCE)
		return -1;
	return 0;
}

/* One packet, as the hooks would handle it. */
static void hp_one(struct hp *h)
{
	struct rocecc_cnp_params cp;
	struct rocecc_pkt pkt;
	int res;

	res = rocecc_parse_ip(h->buf, h->buf_len, h->pkt_len, &pkt);
	h->now += 1000;		/* 1 us between packets */
	if (res != ROCECC_ROCE) {
		h->sum += (__u64)res;
		return;
	}
	switch (h->kind) {
	case HP_DATA:
		rocecc_rp_on_send(&h->rp, &h->params, h->now, h->pkt_len);
		h->sum += rocecc_rp_delay_ns(&h->rp, h->pkt_len < ROCECC_RP_PACE_LEN_MAX ?
					     h->pkt_len : ROCECC_RP_PACE_LEN_MAX);
		break;
	case HP_ACKREQ:
		rocecc_rp_on_send(&h->rp, &h->params, h->now, h->pkt_len);
		h->sum += rocecc_rp_delay_ns(&h->rp, h->pkt_len < ROCECC_RP_PACE_LEN_MAX ?
					     h->pkt_len : ROCECC_RP_PACE_LEN_MAX);
		if (rocecc_pace_may_ask(&pkt, h->buf, h->buf_len) &&
		    !rocecc_icrc_set_ackreq(h->full, h->pkt_len, &pkt))
			h->sum += rocecc_icrc_get(h->full, &pkt);
		/* as sent, for the next packet */
		h->full[pkt.bth_off + 8] = h->full_b8;
		rocecc_icrc_put(h->full, &pkt, h->full_icrc);
		break;
	case HP_CE:
		if (rocecc_np_on_ce(&h->np, &h->params, h->now) == ROCECC_NP_SEND_CNP) {
			rocecc_cnp_params_init(&cp, &pkt, 0x11);
			h->sum += (__u64)rocecc_cnp_build(&cp, h->cnp, sizeof(h->cnp));
		}
		break;
	case HP_CNP:
		if (rocecc_icrc_check(h->buf, h->buf_len, &pkt))
			h->sum += rocecc_rp_on_cnp(&h->rp, &h->params, h->now);
		break;
	default:
		break;
	}
}

/* The measured loop: callgrind collects inside this function only. */
__attribute__((noinline)) void hp_run(struct hp *h, unsigned long n);
__attribute__((noinline)) void hp_run(struct hp *h, unsigned long n)
{
	while (n--)
		hp_one(h);
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "nonroce", "data", "ackreq", "ce",
					     "cnp" };
	struct hp h;
	unsigned long n;
	char *end;
	int k;

	if (argc != 3) {
		fprintf(stderr, "usage: hotpath nonroce|data|ackreq|ce|cnp N\n");
		return 2;
	}
	for (k = 0; k < 5; k++)
		if (!strcmp(argv[1], names[k]))
			break;
	n = strtoul(argv[2], &end, 10);
	if (k == 5 || *end || !n) {
		fprintf(stderr, "hotpath: bad kind '%s' or count '%s'\n",
			argv[1], argv[2]);
		return 2;
	}
	if (hp_setup(&h, (enum hp_kind)k)) {
		fprintf(stderr, "hotpath: %s: the packet does not parse as meant\n",
			argv[1]);
		return 1;
	}
	hp_run(&h, n);
	printf("%s %lu packets, checksum %llu, rp rate %u kb/s, cnps %llu\n",
	       argv[1], n, (unsigned long long)h.sum, h.rp.rate,
	       (unsigned long long)h.np.cnp_sent);
	return 0;
}
