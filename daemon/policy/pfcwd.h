/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PFC watchdog, the pure logic of roceccd (no netlink, no clock): detect a
 * PFC storm on one (netdev, priority), i.e. the priority held paused by the
 * peer continuously for detection_time with no transmit progress, report
 * it, optionally ask for PFC to be disabled on that priority, and ask for
 * it back once no PFC frame has arrived for restoration_time. Unit-tested
 * by selftests/unit/daemon/test_pfcwd.c.
 *
 * Modelled on the switch watchdogs (all read, none of their code used):
 *  - SONiC pfcwd (sonic-net/SONiC wiki "PFC Watchdog Design", sonic-swss
 *    pfcwd orch): per port and lossless queue, detection_time,
 *    restoration_time, action drop | forward | alert; a storm is a queue
 *    that cannot transmit while PFC frames keep pausing it, and it is
 *    restored after restoration_time without PFC frames. The Mellanox
 *    detection (sonic-swss PR 3036, 2024) asks for the queue to be
 *    "blocked more than 99% of the detection interval" by the PFC duration
 *    counter, to avoid false alarms: we use the same 99% when a paused-time
 *    counter is available.
 *  - Junos (poll interval, detection = N polls, recovery time; a queue
 *    with a non-zero pause timer whose transmit counter did not move since
 *    the last poll is stalled) and NX-OS (watchdog interval, shutdown and
 *    restore multipliers): the same three phases, detection, mitigation,
 *    restoration.
 * A host has no "drop" action of its own: mitigation here is to stop
 * honouring PFC on that priority (SONiC's "forward"), by disabling PFC on it
 * (DCB ieee_pfc pfc_en), which the caller does. "alert" only reports.
 *
 * Inputs, one struct pfcwd_sample per poll (100 ms .. 1 s typical), all
 * cumulative counters since some origin the module does not care about:
 *
 *  now_ns		monotonic time of the sample
 *  indications		PFC frames received for the priority (XOFF and XON:
 *			a storm is a stream of refreshed XOFFs)
 *  paused		the priority is paused by the peer right now
 *			(PFCWD_HAVE_PAUSED)
 *  pause_ns		cumulative time it was paused (PFCWD_HAVE_PAUSE_NS)
 *  tx_bytes, tx_packets	transmitted on the priority (progress)
 *  pfc_enabled		PFC is enabled on the priority now (as read back
 *			from DCB, after any request of ours was applied)
 *
 * Evidence that the interval (prev, now] was stalled, best first:
 *  1. PFCWD_HAVE_PAUSE_NS: paused for >= 99% of the interval
 *     (100 * d_pause_ns >= 99 * dt) and no tx progress;
 *  2. PFCWD_HAVE_PAUSED: paused at both ends (prev and now) and no tx
 *     progress: only the ends are seen, a pause that lifts and comes back
 *     between two polls without any transmit still counts (nothing was
 *     sent, so the priority was stuck anyway);
 *  3. neither: PFC frames arrived (d_indications > 0) and no tx progress.
 * "No tx progress" is d_tx_bytes == 0 and d_tx_packets == 0. We cannot see
 * whether the priority had anything queued (switches check that): an idle
 * priority that is paused throughout counts, the peer asserting pause that
 * long is a storm whether or not we had something to send.
 *
 * Detection timing. The first stalled interval (prev, now] starts the
 * storm clock at prev (the earliest instant the evidence covers); the storm
 * is declared on the first sample with now - start >= detection_ns, never
 * earlier. Any interval that is not stalled stops the clock. With polls
 * every P and detection_time D a multiple of P, the storm is declared at
 * the end of the (D/P)-th consecutive stalled interval. Evidence 2 and 3
 * cannot vouch for a long poll gap: an interval longer than max_gap_ns
 * (0: detection_ns) that looks stalled stops the clock instead (a new one
 * may start at its end), with a PFCWD_EV_GAP event; evidence 1 integrates
 * over the gap and is trusted.
 *
 * Restoration. In STORM, an interval is quiet if no PFC frame arrived
 * (d_indications == 0), the priority is not paused now (evidence 2) and
 * d_pause_ns == 0 (evidence 1). The first quiet interval starts the quiet
 * clock at prev, a non-quiet one stops it; restoration on the first sample
 * with now - start >= restoration_ns. A cumulative frame counter vouches
 * for a gap, so gaps do not stop this clock. The frame counter keeps
 * counting while PFC is disabled on the priority on the NICs we know
 * (mlx5's rx_prio_pause) and in rocecc.ko's software PFC; a device that
 * stops counting makes restoration happen restoration_time after the
 * disable, the best anyone can do then.
 *
 * States and events (returned in order, with a reason string):
 *
 *	OK --stalled >= detection--> STORM: PFCWD_EV_STORM, then with action
 *	     DISABLE also PFCWD_EV_DISABLE_PFC (the caller disables PFC)
 *	STORM --quiet >= restoration--> OK: with PFC disabled by us
 *	     PFCWD_EV_ENABLE_PFC first (the caller re-enables), then
 *	     PFCWD_EV_RESTORED
 *	any --pfc_enabled false, not by us--> OFF: PFCWD_EV_OPER_OFF (the
 *	     operator disabled PFC: nothing to watch, and we will never turn
 *	     it back on; a storm in progress ends without a restoration)
 *	OFF --pfc_enabled true--> OK: PFCWD_EV_OPER_ON, clocks restart
 *	STORM, disabled by us --pfc_enabled true--> OK: PFCWD_EV_OVERRIDE
 *	     (someone re-enabled it, or our disable was never applied: the
 *	     caller logs failures of its own requests); a storm that goes on
 *	     is detected again after detection_time
 *	any --a cumulative counter went backwards--> same state:
 *	     PFCWD_EV_RESET (device re-attached or counters cleared, or a
 *	     counter wrapped): the sample becomes the new baseline and both
 *	     clocks restart, so no storm and no restoration is declared from
 *	     it. The time going backwards does the same.
 *
 * The first sample is a baseline only (no event). Counters storms_detected
 * and restorations count STORM and RESTORED events. All arithmetic is on
 * 64-bit unsigned integers; no allocation.
 */
#ifndef _ROCECC_PFCWD_H
#define _ROCECC_PFCWD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pfcwd_action {
	PFCWD_ACTION_ALERT,	/* report only */
	PFCWD_ACTION_DISABLE,	/* also disable PFC on the prio, re-enable
				 * it at restoration */
};

enum pfcwd_state {
	PFCWD_OK,
	PFCWD_STORM,
	PFCWD_OFF,		/* PFC disabled on the prio by the operator */
};

enum pfcwd_ev_kind {
	PFCWD_EV_STORM,		/* storm detected */
	PFCWD_EV_DISABLE_PFC,	/* request: disable PFC on the prio */
	PFCWD_EV_ENABLE_PFC,	/* request: enable PFC on the prio again */
	PFCWD_EV_RESTORED,	/* storm over */
	PFCWD_EV_RESET,		/* counters went backwards: new baseline */
	PFCWD_EV_GAP,		/* poll gap too long for the evidence */
	PFCWD_EV_OPER_OFF,	/* PFC disabled by someone else */
	PFCWD_EV_OPER_ON,	/* PFC enabled again by someone else */
	PFCWD_EV_OVERRIDE,	/* PFC enabled while we held it disabled */
};

#define PFCWD_REASON_LEN	192
/* An upper bound of the events of one pfcwd_step() */
#define PFCWD_MAX_EVENTS	4

struct pfcwd_event {
	enum pfcwd_ev_kind kind;
	char reason[PFCWD_REASON_LEN];
};

#define PFCWD_HAVE_PAUSED	0x1	/* sample.paused is meaningful */
#define PFCWD_HAVE_PAUSE_NS	0x2	/* sample.pause_ns is meaningful */

/* 100 * d_pause_ns >= PFCWD_PAUSED_PCT * dt: paused the whole interval */
#define PFCWD_PAUSED_PCT	99

struct pfcwd_sample {
	uint64_t now_ns;
	uint64_t indications;
	uint64_t pause_ns;
	uint64_t tx_bytes;
	uint64_t tx_packets;
	unsigned int have;	/* PFCWD_HAVE_* */
	bool paused;
	bool pfc_enabled;
};

struct pfcwd_conf {
	uint64_t detection_ns;		/* > 0 */
	uint64_t restoration_ns;	/* > 0 */
	uint64_t max_gap_ns;		/* 0: detection_ns */
	enum pfcwd_action action;
};

/* Per (netdev, priority); pfcwd_init() it. */
struct pfcwd_prio {
	unsigned int prio;		/* 0..7, for the reasons */
	enum pfcwd_state state;
	bool have_prev;			/* prev holds a baseline */
	bool we_disabled;		/* PFC is off because we asked */
	bool stall_on, quiet_on;	/* clocks running */
	uint64_t stall_start_ns, quiet_start_ns;
	uint64_t storm_ind;		/* indications when the storm began */
	uint64_t storm_ns;		/* when the storm was declared */
	struct pfcwd_sample prev;
	/* counters, for export */
	uint64_t storms_detected;
	uint64_t restorations;
	uint64_t resets;
};

void pfcwd_init(struct pfcwd_prio *s, unsigned int prio);

/* "ok", "storm", "off" */
const char *pfcwd_state_name(enum pfcwd_state st);
/* "storm", "disable_pfc", "enable_pfc", "restored", "reset", "gap",
 * "oper_off", "oper_on", "override" */
const char *pfcwd_ev_name(enum pfcwd_ev_kind k);

/*
 * Feed one sample. Writes up to PFCWD_MAX_EVENTS events into @ev (room for
 * @max; events beyond @max are counted in the return value but not
 * written) and returns their number; -EINVAL if detection_ns or
 * restoration_ns is 0 (nothing changed then).
 */
int pfcwd_step(struct pfcwd_prio *s, const struct pfcwd_conf *c,
	       const struct pfcwd_sample *in, struct pfcwd_event *ev,
	       size_t max);

#endif /* _ROCECC_PFCWD_H */
