// SPDX-License-Identifier: GPL-2.0
/*
 * roceccd: the TC side, over rtnetlink and libbpf. flowmon_ingress and
 * flowmon_egress onto the clsact hooks of a RoCE netdev and off again, and
 * the root qdisc: its kind, and the fq that rocecc.ko paces with.
 *
 * The clsact qdisc: created at attach if the netdev has none, and never
 * removed (rd_detach takes only our filters off; a clsact without filters
 * costs nothing). Adding or deleting a clsact qdisc on a netdev that is up
 * goes through qdisc_graft() -> dev_deactivate(), which resets the root
 * qdisc and drops every packet it holds: deleting it at exit dropped the
 * paced RoCE packets fq held (10 consecutive PSNs in t_ect_pacing's
 * capture, then out-of-sequence NAKs and retries). Creating it has the same
 * effect and cannot be avoided when there is none; it happens once per
 * netdev, when roceccd first sees it, so before the BPF engine paces
 * there. If rocecc.ko already paces that netdev, what its fq holds at that
 * moment is dropped: create the clsact before starting the traffic
 * (tc qdisc add dev DEV clsact) where that matters.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <bpf/libbpf.h>

#include "flowmon.skel.h"

#include "lib/nlsock.h"
#include "lib/qdisc.h"
#include "roceccd.h"

/* Our filters' priority and handle on both clsact hooks */
#define RD_TC_PRIO	0xc0c
#define RD_TC_HANDLE	1

/* ---- TC attachment ---------------------------------------------------- */

/*
 * Send @nlh on a fresh rtnetlink socket and run the replies through @cb
 * (may be NULL) until the ACK or the end of a dump. 0 or -errno.
 */
static int rd_rtnl(struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	struct nlsock nl;
	int err;

	err = nlsock_open(&nl, NETLINK_ROUTE, 16384);
	if (err)
		return err;
	nlh->nlmsg_seq = ++nl.seq;
	err = nlsock_call(&nl, nlh, cb, data, NULL, 0);
	nlsock_close(&nl);
	return err;
}

static struct tcmsg *rd_tc_msg(char *buf, uint16_t type, uint16_t flags,
			       uint32_t ifindex, uint32_t parent)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct tcmsg *tcm;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = (int)ifindex;
	tcm->tcm_parent = parent;
	return tcm;
}

/* The kind of @ifindex's root qdisc ("noqueue", "fq", ...) into @kind. */
int rd_root_kind(uint32_t ifindex, char *kind, size_t n)
{
	const struct qdisc_info *root;
	struct qdisc_info *qd = NULL;
	size_t nqd = 0;
	int err;

	err = qdisc_dump(ifindex, &qd, &nqd);
	root = err ? NULL : qdisc_root(qd, nqd);
	snprintf(kind, n, "%s", root ? root->kind : "?");
	free(qd);
	return err;
}

/* Root qdisc of @ifindex: fq flow_limit 1000 (@add), or the default back. */
int rd_root_fq(uint32_t ifindex, bool add)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct nlattr *opt;

	rd_tc_msg(buf, add ? RTM_NEWQDISC : RTM_DELQDISC,
		  NLM_F_ACK | (add ? NLM_F_CREATE | NLM_F_REPLACE : 0),
		  ifindex, TC_H_ROOT);
	if (add) {
		mnl_attr_put_strz(nlh, TCA_KIND, "fq");
		opt = mnl_attr_nest_start(nlh, TCA_OPTIONS);
		mnl_attr_put_u32(nlh, TCA_FQ_FLOW_PLIMIT, 1000);
		mnl_attr_nest_end(nlh, opt);
	}
	return rd_rtnl(nlh, NULL, NULL);
}

