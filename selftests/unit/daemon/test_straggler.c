// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of daemon/policy/straggler.c: the windowed histogram (hand-built
 * cumulative histograms with samples at known times) and the group evaluation
 * (hand-computed cases, then random cases against a brute-force reference).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rocecc/hist.h>
#include "flowmon.h"

#include "lib/format.h"
#include "policy/straggler.h"
#include "tap.h"

#define NB	FLOWMON_HIST_BUCKETS

/* ---- windowed histogram ------------------------------------------------ */

static struct strag_win win;
static __u64 cum[NB], delta[NB], want[NB];

static void win_reset(void)
{
	memset(&win, 0, sizeof(win));
	memset(cum, 0, sizeof(cum));
}

/* The first bucket where @a and @b differ, or -1 */
static int hist_diff(const __u64 *a, const __u64 *b)
{
	int i;

	for (i = 0; i < NB; i++)
		if (a[i] != b[i])
			return i;
	return -1;
}

static int delta_is(const __u64 *w, const char *what)
{
	int d = hist_diff(delta, w);

	if (!tap_ok(d < 0, "%s", what))
		tap_diag("bucket %d: got %llu, want %llu", d,
			 (unsigned long long)delta[d],
			 (unsigned long long)w[d]);
	return d < 0;
}

static void test_win_first(void)
{
	uint64_t n;

	win_reset();
	cum[10] = 3;
	cum[200] = 2;
	n = strag_win_delta(&win, cum, 5000, 1000, delta);
	tap_eq(n, 5, "first call: count is everything the flow has");
	delta_is(cum, "first call: delta is the cumulative histogram");
	tap_ok(win.n == 1 && win.t_ms[0] == 5000,
	       "first call: one baseline, taken now");
	n = strag_win_delta(&win, cum, 5100, 1000, delta);
	tap_eq(n, 0, "nothing new: empty delta");
}

/* calls at 0, 499, 500, 999, 1000 with W = 1000: rotation at W/2 */
static void test_win_rotation(void)
{
	uint64_t n;

	win_reset();
	cum[1] = 1;
	strag_win_delta(&win, cum, 0, 1000, delta);
	cum[2] = 1;				/* recorded in (0, 499] */
	n = strag_win_delta(&win, cum, 499, 1000, delta);
	tap_ok(win.n == 1 && n == 1 && delta[2] == 1 && !delta[1],
	       "499 ms: baseline not yet W/2 old, delta since the first call");
	cum[3] = 1;				/* (499, 500] */
	n = strag_win_delta(&win, cum, 500, 1000, delta);
	tap_ok(win.n == 2 && win.t_ms[0] == 0 && win.t_ms[1] == 500,
	       "500 ms: second baseline at W/2");
	tap_ok(n == 2 && delta[2] == 1 && delta[3] == 1 && !delta[1],
	       "500 ms: delta covers (0, 500]");
	cum[4] = 1;				/* (500, 999] */
	n = strag_win_delta(&win, cum, 999, 1000, delta);
	tap_ok(win.n == 2 && win.t_ms[0] == 0 && win.t_ms[1] == 500 && n == 3,
	       "999 ms: no rotation, delta covers (0, 999]");
	cum[5] = 1;				/* (999, 1000] */
	n = strag_win_delta(&win, cum, 1000, 1000, delta);
	tap_ok(win.n == 2 && win.t_ms[0] == 500 && win.t_ms[1] == 1000,
	       "1000 ms: oldest dropped, baselines 500 and 1000");
	tap_ok(n == 2 && delta[4] == 1 && delta[5] == 1 && !delta[3] &&
	       !delta[2], "1000 ms: delta covers (500, 1000]");
}

/*
 * Calls every 100 ms with W = 1000; before the call at 100 k, k % 5 + 1
 * samples land in bucket 20 + k. The delta at t >= 500 must hold exactly
 * the polls in (b0, t], b0 = (t / 500 - 1) * 500: a span of 500 .. 900 ms.
 */
