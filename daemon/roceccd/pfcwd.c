// SPDX-License-Identifier: GPL-2.0
/*
 * roceccd: the PFC storm watchdog (policy/pfcwd.h) and the closed-loop buffer
 * tuner (policy/pfctune.h) wired to the netdevs: what they read, what they do,
 * what they log, record and export. Both are pure state machines; this
 * file feeds them once per poll (rd_pfcwd_poll(), after rd_dcb_sync() has
 * read the netdev's DCB) and acts on what they decide.
 *
 * Watchdog, per (netdev, priority), every [daemon] interval, for the
 * netdevs [pfc] devices selects while [pfc] watchdog is on (auto: when
 * priorities is set and not none):
 *  - the priorities watched are those with PFC enabled as read back this
 *    poll, those [pfc] priorities configures, and those the watchdog
 *    turned off itself (and any already watched: the state machine then
 *    sees PFC go off and on, OPER_OFF / OPER_ON);
 *  - pfc_enabled: bit p of ieee_pfc.pfc_en, read over DCB netlink this
 *    poll; indications: ieee_pfc.indications[p] (DCB netlink, the same
 *    counter rocecc.ko's software DCB reports in its PFC nest);
 *  - the transmit side (the peer pausing us) from rocecc.ko's DEV_GET PFC
 *    nest, which has it while the netdev's root qdisc is rocecc's:
 *    TX_PAUSED (PFCWD_HAVE_PAUSED), TX_PAUSE_NS (PFCWD_HAVE_PAUSE_NS),
 *    TX_PACKETS / TX_BYTES as transmit progress. Without them (no module,
 *    a NIC's own DCB, another root qdisc) the watchdog falls back on its
 *    third evidence, PFC frames received without transmit progress, and
 *    the progress is the netdev's (sysfs statistics tx_packets / tx_bytes,
 *    every priority): ordinary PFC while the netdev sends is not taken
 *    for a storm, at the price of missing a storm on one priority while
 *    another one sends. That is logged once per netdev;
 *  - time: CLOCK_MONOTONIC when the sample is taken. max_gap is twice the
 *    poll interval, at least detection_time: a poll that comes later than
 *    that (the daemon was stopped or starved) cannot vouch for the
 *    interval with the paused flag alone.
 * Events: STORM (warning, event pfc_storm), DISABLE_PFC (action =
 * disable: pfc_en bit p cleared with dcbnl_set_pfc, event pfc_disabled),
 * ENABLE_PFC (bit set again, event pfc_enabled), RESTORED (event
 * pfc_restored), and RESET, GAP, OPER_OFF, OPER_ON, OVERRIDE (logged).
 * nd->wd_disabled holds the priorities whose PFC the watchdog turned off:
 * dcb.c's re-apply of [pfc] leaves them off (neither the drift check
 * nor a reload turns them on), and the watchdog turns them on again at
 * restoration, when it is turned off (watchdog = off, devices, reload), or
 * when a re-enable failed (retried every poll). The reference reading
 * dcb.c compares with follows the watchdog's own changes.
 *
 * Tuner, per (netdev, buffer holding a priority of [pfc] priorities),
 * every tune_interval (measured on CLOCK_MONOTONIC, checked every poll),
 * with tune = on or dry-run:
 *  - requests, indications: deltas of ieee_pfc requests / indications
 *    (DCB netlink) summed over the configured PFC priorities of the buffer;
 *  - ce_marks, cnp_sent, cnp_recv: deltas of rocecc.ko's per-device
 *    counters NP_ECN_MARKED_ROCE_PACKETS, NP_CNP_SENT, RP_CNP_HANDLED. They
 *    are per device, not per priority: right for the usual one lossless
 *    priority per device; with several lossless buffers each sees the
 *    device's whole ECN activity. Without the module they read 0 (ECN
 *    looks quiet);
 *  - tail_ns: the p99.9 message completion time of all the flows of the
 *    netdev (flowmon does not record a flow's DSCP, so the flows of the
 *    priority cannot be told apart), over the straggler window ([straggler]
 *    window; W/2 .. W of history, strag_win_delta()), as of the previous
 *    poll; 0 (unknown: no shrink) without samples;
 *  - size: buffer_size[b] as read this poll; headroom: headroom_calc()
 *    (xoff, bytes above the xoff threshold) for [pfc] speed / mtu /
 *    cable_length as buffer_size = auto uses them; max_size: the device's
 *    total_size less the other lossless buffers; cell: the headroom's.
 * A change (not in dry run) writes the buffer with dcbnl_set_buffer():
 * when the sizes would add up to more than total_size (rocecc.ko and the
 * NICs refuse that), the excess is taken from the buffers that hold no
 * lossless priority, the largest first. The device is read back; the
 * read-back sizes become the tuner's target (nd->tune_size): dcb.c's
 * apply of [pfc] uses them instead of [pfc] buffer_size while tune = on
 * (the configured size is where the tuner starts) and the drift check
 * compares against them. tune = off or dry-run (reload) drops the target:
 * [pfc] buffer_size is applied again at that reload. Every decision but
 * HOLD is logged with its reason; changes and dry-run proposals are
 * recorded as pfc_tune events and counted.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/dcbnl.h"
#include "lib/format.h"
#include "policy/headroom.h"
#include "policy/pfctune.h"
#include "policy/pfcwd.h"
#include "roceccd.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* A u64 from /sys/class/net/@dev/statistics/@name; false if unreadable. */
static bool rd_netdev_stat(const char *dev, const char *name, uint64_t *v)
{
	char path[160];
	unsigned long long x;
	bool ok;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/%s", dev,
		 name);
	f = fopen(path, "re");
	if (!f)
		return false;
	ok = fscanf(f, "%llu", &x) == 1;
	fclose(f);
	if (ok)
		*v = x;
	return ok;
}

