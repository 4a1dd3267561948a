// SPDX-License-Identifier: GPL-2.0
/*
 * roceccd: IEEE PFC and DCB buffers of the RoCE netdevs over DCB netlink
 * (lib/dcbnl.h). Every poll reads each netdev's PFC and buffers once (one
 * DCB_CMD_IEEE_GET: /metrics shows that reading), and applies the [pfc]
 * section of the configuration (config.h):
 *  - when the netdev is first found (discovered, or adopted with rocecc.ko
 *    already attached),
 *  - when its DCB appears (rocecc.ko's software DCB comes with attaching
 *    the module; before that the netdev answers EOPNOTSUPP), also again
 *    after the module was detached and attached (its DCB state does not
 *    survive a detach),
 *  - after every reload (a new configuration generation).
 * Each change is logged with what asked for it and why now; the device is
 * then read back, and a value that did not stick is logged as an error.
 * A netdev without DCB is logged once and left alone. What failed is not
 * retried every poll (it would fail again), only at the next generation.
 * The configuration file is the source of truth (as for [module] attach,
 * which attaches a detached netdev again): when a value that [pfc] sets
 * no longer reads as it did after the last successful apply (changed by
 * hand with rocecc pfc set or dcb, or the DCB state was reset, e.g.
 * rocecc.ko detached and attached again), it is applied again at the next
 * poll, logged as such. Comparing with the read-back value, not the
 * configured one, keeps a driver that rounds buffer sizes from looping.
 * Nothing is undone on exit: the configuration file is the source of
 * truth and is applied again at the next start.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "lib/dcbnl.h"
#include "lib/format.h"
#include "policy/headroom.h"
#include "roceccd.h"

/* An integer from /sys/class/net/@dev/@attr, or 0. */
unsigned int rd_sysfs_uint(const char *dev, const char *attr)
{
	char path[128];
	long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", dev, attr);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%ld", &v) != 1 || v < 0 || v > 0x7fffffff)
		v = 0;		/* speed is -1 when unknown */
	fclose(f);
	return (unsigned int)v;
}

bool rd_dcb_ready(struct rd *rd)
{
	int err;

	if (rd->dcb)
		return true;
	err = dcbnl_open(&rd->dcb);
	if (err) {
		if (!rd->dcb_open_logged)
			rd_log(LOG_ERR_, "DCB netlink: cannot open an rtnetlink socket: %s",
			       strerror(-err));
		rd->dcb_open_logged = true;
		rd->pfc_errors++;
		return false;
	}
	return true;
}

void rd_dcb_close(struct rd *rd)
{
	dcbnl_close(rd->dcb);
	rd->dcb = NULL;
}

/* Log the differences between @was and @now, with the key and @why. */
static unsigned int log_pfc(const struct rd_netdev *nd,
			    const struct ieee_pfc *was,
			    const struct ieee_pfc *now, const char *why)
{
	char a[32], b[32];
	unsigned int n = 0;

	if (was->pfc_en != now->pfc_en) {
		rd_log(LOG_INFO_, "%s: PFC priorities %s -> %s ([pfc] priorities; %s)",
		       nd->name, dcbnl_prio_str(was->pfc_en, a, sizeof(a)),
		       dcbnl_prio_str(now->pfc_en, b, sizeof(b)), why);
		n++;
	}
	if (was->delay != now->delay) {
		rd_log(LOG_INFO_, "%s: PFC delay %u -> %u bits ([pfc] delay; %s)",
		       nd->name, was->delay, now->delay, why);
		n++;
	}
	if (was->mbc != now->mbc) {
		rd_log(LOG_INFO_, "%s: PFC mbc %s -> %s ([pfc] mbc; %s)", nd->name,
		       was->mbc ? "on" : "off", now->mbc ? "on" : "off", why);
		n++;
	}
	return n;
}

