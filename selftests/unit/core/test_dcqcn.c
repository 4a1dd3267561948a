// SPDX-License-Identifier: GPL-2.0
/*
 * include/rocecc/dcqcn.h: the DCQCN reaction point and notification point.
 *
 * Hand-computed cases for every rule, then random traces comparing the lazy
 * core with the event-by-event reference model (dcqcn_ref.h) after every
 * event.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

/* Count loop iterations of the core (see "Bounded work" in dcqcn.h). */
static unsigned long rp_iters;
#define ROCECC_RP_ITER() (rp_iters++)

#include <rocecc/dcqcn.h>
#include "dcqcn_ref.h"
#include "tap.h"

#define US		((uint64_t)1000)
#define MS		((uint64_t)1000000)
#define SEC		((uint64_t)1000000000)
#define G100		100000000U	/* 100 Gb/s in kb/s */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static unsigned long max_iters;

/* Wrappers that record the largest iteration count of one call. */
static void it_begin(void)
{
	rp_iters = 0;
}

static void it_end(void)
{
	if (rp_iters > max_iters)
		max_iters = rp_iters;
}

static bool cnp(struct rocecc_rp *rp, const struct rocecc_params *p,
		uint64_t t)
{
	bool r;

	it_begin();
	r = rocecc_rp_on_cnp(rp, p, t);
	it_end();
	return r;
}

static void send(struct rocecc_rp *rp, const struct rocecc_params *p,
		 uint64_t t, uint32_t len)
{
	it_begin();
	rocecc_rp_on_send(rp, p, t, len);
	it_end();
}

static void adv(struct rocecc_rp *rp, const struct rocecc_params *p,
		uint64_t t)
{
	it_begin();
	rocecc_rp_advance(rp, p, t);
	it_end();
}

static void use_profile(struct rocecc_params *p, unsigned int prof)
{
	if (rocecc_params_load(p, prof)) {
		printf("Bail out! cannot load profile %u\n", prof);
		exit(1);
	}
}

/* ------------------------------------------------------------------ */

static void test_first_cnp(void)
{
	struct rocecc_params p;
	struct rocecc_rp rp;
	unsigned int prof;

	for (prof = 0; prof < __ROCECC_PROFILE_MAX; prof++) {
		const char *pn = prof ? "paper" : "mlx5";

		use_profile(&p, prof);
		rocecc_rp_init(&rp, &p, G100);
		tap_ok(!rp.limited && rp.rate == G100 && rp.target == G100,
		       "%s: a new flow is unlimited at line rate", pn);
		tap_ok(cnp(&rp, &p, 1000), "%s: first CNP handled", pn);
		/*
		 * R_C * (1 - alpha / 2), alpha = 1023/1024:
		 * 1e8 - floor(1e8 * 1023 / 2048) = 1e8 - 49951171
		 */
		tap_eq(rp.rate, 50048829, "%s: one CNP cuts 100G to R_C(1 - a/2)",
		       pn);
		tap_eq(rp.target, G100, "%s: target stays at line rate", pn);
		tap_eq(rp.alpha, 1023, "%s: alpha = rp_initial_alpha_value", pn);
		tap_ok(rp.limited && rp.cnp_arrived, "%s: limited, flag set",
		       pn);
		tap_eq(rp.next_alpha, 1000 + p.v[ROCECC_PARAM_RP_DCE_TCP_RTT] * US,
		       "%s: alpha clock starts at t + rtt", pn);
		tap_eq(rp.next_timer, 1000 + p.v[ROCECC_PARAM_RP_TIME_RESET] * US,
		       "%s: increase timer starts at t + T", pn);
		tap_eq(rp.cnp_handled, 1, "%s: cnp_handled", pn);
		tap_eq(rp.cuts, 1, "%s: cuts", pn);
	}

	/* rp_rate_to_set_on_first_cnp, capped at line rate; min_dec_fac */
	use_profile(&p, ROCECC_PROFILE_MLX5);
	p.v[ROCECC_PARAM_RP_RATE_TO_SET_ON_FIRST_CNP] = 40000;
	rocecc_rp_init(&rp, &p, G100);
	cnp(&rp, &p, 0);
	tap_eq(rp.target, 40000000, "first_cnp 40G: target 40G");
	tap_eq(rp.rate, 40000000 - (40000000ULL * 1023 >> 11),
	       "first_cnp 40G: rate cut from 40G");
	p.v[ROCECC_PARAM_RP_RATE_TO_SET_ON_FIRST_CNP] = 400000;
	rocecc_rp_init(&rp, &p, G100);
	cnp(&rp, &p, 0);
	tap_eq(rp.target, G100, "first_cnp above line rate: capped");
	p.v[ROCECC_PARAM_RP_RATE_TO_SET_ON_FIRST_CNP] = 0;
	p.v[ROCECC_PARAM_RP_MIN_DEC_FAC] = 80;
	rocecc_rp_init(&rp, &p, G100);
	cnp(&rp, &p, 0);
	tap_eq(rp.rate, 80000000, "min_dec_fac 80: one cut keeps 80%%");
	p.v[ROCECC_PARAM_RP_MIN_DEC_FAC] = 99;
	rocecc_rp_init(&rp, &p, G100);
	cnp(&rp, &p, 0);
	tap_eq(rp.rate, 99000000, "min_dec_fac 99: one cut keeps 99%%");
	p.v[ROCECC_PARAM_RP_MIN_DEC_FAC] = 100;
	rocecc_rp_init(&rp, &p, G100);
	cnp(&rp, &p, 0);
	tap_ok(rp.rate == G100 && rp.cuts == 0 && rp.cnp_handled == 1,
	       "min_dec_fac 100: handled, no cut");
	p.v[ROCECC_PARAM_RP_MIN_DEC_FAC] = 50;
	p.v[ROCECC_PARAM_RP_GD] = 10;
	rocecc_rp_init(&rp, &p, G100);
	cnp(&rp, &p, 0);
	tap_eq(rp.rate, 50000000, "gd 10: alpha cut limited by min_dec_fac");
	p.v[ROCECC_PARAM_RP_GD] = 11;
	p.v[ROCECC_PARAM_RP_MAX_RATE] = 25000;
	rocecc_rp_init(&rp, &p, G100);
	tap_eq(rp.rate, 25000000, "rp_max_rate 25G: flow starts at 25G");
	cnp(&rp, &p, 0);
	tap_eq(rp.rate, 25000000 - (25000000ULL * 1023 >> 11),
	       "rp_max_rate 25G: cut from 25G");
}

/* ------------------------------------------------------------------ */

/* alpha rise written independently: a G/1024 + 1 - G/1024, in 2^-26, down */
static uint64_t alpha_up(uint64_t a, unsigned int g)
{
	a = a * g / 1024 + (uint64_t)(1024 - g) * 65536;
	return a > 1023 * 65536 ? 1023 * 65536 : a;
}

/* The firmware formula in whole 1/1024 units (rounded down) stalls here. */
static unsigned int alpha_up_floor_limit(unsigned int g)
{
	unsigned int a = 0, prev;

	do {
		prev = a;
		a = a * g / 1024 + (1024 - g);
		if (a > 1023)
			a = 1023;
	} while (a != prev);
	return a;
}