static bool rd_pfc_selected(const struct rd *rd, const struct rd_netdev *nd)
{
	return rd_conf_dev_selected(rd->conf.pfc_devices, nd->name);
}

/* ---- watchdog -------------------------------------------------------------- */

/*
 * Turn PFC on priority @prio off (@on false) or on again, keeping the
 * rest of the device's ieee_pfc; nd->dcb, nd->pfc_ref and nd->wd_disabled
 * follow. 0 or -errno (logged).
 */
static int rd_wd_set(struct rd *rd, struct rd_netdev *nd, unsigned int prio,
		     bool on, const char *why)
{
	struct ieee_pfc p = nd->dcb.pfc;
	uint8_t bit = (uint8_t)(1u << prio);
	int err;

	if (on)
		p.pfc_en |= bit;
	else
		p.pfc_en &= (uint8_t)~bit;
	if (!rd_dcb_ready(rd))
		return -ENOTCONN;
	err = dcbnl_set_pfc(rd->dcb, nd->name, &p);
	if (err) {
		rd_log(LOG_ERR_, "%s: PFC watchdog: cannot turn PFC %s on priority %u: %s",
		       nd->name, on ? "on" : "off", prio,
		       dcbnl_errmsg(rd->dcb));
		rd->pfc_errors++;
		return err;
	}
	nd->dcb.pfc.pfc_en = p.pfc_en;
	if (on) {
		nd->wd_disabled &= (uint8_t)~bit;
		if (nd->pfc_ok && rd->conf.pfc_prio_set &&
		    (rd->conf.pfc_en & bit))
			nd->pfc_ref.pfc.pfc_en |= bit;
	} else {
		nd->wd_disabled |= bit;
		if (nd->pfc_ok)
			nd->pfc_ref.pfc.pfc_en &= (uint8_t)~bit;
	}
	rd_log(on ? LOG_INFO_ : LOG_WARN_, "%s: PFC %s on priority %u by the PFC watchdog (%s)",
	       nd->name, on ? "enabled again" : "disabled", prio, why);
	rd_event(rd, on ? "pfc_enabled" : "pfc_disabled",
		 "netdev", rd_json_str(nd->name),
		 "prio", json_object_new_int64(prio),
		 "reason", rd_json_str(why), NULL);
	return 0;
}

static void rd_wd_events(struct rd *rd, struct rd_netdev *nd,
			 struct pfcwd_prio *w, const struct pfcwd_event *ev,
			 int n)
{
	int i;

	for (i = 0; i < n && i < PFCWD_MAX_EVENTS; i++) {
		const struct pfcwd_event *e = &ev[i];

		switch (e->kind) {
		case PFCWD_EV_STORM:
			rd_log(LOG_WARN_, "%s: PFC storm on priority %u: %s (action %s)",
			       nd->name, w->prio, e->reason,
			       rd->conf.pfc_wd_action == RD_PFCWD_DISABLE ?
			       "disable" : "alert");
			rd_event(rd, "pfc_storm", "netdev", rd_json_str(nd->name),
				 "prio", json_object_new_int64(w->prio),
				 "action", rd_json_str(rd->conf.pfc_wd_action ==
						       RD_PFCWD_DISABLE ?
						       "disable" : "alert"),
				 "reason", rd_json_str(e->reason), NULL);
			break;
		case PFCWD_EV_DISABLE_PFC:
			rd_wd_set(rd, nd, w->prio, false, e->reason);
			break;
		case PFCWD_EV_ENABLE_PFC:
			/* a failure is retried every poll (rd_pfcwd_poll) */
			rd_wd_set(rd, nd, w->prio, true, e->reason);
			break;
		case PFCWD_EV_RESTORED:
			rd_log(LOG_INFO_, "%s: PFC storm on priority %u over: %s",
			       nd->name, w->prio, e->reason);
			rd_event(rd, "pfc_restored",
				 "netdev", rd_json_str(nd->name),
				 "prio", json_object_new_int64(w->prio),
				 "reason", rd_json_str(e->reason), NULL);
			break;
		case PFCWD_EV_OVERRIDE:
			/* someone turned it on: it is no longer ours, and
			 * dcb.c's reference reads it on again */
			nd->wd_disabled &= (uint8_t)~(1u << w->prio);
			if (nd->pfc_ok && rd->conf.pfc_prio_set &&
			    (rd->conf.pfc_en & 1u << w->prio))
				nd->pfc_ref.pfc.pfc_en |= (uint8_t)(1u << w->prio);
			rd_log(LOG_WARN_, "%s: PFC watchdog, priority %u: %s: %s",
			       nd->name, w->prio, pfcwd_ev_name(e->kind),
			       e->reason);
			break;
		case PFCWD_EV_RESET:
		case PFCWD_EV_GAP:
		case PFCWD_EV_OPER_OFF:
		case PFCWD_EV_OPER_ON:
		default:
			rd_log(LOG_INFO_, "%s: PFC watchdog, priority %u: %s: %s",
			       nd->name, w->prio, pfcwd_ev_name(e->kind),
			       e->reason);
			break;
		}
	}
}