/* fq flow_limit 1000 as the child of class @parent of @ifindex's root. */
static int rd_child_fq(uint32_t ifindex, uint32_t parent, uint32_t handle)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct tcmsg *tcm;
	struct nlattr *opt;

	tcm = rd_tc_msg(buf, RTM_NEWQDISC,
			NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE, ifindex,
			parent);
	tcm->tcm_handle = handle;
	mnl_attr_put_strz(nlh, TCA_KIND, "fq");
	opt = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	mnl_attr_put_u32(nlh, TCA_FQ_FLOW_PLIMIT, 1000);
	mnl_attr_nest_end(nlh, opt);
	return rd_rtnl(nlh, NULL, NULL);
}

/*
 * Root qdisc of @ifindex: rocecc.ko's PFC qdisc "rocecc" (handle 1:, one
 * class per priority, 1:1..1:8 for priorities 0..7) with fq flow_limit
 * 1000 under every class (handles 10:..17:), so that a paused priority
 * holds its packets and the others are paced as with a root fq. Removing
 * it is rd_root_fq(ifindex, false): the children go with their parent.
 */
int rd_root_rocecc(uint32_t ifindex)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct tcmsg *tcm;
	uint32_t prio;
	int err;

	tcm = rd_tc_msg(buf, RTM_NEWQDISC,
			NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE, ifindex,
			TC_H_ROOT);
	tcm->tcm_handle = TC_H_MAKE(1U << 16, 0);
	mnl_attr_put_strz(nlh, TCA_KIND, "rocecc");
	err = rd_rtnl(nlh, NULL, NULL);
	for (prio = 0; !err && prio < 8; prio++)
		err = rd_child_fq(ifindex, TC_H_MAKE(1U << 16, prio + 1),
				  TC_H_MAKE((0x10U + prio) << 16, 0));
	return err;
}

int rd_attach(struct rd *rd, struct rd_netdev *nd)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = (int)nd->ifindex,
			    .attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = RD_TC_HANDLE,
			    .priority = RD_TC_PRIO, .flags = BPF_TC_F_REPLACE);
	int err;

	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST) {
		rd_log(LOG_ERR_, "%s: cannot create the clsact qdisc: %s",
		       nd->name, strerror(-err));
		return err;
	}
	nd->created_qdisc = !err;

	hook.attach_point = BPF_TC_INGRESS;
	opts.prog_fd = bpf_program__fd(rd->skel->progs.flowmon_ingress);
	err = bpf_tc_attach(&hook, &opts);
	if (!err) {
		hook.attach_point = BPF_TC_EGRESS;
		opts.prog_fd = bpf_program__fd(rd->skel->progs.flowmon_egress);
		opts.prog_id = 0;
		err = bpf_tc_attach(&hook, &opts);
	}
	if (err) {
		rd_log(LOG_ERR_, "%s: cannot attach the flowmon programs: %s",
		       nd->name, strerror(-err));
		return err;
	}
	rd_log(LOG_INFO_, "%s (%s): flowmon attached%s", nd->name, nd->dev,
	       nd->created_qdisc ? ", clsact created" : "");
	return 0;
}

/*
 * Detach our filters. The clsact qdisc stays, even if we created it and it
 * is empty: deleting it would reset the root qdisc (see the top).
 */
void rd_detach(struct rd_netdev *nd)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = (int)nd->ifindex);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = RD_TC_HANDLE,
			    .priority = RD_TC_PRIO);
	int err;

	hook.attach_point = BPF_TC_INGRESS;
	err = bpf_tc_detach(&hook, &opts);
	if (err && err != -ENOENT && err != -ENODEV && err != -EINVAL)
		rd_log(LOG_WARN_, "%s: detaching from ingress: %s", nd->name,
		       strerror(-err));
	hook.attach_point = BPF_TC_EGRESS;
	err = bpf_tc_detach(&hook, &opts);
	if (err && err != -ENOENT && err != -ENODEV && err != -EINVAL)
		rd_log(LOG_WARN_, "%s: detaching from egress: %s", nd->name,
		       strerror(-err));
	rd_log(LOG_INFO_, "%s: flowmon detached, clsact kept", nd->name);
}