/* alpha in 1/1024 from 2^-26: to nearest */
static unsigned int alpha_1024(uint64_t fine)
{
	fine = (fine + 32768) / 65536;
	return fine > 1023 ? 1023 : fine;
}

/* (g/1024)^n in 2^-32 against the exact power: at most 89 units below */
static void test_alpha_pow(void)
{
	unsigned int g, k, bad = 0, n;
	long double ex, err, worst = 0;
	uint64_t got;
	struct rng_lite { uint64_t s; } r = { 12345 };

	for (g = 0; g <= 1023; g++) {
		for (k = 0; k < 160; k++) {
			if (k < 64)
				n = k + 1;
			else if (k < 92)
				n = (1u << ((k - 64) % 14 + 1)) +
				    (k < 78 ? 1 : -1);
			else {
				r.s = r.s * 6364136223846793005ULL + 1;
				n = 1 + (r.s >> 33) % ROCECC_RP_ALPHA_DECAYS_MAX;
			}
			got = rocecc_rp_alpha_pow(g, n);
			ex = powl(g / 1024.0L, n) * 4294967296.0L;
			err = ex - (long double)got;
			if (err < 0 || err > 89)
				bad++;
			if (err > worst)
				worst = err;
		}
		if (rocecc_rp_alpha_pow(g, ROCECC_RP_ALPHA_DECAYS_MAX))
			bad++;
	}
	tap_ok(bad == 0,
	       "(G/1024)^n in 2^-32: never above the exact power, at most 89 units below, 0 at n = %u (worst %.1Lf units)",
	       ROCECC_RP_ALPHA_DECAYS_MAX, worst);
	for (n = 1; rocecc_rp_alpha_pow(1023, n); n++)
		;
	tap_diag("(1023/1024)^n is 0 in 2^-32 from n = %u", n);
	tap_eq(rocecc_rp_alpha_pow(1019, 1), (uint64_t)1019 << 22,
	       "(1019/1024)^1 is exact");
	tap_eq(rocecc_rp_alpha_pow(512, 3), (uint64_t)1 << 29,
	       "(1/2)^3 is exact");
}

static void test_alpha(void)
{
	struct rocecc_params p;
	struct rocecc_rp rp, rp2;
	unsigned int prof, k, n, n1000, nz, g, ok, m;
	uint64_t rtt, t, a, a0;
	long double ex, fix;

	for (prof = 0; prof < __ROCECC_PROFILE_MAX; prof++) {
		const char *pn = prof ? "paper" : "mlx5";

		use_profile(&p, prof);
		g = p.v[ROCECC_PARAM_RP_DCE_TCP_G];
		rtt = p.v[ROCECC_PARAM_RP_DCE_TCP_RTT] * US;

		/* Convergence to 1: a CNP in every alpha period. */
		p.v[ROCECC_PARAM_RP_INITIAL_ALPHA_VALUE] = 0;
		rocecc_rp_init(&rp, &p, G100);
		cnp(&rp, &p, 0);
		a = 0;
		n1000 = 0;
		ok = 1;
		for (k = 1; k <= 2000; k++) {
			/* CNP mid-period: tick k is at k * rtt */
			cnp(&rp, &p, k * rtt - rtt / 2);
			adv(&rp, &p, k * rtt);
			a = alpha_up(a, g);
			if (rp.alpha_fine != a || rp.alpha != alpha_1024(a))
				ok = 0;
			if (!n1000 && rp.alpha >= 1000)
				n1000 = k;
		}
		tap_ok(ok, "%s: alpha under a CNP per period follows a' = aG/1024 + 1 - G/1024 (2^-26, down)",
		       pn);
		tap_ok(n1000 > 0 && n1000 < 2000,
		       "%s: alpha reaches 1000/1024 after %u ticks", pn, n1000);
		rocecc_rp_init(&rp2, &p, G100);
		cnp(&rp2, &p, 0);
		for (k = 1; k <= n1000; k++)
			cnp(&rp2, &p, k * rtt - rtt / 2);
		adv(&rp2, &p, n1000 * rtt);
		tap_ok(rp2.alpha >= 1000, "%s: alpha %u >= 1000 after %u ticks",
		       pn, rp2.alpha, n1000);
		tap_ok(rp.alpha == 1023 && rp.alpha_fine == 1023 << 16,
		       "%s: alpha saturates at 1023/1024", pn);
		tap_diag("%s: in whole 1/1024 units, (G * a >> 10) + 1024 - G would stall at %u/1024",
			 pn, alpha_up_floor_limit(g));

		/* Decay without CNPs, from 1023/1024: exact power. */
		use_profile(&p, prof);
		rocecc_rp_init(&rp, &p, G100);
		cnp(&rp, &p, 0);
		/* tick 1 consumes the first CNP's flag: 1023 stays 1023 */
		adv(&rp, &p, rtt);
		tap_eq(rp.alpha_fine, alpha_up(1023 << 16, g),
		       "%s: tick 1 after the first CNP", pn);
		a0 = rp.alpha_fine;
		rp2 = rp;
		ok = 1;
		nz = n = 0;
		for (k = 1; k <= 40000 && (!nz || !n); k++) {
			adv(&rp, &p, (1 + k) * rtt - 1);
			if (k > 1 && rp.alpha_fine != a)
				ok = 0;	/* nothing between ticks */
			adv(&rp, &p, (1 + k) * rtt);
			ex = a0 * powl(g / 1024.0L, k);
			if (rp.alpha_fine > ex || rp.alpha_fine + 3 < ex ||
			    rp.alpha != alpha_1024(rp.alpha_fine))
				ok = 0;
			a = rp.alpha_fine;
			if (!n && !rp.alpha)
				n = k;
			if (!nz && !rp.alpha_fine)
				nz = k;
		}
		tap_ok(ok, "%s: tick by tick, alpha = a0 (G/1024)^k within 3 units of 2^-26 below", pn);
		tap_diag("%s: alpha decays from 1023/1024 to 0 (1/1024, rounded) in %u ticks, to 0 in 2^-26 in %u",
			 pn, n, nz);
		tap_ok(n > 1000 && nz > n, "%s: the decay is exponential, not a unit per tick", pn);
		adv(&rp2, &p, n * rtt);
		tap_ok(rp2.alpha > 0, "%s: lazy: alpha %u > 0 after %u ticks",
		       pn, rp2.alpha, n - 1);
		adv(&rp2, &p, (n + 1) * rtt);
		tap_eq(rp2.alpha, 0, "%s: lazy: alpha 0 after %u ticks", pn, n);
		/* One jump over a long idle period. */
		rocecc_rp_init(&rp, &p, G100);
		cnp(&rp, &p, 0);
		t = 3 * SEC + 7;
		adv(&rp, &p, t);
		tap_ok(rp.alpha == 0 && rp.alpha_fine == 0,
		       "%s: alpha 0 after 3 s idle", pn);
		tap_eq(rp.next_alpha, (t / rtt + 1) * rtt,
		       "%s: alpha clock keeps its phase over 3 s", pn);
	}

	/*
	 * mlx5 (1 us ticks): a CNP every m ticks holds alpha where a rise
	 * makes up for m - 1 decays: right after a rise,
	 * a* = (1 - G/1024) / (1 - (G/1024)^m). Whole 1/1024 units with the
	 * decay rounded down fell to 5/1024 after a rise from m = 7 on (the
	 * fixed point is 148/1024 there, 23/1024 at m = 50).
	 */
	use_profile(&p, ROCECC_PROFILE_MLX5);
	p.v[ROCECC_PARAM_RP_RATE_REDUCE_MONITOR_PERIOD] = 0;
	g = p.v[ROCECC_PARAM_RP_DCE_TCP_G];
	for (m = 2; m <= 1000; m *= 5) {
		rocecc_rp_init(&rp, &p, G100);
		for (t = 0; t < 20 * MS; t += m * US)
			cnp(&rp, &p, t + US / 2);
		/* the tick after the last CNP (ticks fall at CNP times, a
		 * tick and a CNP at once: the tick first) */
		adv(&rp, &p, t - m * US + US / 2 + US);
		fix = (1 - g / 1024.0L) / (1 - powl(g / 1024.0L, m));
		ex = rp.alpha_fine / (long double)(1 << 26);
		tap_ok(fabsl(ex - fix) < 1e-6,
		       "mlx5, a CNP every %u us: alpha %.6Lf after a rise, fixed point %.6Lf (%u/1024)",
		       m, ex, fix, rp.alpha);
	}
}