/* Give back every priority the watchdog holds off; stop watching. */
static void rd_wd_stop(struct rd *rd, struct rd_netdev *nd, const char *why)
{
	unsigned int p;

	for (p = 0; p < DCBNL_PRIOS; p++)
		if (nd->wd_disabled & 1u << p)
			rd_wd_set(rd, nd, p, true, why);
	nd->wd_active = 0;
}

/*
 * Priority @p's sample for the watchdog: its PFC frames and state, the
 * module's transmit side when it reports one, else the netdev's counters
 * (@nd_tx, if @have_nd_tx). True if the transmit side is the priority's.
 */
static bool rd_wd_sample(const struct rd_netdev *nd,
			 const struct rd_mod_pfc_prio *mp, unsigned int p,
			 bool have_nd_tx, const uint64_t nd_tx[2],
			 struct pfcwd_sample *s)
{
	bool tx = false;

	s->indications = nd->dcb.pfc.indications[p];
	s->pfc_enabled = !!(nd->dcb.pfc.pfc_en & 1u << p);
	if (mp->have) {
		if (mp->have_tx_paused) {
			s->have |= PFCWD_HAVE_PAUSED;
			s->paused = mp->tx_paused;
		}
		if (mp->have_tx_pause_ns) {
			s->have |= PFCWD_HAVE_PAUSE_NS;
			s->pause_ns = mp->tx_pause_ns;
		}
		s->tx_packets = mp->tx_packets;
		s->tx_bytes = mp->tx_bytes;
		tx = mp->have_tx_paused || mp->have_tx_pause_ns;
	}
	if (!(mp->have && (mp->have_tx_packets || mp->have_tx_bytes)) &&
	    have_nd_tx) {
		s->tx_packets = nd_tx[0];
		s->tx_bytes = nd_tx[1];
	}
	return tx;
}

/* Start watching priority @p of @nd, if not yet. */
static void rd_wd_start(const struct rd *rd, struct rd_netdev *nd,
			unsigned int p)
{
	const struct rd_conf *c = &rd->conf;

	if (nd->wd_active & 1u << p)
		return;
	pfcwd_init(&nd->wd[p], p);
	nd->wd_active |= (uint8_t)(1u << p);
	rd_log(LOG_INFO_, "%s: PFC watchdog on priority %u: detection %" PRIu64 " ms, restoration %" PRIu64 " ms, action %s",
	       nd->name, p, c->pfc_wd_detect_ms, c->pfc_wd_restore_ms,
	       c->pfc_wd_action == RD_PFCWD_DISABLE ? "disable" : "alert");
}

