// SPDX-License-Identifier: GPL-2.0
/*
 * include/rocecc/hist.h: the log-linear histogram layout, its error bound
 * and percentiles.
 *
 * The anchors (bucket numbers and bounds of particular values) are worked
 * out by hand from the layout described at the top of hist.h, not taken
 * from its code. The error bound 1/(2S) is checked for every value below
 * 2^22 and, above that, at every bucket edge and at pseudo-random values of
 * every power of two up to the range; percentiles are compared with the
 * exact nearest-rank percentile of sorted samples.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <rocecc/hist.h>
#include "tap.h"

/* The layout of bpf/flowmon.h: 16 sub-buckets, values below 2^34 ns */
#define FM_SUB_BITS	4
#define FM_RANGE_BITS	34
#define K		FM_SUB_BITS
#define M		FM_RANGE_BITS
#define S		(1u << K)
#define NB		ROCECC_HIST_NBUCKETS(FM)
#define EXHAUSTIVE	(1u << 22)

static uint64_t xs = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	xs ^= xs << 13;
	xs ^= xs >> 7;
	xs ^= xs << 17;
	return xs;
}

static uint64_t absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/*
 * One value against its bucket: inside [lower, upper], and the reported
 * value within 1/(2S) of it: 2S * |mid - v| <= v (exact integers).
 * Returns 0 if fine; sets *tight when the bound holds with equality.
 */
static int check_value(uint64_t v, unsigned int k, unsigned int m,
		       int *tight)
{
	uint32_t i = rocecc_hist_index(v, k, m);
	uint64_t lo = rocecc_hist_lower(i, k, m);
	uint64_t hi = rocecc_hist_upper(i, k, m);
	uint64_t mid = rocecc_hist_value(i, k, m);
	unsigned __int128 err = (unsigned __int128)absdiff(mid, v) << (k + 1);

	if (i > rocecc_hist_overflow(k, m) || v < lo || v > hi)
		return 1;
	if (i == rocecc_hist_overflow(k, m))
		return v < (1ull << m);
	if (err > v)
		return 1;
	if (err == v && v)
		*tight = 1;
	return 0;
}

static void test_fls(void)
{
	unsigned int b, bad = 0;

	bad += rocecc_hist_fls64(0) != 0;
	for (b = 0; b < 64; b++) {
		uint64_t p = 1ull << b;

		bad += rocecc_hist_fls64(p) != b + 1;
		bad += rocecc_hist_fls64(p | (p - 1)) != b + 1;
		bad += rocecc_hist_fls64(p | (p >> 1)) != b + 1;
		bad += rocecc_hist_fls64(p | (rnd() & (p - 1))) != b + 1;
	}
	tap_eq(bad, 0, "fls64: 0, and 2^b, 2^(b+1)-1 and 2^b + random for every b");
}

/* Hand-computed buckets of the flowmon layout */
static void test_anchors(void)
{
	static const struct {
		uint64_t v;
		uint32_t i;
		uint64_t lo, hi;
	} a[] = {
		{ 0,		0,	0,	0 },
		{ 1,		1,	1,	1 },
		{ 31,		31,	31,	31 },	/* 2S - 1: last exact one */
		{ 32,		32,	32,	33 },	/* width 2 from 2S */
		{ 33,		32,	32,	33 },
		{ 34,		33,	34,	35 },
		{ 63,		47,	62,	63 },
		{ 64,		48,	64,	67 },	/* width 4 from 4S */
		/* 5000 = 19 * 256 + 136: e = 12, s = 8, (8 << 4) + 19 */
		{ 5000,		147,	4864,	5119 },
		/* 1 ms: e = 19, s = 15, 10^6 >> 15 = 30: (15 << 4) + 30 */
		{ 1000000,	270,	983040,	1015807 },
		/* 2^34 - 1: s = 29, (29 << 4) + 31 = 495, the last regular */
		{ (1ull << 34) - 1, 495, 31ull << 29, (1ull << 34) - 1 },
		{ 1ull << 34,	496,	1ull << 34, ~0ull },
		{ ~0ull,	496,	1ull << 34, ~0ull },
	};
	unsigned int n;

	tap_eq(NB, 497, "flowmon layout (k 4, m 34): 497 buckets");
	tap_eq(rocecc_hist_overflow(K, M), 496,
	       "overflow bucket is 496, the constant's count - 1");
	tap_eq(ROCECC_HIST_ERR_PPM(K), 31250, "error bound 1/32 = 31250 ppm");
	for (n = 0; n < sizeof(a) / sizeof(a[0]); n++) {
		uint32_t i = rocecc_hist_index(a[n].v, K, M);

		if (!tap_ok(i == a[n].i && rocecc_hist_lower(i, K, M) == a[n].lo &&
			    rocecc_hist_upper(i, K, M) == a[n].hi,
			    "value %llu: bucket %u [%llu, %llu]",
			    (unsigned long long)a[n].v, a[n].i,
			    (unsigned long long)a[n].lo,
			    (unsigned long long)a[n].hi))
			tap_diag("got bucket %u [%llu, %llu]", i,
				 (unsigned long long)rocecc_hist_lower(i, K, M),
				 (unsigned long long)rocecc_hist_upper(i, K, M));
	}
	tap_eq(rocecc_hist_value(147, K, M), 4864 + 128,
	       "bucket 147 reports its midpoint 4992");
	tap_eq(rocecc_hist_value(31, K, M), 31, "an exact bucket reports its value");
	tap_eq(rocecc_hist_value(496, K, M), 1ull << 34,
	       "the overflow bucket reports 2^34, its lower bound");
}