/* ------------------------------------------------------------------ */

static void test_increase(void)
{
	/* paper profile, first CNP at 40G on a 100G line, see comments */
	static const uint32_t fr[5] = {
		30009766, 35004883, 37502442, 38751221, 39375611,
	};
	struct rocecc_params p;
	struct rocecc_rp rp;
	uint64_t t, T;
	uint32_t tgt, rate;
	unsigned int k, ok;

	use_profile(&p, ROCECC_PROFILE_PAPER);
	p.v[ROCECC_PARAM_RP_RATE_TO_SET_ON_FIRST_CNP] = 40000;
	T = p.v[ROCECC_PARAM_RP_TIME_RESET] * US;
	rocecc_rp_init(&rp, &p, G100);
	cnp(&rp, &p, 0);
	/* 40e6 - floor(40e6 * 1023 / 2048) = 40e6 - 19980468 */
	tap_eq(rp.rate, 20019532, "paper: first CNP at 40G cuts to 20019532");
	tap_eq(rp.target, 40000000, "paper: target 40G");
	for (k = 0; k < 5; k++) {
		adv(&rp, &p, (k + 1) * T);
		tap_eq(rp.rate, fr[k],
		       "paper: fast recovery %u: gap to R_T halved", k + 1);
		tap_eq(rp.target, 40000000,
		       "paper: fast recovery %u: target unchanged", k + 1);
		tap_eq(rp.timer_stage, k + 1, "paper: timer stage %u", k + 1);
	}
	/* additive: timer stage > F, byte stage 0 */
	ok = 1;
	tgt = 40000000;
	rate = rp.rate;
	for (k = 5; k < 25; k++) {
		adv(&rp, &p, (k + 1) * T);
		tgt += 40000;
		rate = (rate + tgt + 1) / 2;
		if (rp.target != tgt || rp.rate != rate)
			ok = 0;
	}
	tap_ok(ok, "paper: 20 additive events, target +R_AI (40 Mb/s) each");
	tap_eq(rp.target, 40800000, "paper: target after 20 AI events");
	/* byte events: 10 MB each; byte stage 1..5 stay additive */
	t = 25 * T + 1000;
	for (k = 1; k <= 5; k++) {
		send(&rp, &p, t, 10000000);
		tgt += 40000;
		rate = (rate + tgt + 1) / 2;
		tap_ok(rp.byte_stage == k && rp.target == tgt &&
		       rp.rate == rate, "paper: byte event %u: additive", k);
	}
	/* byte stage 6: both stages > F: hyper */
	send(&rp, &p, t, 10000000);
	tgt += 200000;
	rate = (rate + tgt + 1) / 2;
	tap_ok(rp.byte_stage == 6 && rp.target == tgt && rp.rate == rate,
	       "paper: byte event 6: hyper, target +R_HAI (200 Mb/s)");
	adv(&rp, &p, 26 * T);
	tgt += 200000;
	rate = (rate + tgt + 1) / 2;
	tap_ok(rp.timer_stage == 26 && rp.target == tgt && rp.rate == rate,
	       "paper: next timer event: hyper too");
	tap_eq(rp.inc_timer, 26, "paper: 26 timer events counted");
	tap_eq(rp.inc_byte, 6, "paper: 6 byte events counted");
	/* a CNP resets both stages and the byte counter */
	send(&rp, &p, 26 * T, 1234);
	cnp(&rp, &p, 26 * T + 10);
	tap_ok(rp.timer_stage == 0 && rp.byte_stage == 0 && rp.bytes == 0 &&
	       rp.next_timer == 26 * T + 10 + T,
	       "paper: a cut resets stages, bytes and the timer");

	/* mlx5: F = 1: one fast recovery event, then additive 5 Mb/s */
	use_profile(&p, ROCECC_PROFILE_MLX5);
	p.v[ROCECC_PARAM_RP_RATE_TO_SET_ON_FIRST_CNP] = 40000;
	T = p.v[ROCECC_PARAM_RP_TIME_RESET] * US;
	rocecc_rp_init(&rp, &p, G100);
	cnp(&rp, &p, 0);
	adv(&rp, &p, T);
	tap_ok(rp.rate == 30009766 && rp.target == 40000000,
	       "mlx5: event 1 is fast recovery");
	adv(&rp, &p, 2 * T);
	tap_ok(rp.target == 40005000 && rp.rate == (30009766 + 40005000 + 1) / 2,
	       "mlx5: event 2 is additive (+5 Mb/s)");
	send(&rp, &p, 2 * T + 1, 32767 * 64);
	tap_ok(rp.byte_stage == 1 && rp.target == 40010000,
	       "mlx5: byte event 1 (2 MiB): additive");
	send(&rp, &p, 2 * T + 2, 32767 * 64 - 1);
	tap_eq(rp.byte_stage, 1, "mlx5: one byte short of the next event");
	send(&rp, &p, 2 * T + 3, 1);
	tap_ok(rp.byte_stage == 2 && rp.target == 40060000,
	       "mlx5: byte event 2: both stages > 1: hyper (+50 Mb/s)");
	/* a packet covering three thresholds fires three events */
	send(&rp, &p, 2 * T + 4, 3 * 32767 * 64 + 5);
	tap_ok(rp.byte_stage == 5 && rp.bytes == 5 &&
	       rp.target == 40060000 + 3 * 50000,
	       "mlx5: a packet of 3 thresholds fires 3 events");

	/* the target never passes the ceiling, the rate reaches it */
	use_profile(&p, ROCECC_PROFILE_MLX5);
	rocecc_rp_init(&rp, &p, G100);
	cnp(&rp, &p, 0);
	adv(&rp, &p, 40 * T);
	tap_ok(rp.rate == G100 && rp.target == G100,
	       "mlx5: back at line rate after 40 timer events (round-up avg)");
	tap_ok(rp.limited, "mlx5: the flow stays limited at line rate");
}

/* ------------------------------------------------------------------ */

