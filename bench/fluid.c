// SPDX-License-Identifier: GPL-2.0
/*
 * The CoNEXT'16 DCQCN fluid model (fluid.h): the terms of its equations,
 * its fixed point, and its delay-differential equations integrated with a
 * fixed-step Heun method and a history ring for the delay.
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
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
 * The fixed point (docs/dcqcn.md §7.2): p* solves
 * a^2 alpha / ((b+d)(c+e)) = tau^2 R_AI R at R = C/N; the
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

/* --- the integrator ---------------------------------------------------------- */

int dde_init(struct dde *e, unsigned int n, double dt, double delay,
	     const double *x0, dde_fn f, dde_clamp_fn clamp, void *ctx)
{
	unsigned long i;

	memset(e, 0, sizeof(*e));
	if (!n || !(dt > 0) || !(delay >= 0))
		return -EINVAL;
	e->n = n;
	e->dt = dt;
	e->d = (unsigned long)(delay / dt + 0.5);
	e->f = f;
	e->clamp = clamp;
	e->ctx = ctx;
	e->x = calloc(n, sizeof(double));
	e->x0 = calloc(n, sizeof(double));
	e->ring = calloc((e->d + 1) * n, sizeof(double));
	e->k1 = calloc(n, sizeof(double));
	e->k2 = calloc(n, sizeof(double));
	e->xp = calloc(n, sizeof(double));
	if (!e->x || !e->x0 || !e->ring || !e->k1 || !e->k2 || !e->xp) {
		dde_free(e);
		return -ENOMEM;
	}
	memcpy(e->x, x0, n * sizeof(double));
	memcpy(e->x0, x0, n * sizeof(double));
	for (i = 0; i <= e->d; i++)
		memcpy(&e->ring[i * n], x0, n * sizeof(double));
	return 0;
}

void dde_free(struct dde *e)
{
	free(e->x);
	free(e->x0);
	free(e->ring);
	free(e->k1);
	free(e->k2);
	free(e->xp);
	memset(e, 0, sizeof(*e));
}

/*
 * The state of step @m (m <= step): x0 before 0, else from the ring, which
 * holds steps step - d .. step at index m mod (d + 1).
 */
static const double *dde_at(const struct dde *e, long m)
{
	if (m < 0)
		return e->x0;
	return &e->ring[((unsigned long)m % (e->d + 1)) * e->n];
}

void dde_step(struct dde *e)
{
	long s = (long)e->step, d = (long)e->d;
	const double *xd1;
	unsigned int i;

	e->f(e->t, e->x, dde_at(e, s - d), e->k1, e->ctx);
	for (i = 0; i < e->n; i++)
		e->xp[i] = e->x[i] + e->dt * e->k1[i];
	if (e->clamp)
		e->clamp(e->xp, e->ctx);
	/* x(t + dt - delay): a stored step, or the predictor itself */
	xd1 = d ? dde_at(e, s + 1 - d) : e->xp;
	e->f(e->t + e->dt, e->xp, xd1, e->k2, e->ctx);
	for (i = 0; i < e->n; i++)
		e->x[i] += e->dt / 2 * (e->k1[i] + e->k2[i]);
	if (e->clamp)
		e->clamp(e->x, e->ctx);
	e->step++;
	e->t = e->step * e->dt;
	memcpy(&e->ring[(e->step % (e->d + 1)) * e->n], e->x,
	       e->n * sizeof(double));
}

/* --- the DCQCN model ----------------------------------------------------------- */

/*
 * The CoNEXT'16 defaults at 40 Gb/s with 1000-byte packets: tau 50 us,
 * tau' = T = 55 us, B = 10 MB, F = 5, R_AI = 40 Mb/s, g = 1/256, Kmin 5 KB,
 * Kmax 200 KB, Pmax 1 %; steps of 0.25 us, 200 ms.
 */
void fl_cfg_paper(struct fl_cfg *c, unsigned int nflows, double delay_us)
{
	memset(c, 0, sizeof(*c));
	c->pkt_bytes = 1000;
	c->m.c_pps = 40e9 / (8 * c->pkt_bytes);
	c->m.n = nflows;
	c->m.tau = 50e-6;
	c->m.tau_a = 55e-6;
	c->m.t_inc = 55e-6;
	c->m.b_pkts = 10e6 / c->pkt_bytes;
	c->m.f = 5;
	c->m.rai_pps = 40e6 / (8 * c->pkt_bytes);
	c->g = 1.0 / 256;
	c->kmin = 5e3 / c->pkt_bytes;
	c->kmax = 200e3 / c->pkt_bytes;
	c->pmax = 0.01;
	c->delay = delay_us * 1e-6;
	c->dt = 0.25e-6;
	c->duration = 0.2;
	c->sample = 1e-6;
	c->csv_period = 10e-6;
	snprintf(c->name, sizeof(c->name), "fluid-n%u-d%gus", nflows,
		 delay_us);
}