static void rd_wd_poll(struct rd *rd, struct rd_netdev *nd,
		       const struct rd_mod_pfc *m, uint64_t now)
{
	const struct rd_conf *c = &rd->conf;
	struct pfcwd_conf wc = {
		.detection_ns = c->pfc_wd_detect_ms * 1000000ULL,
		.restoration_ns = c->pfc_wd_restore_ms * 1000000ULL,
		.max_gap_ns = 2 * c->interval_ms * 1000000ULL,
		.action = c->pfc_wd_action == RD_PFCWD_DISABLE ?
			  PFCWD_ACTION_DISABLE : PFCWD_ACTION_ALERT,
	};
	struct pfcwd_event ev[PFCWD_MAX_EVENTS];
	uint64_t nd_tx[2] = { 0, 0 };	/* packets, bytes */
	uint8_t watch;
	bool tx_any = false, have_nd_tx;
	unsigned int p;
	int n;

	if (wc.max_gap_ns < wc.detection_ns)
		wc.max_gap_ns = wc.detection_ns;
	/* a re-enable that failed: again, once the storm is over */
	for (p = 0; p < DCBNL_PRIOS; p++)
		if ((nd->wd_disabled & 1u << p) &&
		    (!(nd->wd_active & 1u << p) ||
		     nd->wd[p].state != PFCWD_STORM || !nd->wd[p].we_disabled))
			rd_wd_set(rd, nd, p, true,
				  "retrying: the storm is over, or the watchdog no longer holds it");
	watch = nd->dcb.pfc.pfc_en | nd->wd_disabled | nd->wd_active |
		(c->pfc_prio_set ? c->pfc_en : 0);
	/*
	 * Without the module's per-priority transmit counters, the netdev's
	 * (every priority): a priority is not called stalled while the
	 * netdev transmits, which misses a storm on one priority while
	 * others send, rather than calling ordinary PFC a storm.
	 */
	have_nd_tx = rd_netdev_stat(nd->name, "tx_packets", &nd_tx[0]) &&
		     rd_netdev_stat(nd->name, "tx_bytes", &nd_tx[1]);
	for (p = 0; p < DCBNL_PRIOS; p++) {
		struct pfcwd_sample s = { .now_ns = now };

		if (!(watch & 1u << p))
			continue;
		rd_wd_start(rd, nd, p);
		tx_any |= rd_wd_sample(nd, &m->prio[p], p, have_nd_tx, nd_tx,
				       &s);
		n = pfcwd_step(&nd->wd[p], &wc, &s, ev, PFCWD_MAX_EVENTS);
		if (n < 0) {
			rd_log(LOG_ERR_, "%s: PFC watchdog, priority %u: %s",
			       nd->name, p, strerror(-n));
			continue;
		}
		rd_wd_events(rd, nd, &nd->wd[p], ev, n);
	}
	if (nd->wd_tx != (tx_any ? 2 : 1)) {
		if (tx_any)
			rd_log(LOG_INFO_, "%s: PFC watchdog: reads the transmit side (paused, paused time, packets sent per priority) from %s",
			       nd->name, rd_hw_find(rd, nd->name) ?
			       "the NIC's per-priority counters (ethtool)" :
			       "rocecc.ko's root qdisc");
		else
			rd_log(LOG_INFO_, "%s: PFC watchdog: no per-priority transmit side (rocecc.ko's root qdisc \"rocecc\" reports it): a storm is PFC frames received for detection_time while the netdev transmits nothing",
			       nd->name);
		nd->wd_tx = tx_any ? 2 : 1;
	}
}

/* ---- tuner ----------------------------------------------------------------- */

bool rd_pfctune_target(const struct rd *rd, struct rd_netdev *nd,
		       struct dcbnl_buffer *b)
{
	if (rd->conf.pfc_tune != RD_PFCTUNE_ON || !nd->tune_have)
		return false;
	if (memcmp(b->prio2buffer, nd->tune_p2b, sizeof(nd->tune_p2b))) {
		rd_log(LOG_INFO_, "%s: buffer tuner: prio2buffer changed, starting again from [pfc] buffer_size",
		       nd->name);
		nd->tune_have = false;
		memset(nd->tune, 0, sizeof(nd->tune));
		return false;
	}
	memcpy(b->buffer_size, nd->tune_size, sizeof(b->buffer_size));
	return true;
}

static uint64_t delta(uint64_t now, uint64_t was)
{
	return now >= was ? now - was : 0;	/* reset: nothing known */
}

/*
 * Set buffer @buf of @nd to @size (sizes over total_size taken from the
 * buffers in @lossy, largest first). 0 or -errno (logged).
 */
