// SPDX-License-Identifier: GPL-2.0
/*
 * rocegen's latency histogram against exact nearest-rank percentiles of the
 * sorted sample, on random data of several shapes. Its buckets are
 * include/rocecc/hist.h's (64 sub-buckets, values below 2^63), whose
 * geometry selftests/unit/core/test_hist.c checks.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "rg_lib.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t xorshift(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double unif(void)
{
	return (double)(xorshift() >> 11) / 9007199254740992.0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static const uint32_t ppms[] = { 1, 10000, 500000, 900000, 990000, 999000,
				 999900, 1000000 };

/* Largest relative error of any checked percentile; sets *exact_small. */
static double check_sample(uint64_t *v, size_t n, int *small_exact)
{
	static struct rg_hist h;
	double worst = 0.0;
	size_t i;

	rg_hist_init(&h);
	for (i = 0; i < n; i++)
		rg_hist_add(&h, v[i]);
	qsort(v, n, sizeof(*v), cmp_u64);
	*small_exact = 1;
	for (i = 0; i < sizeof(ppms) / sizeof(ppms[0]); i++) {
		uint64_t want = v[rocecc_hist_rank(n, ppms[i]) - 1];
		uint64_t got = rg_hist_percentile(&h, ppms[i]);
		double err;

		if (want < 2 * RG_HIST_SUB && got != want)
			*small_exact = 0;
		err = want ? fabs((double)got - (double)want) / (double)want
			   : (got ? 1.0 : 0.0);
		if (err > worst)
			worst = err;
	}
	return worst;
}

#define N 200000

int main(void)
{
	static uint64_t v[N];
	const double bound = 1.0 / (2.0 * RG_HIST_SUB);
	unsigned int i;
	int small;
	double err;
	uint64_t x;

	/* log-uniform over 10 ns .. 10 s */
	for (i = 0; i < N; i++)
		v[i] = (uint64_t)exp(log(10.0) + unif() * (log(1e10) - log(10.0)));
	err = check_sample(v, N, &small);
	tap_ok(err < bound, "log-uniform: worst relative error %.5f < %.5f",
	       err, bound);
	tap_ok(small, "log-uniform: values < %u exact", 2 * RG_HIST_SUB);

	/* exponential, mean 50 us, plus a heavy tail */
	for (i = 0; i < N; i++) {
		v[i] = (uint64_t)(-log(1.0 - unif()) * 50000.0);
		if (xorshift() % 1000 == 0)
			v[i] *= 100;
	}
	err = check_sample(v, N, &small);
	tap_ok(err < bound, "exponential+tail: worst relative error %.5f",
	       err);

	/* small integers only: must be exact */
	for (i = 0; i < N; i++)
		v[i] = xorshift() % (2 * RG_HIST_SUB);
	err = check_sample(v, N, &small);
	tap_ok(err == 0.0 && small, "values < %u: exact percentiles",
	       2 * RG_HIST_SUB);

	/* tiny samples, where rank rounding matters */
	for (i = 1; i <= 20; i++) {
		unsigned int j;

		for (j = 0; j < i; j++)
			v[j] = 1000 + xorshift() % 100000;
		err = check_sample(v, i, &small);
		if (err >= bound)
			break;
	}
	tap_ok(i > 20, "samples of 1..20 values within bound");

	/* constant */
	for (i = 0; i < 1000; i++)
		v[i] = 123456789;
	err = check_sample(v, 1000, &small);
	tap_ok(err == 0.0, "constant sample: percentiles exact (clamped)");

	/* rank definition: nearest rank */
	tap_eq(rocecc_hist_rank(1000, 999000), 999, "p99.9 of 1000 is rank 999");
	tap_eq(rocecc_hist_rank(1001, 999000), 1000, "p99.9 of 1001 is rank 1000");
	tap_eq(rocecc_hist_rank(10, 500000), 5, "p50 of 10 is rank 5");
	tap_eq(rocecc_hist_rank(7, 1), 1, "p0.0001 of 7 is rank 1");
	tap_eq(rocecc_hist_rank(7, 1000000), 7, "p100 of 7 is rank 7");

	/* mean, min, max and merge */
	{
		static struct rg_hist a, b;
		unsigned __int128 sum = 0;
		uint64_t mx = 0;

		rg_hist_init(&a);
		rg_hist_init(&b);
		for (i = 0; i < N; i++) {
			v[i] = xorshift() % 10000000;
			sum += v[i];
			if (v[i] > mx)
				mx = v[i];
			rg_hist_add(i & 1 ? &a : &b, v[i]);
		}
		rg_hist_merge(&a, &b);
		tap_eq(a.count, N, "merged count");
		tap_eq(rg_hist_percentile(&a, 1000000), mx,
		       "p100 is the exact max");
		tap_ok(fabs(rg_hist_mean(&a) - (double)sum / N) < 1e-6,
		       "mean is exact");
		qsort(v, N, sizeof(*v), cmp_u64);
		x = v[rocecc_hist_rank(N, 990000) - 1];
		err = fabs((double)rg_hist_percentile(&a, 990000) - (double)x)
		      / (double)x;
		tap_ok(err < bound, "merged p99 within bound (%.5f)", err);
	}
	{
		static struct rg_hist e;

		rg_hist_init(&e);
		tap_eq(rg_hist_percentile(&e, 500000), 0, "empty: p50 is 0");
	}
	return tap_done();
}
