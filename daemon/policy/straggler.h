/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Straggler detection, the pure logic of roceccd (no BPF, no sockets):
 * "a flow whose p99 message completion time exceeds its group's median by
 * a configured factor is reported, since a training step waits for its
 * slowest message". Unit-tested by selftests/unit/daemon/test_straggler.c.
 *
 * Two steps, each round (every poll interval):
 *
 *  1. strag_win_delta(): the flow's MCT histogram of the last window, from
 *     the cumulative histogram flowmon keeps (struct flowmon_hist), so that
 *     a flow that was slow an hour ago and is fine now is not reported;
 *     its p99 is then rd_hist_percentile(delta, 990000, &ns).
 *  2. strag_eval(): all flows at once, against the medians of the groups
 *     (e.g. the rank map's parallel groups) they serve.
 */
#ifndef _ROCECC_STRAGGLER_H
#define _ROCECC_STRAGGLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "flowmon.h"

/*
 * Windowed histogram
 * ------------------
 * Per flow, up to two baselines: copies of the cumulative histogram taken
 * at times t_ms[], base[0] the older. Zero-initialised means no baseline.
 *
 * strag_win_delta(w, cur, now, W, delta), cur being the cumulative
 * histogram read at @now:
 *
 *  - no baseline (first call), or a reset: cur becomes the only baseline
 *    (t = now) and delta = cur: everything the flow has recorded, since
 *    we do not know how old it is. A new flow is seen within one poll
 *    interval of its creation, so that is about one interval of samples;
 *    when the daemon (re)starts, it is the whole life of the flows it
 *    finds, for one round;
 *  - reset: some bucket of cur is below the newest baseline (the counters
 *    only grow, so the flow was deleted and recreated under the same key,
 *    or replaced). A recreated flow that has already outgrown the baseline
 *    in every bucket cannot be told apart;
 *  - otherwise, first rotate: if the newest baseline is >= W/2 old, cur is
 *    added as the newest (t = now) and, if that makes three, the oldest is
 *    dropped. Then delta = cur - base[0], the older held baseline.
 *
 * So the delta holds exactly the samples recorded after t_ms[0] (as of the
 * reads), i.e. in the span (t_ms[0], now]:
 *
 *  - while only the first baseline is held (it is < W/2 old): since the
 *    first call, less than W/2 ms;
 *  - afterwards: (t_ms[1] - t_ms[0]) + (now - t_ms[1]), where the first
 *    term is >= W/2 and < W/2 + G, G the longest gap between calls (a
 *    baseline is taken on the first call at or after the previous one is
 *    W/2 old), the second < W/2: a span >= W/2 and < W + G. With calls
 *    every P ms and W/2 a multiple of P: W/2 .. W - P ms.
 *
 * W = 0 (or W/2 <= P): a baseline every call, the delta is the samples
 * since the previous call. A clock going backwards counts as age 0.
 * @delta may be @cur. Returns the delta's sample count (its buckets' sum).
 * A struct strag_win is 8 KiB; zero it when the flow goes away.
 */
struct strag_win {	/* per flow, zero-initialised = no baseline yet */
	__u64 base[2][FLOWMON_HIST_BUCKETS];
	uint64_t t_ms[2];
	unsigned int n;	/* baselines held, 0..2 */
};

uint64_t strag_win_delta(struct strag_win *w, const __u64 *cur,
			 uint64_t now_ms, uint64_t window_ms, __u64 *delta);

/*
 * Group evaluation
 * ----------------
 * A flow is eligible if it has samples >= max(min_samples, 1) in the
 * window (a flow without samples has no p99). A group is evaluable if it
 * has at least min_flows eligible member flows and their median p99 is
 * not 0 (no completion takes 0 ns: it would be no measurement); the median
 * is over the eligible members' p99s: the middle one for an odd count,
 * for an even count the mean of the two middle ones, rounded down. A
 * group listed twice in one flow's groups[] counts the flow once.
 *
 * The median includes the flow itself: with 2 eligible flows it is the
 * mean of both, so p99 > factor * median with factor >= 2 is impossible
 * (p99 < 2 * mean). Hence min_flows 3 by default, the smallest group in
 * which one slow flow can stand out.
 *
 * An eligible flow is a straggler if in some evaluable group of its own
 *
 *	p99 > factor * median				(strictly)
 *
 * or, if it was flagged last round (was_straggler: hysteresis, so that a
 * flow near the threshold does not flap), while
 *
 *	p99 > clear * median,  clear = 1 + (factor - 1) * 0.8
 *
 * (factor 2: flagged above 2, cleared at or below 1.8 times the median).
 * The comparisons are in double precision. Ineligible flows and flows in
 * no evaluable group are never flagged, whatever was_straggler says.
 *
 * Outputs, for every flow: straggler; and for a flow evaluated in at least
 * one group, that group's key, median, eligible member count and ratio
 * p99 / median, for the group where the flow meets its threshold with the
 * largest ratio if it is a straggler, else the group of the largest ratio
 * (ties: the smaller group key). A flow not evaluated has group 0,
 * median_ns 0, group_flows 0 and ratio 0.
 *
 * Returns the number of stragglers; -EINVAL if factor is not > 1 (or is
 * NaN), -ENOMEM on allocation failure (outputs then undefined). Time
 * O(M log M) and memory 24 M bytes, M the memberships of eligible flows.
 */
struct strag_item {
	/* in */
	uint64_t p99_ns;		/* windowed p99 message completion */
	uint64_t samples;		/* windowed samples */
	const uint64_t *groups;		/* opaque keys of the groups the flow
					 * belongs to (it may serve several) */
	size_t ngroups;
	bool was_straggler;		/* flagged last round (hysteresis) */
	/* out */
	bool straggler;
	uint64_t group;			/* see above: the worst group */
	uint64_t median_ns;		/* that group's median */
	unsigned int group_flows;	/* eligible flows in that group */
	double ratio;			/* p99 / median there, 0: not evaluated */
};

struct strag_conf {
	double factor;			/* > 1 */
	uint64_t min_samples;		/* per flow and window */
	unsigned int min_flows;		/* per group, 3 by default (above) */
};

/* clear = 1 + (factor - 1) * 0.8 */
#define STRAG_CLEAR_FRACTION	0.8

int strag_eval(struct strag_item *it, size_t n, const struct strag_conf *c);

#endif /* _ROCECC_STRAGGLER_H */
