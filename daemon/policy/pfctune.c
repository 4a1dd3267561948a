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

/*
 * The sizes the tuner keeps a buffer to: headroom + 2 MTU (and min_size) up
 * to max_size, in whole cells. -ERANGE, with the reason in @d, if none.
 */
static int bounds(const struct pfctune_conf *c, const struct pfctune_in *in,
		  uint64_t cell, struct pfctune_decision *d, uint64_t *floor,
		  uint64_t *ceil)
{
	*floor = (uint64_t)in->headroom + 2 * (uint64_t)c->mtu;
	if (*floor < c->min_size)
		*floor = c->min_size;
	*floor = round_up(*floor, cell);
	*ceil = round_down(c->max_size, cell);
	d->floor = *floor > UINT32_MAX ? UINT32_MAX : (uint32_t)*floor;
	d->ceil = (uint32_t)*ceil;
	if (*floor <= *ceil)
		return 0;
	snprintf(d->reason, sizeof(d->reason),
		 "floor %llu B (headroom %u + 2 x MTU %u, min_size %u) above max_size %llu B: not tuning",
		 (unsigned long long)*floor, in->headroom, c->mtu, c->min_size,
		 (unsigned long long)*ceil);
	return -ERANGE;
}

/* One interval's pressure, per second. */
struct rates {
	uint64_t req, ind, ecn;	/* PFC requests, indications, CE + CNP */
	uint64_t hi;		/* requests/s that are pressure */
};

/* Nothing due (no streak long enough): why, into @d. */
static void hold(const struct pfctune_state *s, const struct pfctune_conf *c,
		 const struct pfctune_in *in, const struct rates *r, bool grow,
		 bool shrink, struct pfctune_decision *d)
{
	unsigned long long size = in->size;

	d->why = PFCTUNE_HOLD;
	if (grow || shrink)
		snprintf(d->reason, sizeof(d->reason),
			 "hold %llu B: %s for %u of %u intervals", size,
			 grow ? "pause pressure with little ECN" :
			 "no PFC frames and tail above target",
			 grow ? s->up_streak : s->down_streak,
			 grow ? c->hold_up : c->hold_down);
	else if (in->requests && r->req >= r->hi)
		snprintf(d->reason, sizeof(d->reason),
			 "hold %llu B: pause pressure (%llu PFC requests/s) with ECN active (%llu CE+CNP/s >= %llu/s): fabric congestion, DCQCN is acting",
			 size, (unsigned long long)r->req,
			 (unsigned long long)r->ecn,
			 (unsigned long long)c->ecn_lo_pps);
	else if (c->target_latency_ns && in->tail_ns > c->target_latency_ns)
		snprintf(d->reason, sizeof(d->reason),
			 "hold %llu B: p99.9 %llu ns above target but PFC frames seen (%llu requests/s, %llu indications/s)",
			 size, (unsigned long long)in->tail_ns,
			 (unsigned long long)r->req, (unsigned long long)r->ind);
	else
		snprintf(d->reason, sizeof(d->reason),
			 "hold %llu B: no pause pressure, tail within target",
			 size);
}

/*
 * A streak long enough: PFCTUNE_GROW or PFCTUNE_SHRINK with its @target
 * (within @floor .. @ceil) and its words in @txt; PFCTUNE_HOLD if none.
 */
static enum pfctune_why due(const struct pfctune_state *s,
			    const struct pfctune_conf *c,
			    const struct pfctune_in *in, const struct rates *r,
			    uint64_t cell, uint64_t floor, uint64_t ceil,
			    uint64_t *target, char *txt, size_t n)
{
	uint64_t size = in->size;

	if (s->up_streak >= c->hold_up) {
		*target = round_up(size + step(size, c->up_pct, cell,
					       c->max_step), cell);
		if (*target > ceil)
			*target = ceil;
		snprintf(txt, n,
			 "%u intervals of pause pressure (%llu PFC requests/s >= %llu/s) with little ECN (%llu CE+CNP/s < %llu/s): our buffer fills before ECN acts, raise xoff",
			 s->up_streak, (unsigned long long)r->req,
			 (unsigned long long)r->hi, (unsigned long long)r->ecn,
			 (unsigned long long)c->ecn_lo_pps);
		return PFCTUNE_GROW;
	}
	if (s->down_streak >= c->hold_down) {
		*target = size - step(size, c->down_pct, cell, c->max_step);
		if (*target > size)	/* wrapped */
			*target = 0;
		*target = round_down(*target, cell);
		if (*target < floor)
			*target = floor;
		snprintf(txt, n,
			 "%u intervals without PFC frames and p99.9 %llu ns > target %llu ns: lower xoff to bound the standing queue",
			 s->down_streak, (unsigned long long)in->tail_ns,
			 (unsigned long long)c->target_latency_ns);
		return PFCTUNE_SHRINK;
	}
	return PFCTUNE_HOLD;
}

/*
 * A change to @target that is due but held: at a bound already, or less
 * than min_change since the last one. True (with the reason in @d) if so.
 */