static void test_win_span(void)
{
	unsigned int k, bad = 0, kk;
	uint64_t n, t, b0, cnt;

	win_reset();
	for (k = 0; k <= 40; k++) {
		t = 100 * k;
		cum[20 + k] += k % 5 + 1;
		n = strag_win_delta(&win, cum, t, 1000, delta);
		memset(want, 0, sizeof(want));
		cnt = 0;
		if (!k) {
			memcpy(want, cum, sizeof(want));
			cnt = 1;
		} else {
			b0 = t < 500 ? 0 : (t / 500 - 1) * 500;
			for (kk = b0 / 100 + 1; kk <= k; kk++) {
				want[20 + kk] = kk % 5 + 1;
				cnt += kk % 5 + 1;
			}
		}
		if (hist_diff(delta, want) >= 0 || n != cnt) {
			if (!bad++)
				tap_diag("t %llu: count %llu want %llu",
					 (unsigned long long)t,
					 (unsigned long long)n,
					 (unsigned long long)cnt);
		}
	}
	tap_ok(!bad, "every 100 ms, W 1000: delta spans (b0, t], 500..900 ms");

	/* irregular calls: 0, 300, 600, 900, 1100, then a stall to 2500 */
	win_reset();
	cum[1] = 1;
	strag_win_delta(&win, cum, 0, 1000, delta);
	cum[2] = 1;
	n = strag_win_delta(&win, cum, 300, 1000, delta);
	tap_ok(n == 1 && delta[2] == 1 && win.n == 1, "irregular: 300 since 0");
	cum[3] = 1;
	n = strag_win_delta(&win, cum, 600, 1000, delta);
	tap_ok(n == 2 && delta[2] && delta[3] && win.t_ms[1] == 600,
	       "irregular: 600 rotates (newest 600 old), covers (0, 600]");
	cum[4] = 1;
	n = strag_win_delta(&win, cum, 900, 1000, delta);
	tap_ok(n == 3 && win.t_ms[0] == 0, "irregular: 900 covers (0, 900]");
	cum[5] = 1;
	n = strag_win_delta(&win, cum, 1100, 1000, delta);
	tap_ok(n == 2 && delta[4] && delta[5] && win.t_ms[0] == 600 &&
	       win.t_ms[1] == 1100, "irregular: 1100 rotates, covers (600, 1100]");
	cum[6] = 1;
	n = strag_win_delta(&win, cum, 2500, 1000, delta);
	tap_ok(n == 1 && delta[6] && win.t_ms[0] == 1100 && win.t_ms[1] == 2500,
	       "after a stall: (1100, 2500], longer than W (< W + gap)");

	/* W = 0: every call is a baseline, delta since the previous call */
	win_reset();
	cum[1] = 4;
	strag_win_delta(&win, cum, 0, 0, delta);
	cum[1] += 2;
	cum[7] = 1;
	n = strag_win_delta(&win, cum, 10, 0, delta);
	cum[7] += 5;
	n = strag_win_delta(&win, cum, 20, 0, delta);
	tap_ok(n == 5 && delta[7] == 5 && !delta[1],
	       "W 0: delta since the previous call");

	/* the clock going back counts as age 0 */
	win_reset();
	strag_win_delta(&win, cum, 1000, 1000, delta);
	cum[8] = 1;
	n = strag_win_delta(&win, cum, 400, 1000, delta);
	tap_ok(n == 1 && win.n == 1 && win.t_ms[0] == 1000,
	       "clock backwards: no rotation");
}

static void test_win_reset(void)
{
	uint64_t n;

	win_reset();
	cum[30] = 100;
	cum[40] = 10;
	strag_win_delta(&win, cum, 0, 1000, delta);
	cum[30] = 150;
	strag_win_delta(&win, cum, 600, 1000, delta);
	tap_eq(win.n, 2, "reset: two baselines before");
	/* recreated: more samples than before in bucket 30, fewer in 40 */
	cum[30] = 200;
	cum[40] = 1;
	n = strag_win_delta(&win, cum, 700, 1000, delta);
	tap_ok(n == 201 && hist_diff(delta, cum) < 0,
	       "a decreasing bucket resets: delta is the new cumulative");
	tap_ok(win.n == 1 && win.t_ms[0] == 700, "reset: one baseline, now");
	cum[40] = 3;
	n = strag_win_delta(&win, cum, 800, 1000, delta);
	tap_ok(n == 2 && delta[40] == 2, "after the reset: delta since it");
}