static unsigned int log_buf(const struct rd *rd, const struct rd_netdev *nd,
			    const struct dcbnl_buffer *was,
			    const struct dcbnl_buffer *now, const char *why,
			    unsigned int speed, unsigned int mtu)
{
	const struct rd_conf *c = &rd->conf;
	char src[160];
	unsigned int n = 0;
	int i;

	for (i = 0; i < DCBNL_PRIOS; i++)
		if (was->prio2buffer[i] != now->prio2buffer[i]) {
			rd_log(LOG_INFO_, "%s: priority %d buffer %u -> %u ([pfc] prio2buffer; %s)",
			       nd->name, i, was->prio2buffer[i],
			       now->prio2buffer[i], why);
			n++;
		}
	if (c->pfc_size_auto)
		snprintf(src, sizeof(src),
			 "[pfc] buffer_size = auto: headroom for %u Mb/s, frames up to %u B, cable %g m",
			 c->pfc_speed_mbps ? c->pfc_speed_mbps : speed,
			 c->pfc_mtu ? c->pfc_mtu : mtu + 22, c->pfc_cable_m);
	else
		snprintf(src, sizeof(src), "[pfc] buffer_size");
	for (i = 0; i < DCBNL_BUFFERS; i++)
		if (was->buffer_size[i] != now->buffer_size[i]) {
			rd_log(LOG_INFO_, "%s: buffer %d size %u -> %u bytes (%s; %s)",
			       nd->name, i, was->buffer_size[i],
			       now->buffer_size[i], src, why);
			n++;
		}
	return n;
}

/*
 * Do the values that [pfc] governs differ between @a and @ref? The
 * priorities whose PFC the watchdog holds off (@wd) do not count: they
 * are off on purpose, and come back when the storm is over.
 */
static bool drifted(const struct rd_conf *c, const struct dcbnl_ieee *a,
		    const struct dcbnl_ieee *ref, uint8_t wd)
{
	if (a->have_pfc != ref->have_pfc || a->have_buffer != ref->have_buffer)
		return true;
	if (a->have_pfc &&
	    ((c->pfc_prio_set &&
	      (a->pfc.pfc_en & ~wd) != (ref->pfc.pfc_en & ~wd)) ||
	     (c->pfc_delay >= 0 && a->pfc.delay != ref->pfc.delay) ||
	     (c->pfc_mbc >= 0 && a->pfc.mbc != ref->pfc.mbc)))
		return true;
	if (a->have_buffer &&
	    ((c->pfc_p2b_mask &&
	      memcmp(a->buf.prio2buffer, ref->buf.prio2buffer,
		     sizeof(a->buf.prio2buffer))) ||
	     ((c->pfc_size_mask || c->pfc_size_auto) &&
	      memcmp(a->buf.buffer_size, ref->buf.buffer_size,
		     sizeof(a->buf.buffer_size)))))
		return true;
	return false;
}

/*
 * The watchdog and the tuner (pfcwd.c) own some of these values for a
 * while: a priority whose PFC the watchdog turned off stays off until the
 * storm is over (it turns it on again itself), and with tune = on the
 * tuner's buffer sizes are the target ([pfc] buffer_size is only where it
 * starts). @ch: rd_pfc_target()'s change bits for @p and @b, corrected.
 */
static int rd_pfc_owned(struct rd *rd, struct rd_netdev *nd,
			const struct dcbnl_ieee *cur, struct ieee_pfc *p,
			struct dcbnl_buffer *b, int ch)
{
	char a[32];

