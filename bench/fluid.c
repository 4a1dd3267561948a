// SPDX-License-Identifier: GPL-2.0
/*
 * The CoNEXT'16 DCQCN fluid model (fluid.h): the terms of its equations
 * and its fixed point.
 *
 * The equations, per flow i, with p^ = p(q(t - tau*)) and
 * R^ = R_C(i)(t - tau*), everything in packets:
 *
 *   dq/dt  = sum_i R_C(i) - C                          (q >= 0)
 *   da/dt  = g/tau' ((1 - (1-p^)^(tau' R^)) - a)
 *   dRT/dt = -(RT - RC)/tau (1 - (1-p^)^(tau R^))
 *            + R_AI R^ (1-p^)^(F B) p^ / ((1-p^)^-B - 1)
 *            + R_AI R^ (1-p^)^(F T R^) p^ / ((1-p^)^(-T R^) - 1)
 *   dRC/dt = -RC a/(2 tau) (1 - (1-p^)^(tau R^))
 *            + (RT - RC)/2 R^ p^ / ((1-p^)^-B - 1)
 *            + (RT - RC)/2 R^ p^ / ((1-p^)^(-T R^) - 1)
 *
 * and p(q) the RED line: 0 up to Kmin, Pmax (q - Kmin)/(Kmax - Kmin) up
 * to Kmax, 1 above. Rates stay within [0, C] (flows start at line rate and
 * never exceed it), alpha within [0, 1].
 */
#include <math.h>

#include "fluid.h"

void fl_terms(const struct fp_in *in, double p, double r, struct fl_terms *t)
{
	double l, x;

	if (p >= 1) {
		/* every packet marked: a cut per tau, no increase */
		t->a = r > 0;
		t->am = r > 0;
		t->rb = t->rc = t->rd = t->re = 0;
		return;
	}
	l = p > 0 ? log1p(-p) : 0;	/* log(1 - p) */
	t->a = -expm1(in->tau * r * l);
	t->am = -expm1(in->tau_a * r * l);
	t->rb = t->rc = 0;
	if (in->b_pkts > 0) {
		/* b = p / ((1-p)^-B - 1) -> 1/B as p -> 0 */
		x = -expm1(-in->b_pkts * l);
		t->rb = r * (p > 0 && x != 0 ? p / -x : 1 / in->b_pkts);
		t->rc = exp(in->f * in->b_pkts * l) * t->rb;
	}
	/* r d = r p / ((1-p)^(-T r) - 1) -> 1/T as p -> 0, p/(-T l) as r -> 0 */
	x = -expm1(-in->t_inc * r * l);
	if (p <= 0)
		t->rd = 1 / in->t_inc;
	else if (x == 0)
		t->rd = p / (-in->t_inc * l);
	else
		t->rd = r * p / -x;
	t->re = exp(in->f * in->t_inc * r * l) * t->rd;
}

/* --- fixed point ------------------------------------------------------------ */

/*
 * p* solves a^2 alpha / ((b+d)(c+e)) = tau^2 R_AI R at R = C/N; the
 * residual is the log of the ratio of the two sides (increasing in p).
 */
double fp_residual(const struct fp_in *in, double p)
{
	double r = in->c_pps / in->n;
	struct fl_terms t;

	fl_terms(in, p, r, &t);
	return 2 * log(t.a) + log(t.am) + 2 * log(r) - log(t.rb + t.rd) -
	       log(t.rc + t.re) - log(in->tau * in->tau * in->rai_pps * r);
}

/* p* ~ cbrt(R_AI N^2 / (tau' C^2) * (1/B + N/(T C))^2) */
double fp_approx(const struct fp_in *in)
{
	double x = in->n / (in->t_inc * in->c_pps);

	if (in->b_pkts > 0)
		x += 1 / in->b_pkts;
	return cbrt(in->rai_pps * in->n * in->n /
		    (in->tau_a * in->c_pps * in->c_pps) * x * x);
}

/* Bisection on log p over [1e-15, 1 - 1e-12]; -1 if no root there. */
int fp_solve(const struct fp_in *in, struct fp_out *out)
{
	double lo = log(1e-15), hi = log1p(-1e-12), mid;
	struct fl_terms t;
	int i;

	out->rate_pps = in->c_pps / in->n;
	out->p_approx = fp_approx(in);
	out->p = NAN;
	out->alpha = NAN;
	out->q_bytes = NAN;
	if (fp_residual(in, exp(lo)) > 0 || fp_residual(in, exp(hi)) < 0)
		return -1;
	for (i = 0; i < 200; i++) {
		mid = (lo + hi) / 2;
		if (fp_residual(in, exp(mid)) < 0)
			lo = mid;
		else
			hi = mid;
	}
	out->p = exp((lo + hi) / 2);
	fl_terms(in, out->p, out->rate_pps, &t);
	out->alpha = t.am;
	return 0;
}
