// SPDX-License-Identifier: GPL-2.0
/*
 * DCB netlink client (libmnl): IEEE PFC and DCB buffers. See dcbnl.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "dcbnl.h"
#include "msg.h"
#include "nlsock.h"

#define IFNAME_MAX	15	/* IFNAMSIZ - 1 */

struct dcbnl {
	struct nlsock nl;
	char err[512];
};

/* ---- messages ------------------------------------------------------------ */

static struct nlmsghdr *msg_start(void *buf, uint16_t type, uint8_t cmd,
				  uint32_t seq, const char *ifname)
{
	struct nlmsghdr *nlh;
	struct dcbmsg *d;
	size_t n;

	if (!ifname)
		return NULL;
	n = strlen(ifname);
	if (!n || n > IFNAME_MAX)
		return NULL;
	/* libmnl leaves attribute padding as it finds it: no stale bytes */
	memset(buf, 0, DCBNL_MSG_MAX);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	d = mnl_nlmsg_put_extra_header(nlh, sizeof(*d));
	d->dcb_family = AF_UNSPEC;
	d->cmd = cmd;
	mnl_attr_put_strz(nlh, DCB_ATTR_IFNAME, ifname);
	return nlh;
}

struct nlmsghdr *dcbnl_msg_get(void *buf, uint32_t seq, const char *ifname)
{
	return msg_start(buf, RTM_GETDCB, DCB_CMD_IEEE_GET, seq, ifname);
}