	if (cur->have_pfc && (p->pfc_en & nd->wd_disabled)) {
		rd_log(LOG_INFO_, "%s: PFC stays off on priority %s: the PFC watchdog holds it off until the storm is over",
		       nd->name, dcbnl_prio_str(p->pfc_en & nd->wd_disabled, a,
						sizeof(a)));
		p->pfc_en &= (uint8_t)~nd->wd_disabled;
		if (!memcmp(p, &cur->pfc, sizeof(*p)))
			ch &= ~RD_PFC_CHANGE_PFC;
	}
	if (cur->have_buffer && rd_pfctune_target(rd, nd, b)) {
		rd_log(LOG_INFO_, "%s: buffer sizes: the tuner's (tune = on), not [pfc] buffer_size",
		       nd->name);
		if (!memcmp(b, &cur->buf, sizeof(*b)))
			ch &= ~RD_PFC_CHANGE_BUF;
		else
			ch |= RD_PFC_CHANGE_BUF;
	}
	return ch;
}

/*
 * After setting @p (if @ch has RD_PFC_CHANGE_PFC) and @b (if it has
 * RD_PFC_CHANGE_BUF): read the device back; what did not stick is an
 * error, and nd->pfc_ok false (no re-apply loop). A buffer's size may
 * read back rounded to the driver's cells.
 */
static void rd_pfc_verify(struct rd *rd, struct rd_netdev *nd, int ch,
			  const struct ieee_pfc *p, const struct dcbnl_buffer *b,
			  bool bad)
{
	struct dcbnl_ieee back;
	char a[32], w[32];
	int i;

	if (dcbnl_get(rd->dcb, nd->name, &back)) {
		rd_log(LOG_ERR_, "%s: reading PFC back: %s", nd->name,
		       dcbnl_errmsg(rd->dcb));
		rd->pfc_errors++;
		return;
	}
	nd->dcb = back;
	nd->pfc_ok = !bad;
	nd->pfc_ref = back;
	if ((ch & RD_PFC_CHANGE_PFC) &&
	    (!back.have_pfc || back.pfc.pfc_en != p->pfc_en ||
	     back.pfc.delay != p->delay || back.pfc.mbc != p->mbc)) {
		rd_log(LOG_ERR_, "%s: PFC reads back priorities %s delay %u mbc %s, not %s %u %s as set",
		       nd->name, dcbnl_prio_str(back.pfc.pfc_en, a, sizeof(a)),
		       back.pfc.delay, back.pfc.mbc ? "on" : "off",
		       dcbnl_prio_str(p->pfc_en, w, sizeof(w)), p->delay,
		       p->mbc ? "on" : "off");
		rd->pfc_errors++;
		nd->pfc_ok = false;
	}
	if (!(ch & RD_PFC_CHANGE_BUF))
		return;
	for (i = 0; i < DCBNL_PRIOS; i++)
		if (!back.have_buffer ||
		    back.buf.prio2buffer[i] != b->prio2buffer[i]) {
			rd_log(LOG_ERR_, "%s: priority %d reads back in buffer %u, not %u as set",
			       nd->name, i, back.buf.prio2buffer[i],
			       b->prio2buffer[i]);
			rd->pfc_errors++;
			nd->pfc_ok = false;
			break;
		}
	for (i = 0; i < DCBNL_BUFFERS && back.have_buffer; i++)
		if (back.buf.buffer_size[i] != b->buffer_size[i])
			rd_log(LOG_WARN_, "%s: buffer %d reads back %u bytes (set %u)",
			       nd->name, i, back.buf.buffer_size[i],
			       b->buffer_size[i]);
}

