// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the fluid model (TAP): the delay-differential integrator
 * on equations with known solutions, the model's terms at their limits,
 * and the DCQCN model itself: it settles on the fixed point that
 * fp_solve() computes where it is stable, and keeps oscillating where the
 * CoNEXT'16 paper says it does.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fluid.h"
#include "tap.h"

static bool near(double got, double want, double tol)
{
	return fabs(got - want) <= tol;
}

/* x' = -k x */
static void f_decay(double t, const double *x, const double *xd, double *dx,
		    void *ctx)
{
	(void)t;
	(void)xd;
	dx[0] = -*(double *)ctx * x[0];
}

/* x' = -a x(t - tau) */
static void f_delayed(double t, const double *x, const double *xd,
		      double *dx, void *ctx)
{
	(void)t;
	(void)x;
	dx[0] = -*(double *)ctx * xd[0];
}

/* y' = 1, x' = y(t - tau): x = (t - tau)^2 / 2 from tau on */
static void f_shift(double t, const double *x, const double *xd, double *dx,
		    void *ctx)
{
	(void)t;
	(void)x;
	(void)ctx;
	dx[0] = 1;
	dx[1] = xd[0];
}

/* Error at t = 1 ms of x' = -k x (k = 2000/s) with step dt. */
static double decay_err(double dt)
{
	double k = 2000, x0 = 1;
	struct dde e;
	unsigned int i, n = (unsigned int)(1e-3 / dt + 0.5);

	dde_init(&e, 1, dt, 0, &x0, f_decay, NULL, &k);
	for (i = 0; i < n; i++)
		dde_step(&e);
	x0 = e.x[0] - exp(-k * e.t);
	dde_free(&e);
	return fabs(x0);
}

/* x(t) of x' = -a x(t - tau), x = 1 before 0, by the method of steps */
static double delayed_exact(double a, double tau, double t)
{
	double x = 1 - a * t;

	if (t > tau)
		x += a * a * (t - tau) * (t - tau) / 2;
	if (t > 2 * tau)
		x -= a * a * a * pow(t - 2 * tau, 3) / 6;
	return x;
}

/* Worst error over [0, 3 tau] of x' = -a x(t - tau), and over [0, 2 tau]. */
static void delayed_err(double dt, double *err2, double *err3)
{
	double a = 5000, tau = 100e-6, x0 = 1, d;
	struct dde e;

	*err2 = *err3 = 0;
	dde_init(&e, 1, dt, tau, &x0, f_delayed, NULL, &a);
	while (e.t < 3 * tau - dt / 2) {
		dde_step(&e);
		d = fabs(e.x[0] - delayed_exact(a, tau, e.t));
		if (e.t <= 2 * tau + dt / 2)
			*err2 = fmax(*err2, d);
		*err3 = fmax(*err3, d);
	}
	dde_free(&e);
}

static void test_integrator(void)
{
	double e1 = decay_err(1e-5), e2 = decay_err(5e-6), a2, a3, b2, b3;
	double x0[2] = { 0, 0 }, worst = 0, t;
	struct dde e;
	unsigned int i;

	tap_ok(e1 < 1e-4, "dde: x' = -kx, no delay: error %.2g at 1 ms", e1);
	tap_ok(e1 / e2 > 3.8 && e1 / e2 < 4.2,
	       "dde: second order: halving dt divides the error by %.2f",
	       e1 / e2);

	delayed_err(1e-6, &a2, &a3);
	delayed_err(0.5e-6, &b2, &b3);
	tap_ok(a2 < 1e-12,
	       "dde: x' = -a x(t - tau): exact on [0, 2 tau], where x' is linear (error %.2g)",
	       a2);
	tap_ok(a3 < 2e-6 && a3 / b3 > 3.8 && a3 / b3 < 4.2,
	       "dde: on [2 tau, 3 tau] error %.2g, /%.2f with half the step",
	       a3, a3 / b3);

	/* the history ring: a delay of 37 steps, read exactly */
	dde_init(&e, 2, 1e-6, 37e-6, x0, f_shift, NULL, NULL);
	tap_eq(e.d, 37, "dde: 37 us at 1 us steps is a ring of 38 states");
	for (i = 0; i < 200; i++) {
		dde_step(&e);
		t = e.t - 37e-6;
		worst = fmax(worst, fabs(e.x[1] - (t > 0 ? t * t / 2 : 0)));
	}
	tap_ok(worst < 1e-18 && near(e.x[0], 200e-6, 1e-15),
	       "dde: x' = y(t - tau) with y = t gives (t - tau)^2 / 2 exactly (error %.2g)",
	       worst);
	dde_free(&e);
	tap_ok(dde_init(&e, 1, 0, 1, x0, f_decay, NULL, NULL) < 0,
	       "dde: a step of 0 is refused");
}

