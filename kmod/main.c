// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc: host-side DCQCN congestion control for RoCEv2 (soft-RoCE).
 *
 * Module entry points. At this stage the module registers nothing: it only
 * proves that the shared RoCEv2 and DCQCN code builds and runs in the kernel,
 * and that it loads and unloads cleanly.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/init.h>

static int __init rocecc_init(void)
{
	pr_info("version %s loaded\n", ROCECC_VERSION);
	return 0;
}

static void __exit rocecc_exit(void)
{
	pr_info("unloaded\n");
}

module_init(rocecc_init);
module_exit(rocecc_exit);

MODULE_DESCRIPTION("Host-side DCQCN congestion control for RoCEv2");
MODULE_AUTHOR("rocecc developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(ROCECC_VERSION);
