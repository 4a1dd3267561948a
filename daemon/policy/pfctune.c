// SPDX-License-Identifier: GPL-2.0
/*
 * Closed-loop PFC buffer tuner. See pfctune.h for the policy and its
 * reasoning; this is the arithmetic.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pfctune.h"

#define NSEC_PER_SEC	1000000000ULL

const char *pfctune_why_name(enum pfctune_why w)
{
	switch (w) {
	case PFCTUNE_HOLD:	return "hold";
	case PFCTUNE_GROW:	return "grow";
	case PFCTUNE_SHRINK:	return "shrink";
	case PFCTUNE_FLOOR:	return "floor";
	case PFCTUNE_CEIL:	return "ceil";
	case PFCTUNE_RATELIMIT:	return "ratelimit";
	case PFCTUNE_AT_BOUND:	return "at_bound";
	}
	return "?";
}

/* delta per second over @dt_ns, saturating */
static uint64_t per_sec(uint64_t delta, uint64_t dt_ns)
{
	if (delta > UINT64_MAX / NSEC_PER_SEC)
		return UINT64_MAX;
	return delta * NSEC_PER_SEC / dt_ns;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t round_up(uint64_t x, uint64_t cell)
{
	return (x + cell - 1) / cell * cell;
}

static uint64_t round_down(uint64_t x, uint64_t cell)
{
	return x / cell * cell;
}

/* The step of a change of @pct % of @size: >= one cell, <= max_step */
static uint64_t step(uint64_t size, unsigned int pct, uint64_t cell,
		     uint64_t max_step)
{
	uint64_t st = size * pct / 100;

	if (st < cell)
		st = cell;
	if (max_step && st > max_step)
		st = max_step;
	return st;
}

int pfctune_step(struct pfctune_state *s, const struct pfctune_conf *c,
		 const struct pfctune_in *in, struct pfctune_decision *d)
{
	uint64_t cell = c->cell ? c->cell : 1;
	uint64_t floor, ceil, target, req_pps, ind_pps, ecn_pps, hi, size, since;
	const char *pfx = c->dry_run ? "dry-run: would " : "";
	enum pfctune_why why;
	char why_txt[256];
	bool grow, shrink;

	if (!c->max_size || !c->up_pct || !c->down_pct || !c->hold_up ||
	    !c->hold_down || !in->interval_ns)
		return -EINVAL;

	memset(d, 0, sizeof(*d));
	size = in->size;
	d->new_size = in->size;
	floor = (uint64_t)in->headroom + 2 * (uint64_t)c->mtu;
	if (floor < c->min_size)
		floor = c->min_size;
	floor = round_up(floor, cell);
	ceil = round_down(c->max_size, cell);
	d->floor = floor > UINT32_MAX ? UINT32_MAX : (uint32_t)floor;
	d->ceil = (uint32_t)ceil;
	if (floor > ceil) {
		snprintf(d->reason, sizeof(d->reason),
			 "floor %llu B (headroom %u + 2 x MTU %u, min_size %u) above max_size %llu B: not tuning",
			 (unsigned long long)floor, in->headroom, c->mtu,
			 c->min_size, (unsigned long long)ceil);
		return -ERANGE;
	}

	req_pps = per_sec(in->requests, in->interval_ns);
	ind_pps = per_sec(in->indications, in->interval_ns);
	ecn_pps = per_sec(sat_add(in->ce_marks, in->cnp_sent), in->interval_ns);
	hi = c->pause_hi_pps ? c->pause_hi_pps : 1;

	/* safety first: out of bounds is corrected now */
	if (size < floor || size > ceil) {
		why = size < floor ? PFCTUNE_FLOOR : PFCTUNE_CEIL;
		target = size < floor ? floor : ceil;
		s->up_streak = s->down_streak = 0;
		s->corrections++;
		s->changed_once = true;
		s->last_change_ns = in->now_ns;
		snprintf(d->reason, sizeof(d->reason),
			 "%s%s %llu -> %llu B: size %s %s %llu B (headroom %u, MTU %u, min_size %u, max_size %u)",
			 pfx, why == PFCTUNE_FLOOR ? "raise" : "lower",
			 (unsigned long long)size, (unsigned long long)target,
			 why == PFCTUNE_FLOOR ? "below" : "above",
			 why == PFCTUNE_FLOOR ? "the floor" : "the ceiling",
			 (unsigned long long)target, in->headroom, c->mtu,
			 c->min_size, c->max_size);
		goto change;
	}

	grow = in->requests && req_pps >= hi && ecn_pps < c->ecn_lo_pps;
	shrink = !in->requests && !in->indications && c->target_latency_ns &&
		 in->tail_ns > c->target_latency_ns;
	s->up_streak = grow ? s->up_streak + 1 : 0;
	s->down_streak = shrink ? s->down_streak + 1 : 0;

	if (s->up_streak >= c->hold_up) {
		why = PFCTUNE_GROW;
		target = size + step(size, c->up_pct, cell, c->max_step);
		target = round_up(target, cell);
		if (target > ceil)
			target = ceil;
		snprintf(why_txt, sizeof(why_txt),
			 "%u intervals of pause pressure (%llu PFC requests/s >= %llu/s) with little ECN (%llu CE+CNP/s < %llu/s): our buffer fills before ECN acts, raise xoff",
			 s->up_streak, (unsigned long long)req_pps,
			 (unsigned long long)hi, (unsigned long long)ecn_pps,
			 (unsigned long long)c->ecn_lo_pps);
	} else if (s->down_streak >= c->hold_down) {
		why = PFCTUNE_SHRINK;
		target = size - step(size, c->down_pct, cell, c->max_step);
		if (target > size)	/* wrapped */
			target = 0;
		target = round_down(target, cell);
		if (target < floor)
			target = floor;
		snprintf(why_txt, sizeof(why_txt),
			 "%u intervals without PFC frames and p99.9 %llu ns > target %llu ns: lower xoff to bound the standing queue",
			 s->down_streak, (unsigned long long)in->tail_ns,
			 (unsigned long long)c->target_latency_ns);
	} else {
		d->why = PFCTUNE_HOLD;
		if (grow || shrink)
			snprintf(d->reason, sizeof(d->reason),
				 "hold %llu B: %s for %u of %u intervals",
				 (unsigned long long)size,
				 grow ? "pause pressure with little ECN" :
				 "no PFC frames and tail above target",
				 grow ? s->up_streak : s->down_streak,
				 grow ? c->hold_up : c->hold_down);
		else if (in->requests && req_pps >= hi)
			snprintf(d->reason, sizeof(d->reason),
				 "hold %llu B: pause pressure (%llu PFC requests/s) with ECN active (%llu CE+CNP/s >= %llu/s): fabric congestion, DCQCN is acting",
				 (unsigned long long)size,
				 (unsigned long long)req_pps,
				 (unsigned long long)ecn_pps,
				 (unsigned long long)c->ecn_lo_pps);
		else if (c->target_latency_ns && in->tail_ns > c->target_latency_ns)
			snprintf(d->reason, sizeof(d->reason),
				 "hold %llu B: p99.9 %llu ns above target but PFC frames seen (%llu requests/s, %llu indications/s)",
				 (unsigned long long)size,
				 (unsigned long long)in->tail_ns,
				 (unsigned long long)req_pps,
				 (unsigned long long)ind_pps);
		else
			snprintf(d->reason, sizeof(d->reason),
				 "hold %llu B: no pause pressure, tail within target",
				 (unsigned long long)size);
		return 0;
	}

	if (target == size) {
		d->why = PFCTUNE_AT_BOUND;
		snprintf(d->reason, sizeof(d->reason),
			 "hold %llu B: would %s but at the %s (%llu B): %s",
			 (unsigned long long)size,
			 why == PFCTUNE_GROW ? "grow" : "shrink",
			 why == PFCTUNE_GROW ? "ceiling" : "floor",
			 (unsigned long long)size, why_txt);
		return 0;
	}
	/* a clock going backwards counts as no time elapsed */
	since = in->now_ns > s->last_change_ns ? in->now_ns - s->last_change_ns : 0;
	if (s->changed_once && since < c->min_change_ns) {
		uint64_t wait = c->min_change_ns - since;

		d->why = PFCTUNE_RATELIMIT;
		s->ratelimited++;
		snprintf(d->reason, sizeof(d->reason),
			 "hold %llu B: would %s to %llu B but rate-limited for %llu ms more (min_interval %llu ms): %s",
			 (unsigned long long)size,
			 why == PFCTUNE_GROW ? "grow" : "shrink",
			 (unsigned long long)target,
			 (unsigned long long)((wait + 999999) / 1000000),
			 (unsigned long long)(c->min_change_ns / 1000000),
			 why_txt);
		return 0;
	}
	s->up_streak = s->down_streak = 0;
	s->changed_once = true;
	s->last_change_ns = in->now_ns;
	if (why == PFCTUNE_GROW)
		s->grows++;
	else
		s->shrinks++;
	snprintf(d->reason, sizeof(d->reason), "%s%s %llu -> %llu B: %s",
		 pfx, why == PFCTUNE_GROW ? "grow" : "shrink",
		 (unsigned long long)size, (unsigned long long)target, why_txt);

change:
	d->why = why;
	d->new_size = (uint32_t)target;
	d->changed = !c->dry_run;
	d->proposal = c->dry_run;
	return 0;
}
