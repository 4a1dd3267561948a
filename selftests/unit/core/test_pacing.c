// SPDX-License-Identifier: GPL-2.0
/*
 * include/rocecc/pacing.h: EDT departure times and the QP timeout budget.
 *
 * Hand-computed departures at a known rate (8 ns per byte at 1 Gb/s, 8 us
 * per byte at 1 Mb/s): the rate spacing, no credit for an idle flow, the
 * budget cap binding and not binding, the AckReq reference and its aging
 * (at, just past and well past ack_ref + budget), the max_delay cap, the
 * order kept when the budget shrinks and when pacing stops (unpaced
 * packets leave behind the held ones), the length clamp, saturation near
 * 2^64; then a random trace checked for the invariants. Asking for ACKs:
 * by hand, and a random trace whose rate is never cut short and whose
 * ACK requests stay a budget apart. The budget: hand
 * values of rxe's jiffies timer at HZ 250 and 1000, then every timeout
 * exponent 0..31 at HZ 100, 250, 300 and 1000 with shares up to 2^32 - 1
 * and both ends of max_delay against 128-bit arithmetic.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rocecc/pacing.h>

#include "tap.h"

#define US		((uint64_t)1000)
#define MS		((uint64_t)1000000)
#define SEC		((uint64_t)1000000000)
#define T0		(100 * SEC)	/* some time after boot */
#define NOLIMIT		(1000 * SEC)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* A reaction point at @kbps: only its pacing multiplier matters here. */
static struct rocecc_rp rp_at(uint32_t kbps)
{
	struct rocecc_rp rp;

	memset(&rp, 0, sizeof(rp));
	rp.rate = kbps;
	rocecc_rp_set_pace(&rp);
	return rp;
}

static struct rocecc_pace pace_new(uint64_t budget)
{
	struct rocecc_pace s = { .budget_ns = budget };

	return s;
}

static void test_spacing(void)
{
	struct rocecc_rp rp = rp_at(1000000);	/* 1 Gb/s: 8 ns per byte */
	struct rocecc_pace s = pace_new(30 * MS);
	uint64_t d;
	uint32_t fl;

	d = rocecc_pace(&s, &rp, T0, 1000, false, false, NOLIMIT, &fl);
	tap_eq(d, T0, "first packet leaves at once");
	tap_eq(fl, 0, "first packet: neither delayed nor capped");
	tap_eq(s.next_tx, T0 + 8000, "next_tx = start + 1000 B at 1 Gb/s (8 us)");

	d = rocecc_pace(&s, &rp, T0 + 1000, 500, false, false, NOLIMIT, &fl);
	tap_eq(d, T0 + 8000, "second packet waits for next_tx");
	tap_eq(fl, ROCECC_PACE_DELAYED, "second packet: delayed, not capped");
	tap_eq(s.next_tx, T0 + 12000, "next_tx advances from the departure (+4 us)");
	tap_eq(s.last_depart, T0 + 8000, "last_depart is the departure");

	/* Idle longer than the gap: no credit, it leaves at now. */
	d = rocecc_pace(&s, &rp, T0 + 50000, 1000, false, false, NOLIMIT, &fl);
	tap_eq(d, T0 + 50000, "after idle: leaves at now, no saved credit");
	tap_eq(fl, 0, "after idle: not delayed");

	/* Lengths above ROCECC_RP_PACE_LEN_MAX count as the maximum. */
	s = pace_new(30 * MS);
	rocecc_pace(&s, &rp, T0, 1000000, false, false, NOLIMIT, &fl);
	tap_eq(s.next_tx, T0 + 8ULL * ROCECC_RP_PACE_LEN_MAX,
	       "a 1 MB packet advances next_tx by 2^17 B only");
}