/* Apply [pfc] to @nd, whose current state is @cur; @why: the occasion. */
static void rd_pfc_apply(struct rd *rd, struct rd_netdev *nd,
			 const struct dcbnl_ieee *cur, const char *why)
{
	struct ieee_pfc p = cur->pfc;
	struct dcbnl_buffer b = cur->buf;
	unsigned int speed = rd_sysfs_uint(nd->name, "speed");
	unsigned int mtu = rd_sysfs_uint(nd->name, "mtu");
	unsigned int n = 0;
	bool bad = false;
	char err[256];
	int ch;

	nd->pfc_ok = false;
	ch = rd_pfc_target(&rd->conf, speed, mtu, &p, cur->have_pfc, &b,
			   cur->have_buffer, err, sizeof(err));
	if (ch < 0) {
		rd_log(LOG_ERR_, "%s: [pfc] not applied: %s", nd->name, err);
		rd->pfc_errors++;
		return;
	}
	ch = rd_pfc_owned(rd, nd, cur, &p, &b, ch);
	if (!ch) {
		rd_log(LOG_INFO_, "%s: PFC and buffers already as configured (%s)",
		       nd->name, why);
		nd->pfc_ok = true;
		nd->pfc_ref = *cur;
		return;
	}
	/* buffers first: a driver may check a lossless buffer's size when
	 * PFC is turned on for its priorities */
	if (ch & RD_PFC_CHANGE_BUF) {
		n += log_buf(rd, nd, &cur->buf, &b, why, speed, mtu);
		if (dcbnl_set_buffer(rd->dcb, nd->name, &b)) {
			rd_log(LOG_ERR_, "%s: setting DCB buffers: %s%s", nd->name,
			       dcbnl_errmsg(rd->dcb),
			       ch & RD_PFC_CHANGE_PFC ? "; PFC is set all the same" : "");
			rd->pfc_errors++;
			ch &= ~RD_PFC_CHANGE_BUF;
			n = 0;
			bad = true;
		}
	}
	if (ch & RD_PFC_CHANGE_PFC) {
		n += log_pfc(nd, &cur->pfc, &p, why);
		if (dcbnl_set_pfc(rd->dcb, nd->name, &p)) {
			rd_log(LOG_ERR_, "%s: setting PFC: %s", nd->name,
			       dcbnl_errmsg(rd->dcb));
			rd->pfc_errors++;
			return;
		}
	}
	if (!ch)
		return;
	rd->pfc_changes += n;
	rd_event(rd, "pfc_applied", "netdev", rd_json_str(nd->name),
		 "changes", json_object_new_int64(n), NULL);
	rd_pfc_verify(rd, nd, ch, &p, &b, bad);
}

void rd_dcb_sync(struct rd *rd, struct rd_netdev *nd)
{
	bool want = rd_conf_pfc_wanted(&rd->conf) &&
		    rd_conf_dev_selected(rd->conf.pfc_devices, nd->name);
	struct dcbnl_ieee cur;
	char why[96];
	int err;

	if (!rd_dcb_ready(rd))
		return;
	err = dcbnl_get(rd->dcb, nd->name, &cur);
	if (err) {
		nd->dcb_have = false;
		if (err == -EOPNOTSUPP) {
			if (!nd->pfc_nodcb)
				rd_log(want ? LOG_INFO_ : LOG_DEBUG_,
				       "%s: no DCB (EOPNOTSUPP)%s", nd->name,
				       want ? ": [pfc] not applied until it has DCB (rocecc.ko's software DCB comes with attaching it)" :
				       "");
			nd->pfc_nodcb = true;
			/* gone (rocecc.ko detached): when DCB comes back it
			 * starts from scratch, and [pfc] is applied again */
			nd->pfc_gen = 0;
		} else if (err != -ENODEV && !nd->pfc_errlogged) {
			rd_log(LOG_WARN_, "%s: reading PFC: %s", nd->name,
			       dcbnl_errmsg(rd->dcb));
			nd->pfc_errlogged = true;
			rd->pfc_errors++;
		}
		return;
	}
	nd->dcb = cur;
	nd->dcb_have = true;
	nd->pfc_errlogged = false;
	if (!want) {
		nd->pfc_nodcb = false;
		return;
	}
	if (nd->pfc_gen == rd->conf_gen) {
		if (!nd->pfc_ok || !drifted(&rd->conf, &cur, &nd->pfc_ref,
						   nd->wd_disabled))
			return;
		snprintf(why, sizeof(why),
			 "the device no longer reads as applied: changed by hand, or its DCB was reset");
	} else if (nd->pfc_nodcb)
		snprintf(why, sizeof(why), "its DCB appeared%s",
			 nd->mod_attached ? " (rocecc.ko attached)" : "");
	else if (!nd->pfc_gen)
		snprintf(why, sizeof(why), "netdev found, configuration generation %u",
			 rd->conf_gen);
	else
		snprintf(why, sizeof(why), "configuration reloaded, generation %u",
			 rd->conf_gen);
	if (nd->pfc_gen == rd->conf_gen)
		rd_log(LOG_WARN_, "%s: PFC or buffers changed behind roceccd's back: [pfc] applied again (the configuration file is the source of truth)",
		       nd->name);
	nd->pfc_nodcb = false;
	nd->pfc_gen = rd->conf_gen;
	rd_pfc_apply(rd, nd, &cur, why);
}

