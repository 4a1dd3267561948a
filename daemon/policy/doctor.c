// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc doctor's checks: pure functions of gathered facts (doctor.h).
 */
#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <linux/pkt_sched.h>

#include <rocecc/pacing.h>
#include <rocecc/pfc.h>
#include <uapi/linux/rocecc.h>

#include "doctor.h"
#include "lib/msg.h"
#include "tested_kernels.h"

/* ---- texts ------------------------------------------------------------- */

/* Append to @buf, after @sep if it is not empty. */
static void add(char *buf, size_t n, const char *sep, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void add(char *buf, size_t n, const char *sep, const char *fmt, ...)
{
	size_t l = strlen(buf);
	va_list ap;

	if (l && l + strlen(sep) < n) {
		strcpy(buf + l, sep);
		l += strlen(sep);
	}
	if (l >= n)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + l, n - l, fmt, ap);
	va_end(ap);
}

#define FOUND(r, ...)	msgf((r)->found, sizeof((r)->found), __VA_ARGS__)
#define EXPECT(r, ...)	msgf((r)->expected, sizeof((r)->expected), __VA_ARGS__)
#define FIX(r, ...)	add((r)->fix, sizeof((r)->fix), " && ", __VA_ARGS__)

/* Raise @r to @s if @s is worse. */
static void worse(struct doc_result *r, enum doc_status s)
{
	if (s > r->status)
		r->status = s;
}

const char *doc_status_name(enum doc_status s)
{
	static const char *const names[] = { "PASS", "SKIP", "WARN", "FAIL" };

	return s <= DOC_FAIL ? names[s] : "?";
}

int doc_exit_status(enum doc_status worst)
{
	return worst == DOC_FAIL ? 2 : worst == DOC_WARN ? 1 : 0;
}

enum doc_engine doc_engine_of(const struct doc_dev *d)
{
	if (d->module)
		return DOC_ENGINE_MODULE;
	if (d->bpf)
		return DOC_ENGINE_BPF;
	if (d->hw)
		return DOC_ENGINE_HW;
	return DOC_ENGINE_NONE;
}

const char *doc_engine_name(enum doc_engine e)
{
	static const char *const names[] = { "none", "module", "bpf", "hw" };

	return e <= DOC_ENGINE_HW ? names[e] : "?";
}

/* "3,6" or "none" */
static const char *prios(uint8_t mask, char *buf, size_t n)
{
	return dcbnl_prio_str(mask, buf, n);
}

static int lowest(uint8_t mask)
{
	return mask ? __builtin_ctz(mask) : -1;
}

/* Does roceccd's configuration attach an engine to @d? */
static bool conf_wants_engine(const struct doc_host *h,
			      const struct doc_dev *d)
{
	return h->have_conf && h->conf.module_attach &&
	       rd_conf_dev_selected(h->conf.module_devices, d->netdev);
}

/* Does roceccd's configuration set PFC priorities for @d? */
static bool conf_sets_pfc(const struct doc_host *h, const struct doc_dev *d)
{
	return h->have_conf && h->conf.pfc_prio_set &&
	       rd_conf_dev_selected(h->conf.pfc_devices, d->netdev);
}

uint8_t doc_lossless(const struct doc_host *h, const struct doc_dev *d,
		     bool *from_conf)
{
	*from_conf = conf_sets_pfc(h, d);
	if (*from_conf)
		return h->conf.pfc_en;
	return !d->dcb_err && d->dcb.have_pfc ? d->dcb.pfc.pfc_en : 0;
}

/* The command that attaches rocecc.ko, loading it first if need be. */
static void fix_attach(const struct doc_host *h, const struct doc_dev *d,
		       struct doc_result *r)
{
	if (!h->module_loaded)
		FIX(r, "modprobe rocecc");
	FIX(r, "rocecc dev attach %s", d->netdev);
}

/* ---- engine ------------------------------------------------------------ */

static void check_engine(const struct doc_host *h, const struct doc_dev *d,
			 struct doc_result *r)
{
	enum doc_engine e = doc_engine_of(d);

	if (d->module && d->bpf) {
		r->status = DOC_FAIL;
		FOUND(r, "rocecc.ko and the BPF engine both drive %s", d->netdev);
		EXPECT(r, "one engine");
		FIX(r, "rocecc dev detach %s", d->netdev);
		return;
	}
	switch (e) {
	case DOC_ENGINE_MODULE:
		FOUND(r, "module: rocecc.ko is attached to %s", d->netdev);
		return;
	case DOC_ENGINE_BPF:
		FOUND(r, "bpf: the BPF engine's filters are on %s", d->netdev);
		return;
	case DOC_ENGINE_HW:
		FOUND(r, "hw: the NIC's firmware runs DCQCN (mlx5)");
		return;
	case DOC_ENGINE_NONE:
		break;
	}
	FOUND(r, "none: no engine runs DCQCN for %s", d->netdev);
	if (conf_wants_engine(h, d)) {
		r->status = DOC_FAIL;
		EXPECT(r, "module (%s: [module] attach = yes)", h->conf_path);
	} else {
		r->status = DOC_WARN;
		EXPECT(r, "module, bpf or hw");
	}
	fix_attach(h, d, r);
}