static void test_budget_cap(void)
{
	struct rocecc_rp rp = rp_at(1000);	/* 1 Mb/s: 8 us per byte */
	struct rocecc_pace s;
	uint64_t d;
	uint32_t fl;

	/* 1000 B are 8 ms apart; a 30 ms budget does not bind. */
	s = pace_new(30 * MS);
	d = rocecc_pace(&s, &rp, T0, 1000, true, false, NOLIMIT, &fl);
	tap_eq(s.ack_ref, T0, "an AckReq packet sets ack_ref to its departure");
	d = rocecc_pace(&s, &rp, T0, 1000, false, false, NOLIMIT, &fl);
	tap_eq(d, T0 + 8 * MS, "budget 30 ms: the rate gives +8 ms");
	tap_eq(fl, ROCECC_PACE_DELAYED, "budget 30 ms: not capped");
	tap_eq(s.ack_ref, T0, "a packet without AckReq leaves ack_ref alone");
	d = rocecc_pace(&s, &rp, T0, 1000, false, false, NOLIMIT, &fl);
	tap_eq(d, T0 + 16 * MS, "budget 30 ms: third packet at +16 ms");
	d = rocecc_pace(&s, &rp, T0, 1000, false, false, NOLIMIT, &fl);
	tap_eq(d, T0 + 24 * MS, "budget 30 ms: fourth packet at +24 ms");
	d = rocecc_pace(&s, &rp, T0, 1000, false, false, NOLIMIT, &fl);
	tap_eq(d, T0 + 30 * MS, "budget 30 ms: fifth packet capped at ack_ref + 30 ms");
	tap_eq(fl, ROCECC_PACE_DELAYED | ROCECC_PACE_CAPPED,
	       "budget binds: delayed and capped");
	tap_eq(s.next_tx, T0 + 38 * MS,
	       "capped: next_tx runs on from the capped departure");

	/* An AckReq packet moves the reference: later packets get room. */
	s = pace_new(20 * MS);
	rocecc_pace(&s, &rp, T0, 1000, true, false, NOLIMIT, &fl);
	d = rocecc_pace(&s, &rp, T0, 1000, true, false, NOLIMIT, &fl);
	tap_eq(d, T0 + 8 * MS, "AckReq at +8 ms");
	d = rocecc_pace(&s, &rp, T0, 1000, true, false, NOLIMIT, &fl);
	tap_eq(d, T0 + 16 * MS, "AckReq at +16 ms");
	d = rocecc_pace(&s, &rp, T0, 1000, false, false, NOLIMIT, &fl);
	tap_eq(d, T0 + 24 * MS,
	       "+24 ms is past the first AckReq's budget but within the last's");
	tap_eq(fl, ROCECC_PACE_DELAYED, "so it is not capped");
}

static void test_ack_ref_aging(void)
{
	struct rocecc_rp rp = rp_at(1000);
	struct rocecc_pace s;
	uint64_t d;
	uint32_t fl;

	/* ack_ref + budget == now: the old reference still holds. */
	s = pace_new(1 * MS);
	s.ack_ref = T0;
	s.next_tx = T0 + 10 * MS;
	d = rocecc_pace(&s, &rp, T0 + 1 * MS, 100, false, false, NOLIMIT, &fl);
	tap_eq(d, T0 + 1 * MS, "ack_ref + budget == now: capped at now");
	tap_eq(fl, ROCECC_PACE_CAPPED, "capped at now: not delayed");

	/* One ns later the reference is too old: now replaces it. */
	s = pace_new(1 * MS);
	s.ack_ref = T0;
	s.next_tx = T0 + 10 * MS;
	d = rocecc_pace(&s, &rp, T0 + 1 * MS + 1, 100, false, false, NOLIMIT, &fl);
	tap_eq(d, T0 + 2 * MS + 1, "ack_ref older than the budget: now + budget");
	tap_eq(fl, ROCECC_PACE_DELAYED | ROCECC_PACE_CAPPED,
	       "aged reference: delayed and capped");

	s = pace_new(1 * MS);
	s.ack_ref = T0;
	s.next_tx = T0 + 50 * MS;
	d = rocecc_pace(&s, &rp, T0 + 40 * MS, 100, false, false, NOLIMIT, &fl);
	tap_eq(d, T0 + 41 * MS, "long-aged reference: now + budget");

	/* Never seen an AckReq (ack_ref 0): the same. */
	s = pace_new(1 * MS);
	s.next_tx = T0 + 5 * MS;
	d = rocecc_pace(&s, &rp, T0, 100, false, false, NOLIMIT, &fl);
	tap_eq(d, T0 + 1 * MS, "no AckReq yet: now + budget");

	/* A zero budget: the packet leaves at once (capped at now). */
	s = pace_new(0);
	s.next_tx = T0 + 5 * MS;
	d = rocecc_pace(&s, &rp, T0, 100, false, false, NOLIMIT, &fl);
	tap_eq(d, T0, "budget 0: leaves at now");
	tap_eq(fl, ROCECC_PACE_CAPPED, "budget 0: capped, not delayed");
}