static int rd_tune_apply(struct rd *rd, struct rd_netdev *nd, unsigned int buf,
			 uint32_t size, uint8_t lossy)
{
	struct dcbnl_buffer b = nd->dcb.buf;
	struct dcbnl_ieee back;
	uint64_t sum = 0, over;
	unsigned int i;
	int err;

	b.buffer_size[buf] = size;
	for (i = 0; i < DCBNL_BUFFERS; i++)
		sum += b.buffer_size[i];
	while (b.total_size && sum > b.total_size) {
		unsigned int big = DCBNL_BUFFERS;

		for (i = 0; i < DCBNL_BUFFERS; i++)
			if ((lossy & 1u << i) && b.buffer_size[i] &&
			    (big == DCBNL_BUFFERS ||
			     b.buffer_size[i] > b.buffer_size[big]))
				big = i;
		if (big == DCBNL_BUFFERS) {
			rd_log(LOG_ERR_, "%s: buffer tuner: buffer %u at %u bytes would take the sizes to %" PRIu64 " bytes, over the total %u, and no lossy buffer has room to give",
			       nd->name, buf, size, sum, b.total_size);
			rd->pfc_errors++;
			return -ENOSPC;
		}
		over = sum - b.total_size;
		if (over > b.buffer_size[big])
			over = b.buffer_size[big];
		rd_log(LOG_INFO_, "%s: buffer tuner: lossy buffer %u %u -> %" PRIu64 " bytes to make room for buffer %u",
		       nd->name, big, b.buffer_size[big],
		       b.buffer_size[big] - over, buf);
		b.buffer_size[big] -= (uint32_t)over;
		sum -= over;
	}
	if (!rd_dcb_ready(rd))
		return -ENOTCONN;
	err = dcbnl_set_buffer(rd->dcb, nd->name, &b);
	if (err) {
		rd_log(LOG_ERR_, "%s: buffer tuner: setting DCB buffers: %s",
		       nd->name, dcbnl_errmsg(rd->dcb));
		rd->pfc_errors++;
		return err;
	}
	err = dcbnl_get(rd->dcb, nd->name, &back);
	if (err || !back.have_buffer) {
		rd_log(LOG_ERR_, "%s: buffer tuner: reading the buffers back: %s",
		       nd->name, err ? dcbnl_errmsg(rd->dcb) : "no buffers");
		rd->pfc_errors++;
		return err ? err : -EIO;
	}
	if (back.buf.buffer_size[buf] != size)
		rd_log(LOG_WARN_, "%s: buffer %u reads back %u bytes (set %u)",
		       nd->name, buf, back.buf.buffer_size[buf], size);
	nd->dcb = back;
	nd->dcb_have = true;
	if (nd->pfc_ok)
		nd->pfc_ref.buf = back.buf;
	nd->tune_have = true;
	memcpy(nd->tune_size, back.buf.buffer_size, sizeof(nd->tune_size));
	memcpy(nd->tune_p2b, back.buf.prio2buffer, sizeof(nd->tune_p2b));
	rd->pfc_changes++;
	return 0;
}

static void rd_tune_reset(struct rd_netdev *nd)
{
	nd->tune_last_ns = 0;
	nd->tune_have_mod = false;
	nd->tune_bufs = 0;
	memset(nd->tune, 0, sizeof(nd->tune));
	memset(nd->tune_held, 0, sizeof(nd->tune_held));
}

/* A pfc_tune event: buffer @b of @nd from @size to what @d says. */
static void rd_tune_event(struct rd *rd, const struct rd_netdev *nd,
			  unsigned int b, uint32_t size,
			  const struct pfctune_decision *d, bool dry_run)
{
	rd_event(rd, "pfc_tune", "netdev", rd_json_str(nd->name),
		 "buffer", json_object_new_int64(b),
		 "from", json_object_new_int64(size),
		 "to", json_object_new_int64(d->new_size),
		 "why", rd_json_str(pfctune_why_name(d->why)),
		 "dry_run", json_object_new_boolean(dry_run),
		 "reason", rd_json_str(d->reason), NULL);
}

/* The baselines of the next round */
static void rd_tune_base(struct rd_netdev *nd, const struct rd_mod_pfc *m,
			 uint64_t now)
{
	memcpy(nd->tune_req, nd->dcb.pfc.requests, sizeof(nd->tune_req));
	memcpy(nd->tune_ind, nd->dcb.pfc.indications, sizeof(nd->tune_ind));
	nd->tune_have_mod = m->have_stats;
	nd->tune_cnp_sent = m->cnp_sent;
	nd->tune_ce = m->ce_marked;
	nd->tune_cnp_handled = m->cnp_handled;
	nd->tune_last_ns = now;
}

/*
 * The headroom of @nd's lossless buffers (speed and mtu from [pfc] or the
 * netdev) into @r and @mtu; false, logged once, if the tuner cannot work.
 */
static bool rd_tune_headroom(const struct rd *rd, struct rd_netdev *nd,
			     struct headroom_result *r, unsigned int *mtu)
{
	const struct rd_conf *c = &rd->conf;
	struct headroom_params hp = { 0 };
	unsigned int speed;
	int err;

	speed = c->pfc_speed_mbps ? c->pfc_speed_mbps :
				     rd_sysfs_uint(nd->name, "speed");
	*mtu = c->pfc_mtu ? c->pfc_mtu : rd_sysfs_uint(nd->name, "mtu") + 22;
	if (*mtu < HEADROOM_MTU_MIN)
		*mtu = HEADROOM_MTU_MIN;
	if (*mtu > HEADROOM_MTU_MAX)
		*mtu = HEADROOM_MTU_MAX;
	hp.speed_mbps = speed;
	hp.mtu = *mtu;
	hp.cable_m = c->pfc_cable_m;
	err = speed ? headroom_calc(&hp, r) : -EINVAL;
	if (!err && nd->dcb.buf.total_size) {
		nd->tune_errlogged = false;
		return true;
	}
	if (!nd->tune_errlogged)
		rd_log(LOG_ERR_, "%s: buffer tuner: not tuning: %s", nd->name,
		       !nd->dcb.buf.total_size ?
		       "the device reports no total_size (the ceiling)" :
		       !speed ? "the link speed is unknown (set [pfc] speed)" :
		       "no headroom for this speed (set [pfc] speed to 10G, 25G, 40G, 50G, 100G, 200G or 400G)");
	nd->tune_errlogged = true;
	return false;
}

