// SPDX-License-Identifier: GPL-2.0
/*
 * dcqcn_sim - DCQCN at scale: N flows through one bottleneck, packet by
 * packet, driving the shared core (include/rocecc/dcqcn.h) unchanged:
 * every sender is a struct rocecc_rp (rocecc_rp_init, rocecc_rp_on_send,
 * rocecc_rp_on_cnp, rocecc_rp_advance and its pacing multiplier), every
 * receiver a struct rocecc_np (rocecc_np_on_ce, rocecc_np_poll,
 * rocecc_np_next_due). This file only adds the network: a FIFO switch queue
 * with RED/ECN marking, propagation delays, optional PFC, and measurement.
 *
 *   dcqcn_sim [options] [NAME=VALUE]...     one run, a report on stdout
 *   dcqcn_sim --suite DIR [--jobs J]        the benchmark suite: writes
 *                                           DIR/results.json, DIR/summary.md
 *
 * The model and the metrics are described in bench/README.md.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "dcqcn_sim.h"
#include "suite.h"

#define PACE_ONE	(1ULL << ROCECC_RP_PACE_SHIFT)

static const char *const profile_name[__ROCECC_PROFILE_MAX] = {
	[ROCECC_PROFILE_MLX5] = "mlx5",
	[ROCECC_PROFILE_PAPER] = "paper",
};

/* --- RED/ECN marking ---------------------------------------------------- */

/*
 * Marking probability of a packet that finds @q bytes in the queue when it
 * arrives (the paper's CP, docs/dcqcn.md §1.2): 0 up to and including
 * Kmin, Pmax * (q - Kmin) / (Kmax - Kmin) above Kmin up to and including
 * Kmax, 1 above Kmax. Instantaneous queue, no EWMA.
 */
double red_prob(uint64_t q, uint64_t kmin, uint64_t kmax, double pmax)
{
	if (q <= kmin)
		return 0.0;
	if (q <= kmax)
		return pmax * (double)(q - kmin) / (double)(kmax - kmin);
	return 1.0;
}

