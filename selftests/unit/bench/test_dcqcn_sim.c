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
	test_runs();
	return tap_done();
}