double fl_red(const struct fl_cfg *c, double q)
{
	if (q <= c->kmin)
		return 0;
	if (q <= c->kmax)
		return c->pmax * (q - c->kmin) / (c->kmax - c->kmin);
	return 1;
}

/* State: x[3i] = R_C(i), x[3i+1] = R_T(i), x[3i+2] = alpha(i), x[3N] = q. */
static void fl_deriv(double t, const double *x, const double *xd, double *dx,
		     void *ctx)
{
	const struct fl_cfg *c = ctx;
	unsigned int n = (unsigned int)c->m.n, i;
	double p = fl_red(c, xd[3 * n]), sum = 0, rc, rt, al;
	struct fl_terms k;

	(void)t;
	for (i = 0; i < n; i++) {
		rc = x[3 * i];
		rt = x[3 * i + 1];
		al = x[3 * i + 2];
		/* flows at the same delayed rate share the terms */
		if (!i || xd[3 * i] != xd[3 * (i - 1)])
			fl_terms(&c->m, p, xd[3 * i], &k);
		dx[3 * i] = -rc * al * k.a / (2 * c->m.tau) +
			    (rt - rc) / 2 * (k.rb + k.rd);
		dx[3 * i + 1] = -(rt - rc) * k.a / c->m.tau +
				c->m.rai_pps * (k.rc + k.re);
		dx[3 * i + 2] = c->g / c->m.tau_a * (k.am - al);
		sum += rc;
	}
	dx[3 * n] = sum - c->m.c_pps;
}

static void fl_clamp(double *x, void *ctx)
{
	const struct fl_cfg *c = ctx;
	unsigned int n = (unsigned int)c->m.n, i, k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < 2; k++)
			x[3 * i + k] = fmin(fmax(x[3 * i + k], 0), c->m.c_pps);
		x[3 * i + 2] = fmin(fmax(x[3 * i + 2], 0), 1);
	}
	x[3 * n] = fmax(x[3 * n], 0);
}

/* What fl_run() tracks over the last quarter of the run. */
struct fl_acc {
	double *qs;		/* queue samples, packets */
	size_t nq, cap;
	double *rmin, *rmax;	/* per flow and half: [2 * n] */
	double *rsum;		/* per flow */
	double qmin[2], qmax[2];
	double usum, asum, psum;
	size_t ns;
};

static void fl_sample(const struct fl_cfg *c, const struct dde *e,
		      struct fl_acc *a, int half)
{
	unsigned int n = (unsigned int)c->m.n, i;
	const double *x = e->x;
	double q = x[3 * n], sum = 0;

	a->qs[a->nq++] = q;
	a->qmin[half] = fmin(a->qmin[half], q);
	a->qmax[half] = fmax(a->qmax[half], q);
	for (i = 0; i < n; i++) {
		a->rmin[2 * i + half] = fmin(a->rmin[2 * i + half], x[3 * i]);
		a->rmax[2 * i + half] = fmax(a->rmax[2 * i + half], x[3 * i]);
		a->rsum[i] += x[3 * i];
		a->asum += x[3 * i + 2];
		sum += x[3 * i];
	}
	/* the link sends at C while a queue is left, else what arrives */
	a->usum += q > 0 ? 1 : fmin(sum / c->m.c_pps, 1);
	a->psum += fl_red(c, dde_at(e, (long)e->step - (long)e->d)[3 * n]);
	a->ns++;
}

/* Mean period of the queue's upward crossings of its mean (hysteresis
 * of 5 % of the amplitude), 0 if fewer than three. */
static double fl_period(const struct fl_acc *a, double mean, double amp,
			double sample)
{
	size_t k, first = 0, last = 0, n = 0;
	bool below = false;

	if (amp <= 0)
		return 0;
	for (k = 0; k < a->nq; k++) {
		if (a->qs[k] < mean - 0.05 * amp) {
			below = true;
		} else if (below && a->qs[k] > mean + 0.05 * amp) {
			below = false;
			if (!n++)
				first = k;
			last = k;
		}
	}
	return n >= 3 ? (double)(last - first) / (n - 1) * sample : 0;
}

static void fl_finish(const struct fl_cfg *c, struct fl_acc *a,
		      struct fl_res *r)
{
	unsigned int n = (unsigned int)c->m.n, i, h;
	double fair = c->m.c_pps / n, amp[2] = { 0, 0 }, m;
	size_t k;