/* ---- qdisc ------------------------------------------------------------- */

/* fq @q's options against pacing's needs; @where "root" or "parent 1:4" */
static void fq_options(const struct doc_dev *d, const struct qdisc_info *q,
		       const char *where, struct doc_result *r)
{
	uint32_t need = d->have_pacing ? d->max_delay_us : 1000000;

	if (q->fq_horizon_drop && q->fq_horizon_us < need) {
		worse(r, DOC_FAIL);
		FOUND(r, ROCECC_PACE_WHY_HORIZON, d->netdev, q->fq_horizon_us,
		      need);
		EXPECT(r, "fq horizon_cap, or a horizon of at least %u us",
		       need);
		FIX(r, "tc qdisc change dev %s %s fq horizon_cap", d->netdev,
		    where);
	} else if (q->fq_flow_limit < ROCECC_FQ_FLOW_LIMIT_MIN) {
		worse(r, DOC_WARN);
		if (r->status == DOC_WARN) {
			FOUND(r, ROCECC_PACE_WHY_LIMIT, d->netdev,
			      ROCECC_FQ_FLOW_LIMIT_MIN);
			EXPECT(r, "fq flow_limit >= %u",
			       ROCECC_FQ_FLOW_LIMIT_MIN);
		}
		FIX(r, "tc qdisc change dev %s %s fq flow_limit 1000",
		    d->netdev, where);
	}
}

/*
 * The children of @root (classes 1..@n of its handle) must be fq: the
 * first that is not into @bad (its kind, "pfifo (default)" if none is
 * listed), a fix for each.
 */
static bool children_fq(const struct doc_dev *d, const struct qdisc_info *root,
			unsigned int n, const char *dflt, char *bad,
			size_t badlen, struct doc_result *r)
{
	const struct qdisc_info *q;
	char where[32], hs[16];
	unsigned int i;
	bool ok = true;

	for (i = 1; i <= n; i++) {
		q = qdisc_child(d->qd, d->nqd, TC_H_MAKE(root->handle, i));
		snprintf(where, sizeof(where), "parent %s",
			 qdisc_handle_str(TC_H_MAKE(root->handle, i), hs,
					  sizeof(hs)));
		if (q && q->fq) {
			fq_options(d, q, where, r);
			continue;
		}
		if (ok)
			msgf(bad, badlen, "%s under %s", q ? q->kind : dflt,
			    where + strlen("parent "));
		ok = false;
		FIX(r, "tc qdisc replace dev %s %s fq flow_limit 1000",
		    d->netdev, where);
	}
	return ok;
}

/*
 * PFC through rocecc.ko's software DCB: only the rocecc root qdisc obeys
 * received PFC frames (without it they are counted as unenforced).
 */
static bool sw_pfc(const struct doc_dev *d)
{
	return d->sw_dcb && !d->dcb_err && d->dcb.have_pfc &&
	       d->dcb.pfc.pfc_en;
}

/* The rocecc root with fq under each of its classes, as roceccd makes it */
static void fix_rocecc_tree(const struct doc_dev *d, struct doc_result *r)
{
	unsigned int i;

	r->fix[0] = '\0';
	FIX(r, "tc qdisc replace dev %s root handle 1: rocecc", d->netdev);
	for (i = 1; i <= DCBNL_PRIOS; i++)
		FIX(r, "tc qdisc replace dev %s parent 1:%u fq flow_limit 1000",
		    d->netdev, i);
}

static void check_qdisc(const struct doc_host *h, const struct doc_dev *d,
			struct doc_result *r)
{
	const struct qdisc_info *root;
	char bad[64] = "";
	bool ok;

