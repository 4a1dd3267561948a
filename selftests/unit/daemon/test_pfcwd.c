// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the PFC watchdog (daemon/policy/pfcwd.c): hand-built sample
 * sequences with polls every 100 ms, and the exact poll at which each event
 * must happen, worked out in the comments.
 */
#include <errno.h>
#include <string.h>

#include "policy/pfcwd.h"
#include "tap.h"

#define MS	1000000ULL

static struct pfcwd_prio wd;
static struct pfcwd_conf conf;
static struct pfcwd_sample smp;
static struct pfcwd_event ev[PFCWD_MAX_EVENTS];
static int nev;

/* A fresh watchdog on prio 3: detection 200 ms, restoration 400 ms */
static void setup(enum pfcwd_action act, unsigned int have)
{
	pfcwd_init(&wd, 3);
	memset(&conf, 0, sizeof(conf));
	conf.detection_ns = 200 * MS;
	conf.restoration_ns = 400 * MS;
	conf.action = act;
	memset(&smp, 0, sizeof(smp));
	smp.have = have;
	smp.pfc_enabled = true;
	smp.tx_bytes = 1000;
	smp.tx_packets = 1;
}

/* One poll at @t_ms */
static int poll_at(uint64_t t_ms)
{
	smp.now_ns = t_ms * MS;
	memset(ev, 0, sizeof(ev));
	nev = pfcwd_step(&wd, &conf, &smp, ev, PFCWD_MAX_EVENTS);
	return nev;
}

static void tx(uint64_t pkts)
{
	smp.tx_packets += pkts;
	smp.tx_bytes += pkts * 1000;
}

/* Exactly the events @kinds (@n of them) and no other */
static int events_are(const char *what, int n, const enum pfcwd_ev_kind *kinds)
{
	int i, ok = nev == n;

	for (i = 0; ok && i < n; i++)
		ok = ev[i].kind == kinds[i];
	if (!tap_ok(ok, "%s", what)) {
		tap_diag("got %d events:", nev);
		for (i = 0; i < nev && i < PFCWD_MAX_EVENTS; i++)
			tap_diag("  %s: %s", pfcwd_ev_name(ev[i].kind),
				 ev[i].reason);
	}
	return ok;
}

#define EVENTS(what, ...)						\
	({								\
		const enum pfcwd_ev_kind __k[] = { __VA_ARGS__ };	\
		events_are(what, sizeof(__k) / sizeof(__k[0]), __k);	\
	})
#define NO_EVENTS(what)	events_are(what, 0, NULL)

/* The reason of event @i (NULL: there is none) is @want. */
static int reason_is(int i, const char *want, const char *what)
{
	return tap_is_str(i < nev ? ev[i].reason : NULL, want, "%s", what);
}

/*
 * Evidence "paused now": t=0 not paused (baseline), t=100 paused (but
 * (0,100] was not paused at its start: not stalled), then stalled
 * intervals (100,200], (200,300]: the clock starts at 100, reaches
 * 200 ms = detection_time at t=300, not at t=200.
 */
static void test_detect_exact(void)
{
	setup(PFCWD_ACTION_ALERT, PFCWD_HAVE_PAUSED);
	poll_at(0);
	NO_EVENTS("detect: first sample is a baseline");
	smp.paused = true;
	tx(1);
	poll_at(100);
	NO_EVENTS("detect: paused from 100 ms, (0,100] had progress");
	smp.indications += 10;
	poll_at(200);
	NO_EVENTS("detect: 100 ms stalled: no storm one interval early");
	tap_ok(wd.stall_on && wd.stall_start_ns == 100 * MS,
	       "detect: stall clock started at 100 ms");
	smp.indications += 10;
	poll_at(300);
	EVENTS("detect: storm at 300 ms, 200 ms after the pause began",
	       PFCWD_EV_STORM);
	reason_is(0, "prio 3: PFC storm: paused with no transmit progress for 200 ms (detection_time 200 ms), 20 PFC frames received meanwhile",
		  "detect: storm reason");
	tap_eq(wd.storms_detected, 1, "detect: storms_detected 1");
	tap_eq(wd.state, PFCWD_STORM, "detect: state storm");
	smp.indications += 10;
	poll_at(400);
	NO_EVENTS("detect: storm goes on, reported once");
	tap_eq(wd.storms_detected, 1, "detect: still one storm");
}

