// SPDX-License-Identifier: GPL-2.0
/*
 * Straggler detection: windowed MCT histograms and the group medians. See
 * straggler.h for what is computed; this is how.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/format.h"
#include "straggler.h"

#define HIST_SIZE	(FLOWMON_HIST_BUCKETS * sizeof(__u64))

/* Is some bucket of @cur below the same bucket of @base? */
static bool strag_hist_decreased(const __u64 *base, const __u64 *cur)
{
	unsigned int i;

	for (i = 0; i < FLOWMON_HIST_BUCKETS; i++)
		if (cur[i] < base[i])
			return true;
	return false;
}

uint64_t strag_win_delta(struct strag_win *w, const __u64 *cur,
			 uint64_t now_ms, uint64_t window_ms, __u64 *delta)
{
	uint64_t count = 0, age;
	unsigned int i, newest;

	/*
	 * Every baseline is >= the one before it bucket by bucket (it was
	 * taken only after that check), so the newest is the one to test.
	 */
	if (w->n > 2 || (w->n && strag_hist_decreased(w->base[w->n - 1], cur)))
		w->n = 0;
	if (!w->n) {
		memcpy(w->base[0], cur, HIST_SIZE);
		w->t_ms[0] = now_ms;
		w->n = 1;
		if (delta != cur)
			memcpy(delta, cur, HIST_SIZE);
		return rd_hist_count(cur);
	}

	newest = w->n - 1;
	age = now_ms > w->t_ms[newest] ? now_ms - w->t_ms[newest] : 0;
	if (age >= window_ms / 2) {
		if (w->n == 2) {
			memcpy(w->base[0], w->base[1], HIST_SIZE);
			w->t_ms[0] = w->t_ms[1];
		}
		memcpy(w->base[1], cur, HIST_SIZE);
		w->t_ms[1] = now_ms;
		w->n = 2;
	}

	for (i = 0; i < FLOWMON_HIST_BUCKETS; i++) {
		delta[i] = cur[i] - w->base[0][i];
		count += delta[i];
	}
	return count;
}

/* One membership of an eligible flow in a group */
struct strag_memb {
	uint64_t group;
	uint64_t p99;
	size_t idx;
};

static int strag_memb_cmp(const void *pa, const void *pb)
{
	const struct strag_memb *a = pa, *b = pb;

	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	if (a->p99 != b->p99)
		return a->p99 < b->p99 ? -1 : 1;
	if (a->idx != b->idx)
		return a->idx < b->idx ? -1 : 1;
	return 0;
}

/* The median of the sorted @cnt > 0 values at @m[].p99, rounded down */
static uint64_t strag_median(const struct strag_memb *m, size_t cnt)
{
	uint64_t lo, hi;

	if (cnt & 1)
		return m[cnt / 2].p99;
	lo = m[cnt / 2 - 1].p99;
	hi = m[cnt / 2].p99;
	return lo / 2 + hi / 2 + (lo & hi & 1);	/* (lo + hi) / 2 without overflow */
}

/*
 * Flow @it is evaluated in @group (median @med of @cnt eligible flows):
 * keep it as the flow's reported group if it is better than what the flow
 * has. Order: meeting the threshold first, then the larger ratio, then the
 * smaller group key.
 */
static void strag_consider(struct strag_item *it, uint64_t group,
			   uint64_t med, size_t cnt, const struct strag_conf *c)
{
	double clear = 1.0 + (c->factor - 1.0) * STRAG_CLEAR_FRACTION;
	double thr = it->was_straggler ? clear : c->factor;
	double ratio = (double)it->p99_ns / (double)med;
	bool hit = (double)it->p99_ns > thr * (double)med;

	if (it->group_flows) {
		if (hit != it->straggler) {
			if (!hit)
				return;
		} else if (ratio < it->ratio ||
			   (ratio == it->ratio && group >= it->group)) {
			return;
		}
	}
	it->straggler = hit;
	it->group = group;
	it->median_ns = med;
	it->group_flows = cnt;
	it->ratio = ratio;
}

static bool strag_eligible(const struct strag_item *it,
			   const struct strag_conf *c)
{
	return it->samples && it->samples >= c->min_samples;
}

int strag_eval(struct strag_item *it, size_t n, const struct strag_conf *c)
{
	unsigned int min_flows = c->min_flows ? c->min_flows : 1;
	struct strag_memb *m;
	size_t i, j, k, nm = 0;
	int stragglers = 0;

	if (!(c->factor > 1.0))		/* also NaN */
		return -EINVAL;

	for (i = 0; i < n; i++) {
		it[i].straggler = false;
		it[i].group = 0;
		it[i].median_ns = 0;
		it[i].group_flows = 0;
		it[i].ratio = 0;
		if (!strag_eligible(&it[i], c))
			continue;
		if (nm + it[i].ngroups < nm)
			return -ENOMEM;
		nm += it[i].ngroups;
	}
	if (!nm)
		return 0;

	m = calloc(nm, sizeof(*m));
	if (!m)
		return -ENOMEM;
	for (i = 0, k = 0; i < n; i++) {
		if (!strag_eligible(&it[i], c))
			continue;
		for (j = 0; j < it[i].ngroups; j++) {
			m[k].group = it[i].groups[j];
			m[k].p99 = it[i].p99_ns;
			m[k].idx = i;
			k++;
		}
	}
	qsort(m, nm, sizeof(*m), strag_memb_cmp);

	/* a group listed twice by one flow: the copies are adjacent */
	for (i = 0, k = 0; i < nm; i++) {
		if (k && m[k - 1].group == m[i].group && m[k - 1].idx == m[i].idx)
			continue;
		m[k++] = m[i];
	}
	nm = k;

	for (i = 0; i < nm; i = j) {
		uint64_t med;

		for (j = i + 1; j < nm && m[j].group == m[i].group; j++)
			;
		if (j - i < min_flows)
			continue;
		med = strag_median(&m[i], j - i);
		if (!med)
			continue;
		for (k = i; k < j; k++)
			strag_consider(&it[m[k].idx], m[i].group, med, j - i, c);
	}
	free(m);

	for (i = 0; i < n; i++)
		stragglers += it[i].straggler;
	return stragglers;
}