	(void)h;
	if (d->hw) {
		r->status = DOC_SKIP;
		FOUND(r, "the NIC paces in hardware");
		return;
	}
	if (d->qdisc_err) {
		r->status = DOC_WARN;
		FOUND(r, "cannot read the qdiscs of %s: %s", d->netdev,
		      strerror(-d->qdisc_err));
		EXPECT(r, "fq, mq of fq, or rocecc with fq under every class");
		return;
	}
	root = qdisc_root(d->qd, d->nqd);
	if (root && root->fq) {
		fq_options(d, root, "root", r);
		if (r->status == DOC_PASS)
			FOUND(r, "fq (flow_limit %u, horizon %u us%s)",
			      root->fq_flow_limit, root->fq_horizon_us,
			      root->fq_horizon_drop ? ", drop" : ", cap");
		ok = true;
	} else if (root && !strcmp(root->kind, "mq")) {
		ok = children_fq(d, root, d->ntxq, "none", bad, sizeof(bad),
				 r);
	} else if (root && !strcmp(root->kind, "rocecc")) {
		ok = children_fq(d, root, DCBNL_PRIOS, "pfifo (default)",
				 bad, sizeof(bad), r);
	} else {
		ok = false;
	}
	if (ok) {
		if (r->status == DOC_PASS && !root->fq)
			FOUND(r, "%s with fq under every %s", root->kind,
			      !strcmp(root->kind, "mq") ? "queue" : "class");
		if (r->status != DOC_PASS || !strcmp(root->kind, "rocecc") ||
		    !sw_pfc(d))
			return;
		r->status = DOC_WARN;
		FOUND(r, "%s paces, but PFC is on and only the rocecc root obeys received PFC frames (counted as unenforced)",
		      root->kind);
		EXPECT(r, "rocecc with fq under every class");
		fix_rocecc_tree(d, r);
		return;
	}
	r->status = DOC_FAIL;
	r->expected[0] = '\0';
	if (!bad[0]) {
		/* the module's words: wrong root */
		FOUND(r, ROCECC_PACE_WHY_KIND, d->netdev,
		      root ? root->kind : "none");
		r->fix[0] = '\0';
		if (sw_pfc(d))
			fix_rocecc_tree(d, r);
		else
			FIX(r, ROCECC_PACE_FIX_KIND, d->netdev);
	} else {
		FOUND(r, ROCECC_PACE_WHY_KIND, d->netdev, bad);
	}
	EXPECT(r, "fq, mq of fq, or rocecc with fq under every class%s",
	       sw_pfc(d) ? " (PFC is on: rocecc)" : "");
}

/* ---- ECT --------------------------------------------------------------- */

static void check_ect(const struct doc_host *h, const struct doc_dev *d,
		      struct doc_result *r)
{
	char n[40] = "";

	if (d->have_ect)
		snprintf(n, sizeof(n), " (%llu so far)",
			 (unsigned long long)d->ect_marked);
	switch (doc_engine_of(d)) {
	case DOC_ENGINE_MODULE:
		FOUND(r, "rocecc.ko marks Not-ECT RoCEv2 ECT(0)%s", n);
		return;
	case DOC_ENGINE_BPF:
		FOUND(r, "the BPF engine marks Not-ECT RoCEv2 ECT(0)%s", n);
		return;
	case DOC_ENGINE_HW:
		/* QUERY_CONG_STATUS is not exposed by the upstream driver */
		r->status = DOC_SKIP;
		FOUND(r, "the NIC's firmware marks where its DCQCN is enabled; mlx5's per-priority enable cannot be read");
		return;
	case DOC_ENGINE_NONE:
		break;
	}
	r->status = conf_wants_engine(h, d) ? DOC_FAIL : DOC_WARN;
	FOUND(r, "nothing marks RoCEv2 ECT(0) on %s: ECN queues drop it instead of marking it CE",
	      d->netdev);
	EXPECT(r, "ECT(0) on every RoCEv2 packet (an engine marks it)");
	fix_attach(h, d, r);
}

/* ---- CNP --------------------------------------------------------------- */

/* A DSCP that @map maps to @prio, APP-table entries first; -1 if none */
static int dscp_for(const struct doc_dev *d, const uint8_t map[64],
		    unsigned int prio)
{
	unsigned int s;

	if (!d->dcb_err && d->dcb.dscp_app[prio])
		for (s = 0; s < 64; s++)
			if ((d->dcb.dscp_app[prio] >> s & 1) && map[s] == prio)
				return (int)s;
	for (s = 0; s < 64; s++)
		if (map[s] == prio)
			return (int)s;
	return -1;
}

/* The device's DSCP -> priority map; *@app: an APP entry names @dscp */
static void dscp_map(const struct doc_dev *d, uint8_t map[64],
		     unsigned int dscp, bool *app)
{
	static const __u64 none[DCBNL_PRIOS];
	const __u64 *a = d->dcb_err ? none : d->dcb.dscp_app;
	unsigned int p;

	*app = false;
	for (p = 0; p < DCBNL_PRIOS; p++)
		*app |= a[p] >> (dscp & 63) & 1;
	rocecc_dscp_map(a, map);
}

/*
 * Does "rocecc param set dev" reach @d's engine (rocecc.ko, or an mlx5
 * port's firmware)? The BPF engine's parameters are its loader's.
 */
static bool param_settable(const struct doc_dev *d)
{
	enum doc_engine e = doc_engine_of(d);

	return e == DOC_ENGINE_MODULE || e == DOC_ENGINE_HW;
}

static void check_cnp(const struct doc_host *h, const struct doc_dev *d,
		      struct doc_result *r)
{
	const struct rd_conf *c = &h->conf;
	uint8_t map[64], lossless;
	bool app, from_conf;
	unsigned int m;
	int fixd;