static void test_max_delay(void)
{
	struct rocecc_rp rp = rp_at(1000);
	struct rocecc_pace s = pace_new(10 * SEC);
	uint64_t d;
	uint32_t fl;

	s.next_tx = T0 + 5 * MS;
	d = rocecc_pace(&s, &rp, T0, 100, false, false, 1 * MS, &fl);
	tap_eq(d, T0 + 1 * MS, "max_delay 1 ms below a 10 s budget: now + 1 ms");
	tap_eq(fl, ROCECC_PACE_DELAYED | ROCECC_PACE_CAPPED,
	       "max_delay binds: delayed and capped");

	s = pace_new(2 * MS);
	s.ack_ref = T0;
	s.next_tx = T0 + 5 * MS;
	d = rocecc_pace(&s, &rp, T0 + 1 * MS, 100, false, false, 4 * MS, &fl);
	tap_eq(d, T0 + 2 * MS,
	       "budget (ack_ref + 2 ms) below max_delay (now + 4 ms): the budget");

	s = pace_new(2 * MS);
	s.next_tx = T0 + 5 * MS;
	d = rocecc_pace(&s, &rp, T0, 100, false, false, 0, &fl);
	tap_eq(d, T0, "max_delay 0: leaves at now");
}

static void test_order(void)
{
	struct rocecc_rp rp = rp_at(1000);
	struct rocecc_pace s = pace_new(30 * MS);
	uint64_t d, prev;
	uint32_t fl;

	rocecc_pace(&s, &rp, T0, 1000, true, false, NOLIMIT, &fl);
	rocecc_pace(&s, &rp, T0, 1000, false, false, NOLIMIT, &fl);
	prev = rocecc_pace(&s, &rp, T0, 1000, false, false, NOLIMIT, &fl);
	tap_eq(prev, T0 + 16 * MS, "queued up to +16 ms with budget 30 ms");

	/* The QP's timeout becomes known: 1 ms. */
	s.budget_ns = 1 * MS;
	d = rocecc_pace(&s, &rp, T0 + 100, 1000, false, false, NOLIMIT, &fl);
	tap_eq(d, prev, "budget shrank to 1 ms: still not before the previous packet");
	tap_eq(fl, ROCECC_PACE_DELAYED | ROCECC_PACE_CAPPED,
	       "budget shrank: counted as capped");
	d = rocecc_pace(&s, &rp, T0 + 200, 1000, false, false, NOLIMIT, &fl);
	tap_eq(d, prev, "and the next one too");
	d = rocecc_pace(&s, &rp, T0 + 17 * MS, 1000, false, false, NOLIMIT, &fl);
	tap_eq(d, T0 + 18 * MS,
	       "once past the queue, packets leave within now + budget");
}

/*
 * Pacing stops (detach, pacing off) while the flow holds packets: an
 * unpaced packet leaves with the last one held, not at now (fq would send
 * it first: a PSN gap), and at now once that has passed; the flow's state
 * is left alone, and pacing resumes behind the held packets.
 */
static void test_unpaced(void)
{
	struct rocecc_rp rp = rp_at(1000);
	struct rocecc_pace s = pace_new(30 * MS), before;
	uint64_t last, d;
	uint32_t fl;

	tap_eq(rocecc_pace_unpaced(&s, T0), T0, "unpaced: a new flow leaves at now");
	rocecc_pace(&s, &rp, T0, 1000, true, false, NOLIMIT, &fl);
	rocecc_pace(&s, &rp, T0, 1000, false, false, NOLIMIT, &fl);
	last = rocecc_pace(&s, &rp, T0, 1000, false, false, NOLIMIT, &fl);
	tap_eq(last, T0 + 16 * MS, "unpaced: held up to +16 ms");
	before = s;
	d = rocecc_pace_unpaced(&s, T0 + 1 * MS);
	tap_eq(d, last, "unpaced: leaves with the last held packet, not before it");
	tap_ok(!memcmp(&s, &before, sizeof(s)), "unpaced: the flow's state is unchanged");
	tap_eq(rocecc_pace_unpaced(&s, last), last, "unpaced: at that departure: now");
	tap_eq(rocecc_pace_unpaced(&s, last + 1), last + 1,
	       "unpaced: once it has passed: now");
	d = rocecc_pace(&s, &rp, T0 + 2 * MS, 1000, false, false, NOLIMIT, &fl);
	tap_ok(d > last, "unpaced: pacing resumes behind the held packets");
}

