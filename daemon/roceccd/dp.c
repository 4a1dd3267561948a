// SPDX-License-Identifier: GPL-2.0
/*
 * roceccd: which engine drives the DCQCN datapath of each RoCE netdev
 * ([datapath] engine, --datapath; [module] devices, fq, profile and the
 * parameters apply to whichever it is): rocecc.ko (module.c) or the BPF
 * datapath (bpfdp.c), never both on one netdev, none on a NIC that runs
 * DCQCN in firmware (hw.c). And the root qdisc both pace with.
 *
 * auto picks per netdev when it attaches one: rocecc.ko if it is loaded
 * then, else BPF; a netdev keeps its engine while the configuration asks
 * for one (loading the module later moves nothing). A change of engine
 * (reload) detaches the old one before the new one attaches.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/bpf_dp.h"
#include "roceccd.h"

/* Is rocecc.ko loaded (its generic netlink family there)? */
static bool rd_mod_loaded(void)
{
	struct rnl r;

	if (rnl_open(&r))
		return false;
	rnl_close(&r);
	return true;
}

/* The engine the configuration wants on @nd (RD_ENGINE_NONE/MODULE/BPF) */
static int rd_dp_want(struct rd *rd, struct rd_netdev *nd)
{
	int e = rd_conf_engine(&rd->conf);

	if (e == RD_ENGINE_NONE ||
	    !rd_conf_dev_selected(rd->conf.module_devices, nd->name))
		return RD_ENGINE_NONE;
	/* a NIC that runs DCQCN in firmware needs no software datapath */
	if (rd_hw_find(rd, nd->name)) {
		if (nd->hw_gen != rd->conf_gen)
			rd_log(LOG_INFO_, "%s: [datapath] not on a NIC that runs DCQCN in firmware ([hw])",
			       nd->name);
		nd->hw_gen = rd->conf_gen;
		return RD_ENGINE_NONE;
	}
	if (e != RD_ENGINE_AUTO)
		return e;
	if (nd->mod_attached)
		return RD_ENGINE_MODULE;
	if (nd->bpf_attached)
		return RD_ENGINE_BPF;
	return rd_mod_loaded() ? RD_ENGINE_MODULE : RD_ENGINE_BPF;
}

void rd_dp_sync(struct rd *rd, struct rd_netdev *nd)
{
	int want = rd_dp_want(rd, nd);

	/* the old engine off first: two never drive one netdev */
	if (want != RD_ENGINE_BPF && nd->bpf_attached)
		rd_bpf_release(rd, nd, false);
	rd_mod_sync(rd, nd, want == RD_ENGINE_MODULE);
	if (want == RD_ENGINE_BPF)
		rd_bpf_sync(rd, nd);
	/* also when the module was unloaded under us: the fq is still ours */
	if (want == RD_ENGINE_NONE && !nd->mod_attached && !nd->bpf_attached)
		rd_dp_unqdisc(nd);
}

void rd_dp_release(struct rd *rd, struct rd_netdev *nd, bool stopping)
{
	rd_mod_release(rd, nd);
	rd_bpf_release(rd, nd, stopping);
	rd_dp_unqdisc(nd);
}

/*
 * Both engines pace with fq and refuse a netdev without it. With fq = yes
 * (the default) a root qdisc that is one of the kernel's or the
 * distribution's defaults is replaced by fq before attaching, and the
 * default comes back when the daemon detaches; any other root qdisc was
 * chosen by someone and is left alone (the engine then refuses the
 * netdev, and the log says why). Where [pfc] enables PFC on some
 * priority, the root is rocecc.ko's PFC qdisc "rocecc" instead, with fq
 * under each of its eight priority classes: a received PFC frame can
 * only pause a priority through it (rd_root_rocecc()); that needs the
 * module loaded, whichever engine paces.
 */
void rd_dp_qdisc(struct rd *rd, struct rd_netdev *nd)
{
	static const char *const defaults[] = {
		"noqueue", "pfifo_fast", "fq_codel", "pfifo",
	};
	bool pfc = rd->conf.pfc_prio_set && rd->conf.pfc_en &&
		   rd_conf_dev_selected(rd->conf.pfc_devices, nd->name);
	char kind[32];
	size_t i;
	int err;

	if (!rd->conf.module_fq || rd_root_kind(nd->ifindex, kind, sizeof(kind)))
		return;
	for (i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
		if (!strcmp(kind, defaults[i]))
			break;
	if (i == sizeof(defaults) / sizeof(defaults[0]))
		return;
	err = pfc ? rd_root_rocecc(nd->ifindex) : rd_root_fq(nd->ifindex, true);
	if (err) {
		rd_log(LOG_ERR_, "%s: cannot replace root qdisc %s by %s: %s",
		       nd->name, kind, pfc ? "rocecc (PFC) with fq" : "fq",
		       strerror(-err));
		if (pfc)	/* half made: the default back */
			rd_root_fq(nd->ifindex, false);
		return;
	}
	nd->created_fq = true;
	if (pfc)
		rd_log(LOG_INFO_, "%s: root qdisc %s replaced by rocecc (PFC, one class per priority) with fq flow_limit 1000 under each (the datapath paces with fq)",
		       nd->name, kind);
	else
		rd_log(LOG_INFO_, "%s: root qdisc %s replaced by fq flow_limit 1000 (the datapath paces with it)",
		       nd->name, kind);
}

/* After detaching: the default root qdisc back, if we put fq (or rocecc) there. */
void rd_dp_unqdisc(struct rd_netdev *nd)
{
	char kind[32];
	int err;

	if (!nd->created_fq)
		return;
	nd->created_fq = false;
	if (rd_root_kind(nd->ifindex, kind, sizeof(kind)) ||
	    (strcmp(kind, "fq") && strcmp(kind, "rocecc")))
		return;		/* gone, or someone changed it since */
	err = rd_root_fq(nd->ifindex, false);
	if (err && err != -ENODEV && err != -ENOENT)
		rd_log(LOG_WARN_, "%s: removing the %s root qdisc: %s", nd->name,
		       kind, strerror(-err));
	else if (!err)
		rd_log(LOG_INFO_, "%s: %s root qdisc removed (default back)",
		       nd->name, kind);
}