	if (doc_engine_of(d) == DOC_ENGINE_NONE) {
		r->status = DOC_SKIP;
		FOUND(r, "no engine sends CNPs");
		return;
	}
	if (!d->have_cnp) {
		r->status = DOC_WARN;
		FOUND(r, "cannot read np_cnp_dscp and np_cnp_prio of %s",
		      d->netdev);
		EXPECT(r, "the engine's CNP DSCP and priority");
		return;
	}
	dscp_map(d, map, d->cnp_dscp, &app);
	m = map[d->cnp_dscp & 63];
	FOUND(r, "np_cnp_dscp %u (priority %u by %s), np_cnp_prio %u",
	      d->cnp_dscp, m, app ? "the APP table" : "DSCP >> 3",
	      d->cnp_prio);
	if (m != d->cnp_prio) {
		r->status = DOC_FAIL;
		lossless = doc_lossless(h, d, &from_conf);
		EXPECT(r, "np_cnp_dscp that maps to np_cnp_prio (the host queues CNPs by priority, the network by DSCP)");
		/* keep the CNP on the lossless side of the two */
		fixd = (lossless >> d->cnp_prio & 1) && !(lossless >> m & 1) ?
		       dscp_for(d, map, d->cnp_prio) : -1;
		if (!param_settable(d))
			;
		else if (fixd >= 0)
			FIX(r, "rocecc param set dev %s np_cnp_dscp %d",
			    d->netdev, fixd);
		else
			FIX(r, "rocecc param set dev %s np_cnp_prio %u",
			    d->netdev, m);
		return;
	}
	if (h->have_conf && conf_wants_engine(h, d) &&
	    ((c->param_set[ROCECC_PARAM_NP_CNP_DSCP] &&
	      c->param[ROCECC_PARAM_NP_CNP_DSCP] != d->cnp_dscp) ||
	     (c->param_set[ROCECC_PARAM_NP_CNP_PRIO] &&
	      c->param[ROCECC_PARAM_NP_CNP_PRIO] != d->cnp_prio))) {
		r->status = DOC_WARN;
		EXPECT(r, "what %s sets:%s%s", h->conf_path,
		       c->param_set[ROCECC_PARAM_NP_CNP_DSCP] ?
		       " np_cnp_dscp" : "",
		       c->param_set[ROCECC_PARAM_NP_CNP_PRIO] ?
		       " np_cnp_prio" : "");
		if (!param_settable(d))
			return;
		FIX(r, "rocecc param set dev %s", d->netdev);
		if (c->param_set[ROCECC_PARAM_NP_CNP_DSCP])
			add(r->fix, sizeof(r->fix), " ", "np_cnp_dscp %u",
			    c->param[ROCECC_PARAM_NP_CNP_DSCP]);
		if (c->param_set[ROCECC_PARAM_NP_CNP_PRIO])
			add(r->fix, sizeof(r->fix), " ", "np_cnp_prio %u",
			    c->param[ROCECC_PARAM_NP_CNP_PRIO]);
	}
}

/* ---- PFC --------------------------------------------------------------- */

/* No PFC to read on @d: what that means given what is wanted */
static void pfc_absent(const struct doc_host *h, const struct doc_dev *d,
		       uint8_t lossless, struct doc_result *r)
{
	char p[32];

	FOUND(r, "%s has no IEEE PFC (%s)", d->netdev,
	      d->dcb_err == -EOPNOTSUPP || !d->dcb_err ?
	      "no DCB support" : strerror(-d->dcb_err));
	if (!lossless) {
		r->status = DOC_WARN;
		EXPECT(r, "PFC on the RoCE priority, or lossy RoCE by choice ([pfc] priorities = none)");
		return;
	}
	r->status = DOC_FAIL;
	EXPECT(r, "PFC on %s", prios(lossless, p, sizeof(p)));
	/* rocecc.ko brings a software DCB to drivers without one */
	if (!d->module && !d->hw && !d->bpf)
		fix_attach(h, d, r);
}

static void check_pfc(const struct doc_host *h, const struct doc_dev *d,
		      struct doc_result *r)
{
	bool from_conf, cnp = d->have_cnp && doc_engine_of(d) != DOC_ENGINE_NONE;
	uint8_t lossless = doc_lossless(h, d, &from_conf), want, en, diff;
	int roce = lowest(lossless), i;
	char a[32], b[32], list[64];

