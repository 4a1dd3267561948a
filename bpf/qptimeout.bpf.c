// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The BPF engine learns the ACK timeout of each local soft-RoCE QP, as
 * rocecc.ko does with ib_query_qp(): the pacing budget of a flow is a
 * share of its QP's timeout (include/rocecc/pacing.h), and the default
 * budget (8 ms) binds on nearly every packet at the rates the budget of
 * timeout 14 (30 ms at HZ 250) would allow.
 *
 * Neither RDMA netlink nor any map has the timeout (nldev's QP entries
 * carry QPNs, PSNs, type and state only), so a tracing program watches
 * the one place rxe takes it: fexit of rxe_modify_qp(), the rdma_rxe
 * verb every ib_modify_qp() of an rxe QP ends in (an ib_device_ops
 * pointer, never inlined; its arguments are the verbs' types, the same
 * on 6.1 and 6.12, and rdma_rxe's module BTF describes it). After a
 * modify that succeeded:
 *  - IB_QP_TIMEOUT on an RC QP: dp_qp_tmo[(ifindex, QPN)] = timeout;
 *  - the QP back to RESET or INIT without a timeout (a QPN is reused for
 *    a new QP that starts there): its entry goes, the timeout is unknown
 *    again (the default budget) until its next IB_QP_TIMEOUT.
 * The netdev is port 1's (rxe has one port) in the ib_device's port data,
 * which rxe fills with ib_device_set_netdev() on 6.1 and 6.12 alike.
 * Kernel structs are read with CO-RE (their layouts come from the
 * running kernel's BTF: ib_core's and rdma_rxe's), so one object loads
 * on both.
 *
 * roceccd (daemon/lib/bpf_dp.c) loads this next to dcqcn.bpf.c once
 * rdma_rxe is loaded and copies each QP's timeout into its dp_qps entry,
 * where the TC programs take it for the flow's budget
 * (rocecc_pace_budget_ns(), the module's arithmetic). A QP modified
 * before this was attached has no entry: it keeps the default budget.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include <rocecc/roce.h>
#include "dcqcn_bpf.h"

/* The fields read, by name; offsets and sizes from the kernel's BTF */
struct net_device {
	int ifindex;
} __attribute__((preserve_access_index));

struct ib_port_data {
	struct net_device *netdev;
} __attribute__((preserve_access_index));

struct ib_device {
	struct ib_port_data *port_data;
} __attribute__((preserve_access_index));

enum ib_qp_type { IB_QPT_RC = 2 };		/* = IB_UVERBS_QPT_RC */
enum ib_qp_state { IB_QPS_RESET, IB_QPS_INIT };

struct ib_qp {
	struct ib_device *device;
	__u32 qp_num;
	enum ib_qp_type qp_type;
} __attribute__((preserve_access_index));

struct ib_qp_attr {
	enum ib_qp_state qp_state;
	__u8 timeout;
} __attribute__((preserve_access_index));

/* enum ib_qp_attr_mask */
#define QPT_MASK_STATE		0x1
#define QPT_MASK_TIMEOUT	0x200

#define QPT_RXE_PORT		1	/* rxe's only port */

/* (ifindex, local QPN) -> ACK timeout exponent; LRU: never full */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, DCQCN_MAX_QPS);
	__type(key, struct dcqcn_qp_key);
	__type(value, __u32);
} dp_qp_tmo SEC(".maps");

/* The netdev of @dev's port 1, as its ifindex; 0 if none */
static __always_inline __u32 qpt_ifindex(struct ib_device *dev)
{
	struct ib_port_data *pd = BPF_CORE_READ(dev, port_data);
	struct net_device *nd = NULL;
	int ifindex = 0;

	if (!pd)
		return 0;
	if (bpf_core_read(&nd, sizeof(nd), (char *)pd +
			  QPT_RXE_PORT * bpf_core_type_size(struct ib_port_data) +
			  bpf_core_field_offset(struct ib_port_data, netdev)) ||
	    !nd)
		return 0;
	if (bpf_core_read(&ifindex, sizeof(ifindex), &nd->ifindex))
		return 0;
	return ifindex > 0 ? (__u32)ifindex : 0;
}

/*
 * int rxe_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
 *		     struct ib_udata *udata): the arguments, then the result
 */
SEC("fexit/rxe_modify_qp")
int dcqcn_qp_timeout(unsigned long long *ctx)
{
	struct ib_qp *ibqp = (struct ib_qp *)ctx[0];
	struct ib_qp_attr *attr = (struct ib_qp_attr *)ctx[1];
	int mask = (int)ctx[2], ret = (int)ctx[4];
	struct dcqcn_qp_key k;
	__u32 t;

	if (ret || !(mask & (QPT_MASK_TIMEOUT | QPT_MASK_STATE)))
		return 0;
	k.ifindex = qpt_ifindex(BPF_CORE_READ(ibqp, device));
	k.lqpn = BPF_CORE_READ(ibqp, qp_num) & ROCECC_BTH_QPN_MASK;
	if (!k.ifindex)
		return 0;
	if ((mask & QPT_MASK_TIMEOUT) &&
	    BPF_CORE_READ(ibqp, qp_type) == IB_QPT_RC) {
		t = BPF_CORE_READ(attr, timeout);
		bpf_map_update_elem(&dp_qp_tmo, &k, &t, BPF_ANY);
	} else if (mask & QPT_MASK_STATE) {
		enum ib_qp_state s = BPF_CORE_READ(attr, qp_state);

		if (s == IB_QPS_RESET || s == IB_QPS_INIT)
			bpf_map_delete_elem(&dp_qp_tmo, &k);
	}
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