/*
 * Paused at every poll and PFC frames keep coming, but one packet leaves
 * every other interval: the clock never gets past 100 ms (detection 200).
 * Then with detection 100 ms the same pattern is a storm at the first
 * stalled interval's end.
 */
static void test_progress(void)
{
	unsigned int t;

	setup(PFCWD_ACTION_DISABLE, PFCWD_HAVE_PAUSED);
	smp.paused = true;
	poll_at(0);
	for (t = 1; t <= 20; t++) {
		smp.indications += 50;
		if (t % 2 == 0)
			tx(1);
		poll_at(t * 100);
		if (nev)
			break;
	}
	tap_eq(t, 21, "progress: 20 polls, no event");
	tap_eq(wd.storms_detected, 0, "progress: no storm while tx progresses");

	conf.detection_ns = 100 * MS;
	smp.indications += 50;
	poll_at(2100);		/* (2000, 2100]: stalled */
	EVENTS("progress: one stalled interval = detection 100 ms: storm, disable",
	       PFCWD_EV_STORM, PFCWD_EV_DISABLE_PFC);
}

/*
 * Evidence "paused time": stalled if paused >= 99% of the interval. (0,100]
 * paused 99 ms exactly: stalled; (100,200] 100 ms: storm at 200. On a
 * second run, 98.999999 ms in (100,200] stops the clock.
 */
static void test_pause_ns(void)
{
	setup(PFCWD_ACTION_ALERT, PFCWD_HAVE_PAUSE_NS);
	poll_at(0);
	smp.pause_ns += 99 * MS;
	poll_at(100);
	NO_EVENTS("pause_ns: 99 ms of 100: stalled, 100 ms < detection");
	tap_ok(wd.stall_on && wd.stall_start_ns == 0,
	       "pause_ns: clock started at 0");
	smp.pause_ns += 100 * MS;
	poll_at(200);
	EVENTS("pause_ns: storm at 200 ms", PFCWD_EV_STORM);

	setup(PFCWD_ACTION_ALERT, PFCWD_HAVE_PAUSE_NS);
	poll_at(0);
	smp.pause_ns += 99 * MS;
	poll_at(100);
	smp.pause_ns += 99 * MS - 1;
	poll_at(200);
	NO_EVENTS("pause_ns: 98.999999 ms of 100 is not continuous");
	tap_ok(!wd.stall_on, "pause_ns: clock stopped");
	smp.pause_ns += 100 * MS;
	poll_at(300);
	smp.pause_ns += 100 * MS;
	poll_at(400);
	EVENTS("pause_ns: clock from 200: storm at 400", PFCWD_EV_STORM);

	/* a delayed poll: the paused time integrates over it */
	setup(PFCWD_ACTION_ALERT, PFCWD_HAVE_PAUSE_NS);
	poll_at(0);
	smp.pause_ns += 500 * MS;
	poll_at(500);
	EVENTS("pause_ns: a 500 ms gap paused throughout is a storm",
	       PFCWD_EV_STORM);
	reason_is(0, "prio 3: PFC storm: paused with no transmit progress for 500 ms (detection_time 200 ms), 0 PFC frames received meanwhile",
		  "pause_ns: gap storm reason");
}

/* No pause state at all: PFC frames arriving and no tx progress */
static void test_indications_only(void)
{
	setup(PFCWD_ACTION_ALERT, 0);
	poll_at(0);
	smp.indications += 5;
	poll_at(100);
	smp.indications += 5;
	tx(1);
	poll_at(200);
	NO_EVENTS("indications: progress at 200 stops the clock");
	smp.indications += 5;
	poll_at(300);
	NO_EVENTS("indications: (200,300] stalled, 100 ms");
	poll_at(400);
	NO_EVENTS("indications: no PFC frame in (300,400]: clock stopped");
	smp.indications += 1;
	poll_at(500);
	smp.indications += 1;
	poll_at(600);
	EVENTS("indications: clock from 400: storm at 600", PFCWD_EV_STORM);
}