	if (d->dcb_err || !d->dcb.have_pfc) {
		pfc_absent(h, d, from_conf ? lossless : 0, r);
		return;
	}
	en = d->dcb.pfc.pfc_en;
	if (!lossless) {
		FOUND(r, "PFC on none");
		if (from_conf)
			return;		/* lossy RoCE, as configured */
		r->status = DOC_WARN;
		EXPECT(r, "PFC on the RoCE priority (3 for DSCP 26), or priorities = none in roceccd's [pfc]");
		FIX(r, "rocecc pfc set dev %s prio-pfc 3:on", d->netdev);
		return;
	}
	/* The CNP's priority: lossless only if listed, else off */
	want = from_conf ? lossless : en;
	if (cnp && d->cnp_prio != (unsigned int)roce && !(lossless >> d->cnp_prio & 1))
		want &= ~(1u << d->cnp_prio);
	if (cnp)
		FOUND(r, "PFC on %s (RoCE priority %d, CNP priority %u)",
		      prios(en, a, sizeof(a)), roce, d->cnp_prio);
	else
		FOUND(r, "PFC on %s (RoCE priority %d)",
		      prios(en, a, sizeof(a)), roce);
	diff = want ^ en;
	if (!diff)
		return;
	/* a lossless priority without PFC drops; extra PFC only pauses */
	r->status = (want & ~en) ? DOC_FAIL : DOC_WARN;
	EXPECT(r, "PFC on %s%s", prios(want, b, sizeof(b)),
	       from_conf ? " (roceccd's [pfc] priorities)" : "");
	list[0] = '\0';
	for (i = 0; i < DCBNL_PRIOS; i++)
		if (diff >> i & 1)
			add(list, sizeof(list), ",", "%d:%s", i,
			    want >> i & 1 ? "on" : "off");
	FIX(r, "rocecc pfc set dev %s prio-pfc %s", d->netdev, list);
}

/* ---- buffers ----------------------------------------------------------- */

/*
 * roceccd's buffer_size = auto for the priorities @d has PFC on: the
 * headroom calculator's size for every buffer that holds one, the rest
 * shared by the lossy ones (rd_pfc_target()), with the configuration's
 * speed, frame size and cable length if there is one.
 */
static int buffer_target(const struct doc_host *h, const struct doc_dev *d,
			 struct rd_conf *c, struct dcbnl_buffer *want,
			 char *why, size_t n)
{
	struct ieee_pfc pfc = d->dcb.pfc;

	if (h->have_conf)
		*c = h->conf;
	else
		rd_conf_defaults(c);
	c->pfc_prio_set = true;
	c->pfc_en = d->dcb.pfc.pfc_en;
	c->pfc_delay = -1;
	c->pfc_mbc = -1;
	c->pfc_p2b_mask = 0;
	c->pfc_size_mask = 0;
	c->pfc_size_auto = true;
	*want = d->dcb.buf;
	return rd_pfc_target(c, d->speed_mbps, d->mtu, &pfc, true, want, true,
			     why, n);
}

static void check_buffer(const struct doc_host *h, const struct doc_dev *d,
			 struct doc_result *r)
{
	const struct dcbnl_buffer *cur = &d->dcb.buf;
	struct dcbnl_buffer want;
	char why[DOC_TEXT], list[DOC_FIX] = "", sz[16];
	uint8_t en, bufs = 0;
	struct rd_conf c;
	int b, p;

	en = !d->dcb_err && d->dcb.have_pfc ? d->dcb.pfc.pfc_en : 0;
	if (!en) {
		r->status = DOC_SKIP;
		FOUND(r, "no priority has PFC: no headroom needed");
		return;
	}
	if (!d->dcb.have_buffer) {
		r->status = DOC_WARN;
		FOUND(r, "%s reports no DCB buffers: the headroom cannot be compared",
		      d->netdev);
		EXPECT(r, "DCB buffers of at least the headroom calculator's size");
		return;
	}
	if (buffer_target(h, d, &c, &want, why, sizeof(why)) < 0) {
		r->status = DOC_WARN;
		FOUND(r, "%s", why);
		EXPECT(r, "a headroom size to compare the buffers with");
		return;
	}
	for (p = 0; p < DCBNL_PRIOS; p++)
		if (en >> p & 1 && cur->prio2buffer[p] < DCBNL_BUFFERS)
			bufs |= 1u << cur->prio2buffer[p];
	for (b = 0; b < DCBNL_BUFFERS; b++) {
		if (!(bufs >> b & 1))
			continue;
		add(r->found, sizeof(r->found), ", ", "buffer %d: %u B", b,
		    cur->buffer_size[b]);
		if (cur->buffer_size[b] < want.buffer_size[b])
			r->status = DOC_FAIL;
	}
	b = lowest(bufs);
	add(r->found, sizeof(r->found), "; ", "headroom calculator: %u B",
	    want.buffer_size[b]);
	if (r->status == DOC_PASS)
		return;
	EXPECT(r, "at least %u B in every lossless buffer (%u Mb/s, frames of %u B, cable %.1f m)",
	       want.buffer_size[b], c.pfc_speed_mbps ? c.pfc_speed_mbps :
	       d->speed_mbps, c.pfc_mtu ? c.pfc_mtu : d->mtu + 22,
	       c.pfc_cable_m);
	for (b = 0; b < DCBNL_BUFFERS; b++)
		if (want.buffer_size[b] != cur->buffer_size[b])
			add(list, sizeof(list), ",", "%d:%s", b,
			    dcbnl_size_str(want.buffer_size[b], sz,
					   sizeof(sz)));
	FIX(r, "rocecc buffer set dev %s buffer-size %s", d->netdev, list);
}