/*
 * The tuner's decision @d for buffer @b (of @size bytes): a dry run's
 * proposal, a change (@lossy: the buffers that may give the room), or a
 * hold that is logged once while it lasts.
 */
static void rd_tune_act(struct rd *rd, struct rd_netdev *nd, unsigned int b,
			uint32_t size, const struct pfctune_decision *d,
			uint8_t lossy)
{
	const char *why = pfctune_why_name(d->why);

	if (d->why == PFCTUNE_HOLD) {
		nd->tune_held[b] = 0;
		return;
	}
	if (d->proposal) {
		nd->tune_held[b] = 0;
		nd->tune_proposals[b]++;
		nd->tune_proposed[b] = d->new_size;
		rd_log(LOG_INFO_, "%s: buffer tuner (dry run): would %s buffer %u %u -> %u bytes: %s",
		       nd->name, why, b, size, d->new_size, d->reason);
		rd_tune_event(rd, nd, b, size, d, true);
	} else if (d->changed) {
		nd->tune_held[b] = 0;
		if (rd_tune_apply(rd, nd, b, d->new_size, lossy))
			return;
		nd->tune_changes[b][d->new_size < size]++;
		rd_log(LOG_INFO_, "%s: buffer tuner: %s buffer %u %u -> %u bytes: %s",
		       nd->name, why, b, size, d->new_size, d->reason);
		rd_tune_event(rd, nd, b, size, d, false);
	} else if (nd->tune_held[b] != 1 + d->why) {
		/* a change that is due but held (rate limit, at a bound):
		 * logged once, not every interval it lasts */
		nd->tune_held[b] = (uint8_t)(1 + d->why);
		rd_log(LOG_INFO_, "%s: buffer tuner, buffer %u at %u bytes: %s: %s (logged once while it lasts)",
		       nd->name, b, size, why, d->reason);
	}
}

/*
 * One lossless buffer @b: its ceiling (what the other lossless buffers
 * leave of total_size), its PFC frames since the last round into @in,
 * pfctune_step() and what it decides.
 */
static void rd_tune_buffer(struct rd *rd, struct rd_netdev *nd,
			   unsigned int b, struct pfctune_conf *tc,
			   struct pfctune_in *in, uint8_t lossless,
			   uint8_t used)
{
	const struct rd_conf *c = &rd->conf;
	const struct dcbnl_buffer *cur = &nd->dcb.buf;
	struct pfctune_decision d;
	uint64_t others = 0;
	unsigned int o, p;
	int err;

	for (o = 0; o < DCBNL_BUFFERS; o++)
		if (o != b && (lossless & 1u << o))
			others += cur->buffer_size[o];
	tc->max_size = others >= cur->total_size ? 0 :
		       (uint32_t)(cur->total_size - others);
	in->requests = in->indications = 0;
	for (p = 0; p < DCBNL_PRIOS; p++)
		if ((c->pfc_en & 1u << p) && cur->prio2buffer[p] == b) {
			in->requests += delta(nd->dcb.pfc.requests[p],
					      nd->tune_req[p]);
			in->indications += delta(nd->dcb.pfc.indications[p],
						 nd->tune_ind[p]);
		}
	in->size = cur->buffer_size[b];
	err = pfctune_step(&nd->tune[b], tc, in, &d);
	if (err) {
		if (!nd->tune_errlogged)
			rd_log(LOG_ERR_, "%s: buffer tuner, buffer %u: %s",
			       nd->name, b, err == -ERANGE ? d.reason :
			       strerror(-err));
		nd->tune_errlogged = true;
		return;
	}
	rd_tune_act(rd, nd, b, in->size, &d,
		    (uint8_t)(used & ~lossless) | (uint8_t)~used);
}

