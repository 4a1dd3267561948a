// SPDX-License-Identifier: GPL-2.0
/*
 * bpf/dcqcn.bpf.c, the BPF datapath engine, through BPF_PROG_TEST_RUN on
 * lo with the programs' test hooks (dcqcn_lib.h): the clock is the test's,
 * and a CNP that is due stays in the hand-over slot, where dcqcn_egress,
 * run on the same frame with the CNP mark, turns it into the CNP, as it
 * does to the clone bpf_clone_redirect() hands it on a real netdev.
 *
 * The programs see the traffic as host A (10.0.0.1 / fd00::1) does; its
 * peer B (10.0.0.2 / fd00::2) runs QP 0x22, connected to A's QP 0x11.
 *
 *  - ECT(0) on what leaves: IPv4 with a valid header checksum, IPv6; CNPs,
 *    ECN-capable packets, non-RoCE and a netdev not attached untouched.
 *  - Truncated and malformed frames pass untouched, both ways, at every
 *    length (from an Ethernet header on: BPF_PROG_TEST_RUN takes no less).
 *  - The CNP the programs make equals cnp.h's, byte for byte, IPv4, IPv6
 *    and 802.1Q-tagged, with a valid ICRC, the DSCP and priority of the
 *    parameters, to the sender's QPN; the CE-marked packet untouched.
 *  - The deferred CNP, CE marks of QPs not in the map, CNPs from a source
 *    that is not the QP's peer, CNPs with a bad ICRC.
 *  - A QP's ACK timeout learned after its flow began: the default budget
 *    until then, pacing.h's budget of that timeout after.
 *  - Without the test's any-socket hook, what leaves from a socket that is
 *    not rxe's (the one BPF_PROG_TEST_RUN makes up: no UDP socket) is
 *    untouched and counted in tx_not_rxe, no flow made.
 *  - A trace of data packets, READ responses and CNPs: after every event
 *    the flow's RP and pacing state equal the shared core's run on the
 *    same events here (dcqcn.h, pacing.h), and every departure time the
 *    skb got is pacing.h's, the budget's cap included; where pacing
 *    asks, AckReq set and the ICRC valid (payloads of 4 to 1916 bytes).
 *
 * Needs root (or CAP_BPF + CAP_NET_ADMIN); skips otherwise.
 */
#include <stdio.h>

#include <rocecc/dcqcn.h>
#include <rocecc/icrc.h>
#include <rocecc/pacing.h>

#include "bpf_skip.h"
#include "dcqcn_lib.h"
#include "qptimeout.skel.h"
#include "tap.h"

static struct dq q;

static const uint8_t A4[4] = { 10, 0, 0, 1 };
static const uint8_t B4[4] = { 10, 0, 0, 2 };
static const uint8_t C4[4] = { 10, 0, 0, 3 };
static const uint8_t A6[16] = { 0xfd, [15] = 1 };
static const uint8_t B6[16] = { 0xfd, [15] = 2 };

#define LQPN	0x11
#define RQPN	0x22
#define T0	1000000000ULL		/* 1 s: a clock well past 0 */

static unsigned int runs, bad_run;

static int run(int fd, const uint8_t *f, size_t len, uint32_t mark,
	       uint64_t t, struct dq_run *r)
{
	runs++;
	if (dq_run(&q, fd, f, len, mark, t, r)) {
		bad_run++;
		return -1;
	}
	return 0;
}

/* Did the run hand the frame back as it came, and pass it on? */
static int untouched(const struct dq_run *r, const uint8_t *f, size_t len,
		     int verdict)
{
	return r->retval == verdict && r->len == len &&
	       !memcmp(r->out, f, len);
}

/* ---------------------------------------------------------------- ECT */