static void test_saturation(void)
{
	struct rocecc_rp rp = rp_at(1000);
	struct rocecc_pace s = pace_new(30 * MS);
	uint64_t now = UINT64_MAX - 100, d;
	uint32_t fl;

	s.ack_ref = now;
	d = rocecc_pace(&s, &rp, now, 1000, true, false, NOLIMIT, &fl);
	tap_eq(d, now, "near 2^64: leaves at now");
	tap_eq(s.next_tx, UINT64_MAX, "near 2^64: next_tx saturates, never wraps");
	d = rocecc_pace(&s, &rp, now + 50, 1000, false, false, NOLIMIT, &fl);
	tap_ok(d >= now + 50, "near 2^64: the next packet does not leave before now");
	tap_ok(d >= s.last_depart && s.next_tx >= d,
	       "near 2^64: departure and next_tx stay ordered");
	tap_eq(rocecc_pace_add(UINT64_MAX - 1, 1), UINT64_MAX, "add: exact to 2^64 - 1");
	tap_eq(rocecc_pace_add(UINT64_MAX - 1, 2), UINT64_MAX, "add: saturates past it");
	tap_eq(rocecc_pace_add(5, 7), 12, "add: plain sum");
}

/* The invariants over a random trace with changing budgets and rates. */
static void test_random(void)
{
	struct rocecc_pace s = pace_new(5 * MS);
	struct rocecc_rp rp = rp_at(1000);
	uint64_t now = T0, prev = 0, d, ref, limit, max_delay;
	unsigned int i, bad_order = 0, bad_now = 0, bad_cap = 0, bad_flags = 0;
	unsigned int capped = 0, delayed = 0;
	struct rocecc_pace old;
	uint32_t fl, len;
	bool ack, ask;

	srand(7);
	for (i = 0; i < 200000; i++) {
		now += (uint64_t)(rand() % 2000) * US / 100;
		if (rand() % 1000 == 0)
			s.budget_ns = (uint64_t)(rand() % 20) * MS;
		if (rand() % 500 == 0)
			rp = rp_at(1000 + rand() % 1000000);
		max_delay = rand() % 100 ? 4 * MS : 1 * MS;
		len = 64 + rand() % 4096;
		ack = rand() % 16 == 0;
		ask = rand() % 2;
		old = s;
		d = rocecc_pace(&s, &rp, now, len, ack, ask, max_delay, &fl);
		ref = old.ack_ref + old.budget_ns >= now ? old.ack_ref : now;
		limit = ref + old.budget_ns;
		if (now + max_delay < limit)
			limit = now + max_delay;
		bad_order += d < prev;
		bad_now += d < now;
		/* Later than the cap only to stay behind the previous one. */
		bad_cap += d > limit && d != old.last_depart;
		bad_flags += !!(fl & ROCECC_PACE_DELAYED) != (d > now);
		bad_flags += !!(fl & ROCECC_PACE_CAPPED) !=
			     ((old.next_tx > now ? old.next_tx : now) > limit);
		/* asked: only when allowed, and exactly when the next packet
		 * could not leave within the budget of the old reference or
		 * the QP was quiet (the reference aged: ref is now) */
		bad_flags += !!(fl & ROCECC_PACE_ACKREQ) !=
			     (!ack && ask && (old.ack_ref + old.budget_ns < now ||
					      s.next_tx > ref + old.budget_ns));
		bad_flags += (ack || (fl & ROCECC_PACE_ACKREQ)) ?
			     s.ack_ref != d : s.ack_ref != old.ack_ref;
		capped += !!(fl & ROCECC_PACE_CAPPED);
		delayed += !!(fl & ROCECC_PACE_DELAYED);
		prev = d;
	}
	tap_eq(bad_order, 0, "random: departures never go backwards");
	tap_eq(bad_now, 0, "random: never before now");
	tap_eq(bad_cap, 0, "random: never past the cap but to keep the order");
	tap_eq(bad_flags, 0, "random: DELAYED, CAPPED and ACKREQ say what happened");
	tap_ok(capped > 1000 && delayed > 1000 && delayed < i,
	       "random: the trace exercised both caps and delays (%u capped, %u delayed of %u)",
	       capped, delayed, i);
}

/*
 * Asking for ACKs (@may_ask): 1000 B at 1 Mb/s are 8 ms apart and no
 * packet carries rxe's AckReq; the first packet of a quiet QP and the
 * packet after which the next could only leave past ack_ref + 30 ms get
 * ROCECC_PACE_ACKREQ and become the reference, so the rate is kept and
 * nothing is capped.
 */