/* ---- MTU --------------------------------------------------------------- */

/* The largest IB MTU whose RoCEv2 packets fit netdev MTU @n; 0 if none */
static unsigned int ib_mtu_fit(unsigned int n)
{
	unsigned int m;

	for (m = DOC_IB_MTU_MAX; m >= 256; m /= 2)
		if (m + DOC_ROCE_HDR_MAX <= n)
			return m;
	return 0;
}

static void check_mtu(const struct doc_host *h, const struct doc_dev *d,
		      struct doc_result *r)
{
	unsigned int fit = ib_mtu_fit(d->mtu);
	unsigned int max = d->max_mtu ? d->max_mtu : DOC_IB_MTU_MAX;

	(void)h;
	if (!d->active_mtu) {
		r->status = DOC_WARN;
		FOUND(r, "netdev MTU %u; the active MTU of %s port %u is unknown",
		      d->mtu, d->ibdev, d->port);
		EXPECT(r, "the port's active MTU (libibverbs)");
		return;
	}
	FOUND(r, "netdev MTU %u, RoCE active MTU %u (port maximum %u)",
	      d->mtu, d->active_mtu, max);
	if (d->active_mtu + DOC_ROCE_HDR_MAX > d->mtu) {
		r->status = DOC_FAIL;
		EXPECT(r, "netdev MTU >= %u: RoCE packets of %u B payload do not fit",
		       d->active_mtu + DOC_ROCE_HDR_MAX, d->active_mtu);
		FIX(r, "ip link set dev %s mtu %u", d->netdev,
		    d->active_mtu + DOC_ROCE_HDR_MAX);
	} else if (d->active_mtu < max && fit < max) {
		r->status = DOC_WARN;
		EXPECT(r, "netdev MTU >= %u for RoCE MTU %u (and the same on every hop)",
		       max + DOC_ROCE_HDR_MAX, max);
		FIX(r, "ip link set dev %s mtu %u", d->netdev,
		    max + DOC_ROCE_HDR_MAX);
	} else if (d->active_mtu < fit) {
		r->status = DOC_WARN;
		EXPECT(r, "RoCE active MTU %u: the port did not follow the netdev's MTU",
		       fit);
		FIX(r, "ip link set dev %s mtu %u", d->netdev, d->mtu);
	}
}

/* ---- GID type ---------------------------------------------------------- */

static bool has_v2(const struct doc_dev *d, const char *addr)
{
	unsigned int i;

	for (i = 0; i < d->ngid; i++)
		if (d->gid[i].v2 && !strcmp(d->gid[i].addr, addr))
			return true;
	return false;
}

static void check_gid(const struct doc_host *h, const struct doc_dev *d,
		      struct doc_result *r)
{
	char v2[DOC_TEXT] = "", miss[DOC_TEXT] = "";
	unsigned int i;

	(void)h;
	if (d->gid_err) {
		r->status = DOC_WARN;
		FOUND(r, "cannot read the GIDs of %s port %u: %s", d->ibdev,
		      d->port, strerror(-d->gid_err));
		EXPECT(r, "the port's GIDs (sysfs gids, gid_attrs)");
		return;
	}
	for (i = 0; i < d->ngid; i++) {
		if (d->gid[i].v2)
			add(v2, sizeof(v2), ", ", "%u %s", d->gid[i].index,
			    d->gid[i].addr);
		else if (!has_v2(d, d->gid[i].addr))
			add(miss, sizeof(miss), ", ", "%s", d->gid[i].addr);
	}
	EXPECT(r, "a RoCE v2 GID for every address of %s, and rdma_cm on RoCE v2",
	       d->netdev);
	if (!v2[0] || miss[0]) {
		r->status = DOC_FAIL;
		FOUND(r, "%s port %u: %s%s", d->ibdev, d->port,
		      !d->ngid ? "no GID on " : "no RoCE v2 GID for ",
		      !d->ngid ? d->netdev : miss[0] ? miss : "any address");
		return;
	}
	FOUND(r, "RoCE v2 GIDs %s; rdma_cm default %s", v2,
	      d->cm_mode == DOC_CM_V1 ? "IB/RoCE v1" : "RoCE v2");
	if (d->cm_mode == DOC_CM_V1) {
		r->status = DOC_FAIL;
		FIX(r, "echo 'RoCE v2' > /sys/kernel/config/rdma_cm/%s/ports/%u/default_roce_mode",
		    d->ibdev, d->port);
		return;
	}
	r->expected[0] = '\0';
}