/* Every bucket of a layout: contiguous, its edges map back to it. */
static unsigned int check_layout(unsigned int k, unsigned int m)
{
	uint32_t i, nb = rocecc_hist_overflow(k, m) + 1;
	unsigned int bad = 0;

	bad += rocecc_hist_lower(0, k, m) != 0;
	for (i = 0; i < nb; i++) {
		uint64_t lo = rocecc_hist_lower(i, k, m);
		uint64_t hi = rocecc_hist_upper(i, k, m);
		uint64_t w = hi - lo + 1;

		bad += hi < lo;
		bad += rocecc_hist_index(lo, k, m) != i;
		bad += rocecc_hist_index(hi, k, m) != i;
		if (i + 1 < nb)
			bad += rocecc_hist_lower(i + 1, k, m) != hi + 1;
		if (i + 1 < nb && i >= (2u << k))	/* regular, width >= 2 */
			bad += (w & (w - 1)) || lo < ((uint64_t)w << k);
	}
	bad += rocecc_hist_upper(nb - 1, k, m) != ~0ull;
	return bad;
}

static void test_layouts(void)
{
	static const unsigned int km[][2] = {
		{ K, M }, { 0, 8 }, { 1, 20 }, { 3, 40 }, { 5, 34 },
		{ 6, 63 }, { 7, 30 },
	};
	unsigned int n;

	for (n = 0; n < sizeof(km) / sizeof(km[0]); n++) {
		unsigned int k = km[n][0], m = km[n][1];

		tap_eq(check_layout(k, m), 0,
		       "layout k %u m %u: %u buckets, contiguous, edges map back",
		       k, m, rocecc_hist_overflow(k, m) + 1);
	}
}

static void test_bound(void)
{
	unsigned int bad = 0, e, j, n;
	int tight = 0, tight_hi = 0;
	uint64_t v;

	for (v = 0; v < EXHAUSTIVE; v++)
		bad += check_value(v, K, M, &tight);
	tap_eq(bad, 0, "every value below 2^22: in its bucket, error <= 1/32");
	tap_ok(tight, "the bound 1/32 is attained (not loose)");

	bad = 0;
	for (e = 22; e < M; e++) {
		for (j = 0; j < S; j++) {
			uint64_t lo = ((uint64_t)(S + j)) << (e - K);
			uint64_t hi = lo + (1ull << (e - K)) - 1;

			bad += check_value(lo, K, M, &tight_hi);
			bad += check_value(lo + 1, K, M, &tight_hi);
			bad += check_value(hi, K, M, &tight_hi);
			bad += check_value(lo + (hi - lo) / 2, K, M, &tight_hi);
		}
		for (n = 0; n < 4096; n++)
			bad += check_value((1ull << e) |
					   (rnd() & ((1ull << e) - 1)),
					   K, M, &tight_hi);
	}
	tap_eq(bad, 0, "2^22..2^34: every bucket edge and 4096 random values per power of two");
	tap_ok(tight_hi, "the bound is attained above 2^22 too");

	bad = 0;
	for (n = 0; n < 65536; n++) {
		v = (1ull << 34) + (rnd() >> (rnd() % 30));
		bad += rocecc_hist_index(v, K, M) != rocecc_hist_overflow(K, M);
	}
	tap_eq(bad, 0, "values >= 2^34 all go to the overflow bucket");

	/* Another layout, exhaustively: rocegen's 64 sub-buckets */
	bad = 0;
	tight = 0;
	for (v = 0; v < (1u << 20); v++)
		bad += check_value(v, 6, 63, &tight);
	tap_ok(!bad && tight, "k 6: every value below 2^20 within 1/128, attained");
}