void rd_dcb_metrics(struct rd *rd, FILE *f)
{
	static const enum rd_family fam[] = {
		RDF_PFC_ENABLED, RDF_PFC_REQUESTS, RDF_PFC_INDICATIONS,
	};
	char esc[RD_TEXT_MAX(IF_NAMESIZE)];
	unsigned int k;
	size_t i;
	int p;

	for (k = 0; k < sizeof(fam) / sizeof(fam[0]); k++) {
		rd_prom_family(f, fam[k]);
		for (i = 0; i < rd->nnds; i++) {
			const struct rd_netdev *nd = &rd->nds[i];

			if (!nd->dcb_have || !nd->dcb.have_pfc)
				continue;
			/* a NIC's own counters: engine="hw", below */
			if (k && rd_hw_find(rd, nd->name))
				continue;
			rd_prom_escape(nd->name, esc, sizeof(esc));
			for (p = 0; p < DCBNL_PRIOS; p++) {
				uint64_t v = k == 0 ? !!(nd->dcb.pfc.pfc_en & 1u << p) :
					     k == 1 ? nd->dcb.pfc.requests[p] :
						      nd->dcb.pfc.indications[p];

				fprintf(f, "%s{netdev=\"%s\",prio=\"%d\"} %" PRIu64 "\n",
					rd_fam(fam[k]), esc, p, v);
			}
		}
		if (k)
			rd_hw_pfc_lines(rd, f, rd_fam(fam[k]), k == 1);
	}
	rd_prom_family(f, RDF_PFC_BUFFER_BYTES);
	for (i = 0; i < rd->nnds; i++) {
		const struct rd_netdev *nd = &rd->nds[i];

		if (!nd->dcb_have || !nd->dcb.have_buffer)
			continue;
		rd_prom_escape(nd->name, esc, sizeof(esc));
		for (p = 0; p < DCBNL_BUFFERS; p++)
			fprintf(f, "%s{netdev=\"%s\",buffer=\"%d\"} %u\n",
				rd_fam(RDF_PFC_BUFFER_BYTES), esc, p,
				nd->dcb.buf.buffer_size[p]);
	}
	rd_prom_family(f, RDF_PFC_PRIO_BUFFER);
	for (i = 0; i < rd->nnds; i++) {
		const struct rd_netdev *nd = &rd->nds[i];

		if (!nd->dcb_have || !nd->dcb.have_buffer)
			continue;
		rd_prom_escape(nd->name, esc, sizeof(esc));
		for (p = 0; p < DCBNL_PRIOS; p++)
			fprintf(f, "%s{netdev=\"%s\",prio=\"%d\"} %u\n",
				rd_fam(RDF_PFC_PRIO_BUFFER), esc, p,
				nd->dcb.buf.prio2buffer[p]);
	}
	rd_prom_family(f, RDF_PFC_CONFIG_CHANGES);
	fprintf(f, "%s %" PRIu64 "\n", rd_fam(RDF_PFC_CONFIG_CHANGES),
		rd->pfc_changes);
	rd_prom_family(f, RDF_PFC_ERRORS);
	fprintf(f, "%s %" PRIu64 "\n", rd_fam(RDF_PFC_ERRORS), rd->pfc_errors);
}