struct nlmsghdr *dcbnl_msg_set(void *buf, uint32_t seq, const char *ifname,
			       const struct ieee_pfc *pfc,
			       const struct dcbnl_buffer *b)
{
	struct nlmsghdr *nlh;
	struct nlattr *nest;

	if (!pfc && !b)
		return NULL;
	nlh = msg_start(buf, RTM_SETDCB, DCB_CMD_IEEE_SET, seq, ifname);
	if (!nlh)
		return NULL;
	nest = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
	if (pfc) {
		/* field by field: the caller's padding bytes stay out */
		struct ieee_pfc p;

		memset(&p, 0, sizeof(p));
		p.pfc_cap = pfc->pfc_cap;
		p.pfc_en = pfc->pfc_en;
		p.mbc = pfc->mbc;
		p.delay = pfc->delay;
		memcpy(p.requests, pfc->requests, sizeof(p.requests));
		memcpy(p.indications, pfc->indications, sizeof(p.indications));
		mnl_attr_put(nlh, DCB_ATTR_IEEE_PFC, sizeof(p), &p);
	}
	if (b)
		mnl_attr_put(nlh, DCB_ATTR_DCB_BUFFER, sizeof(*b), b);
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

/*
 * Every attribute of @len bytes at @p through @cb, checking that they fill
 * the space exactly (a malformed or truncated one is -EBADMSG, not
 * skipped as mnl_attr_parse() would).
 */
static int walk(const void *p, int len,
		int (*cb)(const struct nlattr *a, void *data), void *data)
{
	const struct nlattr *a = p;
	int ret;

	while (len > 0) {
		if (!mnl_attr_ok(a, len))
			return -EBADMSG;
		ret = cb(a, data);
		if (ret)
			return ret;
		len -= MNL_ALIGN(a->nla_len);
		a = mnl_attr_next(a);
	}
	return 0;
}

struct get_ctx {
	struct dcbnl_ieee *out;
	char *msg;
	size_t n;
};

/* One entry of DCB_ATTR_IEEE_APP_TABLE: DSCP ones into dscp_app. */
static int get_app_cb(const struct nlattr *a, void *data)
{
	struct get_ctx *c = data;
	const struct dcb_app *app = mnl_attr_get_payload(a);

	if (mnl_attr_get_type(a) != DCB_ATTR_IEEE_APP)
		return 0;
	if (mnl_attr_get_payload_len(a) < sizeof(*app)) {
		msgf(c->msg, c->n, "DCB_ATTR_IEEE_APP of %u bytes, expected %zu",
		    mnl_attr_get_payload_len(a), sizeof(*app));
		return -EBADMSG;
	}
	if (app->selector != IEEE_8021QAZ_APP_SEL_DSCP)
		return 0;
	if (app->protocol > 63 || app->priority >= DCBNL_PRIOS) {
		msgf(c->msg, c->n, "APP entry DSCP %u -> priority %u out of range",
		    app->protocol, app->priority);
		return -EBADMSG;
	}
	c->out->dscp_app[app->priority] |= 1ULL << app->protocol;
	return 0;
}

static int get_ieee_cb(const struct nlattr *a, void *data)
{
	struct get_ctx *c = data;
	uint16_t len = mnl_attr_get_payload_len(a);

	switch (mnl_attr_get_type(a)) {
	case DCB_ATTR_IEEE_APP_TABLE:
		return walk(mnl_attr_get_payload(a), len, get_app_cb, c);
	case DCB_ATTR_IEEE_PFC:
		if (len < sizeof(c->out->pfc)) {
			msgf(c->msg, c->n, "DCB_ATTR_IEEE_PFC of %u bytes, expected %zu",
			    len, sizeof(c->out->pfc));
			return -EBADMSG;
		}
		memcpy(&c->out->pfc, mnl_attr_get_payload(a), sizeof(c->out->pfc));
		c->out->have_pfc = true;
		break;
	case DCB_ATTR_DCB_BUFFER:
		if (len < sizeof(c->out->buf)) {
			msgf(c->msg, c->n, "DCB_ATTR_DCB_BUFFER of %u bytes, expected %zu",
			    len, sizeof(c->out->buf));
			return -EBADMSG;
		}
		memcpy(&c->out->buf, mnl_attr_get_payload(a), sizeof(c->out->buf));
		c->out->have_buffer = true;
		break;
	}
	return 0;
}

static int get_top_cb(const struct nlattr *a, void *data)
{
	struct get_ctx *c = data;
	int ret;

	if (mnl_attr_get_type(a) != DCB_ATTR_IEEE)
		return 0;
	ret = walk(mnl_attr_get_payload(a), mnl_attr_get_payload_len(a),
		   get_ieee_cb, c);
	if (ret == -EBADMSG && c->n && !c->msg[0])
		msgf(c->msg, c->n, "malformed attribute inside DCB_ATTR_IEEE");
	return ret;
}

/* The dcbmsg of a reply of @type/@cmd, or NULL with the reason. */
static const struct dcbmsg *reply_hdr(const struct nlmsghdr *nlh,
				      uint16_t type, uint8_t cmd, char *msg,
				      size_t n)
{
	const struct dcbmsg *d;

	if (nlh->nlmsg_len < sizeof(*nlh) ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*d)) {
		msgf(msg, n, "reply too short for its DCB header");
		return NULL;
	}
	d = mnl_nlmsg_get_payload(nlh);
	if (nlh->nlmsg_type != type || d->cmd != cmd) {
		msgf(msg, n, "unexpected reply (type %u, command %u)",
		    nlh->nlmsg_type, d->cmd);
		return NULL;
	}
	return d;
}

/*
 * The top-level attributes of the reply @nlh to @type/@cmd through @cb.
 * 0, or -EBADMSG with what was wrong in @msg.
 */
static int reply_walk(const struct nlmsghdr *nlh, uint16_t type, uint8_t cmd,
		      int (*cb)(const struct nlattr *a, void *data),
		      void *data, char *msg, size_t n)
{
	if (n)
		msg[0] = '\0';
	if (!reply_hdr(nlh, type, cmd, msg, n))
		return -EBADMSG;
	if (walk((const char *)mnl_nlmsg_get_payload(nlh) +
		 MNL_ALIGN(sizeof(struct dcbmsg)),
		 (int)(mnl_nlmsg_get_payload_len(nlh) -
		       MNL_ALIGN(sizeof(struct dcbmsg))), cb, data)) {
		if (n && !msg[0])
			msgf(msg, n, "malformed attribute in the reply");
		return -EBADMSG;
	}
	return 0;
}

