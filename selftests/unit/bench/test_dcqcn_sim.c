// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of dcqcn_sim (TAP): the RED marking function, the event
 * queue, the fluid-model fixed-point solver, and small runs of the
 * simulator itself (convergence, determinism, PFC bound). dcqcn_sim.c is
 * included without its main() so that its internals are reachable.
 */
#define DCQCN_SIM_NO_MAIN
#include "dcqcn_sim.c"

#include "tap.h"

static bool near(double got, double want, double rel)
{
	return fabs(got - want) <= rel * fabs(want);
}

static void test_red(void)
{
	/* Kmin 5000, Kmax 200000, Pmax 1 % (the paper at 40 Gb/s) */
	tap_ok(red_prob(0, 5000, 200000, 0.01) == 0, "red: empty queue");
	tap_ok(red_prob(5000, 5000, 200000, 0.01) == 0, "red: q = Kmin: 0");
	tap_ok(near(red_prob(5001, 5000, 200000, 0.01), 0.01 / 195000, 1e-9),
	       "red: just above Kmin: Pmax / (Kmax - Kmin) per byte");
	tap_ok(near(red_prob(102500, 5000, 200000, 0.01), 0.005, 1e-12),
	       "red: halfway: Pmax / 2");
	tap_ok(near(red_prob(200000, 5000, 200000, 0.01), 0.01, 1e-12),
	       "red: q = Kmax: Pmax");
	tap_ok(red_prob(200001, 5000, 200000, 0.01) == 1,
	       "red: above Kmax: 1");
	/* DCTCP-style step: Kmin = Kmax = K */
	tap_ok(red_prob(1000, 1000, 1000, 1) == 0 &&
	       red_prob(1001, 1000, 1000, 1) == 1, "red: Kmin = Kmax: a step");
}

static void test_heap(void)
{
	struct sim_heap h;
	struct sim_ev ev, prev = { 0 };
	uint64_t rng = 42, n;
	bool ok = true;
	unsigned int i;

	heap_init(&h);
	tap_ok(!heap_pop(&h, &ev), "heap: empty pops nothing");
	/* 5000 events over 100 distinct times: many ties */
	for (i = 0; i < 5000; i++)
		heap_push(&h, rng_next(&rng) % 100, i % 5, i, i);
	for (n = 0; heap_pop(&h, &ev); n++) {
		if (n && (ev.t < prev.t ||
			  (ev.t == prev.t && ev.seq < prev.seq)))
			ok = false;
		if (ev.gen != ev.seq || ev.flow != ev.seq)
			ok = false;
		prev = ev;
	}
	tap_eq(n, 5000, "heap: every event comes out once");
	tap_ok(ok, "heap: time order, ties in insertion order");
	/* interleaved push/pop keeps the order */
	heap_push(&h, 10, EV_CNP, 1, 0);
	heap_push(&h, 5, EV_SEND, 2, 0);
	heap_pop(&h, &ev);
	heap_push(&h, 7, EV_CE, 3, 0);
	heap_push(&h, 10, EV_TICK, 4, 0);
	tap_ok(ev.flow == 2 && heap_pop(&h, &ev) && ev.flow == 3 &&
	       heap_pop(&h, &ev) && ev.flow == 1 && heap_pop(&h, &ev) &&
	       ev.flow == 4 && !heap_pop(&h, &ev),
	       "heap: interleaved push/pop: 5, 7, 10 (first), 10 (second)");
	heap_free(&h);
}

/* The fixed-point equation's two sides written out with pow(). */
static double fp_lhs(const struct fp_in *in, double p)
{
	double r = in->c_pps / in->n;
	double a = 1 - pow(1 - p, in->tau * r);
	double al = 1 - pow(1 - p, in->tau_a * r);
	double b = p / (pow(1 - p, -in->b_pkts) - 1);
	double c = pow(1 - p, in->f * in->b_pkts) * b;
	double d = p / (pow(1 - p, -in->t_inc * r) - 1);
	double e = pow(1 - p, in->f * in->t_inc * r) * d;

	return a * a * al / ((b + d) * (c + e));
}

