// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the PFC buffer tuner (daemon/policy/pfctune.c), with sizes
 * worked out by hand in the comments.
 *
 * The setup: headroom 40960 B, MTU 4096, cell 128, so the floor is
 * 40960 + 2 * 4096 = 49152 B (384 cells); max_size 262144 B; grow by 25%,
 * shrink by 10%, at most 32768 B per change; 3 intervals of pressure to
 * grow, 5 quiet ones to shrink; at most one change a second; pause
 * pressure from 100 requests/s, ECN low below 50 (CE + CNP sent)/s;
 * target p99.9 100 us; intervals of 100 ms, so a count of N per interval
 * is 10 N per second.
 */
#include <errno.h>
#include <string.h>

#include "policy/pfctune.h"
#include "tap.h"

#define MS	1000000ULL

static struct pfctune_state st;
static struct pfctune_conf conf;
static struct pfctune_in in;
static struct pfctune_decision d;
static uint64_t t_ms;

static void setup(void)
{
	memset(&st, 0, sizeof(st));
	memset(&conf, 0, sizeof(conf));
	conf.max_size = 262144;
	conf.mtu = 4096;
	conf.cell = 128;
	conf.up_pct = 25;
	conf.down_pct = 10;
	conf.max_step = 32768;
	conf.hold_up = 3;
	conf.hold_down = 5;
	conf.min_change_ns = 1000 * MS;
	conf.pause_hi_pps = 100;
	conf.ecn_lo_pps = 50;
	conf.target_latency_ns = 100000;
	memset(&in, 0, sizeof(in));
	in.interval_ns = 100 * MS;
	in.headroom = 40960;
	in.size = 65536;
	t_ms = 0;
}

/* Pause pressure with little ECN: 200 requests/s, 30 CE+CNP/s */
static void pressure(void)
{
	in.requests = 20;
	in.indications = 0;
	in.ce_marks = 2;
	in.cnp_sent = 1;
	in.cnp_recv = 7;
	in.tail_ns = 80000;
}

/* No PFC frames at all, tail 150 us above the 100 us target */
static void quiet_slow(void)
{
	in.requests = 0;
	in.indications = 0;
	in.ce_marks = 0;
	in.cnp_sent = 0;
	in.cnp_recv = 0;
	in.tail_ns = 150000;
}

/* The next interval; returns pfctune_step()'s result */
static int step(void)
{
	t_ms += 100;
	in.now_ns = t_ms * MS;
	return pfctune_step(&st, &conf, &in, &d);
}

/* The caller applies a change */
static void apply(void)
{
	if (d.changed)
		in.size = d.new_size;
}

static int reason_is(const char *want, const char *what)
{
	return tap_is_str(d.reason, want, "%s", what);
}

static int decision(uint32_t size, bool changed, enum pfctune_why why,
		    const char *what)
{
	int ok = d.new_size == size && d.changed == changed && d.why == why &&
		 !d.proposal;

	if (!tap_ok(ok, "%s", what))
		tap_diag("got %u changed %d %s proposal %d, want %u changed %d %s",
			 d.new_size, d.changed, pfctune_why_name(d.why),
			 d.proposal, size, changed, pfctune_why_name(why));
	return ok;
}

#define GROW_WHY(n) n " intervals of pause pressure (200 PFC requests/s >= 100/s) with little ECN (30 CE+CNP/s < 50/s): our buffer fills before ECN acts, raise xoff"

/*
 * 65536 under pressure: holds at 100 and 200 ms, grows at 300 by 25%
 * (16384) to 81920. Pressure goes on: the streak restarts, reaches 3 at
 * 600 but the last change was at 300: rate-limited (700 ms more) until
 * 1300, where it grows by 20480 to 102400. Rate-limited at 600 .. 1200:
 * 7 times.
 */