int dcbnl_parse_get(const struct nlmsghdr *nlh, struct dcbnl_ieee *out,
		    char *msg, size_t n)
{
	struct dcbnl_ieee tmp = { 0 };
	struct get_ctx c = { .out = &tmp, .msg = msg, .n = n };

	if (reply_walk(nlh, RTM_GETDCB, DCB_CMD_IEEE_GET, get_top_cb, &c,
		       msg, n))
		return -EBADMSG;
	*out = tmp;
	return 0;
}

struct set_ctx {
	bool have;
	int status;
	char *msg;
	size_t n;
};

static int set_top_cb(const struct nlattr *a, void *data)
{
	struct set_ctx *c = data;
	uint8_t v;

	if (mnl_attr_get_type(a) != DCB_ATTR_IEEE)
		return 0;
	if (mnl_attr_get_payload_len(a) != 1) {
		msgf(c->msg, c->n, "status of %u bytes, expected 1",
		    mnl_attr_get_payload_len(a));
		return -EBADMSG;
	}
	v = mnl_attr_get_u8(a);
	/* the kernel's nla_put_u8(skb, DCB_ATTR_IEEE, err): -errno & 0xff */
	c->status = v == 0 ? 0 : v >= 128 ? -(256 - v) : -v;
	c->have = true;
	return 0;
}

int dcbnl_parse_set(const struct nlmsghdr *nlh, char *msg, size_t n)
{
	struct set_ctx c = { .msg = msg, .n = n };

	if (reply_walk(nlh, RTM_SETDCB, DCB_CMD_IEEE_SET, set_top_cb, &c,
		       msg, n))
		return -EBADMSG;
	if (!c.have) {
		msgf(msg, n, "reply without the driver's status");
		return -EBADMSG;
	}
	if (c.status)
		msgf(msg, n, "the driver refused: %s", strerror(-c.status));
	return c.status;
}

/* ---- answers --------------------------------------------------------------- */

static int feed_data(const struct nlmsghdr *nlh, void *data)
{
	struct dcbnl_answer *a = data;
	int ret;

	if (a->replied) {
		a->err = -EBADMSG;
		msgf(a->msg, sizeof(a->msg), "a second reply to one request");
		return MNL_CB_ERROR;
	}
	a->replied = true;
	if (a->cmd == DCB_CMD_IEEE_GET)
		ret = dcbnl_parse_get(nlh, a->ieee, a->msg, sizeof(a->msg));
	else
		ret = dcbnl_parse_set(nlh, a->msg, sizeof(a->msg));
	a->err = ret;
	if (ret == -EBADMSG)
		return MNL_CB_ERROR;
	return MNL_CB_OK;	/* the ACK follows */
}

static int ext_cb(const struct nlattr *at, void *data)
{
	struct dcbnl_answer *a = data;

	if (mnl_attr_get_type(at) == NLMSGERR_ATTR_MSG &&
	    mnl_attr_validate(at, MNL_TYPE_NUL_STRING) == 0)
		snprintf(a->msg, sizeof(a->msg), "%s", mnl_attr_get_str(at));
	return 0;
}

static int feed_error(const struct nlmsghdr *nlh, void *data)
{
	struct dcbnl_answer *a = data;
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	size_t off = sizeof(*e), plen = mnl_nlmsg_get_payload_len(nlh);

	if (plen < sizeof(*e)) {
		a->err = -EBADMSG;
		msgf(a->msg, sizeof(a->msg), "truncated error message");
		return MNL_CB_ERROR;
	}
	if (e->error) {
		a->err = e->error > 0 ? -e->error : e->error;
		a->msg[0] = '\0';
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			off += e->msg.nlmsg_len > sizeof(struct nlmsghdr) ?
			       e->msg.nlmsg_len - sizeof(struct nlmsghdr) : 0;
		if ((nlh->nlmsg_flags & NLM_F_ACK_TLVS) && plen > off &&
		    walk((const char *)e + MNL_ALIGN(off),
			 (int)(plen - MNL_ALIGN(off)), ext_cb, a))
			a->msg[0] = '\0';	/* a broken extack: no message */
		return MNL_CB_STOP;
	}
	/* the ACK */
	if (!a->replied) {
		a->err = -EBADMSG;
		msgf(a->msg, sizeof(a->msg), "acknowledged without a reply");
	}
	return MNL_CB_STOP;
}

