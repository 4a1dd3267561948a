/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * rocecc: the DCQCN algorithm core, written once for the kernel module, the
 * userspace tests and the simulator.
 *
 * Two per-flow state machines:
 *
 *  RP (reaction point, the sender): struct rocecc_rp. A CNP cuts the flow's
 *     rate; a timer and a byte counter raise it again.
 *  NP (notification point, the receiver): struct rocecc_np. It decides when
 *     a CE-marked packet is answered with a CNP.
 *
 * The semantics are the NVIDIA firmware model (docs/dcqcn.md §2.3), in
 * integers: rates in kb/s (__u32, so at most 4 Tb/s), alpha in 1/1024 at
 * the interface (parameters, rp->alpha) and in 2^-26 inside (see "Alpha
 * precision"), times in nanoseconds (__u64) supplied by the caller.
 * Nothing here reads a clock, allocates, locks or divides on the common
 * per-packet path; the caller serialises calls on one flow.
 *
 * Parameters come from struct rocecc_params (params.h) on every call, with
 * the units of include/uapi/linux/rocecc.h. They are expected to be valid
 * (rocecc_params_validate()); an invalid value never makes a call loop
 * forever or divide by zero, but its effect is otherwise unspecified. After
 * changing parameters or the line rate, call rocecc_rp_reclamp().
 *
 * RP model, event by event (paper symbols in brackets):
 *
 *  - Start. A flow starts unlimited at its ceiling: rate = target = ceiling,
 *    where the ceiling is rp_max_rate when non-zero, else the line rate given
 *    at init. The floor is rp_min_rate (if it exceeds the ceiling, the
 *    ceiling wins). The rate never leaves [floor, ceiling].
 *    Every rate (ceiling, floor, R_AI, R_HAI, the first-CNP rate) is divided
 *    by rp_rate_divisor (rocecc_rp_kbps()); nothing else is.
 *
 *  - CNP at time t. First the state is advanced to t (see "Lazy evaluation").
 *    If the flow is not yet limited, it becomes limited for good: alpha =
 *    rp_initial_alpha_value / 1024, rate = target = rp_rate_to_set_on_first_cnp
 *    (0 = ceiling; clamped to [floor, ceiling]), and the alpha clock starts
 *    (first tick at t + rp_dce_tcp_rtt). The cut below then applies to this
 *    first CNP too, so one CNP from line rate with the mlx5 defaults leaves
 *    R_C * (1 - alpha / 2).
 *    The cut: if the previous cut was less than
 *    rp_rate_reduce_monitor_period ago, the CNP is ignored (cnp_ignored).
 *    Otherwise (cnp_handled):
 *      target clamp: if rp_clamp_tgt_rate, or byte_stage > 0, or
 *        (rp_clamp_tgt_rate_ati and timer_stage > 0): R_T = R_C;
 *      reduction = min(R_C * alpha_fine >> (rp_gd + 16) (alpha_fine is
 *                      alpha in 2^-26: R_C * alpha / 2 for rp_gd 11),
 *                      R_C * (100 - rp_min_dec_fac) / 100);
 *      R_C = max(R_C - reduction, floor);
 *      both stages and the byte counter go to 0, the increase timer
 *      restarts (next timer event at t + rp_time_reset), last cut = t.
 *    Ignored or handled, the CNP sets the "CNP arrived" flag of the alpha
 *    clock. (mlx5 hardware batches cuts at the end of the monitor period;
 *    this model cuts at once and ignores CNPs inside the period, so that a
 *    flow reacts within one CNP and the kernel needs no per-flow timer.)
 *
 *  - Alpha clock [K, tau']: ticks every rp_dce_tcp_rtt from the first CNP,
 *    forever. With G = rp_dce_tcp_g (paper: g = (1024 - G) / 1024):
 *    a tick with the flag set (a CNP arrived since the previous tick)
 *    raises alpha to alpha * G / 1024 + (1024 - G) / 1024, at most
 *    1023/1024; any other tick multiplies alpha by G / 1024. The flag is
 *    cleared. The decay is exact: n ticks in a row without a CNP multiply
 *    alpha by (G / 1024)^n, and the result is rounded (down, to 2^-26)
 *    only where it is used: at a rise, at a cut, and in rp->alpha. So the
 *    state is the alpha of the last rise (alpha_base, 2^-26) and the
 *    number of decaying ticks since (alpha_decays, saturating at
 *    ROCECC_RP_ALPHA_DECAYS_MAX, where (G / 1024)^n is 0 at 2^-32 for
 *    every G); rp->alpha_fine (2^-26, rounded down) and rp->alpha (1/1024,
 *    rounded to nearest) are derived from them. (G / 1024)^n is computed
 *    in 2^-32 by binary powering, at most ROCECC_RP_ALPHA_POW_BITS
 *    squarings, each rounded down (rocecc_rp_alpha_pow()); over every G
 *    and n its error is at most 89 units of 2^-32, which is at most 3
 *    units of alpha_fine.
 *
 * Alpha precision. alpha is what a cut takes away (R_C * alpha / 2), and
 *    at equilibrium it is about the share of alpha ticks that carry a CNP.
 *    With mlx5's 1 us tick that share is small: 64 flows at 25 Gb/s send 49
 *    packets per ms each, and at the fluid model's fixed point (p* = 0.057)
 *    the equilibrium alpha is 0.0028 = 2.9/1024. Its decay per tick is 5/1024
 *    of it, 1.4e-5 or 0.014 units of 1/1024. The firmware formula in whole
 *    1/1024 units (alpha = G * alpha >> 10) removes at least a whole unit per
 *    tick below 205/1024, 70 times the exact decay at 2.9/1024, so alpha
 *    could stay above 0 only if more than one tick in 6 carried a CNP (5
 *    units up per CNP tick, 1 down per other tick). It collapsed to 0 at
 *    scale, cuts became tiny and the queue sat at the PFC threshold
 *    (bench/README.md, the grid before this change). A tick-by-tick decay in
 *    finer units still rounds once per tick: in 2^-20 it would be 14.3 units
 *    rounded to 14 or 15 at alpha = 0.0028, up to 7 % off, and in 2^-26 the
 *    lazy evaluation would have to walk up to 19000 decaying ticks (G = 1023)
 *    one by one. Deferring the rounding to the uses makes the decay exact
 *    whatever the number of ticks and turns the walk into one power (at most
 *    15 squarings). What is left is one rounding of at most 2^-26 (1.5e-8,
 *    plus the power's 3 units) per rise, against a rise of g * (1 - alpha) =
 *    4.9e-3 per CNP tick: below 1e-5 of it, and about 1e-5 of the smallest
 *    equilibrium alpha the benchmarks meet (1.2e-3, mlx5 at 100 and 400
 *    Gb/s). Fewer bits would do for these (16 bits: 0.3 % of a rise); 26 bits
 *    keep every product in 64 bits with 6 bits to spare (R_C * alpha_fine <
 *    2^58, alpha_base * (G/1024)^n in 2^-32 < 2^58) and leave the power's
 *    error (3 units) below 2e-7 of alpha's range. rp->alpha, the parameters
 *    and the uapi keep 1/1024. The rise is the published firmware formula in
 *    these units, rounded down; in whole 1/1024 units that formula could not
 *    climb past 820/1024 (its rounding loss equals the gain there), in 2^-26
 *    it reaches the 1023/1024 cap.
 *
 *  - Increase events, only while limited, from two sources:
 *    the timer [T] fires every rp_time_reset after the last cut, and the
 *    byte counter [B] fires every rp_byte_reset * 64 bytes sent since the
 *    last cut (rp_byte_reset = 0: never, and bytes are not counted).
 *    An event increments its own stage (timer_stage or byte_stage,
 *    saturating at ROCECC_RP_STAGE_MAX), then with lo/hi the smaller/larger
 *    of the two stages and F = rp_threshold:
 *      hi <= F: fast recovery, R_T unchanged;
 *      lo >  F: hyper increase, R_T += rp_hai_rate (a constant step as in
 *               mlx5 firmware, not i * R_HAI as in the paper's simulator,
 *               which also halves T and B in this phase; we do not);
 *      else:    additive increase, R_T += rp_ai_rate;
 *    R_T is capped at the ceiling, then R_C = (R_C + R_T + 1) / 2.
 *    The average rounds up: rounding down would leave R_C one kb/s below
 *    R_T forever once the gap is 1, so a flow would never get back to the
 *    ceiling; rounding up closes any gap in at most 32 events.
 *    A flow whose rate is back at the ceiling stays "limited" (it keeps
 *    counting and its alpha clock keeps running); only its pacing is
 *    then the line rate. This keeps the model simple.
 *
 *  - A sent packet of L bytes at time t: advance to t, then (if limited and
 *    the byte counter is on) add L to the byte counter and fire as many
 *    byte events as the counter covers, keeping the remainder.
 *
 * Lazy evaluation. There are no per-flow timers: every entry point
 * (rocecc_rp_on_send, rocecc_rp_on_cnp, rocecc_rp_advance) first processes,
 * in time order, every alpha tick and timer event due at or before t, then
 * the event itself. Events due exactly at t come before it (a timer event
 * at t raises the rate before a CNP at t cuts it). Ticks and timer events
 * at the same instant are ordered alpha tick first; the order cannot change
 * the result, because ticks touch only alpha and the flag while timer
 * events touch only the rates and stages. Reading alpha (rp->alpha) never
 * changes the state, so an extra rocecc_rp_advance() changes nothing. A
 * time earlier than the latest one seen is taken as the latest one (time
 * never runs backwards).
 * The state after any sequence of calls equals, bit for bit, the state of
 * an event-by-event model (selftests/unit/core/dcqcn_ref.h checks this).
 *
 * Bounded work. After a long idle period thousands of events may be due;
 * they are skipped arithmetically where the outcome is known:
 *  - alpha ticks: only the first due tick can carry the flag; the others
 *    only add to alpha_decays, all at once. Then one power refreshes
 *    alpha_fine.
 *  - increase events: the gap D = R_T - R_C follows D' = (D + d) / 2
 *    (rounded down) for a step d (0, R_AI or R_HAI) while R_T is below the
 *    ceiling, and reaches its fixed point (D = d or D = d - 1, where both
 *    rates grow by exactly d per event) within 32 events. From there,
 *    k events are applied at once (R_T += k * d, R_C += k * d) up to the
 *    next phase change (stage passes F) or the last event before R_T would
 *    pass the ceiling. At the ceiling the gap halves to 0 within 32
 *    events, after which events only move the stage counter.
 * Worst case of one call, in loop iterations (ROCECC_RP_ITER):
 *  - alpha: one power, ROCECC_RP_ALPHA_POW_BITS iterations
 *    (ROCECC_RP_ALPHA_ITER_MAX);
 *  - one increase batch (the timer, then for a sent packet the byte
 *    counter): the other stage is fixed during a batch, so a batch sees at
 *    most two phases, fast recovery then additive (other <= F) or additive
 *    then hyper (other > F). Per phase at most 32 single events bring the
 *    gap (< 2^32) to its fixed point and 1 iteration jumps, fast recovery
 *    has at most F <= 31 events anyway; at the ceiling at most 32 events
 *    close the gap and 1 iteration skips the rest: 33 + 33 + 33 = 99
 *    (ROCECC_RP_INC_ITER_MAX);
 *  so at most 15 + 2 * 99 = 213 per call (ROCECC_RP_ITER_MAX).
 * The test suite measures the maximum over its traces.
 *
 * Divisions happen only when two or more periods are due at once (so at
 * most once per alpha or timer period of wall time; with mlx5's 1 us
 * alpha period that is most calls of a flow slower than a packet per us:
 * two 64-by-32 divisions), for a jump over
 * several increase events (a 32-bit division), on a cut, on a rate change
 * (the pacing multiplier) and for a packet that covers the byte threshold
 * twice or more. The common per-packet call, with nothing or one event
 * due, divides only if the rate changed.
 */
#ifndef _ROCECC_DCQCN_H
#define _ROCECC_DCQCN_H

#include <rocecc/compat.h>
#include <rocecc/params.h>

/* Stage counters saturate here (well above any rp_threshold). */
#define ROCECC_RP_STAGE_MAX	0xffffU

/* Largest rate in kb/s (ROCECC_RATE_MAX_MBPS * 1000, fits a __u32). */
#define ROCECC_RP_RATE_MAX_KBPS	(ROCECC_RATE_MAX_MBPS * 1000U)

/*
 * Pacing: delay_ns(L) = L * 8e6 / rate_kbps
 *		      = (L * pace_mult + 2^(SHIFT - 1)) >> SHIFT,
 * pace_mult = (8e6 << SHIFT) / rate_kbps. With SHIFT 24 pace_mult is at
 * most 1.35e14 (at 1 kb/s, the lowest rate rp_rate_divisor allows), so L
 * may be up to 2^17 bytes without overflow (a GSO skb is at most 64 KB),
 * and at least 33554 (at 4 Tb/s), so the truncation of pace_mult costs less
 * than 3e-5 relative error. The result is rounded to the nearest ns.
 */
#define ROCECC_RP_PACE_SHIFT	24
#define ROCECC_RP_PACE_NUM	(8000000ULL << ROCECC_RP_PACE_SHIFT)
#define ROCECC_RP_PACE_LEN_MAX	131072U		/* 2^17 */

/*
 * Alpha inside: 2^-26 units (SHIFT), at most 1023/1024 (CAP, the
 * 1/1024 interface's 1023); decaying ticks counted up to DECAYS_MAX, where
 * (G / 1024)^n is 0 in 2^-32 for every G <= 1023 (from n = 21995 on for
 * G = 1023), in a power of at most POW_BITS squarings. See "Alpha
 * precision".
 */
#define ROCECC_RP_ALPHA_SHIFT		26
#define ROCECC_RP_ALPHA_UNIT_SHIFT	(ROCECC_RP_ALPHA_SHIFT - 10)
#define ROCECC_RP_ALPHA_CAP		(1023U << ROCECC_RP_ALPHA_UNIT_SHIFT)
#define ROCECC_RP_ALPHA_POW_BITS	15
#define ROCECC_RP_ALPHA_DECAYS_MAX	((1U << ROCECC_RP_ALPHA_POW_BITS) - 1)

/* Loop iterations, see "Bounded work" above. */
#define ROCECC_RP_ALPHA_ITER_MAX	ROCECC_RP_ALPHA_POW_BITS
#define ROCECC_RP_INC_ITER_MAX		99
#define ROCECC_RP_ITER_MAX		(ROCECC_RP_ALPHA_ITER_MAX + \
					 2 * ROCECC_RP_INC_ITER_MAX)

/* Hook for the test suite to count loop iterations; empty otherwise. */
#ifndef ROCECC_RP_ITER
#define ROCECC_RP_ITER()	((void)0)
#endif

/*
 * The increase loop of the RP is written as a step, long fn(__u32 i, void
 * *ctx) returning 0 to go on and 1 to stop, run by ROCECC_LOOP(max, fn,
 * ctx) at most @max times: a for loop here, bpf_loop() in a BPF program
 * (which defines ROCECC_LOOP before including this file), whose verifier
 * then checks the step once instead of every iteration of every path.
 */
#ifndef ROCECC_LOOP
#define ROCECC_LOOP(max, fn, ctx) do {					\
	__u32 __i;							\
									\
	for (__i = 0; __i < (max); __i++)				\
		if ((fn)(__i, (ctx)))					\
			break;						\
} while (0)
#endif

/* Per-flow reaction point state. Times in ns, rates in kb/s. */
struct rocecc_rp {
	__u64 now;		/* latest time seen */
	__u64 last_cut;		/* time of the last cut (valid if limited) */
	__u64 next_alpha;	/* next alpha tick [K] (valid if limited) */
	__u64 next_timer;	/* next timer increase event [T] (if limited) */
	__u64 bytes;		/* bytes sent since the last byte event [BC] */
	__u64 pace_mult;	/* (8e6 << PACE_SHIFT) / rate, see above */
	__u64 cnp_handled;	/* CNPs that cut (mlx5 rp_cnp_handled) */
	__u64 cnp_ignored;	/* CNPs inside the monitor period */
	__u64 cuts;		/* handled CNPs that lowered R_C */
	__u64 inc_timer;	/* timer increase events */
	__u64 inc_byte;		/* byte counter increase events */
	__u32 rate;		/* current rate [R_C] */
	__u32 target;		/* target rate [R_T], never below R_C */
	__u32 line_rate;	/* device line rate given at init */
	/* [alpha] in 1/1024, 0..1023, to nearest from alpha_fine (derived) */
	__u32 alpha;
	__u32 alpha_fine;	/* [alpha] in 2^-26, rounded down (derived) */
	__u32 alpha_base;	/* alpha after the last rise, 2^-26 */
	__u32 alpha_decays;	/* decaying ticks since, <= DECAYS_MAX */
	__u32 timer_stage;	/* timer events since the last cut [T count] */
	__u32 byte_stage;	/* byte events since the last cut [BC count] */
	__u8 limited;		/* has seen its first CNP */
	__u8 cnp_arrived;	/* a CNP arrived since the last alpha tick */
};

/*
 * A rate parameter in Mb/s as the RP's kb/s, divided by rp_rate_divisor
 * (0 is taken as 1) and rounded to the nearest kb/s; a non-zero rate stays
 * at least 1 kb/s, so a divided R_AI never becomes "no increase".
 */
static inline __u32 rocecc_rp_kbps(const struct rocecc_params *p, __u32 mbps)
{
	__u32 div = p->v[ROCECC_PARAM_RP_RATE_DIVISOR];
	__u64 k;

	if (div <= 1)
		return mbps * 1000U;
	k = rocecc_div_u64((__u64)mbps * 1000U + div / 2, div);
	return k || !mbps ? (__u32)k : 1;
}

/*
 * Rate ceiling in kb/s: rp_max_rate if set, else the line rate, both
 * divided by rp_rate_divisor.
 */
static inline __u32 rocecc_rp_ceiling(const struct rocecc_rp *rp,
				      const struct rocecc_params *p)
{
	__u32 mbps = p->v[ROCECC_PARAM_RP_MAX_RATE];
	__u32 div = p->v[ROCECC_PARAM_RP_RATE_DIVISOR];
	__u32 k;

	if (mbps && mbps <= ROCECC_RATE_MAX_MBPS)
		return rocecc_rp_kbps(p, mbps);
	if (div <= 1)
		return rp->line_rate;
	k = (__u32)rocecc_div_u64((__u64)rp->line_rate + div / 2, div);
	return k ? k : 1;
}

/*
 * Rate floor in kb/s: rp_min_rate (at least 1 Mb/s) divided by
 * rp_rate_divisor, at most the ceiling.
 */
static inline __u32 rocecc_rp_floor(const struct rocecc_rp *rp,
				    const struct rocecc_params *p)
{
	__u32 mbps = p->v[ROCECC_PARAM_RP_MIN_RATE];
	__u32 top = rocecc_rp_ceiling(rp, p);
	__u32 k;

	if (mbps < 1)
		mbps = 1;
	if (mbps > ROCECC_RATE_MAX_MBPS)
		return top;
	k = rocecc_rp_kbps(p, mbps);
	return k < top ? k : top;
}

/* A period parameter in us, as ns; 0 (invalid) is taken as 1 us. */
static inline __u64 rocecc_rp_period_ns(const struct rocecc_params *p,
					unsigned int id)
{
	__u32 us = p->v[id];

	return (__u64)(us ? us : 1) * 1000U;
}

/*
 * How many events of the period parameter @id (us) are due at or before t,
 * given that the first is due at t - @span: floor(span / period) + 1.
 * One due event needs no division; more take two 64-by-32 divisions
 * (floor(floor(x / a) / b) = floor(x / (a * b))).
 */
static inline __u64 rocecc_rp_due(__u64 span, const struct rocecc_params *p,
				  unsigned int id)
{
	__u32 us = p->v[id] ? p->v[id] : 1;

	if (span < (__u64)us * 1000U)
		return 1;
	return rocecc_div_u64(rocecc_div_u64(span, 1000U), us) + 1;
}

/* Recompute the pacing multiplier (on a rate change only). */
static inline void rocecc_rp_set_pace(struct rocecc_rp *rp)
{
	rp->pace_mult = rocecc_div_u64(ROCECC_RP_PACE_NUM,
				       rp->rate ? rp->rate : 1);
}

/*
 * Departure delay in ns of a packet of @len bytes (at most
 * ROCECC_RP_PACE_LEN_MAX) at the current rate: one multiply, one shift.
 */
static inline __u64 rocecc_rp_delay_ns(const struct rocecc_rp *rp, __u32 len)
{
	return ((__u64)len * rp->pace_mult +
		(1ULL << (ROCECC_RP_PACE_SHIFT - 1))) >> ROCECC_RP_PACE_SHIFT;
}

/*
 * Start a flow: unlimited, at its ceiling. @line_rate_kbps is the device's
 * line rate in kb/s; 0 (unknown) means ROCECC_RP_RATE_MAX_KBPS, and values
 * below 1 Mb/s are raised to 1 Mb/s.
 */
static inline void rocecc_rp_init(struct rocecc_rp *rp,
				  const struct rocecc_params *p,
				  __u32 line_rate_kbps)
{
	if (!line_rate_kbps || line_rate_kbps > ROCECC_RP_RATE_MAX_KBPS)
		line_rate_kbps = ROCECC_RP_RATE_MAX_KBPS;
	else if (line_rate_kbps < 1000U)
		line_rate_kbps = 1000U;
	*rp = (struct rocecc_rp){ .line_rate = line_rate_kbps };
	rp->rate = rocecc_rp_ceiling(rp, p);
	rp->target = rp->rate;
	rocecc_rp_set_pace(rp);
}

/* rp_dce_tcp_g, at most 1023 (the decay factor G / 1024 stays below 1). */
static inline __u32 rocecc_rp_alpha_g(const struct rocecc_params *p)
{
	__u32 g = p->v[ROCECC_PARAM_RP_DCE_TCP_G];

	return g < 1023 ? g : 1023;
}

/*
 * (@g / 1024)^@n in 2^-32, for 1 <= n <= ROCECC_RP_ALPHA_DECAYS_MAX and
 * g <= 1023: binary powering from the top bit of n down, every squaring
 * and every multiplication by g / 1024 rounded down. The value stays below
 * 2^32, so every product fits in 64 bits. ROCECC_RP_ALPHA_POW_BITS
 * iterations, no division.
 */
static inline __u64 rocecc_rp_alpha_pow(__u32 g, __u32 n)
{
	__u64 x = 0;
	bool on = false;
	int i;

	for (i = ROCECC_RP_ALPHA_POW_BITS - 1; i >= 0; i--) {
		ROCECC_RP_ITER();
		if (on)
			x = (x * x) >> 32;
		if (!((n >> i) & 1))
			continue;
		x = on ? (x * g) >> 10 : (__u64)g << 22;
		on = true;
	}
	return x;
}

/* Derive alpha_fine and alpha (1/1024) from alpha_base and alpha_decays. */
static inline void rocecc_rp_alpha_refresh(struct rocecc_rp *rp,
					   const struct rocecc_params *p)
{
	__u64 a = rp->alpha_base;

	if (rp->alpha_decays && a)
		a = (a * rocecc_rp_alpha_pow(rocecc_rp_alpha_g(p),
					     rp->alpha_decays)) >> 32;
	rp->alpha_fine = (__u32)a;
	a = (a + (1U << (ROCECC_RP_ALPHA_UNIT_SHIFT - 1))) >>
		ROCECC_RP_ALPHA_UNIT_SHIFT;
	rp->alpha = a < 1023 ? (__u32)a : 1023;
}

/*
 * The alpha ticks due at or before @t: the first one rises if a CNP arrived
 * since the previous tick, every other one decays (see "Alpha clock").
 */
static inline void rocecc_rp_alpha_ticks(struct rocecc_rp *rp,
					 const struct rocecc_params *p,
					 __u64 t)
{
	__u64 n, a;
	__u32 g;

	if (rp->next_alpha > t)
		return;
	n = rocecc_rp_due(t - rp->next_alpha, p, ROCECC_PARAM_RP_DCE_TCP_RTT);
	rp->next_alpha += n *
		rocecc_rp_period_ns(p, ROCECC_PARAM_RP_DCE_TCP_RTT);
	if (rp->cnp_arrived) {
		/* alpha_fine is current (last tick or first CNP) */
		g = rocecc_rp_alpha_g(p);
		a = (((__u64)rp->alpha_fine * g) >> 10) +
			((__u64)(1024 - g) << ROCECC_RP_ALPHA_UNIT_SHIFT);
		rp->alpha_base = a < ROCECC_RP_ALPHA_CAP ? (__u32)a :
			ROCECC_RP_ALPHA_CAP;
		rp->alpha_decays = 0;
		rp->cnp_arrived = 0;
		n--;
	}
	if (n >= ROCECC_RP_ALPHA_DECAYS_MAX - rp->alpha_decays)
		rp->alpha_decays = ROCECC_RP_ALPHA_DECAYS_MAX;
	else
		rp->alpha_decays += (__u32)n;
	rocecc_rp_alpha_refresh(rp, p);
}

/* Add @k to a stage counter, saturating at ROCECC_RP_STAGE_MAX. */
static inline void rocecc_rp_stage_add(__u32 *stage, __u64 k)
{
	if (k >= ROCECC_RP_STAGE_MAX - *stage)
		*stage = ROCECC_RP_STAGE_MAX;
	else
		*stage += (__u32)k;
}

/* The state of one rocecc_rp_increase() batch, for its loop steps. */
struct rocecc_rp_inc {
	struct rocecc_rp *rp;
	const struct rocecc_params *p;
	__u32 *stage;		/* the source's stage counter */
	__u64 n;		/* events still to apply */
	__u32 other;		/* the other source's stage */
	__u32 f;		/* rp_threshold */
	__u32 top;		/* the ceiling */
};

/*
 * One iteration of rocecc_rp_increase(): one event, or a jump over many
 * (see "Bounded work"). A ROCECC_LOOP() step: 0 to go on, 1 when done.
 */
static inline long rocecc_rp_increase_step(__u32 i, void *data)
{
	struct rocecc_rp_inc *c = data;
	struct rocecc_rp *rp = c->rp;
	const struct rocecc_params *p = c->p;
	__u32 *stage = c->stage;
	__u32 other = c->other, f = c->f, top = c->top;
	__u32 s1, hi, lo, d, room;
	__u64 run, k, gap, tgt;

	(void)i;
	if (!c->n)
		return 1;
	ROCECC_RP_ITER();
	if (rp->rate == top && rp->target == top) {
		/* Back at the ceiling: only the stage moves. */
		rocecc_rp_stage_add(stage, c->n);
		c->n = 0;
		return 1;
	}
	/* The phase of the next event and how long it lasts. */
	s1 = *stage < ROCECC_RP_STAGE_MAX ? *stage + 1 : *stage;
	hi = s1 > other ? s1 : other;
	lo = s1 < other ? s1 : other;
	run = ~0ULL;
	if (hi <= f) {
		d = 0;				/* fast recovery */
		run = f - *stage;
	} else if (lo > f) {
		d = rocecc_rp_kbps(p,		/* hyper */
				   p->v[ROCECC_PARAM_RP_HAI_RATE]);
	} else {
		d = rocecc_rp_kbps(p,		/* additive */
				   p->v[ROCECC_PARAM_RP_AI_RATE]);
		if (other > f)
			run = f - *stage;	/* then hyper */
	}
	gap = (__u64)rp->target - rp->rate;
	if (c->n > 1 && (gap == d || gap + 1 == d)) {
		/*
		 * Fixed point: every event adds exactly d to both rates.
		 * Jump over as many as stay in this phase and keep R_T at
		 * or below the ceiling.
		 */
		k = c->n < run ? c->n : run;
		room = rp->target < top ? top - rp->target : 0;
		if (d && k > room / d)
			k = room / d;
		if (k) {
			rocecc_rp_stage_add(stage, k);
			rp->target += (__u32)(k * d);
			rp->rate += (__u32)(k * d);
			c->n -= k;
			return 0;
		}
	}
	/* One event. */
	*stage = s1;
	tgt = (__u64)rp->target + d;
	rp->target = tgt < top ? (__u32)tgt : top;
	rp->rate = (__u32)(((__u64)rp->rate + rp->target + 1) >> 1);
	c->n--;
	return 0;
}

/*
 * Apply @n increase events from one source (@by_bytes: the byte counter,
 * else the timer), exactly as n single events would, in at most
 * ROCECC_RP_INC_ITER_MAX iterations (see "Bounded work").
 */
static inline void rocecc_rp_increase(struct rocecc_rp *rp,
				      const struct rocecc_params *p,
				      bool by_bytes, __u64 n)
{
	struct rocecc_rp_inc c = {
		.rp = rp,
		.p = p,
		.stage = by_bytes ? &rp->byte_stage : &rp->timer_stage,
		.n = n,
		.other = by_bytes ? rp->timer_stage : rp->byte_stage,
		.f = p->v[ROCECC_PARAM_RP_THRESHOLD],
		.top = rocecc_rp_ceiling(rp, p),
	};

	ROCECC_LOOP(ROCECC_RP_INC_ITER_MAX, rocecc_rp_increase_step, &c);
}

/*
 * Process every alpha tick and timer event due at or before @t (see "Lazy
 * evaluation"); returns the effective time (never before the latest seen).
 * Does not refresh the pacing multiplier.
 */
static inline __u64 __rocecc_rp_advance(struct rocecc_rp *rp,
					const struct rocecc_params *p,
					__u64 t)
{
	__u64 n;

	if (t < rp->now)
		t = rp->now;
	rp->now = t;
	if (!rp->limited)
		return t;

	/* Alpha ticks [K]. */
	rocecc_rp_alpha_ticks(rp, p, t);

	/* Timer increase events [T]. */
	if (rp->next_timer <= t) {
		n = rocecc_rp_due(t - rp->next_timer, p,
				  ROCECC_PARAM_RP_TIME_RESET);
		rp->next_timer += n *
			rocecc_rp_period_ns(p, ROCECC_PARAM_RP_TIME_RESET);
		rp->inc_timer += n;
		rocecc_rp_increase(rp, p, false, n);
	}
	return t;
}

/* Bring the state up to time @t without an event (e.g. for a dump). */
static inline void rocecc_rp_advance(struct rocecc_rp *rp,
				     const struct rocecc_params *p, __u64 t)
{
	__u32 old = rp->rate;

	__rocecc_rp_advance(rp, p, t);
	if (rp->rate != old)
		rocecc_rp_set_pace(rp);
}

/*
 * A packet of @len bytes leaves the flow at @t: advance, then count its
 * bytes and fire every byte event they cover. Afterwards
 * rocecc_rp_delay_ns() gives the gap to the next departure.
 */
static inline void rocecc_rp_on_send(struct rocecc_rp *rp,
				     const struct rocecc_params *p,
				     __u64 t, __u32 len)
{
	__u32 old = rp->rate;
	__u32 br = p->v[ROCECC_PARAM_RP_BYTE_RESET];
	__u64 thr, n;

	__rocecc_rp_advance(rp, p, t);
	if (rp->limited && br) {
		thr = (__u64)br << 6;
		rp->bytes += len;
		if (rp->bytes >= thr) {
			if (rp->bytes < 2 * thr)
				n = 1;
			else
				n = rocecc_div_u64(rp->bytes >> 6, br);
			rp->bytes -= n * thr;
			rp->inc_byte += n;
			rocecc_rp_increase(rp, p, true, n);
		}
	}
	if (rp->rate != old)
		rocecc_rp_set_pace(rp);
}

/*
 * A CNP for the flow arrives at @t. Returns true if it cut the rate
 * (cnp_handled), false if it fell inside the monitor period (cnp_ignored).
 */
static inline bool rocecc_rp_on_cnp(struct rocecc_rp *rp,
				    const struct rocecc_params *p, __u64 t)
{
	__u32 old = rp->rate;
	__u32 top, bottom, r, mdf, sh;
	__u64 red, red2;

	t = __rocecc_rp_advance(rp, p, t);
	top = rocecc_rp_ceiling(rp, p);
	bottom = rocecc_rp_floor(rp, p);
	if (!rp->limited) {
		/* First CNP: the flow becomes rate limited. */
		rp->limited = 1;
		r = p->v[ROCECC_PARAM_RP_INITIAL_ALPHA_VALUE];
		rp->alpha_base = (r < 1023 ? r : 1023) <<
			ROCECC_RP_ALPHA_UNIT_SHIFT;
		rp->alpha_decays = 0;
		rocecc_rp_alpha_refresh(rp, p);
		r = p->v[ROCECC_PARAM_RP_RATE_TO_SET_ON_FIRST_CNP];
		r = r && r <= ROCECC_RATE_MAX_MBPS ? rocecc_rp_kbps(p, r) : top;
		if (r > top)
			r = top;
		rp->rate = r > bottom ? r : bottom;
		rp->target = rp->rate;
		rp->next_alpha = t + rocecc_rp_period_ns(p,
					ROCECC_PARAM_RP_DCE_TCP_RTT);
	} else if (t - rp->last_cut < (__u64)1000U *
		   p->v[ROCECC_PARAM_RP_RATE_REDUCE_MONITOR_PERIOD]) {
		rp->cnp_ignored++;
		rp->cnp_arrived = 1;
		/* the advance may have raised the rate */
		if (rp->rate != old)
			rocecc_rp_set_pace(rp);
		return false;
	}

	/* Target clamp, then the cut. */
	if (p->v[ROCECC_PARAM_RP_CLAMP_TGT_RATE] || rp->byte_stage ||
	    (p->v[ROCECC_PARAM_RP_CLAMP_TGT_RATE_ATI] && rp->timer_stage))
		rp->target = rp->rate;
	/* alpha_fine is current: refreshed by the advance or above */
	sh = p->v[ROCECC_PARAM_RP_GD] + ROCECC_RP_ALPHA_UNIT_SHIFT;
	red = sh < 64 ? ((__u64)rp->rate * rp->alpha_fine) >> sh : 0;
	mdf = p->v[ROCECC_PARAM_RP_MIN_DEC_FAC];
	red2 = mdf < 100 ? rocecc_div_u64((__u64)rp->rate * (100 - mdf), 100)
			 : 0;
	if (red2 < red)
		red = red2;
	r = rp->rate - (__u32)red;
	r = r > bottom ? r : bottom;
	if (r < rp->rate)
		rp->cuts++;
	rp->rate = r;

	rp->timer_stage = 0;
	rp->byte_stage = 0;
	rp->bytes = 0;
	rp->next_timer = t + rocecc_rp_period_ns(p, ROCECC_PARAM_RP_TIME_RESET);
	rp->last_cut = t;
	rp->cnp_handled++;
	rp->cnp_arrived = 1;
	if (rp->rate != old)
		rocecc_rp_set_pace(rp);
	return true;
}

/*
 * Bring rates back into [floor, ceiling] after a change of the parameters
 * or of the line rate (@line_rate_kbps as for rocecc_rp_init(); pass
 * rp->line_rate to keep it). An unlimited flow goes to the new ceiling.
 */
static inline void rocecc_rp_reclamp(struct rocecc_rp *rp,
				     const struct rocecc_params *p,
				     __u32 line_rate_kbps)
{
	__u32 top, bottom;

	if (!line_rate_kbps || line_rate_kbps > ROCECC_RP_RATE_MAX_KBPS)
		line_rate_kbps = ROCECC_RP_RATE_MAX_KBPS;
	else if (line_rate_kbps < 1000U)
		line_rate_kbps = 1000U;
	rp->line_rate = line_rate_kbps;
	top = rocecc_rp_ceiling(rp, p);
	bottom = rocecc_rp_floor(rp, p);
	if (!rp->limited) {
		rp->rate = top;
		rp->target = top;
	} else {
		if (rp->rate > top)
			rp->rate = top;
		if (rp->rate < bottom)
			rp->rate = bottom;
		if (rp->target > top)
			rp->target = top;
		if (rp->target < rp->rate)
			rp->target = rp->rate;
	}
	rocecc_rp_set_pace(rp);
}

/*
 * NP: per-flow CNP decision [N, tau].
 *
 * A CE-marked packet at t is answered with a CNP if none was ever sent for
 * the flow or the last one went at least np_min_time_between_cnps ago;
 * otherwise it is suppressed and a CNP becomes pending: as in the paper,
 * one more CNP goes out when the window ends if any packet in it was marked.
 * The caller polls (rocecc_np_poll) at or after rocecc_np_next_due(), e.g.
 * from a timer or the next packet, and sends the CNP; the core only decides.
 */
enum rocecc_np_action {
	ROCECC_NP_NONE,		/* do nothing */
	ROCECC_NP_SEND_CNP,	/* send one CNP to the flow's sender now */
};

/* rocecc_np_next_due() when no CNP is pending. */
#define ROCECC_NP_NEVER		(~0ULL)

struct rocecc_np {
	__u64 last_cnp;			/* time of the last CNP sent */
	__u64 ecn_marked_roce_packets;	/* CE-marked packets seen */
	__u64 cnp_sent;			/* CNPs sent (mlx5 np_cnp_sent) */
	__u64 cnp_suppressed;		/* CE packets not answered at once */
	__u8 sent_any;			/* last_cnp is valid */
	__u8 pending;			/* a suppressed CE awaits its CNP */
};

static inline void rocecc_np_init(struct rocecc_np *np)
{
	*np = (struct rocecc_np){ .sent_any = 0 };
}

/* True if the CNP rate limit allows a CNP at @t. */
static inline bool rocecc_np_window_open(const struct rocecc_np *np,
					 const struct rocecc_params *p,
					 __u64 t)
{
	__u64 win = (__u64)1000U *
		p->v[ROCECC_PARAM_NP_MIN_TIME_BETWEEN_CNPS];

	if (!np->sent_any)
		return true;
	/* A time before the last CNP counts as no time elapsed. */
	return (t > np->last_cnp ? t - np->last_cnp : 0) >= win;
}

static inline enum rocecc_np_action
__rocecc_np_send(struct rocecc_np *np, __u64 t)
{
	np->sent_any = 1;
	np->last_cnp = t;
	np->pending = 0;
	np->cnp_sent++;
	return ROCECC_NP_SEND_CNP;
}

/* A CE-marked RoCE packet of the flow arrives at @t. */
static inline enum rocecc_np_action
rocecc_np_on_ce(struct rocecc_np *np, const struct rocecc_params *p, __u64 t)
{
	np->ecn_marked_roce_packets++;
	if (rocecc_np_window_open(np, p, t))
		return __rocecc_np_send(np, t);
	np->cnp_suppressed++;
	np->pending = 1;
	return ROCECC_NP_NONE;
}

/* Send the pending CNP, if any, once its window has elapsed at @t. */
static inline enum rocecc_np_action
rocecc_np_poll(struct rocecc_np *np, const struct rocecc_params *p, __u64 t)
{
	if (np->pending && rocecc_np_window_open(np, p, t))
		return __rocecc_np_send(np, t);
	return ROCECC_NP_NONE;
}

/* When a pending CNP may go (ROCECC_NP_NEVER if none is pending). */
static inline __u64 rocecc_np_next_due(const struct rocecc_np *np,
				       const struct rocecc_params *p)
{
	if (!np->pending)
		return ROCECC_NP_NEVER;
	return np->last_cnp + (__u64)1000U *
		p->v[ROCECC_PARAM_NP_MIN_TIME_BETWEEN_CNPS];
}

#endif /* _ROCECC_DCQCN_H */
