/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An event-by-event reference model of the DCQCN reaction point, the judge
 * of include/rocecc/dcqcn.h. It is deliberately naive and shares no code
 * with the core (only the parameter table):
 *
 *  - it keeps an explicit queue of timestamped events (alpha ticks and
 *    timer increase events), sorted by time, then by kind (alpha tick
 *    first), and processes them one at a time, rescheduling each periodic
 *    event after it ran. A cut cancels the queued timer event and queues a
 *    new one. Nothing is skipped or batched: an idle second with a 1 us
 *    alpha period is a million ticks.
 *  - the byte counter fires one event per threshold crossed, in a loop.
 *  - alpha is the alpha of the last rise and the count of decaying ticks
 *    since, as the model says; every tick updates both and recomputes the
 *    value, with the power (G/1024)^n written as its recursive definition
 *    (P(1) = G/1024, P(n) = P(n/2)^2, times G/1024 for odd n, each step
 *    rounded down in 2^-32) rather than the core's loop.
 *  - rates are kept in 64-bit integers and checked against the bounds on
 *    every change.
 *
 * The rules are those of the "RP model" comment in dcqcn.h, restated here
 * in the most direct form.
 */
#ifndef _ROCECC_DCQCN_REF_H
#define _ROCECC_DCQCN_REF_H

#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <rocecc/params.h>

enum ref_ev_kind { REF_EV_ALPHA = 0, REF_EV_TIMER = 1 };

struct ref_ev {
	uint64_t t;
	int kind;
};

struct ref_rp {
	uint64_t now;
	uint64_t line;		/* kb/s */
	uint64_t rate, target;	/* kb/s */
	uint64_t alpha;		/* 1/1024, rounded to nearest */
	uint64_t alpha_fine;	/* 2^-26, rounded down */
	uint64_t alpha_base;	/* 2^-26, after the last rise */
	uint64_t alpha_decays;	/* decaying ticks since, saturating */
	int limited, cnp_arrived;
	uint64_t timer_stage, byte_stage, bytes;
	uint64_t last_cut;
	uint64_t cnp_handled, cnp_ignored, cuts, inc_timer, inc_byte;
	struct ref_ev q[4];	/* the event queue, sorted */
	int nq;
};

static inline uint64_t ref_pv(const struct rocecc_params *p, int id)
{
	return p->v[id];
}

/* kb/s divided by rp_rate_divisor, to nearest, non-zero stays >= 1 */
static inline uint64_t ref_div(const struct rocecc_params *p, uint64_t kbps)
{
	uint64_t d = ref_pv(p, ROCECC_PARAM_RP_RATE_DIVISOR), q;

	if (d <= 1 || kbps == 0)
		return kbps;
	q = (uint64_t)((double)kbps / (double)d + 0.5);
	return q ? q : 1;
}

static inline uint64_t ref_ceiling(const struct ref_rp *r,
				   const struct rocecc_params *p)
{
	uint64_t m = ref_pv(p, ROCECC_PARAM_RP_MAX_RATE);

	return ref_div(p, m ? m * 1000 : r->line);
}

static inline uint64_t ref_floor(const struct ref_rp *r,
				 const struct rocecc_params *p)
{
	uint64_t f = ref_div(p, ref_pv(p, ROCECC_PARAM_RP_MIN_RATE) * 1000);
	uint64_t c = ref_ceiling(r, p);

	return f < c ? f : c;
}

static inline void ref_check(const struct ref_rp *r,
			     const struct rocecc_params *p)
{
	if (r->rate < ref_floor(r, p) || r->rate > ref_ceiling(r, p) ||
	    r->target < r->rate || r->target > ref_ceiling(r, p) ||
	    r->alpha > 1023 || r->alpha_fine > (1023 << 16)) {
		fprintf(stderr, "ref: invariant broken: rate %llu target %llu alpha %llu\n",
			(unsigned long long)r->rate,
			(unsigned long long)r->target,
			(unsigned long long)r->alpha);
		abort();
	}
}

