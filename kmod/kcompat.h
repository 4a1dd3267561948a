/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocecc.ko's view of the kernel versions it builds for: Debian 12's 6.1
 * and 6.12 (dkms.conf, BUILD_EXCLUSIVE_KERNEL). Every difference between
 * them that the module meets is one small named shim here, with the
 * kernel release that changed it and what goes wrong without it; this is
 * the only file in kmod/ that tests the kernel version. A new kernel is
 * added here (README, "Adding a kernel").
 *
 * Differences that need no shim because the code is the same on both, but
 * that were checked (6.1 and 6.12 sources):
 *  - struct rxe_qp starts with its struct ib_qp on both: ib_core's
 *    INIT_RDMA_OBJ_SIZE() refuses anything else at build time.
 *  - rdma_rxe keeps each QP in its UDP socket's sk_user_data on 6.1 and
 *    6.12.44 and later (6.10 to 6.12.43 kept the QP's pool index there):
 *    checked at run time, on the running kernel, by rxe.c.
 *  - rxe sends every QP packet with skb->sk set to the QP's socket, made
 *    by sock_create_kern(), and sk_alloc() sets sk_kern_sock for kernel
 *    sockets only: the test that tells rxe's packets from a user's
 *    (rxe.c, rocecc_rxe_lqpn()) reads the same bit on both.
 *  - dcbnl_rtnl_ops: the callbacks rocecc implements kept their
 *    signatures; RTM_GETDCB/RTM_SETDCB still run under RTNL (dcb.c).
 *  - nf_register_net_hooks() and the hook priorities are unchanged.
 *  - fq: TCA_FQ_FLOW_PLIMIT, TCA_FQ_HORIZON and TCA_FQ_HORIZON_DROP mean
 *    the same; 6.7 made fq's packet limit per band (three bands, all of
 *    rxe's traffic in one) instead of per qdisc, the same bound for us.
 *  - The receive path from LOCAL_IN to rdma_rxe (udp_rcv,
 *    skb_steal_sock(), rxe_udp_encap_recv()) neither orphans an skb
 *    without an owner nor copies its destructor (pfc_gen.c's occupancy).
 */
#ifndef _ROCECC_KCOMPAT_H
#define _ROCECC_KCOMPAT_H

#include <linux/skbuff.h>
#include <linux/sysctl.h>
#include <linux/version.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/pkt_sched.h>

/*
 * Built for kernel @maj.@min or later. The one use of LINUX_VERSION_CODE
 * (checkpatch's warning about it is silenced for this file only, and
 * "make check-style" fails if it appears anywhere else in kmod/).
 */
#define ROCECC_KERNEL_SINCE(maj, min) \
	(LINUX_VERSION_CODE >= KERNEL_VERSION(maj, min, 0))

/*
 * 6.11 made the ctl_table that a sysctl proc_handler gets const. A handler is declared as
 *   static int h(ROCECC_CTL_TABLE_CONST struct ctl_table *table, ...)
 * and must not write to @table on any kernel.
 */
#if ROCECC_KERNEL_SINCE(6, 11)
#define ROCECC_CTL_TABLE_CONST	const
#else
#define ROCECC_CTL_TABLE_CONST
#endif

/*
 * Register @n sysctl entries of @table, which the caller allocates with
 * one more, zeroed, entry after them. 6.1 finds the end of a table by
 * that empty sentinel; 6.6 added register_net_sysctl_sz() with the size,
 * and from 6.11 the size is the only end marker: an empty entry counted
 * in it would be registered as a file without a name. So the sentinel is
 * always there and never counted.
 */
static inline struct ctl_table_header *
rocecc_register_net_sysctl(struct net *net, const char *path,
			   struct ctl_table *table, size_t n)
{
#if ROCECC_KERNEL_SINCE(6, 6)
	return register_net_sysctl_sz(net, path, table, n);
#else
	return register_net_sysctl(net, path, table);
#endif
}

/*
 * 6.2 split generic netlink ops into per-command do/dump "split ops" and
 * pre_doit/post_doit receive the one that runs. Declare
 *   static int pre(const struct rocecc_genl_split_ops *ops, ...)
 */
#if ROCECC_KERNEL_SINCE(6, 2)
#define rocecc_genl_split_ops	genl_split_ops
#else
#define rocecc_genl_split_ops	genl_ops
#endif

/*
 * The parsed attributes of a generic netlink dump request: 6.6 moved them
 * from struct genl_dumpit_info into the struct genl_info it now embeds
 * (genl_info_dump()).
 */
static inline struct nlattr **
rocecc_genl_dump_attrs(struct netlink_callback *cb)
{
#if ROCECC_KERNEL_SINCE(6, 6)
	return genl_info_dump(cb)->attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}

/*
 * Give @skb the earliest departure time @ns, CLOCK_MONOTONIC
 * (ktime_get_ns()), the clock fq compares it with. 6.1 marks a monotonic
 * stamp with a bool (mono_delivery_time); 6.11 replaced the bool by a
 * clock type (tstamp_type) whose 0 is SKB_CLOCK_REALTIME. Any integer
 * builds there: fq takes the value as it is, but whatever honours the
 * type (skb_clear_tstamp() when the packet enters another namespace,
 * skb_tstamp() for receive timestamps) would treat a wrong one as a
 * wall-clock time.
 */
static inline void rocecc_skb_set_edt(struct sk_buff *skb, u64 ns)
{
#if ROCECC_KERNEL_SINCE(6, 11)
	skb_set_delivery_time(skb, ns_to_ktime(ns), SKB_CLOCK_MONOTONIC);
#else
	skb_set_delivery_time(skb, ns_to_ktime(ns), true);
#endif
}

/*
 * The alias under which the kernel asks modprobe for qdisc @id when
 * "tc qdisc add ... @id" names one that is not registered: "sch_<id>" up
 * to 6.9, "net-sch-<id>" from 6.10 (MODULE_ALIAS_NET_SCH()). With the
 * old one only, the qdisc works once rocecc.ko is loaded, but "tc qdisc
 * add" no longer loads it: silently, "Unknown qdisc".
 */
#if ROCECC_KERNEL_SINCE(6, 10)
#define ROCECC_MODULE_ALIAS_QDISC(id)	MODULE_ALIAS_NET_SCH(id)
#else
#define ROCECC_MODULE_ALIAS_QDISC(id)	MODULE_ALIAS("sch_" id)
#endif

#endif /* _ROCECC_KCOMPAT_H */