static void test_ackreq(void)
{
	struct rocecc_rp rp = rp_at(1000);
	struct rocecc_pace s = pace_new(30 * MS);
	uint64_t d, want[] = { 0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80 };
	uint32_t fl, asks = 0, capped = 0, asked_at = 0, i;

	for (i = 0; i < ARRAY_SIZE(want); i++) {
		d = rocecc_pace(&s, &rp, T0, 1000, false, true, NOLIMIT, &fl);
		tap_eq(d, T0 + want[i] * MS, "ask: packet %u leaves at +%llu ms",
		       i, (unsigned long long)want[i]);
		capped += !!(fl & ROCECC_PACE_CAPPED);
		if (fl & ROCECC_PACE_ACKREQ) {
			asks++;
			asked_at = asked_at * 100 + (uint32_t)want[i];
			tap_eq(s.ack_ref, d, "ask: the asked packet is the reference");
		}
	}
	tap_eq(capped, 0, "ask: the rate is kept, nothing capped");
	/* 0: the QP was quiet; at 24 the next (32) is past 0 + 30 */
	tap_eq(asks, 4, "ask: four ACK requests in 88 ms of packets");
	tap_eq(asked_at, 244872, "ask: at 0 (quiet before), +24, +48 and +72 ms");

	/* Quiet for longer than the budget: the next packet is asked. */
	d = rocecc_pace(&s, &rp, T0 + 200 * MS, 1000, false, true, NOLIMIT, &fl);
	tap_eq(d, T0 + 200 * MS, "after 112 ms quiet: leaves at once");
	tap_eq(fl, ROCECC_PACE_ACKREQ, "after 112 ms quiet: asked (rxe's timer may be stale)");
	tap_eq(s.ack_ref, d, "after 112 ms quiet: the reference");
	rocecc_pace(&s, &rp, T0 + 200 * MS, 1000, false, false, NOLIMIT, &fl);
	d = rocecc_pace(&s, &rp, T0 + 240 * MS, 1000, false, false, NOLIMIT, &fl);
	tap_eq(d, T0 + 240 * MS, "quiet, @may_ask false: leaves at once");
	tap_eq(fl, 0, "quiet, @may_ask false: not asked");

	/* An rxe AckReq is the reference by itself: nothing to ask. */
	s = pace_new(30 * MS);
	rocecc_pace(&s, &rp, T0, 1000, false, true, NOLIMIT, &fl);
	rocecc_pace(&s, &rp, T0, 1000, false, true, NOLIMIT, &fl);
	rocecc_pace(&s, &rp, T0, 1000, false, true, NOLIMIT, &fl);
	d = rocecc_pace(&s, &rp, T0, 1000, true, true, NOLIMIT, &fl);
	tap_eq(d, T0 + 24 * MS, "rxe's AckReq at +24 ms: not capped");
	tap_eq(fl & ROCECC_PACE_ACKREQ, 0, "rxe's AckReq: nothing to ask");
	tap_eq(s.ack_ref, d, "rxe's AckReq: the reference");

	/* Without @may_ask the cap binds as before, and nothing is asked. */
	s = pace_new(30 * MS);
	for (i = 0; i < 5; i++)
		d = rocecc_pace(&s, &rp, T0, 1000, false, false, NOLIMIT, &fl);
	tap_eq(d, T0 + 30 * MS, "no asking: fifth packet capped at +30 ms");
	tap_eq(fl, ROCECC_PACE_DELAYED | ROCECC_PACE_CAPPED,
	       "no asking: capped, not asked");

	/* A packet longer than the budget (1000 B at 100 kb/s: 80 ms). */
	rp = rp_at(100);
	s = pace_new(30 * MS);
	d = rocecc_pace(&s, &rp, T0, 1000, false, true, NOLIMIT, &fl);
	tap_eq(fl, ROCECC_PACE_ACKREQ, "slower than a packet per budget: asked");
	d = rocecc_pace(&s, &rp, T0, 1000, false, true, NOLIMIT, &fl);
	tap_eq(d, T0 + 30 * MS, "slower than a packet per budget: capped at +30 ms");
	tap_eq(fl, ROCECC_PACE_DELAYED | ROCECC_PACE_CAPPED | ROCECC_PACE_ACKREQ,
	       "slower than a packet per budget: delayed, capped and asked");
}

/*
 * A random trace of a QP that may always be asked, at rates where a packet
 * takes less than the budget: the rate is never cut short, and no two
 * ACK-requesting packets (rxe's or asked) leave more than a budget apart
 * unless the QP handed over nothing for longer than that, and then its
 * next packet is asked.
 */