static void test_ect(void)
{
	struct pkt k = { .src = A4, .dst = B4, .op = ROCECC_OP_RC_SEND_ONLY,
			 .qpn = RQPN, .payload = 64, .ackreq = 1 };
	uint8_t f[FRAME_MAX];
	struct dq_run r;
	size_t n;
	int diff, i;

	dq_reset(&q, ROCECC_PROFILE_MLX5);
	n = dq_frame(f, &k);
	run(q.fd_eg, f, n, 0, T0, &r);
	for (diff = 0, i = 0; i < (int)n; i++)
		if (i != 15 && i != 24 && i != 25 && r.out[i] != f[i])
			diff++;
	tap_ok(r.retval == TC_ACT_UNSPEC && r.len == n && diff == 0 &&
	       r.out[15] == (26 << 2 | ROCECC_ECN_ECT0) &&
	       rocecc_ipv4_csum(r.out + 14, 20) == 0,
	       "IPv4 Not-ECT request leaves ECT(0), DSCP kept, header checksum valid");

	k.v6 = 1;
	k.src = A6;
	k.dst = B6;
	n = dq_frame(f, &k);
	run(q.fd_eg, f, n, 0, T0, &r);
	for (diff = 0, i = 0; i < (int)n; i++)
		if (i != 15 && r.out[i] != f[i])
			diff++;
	tap_ok(r.retval == TC_ACT_UNSPEC && diff == 0 &&
	       (r.out[15] & 0x30) == ROCECC_ECN_ECT0 << 4 &&
	       (r.out[15] & 0xcf) == (f[15] & 0xcf),
	       "IPv6 Not-ECT request leaves ECT(0), traffic class and flow label kept");

	k.v6 = 0;
	k.src = A4;
	k.dst = B4;
	k.op = ROCECC_OP_RC_ACK;
	n = dq_frame(f, &k);
	run(q.fd_eg, f, n, 0, T0, &r);
	tap_ok(r.out[15] == (26 << 2 | ROCECC_ECN_ECT0) &&
	       rocecc_ipv4_csum(r.out + 14, 20) == 0,
	       "an ACK leaves ECT(0) too");

	k.op = ROCECC_OP_RC_SEND_ONLY;
	k.ecn = ROCECC_ECN_ECT1;
	n = dq_frame(f, &k);
	run(q.fd_eg, f, n, 0, T0, &r);
	tap_ok(untouched(&r, f, n, TC_ACT_UNSPEC), "ECT(1) left alone");
	k.ecn = ROCECC_ECN_CE;
	n = dq_frame(f, &k);
	run(q.fd_eg, f, n, 0, T0, &r);
	tap_ok(untouched(&r, f, n, TC_ACT_UNSPEC), "CE left alone");

	n = dq_cnp_frame(f, 0, A4, B4, RQPN);
	run(q.fd_eg, f, n, 0, T0, &r);
	tap_ok(untouched(&r, f, n, TC_ACT_UNSPEC), "a CNP leaves untouched (Not-ECT)");

	k.ecn = ROCECC_ECN_NOT_ECT;
	n = dq_frame(f, &k);
	f[14 + 20 + 3] = 0xb8;			/* UDP to 4792 */
	dq_ip_csum(f);
	run(q.fd_eg, f, n, 0, T0, &r);
	tap_ok(untouched(&r, f, n, TC_ACT_UNSPEC), "UDP to another port untouched");

	tap_eq(dq_stat(&q, ROCECC_STAT_ECT_MARKED), 3,
	       "ect_marked counts the three marked");

	n = dq_frame(f, &k);
	{
		uint32_t key = DQ_IFINDEX;

		bpf_map_delete_elem(q.fd_devs, &key);
		run(q.fd_eg, f, n, 0, T0, &r);
		tap_ok(untouched(&r, f, n, TC_ACT_UNSPEC),
		       "a netdev not attached: untouched");
		dq_attach(&q);
	}
}

/* ---------------------------------------------------------- malformed */

/*
 * Every cut of @f from an Ethernet header to one byte short, both ways.
 * BPF_PROG_TEST_RUN refuses an IP frame shorter than its minimal IP
 * header (@iphl): those few cuts cannot be run.
 */
static void cuts(const char *what, const uint8_t *f, size_t n, size_t iphl)
{
	unsigned int bad = 0, ran = 0, refused = 0;
	struct dq_run r;
	size_t len;
	int fd, dir, err;

	for (dir = 0; dir < 2; dir++) {
		fd = dir ? q.fd_in : q.fd_eg;
		for (len = ROCECC_ETH_HLEN; len < n; len++) {
			err = dq_run(&q, fd, f, len, 0, T0, &r);
			if (err == -EINVAL && len < ROCECC_ETH_HLEN + iphl) {
				refused++;
				continue;
			}
			ran++;
			if (err || !untouched(&r, f, len, TC_ACT_UNSPEC)) {
				if (!bad)
					tap_diag("%s: first failing cut %zu bytes (%s): %d",
						 what, len, dir ? "ingress" :
						 "egress", err);
				bad++;
			}
		}
	}
	runs += ran;
	tap_eq(bad, 0, "%s: %u truncated runs, all passed untouched (%u shorter than an IP header refused by the kernel)",
	       what, ran, refused);
}

static void test_malformed(void)
{
	struct pkt k = { .src = B4, .dst = A4, .op = ROCECC_OP_RC_SEND_ONLY,
			 .qpn = LQPN, .payload = 64, .ecn = ROCECC_ECN_CE,
			 .ackreq = 1 };
	uint8_t f[FRAME_MAX];
	struct dq_run r;
	uint64_t before;
	size_t n;

	dq_reset(&q, ROCECC_PROFILE_MLX5);
	dq_add_qp(&q, LQPN, B4, 0, RQPN, 14);
	n = dq_frame(f, &k);
	cuts("IPv4 CE request", f, n, 20);
	k.v6 = 1;
	k.src = B6;
	k.dst = A6;
	n = dq_frame(f, &k);
	cuts("IPv6 CE request", f, n, 40);
	n = dq_cnp_frame(f, 0, B4, A4, LQPN);
	cuts("IPv4 CNP", f, n, 20);
	n = dq_cnp_frame(f, 1, B6, A6, LQPN);
	cuts("IPv6 CNP", f, n, 40);
	tap_eq(q.skel->bss->dcqcn_test_clones, 0, "no cut made a CNP");

	/* Whole frames, broken inside */
	k.v6 = 0;
	k.src = B4;
	k.dst = A4;
	n = dq_frame(f, &k);
	f[14 + 20 + 8 + 1] = 0x01;		/* BTH TVer 1 */
	before = dq_stat(&q, ROCECC_STAT_MALFORMED);
	run(q.fd_in, f, n, 0, T0, &r);
	tap_ok(untouched(&r, f, n, TC_ACT_UNSPEC) &&
	       dq_stat(&q, ROCECC_STAT_MALFORMED) == before + 1,
	       "BTH TVer 1: counted malformed, untouched");
	n = dq_frame(f, &k);
	f[14 + 20 + 5] ^= 0x04;			/* UDP length off by 4 */
	run(q.fd_eg, f, n, 0, T0, &r);
	tap_ok(untouched(&r, f, n, TC_ACT_UNSPEC) &&
	       dq_stat(&q, ROCECC_STAT_MALFORMED) == before + 2,
	       "UDP length wrong: counted malformed, untouched");

	n = dq_cnp_frame(f, 0, B4, A4, LQPN);
	f[14 + 20 + 8 + 12 + 3] = 1;		/* a reserved byte: ICRC bad */
	run(q.fd_in, f, n, 0, T0, &r);
	tap_ok(untouched(&r, f, n, TC_ACT_UNSPEC) &&
	       dq_stat(&q, ROCECC_STAT_MALFORMED) == before + 3 &&
	       dq_stat(&q, ROCECC_STAT_RP_CNP_HANDLED) == 0,
	       "CNP with a bad ICRC: malformed, passed, no rate change");
}