static int feed_done(const struct nlmsghdr *nlh, void *data)
{
	struct dcbnl_answer *a = data;

	(void)nlh;
	a->err = -EBADMSG;
	msgf(a->msg, sizeof(a->msg), "unexpected end of dump");
	return MNL_CB_STOP;
}

static mnl_cb_t feed_ctl[NLMSG_MIN_TYPE] = {
	[NLMSG_ERROR] = feed_error,
	[NLMSG_DONE] = feed_done,
};

int dcbnl_feed(struct dcbnl_answer *a, const void *buf, size_t len,
	       uint32_t seq, uint32_t portid)
{
	int ret;

	errno = 0;
	ret = mnl_cb_run2(buf, len, seq, portid, feed_data, a, feed_ctl,
			  NLMSG_MIN_TYPE);
	if (ret == MNL_CB_ERROR && !a->err) {
		a->err = errno ? -errno : -EBADMSG;
		msgf(a->msg, sizeof(a->msg), "a message that is not the answer (%s)",
		    strerror(-a->err));
	}
	return ret < 0 ? -1 : ret;
}

/* ---- the socket ------------------------------------------------------------- */

int dcbnl_open(struct dcbnl **hp)
{
	struct dcbnl *h = calloc(1, sizeof(*h));
	int err;

	*hp = NULL;
	if (!h)
		return -ENOMEM;
	err = nlsock_open(&h->nl, NETLINK_ROUTE, DCBNL_BUFSZ);
	if (err) {
		free(h);
		return err;
	}
	*hp = h;
	return 0;
}

void dcbnl_close(struct dcbnl *h)
{
	if (!h)
		return;
	nlsock_close(&h->nl);
	free(h);
}

const char *dcbnl_errmsg(const struct dcbnl *h)
{
	return h->err;
}

/* Words for an error the kernel gave no message for. */
static void explain(struct dcbnl *h, int err, const char *msg)
{
	if (msg[0]) {
		snprintf(h->err, sizeof(h->err), "%s", msg);
		return;
	}
	switch (err) {
	case -ENODEV:
		snprintf(h->err, sizeof(h->err), "no such netdev");
		break;
	case -EOPNOTSUPP:
		snprintf(h->err, sizeof(h->err), "no DCB support (the netdev has no dcbnl_ops)");
		break;
	case -EPERM:
		snprintf(h->err, sizeof(h->err), "changing DCB needs CAP_NET_ADMIN");
		break;
	default:
		snprintf(h->err, sizeof(h->err), "%s", strerror(-err));
	}
}

static int talk_feed(void *arg, const void *buf, size_t len,
		     unsigned int seq, unsigned int portid)
{
	struct dcbnl_answer *a = arg;

	return dcbnl_feed(a, buf, len, seq, portid) > 0 ? 1 : a->err;
}

static int talk(struct dcbnl *h, struct nlmsghdr *nlh, struct dcbnl_answer *a)
{
	return nlsock_talk(&h->nl, nlh, talk_feed, a);
}

static int bad_name(struct dcbnl *h)
{
	snprintf(h->err, sizeof(h->err), "not a netdev name (1 to %d characters)",
		 IFNAME_MAX);
	return -EINVAL;
}

int dcbnl_get(struct dcbnl *h, const char *ifname, struct dcbnl_ieee *out)
{
	struct dcbnl_answer a = { .cmd = DCB_CMD_IEEE_GET };
	struct dcbnl_ieee tmp = { 0 };
	struct nlmsghdr *nlh;
	int err;

	h->err[0] = '\0';
	a.ieee = &tmp;
	nlh = dcbnl_msg_get(h->nl.buf, ++h->nl.seq, ifname);
	if (!nlh)
		return bad_name(h);
	err = talk(h, nlh, &a);
	if (err) {
		explain(h, err, a.msg);
		return err;
	}
	*out = tmp;
	return 0;
}