static void rd_tune_poll(struct rd *rd, struct rd_netdev *nd,
			 const struct rd_mod_pfc *m, uint64_t now)
{
	const struct rd_conf *c = &rd->conf;
	const struct dcbnl_buffer *cur = &nd->dcb.buf;
	struct pfctune_in in = { .now_ns = now };
	struct pfctune_conf tc;
	struct headroom_result r;
	uint8_t lossless = 0, used = 0;
	unsigned int p, b, mtu;

	if (!nd->dcb.have_buffer)
		return;
	if (!nd->tune_last_ns || now < nd->tune_last_ns) {
		rd_tune_base(nd, m, now);
		return;
	}
	if (now - nd->tune_last_ns < c->pfc_tune_ivl_ms * 1000000ULL)
		return;
	if (!rd_tune_headroom(rd, nd, &r, &mtu)) {
		rd_tune_base(nd, m, now);
		return;
	}
	for (p = 0; p < DCBNL_PRIOS; p++) {
		b = cur->prio2buffer[p];
		if (b >= DCBNL_BUFFERS)
			continue;
		used |= (uint8_t)(1u << b);
		if (c->pfc_en & 1u << p)
			lossless |= (uint8_t)(1u << b);
	}
	nd->tune_bufs = lossless;
	in.interval_ns = now - nd->tune_last_ns;
	if (m->have_stats && nd->tune_have_mod) {
		in.cnp_sent = delta(m->cnp_sent, nd->tune_cnp_sent);
		in.ce_marks = delta(m->ce_marked, nd->tune_ce);
		in.cnp_recv = delta(m->cnp_handled, nd->tune_cnp_handled);
	}
	in.tail_ns = nd->tail_samples ? nd->tail_ns : 0;
	in.headroom = r.xoff > UINT32_MAX ? UINT32_MAX : (uint32_t)r.xoff;
	tc = (struct pfctune_conf){
		.min_size = c->pfc_tune_min_size,
		.mtu = mtu,
		.cell = r.cell,
		.up_pct = c->pfc_tune_up_pct,
		.down_pct = c->pfc_tune_down_pct,
		.max_step = c->pfc_tune_max_step,
		.hold_up = c->pfc_tune_hold_up,
		.hold_down = c->pfc_tune_hold_down,
		.min_change_ns = c->pfc_tune_min_change_ms * 1000000ULL,
		.pause_hi_pps = c->pfc_tune_pause_hi,
		.ecn_lo_pps = c->pfc_tune_ecn_lo,
		.target_latency_ns = c->pfc_tune_lat_us * 1000ULL,
		.dry_run = c->pfc_tune == RD_PFCTUNE_DRY_RUN,
	};
	for (b = 0; b < DCBNL_BUFFERS; b++)
		if (lossless & 1u << b)
			rd_tune_buffer(rd, nd, b, &tc, &in, lossless, used);
	rd_tune_base(nd, m, now);
}

/* ---- the poll -------------------------------------------------------------- */

void rd_pfcwd_poll(struct rd *rd, struct rd_netdev *nd)
{
	const struct rd_conf *c = &rd->conf;
	bool sel = rd_pfc_selected(rd, nd);
	bool have = nd->dcb_have && nd->dcb.have_pfc;
	bool wd = sel && rd_conf_pfcwd_on(c);
	bool tune = sel && c->pfc_tune != RD_PFCTUNE_OFF;
	struct rd_mod_pfc m;
	uint64_t now;

	if (!have) {
		/* a read error: keep everything for the next poll */
		if (!nd->pfc_nodcb && (!nd->dcb_have || nd->dcb.have_pfc))
			return;
		/* no DCB (rocecc.ko detached: its DCB state is gone with it,
		 * and [pfc] is applied afresh when it comes back) */
		nd->wd_active = 0;
		nd->wd_disabled = 0;
		nd->tune_have = false;
		rd_tune_reset(nd);
		return;
	}
	if (!wd && (nd->wd_active || nd->wd_disabled))
		rd_wd_stop(rd, nd, !sel ? "the netdev left [pfc] devices" :
			   "[pfc] watchdog is off");
	if (!tune) {
		nd->tune_have = false;
		rd_tune_reset(nd);
	} else if (c->pfc_tune != RD_PFCTUNE_ON) {
		nd->tune_have = false;
	}
	if (!wd && !tune)
		return;
	/*
	 * The sample's time: just before the module reads its counters.
	 * The watchdog compares the paused time the module accumulated
	 * between two reads with the time between two samples to 1%
	 * (PFCWD_PAUSED_PCT), i.e. 1 ms in 100: taken after the reply, the
	 * time would carry the reply's scheduling jitter, which under load
	 * (or TCG) is that large and makes a continuous pause look partial.
	 */
	now = mono_ns();
	/* a NIC with DCQCN in firmware counts per priority itself (hw.c) */
	if (!rd_hw_pfc(rd, nd->name, &m))
		rd_mod_pfc_get(rd, nd, &m);	/* absent: all zero */
	if (wd)
		rd_wd_poll(rd, nd, &m, now);
	if (tune)
		rd_tune_poll(rd, nd, &m, now);
}

void rd_pfcwd_release(struct rd *rd, struct rd_netdev *nd)
{
	if (nd->wd_disabled && nd->dcb_have)
		rd_wd_stop(rd, nd, "roceccd is stopping: nobody would restore it");
}

/* ---- /metrics -------------------------------------------------------------- */

