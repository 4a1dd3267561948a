// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The BPF engine learns, for each local soft-RoCE QP, what rocecc.ko asks
 * ib_query_qp() for: its ACK timeout, and its peer.
 *  - The timeout: the pacing budget of a flow is a share of its QP's
 *    timeout (include/rocecc/pacing.h), and the default budget (8 ms)
 *    binds on nearly every packet at the rates the budget of timeout 14
 *    (30 ms at HZ 250) would allow.
 *  - The peer (address and remote QPN): the one whose CNPs the ingress
 *    program accepts for the QP (dp_qps); a CNP from anyone else is
 *    counted rp_cnp_spoofed. It must come from the QP's own attributes,
 *    never from received packets: anyone can send a CNP for our QPN from
 *    an address of his choice, before our QP has sent anything.
 *
 * Neither RDMA netlink nor any map has them (nldev's QP entries carry
 * QPNs, PSNs, type and state only), so tracing programs watch the places
 * rxe takes them: fexit of rxe_modify_qp(), the rdma_rxe verb every
 * ib_modify_qp() of an rxe QP ends in, and fentry of rxe_destroy_qp(),
 * where every ib_destroy_qp() of one does (ib_device_ops pointers, never
 * inlined; their arguments are the verbs' types, the same on 6.1 and
 * 6.12, and rdma_rxe's module BTF describes them). After a modify that
 * succeeded, into dp_qp_attr[(ifindex, QPN)] (struct dcqcn_qp, as
 * dp_qps):
 *  - the QP back to RESET or INIT (a QPN is reused for a new QP that
 *    starts there): its entry goes, and its dp_qps entry, whoever wrote
 *    it: timeout and peer are unknown again until the modifies that set
 *    them (a modify to RESET or INIT carries neither);
 *  - IB_QP_TIMEOUT on an RC QP: the timeout (DCQCN_QP_TIMEOUT);
 *  - IB_QP_AV with IB_QP_DEST_QPN (the modify to RTR, which must carry
 *    both) on an RC or UC QP whose address vector has a GRH (RoCE's
 *    always does): the destination GID as raddr (RoCEv2 over IPv4 has
 *    the IPv4-mapped ::ffff:a.b.c.d, the form raddr takes) and the
 *    destination QPN as rqpn (DCQCN_QP_AV);
 *  - once the entry has the peer, it is copied into dp_qps, the TC
 *    programs' QP map (the map is dcqcn.bpf.c's: the loader hands its fd
 *    to this object), at this modify and at each later one that changes
 *    it: the QP's CNPs are told from a spoofer's before its first packet
 *    leaves (the modify to RTS follows), not once the daemon's next poll
 *    has seen the QP (seconds, on a loaded host).
 * A destroy (fentry: the QP still whole) deletes both entries: a QP is
 * destroyed from any state without a modify to RESET.
 * The netdev is port 1's (rxe has one port) in the ib_device's port data,
 * which rxe fills with ib_device_set_netdev() on 6.1 and 6.12 alike.
 * Kernel structs are read with CO-RE (their layouts come from the
 * running kernel's BTF: ib_core's and rdma_rxe's; the fields are named,
 * so struct rdma_ah_attr and ib_global_route may move them), so one
 * object loads on both.
 *
 * roceccd (daemon/lib/bpf_dp.c) loads this next to dcqcn.bpf.c once
 * rdma_rxe is loaded: the TC programs take the flow's budget from the
 * timeout (rocecc_pace_budget_ns(), the module's arithmetic) and accept
 * the peer's CNPs alone; the daemon reads the peers (they outrank its
 * pairing of the flows), copies the timeouts of QPs whose dp_qps entry
 * it writes, and deletes the entries of QPs gone. The map and both links
 * are pinned next to dcqcn.bpf.c's maps (DCQCN_PIN_QP_*): the learner
 * goes on while no roceccd runs (QPs set up, reset or destroyed then get
 * or lose their entries as ever), and a restarted roceccd adopts it, the
 * same links when they run this code on the same maps (else it replaces
 * them); it is unpinned, and so detached, only with the engine (its last
 * netdev detached for good, roceccd --datapath none). A pinned link
 * holds rdma_rxe (a trampoline on a module's function does).
 * A QP modified before it was first attached has no entry: it keeps the
 * default budget, and roceccd pairs it with a peer from flowmon's flows
 * as a fallback (daemon/roceccd/pairing.c, which says what that risks).
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

enum ib_qp_type { IB_QPT_RC = 2, IB_QPT_UC };	/* = IB_UVERBS_QPT_* */
enum ib_qp_state { IB_QPS_RESET, IB_QPS_INIT };

struct ib_qp {
	struct ib_device *device;
	__u32 qp_num;
	enum ib_qp_type qp_type;
} __attribute__((preserve_access_index));

union ib_gid {
	__u8 raw[16];
} __attribute__((preserve_access_index));

struct ib_global_route {
	union ib_gid dgid;
} __attribute__((preserve_access_index));

struct rdma_ah_attr {
	struct ib_global_route grh;
	__u8 ah_flags;
} __attribute__((preserve_access_index));

struct ib_qp_attr {
	enum ib_qp_state qp_state;
	struct rdma_ah_attr ah_attr;
	__u32 dest_qp_num;
	__u8 timeout;
} __attribute__((preserve_access_index));

/* enum ib_qp_attr_mask */
#define QPT_MASK_STATE		0x1
#define QPT_MASK_AV		0x80
#define QPT_MASK_DEST_QPN	0x100
#define QPT_MASK_TIMEOUT	0x200
#define QPT_MASK_PEER		(QPT_MASK_AV | QPT_MASK_DEST_QPN)

#define QPT_AH_GRH		0x1	/* enum ib_ah_flags IB_AH_GRH */

#define QPT_RXE_PORT		1	/* rxe's only port */

/* (ifindex, local QPN) -> timeout, peer (dcqcn_bpf.h); LRU: never full */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, DCQCN_MAX_QPS);
	__type(key, struct dcqcn_qp_key);
	__type(value, struct dcqcn_qp);
} dp_qp_attr SEC(".maps");

