/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * rocecc: log-linear latency histograms (HdrHistogram style), shared by the
 * BPF programs that fill them, the daemon that reads them and the tests.
 * The bucket arithmetic lives here and nowhere else.
 *
 * Layout
 * ------
 * A layout has two parameters: @sub_bits k, giving S = 2^k linear
 * sub-buckets per power of two, and @range_bits m, the values binned are
 * [0, 2^m); larger values go to one overflow bucket. Requires k < m <= 63.
 *
 *	v < 2S				bucket v (width 1: exact)
 *	2^e <= v < 2^(e+1), e > k	bucket (s << k) + (v >> s), s = e - k:
 *					S buckets of width 2^s each
 *	v >= 2^m			bucket (m - k + 1) << k (overflow)
 *
 * so a layout has ((m - k + 1) << k) + 1 buckets (ROCECC_HIST_NBUCKETS(),
 * rocecc_hist_overflow() + 1), numbered in increasing value order without gaps: bucket i + 1
 * starts where bucket i ends.
 *
 * Error bound
 * -----------
 * A bucket of width w = 2^s >= 2 starts at lower = (v >> s) << s >= S * w.
 * The value reported for it is its midpoint, mid = lower + w / 2, which is
 * within w / 2 of every value v in the bucket, so
 *
 *	|mid - v| / v <= (w / 2) / (S * w) = 1 / (2S)
 *
 * and 0 in the exact buckets. For k = 4 that is 1/32 = 3.125 %; the bound
 * is attained, e.g. at v = 2S (bucket [2S, 2S + 1], mid 2S + 1). A
 * percentile taken from the counts (nearest rank) is the midpoint of the
 * bucket that holds the sample of that rank, so it obeys the same bound
 * against the exact percentile of the samples; counts are exact integers,
 * the only error is the bucket width. A percentile in the overflow bucket
 * is reported as 2^m: a lower bound, not an estimate.
 *
 * Everything here is integer arithmetic without loops, except the
 * percentile walk (userspace and process context only). The log2 is
 * branch-free, so that a BPF caller that records samples in a loop does not
 * multiply the paths the verifier has to walk.
 */
#ifndef _ROCECC_HIST_H
#define _ROCECC_HIST_H

#include "compat.h"

/* The index of the overflow bucket of a layout; the bucket count is one more */
static inline __u32 rocecc_hist_overflow(__u32 sub_bits, __u32 range_bits)
{
	return (range_bits - sub_bits + 1) << sub_bits;
}

/*
 * The same as a constant expression, for array sizes: for a layout named
 * by a prefix L, with L##_SUB_BITS and L##_RANGE_BITS defined.
 */