/*
 * Action disable, then restoration 400 ms after the last PFC frame:
 * storm at 300 (as in test_detect_exact); PFC frames still arrive in
 * (300,400]; none after 400: quiet clock starts at 400, 400 ms at 800.
 * In (800+) a second storm: one PFC frame at 1000 stops the quiet clock.
 */
static void test_restore(void)
{
	setup(PFCWD_ACTION_DISABLE, PFCWD_HAVE_PAUSED);
	poll_at(0);
	smp.paused = true;
	smp.indications += 10;
	poll_at(100);
	smp.indications += 10;
	poll_at(200);
	smp.indications += 10;
	poll_at(300);
	EVENTS("restore: storm and disable request at 300",
	       PFCWD_EV_STORM, PFCWD_EV_DISABLE_PFC);
	reason_is(1, "prio 3: disable PFC (pfcwd action disable) until no PFC frame for 400 ms",
		  "restore: disable reason");
	tap_ok(wd.we_disabled, "restore: we hold PFC disabled");

	/* the caller disabled PFC: no longer paused, traffic flows */
	smp.pfc_enabled = false;
	smp.paused = false;
	smp.indications += 10;
	tx(100);
	poll_at(400);
	NO_EVENTS("restore: PFC frames still coming at 400");
	tx(100);
	poll_at(500);
	poll_at(600);
	poll_at(700);
	NO_EVENTS("restore: 300 ms quiet at 700: not yet");
	tap_eq(wd.restorations, 0, "restore: no restoration before 800");
	poll_at(800);
	EVENTS("restore: 400 ms quiet at 800: enable then restored",
	       PFCWD_EV_ENABLE_PFC, PFCWD_EV_RESTORED);
	reason_is(0, "prio 3: enable PFC again: no PFC frame for 400 ms (restoration_time 400 ms)",
		  "restore: enable reason");
	reason_is(1, "prio 3: PFC storm over, 500 ms after detection: no PFC frame for 400 ms (restoration_time 400 ms), 30 PFC frames received since it began",
		  "restore: restored reason");
	tap_eq(wd.restorations, 1, "restore: restorations 1");
	tap_eq(wd.state, PFCWD_OK, "restore: state ok");
	tap_ok(!wd.we_disabled, "restore: we no longer hold PFC");

	/* second storm, one PFC frame in the middle of the quiet time */
	smp.pfc_enabled = true;
	smp.paused = true;
	poll_at(900);
	smp.indications += 1;
	poll_at(1000);
	smp.indications += 1;
	poll_at(1100);
	EVENTS("restore: second storm at 1100 (clock from 900)",
	       PFCWD_EV_STORM, PFCWD_EV_DISABLE_PFC);
	tap_eq(wd.storms_detected, 2, "restore: storms_detected 2");
	smp.pfc_enabled = false;
	smp.paused = false;
	poll_at(1200);
	poll_at(1300);
	poll_at(1400);
	smp.indications += 1;		/* one frame in (1400,1500] */
	poll_at(1500);
	poll_at(1600);
	poll_at(1700);
	poll_at(1800);
	NO_EVENTS("restore: quiet since 1500, 300 ms at 1800");
	poll_at(1900);
	EVENTS("restore: restored at 1900", PFCWD_EV_ENABLE_PFC,
	       PFCWD_EV_RESTORED);
	tap_eq(wd.restorations, 2, "restore: restorations 2");

	/* action alert: restoration without an enable request */
	setup(PFCWD_ACTION_ALERT, 0);
	poll_at(0);
	smp.indications += 1;
	poll_at(100);
	smp.indications += 1;
	poll_at(200);
	EVENTS("restore alert: storm at 200, no request", PFCWD_EV_STORM);
	poll_at(300);
	poll_at(400);
	poll_at(500);
	poll_at(600);
	EVENTS("restore alert: restored at 600, no request",
	       PFCWD_EV_RESTORED);
}