/* dcqcn.bpf.c's, its fd reused by the loader */
DCQCN_QPS_MAP;

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
	struct dcqcn_qp v, *old;
	enum ib_qp_type type;
	__u8 gid[16];
	bool set = false;

	if (ret || !(mask & (QPT_MASK_TIMEOUT | QPT_MASK_STATE | QPT_MASK_AV)))
		return 0;
	k.ifindex = qpt_ifindex(BPF_CORE_READ(ibqp, device));
	k.lqpn = BPF_CORE_READ(ibqp, qp_num) & ROCECC_BTH_QPN_MASK;
	if (!k.ifindex)
		return 0;
	if (mask & QPT_MASK_STATE) {
		enum ib_qp_state s = BPF_CORE_READ(attr, qp_state);

		if (s == IB_QPS_RESET || s == IB_QPS_INIT) {
			bpf_map_delete_elem(&dp_qp_attr, &k);
			bpf_map_delete_elem(&dp_qps, &k);
			return 0;
		}
	}
	type = BPF_CORE_READ(ibqp, qp_type);
	old = bpf_map_lookup_elem(&dp_qp_attr, &k);
	if (old)
		v = *old;
	else
		__builtin_memset(&v, 0, sizeof(v));
	if ((mask & QPT_MASK_TIMEOUT) && type == IB_QPT_RC) {
		v.timeout = BPF_CORE_READ(attr, timeout);
		v.flags |= DCQCN_QP_TIMEOUT;
		set = true;
	}
	if ((mask & QPT_MASK_PEER) == QPT_MASK_PEER &&
	    (type == IB_QPT_RC || type == IB_QPT_UC) &&
	    (BPF_CORE_READ(attr, ah_attr.ah_flags) & QPT_AH_GRH) &&
	    !bpf_core_read(gid, sizeof(gid), &attr->ah_attr.grh.dgid.raw)) {
		__builtin_memcpy(v.raddr, gid, sizeof(v.raddr));
		v.rqpn = BPF_CORE_READ(attr, dest_qp_num) &
			 ROCECC_BTH_QPN_MASK;
		v.flags |= DCQCN_QP_AV;
		set = true;
	}
	if (!set)
		return 0;
	bpf_map_update_elem(&dp_qp_attr, &k, &v, BPF_ANY);
	if (v.flags & DCQCN_QP_AV)
		bpf_map_update_elem(&dp_qps, &k, &v, BPF_ANY);
	return 0;
}

/*
 * int rxe_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata): on entry,
 * while the QP is whole (it fails only for a UD QP in a multicast group)
 */
SEC("fentry/rxe_destroy_qp")
int dcqcn_qp_destroy(unsigned long long *ctx)
{
	struct ib_qp *ibqp = (struct ib_qp *)ctx[0];
	struct dcqcn_qp_key k;

	k.ifindex = qpt_ifindex(BPF_CORE_READ(ibqp, device));
	k.lqpn = BPF_CORE_READ(ibqp, qp_num) & ROCECC_BTH_QPN_MASK;
	if (!k.ifindex)
		return 0;
	bpf_map_delete_elem(&dp_qp_attr, &k);
	bpf_map_delete_elem(&dp_qps, &k);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