static void test_fixed_point(void)
{
	/* the paper at 40 Gb/s, 1000 B packets: C = 5e6 packets/s, N = 2,
	 * tau 50 us, tau' = T = 55 us, B = 10 MB = 10000 packets, F = 5,
	 * R_AI = 40 Mb/s = 5000 packets/s */
	struct fp_in in = { .c_pps = 5e6, .n = 2, .tau = 50e-6,
			    .tau_a = 55e-6, .t_inc = 55e-6, .b_pkts = 10000,
			    .f = 5, .rai_pps = 5000 };
	struct fp_out out;
	struct sim_cfg c;
	double r, want;

	/* by hand: 1/B + N/(T C) = 1e-4 + 2/275 = 0.00737273;
	 * R_AI N^2 / (tau' C^2) = 20000 / 1.375e9 = 1.454545e-5;
	 * cbrt(1.454545e-5 * 0.00737273^2) = cbrt(7.90651e-10) = 9.24687e-4 */
	tap_ok(near(fp_approx(&in), 9.24687e-4, 1e-5),
	       "fixed point: small-p approximation, hand-computed case");
	tap_ok(fp_solve(&in, &out) == 0, "fixed point: a root exists");
	r = in.c_pps / in.n;
	tap_ok(near(fp_lhs(&in, out.p), in.tau * in.tau * in.rai_pps * r,
		    1e-6), "fixed point: p* = %.6g satisfies the equation",
	       out.p);
	tap_ok(near(out.alpha, 1 - pow(1 - out.p, in.tau_a * r), 1e-9),
	       "fixed point: alpha* = 1 - (1 - p*)^(tau' R)");
	/* a constructed case: choose p = 0.01, set R_AI so that it is the
	 * root; the solver must find 0.01 back */
	in.n = 64;
	in.rai_pps = fp_lhs(&in, 0.01) /
		     (in.tau * in.tau * in.c_pps / in.n);
	r = fp_solve(&in, &out);
	tap_ok(r == 0 && near(out.p, 0.01, 1e-6),
	       "fixed point: constructed root 0.01 found (got %.8g)", out.p);
	/* tiny p: the approximation and the exact root agree */
	in = (struct fp_in){ .c_pps = 5e7, .n = 2, .tau = 4e-6,
			     .tau_a = 1e-6, .t_inc = 300e-6, .b_pkts = 1e5,
			     .f = 1, .rai_pps = 0.1 };
	fp_solve(&in, &out);
	tap_ok(near(out.p, out.p_approx, 0.02),
	       "fixed point: tiny p (%.3g) within 2%% of the approximation",
	       out.p);
	/* q* from p* through the RED line, for a run's configuration */
	sim_cfg_default(&c, ROCECC_PROFILE_PAPER);
	c.link_mbps = 40000;
	sim_cfg_scale_red(&c);
	fp_predict(&c, &out);
	want = 5000 + out.p / 0.01 * 195000;
	tap_ok(c.kmin_bytes == 5000 && c.kmax_bytes == 200000 &&
	       near(out.q_bytes, want, 1e-9),
	       "fixed point: q* = Kmin + p*/Pmax (Kmax - Kmin) = %.0f B", want);
}

/*
 * The steady-window metrics from hand-made window bytes and queue samples:
 * 2 flows on a 8000 Mb/s link (1 byte/ns), 10 windows of 1 ms, so C/N is
 * 500000 bytes per window; steady window = the last 4.5 ms, so windows
 * 6..9 (window 5 straddles its start and is left out).
 */