/* --------------------------------------------------------------- CNPs */

/* Insert an 802.1Q tag (PCP 1, VID 5) after the addresses of frame @f */
static size_t add_vlan(uint8_t *f, size_t n)
{
	memmove(f + 16, f + 12, n - 12);
	f[12] = 0x81;
	f[13] = 0x00;
	f[14] = 0x20;
	f[15] = 0x05;
	return n + 4;
}

/*
 * The CNP A sends B for a CE mark on @data (@n bytes, IP header at @l3):
 * the Ethernet header of @data with its addresses swapped (and the tag's
 * PCP @prio), then cnp.h's packet.
 */
static size_t want_cnp(uint8_t *w, const uint8_t *data, size_t l3, int v6,
		       uint8_t dscp, uint8_t prio)
{
	struct rocecc_cnp_params cp;
	int n;

	memcpy(w, data + 6, 6);
	memcpy(w + 6, data, 6);
	memcpy(w + 12, data + 12, l3 - 12);
	if (l3 == 18)
		w[14] = (uint8_t)((w[14] & 0x1f) | prio << 5);
	memset(&cp, 0, sizeof(cp));
	if (v6) {
		memcpy(cp.saddr, A6, 16);
		memcpy(cp.daddr, B6, 16);
	} else {
		dq_mapped(cp.saddr, A4);
		dq_mapped(cp.daddr, B4);
	}
	cp.family = v6 ? ROCECC_AF_INET6 : ROCECC_AF_INET;
	cp.dest_qp = RQPN;
	cp.sport = 0xc0de;
	cp.dscp = dscp;
	cp.prio = prio;
	cp.ttl = ROCECC_CNP_DEFAULT_TTL;
	n = rocecc_cnp_build(&cp, w + l3, FRAME_MAX - l3);
	return n > 0 ? l3 + (size_t)n : 0;
}

static void one_cnp(const char *what, int v6, int vlan, uint8_t dscp,
		    uint8_t prio)
{
	struct pkt k = { .v6 = v6, .src = v6 ? B6 : B4, .dst = v6 ? A6 : A4,
			 .op = ROCECC_OP_RC_WRITE_ONLY, .qpn = LQPN,
			 .payload = 256, .ecn = ROCECC_ECN_CE, .ackreq = 1 };
	uint8_t f[FRAME_MAX], w[FRAME_MAX];
	size_t n, wn, l3 = vlan ? 18 : 14;
	struct dq_run r;

	dq_reset(&q, ROCECC_PROFILE_MLX5);
	q.dev.params.v[ROCECC_PARAM_NP_CNP_DSCP] = dscp;
	q.dev.params.v[ROCECC_PARAM_NP_CNP_PRIO] = prio;
	dq_attach(&q);
	dq_add_qp(&q, LQPN, v6 ? B6 : B4, v6, RQPN, 14);
	n = dq_frame(f, &k);
	if (vlan)
		n = add_vlan(f, n);
	run(q.fd_in, f, n, 0, T0, &r);
	tap_ok(untouched(&r, f, n, TC_ACT_UNSPEC) &&
	       q.skel->bss->dcqcn_test_clones == 1,
	       "%s: the CE-marked packet goes on to rxe untouched, a CNP is due",
	       what);
	run(q.fd_eg, f, n, DCQCN_CNP_MARK_DEFAULT, T0, &r);
	wn = want_cnp(w, f, l3, v6, dscp, prio);
	tap_ok(r.retval == TC_ACT_UNSPEC && wn && r.len == wn &&
	       !memcmp(r.out, w, wn),
	       "%s: the clone became cnp.h's CNP to QP 0x%x, byte for byte (%u bytes)",
	       what, RQPN, r.len);
	tap_ok(rocecc_icrc_verify(r.out + l3, r.len - (uint32_t)l3),
	       "%s: its ICRC verifies (icrc.h)", what);
	tap_ok(r.ctx.priority == prio && r.ctx.mark == 0,
	       "%s: skb->priority %u (np_cnp_prio), mark cleared", what,
	       r.ctx.priority);
	tap_ok(dq_stat(&q, ROCECC_STAT_NP_CNP_SENT) == 1 &&
	       dq_stat(&q, DCQCN_STAT_CE_ANSWERED) == 1 &&
	       dq_stat(&q, ROCECC_STAT_NP_ECN_MARKED_ROCE_PACKETS) == 1,
	       "%s: np_cnp_sent, ce_answered, np_ecn_marked_roce_packets 1",
	       what);
	/* the slot is spent: the same frame with the mark again is data */
	run(q.fd_eg, f, n, DCQCN_CNP_MARK_DEFAULT, T0, &r);
	tap_ok(r.retval == TC_ACT_UNSPEC && r.len == n,
	       "%s: a marked packet without an armed slot is not rewritten",
	       what);
}

static void test_cnp(void)
{
	one_cnp("IPv4", 0, 0, ROCECC_CNP_DEFAULT_DSCP, ROCECC_CNP_DEFAULT_PRIO);
	one_cnp("IPv6", 1, 0, ROCECC_CNP_DEFAULT_DSCP, ROCECC_CNP_DEFAULT_PRIO);
	one_cnp("IPv4 802.1Q", 0, 1, 26, 3);
	one_cnp("IPv6 DSCP 10 prio 2", 1, 0, 10, 2);
}