/*
 * Counters going backwards (device re-attached): the clock restarts from
 * the new baseline. Clock from 100; at 200 (100 ms) the counters reset;
 * (200,300] stalled starts at 200, storm at 400, not at 300.
 */
static void test_reset(void)
{
	setup(PFCWD_ACTION_ALERT, PFCWD_HAVE_PAUSED);
	smp.paused = true;
	smp.indications = 1000;
	poll_at(0);
	smp.indications += 10;
	poll_at(100);
	NO_EVENTS("reset: stalled 100 ms");
	smp.indications = 3;
	smp.tx_bytes = 0;
	smp.tx_packets = 0;
	poll_at(200);
	EVENTS("reset: counters went backwards", PFCWD_EV_RESET);
	reason_is(0, "prio 3: PFC indications went backwards (device re-attached, counters cleared or wrapped): new baseline, detection and restoration clocks restarted",
		  "reset: reason");
	tap_eq(wd.resets, 1, "reset: resets 1");
	smp.indications += 10;
	poll_at(300);
	NO_EVENTS("reset: no storm at 300 (would be without the reset)");
	smp.indications += 10;
	poll_at(400);
	EVENTS("reset: storm at 400", PFCWD_EV_STORM);

	/* during a storm: no restoration from the reset either */
	smp.indications = 0;
	poll_at(500);
	EVENTS("reset in storm: reset only", PFCWD_EV_RESET);
	tap_eq(wd.state, PFCWD_STORM, "reset in storm: still storm");
	smp.paused = false;
	poll_at(600);		/* (500,600] quiet: clock from 500 */
	poll_at(800);
	NO_EVENTS("reset in storm: 300 ms quiet at 800: not yet");
	poll_at(900);
	EVENTS("reset in storm: restored 400 ms after the new baseline",
	       PFCWD_EV_RESTORED);

	/* the clock going backwards */
	setup(PFCWD_ACTION_ALERT, 0);
	poll_at(1000);
	poll_at(900);
	EVENTS("reset: time went backwards", PFCWD_EV_RESET);
	tap_ok(strstr(ev[0].reason, "prio 3: time went backwards") ==
	       ev[0].reason, "reset: time named in the reason");
}

/*
 * A delayed poll cannot vouch for a continuous pause with only the pause
 * state: clock from 0 at 100; the poll at 400 comes 300 ms late (> max
 * gap = detection 200): gap, clock stops, restarts at 400, storm at 600.
 */
static void test_gap(void)
{
	setup(PFCWD_ACTION_ALERT, PFCWD_HAVE_PAUSED);
	smp.paused = true;
	poll_at(0);
	poll_at(100);
	poll_at(400);
	EVENTS("gap: 300 ms between polls", PFCWD_EV_GAP);
	reason_is(0, "prio 3: 300 ms between polls (max_gap 200 ms): cannot tell a continuous pause, detection clock restarted",
		  "gap: reason");
	poll_at(500);
	NO_EVENTS("gap: clock from 400, 100 ms at 500");
	poll_at(600);
	EVENTS("gap: storm at 600", PFCWD_EV_STORM);

	/* a long gap with nothing going on is no event */
	setup(PFCWD_ACTION_ALERT, PFCWD_HAVE_PAUSED);
	poll_at(0);
	tx(1);
	poll_at(5000);
	NO_EVENTS("gap: idle gap, no event");
}

