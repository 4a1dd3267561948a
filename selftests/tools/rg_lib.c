// SPDX-License-Identifier: GPL-2.0
/*
 * rocegen's pure logic: option parsing, log-linear histogram, the window's
 * split, token bucket.
 * See rg_lib.h for the contracts; selftests/unit/tools/test_rg_*.c for
 * the checks.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "rg_lib.h"

/* ---------------------------------------------------------------- parsing */

/* Parse leading decimal digits; -1 if none or overflow. */
static int parse_digits(const char **sp, uint64_t *out, unsigned int *ndigits)
{
	const char *s = *sp;
	uint64_t v = 0;
	unsigned int n = 0;

	while (*s >= '0' && *s <= '9') {
		unsigned int d = (unsigned int)(*s - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
		s++;
		n++;
	}
	if (ndigits)
		*ndigits = n;
	if (!n)
		return -1;
	*sp = s;
	*out = v;
	return 0;
}

static int mul_ovf(uint64_t a, uint64_t b, uint64_t *out)
{
	return __builtin_mul_overflow(a, b, out) ? -1 : 0;
}

int rg_parse_size(const char *s, uint64_t *out)
{
	uint64_t v, mult = 1;

	if (!s || parse_digits(&s, &v, NULL))
		return -1;
	switch (tolower((unsigned char)*s)) {
	case 'k':
		mult = 1ull << 10;
		s++;
		break;
	case 'm':
		mult = 1ull << 20;
		s++;
		break;
	case 'g':
		mult = 1ull << 30;
		s++;
		break;
	}
	if (mult > 1 && (*s == 'i' || *s == 'I'))
		s++;
	if (*s == 'b' || *s == 'B')
		s++;
	if (*s)
		return -1;
	return mul_ovf(v, mult, out);
}

/* value = ip.fp (fdigits fraction digits) times unit, fraction truncated */
static int scale_decimal(uint64_t ip, uint64_t fp, unsigned int fdigits,
			 uint64_t unit, uint64_t *out)
{
	unsigned __int128 f = (unsigned __int128)fp * unit;
	uint64_t v;
	unsigned int i;

	if (mul_ovf(ip, unit, &v))
		return -1;
	for (i = 0; i < fdigits; i++)
		f /= 10;
	if (f > UINT64_MAX || __builtin_add_overflow(v, (uint64_t)f, &v))
		return -1;
	*out = v;
	return 0;
}

/* "D" or "D.F" with 1..9 fraction digits; leaves *sp after the number */
static int parse_decimal(const char **sp, uint64_t *ip, uint64_t *fp,
			 unsigned int *fdigits)
{
	const char *s = *sp;

	*fp = 0;
	*fdigits = 0;
	if (parse_digits(&s, ip, NULL))
		return -1;
	if (*s == '.') {
		s++;
		if (parse_digits(&s, fp, fdigits) || *fdigits > 9)
			return -1;
	}
	*sp = s;
	return 0;
}

int rg_parse_rate(const char *s, uint64_t *bps)
{
	uint64_t ip, fp, unit = 1000000;
	unsigned int fdigits;

	if (!s || parse_decimal(&s, &ip, &fp, &fdigits))
		return -1;
	switch (*s) {
	case 'k':
	case 'K':
		unit = 1000;
		s++;
		break;
	case 'm':
	case 'M':
		unit = 1000000;
		s++;
		break;
	case 'g':
	case 'G':
		unit = 1000000000;
		s++;
		break;
	}
	if (!strcmp(s, "bit"))
		s += 3;
	if (*s)
		return -1;
	return scale_decimal(ip, fp, fdigits, unit, bps);
}

int rg_parse_seconds(const char *s, uint64_t *ns)
{
	uint64_t ip, fp, unit = 1000000000;
	unsigned int fdigits;

	if (!s || parse_decimal(&s, &ip, &fp, &fdigits))
		return -1;
	if (!strcmp(s, "ms")) {
		unit = 1000000;
		s += 2;
	} else if (!strcmp(s, "us")) {
		unit = 1000;
		s += 2;
	} else if (*s == 's') {
		s++;
	}
	if (*s)
		return -1;
	return scale_decimal(ip, fp, fdigits, unit, ns);
}

int rg_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v;

	if (!s || parse_digits(&s, &v, NULL) || *s)
		return -1;
	if (v < min || v > max)
		return -2;
	*out = v;
	return 0;
}

/* -------------------------------------------------------------- histogram */

