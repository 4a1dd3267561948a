/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocecc.ko datapath: netfilter hooks, flow table, reaction point (rate
 * and pacing), notification point (CNPs), and the resolution of local QPs
 * through the RDMA core.
 *
 * Files
 * -----
 *  dp.c     module parameters, init/exit, attach/detach of a device, the
 *	     periodic maintenance work
 *  hooks.c  the four netfilter hooks (IPv4/IPv6 POST_ROUTING and LOCAL_IN):
 *	     classification with the shared parser, ECT(0) marking
 *  flow.c   the flow table, the genetlink flow dump and the flow events
 *	     (FLOW_CREATED, FLOW_EXPIRED)
 *  rp.c     reaction point: byte counting, EDT pacing with the QP's
 *	     timeout budget (the arithmetic: rocecc/pacing.h), the reaction
 *	     to a CNP
 *  fq.c     does a device pace: the fq qdisc check at attach and in the
 *	     maintenance work
 *  np.c     notification point: the CNP decision, CNP construction and
 *	     transmission, the end-of-window timer
 *  qp.c     local QPN -> (remote QPN, remote address, timeout) cache,
 *	     resolved in process context through ib_core; ib_client
 *  rxe.c    what is read of rdma_rxe's internals (a packet's local QPN),
 *	     and the check on the running kernel that it may be read
 *
 * Objects and lifetime
 * --------------------
 * A flow is what one local QP exchanges with one remote QP, on one attached
 * device: key (remote address, remote QPN, ifindex). It holds the RP state
 * of what we send to that remote QP and the NP state of what we tell it
 * (CNPs about its data to us). Flows live in a hash table of RCU hlists
 * (lookups lockless, inserts and removals under one spinlock), are bounded
 * by the module parameter flow_max, expire after flow_idle_ms without
 * packets, and are freed after a grace period. Each flow has a spinlock that
 * serialises its RP/NP updates (rxe transmits from its tasks, CNPs and CE
 * marks arrive in softirq on any CPU).
 *
 * A QP entry maps (ifindex, local QPN) to what the RDMA core says about the
 * QP. The datapath only reads entries (RCU) and creates empty ones; a work
 * item resolves them in process context (ib_core's restrack lock and
 * ib_query_qp are not for softirq) and revalidates resolved ones every
 * qp_revalidate_ms, which is how entries of destroyed QPs go away (the RDMA
 * core has no QP-destroy notifier). The ib_client remove callback drops
 * every entry of an rxe device that is unregistered.
 *
 * Flows and QP entries remember the struct rocecc_dev they were created for
 * (@owner) but never dereference it: every use looks the device up under
 * RCU by ifindex and ignores the object if the attachment changed. Detach
 * flushes them; the maintenance work removes stragglers.
 *
 * Lock order: flow table lock -> flow lock; QP table lock -> QP entry lock;
 * the resolver list lock is innermost. No lock is held across a packet
 * transmission or a call into ib_core.
 */
#ifndef _ROCECC_DP_H
#define _ROCECC_DP_H

#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/rculist.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <rocecc/dcqcn.h>
#include <rocecc/pacing.h>

struct rocecc_dev;
struct net_device;
struct netlink_ext_ack;
struct netlink_callback;
struct genl_family;
struct sk_buff;
struct ib_device;

/*
 * Datapath state of an attached device, embedded in struct rocecc_dev.
 * Written at attach (under RTNL) and by the datapath's own workers, read
 * locklessly by the hooks (READ_ONCE).
 */
struct rocecc_dp_dev {
	u32 line_rate_kbps;		/* link speed at attach, 0 = unknown */
	bool pace_ok;			/* root qdisc is fq (or mq of fq) */
	bool draining;			/* detach: no more pacing (dp.c) */
	/*
	 * The rxe ib_device on this netdev, a cookie compared with the
	 * device of a transmitting QP; never dereferenced, no reference held.
	 * Set only to a device that passed rocecc_rxe_check() (rxe.c).
	 */
	struct ib_device *ibdev;
};

/* --- module parameters (dp.c) ---------------------------------------------- */

extern unsigned int rocecc_flow_max;
extern unsigned int rocecc_flow_idle_ms;
extern unsigned int rocecc_qp_max;
extern unsigned int rocecc_qp_unresolved_max;
extern unsigned int rocecc_qp_revalidate_ms;
extern unsigned int rocecc_pacing_budget_pct;
extern bool rocecc_pacing_ack_req;
extern unsigned int rocecc_pacing_default_budget_us;
extern unsigned int rocecc_pacing_max_delay_us;

/* Object accounting, for leak checks (dp.c prints it at unload). */
struct rocecc_dp_objs {
	atomic64_t flows_alloc;
	atomic64_t flows_free;
	atomic64_t qps_alloc;
	atomic64_t qps_free;
	atomic64_t cnp_tx;		/* CNP skbs handed to IP */
	atomic64_t cnp_tx_err;		/* CNPs not sent: no route/memory */
	/* CNPs for CE marks that came before their QP was resolved */
	atomic64_t cnp_resolver;
};