static inline void ref_push(struct ref_rp *r, uint64_t t, int kind)
{
	int i = r->nq++;

	/* insertion sort: by time, then alpha before timer */
	while (i > 0 && (r->q[i - 1].t > t ||
			 (r->q[i - 1].t == t && r->q[i - 1].kind > kind))) {
		r->q[i] = r->q[i - 1];
		i--;
	}
	r->q[i].t = t;
	r->q[i].kind = kind;
}

static inline struct ref_ev ref_pop(struct ref_rp *r)
{
	struct ref_ev e = r->q[0];
	int i;

	for (i = 1; i < r->nq; i++)
		r->q[i - 1] = r->q[i];
	r->nq--;
	return e;
}

static inline void ref_cancel(struct ref_rp *r, int kind)
{
	int i, j = 0;

	for (i = 0; i < r->nq; i++)
		if (r->q[i].kind != kind)
			r->q[j++] = r->q[i];
	r->nq = j;
}

/* Time of the queued event of @kind, 0 if none. */
static inline uint64_t ref_next(const struct ref_rp *r, int kind)
{
	int i;

	for (i = 0; i < r->nq; i++)
		if (r->q[i].kind == kind)
			return r->q[i].t;
	return 0;
}

static inline void ref_init(struct ref_rp *r, const struct rocecc_params *p,
			    uint64_t line_kbps)
{
	memset(r, 0, sizeof(*r));
	r->line = line_kbps;
	r->rate = ref_ceiling(r, p);
	r->target = r->rate;
}

/* (g / 1024)^n in 2^-32, n >= 1, recursively; see the header comment. */
static inline uint64_t ref_pow(uint64_t g, uint64_t n)
{
	uint64_t h;

	if (n == 1)
		return g << 22;
	h = ref_pow(g, n / 2);
	h = h * h >> 32;
	return n % 2 ? h * g >> 10 : h;
}

static inline uint64_t ref_g(const struct rocecc_params *p)
{
	uint64_t g = ref_pv(p, ROCECC_PARAM_RP_DCE_TCP_G);

	return g > 1023 ? 1023 : g;
}

/* alpha from the last rise and the decays since, both units */
static inline void ref_alpha_value(struct ref_rp *r,
				   const struct rocecc_params *p)
{
	r->alpha_fine = r->alpha_base;
	if (r->alpha_decays)
		r->alpha_fine = r->alpha_base *
			ref_pow(ref_g(p), r->alpha_decays) >> 32;
	r->alpha = (r->alpha_fine + 32768) / 65536;
	if (r->alpha > 1023)
		r->alpha = 1023;
}

static inline void ref_alpha_tick(struct ref_rp *r,
				  const struct rocecc_params *p)
{
	uint64_t g = ref_g(p);

	if (r->cnp_arrived) {	/* a G/1024 + (1 - G/1024), down, capped */
		r->alpha_base = r->alpha_fine * g / 1024 + (1024 - g) * 65536;
		if (r->alpha_base > 1023 * 65536)
			r->alpha_base = 1023 * 65536;
		r->alpha_decays = 0;
	} else if (r->alpha_decays < 32767) {
		r->alpha_decays++;
	}
	r->cnp_arrived = 0;
	ref_alpha_value(r, p);
}

/* One increase event; @stage is the stage of its source. */
static inline void ref_increase(struct ref_rp *r,
				const struct rocecc_params *p,
				uint64_t *stage)
{
	uint64_t f = ref_pv(p, ROCECC_PARAM_RP_THRESHOLD);
	uint64_t lo, hi;

	if (*stage < 0xffff)
		(*stage)++;
	lo = r->timer_stage < r->byte_stage ? r->timer_stage : r->byte_stage;
	hi = r->timer_stage > r->byte_stage ? r->timer_stage : r->byte_stage;
	if (hi <= f)
		;				/* fast recovery */
	else if (lo > f)
		r->target += ref_div(p, ref_pv(p, ROCECC_PARAM_RP_HAI_RATE) * 1000);
	else
		r->target += ref_div(p, ref_pv(p, ROCECC_PARAM_RP_AI_RATE) * 1000);
	if (r->target > ref_ceiling(r, p))
		r->target = ref_ceiling(r, p);
	r->rate = (r->rate + r->target + 1) / 2;
	ref_check(r, p);
}