#define ROCECC_HIST_NBUCKETS(L)						\
	((((L##_RANGE_BITS) - (L##_SUB_BITS) + 1) << (L##_SUB_BITS)) + 1)

/* Worst relative error of a reported value, in parts per million */
#define ROCECC_HIST_ERR_PPM(sub_bits)	(1000000u >> ((sub_bits) + 1))

/* Percentiles are given in parts per million: p99.9 is 999000. */
#define ROCECC_HIST_PPM			1000000u

/*
 * 1 + the index of the most significant set bit of @v, 0 for 0 (the
 * kernel's fls64()). BPF has no count-leading-zeros instruction, and
 * branches here would multiply verifier states, so: a binary search whose
 * steps are additions and shifts. For x < 2^32, (x + 0xffffffff) >> 32 is
 * 1 if x != 0, else 0.
 */
static inline __u32 rocecc_hist_fls64(__u64 v)
{
	__u64 s, n;

	s = ((v >> 32) + 0xffffffffULL) >> 32 << 5;	/* v >> 32 < 2^32 */
	v >>= s;
	n = s;
	s = ((v >> 16) + 0xffffffffULL) >> 32 << 4;	/* now v < 2^32 */
	v >>= s;
	n += s;
	s = ((v >> 8) + 0xffffffffULL) >> 32 << 3;
	v >>= s;
	n += s;
	s = ((v >> 4) + 0xffffffffULL) >> 32 << 2;
	v >>= s;
	n += s;
	s = ((v >> 2) + 0xffffffffULL) >> 32 << 1;
	v >>= s;
	n += s;
	s = ((v >> 1) + 0xffffffffULL) >> 32;
	v >>= s;
	n += s;
	return (__u32)(n + v);				/* v is 0 or 1 */
}

/* The bucket of value @v */
static inline __u32 rocecc_hist_index(__u64 v, __u32 sub_bits,
				      __u32 range_bits)
{
	__u32 bits, shift;

	if (v >> range_bits)
		return rocecc_hist_overflow(sub_bits, range_bits);
	/*
	 * shift = max(0, fls(v) - 1 - sub_bits), without a branch: the
	 * difference is at most 63 and at least -(sub_bits + 1), so its sign
	 * bit as an unsigned 32-bit number tells which.
	 */
	bits = rocecc_hist_fls64(v) - sub_bits - 1;
	shift = bits & ((bits >> 31) - 1);
	return (shift << sub_bits) + (__u32)(v >> shift);
}

/* Internal: log2 of the width of regular bucket @i */
static inline __u32 rocecc_hist_shift(__u32 i, __u32 sub_bits)
{
	return i < (2u << sub_bits) ? 0 : (i >> sub_bits) - 1;
}

/* The smallest value in bucket @i */
static inline __u64 rocecc_hist_lower(__u32 i, __u32 sub_bits,
				      __u32 range_bits)
{
	__u32 shift;

	if (i >= rocecc_hist_overflow(sub_bits, range_bits))
		return 1ULL << range_bits;
	shift = rocecc_hist_shift(i, sub_bits);
	return (__u64)(i - (shift << sub_bits)) << shift;
}

/* The largest value in bucket @i (inclusive) */
static inline __u64 rocecc_hist_upper(__u32 i, __u32 sub_bits,
				      __u32 range_bits)
{
	if (i >= rocecc_hist_overflow(sub_bits, range_bits))
		return ~0ULL;
	return rocecc_hist_lower(i, sub_bits, range_bits) +
	       (1ULL << rocecc_hist_shift(i, sub_bits)) - 1;
}

/*
 * The value reported for bucket @i: its midpoint (see "Error bound"), or
 * 2^range_bits for the overflow bucket.
 */
static inline __u64 rocecc_hist_value(__u32 i, __u32 sub_bits,
				      __u32 range_bits)
{
	if (i >= rocecc_hist_overflow(sub_bits, range_bits))
		return 1ULL << range_bits;
	return rocecc_hist_lower(i, sub_bits, range_bits) +
	       ((1ULL << rocecc_hist_shift(i, sub_bits)) >> 1);
}

/*
 * The 1-based nearest rank of percentile @ppm among @n samples:
 * ceil(n * ppm / 10^6), at least 1; 0 when n is 0. No overflow for any n.
 */
static inline __u64 rocecc_hist_rank(__u64 n, __u32 ppm)
{
	__u64 q, r, rank;

	if (!n)
		return 0;
	if (ppm > ROCECC_HIST_PPM)
		ppm = ROCECC_HIST_PPM;
	q = rocecc_div_u64(n, ROCECC_HIST_PPM);
	r = n - q * ROCECC_HIST_PPM;		/* < 10^6, r * ppm < 10^12 */
	rank = q * ppm + rocecc_div_u64(r * ppm + ROCECC_HIST_PPM - 1,
					ROCECC_HIST_PPM);
	return rank ? rank : 1;
}

/*
 * The bucket that holds the sample of nearest rank @ppm among @counts[0..
 * @nbuckets), or @nbuckets if there are no samples.
 */
static inline __u32 rocecc_hist_percentile_bucket(const __u64 *counts,
						  __u32 nbuckets, __u32 ppm)
{
	__u64 n = 0, seen = 0, rank;
	__u32 i;

	for (i = 0; i < nbuckets; i++)
		n += counts[i];
	rank = rocecc_hist_rank(n, ppm);
	for (i = 0; rank && i < nbuckets; i++) {
		seen += counts[i];
		if (seen >= rank)
			return i;
	}
	return nbuckets;
}

/*
 * Percentile @ppm of the samples counted in @counts (a histogram of the
 * given layout, rocecc_hist_overflow() + 1 long) into *@value. False, and
 * *@value untouched, if there are no samples.
 */
static inline bool rocecc_hist_percentile(const __u64 *counts,
					  __u32 sub_bits, __u32 range_bits,
					  __u32 ppm, __u64 *value)
{
	__u32 n = rocecc_hist_overflow(sub_bits, range_bits) + 1;
	__u32 i = rocecc_hist_percentile_bucket(counts, n, ppm);

	if (i >= n)
		return false;
	*value = rocecc_hist_value(i, sub_bits, range_bits);
	return true;
}

#endif /* _ROCECC_HIST_H */
