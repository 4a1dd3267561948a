// SPDX-License-Identifier: GPL-2.0
/*
 * What bpf/dcqcn.bpf.c, the BPF datapath engine, costs per packet on this
 * kernel, measured with BPF_PROG_TEST_RUN and the programs' real clock,
 * and how much work its programs are to the verifier ("processed N insns"
 * from the load's log, log_level BPF_LOG_STATS). Prints figures; asserts
 * nothing.
 *
 * Each packet is a run of its own (repeat = 1): the kernel's duration
 * covers one program run plus the harness's two clock reads; an empty TC
 * program run the same way gives that floor, printed and subtracted, as
 * in bench_flowmon. Paths:
 *  - egress data: a 1 KB RC WRITE of a flow the RP limits (one CNP
 *    first, and the CNP receive below cuts it again every round): parse,
 *    ECT(0), the RP (dp_rp_event) and its EDT departure. Two rows, one
 *    packet of each per round, of the same flow:
 *     - "no AckReq set": the WRITE carries BTH AckReq from its sender (as
 *       rxe's last packet of a message does), so pacing has nothing to
 *       ask (rocecc_pace_may_ask() is false) and the packet is not
 *       changed;
 *     - "AckReq set": the same WRITE without AckReq. The flow, held
 *       near its floor, mostly cannot send its next packet within the
 *       budget, so pacing asks (ROCECC_PACE_ACKREQ) and the engine sets
 *       the bit and mends the ICRC (dp_set_ackreq(), rocecc_icrc_flip()).
 *       Not always: when the packet still leaves within the budget of the
 *       sender's AckReq just before it (the real clock and the RP's timers
 *       decide; 37 to 95 % of the runs were asked here), pacing does not
 *       ask. A run counts in this row only if its packet left with AckReq
 *       set (the BTH of data_out); how many did is printed.
 *    No test hook: the engine and the device's flags are as configured.
 *    (Until December 2026 this was one row, "egress data (1 KB WRITE,
 *    paced)", the WRITE without AckReq, asked or not: its median was the
 *    AckReq set case);
 *  - ingress CE: a CE-marked WRITE for a local QP in dp_qps, with
 *    np_min_time_between_cnps 0, so that every one makes a CNP due: the
 *    NP's decision and the CNP's parameters in the hand-over slot (the
 *    clone itself is the kernel's bpf_clone_redirect(), not timed here);
 *  - CNP build: dcqcn_egress turning that packet into the CNP (cnp.h's
 *    bytes, ICRC, resize, priority);
 *  - CNP receive: a CNP with a valid ICRC: the ICRC check and the RP's
 *    reaction (a cut, or ignored inside the monitor period);
 *  - and for scale: non-RoCE, and an ingress ACK of a known QP.
 */
#include <stdio.h>
#include <sys/utsname.h>
#include <linux/filter.h>

#include "bpf_skip.h"
#include "dcqcn_lib.h"

#define ROUNDS		20000

static const uint8_t A4[4] = { 10, 0, 0, 1 };
static const uint8_t B4[4] = { 10, 0, 0, 2 };
/* BTH of an IPv4 frame: Ethernet, IPv4, UDP */
#define DQ_BTH_OFF	(14 + 20 + 8)
#define LQPN	0x11
#define RQPN	0x22

static struct dq q;

struct series {
	const char *name;
	uint32_t n;
	uint32_t ns[ROUNDS];
};

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static uint32_t median(struct series *s)
{
	qsort(s->ns, s->n, sizeof(s->ns[0]), cmp_u32);
	return s->n ? s->ns[s->n / 2] : 0;
}

/*
 * One run of @f through @fd with skb->mark @mark; its duration in ns, and
 * the packet as the program left it in @out (FRAME_MAX bytes)
 */
static uint32_t run(int fd, const uint8_t *f, size_t len, uint32_t mark,
		    uint8_t *out)
{
	struct __sk_buff ctx = { .ifindex = DQ_IFINDEX, .mark = mark };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = f,
		    .data_size_in = (uint32_t)len, .data_out = out,
		    .data_size_out = FRAME_MAX, .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx), .repeat = 1);

	if (bpf_prog_test_run_opts(fd, &o)) {
		fprintf(stderr, "test run: %s\n", strerror(errno));
		exit(1);
	}
	return o.duration;
}

static uint32_t once(int fd, const uint8_t *f, size_t len, uint32_t mark)
{
	uint8_t out[FRAME_MAX];

	return run(fd, f, len, mark, out);
}

static void add(struct series *s, uint32_t ns)
{
	if (s->n < ROUNDS)
		s->ns[s->n++] = ns;
}

/* r0 = TC_ACT_UNSPEC; exit */
static int empty_prog(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0,
		  .imm = TC_ACT_UNSPEC },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return bpf_prog_load(BPF_PROG_TYPE_SCHED_CLS, "empty", "GPL", insns,
			     2, NULL);
}

/* "processed N insns" of a load log, or 0 */
static unsigned long processed(const char *log)
{
	const char *p = strstr(log, "processed ");

	return p ? strtoul(p + 10, NULL, 10) : 0;
}

static struct series empty = { .name = "empty TC program (harness floor)" };
static struct series other = { .name = "non-RoCE (IPv4 UDP to port 53)" };
static struct series data = { .name = "egress data, no AckReq set (the sender's)" };
static struct series data_ask = { .name = "egress data, AckReq set (ICRC mended)" };
static struct series ce = { .name = "ingress CE (NP decision, CNP due)" };
static struct series build_cnp = { .name = "CNP build (egress rewrite of the clone)" };
static struct series rx_cnp = { .name = "CNP receive (ICRC check, RP)" };
static struct series ack = { .name = "ingress ACK of a known QP" };

