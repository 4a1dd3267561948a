// SPDX-License-Identifier: GPL-2.0
/*
 * PFC watchdog: the state machine of one (netdev, priority). See pfcwd.h
 * for what is detected and why; this is how.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pfcwd.h"

#define NSEC_PER_MSEC	1000000ULL

void pfcwd_init(struct pfcwd_prio *s, unsigned int prio)
{
	memset(s, 0, sizeof(*s));
	s->prio = prio;
	s->state = PFCWD_OK;
}

const char *pfcwd_state_name(enum pfcwd_state st)
{
	switch (st) {
	case PFCWD_OK:		return "ok";
	case PFCWD_STORM:	return "storm";
	case PFCWD_OFF:		return "off";
	}
	return "?";
}

const char *pfcwd_ev_name(enum pfcwd_ev_kind k)
{
	static const char *const names[] = {
		[PFCWD_EV_STORM] = "storm",
		[PFCWD_EV_DISABLE_PFC] = "disable_pfc",
		[PFCWD_EV_ENABLE_PFC] = "enable_pfc",
		[PFCWD_EV_RESTORED] = "restored",
		[PFCWD_EV_RESET] = "reset",
		[PFCWD_EV_GAP] = "gap",
		[PFCWD_EV_OPER_OFF] = "oper_off",
		[PFCWD_EV_OPER_ON] = "oper_on",
		[PFCWD_EV_OVERRIDE] = "override",
	};

	if ((unsigned int)k < sizeof(names) / sizeof(names[0]) && names[k])
		return names[k];
	return "?";
}

/* "1500 ms", or "1500.250 ms" when not a whole millisecond */
static const char *ms(char *buf, size_t len, uint64_t ns)
{
	if (ns % NSEC_PER_MSEC)
		snprintf(buf, len, "%llu.%03llu ms",
			 (unsigned long long)(ns / NSEC_PER_MSEC),
			 (unsigned long long)(ns % NSEC_PER_MSEC / 1000));
	else
		snprintf(buf, len, "%llu ms",
			 (unsigned long long)(ns / NSEC_PER_MSEC));
	return buf;
}

struct evbuf {
	struct pfcwd_event *ev;
	size_t max;
	int n;
};

