/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Closed-loop PFC buffer tuner, the pure logic of roceccd (no netlink, no
 * clock): once per interval, from the priority's PFC, ECN and latency
 * counters, decide whether to move the size of the lossless priority's
 * receive buffer (DCB buffer_size[b] of its prio-buffer b), within safe
 * bounds, with hysteresis and a rate limit. Unit-tested by
 * selftests/unit/daemon/test_pfctune.c.
 *
 * The knob. The xoff threshold is size - headroom (include/rocecc/pfc.h
 * rocecc_pfc_thresholds(), daemon/policy/headroom.h): the headroom above xoff is
 * fixed by the link (what is still in flight when our XOFF goes out) and
 * must never be eaten into, so moving the size moves xoff, i.e. how much
 * the host lets queue in its receive buffer before it pauses the peer.
 *
 * The policy and why.
 *
 *  Grow: our PFC requests (XOFFs we send) at >= pause_hi_pps while ECN
 *  activity on what we receive (CE marks seen + CNPs sent, per second) is
 *  below ecn_lo_pps, for hold_up consecutive intervals. DCQCN slows a
 *  sender only through ECN: CE marked where a queue builds (the switch, or
 *  RED on the testbed's bridge), turned into CNPs by us, the notification
 *  point. If we pause the peer often while little is marked, the queue
 *  that fills is our own receive buffer and it reaches xoff before ECN
 *  gets a chance to act: xoff is too low relative to where ECN acts.
 *  Every XOFF stops the whole priority of the link (all flows, head-of-line
 *  blocking) and can spread backwards through the fabric (congestion
 *  spreading, storms), while an ECN mark slows only the flow that causes
 *  the queue; so we raise xoff by growing the buffer. Multiplicative step
 *  (size * up_pct / 100, at least one cell, at most max_step): a burst
 *  larger than the buffer is fixed in a few steps, whatever its size.
 *  Pauses that come with high ECN activity are fabric congestion that
 *  DCQCN is already answering: more buffer would only delay the pause,
 *  so that holds.
 *
 *  Shrink: no PFC request sent and none received (indications) for
 *  hold_down consecutive intervals, and the p99.9 message completion time
 *  of the flows on the priority above target_latency_ns. With no pause for
 *  that long, the buffer above the standing queue has not been needed to
 *  stay lossless, but a deep xoff lets a standing queue (bufferbloat) grow
 *  in the host before any backpressure, and that queueing delay is in
 *  every completion behind it; a lower xoff bounds it. Step down gently
 *  (size * down_pct / 100, down_pct < up_pct: quick to protect, slow to
 *  take back), never below the floor. Pause frames received hold a shrink:
 *  the fabric is already pushing back, and adding our own pauses to it is
 *  the wrong moment.
 *
 *  Floor and ceiling: floor = max(min_size, headroom + 2 * mtu), rounded up
 *  to the cell: the headroom, plus one lossless frame below xon (reserve)
 *  and one between xon and xoff (xon_gap), the layout of headroom.h, so
 *  that xoff >= 2 MTU and xon >= 1 MTU in the pfc.h shape (xon = xoff -
 *  mtu). Ceiling = max_size (the total buffer) rounded down to the cell.
 *  A current size outside [floor, ceiling] (the headroom grew with a speed
 *  or cable change, or an operator wrote it) is corrected at once,
 *  regardless of hysteresis and rate limit: safety first. floor > ceiling
 *  is a configuration error (-ERANGE).
 *
 *  Hysteresis: a condition must hold for hold_up (grow) or hold_down
 *  (shrink) consecutive intervals; any interval that does not meet it
 *  resets its streak, so alternating inputs never move the size. Rate
 *  limit: at most one change per min_change_ns (the first change is
 *  immediate; a clock going backwards counts as no time elapsed); a
 *  condition that holds while rate-limited keeps its streak and acts as
 *  soon as the limit allows. A change resets both streaks.
 *  Steps are bounded by max_step (0: unbounded) and the size is kept a
 *  multiple of the cell.
 *
 *  Dry run: the decision, the reason, the counters and the state (streaks,
 *  rate limit clock) evolve exactly as in live mode, but changed is false
 *  and proposal is true: the caller logs and exports, and does not write
 *  the buffer. As nothing is applied, the next proposal starts from the
 *  same size again, once the rate limit allows.
 *
 * Rates are per second: delta * 10^9 / interval_ns, integer, saturating.
 * Deterministic; integer math only; no allocation.
 */
#ifndef _ROCECC_PFCTUNE_H
#define _ROCECC_PFCTUNE_H

#include <stdbool.h>
#include <stdint.h>

struct pfctune_conf {
	uint32_t min_size;		/* bytes, operator floor (0: none) */
	uint32_t max_size;		/* bytes, total buffer (required) */
	uint32_t mtu;			/* lossless MTU, bytes */
	uint32_t cell;			/* granularity, bytes (0: 1) */
	unsigned int up_pct;		/* grow step, % of size (> 0) */
	unsigned int down_pct;		/* shrink step, % of size (> 0) */
	uint32_t max_step;		/* bytes per change (0: unbounded) */
	unsigned int hold_up;		/* intervals of pressure (>= 1) */
	unsigned int hold_down;		/* intervals quiet + slow (>= 1) */
	uint64_t min_change_ns;		/* rate limit */
	uint64_t pause_hi_pps;		/* requests/s that are pressure (0: 1) */
	uint64_t ecn_lo_pps;		/* CE + CNP sent /s below: ECN low */
	uint64_t target_latency_ns;	/* p99.9 target (0: never shrink) */
	bool dry_run;
};

/* One interval's inputs: counter deltas over the interval */
struct pfctune_in {
	uint64_t now_ns;		/* monotonic, end of the interval */
	uint64_t interval_ns;		/* its length (> 0) */
	uint64_t requests;		/* PFC frames we sent for the prio */
	uint64_t indications;		/* PFC frames received for it */
	uint64_t cnp_sent;		/* CNPs we sent (NP) */
	uint64_t cnp_recv;		/* CNPs received (RP): reported only */
	uint64_t ce_marks;		/* CE-marked RoCE packets received */
	uint64_t tail_ns;		/* p99.9 completion, 0: unknown */
	uint32_t size;			/* the buffer's size now, bytes */
	uint32_t headroom;		/* bytes above xoff (calculator) */
};

enum pfctune_why {
	PFCTUNE_HOLD,		/* no condition met (long enough) */
	PFCTUNE_GROW,
	PFCTUNE_SHRINK,
	PFCTUNE_FLOOR,		/* size below the floor: raised */
	PFCTUNE_CEIL,		/* size above max: lowered */
	PFCTUNE_RATELIMIT,	/* a change is due, held by the rate limit */
	PFCTUNE_AT_BOUND,	/* a change is due, the size is at the bound */
};

#define PFCTUNE_REASON_LEN	512

struct pfctune_decision {
	uint32_t new_size;	/* = size unless changed or proposal */
	bool changed;		/* write new_size to the buffer */
	bool proposal;		/* dry run: would have changed to new_size */
	enum pfctune_why why;
	uint32_t floor, ceil;	/* the bounds used */
	char reason[PFCTUNE_REASON_LEN];
};

/* Zero-initialised = fresh */
struct pfctune_state {
	unsigned int up_streak, down_streak;
	bool changed_once;
	uint64_t last_change_ns;
	/* counters, for export (dry-run proposals count too) */
	uint64_t grows, shrinks, corrections, ratelimited;
};

/* "hold", "grow", "shrink", "floor", "ceil", "ratelimit", "at_bound" */
const char *pfctune_why_name(enum pfctune_why w);

/*
 * One decision into @d. 0; -EINVAL for max_size, up_pct, down_pct,
 * hold_up, hold_down or interval_ns 0; -ERANGE if the floor is above the
 * ceiling (d->floor, d->ceil and d->reason say so, new_size = size, state
 * untouched).
 */
int pfctune_step(struct pfctune_state *s, const struct pfctune_conf *c,
		 const struct pfctune_in *in, struct pfctune_decision *d);

#endif /* _ROCECC_PFCTUNE_H */