static void test_bounds(void)
{
	struct rocecc_params p;
	struct rocecc_rp rp;
	unsigned int prof, ok;
	uint64_t t, t1, T, back;

	for (prof = 0; prof < __ROCECC_PROFILE_MAX; prof++) {
		const char *pn = prof ? "paper" : "mlx5";

		use_profile(&p, prof);
		p.v[ROCECC_PARAM_RP_RATE_REDUCE_MONITOR_PERIOD] = 0;
		T = p.v[ROCECC_PARAM_RP_TIME_RESET] * US;
		rocecc_rp_init(&rp, &p, G100);
		ok = 1;
		for (t = 0; t < 2 * MS; t++) {
			cnp(&rp, &p, t);
			if (rp.rate < 1000 || rp.rate > G100)
				ok = 0;
		}
		tap_ok(ok, "%s: 2e6 CNPs, one per ns: rate stays in [min, line]",
		       pn);
		tap_eq(rp.rate, 1000, "%s: flood ends at rp_min_rate (1 Mb/s)",
		       pn);
		tap_eq(rp.cnp_handled, 2 * MS,
		       "%s: monitor period 0: every CNP cuts", pn);
		/* recovery: timer events only, stepped one period at a time */
		t1 = t - 1;
		ok = 1;
		back = 0;
		for (t = t1 + T; t < t1 + 2 * SEC; t += T) {
			adv(&rp, &p, t);
			if (rp.rate < 1000 || rp.rate > G100)
				ok = 0;
			if (rp.rate == G100) {
				back = t - t1;
				break;
			}
		}
		tap_ok(ok && back,
		       "%s: recovers to line rate %" PRIu64 " us after the flood",
		       pn, back / US);
		/* the same recovery in one lazy step */
		use_profile(&p, prof);
		p.v[ROCECC_PARAM_RP_RATE_REDUCE_MONITOR_PERIOD] = 0;
		rocecc_rp_init(&rp, &p, G100);
		for (t = 0; t < 2 * MS; t++)
			cnp(&rp, &p, t);
		adv(&rp, &p, t1 + back - 1);
		tap_ok(rp.rate < G100, "%s: lazy: below line rate just before",
		       pn);
		adv(&rp, &p, t1 + back);
		tap_eq(rp.rate, G100, "%s: lazy: at line rate on time", pn);
	}

	/* with the mlx5 monitor period of 4 us: exact counts */
	use_profile(&p, ROCECC_PROFILE_MLX5);
	rocecc_rp_init(&rp, &p, G100);
	for (t = 0; t < 2 * MS; t++)
		cnp(&rp, &p, t);
	tap_eq(rp.cnp_handled, 500, "mlx5 flood: one cut per 4 us");
	tap_eq(rp.cnp_ignored, 2 * MS - 500, "mlx5 flood: the rest ignored");
	tap_eq(rp.rate, 1000, "mlx5 flood: at rp_min_rate");

	/* a line rate that is not a whole number of Mb/s */
	use_profile(&p, ROCECC_PROFILE_MLX5);
	p.v[ROCECC_PARAM_RP_MIN_DEC_FAC] = 0;
	p.v[ROCECC_PARAM_RP_GD] = 1;
	rocecc_rp_init(&rp, &p, 1500);
	cnp(&rp, &p, 0);
	tap_eq(rp.rate, 1000, "line 1.5 Mb/s: floor is rp_min_rate 1 Mb/s");
	p.v[ROCECC_PARAM_RP_MIN_RATE] = 2;
	rocecc_rp_init(&rp, &p, 1500);
	cnp(&rp, &p, 0);
	tap_eq(rp.rate, 1500, "line 1.5 Mb/s, min 2 Mb/s: floor is the line");

	/* rp_min_rate above the ceiling: the ceiling wins */
	use_profile(&p, ROCECC_PROFILE_MLX5);
	p.v[ROCECC_PARAM_RP_MIN_RATE] = 200000;
	rocecc_rp_init(&rp, &p, G100);
	cnp(&rp, &p, 0);
	tap_eq(rp.rate, G100, "min_rate > line rate: rate pinned at line");
	/* parameter change: reclamp */
	use_profile(&p, ROCECC_PROFILE_MLX5);
	rocecc_rp_init(&rp, &p, G100);
	cnp(&rp, &p, 0);
	p.v[ROCECC_PARAM_RP_MAX_RATE] = 10000;
	rocecc_rp_reclamp(&rp, &p, rp.line_rate);
	tap_ok(rp.rate == 10000000 && rp.target == 10000000,
	       "reclamp: rp_max_rate 10G lowers rate and target");
	p.v[ROCECC_PARAM_RP_MAX_RATE] = 0;
	p.v[ROCECC_PARAM_RP_MIN_RATE] = 20000;
	rocecc_rp_reclamp(&rp, &p, 25000000);
	tap_ok(rp.rate == 20000000 && rp.target == 20000000 &&
	       rp.line_rate == 25000000,
	       "reclamp: new line rate 25G, rp_min_rate 20G raises the rate");
	tap_eq(rp.pace_mult, ROCECC_RP_PACE_NUM / 20000000,
	       "reclamp: pacing multiplier follows");
}

/* ------------------------------------------------------------------ */

static void test_monitor(void)
{
	/* CNP times in ns and whether each is handled (period 4 us) */
	static const struct { uint64_t t; int handled; } seq[] = {
		{ 0, 1 }, { 1000, 0 }, { 2000, 0 }, { 3000, 0 }, { 3999, 0 },
		{ 4000, 1 }, { 5000, 0 }, { 7999, 0 }, { 8000, 1 },
		{ 20000, 1 }, { 20000, 0 }, { 23999, 0 }, { 100000, 1 },
	};
	struct rocecc_params p;
	struct rocecc_rp rp;
	unsigned int i, h = 0, ig = 0, ok = 1;

	use_profile(&p, ROCECC_PROFILE_MLX5);
	rocecc_rp_init(&rp, &p, G100);
	for (i = 0; i < ARRAY_SIZE(seq); i++) {
		if (cnp(&rp, &p, seq[i].t) != seq[i].handled)
			ok = 0;
		seq[i].handled ? h++ : ig++;
	}
	tap_ok(ok, "monitor 4 us: each CNP handled/ignored as expected");
	tap_eq(rp.cnp_handled, 5, "monitor 4 us: 5 handled");
	tap_eq(rp.cnp_ignored, 8, "monitor 4 us: 8 ignored");
	tap_ok(h == 5 && ig == 8, "monitor 4 us: table is consistent");
	tap_eq(rp.last_cut, 100000, "monitor: last cut time");

	p.v[ROCECC_PARAM_RP_RATE_REDUCE_MONITOR_PERIOD] = 0;
	rocecc_rp_init(&rp, &p, G100);
	for (i = 0; i < ARRAY_SIZE(seq); i++)
		cnp(&rp, &p, seq[i].t);
	tap_ok(rp.cnp_handled == 13 && rp.cnp_ignored == 0,
	       "monitor 0: all 13 handled");
	/* an ignored CNP still feeds alpha */
	use_profile(&p, ROCECC_PROFILE_MLX5);
	p.v[ROCECC_PARAM_RP_DCE_TCP_RTT] = 10;
	rocecc_rp_init(&rp, &p, G100);
	cnp(&rp, &p, 0);
	adv(&rp, &p, 10 * US);		/* tick: flag consumed */
	adv(&rp, &p, 20 * US);		/* tick: decay */
	cnp(&rp, &p, 20 * US + 1);	/* handled */
	adv(&rp, &p, 30 * US);		/* tick: flag consumed */
	cnp(&rp, &p, 30 * US + 1);	/* 10 us later: handled (4 us) */
	p.v[ROCECC_PARAM_RP_RATE_REDUCE_MONITOR_PERIOD] = 1000;
	cnp(&rp, &p, 30 * US + 2);	/* ignored */
	tap_ok(rp.cnp_ignored == 1 && rp.cnp_arrived,
	       "an ignored CNP sets the alpha flag");
}