static void test_terms(void)
{
	struct fl_cfg c;
	struct fl_terms t0, t1, tr;
	double r;

	fl_cfg_paper(&c, 10, 4);
	r = c.m.c_pps / 10;
	fl_terms(&c.m, 0, r, &t0);
	tap_ok(t0.a == 0 && t0.am == 0 && near(t0.rb, r / c.m.b_pkts, 1e-9) &&
	       near(t0.rd, 1 / c.m.t_inc, 1e-6) && t0.rc == t0.rb &&
	       t0.re == t0.rd,
	       "terms at p = 0: no cut, r b = r/B, r d = 1/T (an event per byte counter or timer)");
	fl_terms(&c.m, 1e-12, r, &t1);
	tap_ok(near(t1.rb, t0.rb, 1e-6 * t0.rb) &&
	       near(t1.rd, t0.rd, 1e-6 * t0.rd) && t1.a > 0,
	       "terms: continuous at p -> 0");
	fl_terms(&c.m, 0.01, 0, &tr);
	tap_ok(tr.a == 0 && near(tr.rd, 0.01 / (-c.m.t_inc * log1p(-0.01)),
				 1e-9),
	       "terms: r -> 0 keeps r d finite, p / (-T log(1 - p))");
	fl_terms(&c.m, 1, r, &t1);
	tap_ok(t1.a == 1 && t1.am == 1 && t1.rb == 0 && t1.rd == 0,
	       "terms at p = 1: a cut every tau, no increase");
	fl_terms(&c.m, 0.01, r, &t1);
	tap_ok(near(t1.a, 1 - pow(0.99, c.m.tau * r), 1e-12) &&
	       near(t1.rd, r * 0.01 / (pow(0.99, -c.m.t_inc * r) - 1), 1e-6) &&
	       near(t1.re, pow(0.99, c.m.f * c.m.t_inc * r) * t1.rd, 1e-9),
	       "terms at p = 0.01 match the equations written with pow()");
	tap_ok(fl_red(&c, 5) == 0 && near(fl_red(&c, 102.5), 0.005, 1e-15) &&
	       fl_red(&c, 200.001) == 1,
	       "RED in packets: 0 at Kmin, Pmax/2 halfway, 1 above Kmax");
}

static void test_model(void)
{
	struct fl_cfg c;
	struct fl_res r;

	/* 2 flows, 4 us: stable, and on the fixed point */
	fl_cfg_paper(&c, 2, 4);
	c.dt = 0.5e-6;
	c.duration = 0.12;
	tap_ok(fl_run(&c, &r) == 0, "model: 2 flows, 4 us, 120 ms");
	tap_ok(!r.oscillating && r.r_amp_b < 1e-3,
	       "model: 2 flows, 4 us: stable (rate swing %.2g of C/N)",
	       r.r_amp_b);
	tap_ok(near(r.q_mean, r.fp.q_bytes, 0.01 * r.fp.q_bytes) &&
	       near(r.alpha_mean, r.fp.alpha, 0.01 * r.fp.alpha) &&
	       near(r.p_mean, r.fp.p, 0.01 * r.fp.p),
	       "model: settles on fp_solve()'s fixed point: q %.0f B (q* %.0f), alpha %.4f (%.4f), p %.3g (%.3g)",
	       r.q_mean, r.fp.q_bytes, r.alpha_mean, r.fp.alpha, r.p_mean,
	       r.fp.p);
	tap_ok(near(r.r_mean_min, 1, 1e-3) && near(r.r_mean_max, 1, 1e-3) &&
	       near(r.util, 1, 1e-6),
	       "model: every flow at C/N, the link full");

	/* unequal starts converge to the same rate */
	c.spread = 0.5;
	fl_run(&c, &r);
	tap_ok(near(r.r_mean_min, 1, 2e-3) && near(r.r_mean_max, 1, 2e-3),
	       "model: flows starting at C and C/2 end at C/N (%.4f..%.4f)",
	       r.r_mean_min, r.r_mean_max);

	/* 10 flows, 85 us: the paper's unstable case */
	fl_cfg_paper(&c, 10, 85);
	c.dt = 0.5e-6;
	c.duration = 0.15;
	fl_run(&c, &r);
	tap_ok(r.oscillating && r.r_amp_b > 0.1 && r.period_us > 500,
	       "model: 10 flows, 85 us oscillate (rate swing %.2f of C/N, period %.0f us)",
	       r.r_amp_b, r.period_us);
	c.delay = 4e-6;
	fl_run(&c, &r);
	tap_ok(!r.oscillating, "model: 10 flows, 4 us do not (swing %.2g)",
	       r.r_amp_b);
}

static void test_verdict(void)
{
	struct fl_res r = { .r_amp_a = 0.1, .r_amp_b = 0.09 };

	tap_ok(fl_verdict(&r), "verdict: a sustained 9 %% swing oscillates");
	r.r_amp_b = 0.05;
	tap_ok(!fl_verdict(&r), "verdict: a swing halving is settling");
	r.r_amp_a = r.r_amp_b = 0.01;
	tap_ok(!fl_verdict(&r), "verdict: a steady 1 %% swing is stable");
	r.r_amp_a = 0.009;
	r.r_amp_b = 0.017;
	tap_ok(fl_verdict(&r), "verdict: a swing growing from 0.9 to 1.7 %% is not");
}

int main(void)
{
	test_integrator();
	test_terms();
	test_model();
	test_verdict();
	return tap_done();
}