int dcbnl_get_pfc(struct dcbnl *h, const char *ifname, struct ieee_pfc *pfc)
{
	struct dcbnl_ieee d;
	int err = dcbnl_get(h, ifname, &d);

	if (err)
		return err;
	if (!d.have_pfc) {
		snprintf(h->err, sizeof(h->err), "the driver reports no IEEE PFC");
		return -EOPNOTSUPP;
	}
	*pfc = d.pfc;
	return 0;
}

int dcbnl_get_buffer(struct dcbnl *h, const char *ifname,
		     struct dcbnl_buffer *buf)
{
	struct dcbnl_ieee d;
	int err = dcbnl_get(h, ifname, &d);

	if (err)
		return err;
	if (!d.have_buffer) {
		snprintf(h->err, sizeof(h->err), "the driver has no DCB buffers");
		return -EOPNOTSUPP;
	}
	*buf = d.buf;
	return 0;
}

static int set(struct dcbnl *h, const char *ifname, const struct ieee_pfc *pfc,
	       const struct dcbnl_buffer *b)
{
	struct dcbnl_answer a = { .cmd = DCB_CMD_IEEE_SET };
	struct nlmsghdr *nlh;
	int err;

	h->err[0] = '\0';
	nlh = dcbnl_msg_set(h->nl.buf, ++h->nl.seq, ifname, pfc, b);
	if (!nlh)
		return bad_name(h);
	err = talk(h, nlh, &a);
	if (err) {
		if (a.replied && err != -EBADMSG)	/* the driver's status */
			snprintf(h->err, sizeof(h->err), "the driver refused the %s (its reason may be in the kernel log)",
				 pfc ? "PFC settings" : "buffer settings");
		else
			explain(h, err, a.msg);
	}
	return err;
}

int dcbnl_set_pfc(struct dcbnl *h, const char *ifname,
		  const struct ieee_pfc *pfc)
{
	return set(h, ifname, pfc, NULL);
}

int dcbnl_set_buffer(struct dcbnl *h, const char *ifname,
		     const struct dcbnl_buffer *buf)
{
	return set(h, ifname, NULL, buf);
}

/* ---- text ------------------------------------------------------------------- */

static int perr(struct dcbnl_perr *e, const char *item, size_t len,
		const char *why)
{
	if (e) {
		snprintf(e->item, sizeof(e->item), "%.*s", (int)len, item);
		snprintf(e->why, sizeof(e->why), "%s", why);
	}
	return -EINVAL;
}

/* A single decimal digit 0..@max, or "all" (-1) if @all. */
static int small(const char *s, size_t len, unsigned int max, bool all)
{
	if (all && len == 3 && !strncmp(s, "all", 3))
		return -1;
	if (len != 1 || s[0] < '0' || s[0] > '9' ||
	    (unsigned int)(s[0] - '0') > max)
		return -2;
	return s[0] - '0';
}

/*
 * Split @s at commas; each item "KEY:VALUE" (@pair) or "KEY" through @fn.
 * Empty items are errors.
 */
typedef int (*item_fn)(const char *item, size_t len, const char *colon,
		       void *data, struct dcbnl_perr *e);

