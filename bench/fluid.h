/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The DCQCN fluid model of Zhu et al., "ECN or Delay: Lessons Learnt from
 * Analysis of DCQCN and TIMELY" (CoNEXT 2016), per flow: the terms of its
 * equations and its fixed point.
 * Everything is counted in packets (rates in packets/s, B and the RED
 * thresholds in packets), because p is a per-packet probability.
 * bench/README.md says how it is used and what it shows.
 */
#ifndef _FLUID_H
#define _FLUID_H


/* --- the model's parameters and its per-flow terms ----------------------- */

struct fp_in {
	double c_pps;		/* bottleneck capacity C, packets/s */
	double n;		/* flows N */
	double tau;		/* CNP interval tau, s */
	double tau_a;		/* alpha period tau', s */
	double t_inc;		/* increase timer T, s */
	double b_pkts;		/* byte counter B, packets (0: disabled) */
	double f;		/* fast-recovery steps F */
	double rai_pps;		/* R_AI, packets/s */
};

/*
 * The terms of the equations for marking probability @p and a (delayed)
 * rate @r in packets/s. @rb and @rd are r*b and r*d: they stay finite as
 * r -> 0, where b and d alone are p / ((1-p)^-B - 1) and
 * p / ((1-p)^(-T r) - 1).
 */
struct fl_terms {
	double a;	/* 1 - (1-p)^(tau r): a CNP in tau */
	double am;	/* 1 - (1-p)^(tau' r): a mark in tau' */
	double rb, rc;	/* r * b, r * c = r * (1-p)^(F B) b */
	double rd, re;	/* r * d, r * e = r * (1-p)^(F T r) d */
};

void fl_terms(const struct fp_in *in, double p, double r, struct fl_terms *t);

/* --- the fixed point --------------------------------------------------------- */

struct fp_out {
	double rate_pps;	/* R_C* = C / N */
	double p;		/* marking probability p* (NAN if none) */
	double p_approx;	/* small-p cube-root approximation */
	double alpha;		/* alpha* */
	double q_bytes;		/* standing queue q* from p* via RED */
};

double fp_approx(const struct fp_in *in);
double fp_residual(const struct fp_in *in, double p);
int fp_solve(const struct fp_in *in, struct fp_out *out);

#endif /* _FLUID_H */