/* ------------------------------------------------------------------ */

static void test_clamp(void)
{
	struct rocecc_params p;
	struct rocecc_rp rp;
	unsigned int clamp, ati;
	uint32_t r;

	for (clamp = 0; clamp <= 1; clamp++) {
		for (ati = 0; ati <= 1; ati++) {
			use_profile(&p, ROCECC_PROFILE_MLX5);
			p.v[ROCECC_PARAM_RP_CLAMP_TGT_RATE] = clamp;
			p.v[ROCECC_PARAM_RP_CLAMP_TGT_RATE_ATI] = ati;

			/* second CNP, no increase since the first */
			rocecc_rp_init(&rp, &p, G100);
			cnp(&rp, &p, 0);
			r = rp.rate;
			cnp(&rp, &p, 10 * US);
			tap_eq(rp.target, clamp ? r : G100,
			       "clamp %u ati %u: CNP with both stages 0", clamp,
			       ati);

			/* after one timer event */
			rocecc_rp_init(&rp, &p, G100);
			cnp(&rp, &p, 0);
			adv(&rp, &p, 300 * US);
			r = rp.rate;
			tap_eq(rp.timer_stage, 1, "clamp %u ati %u: timer stage 1",
			       clamp, ati);
			cnp(&rp, &p, 350 * US);
			tap_eq(rp.target, (clamp || ati) ? r : G100,
			       "clamp %u ati %u: CNP after a timer event", clamp,
			       ati);

			/* after one byte event */
			rocecc_rp_init(&rp, &p, G100);
			cnp(&rp, &p, 0);
			send(&rp, &p, 20 * US, 32767 * 64);
			r = rp.rate;
			tap_eq(rp.byte_stage, 1, "clamp %u ati %u: byte stage 1",
			       clamp, ati);
			cnp(&rp, &p, 30 * US);
			tap_eq(rp.target, r,
			       "clamp %u ati %u: CNP after a byte event clamps",
			       clamp, ati);
		}
	}
}

/* ------------------------------------------------------------------ */

/*
 * One CNP at 100G, then 1 KB packets back to back at the current rate:
 * time until the rate is back at 90% of line rate.
 */
static uint64_t recovery_ns(uint32_t byte_reset, uint64_t *pkts)
{
	struct rocecc_params p;
	struct rocecc_rp rp;
	uint64_t t = 0;

	use_profile(&p, ROCECC_PROFILE_MLX5);
	p.v[ROCECC_PARAM_RP_BYTE_RESET] = byte_reset;
	rocecc_rp_init(&rp, &p, G100);
	cnp(&rp, &p, 0);
	*pkts = 0;
	while (rp.rate < G100 / 10 * 9 && t < SEC) {
		send(&rp, &p, t, 1024);
		t += rocecc_rp_delay_ns(&rp, 1024);
		(*pkts)++;
	}
	return t;
}

static void test_byte_unit(void)
{
	uint64_t t64, t1, n64, n1;

	t64 = recovery_ns(32767, &n64);
	t1 = recovery_ns(512, &n1);
	tap_diag("recovery to 90%% of 100G after one CNP, 1 KB packets:");
	tap_diag("  rp_byte_reset 32767 x 64 B (2 MiB, mlx5 default): %" PRIu64
		 ".%03" PRIu64 " us (%" PRIu64 " packets)",
		 t64 / 1000, t64 % 1000, n64);
	tap_diag("  rp_byte_reset 512 x 64 B (32767 bytes):           %" PRIu64
		 ".%03" PRIu64 " us (%" PRIu64 " packets)",
		 t1 / 1000, t1 % 1000, n1);
	tap_ok(t64 >= 300 * US && t64 <= 800 * US,
	       "64-byte units: recovery %" PRIu64 " us in [300, 800] us",
	       t64 / US);
	tap_ok(t1 >= 5 * US && t1 <= 40 * US,
	       "byte units: recovery %" PRIu64 " us in [5, 40] us", t1 / US);
}

/* ------------------------------------------------------------------ */

static void test_pacing(void)
{
	static const uint32_t lens[] = { 1, 64, 1024, 1500, 4096, 9000, 65536,
					 ROCECC_RP_PACE_LEN_MAX };
	struct rocecc_params p;
	struct rocecc_rp rp;
	double exact, err, worst_rel = 0, worst_abs = 0;
	unsigned int i, n = 0, bad = 0;
	uint64_t rate, d;

	use_profile(&p, ROCECC_PROFILE_MLX5);
	/* 1 Mb/s .. 400 Gb/s in steps of ~3%, plus the ends */
	for (rate = 1000; rate <= 400000000; rate = rate * 103 / 100 + 1) {
		rocecc_rp_init(&rp, &p, (uint32_t)rate);
		for (i = 0; i < ARRAY_SIZE(lens); i++) {
			d = rocecc_rp_delay_ns(&rp, lens[i]);
			exact = (double)lens[i] * 8e6 / (double)rate;
			err = fabs((double)d - exact);
			/* ns granularity: 0.5 ns rounding allowed */
			if (err > exact / 1000 && err > 0.5)
				bad++;
			if (exact >= 1000 && err / exact > worst_rel)
				worst_rel = err / exact;
			if (err > worst_abs && exact < 1000)
				worst_abs = err;
			n++;
		}
	}
	rocecc_rp_init(&rp, &p, 400000000);
	tap_eq(rocecc_rp_delay_ns(&rp, 1500), 30,
	       "400 Gb/s: 1500 B take 30 ns");
	rocecc_rp_init(&rp, &p, 1000);
	tap_eq(rocecc_rp_delay_ns(&rp, 1500), 12000000,
	       "1 Mb/s: 1500 B take 12 ms");
	rocecc_rp_init(&rp, &p, G100);
	tap_eq(rocecc_rp_delay_ns(&rp, 1024), 82, "100 Gb/s: 1 KB take 82 ns");
	tap_ok(bad == 0,
	       "pacing delay within 0.1%% (or 0.5 ns) over %u rate x length points",
	       n);
	tap_diag("pacing: worst relative error %.2e (delays >= 1 us)",
		 worst_rel);
	tap_diag("pacing: worst absolute error %.3f ns (delays < 1 us)",
		 worst_abs);
	tap_ok(worst_rel < 0.001, "pacing: relative error < 0.1%% above 1 us");
}

/* ------------------------------------------------------------------ */

/*
 * rp_rate_divisor: a profile run on a link N times slower, time constants
 * unchanged. The same CNP trace with and without the divisor must give
 * rates in the ratio 1/N all along (within rounding of the kb/s unit), and
 * the pacing delays N times longer.
 */