static void test_grow(void)
{
	setup();
	pressure();
	step();
	decision(65536, false, PFCTUNE_HOLD, "grow: hold after 1 interval");
	reason_is("hold 65536 B: pause pressure with little ECN for 1 of 3 intervals",
		  "grow: hold reason");
	step();
	decision(65536, false, PFCTUNE_HOLD, "grow: hold after 2 intervals");
	step();
	decision(81920, true, PFCTUNE_GROW, "grow: 65536 -> 81920 after 3");
	reason_is("grow 65536 -> 81920 B: " GROW_WHY("3"), "grow: reason");
	tap_eq(d.floor, 49152, "grow: floor 40960 + 2 * 4096");
	tap_eq(d.ceil, 262144, "grow: ceiling max_size");
	apply();

	step();
	step();
	step();
	decision(81920, false, PFCTUNE_RATELIMIT, "grow: due at 600 but rate-limited");
	reason_is("hold 81920 B: would grow to 102400 B but rate-limited for 700 ms more (min_interval 1000 ms): " GROW_WHY("3"),
		  "grow: rate limit reason");
	while (t_ms < 1200) {
		step();
		if (d.why != PFCTUNE_RATELIMIT)
			break;
	}
	tap_eq(t_ms, 1200, "grow: rate-limited through 1200");
	step();
	decision(102400, true, PFCTUNE_GROW, "grow: 81920 -> 102400 at 1300");
	reason_is("grow 81920 -> 102400 B: " GROW_WHY("10"),
		  "grow: reason after the rate limit");
	tap_eq(st.grows, 2, "grow: grows 2");
	tap_eq(st.ratelimited, 7, "grow: ratelimited 7");

	/* bounded step: 25% of 196608 is 49152 > 32768 */
	setup();
	pressure();
	in.size = 196608;
	step();
	step();
	step();
	decision(229376, true, PFCTUNE_GROW, "grow: step bounded to 32768");

	/* ceiling: 245760 + 32768 = 278528 > 262144 */
	setup();
	pressure();
	in.size = 245760;
	step();
	step();
	step();
	decision(262144, true, PFCTUNE_GROW, "grow: clamped to max_size");
	apply();
	t_ms += 1000;
	step();
	step();
	step();
	decision(262144, false, PFCTUNE_AT_BOUND, "grow: at max, no change");
	reason_is("hold 262144 B: would grow but at the ceiling (262144 B): " GROW_WHY("3"),
		  "grow: at-max reason");
}

/* Pauses with ECN active (100 CE+CNP/s >= 50): fabric congestion, hold */
static void test_ecn_active(void)
{
	int i, changes = 0;

	setup();
	pressure();
	in.ce_marks = 10;	/* + 0 CNPs sent: 10 per 100 ms = 100/s */
	in.cnp_sent = 0;
	for (i = 0; i < 20; i++) {
		step();
		changes += d.changed;
	}
	tap_eq(changes, 0, "ecn: 20 intervals of pauses with ECN: no change");
	reason_is("hold 65536 B: pause pressure (200 PFC requests/s) with ECN active (100 CE+CNP/s >= 50/s): fabric congestion, DCQCN is acting",
		  "ecn: reason");

	/* 9 requests per 100 ms = 90/s < 100/s: no pressure */
	setup();
	pressure();
	in.requests = 9;
	for (i = 0; i < 20; i++) {
		step();
		changes += d.changed;
	}
	tap_eq(changes, 0, "ecn: 90 requests/s is below pause_hi");
}

/*
 * No pauses and a slow tail: shrink at the 5th interval by 10% of 65536
 * (6553) to 58983, rounded down to cells: 58880. From 50176: 5017 off
 * is 45159, 45056 in cells, below the floor: 49152. At the floor: hold.
 */