/* ---- ACK timeout against the pacing budget ----------------------------- */

#define PARAM_DIR	"/sys/module/rocecc/parameters/"

/*
 * Until an engine knows a QP's timeout it paces with
 * pacing_default_budget_us; once it knows, with pacing_budget_pct of the
 * time rxe's timer surely waits (rocecc_pace_budget_ns()). A default at or
 * above that wait lets pacing hold a packet past the timer (spurious
 * retransmissions; on 6.1 a spurious retry can kill the QP): FAIL. A
 * default above the QP's own budget leaves less margin than the engine
 * keeps once it knows: WARN. Both are mended by a default no longer than
 * the shortest QP's budget.
 */
static void check_ack_timeout(const struct doc_host *h,
			      const struct doc_dev *d, struct doc_result *r)
{
	enum doc_engine e = doc_engine_of(d);
	uint32_t hz = h->hz ? h->hz : 100;
	uint64_t b, w, min = UINT64_MAX, wmin = UINT64_MAX;
	uint64_t def = (uint64_t)d->default_budget_us * 1000;
	const struct doc_qp *q = NULL;
	unsigned int i;

	if (e == DOC_ENGINE_NONE || e == DOC_ENGINE_HW) {
		r->status = DOC_SKIP;
		FOUND(r, "%s", e == DOC_ENGINE_HW ?
		      "the NIC paces: rxe's timer does not apply" :
		      "nothing paces");
		return;
	}
	if (!d->have_pacing) {
		r->status = DOC_WARN;
		FOUND(r, "cannot read the pacing budget's parameters");
		EXPECT(r, "pacing_budget_pct, pacing_default_budget_us, pacing_max_delay_us");
		return;
	}
	if (d->budget_pct >= 100) {
		r->status = DOC_FAIL;
		FOUND(r, "pacing_budget_pct %u: pacing may hold a packet as long as rxe's timer waits",
		      d->budget_pct);
		EXPECT(r, "pacing_budget_pct below 100 (rocecc.ko's default 20)");
		if (e == DOC_ENGINE_MODULE)
			FIX(r, "echo 20 > " PARAM_DIR "pacing_budget_pct");
		return;
	}
	for (i = 0; i < d->nqp; i++) {
		b = rocecc_pace_budget_ns(d->qp[i].timeout, hz, d->budget_pct,
					  d->max_delay_us);
		w = rocecc_pace_budget_ns(d->qp[i].timeout, hz, 100,
					  0xffffffffU);
		if (b < min) {
			min = b;
			q = &d->qp[i];
		}
		if (w < wmin)
			wmin = w;
	}
	if (!q) {
		r->status = DOC_SKIP;
		FOUND(r, "no QP whose timeout the engine knows yet (it learns it from the QP's traffic); pacing_default_budget_us %u",
		      d->default_budget_us);
		return;
	}
	FOUND(r, "%u QP%s; shortest budget %llu us: QP 0x%x, timeout %u (%.1f ms) at HZ %u%s; pacing_default_budget_us %u",
	      d->nqp, d->nqp == 1 ? "" : "s",
	      (unsigned long long)(min / 1000), q->lqpn, q->timeout,
	      q->timeout ? 4.096e-3 * (double)(1ULL << q->timeout) : 0.0,
	      hz, h->hz ? "" : " (assumed)", d->default_budget_us);
	if (def <= min)
		return;
	if (def >= wmin) {
		r->status = DOC_FAIL;
		EXPECT(r, "pacing_default_budget_us <= %llu: until the engine learns a QP's timeout it may hold packets past rxe's timer (%llu us)",
		       (unsigned long long)(min / 1000),
		       (unsigned long long)(wmin / 1000));
	} else {
		r->status = DOC_WARN;
		EXPECT(r, "pacing_default_budget_us <= %llu, the share pacing_budget_pct keeps of the shortest timer",
		       (unsigned long long)(min / 1000));
	}
	if (e == DOC_ENGINE_MODULE)
		FIX(r, "echo %llu > " PARAM_DIR "pacing_default_budget_us",
		    (unsigned long long)(min / 1000));
}

/* ---- roceccd ----------------------------------------------------------- */

/* The command that starts roceccd */
static void fix_start(const struct doc_host *h, struct doc_result *r)
{
	if (h->systemd) {
		FIX(r, "systemctl start roceccd");
		return;
	}
	if (h->have_conf)
		FIX(r, "roceccd -c %s", h->conf_path);
	else
		FIX(r, "roceccd");
	if (h->pidfile[0])
		add(r->fix, sizeof(r->fix), " ", "--pidfile %s", h->pidfile);
}