/*
 * The windowed p99 of a flow that was fast for a long time and has a slow
 * tail now: 10000 samples of 10 us before the window; 98 of 10 us and 2 of
 * 1 ms in it. Windowed p99: rank 99 of 100, the 1 ms bucket, whose
 * midpoint is 999424 ns (2^19 <= 10^6 < 2^20: width 2^15, lower 30 * 2^15
 * = 983040, + 16384). Cumulative p99: rank 9999 of 10100, 10 us, bucket
 * [9728, 10239], midpoint 9984.
 */
static void test_win_p99(void)
{
	__u32 b10us = rocecc_hist_index(10000, FLOWMON_HIST_SUB_BITS,
					FLOWMON_HIST_RANGE_BITS);
	__u32 b1ms = rocecc_hist_index(1000000, FLOWMON_HIST_SUB_BITS,
				       FLOWMON_HIST_RANGE_BITS);
	uint64_t n, p99 = 0;
	bool ok;

	win_reset();
	cum[b10us] = 10000;
	strag_win_delta(&win, cum, 0, 10000, delta);
	cum[b10us] += 98;
	cum[b1ms] += 2;
	n = strag_win_delta(&win, cum, 1000, 10000, delta);
	tap_eq(n, 100, "p99: 100 samples in the window");
	ok = rd_hist_percentile(delta, 990000, &p99);
	tap_ok(ok && p99 == 999424, "windowed p99 is the 1 ms tail (%llu)",
	       (unsigned long long)p99);
	ok = rd_hist_percentile(cum, 990000, &p99);
	tap_ok(ok && p99 == 9984, "cumulative p99 would hide it (%llu)",
	       (unsigned long long)p99);
	/* delta may be cur */
	memcpy(want, delta, sizeof(want));
	memset(&win, 0, sizeof(win));
	cum[b10us] -= 98;
	cum[b1ms] -= 2;
	strag_win_delta(&win, cum, 0, 10000, delta);
	cum[b10us] += 98;
	cum[b1ms] += 2;
	n = strag_win_delta(&win, cum, 1000, 10000, cum);
	tap_ok(n == 100 && hist_diff(cum, want) < 0, "delta in place of cur");
}

/* xorshift64*, a fixed sequence */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static uint64_t rnd(uint64_t n)
{
	return rng() % n;
}

/*
 * Random call times and samples: the delta must be exactly the samples
 * recorded after t_ms[0], and its span within the documented bounds.
 */
#define LOGN	4000
static void test_win_random(void)
{
	static struct { uint64_t t; unsigned int b; } log[LOGN];
	unsigned int nlog = 0, i, round, calls, bad = 0;
	uint64_t t, prev, W, gap, maxgap, n, cnt;

	for (round = 0; round < 20 && !bad; round++) {
		win_reset();
		nlog = 0;
		W = 100 + rnd(2000);
		t = rnd(1000);
		prev = t;
		maxgap = 0;
		for (calls = 0; calls < 150; calls++) {
			unsigned int s = rnd(4);

			gap = rnd(W / 3 + 1) + (rnd(20) ? 0 : rnd(3 * W));
			t += gap;
			if (calls && !gap)
				s = 0;		/* no time for samples */
			if (gap > maxgap && calls)
				maxgap = gap;
			while (s-- && nlog < LOGN) {
				log[nlog].t = t - rnd(gap + 1);
				if (calls && log[nlog].t <= prev)
					log[nlog].t = prev + 1;
				log[nlog].b = rnd(NB);
				cum[log[nlog].b]++;
				nlog++;
			}
			n = strag_win_delta(&win, cum, t, W, delta);
			memset(want, 0, sizeof(want));
			cnt = 0;
			for (i = 0; i < nlog; i++) {
				if (calls && log[i].t <= win.t_ms[0])
					continue;
				want[log[i].b]++;
				cnt++;
			}
			if (n != cnt || hist_diff(delta, want) >= 0)
				bad++;
			if (calls && win.n == 1 && t - win.t_ms[0] >= W / 2)
				bad++;
			if (win.n == 2 && (t - win.t_ms[0] < W / 2 ||
					   t - win.t_ms[0] >= W + maxgap))
				bad++;
			if (bad) {
				tap_diag("round %u call %u t %llu W %llu", round,
					 calls, (unsigned long long)t,
					 (unsigned long long)W);
				break;
			}
			prev = t;
		}
	}
	tap_ok(!bad, "random calls: delta = samples after t_ms[0], span bounds");
}