static int each(const char *s, item_fn fn, void *data, struct dcbnl_perr *e)
{
	const char *p = s, *colon;
	size_t len;
	int ret;

	if (!s || !*s)
		return perr(e, "", 0, "empty list");
	for (;;) {
		len = strcspn(p, ",");
		if (!len)
			return perr(e, s, strlen(s), "empty item in the list");
		colon = memchr(p, ':', len);
		ret = fn(p, len, colon, data, e);
		if (ret)
			return ret;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

struct onoff {
	uint8_t en, mask;
};

static int onoff_item(const char *it, size_t len, const char *colon,
		      void *data, struct dcbnl_perr *e)
{
	struct onoff *o = data;
	const char *v;
	size_t vl;
	int p;
	bool on;

	if (!colon)
		return perr(e, it, len, "expected PRIO:on or PRIO:off");
	p = small(it, (size_t)(colon - it), 7, true);
	if (p == -2)
		return perr(e, it, len, "priority must be 0..7");
	v = colon + 1;
	vl = len - (size_t)(v - it);
	if (vl == 2 && !strncmp(v, "on", 2))
		on = true;
	else if (vl == 3 && !strncmp(v, "off", 3))
		on = false;
	else
		return perr(e, it, len, "expected on or off after the priority");
	if (p < 0) {
		o->mask = 0xff;
		o->en = on ? 0xff : 0;
	} else {
		o->mask |= 1u << p;
		o->en = on ? o->en | 1u << p : o->en & ~(1u << p);
	}
	return 0;
}

int dcbnl_parse_prio_onoff(const char *s, uint8_t *en, uint8_t *mask,
			   struct dcbnl_perr *e)
{
	struct onoff o = { 0 };
	int ret = each(s, onoff_item, &o, e);

	if (ret)
		return ret;
	*en = o.en;
	*mask = o.mask;
	return 0;
}

static int list_item(const char *it, size_t len, const char *colon,
		     void *data, struct dcbnl_perr *e)
{
	uint8_t *m = data;
	int p;

	if (colon)
		return perr(e, it, len, "expected a priority 0..7");
	p = small(it, len, 7, false);
	if (p < 0)
		return perr(e, it, len, "priority must be 0..7");
	*m |= 1u << p;
	return 0;
}

int dcbnl_parse_prio_list(const char *s, uint8_t *mask, struct dcbnl_perr *e)
{
	uint8_t m = 0;
	int ret;

	if (s && !strcmp(s, "none")) {
		*mask = 0;
		return 0;
	}
	ret = each(s, list_item, &m, e);
	if (ret)
		return ret;
	*mask = m;
	return 0;
}

/*
 * The values of an "INDEX:VALUE ..." list by index (a priority or a
 * buffer, 0..7; "all:" sets every one), and which indices it set.
 */
struct by_index {
	uint32_t v[8];
	uint8_t mask;
};

_Static_assert(DCBNL_PRIOS == 8 && DCBNL_BUFFERS == 8,
	       "struct by_index holds 8 priorities or buffers");

/* @v at index @i, or at every index if @i is -1 ("all"). */
static void by_index_set(struct by_index *m, int i, uint32_t v)
{
	int j;

	for (j = 0; j < 8; j++) {
		if (i >= 0 && j != i)
			continue;
		m->v[j] = v;
		m->mask |= 1u << j;
	}
}

static int p2b_item(const char *it, size_t len, const char *colon,
		    void *data, struct dcbnl_perr *e)
{
	struct by_index *m = data;
	int p, b;

	if (!colon)
		return perr(e, it, len, "expected PRIO:BUFFER");
	p = small(it, (size_t)(colon - it), 7, true);
	if (p == -2)
		return perr(e, it, len, "priority must be 0..7");
	b = small(colon + 1, len - (size_t)(colon + 1 - it), DCBNL_BUFFERS - 1,
		  false);
	if (b < 0)
		return perr(e, it, len, "buffer must be 0..7");
	by_index_set(m, p, (uint32_t)b);
	return 0;
}

int dcbnl_parse_prio2buffer(const char *s, uint8_t p2b[DCBNL_PRIOS],
			    uint8_t *mask, struct dcbnl_perr *e)
{
	struct by_index m = { { 0 }, 0 };
	int ret = each(s, p2b_item, &m, e), i;

	if (ret)
		return ret;
	for (i = 0; i < DCBNL_PRIOS; i++)
		if (m.mask & 1u << i)
			p2b[i] = (uint8_t)m.v[i];
	*mask = m.mask;
	return 0;
}

int dcbnl_parse_size(const char *s, uint32_t *bytes)
{
	uint64_t v = 0, mul = 1;
	const char *p = s;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > UINT32_MAX) {
			while (*p >= '0' && *p <= '9')
				p++;
			if (*p && strcmp(p, "K") && strcmp(p, "M") &&
			    strcmp(p, "k") && strcmp(p, "m"))
				return -EINVAL;
			return -ERANGE;
		}
	}
	if (!strcmp(p, "K") || !strcmp(p, "k"))
		mul = 1024;
	else if (!strcmp(p, "M") || !strcmp(p, "m"))
		mul = 1024 * 1024;
	else if (*p)
		return -EINVAL;
	if (v * mul > UINT32_MAX)
		return -ERANGE;
	*bytes = (uint32_t)(v * mul);
	return 0;
}