static void test_divisor(void)
{
	static const unsigned int prof[] = { ROCECC_PROFILE_MLX5,
					     ROCECC_PROFILE_PAPER };
	static const uint32_t divs[] = { 5000, 2000 };
	struct rocecc_params p1, pn;
	struct rocecc_rp a, b;
	unsigned int i, k, bad, n;
	uint64_t t, exp, worst;

	for (i = 0; i < ARRAY_SIZE(prof); i++) {
		use_profile(&p1, prof[i]);
		pn = p1;
		pn.v[ROCECC_PARAM_RP_RATE_DIVISOR] = divs[i];
		rocecc_rp_init(&a, &p1, G100);
		rocecc_rp_init(&b, &pn, G100);
		tap_eq(b.rate, G100 / divs[i],
		       "divisor %u: a 100 Gb/s line starts at %u kb/s",
		       divs[i], G100 / divs[i]);
		/* a CNP every 80 us for 4 ms, then 20 ms of recovery */
		bad = n = 0;
		worst = 0;
		for (t = 0; t < 24 * MS; t += 10 * US) {
			if (t < 4 * MS && t % (80 * US) == 0) {
				cnp(&a, &p1, t);
				cnp(&b, &pn, t);
			} else {
				adv(&a, &p1, t);
				adv(&b, &pn, t);
			}
			exp = (a.rate + divs[i] / 2) / divs[i];
			k = b.rate > exp ? b.rate - exp : exp - b.rate;
			if (k > worst)
				worst = k;
			/*
			 * kb/s rounding: each cut or increase rounds by at
			 * most 1 kb/s and the halving of R_T - R_C halves
			 * what earlier events carried, so the error stays a
			 * few kb/s and does not grow with the trace.
			 */
			if (k > 5 + exp / 100)
				bad++;
			n++;
		}
		tap_ok(bad == 0,
		       "%s profile, divisor %u: rate = undivided rate / %u within 1%% + 5 kb/s at %u instants (worst %" PRIu64 " kb/s)",
		       prof[i] ? "paper" : "mlx5", divs[i], divs[i], n, worst);
		tap_ok(b.cnp_handled == a.cnp_handled && b.alpha == a.alpha,
		       "%s profile, divisor %u: the same cuts (%" PRIu64 ") and alpha (%u)",
		       prof[i] ? "paper" : "mlx5", divs[i], (uint64_t)b.cnp_handled,
		       b.alpha);
	}

	use_profile(&pn, ROCECC_PROFILE_MLX5);
	pn.v[ROCECC_PARAM_RP_RATE_DIVISOR] = 5000;
	rocecc_rp_init(&b, &pn, G100);
	tap_eq(rocecc_rp_floor(&b, &pn), 1,
	       "divisor 5000: rp_min_rate 1 Mb/s floors at 1 kb/s, not 0");
	tap_eq(rocecc_rp_kbps(&pn, pn.v[ROCECC_PARAM_RP_AI_RATE]), 1,
	       "divisor 5000: R_AI 5 Mb/s is 1 kb/s");
	tap_eq(rocecc_rp_kbps(&pn, pn.v[ROCECC_PARAM_RP_HAI_RATE]), 10,
	       "divisor 5000: R_HAI 50 Mb/s is 10 kb/s");
	pn.v[ROCECC_PARAM_RP_MAX_RATE] = 1;
	rocecc_rp_reclamp(&b, &pn, G100);
	tap_eq(b.rate, 1, "divisor 5000: rp_max_rate 1 Mb/s is 1 kb/s");
	tap_eq(rocecc_rp_delay_ns(&b, 1500), 12 * SEC,
	       "1 kb/s: 1500 B take 12 s");
	tap_eq(rocecc_rp_delay_ns(&b, ROCECC_RP_PACE_LEN_MAX), 1048576 * MS,
	       "1 kb/s: ROCECC_RP_PACE_LEN_MAX bytes take 1048.576 s, no overflow");
	pn.v[ROCECC_PARAM_RP_MAX_RATE] = 0;
	pn.v[ROCECC_PARAM_RP_RATE_DIVISOR] = 1000000;
	rocecc_rp_reclamp(&b, &pn, 1000);
	tap_eq(b.rate, 1, "divisor 1000000 on a 1 Mb/s line: 1 kb/s, not 0");
}

/* ------------------------------------------------------------------ */

static void test_np(void)
{
	struct rocecc_params p;
	struct rocecc_np np;

	use_profile(&p, ROCECC_PROFILE_PAPER);	/* 50 us */
	rocecc_np_init(&np);
	tap_eq(rocecc_np_poll(&np, &p, 0), ROCECC_NP_NONE,
	       "np: nothing pending at start");
	tap_eq(rocecc_np_next_due(&np, &p), ROCECC_NP_NEVER,
	       "np: no due time at start");
	tap_eq(rocecc_np_on_ce(&np, &p, 1000), ROCECC_NP_SEND_CNP,
	       "np: first CE sends a CNP");
	tap_eq(rocecc_np_on_ce(&np, &p, 11000), ROCECC_NP_NONE,
	       "np: CE 10 us later suppressed");
	tap_eq(rocecc_np_on_ce(&np, &p, 21000), ROCECC_NP_NONE,
	       "np: CE 20 us later suppressed");
	tap_ok(np.pending, "np: a CNP is pending");
	tap_eq(rocecc_np_next_due(&np, &p), 51000, "np: due at 51 us");
	tap_eq(rocecc_np_poll(&np, &p, 50999), ROCECC_NP_NONE,
	       "np: poll inside the window: nothing");
	tap_eq(rocecc_np_poll(&np, &p, 51000), ROCECC_NP_SEND_CNP,
	       "np: poll at the end of the window sends");
	tap_eq(rocecc_np_poll(&np, &p, 200000), ROCECC_NP_NONE,
	       "np: poll sends only once");
	tap_eq(rocecc_np_on_ce(&np, &p, 71000), ROCECC_NP_NONE,
	       "np: CE 20 us after the pending CNP suppressed");
	tap_eq(rocecc_np_on_ce(&np, &p, 101000), ROCECC_NP_SEND_CNP,
	       "np: CE 50 us after the last CNP sends");
	tap_ok(!np.pending, "np: that CNP also covered the pending one");
	tap_eq(rocecc_np_poll(&np, &p, 300000), ROCECC_NP_NONE,
	       "np: nothing left to poll");
	tap_eq(np.ecn_marked_roce_packets, 5, "np: 5 CE packets counted");
	tap_eq(np.cnp_sent, 3, "np: 3 CNPs sent");
	tap_eq(np.cnp_suppressed, 3, "np: 3 suppressed");
	tap_eq(np.last_cnp, 101000, "np: last CNP time");
	tap_eq(rocecc_np_on_ce(&np, &p, 90000), ROCECC_NP_NONE,
	       "np: a time before the last CNP counts as inside the window");

	use_profile(&p, ROCECC_PROFILE_MLX5);	/* 4 us */
	rocecc_np_init(&np);
	rocecc_np_on_ce(&np, &p, 0);
	rocecc_np_on_ce(&np, &p, 3999);
	rocecc_np_on_ce(&np, &p, 4000);
	rocecc_np_on_ce(&np, &p, 7999);
	rocecc_np_poll(&np, &p, 8000);
	tap_ok(np.cnp_sent == 3 && np.cnp_suppressed == 2 &&
	       np.ecn_marked_roce_packets == 4,
	       "np mlx5 4 us: 3 sent, 2 suppressed");
	p.v[ROCECC_PARAM_NP_MIN_TIME_BETWEEN_CNPS] = 0;
	rocecc_np_init(&np);
	rocecc_np_on_ce(&np, &p, 5);
	rocecc_np_on_ce(&np, &p, 5);
	rocecc_np_on_ce(&np, &p, 6);
	tap_ok(np.cnp_sent == 3 && np.cnp_suppressed == 0,
	       "np: interval 0: every CE answered");
}