static void test_windows(void)
{
	static const uint64_t bytes[10][2] = {
		{ 900000, 100000 },	/* 0-2: unfair */
		{ 800000, 200000 },
		{ 700000, 300000 },	/* Jain 0.86 */
		{ 500000, 460000 },	/* 3: Jain 0.998 */
		{ 500000, 500000 },
		{ 990000,  10000 },	/* 5: unfair, straddles the start */
		{ 500000, 460000 },	/* 6: PAUSE in it (below) */
		{ 500000, 500000 },
		{ 300000, 300000 },	/* 8: fair, link at 60 % */
		{ 500000, 460000 },
	};
	struct sim_cfg c;
	struct sim_res r;
	struct sim s = { .c = &c, .r = &r };
	uint64_t wb[20];
	uint32_t pfc[11] = { 0 }, qs[100];
	unsigned int w, i;
	double jain, sum0 = 500000 * 3 + 300000, sum1 = 460000 * 2 + 500000 +
		300000;
	struct flow f[2] = { { .paused_ns = 0 } };

	sim_cfg_default(&c, ROCECC_PROFILE_MLX5);
	c.link_mbps = 8000;
	c.duration_ns = 10000000;
	memset(&r, 0, sizeof(r));
	for (w = 0; w < 10; w++)
		for (i = 0; i < 2; i++)
			wb[w * 2 + i] = bytes[w][i];
	s.win_bytes = wb;
	s.win_pfc = pfc;
	s.win_ns = 1000000;
	s.nwin = 10;
	s.steady_t0 = 5500000;
	r.steady_ns = 4500000;
	s.f = f;

	/* a pause from 4.9 to 5.7 ms, then one at 6.2 ms for 0.1 ms */
	pfc_pause(&s, &f[0], 4900000, 5700000);
	pfc_pause(&s, &f[1], 6200000, 6300000);
	tap_ok(f[0].paused_ns == 800000 && f[0].paused_steady_ns == 200000,
	       "windows: a pause across the steady start counts 0.2 of its 0.8 ms there");
	tap_ok(r.pfc_pauses == 2 && r.pfc_pauses_steady == 1 &&
	       pfc[4] == 1 && pfc[6] == 1,
	       "windows: pauses counted, in their windows, 1 in the steady window");
	finish_flows(&s);
	tap_ok(near(r.pfc_paused_steady_frac, 300000.0 / 2 / 4500000, 1e-12),
	       "windows: steady PFC share = paused steady flow-time / (N x steady time)");

	finish_windows(&s);
	tap_ok(r.conv_ns == 7000000,
	       "windows: converged from window 7 (after the pause in 6), got %.1f ms",
	       r.conv_ns / 1e6);
	tap_ok(near(r.fair_frac, 3.0 / 4, 1e-12),
	       "windows: 3 of the 4 steady windows fair (a fair window at 60 %% of C is fair)");
	jain = (sum0 + sum1) * (sum0 + sum1) / (2 * (sum0 * sum0 + sum1 * sum1));
	tap_ok(near(r.jain, jain, 1e-12), "windows: Jain %.6f over windows 6..9",
	       r.jain);
	tap_ok(near(r.util, (sum0 + sum1) / 4e6, 1e-12),
	       "windows: utilisation %.4f = bytes / (C x 4 ms)", r.util);
	tap_ok(near(r.thr_min, sum1 / 2e6, 1e-12) &&
	       near(r.thr_max, sum0 / 2e6, 1e-12),
	       "windows: slowest / fastest flow %.3f / %.3f of C/N", r.thr_min,
	       r.thr_max);
	/* an unfair window (Jain 0.96) at the end: no convergence */
	wb[9 * 2] = 700000;
	finish_windows(&s);
	tap_ok(r.conv_ns == -1, "windows: an unfair last window: not converged");

	/* queue samples 100, 200, ..., 10000 bytes, shuffled */
	for (i = 0; i < 100; i++)
		qs[(i * 37) % 100] = (i + 1) * 100;
	s.qs = qs;
	s.nqs = 100;
	finish_queue(&s);
	tap_ok(r.q_min == 100 && r.q_max == 10000 && r.q_p50 == 5100 &&
	       r.q_p99 == 9900 && r.q_p1 == 200,
	       "queue: min/p1/p50/p99/max %.0f/%.0f/%.0f/%.0f/%.0f",
	       r.q_min, r.q_p1, r.q_p50, r.q_p99, r.q_max);
	tap_ok(near(r.q_mean, 5050, 1e-12) &&
	       near(r.q_std, 100 * sqrt((100.0 * 100 - 1) / 12), 1e-9) &&
	       near(r.q_cv, r.q_std / 5050, 1e-12),
	       "queue: mean %.0f, std %.1f (population), CV", r.q_mean, r.q_std);
}

/* The queue's oscillation from its autocorrelation. */
static void test_acf(void)
{
	static uint32_t q[200000];
	uint64_t rng = 7;
	double lag, peak;
	size_t i;

	/* a period of 2000 samples (2 ms at 1 us) and some noise */
	for (i = 0; i < 200000; i++)
		q[i] = (uint32_t)(100000 + 80000 * sin(2 * M_PI * i / 2000.0) +
				  (rng_next(&rng) % 20000));
	queue_acf_peak(q, 200000, 10, &lag, &peak);
	tap_ok(near(lag, 2000, 0.01) && peak > 0.9,
	       "acf: a 2000-sample cycle: period %.0f, peak %.2f", lag, peak);
	/* a random queue: no regular cycle */
	for (i = 0; i < 200000; i++)
		q[i] = (uint32_t)(rng_next(&rng) % 100000);
	queue_acf_peak(q, 200000, 10, &lag, &peak);
	tap_ok(peak < 0.1, "acf: noise: peak %.2f (lag %.0f)", peak, lag);
	for (i = 0; i < 200000; i++)
		q[i] = 5000;
	queue_acf_peak(q, 200000, 10, &lag, &peak);
	tap_ok(lag == 0 && peak == 0, "acf: a constant queue: none");
}