/* ---- group evaluation -------------------------------------------------- */

static const uint64_t G1[] = { 1 }, G2[] = { 2 }, G12[] = { 1, 2 },
		      G21[] = { 2, 1 }, G11[] = { 1, 1 };

static void item(struct strag_item *it, uint64_t p99, uint64_t samples,
		 const uint64_t *groups, size_t ngroups, bool was)
{
	memset(it, 0, sizeof(*it));
	it->p99_ns = p99;
	it->samples = samples;
	it->groups = groups;
	it->ngroups = ngroups;
	it->was_straggler = was;
	it->ratio = -1;			/* outputs must be overwritten */
	it->group = 99;
	it->group_flows = 99;
	it->median_ns = 99;
}

static const struct strag_conf conf2 = {
	.factor = 2.0, .min_samples = 10, .min_flows = 3,
};

/* three flows of group 1 */
static int eval3(struct strag_item *it, uint64_t a, uint64_t b, uint64_t c,
		 const struct strag_conf *conf)
{
	item(&it[0], a, 100, G1, 1, false);
	item(&it[1], b, 100, G1, 1, false);
	item(&it[2], c, 100, G1, 1, false);
	return strag_eval(it, 3, conf);
}

static void test_eval_basic(void)
{
	struct strag_item it[4];
	struct strag_conf c = conf2;
	int r;

	r = eval3(it, 100, 110, 300, &c);
	tap_eq(r, 1, "3 flows, 100/110/300, factor 2: one straggler");
	tap_ok(!it[0].straggler && !it[1].straggler && it[2].straggler,
	       "the slow one is flagged, no other");
	tap_ok(it[2].group == 1 && it[2].median_ns == 110 &&
	       it[2].group_flows == 3 && it[2].ratio == 300.0 / 110,
	       "its group 1, median 110, 3 flows, ratio 300/110");
	tap_ok(it[0].group == 1 && it[0].median_ns == 110 &&
	       it[0].ratio == 100.0 / 110, "the others report their ratio too");

	r = eval3(it, 100, 150, 300, &c);
	tap_ok(r == 0 && !it[2].straggler && it[2].ratio == 2.0,
	       "exactly factor * median (300 = 2 * 150): not flagged");
	r = eval3(it, 100, 150, 301, &c);
	tap_ok(r == 1 && it[2].straggler, "301 > 2 * 150: flagged");

	/* 4 flows: median (101 + 120) / 2 = 110.5, rounded down to 110 */
	item(&it[0], 120, 100, G1, 1, false);
	item(&it[1], 100, 100, G1, 1, false);
	item(&it[2], 220, 100, G1, 1, false);
	item(&it[3], 101, 100, G1, 1, false);
	r = strag_eval(it, 4, &c);
	tap_ok(r == 0 && it[2].median_ns == 110 && it[2].group_flows == 4 &&
	       it[2].ratio == 2.0, "4 flows: even median 110, 220 not flagged");
	it[2].p99_ns = 221;
	r = strag_eval(it, 4, &c);
	tap_ok(r == 1 && it[2].straggler && it[2].median_ns == 110,
	       "4 flows: 221 > 2 * 110 flagged");

	r = eval3(it, 200, 200, 200, &c);
	tap_ok(r == 0 && !it[0].straggler && !it[1].straggler &&
	       !it[2].straggler && it[0].ratio == 1.0 && it[2].median_ns == 200,
	       "all equal: none flagged, ratio 1");

	c.factor = 1.0;
	tap_eq(eval3(it, 1, 2, 3, &c), (unsigned long long)-EINVAL,
	       "factor 1: -EINVAL");
	c.factor = NAN;
	tap_eq(eval3(it, 1, 2, 3, &c), (unsigned long long)-EINVAL,
	       "factor NaN: -EINVAL");
	tap_eq(strag_eval(NULL, 0, &conf2), 0, "no flows: 0");
}