static void test_rank(void)
{
	uint64_t n = ~0ull;
	unsigned __int128 want = ((unsigned __int128)n * 999000 + 999999) /
				 1000000;

	tap_eq(rocecc_hist_rank(0, 500000), 0, "rank: no samples, 0");
	tap_eq(rocecc_hist_rank(1, 0), 1, "rank: p0 of 1 sample is rank 1");
	tap_eq(rocecc_hist_rank(1, 999000), 1, "rank: p99.9 of 1 sample is rank 1");
	tap_eq(rocecc_hist_rank(1000, 999000), 999, "rank: p99.9 of 1000 is 999");
	tap_eq(rocecc_hist_rank(1001, 999000), 1000, "rank: p99.9 of 1001 is 1000");
	tap_eq(rocecc_hist_rank(1000, 1000000), 1000, "rank: p100 of 1000 is 1000");
	tap_eq(rocecc_hist_rank(1000, 2000000), 1000, "rank: ppm above 10^6 is p100");
	tap_eq(rocecc_hist_rank(3, 500000), 2, "rank: p50 of 3 is 2");
	tap_eq(rocecc_hist_rank(n, 999000), (uint64_t)want,
	       "rank: p99.9 of 2^64 - 1 samples, no overflow");
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

#define NSAMP 20000

/* Percentiles of log-uniform samples against the sorted samples */
static void test_percentiles(void)
{
	static const uint32_t ppm[] = { 0, 1, 500000, 900000, 990000, 999000,
					999900, 1000000 };
	static uint64_t samp[NSAMP];
	static __u64 counts[NB];
	unsigned int n, bad = 0, round;
	char why[160] = "";
	bool ok;
	__u64 v;

	tap_ok(!rocecc_hist_percentile(counts, K, M, 500000, &v),
	       "percentile of an empty histogram: none");
	tap_eq(rocecc_hist_percentile_bucket(counts, NB, 500000), NB,
	       "percentile bucket of an empty histogram: nbuckets");

	for (round = 0; round < 8; round++) {
		memset(counts, 0, sizeof(counts));
		for (n = 0; n < NSAMP; n++) {
			/* 1 ns .. ~1 s, log-uniform; some rounds heavy-tailed */
			v = 1 + (rnd() >> (34 + rnd() % 30));
			if (round & 1 && n % 1000 == 0)
				v = 500000000 + rnd() % 1000;
			samp[n] = v;
			counts[rocecc_hist_index(v, K, M)]++;
		}
		qsort(samp, NSAMP, sizeof(samp[0]), cmp_u64);
		for (n = 0; n < sizeof(ppm) / sizeof(ppm[0]); n++) {
			uint64_t exact = samp[rocecc_hist_rank(NSAMP, ppm[n]) - 1];
			uint32_t b = rocecc_hist_percentile_bucket(counts, NB,
								   ppm[n]);
			__u64 est = 0;

			if (!rocecc_hist_percentile(counts, K, M, ppm[n], &est) ||
			    b != rocecc_hist_index(exact, K, M) ||
			    absdiff(est, exact) * 2 * S > exact) {
				if (!bad++)
					snprintf(why, sizeof(why),
						 "round %u ppm %u: exact %llu, estimate %llu (bucket %u)",
						 round, ppm[n],
						 (unsigned long long)exact,
						 (unsigned long long)est, b);
			}
		}
	}
	if (!tap_eq(bad, 0, "8 x %u samples, p0..p100: bucket of the exact percentile, within 1/32",
		    NSAMP))
		tap_diag("%s", why);

	/* 1000 samples 1..1000 us: p50 = 500 us, p99.9 = 999 us, p100 = 1 ms */
	memset(counts, 0, sizeof(counts));
	for (n = 1; n <= 1000; n++)
		counts[rocecc_hist_index(n * 1000ull, K, M)]++;
	v = 0;
	ok = rocecc_hist_percentile(counts, K, M, 500000, &v);
	tap_ok(ok && v == rocecc_hist_value(rocecc_hist_index(500000, K, M), K, M),
	       "1..1000 us: p50 is the midpoint of the bucket of 500 us: %llu",
	       (unsigned long long)v);
	v = 0;
	ok = rocecc_hist_percentile(counts, K, M, 999000, &v);
	tap_ok(ok && v == rocecc_hist_value(rocecc_hist_index(999000, K, M), K, M),
	       "1..1000 us: p99.9 is the midpoint of the bucket of 999 us: %llu",
	       (unsigned long long)v);

	/* One sample beyond the range: reported as the range's end */
	memset(counts, 0, sizeof(counts));
	counts[rocecc_hist_index(1ull << 40, K, M)] = 1;
	v = 0;
	ok = rocecc_hist_percentile(counts, K, M, 999000, &v);
	tap_ok(ok && v == 1ull << 34,
	       "a percentile in the overflow bucket is 2^34");
}

int main(void)
{
	test_fls();
	test_anchors();
	test_layouts();
	test_bound();
	test_rank();
	test_percentiles();
	return tap_done();
}
