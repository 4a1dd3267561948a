// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc: host-side DCQCN congestion control for RoCEv2 (soft-RoCE).
 *
 * Module entry points. Load order: the default parameter set, its sysctl
 * directory, the netdevice notifier, the datapath (flow table, QP cache,
 * netfilter hooks, ib_client: dp.c), software DCB/PFC (dcb.c: PFC
 * generation, pfc_gen.c, then reception, pfc_rx.c), the "rocecc" qdisc
 * (sch.c), and last the generic netlink family, so that nothing can
 * attach a device before everything it needs exists. Unload runs in
 * reverse: the family goes first (no new attach, no more requests in
 * flight), then the qdisc is unregistered (none exists: each holds a
 * module reference, so rmmod fails with EBUSY while one does), then every
 * device is detached, then the datapath stops, then PFC (it waits for
 * received packets still counted in a device's occupancy), then the
 * default set's sysctl directory and the set itself.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/init.h>
#include <net/genetlink.h>

#include "rocecc.h"

static int __init rocecc_init(void)
{
	int err;

	err = rocecc_params_init();
	if (err)
		return err;
	err = rocecc_sysctl_init();
	if (err)
		goto err_params;
	err = rocecc_dev_init();
	if (err)
		goto err_sysctl;
	err = rocecc_dp_init();
	if (err)
		goto err_dev;
	err = rocecc_dcb_init();
	if (err)
		goto err_dp;
	err = rocecc_sch_init();
	if (err)
		goto err_dcb;
	err = rocecc_genl_init();
	if (err)
		goto err_sch;
	pr_info("version %s loaded\n", ROCECC_VERSION);
	return 0;

err_sch:
	rocecc_sch_exit();
err_dcb:
	rocecc_dcb_exit();
err_dp:
	rocecc_dp_exit();
err_dev:
	rocecc_dev_exit();
err_sysctl:
	rocecc_sysctl_exit();
err_params:
	rocecc_params_exit();
	return err;
}

static void __exit rocecc_exit(void)
{
	rocecc_genl_exit();
	/* None exists: each holds a module reference (rmmod: EBUSY). */
	rocecc_sch_exit();
	rocecc_dev_exit();
	/* After every device is detached: hooks, flows, QP cache. */
	rocecc_dp_exit();
	/* After the hooks: PFC receive, outstanding occupancy records. */
	rocecc_dcb_exit();
	rocecc_sysctl_exit();
	/* kfree_rcu() of replaced parameter blocks: nothing of ours runs. */
	rocecc_params_exit();
	pr_info("unloaded\n");
}

module_init(rocecc_init);
module_exit(rocecc_exit);

MODULE_DESCRIPTION("Host-side DCQCN congestion control for RoCEv2");
MODULE_AUTHOR("rocecc developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(ROCECC_VERSION);
MODULE_ALIAS_GENL_FAMILY(ROCECC_GENL_NAME);