static inline void ref_advance(struct ref_rp *r, const struct rocecc_params *p,
			       uint64_t *tp)
{
	uint64_t t = *tp < r->now ? r->now : *tp;
	struct ref_ev e;

	*tp = t;
	r->now = t;
	while (r->nq && r->q[0].t <= t) {
		e = ref_pop(r);
		if (e.kind == REF_EV_ALPHA) {
			ref_alpha_tick(r, p);
			ref_push(r, e.t + 1000 *
				 ref_pv(p, ROCECC_PARAM_RP_DCE_TCP_RTT),
				 REF_EV_ALPHA);
		} else {
			r->inc_timer++;
			ref_increase(r, p, &r->timer_stage);
			ref_push(r, e.t + 1000 *
				 ref_pv(p, ROCECC_PARAM_RP_TIME_RESET),
				 REF_EV_TIMER);
		}
	}
}

static inline void ref_send(struct ref_rp *r, const struct rocecc_params *p,
			    uint64_t t, uint32_t len)
{
	uint64_t thr = 64 * ref_pv(p, ROCECC_PARAM_RP_BYTE_RESET);

	ref_advance(r, p, &t);
	if (!r->limited || !thr)
		return;
	r->bytes += len;
	while (r->bytes >= thr) {
		r->bytes -= thr;
		r->inc_byte++;
		ref_increase(r, p, &r->byte_stage);
	}
}

static inline int ref_cnp(struct ref_rp *r, const struct rocecc_params *p,
			  uint64_t t)
{
	uint64_t red, red2, first;

	ref_advance(r, p, &t);
	if (!r->limited) {
		r->limited = 1;
		r->alpha_base = ref_pv(p, ROCECC_PARAM_RP_INITIAL_ALPHA_VALUE) *
				65536;
		r->alpha_decays = 0;
		ref_alpha_value(r, p);
		first = ref_div(p, ref_pv(p,
				ROCECC_PARAM_RP_RATE_TO_SET_ON_FIRST_CNP) * 1000);
		if (first == 0 || first > ref_ceiling(r, p))
			first = ref_ceiling(r, p);
		if (first < ref_floor(r, p))
			first = ref_floor(r, p);
		r->rate = first;
		r->target = first;
		ref_push(r, t + 1000 * ref_pv(p, ROCECC_PARAM_RP_DCE_TCP_RTT),
			 REF_EV_ALPHA);
	} else if (t - r->last_cut <
		   1000 * ref_pv(p, ROCECC_PARAM_RP_RATE_REDUCE_MONITOR_PERIOD)) {
		r->cnp_ignored++;
		r->cnp_arrived = 1;
		return 0;
	}
	if (ref_pv(p, ROCECC_PARAM_RP_CLAMP_TGT_RATE) || r->byte_stage > 0 ||
	    (ref_pv(p, ROCECC_PARAM_RP_CLAMP_TGT_RATE_ATI) &&
	     r->timer_stage > 0))
		r->target = r->rate;
	red = r->rate * r->alpha_fine >> (ref_pv(p, ROCECC_PARAM_RP_GD) + 16);
	red2 = r->rate * (100 - ref_pv(p, ROCECC_PARAM_RP_MIN_DEC_FAC)) / 100;
	if (red2 < red)
		red = red2;
	if (r->rate - red >= ref_floor(r, p)) {
		if (red)
			r->cuts++;
		r->rate -= red;
	} else {
		if (r->rate > ref_floor(r, p))
			r->cuts++;
		r->rate = ref_floor(r, p);
	}
	r->timer_stage = 0;
	r->byte_stage = 0;
	r->bytes = 0;
	ref_cancel(r, REF_EV_TIMER);
	ref_push(r, t + 1000 * ref_pv(p, ROCECC_PARAM_RP_TIME_RESET),
		 REF_EV_TIMER);
	r->last_cut = t;
	r->cnp_handled++;
	r->cnp_arrived = 1;
	ref_check(r, p);
	return 1;
}

#endif /* _ROCECC_DCQCN_REF_H */