static void test_ackreq_random(void)
{
	const uint64_t budget = 15 * MS;
	struct rocecc_pace s = pace_new(budget);
	struct rocecc_rp rp = rp_at(1000);
	uint64_t now = T0, last_ack = 0, d, gap, max_gap = 0;
	unsigned int i, capped = 0, asks = 0, bad_gap = 0, bad_quiet = 0;
	unsigned int pkts = 0;
	uint32_t fl, len;
	bool ack, aged;

	srand(11);
	for (i = 0; i < 200000; i++) {
		/* mostly back to back, sometimes a pause up to 40 ms */
		now += rand() % 50 ? (uint64_t)(rand() % 1000) * US / 10 :
				     (uint64_t)(rand() % 40) * MS;
		if (rand() % 300 == 0)
			rp = rp_at(1000 + rand() % 99000);	/* 1..100 Mb/s */
		len = 64 + rand() % 961;		/* 1024 B: 8.2 ms at 1 Mb/s */
		ack = rand() % 16 == 0;
		aged = s.ack_ref + budget < now;
		d = rocecc_pace(&s, &rp, now, len, ack, true, NOLIMIT, &fl);
		pkts++;
		capped += !!(fl & ROCECC_PACE_CAPPED);
		asks += !!(fl & ROCECC_PACE_ACKREQ);
		bad_quiet += aged && !ack && !(fl & ROCECC_PACE_ACKREQ);
		if (ack || (fl & ROCECC_PACE_ACKREQ)) {
			gap = last_ack ? d - last_ack : 0;
			if (!aged && gap > budget)
				bad_gap++;
			if (!aged && gap > max_gap)
				max_gap = gap;
			last_ack = d;
		}
	}
	tap_eq(capped, 0, "ask random: never capped at a packet per budget or faster");
	tap_eq(bad_gap, 0, "ask random: ACK requests at most 15 ms apart (max %llu us)",
	       (unsigned long long)(max_gap / US));
	tap_eq(bad_quiet, 0, "ask random: the first packet after a quiet budget is asked");
	tap_ok(asks > 1000 && asks < pkts / 2,
	       "ask random: asked now and then (%u of %u packets)", asks, pkts);
}

/* rocecc_pace_budget_ns() in 128-bit arithmetic, from the definition. */
static uint64_t budget_ref(unsigned int timeout, uint32_t hz, uint32_t pct,
			   uint32_t max_us)
{
	unsigned __int128 cap = (unsigned __int128)max_us * 1000, j, t, x;

	if (!timeout || timeout > 31)
		return (uint64_t)cap;
	j = ((unsigned __int128)4096 << timeout) * hz / SEC;
	if (!j)
		j = 1;
	t = (j - 1) * SEC / hz;
	x = t * pct / 100;
	return (uint64_t)(x < cap ? x : cap);
}

static void test_budget_hand(void)
{
	/* HZ 250: 4 ms jiffies; timeout 14 is 67.1 ms = 16.8 -> 16 jiffies. */
	tap_eq(rocecc_pace_budget_ns(14, 250, 50, 1000000), 30 * MS,
	       "HZ 250, timeout 14: 15 jiffies surely = 60 ms, 50 %% = 30 ms");
	tap_eq(rocecc_pace_budget_ns(14, 1000, 50, 1000000), 33 * MS,
	       "HZ 1000, timeout 14: 67 jiffies, 66 surely, 50 %% = 33 ms");
	tap_eq(rocecc_pace_budget_ns(12, 250, 50, 1000000), 6 * MS,
	       "HZ 250, timeout 12 (16.8 ms): 4 jiffies, 3 surely, 6 ms");
	tap_eq(rocecc_pace_budget_ns(10, 250, 50, 1000000), 0,
	       "HZ 250, timeout 10 (4.19 ms): 1 jiffy, none surely: 0");
	tap_eq(rocecc_pace_budget_ns(1, 1000, 50, 1000000), 0,
	       "HZ 1000, timeout 1 (8 us): 0 jiffies, taken as 1: 0");
	tap_eq(rocecc_pace_budget_ns(18, 250, 50, 1000000), 534 * MS,
	       "HZ 250, timeout 18 (1.07 s): 268 jiffies, 1068 ms, 534 ms");
	tap_eq(rocecc_pace_budget_ns(19, 250, 50, 1000000), 1 * SEC,
	       "HZ 250, timeout 19 (2.1 s): the 1 s cap");
	tap_eq(rocecc_pace_budget_ns(14, 250, 100, 1000000), 60 * MS,
	       "100 %%: all the time surely waited");
	tap_eq(rocecc_pace_budget_ns(14, 250, 0, 1000000), 0, "0 %%: 0");
	tap_eq(rocecc_pace_budget_ns(0, 250, 50, 1000000), 1 * SEC,
	       "timeout 0 (no timer): the cap");
	tap_eq(rocecc_pace_budget_ns(32, 250, 50, 1000000), 1 * SEC,
	       "timeout 32 (not an IBA value): the cap");
	tap_eq(rocecc_pace_budget_ns(14, 0, 50, 1000000), 1 * SEC,
	       "HZ 0: the cap");
	tap_eq(rocecc_pace_budget_ns(14, 250, 50, 10000), 10 * MS,
	       "max_delay 10 ms binds");
	tap_eq(rocecc_pace_budget_ns(31, 1000, 50, UINT32_MAX),
	       (uint64_t)UINT32_MAX * 1000,
	       "HZ 1000, timeout 31 (8796 s): 50 %% above the largest cap: the cap");
	tap_eq(rocecc_pace_budget_ns(30, 1000, 50, UINT32_MAX),
	       2199022500000ULL,
	       "HZ 1000, timeout 30 (4398 s): 4398046 jiffies, 4398045 surely, 50 %% exact (no 32-bit us wrap)");
	tap_eq(rocecc_pace_budget_ns(31, 250, UINT32_MAX, UINT32_MAX),
	       (uint64_t)UINT32_MAX * 1000,
	       "timeout 31, share 2^32 - 1 %%: no overflow, the cap");
	tap_eq(rocecc_pace_budget_ns(14, 250, UINT32_MAX, UINT32_MAX),
	       (uint64_t)UINT32_MAX * 1000,
	       "timeout 14, share 2^32 - 1 %%: the cap");
	/* 8796088 s * 2097154 passes 2^64 by 7.06e12: no wrapped remainder. */
	tap_eq(rocecc_pace_budget_ns(31, 250, 2097154, UINT32_MAX),
	       (uint64_t)UINT32_MAX * 1000,
	       "timeout 31, share 2097154 %%: the product passes 2^64, the cap");
	/* t / 100 = 87960880000, times 209715320 passes 2^64 by 2.3e10. */
	tap_eq(rocecc_pace_budget_ns(31, 250, 209715320, UINT32_MAX),
	       (uint64_t)UINT32_MAX * 1000,
	       "timeout 31, share 209715320 %%: t / 100 * share passes 2^64, the cap");
	tap_eq(rocecc_pace_budget_ns(11, 250, 1u << 26, UINT32_MAX),
	       2684354560000ULL,
	       "timeout 11 (8.4 ms, 1 jiffy surely), share 2^26 %%: 4 ms * 671088.64, exact");
}