static int size_item(const char *it, size_t len, const char *colon,
		     void *data, struct dcbnl_perr *e)
{
	struct by_index *m = data;
	char num[32];
	uint32_t v;
	int b, ret;

	if (!colon)
		return perr(e, it, len, "expected BUFFER:SIZE");
	b = small(it, (size_t)(colon - it), DCBNL_BUFFERS - 1, true);
	if (b == -2)
		return perr(e, it, len, "buffer must be 0..7");
	if (len - (size_t)(colon + 1 - it) >= sizeof(num))
		return perr(e, it, len, "size is too long");
	snprintf(num, sizeof(num), "%.*s", (int)(len - (size_t)(colon + 1 - it)),
		 colon + 1);
	ret = dcbnl_parse_size(num, &v);
	if (ret == -ERANGE)
		return perr(e, it, len, "size must be at most 4294967295 bytes (4095M)");
	if (ret)
		return perr(e, it, len, "size must be bytes, or with K or M (1024-based)");
	by_index_set(m, b, v);
	return 0;
}

int dcbnl_parse_buffer_sizes(const char *s, uint32_t size[DCBNL_BUFFERS],
			     uint8_t *mask, struct dcbnl_perr *e)
{
	struct by_index m = { { 0 }, 0 };
	int ret = each(s, size_item, &m, e), i;

	if (ret)
		return ret;
	for (i = 0; i < DCBNL_BUFFERS; i++)
		if (m.mask & 1u << i)
			size[i] = m.v[i];
	*mask = m.mask;
	return 0;
}

int dcbnl_parse_speed(const char *s, unsigned int *mbps)
{
	uint64_t v = 0, mul = 1;
	const char *p = s;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > 1600000)
			return -EINVAL;
	}
	if (!strcmp(p, "G") || !strcmp(p, "g"))
		mul = 1000;
	else if (*p && strcmp(p, "M") && strcmp(p, "m"))
		return -EINVAL;
	v *= mul;
	if (!v || v > 1600000)
		return -EINVAL;
	*mbps = (unsigned int)v;
	return 0;
}

int dcbnl_parse_length(const char *s, double *m)
{
	char num[32], *end;
	size_t n;
	double v;

	if (!s || !*s || (*s < '0' || *s > '9'))
		return -EINVAL;
	n = strlen(s);
	if (s[n - 1] == 'm')
		n--;
	if (!n || n >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, n);
	num[n] = '\0';
	if (strpbrk(num, "xXeEpPnNiI"))
		return -EINVAL;
	errno = 0;
	v = strtod(num, &end);
	if (*end || errno || !(v >= 0 && v <= 10000))
		return -EINVAL;
	*m = v;
	return 0;
}

const char *dcbnl_prio_str(uint8_t mask, char *buf, size_t n)
{
	size_t len = 0;
	int i;

	if (!n)
		return buf;
	buf[0] = '\0';
	if (!mask) {
		snprintf(buf, n, "none");
		return buf;
	}
	for (i = 0; i < 8 && len < n; i++)
		if (mask & 1u << i)
			len += (size_t)snprintf(buf + len, n - len, "%s%d",
						len ? "," : "", i);
	return buf;
}

const char *dcbnl_size_str(uint32_t bytes, char *buf, size_t n)
{
	if (bytes && !(bytes % (1024 * 1024)))
		snprintf(buf, n, "%uM", bytes / (1024 * 1024));
	else if (bytes && !(bytes % 1024))
		snprintf(buf, n, "%uK", bytes / 1024);
	else
		snprintf(buf, n, "%u", bytes);
	return buf;
}