/* One CE-marked (@ce) packet from B to A's QP at @t; did a CNP get due? */
static int ce_at(uint64_t t, int ce, uint8_t op)
{
	struct pkt k = { .src = B4, .dst = A4, .op = op, .qpn = LQPN,
			 .payload = 64, .ecn = ce ? ROCECC_ECN_CE :
						    ROCECC_ECN_ECT0 };
	uint64_t before = q.skel->bss->dcqcn_test_clones;
	uint8_t f[FRAME_MAX];
	struct dq_run r;
	size_t n = dq_frame(f, &k);

	run(q.fd_in, f, n, 0, t, &r);
	if (!untouched(&r, f, n, TC_ACT_UNSPEC))
		return -1;
	if (q.skel->bss->dcqcn_test_clones == before)
		return 0;
	/* make it, and spend the slot */
	run(q.fd_eg, f, n, DCQCN_CNP_MARK_DEFAULT, t, &r);
	return r.retval == TC_ACT_UNSPEC && r.len == 14 + ROCECC_CNP_LEN_IPV4 ?
	       1 : -1;
}

static void test_deferred(void)
{
	const uint64_t win = 50000;		/* ns: the paper's 50 us */
	struct pkt ack = { .src = A4, .dst = B4, .op = ROCECC_OP_RC_ACK,
			   .qpn = RQPN, .syndrome = 0x1f };
	uint8_t f[FRAME_MAX];
	struct dcqcn_flow fl;
	struct dq_run r;
	size_t n;

	dq_reset(&q, ROCECC_PROFILE_PAPER);
	dq_add_qp(&q, LQPN, B4, 0, RQPN, 14);
	tap_eq(ce_at(T0, 1, ROCECC_OP_RC_SEND_FIRST), 1,
	       "deferred: the first CE mark is answered at once");
	tap_eq(ce_at(T0 + 10000, 1, ROCECC_OP_RC_SEND_MIDDLE), 0,
	       "deferred: a CE mark 10 us later is not (window 50 us)");
	tap_eq(ce_at(T0 + 30000, 0, ROCECC_OP_RC_SEND_MIDDLE), 0,
	       "deferred: a clean packet inside the window sends nothing");
	tap_eq(ce_at(T0 + win - 1, 0, ROCECC_OP_RC_SEND_MIDDLE), 0,
	       "deferred: nor one 1 ns before the window ends");
	tap_eq(ce_at(T0 + win, 0, ROCECC_OP_RC_SEND_LAST), 1,
	       "deferred: the flow's first packet at the end of the window sends the pending CNP");
	tap_eq(ce_at(T0 + win + 1000, 0, ROCECC_OP_RC_SEND_ONLY), 0,
	       "deferred: and only one");
	tap_eq(dq_stat(&q, DCQCN_STAT_CNP_DEFERRED), 1, "cnp_deferred 1");
	dq_flow(&q, B4, 0, RQPN, &fl);
	tap_ok(fl.np.cnp_sent == 2 && fl.np.cnp_suppressed == 1 &&
	       fl.np.ecn_marked_roce_packets == 2 && !fl.np.pending &&
	       fl.last_cnp_tx == T0 + win,
	       "deferred: the flow's NP as the core says (sent 2, suppressed 1)");

	/* Pending again; this time an ACK A sends B is the flow's next packet */
	tap_eq(ce_at(T0 + win + 2000, 1, ROCECC_OP_RC_SEND_ONLY), 0,
	       "deferred: a CE mark inside the next window waits");
	n = dq_frame(f, &ack);
	run(q.fd_eg, f, n, 0, T0 + 2 * win - 1, &r);
	tap_eq(q.skel->bss->dcqcn_test_clones, 2,
	       "deferred: an ACK leaving inside the window sends nothing");
	run(q.fd_eg, f, n, 0, T0 + 2 * win + 5, &r);
	tap_ok(q.skel->bss->dcqcn_test_clones == 3 && r.retval ==
	       TC_ACT_UNSPEC && r.len == n,
	       "deferred: the ACK after it does, and goes on itself");
	run(q.fd_eg, f, n, DCQCN_CNP_MARK_DEFAULT, T0 + 2 * win + 5, &r);
	tap_ok(r.len == 14 + ROCECC_CNP_LEN_IPV4 &&
	       !memcmp(r.out, f, 12) && rocecc_icrc_verify(r.out + 14,
							    r.len - 14) &&
	       r.out[14 + 20 + 8 + 5] == 0 && r.out[14 + 20 + 8 + 7] == RQPN,
	       "deferred: its CNP keeps the ACK's Ethernet addresses, goes to QP 0x%x",
	       RQPN);
}