extern struct rocecc_dp_objs rocecc_dp_objs;

/* --- flows (flow.c) ---------------------------------------------------------- */

struct rocecc_flow_key {
	u8 raddr[16];		/* IPv6, or IPv4-mapped ::ffff:a.b.c.d */
	u32 rqpn;		/* remote QPN, 24 bits */
	int ifindex;
};

struct rocecc_flow {
	struct hlist_node node;		/* flow table bucket, RCU */
	struct rocecc_flow_key key;
	const struct rocecc_dev *owner;	/* cookie, see the top */
	unsigned long last_used;	/* jiffies, WRITE_ONCE/READ_ONCE */
	unsigned long qp_seen;		/* jiffies the RP last looked its QP up */
	spinlock_t lock;

	/* Everything below is under @lock. */
	bool dead;			/* unhashed: never rearm the timer */
	bool budget_known;		/* @pace.budget_ns is the QP's */
	u8 qp_timeout;			/* the QP's timeout exponent */
	u8 laddr_family;		/* ROCECC_AF_*, 0 before the first CE */
	u32 lqpn;			/* local QPN, 0 = unknown */
	u32 clamp_max;			/* rp_max_rate the RP was clamped for */
	u32 clamp_min;			/* rp_min_rate ditto */
	u32 clamp_div;			/* rp_rate_divisor ditto */
	u32 clamp_line;			/* line rate ditto */
	u16 cnp_sport;			/* UDP source port of our CNPs */
	u8 laddr[16];			/* local address (CNP source) */
	struct rocecc_pace pace;	/* departure times and budget */
	u64 bytes;			/* data bytes sent (IP length) */
	u64 pkts;			/* data packets sent */
	u64 unpaced_pkts;		/* READ responses: counted, not delayed */
	u64 pacing_delayed;
	u64 pacing_capped;
	u64 pacing_ackreq;	/* packets given AckReq by pacing */
	u64 cnp_tx_errors;
	u64 last_cnp_rx;		/* ns, 0 = never */
	u64 last_cnp_tx;
	u64 last_increase;		/* ns the RP applied an increase */
	u64 created;			/* ns */
	struct rocecc_rp rp;
	struct rocecc_np np;
	struct hrtimer np_timer;	/* end of the CNP window, when pending */
	struct rocecc_flow *reap_next;	/* removal: list of flows to free */
	struct rcu_head rcu;
};

int rocecc_flow_init(void);
void rocecc_flow_exit(void);
struct rocecc_flow *rocecc_flow_lookup(const struct rocecc_flow_key *key,
				       const struct rocecc_dev *owner);
struct rocecc_flow *rocecc_flow_get(struct rocecc_dev *rdev,
				    const struct rocecc_flow_key *key,
				    const struct rocecc_params *p);
struct rocecc_qp;
struct rocecc_flow *rocecc_flow_of_qp(struct rocecc_dev *rdev,
				      const struct rocecc_qp *e,
				      const struct rocecc_params *p,
				      bool create, bool fresh);
void rocecc_flow_flush(const struct rocecc_dev *owner, bool all);
u64 rocecc_flow_last_depart(const struct rocecc_dev *owner);
void rocecc_flow_gc(void);
void rocecc_flow_sync_params(struct rocecc_flow *f,
			     const struct rocecc_params *p, u32 line_kbps);
int rocecc_flow_dump(struct sk_buff *skb, struct netlink_callback *cb,
		     const struct genl_family *family, u8 cmd);
unsigned int rocecc_flow_count(void);

/* --- QP resolution (qp.c) ------------------------------------------------ */

enum rocecc_qp_state {
	ROCECC_QP_PENDING,	/* queued for resolution, fields invalid */
	ROCECC_QP_OK,		/* resolved; the fields below are immutable */
	ROCECC_QP_FAILED,	/* no such QP, or no remote yet; retried */
};

struct rocecc_qp {
	struct hlist_node node;		/* QP table bucket, RCU */
	struct list_head work;		/* resolver queue, under its lock */
	int ifindex;
	u32 lqpn;
	const struct rocecc_dev *owner;	/* cookie */
	refcount_t ref;			/* table + resolver queue */
	u8 state;			/* smp_load_acquire / store_release */
	bool hashed;			/* under the table lock */
	bool remote;			/* made for a received packet's QPN */
	bool queued;			/* under the resolver lock */
	unsigned long last_used;	/* jiffies */
	unsigned long checked;		/* jiffies of the last resolution */

	/* Valid once state == ROCECC_QP_OK, then never changed. */
	u32 rqpn;
	u8 raddr[16];
	u8 timeout;			/* 4.096 us * 2^timeout, 0 = none */
	u8 qp_type;			/* enum ib_qp_type */
	const struct ib_device *ibdev;	/* cookie */
	const void *ibqp;		/* cookie: the struct ib_qp */
	u64 budget_ns;

