/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The BPF datapath engine: DCQCN without rocecc.ko. The ABI between the TC
 * programs in bpf/dcqcn.bpf.c and the userspace that loads them and fills
 * and reads their maps (bpf/dcqcn_loader.c for roceccd, the tests, the
 * benchmark).
 *
 * What it does, per attached netdev (TC clsact, egress and ingress), with
 * the module's semantics (kmod/hooks.c, rp.c, np.c) and the same shared
 * core (include/rocecc/):
 *
 *  egress   only packets of rxe's QP sockets (dp_rxe_sock(); others are
 *	     counted in tx_not_rxe and left alone): RoCEv2 packets
 *	     leaving Not-ECT are marked ECT(0) (CNPs left alone); RC/UC requests and RC READ responses go to their flow
 *	     (remote address, remote QPN = BTH DestQP, ifindex), drive
 *	     rocecc_rp_on_send() and, requests only, get an EDT departure
 *	     time from rocecc_pace() (fq honours it) and, when it says
 *	     so, BTH AckReq with the ICRC mended (rocecc_icrc_flip()).
 *  ingress  a CNP with a valid ICRC for local QP l, sent by l's peer per
 *	     the QP map, drives rocecc_rp_on_cnp() of l's flow and is
 *	     consumed; a CE-marked RC/UC packet for local QP l drives
 *	     rocecc_np_on_ce() of l's flow and, when it says so, a CNP goes
 *	     to l's remote QP.
 *
 * Maps (all but dp_scratch pinned by the loader, so a restarted loader
 * adopts them with every flow's state)
 * ----
 *  dp_devs   HASH  __u32 ifindex -> struct dcqcn_dev. An entry is what
 *	      "attached" means to the programs: on a netdev without one they
 *	      pass everything untouched. Written by the loader only: the
 *	      parameters (validated with rocecc_params_validate()), the line
 *	      rate, whether to pace, the pacing budget's knobs.
 *  dp_qps    HASH  struct dcqcn_qp_key (ifindex, local QPN) ->
 *	      struct dcqcn_qp (peer address, remote QPN, ACK timeout).
 *	      Written by the QP learner below the moment rxe sets a QP's
 *	      address vector (its modify to RTR, before the QP's first
 *	      packet: DCQCN_QP_AV), deleted by it when the QP is reset or
 *	      destroyed; and by the daemon: the QPs of RDMA netlink, with
 *	      the learner's peer, else (a QP set up before the learner ran)
 *	      the one flowmon's flows tell (daemon/roceccd/pairing.c); it
 *	      deletes the entries of QPs gone. The programs never guess a
 *	      peer: a CE mark or a CNP whose local QP is not here is counted
 *	      (ce_unanswered, resolver_miss) and nothing else happens.
 *  dp_flows  HASH  struct dcqcn_flow_key (remote address, remote QPN,
 *	      ifindex) -> struct dcqcn_flow, the module's flow: RP and NP
 *	      state of the shared core, pacing state, counters. Created by
 *	      the programs (egress data, ingress CE and CNP of a known QP),
 *	      never removed by them: the daemon deletes idle ones
 *	      (dcqcn_flows_expire()). Full: counted in flow_table_full.
 *	      Read it with BPF_F_LOCK for a consistent copy.
 *  dp_stats  PERCPU_HASH __u32 ifindex -> struct dcqcn_stats: the
 *	      module's counters (same ids as enum rocecc_stat) and this
 *	      engine's own (DCQCN_STAT_*), per CPU: sum them. Created with the
 *	      dp_devs entry.
 *
 * and the QP learner's (bpf/qptimeout.bpf.c, a tracing program of its own,
 * loaded once rdma_rxe is; its map is not pinned: it knows the QPs set up
 * while it runs, nothing of those before):
 *  dp_qp_attr LRU_HASH struct dcqcn_qp_key -> struct dcqcn_qp: what
 *	      rxe_modify_qp() gave the QP: its ACK timeout (DCQCN_QP_TIMEOUT)
 *	      and its peer, address and remote QPN, from the modify to RTR's
 *	      address vector and destination QPN (DCQCN_QP_AV). Written by
 *	      the learner only, which copies it into dp_qps once the peer is
 *	      known; the daemon reads it (the peer outranks its pairing).
 *
 * Two engines never drive one netdev. The loader refuses a netdev that
 * rocecc.ko has attached (its generic netlink DEV_GET answers for it).
 * The other way round, rocecc.ko refuses to attach to a netdev whose
 * clsact blocks hold a cls_bpf filter at this engine's priority with its
 * handle (kmod/bpf_engine.c), and its users (roceccd, rocecc dev attach)
 * ask bpf_dp_on_netdev() (daemon/lib/bpf_dp.h) first, which also checks
 * the programs' names (dcqcn_ingress, dcqcn_egress), for a message of
 * their own.
 *
 * Concurrency: a flow's state is under its bpf_spin_lock (egress runs in
 * rxe's tasks on any CPU, ingress in softirq on any CPU); the RP core runs
 * on a copy and is stored back under the lock when the flow's version
 * (ver) shows nobody else changed it (dcqcn.bpf.c, "Inlining and
 * locking"). Userspace reads flows with BPF_F_LOCK.
 */
#ifndef _ROCECC_DCQCN_BPF_H
#define _ROCECC_DCQCN_BPF_H

#include <linux/types.h>
#include <linux/bpf.h>
#include <rocecc/bpf_engine.h>
#include <rocecc/dcqcn.h>
#include <rocecc/pacing.h>
#include <rocecc/params.h>

/* Default map sizes; the loader may change them before load. */
#define DCQCN_MAX_DEVS		64
#define DCQCN_MAX_QPS		16384
#define DCQCN_MAX_FLOWS		16384

/* Names of the maps a loader pins, in its pin directory. */
#define DCQCN_PIN_DEVS		"dp_devs"
#define DCQCN_PIN_QPS		"dp_qps"
#define DCQCN_PIN_FLOWS		"dp_flows"
#define DCQCN_PIN_STATS		"dp_stats"
/* The QP learner's (qptimeout.bpf.c): its map and its two links */
#define DCQCN_PIN_QP_ATTR	"dp_qp_attr"
#define DCQCN_PIN_QP_MODIFY	"link_qp_modify"
#define DCQCN_PIN_QP_DESTROY	"link_qp_destroy"

/*
 * The clsact filters: their priority on each hook and their handle, by
 * which rocecc.ko too knows the netdevs of this engine
 * (include/rocecc/bpf_engine.h).
 */
#define DCQCN_TC_PRIO_INGRESS	ROCECC_BPF_TC_PRIO_INGRESS
#define DCQCN_TC_PRIO_EGRESS	ROCECC_BPF_TC_PRIO_EGRESS
#define DCQCN_TC_HANDLE		ROCECC_BPF_TC_HANDLE

/*
 * skb->mark of the clone a program redirects to its netdev's egress to be
 * rewritten into a CNP. The mark alone proves nothing: the egress program
 * also needs its CPU's armed hand-over slot (see dcqcn.bpf.c), so a
 * packet that merely carries this mark passes untouched. The loader may
 * change it (dcqcn_cnp_mark) if the site uses that value.
 */
#define DCQCN_CNP_MARK_DEFAULT	0x72cc0c9fU

/* struct dcqcn_dev flags */
#define DCQCN_DEV_PACE		0x1	/* the root qdisc paces (fq) */
#define DCQCN_DEV_ACKREQ	0x2	/* pacing may set AckReq (pacing_ack_req) */

/* dp_devs value: one attached netdev. */
struct dcqcn_dev {
	struct rocecc_params params;	/* validated by the loader */
	__u32 line_rate_kbps;		/* 0: unknown */
	__u32 flags;			/* DCQCN_DEV_* */
	/* the module's pacing_* parameters, defaults ROCECC_PACE_* */
	__u32 budget_pct;		/* share of the QP's timeout */
	__u32 default_budget_us;	/* until the timeout is known */
	__u32 max_delay_us;		/* no packet held longer */
	__u32 pad;
};

/* dp_qps key and value (the map: DCQCN_QPS_MAP below) */
struct dcqcn_qp_key {
	__u32 ifindex;		/* netdev of the RDMA port */
	__u32 lqpn;		/* local QPN, 24 bits */
};

/*
 * struct dcqcn_qp flags. DCQCN_QP_AV: raddr and rqpn are the QP's own,
 * its address vector and destination QPN as the learner saw them set.
 */
#define DCQCN_QP_TIMEOUT	0x1	/* timeout is known */
#define DCQCN_QP_AV		0x2	/* the peer is the QP's own */

struct dcqcn_qp {
	__u8 raddr[16];		/* peer: IPv6, or IPv4-mapped ::ffff:a.b.c.d */
	__u32 rqpn;		/* remote QPN, 24 bits */
	__u8 timeout;		/* ACK timeout exponent (0: no timer) */
	__u8 flags;		/* DCQCN_QP_*; without a known timeout the
				 * flow keeps dcqcn_dev.default_budget_us */
	__u8 pad[2];
};

/*
 * The dp_qps map, declared the same in the two objects that write it:
 * dcqcn.bpf.c's (pinned), whose fd the learner's object (qptimeout.bpf.c)
 * reuses (bpf_map__reuse_fd()) before it loads.
 */
#define DCQCN_QPS_MAP							\
	struct {							\
		__uint(type, BPF_MAP_TYPE_HASH);			\
		__uint(max_entries, DCQCN_MAX_QPS);			\
		__type(key, struct dcqcn_qp_key);			\
		__type(value, struct dcqcn_qp);				\
	} dp_qps SEC(".maps")

/* dp_flows key: the module's flow key (kmod/dp.h struct rocecc_flow_key) */
struct dcqcn_flow_key {
	__u8 raddr[16];		/* IPv6, or IPv4-mapped */
	__u32 rqpn;		/* remote QPN */
	__u32 ifindex;
};

/*
 * dp_flows value. Field for field what the module keeps (kmod/dp.h
 * struct rocecc_flow), so that a flow dump has the same attributes:
 * dcqcn_flow_put() writes the ROCECC_A_FLOW nest of the module's
 * FLOW_GET from it.
 */
struct dcqcn_flow {
	struct bpf_spin_lock lock;
	__u32 lqpn;			/* local QPN, 0 = unknown */
	__u64 ver;			/* changes of rp (see dcqcn.bpf.c) */
	__u8 budget_known;		/* pace.budget_ns from the QP */
	__u8 qp_timeout;		/* the QP's timeout exponent */
	__u8 laddr_family;		/* ROCECC_AF_*, 0 before the first CE */
	__u8 init;			/* rp set up (rocecc_rp_init()) */
	__u16 cnp_sport;		/* UDP source port of our CNPs */
	__u16 pad;
	__u8 laddr[16];			/* local address (CNP source) */
	__u32 clamp_max;		/* rp_max_rate the RP was clamped for */
	__u32 clamp_min;		/* rp_min_rate ditto */
	__u32 clamp_div;		/* rp_rate_divisor ditto */
	__u32 clamp_line;		/* line rate ditto */
	__u64 bytes;			/* data bytes sent (IP length) */
	__u64 pkts;			/* data packets sent */
	__u64 unpaced_pkts;		/* READ responses: counted, not delayed */
	__u64 pacing_delayed;
	__u64 pacing_capped;
	__u64 pacing_ackreq;		/* packets given AckReq by pacing */
	__u64 cnp_tx_errors;		/* CNPs due that could not be sent */
	__u64 last_cnp_rx;		/* ns (CLOCK_MONOTONIC), 0 = never */
	__u64 last_cnp_tx;
	__u64 last_increase;		/* ns the RP applied an increase */
	__u64 last_active;		/* ns of its last packet, any direction */
	__u64 created;
	struct rocecc_pace pace;
	struct rocecc_rp rp;
	struct rocecc_np np;
};

/*
 * dp_stats: indexed by enum rocecc_stat for the counters the module has
 * (same ids, same names: a CNP from an address that is not its QP's
 * peer is ROCECC_STAT_RP_CNP_SPOOFED in both engines, a packet to port
 * 4791 from a socket that is not rxe's ROCECC_STAT_TX_NOT_RXE), then
 * this engine's own (keep dcqcn_stat_name() in step). (They could join
 * enum rocecc_stat once the module counts them too.)
 */
enum dcqcn_stat {
	/* CE marks answered with a CNP at once or deferred (NP) */
	DCQCN_STAT_CE_ANSWERED = __ROCECC_STAT_MAX,
	/* CE marks of a local QP not in dp_qps: no CNP, never guessed */
	DCQCN_STAT_CE_UNANSWERED,
	/* CNPs due that could not be sent (clone, resize or rewrite failed) */
	DCQCN_STAT_CNP_TX_ERRORS,
	/* of np_cnp_sent: deferred ones, sent at the end of their window */
	DCQCN_STAT_CNP_DEFERRED,
	/* RP events given up: other CPUs changed the flow at every try */
	DCQCN_STAT_RP_CONTENDED,

	__DCQCN_STAT_MAX
};

struct dcqcn_stats {
	__u64 v[__DCQCN_STAT_MAX];	/* v[0], v[1] unused */
};

/*
 * The names of this engine's own counters; the module's ids have theirs
 * in cli_stat_name() (daemon/lib/parse.h). NULL for anything else.
 */
static inline const char *dcqcn_stat_name(unsigned int id)
{
	static const char *const names[__DCQCN_STAT_MAX -
					__ROCECC_STAT_MAX] = {
		"ce_answered",
		"ce_unanswered",
		"cnp_tx_errors",
		"cnp_deferred",
		"rp_contended",
	};

	if (id < __ROCECC_STAT_MAX || id >= __DCQCN_STAT_MAX)
		return (const char *)0;
	return names[id - __ROCECC_STAT_MAX];
}

#endif /* _ROCECC_DCQCN_BPF_H */