/* Egress marking judges the queue behind the packet when it leaves. */
static void test_egress(void)
{
	struct sim_cfg c;
	struct sim_res r;
	struct sim s = { .c = &c, .r = &r };
	struct sim_ev ev;

	sim_cfg_default(&c, ROCECC_PROFILE_MLX5);
	c.link_mbps = 8000;		/* 1 byte per ns */
	c.kmin_bytes = c.kmax_bytes = 1000;
	c.pmax = 1;			/* a step at 1000 B */
	memset(&r, 0, sizeof(r));
	heap_init(&s.h);
	s.d_fwd = 2000;
	/* at 10 us, 3000 B left to send: this packet's 1000 and 2000 behind */
	s.busy_ps = 13000 * 1000ULL;
	ev_deq(&s, 3, 10000, 11000);
	tap_ok(r.marked == 1 && heap_pop(&s.h, &ev) && ev.type == EV_CE &&
	       ev.flow == 3 && ev.t == 13000,
	       "egress: 2000 B behind the packet: marked, CE at the NP half the delay after it left");
	/* 1500 B left: 500 behind, below the step, although 1500 > 1000 */
	s.busy_ps = 11500 * 1000ULL;
	ev_deq(&s, 3, 10000, 11000);
	tap_ok(r.marked == 1 && !heap_pop(&s.h, &ev),
	       "egress: 500 B behind it: not marked (the packet itself does not count)");
	heap_free(&s.h);
}

static void small_cfg(struct sim_cfg *c)
{
	sim_cfg_default(c, ROCECC_PROFILE_MLX5);
	c->nflows = 2;
	c->link_mbps = 100000;
	sim_cfg_scale_red(c);
	c->duration_ns = 40000000;	/* 40 ms */
}

static void test_runs(void)
{
	struct sim_cfg c;
	struct sim_res a, b;
	char csv[] = "/tmp/dcqcn_sim_test_XXXXXX";
	int fd;

	small_cfg(&c);
	tap_ok(sim_run(&c, &a) == 0, "run: 2 flows, 100 Gb/s, 40 ms");
	tap_ok(a.conv_ns >= 0 && a.conv_ns <= 20000000,
	       "run: converges to C/N +-10%% (at %.1f ms)", a.conv_ns / 1e6);
	tap_ok(a.jain > 0.99, "run: Jain %.4f > 0.99", a.jain);
	tap_ok(a.util > 0.95, "run: utilisation %.4f > 0.95", a.util);
	tap_ok(a.packets > 400000 && a.cnp_sent > 0 &&
	       a.cnp_handled + a.cnp_ignored <= a.cnp_sent &&
	       a.cnp_handled + a.cnp_ignored + 2 >= a.cnp_sent,
	       "run: %" PRIu64 " packets; the RPs saw the NPs' CNPs (%" PRIu64
	       " sent, %" PRIu64 " handled)", a.packets, a.cnp_sent,
	       a.cnp_handled);
	tap_ok(sim_run(&c, &b) == 0 && !memcmp(&a, &b, sizeof(a)),
	       "run: same seed, identical result");
	/* a CSV only observes: same result with it */
	fd = mkstemp(csv);
	if (fd >= 0)
		close(fd);
	c.csv = csv;
	c.csv_ns = 10000;
	tap_ok(fd >= 0 && sim_run(&c, &b) == 0 && !memcmp(&a, &b, sizeof(a)),
	       "run: writing the CSV time series changes nothing");
	unlink(csv);
	c.csv = NULL;
	c.mark_dequeue = true;
	fd = sim_run(&c, &b);
	tap_ok(fd == 0 && b.marked != a.marked && b.jain > 0.95 &&
	       b.util > 0.95,
	       "run: egress marking: another run (Jain %.4f, utilisation %.4f)",
	       b.jain, b.util);
	c.mark_dequeue = false;
	c.seed = 2;
	tap_ok(sim_run(&c, &b) == 0 && b.marked != a.marked,
	       "run: another seed, another run");

	/* PFC bounds the queue by XOFF plus one packet per flow */
	small_cfg(&c);
	c.nflows = 64;
	c.link_mbps = 25000;
	sim_cfg_scale_red(&c);
	c.duration_ns = 5000000;
	sim_run(&c, &a);
	tap_ok(a.q_max_all <= c.pfc_bytes + 64 * c.pkt_bytes && a.pfc_pauses,
	       "run: PFC keeps the queue at most XOFF + N packets (%.0f B)",
	       a.q_max_all);
	c.nflows = 0;
	tap_ok(sim_run(&c, &a) == -1, "run: 0 flows refused");
}

int main(void)
{
	test_red();
	test_heap();
	test_fixed_point();
	test_windows();
	test_acf();
	test_egress();
	test_runs();
	return tap_done();
}