/* ------------------------------------------------------------------ */

/* Iteration bound under adversarial parameters. */
static void test_worst_case(void)
{
	struct rocecc_params p;
	struct rocecc_rp rp;
	unsigned long worst = 0;
	unsigned int f, k;

	use_profile(&p, ROCECC_PROFILE_MLX5);
	p.v[ROCECC_PARAM_RP_DCE_TCP_G] = 1023;		/* slowest decay */
	p.v[ROCECC_PARAM_RP_TIME_RESET] = 1;
	p.v[ROCECC_PARAM_RP_MIN_DEC_FAC] = 0;
	p.v[ROCECC_PARAM_RP_RATE_REDUCE_MONITOR_PERIOD] = 0;
	for (f = 1; f <= 31; f += 3) {
		for (k = 0; k < 4; k++) {
			p.v[ROCECC_PARAM_RP_THRESHOLD] = f;
			p.v[ROCECC_PARAM_RP_AI_RATE] = k & 1 ? 1 : 3999999;
			p.v[ROCECC_PARAM_RP_HAI_RATE] = k & 2 ? 1 : 2999999;
			p.v[ROCECC_PARAM_RP_BYTE_RESET] = 1;
			rocecc_rp_init(&rp, &p, 0);	/* 4 Tb/s */
			p.v[ROCECC_PARAM_RP_GD] = 1;
			cnp(&rp, &p, 0);		/* to the floor */
			p.v[ROCECC_PARAM_RP_GD] = 11;
			/* byte stage > F, then a long idle period */
			send(&rp, &p, 0, 64 * (f + 1));
			rp.byte_stage = f + 1;
			rp.rate = 1000;
			rp.target = 1000;
			it_begin();
			rocecc_rp_on_send(&rp, &p, 10 * SEC, 64 * 100000);
			if (rp_iters > worst)
				worst = rp_iters;
			it_end();
		}
	}
	tap_diag("adversarial: worst iterations of one call %lu (bound %d)",
		 worst, ROCECC_RP_ITER_MAX);
	tap_ok(worst <= ROCECC_RP_ITER_MAX,
	       "adversarial calls stay within the stated bound");
}

/* ------------------------------------------------------------------ */
/* Random traces: lazy core vs event-by-event reference. */

struct rng {
	uint64_t s;
};

static uint64_t rnd64(struct rng *r)
{
	/* xorshift64* */
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 2685821657736338717ULL;
}

/* uniform in [0, n) */
static uint64_t rnd(struct rng *r, uint64_t n)
{
	return n ? rnd64(r) % n : 0;
}

/* roughly log-uniform in [lo, hi] */
static uint64_t rnd_log(struct rng *r, uint64_t lo, uint64_t hi)
{
	uint64_t span = hi - lo, m;
	unsigned int bits = 0;

	while (bits < 64 && (span >> bits))
		bits++;
	m = rnd(r, bits + 1);
	m = m >= 64 ? ~0ULL : (1ULL << m) - 1;
	if (m > span)
		m = span;
	return lo + rnd(r, m + 1);
}

static void random_params(struct rng *r, struct rocecc_params *p)
{
	const struct rocecc_param_info *pi;
	unsigned int id;

	use_profile(p, rnd(r, 2));
	p->v[ROCECC_PARAM_RP_CLAMP_TGT_RATE] = rnd(r, 2);
	p->v[ROCECC_PARAM_RP_CLAMP_TGT_RATE_ATI] = rnd(r, 2);
	p->v[ROCECC_PARAM_RP_TIME_RESET] = rnd_log(r, 1, 10000000);
	p->v[ROCECC_PARAM_RP_BYTE_RESET] =
		rnd(r, 5) ? rnd_log(r, 1, 0xffffffffu) : 0;
	p->v[ROCECC_PARAM_RP_THRESHOLD] = 1 + rnd(r, 31);
	p->v[ROCECC_PARAM_RP_MAX_RATE] = rnd(r, 3) ? 0 :
					 rnd_log(r, 1, 4000000);
	p->v[ROCECC_PARAM_RP_AI_RATE] = rnd_log(r, 0, 4000000);
	p->v[ROCECC_PARAM_RP_HAI_RATE] = rnd_log(r, 0, 4000000);
	p->v[ROCECC_PARAM_RP_MIN_DEC_FAC] = rnd(r, 4) ? rnd(r, 101) :
					    100 * rnd(r, 2);
	p->v[ROCECC_PARAM_RP_MIN_RATE] = rnd_log(r, 1, 4000000);
	p->v[ROCECC_PARAM_RP_RATE_TO_SET_ON_FIRST_CNP] = rnd(r, 2) ? 0 :
		rnd_log(r, 1, 4000000);
	p->v[ROCECC_PARAM_RP_DCE_TCP_G] = rnd(r, 2) ? 1023 - rnd(r, 40) :
					  rnd(r, 1024);
	p->v[ROCECC_PARAM_RP_DCE_TCP_RTT] = rnd_log(r, 1, 131071);
	p->v[ROCECC_PARAM_RP_RATE_REDUCE_MONITOR_PERIOD] = rnd(r, 5) ?
		rnd_log(r, 1, 10000000) : 0;
	p->v[ROCECC_PARAM_RP_INITIAL_ALPHA_VALUE] = rnd(r, 1024);
	p->v[ROCECC_PARAM_RP_GD] = rnd(r, 2) ? 11 : 1 + rnd(r, 15);
	p->v[ROCECC_PARAM_RP_RATE_DIVISOR] = rnd(r, 2) ? 1 :
					     rnd_log(r, 1, 1000000);
	/* now and then, the ends of the ranges */
	for (id = 1; id <= ROCECC_PARAM_MAX; id++) {
		pi = rocecc_param_info(id);
		if (rnd(r, 16) == 0)
			p->v[id] = pi->min;
		else if (rnd(r, 16) == 0)
			p->v[id] = pi->max;
	}
}

/* Compare the whole state; on a difference, name the field. */
static int compare(const struct rocecc_rp *a, const struct ref_rp *r,
		   const char **what)
{
	int lim = r->limited;
	const struct {
		const char *name;
		uint64_t got, want;
	} f[] = {
		{ "now", a->now, r->now },
		{ "line_rate", a->line_rate, r->line },
		{ "rate", a->rate, r->rate },
		{ "target", a->target, r->target },
		{ "alpha", a->alpha, r->alpha },
		{ "alpha_fine", a->alpha_fine, r->alpha_fine },
		{ "alpha_base", lim ? a->alpha_base : 0, r->alpha_base },
		{ "alpha_decays", lim ? a->alpha_decays : 0,
		  r->alpha_decays },
		{ "limited", a->limited, r->limited },
		{ "cnp_arrived", a->cnp_arrived, r->cnp_arrived },
		{ "timer_stage", a->timer_stage, r->timer_stage },
		{ "byte_stage", a->byte_stage, r->byte_stage },
		{ "bytes", a->bytes, r->bytes },
		{ "cnp_handled", a->cnp_handled, r->cnp_handled },
		{ "cnp_ignored", a->cnp_ignored, r->cnp_ignored },
		{ "cuts", a->cuts, r->cuts },
		{ "inc_timer", a->inc_timer, r->inc_timer },
		{ "inc_byte", a->inc_byte, r->inc_byte },
		{ "pace_mult", a->pace_mult, ROCECC_RP_PACE_NUM / r->rate },
		/* times of the next events are defined once limited */
		{ "last_cut", lim ? a->last_cut : 0, r->last_cut },
		{ "next_alpha", lim ? a->next_alpha : 0,
		  ref_next(r, REF_EV_ALPHA) },
		{ "next_timer", lim ? a->next_timer : 0,
		  ref_next(r, REF_EV_TIMER) },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(f); i++) {
		if (f[i].got != f[i].want) {
			*what = f[i].name;
			return 0;
		}
	}
	return 1;
}

