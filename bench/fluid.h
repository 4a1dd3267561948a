/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The DCQCN fluid model of Zhu et al., "ECN or Delay: Lessons Learnt from
 * Analysis of DCQCN and TIMELY" (CoNEXT 2016), per flow: its fixed point
 * and its delay-differential equations, integrated with a fixed step.
 * Everything is counted in packets (rates in packets/s, B and the RED
 * thresholds in packets), because p is a per-packet probability.
 * bench/README.md says how it is used and what it shows.
 */
#ifndef _FLUID_H
#define _FLUID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

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

/* --- a fixed-step integrator for delay-differential equations ------------- */

/*
 * x'(t) = f(t, x(t), x(t - delay)), x(t) = x0 for t <= 0, integrated with
 * Heun's method (the trapezoid rule with an Euler predictor) in steps of
 * dt, the delay rounded to a whole number D of steps. The history is a
 * ring of the last D + 1 states; both evaluations of a step read it at
 * whole steps (x(t_n - delay) and x(t_n+1 - delay)), so no interpolation
 * is needed; with D = 0 the second one is the predictor itself. @clamp,
 * if not NULL, puts a state back into its domain after every stage.
 */
typedef void (*dde_fn)(double t, const double *x, const double *xd,
		       double *dx, void *ctx);
typedef void (*dde_clamp_fn)(double *x, void *ctx);

struct dde {
	unsigned int n;		/* state dimension */
	unsigned long d;	/* delay in steps */
	double dt, t;
	unsigned long step;	/* steps taken */
	double *x;		/* current state */
	double *x0;		/* the history before t = 0 */
	double *ring;		/* (d + 1) * n: states of steps step-d..step */
	double *k1, *k2, *xp;
	dde_fn f;
	dde_clamp_fn clamp;
	void *ctx;
};

int dde_init(struct dde *e, unsigned int n, double dt, double delay,
	     const double *x0, dde_fn f, dde_clamp_fn clamp, void *ctx);
void dde_step(struct dde *e);
void dde_free(struct dde *e);

/* --- the DCQCN model ----------------------------------------------------------- */

struct fl_cfg {
	char name[64];
	struct fp_in m;		/* C, N, tau, tau', T, B, F, R_AI */
	double g;		/* alpha gain */
	double kmin, kmax;	/* RED thresholds, packets */
	double pmax;		/* marking probability at Kmax */
	double delay;		/* feedback delay tau*, s */
	double pkt_bytes;	/* packet size, for reports in bytes */
	double dt;		/* integration step, s */
	double duration;	/* s */
	double spread;		/* flow i starts at C (1 - spread i / N) */
	double sample;		/* sampling period of the metrics, s */
	const char *csv;	/* time series (NULL: none) */
	double csv_period;	/* its period, s */
};

/*
 * After the transient: the last quarter of the run, split in halves
 * (A then B) to see whether an oscillation decays. Amplitudes are
 * max - min; rates relative to C/N, the queue in bytes.
 */
struct fl_res {
	char name[64];
	unsigned int nflows;
	double c_gbps, delay_us, kmin_bytes, kmax_bytes, pmax, rai_mbps;
	double duration;
	struct fp_out fp;	/* the fixed point of these parameters */
	double q_mean, q_min, q_max;	/* bytes, over A and B */
	double q_amp_a, q_amp_b;	/* queue amplitude in A and in B */
	double r_amp_a, r_amp_b;	/* largest flow-rate amplitude / (C/N) */
	double r_mean_min, r_mean_max;	/* per-flow mean rate / (C/N) */
	double util;			/* mean sum of rates / C, A and B */
	double alpha_mean;
	double period_us;	/* queue oscillation period (0: none seen) */
	double p_mean;		/* mean marking probability (delayed q) */
	bool oscillating;	/* see fl_verdict() */
	double wall_s;
};

void fl_cfg_paper(struct fl_cfg *c, unsigned int nflows, double delay_us);
double fl_red(const struct fl_cfg *c, double q);
int fl_run(const struct fl_cfg *c, struct fl_res *r);
bool fl_verdict(const struct fl_res *r);
void fl_res_json(FILE *f, const struct fl_res *r, const char *ind);

#endif /* _FLUID_H */