static void test_shrink(void)
{
	int i;

	setup();
	quiet_slow();
	for (i = 0; i < 4; i++)
		step();
	decision(65536, false, PFCTUNE_HOLD, "shrink: hold for 4 intervals");
	reason_is("hold 65536 B: no PFC frames and tail above target for 4 of 5 intervals",
		  "shrink: hold reason");
	step();
	decision(58880, true, PFCTUNE_SHRINK, "shrink: 65536 -> 58880 at 5");
	reason_is("shrink 65536 -> 58880 B: 5 intervals without PFC frames and p99.9 150000 ns > target 100000 ns: lower xoff to bound the standing queue",
		  "shrink: reason");
	tap_eq(st.shrinks, 1, "shrink: shrinks 1");

	setup();
	quiet_slow();
	in.size = 50176;
	for (i = 0; i < 5; i++)
		step();
	decision(49152, true, PFCTUNE_SHRINK, "shrink: never below the floor");
	apply();
	t_ms += 1000;
	for (i = 0; i < 5; i++)
		step();
	decision(49152, false, PFCTUNE_AT_BOUND, "shrink: at the floor, hold");
	tap_ok(strstr(d.reason, "hold 49152 B: would shrink but at the floor (49152 B)") == d.reason,
	       "shrink: at-floor reason");

	/* PFC frames received hold a shrink and reset its streak */
	setup();
	quiet_slow();
	for (i = 0; i < 4; i++)
		step();
	in.indications = 3;
	step();
	decision(65536, false, PFCTUNE_HOLD, "shrink: indications hold it");
	reason_is("hold 65536 B: p99.9 150000 ns above target but PFC frames seen (0 requests/s, 30 indications/s)",
		  "shrink: indications reason");
	in.indications = 0;
	for (i = 0; i < 4; i++)
		step();
	tap_eq(d.why, PFCTUNE_HOLD, "shrink: streak restarted: 4 more hold");
	step();
	decision(58880, true, PFCTUNE_SHRINK, "shrink: 5 quiet again: shrink");

	/* tail exactly at target: nothing to do */
	setup();
	quiet_slow();
	in.tail_ns = 100000;
	for (i = 0; i < 10; i++)
		step();
	decision(65536, false, PFCTUNE_HOLD, "shrink: tail at target: hold");
	reason_is("hold 65536 B: no pause pressure, tail within target",
		  "shrink: within target reason");

	/* target 0: never shrink */
	setup();
	quiet_slow();
	conf.target_latency_ns = 0;
	for (i = 0; i < 10; i++)
		step();
	tap_eq(d.why, PFCTUNE_HOLD, "shrink: target 0 disables shrinking");
}

/* Out-of-bound sizes are corrected at once, past hysteresis and limit */
static void test_bounds(void)
{
	setup();
	quiet_slow();
	in.tail_ns = 0;
	in.size = 45056;
	step();
	decision(49152, true, PFCTUNE_FLOOR, "bounds: 45056 raised to the floor at once");
	reason_is("raise 45056 -> 49152 B: size below the floor 49152 B (headroom 40960, MTU 4096, min_size 0, max_size 262144)",
		  "bounds: floor reason");

	/* the headroom grows right after a change: 90000 + 8192 = 98192,
	 * 98304 in cells, applied although the last change was 100 ms ago */
	apply();
	in.headroom = 90000;
	step();
	decision(98304, true, PFCTUNE_FLOOR, "bounds: new headroom, raised despite the rate limit");
	tap_eq(st.corrections, 2, "bounds: corrections 2");

	setup();
	conf.min_size = 65536;
	in.size = 60000;
	step();
	decision(65536, true, PFCTUNE_FLOOR, "bounds: min_size above headroom + 2 MTU");

	setup();
	in.size = 300000;
	step();
	decision(262144, true, PFCTUNE_CEIL, "bounds: above max_size lowered");
	reason_is("lower 300000 -> 262144 B: size above the ceiling 262144 B (headroom 40960, MTU 4096, min_size 0, max_size 262144)",
		  "bounds: ceiling reason");

	/* 260000 + 8192 = 268192, 268288 in cells > 262144 */
	setup();
	in.headroom = 260000;
	tap_eq(step(), (unsigned long long)-ERANGE, "bounds: floor above max is -ERANGE");
	reason_is("floor 268288 B (headroom 260000 + 2 x MTU 4096, min_size 0) above max_size 262144 B: not tuning",
		  "bounds: -ERANGE reason");
	tap_ok(d.new_size == 65536 && !d.changed, "bounds: -ERANGE leaves the size");

	setup();
	in.interval_ns = 0;
	tap_eq(step(), (unsigned long long)-EINVAL, "bounds: interval 0 is -EINVAL");
	setup();
	conf.hold_up = 0;
	tap_eq(step(), (unsigned long long)-EINVAL, "bounds: hold_up 0 is -EINVAL");
}