static void test_eval_filters(void)
{
	struct strag_item it[4];
	struct strag_conf c = conf2;
	int r;

	/* D is slow but has 5 samples < 10: excluded from the median too */
	item(&it[0], 100, 100, G1, 1, false);
	item(&it[1], 110, 10, G1, 1, false);
	item(&it[2], 120, 100, G1, 1, false);
	item(&it[3], 1000, 9, G1, 1, false);
	r = strag_eval(it, 4, &c);
	tap_ok(r == 0 && !it[3].straggler && it[3].ratio == 0 &&
	       it[3].group_flows == 0 && it[3].group == 0,
	       "min_samples: a slow flow with 9 < 10 samples is not evaluated");
	tap_ok(it[0].median_ns == 110 && it[0].group_flows == 3,
	       "min_samples: nor counted in the median (110, 3 flows)");
	c.min_samples = 9;
	r = strag_eval(it, 4, &c);
	tap_ok(r == 1 && it[3].straggler && it[3].median_ns == 115 &&
	       it[3].group_flows == 4, "min_samples 9: it is (median 115)");

	/* no samples: never eligible, even with min_samples 0 */
	c.min_samples = 0;
	it[3].samples = 0;
	r = strag_eval(it, 4, &c);
	tap_ok(r == 0 && it[3].group_flows == 0 && it[0].group_flows == 3,
	       "a flow without samples is ineligible even with min_samples 0");

	c = conf2;
	c.min_flows = 4;
	r = eval3(it, 100, 110, 300, &c);
	tap_ok(r == 0 && !it[2].straggler && it[2].ratio == 0 &&
	       it[2].group_flows == 0, "min_flows 4: a 3-flow group is not evaluated");
	c.min_flows = 2;
	item(&it[0], 100, 100, G1, 1, false);
	item(&it[1], 10000, 100, G1, 1, false);
	r = strag_eval(it, 2, &c);
	tap_ok(r == 0 && it[1].median_ns == 5050 && it[1].ratio < 2,
	       "2 flows: the median is their mean, factor 2 never reached");
	c.min_flows = 0;
	item(&it[0], 100, 100, G1, 1, false);
	r = strag_eval(it, 1, &c);
	tap_ok(r == 0 && it[0].group_flows == 1 && it[0].ratio == 1.0,
	       "min_flows 0 is 1: a lone flow is its own median");

	/* a median of 0 ns is no measurement: not evaluated */
	c = conf2;
	r = eval3(it, 0, 0, 500, &c);
	tap_ok(r == 0 && it[2].group_flows == 0, "median 0: group not evaluated");

	/* a group listed twice by a flow counts it once */
	item(&it[0], 100, 100, G11, 2, false);
	item(&it[1], 110, 100, G1, 1, false);
	item(&it[2], 300, 100, G1, 1, false);
	r = strag_eval(it, 3, &c);
	tap_ok(r == 1 && it[2].median_ns == 110 && it[2].group_flows == 3,
	       "duplicate group key in one flow: counted once");
}

static void test_eval_groups(void)
{
	static const uint64_t G3[] = { 3 };
	struct strag_item it[6];
	int r, pass;

	/*
	 * X (300) is in group 1 with two flows of 100 (median 100: ratio 3)
	 * and in group 2 with two of 300 (median 300: ratio 1).
	 */
	for (pass = 0; pass < 2; pass++) {
		item(&it[0], 300, 100, pass ? G21 : G12, 2, false);
		item(&it[1], 100, 100, G1, 1, false);
		item(&it[2], 100, 100, G1, 1, false);
		item(&it[3], 300, 100, G2, 1, false);
		item(&it[4], 300, 100, G2, 1, false);
		r = strag_eval(it, 5, &conf2);
		tap_ok(r == 1 && it[0].straggler && it[0].group == 1 &&
		       it[0].median_ns == 100 && it[0].ratio == 3.0 &&
		       it[0].group_flows == 3,
		       "flow in groups %s: flagged by group 1 only",
		       pass ? "{2,1}" : "{1,2}");
		tap_ok(!it[3].straggler && !it[4].straggler &&
		       it[3].median_ns == 300, "group 2 flags nobody");
	}

	/* not a straggler: reports the group of its largest ratio */
	item(&it[0], 150, 100, G12, 2, false);
	item(&it[1], 100, 100, G1, 1, false);
	item(&it[2], 100, 100, G1, 1, false);
	item(&it[3], 150, 100, G2, 1, false);
	item(&it[4], 150, 100, G2, 1, false);
	item(&it[5], 100, 100, G3, 1, false);
	r = strag_eval(it, 6, &conf2);
	tap_ok(r == 0 && it[0].group == 1 && it[0].ratio == 1.5 &&
	       it[5].group_flows == 0,
	       "no straggler: the largest ratio's group; a 1-flow group none");
}