	for (i = 0; i < n; i++) {
		for (h = 0; h < 2; h++)
			amp[h] = fmax(amp[h], (a->rmax[2 * i + h] -
					       a->rmin[2 * i + h]) / fair);
		m = a->rsum[i] / a->ns / fair;
		r->r_mean_min = i ? fmin(r->r_mean_min, m) : m;
		r->r_mean_max = i ? fmax(r->r_mean_max, m) : m;
	}
	r->r_amp_a = amp[0];
	r->r_amp_b = amp[1];
	r->q_amp_a = (a->qmax[0] - a->qmin[0]) * c->pkt_bytes;
	r->q_amp_b = (a->qmax[1] - a->qmin[1]) * c->pkt_bytes;
	r->q_min = fmin(a->qmin[0], a->qmin[1]) * c->pkt_bytes;
	r->q_max = fmax(a->qmax[0], a->qmax[1]) * c->pkt_bytes;
	for (m = 0, k = 0; k < a->nq; k++)
		m += a->qs[k];
	m /= a->nq;
	r->q_mean = m * c->pkt_bytes;
	r->util = a->usum / a->ns;
	r->alpha_mean = a->asum / a->ns / n;
	r->p_mean = a->psum / a->ns;
	r->period_us = fl_period(a, m, r->q_max / c->pkt_bytes -
				 r->q_min / c->pkt_bytes, c->sample) * 1e6;
	r->oscillating = fl_verdict(r);
}

/*
 * Oscillating: in the last eighth of the run some flow's rate still swings
 * by at least 2 % of C/N peak to peak, and by at least 80 % of what it
 * swung in the eighth before (not dying out); or the swing is still
 * growing (by a quarter from one eighth to the next, from 0.5 % of C/N
 * up): a delay on the edge of instability, on its way to a limit cycle.
 * Otherwise stable: settled, or settling.
 */
bool fl_verdict(const struct fl_res *r)
{
	if (r->r_amp_b >= 0.005 && r->r_amp_b >= 1.25 * r->r_amp_a)
		return true;
	return r->r_amp_b >= 0.02 && r->r_amp_b >= 0.8 * r->r_amp_a;
}

static void fl_res_init(const struct fl_cfg *c, struct fl_res *r)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", c->name);
	r->nflows = (unsigned int)c->m.n;
	r->c_gbps = c->m.c_pps * 8 * c->pkt_bytes / 1e9;
	r->delay_us = c->delay * 1e6;
	r->kmin_bytes = c->kmin * c->pkt_bytes;
	r->kmax_bytes = c->kmax * c->pkt_bytes;
	r->pmax = c->pmax;
	r->rai_mbps = c->m.rai_pps * 8 * c->pkt_bytes / 1e6;
	r->duration = c->duration;
	if (!fp_solve(&c->m, &r->fp))
		r->fp.q_bytes = (r->fp.p <= c->pmax ? c->kmin + r->fp.p /
				 c->pmax * (c->kmax - c->kmin) : c->kmax) *
				c->pkt_bytes;
}

/*
 * Integrate from every flow at line rate (R_C = R_T = C (1 - spread i/N),
 * alpha 1, an empty queue: DCQCN has no slow start) for c->duration, and
 * measure the last quarter. 0, or a negative errno.
 */
