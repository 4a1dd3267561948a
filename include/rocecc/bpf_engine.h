/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * rocecc shared code: how the BPF datapath engine (bpf/dcqcn.bpf.c) marks
 * a netdev as its own, for the loader that attaches it
 * (daemon/lib/bpf_dp.c) and for rocecc.ko, which must not attach to such
 * a netdev (kmod/bpf_engine.c): the engine's cls_bpf filters sit on the
 * netdev's clsact hooks at these priorities with this handle, from
 * attach to detach. The ingress filter runs after flowmon's (0xc0c), so
 * that flowmon sees the CNPs consumed here; the egress one before it, so
 * that flowmon sees the CNPs built here, not the packets they are built
 * from.
 */
#ifndef _ROCECC_BPF_ENGINE_H
#define _ROCECC_BPF_ENGINE_H

#define ROCECC_BPF_TC_PRIO_INGRESS	0xc0d
#define ROCECC_BPF_TC_PRIO_EGRESS	0xc0b
#define ROCECC_BPF_TC_HANDLE		0xdc

/* Why a netdev the BPF engine drives is refused (the module's extack) */
#define ROCECC_BPF_ENGINE_DRIVES	\
	"the BPF datapath drives this device (roceccd [datapath] engine = bpf); it must be detached there first"

#endif /* _ROCECC_BPF_ENGINE_H */