/* --- PRNG: splitmix64 (deterministic, seeded) --------------------------- */

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double rng_unit(uint64_t *s)
{
	return (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* --- event queue ----------------------------------------------------------- */

void heap_init(struct sim_heap *h)
{
	memset(h, 0, sizeof(*h));
}

void heap_free(struct sim_heap *h)
{
	free(h->a);
	memset(h, 0, sizeof(*h));
}

static inline bool ev_before(const struct sim_ev *x, const struct sim_ev *y)
{
	return x->t < y->t || (x->t == y->t && x->seq < y->seq);
}

void heap_push(struct sim_heap *h, uint64_t t, uint32_t type, uint32_t flow,
	       uint64_t gen)
{
	struct sim_ev ev = { .t = t, .seq = h->seq++, .gen = gen,
			     .type = type, .flow = flow };
	size_t i, up;

	if (h->n == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 1024;
		h->a = realloc(h->a, h->cap * sizeof(*h->a));
		if (!h->a) {
			perror("dcqcn_sim: realloc");
			exit(1);
		}
	}
	for (i = h->n++; i; i = up) {
		up = (i - 1) / 2;
		if (!ev_before(&ev, &h->a[up]))
			break;
		h->a[i] = h->a[up];
	}
	h->a[i] = ev;
}

bool heap_pop(struct sim_heap *h, struct sim_ev *ev)
{
	struct sim_ev last;
	size_t i, c;

	if (!h->n)
		return false;
	*ev = h->a[0];
	last = h->a[--h->n];
	for (i = 0; (c = 2 * i + 1) < h->n; i = c) {
		if (c + 1 < h->n && ev_before(&h->a[c + 1], &h->a[c]))
			c++;
		if (!ev_before(&h->a[c], &last))
			break;
		h->a[i] = h->a[c];
	}
	if (h->n)
		h->a[i] = last;
	return true;
}

/* --- fluid-model fixed point (fluid.c) --------------------------------- */

/*
 * The fixed point for a run's configuration: tau is the NP's CNP interval
 * (or the RP's monitor period if longer: no more cuts than that), tau' the
 * alpha period, T, B, F, R_AI as the parameters say; q* from p* through
 * the RED curve (Kmax if p* > Pmax: the curve jumps to 1 there).
 */
void fp_from_cfg(const struct sim_cfg *c, struct fp_in *in)
{
	const __u32 *v = c->p.v;
	double np = v[ROCECC_PARAM_NP_MIN_TIME_BETWEEN_CNPS];
	double mon = v[ROCECC_PARAM_RP_RATE_REDUCE_MONITOR_PERIOD];
	double bits = 8.0 * c->pkt_bytes;

	in->c_pps = c->link_mbps * 1e6 / bits;
	in->n = c->nflows;
	in->tau = (np > mon ? np : mon) * 1e-6;
	if (in->tau <= 0)
		in->tau = 1e-6;
	in->tau_a = v[ROCECC_PARAM_RP_DCE_TCP_RTT] * 1e-6;
	in->t_inc = v[ROCECC_PARAM_RP_TIME_RESET] * 1e-6;
	in->b_pkts = v[ROCECC_PARAM_RP_BYTE_RESET] * 64.0 / c->pkt_bytes;
	in->f = v[ROCECC_PARAM_RP_THRESHOLD];
	in->rai_pps = v[ROCECC_PARAM_RP_AI_RATE] * 1e6 / bits;
}

static void fp_predict(const struct sim_cfg *c, struct fp_out *out)
{
	struct fp_in in;

	fp_from_cfg(c, &in);
	if (fp_solve(&in, out))
		return;
	if (out->p <= c->pmax)
		out->q_bytes = c->kmin_bytes + out->p / c->pmax *
			       (double)(c->kmax_bytes - c->kmin_bytes);
	else
		out->q_bytes = c->kmax_bytes;
}

/* --- configuration ------------------------------------------------------------ */

/*
 * Defaults: 100 Gb/s, 2 flows, 1000-byte packets, 4 us feedback delay,
 * the paper's Kmin 5 KB / Kmax 200 KB / Pmax 1 % at 40 Gb/s scaled with
 * the link rate (same queueing delay), PFC XOFF at 10 * Kmax, 100 ms.
 */
static void sim_cfg_scale_red(struct sim_cfg *c)
{
	c->kmin_bytes = (uint64_t)(5000.0 * c->link_mbps / 40000.0 + 0.5);
	c->kmax_bytes = (uint64_t)(200000.0 * c->link_mbps / 40000.0 + 0.5);
	c->pfc_bytes = 10 * c->kmax_bytes;
}

void sim_cfg_default(struct sim_cfg *c, unsigned int profile)
{
	memset(c, 0, sizeof(*c));
	c->profile = profile;
	rocecc_params_load(&c->p, profile);
	c->nflows = 2;
	c->link_mbps = 100000;
	c->pkt_bytes = 1000;
	c->delay_ns = 4000;
	sim_cfg_scale_red(c);
	c->pmax = 0.01;
	c->duration_ns = 100000000;
	c->steady_frac = 0.5;
	c->conv_jain = 0.99;
	c->qsample_ns = 1000;
	c->jitter_ns = 10000;
	c->seed = 1;
	c->csv_ns = 100000;
}

/* --- the simulator ------------------------------------------------------------ */

struct flow {
	struct rocecc_rp rp;
	struct rocecc_np np;
	uint64_t next_fp;	/* next departure, ns << PACE_SHIFT */
	uint64_t last_fp;	/* last departure, ns << PACE_SHIFT */
	uint64_t gen;		/* generation of the live EV_SEND */
	uint64_t paused_ns;
	uint64_t paused_steady_ns;	/* the part in the steady window */
	uint64_t paused_until;	/* PFC: no departure before this (ns) */
	double rs, rss, as;	/* steady rate samples: sum, sum of squares,
				 * alpha sum */
	uint8_t poll_pending;
	uint8_t sent_any;
};

struct sim {
	const struct sim_cfg *c;
	struct sim_heap h;
	struct flow *f;
	uint64_t rng;
	uint64_t busy_ps;	/* when the bottleneck queue runs empty */
	uint64_t ser_ps;	/* one packet's serialisation at C */
	uint64_t d_fwd, d_rev;	/* switch -> receiver, receiver -> sender */
	uint64_t steady_t0;
	uint64_t win_ns;
	size_t nwin;
	uint64_t *win_bytes;	/* [window][flow], by departure time */
	uint32_t *win_pfc;	/* [window]: PAUSEs that began in it */
	uint32_t *qs;		/* steady queue samples, bytes */
	size_t nqs, capqs;
	uint64_t rate_every;	/* rate samples every this many ticks */
	uint64_t csv_every;
	uint64_t ticks, nrs;
	FILE *csv;
	struct sim_res *r;
	uint64_t st_arrived, st_marked;
};

static uint64_t q_bytes(const struct sim *s, uint64_t t)
{
	uint64_t now = t * 1000;

	if (s->busy_ps <= now)
		return 0;
	return (s->busy_ps - now) * s->c->link_mbps / 8000000;
}

/*
 * (Re)schedule flow @i's next departure at time @t, after anything that
 * may have changed its rate: one gap at the current rate after the last
 * departure (a hardware rate limiter applies a new rate at once), not
 * before @t nor before a PFC pause ends. If the RP's next timer increase
 * event comes first, wake up then instead and look again: otherwise a flow
 * cut to 1 Mb/s would sleep 8 ms while its timer raises the rate.
 * Every call supersedes the flow's previous event (generation count).
 */
static void schedule(struct sim *s, unsigned int i, uint64_t t)
{
	struct flow *f = &s->f[i];
	uint64_t fp = f->last_fp, ns;

	if (f->sent_any)
		fp += (uint64_t)s->c->pkt_bytes * f->rp.pace_mult;
	if (fp < (t << ROCECC_RP_PACE_SHIFT))
		fp = t << ROCECC_RP_PACE_SHIFT;
	if (fp < (f->paused_until << ROCECC_RP_PACE_SHIFT))
		fp = f->paused_until << ROCECC_RP_PACE_SHIFT;
	f->next_fp = fp;
	f->gen++;
	ns = (fp + PACE_ONE / 2) >> ROCECC_RP_PACE_SHIFT;
	if (f->rp.limited && f->rp.next_timer > t && f->rp.next_timer < ns)
		heap_push(&s->h, f->rp.next_timer, EV_WAKE, i, f->gen);
	else
		heap_push(&s->h, ns, EV_SEND, i, f->gen);
}

/*
 * Flow @f is paused from @t to @resume: count the pause, its share of the
 * steady window, and mark its window as not converged.
 */
static void pfc_pause(struct sim *s, struct flow *f, uint64_t t,
		      uint64_t resume)
{
	uint64_t w = t / s->win_ns;

	f->paused_ns += resume - t;
	if (resume > s->steady_t0)
		f->paused_steady_ns += resume -
			(t > s->steady_t0 ? t : s->steady_t0);
	f->paused_until = resume;
	s->r->pfc_pauses++;
	if (t >= s->steady_t0)
		s->r->pfc_pauses_steady++;
	if (w < s->nwin)
		s->win_pfc[w]++;
}

/*
 * RED/ECN on a packet of flow @i seen at @t with @q bytes ahead of (at
 * enqueue) or behind (at dequeue) it; a mark reaches the NP half the
 * feedback delay after the packet's last bit leaves the switch at @dep.
 */
static void mark_packet(struct sim *s, unsigned int i, uint64_t t,
			uint64_t q, uint64_t dep)
{
	const struct sim_cfg *c = s->c;
	double pm = red_prob(q, c->kmin_bytes, c->kmax_bytes, c->pmax);
	bool mark = pm >= 1.0 || (pm > 0 && rng_unit(&s->rng) < pm);

	if (t >= s->steady_t0) {
		s->st_arrived++;
		s->st_marked += mark;
	}
	if (mark) {
		s->r->marked++;
		heap_push(&s->h, dep + s->d_fwd, EV_CE, i, 0);
	}
}

/*
 * Egress marking: the packet of flow @i starts to leave at @t (its last
 * bit at @dep); the queue behind it is every byte still to send after it.
 */
static void ev_deq(struct sim *s, unsigned int i, uint64_t t, uint64_t dep)
{
	uint64_t left = q_bytes(s, t), self = s->c->pkt_bytes;

	mark_packet(s, i, t, left > self ? left - self : 0, dep);
}

static void ev_send(struct sim *s, unsigned int i, uint64_t t)
{
	const struct sim_cfg *c = s->c;
	struct flow *f = &s->f[i];
	uint64_t q = q_bytes(s, t), dep, w, start, resume, xon;

	/*
	 * PFC: above XOFF the switch pauses every sender until the queue
	 * drains to XON = XOFF - N packets, so that every paused flow can
	 * send about one packet per pause cycle (PAUSE frames take no time
	 * in this model).
	 */
	if (c->pfc_bytes && q > c->pfc_bytes) {
		xon = c->pfc_bytes > (uint64_t)c->nflows * c->pkt_bytes ?
		      c->pfc_bytes - (uint64_t)c->nflows * c->pkt_bytes : 0;
		resume = (s->busy_ps - xon * 8000000 /
			  c->link_mbps + 999) / 1000;
		if (resume <= t)
			resume = t + 1;
		pfc_pause(s, f, t, resume);
		schedule(s, i, t);
		return;
	}

	rocecc_rp_on_send(&f->rp, &c->p, t, c->pkt_bytes);
	s->r->packets++;

	start = s->busy_ps > t * 1000 ? s->busy_ps : t * 1000;
	s->busy_ps = start + s->ser_ps;
	dep = s->busy_ps / 1000;		/* last bit leaves the switch */
	w = dep / s->win_ns;
	if (w < s->nwin)
		s->win_bytes[w * c->nflows + i] += c->pkt_bytes;
	if ((double)q > s->r->q_max_all)
		s->r->q_max_all = (double)q;
	if (c->mark_dequeue)
		heap_push(&s->h, (start + 999) / 1000, EV_DEQ, i, dep);
	else
		mark_packet(s, i, t, q, dep);

	/*
	 * Pace from the core's multiplier (rocecc_rp_delay_ns without its
	 * per-packet rounding to whole ns: at 400 Gb/s a packet lasts
	 * 20 ns, and rounding would bias the rate).
	 */
	f->last_fp = f->next_fp;
	f->sent_any = 1;
	schedule(s, i, t);
}

static void ev_cnp(struct sim *s, unsigned int i, uint64_t t)
{
	struct flow *f = &s->f[i];

	rocecc_rp_on_cnp(&f->rp, &s->c->p, t);
	if (f->sent_any)
		schedule(s, i, t);
}

/* The RP's timer increase event is due: bring the RP to @t, look again. */
static void ev_wake(struct sim *s, unsigned int i, uint64_t t)
{
	rocecc_rp_advance(&s->f[i].rp, &s->c->p, t);
	schedule(s, i, t);
}

static void cnp_out(struct sim *s, unsigned int i, uint64_t t)
{
	s->r->cnp_sent++;
	heap_push(&s->h, t + s->d_rev, EV_CNP, i, 0);
}

static void ev_ce(struct sim *s, unsigned int i, uint64_t t)
{
	struct flow *f = &s->f[i];

	if (rocecc_np_on_ce(&f->np, &s->c->p, t) == ROCECC_NP_SEND_CNP) {
		cnp_out(s, i, t);
	} else if (!f->poll_pending) {
		f->poll_pending = 1;
		heap_push(&s->h, rocecc_np_next_due(&f->np, &s->c->p),
			  EV_NP_POLL, i, 0);
	}
}

static void ev_np_poll(struct sim *s, unsigned int i, uint64_t t)
{
	struct flow *f = &s->f[i];

	f->poll_pending = 0;
	if (rocecc_np_poll(&f->np, &s->c->p, t) == ROCECC_NP_SEND_CNP)
		cnp_out(s, i, t);
}

static void ev_tick(struct sim *s, uint64_t t)
{
	const struct sim_cfg *c = s->c;
	bool rates = !(s->ticks % s->rate_every);
	bool csv = s->csv && !(s->ticks % s->csv_every);
	uint64_t q = q_bytes(s, t);
	unsigned int i;
	double r;

	s->ticks++;
	if (t >= s->steady_t0) {
		if (s->nqs == s->capqs) {
			s->capqs = s->capqs ? 2 * s->capqs : 65536;
			s->qs = realloc(s->qs, s->capqs * sizeof(*s->qs));
			if (!s->qs) {
				perror("dcqcn_sim: realloc");
				exit(1);
			}
		}
		s->qs[s->nqs++] = q > UINT32_MAX ? UINT32_MAX : (uint32_t)q;
	}
	if ((double)q > s->r->q_max_all)
		s->r->q_max_all = (double)q;
	if (!(rates && t >= s->steady_t0) && !csv)
		goto next;
	/* rocecc_rp_advance only evaluates due events early: no effect on
	 * the flow's future (the core's lazy-evaluation guarantee). */
	for (i = 0; i < c->nflows; i++)
		rocecc_rp_advance(&s->f[i].rp, &c->p, t);
	if (rates && t >= s->steady_t0) {
		s->nrs++;
		for (i = 0; i < c->nflows; i++) {
			r = s->f[i].rp.rate / 1000.0;
			s->f[i].rs += r;
			s->f[i].rss += r * r;
			s->f[i].as += s->f[i].rp.alpha / 1024.0;
		}
	}
	if (csv) {
		fprintf(s->csv, "%.1f,%" PRIu64, t / 1000.0, q);
		for (i = 0; i < c->nflows; i++)
			fprintf(s->csv, ",%.3f", s->f[i].rp.rate / 1000.0);
		fputc('\n', s->csv);
	}
next:
	heap_push(&s->h, t + c->qsample_ns, EV_TICK, 0, 0);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static double pct(const uint32_t *v, size_t n, double p)
{
	size_t k;

	if (!n)
		return 0;
	k = (size_t)(p * (n - 1) + 0.5);
	return v[k < n ? k : n - 1];
}

/*
 * Window @w is fair when no PAUSE began in it and Jain's index over the
 * flows' bytes in it is at least conv_jain. Jain's index, not a band
 * around C/N on every flow: a window in which the link ran below
 * capacity is a utilisation matter, measured on its own, and with 64
 * flows whose rates each swing a few percent around C/N on the AIMD
 * sawtooth some flow is always 10 % off in a 1 ms window, however fair
 * the run. Without the PAUSE rule a start-up held fair by PFC (every flow
 * at line rate, one packet each per pause cycle) would count.
 */
static bool window_fair(const struct sim *s, size_t w)
{
	unsigned int n = s->c->nflows, i;
	const uint64_t *b = &s->win_bytes[w * n];
	double sum = 0, sum2 = 0;

	if (s->win_pfc[w])
		return false;
	for (i = 0; i < n; i++) {
		sum += b[i];
		sum2 += (double)b[i] * b[i];
	}
	return sum2 > 0 && sum * sum / (n * sum2) >= s->c->conv_jain;
}

/*
 * Convergence, Jain's index, utilisation, throughput spread, all from the
 * per-window bytes; everything but convergence over the steady windows
 * (those that start at or after the steady window's start).
 */
static void finish_windows(struct sim *s)
{
	const struct sim_cfg *c = s->c;
	struct sim_res *r = s->r;
	unsigned int n = c->nflows, i;
	double fair = (double)c->link_mbps * 1e6 / 8 * s->win_ns * 1e-9 / n;
	double sum = 0, sum2 = 0, x, lo = INFINITY, hi = 0;
	size_t w, w0 = s->nwin, w_st = s->steady_t0 / s->win_ns, good = 0;
	bool ok;

	/* windows before w_st may straddle the steady start */
	if (w_st * s->win_ns < s->steady_t0)
		w_st++;
	for (w = s->nwin; w-- > 0; ) {
		ok = window_fair(s, w);
		if (ok && w0 == w + 1)
			w0 = w;
		if (ok && w >= w_st)
			good++;
	}
	r->fair_frac = s->nwin > w_st ? (double)good / (s->nwin - w_st) : 0;
	/* the converged suffix must cover at least a quarter of the run */
	if (s->nwin - w0 >= 2 && (s->nwin - w0) * 4 >= s->nwin)
		r->conv_ns = (int64_t)(w0 * s->win_ns);
	else
		r->conv_ns = -1;

	for (i = 0; i < n; i++) {
		x = 0;
		for (w = w_st; w < s->nwin; w++)
			x += s->win_bytes[w * n + i];
		sum += x;
		sum2 += x * x;
		lo = x < lo ? x : lo;
		hi = x > hi ? x : hi;
	}
	r->jain = sum2 > 0 ? sum * sum / (n * sum2) : 0;
	x = fair * (s->nwin - w_st);
	r->thr_min = x > 0 ? lo / x : 0;
	r->thr_max = x > 0 ? hi / x : 0;
	r->util = x > 0 ? sum / (x * n) : 0;
}

/*
 * The queue's oscillation: its samples averaged over bins of ACF_BIN
 * samples, then their autocorrelation r(k) for lags up to ACF_LAGS bins.
 * The first peak after r first turns negative gives the period and, by
 * its height, how regular the oscillation is: near 1 for a limit cycle,
 * near 0 for a sawtooth driven by random marks. 0 and 0 if r never turns
 * negative or has no peak there.
 */
#define ACF_BIN		10	/* samples (10 us at the default 1 us) */
#define ACF_LAGS	2000	/* bins (20 ms) */

void queue_acf_peak(const uint32_t *q, size_t n, size_t bin, double *lag,
		    double *peak)
{
	size_t nb = n / bin, i, k, best = 0;
	double *x, m = 0, c0 = 0, c, prev = 0, top = 0;
	bool neg = false;

	*lag = *peak = 0;
	if (nb < 4 || !(x = calloc(nb, sizeof(*x))))
		return;
	for (i = 0; i < nb * bin; i++)
		x[i / bin] += q[i] / (double)bin;
	for (i = 0; i < nb; i++)
		m += x[i] / nb;
	for (i = 0; i < nb; i++) {
		x[i] -= m;
		c0 += x[i] * x[i];
	}
	for (k = 1; c0 > 0 && k < nb / 2 && k <= ACF_LAGS; k++) {
		for (c = 0, i = 0; i + k < nb; i++)
			c += x[i] * x[i + k];
		c /= c0 * (nb - k) / nb;
		if (c < 0)
			neg = true;
		else if (neg && c < prev && prev > 0) {
			best = k - 1;
			top = prev;
			break;
		}
		prev = c;
	}
	free(x);
	if (best) {
		*lag = (double)best * bin;
		*peak = top;
	}
}

static void finish_queue(struct sim *s)
{
	struct sim_res *r = s->r;
	double m = 0, v = 0;
	size_t k;

	queue_acf_peak(s->qs, s->nqs, ACF_BIN, &r->q_period_ns, &r->q_acf);
	r->q_period_ns *= s->c->qsample_ns;

	for (k = 0; k < s->nqs; k++)
		m += s->qs[k];
	m = s->nqs ? m / s->nqs : 0;
	for (k = 0; k < s->nqs; k++)
		v += (s->qs[k] - m) * (s->qs[k] - m);
	v = s->nqs ? v / s->nqs : 0;
	qsort(s->qs, s->nqs, sizeof(*s->qs), cmp_u32);
	r->q_mean = m;
	r->q_std = sqrt(v);
	r->q_cv = m > 0 ? r->q_std / m : 0;
	r->q_min = pct(s->qs, s->nqs, 0);
	r->q_p1 = pct(s->qs, s->nqs, 0.01);
	r->q_p50 = pct(s->qs, s->nqs, 0.5);
	r->q_p99 = pct(s->qs, s->nqs, 0.99);
	r->q_max = pct(s->qs, s->nqs, 1);
}

static void finish_flows(struct sim *s)
{
	const struct sim_cfg *c = s->c;
	struct sim_res *r = s->r;
	double cv = 0, a = 0, m, var;
	uint64_t paused = 0, paused_st = 0;
	unsigned int i;

	for (i = 0; i < c->nflows; i++) {
		struct flow *f = &s->f[i];

		r->cnp_handled += f->rp.cnp_handled;
		r->cnp_ignored += f->rp.cnp_ignored;
		paused += f->paused_ns;
		paused_st += f->paused_steady_ns;
		if (!s->nrs)
			continue;
		m = f->rs / s->nrs;
		var = f->rss / s->nrs - m * m;
		cv += m > 0 && var > 0 ? sqrt(var) / m : 0;
		a += f->as / s->nrs;
	}
	r->rate_cv = cv / c->nflows;
	r->alpha_mean = a / c->nflows;
	r->pfc_paused_frac = (double)paused / c->nflows / c->duration_ns;
	r->pfc_paused_steady_frac = r->steady_ns ? (double)paused_st /
				    c->nflows / r->steady_ns : 0;
}

/*
 * Run one configuration; 0, or -1 with a message if the configuration is
 * invalid. Deterministic: the same configuration gives the same result.
 */
static bool sim_cfg_ok(const struct sim_cfg *c)
{
	return c->nflows && c->nflows <= SIM_FLOWS_MAX && c->link_mbps &&
	       c->link_mbps <= ROCECC_RATE_MAX_MBPS && c->pkt_bytes &&
	       c->pkt_bytes <= 9000 && c->kmax_bytes >= c->kmin_bytes &&
	       c->pmax >= 0 && c->pmax <= 1 && c->qsample_ns &&
	       c->duration_ns >= 10 * c->qsample_ns &&
	       c->steady_frac > 0 && c->steady_frac <= 1 &&
	       !rocecc_params_validate(&c->p);
}

/* The result's copy of the configuration, and the fluid model's prediction. */
static void sim_res_init(const struct sim_cfg *c, struct sim_res *r)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", c->name);
	r->profile = c->profile;
	r->nflows = c->nflows;
	r->link_mbps = c->link_mbps;
	r->pkt_bytes = c->pkt_bytes;
	r->delay_ns = c->delay_ns;
	r->kmin_bytes = c->kmin_bytes;
	r->kmax_bytes = c->kmax_bytes;
	r->pfc_bytes = c->pfc_bytes;
	r->pmax = c->pmax;
	r->sim_ns = c->duration_ns;
	r->seed = c->seed;
	r->conv_jain = c->conv_jain;
	fp_predict(c, &r->pred);
}

/* Link timing, the measurement windows and the per-flow arrays. */
static void sim_setup(struct sim *s)
{
	const struct sim_cfg *c = s->c;
	double fair_bps;

	s->ser_ps = (uint64_t)c->pkt_bytes * 8000000 / c->link_mbps;
	s->d_fwd = c->delay_ns / 2;
	s->d_rev = c->delay_ns - s->d_fwd;
	s->steady_t0 = c->duration_ns -
		       (uint64_t)(c->steady_frac * c->duration_ns);
	s->r->steady_ns = c->duration_ns - s->steady_t0;
	/* auto window: >= 1 ms and >= 50 packets at fair share, 100 us steps */
	fair_bps = (double)c->link_mbps * 1e6 / c->nflows;
	s->win_ns = c->win_ns;
	if (!s->win_ns) {
		s->win_ns = (uint64_t)(50.0 * 8 * c->pkt_bytes / fair_bps * 1e9);
		s->win_ns = (s->win_ns + 99999) / 100000 * 100000;
		if (s->win_ns < 1000000)
			s->win_ns = 1000000;
	}
	s->r->win_ns = s->win_ns;
	s->nwin = c->duration_ns / s->win_ns;
	s->win_bytes = calloc(s->nwin * c->nflows + 1, sizeof(*s->win_bytes));
	s->win_pfc = calloc(s->nwin + 1, sizeof(*s->win_pfc));
	s->f = calloc(c->nflows, sizeof(*s->f));
	if (!s->win_bytes || !s->win_pfc || !s->f) {
		perror("dcqcn_sim: calloc");
		exit(1);
	}
	/* per-flow rate samples: every 10 us, or N us for N > 10 flows */
	s->rate_every = (c->nflows > 10 ? c->nflows * 1000ULL : 10000ULL) /
			c->qsample_ns;
	if (!s->rate_every)
		s->rate_every = 1;
	s->csv_every = c->csv_ns / c->qsample_ns ? c->csv_ns / c->qsample_ns : 1;
}

/* The queue/rate time series c->csv, header written; -1 if it can't open. */
static int sim_csv_open(struct sim *s)
{
	unsigned int i;

	s->csv = fopen(s->c->csv, "w");
	if (!s->csv) {
		fprintf(stderr, "dcqcn_sim: %s: %s\n", s->c->csv, strerror(errno));
		return -1;
	}
	fprintf(s->csv, "t_us,queue_bytes");
	for (i = 0; i < s->c->nflows; i++)
		fprintf(s->csv, ",rate%u_mbps", i);
	fputc('\n', s->csv);
	return 0;
}

static void sim_event(struct sim *s, const struct sim_ev *ev)
{
	switch (ev->type) {
	case EV_SEND:
		if (ev->gen == s->f[ev->flow].gen)
			ev_send(s, ev->flow, ev->t);
		break;
	case EV_CE:
		ev_ce(s, ev->flow, ev->t);
		break;
	case EV_NP_POLL:
		ev_np_poll(s, ev->flow, ev->t);
		break;
	case EV_CNP:
		ev_cnp(s, ev->flow, ev->t);
		break;
	case EV_WAKE:
		if (ev->gen == s->f[ev->flow].gen)
			ev_wake(s, ev->flow, ev->t);
		break;
	case EV_TICK:
		ev_tick(s, ev->t);
		break;
	case EV_DEQ:
		ev_deq(s, ev->flow, ev->t, ev->gen);
		break;
	}
}

int sim_run(const struct sim_cfg *c, struct sim_res *r)
{
	struct sim s = { .c = c, .r = r, .rng = c->seed };
	struct sim_ev ev;
	unsigned int i;

	if (!sim_cfg_ok(c)) {
		fprintf(stderr, "dcqcn_sim: invalid configuration\n");
		return -1;
	}
	if (c->csv && sim_csv_open(&s))
		return -1;
	sim_res_init(c, r);
	sim_setup(&s);

	heap_init(&s.h);
	for (i = 0; i < c->nflows; i++) {
		uint64_t t0 = c->jitter_ns ? rng_next(&s.rng) % c->jitter_ns : 0;

		rocecc_rp_init(&s.f[i].rp, &c->p, c->link_mbps * 1000U);
		rocecc_np_init(&s.f[i].np);
		s.f[i].last_fp = t0 << ROCECC_RP_PACE_SHIFT;
		schedule(&s, i, t0);
	}
	heap_push(&s.h, 0, EV_TICK, 0, 0);

	while (heap_pop(&s.h, &ev) && ev.t < c->duration_ns) {
		r->events++;
		sim_event(&s, &ev);
	}

	r->mark_frac = s.st_arrived ? (double)s.st_marked / s.st_arrived : 0;
	finish_windows(&s);
	finish_queue(&s);
	finish_flows(&s);

	if (s.csv)
		fclose(s.csv);
	heap_free(&s.h);
	free(s.qs);
	free(s.win_bytes);
	free(s.win_pfc);
	free(s.f);
	return 0;
}

/* --- output --------------------------------------------------------------------- */

static void jnum(FILE *f, const char *ind, const char *k, double v,
		 bool last)
{
	if (isfinite(v))
		fprintf(f, "%s  \"%s\": %.6g%s\n", ind, k, v, last ? "" : ",");
	else
		fprintf(f, "%s  \"%s\": null%s\n", ind, k, last ? "" : ",");
}

static void jint(FILE *f, const char *ind, const char *k, uint64_t v)
{
	fprintf(f, "%s  \"%s\": %" PRIu64 ",\n", ind, k, v);
}

/* One result as a JSON object (units in the key names). */
void res_json(FILE *f, const struct sim_res *r, const char *ind)
{
	fprintf(f, "%s{\n", ind);
	fprintf(f, "%s  \"name\": \"%s\",\n", ind, r->name);
	fprintf(f, "%s  \"profile\": \"%s\",\n", ind,
		r->profile < __ROCECC_PROFILE_MAX ? profile_name[r->profile]
						  : "custom");
	jint(f, ind, "flows", r->nflows);
	jint(f, ind, "link_mbps", r->link_mbps);
	jint(f, ind, "pkt_bytes", r->pkt_bytes);
	jint(f, ind, "feedback_delay_ns", r->delay_ns);
	jint(f, ind, "kmin_bytes", r->kmin_bytes);
	jint(f, ind, "kmax_bytes", r->kmax_bytes);
	jnum(f, ind, "pmax", r->pmax, false);
	jint(f, ind, "pfc_xoff_bytes", r->pfc_bytes);
	jint(f, ind, "seed", r->seed);
	jint(f, ind, "sim_ns", r->sim_ns);
	jint(f, ind, "steady_ns", r->steady_ns);
	jint(f, ind, "window_ns", r->win_ns);
	jint(f, ind, "events", r->events);
	jint(f, ind, "packets", r->packets);
	jint(f, ind, "marked", r->marked);
	jint(f, ind, "cnp_sent", r->cnp_sent);
	jint(f, ind, "cnp_handled", r->cnp_handled);
	jint(f, ind, "cnp_ignored", r->cnp_ignored);
	jint(f, ind, "pfc_pauses", r->pfc_pauses);
	jint(f, ind, "pfc_pauses_steady", r->pfc_pauses_steady);
	jnum(f, ind, "pfc_paused_frac", r->pfc_paused_frac, false);
	jnum(f, ind, "pfc_paused_steady_frac", r->pfc_paused_steady_frac,
	     false);
	jnum(f, ind, "conv_jain", r->conv_jain, false);
	if (r->conv_ns >= 0)
		jnum(f, ind, "convergence_ns", (double)r->conv_ns, false);
	else
		jnum(f, ind, "convergence_ns", NAN, false);
	jnum(f, ind, "steady_fair_frac", r->fair_frac, false);
	jnum(f, ind, "jain", r->jain, false);
	jnum(f, ind, "utilisation", r->util, false);
	jnum(f, ind, "thr_min_over_fair", r->thr_min, false);
	jnum(f, ind, "thr_max_over_fair", r->thr_max, false);
	jnum(f, ind, "mark_prob", r->mark_frac, false);
	jnum(f, ind, "queue_min_bytes", r->q_min, false);
	jnum(f, ind, "queue_p1_bytes", r->q_p1, false);
	jnum(f, ind, "queue_p50_bytes", r->q_p50, false);
	jnum(f, ind, "queue_p99_bytes", r->q_p99, false);
	jnum(f, ind, "queue_max_bytes", r->q_max, false);
	jnum(f, ind, "queue_max_all_bytes", r->q_max_all, false);
	jnum(f, ind, "queue_mean_bytes", r->q_mean, false);
	jnum(f, ind, "queue_std_bytes", r->q_std, false);
	jnum(f, ind, "queue_cv", r->q_cv, false);
	jnum(f, ind, "queue_period_ns", r->q_period_ns, false);
	jnum(f, ind, "queue_acf_peak", r->q_acf, false);
	jnum(f, ind, "rate_cv", r->rate_cv, false);
	jnum(f, ind, "alpha_mean", r->alpha_mean, false);
	jnum(f, ind, "pred_fair_mbps",
	     r->pred.rate_pps * 8 * r->pkt_bytes / 1e6, false);
	jnum(f, ind, "pred_mark_prob", r->pred.p, false);
	jnum(f, ind, "pred_mark_prob_approx", r->pred.p_approx, false);
	jnum(f, ind, "pred_alpha", r->pred.alpha, false);
	jnum(f, ind, "pred_queue_bytes", r->pred.q_bytes, r->wall_s <= 0);
	if (r->wall_s > 0)
		jnum(f, ind, "wall_s", r->wall_s, true);
	fprintf(f, "%s}", ind);
}

static void __attribute__((unused))
res_text(FILE *f, const struct sim_res *r)
{
	double fair = r->link_mbps / (double)r->nflows;

	fprintf(f, "%s: %s, %u flows, %.0f Gb/s, %u B packets, feedback "
		"delay %.1f us, Kmin %" PRIu64 " B Kmax %" PRIu64
		" B Pmax %.3g, PFC %" PRIu64 " B, seed %" PRIu64 "\n",
		r->name[0] ? r->name : "run", profile_name[r->profile],
		r->nflows, r->link_mbps / 1000.0, r->pkt_bytes,
		r->delay_ns / 1000.0, r->kmin_bytes, r->kmax_bytes, r->pmax,
		r->pfc_bytes, r->seed);
	fprintf(f, "  simulated %.1f ms (steady window: last %.1f ms, "
		"throughput windows %.1f ms), %" PRIu64 " packets, %" PRIu64
		" events\n", r->sim_ns / 1e6, r->steady_ns / 1e6,
		r->win_ns / 1e6, r->packets, r->events);
	if (r->conv_ns >= 0)
		fprintf(f, "  convergence (every window's Jain >= %.2f, no "
			"PAUSE; C/N = %.1f Mb/s): %.1f ms\n", r->conv_jain,
			fair, r->conv_ns / 1e6);
	else
		fprintf(f, "  convergence (every window's Jain >= %.2f, no "
			"PAUSE; C/N = %.1f Mb/s): not reached (steady windows "
			"fair: %.0f%%)\n", r->conv_jain, fair,
			r->fair_frac * 100);
	fprintf(f, "  Jain %.4f, utilisation %.4f, throughput min/max %.3f/"
		"%.3f of C/N\n", r->jain, r->util, r->thr_min, r->thr_max);
	fprintf(f, "  queue p50 %.0f B, p99 %.0f B, max %.0f B (whole run "
		"%.0f B), mean %.0f B, CV %.3f, p99-p1 %.0f B\n", r->q_p50,
		r->q_p99, r->q_max, r->q_max_all, r->q_mean, r->q_cv,
		r->q_p99 - r->q_p1);
	fprintf(f, "  queue oscillation: period %.0f us, autocorrelation "
		"there %.2f\n", r->q_period_ns / 1e3, r->q_acf);
	fprintf(f, "  marking probability %.5f (predicted p* %.5f, approx "
		"%.5f), standing queue predicted q* %.0f B\n", r->mark_frac,
		r->pred.p, r->pred.p_approx, r->pred.q_bytes);
	fprintf(f, "  alpha mean %.4f (predicted %.4f), per-flow rate CV "
		"%.3f\n", r->alpha_mean, r->pred.alpha, r->rate_cv);
	fprintf(f, "  CNPs sent %" PRIu64 ", handled %" PRIu64 ", ignored %"
		PRIu64 ", PFC pauses %" PRIu64 " (paused %.2f%% of flow-time; "
		"steady window: %" PRIu64 ", %.2f%%)\n",
		r->cnp_sent, r->cnp_handled, r->cnp_ignored, r->pfc_pauses,
		r->pfc_paused_frac * 100, r->pfc_pauses_steady,
		r->pfc_paused_steady_frac * 100);
}

/* --- the suite ------------------------------------------------------------------ */

/*
 * The suite.
 *  - S_GRID: both profiles x {25, 100, 400} Gb/s x N = 2..256, 4 us
 *    feedback delay, RED scaled with the link rate (1 s; 400 Gb/s 0.5 s).
 *  - S_PMAX: the same at 25 Gb/s for N >= 8 with Pmax 10 % instead of 1 %:
 *    what the marker explains of the grid (bench/README.md).
 *  - S_STAB: the CoNEXT'16 stability cases, the paper profile at 40 Gb/s,
 *    N = 2, 10, 64, feedback delay 4 and 85 us, with the paper's marking
 *    (Kmin 5 KB, Kmax 200 KB, Pmax 1 %), with its authors' fluid
 *    solver's (Kmax 2000 KB, Pmax 10 %), and with the latter at egress
 *    (--mark-dequeue); S_FIX: the paper's remedy (R_AI 10 Mb/s, Kmax
 *    1000 KB) at 85 us (2 s each).
 *  - S_ALPHA: mlx5 with a 55 us alpha period at 100 Gb/s.
 */
enum { S_GRID, S_PMAX, S_STAB, S_FIX, S_ALPHA };

#define SUITE_MAX	96
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct suite_run {
	struct sim_cfg c;
	int kind;
};

static struct sim_cfg *suite_add(struct suite_run *v, size_t *n, int kind,
				 unsigned int profile, uint32_t gbps,
				 unsigned int flows, uint64_t ms, bool quick)
{
	struct sim_cfg *c = &v[*n].c;

	v[(*n)++].kind = kind;
	sim_cfg_default(c, profile);
	c->link_mbps = gbps * 1000;
	c->nflows = flows;
	sim_cfg_scale_red(c);
	c->duration_ns = (quick ? 5 : ms) * 1000000;
	return c;
}

static size_t suite_build(struct suite_run *v, size_t max, bool quick)
{
	static const uint32_t gbps[] = { 25, 100, 400 };
	static const unsigned int flows[] = { 2, 4, 8, 16, 32, 64, 128, 256 };
	static const unsigned int aflows[] = { 16, 64, 256 };
	static const unsigned int sflows[] = { 2, 10, 64 };
	static const uint64_t delays[] = { 4000, 85000 };
	size_t n = 0, a, b, d;
	unsigned int pr, red;
	struct sim_cfg *c;

	for (pr = 0; pr < __ROCECC_PROFILE_MAX; pr++)
		for (a = 0; a < ARRAY_SIZE(gbps); a++)
			for (b = 0; b < ARRAY_SIZE(flows) && n < max; b++) {
				c = suite_add(v, &n, S_GRID, pr, gbps[a],
					      flows[b], gbps[a] == 400 ?
					      500 : 1000, quick);
				snprintf(c->name, sizeof(c->name),
					 "grid-%s-%ug-n%u", profile_name[pr],
					 gbps[a], flows[b]);
			}
	for (pr = 0; pr < __ROCECC_PROFILE_MAX; pr++)
		for (b = 2; b < ARRAY_SIZE(flows) && n < max; b++) {
			c = suite_add(v, &n, S_PMAX, pr, 25, flows[b], 1000,
				      quick);
			c->pmax = 0.1;
			snprintf(c->name, sizeof(c->name),
				 "pmax10-%s-25g-n%u", profile_name[pr],
				 flows[b]);
		}
	/* red: the paper's marking, its solver's, the solver's at egress */
	for (red = 0; red < 3; red++)
		for (d = 0; d < ARRAY_SIZE(delays); d++)
			for (b = 0; b < ARRAY_SIZE(sflows) && n < max; b++) {
				c = suite_add(v, &n, S_STAB,
					      ROCECC_PROFILE_PAPER, 40,
					      sflows[b], 2000, quick);
				c->delay_ns = delays[d];
				if (red) {
					c->kmax_bytes = 2000000;
					c->pmax = 0.1;
					c->pfc_bytes = 10 * c->kmax_bytes;
				}
				c->mark_dequeue = red == 2;
				snprintf(c->name, sizeof(c->name),
					 "%s-40g-n%u-d%" PRIu64 "us",
					 red == 2 ? "solver-deq" : red ?
					 "solver" : "paper", sflows[b],
					 delays[d] / 1000);
			}
	for (b = 0; b < ARRAY_SIZE(sflows) && n < max; b++) {
		c = suite_add(v, &n, S_FIX, ROCECC_PROFILE_PAPER, 40,
			      sflows[b], 2000, quick);
		c->kmax_bytes = 1000000;
		c->pfc_bytes = 10 * c->kmax_bytes;
		c->p.v[ROCECC_PARAM_RP_AI_RATE] = 10;
		c->delay_ns = 85000;
		snprintf(c->name, sizeof(c->name),
			 "remedy-40g-n%u-d85us", sflows[b]);
	}
	for (b = 0; b < ARRAY_SIZE(aflows) && n < max; b++) {
		c = suite_add(v, &n, S_ALPHA, ROCECC_PROFILE_MLX5, 100,
			      aflows[b], 1000, quick);
		c->p.v[ROCECC_PARAM_RP_DCE_TCP_RTT] = 55;
		snprintf(c->name, sizeof(c->name),
			 "mlx5-rtt55-100g-n%u", aflows[b]);
	}
	return n;
}

static void fmt_q(char *b, size_t n, double bytes)
{
	if (!isfinite(bytes))
		snprintf(b, n, "-");
	else if (bytes >= 1e6)
		snprintf(b, n, "%.2f MB", bytes / 1e6);
	else
		snprintf(b, n, "%.1f KB", bytes / 1e3);
}

static void fmt_conv(char *b, size_t n, const struct sim_res *r)
{
	if (r->conv_ns >= 0)
		snprintf(b, n, "%.1f ms", r->conv_ns / 1e6);
	else
		snprintf(b, n, "no (%.1f%%)", r->fair_frac * 100);
}

/* The grid's goals a run misses, or "met". */
static void fmt_goals(char *b, size_t n, const struct sim_res *r)
{
	size_t k = 0;

	b[0] = 0;
	if (r->jain < 0.99)
		k += snprintf(b + k, n - k, "%sJain", k ? ", " : "");
	if (r->util < 0.95 && k < n)
		k += snprintf(b + k, n - k, "%sutil", k ? ", " : "");
	if (r->q_p99 > r->kmax_bytes && k < n)
		k += snprintf(b + k, n - k, "%squeue", k ? ", " : "");
	if (r->pfc_pauses_steady && k < n)
		k += snprintf(b + k, n - k, "%sPFC", k ? ", " : "");
	if (!k)
		snprintf(b, n, "met");
}

/* One table row per run of the kinds in @mask: the grid's columns. */
static void grid_table(FILE *f, const struct suite_run *v,
		       const struct sim_res *res, size_t n, unsigned int mask)
{
	char q1[32], q2[64], cv[32];
	size_t i;

	fprintf(f, "| profile | C | N | conv. | Jain | util | q p99 / Kmax | "
		"PFC paused | goals | q p50 | mark obs | p* | p*/Pmax | "
		"alpha obs | alpha* |\n"
		"|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (i = 0; i < n; i++) {
		const struct sim_res *r = &res[i];

		if (!(mask & (1U << v[i].kind)))
			continue;
		fmt_q(q1, sizeof(q1), r->q_p50);
		fmt_conv(cv, sizeof(cv), r);
		fmt_goals(q2, sizeof(q2), r);
		fprintf(f, "| %s%s | %u G | %u | %s | %.4f | %.3f | %.2f | "
			"%.2f%% | %s | %s | %.2e | %.2e | %.2f | %.4f | "
			"%.4f |\n", profile_name[r->profile],
			v[i].kind == S_ALPHA ? " (rp_dce_tcp_rtt 55)" : "",
			r->link_mbps / 1000, r->nflows, cv, r->jain, r->util,
			r->q_p99 / r->kmax_bytes,
			r->pfc_paused_steady_frac * 100, q2, q1, r->mark_frac,
			r->pred.p, r->pred.p / r->pmax, r->alpha_mean,
			r->pred.alpha);
	}
}

static void fixed_point_table(FILE *f, const struct suite_run *v,
			      const struct sim_res *res, size_t n)
{
	char q1[32], q2[32], q3[32];
	size_t i;

	fprintf(f, "\n## Fixed point: fluid model vs simulation (paper "
		"profile, 40 Gb/s, Kmin 5 KB)\n\n"
		"| run | N | Kmax, Pmax | thr min..max / (C/N) | p* model | "
		"p* approx | mark obs | q* model | q mean | q p50 | alpha* | "
		"alpha obs |\n"
		"|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (i = 0; i < n; i++) {
		const struct sim_res *r = &res[i];

		if (v[i].kind != S_STAB && v[i].kind != S_FIX)
			continue;
		fmt_q(q1, sizeof(q1), r->pred.q_bytes);
		fmt_q(q2, sizeof(q2), r->q_mean);
		fmt_q(q3, sizeof(q3), r->q_p50);
		fprintf(f, "| %s | %u | %.0f KB, %.0f%% | %.3f..%.3f | %.2e | "
			"%.2e | %.2e | %s | %s | %s | %.4f | %.4f |\n",
			r->name, r->nflows, r->kmax_bytes / 1e3,
			r->pmax * 100, r->thr_min, r->thr_max, r->pred.p,
			r->pred.p_approx, r->mark_frac, q1, q2, q3,
			r->pred.alpha, r->alpha_mean);
	}
}

static void stability_table(FILE *f, const struct suite_run *v,
			    const struct sim_res *res, size_t n)
{
	char q1[32], q2[32], q3[32], cv[32];
	const char *paper;
	size_t i;

	fprintf(f, "\n## Stability (CoNEXT'16: at 85 us feedback delay, 2 "
		"and 64 flows stable, 10 flows oscillate; at 4 us stable)\n\n"
		"| run | N | delay | Kmax, Pmax | queue CV | queue p99-p1 | "
		"queue min..max | queue period, ACF | per-flow rate CV | Jain | "
		"util | conv. | CoNEXT'16 |\n"
		"|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (i = 0; i < n; i++) {
		const struct sim_res *r = &res[i];

		if (v[i].kind != S_STAB && v[i].kind != S_FIX)
			continue;
		if (v[i].kind == S_FIX)
			paper = "stable (R_AI 10 Mb/s, Kmax 1000 KB)";
		else if (r->delay_ns < 10000)
			paper = "stable";
		else
			paper = r->nflows == 10 ? "unstable" : "stable";
		fmt_q(q1, sizeof(q1), r->q_p99 - r->q_p1);
		fmt_q(q2, sizeof(q2), r->q_min);
		fmt_q(q3, sizeof(q3), r->q_max);
		fmt_conv(cv, sizeof(cv), r);
		fprintf(f, "| %s | %u | %.0f us | %.0f KB, %.0f%%%s | %.3f | "
			"%s | %s..%s | %.0f us, %.2f | %.3f | %.4f | %.3f | %s "
			"| %s |\n", r->name, r->nflows, r->delay_ns / 1000.0,
			r->kmax_bytes / 1e3, r->pmax * 100,
			v[i].c.mark_dequeue ? ", egress" : "", r->q_cv, q1, q2,
			q3,
			r->q_period_ns / 1e3, r->q_acf, r->rate_cv, r->jain,
			r->util, cv, paper);
	}
}

static void summary_md(FILE *f, const struct suite_run *v,
		       const struct sim_res *res, size_t n, double wall,
		       unsigned int jobs)
{
	double simt = 0;
	size_t i;

	for (i = 0; i < n; i++)
		simt += res[i].sim_ns / 1e9;
	fprintf(f, "# DCQCN at scale: dcqcn_sim results\n\n"
		"Generated by `make -C bench bench-sim`, part of `make bench` "
		"(bench/README.md explains every column). %zu runs, %.2f s "
		"simulated in total, %.1f s wall on %u jobs. Packets of "
		"1000 B, RED/ECN marking at enqueue, steady window = second "
		"half of each run; convergence: from the first throughput "
		"window after which every window has Jain >= 0.99 and no "
		"PAUSE (no: never; the share of fair steady windows in "
		"brackets).\n\n", n, simt, wall, jobs);
	fprintf(f, "## Scale grid (feedback delay 4 us, Kmin/Kmax = "
		"5/200 KB scaled by C/40G, Pmax 1%%, PFC XOFF 10*Kmax)\n\n"
		"Goals in the steady window: Jain >= 0.99, utilisation >= 0.95, "
		"queue p99 <= Kmax, no PFC pause. *goals*: met, or the ones "
		"missed. p*: the fluid model's marking probability at the fixed "
		"point, a function of C/N; above Pmax the RED line has no "
		"fixed point (the queue must sit at Kmax, where marking jumps "
		"to 1). The last rows: mlx5 with a 55 us alpha period.\n\n");
	grid_table(f, v, res, n, 1U << S_GRID | 1U << S_ALPHA);
	fprintf(f, "\n## The grid at 25 Gb/s with Pmax 10 %% (Kmin/Kmax "
		"unchanged)\n\n");
	grid_table(f, v, res, n, 1U << S_PMAX);
	fixed_point_table(f, v, res, n);
	stability_table(f, v, res, n);
	fprintf(f, "\nWall time per run (s):");
	for (i = 0; i < n; i++)
		fprintf(f, " %s %.1f%s", res[i].name, res[i].wall_s,
			i + 1 < n ? "," : "\n");
}

static int __attribute__((unused))
run_suite(const char *dir, unsigned int jobs, bool quick)
{
	static struct suite_run v[SUITE_MAX];
	struct sim_res *res;
	size_t n = suite_build(v, SUITE_MAX, quick), i, next = 0, done = 0;
	pid_t *pids;
	double t0 = suite_now(), wall;
	char path[4096];
	FILE *f;
	int st;

	res = calloc(n, sizeof(*res));
	pids = calloc(n, sizeof(*pids));
	if (!res || !pids)
		return 1;
	if (!jobs)
		jobs = 1;
	/* fork one child per run, at most @jobs at a time; each writes its
	 * struct sim_res to DIR/run-I.bin */
	while (done < n) {
		while (next < n && next - done < jobs) {
			pids[next] = fork();
			if (pids[next] < 0) {
				perror("dcqcn_sim: fork");
				return 1;
			}
			if (!pids[next]) {
				struct sim_res r;
				double t = suite_now();

				if (sim_run(&v[next].c, &r))
					_exit(1);
				r.wall_s = suite_now() - t;
				snprintf(path, sizeof(path), "%s/run-%zu.bin",
					 dir, next);
				f = fopen(path, "wb");
				if (!f || fwrite(&r, sizeof(r), 1, f) != 1 ||
				    fclose(f))
					_exit(1);
				_exit(0);
			}
			next++;
		}
		/* wait for the oldest; children finish in any order */
		if (waitpid(pids[done], &st, 0) < 0 || !WIFEXITED(st) ||
		    WEXITSTATUS(st)) {
			fprintf(stderr, "dcqcn_sim: run %s failed\n",
				v[done].c.name);
			return 1;
		}
		snprintf(path, sizeof(path), "%s/run-%zu.bin", dir, done);
		f = fopen(path, "rb");
		if (!f || fread(&res[done], sizeof(res[done]), 1, f) != 1) {
			fprintf(stderr, "dcqcn_sim: %s: cannot read\n", path);
			return 1;
		}
		fclose(f);
		unlink(path);
		fprintf(stderr, "[%2zu/%zu] %-28s %6.1f ms simulated in %5.1f s\n",
			done + 1, n, res[done].name, res[done].sim_ns / 1e6,
			res[done].wall_s);
		done++;
	}
	wall = suite_now() - t0;

	f = suite_create("dcqcn_sim", dir, "results.json");
	if (!f)
		return 1;
	fprintf(f, "{\n  \"tool\": \"dcqcn_sim\",\n  \"wall_s\": %.2f,\n"
		"  \"jobs\": %u,\n  \"runs\": [\n", wall, jobs);
	for (i = 0; i < n; i++) {
		res_json(f, &res[i], "    ");
		fputs(i + 1 < n ? ",\n" : "\n", f);
	}
	fputs("  ]\n}\n", f);
	fclose(f);

	f = suite_create("dcqcn_sim", dir, "summary.md");
	if (!f)
		return 1;
	summary_md(f, v, res, n, wall, jobs);
	fclose(f);
	fprintf(stderr, "dcqcn_sim: suite done in %.1f s: %s/results.json, "
		"%s/summary.md\n", wall, dir, dir);
	free(res);
	free(pids);
	return 0;
}

/* --- command line ---------------------------------------------------------------- */

#ifndef DCQCN_SIM_NO_MAIN

static void usage(FILE *f)
{
	fprintf(f,
"usage: dcqcn_sim [options] [NAME=VALUE]...\n"
"       dcqcn_sim --suite DIR [--jobs J] [--quick]\n"
"N DCQCN flows through one RED/ECN bottleneck, driving the shared core\n"
"(include/rocecc/dcqcn.h). NAME=VALUE overrides a parameter (mlx5 names).\n"
"  -p, --profile P     mlx5 (default) or paper\n"
"  -n, --flows N       flows, 1..%d (default 2)\n"
"  -c, --gbps G        bottleneck and NIC line rate, Gb/s (default 100)\n"
"  -d, --delay-us D    feedback loop delay, us (default 4)\n"
"  -t, --time-ms T     simulated time, ms (default 100)\n"
"  -L, --pkt BYTES     packet size (default 1000)\n"
"      --kmin KB, --kmax KB   RED thresholds in 1000 B (default 5, 200\n"
"                      scaled by G/40)\n"
"      --pmax P        marking probability at Kmax (default 0.01)\n"
"      --mark-dequeue  mark on the queue a packet leaves behind when it\n"
"                      starts to leave (egress), not at its arrival\n"
"      --pfc KB        PFC XOFF threshold, 0 = none (default 10 * Kmax)\n"
"  -w, --window-us W   throughput window (default: >= 1 ms, 50 packets\n"
"                      at C/N)\n"
"      --conv-jain J   a window is fair at Jain >= J (default 0.99)\n"
"      --steady F      steady window = last fraction F (default 0.5)\n"
"  -s, --seed S        PRNG seed (default 1)\n"
"      --csv FILE      time series: t, queue, every flow's rate\n"
"      --csv-us U      its period (default 100)\n"
"  -j, --json          the result as JSON instead of text\n"
"      --suite DIR     run the benchmark suite, write DIR/results.json\n"
"                      and DIR/summary.md\n"
"      --jobs J        suite runs in parallel (default: online CPUs)\n"
"      --quick         the suite with 5 ms runs (smoke test)\n",
		SIM_FLOWS_MAX);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "profile", 1, 0, 'p' }, { "flows", 1, 0, 'n' },
		{ "gbps", 1, 0, 'c' }, { "delay-us", 1, 0, 'd' },
		{ "time-ms", 1, 0, 't' }, { "pkt", 1, 0, 'L' },
		{ "kmin", 1, 0, 1 }, { "kmax", 1, 0, 2 }, { "pmax", 1, 0, 3 },
		{ "pfc", 1, 0, 4 }, { "window-us", 1, 0, 'w' },
		{ "conv-jain", 1, 0, 5 }, { "steady", 1, 0, 6 },
		{ "seed", 1, 0, 's' }, { "csv", 1, 0, 7 },
		{ "csv-us", 1, 0, 8 }, { "json", 0, 0, 'j' },
		{ "suite", 1, 0, 9 }, { "jobs", 1, 0, 10 },
		{ "quick", 0, 0, 11 }, { "mark-dequeue", 0, 0, 12 },
		{ "help", 0, 0, 'h' }, { 0 }
	};
	struct sim_cfg c;
	struct sim_res r;
	double kmin = -1, kmax = -1, pfc = -1;
	const char *suite = NULL;
	long jobs = sysconf(_SC_NPROCESSORS_ONLN);
	bool json = false, quick = false;
	unsigned int prof = ROCECC_PROFILE_MLX5, id;
	int o, i;
	char *eq;

	/* the profile first: the rest applies on top of it */
	for (i = 1; i < argc - 1; i++)
		if (!strcmp(argv[i], "-p") || !strcmp(argv[i], "--profile"))
			prof = !strcmp(argv[i + 1], "paper") ?
			       ROCECC_PROFILE_PAPER : ROCECC_PROFILE_MLX5;
	sim_cfg_default(&c, prof);
	while ((o = getopt_long(argc, argv, "p:n:c:d:t:L:w:s:jh", lo,
				NULL)) != -1) {
		switch (o) {
		case 'p':
			if (strcmp(optarg, "paper") && strcmp(optarg, "mlx5")) {
				fprintf(stderr, "dcqcn_sim: unknown profile "
					"'%s'\n", optarg);
				return 2;
			}
			break;
		case 'n': c.nflows = strtoul(optarg, NULL, 0); break;
		case 'c': c.link_mbps = strtod(optarg, NULL) * 1000; break;
		case 'd': c.delay_ns = strtod(optarg, NULL) * 1000; break;
		case 't': c.duration_ns = strtod(optarg, NULL) * 1e6; break;
		case 'L': c.pkt_bytes = strtoul(optarg, NULL, 0); break;
		case 1: kmin = strtod(optarg, NULL); break;
		case 2: kmax = strtod(optarg, NULL); break;
		case 3: c.pmax = strtod(optarg, NULL); break;
		case 4: pfc = strtod(optarg, NULL); break;
		case 'w': c.win_ns = strtod(optarg, NULL) * 1000; break;
		case 5: c.conv_jain = strtod(optarg, NULL); break;
		case 6: c.steady_frac = strtod(optarg, NULL); break;
		case 's': c.seed = strtoull(optarg, NULL, 0); break;
		case 7: c.csv = optarg; break;
		case 8: c.csv_ns = strtod(optarg, NULL) * 1000; break;
		case 'j': json = true; break;
		case 9: suite = optarg; break;
		case 10: jobs = strtol(optarg, NULL, 0); break;
		case 11: quick = true; break;
		case 12: c.mark_dequeue = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (suite)
		return run_suite(suite, jobs > 0 ? (unsigned int)jobs : 1,
				 quick) ? 1 : 0;
	sim_cfg_scale_red(&c);
	if (kmin >= 0)
		c.kmin_bytes = (uint64_t)(kmin * 1000);
	if (kmax >= 0)
		c.kmax_bytes = (uint64_t)(kmax * 1000);
	c.pfc_bytes = pfc >= 0 ? (uint64_t)(pfc * 1000) : 10 * c.kmax_bytes;
	for (i = optind; i < argc; i++) {
		eq = strchr(argv[i], '=');
		if (eq)
			*eq = 0;
		id = rocecc_param_by_name(argv[i]);
		if (!eq || !id || rocecc_params_set(&c.p, id,
				strtoul(eq + 1, NULL, 0))) {
			fprintf(stderr, "dcqcn_sim: bad parameter '%s'\n",
				argv[i]);
			return 2;
		}
	}
	snprintf(c.name, sizeof(c.name), "%s-%ug-n%u",
		 profile_name[c.profile], c.link_mbps / 1000, c.nflows);
	if (sim_run(&c, &r))
		return 1;
	if (json) {
		res_json(stdout, &r, "");
		putchar('\n');
	} else {
		res_text(stdout, &r);
	}
	return 0;
}

#endif /* DCQCN_SIM_NO_MAIN */
