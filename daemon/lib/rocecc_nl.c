// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink client of rocecc.ko's family. See rocecc_nl.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <uapi/linux/rocecc.h>

#include "rocecc_nl.h"

/* Dumps fill skbs of up to 32 KiB when the reader's buffer allows it. */
#define RNL_BUFSZ	(32768 + 4096)

struct rnl_run {
	struct rnl *r;
	mnl_cb_t cb;
	void *data;
	int err;
};

static int rnl_ext_attr_cb(const struct nlattr *a, void *data)
{
	struct rnl *r = data;

	switch (mnl_attr_get_type(a)) {
	case NLMSGERR_ATTR_MSG:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
			snprintf(r->ext_msg, sizeof(r->ext_msg), "%s",
				 mnl_attr_get_str(a));
		break;
	case NLMSGERR_ATTR_OFFS:
		if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
			r->ext_offs = mnl_attr_get_u32(a);
		break;
	}
	return MNL_CB_OK;
}

/* The extack TLVs after an error (or done) message's fixed part. */
static void rnl_parse_ext(struct rnl *r, const struct nlmsghdr *nlh,
			  size_t off)
{
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (mnl_nlmsg_get_payload_len(nlh) < off)
		return;
	mnl_attr_parse(nlh, off, rnl_ext_attr_cb, r);
}

static int rnl_cb_error(const struct nlmsghdr *nlh, void *data)
{
	struct rnl_run *run = data;
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	size_t off = sizeof(*e);

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*e)) {
		run->err = -EBADMSG;
		return MNL_CB_STOP;
	}
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
	rnl_parse_ext(run->r, nlh, off);
	/* error 0 is the ACK; a message with it is a warning. */
	run->err = e->error;
	if (!e->error && run->r->ext_msg[0])
		fprintf(stderr, "Warning: %s\n", run->r->ext_msg);
	return MNL_CB_STOP;
}

static int rnl_cb_done(const struct nlmsghdr *nlh, void *data)
{
	struct rnl_run *run = data;
	int err = 0;

	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		run->r->dump_intr = true;
	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(int)) {
		memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
		rnl_parse_ext(run->r, nlh, sizeof(int));
	}
	run->err = err < 0 ? err : 0;
	return MNL_CB_STOP;
}

static int rnl_cb_data(const struct nlmsghdr *nlh, void *data)
{
	struct rnl_run *run = data;
	int ret;

	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		run->r->dump_intr = true;
	if (!run->cb)
		return MNL_CB_OK;
	ret = run->cb(nlh, run->data);
	if (ret == MNL_CB_ERROR && !run->err)
		run->err = -EBADMSG;
	return ret;
}

static mnl_cb_t rnl_ctl[NLMSG_MIN_TYPE] = {
	[NLMSG_ERROR] = rnl_cb_error,
	[NLMSG_DONE] = rnl_cb_done,
};