/* PFC switched off and on by the operator */
static void test_operator(void)
{
	setup(PFCWD_ACTION_DISABLE, PFCWD_HAVE_PAUSED);
	poll_at(0);
	smp.pfc_enabled = false;
	poll_at(100);
	EVENTS("oper: disabled by someone else", PFCWD_EV_OPER_OFF);
	reason_is(0, "prio 3: PFC disabled (not by the watchdog): not watched until enabled again",
		  "oper: off reason");
	tap_eq(wd.state, PFCWD_OFF, "oper: state off");
	smp.paused = true;
	poll_at(200);
	poll_at(300);
	poll_at(400);
	NO_EVENTS("oper: no detection while off");
	smp.pfc_enabled = true;
	poll_at(500);
	EVENTS("oper: enabled again", PFCWD_EV_OPER_ON);
	poll_at(600);
	NO_EVENTS("oper: clock from 500");
	poll_at(700);
	EVENTS("oper: storm at 700", PFCWD_EV_STORM, PFCWD_EV_DISABLE_PFC);

	/* someone re-enables it while we hold it disabled */
	poll_at(800);
	EVENTS("oper: enabled under our disable", PFCWD_EV_OVERRIDE);
	tap_eq(wd.state, PFCWD_OK, "oper: override returns to ok");
	tap_ok(!wd.we_disabled, "oper: override clears our hold");
	poll_at(900);
	poll_at(1000);
	EVENTS("oper: storm still on: detected again after 200 ms",
	       PFCWD_EV_STORM, PFCWD_EV_DISABLE_PFC);
	tap_eq(wd.storms_detected, 2, "oper: storms_detected 2");

	/* alert action, storm, operator disables: ends unrestored */
	setup(PFCWD_ACTION_ALERT, PFCWD_HAVE_PAUSED);
	smp.paused = true;
	poll_at(0);
	poll_at(100);
	poll_at(200);
	EVENTS("oper alert: storm", PFCWD_EV_STORM);
	smp.pfc_enabled = false;
	smp.paused = false;
	poll_at(300);
	EVENTS("oper alert: disabled during the storm", PFCWD_EV_OPER_OFF);
	reason_is(0, "prio 3: PFC disabled (not by the watchdog) during a storm, which ends unrestored: not watched until enabled again",
		  "oper alert: reason");
	tap_eq(wd.restorations, 0, "oper alert: no restoration counted");

	/* PFC off from the first sample */
	setup(PFCWD_ACTION_ALERT, PFCWD_HAVE_PAUSED);
	smp.pfc_enabled = false;
	poll_at(0);
	NO_EVENTS("oper: off at the baseline: no event");
	tap_eq(wd.state, PFCWD_OFF, "oper: off at the baseline: state off");
}

static void test_misc(void)
{
	setup(PFCWD_ACTION_DISABLE, 0);
	conf.detection_ns = 0;
	tap_eq(poll_at(0), (unsigned long long)-EINVAL,
	       "misc: detection 0 is -EINVAL");
	tap_ok(!wd.have_prev, "misc: -EINVAL changes nothing");

	/* events beyond @max are counted, not written */
	setup(PFCWD_ACTION_DISABLE, 0);
	pfcwd_step(&wd, &conf, &smp, ev, 1);
	smp.indications++;
	smp.now_ns = 100 * MS;
	pfcwd_step(&wd, &conf, &smp, ev, 1);
	smp.indications++;
	smp.now_ns = 200 * MS;
	memset(ev, 0, sizeof(ev));
	tap_eq(pfcwd_step(&wd, &conf, &smp, ev, 1), 2,
	       "misc: two events with room for one");
	tap_ok(ev[0].kind == PFCWD_EV_STORM && !ev[1].reason[0],
	       "misc: only the first written");

	tap_ok(!strcmp(pfcwd_ev_name(PFCWD_EV_DISABLE_PFC), "disable_pfc") &&
	       !strcmp(pfcwd_ev_name(PFCWD_EV_OVERRIDE), "override") &&
	       !strcmp(pfcwd_state_name(PFCWD_STORM), "storm"),
	       "misc: names");
}

int main(void)
{
	test_detect_exact();
	test_progress();
	test_pause_ns();
	test_indications_only();
	test_restore();
	test_reset();
	test_gap();
	test_operator();
	test_misc();
	return tap_done();
}