static void test_unanswered(void)
{
	struct pkt k = { .src = B4, .dst = A4, .op = ROCECC_OP_RC_SEND_ONLY,
			 .qpn = 0x99, .payload = 64, .ecn = ROCECC_ECN_CE };
	uint8_t f[FRAME_MAX];
	struct dq_run r;
	size_t n;

	dq_reset(&q, ROCECC_PROFILE_MLX5);
	dq_add_qp(&q, LQPN, B4, 0, RQPN, 14);
	n = dq_frame(f, &k);
	run(q.fd_in, f, n, 0, T0, &r);
	tap_ok(untouched(&r, f, n, TC_ACT_UNSPEC) &&
	       q.skel->bss->dcqcn_test_clones == 0 &&
	       dq_stat(&q, DCQCN_STAT_CE_UNANSWERED) == 1 &&
	       dq_stat(&q, ROCECC_STAT_NP_ECN_MARKED_ROCE_PACKETS) == 1,
	       "CE mark for a QP not in the map: ce_unanswered, no CNP");
	k.qpn = LQPN;
	k.src = C4;
	n = dq_frame(f, &k);
	run(q.fd_in, f, n, 0, T0, &r);
	tap_ok(untouched(&r, f, n, TC_ACT_UNSPEC) &&
	       q.skel->bss->dcqcn_test_clones == 0 &&
	       dq_stat(&q, DCQCN_STAT_CE_UNANSWERED) == 2 &&
	       dq_stat(&q, DCQCN_STAT_CE_ANSWERED) == 0,
	       "CE mark from an address that is not the QP's peer: unanswered");
}

static void test_bad_source(void)
{
	uint8_t f[FRAME_MAX];
	struct dcqcn_flow fl;
	struct dq_run r;
	size_t n;

	dq_reset(&q, ROCECC_PROFILE_MLX5);
	dq_add_qp(&q, LQPN, B4, 0, RQPN, 14);
	n = dq_cnp_frame(f, 0, C4, A4, LQPN);
	run(q.fd_in, f, n, 0, T0, &r);
	tap_ok(r.retval == TC_ACT_STOLEN &&
	       dq_stat(&q, ROCECC_STAT_RP_CNP_SPOOFED) == 1 &&
	       dq_stat(&q, ROCECC_STAT_RP_CNP_IGNORED) == 1 &&
	       dq_stat(&q, ROCECC_STAT_RP_CNP_HANDLED) == 0 &&
	       dq_flow(&q, B4, 0, RQPN, &fl) == -ENOENT,
	       "CNP from C for B's QP: rp_cnp_spoofed, consumed, no flow touched");
	n = dq_cnp_frame(f, 0, B4, A4, 0x77);
	run(q.fd_in, f, n, 0, T0, &r);
	tap_ok(r.retval == TC_ACT_STOLEN &&
	       dq_stat(&q, ROCECC_STAT_RESOLVER_MISS) == 1 &&
	       dq_stat(&q, ROCECC_STAT_RP_CNP_IGNORED) == 2,
	       "CNP for a QP not in the map: resolver_miss, rp_cnp_ignored");
	n = dq_cnp_frame(f, 0, B4, A4, LQPN);
	run(q.fd_in, f, n, 0, T0, &r);
	tap_ok(r.retval == TC_ACT_STOLEN &&
	       dq_stat(&q, ROCECC_STAT_RP_CNP_HANDLED) == 1 &&
	       !dq_flow(&q, B4, 0, RQPN, &fl) && fl.rp.limited &&
	       fl.last_cnp_rx == T0 && fl.lqpn == LQPN && fl.budget_known,
	       "CNP from B: handled, the flow limited, its QP and budget known");
}

/* ------------------------------------------------- learned timeouts */

/* The flow's budget after one ingress ACK from B for A's QP, or ~0 */
static uint64_t budget_after_ack(uint64_t t, struct dcqcn_flow *fl)
{
	struct pkt k = { .src = B4, .dst = A4, .op = ROCECC_OP_RC_ACK,
			 .qpn = LQPN };
	uint8_t f[FRAME_MAX];
	struct dq_run r;
	size_t n;

	n = dq_frame(f, &k);
	run(q.fd_in, f, n, 0, t, &r);
	if (r.retval != TC_ACT_UNSPEC || dq_flow(&q, B4, 0, RQPN, fl))
		return ~0ULL;
	return fl->pace.budget_ns;
}

/*
 * The share of packets the budget caps for a QP of @timeout (-1: not
 * known) that sends 16 KB WRITEs (16 packets of 1 KB, AckReq on the last)
 * four messages deep, as rocegen does in the VM tests, paced at 10 Mb/s:
 * a message is handed over when the one four before it has left. With
 * @ask pacing may set AckReq (pacing_ack_req); *@asked gets the share of
 * packets it did.
 */
static double capped_share(int timeout, bool ask, double *asked)
{
	struct pkt k = { .src = A4, .dst = B4, .qpn = RQPN, .payload = 1024,
			 .op = ROCECC_OP_RC_WRITE_MIDDLE };
	uint64_t done[4] = { T0, T0, T0, T0 }, t = T0;
	struct dcqcn_flow fl;
	uint8_t f[FRAME_MAX];
	unsigned int m, i;
	struct dq_run r;
	size_t n;

	dq_reset(&q, ROCECC_PROFILE_MLX5);
	q.dev.params.v[ROCECC_PARAM_RP_MAX_RATE] = 10;
	if (!ask)
		q.dev.flags &= ~DCQCN_DEV_ACKREQ;
	dq_attach(&q);
	dq_add_qp(&q, LQPN, B4, 0, RQPN, timeout);
	for (m = 0; m < 64; m++) {
		if (done[m % 4] > t)
			t = done[m % 4];
		for (i = 0; i < 16; i++, t += 1000) {
			k.ackreq = i == 15;
			n = dq_frame(f, &k);
			run(q.fd_eg, f, n, 0, t, &r);
			if (!m && !i)	/* the flow exists: take the QP */
				budget_after_ack(t, &fl);
		}
		done[m % 4] = r.ctx.tstamp > t ? r.ctx.tstamp : t;
	}
	*asked = 1.0;
	if (dq_flow(&q, B4, 0, RQPN, &fl) || !fl.pkts)
		return 1.0;
	*asked = (double)fl.pacing_ackreq / (double)fl.pkts;
	return (double)fl.pacing_capped / (double)fl.pkts;
}