/* The budget of one case against the 128-bit reference; 1 if it differs. */
static unsigned int budget_check(unsigned int t, uint32_t hz, uint32_t pct,
				 uint32_t cap)
{
	uint64_t got = rocecc_pace_budget_ns(t, hz, pct, cap);
	uint64_t want = budget_ref(t, hz, pct, cap);

	if (got == want)
		return 0;
	tap_diag("HZ %u timeout %u pct %u cap %u us: got %llu, want %llu",
		 hz, t, pct, cap, (unsigned long long)got,
		 (unsigned long long)want);
	return 1;
}

/*
 * Every timeout at four HZ, with fixed shares and, per case, the shares
 * whose product with the time waited (or with a hundredth of it) passes
 * 2^64 by the least: where a wrapped product would look like a budget.
 */
static void test_budget_table(void)
{
	static const uint32_t hzs[] = { 100, 250, 300, 1000 };
	static const uint32_t pcts[] = {
		0, 1, 33, 50, 99, 100, 150, 1000, (1u << 20) - 1,
		(1u << 26) - 1, 1u << 26, (1u << 26) + 1, 3000000000u,
		UINT32_MAX,
	};
	static const uint32_t caps[] = { 0, 1000, 1000000, UINT32_MAX };
	unsigned int h, t, pc, c, n = 0, bad = 0;
	unsigned __int128 wrap, w;
	uint64_t tw;

	for (h = 0; h < ARRAY_SIZE(hzs); h++) {
		for (t = 0; t <= 33; t++) {
			for (pc = 0; pc < ARRAY_SIZE(pcts); pc++)
				for (c = 0; c < ARRAY_SIZE(caps); c++, n++)
					bad += budget_check(t, hzs[h], pcts[pc],
							    caps[c]);
			/* The time waited, from the 100 % budget. */
			tw = rocecc_pace_budget_ns(t, hzs[h], 100, UINT32_MAX);
			if (!t || t > 31 || !tw || tw == (uint64_t)UINT32_MAX * 1000)
				continue;
			wrap = (unsigned __int128)1 << 64;
			w = (wrap + tw - 1) / tw;
			if (w <= UINT32_MAX) {
				bad += budget_check(t, hzs[h], (uint32_t)w,
						    UINT32_MAX);
				n++;
			}
			w = (wrap + tw / 100 - 1) / (tw / 100);
			if (w <= UINT32_MAX) {
				bad += budget_check(t, hzs[h], (uint32_t)w,
						    UINT32_MAX);
				n++;
			}
		}
	}
	tap_eq(bad, 0, "budget: %u cases (HZ 100/250/300/1000, timeout 0..33, shares to 2^32 - 1 and at the 2^64 wrap, caps 0 to 2^32 - 1 us) equal 128-bit arithmetic",
	       n);
}