static void add_ev(struct evbuf *b, enum pfcwd_ev_kind kind,
		   const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add_ev(struct evbuf *b, enum pfcwd_ev_kind kind,
		   const char *fmt, ...)
{
	va_list ap;

	if ((size_t)b->n < b->max) {
		struct pfcwd_event *e = &b->ev[b->n];

		e->kind = kind;
		va_start(ap, fmt);
		vsnprintf(e->reason, sizeof(e->reason), fmt, ap);
		va_end(ap);
	}
	b->n++;
}

/* Did a cumulative counter (or the clock) go backwards, or the evidence
 * available change? Names the first culprit. */
static const char *went_back(const struct pfcwd_sample *p,
			     const struct pfcwd_sample *c)
{
	if (c->now_ns < p->now_ns)
		return "time";
	if (c->have != p->have)
		return "available counters";
	if (c->indications < p->indications)
		return "PFC indications";
	if ((c->have & PFCWD_HAVE_PAUSE_NS) && c->pause_ns < p->pause_ns)
		return "pause time";
	if (c->tx_bytes < p->tx_bytes)
		return "tx bytes";
	if (c->tx_packets < p->tx_packets)
		return "tx packets";
	return NULL;
}

/*
 * floor((100 - PFCWD_PAUSED_PCT) * dt / 100) without overflow: an
 * interval is paused throughout if unpaused for at most this long
 */
static uint64_t unpaused_max(uint64_t dt)
{
	const uint64_t k = 100 - PFCWD_PAUSED_PCT;

	return dt / 100 * k + dt % 100 * k / 100;
}

static void clocks_off(struct pfcwd_prio *s)
{
	s->stall_on = false;
	s->quiet_on = false;
}

/*
 * PFC switched on or off by someone else (or our own switch undone): true
 * if that is all this step is about.
 */
static bool oper_change(struct pfcwd_prio *s, const struct pfcwd_sample *in,
			struct evbuf *b)
{
	if (s->state == PFCWD_OFF) {
		if (in->pfc_enabled) {
			s->state = PFCWD_OK;
			clocks_off(s);
			add_ev(b, PFCWD_EV_OPER_ON,
			       "prio %u: PFC enabled again (not by the watchdog): watching",
			       s->prio);
		}
		return true;
	}
	if (s->we_disabled && in->pfc_enabled) {
		s->we_disabled = false;
		s->state = PFCWD_OK;
		clocks_off(s);
		add_ev(b, PFCWD_EV_OVERRIDE,
		       "prio %u: PFC enabled during storm mitigation (not by the watchdog, or our disable was not applied): watching again",
		       s->prio);
		return true;
	}
	if (!in->pfc_enabled && !s->we_disabled) {
		add_ev(b, PFCWD_EV_OPER_OFF,
		       "prio %u: PFC disabled (not by the watchdog)%s: not watched until enabled again",
		       s->prio, s->state == PFCWD_STORM ?
		       " during a storm, which ends unrestored" : "");
		s->state = PFCWD_OFF;
		clocks_off(s);
		return true;
	}
	return false;
}

/* What changed since the last poll. */
struct delta {
	uint64_t dt, ind, pause;	/* ns, PFC frames received, ns paused */
	bool progress;			/* bytes or packets sent */
};

/*
 * Was the priority paused throughout the interval without transmit
 * progress? *@trusted false: it looks so, but the interval is longer than
 * max_gap and without a pause-time counter a continuous pause cannot be
 * told from two.
 */
static bool stalled(const struct pfcwd_sample *p, const struct pfcwd_sample *in,
		    const struct delta *d, uint64_t max_gap, bool *trusted)
{
	*trusted = true;
	if (d->progress)
		return false;
	if (in->have & PFCWD_HAVE_PAUSE_NS)
		/*
		 * 100 * d_pause >= 99 * dt, i.e. unpaused for at most 1%:
		 * 100 * (dt - d_pause) <= dt, without overflow
		 */
		return d->dt && (d->pause >= d->dt ||
				 d->dt - d->pause <= unpaused_max(d->dt));
	*trusted = d->dt <= max_gap;
	if (in->have & PFCWD_HAVE_PAUSED)
		return p->paused && in->paused;
	return d->ind;
}

/* PFCWD_OK: a stall that lasts detection_time is a storm. */
static void watch(struct pfcwd_prio *s, const struct pfcwd_conf *c,
		  const struct pfcwd_sample *in, const struct delta *d,
		  struct evbuf *b)
{
	const struct pfcwd_sample *p = &s->prev;
	uint64_t max_gap = c->max_gap_ns ? c->max_gap_ns : c->detection_ns;
	char t1[32], t2[32];
	bool trusted;

	if (!stalled(p, in, d, max_gap, &trusted)) {
		s->stall_on = false;
		return;
	}
	if (!trusted) {
		s->stall_on = false;
		add_ev(b, PFCWD_EV_GAP,
		       "prio %u: %s between polls (max_gap %s): cannot tell a continuous pause, detection clock restarted",
		       s->prio, ms(t1, sizeof(t1), d->dt),
		       ms(t2, sizeof(t2), max_gap));
		return;
	}
	if (!s->stall_on) {
		s->stall_on = true;
		s->stall_start_ns = p->now_ns;
		s->storm_ind = p->indications;
	}
	if (in->now_ns - s->stall_start_ns < c->detection_ns)
		return;
	s->state = PFCWD_STORM;
	s->storm_ns = in->now_ns;
	s->storms_detected++;
	clocks_off(s);
	add_ev(b, PFCWD_EV_STORM,
	       "prio %u: PFC storm: paused with no transmit progress for %s (detection_time %s), %llu PFC frames received meanwhile",
	       s->prio, ms(t1, sizeof(t1), in->now_ns - s->stall_start_ns),
	       ms(t2, sizeof(t2), c->detection_ns),
	       (unsigned long long)(in->indications - s->storm_ind));
	if (c->action == PFCWD_ACTION_DISABLE) {
		s->we_disabled = true;
		add_ev(b, PFCWD_EV_DISABLE_PFC,
		       "prio %u: disable PFC (pfcwd action disable) until no PFC frame for %s",
		       s->prio, ms(t1, sizeof(t1), c->restoration_ns));
	}
}

/* PFCWD_STORM: no PFC frame for restoration_time ends it. */
static void restore(struct pfcwd_prio *s, const struct pfcwd_conf *c,
		    const struct pfcwd_sample *in, const struct delta *d,
		    struct evbuf *b)
{
	bool quiet = !d->ind && !((in->have & PFCWD_HAVE_PAUSED) && in->paused) &&
		     !d->pause;
	char t1[32], t2[32], t3[32];

	if (!quiet) {
		s->quiet_on = false;
		return;
	}
	if (!s->quiet_on) {
		s->quiet_on = true;
		s->quiet_start_ns = s->prev.now_ns;
	}
	if (in->now_ns - s->quiet_start_ns < c->restoration_ns)
		return;
	if (s->we_disabled) {
		s->we_disabled = false;
		add_ev(b, PFCWD_EV_ENABLE_PFC,
		       "prio %u: enable PFC again: no PFC frame for %s (restoration_time %s)",
		       s->prio, ms(t1, sizeof(t1), in->now_ns - s->quiet_start_ns),
		       ms(t2, sizeof(t2), c->restoration_ns));
	}
	s->state = PFCWD_OK;
	s->restorations++;
	clocks_off(s);
	add_ev(b, PFCWD_EV_RESTORED,
	       "prio %u: PFC storm over, %s after detection: no PFC frame for %s (restoration_time %s), %llu PFC frames received since it began",
	       s->prio, ms(t1, sizeof(t1), in->now_ns - s->storm_ns),
	       ms(t2, sizeof(t2), in->now_ns - s->quiet_start_ns),
	       ms(t3, sizeof(t3), c->restoration_ns),
	       (unsigned long long)(in->indications - s->storm_ind));
}

int pfcwd_step(struct pfcwd_prio *s, const struct pfcwd_conf *c,
	       const struct pfcwd_sample *in, struct pfcwd_event *ev,
	       size_t max)
{
	const struct pfcwd_sample *p = &s->prev;
	struct evbuf b = { .ev = ev, .max = max };
	struct delta d = { 0 };
	const char *back;

	if (!c->detection_ns || !c->restoration_ns)
		return -EINVAL;
	if (!s->have_prev) {
		if (!in->pfc_enabled)
			s->state = PFCWD_OFF;
		goto out;
	}
	if (oper_change(s, in, &b))
		goto out;
	back = went_back(p, in);
	if (back) {
		s->resets++;
		clocks_off(s);
		add_ev(&b, PFCWD_EV_RESET,
		       "prio %u: %s went backwards (device re-attached, counters cleared or wrapped): new baseline, detection and restoration clocks restarted",
		       s->prio, back);
		goto out;
	}
	d.dt = in->now_ns - p->now_ns;
	d.ind = in->indications - p->indications;
	if (in->have & PFCWD_HAVE_PAUSE_NS)
		d.pause = in->pause_ns - p->pause_ns;
	d.progress = in->tx_bytes != p->tx_bytes ||
		     in->tx_packets != p->tx_packets;
	if (s->state == PFCWD_OK)
		watch(s, c, in, &d, &b);
	else if (s->state == PFCWD_STORM)
		restore(s, c, in, &d, &b);
out:
	s->prev = *in;
	s->have_prev = true;
	return b.n;
}