/*
 * A QP's timeout learned after its flow began (dp_qps gets it once the
 * learner saw rxe_modify_qp(), bpf/qptimeout.bpf.c): the flow keeps the
 * default budget until then, and takes pacing.h's budget of that timeout
 * with the QP's next packet, also when the timeout changes again.
 */
static void test_learned(void)
{
	static const int tmo[] = { 0, 8, 12, 14, 18, 19, 31 };
	struct pkt k = { .src = A4, .dst = B4, .qpn = RQPN, .payload = 1024,
			 .op = ROCECC_OP_RC_WRITE_MIDDLE };
	unsigned int bad_default = 0, bad_known = 0, bad_change = 0;
	uint64_t def, want, got;
	double share, def_share, ask, def_ask, x;
	struct dcqcn_flow fl;
	uint8_t f[FRAME_MAX];
	struct dq_run r;
	size_t i, n;

	for (i = 0; i < sizeof(tmo) / sizeof(tmo[0]); i++) {
		dq_reset(&q, ROCECC_PROFILE_MLX5);
		dq_attach(&q);
		def = (uint64_t)q.dev.default_budget_us * 1000;
		dq_add_qp(&q, LQPN, B4, 0, RQPN, -1);
		n = dq_frame(f, &k);
		run(q.fd_eg, f, n, 0, T0, &r);
		got = budget_after_ack(T0 + 1000, &fl);
		if (got != def || fl.budget_known)
			bad_default++;
		dq_add_qp(&q, LQPN, B4, 0, RQPN, tmo[i]);
		want = rocecc_pace_budget_ns((uint8_t)tmo[i], dq_hz(&q),
					     q.dev.budget_pct,
					     q.dev.max_delay_us);
		got = budget_after_ack(T0 + 2000, &fl);
		tap_diag("timeout %d: budget %llu us (default %llu us)", tmo[i],
			 (unsigned long long)got / 1000,
			 (unsigned long long)def / 1000);
		if (got != want || !fl.budget_known || fl.qp_timeout != tmo[i])
			bad_known++;
		/* the QPN reused by a QP with timeout 14 */
		dq_add_qp(&q, LQPN, B4, 0, RQPN, 14);
		want = rocecc_pace_budget_ns(14, dq_hz(&q), q.dev.budget_pct,
					     q.dev.max_delay_us);
		if (budget_after_ack(T0 + 3000, &fl) != want ||
		    fl.qp_timeout != 14)
			bad_change++;
	}
	tap_eq(bad_default, 0, "timeout unknown: the flow paces with the default budget");
	tap_eq(bad_known, 0, "timeout learned (0, 8, 12, 14, 18, 19, 31): the flow's budget is rocecc_pace_budget_ns()'s");
	tap_eq(bad_change, 0, "a learned timeout that changes: the flow takes the new budget");
	want = rocecc_pace_budget_ns(14, dq_hz(&q), q.dev.budget_pct,
				     q.dev.max_delay_us);
	def_share = capped_share(-1, false, &x);
	share = capped_share(14, false, &x);
	tap_diag("16 KB WRITEs 4 deep at 10 Mb/s, no asking: the budget capped %.1f %% of the packets with the default budget, %.1f %% with timeout 14's",
		 100 * def_share, 100 * share);
	tap_ok(share < def_share,
	       "no asking: timeout 14's budget caps fewer packets (%.1f %%) than the default's (%.1f %%)",
	       100 * share, 100 * def_share);
	def_share = capped_share(-1, true, &def_ask);
	share = capped_share(14, true, &ask);
	tap_diag("asking: capped %.1f %% / %.1f %%, AckReq set on %.1f %% / %.1f %% (default budget / timeout 14's)",
		 100 * def_share, 100 * share, 100 * def_ask, 100 * ask);
	tap_ok(share == 0 && def_share == 0 && ask > 0 && ask <= def_ask,
	       "asking: no budget caps the rate, timeout 14's asks (%.1f %%) no more often than the default's (%.1f %%)",
	       100 * ask, 100 * def_ask);
	tap_ok(want > (uint64_t)q.dev.default_budget_us * 1000,
	       "timeout 14's budget (%llu us at HZ %u) is longer than the default",
	       (unsigned long long)want / 1000, dq_hz(&q));
}

/* ------------------------------------------------------------ RP trace */

/* The core, run here on the same events as the programs */
struct ref {
	struct rocecc_rp rp;
	struct rocecc_pace pace;
	int init;
};

static void ref_init(struct ref *rf, const struct dcqcn_dev *d)
{
	rocecc_rp_init(&rf->rp, &d->params, d->line_rate_kbps);
	memset(&rf->pace, 0, sizeof(rf->pace));
	rf->pace.budget_ns = (uint64_t)d->default_budget_us * 1000;
	rf->init = 1;
}

/* Simple deterministic noise */
static uint32_t rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(*s >> 33);
}