static void test_eval_hysteresis(void)
{
	struct strag_item it[3];
	int r;

	/* factor 2: clear = 1 + 1 * 0.8 = 1.8; median 100 */
	r = eval3(it, 100, 100, 190, &conf2);
	tap_ok(r == 0 && !it[2].straggler, "190, not flagged before: not flagged");
	it[2].was_straggler = true;
	r = strag_eval(it, 3, &conf2);
	tap_ok(r == 1 && it[2].straggler && it[2].group == 1,
	       "190 > 1.8 * 100, flagged before: stays flagged");
	it[2].p99_ns = 181;
	r = strag_eval(it, 3, &conf2);
	tap_ok(r == 1 && it[2].straggler, "181: still flagged");
	it[2].p99_ns = 180;
	r = strag_eval(it, 3, &conf2);
	tap_ok(r == 0 && !it[2].straggler && it[2].ratio == 1.8,
	       "180 = 1.8 * 100: cleared");
	it[2].p99_ns = 190;
	it[2].samples = 1;
	r = strag_eval(it, 3, &conf2);
	tap_ok(r == 0 && !it[2].straggler,
	       "flagged before but now ineligible: cleared");
}

/* ---- random cases against a brute-force reference ---------------------- */

struct ref_out {
	bool straggler;
	uint64_t group, median;
	unsigned int flows;
	double ratio;
};

static bool ref_eligible(const struct strag_item *it, const struct strag_conf *c)
{
	return it->samples > 0 && it->samples >= c->min_samples;
}

static bool ref_member(const struct strag_item *it, uint64_t g)
{
	size_t j;

	for (j = 0; j < it->ngroups; j++)
		if (it->groups[j] == g)
			return true;
	return false;
}

static int ref_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int ref_eval(const struct strag_item *it, size_t n,
		    const struct strag_conf *c, struct ref_out *o,
		    uint64_t *vals)
{
	unsigned int minf = c->min_flows ? c->min_flows : 1;
	size_t i, j, gi, cnt;
	int count = 0;

	for (i = 0; i < n; i++) {
		bool have = false;

		memset(&o[i], 0, sizeof(o[i]));
		if (!ref_eligible(&it[i], c))
			continue;
		for (gi = 0; gi < it[i].ngroups; gi++) {
			uint64_t g = it[i].groups[gi], med;
			double thr, ratio;
			bool hit, dup = false;

			for (j = 0; j < gi; j++)
				dup |= it[i].groups[j] == g;
			if (dup)
				continue;
			cnt = 0;
			for (j = 0; j < n; j++)
				if (ref_eligible(&it[j], c) && ref_member(&it[j], g))
					vals[cnt++] = it[j].p99_ns;
			if (cnt < minf)
				continue;
			qsort(vals, cnt, sizeof(*vals), ref_cmp);
			med = cnt % 2 ? vals[cnt / 2] :
			      (uint64_t)(((unsigned __int128)vals[cnt / 2 - 1] +
					  vals[cnt / 2]) / 2);
			if (!med)
				continue;
			thr = it[i].was_straggler ?
			      1.0 + (c->factor - 1.0) * 0.8 : c->factor;
			hit = (double)it[i].p99_ns > thr * (double)med;
			ratio = (double)it[i].p99_ns / (double)med;
			if (!have || (hit && !o[i].straggler) ||
			    (hit == o[i].straggler &&
			     (ratio > o[i].ratio ||
			      (ratio == o[i].ratio && g < o[i].group)))) {
				have = true;
				o[i].straggler = hit;
				o[i].group = g;
				o[i].median = med;
				o[i].flows = cnt;
				o[i].ratio = ratio;
			}
		}
		count += o[i].straggler;
	}
	return count;
}

