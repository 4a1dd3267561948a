// SPDX-License-Identifier: GPL-2.0
/*
 * The qdiscs of a netdev over rtnetlink (see qdisc.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "array.h"
#include "nlsock.h"
#include "qdisc.h"

/* fq's own defaults (net/sched/sch_fq.c), for options a dump leaves out */
#define FQ_DFLT_HORIZON_US	10000000U
#define FQ_DFLT_FLOW_LIMIT	100U

static int fq_opt_cb(const struct nlattr *a, void *data)
{
	struct qdisc_info *q = data;

	switch (mnl_attr_get_type(a)) {
	case TCA_FQ_HORIZON:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return MNL_CB_ERROR;
		q->fq_horizon_us = mnl_attr_get_u32(a);
		break;
	case TCA_FQ_HORIZON_DROP:
		if (mnl_attr_validate(a, MNL_TYPE_U8) < 0)
			return MNL_CB_ERROR;
		q->fq_horizon_drop = mnl_attr_get_u8(a);
		break;
	case TCA_FQ_FLOW_PLIMIT:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return MNL_CB_ERROR;
		q->fq_flow_limit = mnl_attr_get_u32(a);
		break;
	}
	return MNL_CB_OK;
}

struct parse_ctx {
	struct qdisc_info *q;
	const struct nlattr *opts;
	bool kind;
};

static int top_cb(const struct nlattr *a, void *data)
{
	struct parse_ctx *c = data;

	switch (mnl_attr_get_type(a)) {
	case TCA_KIND:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0 ||
		    mnl_attr_get_payload_len(a) > QDISC_KIND_MAX)
			return MNL_CB_ERROR;
		snprintf(c->q->kind, sizeof(c->q->kind), "%s",
			 mnl_attr_get_str(a));
		c->kind = true;
		break;
	case TCA_OPTIONS:
		c->opts = a;
		break;
	}
	return MNL_CB_OK;
}

int qdisc_parse(const struct nlmsghdr *nlh, struct qdisc_info *q,
		uint32_t *ifindex)
{
	struct qdisc_info tmp = { 0 };
	struct parse_ctx c = { .q = &tmp };
	const struct tcmsg *tcm;

	if (nlh->nlmsg_type != RTM_NEWQDISC)
		return 1;
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*tcm))
		return -EBADMSG;
	tcm = mnl_nlmsg_get_payload(nlh);
	if (mnl_attr_parse(nlh, sizeof(*tcm), top_cb, &c) != MNL_CB_OK ||
	    !c.kind)
		return -EBADMSG;
	tmp.handle = tcm->tcm_handle;
	tmp.parent = tcm->tcm_parent;
	if (!strcmp(tmp.kind, "fq")) {
		tmp.fq = true;
		tmp.fq_horizon_us = FQ_DFLT_HORIZON_US;
		tmp.fq_horizon_drop = true;
		tmp.fq_flow_limit = FQ_DFLT_FLOW_LIMIT;
		if (c.opts && mnl_attr_parse_nested(c.opts, fq_opt_cb, &tmp) !=
			      MNL_CB_OK)
			return -EBADMSG;
	}
	*ifindex = (uint32_t)tcm->tcm_ifindex;
	*q = tmp;
	return 0;
}

struct dump_ctx {
	uint32_t ifindex;
	struct qdisc_info *v;
	size_t n, cap;
	int err;
};

static int dump_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dump_ctx *d = data;
	struct qdisc_info q, *nv;
	uint32_t ifindex;
	int ret = qdisc_parse(nlh, &q, &ifindex);

	if (ret == 1 || (!ret && ifindex != d->ifindex))
		return MNL_CB_OK;
	if (ret) {
		d->err = ret;
		return MNL_CB_ERROR;
	}
	nv = array_grow(d->v, &d->cap, d->n + 1, sizeof(*nv));
	if (!nv) {
		d->err = -ENOMEM;
		return MNL_CB_ERROR;
	}
	d->v = nv;
	d->v[d->n++] = q;
	return MNL_CB_OK;
}

int qdisc_dump(uint32_t ifindex, struct qdisc_info **out, size_t *n)
{
	struct dump_ctx d = { .ifindex = ifindex };
	struct nlmsghdr *nlh;
	struct nlsock nl;
	struct tcmsg *tcm;
	int err;

	err = nlsock_open(&nl, NETLINK_ROUTE, MNL_SOCKET_BUFFER_SIZE);
	if (err)
		return err;
	nlh = mnl_nlmsg_put_header(nl.buf);
	nlh->nlmsg_type = RTM_GETQDISC;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = ++nl.seq;
	tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = (int)ifindex;
	err = nlsock_call(&nl, nlh, dump_cb, &d, NULL, 0);
	nlsock_close(&nl);
	if (d.err || err) {
		free(d.v);
		return d.err ? d.err : err;
	}
	*out = d.v;
	*n = d.n;
	return 0;
}

const struct qdisc_info *qdisc_child(const struct qdisc_info *list, size_t n,
				     uint32_t parent)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (list[i].parent == parent)
			return &list[i];
	return NULL;
}

const struct qdisc_info *qdisc_root(const struct qdisc_info *list, size_t n)
{
	return qdisc_child(list, n, TC_H_ROOT);
}

const char *qdisc_handle_str(uint32_t h, char *buf, size_t len)
{
	if (h == TC_H_ROOT)
		snprintf(buf, len, "root");
	else if (TC_H_MIN(h))
		snprintf(buf, len, "%x:%x", TC_H_MAJ(h) >> 16, TC_H_MIN(h));
	else
		snprintf(buf, len, "%x:", TC_H_MAJ(h) >> 16);
	return buf;
}