static void trace(const char *what, unsigned int profile, uint32_t div,
		  int timeout, uint32_t events, uint64_t seed)
{
	struct pkt k = { .src = A4, .dst = B4, .qpn = RQPN };
	uint8_t f[FRAME_MAX];
	unsigned int bad_rp = 0, bad_pace = 0, bad_ts = 0, late = 0;
	unsigned int sends = 0, cnps = 0, reads = 0, delayed = 0, capped = 0;
	unsigned int ackreqs = 0, bad_ask = 0;
	uint64_t t = T0, ack_ref = 0, prev = 0, budget;
	struct dcqcn_flow fl;
	struct ref rf = { .init = 0 };
	struct dq_run r;
	uint32_t i, fl_flags, icrc;
	size_t n;

	dq_reset(&q, profile);
	q.dev.params.v[ROCECC_PARAM_RP_RATE_DIVISOR] = div;
	dq_attach(&q);
	dq_add_qp(&q, LQPN, B4, 0, RQPN, timeout);
	for (i = 0; i < events; i++) {
		uint32_t x = rnd(&seed) % 1000;

		/* mostly back to back, now and then a pause, once a long one */
		t += x < 900 ? rnd(&seed) % 2000 : rnd(&seed) % 400000;
		if (i == events / 2)
			t += 3000000000ULL;
		if (x % 50 == 7) {
			/* a CNP from B for A's QP */
			n = dq_cnp_frame(f, 0, B4, A4, LQPN);
			run(q.fd_in, f, n, 0, t, &r);
			if (!rf.init)
				ref_init(&rf, &q.dev);
			rf.pace.budget_ns = rocecc_pace_budget_ns(
				(uint8_t)timeout, dq_hz(&q), q.dev.budget_pct,
				q.dev.max_delay_us);
			rocecc_rp_on_cnp(&rf.rp, &q.dev.params, t);
			cnps++;
		} else {
			int read = x % 10 == 3;

			k.op = read ? ROCECC_OP_RC_READ_RESP_MIDDLE :
				      ROCECC_OP_RC_WRITE_MIDDLE;
			/*
			 * 4 to 1916 bytes, so that an AckReq pacing sets is
			 * mended at many distances from the ICRC
			 */
			k.payload = 4 * (1 + (i * 37 + x) % 479);
			k.ackreq = !read && x % 4 == 0;
			n = dq_frame(f, &k);
			if (rocecc_icrc_compute(f + 14, (uint32_t)n - 14,
						&icrc) == 0)
				rocecc_put_le32(f + n - 4, icrc);
			run(q.fd_eg, f, n, 0, t, &r);
			if (!rf.init)
				ref_init(&rf, &q.dev);
			rocecc_rp_on_send(&rf.rp, &q.dev.params, t,
					  ip_len(&k));
			if (read) {
				reads++;
				if (r.ctx.tstamp)
					bad_ts++;
			} else {
				uint64_t dep = rocecc_pace(&rf.pace, &rf.rp, t,
					ip_len(&k), k.ackreq, !k.ackreq,
					(uint64_t)q.dev.max_delay_us * 1000,
					&fl_flags);
				int asked = fl_flags & ROCECC_PACE_ACKREQ;

				sends++;
				ackreqs += asked != 0;
				/*
				 * AckReq set and the ICRC mended, else as sent
				 * from the addresses on (ECT changed the TOS)
				 */
				f[14 + 20 + 8 + 8] |= asked ? ROCECC_BTH_ACKREQ : 0;
				if (r.len != n ||
				    !rocecc_icrc_verify(r.out + 14, r.len - 14) ||
				    memcmp(r.out + 26, f + 26, n - 26 - 4))
					bad_ask++;
				if (fl_flags & ROCECC_PACE_DELAYED)
					delayed++;
				if (fl_flags & ROCECC_PACE_CAPPED)
					capped++;
				if (r.ctx.tstamp != (fl_flags &
						     ROCECC_PACE_DELAYED ?
						     dep : 0))
					bad_ts++;
				/* the cap: never past the last AckReq + budget */
				/*
				 * the cap: never past the last AckReq + the
				 * budget, unless the previous departure was
				 * (the budget shrank: order comes first)
				 */
				budget = rf.pace.budget_ns;
				if (dep > t && dep > prev &&
				    dep > (ack_ref + budget >= t ? ack_ref :
					   t) + budget)
					late++;
				prev = dep;
				if (k.ackreq || asked)
					ack_ref = dep;
			}
		}
		if (dq_flow(&q, B4, 0, RQPN, &fl) ||
		    memcmp(&fl.rp, &rf.rp, sizeof(rf.rp)))
			bad_rp++;
		if (memcmp(&fl.pace, &rf.pace, sizeof(rf.pace)))
			bad_pace++;
	}
	tap_diag("%s: %u requests (%u delayed, %u capped, %u asked for an ACK), %u READ responses, %u CNPs; rate %u kb/s, alpha %u, %llu cuts",
		 what, sends, delayed, capped, ackreqs, reads, cnps, fl.rp.rate,
		 fl.rp.alpha, (unsigned long long)fl.rp.cuts);
	tap_eq(bad_rp, 0, "%s: after each of %u events the flow's RP equals the core's",
	       what, events);
	tap_eq(bad_pace, 0, "%s: and its pacing state pacing.h's", what);
	tap_eq(bad_ts, 0, "%s: every departure time is pacing.h's, READ responses never delayed",
	       what);
	tap_eq(late, 0, "%s: no departure past the last AckReq + budget", what);
	tap_eq(bad_ask, 0, "%s: AckReq set where pacing.h asks (%u), ICRC valid, nothing else changed",
	       what, ackreqs);
	tap_ok(ackreqs > 0, "%s: pacing asked for ACKs", what);
	tap_ok(delayed > 0 && fl.rp.cuts > 0,
	       "%s: the trace paced and cut (else it proves little)", what);
	tap_ok(fl.pkts == sends + reads && fl.unpaced_pkts == reads &&
	       fl.pacing_delayed == delayed && fl.pacing_capped == capped &&
	       fl.pacing_ackreq == ackreqs &&
	       dq_stat(&q, ROCECC_STAT_PACING_ACKREQ) == ackreqs &&
	       dq_stat(&q, ROCECC_STAT_PACING_DELAYED) == delayed &&
	       dq_stat(&q, ROCECC_STAT_PACING_CAPPED) == capped &&
	       dq_stat(&q, ROCECC_STAT_RP_CNP_HANDLED) +
	       dq_stat(&q, ROCECC_STAT_RP_CNP_IGNORED) == cnps &&
	       dq_stat(&q, ROCECC_STAT_RP_CNP_HANDLED) == fl.rp.cnp_handled,
	       "%s: flow and netdev counters agree with the events", what);
	if (capped)
		tap_ok(1, "%s: the budget capped %u departures", what, capped);
}