/* Alternating inputs never build a streak */
static void test_hysteresis(void)
{
	int i, changes = 0;

	setup();
	conf.hold_up = 2;
	conf.hold_down = 2;
	conf.min_change_ns = 0;
	for (i = 0; i < 40; i++) {
		if (i % 2)
			pressure();
		else
			quiet_slow();
		step();
		apply();
		changes += d.changed;
	}
	tap_eq(changes, 0, "hysteresis: grow/shrink alternating 40 times: no change");
	tap_eq(in.size, 65536, "hysteresis: size unchanged");

	setup();
	for (i = 0; i < 40; i++) {
		if (i % 2)
			pressure();
		else
			in.requests = 0;	/* no pressure, tail fine */
		step();
		apply();
		changes += d.changed;
	}
	tap_eq(changes, 0, "hysteresis: pressure every other interval: no change");

	/* with hold 1 and no rate limit the same input does move: the
	 * hysteresis, not the input, held it */
	setup();
	conf.hold_up = 1;
	conf.hold_down = 1;
	conf.min_change_ns = 0;
	pressure();
	step();
	decision(81920, true, PFCTUNE_GROW, "hysteresis: hold 1 grows at once");
	apply();
	quiet_slow();
	step();
	decision(73728, true, PFCTUNE_SHRINK, "hysteresis: and shrinks at once (81920 - 8192)");
}

/*
 * Dry run: the grow scenario again; the proposals are the same, nothing
 * is marked changed, and as nothing is applied the proposal at 1300 is
 * again from 65536.
 */
static void test_dry_run(void)
{
	setup();
	conf.dry_run = true;
	pressure();
	step();
	step();
	step();
	tap_ok(d.new_size == 81920 && !d.changed && d.proposal &&
	       d.why == PFCTUNE_GROW, "dry-run: proposes 81920, not changed");
	reason_is("dry-run: would grow 65536 -> 81920 B: " GROW_WHY("3"),
		  "dry-run: reason");
	apply();
	tap_eq(in.size, 65536, "dry-run: the caller applies nothing");
	step();
	step();
	step();
	tap_eq(d.why, PFCTUNE_RATELIMIT, "dry-run: rate limit as in live mode");
	while (t_ms < 1200)
		step();
	step();
	tap_ok(d.new_size == 81920 && !d.changed && d.proposal,
	       "dry-run: same proposal at 1300");
	tap_eq(st.grows, 2, "dry-run: proposals counted");

	setup();
	conf.dry_run = true;
	in.size = 45056;
	step();
	tap_ok(d.new_size == 49152 && !d.changed && d.proposal &&
	       d.why == PFCTUNE_FLOOR, "dry-run: floor proposed only");
	reason_is("dry-run: would raise 45056 -> 49152 B: size below the floor 49152 B (headroom 40960, MTU 4096, min_size 0, max_size 262144)",
		  "dry-run: floor reason");
	tap_ok(!strcmp(pfctune_why_name(PFCTUNE_RATELIMIT), "ratelimit") &&
	       !strcmp(pfctune_why_name(PFCTUNE_AT_BOUND), "at_bound"),
	       "names");
}

int main(void)
{
	test_grow();
	test_ecn_active();
	test_shrink();
	test_bounds();
	test_hysteresis();
	test_dry_run();
	return tap_done();
}