#define RMAX	2000
static void test_eval_random(void)
{
	static const double factors[] = { 1.1, 1.25, 1.5, 2.0, 3.0 };
	static struct strag_item it[RMAX];
	static struct ref_out o[RMAX];
	static uint64_t groups[RMAX][4], vals[RMAX];
	unsigned int round, bad = 0, flagged = 0, rounds = 0;
	size_t i, j, n;

	for (round = 0; round < 400 && !bad; round++) {
		struct strag_conf c = {
			.factor = factors[rnd(5)],
			.min_samples = rnd(12),
			.min_flows = rnd(5),
		};
		uint64_t ngroupkeys = 1 + rnd(8), scale = rnd(3) ? 10 : 1ULL << 58;
		int got, want;

		n = round == 0 ? RMAX : 1 + rnd(60);
		for (i = 0; i < n; i++) {
			it[i].ngroups = rnd(4) + (rnd(4) == 0);
			for (j = 0; j < it[i].ngroups; j++)
				groups[i][j] = rnd(ngroupkeys) * 0x100000001ULL;
			it[i].groups = groups[i];
			/* ties, a few slow ones, sometimes 0 */
			it[i].p99_ns = (rnd(8) ? 10 + rnd(6) : rnd(60)) * scale;
			it[i].samples = rnd(16);
			it[i].was_straggler = rnd(2);
		}
		got = strag_eval(it, n, &c);
		want = ref_eval(it, n, &c, o, vals);
		rounds++;
		if (got != want) {
			tap_diag("round %u: %d stragglers, want %d", round, got,
				 want);
			bad++;
		}
		for (i = 0; i < n && !bad; i++) {
			if (it[i].straggler != o[i].straggler ||
			    it[i].group != o[i].group ||
			    it[i].median_ns != o[i].median ||
			    it[i].group_flows != o[i].flows ||
			    it[i].ratio != o[i].ratio) {
				tap_diag("round %u flow %zu: got %d g %llu m %llu "
					 "f %u r %g, want %d g %llu m %llu f %u r %g",
					 round, i, it[i].straggler,
					 (unsigned long long)it[i].group,
					 (unsigned long long)it[i].median_ns,
					 it[i].group_flows, it[i].ratio,
					 o[i].straggler,
					 (unsigned long long)o[i].group,
					 (unsigned long long)o[i].median,
					 o[i].flows, o[i].ratio);
				bad++;
			}
		}
		flagged += got > 0;
	}
	tap_ok(!bad, "%u random cases match the brute-force reference", rounds);
	tap_ok(flagged > rounds / 4, "and %u of them have stragglers", flagged);
}

/* 65536 flows, 3 groups each, out of 4096 groups: time and invariants */
#define BIGN	65536
static void test_eval_big(void)
{
	static struct strag_item it[BIGN];
	static uint64_t groups[BIGN][3];
	struct strag_conf c = conf2;
	struct timespec a, b;
	unsigned int bad = 0;
	double ms;
	size_t i;
	int r;

	for (i = 0; i < BIGN; i++) {
		groups[i][0] = i / 16;			/* 16 flows */
		groups[i][1] = 4096 + i % 4096;		/* 16 flows */
		groups[i][2] = 8192 + rnd(64);		/* ~1024 flows */
		it[i].groups = groups[i];
		it[i].ngroups = 3;
		it[i].p99_ns = 50000 + rnd(10000) + (rnd(1000) ? 0 : 200000);
		it[i].samples = 100;
		it[i].was_straggler = false;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	r = strag_eval(it, BIGN, &c);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ms = (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
	for (i = 0; i < BIGN; i++) {
		bool slow = it[i].p99_ns >= 250000;

		if (it[i].straggler != slow ||
		    (slow && (double)it[i].p99_ns <= 2.0 * it[i].median_ns))
			bad++;
	}
	tap_ok(r > 0 && !bad, "65536 flows: exactly the slow ones flagged (%d)",
	       r);
	tap_diag("65536 flows x 3 groups: %.1f ms", ms);
}

int main(void)
{
	test_win_first();
	test_win_rotation();
	test_win_span();
	test_win_reset();
	test_win_p99();
	test_win_random();
	test_eval_basic();
	test_eval_filters();
	test_eval_groups();
	test_eval_hysteresis();
	test_eval_random();
	test_eval_big();
	return tap_done();
}