static void test_trace(void)
{
	trace("mlx5 /1000", ROCECC_PROFILE_MLX5, 1000, 14, 3000, 1);
	trace("paper /2000", ROCECC_PROFILE_PAPER, 2000, 14, 3000, 2);
	/* timeout 8 (1 ms): a budget of about 0.5 ms, which binds */
	trace("mlx5 /5000 timeout 8", ROCECC_PROFILE_MLX5, 5000, 8, 2000, 3);
	tap_ok(dq_stat(&q, ROCECC_STAT_PACING_CAPPED) > 0,
	       "the short budget capped departures (pacing_capped %llu)",
	       (unsigned long long)dq_stat(&q, ROCECC_STAT_PACING_CAPPED));
}

static void diag_prog(const char *name, int fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (!bpf_obj_get_info_by_fd(fd, &info, &len))
		tap_diag("%s: %u instructions, verifier walked %u", name,
			 info.xlated_prog_len / 8, info.verified_insns);
}

/*
 * The programs as roceccd loads them (no any-socket hook): a request from
 * BPF_PROG_TEST_RUN's made-up socket (not a UDP one) is not rxe's. It
 * leaves untouched (Not-ECT, no departure time), no flow is made, and
 * tx_not_rxe counts it; the same frame from the hooked programs is
 * marked (test_ect()).
 */
static void test_not_rxe(void)
{
	struct pkt k = { .src = A4, .dst = B4, .op = ROCECC_OP_RC_WRITE_MIDDLE,
			 .qpn = RQPN, .payload = 1024 };
	struct dcqcn_flow fl;
	uint8_t f[FRAME_MAX];
	struct dq_run r;
	struct dq q2;
	size_t n;
	int err;

	err = dq_open(&q2, true, true, NULL);
	if (!tap_ok(!err, "dcqcn.bpf.o loads without the test's socket hook: %s",
		    strerror(-err)))
		return;
	dq_reset(&q2, ROCECC_PROFILE_MLX5);
	n = dq_frame(f, &k);
	err = dq_run(&q2, q2.fd_eg, f, n, 0, T0, &r);
	tap_ok(!err && untouched(&r, f, n, TC_ACT_UNSPEC) && !r.ctx.tstamp,
	       "a request from a socket that is not rxe's leaves untouched");
	tap_ok(dq_flow(&q2, B4, 0, RQPN, &fl) != 0, "... and makes no flow");
	tap_eq(dq_stat(&q2, ROCECC_STAT_TX_NOT_RXE), 1, "... tx_not_rxe counts it");
	tap_eq(dq_stat(&q2, ROCECC_STAT_ECT_MARKED), 0, "... not ECT-marked");
	dcqcn__destroy(q2.skel);
}

/*
 * The QP learner (bpf/qptimeout.bpf.c) loaded, not attached, for its
 * verifier's counts: its targets are in rdma_rxe's BTF, so only
 * where rdma_rxe is loaded (the guest's t_bpf.t loads it first).
 */
static void diag_qptimeout(void)
{
	struct qptimeout *qt;

	if (access("/sys/kernel/btf/rdma_rxe", F_OK)) {
		tap_diag("dcqcn_qp_timeout: not loaded here (no rdma_rxe BTF)");
		return;
	}
	qt = qptimeout__open_and_load();
	if (!tap_ok(qt != NULL, "qptimeout.bpf.o loads (the verifier accepts dcqcn_qp_timeout and dcqcn_qp_destroy)")) {
		fputs(bpf_test_log_buf, stdout);
		return;
	}
	diag_prog("dcqcn_qp_timeout", bpf_program__fd(qt->progs.dcqcn_qp_timeout));
	diag_prog("dcqcn_qp_destroy", bpf_program__fd(qt->progs.dcqcn_qp_destroy));
	qptimeout__destroy(qt);
}

int main(void)
{
	int err;

	err = bpf_load_denied();
	if (err) {
		printf("1..0 # SKIP cannot load BPF programs: %s\n",
		       strerror(err));
		return 0;
	}
	libbpf_set_print(bpf_test_log);
	err = dq_open(&q, true, false, NULL);
	if (err) {
		tap_ok(0, "dcqcn.bpf.o loads: %s", strerror(-err));
		fputs(bpf_test_log_buf, stdout);
		return tap_done();
	}
	tap_ok(1, "dcqcn.bpf.o loads (the verifier accepts both programs)");
	tap_ok(!dq_pin_cpu(), "the test stays on one CPU (the hand-over slot is per CPU)");
	diag_prog("dcqcn_egress", q.fd_eg);
	diag_prog("dcqcn_ingress", q.fd_in);
	diag_qptimeout();
	tap_diag("kernel HZ as the programs see it: %u", dq_hz(&q));

	test_ect();
	test_malformed();
	test_cnp();
	test_deferred();
	test_unanswered();
	test_bad_source();
	test_learned();
	test_trace();

	test_not_rxe();

	tap_eq(bad_run, 0, "%u runs: the kernel ran every one", runs);
	dcqcn__destroy(q.skel);
	return tap_done();
}