static struct nlmsghdr *rnl_msg_raw(struct rnl *r, uint16_t type, uint8_t cmd,
				    uint8_t version, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(r->nl.buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++r->nl.seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = version;
	return nlh;
}

struct nlmsghdr *rnl_msg(struct rnl *r, uint8_t cmd, uint16_t flags)
{
	return rnl_msg_raw(r, r->family, cmd, ROCECC_GENL_VERSION, flags);
}

int rnl_talk(struct rnl *r, struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	struct rnl_run run = { .r = r, .cb = cb, .data = data };
	int ret;

	r->ext_msg[0] = '\0';
	r->ext_offs = 0;
	r->dump_intr = false;
	ret = nlsock_call(&r->nl, nlh, rnl_cb_data, &run, rnl_ctl,
			  NLMSG_MIN_TYPE);
	return run.err ? run.err : ret;
}

/* --- attributes ---------------------------------------------------------- */

struct rnl_attrs {
	const struct nlattr **tb;
	unsigned int bad;
};

static int rnl_attr_cb(const struct nlattr *a, void *data)
{
	struct rnl_attrs *at = data;
	unsigned int type = mnl_attr_get_type(a);
	enum mnl_attr_data_type want;

	switch (type) {
	case ROCECC_A_DEV_IFINDEX:
	case ROCECC_A_PROFILE:
		want = MNL_TYPE_U32;
		break;
	case ROCECC_A_DEV_NAME:
		want = MNL_TYPE_NUL_STRING;
		break;
	case ROCECC_A_DEV_SW_DCB:
		want = MNL_TYPE_U8;
		break;
	case ROCECC_A_PARAMS:
	case ROCECC_A_STATS:
	case ROCECC_A_FLOW:
	case ROCECC_A_PFC:
		want = MNL_TYPE_NESTED;
		break;
	default:
		return MNL_CB_OK;	/* newer kernel: ignore */
	}
	if (mnl_attr_validate(a, want) < 0) {
		at->bad = type;
		return MNL_CB_ERROR;
	}
	at->tb[type] = a;
	return MNL_CB_OK;
}

int rnl_parse(const struct nlmsghdr *nlh,
	      const struct nlattr *tb[ROCECC_A_MAX + 1], unsigned int *bad)
{
	struct rnl_attrs at = { .tb = tb };

	memset(tb, 0, sizeof(*tb) * (ROCECC_A_MAX + 1));
	if (mnl_attr_parse(nlh, sizeof(struct genlmsghdr), rnl_attr_cb, &at) < 0) {
		*bad = at.bad;
		return -EBADMSG;
	}
	return 0;
}

/* --- family resolution ---------------------------------------------------- */

struct rnl_family {
	uint16_t id;
	uint32_t grp;
};

static int rnl_grp_cb(const struct nlattr *a, void *data)
{
	struct rnl_family *f = data;
	const struct nlattr *g;
	const char *name = NULL;
	uint32_t id = 0;

	mnl_attr_for_each_nested(g, a) {
		if (mnl_attr_get_type(g) == CTRL_ATTR_MCAST_GRP_NAME &&
		    !mnl_attr_validate(g, MNL_TYPE_NUL_STRING))
			name = mnl_attr_get_str(g);
		else if (mnl_attr_get_type(g) == CTRL_ATTR_MCAST_GRP_ID &&
			 !mnl_attr_validate(g, MNL_TYPE_U32))
			id = mnl_attr_get_u32(g);
	}
	if (name && !strcmp(name, ROCECC_GENL_MCGRP_EVENTS))
		f->grp = id;
	return MNL_CB_OK;
}

static int rnl_family_attr_cb(const struct nlattr *a, void *data)
{
	struct rnl_family *f = data;
	const struct nlattr *g;

	switch (mnl_attr_get_type(a)) {
	case CTRL_ATTR_FAMILY_ID:
		if (!mnl_attr_validate(a, MNL_TYPE_U16))
			f->id = mnl_attr_get_u16(a);
		break;
	case CTRL_ATTR_MCAST_GROUPS:
		mnl_attr_for_each_nested(g, a)
			rnl_grp_cb(g, f);
		break;
	}
	return MNL_CB_OK;
}

static int rnl_family_cb(const struct nlmsghdr *nlh, void *data)
{
	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), rnl_family_attr_cb,
		       data);
	return MNL_CB_OK;
}

int rnl_open(struct rnl *r)
{
	struct rnl_family f = { 0 };
	struct nlmsghdr *nlh;
	int err;

	memset(r, 0, sizeof(*r));
	err = nlsock_open(&r->nl, NETLINK_GENERIC, RNL_BUFSZ);
	if (err)
		return err;
	nlh = rnl_msg_raw(r, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, NLM_F_ACK);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, ROCECC_GENL_NAME);
	err = rnl_talk(r, nlh, rnl_family_cb, &f);
	if (!err && !f.id)
		err = -ENOENT;
	if (err) {
		rnl_close(r);
		return err;
	}
	r->family = f.id;
	r->mcgrp_events = f.grp;
	return 0;
}

void rnl_close(struct rnl *r)
{
	nlsock_close(&r->nl);
}

int rnl_listen(struct rnl *r, mnl_cb_t cb, void *data)
{
	struct rnl_run run = { .r = r, .cb = cb, .data = data };
	ssize_t n;
	int ret;

	if (!r->mcgrp_events)
		return -ENOENT;
	if (mnl_socket_setsockopt(r->nl.sk, NETLINK_ADD_MEMBERSHIP,
				  &r->mcgrp_events,
				  sizeof(r->mcgrp_events)) < 0)
		return -errno;
	for (;;) {
		n = mnl_socket_recvfrom(r->nl.sk, r->nl.buf, r->nl.bufsz);
		if (n < 0) {
			if (errno == ENOBUFS) {
				fprintf(stderr, "rocecc: monitor: events lost (receive buffer full)\n");
				continue;
			}
			if (errno == EINTR)
				continue;
			return -errno;
		}
		ret = mnl_cb_run2(r->nl.buf, n, 0, 0, rnl_cb_data, &run,
				  rnl_ctl, NLMSG_MIN_TYPE);
		if (ret == MNL_CB_ERROR)
			return run.err ? run.err : -EIO;
	}
}