	/* CE marks that arrived before resolution, under @lock. */
	spinlock_t lock;
	u32 ce_pending;
	u8 ce_family;
	u16 ce_sport;
	u8 ce_laddr[16];
	u8 ce_raddr[16];
	struct rcu_head rcu;
};

/* What rocecc_qp_lookup() does on a miss. */
enum rocecc_qp_create {
	ROCECC_QP_FIND,		/* nothing */
	/* create, for a QPN a received packet names: qp_unresolved_max */
	ROCECC_QP_REMOTE,
	/* create, for a QP rxe transmits on (known locally): qp_max only */
	ROCECC_QP_LOCAL,
};

int rocecc_qp_init(void);
void rocecc_qp_exit(void);
int rocecc_qp_ib_register(void);
void rocecc_qp_ib_unregister(void);
struct rocecc_qp *rocecc_qp_lookup(struct rocecc_dev *rdev, u32 lqpn,
				   enum rocecc_qp_create create);
bool rocecc_qp_resolved(const struct rocecc_qp *e);
void rocecc_qp_note_ce(struct rocecc_qp *e, u8 family, const u8 *laddr,
		       const u8 *raddr, u16 sport);
void rocecc_qp_flush(const struct rocecc_dev *owner, bool all);
void rocecc_qp_gc(void);
unsigned int rocecc_qp_count(bool unresolved);
u64 rocecc_qp_budget_ns(u8 timeout);
int rocecc_qp_find_ibdev(struct net_device *netdev, struct ib_device **ibdevp,
			 struct netlink_ext_ack *extack);

/* --- reaction point (rp.c) --------------------------------------------- */

/* What rxe's transmit of a RoCE data packet means for its flow. */
struct rocecc_tx {
	u32 len;		/* IP length */
	u32 lqpn;		/* from the transmitting QP, 0 = unknown */
	bool pace;		/* a request (paced), not a READ response */
	bool ack_req;		/* BTH AckReq: rxe waits for its ACK */
	bool may_ask;		/* the hook can set AckReq on it (pacing.h) */
};

u64 rocecc_rp_tx(struct rocecc_dev *rdev, const struct rocecc_params *p,
		 struct rocecc_flow *f, const struct rocecc_tx *tx, u64 now,
		 bool *ask);
void rocecc_rp_cnp(struct rocecc_dev *rdev, const struct rocecc_params *p,
		   struct rocecc_flow *f, u64 now);
void rocecc_rp_set_budget(struct rocecc_flow *f, u32 lqpn,
			  const struct rocecc_qp *e);

/* --- does a device pace (fq.c) ------------------------------------------- */

#define ROCECC_PACE_MSG_LEN	256

int rocecc_pace_check(struct net_device *netdev, bool strict,
		      struct netlink_ext_ack *extack);
int rocecc_pace_check_delay(struct net_device *nd, u32 need, char *msg);

/* --- notification point (np.c) ----------------------------------------- */

/* Where a flow's CNPs go: taken from the CE-marked packet. */
struct rocecc_np_addr {
	u8 family;
	u16 sport;
	u8 laddr[16];		/* our address: the CNP's source */
	u8 raddr[16];		/* the sender's: the CNP's destination */
};

bool rocecc_np_ce(struct rocecc_dev *rdev, const struct rocecc_params *p,
		  struct rocecc_flow *f, const struct rocecc_np_addr *a,
		  u64 now);
void rocecc_np_timer_init(struct rocecc_flow *f);
int rocecc_np_send_cnp(struct rocecc_dev *rdev, const struct rocecc_params *p,
		       const struct rocecc_np_addr *a, u32 rqpn);

/* --- rdma_rxe's internals (rxe.c) ----------------------------------------- */

int rocecc_rxe_check(struct ib_device *ibdev, const char *name,
		     struct netlink_ext_ack *extack);
u32 rocecc_rxe_lqpn(const struct sk_buff *skb, const struct rocecc_dev *rdev);

/* --- hooks (hooks.c) ----------------------------------------------------- */

int rocecc_hooks_init(void);
void rocecc_hooks_exit(void);
bool rocecc_skb_roce(const struct sk_buff *skb, bool v6);

/* --- dp.c: entry points for the control plane ---------------------------- */

int rocecc_dp_init(void);
void rocecc_dp_exit(void);
int rocecc_dp_dev_attach(struct rocecc_dev *rdev, struct net_device *netdev,
			 struct netlink_ext_ack *extack);
void rocecc_dp_dev_drain(struct rocecc_dev *rdev);
void rocecc_dp_drain_wait(const struct rocecc_dev *rdev);
void rocecc_dp_dev_detach(struct rocecc_dev *rdev);

/* ktime_get_ns(): CLOCK_MONOTONIC, the clock fq compares departure times to. */
static inline u64 rocecc_now(void)
{
	return ktime_get_ns();
}

/* Is an IPv4-mapped address (::ffff:a.b.c.d)? */
static inline bool rocecc_addr_v4mapped(const u8 *a)
{
	static const u8 pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return !memcmp(a, pfx, sizeof(pfx));
}

#endif /* _ROCECC_DP_H */
