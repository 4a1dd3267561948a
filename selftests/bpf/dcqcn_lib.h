/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the test and the benchmark of bpf/dcqcn.bpf.c share: the programs
 * loaded with the test hooks (clock set by the caller, CNPs left in the
 * hand-over slot instead of cloned), the netdev "attached" to them, QP map
 * entries, frames (flowmon_lib.h's data frames, with a valid IPv4 header
 * checksum; CNPs from include/rocecc/cnp.h), and runs through
 * BPF_PROG_TEST_RUN with the skb fields the programs read and write.
 *
 * The hand-over slot is per CPU: the process stays on one CPU, so that
 * dcqcn_egress, run after dcqcn_ingress, finds the CNP it left.
 */
#ifndef _DCQCN_LIB_H
#define _DCQCN_LIB_H

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <rocecc/cnp.h>
#include <rocecc/params.h>
#include "dcqcn_bpf.h"
#include "dcqcn.skel.h"
#include "flowmon_lib.h"

/* The netdev the programs are attached to in the runs: lo */
#define DQ_IFINDEX	1

struct dq {
	struct dcqcn *skel;
	int fd_eg, fd_in, fd_devs, fd_qps, fd_flows, fd_stats;
	int ncpus;
	struct dcqcn_dev dev;
};

/* Stay on the CPU we run on now (see the top). 0 or -errno. */
static inline int dq_pin_cpu(void)
{
	cpu_set_t set;
	int cpu = sched_getcpu();

	if (cpu < 0)
		return -errno;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

/*
 * Open and load, CNPs left in the hand-over slot, the clock the test's
 * (@test_clock) or the kernel's, BPF_PROG_TEST_RUN's made-up socket taken
 * as rxe's unless @rxe_only; with @log, the verifier's statistics of
 * each program go to log[0] (egress) and log[1] (ingress). 0 or -errno (libbpf's message logged).
 */
static inline int dq_open(struct dq *q, bool test_clock, bool rxe_only,
			  char (*log)[4096])
{
	int err;

	memset(q, 0, sizeof(*q));
	q->skel = dcqcn__open();
	if (!q->skel)
		return -errno;
	q->skel->rodata->dcqcn_test_clock = test_clock;
	q->skel->rodata->dcqcn_test_no_clone = true;
	q->skel->rodata->dcqcn_test_any_sock = !rxe_only;
	if (log) {
		/* log_level 4: BPF_LOG_STATS, "processed N insns ..." */
		bpf_program__set_log_level(q->skel->progs.dcqcn_egress, 4);
		bpf_program__set_log_buf(q->skel->progs.dcqcn_egress, log[0],
					 sizeof(log[0]));
		bpf_program__set_log_level(q->skel->progs.dcqcn_ingress, 4);
		bpf_program__set_log_buf(q->skel->progs.dcqcn_ingress, log[1],
					 sizeof(log[1]));
	}
	err = dcqcn__load(q->skel);
	if (err) {
		dcqcn__destroy(q->skel);
		q->skel = NULL;
		return err;
	}
	q->fd_eg = bpf_program__fd(q->skel->progs.dcqcn_egress);
	q->fd_in = bpf_program__fd(q->skel->progs.dcqcn_ingress);
	q->fd_devs = bpf_map__fd(q->skel->maps.dp_devs);
	q->fd_qps = bpf_map__fd(q->skel->maps.dp_qps);
	q->fd_flows = bpf_map__fd(q->skel->maps.dp_flows);
	q->fd_stats = bpf_map__fd(q->skel->maps.dp_stats);
	q->ncpus = libbpf_num_possible_cpus();
	return 0;
}

/* The kernel's HZ as the programs see it (0: unknown, they take 100) */
static inline uint32_t dq_hz(const struct dq *q)
{
	uint32_t hz = q->skel->kconfig->CONFIG_HZ;

	return hz ? hz : 100;
}

/* Attach lo with q->dev (written again) and zeroed counters. */
static inline int dq_attach(struct dq *q)
{
	uint32_t k = DQ_IFINDEX;
	size_t sz = sizeof(struct dcqcn_stats) * (size_t)q->ncpus;
	void *zero = calloc(1, sz);
	int err;

	if (!zero)
		return -ENOMEM;
	err = bpf_map_update_elem(q->fd_devs, &k, &q->dev, BPF_ANY);
	if (!err)
		err = bpf_map_update_elem(q->fd_stats, &k, zero, BPF_ANY);
	free(zero);
	return err ? -errno : 0;
}

/* A fresh start: mlx5 profile, 10 Gb/s, pacing on, no flows, no QPs */
static inline int dq_reset(struct dq *q, unsigned int profile)
{
	struct dcqcn_flow_key fk;
	struct dcqcn_qp_key qk;

	while (!bpf_map_get_next_key(q->fd_flows, NULL, &fk))
		bpf_map_delete_elem(q->fd_flows, &fk);
	while (!bpf_map_get_next_key(q->fd_qps, NULL, &qk))
		bpf_map_delete_elem(q->fd_qps, &qk);
	memset(&q->dev, 0, sizeof(q->dev));
	rocecc_params_load(&q->dev.params, profile);
	q->dev.line_rate_kbps = 10000000;
	q->dev.flags = DCQCN_DEV_PACE | DCQCN_DEV_ACKREQ;
	q->dev.budget_pct = ROCECC_PACE_BUDGET_PCT;
	q->dev.default_budget_us = ROCECC_PACE_DEFAULT_BUDGET_US;
	q->dev.max_delay_us = ROCECC_PACE_MAX_DELAY_US;
	q->skel->bss->dcqcn_test_clones = 0;
	return dq_attach(q);
}

/* An IPv4 address as the 16-byte IPv4-mapped form */
static inline void dq_mapped(uint8_t *out, const uint8_t *v4)
{
	memset(out, 0, 16);
	out[10] = 0xff;
	out[11] = 0xff;
	memcpy(out + 12, v4, 4);
}

/* dp_qps[(lo, lqpn)] = (peer, rqpn, timeout if @timeout >= 0) */
static inline int dq_add_qp(struct dq *q, uint32_t lqpn, const uint8_t *peer,
			    int v6, uint32_t rqpn, int timeout)
{
	struct dcqcn_qp_key k = { .ifindex = DQ_IFINDEX, .lqpn = lqpn };
	struct dcqcn_qp v = { .rqpn = rqpn };

	if (v6)
		memcpy(v.raddr, peer, 16);
	else
		dq_mapped(v.raddr, peer);
	if (timeout >= 0) {
		v.timeout = (uint8_t)timeout;
		v.flags = DCQCN_QP_TIMEOUT;
	}
	return bpf_map_update_elem(q->fd_qps, &k, &v, BPF_ANY) ? -errno : 0;
}

/* Fill in the IPv4 header checksum of a frame build() made */
static inline void dq_ip_csum(uint8_t *f)
{
	uint16_t c;

	if (f[12] != 0x08 || f[13] != 0x00)
		return;
	f[24] = 0;
	f[25] = 0;
	c = rocecc_ipv4_csum(f + 14, 20);
	f[24] = (uint8_t)(c >> 8);
	f[25] = (uint8_t)c;
}

/* A data frame: build() with a valid IPv4 checksum */
static inline size_t dq_frame(uint8_t *f, const struct pkt *k)
{
	size_t n = build(f, k);

	dq_ip_csum(f);
	return n;
}

/*
 * A CNP frame from @src to @dst for QP @qpn (cnp.h's packet behind an
 * Ethernet header), or 0.
 */
static inline size_t dq_cnp_frame(uint8_t *f, int v6, const uint8_t *src,
				  const uint8_t *dst, uint32_t qpn)
{
	struct rocecc_cnp_params cp;
	int n;

	memset(&cp, 0, sizeof(cp));
	if (v6) {
		memcpy(cp.saddr, src, 16);
		memcpy(cp.daddr, dst, 16);
	} else {
		dq_mapped(cp.saddr, src);
		dq_mapped(cp.daddr, dst);
	}
	cp.family = v6 ? ROCECC_AF_INET6 : ROCECC_AF_INET;
	cp.dest_qp = qpn;
	cp.sport = 0xc0de;
	cp.dscp = ROCECC_CNP_DEFAULT_DSCP;
	cp.ttl = 64;
	memcpy(f, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01", 12);
	f[12] = v6 ? 0x86 : 0x08;
	f[13] = v6 ? 0xdd : 0x00;
	n = rocecc_cnp_build(&cp, f + 14, FRAME_MAX - 14);
	return n > 0 ? 14 + (size_t)n : 0;
}

/* One run's result */
struct dq_run {
	int retval;			/* TC_ACT_* */
	uint32_t len;
	uint8_t out[FRAME_MAX];
	struct __sk_buff ctx;		/* as the program left it */
};

/* Run @f through @fd with skb->mark @mark at time @t. 0 or -errno. */
static inline int dq_run(struct dq *q, int fd, const uint8_t *f, size_t len,
			 uint32_t mark, uint64_t t, struct dq_run *r)
{
	struct __sk_buff ctx = { .ifindex = DQ_IFINDEX, .mark = mark };
	LIBBPF_OPTS(bpf_test_run_opts, o,
		.data_in = f,
		.data_size_in = (uint32_t)len,
		.data_out = r->out,
		.data_size_out = sizeof(r->out),
		.ctx_in = &ctx,
		.ctx_size_in = sizeof(ctx),
		.ctx_out = &r->ctx,
		.ctx_size_out = sizeof(r->ctx),
		.repeat = 1,
	);

	q->skel->bss->dcqcn_test_now_ns = t;
	memset(&r->ctx, 0, sizeof(r->ctx));
	if (bpf_prog_test_run_opts(fd, &o))
		return -errno;
	r->retval = (int)o.retval;
	r->len = o.data_size_out;
	return 0;
}

/* Counter @id of lo, summed over the CPUs */
static inline uint64_t dq_stat(struct dq *q, unsigned int id)
{
	struct dcqcn_stats v[q->ncpus];
	uint32_t k = DQ_IFINDEX;
	uint64_t sum = 0;
	int i;

	if (id >= __DCQCN_STAT_MAX ||
	    bpf_map_lookup_elem(q->fd_stats, &k, v))
		return ~0ULL;
	for (i = 0; i < q->ncpus; i++)
		sum += v[i].v[id];
	return sum;
}

/* The flow (peer, rqpn) on lo, read under its lock. 0 or -errno. */
static inline int dq_flow(struct dq *q, const uint8_t *peer, int v6,
			  uint32_t rqpn, struct dcqcn_flow *f)
{
	struct dcqcn_flow_key k = { .rqpn = rqpn, .ifindex = DQ_IFINDEX };

	if (v6)
		memcpy(k.raddr, peer, 16);
	else
		dq_mapped(k.raddr, peer);
	return bpf_map_lookup_elem_flags(q->fd_flows, &k, f, BPF_F_LOCK) ?
	       -errno : 0;
}

#endif /* _DCQCN_LIB_H */