void rg_hist_init(struct rg_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void rg_hist_add(struct rg_hist *h, uint64_t v)
{
	h->bucket[rocecc_hist_index(v, RG_HIST_SUB_BITS, RG_HIST_RANGE_BITS)]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void rg_hist_merge(struct rg_hist *dst, const struct rg_hist *src)
{
	unsigned int i;

	for (i = 0; i < RG_HIST_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t rg_hist_percentile(const struct rg_hist *h, uint32_t ppm)
{
	uint64_t lo, hi, mid;
	unsigned int i;

	if (!h->count)
		return 0;
	if (rocecc_hist_rank(h->count, ppm) >= h->count)
		return h->max;
	i = rocecc_hist_percentile_bucket(h->bucket, RG_HIST_BUCKETS, ppm);
	if (i >= RG_HIST_BUCKETS)
		return h->max;
	lo = rocecc_hist_lower(i, RG_HIST_SUB_BITS, RG_HIST_RANGE_BITS);
	hi = rocecc_hist_upper(i, RG_HIST_SUB_BITS, RG_HIST_RANGE_BITS);
	mid = lo + (hi - lo) / 2;
	if (mid < h->min)
		mid = h->min;
	if (mid > h->max)
		mid = h->max;
	return mid;
}

double rg_hist_mean(const struct rg_hist *h)
{
	if (!h->count)
		return 0.0;
	return (double)h->sum / (double)h->count;
}

/* ----------------------------------------------------------------- window */

/* Milliseconds (up to 9 fraction digits) as ns; leaves *sp after them. */
static int parse_ms(const char **sp, uint64_t *ns)
{
	uint64_t ip, fp;
	unsigned int fdigits;

	if (parse_decimal(sp, &ip, &fp, &fdigits))
		return -1;
	return scale_decimal(ip, fp, fdigits, 1000000, ns);
}

int rg_parse_window(const char *s, struct rg_window *w)
{
	struct rg_window v = { .to_ns = UINT64_MAX };

	if (!s || parse_ms(&s, &v.from_ns))
		return -1;
	if (*s == ':') {
		s++;
		if (parse_ms(&s, &v.to_ns) || v.to_ns <= v.from_ns)
			return -1;
	}
	if (*s)
		return -1;
	*w = v;
	return 0;
}

bool rg_window_holds(const struct rg_window *w, uint64_t start_ns,
		     uint64_t post_ns)
{
	uint64_t t = post_ns > start_ns ? post_ns - start_ns : 0;

	return t >= w->from_ns && t < w->to_ns;
}

int rg_window_hist_alloc(const struct rg_window *w, struct rg_hist **out)
{
	*out = NULL;
	if (!w)
		return 0;
	*out = malloc(sizeof(**out));
	if (!*out)
		return -1;
	rg_hist_init(*out);
	return 0;
}

void rg_hist_add_split(struct rg_hist *all, struct rg_hist *win,
		       const struct rg_window *w, uint64_t start_ns,
		       uint64_t post_ns, uint64_t lat_ns)
{
	rg_hist_add(all, lat_ns);
	if (w && rg_window_holds(w, start_ns, post_ns))
		rg_hist_add(win, lat_ns);
}

/* ----------------------------------------------------------- token bucket */

#define NS_PER_S 1000000000ull

static unsigned __int128 bytes_cost(uint64_t bytes)
{
	return (unsigned __int128)bytes * 8 * NS_PER_S;
}

void rg_tbf_init(struct rg_tbf *tb, uint64_t rate_bps, uint64_t burst_bytes,
		 uint64_t initial_bytes, uint64_t now_ns)
{
	tb->rate_bps = rate_bps;
	tb->cap = bytes_cost(burst_bytes);
	tb->tokens = bytes_cost(initial_bytes);
	if (tb->tokens > tb->cap)
		tb->tokens = tb->cap;
	tb->lost = 0;
	tb->last_ns = now_ns;
}

/* Refill up to the cap, which is raised to one @need if smaller. */
static void tbf_refill(struct rg_tbf *tb, uint64_t now_ns,
		       unsigned __int128 need)
{
	unsigned __int128 cap = tb->cap > need ? tb->cap : need;
	uint64_t dt;

	if (now_ns <= tb->last_ns)
		return;
	dt = now_ns - tb->last_ns;
	tb->last_ns = now_ns;
	/* dt * rate cannot overflow 128 bits; clamp to the cap after */
	tb->tokens += (unsigned __int128)dt * tb->rate_bps;
	if (tb->tokens > cap) {
		tb->lost += tb->tokens - cap;
		tb->tokens = cap;
	}
}

uint64_t rg_tbf_lost_bytes(const struct rg_tbf *tb)
{
	unsigned __int128 b = tb->lost / (8 * NS_PER_S);

	return b > UINT64_MAX ? UINT64_MAX : (uint64_t)b;
}

bool rg_tbf_take(struct rg_tbf *tb, uint64_t now_ns, uint64_t bytes)
{
	unsigned __int128 need = bytes_cost(bytes);

	if (!tb->rate_bps)
		return true;
	tbf_refill(tb, now_ns, need);
	if (tb->tokens < need)
		return false;
	tb->tokens -= need;
	return true;
}

uint64_t rg_tbf_wait_ns(struct rg_tbf *tb, uint64_t now_ns, uint64_t bytes)
{
	unsigned __int128 need = bytes_cost(bytes), missing, ns;

	if (!tb->rate_bps)
		return 0;
	tbf_refill(tb, now_ns, need);
	if (tb->tokens >= need)
		return 0;
	missing = need - tb->tokens;
	ns = (missing + tb->rate_bps - 1) / tb->rate_bps;
	return ns > UINT64_MAX ? UINT64_MAX : (uint64_t)ns;
}