/* What the traces covered, for the log. */
static uint64_t tr_idle_1s, tr_idle_10ms, tr_sim_ns, tr_cnps;

static const uint32_t line_rates[] = {
	1000000, 10000000, 25000000, 40000000, 100000000, 200000000,
	400000000, 4000000000u, 1000,
};

/*
 * One trace. Reference cost is one step per alpha period and timer period
 * of simulated time; @budget bounds that cost (long idle gaps shrink when
 * it runs out) so the whole suite stays fast.
 */
static int run_trace(uint64_t seed, int kind, unsigned int nev,
		     uint64_t *compared, char *err, size_t errlen)
{
	struct rng r = { seed * 0x9e3779b97f4a7c15ULL + 1 };
	struct rocecc_params p;
	struct rocecc_rp a;
	struct ref_rp ref;
	uint64_t t = 0, gap, period, budget = 500000, cost, te;
	uint32_t line, len;
	unsigned int i, burst = 0, op;
	const char *what;

	if (kind == 0)
		use_profile(&p, ROCECC_PROFILE_MLX5);
	else if (kind == 1)
		use_profile(&p, ROCECC_PROFILE_PAPER);
	else
		random_params(&r, &p);
	if (rocecc_params_validate(&p)) {
		snprintf(err, errlen, "invalid random parameters");
		return 0;
	}
	line = line_rates[rnd(&r, ARRAY_SIZE(line_rates))];
	if (kind >= 2 && rnd(&r, 4) == 0)
		line = rnd_log(&r, 1000, ROCECC_RP_RATE_MAX_KBPS);
	if (kind < 2 && line < 1000000)
		line = G100;
	period = p.v[ROCECC_PARAM_RP_DCE_TCP_RTT];
	if (p.v[ROCECC_PARAM_RP_TIME_RESET] < period)
		period = p.v[ROCECC_PARAM_RP_TIME_RESET];
	period *= US;

	rocecc_rp_init(&a, &p, line);
	ref_init(&ref, &p, line);
	for (i = 0; i < nev; i++) {
		/* time step */
		op = rnd(&r, 10000);
		if (burst)
			gap = rnd(&r, 10 * US);
		else if (op < 6000)
			gap = rnd(&r, 2 * US);
		else if (op < 6500)
			gap = rocecc_rp_delay_ns(&a, 1024);	/* paced */
		else if (op < 9600)
			gap = rnd(&r, 100 * US);
		else if (op < 9990)
			gap = rnd_log(&r, 100 * US, 5 * MS);
		else if (op < 9996)
			gap = 0;
		else if (op < 9998)
			gap = rnd_log(&r, 10 * MS, 3 * SEC);	/* idle */
		else
			gap = 10 * MS + rnd(&r, 3 * SEC);	/* long idle */
		if (gap >= 10 * MS) {
			/* the reference's cost of an idle gap is bounded */
			cost = gap / period;
			if (cost > budget) {
				gap = budget * period;
				cost = budget;
			}
			budget -= cost;
		}
		t += gap;
		tr_idle_1s += gap >= SEC;
		tr_idle_10ms += gap >= 10 * MS;
		te = t;
		if (rnd(&r, 100) == 0)		/* a stale timestamp */
			te = t > 500 ? t - rnd(&r, 500) : 0;

		/* the event */
		op = rnd(&r, 1000);
		if (burst) {
			burst--;
			op = op < 500 ? 0 : 999;	/* CNP or packet */
		} else if (op < 4) {
			burst = 2 + rnd(&r, 60);
		}
		if (op < 40) {
			it_begin();
			rocecc_rp_on_cnp(&a, &p, te);
			it_end();
			ref_cnp(&ref, &p, te);
			tr_cnps++;
		} else if (op < 100) {
			it_begin();
			rocecc_rp_advance(&a, &p, te);
			it_end();
			ref_advance(&ref, &p, &te);
		} else {
			op = rnd(&r, 1000);
			if (op < 600)
				len = 64 + rnd(&r, 4033);
			else if (op < 990)
				len = 1 + rnd(&r, 65536);
			else
				len = rnd(&r, 1 << 22);
			it_begin();
			rocecc_rp_on_send(&a, &p, te, len);
			it_end();
			ref_send(&ref, &p, te, len);
		}
		(*compared)++;
		if (!compare(&a, &ref, &what)) {
			snprintf(err, errlen,
				 "event %u (t=%" PRIu64 "): %s differs",
				 i, te, what);
			return 0;
		}
	}
	tr_sim_ns += t;
	return 1;
}

static void test_random(void)
{
	unsigned int ntr = 256, nev = 10000, i, fails = 0;
	uint64_t compared = 0, seed;
	char err[160];
	clock_t c0 = clock();

	tap_diag("random traces: seeds 1..%u, %u events each", ntr, nev);
	tap_diag("seed %% 4: 0 mlx5, 1 paper, 2 and 3 random parameters");
	for (i = 1; i <= ntr; i++) {
		seed = i;
		err[0] = 0;
		if (!run_trace(seed, i % 4, nev, &compared, err,
			       sizeof(err))) {
			fails++;
			tap_ok(0, "trace seed %" PRIu64 ": %s", seed, err);
		}
	}
	tap_ok(fails == 0,
	       "lazy == reference over %u traces, %" PRIu64 " events compared",
	       ntr, compared);
	tap_ok(compared >= 200ULL * 10000, "at least 2e6 events compared");
	tap_diag("traces: %" PRIu64 " CNPs, %" PRIu64 " idle gaps >= 10 ms, %"
		 PRIu64 " >= 1 s, %" PRIu64 " s simulated", tr_cnps,
		 tr_idle_10ms, tr_idle_1s, tr_sim_ns / SEC);
	tap_diag("random traces took %.2f s of CPU",
		 (double)(clock() - c0) / CLOCKS_PER_SEC);
}

int main(void)
{
	test_first_cnp();
	test_alpha_pow();
	test_alpha();
	test_increase();
	test_bounds();
	test_monitor();
	test_clamp();
	test_byte_unit();
	test_pacing();
	test_divisor();
	test_np();
	test_worst_case();
	test_random();
	tap_diag("largest iteration count of one call over the whole run: %lu (bound %d)",
		 max_iters, ROCECC_RP_ITER_MAX);
	tap_ok(max_iters <= ROCECC_RP_ITER_MAX,
	       "every call stayed within ROCECC_RP_ITER_MAX");
	return tap_done();
}