/*
 * The jiffies rounding at HZ 250 and 1000, every exponent, 100 %: whole
 * jiffies, one fewer than rxe arms, at most the largest cap (4295 s,
 * which timeouts 30 and 31 exceed).
 */
static void test_budget_jiffies(void)
{
	static const uint32_t hzs[] = { 250, 1000 };
	uint64_t jiffy, n, j, got, want, cap = (uint64_t)UINT32_MAX * 1000;
	unsigned int h, t, bad = 0;

	for (h = 0; h < ARRAY_SIZE(hzs); h++) {
		jiffy = SEC / hzs[h];
		for (t = 0; t <= 31; t++) {
			n = 4096ULL << t;
			j = n / jiffy;		/* nsecs_to_jiffies(): down */
			if (!j)
				j = 1;
			want = (j - 1) * jiffy;
			if (!t || want > cap)
				want = cap;
			got = rocecc_pace_budget_ns(t, hzs[h], 100, UINT32_MAX);
			if (got != want || (got != cap && got >= n)) {
				if (!bad++)
					tap_diag("HZ %u timeout %u: got %llu ns, want %llu",
						 hzs[h], t,
						 (unsigned long long)got,
						 (unsigned long long)want);
			}
		}
	}
	tap_eq(bad, 0, "budget at 100 %%: whole jiffies, one fewer than rxe arms, below the timeout, or the cap (HZ 250, 1000; timeouts 0..31)");
}

/*
 * rocecc_pace_may_ask(): which packets both engines may set AckReq on. An
 * IPv4 RC WRITE MIDDLE with UDP checksum 0 may; one that asks already, a
 * UC or READ response opcode, a UDP checksum, or a buffer that ends
 * before the UDP header may not.
 */
static void test_may_ask(void)
{
	uint8_t ip[20 + 8 + 12 + 64 + 4] = { 0x45, 0, 0, sizeof(ip),
					     0, 0, 0x40, 0, 64, 17 };
	uint8_t *udp = ip + 20, *bth = udp + 8;
	struct rocecc_pkt p;

	udp[2] = 4791 >> 8;
	udp[3] = 4791 & 0xff;
	udp[5] = sizeof(ip) - 20;
	bth[0] = ROCECC_OP_RC_WRITE_MIDDLE;
	bth[2] = bth[3] = 0xff;
	bth[7] = 0x11;
	tap_eq(rocecc_parse_ip(ip, sizeof(ip), sizeof(ip), &p), ROCECC_ROCE,
	       "may_ask: the test packet parses");
	tap_ok(rocecc_pace_may_ask(&p, ip, sizeof(ip)),
	       "may_ask: RC WRITE MIDDLE, UDP checksum 0");
	tap_ok(!rocecc_pace_may_ask(&p, ip, 20 + 7),
	       "may_ask: not if the UDP header is not all there");
	p.bth.ack_req = 1;
	tap_ok(!rocecc_pace_may_ask(&p, ip, sizeof(ip)), "may_ask: not if it asks already");
	p.bth.ack_req = 0;
	p.bth.opcode = ROCECC_OP_RC_READ_RESP_MIDDLE;
	tap_ok(!rocecc_pace_may_ask(&p, ip, sizeof(ip)), "may_ask: not a READ response");
	p.bth.opcode = ROCECC_OP_RC_WRITE_MIDDLE | 0x20;	/* UC */
	tap_ok(!rocecc_pace_may_ask(&p, ip, sizeof(ip)), "may_ask: not UC (nobody ACKs)");
	p.bth.opcode = ROCECC_OP_RC_WRITE_MIDDLE;
	udp[7] = 1;
	tap_ok(!rocecc_pace_may_ask(&p, ip, sizeof(ip)),
	       "may_ask: not with a UDP checksum (it covers the bit)");
}

int main(void)
{
	test_may_ask();
	test_spacing();
	test_budget_cap();
	test_ack_ref_aging();
	test_max_delay();
	test_order();
	test_unpaced();
	test_saturation();
	test_random();
	test_ackreq();
	test_ackreq_random();
	test_budget_hand();
	test_budget_table();
	test_budget_jiffies();
	return tap_done();
}