static void check_roceccd(const struct doc_host *h, const struct doc_dev *d,
			  struct doc_result *r)
{
	EXPECT(r, "roceccd running, %s answering and listing %s", h->url,
	       d->netdev);
	if (h->conf_err[0]) {
		r->status = DOC_FAIL;
		FOUND(r, "%s", h->conf_err);
		EXPECT(r, "a configuration roceccd accepts");
		FIX(r, "roceccd -c %s --check-config", h->conf_path);
		return;
	}
	if (!h->rd_pid) {
		r->status = h->have_conf ? DOC_FAIL : DOC_WARN;
		if (h->pidfile_stale)
			FOUND(r, "roceccd is not running (pid file %s is stale)",
			      h->pidfile);
		else
			FOUND(r, "roceccd is not running%s", h->have_conf ?
			      "" : " (and has no configuration)");
		fix_start(h, r);
		return;
	}
	if (h->http_status != 200) {
		r->status = DOC_FAIL;
		if (h->http_status)
			FOUND(r, "roceccd (pid %ld) answers %s with HTTP %ld",
			      h->rd_pid, h->url, h->http_status);
		else
			FOUND(r, "roceccd (pid %ld) does not answer: %s",
			      h->rd_pid, h->http_err);
		if (h->systemd)
			FIX(r, "systemctl restart roceccd");
		return;
	}
	FOUND(r, "roceccd (pid %ld) answers %s", h->rd_pid, h->url);
	if (d->rd_watches) {
		add(r->found, sizeof(r->found), " ", "and watches %s",
		    d->netdev);
		r->expected[0] = '\0';
		return;
	}
	r->status = DOC_WARN;
	add(r->found, sizeof(r->found), " ", "but does not list %s (rocecc_netdev_info)",
	    d->netdev);
}

/* ---- host -------------------------------------------------------------- */

bool doc_kernel_tested(const char *release)
{
	regex_t re;
	bool ok;

	if (regcomp(&re, ROCECC_TESTED_KERNELS, REG_EXTENDED | REG_NOSUB))
		return false;
	ok = !regexec(&re, release, 0, NULL, 0);
	regfree(&re);
	return ok;
}

static void check_kernel(const struct doc_host *h, const struct doc_dev *d,
			 struct doc_result *r)
{
	(void)d;
	FOUND(r, "%s", h->release);
	if (doc_kernel_tested(h->release))
		return;
	r->status = DOC_WARN;
	EXPECT(r, "a kernel rocecc is tested on (dkms.conf's BUILD_EXCLUSIVE_KERNEL: %s)",
	       ROCECC_TESTED_KERNELS);
}

static void check_btf(const struct doc_host *h, const struct doc_dev *d,
		      struct doc_result *r)
{
	(void)d;
	if (h->btf) {
		FOUND(r, "/sys/kernel/btf/vmlinux");
		return;
	}
	r->status = DOC_WARN;
	FOUND(r, "no /sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF off): BPF tools that need the kernel's types do not work");
	EXPECT(r, "a kernel built with BTF (Debian's are)");
}

/* ---- the table --------------------------------------------------------- */

static const struct doc_check checks[] = {
	{ "engine", false, check_engine,
	  "which engine runs DCQCN: module, bpf, hw or none" },
	{ "qdisc", false, check_qdisc,
	  "the root qdisc paces: fq, mq of fq, rocecc with fq under every class" },
	{ "ect", false, check_ect, "RoCEv2 leaves ECT(0): an engine marks it" },
	{ "cnp", false, check_cnp,
	  "the CNP's DSCP maps to its priority (APP table or DSCP >> 3)" },
	{ "pfc", false, check_pfc,
	  "PFC on the RoCE priority; on the CNP's only if that is lossless too" },
	{ "buffer", false, check_buffer,
	  "every lossless buffer at least the headroom calculator's size" },
	{ "mtu", false, check_mtu,
	  "the netdev MTU carries the port's RoCE MTU, the largest it has" },
	{ "gid", false, check_gid,
	  "RoCE v2 GIDs for the netdev's addresses, rdma_cm on RoCE v2" },
	{ "ack_timeout", false, check_ack_timeout,
	  "no QP's ACK timeout shorter than what pacing may hold" },
	{ "roceccd", false, check_roceccd,
	  "roceccd runs, answers over HTTP and watches the netdev" },
	{ "kernel", true, check_kernel, "the kernel is one rocecc is tested on" },
	{ "btf", true, check_btf, "the kernel has BTF" },
};

const struct doc_check *doc_check(unsigned int i)
{
	return i < sizeof(checks) / sizeof(checks[0]) ? &checks[i] : NULL;
}

void doc_run(const struct doc_check *c, const struct doc_host *h,
	     const struct doc_dev *d, struct doc_result *r)
{
	memset(r, 0, sizeof(*r));
	r->check = c->name;
	c->fn(h, d, r);
	if (r->status == DOC_PASS || r->status == DOC_SKIP)
		r->expected[0] = '\0';
}
