/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dcqcn_sim: a packet-level, discrete-event, single-bottleneck simulator
 * that drives the shared DCQCN core (include/rocecc/dcqcn.h) unchanged.
 * See bench/README.md for the model, the metrics and how they compare with
 * the DCQCN paper and the CoNEXT'16 fluid model.
 */
#ifndef _DCQCN_SIM_H
#define _DCQCN_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rocecc/dcqcn.h>
#include <rocecc/params.h>

#include "fluid.h"

#define SIM_FLOWS_MAX	256

/* --- event queue: a binary min-heap ordered by (time, insertion seq) ---- */

enum sim_ev_type {
	EV_SEND,	/* a flow's next packet leaves its sender (and reaches
			 * the switch: see README, "Topology") */
	EV_CE,		/* a CE-marked packet reaches the receiver (NP) */
	EV_NP_POLL,	/* the NP's CNP window ends with a CNP pending */
	EV_CNP,		/* a CNP reaches the sender (RP) */
	EV_WAKE,	/* the RP's timer increase event: re-evaluate pacing */
	EV_TICK,	/* sampling clock (queue, rates, CSV) */
	EV_DEQ,		/* a packet starts to leave the switch (egress
			 * marking; gen: when its last bit leaves) */
};

struct sim_ev {
	uint64_t t;	/* ns */
	uint64_t seq;	/* insertion order: ties at equal t go FIFO */
	uint64_t gen;	/* EV_SEND: the flow's generation when scheduled */
	uint32_t type;
	uint32_t flow;
};

struct sim_heap {
	struct sim_ev *a;
	size_t n, cap;
	uint64_t seq;
};

/* --- configuration -------------------------------------------------------- */

struct sim_cfg {
	char name[64];
	unsigned int profile;		/* ROCECC_PROFILE_* (for reports) */
	struct rocecc_params p;		/* profile + overrides */
	unsigned int nflows;		/* 1..SIM_FLOWS_MAX */
	uint32_t link_mbps;		/* bottleneck = NIC line rate */
	uint32_t pkt_bytes;		/* every packet, on the wire */
	uint64_t delay_ns;		/* feedback loop delay tau* (no queueing) */
	uint64_t kmin_bytes, kmax_bytes;	/* RED/ECN thresholds */
	double pmax;			/* marking probability at Kmax */
	bool mark_dequeue;		/* RED on the queue at departure */
	uint64_t pfc_bytes;		/* PFC XOFF threshold (0: no PFC) */
	uint64_t duration_ns;		/* simulated time */
	double steady_frac;		/* steady window = last fraction */
	uint64_t win_ns;		/* throughput window (0: automatic) */
	double conv_jain;		/* a window is fair at Jain >= this */
	uint64_t qsample_ns;		/* queue sampling period */
	uint64_t jitter_ns;		/* flow start times in [0, jitter) */
	uint64_t seed;
	const char *csv;		/* rate/queue time series (NULL: none) */
	uint64_t csv_ns;		/* its period */
};

/* --- results ---------------------------------------------------------------- */

struct sim_res {
	char name[64];
	unsigned int profile, nflows;
	uint32_t link_mbps, pkt_bytes;
	uint64_t delay_ns, kmin_bytes, kmax_bytes, pfc_bytes;
	double pmax;
	uint64_t sim_ns, steady_ns, win_ns, seed;
	uint64_t events, packets, marked, cnp_sent, cnp_handled, cnp_ignored;
	uint64_t pfc_pauses, pfc_pauses_steady;
	double pfc_paused_frac;		/* paused flow-time / (N * sim time) */
	double pfc_paused_steady_frac;	/* the same in the steady window */
	/* convergence: start of the first window from which every window
	 * to the end is fair (Jain >= conv_jain, no PAUSE; -1: never, or
	 * too late) */
	int64_t conv_ns;
	double conv_jain, fair_frac;	/* steady windows that are fair */
	double jain, util, mark_frac;
	double thr_min, thr_max;	/* steady throughput / (C/N) */
	double q_p1, q_p50, q_p99, q_max, q_min, q_mean, q_std, q_cv;
	double q_period_ns, q_acf;	/* queue oscillation: period and the
					 * autocorrelation there (0: none) */
	double q_max_all;		/* over the whole run */
	double rate_cv, alpha_mean;	/* steady, per flow, averaged */
	struct fp_out pred;
	double wall_s;			/* filled by the suite only */
};

/* --- API (dcqcn_sim.c) -------------------------------------------------------- */

double red_prob(uint64_t q, uint64_t kmin, uint64_t kmax, double pmax);
void heap_init(struct sim_heap *h);
void heap_free(struct sim_heap *h);
void heap_push(struct sim_heap *h, uint64_t t, uint32_t type, uint32_t flow,
	       uint64_t gen);
bool heap_pop(struct sim_heap *h, struct sim_ev *ev);
void fp_from_cfg(const struct sim_cfg *c, struct fp_in *in);
void sim_cfg_default(struct sim_cfg *c, unsigned int profile);
int sim_run(const struct sim_cfg *c, struct sim_res *r);
void res_json(FILE *f, const struct sim_res *r, const char *indent);
void queue_acf_peak(const uint32_t *q, size_t n, size_t bin, double *lag,
		    double *peak);

#endif /* _DCQCN_SIM_H */
