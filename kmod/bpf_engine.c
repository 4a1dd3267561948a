// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc: the BPF datapath engine's netdevs, which rocecc.ko must not
 * attach to (the two engines never drive one netdev).
 *
 * The BPF engine (bpf/dcqcn.bpf.c, loaded by roceccd) refuses a netdev
 * the module has; this is the other way round, in the kernel, so that no
 * user of the generic netlink family gets past it. A netdev is the BPF
 * engine's while a cls_bpf filter with the engine's handle sits at its
 * priority on the netdev's clsact ingress or egress block
 * (include/rocecc/bpf_engine.h): its loader puts them there when it
 * attaches and takes them away when it detaches, and nothing else of the
 * engine marks a netdev (a pinned marker would outlive a crash of the
 * daemon; the filters go with the qdisc). The program's name is not
 * looked at: cls_bpf keeps it private; priority, kind and handle are the
 * engine's alone. The user-space check (bpf_dp_on_netdev()) compares the
 * names too and says more.
 *
 * Called under RTNL, which serialises filter changes of RTNL-locked
 * classifiers like cls_bpf and keeps the ingress qdisc in place. No
 * allocation, no lock of its own: the chain and filter iterators take
 * and drop their references themselves, walked to the end.
 */
#include <linux/netdevice.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <net/pkt_cls.h>
#include <net/sch_generic.h>
#include <rocecc/bpf_engine.h>

#include "rocecc.h"

/* Does @block hold the engine's filter at priority @prio? */
static bool rocecc_block_has_bpf_engine(struct tcf_block *block, u32 prio)
{
	struct tcf_chain *chain;
	struct tcf_proto *tp;
	bool found = false;

	if (!block)
		return false;
	/* Every iteration to its end: each step puts the previous reference. */
	for (chain = tcf_get_next_chain(block, NULL); chain;
	     chain = tcf_get_next_chain(block, chain)) {
		for (tp = tcf_get_next_proto(chain, NULL); tp;
		     tp = tcf_get_next_proto(chain, tp)) {
			if (!found && tp->prio == prio << 16 &&
			    !strcmp(tp->ops->kind, "bpf") && tp->ops->get &&
			    tp->ops->get(tp, ROCECC_BPF_TC_HANDLE))
				found = true;
		}
	}
	return found;
}

bool rocecc_bpf_engine_drives(struct net_device *netdev)
{
	struct netdev_queue *ingq = dev_ingress_queue(netdev);
	const struct Qdisc_class_ops *cops;
	struct tcf_block *in, *eg;
	struct Qdisc *q;

	ASSERT_RTNL();
	if (!ingq)
		return false;
	q = rtnl_dereference(ingq->qdisc_sleeping);
	/* the engine's loader sets clsact up (libbpf's bpf_tc_hook_create) */
	if (!q || strcmp(q->ops->id, "clsact"))
		return false;
	cops = q->ops->cl_ops;
	if (!cops || !cops->tcf_block)
		return false;
	in = cops->tcf_block(q, TC_H_MIN(TC_H_MIN_INGRESS), NULL);
	eg = cops->tcf_block(q, TC_H_MIN(TC_H_MIN_EGRESS), NULL);
	return rocecc_block_has_bpf_engine(in, ROCECC_BPF_TC_PRIO_INGRESS) ||
	       rocecc_block_has_bpf_engine(eg, ROCECC_BPF_TC_PRIO_EGRESS);
}