int main(void)
{
	static char log[2][4096];
	struct series *all[] = { &empty, &other, &data, &data_ask, &ce,
				 &build_cnp, &rx_cnp, &ack };
	struct pkt wr = { .src = A4, .dst = B4, .qpn = RQPN, .payload = 1024,
			  .op = ROCECC_OP_RC_WRITE_MIDDLE };
	struct pkt wra = { .src = A4, .dst = B4, .qpn = RQPN, .payload = 1024,
			   .op = ROCECC_OP_RC_WRITE_MIDDLE, .ackreq = 1 };
	struct pkt cem = { .src = B4, .dst = A4, .qpn = LQPN, .payload = 1024,
			   .op = ROCECC_OP_RC_WRITE_MIDDLE,
			   .ecn = ROCECC_ECN_CE };
	struct pkt ak = { .src = B4, .dst = A4, .qpn = LQPN,
			  .op = ROCECC_OP_RC_ACK, .syndrome = 0x1f };
	uint8_t fw[FRAME_MAX], fwa[FRAME_MAX], fce[FRAME_MAX], fcnp[FRAME_MAX];
	uint8_t fak[FRAME_MAX], udp[FRAME_MAX];
	size_t lw, lwa, lce, lcnp, lak, ludp;
	uint32_t floor_ns, i, m, ns, asked = 0;
	uint8_t out[FRAME_MAX];
	struct utsname u;
	int fd0, err;

	err = bpf_load_denied();
	if (err) {
		fprintf(stderr, "cannot load BPF programs: %s (root needed)\n",
			strerror(err));
		return 1;
	}
	err = dq_open(&q, false, false, log);
	if (err) {
		fprintf(stderr, "dcqcn.bpf.o: %s\n%s\n%s\n", strerror(-err),
			log[0], log[1]);
		return 1;
	}
	fd0 = empty_prog();
	if (fd0 < 0 || dq_pin_cpu()) {
		fprintf(stderr, "empty program or CPU pinning: %s\n",
			strerror(errno));
		return 1;
	}
	dq_reset(&q, ROCECC_PROFILE_MLX5);
	q.dev.params.v[ROCECC_PARAM_NP_MIN_TIME_BETWEEN_CNPS] = 0;
	q.dev.params.v[ROCECC_PARAM_RP_RATE_DIVISOR] = 100;
	dq_attach(&q);
	dq_add_qp(&q, LQPN, B4, 0, RQPN, 14);

	lw = dq_frame(fw, &wr);
	lwa = dq_frame(fwa, &wra);
	lce = dq_frame(fce, &cem);
	lak = dq_frame(fak, &ak);
	lcnp = dq_cnp_frame(fcnp, 0, B4, A4, LQPN);
	ludp = dq_frame(udp, &wr);
	udp[14 + 20 + 2] = 0;
	udp[14 + 20 + 3] = 53;
	dq_ip_csum(udp);
	once(q.fd_in, fcnp, lcnp, 0);	/* the flow, limited */

	for (i = 0; i < ROUNDS; i++) {
		add(&empty, once(fd0, udp, ludp, 0));
		add(&other, once(q.fd_eg, udp, ludp, 0));
		add(&data, once(q.fd_eg, fwa, lwa, 0));
		ns = run(q.fd_eg, fw, lw, 0, out);
		asked += !!(out[DQ_BTH_OFF + 8] & ROCECC_BTH_ACKREQ);
		if (out[DQ_BTH_OFF + 8] & ROCECC_BTH_ACKREQ)
			add(&data_ask, ns);
		add(&ce, once(q.fd_in, fce, lce, 0));
		add(&build_cnp, once(q.fd_eg, fce, lce,
				     DCQCN_CNP_MARK_DEFAULT));
		add(&rx_cnp, once(q.fd_in, fcnp, lcnp, 0));
		add(&ack, once(q.fd_in, fak, lak, 0));
	}

	uname(&u);
	printf("BPF datapath (bpf/dcqcn.bpf.c) per-packet cost, BPF_PROG_TEST_RUN on %s %s\n",
	       u.sysname, u.release);
	printf("one run per packet (repeat = 1), %u packets each; ns\n\n",
	       ROUNDS);
	printf("  %-44s %8s %12s\n", "", "median", "median-floor");
	floor_ns = median(&empty);
	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		m = median(all[i]);
		printf("  %-44s %8u %12d\n", all[i]->name, m,
		       (int)m - (int)floor_ns);
	}
	printf("\nCNPs made: %llu (np_cnp_sent), received and handled: %llu, ignored: %llu\n",
	       (unsigned long long)dq_stat(&q, ROCECC_STAT_NP_CNP_SENT),
	       (unsigned long long)dq_stat(&q, ROCECC_STAT_RP_CNP_HANDLED),
	       (unsigned long long)dq_stat(&q, ROCECC_STAT_RP_CNP_IGNORED));
	printf("AckReq set by the engine on %u of %u WRITEs without it (pacing_ackreq %llu, failed %llu)\n",
	       asked, ROUNDS,
	       (unsigned long long)dq_stat(&q, ROCECC_STAT_PACING_ACKREQ),
	       (unsigned long long)dq_stat(&q, ROCECC_STAT_MALFORMED));
	printf("\nverifier, processed instructions (log_level stats) on %s:\n",
	       u.release);
	printf("  %-16s %8lu\n", "dcqcn_egress", processed(log[0]));
	printf("  %-16s %8lu\n", "dcqcn_ingress", processed(log[1]));
	dcqcn__destroy(q.skel);
	return 0;
}