static bool held(struct pfctune_state *s, const struct pfctune_conf *c,
		 const struct pfctune_in *in, enum pfctune_why why,
		 uint64_t target, const char *txt, struct pfctune_decision *d)
{
	const char *verb = why == PFCTUNE_GROW ? "grow" : "shrink";
	unsigned long long size = in->size;
	uint64_t since, wait;

	if (target == size) {
		d->why = PFCTUNE_AT_BOUND;
		snprintf(d->reason, sizeof(d->reason),
			 "hold %llu B: would %s but at the %s (%llu B): %s",
			 size, verb, why == PFCTUNE_GROW ? "ceiling" : "floor",
			 size, txt);
		return true;
	}
	/* a clock going backwards counts as no time elapsed */
	since = in->now_ns > s->last_change_ns ? in->now_ns - s->last_change_ns : 0;
	if (!s->changed_once || since >= c->min_change_ns)
		return false;
	wait = c->min_change_ns - since;
	d->why = PFCTUNE_RATELIMIT;
	s->ratelimited++;
	snprintf(d->reason, sizeof(d->reason),
		 "hold %llu B: would %s to %llu B but rate-limited for %llu ms more (min_interval %llu ms): %s",
		 size, verb, (unsigned long long)target,
		 (unsigned long long)((wait + 999999) / 1000000),
		 (unsigned long long)(c->min_change_ns / 1000000), txt);
	return true;
}

/* A change (or a dry run's proposal) of the buffer to @target. */
static void change(struct pfctune_state *s, const struct pfctune_conf *c,
		   const struct pfctune_in *in, enum pfctune_why why,
		   uint64_t target, struct pfctune_decision *d)
{
	s->up_streak = s->down_streak = 0;
	s->changed_once = true;
	s->last_change_ns = in->now_ns;
	d->why = why;
	d->new_size = (uint32_t)target;
	d->changed = !c->dry_run;
	d->proposal = c->dry_run;
}

int pfctune_step(struct pfctune_state *s, const struct pfctune_conf *c,
		 const struct pfctune_in *in, struct pfctune_decision *d)
{
	const char *pfx = c->dry_run ? "dry-run: would " : "";
	uint64_t cell = c->cell ? c->cell : 1;
	uint64_t floor, ceil, target, size = in->size;
	enum pfctune_why why;
	struct rates r;
	char txt[256];
	bool grow, shrink;

	if (!c->max_size || !c->up_pct || !c->down_pct || !c->hold_up ||
	    !c->hold_down || !in->interval_ns)
		return -EINVAL;
	memset(d, 0, sizeof(*d));
	d->new_size = in->size;
	if (bounds(c, in, cell, d, &floor, &ceil))
		return -ERANGE;
	r.req = per_sec(in->requests, in->interval_ns);
	r.ind = per_sec(in->indications, in->interval_ns);
	r.ecn = per_sec(sat_add(in->ce_marks, in->cnp_sent), in->interval_ns);
	r.hi = c->pause_hi_pps ? c->pause_hi_pps : 1;

	/* safety first: out of bounds is corrected now */
	if (size < floor || size > ceil) {
		why = size < floor ? PFCTUNE_FLOOR : PFCTUNE_CEIL;
		target = size < floor ? floor : ceil;
		s->corrections++;
		snprintf(d->reason, sizeof(d->reason),
			 "%s%s %llu -> %llu B: size %s %s %llu B (headroom %u, MTU %u, min_size %u, max_size %u)",
			 pfx, why == PFCTUNE_FLOOR ? "raise" : "lower",
			 (unsigned long long)size, (unsigned long long)target,
			 why == PFCTUNE_FLOOR ? "below" : "above",
			 why == PFCTUNE_FLOOR ? "the floor" : "the ceiling",
			 (unsigned long long)target, in->headroom, c->mtu,
			 c->min_size, c->max_size);
		change(s, c, in, why, target, d);
		return 0;
	}
	grow = in->requests && r.req >= r.hi && r.ecn < c->ecn_lo_pps;
	shrink = !in->requests && !in->indications && c->target_latency_ns &&
		 in->tail_ns > c->target_latency_ns;
	s->up_streak = grow ? s->up_streak + 1 : 0;
	s->down_streak = shrink ? s->down_streak + 1 : 0;
	why = due(s, c, in, &r, cell, floor, ceil, &target, txt, sizeof(txt));
	if (why == PFCTUNE_HOLD) {
		hold(s, c, in, &r, grow, shrink, d);
		return 0;
	}
	if (held(s, c, in, why, target, txt, d))
		return 0;
	if (why == PFCTUNE_GROW)
		s->grows++;
	else
		s->shrinks++;
	snprintf(d->reason, sizeof(d->reason), "%s%s %llu -> %llu B: %s",
		 pfx, why == PFCTUNE_GROW ? "grow" : "shrink",
		 (unsigned long long)size, (unsigned long long)target, txt);
	change(s, c, in, why, target, d);
	return 0;
}