int fl_run(const struct fl_cfg *c, struct fl_res *r)
{
	unsigned int n = (unsigned int)c->m.n, i;
	unsigned long steps, every, csv_every, k, t0;
	struct fl_acc a = { .qmin = { INFINITY, INFINITY } };
	struct dde e;
	double *x0;
	FILE *csv = NULL;
	int err;

	if (n < 1 || n > 4096 || !(c->duration > 0) || !(c->sample > 0) ||
	    !(c->kmax >= c->kmin) || !(c->dt > 0))
		return -EINVAL;
	fl_res_init(c, r);
	x0 = calloc(3 * n + 1, sizeof(double));
	if (!x0)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		x0[3 * i] = c->m.c_pps * (1 - c->spread * i / n);
		x0[3 * i + 1] = x0[3 * i];
		x0[3 * i + 2] = 1;
	}
	err = dde_init(&e, 3 * n + 1, c->dt, c->delay, x0, fl_deriv, fl_clamp,
		       (void *)c);
	free(x0);
	if (err)
		return err;
	steps = (unsigned long)(c->duration / c->dt + 0.5);
	every = (unsigned long)(c->sample / c->dt + 0.5);
	csv_every = (unsigned long)(c->csv_period / c->dt + 0.5);
	every = every ? every : 1;
	csv_every = csv_every ? csv_every : 1;
	t0 = steps - steps / 4;
	a.cap = steps / 4 / every + 2;
	a.qs = calloc(a.cap, sizeof(double));
	a.rmin = malloc(2 * n * sizeof(double));
	a.rmax = calloc(2 * n, sizeof(double));
	a.rsum = calloc(n, sizeof(double));
	if (c->csv)
		csv = fopen(c->csv, "w");
	if (!a.qs || !a.rmin || !a.rmax || !a.rsum || (c->csv && !csv)) {
		err = c->csv && !csv ? -errno : -ENOMEM;
		goto out;
	}
	for (i = 0; i < 2 * n; i++)
		a.rmin[i] = INFINITY;
	if (csv)
		fprintf(csv, "t_us,queue_bytes,p,rate0_gbps,target0_gbps,"
			"alpha0,rate_last_gbps\n");
	for (k = 1; k <= steps; k++) {
		dde_step(&e);
		if (csv && !(k % csv_every))
			fprintf(csv, "%.2f,%.1f,%.5f,%.4f,%.4f,%.5f,%.4f\n",
				e.t * 1e6, e.x[3 * n] * c->pkt_bytes,
				fl_red(c, dde_at(&e, (long)e.step -
						 (long)e.d)[3 * n]),
				e.x[0] * 8 * c->pkt_bytes / 1e9,
				e.x[1] * 8 * c->pkt_bytes / 1e9, e.x[2],
				e.x[3 * (n - 1)] * 8 * c->pkt_bytes / 1e9);
		if (k > t0 && !(k % every) && a.nq < a.cap)
			fl_sample(c, &e, &a, k > t0 + (steps - t0) / 2);
	}
	fl_finish(c, &a, r);
	err = 0;
out:
	if (csv)
		fclose(csv);
	free(a.qs);
	free(a.rmin);
	free(a.rmax);
	free(a.rsum);
	dde_free(&e);
	return err;
}

static void jnum(FILE *f, const char *ind, const char *k, double v, bool last)
{
	if (isfinite(v))
		fprintf(f, "%s  \"%s\": %.6g%s\n", ind, k, v, last ? "" : ",");
	else
		fprintf(f, "%s  \"%s\": null%s\n", ind, k, last ? "" : ",");
}

/* One result as a JSON object (units in the key names). */
void fl_res_json(FILE *f, const struct fl_res *r, const char *ind)
{
	fprintf(f, "%s{\n%s  \"name\": \"%s\",\n", ind, ind, r->name);
	fprintf(f, "%s  \"flows\": %u,\n", ind, r->nflows);
	jnum(f, ind, "link_gbps", r->c_gbps, false);
	jnum(f, ind, "feedback_delay_us", r->delay_us, false);
	jnum(f, ind, "kmin_bytes", r->kmin_bytes, false);
	jnum(f, ind, "kmax_bytes", r->kmax_bytes, false);
	jnum(f, ind, "pmax", r->pmax, false);
	jnum(f, ind, "rai_mbps", r->rai_mbps, false);
	jnum(f, ind, "duration_s", r->duration, false);
	jnum(f, ind, "pred_mark_prob", r->fp.p, false);
	jnum(f, ind, "pred_queue_bytes", r->fp.q_bytes, false);
	jnum(f, ind, "pred_alpha", r->fp.alpha, false);
	jnum(f, ind, "queue_mean_bytes", r->q_mean, false);
	jnum(f, ind, "queue_min_bytes", r->q_min, false);
	jnum(f, ind, "queue_max_bytes", r->q_max, false);
	jnum(f, ind, "queue_amp_a_bytes", r->q_amp_a, false);
	jnum(f, ind, "queue_amp_b_bytes", r->q_amp_b, false);
	jnum(f, ind, "rate_amp_a_over_fair", r->r_amp_a, false);
	jnum(f, ind, "rate_amp_b_over_fair", r->r_amp_b, false);
	jnum(f, ind, "rate_mean_min_over_fair", r->r_mean_min, false);
	jnum(f, ind, "rate_mean_max_over_fair", r->r_mean_max, false);
	jnum(f, ind, "utilisation", r->util, false);
	jnum(f, ind, "alpha_mean", r->alpha_mean, false);
	jnum(f, ind, "mark_prob_mean", r->p_mean, false);
	jnum(f, ind, "period_us", r->period_us, false);
	fprintf(f, "%s  \"oscillating\": %s,\n", ind,
		r->oscillating ? "true" : "false");
	jnum(f, ind, "wall_s", r->wall_s, true);
	fprintf(f, "%s}", ind);
}