/* The watchdog's families: per netdev and watched priority. */
static void rd_wd_metrics(struct rd *rd, FILE *f)
{
	static const enum rd_family wfam[] = {
		RDF_PFCWD_STATE, RDF_PFCWD_STORMS, RDF_PFCWD_RESTORATIONS,
		RDF_PFCWD_PFC_DISABLED,
	};
	char esc[RD_TEXT_MAX(IF_NAMESIZE)];
	unsigned int k, p;
	size_t i;

	for (k = 0; k < sizeof(wfam) / sizeof(wfam[0]); k++) {
		rd_prom_family(f, wfam[k]);
		for (i = 0; i < rd->nnds; i++) {
			const struct rd_netdev *nd = &rd->nds[i];

			rd_prom_escape(nd->name, esc, sizeof(esc));
			for (p = 0; p < DCBNL_PRIOS; p++) {
				const struct pfcwd_prio *w = &nd->wd[p];
				uint64_t v;

				if (!(nd->wd_active & 1u << p))
					continue;
				v = k == 0 ? (uint64_t)w->state :
				    k == 1 ? w->storms_detected :
				    k == 2 ? w->restorations :
					     !!(nd->wd_disabled & 1u << p);
				fprintf(f, "%s{netdev=\"%s\",prio=\"%u\"} %" PRIu64 "\n",
					rd_fam(wfam[k]), esc, p, v);
			}
		}
	}
}

/* The buffer tuner's families: per netdev and tuned buffer. */
static void rd_tune_metrics(struct rd *rd, FILE *f)
{
	char esc[RD_TEXT_MAX(IF_NAMESIZE)];
	unsigned int b;
	size_t i;

	rd_prom_family(f, RDF_PFCTUNE_BUFFER_BYTES);
	for (i = 0; i < rd->nnds; i++) {
		const struct rd_netdev *nd = &rd->nds[i];

		if (!nd->dcb_have || !nd->dcb.have_buffer)
			continue;
		rd_prom_escape(nd->name, esc, sizeof(esc));
		for (b = 0; b < DCBNL_BUFFERS; b++)
			if (nd->tune_bufs & 1u << b)
				fprintf(f, "%s{netdev=\"%s\",buffer=\"%u\"} %u\n",
					rd_fam(RDF_PFCTUNE_BUFFER_BYTES), esc,
					b, nd->dcb.buf.buffer_size[b]);
	}
	rd_prom_family(f, RDF_PFCTUNE_CHANGES);
	for (i = 0; i < rd->nnds; i++) {
		const struct rd_netdev *nd = &rd->nds[i];

		rd_prom_escape(nd->name, esc, sizeof(esc));
		for (b = 0; b < DCBNL_BUFFERS; b++) {
			if (!(nd->tune_bufs & 1u << b) &&
			    !nd->tune_changes[b][0] && !nd->tune_changes[b][1])
				continue;
			fprintf(f, "%s{netdev=\"%s\",buffer=\"%u\",dir=\"up\"} %" PRIu64 "\n"
				   "%s{netdev=\"%s\",buffer=\"%u\",dir=\"down\"} %" PRIu64 "\n",
				rd_fam(RDF_PFCTUNE_CHANGES), esc, b,
				nd->tune_changes[b][0],
				rd_fam(RDF_PFCTUNE_CHANGES), esc, b,
				nd->tune_changes[b][1]);
		}
	}
	rd_prom_family(f, RDF_PFCTUNE_PROPOSALS);
	for (i = 0; i < rd->nnds; i++) {
		const struct rd_netdev *nd = &rd->nds[i];

		rd_prom_escape(nd->name, esc, sizeof(esc));
		for (b = 0; b < DCBNL_BUFFERS; b++)
			if ((nd->tune_bufs & 1u << b) || nd->tune_proposals[b])
				fprintf(f, "%s{netdev=\"%s\",buffer=\"%u\"} %" PRIu64 "\n",
					rd_fam(RDF_PFCTUNE_PROPOSALS), esc, b,
					nd->tune_proposals[b]);
	}
	rd_prom_family(f, RDF_PFCTUNE_PROPOSED_BYTES);
	for (i = 0; i < rd->nnds; i++) {
		const struct rd_netdev *nd = &rd->nds[i];

		rd_prom_escape(nd->name, esc, sizeof(esc));
		for (b = 0; b < DCBNL_BUFFERS; b++)
			if (nd->tune_proposals[b])
				fprintf(f, "%s{netdev=\"%s\",buffer=\"%u\"} %u\n",
					rd_fam(RDF_PFCTUNE_PROPOSED_BYTES), esc,
					b, nd->tune_proposed[b]);
	}
	rd_prom_family(f, RDF_PFCTUNE_TAIL);
	for (i = 0; i < rd->nnds; i++) {
		const struct rd_netdev *nd = &rd->nds[i];

		if (!nd->tail_samples || !nd->tune_bufs)
			continue;
		rd_prom_escape(nd->name, esc, sizeof(esc));
		fprintf(f, "%s{netdev=\"%s\"} %.9f\n", rd_fam(RDF_PFCTUNE_TAIL),
			esc, (double)nd->tail_ns / 1e9);
	}
}

void rd_pfcwd_metrics(struct rd *rd, FILE *f)
{
	rd_wd_metrics(rd, f);
	rd_tune_metrics(rd, f);
}
