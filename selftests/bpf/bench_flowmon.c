// SPDX-License-Identifier: GPL-2.0
/*
 * What bpf/flowmon.bpf.c costs per packet on this host, measured with
 * BPF_PROG_TEST_RUN and the programs' real clock (bpf_ktime_get_ns()).
 * Prints figures; asserts nothing.
 *
 * Each packet that changes state (a new request, the ACK that answers it)
 * is a run of its own (repeat = 1), so the kernel's duration covers one
 * program run plus the harness's two clock reads; an empty TC program run
 * the same way gives that floor, which is printed and subtracted. Packets
 * that may repeat (non-RoCE, retransmission, duplicate ACK) also run with
 * a large repeat count, where the floor vanishes in the average.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <linux/filter.h>

#include "flowmon.h"
#include "flowmon.skel.h"
#include "flowmon_lib.h"

#define ROUNDS		20000
#define REPEAT		200000
#define COALESCE	64

static const uint8_t A4[4] = { 10, 0, 0, 1 };
static const uint8_t B4[4] = { 10, 0, 0, 2 };
static const uint32_t LQPN = 0x11, RQPN = 0x22;

struct series {
	const char *name;
	uint32_t n;
	uint32_t *ns;
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

static double mean(const struct series *s)
{
	double sum = 0;
	uint32_t i;

	for (i = 0; i < s->n; i++)
		sum += s->ns[i];
	return s->n ? sum / s->n : 0;
}

static void add(struct series *s, uint32_t ns)
{
	s->ns[s->n++] = ns;
}

/* One run; its duration in ns, or exits on failure */
static uint32_t once(int fd, const uint8_t *f, size_t len)
{
	uint32_t retval = 0, dur = 0;

	if (run_frame(fd, 1, f, len, &retval, NULL, NULL, &dur)) {
		fprintf(stderr, "test run: %s\n", strerror(errno));
		exit(1);
	}
	return dur;
}

/* Average ns per run over @repeat runs of the same frame */
static uint32_t repeated(int fd, const uint8_t *f, size_t len,
			 uint32_t repeat)
{
	struct __sk_buff ctx = { .ifindex = 1 };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = f,
		    .data_size_in = (uint32_t)len, .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx), .repeat = repeat);

	if (bpf_prog_test_run_opts(fd, &o)) {
		fprintf(stderr, "test run: %s\n", strerror(errno));
		exit(1);
	}
	return o.duration;
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

int main(void)
{
	static uint32_t buf[8][ROUNDS];
	struct series empty = { "empty TC program (harness floor)", 0, buf[0] };
	struct series other = { "non-RoCE (IPv4 UDP to port 53)", 0, buf[1] };
	struct series req = { "egress request (new PSN, AckReq)", 0, buf[2] };
	struct series ack = { "ingress ACK (one RTT + one MCT sample)", 0,
			      buf[3] };
	struct series unk = { "egress RoCE of no flow (unknown)", 0, buf[4] };
	struct series coal = { "ingress ACK completing 64 messages", 0,
			       buf[5] };
	struct series *all[] = { &empty, &other, &req, &ack, &unk, &coal };
	struct pkt rq = { .src = A4, .dst = B4, .op = ROCECC_OP_RC_SEND_ONLY,
			  .qpn = RQPN, .ackreq = 1, .payload = 1024 };
	struct pkt ak = { .src = B4, .dst = A4, .op = ROCECC_OP_RC_ACK,
			  .qpn = LQPN, .syndrome = 0x1f };
	struct pkt un = rq;
	uint8_t f[FRAME_MAX], udp[FRAME_MAX], uf[FRAME_MAX];
	struct flowmon_qp_key qk = { .ifindex = 1, .lqpn = LQPN };
	struct flowmon_qp qv = { .rqpn = RQPN };
	uint32_t floor_ns, psn = 0x100, i, j;
	size_t len, ulen, unlen;
	struct flowmon *skel;
	struct utsname u;
	int eg, in, fd0;

	skel = flowmon__open_and_load();
	if (!skel) {
		fprintf(stderr, "flowmon.bpf.o: %s (root needed)\n",
			strerror(errno));
		return 1;
	}
	fd0 = empty_prog();
	if (fd0 < 0) {
		fprintf(stderr, "empty program: %s\n", strerror(errno));
		return 1;
	}
	eg = bpf_program__fd(skel->progs.flowmon_egress);
	in = bpf_program__fd(skel->progs.flowmon_ingress);
	bpf_map_update_elem(bpf_map__fd(skel->maps.qps), &qk, &qv, BPF_ANY);
	ak.psn = 0;
	len = build(f, &ak);
	once(in, f, len);		/* creates the flow */

	/* a UDP datagram to port 53: the parser's NOT_ROCE */
	ulen = build(udp, &rq);
	udp[14 + 20 + 2] = 0;
	udp[14 + 20 + 3] = 53;
	un.qpn = 0x999;
	unlen = build(uf, &un);

	for (i = 0; i < ROUNDS; i++, psn++) {
		add(&empty, once(fd0, udp, ulen));
		add(&other, once(eg, udp, ulen));
		rq.psn = psn;
		len = build(f, &rq);
		add(&req, once(eg, f, len));
		ak.psn = psn;
		len = build(f, &ak);
		add(&ack, once(in, f, len));
		add(&unk, once(eg, uf, unlen));
	}
	for (i = 0; i < ROUNDS / COALESCE; i++) {
		rq.ackreq = 0;
		for (j = 0; j < COALESCE; j++, psn++) {
			rq.psn = psn;
			len = build(f, &rq);
			once(eg, f, len);
		}
		ak.psn = psn - 1;
		len = build(f, &ak);
		add(&coal, once(in, f, len));
	}

	uname(&u);
	printf("flowmon per-packet cost, BPF_PROG_TEST_RUN on %s %s\n",
	       u.sysname, u.release);
	printf("one run per packet (repeat = 1), %u packets each (%u for the last); ns\n\n",
	       ROUNDS, ROUNDS / COALESCE);
	printf("  %-42s %8s %8s %10s\n", "", "median", "mean", "median-floor");
	floor_ns = median(&empty);
	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		uint32_t m = median(all[i]);

		printf("  %-42s %8u %8.1f %10d\n", all[i]->name, m,
		       mean(all[i]), (int)m - (int)floor_ns);
	}

	printf("\nthe same packet repeated %u times (no floor to subtract); ns per run\n\n",
	       REPEAT);
	printf("  %-42s %8u\n", "empty TC program",
	       repeated(fd0, udp, ulen, REPEAT));
	printf("  %-42s %8u\n", "non-RoCE (IPv4 UDP to port 53)",
	       repeated(eg, udp, ulen, REPEAT));
	rq.ackreq = 1;
	rq.psn = psn - 1;
	len = build(f, &rq);
	printf("  %-42s %8u\n", "egress request, retransmitted",
	       repeated(eg, f, len, REPEAT));
	ak.psn = psn - 1;
	len = build(f, &ak);
	printf("  %-42s %8u\n", "ingress ACK, duplicate",
	       repeated(in, f, len, REPEAT));
	printf("  %-42s %8u\n", "egress RoCE of no flow (unknown)",
	       repeated(eg, uf, unlen, REPEAT));

	flowmon__destroy(skel);
	return 0;
}
